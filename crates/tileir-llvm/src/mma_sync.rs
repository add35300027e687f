//! The `mma_sync` variant of `mmaf`: tensor-core `mma.sync.m16n8k16` (sm_80+) for f16 and
//! bf16 operands with an f32 accumulator.
//!
//! The CTA's warps tile the M x N result (each warp a block of 16 x 8 fragments). The
//! accumulator enters the fragment layout and leaves it through shared memory; A and B are
//! staged in shared memory row-major, and each k-step of 16 reads the fragments the PTX ISA
//! assigns to each lane (group = lane / 4, thread-in-group = lane % 4):
//! A `a0..a3` rows group / group+8, columns 2·tig (+8); B `b0, b1` rows 2·tig (+8),
//! column group; C/D `c0..c3` rows group / group+8, columns 2·tig, 2·tig+1.

use crate::lower_ct::{elem_llvm, smem_elem_bytes, ValTy};
use crate::writer::FuncWriter;
use tileir_ir::{CtOp, CudaTileOp, Layout, NumType, OpId, TileElem};

type R<T> = Result<T, String>;

/// Static shared memory a kernel may use.
const STATIC_SMEM_LIMIT: u64 = 48 * 1024;

/// How the CTA's warps split an M x N result.
struct WarpTiling {
    /// Warps along M and N.
    _wm: i64,
    wn: i64,
    /// Rows and columns per warp.
    rows: i64,
    cols: i64,
}

fn num_warps(t: &ValTy) -> i64 {
    match &t.layout {
        Some(Layout::Blocked { warps_per_cta, .. }) => warps_per_cta.iter().product::<u32>() as i64,
        None => 1,
    }
}

fn tiling(m: i64, n: i64, warps: i64) -> Option<WarpTiling> {
    let (mt, nt) = (m / 16, n / 8);
    let mut wm = 1;
    while wm * 2 <= warps && (mt % (wm * 2)) == 0 {
        wm *= 2;
    }
    let wn = warps / wm;
    if wn == 0 || nt % wn != 0 {
        return None;
    }
    Some(WarpTiling { _wm: wm, wn, rows: m / wm, cols: n / wn })
}

