//! `tileas-materialize-schedule` (spec/001 "Materialize Schedule", D09): turns the modulo
//! schedule of each loop that `tileas-materialize-async` prepared into IR, either
//! agent-unspecialized (AUS: one agent owns producer and compute) or agent-warp-specialized
//! (AWS: a producer agent and a consumer agent under `nv_tileas.async.pipeline.agent_switch`).
//!
//! The pass is split as the spec's pass boundary demands:
//! - [`analyze`] reads the IR and returns one [`LoopSchedule`] per prepared loop: the loop's
//!   dependence graph ([`tileir_sched::LoopBody`]) and the record `tileir_sched::schedule`
//!   published for it. It never edits IR.
//! - [`materialize`] consumes those records and never recomputes a schedule.
//!
//! **Prepared loops**: a `cuda_tile.for` whose body holds (at top level) a producer region
//! (`produce_one`/`produce_one_async`) tagged `pipeline_stage = 0` and a `consume_one` of the
//! same pipeline.
//!
//! **Dependence graph** (one node per top-level body op except the `continue`):
//! - a producer region (or a bare tile load) is a long-latency load: with `sm >= 90` it is
//!   a TMA copy ([`TMA_LATENCY`] cycles, the `tma` engine busy [`TMA_ISSUE_CYCLES`] per load
//!   it contains), before that the load/store units ([`LSU_LATENCY`] cycles, `lsu` busy one
//!   cycle per [`LSU_BYTES_PER_CYCLE`] bytes);
//! - `mmaf`/`mmai`: the `tensor_core` pipe busy `ceil(M·N·K / TENSOR_FMAS_PER_CYCLE)`
//!   cycles, latency that plus [`MMA_PIPELINE_LATENCY`];
//! - everything else (`consume_one`, `inc_iter`, arithmetic): one `alu` cycle, latency
//!   [`ALU_LATENCY`].
//!
//! Every node is one unit of work (so `total_work` is the node count). Edges: SSA uses
//! inside the body (operands and values captured by regions; distance 0, latency of the
//! definition), loop-carried uses through the `continue` operands (distance 1), and the
//! pipeline edge from the producer to the consumer of the same pipeline (distance 0, the
//! producer's latency: the consumer waits for the data). The stage count is capped by the
//! shared memory one pipeline entry needs ([`SMEM_BYTES_SM90`] / [`SMEM_BYTES_PRE_SM90`]) and
//! by [`MAX_PIPELINE_STAGES`]. The trip count is treated as unknown.
//!
//! **Strategy routing** (spec "Strategy Routing"): `none` leaves every loop exactly as it
//! is (no record, no IR change, no alias check). `serial` (or any schedule with a single
//! stage) has nothing to materialize: the loop only gets the record, whose `num_stages = 1`
//! also keeps `tileas-unspecialized-pipeline` from peeling it. `cost_based` and `fast`
//! materialize through AUS or AWS. `default` is `serial` before sm 90, `cost_based` from 90.
//!
//! **AUS vs AWS**: AUS when `use-AUS` is set or when the dual-SIMT heuristic
//! ([`ScheduleRecord::use_dual_simt`]) does not pay off; otherwise AWS. The final decision
//! is recorded in the loop's record (`use_dual_simt`, `driver`).
//! - AUS stamps the schedule: the consumer's `pipeline_stage` becomes the number of
//!   iterations it runs behind the producer in the schedule (at least 1), the pipeline is
//!   re-typed to the schedule's stage count, and the record goes on the loop as the
//!   discardable `tileas.schedule` dictionary; `tileas-unspecialized-pipeline` (which runs
//!   after) expands that into prologue / kernel / epilogue.
//! - AWS emits one `agent_switch`: agent 0 (1 warp, [`PRODUCER_REGISTERS`] registers from
//!   sm 90) runs a copy of the loop that keeps only the producer slice (the producer
//!   region, the ops computing its operands, its iterator update and the loop control);
//!   agent 1 (the function's warps, the remaining register budget) runs the loop without
//!   the producer, followed by everything that came after the loop in the function. The
//!   function's `nv_tileaa.return` stays after the `agent_switch`. **Dual SIMT**: when it
//!   is chosen (`use_dual_simt = true` in the record) and the consumer code computes per
//!   row half (see [`dual_simt`]), the consumer agent is split into two agents of half the
//!   warps each, consumers 0 and 1 of a `consumers = 2` pipeline, each computing one half
//!   of dimension 0 of the accumulators; the record then also says `dual_simt_split = true`.
//!   When the split is infeasible one consumer agent is emitted, as without dual SIMT.
//!   When the partition is impossible (the loop is not directly in the function body, the
//!   function returns values, the producer slice needs a value the consumer side computes,
//!   no warp/register split fits) the loop silently stays synchronous, as the spec says.
//!
//! **Alias check**: a pipeline reaching materialization must have exactly the producer and
//! the consumer of its loop, tagged 0 and >= 1; any other producer/consumer-like op on it
//! (the pipeline used by two loops, a mismatched stage tag) is the fatal error
//! "Alias is not expected here." at that op.
//!
//! `enable-schedule-rewrite` is recorded in the record (`schedule_rewrite`); in tileir the
//! expansion of the stages is `tileas-unspecialized-pipeline`'s job, which always re-folds
//! the kernel onto the loop, so the option changes nothing else.

use std::collections::{BTreeMap, HashMap, HashSet};

