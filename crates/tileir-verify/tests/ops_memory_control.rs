//! Verifier rules of the memory, control-flow and module groups of cuda_tile, on modules
//! built with the IR API: for each op a valid case and the invalid cases its rules reject,
//! with MLIR's wording where NVIDIA's conformance suite quotes it.

use tileir_ir::location::{DiCompileUnit, DiFile, DiLexicalBlock, DiScope, DiSubprogram};
use tileir_ir::*;
use tileir_verify::{verify, verify_with, VerifyOptions};

/// A module under construction: `cuda_tile.module @m { … }` plus helpers.
struct Fx {
    m: Module,
    loc: LocId,
    body: BlockId,
}

impl Fx {
    fn new() -> Fx {
        let mut m = Module::new();
        let loc = m.locs.file_line_col("t.mlir", 1, 1);
        let module = m.create_op(
            OpKind::CudaTile(CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("m".into()))),
            vec![],
            &[],
            loc,
        );
        let top = m.body;
        m.append_op(top, module);
        let region = m.ops[module].regions[0];
        let body = m.add_block(region, &[]);
        Fx { m, loc, body }
    }
    fn tile(&mut self, shape: &[i64], elem: NumType) -> TypeId {
        self.m.types.tile(shape, TileElem::Num(elem))
    }
    fn s(&mut self, elem: NumType) -> TypeId {
        self.m.types.scalar_tile(elem)
    }
    fn ptrs(&mut self, shape: &[i64], elem: NumType) -> TypeId {
        self.m.types.tile(shape, TileElem::Ptr(elem))
    }
    fn token(&mut self) -> TypeId {
        self.m.types.token()
    }
    fn tv(&mut self, shape: &[Dim], strides: &[Dim], elem: NumType) -> TypeId {
        self.m.types.intern(Type::TensorView(TensorViewType {
            elem,
            shape: shape.to_vec(),
            strides: strides.to_vec(),
        }))
    }
    /// `tensor_view<64x64xelem, strides=[64,1]>`.
    fn tv2(&mut self, elem: NumType) -> TypeId {
        self.tv(
            &[Dim::Static(64), Dim::Static(64)],
            &[Dim::Static(64), Dim::Static(1)],
            elem,
        )
    }
    fn pv(&mut self, tile: &[i64], tv: TypeId, padding: Option<PaddingValue>) -> TypeId {
        self.m.types.intern(Type::PartitionView(PartitionViewType {
            tile_shape: tile.to_vec(),
            tensor_view: tv,
            dim_map: vec![],
            padding,
        }))
    }
    fn func_type(&mut self, inputs: &[TypeId], results: &[TypeId]) -> TypeId {
        self.m.types.intern(Type::Function {
            inputs: inputs.to_vec(),
            results: results.to_vec(),
        })
    }
    /// A function-like op (`entry` or `testing$func`) at module level; returns its body.
    fn function(
        &mut self,
        op: CtOp,
        name: &str,
        args: &[TypeId],
        results: &[TypeId],
    ) -> (OpId, BlockId) {
        let fty = self.func_type(args, results);
        let k = CudaTileOp::new(op)
            .with("sym_name", Attr::Str(name.into()))
            .with("function_type", Attr::Type(fty));
        let f = self.m.create_op(OpKind::CudaTile(k), vec![], &[], self.loc);
        self.m.append_op(self.body, f);
        let region = self.m.ops[f].regions[0];
        let b = self.m.add_block(region, args);
        (f, b)
    }
    fn func(&mut self, args: &[TypeId]) -> (BlockId, Vec<ValueId>) {
        self.named_func("f", args)
    }
    /// A `testing$func` called `name`: each function is verified on its own, so tests
    /// that expect several errors put each failing op in a function of its own.
    fn named_func(&mut self, name: &str, args: &[TypeId]) -> (BlockId, Vec<ValueId>) {
        let (_, b) = self.function(CtOp::TestingFunc, name, args, &[]);
        let vals = self.m.blocks[b].args.clone();
        (b, vals)
    }
    fn op(
        &mut self,
        b: BlockId,
        k: CudaTileOp,
        operands: Vec<ValueId>,
        results: &[TypeId],
    ) -> OpId {
        let op = self
            .m
            .create_op(OpKind::CudaTile(k), operands, results, self.loc);
        self.m.append_op(b, op);
        op
    }
    fn v(&mut self, b: BlockId, k: CudaTileOp, operands: Vec<ValueId>, result: TypeId) -> ValueId {
        let op = self.op(b, k, operands, &[result]);
        self.m.result(op, 0)
    }
    fn term(&mut self, b: BlockId, op: CtOp, operands: Vec<ValueId>) {
        self.op(b, CudaTileOp::new(op), operands, &[]);
    }
    fn ret(&mut self, b: BlockId) {
        self.term(b, CtOp::Return, vec![]);
    }
    fn block(&mut self, op: OpId, region: usize, args: &[TypeId]) -> BlockId {
        let r = self.m.ops[op].regions[region];
        self.m.add_block(r, args)
    }
    /// A constant of a scalar integer tile.
    fn cint(&mut self, b: BlockId, elem: NumType, value: u64) -> ValueId {
        let t = self.s(elem);
        let dense = DenseElements {
            elem,
            shape: vec![],
            bits: vec![value],
        };
        self.v(
            b,
            CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(dense)),
            vec![],
            t,
        )
    }
    fn errors(&self) -> Vec<String> {
        self.errors_with(VerifyOptions::default())
    }
    fn errors_with(&self, options: VerifyOptions) -> Vec<String> {
        tileir_verify::verify_with(&self.m, &options)
            .err()
            .map(|d| d.0.iter().map(|x| x.to_string()).collect())
            .unwrap_or_default()
    }
}

fn ordering(o: MemoryOrdering) -> Attr {
    Attr::Enum(MemoryOrdering::MNEMONIC, o.keyword())
}
fn scope(s: MemoryScope) -> Attr {
    Attr::Enum(MemoryScope::MNEMONIC, s.keyword())
}
fn mode(md: AtomicRmwMode) -> Attr {
    Attr::Enum(AtomicRmwMode::MNEMONIC, md.keyword())
}

#[track_caller]
fn assert_valid(fx: &Fx) {
    assert_eq!(fx.errors(), Vec::<String>::new());
}

#[track_caller]
fn assert_one_error(fx: &Fx, needle: &str) {
    let errors = fx.errors();
    assert_eq!(
        errors.len(),
        1,
        "expected exactly one error containing {needle:?}: {errors:#?}"
    );
    assert!(
        errors[0].contains(needle),
        "expected {needle:?}: {errors:#?}"
    );
}

// ---------------------------------------------------------------- views and memory

/// `make_tensor_view %base, shape = [dims], strides = [strides]` with the given dynamic operands.
fn make_tv(
    fx: &mut Fx,
    b: BlockId,
    base: ValueId,
    shape: &[ValueId],
    strides: &[ValueId],
    result: TypeId,
) -> ValueId {
    let mut operands = vec![base];
    operands.extend_from_slice(shape);
    operands.extend_from_slice(strides);
    let k = CudaTileOp::new(CtOp::MakeTensorView).with_segments(&[
        1,
        shape.len() as u32,
        strides.len() as u32,
    ]);
    fx.v(b, k, operands, result)
}

#[test]
fn make_tensor_view_checks_pointee_and_dynamic_operands() {
    // Valid: one dynamic size, static strides.
    let mut fx = Fx::new();
    let (p, n) = (fx.ptrs(&[], NumType::F32), fx.s(NumType::I64));
    let tv = fx.tv(
        &[Dim::Dynamic, Dim::Static(128)],
        &[Dim::Static(128), Dim::Static(1)],
        NumType::F32,
    );
    let (b, a) = fx.func(&[p, n]);
    make_tv(&mut fx, b, a[0], &[a[1]], &[], tv);
    fx.ret(b);
    assert_valid(&fx);

    // Pointee differs from the view element.
    let mut fx = Fx::new();
    let p = fx.ptrs(&[], NumType::F32);
    let tv = fx.tv(&[], &[], NumType::F64);
    let (b, a) = fx.func(&[p]);
    make_tv(&mut fx, b, a[0], &[], &[], tv);
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.make_tensor_view' op expected pointer to 'f64' to build tensor_view of this type, got 'f32'");

    // Dynamic operand counts must match the `?`s of the type.
    let mut fx = Fx::new();
    let (p, n) = (fx.ptrs(&[], NumType::F32), fx.s(NumType::I64));
    let tv = fx.tv(&[Dim::Static(32)], &[Dim::Static(1)], NumType::F32);
    let (b, a) = fx.func(&[p, n]);
    make_tv(&mut fx, b, a[0], &[a[1]], &[], tv);
    fx.ret(b);
    assert_one_error(&fx, "expected 0 dynamic shape operands, got 1");

    let mut fx = Fx::new();
    let p = fx.ptrs(&[], NumType::F32);
    let tv = fx.tv(&[Dim::Static(32)], &[Dim::Dynamic], NumType::F32);
    let (b, a) = fx.func(&[p]);
    make_tv(&mut fx, b, a[0], &[], &[], tv);
    fx.ret(b);
    assert_one_error(&fx, "expected 1 dynamic stride operands, got 0");

    // All dynamic values share one type.
    let mut fx = Fx::new();
    let (p, n64, n32) = (
        fx.ptrs(&[], NumType::F32),
        fx.s(NumType::I64),
        fx.s(NumType::I32),
    );
    let tv = fx.tv(&[Dim::Dynamic], &[Dim::Dynamic], NumType::F32);
    let (b, a) = fx.func(&[p, n64, n32]);
    make_tv(&mut fx, b, a[0], &[a[1]], &[a[2]], tv);
    fx.ret(b);
    assert_one_error(
        &fx,
        "expected dynamic stride index 0 to be of the same type as the other dynamic values ('!cuda_tile.tile<i64>'), got '!cuda_tile.tile<i32>'",
    );
}

