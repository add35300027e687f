//! `token-order`: threads cuda_tile's memory-ordering tokens through functions whose
//! memory ops were built in program order but unordered (each taking the function's
//! initial token), the way cuTile Python's front end orders them before bytecode.
//!
//! cuda_tile orders a tile block's memory accesses only through tokens: two accesses
//! that share no token chain may be reordered or, on a GPU, run by different threads with
//! no barrier between them. A store and a later load of the same array then race (the
//! load's threads read elements other threads have not written yet), although the Python
//! program wrote them one after the other. This pass gives every access the token of the
//! accesses it must follow, per *alias set* (the arrays that may share memory):
//! - a load follows the last store to its alias set (loads may run in any order among
//!   themselves); a store or atomic follows every earlier access to its set;
//! - sets overlap by bits: an access joins the tokens of every set sharing a bit with its
//!   own ([`UNIVERSE`], for memory the pass cannot attribute, overlaps everything);
//! - a release access also follows every earlier access to any set; after an acquire
//!   access (or `gdc_wait`), every later access follows it;
//! - `print` and the grid-dependency ops are ordered against everything;
//! - `for`/`loop` carry the tokens of the sets their body touches, `if` merges them as
//!   results; `continue`, `break` and `yield` pass them on;
//! - the *parallel store* exception (cuTile's, common in layer norm): in a `for` loop whose
//!   body touches only single-bit sets, a `store_view_tko` through a partition view indexed
//!   by the induction variable, the body's only access to its set, writes a different tile
//!   every iteration; it follows only what came before the loop, not earlier iterations.
//!   Beyond cuTile, an index is also injective in the induction variable `i` when it is
//!   `i` plus or minus loop-invariant values (wrapping addition is a bijection), and a pair
//!   of indices `(x / d, x % d)` with `x` injective and `d` loop-invariant (either rounding;
//!   Python's floor `%` idiom included) is too: a persistent loop's
//!   `for t in range(bid, n, num_blocks): store(C, (t // tiles_n, t % tiles_n), …)`.
//!
//! Afterwards, tokens that order nothing (joins and carried tokens no access takes) are
//! removed. The pass rewrites token operands only: locations stay, and every new op
//! (`join_tokens`, a branch's `yield`) takes the location of the access or branch it
//! serves.

use std::collections::{HashMap, HashSet};

use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::{
    BlockId, CtOp, CudaTileOp, Diagnostics, LocId, MemoryOrdering, Module, OpId, OpKind, TileElem, Type, TypeId,
    ValueDef, ValueId,
};
use tileir_ir::module::ValueData;
use tileir_pass::{pass_options, Pass};

/// Registered name.
pub const NAME: &str = "token-order";

pass_options! {
    /// `token-order` options.
    pub struct TokenOrderOptions {
        /// Every pointer argument is its own alias set, and no array aliases itself (the
        /// arrays never overlap). Off: all pointer arguments may alias each other and
        /// themselves (always correct).
        distinct_arguments("distinct-arguments"): bool = false,
    }
}

/// The pass (the pipeline spelling; the front end calls [`order_tokens`] with what it knows
/// of the arguments).
pub struct TokenOrder {
    /// Its options.
    pub options: TokenOrderOptions,
}

impl Pass for TokenOrder {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let distinct = self.options.distinct_arguments;
        for entry in entries(module) {
            let args = module.entry_block(entry, 0).map(|b| module.blocks[b].args.clone()).unwrap_or_default();
            let mut next_bit = 0;
            let aliasing: Vec<ArgAliasing> = args
                .iter()
                .map(|&a| {
                    if !is_pointer(module, module.value_type(a)) {
                        return ArgAliasing::NOT_MEMORY;
                    }
                    if !distinct {
                        return ArgAliasing { set: 1, loaded: UNIVERSE, may_alias_internally: true };
                    }
                    let set = 1u64 << next_bit.min(63);
                    next_bit += 1;
                    ArgAliasing { set, loaded: UNIVERSE, may_alias_internally: false }
                })
                .collect();
            order_function(module, entry, &aliasing);
        }
        Ok(())
    }
}

/// A set of arrays that may share memory, as bits: two sets may alias when they share one.
pub type AliasSet = u64;

/// Memory the pass cannot attribute: it may alias anything.
pub const UNIVERSE: AliasSet = u64::MAX;

/// What an entry argument's memory may alias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgAliasing {
    /// The alias set of memory accessed through this argument.
    pub set: AliasSet,
    /// The alias set of memory reached through pointers loaded from this argument's memory
    /// (the arrays of a list's records).
    pub loaded: AliasSet,
    /// Whether two distinct in-bounds indices may address the same bytes (a zero stride).
    pub may_alias_internally: bool,
}

impl ArgAliasing {
    /// An argument that is not a pointer (its set is never asked for).
    pub const NOT_MEMORY: ArgAliasing = ArgAliasing { set: 0, loaded: 0, may_alias_internally: false };
    /// Nothing known.
    pub const UNKNOWN: ArgAliasing = ArgAliasing { set: UNIVERSE, loaded: UNIVERSE, may_alias_internally: true };
}

