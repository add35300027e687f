//! `tileas-unspecialized-pipeline{num-stages=2}` (spec/001 "Unspecialized Pipeline",
//! D11): software-pipelines single-agent loops whose producer and consumer regions async
//! materialization tagged (`pipeline_stage` 0 and 1).
//!
//! For `num-stages = S` the loop
//! ```text
//! for i in lb..ub step s { produce(i); consume(i); rest(i) }
//! ```
//! becomes three peel pieces:
//! - **prologue**: `produce(lb + k·s)` for `k = 0 … S−2`, each guarded by `lb + k·s < ub`
//!   (trip counts below `S − 1` produce only what exists);
//! - **kernel**: the loop over the first `N − (S − 1)` iterations (`N` the trip count),
//!   producing iteration `i + (S−1)·s` while consuming iteration `i`; it carries the next
//!   induction value so the epilogue knows where to resume;
//! - **epilogue**: the remaining `min(N, S − 1)` iterations, consuming only (the drain).
//!
//! The pipeline is re-typed to `S` stages (the producer runs `S − 1` iterations ahead, so
//! that many entries are in flight plus the one being consumed) and the consumer's tag
//! becomes `S − 1`. A loop whose producer is not issuable ahead (its region reads a value
//! the loop computes, or its iterator is not the plain loop-carried sequence) is left
//! bit-for-bit unchanged with the remark "Failed to pipeline loop". Functions with
//! `agent_switch` are never touched: warp-specialized materialization owns their
//! pipelining. `num-stages <= 1` leaves everything as is.
//!
//! A loop that `tileas-materialize-schedule` stamped (its `tileas.schedule` record) is
//! pipelined at the record's `num_stages` instead of the `num-stages` option, with the
//! producer running as many iterations ahead as the consumer's stamped `pipeline_stage`
//! (the schedule's lead, at most `num_stages - 1`); a stamp of one stage (a serial
//! schedule) leaves the loop as it is.

use std::collections::HashMap;
use tileir_ir::dialect::tileas::StageTag;
use tileir_ir::{CtOp, Diagnostic, Diagnostics, Module, OpId, OpKind, TileAaOp, TileAsOp, ValueId};
use tileir_pass::{pass_options, Pass};

use crate::pipeline_util::{captured_values, retype_pipeline_stages, Builder, ForLoop};

/// Registered name.
pub const NAME: &str = "tileas-unspecialized-pipeline";

/// spec/001's remark, verbatim.
pub const FAILED_TO_PIPELINE: &str = "Failed to pipeline loop";

pass_options! {
    /// Options of `tileas-unspecialized-pipeline`.
    pub struct UnspecializedPipelineOptions {
        /// Pipeline stages (buffers in flight + 1); 1 or 0 leaves loops unpipelined.
        num_stages("num-stages"): u32 = 2,
        /// tileir: drain with an epilogue loop (spec/001's peel pieces, the default) or, when
        /// false, run the kernel over every iteration with the producer guarded by "the
        /// iteration S−1 ahead exists" — the same schedule without a second copy of the
        /// loop body (half the code for LLVM to compile; the default compile uses it).
        peel_epilogue("peel-epilogue"): bool = true,
        /// tileir: the most bytes per thread the entries in flight (S−1 stages of the
        /// pipeline's entry, spread over the function's threads) may take; a loop over it is
        /// left unpipelined with the remark. 0 = no limit. The general backend keeps
        /// in-flight entries in registers, so the default compile bounds them (64 bytes:
        /// 16 registers) to keep large tiles from spilling.
        max_inflight_bytes("max-inflight-bytes"): u32 = 0,
    }
}

/// The pass.
pub struct UnspecializedPipeline {
    /// Its options.
    pub options: UnspecializedPipelineOptions,
}

