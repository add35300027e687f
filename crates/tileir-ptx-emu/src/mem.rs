//! Memory: the launch's global buffers (shared by all CTA threads through atomics, so CTAs
//! run in parallel without unsafe code), and the address windows that map generic addresses
//! to shared, local and parameter space.
//!
//! Every access is checked: the whole range must lie inside one buffer and the address must
//! be aligned to the access size; a fault names the address, the nearest buffer and how far
//! outside it the access is.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::program::Space;

/// Generic-address window of the CTA's shared memory.
pub const SHARED_WINDOW: u64 = 0x0000_1000_0000_0000;
/// Inside shared space: where the distributed shared memory of a cluster starts. CTA rank
/// `r`'s shared byte `a` has the shared::cluster address `DSMEM_BASE + r * DSMEM_STRIDE + a`
/// (what `mapa` returns); addresses below `DSMEM_BASE` are the executing CTA's own.
pub const DSMEM_BASE: u64 = 0x0100_0000;
/// Size of each CTA's window in the cluster's shared space.
pub const DSMEM_STRIDE: u64 = 0x0100_0000;
/// Generic-address window of a thread's local memory.
pub const LOCAL_WINDOW: u64 = 0x0000_2000_0000_0000;
/// Generic-address window of the kernel parameters.
pub const PARAM_WINDOW: u64 = 0x0000_3000_0000_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 0x0000_1000_0000_0000;
/// Where module `.global`/`.const` variables are placed.
pub const MODULE_VARS_BASE: u64 = 0x0000_6000_0000_0000;
/// Where launch buffers are placed (each page-aligned with an unmapped page between).
pub const BUFFERS_BASE: u64 = 0x0000_7000_0000_0000;

/// The generic address of `addr` in `space`.
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared => SHARED_WINDOW + addr,
        Space::Local => LOCAL_WINDOW + addr,
        Space::Param => PARAM_WINDOW + addr,
        _ => addr,
    }
}

/// The space a generic address falls in and its address there.
pub fn from_generic(addr: u64) -> (Space, u64) {
    if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
        (Space::Shared, addr - SHARED_WINDOW)
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
        (Space::Local, addr - LOCAL_WINDOW)
    } else if (PARAM_WINDOW..PARAM_WINDOW + WINDOW_SIZE).contains(&addr) {
        (Space::Param, addr - PARAM_WINDOW)
    } else {
        (Space::Global, addr)
    }
}

/// A memory fault (the executor adds the PTX line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault(pub String);

/// One global buffer.
#[derive(Debug)]
pub struct GlobalBuf {
    /// Name (for reports).
    pub name: String,
    /// Base address.
    pub base: u64,
    /// Length in bytes.
    pub len: usize,
    /// Stores are faults.
    pub read_only: bool,
    words: Vec<AtomicU64>,
}

/// All global memory of a launch.
#[derive(Debug, Default)]
pub struct GlobalMem {
    bufs: Vec<GlobalBuf>,
}

impl GlobalMem {
    /// Global memory holding `buffers` (name, contents, read-only) at fresh addresses, and
    /// module variables at their fixed addresses. Returns it and each buffer's base address.
    pub fn new(buffers: Vec<(String, Vec<u8>, bool)>, module_vars: &[crate::program::ModuleVar]) -> (GlobalMem, Vec<u64>) {
        let mut bufs = Vec::new();
        for v in module_vars {
            bufs.push(make_buf(v.name.clone(), v.addr, &v.init, v.constant));
        }
        let mut next = BUFFERS_BASE;
        let mut bases = Vec::new();
        for (name, data, ro) in buffers {
            bases.push(next);
            let len = data.len() as u64;
            bufs.push(make_buf(name, next, &data, ro));
            // Page-aligned, with a guard page so an overrun never lands in the next buffer.
            next += len.div_ceil(4096) * 4096 + 4096;
        }
        bufs.sort_by_key(|b| b.base);
        (GlobalMem { bufs }, bases)
    }

