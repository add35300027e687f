//! tileir-verify: checks a [`Module`] and returns every diagnostic, each with the
//! location of the op it is about.
//!
//! Checks, in order (a failing phase stops later phases, which rely on it):
//! 1. **Handles and structure**: every id in range; every op has the regions its kind
//!    requires, each with one block (the `else` region of `cuda_tile.if` may have none);
//!    terminators last and only last; blocks of region-holding ops end with a terminator
//!    (the parser materializes implicit terminators, so a missing one is an error here).
//! 2. **SSA dominance**: each operand is defined earlier in its block or in an enclosing
//!    block, or is an argument of one of those blocks.
//! 3. **Types**: tile shapes are powers of two with at most 2^24 elements, and so on.
//!    A bad type does not stop phase 4, whose op rules usually say more about it.
//! 4. **Per-op rules** of cuda_tile ([`cuda_tile`]), nv_tileaa and nv_tileas ([`tile`]),
//!    in MLIR's order: an op's own rules (schema constraints and traits first, then the
//!    op's verifier, then inferred result types), then the ops nested in its regions, then
//!    the op's rules about its regions (`for`/`loop` iteration values, `reduce`/`scan`
//!    bodies, debug scopes of function bodies, and for symbol tables duplicate names and
//!    then symbol uses such as `get_global` naming a `global`).
//! 5. **Cross-op rules**: functions do not mix cuda_tile with nv_tileaa/nv_tileas ops,
//!    and once a function holds nv_tileas ops every tile value in it carries a layout.
//!
//! By default every failing op of the module is reported; the ops nested in a failed op
//! and its ancestors' region rules are skipped (they may rely on what failed). With
//! [`VerifyOptions::stop_at_first_failure`] (what `tileir-opt` uses), it behaves like MLIR's
//! verifier: the first failing op also ends the verification of its later siblings in the
//! unit it is in, so diagnostics match what MLIR's tests compare against.
//! Units are the ops MLIR treats as isolated from above (`cuda_tile.module`, `entry`,
//! `testing$func`, nv_tileaa functions): a failure in one does not stop its siblings, so
//! two broken kernels report one error each. Within one op, later rules that depend on
//! an earlier failed rule are skipped, as MLIR's verifiers return at their first error.

#![forbid(unsafe_code)]

mod arith;
mod control;
mod layout_ops;
mod cuda_tile;
mod memory;
mod module_ops;
mod ods;
mod pipeline;
mod shape;
mod tile;
mod tile_structure;
mod types;

use std::collections::HashSet;
use tileir_ir::{
    BlockId, CtOp, Diagnostic, Diagnostics, Dialect, Location, Module, OpId, OpKind, Severity,
    Type, TypeId, ValueId,
};

/// Options of one verification run (the dialect flags of `cuda-tile-opt`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// `-Wunsupported-hints`: validate the parameters of `optimization_hints` and warn about
    /// unknown architectures, unknown parameters and bad values. Off by default, when the
    /// verifier accepts any parameter (only the dictionary shape is checked): text input
    /// has had its parameters checked by the parser unless told to defer
    /// (`tileir_syntax::HintCheck`), while bytecode may carry hints this version does not
    /// know.
    pub warn_unsupported_hints: bool,
    /// `-Werr-hints`: when a hint warning was emitted for an op, also fail that op with
    /// "Optimization hints verification failed". Has no effect without
    /// [`VerifyOptions::warn_unsupported_hints`].
    pub hints_are_errors: bool,
    /// MLIR's behaviour: the first failing op ends the verification of the unit (module or
    /// function) it is in, so each broken unit reports one error, exactly as
    /// `cuda-tile-opt -verify-diagnostics` expects. Off by default: then every failing op
    /// of the module is reported (ops nested in a failed op, and the region rules of its
    /// ancestors, are still skipped, since they would mostly repeat the same problem).
    pub stop_at_first_failure: bool,
}

/// Collects diagnostics for one module.
pub(crate) struct Ctx<'m> {
    pub m: &'m Module,
    pub diags: Vec<Diagnostic>,
    pub options: VerifyOptions,
}

