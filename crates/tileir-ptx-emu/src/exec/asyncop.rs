//! Asynchronous copies and mbarriers.
//!
//! `cp.async` copies are queued per thread and performed when a `cp.async.wait_group`
//! (or `wait_all`, or thread exit) retires their group — the latest moment the ISA allows,
//! so code that reads the destination too early sees a fault, not stale luck: until then the
//! destination bytes are marked pending and any shared-memory access to them is an error.
//!
//! mbarriers live in a side table keyed by their shared-memory address: expected and
//! pending arrival counts, the transaction count and the phase. Misuse (use before
//! `init`, more arrivals than the phase expects) is an error.

use std::collections::HashMap;

use super::cta::{Env, SharedAt};
use super::warp::Warp;
use crate::error::{EmuError, ErrorKind, Result};
use crate::mem::from_generic;
use crate::program::{Addr, Inst, MbarOp, Reg, Space, Src};

/// One queued cp.async.
#[derive(Clone, Debug)]
pub(crate) struct CopyJob {
    /// Issuing thread (CTA-linear) and PTX line.
    tid: u32,
    line: u32,
    dst: u64,
    src: u64,
    size: u64,
    src_size: u64,
}

/// Per-thread cp.async state.
#[derive(Clone, Debug, Default)]
pub(crate) struct CopyQueue {
    uncommitted: Vec<CopyJob>,
    groups: std::collections::VecDeque<Vec<CopyJob>>,
    /// Race check: shared bytes bulk copies of this thread read, not yet committed, and per
    /// committed bulk group not yet retired by a cp.async.bulk.wait_group.
    bulk_uncommitted: Vec<u32>,
    bulk_groups: std::collections::VecDeque<Vec<u32>>,
}

/// `cp.async.bulk.commit_group` for one lane.
pub(crate) fn bulk_commit(w: &mut Warp, lane: usize) {
    let q = &mut w.copies[lane];
    let g = std::mem::take(&mut q.bulk_uncommitted);
    q.bulk_groups.push_back(g);
}

/// `cp.async.bulk.wait_group{.read} n` for one lane: older groups' reads are done.
pub(crate) fn bulk_wait(w: &mut Warp, env: &mut Env<'_>, lane: usize, n: u32) {
    let t = w.id as usize * 32 + lane;
    while w.copies[lane].bulk_groups.len() > n as usize {
        let reads = w.copies[lane].bulk_groups.pop_front().unwrap_or_default();
        if let Some(r) = env.race.as_mut() {
            r.async_reads_end(&reads, t);
        }
    }
}

/// One mbarrier.
#[derive(Clone, Debug)]
pub(crate) struct Mbar {
    pub expected: u32,
    pub pending: u32,
    pub tx: i64,
    pub phase: u32,
}

/// The CTA's mbarriers and the pending-destination marks of its async copies.
#[derive(Default)]
pub(crate) struct AsyncState {
    pub mbars: HashMap<u64, Mbar>,
    /// Per shared byte: how many queued copies write it (allocated on first use).
    pub pending: Option<Vec<u16>>,
    /// Per shared byte: the latest queued copy writing it: (issuing thread, PTX line, the
    /// issuing thread's commit-group number that holds it).
    pub issuer: Vec<(u32, u32, u32)>,
    /// Per thread of the CTA: cp.async.commit_group executed so far (groups are numbered
    /// from 0 in commit order).
    pub commits: Vec<u32>,
}

fn val(regs: &[u64], s: Src, l: usize) -> u64 {
    match s {
        Src::R(r) => regs[r as usize * 32 + l],
        Src::I(v) => v,
    }
}

fn err(w: &Warp, env: &Env<'_>, inst: &Inst, lane: usize, kind: ErrorKind, m: String) -> EmuError {
    EmuError::new(kind, inst.line, format!("{}: {m}", env.who(w.id, lane)))
}

