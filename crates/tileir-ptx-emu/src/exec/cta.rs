//! One CTA: its warps, shared memory and barriers; the round-robin warp scheduler, barrier
//! completion, and the deadlock report when no warp can move.

use super::warp::Warp;
use super::LaunchCtx;
use crate::error::{EmuError, ErrorKind, Result};
use crate::mem::{DSMEM_BASE, DSMEM_STRIDE};
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

/// Shared-memory race shadow (race-check mode): a vector clock per thread of the CTA and,
/// per byte, the last writer and last reader (thread+1, 0: none) with the clock and PTX line
/// of that access. An access is ordered after another thread's when the accessing thread's
/// clock of that thread has reached the access's clock: barriers (`bar.sync`/`barrier`,
/// `bar.arrive` → `bar.sync`), mbarrier arrive/complete_tx → successful wait, and
/// `bar.warp.sync` carry clocks from the releasing threads to the acquiring ones. Clock 0
/// marks accesses everybody is ordered with (atomics).
pub(crate) struct RaceShadow {
    /// Threads of the CTA.
    pub n: usize,
    /// `vc[t * n + u]`: the latest clock of thread u that thread t is ordered after.
    pub vc: Vec<u32>,
    pub writer: Vec<u32>,
    pub wclk: Vec<u32>,
    pub wline: Vec<u32>,
    pub reader: Vec<u32>,
    pub rclk: Vec<u32>,
    pub rline: Vec<u32>,
    /// PTX line of the instruction being executed.
    pub line: u32,
    /// Per named barrier: the join of the clocks of the threads arrived in this phase.
    pub bars: Vec<Vec<u32>>,
    /// Per mbarrier: the join of this phase's releases, and of all completed phases.
    pub mbars: std::collections::HashMap<u64, (Vec<u32>, Vec<u32>)>,
    /// Per byte: how many asynchronous readers (wgmma.mma_async of any warp, bulk copies out
    /// of shared memory) read it and are not yet retired by their wait_group (the tensor
    /// core or the copy engine may read it at any time until then), and the PTX line and
    /// kind of the latest such reader.
    pub async_reads: Vec<u16>,
    pub async_read_line: Vec<u32>,
    pub async_read_kind: Vec<AsyncReader>,
    /// Threads of the CTA (the async proxy's clock follows them, then one per warpgroup).
    pub threads: usize,
    /// Per warpgroup: its wgmma groups not yet retired by every warp's own wait, by
    /// sequence number (the k-th commit_group of each warp closes group k).
    pub wg_groups: Vec<std::collections::BTreeMap<u64, WgGroup>>,
    /// Global bytes this CTA's threads accessed, by address: the same last-writer record
    /// as shared memory's, with every thread's read since, so that two threads of one tile
    /// block touching the same global bytes with nothing ordering them are reported too
    /// (what a missing barrier between token-ordered accesses looks like). Other CTAs'
    /// accesses are not compared: tile blocks may race on purpose.
    pub global: std::collections::HashMap<u64, GlobalByte>,
}

/// Race check: the last write of one global byte by a thread of the CTA, and the reads
/// since (one per thread: a write must be ordered after every one of them).
#[derive(Clone, Default)]
pub(crate) struct GlobalByte {
    writer: u32,
    wclk: u32,
    wline: u32,
    /// (thread + 1, clock, PTX line) of each thread's latest read since the write.
    readers: Vec<(u32, u32, u32)>,
}

/// Race check: one wgmma group of a warpgroup (every warp's k-th commit_group closes it).
#[derive(Default)]
pub(crate) struct WgGroup {
    /// Per warp of the warpgroup: shared bytes its wgmmas of the group read, until a
    /// wait_group (of any warp of the warpgroup) retires the group.
    pub reads: [Vec<u32>; 4],
    /// Join of the vector clocks of the lanes that issued the group's wgmmas: the group
    /// executes only once every warp issued it, so a wait that retires it is ordered after
    /// all of those issues.
    pub issued: Vec<u32>,
}

/// Who reads shared memory asynchronously until a wait_group retires it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AsyncReader {
    Wgmma,
    BulkCopy,
}

impl AsyncReader {
    /// The instruction, and the wait that retires its reads.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            AsyncReader::Wgmma => ("wgmma.mma_async", "wgmma.wait_group"),
            AsyncReader::BulkCopy => ("bulk copy", "cp.async.bulk.wait_group"),
        }
    }
}

fn join(dst: &mut Vec<u32>, src: &[u32]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = (*d).max(s);
    }
}