use tileir_ir::dialect::tileas::{AgentSpec, StageTag};
use tileir_ir::{
    Attr, CtOp, Diagnostic, Diagnostics, Module, OpId, OpKind, TileAaOp, TileAsOp, TileElem, Type, TypeId, ValueDef,
    ValueId,
};
use tileir_pass::{pass_options, Pass};
use tileir_sched::{Dep, LoopBody, Machine, OpNode, ResourceUse, ScheduleOptions, ScheduleRecord, Strategy};

use crate::pipeline_util::{captured_values, has_side_effects, retype_pipeline_stages, walk_op, ForLoop};

pub mod dual_simt;

/// Registered name.
pub const NAME: &str = "tileas-materialize-schedule";

/// spec/001's description, typo included (the name slot is spelled correctly).
pub const DESCRIPTION: &str = "Meterialize the pipeline schedule to generate warp-specialized or unspecialized IR";

/// spec/001's alias-check diagnostic, verbatim.
pub const ALIAS_NOT_EXPECTED: &str = "Alias is not expected here.";

/// The discardable attribute (on the `cuda_tile.for`) that carries the schedule record.
pub const SCHEDULE_ATTR: &str = "tileas.schedule";

/// Latency of a TMA bulk copy from global memory (sm >= 90), in cycles.
pub const TMA_LATENCY: u32 = 400;
/// Cycles the TMA engine is busy issuing one bulk copy.
pub const TMA_ISSUE_CYCLES: u32 = 2;
/// Latency of a load through the load/store units (before sm 90), in cycles.
pub const LSU_LATENCY: u32 = 450;
/// Bytes the load/store units move per cycle.
pub const LSU_BYTES_PER_CYCLE: u64 = 128;
/// Multiply-adds the tensor core pipe retires per cycle.
pub const TENSOR_FMAS_PER_CYCLE: u64 = 256;
/// Fixed tensor core pipeline latency on top of its busy cycles.
pub const MMA_PIPELINE_LATENCY: u32 = 16;
/// Latency of everything else.
pub const ALU_LATENCY: u32 = 1;
/// Shared memory a pipeline may fill from sm 90 on (bytes).
pub const SMEM_BYTES_SM90: u64 = 227 * 1024;
/// Shared memory a pipeline may fill before sm 90 (bytes).
pub const SMEM_BYTES_PRE_SM90: u64 = 163 * 1024;
/// The deepest pipeline the pass builds.
pub const MAX_PIPELINE_STAGES: u32 = 8;
/// Registers per thread of the AWS producer agent (sm >= 90, `setmaxnreg`).
pub const PRODUCER_REGISTERS: u32 = 40;
/// The most registers per thread a consumer agent asks for.
pub const MAX_CONSUMER_REGISTERS: u32 = 232;
/// Registers of one SM (per CTA budget the agents share).
pub const REGISTER_FILE: u32 = 65536;

pass_options! {
    /// Options of `tileas-materialize-schedule`.
    pub struct MaterializeScheduleOptions {
        /// Force the agent-unspecialized driver (bypasses the dual-SIMT heuristic).
        use_aus("use-AUS"): bool = false,
        /// AWS only: split the compute into two SIMT agents (row halves) when the heuristic says so and the consumer code allows it.
        use_dual_simt("use-dual-simt"): bool = true,
        /// Re-fold the expanded stages onto the original loop (recorded for tileas-unspecialized-pipeline).
        enable_schedule_rewrite("enable-schedule-rewrite"): bool = true,
        /// Scheduling strategy: none, serial, cost_based, fast or default.
        strategy("strategy"): String = "default".to_string(),
        /// Target compute capability (major * 10 + minor).
        sm("sm"): u32 = 90,
    }
}

/// The pass.
pub struct MaterializeSchedule {
    /// Its options.
    pub options: MaterializeScheduleOptions,
    /// The parsed `strategy` option.
    pub strategy: Strategy,
}

impl MaterializeSchedule {
    /// Validates the options (the strategy spelling).
    pub fn new(options: MaterializeScheduleOptions) -> Result<Self, String> {
        let strategy = options.strategy.parse::<Strategy>().map_err(|e| format!("option 'strategy': {e}"))?;
        Ok(MaterializeSchedule { options, strategy })
    }
}

impl Pass for MaterializeSchedule {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let schedules = analyze(module, self.strategy, self.options.sm)?;
        materialize(module, &schedules, &self.options).map(|_| ())
    }
}

/// One prepared loop and its published schedule.
#[derive(Clone, Debug)]
pub struct LoopSchedule {
    /// The function holding the loop.
    pub func: OpId,
    /// The `cuda_tile.for`.
    pub loop_op: OpId,
    /// Its stage-0 producer region.
    pub produce: OpId,
    /// The `consume_one` of the same pipeline.
    pub consume: OpId,
    /// The body op behind each node of [`LoopSchedule::body`].
    pub nodes: Vec<OpId>,
    /// The dependence graph handed to the scheduler.
    pub body: LoopBody,
    /// The resolved strategy.
    pub strategy: Strategy,
    /// The schedule (`None` for strategy `none`).
    pub record: Option<ScheduleRecord>,
}

