//! Interpreter throughput: a 2^20-element f32 vector add (1024-element tiles, 1024 blocks) and
//! a 512x512x512 f16 matmul (64x64x32 tiles, f32 accumulation). Prints the minimum and median
//! wall time per launch. `cargo bench -p tileir-interp --bench interp -- [filter]`.
#![allow(clippy::print_stdout)]

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/kernels/mod.rs"]
mod kernels;

use std::time::Instant;
use tileir_interp::{ArgValue, Memory, RunOptions};
use tileir_ir::NumType;

/// Runs `f` once to warm up, then `reps` times; prints the minimum and the median wall time
/// (the minimum is the figure least disturbed by other load on the machine). Benchmarks whose
/// label does not contain the first command-line filter (if any) are skipped.
fn time<T>(label: &str, reps: u32, mut f: impl FnMut() -> T) {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    if !label.contains(&filter) {
        return;
    }
    f(); // warm-up
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{label:<66} min {:>8.3} ms  median {:>8.3} ms",
        times[0] * 1e3,
        times[times.len() / 2] * 1e3
    );
}

fn main() {
    // Vector add.
    let n = 1 << 20;
    let k = kernels::vector_add(n, 1024);
    let mut mem = Memory::new();
    let a = mem.alloc_f32(&(0..n).map(|i| i as f32).collect::<Vec<_>>());
    let b = mem.alloc_f32(&(0..n).map(|i| 0.5 * i as f32).collect::<Vec<_>>());
    let c = mem.alloc(n as usize * 4, 256);
    let args = [ArgValue::Ptr(a), ArgValue::Ptr(b), ArgValue::Ptr(c)];
    for (label, opts) in [
        (
            "vector add 2^20 f32, 1024 blocks (sequential)",
            RunOptions::default(),
        ),
        (
            "vector add 2^20 f32, 1024 blocks (parallel)",
            RunOptions {
                parallel: true,
                ..RunOptions::default()
            },
        ),
        (
            "vector add 2^20 f32, 1024 blocks (detect_races)",
            RunOptions {
                detect_races: true,
                ..RunOptions::default()
            },
        ),
    ] {
        time(label, 21, || {
            k.run([1024, 1, 1], &args, &mut mem, &opts).unwrap()
        });
    }

    // f16 matmul.
    let (m, nn, kk) = (512i64, 512i64, 512i64);
    let km = kernels::matmul(NumType::F16, m, nn, kk, 64, 64, 32);
    let mut mem = Memory::new();
    let half = |i: i64| {
        tileir_numeric::encode(
            tileir_numeric::FloatFormat::F16,
            ((i % 17) as f64 - 8.0) / 8.0,
            tileir_numeric::Rounding::NearestEven,
            tileir_numeric::Saturation::None,
        )
    };
    let a = mem.alloc_bytes(&common::to_bytes(
        NumType::F16,
        &(0..m * kk).map(half).collect::<Vec<_>>(),
    ));
    let b = mem.alloc_bytes(&common::to_bytes(
        NumType::F16,
        &(0..kk * nn).map(|i| half(i * 7)).collect::<Vec<_>>(),
    ));
    let c = mem.alloc((m * nn) as usize * 4, 256);
    let args = [ArgValue::Ptr(a), ArgValue::Ptr(b), ArgValue::Ptr(c)];
    let grid = [(nn / 64) as u32, (m / 64) as u32, 1];
    time(
        "matmul 512^3 f16 -> f32, 64x64x32 tiles, 64 blocks (sequential)",
        7,
        || {
            km.run(grid, &args, &mut mem, &RunOptions::default())
                .unwrap()
        },
    );
    time(
        "matmul 512^3 f16 -> f32, 64x64x32 tiles, 64 blocks (parallel)",
        7,
        || {
            km.run(
                grid,
                &args,
                &mut mem,
                &RunOptions {
                    parallel: true,
                    ..RunOptions::default()
                },
            )
            .unwrap()
        },
    );
}