/// Checks that no queued copy writes shared bytes [a, a+size); the error names the copy's
/// PTX line, its thread and the wait that would complete it.
pub(crate) fn check_pending(env: &Env<'_>, a: u64, size: u64) -> std::result::Result<(), String> {
    if let Some(p) = &env.asyncs.pending {
        for i in a..a + size {
            if p.get(i as usize).is_some_and(|&c| c > 0) {
                let (tid, line, group) = env.asyncs.issuer[i as usize];
                let committed = env.asyncs.commits.get(tid as usize).copied().unwrap_or(0);
                let needs = if group >= committed {
                    "its group is not committed yet: it waits on that thread's cp.async.commit_group, then cp.async.wait_group 0 (or cp.async.wait_all)".to_string()
                } else {
                    let newer = committed - group - 1;
                    format!("it waits on that thread's cp.async.wait_group {newer} (or lower) or cp.async.wait_all: {newer} group(s) were committed after its group")
                };
                return Err(format!(
                    "shared byte {i:#x} is the destination of a cp.async that no cp.async.wait_group/wait_all has completed yet: the cp.async at PTX line {line} by {} ({needs}; another thread reading it also needs a barrier after that wait)",
                    env.who(tid / 32, (tid % 32) as usize)
                ));
            }
        }
    }
    Ok(())
}

/// `cp.async` for one lane: validates both ranges now, queues the copy.
#[allow(clippy::too_many_arguments)] // one lane of one decoded instruction: its operands
pub(crate) fn cp_async(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, lane: usize, dst: Addr, src: Addr, size: u8, src_size: Option<Src>) -> Result<()> {
    let d = val(&w.regs, dst.base, lane).wrapping_add(dst.off as u64);
    let s = val(&w.regs, src.base, lane).wrapping_add(src.off as u64);
    let size = size as u64;
    let src_size = src_size.map_or(size, |x| val(&w.regs, x, lane).min(size));
    if d % size != 0 || s % size != 0 {
        return Err(err(w, env, inst, lane, ErrorKind::Memory, format!("misaligned cp.async of {size} byte(s) from {s:#x} to shared {d:#x}")));
    }
    let (dspace, d) = if d >= crate::mem::SHARED_WINDOW { from_generic(d) } else { (Space::Shared, d) };
    if dspace != Space::Shared || d + size > env.shared.len() as u64 {
        return Err(err(w, env, inst, lane, ErrorKind::Memory, format!("cp.async destination {d:#x} (+{size}) is outside the CTA's {} byte(s) of shared memory", env.shared.len())));
    }
    if src_size > 0 {
        env.ctx.global.load(s, 1).and_then(|_| env.ctx.global.load(s + src_size - 1, 1)).map_err(|f| err(w, env, inst, lane, ErrorKind::Memory, format!("cp.async source: {}", f.0)))?;
    }
    let n = env.shared.len();
    let p = env.asyncs.pending.get_or_insert_with(|| vec![0; n]);
    for i in d..d + size {
        p[i as usize] += 1;
    }
    let tid = w.id * 32 + lane as u32;
    let group = env.asyncs.commits.get(tid as usize).copied().unwrap_or(0);
    if env.asyncs.issuer.len() < n {
        env.asyncs.issuer = vec![(0, 0, 0); n];
    }
    for i in d..d + size {
        env.asyncs.issuer[i as usize] = (tid, inst.line, group);
    }
    w.copies[lane].uncommitted.push(CopyJob { tid, line: inst.line, dst: d, src: s, size, src_size });
    Ok(())
}

