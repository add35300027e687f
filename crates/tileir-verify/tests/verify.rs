//! Verifier behaviour on hand-built modules: errors with their locations; like MLIR, the
//! first failing op ends the verification of its function.

use tileir_ir::*;
use tileir_verify::verify;

/// A module with one entry taking `%x: tile<f32>`; `body` appends ops and returns.
fn entry_module(body: impl FnOnce(&mut Module, BlockId, ValueId, LocId)) -> Module {
    let mut m = Module::new();
    let loc = m.locs.file_line_col("t.py", 7, 3);
    let f32t = m.types.scalar_tile(NumType::F32);
    let fty = m.types.intern(Type::Function { inputs: vec![f32t], results: vec![] });
    let module_op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()))), vec![], &[], loc);
    let body_block = m.body;
    m.append_op(body_block, module_op);
    let region = m.ops[module_op].regions[0];
    let mb = m.add_block(region, &[]);
    let entry = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Entry).with("sym_name", Attr::Str("k".into())).with("function_type", Attr::Type(fty))), vec![], &[], loc);
    m.append_op(mb, entry);
    let er = m.ops[entry].regions[0];
    let eb = m.add_block(er, &[f32t]);
    let x = m.blocks[eb].args[0];
    body(&mut m, eb, x, loc);
    m
}

/// A module whose `testing$func`s are named `names`, each taking `args`; `body` fills each
/// function body (given its block and arguments) and returns.
fn funcs_module(
    names: &[&str],
    args: impl Fn(&mut Module) -> Vec<TypeId>,
    mut body: impl FnMut(&mut Module, BlockId, &[ValueId], LocId),
) -> Module {
    let mut m = Module::new();
    let loc = m.locs.file_line_col("t.py", 7, 3);
    let module_op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()))), vec![], &[], loc);
    let top = m.body;
    m.append_op(top, module_op);
    let region = m.ops[module_op].regions[0];
    let mb = m.add_block(region, &[]);
    for name in names {
        let inputs = args(&mut m);
        let fty = m.types.intern(Type::Function { inputs: inputs.clone(), results: vec![] });
        let f = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::TestingFunc).with("sym_name", Attr::Str((*name).into())).with("function_type", Attr::Type(fty))), vec![], &[], loc);
        m.append_op(mb, f);
        let fr = m.ops[f].regions[0];
        let fb = m.add_block(fr, &inputs);
        let vals = m.blocks[fb].args.clone();
        body(&mut m, fb, &vals, loc);
        ret(&mut m, fb, loc);
    }
    m
}

fn ret(m: &mut Module, b: BlockId, loc: LocId) {
    let op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Return)), vec![], &[], loc);
    m.append_op(b, op);
}

fn messages(m: &Module) -> Vec<String> {
    verify(m).err().map(|d| d.0.iter().map(|x| x.to_string()).collect()).unwrap_or_default()
}

#[test]
fn a_valid_module_verifies() {
    let m = entry_module(|m, b, x, loc| {
        let t = m.value_type(x);
        let op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![x, x], &[t], loc);
        m.append_op(b, op);
        ret(m, b, loc);
    });
    assert_eq!(messages(&m), Vec::<String>::new());
}

#[test]
fn use_before_definition_is_a_dominance_error() {
    let m = entry_module(|m, b, x, loc| {
        let t = m.value_type(x);
        let first = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![x, x], &[t], loc);
        let later = m.result(first, 0);
        let user = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![later, x], &[t], loc);
        m.append_op(b, user);
        m.append_op(b, first);
        ret(m, b, loc);
    });
    let msgs = messages(&m);
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert!(msgs[0].starts_with("t.py:7:3: error: 'cuda_tile.addf' op operand #0"), "{}", msgs[0]);
    assert!(msgs[0].contains("does not dominate this use"));
}

/// Appends the `index`-th of three broken ops: an addf with an i32 result, a mulf with
/// `approx` rounding, a make_token with a tile result.
fn broken_op(m: &mut Module, b: BlockId, x: ValueId, loc: LocId, index: usize) {
    let i32t = m.types.scalar_tile(NumType::I32);
    let f32t = m.value_type(x);
    let op = match index {
        0 => m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![x, x], &[i32t], loc),
        1 => {
            let approx = CudaTileOp::new(CtOp::MulF).with("rounding_mode", Attr::Enum(RoundingMode::MNEMONIC, "approx"));
            m.create_op(OpKind::CudaTile(approx), vec![x, x], &[f32t], loc)
        }
        _ => m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::MakeToken)), vec![], &[f32t], loc),
    };
    m.append_op(b, op);
}

#[test]
fn every_failing_op_is_reported_unless_mlir_mode_stops_at_the_first() {
    let m = entry_module(|m, b, x, loc| {
        for i in 0..3 {
            broken_op(m, b, x, loc, i);
        }
        ret(m, b, loc);
    });
    let msgs = messages(&m);
    assert_eq!(msgs.len(), 3, "{msgs:#?}");
    assert!(msgs[0].contains("result #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'"));
    assert!(msgs[1].contains("'cuda_tile.mulf' op invalid rounding"));
    let mlir = tileir_verify::verify_with(&m, &tileir_verify::VerifyOptions { stop_at_first_failure: true, ..Default::default() })
        .unwrap_err();
    assert_eq!(mlir.0.len(), 1, "{mlir:#?}");
}

