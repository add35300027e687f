//! Per-op rules of nv_tileaa and nv_tileas.

use crate::cuda_tile::{verify_access_ordering, verify_float_arith};
use crate::Ctx;
use tileir_ir::{
    Dim, Layout, NumType, OpId, OpKind, TileAaOp, TileAsOp, TileElem, TiledAccess, Type,
};

use crate::counts;

fn is_scalar_int(cx: &Ctx<'_>, v: tileir_ir::ValueId) -> bool {
    matches!(cx.m.types.get(cx.m.value_type(v)), Type::Scalar(n) if n.is_int())
}

pub(crate) fn verify_aa_op(cx: &mut Ctx<'_>, op: OpId, kind: &TileAaOp) {
    let m = cx.m;
    let d = m.ops[op].clone();
    match kind {
        TileAaOp::Func {
            sym_name,
            function_type,
            ..
        } => {
            if sym_name.is_empty() {
                cx.op_error(op, "requires a symbol name");
            }
            match m.types.try_get(*function_type) {
                Some(Type::Function { inputs, .. }) => {
                    if let Some(block) = m.entry_block(op, 0) {
                        let args = &m.blocks[block].args;
                        if args.len() != inputs.len()
                            || args.iter().zip(inputs).any(|(&a, &t)| m.value_type(a) != t)
                        {
                            cx.op_error(op, "block arguments do not match the function type");
                        }
                    }
                }
                _ => cx.op_error(op, "requires a function type"),
            }
        }
        TileAaOp::Return => {
            // An early return may sit inside `if`s of the kernel's body.
            let mut parent = d.parent.and_then(|b| m.parent_op_of_block(b));
            while let Some(p) = parent.filter(|&p| m.ops[p].kind.ct() == Some(tileir_ir::CtOp::If)) {
                parent = m.ops[p].parent.and_then(|b| m.parent_op_of_block(b));
            }
            if !matches!(
                parent.map(|p| &m.ops[p].kind),
                Some(OpKind::TileAa(TileAaOp::Func { kernel: true, .. }))
            ) {
                cx.op_error(op, "must terminate an nv_tileaa.func kernel");
            } else if !d.operands.is_empty() {
                cx.op_error(op, "Kernel functions do not support return with operands");
            }
        }
        TileAaOp::CreateMemToken => {
            if counts(cx, op, 0, 1)
                && !matches!(m.types.get(m.value_type(d.results[0])), Type::MemToken)
            {
                cx.op_error(
                    op,
                    format!(
                        "result must be !nv_tileaa.mem_token, got {}",
                        cx.vty(d.results[0])
                    ),
                );
            }
        }
        TileAaOp::GetProgramId { .. } | TileAaOp::GetNumPrograms { .. } => {
            if counts(cx, op, 0, 1)
                && !matches!(
                    m.types.get(m.value_type(d.results[0])),
                    Type::Scalar(NumType::I32)
                )
            {
                cx.op_error(
                    op,
                    format!("result must be i32, got {}", cx.vty(d.results[0])),
                );
            }
        }
        TileAaOp::MakeMemref {
            num_dyn_sizes,
            num_dyn_strides,
            base_alignment,
        } => {
            if !counts(cx, op, 1 + (*num_dyn_sizes + *num_dyn_strides) as usize, 1) {
                return;
            }
            let Type::MemRef {
                elem,
                shape,
                strides,
                addr_space,
            } = m.types.get(m.value_type(d.results[0])).clone()
            else {
                cx.op_error(
                    op,
                    format!("result must be a memref, got {}", cx.vty(d.results[0])),
                );
                return;
            };
            match m.types.get(m.value_type(d.operands[0])) {
                Type::AaPtr {
                    pointee,
                    addr_space: a,
                } => {
                    if *pointee != elem || *a != addr_space {
                        cx.op_error(
                            op,
                            format!(
                                "base {} does not match memref {}",
                                cx.vty(d.operands[0]),
                                cx.vty(d.results[0])
                            ),
                        );
                    }
                }
                _ => cx.op_error(
                    op,
                    format!(
                        "base must be an !nv_tileaa.ptr, got {}",
                        cx.vty(d.operands[0])
                    ),
                ),
            }
            if shape.len() != strides.len() {
                cx.op_error(op, "memref sizes and strides differ in rank");
            }
            let dyn_sizes = shape.iter().filter(|x| **x == Dim::Dynamic).count();
            let dyn_strides = strides.iter().filter(|x| **x == Dim::Dynamic).count();
            if dyn_sizes != *num_dyn_sizes as usize || dyn_strides != *num_dyn_strides as usize {
                cx.op_error(op, format!(
                    "dynamic operand counts ({num_dyn_sizes} sizes, {num_dyn_strides} strides) do not match the type ({dyn_sizes}, {dyn_strides})"
                ));
            }
            for (i, &v) in d.operands[1..].iter().enumerate() {
                if !is_scalar_int(cx, v) {
                    cx.op_error(
                        op,
                        format!(
                            "size/stride operand #{} must be a scalar integer, got {}",
                            i + 1,
                            cx.vty(v)
                        ),
                    );
                }
            }
            if *base_alignment != 0 && !base_alignment.is_power_of_two() {
                cx.op_error(
                    op,
                    format!("alignment {base_alignment} is not a power of two"),
                );
            }
        }
        TileAaOp::TiledLoad(a) => verify_tiled(cx, op, a, true, false, 1),
        TileAaOp::TiledStore(a) => verify_tiled(cx, op, a, false, false, 1),
        TileAaOp::AddF(f) | TileAaOp::SubF(f) | TileAaOp::MulF(f) => verify_float_arith(cx, op, f),
        TileAaOp::Global { sym_name, value, alignment, .. } => {
            counts(cx, op, 0, 0);
            if sym_name.is_empty() {
                cx.op_error(op, "requires a symbol name");
            }
            if value.shape.len() != 1 {
                cx.op_error(op, format!("value must be rank 1, got rank {}", value.shape.len()));
            }
            if *alignment < 0 || (*alignment > 0 && (*alignment as u64).count_ones() != 1) {
                cx.op_error(op, format!("alignment must be 0 or a power of two, got {alignment}"));
            }
            if d.parent != Some(m.body) {
                cx.op_error(op, "must be at the top level of the module");
            }
        }
        TileAaOp::JoinMemToken
        | TileAaOp::MarkForReuse
        | TileAaOp::CreateQueue
        | TileAaOp::QueuePut
        | TileAaOp::QueueGet { .. }
        | TileAaOp::QueueYield
        | TileAaOp::Execute { .. } => crate::pipeline::verify_aa(cx, op, kind),
        TileAaOp::GetGlobal { name } => {
            if !counts(cx, op, 0, 1) {
                return;
            }
            // The symbol must name a top-level nv_tileaa.global of the pointee type.
            let global = m.blocks[m.body].ops.iter().find_map(|&g| match &m.ops[g].kind {
                OpKind::TileAa(TileAaOp::Global { sym_name, value, .. }) if sym_name == name => Some(value.elem),
                _ => None,
            });
            match (global, m.types.get(m.value_type(d.results[0]))) {
                (None, _) => cx.op_error(op, format!("'@{name}' does not name an nv_tileaa.global")),
                (Some(e), Type::AaPtr { pointee, .. }) if *pointee == e => {}
                (Some(e), _) => cx.op_error(
                    op,
                    format!("result must be a pointer to {e} (the global's element type), got {}", cx.vty(d.results[0])),
                ),
            }
        }
    }
}