impl RaceShadow {
    /// The shadow of a CTA of `threads` threads: one clock more, the async proxy's (TMA),
    /// and one per warpgroup, its wgmma groups' shared-memory reads (clock k: group k's,
    /// which a thread is ordered after once a wait_group retiring the group orders it).
    fn new(threads: usize, bytes: usize) -> Self {
        let nwg = threads.div_ceil(128);
        let n = threads + 1 + nwg;
        let mut vc = vec![0; n * n];
        for t in 0..n {
            vc[t * n + t] = 1;
        }
        RaceShadow {
            n,
            vc,
            writer: vec![0; bytes],
            wclk: vec![0; bytes],
            wline: vec![0; bytes],
            reader: vec![0; bytes],
            rclk: vec![0; bytes],
            rline: vec![0; bytes],
            line: 0,
            // 0..15: named barriers; 16: the cluster barrier.
            bars: vec![Vec::new(); 17],
            mbars: Default::default(),
            async_reads: vec![0; bytes],
            async_read_line: vec![0; bytes],
            async_read_kind: vec![AsyncReader::Wgmma; bytes],
            threads,
            wg_groups: (0..nwg).map(|_| Default::default()).collect(),
            global: Default::default(),
        }
    }

    fn row(&self, t: usize) -> &[u32] {
        &self.vc[t * self.n..(t + 1) * self.n]
    }

    /// Thread `t`'s own clock.
    pub fn clock(&self, t: usize) -> u32 {
        self.vc[t * self.n + t]
    }

    /// Thread `t` releases (arrives): its clock goes into `dst`, then it advances.
    fn release_to(vc: &mut [u32], n: usize, t: usize, dst: &mut Vec<u32>) {
        join(dst, &vc[t * n..(t + 1) * n]);
        vc[t * n + t] += 1;
    }

    /// Thread `t` arrives on named barrier `id`.
    pub fn bar_arrive(&mut self, id: usize, t: usize) {
        Self::release_to(&mut self.vc, self.n, t, &mut self.bars[id]);
    }

    /// Thread `t` leaves named barrier `id`'s completed phase.
    pub fn bar_acquire(&mut self, id: usize, t: usize) {
        let n = self.n;
        let b = std::mem::take(&mut self.bars[id]);
        let mut row = self.row(t).to_vec();
        join(&mut row, &b);
        self.vc[t * n..(t + 1) * n].copy_from_slice(&row);
        self.bars[id] = b;
    }

    /// Thread `t` arrives on (or completes transactions of) the mbarrier at `a`.
    pub fn mbar_release(&mut self, a: u64, t: usize) {
        let e = self.mbars.entry(a).or_default();
        Self::release_to(&mut self.vc, self.n, t, &mut e.0);
    }

    /// The mbarrier at `a` finished a phase.
    pub fn mbar_complete(&mut self, a: u64) {
        let e = self.mbars.entry(a).or_default();
        let cur = std::mem::take(&mut e.0);
        join(&mut e.1, &cur);
    }

    /// Thread `t` saw a phase of the mbarrier at `a` complete.
    pub fn mbar_acquire(&mut self, a: u64, t: usize) {
        let n = self.n;
        if let Some((_, done)) = self.mbars.get(&a) {
            let mut row = self.vc[t * n..(t + 1) * n].to_vec();
            join(&mut row, done);
            self.vc[t * n..(t + 1) * n].copy_from_slice(&row);
        }
    }

    /// `bar.warp.sync` among `threads`: each is ordered after all the others.
    pub fn warp_sync(&mut self, threads: &[usize]) {
        let n = self.n;
        let mut all = Vec::new();
        for &t in threads {
            join(&mut all, &self.vc[t * n..(t + 1) * n]);
        }
        for &t in threads {
            self.vc[t * n..(t + 1) * n].copy_from_slice(&all);
            self.vc[t * n + t] += 1;
        }
    }

    /// The index of the async proxy's clock (TMA copies' writes).
    pub fn async_proxy(&self) -> usize {
        self.threads
    }

    /// The index of the clock of warpgroup `wg`'s wgmma operand reads.
    pub fn wgmma_reads(&self, wg: usize) -> usize {
        self.threads + 1 + wg
    }

    /// Who a pseudo-thread (async proxy, a warpgroup's wgmma reads) is, if `t` is one, and
    /// what orders an access after it.
    fn pseudo(&self, t: usize) -> Option<(String, &'static str)> {
        if t == self.async_proxy() {
            Some(("the async proxy (a TMA copy)".to_string(), ""))
        } else if t > self.threads && t < self.n {
            let wg = t - self.threads - 1;
            Some((
                format!("the wgmma.mma_async of warpgroup {wg} (warps {}-{})", 4 * wg, 4 * wg + 3),
                " (its reads are complete only for threads ordered after a wgmma.wait_group that retired its group)",
            ))
        } else {
            None
        }
    }

    /// Warp `warp`'s lanes `lanes` issue a wgmma.mma_async of their warpgroup's group `seq`
    /// reading `bytes` (in flight until a wait_group retires the group).
    pub fn wgmma_issue(&mut self, warp: usize, lanes: u32, seq: u64, bytes: Vec<u32>, line: u32) {
        self.async_reads_begin(&bytes, line, AsyncReader::Wgmma);
        let n = self.n;
        let g = self.wg_groups[warp / 4].entry(seq).or_default();
        g.reads[warp % 4].extend(bytes);
        for l in 0..32 {
            if lanes >> l & 1 != 0 {
                let t = warp * 32 + l;
                join(&mut g.issued, &self.vc[t * n..(t + 1) * n]);
            }
        }
    }

