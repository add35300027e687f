//! The schedulers (serial list scheduling, iterative modulo scheduling, cost-based selection)
//! and the record they publish.

use crate::mii::{rec_mii, res_mii};
use crate::model::{
    validate, zero_distance_topo, Graph, LoopBody, Machine, OpNode, SchedError, MAX_SCHEDULE_LENGTH,
};
use crate::strategy::{ScheduleOptions, Strategy};
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// Trip count COST_BASED assumes when [`ScheduleOptions::trip_count`] is unknown: long enough
/// that the steady state dominates, short enough that prologue/epilogue still count.
pub const DEFAULT_TRIP_COUNT: u64 = 64;

/// Cycles COST_BASED charges per stage beyond the first: every extra stage needs one more set
/// of pipeline buffers (allocation, barrier init) and lengthens prologue and epilogue code, a
/// fixed cost the `II * (iters + stages - 1)` term does not see.
pub const STAGE_PENALTY: u64 = 32;

/// How many consecutive IIs from MII up FAST tries one by one before it gallops.
pub const LINEAR_TRIES: u32 = 16;

/// How many IIs above the first feasible one COST_BASED also tries.
pub const COST_WINDOW: u32 = 8;

/// Where one op of the loop body issues in the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSlot {
    /// Issue cycle within the flat schedule of one iteration (starts at 0).
    pub cycle: u32,
    /// Pipeline stage: `cycle / ii`.
    pub stage: u32,
    /// Cycle within the II window: `cycle % ii`.
    pub iter_offset: u32,
    /// Position of the op in the kernel's emission order: ops are emitted sorted by
    /// `iter_offset`, and among ops with the same offset this rank puts the producer of every
    /// zero-latency dependence that issues in the same cycle first. The materializing pass
    /// needs it because a record alone does not say which of two same-cycle ops comes first.
    pub order: u32,
}

/// The published schedule: everything the materializing pass needs, so it never recomputes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleRecord {
    /// The strategy that produced it (never [`Strategy::Default`] or [`Strategy::None`]).
    pub strategy: Strategy,
    /// Initiation interval: cycles between the starts of consecutive iterations.
    pub ii: u32,
    /// Number of stages (`max stage + 1`).
    pub num_stages: u32,
    /// Sum of [`OpNode::work`] over the body.
    pub total_work: u64,
    /// Trip count, or -1 when unknown.
    pub iters: i64,
    /// `max(res_mii, rec_mii)`.
    pub mii: u32,
    /// Resource bound.
    pub res_mii: u32,
    /// Recurrence bound.
    pub rec_mii: u32,
    /// Per op, in op order.
    pub ops: Vec<OpSlot>,
}

impl ScheduleRecord {
    /// The dual-SIMT heuristic of the downstream pass, reproduced bit for bit:
    /// `(N as f64) > ((total_work / iters) as f64) * 0.6` with `N = num_stages`, where the
    /// division is an integer division and `iters` is first clamped to 1 when it is not
    /// positive (so an unknown trip count, -1, divides by 1, and so does 0). Note the integer
    /// division truncates before the 0.6 factor is applied: `total_work = 19, iters = 10` gives
    /// `1 * 0.6`, not `1.9 * 0.6`.
    pub fn use_dual_simt(&self) -> bool {
        let iters = if self.iters <= 0 { 1 } else { self.iters };
        // `iters` is positive here, so the conversion is lossless.
        let per_iter = self.total_work / iters.unsigned_abs();
        f64::from(self.num_stages) > (per_iter as f64) * 0.6
    }
}

/// Computes a schedule for `body` on `machine`.
///
/// [`Strategy::Default`] is resolved with [`Machine::sm`]; [`Strategy::None`] returns
/// `Ok(None)` (after validation, so bad input is still reported). Deterministic: the same
/// input always yields the same record.
pub fn schedule(
    body: &LoopBody,
    machine: &Machine,
    strategy: Strategy,
    opts: ScheduleOptions,
) -> Result<Option<ScheduleRecord>, SchedError> {
    validate(body, machine)?;
    let strategy = strategy.resolve(machine.sm);
    if strategy == Strategy::None {
        return Ok(None);
    }
    let ctx = Ctx::new(body, machine, &opts);
    let serial = ctx.serial()?;
    let (ii, times) = match strategy {
        Strategy::Fast => ctx.fast(ctx.mii, &serial),
        Strategy::CostBased => ctx.cost_based(&serial),
        _ => (serial.ii, serial.times.clone()),
    };
    Ok(Some(ctx.record(strategy, ii, &times)))
}