impl LoopSchedule {
    fn node_of(&self, op: OpId) -> Option<usize> {
        self.nodes.iter().position(|&o| o == op)
    }
    /// Stage of `op` in the record.
    pub fn stage_of(&self, op: OpId) -> Option<u32> {
        let r = self.record.as_ref()?;
        Some(r.ops.get(self.node_of(op)?)?.stage)
    }
    /// How many iterations the consumer runs behind the producer (at least 1).
    pub fn lead(&self) -> u32 {
        let p = self.stage_of(self.produce).unwrap_or(0);
        let c = self.stage_of(self.consume).unwrap_or(1);
        c.saturating_sub(p).max(1)
    }
    /// Pipeline depth the materialized loop needs: the schedule's stages, at least `lead + 1`.
    pub fn pipeline_stages(&self) -> u32 {
        self.record.as_ref().map_or(1, |r| r.num_stages).max(self.lead() + 1)
    }
}

/// Which driver materializes a multi-stage schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// Agent-unspecialized.
    Aus,
    /// Agent-warp-specialized; `dual_simt` is the final dual-SIMT decision.
    Aws {
        /// Whether two consumer agents were asked for (emitted when the split is feasible).
        dual_simt: bool,
    },
}

/// The dispatcher's choice for a multi-stage record: AUS when `use-AUS` is set or the
/// dual-SIMT heuristic does not pay off, AWS otherwise.
pub fn choose_driver(record: &ScheduleRecord, options: &MaterializeScheduleOptions) -> Driver {
    let pays_off = record.use_dual_simt();
    if options.use_aus || !pays_off {
        Driver::Aus
    } else {
        Driver::Aws { dual_simt: options.use_dual_simt && pays_off }
    }
}

fn is_func(m: &Module, op: OpId) -> bool {
    matches!(m.ops[op].kind, OpKind::TileAa(TileAaOp::Func { .. }))
}

fn has_agents(m: &Module, op: OpId) -> bool {
    walk_op(m, op).iter().any(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::AgentSwitch { .. })))
}

fn producer_tag(m: &Module, op: OpId) -> Option<Option<u32>> {
    match &m.ops[op].kind {
        OpKind::TileAs(TileAsOp::ProduceOne(t) | TileAsOp::ProduceOneAsync(t)) => Some(t.pipeline_stage),
        _ => None,
    }
}

fn consumer_tag(m: &Module, op: OpId) -> Option<Option<u32>> {
    match &m.ops[op].kind {
        OpKind::TileAs(TileAsOp::ConsumeOne { tag, .. }) => Some(tag.pipeline_stage),
        _ => None,
    }
}

/// Ops that act on a pipeline as a producer or a consumer (operand 0 is the pipeline).
fn is_pipeline_user(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::TileAs(
            TileAsOp::ProduceOne(_)
                | TileAsOp::ProduceOneAsync(_)
                | TileAsOp::ConsumeOne { .. }
                | TileAsOp::ProducerAcquire
                | TileAsOp::ConsumerWait { .. }
        )
    )
}

/// Bytes of one value of type `ty` (tiles: elements × element size; 4 for anything else).
fn type_bytes(m: &Module, ty: TypeId) -> u64 {
    match m.types.get(ty) {
        Type::Tile { shape, elem, .. } => {
            let bits = match elem {
                TileElem::Num(n) => u64::from(n.bit_width()),
                TileElem::Ptr(_) => 64,
            };
            let n: u64 = shape.iter().map(|&d| d.max(1) as u64).product();
            (n * bits).div_ceil(8)
        }
        Type::Scalar(n) => u64::from(n.bit_width()).div_ceil(8),
        _ => 4,
    }
}

fn tile_shape(m: &Module, v: ValueId) -> Vec<i64> {
    match m.types.get(m.value_type(v)) {
        Type::Tile { shape, .. } => shape.clone(),
        _ => vec![],
    }
}

fn is_load(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::TileAs(TileAsOp::TiledLoad { .. } | TileAsOp::AsyncTiledTmaLoad | TileAsOp::AsyncGatherTmaLoad)
            | OpKind::TileAa(TileAaOp::TiledLoad(_))
    )
}

/// The latency/resource model of one body op (see the module docs).
fn node_model(m: &Module, op: OpId, machine: &Machine, sm: u32) -> OpNode {
    let name = m.ops[op].kind.name();
    let res = |n: &str| machine.resource(n).expect("the machine models this resource");
    let d = &m.ops[op];
    let producer = producer_tag(m, op).is_some();
    if producer || is_load(&d.kind) {
        let loads = walk_op(m, op).iter().filter(|&&o| is_load(&m.ops[o].kind)).count().max(1) as u32;
        let bytes: u64 = if producer {
            m.entry_block(op, 0).map_or(0, |b| m.blocks[b].args.iter().map(|&a| type_bytes(m, m.value_type(a))).sum())
        } else {
            d.results.first().map_or(0, |&r| type_bytes(m, m.value_type(r)))
        };
        let (latency, uses) = if sm >= 90 && machine.resource("tma").is_some() && producer {
            (TMA_LATENCY, vec![ResourceUse { resource: res("tma"), start: 0, cycles: TMA_ISSUE_CYCLES * loads }])
        } else {
            let busy = bytes.div_ceil(LSU_BYTES_PER_CYCLE).clamp(1, 1 << 16) as u32;
            (LSU_LATENCY, vec![ResourceUse { resource: res("lsu"), start: 0, cycles: busy }])
        };
        return OpNode { name, latency, uses, work: 1 };
    }
    if matches!(d.kind.ct(), Some(CtOp::MmaF | CtOp::MmaI)) && d.operands.len() >= 2 {
        let a = tile_shape(m, d.operands[0]);
        let b = tile_shape(m, d.operands[1]);
        let (mm, k) = match a.as_slice() {
            [.., mm, k] => (*mm, *k),
            _ => (1, 1),
        };
        let n = b.last().copied().unwrap_or(1);
        let batch: i64 = a.iter().rev().skip(2).product();
        let fmas = (batch.max(1) as u64) * (mm.max(1) as u64) * (n.max(1) as u64) * (k.max(1) as u64);
        let busy = fmas.div_ceil(TENSOR_FMAS_PER_CYCLE).clamp(1, 1 << 16) as u32;
        return OpNode {
            name,
            latency: busy + MMA_PIPELINE_LATENCY,
            uses: vec![ResourceUse { resource: res("tensor_core"), start: 0, cycles: busy }],
            work: 1,
        };
    }
    OpNode { name, latency: ALU_LATENCY, uses: vec![ResourceUse { resource: res("alu"), start: 0, cycles: 1 }], work: 1 }
}

