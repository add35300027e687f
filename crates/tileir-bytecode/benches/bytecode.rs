//! Bytecode read throughput against NVIDIA's `tileirdisasm` on the same files, in the same run
//! (issue #6).
//!
//! `cargo bench -p tileir-bytecode --bench bytecode [-- SIZES]`, SIZES a comma-separated list
//! of approximate op counts (default `10000,100000,1000000`).
//!
//! For each size, a generated module (the generator of the text benchmark,
//! `tileir-syntax/benches/common/gen.rs`) is parsed, verified and written as 13.3 bytecode to
//! a file. Then, on that file:
//! - tileir in process: `read` + `verify`, and `read` + `verify` + print (minimum of the
//!   repetitions; the file's bytes are already in memory);
//! - `tileirdisasm FILE > /dev/null` (NVIDIA's disassembler: reads the bytecode and prints the
//!   text), wall time of the whole process, and the same minus the process's fixed cost
//!   (`tileirdisasm` on a one-entry file of the same kind, measured in the same run);
//! - `tileir-translate -cudatilebc-to-mlir FILE > /dev/null` (our command doing the same job:
//!   read, verify, print) when `target/release/tileir-translate` exists (`cargo build
//!   --release -p tileir-tools`), so that both sides pay for process start and file I/O.
//!
//! `tileirdisasm` is looked up in `$TILEIRDISASM`, then in the bench virtual environment
//! (`.bench/venv/lib/python3*/site-packages/nvidia/cu13/bin/`, from the `nvidia-cuda-tileiras`
//! wheel), then on `PATH`; without it the peer columns say so. Ratios are peer time / tileir
//! time, so above 1 means tileir is faster.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use tileir_bytecode::{read, write, Version};
use tileir_ir::{print_module, PrintOptions};
use tileir_syntax::{parse_module, ParseOptions};

#[path = "../../tileir-syntax/benches/common/gen.rs"]
mod gen;

/// The workspace root (two levels above this crate).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn find_tileirdisasm() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TILEIRDISASM") {
        return Some(PathBuf::from(p));
    }
    let lib = workspace().join(".bench/venv/lib");
    if let Ok(dirs) = std::fs::read_dir(&lib) {
        for d in dirs.flatten() {
            let p = d.path().join("site-packages/nvidia/cu13/bin/tileirdisasm");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("tileirdisasm"))
            .find(|p| p.is_file())
    })
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

/// Minimum wall time of running `cmd args file` with stdout discarded, or why it failed.
fn time_process(reps: usize, cmd: &Path, args: &[&str], file: &Path) -> Result<f64, String> {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let start = Instant::now();
        let out = Command::new(cmd)
            .args(args)
            .arg(file)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("{}: {e}", cmd.display()))?;
        let t = start.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err(format!(
                "{} failed ({}): {}",
                cmd.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        best = best.min(t);
    }
    Ok(best)
}

