//! `loop-split`: splits a `for` loop at the iteration where an `if` on the induction
//! variable flips, so that neither half carries the branch.
//!
//! A candidate is an `if` nested in the loop whose condition is `cmpi(iv, x)` (either
//! operand order, normalized to `iv <pred> x`) with `x` defined outside the loop, `pred` one
//! of lt/le/gt/ge, and the compare's signedness equal to the loop's (`unsigned` loops
//! compare unsigned). The split point is `x` (lt/ge) or `x + 1` (le/gt); for a step that is
//! not the constant 1 it is rounded up to the next iteration,
//! `lb + divi(split - lb, step, rounding<positive_inf>) * step`, then clamped:
//! the first loop runs `[lb, mini(split, ub))`, the second `[maxi(split, lb), ub)` with the
//! first loop's results as its initial values. In each copy of the body every `if` directly
//! in the loop body that uses the compare is replaced by the branch known to run there (its
//! yielded values replace its results; a branch ending in `continue` ends the body copy
//! there), and the compare, if still needed elsewhere, becomes a constant.
//!
//! Profitability: with threshold 1 any candidate splits; otherwise some `if` using the
//! compare must have at least `threshold` ops (terminator excluded) in a branch, or a
//! "heavy" op (loads, stores, mma, reduce, nested if/for) directly in a branch. The
//! discardable integer attribute `cuda_tile.loop_split` on the `if`, else on the `for`,
//! else on the enclosing function, overrides the `split-threshold` option; 0 disables.
//! Loops are visited innermost first, one split per loop per run. New ops carry the loop's
//! location (the compare's constant carries the compare's); the split loops keep
//! `unsigned` but not discardable attributes.
//!
//! Unlike NVIDIA's pass, an `x` that is a block argument of the loop (or of a region inside
//! it) is not treated as loop-invariant, and bodies without loop-carried values get exactly
//! one terminator.

use std::collections::{HashMap, HashSet};
use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::{
    Attr, BlockId, ComparisonPredicate, CtOp, CudaTileOp, DenseElements, Diagnostics, LocId,
    Module, NumType, OpId, OpKind, RoundingMode, Signedness, TileElem, Type, TypeId, ValueId,
};
use tileir_pass::{pass_options, Pass};

/// Registered name.
pub const NAME: &str = "loop-split";

/// The discardable attribute that overrides the threshold on an entry, `for` or `if`
/// (NVIDIA's `kLoopSplitThresholdAttrName`).
pub const THRESHOLD_ATTR: &str = "cuda_tile.loop_split";

pass_options! {
    /// `loop-split` options.
    pub struct LoopSplitOptions {
        /// Minimum number of ops in a branch for a split to pay off (1: always split;
        /// 0: never).
        split_threshold("split-threshold"): i64 = 1,
    }
}

/// The pass.
pub struct LoopSplit {
    /// Its options.
    pub options: LoopSplitOptions,
}

impl Pass for LoopSplit {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        split_loops(module, self.options.split_threshold);
        Ok(())
    }
}

fn ct(m: &Module, op: OpId) -> Option<CtOp> {
    m.ops[op].kind.ct()
}

/// Ops nested in `op` (not `op` itself) in post-order, or the whole module for `None`.
fn post_order(m: &Module, op: Option<OpId>) -> Vec<OpId> {
    fn visit(m: &Module, block: BlockId, out: &mut Vec<OpId>) {
        for &o in &m.blocks[block].ops {
            for &r in &m.ops[o].regions {
                for &b in &m.regions[r].blocks {
                    visit(m, b, out);
                }
            }
            out.push(o);
        }
    }
    let mut out = Vec::new();
    match op {
        None => visit(m, m.body, &mut out),
        Some(op) => {
            for &r in &m.ops[op].regions {
                for &b in &m.regions[r].blocks {
                    visit(m, b, &mut out);
                }
            }
        }
    }
    out
}

/// The integer value of the threshold attribute on `op`, if any.
fn hint(m: &Module, op: OpId) -> Option<i64> {
    let c = m.ops[op].kind.cuda_tile()?;
    let (_, attr) = c.discardable.iter().find(|(n, _)| n == THRESHOLD_ATTR)?;
    match attr {
        Attr::Int(v) => Some(*v),
        Attr::Bool(b) => Some(i64::from(*b)),
        Attr::Scalar(n, bits) if n.is_int() => {
            let w = n.bit_width();
            Some(if w >= 64 {
                *bits as i64
            } else {
                ((*bits << (64 - w)) as i64) >> (64 - w)
            })
        }
        _ => None,
    }
}