#[test]
fn view_constructors_embed_the_operand_type() {
    for op in [
        CtOp::MakePartitionView,
        CtOp::MakeStridedView,
        CtOp::MakeGatherScatterView,
    ] {
        let mut fx = Fx::new();
        let tv = fx.tv2(NumType::F32);
        let other = fx.tv2(NumType::F16);
        let view = |fx: &mut Fx, embedded: TypeId| -> TypeId {
            let ty = match op {
                CtOp::MakePartitionView => Type::PartitionView(PartitionViewType {
                    tile_shape: vec![8, 8],
                    tensor_view: embedded,
                    dim_map: vec![],
                    padding: None,
                }),
                CtOp::MakeStridedView => Type::StridedView(tileir_ir::types::StridedViewType {
                    tile_shape: vec![8, 8],
                    traversal_strides: vec![4, 4],
                    tensor_view: embedded,
                    dim_map: vec![],
                    padding: None,
                }),
                _ => Type::GatherScatterView(tileir_ir::types::GatherScatterViewType {
                    tile_shape: vec![8, 8],
                    tensor_view: embedded,
                    sparse_dim: 0,
                    padding: None,
                }),
            };
            fx.m.types.intern(ty)
        };
        let good = view(&mut fx, tv);
        let bad = view(&mut fx, other);
        let (b, a) = fx.func(&[tv]);
        fx.v(b, CudaTileOp::new(op), vec![a[0]], good);
        fx.ret(b);
        assert_valid(&fx);
        let (_, b2) = fx.function(CtOp::TestingFunc, "g", &[tv], &[]);
        let a2 = fx.m.blocks[b2].args.clone();
        fx.v(b2, CudaTileOp::new(op), vec![a2[0]], bad);
        fx.ret(b2);
        let errors = fx.errors();
        assert_eq!(errors.len(), 1, "{op:?}: {errors:#?}");
        assert!(
            errors[0].contains(&format!(
                "'cuda_tile.{}' op expected the type of the provided tensor_view value ('!cuda_tile.tensor_view<64x64xf32, strides=[64,1]>') to be the same as the view's tensor_view type ('!cuda_tile.tensor_view<64x64xf16, strides=[64,1]>')",
                op.mnemonic()
            )),
            "{errors:#?}"
        );
    }
}

#[test]
fn shape_queries_have_one_result_per_dimension() {
    let mut fx = Fx::new();
    let tv = fx.tv2(NumType::F32);
    let pv = fx.pv(&[8, 8], tv, None);
    let i64t = fx.s(NumType::I64);
    let (b, a) = fx.func(&[tv, pv]);
    fx.op(
        b,
        CudaTileOp::new(CtOp::GetTensorShape),
        vec![a[0]],
        &[i64t, i64t],
    );
    fx.op(
        b,
        CudaTileOp::new(CtOp::GetIndexSpaceShape),
        vec![a[1]],
        &[i64t, i64t],
    );
    fx.ret(b);
    assert_valid(&fx);

    let mut fx = Fx::new();
    let tv = fx.tv2(NumType::F32);
    let pv = fx.pv(&[8, 8], tv, None);
    let (i64t, i32t) = (fx.s(NumType::I64), fx.s(NumType::I32));
    let (b, a) = fx.named_func("f1", &[tv, pv]);
    fx.op(
        b,
        CudaTileOp::new(CtOp::GetTensorShape),
        vec![a[0]],
        &[i64t, i64t, i64t],
    );
    fx.ret(b);
    let (b, a) = fx.named_func("f2", &[tv, pv]);
    fx.op(
        b,
        CudaTileOp::new(CtOp::GetIndexSpaceShape),
        vec![a[1]],
        &[i64t, i64t, i64t],
    );
    fx.ret(b);
    let (b, a) = fx.named_func("f3", &[tv, pv]);
    fx.op(
        b,
        CudaTileOp::new(CtOp::GetTensorShape),
        vec![a[0]],
        &[i64t, i32t],
    );
    fx.ret(b);
    let errors = fx.errors();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].contains(
        "'cuda_tile.get_tensor_shape' op expected 2 results due to tensor rank, but got 3"
    ));
    assert!(errors[1].contains("'cuda_tile.get_index_space_shape' op expected 2 results due to view index space rank, but got 3"));
    assert!(
        errors[2].contains("expected all results to have the same type"),
        "{errors:#?}"
    );
}

/// `load_view_tko <ordering> [scope] %view[indices]`.
fn load_view(
    fx: &mut Fx,
    b: BlockId,
    o: MemoryOrdering,
    s: Option<MemoryScope>,
    view: ValueId,
    indices: &[ValueId],
    result: TypeId,
) -> OpId {
    let mut k = CudaTileOp::new(CtOp::LoadViewTko)
        .with("memory_ordering_semantics", ordering(o))
        .with_segments(&[1, indices.len() as u32, 0]);
    if let Some(s) = s {
        k.set("memory_scope", scope(s));
    }
    let token = fx.token();
    let mut operands = vec![view];
    operands.extend_from_slice(indices);
    fx.op(b, k, operands, &[result, token])
}

