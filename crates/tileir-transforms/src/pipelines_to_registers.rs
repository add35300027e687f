//! `tileas-pipelines-to-registers`: the general (non-TMA) backend's lowering of
//! single-agent pipelines whose entries are register values.
//!
//! In one agent, a pipeline is a FIFO whose occupancy at every program point is known
//! statically: producers push, consumers pop, in program order. So each in-flight entry
//! can be an SSA value: `produce_one` inlines its region and pushes what it yields,
//! `consume_one` pops the oldest entry and inlines its region on it. A `for` carries the
//! in-flight entries as extra iter values (modulo variable expansion: the kernel of a
//! software-pipelined loop starts and ends each iteration with `S − 1` entries in flight);
//! an `if` yields them as extra results. After this pass the loads that
//! `tileas-unspecialized-pipeline` moved `S − 1` iterations ahead are plain loads whose
//! results wait in registers, which hides their latency behind the previous iterations'
//! compute without any shared memory or barriers.
//!
//! Arms of an `if` must leave the FIFO equally full, except for the prologue guards of
//! `tileas-unspecialized-pipeline` (marked [`PROLOGUE_GUARD`]): their else arm (the
//! iteration does not exist) pushes zero values in place of the entry. That is sound for
//! them because their guards are monotone (once one fails, every later one fails and the
//! kernel loop runs no trip), so the padding sits behind every real entry and the drain
//! consumes only real ones; the loop draining the pipeline pads the same way.
//!
//! Iterators become `i32` counters and async tokens ordering tokens (nothing reads them
//! any more). A function with agents, or a pipeline used in a way this does not model
//! (another op kind, a region the walk does not enter, a producer region reading its
//! previous entry), is left unchanged; the LLVM writer then reports that it cannot emit it.

use std::collections::HashMap;
use tileir_ir::{
    Attr, BlockId, CtOp, CudaTileOp, DenseElements, Diagnostics, Module, NumType, OpId, OpKind, TileAaOp, TileAsOp,
    TileElem, Type, TypeId, ValueId,
};
use tileir_pass::{pass_options, Pass};

use crate::pipeline_util::{append_block_arg, rebuild_with_extra, walk_op, Builder};

/// Registered name.
pub const NAME: &str = "tileas-pipelines-to-registers";

/// Discardable attribute `tileas-unspecialized-pipeline` puts on its prologue guards.
pub const PROLOGUE_GUARD: &str = "tileas.prologue_guard";

pass_options! {
    /// `tileas-pipelines-to-registers` has no options.
    pub struct PipelinesToRegistersOptions {}
}

/// The pass.
pub struct PipelinesToRegisters {
    /// Its options.
    pub options: PipelinesToRegistersOptions,
}

impl Pass for PipelinesToRegisters {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let funcs: Vec<OpId> = module.blocks[module.body]
            .ops
            .iter()
            .copied()
            .filter(|&f| matches!(module.ops[f].kind, OpKind::TileAa(TileAaOp::Func { .. })))
            .collect();
        for f in funcs {
            // Work on a copy; keep it only if the whole function lowered.
            let mut trial = module.clone();
            if lower_function(&mut trial, f).is_some() {
                *module = trial;
            }
        }
        Ok(())
    }
}

/// In-flight entries per pipeline (oldest first), each entry its values.
type Fifos = Vec<(ValueId, Vec<Vec<ValueId>>)>;

fn fifo(f: &mut Fifos, pipe: ValueId) -> &mut Vec<Vec<ValueId>> {
    if let Some(i) = f.iter().position(|(p, _)| *p == pipe) {
        return &mut f[i].1;
    }
    f.push((pipe, Vec::new()));
    &mut f.last_mut().expect("pushed").1
}

fn flatten(f: &Fifos) -> Vec<ValueId> {
    f.iter().flat_map(|(_, q)| q.iter().flatten().copied()).collect()
}

/// Rebuilds `f`'s shape with values taken in order from `vals`.
fn reshape(f: &Fifos, vals: &[ValueId]) -> Fifos {
    let mut it = vals.iter().copied();
    f.iter().map(|(p, q)| (*p, q.iter().map(|e| e.iter().map(|_| it.next().expect("same shape")).collect()).collect())).collect()
}

