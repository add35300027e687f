//! Type rules that hold wherever a type appears (results, block arguments, function
//! signatures), plus small helpers the op rules share for reading and printing types.
//!
//! Messages follow NVIDIA's type verifiers (`Types.cpp`) where the conformance suite
//! quotes them: "all dimensions must be powers of two, got 3, 5, 9", "tile would exceed
//! the maximum of 16777216 elements", the partition-view dim_map messages, and so on.

use crate::Ctx;
use tileir_ir::types::GatherScatterViewType;
use tileir_ir::{
    Attr, CtOp, Dim, Module, NumType, OpKind, PaddingValue, TensorViewType, TileElem, Type, TypeId,
    ValueDef, ValueId,
};

/// Largest number of elements a tile may have.
pub const MAX_TILE_ELEMENTS: i64 = 1 << 24;

/// ODS's description of the element types a `ptr` or a `tensor_view` may hold (every
/// number type, in the order NVIDIA's `AnyTypeOf` lists them; no i4), as NVIDIA's 13.3
/// suite quotes it (the parser words it the same way).
const NUMBER_TYPES: &str =
    "f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64";

/// The shape and element of a tile value, if it is a tile.
pub(crate) fn tile_of(m: &Module, v: ValueId) -> Option<(&[i64], TileElem)> {
    match m.types.try_get(m.value_type(v))? {
        Type::Tile { shape, elem, .. } => Some((shape.as_slice(), *elem)),
        _ => None,
    }
}

/// The numeric element type of a tile value (None for pointer tiles and non-tiles).
pub(crate) fn num_elem(m: &Module, v: ValueId) -> Option<NumType> {
    match tile_of(m, v)? {
        (_, TileElem::Num(n)) => Some(n),
        _ => None,
    }
}

/// The shape of a tile value (empty for non-tiles, which ODS has rejected before).
pub(crate) fn shape_of(m: &Module, v: ValueId) -> &[i64] {
    tile_of(m, v).map(|(s, _)| s).unwrap_or(&[])
}

/// A type as MLIR prints it in diagnostics (unquoted): dialect types with their
/// `!cuda_tile.` prefix and their parameters in short form (`!cuda_tile.tile<4xptr<f32>>`).
/// (Function types are spelled by `crate::mlir_type`, which builds on this one.)
pub(crate) fn mlir_type(m: &Module, ty: TypeId) -> String {
    match m.types.try_get(ty) {
        Some(
            Type::Tile { .. }
            | Type::TensorView(_)
            | Type::PartitionView(_)
            | Type::StridedView(_)
            | Type::GatherScatterView(_)
            | Type::Token,
        ) => format!("!cuda_tile.{}", m.types.display(ty, true)),
        _ => m.types.display(ty, false),
    }
}

/// [`mlir_type`] of a value's type.
pub(crate) fn mlir_value_type(m: &Module, v: ValueId) -> String {
    mlir_type(m, m.value_type(v))
}

/// A shape as MLIR streams an `ArrayRef<int64_t>`: `4, 16`.
pub(crate) fn shape_text(shape: &[i64]) -> String {
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The element-type text of a tile element (`f32`, `!cuda_tile.ptr<f32>`).
pub(crate) fn elem_text(elem: TileElem) -> String {
    match elem {
        TileElem::Num(n) => n.keyword().to_string(),
        TileElem::Ptr(n) => format!("!cuda_tile.ptr<{n}>"),
    }
}

/// Why a tile of `shape` x `elem` is invalid, if it is.
pub(crate) fn tile_problem(shape: &[i64], elem: TileElem) -> Option<String> {
    if shape.iter().any(|&d| d <= 0) {
        return Some(format!(
            "all dimensions must be positive constants, got {}",
            shape_text(shape)
        ));
    }
    // NVIDIA checks f4E2M1FN's packing (two per byte) before the power-of-two rule; a
    // product of positive sizes is odd exactly when every size is.
    if elem == TileElem::Num(NumType::F4E2M1FN) && shape.iter().all(|&d| d % 2 != 0) {
        return Some("F4E2M1FN tiles must have an even number of elements".into());
    }
    if shape.iter().any(|&d| (d & (d - 1)) != 0) {
        return Some(format!(
            "all dimensions must be powers of two, got {}",
            shape_text(shape)
        ));
    }
    // Checked multiplication: a product past i64 is certainly past the limit.
    let total = shape.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d));
    if total.is_none_or(|t| t > MAX_TILE_ELEMENTS) {
        return Some(format!(
            "tile would exceed the maximum of {MAX_TILE_ELEMENTS} elements"
        ));
    }
    match elem {
        TileElem::Ptr(NumType::I4) => {
            Some(format!("failed to verify 'pointeeType': {NUMBER_TYPES}"))
        }
        _ => None,
    }
}

