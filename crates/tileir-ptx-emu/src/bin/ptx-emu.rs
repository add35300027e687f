//! `ptx-emu`: runs a kernel of a .ptx file on buffers given on the command line.
//!
//!     ptx-emu FILE.ptx [--kernel NAME] --grid X[,Y,Z] --block X[,Y,Z] [--shared BYTES]
//!             [--cluster X[,Y,Z]] [--race-check] [--shared-fill BYTE] [--malloc-heap BYTES]
//!             [--out DIR] ARG...
//!
//! Each ARG is one kernel parameter, in order:
//!   u32:V  u64:V  f32:V  f64:V      a scalar
//!   buf:NAME:BYTES                  a zero-filled buffer of BYTES bytes
//!   in:NAME:FILE                    a buffer with FILE's bytes
//!   f32s:NAME:V1,V2,...             a buffer of f32 values (also i32s, u32s)
//! After the run every buffer is printed (hex, or values for the typed forms); `--out DIR`
//! writes each buffer to DIR/NAME.bin instead. `--malloc-heap` is the device heap's capacity
//! for in-kernel `malloc` (default 8 MiB, CUDA's); a kernel that used it gets a line with the
//! heap's counters on stderr.

// A command-line tool: its output is the point.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;

use tileir_ptx_emu::{run, Arg, Buffer, LaunchConfig, Module, Options};

#[derive(Clone, Copy)]
enum Show {
    Hex,
    F32,
    I32,
    U32,
}

fn dims(s: &str) -> Result<[u32; 3], String> {
    let mut d = [1u32; 3];
    for (i, p) in s.split(',').enumerate() {
        if i >= 3 {
            return Err(format!("'{s}' has more than 3 dimensions"));
        }
        d[i] = p.trim().parse().map_err(|_| format!("bad dimension '{p}' in '{s}'"))?;
    }
    Ok(d)
}

