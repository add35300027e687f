//! `tileas-materialize-convert-layout` proven by execution: a kernel that converts a tile
//! through three layouts (within a warp, across warps, back, and an identity) writes the
//! same bytes before the pass (direct `convert_layout`s) and after it (a `shuffle`, the
//! `alloc_tensor`/`view`/`copy`/`convert_layout` staging, a direct conversion), with the
//! default options and with `reg2reg-vec-size=0` (everything staged through shared memory).

mod lowering;

use lowering::{lower, parse};
use tileir_interp::{run_entry, ArgValue, Memory, RunOptions};
use tileir_ir::{Module, OpKind, TileAsOp};

const A: &str = "#nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>";
const B: &str = "#nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>";
const C: &str = "#nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[1, 0]>";

fn kernel() -> String {
    let t = |l: &str| format!("tile<32x16xf32, {l}>");
    let g = |l: &str| format!("!cuda_tile.tile<32x16xf32, {l}>");
    format!(
        r#"nv_tileaa.func @k(%arg0: !nv_tileaa.ptr<f32, 1>, %arg1: i32, %arg2: !nv_tileaa.ptr<f32, 1>) attributes {{kernel, num_warps = 4}} {{
  %0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %1 = nv_tileaa.make_memref %arg0, sizes = [%arg1, 16], strides = [16, 1] alignment = 16 : (!nv_tileaa.ptr<f32, 1>, i32) -> !nv_tileaa.memref<?x16xf32, strides=[16,1], 1>
  %2 = nv_tileaa.make_memref %arg2, sizes = [%arg1, 16], strides = [16, 1] alignment = 16 : (!nv_tileaa.ptr<f32, 1>, i32) -> !nv_tileaa.memref<?x16xf32, strides=[16,1], 1>
  %3 = nv_tileaa.get_program_id x : i32
  %4 = "cuda_tile.constant"() <{{value = dense<0> : tensor<i32>}}> : () -> i32
  %5:2 = nv_tileas.tiled_load weak %1[%3, %4] token = %0 vector_width = 4 : !nv_tileaa.memref<?x16xf32, strides=[16,1], 1>, i32 -> {ta}, !nv_tileaa.mem_token
  %6 = "nv_tileas.convert_layout"(%5#0) : ({ga}) -> {gb}
  %7 = "nv_tileas.convert_layout"(%6) : ({gb}) -> {gc}
  %8 = "nv_tileas.convert_layout"(%7) : ({gc}) -> {ga}
  %9 = "nv_tileas.convert_layout"(%8) : ({ga}) -> {ga}
  %10 = nv_tileaa.addf %9, %5#0 rounding<nearest_even> : {ta}
  %11 = nv_tileas.tiled_store weak %10, %2[%3, %4] token = %5#1 vector_width = 4 : {ta}, !nv_tileaa.memref<?x16xf32, strides=[16,1], 1>, i32 -> !nv_tileaa.mem_token
  nv_tileaa.return
}}
"#,
        ta = t(A),
        ga = g(A),
        gb = g(B),
        gc = g(C),
    )
}

fn count(m: &Module, pred: impl Fn(&TileAsOp) -> bool) -> usize {
    m.walk().into_iter().filter(|&o| matches!(&m.ops[o].kind, OpKind::TileAs(k) if pred(k))).count()
}

/// Output bytes of the kernel over a 64×16 input (two tile blocks).
fn run(module: &Module) -> Vec<u8> {
    let rows = 64usize;
    let mut mem = Memory::new();
    let input: Vec<u8> = (0..rows * 16).flat_map(|i| ((i * 37 % 101) as f32 - 50.25).to_le_bytes()).collect();
    let pin = mem.alloc_vec(input, 16);
    let pout = mem.alloc(rows * 16 * 4, 16);
    let args = [ArgValue::Ptr(pin), ArgValue::i32(rows as i32), ArgValue::Ptr(pout)];
    run_entry(module, "k", [2, 1, 1], &args, &mut mem, &RunOptions::default()).unwrap_or_else(|e| panic!("run failed: {e:?}"));
    let mut out = vec![0u8; rows * 16 * 4];
    mem.read(pout, &mut out).unwrap();
    out
}

#[test]
fn materialized_conversions_compute_the_same_bytes() {
    let source = parse(&kernel());
    let before = run(&source);
    // Sanity: the kernel doubles its input.
    let first = f32::from_le_bytes(before[..4].try_into().unwrap());
    assert_eq!(first, -100.5);

    let default = lower(&source, "tileas-materialize-convert-layout");
    assert_eq!(count(&default, |k| matches!(k, TileAsOp::Shuffle { .. })), 1);
    assert_eq!(count(&default, |k| matches!(k, TileAsOp::AllocTensor)), 2, "cross-warp conversions (B->C, C->A) go through smem");
    assert_eq!(count(&default, |k| matches!(k, TileAsOp::Copy { .. })), 2);
    assert_eq!(count(&default, |k| matches!(k, TileAsOp::ConvertLayout { plan: None, .. })), 0);
    assert_eq!(run(&default), before);

    let staged = lower(&source, "tileas-materialize-convert-layout{reg2reg-vec-size=0}");
    assert_eq!(count(&staged, |k| matches!(k, TileAsOp::Shuffle { .. })), 0);
    assert_eq!(count(&staged, |k| matches!(k, TileAsOp::AllocTensor)), 3);
    assert_eq!(run(&staged), before);
}

#[test]
fn reading_an_empty_smem_buffer_is_an_error() {
    // alloc_tensor, then a read-back with no copy in between.
    let g = |e: &str, l: &str| format!("!cuda_tile.tile<32x16x{e}, {l}>");
    let text = format!(
        r#""nv_tileaa.func"() <{{function_type = (!nv_tileaa.ptr<f32, 1>) -> (), kernel, sym_name = "k"}}> ({{
^bb0(%p: !nv_tileaa.ptr<f32, 1>):
  %s = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<32x16xf32, swizzle=0>
  %c = "nv_tileas.convert_layout"(%s) <{{plan_tag = 1}}> : (!nv_tileas.smem<32x16xf32, swizzle=0>) -> {gc}
  "nv_tileaa.return"() : () -> ()
}}) : () -> ()
"#,
        gc = g("f32", C)
    );
    let m = parse(&text);
    let mut mem = Memory::new();
    let p = mem.alloc(4, 16);
    let err = run_entry(&m, "k", [1, 1, 1], &[ArgValue::Ptr(p)], &mut mem, &RunOptions::default()).unwrap_err();
    assert!(format!("{err:?}").contains("nothing was copied into"), "{err:?}");
}
