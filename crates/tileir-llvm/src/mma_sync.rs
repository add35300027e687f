//! The `mma_sync*` variants of `mmaf` / `mmai`: tensor-core `mma.sync` (warp-wide, sm_80+).
//!
//! | variant          | operands              | accumulator | instruction                          | target  |
//! |------------------|-----------------------|-------------|--------------------------------------|---------|
//! | `mma_sync`       | f16 x f16, bf16 x bf16 | f32        | `m16n8k16.row.col.f32.{f16,bf16}`    | sm_80+  |
//! | `mma_sync_tf32`  | tf32 x tf32           | f32         | `m16n8k8.row.col.f32.tf32.tf32.f32`  | sm_80+  |
//! | `mma_sync_i8`    | {s8,u8} x {s8,u8}     | i32 (wraps) | `m16n8k32.row.col.s32.{s8,u8}.{s8,u8}.s32` | sm_80+ |
//! | `mma_sync_fp8`   | {e4m3,e5m2} x {e4m3,e5m2} | f32     | `m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32` | sm_89+ |
//!
//! One lowering serves every shape, driven by an [`MmaShape`]: each 32-bit A or B register
//! packs `p = 32 / bits` elements (2 for 16-bit, 1 for tf32, 4 for 8-bit), the instruction's
//! K is `8 p`, and the PTX ISA's fragments are the same formula for all three shapes
//! (group = lane / 4, thread-in-group = lane % 4):
//! A `a_r` (r = 0..4): row group + 8·(r % 2), columns p·tig + 4p·(r / 2) + j; B `b_r`
//! (r = 0..2): rows p·tig + 4p·r + j, column group (element j < p in bits [32j/p, 32(j+1)/p)
//! of its register); C/D `c0..c3`: rows group / group+8, columns 2·tig, 2·tig+1.
//!
//! The CTA's warps tile the M x N result (each warp a block of 16 x 8 fragments). The
//! accumulator enters the fragment layout and leaves it through shared memory; A and B are
//! staged in shared memory row-major (an A register is one aligned 32-bit load; a B
//! register packs `p` elements of a column).

use crate::lower_ct::ValTy;
use crate::writer::FuncWriter;
use tileir_ir::{CtOp, CudaTileOp, NumType, OpId, Signedness, TileElem};

type R<T> = Result<T, String>;

/// Accumulator registers per thread beyond which the variant declines: the staging code
/// around the fragments needs registers too. Measured: the 128x128x64 f16 matmul sample at
/// 8 warps (64 per thread) spilled 272 bytes at 255 registers on sm_80.
const MAX_ACC_REGS: i64 = 32;

/// One `mma.sync` instruction shape m16n8kK and its operand encoding.
struct MmaShape {
    /// K per instruction.
    k: i64,
    /// Bytes per A / B element (4 / bytes elements per 32-bit register).
    elem_bytes: i64,
    /// The LLVM intrinsic.
    intrinsic: String,
    /// The LLVM type of an A / B register argument.
    reg_ty: &'static str,
    /// The accumulator element and its LLVM type.
    acc: NumType,
    acc_ty: &'static str,
    /// The lowest target (sm number).
    min_sm: u32,
}

impl MmaShape {
    fn per_reg(&self) -> i64 {
        4 / self.elem_bytes
    }
}

/// How the CTA's warps split an M x N result.
struct WarpTiling {
    /// Warps along N.
    wn: i64,
    /// Rows and columns per warp.
    rows: i64,
    cols: i64,
}

/// Warps of the CTA, from a tile's layout.
pub(crate) fn num_warps(t: &ValTy) -> i64 {
    match &t.layout {
        Some(l) => (l.num_threads() / 32) as i64,
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
    Some(WarpTiling { wn, rows: m / wm, cols: n / wn })
}


/// The numeric element of `e` (None for pointers).
pub(crate) fn num(e: TileElem) -> Option<NumType> {
    match e {
        TileElem::Num(n) => Some(n),
        TileElem::Ptr(_) => None,
    }
}

/// The PTX name of an fp8 element type.
pub(crate) fn fp8_name(n: NumType) -> Option<&'static str> {
    match n {
        NumType::F8E4M3FN => Some("e4m3"),
        NumType::F8E5M2 => Some("e5m2"),
        _ => None,
    }
}

