//! Memory: the launch's global buffers (shared by all CTA threads through atomics, so CTAs
//! run in parallel without unsafe code), and the address windows that map generic addresses
//! to shared, local and parameter space.
//!
//! Every access is checked: the whole range must lie inside one buffer and the address must
//! be aligned to the access size; a fault names the address, the nearest buffer and how far
//! outside it the access is.
//!
//! The device heap (`malloc`/`free` in kernels) lives here too: each allocation is a buffer
//! of its own in [`HEAP_BASE`]'s window, at an address never handed out again, so a use
//! after free or an overrun is a fault naming the allocation rather than a silent access to
//! a neighbour.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

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
/// Where device-heap (`malloc`) allocations are placed, in a window of [`WINDOW_SIZE`] bytes
/// of their own: each page-aligned with an unmapped page after it, and never reused, so an
/// access after `free` cannot reach a later allocation and is reported as a use after free.
pub const HEAP_BASE: u64 = 0x0000_5000_0000_0000;
/// The byte new heap allocations are filled with: device `malloc` memory is uninitialized,
/// and a non-zero pattern makes a kernel that relies on zeros visibly wrong.
pub const HEAP_FILL: u8 = 0xCD;
/// Alignment (and granularity) of heap allocations; CUDA guarantees 16 bytes.
const HEAP_PAGE: u64 = 4096;

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

/// Counters of the device heap, over the life of one [`GlobalMem`] (one launch under
/// [`crate::run`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeapStats {
    /// Successful `malloc` calls (zero-byte ones included).
    pub allocations: u64,
    /// `free` calls that released an allocation (`free(NULL)` is not counted).
    pub frees: u64,
    /// `malloc` calls that returned NULL because the heap could not hold them.
    pub failed: u64,
    /// Most bytes live at once.
    pub peak_bytes: u64,
    /// Allocations not freed (yet).
    pub live_allocations: u64,
    /// Bytes not freed (yet).
    pub live_bytes: u64,
}

/// One `malloc` allocation; a freed one keeps its place (and name) for fault reports.
#[derive(Debug)]
struct HeapAlloc {
    base: u64,
    len: u64,
    name: String,
    /// The memory; None once freed.
    buf: Option<GlobalBuf>,
}

/// The device heap: every allocation ever made, in address order (addresses only grow).
#[derive(Debug, Default)]
struct Heap {
    allocs: Vec<HeapAlloc>,
    /// The address the next allocation gets (0: none made yet, a page past [`HEAP_BASE`]).
    next: u64,
    stats: HeapStats,
}

impl Heap {
    /// The allocation whose range (or, for a zero-byte one, whose address) holds `addr`.
    fn containing(&self, addr: u64) -> Option<&HeapAlloc> {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        let a = self.allocs.get(i.checked_sub(1)?)?;
        (addr - a.base < a.len.max(1)).then_some(a)
    }
}

/// All global memory of a launch.
#[derive(Debug, Default)]
pub struct GlobalMem {
    /// Launch buffers and module variables: fixed for the launch, so looked up without a lock.
    bufs: Vec<GlobalBuf>,
    /// The device heap. Only addresses in its window take the lock, so kernels that never
    /// call `malloc` pay nothing for it.
    heap: RwLock<Heap>,
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
        (GlobalMem { bufs, heap: RwLock::default() }, bases)
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

    /// Runs `f` on the buffer holding the `size` bytes at `addr` and the offset there. Launch
    /// buffers are looked up first, without a lock; only a miss in the heap window consults
    /// the heap (under its read lock, held while `f` runs so a concurrent `free` waits).
    #[inline]
    fn with<R>(&self, addr: u64, size: u64, f: impl FnOnce(&GlobalBuf, usize) -> Result<R, Fault>) -> Result<R, Fault> {
        if let Some(hit) = find_in(&self.bufs, addr, size) {
            return f(hit.0, hit.1);
        }
        if in_heap_window(addr) {
            let heap = self.heap.read().unwrap_or_else(|e| e.into_inner());
            if let Some(a) = heap.containing(addr) {
                if let Some(b) = &a.buf {
                    if let Some((b, off)) = find_in(std::slice::from_ref(b), addr, size) {
                        return f(b, off);
                    }
                }
            }
            return Err(Fault(describe_heap_miss(&heap, addr, size)));
        }
        Err(Fault(self.describe_miss(addr, size)))
    }

