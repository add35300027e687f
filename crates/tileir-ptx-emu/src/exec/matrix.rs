//! Warp-wide matrix instructions: ldmatrix / stmatrix (8x8 b16 tiles between shared memory
//! and the per-lane fragments) and mma.sync (m16n8k16 / m16n8k8 with f16 or bf16 inputs).
//!
//! Fragment layouts follow the PTX ISA: with `g = lane / 4` and `t = lane % 4`, an 8x8 b16
//! tile gives lane `lane` the pair (row g, columns 2t and 2t+1) packed in one register,
//! element 0 in the low half.

use tileir_numeric::{FloatFormat, Rounding, Saturation};

use super::cta::Env;
use super::fp::to_f64;
use super::warp::Warp;
use crate::error::{EmuError, ErrorKind, Result};
use crate::program::{Addr, Inst, Reg, Space, Src};

fn val(regs: &[u64], s: Src, l: usize) -> u64 {
    match s {
        Src::R(r) => regs[r as usize * 32 + l],
        Src::I(v) => v,
    }
}

/// The address each row-providing lane gives (lanes 0..8*num).
fn row_addresses(w: &Warp, env: &Env<'_>, inst: &Inst, addr: Addr, num: usize) -> Result<Vec<u64>> {
    let mut out = Vec::with_capacity(8 * num);
    for l in 0..8 * num {
        let a = val(&w.regs, addr.base, l).wrapping_add(addr.off as u64);
        if a % 16 != 0 {
            return Err(EmuError::new(ErrorKind::Memory, inst.line, format!("{}: matrix row address {a:#x} is not 16-byte aligned", env.who(w.id, l))));
        }
        out.push(a);
    }
    Ok(out)
}

/// `ldmatrix`: `ds.len()` 8x8 b16 tiles.
pub(crate) fn ldmatrix(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, space: Space, trans: bool, ds: &[Reg], addr: Addr) -> Result<()> {
    let num = ds.len();
    let rows = row_addresses(w, env, inst, addr, num)?;
    // tiles[i][r][c]
    let mut tiles = vec![[[0u16; 8]; 8]; num];
    for (j, &a) in rows.iter().enumerate() {
        #[allow(clippy::needless_range_loop)] // c is both the column and the byte offset
        for c in 0..8 {
            let v = w.load_pub(env, space, j, a + 2 * c as u64, 2).map_err(|m| EmuError::new(ErrorKind::Memory, inst.line, format!("{}: {m}", env.who(w.id, j))))?;
            tiles[j / 8][j % 8][c] = v as u16;
        }
    }
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for (i, &d) in ds.iter().enumerate() {
            let (e0, e1) = if trans { (tiles[i][2 * t][g], tiles[i][2 * t + 1][g]) } else { (tiles[i][g][2 * t], tiles[i][g][2 * t + 1]) };
            w.regs[d as usize * 32 + lane] = e0 as u64 | ((e1 as u64) << 16);
        }
    }
    Ok(())
}

/// `stmatrix`: the inverse of [`ldmatrix`].
pub(crate) fn stmatrix(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, space: Space, trans: bool, vals: &[Src], addr: Addr) -> Result<()> {
    let num = vals.len();
    let rows = row_addresses(w, env, inst, addr, num)?;
    let mut tiles = vec![[[0u16; 8]; 8]; num];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for (i, &s) in vals.iter().enumerate() {
            let v = val(&w.regs, s, lane);
            let (e0, e1) = (v as u16, (v >> 16) as u16);
            if trans {
                tiles[i][2 * t][g] = e0;
                tiles[i][2 * t + 1][g] = e1;
            } else {
                tiles[i][g][2 * t] = e0;
                tiles[i][g][2 * t + 1] = e1;
            }
        }
    }
    for (j, &a) in rows.iter().enumerate() {
        #[allow(clippy::needless_range_loop)] // c is both the column and the byte offset
        for c in 0..8 {
            let v = tiles[j / 8][j % 8][c] as u64;
            w.store_pub(env, space, j, a + 2 * c as u64, 2, v).map_err(|m| EmuError::new(ErrorKind::Memory, inst.line, format!("{}: {m}", env.who(w.id, j))))?;
        }
    }
    Ok(())
}

/// (row, col) of element `e` (0-based, two per register) of an A fragment.
fn a_pos(k: u8, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let (reg, half) = (e / 2, e % 2);
    if k == 16 {
        (g + 8 * (reg % 2), 2 * t + half + 8 * (reg / 2))
    } else {
        (g + 8 * reg, 2 * t + half)
    }
}

/// (row k, col n) of element `e` of a B fragment.
fn b_pos(lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let (reg, half) = (e / 2, e % 2);
    (2 * t + half + 8 * reg, g)
}

/// (row, col) of accumulator element `e` (0..4).
fn c_pos(lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (e / 2), 2 * t + e % 2)
}

/// `mma.sync`: D = A·B + C over the whole warp. Products of f16/bf16 values are exact in
/// f64 and the K+1 terms are summed in f64, then rounded once to the accumulator type (the
/// hardware's internal order and truncation may differ in the last bit).
#[allow(clippy::too_many_arguments)]
pub(crate) fn mma(w: &mut Warp, k: u8, ab: FloatFormat, d_f16: bool, c_f16: bool, ds: &[Reg], a: &[Src], b: &[Src], c: &[Src]) {
    let (m, n, kk) = (16usize, 8usize, k as usize);
    let mut am = vec![vec![0f64; kk]; m];
    let mut bm = vec![vec![0f64; n]; kk];
    let mut cm = vec![vec![0f64; n]; m];
    let half = |v: u64, i: usize| to_f64(ab, (v >> (16 * i)) & 0xffff);
    for lane in 0..32 {
        for e in 0..2 * a.len() {
            let (r, col) = a_pos(k, lane, e);
            am[r][col] = half(val(&w.regs, a[e / 2], lane), e % 2);
        }
        for e in 0..2 * b.len() {
            let (r, col) = b_pos(lane, e);
            bm[r][col] = half(val(&w.regs, b[e / 2], lane), e % 2);
        }
        for e in 0..4 {
            let (r, col) = c_pos(lane, e);
            cm[r][col] = if c_f16 {
                to_f64(FloatFormat::F16, (val(&w.regs, c[e / 2], lane) >> (16 * (e % 2))) & 0xffff)
            } else {
                to_f64(FloatFormat::F32, val(&w.regs, c[e], lane) & 0xffff_ffff)
            };
        }
    }
    for lane in 0..32 {
        let mut outs = [0u64; 4];
        for (e, out) in outs.iter_mut().enumerate() {
            let (r, col) = c_pos(lane, e);
            let mut s = cm[r][col];
            for (x, brow) in am[r].iter().zip(&bm) {
                s += x * brow[col];
            }
            *out = if d_f16 {
                tileir_numeric::encode(FloatFormat::F16, s, Rounding::NearestEven, Saturation::None)
            } else {
                (s as f32).to_bits() as u64
            };
        }
        if d_f16 {
            w.regs[ds[0] as usize * 32 + lane] = outs[0] | (outs[1] << 16);
            w.regs[ds[1] as usize * 32 + lane] = outs[2] | (outs[3] << 16);
        } else {
            for e in 0..4 {
                w.regs[ds[e] as usize * 32 + lane] = outs[e];
            }
        }
    }
}