/// The instruction variant `variant` would use for `op`, or why it does not apply to the
/// op's types.
fn shape_for(variant: &str, w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> R<MmaShape> {
    let ops = &w.m.ops[op].operands;
    let (a, b, acc) = (w.val_ty(ops[0]), w.val_ty(ops[1]), w.val_ty(ops[2]));
    let (an, bn, cn) = (num(a.elem), num(b.elem), num(acc.elem));
    let show = |n: Option<NumType>| n.map_or("ptr".to_string(), |n| n.to_string());
    let types = || format!("operand types {} x {} -> {}", show(an), show(bn), show(cn));
    let f32_out = |reg_ty: &'static str, k: i64, elem_bytes: i64, intrinsic: String, min_sm: u32| MmaShape {
        k,
        elem_bytes,
        intrinsic,
        reg_ty,
        acc: NumType::F32,
        acc_ty: "float",
        min_sm,
    };
    match variant {
        "mma_sync" => {
            if c.op != CtOp::MmaF {
                return Err(format!("'{}' is not mmaf", c.op.mnemonic()));
            }
            match (an, bn, cn) {
                (Some(NumType::F16), Some(NumType::F16), Some(NumType::F32)) => {
                    Ok(f32_out("<2 x half>", 16, 2, "llvm.nvvm.mma.m16n8k16.row.col.f32.f32".into(), 80))
                }
                (Some(NumType::BF16), Some(NumType::BF16), Some(NumType::F32)) => {
                    Ok(f32_out("i32", 16, 2, "llvm.nvvm.mma.m16n8k16.row.col.bf16".into(), 80))
                }
                _ => Err(format!("{} are not f16/bf16 -> f32", types())),
            }
        }
        "mma_sync_tf32" => {
            if c.op != CtOp::MmaF {
                return Err(format!("'{}' is not mmaf", c.op.mnemonic()));
            }
            match (an, bn, cn) {
                (Some(NumType::TF32), Some(NumType::TF32), Some(NumType::F32)) => {
                    Ok(f32_out("i32", 8, 4, "llvm.nvvm.mma.m16n8k8.row.col.tf32".into(), 80))
                }
                _ => Err(format!("{} are not tf32 -> f32", types())),
            }
        }
        "mma_sync_fp8" => {
            if c.op != CtOp::MmaF {
                return Err(format!("'{}' is not mmaf", c.op.mnemonic()));
            }
            match (an.and_then(fp8_name), bn.and_then(fp8_name), cn) {
                (Some(x), Some(y), Some(NumType::F32)) => {
                    Ok(f32_out("i32", 32, 1, format!("llvm.nvvm.mma.m16n8k32.row.col.f32.{x}.{y}.f32"), 89))
                }
                _ => Err(format!("{} are not fp8 (e4m3/e5m2) -> f32", types())),
            }
        }
        "mma_sync_i8" => {
            if c.op != CtOp::MmaI {
                return Err(format!("'{}' is not mmai", c.op.mnemonic()));
            }
            if !(an == Some(NumType::I8) && bn == Some(NumType::I8) && cn == Some(NumType::I32)) {
                return Err(format!("{} are not i8 -> i32", types()));
            }
            let s = |attr: &str| match c.enum_attr::<Signedness>(attr).unwrap_or(Signedness::Signed) {
                Signedness::Signed => "s8",
                Signedness::Unsigned => "u8",
            };
            let (x, y) = (s("signedness_lhs"), s("signedness_rhs"));
            // LLVM names an integer mma by its input types, one when they agree.
            let name = if x == y { format!("llvm.nvvm.mma.m16n8k32.row.col.{x}") } else { format!("llvm.nvvm.mma.m16n8k32.row.col.{x}.{y}") };
            Ok(MmaShape { k: 32, elem_bytes: 1, intrinsic: name, reg_ty: "i32", acc: NumType::I32, acc_ty: "i32", min_sm: 80 })
        }
        _ => Err(format!("no mma.sync variant named '{variant}'")),
    }
}

