//! The scheduler's input model (machine resources and a loop body as a dependence graph) and
//! its validation.

use std::fmt;

/// The longest schedule (in cycles) the scheduler will build. Reservation tables are sized by
/// II, and II can grow to the length of one serial iteration, so an absurd latency (say
/// `u32::MAX`) would otherwise turn into a multi-gigabyte allocation; a real loop body is many
/// orders of magnitude below this.
pub const MAX_SCHEDULE_LENGTH: u64 = 1 << 20;

/// One kind of functional unit (or other pipelined hardware resource) of the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Name used in diagnostics (`tma`, `tensor_core`, ...).
    pub name: String,
    /// How many copies exist: how many ops may occupy the resource in the same cycle.
    pub units: u32,
}

/// The target as the scheduler sees it: a compute capability and a set of resources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// Compute capability as `major * 10 + minor` (90 = Hopper). It only decides what
    /// [`crate::Strategy::Default`] resolves to.
    pub sm: u32,
    /// The resources; [`ResourceUse::resource`] indexes this list.
    pub resources: Vec<Resource>,
}

impl Machine {
    /// A machine with the given compute capability and resources.
    pub fn new(sm: u32, resources: Vec<Resource>) -> Self {
        Machine { sm, resources }
    }

    /// A Hopper-like (sm_90) SM sub-partition view: one TMA engine (bulk async copies are
    /// issued one at a time), one tensor core pipe (warpgroup MMA), four ALU pipes and two
    /// load/store units. The counts are deliberately coarse: they only have to rank schedules.
    pub fn hopper() -> Self {
        Machine::new(
            90,
            vec![
                res("tma", 1),
                res("tensor_core", 1),
                res("alu", 4),
                res("lsu", 2),
            ],
        )
    }

    /// An Ampere-like (sm_80) machine: no TMA (async copies go through the load/store units),
    /// one tensor core pipe, four ALU pipes and two load/store units.
    pub fn pre_hopper() -> Self {
        Machine::new(
            80,
            vec![res("tensor_core", 1), res("alu", 4), res("lsu", 2)],
        )
    }

    /// The index of the resource called `name`, if any.
    pub fn resource(&self, name: &str) -> Option<usize> {
        self.resources.iter().position(|r| r.name == name)
    }
}

fn res(name: &str, units: u32) -> Resource {
    Resource {
        name: name.to_string(),
        units,
    }
}

/// A reservation an op makes on one resource, relative to the op's issue cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceUse {
    /// Index into [`Machine::resources`].
    pub resource: usize,
    /// First busy cycle, as an offset from the op's issue cycle.
    pub start: u32,
    /// Number of consecutive busy cycles (one unit each).
    pub cycles: u32,
}

/// One operation of the loop body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpNode {
    /// Name used in diagnostics.
    pub name: String,
    /// Cycles from issue until the result is available; one iteration is not over before
    /// every op's latency has elapsed.
    pub latency: u32,
    /// Resource reservations.
    pub uses: Vec<ResourceUse>,
    /// Abstract amount of work (summed into [`crate::ScheduleRecord::total_work`]).
    pub work: u32,
}

/// A dependence between two ops of the loop body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dep {
    /// Producer op index.
    pub from: usize,
    /// Consumer op index.
    pub to: usize,
    /// Minimum number of cycles from the issue of `from` to the issue of `to`.
    pub latency: u32,
    /// Iteration distance: 0 = same iteration, `d > 0` = `to` of iteration `i + d` depends on
    /// `from` of iteration `i` (loop-carried).
    pub distance: u32,
}

impl OpNode {
    /// An op of one unit of work.
    pub fn new(name: impl Into<String>, latency: u32, uses: Vec<ResourceUse>) -> OpNode {
        OpNode { name: name.into(), latency, uses, work: 1 }
    }
}

impl Dep {
    /// `to` waits `latency` cycles after `from` of `distance` iterations earlier.
    pub fn new(from: usize, to: usize, latency: u32, distance: u32) -> Dep {
        Dep { from, to, latency, distance }
    }
}

/// A loop body: ops (indices `0..ops.len()`) and the dependences between them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopBody {
    /// The ops.
    pub ops: Vec<OpNode>,
    /// The dependences.
    pub deps: Vec<Dep>,
}

