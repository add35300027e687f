//! `tileas-materialize-async` (spec/001 "Materialize Async"): synchronous tile loops become
//! producer/consumer scaffolds around an async pipeline.
//!
//! In each `for` loop of a function without agents, the *async-defining values* are the
//! `nv_tileas.tiled_load`s sitting directly in the body whose address computation depends
//! only on the induction variable and values from outside the loop (so they can be
//! issued for a later iteration), whose ordering token comes from outside the loop, and
//! whose token result is unused, in a loop that writes no memory. They move into one
//! `produce_one_async {pipeline_stage = 0}` region over a fresh pipeline (one entry per
//! load); a `consume_one {pipeline_stage = 1}` hands the loaded tiles to the original
//! users. The loop gains three iter values (producer iterator, consumer iterator and the
//! async token seeded by `create_none`), and `future_wait` + `async.wait` on the final
//! token follow it, as in the spec's output shape. A loop without such loads stays
//! synchronous (no diagnostic: that is recoverable).
//!
//! After the walk, every pipeline must have exactly one producer; a second one is the bug
//! the spec's reconciler reports with its verbatim diagnostic.

use std::collections::HashMap;
use tileir_ir::{
    CtOp, Diagnostic, Diagnostics, Module, OpId, OpKind, TileAsOp, Type, TypeId, ValueDef, ValueId,
};
use tileir_pass::{pass_options, Pass};

use crate::pipeline_util::{append_block_arg, has_side_effects, rebuild_with_extra, Builder, ForLoop};

/// Registered name.
pub const NAME: &str = "tileas-materialize-async";

/// spec/001: the reconciler's diagnostic, verbatim (trailing period included).
pub const TWO_PRODUCERS: &str = "there are two `produce-one-like` operations using different instructions to generate data into the same pipeline. It's a bug of MaterializeAsync Pass.";

pass_options! {
    /// Options of `tileas-materialize-async` (spec/001 gives it none; this one is tileir's).
    pub struct MaterializeAsyncOptions {
        /// tileir: leave loads whose only use is an operand of an mma where they are. The
        /// sm_90a backend copies such tiles straight into shared memory by TMA and
        /// double-buffers the loop itself; pipelined here, they would arrive as registers.
        keep_mma_operands("keep-mma-operands"): bool = false,
        /// tileir: the depth of the backend's shared-memory ring for the loads kept for an
        /// mma, recorded on their loop as `tileir.num_stages` (0: the backend's choice,
        /// as many stages as fit, up to four; 1: no ring, each load waited for in place).
        mma_operand_stages("mma-operand-stages"): u32 = 0,
        /// tileir: whether that ring may be warp-specialized (spec/001's AWS: a producer
        /// warpgroup issues the copies, the kernel's warps only wait and compute), recorded
        /// on the loop as `tileir.warp_specialize`; false keeps one agent doing both (AUS).
        mma_warp_specialize("mma-warp-specialize"): bool = true,
    }
}

pub use tileir_ir::{NUM_STAGES_ATTR, WARP_SPECIALIZE_ATTR};

/// What the backend's ring for the kept mma operands is asked for.
#[derive(Clone, Copy, Debug)]
struct KeptMmaOperands {
    /// Ring depth (0: the backend's choice).
    stages: u32,
    /// Whether the ring may run warp-specialized.
    warp_specialize: bool,
}

/// The pass.
pub struct MaterializeAsync {
    /// Its options.
    pub options: MaterializeAsyncOptions,
}

impl Pass for MaterializeAsync {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let keep = self.options.keep_mma_operands.then_some(KeptMmaOperands {
            stages: self.options.mma_operand_stages,
            warp_specialize: self.options.mma_warp_specialize,
        });
        let created = materialize(module, keep);
        check_one_producer_per_pipeline(module, &created)
    }
}