    /// The buffers (sorted by address).
    pub fn buffers(&self) -> &[GlobalBuf] {
        &self.bufs
    }

    /// The bytes of buffer `i` of [`buffers`](Self::buffers).
    pub fn bytes_of(&self, i: usize) -> Vec<u8> {
        let b = &self.bufs[i];
        let mut out = Vec::with_capacity(b.len);
        for w in &b.words {
            out.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        out.truncate(b.len);
        out
    }

    fn find(&self, addr: u64, size: u64) -> Result<(&GlobalBuf, usize), Fault> {
        let i = self.bufs.partition_point(|b| b.base <= addr);
        if i > 0 {
            let b = &self.bufs[i - 1];
            if addr.wrapping_sub(b.base).saturating_add(size) <= b.len as u64 {
                return Ok((b, (addr - b.base) as usize));
            }
        }
        Err(Fault(self.describe_miss(addr, size)))
    }

    fn describe_miss(&self, addr: u64, size: u64) -> String {
        let mut best: Option<(u64, String)> = None;
        for b in &self.bufs {
            let end = b.base + b.len as u64;
            let (dist, what) = if addr >= end {
                (addr - end, format!("{} byte(s) past the end of '{}' [{:#x}, {:#x})", addr + size - end, b.name, b.base, end))
            } else if addr + size <= b.base {
                (b.base - addr, format!("{} byte(s) before the start of '{}' [{:#x}, {:#x})", b.base - addr, b.name, b.base, end))
            } else {
                (0, format!("straddles the end of '{}' [{:#x}, {:#x}) by {} byte(s)", b.name, b.base, end, addr + size - end))
            };
            if best.as_ref().is_none_or(|(d, _)| dist < *d) {
                best = Some((dist, what));
            }
        }
        match best {
            Some((_, w)) => format!("global access of {size} byte(s) at {addr:#x} is outside every buffer: {w}"),
            None => format!("global access of {size} byte(s) at {addr:#x}: the launch has no buffers"),
        }
    }

    /// Loads `size` (1, 2, 4 or 8) bytes at an address aligned to `size`.
    #[inline]
    pub fn load(&self, addr: u64, size: u64) -> Result<u64, Fault> {
        let (b, off) = self.find(addr, size)?;
        let w = b.words[off / 8].load(Ordering::Relaxed);
        Ok(extract(w, off, size))
    }

    /// Stores `size` bytes.
    #[inline]
    pub fn store(&self, addr: u64, size: u64, val: u64) -> Result<(), Fault> {
        let (b, off) = self.find(addr, size)?;
        if b.read_only {
            return Err(Fault(format!("store of {size} byte(s) at {addr:#x} into read-only '{}'", b.name)));
        }
        let word = &b.words[off / 8];
        if size == 8 {
            word.store(val, Ordering::Relaxed);
        } else {
            let (m, v) = insert_mask(off, size, val);
            // Only this access's bytes change, so CTAs writing neighbouring bytes of one
            // word concurrently do not lose each other's stores.
            let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| Some((w & !m) | v));
        }
        Ok(())
    }

    /// Loads `out.len()` consecutive elements of `size` bytes from `addr` with one bounds
    /// check (vector loads).
    #[inline]
    pub fn load_n(&self, addr: u64, size: u64, out: &mut [u64]) -> Result<(), Fault> {
        let (b, off) = self.find(addr, size * out.len() as u64)?;
        for (i, o) in out.iter_mut().enumerate() {
            let off = off + i * size as usize;
            *o = extract(b.words[off / 8].load(Ordering::Relaxed), off, size);
        }
        Ok(())
    }