    /// A wgmma.wait_group of warp `warp` (lanes `lanes`) retires its warpgroup's groups up
    /// to `seq`, of which `from..` were still in flight: their reads by every warp of the
    /// warpgroup end, and count as reads of the warpgroup's wgmma clock at the group's
    /// number; the waiting lanes are ordered after those reads and after every issue of the
    /// groups `waited+1..=seq` (the warp's earlier waits covered the rest).
    pub fn wgmma_retire(&mut self, warp: usize, lanes: u32, from: u64, seq: u64, waited: u64) {
        let (n, wg) = (self.n, warp / 4);
        let actor = self.wgmma_reads(wg);
        let mut groups = std::mem::take(&mut self.wg_groups[wg]);
        for (&s, g) in groups.range_mut(from..).take_while(|(&s, _)| s <= seq) {
            for reads in &mut g.reads {
                for &b in reads.iter() {
                    let i = b as usize;
                    if let Some(c) = self.async_reads.get_mut(i) {
                        *c = c.saturating_sub(1);
                        self.reader[i] = actor as u32 + 1;
                        self.rclk[i] = s as u32;
                        self.rline[i] = self.async_read_line[i];
                    }
                }
                reads.clear();
            }
        }
        let mut row = Vec::new();
        for (_, g) in groups.range(waited + 1..).take_while(|(&s, _)| s <= seq) {
            join(&mut row, &g.issued);
        }
        for l in 0..32 {
            if lanes >> l & 1 != 0 {
                let t = warp * 32 + l;
                let mine = &mut self.vc[t * n..(t + 1) * n];
                for (d, &s) in mine.iter_mut().zip(&row) {
                    *d = (*d).max(s);
                }
                mine[actor] = mine[actor].max(seq as u32);
            }
        }
        self.wg_groups[wg] = groups;
    }

    /// Forgets warpgroup `wg`'s groups up to `seq` (every live warp has waited past them).
    pub fn wgmma_forget(&mut self, wg: usize, seq: u64) {
        let g = &mut self.wg_groups[wg];
        while g.first_key_value().is_some_and(|(&s, _)| s <= seq) {
            g.pop_first();
        }
    }

    /// Records a write of byte `i` by `t` (no check): async copies landing.
    pub fn record_write(&mut self, i: usize, t: usize, line: u32) {
        self.writer[i] = t as u32 + 1;
        self.wclk[i] = self.clock(t);
        self.wline[i] = line;
    }

    /// Why a write of byte `i` now is a race with an asynchronous reader still reading it.
    fn async_read_conflict(&self, i: usize) -> Option<String> {
        (self.async_reads.get(i).copied().unwrap_or(0) > 0).then(|| {
            let (what, wait) = self.async_read_kind[i].names();
            format!("shared byte {i:#x}, which the {what} at PTX line {} still reads (no {wait} has retired it yet)", self.async_read_line[i])
        })
    }

    /// An async-proxy write of bytes [a, a+size) issued by thread `t` (a TMA copy landing):
    /// it may happen any time after the issue, so every earlier access by another thread
    /// (and every in-flight wgmma read) must be ordered before the issue; then recorded.
    pub fn async_write(&mut self, t: usize, a: u64, size: u64, line: u32) -> std::result::Result<(), String> {
        for i in a as usize..(a + size) as usize {
            if i >= self.writer.len() {
                break;
            }
            if let Some(why) = self.async_read_conflict(i) {
                return Err(format!("async copy issued at PTX line {line} writes {why}"));
            }
            let me = t as u32 + 1;
            for (who, clk, oline, what) in [(self.writer[i], self.wclk[i], self.wline[i], "write"), (self.reader[i], self.rclk[i], self.rline[i], "read")] {
                if who != 0 && who != me && clk > self.vc[t * self.n + (who - 1) as usize] {
                    let other = if (who - 1) as usize == self.async_proxy() {
                        "an earlier async copy (the CTA's async proxy)".to_string()
                    } else if let Some((p, note)) = self.pseudo((who - 1) as usize) {
                        format!("{p}{note}")
                    } else {
                        format!("thread {} of the CTA", who - 1)
                    };
                    return Err(format!(
                        "shared-memory race on byte {i:#x}: async copy issued at PTX line {line} by thread {t} of the CTA, and the {what} at PTX line {oline} by {other}, with no barrier (or mbarrier wait) ordering them before the copy's issue"
                    ));
                }
            }
            // Written by the async proxy: readers are ordered after it only by the mbarrier
            // the copy completes (a CTA barrier does not wait for a copy).
            self.record_write(i, self.async_proxy(), line);
        }
        Ok(())
    }

    /// Asynchronous reads of `bytes` by `who` begin (at the instruction on PTX line `line`).
    pub fn async_reads_begin(&mut self, bytes: &[u32], line: u32, who: AsyncReader) {
        for &b in bytes {
            if let Some(c) = self.async_reads.get_mut(b as usize) {
                *c = c.saturating_add(1);
                self.async_read_line[b as usize] = line;
                self.async_read_kind[b as usize] = who;
            }
        }
    }

