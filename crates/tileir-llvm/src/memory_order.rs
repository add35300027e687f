//! Token-ordered memory accesses across the threads of a tile block.
//!
//! cuda_tile orders a tile block's memory ops through tokens: an op that takes the token of
//! an earlier access happens after it. A tile op runs on every thread of the CTA, each
//! thread touching its own elements, so two ordered accesses of the same bytes may be
//! made by two threads; program order then orders nothing, and the later access needs a
//! CTA barrier (`bar.sync` orders memory among the threads it joins, for global and shared
//! memory alike). NVIDIA's compiler places one there too.
//!
//! What each token stands for is tracked as it is lowered: the accesses it orders after
//! (since the last barrier on its chain). An access taking tokens gets a barrier when it or
//! one of those accesses writes, except where each thread provably touches only what it
//! touched itself: the same tiled access (memref, tile coordinates, tile type) repeated in
//! straight-line code, with a layout that gives every element to exactly one thread, and
//! any two scalar writes (rank-0 stores and atomics run in thread 0 alone). Two reads
//! never need one. A loop's carried token stands for everything its body accesses, from
//! any iteration, besides its initial value's accesses.
//!
//! A barrier orders everything every thread did before it: the accesses it was placed for
//! need no other barrier in the code it dominates (the rest of its block and the regions
//! of the ops that follow there), so a store followed by several loads of its array waits
//! once.

use std::collections::{BTreeSet, HashMap};

use crate::writer::FuncWriter;
use tileir_ir::{CtOp, OpId, OpKind, TileAsOp, Type, ValueId};

/// One access a token orders after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Access {
    /// The memory op.
    op: OpId,
    /// Whether it writes.
    writes: bool,
    /// Reached through a loop's back edge: its operands held other values then.
    earlier_iteration: bool,
}

/// What a token orders after.
pub(crate) type Ordered = BTreeSet<Access>;

/// The tokens' accesses while a function is lowered.
#[derive(Default)]
pub(crate) struct TokenOrder {
    ordered: HashMap<ValueId, Ordered>,
    /// The barriers placed so far: the op each was placed before, and the accesses it
    /// orders for the code that op dominates.
    fences: Vec<(OpId, Ordered)>,
}