#[test]
fn every_function_reports_its_first_error() {
    let mut i = 0;
    let m = funcs_module(&["a", "b", "c"], |m| vec![m.types.scalar_tile(NumType::F32)], |m, b, args, loc| {
        broken_op(m, b, args[0], loc, i);
        i += 1;
    });
    let msgs = messages(&m);
    assert_eq!(msgs.len(), 3, "{msgs:#?}");
    assert!(msgs[0].contains("result #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'"));
    assert!(msgs[1].contains("invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf]"));
    assert!(msgs[2].contains("result #0 must be cuda tile token type, but got '!cuda_tile.tile<f32>'"));
}

#[test]
fn invalid_tile_types_are_rejected() {
    for (shape, needle) in [(vec![3i64], "all dimensions must be powers of two, got 3"), (vec![1 << 13, 1 << 12], "tile would exceed the maximum of 16777216 elements")] {
        let m = entry_module(|m, b, x, loc| {
            let bad = m.types.tile(&shape, TileElem::Num(NumType::F32));
            let op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![x, x], &[bad], loc);
            m.append_op(b, op);
            ret(m, b, loc);
        });
        let msgs = messages(&m);
        assert!(msgs.iter().any(|s| s.contains(needle)), "{msgs:#?}");
    }
}

#[test]
fn terminator_must_be_last_and_body_must_end_with_return() {
    let m = entry_module(|m, b, x, loc| {
        ret(m, b, loc);
        let t = m.value_type(x);
        let op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![x, x], &[t], loc);
        m.append_op(b, op);
    });
    let msgs = messages(&m);
    assert!(msgs.iter().any(|s| s.contains("'cuda_tile.return' op must be the last operation in its block")), "{msgs:#?}");
    assert!(msgs.iter().any(|s| s.contains("body must end with a return")), "{msgs:#?}");
}

#[test]
fn cuda_tile_entries_may_not_hold_lower_dialect_ops() {
    let m = entry_module(|m, b, _x, loc| {
        let tok = m.types.mem_token();
        let op = m.create_op(OpKind::TileAa(TileAaOp::CreateMemToken), vec![], &[tok], loc);
        m.append_op(b, op);
        ret(m, b, loc);
    });
    let msgs = messages(&m);
    assert!(msgs.iter().any(|s| s.contains("body mixes cuda_tile with nv_tileaa/nv_tileas operations")), "{msgs:#?}");
}

#[test]
fn memory_ordering_and_scope_must_pair() {
    for (ordering, scope, needle) in [
        (MemoryOrdering::Weak, Some(MemoryScope::Device), "weak load must not have memory scope"),
        (MemoryOrdering::Relaxed, None, "memory scope is required for relaxed load"),
        (MemoryOrdering::Release, Some(MemoryScope::Device), "expect one of: weak, relaxed, or acquire, but got: release"),
    ] {
        let args = |m: &mut Module| vec![m.types.tile(&[], TileElem::Ptr(NumType::F32)), m.types.scalar_tile(NumType::I32)];
        let m = funcs_module(&["f"], args, |m, b, args, loc| {
            let (base, idx) = (args[0], args[1]);
            let tv = m.types.intern(Type::TensorView(TensorViewType { elem: NumType::F32, shape: vec![Dim::Static(64)], strides: vec![Dim::Static(1)] }));
            let pv = m.types.intern(Type::PartitionView(PartitionViewType { tile_shape: vec![16], tensor_view: tv, dim_map: vec![], padding: None }));
            let tile = m.types.tile(&[16], TileElem::Num(NumType::F32));
            let token = m.types.token();
            let view_src = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::MakeTensorView).with_segments(&[1, 0, 0])), vec![base], &[tv], loc);
            m.append_op(b, view_src);
            let view = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::MakePartitionView)), vec![m.result(view_src, 0)], &[pv], loc);
            m.append_op(b, view);
            let mut access = CudaTileOp::new(CtOp::LoadViewTko)
                .with("memory_ordering_semantics", Attr::Enum(MemoryOrdering::MNEMONIC, ordering.keyword()))
                .with_segments(&[1, 1, 0]);
            if let Some(scope) = scope {
                access.set("memory_scope", Attr::Enum(MemoryScope::MNEMONIC, scope.keyword()));
            }
            let load = m.create_op(OpKind::CudaTile(access), vec![m.result(view, 0), idx], &[tile, token], loc);
            m.append_op(b, load);
        });
        let msgs = messages(&m);
        assert_eq!(msgs.len(), 1, "{needle}: {msgs:#?}");
        assert!(msgs[0].contains(needle), "{needle}: {msgs:#?}");
    }
}