fn same_shape(a: &Fifos, b: &Fifos, m: &Module) -> bool {
    let types = |f: &Fifos| -> Vec<(ValueId, Vec<Vec<TypeId>>)> {
        f.iter().map(|(p, q)| (*p, q.iter().map(|e| e.iter().map(|&v| m.value_type(v)).collect()).collect())).collect()
    };
    let (mut ta, mut tb) = (types(a), types(b));
    ta.retain(|(_, q)| !q.is_empty());
    tb.retain(|(_, q)| !q.is_empty());
    ta == tb
}

fn uses_pipelines(m: &Module, op: OpId) -> bool {
    walk_op(m, op).iter().any(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_) | TileAsOp::ConsumeOne { .. })))
}

/// Whether a pipeline op inside `op` uses a pipeline created outside it.
fn uses_outer_pipelines(m: &Module, op: OpId) -> bool {
    walk_op(m, op).iter().any(|&o| {
        matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_) | TileAsOp::ConsumeOne { .. }))
            && !crate::pipeline_util::defined_inside(m, m.ops[o].operands[0], op)
    })
}

fn lower_function(m: &mut Module, func: OpId) -> Option<()> {
    let ops = walk_op(m, func);
    if !ops.iter().any(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::CreatePipeline))) {
        return Some(());
    }
    // Only what this pass models may touch a pipeline.
    for &o in &ops {
        match &m.ops[o].kind {
            OpKind::TileAs(TileAsOp::AgentSwitch { .. }) => return None,
            OpKind::TileAs(
                TileAsOp::ProducerAcquire
                | TileAsOp::ProducerWrite
                | TileAsOp::ProducerCommit
                | TileAsOp::ConsumerWait { .. }
                | TileAsOp::ConsumerRead
                | TileAsOp::ConsumerRelease,
            ) => return None,
            OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_)) => {
                let b = m.entry_block(o, 0)?;
                let args = m.blocks[b].args.clone();
                if walk_op(m, o).iter().any(|&inner| m.ops[inner].operands.iter().any(|v| args.contains(v))) {
                    return None;
                }
            }
            _ => {}
        }
    }
    let body = m.entry_block(func, 0)?;
    let mut fifos: Fifos = Vec::new();
    lower_block(m, body, &mut fifos)?;
    // Iterators become counters, async tokens ordering tokens; pipelines disappear.
    let i32_ty = m.types.scalar(NumType::I32);
    let tok_ty = m.types.mem_token();
    for o in walk_op(m, func) {
        let loc = m.ops[o].loc;
        match m.ops[o].kind.clone() {
            OpKind::TileAs(TileAsOp::CreateIterator) => {
                let c = zero_const(m, i32_ty, loc);
                m.insert_op_before(o, c);
                let (old, new) = (m.ops[o].results[0], m.ops[c].results[0]);
                m.replace_all_uses(old, new);
                m.detach_op(o);
            }
            OpKind::TileAs(TileAsOp::IncIter) => {
                let one = {
                    let mut b = Builder::before(m, o);
                    b.int_const(i32_ty, 1)
                };
                m.ops[o].kind = OpKind::CudaTile(CudaTileOp::new(CtOp::AddI));
                m.ops[o].operands.push(one);
            }
            OpKind::TileAs(TileAsOp::CreateNone) => m.ops[o].kind = OpKind::TileAa(TileAaOp::CreateMemToken),
            OpKind::TileAs(TileAsOp::FutureWait | TileAsOp::Wait) => m.detach_op(o),
            _ => {}
        }
    }
    let ids: Vec<ValueId> = m.values.keys().collect();
    for v in ids {
        match m.types.get(m.values[v].ty) {
            Type::PipelineIterator { .. } => m.values[v].ty = i32_ty,
            Type::AsyncToken => m.values[v].ty = tok_ty,
            _ => {}
        }
    }
    for o in walk_op(m, func) {
        if matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::CreatePipeline)) {
            m.detach_op(o);
        }
    }
    // Nothing pipeline-typed may remain reachable (register-to-register layout conversions,
    // which the general backend lowers, may).
    let left = walk_op(m, func).into_iter().any(|o| {
        matches!(&m.ops[o].kind, OpKind::TileAs(k) if !matches!(k, TileAsOp::TiledLoad { .. } | TileAsOp::TiledStore { .. } | TileAsOp::ConvertLayout { plan: None, reinterpret_byte: false }))
            || m.ops[o].operands.iter().any(|&v| matches!(m.types.get(m.value_type(v)), Type::Pipeline { .. }))
    });
    (!left).then_some(())
}

