//! A warp: 32 lanes in lockstep over per-lane register files.
//!
//! Divergence: every lane has its own PC; the warp always executes the group of runnable
//! lanes with the smallest PC. Lanes that branched ahead wait (their PC is larger) until the
//! lanes behind catch up, and groups that reach the same PC merge — reconvergence at the
//! earliest common point, correct for arbitrary control flow because each lane's own
//! execution is sequential whatever the interleaving. Warp collectives (`shfl.sync`,
//! `vote.sync`, ...) additionally wait until every lane of their member mask has arrived.

use super::cta::{BarState, Env, SharedAt};
use super::lanes::{map1, map2, map3};
use super::{alu, collective, cvt, fp, printf};
use crate::error::{EmuError, ErrorKind, Result};
use crate::mem::{from_generic, load_bytes, store_bytes, to_generic, DSMEM_BASE, DSMEM_STRIDE};
use crate::program::*;

/// Lanes of `mask`, ascending.
#[inline(always)]
pub(crate) fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == u32::MAX {
        for l in 0..32 {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            f(l);
        }
    }
}

/// Like [`for_lanes`] but stops at the first error.
#[inline(always)]
fn try_lanes<E>(mask: u32, mut f: impl FnMut(usize) -> std::result::Result<(), E>) -> std::result::Result<(), E> {
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        f(l)?;
    }
    Ok(())
}

/// The member mask of a warp-synchronous instruction (`.aligned` matrix instructions take
/// the whole warp).
pub(crate) fn sync_mask(op: &Op) -> Option<Src> {
    match op {
        Op::Shfl { mask, .. } | Op::Vote { mask: Some(mask), .. } | Op::Match { mask, .. } | Op::Redux { mask, .. } | Op::WarpSync { mask } | Op::Elect { mask, .. } => Some(*mask),
        Op::Ldmatrix { .. } | Op::Stmatrix { .. } | Op::Mma { .. } | Op::Wgmma { .. } => Some(Src::I(u32::MAX as u64)),
        _ => None,
    }
}

/// "lanes 0-3,7" for a mask.
pub(crate) fn lanes_text(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask >> l & 1 == 1 {
            let start = l;
            while l + 1 < 32 && mask >> (l + 1) & 1 == 1 {
                l += 1;
            }
            parts.push(if start == l { format!("{start}") } else { format!("{start}-{l}") });
        }
        l += 1;
    }
    format!("lane{} {}", if mask.count_ones() == 1 { "" } else { "s" }, parts.join(","))
}

#[inline(always)]
fn val(regs: &[u64], s: Src, l: usize) -> u64 {
    match s {
        Src::R(r) => regs[r as usize * 32 + l],
        Src::I(v) => v,
    }
}

/// One warp's state.
pub(crate) struct Warp {
    pub id: u32,
    pub regs: Vec<u64>,
    pub pcs: [u32; 32],
    pub valid: u32,
    pub exited: u32,
    pub bar_wait: u32,
    pub bar_id: [u8; 32],
    pub sync_wait: u32,
    pub local: Vec<u8>,
    pub local_bytes: usize,
    pub steps: u64,
    /// Lanes parked after a failed mbarrier try_wait: they run only when nothing else can.
    pub parked: u32,
    /// The last run ended with only parked lanes left (spinning).
    pub spun: bool,
    /// The mbarrier address the parked lanes wait on (for reports).
    pub spin_on: Option<u64>,
    /// What the parked lanes' wait names: (parity form, the parity or state token).
    pub spin_wait: Option<(bool, u64)>,
    /// Per lane: return points (return PC, PC of the call) of `.func` calls in progress.
    pub stack: Vec<Vec<(u32, u32)>>,
    /// CC.CF of each lane (add.cc / addc chains).
    pub carry: u32,
    /// Queued cp.async copies per lane.
    pub copies: Vec<super::asyncop::CopyQueue>,
    /// Accumulators of wgmma.mma_async not yet committed, with the PTX line that issued them.
    pub wg_uncommitted: Vec<(Reg, u32)>,
    /// Committed wgmma groups not yet retired by a wait_group, oldest first.
    pub wg_groups: std::collections::VecDeque<Vec<(Reg, u32)>>,
    /// Registers written since the warp's last wgmma.fence (by other than wgmma.mma_async),
    /// with the PTX line: a wgmma.mma_async reading one as an accumulator or A fragment
    /// lacks the fence the PTX ISA requires between the write and it. Tracked once the
    /// program has executed a wgmma.fence.
    pub wg_written: Option<std::collections::HashMap<Reg, u32>>,
    /// Set while an atomic accesses shared memory (race check: atomics never race).
    pub atomic_access: bool,
    /// Lanes that arrived on the cluster barrier in its current phase.
    pub cl_arr: u32,
    /// Lanes that arrived on the cluster barrier and have not waited yet.
    pub cl_pending: u32,
    /// Per lane: the cluster-barrier phase of its latest arrival.
    pub cl_phase: [u32; 32],
}

/// `bar_id` of a lane blocked in `barrier.cluster.wait`.
pub(crate) const CLUSTER_BAR: u8 = 16;

/// The PTX line being executed, as far as the race shadow knows it (0 without race check).
fn inst_line(env: &Env<'_>) -> u32 {
    env.race.as_ref().map_or(0, |r| r.line)
}

/// Marks an in-flight wgmma register as one of A's fragment registers (RS form), not an
/// accumulator (register indices stay far below this bit).
const WG_A_REG: Reg = 1 << (Reg::BITS - 1);

/// The group being executed: its PC, its lanes, and the smallest PC of the other runnable
/// lanes (when the group reaches it, the two merge).
struct Group {
    pc: u32,
    mask: u32,
    next_min: u32,
}

impl Warp {
    pub fn new(id: u32, nregs: usize, valid: u32, local_bytes: usize) -> Warp {
        Warp {
            id,
            regs: vec![0; nregs * 32],
            pcs: [0; 32],
            valid,
            exited: 0,
            bar_wait: 0,
            bar_id: [0; 32],
            sync_wait: 0,
            local: vec![0; local_bytes * 32],
            local_bytes,
            steps: 0,
            parked: 0,
            spun: false,
            spin_on: None,
            spin_wait: None,
            copies: vec![Default::default(); 32],
            carry: 0,
            stack: vec![Vec::new(); 32],
            wg_uncommitted: Vec::new(),
            wg_written: None,
            wg_groups: Default::default(),
            atomic_access: false,
            cl_arr: 0,
            cl_pending: 0,
            cl_phase: [0; 32],
        }
    }

    /// Lanes that have not exited.
    pub fn live(&self) -> u32 {
        self.valid & !self.exited
    }

    pub fn finished(&self) -> bool {
        self.live() == 0
    }

    fn runnable(&self) -> u32 {
        self.live() & !self.bar_wait & !self.sync_wait
    }

    fn schedule(&mut self) -> Option<Group> {
        let mut r = self.runnable() & !self.parked;
        if r == 0 {
            if self.runnable() & self.parked != 0 {
                self.spun = true;
            }
            return None;
        }
        r &= !self.parked;
        if r == 0 {
            return None;
        }
        let mut pc = u32::MAX;
        for_lanes(r, |l| pc = pc.min(self.pcs[l]));
        let mut mask = 0;
        let mut next_min = u32::MAX;
        for_lanes(r, |l| {
            if self.pcs[l] == pc {
                mask |= 1 << l;
            } else {
                next_min = next_min.min(self.pcs[l]);
            }
        });
        Some(Group { pc, mask, next_min })
    }

    fn set_pc(&mut self, mask: u32, pc: u32) {
        for_lanes(mask, |l| self.pcs[l] = pc);
    }

    /// Releases lanes waiting on barrier `id` (writing a bar.red result).
    /// Returns the lanes released.
    pub fn release_barrier(&mut self, id: u8, b: &BarState) -> u32 {
        let mut m = 0u32;
        for_lanes(self.bar_wait, |l| {
            if self.bar_id[l] == id {
                m |= 1 << l;
            }
        });
        self.bar_wait &= !m;
        if let Some((kind, d)) = b.red {
            for_lanes(m, |l| {
                self.regs[d as usize * 32 + l] = match kind {
                    BarKind::RedPopc => b.popc as u64,
                    BarKind::RedAnd => b.all as u64,
                    _ => b.any as u64,
                };
            });
        }
        m
    }

