//! One CTA: its warps, shared memory and barriers; the round-robin warp scheduler, barrier
//! completion, and the deadlock report when no warp can move.

use super::warp::{lanes_text, Warp};
use super::LaunchCtx;
use crate::error::{EmuError, ErrorKind, Result};
use crate::program::{BarKind, Reg, Special};

/// Warp-instructions a warp runs before the scheduler moves on (spin loops waiting on other
/// warps get preempted; straight-line code pays the switch rarely).
const SLICE: u64 = 4096;

/// A named barrier's state.
#[derive(Clone, Debug, Default)]
pub(crate) struct BarState {
    /// Threads arrived in the current phase.
    pub arrived: u32,
    /// Threads the phase waits for (0: every live thread of the CTA).
    pub expected: u32,
    /// bar.red: the reduction and its destination register.
    pub red: Option<(BarKind, Reg)>,
    /// Running popc / and / or of the reduction.
    pub popc: u32,
    /// and
    pub all: bool,
    /// or
    pub any: bool,
}

/// Shared-memory race shadow: per byte, the last writer and last reader (thread+1, 0: none)
/// and the barrier epoch of each.
pub(crate) struct RaceShadow {
    pub writer: Vec<u32>,
    pub write_epoch: Vec<u32>,
    pub reader: Vec<u32>,
    pub read_epoch: Vec<u32>,
    pub epoch: u32,
}

/// What a CTA shares among its warps.
pub(crate) struct Env<'a> {
    pub ctx: &'a LaunchCtx<'a>,
    pub ctaid: [u32; 3],
    pub shared: Vec<u8>,
    pub bars: Vec<BarState>,
    pub out: String,
    pub race: Option<RaceShadow>,
    pub thread_insts: u64,
    pub warp_insts: u64,
    /// mbarriers and async-copy bookkeeping.
    pub asyncs: super::asyncop::AsyncState,
    /// Counts state changes other warps could observe (stores, arrivals, copies): a round
    /// of the scheduler in which it does not move and every warp waits or spins is a
    /// deadlock.
    pub effects: u64,
}

impl Env<'_> {
    /// "CTA (x,y,z) thread (x,y,z)" of warp `wid` lane `lane`.
    pub fn who(&self, wid: u32, lane: usize) -> String {
        let b = self.ctx.cfg.block;
        let t = wid * 32 + lane as u32;
        format!(
            "CTA ({},{},{}) thread ({},{},{})",
            self.ctaid[0],
            self.ctaid[1],
            self.ctaid[2],
            t % b[0],
            (t / b[0]) % b[1],
            t / (b[0] * b[1])
        )
    }
}

/// Totals of one CTA.
pub(crate) struct CtaResult {
    pub output: String,
    pub thread_insts: u64,
    pub warp_insts: u64,
}

fn special_value(ctx: &LaunchCtx<'_>, ctaid: [u32; 3], s: Special, tid: u32, nwarps: u32) -> u64 {
    let b = ctx.cfg.block;
    let g = ctx.cfg.grid;
    let lane = tid % 32;
    let t = [tid % b[0], (tid / b[0]) % b[1], tid / (b[0] * b[1])];
    let v: u32 = match s {
        Special::Tid(d) => t[d as usize],
        Special::Ntid(d) => b[d as usize],
        Special::Ctaid(d) => ctaid[d as usize],
        Special::Nctaid(d) => g[d as usize],
        Special::Laneid => lane,
        Special::Warpid => tid / 32,
        Special::Nwarpid => nwarps,
        Special::Smid | Special::Gridid => 0,
        Special::Nsmid => 132,
        Special::Lanemask(k) => {
            let bit = 1u64 << lane;
            (match k {
                0 => bit,
                1 => (bit << 1) - 1,
                2 => bit - 1,
                3 => !(bit - 1),
                _ => !((bit << 1) - 1),
            } & 0xffff_ffff) as u32
        }
        // Clusters of one CTA: the CTA is its own cluster.
        Special::ClusterCtaid(_) => 0,
        Special::ClusterNctaid(_) => 1,
        Special::Clusterid(d) => ctaid[d as usize],
        Special::Nclusterid(d) => g[d as usize],
        Special::ClusterCtarank => 0,
        Special::ClusterNctarank => 1,
        Special::IsExplicitCluster => 0,
        Special::DynSmem => ctx.cfg.dyn_shared,
        Special::TotalSmem => (ctx.prog.shared_bytes as u32).saturating_add(ctx.cfg.dyn_shared),
    };
    v as u64
}