/// One invalid case: what to add to a function body, and the expected message.
type Case = (Box<dyn Fn(&mut Fx, BlockId)>, &'static str);

#[test]
fn view_loads_check_indices_tile_type_and_ordering() {
    let mut fx = Fx::new();
    let tv = fx.tv2(NumType::F32);
    let pv = fx.pv(&[8, 8], tv, None);
    let (tile, wrong_tile, i32t, i64t) = (
        fx.tile(&[8, 8], NumType::F32),
        fx.tile(&[8], NumType::F32),
        fx.s(NumType::I32),
        fx.s(NumType::I64),
    );
    let (b, a) = fx.func(&[pv, i32t, i64t]);
    let (view, i, j) = (a[0], a[1], a[2]);
    load_view(&mut fx, b, MemoryOrdering::Weak, None, view, &[i, i], tile);
    load_view(
        &mut fx,
        b,
        MemoryOrdering::Acquire,
        Some(MemoryScope::Device),
        view,
        &[i, i],
        tile,
    );
    fx.ret(b);
    assert_valid(&fx);

    let cases: Vec<Case> = vec![
        (
            Box::new(move |fx, b| {
                load_view(fx, b, MemoryOrdering::Weak, None, view, &[i], tile);
            }),
            "'cuda_tile.load_view_tko' op expected 2 index operands (based on view type), got 1",
        ),
        (
            Box::new(move |fx, b| {
                load_view(fx, b, MemoryOrdering::Weak, None, view, &[i, i], wrong_tile);
            }),
            "expected tile type to be '!cuda_tile.tile<8x8xf32>' (based on view type), got '!cuda_tile.tile<8xf32>'",
        ),
        (
            Box::new(move |fx, b| {
                load_view(fx, b, MemoryOrdering::Weak, None, view, &[i, j], tile);
            }),
            "expected index type 1 to be the same as other index types ('!cuda_tile.tile<i32>'), got '!cuda_tile.tile<i64>'",
        ),
        (
            Box::new(move |fx, b| {
                load_view(fx, b, MemoryOrdering::Release, Some(MemoryScope::Device), view, &[i, i], tile);
            }),
            "expect one of: weak, relaxed, or acquire, but got: release",
        ),
        (
            Box::new(move |fx, b| {
                load_view(fx, b, MemoryOrdering::Weak, Some(MemoryScope::Device), view, &[i, i], tile);
            }),
            "weak load must not have memory scope",
        ),
        (
            Box::new(move |fx, b| {
                load_view(fx, b, MemoryOrdering::Relaxed, None, view, &[i, i], tile);
            }),
            "memory scope is required for relaxed load",
        ),
    ];
    for (build, needle) in cases {
        // Each case gets its own function so errors stay separable.
        let mut fx = Fx::new();
        let tv = fx.tv2(NumType::F32);
        let pv = fx.pv(&[8, 8], tv, None);
        // Same types in the same order, so the captured ids mean the same here.
        let (_, _, i32t, i64t) = (
            fx.tile(&[8, 8], NumType::F32),
            fx.tile(&[8], NumType::F32),
            fx.s(NumType::I32),
            fx.s(NumType::I64),
        );
        let (b, a) = fx.func(&[pv, i32t, i64t]);
        assert_eq!(
            (a[0], a[1], a[2]),
            (view, i, j),
            "fixtures build values in the same order"
        );
        build(&mut fx, b);
        fx.ret(b);
        assert_one_error(&fx, needle);
    }
}

#[test]
fn gather_scatter_views_take_a_one_d_index_at_the_sparse_dimension() {
    let build = |index_shape: &[i64]| {
        let mut fx = Fx::new();
        let tv = fx.tv2(NumType::F32);
        let gv = fx.m.types.intern(Type::GatherScatterView(
            tileir_ir::types::GatherScatterViewType {
                tile_shape: vec![16, 8],
                tensor_view: tv,
                sparse_dim: 0,
                padding: None,
            },
        ));
        let (tile, idx, i32t) = (
            fx.tile(&[16, 8], NumType::F32),
            fx.tile(index_shape, NumType::I32),
            fx.s(NumType::I32),
        );
        let (b, a) = fx.func(&[gv, idx, i32t]);
        load_view(
            &mut fx,
            b,
            MemoryOrdering::Weak,
            None,
            a[0],
            &[a[1], a[2]],
            tile,
        );
        fx.ret(b);
        fx
    };
    assert_valid(&build(&[16]));
    assert_one_error(&build(&[8]), "expected gather/scatter index size (8) to match tile shape at gather/scatter dimension 0 (16)");
    assert_one_error(&build(&[]), "expected index at sparse_dim position 0 to be a 1D tensor for GatherScatterView, got rank 0");
}

fn store_view(
    fx: &mut Fx,
    b: BlockId,
    o: MemoryOrdering,
    s: Option<MemoryScope>,
    tile: ValueId,
    view: ValueId,
    indices: &[ValueId],
) {
    let mut k = CudaTileOp::new(CtOp::StoreViewTko)
        .with("memory_ordering_semantics", ordering(o))
        .with_segments(&[1, 1, indices.len() as u32, 0]);
    if let Some(s) = s {
        k.set("memory_scope", scope(s));
    }
    let token = fx.token();
    let mut operands = vec![tile, view];
    operands.extend_from_slice(indices);
    fx.op(b, k, operands, &[token]);
}

#[test]
fn view_stores_check_the_store_orderings() {
    let run = |o: MemoryOrdering, s: Option<MemoryScope>| {
        let mut fx = Fx::new();
        let tv = fx.tv2(NumType::F32);
        let pv = fx.pv(&[8, 8], tv, None);
        let (tile, i32t) = (fx.tile(&[8, 8], NumType::F32), fx.s(NumType::I32));
        let (b, a) = fx.func(&[pv, tile, i32t]);
        store_view(&mut fx, b, o, s, a[1], a[0], &[a[2], a[2]]);
        fx.ret(b);
        fx
    };
    assert_valid(&run(MemoryOrdering::Weak, None));
    assert_valid(&run(MemoryOrdering::Release, Some(MemoryScope::Sys)));
    assert_one_error(
        &run(MemoryOrdering::Acquire, Some(MemoryScope::Device)),
        "expect one of: weak, relaxed, or release, but got: acquire",
    );
    assert_one_error(
        &run(MemoryOrdering::Weak, Some(MemoryScope::TlBlk)),
        "weak store must not have memory scope",
    );
    assert_one_error(
        &run(MemoryOrdering::Release, None),
        "memory scope is required for release store",
    );
}

#[test]
fn pointer_loads_and_stores_check_pointee_mask_and_padding() {
    // load_ptr_tko relaxed device %p, %mask, %pad
    let load = |result: NumType, mask_shape: &[i64], with_scope: bool| {
        let mut fx = Fx::new();
        let (p, m, pad, r) = (
            fx.ptrs(&[8], NumType::F32),
            fx.tile(mask_shape, NumType::I1),
            fx.tile(&[8], NumType::F32),
            fx.tile(&[8], result),
        );
        let token = fx.token();
        let (b, a) = fx.func(&[p, m, pad]);
        let mut k = CudaTileOp::new(CtOp::LoadPtrTko)
            .with(
                "memory_ordering_semantics",
                ordering(MemoryOrdering::Relaxed),
            )
            .with_segments(&[1, 1, 1, 0]);
        if with_scope {
            k.set("memory_scope", scope(MemoryScope::Device));
        }
        fx.op(b, k, vec![a[0], a[1], a[2]], &[r, token]);
        fx.ret(b);
        fx
    };
    assert_valid(&load(NumType::F32, &[8], true));
    assert_one_error(&load(NumType::F32, &[4], true), "'cuda_tile.load_ptr_tko' op failed to verify that shape of 'mask' must match the shape of 'source'");
    assert_one_error(
        &load(NumType::F32, &[8], false),
        "memory scope is required for relaxed load",
    );
    let errors = load(NumType::F16, &[8], true).errors();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`source` type is expected a pointer type of `result` type")),
        "{errors:#?}"
    );

    let store = |value: NumType| {
        let mut fx = Fx::new();
        let (p, v) = (fx.ptrs(&[8], NumType::F32), fx.tile(&[8], value));
        let token = fx.token();
        let (b, a) = fx.func(&[p, v]);
        let k = CudaTileOp::new(CtOp::StorePtrTko)
            .with("memory_ordering_semantics", ordering(MemoryOrdering::Weak))
            .with_segments(&[1, 1, 0, 0]);
        fx.op(b, k, vec![a[0], a[1]], &[token]);
        fx.ret(b);
        fx
    };
    assert_valid(&store(NumType::F32));
    assert_one_error(
        &store(NumType::I32),
        "'cuda_tile.store_ptr_tko' op failed to verify that `destination` type is expected a pointer type of `value` type",
    );
}

#[test]
fn alloca_alignment_is_a_power_of_two_at_least_the_element_size() {
    let run = |num: i64, align: i64| {
        let mut fx = Fx::new();
        let p = fx.ptrs(&[], NumType::F32);
        let (b, _) = fx.func(&[]);
        let k = CudaTileOp::new(CtOp::Alloca)
            .with("num_elem", Attr::Int(num))
            .with("alignment", Attr::Int(align));
        fx.v(b, k, vec![], p);
        fx.ret(b);
        fx
    };
    assert_valid(&run(64, 128));
    assert_one_error(
        &run(64, 3),
        "'cuda_tile.alloca' op 'alignment' must be power of two",
    );
    assert_one_error(
        &run(64, 2),
        "'alignment' (2) must be at least the natural size (4 bytes) for element type 'f32'",
    );
    assert_one_error(
        &run(-10, 16),
        "64-bit signless integer attribute whose minimum value is 0",
    );
}

#[test]
fn tokens_are_made_and_joined() {
    let mut fx = Fx::new();
    let t = fx.token();
    let (b, _) = fx.func(&[]);
    let t0 = fx.v(b, CudaTileOp::new(CtOp::MakeToken), vec![], t);
    let t1 = fx.v(b, CudaTileOp::new(CtOp::MakeToken), vec![], t);
    fx.v(b, CudaTileOp::new(CtOp::JoinTokens), vec![t0, t1], t);
    fx.ret(b);
    assert_valid(&fx);

    let mut fx = Fx::new();
    let t = fx.token();
    let (b, _) = fx.func(&[]);
    let t0 = fx.v(b, CudaTileOp::new(CtOp::MakeToken), vec![], t);
    fx.v(b, CudaTileOp::new(CtOp::JoinTokens), vec![t0], t);
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.join_tokens' op expect two or more tokens");
}

#[test]
fn atomic_cas_and_rmw_check_types_modes_and_orderings() {
    let cas = |pointee: NumType, elem: NumType, o: MemoryOrdering| {
        let mut fx = Fx::new();
        let (p, v) = (fx.ptrs(&[2], pointee), fx.tile(&[2], elem));
        let token = fx.token();
        let (b, a) = fx.func(&[p, v, v]);
        let k = CudaTileOp::new(CtOp::AtomicCasTko)
            .with("memory_ordering_semantics", ordering(o))
            .with("memory_scope", scope(MemoryScope::Device))
            .with_segments(&[1, 1, 1, 0, 0]);
        fx.op(b, k, vec![a[0], a[1], a[2]], &[v, token]);
        fx.ret(b);
        fx
    };
    assert_valid(&cas(NumType::I32, NumType::I32, MemoryOrdering::AcqRel));
    assert_one_error(
        &cas(NumType::F32, NumType::I32, MemoryOrdering::Relaxed),
        "expected pointee type ('f32') to match element type of 'val' ('i32')",
    );
    assert_one_error(
        &cas(NumType::I8, NumType::I8, MemoryOrdering::Relaxed),
        "expect only float or integer types with 32 or 64 bit",
    );
    assert_one_error(
        &cas(NumType::I32, NumType::I32, MemoryOrdering::Weak),
        "memory ordering semantics must be one of: relaxed, acquire, release, acq_rel",
    );

    let rmw = |elem: NumType, md: AtomicRmwMode, o: MemoryOrdering, mask_shape: Option<&[i64]>| {
        let mut fx = Fx::new();
        let (p, v) = (fx.ptrs(&[2], elem), fx.tile(&[2], elem));
        let token = fx.token();
        let mut args = vec![p, v];
        if let Some(s) = mask_shape {
            args.push(fx.tile(s, NumType::I1));
        }
        let (b, a) = fx.func(&args);
        let k = CudaTileOp::new(CtOp::AtomicRmwTko)
            .with("memory_ordering_semantics", ordering(o))
            .with("memory_scope", scope(MemoryScope::Device))
            .with("mode", mode(md))
            .with_segments(&[1, 1, u32::from(mask_shape.is_some()), 0]);
        fx.op(b, k, a.clone(), &[v, token]);
        fx.ret(b);
        fx
    };
    assert_valid(&rmw(
        NumType::F32,
        AtomicRmwMode::AddF,
        MemoryOrdering::Relaxed,
        Some(&[2]),
    ));
    assert_valid(&rmw(
        NumType::F16,
        AtomicRmwMode::AddF,
        MemoryOrdering::Release,
        None,
    ));
    // 13.3 accepts bf16 `addf` (its suite round-trips one); integers stay rejected.
    assert_valid(&rmw(NumType::BF16, AtomicRmwMode::AddF, MemoryOrdering::Relaxed, None));
    assert_one_error(
        &rmw(NumType::I32, AtomicRmwMode::AddF, MemoryOrdering::Relaxed, None),
        "'addf' works only with floats f16, bf16, f32, and f64",
    );
    assert_one_error(
        &rmw(
            NumType::F32,
            AtomicRmwMode::Max,
            MemoryOrdering::Relaxed,
            None,
        ),
        "'max' works only with integers i32 and i64",
    );
    assert_one_error(
        &rmw(
            NumType::TF32,
            AtomicRmwMode::Xchg,
            MemoryOrdering::Relaxed,
            None,
        ),
        "'xchg' works only with integers or float of 32 or 64 bitwidth",
    );
    assert_one_error(
        &rmw(NumType::I32, AtomicRmwMode::Add, MemoryOrdering::Weak, None),
        "memory ordering semantics must be one of",
    );
    assert_one_error(
        &rmw(
            NumType::I32,
            AtomicRmwMode::And,
            MemoryOrdering::Relaxed,
            Some(&[4]),
        ),
        "failed to verify that all of {pointers, arg, mask} have same shape",
    );
}