/// True if `v` is defined inside `op` (an op result or a block argument of a nested block).
fn defined_inside(m: &Module, v: ValueId, op: OpId) -> bool {
    let mut block = m.value_block(v);
    while let Some(b) = block {
        let Some(parent) = m.parent_op_of_block(b) else {
            return false;
        };
        if parent == op {
            return true;
        }
        block = m.ops[parent].parent;
    }
    false
}

/// A splittable condition found in a loop.
struct Split {
    cmp: OpId,
    pred: ComparisonPredicate,
    rhs: ValueId,
    /// The `if`s directly in the loop body that use the compare.
    ifs: HashSet<OpId>,
    /// gt/ge: the `then` branch runs in the second loop.
    second_then: bool,
    /// The compare has other users and must stay (as a constant) in each copy.
    keep_cmp: bool,
}

fn unsigned_loop(m: &Module, for_op: OpId) -> bool {
    m.ops[for_op]
        .kind
        .cuda_tile()
        .is_some_and(|c| c.flag("unsignedCmp"))
}

/// Whether splitting for `if_op` pays off at `threshold`.
fn profitable(m: &Module, if_op: OpId, threshold: i64) -> bool {
    if threshold == 1 {
        return true;
    }
    let count = |i: usize| -> (i64, bool) {
        let mut n = 0i64;
        let mut heavy = false;
        for &b in &m.regions[m.ops[if_op].regions[i]].blocks {
            for &o in &m.blocks[b].ops {
                n += 1;
                heavy |= matches!(
                    ct(m, o),
                    Some(
                        CtOp::LoadPtrTko
                            | CtOp::LoadViewTko
                            | CtOp::StorePtrTko
                            | CtOp::StoreViewTko
                            | CtOp::MmaF
                            | CtOp::MmaI
                            | CtOp::Reduce
                            | CtOp::If
                            | CtOp::For
                    )
                );
            }
        }
        (n - 1, heavy)
    };
    let (then_size, then_heavy) = count(0);
    let (else_size, else_heavy) = count(1);
    then_size >= threshold || else_size >= threshold || then_heavy || else_heavy
}

fn find_split(m: &Module, for_op: OpId, if_op: OpId, threshold: i64) -> Option<Split> {
    if threshold == 0 {
        return None;
    }
    let cond = *m.ops[if_op].operands.first()?;
    let cmp = m
        .defining_op(cond)
        .filter(|&d| ct(m, d) == Some(CtOp::CmpI))?;
    let kind = m.ops[cmp].kind.cuda_tile()?;
    let signed = kind.enum_attr::<Signedness>("signedness")?;
    let loop_signedness = if unsigned_loop(m, for_op) {
        Signedness::Unsigned
    } else {
        Signedness::Signed
    };
    if signed != loop_signedness {
        return None;
    }
    let body = m.entry_block(for_op, 0)?;
    let iv = *m.blocks[body].args.first()?;
    let pred = kind.enum_attr::<ComparisonPredicate>("comparison_predicate")?;
    let [lhs, rhs] = m.ops[cmp].operands[..] else {
        return None;
    };
    let (pred, rhs) = if lhs == iv {
        (pred, rhs)
    } else if rhs == iv {
        let swapped = match pred {
            ComparisonPredicate::LessThan => ComparisonPredicate::GreaterThan,
            ComparisonPredicate::LessThanOrEqual => ComparisonPredicate::GreaterThanOrEqual,
            ComparisonPredicate::GreaterThan => ComparisonPredicate::LessThan,
            ComparisonPredicate::GreaterThanOrEqual => ComparisonPredicate::LessThanOrEqual,
            _ => return None,
        };
        (swapped, lhs)
    } else {
        return None;
    };
    if defined_inside(m, rhs, for_op) {
        return None;
    }
    let second_then = match pred {
        ComparisonPredicate::GreaterThan | ComparisonPredicate::GreaterThanOrEqual => true,
        ComparisonPredicate::LessThan | ComparisonPredicate::LessThanOrEqual => false,
        _ => return None,
    };
    let result = m.result(cmp, 0);
    let (mut ifs, mut keep_cmp, mut any_profitable) = (HashSet::new(), false, false);
    for user in post_order(m, Some(for_op)) {
        for _ in m.ops[user].operands.iter().filter(|&&v| v == result) {
            if ct(m, user) == Some(CtOp::If) {
                any_profitable |= profitable(m, user, threshold);
                if m.parent_op(user) == Some(for_op) && m.ops[user].operands[0] == result {
                    ifs.insert(user);
                    continue;
                }
            }
            keep_cmp = true;
        }
    }
    any_profitable.then_some(Split {
        cmp,
        pred,
        rhs,
        ifs,
        second_then,
        keep_cmp,
    })
}

/// The pieces of a `for` op.
struct ForParts {
    lb: ValueId,
    ub: ValueId,
    step: ValueId,
    inits: Vec<ValueId>,
}

