//! Dual SIMT (spec/001 `use-dual-simt`): the AWS consumer agent split into two consumer
//! agents, each computing one half (along dimension 0) of the loop's accumulators.
//!
//! **Split values**: the loop's carried tile values (the accumulators) and the first entry
//! tile the consumer reads from the pipeline (the matmul's A: its rows are the
//! accumulator's rows). Consumer `c` works on the row half `c` of each of them, and every
//! tile computed from a split value is split too.
//!
//! **Feasibility** (checked over the consumer agent's code: the consumer loop and what
//! follows it): every op reading a split value must be computable per row half:
//! - `mmaf`/`mmai` (rank 2): lhs and accumulator split, rhs full;
//! - element-wise ops and conversions: split operands, or full tiles of the same (full)
//!   shape, of which the half is `extract`ed; scalars pass;
//! - `reduce` along a dimension other than 0;
//! - `broadcast` of a split value that keeps dimension 0;
//! - `nv_tileas.tiled_store` of a split value without an `origin_step` (the half goes to
//!   row coordinate `2r + c`);
//! - the loop's `continue` (a carried accumulator's next value must be split, or a full
//!   tile whose half is extracted).
//!
//! Anything else reading a split value (a reduce along 0, permute/reshape/extract/cat,
//! stores through pointers, atomics, prints, nested regions…) is infeasible, as is any load
//! or side effect in the consumer code not listed above, a split tile whose dimension 0 is
//! odd or below 2, and a consumer warp count that does not halve. Infeasible leaves the
//! single consumer agent exactly as emitted.
//!
//! **Emitted IR**: `agent_switch` with three agents (the unchanged producer; two consumers
//! of half the consumer warps each, the same registers per thread), the pipeline re-typed to
//! `consumers = 2`, consumer `c`'s `consume_one` naming `consumer_idx = c`, the half tiles
//! typed with `to_tileas::blocked_layout(half shape, 4, half warps)`.

use std::collections::{HashMap, HashSet};

use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::dialect::tileas::AgentSpec;
use tileir_ir::{BlockId, CtOp, CudaTileOp, Module, NumType, OpId, OpKind, TileAaOp, TileAsOp, Type, TypeId, ValueId};

use crate::pipeline_util::{captured_values, has_side_effects, walk_op, Builder, ForLoop};

/// Splits the single consumer agent of `sw` (as `AwsPlan::emit` built it) into two.
/// Works on a copy of the module and commits it only when the split is feasible; returns
/// the new `agent_switch`, or `None` (and `m` untouched) when infeasible.
pub(super) fn split(m: &mut Module, sw: OpId, loop_op: OpId, consume: OpId) -> Option<OpId> {
    let mut trial = m.clone();
    let new = try_split(&mut trial, sw, loop_op, consume)?;
    *m = trial;
    Some(new)
}

fn try_split(m: &mut Module, sw: OpId, loop_op: OpId, consume: OpId) -> Option<OpId> {
    let OpKind::TileAs(TileAsOp::AgentSwitch { agents }) = &m.ops[sw].kind else { return None };
    if agents.len() != 2 {
        return None;
    }
    let (producer, consumer) = (agents[0].clone(), agents[1].clone());
    if consumer.num_warps < 2 || consumer.num_warps % 2 != 0 {
        return None;
    }
    let warps = consumer.num_warps / 2;
    let half = AgentSpec { num_warps: warps, registers: consumer.registers };
    let pipe = m.ops[consume].operands[0];
    let Type::Pipeline { consumers: 1, .. } = m.types.get(m.value_type(pipe)) else { return None };

    let loc = m.ops[sw].loc;
    let new = m.create_op(OpKind::TileAs(TileAsOp::AgentSwitch { agents: vec![producer, half.clone(), half] }), vec![], &[], loc);
    m.insert_op_before(sw, new);
    let (old0, old1) = (m.ops[sw].regions[0], m.ops[sw].regions[1]);
    let (r0, r1, r2) = (m.ops[new].regions[0], m.ops[new].regions[1], m.ops[new].regions[2]);
    m.move_region_blocks(old0, r0);
    m.move_region_blocks(old1, r1);
    m.detach_op(sw);
    let block1 = *m.regions[r1].blocks.first()?;
    let block2 = m.add_block(r2, &[]);
    let mut map = HashMap::new();
    for o in m.blocks[block1].ops.clone() {
        let c = m.clone_op(o, &mut map);
        m.append_op(block2, c);
    }
    // The clones of the loop and its consume_one sit at the same positions.
    let lpos = m.blocks[block1].ops.iter().position(|&o| o == loop_op)?;
    let loop2 = m.blocks[block2].ops[lpos];
    let body1 = m.entry_block(loop_op, 0)?;
    let cpos = m.blocks[body1].ops.iter().position(|&o| o == consume)?;
    let body2 = m.entry_block(loop2, 0)?;
    let consume2 = m.blocks[body2].ops[cpos];

    Splitter { m: &mut *m, c: 0, warps, split: HashSet::new() }.agent(block1, loop_op, consume)?;
    Splitter { m: &mut *m, c: 1, warps, split: HashSet::new() }.agent(block2, loop2, consume2)?;
    retype_pipeline_consumers(m, pipe, 2);
    Some(new)
}