    fn describe_miss(&self, addr: u64, size: u64) -> String {
        match nearest(addr, size, self.bufs.iter().map(|b| (b.name.as_str(), b.base, b.len as u64))) {
            Some((_, w)) => format!("global access of {size} byte(s) at {addr:#x} is outside every buffer: {w}"),
            None => format!("global access of {size} byte(s) at {addr:#x}: the launch has no buffers"),
        }
    }

    /// Device `malloc(size)`: the address of `size` fresh bytes filled with [`HEAP_FILL`],
    /// page-aligned (CUDA promises 16 bytes), or 0 (NULL) when the live allocations plus
    /// `size` would exceed `capacity` bytes (`cudaLimitMallocHeapSize`). `malloc(0)` returns
    /// a unique non-null address of a zero-byte allocation, which every access faults on and
    /// `free` releases.
    pub fn malloc(&self, size: u64, capacity: u64) -> u64 {
        let mut heap = self.heap.write().unwrap_or_else(|e| e.into_inner());
        // The first allocation starts a page into the window, so an underrun of it is still
        // reported against the heap.
        let base = heap.next.max(HEAP_BASE + HEAP_PAGE);
        // Whole pages plus one unmapped page, so no allocation touches the next one; a zero-byte
        // allocation still takes a page, so its address is unique.
        let next = size.div_ceil(HEAP_PAGE).max(1).checked_mul(HEAP_PAGE).and_then(|n| n.checked_add(HEAP_PAGE + base));
        let fits = heap.stats.live_bytes.checked_add(size).is_some_and(|t| t <= capacity);
        let (Some(next), true, Ok(len)) = (next.filter(|&n| n <= HEAP_BASE + WINDOW_SIZE), fits, usize::try_from(size)) else {
            heap.stats.failed += 1;
            return 0;
        };
        heap.next = next;
        let id = heap.allocs.len() + 1;
        let name = format!("heap allocation #{id} ({size} {} from malloc)", if size == 1 { "byte" } else { "bytes" });
        let fill = u64::from_ne_bytes([HEAP_FILL; 8]);
        let words = (0..len.div_ceil(8)).map(|_| AtomicU64::new(fill)).collect();
        let buf = GlobalBuf { name: name.clone(), base, len, read_only: false, words };
        heap.allocs.push(HeapAlloc { base, len: size, name, buf: Some(buf) });
        let s = &mut heap.stats;
        s.allocations += 1;
        s.live_allocations += 1;
        s.live_bytes += size;
        s.peak_bytes = s.peak_bytes.max(s.live_bytes);
        base
    }

    /// Device `free(addr)`: releases the allocation `malloc` returned at `addr` (0 is a no-op).
    /// Its address stays reserved, so later accesses are faults naming it as freed. An address
    /// that is not the start of a live allocation is an error saying what it is instead.
    pub fn free(&self, addr: u64) -> Result<(), Fault> {
        if addr == 0 {
            return Ok(());
        }
        let mut heap = self.heap.write().unwrap_or_else(|e| e.into_inner());
        let i = heap.allocs.partition_point(|a| a.base <= addr);
        if let Some(a) = i.checked_sub(1).map(|i| &mut heap.allocs[i]) {
            let end = a.base + a.len;
            let freed = if a.buf.is_some() { "" } else { ", which was freed" };
            if addr == a.base {
                if a.buf.is_none() {
                    return Err(Fault(format!("free of {addr:#x}: {} [{:#x}, {end:#x}) was already freed (a double free)", a.name, a.base)));
                }
                a.buf = None;
                let len = a.len;
                let s = &mut heap.stats;
                s.frees += 1;
                s.live_allocations -= 1;
                s.live_bytes -= len;
                return Ok(());
            }
            if addr < end {
                return Err(Fault(format!(
                    "free of {addr:#x}, which is not the start of a live heap allocation: it is {} byte(s) into {} [{:#x}, {end:#x}){freed} (free takes the address malloc returned)",
                    addr - a.base,
                    a.name,
                    a.base
                )));
            }
        }
        let what = if let Some((b, off)) = find_in(&self.bufs, addr, 1) {
            format!("it is {off} byte(s) into launch buffer '{}' [{:#x}, {:#x}), which malloc did not allocate", b.name, b.base, b.base + b.len as u64)
        } else {
            match from_generic(addr).0 {
                Space::Global if in_heap_window(addr) => "no heap allocation starts there".to_string(),
                Space::Global => "malloc never returned it".to_string(),
                s => format!("it is a generic {} address, not heap memory", s.name()),
            }
        };
        Err(Fault(format!("free of {addr:#x}, which is not the start of a live heap allocation: {what}")))
    }

