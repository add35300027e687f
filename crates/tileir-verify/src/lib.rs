//! tileir-verify: checks a [`Module`] and returns every diagnostic, each with the
//! location of the op it is about.
//!
//! Checks, in order (a failing phase stops later phases, which rely on it):
//! 1. **Handles and structure**: every id in range; every op has the regions its kind
//!    requires, each with one block; terminators last and only last; `return` closes
//!    entry/func bodies.
//! 2. **SSA dominance**: each operand is defined earlier in its block or in an enclosing
//!    block, or is an argument of one of those blocks.
//! 3. **Types**: tile shapes are powers of two with at most 2^24 elements, and so on.
//! 4. **Per-op rules** of cuda_tile ([`cuda_tile`]), nv_tileaa and nv_tileas ([`tile`]):
//!    operand/result counts and types, attribute combinations.
//! 5. **Cross-op rules**: functions do not mix cuda_tile with nv_tileaa/nv_tileas ops,
//!    and once a function holds nv_tileas ops every tile value in it carries a layout.
//!
//! Not yet checked: ops outside the subset tileir implements (they cannot be built).

#![forbid(unsafe_code)]

mod arith;
mod control;
mod cuda_tile;
mod memory;
mod module_ops;
mod ods;
mod shape;
mod tile;
mod types;

use std::collections::HashSet;
use tileir_ir::{BlockId, Diagnostic, Diagnostics, Dialect, Module, OpId, OpKind, ValueId};

/// Collects diagnostics for one module.
pub(crate) struct Ctx<'m> {
    pub m: &'m Module,
    pub diags: Vec<Diagnostic>,
}

impl<'m> Ctx<'m> {
    /// Reports an error at `op`, prefixed MLIR-style with the op's name.
    pub fn op_error(&mut self, op: OpId, message: impl AsRef<str>) {
        let name = self.m.ops[op].kind.name();
        let loc = self.m.op_location(op);
        self.diags.push(Diagnostic::error(loc, format!("'{name}' op {}", message.as_ref())));
    }
    /// The type text of a value (short form).
    pub fn vty(&self, v: ValueId) -> String {
        self.m.types.display(self.m.value_type(v), true)
    }
}

/// Checks that `op` has `operands` operands and `results` results; reports each mismatch.
pub(crate) fn counts(cx: &mut Ctx<'_>, op: OpId, operands: usize, results: usize) -> bool {
    let d = &cx.m.ops[op];
    let (got_operands, got_results) = (d.operands.len(), d.results.len());
    if got_operands != operands {
        cx.op_error(op, format!("expects {operands} operand(s), got {got_operands}"));
    }
    if got_results != results {
        cx.op_error(op, format!("expects {results} result(s), got {got_results}"));
    }
    got_operands == operands && got_results == results
}

/// Verifies `module`; `Ok(())` or all the errors found.
pub fn verify(module: &Module) -> Result<(), Diagnostics> {
    let mut cx = Ctx { m: module, diags: Vec::new() };
    check_structure(&mut cx);
    if cx.diags.is_empty() {
        check_dominance(&mut cx);
    }
    if cx.diags.is_empty() {
        types::check_value_types(&mut cx);
        for op in module.walk() {
            match &module.ops[op].kind {
                OpKind::CudaTile(k) => cuda_tile::verify_op(&mut cx, op, k),
                OpKind::TileAa(k) => tile::verify_aa_op(&mut cx, op, k),
                OpKind::TileAs(k) => tile::verify_as_op(&mut cx, op, k),
                // The parser admits these only under -allow-unregistered-dialect.
                OpKind::Unregistered(_) => {}
            }
        }
        check_function_dialects(&mut cx);
    }
    if cx.diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(cx.diags))
    }
}

