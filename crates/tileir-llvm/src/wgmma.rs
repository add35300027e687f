//! The `wgmma` variant of `mmaf` / `mmai`: Hopper's warpgroup MMA (`wgmma.mma_async`,
//! sm_90a only), with both operands read from shared memory through matrix descriptors.
//!
//! | operands                   | accumulator | instruction                                 |
//! |----------------------------|-------------|---------------------------------------------|
//! | f16 x f16, bf16 x bf16     | f32         | `m64nNk16.f32.{f16,bf16}.{f16,bf16}`        |
//! | tf32 x tf32                | f32         | `m64nNk8.f32.tf32.tf32`                     |
//! | {e4m3,e5m2} x {e4m3,e5m2}  | f32         | `m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}`      |
//! | {s8,u8} x {s8,u8}          | i32 (wraps) | `m64nNk32.s32.{s8,u8}.{s8,u8}`              |
//!
//! The CTA's warps form warpgroups of four; the warpgroups tile the M x N result (M first),
//! each covering its rows in blocks of 64 and its columns in chunks of one instruction's N
//! (up to 256). Thread (warp w of its group, lane l) holds, for every 8-column block j of an
//! instruction, accumulator registers `4j + e` at row `16w + l/4 + 8(e/2)`, column
//! `8j + 2(l%4) + e%2` (the PTX ISA's wgmma D fragment).
//!
//! Operands are staged K-major without swizzle: A as M rows of K, B transposed as N rows of
//! K, each cut into 8-row x 16-byte core matrices stored contiguously (128 bytes). Core
//! matrices adjacent along K sit 128 bytes apart (the descriptor's leading byte offset);
//! 8-row groups sit `K * bytes / 16 * 128` bytes apart (its stride byte offset). Every
//! operand type then shares one layout, and the K-major form is the only one tf32, fp8
//! and int8 accept. The writes reach the async proxy through `fence.proxy.async` before
//! the barrier that precedes the first `wgmma`.
//!
//! K is unrolled: one `wgmma.fence`, every `mma_async` chained on its accumulators, one
//! `commit_group` and a `wait_group 0`. Descriptors are packed with `mov.b64 {lo, hi}`: an
//! i64 add of the constant high word is the shape that crashes ptxas 12.9 (docs/nvptx.md,
//! P2).

use crate::lower_ct::{elem_llvm, ValTy};
use crate::mma_sync::{fp8_name, num, num_warps};
use crate::writer::{FuncWriter, Lowered};
use std::collections::HashMap;
use tileir_ir::{CtOp, CudaTileOp, Dim, Layout, NumType, OpId, OpKind, Signedness, TileElem, Type, ValueId};

type R<T> = Result<T, String>;

/// Accumulator registers per thread beyond which the variant declines (the rest of the
/// kernel needs registers too).
const MAX_ACC_REGS: i64 = 128;

/// `wgmma.mma_async` instructions one op may unroll to.
const MAX_INSTRUCTIONS: i64 = 256;

/// Bytes of one core matrix (8 rows x 16 bytes).
const CORE_MATRIX_BYTES: i64 = 128;

/// One `wgmma.mma_async` form.
#[derive(Clone, Debug)]
struct WgmmaForm {
    /// K per instruction.
    k: i64,
    /// Bytes per A / B element.
    elem_bytes: i64,
    /// The `.dtype.atype.btype` suffix.
    types: String,
    /// The operands after scale-d (immediate scale-a / scale-b and transposes, when the
    /// form has them).
    tail: &'static str,
    /// The accumulator element, its LLVM type and inline-asm constraint letter.
    acc: NumType,
    acc_ty: &'static str,
    acc_cons: char,
    /// Integer forms allow fewer N values.
    int: bool,
    /// B may be read MN-major (transposed): only 16-bit inputs have the immediate.
    b_mn_major: bool,
}

/// How the CTA's warpgroups split an M x N result.
#[derive(Clone, Debug)]
struct WarpgroupTiling {
    /// Warpgroups along N.
    wn: i64,
    /// Rows and columns per warpgroup.
    rows: i64,
    cols: i64,
    /// N of one instruction (divides `cols`).
    inst_n: i64,
}

impl WarpgroupTiling {
    /// Accumulator registers per thread.
    fn acc_regs(&self) -> i64 {
        (self.rows / 64) * self.cols / 2
    }
}

/// Descriptor fields of an operand image: leading and stride byte offsets and the
/// swizzle mode (0 none, 1 128-byte, 2 64-byte, 3 32-byte).
struct Geometry {
    lbo: i64,
    sbo: i64,
    mode: u32,
}

/// The descriptor's swizzle mode for a span of `bytes`.
fn swizzle_mode(bytes: u32) -> u32 {
    match bytes {
        128 => 1,
        64 => 2,
        32 => 3,
        _ => 0,
    }
}

/// Whether `n` is an N the form's instruction accepts (PTX ISA: multiples of 8 up to 256;
/// integer forms: 8, 16, 24, then multiples of 16).
fn valid_n(n: i64, int: bool) -> bool {
    if !(8..=256).contains(&n) || n % 8 != 0 {
        return false;
    }
    !int || n <= 24 || n % 16 == 0
}

fn tiling(m: i64, n: i64, warps: i64, int: bool) -> R<WarpgroupTiling> {
    if warps % 4 != 0 {
        return Err(format!("{warps} warps do not form whole warpgroups"));
    }
    if m % 64 != 0 {
        return Err(format!("M = {m} is not a multiple of 64"));
    }
    let groups = warps / 4;
    let mut wm = 1;
    while wm * 2 <= groups && (m / 64) % (wm * 2) == 0 {
        wm *= 2;
    }
    let wn = groups / wm;
    if wn * wm != groups || n % (wn * 8) != 0 {
        return Err(format!("{m}x{n} cannot be split among {groups} warpgroups"));
    }
    let cols = n / wn;
    let inst_n = (1..=32).rev().map(|i| i * 8).find(|&c| valid_n(c, int) && cols % c == 0);
    let inst_n = inst_n.ok_or_else(|| format!("no instruction N divides {cols} columns"))?;
    Ok(WarpgroupTiling { wn, rows: m / wm, cols, inst_n })
}

/// The form for `op`'s types, or why it has none.
fn form_for(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> R<WgmmaForm> {
    let ops = &w.m.ops[op].operands;
    let (an, bn, cn) = (num(w.val_ty(ops[0]).elem), num(w.val_ty(ops[1]).elem), num(w.val_ty(ops[2]).elem));
    let show = |n: Option<NumType>| n.map_or("ptr".to_string(), |n| n.to_string());
    let types = format!("operand types {} x {} -> {}", show(an), show(bn), show(cn));
    let f32_form = |k: i64, elem_bytes: i64, types: String, tail: &'static str| WgmmaForm {
        k,
        elem_bytes,
        types,
        tail,
        acc: NumType::F32,
        acc_ty: "float",
        acc_cons: 'f',
        int: false,
        b_mn_major: elem_bytes == 2,
    };
    match c.op {
        CtOp::MmaF => match (an, bn, cn) {
            (Some(NumType::F16), Some(NumType::F16), Some(NumType::F32)) => Ok(f32_form(16, 2, ".f32.f16.f16".into(), ", 1, 1, 0, 1")),
            (Some(NumType::BF16), Some(NumType::BF16), Some(NumType::F32)) => {
                Ok(f32_form(16, 2, ".f32.bf16.bf16".into(), ", 1, 1, 0, 1"))
            }
            (Some(NumType::TF32), Some(NumType::TF32), Some(NumType::F32)) => Ok(f32_form(8, 4, ".f32.tf32.tf32".into(), ", 1, 1")),
            (Some(x), Some(y), Some(NumType::F32)) if fp8_name(x).is_some() && fp8_name(y).is_some() => {
                let (x, y) = (fp8_name(x).unwrap_or_default(), fp8_name(y).unwrap_or_default());
                Ok(f32_form(32, 1, format!(".f32.{x}.{y}"), ", 1, 1"))
            }
            _ => Err(format!("{types} are not f16/bf16/tf32/fp8 -> f32")),
        },
        CtOp::MmaI => {
            if !(an == Some(NumType::I8) && bn == Some(NumType::I8) && cn == Some(NumType::I32)) {
                return Err(format!("{types} are not i8 -> i32"));
            }
            let s = |attr: &str| match c.enum_attr::<Signedness>(attr).unwrap_or(Signedness::Signed) {
                Signedness::Signed => "s8",
                Signedness::Unsigned => "u8",
            };
            let types = format!(".s32.{}.{}", s("signedness_lhs"), s("signedness_rhs"));
            Ok(WgmmaForm { k: 32, elem_bytes: 1, types, tail: "", acc: NumType::I32, acc_ty: "i32", acc_cons: 'r', int: true, b_mn_major: false })
        }
        other => Err(format!("'{}' has no wgmma form", other.mnemonic())),
    }
}

/// Alignment of B's image after A's: a swizzled TMA image repeats every 1024 bytes.
const IMAGE_ALIGN: u64 = 1024;

/// Bytes of the staging buffer: A and B, or the accumulator, whichever is larger.
fn staging_bytes(m: i64, n: i64, k: i64, elem_bytes: i64) -> (u64, u64) {
    let bytes_a = ((m * k * elem_bytes) as u64).div_ceil(IMAGE_ALIGN) * IMAGE_ALIGN;
    let total = (bytes_a + (n * k * elem_bytes) as u64).max((m * n * 4) as u64);
    (bytes_a, total)
}

/// Why `wgmma` cannot lower this op (None: it applies).
pub(crate) fn wgmma_rejects(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> Option<String> {
    if w.target != "sm_90a" {
        return Some(format!("needs sm_90a (target {})", w.target));
    }
    let form = match form_for(w, op, c) {
        Ok(f) => f,
        Err(why) => return Some(why),
    };
    let ops = &w.m.ops[op].operands;
    let (a, b, acc) = (w.val_ty(ops[0]), w.val_ty(ops[1]), w.val_ty(ops[2]));
    if a.shape.len() != 2 {
        return Some("batched (rank-3) operands".into());
    }
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    if k % form.k != 0 {
        return Some(format!("K = {k} is not a multiple of the instruction's {}", form.k));
    }
    let t = match tiling(m, n, num_warps(&acc), form.int) {
        Ok(t) => t,
        Err(why) => return Some(why),
    };
    if t.acc_regs() > MAX_ACC_REGS {
        return Some(format!("{} accumulator registers per thread (at most {MAX_ACC_REGS})", t.acc_regs()));
    }
    let count = (k / form.k) * (t.rows / 64) * (t.cols / t.inst_n);
    if count > MAX_INSTRUCTIONS {
        return Some(format!("{count} instructions to unroll (at most {MAX_INSTRUCTIONS})"));
    }
    let (_, total) = staging_bytes(m, n, k, form.elem_bytes);
    let limit = crate::writer::max_smem_bytes(&w.target);
    if total > limit {
        return Some(format!("staging needs {total} bytes of shared memory ({} allows {limit})", w.target));
    }
    None
}

/// One wgmma op's form and tiling.
#[derive(Clone, Debug)]
pub(crate) struct WgmmaPlan {
    form: WgmmaForm,
    t: WarpgroupTiling,
    /// The mma's M, N and K.
    pub(crate) m: i64,
    pub(crate) n: i64,
    k: i64,
}

impl WgmmaPlan {
    /// Whether a tile held in `layout` is exactly this plan's accumulator fragments in
    /// register order: a fragment layout of the same warpgroups, all stacked along M.
    pub(crate) fn holds_fragments(&self, layout: Option<&Layout>) -> bool {
        let Some(Layout::Mma { warps_per_cta, .. }) = layout else { return false };
        let groups = warps_per_cta.first().map_or(0, |&w| w as i64 / 4);
        self.t.wn == 1 && warps_per_cta.get(1) == Some(&1) && groups * self.t.rows == self.m
    }

    /// Accumulator registers per thread, in fragment order: instruction (block, chunk) in
    /// row-major order, then the instruction's registers.
    pub(crate) fn fragment_count(&self) -> usize {
        self.t.acc_regs() as usize
    }

    /// The LLVM type of an accumulator register.
    pub(crate) fn acc_ty(&self) -> &'static str {
        self.form.acc_ty
    }
}

/// The plan for `op` when the `wgmma` variant applies to it.
pub(crate) fn wgmma_plan(w: &FuncWriter<'_>, op: OpId, c: &CudaTileOp) -> R<WgmmaPlan> {
    if let Some(why) = wgmma_rejects(w, op, c) {
        return Err(why);
    }
    let form = form_for(w, op, c)?;
    let ops = &w.m.ops[op].operands;
    let (at, bt, ct) = (w.val_ty(ops[0]), w.val_ty(ops[1]), w.val_ty(ops[2]));
    let (m, k, n) = (at.shape[0], at.shape[1], bt.shape[1]);
    let t = tiling(m, n, num_warps(&ct), form.int)?;
    Ok(WgmmaPlan { form, t, m, n, k })
}

/// The thread's place in a plan's tiling (i32 values).
struct Lanes {
    /// First row / column of the thread's warpgroup.
    row_base: String,
    col_base: String,
    /// Row and column of the thread's accumulator register 0 of instruction (0, 0).
    row0: String,
    col0: String,
}

