//! `tileas-queue-to-pipeline`: nv_tileaa queues and `execute` → nv_tileas async pipelines
//! and `agent_switch` (spec/000 "Queue-to-Pipeline Lowering", spec/001 "Queue to Pipeline
//! Rewrite").
//!
//! - `create_queue : queue<D, [T…]>` → `create_pipeline : pipeline<stages=D,
//!   consumers=C, [T…]>`, where `C` is one more than the largest `consumer_idx` of the
//!   queue's gets.
//! - `execute` → `agent_switch` with the same agents; its `queue.yield`s become
//!   `async.pipeline.yield`.
//! - `queue.put %q { … queue.yield %e }` → `produce_one %p, %it { ^(old entry): …
//!   async.pipeline.yield %e }` followed by `%it' = inc_iter %it`.
//! - `queue.get %q { ^(e): … queue.yield %r }` → `consume_one %p, %it { ^(e): … }` and
//!   `inc_iter`.
//!
//! A queue's position is implicit; a pipeline's is an SSA iterator. Each producer and each
//! consumer (per agent) gets its own iterator, created where its agent starts (or right
//! after the pipeline when both sit in the same block) and threaded through structured
//! control flow: a `for` carries it as an extra iter value and result, an `if` yields it
//! from both arms as an extra result (both arms yield the same iterator type — the
//! branch-agreement invariant). Queue ops inside `loop` are refused with a located error
//! (a `break` would need the iterator too; tileir's front end emits `for`).
//! `mark_for_reuse` passes through unchanged.

use std::collections::BTreeMap;
use tileir_ir::{
    BlockId, CtOp, Diagnostic, Diagnostics, LocId, Module, OpId, OpKind, TileAaOp, TileAsOp, Type, TypeId, ValueDef,
    ValueId,
};
use tileir_pass::{pass_options, Pass};

use crate::pipeline_util::{append_block_arg, rebuild_with_extra};

/// Registered name.
pub const NAME: &str = "tileas-queue-to-pipeline";

pass_options! {
    /// `tileas-queue-to-pipeline` has no options.
    pub struct QueueToPipelineOptions {}
}

/// The pass.
pub struct QueueToPipeline {
    /// Its options.
    pub options: QueueToPipelineOptions,
}

impl Pass for QueueToPipeline {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        rewrite_module(module).map_err(Diagnostics::one)
    }
}

/// One iterator stream: a producer, or consumer `consumer_idx`, of one pipeline, within
/// one agent (the agent region's entry block, or the function body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Stream {
    pipeline: ValueId,
    /// `None` for the producer.
    consumer: Option<u32>,
    scope: BlockId,
}