    /// The heap's counters so far.
    pub fn heap_stats(&self) -> HeapStats {
        self.heap.read().unwrap_or_else(|e| e.into_inner()).stats
    }

    /// Loads `size` (1, 2, 4 or 8) bytes at an address aligned to `size`.
    #[inline]
    pub fn load(&self, addr: u64, size: u64) -> Result<u64, Fault> {
        self.with(addr, size, |b, off| Ok(extract(b.words[off / 8].load(Ordering::Relaxed), off, size)))
    }

    /// Stores `size` bytes.
    #[inline]
    pub fn store(&self, addr: u64, size: u64, val: u64) -> Result<(), Fault> {
        self.with(addr, size, |b, off| {
            if b.read_only {
                return Err(Fault(format!("store of {size} byte(s) at {addr:#x} into read-only '{}'", b.name)));
            }
            store_in_word(&b.words[off / 8], off, size, val);
            Ok(())
        })
    }

    /// Loads `out.len()` consecutive elements of `size` bytes from `addr` with one bounds
    /// check (vector loads).
    #[inline]
    pub fn load_n(&self, addr: u64, size: u64, out: &mut [u64]) -> Result<(), Fault> {
        self.with(addr, size * out.len() as u64, |b, off| {
            for (i, o) in out.iter_mut().enumerate() {
                let off = off + i * size as usize;
                *o = extract(b.words[off / 8].load(Ordering::Relaxed), off, size);
            }
            Ok(())
        })
    }

    /// Stores consecutive elements of `size` bytes at `addr` with one bounds check.
    #[inline]
    pub fn store_n(&self, addr: u64, size: u64, vals: &[u64]) -> Result<(), Fault> {
        self.with(addr, size * vals.len() as u64, |b, off| {
            if b.read_only {
                return Err(Fault(format!("store of {} byte(s) at {addr:#x} into read-only '{}'", size * vals.len() as u64, b.name)));
            }
            for (i, &v) in vals.iter().enumerate() {
                let off = off + i * size as usize;
                store_in_word(&b.words[off / 8], off, size, v);
            }
            Ok(())
        })
    }

    /// Atomic read-modify-write of `size` (4 or 8) bytes: `f(old)` is stored; returns old.
    pub fn atomic(&self, addr: u64, size: u64, f: impl Fn(u64) -> u64) -> Result<u64, Fault> {
        self.with(addr, size, |b, off| {
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
        })
    }
}

/// The buffer of `bufs` (sorted by address) holding the `size` bytes at `addr`, and the offset.
#[inline(always)]
fn find_in(bufs: &[GlobalBuf], addr: u64, size: u64) -> Option<(&GlobalBuf, usize)> {
    let i = bufs.partition_point(|b| b.base <= addr);
    let b = bufs.get(i.checked_sub(1)?)?;
    (addr.wrapping_sub(b.base).saturating_add(size) <= b.len as u64).then(|| (b, (addr - b.base) as usize))
}

fn in_heap_window(addr: u64) -> bool {
    (HEAP_BASE..HEAP_BASE + WINDOW_SIZE).contains(&addr)
}

/// Where the `size` bytes at `addr` are relative to the nearest of `bufs` (name, base,
/// length): that buffer's index and the description.
fn nearest<'a>(addr: u64, size: u64, bufs: impl Iterator<Item = (&'a str, u64, u64)>) -> Option<(usize, String)> {
    let mut best: Option<(u64, usize, String)> = None;
    for (i, (name, base, len)) in bufs.enumerate() {
        let end = base + len;
        let (dist, what) = if addr >= end {
            (addr - end, format!("{} byte(s) past the end of '{name}' [{base:#x}, {end:#x})", addr + size - end))
        } else if addr + size <= base {
            (base - addr, format!("{} byte(s) before the start of '{name}' [{base:#x}, {end:#x})", base - addr))
        } else {
            (0, format!("straddles the end of '{name}' [{base:#x}, {end:#x}) by {} byte(s)", addr + size - end))
        };
        if best.as_ref().is_none_or(|(d, _, _)| dist < *d) {
            best = Some((dist, i, what));
        }
    }
    best.map(|(_, i, w)| (i, w))
}

