//! Global memory: byte buffers identified by their base address.
//!
//! Addresses are plain `u64`s. Allocations start at [`Memory::FIRST_BASE`], are aligned to at
//! least 256 bytes and separated by an unmapped gap, so a pointer that runs off the end of one
//! allocation does not silently land in the next: every access is checked and an access that
//! is not entirely inside one allocation is an error.

use std::collections::BTreeMap;

/// A failed memory access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemError {
    /// First byte address of the access.
    pub addr: u64,
    /// Its length in bytes.
    pub len: u64,
    /// What was attempted (`read`, `write`).
    pub what: &'static str,
}

impl std::fmt::Display for MemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "out-of-bounds {} of {} byte(s) at address {:#x} (not inside any allocation)",
            self.what, self.len, self.addr
        )
    }
}

/// One allocation: its bytes and whether anything wrote to it since it was made.
#[derive(Clone, Debug, Default)]
struct Alloc {
    bytes: Vec<u8>,
    written: bool,
}

/// Global memory of one device: allocations keyed by base address.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    allocs: BTreeMap<u64, Alloc>,
    next: u64,
}

impl Memory {
    /// The address of the first allocation (address 0 and its neighbourhood stay unmapped, so
    /// null pointers fault).
    pub const FIRST_BASE: u64 = 0x1_0000_0000;
    /// Unmapped bytes left after every allocation.
    pub const GUARD: u64 = 4096;

    /// Empty memory.
    pub fn new() -> Memory {
        Memory {
            allocs: BTreeMap::new(),
            next: Memory::FIRST_BASE,
        }
    }

    /// Allocates `len` zeroed bytes aligned to `align` (a power of two; at least 256 is
    /// used). Returns the base address.
    pub fn alloc(&mut self, len: usize, align: u64) -> u64 {
        self.alloc_vec(vec![0; len], align)
    }

    /// Makes `bytes` an allocation aligned to `align` (as [`Memory::alloc`]); returns the
    /// base address.
    pub fn alloc_vec(&mut self, bytes: Vec<u8>, align: u64) -> u64 {
        if self.next == 0 {
            self.next = Memory::FIRST_BASE;
        }
        let align = align.max(256).next_power_of_two();
        let base = self.next.div_ceil(align) * align;
        self.next = base + (bytes.len() as u64).max(1) + Memory::GUARD;
        self.allocs.insert(
            base,
            Alloc {
                bytes,
                written: false,
            },
        );
        base
    }

    /// Allocates a copy of `bytes`; returns the base address.
    pub fn alloc_bytes(&mut self, bytes: &[u8]) -> u64 {
        self.alloc_vec(bytes.to_vec(), 256)
    }

    /// Frees the allocation at `base`; returns its bytes, or None if there is none.
    pub fn free(&mut self, base: u64) -> Option<Vec<u8>> {
        self.allocs.remove(&base).map(|a| a.bytes)
    }

    /// The bytes of the allocation that starts at `base`.
    pub fn bytes(&self, base: u64) -> Option<&[u8]> {
        self.allocs.get(&base).map(|a| a.bytes.as_slice())
    }

    /// The bytes of the allocation that starts at `base`, mutable (this counts as a write for
    /// [`Memory::written`]).
    pub fn bytes_mut(&mut self, base: u64) -> Option<&mut [u8]> {
        self.allocs.get_mut(&base).map(|a| {
            a.written = true;
            a.bytes.as_mut_slice()
        })
    }

    /// Whether the allocation at `base` was written (by any write, atomic or not, or through
    /// [`Memory::bytes_mut`]) since it was made; lets callers skip copying back buffers a
    /// kernel only read.
    pub fn written(&self, base: u64) -> bool {
        self.allocs.get(&base).is_some_and(|a| a.written)
    }

    /// Number of live allocations.
    pub fn num_allocations(&self) -> usize {
        self.allocs.len()
    }

    /// The allocation holding byte `addr`: its base and length.
    pub fn allocation_of(&self, addr: u64) -> Option<(u64, usize)> {
        let (&base, a) = self.allocs.range(..=addr).next_back()?;
        (addr - base < a.bytes.len() as u64).then_some((base, a.bytes.len()))
    }

    /// Locates `[addr, addr+len)`: the allocation base and the offset inside it.
    fn locate(&self, addr: u64, len: u64, what: &'static str) -> Result<(u64, usize), MemError> {
        let err = MemError { addr, len, what };
        let (&base, a) = self.allocs.range(..=addr).next_back().ok_or(err.clone())?;
        let off = addr - base;
        let end = off.checked_add(len).ok_or(err.clone())?;
        if end > a.bytes.len() as u64 {
            return Err(err);
        }
        Ok((base, off as usize))
    }

    /// Reads `out.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemError> {
        let (base, off) = self.locate(addr, out.len() as u64, "read")?;
        out.copy_from_slice(&self.allocs[&base].bytes[off..off + out.len()]);
        Ok(())
    }

    /// A borrowed slice of `len` bytes at `addr`.
    pub fn slice(&self, addr: u64, len: usize) -> Result<&[u8], MemError> {
        let (base, off) = self.locate(addr, len as u64, "read")?;
        Ok(&self.allocs[&base].bytes[off..off + len])
    }

    /// A mutable borrowed slice of `len` bytes at `addr` (counts as a write for
    /// [`Memory::written`]).
    pub fn slice_mut(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemError> {
        let (base, off) = self.locate(addr, len as u64, "write")?;
        let a = self.allocs.get_mut(&base).expect("located");
        a.written = true;
        Ok(&mut a.bytes[off..off + len])
    }

    /// Checks that `[addr, addr+len)` is writable.
    pub fn check_write(&self, addr: u64, len: usize) -> Result<(), MemError> {
        self.locate(addr, len as u64, "write").map(|_| ())
    }

    /// Writes `bytes` at `addr`.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemError> {
        let (base, off) = self.locate(addr, bytes.len() as u64, "write")?;
        let a = self.allocs.get_mut(&base).expect("located");
        a.written = true;
        a.bytes[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Copies `values` (little-endian) into a fresh allocation; returns its base address.
    pub fn alloc_f32(&mut self, values: &[f32]) -> u64 {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.alloc_bytes(&bytes)
    }

    /// Reads `n` little-endian f32 values at `addr`.
    pub fn read_f32(&self, addr: u64, n: usize) -> Result<Vec<f32>, MemError> {
        let s = self.slice(addr, n * 4)?;
        Ok(s.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Copies `values` (little-endian) into a fresh allocation; returns its base address.
    pub fn alloc_i32(&mut self, values: &[i32]) -> u64 {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.alloc_bytes(&bytes)
    }

    /// Reads `n` little-endian i32 values at `addr`.
    pub fn read_i32(&self, addr: u64, n: usize) -> Result<Vec<i32>, MemError> {
        let s = self.slice(addr, n * 4)?;
        Ok(s.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_are_bounds_checked() {
        let mut m = Memory::new();
        let a = m.alloc(16, 64);
        let b = m.alloc(16, 64);
        assert!(b >= a + 16 + Memory::GUARD);
        m.write(a + 12, &[1, 2, 3, 4]).unwrap();
        assert!(m.write(a + 13, &[1, 2, 3, 4]).is_err());
        assert!(m.read(0, &mut [0u8; 1]).is_err());
        assert!(m.read(a + 16, &mut [0u8; 1]).is_err());
        let mut out = [0u8; 4];
        m.read(a + 12, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4]);
        assert!(m.written(a) && !m.written(b));
        assert_eq!(m.free(a).map(|v| v.len()), Some(16));
        assert!(m.read(a, &mut out).is_err());
    }
}
