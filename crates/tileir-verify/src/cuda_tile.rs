//! Per-op rules of cuda_tile.

use crate::Ctx;
use tileir_ir::{
    AssumePredicate, CtOp, CudaTileOp, Dim, FloatArith, MemoryOrdering, NumType, OpId, RoundingMode, TileElem, Type,
    ValueId,
};

use crate::counts;

/// Rank-0 integer tile?
fn scalar_int(cx: &Ctx<'_>, v: ValueId) -> bool {
    matches!(cx.m.types.get(cx.m.value_type(v)), Type::Tile { shape, elem: TileElem::Num(n), .. } if shape.is_empty() && n.is_int())
}

/// Ordering/scope rules of a load (`weak`, `relaxed`, `acquire`) or store (`weak`,
/// `relaxed`, `release`): weak takes no scope, the others require one.
pub(crate) fn verify_access_ordering(cx: &mut Ctx<'_>, op: OpId, ordering: MemoryOrdering, has_scope: bool, is_load: bool) {
    let allowed: &[MemoryOrdering] = if is_load {
        &[MemoryOrdering::Weak, MemoryOrdering::Relaxed, MemoryOrdering::Acquire]
    } else {
        &[MemoryOrdering::Weak, MemoryOrdering::Relaxed, MemoryOrdering::Release]
    };
    if !allowed.contains(&ordering) {
        let list: Vec<&str> = allowed.iter().map(|o| o.keyword()).collect();
        cx.op_error(op, format!("memory ordering '{ordering}' is not allowed here; expected one of: {}", list.join(", ")));
    }
    if ordering == MemoryOrdering::Weak && has_scope {
        cx.op_error(op, "weak memory ordering must not carry a scope");
    }
    if ordering != MemoryOrdering::Weak && !has_scope {
        cx.op_error(op, format!("memory ordering '{ordering}' requires a memory scope"));
    }
}

pub(crate) fn verify_float_arith(cx: &mut Ctx<'_>, op: OpId, f: &FloatArith) {
    if !counts(cx, op, 2, 1) {
        return;
    }
    let d = cx.m.ops[op].clone();
    let (a, b, r) = (d.operands[0], d.operands[1], d.results[0]);
    let (ta, tb, tr) = (cx.m.value_type(a), cx.m.value_type(b), cx.m.value_type(r));
    if ta != tb || ta != tr {
        cx.op_error(
            op,
            format!("requires all operands and the result to have the same type, got {}, {} -> {}", cx.vty(a), cx.vty(b), cx.vty(r)),
        );
        return;
    }
    let elem = match cx.m.types.get(ta) {
        Type::Tile { elem: TileElem::Num(n), .. } if n.is_base_float() => *n,
        Type::Scalar(n) if n.is_base_float() => *n,
        _ => {
            cx.op_error(op, format!("operands must be tiles of f16, bf16, f32 or f64, got {}", cx.vty(a)));
            return;
        }
    };
    let ieee = [RoundingMode::NearestEven, RoundingMode::Zero, RoundingMode::NegativeInf, RoundingMode::PositiveInf];
    if !ieee.contains(&f.rounding) {
        cx.op_error(op, format!("rounding mode '{}' is not allowed; expected nearest_even, zero, negative_inf or positive_inf", f.rounding));
    }
    if f.flush_to_zero && elem != NumType::F32 {
        cx.op_error(op, format!("flush_to_zero is only supported for f32, got {elem}"));
    }
}

/// Runs every rule of the cuda_tile op `op`: the schema-derived (ODS) checks first, then the
/// op's own rules. The match is exhaustive so a new op cannot be forgotten.
pub(crate) fn verify_op(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    if !crate::ods::verify(cx, op, kind) {
        return;
    }
    use CtOp::*;
    match kind.op {
        AbsI | AddI | SubI | MulI | MulHiI | DivI | RemI | NegI | MaxI | MinI | ShlI | ShrI | AndI | OrI | XOrI | CmpI
        | AbsF | DivF | RemF | NegF | MaxF | MinF | Fma | CmpF | Ceil | Floor | Cos | CosH | Sin | SinH | Tan | TanH
        | Exp | Exp2 | Log | Log2 | Pow | Sqrt | Rsqrt | Atan2 | Bitcast | ExtI | TruncI | FToF | FToI | IToF
        | IntToPtr | PtrToInt | PtrToPtr => crate::arith::verify(cx, op, kind),
        Constant | Iota | Broadcast | Reshape | Permute | Cat | Extract | Select | Offset | Pack | Unpack | MmaF
        | MmaI | MmaFScaled | Reduce | Scan => crate::shape::verify(cx, op, kind),
        MakeTensorView | MakePartitionView | MakeStridedView | MakeGatherScatterView | GetTensorShape
        | GetIndexSpaceShape | LoadViewTko | StoreViewTko | LoadPtrTko | StorePtrTko | Alloca | MakeToken
        | JoinTokens | AtomicCasTko | AtomicRmwTko | AtomicRedViewTko => crate::memory::verify(cx, op, kind),
        If | For | Loop | Yield | Continue | Break | Return => crate::control::verify(cx, op, kind),
        Module | Entry | TestingFunc | Global | GetGlobal | GetTileBlockId | GetNumTileBlocks | Assume | Assert
        | PrintTko => crate::module_ops::verify(cx, op, kind),
        AddF | SubF | MulF => {}
    }
    legacy_rules(cx, op, kind);
}