/// Orders the memory ops of every entry in `m`, with `aliasing[i]` describing entry
/// argument `i` (missing ones are unknown).
pub fn order_tokens(m: &mut Module, aliasing: &[ArgAliasing]) {
    for entry in entries(m) {
        order_function(m, entry, aliasing);
    }
}

fn entries(m: &Module) -> Vec<OpId> {
    m.walk().into_iter().filter(|&op| ct(m, op) == Some(CtOp::Entry)).collect()
}

fn ct(m: &Module, op: OpId) -> Option<CtOp> {
    m.ops[op].kind.cuda_tile().map(|c| c.op)
}

fn is_pointer(m: &Module, ty: TypeId) -> bool {
    matches!(m.types.get(ty), Type::Tile { elem: TileElem::Ptr(_), .. })
}

// ---- accesses ------------------------------------------------------------------------

/// How an op touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AccessKind {
    Load,
    /// A plain store; `view` for `store_view_tko` (a parallel-store candidate).
    Store { view: bool },
    Atomic,
    /// `print` and the grid-dependency ops: ordered against every set.
    Universal,
}

#[derive(Clone, Copy, Debug)]
struct Access {
    kind: AccessKind,
    set: AliasSet,
    acquire: bool,
    release: bool,
}

impl Access {
    fn writes(&self) -> bool {
        !matches!(self.kind, AccessKind::Load)
    }
}

/// The strongest effect on a set within a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Effect {
    Load,
    Store,
}

/// The sets a region touches, in first-touched order (which orders carried tokens).
#[derive(Clone, Debug, Default)]
struct Effects {
    sets: Vec<(AliasSet, Effect)>,
    acquire: bool,
}

impl Effects {
    fn add(&mut self, set: AliasSet, effect: Effect) {
        match self.sets.iter_mut().find(|(s, _)| *s == set) {
            Some((_, e)) => *e = (*e).max(effect),
            None => self.sets.push((set, effect)),
        }
    }
    fn union(&mut self, other: &Effects) {
        for &(s, e) in &other.sets {
            self.add(s, e);
        }
        self.acquire |= other.acquire;
    }
    fn get(&self, set: AliasSet) -> Option<Effect> {
        self.sets.iter().find(|(s, _)| *s == set).map(|&(_, e)| e)
    }
    /// The token keys a region with these effects carries, in order.
    fn carried_keys(&self) -> Vec<Key> {
        let mut keys = Vec::new();
        for &(set, effect) in &self.sets {
            keys.push(Key::LastOp(set));
            if effect == Effect::Store {
                keys.push(Key::LastStore(set));
            }
        }
        if self.acquire {
            keys.push(Key::Acquire);
        }
        keys
    }
}

fn ordering(c: &CudaTileOp) -> (bool, bool) {
    match c.enum_attr::<MemoryOrdering>("memory_ordering_semantics") {
        Some(MemoryOrdering::Acquire) => (true, false),
        Some(MemoryOrdering::Release) => (false, true),
        Some(MemoryOrdering::AcqRel) => (true, true),
        _ => (false, false),
    }
}

// ---- the token map -------------------------------------------------------------------

/// What a token stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// The last access of any kind to a set.
    LastOp(AliasSet),
    /// The last write to a set.
    LastStore(AliasSet),
    /// The last acquire access.
    Acquire,
}

/// The current token of each key, in first-set order (which orders a join's operands).
#[derive(Clone, Debug)]
struct TokenMap {
    /// The function's initial token: orders nothing.
    root: ValueId,
    entries: Vec<(Key, ValueId)>,
}

impl TokenMap {
    fn get(&self, key: Key) -> ValueId {
        self.entries.iter().find(|(k, _)| *k == key).map_or(self.root, |&(_, v)| v)
    }
    fn has(&self, key: Key) -> bool {
        self.entries.iter().any(|(k, _)| *k == key)
    }
    fn set(&mut self, key: Key, value: ValueId) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.entries.push((key, value)),
        }
    }
    /// The tokens an access keyed `key` must follow: the key's own, every key of the same
    /// role whose set overlaps, the last acquire, and with `release` every last access.
    fn to_follow(&self, key: Key, release: bool) -> Vec<ValueId> {
        let mut out = vec![self.get(key)];
        for &(other, tok) in &self.entries {
            let join = match (key, other) {
                (_, Key::Acquire) => true,
                (_, Key::LastOp(_)) if release => true,
                (Key::LastOp(a), Key::LastOp(b)) | (Key::LastStore(a), Key::LastStore(b)) => a & b != 0,
                _ => false,
            };
            if join && !out.contains(&tok) {
                out.push(tok);
            }
        }
        out.retain(|&t| t != self.root);
        if out.is_empty() {
            out.push(self.root);
        }
        out
    }
}