    /// A wait_group executed by thread `t` retires asynchronous reads of `bytes` (recorded
    /// as `t`'s reads now: a later write must be ordered after the wait).
    pub fn async_reads_end(&mut self, bytes: &[u32], t: usize) {
        let clk = self.clock(t);
        for &b in bytes {
            let i = b as usize;
            if let Some(c) = self.async_reads.get_mut(i) {
                *c = c.saturating_sub(1);
                self.reader[i] = t as u32 + 1;
                self.rclk[i] = clk;
                self.rline[i] = self.line;
            }
        }
    }
}

impl Env<'_> {
    /// "CTA (..) thread (..)" of CTA-linear thread `t`.
    fn who_t(&self, t: u32) -> String {
        if let Some((p, note)) = self.race.as_ref().and_then(|r| r.pseudo(t as usize)) {
            let c = self.ctaid;
            return format!("{p} of CTA ({},{},{}){note}", c[0], c[1], c[2]);
        }
        self.who(t / 32, (t % 32) as usize)
    }

    /// Race check of a read of shared bytes [a, a+size) by thread `t` (atomic: ordered
    /// with everything, recorded with clock 0).
    pub fn race_read(&mut self, t: u32, a: u64, size: u64, atomic: bool) -> std::result::Result<(), String> {
        let Some(r) = self.race.as_mut() else { return Ok(()) };
        let (me, ti) = (t + 1, t as usize);
        let mut bad = None;
        for i in a as usize..(a + size) as usize {
            let w = r.writer[i];
            if w == 0 {
                return Err(format!("read of shared byte {i:#x}, which nothing has written in this launch"));
            }
            if !atomic && w != me && r.wclk[i] > r.vc[ti * r.n + (w - 1) as usize] {
                bad = Some((i, w - 1, r.wline[i], r.line));
                break;
            }
            r.reader[i] = me;
            r.rclk[i] = if atomic { 0 } else { r.clock(ti) };
            r.rline[i] = r.line;
        }
        if let Some((i, o, oline, line)) = bad {
            return Err(format!(
                "shared-memory race on byte {i:#x}: read at PTX line {line} by {}, of the write at PTX line {oline} by {}, with no barrier (or mbarrier wait, or bar.warp.sync) ordering them",
                self.who_t(t),
                self.who_t(o)
            ));
        }
        Ok(())
    }

    /// Race check of a write of shared bytes [a, a+size) by thread `t`.
    pub fn race_write(&mut self, t: u32, a: u64, size: u64, atomic: bool) -> std::result::Result<(), String> {
        let Some(r) = self.race.as_mut() else { return Ok(()) };
        let (me, ti) = (t + 1, t as usize);
        let (mut bad, mut wg_bad) = (None, None);
        for i in a as usize..(a + size) as usize {
            if let Some(why) = r.async_read_conflict(i) {
                wg_bad = Some((why, r.line));
                break;
            }
            if !atomic {
                for (who, clk, oline, what) in [(r.writer[i], r.wclk[i], r.wline[i], "write"), (r.reader[i], r.rclk[i], r.rline[i], "read")] {
                    if who != 0 && who != me && clk > r.vc[ti * r.n + (who - 1) as usize] {
                        bad = Some((i, who - 1, oline, what, r.line));
                        break;
                    }
                }
                if bad.is_some() {
                    break;
                }
            }
            r.writer[i] = me;
            r.wclk[i] = if atomic { 0 } else { r.clock(ti) };
            r.wline[i] = r.line;
        }
        if let Some((why, line)) = wg_bad {
            return Err(format!("write at PTX line {line} by {} to {why}", self.who_t(t)));
        }
        if let Some((i, o, oline, what, line)) = bad {
            return Err(format!(
                "shared-memory race on byte {i:#x}: write at PTX line {line} by {}, and the {what} at PTX line {oline} by {}, with no barrier (or mbarrier wait, or bar.warp.sync) ordering them",
                self.who_t(t),
                self.who_t(o)
            ));
        }
        Ok(())
    }
}