/// A heap-window access that hit no live allocation: a use after free when the address lies
/// in a freed one, else where it is relative to the nearest allocation.
fn describe_heap_miss(heap: &Heap, addr: u64, size: u64) -> String {
    if let Some(a) = heap.containing(addr).filter(|a| a.buf.is_none()) {
        return format!(
            "global access of {size} byte(s) at {addr:#x} is {} byte(s) into {} [{:#x}, {:#x}), which was freed",
            addr - a.base,
            a.name,
            a.base,
            a.base + a.len
        );
    }
    // The nearest allocation is the last one starting at or before `addr`, or the next one.
    let i = heap.allocs.partition_point(|a| a.base <= addr);
    let near = &heap.allocs[i.saturating_sub(1)..(i + 1).min(heap.allocs.len())];
    match nearest(addr, size, near.iter().map(|a| (a.name.as_str(), a.base, a.len))) {
        Some((j, w)) => {
            let freed = if near[j].buf.is_none() { ", which was freed" } else { "" };
            format!("global access of {size} byte(s) at {addr:#x} is outside every heap allocation: {w}{freed}")
        }
        None => format!("global access of {size} byte(s) at {addr:#x} is in the heap window, but nothing was allocated with malloc"),
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

/// Stores the `size` bytes of `val` at byte `off` (of its buffer) into the word holding them.
#[inline(always)]
fn store_in_word(word: &AtomicU64, off: usize, size: u64, val: u64) {
    if size == 8 {
        word.store(val, Ordering::Relaxed);
    } else {
        let (m, v) = insert_mask(off, size, val);
        // Only this access's bytes change, so CTAs writing neighbouring bytes of one word
        // concurrently do not lose each other's stores.
        let _ = word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| Some((w & !m) | v));
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

    #[test]
    fn heap_accesses_stats_and_faults() {
        let (g, bases) = GlobalMem::new(vec![("a".into(), vec![0u8; 16], false)], &[]);
        let p = g.malloc(40, 100);
        assert!(in_heap_window(p) && p % 16 == 0, "{p:#x}");
        assert_eq!(g.load(p + 36, 4).unwrap(), 0xCDCD_CDCD);
        g.store(p + 1, 1, 0x42).unwrap();
        assert_eq!(g.load(p, 2).unwrap(), 0x42CD);
        g.store_n(p + 8, 4, &[1, 2, 3]).unwrap();
        let mut v = [0; 3];
        g.load_n(p + 8, 4, &mut v).unwrap();
        assert_eq!(v, [1, 2, 3]);
        assert_eq!(g.atomic(p + 8, 8, |x| x + 5).unwrap(), 0x2_0000_0001);
        assert_eq!(g.load(p + 8, 8).unwrap(), 0x2_0000_0006);
        // The launch buffers are untouched by the heap and still found first.
        assert_eq!(g.load(bases[0], 8).unwrap(), 0);
        assert_eq!(g.malloc(61, 100), 0, "40 + 61 bytes exceed the 100-byte heap");
        let e = g.load(p + 40, 1).unwrap_err();
        assert!(e.0.contains("1 byte(s) past the end of 'heap allocation #1 (40 bytes from malloc)'"), "{}", e.0);
        assert!(g.store_n(p + 32, 4, &[0; 3]).unwrap_err().0.contains("straddles the end of 'heap allocation #1"));
        g.free(p).unwrap();
        let e = g.atomic(p + 8, 4, |x| x).unwrap_err();
        assert!(e.0.contains("8 byte(s) into heap allocation #1 (40 bytes from malloc)") && e.0.contains("which was freed"), "{}", e.0);
        assert!(g.free(p).unwrap_err().0.contains("already freed"));
        let q = g.malloc(60, 100);
        assert!(q > p + 40, "addresses are never reused");
        assert_eq!(g.heap_stats(), HeapStats { allocations: 2, frees: 1, failed: 1, peak_bytes: 60, live_allocations: 1, live_bytes: 60 });
    }

    #[test]
    fn heap_is_shared_by_threads() {
        let (g, _) = GlobalMem::new(vec![], &[]);
        std::thread::scope(|s| {
            for t in 0..8u64 {
                let g = &g;
                s.spawn(move || {
                    for i in 0..200u64 {
                        let p = g.malloc(24, 1 << 20);
                        g.store(p + 8, 8, t * 1000 + i).unwrap();
                        assert_eq!(g.atomic(p + 8, 8, |x| x + 1).unwrap(), t * 1000 + i);
                        assert_eq!(g.load(p + 8, 8).unwrap(), t * 1000 + i + 1);
                        g.free(p).unwrap();
                    }
                });
            }
        });
        let s = g.heap_stats();
        assert_eq!((s.allocations, s.frees, s.live_allocations, s.live_bytes), (1600, 1600, 0, 0));
        assert!((24..=8 * 24).contains(&s.peak_bytes));
    }
}