/// Why `variant` cannot lower this op (None: it applies).
fn rejects(variant: &str, w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> Option<String> {
    let shape = match shape_for(variant, w, op, c) {
        Ok(s) => s,
        Err(why) => return Some(why),
    };
    match crate::writer::sm_number(&w.target) {
        Some(sm) if sm >= shape.min_sm => {}
        _ => return Some(format!("needs sm_{}+ (target {})", shape.min_sm, w.target)),
    }
    let ops = &w.m.ops[op].operands;
    let (a, b, acc) = (w.val_ty(ops[0]), w.val_ty(ops[1]), w.val_ty(ops[2]));
    if a.shape.len() != 2 {
        return Some("batched (rank-3) operands".into());
    }
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    if m % 16 != 0 || n % 8 != 0 || k % shape.k != 0 {
        return Some(format!("{m}x{n}x{k} is not a multiple of the 16x8x{} instruction shape", shape.k));
    }
    let warps = num_warps(&acc);
    if (m / 16) * (n / 8) < warps || tiling(m, n, warps).is_none() {
        return Some(format!("{m}x{n} has too few 16x8 fragments for {warps} warps"));
    }
    let acc_regs = m * n / (32 * warps);
    if acc_regs > MAX_ACC_REGS {
        return Some(format!("{acc_regs} accumulator registers per thread (at most {MAX_ACC_REGS})"));
    }
    let eb = shape.elem_bytes;
    let ab = ((m * k * eb) as u64).div_ceil(16) * 16 + (k * n * eb) as u64;
    let cd = (m * n * 4) as u64;
    let limit = crate::writer::max_smem_bytes(&w.target);
    if ab.max(cd) > limit {
        return Some(format!("staging needs {} bytes of shared memory ({} allows {limit})", ab.max(cd), w.target));
    }
    None
}

pub(crate) fn mma_sync_rejects(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> Option<String> {
    rejects("mma_sync", w, op, c)
}

pub(crate) fn mma_sync_tf32_rejects(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> Option<String> {
    rejects("mma_sync_tf32", w, op, c)
}

pub(crate) fn mma_sync_i8_rejects(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> Option<String> {
    rejects("mma_sync_i8", w, op, c)
}

pub(crate) fn mma_sync_fp8_rejects(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> Option<String> {
    rejects("mma_sync_fp8", w, op, c)
}

impl FuncWriter<'_> {
    /// Lowers `op` with the instruction of `variant` (see the module documentation).
    pub(crate) fn mma_sync(&mut self, variant: &str, op: OpId, c: &CudaTileOp) -> R<()> {
        let s = shape_for(variant, self, op, c)?;
        let data = self.m.ops[op].clone();
        let (a, b, acc) = (data.operands[0], data.operands[1], data.operands[2]);
        let (at, bt, ct) = (self.val_ty(a), self.val_ty(b), self.val_ty(acc));
        let (m, k, n) = (at.shape[0], at.shape[1], bt.shape[1]);
        let (eb, p, acc_elem, acc_ty) = (s.elem_bytes, s.per_reg(), TileElem::Num(s.acc), s.acc_ty);
        let warps = num_warps(&ct);
        let t = tiling(m, n, warps).ok_or("no warp tiling")?;
        let (fm, fn_) = (t.rows / 16, t.cols / 8);
        let bytes_a = ((m * k * eb) as u64).div_ceil(16) * 16;
        self.scratch((bytes_a + (k * n * eb) as u64).max((m * n * 4) as u64));

        // Lane roles.
        let tid = self.thread_id();
        let lane = self.emit("mlane", format!("and i32 {tid}, 31"));
        let warp = self.emit("mwarp", format!("lshr i32 {tid}, 5"));
        let group = self.emit("mgrp", format!("lshr i32 {lane}, 2"));
        let tig = self.emit("mtig", format!("and i32 {lane}, 3"));
        let tig2 = self.emit("mtig", format!("shl i32 {tig}, 1"));
        let tigp = self.emit("mtig", format!("mul i32 {tig}, {p}"));
        let wy = self.emit("mwy", format!("udiv i32 {warp}, {}", t.wn));
        let wx = self.emit("mwx", format!("urem i32 {warp}, {}", t.wn));
        let row0 = self.emit("mr0", format!("mul i32 {wy}, {}", t.rows));
        let row0 = self.emit("mr0", format!("add i32 {row0}, {group}"));
        let wcol = self.emit("mc0", format!("mul i32 {wx}, {}", t.cols));
        let col0 = self.emit("mc0", format!("add i32 {wcol}, {tig2}"));
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
                    accs.push(self.smem_load(acc_elem, &off)?);
                }
            }
        }
        // 2. A and B, row-major.
        self.barrier();
        self.spill_to_smem(a, 0)?;
        self.spill_to_smem(b, bytes_a)?;
        self.barrier();

        // 3. The k loop.
        let carried: Vec<(&str, String)> = accs.iter().map(|a0| (acc_ty, a0.clone())).collect();
        let l = self.counted_loop_begin("mma", &k.to_string(), &carried);
        let (kk, phis) = (l.k.clone(), l.phis.clone());
        let reg_ty = s.reg_ty;
        // A fragments: four registers per 16-row block, each `p` adjacent elements of a row.
        let mut a_frags = Vec::new();
        let ka = self.emit("ka", format!("add i32 {kk}, {tigp}"));
        for mi in 0..fm {
            let mut regs = Vec::new();
            for r in 0..4 {
                let row = self.emit("ar", format!("add i32 {row0}, {}", mi * 16 + 8 * (r % 2)));
                let col = self.emit("ac", format!("add i32 {ka}, {}", 4 * p * (r / 2)));
                let lin = self.linear(&[row, col], &[m, k]);
                let off = self.emit("ao", format!("mul i32 {lin}, {eb}"));
                let ptr = self.smem_ptr(&off);
                regs.push(self.emit("af", format!("load {reg_ty}, ptr addrspace(3) {ptr}, align 4")));
            }
            a_frags.push(regs);
        }
        // B fragments: two registers per 8-column block, each `p` consecutive rows of a column.
        let mut b_frags = Vec::new();
        let ncol0 = self.emit("bn", format!("add i32 {wcol}, {group}"));
        let bits = 8 * eb;
        for ni in 0..fn_ {
            let col = self.emit("bc", format!("add i32 {ncol0}, {}", ni * 8));
            let mut regs = Vec::new();
            for r in 0..2 {
                let mut packed: Option<String> = None;
                for j in 0..p {
                    let row = self.emit("br", format!("add i32 {ka}, {}", 4 * p * r + j));
                    let lin = self.linear(&[row, col.clone()], &[k, n]);
                    let off = self.emit("bo", format!("mul i32 {lin}, {eb}"));
                    let off = self.emit("bo", format!("add i32 {off}, {bytes_a}"));
                    let ptr = self.smem_ptr(&off);
                    let x = self.emit("bh", format!("load i{bits}, ptr addrspace(3) {ptr}, align {eb}"));
                    let x = if bits < 32 { self.emit("bp", format!("zext i{bits} {x} to i32")) } else { x };
                    let x = if j > 0 { self.emit("bp", format!("shl i32 {x}, {}", bits * j)) } else { x };
                    packed = Some(match packed {
                        None => x,
                        Some(acc) => self.emit("bp", format!("or i32 {acc}, {x}")),
                    });
                }
                let word = packed.ok_or("empty B register")?;
                regs.push(if reg_ty == "i32" { word } else { self.emit("bp", format!("bitcast i32 {word} to {reg_ty}")) });
            }
            b_frags.push(regs);
        }
        let name = &s.intrinsic;
        let ret = format!("{{ {acc_ty}, {acc_ty}, {acc_ty}, {acc_ty} }}");
        self.declare(&format!(
            "declare {ret} @{name}({reg_ty}, {reg_ty}, {reg_ty}, {reg_ty}, {reg_ty}, {reg_ty}, {acc_ty}, {acc_ty}, {acc_ty}, {acc_ty})"
        ));
        let mut next = Vec::new();
        for (mi, a_frag) in a_frags.iter().enumerate() {
            for (ni, b_frag) in b_frags.iter().enumerate() {
                let base = (mi * fn_ as usize + ni) * 4;
                let mut args: Vec<String> = a_frag.iter().map(|r| format!("{reg_ty} {r}")).collect();
                args.extend(b_frag.iter().map(|r| format!("{reg_ty} {r}")));
                args.extend(phis[base..base + 4].iter().map(|ph| format!("{acc_ty} {ph}")));
                let d = self.emit("mma", format!("call {ret} @{name}({})", args.join(", ")));
                for e in 0..4 {
                    next.push(self.emit("md", format!("extractvalue {ret} {d}, {e}")));
                }
            }
        }
        self.counted_loop_end(&l, s.k, &next);

        // 4. Fragments back to the result's layout.
        self.barrier();
        let mut i = 0;
        for mi in 0..fm {
            for ni in 0..fn_ {
                for e in 0..4 {
                    let (r, c) = frag_rc(self, mi, ni, e);
                    let lin = self.linear(&[r, c], &[m, n]);
                    let off = self.emit("do", format!("mul i32 {lin}, 4"));
                    self.smem_store(acc_elem, &off, &phis[i])?;
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
            out.push(self.smem_load(acc_elem, &off)?);
        }
        self.set_elems(data.results[0], out);
        Ok(())
    }
}