fn function_has_agents(m: &Module, func: OpId) -> bool {
    fn walk(m: &Module, op: OpId) -> bool {
        matches!(m.ops[op].kind, OpKind::TileAs(TileAsOp::AgentSwitch { .. }))
            || m.ops[op].regions.iter().any(|&r| m.regions[r].blocks.iter().any(|&b| m.blocks[b].ops.iter().any(|&o| walk(m, o))))
    }
    walk(m, func)
}

/// Rewrites every qualifying loop (innermost first, so an outer loop sees its inner loops
/// already rewritten — and then has side effects of its own pipelines to respect).
/// `keep_mma_operands`: Some(ring) leaves loads that only feed an mma in place (stamping
/// their loop with the ring's depth when nonzero, and whether it may be warp-specialized).
fn materialize(m: &mut Module, keep_mma_operands: Option<KeptMmaOperands>) -> Vec<ValueId> {
    let mut created = Vec::new();
    let funcs: Vec<OpId> = m.blocks[m.body].ops.iter().copied().filter(|&f| matches!(m.ops[f].kind, OpKind::TileAa(tileir_ir::TileAaOp::Func { .. }))).collect();
    for f in funcs {
        if function_has_agents(m, f) {
            continue;
        }
        // Post-order: inner loops before outer ones.
        let mut loops = Vec::new();
        collect_loops(m, f, &mut loops);
        for l in loops {
            if m.is_attached(l) {
                created.extend(materialize_loop(m, l, keep_mma_operands));
            }
        }
    }
    created
}

fn collect_loops(m: &Module, op: OpId, out: &mut Vec<OpId>) {
    for &r in &m.ops[op].regions {
        for &b in &m.regions[r].blocks {
            for &o in &m.blocks[b].ops {
                collect_loops(m, o, out);
            }
        }
    }
    if m.ops[op].kind.ct() == Some(CtOp::For) {
        out.push(op);
    }
}

/// The ops of the body (in order) that `v` depends on, if `v`'s computation inside the
/// loop is pure and reaches only the induction variable and outside values.
fn issuable_slice(m: &Module, l: &ForLoop, v: ValueId, slice: &mut Vec<OpId>) -> bool {
    if v == l.iv {
        return true;
    }
    match m.values[v].def {
        ValueDef::BlockArg { .. } => !crate::pipeline_util::defined_inside(m, v, l.op),
        ValueDef::OpResult { op, .. } => {
            if !crate::pipeline_util::defined_inside(m, v, l.op) {
                return true;
            }
            if m.ops[op].parent != Some(l.body) || slice.contains(&op) {
                return m.ops[op].parent == Some(l.body);
            }
            let pure = match &m.ops[op].kind {
                OpKind::CudaTile(ct) => tileir_ir::is_residual_cuda_tile(ct.op) && m.ops[op].regions.is_empty() && !has_side_effects(m, op),
                _ => false,
            };
            if !pure {
                return false;
            }
            for &o in &m.ops[op].operands.clone() {
                if !issuable_slice(m, l, o, slice) {
                    return false;
                }
            }
            slice.push(op);
            true
        }
    }
}

fn use_count(m: &Module, v: ValueId) -> usize {
    m.walk().iter().map(|&o| m.ops[o].operands.iter().filter(|&&x| x == v).count()).sum()
}

/// Whether `v`'s only use is as operand A or B of an mma, directly or through reshapes that
/// drop leading unit dimensions (a batched load's `1xMxK` tile) and same-width bitcasts (a
/// uint8 view read as fp8).
fn only_mma_operand(m: &Module, v: ValueId) -> bool {
    let users: Vec<OpId> = m.walk().into_iter().filter(|&o| m.ops[o].operands.contains(&v)).collect();
    match users.as_slice() {
        [u] if m.is_bit_view(*u) => only_mma_operand(m, m.ops[*u].results[0]),
        [u] => {
            matches!(m.ops[*u].kind.ct(), Some(CtOp::MmaF | CtOp::MmaI))
                && m.ops[*u].operands.iter().position(|&x| x == v).is_some_and(|i| i < 2)
                && m.ops[*u].operands.iter().filter(|&&x| x == v).count() == 1
        }
        _ => false,
    }
}