#[test]
fn atomic_reductions_through_views_are_relaxed_unpadded_and_not_xchg() {
    let run = |md: AtomicRmwMode,
               o: MemoryOrdering,
               s: MemoryScope,
               padding: Option<PaddingValue>,
               value_shape: &[i64]| {
        let mut fx = Fx::new();
        let tv = fx.tv(
            &[Dim::Static(4), Dim::Static(4)],
            &[Dim::Static(4), Dim::Static(1)],
            NumType::I32,
        );
        let pv = fx.pv(&[2, 2], tv, padding);
        let (v, i) = (fx.tile(value_shape, NumType::I32), fx.s(NumType::I32));
        let token = fx.token();
        let (b, a) = fx.func(&[pv, v, i]);
        let k = CudaTileOp::new(CtOp::AtomicRedViewTko)
            .with("memory_ordering_semantics", ordering(o))
            .with("memory_scope", scope(s))
            .with("mode", mode(md))
            .with_segments(&[1, 2, 1, 0]);
        fx.op(b, k, vec![a[0], a[2], a[2], a[1]], &[token]);
        fx.ret(b);
        fx
    };
    use AtomicRmwMode as M;
    use MemoryOrdering as O;
    use MemoryScope as S;
    assert_valid(&run(M::Add, O::Relaxed, S::Device, None, &[2, 2]));
    assert_one_error(
        &run(M::Xchg, O::Relaxed, S::Device, None, &[2, 2]),
        "atomic_red_view_tko op cannot use xchg operation",
    );
    assert_one_error(
        &run(M::Add, O::Acquire, S::Device, None, &[2, 2]),
        "only 'relaxed' memory ordering is supported for view-based atomic reductions",
    );
    assert_one_error(&run(M::Add, O::Relaxed, S::Sys, None, &[2, 2]), "is not supported for view-based atomic reductions; use 'tl_blk' or 'device' for TMA compatibility");
    assert_one_error(
        &run(
            M::Add,
            O::Relaxed,
            S::Device,
            Some(PaddingValue::Zero),
            &[2, 2],
        ),
        "views with padding_value are not supported for atomic reductions",
    );
    assert_one_error(
        &run(M::Add, O::Relaxed, S::Device, None, &[4, 4]),
        "view tile shape 2, 2 must match value shape 4, 4 for element-wise atomic operations",
    );
    assert_one_error(
        &run(M::AddF, O::Relaxed, S::Device, None, &[2, 2]),
        "'addf' works only with floats f16, bf16, f32, and f64",
    );
}

// ---------------------------------------------------------------- control flow

/// `if %c -> (results) { then } else { else }`; `else_block = false` leaves the else region empty.
fn if_op(
    fx: &mut Fx,
    b: BlockId,
    cond: ValueId,
    results: &[TypeId],
    else_block: bool,
) -> (OpId, BlockId, Option<BlockId>) {
    let op = fx.op(b, CudaTileOp::new(CtOp::If), vec![cond], results);
    let then_b = fx.block(op, 0, &[]);
    let else_b = else_block.then(|| fx.block(op, 1, &[]));
    (op, then_b, else_b)
}

#[test]
fn if_branches_yield_the_result_types_and_results_need_an_else() {
    // Valid: results with both branches; no results with an empty else region.
    let mut fx = Fx::new();
    let (i1, i32t) = (fx.s(NumType::I1), fx.s(NumType::I32));
    let (b, a) = fx.func(&[i1, i32t]);
    let (_, t, e) = if_op(&mut fx, b, a[0], &[i32t], true);
    fx.term(t, CtOp::Yield, vec![a[1]]);
    fx.term(e.unwrap(), CtOp::Yield, vec![a[1]]);
    let (_, t, _) = if_op(&mut fx, b, a[0], &[], false);
    fx.term(t, CtOp::Yield, vec![]);
    fx.ret(b);
    assert_valid(&fx);

    let run =
        |results: &[NumType], else_block: bool, then_yield: &[usize], else_yield: &[usize]| {
            let mut fx = Fx::new();
            let (i1, i32t, i64t) = (fx.s(NumType::I1), fx.s(NumType::I32), fx.s(NumType::I64));
            let (b, a) = fx.func(&[i1, i32t, i64t]);
            let result_types: Vec<TypeId> = results.iter().map(|&n| fx.s(n)).collect();
            let (_, t, e) = if_op(&mut fx, b, a[0], &result_types, else_block);
            fx.term(t, CtOp::Yield, then_yield.iter().map(|&i| a[i]).collect());
            if let Some(e) = e {
                fx.term(e, CtOp::Yield, else_yield.iter().map(|&i| a[i]).collect());
            }
            fx.ret(b);
            fx
        };
    assert_one_error(
        &run(&[NumType::I32], false, &[1], &[]),
        "'cuda_tile.if' op has non-empty return type, must define else branch",
    );
    assert_one_error(
        &run(&[NumType::I64], true, &[1], &[2]),
        "op type does not match yield type, then branch yields '!cuda_tile.tile<i32>' but op result type is '!cuda_tile.tile<i64>'",
    );
    assert_one_error(
        &run(&[NumType::I32], true, &[1], &[]),
        "op has return type of '!cuda_tile.tile<i32>' but else branch does not yield anything",
    );
    assert_one_error(
        &run(&[], true, &[], &[1]),
        "op does not return a value, but else branch yields '!cuda_tile.tile<i32>'",
    );

    // No view results.
    let mut fx = Fx::new();
    let (i1, tv) = (fx.s(NumType::I1), fx.tv2(NumType::F32));
    let (b, a) = fx.func(&[i1, tv]);
    let (_, t, e) = if_op(&mut fx, b, a[0], &[tv], true);
    fx.term(t, CtOp::Yield, vec![a[1]]);
    fx.term(e.unwrap(), CtOp::Yield, vec![a[1]]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "'cuda_tile.if' op result type 0 is a tensor_view, which is not supported",
    );
}

/// `for %iv in (%lb to %ub, step %s) : bound iter_values(inits) -> (result types) { … }`.
fn for_op(
    fx: &mut Fx,
    b: BlockId,
    bounds: [ValueId; 3],
    inits: &[ValueId],
    iv: TypeId,
    iter_types: &[TypeId],
) -> (OpId, BlockId) {
    let mut operands = bounds.to_vec();
    operands.extend_from_slice(inits);
    let results: Vec<TypeId> = inits.iter().map(|&v| fx.m.value_type(v)).collect();
    let op = fx.op(b, CudaTileOp::new(CtOp::For), operands, &results);
    let mut args = vec![iv];
    args.extend_from_slice(iter_types);
    let body = fx.block(op, 0, &args);
    (op, body)
}

