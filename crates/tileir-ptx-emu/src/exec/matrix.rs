//! Warp-wide matrix instructions: ldmatrix / stmatrix (8x8 b16 tiles between shared memory
//! and the per-lane fragments) and mma.sync (m16n8k16 / m16n8k8 f16/bf16, m16n8k8 tf32,
//! m16n8k32 s8/u8 and e4m3/e5m2).
//!
//! Fragment layouts follow the PTX ISA: with `g = lane / 4` and `t = lane % 4`, an 8x8 b16
//! tile gives lane `lane` the pair (row g, columns 2t and 2t+1) packed in one register,
//! element 0 in the low half.

use tileir_numeric::{FloatFormat, Rounding, Saturation};

use super::cta::Env;
use super::fp::to_f64;
use super::warp::Warp;
use crate::error::{EmuError, ErrorKind, Result};
use crate::program::{Addr, Inst, MmaIn, Reg, Space, Src, WgmmaA, WgmmaD};

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

/// (row, col) of element `e` of an A fragment whose registers pack `p` elements each: register
/// `r` holds row g + 8·(r % 2), columns p·t + 4p·(r / 2) + j (j < p). This is the PTX ISA's
/// layout for m16n8k8/k16 f16/bf16 (p = 2), m16n8k8 tf32 (p = 1) and m16n8k32 8-bit (p = 4).
fn a_pos(p: usize, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let (reg, j) = (e / p, e % p);
    (g + 8 * (reg % 2), p * t + j + 4 * p * (reg / 2))
}

/// (row k, col n) of element `e` of a B fragment: register `r` holds rows p·t + 4p·r + j.
fn b_pos(p: usize, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let (reg, j) = (e / p, e % p);
    (p * t + j + 4 * p * reg, g)
}

/// (row, col) of accumulator element `e` (0..4).
fn c_pos(lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (e / 2), 2 * t + e % 2)
}

/// Elements per 32-bit register of an mma input type.
fn per_reg(t: MmaIn) -> usize {
    match t {
        MmaIn::F(FloatFormat::F16 | FloatFormat::BF16) => 2,
        MmaIn::F(FloatFormat::TF32) => 1,
        _ => 4,
    }
}

/// Element `j` of a register packing elements of type `t`, as f64 (exact).
fn mma_elem(t: MmaIn, v: u64, j: usize) -> f64 {
    let bits = 32 / per_reg(t);
    let x = (v >> (bits * j)) & ((1u64 << bits) - 1);
    match t {
        // tf32 reads the top 19 bits of its register.
        MmaIn::F(FloatFormat::TF32) => f32::from_bits(x as u32 & 0xffff_e000) as f64,
        MmaIn::F(f) => to_f64(f, x),
        MmaIn::S8 => x as u8 as i8 as f64,
        MmaIn::U8 => x as f64,
    }
}

