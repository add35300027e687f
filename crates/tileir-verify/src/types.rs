//! Type rules that hold wherever a type appears.

use crate::Ctx;
use tileir_ir::{Dim, TileElem, Type, ValueDef};

/// Largest number of elements a tile may have.
pub const MAX_TILE_ELEMENTS: i64 = 1 << 24;

/// Why `ty` is not a valid type, if it is not.
pub(crate) fn type_problem(cx: &Ctx<'_>, ty: &Type) -> Option<String> {
    match ty {
        Type::Tile { shape, elem, layout } => {
            let mut total: i64 = 1;
            for &d in shape {
                if d <= 0 || (d & (d - 1)) != 0 {
                    return Some(format!("tile dimension {d} is not a positive power of two"));
                }
                total = total.saturating_mul(d);
            }
            if total > MAX_TILE_ELEMENTS {
                return Some(format!("tile has {total} elements, more than the maximum {MAX_TILE_ELEMENTS} (2^24)"));
            }
            if let TileElem::Num(tileir_ir::NumType::F4E2M1FN) = elem {
                if total % 2 != 0 {
                    return Some("a tile of f4E2M1FN needs an even number of elements".into());
                }
            }
            if let Some(tileir_ir::Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order }) = layout {
                let rank = shape.len();
                if size_per_thread.len() != rank || threads_per_warp.len() != rank || warps_per_cta.len() != rank || order.len() != rank {
                    return Some(format!("blocked layout has entries of the wrong rank for a rank-{rank} tile"));
                }
                if threads_per_warp.iter().product::<u32>() != 32 {
                    return Some("blocked layout threads_per_warp must multiply to 32".into());
                }
            }
            None
        }
        Type::TensorView(tv) => {
            if tv.shape.len() != tv.strides.len() {
                return Some(format!(
                    "tensor_view has {} sizes but {} strides",
                    tv.shape.len(),
                    tv.strides.len()
                ));
            }
            if tv.shape.iter().chain(tv.strides.iter()).any(|d| matches!(d, Dim::Static(v) if *v <= 0)) {
                return Some("tensor_view sizes and strides must be positive".into());
            }
            None
        }
        Type::PartitionView(pv) => match cx.m.types.try_get(pv.tensor_view) {
            Some(Type::TensorView(_)) => None,
            _ => Some("partition_view must wrap a tensor_view".into()),
        },
        _ => None,
    }
}

/// Checks the type of every reachable value.
pub(crate) fn check_value_types(cx: &mut Ctx<'_>) {
    let m = cx.m;
    for op in m.walk() {
        let data = &m.ops[op];
        for (i, &v) in data.results.iter().enumerate() {
            if let Some(problem) = type_problem(cx, m.types.get(m.value_type(v))) {
                cx.op_error(op, format!("result #{i} has invalid type {}: {problem}", cx.vty(v)));
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
                        cx.op_error(op, format!("argument #{index} has invalid type {}: {problem}", cx.vty(arg)));
                    }
                }
            }
        }
    }
}
