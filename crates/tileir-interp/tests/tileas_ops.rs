//! nv_tileas tile-structure, pointer-tile memory and dot ops run by the interpreter against a
//! host reference: one kernel uses `generate` (index tiles), `tiled_load`, `extract_slice`,
//! `expand_dims`, `insert_slice`, `reinterpret` (there and back), `tiled_atomic_rmw` (add),
//! `load` / `store` (scalar `!nv_tileaa.ptr` + offsets, with a mask and padding) and `dot`.

mod lowering;

use lowering::parse;
use tileir_interp::{run_entry, ArgValue, Memory, RunOptions};

const KERNEL: &str = r#"
"nv_tileaa.func"() <{function_type = (!nv_tileaa.ptr<i32, 1>, !nv_tileaa.ptr<i32, 1>, !nv_tileaa.ptr<i32, 1>, !nv_tileaa.ptr<f32, 1>, !nv_tileaa.ptr<f32, 1>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%pin: !nv_tileaa.ptr<i32, 1>, %pacc: !nv_tileaa.ptr<i32, 1>, %pout: !nv_tileaa.ptr<i32, 1>, %pf: !nv_tileaa.ptr<f32, 1>, %pd: !nv_tileaa.ptr<f32, 1>, %rows: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  %c0 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %min = nv_tileaa.make_memref %pin, sizes = [%rows, 8], strides = [8, 1] alignment = 16 : (!nv_tileaa.ptr<i32, 1>, i32) -> !nv_tileaa.memref<?x8xi32, strides=[8,1], 1>
  %macc = nv_tileaa.make_memref %pacc, sizes = [%rows, 8], strides = [8, 1] alignment = 16 : (!nv_tileaa.ptr<i32, 1>, i32) -> !nv_tileaa.memref<?x8xi32, strides=[8,1], 1>
  %g = "nv_tileas.generate"() ({
  ^bb0(%i: i32, %j: i32):
    %c8 = "cuda_tile.constant"() <{value = dense<8> : tensor<i32>}> : () -> i32
    %r = "cuda_tile.muli"(%i, %c8) : (i32, i32) -> i32
    %s = "cuda_tile.addi"(%r, %j) : (i32, i32) -> i32
    "cuda_tile.yield"(%s) : (i32) -> ()
  }) : () -> !cuda_tile.tile<4x8xi32>
  %x:2 = "nv_tileaa.tiled_load"(%min, %c0, %c0, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 2, 1>}> : (!nv_tileaa.memref<?x8xi32, strides=[8,1], 1>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<4x8xi32>, !nv_tileaa.mem_token)
  %s = "nv_tileas.extract_slice"(%x#0) <{offsets = array<i64: 1, 0>, sizes = array<i64: 2, 4>, strides = array<i64: 2, 2>}> : (!cuda_tile.tile<4x8xi32>) -> !cuda_tile.tile<2x4xi32>
  %e = "nv_tileas.expand_dims"(%s) <{axis = 1}> : (!cuda_tile.tile<2x4xi32>) -> !cuda_tile.tile<2x1x4xi32>
  %ins = "nv_tileas.insert_slice"(%s, %g) <{offsets = array<i64: 1, 1>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<2x4xi32>, !cuda_tile.tile<4x8xi32>) -> !cuda_tile.tile<4x8xi32>
  %f = "nv_tileas.reinterpret"(%ins) : (!cuda_tile.tile<4x8xi32>) -> !cuda_tile.tile<4x8xf32>
  %back = "nv_tileas.reinterpret"(%f) : (!cuda_tile.tile<4x8xf32>) -> !cuda_tile.tile<4x8xi32>
  %old:2 = "nv_tileas.tiled_atomic_rmw"(%macc, %back, %c0, %c0, %x#1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<acq_rel>, mem_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<add>}> : (!nv_tileaa.memref<?x8xi32, strides=[8,1], 1>, !cuda_tile.tile<4x8xi32>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<4x8xi32>, !nv_tileaa.mem_token)
  %t1 = "nv_tileas.store"(%pout, %old#0, %g, %old#1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}> : (!nv_tileaa.ptr<i32, 1>, !cuda_tile.tile<4x8xi32>, !cuda_tile.tile<4x8xi32>, !nv_tileaa.mem_token) -> !nv_tileaa.mem_token
  %eo = "nv_tileas.generate"() ({
  ^bb0(%i: i32, %j: i32, %k: i32):
    %c4 = "cuda_tile.constant"() <{value = dense<4> : tensor<i32>}> : () -> i32
    %c32 = "cuda_tile.constant"() <{value = dense<32> : tensor<i32>}> : () -> i32
    %r = "cuda_tile.muli"(%i, %c4) : (i32, i32) -> i32
    %s1 = "cuda_tile.addi"(%r, %k) : (i32, i32) -> i32
    %s2 = "cuda_tile.addi"(%s1, %c32) : (i32, i32) -> i32
    "cuda_tile.yield"(%s2) : (i32) -> ()
  }) : () -> !cuda_tile.tile<2x1x4xi32>
  %t2 = "nv_tileas.store"(%pout, %e, %eo, %t1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}> : (!nv_tileaa.ptr<i32, 1>, !cuda_tile.tile<2x1x4xi32>, !cuda_tile.tile<2x1x4xi32>, !nv_tileaa.mem_token) -> !nv_tileaa.mem_token
  %a:2 = "nv_tileas.load"(%pf, %g) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (!nv_tileaa.ptr<f32, 1>, !cuda_tile.tile<4x8xi32>) -> (!cuda_tile.tile<4x8xf32>, !nv_tileaa.mem_token)
  %bo = "nv_tileas.generate"() ({
  ^bb0(%i: i32, %j: i32):
    %c4 = "cuda_tile.constant"() <{value = dense<4> : tensor<i32>}> : () -> i32
    %c32 = "cuda_tile.constant"() <{value = dense<32> : tensor<i32>}> : () -> i32
    %r = "cuda_tile.muli"(%i, %c4) : (i32, i32) -> i32
    %s1 = "cuda_tile.addi"(%r, %j) : (i32, i32) -> i32
    %s2 = "cuda_tile.addi"(%s1, %c32) : (i32, i32) -> i32
    "cuda_tile.yield"(%s2) : (i32) -> ()
  }) : () -> !cuda_tile.tile<8x4xi32>
  %bm = "nv_tileas.generate"() ({
  ^bb0(%i: i32, %j: i32):
    %ne = "cuda_tile.cmpi"(%i, %j) <{comparison_predicate = #cuda_tile.comparison_predicate<not_equal>, signedness = #cuda_tile.signedness<signed>}> : (i32, i32) -> i1
    "cuda_tile.yield"(%ne) : (i1) -> ()
  }) : () -> !cuda_tile.tile<8x4xi1>
  %pad = "cuda_tile.constant"() <{value = dense<1.000000e+02> : tensor<f32>}> : () -> f32
  %b:2 = "nv_tileas.load"(%pf, %bo, %bm, %pad) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (!nv_tileaa.ptr<f32, 1>, !cuda_tile.tile<8x4xi32>, !cuda_tile.tile<8x4xi1>, f32) -> (!cuda_tile.tile<8x4xf32>, !nv_tileaa.mem_token)
  %cz = "nv_tileas.generate"() ({
  ^bb0(%i: i32, %j: i32):
    %z = "cuda_tile.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> f32
    "cuda_tile.yield"(%z) : (f32) -> ()
  }) : () -> !cuda_tile.tile<4x4xf32>
  %d = "nv_tileas.dot"(%a#0, %b#0, %cz) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!cuda_tile.tile<4x8xf32>, !cuda_tile.tile<8x4xf32>, !cuda_tile.tile<4x4xf32>) -> !cuda_tile.tile<4x4xf32>
  %dbase = "nv_tileas.extract_slice"(%g) <{offsets = array<i64: 0, 0>, sizes = array<i64: 4, 4>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<4x8xi32>) -> !cuda_tile.tile<4x4xi32>
  %t3 = "nv_tileas.store"(%pd, %d, %dbase) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!nv_tileaa.ptr<f32, 1>, !cuda_tile.tile<4x4xf32>, !cuda_tile.tile<4x4xi32>) -> !nv_tileaa.mem_token
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
"#;

#[test]
fn tile_structure_ops_match_the_host_reference() {
    let m = parse(KERNEL);
    let mut mem = Memory::new();
    let x: Vec<i32> = (0..32).map(|i| i * 3 - 7).collect();
    let acc0: Vec<i32> = (0..32).map(|i| 1000 + i).collect();
    let fdata: Vec<f32> = (0..64).map(|i| (i % 7) as f32 - 2.5).collect();
    let pin = mem.alloc_i32(&x);
    let pacc = mem.alloc_i32(&acc0);
    let pout = mem.alloc_i32(&[0; 40]);
    let pf = mem.alloc_f32(&fdata);
    let pd = mem.alloc_f32(&[0.0; 32]);
    let args = [ArgValue::Ptr(pin), ArgValue::Ptr(pacc), ArgValue::Ptr(pout), ArgValue::Ptr(pf), ArgValue::Ptr(pd), ArgValue::i32(4)];
    run_entry(&m, "k", [1, 1, 1], &args, &mut mem, &RunOptions::default()).unwrap_or_else(|e| panic!("run failed: {e:?}"));

    // Host reference.
    let at = |r: usize, c: usize| x[r * 8 + c];
    // extract_slice offsets [1, 0], sizes [2, 4], strides [2, 2].
    let s: Vec<i32> = (0..8).map(|k| at(1 + 2 * (k / 4), 2 * (k % 4))).collect();
    // insert_slice of s into generate's i*8+j at [1, 1].
    let mut ins: Vec<i32> = (0..32).collect();
    for (k, &v) in s.iter().enumerate() {
        ins[(1 + k / 4) * 8 + 1 + k % 4] = v;
    }
    let old = mem.read_i32(pout, 40).unwrap();
    assert_eq!(&old[..32], &acc0[..], "tiled_atomic_rmw returns the old values");
    let acc: Vec<i32> = acc0.iter().zip(&ins).map(|(a, b)| a + b).collect();
    assert_eq!(mem.read_i32(pacc, 32).unwrap(), acc, "tiled_atomic_rmw adds the inserted tile");
    assert_eq!(&old[32..], &s[..], "expand_dims keeps the row-major order");

    // dot: A = fdata[i*8+k], B = fdata[32 + k*4 + j] unless k == j (masked: padding 100).
    let mut want = vec![0f32; 16];
    for i in 0..4 {
        for j in 0..4 {
            let mut sum = 0.5f32;
            for k in 0..8 {
                let b = if k == j { 100.0 } else { fdata[32 + k * 4 + j] };
                sum += fdata[i * 8 + k] * b;
            }
            want[i * 4 + j] = sum;
        }
    }
    // Stored at i*8+j (the offsets are a 4x4 slice of the 4x8 index tile).
    let all = mem.read_f32(pd, 32).unwrap();
    let got: Vec<f32> = (0..16).map(|k| all[(k / 4) * 8 + k % 4]).collect();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-3 * w.abs().max(1.0), "dot: got {got:?}, want {want:?}");
    }
}