    /// Releases lanes blocked in `barrier.cluster.wait` whose phase has completed (the
    /// barrier is now in `phase`); returns them.
    pub fn release_cluster_wait(&mut self, phase: u32) -> u32 {
        let mut m = 0u32;
        for_lanes(self.bar_wait, |l| {
            if self.bar_id[l] == CLUSTER_BAR && self.cl_phase[l] != phase {
                m |= 1 << l;
            }
        });
        self.bar_wait &= !m;
        self.cl_pending &= !m;
        m
    }

    /// Where this warp's lanes are and what they wait on (deadlock and step-limit reports).
    pub fn describe(&self, env: &Env<'_>) -> String {
        let prog = env.ctx.prog;
        let mut out = String::new();
        let live = self.live();
        if live == 0 {
            return out;
        }
        let mut seen = 0u32;
        for l in 0..32 {
            if live >> l & 1 == 0 || seen >> l & 1 == 1 {
                continue;
            }
            let pc = self.pcs[l];
            let waiting_bar = self.bar_wait >> l & 1 == 1;
            let waiting_sync = self.sync_wait >> l & 1 == 1;
            let mut m = 0u32;
            for k in l..32 {
                if live >> k & 1 == 1
                    && self.pcs[k] == pc
                    && (self.bar_wait >> k & 1 == 1) == waiting_bar
                    && (self.sync_wait >> k & 1 == 1) == waiting_sync
                    && (!waiting_bar || self.bar_id[k] == self.bar_id[l])
                {
                    m |= 1 << k;
                }
            }
            seen |= m;
            // A lane blocked on a barrier has already stepped past it.
            let at = if waiting_bar { pc.saturating_sub(1) } else { pc };
            let line = prog.line_of(at);
            let what = if waiting_bar && self.bar_id[l] == CLUSTER_BAR {
                format!("wait at the cluster barrier (barrier.cluster.wait, phase {})", self.cl_phase[l])
            } else if waiting_bar {
                format!("wait at barrier {}", self.bar_id[l])
            } else if let (true, Some(Op::SetMaxNReg { inc, n })) = (waiting_sync, prog.insts.get(at as usize).map(|i| &i.op)) {
                let mut here = 0u32;
                for_lanes(self.sync_wait, |k| {
                    if self.pcs[k] == pc {
                        here |= 1 << k;
                    }
                });
                format!("wait in setmaxnreg.{} {n} for {} of the warp (.sync.aligned: every live lane executes it together)", if *inc { "inc" } else { "dec" }, lanes_text(live & !here))
            } else if waiting_sync {
                let missing = match prog.insts.get(at as usize).and_then(|i| sync_mask(&i.op)) {
                    Some(mask) => {
                        let mm = val(&self.regs, mask, l) as u32;
                        let here = self.sync_wait & mm;
                        format!(" (member mask {mm:#010x}; {} not there)", lanes_text(mm & !here))
                    }
                    _ => String::new(),
                };
                format!("wait for the other lanes of a warp-synchronous instruction{missing}")
            } else if self.parked >> l & 1 == 1 {
                match self.spin_on {
                    Some(a) => {
                        let off = if a >= crate::mem::SHARED_WINDOW { from_generic(a).1 } else { a };
                        let waits = self.spin_wait.map_or(String::new(), |(parity, v)| super::asyncop::describe_wait(env, off, parity, v));
                        format!("spin in an mbarrier wait loop on the {}{waits}", super::asyncop::describe(env, off))
                    }
                    None => "spin in an mbarrier wait loop".to_string(),
                }
            } else if let (true, Some(&Op::SetMaxNReg { inc: true, n })) = (env.nreg.effective, prog.insts.get(at as usize).map(|i| &i.op)) {
                let (w, b) = (self.id as usize, &env.nreg);
                let need = b.need(w, n);
                if need > b.pool {
                    format!(
                        "wait in setmaxnreg.inc {n} for {need} registers ({} to {n} per thread, 32 threads) while the CTA's pool has {} (registers released by setmaxnreg.dec; the CTA owns {} per thread for {} threads)",
                        b.count[w], b.pool, b.initial, b.threads
                    )
                } else {
                    "are runnable".to_string()
                }
            } else if let Some(Op::WgmmaWait { n }) = prog.insts.get(at as usize).map(|i| &i.op) {
                let seq = env.wg.target(self.id as usize, *n);
                match env.wg.missing(self.id as usize, seq)[..] {
                    [] => "are runnable".to_string(),
                    ref m => format!(
                        "wait in wgmma.wait_group {n} for warp(s) {} of the warpgroup, which have not committed its wgmma group {seq} yet (a wgmma.mma_async executes once all four warps have issued it)",
                        m.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(", ")
                    ),
                }
            } else {
                "are runnable".to_string()
            };
            out.push_str(&format!("\n  warp {} {} {what} at PTX line {line}", self.id, lanes_text(m)));
        }
        out
    }

    pub fn first_line(&self, env: &Env<'_>) -> Option<u32> {
        let live = self.live();
        (0..32).find(|l| live >> l & 1 == 1).map(|l| {
            let pc = self.pcs[l];
            env.ctx.prog.line_of(if self.bar_wait >> l & 1 == 1 { pc.saturating_sub(1) } else { pc })
        })
    }