/// Finds the stage-0 producer and a consumer of its pipeline at the top level of `l`'s body.
fn prepared(m: &Module, l: &ForLoop) -> Option<(OpId, OpId)> {
    let ops = &m.blocks[l.body].ops;
    let produce = *ops.iter().find(|&&o| producer_tag(m, o) == Some(Some(0)))?;
    let pipe = m.ops[produce].operands[0];
    let consume = *ops.iter().find(|&&o| consumer_tag(m, o).is_some() && m.ops[o].operands.first() == Some(&pipe))?;
    Some((produce, consume))
}

/// The dependence graph of a prepared loop body (see the module docs).
pub(crate) fn loop_body(m: &Module, l: &ForLoop, produce: OpId, consume: OpId, machine: &Machine, sm: u32) -> (Vec<OpId>, LoopBody) {
    let term = l.terminator(m);
    let nodes: Vec<OpId> = m.blocks[l.body].ops.iter().copied().filter(|&o| Some(o) != term).collect();
    let index: HashMap<OpId, usize> = nodes.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let ops: Vec<OpNode> = nodes.iter().map(|&o| node_model(m, o, machine, sm)).collect();
    // (from, to, distance) -> latency, ordered so the graph is deterministic.
    let mut deps: BTreeMap<(usize, usize, u32), u32> = BTreeMap::new();
    let mut add = |from: usize, to: usize, distance: u32, lat: u32| {
        let e = deps.entry((from, to, distance)).or_insert(0);
        *e = (*e).max(lat);
    };
    for (j, &op) in nodes.iter().enumerate() {
        let mut used = m.ops[op].operands.clone();
        used.extend(captured_values(m, op));
        for v in used {
            let def = match m.values[v].def {
                ValueDef::OpResult { op: d, .. } => index.get(&d).map(|&i| (i, 0)),
                ValueDef::BlockArg { .. } => l.carried.iter().position(|&c| c == v).and_then(|k| {
                    let next = term.and_then(|t| m.ops[t].operands.get(k).copied())?;
                    let d = m.defining_op(next)?;
                    index.get(&d).map(|&i| (i, 1))
                }),
            };
            if let Some((i, distance)) = def {
                if distance == 1 || i != j {
                    add(i, j, distance, ops[i].latency);
                }
            }
        }
    }
    if let (Some(&p), Some(&c)) = (index.get(&produce), index.get(&consume)) {
        add(p, c, 0, ops[p].latency);
    }
    let deps = deps.into_iter().map(|((from, to, distance), latency)| Dep { from, to, latency, distance }).collect();
    (nodes, LoopBody { ops, deps })
}

/// The schedule analysis: one [`LoopSchedule`] per prepared loop of every function without
/// agents, in walk order. Reads the IR only.
pub fn analyze(m: &Module, strategy: Strategy, sm: u32) -> Result<Vec<LoopSchedule>, Diagnostics> {
    let strategy = strategy.resolve(sm);
    let mut machine = if sm >= 90 { Machine::hopper() } else { Machine::pre_hopper() };
    machine.sm = sm;
    let smem = if sm >= 90 { SMEM_BYTES_SM90 } else { SMEM_BYTES_PRE_SM90 };
    let mut out = Vec::new();
    let funcs: Vec<OpId> = m.blocks[m.body].ops.iter().copied().filter(|&f| is_func(m, f)).collect();
    for f in funcs {
        if has_agents(m, f) {
            continue;
        }
        for op in walk_op(m, f) {
            let Some(l) = ForLoop::of(m, op) else { continue };
            let Some((produce, consume)) = prepared(m, &l) else { continue };
            let (nodes, body) = loop_body(m, &l, produce, consume, &machine, sm);
            let entry_bytes: u64 = m
                .entry_block(produce, 0)
                .map_or(0, |b| m.blocks[b].args.iter().map(|&a| type_bytes(m, m.value_type(a))).sum::<u64>())
                .max(1);
            let max_stages = (smem / entry_bytes).clamp(1, u64::from(MAX_PIPELINE_STAGES)) as u32;
            let opts = ScheduleOptions { max_stages: Some(max_stages), trip_count: None, ..ScheduleOptions::default() };
            let record = tileir_sched::schedule(&body, &machine, strategy, opts).map_err(|e| {
                Diagnostics::one(Diagnostic::error(m.op_location(op), format!("{NAME}: cannot schedule loop: {e}")))
            })?;
            out.push(LoopSchedule { func: f, loop_op: op, produce, consume, nodes, body, strategy, record });
        }
    }
    Ok(out)
}