// ---- per-function ordering -----------------------------------------------------------

struct LoopCtx {
    effects: Effects,
    /// The loop's parallel stores.
    parallel: HashSet<OpId>,
    /// The tokens before the loop.
    outer: TokenMap,
}

struct Orderer<'a> {
    m: &'a mut Module,
    aliasing: &'a [ArgAliasing],
    entry_block: BlockId,
    token_ty: TypeId,
    block_effects: HashMap<BlockId, Effects>,
}

fn order_function(m: &mut Module, entry: OpId, aliasing: &[ArgAliasing]) {
    let Some(body) = m.entry_block(entry, 0) else { return };
    let token_ty = m.types.intern(Type::Token);
    let root = match m.blocks[body].ops.iter().copied().find(|&op| ct(m, op) == Some(CtOp::MakeToken)) {
        Some(op) => m.result(op, 0),
        None => {
            let loc = m.ops[entry].loc;
            let op = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::MakeToken)), vec![], &[token_ty], loc);
            m.prepend_op(body, op);
            m.result(op, 0)
        }
    };
    let mut o = Orderer { m, aliasing, entry_block: body, token_ty, block_effects: HashMap::new() };
    o.effects_of_block(body);
    let mut map = TokenMap { root, entries: Vec::new() };
    o.order_block(body, &mut map, None, None);
    remove_dead_tokens(o.m, entry);
}