fn for_parts(m: &Module, for_op: OpId) -> Option<ForParts> {
    let ops = &m.ops[for_op].operands;
    if ops.len() < 3 {
        return None;
    }
    Some(ForParts {
        lb: ops[0],
        ub: ops[1],
        step: ops[2],
        inits: ops[3..].to_vec(),
    })
}

/// True if `v` is a one-element integer constant equal to 1.
fn is_const_one(m: &Module, v: ValueId) -> bool {
    let Some(d) = m
        .defining_op(v)
        .filter(|&d| ct(m, d) == Some(CtOp::Constant))
    else {
        return false;
    };
    match m.ops[d].kind.cuda_tile().and_then(|c| c.get("value")) {
        Some(Attr::Dense(DenseElements { elem, bits, shape })) => {
            elem.is_int()
                && shape.iter().product::<i64>() == 1
                && bits.first().is_some_and(|&b| {
                    let w = elem.bit_width();
                    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
                    b & mask == 1
                })
        }
        _ => false,
    }
}

/// Builds ops just before an anchor.
struct At<'m> {
    m: &'m mut Module,
    anchor: OpId,
    loc: LocId,
}

impl At<'_> {
    fn value(&mut self, op: CudaTileOp, operands: Vec<ValueId>, ty: TypeId) -> ValueId {
        let o = self
            .m
            .create_op(OpKind::CudaTile(op), operands, &[ty], self.loc);
        self.m.insert_op_before(self.anchor, o);
        self.m.result(o, 0)
    }
    fn constant(&mut self, ty: TypeId, bits: u64) -> Option<ValueId> {
        let (shape, elem) = match self.m.types.get(ty) {
            Type::Tile {
                shape,
                elem: TileElem::Num(n),
                ..
            } => (shape.clone(), *n),
            _ => return None,
        };
        let c = CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(DenseElements {
                elem,
                shape,
                bits: vec![bits],
            }),
        );
        Some(self.value(c, vec![], ty))
    }
}

fn signedness_attr(s: Signedness) -> Attr {
    Attr::Enum(Signedness::MNEMONIC, s.keyword())
}

/// Creates one copy of the loop over `[lb, ub)` before `for_op`, keeping the branch
/// `clone_then` of every split `if`.
fn copy_loop(
    m: &mut Module,
    for_op: OpId,
    split: &Split,
    ops_to_clone: &[OpId],
    (lb, ub, inits): (ValueId, ValueId, Vec<ValueId>),
    clone_then: bool,
) -> OpId {
    let loc = m.ops[for_op].loc;
    let step = m.ops[for_op].operands[2];
    let mut kind = CudaTileOp::new(CtOp::For);
    if unsigned_loop(m, for_op) {
        kind.set("unsignedCmp", Attr::Unit);
    }
    if kind.schema().has(traits::SEGMENTED) {
        kind = kind.with_segments(&[1, 1, 1, inits.len() as u32]);
    }
    let types: Vec<TypeId> = inits.iter().map(|&v| m.value_type(v)).collect();
    let mut operands = vec![lb, ub, step];
    operands.extend(inits.iter().copied());
    let new = m.create_op(OpKind::CudaTile(kind), operands, &types, loc);
    m.insert_op_before(for_op, new);
    let old_body = m.entry_block(for_op, 0).expect("for has a body");
    let old_args = m.blocks[old_body].args.clone();
    let arg_types: Vec<TypeId> = old_args.iter().map(|&a| m.value_type(a)).collect();
    let region = m.ops[new].regions[0];
    let body = m.add_block(region, &arg_types);
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    for (i, &a) in old_args.iter().enumerate() {
        let na = m.blocks[body].args[i];
        m.values[na].name = m.values[a].name.clone();
        map.insert(a, na);
    }
    'ops: for &op in ops_to_clone {
        if op == split.cmp {
            let i1 = m.types.scalar_tile(NumType::I1);
            let c = CudaTileOp::new(CtOp::Constant).with(
                "value",
                Attr::Dense(DenseElements {
                    elem: NumType::I1,
                    shape: vec![],
                    bits: vec![u64::from(clone_then)],
                }),
            );
            let cloc = m.ops[op].loc;
            let c = m.create_op(OpKind::CudaTile(c), vec![], &[i1], cloc);
            m.append_op(body, c);
            map.insert(m.result(split.cmp, 0), m.result(c, 0));
            continue;
        }
        if !split.ifs.contains(&op) {
            let c = m.clone_op(op, &mut map);
            m.append_op(body, c);
            continue;
        }
        let Some(branch) = m.entry_block(op, if clone_then { 0 } else { 1 }) else {
            continue;
        };
        for sub in m.blocks[branch].ops.clone() {
            match ct(m, sub) {
                Some(CtOp::Continue) => {
                    let c = m.clone_op(sub, &mut map);
                    m.append_op(body, c);
                    break 'ops;
                }
                Some(CtOp::Yield) => {
                    let results = m.ops[op].results.clone();
                    let yielded = m.ops[sub].operands.clone();
                    for (r, y) in results.into_iter().zip(yielded) {
                        let y = *map.get(&y).unwrap_or(&y);
                        map.insert(r, y);
                    }
                }
                _ => {
                    let c = m.clone_op(sub, &mut map);
                    m.append_op(body, c);
                }
            }
        }
    }
    new
}