/// What [`materialize`] did to one loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Strategy `none`: untouched.
    Untouched,
    /// One stage: only the record was attached.
    Serial,
    /// Stamped for `tileas-unspecialized-pipeline`.
    Aus,
    /// Split into producer and consumer agents.
    Aws {
        /// The emitted `agent_switch`.
        agent_switch: OpId,
        /// The final dual-SIMT decision (the heuristic and the option).
        dual_simt: bool,
        /// Whether the consumer was split into two agents (dual SIMT feasible).
        split: bool,
    },
    /// AWS was chosen but the partition is impossible: left synchronous.
    Fallback,
}

/// The spec's stage-2 alias check: the loop's pipeline has no producer/consumer-like user
/// but the loop's own producer (tag 0) and consumer (tag >= 1).
fn alias_check(m: &Module, s: &LoopSchedule) -> Result<(), Diagnostic> {
    let pipe = m.ops[s.produce].operands[0];
    if consumer_tag(m, s.consume).flatten().is_none_or(|t| t == 0) {
        return Err(Diagnostic::error(m.op_location(s.consume), ALIAS_NOT_EXPECTED));
    }
    for o in m.walk() {
        if o != s.produce && o != s.consume && is_pipeline_user(&m.ops[o].kind) && m.ops[o].operands.first() == Some(&pipe) {
            return Err(Diagnostic::error(m.op_location(o), ALIAS_NOT_EXPECTED));
        }
    }
    Ok(())
}

fn record_attr(s: &LoopSchedule, r: &ScheduleRecord, driver: &str, dual: bool, rewrite: bool) -> Attr {
    let ints = |f: &dyn Fn(&tileir_sched::OpSlot) -> u32| Attr::IntArray(r.ops.iter().map(|o| i64::from(f(o))).collect());
    Attr::Dict(vec![
        ("strategy".into(), Attr::Str(r.strategy.as_str().into())),
        ("driver".into(), Attr::Str(driver.into())),
        ("ii".into(), Attr::Int(r.ii.into())),
        ("num_stages".into(), Attr::Int(if r.num_stages > 1 { s.pipeline_stages() } else { 1 }.into())),
        ("consumer_stage".into(), Attr::Int(s.lead().into())),
        ("total_work".into(), Attr::Int(i64::try_from(r.total_work).unwrap_or(i64::MAX))),
        ("iters".into(), Attr::Int(r.iters)),
        ("mii".into(), Attr::Int(r.mii.into())),
        ("res_mii".into(), Attr::Int(r.res_mii.into())),
        ("rec_mii".into(), Attr::Int(r.rec_mii.into())),
        ("use_dual_simt".into(), Attr::Bool(dual)),
        ("schedule_rewrite".into(), Attr::Bool(rewrite)),
        ("cycles".into(), ints(&|o| o.cycle)),
        ("stages".into(), ints(&|o| o.stage)),
    ])
}

fn stamp(m: &mut Module, loop_op: OpId, attr: Attr) {
    if let OpKind::CudaTile(ct) = &mut m.ops[loop_op].kind {
        ct.discardable.retain(|(k, _)| k != SCHEDULE_ATTR);
        ct.discardable.push((SCHEDULE_ATTR.into(), attr));
    }
}

/// The stamped stage count of a loop, if [`SCHEDULE_ATTR`] is on it.
pub fn stamped_stages(m: &Module, loop_op: OpId) -> Option<u32> {
    let ct = m.ops[loop_op].kind.cuda_tile()?;
    let (_, Attr::Dict(fields)) = ct.discardable.iter().find(|(k, _)| k == SCHEDULE_ATTR)? else { return None };
    match fields.iter().find(|(k, _)| k == "num_stages")?.1 {
        Attr::Int(n) => Some(n.clamp(0, 64) as u32),
        _ => None,
    }
}

fn set_consumer_stage(m: &mut Module, consume: OpId, stage: u32) {
    if let OpKind::TileAs(TileAsOp::ConsumeOne { tag, .. }) = &mut m.ops[consume].kind {
        *tag = StageTag { pipeline_stage: Some(stage) };
    }
}

/// The materializer: applies each record. Returns what happened to each loop (same order).
pub fn materialize(m: &mut Module, schedules: &[LoopSchedule], options: &MaterializeScheduleOptions) -> Result<Vec<Outcome>, Diagnostics> {
    let mut outcomes = Vec::new();
    let mut aws_funcs: HashSet<OpId> = HashSet::new();
    for s in schedules {
        let Some(r) = &s.record else {
            outcomes.push(Outcome::Untouched);
            continue;
        };
        alias_check(m, s).map_err(Diagnostics::one)?;
        if r.num_stages <= 1 {
            stamp(m, s.loop_op, record_attr(s, r, "serial", false, options.enable_schedule_rewrite));
            outcomes.push(Outcome::Serial);
            continue;
        }
        match choose_driver(r, options) {
            Driver::Aus => {
                apply_stages(m, s);
                stamp(m, s.loop_op, record_attr(s, r, "AUS", false, options.enable_schedule_rewrite));
                outcomes.push(Outcome::Aus);
            }
            Driver::Aws { dual_simt } => {
                let plan = if aws_funcs.contains(&s.func) { None } else { AwsPlan::new(m, s, options.sm) };
                let Some(plan) = plan else {
                    outcomes.push(Outcome::Fallback);
                    continue;
                };
                apply_stages(m, s);
                stamp(m, s.loop_op, record_attr(s, r, "AWS", dual_simt, options.enable_schedule_rewrite));
                let mut sw = plan.emit(m);
                let mut split = false;
                if dual_simt {
                    if let Some(new) = dual_simt::split(m, sw, s.loop_op, s.consume) {
                        sw = new;
                        split = true;
                        let mut attr = record_attr(s, r, "AWS", dual_simt, options.enable_schedule_rewrite);
                        if let Attr::Dict(fields) = &mut attr {
                            fields.push(("dual_simt_split".into(), Attr::Bool(true)));
                        }
                        for o in walk_op(m, sw) {
                            if stamped_stages(m, o).is_some() {
                                stamp(m, o, attr.clone());
                            }
                        }
                    }
                }
                aws_funcs.insert(s.func);
                outcomes.push(Outcome::Aws { agent_switch: sw, dual_simt, split });
            }
        }
    }
    Ok(outcomes)
}

