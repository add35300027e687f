//! Per-op rules of cuda_tile (module group, §3.12–3.13 and §4): `module`, `entry`,
//! `testing$func`, `global`, `get_global`, the grid queries, `assume`, `assert`,
//! `print_tko`, optimization hints and symbol tables.

use crate::Ctx;
use tileir_ir::location::{DiScope, DiSubprogram};
use tileir_ir::{
    AssumePredicate, Attr, CtOp, CudaTileOp, Location, NumType, OpId, OpKind, TileElem, Type,
    TypeId,
};

pub(crate) fn verify(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    match kind.op {
        CtOp::Module => verify_module(cx, op),
        CtOp::Entry | CtOp::TestingFunc => verify_function(cx, op, kind),
        CtOp::Global => verify_global(cx, op, kind),
        CtOp::Assume => verify_assume(cx, op, kind),
        CtOp::PrintTko => verify_print(cx, op, kind),
        // Symbol resolution is a rule of the enclosing symbol table, run after its nested
        // ops ([`verify_symbol_uses`]); the result type (rank-0 pointer tile) is a schema
        // constraint.
        CtOp::GetGlobal => {}
        // Three rank-0 i32 results and an i1 condition tile are schema constraints.
        CtOp::GetTileBlockId | CtOp::GetNumTileBlocks | CtOp::Assert => {}
        _ => {}
    }
}

/// Rules run after the op's nested ops: for modules, symbol-table uniqueness and then the
/// symbol uses of the ops inside (MLIR's `SymbolTable` trait); debug scopes of the ops in
/// a function body.
pub(crate) fn verify_regions(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    match kind.op {
        CtOp::Module => {
            // Symbol uses are only looked up in a table without duplicates.
            let unique = verify_symbol_table(cx, op);
            if unique {
                verify_symbol_uses(cx, Some(op));
            }
        }
        CtOp::Entry | CtOp::TestingFunc => verify_body_debug_scopes(cx, op),
        _ => {}
    }
}

/// The `di_loc` a location carries, looking through call sites (the caller), fused
/// locations (the first part that has one) and name locations (MLIR's `getDILoc`).
fn di_loc(loc: &Location) -> Option<&Location> {
    match loc {
        Location::DiLoc { .. } => Some(loc),
        Location::CallSite { caller, .. } => di_loc(caller),
        Location::Fused(parts) => parts.iter().find_map(di_loc),
        Location::Name { child, .. } => child.as_deref().and_then(di_loc),
        Location::Unknown | Location::FileLineCol { .. } => None,
    }
}

/// The subprogram an op's location resolves to, if it has a debug scope.
fn subprogram_of(loc: &Location) -> Option<&DiSubprogram> {
    match di_loc(loc)? {
        Location::DiLoc { scope, .. } => Some(scope.subprogram()),
        _ => None,
    }
}

/// The text of a `di_loc` attribute (a location's text without the `loc(…)` wrapper).
fn di_loc_text(loc: &Location) -> String {
    let text = loc.to_string();
    text.strip_prefix("loc(")
        .and_then(|t| t.strip_suffix(')'))
        .map(str::to_string)
        .unwrap_or(text)
}

/// Debug-info rules 6, 1 and 2 (§4.5) for a function's own location.
fn verify_function_debug_info(cx: &mut Ctx<'_>, op: OpId, name: &str) -> bool {
    let loc = cx.m.op_location(op);
    if let Location::CallSite { .. } = loc {
        cx.op_error(op, format!("invalid function debug info location: {loc}. Function location must not be a CallSiteLoc."));
        return false;
    }
    if let Some(Location::DiLoc { scope, .. }) = di_loc(&loc) {
        let DiScope::Subprogram(sp) = scope else {
            let text = match scope {
                DiScope::LexicalBlock(b) => b.to_string(),
                DiScope::Subprogram(s) => s.to_string(),
            };
            cx.op_error(
                op,
                format!("invalid function debug info scope: {text}. Function location must have cuda_tile.di_subprogram debug info scope."),
            );
            return false;
        };
        if sp.linkage_name != name {
            cx.op_error(
                op,
                format!(
                    "invalid function debug info scope: {sp}. Function name \"{name}\" does not match subprogram scope linkage name \"{}\".",
                    sp.linkage_name
                ),
            );
            return false;
        }
    }
    true
}

