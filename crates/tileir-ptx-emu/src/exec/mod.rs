//! The executor: a launch runs its clusters on a pool of OS threads (one cluster per thread at a
//! time); inside a CTA, warps are scheduled round-robin and each warp executes its lanes in
//! lockstep over per-lane register files.

pub mod alu;
mod asyncop;
mod collective;
mod cta;
pub mod cvt;
pub mod fp;
mod half;
mod lanes;
mod matrix;
mod printf;
mod warp;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{EmuError, ErrorKind, Result};
use crate::mem::GlobalMem;
use crate::program::Program;

/// Launch options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Check shared memory for races: a read or write of bytes another thread of the CTA
    /// (same warp or not) wrote, or a write of bytes another thread read, with no barrier,
    /// mbarrier wait or bar.warp.sync ordering them (vector clocks; atomics never race).
    /// Global memory is checked the same way among the threads of each CTA.
    pub race_check: bool,
    /// Most warp-instructions one CTA may execute before the launch fails (livelock guard).
    pub max_warp_steps: u64,
    /// OS threads running CTAs (0: all available cores).
    pub threads: usize,
    /// The byte shared memory starts filled with (0xFF: NaN in every float format, -1 in
    /// every integer one). With `race_check`, reading a never-written byte is an error.
    pub shared_fill: u8,
    /// Cluster dimensions given at launch (the runtime's cluster launch attribute); a
    /// kernel's `.reqnctapercluster` must agree. None: the kernel's, or clusters of one CTA.
    pub cluster: Option<[u32; 3]>,
}

impl Default for Options {
    fn default() -> Self {
        Options { race_check: false, max_warp_steps: 1 << 28, threads: 0, shared_fill: 0xFF, cluster: None }
    }
}

/// CUDA's default `cudaLimitMallocHeapSize`: 8 MiB of device heap for in-kernel `malloc`.
pub const DEFAULT_MALLOC_HEAP_BYTES: u64 = 8 * 1024 * 1024;

/// Grid, block, dynamic shared memory and device-heap size of a launch.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// CTAs per dimension.
    pub grid: [u32; 3],
    /// Threads per CTA per dimension.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory.
    pub dyn_shared: u32,
    /// Options.
    pub options: Options,
    /// Capacity of the device heap (`cudaLimitMallocHeapSize`): in-kernel `malloc` returns
    /// NULL when its live allocations plus the request would exceed it. Default
    /// [`DEFAULT_MALLOC_HEAP_BYTES`], CUDA's 8 MiB.
    pub malloc_heap_bytes: u64,
}

impl Default for LaunchConfig {
    /// One CTA of one thread, no dynamic shared memory, default options and heap (start
    /// from it with `..LaunchConfig::default()`).
    fn default() -> Self {
        LaunchConfig { grid: [1, 1, 1], block: [1, 1, 1], dyn_shared: 0, options: Options::default(), malloc_heap_bytes: DEFAULT_MALLOC_HEAP_BYTES }
    }
}

/// What a launch produced besides memory.
#[derive(Clone, Debug, Default)]
pub struct LaunchStats {
    /// `printf` output, CTA by CTA in launch order.
    pub output: String,
    /// Thread-instructions executed (instructions times active lanes, guards included).
    pub thread_insts: u64,
    /// Warp-instructions executed.
    pub warp_insts: u64,
    /// Successful device `malloc` calls (zero-byte ones included).
    pub heap_allocations: u64,
    /// `free` calls that released an allocation (`free(NULL)` not counted).
    pub heap_frees: u64,
    /// `malloc` calls that returned NULL (the heap was full).
    pub heap_failed_allocations: u64,
    /// Most bytes of device heap live at once.
    pub heap_peak_bytes: u64,
    /// Allocations never freed when the launch ended (0 when every malloc had its free).
    pub heap_live_at_exit: u64,
}

/// Everything CTAs share.
pub(crate) struct LaunchCtx<'a> {
    pub prog: &'a Program,
    pub cfg: &'a LaunchConfig,
    pub params: &'a [u8],
    pub global: &'a GlobalMem,
    /// Cluster dimensions (CTAs).
    pub cluster: [u32; 3],
    /// `%is_explicit_cluster`.
    pub explicit: bool,
}