/// Consumer tag = the schedule's lead, pipeline re-typed to the stage count.
fn apply_stages(m: &mut Module, s: &LoopSchedule) {
    set_consumer_stage(m, s.consume, s.lead());
    let pipe = m.ops[s.produce].operands[0];
    retype_pipeline_stages(m, pipe, s.pipeline_stages());
}

/// A feasible AWS partition of one loop.
struct AwsPlan {
    loop_op: OpId,
    produce: OpId,
    /// Index (in the body's op list) of the ops the producer agent keeps.
    keep: HashSet<usize>,
    /// Carried-value index of the producer iterator.
    itp: usize,
    /// Ops after the loop that move into the consumer agent.
    tail: Vec<OpId>,
    agents: Vec<AgentSpec>,
}

impl AwsPlan {
    fn new(m: &Module, s: &LoopSchedule, sm: u32) -> Option<AwsPlan> {
        let l = ForLoop::of(m, s.loop_op)?;
        let term = l.terminator(m)?;
        let entry = m.entry_block(s.func, 0)?;
        if m.ops[s.loop_op].parent != Some(entry) {
            return None;
        }
        let ops = &m.blocks[entry].ops;
        let ret = *ops.last()?;
        if !matches!(m.ops[ret].kind, OpKind::TileAa(TileAaOp::Return)) || !m.ops[ret].operands.is_empty() {
            return None;
        }
        let pos = ops.iter().position(|&o| o == s.loop_op)?;
        let tail = ops[pos + 1..ops.len() - 1].to_vec();
        // The producer token result must be unused: the consumer side will not have it.
        if m.ops[s.produce].results.iter().any(|&r| m.walk().iter().any(|&o| m.ops[o].operands.contains(&r))) {
            return None;
        }
        let itp = l.carried.iter().position(|&c| c == m.ops[s.produce].operands[1])?;
        // The producer slice: the producer, its iterator update and what they read inside
        // the body, which may only be pure ops, the induction variable and the producer
        // iterator.
        let body = &m.blocks[l.body].ops;
        let mut keep: HashSet<usize> = HashSet::new();
        let mut work: Vec<OpId> = vec![s.produce];
        work.extend(m.defining_op(m.ops[term].operands[itp]).filter(|d| m.ops[*d].parent == Some(l.body)));
        while let Some(op) = work.pop() {
            let i = body.iter().position(|&o| o == op)?;
            if !keep.insert(i) {
                continue;
            }
            if op != s.produce && (op == s.consume || !m.ops[op].regions.is_empty() || has_side_effects(m, op)) {
                return None;
            }
            let mut used = m.ops[op].operands.clone();
            used.extend(captured_values(m, op));
            for v in used {
                if v == l.iv || v == l.carried[itp] {
                    continue;
                }
                match m.values[v].def {
                    ValueDef::BlockArg { block, .. } if block == l.body => return None,
                    ValueDef::OpResult { op: d, .. } if m.ops[d].parent == Some(l.body) => work.push(d),
                    _ => {
                        if crate::pipeline_util::defined_inside(m, v, s.loop_op) && !crate::pipeline_util::defined_inside(m, v, op) {
                            return None;
                        }
                    }
                }
            }
        }
        let warps = match &m.ops[s.func].kind {
            OpKind::TileAa(TileAaOp::Func { num_warps, .. }) => num_warps.unwrap_or(4),
            _ => 4,
        };
        if warps + 1 > 32 {
            return None;
        }
        let (preg, creg) = if sm >= 90 {
            let left = REGISTER_FILE - PRODUCER_REGISTERS * 32;
            let c = (left / (32 * warps) / 8 * 8).min(MAX_CONSUMER_REGISTERS);
            if c < 24 {
                return None;
            }
            (PRODUCER_REGISTERS, c)
        } else {
            (0, 0)
        };
        let agents = vec![AgentSpec { num_warps: 1, registers: preg }, AgentSpec { num_warps: warps, registers: creg }];
        Some(AwsPlan { loop_op: s.loop_op, produce: s.produce, keep, itp, tail, agents })
    }