fn complete(env: &mut Env<'_>, job: &CopyJob) {
    if let Some(p) = env.asyncs.pending.as_mut() {
        for i in job.dst..job.dst + job.size {
            p[i as usize] = p[i as usize].saturating_sub(1);
        }
    }
    for i in 0..job.size {
        // Bytes past src_size are zero-filled; the source range was checked at issue.
        let b = if i < job.src_size { env.ctx.global.load(job.src + i, 1).unwrap_or(0) as u8 } else { 0 };
        env.shared[(job.dst + i) as usize] = b;
        // Written by the issuing thread when its wait completes the copy.
        if let Some(r) = env.race.as_mut() {
            r.record_write((job.dst + i) as usize, job.tid as usize, job.line);
        }
    }
    env.effects += 1;
}

/// `cp.async.commit_group` for one lane.
pub(crate) fn commit(w: &mut Warp, env: &mut Env<'_>, lane: usize) {
    let tid = (w.id * 32) as usize + lane;
    if env.asyncs.commits.len() <= tid {
        env.asyncs.commits.resize(tid + 1, 0);
    }
    env.asyncs.commits[tid] += 1;
    let q = &mut w.copies[lane];
    let jobs = std::mem::take(&mut q.uncommitted);
    q.groups.push_back(jobs);
}

/// `cp.async.wait_group n` (None: wait_all) for one lane.
pub(crate) fn wait(w: &mut Warp, env: &mut Env<'_>, lane: usize, n: Option<u32>) {
    if n.is_none() && !w.copies[lane].uncommitted.is_empty() {
        commit(w, env, lane);
    }
    let keep = n.unwrap_or(0) as usize;
    while w.copies[lane].groups.len() > keep {
        if let Some(g) = w.copies[lane].groups.pop_front() {
            for job in &g {
                complete(env, job);
            }
        }
    }
}

/// Completes everything a lane still has queued (thread exit).
pub(crate) fn drain(w: &mut Warp, env: &mut Env<'_>, lane: usize) {
    let q = &mut w.copies[lane];
    if q.uncommitted.is_empty() && q.groups.is_empty() {
        return;
    }
    wait(w, env, lane, None);
}

fn mbar_addr(w: &Warp, env: &Env<'_>, inst: &Inst, lane: usize, addr: Addr) -> Result<u64> {
    match mbar_target(w, env, inst, lane, addr)? {
        SharedAt::Own(off) => Ok(off),
        SharedAt::Peer(r, _) => Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("this mbarrier operation needs the executing CTA's own mbarrier, not one of CTA rank {r}"))),
    }
}

/// The mbarrier an address names: the CTA's own or, through a shared::cluster address,
/// another CTA's of the cluster.
fn mbar_target(w: &Warp, env: &Env<'_>, inst: &Inst, lane: usize, addr: Addr) -> Result<SharedAt> {
    let a = val(&w.regs, addr.base, lane).wrapping_add(addr.off as u64);
    let (space, x) = if a >= crate::mem::SHARED_WINDOW { from_generic(a) } else { (Space::Shared, a) };
    let at = if space == Space::Shared { env.resolve_shared(x).ok() } else { None };
    let off = match at {
        Some(SharedAt::Own(o) | SharedAt::Peer(_, o)) => o,
        None => u64::MAX,
    };
    match at {
        Some(t) if off % 8 == 0 && off + 8 <= env.shared.len() as u64 => Ok(t),
        _ => Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("mbarrier address {a:#x} is not an 8-byte-aligned object in the shared memory of a CTA of the cluster"))),
    }
}

/// Ends the phase when every arrival and every expected byte is in.
fn maybe_complete(m: &mut Mbar) -> bool {
    if m.pending == 0 && m.tx == 0 {
        m.phase = m.phase.wrapping_add(1);
        m.pending = m.expected;
        return true;
    }
    false
}