#[test]
fn for_checks_induction_variable_iter_values_and_continue() {
    let mut fx = Fx::new();
    let (i32t, f32t) = (fx.s(NumType::I32), fx.s(NumType::F32));
    let (b, a) = fx.func(&[i32t, f32t]);
    let (_, body) = for_op(&mut fx, b, [a[0], a[0], a[0]], &[a[1]], i32t, &[f32t]);
    let acc = fx.m.blocks[body].args[1];
    fx.term(body, CtOp::Continue, vec![acc]);
    fx.ret(b);
    assert_valid(&fx);

    // Induction variable of another type than the bounds.
    let mut fx = Fx::new();
    let (i32t, f32t) = (fx.s(NumType::I32), fx.s(NumType::F32));
    let (b, a) = fx.func(&[i32t]);
    let (_, body) = for_op(&mut fx, b, [a[0], a[0], a[0]], &[], f32t, &[]);
    fx.term(body, CtOp::Continue, vec![]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "'cuda_tile.for' op expected induction variable to be same type as bounds and step: '!cuda_tile.tile<f32>' vs '!cuda_tile.tile<i32>'",
    );

    // Iteration argument of another type than its init value.
    let mut fx = Fx::new();
    let (i32t, f32t, f64t) = (fx.s(NumType::I32), fx.s(NumType::F32), fx.s(NumType::F64));
    let (b, a) = fx.func(&[i32t, f32t]);
    let (_, body) = for_op(&mut fx, b, [a[0], a[0], a[0]], &[a[1]], i32t, &[f64t]);
    fx.term(body, CtOp::Continue, vec![a[1]]);
    fx.ret(b);
    assert_one_error(&fx, "init value 0 and region iter_value 0 have different type: '!cuda_tile.tile<f32>' != '!cuda_tile.tile<f64>'");

    // `continue` must carry the loop's result types; MLIR words this without the op prefix.
    let mut fx = Fx::new();
    let i32t = fx.s(NumType::I32);
    let (b, a) = fx.func(&[i32t]);
    let (_, body) = for_op(&mut fx, b, [a[0], a[0], a[0]], &[], i32t, &[]);
    fx.term(body, CtOp::Continue, vec![a[0]]);
    fx.ret(b);
    let errors = fx.errors();
    assert_eq!(
        errors,
        vec!["t.mlir:1:1: error: `for` is missing a valid terminator. `continue` op should have operand types that match the parent loop return types: (), but found: ('!cuda_tile.tile<i32>')".to_string()]
    );

    // Bounds of different types.
    let mut fx = Fx::new();
    let (i32t, i64t) = (fx.s(NumType::I32), fx.s(NumType::I64));
    let (b, a) = fx.func(&[i32t, i64t]);
    let (_, body) = for_op(&mut fx, b, [a[0], a[1], a[0]], &[], i32t, &[]);
    fx.term(body, CtOp::Continue, vec![]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "failed to verify that all of {lowerBound, upperBound, step} have same type",
    );

    // Views cannot be carried.
    let mut fx = Fx::new();
    let (i32t, tv) = (fx.s(NumType::I32), fx.tv2(NumType::F32));
    let (b, a) = fx.func(&[i32t, tv]);
    let (_, body) = for_op(&mut fx, b, [a[0], a[0], a[0]], &[a[1]], i32t, &[tv]);
    let x = fx.m.blocks[body].args[1];
    fx.term(body, CtOp::Continue, vec![x]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "'cuda_tile.for' op loop-carried value 0 is a tensor_view, which is not supported",
    );
}

#[test]
fn loop_continue_carries_iter_types_and_break_carries_result_types() {
    // loop iter_values(%x = %init) : tile<i32> -> tile<f32> { if %c { break %f } continue %x }
    let build = |break_value: usize, continue_value: usize| {
        let mut fx = Fx::new();
        let (i1, i32t, f32t) = (fx.s(NumType::I1), fx.s(NumType::I32), fx.s(NumType::F32));
        let (b, a) = fx.func(&[i1, i32t, f32t]);
        let lp = fx.op(b, CudaTileOp::new(CtOp::Loop), vec![a[1]], &[f32t]);
        let body = fx.block(lp, 0, &[i32t]);
        let (_, then_b, _) = if_op(&mut fx, body, a[0], &[], false);
        fx.term(then_b, CtOp::Break, vec![a[break_value]]);
        fx.term(body, CtOp::Continue, vec![a[continue_value]]);
        fx.ret(b);
        fx
    };
    assert_valid(&build(2, 1));
    assert_one_error(
        &build(1, 1),
        "'cuda_tile.break' op operand types must correspond to the parent loop result types: ('!cuda_tile.tile<i32>') vs ('!cuda_tile.tile<f32>')",
    );
    let errors = build(2, 2).errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].ends_with(
        "error: `loop` is missing a valid terminator. `continue` op should have operand types that match the parent loop iter_values: ('!cuda_tile.tile<i32>'), but found: ('!cuda_tile.tile<f32>')"
    ));

    // A partition view cannot be loop-carried.
    let mut fx = Fx::new();
    let tv = fx.tv2(NumType::F32);
    let pv = fx.pv(&[8, 8], tv, None);
    let (b, a) = fx.func(&[pv]);
    let lp = fx.op(b, CudaTileOp::new(CtOp::Loop), vec![a[0]], &[]);
    let body = fx.block(lp, 0, &[pv]);
    let x = fx.m.blocks[body].args[0];
    fx.term(body, CtOp::Continue, vec![x]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "'cuda_tile.loop' op loop-carried value 0 is a tile view, which is not supported",
    );
}

#[test]
fn early_exits_reach_their_loop_through_ifs_only() {
    // `break` inside an `if` inside a `for`: the innermost loop must be a `loop`.
    let mut fx = Fx::new();
    let (i1, i32t) = (fx.s(NumType::I1), fx.s(NumType::I32));
    let (b, a) = fx.func(&[i1, i32t]);
    let (for_, body) = for_op(&mut fx, b, [a[1], a[1], a[1]], &[], i32t, &[]);
    let for_loc = fx.m.locs.file_line_col("t.mlir", 9, 1);
    fx.m.ops[for_].loc = for_loc;
    let (_, then_b, _) = if_op(&mut fx, body, a[0], &[], false);
    fx.term(then_b, CtOp::Break, vec![]);
    fx.term(body, CtOp::Continue, vec![]);
    fx.ret(b);
    let errors = verify(&fx.m).unwrap_err();
    assert_eq!(errors.0.len(), 1, "{errors}");
    assert_eq!(
        errors.0[0].message,
        "'cuda_tile.break' op can only be nested within a ancestor chain of 'cuda_tile.loop', 'cuda_tile.if' operations"
    );
    assert_eq!(
        errors.0[0].notes[0].message,
        "see unexpected ancestor operation"
    );
    assert_eq!(
        errors.0[0].notes[0].loc.file_line_col(),
        Some(("t.mlir", 9, 1))
    );

    // `continue` in an `if` directly in a function.
    let mut fx = Fx::new();
    let i1 = fx.s(NumType::I1);
    let (b, a) = fx.func(&[i1]);
    let (_, then_b, _) = if_op(&mut fx, b, a[0], &[], false);
    fx.term(then_b, CtOp::Continue, vec![]);
    fx.ret(b);
    assert_one_error(&fx, "can only be nested within a ancestor chain of 'cuda_tile.for', 'cuda_tile.loop', 'cuda_tile.if' operations");

    // `yield` may only end an if/reduce/scan.
    let mut fx = Fx::new();
    let (b, _) = fx.func(&[]);
    let lp = fx.op(b, CudaTileOp::new(CtOp::Loop), vec![], &[]);
    let body = fx.block(lp, 0, &[]);
    fx.term(body, CtOp::Yield, vec![]);
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.yield' op expects parent op to be one of 'cuda_tile.if, cuda_tile.reduce, cuda_tile.scan'");

    // `break` directly in a function body.
    let mut fx = Fx::new();
    let (b, _) = fx.func(&[]);
    fx.term(b, CtOp::Break, vec![]);
    let errors = fx.errors();
    assert!(
        errors.iter().any(|e| e.contains(
            "'cuda_tile.break' op expects parent op to be one of 'cuda_tile.if, cuda_tile.loop'"
        )),
        "{errors:#?}"
    );
}

#[test]
fn return_walks_through_ifs_to_its_function() {
    // testing$func @f(%c, %x) -> tile<i32> { if %c { return %x } return %x }
    let mut fx = Fx::new();
    let (i1, i32t) = (fx.s(NumType::I1), fx.s(NumType::I32));
    let (_, b) = fx.function(CtOp::TestingFunc, "f", &[i1, i32t], &[i32t]);
    let a = fx.m.blocks[b].args.clone();
    let (_, then_b, _) = if_op(&mut fx, b, a[0], &[], false);
    fx.term(then_b, CtOp::Return, vec![a[1]]);
    fx.term(b, CtOp::Return, vec![a[1]]);
    assert_valid(&fx);

    // Wrong count, wrong type.
    let mut fx = Fx::new();
    let (i32t, f32t) = (fx.s(NumType::I32), fx.s(NumType::F32));
    let (_, b) = fx.function(CtOp::TestingFunc, "kernel", &[f32t], &[i32t]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "'cuda_tile.return' op has 0 operands, but enclosing function (@kernel) returns 1",
    );
    let mut fx = Fx::new();
    let (i32t, f32t) = (fx.s(NumType::I32), fx.s(NumType::F32));
    let (_, b) = fx.function(CtOp::TestingFunc, "kernel", &[f32t], &[i32t]);
    let x = fx.m.blocks[b].args[0];
    fx.term(b, CtOp::Return, vec![x]);
    assert_one_error(
        &fx,
        "error: type of return operand 0 ('!cuda_tile.tile<f32>') doesn't match function result type ('!cuda_tile.tile<i32>') in function @kernel",
    );

    // Not inside loops.
    let mut fx = Fx::new();
    let (b, _) = fx.func(&[]);
    let lp = fx.op(b, CudaTileOp::new(CtOp::Loop), vec![], &[]);
    let body = fx.block(lp, 0, &[]);
    fx.ret(body);
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.return' op must be used within a cuda_tile.testing$func, cuda_tile.entry, or cuda_tile.if operation");
}

#[test]
fn region_structure_allows_only_an_empty_else() {
    // The then region must have its block.
    let mut fx = Fx::new();
    let i1 = fx.s(NumType::I1);
    let (b, a) = fx.func(&[i1]);
    fx.op(b, CudaTileOp::new(CtOp::If), vec![a[0]], &[]);
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.if' op region #0 ('thenRegion') failed to verify constraint: region with 1 blocks");

    // Region blocks end with a terminator.
    let mut fx = Fx::new();
    let i32t = fx.s(NumType::I32);
    let (b, a) = fx.func(&[i32t]);
    let (_, _body) = for_op(&mut fx, b, [a[0], a[0], a[0]], &[], i32t, &[]);
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.for' op region #0 ('region') must end with a terminator ('cuda_tile.continue'), found an empty block");

    // Block arguments of an `if` are rejected.
    let mut fx = Fx::new();
    let i1 = fx.s(NumType::I1);
    let (b, a) = fx.func(&[i1]);
    let op = fx.op(b, CudaTileOp::new(CtOp::If), vec![a[0]], &[]);
    let then_b = fx.block(op, 0, &[i1]);
    fx.term(then_b, CtOp::Yield, vec![]);
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.if' op region #0 should have no arguments");
}

