//! Kernels written in the textual syntax (parsed by tileir-syntax) and run.

use tileir_interp::{run_entry, ArgValue, Memory, RunOptions};
use tileir_syntax::{parse_module, ParseOptions};

const SAXPY: &str = r#"
cuda_tile.module @kernels {
  entry @saxpy(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %a: tile<f32>, %n: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %ty = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %px = make_partition_view %tx : partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %py = make_partition_view %ty : partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %vx, %t0 = load_view_tko weak %px[%bx] : partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %vy, %t1 = load_view_tko weak %py[%bx] : partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %a1 = reshape %a : tile<f32> -> tile<1xf32>
    %av = broadcast %a1 : tile<1xf32> -> tile<16xf32>
    %r = fma %av, %vx, %vy : tile<16xf32>
    %t2 = store_view_tko weak %r, %py[%bx] : tile<16xf32>, partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"#;

#[test]
fn saxpy_from_text() {
    let m = match parse_module(
        SAXPY,
        &ParseOptions {
            file_name: "saxpy.mlir".into(),
            ..Default::default()
        },
    ) {
        Ok(m) => m,
        Err(d) => panic!("parse failed: {d:?}"),
    };
    let n = 40usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32 / 3.0).collect();
    let mut mem = Memory::new();
    let (px, py) = (mem.alloc_f32(&x), mem.alloc_f32(&y));
    let args = [
        ArgValue::Ptr(px),
        ArgValue::Ptr(py),
        ArgValue::f32(2.5),
        ArgValue::i32(n as i32),
    ];
    run_entry(
        &m,
        "saxpy",
        [3, 1, 1],
        &args,
        &mut mem,
        &RunOptions::default(),
    )
    .unwrap();
    let got = mem.read_f32(py, n).unwrap();
    for i in 0..n {
        assert_eq!(
            got[i].to_bits(),
            2.5f32.mul_add(x[i], y[i]).to_bits(),
            "element {i}"
        );
    }
}