impl Env<'_> {
    /// Race check of an access of global bytes [a, a+size) by thread `t`: a read races
    /// with another thread's unordered write, a write with another thread's unordered
    /// read or write. Atomics never race (recorded with clock 0).
    pub fn race_global(&mut self, t: u32, a: u64, size: u64, write: bool, atomic: bool) -> std::result::Result<(), String> {
        let Some(r) = self.race.as_mut() else { return Ok(()) };
        let (me, ti) = (t + 1, t as usize);
        let clk = if atomic { 0 } else { r.clock(ti) };
        let (n, line) = (r.n, r.line);
        let mut bad = None;
        for i in a..a.saturating_add(size) {
            let b = r.global.entry(i).or_default();
            let unordered = |who: u32, oclk: u32| who != 0 && who != me && oclk > r.vc[ti * n + (who - 1) as usize];
            if !atomic {
                if unordered(b.writer, b.wclk) {
                    bad = Some((i, b.writer - 1, b.wline, "write"));
                } else if write {
                    if let Some(&(who, _, oline)) = b.readers.iter().find(|&&(who, oclk, _)| unordered(who, oclk)) {
                        bad = Some((i, who - 1, oline, "read"));
                    }
                }
                if bad.is_some() {
                    break;
                }
            }
            if write {
                (b.writer, b.wclk, b.wline) = (me, clk, line);
                b.readers.clear();
            } else {
                match b.readers.iter_mut().find(|e| e.0 == me) {
                    Some(e) => *e = (me, clk, line),
                    None => b.readers.push((me, clk, line)),
                }
            }
        }
        if let Some((i, o, oline, what)) = bad {
            let access = if write { "write" } else { "read" };
            return Err(format!(
                "global-memory race on byte {i:#x}: {access} at PTX line {line} by {}, and the {what} at PTX line {oline} by {}, with no barrier ordering them",
                self.who_t(t),
                self.who_t(o)
            ));
        }
        Ok(())
    }
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
    /// Rank of this CTA in its cluster.
    pub rank: u32,
    /// Set while a TMA copy completes its mbarrier transaction: the release is the async
    /// proxy's (race check), not the issuing thread's.
    pub tx_by_async_proxy: bool,
    /// While this CTA runs in a cluster of several: the other CTAs' shared memory and
    /// mbarriers, lent to it by rank (its own entry is empty).
    pub peers: Vec<Peer>,
    /// The cluster barrier's current phase (barrier.cluster).
    pub cbar_phase: u32,
    /// wgmma groups per warp and warpgroup.
    pub wg: WgSync,
    /// setmaxnreg: register counts per warp and the CTA's pool.
    pub nreg: RegBudget,
}

/// `setmaxnreg`: each warp's per-thread register count and the CTA's pool of registers
/// released by `setmaxnreg.dec`. The CTA owns `initial * threads` registers: every warp
/// starts at `initial` per thread and the pool empty; a `.dec` to n gives `(count - n) * 32`
/// to the pool, an `.inc` to n takes `(n - count) * 32` from it and waits until it has that
/// many. Registers of warps that exit do not return to the pool.
pub(crate) struct RegBudget {
    /// setmaxnreg takes effect: ptxas ignores it (advisory C7508, the instruction is
    /// dropped) unless the kernel has `.maxnreg`, or `.reqntid`/`.maxntid` with
    /// `.minnctapersm`, which fix the register count at entry.
    pub effective: bool,
    /// The per-thread count every warp starts with.
    pub initial: u32,
    /// Threads the CTA holds registers for (its warps times 32).
    pub threads: u32,
    /// Registers released by `.dec` and not yet taken by an `.inc`.
    pub pool: u64,
    /// Per warp: its current per-thread count.
    pub count: Vec<u32>,
    /// Per warp: the setmaxnreg instructions it has completed.
    pub done: Vec<u32>,
    /// Per warpgroup: its k-th setmaxnreg as the first warp to execute it did (inc, count,
    /// PTX line, warp); the other warps' k-th must be the same.
    pub steps: Vec<Vec<(bool, u32, u32, usize)>>,
}

/// "setmaxnreg.inc 232".
fn smr(inc: bool, n: u32) -> String {
    format!("setmaxnreg.{} {n}", if inc { "inc" } else { "dec" })
}

impl RegBudget {
    /// Every warp's count at launch: min(256, 65536 / (threads * `.minnctapersm`)), capped
    /// by `.maxnreg`, rounded down to a multiple of 8 — what ptxas allocates a setmaxnreg
    /// kernel with `.reqntid` and `.minnctapersm 1` (the CTA gets the SM's 64K registers;
    /// with n CTAs per SM, its n-th of them).
    pub fn new(nwarps: usize, prog: &crate::program::Program) -> Self {
        let threads = (nwarps * 32).max(32) as u32;
        let ctas = prog.minnctapersm.unwrap_or(1).max(1);
        let mut initial = (65536 / threads.saturating_mul(ctas)).min(256) / 8 * 8;
        if let Some(m) = prog.maxnreg {
            initial = initial.min(m / 8 * 8);
        }
        let effective = prog.maxnreg.is_some() || (prog.reqntid.is_some() && prog.minnctapersm.is_some());
        RegBudget { effective, initial, threads, pool: 0, count: vec![initial; nwarps], done: vec![0; nwarps], steps: vec![Vec::new(); nwarps.div_ceil(4)] }
    }

    /// Registers an `.inc` to `n` of `warp` takes from the pool.
    pub fn need(&self, warp: usize, n: u32) -> u64 {
        n.saturating_sub(self.count[warp]) as u64 * 32
    }

