//! Modulo-scheduling *analysis* for software pipelining.
//!
//! Following the TileAS design contract, scheduling is split from materialization: this crate
//! computes a schedule for a loop body (given as a plain dependence graph with resource
//! reservations, never IR) and publishes a [`ScheduleRecord`]; the later
//! `tileas-materialize-schedule` pass consumes the record and never recomputes it.
//! [`expand`]/[`flatten`] describe, as data, the prologue/kernel/epilogue that pass emits.
//!
//! - Bounds: [`res_mii`], [`rec_mii`].
//! - Strategies ([`Strategy`]): NONE (no record), SERIAL (one stage, II = length of one
//!   iteration), FAST (Rau's iterative modulo scheduling, first feasible II), COST_BASED
//!   (cheapest of several IIs by estimated cycles), DEFAULT (SERIAL before sm 90, COST_BASED
//!   from sm 90).
//! - [`verify`] re-checks a record against its body and machine from scratch.
//!
//! Everything is deterministic: ties are broken by op index and only ordered containers are
//! iterated, so the same input always gives the same record.

mod expand;
mod mii;
mod model;
mod schedule;
mod strategy;
mod verify;

pub use expand::{expand, flatten, Expanded, Instance};
pub use mii::{rec_mii, res_mii};
pub use model::{
    validate, Dep, LoopBody, Machine, OpNode, Resource, ResourceUse, SchedError,
    MAX_SCHEDULE_LENGTH,
};
pub use schedule::{
    schedule, OpSlot, ScheduleRecord, COST_WINDOW, DEFAULT_TRIP_COUNT, LINEAR_TRIES, STAGE_PENALTY,
};
pub use strategy::{ParseStrategyError, ScheduleOptions, Strategy};
pub use verify::{verify, Violation};

#[cfg(test)]
mod tests {
    use super::*;

    fn use_(resource: usize, start: u32, cycles: u32) -> ResourceUse {
        ResourceUse {
            resource,
            start,
            cycles,
        }
    }

    fn op(name: &str, latency: u32, uses: Vec<ResourceUse>) -> OpNode {
        OpNode::new(name, latency, uses)
    }

    fn dep(from: usize, to: usize, latency: u32, distance: u32) -> Dep {
        Dep::new(from, to, latency, distance)
    }

    /// Two TMA loads -> wait -> MMA, with the MMA accumulator carried to the next iteration.
    fn matmul(m: &Machine) -> LoopBody {
        let tma = m.resource("tma").or(m.resource("lsu")).unwrap();
        let tc = m.resource("tensor_core").unwrap();
        let alu = m.resource("alu").unwrap();
        LoopBody {
            ops: vec![
                op("load_a", 120, vec![use_(tma, 0, 2)]),
                op("load_b", 120, vec![use_(tma, 0, 2)]),
                op("wait", 1, vec![use_(alu, 0, 1)]),
                op("mma", 32, vec![use_(tc, 0, 32)]),
            ],
            deps: vec![
                dep(0, 2, 120, 0),
                dep(1, 2, 120, 0),
                dep(2, 3, 1, 0),
                dep(3, 3, 32, 1),
            ],
        }
    }

    fn run(body: &LoopBody, m: &Machine, s: Strategy) -> ScheduleRecord {
        let r = schedule(body, m, s, ScheduleOptions::default())
            .unwrap()
            .unwrap();
        verify(body, m, &r).unwrap();
        r
    }

    #[test]
    fn matmul_pipelines_except_serially() {
        let m = Machine::hopper();
        let body = matmul(&m);
        assert_eq!(res_mii(&body, &m), 32);
        assert_eq!(rec_mii(&body), 32);
        for s in [Strategy::CostBased, Strategy::Fast, Strategy::Default] {
            let r = run(&body, &m, s);
            assert!(r.num_stages >= 2, "{s}: {r:?}");
            assert_eq!(r.ii, 32, "{s}");
            assert_eq!(r.mii, 32);
        }
        assert_eq!(
            run(&body, &m, Strategy::Default).strategy,
            Strategy::CostBased
        );
        let serial = run(&body, &m, Strategy::Serial);
        assert_eq!(serial.num_stages, 1);
        // load_a, load_b (TMA busy 2 cycles each, so load_b issues at 2), 120 cycles later the
        // wait, then the 32-cycle MMA: the whole iteration is one II.
        assert_eq!(serial.ii, 2 + 120 + 1 + 32);
        assert_eq!(serial.total_work, 4);
        assert_eq!(serial.iters, -1);
        assert_eq!(
            schedule(&body, &m, Strategy::None, ScheduleOptions::default()),
            Ok(None)
        );
        // Pre-Hopper DEFAULT means SERIAL.
        let old = Machine::pre_hopper();
        let r = run(&matmul(&old), &old, Strategy::Default);
        assert_eq!((r.strategy, r.num_stages), (Strategy::Serial, 1));
    }

