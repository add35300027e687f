//! Test modules built with the IR API.

use super::*;
use tileir_ir::dialect::cuda_tile::AssumePredicate;
use tileir_ir::*;

/// A vector-add style kernel using only 13.1 features, plus a global.
pub fn kernel_13_1() -> Module {
    let mut b = Build::new();
    let f32t = b.tile(&[], NumType::F32);
    let i32t = b.tile(&[], NumType::I32);
    let i1t = b.tile(&[], NumType::I1);
    let pf32 = b.ptr_tile(&[], NumType::F32);
    let t128 = b.tile(&[128], NumType::F32);
    let tok = b.m.types.token();
    b.global(
        "lut",
        dense(
            NumType::F32,
            &[4],
            &[0, 0x3F80_0000, 0x4000_0000, 0x4040_0000],
        ),
        &[("alignment", Attr::Int(128))],
    );
    let (e, args) = b.entry("vadd", &[pf32, pf32, pf32, i32t], None);
    let (pa, pb, n) = (args[0], args[1], args[3]);
    let a = b.val(
        e,
        CudaTileOp::new(CtOp::Assume).with("predicate", Attr::Assume(AssumePredicate::div_by(16))),
        &[pa],
        pf32,
    );
    let n2 = b.val(
        e,
        CudaTileOp::new(CtOp::Assume).with(
            "predicate",
            Attr::Assume(AssumePredicate::Bounded(Some(0), None)),
        ),
        &[n],
        i32t,
    );
    let bid_op = b.op(
        e,
        CudaTileOp::new(CtOp::GetTileBlockId),
        &[],
        &[i32t, i32t, i32t],
    );
    let bid = b.m.ops[bid_op].results[0];
    let tv_t = b.ty(Type::TensorView(TensorViewType {
        elem: NumType::F32,
        shape: vec![Dim::Static(1024)],
        strides: vec![Dim::Static(1)],
    }));
    let tv = b.val(
        e,
        CudaTileOp::new(CtOp::MakeTensorView).with_segments(&[1, 0, 0]),
        &[a],
        tv_t,
    );
    let dyn_t = b.ty(Type::TensorView(TensorViewType {
        elem: NumType::F32,
        shape: vec![Dim::Dynamic],
        strides: vec![Dim::Static(1)],
    }));
    let _dyn_tv = b.val(
        e,
        CudaTileOp::new(CtOp::MakeTensorView).with_segments(&[1, 1, 0]),
        &[pb, n2],
        dyn_t,
    );
    let pv_t = b.ty(Type::PartitionView(PartitionViewType {
        tile_shape: vec![128],
        tensor_view: tv_t,
        dim_map: vec![0],
        padding: Some(PaddingValue::Zero),
    }));
    let pv = b.val(e, CudaTileOp::new(CtOp::MakePartitionView), &[tv], pv_t);
    let load = b.op(
        e,
        CudaTileOp::new(CtOp::LoadViewTko)
            .with(
                "memory_ordering_semantics",
                en("memory_ordering_semantics", "weak"),
            )
            .with_segments(&[1, 1, 0]),
        &[pv, bid],
        &[t128, tok],
    );
    let (x, t0) = (b.m.ops[load].results[0], b.m.ops[load].results[1]);
    let one = b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(dense(NumType::F32, &[128], &[0x3F80_0000])),
        ),
        &[],
        t128,
    );
    let i4t = b.tile(&[4], NumType::I32);
    let iota = b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(dense(NumType::I32, &[4], &[0, 1, 2, 0xFFFF_FFFF])),
        ),
        &[],
        i4t,
    );
    let _ = b.val(
        e,
        CudaTileOp::new(CtOp::Assume).with(
            "predicate",
            Attr::Assume(AssumePredicate::DivBy {
                divisor: 8,
                every_along: Some((4, 0)),
            }),
        ),
        &[iota],
        i4t,
    );
    let b4 = b.tile(&[4], NumType::I1);
    let _mask = b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(dense(NumType::I1, &[4], &[1, 0, 1, 1])),
        ),
        &[],
        b4,
    );
    let f16t = b.tile(&[2], NumType::F16);
    let _h = b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(dense(NumType::F16, &[2], &[0x3C00, 0xC000])),
        ),
        &[],
        f16t,
    );
    let sum = b.val(
        e,
        CudaTileOp::new(CtOp::AddF)
            .with("rounding_mode", en("rounding", "zero"))
            .with("flush_to_zero", Attr::Unit),
        &[x, one],
        t128,
    );
    let hints = Attr::Dict(vec![(
        "sm_100".into(),
        Attr::Dict(vec![
            ("latency".into(), Attr::Int(3)),
            ("allow_tma".into(), Attr::Bool(false)),
        ]),
    )]);
    let _t1 = b.val(
        e,
        CudaTileOp::new(CtOp::StoreViewTko)
            .with(
                "memory_ordering_semantics",
                en("memory_ordering_semantics", "relaxed"),
            )
            .with("memory_scope", en("memory_scope", "device"))
            .with("optimization_hints", hints)
            .with_segments(&[1, 1, 1, 1]),
        &[sum, pv, bid, t0],
        tok,
    );
    // for %iv in (0 to n, step 1) iter_values(%acc = %x)
    let c0 = b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(dense(NumType::I32, &[], &[0]))),
        &[],
        i32t,
    );
    let c1 = b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(dense(NumType::I32, &[], &[1]))),
        &[],
        i32t,
    );
    let for_op = b.op(e, CudaTileOp::new(CtOp::For), &[c0, n2, c1, x], &[t128]);
    let (fb, fargs) = b.block(for_op, 0, &[i32t, t128]);
    let acc2 = b.val(fb, CudaTileOp::new(CtOp::AddF), &[fargs[1], fargs[1]], t128);
    b.op(fb, CudaTileOp::new(CtOp::Continue), &[acc2], &[]);
    let looped = b.m.ops[for_op].results[0];
    // if (bid < n) { yield looped } else { yield one }
    let cond = b.val(
        e,
        CudaTileOp::new(CtOp::CmpI)
            .with(
                "comparison_predicate",
                en("comparison_predicate", "less_than"),
            )
            .with("signedness", en("signedness", "signed")),
        &[bid, n2],
        i1t,
    );
    let if_op = b.op(e, CudaTileOp::new(CtOp::If), &[cond], &[t128]);
    let (tb, _) = b.block(if_op, 0, &[]);
    b.op(tb, CudaTileOp::new(CtOp::Yield), &[looped], &[]);
    let (eb, _) = b.block(if_op, 1, &[]);
    b.op(eb, CudaTileOp::new(CtOp::Yield), &[one], &[]);
    let chosen = b.m.ops[if_op].results[0];
    // reduce
    let red = b.op(
        e,
        CudaTileOp::new(CtOp::Reduce)
            .with("dim", Attr::Int(0))
            .with(
                "identities",
                Attr::Array(vec![Attr::Scalar(NumType::F32, 0)]),
            ),
        &[chosen],
        &[f32t],
    );
    let (rb, rargs) = b.block(red, 0, &[f32t, f32t]);
    let s = b.val(rb, CudaTileOp::new(CtOp::AddF), &[rargs[0], rargs[1]], f32t);
    b.op(rb, CudaTileOp::new(CtOp::Yield), &[s], &[]);
    let r = b.m.ops[red].results[0];
    // print, an if without else, a loop with break
    b.op(
        e,
        CudaTileOp::new(CtOp::PrintTko)
            .with("str", Attr::Str("sum %f".into()))
            .with_segments(&[1, 0]),
        &[r],
        // No token operand (13.1's print); the unused token result is not stored in a
        // 13.1 file and comes back when read, as in NVIDIA 13.3.
        &[tok],
    );
    let if2 = b.op(e, CudaTileOp::new(CtOp::If), &[cond], &[]);
    let (tb2, _) = b.block(if2, 0, &[]);
    b.op(
        tb2,
        CudaTileOp::new(CtOp::Assert).with("message", Attr::Str("bad".into())),
        &[cond],
        &[],
    );
    b.op(tb2, CudaTileOp::new(CtOp::Yield), &[], &[]);
    let lp = b.op(e, CudaTileOp::new(CtOp::Loop), &[r], &[f32t]);
    let (lb, largs) = b.block(lp, 0, &[f32t]);
    b.op(lb, CudaTileOp::new(CtOp::Break), &[largs[0]], &[]);
    let pg = b.ptr_tile(&[], NumType::F32);
    b.val(
        e,
        CudaTileOp::new(CtOp::GetGlobal).with("name", Attr::Symbol("lut".into())),
        &[],
        pg,
    );
    let perm_t = b.tile(&[4, 2], NumType::F32);
    let src_t = b.tile(&[2, 4], NumType::F32);
    let src = b.val(
        e,
        CudaTileOp::new(CtOp::Constant)
            .with("value", Attr::Dense(dense(NumType::F32, &[2, 4], &[0]))),
        &[],
        src_t,
    );
    b.val(
        e,
        CudaTileOp::new(CtOp::Permute).with("permutation", Attr::IntArray(vec![1, 0])),
        &[src],
        perm_t,
    );
    let row_t = b.tile(&[1, 4], NumType::F32);
    b.val(e, CudaTileOp::new(CtOp::Extract), &[src, bid, bid], row_t);
    b.ret(e);

    // A second kernel with entry hints and no arguments.
    let hints = Attr::Dict(vec![(
        "sm_90".into(),
        Attr::Dict(vec![(
            "num_cta_in_cga".into(),
            Attr::Scalar(NumType::I32, 2),
        )]),
    )]);
    let (e2, _) = b.entry("empty", &[], Some(hints));
    b.ret(e2);
    b.m
}