/// A serial schedule of one iteration: always a valid modulo schedule at `II = ii`.
struct Serial {
    ii: u32,
    times: Vec<i64>,
}

/// Footprint of an op in a (modulo or linear) reservation table: `(resource, slot relative to
/// the issue cycle, units)`, merged per (resource, slot).
type Footprint = Vec<(usize, u32, u32)>;

struct Ctx<'a> {
    body: &'a LoopBody,
    machine: &'a Machine,
    g: Graph,
    topo: Vec<usize>,
    res_mii: u32,
    rec_mii: u32,
    mii: u32,
    budget: usize,
    max_stages: u32,
    iters: i64,
    trip_for_cost: u64,
}

impl<'a> Ctx<'a> {
    fn new(body: &'a LoopBody, machine: &'a Machine, opts: &ScheduleOptions) -> Self {
        let g = Graph::new(body);
        // Validation already rejected zero-distance cycles.
        let topo = zero_distance_topo(body, &g).unwrap_or_else(|_| (0..body.ops.len()).collect());
        let res = res_mii(body, machine);
        let rec = rec_mii(body);
        let n = body.ops.len();
        Ctx {
            body,
            machine,
            g,
            topo,
            res_mii: res,
            rec_mii: rec,
            mii: res.max(rec).max(1),
            budget: n.saturating_mul(opts.budget_ratio.max(1) as usize).max(1),
            max_stages: opts.max_stages.map_or(u32::MAX, |m| m.max(1)),
            iters: opts
                .trip_count
                .map_or(-1, |t| i64::try_from(t).unwrap_or(i64::MAX)),
            trip_for_cost: opts.trip_count.unwrap_or(DEFAULT_TRIP_COUNT),
        }
    }