impl FuncWriter<'_> {
    fn lanes(&mut self, t: &WarpgroupTiling) -> Lanes {
        let tid = self.thread_id();
        let lane = self.emit("wlane", format!("and i32 {tid}, 31"));
        let warp = self.emit("wwarp", format!("lshr i32 {tid}, 5"));
        let wq = self.emit("wq", format!("and i32 {warp}, 3"));
        let wgroup = self.emit("wgrp", format!("lshr i32 {warp}, 2"));
        let wg_m = self.emit("wgm", format!("udiv i32 {wgroup}, {}", t.wn));
        let wg_n = self.emit("wgn", format!("urem i32 {wgroup}, {}", t.wn));
        let row_base = self.emit("wrb", format!("mul i32 {wg_m}, {}", t.rows));
        let col_base = self.emit("wcb", format!("mul i32 {wg_n}, {}", t.cols));
        let group = self.emit("wgl", format!("lshr i32 {lane}, 2"));
        let tig = self.emit("wtig", format!("and i32 {lane}, 3"));
        let tig2 = self.emit("wtig", format!("shl i32 {tig}, 1"));
        let wq16 = self.emit("wq16", format!("shl i32 {wq}, 4"));
        let row0 = self.emit("wr0", format!("add i32 {row_base}, {wq16}"));
        let row0 = self.emit("wr0", format!("add i32 {row0}, {group}"));
        let col0 = self.emit("wc0", format!("add i32 {col_base}, {tig2}"));
        Lanes { row_base, col_base, row0, col0 }
    }

    /// Byte offsets, in a row-major M x N image of 4-byte elements, of the thread's
    /// accumulator registers in fragment order.
    fn fragment_offsets(&mut self, plan: &WgmmaPlan) -> Vec<String> {
        let coords = self.fragment_coords(plan);
        coords
            .into_iter()
            .map(|(r, col)| {
                let lin = self.linear(&[r, col], &[plan.m, plan.n]);
                self.emit("fo", format!("mul i32 {lin}, 4"))
            })
            .collect()
    }

    /// The (row, column) (i32) of each of the thread's fragment registers, in register
    /// order: register pairs (2k, 2k + 1) are adjacent columns of one row.
    pub(crate) fn fragment_coords(&mut self, plan: &WgmmaPlan) -> Vec<(String, String)> {
        let l = self.lanes(&plan.t);
        let mut out = Vec::new();
        for (dr, dc) in fragment_offsets_from_lane(plan) {
            let r = self.emit("fr", format!("add i32 {}, {dr}", l.row0));
            let col = self.emit("fc", format!("add i32 {}, {dc}", l.col0));
            out.push((r, col));
        }
        out
    }

    /// The accumulator tile `v` (its thread's elements) as the thread's fragment registers.
    /// A uniform literal (a splat constant) needs no trip through shared memory.
    pub(crate) fn tile_to_fragments(&mut self, plan: &WgmmaPlan, v: ValueId) -> R<Vec<String>> {
        let (m, n) = (plan.m, plan.n);
        self.scratch((m * n * 4) as u64);
        let elems = self.elems(v)?;
        let (acc_ty, cons) = (plan.form.acc_ty, plan.form.acc_cons);
        if let Some(lit) = elems.first().filter(|e0| !e0.starts_with('%') && elems.iter().all(|e| e == *e0)).cloned() {
            // Each register gets its own `mov` here, before `wgmma.fence`: a constant left
            // to LLVM is materialized next to the wgmma that reads it, and ptxas then
            // injects a warpgroup.arrive (advisory C7519).
            return Ok((0..plan.fragment_count())
                .map(|_| self.emit("wci", format!("call {acc_ty} asm sideeffect \"mov.b32 $0, $1;\", \"={cons},{cons}\"({acc_ty} {lit})")))
                .collect());
        }
        self.barrier();
        self.spill_to_smem(v, 0)?;
        self.barrier();
        let offs = self.fragment_offsets(plan);
        let mut frags = Vec::new();
        for off in offs {
            frags.push(self.smem_load(TileElem::Num(plan.form.acc), &off)?);
        }
        self.barrier();
        Ok(frags)
    }

    /// Binds `result` (a tile in its own layout) from the thread's fragment registers.
    pub(crate) fn fragments_to_tile(&mut self, plan: &WgmmaPlan, frags: &[String], result: ValueId) -> R<()> {
        let (m, n, elem) = (plan.m, plan.n, TileElem::Num(plan.form.acc));
        self.scratch((m * n * 4) as u64);
        self.barrier();
        let offs = self.fragment_offsets(plan);
        for (off, f) in offs.iter().zip(frags) {
            self.smem_store(elem, off, f)?;
        }
        self.barrier();
        let coords = self.result_coords(result);
        let mut out = Vec::new();
        for rc in coords {
            let lin = self.linear(&rc, &[m, n]);
            let off = self.emit("ro", format!("mul i32 {lin}, 4"));
            out.push(self.smem_load(elem, &off)?);
        }
        self.set_elems(result, out);
        Ok(())
    }

    /// `v` (of LLVM type `ty`, inline-asm constraint `cons`) through a side-effecting move,
    /// so that its register is written where this call stands.
    fn pinned(&mut self, ty: &str, cons: char, v: &str) -> String {
        self.emit("wpin", format!("call {ty} asm sideeffect \"mov.b32 $0, $1;\", \"={cons},{cons}\"({ty} {v})"))
    }

    /// The A operand `a` (an `[m, k]` 16-bit tile in the fragment layout) as wgmma RS-form
    /// registers: per 64-row block and k16 step, four i32 of two elements each, (row g,
    /// columns 2t..), (row g + 8, columns 2t..), (row g, columns 2t + 8..), (row g + 8,
    /// columns 2t + 8..): registers (j, e2) = (2s, 0), (2s, 1), (2s + 1, 0), (2s + 1, 1) of
    /// the fragment's register order (block, 8-column group j, row half e2, column e1).
    fn a_register_fragments(&mut self, a: ValueId, m: i64, k: i64) -> R<Vec<Vec<String>>> {
        let elems = self.elems(a)?;
        let lt = elem_llvm(self.val_ty(a).elem)?;
        let groups8 = k / 8;
        let blocks = (elems.len() as i64) / (groups8 * 4);
        if blocks * groups8 * 4 != elems.len() as i64 || m % 64 != 0 {
            return Err(format!("A operand has {} registers, not a fragment of {m}x{k}", elems.len()));
        }
        let mut out = Vec::new();
        for b in 0..blocks {
            for s in 0..k / 16 {
                let mut regs = Vec::new();
                for (j, e2) in [(2 * s, 0), (2 * s, 1), (2 * s + 1, 0), (2 * s + 1, 1)] {
                    let first = (((b * groups8 + j) * 2 + e2) * 2) as usize;
                    let v0 = self.emit("ap", format!("insertelement <2 x {lt}> poison, {lt} {}, i32 0", elems[first]));
                    let v1 = self.emit("ap", format!("insertelement <2 x {lt}> {v0}, {lt} {}, i32 1", elems[first + 1]));
                    regs.push(self.emit("ap", format!("bitcast <2 x {lt}> {v1} to i32")));
                }
                out.push(regs);
            }
        }
        Ok(out)
    }

    /// The byte offset of element (`row`, `kk`) in a K-major, unswizzled operand image at
    /// `base` whose rows hold `k` elements of `elem_bytes` (see the module documentation).
    fn core_matrix_offset(&mut self, base: u64, row: &str, kk: &str, k: i64, elem_bytes: i64) -> String {
        let group_stride = k * elem_bytes / 16 * CORE_MATRIX_BYTES;
        let group = self.emit("wg8", format!("lshr i32 {row}, 3"));
        let group = self.emit("wg8", format!("mul i32 {group}, {group_stride}"));
        let in_group = self.emit("wr8", format!("and i32 {row}, 7"));
        let in_group = self.emit("wr8", format!("shl i32 {in_group}, 4"));
        let kb = self.emit("wkb", format!("mul i32 {kk}, {elem_bytes}"));
        let chunk = self.emit("wkc", format!("lshr i32 {kb}, 4"));
        let chunk = self.emit("wkc", format!("mul i32 {chunk}, {CORE_MATRIX_BYTES}"));
        let within = self.emit("wkw", format!("and i32 {kb}, 15"));
        let off = self.emit("wo", format!("add i32 {group}, {chunk}"));
        let off = self.emit("wo", format!("add i32 {off}, {in_group}"));
        let off = self.emit("wo", format!("add i32 {off}, {within}"));
        if base == 0 {
            off
        } else {
            self.emit("wo", format!("add i32 {off}, {base}"))
        }
    }

    /// The byte offset of element (`kk`, `col`) in an MN-major, unswizzled B image at
    /// `base` with `k` rows: 16-byte runs of consecutive columns, 8 K rows of them forming
    /// one 128-byte core matrix; core matrices adjacent along K sit 128 bytes apart, runs of
    /// columns `k / 8 * 128` bytes apart.
    fn mn_major_offset(&mut self, base: u64, kk: &str, col: &str, k: i64, elem_bytes: i64) -> String {
        let run_stride = k / 8 * CORE_MATRIX_BYTES;
        let cb = self.emit("wnb", format!("mul i32 {col}, {elem_bytes}"));
        let run = self.emit("wnr", format!("lshr i32 {cb}, 4"));
        let run = self.emit("wnr", format!("mul i32 {run}, {run_stride}"));
        let within = self.emit("wnw", format!("and i32 {cb}, 15"));
        let kgroup = self.emit("wk8", format!("lshr i32 {kk}, 3"));
        let kgroup = self.emit("wk8", format!("mul i32 {kgroup}, {CORE_MATRIX_BYTES}"));
        let krow = self.emit("wkr", format!("and i32 {kk}, 7"));
        let krow = self.emit("wkr", format!("shl i32 {krow}, 4"));
        let off = self.emit("wo", format!("add i32 {run}, {kgroup}"));
        let off = self.emit("wo", format!("add i32 {off}, {krow}"));
        let off = self.emit("wo", format!("add i32 {off}, {within}"));
        self.emit("wo", format!("add i32 {off}, {base}"))
    }

    /// A matrix descriptor for the operand image starting at shared address `start` (i32,
    /// bytes) with geometry `g`.
    fn matrix_descriptor(&mut self, start: &str, g: &Geometry) -> String {
        let lo = self.emit("dlo", format!("lshr i32 {start}, 4"));
        let lo = self.emit("dlo", format!("or i32 {lo}, {}", (g.lbo >> 4) << 16));
        let hi = (g.sbo >> 4) | ((g.mode as i64) << 30);
        self.emit("desc", format!("call i64 asm \"mov.b64 $0, {{$1, $2}};\", \"=l,r,r\"(i32 {lo}, i32 {hi})"))
    }

    /// Lowers `op` with `wgmma.mma_async` (see the module documentation). An accumulator
    /// a loop carries in fragment registers ([`Self::fragment_carries`]) enters and leaves
    /// as fragments.
    pub(crate) fn wgmma(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let plan = wgmma_plan(self, op, c)?;
        let (form, t, m, n, k) = (&plan.form, &plan.t, plan.m, plan.n, plan.k);
        let data = self.m.ops[op].clone();
        let (a, b, acc) = (data.operands[0], data.operands[1], data.operands[2]);
        let (eb, acc_ty) = (form.elem_bytes, form.acc_ty);
        let (bytes_a, total) = staging_bytes(m, n, k, eb);
        // A ring's stages hold the operands; otherwise they are staged in the scratch.
        let pipelined = self.tma_pipeline_loops.get(&op).cloned();
        if pipelined.is_none() {
            self.scratch(total);
        }
        let (blocks, chunks, per_inst) = (t.rows / 64, t.cols / t.inst_n, t.inst_n / 2);

        // 1. The accumulator as fragments (a fragment-layout tile already is).
        let acc_held = plan.holds_fragments(self.val_ty(acc).layout.as_ref());
        let mut accs =
            if self.fragment_values.contains(&acc) || acc_held { self.elems(acc)? } else { self.tile_to_fragments(&plan, acc)? };
        // A 16-bit A in the fragment layout is read from registers (wgmma's RS form): its
        // fragment for one k16 step is the accumulator fragment of those 16 columns.
        let a_in_registers = eb == 2 && form.k == 16 && plan.holds_fragments(self.val_ty(a).layout.as_ref());

        // 2. A K-major, B MN-major when the form can read it so, else K-major: copied by TMA
        //    into swizzled images, by cp.async, or stored from registers (vector stores of
        //    each thread's contiguous runs); then made visible to the async proxy.
        let direct_a = self.direct_loads.get(&a).copied();
        let direct_b = self.direct_loads.get(&b).copied();
        let tma_a = direct_a.filter(|d| d.swizzle > 0);
        let tma_b = direct_b.filter(|d| d.swizzle > 0);
        // A ring loop's copies are issued and waited for by the loop's schedule.
        let mut stage_offset = None;
        if let Some(p) = &pipelined {
            // The stages live past every op's scratch (other ops of the body use the scratch
            // while later stages' copies fly): placed when the function is done.
            stage_offset = Some(self.tma_pipeline_wait(p));
        }
        if pipelined.is_none() && (tma_a.is_some() || tma_b.is_some()) {
            // The previous generic-proxy accesses come before the TMA: reads of this shared
            // buffer, and stores to global memory the copies may read (all state spaces).
            self.intrinsic_void("llvm.nvvm.fence.proxy.async", &[]);
        }
        if pipelined.is_none() {
            self.barrier();
        }
        let mut tma_wait = None;
        if pipelined.is_none() && (tma_a.is_some() || tma_b.is_some()) {
            let threads = 32 * num_warps(&self.val_ty(acc));
            let mbar = self.mbarrier(threads);
            let bytes = tma_a.map_or(0, |_| m * k * eb) + tma_b.map_or(0, |_| k * n * eb);
            let tid = self.thread_id();
            let issuer = self.emit("iss", format!("icmp eq i32 {tid}, 0"));
            let state = self.mbarrier_arrive(&mbar, &issuer, bytes);
            // Tile coordinates are computed (and cached) before the branch, in a block that
            // dominates every later use of them.
            let mut coords = Vec::new();
            for d in [tma_a, tma_b].into_iter().flatten() {
                coords.push((d, self.tile_index_i32(d.load)?));
            }
            let (yes, join) = (self.new_label("tma"), self.new_label("tmaj"));
            self.line(&format!("br i1 {issuer}, label {yes}, label {join}"));
            self.label(&yes);
            for (d, index) in coords {
                self.tma_operand(&plan, d, &index, bytes_a, &mbar, None)?;
            }
            self.line(&format!("br label {join}"));
            self.label(&join);
            tma_wait = Some((mbar, state));
        }
        // Vectors of up to 16 bytes along `dim`, the dimension the shared-memory image keeps
        // contiguous, when the operand's layout holds a run along it (its fastest dimension).
        let vector = |t: &ValTy, dim: usize| match &t.layout {
            Some(Layout::Blocked { size_per_thread, order, .. }) if order.first() == Some(&(dim as u32)) => {
                (size_per_thread[dim] as i64).min(16 / eb).max(1) as usize
            }
            _ => 1,
        };
        // A 16-bit B staged from registers that hold it K-fastest (a transposed view's load
        // under `tileas-assign-layouts`) is written K-major, in vectors along K, and read
        // untransposed; otherwise 16-bit B images are MN-major.
        let b_k_fastest = matches!(&self.val_ty(b).layout, Some(Layout::Blocked { order, .. }) if order.first() == Some(&0));
        let b_mn_major = form.b_mn_major && !(direct_b.is_none() && b_k_fastest);
        // A [M, K] and an MN-major B [K, N] are contiguous along dimension 1; a K-major B along 0.
        let (va, vb) = (vector(&self.val_ty(a), 1), vector(&self.val_ty(b), if b_mn_major { 1 } else { 0 }));
        let mut copies = false;
        match direct_a {
            _ if a_in_registers => {}
            Some(d) if d.swizzle > 0 => {}
            Some(d) => {
                self.copy_tile_async(&plan, d.load, d.image, bytes_a)?;
                copies = true;
            }
            None => self.spill_to_smem_vectors(a, 0, va, &mut |w, rc| w.core_matrix_offset(0, &rc[0], &rc[1], k, eb))?,
        }
        match direct_b {
            Some(d) if d.swizzle > 0 => {}
            Some(d) => {
                self.copy_tile_async(&plan, d.load, d.image, bytes_a)?;
                copies = true;
            }
            None if b_mn_major => {
                self.spill_to_smem_vectors(b, 0, vb, &mut |w, kc| w.mn_major_offset(bytes_a, &kc[0], &kc[1], k, eb))?
            }
            None => self.spill_to_smem_vectors(b, 0, vb, &mut |w, kc| w.core_matrix_offset(bytes_a, &kc[1], &kc[0], k, eb))?,
        }
        if copies {
            self.intrinsic_void("llvm.nvvm.cp.async.commit.group", &[]);
            self.intrinsic_void("llvm.nvvm.cp.async.wait.group", &[("i32", "0")]);
        }
        if pipelined.is_none() {
            // Operands written through the generic proxy (registers, cp.async) before the
            // tensor core reads them; a ring's stages are only written by TMA and waited for
            // on their mbarriers: no CTA barrier in its loop.
            self.intrinsic_void("llvm.nvvm.fence.proxy.async.shared_cta", &[]);
            self.barrier();
        }
        if let Some((mbar, state)) = tma_wait {
            self.mbarrier_wait(&mbar, &state);
        }

        // 3. The unrolled K loop. Each operand's descriptors: its image's first byte for the
        //    warpgroup, the offset of each instruction's rows / columns and K step, and the
        //    geometry.
        let l = self.lanes(t);
        let smem = self.smem_name.clone();
        let base = self.emit("wsb", format!("ptrtoint ptr addrspace(3) {smem} to i32"));
        let base = match &stage_offset {
            Some(off) => self.emit("wsb", format!("add i32 {base}, {off}")),
            None => base,
        };
        let kinst_bytes = form.k * eb;
        let (a_start, a_geo, a_block, a_step): (String, Geometry, i64, Box<dyn Fn(i64) -> i64>) = match tma_a {
            Some(d) => {
                let sw = d.swizzle as i64;
                let rows = self.emit("wa0", format!("mul i32 {}, {sw}", l.row_base));
                let start = self.emit("wa0", format!("add i32 {base}, {rows}"));
                let geo = Geometry { lbo: 16, sbo: 8 * sw, mode: swizzle_mode(d.swizzle) };
                (start, geo, 64 * sw, Box::new(move |step| (step * kinst_bytes / sw) * m * sw + (step * kinst_bytes) % sw))
            }
            None => {
                let stride = k * eb / 16 * CORE_MATRIX_BYTES;
                let rows = self.emit("wa0", format!("lshr i32 {}, 3", l.row_base));
                let rows = self.emit("wa0", format!("mul i32 {rows}, {stride}"));
                let start = self.emit("wa0", format!("add i32 {base}, {rows}"));
                let geo = Geometry { lbo: CORE_MATRIX_BYTES, sbo: stride, mode: 0 };
                (start, geo, 8 * stride, Box::new(move |step| step * kinst_bytes / 16 * CORE_MATRIX_BYTES))
            }
        };
        // B: per 8 columns (no swizzle) or per column byte run of the swizzle span; a K-major
        // swizzled image (a transposed source) like A's, per N row.
        let b_kmajor_tma = tma_b.filter(|d| d.image == OperandImage::KMajorB);
        let (b_geo, b_col_unit, b_col_stride, b_step): (Geometry, i64, i64, Box<dyn Fn(i64) -> i64>) = match tma_b {
            Some(d) if d.image == OperandImage::KMajorB => {
                let sw = d.swizzle as i64;
                let geo = Geometry { lbo: 16, sbo: 8 * sw, mode: swizzle_mode(d.swizzle) };
                (geo, 1, sw, Box::new(move |step| (step * kinst_bytes / sw) * n * sw + (step * kinst_bytes) % sw))
            }
            Some(d) => {
                let sw = d.swizzle as i64;
                let geo = Geometry { lbo: k * sw, sbo: 8 * sw, mode: swizzle_mode(d.swizzle) };
                (geo, sw / eb, k * sw, Box::new(move |step| step * form.k * sw))
            }
            None if b_mn_major => {
                let run = k / 8 * CORE_MATRIX_BYTES;
                (Geometry { lbo: CORE_MATRIX_BYTES, sbo: run, mode: 0 }, 8, run, Box::new(move |step| step * form.k / 8 * CORE_MATRIX_BYTES))
            }
            None => {
                let stride = k * eb / 16 * CORE_MATRIX_BYTES;
                (Geometry { lbo: CORE_MATRIX_BYTES, sbo: stride, mode: 0 }, 8, stride, Box::new(move |step| step * kinst_bytes / 16 * CORE_MATRIX_BYTES))
            }
        };
        // 16-bit forms say how B is read: MN-major (transposed, 1) unless its image is K-major.
        let tail = if form.b_mn_major && (b_kmajor_tma.is_some() || (tma_b.is_none() && !b_mn_major)) { ", 1, 1, 0, 0" } else { form.tail };
        let b_cols = self.emit("wb0", format!("udiv i32 {}, {b_col_unit}", l.col_base));
        let b_cols = self.emit("wb0", format!("mul i32 {b_cols}, {b_col_stride}"));
        let b_start = self.emit("wb0", format!("add i32 {base}, {b_cols}"));
        let b_start = self.emit("wb0", format!("add i32 {b_start}, {bytes_a}"));
        let outs: Vec<String> = (0..per_inst).map(|_| format!("={}", form.acc_cons)).collect();
        let tied: Vec<String> = (0..per_inst).map(|i| i.to_string()).collect();
        let dregs: Vec<String> = (0..per_inst).map(|i| format!("${i}")).collect();
        // Operands after D: A (a descriptor, or four registers), B's descriptor, scale-d.
        let (a_operand, a_cons, a_count) = if a_in_registers {
            let r: Vec<String> = (0..4).map(|i| format!("${}", per_inst + i)).collect();
            (format!("{{{}}}", r.join(", ")), "r,r,r,r", 4)
        } else {
            (format!("${per_inst}"), "l", 1)
        };
        // The RS form has no transpose-A immediate.
        let tail = if a_in_registers { tail.replacen(", 0,", ",", 1) } else { tail.to_string() };
        let constraints = format!("{},{a_cons},l,r,{},~{{memory}}", outs.join(","), tied.join(","));
        let asm = format!(
            "{{\\0A\\09.reg .pred p;\\0A\\09setp.ne.b32 p, ${}, 0;\\0A\\09wgmma.mma_async.sync.aligned.m64n{}k{}{} {{{}}}, {a_operand}, ${}, p{};\\0A\\09}}",
            per_inst + a_count + 1,
            t.inst_n,
            form.k,
            form.types,
            dregs.join(", "),
            per_inst + a_count,
            tail
        );
        let mut a_frags = if a_in_registers { self.a_register_fragments(a, m, k)? } else { Vec::new() };
        // Registers a wgmma reads must be written before its `wgmma.fence` (PTX ISA): the
        // accumulators of a fragment-layout tile (computed by ordinary instructions, or
        // literals) and the A fragments are pinned there by side-effecting moves, which LLVM
        // keeps in order with the fence (left alone, it sinks them next to their wgmma).
        if acc_held && !self.fragment_values.contains(&acc) {
            accs = accs.iter().map(|v| self.pinned(acc_ty, form.acc_cons, v)).collect();
        }
        for regs in a_frags.iter_mut() {
            *regs = regs.iter().map(|v| self.pinned("i32", 'r', v)).collect();
        }
        let ret = format!("{{ {} }}", vec![acc_ty; per_inst as usize].join(", "));
        self.intrinsic_void("llvm.nvvm.wgmma.fence.sync.aligned", &[]);
        for step in 0..k / form.k {
            for block in 0..blocks {
                let a_args: Vec<String> = if a_in_registers {
                    a_frags[(block * (k / 16) + step) as usize].iter().map(|r| format!("i32 {r}")).collect()
                } else {
                    let a_off = block * a_block + a_step(step);
                    let a_addr = self.emit("wad", format!("add i32 {a_start}, {a_off}"));
                    vec![format!("i64 {}", self.matrix_descriptor(&a_addr, &a_geo))]
                };
                for chunk in 0..chunks {
                    let b_off = chunk * t.inst_n / b_col_unit * b_col_stride + b_step(step);
                    let b_addr = self.emit("wbd", format!("add i32 {b_start}, {b_off}"));
                    let b_desc = self.matrix_descriptor(&b_addr, &b_geo);
                    let first = ((block * chunks + chunk) * per_inst) as usize;
                    let mut args = a_args.clone();
                    args.extend([format!("i64 {b_desc}"), "i32 1".to_string()]);
                    args.extend(accs[first..first + per_inst as usize].iter().map(|v| format!("{acc_ty} {v}")));
                    let d = self.emit("wgmma", format!("call {ret} asm sideeffect \"{asm}\", \"{constraints}\"({})", args.join(", ")));
                    for i in 0..per_inst as usize {
                        accs[first + i] = self.emit("wd", format!("extractvalue {ret} {d}, {i}"));
                    }
                }
            }
        }
        self.intrinsic_void("llvm.nvvm.wgmma.commit_group.sync.aligned", &[]);
        // A result held in the fragment layout is read by the ops after the mma: its group
        // must be complete (only a loop-carried chain of mmas may leave it in flight).
        let result = data.results[0];
        let result_held = !self.fragment_mmas.contains(&op) && plan.holds_fragments(self.val_ty(result).layout.as_ref());
        if result_held || a_in_registers {
            // The ops after the mma read its accumulators: LLVM sees them defined by the
            // wait, so no read moves above it. A fragments read from registers are read
            // asynchronously too: passed through the wait, they stay live (their registers
            // unused by anything else) until the group retires.
            let kept: Vec<String> = a_frags.iter().flatten().cloned().collect();
            accs = self.wgmma_wait_keeping(0, &plan, &accs, &kept);
            if let Some(p) = &pipelined {
                self.tma_pipeline_refill(p, &plan)?;
            }
        } else if let Some(p) = &pipelined {
            // This group stays in flight (the loop carries its accumulators straight into the
            // next mma; the loop's exit waits for it); the previous one must be done before
            // its stage is refilled.
            self.intrinsic_void("llvm.nvvm.wgmma.wait_group.sync.aligned", &[("i64", "1")]);
            self.tma_pipeline_refill(p, &plan)?;
        } else {
            self.intrinsic_void("llvm.nvvm.wgmma.wait_group.sync.aligned", &[("i64", "0")]);
        }

        // 4. The result: fragments the loop carries on, or the result's own layout.
        if result_held {
            self.set_elems(result, accs);
            Ok(())
        } else if self.fragment_mmas.contains(&op) {
            self.set_elems(result, accs);
            self.fragment_values.insert(result);
            Ok(())
        } else {
            self.fragments_to_tile(&plan, &accs, result)
        }
    }

    /// For each iter value of the `for` op `op`: the plan of the wgmma whose accumulator it
    /// is, when the loop can carry it as fragment registers: its block argument is used
    /// only as the accumulator of an mma in the body, that mma's result only by the body's
    /// final `continue` at the same position, the wgmma variant lowers that mma, and the body
    /// has no other exit that would carry a tile in its own layout. The accumulator then
    /// crosses shared memory once before the loop and once after it, not every iteration.
    pub(crate) fn fragment_carries(&self, op: OpId) -> Vec<Option<(WgmmaPlan, OpId)>> {
        let m = self.m;
        let num_iter = m.ops[op].operands.len().saturating_sub(3);
        let mut out: Vec<Option<(WgmmaPlan, OpId)>> = (0..num_iter).map(|_| None).collect();
        let Some(body) = m.entry_block(op, 0) else { return out };
        let ops = &m.blocks[body].ops;
        let Some(&term) = ops.last() else { return out };
        if !matches!(m.ops[term].kind.ct(), Some(CtOp::Yield | CtOp::Continue)) || ops.iter().any(|&o| o != term && has_loop_exit(m, o)) {
            return out;
        }
        let uses = m.use_counts();
        let args = &m.blocks[body].args;
        for (i, slot) in out.iter_mut().enumerate() {
            let Some(&arg) = args.get(i + 1) else { continue };
            // A fragment-layout value already is carried in the fragment registers.
            if uses.get(&arg) != Some(&1) || matches!(self.val_ty(arg).layout, Some(Layout::Mma { .. })) {
                continue;
            }
            // The accumulator may first be scaled by a row vector (flash attention's rescale).
            let acc_in = match self.fragment_row_scale(body, arg, &uses) {
                Some(scale) => m.ops[scale.mul].results[0],
                None => arg,
            };
            let mma = ops.iter().copied().find(|&o| {
                matches!(m.ops[o].kind.ct(), Some(CtOp::MmaF | CtOp::MmaI)) && m.ops[o].operands.get(2) == Some(&acc_in)
            });
            let Some(mma) = mma else { continue };
            let result = m.ops[mma].results[0];
            if uses.get(&result) != Some(&1) || m.ops[term].operands.get(i) != Some(&result) {
                continue;
            }
            let OpKind::CudaTile(c) = &m.ops[mma].kind else { continue };
            if crate::dispatch::forced(c).is_some_and(|f| f != "wgmma") {
                continue;
            }
            if let Ok(plan) = wgmma_plan(self, mma, c) {
                *slot = Some((plan, mma));
            }
        }
        out
    }
}