    /// Warp `warp` (all its live lanes together) executes `setmaxnreg.{inc,dec} n` at PTX
    /// line `line`; `live`: which warps of the CTA have live lanes. Ok(false): an `.inc`
    /// whose registers the pool does not have yet (the warp waits and retries). Errors on
    /// the ISA's rules: `.inc` below / `.dec` above the current count, a warp's second
    /// setmaxnreg while a warp of its warpgroup has not executed the first (the warpgroup
    /// must synchronize in between), and warps of a warpgroup executing different ones.
    pub fn step(&mut self, live: &[bool], warp: usize, inc: bool, n: u32, line: u32) -> std::result::Result<bool, String> {
        let (wg, k) = (warp / 4, self.done[warp] as usize);
        let group = 4 * wg..(4 * wg + 4).min(self.count.len());
        if k > 0 {
            if let Some(v) = group.clone().find(|&v| v != warp && live[v] && (self.done[v] as usize) < k) {
                let (pi, pn, pl, _) = self.steps[wg][k - 1];
                return Err(format!(
                    "warp {warp} executes {} (its setmaxnreg number {}) while warp {v} of its warpgroup has not executed the previous one ({} at PTX line {pl}): after a setmaxnreg the warpgroup must synchronize before the next",
                    smr(inc, n),
                    k + 1,
                    smr(pi, pn)
                ));
            }
        }
        match self.steps[wg].get(k) {
            Some(&(pi, pn, pl, pw)) if (pi, pn) != (inc, n) => {
                return Err(format!(
                    "warp {warp} executes {} but warp {pw} of its warpgroup executed {} at PTX line {pl} as the warpgroup's setmaxnreg number {}: every warp of a warpgroup must execute the same setmaxnreg",
                    smr(inc, n),
                    smr(pi, pn),
                    k + 1
                ));
            }
            Some(_) => {}
            None => self.steps[wg].push((inc, n, line, warp)),
        }
        let cur = self.count[warp];
        if inc && n < cur {
            return Err(format!("warp {warp}: setmaxnreg.inc to {n} registers per thread is below the warp's current count {cur} (.inc must not lower it)"));
        }
        if !inc && n > cur {
            return Err(format!("warp {warp}: setmaxnreg.dec to {n} registers per thread is above the warp's current count {cur} (.dec must not raise it)"));
        }
        if inc {
            let need = self.need(warp, n);
            if need > self.pool {
                return Ok(false);
            }
            self.pool -= need;
        } else {
            self.pool += (cur - n) as u64 * 32;
        }
        self.count[warp] = n;
        self.done[warp] += 1;
        Ok(true)
    }
}

/// wgmma.mma_async is one operation of a warpgroup: it executes once all four warps have
/// issued it, and a `wgmma.wait_group` of any of them that retires its group retires it for
/// the whole warpgroup. Groups are numbered per warp by its commit_groups (the k-th commit of
/// each warp closes the warpgroup's group k).
pub(crate) struct WgSync {
    /// Per warp: commit_groups executed.
    pub commits: Vec<u64>,
    /// Per warp: the last group its own wait_groups retired.
    pub waited: Vec<u64>,
    /// Per warp: it has live lanes (a warp that exited holds up no wait).
    pub live: Vec<bool>,
    /// Per warpgroup: the last group a wait_group retired.
    pub retired: Vec<u64>,
}

impl WgSync {
    fn new(nwarps: usize) -> Self {
        WgSync { commits: vec![0; nwarps], waited: vec![0; nwarps], live: vec![true; nwarps], retired: vec![0; nwarps.div_ceil(4)] }
    }

    /// The live warps of `warp`'s warpgroup other than itself that have not committed group
    /// `seq` yet (a wait retiring it waits for them: the group cannot execute before).
    pub fn missing(&self, warp: usize, seq: u64) -> Vec<usize> {
        let wg = warp / 4;
        (4 * wg..(4 * wg + 4).min(self.commits.len())).filter(|&s| s != warp && self.live[s] && self.commits[s] < seq).collect()
    }

    /// The group a `wgmma.wait_group n` of `warp` retires up to (0: none).
    pub fn target(&self, warp: usize, n: u32) -> u64 {
        self.commits[warp].saturating_sub(n as u64)
    }

    /// The oldest group some live warp of `warp`'s warpgroup has not waited past yet, less one.
    pub fn all_waited(&self, warp: usize) -> u64 {
        let wg = warp / 4;
        (4 * wg..(4 * wg + 4).min(self.commits.len())).filter(|&s| self.live[s]).map(|s| self.waited[s]).min().unwrap_or(u64::MAX)
    }
}

/// Another CTA of the cluster, as the running CTA sees it: what distributed shared memory
/// reaches.
#[derive(Default)]
pub(crate) struct Peer {
    pub shared: Vec<u8>,
    pub mbars: std::collections::HashMap<u64, super::asyncop::Mbar>,
    pub race: Option<RaceShadow>,
}

impl Peer {
    /// Race check: bytes [a, a+n) were written from another CTA. Accesses across CTAs are
    /// not race-checked; the bytes count as written and ordered with every thread.
    pub fn mark_written(&mut self, a: u64, n: u64, line: u32) {
        if let Some(r) = self.race.as_mut() {
            for i in a..a + n {
                if let Some(w) = r.writer.get_mut(i as usize) {
                    *w = 1;
                    r.wclk[i as usize] = 0;
                    r.wline[i as usize] = line;
                }
            }
        }
    }
}

/// Where a shared-space address lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SharedAt {
    /// The executing CTA's byte.
    Own(u64),
    /// Byte of the CTA of that rank in the cluster.
    Peer(usize, u64),
}