/// Rewrites every function of `m`. A module without queues is left untouched.
pub fn rewrite_module(m: &mut Module) -> Result<(), Diagnostic> {
    let has_queue_ops = m.walk().iter().any(|&op| {
        matches!(
            m.ops[op].kind,
            OpKind::TileAa(TileAaOp::CreateQueue | TileAaOp::QueuePut | TileAaOp::QueueGet { .. } | TileAaOp::Execute { .. })
        )
    });
    if !has_queue_ops {
        return Ok(());
    }
    // 1. Queues become pipelines (the value keeps its uses; only its type changes).
    let queues: Vec<OpId> = m.walk().into_iter().filter(|&op| matches!(m.ops[op].kind, OpKind::TileAa(TileAaOp::CreateQueue))).collect();
    for q in queues {
        let qv = m.ops[q].results[0];
        let Type::Queue { depth, elems } = m.types.get(m.value_type(qv)).clone() else {
            return Err(Diagnostic::error(m.op_location(q), "nv_tileaa.create_queue must produce an !nv_tileaa.queue"));
        };
        let consumers = 1 + m
            .walk()
            .into_iter()
            .filter_map(|op| match m.ops[op].kind {
                OpKind::TileAa(TileAaOp::QueueGet { consumer_idx }) if m.ops[op].operands.first() == Some(&qv) => Some(consumer_idx),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let ty = m.types.intern(Type::Pipeline { stages: depth, consumers, elems });
        let loc = m.ops[q].loc;
        let create = m.create_op(OpKind::TileAs(TileAsOp::CreatePipeline), vec![], &[ty], loc);
        m.insert_op_before(q, create);
        let pv = m.ops[create].results[0];
        m.values[pv].name = m.values[qv].name.clone();
        m.replace_all_uses(qv, pv);
        m.detach_op(q);
    }
    // 2. execute → agent_switch (regions move over unchanged).
    let executes: Vec<OpId> = m.walk().into_iter().filter(|&op| matches!(m.ops[op].kind, OpKind::TileAa(TileAaOp::Execute { .. }))).collect();
    for e in executes {
        let OpKind::TileAa(TileAaOp::Execute { agents }) = m.ops[e].kind.clone() else { continue };
        let loc = m.ops[e].loc;
        let sw = m.create_op(OpKind::TileAs(TileAsOp::AgentSwitch { agents }), vec![], &[], loc);
        for (from, to) in m.ops[e].regions.clone().into_iter().zip(m.ops[sw].regions.clone()) {
            m.move_region_blocks(from, to);
        }
        m.insert_op_before(e, sw);
        m.detach_op(e);
    }
    // 3. Thread iterators through every function body.
    let funcs: Vec<OpId> = m.blocks[m.body].ops.iter().copied().filter(|&op| matches!(m.ops[op].kind, OpKind::TileAa(TileAaOp::Func { .. }))).collect();
    for f in funcs {
        if let Some(body) = m.entry_block(f, 0) {
            let mut current = BTreeMap::new();
            thread_block(m, body, body, &mut current)?;
        }
    }
    // 4. Remaining queue.yields (agent regions) become pipeline yields.
    for op in m.walk() {
        if matches!(m.ops[op].kind, OpKind::TileAa(TileAaOp::QueueYield)) {
            m.ops[op].kind = OpKind::TileAs(TileAsOp::PipelineYield);
        }
    }
    Ok(())
}

/// The stream a queue op belongs to.
fn stream_of(m: &Module, op: OpId, scope: BlockId) -> Option<Stream> {
    match m.ops[op].kind {
        OpKind::TileAa(TileAaOp::QueuePut) => Some(Stream { pipeline: *m.ops[op].operands.first()?, consumer: None, scope }),
        OpKind::TileAa(TileAaOp::QueueGet { consumer_idx }) => {
            Some(Stream { pipeline: *m.ops[op].operands.first()?, consumer: Some(consumer_idx), scope })
        }
        _ => None,
    }
}

/// Streams used (at any depth) inside `op`'s regions, excluding nested agent scopes.
fn streams_inside(m: &Module, op: OpId, scope: BlockId, out: &mut Vec<Stream>) {
    for &r in &m.ops[op].regions {
        for &b in &m.regions[r].blocks {
            for &inner in &m.blocks[b].ops {
                if matches!(m.ops[inner].kind, OpKind::TileAs(TileAsOp::AgentSwitch { .. })) {
                    continue;
                }
                if let Some(s) = stream_of(m, inner, scope) {
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
                streams_inside(m, inner, scope, out);
            }
        }
    }
}

fn iterator_type(m: &mut Module, pipeline: ValueId) -> TypeId {
    let p = m.value_type(pipeline);
    m.types.intern(Type::PipelineIterator { pipeline: p })
}

/// The iterator of `s` at the current point, creating it on first use: right after the
/// pipeline when that is in the scope block, else at the start of the scope block.
fn current_iter(m: &mut Module, s: Stream, current: &mut BTreeMap<Stream, ValueId>, loc: LocId) -> ValueId {
    if let Some(&v) = current.get(&s) {
        return v;
    }
    let ty = iterator_type(m, s.pipeline);
    let create = m.create_op(OpKind::TileAs(TileAsOp::CreateIterator), vec![s.pipeline], &[ty], loc);
    match m.values[s.pipeline].def {
        ValueDef::OpResult { op, .. } if m.ops[op].parent == Some(s.scope) => m.insert_op_after(op, create),
        _ => m.prepend_op(s.scope, create),
    }
    let v = m.ops[create].results[0];
    current.insert(s, v);
    v
}

/// Rewrites the queue ops of `block` in order, carrying each stream's current iterator.
fn thread_block(m: &mut Module, block: BlockId, scope: BlockId, current: &mut BTreeMap<Stream, ValueId>) -> Result<(), Diagnostic> {
    let ops = m.blocks[block].ops.clone();
    for op in ops {
        let kind = m.ops[op].kind.clone();
        let loc = m.ops[op].loc;
        match &kind {
            OpKind::TileAa(TileAaOp::QueuePut | TileAaOp::QueueGet { .. }) => {
                let s = stream_of(m, op, scope).expect("queue op");
                if !matches!(m.types.get(m.value_type(s.pipeline)), Type::Pipeline { .. }) {
                    return Err(Diagnostic::error(
                        m.op_location(op),
                        format!("'{}' must use a queue made by nv_tileaa.create_queue", kind.name()),
                    ));
                }
                let it = current_iter(m, s, current, loc);
                rewrite_queue_op(m, op, it)?;
                let ty = m.value_type(it);
                let inc = m.create_op(OpKind::TileAs(TileAsOp::IncIter), vec![it], &[ty], loc);
                m.insert_op_after(op, inc);
                current.insert(s, m.ops[inc].results[0]);
            }
            OpKind::TileAs(TileAsOp::AgentSwitch { .. }) => {
                for r in m.ops[op].regions.clone() {
                    for b in m.regions[r].blocks.clone() {
                        let mut inner = BTreeMap::new();
                        thread_block(m, b, b, &mut inner)?;
                    }
                }
            }
            OpKind::CudaTile(ct) if matches!(ct.op, CtOp::For | CtOp::If | CtOp::Loop) => {
                let mut used = Vec::new();
                streams_inside(m, op, scope, &mut used);
                if used.is_empty() {
                    continue;
                }
                if ct.op == CtOp::Loop {
                    return Err(Diagnostic::error(
                        m.op_location(op),
                        "queue operations inside 'loop' are not supported by the queue-to-pipeline rewrite (use 'for')",
                    ));
                }
                used.sort();
                let incoming: Vec<ValueId> = used.iter().map(|&s| current_iter(m, s, current, loc)).collect();
                let types: Vec<TypeId> = incoming.iter().map(|&v| m.value_type(v)).collect();
                if ct.op == CtOp::For {
                    let new = rebuild_with_extra(m, op, &incoming, &types);
                    let body = m.entry_block(new, 0).expect("for has a body");
                    let mut inner = current.clone();
                    for (&s, &t) in used.iter().zip(&types) {
                        let arg = append_block_arg(m, body, t);
                        inner.insert(s, arg);
                    }
                    thread_block(m, body, scope, &mut inner)?;
                    append_to_terminator(m, body, CtOp::Continue, &used, &inner);
                    let n = m.ops[new].results.len();
                    for (k, &s) in used.iter().enumerate() {
                        current.insert(s, m.ops[new].results[n - used.len() + k]);
                    }
                } else {
                    let new = rebuild_with_extra(m, op, &[], &types);
                    for r in m.ops[new].regions.clone() {
                        let Some(&b) = m.regions[r].blocks.first() else { continue };
                        let mut inner = current.clone();
                        thread_block(m, b, scope, &mut inner)?;
                        append_to_terminator(m, b, CtOp::Yield, &used, &inner);
                    }
                    let n = m.ops[new].results.len();
                    for (k, &s) in used.iter().enumerate() {
                        current.insert(s, m.ops[new].results[n - used.len() + k]);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Appends each stream's iterator to the block's terminator if it is `which`.
fn append_to_terminator(m: &mut Module, block: BlockId, which: CtOp, used: &[Stream], current: &BTreeMap<Stream, ValueId>) {
    let Some(&t) = m.blocks[block].ops.last() else { return };
    if m.ops[t].kind.ct() == Some(which) {
        for s in used {
            let v = current[s];
            m.ops[t].operands.push(v);
        }
    }
}

/// Turns the put/get `op` into produce_one/consume_one at iterator `it`, in place.
fn rewrite_queue_op(m: &mut Module, op: OpId, it: ValueId) -> Result<(), Diagnostic> {
    let pipe = m.ops[op].operands[0];
    let Type::Pipeline { elems, .. } = m.types.get(m.value_type(pipe)).clone() else {
        return Err(Diagnostic::error(m.op_location(op), "queue operand is not a pipeline"));
    };
    let new_kind = match m.ops[op].kind {
        OpKind::TileAa(TileAaOp::QueuePut) => {
            // The producer region sees the stage's previous entry (it may reuse its buffers).
            if let Some(b) = m.entry_block(op, 0) {
                if m.blocks[b].args.is_empty() {
                    for &t in &elems {
                        append_block_arg(m, b, t);
                    }
                }
            }
            OpKind::TileAs(TileAsOp::ProduceOne(Default::default()))
        }
        OpKind::TileAa(TileAaOp::QueueGet { consumer_idx }) => {
            OpKind::TileAs(TileAsOp::ConsumeOne { consumer_idx, tag: Default::default() })
        }
        _ => return Ok(()),
    };
    m.ops[op].kind = new_kind;
    m.ops[op].operands.push(it);
    if let Some(b) = m.entry_block(op, 0) {
        if let Some(&t) = m.blocks[b].ops.last() {
            if matches!(m.ops[t].kind, OpKind::TileAa(TileAaOp::QueueYield)) {
                m.ops[t].kind = OpKind::TileAs(TileAsOp::PipelineYield);
            }
        }
    }
    Ok(())
}