    /// Runs up to `budget` warp-instructions; returns how many ran (0: the warp is blocked).
    pub fn run(&mut self, env: &mut Env<'_>, budget: u64) -> Result<u64> {
        let prog = env.ctx.prog;
        let insts = &prog.insts[..];
        // Parked lanes get another try now that the other warps have run.
        self.parked = 0;
        self.spun = false;
        let Some(mut g) = self.schedule() else { return Ok(0) };
        let mut done = 0u64;
        while done < budget {
            let Some(inst) = insts.get(g.pc as usize) else {
                return Err(EmuError::new(ErrorKind::Undefined, 0, format!("warp {} ran past the last instruction", self.id)));
            };
            done += 1;
            self.steps += 1;
            let mut exec = g.mask;
            if inst.guard != NO_GUARD {
                let base = inst.guard as usize * 32;
                let mut m = 0u32;
                for_lanes(g.mask, |l| m |= ((self.regs[base + l] != 0) as u32) << l);
                exec = if inst.guard_neg { g.mask & !m } else { m };
            }
            env.warp_insts += 1;
            env.thread_insts += exec.count_ones() as u64;
            if let Some(r) = env.race.as_mut() {
                r.line = inst.line;
            }
            if (!self.wg_uncommitted.is_empty() || !self.wg_groups.is_empty()) && exec != 0 {
                self.check_wgmma_in_flight(env, inst)?;
            }
            if exec != 0 {
                self.track_wgmma_fence(env, inst)?;
            }
            match &inst.op {
                Op::Bra { target } => {
                    let target = *target;
                    if exec == g.mask {
                        g.pc = target;
                    } else if exec == 0 {
                        g.pc += 1;
                    } else {
                        self.set_pc(exec, target);
                        self.set_pc(g.mask & !exec, g.pc + 1);
                        match self.schedule() {
                            Some(n) => g = n,
                            None => return Ok(done),
                        }
                        continue;
                    }
                    if g.pc >= g.next_min {
                        self.set_pc(g.mask, g.pc);
                        match self.schedule() {
                            Some(n) => g = n,
                            None => return Ok(done),
                        }
                    }
                    continue;
                }
                Op::CallFunc { target, args, .. } => {
                    let lb = self.local_bytes;
                    let mut deep = None;
                    for_lanes(exec, |l| {
                        let frame = &mut self.local[l * lb..(l + 1) * lb];
                        for &(from, to, n) in args {
                            frame.copy_within(from as usize..from as usize + n as usize, to as usize);
                        }
                        if self.stack[l].len() >= 256 && deep.is_none() {
                            deep = Some(l);
                        }
                        self.stack[l].push((g.pc + 1, g.pc));
                    });
                    if let Some(l) = deep {
                        return Err(EmuError::new(ErrorKind::Undefined, inst.line, format!("{}: call depth over 256 (recursion?)", env.who(self.id, l))));
                    }
                    self.set_pc(exec, *target);
                    self.set_pc(g.mask & !exec, g.pc + 1);
                    match self.schedule() {
                        Some(n) => g = n,
                        None => return Ok(done),
                    }
                    continue;
                }
                Op::Ret => {
                    let lb = self.local_bytes;
                    let mut exiting = 0u32;
                    for_lanes(exec, |l| match self.stack[l].pop() {
                        None => exiting |= 1 << l,
                        Some((back, call)) => {
                            if let Some(Op::CallFunc { rets, .. }) = insts.get(call as usize).map(|i| &i.op) {
                                let frame = &mut self.local[l * lb..(l + 1) * lb];
                                for &(from, to, n) in rets {
                                    frame.copy_within(from as usize..from as usize + n as usize, to as usize);
                                }
                            }
                            self.pcs[l] = back;
                        }
                    });
                    // In the kernel itself (no caller) ret ends the thread.
                    for_lanes(exiting, |l| super::asyncop::drain(self, env, l));
                    self.exited |= exiting;
                    self.set_pc(g.mask & !exec, g.pc + 1);
                    match self.schedule() {
                        Some(n) => g = n,
                        None => return Ok(done),
                    }
                    continue;
                }
                Op::Exit => {
                    for_lanes(exec, |l| super::asyncop::drain(self, env, l));
                    self.exited |= exec;
                    self.set_pc(g.mask & !exec, g.pc + 1);
                    self.set_pc(exec, g.pc);
                    match self.schedule() {
                        Some(n) => g = n,
                        None => return Ok(done),
                    }
                    continue;
                }
                Op::ClusterArrive { relaxed } => {
                    let twice = exec & self.cl_pending;
                    if twice != 0 {
                        let l = twice.trailing_zeros() as usize;
                        return Err(EmuError::new(
                            ErrorKind::Undefined,
                            inst.line,
                            format!("{}: barrier.cluster.arrive again before the barrier.cluster.wait of its previous arrival", env.who(self.id, l)),
                        ));
                    }
                    self.cl_arr |= exec;
                    self.cl_pending |= exec;
                    let phase = env.cbar_phase;
                    for_lanes(exec, |l| self.cl_phase[l] = phase);
                    if exec != 0 {
                        env.effects += 1;
                    }
                    if let (Some(r), false) = (env.race.as_mut(), *relaxed) {
                        let wid = self.id as usize;
                        for_lanes(exec, |l| r.bar_arrive(CLUSTER_BAR as usize, wid * 32 + l));
                    }
                }
                Op::ClusterWait => {
                    let never = exec & !self.cl_pending;
                    if never != 0 {
                        let l = never.trailing_zeros() as usize;
                        return Err(EmuError::new(ErrorKind::Undefined, inst.line, format!("{}: barrier.cluster.wait without a preceding barrier.cluster.arrive", env.who(self.id, l))));
                    }
                    let phase = env.cbar_phase;
                    let mut blocked = 0u32;
                    for_lanes(exec, |l| {
                        if self.cl_phase[l] == phase {
                            blocked |= 1 << l;
                        }
                    });
                    let passed = exec & !blocked;
                    self.cl_pending &= !passed;
                    if let Some(r) = env.race.as_mut() {
                        let wid = self.id as usize;
                        for_lanes(passed, |l| r.bar_acquire(CLUSTER_BAR as usize, wid * 32 + l));
                    }
                    if blocked != 0 {
                        for_lanes(blocked, |l| self.bar_id[l] = CLUSTER_BAR);
                        self.set_pc(g.mask, g.pc + 1);
                        self.bar_wait |= blocked;
                        match self.schedule() {
                            Some(n) => g = n,
                            None => return Ok(done),
                        }
                        continue;
                    }
                }
                Op::Bar { kind, id, count, d, p } => {
                    if exec != 0 {
                        self.barrier(env, inst, exec, *kind, *id, *count, *d, *p)?;
                    }
                    self.set_pc(g.mask, g.pc + 1);
                    if *kind != BarKind::Arrive {
                        self.bar_wait |= exec;
                    }
                    match self.schedule() {
                        Some(n) => g = n,
                        None => return Ok(done),
                    }
                    continue;
                }
                Op::WgmmaWait { n } if exec != 0 && !env.wg.missing(self.id as usize, env.wg.target(self.id as usize, *n)).is_empty() => {
                    // The groups it retires cannot have executed before every warp of the
                    // warpgroup issued them: wait here (not counted as executed).
                    done -= 1;
                    self.steps -= 1;
                    env.warp_insts -= 1;
                    env.thread_insts -= exec.count_ones() as u64;
                    self.set_pc(g.mask, g.pc);
                    return Ok(done);
                }
                Op::SetMaxNReg { inc, n } if exec != 0 && env.nreg.effective => {
                    // .sync.aligned: every live lane of the warp executes the same setmaxnreg,
                    // together; then the warp's count changes (an .inc waits for the pool).
                    let (inc, n) = (*inc, *n);
                    if exec != g.mask {
                        return Err(EmuError::new(
                            ErrorKind::Undefined,
                            inst.line,
                            format!("warp {}: {} execute setmaxnreg but {} skip it (guard false); setmaxnreg is .sync.aligned: every lane of the warp executes it", self.id, lanes_text(exec), lanes_text(g.mask & !exec)),
                        ));
                    }
                    let (mut here, mut elsewhere, mut other) = (exec, 0u32, 0u32);
                    for_lanes(self.sync_wait, |l| {
                        if self.pcs[l] == g.pc {
                            here |= 1 << l;
                        } else if matches!(insts.get(self.pcs[l] as usize).map(|i| &i.op), Some(Op::SetMaxNReg { .. })) {
                            elsewhere |= 1 << l;
                            other = self.pcs[l];
                        }
                    });
                    if elsewhere != 0 {
                        return Err(EmuError::new(
                            ErrorKind::Undefined,
                            inst.line,
                            format!(
                                "warp {}: its lanes disagree on setmaxnreg: {} execute the one at PTX line {}, {} the one at PTX line {} (.sync.aligned: every lane of the warp executes the same setmaxnreg)",
                                self.id,
                                lanes_text(here),
                                inst.line,
                                lanes_text(elsewhere),
                                prog.line_of(other)
                            ),
                        ));
                    }
                    if here != self.live() {
                        self.sync_wait |= exec;
                        self.set_pc(g.mask, g.pc);
                        match self.schedule() {
                            Some(n) => g = n,
                            None => return Ok(done),
                        }
                        continue;
                    }
                    let w = self.id as usize;
                    let ok = env.nreg.step(&env.wg.live, w, inc, n, inst.line).map_err(|m| {
                        let c = env.ctaid;
                        EmuError::new(ErrorKind::Undefined, inst.line, format!("CTA ({},{},{}) {m}", c[0], c[1], c[2]))
                    })?;
                    self.sync_wait &= !here;
                    if !ok {
                        // The pool lacks the registers: wait here (not counted as executed)
                        // and retry when the warp runs again.
                        done -= 1;
                        self.steps -= 1;
                        env.warp_insts -= 1;
                        env.thread_insts -= exec.count_ones() as u64;
                        self.set_pc(here, g.pc);
                        return Ok(done);
                    }
                    env.effects += 1;
                    self.set_pc(here, g.pc + 1);
                    match self.schedule() {
                        Some(n) => g = n,
                        None => return Ok(done),
                    }
                    continue;
                }
                op if sync_mask(op).is_some() => {
                    if exec != 0 {
                        let mask = sync_mask(op).unwrap_or(Src::I(u32::MAX as u64));
                        let m = self.member_mask(env, inst, exec, mask)?;
                        let mut here = exec;
                        for_lanes(self.sync_wait, |l| {
                            if self.pcs[l] == g.pc {
                                here |= 1 << l;
                            }
                        });
                        if m & !here != 0 {
                            let gone = m & !here & !self.live();
                            if gone != 0 {
                                return Err(EmuError::new(
                                    ErrorKind::Undefined,
                                    inst.line,
                                    format!("warp {} {}: member mask {m:#010x} names {} which ha{} exited or do not exist", self.id, lanes_text(exec), lanes_text(gone), if gone.count_ones() == 1 { "s" } else { "ve" }),
                                ));
                            }
                            self.sync_wait |= exec;
                            self.set_pc(g.mask, g.pc);
                            self.set_pc(g.mask & !exec, g.pc + 1);
                            match self.schedule() {
                                Some(n) => g = n,
                                None => return Ok(done),
                            }
                            continue;
                        }
                        collective::execute(self, env, inst, here, m)?;
                        if let Op::Wgmma { ds, a, .. } = &inst.op {
                            self.wg_uncommitted.extend(ds.iter().map(|&r| (r, inst.line)));
                            // RS form: the A fragment registers are read asynchronously too.
                            if let crate::program::WgmmaA::Regs(a) = a {
                                let a = a.iter().filter_map(|s| if let Src::R(r) = s { Some(*r | WG_A_REG) } else { None });
                                self.wg_uncommitted.extend(a.map(|r| (r, inst.line)));
                            }
                        }
                        self.sync_wait &= !here;
                        self.set_pc(here | g.mask, g.pc + 1);
                        match self.schedule() {
                            Some(n) => g = n,
                            None => return Ok(done),
                        }
                        continue;
                    }
                }
                Op::Mbar { op, d, addr, b } => {
                    let mut failed = 0u32;
                    try_lanes(exec, |l| {
                        if !super::asyncop::mbarrier(self, env, inst, l, *op, *d, *addr, *b)? {
                            failed |= 1 << l;
                        }
                        Ok::<(), EmuError>(())
                    })?;
                    if matches!(op, MbarOp::TryWait(_)) && failed != 0 && failed == exec {
                        // Every lane's wait failed: park them so other lanes (the ones that
                        // will arrive) run first.
                        self.parked |= failed;
                        let l = failed.trailing_zeros() as usize;
                        self.spin_on = Some(val(&self.regs, addr.base, l).wrapping_add(addr.off as u64));
                        let parity = matches!(op, MbarOp::TryWait(true));
                        self.spin_wait = b.map(|b| (parity, val(&self.regs, b, l)));
                        self.set_pc(g.mask, g.pc + 1);
                        match self.schedule() {
                            Some(n) => g = n,
                            None => return Ok(done),
                        }
                        continue;
                    }
                }
                Op::Vote { mask: None, .. } | Op::Activemask { .. } => {
                    if exec != 0 {
                        collective::execute(self, env, inst, exec, exec)?;
                    }
                }
                _ => {
                    if exec != 0 {
                        self.exec(env, inst, exec)?;
                    }
                }
            }
            g.pc += 1;
            if g.pc >= g.next_min {
                self.set_pc(g.mask, g.pc);
                match self.schedule() {
                    Some(n) => g = n,
                    None => return Ok(done),
                }
            }
        }
        self.set_pc(g.mask, g.pc);
        Ok(done)
    }