/// Debug-info rules 3 and 4 (§4.5): ops of a function body carry no scope when the
/// function has none, and otherwise resolve to the function's subprogram. The first
/// offending op of a function is reported.
fn verify_body_debug_scopes(cx: &mut Ctx<'_>, func: OpId) {
    let m = cx.m;
    let func_loc = m.op_location(func);
    let func_sp = subprogram_of(&func_loc).cloned();
    let mut stack: Vec<OpId> = m
        .entry_block(func, 0)
        .map(|b| m.blocks[b].ops.iter().rev().copied().collect())
        .unwrap_or_default();
    while let Some(op) = stack.pop() {
        let loc = m.op_location(op);
        if let Some(sp) = subprogram_of(&loc) {
            match &func_sp {
                None => {
                    cx.op_error(
                        op,
                        format!("invalid operation debug info scope: {sp}. Operation has debug info scope, but function debug info scope is undefined."),
                    );
                    return;
                }
                Some(fsp) if fsp != sp => {
                    cx.error(
                        op,
                        format!("invalid operation debug info scope: {sp}. Operation debug info scope does not match function debug info scope: {fsp}."),
                    );
                    return;
                }
                Some(_) => {}
            }
        }
        for &region in m.ops[op].regions.iter().rev() {
            for &block in m.regions[region].blocks.iter().rev() {
                stack.extend(m.blocks[block].ops.iter().rev().copied());
            }
        }
    }
}

/// The op whose region holds `op`, if any.
fn parent_op(cx: &Ctx<'_>, op: OpId) -> Option<OpId> {
    cx.m.ops[op].parent.and_then(|b| cx.m.parent_op_of_block(b))
}

/// `HasParent<"cuda_tile.module">` for entries and globals.
fn expect_module_parent(cx: &mut Ctx<'_>, op: OpId) {
    let parent = parent_op(cx, op).and_then(|p| cx.m.ops[p].kind.ct());
    if parent != Some(CtOp::Module) {
        cx.op_error(op, "expects parent op 'cuda_tile.module'");
    }
}

fn verify_module(cx: &mut Ctx<'_>, op: OpId) {
    // A generic `"builtin.module"() ({...})` wrapper is the top level too (the parser keeps
    // it as an unregistered op).
    if let Some(parent) = parent_op(cx, op).filter(|&p| cx.m.ops[p].kind.name() != "builtin.module")
    {
        let parent_name = cx.m.ops[parent].kind.name();
        cx.op_error(
            op,
            format!("must appear at the top level, but is nested in '{parent_name}'"),
        );
    }
    // A module holds kernels and globals (and test functions); anything else cannot be
    // encoded in bytecode. Unregistered ops stay allowed, as under
    // -allow-unregistered-dialect.
    let Some(body) = cx.m.entry_block(op, 0) else {
        return;
    };
    // Debug rule 5: module-level items other than functions carry no debug scope.
    for &item in &cx.m.blocks[body].ops {
        let is_function = matches!(
            cx.m.ops[item].kind.ct(),
            Some(CtOp::Entry | CtOp::TestingFunc)
        );
        let loc = cx.m.op_location(item);
        if let (false, Some(di)) = (is_function, di_loc(&loc)) {
            let text = di_loc_text(di);
            cx.op_error(item, format!("invalid operation debug info scope: {text}. Global variables must not have scope."));
            break;
        }
    }
    for &item in &cx.m.blocks[body].ops {
        let kind = &cx.m.ops[item].kind;
        let allowed = matches!(
            kind.ct(),
            Some(CtOp::Entry | CtOp::Global | CtOp::TestingFunc)
        ) || matches!(kind, OpKind::Unregistered(_));
        if !allowed {
            // NVIDIA 13.3's wording, with the culprit pointed at by a remark.
            cx.op_error(op, "only function and global ops are allowed in the body");
            let loc = cx.m.op_location(item);
            cx.diags.push(tileir_ir::Diagnostic {
                severity: tileir_ir::Severity::Remark,
                message: "invalid op".into(),
                loc,
                notes: Vec::new(),
            });
            break;
        }
    }
}