/// The (row, column) of each of a thread's accumulator fragment registers, in register
/// order, relative to the thread's first (`Lanes::row0`, `Lanes::col0`): per 64-row block
/// and instruction-wide column chunk, register i is row 8·((i % 4) / 2), column
/// 8·(i / 4) + i % 2 (register pairs are adjacent columns of one row).
fn fragment_offsets_from_lane(plan: &WgmmaPlan) -> Vec<(i64, i64)> {
    let (blocks, chunks, per_inst) = (plan.t.rows / 64, plan.t.cols / plan.t.inst_n, plan.t.inst_n / 2);
    let mut out = Vec::with_capacity((blocks * chunks * per_inst) as usize);
    for block in 0..blocks {
        for chunk in 0..chunks {
            for i in 0..per_inst {
                let (j, e) = (i / 4, i % 4);
                out.push((block * 64 + 8 * (e / 2), chunk * plan.t.inst_n + 8 * j + e % 2));
            }
        }
    }
    out
}

/// A carried accumulator scaled by a row vector before its mma: `mul` computes
/// `acc * broadcast(source)` (either operand order), `source` is [M, 1], and `broadcast`
/// is the op making the [M, N] factor.
#[derive(Clone, Debug)]
pub(crate) struct RowScale {
    pub(crate) mul: OpId,
    pub(crate) source: ValueId,
    pub(crate) broadcast: OpId,
    /// Whether the accumulator is the multiplication's first operand.
    pub(crate) acc_first: bool,
}