impl Env<'_> {
    /// CTAs in the cluster.
    pub fn nctarank(&self) -> u32 {
        self.ctx.cluster.iter().product()
    }

    /// Resolves a shared-space address: below [`DSMEM_BASE`] the CTA's own bytes, above it
    /// a CTA's window in the cluster's distributed shared memory.
    pub fn resolve_shared(&self, a: u64) -> std::result::Result<SharedAt, String> {
        if a < DSMEM_BASE {
            return Ok(SharedAt::Own(a));
        }
        let (r, off) = ((a - DSMEM_BASE) / DSMEM_STRIDE, (a - DSMEM_BASE) % DSMEM_STRIDE);
        let n = self.nctarank() as u64;
        if r >= n {
            return Err(format!(
                "shared::cluster address {a:#x} is outside every CTA's window: the cluster has {n} CTA(s), whose windows are at {DSMEM_BASE:#x} + rank * {DSMEM_STRIDE:#x}"
            ));
        }
        Ok(if r == self.rank as u64 { SharedAt::Own(off) } else { SharedAt::Peer(r as usize, off) })
    }

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
    let c = ctx.cluster;
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
        Special::ClusterCtaid(d) => ctaid[d as usize] % c[d as usize],
        Special::ClusterNctaid(d) => c[d as usize],
        Special::Clusterid(d) => ctaid[d as usize] / c[d as usize],
        Special::Nclusterid(d) => g[d as usize] / c[d as usize],
        Special::ClusterCtarank => (ctaid[0] % c[0]) + c[0] * ((ctaid[1] % c[1]) + c[1] * (ctaid[2] % c[2])),
        Special::ClusterNctarank => c.iter().product(),
        Special::IsExplicitCluster => ctx.explicit as u32,
        Special::DynSmem => ctx.cfg.dyn_shared,
        Special::TotalSmem => (ctx.prog.shared_bytes as u32).saturating_add(ctx.cfg.dyn_shared),
    };
    v as u64
}

/// A CTA of a cluster: its environment and warps.
type Cta<'a> = (Env<'a>, Vec<Warp>);

fn new_cta<'a>(ctx: &'a LaunchCtx<'a>, ctaid: [u32; 3], rank: u32) -> Cta<'a> {
    let prog = ctx.prog;
    let nthreads: u32 = ctx.cfg.block.iter().product();
    let nwarps = nthreads.div_ceil(32);
    let shared_len = prog.shared_bytes + ctx.cfg.dyn_shared as usize;
    let env = Env {
        ctx,
        ctaid,
        // Shared memory starts as garbage on a GPU: a poison pattern (NaN in every float
        // width) makes reads of never-written bytes show up instead of reading as zero.
        shared: vec![ctx.cfg.options.shared_fill; shared_len],
        bars: vec![BarState::default(); 16],
        out: String::new(),
        race: ctx.cfg.options.race_check.then(|| RaceShadow::new((nwarps * 32) as usize, shared_len)),
        thread_insts: 0,
        warp_insts: 0,
        asyncs: Default::default(),
        effects: 0,
        rank,
        peers: Vec::new(),
        cbar_phase: 0,
        tx_by_async_proxy: false,
        wg: WgSync::new(nwarps as usize),
        nreg: RegBudget::new(nwarps as usize, prog),
    };
    let warps: Vec<Warp> = (0..nwarps)
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
    (env, warps)
}

/// One scheduler round of a CTA; returns whether anything moved.
fn step_cta(env: &mut Env<'_>, warps: &mut [Warp]) -> Result<bool> {
    let mut progressed = false;
    let effects = env.effects;
    for w in 0..warps.len() {
        if warps[w].finished() {
            continue;
        }
        // A warp that only went round its spin loop (parked on a failed mbarrier wait)
        // has not progressed unless something it did is visible to others.
        if warps[w].run(env, SLICE)? > 0 && !warps[w].spun {
            progressed = true;
        }
        env.wg.live[w] = !warps[w].finished();
        if release_barriers(env, warps) {
            progressed = true;
        }
    }
    if release_barriers(env, warps) {
        progressed = true;
    }
    if env.effects != effects {
        progressed = true;
    }
    if env.warp_insts > env.ctx.cfg.options.max_warp_steps {
        let c = env.ctaid;
        let mut msg = format!("CTA ({},{},{}) ran {} warp-instructions, over the limit of {}; where the warps are:", c[0], c[1], c[2], env.warp_insts, env.ctx.cfg.options.max_warp_steps);
        for w in warps.iter() {
            msg.push_str(&w.describe(env));
        }
        return Err(EmuError::new(ErrorKind::StepLimit, 0, msg));
    }
    Ok(progressed)
}