/// Why `mma_sync` cannot lower this op (None: it applies).
pub(crate) fn mma_sync_rejects(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> Option<String> {
    if c.op != CtOp::MmaF {
        return Some(format!("'{}' is not mmaf", c.op.mnemonic()));
    }
    let ops = &w.m.ops[op].operands;
    let (a, b, acc) = (w.val_ty(ops[0]), w.val_ty(ops[1]), w.val_ty(ops[2]));
    let kinds = (a.elem, b.elem, acc.elem);
    let ok_types = matches!(
        kinds,
        (TileElem::Num(NumType::F16), TileElem::Num(NumType::F16), TileElem::Num(NumType::F32))
            | (TileElem::Num(NumType::BF16), TileElem::Num(NumType::BF16), TileElem::Num(NumType::F32))
    );
    if !ok_types {
        return Some(format!("operand types {:?} x {:?} -> {:?} are not f16/bf16 -> f32", kinds.0, kinds.1, kinds.2));
    }
    if a.shape.len() != 2 {
        return Some("batched (rank-3) operands".into());
    }
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    if m % 16 != 0 || n % 8 != 0 || k % 16 != 0 {
        return Some(format!("{m}x{n}x{k} is not a multiple of the 16x8x16 instruction shape"));
    }
    let warps = num_warps(&acc);
    if (m / 16) * (n / 8) < warps || tiling(m, n, warps).is_none() {
        return Some(format!("{m}x{n} has too few 16x8 fragments for {warps} warps"));
    }
    let ab = (m * k * 2 + k * n * 2) as u64;
    let cd = (m * n * 4) as u64;
    if ab.max(cd) + 32 > STATIC_SMEM_LIMIT {
        return Some(format!("staging needs {} bytes of shared memory (limit {STATIC_SMEM_LIMIT})", ab.max(cd)));
    }
    None
}

impl FuncWriter<'_> {
    pub(crate) fn mma_sync(&mut self, op: OpId, _c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let (a, b, acc) = (data.operands[0], data.operands[1], data.operands[2]);
        let (at, bt, ct) = (self.val_ty(a), self.val_ty(b), self.val_ty(acc));
        let bf16 = at.elem == TileElem::Num(NumType::BF16);
        let (m, k, n) = (at.shape[0], at.shape[1], bt.shape[1]);
        let warps = num_warps(&ct);
        let t = tiling(m, n, warps).ok_or("no warp tiling")?;
        let (fm, fn_) = (t.rows / 16, t.cols / 8);
        let bytes_a = ((m * k * 2) as u64).div_ceil(16) * 16;
        self.scratch(((m * k * 2 + k * n * 2) as u64).max((m * n * 4) as u64).div_ceil(16) * 16);

        // Lane roles.
        let tid = self.thread_id();
        let lane = self.emit("mlane", format!("and i32 {tid}, 31"));
        let warp = self.emit("mwarp", format!("lshr i32 {tid}, 5"));
        let group = self.emit("mgrp", format!("lshr i32 {lane}, 2"));
        let tig = self.emit("mtig", format!("and i32 {lane}, 3"));
        let tig2 = self.emit("mtig", format!("shl i32 {tig}, 1"));
        let wy = self.emit("mwy", format!("udiv i32 {warp}, {}", t.wn));
        let wx = self.emit("mwx", format!("urem i32 {warp}, {}", t.wn));
        let row0 = self.emit("mr0", format!("mul i32 {wy}, {}", t.rows));
        let row0 = self.emit("mr0", format!("add i32 {row0}, {group}"));
        let col0 = self.emit("mc0", format!("mul i32 {wx}, {}", t.cols));
        let col0 = self.emit("mc0", format!("add i32 {col0}, {tig2}"));
        // Fragment (mi, ni), element e: (row, col) of the accumulator.
        let frag_rc = |w: &mut Self, mi: i64, ni: i64, e: usize| -> (String, String) {
            let r = w.emit("fr", format!("add i32 {row0}, {}", mi * 16 + if e >= 2 { 8 } else { 0 }));
            let c = w.emit("fc", format!("add i32 {col0}, {}", ni * 8 + (e % 2) as i64));
            (r, c)
        };

        // 1. The accumulator into fragments.
        self.barrier();
        self.spill_to_smem(acc, 0)?;
        self.barrier();
        let mut accs = Vec::new();
        for mi in 0..fm {
            for ni in 0..fn_ {
                for e in 0..4 {
                    let (r, c) = frag_rc(self, mi, ni, e);
                    let lin = self.linear(&[r, c], &[m, n]);
                    let off = self.emit("co", format!("mul i32 {lin}, 4"));
                    accs.push(self.smem_load(TileElem::Num(NumType::F32), &off)?);
                }
            }
        }
        // 2. A and B, row-major.
        self.barrier();
        self.spill_to_smem(a, 0)?;
        self.spill_to_smem(b, bytes_a)?;
        self.barrier();

        // 3. The k loop.
        let carried: Vec<(&str, String)> = accs.iter().map(|a0| ("float", a0.clone())).collect();
        let l = self.counted_loop_begin("mma", &k.to_string(), &carried);
        let (kk, phis) = (l.k.clone(), l.phis.clone());
        let elem_ty = if bf16 { "i16" } else { "half" };
        let pair_ty = if bf16 { "i32" } else { "<2 x half>" };
        // A fragments: four pairs per 16-row block.
        let mut a_frags = Vec::new();
        let ka = self.emit("ka", format!("add i32 {kk}, {tig2}"));
        for mi in 0..fm {
            let mut regs = Vec::new();
            for (dr, dc) in [(0, 0), (8, 0), (0, 8), (8, 8)] {
                let r = self.emit("ar", format!("add i32 {row0}, {}", mi * 16 + dr));
                let c = self.emit("ac", format!("add i32 {ka}, {dc}"));
                let lin = self.linear(&[r, c], &[m, k]);
                let off = self.emit("ao", format!("mul i32 {lin}, 2"));
                let p = self.smem_ptr(&off);
                regs.push(self.emit("af", format!("load {pair_ty}, ptr addrspace(3) {p}, align 4")));
            }
            a_frags.push(regs);
        }
        // B fragments: two pairs (k, k+1) per 8-column block.
        let mut b_frags = Vec::new();
        let ncol0 = self.emit("bn", format!("sub i32 {col0}, {tig2}"));
        let ncol0 = self.emit("bn", format!("add i32 {ncol0}, {group}"));
        for ni in 0..fn_ {
            let col = self.emit("bc", format!("add i32 {ncol0}, {}", ni * 8));
            let mut regs = Vec::new();
            for dk in [0, 8] {
                let mut halves = Vec::new();
                for j in 0..2 {
                    let r = self.emit("br", format!("add i32 {ka}, {}", dk + j));
                    let lin = self.linear(&[r, col.clone()], &[k, n]);
                    let off = self.emit("bo", format!("mul i32 {lin}, 2"));
                    let off = self.emit("bo", format!("add i32 {off}, {bytes_a}"));
                    let p = self.smem_ptr(&off);
                    halves.push(self.emit("bh", format!("load {elem_ty}, ptr addrspace(3) {p}, align 2")));
                }
                let pair = if bf16 {
                    let lo = self.emit("bp", format!("zext i16 {} to i32", halves[0]));
                    let hi = self.emit("bp", format!("zext i16 {} to i32", halves[1]));
                    let hs = self.emit("bp", format!("shl i32 {hi}, 16"));
                    self.emit("bp", format!("or i32 {hs}, {lo}"))
                } else {
                    let v0 = self.emit("bp", format!("insertelement <2 x half> poison, half {}, i32 0", halves[0]));
                    self.emit("bp", format!("insertelement <2 x half> {v0}, half {}, i32 1", halves[1]))
                };
                regs.push(pair);
            }
            b_frags.push(regs);
        }
        let (name, arg_ty) = if bf16 {
            ("llvm.nvvm.mma.m16n8k16.row.col.bf16", "i32")
        } else {
            ("llvm.nvvm.mma.m16n8k16.row.col.f32.f32", "<2 x half>")
        };
        self.declare(&format!(
            "declare {{ float, float, float, float }} @{name}({arg_ty}, {arg_ty}, {arg_ty}, {arg_ty}, {arg_ty}, {arg_ty}, float, float, float, float)"
        ));
        let mut next = Vec::new();
        for (mi, a_frag) in a_frags.iter().enumerate() {
            for (ni, b_frag) in b_frags.iter().enumerate() {
                let base = (mi * fn_ as usize + ni) * 4;
                let mut args: Vec<String> = a_frag.iter().map(|r| format!("{arg_ty} {r}")).collect();
                args.extend(b_frag.iter().map(|r| format!("{arg_ty} {r}")));
                args.extend(phis[base..base + 4].iter().map(|p| format!("float {p}")));
                let d = self.emit("mma", format!("call {{ float, float, float, float }} @{name}({})", args.join(", ")));
                for e in 0..4 {
                    next.push(self.emit("md", format!("extractvalue {{ float, float, float, float }} {d}, {e}")));
                }
            }
        }
        self.counted_loop_end(&l, 16, &next);

        // 4. Fragments back to the result's layout.
        self.barrier();
        let mut i = 0;
        for mi in 0..fm {
            for ni in 0..fn_ {
                for e in 0..4 {
                    let (r, c) = frag_rc(self, mi, ni, e);
                    let lin = self.linear(&[r, c], &[m, n]);
                    let off = self.emit("do", format!("mul i32 {lin}, 4"));
                    self.smem_store(TileElem::Num(NumType::F32), &off, &phis[i])?;
                    i += 1;
                }
            }
        }
        self.barrier();
        let coords = self.result_coords(data.results[0]);
        let mut out = Vec::new();
        for rc in coords {
            let lin = self.linear(&rc, &[m, n]);
            let off = self.emit("ro", format!("mul i32 {lin}, 4"));
            out.push(self.smem_load(TileElem::Num(NumType::F32), &off)?);
        }
        let _ = (elem_llvm(ct.elem)?, smem_elem_bytes(ct.elem));
        self.set_elems(data.results[0], out);
        Ok(())
    }
}