impl FuncWriter<'_> {
    /// The row scale applied to the carried accumulator `arg` (a block argument of the loop
    /// body `body`, used once): a float `mulf` in `body` (cuda_tile's or nv_tileaa's) of
    /// `arg` and a `broadcast` of an [M, 1] f32 tile, whose result is used once.
    pub(crate) fn fragment_row_scale(
        &self,
        body: tileir_ir::BlockId,
        arg: ValueId,
        uses: &HashMap<ValueId, usize>,
    ) -> Option<RowScale> {
        let m = self.m;
        let mul = m.blocks[body].ops.iter().copied().find(|&o| m.ops[o].operands.contains(&arg))?;
        let is_mul = match &m.ops[mul].kind {
            OpKind::CudaTile(c) => c.op == CtOp::MulF,
            OpKind::TileAa(tileir_ir::TileAaOp::MulF(_)) => true,
            _ => false,
        };
        let operands = &m.ops[mul].operands;
        if !is_mul || operands.len() != 2 || uses.get(&m.ops[mul].results[0]) != Some(&1) {
            return None;
        }
        let acc_first = operands[0] == arg;
        let factor = if acc_first { operands[1] } else { operands[0] };
        if factor == arg {
            return None;
        }
        let broadcast = m.defining_op(factor)?;
        if m.ops[broadcast].kind.ct() != Some(CtOp::Broadcast) {
            return None;
        }
        let source = *m.ops[broadcast].operands.first()?;
        let (st, at) = (self.val_ty(source), self.val_ty(arg));
        let rows_match = st.shape.len() == 2 && at.shape.len() == 2 && st.shape[1] == 1 && st.shape[0] == at.shape[0];
        (rows_match && st.num() == Some(NumType::F32) && at.num() == Some(NumType::F32))
            .then_some(RowScale { mul, source, broadcast, acc_first })
    }

    /// Lowers a [`RowScale`]'s multiplication on fragment registers: the [M, 1] factor
    /// crosses shared memory (M values, not the M x N accumulator), each thread reads the
    /// factors of its fragment rows, and each register is multiplied by its row's factor
    /// with the op's own rounding.
    pub(crate) fn scale_fragments(&mut self, op: OpId, c: &CudaTileOp, scale: &RowScale, plan: &WgmmaPlan) -> R<()> {
        let data = self.m.ops[op].clone();
        let acc = data.operands[if scale.acc_first { 0 } else { 1 }];
        // In a TMA ring the previous iteration's wgmma may still be writing the fragments
        // (its loop waits with depth 1): they are complete only after a wait for all groups.
        let frags = self.elems(acc)?;
        let frags = self.wgmma_wait_with(0, plan, &frags);
        let st = self.val_ty(scale.source);
        self.scratch((st.shape[0] * 4) as u64);
        self.barrier();
        self.spill_to_smem(scale.source, 0)?;
        self.barrier();
        let l = self.lanes(&plan.t);
        // The factor of each of the thread's fragment rows, read once per row.
        let positions = fragment_offsets_from_lane(plan);
        let mut factors = std::collections::BTreeMap::new();
        for &(dr, _) in &positions {
            if let std::collections::btree_map::Entry::Vacant(slot) = factors.entry(dr) {
                let row = self.emit("rsr", format!("add i32 {}, {dr}", l.row0));
                let off = self.emit("rso", format!("shl i32 {row}, 2"));
                slot.insert(self.smem_load(TileElem::Num(NumType::F32), &off)?);
            }
        }
        // The next user of the scratch buffer must not overwrite it while others read.
        self.barrier();
        let (in_t, rt) = (self.val_ty(acc), self.val_ty(data.results[0]));
        if frags.len() != positions.len() {
            return Err("fragment count mismatch".into());
        }
        let mut out = Vec::with_capacity(frags.len());
        for (x, (dr, _)) in frags.into_iter().zip(&positions) {
            let f = factors[dr].clone();
            let args = if scale.acc_first { [x, f] } else { [f, x] };
            out.push(self.scalar_ct(c, &in_t, &rt, &args)?);
        }
        let result = data.results[0];
        self.set_elems(result, out);
        self.fragment_values.insert(result);
        Ok(())
    }
}

/// The kernel parameter (an array's base pointer) memref `v` was made from, through
/// `make_memref` (None when it is not such a memref).
fn memref_root(m: &tileir_ir::Module, v: ValueId) -> Option<ValueId> {
    let d = m.defining_op(v)?;
    match &m.ops[d].kind {
        OpKind::TileAa(tileir_ir::TileAaOp::MakeMemref { .. }) => {
            let base = *m.ops[d].operands.first()?;
            // The base must be a kernel parameter (an argument of the function's entry block).
            (m.defining_op(base).is_none()).then_some(base)
        }
        _ => None,
    }
}

/// Whether `op` holds no `continue` or `break` in its regions.
fn has_no_exit(m: &tileir_ir::Module, op: OpId) -> bool {
    !has_loop_exit(m, op)
}

/// Whether `op` holds a `continue` or `break` in its regions (at any depth).
fn has_loop_exit(m: &tileir_ir::Module, op: OpId) -> bool {
    m.ops[op].regions.iter().any(|&r| {
        m.regions[r].blocks.iter().any(|&b| {
            m.blocks[b].ops.iter().any(|&o| matches!(m.ops[o].kind.ct(), Some(CtOp::Continue | CtOp::Break)) || has_loop_exit(m, o))
        })
    })
}

/// Which image of shared memory a directly copied operand fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OperandImage {
    /// A (M x K): K-major core matrices at byte 0.
    KMajorA,
    /// B (K x N): MN-major runs of columns after A.
    MnMajorB,
    /// B (K x N) loaded through a transposed view of an N x K row-major array
    /// (`ct.load(..., order=(1, 0))`): K-major rows of N after A, like A's image (by TMA
    /// only); the form every input type can read (fp8 and int8 have no MN-major B).
    KMajorB,
}

/// A tiled load a wgmma copies into shared memory itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DirectLoad {
    pub(crate) load: OpId,
    /// The ops between the load and the mma, lowered by the copy too: a reshape dropping
    /// the tile's leading unit dimensions (a batched load), a same-width bitcast (a uint8
    /// view read as fp8).
    pub(crate) via: [Option<OpId>; 2],
    /// The mma operand's element type (what the tensor map names).
    pub(crate) elem: NumType,
    pub(crate) image: OperandImage,
    /// The TMA swizzle span in bytes (32, 64 or 128), or 0: `cp.async` into the
    /// unswizzled image.
    pub(crate) swizzle: u32,
}

/// The widest swizzle span (128, 64 or 32 bytes) dividing every one of `spans` bytes.
fn swizzle_dividing(spans: &[i64]) -> u32 {
    [128, 64, 32].into_iter().find(|&s| spans.iter().all(|&b| b % s as i64 == 0)).unwrap_or(0)
}

/// Whether `op` may write memory: a store, an atomic, a print, an op of another dialect
/// or of an unlisted nv_tileaa / nv_tileas kind, or one holding any of these in its regions.
fn may_write(m: &tileir_ir::Module, o: OpId) -> bool {
    let op = &m.ops[o];
    if op.regions.iter().any(|&r| m.regions[r].blocks.iter().any(|&b| m.blocks[b].ops.iter().any(|&i| may_write(m, i)))) {
        return true;
    }
    match &op.kind {
        OpKind::TileAs(tileir_ir::TileAsOp::TiledLoad { .. }) => false,
        OpKind::TileAa(k) => !matches!(
            k,
            tileir_ir::TileAaOp::GetProgramId { .. }
                | tileir_ir::TileAaOp::GetNumPrograms { .. }
                | tileir_ir::TileAaOp::CreateMemToken
                | tileir_ir::TileAaOp::JoinMemToken
                | tileir_ir::TileAaOp::MakeMemref { .. }
                | tileir_ir::TileAaOp::AddF(_)
                | tileir_ir::TileAaOp::SubF(_)
                | tileir_ir::TileAaOp::MulF(_)
                | tileir_ir::TileAaOp::GetGlobal { .. }
                | tileir_ir::TileAaOp::TiledLoad(_)
        ),
        OpKind::CudaTile(c) => {
            let name = c.op.mnemonic();
            name.contains("store") || name.contains("atomic") || name.contains("print") || name.contains("assert")
        }
        _ => true,
    }
}

/// Whether `op` may read or write memory: it may write ([`may_write`]), or it (or an op in
/// its regions) loads.
pub(crate) fn touches_memory(m: &tileir_ir::Module, o: OpId) -> bool {
    let op = &m.ops[o];
    if matches!(op.kind, OpKind::TileAa(tileir_ir::TileAaOp::Return)) {
        return false;
    }
    let loads = match &op.kind {
        OpKind::TileAs(tileir_ir::TileAsOp::TiledLoad { .. }) | OpKind::TileAa(tileir_ir::TileAaOp::TiledLoad(_)) => true,
        OpKind::CudaTile(c) => c.op.mnemonic().contains("load"),
        _ => false,
    };
    loads
        || may_write(m, o)
        || op.regions.iter().any(|&r| m.regions[r].blocks.iter().any(|&b| m.blocks[b].ops.iter().any(|&i| touches_memory(m, i))))
}

/// Whether any op strictly between `from` and `to` (in one block's op list) may write
/// memory.
fn writes_between(m: &tileir_ir::Module, ops: &[OpId], from: OpId, to: OpId) -> bool {
    let (Some(i), Some(j)) = (ops.iter().position(|&o| o == from), ops.iter().position(|&o| o == to)) else { return true };
    ops[i + 1..j].iter().any(|&o| may_write(m, o))
}

impl FuncWriter<'_> {
    /// The tiled loads (by their tile result) that feed a wgmma operand straight into
    /// shared memory with `cp.async`, skipping registers: the load is weak, zero padded (or
    /// unpadded, which tileir reads as zero), of a 2-d memref with a unit inner stride
    /// whose base and rows are 16-byte aligned, in the
    /// mma's block with nothing between them that may write memory, and its tile has no
    /// other use. A is always copied K-major; B only when the form reads it MN-major (its
    /// K-major image would be a transpose).
    ///
    /// On top of that, when the memref's base, sizes and strides are kernel parameters (or
    /// constants) the launcher can encode a tensor map from, the copy is a TMA into an image
    /// swizzled by the widest span that divides the operand's rows (A: K bytes; B: each
    /// instruction's N bytes), whose boxes fit TMA's 256 rows.
    pub(crate) fn find_direct_loads(&self, func: OpId) -> HashMap<ValueId, DirectLoad> {
        let m = self.m;
        let mut out = HashMap::new();
        let uses = m.use_counts();
        for op in m.walk() {
            if !matches!(m.ops[op].kind.ct(), Some(CtOp::MmaF | CtOp::MmaI)) || !m.is_ancestor(func, op) {
                continue;
            }
            let OpKind::CudaTile(c) = &m.ops[op].kind else { continue };
            if crate::dispatch::forced(c).is_some_and(|f| f != "wgmma") {
                continue;
            }
            let Ok(plan) = wgmma_plan(self, op, c) else { continue };
            let Some(block) = m.ops[op].parent else { continue };
            for index in [0, 1] {
                let v = m.ops[op].operands[index];
                let Some(mut load) = m.defining_op(v) else { continue };
                // Through reshapes dropping unit dims (batched) and same-width bitcasts.
                let mut via = [None, None];
                let mut through = 0;
                while through < via.len() && m.is_bit_view(load) {
                    let src = m.ops[load].operands[0];
                    let (Some(def), true) = (m.defining_op(src), m.ops[load].parent == Some(block) && uses.get(&src) == Some(&1)) else {
                        break;
                    };
                    via[through] = Some(load);
                    through += 1;
                    load = def;
                }
                let OpKind::TileAs(tileir_ir::TileAsOp::TiledLoad { access, .. }) = &m.ops[load].kind else { continue };
                let memref_ty = m.types.get(m.value_type(m.ops[load].operands[0]));
                let Type::MemRef { strides, .. } = memref_ty else { continue };
                let rank = strides.len();
                // B's view transposed (unit stride on its K dimension, the tile's second-to-last;
                // leading batch dimensions allowed): a K-major image.
                let transposed =
                    index == 1 && rank >= 2 && strides[rank - 2] == Dim::Static(1) && strides[rank - 1] != Dim::Static(1);
                let image = match (index, transposed) {
                    (0, _) => OperandImage::KMajorA,
                    (_, true) => OperandImage::KMajorB,
                    (_, false) if plan.form.b_mn_major => OperandImage::MnMajorB,
                    _ => continue,
                };
                // The memref's base is known 16-byte aligned, and so is each row: its stride
                // (static, or a dynamic operand of make_memref under `assume div_by`) is a
                // multiple of 16 bytes.
                let aligned = crate::tma::strides_16_byte_aligned(m, m.ops[load].operands[0], plan.form.elem_bytes);
                let eligible = aligned
                    && m.ops[load].parent == Some(block)
                    && uses.get(&v) == Some(&1)
                    && access.ordering == tileir_ir::MemoryOrdering::Weak
                    && matches!(access.padding, None | Some(tileir_ir::PaddingValue::Zero))
                    && access.origin_step.is_none()
                    && access.num_indices as usize == rank
                    && rank >= 2
                    && (transposed || strides.last() == Some(&Dim::Static(1)))
                    && !writes_between(m, &m.blocks[block].ops, load, op);
                if eligible {
                    let func_block = m.entry_block(func, 0);
                    let source = func_block.and_then(|fb| crate::tma::memref_source(m, fb, m.ops[load].operands[0]));
                    let Some(elem) = num(self.val_ty(v).elem) else { continue };
                    let elem_ok = crate::tma::tma_elem_name(elem).is_some();
                    let eb = plan.form.elem_bytes;
                    let (rows, spans) = match image {
                        OperandImage::KMajorA => (plan.m, vec![plan.k * eb]),
                        OperandImage::MnMajorB => (plan.k, vec![plan.t.inst_n * eb, plan.n * eb]),
                        OperandImage::KMajorB => (plan.n, vec![plan.k * eb]),
                    };
                    let swizzle = if source.is_some() && elem_ok && rows <= 256 { swizzle_dividing(&spans) } else { 0 };
                    // cp.async copies row-major 2-d tiles only: a batched or transposed tile
                    // goes by TMA or not at all.
                    if (rank > 2 || transposed) && swizzle == 0 {
                        continue;
                    }
                    out.insert(v, DirectLoad { load, via, elem, image, swizzle });
                }
            }
        }
        out
    }

    /// Issues the TMA copies of direct load `d` (a swizzled image: A in K slabs of the
    /// swizzle span, B in N slabs), counted on `mbar`; run by one thread.
    pub(crate) fn tma_operand(
        &mut self,
        plan: &WgmmaPlan,
        d: DirectLoad,
        index: &[String],
        bytes_a: u64,
        mbar: &str,
        buffer: Option<&str>,
    ) -> R<()> {
        let m = self.m;
        let data = m.ops[d.load].clone();
        let t = self.val_ty(data.results[0]);
        let rank = t.shape.len();
        let entry = self.entry_block.ok_or("no entry block")?;
        let (base, mut sizes, mut strides) =
            crate::tma::memref_source(m, entry, data.operands[0]).ok_or("the memref's parameters are not known to the launcher")?;
        // A transposed B: the map describes the (batched) N x K row-major array under the
        // view (its last two dimensions swapped back), and the copy's rows are N, its columns K.
        let mut index = index.to_vec();
        let mut shape = t.shape.clone();
        if d.image == OperandImage::KMajorB {
            sizes.swap(rank - 2, rank - 1);
            strides.swap(rank - 2, rank - 1);
            index.swap(rank - 2, rank - 1);
            shape.swap(rank - 2, rank - 1);
        }
        let (rows, cols, eb) = (shape[rank - 2], shape[rank - 1], plan.form.elem_bytes);
        let elem = crate::tma::tma_elem_name(d.elem).ok_or("no TMA element type")?;
        let sw = d.swizzle as i64;
        let box_cols = sw / eb;
        let spec = crate::tma::TensorMapSpec {
            base,
            sizes,
            strides,
            elem: elem.to_string(),
            // Leading (batch) dimensions of the tile are 1.
            box_dims: shape[..rank - 2].iter().map(|&d| d as u32).chain([rows as u32, box_cols as u32]).collect(),
            swizzle_bytes: d.swizzle,
        };
        let tmap = self.tensor_map_param(spec);
        let row0 = self.emit("trow", format!("mul i32 {}, {rows}", index[rank - 2]));
        let col0 = self.emit("tcol", format!("mul i32 {}, {cols}", index[rank - 1]));
        // TMA coordinates innermost first: column, row, then the batch indices (tile extent 1).
        let outer: Vec<String> = std::iter::once(row0).chain(index[..rank - 2].iter().rev().cloned()).collect();
        let smem = self.smem_name.clone();
        let sbase = self.emit("tsb", format!("ptrtoint ptr addrspace(3) {smem} to i32"));
        let sbase = match buffer {
            Some(b) => self.emit("tsb", format!("add i32 {sbase}, {b}")),
            None => sbase,
        };
        let image_base = match d.image {
            OperandImage::KMajorA => 0,
            OperandImage::MnMajorB | OperandImage::KMajorB => bytes_a as i64,
        };
        for slab in 0..cols / box_cols {
            let inner = self.emit("tin", format!("add i32 {col0}, {}", slab * box_cols));
            let dst = self.emit("tdst", format!("add i32 {sbase}, {}", image_base + slab * rows * sw));
            let coords: Vec<String> = std::iter::once(inner).chain(outer.iter().cloned()).collect();
            self.tma_load(&tmap, &dst, &coords, mbar);
        }
        Ok(())
    }

    /// Copies the tile of the deferred `load` into its shared-memory `image` of a wgmma with
    /// `plan`: 16-byte `cp.async` chunks spread over the CTA's threads, each zero-filled
    /// past the memref's end (`src-size` below 16), then waited for.
    pub(crate) fn copy_tile_async(&mut self, plan: &WgmmaPlan, load: OpId, image: OperandImage, bytes_a: u64) -> R<()> {
        let m = self.m;
        let data = m.ops[load].clone();
        let Some(Lowered::MemRef { base, sizes, strides }) = self.get(load, data.operands[0]) else {
            return Err("the load's memref was not lowered".into());
        };
        let mut index = Vec::new();
        for &v in &data.operands[1..3] {
            index.push(self.as_i64(load, v).ok_or("the load's tile index was not lowered")?);
        }
        let t = self.val_ty(data.results[0]);
        let (rows, cols, eb) = (t.shape[0], t.shape[1], plan.form.elem_bytes);
        let lt = crate::lower_ct::elem_llvm(t.elem)?;
        let per_chunk = 16 / eb;
        let chunks_per_row = cols / per_chunk;
        let total = rows * chunks_per_row;
        let threads = 32 * num_warps(&self.val_ty(m.ops[load].results[0])).max(1);
        let tid = self.thread_id();
        let decl = "declare void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3), ptr addrspace(1), i32)";
        self.declare(decl);
        self.for_each_thread_item(&tid, total, threads, &mut |w, c| {
            let row = w.emit("crow", format!("udiv i32 {c}, {chunks_per_row}"));
            let chunk = w.emit("cchk", format!("urem i32 {c}, {chunks_per_row}"));
            let col = w.emit("ccol", format!("mul i32 {chunk}, {per_chunk}"));
            // Global coordinates (i64) of the chunk's first element.
            let row64 = w.emit("cr64", format!("zext i32 {row} to i64"));
            let col64 = w.emit("cc64", format!("zext i32 {col} to i64"));
            let grow = w.emit("cgr", format!("mul i64 {}, {rows}", index[0]));
            let grow = w.emit("cgr", format!("add i64 {grow}, {row64}"));
            let gcol = w.emit("cgc", format!("mul i64 {}, {cols}", index[1]));
            let gcol = w.emit("cgc", format!("add i64 {gcol}, {col64}"));
            // Elements of the chunk inside the memref: 0 past its last row or column.
            let row_in = w.emit("cri", format!("icmp ult i64 {grow}, {}", sizes[0]));
            let left = w.emit("clf", format!("sub i64 {}, {gcol}", sizes[1]));
            let left = w.emit("clf", format!("call i64 @llvm.smax.i64(i64 {left}, i64 0)"));
            let left = w.emit("clf", format!("call i64 @llvm.smin.i64(i64 {left}, i64 {per_chunk})"));
            w.declare("declare i64 @llvm.smax.i64(i64, i64)");
            w.declare("declare i64 @llvm.smin.i64(i64, i64)");
            let left = w.emit("clf", format!("select i1 {row_in}, i64 {left}, i64 0"));
            let src_bytes = w.emit("csz", format!("mul i64 {left}, {eb}"));
            let src_bytes = w.emit("csz", format!("trunc i64 {src_bytes} to i32"));
            // A chunk with nothing to read keeps the memref's base address (no byte of it is
            // read), so no address past the allocation is ever formed.
            let lin = w.emit("cli", format!("mul i64 {grow}, {}", strides[0]));
            let lin = w.emit("cli", format!("add i64 {lin}, {gcol}"));
            let any = w.emit("cany", format!("icmp ne i64 {left}, 0"));
            let lin = w.emit("cli", format!("select i1 {any}, i64 {lin}, i64 0"));
            let src = w.emit("csrc", format!("getelementptr {lt}, ptr addrspace(1) {base}, i64 {lin}"));
            let off = match image {
                OperandImage::KMajorA => w.core_matrix_offset(0, &row, &col, cols, eb),
                OperandImage::MnMajorB => w.mn_major_offset(bytes_a, &row, &col, rows, eb),
                OperandImage::KMajorB => return Err("a transposed B is copied by TMA only".into()),
            };
            let dst = w.smem_ptr(&off);
            w.line(&format!("call void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3) {dst}, ptr addrspace(1) {src}, i32 {src_bytes})"));
            Ok(())
        })?;
        Ok(())
    }
}