/// Why a loop body cannot be scheduled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchedError {
    /// A dependence names an op index that does not exist.
    UnknownOp {
        /// Index of the dependence in [`LoopBody::deps`].
        dep: usize,
        /// The offending op index.
        op: usize,
        /// How many ops the body has.
        num_ops: usize,
    },
    /// An op reserves a resource index that does not exist.
    UnknownResource {
        /// The op's name.
        op: String,
        /// The offending resource index.
        resource: usize,
        /// How many resources the machine has.
        num_resources: usize,
    },
    /// A resource has zero units, so nothing could ever use it.
    ZeroUnits {
        /// The resource's name.
        resource: String,
    },
    /// An op needs more units of a resource in one cycle (overlapping uses) than exist.
    TooManyUnits {
        /// The op's name.
        op: String,
        /// The resource's name.
        resource: String,
        /// Units the op occupies at its busiest cycle.
        needed: u32,
        /// Units the machine has.
        available: u32,
    },
    /// A cycle of dependences whose distances are all zero: an op would have to precede itself
    /// within one iteration.
    ZeroDistanceCycle {
        /// The ops on the cycle, in dependence order.
        ops: Vec<String>,
    },
    /// One iteration would be longer than [`MAX_SCHEDULE_LENGTH`] cycles.
    TooLong {
        /// The length (or a lower bound of it) in cycles.
        length: u64,
        /// The limit.
        limit: u64,
    },
}

