//! Independent check of a [`ScheduleRecord`] against its loop body and machine.

use crate::mii::{rec_mii, res_mii};
use crate::model::{validate, LoopBody, Machine, SchedError, MAX_SCHEDULE_LENGTH};
use crate::schedule::{same_cycle, ScheduleRecord};
use std::fmt;

/// The first way in which a record is not a valid schedule of its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The body/machine pair itself is invalid.
    Invalid(SchedError),
    /// The record has a different number of ops than the body.
    OpCount {
        /// Ops in the body.
        body: usize,
        /// Ops in the record.
        record: usize,
    },
    /// II is 0 or larger than [`MAX_SCHEDULE_LENGTH`].
    BadIi {
        /// The record's II.
        ii: u32,
    },
    /// II is below the lower bound recomputed from the body.
    IiBelowMii {
        /// The record's II.
        ii: u32,
        /// `max(res_mii, rec_mii)` of the body.
        mii: u32,
    },
    /// An op's stage or in-window offset does not match its cycle.
    Slot {
        /// The op's name.
        op: String,
        /// Its cycle.
        cycle: u32,
        /// Its recorded `(stage, iter_offset)`.
        recorded: (u32, u32),
        /// `(cycle / ii, cycle % ii)`.
        expected: (u32, u32),
    },
    /// `num_stages` is not `max stage + 1`.
    StageCount {
        /// The recorded count.
        recorded: u32,
        /// The count implied by the op cycles.
        expected: u32,
    },
    /// A dependence is not satisfied: `cycle[to] + distance * ii < cycle[from] + latency`.
    Dependence {
        /// Index of the dependence.
        dep: usize,
        /// Producer name.
        from: String,
        /// Consumer name.
        to: String,
        /// `cycle[to] + distance * ii`: when the consumer issues.
        consumer_issue: u64,
        /// `cycle[from] + latency`: the earliest it may issue.
        earliest: u64,
    },
    /// More units of a resource are busy in one modulo slot than exist.
    Resource {
        /// The resource's name.
        resource: String,
        /// The slot (`0..ii`).
        slot: u32,
        /// Units in use there.
        used: u64,
        /// Units available.
        units: u32,
    },
    /// The `order` fields are not a permutation of `0..ops`, or do not sort ops by offset.
    Order {
        /// The op whose rank is wrong.
        op: String,
        /// Its rank.
        order: u32,
    },
    /// A zero-latency dependence issues producer and consumer in the same cycle but the
    /// emission order puts the consumer first.
    SameCycleOrder {
        /// Index of the dependence.
        dep: usize,
        /// Producer name and rank.
        from: (String, u32),
        /// Consumer name and rank.
        to: (String, u32),
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Invalid(e) => write!(f, "invalid input: {e}"),
            Violation::OpCount { body, record } => write!(
                f,
                "the record has {record} ops but the loop body has {body}"
            ),
            Violation::BadIi { ii } => write!(
                f,
                "II {ii} is outside 1..={MAX_SCHEDULE_LENGTH}"
            ),
            Violation::IiBelowMii { ii, mii } => {
                write!(f, "II {ii} is below the minimum II {mii}")
            }
            Violation::Slot {
                op,
                cycle,
                recorded,
                expected,
            } => write!(
                f,
                "op `{op}` at cycle {cycle} records (stage, offset) = {recorded:?}, expected {expected:?}"
            ),
            Violation::StageCount { recorded, expected } => write!(
                f,
                "the record has {recorded} stages but its op cycles imply {expected}"
            ),
            Violation::Dependence {
                dep,
                from,
                to,
                consumer_issue,
                earliest,
            } => write!(
                f,
                "dependence #{dep} `{from}` -> `{to}` violated: `{to}` issues at {consumer_issue} but `{from}` allows {earliest} at the earliest"
            ),
            Violation::Resource {
                resource,
                slot,
                used,
                units,
            } => write!(
                f,
                "resource `{resource}` over-subscribed in modulo slot {slot}: {used} units used, {units} available"
            ),
            Violation::Order { op, order } => write!(
                f,
                "op `{op}` has emission rank {order}, which is a duplicate, out of range or out of offset order"
            ),
            Violation::SameCycleOrder { dep, from, to } => write!(
                f,
                "dependence #{dep}: `{}` (rank {}) and `{}` (rank {}) issue in the same cycle but the consumer is emitted first",
                from.0, from.1, to.0, to.1
            ),
        }
    }
}

impl std::error::Error for Violation {}

