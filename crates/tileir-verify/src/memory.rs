//! Per-op rules of cuda_tile (memory group, §3.8–3.10 and the view-index rules of §1.2):
//! view construction and queries, view and pointer loads/stores, `alloca`, tokens and
//! atomics.
//!
//! The schema-driven checks (operand/result counts, per-group type constraints) run
//! before these, so operands are where their groups say; every access is still guarded
//! so that malformed IR never panics.

use crate::Ctx;
use tileir_ir::{
    AtomicRmwMode, CtOp, CudaTileOp, Dim, MemoryOrdering, MemoryScope, NumType, OpId, TileElem,
    Type, TypeId, ValueId,
};

pub(crate) fn verify(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    match kind.op {
        CtOp::MakeTensorView => verify_make_tensor_view(cx, op, kind),
        CtOp::MakePartitionView | CtOp::MakeStridedView | CtOp::MakeGatherScatterView => {
            verify_make_view(cx, op)
        }
        CtOp::GetTensorShape => verify_get_tensor_shape(cx, op),
        CtOp::GetIndexSpaceShape => verify_get_index_space_shape(cx, op),
        CtOp::LoadViewTko => verify_view_access(cx, op, kind, true),
        CtOp::StoreViewTko => verify_view_access(cx, op, kind, false),
        CtOp::LoadPtrTko => verify_load_ptr(cx, op, kind),
        CtOp::StorePtrTko => verify_store_ptr(cx, op, kind),
        CtOp::Alloca => verify_alloca(cx, op, kind),
        CtOp::JoinTokens if cx.m.ops[op].operands.len() < 2 => {
            cx.op_error(op, "expect two or more tokens")
        }
        // Result type (token) is the schema's business; nothing else to check.
        CtOp::MakeToken => {}
        CtOp::AtomicCasTko => verify_atomic_cas(cx, op, kind),
        CtOp::AtomicRmwTko => verify_atomic_rmw(cx, op, kind),
        CtOp::AtomicRedViewTko => verify_atomic_red_view(cx, op, kind),
        _ => {}
    }
}

/// What loads and stores need to know about a tile view type.
struct ViewInfo {
    /// Number of index operands (the tile rank).
    index_rank: usize,
    /// Shape of the tile one access moves.
    tile_shape: Vec<i64>,
    /// Element type of the viewed tensor.
    elem: NumType,
    /// `Some(d)` for a gather/scatter view gathering along `d`.
    sparse_dim: Option<i64>,
    /// Whether the view declares a padding value.
    padded: bool,
}

fn view_info(cx: &Ctx<'_>, t: TypeId) -> Option<ViewInfo> {
    let types = &cx.m.types;
    let elem_of = |tv: TypeId| match types.try_get(tv) {
        Some(Type::TensorView(tv)) => Some(tv.elem),
        _ => None,
    };
    match types.try_get(t)? {
        Type::PartitionView(pv) => Some(ViewInfo {
            index_rank: pv.tile_shape.len(),
            tile_shape: pv.tile_shape.clone(),
            elem: elem_of(pv.tensor_view)?,
            sparse_dim: None,
            padded: pv.padding.is_some(),
        }),
        Type::StridedView(sv) => Some(ViewInfo {
            index_rank: sv.tile_shape.len(),
            tile_shape: sv.tile_shape.clone(),
            elem: elem_of(sv.tensor_view)?,
            sparse_dim: None,
            padded: sv.padding.is_some(),
        }),
        Type::GatherScatterView(gv) => Some(ViewInfo {
            index_rank: gv.tile_shape.len(),
            tile_shape: gv.tile_shape.clone(),
            elem: elem_of(gv.tensor_view)?,
            sparse_dim: Some(gv.sparse_dim),
            padded: gv.padding.is_some(),
        }),
        _ => None,
    }
}

/// Operands of group `name` (empty when the groups cannot be split).
fn group(cx: &Ctx<'_>, op: OpId, kind: &CudaTileOp, name: &str) -> Vec<ValueId> {
    let d = &cx.m.ops[op];
    kind.group(name, d.operands.len())
        .and_then(|r| d.operands.get(r))
        .map(<[ValueId]>::to_vec)
        .unwrap_or_default()
}

/// The single operand of group `name`, if present.
fn one(cx: &Ctx<'_>, op: OpId, kind: &CudaTileOp, name: &str) -> Option<ValueId> {
    group(cx, op, kind, name).first().copied()
}