/// Symbols of a module's direct children are unique (MLIR's SymbolTable trait). Returns
/// false after reporting the first redefinition.
fn verify_symbol_table(cx: &mut Ctx<'_>, op: OpId) -> bool {
    let Some(body) = cx.m.entry_block(op, 0) else {
        return true;
    };
    // Name → first definition; a hash map keeps big modules linear.
    let mut seen: std::collections::HashMap<&str, OpId> = std::collections::HashMap::new();
    for &item in &cx.m.blocks[body].ops {
        let Some(k) = cx.m.ops[item].kind.cuda_tile() else {
            continue;
        };
        if !k
            .schema()
            .has(tileir_ir::dialect::cuda_tile::schema::traits::SYMBOL)
        {
            continue;
        }
        let Some(name) = k.str("sym_name") else {
            continue;
        };
        if let Some(first) = seen.get(name) {
            let note_loc = cx.m.op_location(*first);
            cx.error(item, format!("redefinition of symbol named '{name}'"));
            if let Some(last) = cx.diags.pop() {
                cx.diags
                    .push(last.with_note(note_loc, "see existing symbol definition here"));
            }
            return false;
        } else {
            seen.insert(name, item);
        }
    }
    true
}

/// The nearest symbol table enclosing `op`: a `cuda_tile.module`, or `None` for the top
/// level.
fn symbol_table_of(cx: &Ctx<'_>, op: OpId) -> Option<OpId> {
    let mut table = parent_op(cx, op);
    while let Some(t) = table {
        if cx.m.ops[t].kind.ct() == Some(CtOp::Module) {
            return Some(t);
        }
        table = parent_op(cx, t);
    }
    None
}

/// `get_global @g` names a `global` of its nearest enclosing symbol table (`table`: a
/// cuda_tile.module, or `None` for the top level), whose element type is the result's
/// pointee. Checks the uses whose nearest table is `table`, in order, and stops at the
/// first failure (MLIR's symbol-table verifier interrupts its walk there).
pub(crate) fn verify_symbol_uses(cx: &mut Ctx<'_>, table: Option<OpId>) {
    let m = cx.m;
    let items: &[OpId] = match table {
        Some(t) => match m.entry_block(t, 0) {
            Some(b) => &m.blocks[b].ops,
            None => return,
        },
        None => &m.blocks[m.body].ops,
    };
    // Globals by name (the first definition wins, as duplicates were rejected before).
    let mut globals: std::collections::HashMap<&str, OpId> = std::collections::HashMap::new();
    for &g in items {
        if let Some(gk) = m.ops[g].kind.cuda_tile().filter(|gk| gk.op == CtOp::Global) {
            if let Some(n) = gk.str("sym_name") {
                globals.entry(n).or_insert(g);
            }
        }
    }
    for op in m.walk() {
        let Some(k) = m.ops[op].kind.cuda_tile() else {
            continue;
        };
        if k.op != CtOp::GetGlobal || symbol_table_of(cx, op) != table {
            continue;
        }
        let Some(name) = k.str("name") else { continue };
        let global = globals.get(name).copied();
        let Some(global) = global else {
            cx.op_error(op, format!("'{name}' does not reference a valid global"));
            return;
        };
        let global_elem = match m.ops[global].kind.cuda_tile().and_then(|g| g.get("value")) {
            Some(Attr::Dense(d)) => d.elem,
            _ => continue,
        };
        let Some(&result) = m.ops[op].results.first() else {
            continue;
        };
        if let Type::Tile {
            elem: TileElem::Ptr(pointee),
            ..
        } = cx.type_of(result)
        {
            if *pointee != global_elem {
                cx.op_error(
                    op,
                    format!("pointee type of result type '!cuda_tile.ptr<{pointee}>' does not match type '{global_elem}' of the global @{name}"),
                );
                return;
            }
        }
    }
}