fn main_inner() -> Result<(), String> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() || argv.iter().any(|a| a == "-h" || a == "--help") {
        return Err("usage: ptx-emu FILE.ptx [--kernel NAME] --grid X[,Y,Z] --block X[,Y,Z] [--shared BYTES] [--cluster X[,Y,Z]] [--race-check] [--shared-fill BYTE] [--malloc-heap BYTES] [--out DIR] ARG...\n  \
                    ARG: u32:V u64:V f32:V f64:V buf:NAME:BYTES in:NAME:FILE f32s:NAME:V,.. i32s:NAME:V,.. u32s:NAME:V,.."
            .into());
    }
    let mut file = None;
    let mut kernel = None;
    let mut grid = [1, 1, 1];
    let mut block = None;
    let mut shared = 0u32;
    let mut heap = tileir_ptx_emu::DEFAULT_MALLOC_HEAP_BYTES;
    let mut options = Options::default();
    let mut out_dir = None;
    let mut args = Vec::new();
    let mut bufs: Vec<Buffer> = Vec::new();
    let mut shows = Vec::new();
    let mut it = argv.into_iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--kernel" => kernel = Some(value("--kernel")?),
            "--grid" => grid = dims(&value("--grid")?)?,
            "--block" => block = Some(dims(&value("--block")?)?),
            "--shared" => shared = value("--shared")?.parse().map_err(|_| "bad --shared")?,
            "--race-check" => options.race_check = true,
            "--cluster" => options.cluster = Some(dims(&value("--cluster")?)?),
            "--shared-fill" => options.shared_fill = value("--shared-fill")?.parse().map_err(|_| "bad --shared-fill (a byte)")?,
            "--malloc-heap" => heap = value("--malloc-heap")?.parse().map_err(|_| "bad --malloc-heap (bytes)")?,
            "--out" => out_dir = Some(value("--out")?),
            _ if file.is_none() && !a.contains(':') => file = Some(a),
            _ => {
                let (kind, rest) = a.split_once(':').ok_or_else(|| format!("bad argument '{a}'"))?;
                let bad = || format!("bad argument '{a}'");
                match kind {
                    "u32" => args.push(Arg::U32(rest.parse().map_err(|_| bad())?)),
                    "u64" => args.push(Arg::U64(rest.parse().map_err(|_| bad())?)),
                    "f32" => args.push(Arg::F32(rest.parse().map_err(|_| bad())?)),
                    "f64" => args.push(Arg::F64(rest.parse().map_err(|_| bad())?)),
                    "buf" | "in" | "f32s" | "i32s" | "u32s" => {
                        let (name, spec) = rest.split_once(':').ok_or_else(bad)?;
                        let (data, show) = match kind {
                            "buf" => (vec![0u8; spec.parse().map_err(|_| bad())?], Show::Hex),
                            "in" => (std::fs::read(spec).map_err(|e| format!("cannot read '{spec}': {e}"))?, Show::Hex),
                            "f32s" => (spec.split(',').map(|v| v.trim().parse::<f32>().map(|x| x.to_le_bytes())).collect::<Result<Vec<_>, _>>().map_err(|_| bad())?.concat(), Show::F32),
                            "i32s" => (spec.split(',').map(|v| v.trim().parse::<i32>().map(|x| x.to_le_bytes())).collect::<Result<Vec<_>, _>>().map_err(|_| bad())?.concat(), Show::I32),
                            _ => (spec.split(',').map(|v| v.trim().parse::<u32>().map(|x| x.to_le_bytes())).collect::<Result<Vec<_>, _>>().map_err(|_| bad())?.concat(), Show::U32),
                        };
                        args.push(Arg::Buffer(bufs.len(), 0));
                        bufs.push(Buffer::new(name, data));
                        shows.push(show);
                    }
                    _ => return Err(bad()),
                }
            }
        }
    }
    let file = file.ok_or("no .ptx file given")?;
    let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read '{file}': {e}"))?;
    let module = Module::parse(&text).map_err(|e| format!("{file}: {e}"))?;
    let prog = module.kernel(kernel.as_deref()).map_err(|e| format!("{file}: {e}"))?;
    let block = block.or(prog.reqntid).ok_or("--block is required (the kernel has no .reqntid)")?;
    let cfg = LaunchConfig { grid, block, dyn_shared: shared, options, malloc_heap_bytes: heap };
    let t0 = std::time::Instant::now();
    let stats = run(&prog, &cfg, &args, &mut bufs).map_err(|e| format!("{file}: {e}"))?;
    let dt = t0.elapsed().as_secs_f64();
    print!("{}", stats.output);
    eprintln!(
        "ran {} grid {:?} block {:?}: {} thread-instructions in {:.3} s ({:.3e}/s)",
        prog.name,
        grid,
        block,
        stats.thread_insts,
        dt,
        stats.thread_insts as f64 / dt.max(1e-9)
    );
    if stats.heap_allocations + stats.heap_failed_allocations > 0 {
        eprintln!(
            "device heap: {} malloc(s) ({} returned NULL), {} free(s), peak {} byte(s), {} allocation(s) never freed",
            stats.heap_allocations + stats.heap_failed_allocations,
            stats.heap_failed_allocations,
            stats.heap_frees,
            stats.heap_peak_bytes,
            stats.heap_live_at_exit
        );
    }
    for (b, show) in bufs.iter().zip(&shows) {
        if let Some(dir) = &out_dir {
            let p = std::path::Path::new(dir).join(format!("{}.bin", b.name));
            std::fs::write(&p, &b.data).map_err(|e| format!("cannot write '{}': {e}", p.display()))?;
            continue;
        }
        let words = b.data.chunks(4).map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            w
        });
        let text: Vec<String> = match show {
            Show::Hex => b.data.iter().map(|x| format!("{x:02x}")).collect(),
            Show::F32 => words.map(|w| f32::from_le_bytes(w).to_string()).collect(),
            Show::I32 => words.map(|w| i32::from_le_bytes(w).to_string()).collect(),
            Show::U32 => words.map(|w| u32::from_le_bytes(w).to_string()).collect(),
        };
        println!("{}: {}", b.name, text.join(" "));
    }
    Ok(())
}

fn main() -> ExitCode {
    match main_inner() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ptx-emu: {e}");
            ExitCode::FAILURE
        }
    }
}
