//! Helpers shared by the tests that run the compiler's lowerings in the interpreter:
//! parsing, running a pass pipeline the way the driver does (verifying after each pass),
//! counting ops, and the matmul K-loop kernel most of them lower.
#![allow(dead_code)]

use tileir_interp::agents::Interleave;
use tileir_interp::{run_entry, ArgValue, InterpError, Memory, RunOptions};
use tileir_ir::{Module, OpKind};
use tileir_pass::PassManager;
use tileir_syntax::{parse_module, ParseOptions};

/// Parses IR text (any level), panicking with the diagnostics.
pub fn parse(text: &str) -> Module {
    parse_module(text, &ParseOptions { file_name: "lowering.mlir".into(), ..Default::default() })
        .unwrap_or_else(|d| panic!("parse failed: {d:?}\n{text}"))
}

/// `module` after the passes of `pipeline`, run by the pass manager the driver uses.
pub fn lower(module: &Module, pipeline: &str) -> Module {
    let mut m = module.clone();
    PassManager::from_pipeline(pipeline, &tileir_transforms::registry())
        .expect("pipeline")
        .run(&mut m)
        .unwrap_or_else(|f| panic!("{pipeline} failed: {:?}", f.diagnostics));
    m
}

/// Reachable ops whose kind satisfies `pred`.
pub fn count(m: &Module, pred: impl Fn(&OpKind) -> bool) -> usize {
    m.walk().into_iter().filter(|&o| pred(&m.ops[o].kind)).count()
}

/// The f16 bytes of `v`.
pub fn f16(v: f32) -> [u8; 2] {
    tileir_interp::float::f32_to_f16(v).to_le_bytes()
}

/// The front end's matmul main loop shape: two 16×16 tile loads feeding `mmaf` in a K loop,
/// one output tile per block.
pub const MATMUL: &str = r#"
cuda_tile.module @kernels {
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %sp:2 = get_index_space_shape %pa : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<16x16xf32>
    %lb = constant <i32: 0> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%lb to %sp#1, step %st) : tile<i32> iter_values(%x = %zero) -> (tile<16x16xf32>) {
      %va, %t0 = load_view_tko weak %pa[%by, %kk] : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      %vb, %t1 = load_view_tko weak %pb[%kk, %bx] : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      %r = mmaf %va, %vb, %x : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
      continue %r : tile<16x16xf32>
    }
    %t2 = store_view_tko weak %acc, %pc[%by, %bx] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
"#;

/// Runs `entry` of a matmul-shaped `module` (parameters a, b, c, m, n, k) on an (m × k)·(k × n)
/// product of small integers (exact in f16 and f32) over `grid`; returns C's bytes.
pub fn run_matmul_on(
    module: &Module,
    (m, n, k): (usize, usize, usize),
    grid: [u32; 3],
    interleave: Interleave,
) -> Result<Vec<u8>, InterpError> {
    let mut mem = Memory::new();
    let a: Vec<u8> = (0..m * k).flat_map(|i| f16(((i * 7) % 11) as f32 - 5.0)).collect();
    let b: Vec<u8> = (0..k * n).flat_map(|i| f16(((i * 5) % 13) as f32 - 6.0)).collect();
    let pa = mem.alloc_vec(a, 16);
    let pb = mem.alloc_vec(b, 16);
    let pc = mem.alloc(m * n * 4, 16);
    let args = [ArgValue::Ptr(pa), ArgValue::Ptr(pb), ArgValue::Ptr(pc), ArgValue::i32(m as i32), ArgValue::i32(n as i32), ArgValue::i32(k as i32)];
    run_entry(module, "matmul", grid, &args, &mut mem, &RunOptions { agent_interleave: interleave, ..Default::default() })?;
    let mut out = vec![0u8; m * n * 4];
    mem.read(pc, &mut out).unwrap();
    Ok(out)
}

/// [`run_matmul_on`] with one block per 16×16 output tile.
pub fn run_matmul(module: &Module, m: usize, n: usize, k: usize, interleave: Interleave) -> Result<Vec<u8>, InterpError> {
    run_matmul_on(module, (m, n, k), [n.div_ceil(16) as u32, m.div_ceil(16) as u32, 1], interleave)
}
