//! End-to-end: a vector-add kernel built in Rust goes through every stage.

use tileir_driver::{compile, CompileError, CompileOptions};
use tileir_ir::*;

/// `c[i] = a[i] + b[i]` over tiles of `tile` f32 elements, as cuTile would emit it.
pub fn vector_add(tile: i64) -> Module {
    let mut m = Module::new();
    let loc = m.locs.file_line_col("vadd.py", 1, 1);
    let ptr = m.types.tile(&[], TileElem::Ptr(NumType::F32));
    let i32t = m.types.scalar_tile(NumType::I32);
    let inputs = vec![ptr, i32t, i32t, ptr, i32t, i32t, ptr, i32t, i32t];
    let fty = m.types.intern(Type::Function { inputs: inputs.clone(), results: vec![] });
    let body = m.body;
    let mut b = Builder::at_end(&mut m, body);
    let module_op = b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()))), vec![], &[], loc);
    let region = m.ops[module_op].regions[0];
    let mblock = m.add_block(region, &[]);
    let entry = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Entry).with("sym_name", Attr::Str("vadd".into())).with("function_type", Attr::Type(fty))), vec![], &[], loc);
    m.append_op(mblock, entry);
    let eregion = m.ops[entry].regions[0];
    let eb = m.add_block(eregion, &inputs);
    let args = m.blocks[eb].args.clone();
    for (i, n) in ["a", "a_n", "a_s", "b", "b_n", "b_s", "c", "c_n", "c_s"].iter().enumerate() {
        m.set_name(args[i], n);
    }
    let tv = m.types.intern(Type::TensorView(TensorViewType { elem: NumType::F32, shape: vec![Dim::Dynamic], strides: vec![Dim::Static(1)] }));
    let pv_pad = m.types.intern(Type::PartitionView(PartitionViewType { tile_shape: vec![tile], tensor_view: tv, dim_map: vec![], padding: Some(PaddingValue::Zero) }));
    let tile_ty = m.types.tile(&[tile], TileElem::Num(NumType::F32));
    let token = m.types.token();
    let mut b = Builder::at_end(&mut m, eb);
    let tok = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::MakeToken)), vec![], token, loc);
    let ids = b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::GetTileBlockId)), vec![], &[i32t, i32t, i32t], loc);
    let bid = b.module.result(ids, 0);
    let mut views = Vec::new();
    for k in 0..3 {
        let p = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::Assume).with("predicate", Attr::Assume(AssumePredicate::div_by(16)))), vec![args[3 * k]], ptr, loc);
        let t = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::MakeTensorView).with_segments(&[1, 1, 0])), vec![p, args[3 * k + 1]], tv, loc);
        views.push(b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::MakePartitionView)), vec![t], pv_pad, loc));
    }
    let weak = Attr::Enum(MemoryOrdering::MNEMONIC, "weak");
    let load = CudaTileOp::new(CtOp::LoadViewTko).with("memory_ordering_semantics", weak.clone()).with_segments(&[1, 1, 1]);
    let store = CudaTileOp::new(CtOp::StoreViewTko).with("memory_ordering_semantics", weak).with_segments(&[1, 1, 1, 1]);
    let la = b.op(OpKind::CudaTile(load.clone()), vec![views[0], bid, tok], &[tile_ty, token], loc);
    let lb = b.op(OpKind::CudaTile(load), vec![views[1], bid, tok], &[tile_ty, token], loc);
    let (ta, tb) = (b.module.result(la, 0), b.module.result(lb, 0));
    let sum = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![ta, tb], tile_ty, loc);
    b.op(OpKind::CudaTile(store), vec![sum, views[2], bid, tok], &[token], loc);
    b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::Return)), vec![], &[], loc);
    m
}

fn stage<'a>(out: &'a tileir_driver::CompileOutput, name: &str) -> &'a str {
    &out.stages.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no stage {name}")).1
}

