//! `canonicalize`: MLIR's greedy canonicalizer, specialised to cuda_tile.
//!
//! The driver follows MLIR's `applyPatternsGreedily` with top-down traversal:
//! each iteration walks the module in pre-order, registers every `constant` with a
//! constant folder (equal constants of one function are deduplicated, and constants
//! are hoisted to the start of the function body, in MLIR's order: a constant already at
//! the front, or right after another known constant, stays; any other is moved to the very
//! front), then visits every op: trivially dead ops are erased, then folds are tried, then
//! canonicalization patterns. Iterations repeat until nothing changes or the iteration
//! bound (`max-iterations`) is reached.
//!
//! Folds and patterns (the cuda_tile reference's set, plus the `select` folds of MLIR's
//! `arith.select` that the dialect notes list):
//! - dead ops: results unused and no side effects (`Pure` / no-memory-effect ops, and
//!   `if`s whose nested ops are all effect-free: `if` has recursive memory effects);
//! - `addf`: a `mulf` on the right operand moves to the left;
//! - `assume P (assume P x)` folds to the inner `assume`;
//! - `if`: `if (xori c, true)` swaps its branches; unused results are dropped; results
//!   both branches yield identically, or as `true`/`false` constants, become the value,
//!   the condition or its negation; a constant condition inlines the taken branch (a
//!   branch ending in `return`/`continue`/`break` also drops the rest of the block);
//!   results yielded from outside both branches become `select`s (tiles only);
//!   an empty `else` is dropped; consecutive `if`s on the same (or negated) condition
//!   merge; an `if` whose `then` holds only another `if` combines conditions with `andi`;
//!   an `if` whose branches both leave the parent keeps the `then` branch and inlines the
//!   `else` branch after it;
//! - `select`: equal operands, constant condition (splat, or elementwise with constant
//!   operands), `select(c, true, false) → c`, `select(c, false, true) → xori(c, true)`,
//!   with option `select-to-ext` (on by default), `select(c, 1, 0) → exti c unsigned` (and `0, 1` with a
//!   negated condition),
//!   `select` of a `select` on the same condition, `select(xori(c, true), a, b) →
//!   select(c, b, a)`, `select(cmpi eq/ne a b, a, b)`.
//!
//! Every rewritten op keeps the location of the op it replaces; hoisted constants keep
//! their own location (MLIR erases it; we keep it so that debug scopes stay valid).
//! Constants are not hoisted out of `reduce`/`scan` bodies (their bodies are treated as
//! isolated so that they never capture outer values).

use std::collections::{HashMap, HashSet};
use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::{
    Attr, BlockId, ComparisonPredicate, CtOp, CudaTileOp, DenseElements, Diagnostics, LocId,
    Module, NumType, OpId, OpKind, RegionId, Signedness, TileElem, Type, TypeId, ValueId,
};
use tileir_pass::{pass_options, Pass};

/// Registered name.
pub const NAME: &str = "canonicalize";

pass_options! {
    /// `canonicalize` options.
    pub struct CanonicalizeOptions {
        /// Upper bound on greedy iterations over the module.
        max_iterations("max-iterations"): u32 = 32,
        /// Rewrite `select(c, 1, 0)` / `select(c, 0, 1)` on integer tiles into
        /// `exti unsigned` of `c` / `xori(c, true)`. On by default, as in NVIDIA 13.3's
        /// canonicalizer; `select-to-ext=false` keeps the `select`s.
        select_to_ext("select-to-ext"): bool = true,
    }
}

/// The pass.
pub struct Canonicalize {
    /// Its options.
    pub options: CanonicalizeOptions,
}

impl Pass for Canonicalize {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        canonicalize_with(module, &self.options);
        Ok(())
    }
}

/// Runs the canonicalizer with default options on the whole module; returns the number of
/// iterations that changed something (0: the module was already canonical).
pub fn canonicalize(m: &mut Module) -> u32 {
    canonicalize_with(m, &CanonicalizeOptions::default())
}

/// Runs the canonicalizer with `options`; returns the number of iterations that changed
/// something.
pub fn canonicalize_with(m: &mut Module, options: &CanonicalizeOptions) -> u32 {
    let mut rw = Rewriter {
        m,
        uses: None,
        folder: ConstFolder::default(),
        select_to_ext: options.select_to_ext,
    };
    let mut changed_iterations = 0;
    for _ in 0..options.max_iterations.max(1) {
        if !rw.iteration() {
            break;
        }
        changed_iterations += 1;
    }
    changed_iterations
}

/// Constants known to the folder, per insertion block (the body of the nearest isolated op).
#[derive(Default)]
struct ConstFolder {
    by_value: HashMap<(BlockId, TypeId, DenseElements), OpId>,
    owned: HashSet<OpId>,
}

/// The mutable state of one canonicalizer run.
struct Rewriter<'m> {
    m: &'m mut Module,
    /// Use counts; `None` after a mutation (recomputed on demand).
    uses: Option<HashMap<ValueId, usize>>,
    folder: ConstFolder,
    /// The `select-to-ext` option.
    select_to_ext: bool,
}

/// Splat-normalized copy of a dense value (MLIR uniques `[1, 1]` and splat `1` alike).
fn normalize(d: &DenseElements) -> DenseElements {
    let mut d = d.clone();
    if d.bits.len() > 1 && d.bits.iter().all(|&b| b == d.bits[0]) {
        d.bits.truncate(1);
    }
    d
}

fn ct(m: &Module, op: OpId) -> Option<CtOp> {
    m.ops[op].kind.ct()
}

fn ct_op(m: &Module, op: OpId) -> Option<&CudaTileOp> {
    m.ops[op].kind.cuda_tile()
}