/// Lends every other CTA's shared memory and mbarriers to CTA `k` for its slice.
fn lend(ctas: &mut [Cta<'_>], k: usize) {
    if ctas.len() == 1 {
        return;
    }
    let peers: Vec<Peer> = ctas
        .iter_mut()
        .enumerate()
        .map(|(j, (e, _))| if j == k { Peer::default() } else { Peer { shared: std::mem::take(&mut e.shared), mbars: std::mem::take(&mut e.asyncs.mbars), race: e.race.take() } })
        .collect();
    ctas[k].0.peers = peers;
}

/// Gives the lent memories back.
fn unlend(ctas: &mut [Cta<'_>], k: usize) {
    let peers = std::mem::take(&mut ctas[k].0.peers);
    for (j, p) in peers.into_iter().enumerate() {
        if j != k {
            ctas[j].0.shared = p.shared;
            ctas[j].0.asyncs.mbars = p.mbars;
            ctas[j].0.race = p.race;
        }
    }
}

/// Completes the cluster barrier's phase when every live thread of the cluster has arrived,
/// and releases the threads waiting on a completed phase; returns true if anything moved.
fn cluster_barrier(ctas: &mut [Cta<'_>], phase: &mut u32) -> bool {
    let mut any = false;
    let mut all = true;
    for (_, ws) in ctas.iter() {
        for w in ws {
            any |= w.cl_arr != 0;
            all &= w.live() & !w.cl_arr == 0;
        }
    }
    if !(any && all) {
        return false;
    }
    *phase = phase.wrapping_add(1);
    for (env, ws) in ctas.iter_mut() {
        env.cbar_phase = *phase;
        for w in ws.iter_mut() {
            w.cl_arr = 0;
            let m = w.release_cluster_wait(*phase);
            if let Some(r) = env.race.as_mut() {
                for l in 0..32 {
                    if m >> l & 1 != 0 {
                        r.bar_acquire(16, w.id as usize * 32 + l);
                    }
                }
            }
        }
    }
    true
}

/// Runs cluster `cid` (all its CTAs in one scheduler, so that waits on other CTAs of the
/// cluster make progress) to completion; returns each CTA's totals.
pub(crate) fn run_cluster(ctx: &LaunchCtx<'_>, cid: [u32; 3]) -> Result<Vec<([u32; 3], CtaResult)>> {
    let c = ctx.cluster;
    let n = c.iter().product::<u32>();
    let mut ctas: Vec<Cta<'_>> = (0..n)
        .map(|r| {
            let ctaid = [cid[0] * c[0] + r % c[0], cid[1] * c[1] + (r / c[0]) % c[1], cid[2] * c[2] + r / (c[0] * c[1])];
            new_cta(ctx, ctaid, r)
        })
        .collect();
    let mut phase = 0u32;
    loop {
        let mut progressed = false;
        let mut all_done = true;
        for k in 0..ctas.len() {
            if ctas[k].1.iter().all(|w| w.finished()) {
                continue;
            }
            all_done = false;
            lend(&mut ctas, k);
            let (env, warps) = &mut ctas[k];
            let r = step_cta(env, warps);
            unlend(&mut ctas, k);
            progressed |= r?;
            progressed |= cluster_barrier(&mut ctas, &mut phase);
        }
        if all_done {
            break;
        }
        progressed |= cluster_barrier(&mut ctas, &mut phase);
        if !progressed {
            return Err(deadlock(&ctas));
        }
    }
    Ok(ctas.into_iter().map(|(e, _)| (e.ctaid, CtaResult { output: e.out, thread_insts: e.thread_insts, warp_insts: e.warp_insts })).collect())
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
            let m = w.release_barrier(id as u8, &b);
            if let Some(r) = env.race.as_mut() {
                for l in 0..32 {
                    if m >> l & 1 != 0 {
                        r.bar_acquire(id, w.id as usize * 32 + l);
                    }
                }
            }
        }
        if let Some(r) = env.race.as_mut() {
            r.bars[id].clear();
        }
        any = true;
    }
    any
}

fn deadlock(ctas: &[Cta<'_>]) -> EmuError {
    let who = |e: &Env<'_>| format!("CTA ({},{},{})", e.ctaid[0], e.ctaid[1], e.ctaid[2]);
    let mut msg = if ctas.len() == 1 {
        format!("every live warp of {} is waiting and none can proceed:", who(&ctas[0].0))
    } else {
        format!("every live warp of the cluster of CTAs {} is waiting and none can proceed:", ctas.iter().map(|(e, _)| who(e)).collect::<Vec<_>>().join(", "))
    };
    for (env, warps) in ctas {
        if ctas.len() > 1 {
            msg.push_str(&format!("\n {} (rank {}):", who(env), env.rank));
        }
        for w in warps {
            msg.push_str(&w.describe(env));
        }
        let live: u32 = warps.iter().map(|w| w.live().count_ones()).sum();
        for (id, b) in env.bars.iter().enumerate() {
            if b.arrived > 0 {
                let exp = if b.expected > 0 { b.expected } else { live };
                msg.push_str(&format!("\n  barrier {id}: {} of {exp} thread(s) arrived", b.arrived));
            }
        }
        if warps.iter().any(|w| w.cl_arr != 0 || w.cl_pending != 0) {
            let arrived: u32 = warps.iter().map(|w| w.cl_arr.count_ones()).sum();
            msg.push_str(&format!("\n  cluster barrier: {arrived} of {live} live thread(s) of {} arrived in the current phase", who(env)));
        }
    }
    let line = ctas.iter().find_map(|(env, warps)| warps.iter().find_map(|w| w.first_line(env))).unwrap_or(0);
    EmuError::new(ErrorKind::Deadlock, line, msg)
}
