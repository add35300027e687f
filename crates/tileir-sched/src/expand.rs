//! Prologue / kernel / epilogue expansion of a schedule, as data: what the materializing pass
//! will emit.
//!
//! Time is cut into steps of II cycles. Iteration `i` issues its stage-`s` ops in step
//! `i + s`, so with `S` stages and `t` iterations the steps are `0 .. t + S - 1`, and step `k`
//! runs stage `s` of iteration `k - s` whenever `0 <= k - s < t`. The steps split into
//!
//! - the **prologue**, steps `0 .. p` with `p = min(S - 1, t)`: the pipeline fills;
//! - the **kernel**, `kernel_trips = t - p` when `t >= S - 1` (else 0) repetitions of the full
//!   step, steps `p .. t`;
//! - the **epilogue**, steps `t .. t + S - 1`: the pipeline drains.
//!
//! When `t < S - 1` the pipeline never fills: there is no kernel trip, the prologue is the `t`
//! steps that start an iteration and the epilogue the `S - 1` steps that only finish them, each
//! listing only instances of real iterations (`< t`); with `t = 0` everything is empty. This
//! keeps one formula for every trip count, so the emitted code only needs the `t >= S - 1` test
//! to choose between the pipelined and the short form.

use crate::schedule::ScheduleRecord;

/// One op instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    /// Op index.
    pub op: usize,
    /// Iteration: absolute in prologue and epilogue; in [`Expanded::kernel`] relative to the
    /// kernel trip `j` (the absolute iteration is `j + iteration`), i.e. `S - 1 - stage`.
    pub iteration: u64,
    /// The op's stage.
    pub stage: u32,
}

/// A schedule expanded for a trip count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expanded {
    /// Fill steps, in issue order.
    pub prologue: Vec<Instance>,
    /// One steady-state step, in issue order, with relative iterations.
    pub kernel: Vec<Instance>,
    /// How many times the kernel step runs.
    pub kernel_trips: u64,
    /// Drain steps, in issue order.
    pub epilogue: Vec<Instance>,
}

/// Expands `record` for `trip_count` iterations (see the module docs for the split).
///
/// Within a step, instances are in the record's emission order (by `iter_offset`, then
/// `order`), which is their issue-time order. Assumes a record that [`crate::verify`] accepts;
/// on an inconsistent one (a stage at or above `num_stages`) it does not panic, but the result
/// is meaningless.
pub fn expand(record: &ScheduleRecord, trip_count: u64) -> Expanded {
    let s = u64::from(record.num_stages.max(1));
    let mut emit: Vec<usize> = (0..record.ops.len()).collect();
    emit.sort_by_key(|&i| (record.ops[i].iter_offset, record.ops[i].order, i));
    let p = (s - 1).min(trip_count);
    let step = |k: u64, out: &mut Vec<Instance>| {
        for &op in &emit {
            let stage = record.ops[op].stage;
            if let Some(i) = k.checked_sub(u64::from(stage)) {
                if i < trip_count {
                    out.push(Instance {
                        op,
                        iteration: i,
                        stage,
                    });
                }
            }
        }
    };
    let mut prologue = Vec::new();
    for k in 0..p {
        step(k, &mut prologue);
    }
    let mut epilogue = Vec::new();
    for k in trip_count..trip_count.saturating_add(s - 1) {
        step(k, &mut epilogue);
    }
    let kernel = emit
        .iter()
        .map(|&op| {
            let stage = record.ops[op].stage;
            Instance {
                op,
                iteration: (s - 1).saturating_sub(u64::from(stage)),
                stage,
            }
        })
        .collect();
    Expanded {
        prologue,
        kernel,
        kernel_trips: trip_count - p,
        epilogue,
    }
}

/// Every op instance in issue order: the prologue, `kernel_trips` copies of the kernel with
/// absolute iterations, the epilogue. Its length is `ops * trip_count`, so only call it for
/// trip counts whose expansion fits in memory.
pub fn flatten(expanded: &Expanded) -> Vec<Instance> {
    let mut out = expanded.prologue.clone();
    for j in 0..expanded.kernel_trips {
        out.extend(expanded.kernel.iter().map(|x| Instance {
            iteration: j + x.iteration,
            ..*x
        }));
    }
    out.extend_from_slice(&expanded.epilogue);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::OpSlot;
    use crate::strategy::Strategy;

    fn record(cycles: &[u32], ii: u32) -> ScheduleRecord {
        ScheduleRecord {
            strategy: Strategy::Fast,
            ii,
            num_stages: cycles.iter().map(|c| c / ii).max().unwrap_or(0) + 1,
            total_work: 0,
            iters: -1,
            mii: 1,
            res_mii: 1,
            rec_mii: 0,
            ops: cycles
                .iter()
                .enumerate()
                .map(|(i, &c)| OpSlot {
                    cycle: c,
                    stage: c / ii,
                    iter_offset: c % ii,
                    order: i as u32,
                })
                .collect(),
        }
    }

    fn pairs(v: &[Instance]) -> Vec<(usize, u64)> {
        v.iter().map(|x| (x.op, x.iteration)).collect()
    }

    #[test]
    fn three_stage_pipeline() {
        // a: stage 0, b: stage 1, c: stage 2 (II 2).
        let r = record(&[0, 2, 4], 2);
        let e = expand(&r, 5);
        assert_eq!(pairs(&e.prologue), vec![(0, 0), (0, 1), (1, 0)]);
        assert_eq!(e.kernel_trips, 3);
        assert_eq!(pairs(&e.kernel), vec![(0, 2), (1, 1), (2, 0)]);
        assert_eq!(pairs(&e.epilogue), vec![(1, 4), (2, 3), (2, 4)]);
        let flat = pairs(&flatten(&e));
        assert_eq!(flat.len(), 15);
        assert_eq!(&flat[3..6], &[(0, 2), (1, 1), (2, 0)]);
        assert_eq!(&flat[9..12], &[(0, 4), (1, 3), (2, 2)]);
    }

    #[test]
    fn short_trip_counts() {
        let r = record(&[0, 2, 4], 2);
        let e = expand(&r, 0);
        assert!(e.prologue.is_empty() && e.epilogue.is_empty() && e.kernel_trips == 0);
        let e = expand(&r, 1);
        assert_eq!(e.kernel_trips, 0);
        assert_eq!(pairs(&e.prologue), vec![(0, 0)]);
        assert_eq!(pairs(&e.epilogue), vec![(1, 0), (2, 0)]);
        let e = expand(&r, 2); // exactly S - 1: the pipeline just fills, no kernel trip
        assert_eq!(e.kernel_trips, 0);
        assert_eq!(
            pairs(&flatten(&e)),
            vec![(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
        );
    }

    #[test]
    fn single_stage_is_all_kernel() {
        let r = record(&[0, 1], 3);
        let e = expand(&r, 4);
        assert!(e.prologue.is_empty() && e.epilogue.is_empty());
        assert_eq!(e.kernel_trips, 4);
        assert_eq!(pairs(&e.kernel), vec![(0, 0), (1, 0)]);
    }
}