/// Runs one CTA to completion.
pub(crate) fn run_cta(ctx: &LaunchCtx<'_>, ctaid: [u32; 3]) -> Result<CtaResult> {
    let prog = ctx.prog;
    let nthreads: u32 = ctx.cfg.block.iter().product();
    let nwarps = nthreads.div_ceil(32);
    let shared_len = prog.shared_bytes + ctx.cfg.dyn_shared as usize;
    let mut env = Env {
        ctx,
        ctaid,
        // Shared memory starts as garbage on a GPU: a poison pattern (NaN in every float
        // width) makes reads of never-written bytes show up instead of reading as zero.
        shared: vec![ctx.cfg.options.shared_fill; shared_len],
        bars: vec![BarState::default(); 16],
        out: String::new(),
        race: ctx.cfg.options.race_check.then(|| RaceShadow {
            writer: vec![0; shared_len],
            write_epoch: vec![0; shared_len],
            reader: vec![0; shared_len],
            read_epoch: vec![0; shared_len],
            epoch: 1,
        }),
        thread_insts: 0,
        warp_insts: 0,
        asyncs: Default::default(),
        effects: 0,
    };
    let mut warps: Vec<Warp> = (0..nwarps)
        .map(|w| {
            let valid = if (w + 1) * 32 <= nthreads { u32::MAX } else { (1u32 << (nthreads - w * 32)) - 1 };
            let mut warp = Warp::new(w, prog.nregs as usize, valid, prog.local_bytes);
            for &(r, s) in &prog.specials {
                for lane in 0..32 {
                    warp.regs[r as usize * 32 + lane] = special_value(ctx, ctaid, s, w * 32 + lane as u32, nwarps);
                }
            }
            warp
        })
        .collect();
    loop {
        let mut progressed = false;
        let mut all_done = true;
        let effects = env.effects;
        for w in 0..warps.len() {
            if warps[w].finished() {
                continue;
            }
            all_done = false;
            // A warp that only went round its spin loop (parked on a failed mbarrier wait)
            // has not progressed unless something it did is visible to others.
            if warps[w].run(&mut env, SLICE)? > 0 && !warps[w].spun {
                progressed = true;
            }
            if release_barriers(&mut env, &mut warps) {
                progressed = true;
            }
        }
        if all_done {
            break;
        }
        if release_barriers(&mut env, &mut warps) {
            progressed = true;
        }
        if env.effects != effects {
            progressed = true;
        }
        if !progressed {
            return Err(deadlock(&env, &warps));
        }
        if env.warp_insts > ctx.cfg.options.max_warp_steps {
            let mut msg = format!(
                "CTA ({},{},{}) ran {} warp-instructions, over the limit of {}; where the warps are:",
                ctaid[0], ctaid[1], ctaid[2], env.warp_insts, ctx.cfg.options.max_warp_steps
            );
            for w in &warps {
                msg.push_str(&w.describe(&env));
            }
            return Err(EmuError::new(ErrorKind::StepLimit, 0, msg));
        }
    }
    Ok(CtaResult { output: env.out, thread_insts: env.thread_insts, warp_insts: env.warp_insts })
}

/// Completes every barrier whose phase has all its threads; returns true if any did.
fn release_barriers(env: &mut Env<'_>, warps: &mut [Warp]) -> bool {
    let live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
    let mut any = false;
    for id in 0..env.bars.len() {
        let b = &env.bars[id];
        if b.arrived == 0 {
            continue;
        }
        let expected = if b.expected > 0 { b.expected } else { live };
        if b.arrived < expected {
            continue;
        }
        let b = std::mem::take(&mut env.bars[id]);
        for w in warps.iter_mut() {
            w.release_barrier(id as u8, &b);
        }
        if let Some(r) = env.race.as_mut() {
            r.epoch += 1;
        }
        any = true;
    }
    any
}

fn deadlock(env: &Env<'_>, warps: &[Warp]) -> EmuError {
    let mut msg = format!("every live warp of CTA ({},{},{}) is waiting and none can proceed:", env.ctaid[0], env.ctaid[1], env.ctaid[2]);
    for w in warps {
        msg.push_str(&w.describe(env));
    }
    for (id, b) in env.bars.iter().enumerate() {
        if b.arrived > 0 {
            let live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
            let exp = if b.expected > 0 { b.expected } else { live };
            msg.push_str(&format!("\n  barrier {id}: {} of {exp} thread(s) arrived", b.arrived));
        }
    }
    let _ = lanes_text;
    let line = warps.iter().find_map(|w| w.first_line(env)).unwrap_or(0);
    EmuError::new(ErrorKind::Deadlock, line, msg)
}
