//! Warp collectives, executed once every lane of the member mask has arrived: shfl.sync,
//! vote(.sync), match.sync, redux.sync, elect.sync, activemask, bar.warp.sync.

use super::alu;
use super::cta::Env;
use super::warp::{for_lanes, lanes_text, Warp};
use crate::error::{EmuError, ErrorKind, Result};
use crate::program::*;

fn val(regs: &[u64], s: Src, l: usize) -> u64 {
    match s {
        Src::R(r) => regs[r as usize * 32 + l],
        Src::I(v) => v,
    }
}

/// Executes collective `inst` for the lanes `here` (all at this instruction) with member
/// mask `m` (every member is in `here`).
pub(crate) fn execute(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, here: u32, m: u32) -> Result<()> {
    let regs = &mut w.regs;
    match &inst.op {
        Op::Shfl { mode, d, pd, a, b, c, .. } => {
            let mut out = [(0u64, false); 32];
            let mut bad = None;
            for_lanes(here, |l| {
                let lane = l as i64;
                let bval = (val(regs, *b, l) & 31) as i64;
                let cv = val(regs, *c, l);
                let cval = (cv & 31) as i64;
                let seg = ((cv >> 8) & 31) as i64;
                let max_lane = (lane & seg) | (cval & !seg);
                let min_lane = lane & seg;
                let (mut j, pval) = match mode {
                    ShflMode::Up => (lane - bval, lane - bval >= max_lane),
                    ShflMode::Down => (lane + bval, lane + bval <= max_lane),
                    ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
                    ShflMode::Idx => {
                        let j = min_lane | (bval & !seg);
                        (j, j <= max_lane)
                    }
                };
                if !pval {
                    j = lane;
                }
                let j = j as usize;
                if j >= 32 || here >> j & 1 == 0 {
                    if bad.is_none() {
                        bad = Some((l, j));
                    }
                    return;
                }
                out[l] = (val(regs, *a, j), pval);
            });
            if let Some((l, j)) = bad {
                return Err(EmuError::new(
                    ErrorKind::Undefined,
                    inst.line,
                    format!("{}: shfl.sync reads lane {j}, which does not execute this shfl (executing: {})", env.who(w.id, l), lanes_text(here)),
                ));
            }
            for_lanes(here, |l| {
                regs[*d as usize * 32 + l] = out[l].0 & 0xffff_ffff;
                if let Some(p) = pd {
                    regs[*p as usize * 32 + l] = out[l].1 as u64;
                }
            });
        }
        Op::Vote { mode, d, a, neg, .. } => {
            let mut ballot = 0u32;
            for_lanes(m & here, |l| ballot |= (((val(regs, *a, l) != 0) != *neg) as u32) << l);
            let members = m & here;
            let r = match mode {
                VoteMode::All => (ballot == members) as u64,
                VoteMode::Any => (ballot != 0) as u64,
                VoteMode::Uni => (ballot == 0 || ballot == members) as u64,
                VoteMode::Ballot => ballot as u64,
            };
            for_lanes(here, |l| regs[*d as usize * 32 + l] = r);
        }
        Op::Match { all, bits, d, pd, a, .. } => {
            let mk = alu::mask(*bits);
            let mut vals = [0u64; 32];
            for_lanes(m, |l| vals[l] = val(regs, *a, l) & mk);
            for_lanes(here, |l| {
                let mut same = 0u32;
                for_lanes(m, |k| same |= ((vals[k] == vals[l]) as u32) << k);
                let (r, p) = if *all { if same == m { (m, true) } else { (0, false) } } else { (same, true) };
                regs[*d as usize * 32 + l] = r as u64;
                if let Some(pd) = pd {
                    regs[*pd as usize * 32 + l] = p as u64;
                }
            });
        }
        Op::Redux { op, t, d, a, .. } => {
            let mut acc: Option<u64> = None;
            for_lanes(m, |l| {
                let v = val(regs, *a, l) & 0xffff_ffff;
                acc = Some(match acc {
                    None => v,
                    Some(x) => match op {
                        AtomOp::Add => x.wrapping_add(v) & 0xffff_ffff,
                        AtomOp::Min => alu::ibin(IntBin::Min, *t, x, v).unwrap_or(x),
                        AtomOp::Max => alu::ibin(IntBin::Max, *t, x, v).unwrap_or(x),
                        AtomOp::And => x & v,
                        AtomOp::Or => x | v,
                        _ => x ^ v,
                    },
                });
            });
            let r = acc.unwrap_or(0);
            for_lanes(here, |l| regs[*d as usize * 32 + l] = r);
        }
        Op::Elect { d, p, .. } => {
            let leader = (m & here).trailing_zeros() as u64;
            for_lanes(here, |l| {
                if let Some(d) = d {
                    regs[*d as usize * 32 + l] = leader;
                }
                if let Some(p) = p {
                    regs[*p as usize * 32 + l] = (l as u64 == leader) as u64;
                }
            });
        }
        Op::Activemask { d } => for_lanes(here, |l| regs[*d as usize * 32 + l] = here as u64),
        Op::WarpSync { .. } => {
            if let Some(r) = env.race.as_mut() {
                let mut ts = Vec::new();
                for_lanes(here, |l| ts.push(w.id as usize * 32 + l));
                r.warp_sync(&ts);
            }
        }
        Op::Wgmma { .. } => return super::matrix::wgmma(w, env, inst, &inst.op),
        Op::Ldmatrix { space, trans, ds, addr } => return super::matrix::ldmatrix(w, env, inst, *space, *trans, ds, *addr),
        Op::Stmatrix { space, trans, vals, addr } => return super::matrix::stmatrix(w, env, inst, *space, *trans, vals, *addr),
        Op::Mma { k, at, bt, d_f16, c_f16, ds, a, b, c, .. } => super::matrix::mma(w, *k, (*at, *bt), *d_f16, *c_f16, ds, a, b, c),
        other => return Err(EmuError::new(ErrorKind::Decode, inst.line, format!("internal: {other:?} is not a collective"))),
    }
    Ok(())
}