/// One mbarrier operation for one lane; returns false for a `try_wait` that failed.
#[allow(clippy::too_many_arguments)] // one lane of one decoded instruction: its operands
pub(crate) fn mbarrier(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, lane: usize, op: MbarOp, d: Option<Reg>, addr: Addr, b: Option<Src>) -> Result<bool> {
    let target = mbar_target(w, env, inst, lane, addr)?;
    let (peer, a) = match target {
        SharedAt::Own(a) => (None, a),
        SharedAt::Peer(r, a) => (Some(r), a),
    };
    if let Some(r) = peer {
        if !matches!(op, MbarOp::Arrive | MbarOp::ArriveDrop | MbarOp::ArriveExpectTx | MbarOp::ExpectTx | MbarOp::CompleteTx) {
            return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("mbarrier {op:?} on CTA rank {r}'s mbarrier at shared {a:#x}: only arrivals and transaction counts reach another CTA's mbarrier")));
        }
    }
    let bv = b.map(|b| val(&w.regs, b, lane));
    let mut result: Option<u64> = None;
    let mut ok = true;
    // Race check: (this lane released into the mbarrier, a phase completed).
    let (mut released, mut completed) = (false, false);
    if op == MbarOp::Init {
        let count = bv.unwrap_or(1) as u32;
        if count == 0 || count >= 1 << 20 {
            return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("mbarrier.init count {count} is not in 1..2^20")));
        }
        env.asyncs.mbars.insert(a, Mbar { expected: count, pending: count, tx: 0, phase: 0 });
        if let Some(r) = env.race.as_mut() {
            r.mbars.remove(&a);
        }
        env.effects += 1;
        return Ok(true);
    }
    let where_ = peer.map_or(String::new(), |r| format!(" of CTA rank {r}"));
    let table = match peer {
        None => &mut env.asyncs.mbars,
        Some(r) => &mut env.peers[r].mbars,
    };
    let Some(m) = table.get_mut(&a) else {
        return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("mbarrier at shared {a:#x}{where_} is used before mbarrier.init (or after inval)")));
    };
    // The ISA's bounds: a transaction count operand in [0, 2^20 - 1], and the pending
    // tx-count (negative while copies land before their expect_tx) within ±(2^20 - 1).
    const TX_LIMIT: i64 = (1 << 20) - 1;
    if matches!(op, MbarOp::ArriveExpectTx | MbarOp::ExpectTx | MbarOp::CompleteTx) {
        let n = bv.unwrap_or(0) as i64;
        let after = if op == MbarOp::CompleteTx { m.tx - n } else { m.tx + n };
        if !(0..=TX_LIMIT).contains(&n) || after.abs() > TX_LIMIT {
            let t = m.tx;
            return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!(
                "transaction count {n} on the mbarrier at shared {a:#x}{where_} (tx-count {t}): counts must be in [0, 2^20 - 1] and the tx-count within ±(2^20 - 1)"
            )));
        }
    }
    match op {
        MbarOp::Init => {}
        MbarOp::Inval => {
            table.remove(&a);
        }
        MbarOp::Arrive | MbarOp::ArriveDrop | MbarOp::ArriveExpectTx => {
            let count = if op == MbarOp::ArriveExpectTx {
                m.tx += bv.unwrap_or(0) as i64;
                1
            } else {
                bv.unwrap_or(1) as u32
            };
            if m.pending < count {
                let (p, e, t) = (m.pending, m.expected, m.tx);
                return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!(
                    "arrive of count {count} on the mbarrier at shared {a:#x}{where_}, whose current phase has only {p} of {e} arrival(s) pending (tx-count {t})"
                )));
            }
            result = Some(m.phase as u64);
            m.pending -= count;
            if op == MbarOp::ArriveDrop {
                m.expected -= count;
            }
            released = true;
            completed = maybe_complete(m);
        }
        MbarOp::ExpectTx => m.tx += bv.unwrap_or(0) as i64,
        MbarOp::CompleteTx => {
            m.tx -= bv.unwrap_or(0) as i64;
            released = true;
            completed = maybe_complete(m);
        }
        MbarOp::TryWait(parity) | MbarOp::TestWait(parity) => {
            let token = bv.unwrap_or(0);
            // A state token must name the current phase or the one before it (the ISA leaves
            // older phases undefined: the hardware keeps only the phase parity, so a token two
            // phases old reads as the current phase). A parity always names one of the two.
            if !parity && (token > m.phase as u64 || m.phase as u64 >= token + 2) {
                let (n, what) = (m.phase, if token > m.phase as u64 { "a phase the mbarrier has not reached" } else { "a stale phase" });
                return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!(
                    "mbarrier wait on {what}: the state token is from phase {token}, but the mbarrier at shared {a:#x} is in phase {n}; a wait may only name the current phase or the one before it (phase {})",
                    n.saturating_sub(1)
                )));
            }
            // A parity names the phase to wait for; a state token is the phase it was taken in.
            ok = if parity { (m.phase & 1) as u64 != (token & 1) } else { m.phase as u64 != token };
            result = Some(ok as u64);
        }
    }
    if let (Some(r), None) = (env.race.as_mut(), peer) {
        let t = (w.id * 32) as usize + lane;
        if released {
            let by = if env.tx_by_async_proxy && op == MbarOp::CompleteTx { r.async_proxy() } else { t };
            r.mbar_release(a, by);
        }
        if completed {
            r.mbar_complete(a);
        }
        if matches!(op, MbarOp::TryWait(_) | MbarOp::TestWait(_)) && ok {
            r.mbar_acquire(a, t);
        }
    }
    if !matches!(op, MbarOp::TryWait(_) | MbarOp::TestWait(_)) {
        env.effects += 1;
    }
    if let (Some(d), Some(r)) = (d, result) {
        w.regs[d as usize * 32 + lane] = r;
    }
    Ok(ok)
}