fn tensor_view_problem(tv: &TensorViewType) -> Option<String> {
    if tv.elem == NumType::I4 {
        return Some(format!("failed to verify 'elementType': {NUMBER_TYPES}"));
    }
    if let Some(problem) = tv.shape_problem() {
        return Some(problem);
    }
    if let Some(Dim::Static(s)) = tv
        .strides
        .iter()
        .find(|d| matches!(d, Dim::Static(v) if *v <= 0))
    {
        return Some(format!("expected strictly positive integer, got {s}"));
    }
    None
}

/// Rules shared by partition, strided and gather/scatter views: the tile shape against
/// the tensor_view, the dim_map, the padding value, and the view's own tile type.
fn view_problem(
    cx: &Ctx<'_>,
    tile_shape: &[i64],
    tensor_view: TypeId,
    dim_map: &[i64],
    padding: Option<PaddingValue>,
) -> Option<String> {
    let Some(Type::TensorView(tv)) = cx.m.types.try_get(tensor_view) else {
        return Some("the viewed type must be a tensor_view".into());
    };
    if let Some(problem) = tensor_view_problem(tv) {
        return Some(problem);
    }
    let rank = tv.shape.len();
    if tile_shape.is_empty() {
        return Some("0-dimension tile shape is not supported".into());
    }
    if tile_shape.len() != rank {
        return Some(format!(
            "expected tensor_view rank and tile rank to match, got tensor_view of rank {rank} and tiles of rank {}",
            tile_shape.len()
        ));
    }
    for (i, &d) in tile_shape.iter().enumerate() {
        if d <= 0 || d > i64::from(i32::MAX) {
            return Some(format!(
                "tile dimension {i} exceeds i32 limitations (got {d}, expected strictly positive and less than or equal to {})",
                i32::MAX
            ));
        }
    }
    if tile_shape.iter().any(|&d| (d & (d - 1)) != 0) {
        return Some(format!(
            "tile shape dimensions must have power of two length but got [{}]",
            shape_text(tile_shape)
        ));
    }
    if !dim_map.is_empty() {
        if dim_map.len() != rank {
            return Some(format!(
                "expected dim_map to map exactly all {rank} dimensions of the tile, got {} mappings",
                dim_map.len()
            ));
        }
        let mut mapped_from: Vec<Option<usize>> = vec![None; rank];
        for (tile_dim, &target) in dim_map.iter().enumerate() {
            if target < 0 {
                return Some(format!(
                    "target dimension must not be negative, got {target}"
                ));
            }
            if target as usize >= rank {
                return Some(format!(
                    "target dimension is outside of tensor view dimensions, expected strictly less than {rank}, got {target}"
                ));
            }
            if let Some(first) = mapped_from[target as usize] {
                return Some(format!(
                    "target dimension {target} mapped at least twice (for tile dimensions {first} and {tile_dim})"
                ));
            }
            mapped_from[target as usize] = Some(tile_dim);
        }
    }
    if let Some(p) = padding {
        if p != PaddingValue::Zero && !tv.elem.is_float() {
            return Some(format!(
                "padding_value '{}' requires a floating-point element type, but the tensor_view holds '{}'",
                p.keyword(),
                tv.elem
            ));
        }
    }
    tile_problem(tile_shape, TileElem::Num(tv.elem)).map(|p| format!("invalid view tile type: {p}"))
}

fn gather_scatter_problem(cx: &Ctx<'_>, gv: &GatherScatterViewType) -> Option<String> {
    if let Some(p) = view_problem(cx, &gv.tile_shape, gv.tensor_view, &[], gv.padding) {
        return Some(p);
    }
    let rank = gv.tile_shape.len() as i64;
    if gv.sparse_dim < 0 || gv.sparse_dim >= rank {
        return Some(format!(
            "sparse_dim must be in [0, {rank}) (the tensor_view rank), got {}",
            gv.sparse_dim
        ));
    }
    None
}