/// Rules written before the schema existed, for the ops the vertical slice uses; they move
/// into the per-group modules.
fn legacy_rules(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let m = cx.m;
    let d = m.ops[op].clone();
    let parent_op = d.parent.and_then(|b| m.parent_op_of_block(b));
    match kind.op {
        CtOp::Module => {
            let sym_name = kind.str("sym_name").unwrap_or_default();
            if sym_name.is_empty() {
                cx.op_error(op, "requires a symbol name");
            }
            if parent_op.is_some() {
                cx.op_error(op, "must be at the top level");
            }
            counts(cx, op, 0, 0);
        }
        CtOp::Entry => {
            let sym_name = kind.str("sym_name").unwrap_or_default();
            let Some(tileir_ir::Attr::Type(function_type)) = kind.get("function_type") else {
                cx.op_error(op, "requires a function type");
                return;
            };
            counts(cx, op, 0, 0);
            if sym_name.is_empty() {
                cx.op_error(op, "requires a symbol name");
            }
            if parent_op.and_then(|p| m.ops[p].kind.ct()) != Some(CtOp::Module) {
                cx.op_error(op, "must be inside a cuda_tile.module");
            }
            match m.types.try_get(*function_type) {
                Some(Type::Function { inputs, results }) => {
                    if !results.is_empty() {
                        cx.op_error(op, format!("kernels return nothing, but the function type has {} result(s)", results.len()));
                    }
                    if let Some(block) = m.entry_block(op, 0) {
                        let args = &m.blocks[block].args;
                        if args.len() != inputs.len() {
                            cx.op_error(op, format!("has {} block argument(s) but the function type has {} input(s)", args.len(), inputs.len()));
                        }
                        for (i, (&a, &t)) in args.iter().zip(inputs.iter()).enumerate() {
                            if m.value_type(a) != t {
                                cx.op_error(op, format!("argument #{i} has type {} but the function type says {}", cx.vty(a), m.types.display(t, true)));
                            }
                            if let Type::Tile { shape, .. } = m.types.get(t) {
                                if !shape.is_empty() {
                                    cx.op_error(op, format!("argument #{i} must be a scalar tile (rank 0), got {}", m.types.display(t, true)));
                                }
                            }
                        }
                    }
                }
                _ => cx.op_error(op, "requires a function type"),
            }
        }
        CtOp::Return => {
            if parent_op.and_then(|p| m.ops[p].kind.ct()) != Some(CtOp::Entry) {
                cx.op_error(op, "must be the terminator of an entry");
            }
            if !d.operands.is_empty() {
                cx.op_error(op, format!("in an entry takes no operands, got {}", d.operands.len()));
            }
        }
        CtOp::MakeToken => {
            if counts(cx, op, 0, 1) && !matches!(m.types.get(m.value_type(d.results[0])), Type::Token) {
                cx.op_error(op, format!("result must be a token, got {}", cx.vty(d.results[0])));
            }
        }
        CtOp::GetTileBlockId | CtOp::GetNumTileBlocks => {
            if counts(cx, op, 0, 3) {
                for (i, &r) in d.results.iter().enumerate() {
                    if !matches!(m.types.get(m.value_type(r)), Type::Tile { shape, elem: TileElem::Num(NumType::I32), .. } if shape.is_empty()) {
                        cx.op_error(op, format!("result #{i} must be tile<i32>, got {}", cx.vty(r)));
                    }
                }
            }
        }
        CtOp::Assume => {
            let Some(predicate) = kind.predicate() else {
                cx.op_error(op, "requires a predicate");
                return;
            };
            if !counts(cx, op, 1, 1) {
                return;
            }
            let (v, r) = (d.operands[0], d.results[0]);
            if m.value_type(v) != m.value_type(r) {
                cx.op_error(op, format!("result type {} must equal the operand type {}", cx.vty(r), cx.vty(v)));
            }
            let ty = m.types.get(m.value_type(v)).clone();
            match predicate {
                AssumePredicate::DivBy { divisor: n, .. } => {
                    if *n == 0 || !n.is_power_of_two() || *n > (1u64 << 62) {
                        cx.op_error(op, format!("div_by divisor must be a power of two no larger than 2^62, got {n}"));
                    }
                    let ok = matches!(ty, Type::TensorView(_))
                        || matches!(&ty, Type::Tile { elem: TileElem::Ptr(_), .. })
                        || matches!(&ty, Type::Tile { elem: TileElem::Num(e), .. } if e.is_int());
                    if !ok {
                        cx.op_error(op, format!("div_by applies to integer or pointer tiles and tensor views, got {}", cx.vty(v)));
                    }
                }
                AssumePredicate::Bounded(lb, ub) => match &ty {
                    Type::Tile { elem: TileElem::Num(e), .. } if e.is_int() => {
                        if let (Some(l), Some(u)) = (lb, ub) {
                            if l > u {
                                cx.op_error(op, format!("bounded lower bound {l} exceeds upper bound {u}"));
                            }
                        }
                    }
                    _ => cx.op_error(op, format!("bounded applies to integer tiles, got {}", cx.vty(v))),
                },
                AssumePredicate::SameElements(_) => {}
            }
        }
        CtOp::MakeTensorView => {
            if kind.segments.len() != 3 {
                cx.op_error(op, "requires operandSegmentSizes with 3 entries");
                return;
            }
            let (num_dyn_shape, num_dyn_strides) = (&kind.segments[1], &kind.segments[2]);
            let expected = 1 + (*num_dyn_shape + *num_dyn_strides) as usize;
            if !counts(cx, op, expected, 1) {
                return;
            }
            let r = d.results[0];
            let Type::TensorView(tv) = m.types.get(m.value_type(r)).clone() else {
                cx.op_error(op, format!("result must be a tensor_view, got {}", cx.vty(r)));
                return;
            };
            let base = d.operands[0];
            match m.types.get(m.value_type(base)) {
                Type::Tile { shape, elem: TileElem::Ptr(p), .. } if shape.is_empty() => {
                    if *p != tv.elem {
                        cx.op_error(op, format!("base pointer element type {p} does not match the view element type {}", tv.elem));
                    }
                }
                _ => cx.op_error(op, format!("base must be a scalar pointer tile, got {}", cx.vty(base))),
            }
            let dyn_shape = tv.shape.iter().filter(|d| **d == Dim::Dynamic).count();
            let dyn_strides = tv.strides.iter().filter(|d| **d == Dim::Dynamic).count();
            if dyn_shape != *num_dyn_shape as usize {
                cx.op_error(op, format!("has {num_dyn_shape} dynamic size operand(s) but the type has {dyn_shape} dynamic size(s)"));
            }
            if dyn_strides != *num_dyn_strides as usize {
                cx.op_error(op, format!("has {num_dyn_strides} dynamic stride operand(s) but the type has {dyn_strides} dynamic stride(s)"));
            }
            let dynamic = &d.operands[1..];
            if let Some(&first) = dynamic.first() {
                for (i, &v) in dynamic.iter().enumerate() {
                    if !scalar_int(cx, v) {
                        cx.op_error(op, format!("dynamic size/stride operand #{} must be a scalar integer tile, got {}", i + 1, cx.vty(v)));
                    } else if m.value_type(v) != m.value_type(first) {
                        cx.op_error(op, format!("dynamic size/stride operands must share one type: {} vs {}", cx.vty(first), cx.vty(v)));
                    }
                }
            }
        }
        CtOp::MakePartitionView => {
            if !counts(cx, op, 1, 1) {
                return;
            }
            let (src, r) = (d.operands[0], d.results[0]);
            let Type::PartitionView(pv) = m.types.get(m.value_type(r)).clone() else {
                cx.op_error(op, format!("result must be a partition_view, got {}", cx.vty(r)));
                return;
            };
            if m.value_type(src) != pv.tensor_view {
                cx.op_error(op, format!("operand type {} does not match the view's tensor_view {}", cx.vty(src), m.types.display(pv.tensor_view, true)));
                return;
            }
            let Type::TensorView(tv) = m.types.get(pv.tensor_view).clone() else { return };
            let rank = tv.shape.len();
            if pv.tile_shape.is_empty() {
                cx.op_error(op, "0-d partition views are not supported");
            }
            if pv.tile_shape.len() != rank {
                cx.op_error(op, format!("tile rank {} does not match the tensor rank {rank}", pv.tile_shape.len()));
            }
            for &t in &pv.tile_shape {
                if t <= 0 || (t & (t - 1)) != 0 || t > i32::MAX as i64 {
                    cx.op_error(op, format!("tile dimension {t} must be a positive power of two that fits i32"));
                }
            }
            if !pv.dim_map.is_empty() {
                let mut seen = vec![false; rank];
                if pv.dim_map.len() != rank {
                    cx.op_error(op, format!("dim_map has {} entries, expected {rank}", pv.dim_map.len()));
                }
                for &dm in &pv.dim_map {
                    if dm < 0 || dm as usize >= rank || seen[dm as usize] {
                        cx.op_error(op, format!("dim_map entry {dm} is out of range or repeated"));
                    } else {
                        seen[dm as usize] = true;
                    }
                }
            }
            if let Some(p) = pv.padding {
                if p != tileir_ir::PaddingValue::Zero && !tv.elem.is_float() {
                    cx.op_error(op, format!("padding value '{}' requires a floating-point element type, got {}", p.keyword(), tv.elem));
                }
            }
        }
        CtOp::LoadViewTko => verify_view_access(cx, op, kind, true),
        CtOp::StoreViewTko => verify_view_access(cx, op, kind, false),
        CtOp::AddF | CtOp::SubF | CtOp::MulF => verify_float_arith(cx, op, &FloatArith::of(kind)),
        // Rules for the remaining ops arrive with the full verifier.
        _ => {}
    }
}