fn zero_const(m: &mut Module, ty: TypeId, loc: tileir_ir::LocId) -> OpId {
    let (elem, shape) = match m.types.get(ty) {
        Type::Tile { shape, elem: TileElem::Num(n), .. } => (*n, shape.clone()),
        Type::Scalar(n) => (*n, vec![]),
        _ => (NumType::I32, vec![]),
    };
    let c = CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(DenseElements { elem, shape, bits: vec![0] }));
    m.create_op(OpKind::CudaTile(c), vec![], &[ty], loc)
}

/// Inlines region 0 of `op` before `op` with its block arguments bound to `args`; returns
/// the values its terminator yields.
fn inline_region(m: &mut Module, op: OpId, args: &[ValueId]) -> Option<Vec<ValueId>> {
    let b = m.entry_block(op, 0)?;
    let mut map: HashMap<ValueId, ValueId> = m.blocks[b].args.iter().copied().zip(args.iter().copied()).collect();
    let ops = m.blocks[b].ops.clone();
    let (last, body) = ops.split_last()?;
    for &inner in body {
        let c = m.clone_op(inner, &mut map);
        m.insert_op_before(op, c);
    }
    Some(m.ops[*last].operands.iter().map(|v| *map.get(v).unwrap_or(v)).collect())
}