impl Orderer<'_> {
    // -- alias sets --

    /// The entry argument a pointer or view value derives from, if it derives from one.
    fn root_arg(&self, mut v: ValueId) -> Option<usize> {
        for _ in 0..256 {
            match self.m.values[v].def {
                ValueDef::BlockArg { block, index } => {
                    return (block == self.entry_block).then_some(index as usize);
                }
                ValueDef::OpResult { op, .. } => {
                    let c = ct(self.m, op)?;
                    let through = matches!(
                        c,
                        CtOp::MakeTensorView
                            | CtOp::MakePartitionView
                            | CtOp::MakeGatherScatterView
                            | CtOp::MakeStridedView
                            | CtOp::Offset
                            | CtOp::Assume
                            | CtOp::Broadcast
                            | CtOp::Reshape
                            | CtOp::Permute
                            | CtOp::Extract
                            | CtOp::PtrToPtr
                    );
                    if !through {
                        return None;
                    }
                    v = *self.m.ops[op].operands.first()?;
                }
            }
        }
        None
    }

    fn arg(&self, index: usize) -> ArgAliasing {
        self.aliasing.get(index).copied().unwrap_or(ArgAliasing::UNKNOWN)
    }

    /// The alias set of the memory a pointer or view value addresses.
    fn set_of(&self, v: ValueId) -> AliasSet {
        if let Some(i) = self.root_arg(v) {
            return self.arg(i).set;
        }
        let mut v = v;
        // Through pointer-preserving ops to an int_to_ptr of a loaded word: the set of
        // what the loaded-from memory points to (a list's arrays).
        for _ in 0..256 {
            let Some(op) = self.m.defining_op(v) else { return UNIVERSE };
            match ct(self.m, op) {
                Some(CtOp::IntToPtr) => return self.loaded_set(self.m.ops[op].operands[0]),
                Some(CtOp::MakeTensorView | CtOp::MakePartitionView | CtOp::MakeGatherScatterView)
                | Some(CtOp::MakeStridedView | CtOp::Offset | CtOp::Assume | CtOp::Broadcast | CtOp::Reshape)
                | Some(CtOp::Permute | CtOp::Extract | CtOp::PtrToPtr) => v = self.m.ops[op].operands[0],
                _ => return UNIVERSE,
            }
        }
        UNIVERSE
    }

    /// The set of what an integer loaded from memory points to.
    fn loaded_set(&self, mut v: ValueId) -> AliasSet {
        for _ in 0..256 {
            let Some(op) = self.m.defining_op(v) else { return UNIVERSE };
            match ct(self.m, op) {
                Some(CtOp::Extract | CtOp::Reshape | CtOp::Broadcast | CtOp::Assume | CtOp::Bitcast) => {
                    v = self.m.ops[op].operands[0]
                }
                Some(CtOp::LoadViewTko | CtOp::LoadPtrTko) => {
                    return self.root_arg(self.m.ops[op].operands[0]).map_or(UNIVERSE, |i| self.arg(i).loaded);
                }
                _ => return UNIVERSE,
            }
        }
        UNIVERSE
    }

    fn may_alias_internally(&self, v: ValueId) -> bool {
        self.root_arg(v).is_none_or(|i| self.arg(i).may_alias_internally)
    }

    /// How `op` accesses memory, if it does and can take a token.
    fn access(&self, op: OpId) -> Option<Access> {
        let c = self.m.ops[op].kind.cuda_tile()?;
        let operands = &self.m.ops[op].operands;
        let (acquire, release) = ordering(c);
        let (kind, set) = match c.op {
            CtOp::LoadViewTko | CtOp::LoadPtrTko => (AccessKind::Load, self.set_of(operands[0])),
            CtOp::StoreViewTko => (AccessKind::Store { view: true }, self.set_of(operands[1])),
            CtOp::StorePtrTko => (AccessKind::Store { view: false }, self.set_of(operands[0])),
            CtOp::AtomicRmwTko | CtOp::AtomicCasTko | CtOp::AtomicRedViewTko => {
                (AccessKind::Atomic, self.set_of(operands[0]))
            }
            CtOp::PrintTko if !self.m.ops[op].results.is_empty() => {
                return Some(Access { kind: AccessKind::Universal, set: UNIVERSE, acquire: false, release: false });
            }
            CtOp::GdcWaitTko | CtOp::GdcLaunchDependentsTko => {
                let acquire = c.op == CtOp::GdcWaitTko;
                return Some(Access { kind: AccessKind::Universal, set: UNIVERSE, acquire, release: false });
            }
            _ => return None,
        };
        Some(Access { kind, set, acquire, release })
    }

    fn effects_of_block(&mut self, block: BlockId) -> Effects {
        let mut effects = Effects::default();
        for op in self.m.blocks[block].ops.clone() {
            if let Some(a) = self.access(op) {
                effects.add(a.set, if a.writes() { Effect::Store } else { Effect::Load });
                effects.acquire |= a.acquire;
            }
            if matches!(ct(self.m, op), Some(CtOp::For | CtOp::Loop | CtOp::If)) {
                for region in self.m.ops[op].regions.clone() {
                    for b in self.m.regions[region].blocks.clone() {
                        let inner = self.effects_of_block(b);
                        effects.union(&inner);
                    }
                }
            }
        }
        self.block_effects.insert(block, effects.clone());
        effects
    }

    // -- rewriting --

    /// A token following all of `tokens`: the one token, or a `join_tokens` placed before
    /// `anchor` (or after it, with `after`).
    fn join(&mut self, tokens: Vec<ValueId>, anchor: OpId, after: bool) -> ValueId {
        if tokens.len() == 1 {
            return tokens[0];
        }
        let loc = self.m.ops[anchor].loc;
        let op = self.m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::JoinTokens)), tokens, &[self.token_ty], loc);
        if after {
            self.m.insert_op_after(anchor, op);
        } else {
            self.m.insert_op_before(anchor, op);
        }
        self.m.result(op, 0)
    }

    /// `a` and `b` joined after `anchor` (either alone when the other is the root token).
    fn join_after(&mut self, map: &TokenMap, a: ValueId, b: ValueId, anchor: OpId) -> ValueId {
        let tokens: Vec<ValueId> = [a, b].into_iter().filter(|&t| t != map.root).collect();
        match tokens.len() {
            0 => map.root,
            _ => self.join(tokens, anchor, true),
        }
    }

    fn set_token_operand(&mut self, op: OpId, token: ValueId) {
        let n = self.m.ops[op].operands.len();
        let OpKind::CudaTile(c) = &mut self.m.ops[op].kind else { return };
        if c.schema().has(traits::SEGMENTED) {
            let Some(range) = c.group("token", n) else { return };
            if range.len() == 1 {
                self.m.ops[op].operands[range.start] = token;
            } else if let Some(gi) = c.schema().operands.iter().position(|o| o.name == "token") {
                c.segments[gi] = 1;
                self.m.ops[op].operands.insert(range.start, token);
            }
        } else if n == 1 {
            self.m.ops[op].operands[0] = token;
        } else {
            self.m.ops[op].operands.push(token);
        }
    }

    fn result_token(&self, op: OpId) -> ValueId {
        *self.m.ops[op].results.last().expect("an access taking a token has a result token")
    }

    fn order_access(&mut self, op: OpId, a: Access, map: &mut TokenMap, lp: Option<&LoopCtx>) {
        match a.kind {
            AccessKind::Load => {
                let input = map.to_follow(Key::LastStore(a.set), false);
                let input = self.join(input, op, false);
                self.set_token_operand(op, input);
                let result = self.result_token(op);
                let last = self.join_after(map, map.get(Key::LastOp(a.set)), result, op);
                map.set(Key::LastOp(a.set), last);
                if a.acquire {
                    map.set(Key::Acquire, result);
                }
            }
            AccessKind::Store { view: true } if lp.is_some_and(|l| l.parallel.contains(&op)) => {
                let lp = lp.expect("checked");
                let before = lp.outer.get(Key::LastOp(a.set));
                let mut input = vec![before];
                if map.has(Key::Acquire) && map.get(Key::Acquire) != before {
                    input.push(map.get(Key::Acquire));
                }
                input.retain(|&t| t != map.root);
                let input = if input.is_empty() { map.root } else { self.join(input, op, false) };
                self.set_token_operand(op, input);
                let result = self.result_token(op);
                let last = self.join_after(map, map.get(Key::LastOp(a.set)), result, op);
                map.set(Key::LastOp(a.set), last);
                map.set(Key::LastStore(a.set), last);
            }
            AccessKind::Store { .. } | AccessKind::Atomic | AccessKind::Universal => {
                let input = map.to_follow(Key::LastOp(a.set), a.release);
                let input = self.join(input, op, false);
                self.set_token_operand(op, input);
                let result = self.result_token(op);
                map.set(Key::LastOp(a.set), result);
                map.set(Key::LastStore(a.set), result);
                if a.acquire {
                    map.set(Key::Acquire, result);
                }
            }
        }
    }

    fn new_token_result(&mut self, op: OpId) -> ValueId {
        let index = self.m.ops[op].results.len() as u32;
        let v = self.m.values.push(ValueData { ty: self.token_ty, def: ValueDef::OpResult { op, index }, name: None });
        self.m.ops[op].results.push(v);
        v
    }

    fn new_token_arg(&mut self, block: BlockId) -> ValueId {
        let index = self.m.blocks[block].args.len() as u32;
        let v = self.m.values.push(ValueData { ty: self.token_ty, def: ValueDef::BlockArg { block, index }, name: None });
        self.m.blocks[block].args.push(v);
        v
    }

    fn order_block(&mut self, block: BlockId, map: &mut TokenMap, lp: Option<&LoopCtx>, branch: Option<&Effects>) {
        for op in self.m.blocks[block].ops.clone() {
            if let Some(a) = self.access(op) {
                self.order_access(op, a, map, lp);
                continue;
            }
            match ct(self.m, op) {
                Some(CtOp::For | CtOp::Loop) => self.order_loop(op, map),
                Some(CtOp::If) => self.order_if(op, map, lp),
                Some(CtOp::Continue | CtOp::Break) => {
                    if let Some(lp) = lp {
                        let tokens: Vec<ValueId> = lp.effects.carried_keys().into_iter().map(|k| map.get(k)).collect();
                        self.m.ops[op].operands.extend(tokens);
                    }
                }
                Some(CtOp::Yield) => {
                    if let Some(effects) = branch {
                        let tokens: Vec<ValueId> = effects.carried_keys().into_iter().map(|k| map.get(k)).collect();
                        self.m.ops[op].operands.extend(tokens);
                    }
                }
                _ => {}
            }
        }
    }

    fn order_loop(&mut self, op: OpId, map: &mut TokenMap) {
        let Some(body) = self.m.entry_block(op, 0) else { return };
        let effects = self.block_effects.get(&body).cloned().unwrap_or_default();
        let mut body_map = map.clone();
        let mut after = map.clone();
        for key in effects.carried_keys() {
            let init = map.get(key);
            self.m.ops[op].operands.push(init);
            let arg = self.new_token_arg(body);
            body_map.set(key, arg);
            let result = self.new_token_result(op);
            after.set(key, result);
        }
        let parallel = if ct(self.m, op) == Some(CtOp::For) { self.parallel_stores(body, &effects) } else { HashSet::new() };
        let ctx = LoopCtx { effects, parallel, outer: map.clone() };
        self.order_block(body, &mut body_map, Some(&ctx), None);
        *map = after;
    }

    fn order_if(&mut self, op: OpId, map: &mut TokenMap, lp: Option<&LoopCtx>) {
        let regions = self.m.ops[op].regions.clone();
        let mut merged = Effects::default();
        for &r in &regions {
            for &b in &self.m.regions[r].blocks {
                if let Some(e) = self.block_effects.get(&b) {
                    merged.union(e);
                }
            }
        }
        let keys = merged.carried_keys();
        let mut after = map.clone();
        for &key in &keys {
            let result = self.new_token_result(op);
            after.set(key, result);
        }
        let loc = self.m.ops[op].loc;
        for &r in &regions {
            let block = match self.m.regions[r].blocks.first() {
                Some(&b) => b,
                None if keys.is_empty() => continue,
                None => self.m.add_block(r, &[]),
            };
            // A branch without a terminator yields implicitly: give it a yield to carry the tokens.
            let ends = self.m.blocks[block].ops.last().is_some_and(|&last| self.m.ops[last].kind.is_terminator());
            if !ends && !keys.is_empty() {
                self.append_yield(block, loc);
            }
            self.order_block(block, &mut map.clone(), lp, Some(&merged));
        }
        *map = after;
    }

    fn append_yield(&mut self, block: BlockId, loc: LocId) {
        let y = self.m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Yield)), vec![], &[], loc);
        self.m.append_op(block, y);
    }

    /// Whether `v` is defined outside loop body `body` (not in it or a region inside it).
    fn invariant(&self, v: ValueId, body: BlockId) -> bool {
        let mut block = self.m.value_block(v);
        while let Some(b) = block {
            if b == body {
                return false;
            }
            block = self.m.parent_op_of_block(b).and_then(|op| self.m.ops[op].parent);
        }
        true
    }

    /// `v`'s cuda_tile op and operands.
    fn def(&self, v: ValueId) -> Option<(CtOp, &[ValueId])> {
        let op = self.m.defining_op(v)?;
        Some((ct(self.m, op)?, &self.m.ops[op].operands))
    }

    /// Whether distinct iterations give `v` distinct values: it is the induction variable
    /// `iv`, extended, or plus or minus loop-invariant values.
    fn injective(&self, v: ValueId, iv: ValueId, body: BlockId) -> bool {
        if v == iv {
            return true;
        }
        match self.def(v) {
            Some((CtOp::ExtI, [x])) => self.injective(*x, iv, body),
            Some((CtOp::AddI, [a, b])) => {
                (self.injective(*a, iv, body) && self.invariant(*b, body)) || (self.invariant(*a, body) && self.injective(*b, iv, body))
            }
            Some((CtOp::SubI, [a, b])) => self.injective(*a, iv, body) && self.invariant(*b, body),
            _ => false,
        }
    }

    /// `(x, d)` if `v` is `x / d` (any rounding).
    fn quotient(&self, v: ValueId) -> Option<(ValueId, ValueId)> {
        match self.def(v)? {
            (CtOp::DivI, [x, d]) => Some((*x, *d)),
            _ => None,
        }
    }

    /// `(x, d)` if `v` is `x % d`: `remi`, or the floor-modulo idiom
    /// `select(c, remi(x, d) + d, remi(x, d))` Python's `%` lowers to.
    fn remainder(&self, v: ValueId) -> Option<(ValueId, ValueId)> {
        match self.def(v)? {
            (CtOp::RemI, [x, d]) => Some((*x, *d)),
            (CtOp::Select, [_, adjusted, r]) => {
                let (x, d) = self.remainder(*r).filter(|_| self.def(*r).is_some_and(|(c, _)| c == CtOp::RemI))?;
                match self.def(*adjusted)? {
                    (CtOp::AddI, [a, b]) if (*a == *r && *b == d) || (*a == d && *b == *r) => Some((x, d)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether a store's index tuple differs between iterations: one index is injective,
    /// or two are the quotient and remainder of one injective value by an invariant divisor.
    fn injective_indices(&self, index: &[ValueId], iv: ValueId, body: BlockId) -> bool {
        if index.iter().any(|&v| self.injective(v, iv, body)) {
            return true;
        }
        index.iter().any(|&q| {
            self.quotient(q).is_some_and(|(x, d)| {
                self.injective(x, iv, body)
                    && self.invariant(d, body)
                    && index.iter().any(|&r| self.remainder(r) == Some((x, d)))
            })
        })
    }

    /// cuTile's loop-parallel stores of a `for` loop (see the module docs).
    fn parallel_stores(&self, body: BlockId, effects: &Effects) -> HashSet<OpId> {
        let mut out = HashSet::new();
        if effects.sets.iter().any(|&(s, _)| s == UNIVERSE || s.count_ones() > 1) {
            return out;
        }
        let Some(&iv) = self.m.blocks[body].args.first() else { return out };
        let mut nested = Effects::default();
        let mut by_set: Vec<(AliasSet, Vec<OpId>)> = Vec::new();
        for &op in &self.m.blocks[body].ops {
            for &r in &self.m.ops[op].regions {
                for b in &self.m.regions[r].blocks {
                    if let Some(e) = self.block_effects.get(b) {
                        nested.union(e);
                    }
                }
            }
            if let Some(a) = self.access(op) {
                match by_set.iter_mut().find(|(s, _)| *s == a.set) {
                    Some((_, ops)) => ops.push(op),
                    None => by_set.push((a.set, vec![op])),
                }
            }
        }
        for (set, ops) in by_set {
            let [op] = ops[..] else { continue };
            if ct(self.m, op) != Some(CtOp::StoreViewTko) || nested.get(set).is_some() {
                continue;
            }
            let operands = &self.m.ops[op].operands;
            let view = operands[1];
            if !matches!(self.m.types.get(self.m.value_type(view)), Type::PartitionView(_)) || self.may_alias_internally(view) {
                continue;
            }
            let c = self.m.ops[op].kind.cuda_tile().expect("a cuda_tile store");
            let Some(index) = c.group("index", operands.len()) else { continue };
            if self.injective_indices(&operands[index], iv, body) {
                out.insert(op);
            }
        }
        out
    }
}

// ---- removing tokens that order nothing ----------------------------------------------

/// Removes the joins and carried or merged tokens no access takes: a backward walk from
/// the token operands of accesses through joins, `yield`s, `continue`s, `break`s and loop
/// inits finds the live ones.
fn remove_dead_tokens(m: &mut Module, entry: OpId) {
    let Some(body) = m.entry_block(entry, 0) else { return };
    let is_token = |m: &Module, v: ValueId| matches!(m.types.get(m.value_type(v)), Type::Token);
    // Every op of the function, and for each loop / if the terminators that feed it.
    let mut ops = Vec::new();
    let mut continues: HashMap<OpId, Vec<OpId>> = HashMap::new();
    let mut breaks: HashMap<OpId, Vec<OpId>> = HashMap::new();
    let mut yields: HashMap<OpId, Vec<OpId>> = HashMap::new();
    fn collect(
        m: &Module,
        block: BlockId,
        lp: Option<OpId>,
        ops: &mut Vec<OpId>,
        continues: &mut HashMap<OpId, Vec<OpId>>,
        breaks: &mut HashMap<OpId, Vec<OpId>>,
        yields: &mut HashMap<OpId, Vec<OpId>>,
    ) {
        let parent = m.parent_op_of_block(block);
        for &op in &m.blocks[block].ops {
            ops.push(op);
            match ct(m, op) {
                Some(CtOp::Continue) => {
                    if let Some(lp) = lp {
                        continues.entry(lp).or_default().push(op);
                    }
                }
                Some(CtOp::Break) => {
                    if let Some(lp) = lp {
                        breaks.entry(lp).or_default().push(op);
                    }
                }
                Some(CtOp::Yield) => {
                    if let Some(p) = parent.filter(|&p| ct(m, p) == Some(CtOp::If)) {
                        yields.entry(p).or_default().push(op);
                    }
                }
                _ => {}
            }
            let inner_lp = match ct(m, op) {
                Some(CtOp::For | CtOp::Loop) => Some(op),
                Some(CtOp::If) => lp,
                _ => None,
            };
            for &r in &m.ops[op].regions {
                for &b in &m.regions[r].blocks {
                    collect(m, b, inner_lp, ops, continues, breaks, yields);
                }
            }
        }
    }
    collect(m, body, None, &mut ops, &mut continues, &mut breaks, &mut yields);

    // Transfers: ops that only pass tokens on. Any other use of a token orders something.
    let transfer = |m: &Module, op: OpId| {
        matches!(ct(m, op), Some(CtOp::JoinTokens | CtOp::Continue | CtOp::Break | CtOp::For | CtOp::Loop))
            || (ct(m, op) == Some(CtOp::Yield) && m.parent_op_of_block(m.ops[op].parent.expect("attached")).is_some_and(|p| ct(m, p) == Some(CtOp::If)))
    };
    let mut live: HashSet<ValueId> = HashSet::new();
    let mut work: Vec<ValueId> = Vec::new();
    for &op in &ops {
        if transfer(m, op) {
            // A for/loop's non-carried operands (bounds) are not tokens; its inits transfer.
            continue;
        }
        for &v in &m.ops[op].operands {
            if is_token(m, v) && live.insert(v) {
                work.push(v);
            }
        }
    }
    let operand_at = |m: &Module, op: OpId, i: usize| m.ops[op].operands.get(i).copied();
    while let Some(v) = work.pop() {
        let mut sources = Vec::new();
        match m.values[v].def {
            ValueDef::OpResult { op, index } => {
                let k = index as usize;
                match ct(m, op) {
                    Some(CtOp::JoinTokens) => sources.extend(m.ops[op].operands.iter().copied()),
                    Some(CtOp::If) => {
                        for &y in yields.get(&op).into_iter().flatten() {
                            sources.extend(operand_at(m, y, k));
                        }
                    }
                    Some(CtOp::For) => {
                        sources.extend(operand_at(m, op, 3 + k));
                        for &c in continues.get(&op).into_iter().flatten() {
                            sources.extend(operand_at(m, c, k));
                        }
                    }
                    Some(CtOp::Loop) => {
                        for &b in breaks.get(&op).into_iter().flatten() {
                            sources.extend(operand_at(m, b, k));
                        }
                    }
                    _ => {}
                }
            }
            ValueDef::BlockArg { block, index } => {
                let k = index as usize;
                if let Some(op) = m.parent_op_of_block(block) {
                    let slot = match ct(m, op) {
                        Some(CtOp::For) if k >= 1 => Some((3 + k - 1, k - 1)),
                        Some(CtOp::Loop) => Some((k, k)),
                        _ => None,
                    };
                    if let Some((init, cont)) = slot {
                        sources.extend(operand_at(m, op, init));
                        for &c in continues.get(&op).into_iter().flatten() {
                            sources.extend(operand_at(m, c, cont));
                        }
                    }
                }
            }
        }
        for s in sources {
            if is_token(m, s) && live.insert(s) {
                work.push(s);
            }
        }
    }

    // Remove what is dead, loops and ifs first (their slots), then the joins.
    for &op in &ops {
        match ct(m, op) {
            Some(CtOp::If) => {
                let dead: Vec<usize> = dead_slots(m, &m.ops[op].results, &live);
                for &k in dead.iter().rev() {
                    for &y in yields.get(&op).into_iter().flatten() {
                        if k < m.ops[y].operands.len() {
                            m.ops[y].operands.remove(k);
                        }
                    }
                    remove_result(m, op, k);
                }
            }
            Some(CtOp::For) => {
                let Some(b) = m.entry_block(op, 0) else { continue };
                let results = m.ops[op].results.clone();
                let args = m.blocks[b].args.clone();
                let dead: Vec<usize> = (0..results.len())
                    .filter(|&k| {
                        let (r, a) = (results[k], args.get(k + 1).copied());
                        is_token(m, r) && !live.contains(&r) && a.is_some_and(|a| !live.contains(&a))
                    })
                    .collect();
                for &k in dead.iter().rev() {
                    for &c in continues.get(&op).into_iter().flatten() {
                        if k < m.ops[c].operands.len() {
                            m.ops[c].operands.remove(k);
                        }
                    }
                    m.ops[op].operands.remove(3 + k);
                    remove_block_arg(m, b, k + 1);
                    remove_result(m, op, k);
                }
            }
            Some(CtOp::Loop) => {
                let Some(b) = m.entry_block(op, 0) else { continue };
                let dead_args = dead_slots(m, &m.blocks[b].args, &live);
                for &k in dead_args.iter().rev() {
                    for &c in continues.get(&op).into_iter().flatten() {
                        if k < m.ops[c].operands.len() {
                            m.ops[c].operands.remove(k);
                        }
                    }
                    m.ops[op].operands.remove(k);
                    remove_block_arg(m, b, k);
                }
                let dead_results = dead_slots(m, &m.ops[op].results, &live);
                for &k in dead_results.iter().rev() {
                    for &br in breaks.get(&op).into_iter().flatten() {
                        if k < m.ops[br].operands.len() {
                            m.ops[br].operands.remove(k);
                        }
                    }
                    remove_result(m, op, k);
                }
            }
            _ => {}
        }
    }
    for &op in &ops {
        if ct(m, op) == Some(CtOp::JoinTokens) && !live.contains(&m.result(op, 0)) {
            m.detach_op(op);
        }
    }
}

/// The positions of token values in `values` that are not live.
fn dead_slots(m: &Module, values: &[ValueId], live: &HashSet<ValueId>) -> Vec<usize> {
    (0..values.len())
        .filter(|&k| matches!(m.types.get(m.value_type(values[k])), Type::Token) && !live.contains(&values[k]))
        .collect()
}

fn remove_result(m: &mut Module, op: OpId, k: usize) {
    m.ops[op].results.remove(k);
    for (i, &v) in m.ops[op].results.iter().enumerate().skip(k) {
        m.values[v].def = ValueDef::OpResult { op, index: i as u32 };
    }
}

fn remove_block_arg(m: &mut Module, block: BlockId, k: usize) {
    m.blocks[block].args.remove(k);
    for (i, &v) in m.blocks[block].args.iter().enumerate().skip(k) {
        m.values[v].def = ValueDef::BlockArg { block, index: i as u32 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tileir_ir::entity::EntityId;

    fn v(i: usize) -> ValueId {
        ValueId::new(i)
    }

    fn map() -> TokenMap {
        let mut m = TokenMap { root: v(0), entries: Vec::new() };
        m.set(Key::LastOp(0b01), v(1));
        m.set(Key::LastStore(0b01), v(2));
        m.set(Key::LastOp(0b10), v(3));
        m
    }

    #[test]
    fn a_load_follows_the_last_store_of_overlapping_sets_only() {
        let m = map();
        assert_eq!(m.to_follow(Key::LastStore(0b01), false), vec![v(2)]);
        // Nothing stored to set 0b10 yet: the root token (which orders nothing).
        assert_eq!(m.to_follow(Key::LastStore(0b10), false), vec![v(0)]);
        // Memory the pass cannot attribute overlaps every set.
        assert_eq!(m.to_follow(Key::LastStore(UNIVERSE), false), vec![v(2)]);
        assert_eq!(m.to_follow(Key::LastOp(UNIVERSE), false), vec![v(1), v(3)]);
    }

    #[test]
    fn release_follows_every_last_access_and_everything_follows_an_acquire() {
        let mut m = map();
        assert_eq!(m.to_follow(Key::LastOp(0b10), true), vec![v(3), v(1)]);
        m.set(Key::Acquire, v(4));
        assert_eq!(m.to_follow(Key::LastStore(0b10), false), vec![v(4)]);
        assert_eq!(m.to_follow(Key::LastOp(0b01), false), vec![v(1), v(4)]);
    }

    #[test]
    fn carried_keys_list_last_stores_only_for_written_sets() {
        let mut e = Effects::default();
        e.add(0b01, Effect::Load);
        e.add(0b10, Effect::Store);
        e.add(0b01, Effect::Store);
        assert_eq!(e.carried_keys(), vec![Key::LastOp(0b01), Key::LastStore(0b01), Key::LastOp(0b10), Key::LastStore(0b10)]);
        e.acquire = true;
        assert_eq!(e.carried_keys().last(), Some(&Key::Acquire));
    }
}