impl Pass for UnspecializedPipeline {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        self.run_with_remarks(module, &mut Vec::new())
    }
    fn run_with_remarks(&self, module: &mut Module, remarks: &mut Vec<Diagnostic>) -> Result<(), Diagnostics> {
        let s = self.options.num_stages;
        if s > 64 {
            return Err(Diagnostics::one(Diagnostic::error(
                tileir_ir::Location::Unknown,
                format!("{NAME}: num-stages must be at most 64, got {s}"),
            )));
        }
        remarks.extend(run(module, s, self.options.peel_epilogue, self.options.max_inflight_bytes));
        Ok(())
    }
}

/// Pipelines every eligible loop of `m` at `num_stages`; returns the remarks of loops left
/// unchanged.
pub fn run(m: &mut Module, num_stages: u32, peel_epilogue: bool, max_inflight_bytes: u32) -> Vec<Diagnostic> {
    let mut remarks = Vec::new();
    let funcs: Vec<OpId> = m.blocks[m.body].ops.iter().copied().filter(|&f| matches!(m.ops[f].kind, OpKind::TileAa(TileAaOp::Func { .. }))).collect();
    for f in funcs {
        if crate::pipeline_util::walk_op(m, f).iter().any(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::AgentSwitch { .. }))) {
            continue;
        }
        let threads = 32 * match m.ops[f].kind {
            OpKind::TileAa(TileAaOp::Func { num_warps, .. }) => num_warps.unwrap_or(4),
            _ => 4,
        };
        let loops: Vec<OpId> = crate::pipeline_util::walk_op(m, f).into_iter().filter(|&o| m.ops[o].kind.ct() == Some(CtOp::For)).collect();
        for l in loops {
            // A stamped schedule wins over the option.
            let stamped = crate::materialize_schedule::stamped_stages(m, l);
            let stages = stamped.unwrap_or(num_stages);
            if stages <= 1 {
                continue;
            }
            let Some(candidate) = Candidate::find(m, l) else { continue };
            if !candidate.legal(m) {
                remarks.push(Diagnostic::remark(m.op_location(l), FAILED_TO_PIPELINE));
                continue;
            }
            let inflight = inflight_bytes_per_thread(m, candidate.produce, stages - 1, threads);
            if max_inflight_bytes != 0 && inflight > u64::from(max_inflight_bytes) {
                remarks.push(Diagnostic::remark(m.op_location(l), FAILED_TO_PIPELINE).with_note(
                    m.op_location(l),
                    format!(
                        "{inflight} bytes per thread would be in flight ({} stage(s) ahead over {threads} threads); the limit is {max_inflight_bytes}",
                        stages - 1
                    ),
                ));
                continue;
            }
            let lead = match stamped {
                Some(_) => stage_of(m, candidate.consume).unwrap_or(stages - 1).clamp(1, stages - 1),
                None => stages - 1,
            };
            if peel_epilogue {
                candidate.expand(m, stages, lead);
            } else {
                candidate.expand_predicated(m, stages, lead);
            }
        }
    }
    remarks
}

/// Bytes per thread `ahead` in-flight entries of `produce`'s pipeline take when spread over
/// `threads` threads (each tile element stored once; scalars per thread).
fn inflight_bytes_per_thread(m: &Module, produce: OpId, ahead: u32, threads: u32) -> u64 {
    let pipe = m.ops[produce].operands[0];
    let tileir_ir::Type::Pipeline { elems, .. } = m.types.get(m.value_type(pipe)) else { return 0 };
    let entry: u64 = elems
        .iter()
        .map(|&t| match m.types.get(t) {
            tileir_ir::Type::Tile { shape, elem: tileir_ir::TileElem::Num(n), .. } => {
                let count: i64 = shape.iter().product();
                (count.max(0) as u64 * u64::from(n.bit_width())).div_ceil(8).div_ceil(u64::from(threads.max(1)))
            }
            tileir_ir::Type::Scalar(n) => u64::from(n.bit_width()).div_ceil(8),
            _ => 8,
        })
        .sum();
    entry * u64::from(ahead)
}

