//! Per-op rules of cuda_tile (control group, §3.11): `if`, `for`, `loop` and the
//! terminators `yield`, `continue`, `break`, `return`.
//!
//! Wording follows NVIDIA's verifiers (quoted by the conformance suite); note that the
//! `continue` type mismatch is a plain error, without the `'cuda_tile.continue' op` prefix.

use crate::Ctx;
use tileir_ir::{CtOp, CudaTileOp, Location, OpId, Type, TypeId, ValueId};

/// Rules checked when the op is entered (before its nested ops).
pub(crate) fn verify(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    match kind.op {
        CtOp::If => verify_if(cx, op),
        CtOp::For => verify_for_operands(cx, op),
        CtOp::Yield => {
            expect_parent(cx, op, &[CtOp::If, CtOp::Reduce, CtOp::Scan]);
        }
        CtOp::Continue => verify_continue(cx, op),
        CtOp::Break => verify_break(cx, op),
        CtOp::Return => verify_return(cx, op),
        _ => {}
    }
}

/// Rules about regions, checked after the nested ops (MLIR's `verifyRegions`).
pub(crate) fn verify_regions(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    match kind.op {
        CtOp::For => verify_for_regions(cx, op, kind),
        CtOp::Loop => {
            let iters = region_args(cx, op);
            verify_loop_iter_values(cx, op, kind, &iters);
        }
        _ => {}
    }
}

/// The cuda_tile op directly enclosing `op`, if any.
fn parent_op(cx: &Ctx<'_>, op: OpId) -> Option<OpId> {
    cx.m.ops[op].parent.and_then(|b| cx.m.parent_op_of_block(b))
}

/// `ParentOneOf<[…]>`: "expects parent op to be one of 'a, b'".
fn expect_parent(cx: &mut Ctx<'_>, op: OpId, allowed: &[CtOp]) -> bool {
    let parent = parent_op(cx, op).and_then(|p| cx.m.ops[p].kind.ct());
    if parent.is_some_and(|p| allowed.contains(&p)) {
        return true;
    }
    let names: Vec<String> = allowed
        .iter()
        .map(|o| format!("cuda_tile.{}", o.mnemonic()))
        .collect();
    cx.op_error(
        op,
        format!("expects parent op to be one of '{}'", names.join(", ")),
    );
    false
}

fn types_of(cx: &Ctx<'_>, values: &[ValueId]) -> Vec<TypeId> {
    values.iter().map(|&v| cx.m.value_type(v)).collect()
}