/// Runs `prog` over the grid. `params` is the parameter buffer laid out as
/// [`Program::params`] says.
pub fn launch(prog: &Program, cfg: &LaunchConfig, params: &[u8], global: &GlobalMem) -> Result<LaunchStats> {
    let nthreads_cta = cfg.block.iter().map(|&b| b as u64).product::<u64>();
    if nthreads_cta == 0 || nthreads_cta > 1024 {
        return Err(EmuError::new(ErrorKind::Launch, 0, format!("block {:?} has {nthreads_cta} threads; a CTA has 1 to 1024", cfg.block)));
    }
    if let Some(req) = prog.reqntid {
        let n = req.iter().map(|&b| b as u64).product::<u64>();
        if n != nthreads_cta {
            return Err(EmuError::new(
                ErrorKind::Launch,
                0,
                format!("kernel '{}' requires {:?} threads per CTA (.reqntid/.maxntid), the launch gives {:?}", prog.name, req, cfg.block),
            ));
        }
    }
    let cluster = match (prog.cluster, cfg.options.cluster) {
        (Some(k), Some(o)) if k != o => {
            return Err(EmuError::new(ErrorKind::Launch, 0, format!("kernel '{}' requires clusters of {:?} CTAs (.reqnctapercluster), the launch asks for {:?}", prog.name, k, o)));
        }
        (k, o) => k.or(o).unwrap_or([1, 1, 1]),
    };
    if cluster.contains(&0) || cluster.iter().product::<u32>() > 16 {
        return Err(EmuError::new(ErrorKind::Launch, 0, format!("cluster dimensions {cluster:?}: a cluster has 1 to 16 CTAs")));
    }
    if (0..3).any(|d| cfg.grid[d] % cluster[d] != 0) {
        return Err(EmuError::new(
            ErrorKind::Launch,
            0,
            format!("grid {:?} is not divisible into clusters of {:?} CTAs (kernel '{}')", cfg.grid, cluster, prog.name),
        ));
    }
    if params.len() < prog.param_bytes {
        return Err(EmuError::new(ErrorKind::Launch, 0, format!("kernel '{}' takes {} parameter bytes, got {}", prog.name, prog.param_bytes, params.len())));
    }
    let ncta = cfg.grid.iter().map(|&g| g as u64).product::<u64>();
    if ncta == 0 {
        return Ok(LaunchStats::default());
    }
    let ctx = LaunchCtx { prog, cfg, params, global, cluster, explicit: prog.explicit_cluster || cfg.options.cluster.is_some() };
    let csize = cluster.iter().map(|&c| c as u64).product::<u64>();
    let nclusters = ncta / csize;
    let ng = [cfg.grid[0] / cluster[0], cfg.grid[1] / cluster[1]];
    let workers = if cfg.options.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cfg.options.threads
    }
    .min(nclusters as usize)
    .max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<(u64, EmuError)>> = Mutex::new(None);
    let outputs: Mutex<Vec<(u64, String)>> = Mutex::new(Vec::new());
    let thread_insts = AtomicU64::new(0);
    let warp_insts = AtomicU64::new(0);
    let work = || {
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let ci = next.fetch_add(1, Ordering::Relaxed) as u64;
            if ci >= nclusters {
                break;
            }
            let cid = [(ci % ng[0] as u64) as u32, ((ci / ng[0] as u64) % ng[1] as u64) as u32, (ci / (ng[0] as u64 * ng[1] as u64)) as u32];
            let linear = |c: [u32; 3]| c[0] as u64 + cfg.grid[0] as u64 * (c[1] as u64 + cfg.grid[1] as u64 * c[2] as u64);
            let first = [cid[0] * cluster[0], cid[1] * cluster[1], cid[2] * cluster[2]];
            match cta::run_cluster(&ctx, cid) {
                Ok(rs) => {
                    for (ctaid, r) in rs {
                        thread_insts.fetch_add(r.thread_insts, Ordering::Relaxed);
                        warp_insts.fetch_add(r.warp_insts, Ordering::Relaxed);
                        if !r.output.is_empty() {
                            outputs.lock().unwrap_or_else(|e| e.into_inner()).push((linear(ctaid), r.output));
                        }
                    }
                }
                Err(e) => {
                    let i = linear(first);
                    let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
                    if f.as_ref().is_none_or(|(j, _)| i < *j) {
                        *f = Some((i, e));
                    }
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    };
    if workers == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(work);
            }
        });
    }
    if let Some((_, e)) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut outs = outputs.into_inner().unwrap_or_else(|e| e.into_inner());
    outs.sort_by_key(|(i, _)| *i);
    // The heap belongs to `global`, which `crate::run` makes for each launch.
    let heap = global.heap_stats();
    Ok(LaunchStats {
        output: outs.into_iter().map(|(_, s)| s).collect(),
        thread_insts: thread_insts.into_inner(),
        warp_insts: warp_insts.into_inner(),
        heap_allocations: heap.allocations,
        heap_frees: heap.frees,
        heap_failed_allocations: heap.failed,
        heap_peak_bytes: heap.peak_bytes,
        heap_live_at_exit: heap.live_allocations,
    })
}