/// The function type of an entry / testing$func, if well formed.
fn function_type(cx: &Ctx<'_>, kind: &CudaTileOp) -> Option<(Vec<TypeId>, Vec<TypeId>)> {
    match kind.get("function_type")? {
        Attr::Type(t) => match cx.m.types.try_get(*t)? {
            Type::Function { inputs, results } => Some((inputs.clone(), results.clone())),
            _ => None,
        },
        _ => None,
    }
}

fn verify_function(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let is_entry = kind.op == CtOp::Entry;
    if is_entry {
        expect_module_parent(cx, op);
    }
    let Some((inputs, results)) = function_type(cx, kind) else {
        cx.op_error(
            op,
            "requires attribute 'function_type' to be a function type",
        );
        return;
    };
    // FunctionOpInterface: the body's arguments are the parameters.
    if let Some(block) = cx.m.entry_block(op, 0) {
        let args = cx.m.blocks[block].args.clone();
        if args.len() != inputs.len() {
            cx.op_error(
                op,
                format!(
                    "entry block must have {} arguments to match function signature",
                    inputs.len()
                ),
            );
            return;
        }
        for (i, (&a, &t)) in args.iter().zip(&inputs).enumerate() {
            if cx.m.value_type(a) != t {
                cx.op_error(
                    op,
                    format!(
                        "type of entry block argument #{i}({}) must match the type of the corresponding argument in function signature({})",
                        cx.vt(a),
                        cx.ty(t)
                    ),
                );
                return;
            }
        }
    }
    // testing$func takes and returns anything; only its debug info is checked.
    let name = kind.str("sym_name").unwrap_or_default().to_string();
    if !is_entry {
        verify_function_debug_info(cx, op, &name);
        return;
    }
    if !results.is_empty() {
        cx.op_error(op, "entry op must not return values");
        return;
    }
    if inputs
        .iter()
        .any(|&t| matches!(cx.m.types.get(t), Type::Tile { shape, .. } if !shape.is_empty()))
    {
        cx.op_error(
            op,
            "entry op must have scalar types (rank 0 !cuda_tile.tile)",
        );
        return;
    }
    if !verify_function_debug_info(cx, op, &name) {
        return;
    }
    verify_hints(cx, op, kind);
}

fn verify_global(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    expect_module_parent(cx, op);
    if let Some(Attr::Dense(d)) = kind.get("value") {
        if d.shape.len() != 1 {
            cx.op_error(op, "type must have rank 1");
            return;
        }
    }
    if let Some(a) = kind.int("alignment") {
        // 0 means "the default alignment"; anything else is a power of two.
        if a < 0 || (a != 0 && a & (a - 1) != 0) {
            cx.op_error(
                op,
                format!("'alignment' must be 0 or a power of two, got {a}"),
            );
        }
    }
}