/// A kernel exercising what only 13.2 and 13.3 can encode.
pub fn kernel_13_3() -> Module {
    let mut b = Build::new();
    let mop = b.module_op();
    b.m.ops[mop].kind = OpKind::CudaTile(
        CudaTileOp::new(CtOp::Module)
            .with("sym_name", Attr::Str("kernels".into()))
            .with("producer", Attr::Str("tileir-test".into())),
    );
    let tok = b.m.types.token();
    let f32t = b.tile(&[], NumType::F32);
    let i32t = b.tile(&[], NumType::I32);
    let pf32 = b.ptr_tile(&[], NumType::F32);
    b.global(
        "table",
        dense(NumType::I32, &[2], &[7, 9]),
        &[
            ("constant", Attr::Unit),
            ("symbol_visibility", en("symbol_visibility", "private")),
        ],
    );
    let (e, args) = b.entry("new_features", &[f32t, pf32, i32t], None);
    let (x, p, n) = (args[0], args[1], args[2]);
    b.val(e, CudaTileOp::new(CtOp::Atan2), &[x, x], f32t);
    b.val(
        e,
        CudaTileOp::new(CtOp::Exp).with("rounding_mode", en("rounding", "approx")),
        &[x],
        f32t,
    );
    b.val(
        e,
        CudaTileOp::new(CtOp::NegI).with("overflow", en("overflow", "no_wrap")),
        &[n],
        i32t,
    );
    let e8 = b.tile(&[2], NumType::F8E8M0FNU);
    b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(dense(NumType::F8E8M0FNU, &[2], &[0x7F, 0x80])),
        ),
        &[],
        e8,
    );
    let i8t = b.tile(&[4], NumType::I8);
    let i4t = b.tile(&[4], NumType::I4);
    let c8 = b.val(
        e,
        CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(dense(NumType::I8, &[4], &[1, 2, 3, 4])),
        ),
        &[],
        i8t,
    );
    b.val(e, CudaTileOp::new(CtOp::TruncI), &[c8], i4t);
    let m16 = b.tile(&[16, 16], NumType::F32);
    let z = b.val(
        e,
        CudaTileOp::new(CtOp::Constant)
            .with("value", Attr::Dense(dense(NumType::F32, &[16, 16], &[0]))),
        &[],
        m16,
    );
    b.val(
        e,
        CudaTileOp::new(CtOp::MmaF).with("fast_acc", Attr::Unit),
        &[z, z, z],
        m16,
    );
    let tv_t = b.ty(Type::TensorView(TensorViewType {
        elem: NumType::F32,
        shape: vec![Dim::Static(64), Dim::Dynamic],
        strides: vec![Dim::Dynamic, Dim::Static(1)],
    }));
    let tv = b.val(
        e,
        CudaTileOp::new(CtOp::MakeTensorView).with_segments(&[1, 1, 1]),
        &[p, n, n],
        tv_t,
    );
    let sv_t = b.ty(Type::StridedView(tileir_ir::types::StridedViewType {
        tile_shape: vec![4, 8],
        traversal_strides: vec![2, 8],
        tensor_view: tv_t,
        dim_map: vec![1, 0],
        padding: Some(PaddingValue::Nan),
    }));
    b.val(e, CudaTileOp::new(CtOp::MakeStridedView), &[tv], sv_t);
    let gv_t = b.ty(Type::GatherScatterView(
        tileir_ir::types::GatherScatterViewType {
            tile_shape: vec![4, 8],
            tensor_view: tv_t,
            sparse_dim: 0,
            padding: None,
        },
    ));
    b.val(e, CudaTileOp::new(CtOp::MakeGatherScatterView), &[tv], gv_t);
    let pv_t = b.ty(Type::PartitionView(PartitionViewType {
        tile_shape: vec![4, 8],
        tensor_view: tv_t,
        dim_map: vec![0, 1],
        padding: None,
    }));
    b.val(e, CudaTileOp::new(CtOp::MakePartitionView), &[tv], pv_t);
    let for_op = b.op(
        e,
        CudaTileOp::new(CtOp::For).with("unsignedCmp", Attr::Unit),
        &[n, n, n],
        &[],
    );
    let (fb, _) = b.block(for_op, 0, &[i32t]);
    b.op(fb, CudaTileOp::new(CtOp::Continue), &[], &[]);
    let t0 = b.val(e, CudaTileOp::new(CtOp::MakeToken), &[], tok);
    let pr = b.op(
        e,
        CudaTileOp::new(CtOp::PrintTko)
            .with("str", Attr::Str("x=%f".into()))
            .with_segments(&[1, 1]),
        &[x, t0],
        &[tok],
    );
    let t1 = b.m.ops[pr].results[0];
    b.val(e, CudaTileOp::new(CtOp::JoinTokens), &[t0, t1], tok);
    b.val(
        e,
        CudaTileOp::new(CtOp::Alloca)
            .with("num_elem", Attr::Int(16))
            .with("alignment", Attr::Int(16))
            .with("global", Attr::Unit),
        &[],
        pf32,
    );
    b.ret(e);
    b.m
}