/// Shape and element of a tile value.
fn tile_of(cx: &Ctx<'_>, v: ValueId) -> Option<(Vec<i64>, TileElem)> {
    match cx.type_of(v) {
        Type::Tile { shape, elem, .. } => Some((shape.clone(), *elem)),
        _ => None,
    }
}

fn join_dims(dims: &[i64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn verify_make_tensor_view(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let Some(&r) = cx.m.ops[op].results.first() else {
        return;
    };
    let Type::TensorView(tv) = cx.type_of(r) else {
        return;
    };
    let Some(base) = one(cx, op, kind, "base") else {
        return;
    };
    if let Some((_, TileElem::Ptr(pointee))) = tile_of(cx, base) {
        if pointee != tv.elem {
            cx.op_error(
                op,
                format!(
                    "expected pointer to '{}' to build tensor_view of this type, got '{pointee}'",
                    tv.elem
                ),
            );
            return;
        }
    }
    let shape = group(cx, op, kind, "dynamicShape");
    let strides = group(cx, op, kind, "dynamicStrides");
    let dyn_shape = tv.shape.iter().filter(|d| **d == Dim::Dynamic).count();
    let dyn_strides = tv.strides.iter().filter(|d| **d == Dim::Dynamic).count();
    if dyn_shape != shape.len() {
        cx.op_error(
            op,
            format!(
                "expected {dyn_shape} dynamic shape operands, got {}",
                shape.len()
            ),
        );
        return;
    }
    if dyn_strides != strides.len() {
        cx.op_error(
            op,
            format!(
                "expected {dyn_strides} dynamic stride operands, got {}",
                strides.len()
            ),
        );
        return;
    }
    // All dynamic sizes and strides share one type (the custom syntax writes it once).
    let Some(&first) = shape.first().or(strides.first()) else {
        return;
    };
    let want = cx.m.value_type(first);
    for (what, list) in [("shape", &shape), ("stride", &strides)] {
        for (i, &v) in list.iter().enumerate() {
            if cx.m.value_type(v) != want {
                cx.op_error(
                    op,
                    format!(
                        "expected dynamic {what} index {i} to be of the same type as the other dynamic values ({}), got {}",
                        cx.ty(want),
                        cx.vt(v)
                    ),
                );
                return;
            }
        }
    }
}

/// make_partition_view / make_strided_view / make_gather_scatter_view: the view type
/// embeds the operand's tensor_view type.
fn verify_make_view(cx: &mut Ctx<'_>, op: OpId) {
    let d = &cx.m.ops[op];
    let (Some(&src), Some(&r)) = (d.operands.first(), d.results.first()) else {
        return;
    };
    let embedded = match cx.type_of(r) {
        Type::PartitionView(pv) => pv.tensor_view,
        Type::StridedView(sv) => sv.tensor_view,
        Type::GatherScatterView(gv) => gv.tensor_view,
        _ => return,
    };
    if cx.m.value_type(src) != embedded {
        cx.op_error(
            op,
            format!(
                "expected the type of the provided tensor_view value ({}) to be the same as the view's tensor_view type ({})",
                cx.vt(src),
                cx.ty(embedded)
            ),
        );
    }
}

/// All results of a shape query share one type (the custom syntax prints it once).
fn results_share_one_type(cx: &mut Ctx<'_>, op: OpId) {
    let results = cx.m.ops[op].results.clone();
    if let Some((&first, rest)) = results.split_first() {
        if let Some((i, &bad)) = rest
            .iter()
            .enumerate()
            .find(|(_, &v)| cx.m.value_type(v) != cx.m.value_type(first))
        {
            cx.op_error(
                op,
                format!("expected all results to have the same type, but result #{} is {} and result #0 is {}", i + 1, cx.vt(bad), cx.vt(first)),
            );
        }
    }
}

fn verify_get_tensor_shape(cx: &mut Ctx<'_>, op: OpId) {
    let d = &cx.m.ops[op];
    let Some(&src) = d.operands.first() else {
        return;
    };
    let Type::TensorView(tv) = cx.type_of(src) else {
        return;
    };
    if d.results.len() != tv.shape.len() {
        cx.op_error(
            op,
            format!(
                "expected {} results due to tensor rank, but got {}",
                tv.shape.len(),
                d.results.len()
            ),
        );
        return;
    }
    results_share_one_type(cx, op);
}

fn verify_get_index_space_shape(cx: &mut Ctx<'_>, op: OpId) {
    let d = &cx.m.ops[op];
    let Some(&src) = d.operands.first() else {
        return;
    };
    let Some(view) = view_info(cx, cx.m.value_type(src)) else {
        return;
    };
    if d.results.len() != view.index_rank {
        cx.op_error(
            op,
            format!(
                "expected {} results due to view index space rank, but got {}",
                view.index_rank,
                d.results.len()
            ),
        );
        return;
    }
    results_share_one_type(cx, op);
}

/// The index rules of a view type (`verifyIndices`): partition/strided views take rank-0
/// integer tiles of one type; a gather/scatter view takes a 1-D index tile at `sparse_dim`.
fn verify_indices(cx: &mut Ctx<'_>, op: OpId, view: &ViewInfo, indices: &[ValueId]) -> bool {
    if indices.is_empty() {
        return true;
    }
    if let Some(sparse) = view.sparse_dim {
        let sparse = sparse.max(0) as usize;
        let Some(&gather) = indices.get(sparse) else {
            cx.op_error(
                op,
                format!(
                    "gather/scatter dimension {sparse} is out of range for index count {}",
                    indices.len()
                ),
            );
            return false;
        };
        let Some((shape, _)) = tile_of(cx, gather) else {
            cx.op_error(op, format!("expected index at sparse_dim position {sparse} to be a tile type for GatherScatterView"));
            return false;
        };
        if shape.len() != 1 {
            cx.op_error(
                op,
                format!("expected index at sparse_dim position {sparse} to be a 1D tensor for GatherScatterView, got rank {}", shape.len()),
            );
            return false;
        }
        let tile_at = view.tile_shape.get(sparse).copied().unwrap_or(0);
        if shape[0] != tile_at {
            cx.op_error(
                op,
                format!(
                    "expected gather/scatter index size ({}) to match tile shape at gather/scatter dimension {sparse} ({tile_at})",
                    shape[0]
                ),
            );
            return false;
        }
        let mut base: Option<ValueId> = None;
        for (i, &v) in indices.iter().enumerate() {
            if i == sparse {
                continue;
            }
            if !cx.type_of(v).is_scalar_tile() {
                cx.op_error(
                    op,
                    format!("expected index {i} to be a scalar tile for GatherScatterView"),
                );
                return false;
            }
            match base {
                None => base = Some(v),
                Some(b) if cx.m.value_type(b) != cx.m.value_type(v) => {
                    cx.op_error(
                        op,
                        format!(
                            "expected scalar index {i} to have the same type as other scalar indices ({}), got {}",
                            cx.vt(b),
                            cx.vt(v)
                        ),
                    );
                    return false;
                }
                Some(_) => {}
            }
        }
        return true;
    }
    for &v in indices {
        match cx.type_of(v) {
            Type::Tile { shape, .. } if shape.is_empty() => {}
            Type::Tile { .. } => {
                cx.op_error(
                    op,
                    format!("expected index type to be a scalar tile, got {}", cx.vt(v)),
                );
                return false;
            }
            _ => {
                cx.op_error(
                    op,
                    format!("expected index type to be a tile type, got {}", cx.vt(v)),
                );
                return false;
            }
        }
    }
    let base = indices[0];
    for (i, &v) in indices.iter().enumerate() {
        if cx.m.value_type(v) != cx.m.value_type(base) {
            cx.op_error(
                op,
                format!(
                    "expected index type {i} to be the same as other index types ({}), got {}",
                    cx.vt(base),
                    cx.vt(v)
                ),
            );
            return false;
        }
    }
    true
}

/// Ordering/scope rules of loads (`is_load`) and stores: the allowed orderings, and
/// `weak` without a scope, the others with one.
fn verify_memory_model(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp, is_load: bool) {
    let Some(ordering) = kind.enum_attr::<MemoryOrdering>("memory_ordering_semantics") else {
        return;
    };
    let has_scope = kind.get("memory_scope").is_some();
    let (third, what) = if is_load {
        (MemoryOrdering::Acquire, "load")
    } else {
        (MemoryOrdering::Release, "store")
    };
    if ![MemoryOrdering::Weak, MemoryOrdering::Relaxed, third].contains(&ordering) {
        cx.op_error(
            op,
            format!("expect one of: weak, relaxed, or {third}, but got: {ordering}"),
        );
        return;
    }
    if ordering == MemoryOrdering::Weak && has_scope {
        cx.op_error(op, format!("weak {what} must not have memory scope"));
    } else if ordering != MemoryOrdering::Weak && !has_scope {
        cx.op_error(
            op,
            format!("memory scope is required for {ordering} {what}"),
        );
    }
}

fn verify_view_access(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp, is_load: bool) {
    let Some(view_value) = one(cx, op, kind, "view") else {
        return;
    };
    let Some(view) = view_info(cx, cx.m.value_type(view_value)) else {
        return;
    };
    let indices = group(cx, op, kind, "index");
    if indices.len() != view.index_rank {
        cx.op_error(
            op,
            format!(
                "expected {} index operands (based on view type), got {}",
                view.index_rank,
                indices.len()
            ),
        );
        return;
    }
    let tile = if is_load {
        cx.m.ops[op].results.first().copied()
    } else {
        one(cx, op, kind, "tile")
    };
    let Some(tile) = tile else { return };
    let matches_view = matches!(cx.type_of(tile),
        Type::Tile { shape, elem: TileElem::Num(e), .. } if *shape == view.tile_shape && *e == view.elem);
    if !matches_view {
        let dims: String = view.tile_shape.iter().map(|d| format!("{d}x")).collect();
        cx.op_error(
            op,
            format!(
                "expected tile type to be '!cuda_tile.tile<{dims}{}>' (based on view type), got {}",
                view.elem,
                cx.vt(tile)
            ),
        );
        return;
    }
    if !verify_indices(cx, op, &view, &indices) {
        return;
    }
    if !crate::module_ops::verify_hints(cx, op, kind) {
        return;
    }
    verify_memory_model(cx, op, kind, is_load);
}

fn verify_load_ptr(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    if !crate::module_ops::verify_hints(cx, op, kind) {
        return;
    }
    verify_memory_model(cx, op, kind, true);
    let Some(source) = one(cx, op, kind, "source") else {
        return;
    };
    let Some(&result) = cx.m.ops[op].results.first() else {
        return;
    };
    let Some((shape, TileElem::Ptr(pointee))) = tile_of(cx, source) else {
        return;
    };
    // ODS's type constraints, worded as NVIDIA's 13.3 verifier states them; like ODS,
    // the first one that fails is the only one reported.
    let result_ok = matches!(cx.type_of(result), Type::Tile { shape: s, elem: TileElem::Num(e), .. } if *s == shape && *e == pointee);
    if !result_ok {
        cx.op_error(
            op,
            "failed to verify that `source` type is expected a pointer type of `result` type",
        );
        return;
    }
    if let Some(mask) = one(cx, op, kind, "mask") {
        if !mask_matches(cx, mask, &shape) {
            cx.op_error(
                op,
                "failed to verify that shape of 'mask' must match the shape of 'source'",
            );
            return;
        }
    }
    if let Some(padding) = one(cx, op, kind, "paddingValue") {
        if cx.m.value_type(padding) != cx.m.value_type(result) {
            cx.op_error(
                op,
                "failed to verify that type of 'paddingValue' must match the type of 'result'",
            );
        }
    }
}

fn verify_store_ptr(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    if !crate::module_ops::verify_hints(cx, op, kind) {
        return;
    }
    verify_memory_model(cx, op, kind, false);
    let (Some(dest), Some(value)) = (one(cx, op, kind, "destination"), one(cx, op, kind, "value"))
    else {
        return;
    };
    let Some((shape, TileElem::Ptr(pointee))) = tile_of(cx, dest) else {
        return;
    };
    if !matches!(tile_of(cx, value), Some((s, TileElem::Num(e))) if s == shape && e == pointee) {
        cx.op_error(
            op,
            "failed to verify that `destination` type is expected a pointer type of `value` type",
        );
        return;
    }
    if let Some(mask) = one(cx, op, kind, "mask") {
        if !mask_matches(cx, mask, &shape) {
            cx.op_error(
                op,
                "failed to verify that shape of 'destination' must match the shape of 'mask'",
            );
        }
    }
}

/// Whether a mask (whose element type ODS checks separately) has the pointer tile's shape.
fn mask_matches(cx: &Ctx<'_>, mask: ValueId, shape: &[i64]) -> bool {
    tile_of(cx, mask).is_none_or(|(s, _)| s == shape)
}

fn verify_alloca(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let num_elem = kind.int("num_elem").unwrap_or(0);
    if num_elem < 0 {
        cx.op_error(op, "attribute 'num_elem' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0");
        return;
    }
    let alignment = kind.int("alignment").unwrap_or(0);
    if alignment < 0 {
        cx.op_error(op, "attribute 'alignment' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0");
        return;
    }
    if alignment == 0 || alignment & (alignment - 1) != 0 {
        cx.op_error(op, "'alignment' must be power of two");
        return;
    }
    let Some(&r) = cx.m.ops[op].results.first() else {
        return;
    };
    if let Some((_, TileElem::Ptr(pointee))) = tile_of(cx, r) {
        // i1 occupies a byte; sub-byte types have no natural size above 1.
        let size = i64::from(pointee.storage_bytes());
        if alignment < size {
            cx.op_error(
                op,
                format!("'alignment' ({alignment}) must be at least the natural size ({size} bytes) for element type '{pointee}'"),
            );
        }
    }
}

/// Atomics accept relaxed, acquire, release and acq_rel (never weak).
fn verify_atomic_ordering(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) -> bool {
    match kind.enum_attr::<MemoryOrdering>("memory_ordering_semantics") {
        Some(MemoryOrdering::Weak) => {
            cx.op_error(
                op,
                "memory ordering semantics must be one of: relaxed, acquire, release, acq_rel",
            );
            false
        }
        _ => true,
    }
}

/// The element types each RMW mode supports (13.3 accepts `addf` on bf16 in both
/// `atomic_rmw_tko` and `atomic_red_view_tko`).
fn verify_rmw_mode(cx: &mut Ctx<'_>, op: OpId, mode: AtomicRmwMode, elem: NumType) -> bool {
    use AtomicRmwMode::*;
    let ok = match mode {
        And | Or | Xor | Add | Max | Min | UMax | UMin => {
            matches!(elem, NumType::I32 | NumType::I64)
        }
        AddF => {
            matches!(elem, NumType::F16 | NumType::BF16 | NumType::F32 | NumType::F64)
        }
        // Any 32/64-bit integer or float (tf32 is 32 bits wide in MLIR's accounting but is
        // rejected upstream: its storage is 19 bits).
        Xchg => matches!(
            elem,
            NumType::I32 | NumType::I64 | NumType::F32 | NumType::F64
        ),
    };
    if !ok {
        let what = match mode {
            AddF => "works only with floats f16, bf16, f32, and f64",
            Xchg => "works only with integers or float of 32 or 64 bitwidth",
            _ => "works only with integers i32 and i64",
        };
        cx.op_error(op, format!("'{mode}' {what}"));
    }
    ok
}

/// Shapes of the listed tile values agree (`AllShapesMatch`).
fn same_shapes(cx: &mut Ctx<'_>, op: OpId, values: &[ValueId], names: &str) -> bool {
    let shapes: Vec<Option<Vec<i64>>> = values
        .iter()
        .map(|&v| tile_of(cx, v).map(|(s, _)| s))
        .collect();
    if shapes.windows(2).any(|w| w[0] != w[1]) {
        cx.op_error(
            op,
            format!("failed to verify that all of {{{names}}} have same shape"),
        );
        return false;
    }
    true
}

fn verify_atomic_cas(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let (Some(ptrs), Some(cmp), Some(val)) = (
        one(cx, op, kind, "pointers"),
        one(cx, op, kind, "cmp"),
        one(cx, op, kind, "val"),
    ) else {
        return;
    };
    let Some(&result) = cx.m.ops[op].results.first() else {
        return;
    };
    if !same_shapes(
        cx,
        op,
        &[ptrs, cmp, val, result],
        "pointers, cmp, val, result",
    ) {
        return;
    }
    if cx.m.value_type(cmp) != cx.m.value_type(val)
        || cx.m.value_type(val) != cx.m.value_type(result)
    {
        cx.op_error(
            op,
            "failed to verify that all of {cmp, val, result} have same type",
        );
        return;
    }
    let (Some((_, TileElem::Ptr(pointee))), Some((_, TileElem::Num(elem)))) =
        (tile_of(cx, ptrs), tile_of(cx, val))
    else {
        return;
    };
    if pointee != elem {
        cx.op_error(
            op,
            format!(
                "expected pointee type ('{pointee}') to match element type of 'val' ('{elem}')"
            ),
        );
        return;
    }
    if !matches!(
        elem,
        NumType::I32 | NumType::I64 | NumType::F32 | NumType::F64
    ) {
        cx.op_error(op, "expect only float or integer types with 32 or 64 bit");
        return;
    }
    if let Some(mask) = one(cx, op, kind, "mask") {
        if tile_of(cx, mask).map(|(s, _)| s) != tile_of(cx, val).map(|(s, _)| s) {
            cx.op_error(
                op,
                "failed to verify that all of {pointers, val, cmp and mask} have same shape",
            );
            return;
        }
    }
    verify_atomic_ordering(cx, op, kind);
}

fn verify_atomic_rmw(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let (Some(ptrs), Some(arg)) = (one(cx, op, kind, "pointers"), one(cx, op, kind, "arg")) else {
        return;
    };
    let Some(&result) = cx.m.ops[op].results.first() else {
        return;
    };
    if !same_shapes(cx, op, &[ptrs, arg, result], "pointers, arg, result") {
        return;
    }
    if cx.m.value_type(arg) != cx.m.value_type(result) {
        cx.op_error(
            op,
            "failed to verify that all of {arg, result} have same type",
        );
        return;
    }
    let (Some((_, TileElem::Ptr(pointee))), Some((_, TileElem::Num(elem)))) =
        (tile_of(cx, ptrs), tile_of(cx, arg))
    else {
        return;
    };
    if pointee != elem {
        cx.op_error(
            op,
            format!(
                "expected pointee type ('{pointee}') to match element type of 'arg' ('{elem}')"
            ),
        );
        return;
    }
    if let Some(mask) = one(cx, op, kind, "mask") {
        if tile_of(cx, mask).map(|(s, _)| s) != tile_of(cx, arg).map(|(s, _)| s) {
            cx.op_error(
                op,
                "failed to verify that all of {pointers, arg, mask} have same shape",
            );
            return;
        }
    }
    if let Some(mode) = kind.enum_attr::<AtomicRmwMode>("mode") {
        if !verify_rmw_mode(cx, op, mode, elem) {
            return;
        }
    }
    verify_atomic_ordering(cx, op, kind);
}

/// `atomic_red_view_tko` lowers to bulk (TMA) reductions: relaxed only, no `sys` scope,
/// unpadded partition/strided views, no `xchg`.
fn verify_atomic_red_view(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let (Some(view_value), Some(value)) = (one(cx, op, kind, "view"), one(cx, op, kind, "value"))
    else {
        return;
    };
    let view_type = cx.m.value_type(view_value);
    if matches!(cx.m.types.get(view_type), Type::GatherScatterView(_)) {
        cx.op_error(
            op,
            "gather_scatter_view is not supported; use partition_view instead",
        );
        return;
    }
    let Some(view) = view_info(cx, view_type) else {
        return;
    };
    if view.padded {
        cx.op_error(
            op,
            "views with padding_value are not supported for atomic reductions",
        );
        return;
    }
    let mode = kind.enum_attr::<AtomicRmwMode>("mode");
    if mode == Some(AtomicRmwMode::Xchg) {
        cx.op_error(op, "atomic_red_view_tko op cannot use xchg operation");
        return;
    }
    if let Some(ordering) = kind.enum_attr::<MemoryOrdering>("memory_ordering_semantics") {
        if ordering != MemoryOrdering::Relaxed {
            cx.op_error(op, format!("only 'relaxed' memory ordering is supported for view-based atomic reductions, got '{ordering}'"));
            return;
        }
    }
    if kind.enum_attr::<MemoryScope>("memory_scope") == Some(MemoryScope::Sys) {
        cx.op_error(
            op,
            "memory scope 'sys' is not supported for view-based atomic reductions; use 'tl_blk' or 'device' for TMA compatibility",
        );
        return;
    }
    let indices = group(cx, op, kind, "index");
    if indices.len() != view.index_rank {
        cx.op_error(
            op,
            format!(
                "expected {} index operand(s) for view with tile rank {}, got {}",
                view.index_rank,
                view.index_rank,
                indices.len()
            ),
        );
        return;
    }
    for (i, &v) in indices.iter().enumerate() {
        if let Some((shape, _)) = tile_of(cx, v) {
            if !shape.is_empty() {
                cx.op_error(
                    op,
                    format!(
                        "index operand {i} must be a scalar tile (rank 0), got shape {}",
                        join_dims(&shape)
                    ),
                );
                return;
            }
        }
    }
    let Some((shape, TileElem::Num(elem))) = tile_of(cx, value) else {
        return;
    };
    if elem != view.elem {
        cx.op_error(
            op,
            format!(
                "view element type ('{}') must match value element type ('{elem}')",
                view.elem
            ),
        );
        return;
    }
    if shape != view.tile_shape {
        cx.op_error(
            op,
            format!(
                "view tile shape {} must match value shape {} for element-wise atomic operations",
                join_dims(&view.tile_shape),
                join_dims(&shape)
            ),
        );
        return;
    }
    if let Some(mode) = mode {
        verify_rmw_mode(cx, op, mode, elem);
    }
}