// ---------------------------------------------------------------- module, kernels, globals

#[test]
fn modules_hold_only_kernels_globals_and_test_functions_at_the_top_level() {
    let mut fx = Fx::new();
    let (_, b) = fx.function(CtOp::Entry, "k", &[], &[]);
    fx.ret(b);
    assert_valid(&fx);

    let mut fx = Fx::new();
    let body = fx.body;
    fx.cint(body, NumType::I32, 1);
    // One error at the module and a remark naming the culprit (NVIDIA 13.3).
    assert_eq!(
        fx.errors(),
        [
            "t.mlir:1:1: error: 'cuda_tile.module' op only function and global ops are allowed in the body",
            "t.mlir:1:1: remark: invalid op",
        ]
    );

    // A module inside a module.
    let mut fx = Fx::new();
    let body = fx.body;
    let inner = fx.op(
        body,
        CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("inner".into())),
        vec![],
        &[],
    );
    fx.block(inner, 0, &[]);
    // The outer module fails first, so (as in MLIR) its body is not verified further.
    let errors = fx.errors();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[0].ends_with("error: 'cuda_tile.module' op only function and global ops are allowed in the body"));
    assert!(errors[1].ends_with("remark: invalid op"));

    // A module inside a function.
    let mut fx = Fx::new();
    let (b, _) = fx.func(&[]);
    let inner = fx.op(
        b,
        CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("inner".into())),
        vec![],
        &[],
    );
    fx.block(inner, 0, &[]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "'cuda_tile.module' op must appear at the top level, but is nested in 'cuda_tile.testing$func'",
    );

    // Duplicate symbols.
    let mut fx = Fx::new();
    let (_, b) = fx.function(CtOp::Entry, "k", &[], &[]);
    fx.ret(b);
    let (_, b) = fx.function(CtOp::TestingFunc, "k", &[], &[]);
    fx.ret(b);
    let errors = verify(&fx.m).unwrap_err();
    assert_eq!(errors.0.len(), 1, "{errors}");
    assert_eq!(errors.0[0].message, "redefinition of symbol named 'k'");
    assert_eq!(
        errors.0[0].notes[0].message,
        "see existing symbol definition here"
    );
}

#[test]
fn entries_take_scalars_and_return_nothing() {
    let mut fx = Fx::new();
    let (p, n) = (fx.ptrs(&[], NumType::F32), fx.s(NumType::I32));
    let (_, b) = fx.function(CtOp::Entry, "k", &[p, n], &[]);
    fx.ret(b);
    assert_valid(&fx);

    let mut fx = Fx::new();
    let t = fx.tile(&[2, 2], NumType::F32);
    let (_, b) = fx.function(CtOp::Entry, "k", &[t], &[]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "'cuda_tile.entry' op entry op must have scalar types (rank 0 !cuda_tile.tile)",
    );

    let mut fx = Fx::new();
    let t = fx.s(NumType::F32);
    let (_, b) = fx.function(CtOp::Entry, "k", &[t], &[t]);
    let x = fx.m.blocks[b].args[0];
    fx.term(b, CtOp::Return, vec![x]);
    // The entry fails, so its body (and the return in it) is not verified.
    assert_one_error(&fx, "'cuda_tile.entry' op entry op must not return values");

    // Body arguments follow the signature.
    let mut fx = Fx::new();
    let (f32t, i32t) = (fx.s(NumType::F32), fx.s(NumType::I32));
    let fty = fx.func_type(&[f32t], &[]);
    let k = CudaTileOp::new(CtOp::Entry)
        .with("sym_name", Attr::Str("k".into()))
        .with("function_type", Attr::Type(fty));
    let body = fx.body;
    let e = fx.op(body, k, vec![], &[]);
    let b = fx.block(e, 0, &[i32t]);
    fx.ret(b);
    assert_one_error(
        &fx,
        "type of entry block argument #0('!cuda_tile.tile<i32>') must match the type of the corresponding argument in function signature('!cuda_tile.tile<f32>')",
    );

    // Test functions may take and return anything.
    let mut fx = Fx::new();
    let t = fx.tile(&[4], NumType::F32);
    let (_, b) = fx.function(CtOp::TestingFunc, "f", &[t], &[t]);
    let x = fx.m.blocks[b].args[0];
    fx.term(b, CtOp::Return, vec![x]);
    assert_valid(&fx);
}

fn global(fx: &mut Fx, name: &str, elem: NumType, shape: &[i64], alignment: i64) {
    let n: i64 = shape.iter().product();
    let dense = DenseElements {
        elem,
        shape: shape.to_vec(),
        bits: vec![0; n as usize],
    };
    let k = CudaTileOp::new(CtOp::Global)
        .with("sym_name", Attr::Str(name.into()))
        .with("value", Attr::Dense(dense))
        .with("alignment", Attr::Int(alignment));
    let body = fx.body;
    fx.op(body, k, vec![], &[]);
}

#[test]
fn globals_are_rank_one_and_get_global_resolves_them() {
    let build = |name: &str, pointee: NumType| {
        let mut fx = Fx::new();
        global(&mut fx, "g", NumType::F16, &[2], 128);
        let p = fx.ptrs(&[], pointee);
        let (_, b) = fx.function(CtOp::Entry, "k", &[], &[]);
        fx.v(
            b,
            CudaTileOp::new(CtOp::GetGlobal).with("name", Attr::Symbol(name.into())),
            vec![],
            p,
        );
        fx.ret(b);
        fx
    };
    assert_valid(&build("g", NumType::F16));
    assert_one_error(
        &build("g1", NumType::F16),
        "'cuda_tile.get_global' op 'g1' does not reference a valid global",
    );
    assert_one_error(
        &build("g", NumType::F32),
        "'cuda_tile.get_global' op pointee type of result type '!cuda_tile.ptr<f32>' does not match type 'f16' of the global @g",
    );

    let mut fx = Fx::new();
    global(&mut fx, "g", NumType::F16, &[1, 2], 0);
    assert_one_error(&fx, "'cuda_tile.global' op type must have rank 1");
    let mut fx = Fx::new();
    global(&mut fx, "g", NumType::F16, &[2], 3);
    assert_one_error(&fx, "'alignment' must be 0 or a power of two, got 3");
}

#[test]
fn grid_queries_assert_and_print() {
    let mut fx = Fx::new();
    let (i32t, c) = (fx.s(NumType::I32), fx.tile(&[2], NumType::I1));
    let token = fx.token();
    let (_, b) = fx.function(CtOp::Entry, "k", &[], &[]);
    fx.op(
        b,
        CudaTileOp::new(CtOp::GetTileBlockId),
        vec![],
        &[i32t, i32t, i32t],
    );
    let n = fx.op(
        b,
        CudaTileOp::new(CtOp::GetNumTileBlocks),
        vec![],
        &[i32t, i32t, i32t],
    );
    let nx = fx.m.result(n, 0);
    let cond = fx.v(
        b,
        CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(DenseElements {
                elem: NumType::I1,
                shape: vec![2],
                bits: vec![1],
            }),
        ),
        vec![],
        c,
    );
    fx.op(
        b,
        CudaTileOp::new(CtOp::Assert).with("message", Attr::Str("bad".into())),
        vec![cond],
        &[],
    );
    let print = CudaTileOp::new(CtOp::PrintTko)
        .with("str", Attr::Str("n=%d 100%%\n".into()))
        .with_segments(&[1, 0]);
    fx.op(b, print, vec![nx], &[token]);
    fx.ret(b);
    assert_valid(&fx);

    let print = |text: &str| {
        let mut fx = Fx::new();
        let (f16t, token) = (fx.tile(&[2], NumType::F16), fx.token());
        let (b, a) = fx.func(&[f16t]);
        fx.op(
            b,
            CudaTileOp::new(CtOp::PrintTko)
                .with("str", Attr::Str(text.into()))
                .with_segments(&[1, 0]),
            vec![a[0]],
            &[token],
        );
        fx.ret(b);
        fx
    };
    assert_one_error(
        &print("hello_world, %f, %f"),
        "'cuda_tile.print_tko' op incorrect number of operands: expected 2, found 1",
    );
    assert_one_error(
        &print("hello_world, %"),
        "'cuda_tile.print_tko' op found unterminated format expression",
    );
    assert_valid(&print("%5.2f"));
}

