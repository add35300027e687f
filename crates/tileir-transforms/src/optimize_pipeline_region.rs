//! `tileas-optimize-pipeline-region` (spec/001 "Optimize Pipeline Region", D13): shrinks
//! every `produce_one` / `produce_one_async` / `consume_one` region to the backward slice
//! of the ops feeding its `nv_tileas.async.pipeline.yield`.
//!
//! **Slice.** From the yielded values the walk chases operands (those of nested ops too)
//! and stops at exactly spec/001's three structural boundaries, checked in the spec's
//! order: the value is a block argument (external boundary); its defining op sits in
//! another region than the candidate's (region-parent boundary: loop live-ins, values of
//! the enclosing block, values of ops nested deeper); the defining op is a sibling
//! produce-one-like op (`produce_one` / `produce_one_async`: cross-pipeline boundary,
//! ownership crosses through tokens, not SSA edges). Membership is deduplicated by op id.
//!
//! **Shrinking.** Every other op of the region moves out, in source order, to just before
//! the region op, when that is legal: the op stays when it *pins* (it has side effects in
//! `has_side_effects`'s sense, reads memory, or is — or nests — a pipeline protocol or
//! async op other than iterator/token bookkeeping: moving those out of the stage would
//! reorder them against the region's own acquire/wait and release/commit), and when it
//! uses (directly or from a nested region) a block argument of the region or a result of
//! an op that stays. Spec/001 rebuilds a fresh op around the slice and drops the rest;
//! here the region op keeps its identity (ids stay valid for the back-to-front walk) and
//! what is not needed is hoisted, not deleted, so a later canonicalization drops what is
//! dead while values other code still reads stay available. A region already minimal is
//! left bit-for-bit unchanged; the pass never fails and emits no diagnostics.
//!
//! **Order.** Candidates are collected in source (pre-)order and shrunk back to front, so
//! an inner region is shrunk before the region enclosing it (what it hoists can then leave
//! the outer region too) and a later sibling before an earlier one.
//!
//! **The D11 gate.** Spec/001 skips the loops `tileas-unspecialized-pipeline` (D11) refused
//! to pipeline, read from D11's pass-result bit. Passes share no state here, so the gate is
//! read off the IR: `tileas-materialize-async` creates each pipeline with one stage and
//! tags its regions `pipeline_stage` 0 / 1, and D11 re-types every pipeline it expands to
//! `num-stages >= 2` stages (the consumer tag alone does not tell: at `num-stages = 2` it
//! stays 1). So a tagged region over a still one-stage pipeline, in a function without
//! `agent_switch` (D11 never touches those), is a loop D11 left synchronous — refused with
//! "Failed to pipeline loop", run at `num-stages <= 1`, or not run — and is skipped.
//! Untagged regions and warp-specialized functions are always shrunk.

use std::collections::HashSet;
use tileir_ir::{CtOp, Diagnostics, Module, OpId, OpKind, TileAaOp, TileAsOp, Type, ValueDef, ValueId};
use tileir_pass::{pass_options, Pass};

use crate::pipeline_util::{captured_values, defined_inside, has_side_effects, walk_op};

/// Registered name.
pub const NAME: &str = "tileas-optimize-pipeline-region";

/// spec/001's pass description, verbatim.
pub const DESCRIPTION: &str = "Optimize the region scope of tileas.async.pipeline.produce_one/consume_one ops";

pass_options! {
    /// `tileas-optimize-pipeline-region` has no options.
    pub struct OptimizePipelineRegionOptions {}
}

/// The pass.
pub struct OptimizePipelineRegion {
    /// Its options.
    pub options: OptimizePipelineRegionOptions,
}

impl Pass for OptimizePipelineRegion {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        run(module);
        Ok(())
    }
}

fn is_produce_like(m: &Module, op: OpId) -> bool {
    matches!(m.ops[op].kind, OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_)))
}

fn is_candidate(m: &Module, op: OpId) -> bool {
    is_produce_like(m, op) || matches!(m.ops[op].kind, OpKind::TileAs(TileAsOp::ConsumeOne { .. }))
}

/// Shrinks every candidate region of `m`; returns how many ops left a region.
pub fn run(m: &mut Module) -> usize {
    let mut moved = 0;
    for f in m.blocks[m.body].ops.clone() {
        let agents = walk_op(m, f).iter().any(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::AgentSwitch { .. })));
        let mut candidates = Vec::new();
        preorder(m, f, &mut |o| {
            if is_candidate(m, o) {
                candidates.push(o);
            }
        });
        for &op in candidates.iter().rev() {
            if !agents && left_synchronous_by_d11(m, op) {
                continue;
            }
            moved += shrink(m, op);
        }
    }
    moved
}

