//! Property tests: on random loop bodies (with recurrences), every strategy's record passes
//! `verify`, never undercuts the MII, and expands into a loop that runs every op instance
//! exactly once with every dependence's producer before its consumer.

use proptest::prelude::*;
use std::collections::BTreeMap;
use tileir_sched as ts;
use ts::{Dep, LoopBody, Machine, OpNode, Resource, ResourceUse, ScheduleOptions};

type RawOp = (u32, Vec<(usize, u32, u32)>, u32);

fn build(
    units: Vec<u32>,
    ops: Vec<RawOp>,
    fwd: Vec<(usize, usize, u32)>,
    back: Vec<(usize, usize, u32, u32)>,
) -> (LoopBody, Machine) {
    let machine = Machine::new(
        90,
        units
            .iter()
            .enumerate()
            .map(|(i, &u)| Resource {
                name: format!("r{i}"),
                units: u,
            })
            .collect(),
    );
    let ops = ops
        .into_iter()
        .enumerate()
        .map(|(i, (latency, uses, work))| {
            // At most one reservation per resource, so no op needs more than one unit.
            let mut seen = vec![false; units.len()];
            let uses = uses
                .into_iter()
                .filter(|&(r, _, _)| !std::mem::replace(&mut seen[r], true))
                .map(|(resource, start, cycles)| ResourceUse {
                    resource,
                    start,
                    cycles,
                })
                .collect();
            OpNode {
                name: format!("op{i}"),
                latency,
                uses,
                work,
            }
        })
        .collect();
    let mut deps = Vec::new();
    // Forward edges (lower index to higher) with distance 0 keep the same-iteration graph
    // acyclic; back edges (including self loops) carry a distance >= 1: recurrences.
    for (a, b, latency) in fwd {
        if a != b {
            deps.push(Dep {
                from: a.min(b),
                to: a.max(b),
                latency,
                distance: 0,
            });
        }
    }
    for (a, b, latency, distance) in back {
        deps.push(Dep {
            from: a.max(b),
            to: a.min(b),
            latency,
            distance,
        });
    }
    (LoopBody { ops, deps }, machine)
}

fn arb_case(max_ops: usize) -> impl Strategy<Value = (LoopBody, Machine)> {
    (1..=max_ops, prop::collection::vec(1u32..=3, 1..=4))
        .prop_flat_map(|(n, units)| {
            let nr = units.len();
            let ops = prop::collection::vec(
                (
                    0u32..10,
                    prop::collection::vec((0..nr, 0u32..4, 0u32..5), 0..=nr),
                    0u32..10,
                ),
                n,
            );
            let fwd = prop::collection::vec((0..n, 0..n, 0u32..8), 0..=2 * n);
            let back = prop::collection::vec((0..n, 0..n, 0u32..12, 1u32..4), 0..=n / 2 + 1);
            (Just(units), ops, fwd, back)
        })
        .prop_map(|(units, ops, fwd, back)| build(units, ops, fwd, back))
}