#[test]
fn assume_predicates_check_their_operands() {
    let run = |pred: AssumePredicate, shape: &[i64], elem: TileElem| {
        let mut fx = Fx::new();
        let t = fx.m.types.tile(shape, elem);
        let (b, a) = fx.func(&[t]);
        fx.v(
            b,
            CudaTileOp::new(CtOp::Assume).with("predicate", Attr::Assume(pred)),
            vec![a[0]],
            t,
        );
        fx.ret(b);
        fx
    };
    let int = TileElem::Num(NumType::I32);
    let i8t = TileElem::Num(NumType::I8);
    let ptr = TileElem::Ptr(NumType::F16);
    let f32t = TileElem::Num(NumType::F32);
    let div = |d: u64, ea: Option<(i64, i64)>| AssumePredicate::DivBy {
        divisor: d,
        every_along: ea,
    };
    assert_valid(&run(div(16, None), &[], ptr));
    assert_valid(&run(div(32, Some((4, 0))), &[16], int));
    assert_valid(&run(
        AssumePredicate::SameElements(vec![1, 4]),
        &[4, 8],
        ptr,
    ));
    assert_valid(&run(
        AssumePredicate::Bounded(Some(0), None),
        &[8],
        TileElem::Num(NumType::I16),
    ));
    let cases = [
        (run(div(7, None), &[16], int), "'cuda_tile.assume' op 'cuda_tile.div_by' divisor must be a power of 2"),
        (run(div(1 << 63, None), &[], i8t), "'cuda_tile.div_by' divisor is too large"),
        (run(div(16, None), &[], f32t), "'cuda_tile.div_by' is valid only for tile of integer/pointer or tensor_view values"),
        (run(div(1, Some((8, 0))), &[], ptr), "'cuda_tile.div_by' 'every'/'along' cannot be used if the constrained value is a 0D tile"),
        (run(div(1, Some((24, 0))), &[16], int), "expected 'cuda_tile.div_by' every_dim to be within 0 and the size of the respective dimension (16)"),
        (run(div(1, Some((2, 1))), &[16], int), "'cuda_tile.div_by' every_dim (1) must be >= 0 and < tile rank (1)"),
        (run(AssumePredicate::SameElements(vec![8]), &[], ptr), "expected number of values in 'cuda_tile.same_elements' (1) to match rank of constrained tile (0)"),
        (run(AssumePredicate::SameElements(vec![8]), &[16], f32t), "'cuda_tile.same_elements' is valid only for tile of integer/pointer values"),
        (run(AssumePredicate::SameElements(vec![24]), &[16], int), "expected 'cuda_tile.same_elements' value 0 to be within 0 and the size of the respective dimension (16)"),
        (run(AssumePredicate::Bounded(Some(0), Some(0)), &[16], f32t), "'cuda_tile.bounded' is valid only for tile of integer values"),
        (run(AssumePredicate::Bounded(Some(0), Some(128)), &[16], i8t), "'cuda_tile.bounded' expects upper bound to be within [-128, 127]"),
        (run(AssumePredicate::Bounded(Some(-129), Some(6)), &[16], i8t), "'cuda_tile.bounded' expects lower bound to be within [-128, 127]"),
        (run(AssumePredicate::Bounded(Some(8), Some(6)), &[16], i8t), "'cuda_tile.bounded' expects lower bound to be less than or equal to upper bound"),
    ];
    for (fx, needle) in &cases {
        assert_one_error(fx, needle);
    }

    // div_by on a tensor_view, without every/along.
    let mut fx = Fx::new();
    let tv = fx.tv2(NumType::F16);
    let (b, a) = fx.func(&[tv]);
    fx.v(
        b,
        CudaTileOp::new(CtOp::Assume).with("predicate", Attr::Assume(div(16, None))),
        vec![a[0]],
        tv,
    );
    fx.v(
        b,
        CudaTileOp::new(CtOp::Assume).with("predicate", Attr::Assume(div(16, Some((8, 0))))),
        vec![a[0]],
        tv,
    );
    fx.ret(b);
    assert_one_error(&fx, "'cuda_tile.div_by' 'every'/'along' cannot be used if the constrained value is a tensor_view");
}

// ---------------------------------------------------------------- optimization hints

fn hinted_entry(hints: Attr) -> Fx {
    let mut fx = Fx::new();
    let p = fx.ptrs(&[], NumType::F32);
    let fty = fx.func_type(&[p], &[]);
    let k = CudaTileOp::new(CtOp::Entry)
        .with("sym_name", Attr::Str("k".into()))
        .with("function_type", Attr::Type(fty))
        .with("optimization_hints", hints);
    let body = fx.body;
    let e = fx.op(body, k, vec![], &[]);
    let b = fx.block(e, 0, &[p]);
    fx.ret(b);
    fx
}

fn hints(arch: &str, params: &[(&str, Attr)]) -> Attr {
    Attr::Dict(vec![(
        arch.to_string(),
        Attr::Dict(
            params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        ),
    )])
}

fn strings(d: &[Diagnostic]) -> Vec<String> {
    d.iter().map(|x| x.to_string()).collect()
}

#[test]
fn hint_parameters_are_checked_only_when_asked() {
    let warn = VerifyOptions {
        warn_unsupported_hints: true,
        hints_are_errors: false,
        ..Default::default()
    };
    let werr = VerifyOptions {
        warn_unsupported_hints: true,
        hints_are_errors: true,
        ..Default::default()
    };

    // Silently accepted by default, warned about with -Wunsupported-hints.
    let fx = hinted_entry(hints("sm_100a", &[("num_cta_in_cga", Attr::Int(2))]));
    assert_eq!(verify_with(&fx.m, &VerifyOptions::default()), Ok(vec![]));
    let warnings = verify_with(&fx.m, &warn).expect("warnings only");
    assert_eq!(
        strings(&warnings),
        vec!["t.mlir:1:1: warning: unknown hint key sm_100a".to_string()]
    );
    // -Werr-hints turns the warning into a failed op.
    let all = strings(&verify_with(&fx.m, &werr).unwrap_err().0);
    assert_eq!(
        all,
        vec![
            "t.mlir:1:1: warning: unknown hint key sm_100a".to_string(),
            "t.mlir:1:1: error: 'cuda_tile.entry' op Optimization hints verification failed"
                .to_string()
        ]
    );

    for (params, needle) in [
        (
            hints("sm_100", &[("num_qqq", Attr::Int(1))]),
            "num_qqq is not known hint for current Operation",
        ),
        (
            hints("sm_100", &[("num_cta_in_cga", Attr::Str("a".into()))]),
            "integer value expected for sm_100.num_cta_in_cga",
        ),
        (
            hints("sm_100", &[("num_cta_in_cga", Attr::Int(7))]),
            "expected power-of-two ≤ 16 for sm_100.num_cta_in_cga",
        ),
        (
            hints("sm_80", &[("num_cta_in_cga", Attr::Int(2))]),
            "expected 1 for sm_80.num_cta_in_cga",
        ),
        (
            hints("sm_100", &[("occupancy", Attr::Int(64))]),
            "integer value in the range [1, 32] is expected for sm_100.occupancy",
        ),
        (
            hints("default", &[("num_worker_warps_per_cta", Attr::Int(64))]),
            "expected power-of-two ≤ 32 for default.num_worker_warps_per_cta",
        ),
    ] {
        let fx = hinted_entry(params);
        let all = verify_with(&fx.m, &werr).unwrap_err().0;
        assert_eq!(all.len(), 2, "{needle}: {all:#?}");
        assert_eq!(all[0].severity, Severity::Warning);
        assert_eq!(all[0].message, needle);
        assert!(all[1]
            .message
            .ends_with("Optimization hints verification failed"));
    }

    // Valid hints produce nothing in any mode.
    let fx = hinted_entry(hints(
        "sm_100",
        &[
            ("num_cta_in_cga", Attr::Int(2)),
            ("occupancy", Attr::Int(2)),
        ],
    ));
    assert_eq!(verify_with(&fx.m, &werr), Ok(vec![]));

    // The per-architecture values must be dictionaries, always.
    let fx = hinted_entry(Attr::Dict(vec![("sm_100".into(), Attr::Int(1))]));
    let errors = fx.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].contains(
            "expected dictionary attribute for optimization_hints entry `sm_100` got value=1 : i64"
        ),
        "{errors:#?}"
    );
}

#[test]
fn memory_op_hints_know_latency_and_allow_tma() {
    let werr = VerifyOptions {
        warn_unsupported_hints: true,
        hints_are_errors: true,
        ..Default::default()
    };
    let run = |params: Attr, view: bool| {
        let mut fx = Fx::new();
        let tv = fx.tv2(NumType::F32);
        let pv = fx.pv(&[8, 8], tv, None);
        let (tile, i32t, p, token) = (
            fx.tile(&[8, 8], NumType::F32),
            fx.s(NumType::I32),
            fx.ptrs(&[8], NumType::F32),
            fx.token(),
        );
        let f8 = fx.tile(&[8], NumType::F32);
        let (b, a) = fx.func(&[pv, i32t, p]);
        if view {
            let id = load_view(
                &mut fx,
                b,
                MemoryOrdering::Weak,
                None,
                a[0],
                &[a[1], a[1]],
                tile,
            );
            if let OpKind::CudaTile(k) = &mut fx.m.ops[id].kind {
                k.set("optimization_hints", params);
            }
        } else {
            let k = CudaTileOp::new(CtOp::LoadPtrTko)
                .with("memory_ordering_semantics", ordering(MemoryOrdering::Weak))
                .with("optimization_hints", params)
                .with_segments(&[1, 0, 0, 0]);
            fx.op(b, k, vec![a[2]], &[f8, token]);
        }
        fx.ret(b);
        verify_with(&fx.m, &werr)
    };
    assert_eq!(
        run(
            hints(
                "sm_90",
                &[("latency", Attr::Int(3)), ("allow_tma", Attr::Bool(true))]
            ),
            true
        ),
        Ok(vec![])
    );
    let bad = |r: Result<Vec<Diagnostic>, Diagnostics>| strings(&r.unwrap_err().0);
    let d = bad(run(hints("sm_90", &[("latency", Attr::Int(11))]), true));
    assert!(
        d[0].contains("warning: integer value in the range [1, 10] is expected for sm_90.latency"),
        "{d:#?}"
    );
    assert!(
        d[1].contains("'cuda_tile.load_view_tko' op Optimization hints verification failed"),
        "{d:#?}"
    );
    let d = bad(run(
        hints("sm_90", &[("allow_tma", Attr::Bool(true))]),
        false,
    ));
    assert!(
        d[0].contains("warning: allow_tma is not known hint for current Operation"),
        "{d:#?}"
    );
    let d = bad(run(hints("sm_90", &[("allow_tma", Attr::Int(1))]), true));
    assert!(
        d[0].contains("warning: boolean value expected for sm_90.allow_tma"),
        "{d:#?}"
    );
}