fn lower_block(m: &mut Module, block: BlockId, fifos: &mut Fifos) -> Option<()> {
    for op in m.blocks[block].ops.clone() {
        let loc = m.ops[op].loc;
        match m.ops[op].kind.clone() {
            OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_)) => {
                let pipe = m.ops[op].operands[0];
                let n_args = m.blocks[m.entry_block(op, 0)?].args.len();
                // The region ignores its arguments (checked): bind them to nothing useful.
                let placeholder: Vec<ValueId> = Vec::with_capacity(n_args);
                let values = inline_region(m, op, &placeholder)?;
                fifo(fifos, pipe).push(values);
                if let Some(&tok) = m.ops[op].results.first() {
                    let none = m.create_op(OpKind::TileAs(TileAsOp::CreateNone), vec![], &[m.value_type(tok)], loc);
                    m.insert_op_before(op, none);
                    let nv = m.ops[none].results[0];
                    m.replace_all_uses(tok, nv);
                }
                m.detach_op(op);
            }
            OpKind::TileAs(TileAsOp::ConsumeOne { .. }) => {
                let pipe = m.ops[op].operands[0];
                let q = fifo(fifos, pipe);
                if q.is_empty() {
                    return None; // a consume with nothing in flight: not a single-agent FIFO
                }
                let entry = q.remove(0);
                let results = inline_region(m, op, &entry)?;
                for (r, v) in m.ops[op].results.clone().into_iter().zip(results) {
                    m.replace_all_uses(r, v);
                }
                m.detach_op(op);
            }
            // Pipelines created inside the op never cross its boundary: its blocks lower on
            // their own (whatever the op: a user's `if` without else, a `loop`, …).
            _ if uses_pipelines(m, op) && !uses_outer_pipelines(m, op) => {
                for r in m.ops[op].regions.clone() {
                    for b in m.regions[r].blocks.clone() {
                        let mut own: Fifos = Vec::new();
                        lower_block(m, b, &mut own)?;
                    }
                }
            }
            OpKind::CudaTile(ct) if ct.op == CtOp::For && uses_pipelines(m, op) => {
                let carried = flatten(fifos);
                let types: Vec<TypeId> = carried.iter().map(|&v| m.value_type(v)).collect();
                let new = rebuild_with_extra(m, op, &carried, &types);
                let body = m.entry_block(new, 0)?;
                let args: Vec<ValueId> = types.iter().map(|&t| append_block_arg(m, body, t)).collect();
                let mut inner = reshape(fifos, &args);
                let entry_shape = inner.clone();
                lower_block(m, body, &mut inner)?;
                drop_local(m, &mut inner, new);
                let term = *m.blocks[body].ops.last()?;
                if m.ops[term].kind.ct() != Some(CtOp::Continue) {
                    return None;
                }
                // A drain leaves fewer entries than it started with: pad with zeros
                // behind the real ones (they are never consumed; see the module docs).
                pad_to(m, &mut inner, &entry_shape, term)?;
                if !same_shape(&inner, &entry_shape, m) {
                    return None;
                }
                let out = flatten(&inner);
                m.ops[term].operands.extend(out);
                let n = m.ops[new].results.len();
                let results: Vec<ValueId> = m.ops[new].results[n - carried.len()..].to_vec();
                *fifos = reshape(&entry_shape, &results);
            }
            OpKind::CudaTile(ct) if ct.op == CtOp::If && uses_pipelines(m, op) => {
                let guard = ct.discardable.iter().any(|(k, _)| k == PROLOGUE_GUARD);
                let r0 = m.entry_block(op, 0)?;
                let r1 = m.entry_block(op, 1)?;
                let mut then_f = fifos.clone();
                let mut else_f = fifos.clone();
                lower_block(m, r0, &mut then_f)?;
                lower_block(m, r1, &mut else_f)?;
                drop_local(m, &mut then_f, op);
                drop_local(m, &mut else_f, op);
                let t_term = *m.blocks[r0].ops.last()?;
                let e_term = *m.blocks[r1].ops.last()?;
                if m.ops[t_term].kind.ct() != Some(CtOp::Yield) || m.ops[e_term].kind.ct() != Some(CtOp::Yield) {
                    return None;
                }
                if !same_shape(&then_f, &else_f, m) {
                    if !guard {
                        return None;
                    }
                    pad_to(m, &mut else_f, &then_f, e_term)?;
                    if !same_shape(&then_f, &else_f, m) {
                        return None;
                    }
                }
                let t_vals = flatten(&then_f);
                let e_vals = flatten(&else_f);
                let types: Vec<TypeId> = t_vals.iter().map(|&v| m.value_type(v)).collect();
                let new = rebuild_with_extra(m, op, &[], &types);
                let (nb0, nb1) = (m.entry_block(new, 0)?, m.entry_block(new, 1)?);
                let t_term = *m.blocks[nb0].ops.last()?;
                let e_term = *m.blocks[nb1].ops.last()?;
                m.ops[t_term].operands.extend(t_vals);
                m.ops[e_term].operands.extend(e_vals);
                let n = m.ops[new].results.len();
                let results: Vec<ValueId> = m.ops[new].results[n - types.len()..].to_vec();
                *fifos = reshape(&then_f, &results);
            }
            // Any other op whose regions use a pipeline from outside: not modelled.
            _ if uses_pipelines(m, op) => return None,
            _ => {}
        }
    }
    Some(())
}

/// Forgets the pipelines created inside `op`: whatever they hold when its region ends can
/// never be consumed (the next iteration or arm creates a fresh pipeline).
fn drop_local(m: &Module, f: &mut Fifos, op: OpId) {
    f.retain(|(pipe, _)| !crate::pipeline_util::defined_inside(m, *pipe, op));
}

/// Appends zero entries (before `anchor`) to the queues of `f` shorter than in `like`.
fn pad_to(m: &mut Module, f: &mut Fifos, like: &Fifos, anchor: OpId) -> Option<()> {
    let loc = m.ops[anchor].loc;
    for (pipe, want) in like {
        let have = fifo(f, *pipe).len();
        for entry in want.iter().skip(have) {
            let mut zeros = Vec::new();
            for &v in entry {
                let c = zero_const(m, m.value_type(v), loc);
                m.insert_op_before(anchor, c);
                zeros.push(m.ops[c].results[0]);
            }
            fifo(f, *pipe).push(zeros);
        }
    }
    Some(())
}