/// Stands for the byte offset of the double-buffered loops' stage region (past the scratch
/// every other op uses) until the function's scratch size is known.
pub(crate) const STAGE_BASE: &str = "@@TILEIR_STAGE_BASE@@";

/// Where a pipelined load's tile coordinate comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum IndexSource {
    /// The loop's induction variable.
    InductionVariable,
    /// A value defined outside the loop.
    Invariant(ValueId),
    /// A special register (`ctaid.x`, …): a grid query inside the loop is invariant too.
    Special(&'static str),
    /// A value the loop body computes from values defined outside it, by scalar ops only
    /// (a tile index such as `t // tiles_n` written inside the K loop): the same in every
    /// iteration, so copies issued before the loop (or by the producer) compute it there
    /// too ([`FuncWriter::hoisted_slice`]).
    Hoisted(ValueId),
}

/// Stages of a ring whose loop does not ask for a depth (`tileir.num_stages`): as many as
/// fit in shared memory, up to this.
pub(crate) const DEFAULT_RING_STAGES: u32 = 4;
/// The deepest ring a loop may ask for.
const MAX_RING_STAGES: u32 = 8;

/// The text that stands for ring `ring`'s stage count S until the function's shared memory
/// is laid out (the count depends on what is left past the scratch).
pub(crate) fn ring_stages_token(ring: usize) -> String {
    format!("@@TILEIR_RING{ring}_STAGES@@")
}

/// The text that stands for ring `ring`'s lead, S - 1: how many iterations ahead it copies.
pub(crate) fn ring_lead_token(ring: usize) -> String {
    format!("@@TILEIR_RING{ring}_LEAD@@")
}

/// A ring's request, settled when the function is done: at most `requested` stages of
/// `stage_bytes` each, at least two.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TmaRing {
    pub(crate) requested: u32,
    pub(crate) stage_bytes: u64,
    /// Warps of the CTA: each releases a stage once its mma has read it.
    pub(crate) warps: i64,
}

/// A `for` loop whose carried wgmma reads both operands by TMA through a ring of S stages
/// in shared memory: the copies run S - 1 iterations ahead of the mma, and the mma of
/// iteration i is still in flight while iteration i + 1's waits for its stage.
pub(crate) struct TmaPipeline {
    /// The mma, its plan, and its two loads with their coordinate sources.
    pub(crate) mma: OpId,
    pub(crate) plan: WgmmaPlan,
    pub(crate) loads: Vec<(DirectLoad, Vec<IndexSource>)>,
    /// Bytes of one stage (A and B, 1024-aligned).
    pub(crate) stage_bytes: u64,
    /// Bytes of A's image within a stage.
    pub(crate) bytes_a: u64,
    /// The most stages the loop may get (2..=8).
    pub(crate) requested: u32,
    /// Warps of the CTA.
    pub(crate) warps: i64,
    /// Whether the ring runs warp-specialized: a producer warpgroup past the kernel's
    /// warps issues every copy, and the kernel's warps only wait for stages and release
    /// them. The op before which the producer splits off: the ring loop itself, or the
    /// persistent tile loop around it ([`FuncWriter::ws_split_point`]).
    pub(crate) split_at: Option<OpId>,
}

/// A warp-specialized ring inside a persistent tile loop (`outer`): the producer split off
/// before `outer` and runs its own copy of it; the ring (`ring` in `tma_rings`) is never
/// drained or re-initialized between tiles, its stages and phases counted over every
/// iteration of `inner` the kernel runs.
#[derive(Clone, Debug)]
pub(crate) struct PersistentRing {
    pub(crate) outer: OpId,
    pub(crate) inner: OpId,
    pub(crate) ring: usize,
}

/// The loop values a pipelined mma needs, once the loop is open.
#[derive(Clone, Debug)]
pub(crate) struct TmaPipelineLoop {
    pub(crate) iv: String,
    pub(crate) lb: String,
    pub(crate) ub: String,
    pub(crate) step: String,
    /// The LLVM type of the induction variable and the comparison that continues the loop.
    pub(crate) ilt: &'static str,
    pub(crate) cmp: &'static str,
    pub(crate) loads: Vec<(DirectLoad, Vec<IndexSource>)>,
    pub(crate) stage_bytes: u64,
    pub(crate) bytes_a: u64,
    /// Index of the ring in `FuncWriter::tma_rings`, its requested depth, and the CTA's
    /// warps (the arrivals that release a stage).
    pub(crate) ring: usize,
    pub(crate) requested: u32,
    pub(crate) warps: i64,
    /// Warp-specialized: the producer warpgroup's first thread (thread `32 * warps`)
    /// issues the copies; otherwise thread 0 does, between its own mmas.
    pub(crate) specialized: bool,
    /// In a persistent tile loop's ring: the i32 count of the ring's iterations in earlier
    /// tiles (stage and phase follow the kernel-wide count, not the tile's), and the i32
    /// trip count of this tile's.
    pub(crate) base: Option<String>,
    pub(crate) trips: Option<String>,
    /// The `for` op.
    pub(crate) loop_op: OpId,
}

/// Registers per thread a warp-specialized kernel's producer warpgroup keeps: enough for
/// its loop and the copies' coordinates (CUTLASS's producers keep 40 too).
const PRODUCER_REGISTERS: u32 = 40;
/// The most registers per thread consumers ask for (ptxas allocates at most 255).
const CONSUMER_REGISTERS_MAX: u32 = 240;
/// Threads of a warpgroup.
const WARPGROUP_THREADS: i64 = 128;
/// Registers per thread a consumer needs beyond its accumulators (descriptors, addresses,
/// loop state): an occupancy cap below accumulators + this keeps the ring unspecialized.
const ACCUMULATOR_HEADROOM: usize = 32;

/// The `setmaxnreg` counts of a warp-specialized kernel whose consumers are `warps` warps
/// (plus one producer warpgroup): (producer's decrease, consumers' increase). A kernel of
/// `T` threads starts at `maxnreg` registers per thread (the occupancy hint's cap) or else
/// min(256, 65536 / T), rounded down to a multiple of 8, and its CTA owns T times that. The
/// producer gives back all but [`PRODUCER_REGISTERS`], and the consumers share what the
/// CTA then has (an increase past it would wait forever). The increase is None when it
/// would not be one (one consumer warpgroup already starts at the maximum), the decrease
/// None when the cap is already that low.
pub(crate) fn register_split(warps: i64, maxnreg: Option<u32>) -> (Option<u32>, Option<u32>) {
    let threads = (32 * warps + WARPGROUP_THREADS) as u32;
    let mut at_launch = (65536 / threads / 8 * 8).min(256);
    if let Some(cap) = maxnreg {
        at_launch = at_launch.min(cap / 8 * 8);
    }
    let producer = PRODUCER_REGISTERS.min(at_launch);
    let pool = at_launch * threads - producer * WARPGROUP_THREADS as u32;
    let consumers = (pool / (32 * warps as u32) / 8 * 8).min(CONSUMER_REGISTERS_MAX);
    ((producer < at_launch).then_some(producer), (consumers > at_launch).then_some(consumers))
}