// ---------------------------------------------------------------- debug info

fn subprogram(linkage: &str) -> DiSubprogram {
    let file = DiFile {
        name: "k.py".into(),
        directory: "/src".into(),
    };
    DiSubprogram {
        file: file.clone(),
        line: 1,
        name: linkage.into(),
        linkage_name: linkage.into(),
        compile_unit: DiCompileUnit { file },
        scope_line: None,
    }
}

fn di(fx: &mut Fx, line: u32, scope: DiScope) -> LocId {
    let inner = Location::FileLineCol {
        file: "k.py".into(),
        line,
        col: 1,
    };
    fx.m.locs.intern(Location::DiLoc {
        loc: Box::new(inner),
        scope,
    })
}

/// An entry `@k` whose location is `func_loc`, holding one `make_token` at `op_loc`.
fn scoped_entry(func_loc: Option<LocId>, op_loc: Option<LocId>, fx: &mut Fx) {
    let (e, b) = fx.function(CtOp::Entry, "k", &[], &[]);
    if let Some(l) = func_loc {
        fx.m.ops[e].loc = l;
    }
    let t = fx.token();
    let mt = fx.op(b, CudaTileOp::new(CtOp::MakeToken), vec![], &[t]);
    if let Some(l) = op_loc {
        fx.m.ops[mt].loc = l;
    }
    fx.ret(b);
}

#[test]
fn debug_scopes_follow_the_function_subprogram() {
    let sp = DiScope::Subprogram(Box::new(subprogram("k")));
    let block = DiScope::LexicalBlock(Box::new(DiLexicalBlock {
        scope: sp.clone(),
        file: subprogram("k").file,
        line: 3,
        column: Some(2),
    }));

    // Valid: the function's subprogram, an op in a lexical block of it.
    let mut fx = Fx::new();
    let (fl, ol) = (di(&mut fx, 1, sp.clone()), di(&mut fx, 4, block.clone()));
    scoped_entry(Some(fl), Some(ol), &mut fx);
    assert_valid(&fx);

    // Rule 1: a function scope must be a subprogram.
    let mut fx = Fx::new();
    let fl = di(&mut fx, 1, block.clone());
    scoped_entry(Some(fl), None, &mut fx);
    assert_one_error(
        &fx,
        "Function location must have cuda_tile.di_subprogram debug info scope.",
    );

    // Rule 2: the linkage name is the symbol name.
    let mut fx = Fx::new();
    let fl = di(
        &mut fx,
        1,
        DiScope::Subprogram(Box::new(subprogram("other"))),
    );
    scoped_entry(Some(fl), None, &mut fx);
    assert_one_error(
        &fx,
        "Function name \"k\" does not match subprogram scope linkage name \"other\".",
    );

    // Rule 3: no function scope, no op scopes.
    let mut fx = Fx::new();
    let ol = di(&mut fx, 4, sp.clone());
    scoped_entry(None, Some(ol), &mut fx);
    assert_one_error(
        &fx,
        "'cuda_tile.make_token' op invalid operation debug info scope: #cuda_tile.di_subprogram<",
    );
    assert!(fx.errors()[0]
        .ends_with("Operation has debug info scope, but function debug info scope is undefined."));

    // Rule 4: op scopes resolve to the function's subprogram (a plain error).
    let mut fx = Fx::new();
    let fl = di(&mut fx, 1, sp.clone());
    let other = DiScope::Subprogram(Box::new(DiSubprogram {
        line: 9,
        ..subprogram("k")
    }));
    let ol = di(&mut fx, 4, other);
    scoped_entry(Some(fl), Some(ol), &mut fx);
    let errors = fx.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with("k.py:4:1: error: invalid operation debug info scope: "),
        "{errors:#?}"
    );
    assert!(
        errors[0].contains("Operation debug info scope does not match function debug info scope: "),
        "{errors:#?}"
    );

    // Rule 5: globals carry no scope.
    let mut fx = Fx::new();
    global(&mut fx, "g", NumType::F32, &[2], 0);
    let gl = di(&mut fx, 2, sp.clone());
    let g = *fx.m.blocks[fx.body].ops.last().unwrap();
    fx.m.ops[g].loc = gl;
    assert_one_error(&fx, "'cuda_tile.global' op invalid operation debug info scope: #cuda_tile.di_loc<loc(\"k.py\":2:1) in #cuda_tile.di_subprogram<");
    assert!(fx.errors()[0].ends_with("Global variables must not have scope."));

    // Rule 6: a function location is not a call site.
    let mut fx = Fx::new();
    let caller = Location::FileLineCol {
        file: "k.py".into(),
        line: 20,
        col: 1,
    };
    let callee = Location::FileLineCol {
        file: "k.py".into(),
        line: 10,
        col: 1,
    };
    let cs = fx.m.locs.intern(Location::CallSite {
        callee: Box::new(callee),
        caller: Box::new(caller),
    });
    scoped_entry(Some(cs), None, &mut fx);
    assert_one_error(
        &fx,
        "'cuda_tile.entry' op invalid function debug info location: loc(callsite(\"k.py\":10:1 at \"k.py\":20:1)). Function location must not be a CallSiteLoc.",
    );
}

/// Three broken ops: `join_tokens` of one token, an `if` with results but no else, an
/// `alloca` with a bad alignment. `split` puts each in a function of its own.
fn three_broken_ops(split: bool) -> Vec<String> {
    three_broken_ops_with(split, VerifyOptions::default())
}

fn three_broken_ops_with(split: bool, options: VerifyOptions) -> Vec<String> {
    let mut fx = Fx::new();
    let (i1, i32t, t) = (fx.s(NumType::I1), fx.s(NumType::I32), fx.token());
    let (mut b, mut a) = fx.named_func("f1", &[i1, i32t]);
    let t0 = fx.v(b, CudaTileOp::new(CtOp::MakeToken), vec![], t);
    fx.v(b, CudaTileOp::new(CtOp::JoinTokens), vec![t0], t);
    if split {
        fx.ret(b);
        (b, a) = fx.named_func("f2", &[i1, i32t]);
    }
    let (_, then_b, _) = if_op(&mut fx, b, a[0], &[i32t], false);
    fx.term(then_b, CtOp::Yield, vec![a[1]]);
    if split {
        fx.ret(b);
        (b, _) = fx.named_func("f3", &[i1, i32t]);
    }
    let k = CudaTileOp::new(CtOp::Alloca)
        .with("num_elem", Attr::Int(4))
        .with("alignment", Attr::Int(6));
    let p = fx.ptrs(&[], NumType::F32);
    fx.v(b, k, vec![], p);
    fx.ret(b);
    fx.errors_with(options)
}

#[test]
fn each_function_reports_its_first_error() {
    // MLIR verifies functions (isolated from above) independently: one error each.
    let errors = three_broken_ops(true);
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].contains("expect two or more tokens"));
    assert!(errors[1].contains("must define else branch"));
    assert!(errors[2].contains("'alignment' must be power of two"));
    // By default all three failing ops of one function are reported.
    let errors = three_broken_ops(false);
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].contains("expect two or more tokens"));
}

#[test]
fn in_mlir_mode_the_first_failing_op_ends_its_function() {
    let errors = three_broken_ops_with(false, VerifyOptions { stop_at_first_failure: true, ..Default::default() });
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].contains("expect two or more tokens"));
}

#[test]
fn schema_only_ops_reject_wrong_types() {
    // get_tile_block_id, make_token and assert have no rules beyond their type constraints,
    // which the schema-driven checks report.
    let mut fx = Fx::new();
    let (bad_id, f32t, cond) = (
        fx.tile(&[1], NumType::I32),
        fx.s(NumType::F32),
        fx.tile(&[2], NumType::F32),
    );
    let (b, _) = fx.named_func("f1", &[cond]);
    fx.op(
        b,
        CudaTileOp::new(CtOp::GetTileBlockId),
        vec![],
        &[bad_id, bad_id, bad_id],
    );
    fx.ret(b);
    let (b, _) = fx.named_func("f2", &[cond]);
    fx.v(b, CudaTileOp::new(CtOp::MakeToken), vec![], f32t);
    fx.ret(b);
    let (b, a) = fx.named_func("f3", &[cond]);
    fx.op(
        b,
        CudaTileOp::new(CtOp::Assert).with("message", Attr::Str("m".into())),
        vec![a[0]],
        &[],
    );
    fx.ret(b);
    let errors = fx.errors();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].contains("'cuda_tile.get_tile_block_id' op result #0 must be 0D tile of i32 values, but got '!cuda_tile.tile<1xi32>'"), "{errors:#?}");
    assert!(
        errors[1].contains("'cuda_tile.make_token' op result #0 must be"),
        "{errors:#?}"
    );
    assert!(
        errors[2].contains("'cuda_tile.assert' op operand #0 must be"),
        "{errors:#?}"
    );
}