pub(crate) fn verify_as_op(cx: &mut Ctx<'_>, op: OpId, kind: &TileAsOp) {
    match kind {
        TileAsOp::TiledLoad { access, vector_width, .. } => verify_tiled(cx, op, access, true, true, *vector_width),
        TileAsOp::TiledStore { access, vector_width, .. } => verify_tiled(cx, op, access, false, true, *vector_width),
        other => crate::pipeline::verify_as(cx, op, other),
    }
}

fn verify_tiled(
    cx: &mut Ctx<'_>,
    op: OpId,
    a: &TiledAccess,
    is_load: bool,
    needs_layout: bool,
    vector_width: u32,
) {
    let m = cx.m;
    let d = m.ops[op].clone();
    let leading = if is_load { 1 } else { 2 };
    let expected = leading + a.num_indices as usize + a.has_token as usize;
    if !counts(cx, op, expected, if is_load { 2 } else { 1 }) {
        return;
    }
    verify_access_ordering(cx, op, a.ordering, a.scope.is_some(), is_load);
    let memref = d.operands[0];
    if matches!(m.types.get(m.value_type(memref)), Type::MemRef { .. }) {
        crate::pipeline::check_tiled_load_rules(cx, op, a);
    }
    let Type::MemRef { elem, shape, .. } = m.types.get(m.value_type(memref)).clone() else {
        cx.op_error(
            op,
            format!("operand #0 must be a memref, got {}", cx.vty(memref)),
        );
        return;
    };
    if a.num_indices as usize != shape.len() {
        cx.op_error(
            op,
            format!(
                "expects {} tile coordinate(s) (the memref rank), got {}",
                shape.len(),
                a.num_indices
            ),
        );
    }
    for &v in &d.operands[leading..leading + a.num_indices as usize] {
        if !is_scalar_int(cx, v) {
            cx.op_error(
                op,
                format!(
                    "tile coordinates must be scalar integers, got {}",
                    cx.vty(v)
                ),
            );
        }
    }
    if a.has_token
        && !matches!(
            m.types.get(m.value_type(d.operands[expected - 1])),
            Type::MemToken
        )
    {
        cx.op_error(
            op,
            format!(
                "token operand must be !nv_tileaa.mem_token, got {}",
                cx.vty(d.operands[expected - 1])
            ),
        );
    }
    let value = if is_load { d.results[0] } else { d.operands[1] };
    match m.types.get(m.value_type(value)) {
        Type::Tile {
            shape: tshape,
            elem: TileElem::Num(e),
            layout,
        } => {
            if *e != elem || tshape.len() != shape.len() {
                cx.op_error(
                    op,
                    format!(
                        "tile {} does not fit memref {}",
                        cx.vty(value),
                        cx.vty(memref)
                    ),
                );
            }
            if needs_layout {
                match layout {
                    None => cx.op_error(
                        op,
                        format!("tile {} needs a layout in nv_tileas", cx.vty(value)),
                    ),
                    Some(Layout::Blocked {
                        size_per_thread,
                        order,
                        ..
                    }) => {
                        let fastest = order.first().map(|&o| o as usize).unwrap_or(0);
                        let contiguous = size_per_thread.get(fastest).copied().unwrap_or(1);
                        if vector_width == 0
                            || !vector_width.is_power_of_two()
                            || contiguous % vector_width != 0
                        {
                            cx.op_error(op, format!(
                                "vector_width {vector_width} must be a power of two dividing the {contiguous} contiguous elements per thread"
                            ));
                        }
                    }
                    Some(other) => {
                        // A fragment layout holds runs of at most two elements along N.
                        let contiguous = match other {
                            Layout::Mma { .. } => tshape.last().map_or(1, |&n| n.clamp(1, 2) as u32),
                            _ => 1,
                        };
                        if vector_width == 0 || contiguous % vector_width != 0 {
                            cx.op_error(op, format!(
                                "vector_width {vector_width} must be a power of two dividing the {contiguous} contiguous elements per thread"
                            ));
                        }
                    }
                }
            }
        }
        _ => cx.op_error(
            op,
            format!("value must be a numeric tile, got {}", cx.vty(value)),
        ),
    }
    let token_result = *d.results.last().expect("counted above");
    if !matches!(m.types.get(m.value_type(token_result)), Type::MemToken) {
        cx.op_error(
            op,
            format!(
                "token result must be !nv_tileaa.mem_token, got {}",
                cx.vty(token_result)
            ),
        );
    }
}