/// Re-types the pipeline of `pipe` (and iterators over it) to `consumers` consumers.
fn retype_pipeline_consumers(m: &mut Module, pipe: ValueId, consumers: u32) {
    crate::pipeline_util::retype_pipeline(m, pipe, None, Some(consumers));
}

/// Rewrites one consumer agent's block in place for row half `c`.
struct Splitter<'m> {
    m: &'m mut Module,
    /// Which half (and consumer index).
    c: u32,
    /// Warps of the consumer agent (for the half tiles' layouts).
    warps: u32,
    /// The values already holding a half tile.
    split: HashSet<ValueId>,
}

/// The shape of a tile type (`None` for anything else; rank 0 gives an empty shape).
fn shape_of(m: &Module, ty: TypeId) -> Option<Vec<i64>> {
    match m.types.get(ty) {
        Type::Tile { shape, .. } => Some(shape.clone()),
        _ => None,
    }
}

fn is_load_like(kind: &OpKind) -> bool {
    super::is_load(kind)
        || matches!(kind, OpKind::TileAs(TileAsOp::AsyncTiledLoad(_)))
        || matches!(kind.ct(), Some(CtOp::LoadPtrTko | CtOp::LoadViewTko))
}

impl Splitter<'_> {
    /// The row-half type of a full tile type: dimension 0 even and at least 2.
    fn half_type(&mut self, ty: TypeId) -> Option<TypeId> {
        let Type::Tile { shape, elem, layout } = self.m.types.get(ty).clone() else { return None };
        let d0 = *shape.first()?;
        if d0 < 2 || d0 % 2 != 0 {
            return None;
        }
        let mut half = shape;
        half[0] = d0 / 2;
        let layout = layout.map(|_| crate::to_tileas::blocked_layout(&half, 4, self.warps));
        Some(self.m.types.intern(Type::Tile { shape: half, elem, layout }))
    }

    /// Whether `v` is a tile of rank >= 1 (a candidate for splitting).
    fn is_tile(&self, v: ValueId) -> bool {
        shape_of(self.m, self.m.value_type(v)).is_some_and(|s| !s.is_empty())
    }

    /// The full shape of `v`: doubled dimension 0 for split values.
    fn full_shape(&self, v: ValueId) -> Option<Vec<i64>> {
        let mut s = shape_of(self.m, self.m.value_type(v))?;
        if self.split.contains(&v) {
            s[0] *= 2;
        }
        Some(s)
    }

    /// Gives a split result its half type.
    fn make_half(&mut self, v: ValueId) -> Option<()> {
        let h = self.half_type(self.m.value_type(v))?;
        self.m.values[v].ty = h;
        self.split.insert(v);
        Some(())
    }

    /// `extract` of row half `c` of the full tile `v`, inserted before `anchor`.
    fn extract_half(&mut self, v: ValueId, anchor: OpId) -> Option<ValueId> {
        let ty = self.m.value_type(v);
        let rank = shape_of(self.m, ty)?.len();
        let h = self.half_type(ty)?;
        let i32t = self.m.types.scalar(NumType::I32);
        let c = self.c;
        let mut b = Builder::before(self.m, anchor);
        let mut operands = vec![v];
        for d in 0..rank {
            operands.push(b.int_const(i32t, if d == 0 { i64::from(c) } else { 0 }));
        }
        let e = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::Extract)), operands, h);
        self.split.insert(e);
        Some(e)
    }

    /// Makes operand `i` of `op` a half tile: already split, or a full tile of `full` shape
    /// whose half is extracted.
    fn operand_half(&mut self, op: OpId, i: usize, full: &[i64]) -> Option<()> {
        let v = self.m.ops[op].operands[i];
        if self.full_shape(v)? != full {
            return None;
        }
        if !self.split.contains(&v) {
            let e = self.extract_half(v, op)?;
            self.m.ops[op].operands[i] = e;
        }
        Some(())
    }

    fn touches_split(&self, op: OpId) -> bool {
        let m = &*self.m;
        m.ops[op].operands.iter().chain(captured_values(m, op).iter()).any(|v| self.split.contains(v))
    }

    /// The agent: its consumer loop, then the code after it.
    fn agent(&mut self, block: BlockId, loop_op: OpId, consume: OpId) -> Option<()> {
        let l = ForLoop::of(self.m, loop_op)?;
        for (k, &arg) in l.carried.iter().enumerate() {
            if !self.is_tile(arg) {
                continue;
            }
            let h = self.extract_half(l.inits[k], loop_op)?;
            self.m.ops[loop_op].operands[3 + k] = h;
            self.make_half(arg)?;
            let r = self.m.ops[loop_op].results[k];
            self.make_half(r)?;
        }
        for op in self.m.blocks[l.body].ops.clone() {
            if op == consume {
                self.consume(op)?;
            } else if self.m.ops[op].kind.ct() == Some(CtOp::Continue) {
                for k in 0..l.carried.len() {
                    if self.split.contains(&l.carried[k]) {
                        let full = self.full_shape(l.carried[k])?;
                        self.operand_half(op, k, &full)?;
                    } else if self.split.contains(&self.m.ops[op].operands[k]) {
                        return None;
                    }
                }
            } else {
                self.op(op)?;
            }
        }
        let ops = self.m.blocks[block].ops.clone();
        let pos = ops.iter().position(|&o| o == loop_op)?;
        for &op in &ops[..pos] {
            // Nothing before the loop but the extracts of its initial values.
            if self.m.ops[op].kind.ct() != Some(CtOp::Extract) && self.m.ops[op].kind.ct() != Some(CtOp::Constant) {
                return None;
            }
        }
        for &op in &ops[pos + 1..] {
            self.op(op)?;
        }
        Some(())
    }

    /// The `consume_one`: this consumer's index, and the half of the first entry tile.
    fn consume(&mut self, op: OpId) -> Option<()> {
        if let OpKind::TileAs(TileAsOp::ConsumeOne { consumer_idx, .. }) = &mut self.m.ops[op].kind {
            *consumer_idx = self.c;
        }
        if self.touches_split(op) || walk_op(self.m, op).iter().any(|&o| o != op && (has_side_effects(self.m, o) || is_load_like(&self.m.ops[o].kind))) {
            return None;
        }
        let Some(&r0) = self.m.ops[op].results.first() else { return Some(()) };
        if !self.is_tile(r0) {
            return Some(());
        }
        // The extract goes after the consume_one: before the op that follows it.
        let body = self.m.ops[op].parent?;
        let pos = self.m.blocks[body].ops.iter().position(|&o| o == op)?;
        let next = *self.m.blocks[body].ops.get(pos + 1)?;
        let e = self.extract_half(r0, next)?;
        self.m.replace_all_uses(r0, e);
        let ext = self.m.defining_op(e)?;
        self.m.ops[ext].operands[0] = r0;
        Some(())
    }

    /// Any other op of the consumer code.
    fn op(&mut self, op: OpId) -> Option<()> {
        if !self.touches_split(op) {
            // Untouched ops run in both agents: only pure, load-free ones may.
            let ok = !has_side_effects(self.m, op) && !walk_op(self.m, op).iter().any(|&o| is_load_like(&self.m.ops[o].kind));
            return ok.then_some(());
        }
        if !self.m.ops[op].regions.is_empty() && self.m.ops[op].kind.ct() != Some(CtOp::Reduce) {
            return None;
        }
        if captured_values(self.m, op).iter().any(|v| self.split.contains(v)) {
            return None;
        }
        match self.m.ops[op].kind.clone() {
            OpKind::TileAs(TileAsOp::TiledStore { access, .. }) => {
                let ops = self.m.ops[op].operands.clone();
                if access.origin_step.is_some() || access.num_indices < 1 || ops.len() < 3 {
                    return None;
                }
                if !self.split.contains(&ops[1]) || ops.iter().enumerate().any(|(i, v)| i != 1 && self.split.contains(v)) {
                    return None;
                }
                let r = ops[2];
                let rty = self.m.value_type(r);
                let c = self.c;
                let mut b = Builder::before(self.m, op);
                let two = b.int_const(rty, 2);
                let cc = b.int_const(rty, i64::from(c));
                let r2 = b.muli(r, two);
                let row = b.addi(r2, cc);
                self.m.ops[op].operands[2] = row;
                Some(())
            }
            OpKind::CudaTile(ct) => self.cuda_tile(op, &ct),
            OpKind::TileAa(TileAaOp::AddF(_) | TileAaOp::SubF(_) | TileAaOp::MulF(_)) => self.elementwise(op),
            _ => None,
        }
    }

    fn cuda_tile(&mut self, op: OpId, ct: &CudaTileOp) -> Option<()> {
        let operands = self.m.ops[op].operands.clone();
        let results = self.m.ops[op].results.clone();
        match ct.op {
            CtOp::MmaF | CtOp::MmaI => {
                if operands.len() != 3 || results.len() != 1 || self.split.contains(&operands[1]) {
                    return None;
                }
                let lhs = self.full_shape(operands[0])?;
                let acc = self.full_shape(operands[2])?;
                if lhs.len() != 2 || acc.len() != 2 {
                    return None;
                }
                self.operand_half(op, 0, &lhs)?;
                self.operand_half(op, 2, &acc)?;
                self.make_half(results[0])
            }
            CtOp::Reduce => {
                if ct.int("dim").is_none_or(|d| d == 0) {
                    return None;
                }
                for (i, &v) in operands.iter().enumerate() {
                    let full = self.full_shape(v)?;
                    self.operand_half(op, i, &full)?;
                }
                for r in results {
                    if shape_of(self.m, self.m.value_type(r))?.is_empty() {
                        return None;
                    }
                    self.make_half(r)?;
                }
                Some(())
            }
            CtOp::Broadcast => {
                if operands.len() != 1 || results.len() != 1 {
                    return None;
                }
                let src = self.full_shape(operands[0])?;
                let dst = shape_of(self.m, self.m.value_type(results[0]))?;
                if src.len() != dst.len() || src.first() != dst.first() {
                    return None;
                }
                self.make_half(results[0])
            }
            _ if ct.schema().has(traits::ELEMENTWISE) && self.m.ops[op].regions.is_empty() => self.elementwise(op),
            _ => None,
        }
    }

    /// An element-wise op (or conversion): every tile operand split or a full tile of the
    /// result's full shape; the results split.
    fn elementwise(&mut self, op: OpId) -> Option<()> {
        let operands = self.m.ops[op].operands.clone();
        let results = self.m.ops[op].results.clone();
        let full = shape_of(self.m, self.m.value_type(*results.first()?))?;
        if full.is_empty() {
            return None;
        }
        for (i, &v) in operands.iter().enumerate() {
            if self.is_tile(v) {
                self.operand_half(op, i, &full)?;
            }
        }
        for r in results {
            if self.full_shape(r)? != full {
                return None;
            }
            self.make_half(r)?;
        }
        Some(())
    }
}