fn has_trait(m: &Module, op: OpId, bit: u32) -> bool {
    m.ops[op]
        .kind
        .cuda_tile()
        .is_some_and(|c| c.schema().has(bit))
}

fn def_ct(m: &Module, v: ValueId, which: CtOp) -> Option<OpId> {
    m.defining_op(v).filter(|&d| ct(m, d) == Some(which))
}

/// The dense value of a `constant` defining `v`.
fn const_value(m: &Module, v: ValueId) -> Option<&DenseElements> {
    let d = def_ct(m, v, CtOp::Constant)?;
    match ct_op(m, d)?.get("value")? {
        Attr::Dense(d) => Some(d),
        _ => None,
    }
}

/// The value of a one-element `tile<i1>` constant.
fn const_bool(m: &Module, v: ValueId) -> Option<bool> {
    let d = const_value(m, v)?;
    (d.elem == NumType::I1 && d.num_elements() == 1).then(|| d.get(0) & 1 == 1)
}

/// The bit pattern of every element if `v` is a constant whose elements are all equal.
fn const_splat(m: &Module, v: ValueId) -> Option<(NumType, u64)> {
    let d = normalize(const_value(m, v)?);
    (d.bits.len() == 1).then(|| (d.elem, d.bits[0]))
}

fn then_block(m: &Module, op: OpId) -> Option<BlockId> {
    m.entry_block(op, 0)
}

fn else_block(m: &Module, op: OpId) -> Option<BlockId> {
    m.entry_block(op, 1)
}

fn region(m: &Module, op: OpId, i: usize) -> RegionId {
    m.ops[op].regions[i]
}

/// The terminator of `block` (its last op, if that is a terminator).
fn terminator(m: &Module, block: Option<BlockId>) -> Option<OpId> {
    let last = *m.blocks[block?].ops.last()?;
    m.ops[last].kind.is_terminator().then_some(last)
}

/// `return`, `continue` or `break`: control leaves the parent block too.
fn is_exit(m: &Module, op: Option<OpId>) -> bool {
    op.is_some_and(|o| matches!(ct(m, o), Some(CtOp::Return | CtOp::Continue | CtOp::Break)))
}

fn is_yield(m: &Module, op: Option<OpId>) -> bool {
    op.is_some_and(|o| ct(m, o) == Some(CtOp::Yield))
}

/// True for a rank-0 `tile<…>` type.
fn is_scalar_tile(m: &Module, ty: TypeId) -> bool {
    m.types.get(ty).is_scalar_tile()
}

/// The numeric element type of a tile type.
fn tile_num(m: &Module, ty: TypeId) -> Option<NumType> {
    match m.types.get(ty) {
        Type::Tile {
            elem: TileElem::Num(n),
            ..
        } => Some(*n),
        _ => None,
    }
}

fn tile_shape(m: &Module, ty: TypeId) -> Vec<i64> {
    m.types
        .get(ty)
        .tile_shape()
        .map(|s| s.to_vec())
        .unwrap_or_default()
}

/// Whether nested ops of an `if` are free of side effects (for dead-`if` removal).
fn effect_free(m: &Module, op: OpId) -> bool {
    match ct(m, op) {
        Some(CtOp::Return | CtOp::Continue | CtOp::Break) => false,
        Some(CtOp::If) => m.ops[op]
            .regions
            .iter()
            .flat_map(|&r| m.regions[r].blocks.iter())
            .flat_map(|&b| m.blocks[b].ops.iter())
            .all(|&o| effect_free(m, o)),
        Some(_) => has_trait(m, op, traits::PURE) || has_trait(m, op, traits::NO_MEMORY_EFFECT),
        None => false,
    }
}

/// Ops whose bodies are a constant insertion scope.
fn is_isolated(m: &Module, op: OpId) -> bool {
    has_trait(m, op, traits::FUNCTION)
        || matches!(ct(m, op), Some(CtOp::Module | CtOp::Reduce | CtOp::Scan))
        || !matches!(m.ops[op].kind, OpKind::CudaTile(_))
}

/// The block constants used in `block` are hoisted to.
fn insertion_block(m: &Module, block: BlockId) -> BlockId {
    let mut b = block;
    loop {
        let Some(parent) = m.parent_op_of_block(b) else {
            return b;
        };
        if is_isolated(m, parent) {
            return b;
        }
        match m.ops[parent].parent {
            Some(pb) => b = pb,
            None => return b,
        }
    }
}