impl FuncWriter<'_> {
    /// The TMA ring of `for` op `op`, if its carried mma (`carries`) reads A and B by TMA
    /// from tiles whose coordinates are the induction variable or loop-invariant values,
    /// the loop does not ask for a single stage, and two stages fit in shared memory.
    pub(crate) fn plan_tma_pipeline(&self, op: OpId, carries: &[Option<(WgmmaPlan, OpId)>]) -> Option<TmaPipeline> {
        let m = self.m;
        let body = m.entry_block(op, 0)?;
        let iv = *m.blocks[body].args.first()?;
        let requested = match &m.ops[op].kind {
            OpKind::CudaTile(c) => match c.discardable.iter().find(|(k, _)| k == tileir_ir::NUM_STAGES_ATTR) {
                Some((_, tileir_ir::Attr::Int(n))) => (*n).clamp(1, i64::from(MAX_RING_STAGES)) as u32,
                _ => DEFAULT_RING_STAGES,
            },
            _ => DEFAULT_RING_STAGES,
        };
        // One ring per loop nest: the stage region and mbarriers are shared by the function's
        // rings, which must not be live at once (a persistent ring's producer keeps its ring
        // live until the kernel ends).
        if requested < 2 || self.ring_loop_depth > 0 || self.persistent_ring.as_ref().is_some_and(|pr| pr.inner != op) {
            return None;
        }
        // The copies of later iterations fly while this one's body runs: nothing in the
        // body may write memory they could read.
        if m.blocks[body].ops.iter().any(|&o| may_write(m, o) && !matches!(m.ops[o].kind.ct(), Some(CtOp::Continue | CtOp::Yield))) {
            return None;
        }
        let (_, mma) = carries.iter().flatten().next()?;
        let OpKind::CudaTile(c) = &m.ops[*mma].kind else { return None };
        let plan = wgmma_plan(self, *mma, c).ok()?;
        let mut loads = Vec::new();
        for &v in &m.ops[*mma].operands[..2] {
            let d = self.direct_loads.get(&v).copied().filter(|d| d.swizzle > 0)?;
            let OpKind::TileAs(tileir_ir::TileAsOp::TiledLoad { access, .. }) = &m.ops[d.load].kind else { return None };
            let indices = &m.ops[d.load].operands[1..1 + access.num_indices as usize];
            let mut sources = vec![IndexSource::InductionVariable; indices.len()];
            for (slot, &ix) in sources.iter_mut().zip(indices) {
                *slot = if ix == iv {
                    IndexSource::InductionVariable
                } else {
                    let def = m.defining_op(ix);
                    let inside = match def {
                        Some(def) => m.is_ancestor(op, def),
                        None => m.value_block(ix).and_then(|b| m.parent_op_of_block(b)).is_some_and(|p| m.is_ancestor(op, p)),
                    };
                    match def.map(|d| &m.ops[d].kind) {
                        _ if !inside => IndexSource::Invariant(ix),
                        Some(OpKind::TileAa(tileir_ir::TileAaOp::GetProgramId { dim })) => {
                            IndexSource::Special(["ctaid.x", "ctaid.y", "ctaid.z"][*dim as usize % 3])
                        }
                        Some(OpKind::TileAa(tileir_ir::TileAaOp::GetNumPrograms { dim })) => {
                            IndexSource::Special(["nctaid.x", "nctaid.y", "nctaid.z"][*dim as usize % 3])
                        }
                        _ if self.hoisted_slice(op, ix).is_some() => IndexSource::Hoisted(ix),
                        _ => return None,
                    }
                };
            }
            loads.push((d, sources));
        }
        let (bytes_a, total) = staging_bytes(plan.m, plan.n, plan.k, plan.form.elem_bytes);
        let stage_bytes = (bytes_a + (plan.k * plan.n * plan.form.elem_bytes) as u64).div_ceil(IMAGE_ALIGN) * IMAGE_ALIGN;
        // Two stages and the mbarriers' reserve must fit (the body's own scratch is known only
        // later: a ring that then does not fit is a located shared-memory error).
        if (2 * stage_bytes + 2048).max(total) > crate::writer::max_smem_bytes(&self.target) {
            return None;
        }
        let warps = num_warps(&self.val_ty(m.ops[*mma].operands[2]));
        // With a producer warpgroup the occupancy hint's cap covers 128 threads more: it
        // must still leave the consumers their accumulators and some working registers
        // (ptxas asks for 90 for a 64-register m64n128 accumulator), else no split.
        let cap_fits = self.occupancy_cap(warps).is_none_or(|cap| cap as usize >= plan.fragment_count() + ACCUMULATOR_HEADROOM);
        let split_at = match &self.persistent_ring {
            Some(pr) if pr.inner == op => Some(pr.outer),
            _ if cap_fits => self.ws_split_point(op, warps),
            _ => None,
        };
        Some(TmaPipeline { mma: *mma, plan, loads, stage_bytes, bytes_a, requested, warps, split_at })
    }

    /// The warp-specialized ring of persistent tile loop `outer`, if `outer` is where one
    /// splits off its producer: (the ring loop, its plan).
    pub(crate) fn persistent_ws_candidate(&self, outer: OpId) -> Option<(OpId, TmaPipeline)> {
        let m = self.m;
        if self.producer_warps.is_some() {
            return None;
        }
        let body = m.entry_block(outer, 0)?;
        let inner = m.blocks[body].ops.iter().copied().find(|&o| m.ops[o].kind.ct() == Some(CtOp::For))?;
        let p = self.plan_tma_pipeline(inner, &self.fragment_carries(inner))?;
        (p.split_at == Some(outer)).then_some((inner, p))
    }

    /// Where ring loop `op` (its mma spread over `warps` warps) splits off a producer
    /// warpgroup, if it may run warp-specialized: its loop asks for it
    /// (`tileir.warp_specialize`, stamped by materialize-async), the target has
    /// `setmaxnreg` (an `a` target, sm_90 on), the kernel has no producer yet, and the
    /// loop sits in the kernel's body (split before the loop) or in a persistent tile loop
    /// that does (split before that loop; [`Self::persistent_split`]), after nothing but
    /// register work. The producer warpgroup runs that code too (for the loop bounds and
    /// the copies' coordinates) and then only the loop's copies; it leaves before anything
    /// else, so code before the loop must be safe to run on threads past the kernel's own:
    /// scalars, tile constants, views, no memory access, no nested region.
    pub(crate) fn ws_split_point(&self, op: OpId, warps: i64) -> Option<OpId> {
        if self.warp_specializable(op, warps) {
            return Some(op);
        }
        let outer = self.m.parent_op(op)?;
        self.persistent_split(outer, op, warps).then_some(outer)
    }

    /// Whether ring loop `inner` may split off its producer before `outer`: a `for` in the
    /// kernel's body, after register work only, that carries no values but tokens (which
    /// order its stores from tile to tile and hold no registers), whose body runs
    /// register work, then `inner` (whose bounds are the same for every tile: the ring's
    /// count over tiles is tile index x trips), then anything (the consumers' epilogue),
    /// with no other region and no `continue` or `break` but the final one.
    fn persistent_split(&self, outer: OpId, inner: OpId, warps: i64) -> bool {
        let m = self.m;
        let carries_only_tokens = m.ops[outer].operands.iter().skip(3).all(|&v| self.is_token_value(v));
        if m.ops[outer].kind.ct() != Some(CtOp::For) || !carries_only_tokens || !self.ring_asks_for_agents(inner) {
            return false;
        }
        if !self.split_allowed(outer, warps) {
            return false;
        }
        let Some(body) = m.entry_block(outer, 0) else { return false };
        let ops = &m.blocks[body].ops;
        let Some(at) = ops.iter().position(|&o| o == inner) else { return false };
        let invariant = |v: ValueId| self.invariant_in(outer, v);
        // The producer copies later tiles' operands while the consumers still store this
        // tile's results: nothing they write may be an array the copies read (an in-place
        // update of A or B would otherwise be read stale). Every write must name its array.
        let read = self.ring_load_arrays(inner);
        if read.iter().any(Option::is_none) || !ops[at + 1..].iter().all(|&o| self.writes_only_other_arrays(o, &read)) {
            return false;
        }
        ops[..at].iter().all(|&o| self.registers_only(o))
            && m.ops[inner].operands[..3].iter().all(|&v| invariant(v))
            && ops[at + 1..].iter().all(|&o| m.ops[o].regions.is_empty() || has_no_exit(m, o))
            && ops[at + 1..ops.len().saturating_sub(1)].iter().all(|&o| !matches!(m.ops[o].kind.ct(), Some(CtOp::Continue | CtOp::Break)))
    }

    /// The kernel parameters (array base pointers) the mma operand loads of ring loop
    /// `inner` read from (None where a load's memref has no such root).
    fn ring_load_arrays(&self, inner: OpId) -> Vec<Option<ValueId>> {
        let m = self.m;
        let Some(body) = m.entry_block(inner, 0) else { return vec![None] };
        m.blocks[body]
            .ops
            .iter()
            .filter(|&&o| matches!(m.ops[o].kind, OpKind::TileAs(tileir_ir::TileAsOp::TiledLoad { .. })))
            .map(|&o| memref_root(m, m.ops[o].operands[0]))
            .collect()
    }

    /// Whether op `o` (and every op in its regions) writes, if at all, only through memrefs
    /// rooted at arrays other than `read` (an op that writes otherwise, or through a memref
    /// whose array is unknown, may write anything).
    fn writes_only_other_arrays(&self, o: OpId, read: &[Option<ValueId>]) -> bool {
        let m = self.m;
        if !may_write(m, o) {
            return true;
        }
        let nested_ok = m.ops[o].regions.iter().all(|&r| m.regions[r].blocks.iter().all(|&b| m.blocks[b].ops.iter().all(|&i| self.writes_only_other_arrays(i, read))));
        if !m.ops[o].regions.is_empty() {
            return nested_ok;
        }
        match &m.ops[o].kind {
            OpKind::TileAs(tileir_ir::TileAsOp::TiledStore { .. }) => {
                // Operands: memref, value, tile indices, token.
                let root = memref_root(m, m.ops[o].operands[0]);
                root.is_some() && !read.contains(&root)
            }
            _ => false,
        }
    }

    /// The ops of loop `op`'s body (in body order) that compute `v` from values defined
    /// outside the loop, if they are all region-free scalar work directly in the body (None
    /// otherwise: `v` varies per iteration, or computing it takes more than registers).
    pub(crate) fn hoisted_slice(&self, op: OpId, v: ValueId) -> Option<Vec<OpId>> {
        let m = self.m;
        let body = m.entry_block(op, 0)?;
        let mut slice = Vec::new();
        let mut stack = vec![v];
        while let Some(x) = stack.pop() {
            let Some(d) = m.defining_op(x) else {
                // A block argument of the loop (its induction variable or carried values)
                // varies; any other is from outside.
                if m.value_block(x).and_then(|b| m.parent_op_of_block(b)).is_some_and(|p| m.is_ancestor(op, p)) {
                    return None;
                }
                continue;
            };
            if !m.is_ancestor(op, d) || slice.contains(&d) {
                continue;
            }
            if m.ops[d].parent != Some(body) || !self.registers_only(d) {
                return None;
            }
            slice.push(d);
            stack.extend(m.ops[d].operands.iter().copied());
        }
        let order = &m.blocks[body].ops;
        slice.sort_by_key(|d| order.iter().position(|o| o == d));
        Some(slice)
    }

    /// Lowers, at the current point (before loop `p`, or in its producer), the scalar ops
    /// its copies' hoisted coordinates need ([`IndexSource::Hoisted`]); the loop body
    /// lowers them again where they stand.
    fn lower_hoisted(&mut self, p: &TmaPipelineLoop) {
        let mut ops: Vec<OpId> = Vec::new();
        for (_, sources) in &p.loads {
            for s in sources {
                if let IndexSource::Hoisted(v) = s {
                    for o in self.hoisted_slice(p.loop_op, *v).unwrap_or_default() {
                        if !ops.contains(&o) {
                            ops.push(o);
                        }
                    }
                }
            }
        }
        if let Some(body) = self.m.entry_block(p.loop_op, 0) {
            let order = &self.m.blocks[body].ops;
            ops.sort_by_key(|d| order.iter().position(|o| o == d));
        }
        for o in ops {
            self.op(o);
        }
    }

    /// Whether `v` has the same value in every iteration of loop `outer`: defined outside
    /// it, or by region-free ops inside its body from such values.
    fn invariant_in(&self, outer: OpId, v: ValueId) -> bool {
        let m = self.m;
        match m.defining_op(v) {
            Some(d) if m.is_ancestor(outer, d) => {
                d != outer && m.ops[d].regions.is_empty() && !touches_memory(m, d) && m.ops[d].operands.iter().all(|&x| self.invariant_in(outer, x))
            }
            Some(_) => true,
            None => m.value_block(v).and_then(|b| m.parent_op_of_block(b)).is_none_or(|p| !m.is_ancestor(outer, p)),
        }
    }

    /// Whether op `o` is register work a producer warpgroup may run too: no memory access,
    /// no region, and scalars in and out (views, tokens and pointers count as scalars), or
    /// a tile constant. A tile operand or result could be lowered through shared memory and
    /// a CTA barrier (an extract, a reduce, a relayout), which the producer must not join.
    fn registers_only(&self, o: OpId) -> bool {
        let data = &self.m.ops[o];
        let scalar = |v: &ValueId| self.val_ty(*v).shape.is_empty();
        let small = (data.results.iter().all(scalar) && data.operands.iter().all(scalar))
            || (matches!(data.kind.ct(), Some(CtOp::Constant)) && data.operands.is_empty());
        data.regions.is_empty() && !touches_memory(self.m, o) && small
    }

    /// Whether `v` is a splat tile constant (every thread gets its accumulator fragments
    /// as literals, with no trip through shared memory that producer threads would join).
    fn is_splat_constant(&self, v: ValueId) -> bool {
        let Some(d) = self.m.defining_op(v) else { return false };
        match &self.m.ops[d].kind {
            OpKind::CudaTile(c) if c.op == CtOp::Constant => matches!(c.get("value"), Some(tileir_ir::Attr::Dense(e)) if e.is_splat()),
            _ => false,
        }
    }

    /// Whether ring loop `op` asks for warp specialization (`tileir.warp_specialize`).
    fn ring_asks_for_agents(&self, op: OpId) -> bool {
        match &self.m.ops[op].kind {
            OpKind::CudaTile(c) => {
                c.discardable.iter().any(|(k, v)| k == tileir_ir::WARP_SPECIALIZE_ATTR && *v == tileir_ir::Attr::Bool(true))
            }
            _ => false,
        }
    }

    /// Whether a producer warpgroup may split off before `op` (of the kernel's body) in a
    /// kernel of `warps` warps: the target, no producer yet, whole warpgroups, at most 1024
    /// threads with the producer, and register work only before `op`.
    fn split_allowed(&self, op: OpId, warps: i64) -> bool {
        let m = self.m;
        let sm = crate::writer::sm_number(&self.target).unwrap_or(0);
        if sm < 90 || !self.target.ends_with('a') || self.producer_warps.is_some() || !self.loops.is_empty() {
            return false;
        }
        if warps % 4 != 0 || 32 * warps + WARPGROUP_THREADS > 1024 {
            return false;
        }
        let Some(entry) = self.entry_block else { return false };
        m.ops[op].parent == Some(entry) && m.blocks[entry].ops.iter().take_while(|&&o| o != op).all(|&o| self.registers_only(o))
    }

    /// Whether ring loop `op` may split off its producer right before itself: the loop's
    /// carried values enter their fragments before the split, on every thread, so they
    /// must be splat constants (no trip through shared memory).
    fn warp_specializable(&self, op: OpId, warps: i64) -> bool {
        let m = self.m;
        let inits_are_splats = m.ops[op].operands[3..].iter().all(|&v| self.val_ty(v).shape.is_empty() || self.is_splat_constant(v));
        self.ring_asks_for_agents(op) && inits_are_splats && self.split_allowed(op, warps)
    }

    /// Registers `p`'s ring (its depth is settled when the function is done).
    pub(crate) fn add_tma_ring(&mut self, p: &TmaPipeline) -> usize {
        self.tma_rings.push(TmaRing { requested: p.requested, stage_bytes: p.stage_bytes, warps: p.warps });
        self.tma_rings.len() - 1
    }

    /// The i32 shared address of the "full" mbarrier of stage `stage` (i32): one per stage,
    /// one arrival each (the issuing thread's, with the bytes), initialized in the entry
    /// block.
    pub(crate) fn stage_mbarrier(&mut self, stage: &str) -> String {
        self.ring_mbarrier("stages", stage)
    }

    /// The i32 shared address of the "empty" mbarrier of stage `stage`: one arrival per warp
    /// once its mma has read the stage; the issuing thread waits for it before a refill.
    pub(crate) fn empty_mbarrier(&mut self, stage: &str) -> String {
        self.ring_mbarrier("empty", stage)
    }

    /// Entry `stage` of the function's mbarrier array `kind` (`stages` or `empty`).
    fn ring_mbarrier(&mut self, kind: &str, stage: &str) -> String {
        if !self.stage_mbarriers_used {
            self.stage_mbarriers_used = true;
            let base = self.smem_name.trim_end_matches(".smem").to_string();
            self.prologue.push_str(&format!(
                "  %stages.addr = ptrtoint ptr addrspace(3) {base}.stages to i32\n  %empty.addr = ptrtoint ptr addrspace(3) {base}.empty to i32\n"
            ));
        }
        let off = self.emit("smo", format!("shl i32 {stage}, 3"));
        self.emit("smb", format!("add i32 %{kind}.addr, {off}"))
    }

    /// How many stage mbarriers the function's rings need.
    pub(crate) fn stage_mbarrier_count(&self) -> u32 {
        self.tma_rings.iter().map(|r| r.requested).max().unwrap_or(0)
    }

    /// Warps of the CTA that release the rings' stages.
    pub(crate) fn ring_warps(&self) -> i64 {
        self.tma_rings.iter().map(|r| r.warps).max().unwrap_or(1)
    }

    /// The entry block's initialization of every stage mbarrier (full: one arrival; empty:
    /// one per warp), then a barrier.
    pub(crate) fn stage_mbarrier_init(&mut self) -> String {
        let tid = self.in_prologue(|w| w.thread_id());
        let mut text = String::new();
        for (kind, count) in [("stages", 1), ("empty", self.ring_warps())] {
            let addrs: Vec<String> = (0..self.stage_mbarrier_count()).map(|i| format!("%{kind}.addr{i}")).collect();
            for (i, a) in addrs.iter().enumerate() {
                text.push_str(&format!("  {a} = add i32 %{kind}.addr, {}\n", 8 * i));
            }
            text.push_str(&format!("  {}\n", crate::tma::mbarrier_init_call(&tid, &addrs, count, false)));
        }
        text.push_str("  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n");
        self.declare("declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)");
        text
    }

    /// The ordinal i32 of the current iteration in this run of the loop: (iv - lb) / step.
    fn iteration_index(&mut self, p: &TmaPipelineLoop) -> String {
        let ilt = p.ilt;
        let i = self.emit("pit", format!("sub {ilt} {}, {}", p.iv, p.lb));
        let i = self.emit("pit", format!("sdiv {ilt} {i}, {}", p.step));
        if ilt == "i32" {
            i
        } else {
            self.emit("pit", format!("trunc {ilt} {i} to i32"))
        }
    }

    /// The i32 index of the current iteration in the ring's count (kernel-wide in a
    /// persistent loop's ring, else [`Self::iteration_index`]), which picks stage and phase.
    fn ring_index(&mut self, p: &TmaPipelineLoop) -> String {
        let i = self.iteration_index(p);
        match &p.base {
            Some(base) => self.emit("pit", format!("add i32 {base}, {i}")),
            None => i,
        }
    }

    /// Thread 0 issues stage `stage`'s copies (A and B of the iteration whose induction
    /// variable is `iv`), expecting their bytes on the stage's mbarrier.
    fn issue_stage(
        &mut self,
        p: &TmaPipelineLoop,
        plan: &WgmmaPlan,
        iv: &str,
        stage: &str,
        go: Option<&str>,
        released: Option<(&str, &str, &str)>,
    ) -> R<()> {
        let mut coords = Vec::new();
        for (d, sources) in p.loads.clone() {
            let mut index = Vec::new();
            for s in sources {
                let (v, ty) = match s {
                    IndexSource::InductionVariable => (iv.to_string(), p.ilt),
                    IndexSource::Invariant(v) | IndexSource::Hoisted(v) => {
                        let ty = if num(self.val_ty(v).elem) == Some(NumType::I64) { "i64" } else { "i32" };
                        (self.scalar(d.load, v).ok_or("a tile coordinate was not lowered")?, ty)
                    }
                    IndexSource::Special(reg) => (self.sreg(reg), "i32"),
                };
                index.push(if ty == "i32" { v } else { self.emit("tix", format!("trunc {ty} {v} to i32")) });
            }
            coords.push((d, index));
        }
        let mbar = self.stage_mbarrier(stage);
        let buffer = self.emit("stb", format!("mul i32 {stage}, {}", p.stage_bytes));
        let buffer = self.emit("stb", format!("add i32 {buffer}, {STAGE_BASE}"));
        let tid = self.thread_id();
        let issuer = if p.specialized { 32 * p.warps } else { 0 };
        let mut issue = self.emit("iss", format!("icmp eq i32 {tid}, {issuer}"));
        if let Some(go) = go {
            issue = self.emit("iss", format!("and i1 {issue}, {go}"));
        }
        let (yes, join) = (self.new_label("tmap"), self.new_label("tmapj"));
        self.line(&format!("br i1 {issue}, label {yes}, label {join}"));
        self.label(&yes);
        if let Some((empty, parity, used)) = released {
            // Every warp's mma has read the stage (each warp arrived on its empty barrier),
            // when the stage was used before (`used`).
            let (wait, ready) = (self.new_label("pwe"), self.new_label("pwej"));
            self.line(&format!("br i1 {used}, label {wait}, label {ready}"));
            self.label(&wait);
            self.mbarrier_wait_parity(empty, parity);
            self.line(&format!("br label {ready}"));
            self.label(&ready);
        }
        let bytes = plan.m * plan.k * plan.form.elem_bytes + plan.k * plan.n * plan.form.elem_bytes;
        self.line(&format!(
            "call void asm sideeffect \"{{\\0A\\09.reg .b64 st;\\0A\\09mbarrier.arrive.expect_tx.shared.b64 st, [$0], $1;\\0A\\09}}\", \"r,r,~{{memory}}\"(i32 {mbar}, i32 {bytes})"
        ));
        for (d, index) in coords {
            self.tma_operand(plan, d, &index, p.bytes_a, &mbar, Some(&buffer))?;
        }
        self.line(&format!("br label {join}"));
        self.label(&join);
        Ok(())
    }

    /// Before the loop: every stage's mbarrier back at phase 0, then the copies of the
    /// first S - 1 iterations (those the loop runs). Shared memory's generic uses so far
    /// (the accumulator's trip into fragments) come before the async writes.
    pub(crate) fn tma_pipeline_prologue(&mut self, p: &TmaPipelineLoop, plan: &WgmmaPlan) -> R<()> {
        if p.base.is_some() {
            // A persistent loop's ring runs on from the previous tile: its producer split off
            // (after the fence and barrier) before the persistent loop, and its mbarriers were
            // initialized in the entry block.
            return Ok(());
        }
        // Generic-proxy accesses so far (shared scratch, global stores) before the copies.
        self.intrinsic_void("llvm.nvvm.fence.proxy.async", &[]);
        self.barrier();
        // Every execution of the loop starts its stages at phase 0 (an enclosing loop, a
        // persistent tile loop, runs it again): thread 0 re-initializes them once every
        // thread is past its last wait (the barrier above).
        let full: Vec<String> = (0..p.requested).map(|s| self.stage_mbarrier(&s.to_string())).collect();
        let empty: Vec<String> = (0..p.requested).map(|s| self.empty_mbarrier(&s.to_string())).collect();
        let tid = self.thread_id();
        self.line(&crate::tma::mbarrier_init_call(&tid, &full, 1, true));
        self.line(&crate::tma::mbarrier_init_call(&tid, &empty, p.warps, true));
        self.barrier();
        if p.specialized {
            return self.split_producer(p, plan);
        }
        self.lower_hoisted(p);
        let lead = ring_lead_token(p.ring);
        for j in 0..p.requested - 1 {
            let (ilt, step) = (p.ilt, p.step.clone());
            let iv = if j == 0 {
                p.lb.clone()
            } else {
                let ahead = self.emit("pro", format!("mul {ilt} {step}, {j}"));
                self.emit("pro", format!("add {ilt} {}, {ahead}", p.lb))
            };
            let mut go = self.emit("runs", format!("icmp {} {ilt} {iv}, {}", p.cmp, p.ub));
            if j > 0 {
                // Stage j exists when the ring settles on more than j + 1 stages.
                let exists = self.emit("runs", format!("icmp ult i32 {j}, {lead}"));
                go = self.emit("runs", format!("and i1 {go}, {exists}"));
            }
            self.issue_stage(p, plan, &iv, &j.to_string(), Some(&go), None)?;
        }
        Ok(())
    }

    /// The warp-specialized split, where a specialized ring's prologue would issue: the
    /// producer warpgroup (threads `32 * warps` on) gives back registers, its first thread
    /// issues the copies of every iteration ([`Self::producer_ring_loop`]), and the
    /// warpgroup returns. The kernel's own warps take the registers and go on to the loop,
    /// which then only waits for and releases stages; from here on their barriers count
    /// only them.
    fn split_producer(&mut self, p: &TmaPipelineLoop, plan: &WgmmaPlan) -> R<()> {
        let registers = self.register_plan(p.warps, plan.fragment_count());
        let consumer = self.enter_producer(p.warps, registers)?;
        self.lower_hoisted(p);
        self.producer_ring_loop(p, plan)?;
        self.leave_producer(&consumer, p.warps, registers);
        Ok(())
    }

    /// The `setmaxnreg` counts (producer's, consumers') of a split whose consumers are
    /// `warps` warps with `acc_regs` accumulator registers each, or None for no register
    /// reallocation. ptxas budgets a kernel that reallocates at its launch maximum (the
    /// whole register file's share per thread), which holds the SM to one CTA: worth it
    /// only when the consumers' estimated need (accumulators + [`ACCUMULATOR_HEADROOM`])
    /// would not let two CTAs share the SM anyway, and when the consumers gain registers.
    fn register_plan(&self, warps: i64, acc_regs: usize) -> Option<(u32, u32)> {
        let threads = (32 * warps + WARPGROUP_THREADS) as usize;
        if (acc_regs + ACCUMULATOR_HEADROOM) * threads <= 65536 / 2 {
            return None;
        }
        match register_split(warps, self.occupancy_cap(warps)) {
            (Some(give), Some(take)) => Some((give, take)),
            _ => None,
        }
    }

    /// Branches the producer warpgroup off: it gives back registers and all its threads but
    /// the first return; code emitted next runs on that first thread. Returns the label the
    /// kernel's own warps continue at ([`Self::leave_producer`]).
    fn enter_producer(&mut self, warps: i64, registers: Option<(u32, u32)>) -> R<String> {
        let consumers = 32 * warps;
        let give = registers.map(|(give, _)| give);
        let tid = self.thread_id();
        let is_producer = self.emit("wsp", format!("icmp uge i32 {tid}, {consumers}"));
        let (producer, consumer, issuer_block) = (self.new_label("producer"), self.new_label("consumer"), self.new_label("issuer"));
        self.line(&format!("br i1 {is_producer}, label {producer}, label {consumer}"));
        self.label(&producer);
        if let Some(give) = give {
            self.intrinsic_void("llvm.nvvm.setmaxnreg.dec.sync.aligned.u32", &[("i32", &give.to_string())]);
        }
        let issuer = self.emit("wsp", format!("icmp eq i32 {tid}, {consumers}"));
        let done = self.new_label("prodx");
        self.line(&format!("br i1 {issuer}, label {issuer_block}, label {done}"));
        self.label(&done);
        self.line("ret void");
        self.label(&issuer_block);
        Ok(consumer)
    }

    /// The registers per thread the kernel's occupancy hint allows once a producer
    /// warpgroup joins its `warps` warps (None: no hint).
    fn occupancy_cap(&self, warps: i64) -> Option<u32> {
        let threads = (32 * warps + WARPGROUP_THREADS) as u32;
        crate::writer::KernelSpec::resolve(self.kernel_hints.as_deref(), &self.target, threads).maxnreg
    }

    /// Ends the producer's code (it returns) and continues with the kernel's own warps at
    /// `consumer`, which take the registers the producer gave back.
    fn leave_producer(&mut self, consumer: &str, warps: i64, registers: Option<(u32, u32)>) {
        self.line("ret void");
        // i64 forms cached in the producer's blocks do not dominate the consumers'.
        self.wide.clear();
        self.label(consumer);
        if let Some((_, take)) = registers {
            self.intrinsic_void("llvm.nvvm.setmaxnreg.inc.sync.aligned.u32", &[("i32", &take.to_string())]);
        }
        self.producer_warps = Some(warps);
    }

    /// The producer's loop over the ring loop's iterations (`p`'s bounds): iteration j's
    /// copies go to stage g % S of the kernel-wide count g = base + j, once the consumers
    /// have released that stage after iteration g - S (for g >= S).
    fn producer_ring_loop(&mut self, p: &TmaPipelineLoop, plan: &WgmmaPlan) -> R<()> {
        let (ilt, stages) = (p.ilt, ring_stages_token(p.ring));
        let (head, body, done) = (self.new_label("prodl"), self.new_label("prodb"), self.new_label("prode"));
        let entry = self.cur_block.clone();
        self.line(&format!("br label {head}"));
        self.label(&head);
        let j = self.fresh("pj");
        let iv = self.fresh("piv");
        let mark = format!("@@PROD{}@@", self.counter);
        self.line(&format!("{j} = phi i32 [ 0, {entry} ]{mark}j"));
        self.line(&format!("{iv} = phi {ilt} [ {}, {entry} ]{mark}iv", p.lb));
        let go = self.emit("pgo", format!("icmp {} {ilt} {iv}, {}", p.cmp, p.ub));
        self.line(&format!("br i1 {go}, label {body}, label {done}"));
        self.label(&body);
        let g = match &p.base {
            Some(base) => self.emit("pg", format!("add i32 {base}, {j}")),
            None => j.clone(),
        };
        let stage = self.emit("pst", format!("urem i32 {g}, {stages}"));
        let used = self.emit("pused", format!("icmp uge i32 {g}, {stages}"));
        // Stage g % S's previous user was iteration g - S: the (g / S - 1)-th completion of
        // its empty mbarrier, of parity (g / S + 1) % 2.
        let round = self.emit("pround", format!("udiv i32 {g}, {stages}"));
        let round = self.emit("pround", format!("add i32 {round}, 1"));
        let parity = self.emit("ppar", format!("and i32 {round}, 1"));
        let empty = self.empty_mbarrier(&stage);
        self.issue_stage(p, plan, &iv, &stage, None, Some((&empty, &parity, &used)))?;
        let jn = self.emit("pjn", format!("add i32 {j}, 1"));
        let ivn = self.emit("pivn", format!("add {ilt} {iv}, {}", p.step));
        let latch = self.cur_block.clone();
        self.line(&format!("br label {head}"));
        self.body = self.body.replace(&format!("{mark}j\n"), &format!(", [ {jn}, {latch} ]\n"));
        self.body = self.body.replace(&format!("{mark}iv\n"), &format!(", [ {ivn}, {latch} ]\n"));
        self.label(&done);
        Ok(())
    }

    /// The split before persistent tile loop `outer` whose ring loop is `inner` (planned as
    /// `pipe`): every thread's earlier generic accesses are fenced for the async proxy,
    /// then the producer runs its own copy of `outer`, each tile's register work (for the
    /// ring loop's bounds and coordinates) and then its copies, counted kernel-wide. Records
    /// the ring for the consumers' `outer` ([`PersistentRing`]).
    pub(crate) fn split_persistent_producer(&mut self, outer: OpId, inner: OpId, pipe: &TmaPipeline) -> R<()> {
        let m = self.m;
        self.intrinsic_void("llvm.nvvm.fence.proxy.async", &[]);
        self.barrier();
        let ring = self.add_tma_ring(pipe);
        let registers = self.register_plan(pipe.warps, pipe.plan.fragment_count());
        let consumer = self.enter_producer(pipe.warps, registers)?;
        let outer_op = &m.ops[outer];
        let OpKind::CudaTile(oc) = &outer_op.kind else { return Err("a persistent loop must be a cuda_tile.for".into()) };
        let outer_ty = self.val_ty(outer_op.operands[0]).num().ok_or("loop bounds must be integers")?;
        let olt = elem_llvm(TileElem::Num(outer_ty))?;
        let ocmp = if oc.flag("unsignedCmp") { "ult" } else { "slt" };
        let (olb, oub, ostep) = (self.elems(outer_op.operands[0])?[0].clone(), self.elems(outer_op.operands[1])?[0].clone(), self.elems(outer_op.operands[2])?[0].clone());
        let body = m.entry_block(outer, 0).ok_or("missing body")?;
        let (head, tile, done) = (self.new_label("ptile"), self.new_label("ptileb"), self.new_label("ptilee"));
        let entry = self.cur_block.clone();
        self.line(&format!("br label {head}"));
        self.label(&head);
        let t = self.fresh("pt");
        let mark = format!("@@PTILE{}@@", self.counter);
        self.line(&format!("{t} = phi {olt} [ {olb}, {entry} ]{mark}"));
        let go = self.emit("ptgo", format!("icmp {ocmp} {olt} {t}, {oub}"));
        self.line(&format!("br i1 {go}, label {tile}, label {done}"));
        self.label(&tile);
        self.values.insert(m.blocks[body].args[0], Lowered::Scalar(t.clone()));
        for &token in &m.blocks[body].args[1..] {
            self.values.insert(token, Lowered::Token);
        }
        for &o in &m.blocks[body].ops {
            if o == inner {
                break;
            }
            self.op(o);
        }
        let (base, trips) = self.ring_base(outer, inner, &t)?;
        let inner_op = &m.ops[inner];
        let OpKind::CudaTile(ic) = &inner_op.kind else { return Err("a ring loop must be a cuda_tile.for".into()) };
        let ity = self.val_ty(inner_op.operands[0]).num().ok_or("loop bounds must be integers")?;
        let pl = TmaPipelineLoop {
            iv: String::new(),
            lb: self.elems(inner_op.operands[0])?[0].clone(),
            ub: self.elems(inner_op.operands[1])?[0].clone(),
            step: self.elems(inner_op.operands[2])?[0].clone(),
            ilt: elem_llvm(TileElem::Num(ity))?,
            cmp: if ic.flag("unsignedCmp") { "ult" } else { "slt" },
            loads: pipe.loads.clone(),
            stage_bytes: pipe.stage_bytes,
            bytes_a: pipe.bytes_a,
            ring,
            requested: pipe.requested,
            warps: pipe.warps,
            specialized: true,
            base: Some(base),
            trips: Some(trips),
            loop_op: inner,
        };
        self.lower_hoisted(&pl);
        self.producer_ring_loop(&pl, &pipe.plan)?;
        let tn = self.emit("ptn", format!("add {olt} {t}, {ostep}"));
        let latch = self.cur_block.clone();
        self.line(&format!("br label {head}"));
        self.body = self.body.replace(&format!("{mark}\n"), &format!(", [ {tn}, {latch} ]\n"));
        self.label(&done);
        self.leave_producer(&consumer, pipe.warps, registers);
        self.persistent_ring = Some(PersistentRing { outer, inner, ring });
        Ok(())
    }

    /// The i32 count of ring loop `inner`'s iterations in the tiles of persistent loop
    /// `outer` before the one whose induction variable is `t` (the tile's ordinal times the
    /// ring loop's trip count, the same for every tile: [`Self::persistent_split`]), and
    /// that trip count.
    pub(crate) fn ring_base(&mut self, outer: OpId, inner: OpId, t: &str) -> R<(String, String)> {
        let m = self.m;
        let ordinal = self.ordinal(outer, t)?;
        let (lb, ub, step) = (m.ops[inner].operands[0], m.ops[inner].operands[1], m.ops[inner].operands[2]);
        let ty = self.val_ty(lb).num().ok_or("loop bounds must be integers")?;
        let lt = elem_llvm(TileElem::Num(ty))?;
        let unsigned = matches!(&m.ops[inner].kind, OpKind::CudaTile(c) if c.flag("unsignedCmp"));
        let (lb, ub, step) = (self.elems(lb)?[0].clone(), self.elems(ub)?[0].clone(), self.elems(step)?[0].clone());
        // ceil((ub - lb) / step) when the loop runs at all (a positive step).
        let runs = self.emit("trips", format!("icmp {} {lt} {lb}, {ub}", if unsigned { "ult" } else { "slt" }));
        let span = self.emit("trips", format!("sub {lt} {ub}, {lb}"));
        let span = self.emit("trips", format!("add {lt} {span}, {step}"));
        let span = self.emit("trips", format!("sub {lt} {span}, 1"));
        let n = self.emit("trips", format!("{} {lt} {span}, {step}", if unsigned { "udiv" } else { "sdiv" }));
        let n = if lt == "i32" { n } else { self.emit("trips", format!("trunc {lt} {n} to i32")) };
        let n = self.emit("trips", format!("select i1 {runs}, i32 {n}, i32 0"));
        Ok((self.emit("rbase", format!("mul i32 {ordinal}, {n}")), n))
    }

    /// The i32 ordinal of loop `op`'s iteration whose induction variable is `iv`:
    /// (iv - lb) / step.
    fn ordinal(&mut self, op: OpId, iv: &str) -> R<String> {
        let m = self.m;
        let ty = self.val_ty(m.ops[op].operands[0]).num().ok_or("loop bounds must be integers")?;
        let lt = elem_llvm(TileElem::Num(ty))?;
        let unsigned = matches!(&m.ops[op].kind, OpKind::CudaTile(c) if c.flag("unsignedCmp"));
        let (lb, step) = (self.elems(m.ops[op].operands[0])?[0].clone(), self.elems(m.ops[op].operands[2])?[0].clone());
        let d = self.emit("ord", format!("sub {lt} {iv}, {lb}"));
        let d = self.emit("ord", format!("{} {lt} {d}, {step}", if unsigned { "udiv" } else { "sdiv" }));
        Ok(if lt == "i32" { d } else { self.emit("ord", format!("trunc {lt} {d} to i32")) })
    }

    /// After a persistent ring loop's last iteration (its mma retired): each warp releases
    /// the stage that iteration read, so the producer can refill it for the next tile.
    pub(crate) fn release_last_stage(&mut self, p: &TmaPipelineLoop) {
        let (Some(base), Some(trips)) = (&p.base, &p.trips) else { return };
        let stages = ring_stages_token(p.ring);
        let last = self.emit("rlast", format!("add i32 {base}, {trips}"));
        let last = self.emit("rlast", format!("add i32 {last}, -1"));
        let stage = self.emit("rlast", format!("urem i32 {last}, {stages}"));
        let ran = self.emit("rlast", format!("icmp sgt i32 {trips}, 0"));
        self.release_stage(&stage, &ran);
    }

    /// Lane 0 of each warp arrives on stage `stage`'s empty mbarrier when i1 `when` holds.
    fn release_stage(&mut self, stage: &str, when: &str) {
        let empty = self.empty_mbarrier(stage);
        let tid = self.thread_id();
        let lane = self.emit("prl", format!("and i32 {tid}, 31"));
        let lane0 = self.emit("prl", format!("icmp eq i32 {lane}, 0"));
        let release = self.emit("prl", format!("and i1 {lane0}, {when}"));
        let release = self.emit("prl", format!("zext i1 {release} to i32"));
        self.line(&format!(
            "call void asm sideeffect \"{{\\0A\\09.reg .pred p;\\0A\\09.reg .b64 st;\\0A\\09setp.ne.u32 p, $0, 0;\\0A\\09@p mbarrier.arrive.shared.b64 st, [$1];\\0A\\09}}\", \"r,r,~{{memory}}\"(i32 {release}, i32 {empty})"
        ));
    }

    /// In iteration i, before its mma: wait for stage i % S, whose phase parity is
    /// (i / S) % 2. Returns the stage's byte offset (i32).
    pub(crate) fn tma_pipeline_wait(&mut self, p: &TmaPipelineLoop) -> String {
        let i = self.ring_index(p);
        let stages = ring_stages_token(p.ring);
        let stage = self.emit("pst", format!("urem i32 {i}, {stages}"));
        let round = self.emit("ppar", format!("udiv i32 {i}, {stages}"));
        let parity = self.emit("ppar", format!("and i32 {round}, 1"));
        let mbar = self.stage_mbarrier(&stage);
        self.mbarrier_wait_parity(&mbar, &parity);
        let buffer = self.emit("pbuf", format!("mul i32 {stage}, {}", p.stage_bytes));
        self.emit("pbuf", format!("add i32 {buffer}, {STAGE_BASE}"))
    }

    /// In iteration i, after its mma was committed and every older wgmma group retired
    /// (`wgmma.wait_group 1`): each warp releases stage (i - 1) % S, which iteration i - 1's
    /// mma read (lane 0 arrives on its empty mbarrier); the issuing thread waits until every
    /// warp has, then refills it with the copies of iteration i + S - 1. No CTA barrier:
    /// warps run up to S - 1 stages apart.
    pub(crate) fn tma_pipeline_refill(&mut self, p: &TmaPipelineLoop, plan: &WgmmaPlan) -> R<()> {
        let (ilt, lead, stages) = (p.ilt, ring_lead_token(p.ring), ring_stages_token(p.ring));
        // The previous iteration of this run (a persistent ring's previous tile released
        // its last stage after its loop).
        let local = self.iteration_index(p);
        let had_prev = self.emit("prv", format!("icmp sgt i32 {local}, 0"));
        let i = self.ring_index(p);
        let prev = self.emit("prv", format!("add i32 {i}, -1"));
        let prev_stage = self.emit("prv", format!("urem i32 {prev}, {stages}"));
        let empty = self.empty_mbarrier(&prev_stage);
        self.release_stage(&prev_stage, &had_prev);
        if p.specialized {
            // The producer warpgroup refills it.
            return Ok(());
        }
        let round = self.emit("prp", format!("udiv i32 {prev}, {stages}"));
        let parity = self.emit("prp", format!("and i32 {round}, 1"));
        let ahead = self.emit("pnx", format!("add i32 {i}, {lead}"));
        let stage = self.emit("pnx", format!("urem i32 {ahead}, {stages}"));
        let dist = self.emit("pnx", format!("mul {ilt} {}, {lead}", p.step));
        let next = self.emit("pnx", format!("add {ilt} {}, {dist}", p.iv));
        let more = self.emit("pmore", format!("icmp {} {ilt} {next}, {}", p.cmp, p.ub));
        // Iteration 0 refills stage S - 1, which nothing has used yet: no release to wait for.
        self.issue_stage(p, plan, &next, &stage, Some(&more), Some((&empty, &parity, &had_prev)))
    }

    /// `wgmma.wait_group depth` with the accumulator fragments `accs` passing through it
    /// (tied), so nothing reads them before the wait; returns the values after it.
    pub(crate) fn wgmma_wait_with(&mut self, depth: u32, plan: &WgmmaPlan, accs: &[String]) -> Vec<String> {
        self.wgmma_wait_keeping(depth, plan, accs, &[])
    }

    /// [`Self::wgmma_wait_with`], also passing the i32 registers `kept` through the wait
    /// (read and written by it), so that they stay allocated until it.
    pub(crate) fn wgmma_wait_keeping(&mut self, depth: u32, plan: &WgmmaPlan, accs: &[String], kept: &[String]) -> Vec<String> {
        let (ty, cons) = (plan.form.acc_ty, plan.form.acc_cons);
        let outs: Vec<String> = accs.iter().map(|_| format!("={cons}")).chain(kept.iter().map(|_| "=r".to_string())).collect();
        let tied: Vec<String> = (0..accs.len() + kept.len()).map(|i| i.to_string()).collect();
        let types: Vec<&str> = accs.iter().map(|_| ty).chain(kept.iter().map(|_| "i32")).collect();
        let ret = format!("{{ {} }}", types.join(", "));
        let args: Vec<String> = accs.iter().map(|a| format!("{ty} {a}")).chain(kept.iter().map(|k| format!("i32 {k}"))).collect();
        let w = self.emit(
            "wwait",
            format!(
                "call {ret} asm sideeffect \"wgmma.wait_group.sync.aligned {depth};\", \"{},{},~{{memory}}\"({})",
                outs.join(","),
                tied.join(","),
                args.join(", ")
            ),
        );
        (0..accs.len()).map(|i| self.emit("wacc", format!("extractvalue {ret} {w}, {i}"))).collect()
    }

    /// The byte offsets of the rings' stage counts once the scratch is `scratch` bytes:
    /// each ring takes as many stages as fit (at least two, at most its request), its
    /// tokens are replaced in `text`, and the bytes of the stage region are returned.
    pub(crate) fn settle_tma_rings(&self, text: &mut String, base: u64, available: u64) -> u64 {
        let mut region = 0;
        for (k, ring) in self.tma_rings.iter().enumerate() {
            let fit = (available / ring.stage_bytes.max(1)).clamp(2, u64::from(ring.requested.max(2)));
            *text = text.replace(&ring_stages_token(k), &fit.to_string()).replace(&ring_lead_token(k), &(fit - 1).to_string());
            region = region.max(fit * ring.stage_bytes);
        }
        *text = text.replace(STAGE_BASE, &base.to_string());
        region
    }
}