impl<'m> Ctx<'m> {
    /// Reports an error at `op`, prefixed MLIR-style with the op's name (`emitOpError`).
    pub fn op_error(&mut self, op: OpId, message: impl AsRef<str>) {
        let name = self.m.ops[op].kind.name();
        let loc = self.m.op_location(op);
        self.diags.push(Diagnostic::error(
            loc,
            format!("'{name}' op {}", message.as_ref()),
        ));
    }
    /// Reports an error at `op` without the op-name prefix (MLIR's plain `emitError`).
    pub fn error(&mut self, op: OpId, message: impl Into<String>) {
        let loc = self.m.op_location(op);
        self.diags.push(Diagnostic::error(loc, message));
    }
    /// Reports an op error with a note at another location.
    pub fn op_error_with_note(
        &mut self,
        op: OpId,
        message: impl AsRef<str>,
        note_loc: Location,
        note: &str,
    ) {
        self.op_error(op, message);
        if let Some(last) = self.diags.pop() {
            self.diags.push(last.with_note(note_loc, note));
        }
    }
    /// Reports a warning at `op` (no prefix, like MLIR's `emitWarning(loc)`).
    pub fn warning(&mut self, op: OpId, message: impl Into<String>) {
        let loc = self.m.op_location(op);
        self.diags.push(Diagnostic::warning(loc, message));
    }
    /// The type text of a value (short form).
    pub fn vty(&self, v: ValueId) -> String {
        self.m.types.display(self.m.value_type(v), true)
    }
    /// A type as MLIR diagnostics print it: quoted, dialect types with the `!cuda_tile.`
    /// prefix on the outermost type only (`'!cuda_tile.tile<4xptr<f32>>'`).
    pub fn ty(&self, t: TypeId) -> String {
        format!("'{}'", mlir_type(self.m, t))
    }
    /// [`Ctx::ty`] of a value's type.
    pub fn vt(&self, v: ValueId) -> String {
        self.ty(self.m.value_type(v))
    }
    /// A list of types as MLIR prints a `TypeRange`: each quoted, comma separated.
    pub fn tys(&self, ts: &[TypeId]) -> String {
        ts.iter()
            .map(|&t| self.ty(t))
            .collect::<Vec<_>>()
            .join(", ")
    }
    /// The type of a value.
    pub fn type_of(&self, v: ValueId) -> &'m Type {
        let m: &'m Module = self.m;
        m.types.get(m.value_type(v))
    }
}