/// Rewrites one loop; returns the pipeline it created, if any.
fn materialize_loop(m: &mut Module, for_op: OpId, keep_mma_operands: Option<KeptMmaOperands>) -> Option<ValueId> {
    let l = ForLoop::of(m, for_op)?;
    if let Some(kept_for) = keep_mma_operands {
        let kept = m.blocks[l.body].ops.iter().any(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::TiledLoad { .. })) && only_mma_operand(m, m.ops[o].results[0]));
        if let (true, OpKind::CudaTile(ct)) = (kept, &mut m.ops[for_op].kind) {
            ct.discardable.retain(|(k, _)| k != NUM_STAGES_ATTR && k != WARP_SPECIALIZE_ATTR);
            if kept_for.stages >= 1 {
                ct.discardable.push((NUM_STAGES_ATTR.into(), tileir_ir::Attr::Int(i64::from(kept_for.stages))));
            }
            ct.discardable.push((WARP_SPECIALIZE_ATTR.into(), tileir_ir::Attr::Bool(kept_for.warp_specialize)));
        }
    }
    let keep_mma_operands = keep_mma_operands.is_some();
    if l.terminator(m).is_none() || m.blocks[l.body].ops.iter().any(|&o| has_side_effects(m, o)) {
        return None;
    }
    let mut lifted: Vec<OpId> = Vec::new();
    let mut slice: Vec<OpId> = Vec::new();
    for op in m.blocks[l.body].ops.clone() {
        let OpKind::TileAs(TileAsOp::TiledLoad { access, .. }) = &m.ops[op].kind else { continue };
        let d = &m.ops[op];
        let token_ok = !access.has_token || !crate::pipeline_util::defined_inside(m, *d.operands.last().expect("token"), l.op);
        let token_unused = d.results.get(1).is_none_or(|&t| use_count(m, t) == 0);
        if !token_ok || !token_unused || (keep_mma_operands && only_mma_operand(m, d.results[0])) {
            continue;
        }
        let mut s = slice.clone();
        let addr_operands = if access.has_token { &d.operands[..d.operands.len() - 1] } else { &d.operands[..] };
        if addr_operands.iter().all(|&v| issuable_slice(m, &l, v, &mut s)) {
            slice = s;
            lifted.push(op);
        }
    }
    if lifted.is_empty() {
        return None;
    }
    let loc = m.ops[for_op].loc;
    let elems: Vec<TypeId> = lifted.iter().map(|&o| m.value_type(m.ops[o].results[0])).collect();
    let pipe_ty = m.types.intern(Type::Pipeline { stages: 1, consumers: 1, elems: elems.clone() });
    let iter_ty = m.types.intern(Type::PipelineIterator { pipeline: pipe_ty });
    let tok_ty = m.types.intern(Type::AsyncToken);
    let (pipe, itp0, itc0, tok0) = {
        let mut b = Builder::before(m, for_op);
        let pipe = b.value(OpKind::TileAs(TileAsOp::CreatePipeline), vec![], pipe_ty);
        let tok0 = b.value(OpKind::TileAs(TileAsOp::CreateNone), vec![], tok_ty);
        let itp0 = b.value(OpKind::TileAs(TileAsOp::CreateIterator), vec![pipe], iter_ty);
        let itc0 = b.value(OpKind::TileAs(TileAsOp::CreateIterator), vec![pipe], iter_ty);
        (pipe, itp0, itc0, tok0)
    };
    let new_for = rebuild_with_extra(m, for_op, &[itp0, itc0, tok0], &[iter_ty, iter_ty, tok_ty]);
    let l = ForLoop::of(m, new_for)?;
    let itp = append_block_arg(m, l.body, iter_ty);
    let itc = append_block_arg(m, l.body, iter_ty);
    let tok = append_block_arg(m, l.body, tok_ty);
    let anchor = lifted[0];
    // Producer: the address slice and the loads, cloned into the region.
    let produce = m.create_op(OpKind::TileAs(TileAsOp::ProduceOneAsync(tileir_ir::dialect::tileas::StageTag { pipeline_stage: Some(0) })), vec![pipe, itp], &[tok_ty], loc);
    m.insert_op_before(anchor, produce);
    let region = m.ops[produce].regions[0];
    let pblock = m.add_block(region, &elems);
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    let mut ordered: Vec<OpId> = m.blocks[l.body].ops.iter().copied().filter(|o| slice.contains(o) || lifted.contains(o)).collect();
    ordered.dedup();
    for o in &ordered {
        let c = m.clone_op(*o, &mut map);
        m.append_op(pblock, c);
    }
    let yielded: Vec<ValueId> = lifted.iter().map(|&o| map[&m.ops[o].results[0]]).collect();
    let y = m.create_op(OpKind::TileAs(TileAsOp::PipelineYield), yielded, &[], loc);
    m.append_op(pblock, y);
    let itp_next = Builder::before(m, anchor).inc_iter(itp);
    // Consumer: hands the entry to the original users.
    let consume = m.create_op(
        OpKind::TileAs(TileAsOp::ConsumeOne { consumer_idx: 0, tag: tileir_ir::dialect::tileas::StageTag { pipeline_stage: Some(1) } }),
        vec![pipe, itc],
        &elems,
        loc,
    );
    m.insert_op_before(anchor, consume);
    let cregion = m.ops[consume].regions[0];
    let cblock = m.add_block(cregion, &elems);
    let args = m.blocks[cblock].args.clone();
    let y = m.create_op(OpKind::TileAs(TileAsOp::PipelineYield), args, &[], loc);
    m.append_op(cblock, y);
    let itc_next = Builder::before(m, anchor).inc_iter(itc);
    for (i, &o) in lifted.iter().enumerate() {
        let r = m.ops[o].results[0];
        let v = m.ops[consume].results[i];
        if let Some(n) = m.values[r].name.clone() {
            m.values[v].name = Some(n);
        }
        m.replace_all_uses(r, v);
        m.detach_op(o);
    }
    // The original slice ops that nothing else uses any more.
    for &o in slice.iter().rev() {
        if m.ops[o].results.iter().all(|&r| use_count(m, r) == 0) {
            m.detach_op(o);
        }
    }
    if let Some(t) = l.terminator(m) {
        m.ops[t].operands.extend([itp_next, itc_next, tok]);
    }
    let n = m.ops[new_for].results.len();
    let final_tok = m.ops[new_for].results[n - 1];
    let wait = m.create_op(OpKind::TileAs(TileAsOp::FutureWait), vec![final_tok], &[], loc);
    m.insert_op_after(new_for, wait);
    let w = m.create_op(OpKind::TileAs(TileAsOp::Wait), vec![final_tok], &[], loc);
    m.insert_op_after(wait, w);
    Some(pipe)
}

/// The reconciler: one produce-one-like writer per pipeline this pass created.
pub fn check_one_producer_per_pipeline(m: &Module, created: &[ValueId]) -> Result<(), Diagnostics> {
    let mut writers: HashMap<ValueId, Vec<OpId>> = HashMap::new();
    for op in m.walk() {
        if matches!(m.ops[op].kind, OpKind::TileAs(TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_) | TileAsOp::ProducerWrite)) {
            if let Some(&p) = m.ops[op].operands.first().filter(|p| created.contains(p)) {
                writers.entry(p).or_default().push(op);
            }
        }
    }
    let mut diags = Vec::new();
    let mut pipes: Vec<_> = writers.into_iter().collect();
    pipes.sort();
    for (_, ops) in pipes {
        if ops.len() > 1 {
            diags.push(Diagnostic::error(m.op_location(ops[1]), TWO_PRODUCERS));
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(diags))
    }
}