/// `cp.async.mbarrier.arrive`: completes the lane's copies, then arrives (unless the
/// pending count was incremented first, i.e. without `.noinc`, which nets to no change).
pub(crate) fn cp_async_arrive(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, lane: usize, noinc: bool, addr: Addr) -> Result<()> {
    drain(w, env, lane);
    if noinc {
        mbarrier(w, env, inst, lane, MbarOp::Arrive, None, addr, None)?;
    } else {
        let a = mbar_addr(w, env, inst, lane, addr)?;
        if !env.asyncs.mbars.contains_key(&a) {
            return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("mbarrier at shared {a:#x} is used before mbarrier.init")));
        }
    }
    Ok(())
}

/// Text for a deadlock report: the state of the mbarrier at `a`.
pub(crate) fn describe(env: &Env<'_>, a: u64) -> String {
    match env.asyncs.mbars.get(&a) {
        Some(m) => format!("mbarrier at shared {a:#x}: phase {}, {} of {} arrival(s) pending, tx-count {}", m.phase, m.pending, m.expected, m.tx),
        None => format!("mbarrier at shared {a:#x} (not initialized)"),
    }
}

/// Text for a deadlock report: what a parked wait on the mbarrier at `a` names (`parity`
/// form or state token `v`) against the phase the mbarrier is in.
pub(crate) fn describe_wait(env: &Env<'_>, a: u64, parity: bool, v: u64) -> String {
    let Some(m) = env.asyncs.mbars.get(&a) else { return String::new() };
    let n = m.phase;
    if !parity {
        return format!("; the wait's state token is from phase {v}, the current phase {n} is incomplete");
    }
    let p = v & 1;
    if (n & 1) as u64 != p {
        return String::new();
    }
    let last = if n == 0 {
        "no phase has completed yet".to_string()
    } else {
        format!("the last completed phase is {} (parity {}); a wait meant for it names the wrong parity", n - 1, 1 - p)
    };
    format!("; the wait names parity {p}, i.e. the current, incomplete phase {n}: {last}")
}