/// MLIR's unquoted spelling of a type in diagnostics ([`types::mlir_type`], extended to
/// function types, whose parts each take the prefix).
pub(crate) fn mlir_type(m: &Module, t: TypeId) -> String {
    match m.types.try_get(t) {
        Some(Type::Function { inputs, results }) => {
            let list = |ts: &[TypeId]| {
                ts.iter()
                    .map(|&x| mlir_type(m, x))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if results.len() == 1 {
                format!("({}) -> {}", list(inputs), list(results))
            } else {
                format!("({}) -> ({})", list(inputs), list(results))
            }
        }
        _ => types::mlir_type(m, t),
    }
}

/// Checks that `op` has `operands` operands and `results` results; reports each mismatch.
pub(crate) fn counts(cx: &mut Ctx<'_>, op: OpId, operands: usize, results: usize) -> bool {
    let d = &cx.m.ops[op];
    let (got_operands, got_results) = (d.operands.len(), d.results.len());
    if got_operands != operands {
        cx.op_error(
            op,
            format!("expects {operands} operand(s), got {got_operands}"),
        );
    }
    if got_results != results {
        cx.op_error(
            op,
            format!("expects {results} result(s), got {got_results}"),
        );
    }
    got_operands == operands && got_results == results
}

/// Verifies `module` with default options; `Ok(())` or all the diagnostics found (at
/// least one of them an error).
pub fn verify(module: &Module) -> Result<(), Diagnostics> {
    verify_with(module, &VerifyOptions::default()).map(|_| ())
}

/// Verifies `module` under `options`. `Ok` carries the warnings (hint warnings under
/// [`VerifyOptions::warn_unsupported_hints`]); `Err` carries every diagnostic, warnings
/// included, in emission order, when at least one is an error.
pub fn verify_with(
    module: &Module,
    options: &VerifyOptions,
) -> Result<Vec<Diagnostic>, Diagnostics> {
    let mut cx = Ctx {
        m: module,
        diags: Vec::new(),
        options: *options,
    };
    let has_errors = |cx: &Ctx<'_>| cx.diags.iter().any(|d| d.severity == Severity::Error);
    check_structure(&mut cx);
    if !has_errors(&cx) {
        check_dominance(&mut cx);
    }
    if !has_errors(&cx) {
        // Invalid types (which MLIR's parser would refuse) do not stop the op rules: the
        // op that produces such a value usually has a more precise complaint.
        types::check_value_types(&mut cx);
        verify_module_body(&mut cx, module.body);
    }
    if !has_errors(&cx) {
        check_function_dialects(&mut cx);
    }
    if has_errors(&cx) {
        Err(Diagnostics(cx.diags))
    } else {
        Ok(cx.diags)
    }
}

/// The top level: its ops, then (when they passed) its symbol uses, as for MLIR's
/// builtin.module symbol table.
fn verify_module_body(cx: &mut Ctx<'_>, body: BlockId) {
    if verify_body(cx, body) {
        module_ops::verify_symbol_uses(cx, None);
    }
}

/// Ops whose regions MLIR verifies as separate units (`IsolatedFromAbove`): a failure
/// inside one does not stop the verification of its siblings.
fn is_isolated(kind: &OpKind) -> bool {
    matches!(kind, OpKind::TileAa(tileir_ir::TileAaOp::Func { .. }))
        || matches!(
            kind.ct(),
            Some(CtOp::Module | CtOp::Entry | CtOp::TestingFunc)
        )
}

fn error_count(cx: &Ctx<'_>) -> usize {
    cx.diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

/// Verifies the ops of `block` the way MLIR's
/// `OperationVerifier` walks: in order, each op's own rules, then its nested ops, then its
/// region rules; the first failure ends the walk. Isolated-from-above ops are deferred
/// until the other ops of the block passed, and then all of them are verified even when
/// one fails (MLIR verifies them in parallel). Returns true when nothing failed.
fn verify_body(cx: &mut Ctx<'_>, block: BlockId) -> bool {
    let m = cx.m;
    let mut isolated = Vec::new();
    let mut ok = true;
    for &op in &m.blocks[block].ops {
        if is_isolated(&m.ops[op].kind) {
            isolated.push(op);
        } else if !verify_op_tree(cx, op) {
            if cx.options.stop_at_first_failure {
                return false;
            }
            ok = false;
        }
    }
    for op in isolated {
        ok &= verify_op_tree(cx, op);
    }
    ok
}

/// Whether `op` is nested (at any depth) in an nv_tileaa function.
fn inside_lowered_function(m: &tileir_ir::Module, op: OpId) -> bool {
    let mut cur = m.parent_op(op);
    while let Some(p) = cur {
        if matches!(m.ops[p].kind, OpKind::TileAa(tileir_ir::TileAaOp::Func { .. })) {
            return true;
        }
        cur = m.parent_op(p);
    }
    false
}

/// One op: its own rules (MLIR's `verifyInvariants`), its nested blocks, and its region
/// rules (`verifyRegions`, symbol tables). Returns true when nothing failed.
fn verify_op_tree(cx: &mut Ctx<'_>, op: OpId) -> bool {
    let m = cx.m;
    let before = error_count(cx);
    match &m.ops[op].kind {
        // Inside an nv_tileaa function, cuda_tile compute ops are residual (the stand-ins
        // for arith/math/scf): they were verified as cuda_tile before the conversion, which
        // only re-typed them (rank-0 tiles as scalars, tiles with layouts), so cuda_tile's
        // own type rules no longer apply; only whether they may survive is checked.
        OpKind::CudaTile(k) if inside_lowered_function(m, op) => {
            if !tileir_ir::is_residual_cuda_tile(k.op) {
                cx.op_error(op, "must be converted to nv_tileaa: it cannot survive inside an nv_tileaa function");
            } else if matches!(k.op, CtOp::MmaF | CtOp::MmaI | CtOp::MmaFScaled) {
                shape::verify_lowered_dot(cx, op, k);
            }
        }
        OpKind::CudaTile(k) => cuda_tile::verify_op(cx, op, k),
        OpKind::TileAa(k) => tile::verify_aa_op(cx, op, k),
        OpKind::TileAs(k) => tile::verify_as_op(cx, op, k),
        // The parser admits these only under -allow-unregistered-dialect.
        OpKind::Unregistered(_) => {}
    }
    if error_count(cx) > before {
        return false;
    }
    let mut nested_ok = true;
    for &region in &m.ops[op].regions {
        for &inner in &m.regions[region].blocks {
            if !verify_body(cx, inner) {
                if cx.options.stop_at_first_failure {
                    return false;
                }
                nested_ok = false;
            }
        }
    }
    if !nested_ok {
        return false;
    }
    if let OpKind::CudaTile(k) = &m.ops[op].kind {
        if inside_lowered_function(m, op) {
            pipeline::verify_iterator_agreement(cx, op);
            return error_count(cx) == before;
        }
        match k.op {
            CtOp::For | CtOp::Loop => control::verify_regions(cx, op, k),
            CtOp::Reduce | CtOp::Scan => shape::verify_regions(cx, op),
            CtOp::Module | CtOp::Entry | CtOp::TestingFunc => module_ops::verify_regions(cx, op, k),
            _ => {}
        }
    }
    error_count(cx) == before
}

/// Terminators a cuda_tile region-holding op's blocks may end with (for messages).
fn expected_terminators(op: CtOp) -> &'static str {
    match op {
        CtOp::Entry | CtOp::TestingFunc => "'cuda_tile.return'",
        CtOp::If => {
            "'cuda_tile.yield', 'cuda_tile.break', 'cuda_tile.continue' or 'cuda_tile.return'"
        }
        CtOp::For => "'cuda_tile.continue'",
        CtOp::Loop => "'cuda_tile.continue' or 'cuda_tile.break'",
        _ => "'cuda_tile.yield'",
    }
}

/// ODS names of the regions, for "region #i ('name')" messages.
fn region_name(op: CtOp, index: usize) -> &'static str {
    match (op, index) {
        (CtOp::If, 0) => "thenRegion",
        (CtOp::If, _) => "elseRegion",
        (CtOp::For | CtOp::Loop, _) => "region",
        _ => "body",
    }
}