    /// Priority heights at `ii` (Rau's HeightR): the longest path to the end of the iteration
    /// with loop-carried edges weighted `latency - ii * distance`. Starting from the op's own
    /// latency, passes in reverse topological order of the distance-0 graph converge in one pass
    /// for the acyclic part; loop-carried edges rarely need a second. Heights only order the
    /// work, so the pass count is capped instead of iterated to a fixed point on huge inputs.
    fn heights(&self, ii: i64) -> Vec<i64> {
        let mut h: Vec<i64> = self.body.ops.iter().map(|o| i64::from(o.latency)).collect();
        for _ in 0..64 {
            let mut changed = false;
            for &u in self.topo.iter().rev() {
                for &e in &self.g.succs[u] {
                    let d = &self.body.deps[e];
                    // Saturating: the serial pass asks for heights at an "infinite" II.
                    let cand = (h[d.to] + i64::from(d.latency))
                        .saturating_sub(ii.saturating_mul(i64::from(d.distance)));
                    if cand > h[u] {
                        h[u] = cand;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        h
    }

    /// List-schedules one iteration (distance-0 dependences and resources, no overlap between
    /// iterations) and sets II to its length: the time the last op is done, the last resource
    /// is released or the last dependence latency has elapsed. That length covers every
    /// loop-carried dependence (`t_to + d * ii >= ii >= t_from + latency`), and no two cycles
    /// of one iteration share a modulo slot, so the result is a valid modulo schedule.
    fn serial(&self) -> Result<Serial, SchedError> {
        let n = self.body.ops.len();
        let h = self.heights(i64::from(u32::MAX));
        let units: Vec<u32> = self.machine.resources.iter().map(|r| r.units).collect();
        let fps: Vec<Footprint> = self.body.ops.iter().map(linear_footprint).collect();
        let mut count: Vec<Vec<u32>> = vec![Vec::new(); units.len()];
        // First slot of each resource that is not full: no op can use that resource earlier,
        // which skips the packed prefix instead of rescanning it for every op.
        let mut first_free = vec![0usize; units.len()];
        let mut indeg = vec![0usize; n];
        for d in self.body.deps.iter().filter(|d| d.distance == 0) {
            indeg[d.to] += 1;
        }
        let mut ready: BTreeSet<(Reverse<i64>, usize)> = (0..n)
            .filter(|&i| indeg[i] == 0)
            .map(|i| (Reverse(h[i]), i))
            .collect();
        let mut times = vec![0i64; n];
        let mut earliest = vec![0i64; n];
        let mut length: i64 = 1;
        while let Some((_, u)) = ready.pop_first() {
            let fp = &fps[u];
            let mut t = earliest[u];
            for &(r, rel, _) in fp {
                t = t.max(first_free[r] as i64 - i64::from(rel));
            }
            let fits = |count: &Vec<Vec<u32>>, t: i64| {
                fp.iter().all(|&(r, rel, a)| {
                    let s = (t + i64::from(rel)) as usize;
                    count[r].get(s).copied().unwrap_or(0) + a <= units[r]
                })
            };
            while !fits(&count, t) {
                t += 1;
            }
            for &(r, rel, a) in fp {
                let s = (t + i64::from(rel)) as usize;
                if count[r].len() <= s {
                    count[r].resize(s + 1, 0);
                }
                count[r][s] += a;
                while first_free[r] < count[r].len() && count[r][first_free[r]] >= units[r] {
                    first_free[r] += 1;
                }
            }
            times[u] = t;
            let op = &self.body.ops[u];
            let use_end = op
                .uses
                .iter()
                .map(|x| i64::from(x.start) + i64::from(x.cycles))
                .max()
                .unwrap_or(0);
            length = length.max(t + i64::from(op.latency).max(use_end).max(1));
            for &e in &self.g.succs[u] {
                let d = &self.body.deps[e];
                length = length.max(t + i64::from(d.latency));
                if d.distance == 0 {
                    earliest[d.to] = earliest[d.to].max(t + i64::from(d.latency));
                    indeg[d.to] -= 1;
                    if indeg[d.to] == 0 {
                        ready.insert((Reverse(h[d.to]), d.to));
                    }
                }
            }
            if length as u64 > MAX_SCHEDULE_LENGTH {
                return Err(SchedError::TooLong {
                    length: length as u64,
                    limit: MAX_SCHEDULE_LENGTH,
                });
            }
        }
        Ok(Serial {
            ii: length as u32,
            times,
        })
    }

    /// FAST: iterative modulo scheduling from `from_ii` upward, returning the first II found
    /// feasible whose schedule respects `max_stages`.
    ///
    /// Rau raises II by one after each failed attempt. That is what happens for the first
    /// [`LINEAR_TRIES`] IIs, which is where nearly every loop succeeds. Beyond them each attempt
    /// costs `budget_ratio * n` placements and the distance to the serial length can be
    /// thousands of cycles, so the search gallops (distance from the last failure doubling)
    /// until an attempt succeeds and then bisects back between that success and the failure
    /// below it: O(log) attempts instead of one per cycle. Feasibility is not strictly monotone
    /// in II for a heuristic scheduler, so past the linear phase the result is "an II whose
    /// predecessor failed" rather than provably the first. At the serial length the serial
    /// schedule (always valid, one stage) is used, which guarantees termination.
    fn fast(&self, from_ii: u32, serial: &Serial) -> (u32, Vec<i64>) {
        let attempt = |ii: u32| {
            self.ims(ii)
                .filter(|times| stages(times, ii) <= self.max_stages)
        };
        let linear_end = from_ii.saturating_add(LINEAR_TRIES).min(serial.ii);
        for ii in from_ii..linear_end {
            if let Some(times) = attempt(ii) {
                return (ii, times);
            }
        }
        if linear_end >= serial.ii {
            return (serial.ii, serial.times.clone());
        }
        // `lo` failed; find a success `hi` above it (the serial length at worst).
        let mut lo = linear_end - 1;
        let mut step = LINEAR_TRIES.max(1);
        let mut hi = loop {
            let ii = lo.saturating_add(step);
            if ii >= serial.ii {
                break (serial.ii, serial.times.clone());
            }
            if let Some(times) = attempt(ii) {
                break (ii, times);
            }
            lo = ii;
            step = step.saturating_mul(2);
        };
        while hi.0 - lo > 1 {
            let mid = lo + (hi.0 - lo) / 2;
            match attempt(mid) {
                Some(times) => hi = (mid, times),
                None => lo = mid,
            }
        }
        hi
    }

    /// COST_BASED: the first feasible II (as FAST finds it), up to [`COST_WINDOW`] IIs above
    /// it (stopping early once a one-stage schedule appears, since stages cannot shrink
    /// further), and the serial schedule; keeps the one with the smallest
    /// `ii * (iters + stages - 1) + STAGE_PENALTY * (stages - 1)`, ties to fewer stages, then
    /// to the smaller II.
    fn cost_based(&self, serial: &Serial) -> (u32, Vec<i64>) {
        let first = self.fast(self.mii, serial);
        let mut cands = vec![first.clone()];
        if first.0 < serial.ii {
            let mut ii = first.0 + 1;
            let mut tries = 0;
            while ii < serial.ii && tries < COST_WINDOW {
                tries += 1;
                if let Some(times) = self.ims(ii) {
                    let s = stages(&times, ii);
                    if s <= self.max_stages {
                        cands.push((ii, times));
                    }
                    if s == 1 {
                        break;
                    }
                }
                ii += 1;
            }
            cands.push((serial.ii, serial.times.clone()));
        }
        let key = |(ii, times): &(u32, Vec<i64>)| {
            let s = u64::from(stages(times, *ii));
            // u128: a trip count near u64::MAX must not overflow the estimate.
            let cost = u128::from(*ii) * (u128::from(self.trip_for_cost) + u128::from(s) - 1)
                + u128::from(STAGE_PENALTY) * u128::from(s - 1);
            (cost, s, *ii)
        };
        cands
            .into_iter()
            .min_by_key(key)
            .unwrap_or((serial.ii, serial.times.clone()))
    }

    /// One iterative-modulo-scheduling attempt at `ii` (Rau 1994). Returns issue times (shifted
    /// so the earliest is 0) or `None` when the budget runs out or `ii` cannot work at all.
    ///
    /// Unscheduled ops are taken highest HeightR first (index breaks ties). Each goes to the
    /// earliest cycle in `[Estart, Estart + ii - 1]` free in the modulo reservation table (later
    /// cycles repeat those slots); if there is none it is forced to Estart, or one past its
    /// previous cycle, and the ops it collides with, plus scheduled neighbours whose dependence
    /// it now violates, are evicted and queued again. Every placement spends one unit of the
    /// `budget_ratio * n` budget. Invariant: scheduled ops never conflict, so an empty queue
    /// is a valid schedule. Shifting all times by the same amount rotates every slot alike and
    /// keeps all dependences, so normalizing to 0 is free.
    fn ims(&self, ii: u32) -> Option<Vec<i64>> {
        let body = self.body;
        let n = body.ops.len();
        let iil = i64::from(ii);
        // A self-recurrence the II cannot satisfy would evict the op forever.
        if body
            .deps
            .iter()
            .any(|d| d.from == d.to && i64::from(d.latency) > iil * i64::from(d.distance))
        {
            return None;
        }
        let units: Vec<u32> = self.machine.resources.iter().map(|r| r.units).collect();
        let fps: Vec<Footprint> = body.ops.iter().map(|o| modulo_footprint(o, ii)).collect();
        // An op whose own reservations overlap modulo `ii` beyond the units can never be placed.
        if fps
            .iter()
            .any(|fp| fp.iter().any(|&(r, _, a)| a > units[r]))
        {
            return None;
        }
        let h = self.heights(iil);
        let mut mrt = Mrt::new(ii, &units);
        let mut time: Vec<Option<i64>> = vec![None; n];
        let mut prev: Vec<Option<i64>> = vec![None; n];
        let mut todo: BTreeSet<(Reverse<i64>, usize)> =
            (0..n).map(|i| (Reverse(h[i]), i)).collect();
        let mut budget = self.budget;
        while let Some(&(_, op)) = todo.first() {
            if budget == 0 {
                return None;
            }
            budget -= 1;
            todo.pop_first();
            // Earliest start from the scheduled predecessors only (Rau's Estart).
            let mut estart = 0i64;
            for &e in &self.g.preds[op] {
                let d = &body.deps[e];
                if d.from == op {
                    continue;
                }
                if let Some(tf) = time[d.from] {
                    estart = estart.max(tf + i64::from(d.latency) - iil * i64::from(d.distance));
                }
            }
            let fp = &fps[op];
            let slot = mrt.earliest_fit(fp, estart);
            let t = match slot {
                Some(t) => t,
                // Forced placement; moving past the previous attempt's slot keeps a pair of
                // ops from evicting each other back and forth at the same cycles.
                None => match prev[op] {
                    Some(p) if estart <= p => p + 1,
                    _ => estart,
                },
            };
            let mut evict = |v: usize, time: &mut Vec<Option<i64>>, mrt: &mut Mrt| {
                if let Some(tv) = time[v].take() {
                    mrt.release(v, &fps[v], tv);
                    todo.insert((Reverse(h[v]), v));
                }
            };
            // Evict just enough occupants of each over-full slot, oldest placement first (a
            // deterministic choice that spreads evictions instead of repeatedly undoing the most
            // recent decision).
            for &(r, rel, a) in fp {
                let s = mrt.slot(t, rel);
                while mrt.count[r][s] + a > units[r] {
                    let victim = mrt.occ[r][s][0] as usize;
                    evict(victim, &mut time, &mut mrt);
                }
            }
            for &e in &self.g.succs[op] {
                let d = &body.deps[e];
                if d.to == op {
                    continue;
                }
                if let Some(tt) = time[d.to] {
                    if tt + iil * i64::from(d.distance) < t + i64::from(d.latency) {
                        evict(d.to, &mut time, &mut mrt);
                    }
                }
            }
            for &e in &self.g.preds[op] {
                let d = &body.deps[e];
                if d.from == op {
                    continue;
                }
                if let Some(tf) = time[d.from] {
                    if t + iil * i64::from(d.distance) < tf + i64::from(d.latency) {
                        evict(d.from, &mut time, &mut mrt);
                    }
                }
            }
            mrt.reserve(op, fp, t);
            time[op] = Some(t);
            prev[op] = Some(t);
        }
        let times: Vec<i64> = time.into_iter().map(|t| t.unwrap_or(0)).collect();
        let min = times.iter().copied().min().unwrap_or(0);
        let times: Vec<i64> = times.into_iter().map(|t| t - min).collect();
        // Forced placements can drift far; a schedule that does not fit the record is no use.
        if times.iter().any(|&t| t as u64 > MAX_SCHEDULE_LENGTH) {
            return None;
        }
        Some(times)
    }

    fn record(&self, strategy: Strategy, ii: u32, times: &[i64]) -> ScheduleRecord {
        let cycles: Vec<u32> = times.iter().map(|&t| t as u32).collect();
        let order = emission_order(self.body, &cycles, ii);
        let ops = cycles
            .iter()
            .zip(order)
            .map(|(&c, o)| OpSlot {
                cycle: c,
                stage: c / ii,
                iter_offset: c % ii,
                order: o,
            })
            .collect();
        ScheduleRecord {
            strategy,
            ii,
            num_stages: stages(times, ii),
            total_work: self.body.ops.iter().map(|o| u64::from(o.work)).sum(),
            iters: self.iters,
            mii: self.mii,
            res_mii: self.res_mii,
            rec_mii: self.rec_mii,
            ops,
        }
    }
}

/// `max(time) / ii + 1` (1 for an empty body).
fn stages(times: &[i64], ii: u32) -> u32 {
    let max = times.iter().copied().max().unwrap_or(0);
    (max / i64::from(ii)) as u32 + 1
}

/// Whether dependence `d` makes its two instances issue in the very same cycle, so only the
/// emission order can keep the producer first.
pub(crate) fn same_cycle(
    cycles: &[u32],
    ii: u32,
    from: usize,
    to: usize,
    latency: u32,
    distance: u32,
) -> bool {
    latency == 0
        && u64::from(cycles[to]) + u64::from(ii) * u64::from(distance) == u64::from(cycles[from])
}

/// Ranks ops by `(iter_offset, topological order of the same-cycle zero-latency
/// dependences)`. Kahn's algorithm with the ready set keyed by `(iter_offset, index)`: those
/// edges only join ops of equal offset, so the pops come out sorted by offset. A cycle among
/// such edges would need a zero-distance cycle, which validation rejects; should one appear
/// anyway the remaining ops are appended by `(offset, index)` so the result stays total.
pub(crate) fn emission_order(body: &LoopBody, cycles: &[u32], ii: u32) -> Vec<u32> {
    let n = cycles.len();
    let off = |i: usize| cycles[i] % ii;
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    for d in &body.deps {
        if d.from < n
            && d.to < n
            && d.from != d.to
            && same_cycle(cycles, ii, d.from, d.to, d.latency, d.distance)
        {
            succ[d.from].push(d.to);
            indeg[d.to] += 1;
        }
    }
    let mut ready: BTreeSet<(u32, usize)> = (0..n)
        .filter(|&i| indeg[i] == 0)
        .map(|i| (off(i), i))
        .collect();
    let mut rank = vec![u32::MAX; n];
    let mut next = 0u32;
    while let Some((_, u)) = ready.pop_first() {
        rank[u] = next;
        next += 1;
        for &v in &succ[u] {
            indeg[v] -= 1;
            if indeg[v] == 0 {
                ready.insert((off(v), v));
            }
        }
    }
    let mut rest: Vec<usize> = (0..n).filter(|&i| rank[i] == u32::MAX).collect();
    rest.sort_by_key(|&i| (off(i), i));
    for i in rest {
        rank[i] = next;
        next += 1;
    }
    rank
}

/// Reservations of one op at issue offset 0, with cycles counted modulo `ii`: a use of
/// `k * ii + r` cycles occupies every slot `k` times plus `r` consecutive slots once more.
fn modulo_footprint(op: &OpNode, ii: u32) -> Footprint {
    let mut v: Footprint = Vec::new();
    for u in op.uses.iter().filter(|u| u.cycles > 0) {
        let (full, rem) = (u.cycles / ii, u.cycles % ii);
        if full > 0 {
            v.extend((0..ii).map(|s| (u.resource, s, full)));
        }
        v.extend((0..rem).map(|k| {
            (
                u.resource,
                ((u64::from(u.start) + u64::from(k)) % u64::from(ii)) as u32,
                1,
            )
        }));
    }
    merge(v)
}

/// Reservations of one op at issue offset 0 in a linear (non-modulo) table.
fn linear_footprint(op: &OpNode) -> Footprint {
    let mut v: Footprint = Vec::new();
    for u in &op.uses {
        v.extend((0..u.cycles).map(|k| (u.resource, u.start + k, 1)));
    }
    merge(v)
}

fn merge(mut v: Footprint) -> Footprint {
    v.sort_unstable();
    let mut out: Footprint = Vec::with_capacity(v.len());
    for (r, s, a) in v {
        match out.last_mut() {
            Some(last) if last.0 == r && last.1 == s => last.2 += a,
            _ => out.push((r, s, a)),
        }
    }
    out
}

/// Modulo reservation table: units in use per (resource, slot) and which ops hold them, so a
/// forced placement knows whom to evict, plus a bitset of the slots that are not full, so the
/// search for a free slot can jump over full stretches instead of testing every cycle (at the
/// MII a resource is nearly full and that scan dominated: O(II) per placement).
struct Mrt {
    ii: u32,
    units: Vec<u32>,
    count: Vec<Vec<u32>>,
    occ: Vec<Vec<Vec<u32>>>,
    /// Bit `s` of `nonfull[r]` is set iff `count[r][s] < units[r]`.
    nonfull: Vec<Vec<u64>>,
}

impl Mrt {
    fn new(ii: u32, units: &[u32]) -> Self {
        let words = (ii as usize).div_ceil(64);
        let mut all = vec![u64::MAX; words];
        if ii % 64 != 0 {
            all[words - 1] = (1u64 << (ii % 64)) - 1;
        }
        Mrt {
            ii,
            units: units.to_vec(),
            count: vec![vec![0; ii as usize]; units.len()],
            occ: vec![vec![Vec::new(); ii as usize]; units.len()],
            nonfull: vec![all; units.len()],
        }
    }

    fn slot(&self, t: i64, rel: u32) -> usize {
        (t + i64::from(rel)).rem_euclid(i64::from(self.ii)) as usize
    }

    #[cfg(test)]
    fn fits(&self, fp: &Footprint, t: i64) -> bool {
        fp.iter()
            .all(|&(r, rel, a)| self.count[r][self.slot(t, rel)] + a <= self.units[r])
    }

    /// The earliest `t` in `[estart, estart + ii)` at which `fp` fits. When a reservation
    /// collides at slot `s`, no `t` that maps it to a full slot can work either, so `t`
    /// advances straight to the next slot after `s` that is not full.
    fn earliest_fit(&self, fp: &Footprint, estart: i64) -> Option<i64> {
        let end = estart + i64::from(self.ii);
        let mut t = estart;
        'search: while t < end {
            for &(r, rel, a) in fp {
                let s = self.slot(t, rel);
                if self.count[r][s] + a > self.units[r] {
                    let next = self.next_nonfull(r, (s + 1) % self.ii as usize)?;
                    let step = if next > s {
                        next - s
                    } else {
                        next + self.ii as usize - s
                    };
                    t += step as i64;
                    continue 'search;
                }
            }
            return Some(t);
        }
        None
    }

    /// The first slot at or cyclically after `from` that is not full.
    fn next_nonfull(&self, r: usize, from: usize) -> Option<usize> {
        let bits = &self.nonfull[r];
        let (w0, b0) = (from / 64, from % 64);
        let first = bits[w0] & (u64::MAX << b0);
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        // The remaining words, wrapping around, then the low bits of the starting word.
        for k in 1..=bits.len() {
            let w = (w0 + k) % bits.len();
            let word = if w == w0 {
                bits[w] & !(u64::MAX << b0)
            } else {
                bits[w]
            };
            if word != 0 {
                return Some(w * 64 + word.trailing_zeros() as usize);
            }
        }
        None
    }

    fn set_bit(&mut self, r: usize, s: usize) {
        let full = self.count[r][s] >= self.units[r];
        let (w, b) = (s / 64, s % 64);
        if full {
            self.nonfull[r][w] &= !(1u64 << b);
        } else {
            self.nonfull[r][w] |= 1u64 << b;
        }
    }

    fn reserve(&mut self, op: usize, fp: &Footprint, t: i64) {
        for &(r, rel, a) in fp {
            let s = self.slot(t, rel);
            self.count[r][s] += a;
            self.occ[r][s].push(op as u32);
            self.set_bit(r, s);
        }
    }

    fn release(&mut self, op: usize, fp: &Footprint, t: i64) {
        for &(r, rel, a) in fp {
            let s = self.slot(t, rel);
            self.count[r][s] -= a;
            if let Some(p) = self.occ[r][s].iter().position(|&o| o as usize == op) {
                self.occ[r][s].remove(p);
            }
            self.set_bit(r, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_fit_matches_a_linear_scan() {
        // Fill a 2-unit resource and a 1-unit resource in a pseudo-random pattern; the jumping
        // search must agree with testing every cycle.
        for ii in [1u32, 5, 63, 64, 65, 130] {
            let mut mrt = Mrt::new(ii, &[2, 1]);
            let mut x = 12345u64;
            for op in 0..(ii as usize) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                if (x >> 40) % 3 != 0 {
                    let fp = vec![((x >> 20) as usize % 2, 0, 1)];
                    if mrt.fits(&fp, op as i64) {
                        mrt.reserve(op, &fp, op as i64);
                    }
                }
            }
            let fps: Vec<Footprint> = vec![
                vec![(0, 0, 1)],
                vec![(0, 0, 2)],
                vec![(1, 0, 1), (1, 1, 1)],
                vec![(0, 0, 1), (1, 3, 1)],
                vec![],
            ];
            for fp in &fps {
                let fp = merge(fp.iter().map(|&(r, s, a)| (r, s % ii, a)).collect());
                for estart in [0i64, 3, 70] {
                    let linear = (estart..estart + i64::from(ii)).find(|&t| mrt.fits(&fp, t));
                    assert_eq!(
                        mrt.earliest_fit(&fp, estart),
                        linear,
                        "ii {ii} {fp:?} {estart}"
                    );
                }
            }
        }
    }
}