/// A loop with one producer (stage 0) and one consumer (stage 1) of the same pipeline.
struct Candidate {
    l: ForLoop,
    produce: OpId,
    consume: OpId,
    /// Index (in the carried values) of the producer's and the consumer's iterator.
    itp: usize,
    itc: usize,
}

fn stage_of(m: &Module, op: OpId) -> Option<u32> {
    match &m.ops[op].kind {
        OpKind::TileAs(TileAsOp::ProduceOne(t) | TileAsOp::ProduceOneAsync(t)) => t.pipeline_stage,
        OpKind::TileAs(TileAsOp::ConsumeOne { tag, .. }) => tag.pipeline_stage,
        _ => None,
    }
}

impl Candidate {
    fn find(m: &Module, op: OpId) -> Option<Candidate> {
        let l = ForLoop::of(m, op)?;
        let ops = &m.blocks[l.body].ops;
        let produce = *ops.iter().find(|&&o| {
            matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_))) && stage_of(m, o) == Some(0)
        })?;
        let pipe = m.ops[produce].operands[0];
        let consume = *ops.iter().find(|&&o| {
            matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::ConsumeOne { .. }))
                && m.ops[o].operands[0] == pipe
                && stage_of(m, o).is_some_and(|s| s >= 1)
        })?;
        let carried_index = |v: ValueId| l.carried.iter().position(|&c| c == v);
        let itp = carried_index(m.ops[produce].operands[1])?;
        let itc = carried_index(m.ops[consume].operands[1])?;
        Some(Candidate { l, produce, consume, itp, itc })
    }

    /// The producer may run ahead: it reads only the induction variable, its iterator and
    /// values from outside the loop; each iterator advances by exactly one `inc_iter` per
    /// iteration; and nothing else produces into the pipeline.
    fn legal(&self, m: &Module) -> bool {
        let l = &self.l;
        let Some(term) = l.terminator(m) else { return false };
        let pipe = m.ops[self.produce].operands[0];
        let outside = |v: ValueId| !crate::pipeline_util::defined_inside(m, v, l.op);
        if !captured_values(m, self.produce).into_iter().all(|v| v == l.iv || outside(v)) || !outside(pipe) {
            return false;
        }
        let advances = |k: usize, user: OpId| {
            let arg = l.carried[k];
            let next = m.ops[term].operands.get(k).copied();
            let inc = next.and_then(|n| m.defining_op(n));
            inc.is_some_and(|i| {
                matches!(m.ops[i].kind, OpKind::TileAs(TileAsOp::IncIter)) && m.ops[i].operands == [arg] && m.ops[i].parent == Some(l.body)
            }) && crate::pipeline_util::walk_op(m, l.op).iter().filter(|&&o| o != user && o != inc.unwrap_or(user)).all(|&o| !m.ops[o].operands.contains(&arg))
        };
        let single_producer =
            m.walk().iter().filter(|&&o| o != self.produce && m.ops[o].operands.first() == Some(&pipe)).all(|&o| {
                !matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_) | TileAsOp::ProducerAcquire))
            });
        advances(self.itp, self.produce) && advances(self.itc, self.consume) && single_producer
    }

    /// Pipelines with a `num_stages`-deep pipeline and the producer `lead` iterations
    /// ahead (`1 <= lead <= num_stages - 1`).
    /// The prologue of [`Candidate::expand`], then the loop itself over every iteration
    /// with its producer working `lead` iterations ahead under a monotone guard (no
    /// epilogue: the guard's false arm is the drain).
    fn expand_predicated(self, m: &mut Module, num_stages: u32, lead: u32) {
        let l = self.l.clone();
        let pipe = m.ops[self.produce].operands[0];
        retype_pipeline_stages(m, pipe, num_stages);
        if let OpKind::TileAs(TileAsOp::ConsumeOne { tag, .. }) = &mut m.ops[self.consume].kind {
            *tag = StageTag { pipeline_stage: Some(lead) };
        }
        let itp = self.prologue(m, i64::from(lead));
        m.ops[l.op].operands[3 + self.itp] = itp;
        let Some(term) = l.terminator(m) else { return };
        let Some(inc) = m.defining_op(m.ops[term].operands[self.itp]) else { return };
        let produce = self.produce;
        let itp_arg = l.carried[self.itp];
        let it_ty = m.value_type(itp_arg);
        let (guard_if, then_b, else_b, ahead) = {
            let mut b = Builder::before(m, produce);
            let step_ty = b.m.value_type(l.step);
            let lc = b.int_const(step_ty, i64::from(lead));
            let lead_off = b.muli(lc, l.step);
            let ahead = b.addi(l.iv, lead_off);
            let cond = b.less(ahead, l.ub, false, l.unsigned);
            let (g, t, e) = b.if_op(cond, &[it_ty]);
            (g, t, e, ahead)
        };
        mark_monotone(m, guard_if);
        remap_inside(m, produce, l.iv, ahead);
        m.detach_op(produce);
        m.append_op(then_b, produce);
        m.detach_op(inc);
        m.append_op(then_b, inc);
        let loc = m.ops[guard_if].loc;
        let next = m.ops[inc].results[0];
        Builder::at_end(m, then_b, loc).terminator(CtOp::Yield, vec![next]);
        Builder::at_end(m, else_b, loc).terminator(CtOp::Yield, vec![itp_arg]);
        m.ops[term].operands[self.itp] = m.ops[guard_if].results[0];
    }

    /// `lead` guarded producer iterations before the loop; returns the producer iterator
    /// after them.
    fn prologue(&self, m: &mut Module, lead: i64) -> ValueId {
        let l = &self.l;
        let mut itp = l.inits[self.itp];
        let mut b = Builder::before(m, l.op);
        let step_ty = b.m.value_type(l.step);
        for k in 0..lead {
            let kc = b.int_const(step_ty, k);
            let off = b.muli(kc, l.step);
            let iv_k = b.addi(l.lb, off);
            let cond = b.less(iv_k, l.ub, false, l.unsigned);
            let it_ty = b.m.value_type(itp);
            let (guard_if, then_b, else_b) = b.if_op(cond, &[it_ty]);
            mark_monotone(b.m, guard_if);
            let mut inner: HashMap<ValueId, ValueId> = HashMap::from([(l.iv, iv_k), (l.carried[self.itp], itp)]);
            let p = b.m.clone_op(self.produce, &mut inner);
            b.m.append_op(then_b, p);
            let loc = b.loc;
            let mut tb = Builder::at_end(b.m, then_b, loc);
            let next = tb.inc_iter(itp);
            tb.terminator(CtOp::Yield, vec![next]);
            let mut eb = Builder::at_end(b.m, else_b, loc);
            eb.terminator(CtOp::Yield, vec![itp]);
            itp = b.m.ops[guard_if].results[0];
        }
        itp
    }

    fn expand(self, m: &mut Module, num_stages: u32, lead: u32) {
        let l = self.l.clone();
        let pipe = m.ops[self.produce].operands[0];
        retype_pipeline_stages(m, pipe, num_stages);
        if let OpKind::TileAs(TileAsOp::ConsumeOne { tag, .. }) = &mut m.ops[self.consume].kind {
            *tag = StageTag { pipeline_stage: Some(lead) };
        }
        let lead = i64::from(lead);
        // The epilogue is a copy of the loop (taken before the kernel is edited) without
        // the producer; its iterator passes through.
        let mut map: HashMap<ValueId, ValueId> = HashMap::new();
        let epilogue = m.clone_op(l.op, &mut map);
        m.insert_op_after(l.op, epilogue);
        let ep = ForLoop::of(m, epilogue).expect("a clone of a for");
        // Prologue: S−1 guarded producer iterations.
        let itp = self.prologue(m, lead);
        m.ops[l.op].operands[3 + self.itp] = itp;
        // Kernel: bound `ub − (S−1)·s` when `lb + (S−1)·s <= ub`, else no trip; the
        // producer works on `i + (S−1)·s`; the next IV is carried for the epilogue.
        let (kernel_ub, lead_off) = {
            let mut b = Builder::before(m, l.op);
            let step_ty = b.m.value_type(l.step);
            let lc = b.int_const(step_ty, lead);
            let lead_off = b.muli(lc, l.step);
            let first_after_lead = b.addi(l.lb, lead_off);
            let has_kernel = b.less(first_after_lead, l.ub, true, l.unsigned);
            let shortened = b.subi(l.ub, lead_off);
            (b.select(has_kernel, shortened, l.lb), lead_off)
        };
        m.ops[l.op].operands[1] = kernel_ub;
        let kernel = crate::pipeline_util::rebuild_with_extra(m, l.op, &[l.lb], &[m.value_type(l.iv)]);
        let k = ForLoop::of(m, kernel).expect("rebuilt for");
        let iv_ty = m.value_type(k.iv);
        // The carried "next IV" block argument itself is unused: the body recomputes it.
        crate::pipeline_util::append_block_arg(m, k.body, iv_ty);
        let term = k.terminator(m).expect("checked legal");
        let produce = self.produce;
        let ahead = {
            let mut b = Builder::before(m, produce);
            b.addi(k.iv, lead_off)
        };
        remap_inside(m, produce, k.iv, ahead);
        let next_iv = {
            let mut b = Builder::before(m, term);
            b.addi(k.iv, l.step)
        };
        m.ops[term].operands.push(next_iv);
        // Epilogue: resumes at the kernel's next IV with the kernel's carried values.
        let kn = m.ops[kernel].results.len();
        let resume = m.ops[kernel].results[kn - 1];
        m.ops[epilogue].operands[0] = resume;
        for i in 0..l.inits.len() {
            m.ops[epilogue].operands[3 + i] = m.ops[kernel].results[i];
        }
        // Drop the epilogue's producer and make its producer iterator pass through.
        let ep_body = ep.body;
        let ep_term = ep.terminator(m).expect("clone of a legal loop");
        let ep_prod = m.blocks[ep_body].ops.iter().copied().find(|&o| {
            matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_)))
        });
        if let Some(p) = ep_prod {
            let inc = m.ops[ep_term].operands[self.itp];
            m.ops[ep_term].operands[self.itp] = ep.carried[self.itp];
            m.detach_op(p);
            if let Some(i) = m.defining_op(inc) {
                m.detach_op(i);
            }
        }
        // Users of the original loop's results now read the epilogue's.
        for i in 0..l.inits.len() {
            let r = m.ops[kernel].results[i];
            let e = m.ops[epilogue].results[i];
            let users: Vec<OpId> = m.walk().into_iter().filter(|&o| o != epilogue && m.ops[o].operands.contains(&r)).collect();
            for u in users {
                for operand in &mut m.ops[u].operands {
                    if *operand == r {
                        *operand = e;
                    }
                }
            }
        }
    }
}

/// Replaces uses of `old` by `new` inside `op`'s regions.
fn remap_inside(m: &mut Module, op: OpId, old: ValueId, new: ValueId) {
    for o in crate::pipeline_util::walk_op(m, op) {
        if o == op {
            continue;
        }
        for operand in &mut m.ops[o].operands {
            if *operand == old {
                *operand = new;
            }
        }
    }
}

/// Marks a guard whose condition, once false, stays false for the rest of the loop nest
/// (see `pipelines_to_registers`: its false arm may be padded with placeholder entries).
fn mark_monotone(m: &mut Module, guard_if: OpId) {
    if let OpKind::CudaTile(ct) = &mut m.ops[guard_if].kind {
        ct.discardable.push((crate::pipelines_to_registers::PROLOGUE_GUARD.into(), tileir_ir::Attr::Unit));
    }
}