/// `mma.sync`: D = A·B + C over the whole warp. Float products (f16, bf16, tf32, fp8) are
/// exact in f64 and the K+1 terms are summed in f64, then rounded once to the accumulator
/// type (the hardware's internal order and truncation may differ in the last bit). Integer
/// (s8/u8) products are summed exactly and wrap to s32 (no .satfinite).
#[allow(clippy::too_many_arguments)]
pub(crate) fn mma(w: &mut Warp, k: u8, (at, bt): (MmaIn, MmaIn), d_f16: bool, c_f16: bool, ds: &[Reg], a: &[Src], b: &[Src], c: &[Src]) {
    let (m, n, kk) = (16usize, 8usize, k as usize);
    let int = matches!(at, MmaIn::S8 | MmaIn::U8);
    let (pa, pb) = (per_reg(at), per_reg(bt));
    let mut am = vec![vec![0f64; kk]; m];
    let mut bm = vec![vec![0f64; n]; kk];
    let mut cm = vec![vec![0f64; n]; m];
    for lane in 0..32 {
        for e in 0..pa * a.len() {
            let (r, col) = a_pos(pa, lane, e);
            am[r][col] = mma_elem(at, val(&w.regs, a[e / pa], lane), e % pa);
        }
        for e in 0..pb * b.len() {
            let (r, col) = b_pos(pb, lane, e);
            bm[r][col] = mma_elem(bt, val(&w.regs, b[e / pb], lane), e % pb);
        }
        for e in 0..4 {
            let (r, col) = c_pos(lane, e);
            cm[r][col] = if c_f16 {
                to_f64(FloatFormat::F16, (val(&w.regs, c[e / 2], lane) >> (16 * (e % 2))) & 0xffff)
            } else if int {
                val(&w.regs, c[e], lane) as u32 as i32 as f64
            } else {
                to_f64(FloatFormat::F32, val(&w.regs, c[e], lane) & 0xffff_ffff)
            };
        }
    }
    for lane in 0..32 {
        let mut outs = [0u64; 4];
        for (e, out) in outs.iter_mut().enumerate() {
            let (r, col) = c_pos(lane, e);
            if int {
                // |products| < 2^16 and K <= 32: the i64 sum is exact; D wraps to 32 bits.
                let mut s = cm[r][col] as i64;
                for (x, brow) in am[r].iter().zip(&bm) {
                    s += (*x as i64) * (brow[col] as i64);
                }
                *out = s as u32 as u64;
                continue;
            }
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

/// The shared-memory address of element (`row`, `kk`) of a K-major operand described by
/// matrix descriptor `desc` (elements of `es` bytes). Without swizzling, 8x16-byte core
/// matrices sit `sbo` bytes apart along rows and `lbo` bytes apart along K; with a 32/64/128
/// byte swizzle, rows of that width repeat every 8 rows at `sbo`, and address bits [4, 4+B)
/// are XORed with bits [7, 7+B) (B = 1, 2, 3), on the absolute address.
pub(crate) fn desc_address(desc: u64, row: usize, kk: usize, es: usize) -> u64 {
    let start = (desc & 0x3fff) << 4;
    let lbo = ((desc >> 16) & 0x3fff) << 4;
    let sbo = ((desc >> 32) & 0x3fff) << 4;
    let kb = (kk * es) as u64;
    let (r8, r) = ((row / 8) as u64, (row % 8) as u64);
    let (width, bits) = match desc >> 62 {
        1 => (128u64, 3u32),
        2 => (64, 2),
        3 => (32, 1),
        _ => return start + r8 * sbo + (kb / 16) * lbo + r * 16 + kb % 16,
    };
    let a = start + r8 * sbo + (kb / width) * lbo + r * width + kb % width;
    a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)
}

/// The shared-memory address of element (`mn`, `kk`) of an MN-major (transposed) operand
/// described by matrix descriptor `desc` (elements of `es` bytes; `mn` is the row of A or
/// the column of B). Each K index is a row of MN-contiguous elements. Without swizzling,
/// core matrices are 8 K-rows of 16 bytes (8 MN elements): they sit `lbo` bytes apart along
/// K (groups of 8) and `sbo` bytes apart along MN. With a 32/64/128-byte swizzle, an atom is
/// 8 K-rows of that width; atoms sit `lbo` bytes apart along MN and `sbo` bytes apart along
/// K, and the 16-byte chunks are XOR-swizzled on the absolute address as for K-major.
pub(crate) fn desc_address_mn(desc: u64, mn: usize, kk: usize, es: usize) -> u64 {
    let start = (desc & 0x3fff) << 4;
    let lbo = ((desc >> 16) & 0x3fff) << 4;
    let sbo = ((desc >> 32) & 0x3fff) << 4;
    let mb = (mn * es) as u64;
    let (k8, kr) = ((kk / 8) as u64, (kk % 8) as u64);
    let (width, bits) = match desc >> 62 {
        1 => (128u64, 3u32),
        2 => (64, 2),
        3 => (32, 1),
        _ => return start + (mb / 16) * sbo + k8 * lbo + kr * 16 + mb % 16,
    };
    let a = start + (mb / width) * lbo + k8 * sbo + kr * width + mb % width;
    a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)
}

/// `wgmma.mma_async` for this warp's 16 rows of the warpgroup's tile (rows depend only on
/// their own A rows, so each warp computes its slice alone). Float sums are exact products
/// summed in f64, rounded once; tf32 elements are 4-byte words whose low 13 bits are
/// ignored, as in mma.sync. Integer (s8/u8) sums are exact and wrap to s32, or clamp to it
/// with `.satfinite`.
pub(crate) fn wgmma(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, op: &crate::program::Op) -> Result<()> {
    let crate::program::Op::Wgmma { n, k, at, bt, d, ds, a, b, scale_d, neg_a, neg_b, tnsp_a, tnsp_b } = op else { return Ok(()) };
    let (n, kk) = (*n as usize, *k as usize);
    let (pa, pb) = (per_reg(*at), per_reg(*bt));
    let row0 = 16 * (w.id as usize % 4);
    // Elements are 32 / per_reg bits: 2 bytes (f16/bf16), 4 (tf32) or 1 (fp8, s8/u8).
    // Race check: the bytes read stay in flight until a wgmma.wait_group retires them.
    let mut read_bytes: Vec<u32> = Vec::new();
    let racing = env.race.is_some();
    let mut load = |w: &mut Warp, env: &mut Env<'_>, t: MmaIn, es: usize, addr: u64| -> Result<f64> {
        let v = w.load_pub(env, Space::Shared, 0, addr, es as u64).map_err(|m| EmuError::new(ErrorKind::Memory, inst.line, format!("wgmma operand in warp {}: {m}", w.id)))?;
        if racing {
            read_bytes.extend((addr..addr + es as u64).map(|b| b as u32));
        }
        Ok(mma_elem(t, v, 0))
    };
    let mut am = vec![vec![0f64; kk]; 16];
    match a {
        WgmmaA::Desc(dsc) => {
            let desc = val(&w.regs, *dsc, 0);
            let es = 4 / pa;
            for (r, row) in am.iter_mut().enumerate() {
                for (c, x) in row.iter_mut().enumerate() {
                    let addr = if *tnsp_a { desc_address_mn(desc, row0 + r, c, es) } else { desc_address(desc, row0 + r, c, es) };
                    *x = load(w, env, *at, es, addr)?;
                }
            }
        }
        WgmmaA::Regs(regs) => {
            // The warp's 16xK slice of A is laid out as mma.sync's A fragment of the same
            // element width (PTX ISA wgmma register fragments for k16 / k8 / k32).
            for lane in 0..32 {
                for e in 0..4 * pa {
                    let (r, c) = a_pos(pa, lane, e);
                    am[r][c] = mma_elem(*at, val(&w.regs, regs[e / pa], lane), e % pa);
                }
            }
        }
    }
    let bdesc = val(&w.regs, *b, 0);
    let es = 4 / pb;
    let mut bm = vec![vec![0f64; kk]; n];
    for (r, row) in bm.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            let addr = if *tnsp_b { desc_address_mn(bdesc, r, c, es) } else { desc_address(bdesc, r, c, es) };
            *x = load(w, env, *bt, es, addr)?;
        }
    }
    if let Some(r) = env.race.as_mut() {
        read_bytes.sort_unstable();
        read_bytes.dedup();
        // Part of the warpgroup's next group (closed by this warp's next commit_group).
        let seq = env.wg.commits[w.id as usize] + 1;
        r.wgmma_issue(w.id as usize, w.live(), seq, read_bytes, inst.line);
    }
    let sign = if neg_a != neg_b { -1.0 } else { 1.0 };
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let accumulate = val(&w.regs, *scale_d, lane) != 0;
        for j in 0..n / 8 {
            for e in 0..4 {
                let (r, c) = (g + 8 * (e / 2), 8 * j + 2 * t + e % 2);
                let mut s = 0f64;
                for (x, y) in am[r].iter().zip(&bm[c]) {
                    s += x * y;
                }
                let idx = 4 * j + e;
                match *d {
                    WgmmaD::F16 => {
                        s *= sign;
                        let reg = ds[idx / 2] as usize * 32 + lane;
                        let shift = 16 * (idx % 2);
                        if accumulate {
                            s += to_f64(FloatFormat::F16, (w.regs[reg] >> shift) & 0xffff);
                        }
                        let h = tileir_numeric::encode(FloatFormat::F16, s, Rounding::NearestEven, Saturation::None);
                        w.regs[reg] = (w.regs[reg] & !(0xffff << shift)) | (h << shift);
                    }
                    WgmmaD::F32 => {
                        s *= sign;
                        let reg = ds[idx] as usize * 32 + lane;
                        if accumulate {
                            s += f32::from_bits(w.regs[reg] as u32) as f64;
                        }
                        w.regs[reg] = (s as f32).to_bits() as u64;
                    }
                    WgmmaD::S32 { satfinite } => {
                        // |products| <= 255² and K = 32: s is an exact integer, and so is
                        // its i64 sum with the accumulator.
                        let reg = ds[idx] as usize * 32 + lane;
                        let mut v = s as i64;
                        if accumulate {
                            v += w.regs[reg] as u32 as i32 as i64;
                        }
                        let v = if satfinite { v.clamp(i32::MIN as i64, i32::MAX as i64) } else { v };
                        w.regs[reg] = v as u32 as u64;
                    }
                }
            }
        }
    }
    Ok(())
}