/// Is `t` a tensor_view ("tensor_view") or a tile view ("tile view")?
fn view_kind(cx: &Ctx<'_>, t: TypeId) -> Option<&'static str> {
    match cx.m.types.get(t) {
        Type::TensorView(_) => Some("tensor_view"),
        Type::PartitionView(_) | Type::StridedView(_) | Type::GatherScatterView(_) => {
            Some("tile view")
        }
        _ => None,
    }
}

fn verify_if(cx: &mut Ctx<'_>, op: OpId) {
    let m = cx.m;
    let d = &m.ops[op];
    let ret_types = types_of(cx, &d.results);
    for (i, &t) in ret_types.iter().enumerate() {
        if let Some(what) = view_kind(cx, t) {
            cx.op_error(
                op,
                format!("result type {i} is a {what}, which is not supported"),
            );
            return;
        }
    }
    for (index, &region) in d.regions.iter().enumerate() {
        if let Some(&block) = m.regions[region].blocks.first() {
            if !m.blocks[block].args.is_empty() {
                cx.op_error(op, format!("region #{index} should have no arguments"));
                return;
            }
        }
    }
    let Some(then_block) = m.entry_block(op, 0) else {
        cx.op_error(op, "must define then branch");
        return;
    };
    if !check_branch_yield(cx, op, then_block, "then", &ret_types) {
        return;
    }
    match m.entry_block(op, 1) {
        None if !ret_types.is_empty() => {
            cx.op_error(op, "has non-empty return type, must define else branch")
        }
        None => {}
        Some(else_block) => {
            check_branch_yield(cx, op, else_block, "else", &ret_types);
        }
    }
}

/// A branch ending in `yield` must yield the `if`'s result types; other terminators
/// (`break`, `continue`, `return`) leave the `if` and are checked on their own.
fn check_branch_yield(
    cx: &mut Ctx<'_>,
    op: OpId,
    block: tileir_ir::BlockId,
    name: &str,
    ret_types: &[TypeId],
) -> bool {
    let m = cx.m;
    let Some(&last) = m.blocks[block].ops.last() else {
        return true;
    };
    if m.ops[last].kind.ct() != Some(CtOp::Yield) {
        return true;
    }
    let yield_types = types_of(cx, &m.ops[last].operands);
    if !ret_types.is_empty() && yield_types.is_empty() {
        cx.op_error(
            op,
            format!(
                "has return type of {} but {name} branch does not yield anything",
                cx.tys(ret_types)
            ),
        );
        return false;
    }
    if ret_types.is_empty() && !yield_types.is_empty() {
        cx.op_error(
            op,
            format!(
                "does not return a value, but {name} branch yields {}",
                cx.tys(&yield_types)
            ),
        );
        return false;
    }
    if yield_types != ret_types {
        cx.op_error(
            op,
            format!(
                "type does not match yield type, {name} branch yields {} but op result type is {}",
                cx.tys(&yield_types),
                cx.tys(ret_types)
            ),
        );
        return false;
    }
    true
}

/// `lowerBound`, `upperBound` and `step` share one type.
fn verify_for_operands(cx: &mut Ctx<'_>, op: OpId) {
    let d = &cx.m.ops[op];
    let Some(bounds) = d.operands.get(0..3) else {
        return;
    };
    let t = cx.m.value_type(bounds[0]);
    if bounds.iter().any(|&v| cx.m.value_type(v) != t) {
        cx.op_error(
            op,
            "failed to verify that all of {lowerBound, upperBound, step} have same type",
        );
    }
}

/// The arguments of the op's (single) region block.
fn region_args(cx: &Ctx<'_>, op: OpId) -> Vec<ValueId> {
    cx.m.entry_block(op, 0)
        .map(|b| cx.m.blocks[b].args.clone())
        .unwrap_or_default()
}

fn verify_for_regions(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let args = region_args(cx, op);
    let Some((&iv, iters)) = args.split_first() else {
        cx.op_error(
            op,
            "expected at least one block argument for induction variable",
        );
        return;
    };
    let Some(&lb) = cx.m.ops[op].operands.first() else {
        return;
    };
    if cx.m.value_type(iv) != cx.m.value_type(lb) {
        cx.op_error(
            op,
            format!(
                "expected induction variable to be same type as bounds and step: {} vs {}",
                cx.vt(iv),
                cx.vt(lb)
            ),
        );
        return;
    }
    verify_loop_iter_values(cx, op, kind, iters);
}

/// The `initValues` operands of a `for` or `loop`.
fn init_values(cx: &Ctx<'_>, op: OpId, kind: &CudaTileOp) -> Vec<ValueId> {
    let d = &cx.m.ops[op];
    match kind.group("initValues", d.operands.len()) {
        Some(r) => d.operands[r].to_vec(),
        None => Vec::new(),
    }
}

/// Shared by `for` and `loop`: iteration block arguments match the init values, and no
/// carried value or result is a view.
fn verify_loop_iter_values(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp, iters: &[ValueId]) {
    let inits = init_values(cx, op, kind);
    if iters.len() != inits.len() {
        cx.op_error(
            op,
            format!(
                "mismatch in number of region iterator values and loop iterator inits: {} vs {}",
                iters.len(),
                inits.len()
            ),
        );
        return;
    }
    for (i, (&init, &iter)) in inits.iter().zip(iters).enumerate() {
        if let Some(what) = view_kind(cx, cx.m.value_type(iter)) {
            cx.op_error(
                op,
                format!("loop-carried value {i} is a {what}, which is not supported"),
            );
            return;
        }
        if cx.m.value_type(init) != cx.m.value_type(iter) {
            cx.op_error(
                op,
                format!(
                    "init value {i} and region iter_value {i} have different type: {} != {}",
                    cx.vt(init),
                    cx.vt(iter)
                ),
            );
            return;
        }
    }
    let results = cx.m.ops[op].results.clone();
    for (i, &r) in results.iter().enumerate() {
        if let Some(what) = view_kind(cx, cx.m.value_type(r)) {
            cx.op_error(
                op,
                format!("result type {i} is a {what}, which is not supported"),
            );
            return;
        }
    }
    // A `for` yields its carried values as results, so both lists must agree.
    if kind.op == CtOp::For {
        let init_types = types_of(cx, &inits);
        let result_types = types_of(cx, &results);
        if init_types != result_types {
            cx.op_error(
                op,
                format!(
                    "result types ({}) must match the types of the init values ({})",
                    cx.tys(&result_types),
                    cx.tys(&init_types)
                ),
            );
        }
    }
}

/// Walks from an early-exit op (`continue`, `break`) up through `if`s to the innermost
/// ancestor of kind `loops`. Reports MLIR's "ancestor chain" error otherwise.
fn innermost_loop(cx: &mut Ctx<'_>, op: OpId, loops: &[CtOp]) -> Option<OpId> {
    let mut current = op;
    loop {
        let parent = parent_op(cx, current);
        let kind = parent.and_then(|p| cx.m.ops[p].kind.ct());
        match (parent, kind) {
            (Some(p), Some(k)) if loops.contains(&k) => return Some(p),
            (Some(p), Some(CtOp::If)) => current = p,
            _ => {
                let mut names: Vec<String> = loops
                    .iter()
                    .map(|o| format!("cuda_tile.{}", o.mnemonic()))
                    .collect();
                names.push("cuda_tile.if".into());
                let note_loc = parent
                    .map(|p| cx.m.op_location(p))
                    .unwrap_or(Location::Unknown);
                cx.op_error_with_note(
                    op,
                    format!(
                        "can only be nested within a ancestor chain of '{}' operations",
                        names.join("', '")
                    ),
                    note_loc,
                    "see unexpected ancestor operation",
                );
                return None;
            }
        }
    }
}

fn verify_continue(cx: &mut Ctx<'_>, op: OpId) {
    if !expect_parent(cx, op, &[CtOp::For, CtOp::If, CtOp::Loop]) {
        return;
    }
    let Some(parent_loop) = innermost_loop(cx, op, &[CtOp::For, CtOp::Loop]) else {
        return;
    };
    let found = types_of(cx, &cx.m.ops[op].operands);
    let pd = &cx.m.ops[parent_loop];
    if pd.kind.ct() == Some(CtOp::Loop) {
        // `continue` in a `loop` starts the next iteration with the iteration values.
        let expected = types_of(cx, &pd.operands);
        if expected != found {
            cx.error(
                op,
                format!(
                    "`loop` is missing a valid terminator. `continue` op should have operand types that match the parent loop iter_values: ({}), but found: ({})",
                    cx.tys(&expected),
                    cx.tys(&found)
                ),
            );
        }
    } else {
        let expected = types_of(cx, &pd.results);
        if expected != found {
            cx.error(
                op,
                format!(
                    "`for` is missing a valid terminator. `continue` op should have operand types that match the parent loop return types: ({}), but found: ({})",
                    cx.tys(&expected),
                    cx.tys(&found)
                ),
            );
        }
    }
}

fn verify_break(cx: &mut Ctx<'_>, op: OpId) {
    if !expect_parent(cx, op, &[CtOp::If, CtOp::Loop]) {
        return;
    }
    let Some(parent_loop) = innermost_loop(cx, op, &[CtOp::Loop]) else {
        return;
    };
    let found = types_of(cx, &cx.m.ops[op].operands);
    let expected = types_of(cx, &cx.m.ops[parent_loop].results);
    if expected != found {
        cx.op_error(
            op,
            format!(
                "operand types must correspond to the parent loop result types: ({}) vs ({})",
                cx.tys(&found),
                cx.tys(&expected)
            ),
        );
    }
}

/// `return` walks up through `if`s to the enclosing `entry` or `testing$func`.
fn verify_return(cx: &mut Ctx<'_>, op: OpId) {
    let m = cx.m;
    let operands = m.ops[op].operands.clone();
    let mut current = op;
    loop {
        let parent = parent_op(cx, current);
        match parent.and_then(|p| m.ops[p].kind.cuda_tile().map(|k| (p, k))) {
            Some((p, k)) if k.op == CtOp::If => current = p,
            Some((p, k)) if k.op == CtOp::Entry || k.op == CtOp::TestingFunc => {
                let name = k.str("sym_name").unwrap_or_default().to_string();
                let results = match k.get("function_type") {
                    Some(tileir_ir::Attr::Type(t)) => match m.types.try_get(*t) {
                        Some(Type::Function { results, .. }) => results.clone(),
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                let _ = p;
                if operands.len() != results.len() {
                    cx.op_error(
                        op,
                        format!(
                            "has {} operands, but enclosing function (@{name}) returns {}",
                            operands.len(),
                            results.len()
                        ),
                    );
                    return;
                }
                if k.op == CtOp::Entry {
                    if !operands.is_empty() {
                        cx.op_error(
                            op,
                            format!(
                                "has {} operands, but entry function must return 0 operands",
                                operands.len()
                            ),
                        );
                    }
                    return;
                }
                for (i, (&v, &t)) in operands.iter().zip(&results).enumerate() {
                    if m.value_type(v) != t {
                        cx.error(
                            op,
                            format!(
                                "type of return operand {i} ({}) doesn't match function result type ({}) in function @{name}",
                                cx.vt(v),
                                cx.ty(t)
                            ),
                        );
                        return;
                    }
                }
                return;
            }
            _ => {
                cx.op_error(op, "must be used within a cuda_tile.testing$func, cuda_tile.entry, or cuda_tile.if operation");
                return;
            }
        }
    }
}