/// Parses, verifies and writes a generated module of `entries` entries; returns the bytecode
/// and its op count.
fn bytecode_of(entries: usize) -> (Vec<u8>, usize) {
    let m = parse_module(&gen::generate(entries), &ParseOptions::default())
        .expect("generated module parses");
    tileir_verify::verify(&m).expect("generated module verifies");
    let ops = m.walk().len();
    (
        write(&m, Version::V13_3).expect("generated module writes"),
        ops,
    )
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|a| a.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 1_000_000]);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bytecode-bench");
    std::fs::create_dir_all(&dir).expect("bench directory");
    let disasm = find_tileirdisasm();
    let translate = workspace().join("target/release/tileir-translate");
    let translate = translate.is_file().then_some(translate);
    println!(
        "bytecode benchmark: {} CPU core(s); bytecode 13.3; minimum of the repetitions",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "  tileirdisasm: {}",
        disasm
            .as_ref()
            .map_or("not found (set TILEIRDISASM)".into(), |p| p
                .display()
                .to_string())
    );
    println!(
        "  tileir-translate: {}",
        translate.as_ref().map_or(
            "not built (cargo build --release -p tileir-tools)".into(),
            |p| p.display().to_string()
        )
    );

    let (ops_per_entry, base_file) = {
        let (bytes, ops) = bytecode_of(1);
        let f = dir.join("one-entry.tileirbc");
        std::fs::write(&f, bytes).expect("write bytecode");
        (ops - 1, f)
    };
    // The fixed cost of a tileirdisasm process (start, load, tiny input).
    let disasm_base = disasm.as_ref().map(|d| time_process(5, d, &[], &base_file));
    if let Some(b) = &disasm_base {
        match b {
            Ok(t) => println!(
                "  tileirdisasm on a one-entry file: {:.2} ms (process fixed cost)",
                t * 1e3
            ),
            Err(e) => println!("  tileirdisasm failed on a one-entry file: {e}"),
        }
    }
    println!(
        "{:>9} {:>7} | {:>10} {:>10} {:>11} | {:>12} {:>12} {:>9} {:>9} | {:>10} {:>8}",
        "ops",
        "MiB bc",
        "rd+vf ms",
        "+print ms",
        "rd+vf ops/s",
        "disasm ms",
        "disasm-base",
        "ratio A",
        "ratio B",
        "translate",
        "ratio C"
    );
    for &target in &sizes {
        let entries = target.div_ceil(ops_per_entry).max(1);
        let (bytes, ops) = bytecode_of(entries);
        let file = dir.join(format!("gen-{ops}.tileirbc"));
        std::fs::write(&file, &bytes).expect("write bytecode");
        let reps = if target >= 500_000 { 3 } else { 7 };
        let (t_rv, _) = time(reps, || {
            let m = read(&bytes).expect("our bytecode reads back");
            tileir_verify::verify(&m).expect("and verifies");
            m
        });
        let (t_rvp, _) = time(reps, || {
            let m = read(&bytes).expect("our bytecode reads back");
            tileir_verify::verify(&m).expect("and verifies");
            print_module(&m, PrintOptions::default())
        });
        let peer = disasm.as_ref().map(|d| time_process(reps, d, &[], &file));
        let ours_cli = translate
            .as_ref()
            .map(|t| time_process(reps, t, &["-cudatilebc-to-mlir"], &file));
        let (d_ms, d_net, ratio_a, ratio_b) = match (&peer, &disasm_base) {
            (Some(Ok(t)), Some(Ok(b))) => (
                format!("{:.2}", t * 1e3),
                format!("{:.2}", (t - b) * 1e3),
                format!("{:.2}x", t / t_rvp),
                format!("{:.2}x", (t - b).max(0.0) / t_rvp),
            ),
            (Some(Err(e)), _) => {
                println!("  tileirdisasm failed on {}: {e}", file.display());
                ("failed".into(), "-".into(), "-".into(), "-".into())
            }
            _ => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let (c_ms, ratio_c) = match (&ours_cli, &peer) {
            (Some(Ok(c)), Some(Ok(t))) => (format!("{:.2}", c * 1e3), format!("{:.2}x", t / c)),
            (Some(Ok(c)), _) => (format!("{:.2}", c * 1e3), "-".into()),
            (Some(Err(e)), _) => {
                println!("  tileir-translate failed on {}: {e}", file.display());
                ("failed".into(), "-".into())
            }
            _ => ("-".into(), "-".into()),
        };
        println!(
            "{ops:>9} {:>7.2} | {:>10.2} {:>10.2} {:>11.3e} | {d_ms:>12} {d_net:>12} {ratio_a:>9} {ratio_b:>9} | {c_ms:>10} {ratio_c:>8}",
            bytes.len() as f64 / (1 << 20) as f64,
            t_rv * 1e3,
            t_rvp * 1e3,
            ops as f64 / t_rv,
        );
    }
    println!("rd+vf: tileir read + verify in process; +print: also printing the text (what tileirdisasm does).");
    println!("ratio A = tileirdisasm process / tileir read+verify+print in process; ratio B = the same with");
    println!(
        "tileirdisasm's one-entry fixed cost subtracted; ratio C = tileirdisasm / tileir-translate"
    );
    println!(
        "-cudatilebc-to-mlir, both whole processes on the same file (above 1: tileir is faster)."
    );
}