#[cfg(test)]
mod register_split_tests {
    use super::register_split;

    /// Registers of the CTA after the split never exceed what it launched with.
    fn fits(warps: i64, maxnreg: Option<u32>) {
        let threads = (32 * warps + 128) as u32;
        let at_launch = (65536 / threads / 8 * 8).min(256).min(maxnreg.map_or(256, |m| m / 8 * 8));
        let (give, take) = register_split(warps, maxnreg);
        if let Some(g) = give {
            assert!(g % 8 == 0 && (24..=256).contains(&g) && g < at_launch);
        }
        let (give, consumers) = (give.unwrap_or(at_launch), take.unwrap_or(at_launch));
        if let Some(t) = take {
            assert!(t % 8 == 0 && t > at_launch && t <= 256, "{t}");
        }
        assert!(give * 128 + consumers * 32 * warps as u32 <= at_launch * threads, "{warps} warps, cap {maxnreg:?}");
    }

    #[test]
    fn counts_follow_the_ctas_register_budget() {
        // One consumer warpgroup starts at the maximum: only the producer gives back.
        assert_eq!(register_split(4, None), (Some(40), None));
        // Two share what a 384-thread launch (168 each) leaves after the producer's 40.
        assert_eq!(register_split(8, None), (Some(40), Some(232)));
        // An occupancy cap of 80 per thread shrinks the pool the consumers can take from.
        assert_eq!(register_split(8, Some(80)), (Some(40), Some(96)));
        assert_eq!(register_split(16, None), (Some(40), Some(104)));
        // A cap at the ISA's minimum leaves nothing to move.
        assert_eq!(register_split(8, Some(24)), (None, None));
        for warps in [4, 8, 12, 16, 24] {
            for cap in [None, Some(24), Some(64), Some(80), Some(128), Some(255)] {
                fits(warps, cap);
            }
        }
    }
}