/// `cp.async.bulk` for one lane: the copy happens at once (a legal completion time), then
/// the mbarrier's transaction count drops by the bytes copied.
#[allow(clippy::too_many_arguments)] // one lane of one decoded instruction: its operands
pub(crate) fn bulk_copy(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, lane: usize, dst_space: Space, dst: Addr, src_space: Space, src: Addr, size: Src, mbar: Option<Addr>) -> Result<()> {
    let d = val(&w.regs, dst.base, lane).wrapping_add(dst.off as u64);
    let s = val(&w.regs, src.base, lane).wrapping_add(src.off as u64);
    let n = val(&w.regs, size, lane) & 0xffff_ffff;
    if d % 16 != 0 || s % 16 != 0 || n % 16 != 0 {
        return Err(err(w, env, inst, lane, ErrorKind::Memory, format!("cp.async.bulk of {n} byte(s) from {s:#x} to {d:#x}: addresses and size must be multiples of 16")));
    }
    let mut off = 0;
    while off < n {
        let v = w.load_pub(env, src_space, lane, s + off, 8).map_err(|m| err(w, env, inst, lane, ErrorKind::Memory, format!("cp.async.bulk source: {m}")))?;
        w.store_pub(env, dst_space, lane, d + off, 8, v).map_err(|m| err(w, env, inst, lane, ErrorKind::Memory, format!("cp.async.bulk destination: {m}")))?;
        off += 8;
    }
    if let Some(m) = mbar {
        mbarrier(w, env, inst, lane, MbarOp::CompleteTx, None, m, Some(Src::I(n)))?;
    }
    Ok(())
}