/// Checks `record` against `body` and `machine` from scratch: II in range and at least the
/// recomputed MII, `stage == cycle / ii`, `iter_offset == cycle % ii`, the stage count, every
/// dependence (`cycle[to] + distance * ii >= cycle[from] + latency`), the modulo reservation
/// table, and the emission order.
pub fn verify(
    body: &LoopBody,
    machine: &Machine,
    record: &ScheduleRecord,
) -> Result<(), Violation> {
    validate(body, machine).map_err(Violation::Invalid)?;
    let n = body.ops.len();
    if record.ops.len() != n {
        return Err(Violation::OpCount {
            body: n,
            record: record.ops.len(),
        });
    }
    let ii = record.ii;
    if ii == 0 || u64::from(ii) > MAX_SCHEDULE_LENGTH {
        return Err(Violation::BadIi { ii });
    }
    let mii = res_mii(body, machine).max(rec_mii(body)).max(1);
    if ii < mii {
        return Err(Violation::IiBelowMii { ii, mii });
    }
    let mut max_stage = 0;
    for (op, slot) in body.ops.iter().zip(&record.ops) {
        let expected = (slot.cycle / ii, slot.cycle % ii);
        if (slot.stage, slot.iter_offset) != expected {
            return Err(Violation::Slot {
                op: op.name.clone(),
                cycle: slot.cycle,
                recorded: (slot.stage, slot.iter_offset),
                expected,
            });
        }
        max_stage = max_stage.max(expected.0);
    }
    if record.num_stages != max_stage + 1 {
        return Err(Violation::StageCount {
            recorded: record.num_stages,
            expected: max_stage + 1,
        });
    }
    let cycles: Vec<u32> = record.ops.iter().map(|s| s.cycle).collect();
    for (i, d) in body.deps.iter().enumerate() {
        let consumer_issue = u64::from(cycles[d.to]) + u64::from(d.distance) * u64::from(ii);
        let earliest = u64::from(cycles[d.from]) + u64::from(d.latency);
        if consumer_issue < earliest {
            return Err(Violation::Dependence {
                dep: i,
                from: body.ops[d.from].name.clone(),
                to: body.ops[d.to].name.clone(),
                consumer_issue,
                earliest,
            });
        }
    }
    let mut used = vec![vec![0u64; ii as usize]; machine.resources.len()];
    for (op, &c) in body.ops.iter().zip(&cycles) {
        for u in &op.uses {
            let (full, rem) = (u64::from(u.cycles / ii), u.cycles % ii);
            if full > 0 {
                used[u.resource].iter_mut().for_each(|x| *x += full);
            }
            for k in 0..rem {
                let s = (u64::from(c) + u64::from(u.start) + u64::from(k)) % u64::from(ii);
                used[u.resource][s as usize] += 1;
            }
        }
    }
    for (r, row) in machine.resources.iter().zip(&used) {
        if let Some((slot, &u)) = row
            .iter()
            .enumerate()
            .find(|&(_, &u)| u > u64::from(r.units))
        {
            return Err(Violation::Resource {
                resource: r.name.clone(),
                slot: slot as u32,
                used: u,
                units: r.units,
            });
        }
    }
    // Ranks: a permutation, and sorting by rank sorts by offset.
    let mut by_rank: Vec<Option<usize>> = vec![None; n];
    for (i, s) in record.ops.iter().enumerate() {
        match by_rank.get_mut(s.order as usize) {
            Some(slot @ None) => *slot = Some(i),
            _ => {
                return Err(Violation::Order {
                    op: body.ops[i].name.clone(),
                    order: s.order,
                })
            }
        }
    }
    let ranked: Vec<usize> = by_rank.into_iter().flatten().collect();
    for w in ranked.windows(2) {
        if record.ops[w[0]].iter_offset > record.ops[w[1]].iter_offset {
            return Err(Violation::Order {
                op: body.ops[w[1]].name.clone(),
                order: record.ops[w[1]].order,
            });
        }
    }
    for (i, d) in body.deps.iter().enumerate() {
        if d.from != d.to
            && same_cycle(&cycles, ii, d.from, d.to, d.latency, d.distance)
            && record.ops[d.from].order > record.ops[d.to].order
        {
            return Err(Violation::SameCycleOrder {
                dep: i,
                from: (body.ops[d.from].name.clone(), record.ops[d.from].order),
                to: (body.ops[d.to].name.clone(), record.ops[d.to].order),
            });
        }
    }
    Ok(())
}