impl Rewriter<'_> {
    fn dirty(&mut self) {
        self.uses = None;
    }

    fn use_count(&mut self, v: ValueId) -> usize {
        if self.uses.is_none() {
            self.uses = Some(self.m.use_counts());
        }
        self.uses
            .as_ref()
            .and_then(|u| u.get(&v).copied())
            .unwrap_or(0)
    }

    fn has_uses(&mut self, v: ValueId) -> bool {
        self.use_count(v) > 0
    }

    fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        if old != new {
            self.m.replace_all_uses(old, new);
            self.dirty();
        }
    }

    /// True when `op` can be erased: attached, not a terminator, results unused, no effects.
    fn trivially_dead(&mut self, op: OpId) -> bool {
        if !self.m.is_attached(op)
            || self.m.ops[op].kind.is_terminator()
            || !effect_free(self.m, op)
        {
            return false;
        }
        let results = self.m.ops[op].results.clone();
        !results.iter().any(|&r| self.has_uses(r))
    }

    /// Detaches `op`, then erases the defining ops of its (and its nested ops') operands
    /// that became dead, transitively.
    fn erase(&mut self, op: OpId) {
        let mut operands = Vec::new();
        let mut stack = vec![op];
        while let Some(o) = stack.pop() {
            operands.extend(self.m.ops[o].operands.iter().copied());
            for &r in &self.m.ops[o].regions {
                for &b in &self.m.regions[r].blocks {
                    stack.extend(self.m.blocks[b].ops.iter().copied());
                }
            }
        }
        self.m.detach_op(op);
        self.folder.owned.remove(&op);
        self.dirty();
        for v in operands {
            if let Some(d) = self.m.defining_op(v) {
                if self.trivially_dead(d) {
                    self.erase(d);
                }
            }
        }
    }

    /// Replaces the results of `op` by `values` (in order) and erases it.
    fn replace_op(&mut self, op: OpId, values: &[ValueId]) {
        let results = self.m.ops[op].results.clone();
        for (&r, &v) in results.iter().zip(values) {
            self.replace_all_uses(r, v);
        }
        self.erase(op);
    }

    /// Creates a detached cuda_tile op.
    fn new_op(
        &mut self,
        op: CudaTileOp,
        operands: Vec<ValueId>,
        types: &[TypeId],
        loc: LocId,
    ) -> OpId {
        self.dirty();
        self.m.create_op(OpKind::CudaTile(op), operands, types, loc)
    }

    /// Creates a single-result op just before `anchor`; returns its result.
    fn value_before(
        &mut self,
        anchor: OpId,
        op: CudaTileOp,
        operands: Vec<ValueId>,
        ty: TypeId,
        loc: LocId,
    ) -> ValueId {
        let o = self.new_op(op, operands, &[ty], loc);
        self.m.insert_op_before(anchor, o);
        self.m.result(o, 0)
    }

    /// A splat `constant` of type `ty` holding `bits`, created just before `anchor`.
    fn constant_before(
        &mut self,
        anchor: OpId,
        ty: TypeId,
        bits: u64,
        loc: LocId,
    ) -> Option<ValueId> {
        let elem = tile_num(self.m, ty)?;
        let shape = tile_shape(self.m, ty);
        let c = CudaTileOp::new(CtOp::Constant).with(
            "value",
            Attr::Dense(DenseElements {
                elem,
                shape,
                bits: vec![bits],
            }),
        );
        Some(self.value_before(anchor, c, vec![], ty, loc))
    }

    /// The folder's constant of value `d` and type `ty` for `block`'s scope, creating it at
    /// the front of the scope's block when missing (what MLIR's folder materializes).
    fn folded_constant(
        &mut self,
        block: BlockId,
        d: DenseElements,
        ty: TypeId,
        loc: LocId,
    ) -> ValueId {
        let ib = insertion_block(self.m, block);
        let key = (ib, ty, normalize(&d));
        if let Some(&c) = self.folder.by_value.get(&key) {
            if self.m.is_attached(c) {
                return self.m.result(c, 0);
            }
        }
        let c = self.new_op(
            CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(d)),
            vec![],
            &[ty],
            loc,
        );
        self.m.prepend_op(ib, c);
        self.folder.by_value.insert(key, c);
        self.folder.owned.insert(c);
        self.m.result(c, 0)
    }

    /// MLIR's `OperationFolder::insertKnownConstant`: deduplicates `op` against a known
    /// equal constant of its scope (returns false when `op` was replaced), or registers it,
    /// moving it to the front of the scope unless it already sits at the front or right
    /// after another known constant.
    fn insert_known_constant(&mut self, op: OpId) -> bool {
        let (Some(Attr::Dense(d)), [r]) = (
            ct_op(self.m, op).and_then(|c| c.get("value")),
            self.m.ops[op].results.as_slice(),
        ) else {
            return true;
        };
        let (r, ty) = (*r, self.m.value_type(*r));
        let Some(block) = self.m.ops[op].parent else {
            return true;
        };
        let ib = insertion_block(self.m, block);
        let key = (ib, ty, normalize(d));
        if let Some(&existing) = self.folder.by_value.get(&key) {
            if existing != op && self.m.is_attached(existing) {
                let v = self.m.result(existing, 0);
                self.replace_all_uses(r, v);
                self.m.detach_op(op);
                self.dirty();
                return false;
            }
        }
        let ops = &self.m.blocks[ib].ops;
        let pos = ops.iter().position(|&o| o == op);
        let stays = match pos {
            Some(0) => true,
            Some(p) => self.folder.owned.contains(&ops[p - 1]),
            None => false,
        };
        if !stays {
            self.m.detach_op(op);
            self.m.prepend_op(ib, op);
        }
        self.folder.by_value.insert(key, op);
        self.folder.owned.insert(op);
        true
    }

    /// One top-down sweep; true if anything changed.
    fn iteration(&mut self) -> bool {
        self.folder = ConstFolder::default();
        self.dirty();
        let mut changed = false;
        let mut worklist = Vec::new();
        for op in self.m.walk() {
            if !self.m.is_attached(op) {
                continue;
            }
            if ct(self.m, op) == Some(CtOp::Constant) && !self.insert_known_constant(op) {
                changed = true;
                continue;
            }
            worklist.push(op);
        }
        for op in worklist {
            // A rewrite that succeeded may enable another one on the same op; MLIR puts the
            // op back on the worklist, we retry it directly (bounded).
            for _ in 0..8 {
                if !self.m.is_attached(op) {
                    break;
                }
                if self.trivially_dead(op) {
                    self.erase(op);
                    changed = true;
                    break;
                }
                if !self.simplify(op) {
                    break;
                }
                changed = true;
            }
        }
        changed
    }

    /// Folds, then patterns, for one op; true if it changed the IR.
    fn simplify(&mut self, op: OpId) -> bool {
        match ct(self.m, op) {
            Some(CtOp::AddF) => {
                let done = crate::fuse_fma::commute_mul_to_lhs(self.m, op);
                if done {
                    self.dirty();
                }
                done
            }
            Some(CtOp::Assume) => self.fold_assume(op),
            Some(CtOp::Select) => self.simplify_select(op),
            Some(CtOp::If) => {
                self.fold_if(op)
                    || self.if_remove_unused_results(op)
                    || self.if_replace_yield_with_value(op)
                    || self.if_remove_static_condition(op)
                    || self.if_convert_to_select(op)
                    || self.if_remove_empty_else(op)
                    || self.if_combine(op)
                    || self.if_combine_nested(op)
                    || self.if_move_terminator_to_parent(op)
            }
            _ => false,
        }
    }

    // ---------------------------------------------------------------- assume

    /// `assume P, (assume P, x)` → the inner `assume`.
    fn fold_assume(&mut self, op: OpId) -> bool {
        let ([x], [r]) = (
            self.m.ops[op].operands.as_slice(),
            self.m.ops[op].results.as_slice(),
        ) else {
            return false;
        };
        let (x, r) = (*x, *r);
        let Some(inner) = def_ct(self.m, x, CtOp::Assume) else {
            return false;
        };
        if ct_op(self.m, inner).and_then(|c| c.predicate())
            != ct_op(self.m, op).and_then(|c| c.predicate())
        {
            return false;
        }
        self.replace_all_uses(r, x);
        self.erase(op);
        true
    }

    // ---------------------------------------------------------------- select

    fn simplify_select(&mut self, op: OpId) -> bool {
        let ([c, a, b], [r]) = (
            self.m.ops[op].operands.as_slice(),
            self.m.ops[op].results.as_slice(),
        ) else {
            return false;
        };
        let (c, a, b, r) = (*c, *a, *b, *r);
        let loc = self.m.ops[op].loc;
        let ty = self.m.value_type(r);
        let cond_ty = self.m.value_type(c);
        // select(c, x, x) → x
        if a == b {
            self.replace_op(op, &[a]);
            return true;
        }
        // Constant condition (all lanes equal) picks one side.
        if let Some((_, bits)) = const_splat(self.m, c) {
            self.replace_op(op, &[if bits & 1 == 1 { a } else { b }]);
            return true;
        }
        // Constant condition with constant operands: fold elementwise.
        if let (Some(cd), Some(ad), Some(bd)) = (
            const_value(self.m, c),
            const_value(self.m, a),
            const_value(self.m, b),
        ) {
            let n = ad.num_elements();
            if cd.num_elements() == n && bd.num_elements() == n && ad.elem == bd.elem {
                let bits = (0..n)
                    .map(|i| {
                        if cd.get(i) & 1 == 1 {
                            ad.get(i)
                        } else {
                            bd.get(i)
                        }
                    })
                    .collect();
                let d = DenseElements {
                    elem: ad.elem,
                    shape: ad.shape.clone(),
                    bits,
                };
                let block = self.m.ops[op].parent.expect("attached op");
                let v = self.folded_constant(block, normalize(&d), ty, loc);
                self.replace_op(op, &[v]);
                return true;
            }
        }
        let (sa, sb) = (const_splat(self.m, a), const_splat(self.m, b));
        if ty == cond_ty {
            match (sa, sb) {
                // select(c, true, false) → c
                (Some((NumType::I1, 1)), Some((NumType::I1, 0))) => {
                    self.replace_op(op, &[c]);
                    return true;
                }
                // select(c, false, true) → xori(c, true)
                (Some((NumType::I1, 0)), Some((NumType::I1, 1))) => {
                    let Some(t) = self.constant_before(op, cond_ty, 1, loc) else {
                        return false;
                    };
                    let x = self.value_before(
                        op,
                        CudaTileOp::new(CtOp::XOrI),
                        vec![c, t],
                        cond_ty,
                        loc,
                    );
                    self.replace_op(op, &[x]);
                    return true;
                }
                _ => {}
            }
        }
        // select(c, 1, 0) → exti c unsigned; select(c, 0, 1) → exti (xori c, true) unsigned.
        if let (Some((ea, va)), Some((_, vb)), true) = (sa, sb, self.select_to_ext) {
            if ea.is_int()
                && ea != NumType::I1
                && tile_shape(self.m, ty) == tile_shape(self.m, cond_ty)
                && va + vb == 1
            {
                let from = if va == 1 {
                    c
                } else {
                    let Some(t) = self.constant_before(op, cond_ty, 1, loc) else {
                        return false;
                    };
                    self.value_before(op, CudaTileOp::new(CtOp::XOrI), vec![c, t], cond_ty, loc)
                };
                let unsigned = Attr::Enum(Signedness::MNEMONIC, Signedness::Unsigned.keyword());
                let e = self.value_before(
                    op,
                    CudaTileOp::new(CtOp::ExtI).with("signedness", unsigned),
                    vec![from],
                    ty,
                    loc,
                );
                self.replace_op(op, &[e]);
                return true;
            }
        }
        // select(c, select(c, x, y), z) → select(c, x, z); select(c, x, select(c, y, z)) → select(c, x, z)
        if let Some(inner) = def_ct(self.m, a, CtOp::Select) {
            if self.m.ops[inner].operands.first() == Some(&c) {
                self.m.ops[op].operands[1] = self.m.ops[inner].operands[1];
                self.dirty();
                return true;
            }
        }
        if let Some(inner) = def_ct(self.m, b, CtOp::Select) {
            if self.m.ops[inner].operands.first() == Some(&c) {
                self.m.ops[op].operands[2] = self.m.ops[inner].operands[2];
                self.dirty();
                return true;
            }
        }
        // select(xori(p, true), a, b) → select(p, b, a) (NVIDIA 13.3's not-condition swap).
        if let Some(x) = def_ct(self.m, c, CtOp::XOrI) {
            if let [p, q] = self.m.ops[x].operands.as_slice() {
                let (p, q) = (*p, *q);
                let negated = |v: ValueId| matches!(const_splat(self.m, v), Some((NumType::I1, 1)));
                let pred = if negated(q) {
                    Some(p)
                } else if negated(p) {
                    Some(q)
                } else {
                    None
                };
                if let Some(pred) = pred {
                    self.m.ops[op].operands = vec![pred, b, a];
                    self.dirty();
                    return true;
                }
            }
        }
        // select(cmpi eq a b, a, b) → b; select(cmpi ne a b, a, b) → a
        if let Some(cmp) = def_ct(self.m, c, CtOp::CmpI) {
            let ops = self.m.ops[cmp].operands.clone();
            if ops.len() == 2 && ((ops[0] == a && ops[1] == b) || (ops[0] == b && ops[1] == a)) {
                match ct_op(self.m, cmp)
                    .and_then(|k| k.enum_attr::<ComparisonPredicate>("comparison_predicate"))
                {
                    Some(ComparisonPredicate::Equal) => {
                        self.replace_op(op, &[b]);
                        return true;
                    }
                    Some(ComparisonPredicate::NotEqual) => {
                        self.replace_op(op, &[a]);
                        return true;
                    }
                    _ => {}
                }
            }
        }
        false
    }

    // ---------------------------------------------------------------- if

    fn if_results(&self, op: OpId) -> Vec<ValueId> {
        self.m.ops[op].results.clone()
    }

    /// A fresh `if` on `cond` with `types` results, inserted before `anchor`, regions empty.
    fn new_if_before(&mut self, anchor: OpId, cond: ValueId, types: &[TypeId], loc: LocId) -> OpId {
        let o = self.new_op(CudaTileOp::new(CtOp::If), vec![cond], types, loc);
        self.m.insert_op_before(anchor, o);
        o
    }

    /// Sets the operands of `block`'s terminator if it is a `yield`.
    fn set_yield(&mut self, block: Option<BlockId>, values: Vec<ValueId>) {
        if let Some(t) = terminator(self.m, block).filter(|&t| is_yield(self.m, Some(t))) {
            self.m.ops[t].operands = values;
            self.dirty();
        }
    }

    /// `if (xori c, true)` → `if c` with the branches swapped (needs an `else`).
    fn fold_if(&mut self, op: OpId) -> bool {
        if else_block(self.m, op).is_none() {
            return false;
        }
        let cond = self.m.ops[op].operands[0];
        let Some(x) = def_ct(self.m, cond, CtOp::XOrI) else {
            return false;
        };
        let [lhs, rhs] = self.m.ops[x].operands[..] else {
            return false;
        };
        if const_bool(self.m, rhs) != Some(true) {
            return false;
        }
        self.m.ops[op].operands[0] = lhs;
        let (r0, r1) = (region(self.m, op, 0), region(self.m, op, 1));
        let a = std::mem::take(&mut self.m.regions[r0].blocks);
        let b = std::mem::take(&mut self.m.regions[r1].blocks);
        for (r, blocks) in [(r0, b), (r1, a)] {
            for &blk in &blocks {
                self.m.blocks[blk].parent = Some(r);
            }
            self.m.regions[r].blocks = blocks;
        }
        self.dirty();
        true
    }

    /// Drops results nobody uses.
    fn if_remove_unused_results(&mut self, op: OpId) -> bool {
        let results = self.if_results(op);
        if results.is_empty() {
            return false;
        }
        let (tb, eb) = (then_block(self.m, op), else_block(self.m, op));
        if !is_yield(self.m, terminator(self.m, tb)) && !is_yield(self.m, terminator(self.m, eb)) {
            return false;
        }
        let used: Vec<usize> = (0..results.len())
            .filter(|&i| self.has_uses(results[i]))
            .collect();
        if used.len() == results.len() {
            return false;
        }
        let types: Vec<TypeId> = used
            .iter()
            .map(|&i| self.m.value_type(results[i]))
            .collect();
        let (cond, loc) = (self.m.ops[op].operands[0], self.m.ops[op].loc);
        let new = self.new_if_before(op, cond, &types, loc);
        self.m.ops[new].kind = self.m.ops[op].kind.clone();
        for i in 0..2 {
            let (from, to) = (region(self.m, op, i), region(self.m, new, i));
            self.m.move_region_blocks(from, to);
            let block = self.m.entry_block(new, i);
            if let Some(t) = terminator(self.m, block).filter(|&t| is_yield(self.m, Some(t))) {
                let operands = self.m.ops[t].operands.clone();
                self.set_yield(
                    block,
                    used.iter()
                        .filter_map(|&k| operands.get(k).copied())
                        .collect(),
                );
            }
        }
        for (k, &i) in used.iter().enumerate() {
            let nr = self.m.result(new, k);
            if let Some(name) = self.m.values[results[i]].name.clone() {
                self.m.set_name(nr, &name);
            }
            self.replace_all_uses(results[i], nr);
        }
        self.erase(op);
        true
    }

    /// Results yielded identically by both branches become that value; results yielded as
    /// `true`/`false` become the condition or its negation.
    fn if_replace_yield_with_value(&mut self, op: OpId) -> bool {
        let results = self.if_results(op);
        if results.is_empty() {
            return false;
        }
        let (tt, et) = (
            terminator(self.m, then_block(self.m, op)),
            terminator(self.m, else_block(self.m, op)),
        );
        if !is_yield(self.m, tt) || !is_yield(self.m, et) {
            return false;
        }
        let (ty, ey) = (
            self.m.ops[tt.unwrap()].operands.clone(),
            self.m.ops[et.unwrap()].operands.clone(),
        );
        let (cond, loc) = (self.m.ops[op].operands[0], self.m.ops[op].loc);
        let mut changed = false;
        for ((&t, &e), &r) in ty.iter().zip(&ey).zip(&results) {
            if t == e {
                if self.has_uses(r) {
                    self.replace_all_uses(r, t);
                    changed = true;
                }
                continue;
            }
            let (Some(tv), Some(ev)) = (const_bool(self.m, t), const_bool(self.m, e)) else {
                continue;
            };
            if !self.has_uses(r) {
                continue;
            }
            if !tv && ev {
                let i1 = self.m.types.scalar_tile(NumType::I1);
                let Some(one) = self.constant_before(op, i1, 1, loc) else {
                    continue;
                };
                let not =
                    self.value_before(op, CudaTileOp::new(CtOp::XOrI), vec![cond, one], i1, loc);
                self.replace_all_uses(r, not);
                changed = true;
            } else if tv && !ev {
                self.replace_all_uses(r, cond);
                changed = true;
            }
        }
        changed
    }

    /// Replaces `op` by the contents of `block`: a `yield` supplies the results; an exit
    /// (`return`/`continue`/`break`) makes the rest of the parent block unreachable.
    fn replace_with_block(&mut self, op: OpId, block: BlockId) -> bool {
        let term = terminator(self.m, Some(block));
        let exits = is_exit(self.m, term);
        if !exits && !is_yield(self.m, term) {
            return false;
        }
        let term = term.expect("checked above");
        self.m.move_block_ops_before(block, op);
        self.dirty();
        if !exits {
            let values = self.m.ops[term].operands.clone();
            self.m.detach_op(term);
            self.replace_op(op, &values);
            return true;
        }
        let parent = self.m.ops[op].parent.expect("attached op");
        let ops = self.m.blocks[parent].ops.clone();
        let pos = ops.iter().position(|&o| o == op).expect("listed");
        for &o in &ops[pos..] {
            self.erase(o);
        }
        true
    }

    /// A constant condition inlines the branch taken.
    fn if_remove_static_condition(&mut self, op: OpId) -> bool {
        let Some(c) = const_bool(self.m, self.m.ops[op].operands[0]) else {
            return false;
        };
        if c {
            let Some(tb) = then_block(self.m, op) else {
                return false;
            };
            return self.replace_with_block(op, tb);
        }
        if let Some(eb) = else_block(self.m, op) {
            return self.replace_with_block(op, eb);
        }
        self.erase(op);
        true
    }

    /// Results yielded from outside the branches become `select`s (tiles only); a
    /// branch that leaves the parent contributes the other branch's values.
    fn if_convert_to_select(&mut self, op: OpId) -> bool {
        let results = self.if_results(op);
        if results.is_empty() {
            return false;
        }
        let (tb, eb) = (then_block(self.m, op), else_block(self.m, op));
        let (tt, et) = (terminator(self.m, tb), terminator(self.m, eb));
        let (then_yield, else_yield) = (is_yield(self.m, tt), is_yield(self.m, et));
        if !then_yield && !else_yield {
            return false;
        }
        let (Some(tt), Some(et)) = (tt, et) else {
            return false;
        };
        let true_args = self.m.ops[if then_yield { tt } else { et }]
            .operands
            .clone();
        let false_args = self.m.ops[if else_yield { et } else { tt }]
            .operands
            .clone();
        let (r_then, r_else) = (region(self.m, op, 0), region(self.m, op, 1));
        let then_region = if then_yield { r_then } else { r_else };
        let else_region = if else_yield { r_else } else { r_then };
        // Any tile can be selected; a shaped one takes the condition reshaped to ones and
        // broadcast to its shape (NVIDIA 13.3's ConvertToSelect does the same).
        if !results
            .iter()
            .all(|&r| matches!(self.m.types.get(self.m.value_type(r)), Type::Tile { .. }))
        {
            return false;
        }
        if true_args.len() != results.len() || false_args.len() != results.len() {
            return false;
        }
        let inside: Vec<bool> = true_args
            .iter()
            .zip(&false_args)
            .map(|(&t, &f)| {
                self.m.value_region(t) == Some(then_region)
                    || self.m.value_region(f) == Some(else_region)
            })
            .collect();
        if inside.iter().all(|&x| x) {
            return false;
        }
        let types: Vec<TypeId> = true_args
            .iter()
            .zip(&inside)
            .filter(|(_, &x)| x)
            .map(|(&t, _)| self.m.value_type(t))
            .collect();
        let (cond, loc) = (self.m.ops[op].operands[0], self.m.ops[op].loc);
        let new = self.new_if_before(op, cond, &types, loc);
        self.m.ops[new].kind = self.m.ops[op].kind.clone();
        self.m.move_region_blocks(r_then, region(self.m, new, 0));
        self.m.move_region_blocks(r_else, region(self.m, new, 1));
        let (mut true_yields, mut false_yields, mut values) = (Vec::new(), Vec::new(), Vec::new());
        // The condition broadcast to each shape that needs it, made once per shape.
        let mut conds: Vec<(Vec<i64>, ValueId)> = Vec::new();
        for (i, (&t, &f)) in true_args.iter().zip(&false_args).enumerate() {
            if inside[i] {
                values.push(self.m.result(new, true_yields.len()));
                true_yields.push(t);
                false_yields.push(f);
            } else if t == f {
                values.push(t);
            } else {
                let ty = self.m.value_type(t);
                let shape = tile_shape(self.m, ty);
                let c = if shape.is_empty() {
                    cond
                } else if let Some((_, c)) = conds.iter().find(|(s, _)| *s == shape) {
                    *c
                } else {
                    let i1 = TileElem::Num(NumType::I1);
                    let ones_ty = self.m.types.tile(&vec![1; shape.len()], i1);
                    let full_ty = self.m.types.tile(&shape, i1);
                    let ones = self.value_before(
                        new,
                        CudaTileOp::new(CtOp::Reshape),
                        vec![cond],
                        ones_ty,
                        loc,
                    );
                    let c = self.value_before(
                        new,
                        CudaTileOp::new(CtOp::Broadcast),
                        vec![ones],
                        full_ty,
                        loc,
                    );
                    conds.push((shape, c));
                    c
                };
                values.push(self.value_before(
                    new,
                    CudaTileOp::new(CtOp::Select),
                    vec![c, t, f],
                    ty,
                    loc,
                ));
            }
        }
        if then_yield {
            self.set_yield(then_block(self.m, new), true_yields);
        }
        if else_yield {
            self.set_yield(else_block(self.m, new), false_yields);
        }
        self.replace_op(op, &values);
        true
    }

    /// An `else` holding only a `yield` is dropped (no results).
    fn if_remove_empty_else(&mut self, op: OpId) -> bool {
        if !self.m.ops[op].results.is_empty() {
            return false;
        }
        let Some(eb) = else_block(self.m, op) else {
            return false;
        };
        if self.m.blocks[eb].ops.len() != 1 || is_exit(self.m, terminator(self.m, Some(eb))) {
            return false;
        }
        let r = region(self.m, op, 1);
        self.m.clear_region(r);
        self.dirty();
        true
    }

    /// Replaces uses of `old` by `new` in the ops nested in `block`.
    fn replace_uses_in_block(&mut self, block: BlockId, old: ValueId, new: ValueId) {
        let mut stack: Vec<OpId> = self.m.blocks[block].ops.clone();
        while let Some(o) = stack.pop() {
            for v in &mut self.m.ops[o].operands {
                if *v == old {
                    *v = new;
                }
            }
            for &r in &self.m.ops[o].regions {
                for &b in &self.m.regions[r].blocks {
                    stack.extend(self.m.blocks[b].ops.iter().copied());
                }
            }
        }
        self.dirty();
    }

    /// `cond` is `xori(x, true)`: returns x.
    fn negated(&self, cond: ValueId) -> Option<ValueId> {
        let x = def_ct(self.m, cond, CtOp::XOrI)?;
        let [lhs, rhs] = self.m.ops[x].operands[..] else {
            return None;
        };
        (const_bool(self.m, rhs) == Some(true)).then_some(lhs)
    }

    /// Appends the ops of `from` to `into`, merging their trailing `yield`s into one.
    fn merge_branch(&mut self, into: BlockId, from: BlockId) {
        let y1 = terminator(self.m, Some(into)).filter(|&t| is_yield(self.m, Some(t)));
        let y2 = terminator(self.m, Some(from)).filter(|&t| is_yield(self.m, Some(t)));
        self.m.move_block_ops_to_end(from, into);
        if let (Some(y1), Some(y2)) = (y1, y2) {
            let mut operands = self.m.ops[y1].operands.clone();
            operands.extend(self.m.ops[y2].operands.iter().copied());
            let loc = self.m.ops[y2].loc;
            let y = self.new_op(CudaTileOp::new(CtOp::Yield), operands, &[], loc);
            self.m.append_op(into, y);
        }
        for y in [y1, y2].into_iter().flatten() {
            self.m.detach_op(y);
        }
        self.dirty();
    }

    /// Two consecutive `if`s on the same (or negated) condition merge into one.
    fn if_combine(&mut self, next: OpId) -> bool {
        let Some(parent) = self.m.ops[next].parent else {
            return false;
        };
        let ops = &self.m.blocks[parent].ops;
        let pos = ops.iter().position(|&o| o == next).expect("listed");
        if pos == 0 {
            return false;
        }
        let prev = ops[pos - 1];
        if ct(self.m, prev) != Some(CtOp::If) {
            return false;
        }
        let (pc, nc) = (self.m.ops[prev].operands[0], self.m.ops[next].operands[0]);
        let (mut next_then, mut next_else) = (None, None);
        if pc == nc {
            next_then = then_block(self.m, next);
            next_else = else_block(self.m, next);
        }
        if self.negated(nc) == Some(pc) || self.negated(pc) == Some(nc) {
            next_else = then_block(self.m, next);
            if let Some(eb) = else_block(self.m, next) {
                next_then = Some(eb);
            }
        }
        let (prev_then, prev_else) = (then_block(self.m, prev), else_block(self.m, prev));
        if is_exit(self.m, terminator(self.m, prev_then)) {
            next_then = None;
        }
        if is_exit(self.m, terminator(self.m, prev_else)) {
            next_else = None;
        }
        if next_then.is_none() && next_else.is_none() {
            return false;
        }
        let prev_results = self.if_results(prev);
        let yielded =
            |rw: &Self, next_block: Option<BlockId>, prev_block: Option<BlockId>| -> Vec<ValueId> {
                match (next_block, terminator(rw.m, prev_block)) {
                    (Some(_), Some(t)) => rw.m.ops[t].operands.clone(),
                    _ => prev_results.clone(),
                }
            };
        let then_yielded = yielded(self, next_then, prev_then);
        let else_yielded = yielded(self, next_else, prev_else);
        for (i, &r) in prev_results.iter().enumerate() {
            if let (Some(b), Some(&v)) = (next_then, then_yielded.get(i)) {
                self.replace_uses_in_block(b, r, v);
            }
            if let (Some(b), Some(&v)) = (next_else, else_yielded.get(i)) {
                self.replace_uses_in_block(b, r, v);
            }
        }
        let mut types: Vec<TypeId> = prev_results.iter().map(|&r| self.m.value_type(r)).collect();
        let next_results = self.if_results(next);
        types.extend(next_results.iter().map(|&r| self.m.value_type(r)));
        let loc = self.m.ops[next].loc;
        let combined = self.new_if_before(next, pc, &types, loc);
        let (c_then, c_else) = (region(self.m, combined, 0), region(self.m, combined, 1));
        self.m.move_region_blocks(region(self.m, prev, 0), c_then);
        if let (Some(nt), Some(ct_block)) = (next_then, then_block(self.m, combined)) {
            self.merge_branch(ct_block, nt);
        }
        self.m.move_region_blocks(region(self.m, prev, 1), c_else);
        if let Some(ne) = next_else {
            match else_block(self.m, combined) {
                None => {
                    let from = self.m.blocks[ne].parent.expect("branch block has a region");
                    self.m.move_region_blocks(from, c_else);
                }
                Some(ce) => self.merge_branch(ce, ne),
            }
        }
        let all = self.if_results(combined);
        let (first, second) = all.split_at(prev_results.len());
        for (&old, &new) in prev_results
            .iter()
            .chain(&next_results)
            .zip(first.iter().chain(second))
        {
            if let Some(name) = self.m.values[old].name.clone() {
                self.m.set_name(new, &name);
            }
        }
        let (first, second) = (first.to_vec(), second.to_vec());
        self.replace_op(prev, &first);
        self.replace_op(next, &second);
        true
    }

    /// `if a { if b { … } }` → `if (andi a, b) { … }`.
    fn if_combine_nested(&mut self, op: OpId) -> bool {
        let Some(tb) = then_block(self.m, op) else {
            return false;
        };
        let body = self.m.blocks[tb].ops.clone();
        let Some((&last, rest)) = body.split_last() else {
            return false;
        };
        if !self.m.ops[last].kind.is_terminator() || rest.len() != 1 {
            return false;
        }
        let nested = rest[0];
        if ct(self.m, nested) != Some(CtOp::If) {
            return false;
        }
        let eb = else_block(self.m, op);
        if eb.is_some_and(|b| self.m.blocks[b].ops.len() != 1) {
            return false;
        }
        let (ntb, neb) = (then_block(self.m, nested), else_block(self.m, nested));
        if neb.is_some_and(|b| self.m.blocks[b].ops.len() != 1) {
            return false;
        }
        if is_exit(self.m, Some(last))
            || is_exit(self.m, terminator(self.m, eb))
            || is_exit(self.m, terminator(self.m, neb))
        {
            return false;
        }
        let nested_then_term = terminator(self.m, ntb);
        if is_exit(self.m, nested_then_term) && (eb.is_some() || neb.is_some()) {
            return false;
        }
        let mut then_yield = self.m.ops[last].operands.clone();
        let else_yield = terminator(self.m, eb)
            .map(|t| self.m.ops[t].operands.clone())
            .unwrap_or_default();
        let mut to_select = Vec::new();
        let outer_then_region = region(self.m, op, 0);
        for (i, v) in then_yield.clone().into_iter().enumerate() {
            if self.m.defining_op(v) == Some(nested) {
                let idx = self.m.ops[nested]
                    .results
                    .iter()
                    .position(|&r| r == v)
                    .expect("result of nested");
                let nested_else =
                    terminator(self.m, neb).and_then(|t| self.m.ops[t].operands.get(idx).copied());
                if nested_else.is_none() || nested_else != else_yield.get(i).copied() {
                    return false;
                }
                let Some(nt) =
                    nested_then_term.and_then(|t| self.m.ops[t].operands.get(idx).copied())
                else {
                    return false;
                };
                then_yield[i] = nt;
                continue;
            }
            if self.m.value_region(v) == Some(outer_then_region)
                || !is_scalar_tile(self.m, self.m.value_type(v))
            {
                return false;
            }
            if else_yield.len() <= i {
                return false;
            }
            to_select.push(i);
        }
        let (cond, loc) = (self.m.ops[op].operands[0], self.m.ops[op].loc);
        let nested_cond = self.m.ops[nested].operands[0];
        let cond_ty = self.m.value_type(cond);
        let and = self.value_before(
            op,
            CudaTileOp::new(CtOp::AndI),
            vec![cond, nested_cond],
            cond_ty,
            loc,
        );
        let types: Vec<TypeId> = self
            .if_results(op)
            .iter()
            .map(|&r| self.m.value_type(r))
            .collect();
        let new = self.new_if_before(op, and, &types, loc);
        let new_then = self.m.add_block(region(self.m, new, 0), &[]);
        let mut values = self.if_results(new);
        for &i in &to_select {
            let ty = self.m.value_type(then_yield[i]);
            values[i] = self.value_before(
                new,
                CudaTileOp::new(CtOp::Select),
                vec![cond, then_yield[i], else_yield[i]],
                ty,
                loc,
            );
        }
        if let Some(ntb) = ntb {
            self.m.move_block_ops_to_end(ntb, new_then);
        }
        self.set_yield(Some(new_then), then_yield);
        if !else_yield.is_empty() {
            let new_else = self.m.add_block(region(self.m, new, 1), &[]);
            let y = self.new_op(CudaTileOp::new(CtOp::Yield), else_yield, &[], loc);
            self.m.append_op(new_else, y);
        }
        self.replace_op(op, &values);
        true
    }

    /// Both branches leave the parent: keep the `then` branch in a result-less `if` and
    /// inline the `else` branch after it (the rest of the block is unreachable).
    fn if_move_terminator_to_parent(&mut self, op: OpId) -> bool {
        let (tb, eb) = (then_block(self.m, op), else_block(self.m, op));
        let Some(eb) = eb else { return false };
        if !is_exit(self.m, terminator(self.m, tb))
            || !is_exit(self.m, terminator(self.m, Some(eb)))
        {
            return false;
        }
        let (cond, loc) = (self.m.ops[op].operands[0], self.m.ops[op].loc);
        let new = self.new_if_before(op, cond, &[], loc);
        self.m
            .move_region_blocks(region(self.m, op, 0), region(self.m, new, 0));
        self.replace_with_block(op, eb)
    }
}