#[test]
fn vector_add_passes_through_every_stage() {
    let out = compile(vector_add(1024), &CompileOptions::default()).expect("compiles");
    let names: Vec<&str> = out.stages.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["cuda_tile", "nv_tileaa", "nv_tileas", "nv_tileas-registers", "llvm"]);
    assert!(stage(&out, "cuda_tile").contains("load_view_tko weak %"));
    let aa = stage(&out, "nv_tileaa");
    assert!(aa.contains("nv_tileaa.tiled_load weak") && !aa.contains("cuda_tile."), "{aa}");
    assert!(aa.contains("alignment = 16"), "div_by<16> must reach the memref: {aa}");
    let ts = stage(&out, "nv_tileas");
    assert!(ts.contains("nv_tileas.tiled_load") && ts.contains("vector_width = 4") && ts.contains("num_warps = 4"), "{ts}");
    let ll = stage(&out, "llvm");
    assert!(ll.contains("define ptx_kernel void @vadd("));
    assert!(ll.contains("\"nvvm.reqntid\"=\"128,1,1\""));
    // Tiles inside the array use plain 16-byte vectors; edge tiles predicated element accesses.
    assert!(ll.contains("load <4 x float>, ptr addrspace(1)") && ll.contains("align 16"));
    assert!(ll.contains("@$5 ld.global.b32 $0, [$4+0];") && ll.contains("@$1 st.global.b32 [$0+0], $5;"), "{ll}");
    assert!(!ll.contains("llvm.masked."), "masked intrinsics scalarize into branches: {ll}");
    assert_eq!(out.kernels[0].num_threads, 128);
    assert_eq!(out.kernels[0].params.len(), 9);
    assert_eq!(
        out.canonical_pipeline,
        "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{num-warps=0 force-variant=\"\"},tileas-assign-layouts{anchor-loads=true anchor-stores=true mma-fragments=true invariant-a-in-registers=false},\
         tileas-materialize-async{keep-mma-operands=true mma-operand-stages=0 mma-warp-specialize=true},\
         tileas-unspecialized-pipeline{num-stages=2 peel-epilogue=false max-inflight-bytes=64},tileas-optimize-pipeline-region,tileas-pipelines-to-registers"
    );
}

#[test]
fn output_is_byte_identical_across_runs_and_threads() {
    let reference = compile(vector_add(256), &CompileOptions::default()).unwrap().stages;
    let handles: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| compile(vector_add(256), &CompileOptions::default()).unwrap().stages))
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), reference);
    }
}

#[test]
fn bad_pipelines_and_targets_are_diagnosed() {
    let opts = CompileOptions { pipeline: "convert-cuda-tile-to-tileaa,bogus-pass".into(), ..Default::default() };
    match compile(vector_add(64), &opts) {
        Err(CompileError::Pipeline(e)) => assert!(e.message.contains("unknown pass 'bogus-pass'") && e.offset == 28, "{e}"),
        other => panic!("expected a pipeline error, got {other:?}"),
    }
    let opts = CompileOptions { pipeline: "convert-tileaa-to-tileas{num-warp=4}".into(), ..Default::default() };
    match compile(vector_add(64), &opts) {
        Err(CompileError::Pipeline(e)) => assert!(e.message.contains("did you mean 'num-warps'"), "{e}"),
        other => panic!("expected a pipeline error, got {other:?}"),
    }
    let opts = CompileOptions { target: "sm_75".into(), ..Default::default() };
    assert!(matches!(compile(vector_add(64), &opts), Err(CompileError::Target(_))));
}

#[test]
fn invalid_tile_shape_is_a_located_verifier_error() {
    let mut m = vector_add(64);
    // Re-type one load result as a non-power-of-two tile.
    let bad = m.types.tile(&[48], TileElem::Num(NumType::F32));
    let load = m.walk().into_iter().find(|&o| m.ops[o].kind.ct() == Some(CtOp::LoadViewTko)).unwrap();
    let r = m.ops[load].results[0];
    m.values[r].ty = bad;
    match compile(m, &CompileOptions::default()) {
        Err(CompileError::Verification(d)) => {
            let text = d.to_string();
            assert!(text.starts_with("vadd.py:1:1: error: 'cuda_tile.load_view_tko' op result #0 has invalid type tile<48xf32>"), "{text}");
            assert!(text.contains("expected tile type to be '!cuda_tile.tile<64xf32>' (based on view type)"), "{text}");
        }
        other => panic!("expected verification errors, got {other:?}"),
    }
}

#[test]
#[ignore = "prints the stages for inspection"]
fn dump_stages() {
    let out = compile(vector_add(1024), &CompileOptions::default()).unwrap();
    for (name, text) in &out.stages {
        std::fs::write(format!("/tmp/vadd.{name}"), text).unwrap();
    }
}
