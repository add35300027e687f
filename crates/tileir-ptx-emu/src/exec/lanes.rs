//! Lane loops for the hottest instruction shapes: one operation applied to all 32 lanes with
//! the operation chosen once per instruction (not per lane), operands read as whole register
//! rows so the loop has no bounds checks and vectorizes.

use crate::program::{Reg, Src};

/// The 32 lane values of `s` (a register row, or an immediate broadcast).
#[inline(always)]
fn row(regs: &[u64], s: Src) -> [u64; 32] {
    match s {
        Src::R(r) => {
            let mut out = [0u64; 32];
            out.copy_from_slice(&regs[r as usize * 32..r as usize * 32 + 32]);
            out
        }
        Src::I(v) => [v; 32],
    }
}

#[inline(always)]
fn one(regs: &[u64], s: Src, l: usize) -> u64 {
    match s {
        Src::R(r) => regs[r as usize * 32 + l],
        Src::I(v) => v,
    }
}

/// d = f(a, b) on the lanes of `exec`.
#[inline(always)]
pub(crate) fn map2(regs: &mut [u64], exec: u32, d: Reg, a: Src, b: Src, f: impl Fn(u64, u64) -> u64) {
    let d0 = d as usize * 32;
    if exec == u32::MAX {
        let (x, y) = (row(regs, a), row(regs, b));
        let out = &mut regs[d0..d0 + 32];
        for l in 0..32 {
            out[l] = f(x[l], y[l]);
        }
    } else {
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            regs[d0 + l] = f(one(regs, a, l), one(regs, b, l));
        }
    }
}

/// d = f(a, b, c) on the lanes of `exec`.
#[inline(always)]
pub(crate) fn map3(regs: &mut [u64], exec: u32, d: Reg, a: Src, b: Src, c: Src, f: impl Fn(u64, u64, u64) -> u64) {
    let d0 = d as usize * 32;
    if exec == u32::MAX {
        let (x, y, z) = (row(regs, a), row(regs, b), row(regs, c));
        let out = &mut regs[d0..d0 + 32];
        for l in 0..32 {
            out[l] = f(x[l], y[l], z[l]);
        }
    } else {
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            regs[d0 + l] = f(one(regs, a, l), one(regs, b, l), one(regs, c, l));
        }
    }
}

/// d = f(a) on the lanes of `exec`.
#[inline(always)]
pub(crate) fn map1(regs: &mut [u64], exec: u32, d: Reg, a: Src, f: impl Fn(u64) -> u64) {
    let d0 = d as usize * 32;
    if exec == u32::MAX {
        let x = row(regs, a);
        let out = &mut regs[d0..d0 + 32];
        for l in 0..32 {
            out[l] = f(x[l]);
        }
    } else {
        let mut m = exec;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            regs[d0 + l] = f(one(regs, a, l));
        }
    }
}