    #[test]
    fn max_stages_and_trip_count_are_respected() {
        let m = Machine::hopper();
        let body = matmul(&m);
        for s in [Strategy::CostBased, Strategy::Fast] {
            for max in [1, 2, 3] {
                let opts = ScheduleOptions {
                    max_stages: Some(max),
                    ..ScheduleOptions::default()
                };
                let r = schedule(&body, &m, s, opts).unwrap().unwrap();
                verify(&body, &m, &r).unwrap();
                assert!(r.num_stages <= max, "{s} max {max}: {r:?}");
            }
        }
        // One trip: overlapping iterations buys nothing, the serial schedule is cheapest.
        let opts = ScheduleOptions {
            trip_count: Some(1),
            ..ScheduleOptions::default()
        };
        let r = schedule(&body, &m, Strategy::CostBased, opts)
            .unwrap()
            .unwrap();
        assert_eq!((r.num_stages, r.iters), (1, 1));
    }

    #[test]
    fn schedules_are_deterministic() {
        let m = Machine::hopper();
        let body = matmul(&m);
        for s in Strategy::ALL {
            let a = schedule(&body, &m, s, ScheduleOptions::default());
            let b = schedule(&body, &m, s, ScheduleOptions::default());
            assert_eq!(a, b);
        }
    }

    fn err(body: &LoopBody, m: &Machine) -> SchedError {
        let e = schedule(body, m, Strategy::Fast, ScheduleOptions::default()).unwrap_err();
        assert_eq!(validate(body, m), Err(e.clone()));
        e
    }

    #[test]
    fn each_error_variant() {
        let m = Machine::hopper();
        let mut body = matmul(&m);
        body.deps.push(dep(1, 9, 0, 0));
        let e = err(&body, &m);
        assert_eq!(
            e,
            SchedError::UnknownOp {
                dep: 4,
                op: 9,
                num_ops: 4
            }
        );
        assert!(e.to_string().contains("op 9") && e.to_string().contains("4 ops"));

        let mut body = matmul(&m);
        body.ops[2].uses.push(use_(7, 0, 1));
        let e = err(&body, &m);
        assert!(matches!(
            e,
            SchedError::UnknownResource {
                resource: 7,
                num_resources: 4,
                ..
            }
        ));
        assert!(e.to_string().contains("`wait`") && e.to_string().contains("resource 7"));

        let mut zero = m.clone();
        zero.resources[2].units = 0;
        let e = err(&matmul(&m), &zero);
        assert_eq!(
            e,
            SchedError::ZeroUnits {
                resource: "alu".into()
            }
        );
        assert!(e.to_string().contains("`alu`"));

        let mut body = matmul(&m);
        // Two overlapping 2-cycle TMA reservations on a one-unit engine.
        body.ops[0].uses.push(use_(0, 1, 2));
        let e = err(&body, &m);
        assert_eq!(
            e,
            SchedError::TooManyUnits {
                op: "load_a".into(),
                resource: "tma".into(),
                needed: 2,
                available: 1
            }
        );
        assert!(e.to_string().contains("needs 2") && e.to_string().contains("has 1"));
        // Back-to-back reservations do not overlap.
        body.ops[0].uses[1].start = 2;
        assert_eq!(validate(&body, &m), Ok(()));

        let mut body = matmul(&m);
        body.deps.push(dep(3, 0, 0, 0));
        let e = err(&body, &m);
        assert_eq!(
            e,
            SchedError::ZeroDistanceCycle {
                ops: vec!["load_a".into(), "wait".into(), "mma".into()]
            }
        );
        assert!(
            e.to_string()
                .contains("`load_a` -> `wait` -> `mma` -> `load_a`"),
            "{e}"
        );
        let mut body = matmul(&m);
        body.deps.push(dep(2, 2, 0, 0));
        assert!(matches!(err(&body, &m), SchedError::ZeroDistanceCycle { ops } if ops == ["wait"]));

        let mut body = matmul(&m);
        body.ops[3].latency = u32::MAX;
        assert!(matches!(err(&body, &m), SchedError::TooLong { .. }));
        // A long chain of individually fine latencies is caught after list scheduling.
        let long = LoopBody {
            ops: (0..20)
                .map(|i| op(&format!("o{i}"), 100_000, vec![]))
                .collect(),
            deps: (0..19).map(|i| dep(i, i + 1, 100_000, 0)).collect(),
        };
        let e = schedule(&long, &m, Strategy::Serial, ScheduleOptions::default()).unwrap_err();
        assert!(matches!(e, SchedError::TooLong { .. }), "{e}");
    }