    /// Emits the `agent_switch`; returns it.
    fn emit(self, m: &mut Module) -> OpId {
        let loc = m.ops[self.loop_op].loc;
        let sw = m.create_op(OpKind::TileAs(TileAsOp::AgentSwitch { agents: self.agents.clone() }), vec![], &[], loc);
        m.insert_op_before(self.loop_op, sw);
        let (r0, r1) = (m.ops[sw].regions[0], m.ops[sw].regions[1]);
        let pblock = m.add_block(r0, &[]);
        let cblock = m.add_block(r1, &[]);
        // Producer agent: a copy of the loop with only the producer slice.
        let mut map = HashMap::new();
        let pl = m.clone_op(self.loop_op, &mut map);
        m.append_op(pblock, pl);
        let y = m.create_op(OpKind::TileAs(TileAsOp::PipelineYield), vec![], &[], loc);
        m.append_op(pblock, y);
        let p = ForLoop::of(m, pl).expect("a clone of a for");
        let pterm = p.terminator(m).expect("a clone of a prepared loop");
        for k in 0..p.carried.len() {
            if k != self.itp {
                m.ops[pterm].operands[k] = p.carried[k];
            }
        }
        let pbody: Vec<OpId> = m.blocks[p.body].ops.clone();
        for (i, &o) in pbody.iter().enumerate().rev() {
            if o != pterm && !self.keep.contains(&i) {
                m.detach_op(o);
            }
        }
        // Consumer agent: the loop without the producer, then the rest of the function.
        let c = ForLoop::of(m, self.loop_op).expect("prepared loop");
        let cterm = c.terminator(m).expect("prepared loop");
        m.ops[cterm].operands[self.itp] = c.carried[self.itp];
        m.detach_op(self.produce);
        dead_code(m, c.body);
        m.detach_op(self.loop_op);
        m.append_op(cblock, self.loop_op);
        for &o in &self.tail {
            m.detach_op(o);
            m.append_op(cblock, o);
        }
        let y = m.create_op(OpKind::TileAs(TileAsOp::PipelineYield), vec![], &[], loc);
        m.append_op(cblock, y);
        sw
    }
}

