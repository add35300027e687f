//! Text throughput at scale (issue #3): parse, verify and print generated `cuda_tile` modules of
//! about 10^4, 10^5 and 10^6 ops, printing milliseconds and ops per second for each stage, the
//! per-op time of the largest module relative to the smallest (1.0 means linear scaling) and
//! the process's peak resident memory per size.
//!
//! `cargo bench -p tileir-syntax --bench scale [-- SIZES]` where SIZES is a comma-separated
//! list of approximate op counts (default `10000,100000,1000000`).
//!
//! The modules come from `common/gen.rs` (many copies of one entry mixing arithmetic,
//! conversions, shape ops, views, a reduction and `for`/`if`/`loop` control flow; the
//! bytecode benchmark of `tileir-bytecode` uses the same generator). There is no peer here: NVIDIA's `cuda-tile-opt` is not distributed
//! in any installable package, so the figures are absolute.
#![allow(clippy::print_stdout)]

use std::time::Instant;
use tileir_ir::{print_module, Module, PrintOptions};
use tileir_syntax::{parse_module, ParseOptions};

#[path = "common/gen.rs"]
mod gen;
use gen::generate;

/// Ops in the module (every op, nested ones included, and the module op itself).
fn count_ops(m: &Module) -> usize {
    m.walk().len()
}

/// Peak resident set size of the process (VmHWM), in MiB, if the kernel reports it.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Resets the peak RSS to the current RSS (Linux: writing 5 to /proc/self/clear_refs), so
/// that each size reports its own peak; false when that is not possible.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Minimum wall time of `reps` runs of `f`, in seconds, and the last result.
fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..reps {
        // Drop the previous result first (outside the timed region), so that a repetition
        // neither pays for it nor shares memory with it.
        drop(last.take());
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.expect("at least one repetition"))
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|a| a.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 1_000_000]);
    let ops_per_entry = {
        let m = parse_module(&generate(1), &ParseOptions::default()).expect("template parses");
        tileir_verify::verify(&m).expect("template verifies");
        count_ops(&m) - 1
    };
    println!(
        "text scale benchmark: {} CPU core(s); one entry = {ops_per_entry} ops; minimum of the repetitions",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "{:>9} {:>8} | {:>9} {:>11} | {:>9} {:>11} | {:>9} {:>11} | {:>9}",
        "ops",
        "MiB text",
        "parse ms",
        "ops/s",
        "verify ms",
        "ops/s",
        "print ms",
        "ops/s",
        "peak MiB"
    );
    let mut per_op: Vec<(usize, [f64; 3])> = Vec::new();
    for &target in &sizes {
        let entries = target.div_ceil(ops_per_entry).max(1);
        let text = generate(entries);
        // Fewer repetitions for the big sizes; the minimum is taken.
        let reps = if target >= 500_000 { 2 } else { 5 };
        let reset = reset_peak_rss();
        let opts = ParseOptions {
            file_name: "scale.mlir".into(),
            ..ParseOptions::default()
        };
        let (t_parse, m) = time(reps, || {
            parse_module(&text, &opts).expect("generated module parses")
        });
        let ops = count_ops(&m);
        let (t_verify, r) = time(reps, || tileir_verify::verify(&m));
        r.expect("generated module verifies");
        let (t_print, printed) = time(reps, || print_module(&m, PrintOptions::default()));
        std::hint::black_box(&printed);
        let peak = if reset { peak_rss_mib() } else { None };
        let rate = |t: f64| ops as f64 / t;
        println!(
            "{ops:>9} {:>8.1} | {:>9.2} {:>11.3e} | {:>9.2} {:>11.3e} | {:>9.2} {:>11.3e} | {:>9}",
            text.len() as f64 / (1 << 20) as f64,
            t_parse * 1e3,
            rate(t_parse),
            t_verify * 1e3,
            rate(t_verify),
            t_print * 1e3,
            rate(t_print),
            peak.map_or("-".to_string(), |p| format!("{p:.0}")),
        );
        per_op.push((
            ops,
            [
                t_parse / ops as f64,
                t_verify / ops as f64,
                t_print / ops as f64,
            ],
        ));
        drop(printed);
        drop(m);
    }
    if let (Some(first), Some(last)) = (per_op.first(), per_op.last()) {
        if last.0 > first.0 {
            println!(
                "scaling: per-op time at {} ops / at {} ops: parse {:.2}, verify {:.2}, print {:.2} (1.00 = linear)",
                last.0,
                first.0,
                last.1[0] / first.1[0],
                last.1[1] / first.1[1],
                last.1[2] / first.1[2]
            );
        }
    }
    println!("peak MiB: the process's peak resident memory while that size was parsed, verified and printed (text, module and printed text together)");
}