fn check_structure(cx: &mut Ctx<'_>) {
    let m = cx.m;
    let mut seen_blocks = HashSet::new();
    let mut stack = vec![m.body];
    while let Some(block) = stack.pop() {
        if !m.blocks.contains(block) || !seen_blocks.insert(block) {
            cx.diags.push(Diagnostic::error(
                Location::Unknown,
                format!("invalid or shared block {block}"),
            ));
            continue;
        }
        for &v in &m.blocks[block].args {
            if !m.values.contains(v) {
                cx.diags.push(Diagnostic::error(
                    Location::Unknown,
                    format!("block {block} has invalid argument {v}"),
                ));
            }
        }
        let ops = &m.blocks[block].ops;
        for (pos, &op) in ops.iter().enumerate() {
            let Some(data) = m.ops.get(op) else {
                cx.diags.push(Diagnostic::error(
                    Location::Unknown,
                    format!("block {block} names invalid op {op}"),
                ));
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
                cx.op_error(
                    op,
                    format!("requires {wanted} region(s), has {}", data.regions.len()),
                );
                continue;
            }
            for (index, &region) in data.regions.iter().enumerate() {
                let Some(r) = m.regions.get(region) else {
                    cx.op_error(op, format!("owns invalid region {region}"));
                    continue;
                };
                if r.blocks.iter().any(|&b| !m.blocks.contains(b)) {
                    cx.op_error(op, format!("region #{index} holds an invalid block"));
                    continue;
                }
                match &data.kind {
                    // MLIR keeps unregistered ops' regions as written.
                    OpKind::Unregistered(_) => {}
                    OpKind::CudaTile(k) => {
                        // `if`'s else region is `MaxSizedRegion<1>`: it may be empty.
                        let optional = k.op == CtOp::If && index == 1;
                        if r.blocks.len() > 1 || (r.blocks.is_empty() && !optional) {
                            let constraint = if optional {
                                "region with at most 1 blocks"
                            } else {
                                "region with 1 blocks"
                            };
                            cx.op_error(
                                op,
                                format!("region #{index} ('{}') failed to verify constraint: {constraint}", region_name(k.op, index)),
                            );
                            continue;
                        }
                        if let Some(&inner) = r.blocks.first() {
                            check_block_terminator(cx, op, k.op, index, inner);
                        }
                    }
                    OpKind::TileAa(_) | OpKind::TileAs(_) => {
                        if r.blocks.len() != 1 {
                            cx.op_error(
                                op,
                                format!(
                                    "region must have exactly one block, has {}",
                                    r.blocks.len()
                                ),
                            );
                            continue;
                        }
                        let inner = r.blocks[0];
                        let needs_return =
                            matches!(data.kind, OpKind::TileAa(tileir_ir::TileAaOp::Func { .. }));
                        let ends_with_terminator =
                            m.blocks[inner].ops.last().is_some_and(|&last| {
                                m.ops.get(last).is_some_and(|d| d.kind.is_terminator())
                            });
                        if needs_return && !ends_with_terminator {
                            cx.op_error(op, "body must end with a return");
                        }
                    }
                }
                stack.extend(r.blocks.iter().rev().copied());
            }
        }
    }
}