    /// The PTX ISA's wgmma.fence rule: between a register access and a wgmma.mma_async that
    /// reads the register as an accumulator or A fragment there must be a wgmma.fence
    /// (accumulators passed between wgmma.mma_async of one shape excepted). Errors when a
    /// wgmma reads a register written since the warp's last fence.
    fn track_wgmma_fence(&mut self, env: &Env<'_>, inst: &Inst) -> Result<()> {
        match &inst.op {
            Op::WgmmaFence => {
                self.wg_written.get_or_insert_with(Default::default).clear();
            }
            Op::Wgmma { ds, a, .. } => {
                let Some(written) = &self.wg_written else { return Ok(()) };
                let a_regs: Vec<Reg> = match a {
                    crate::program::WgmmaA::Regs(a) => a.iter().filter_map(|s| if let Src::R(r) = s { Some(*r) } else { None }).collect(),
                    crate::program::WgmmaA::Desc(_) => Vec::new(),
                };
                for (r, what) in ds.iter().map(|r| (r, "accumulator")).chain(a_regs.iter().map(|r| (r, "A-fragment register"))) {
                    if let Some(&line) = written.get(r) {
                        let name = env.ctx.prog.reg_names.get(*r as usize).cloned().unwrap_or_default();
                        return Err(EmuError::new(
                            ErrorKind::Undefined,
                            inst.line,
                            format!("wgmma.mma_async reads {what} {name}, written at line {line} after the warp's last wgmma.fence (the PTX ISA requires a wgmma.fence between them)"),
                        ));
                    }
                }
            }
            op => {
                if let Some(written) = &mut self.wg_written {
                    for r in op.written() {
                        written.insert(r, inst.line);
                    }
                }
            }
        }
        Ok(())
    }

    /// Errors if `inst` touches an accumulator register of a wgmma.mma_async that no
    /// wgmma.wait_group has retired yet (only later wgmma instructions may use them).
    fn check_wgmma_in_flight(&self, env: &Env<'_>, inst: &Inst) -> Result<()> {
        match &inst.op {
            Op::Wgmma { .. } | Op::WgmmaFence | Op::WgmmaCommit | Op::WgmmaWait { .. } | Op::Nop | Op::SetMaxNReg { .. } => return Ok(()),
            _ => {}
        }
        let used = inst.op.registers();
        // (group position: None = not committed, Some(k) = k groups committed after it)
        let ng = self.wg_groups.len();
        let inflight = self.wg_uncommitted.iter().map(|x| (x, None)).chain(self.wg_groups.iter().enumerate().flat_map(|(i, g)| g.iter().map(move |x| (x, Some(ng - 1 - i)))));
        for (&(r, issued), newer) in inflight {
            let (reg, is_a) = (r & !WG_A_REG, r & WG_A_REG != 0);
            if used.contains(&reg) {
                let name = env.ctx.prog.reg_names.get(reg as usize).cloned().unwrap_or_default();
                let what = if is_a { "an A-fragment register" } else { "an accumulator" };
                let needs = match newer {
                    None => "it is not committed yet: it waits on a wgmma.commit_group, then a wgmma.wait_group 0".to_string(),
                    Some(k) => format!("it waits on a wgmma.wait_group {k} (or lower): {k} group(s) were committed after its group"),
                };
                return Err(EmuError::new(
                    ErrorKind::Undefined,
                    inst.line,
                    format!("warp {}: {name} is {what} of the wgmma.mma_async at PTX line {issued}, still in flight (no wgmma.wait_group has retired it; {needs})", self.id),
                ));
            }
        }
        Ok(())
    }

    /// The member mask of a warp-synchronous instruction: one value for all executing lanes,
    /// which must include each of them.
    fn member_mask(&self, env: &Env<'_>, inst: &Inst, exec: u32, mask: Src) -> Result<u32> {
        let first = exec.trailing_zeros() as usize;
        let m = val(&self.regs, mask, first) as u32;
        let mut bad = None;
        for_lanes(exec, |l| {
            let v = val(&self.regs, mask, l) as u32;
            if bad.is_none() && (v != m || v >> l & 1 == 0) {
                bad = Some((l, v));
            }
        });
        if let Some((l, v)) = bad {
            return Err(EmuError::new(
                ErrorKind::Undefined,
                inst.line,
                format!("{}: member mask {v:#010x} of lane {l} {}", env.who(self.id, l), if v >> l & 1 == 0 { "does not include the lane itself".to_string() } else { format!("differs from lane {first}'s {m:#010x}") }),
            ));
        }
        Ok(m)
    }

    #[allow(clippy::too_many_arguments)]
    fn barrier(&mut self, env: &mut Env<'_>, inst: &Inst, exec: u32, kind: BarKind, id: Src, count: Option<Src>, d: Option<Reg>, p: Option<(Src, bool)>) -> Result<()> {
        let first = exec.trailing_zeros() as usize;
        let idv = val(&self.regs, id, first);
        if idv >= 16 {
            return Err(EmuError::new(ErrorKind::Undefined, inst.line, format!("{}: barrier id {idv} is not in 0..15", env.who(self.id, first))));
        }
        let cnt = count.map(|c| val(&self.regs, c, first) as u32).unwrap_or(0);
        let who = env.who(self.id, first);
        if cnt % 32 != 0 {
            return Err(EmuError::new(
                ErrorKind::Undefined,
                inst.line,
                format!("{who}: barrier {idv}'s thread count {cnt} is not a multiple of the warp size (32)"),
            ));
        }
        let b = &mut env.bars[idv as usize];
        if b.arrived > 0 && b.expected != cnt {
            return Err(EmuError::new(
                ErrorKind::Undefined,
                inst.line,
                format!("{}: barrier {idv} used with thread count {cnt} while {} thread(s) already arrived expecting {}", who, b.arrived, b.expected),
            ));
        }
        if b.arrived == 0 {
            b.all = true;
            b.any = false;
            b.popc = 0;
        }
        b.expected = cnt;
        b.arrived += exec.count_ones();
        env.effects += 1;
        if let (Some(d), Some((p, neg))) = (d, p) {
            b.red = Some((kind, d));
            for_lanes(exec, |l| {
                let v = (val(&self.regs, p, l) != 0) != neg;
                b.popc += v as u32;
                b.all &= v;
                b.any |= v;
            });
        }
        for_lanes(exec, |l| self.bar_id[l] = idv as u8);
        if let Some(r) = env.race.as_mut() {
            let wid = self.id as usize;
            for_lanes(exec, |l| r.bar_arrive(idv as usize, wid * 32 + l));
        }
        Ok(())
    }