/// Splits `for_op` per `split`.
fn perform(m: &mut Module, for_op: OpId, split: &Split) -> Option<()> {
    let parts = for_parts(m, for_op)?;
    let loc = m.ops[for_op].loc;
    let sign = if unsigned_loop(m, for_op) {
        Signedness::Unsigned
    } else {
        Signedness::Signed
    };
    let ty = m.value_type(parts.step);
    let mut at = At {
        m,
        anchor: for_op,
        loc,
    };
    let mut point = split.rhs;
    if matches!(
        split.pred,
        ComparisonPredicate::GreaterThan | ComparisonPredicate::LessThanOrEqual
    ) {
        let one = at.constant(ty, 1)?;
        point = at.value(CudaTileOp::new(CtOp::AddI), vec![point, one], ty);
    }
    if !is_const_one(at.m, parts.step) {
        // Align the split to an iteration: lb + ceil((split - lb) / step) * step.
        let diff = at.value(CudaTileOp::new(CtOp::SubI), vec![point, parts.lb], ty);
        let div = CudaTileOp::new(CtOp::DivI)
            .with("signedness", signedness_attr(sign))
            .with(
                "rounding",
                Attr::Enum(RoundingMode::MNEMONIC, RoundingMode::PositiveInf.keyword()),
            );
        let k = at.value(div, vec![diff, parts.step], ty);
        let kstep = at.value(CudaTileOp::new(CtOp::MulI), vec![k, parts.step], ty);
        point = at.value(CudaTileOp::new(CtOp::AddI), vec![parts.lb, kstep], ty);
    }
    let min = at.value(
        CudaTileOp::new(CtOp::MinI).with("signedness", signedness_attr(sign)),
        vec![point, parts.ub],
        ty,
    );
    let max = at.value(
        CudaTileOp::new(CtOp::MaxI).with("signedness", signedness_attr(sign)),
        vec![point, parts.lb],
        ty,
    );
    let body = m.entry_block(for_op, 0)?;
    let ops_to_clone: Vec<OpId> = m.blocks[body]
        .ops
        .iter()
        .copied()
        .filter(|&o| split.keep_cmp || o != split.cmp)
        .collect();
    let first = copy_loop(
        m,
        for_op,
        split,
        &ops_to_clone,
        (parts.lb, min, parts.inits),
        !split.second_then,
    );
    let first_results = m.ops[first].results.clone();
    let second = copy_loop(
        m,
        for_op,
        split,
        &ops_to_clone,
        (max, parts.ub, first_results),
        split.second_then,
    );
    let old = m.ops[for_op].results.clone();
    let new = m.ops[second].results.clone();
    for (o, n) in old.into_iter().zip(new) {
        if let Some(name) = m.values[o].name.clone() {
            m.set_name(n, &name);
        }
        m.replace_all_uses(o, n);
    }
    m.detach_op(for_op);
    Some(())
}

/// The nearest enclosing function-like op of `op`.
fn enclosing_function(m: &Module, op: OpId) -> Option<OpId> {
    let mut cur = m.parent_op(op);
    while let Some(o) = cur {
        if m.ops[o]
            .kind
            .cuda_tile()
            .is_some_and(|c| c.schema().has(traits::FUNCTION))
        {
            return Some(o);
        }
        cur = m.parent_op(o);
    }
    None
}

/// Runs the split over every `for` in the module (innermost first); returns how many loops
/// were split.
pub fn split_loops(m: &mut Module, default_threshold: i64) -> usize {
    let mut count = 0;
    for for_op in post_order(m, None) {
        if ct(m, for_op) != Some(CtOp::For) || !m.is_attached(for_op) {
            continue;
        }
        let entry_hint = enclosing_function(m, for_op).and_then(|f| hint(m, f));
        let for_hint = hint(m, for_op);
        for if_op in post_order(m, Some(for_op)) {
            if ct(m, if_op) != Some(CtOp::If) {
                continue;
            }
            let threshold = hint(m, if_op)
                .or(for_hint)
                .or(entry_hint)
                .unwrap_or(default_threshold);
            if let Some(split) = find_split(m, for_op, if_op, threshold) {
                if perform(m, for_op, &split).is_some() {
                    count += 1;
                }
                break;
            }
        }
    }
    count
}