/// Removes unused side-effect-free ops without regions from `block` (to a fixpoint).
fn dead_code(m: &mut Module, block: tileir_ir::BlockId) {
    loop {
        let counts = m.use_counts();
        let dead: Vec<OpId> = m.blocks[block]
            .ops
            .iter()
            .copied()
            .filter(|&o| {
                let d = &m.ops[o];
                !d.results.is_empty()
                    && d.regions.is_empty()
                    && !has_side_effects(m, o)
                    && d.results.iter().all(|r| counts.get(r).copied().unwrap_or(0) == 0)
            })
            .collect();
        if dead.is_empty() {
            return;
        }
        for o in dead {
            m.detach_op(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tileir_pass::PassManager;

    fn rec(num_stages: u32, total_work: u64) -> ScheduleRecord {
        ScheduleRecord {
            strategy: Strategy::CostBased,
            ii: 1,
            num_stages,
            total_work,
            iters: -1,
            mii: 1,
            res_mii: 1,
            rec_mii: 1,
            ops: vec![],
        }
    }

    #[test]
    fn driver_choice_at_the_heuristic_boundary() {
        let o = MaterializeScheduleOptions::default();
        // 4 > 6 * 0.6 = 3.6: dual SIMT pays off, AWS; 4 > 7 * 0.6 = 4.2 does not, AUS.
        assert_eq!(choose_driver(&rec(4, 6), &o), Driver::Aws { dual_simt: true });
        assert_eq!(choose_driver(&rec(4, 7), &o), Driver::Aus);
        // 6 > 10 * 0.6 = 6 is false: the comparison is strict.
        assert_eq!(choose_driver(&rec(6, 10), &o), Driver::Aus);
        assert_eq!(choose_driver(&rec(7, 10), &o), Driver::Aws { dual_simt: true });
        let aus = MaterializeScheduleOptions { use_aus: true, ..o.clone() };
        assert_eq!(choose_driver(&rec(4, 6), &aus), Driver::Aus);
        let single = MaterializeScheduleOptions { use_dual_simt: false, ..o };
        assert_eq!(choose_driver(&rec(4, 6), &single), Driver::Aws { dual_simt: false });
    }

    /// A matmul K loop with `extra` additions of zero to the accumulator after the MMA.
    fn matmul(extra: usize) -> String {
        let mut body = String::from("      %r0 = mmaf %va, %vb, %x : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>\n");
        for i in 0..extra {
            body.push_str(&format!("      %r{} = addf %r{i}, %zero : tile<16x16xf32>\n", i + 1));
        }
        format!(
            r#"cuda_tile.module @kernels {{
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %k: tile<i32>) {{
    %ta = make_tensor_view %a, shape = [16, %k], strides = [%k, 1] : tile<i32> -> tensor_view<16x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf16, strides=[16,1]>
    %pa = make_partition_view %ta : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x16xf16, strides=[16,1]>>
    %sp:2 = get_index_space_shape %pa : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf16, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<16x16xf32>
    %lb = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%lb to %sp#1, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<16x16xf32>) {{
      %va, %t0 = load_view_tko weak %pa[%lb, %kk] : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      %vb, %t1 = load_view_tko weak %pb[%kk, %lb] : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x16xf16, strides=[16,1]>>, tile<i32> -> tile<16x16xf16>, token
{body}      continue %r{extra} : tile<16x16xf32>
    }}
    return
  }}
}}"#
        )
    }

    fn prepared_module(extra: usize) -> Module {
        let mut m = tileir_syntax::parse_module(&matmul(extra), &tileir_syntax::ParseOptions::default()).expect("parses");
        PassManager::from_pipeline(
            "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async",
            &crate::registry(),
        )
        .expect("pipeline")
        .run(&mut m)
        .expect("lowers");
        m
    }

    fn agent_switches(m: &Module) -> usize {
        m.walk().into_iter().filter(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::AgentSwitch { .. }))).count()
    }

    #[test]
    fn the_pass_applies_the_heuristic_to_the_analysed_schedule() {
        let opts = MaterializeScheduleOptions::default();
        // Plain matmul: 5 nodes (producer, 2 inc_iter, consumer, mma) -> dual SIMT pays off.
        // With 10 more ALU ops the work per iteration outweighs the stages -> AUS.
        for (extra, dual) in [(0, true), (10, false)] {
            let mut m = prepared_module(extra);
            let s = analyze(&m, Strategy::Default, 90).expect("schedules");
            assert_eq!(s.len(), 1);
            let r = s[0].record.clone().expect("cost_based record");
            assert_eq!(r.strategy, Strategy::CostBased);
            assert_eq!(r.total_work, 5 + extra as u64);
            assert!(r.num_stages >= 2);
            assert_eq!(r.use_dual_simt(), dual, "{r:?}");
            let out = materialize(&mut m, &s, &opts).expect("materializes");
            if dual {
                assert!(matches!(out[0], Outcome::Aws { dual_simt: true, .. }), "{out:?}");
                assert_eq!(agent_switches(&m), 1);
            } else {
                assert_eq!(out, vec![Outcome::Aus]);
                assert_eq!(agent_switches(&m), 0);
                assert_eq!(stamped_stages(&m, s[0].loop_op), Some(s[0].pipeline_stages()));
                assert_eq!(consumer_tag(&m, s[0].consume), Some(Some(s[0].lead())));
            }
            tileir_verify::verify(&m).expect("verifies");
        }
    }

    #[test]
    fn dual_simt_splits_the_consumer_when_asked_and_feasible() {
        let agents = |m: &Module| -> Vec<u32> {
            m.walk()
                .into_iter()
                .filter_map(|o| match &m.ops[o].kind {
                    OpKind::TileAs(TileAsOp::AgentSwitch { agents }) => Some(agents.iter().map(|a| a.num_warps)),
                    _ => None,
                })
                .flatten()
                .collect()
        };
        for (dual, want_split, warps) in [(true, true, vec![1, 1, 1]), (false, false, vec![1, 2])] {
            let mut m = prepared_module(0);
            let s = analyze(&m, Strategy::Default, 90).expect("schedules");
            let opts = MaterializeScheduleOptions { use_dual_simt: dual, ..MaterializeScheduleOptions::default() };
            let out = materialize(&mut m, &s, &opts).expect("materializes");
            assert!(matches!(out[0], Outcome::Aws { dual_simt, split, .. } if dual_simt == dual && split == want_split), "{out:?}");
            assert_eq!(agents(&m), warps);
            let consumers: Vec<u32> = m
                .walk()
                .into_iter()
                .filter_map(|o| match &m.ops[o].kind {
                    OpKind::TileAs(TileAsOp::ConsumeOne { consumer_idx, .. }) => Some(*consumer_idx),
                    _ => None,
                })
                .collect();
            assert_eq!(consumers, if want_split { vec![0, 1] } else { vec![0] });
            tileir_verify::verify(&m).expect("verifies");
        }
    }

    #[test]
    fn the_dependence_graph_follows_the_documented_model() {
        let m = prepared_module(0);
        let s = &analyze(&m, Strategy::Fast, 90).expect("schedules")[0];
        let names: Vec<&str> = s.body.ops.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "nv_tileas.async.pipeline.produce_one_async",
                "nv_tileas.async.pipeline.inc_iter",
                "nv_tileas.async.pipeline.consume_one",
                "nv_tileas.async.pipeline.inc_iter",
                "cuda_tile.mmaf"
            ]
        );
        assert_eq!(s.body.ops[0].latency, TMA_LATENCY);
        // 16·16·16 multiply-adds at 256 per cycle.
        assert_eq!(s.body.ops[4].latency, 16 + MMA_PIPELINE_LATENCY);
        let has = |from, to, distance| s.body.deps.iter().any(|d| d.from == from && d.to == to && d.distance == distance);
        assert!(has(0, 2, 0), "pipeline edge");
        assert!(has(2, 4, 0), "consumed tiles feed the mma");
        assert!(has(4, 4, 1), "accumulator carried");
        assert!(has(1, 0, 1) && has(3, 2, 1), "iterators carried");
        // Pre-Hopper: the load goes through the load/store units, DEFAULT is SERIAL.
        let old = &analyze(&m, Strategy::Default, 80).expect("schedules")[0];
        assert_eq!(old.body.ops[0].latency, LSU_LATENCY);
        assert_eq!(old.record.as_ref().map(|r| (r.strategy, r.num_stages)), Some((Strategy::Serial, 1)));
        assert!(analyze(&m, Strategy::None, 90).expect("no schedule")[0].record.is_none());
    }

    #[test]
    fn a_bad_strategy_lists_the_accepted_ones() {
        let o = MaterializeScheduleOptions::parse(&[("strategy".into(), "greedy".into())]).expect("any string parses");
        let e = MaterializeSchedule::new(o).err().expect("rejected");
        for s in ["none", "serial", "cost_based", "fast", "default", "greedy"] {
            assert!(e.contains(s), "{e}");
        }
    }
}