    fn mem_err(&self, env: &Env<'_>, inst: &Inst, lane: usize, msg: String) -> EmuError {
        EmuError::new(ErrorKind::Memory, inst.line, format!("{}: {msg}", env.who(self.id, lane)))
    }

    /// Loads `size` bytes from `space` (generic resolved by window) for `lane`.
    fn load(&mut self, env: &mut Env<'_>, space: Space, lane: usize, addr: u64, size: u64) -> std::result::Result<u64, String> {
        let (space, a) = if space == Space::Generic { from_generic(addr) } else { (space, addr) };
        match space {
            Space::Global | Space::Generic => {
                let v = env.ctx.global.load(a, size).map_err(|f| f.0)?;
                env.race_global(self.id * 32 + lane as u32, a, size, false, self.atomic_access)?;
                Ok(v)
            }
            Space::Const => env.ctx.global.load(a, size).map_err(|f| f.0),
            Space::Shared => {
                let a = match env.resolve_shared(a)? {
                    SharedAt::Own(a) => a,
                    SharedAt::Peer(r, a) => {
                        let mem = &env.peers[r].shared;
                        return load_bytes(mem, a, size).ok_or_else(|| format!("shared::cluster access of {size} byte(s) at {a:#x} of CTA rank {r} is outside its {} byte(s) of shared memory", mem.len()));
                    }
                };
                super::asyncop::check_pending(env, a, size)?;
                let v = load_bytes(&env.shared, a, size)
                    .ok_or_else(|| format!("shared access of {size} byte(s) at {a:#x} is outside the CTA's {} byte(s) of shared memory", env.shared.len()))?;
                env.race_read(self.id * 32 + lane as u32, a, size, self.atomic_access)?;
                Ok(v)
            }
            Space::Local => {
                let lb = self.local_bytes as u64;
                if a.checked_add(size).is_none_or(|e| e > lb) {
                    return Err(format!("local access of {size} byte(s) at {a:#x} is outside the thread's {lb} byte(s) of local memory"));
                }
                Ok(load_bytes(&self.local[lane * self.local_bytes..(lane + 1) * self.local_bytes], a, size).unwrap_or(0))
            }
            Space::Param => load_bytes(env.ctx.params, a, size)
                .ok_or_else(|| format!("parameter access of {size} byte(s) at offset {a} is past the {} parameter byte(s)", env.ctx.params.len())),
        }
    }

    fn store(&mut self, env: &mut Env<'_>, space: Space, lane: usize, addr: u64, size: u64, v: u64) -> std::result::Result<(), String> {
        let (space, a) = if space == Space::Generic { from_generic(addr) } else { (space, addr) };
        match space {
            Space::Global | Space::Const | Space::Generic => {
                env.effects += 1;
                env.ctx.global.store(a, size, v).map_err(|f| f.0)?;
                env.race_global(self.id * 32 + lane as u32, a, size, true, self.atomic_access)
            }
            Space::Shared => {
                let a = match env.resolve_shared(a)? {
                    SharedAt::Own(a) => a,
                    SharedAt::Peer(r, a) => {
                        env.effects += 1;
                        let line = inst_line(env);
                        let p = &mut env.peers[r];
                        let n = p.shared.len();
                        store_bytes(&mut p.shared, a, size, v).ok_or_else(|| format!("shared::cluster access of {size} byte(s) at {a:#x} of CTA rank {r} is outside its {n} byte(s) of shared memory"))?;
                        p.mark_written(a, size, line);
                        return Ok(());
                    }
                };
                super::asyncop::check_pending(env, a, size)?;
                env.effects += 1;
                let n = env.shared.len();
                store_bytes(&mut env.shared, a, size, v).ok_or_else(|| format!("shared access of {size} byte(s) at {a:#x} is outside the CTA's {n} byte(s) of shared memory"))?;
                env.race_write(self.id * 32 + lane as u32, a, size, self.atomic_access)?;
                Ok(())
            }
            Space::Local => {
                let lb = self.local_bytes;
                if a.checked_add(size).is_none_or(|e| e > lb as u64) {
                    return Err(format!("local access of {size} byte(s) at {a:#x} is outside the thread's {lb} byte(s) of local memory"));
                }
                store_bytes(&mut self.local[lane * lb..(lane + 1) * lb], a, size, v);
                Ok(())
            }
            Space::Param => Err(format!("store of {size} byte(s) into kernel parameter space at offset {a}")),
        }
    }

    /// [`Self::load`] for the other executor modules.
    pub(crate) fn load_pub(&mut self, env: &mut Env<'_>, space: Space, lane: usize, addr: u64, size: u64) -> std::result::Result<u64, String> {
        self.load(env, space, lane, addr, size)
    }

    /// [`Self::store`] for the other executor modules.
    pub(crate) fn store_pub(&mut self, env: &mut Env<'_>, space: Space, lane: usize, addr: u64, size: u64, v: u64) -> std::result::Result<(), String> {
        self.store(env, space, lane, addr, size, v)
    }

