//! Generated `cuda_tile` modules of a chosen size, shared by the text benchmark
//! (`benches/scale.rs`) and the bytecode benchmark of `tileir-bytecode`.
//!
//! A module is many copies of one entry under different symbol names. The entry mixes
//! constants, integer and float arithmetic, comparisons, selects, conversions, shape ops,
//! views with loads and stores, a reduction and `for`, `if` and `loop` control flow with
//! nested regions. SSA names repeat across entries, which is valid because each entry is
//! isolated from above.
#![allow(dead_code)]

/// One entry; `{name}` is replaced by the entry's symbol.
pub const ENTRY: &str = r#"  entry @{name}(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %n: tile<i32>) {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %one = constant <f32: 1.000000e+00> : tile<16xf32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tb = make_tensor_view %b, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pa = make_partition_view %ta : partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pb = make_partition_view %tb : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %x, %t0 = load_view_tko weak %pa[%bx] : partition_view<tile=(16), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %x1 = addf %x, %one : tile<16xf32>
    %x2 = mulf %x1, %x : tile<16xf32>
    %x3 = subf %x2, %one : tile<16xf32>
    %x4 = maxf %x3, %x1 : tile<16xf32>
    %x5 = fma %x4, %x2, %x1 : tile<16xf32>
    %x6 = negf %x5 : tile<16xf32>
    %x7 = absf %x6 : tile<16xf32>
    %x8 = exp %x7 : tile<16xf32>
    %m = cmpf less_than ordered %x8, %x4 : tile<16xf32> -> tile<16xi1>
    %x9 = select %m, %x8, %x4 : tile<16xi1>, tile<16xf32>
    %i0 = iota : tile<16xi32>
    %i1 = addi %i0, %i0 : tile<16xi32>
    %i2 = muli %i1, %i0 : tile<16xi32>
    %i3 = xori %i2, %i1 : tile<16xi32>
    %i4 = exti %i3 signed : tile<16xi32> -> tile<16xi64>
    %i5 = trunci %i4 : tile<16xi64> -> tile<16xi32>
    %f0 = itof %i5 signed : tile<16xi32> -> tile<16xf32>
    %f1 = addf %f0, %x9 : tile<16xf32>
    %r2 = reshape %f1 : tile<16xf32> -> tile<4x4xf32>
    %p2 = permute %r2 [1, 0] : tile<4x4xf32> -> tile<4x4xf32>
    %r1 = reshape %p2 : tile<4x4xf32> -> tile<16xf32>
    %s = reduce %r1 dim=0 identities=[0.000000e+00 : f32] : tile<16xf32> -> tile<f32>
    (%e: tile<f32>, %acc: tile<f32>) {
      %sum = addf %e, %acc : tile<f32>
      yield %sum : tile<f32>
    }
    %sr = reshape %s : tile<f32> -> tile<1xf32>
    %sb = broadcast %sr : tile<1xf32> -> tile<16xf32>
    %lp = for %iv in (%c0 to %n, step %c1) : tile<i32> iter_values(%v = %sb) -> (tile<16xf32>) {
      %w = addf %v, %one : tile<16xf32>
      %big = cmpi greater_than %iv, %c1, signed : tile<i32> -> tile<i1>
      %w2 = if %big -> (tile<16xf32>) {
        %w3 = mulf %w, %w : tile<16xf32>
        yield %w3 : tile<16xf32>
      } else {
        yield %w : tile<16xf32>
      }
      continue %w2 : tile<16xf32>
    }
    %cnt = loop iter_values(%k = %c0) : tile<i32> -> tile<i32> {
      %k1 = addi %k, %c1 : tile<i32>
      %done = cmpi greater_than_or_equal %k1, %n, signed : tile<i32> -> tile<i1>
      if %done {
        break %k1 : tile<i32>
      }
      continue %k1 : tile<i32>
    }
    %t1 = store_view_tko weak %lp, %pb[%bx] token = %t0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
"#;

/// A module of `entries` copies of [`ENTRY`].
pub fn generate(entries: usize) -> String {
    let mut s = String::with_capacity(entries * (ENTRY.len() + 8) + 64);
    s.push_str("cuda_tile.module @kernels {\n");
    for i in 0..entries {
        s.push_str(&ENTRY.replace("{name}", &format!("k{i}")));
    }
    s.push_str("}\n");
    s
}