fn check_structure(cx: &mut Ctx<'_>) {
    let m = cx.m;
    let mut seen_blocks = HashSet::new();
    let mut stack = vec![m.body];
    while let Some(block) = stack.pop() {
        if !m.blocks.contains(block) || !seen_blocks.insert(block) {
            cx.diags.push(Diagnostic::error(tileir_ir::Location::Unknown, format!("invalid or shared block {block}")));
            continue;
        }
        let ops = &m.blocks[block].ops;
        for (pos, &op) in ops.iter().enumerate() {
            let Some(data) = m.ops.get(op) else {
                cx.diags.push(Diagnostic::error(tileir_ir::Location::Unknown, format!("block {block} names invalid op {op}")));
                continue;
            };
            if data.parent != Some(block) {
                cx.op_error(op, "is listed in a block that is not its parent");
            }
            for &v in data.operands.iter().chain(data.results.iter()) {
                if !m.values.contains(v) {
                    cx.op_error(op, format!("refers to invalid value {v}"));
                }
            }
            let is_last = pos + 1 == ops.len();
            if data.kind.is_terminator() && !is_last {
                cx.op_error(op, "must be the last operation in its block");
            }
            let wanted = data.kind.num_regions();
            if data.regions.len() != wanted {
                cx.op_error(op, format!("requires {wanted} region(s), has {}", data.regions.len()));
                continue;
            }
            for &region in &data.regions {
                match m.regions.get(region) {
                    None => cx.op_error(op, format!("owns invalid region {region}")),
                    Some(r) if r.blocks.len() != 1 => {
                        cx.op_error(op, format!("region must have exactly one block, has {}", r.blocks.len()))
                    }
                    Some(r) => {
                        let inner = r.blocks[0];
                        stack.push(inner);
                        let needs_return = matches!(
                            data.kind,
                            OpKind::CudaTile(tileir_ir::CudaTileOp { op: tileir_ir::CtOp::Entry, .. })
                                | OpKind::TileAa(tileir_ir::TileAaOp::Func { .. })
                        );
                        if needs_return {
                            let ends_with_return = m.blocks.get(inner).and_then(|b| b.ops.last()).is_some_and(|&last| {
                                m.ops.get(last).is_some_and(|d| d.kind.is_terminator())
                            });
                            if !ends_with_return {
                                cx.op_error(op, "body must end with a return");
                            }
                        }
                    }
                }
            }
        }
    }
}

fn check_dominance(cx: &mut Ctx<'_>) {
    let m = cx.m;
    let mut visible: Vec<HashSet<ValueId>> = Vec::new();
    walk_block(cx, m.body, &mut visible);

    fn walk_block(cx: &mut Ctx<'_>, block: BlockId, visible: &mut Vec<HashSet<ValueId>>) {
        let m = cx.m;
        let mut scope: HashSet<ValueId> = m.blocks[block].args.iter().copied().collect();
        visible.push(std::mem::take(&mut scope));
        for &op in &m.blocks[block].ops {
            let data = &m.ops[op];
            for (i, &v) in data.operands.iter().enumerate() {
                if !visible.iter().any(|s| s.contains(&v)) {
                    cx.op_error(op, format!("operand #{i} ({v}) does not dominate this use: it is not defined before the op in an enclosing block"));
                }
            }
            for &region in &data.regions {
                for &inner in &m.regions[region].blocks {
                    walk_block(cx, inner, visible);
                }
            }
            let top = visible.last_mut().expect("scope pushed above");
            top.extend(data.results.iter().copied());
        }
        visible.pop();
    }
}

/// The dialects used inside each top-level function-like op.
fn check_function_dialects(cx: &mut Ctx<'_>) {
    let m = cx.m;
    for op in m.walk() {
        let is_func = matches!(
            m.ops[op].kind,
            OpKind::CudaTile(tileir_ir::CudaTileOp { op: tileir_ir::CtOp::Entry, .. }) | OpKind::TileAa(tileir_ir::TileAaOp::Func { .. })
        );
        if !is_func {
            continue;
        }
        let Some(block) = m.entry_block(op, 0) else { continue };
        let body: Vec<OpId> = m.blocks[block].ops.clone();
        let dialects: HashSet<Dialect> = body.iter().map(|&o| m.ops[o].kind.dialect()).collect();
        let func_dialect = m.ops[op].kind.dialect();
        if func_dialect == Dialect::CudaTile && dialects.iter().any(|&d| d != Dialect::CudaTile) {
            cx.op_error(op, "body mixes cuda_tile with nv_tileaa/nv_tileas operations");
        }
        if func_dialect == Dialect::TileAa && dialects.contains(&Dialect::CudaTile) {
            cx.op_error(op, "body still holds cuda_tile operations (an nv_tileaa function must hold none)");
        }
        if dialects.contains(&Dialect::TileAs) {
            for &o in &body {
                for &v in &m.ops[o].results {
                    if let tileir_ir::Type::Tile { layout: None, shape, .. } = m.types.get(m.value_type(v)) {
                        if !shape.is_empty() {
                            cx.op_error(o, format!("result has tile type {} without a layout, but the function is in nv_tileas form", cx.vty(v)));
                        }
                    }
                }
            }
        }
    }
}