    /// Stores consecutive elements of `size` bytes at `addr` with one bounds check.
    #[inline]
    pub fn store_n(&self, addr: u64, size: u64, vals: &[u64]) -> Result<(), Fault> {
        let (b, off) = self.find(addr, size * vals.len() as u64)?;
        if b.read_only {
            return Err(Fault(format!("store of {} byte(s) at {addr:#x} into read-only '{}'", size * vals.len() as u64, b.name)));
        }
        for (i, &v) in vals.iter().enumerate() {
            let off = off + i * size as usize;
            let word = &b.words[off / 8];
            if size == 8 {
                word.store(v, Ordering::Relaxed);
            } else {
                let (m, v) = insert_mask(off, size, v);
                let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| Some((w & !m) | v));
            }
        }
        Ok(())
    }

    /// Atomic read-modify-write of `size` (4 or 8) bytes: `f(old)` is stored; returns old.
    pub fn atomic(&self, addr: u64, size: u64, f: impl Fn(u64) -> u64) -> Result<u64, Fault> {
        let (b, off) = self.find(addr, size)?;
        if b.read_only {
            return Err(Fault(format!("atomic on read-only '{}' at {addr:#x}", b.name)));
        }
        let word = &b.words[off / 8];
        let mut old = 0;
        let _ = word.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
            old = extract(w, off, size);
            let (m, v) = insert_mask(off, size, f(old));
            Some((w & !m) | v)
        });
        Ok(old)
    }
}

fn make_buf(name: String, base: u64, data: &[u8], read_only: bool) -> GlobalBuf {
    let mut words = Vec::with_capacity(data.len().div_ceil(8));
    for chunk in data.chunks(8) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        words.push(AtomicU64::new(u64::from_le_bytes(b)));
    }
    GlobalBuf { name, base, len: data.len(), read_only, words }
}

#[inline(always)]
fn extract(w: u64, off: usize, size: u64) -> u64 {
    let sh = (off % 8) * 8;
    let v = w >> sh;
    if size >= 8 {
        v
    } else {
        v & ((1u64 << (size * 8)) - 1)
    }
}

#[inline(always)]
fn insert_mask(off: usize, size: u64, val: u64) -> (u64, u64) {
    let sh = (off % 8) * 8;
    let m = if size >= 8 { u64::MAX } else { ((1u64 << (size * 8)) - 1) << sh };
    (m, (val << sh) & m)
}

/// Little-endian load of `size` bytes from a plain byte memory (shared, local, param).
#[inline]
pub fn load_bytes(mem: &[u8], addr: u64, size: u64) -> Option<u64> {
    let a = usize::try_from(addr).ok()?;
    let s = mem.get(a..a.checked_add(size as usize)?)?;
    let mut b = [0u8; 8];
    b[..s.len()].copy_from_slice(s);
    Some(u64::from_le_bytes(b))
}

/// Little-endian store into a plain byte memory.
#[inline]
pub fn store_bytes(mem: &mut [u8], addr: u64, size: u64, val: u64) -> Option<()> {
    let a = usize::try_from(addr).ok()?;
    let s = mem.get_mut(a..a.checked_add(size as usize)?)?;
    s.copy_from_slice(&val.to_le_bytes()[..size as usize]);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_alignment_and_neighbours() {
        let (g, bases) = GlobalMem::new(vec![("a".into(), vec![0u8; 12], false), ("b".into(), vec![1u8; 4], true)], &[]);
        g.store(bases[0] + 4, 4, 0xdead_beef).unwrap();
        g.store(bases[0], 2, 0x1234).unwrap();
        assert_eq!(g.load(bases[0] + 4, 4).unwrap(), 0xdead_beef);
        assert_eq!(g.load(bases[0], 8).unwrap(), 0xdead_beef_0000_1234);
        let e = g.load(bases[0] + 12, 4).unwrap_err();
        assert!(e.0.contains("past the end of 'a'"), "{}", e.0);
        assert!(g.store(bases[1], 4, 0).unwrap_err().0.contains("read-only 'b'"));
        assert_eq!(g.atomic(bases[0] + 4, 4, |v| v + 1).unwrap(), 0xdead_beef);
        assert_eq!(g.bytes_of(0)[4..8], 0xdead_bef0u32.to_le_bytes());
    }
}