/// Why `ty` is not a valid type, if it is not.
pub(crate) fn type_problem(cx: &Ctx<'_>, ty: &Type) -> Option<String> {
    match ty {
        Type::Tile {
            shape,
            elem,
            layout,
        } => {
            if let Some(p) = tile_problem(shape, *elem) {
                return Some(p);
            }
            if let Some(l) = layout {
                if let Some(p) = layout_problem(l, shape) {
                    return Some(p);
                }
            }
            None
        }
        Type::TensorView(tv) => tensor_view_problem(tv),
        Type::PartitionView(pv) => {
            view_problem(cx, &pv.tile_shape, pv.tensor_view, &pv.dim_map, pv.padding)
        }
        Type::StridedView(sv) => {
            if let Some(p) =
                view_problem(cx, &sv.tile_shape, sv.tensor_view, &sv.dim_map, sv.padding)
            {
                return Some(p);
            }
            let rank = sv.tile_shape.len();
            if sv.traversal_strides.len() != rank {
                return Some(format!(
                    "expected {rank} traversal strides, got {}",
                    sv.traversal_strides.len()
                ));
            }
            if sv.traversal_strides.iter().any(|&s| s <= 0) {
                return Some(format!(
                    "traversal strides must be strictly positive but got [{}]",
                    sv.traversal_strides
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            None
        }
        Type::GatherScatterView(gv) => gather_scatter_problem(cx, gv),
        Type::Function { inputs, results } => {
            inputs
                .iter()
                .chain(results.iter())
                .find_map(|&t| match cx.m.types.try_get(t) {
                    Some(inner) => type_problem(cx, inner),
                    None => Some(format!("refers to invalid type {t}")),
                })
        }
        _ => None,
    }
}

/// Checks the type of every reachable value, and the signature of every function-like op.
pub(crate) fn check_value_types(cx: &mut Ctx<'_>) {
    let m = cx.m;
    for op in m.walk() {
        let data = &m.ops[op];
        for (i, &v) in data.results.iter().enumerate() {
            if let Some(problem) = type_problem(cx, m.types.get(m.value_type(v))) {
                cx.op_error(
                    op,
                    format!("result #{i} has invalid type {}: {problem}", cx.vty(v)),
                );
            }
        }
        for &region in &data.regions {
            for &block in &m.regions[region].blocks {
                for &arg in &m.blocks[block].args {
                    if let Some(problem) = type_problem(cx, m.types.get(m.value_type(arg))) {
                        let index = match m.values[arg].def {
                            ValueDef::BlockArg { index, .. } => index,
                            ValueDef::OpResult { index, .. } => index,
                        };
                        cx.op_error(
                            op,
                            format!(
                                "argument #{index} has invalid type {}: {problem}",
                                cx.vty(arg)
                            ),
                        );
                    }
                }
            }
        }
        // Function results are not values anywhere, so the signature is checked on its own.
        if let OpKind::CudaTile(k) = &data.kind {
            if matches!(k.op, CtOp::Entry | CtOp::TestingFunc) {
                if let Some(Attr::Type(fty)) = k.get("function_type") {
                    if let Some(Type::Function { results, .. }) = m.types.try_get(*fty) {
                        for (i, &t) in results.iter().enumerate() {
                            if let Some(problem) =
                                m.types.try_get(t).and_then(|ty| type_problem(cx, ty))
                            {
                                cx.op_error(
                                    op,
                                    format!(
                                        "function result #{i} has invalid type {}: {problem}",
                                        m.types.display(t, true)
                                    ),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Why `layout` cannot describe a tile of `shape`, if it cannot.
pub(crate) fn layout_problem(layout: &tileir_ir::Layout, shape: &[i64]) -> Option<String> {
    use tileir_ir::Layout;
    let rank = shape.len();
    match layout {
        Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order } => {
            if size_per_thread.len() != rank || threads_per_warp.len() != rank || warps_per_cta.len() != rank || order.len() != rank {
                return Some(format!("blocked layout has entries of the wrong rank for a rank-{rank} tile"));
            }
            if threads_per_warp.iter().product::<u32>() != 32 {
                return Some("blocked layout threads_per_warp must multiply to 32".into());
            }
            None
        }
        Layout::Mma { version, warps_per_cta } => {
            if *version != 3 {
                return Some(format!("mma layout version {version} is not supported (only 3, wgmma)"));
            }
            if rank != 2 || warps_per_cta.len() != 2 {
                return Some(format!("mma layout describes rank-2 tiles, not a rank-{rank} tile"));
            }
            let (wm, wn) = (warps_per_cta[0] as i64, warps_per_cta[1] as i64);
            if wm == 0 || wm % 4 != 0 || wn != 1 {
                return Some(format!(
                    "mma layout warps_per_cta [{wm}, {wn}] must stack whole warpgroups along M ([4 * g, 1])"
                ));
            }
            let (m, n) = (shape[0], shape[1]);
            if m != 1 && m % (16 * wm) != 0 {
                return Some(format!("mma layout over {wm} warps needs M of 1 or a multiple of {}, got {m}", 16 * wm));
            }
            if !matches!(n, 1 | 2 | 4) && n % 8 != 0 {
                return Some(format!("mma layout needs N of 1, 2, 4 or a multiple of 8, got {n}"));
            }
            None
        }
        Layout::Slice { dim, parent } => {
            let d = *dim as usize;
            if d > rank || parent.rank() != rank + 1 {
                return Some(format!("slice layout of a rank-{} parent along dim {dim} cannot describe a rank-{rank} tile", parent.rank()));
            }
            let mut full = shape.to_vec();
            full.insert(d, 1);
            layout_problem(parent, &full).map(|p| format!("slice layout's parent: {p}"))
        }
    }
}