/// Reads the 128-byte tensor map at `a` (`space`; a windowed address is generic).
fn read_tensor_map(env: &Env<'_>, space: Space, a: u64) -> std::result::Result<[u8; 128], String> {
    let (space, off) = if a >= crate::mem::SHARED_WINDOW || space == Space::Generic { from_generic(a) } else { (space, a) };
    if a % 64 != 0 {
        return Err(format!("the tensor map at {a:#x} is not 64-byte aligned"));
    }
    let mut out = [0u8; 128];
    for i in 0..16u64 {
        let v = match space {
            Space::Param => crate::mem::load_bytes(env.ctx.params, off + 8 * i, 8)
                .ok_or_else(|| format!("the tensor map at parameter offset {off} (+128) is past the {} parameter byte(s)", env.ctx.params.len()))?,
            Space::Global | Space::Const | Space::Generic => env.ctx.global.load(off + 8 * i, 8).map_err(|f| {
                format!("reading the tensor map: {} (the operand is the generic address of the map: cvta.param a kernel parameter's address)", f.0)
            })?,
            Space::Shared => crate::mem::load_bytes(&env.shared, off + 8 * i, 8).ok_or_else(|| format!("the tensor map at shared {off:#x} (+128) is outside shared memory"))?,
            Space::Local => return Err(format!("the tensor map at {a:#x} is in local memory (a byval parameter without nvvm.grid_constant was copied there)")),
        };
        out[8 * i as usize..8 * i as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
    Ok(out)
}

/// `cp.async.bulk.tensor` (tile mode) for one lane. A load copies the box at the
/// coordinates into shared memory in the map's swizzled layout (elements outside the
/// tensor filled with zeros, or NaN for `NanRequestZeroFma`) and then completes the box's
/// byte count on the mbarrier; a store writes the box's elements that lie inside the tensor.
/// Both happen when issued (a legal completion time for the async proxy).
#[allow(clippy::too_many_arguments)] // one lane of one decoded instruction: its operands
pub(crate) fn tensor_copy(
    w: &mut Warp,
    env: &mut Env<'_>,
    inst: &Inst,
    lane: usize,
    load: bool,
    rank: u8,
    smem: Addr,
    tmap_space: Space,
    tmap: Addr,
    coords: &[Src],
    mbar: Option<Addr>,
    mask: Option<Src>,
) -> Result<()> {
    use crate::tensor_map::{Interleave, OobFill, Swizzle, TensorMap};
    let what = if load { "TMA load" } else { "TMA store" };
    let ta = val(&w.regs, tmap.base, lane).wrapping_add(tmap.off as u64);
    let bytes = read_tensor_map(env, tmap_space, ta).map_err(|m| err(w, env, inst, lane, ErrorKind::Undefined, format!("{what}: {m}")))?;
    let map = TensorMap::decode(&bytes).map_err(|e| err(w, env, inst, lane, ErrorKind::Undefined, format!("{what} through the tensor map at {ta:#x}: {e}")))?;
    if map.rank != rank {
        return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("{what}: a {rank}-d copy through a rank-{} tensor map", map.rank)));
    }
    if map.interleave != Interleave::None {
        return Err(err(w, env, inst, lane, ErrorKind::Decode, format!("{what}: interleaved tensor maps ({:?}) are not supported", map.interleave)));
    }
    // The destination CTAs (ranks): the multicast mask's, or the one the address names.
    let sa = val(&w.regs, smem.base, lane).wrapping_add(smem.off as u64);
    let (space, s) = if sa >= crate::mem::SHARED_WINDOW { from_generic(sa) } else { (Space::Shared, sa) };
    let (s, dest_rank) = match (space, env.resolve_shared(s)) {
        (Space::Shared, Ok(SharedAt::Own(o))) => (o, env.rank),
        (Space::Shared, Ok(SharedAt::Peer(r, o))) => (o, r as u32),
        (_, Err(m)) => return Err(err(w, env, inst, lane, ErrorKind::Memory, format!("{what}: {m}"))),
        _ => (u64::MAX, env.rank),
    };
    let ranks: u32 = match mask {
        Some(m) => {
            let m = (val(&w.regs, m, lane) & 0xffff) as u32;
            let n = env.nctarank();
            if m >> n != 0 {
                return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("{what}: multicast mask {m:#x} names CTA ranks the cluster of {n} CTA(s) does not have")));
            }
            if m == 0 {
                return Ok(());
            }
            m
        }
        None => 1 << dest_rank,
    };
    let total = map.box_bytes();
    let align = map.swizzle.repeat().max(128);
    if space != Space::Shared || s == u64::MAX || s % align != 0 {
        let why = if map.swizzle == Swizzle::None { "128-byte aligned".to_string() } else { format!("{align}-byte aligned (the repeat of the {:?} swizzle)", map.swizzle) };
        return Err(err(w, env, inst, lane, ErrorKind::Memory, format!("{what}: shared address {sa:#x} is not {why} shared memory")));
    }
    let n = env.shared.len() as u64;
    if s + total > n {
        return Err(err(w, env, inst, lane, ErrorKind::Memory, format!(
            "{what}: the box of {total} byte(s) ({}) at shared {s:#x} runs {} byte(s) past the CTA's {n} byte(s) of shared memory",
            (0..rank as usize).map(|i| map.box_elems(i).to_string()).collect::<Vec<_>>().join("x"),
            s + total - n
        )));
    }
    let c: Vec<i64> = coords.iter().map(|&x| val(&w.regs, x, lane) as u32 as i32 as i64).collect();
    let r = rank as usize;
    let es = map.elem.size();
    let count = total / es;
    let fill = if map.oob_fill == OobFill::NanRequestZeroFma { u64::MAX >> (64 - 8 * es) } else { 0 };
    let me = w.id * 32 + lane as u32 + 1;
    let mut j = [0u64; 5];
    for idx in 0..count {
        let mut rest = idx;
        for (i, ji) in j.iter_mut().enumerate().take(r) {
            *ji = rest % map.box_elems(i);
            rest /= map.box_elems(i);
        }
        let mut inside = true;
        let mut ga = map.base;
        let mut at = Vec::new();
        for i in 0..r {
            let ci = c[i] + (j[i] * map.element_strides[i] as u64) as i64;
            at.push(ci);
            if ci < 0 || ci as u64 >= map.dims[i] {
                inside = false;
            } else {
                ga = ga.wrapping_add(ci as u64 * map.stride(i));
            }
        }
        let sh = map.swizzle.apply(s + idx * es);
        let at_text = || at.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
        if load {
            let v = if inside {
                env.ctx.global.load(ga, es).map_err(|f| err(w, env, inst, lane, ErrorKind::Memory, format!("{what}: element ({}) of the tensor: {}", at_text(), f.0)))?
            } else {
                fill
            };
            for r in (0..16).filter(|r| ranks >> r & 1 != 0) {
                if r != env.rank {
                    let p = &mut env.peers[r as usize];
                    crate::mem::store_bytes(&mut p.shared, sh, es, v);
                    p.mark_written(sh, es, inst.line);
                    continue;
                }
                check_pending(env, sh, es).map_err(|m| err(w, env, inst, lane, ErrorKind::Memory, format!("{what} destination: {m}")))?;
                crate::mem::store_bytes(&mut env.shared, sh, es, v);
                if let Some(rs) = env.race.as_mut() {
                    // Async-proxy writes, attributed to the issuing thread; its complete_tx on
                    // the mbarrier orders them before the waiters' reads. They may land any
                    // time after the issue: what other threads (and wgmma) read there must
                    // be ordered before it.
                    let race = rs.async_write(me as usize - 1, sh, es, inst.line);
                    race.map_err(|m| err(w, env, inst, lane, ErrorKind::Undefined, format!("{what}: {m}")))?;
                }
            }
        } else if inside {
            let v = w.load_pub(env, Space::Shared, lane, sh, es).map_err(|m| err(w, env, inst, lane, ErrorKind::Memory, format!("{what} source: {m}")))?;
            if let Some(r) = env.race.as_mut() {
                // The copy engine may read the image until a bulk wait_group retires it.
                let bytes: Vec<u32> = (sh..sh + es).map(|b| b as u32).collect();
                r.async_reads_begin(&bytes, inst.line, super::cta::AsyncReader::BulkCopy);
                w.copies[lane].bulk_uncommitted.extend(bytes);
            }
            env.ctx.global.store(ga, es, v).map_err(|f| err(w, env, inst, lane, ErrorKind::Memory, format!("{what}: element ({}) of the tensor: {}", at_text(), f.0)))?;
        }
    }
    env.effects += 1;
    if let Some(m) = mbar {
        if !load || ranks == 1 << env.rank {
            env.tx_by_async_proxy = true;
            let done = mbarrier(w, env, inst, lane, MbarOp::CompleteTx, None, m, Some(Src::I(total)));
            env.tx_by_async_proxy = false;
            done?;
        } else {
            // Each destination CTA's mbarrier at the same offset gets the box's bytes.
            let (space, ma) = {
                let a = val(&w.regs, m.base, lane).wrapping_add(m.off as u64);
                if a >= crate::mem::SHARED_WINDOW { from_generic(a) } else { (Space::Shared, a) }
            };
            let off = match (space, env.resolve_shared(ma)) {
                (Space::Shared, Ok(SharedAt::Own(o) | SharedAt::Peer(_, o))) => o,
                _ => return Err(err(w, env, inst, lane, ErrorKind::Undefined, format!("{what}: mbarrier address {ma:#x} is not in shared memory"))),
            };
            for r in (0..16u32).filter(|r| ranks >> r & 1 != 0) {
                let addr = Addr { base: Src::I(crate::mem::DSMEM_BASE + r as u64 * crate::mem::DSMEM_STRIDE + off), off: 0 };
                env.tx_by_async_proxy = true;
                let done = mbarrier(w, env, inst, lane, MbarOp::CompleteTx, None, addr, Some(Src::I(total)));
                env.tx_by_async_proxy = false;
                done?;
            }
        }
    }
    Ok(())
}