/// The block of region `index` of a cuda_tile op must end with a terminator, except the
/// module body (a graph region without one).
fn check_block_terminator(cx: &mut Ctx<'_>, op: OpId, kind: CtOp, index: usize, block: BlockId) {
    let m = cx.m;
    if kind == CtOp::Module {
        return;
    }
    let last = m.blocks[block]
        .ops
        .last()
        .and_then(|&o| m.ops.get(o).map(|d| (o, d)));
    match last {
        Some((_, d)) if d.kind.is_terminator() => {}
        // Entries say it the way the existing tooling expects ("body must end with a return").
        _ if kind == CtOp::Entry || kind == CtOp::TestingFunc => cx.op_error(
            op,
            format!(
                "body must end with a return (the parser adds an implicit one), found {}",
                last.map(|(_, d)| format!("'{}'", d.kind.name()))
                    .unwrap_or_else(|| "an empty block".into())
            ),
        ),
        _ => cx.op_error(
            op,
            format!(
                "region #{index} ('{}') must end with a terminator ({}), found {}",
                region_name(kind, index),
                expected_terminators(kind),
                last.map(|(_, d)| format!("'{}'", d.kind.name()))
                    .unwrap_or_else(|| "an empty block".into())
            ),
        ),
    }
}

fn check_dominance(cx: &mut Ctx<'_>) {
    let m = cx.m;
    // visible[v]: v is defined earlier in the current block or an enclosing one. A flat
    // table (set on definition, cleared when the defining block ends) keeps this linear.
    let mut visible = vec![false; m.values.len()];
    walk_block(cx, m.body, &mut visible);

    fn walk_block(cx: &mut Ctx<'_>, block: BlockId, visible: &mut Vec<bool>) {
        use tileir_ir::entity::EntityId;
        let m = cx.m;
        let mut defined: Vec<ValueId> = m.blocks[block].args.clone();
        for &a in &defined {
            visible[a.index()] = true;
        }
        for &op in &m.blocks[block].ops {
            let data = &m.ops[op];
            for (i, &v) in data.operands.iter().enumerate() {
                if !visible.get(v.index()).copied().unwrap_or(false) {
                    cx.op_error(op, format!("operand #{i} ({v}) does not dominate this use: it is not defined before the op in an enclosing block"));
                }
            }
            for &region in &data.regions {
                for &inner in &m.regions[region].blocks {
                    walk_block(cx, inner, visible);
                }
            }
            for &r in &data.results {
                visible[r.index()] = true;
                defined.push(r);
            }
        }
        for v in defined {
            visible[v.index()] = false;
        }
    }
}

/// The dialects used inside each top-level function-like op.
fn check_function_dialects(cx: &mut Ctx<'_>) {
    let m = cx.m;
    for op in m.walk() {
        let is_func = matches!(m.ops[op].kind.ct(), Some(CtOp::Entry | CtOp::TestingFunc))
            || matches!(
                m.ops[op].kind,
                OpKind::TileAa(tileir_ir::TileAaOp::Func { .. })
            );
        if !is_func {
            continue;
        }
        let Some(block) = m.entry_block(op, 0) else {
            continue;
        };
        let body: Vec<OpId> = m.blocks[block].ops.clone();
        let dialects: HashSet<Dialect> = body.iter().map(|&o| m.ops[o].kind.dialect()).collect();
        let func_dialect = m.ops[op].kind.dialect();
        if func_dialect == Dialect::CudaTile
            && dialects
                .iter()
                .any(|&d| d == Dialect::TileAa || d == Dialect::TileAs)
        {
            cx.op_error(
                op,
                "body mixes cuda_tile with nv_tileaa/nv_tileas operations",
            );
        }
        if func_dialect == Dialect::TileAa
            && body.iter().any(|&o| matches!(m.ops[o].kind.ct(), Some(c) if !tileir_ir::is_residual_cuda_tile(c)))
        {
            cx.op_error(
                op,
                "body still holds cuda_tile operations that nv_tileaa replaces (views, view memory access, tokens, grid queries)",
            );
        }
        if dialects.contains(&Dialect::TileAs) {
            for &o in &body {
                for &v in &m.ops[o].results {
                    if let Type::Tile {
                        layout: None,
                        shape,
                        ..
                    } = m.types.get(m.value_type(v))
                    {
                        if !shape.is_empty() {
                            cx.op_error(o, format!("result has tile type {} without a layout, but the function is in nv_tileas form", cx.vty(v)));
                        }
                    }
                }
            }
        }
    }
}