/// The expanded loop, flattened, must contain each `(op, iteration < t)` exactly once, and for
/// every dependence the producer instance of iteration `i` must come before the consumer
/// instance of iteration `i + distance`.
fn check_expansion(body: &LoopBody, r: &ts::ScheduleRecord, t: u64) -> Result<(), TestCaseError> {
    let e = ts::expand(r, t);
    let flat = ts::flatten(&e);
    let mut pos: BTreeMap<(usize, u64), usize> = BTreeMap::new();
    for (k, x) in flat.iter().enumerate() {
        prop_assert!(
            x.iteration < t,
            "t={t}: instance {x:?} of a nonexistent iteration"
        );
        prop_assert_eq!(x.stage, r.ops[x.op].stage);
        prop_assert!(
            pos.insert((x.op, x.iteration), k).is_none(),
            "t={t}: {x:?} twice"
        );
    }
    prop_assert_eq!(
        pos.len() as u64,
        body.ops.len() as u64 * t,
        "t={}: instances missing",
        t
    );
    if t >= u64::from(r.num_stages) - 1 {
        prop_assert_eq!(e.kernel_trips, t + 1 - u64::from(r.num_stages));
    } else {
        prop_assert_eq!(e.kernel_trips, 0);
    }
    for d in &body.deps {
        for i in 0..t.saturating_sub(u64::from(d.distance)) {
            let p = pos[&(d.from, i)];
            let c = pos[&(d.to, i + u64::from(d.distance))];
            prop_assert!(
                p < c,
                "t={t}: {d:?} iteration {i}: producer at {p}, consumer at {c}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_strategy_is_valid((body, machine) in arb_case(40)) {
        ts::validate(&body, &machine).unwrap();
        let res = ts::res_mii(&body, &machine);
        let rec = ts::rec_mii(&body);
        let bound = res.max(rec);
        let opts = ScheduleOptions::default();
        prop_assert_eq!(ts::schedule(&body, &machine, ts::Strategy::None, opts.clone()), Ok(None));
        let mut iis = BTreeMap::new();
        for s in [ts::Strategy::Serial, ts::Strategy::Fast, ts::Strategy::CostBased, ts::Strategy::Default] {
            let r = ts::schedule(&body, &machine, s, opts.clone()).unwrap().unwrap();
            if let Err(v) = ts::verify(&body, &machine, &r) {
                prop_assert!(false, "{s}: {v}\n{r:?}");
            }
            prop_assert!(r.ii >= bound, "{s}: II {} below bound {bound}", r.ii);
            prop_assert_eq!((r.res_mii, r.rec_mii, r.mii), (res, rec, bound.max(1)));
            prop_assert_eq!(r.strategy, s.resolve(machine.sm));
            prop_assert_eq!(r.total_work, body.ops.iter().map(|o| u64::from(o.work)).sum::<u64>());
            // Same input, same record.
            let again = ts::schedule(&body, &machine, s, opts.clone()).unwrap();
            prop_assert_eq!(Some(&r), again.as_ref());
            let st = u64::from(r.num_stages);
            for t in [0, 1, st - 1, st, 37] {
                check_expansion(&body, &r, t)?;
            }
            iis.insert(s, (r.ii, r.num_stages));
        }
        let serial = iis[&ts::Strategy::Serial];
        prop_assert_eq!(serial.1, 1);
        // The serial length is where FAST falls back, so it never does worse than that.
        prop_assert!(iis[&ts::Strategy::Fast].0 <= serial.0);
        // COST_BASED considers the serial schedule, so its estimate is never worse.
        let cost = |(ii, s): (u32, u32)| {
            u64::from(ii) * (ts::DEFAULT_TRIP_COUNT + u64::from(s) - 1)
                + ts::STAGE_PENALTY * (u64::from(s) - 1)
        };
        prop_assert!(cost(iis[&ts::Strategy::CostBased]) <= cost(serial));
    }

    #[test]
    fn max_stages_is_respected(
        (body, machine) in arb_case(25),
        max in 1u32..4,
        trips in prop::option::of(0u64..200),
        ratio in 0u32..8,
    ) {
        let opts = ScheduleOptions { max_stages: Some(max), budget_ratio: ratio, trip_count: trips };
        for s in [ts::Strategy::Fast, ts::Strategy::CostBased] {
            let r = ts::schedule(&body, &machine, s, opts.clone()).unwrap().unwrap();
            ts::verify(&body, &machine, &r).unwrap();
            prop_assert!(r.num_stages <= max);
            prop_assert_eq!(r.iters, trips.map_or(-1, |t| t as i64));
        }
    }

    #[test]
    fn rec_mii_matches_cycle_enumeration((body, _machine) in arb_case(6)) {
        prop_assert_eq!(ts::rec_mii(&body), brute_rec_mii(&body));
    }
}

/// Arbitrary, often invalid input: op and resource indices past the end, zero-unit resources,
/// zero-distance back edges (cycles), overlapping reservations, huge latencies.
fn arb_raw() -> impl Strategy<Value = (LoopBody, Machine)> {
    let lat = prop_oneof![0u32..20, Just(u32::MAX), Just(1 << 20)];
    (
        prop::collection::vec(0u32..3, 0..4),
        prop::collection::vec(
            (
                lat.clone(),
                prop::collection::vec((0usize..5, 0u32..6, 0u32..6), 0..4),
            ),
            0..8,
        ),
        prop::collection::vec((0usize..10, 0usize..10, lat, 0u32..3), 0..16),
    )
        .prop_map(|(units, ops, deps)| {
            let machine = Machine::new(
                80,
                units
                    .iter()
                    .enumerate()
                    .map(|(i, &u)| Resource {
                        name: format!("r{i}"),
                        units: u,
                    })
                    .collect(),
            );
            let ops = ops
                .into_iter()
                .enumerate()
                .map(|(i, (latency, uses))| OpNode {
                    name: format!("op{i}"),
                    latency,
                    uses: uses
                        .into_iter()
                        .map(|(resource, start, cycles)| ResourceUse {
                            resource,
                            start,
                            cycles,
                        })
                        .collect(),
                    work: 1,
                })
                .collect();
            let deps = deps
                .into_iter()
                .map(|(from, to, latency, distance)| Dep {
                    from,
                    to,
                    latency,
                    distance,
                })
                .collect();
            (LoopBody { ops, deps }, machine)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Bad input is an error, never a panic; whatever is accepted is a valid schedule.
    #[test]
    fn arbitrary_input_never_panics((body, machine) in arb_raw(), trips in prop::option::of(any::<u64>())) {
        let _ = ts::res_mii(&body, &machine);
        let _ = ts::rec_mii(&body);
        let valid = ts::validate(&body, &machine);
        for s in ts::Strategy::ALL {
            let opts = ScheduleOptions { trip_count: trips, ..ScheduleOptions::default() };
            match ts::schedule(&body, &machine, s, opts) {
                Ok(Some(r)) => {
                    prop_assert!(valid.is_ok());
                    prop_assert_eq!(ts::verify(&body, &machine, &r), Ok(()));
                    let _ = r.use_dual_simt();
                    check_expansion(&body, &r, 3)?;
                }
                Ok(None) => prop_assert_eq!(s.resolve(machine.sm), ts::Strategy::None),
                Err(e) => {
                    // Only a body that validates can be too long after list scheduling.
                    prop_assert!(valid.is_err() || matches!(e, ts::SchedError::TooLong { .. }), "{e}");
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
    }
}

/// Max over all simple cycles of `ceil(latency / distance)`, by enumerating them: from each
/// start op, depth-first over dependences into higher-indexed unvisited ops and back.
fn brute_rec_mii(body: &LoopBody) -> u32 {
    fn dfs(
        body: &LoopBody,
        start: usize,
        u: usize,
        lat: u64,
        dist: u64,
        on_path: &mut Vec<bool>,
        best: &mut u64,
    ) {
        for d in body.deps.iter().filter(|d| d.from == u) {
            let (l, k) = (lat + u64::from(d.latency), dist + u64::from(d.distance));
            if d.to == start {
                // The generator never makes zero-distance cycles.
                *best = (*best).max(l.div_ceil(k));
            } else if d.to > start && !on_path[d.to] {
                on_path[d.to] = true;
                dfs(body, start, d.to, l, k, on_path, best);
                on_path[d.to] = false;
            }
        }
    }
    let mut best = 0;
    for s in 0..body.ops.len() {
        let mut on_path = vec![false; body.ops.len()];
        on_path[s] = true;
        dfs(body, s, s, 0, 0, &mut on_path, &mut best);
    }
    best as u32
}

#[test]
fn rec_mii_handles_ten_thousand_ops() {
    // A chain with ~3 edges per op: forward edges, short back edges (distance 1..3) and a few
    // long ones that merge everything into one big component. The worst cycle is the
    // self-recurrence of latency 40 / distance 1 on the last op.
    let n = 10_000usize;
    let mut deps = Vec::new();
    for i in 0..n - 1 {
        deps.push(Dep {
            from: i,
            to: i + 1,
            latency: 3,
            distance: 0,
        });
        if i % 3 == 0 && i + 2 < n {
            deps.push(Dep {
                from: i,
                to: i + 2,
                latency: 5,
                distance: 0,
            });
        }
        if i >= 4 {
            deps.push(Dep {
                from: i,
                to: i - 4,
                latency: 2,
                distance: 7,
            });
        }
    }
    deps.push(Dep {
        from: n - 1,
        to: 0,
        latency: 1,
        distance: 1000,
    });
    deps.push(Dep {
        from: n - 1,
        to: n - 1,
        latency: 40,
        distance: 1,
    });
    let body = LoopBody {
        ops: (0..n)
            .map(|i| OpNode {
                name: format!("op{i}"),
                latency: 3,
                uses: vec![],
                work: 1,
            })
            .collect(),
        deps,
    };
    // Every back edge i -> i-4 closes a cycle of 4 forward edges (latency 12) + 2 over 7
    // iterations: ceil(14 / 7) = 2; the self loop needs 40; the long cycle 3*9999+1 over 1000
    // needs 30.
    assert_eq!(ts::rec_mii(&body), 40);
    let r = ts::schedule(
        &body,
        &Machine::hopper(),
        ts::Strategy::Fast,
        ScheduleOptions::default(),
    )
    .unwrap()
    .unwrap();
    ts::verify(&body, &Machine::hopper(), &r).unwrap();
}