/// The `assume` predicates' rules (§2.2), worded as NVIDIA's attribute verifiers.
fn verify_assume(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let Some(pred) = kind.predicate() else { return };
    let Some(&value) = cx.m.ops[op].operands.first() else {
        return;
    };
    let ty = cx.type_of(value);
    match pred {
        AssumePredicate::DivBy {
            divisor,
            every_along,
        } => {
            const NAME: &str = "'cuda_tile.div_by'";
            if !divisor.is_power_of_two() {
                cx.op_error(op, format!("{NAME} divisor must be a power of 2"));
                return;
            }
            if *divisor > 1u64 << 62 {
                cx.op_error(op, format!("{NAME} divisor is too large"));
                return;
            }
            if let Type::TensorView(_) = ty {
                if every_along.is_some() {
                    cx.op_error(op, format!("{NAME} 'every'/'along' cannot be used if the constrained value is a tensor_view"));
                }
                return;
            }
            let Type::Tile { shape, elem, .. } = ty else {
                cx.op_error(
                    op,
                    format!(
                        "{NAME} is valid only for tile of integer/pointer or tensor_view values"
                    ),
                );
                return;
            };
            if shape.is_empty() && every_along.is_some() {
                cx.op_error(op, format!("{NAME} 'every'/'along' cannot be used if the constrained value is a 0D tile"));
                return;
            }
            if !is_int_or_ptr(*elem) {
                cx.op_error(
                    op,
                    format!(
                        "{NAME} is valid only for tile of integer/pointer or tensor_view values"
                    ),
                );
                return;
            }
            if let Some((every, along)) = every_along {
                let rank = shape.len() as i64;
                if *along < 0 || *along >= rank {
                    cx.op_error(
                        op,
                        format!("{NAME} every_dim ({along}) must be >= 0 and < tile rank ({rank})"),
                    );
                    return;
                }
                let dim = shape[*along as usize];
                if *every < 0 || *every > dim {
                    cx.op_error(
                        op,
                        format!("expected {NAME} every_dim to be within 0 and the size of the respective dimension ({dim})"),
                    );
                }
            }
        }
        AssumePredicate::SameElements(values) => {
            const NAME: &str = "'cuda_tile.same_elements'";
            let Type::Tile { shape, elem, .. } = ty else {
                cx.op_error(
                    op,
                    format!("{NAME} is valid only for tile of integer/pointer values"),
                );
                return;
            };
            if !is_int_or_ptr(*elem) {
                cx.op_error(
                    op,
                    format!("{NAME} is valid only for tile of integer/pointer values"),
                );
                return;
            }
            if values.len() != shape.len() {
                cx.op_error(
                    op,
                    format!(
                        "expected number of values in {NAME} ({}) to match rank of constrained tile ({})",
                        values.len(),
                        shape.len()
                    ),
                );
                return;
            }
            for (i, (&v, &dim)) in values.iter().zip(shape).enumerate() {
                if v < 0 || v > dim {
                    cx.op_error(
                        op,
                        format!("expected {NAME} value {i} to be within 0 and the size of the respective dimension ({dim})"),
                    );
                    return;
                }
            }
        }
        AssumePredicate::Bounded(lb, ub) => {
            const NAME: &str = "'cuda_tile.bounded'";
            let elem = match ty {
                Type::Tile {
                    elem: TileElem::Num(n),
                    ..
                } if n.is_int() => *n,
                _ => {
                    cx.op_error(
                        op,
                        format!("{NAME} is valid only for tile of integer values"),
                    );
                    return;
                }
            };
            let (min, max) = signed_range(elem);
            if let Some(l) = lb {
                if *l < min || *l > max {
                    cx.op_error(
                        op,
                        format!("{NAME} expects lower bound to be within [{min}, {max}]"),
                    );
                    return;
                }
            }
            if let Some(u) = ub {
                if *u < min || *u > max {
                    cx.op_error(
                        op,
                        format!("{NAME} expects upper bound to be within [{min}, {max}]"),
                    );
                    return;
                }
            }
            if let (Some(l), Some(u)) = (lb, ub) {
                if l > u {
                    cx.op_error(
                        op,
                        format!(
                            "{NAME} expects lower bound to be less than or equal to upper bound"
                        ),
                    );
                }
            }
        }
    }
}

fn is_int_or_ptr(e: TileElem) -> bool {
    match e {
        TileElem::Ptr(_) => true,
        TileElem::Num(n) => n.is_int(),
    }
}

