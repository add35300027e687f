//! RecMII on two 10000-op graphs, then scheduler throughput on synthetic loop bodies of 10, 100, 1000 and 10000 ops (a mix of
//! TMA loads, ALU ops, load/store ops and tensor-core MMAs with short-range dependences and
//! loop-carried recurrences, on the Hopper-like machine). For FAST and COST_BASED prints the
//! minimum and median wall time of `schedule` (validation, MII bounds, serial schedule and the
//! modulo scheduling itself), the time per op, and the growth of the minimum from the previous
//! size. `cargo bench -p tileir-sched --bench schedule -- [filter]`.
#![allow(clippy::print_stdout)]

use std::time::Instant;
use tileir_sched::{
    rec_mii, schedule, verify, Dep, LoopBody, Machine, OpNode, ResourceUse, ScheduleOptions,
    Strategy,
};

/// A tiny deterministic generator (64-bit LCG), so every run benches the same bodies.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

fn body(n: usize, m: &Machine) -> LoopBody {
    let (tma, tc, alu, lsu) = (
        m.resource("tma").unwrap(),
        m.resource("tensor_core").unwrap(),
        m.resource("alu").unwrap(),
        m.resource("lsu").unwrap(),
    );
    let mut rng = Lcg(n as u64);
    let use_ = |resource, cycles| ResourceUse {
        resource,
        start: 0,
        cycles,
    };
    let ops = (0..n)
        .map(|i| {
            let (latency, uses) = match rng.next(10) {
                0 => (80, vec![use_(tma, 2)]),
                1 => (8, vec![use_(tc, 6)]),
                2 | 3 => (20, vec![use_(lsu, 1)]),
                _ => (4, vec![use_(alu, 1)]),
            };
            OpNode {
                name: format!("op{i}"),
                latency,
                uses,
                work: 1 + rng.next(4) as u32,
            }
        })
        .collect::<Vec<_>>();
    let mut deps = Vec::new();
    for i in 1..n {
        // One or two producers among the previous 8 ops.
        for _ in 0..1 + rng.next(2) {
            let from = i - 1 - rng.next(i.min(8) as u64) as usize;
            deps.push(Dep {
                from,
                to: i,
                latency: ops[from].latency,
                distance: 0,
            });
        }
        // Every tenth op or so feeds an earlier op of a later iteration: a recurrence.
        if rng.next(10) == 0 {
            let to = i - rng.next(i.min(16) as u64) as usize;
            deps.push(Dep {
                from: i,
                to,
                latency: ops[i].latency,
                distance: 1 + rng.next(3) as u32,
            });
        }
    }
    LoopBody { ops, deps }
}

/// 10000 ops and ~30000 edges forming one strongly connected component: a forward chain with
/// skip edges, back edges of distance 7 every op and one long back edge closing the chain, so
/// RecMII has to search a single huge component.
fn one_component(n: usize) -> LoopBody {
    let mut deps = Vec::new();
    for i in 0..n - 1 {
        deps.push(Dep::new(i, i + 1, 3, 0));
        if i % 2 == 0 && i + 2 < n {
            deps.push(Dep::new(i, i + 2, 5, 0));
        }
        if i >= 4 {
            deps.push(Dep::new(i, i - 4, 2, 7));
        }
    }
    deps.push(Dep::new(n - 1, 0, 1, 1000));
    LoopBody {
        ops: (0..n)
            .map(|i| OpNode::new(format!("op{i}"), 3, vec![]))
            .collect(),
        deps,
    }
}


/// Minimum and median of `reps` timed runs after one warm-up, in seconds.
fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    f();
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[0], times[times.len() / 2])
}

fn main() {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    let m = Machine::hopper();
    for (label, b) in [
        ("rec_mii synthetic 10000 ops", body(10000, &m)),
        ("rec_mii one SCC 10000 ops", one_component(10000)),
    ] {
        if !label.contains(&filter) {
            continue;
        }
        let (min, median) = time(5, || rec_mii(&b));
        println!(
            "{label:<30} {} edges, RecMII {:>4}  min {:>9.3} ms  median {:>9.3} ms",
            b.deps.len(),
            rec_mii(&b),
            min * 1e3,
            median * 1e3
        );
    }
    for strategy in [Strategy::Fast, Strategy::CostBased] {
        let mut prev: Option<(usize, f64)> = None;
        for n in [10usize, 100, 1000, 10000] {
            let label = format!("{strategy} {n} ops");
            if !label.contains(&filter) {
                continue;
            }
            let b = body(n, &m);
            let run = || schedule(&b, &m, strategy, ScheduleOptions::default());
            let r = run().unwrap().unwrap(); // warm-up, and a sanity check of what is timed
            verify(&b, &m, &r).unwrap();
            let (min, median) = time(if n >= 10000 { 5 } else { 11 }, run);
            let growth = prev
                .map(|(pn, pt)| format!("x{:.1} for x{} ops", min / pt, n / pn))
                .unwrap_or_default();
            println!(
                "{label:<22} II {:>5} (MII {:>5}) stages {:>3}  min {:>9.3} ms  median {:>9.3} ms  {:>7.2} us/op  {growth}",
                r.ii,
                r.mii,
                r.num_stages,
                min * 1e3,
                median * 1e3,
                min * 1e6 / n as f64
            );
            prev = Some((n, min));
        }
    }
}