fn preorder(m: &Module, op: OpId, f: &mut impl FnMut(OpId)) {
    f(op);
    for &r in &m.ops[op].regions {
        for &b in &m.regions[r].blocks {
            for &o in &m.blocks[b].ops {
                preorder(m, o, f);
            }
        }
    }
}

/// The D11 gate (see the module docs): a stage-tagged region over a one-stage pipeline.
fn left_synchronous_by_d11(m: &Module, op: OpId) -> bool {
    let tagged = match &m.ops[op].kind {
        OpKind::TileAs(TileAsOp::ProduceOne(t) | TileAsOp::ProduceOneAsync(t)) => t.pipeline_stage.is_some(),
        OpKind::TileAs(TileAsOp::ConsumeOne { tag, .. }) => tag.pipeline_stage.is_some(),
        _ => false,
    };
    let Some(&pipe) = m.ops[op].operands.first() else { return false };
    tagged && matches!(m.types.get(m.value_type(pipe)), Type::Pipeline { stages, .. } if *stages <= 1)
}

/// Whether `op` must stay where it is: effects, memory reads, pipeline/async protocol ops
/// (iterator and token bookkeeping excepted), at any depth.
fn pins(m: &Module, op: OpId) -> bool {
    has_side_effects(m, op)
        || walk_op(m, op).into_iter().any(|o| match &m.ops[o].kind {
            OpKind::TileAs(k) => !matches!(
                k,
                TileAsOp::CreateIterator
                    | TileAsOp::IncIter
                    | TileAsOp::CreateNone
                    | TileAsOp::ToAsync
                    | TileAsOp::MakeTiledTmaDesc { .. }
            ),
            OpKind::TileAa(k) => matches!(
                k,
                TileAaOp::TiledLoad(_)
                    | TileAaOp::TiledStore(_)
                    | TileAaOp::MarkForReuse
                    | TileAaOp::CreateQueue
                    | TileAaOp::QueuePut
                    | TileAaOp::QueueGet { .. }
                    | TileAaOp::QueueYield
                    | TileAaOp::Execute { .. }
            ),
            OpKind::CudaTile(ct) => matches!(ct.op, CtOp::LoadPtrTko | CtOp::LoadViewTko),
            OpKind::Unregistered(_) => true,
        })
}

/// The values `op` reads: its operands and what its nested regions capture.
fn inputs(m: &Module, op: OpId) -> Vec<ValueId> {
    let mut out = m.ops[op].operands.clone();
    if !m.ops[op].regions.is_empty() {
        out.extend(captured_values(m, op));
    }
    out
}

/// The backward slice of the yielded values of `op`'s region (spec/001's shrinker walk).
fn slice(m: &Module, op: OpId) -> HashSet<OpId> {
    let region = m.ops[op].regions[0];
    let mut work: Vec<ValueId> = Vec::new();
    for &b in &m.regions[region].blocks {
        if let Some(&t) = m.blocks[b].ops.last() {
            if matches!(m.ops[t].kind, OpKind::TileAs(TileAsOp::PipelineYield)) {
                work.extend(m.ops[t].operands.iter().copied());
            }
        }
    }
    let mut members = HashSet::new();
    while let Some(v) = work.pop() {
        // 1. Block argument: the external boundary.
        let Some(def) = m.defining_op(v) else { continue };
        // 2. Defined outside the region: the region-parent boundary.
        if m.ops[def].parent.and_then(|b| m.blocks[b].parent) != Some(region) {
            continue;
        }
        // 3. A sibling produce_one: the cross-pipeline boundary.
        if is_produce_like(m, def) {
            continue;
        }
        if members.insert(def) {
            work.extend(inputs(m, def));
        }
    }
    members
}

/// Moves the ops of `op`'s region that do not feed its yield out before `op`; returns how
/// many moved.
fn shrink(m: &mut Module, op: OpId) -> usize {
    let keep = slice(m, op);
    let region = m.ops[op].regions[0];
    let mut hoisted: Vec<OpId> = Vec::new();
    let mut hoisted_set: HashSet<OpId> = HashSet::new();
    for &b in &m.regions[region].blocks {
        for &o in &m.blocks[b].ops {
            if keep.contains(&o) || m.ops[o].kind.is_terminator() || pins(m, o) {
                continue;
            }
            let free = inputs(m, o).into_iter().all(|v| {
                !defined_inside(m, v, op)
                    || matches!(m.values[v].def, ValueDef::OpResult { op: d, .. } if hoisted_set.contains(&d))
            });
            if free {
                hoisted.push(o);
                hoisted_set.insert(o);
            }
        }
    }
    for &o in &hoisted {
        m.detach_op(o);
        m.insert_op_before(op, o);
    }
    hoisted.len()
}