impl fmt::Display for SchedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedError::UnknownOp { dep, op, num_ops } => write!(
                f,
                "dependence #{dep} refers to op {op}, but the loop body has {num_ops} ops"
            ),
            SchedError::UnknownResource {
                op,
                resource,
                num_resources,
            } => write!(
                f,
                "op `{op}` uses resource {resource}, but the machine has {num_resources} resources"
            ),
            SchedError::ZeroUnits { resource } => {
                write!(f, "resource `{resource}` has 0 units")
            }
            SchedError::TooManyUnits {
                op,
                resource,
                needed,
                available,
            } => write!(
                f,
                "op `{op}` needs {needed} units of `{resource}` in one cycle, but the machine has {available}"
            ),
            SchedError::ZeroDistanceCycle { ops } => write!(
                f,
                "dependence cycle with iteration distance 0: {}",
                ops.iter()
                    .chain(ops.first())
                    .map(|o| format!("`{o}`"))
                    .collect::<Vec<_>>()
                    .join(" -> ")
            ),
            SchedError::TooLong { length, limit } => write!(
                f,
                "one iteration needs at least {length} cycles, over the limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for SchedError {}

/// Adjacency lists of a body, by dependence index, built once per analysis.
pub(crate) struct Graph {
    /// `preds[op]`: indices of the deps whose `to` is `op`.
    pub preds: Vec<Vec<usize>>,
    /// `succs[op]`: indices of the deps whose `from` is `op`.
    pub succs: Vec<Vec<usize>>,
}

impl Graph {
    /// Builds the adjacency lists, skipping out-of-range deps (validation reports those).
    pub fn new(body: &LoopBody) -> Self {
        let n = body.ops.len();
        let mut preds = vec![Vec::new(); n];
        let mut succs = vec![Vec::new(); n];
        for (i, d) in body.deps.iter().enumerate() {
            if d.from < n && d.to < n {
                succs[d.from].push(i);
                preds[d.to].push(i);
            }
        }
        Graph { preds, succs }
    }
}

/// Topological order of the distance-0 subgraph (Kahn's algorithm, smallest index first so the
/// order is deterministic), or the ops of one zero-distance cycle.
pub(crate) fn zero_distance_topo(body: &LoopBody, g: &Graph) -> Result<Vec<usize>, Vec<usize>> {
    let n = body.ops.len();
    let mut indeg = vec![0usize; n];
    for d in &body.deps {
        if d.distance == 0 && d.from < n && d.to < n {
            indeg[d.to] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(u) = ready.pop_first() {
        order.push(u);
        for &e in &g.succs[u] {
            let d = &body.deps[e];
            if d.distance == 0 {
                indeg[d.to] -= 1;
                if indeg[d.to] == 0 {
                    ready.insert(d.to);
                }
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Every op left has a zero-distance predecessor that is also left, so walking predecessors
    // from any of them must revisit an op: that loop is a cycle.
    let left: Vec<bool> = indeg.iter().map(|&k| k > 0).collect();
    let start = (0..n).find(|&i| left[i]).unwrap_or(0);
    let mut seen = vec![usize::MAX; n];
    let mut walk = Vec::new();
    let mut u = start;
    while seen[u] == usize::MAX {
        seen[u] = walk.len();
        walk.push(u);
        let next = g.preds[u]
            .iter()
            .map(|&e| &body.deps[e])
            .find(|d| d.distance == 0 && left[d.from])
            .map(|d| d.from);
        match next {
            Some(p) => u = p,
            None => return Err(walk), // unreachable for a consistent count; keep it total
        }
    }
    let mut cycle = walk[seen[u]..].to_vec();
    // The walk followed predecessors; report the cycle in dependence (producer first) order.
    cycle.reverse();
    // Start at the smallest op index so the report does not depend on where the walk began.
    if let Some(k) = (0..cycle.len()).min_by_key(|&k| cycle[k]) {
        cycle.rotate_left(k);
    }
    Err(cycle)
}

/// Checks everything [`SchedError`] describes.
pub fn validate(body: &LoopBody, machine: &Machine) -> Result<(), SchedError> {
    for r in &machine.resources {
        if r.units == 0 {
            return Err(SchedError::ZeroUnits {
                resource: r.name.clone(),
            });
        }
    }
    let n = body.ops.len();
    for (i, d) in body.deps.iter().enumerate() {
        for op in [d.from, d.to] {
            if op >= n {
                return Err(SchedError::UnknownOp {
                    dep: i,
                    op,
                    num_ops: n,
                });
            }
        }
    }
    for op in &body.ops {
        for u in &op.uses {
            if u.resource >= machine.resources.len() {
                return Err(SchedError::UnknownResource {
                    op: op.name.clone(),
                    resource: u.resource,
                    num_resources: machine.resources.len(),
                });
            }
            let end = u64::from(u.start) + u64::from(u.cycles);
            if end > MAX_SCHEDULE_LENGTH {
                return Err(SchedError::TooLong {
                    length: end,
                    limit: MAX_SCHEDULE_LENGTH,
                });
            }
        }
        if u64::from(op.latency) > MAX_SCHEDULE_LENGTH {
            return Err(SchedError::TooLong {
                length: op.latency.into(),
                limit: MAX_SCHEDULE_LENGTH,
            });
        }
        // Peak overlap of the op's own uses per resource: a sweep over (cycle, +1/-1) events.
        let mut events: Vec<(usize, u32, i64)> = Vec::new();
        for u in op.uses.iter().filter(|u| u.cycles > 0) {
            events.push((u.resource, u.start, 1));
            events.push((u.resource, u.start + u.cycles, -1));
        }
        // At equal cycles the releases (-1) sort first, so back-to-back uses do not overlap.
        events.sort();
        let mut cur: i64 = 0;
        let mut last_res = usize::MAX;
        for (r, _, delta) in events {
            if r != last_res {
                cur = 0;
                last_res = r;
            }
            cur += delta;
            let units = machine.resources[r].units;
            if cur > i64::from(units) {
                return Err(SchedError::TooManyUnits {
                    op: op.name.clone(),
                    resource: machine.resources[r].name.clone(),
                    needed: u32::try_from(cur).unwrap_or(u32::MAX),
                    available: units,
                });
            }
        }
    }
    for d in &body.deps {
        if u64::from(d.latency) > MAX_SCHEDULE_LENGTH {
            return Err(SchedError::TooLong {
                length: d.latency.into(),
                limit: MAX_SCHEDULE_LENGTH,
            });
        }
    }
    let g = Graph::new(body);
    zero_distance_topo(body, &g).map_err(|cycle| SchedError::ZeroDistanceCycle {
        ops: cycle.iter().map(|&i| body.ops[i].name.clone()).collect(),
    })?;
    Ok(())
}