/// Ordering, scope and operand layout of a view load/store.
struct ViewAccess {
    ordering: MemoryOrdering,
    scope: bool,
    num_indices: u32,
    has_token: bool,
}

fn verify_view_access(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp, is_load: bool) {
    let m = cx.m;
    let d = m.ops[op].clone();
    let leading = if is_load { 1 } else { 2 };
    if kind.segments.len() != leading + 2 {
        cx.op_error(op, format!("requires operandSegmentSizes with {} entries", leading + 2));
        return;
    }
    let a = ViewAccess {
        ordering: kind.enum_attr("memory_ordering_semantics").unwrap_or(MemoryOrdering::Weak),
        scope: kind.get("memory_scope").is_some(),
        num_indices: kind.segments[leading],
        has_token: kind.segments[leading + 1] > 0,
    };
    let expected = leading + a.num_indices as usize + a.has_token as usize;
    if !counts(cx, op, expected, if is_load { 2 } else { 1 }) {
        return;
    }
    verify_access_ordering(cx, op, a.ordering, a.scope, is_load);
    let view = d.operands[leading - 1];
    let Type::PartitionView(pv) = m.types.get(m.value_type(view)).clone() else {
        cx.op_error(op, format!("view operand must be a partition_view, got {}", cx.vty(view)));
        return;
    };
    let Type::TensorView(tv) = m.types.get(pv.tensor_view).clone() else { return };
    if a.num_indices as usize != tv.shape.len() {
        cx.op_error(op, format!("expects {} index operand(s) (the view's rank), got {}", tv.shape.len(), a.num_indices));
    }
    let indices = &d.operands[leading..leading + a.num_indices as usize];
    for (i, &v) in indices.iter().enumerate() {
        if !scalar_int(cx, v) {
            cx.op_error(op, format!("index #{i} must be a scalar integer tile, got {}", cx.vty(v)));
        }
    }
    if a.has_token {
        let t = d.operands[expected - 1];
        if !matches!(m.types.get(m.value_type(t)), Type::Token) {
            cx.op_error(op, format!("token operand must be a token, got {}", cx.vty(t)));
        }
    }
    let tile_shape = pv.tile_shape.clone();
    let tile_value = if is_load { d.results[0] } else { d.operands[0] };
    let matches_view = matches!(m.types.get(m.value_type(tile_value)),
        Type::Tile { shape, elem: TileElem::Num(e), .. } if *shape == tile_shape && *e == tv.elem);
    if !matches_view {
        let dims: Vec<String> = tile_shape.iter().map(|d| d.to_string()).collect();
        cx.op_error(
            op,
            format!(
                "{} type {} does not match the view's tile type tile<{}x{}>",
                if is_load { "result" } else { "stored tile" },
                cx.vty(tile_value),
                dims.join("x"),
                tv.elem
            ),
        );
    }
    let token_result = if is_load { d.results[1] } else { d.results[0] };
    if !matches!(m.types.get(m.value_type(token_result)), Type::Token) {
        cx.op_error(op, format!("token result must be a token, got {}", cx.vty(token_result)));
    }
}