    /// Reads a NUL-terminated string at a generic address (printf, assert messages).
    pub(crate) fn read_cstr(&mut self, env: &mut Env<'_>, lane: usize, addr: u64) -> std::result::Result<String, String> {
        let mut bytes = Vec::new();
        let mut a = addr;
        while bytes.len() < 4096 {
            let b = self.load(env, Space::Generic, lane, a, 1)? as u8;
            if b == 0 {
                break;
            }
            bytes.push(b);
            a += 1;
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Loads for printf's argument buffer.
    pub(crate) fn load_generic(&mut self, env: &mut Env<'_>, lane: usize, addr: u64, size: u64) -> std::result::Result<u64, String> {
        self.load(env, Space::Generic, lane, addr, size)
    }

    /// Executes one non-control, non-collective instruction for the lanes of `exec`.
    fn exec(&mut self, env: &mut Env<'_>, inst: &Inst, exec: u32) -> Result<()> {
        let regs = &mut self.regs;
        macro_rules! set {
            ($d:expr, $l:expr, $v:expr) => {
                regs[$d as usize * 32 + $l] = $v
            };
        }
        match &inst.op {
            Op::Mov { d, a, bits } => {
                let m = alu::mask(*bits);
                let d = *d;
                match *a {
                    Src::R(r) => for_lanes(exec, |l| set!(d, l, regs[r as usize * 32 + l] & m)),
                    Src::I(v) => for_lanes(exec, |l| set!(d, l, v & m)),
                }
            }
            Op::Clock { d } => {
                let s = self.steps;
                for_lanes(exec, |l| set!(*d, l, s));
            }
            Op::Pack { d, parts, part_bits } => {
                let m = alu::mask(*part_bits);
                for_lanes(exec, |l| {
                    let mut v = 0u64;
                    for (i, p) in parts.iter().enumerate() {
                        v |= (val(regs, *p, l) & m) << (i as u32 * *part_bits as u32);
                    }
                    set!(*d, l, v);
                });
            }
            Op::Unpack { ds, a, part_bits } => {
                let m = alu::mask(*part_bits);
                for_lanes(exec, |l| {
                    let v = val(regs, *a, l);
                    for (i, d) in ds.iter().enumerate() {
                        if let Some(d) = d {
                            set!(*d, l, (v >> (i as u32 * *part_bits as u32)) & m);
                        }
                    }
                });
            }
            Op::IBin { op, t, d, a, b } => {
                let (op, t, d, a, b) = (*op, *t, *d, *a, *b);
                let m = alu::mask(t.bits);
                // The common operations get a loop of their own; the rest (and division,
                // which can fault) go through alu::ibin per lane.
                match op {
                    IntBin::Add => {
                        map2(regs, exec, d, a, b, |x, y| x.wrapping_add(y) & m);
                        return Ok(());
                    }
                    IntBin::Sub => {
                        map2(regs, exec, d, a, b, |x, y| x.wrapping_sub(y) & m);
                        return Ok(());
                    }
                    IntBin::And => {
                        map2(regs, exec, d, a, b, |x, y| x & y & m);
                        return Ok(());
                    }
                    IntBin::Or => {
                        map2(regs, exec, d, a, b, |x, y| (x | y) & m);
                        return Ok(());
                    }
                    IntBin::Xor => {
                        map2(regs, exec, d, a, b, |x, y| (x ^ y) & m);
                        return Ok(());
                    }
                    IntBin::MulLo => {
                        map2(regs, exec, d, a, b, |x, y| x.wrapping_mul(y) & m);
                        return Ok(());
                    }
                    IntBin::Shl if !t.signed || t.bits == 64 => {
                        let w = t.bits as u64;
                        map2(regs, exec, d, a, b, |x, y| {
                            let n = y & 0xffff_ffff;
                            if n >= w {
                                0
                            } else {
                                (x << n) & m
                            }
                        });
                        return Ok(());
                    }
                    IntBin::Div | IntBin::Rem => {}
                    _ => {
                        map2(regs, exec, d, a, b, |x, y| alu::ibin(op, t, x, y).unwrap_or(0));
                        return Ok(());
                    }
                }
                let mut err = None;
                for_lanes(exec, |l| match alu::ibin(op, t, val(regs, a, l), val(regs, b, l)) {
                    Ok(v) => set!(d, l, v),
                    Err(e) => {
                        if err.is_none() {
                            err = Some((l, e));
                        }
                    }
                });
                if let Some((l, e)) = err {
                    return Err(EmuError::new(ErrorKind::Undefined, inst.line, format!("{}: {e}", env.who(self.id, l))));
                }
            }
            Op::IUn { op, t, d, a } => map1(regs, exec, *d, *a, |x| alu::iun(*op, *t, x)),
            Op::IMad { mode, t, d, a, b, c } => map3(regs, exec, *d, *a, *b, *c, |x, y, z| alu::imad(*mode, *t, x, y, z)),
            Op::AddC { sub, use_carry, set_carry, bits, d, a, b } => {
                // CC.CF holds the carry of add chains and the borrow of sub chains.
                let m = alu::mask(*bits);
                let mut carry = self.carry;
                for_lanes(exec, |l| {
                    let (x, y) = (val(regs, *a, l) & m, val(regs, *b, l) & m);
                    let cin = if *use_carry { ((carry >> l) & 1) as u128 } else { 0 };
                    let (r, cout) = if *sub {
                        let r = (x as u128).wrapping_sub(y as u128).wrapping_sub(cin);
                        (r as u64 & m, (y as u128 + cin) > x as u128)
                    } else {
                        let r = x as u128 + y as u128 + cin;
                        (r as u64 & m, r >> *bits != 0)
                    };
                    set!(*d, l, r);
                    if *set_carry {
                        carry = (carry & !(1 << l)) | ((cout as u32) << l);
                    }
                });
                self.carry = carry;
            }
            Op::MadC { hi, signed, use_carry, set_carry, bits, d, a, b, c } => {
                let m = alu::mask(*bits);
                let mut carry = self.carry;
                for_lanes(exec, |l| {
                    let (x, y, z) = (val(regs, *a, l) & m, val(regs, *b, l) & m, val(regs, *c, l) & m);
                    let p = if *signed {
                        let sx = |v: u64| ((v << (64 - *bits)) as i64 >> (64 - *bits)) as i128;
                        (sx(x) * sx(y)) as u128
                    } else {
                        x as u128 * y as u128
                    };
                    let half = if *hi { (p >> *bits) as u64 & m } else { p as u64 & m };
                    let cin = if *use_carry { ((carry >> l) & 1) as u128 } else { 0 };
                    let r = half as u128 + z as u128 + cin;
                    set!(*d, l, r as u64 & m);
                    if *set_carry {
                        carry = (carry & !(1 << l)) | (((r >> *bits != 0) as u32) << l);
                    }
                });
                self.carry = carry;
            }
            Op::Setp { cmp, t: CmpTy::Int(it), d: Some(d), d2: None, a, b, comb: None } => {
                map2(regs, exec, *d, *a, *b, |x, y| alu::icmp(*cmp, *it, x, y) as u64)
            }
            Op::Setp { cmp, t, d, d2, a, b, comb } => {
                for_lanes(exec, |l| {
                    let (x, y) = (val(regs, *a, l), val(regs, *b, l));
                    let r = match t {
                        CmpTy::Int(it) => alu::icmp(*cmp, *it, x, y),
                        CmpTy::Float(k, ftz) => fp::fcmp(*cmp, *k, *ftz, x, y),
                    };
                    let (mut p, mut q) = (r, !r);
                    if let Some((op, c, neg)) = comb {
                        let c = (val(regs, *c, l) != 0) != *neg;
                        let f = |v: bool| match op {
                            BoolOp::And => v & c,
                            BoolOp::Or => v | c,
                            BoolOp::Xor => v ^ c,
                        };
                        p = f(p);
                        q = f(q);
                    }
                    if let Some(d) = d {
                        set!(*d, l, p as u64);
                    }
                    if let Some(d2) = d2 {
                        set!(*d2, l, q as u64);
                    }
                });
            }
            Op::Set { cmp, t, float_result, d, a, b } => for_lanes(exec, |l| {
                let (x, y) = (val(regs, *a, l), val(regs, *b, l));
                let r = match t {
                    CmpTy::Int(it) => alu::icmp(*cmp, *it, x, y),
                    CmpTy::Float(k, ftz) => fp::fcmp(*cmp, *k, *ftz, x, y),
                };
                let v = match (r, float_result) {
                    (true, true) => 0x3f80_0000,
                    (true, false) => 0xffff_ffff,
                    _ => 0,
                };
                set!(*d, l, v);
            }),
            Op::Selp { bits, d, a, b, p } => {
                let m = alu::mask(*bits);
                map3(regs, exec, *d, *a, *b, *p, |x, y, q| if q != 0 { x & m } else { y & m });
            }
            Op::Lop3 { d, a, b, c, lut } => for_lanes(exec, |l| set!(*d, l, alu::lop3(val(regs, *a, l), val(regs, *b, l), val(regs, *c, l), *lut))),
            Op::Prmt { mode, d, a, b, c } => for_lanes(exec, |l| set!(*d, l, alu::prmt(*mode, val(regs, *a, l), val(regs, *b, l), val(regs, *c, l)))),
            Op::Bfe { t, d, a, b, c } => for_lanes(exec, |l| set!(*d, l, alu::bfe(*t, val(regs, *a, l), val(regs, *b, l), val(regs, *c, l)))),
            Op::Bfi { bits, d, a, b, c, e } => {
                for_lanes(exec, |l| set!(*d, l, alu::bfi(*bits, val(regs, *a, l), val(regs, *b, l), val(regs, *c, l), val(regs, *e, l))))
            }
            Op::Shf { left, wrap, d, a, b, c } => for_lanes(exec, |l| set!(*d, l, alu::shf(*left, *wrap, val(regs, *a, l), val(regs, *b, l), val(regs, *c, l)))),
            Op::Szext { signed, wrap, d, a, b } => for_lanes(exec, |l| set!(*d, l, alu::szext(*signed, *wrap, val(regs, *a, l), val(regs, *b, l)))),
            Op::FBin { op, k, m, d, a, b } => {
                let (op, k, m) = (*op, *k, *m);
                let plain = k == FKind::F32 && m.rnd == Rnd::Rn && !m.ftz && !m.sat && !m.relu;
                // IEEE f32 in the default mode is the host's own arithmetic (NaN made canonical).
                let canon = |r: f32| if r.is_nan() { 0x7fff_ffff } else { r.to_bits() as u64 };
                let f = |x: u64| f32::from_bits(x as u32);
                match op {
                    FBin::Add if plain => map2(regs, exec, *d, *a, *b, |x, y| canon(f(x) + f(y))),
                    FBin::Sub if plain => map2(regs, exec, *d, *a, *b, |x, y| canon(f(x) - f(y))),
                    FBin::Mul if plain => map2(regs, exec, *d, *a, *b, |x, y| canon(f(x) * f(y))),
                    _ => map2(regs, exec, *d, *a, *b, |x, y| fp::fbin(op, k, m, x, y)),
                }
            }
            Op::Fma { k, m, d, a, b, c } => map3(regs, exec, *d, *a, *b, *c, |x, y, z| fp::fma(*k, *m, x, y, z)),
            Op::FUn { op, k, m, d, a } => for_lanes(exec, |l| set!(*d, l, fp::fun(*op, *k, *m, val(regs, *a, l)))),
            Op::Testp { which, k, d, a } => for_lanes(exec, |l| set!(*d, l, fp::testp(*which, *k, val(regs, *a, l)) as u64)),
            Op::Cvt { dt, st, m, d, a, b: None } => {
                use tileir_numeric::FloatFormat as FF;
                let plain = !m.ftz && !m.sat && !m.relu && !m.nan && !m.approx;
                let canon32 = |v: f32| if v.is_nan() { 0x7fff_ffff } else { v.to_bits() as u64 };
                // The conversions kernels run in their inner loops, straight to the bit tricks.
                match (dt, st) {
                    (CvtTy::Float(FF::F32), CvtTy::Float(FF::F16)) if plain => {
                        map1(regs, exec, *d, *a, |x| canon32(super::half::f16_to_f32(x as u16)))
                    }
                    (CvtTy::Float(FF::F32), CvtTy::Float(FF::BF16)) if plain => {
                        map1(regs, exec, *d, *a, |x| canon32(super::half::bf16_to_f32(x as u16)))
                    }
                    (CvtTy::Float(FF::F16), CvtTy::Float(FF::F32)) if plain && m.rnd == Rnd::Rn => {
                        map1(regs, exec, *d, *a, |x| super::half::f32_to_f16_rn(f32::from_bits(x as u32)).map_or(0x7fff, u64::from))
                    }
                    (CvtTy::Float(FF::BF16), CvtTy::Float(FF::F32)) if plain && m.rnd == Rnd::Rn => {
                        map1(regs, exec, *d, *a, |x| super::half::f32_to_bf16_rn(f32::from_bits(x as u32)).map_or(0x7fff, u64::from))
                    }
                    // An .s8/.s16/.s32 result in a wider register is sign-extended to the
                    // register's width (LLVM's sext_inreg is `cvt.s8.s32` into a 16-bit register).
                    (CvtTy::Int(di), CvtTy::Int(_)) if di.signed && di.bits < env.ctx.prog.reg_bits[*d as usize] => {
                        let (bits, rb) = (di.bits, env.ctx.prog.reg_bits[*d as usize]);
                        map1(regs, exec, *d, *a, |x| (alu::sext(cvt::cvt(*dt, *st, *m, x, None), bits) as u64) & alu::mask(rb))
                    }
                    _ => map1(regs, exec, *d, *a, |x| cvt::cvt(*dt, *st, *m, x, None)),
                }
            }
            Op::Cvt { dt, st, m, d, a, b: Some(b) } => map2(regs, exec, *d, *a, *b, |x, y| cvt::cvt(*dt, *st, *m, x, Some(y))),
            Op::Cvta { to, space, d, a } => {
                let (to, space, d, a) = (*to, *space, *d, *a);
                let mut err = None;
                for_lanes(exec, |l| {
                    let x = val(regs, a, l);
                    let v = if to {
                        let (s, off) = from_generic(x);
                        let want = if space == Space::Const { Space::Global } else { space };
                        if s != want && err.is_none() {
                            err = Some((l, format!("cvta.to.{} of generic address {x:#x}, which is in {} space", space.name(), s.name())));
                        }
                        off
                    } else {
                        to_generic(space, x)
                    };
                    set!(d, l, v);
                });
                if let Some((l, e)) = err {
                    return Err(EmuError::new(ErrorKind::Undefined, inst.line, format!("{}: {e}", env.who(self.id, l))));
                }
            }
            Op::Isspacep { space, d, a } => for_lanes(exec, |l| {
                let (s, _) = from_generic(val(regs, *a, l));
                set!(*d, l, (s == *space || (*space == Space::Const && s == Space::Global)) as u64);
            }),
            Op::Ld { space, bits, sext, ds, addr } => {
                let size = (*bits as u64) / 8;
                let total = size * ds.len() as u64;
                let reg_bits = &env.ctx.prog.reg_bits;
                let global = matches!(space, Space::Global | Space::Const);
                try_lanes(exec, |l| {
                    let a = val(&self.regs, addr.base, l).wrapping_add(addr.off as u64);
                    if a % total != 0 {
                        return Err(self.mem_err(env, inst, l, format!("misaligned {} load of {total} byte(s) at {a:#x} (needs {total}-byte alignment)", space.name())));
                    }
                    let mut vals = [0u64; 8];
                    let n = ds.len().min(8);
                    // Global vectors: one bounds check for the whole access.
                    let fast = global && ds.len() <= 8;
                    if fast {
                        env.ctx.global.load_n(a, size, &mut vals[..n]).map_err(|f| self.mem_err(env, inst, l, f.0))?;
                        if *space == Space::Global {
                            env.race_global(self.id * 32 + l as u32, a, total, false, false).map_err(|m| self.mem_err(env, inst, l, m))?;
                        }
                    }
                    for (i, d) in ds.iter().enumerate() {
                        let v = if fast { vals[i] } else { self.load(env, *space, l, a + i as u64 * size, size).map_err(|m| self.mem_err(env, inst, l, m))? };
                        if let Some(d) = d {
                            let rb = reg_bits[*d as usize];
                            let v = if *sext { (alu::sext(v, *bits) as u64) & alu::mask(rb) } else { v };
                            self.regs[*d as usize * 32 + l] = v;
                        }
                    }
                    Ok(())
                })?;
            }
            Op::St { space, bits, vals, addr } => {
                let size = (*bits as u64) / 8;
                let total = size * vals.len() as u64;
                let global = matches!(space, Space::Global | Space::Const) && vals.len() <= 8;
                let m = alu::mask(*bits);
                try_lanes(exec, |l| {
                    let a = val(&self.regs, addr.base, l).wrapping_add(addr.off as u64);
                    if a % total != 0 {
                        return Err(self.mem_err(env, inst, l, format!("misaligned {} store of {total} byte(s) at {a:#x} (needs {total}-byte alignment)", space.name())));
                    }
                    if global {
                        let mut vs = [0u64; 8];
                        for (i, s) in vals.iter().enumerate() {
                            vs[i] = val(&self.regs, *s, l) & m;
                        }
                        env.effects += 1;
                        env.ctx.global.store_n(a, size, &vs[..vals.len()]).map_err(|f| self.mem_err(env, inst, l, f.0))?;
                        if *space == Space::Global {
                            env.race_global(self.id * 32 + l as u32, a, total, true, false).map_err(|m| self.mem_err(env, inst, l, m))?;
                        }
                        return Ok(());
                    }
                    for (i, s) in vals.iter().enumerate() {
                        let v = val(&self.regs, *s, l) & alu::mask(*bits);
                        self.store(env, *space, l, a + i as u64 * size, size, v).map_err(|m| self.mem_err(env, inst, l, m))?;
                    }
                    Ok(())
                })?;
            }
            Op::Atom { space, op, t, d, addr, b, c } => {
                try_lanes(exec, |l| {
                    let a = val(&self.regs, addr.base, l).wrapping_add(addr.off as u64);
                    let bv = val(&self.regs, *b, l);
                    let cv = c.map(|c| val(&self.regs, c, l));
                    let old = self.atomic(env, *space, l, a, *op, *t, bv, cv).map_err(|m| self.mem_err(env, inst, l, m))?;
                    if let Some(d) = d {
                        self.regs[*d as usize * 32 + l] = old;
                    }
                    Ok(())
                })?;
            }
            Op::RedVec { space, op, t, addr, vals } => {
                let size = match t {
                    AtomTy::Int(it) => it.bits as u64 / 8,
                    AtomTy::Float(k) => crate::decode::fkind_bits(*k) as u64 / 8,
                };
                let total = size * vals.len() as u64;
                try_lanes(exec, |l| {
                    let a = val(&self.regs, addr.base, l).wrapping_add(addr.off as u64);
                    if a % total != 0 {
                        return Err(self.mem_err(env, inst, l, format!("misaligned vector red of {total} byte(s) at {a:#x}")));
                    }
                    for (i, s) in vals.iter().enumerate() {
                        let bv = val(&self.regs, *s, l);
                        self.atomic(env, *space, l, a + i as u64 * size, *op, *t, bv, None).map_err(|m| self.mem_err(env, inst, l, m))?;
                    }
                    Ok(())
                })?;
            }
            Op::Call { func, args, ret } => {
                try_lanes(exec, |l| printf::call(self, env, inst, l, *func, args, *ret))?;
            }
            Op::CpAsync { dst, src, size, src_size } => {
                try_lanes(exec, |l| super::asyncop::cp_async(self, env, inst, l, *dst, *src, *size, *src_size))?;
            }
            Op::WgmmaCommit => {
                let g = std::mem::take(&mut self.wg_uncommitted);
                self.wg_groups.push_back(g);
                env.wg.commits[self.id as usize] += 1;
            }
            Op::WgmmaWait { n } => {
                while self.wg_groups.len() > *n as usize {
                    self.wg_groups.pop_front();
                }
                // The run loop has made sure every live warp of the warpgroup has committed
                // the groups this retires.
                let w = self.id as usize;
                let seq = env.wg.target(w, *n);
                let waited = env.wg.waited[w];
                if seq > waited {
                    let wg = w / 4;
                    let from = env.wg.retired[wg] + 1;
                    env.wg.retired[wg] = env.wg.retired[wg].max(seq);
                    env.wg.waited[w] = seq;
                    let done = env.wg.all_waited(w);
                    if let Some(r) = env.race.as_mut() {
                        r.wgmma_retire(w, exec, from, seq, waited);
                        r.wgmma_forget(wg, done);
                    }
                }
            }
            Op::CpAsyncCommit => for_lanes(exec, |l| super::asyncop::commit(self, env, l)),
            Op::BulkCommit => for_lanes(exec, |l| super::asyncop::bulk_commit(self, l)),
            Op::BulkWait { n } => for_lanes(exec, |l| super::asyncop::bulk_wait(self, env, l, *n)),
            Op::CpAsyncWait { n } => for_lanes(exec, |l| super::asyncop::wait(self, env, l, *n)),
            Op::CpAsyncMbarArrive { noinc, addr } => {
                try_lanes(exec, |l| super::asyncop::cp_async_arrive(self, env, inst, l, *noinc, *addr))?;
            }
            Op::BulkCopy { dst_space, dst, src_space, src, size, mbar } => {
                try_lanes(exec, |l| super::asyncop::bulk_copy(self, env, inst, l, *dst_space, *dst, *src_space, *src, *size, *mbar))?;
            }
            Op::TensorCopy { load, rank, smem, tmap_space, tmap, coords, mbar, mask } => {
                try_lanes(exec, |l| super::asyncop::tensor_copy(self, env, inst, l, *load, *rank, *smem, *tmap_space, *tmap, coords, *mbar, *mask))?;
            }
            Op::Mapa { d, a, rank, generic } => {
                let (d, a, rank, generic) = (*d, *a, *rank, *generic);
                let n = env.nctarank() as u64;
                let mut bad = None;
                for_lanes(exec, |l| {
                    let r = val(&self.regs, rank, l);
                    let mut x = val(&self.regs, a, l);
                    if generic {
                        match from_generic(x) {
                            (Space::Shared, o) => x = o,
                            _ => {
                                if bad.is_none() {
                                    bad = Some((l, format!("mapa of generic address {x:#x}, which is not in shared memory")));
                                }
                            }
                        }
                    }
                    if r >= n && bad.is_none() {
                        bad = Some((l, format!("mapa to cluster rank {r}; the cluster has {n} CTA(s)")));
                    }
                    // A shared::cluster address already: its offset in its CTA's window.
                    let off = if x >= DSMEM_BASE { (x - DSMEM_BASE) % DSMEM_STRIDE } else { x };
                    let y = DSMEM_BASE + r.min(n) * DSMEM_STRIDE + off;
                    self.regs[d as usize * 32 + l] = if generic { crate::mem::to_generic(Space::Shared, y) } else { y };
                });
                if let Some((l, m)) = bad {
                    return Err(EmuError::new(ErrorKind::Undefined, inst.line, format!("{}: {m}", env.who(self.id, l))));
                }
            }
            Op::Trap => {
                let l = exec.trailing_zeros() as usize;
                return Err(EmuError::new(ErrorKind::Trap, inst.line, format!("{}: trap", env.who(self.id, l))));
            }
            // A setmaxnreg ptxas ignores (no register count at entry): nothing.
            Op::Nop | Op::WgmmaFence | Op::SetMaxNReg { .. } => {}
            other => return Err(EmuError::new(ErrorKind::Decode, inst.line, format!("internal: {other:?} reached the plain executor"))),
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(&mut self, env: &mut Env<'_>, space: Space, lane: usize, addr: u64, op: AtomOp, t: AtomTy, b: u64, c: Option<u64>) -> std::result::Result<u64, String> {
        let size: u64 = match t {
            AtomTy::Int(it) => (it.bits as u64 / 8).max(1),
            AtomTy::Float(k) => crate::decode::fkind_bits(k) as u64 / 8,
        };
        if addr % size != 0 {
            return Err(format!("misaligned atomic of {size} byte(s) at {addr:#x}"));
        }
        let f = move |old: u64| atomic_result(op, t, old, b, c);
        let (sp, a) = if space == Space::Generic { from_generic(addr) } else { (space, addr) };
        match sp {
            Space::Global | Space::Generic => {
                // 2-byte atomics (f16/bf16 add, b16 cas) stay inside one aligned 8-byte
                // word of the global buffer, like the 4- and 8-byte ones.
                if size < 2 {
                    return Err(format!("{size}-byte atomics on global memory are not supported"));
                }
                env.effects += 1;
                let old = env.ctx.global.atomic(a, size, f).map_err(|e| e.0)?;
                env.race_global(self.id * 32 + lane as u32, a, size, true, true)?;
                Ok(old)
            }
            _ => {
                // Shared/local: one CTA runs on one OS thread, so read-modify-write is atomic
                // (and never a race with other atomics).
                self.atomic_access = true;
                let r = self.load(env, sp, lane, a, size).and_then(|old| self.store(env, sp, lane, a, size, f(old)).map(|_| old));
                self.atomic_access = false;
                r
            }
        }
    }
}

/// The value an atomic stores given the old value.
fn atomic_result(op: AtomOp, t: AtomTy, old: u64, b: u64, c: Option<u64>) -> u64 {
    match t {
        AtomTy::Int(it) => {
            let m = alu::mask(it.bits);
            match op {
                AtomOp::Add => old.wrapping_add(b) & m,
                AtomOp::Min => alu::ibin(IntBin::Min, it, old, b).unwrap_or(old),
                AtomOp::Max => alu::ibin(IntBin::Max, it, old, b).unwrap_or(old),
                AtomOp::And => old & b,
                AtomOp::Or => old | b,
                AtomOp::Xor => old ^ b,
                AtomOp::Exch => b & m,
                AtomOp::Cas => {
                    if old == b & m {
                        c.unwrap_or(0) & m
                    } else {
                        old
                    }
                }
                AtomOp::Inc => {
                    if old >= b & m {
                        0
                    } else {
                        old + 1
                    }
                }
                AtomOp::Dec => {
                    if old == 0 || old > b & m {
                        b & m
                    } else {
                        old - 1
                    }
                }
            }
        }
        AtomTy::Float(k) => {
            let mods = FMods { rnd: Rnd::Rn, ftz: false, sat: false, approx: false, nan: false, relu: false };
            match op {
                AtomOp::Add => fp::fbin(FBin::Add, k, mods, old, b),
                AtomOp::Min => fp::fbin(FBin::Min, k, mods, old, b),
                AtomOp::Max => fp::fbin(FBin::Max, k, mods, old, b),
                AtomOp::Exch => b,
                AtomOp::Cas => {
                    if old == b {
                        c.unwrap_or(0)
                    } else {
                        old
                    }
                }
                _ => old,
            }
        }
    }
}