/// How an op touches memory: `Some(writes)` for memory ops, `None` for the rest.
fn memory_effect(kind: &OpKind) -> Option<bool> {
    match kind {
        OpKind::CudaTile(c) => match c.op {
            CtOp::LoadPtrTko => Some(false),
            CtOp::StorePtrTko | CtOp::AtomicRmwTko | CtOp::AtomicCasTko | CtOp::AtomicRedViewTko => Some(true),
            _ => None,
        },
        OpKind::TileAs(k) => match k {
            TileAsOp::TiledLoad { .. } | TileAsOp::Load(_) => Some(false),
            TileAsOp::TiledStore { .. } | TileAsOp::Store(_) | TileAsOp::TiledAtomicRmw { .. } => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `op` writes from thread 0 alone: a store or atomic of a rank-0 (scalar) tile.
fn thread_zero_write(m: &tileir_ir::Module, op: OpId) -> bool {
    let OpKind::CudaTile(c) = &m.ops[op].kind else { return false };
    matches!(c.op, CtOp::StorePtrTko | CtOp::AtomicRmwTko | CtOp::AtomicCasTko)
        && m.ops[op].operands.first().is_some_and(|&p| match m.types.get(m.value_type(p)) {
            Type::Tile { shape, .. } => shape.is_empty(),
            Type::AaPtr { .. } => true,
            _ => false,
        })
}

/// Whether two memrefs are one: the same value, or made alike from the same values (each
/// view of an array makes its own).
fn same_memref(m: &tileir_ir::Module, a: ValueId, b: ValueId) -> bool {
    if a == b {
        return true;
    }
    let (Some(da), Some(db)) = (m.defining_op(a), m.defining_op(b)) else { return false };
    let (oa, ob) = (&m.ops[da], &m.ops[db]);
    matches!(oa.kind, OpKind::TileAa(tileir_ir::TileAaOp::MakeMemref { .. }))
        && oa.kind == ob.kind
        && oa.operands == ob.operands
        && m.value_type(a) == m.value_type(b)
}

impl FuncWriter<'_> {
    pub(crate) fn is_token_value(&self, v: ValueId) -> bool {
        matches!(self.m.types.get(self.m.value_type(v)), Type::Token | Type::MemToken)
    }

    /// What the token operands of `op` order it after.
    fn ordered_by_operands(&self, op: OpId) -> Ordered {
        let mut out = Ordered::new();
        for &v in &self.m.ops[op].operands {
            if self.is_token_value(v) {
                if let Some(set) = self.token_order.ordered.get(&v) {
                    out.extend(set.iter().copied());
                }
            }
        }
        out
    }

    /// Before `op` is lowered: the barrier its token operands call for, if any.
    pub(crate) fn order_memory_before(&mut self, op: OpId) -> Ordered {
        let before = self.ordered_by_operands(op);
        let Some(writes) = memory_effect(&self.m.ops[op].kind) else { return before };
        let fenced = self.fenced_before(op);
        let conflict = before
            .iter()
            .any(|a| (a.writes || writes) && !fenced.contains(a) && !self.same_thread_elements(a, op));
        if conflict {
            self.barrier();
            self.token_order.fences.push((op, before));
            return Ordered::new();
        }
        before
    }

    /// After `op` is lowered: what its result tokens stand for.
    pub(crate) fn order_memory_after(&mut self, op: OpId, before: Ordered) {
        let data = &self.m.ops[op];
        let mut after = before;
        if let Some(writes) = memory_effect(&data.kind) {
            after.insert(Access { op, writes, earlier_iteration: false });
        }
        let results: Vec<ValueId> = data.results.iter().copied().filter(|&r| self.is_token_value(r)).collect();
        let is_loop = matches!(&data.kind, OpKind::CudaTile(c) if matches!(c.op, CtOp::For | CtOp::Loop));
        let nested = if is_loop || matches!(&data.kind, OpKind::CudaTile(c) if c.op == CtOp::If) {
            self.accesses_within(op, is_loop)
        } else {
            Ordered::new()
        };
        for r in results {
            let mut set = after.clone();
            set.extend(nested.iter().copied());
            self.token_order.ordered.insert(r, set);
        }
    }

    /// Before a loop's body is lowered: its carried tokens stand for their initial values'
    /// accesses and every access of the body, from earlier iterations.
    pub(crate) fn order_loop_carried(&mut self, loop_op: OpId, body: tileir_ir::BlockId) {
        let m = self.m;
        let inside = self.accesses_within(loop_op, true);
        let mut all = self.ordered_by_operands(loop_op);
        all.extend(inside);
        for &arg in &m.blocks[body].args {
            if self.is_token_value(arg) {
                self.token_order.ordered.insert(arg, all.clone());
            }
        }
    }

    /// Every memory access nested in `op`'s regions.
    fn accesses_within(&self, op: OpId, earlier_iteration: bool) -> Ordered {
        let m = self.m;
        let mut out = Ordered::new();
        let mut stack = vec![op];
        while let Some(o) = stack.pop() {
            for &region in &m.ops[o].regions {
                for &block in &m.regions[region].blocks {
                    for &inner in &m.blocks[block].ops {
                        if let Some(writes) = memory_effect(&m.ops[inner].kind) {
                            out.insert(Access { op: inner, writes, earlier_iteration });
                        }
                        stack.push(inner);
                    }
                }
            }
        }
        out
    }

    /// The accesses barriers already order before `op`: those of every barrier placed
    /// before an op that dominates `op` (the same op or an ancestor of `op` later in its
    /// block).
    fn fenced_before(&self, op: OpId) -> Ordered {
        let m = self.m;
        let mut out = Ordered::new();
        for (at, accesses) in &self.token_order.fences {
            let Some(block) = m.ops[*at].parent else { continue };
            let pos = |o: OpId| m.blocks[block].ops.iter().position(|&x| x == o);
            let Some(fence_pos) = pos(*at) else { continue };
            let mut cur = Some(op);
            while let Some(o) = cur {
                if m.ops[o].parent == Some(block) {
                    if pos(o).is_some_and(|p| p >= fence_pos) {
                        out.extend(accesses.iter().copied());
                    }
                    break;
                }
                cur = m.parent_op(o);
            }
        }
        out
    }

    /// Whether `op` touches, in each thread, only the elements `earlier` touched there.
    fn same_thread_elements(&mut self, earlier: &Access, op: OpId) -> bool {
        let m = self.m;
        if thread_zero_write(m, earlier.op) && thread_zero_write(m, op) {
            return true;
        }
        if earlier.earlier_iteration {
            return false;
        }
        let (a, b) = (&m.ops[earlier.op], &m.ops[op]);
        let tiled = |kind: &OpKind| match kind {
            OpKind::TileAs(TileAsOp::TiledLoad { access, .. }) => Some((access.clone(), true)),
            OpKind::TileAs(TileAsOp::TiledStore { access, .. }) => Some((access.clone(), false)),
            _ => None,
        };
        let (Some((acc_a, load_a)), Some((acc_b, load_b))) = (tiled(&a.kind), tiled(&b.kind)) else { return false };
        // Operands: memref, [stored value], coordinates.
        let coords = |d: &tileir_ir::OpData, load: bool, n: u32| -> Vec<ValueId> {
            let lead = if load { 1 } else { 2 };
            d.operands[lead..lead + n as usize].to_vec()
        };
        let tile_type = |d: &tileir_ir::OpData, load: bool| if load { m.value_type(d.results[0]) } else { m.value_type(d.operands[1]) };
        if !same_memref(m, a.operands[0], b.operands[0])
            || acc_a.num_indices != acc_b.num_indices
            || acc_a.origin_step != acc_b.origin_step
            || coords(a, load_a, acc_a.num_indices) != coords(b, load_b, acc_b.num_indices)
            || tile_type(a, load_a) != tile_type(b, load_b)
        {
            return false;
        }
        let Type::Tile { shape, layout: Some(layout), .. } = m.types.get(tile_type(b, load_b)).clone() else { return false };
        // Replicated threads read elements their owners write.
        self.owns(&layout, &shape).is_none()
    }
}