    fn rec(n: u32, total_work: u64, iters: i64) -> ScheduleRecord {
        ScheduleRecord {
            strategy: Strategy::Fast,
            ii: 1,
            num_stages: n,
            total_work,
            iters,
            mii: 1,
            res_mii: 1,
            rec_mii: 0,
            ops: vec![],
        }
    }

    #[test]
    fn dual_simt_heuristic_boundaries() {
        // 10 / 1 * 0.6 = 6: strictly greater is required.
        assert!(!rec(6, 10, 1).use_dual_simt());
        assert!(rec(7, 10, 1).use_dual_simt());
        // Integer division first: 19 / 10 = 1 -> 0.6, so one stage already qualifies
        // (a float division would give 1.14 and say no).
        assert!(rec(1, 19, 10).use_dual_simt());
        assert!(!rec(1, 20, 10).use_dual_simt()); // 2 * 0.6 = 1.2
                                                  // Unknown (-1), zero and negative trip counts divide by 1.
        for iters in [0, -1, -7, i64::MIN] {
            assert!(!rec(6, 10, iters).use_dual_simt());
            assert!(rec(7, 10, iters).use_dual_simt());
        }
        // No work: any stage count qualifies, zero stages do not.
        assert!(rec(1, 0, 5).use_dual_simt());
        assert!(!rec(0, 0, 5).use_dual_simt());
        // More iterations than work: quotient 0.
        assert!(rec(1, 3, 4).use_dual_simt());
    }

    #[test]
    fn verify_catches_broken_records() {
        let m = Machine::hopper();
        let body = matmul(&m);
        let good = run(&body, &m, Strategy::Fast);
        let mut r = good.clone();
        r.ii -= 1;
        assert!(matches!(
            verify(&body, &m, &r),
            Err(Violation::IiBelowMii { ii: 31, mii: 32 })
        ));
        let mut r = good.clone();
        r.ops[3].stage += 1;
        assert!(matches!(verify(&body, &m, &r), Err(Violation::Slot { .. })));
        let mut r = good.clone();
        r.num_stages += 1;
        assert!(matches!(
            verify(&body, &m, &r),
            Err(Violation::StageCount { .. })
        ));
        // Issue the wait at the same cycle as the loads.
        let mut r = good.clone();
        let c = r.ops[0].cycle;
        r.ops[2] = OpSlot {
            cycle: c,
            stage: c / r.ii,
            iter_offset: c % r.ii,
            order: r.ops[2].order,
        };
        let e = verify(&body, &m, &r).unwrap_err();
        assert!(matches!(e, Violation::Dependence { dep: 0, .. }), "{e}");
        assert!(e.to_string().contains("`load_a` -> `wait`"), "{e}");
        // Both loads in the same TMA slot.
        let serial = run(&body, &m, Strategy::Serial);
        let mut r = serial.clone();
        r.ops[1] = r.ops[0].clone();
        r.ops[1].order = serial.ops[1].order;
        let e = verify(&body, &m, &r).unwrap_err();
        assert!(
            matches!(e, Violation::Resource { ref resource, used: 2, units: 1, .. } if resource == "tma"),
            "{e}"
        );
        let mut r = good.clone();
        r.ops[0].order = r.ops[1].order;
        assert!(matches!(
            verify(&body, &m, &r),
            Err(Violation::Order { .. })
        ));
        let mut r = good;
        r.ops.pop();
        assert!(matches!(
            verify(&body, &m, &r),
            Err(Violation::OpCount { body: 4, record: 3 })
        ));
    }

    #[test]
    fn same_cycle_zero_latency_dependences_are_ordered() {
        // b -> a with latency 0, distance 0: both issue at cycle 0 and only the emission order
        // keeps b (op 1) before a (op 0).
        let m = Machine::hopper();
        let body = LoopBody {
            ops: vec![op("a", 0, vec![]), op("b", 0, vec![])],
            deps: vec![dep(1, 0, 0, 0)],
        };
        for s in [Strategy::Serial, Strategy::Fast, Strategy::CostBased] {
            let r = run(&body, &m, s);
            assert_eq!(r.ops[0].cycle, r.ops[1].cycle);
            assert!(r.ops[1].order < r.ops[0].order);
            let mut bad = r.clone();
            bad.ops[0].order = r.ops[1].order;
            bad.ops[1].order = r.ops[0].order;
            assert!(matches!(
                verify(&body, &m, &bad),
                Err(Violation::SameCycleOrder { dep: 0, .. })
            ));
        }
    }

    #[test]
    fn empty_body() {
        let m = Machine::hopper();
        let r = run(&LoopBody::default(), &m, Strategy::CostBased);
        assert_eq!((r.ii, r.num_stages, r.ops.len()), (1, 1, 0));
        assert!(flatten(&expand(&r, 5)).is_empty());
    }
}