/// The signed range of an integer type's width.
fn signed_range(n: NumType) -> (i64, i64) {
    let bits = n.bit_width();
    if bits >= 64 {
        (i64::MIN, i64::MAX)
    } else {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    }
}

/// `print_tko`: every `%` conversion (other than `%%`) consumes one argument.
fn verify_print(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    let Some(text) = kind.str("str") else { return };
    let args = match kind.group("args", cx.m.ops[op].operands.len()) {
        Some(r) => r.len(),
        None => return,
    };
    let bytes = text.as_bytes();
    let mut expected = 0usize;
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes[pos] != b'%' {
            pos += 1;
            continue;
        }
        // A conversion runs to the first conversion character (printf's set).
        let end = bytes[pos + 1..]
            .iter()
            .position(|c| b"diuoxXeEfFgGaAcspn%".contains(c));
        let Some(offset) = end else {
            cx.op_error(op, "found unterminated format expression");
            return;
        };
        let expr_end = pos + 1 + offset;
        if expr_end == pos + 1 && bytes[expr_end] == b'%' {
            // `%%` prints a percent sign.
            pos = expr_end + 1;
            continue;
        }
        expected += 1;
        pos += 1;
    }
    if expected != args {
        cx.op_error(
            op,
            format!("incorrect number of operands: expected {expected}, found {args}"),
        );
    }
}

/// Architecture keys of `optimization_hints`.
const HINT_ARCHS: &[&str] = &[
    "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120",
    "sm_121", "default",
];

/// Checks the `optimization_hints` of `op` (entry, view and pointer loads/stores).
/// Returns false when the op must fail: a non-dictionary entry (always checked), or hint
/// warnings under `-Werr-hints`. Parameters are looked at only under `-Wunsupported-hints`.
pub(crate) fn verify_hints(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) -> bool {
    let Some(hints) = kind.get("optimization_hints") else {
        return true;
    };
    let Attr::Dict(entries) = hints else {
        cx.op_error(op, format!("attribute 'optimization_hints' must be a dictionary of per-architecture dictionaries, got {}", hints.kind_name()));
        return false;
    };
    if entries.is_empty() {
        return true;
    }
    let valid_params: &[&str] = match kind.op {
        CtOp::Entry => &["num_cta_in_cga", "num_worker_warps_per_cta", "occupancy"],
        CtOp::LoadViewTko | CtOp::StoreViewTko => &["latency", "allow_tma"],
        CtOp::LoadPtrTko | CtOp::StorePtrTko => &["latency"],
        _ => &[],
    };
    let mut warned = false;
    for (arch, params) in entries {
        let Attr::Dict(params) = params else {
            cx.op_error(
                op,
                format!("expected dictionary attribute for optimization_hints entry `{arch}` got value={}", attr_text(params)),
            );
            return false;
        };
        if !cx.options.warn_unsupported_hints {
            continue;
        }
        if !HINT_ARCHS.contains(&arch.as_str()) {
            cx.warning(op, format!("unknown hint key {arch}"));
            warned = true;
            continue;
        }
        for (param, value) in params {
            if !valid_params.is_empty() && !valid_params.contains(&param.as_str()) {
                cx.warning(
                    op,
                    format!("{param} is not known hint for current Operation"),
                );
                warned = true;
                continue;
            }
            if let Some(problem) =
                tileir_ir::dialect::cuda_tile::hints::value_problem(arch, param, value)
            {
                cx.warning(op, problem);
                warned = true;
            }
        }
    }
    if warned && cx.options.hints_are_errors {
        cx.op_error(op, "Optimization hints verification failed");
        return false;
    }
    true
}

/// A short rendering of an attribute value for messages.
fn attr_text(a: &Attr) -> String {
    match a {
        Attr::Int(v) => format!("{v} : i64"),
        Attr::Bool(b) => b.to_string(),
        Attr::Str(s) => format!("\"{s}\""),
        Attr::Unit => "unit".into(),
        other => other.kind_name().to_string(),
    }
}
