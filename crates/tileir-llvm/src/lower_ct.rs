//! Residual cuda_tile ops (the stand-ins for `arith`/`math`/`scf` below cuda_tile) written
//! as LLVM IR over register-distributed tiles.
//!
//! A tile value is the list of elements its thread holds, in the register order of its
//! blocked layout ([`reg_offsets`]); a rank-0 value is one SSA value every thread holds.
//! Element-wise ops map over that list. Ops that move elements between threads (broadcast,
//! reshape, permute, extract, cat, reduce, scan, dot) go through the function's
//! shared-memory scratch buffer: every thread stores the elements it owns at their
//! row-major position, a CTA barrier, then every thread loads the elements its result
//! layout gives it. That one data path is correct for every layout pair; faster variants
//! (shuffles, mma) are chosen by the tile-primitive dispatch in [`crate::dispatch`].
//!
//! Conversions round once, like the interpreter, for every pair of formats:
//! - f64 reaches the narrow formats (fp8, e8m0, tf32) through f32 by round-to-odd, and
//!   i64 reaches them through f64 the same way, so no value is rounded twice;
//! - fp8 uses the sm_89+ `cvt` (`.satfinite`: overflow and infinities give the largest
//!   finite value), and the same rounding in software on older targets; tf32 rounds to nearest even in software (the hardware's `cvt.rna`
//!   rounds ties away from zero); e8m0 and f4E2M1FN are converted in software on every
//!   target. An f4E2M1FN element lives in the low nibble of an i8 register, as does i4.

use crate::writer::{llvm_type, FuncWriter, Lowered};
use std::fmt::Write;
use tileir_ir::{
    Attr, AtomicRmwMode, ComparisonOrdering, ComparisonPredicate, CtOp, CudaTileOp, Layout, MemoryOrdering,
    MemoryScope, NumType, OpId, RoundingMode, Signedness, TileElem, Type, ValueId,
};

/// Where `continue` and `break` inside a loop body branch to, and what they carried.
pub(crate) struct LoopTargets {
    /// Where `continue` jumps: the header of a `loop`, the latch (which steps the
    /// induction variable) of a `for`.
    pub(crate) header: String,
    /// Block after the loop (for `break`).
    pub(crate) exit: String,
    /// Values carried by each `continue`, with the block it leaves from.
    pub(crate) continues: Vec<(Vec<String>, String)>,
    /// Values carried by each `break`, with the block it leaves from.
    pub(crate) breaks: Vec<(Vec<String>, String)>,
    /// Alloca scopes open outside the loop body: a `continue` or `break` frees those past it.
    pub(crate) alloca_depth: usize,
}

/// A counted loop being written: `k` runs from 0 while `k < trip`, in steps, carrying
/// `phis` (whose back-edge values are patched in when the body is done).
pub(crate) struct CountedLoop {
    header: String,
    exit: String,
    mark: String,
    /// The counter (i32).
    pub(crate) k: String,
    /// The carried values, as the body sees them.
    pub(crate) phis: Vec<String>,
}

/// Where each element of a relayout's result comes from: a map from result coordinates to
/// source coordinates, and both tiles' layouts and shapes.
struct RelayoutMap {
    source_of: crate::in_thread::SourceOf,
    source: (Layout, Vec<i64>),
    result: (Layout, Vec<i64>),
}

impl FuncWriter<'_> {
    /// Phis for `carried` (LLVM type, value from `pre`) at the start of the current block;
    /// each ends in a `{mark}{i}` placeholder that [`Self::patch_phis`] fills with the
    /// back-edge values once the loop body is written.
    pub(crate) fn open_phis(&mut self, hint: &str, mark: &str, pre: &str, carried: &[(&str, String)]) -> Vec<String> {
        carried
            .iter()
            .enumerate()
            .map(|(i, (ty, init))| {
                let p = self.fresh(hint);
                self.line(&format!("{p} = phi {ty} [ {init}, {pre} ]{mark}{i}"));
                p
            })
            .collect()
    }

    /// Adds `[ next[i], latch ]` to the phis [`Self::open_phis`] made with `mark`.
    pub(crate) fn patch_phis(&mut self, mark: &str, latch: &str, next: &[String]) {
        for (i, v) in next.iter().enumerate() {
            self.body = self.body.replace(&format!("{mark}{i}\n"), &format!(", [ {v}, {latch} ]\n"));
        }
    }

    /// Opens a counted loop carrying `carried` (LLVM type, initial value) and leaves the
    /// writer in its body.
    pub(crate) fn counted_loop_begin(&mut self, hint: &str, trip: &str, carried: &[(&str, String)]) -> CountedLoop {
        let (header, body, exit) = (self.new_label(hint), self.new_label(&format!("{hint}b")), self.new_label(&format!("{hint}e")));
        let pre = self.cur_block.clone();
        self.line(&format!("br label {header}"));
        self.label(&header);
        let mark = format!("@@COUNTED{}@@", self.counter);
        let k = self.fresh("k");
        self.line(&format!("{k} = phi i32 [ 0, {pre} ]{mark}k"));
        let phis = self.open_phis("lc", &mark, &pre, carried);
        let done = self.emit("dn", format!("icmp uge i32 {k}, {trip}"));
        self.line(&format!("br i1 {done}, label {exit}, label {body}"));
        self.label(&body);
        CountedLoop { header, exit, mark, k, phis }
    }

    /// Closes `l`: the counter advances by `step`, `next` are the carried values' new values;
    /// the writer continues after the loop, where `l.phis` hold the final values.
    pub(crate) fn counted_loop_end(&mut self, l: &CountedLoop, step: i64, next: &[String]) {
        let kn = self.emit("kn", format!("add i32 {}, {step}", l.k));
        let latch = self.cur_block.clone();
        self.line(&format!("br label {}", l.header));
        self.body = self.body.replace(&format!("{}k\n", l.mark), &format!(", [ {kn}, {latch} ]\n"));
        self.patch_phis(&l.mark, &latch, next);
        self.label(&l.exit);
    }
}

/// Shape, element and layout of a value.
#[derive(Clone, Debug)]
pub(crate) struct ValTy {
    pub(crate) shape: Vec<i64>,
    pub(crate) elem: TileElem,
    pub(crate) layout: Option<Layout>,
}

impl ValTy {
    pub(crate) fn num(&self) -> Option<NumType> {
        match self.elem {
            TileElem::Num(n) => Some(n),
            TileElem::Ptr(_) => None,
        }
    }
}

/// Per-register offsets (per dimension) from the thread's base coordinate, in the
/// register order the tiled loads and stores use: for each dimension from slowest to
/// fastest, repetitions of the CTA footprint, then the thread's contiguous run.
///
/// A fragment layout (`Mma`) lists the wgmma D fragment's registers in order (64-row block,
/// 8-column group, row half, column): see [`fragment_geometry`]. A `Slice` lists its
/// parent's offsets without the removed dimension, each once.
pub(crate) fn reg_offsets(layout: &Layout, shape: &[i64]) -> Vec<Vec<i64>> {
    let (spt, tpw, wpc) = match layout {
        Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, .. } => (size_per_thread, threads_per_warp, warps_per_cta),
        Layout::Mma { .. } => return fragment_geometry(layout, shape).map(|g| g.offsets()).unwrap_or_default(),
        Layout::Slice { dim, parent } => {
            let (d, full) = slice_parent_shape(*dim, shape);
            let mut seen = std::collections::HashSet::new();
            return reg_offsets(parent, &full)
                .into_iter()
                .map(|mut o| {
                    o.remove(d);
                    o
                })
                .filter(|o| seen.insert(o.clone()))
                .collect();
        }
    };
    let rank = shape.len();
    let mut regs: Vec<Vec<i64>> = vec![vec![]];
    for d in 0..rank {
        let footprint = (spt[d] * tpw[d] * wpc[d]) as i64;
        let reps = (shape[d] / footprint).max(1);
        let mut next = Vec::new();
        for g in &regs {
            for r in 0..reps {
                for j in 0..spt[d] as i64 {
                    let mut ng = g.clone();
                    ng.push(r * footprint + j);
                    next.push(ng);
                }
            }
        }
        regs = next;
    }
    regs
}

/// The dimension along which `layout` gives a thread its contiguous run (`order[0]`; the
/// last for the canonical layouts), for a tile of rank `rank`.
pub(crate) fn fastest_dim(layout: &Layout, rank: usize) -> usize {
    let Layout::Blocked { order, .. } = layout else {
        // Fragments hold pairs of adjacent columns; a slice, one element per coordinate.
        return rank.saturating_sub(1);
    };
    order.first().map(|&o| o as usize).filter(|&o| o < rank).unwrap_or(rank.saturating_sub(1))
}

/// Where a fragment layout (`Mma`, version 3) puts a tile's elements: the wgmma D fragment
/// of warpgroups stacked along M (`Layout::Mma`'s docs). Along a dimension shorter than
/// the fragment (M of 1; N of 1, 2 or 4) threads hold copies: coordinates wrap.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FragmentGeometry {
    /// Tile rows and columns.
    pub(crate) rows: i64,
    pub(crate) cols: i64,
    /// Rows per warpgroup (0 when the tile has one row, which every thread holds).
    pub(crate) group_rows: i64,
}

pub(crate) fn fragment_geometry(layout: &Layout, shape: &[i64]) -> Option<FragmentGeometry> {
    let Layout::Mma { warps_per_cta, .. } = layout else { return None };
    let [rows, cols] = shape else { return None };
    let groups = (warps_per_cta.first().copied().unwrap_or(4) / 4).max(1) as i64;
    let group_rows = if *rows == 1 { 0 } else { rows / groups };
    Some(FragmentGeometry { rows: *rows, cols: *cols, group_rows })
}

impl FragmentGeometry {
    /// Per-register (row, column) offsets from the thread's base, in register order.
    pub(crate) fn offsets(&self) -> Vec<Vec<i64>> {
        let blocks = (self.group_rows / 64).max(1);
        let halves = if self.rows == 1 { 1 } else { 2 };
        let groups8 = (self.cols / 8).max(1);
        let pair = self.cols.min(2);
        let mut out = Vec::new();
        for b in 0..blocks {
            for j in 0..groups8 {
                for e2 in 0..halves {
                    for e1 in 0..pair {
                        out.push(vec![64 * b + 8 * e2, 8 * j + e1]);
                    }
                }
            }
        }
        out
    }

    /// Thread `thread`'s base (row, column).
    pub(crate) fn base(&self, thread: u32) -> Vec<i64> {
        let (lane, warp) = ((thread % 32) as i64, (thread / 32) as i64);
        let row = if self.rows == 1 { 0 } else { (warp / 4) * self.group_rows + 16 * (warp % 4) + lane / 4 };
        let col = 2 * (lane % 4);
        vec![row, if self.cols < 8 { col % self.cols } else { col }]
    }
}

/// The removed dimension of a `Slice` layout over a `shape` tile, and the shape its parent
/// describes (`shape` with a unit dimension there).
pub(crate) fn slice_parent_shape(dim: u32, shape: &[i64]) -> (usize, Vec<i64>) {
    let d = (dim as usize).min(shape.len());
    let mut full = shape.to_vec();
    full.insert(d, 1);
    (d, full)
}

/// Numeric base coordinates of `thread` under a fragment layout (`Mma` or a `Slice` of one)
/// for a `shape` tile; every thread holds elements (copies where the layout is shorter).
pub(crate) fn fragment_base(layout: &Layout, shape: &[i64], thread: u32) -> Option<Vec<i64>> {
    match layout {
        Layout::Blocked { .. } => None,
        Layout::Mma { .. } => fragment_geometry(layout, shape).map(|g| g.base(thread)),
        Layout::Slice { dim, parent } => {
            let (d, full) = slice_parent_shape(*dim, shape);
            let mut b = fragment_base(parent, &full, thread)?;
            b.remove(d);
            Some(b)
        }
    }
}

/// The thread's registers of a `shape` tile held in `layout`, in vectors of `vector`
/// consecutive elements along the layout's fastest dimension (`order[0]`; `vector` divides
/// the thread's run along it): each vector's first register and all its registers in order.
pub(crate) fn vector_groups(layout: &Layout, shape: &[i64], vector: usize) -> Vec<(usize, Vec<usize>)> {
    let offsets = reg_offsets(layout, shape);
    let rank = shape.len();
    let vdim = fastest_dim(layout, rank);
    if vector <= 1 || rank == 0 {
        return (0..offsets.len()).map(|r| (r, vec![r])).collect();
    }
    if vdim + 1 == rank {
        // Registers run the last dimension fastest: a vector is consecutive registers.
        return (0..offsets.len()).step_by(vector).map(|r| (r, (r..r + vector).collect())).collect();
    }
    let index: std::collections::HashMap<&[i64], usize> = offsets.iter().enumerate().map(|(i, o)| (o.as_slice(), i)).collect();
    let mut out = Vec::new();
    for (r, o) in offsets.iter().enumerate() {
        if o[vdim] % vector as i64 != 0 {
            continue;
        }
        let members = (0..vector as i64)
            .map(|j| {
                let mut m = o.clone();
                m[vdim] += j;
                index[m.as_slice()]
            })
            .collect();
        out.push((r, members));
    }
    out
}

/// LLVM type of an element in registers.
pub(crate) fn elem_llvm(elem: TileElem) -> Result<&'static str, String> {
    match elem {
        TileElem::Ptr(_) => Ok("ptr addrspace(1)"),
        TileElem::Num(NumType::I1) => Ok("i1"),
        TileElem::Num(NumType::TF32) => Ok("float"),
        // fp8 bits; a 4-bit element (f4E2M1FN's code, i4's bits) in the low nibble, the
        // high nibble zero.
        TileElem::Num(NumType::F8E4M3FN | NumType::F8E5M2 | NumType::F8E8M0FNU | NumType::F4E2M1FN | NumType::I4) => Ok("i8"),
        TileElem::Num(n) => llvm_type(n).ok_or_else(|| format!("element type {n} is not supported by the LLVM writer yet")),
    }
}

/// Bytes an element takes in the shared-memory scratch buffer.
pub(crate) fn smem_elem_bytes(elem: TileElem) -> u64 {
    match elem {
        TileElem::Ptr(_) => 8,
        TileElem::Num(NumType::I1) => 1,
        TileElem::Num(n) => n.storage_bytes().max(1) as u64,
    }
}

/// An LLVM literal of `n` from its bit pattern.
pub(crate) fn literal(n: NumType, bits: u64) -> String {
    match n {
        NumType::I1 => if bits & 1 != 0 { "true".into() } else { "false".into() },
        NumType::I8 | NumType::F8E4M3FN | NumType::F8E5M2 | NumType::F8E8M0FNU => (bits as u8 as i8).to_string(),
        NumType::I16 => (bits as u16 as i16).to_string(),
        NumType::I32 => (bits as u32 as i32).to_string(),
        NumType::I64 => (bits as i64).to_string(),
        NumType::I4 => ((bits & 0xF) as i64).to_string(),
        NumType::F16 => format!("0xH{:04X}", bits as u16),
        NumType::BF16 => format!("0xR{:04X}", bits as u16),
        // LLVM spells float literals as the double of the same value.
        NumType::F32 | NumType::TF32 => format!("0x{:016X}", (f32::from_bits(bits as u32) as f64).to_bits()),
        NumType::F64 => format!("0x{bits:016X}"),
        NumType::F4E2M1FN => ((bits & 0xF) as i64).to_string(),
    }
}

fn int_bits(n: NumType) -> u32 {
    match n {
        NumType::I1 => 1,
        NumType::I4 => 4,
        NumType::I8 => 8,
        NumType::I16 => 16,
        NumType::I32 => 32,
        NumType::I64 => 64,
        _ => 0,
    }
}

fn nvvm_rounding(r: RoundingMode) -> Option<&'static str> {
    Some(match r {
        RoundingMode::NearestEven => "rn",
        RoundingMode::Zero => "rz",
        RoundingMode::NegativeInf => "rm",
        RoundingMode::PositiveInf => "rp",
        _ => return None,
    })
}

pub(crate) type R<T> = Result<T, String>;

impl FuncWriter<'_> {
    pub(crate) fn val_ty(&self, v: ValueId) -> ValTy {
        match self.m.types.get(self.m.value_type(v)) {
            Type::Scalar(n) => ValTy { shape: vec![], elem: TileElem::Num(*n), layout: None },
            Type::AaPtr { pointee, .. } => ValTy { shape: vec![], elem: TileElem::Ptr(*pointee), layout: None },
            Type::Tile { shape, elem, layout } => ValTy { shape: shape.clone(), elem: *elem, layout: layout.clone() },
            _ => ValTy { shape: vec![], elem: TileElem::Num(NumType::I32), layout: None },
        }
    }

    /// The thread's elements of `v` (one for a rank-0 value).
    pub(crate) fn elems(&mut self, v: ValueId) -> R<Vec<String>> {
        match self.values.get(&v) {
            Some(Lowered::Scalar(s)) => Ok(vec![s.clone()]),
            Some(Lowered::Tile(e)) => Ok(e.clone()),
            Some(other) => Err(format!("operand {v} is {other:?}, not a tile or scalar")),
            None => Err(format!("operand {v} was not lowered")),
        }
    }

    pub(crate) fn set_elems(&mut self, v: ValueId, elems: Vec<String>) {
        let t = self.val_ty(v);
        if t.shape.is_empty() && elems.len() == 1 {
            self.values.insert(v, Lowered::Scalar(elems.into_iter().next().unwrap_or_default()));
        } else {
            self.values.insert(v, Lowered::Tile(elems));
        }
    }

    pub(crate) fn emit(&mut self, hint: &str, text: String) -> String {
        let r = self.fresh(hint);
        self.line(&format!("{r} = {text}"));
        r
    }

    pub(crate) fn intrinsic(&mut self, ret: &str, name: &str, args: &[(&str, &str)]) -> String {
        let tys: Vec<&str> = args.iter().map(|a| a.0).collect();
        self.declare(&format!("declare {ret} @{name}({})", tys.join(", ")));
        let list: Vec<String> = args.iter().map(|(t, v)| format!("{t} {v}")).collect();
        self.emit("c", format!("call {ret} @{name}({})", list.join(", ")))
    }

    /// Calls an intrinsic that returns nothing.
    pub(crate) fn intrinsic_void(&mut self, name: &str, args: &[(&str, &str)]) {
        let tys: Vec<&str> = args.iter().map(|a| a.0).collect();
        self.declare(&format!("declare void @{name}({})", tys.join(", ")));
        let list: Vec<String> = args.iter().map(|(t, v)| format!("{t} {v}")).collect();
        self.line(&format!("call void @{name}({})", list.join(", ")));
    }

    /// A barrier of every thread running the kernel's code: the whole CTA, or once a
    /// warp-specialized ring's producer warpgroup has left, named barrier 1 over the
    /// kernel's own warps.
    pub(crate) fn barrier(&mut self) {
        match self.producer_warps {
            Some(warps) => {
                self.declare("declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32)");
                self.line(&format!("call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 1, i32 {})", 32 * warps));
            }
            None => {
                self.declare("declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)");
                self.line("call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)");
            }
        }
    }

    pub(crate) fn new_label(&mut self, hint: &str) -> String {
        self.counter += 1;
        format!("%{hint}.{}", self.counter)
    }

    /// Per-register i32 coordinates of the thread's elements of a `shape` tile.
    pub(crate) fn reg_coords(&mut self, layout: &Layout, shape: &[i64]) -> Vec<Vec<String>> {
        let tc = self.thread_coords(layout, shape);
        let base32: Vec<String> = match layout {
            // Threads past a dimension the CTA over-covers hold the coordinates of the threads
            // they replicate (tile dimensions are powers of two): every read they make stays
            // inside the tile, while their writes stay guarded by `owns`.
            Layout::Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, .. } => tc
                .base
                .iter()
                .enumerate()
                .map(|(d, b)| {
                    if (spt[d] * tpw[d] * wpc[d]) as i64 > shape[d] {
                        self.emit("wrap", format!("and i32 {b}.e, {}", shape[d] - 1))
                    } else {
                        format!("{b}.e")
                    }
                })
                .collect(),
            // Fragment layouts wrap their coordinates in `thread_coords` already.
            Layout::Mma { .. } | Layout::Slice { .. } => tc.base.iter().map(|b| format!("{b}.e")).collect(),
        };
        reg_offsets(layout, shape)
            .into_iter()
            .map(|offs| {
                offs.iter()
                    .enumerate()
                    .map(|(d, &o)| if o == 0 { base32[d].clone() } else { self.emit("rc", format!("add i32 {}, {o}", base32[d])) })
                    .collect()
            })
            .collect()
    }

    /// The i1 "this thread owns real elements" predicate of a layout (replicated threads
    /// hold coordinates past the tile).
    pub(crate) fn owns(&mut self, layout: &Layout, shape: &[i64]) -> Option<String> {
        self.thread_coords(layout, shape).valid
    }

    /// Reserves `bytes` of the scratch buffer (shared by every op, one at a time).
    pub(crate) fn scratch(&mut self, bytes: u64) {
        let bytes = bytes.div_ceil(16) * 16;
        self.smem_bytes = self.smem_bytes.max(bytes);
        if self.ring_loop_depth > 0 || self.persistent_ring.is_some() {
            // Used while a TMA ring's copies fly (in a persistent ring's tile loop, its
            // producer runs ahead into the next tile's): the stages must lie past it.
            self.ring_scratch_bytes = self.ring_scratch_bytes.max(bytes);
        }
    }

    pub(crate) fn smem_ptr(&mut self, byte_offset: &str) -> String {
        let name = self.smem_name.clone();
        self.emit("sp", format!("getelementptr i8, ptr addrspace(3) {name}, i32 {byte_offset}"))
    }

    pub(crate) fn smem_store(&mut self, elem: TileElem, byte_offset: &str, value: &str) -> R<()> {
        let lt = elem_llvm(elem)?;
        let p = self.smem_ptr(byte_offset);
        if lt == "i1" {
            let z = self.emit("zb", format!("zext i1 {value} to i8"));
            self.line(&format!("store i8 {z}, ptr addrspace(3) {p}, align 1"));
        } else {
            self.line(&format!("store {lt} {value}, ptr addrspace(3) {p}"));
        }
        Ok(())
    }

    pub(crate) fn smem_load(&mut self, elem: TileElem, byte_offset: &str) -> R<String> {
        let lt = elem_llvm(elem)?;
        let p = self.smem_ptr(byte_offset);
        if lt == "i1" {
            let b = self.emit("lb", format!("load i8, ptr addrspace(3) {p}, align 1"));
            Ok(self.emit("tb", format!("trunc i8 {b} to i1")))
        } else {
            Ok(self.emit("ls", format!("load {lt}, ptr addrspace(3) {p}")))
        }
    }

    /// Row-major linear index (i32) of `coords` in `shape`.
    pub(crate) fn linear(&mut self, coords: &[String], shape: &[i64]) -> String {
        let mut acc: Option<String> = None;
        for (d, c) in coords.iter().enumerate() {
            acc = Some(match acc {
                None => c.clone(),
                Some(a) => {
                    let m = self.emit("li", format!("mul i32 {a}, {}", shape[d]));
                    self.emit("li", format!("add i32 {m}, {c}"))
                }
            });
        }
        acc.unwrap_or_else(|| "0".into())
    }

    /// Stores every element the thread owns of tile `v` at `base_bytes + linear * size`.
    /// A rank-0 value is stored by thread 0 only (every thread holds the same value).
    pub(crate) fn spill_to_smem(&mut self, v: ValueId, base_bytes: u64) -> R<()> {
        let t = self.val_ty(v);
        let size = smem_elem_bytes(t.elem);
        let shape = t.shape.clone();
        self.spill_to_smem_at(v, base_bytes, &mut |w, coords| {
            let lin = w.linear(coords, &shape);
            let off = w.emit("so", format!("mul i32 {lin}, {size}"));
            if base_bytes == 0 {
                off
            } else {
                w.emit("so", format!("add i32 {off}, {base_bytes}"))
            }
        })
    }

    /// Stores every element the thread owns of tile `v` at the byte offset `offset` gives
    /// for its coordinates (a rank-0 value: by thread 0 only, at `scalar_bytes`).
    pub(crate) fn spill_to_smem_at(
        &mut self,
        v: ValueId,
        scalar_bytes: u64,
        offset: &mut dyn FnMut(&mut Self, &[String]) -> String,
    ) -> R<()> {
        self.spill_to_smem_vectors(v, scalar_bytes, 1, offset)
    }

    /// [`Self::spill_to_smem_at`] in vectors of `vector` registers: consecutive elements
    /// along the layout's fastest dimension (`order[0]`), which the caller knows `offset`
    /// places contiguously (`vector` divides the layout's elements per thread along it, and
    /// the vector's bytes are a power of two its first offset is aligned to).
    pub(crate) fn spill_to_smem_vectors(
        &mut self,
        v: ValueId,
        scalar_bytes: u64,
        vector: usize,
        offset: &mut dyn FnMut(&mut Self, &[String]) -> String,
    ) -> R<()> {
        let t = self.val_ty(v);
        let elems = self.elems(v)?;
        let Some(layout) = t.layout.clone() else {
            let tid = self.thread_id();
            let is0 = self.emit("t0", format!("icmp eq i32 {tid}, 0"));
            let (yes, join) = (self.new_label("st0"), self.new_label("st0j"));
            self.line(&format!("br i1 {is0}, label {yes}, label {join}"));
            self.label(&yes);
            self.smem_store(t.elem, &scalar_bytes.to_string(), &elems[0])?;
            self.line(&format!("br label {join}"));
            self.label(&join);
            return Ok(());
        };
        let coords = self.reg_coords(&layout, &t.shape);
        let owns = self.owns(&layout, &t.shape);
        let join = owns.as_ref().map(|o| {
            let (yes, join) = (format!("%own.{}", self.counter + 1), format!("%ownj.{}", self.counter + 1));
            self.counter += 1;
            self.line(&format!("br i1 {o}, label {yes}, label {join}"));
            self.label(&yes);
            join
        });
        let lt = elem_llvm(t.elem)?;
        let vector = if lt == "i1" { 1 } else { vector.max(1) };
        for (r, members) in vector_groups(&layout, &t.shape, vector) {
            let off = offset(self, &coords[r]);
            if vector == 1 {
                self.smem_store(t.elem, &off, &elems[r])?;
                continue;
            }
            let vt = format!("<{vector} x {lt}>");
            let mut acc = "poison".to_string();
            for (i, &m) in members.iter().enumerate() {
                acc = self.emit("sv", format!("insertelement {vt} {acc}, {lt} {}, i32 {i}", elems[m]));
            }
            let p = self.smem_ptr(&off);
            let align = vector as u64 * smem_elem_bytes(t.elem);
            self.line(&format!("store {vt} {acc}, ptr addrspace(3) {p}, align {align}"));
        }
        if let Some(join) = join {
            self.line(&format!("br label {join}"));
            self.label(&join);
        }
        Ok(())
    }

    /// Stages the tiles among `args` in shared memory, row-major, for thread 0 to read;
    /// returns each argument's byte offset (None for rank-0 values, which every thread has).
    pub(crate) fn stage_tiles_for_thread0(&mut self, args: &[ValueId]) -> R<Vec<Option<u64>>> {
        let mut offsets = Vec::new();
        let mut total = 0u64;
        for &a in args {
            let t = self.val_ty(a);
            if t.shape.is_empty() {
                offsets.push(None);
            } else {
                offsets.push(Some(total));
                total += (t.shape.iter().product::<i64>() as u64 * smem_elem_bytes(t.elem)).div_ceil(16) * 16;
            }
        }
        if total > 0 {
            self.scratch(total);
            self.barrier();
            for (i, &a) in args.iter().enumerate() {
                if let Some(off) = offsets[i] {
                    self.spill_to_smem(a, off)?;
                }
            }
            self.barrier();
        }
        Ok(offsets)
    }

    pub(crate) fn smem_load_at(&mut self, elem: TileElem, byte_offset: u64) -> R<String> {
        self.smem_load(elem, &byte_offset.to_string())
    }

    /// Per-register coordinates of a result value (one empty list for rank 0).
    pub(crate) fn result_coords(&mut self, v: ValueId) -> Vec<Vec<String>> {
        let t = self.val_ty(v);
        match &t.layout {
            Some(l) => self.reg_coords(l, &t.shape),
            None => vec![vec![]],
        }
    }

    /// The generic data path of a relayout: stores `sources` (each at its own byte
    /// offset), then gives each register of `result` the element at the byte offset
    /// `source_offset(result coords)` returns.
    #[allow(clippy::type_complexity)]
    fn gather_through_smem(
        &mut self,
        sources: &[ValueId],
        result: ValueId,
        source_offset: &mut dyn FnMut(&mut Self, &[String], &[u64]) -> R<String>,
    ) -> R<()> {
        let rt = self.val_ty(result);
        self.through_smem(sources, result, &mut |w, coords, bases| {
            let off = source_offset(w, coords, bases)?;
            w.smem_load(rt.elem, &off)
        })
    }

    /// Stores `sources` in shared memory (each at its own 16-byte aligned byte offset, every
    /// element in `smem_elem_bytes`), then computes each register of `result` with `read`
    /// from its coordinates and the sources' offsets.
    #[allow(clippy::type_complexity)]
    fn through_smem(
        &mut self,
        sources: &[ValueId],
        result: ValueId,
        read: &mut dyn FnMut(&mut Self, &[String], &[u64]) -> R<String>,
    ) -> R<()> {
        let mut bases = Vec::new();
        let mut total = 0u64;
        for &s in sources {
            bases.push(total);
            let t = self.val_ty(s);
            let n: i64 = t.shape.iter().product::<i64>().max(1);
            total += (n as u64 * smem_elem_bytes(t.elem)).div_ceil(16) * 16;
        }
        self.scratch(total);
        self.barrier();
        for (i, &s) in sources.iter().enumerate() {
            self.spill_to_smem(s, bases[i])?;
        }
        self.barrier();
        let coords = self.result_coords(result);
        let mut out = Vec::with_capacity(coords.len());
        for c in coords {
            out.push(read(self, &c, &bases)?);
        }
        self.set_elems(result, out);
        // Replicas read the coordinates they replicate: a single element reaches every thread.
        if is_single_element(&self.val_ty(result).shape) {
            self.uniform_values.insert(result);
        }
        Ok(())
    }

    /// Entry point for every residual cuda_tile op.
    pub(crate) fn ct_op(&mut self, op: OpId, c: &CudaTileOp) {
        if let Err(message) = self.ct_op_inner(op, c) {
            self.error(op, message);
        }
    }

    fn ct_op_inner(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        match c.op {
            CtOp::Constant => self.constant(op, c),
            CtOp::Iota => {
                let r = data.results[0];
                let t = self.val_ty(r);
                let lt = elem_llvm(t.elem)?;
                let coords = self.result_coords(r);
                let out = coords
                    .iter()
                    .map(|c| match lt {
                        "i32" => c[0].clone(),
                        "i64" => self.emit("io", format!("zext i32 {} to i64", c[0])),
                        _ => self.emit("io", format!("trunc i32 {} to {lt}", c[0])),
                    })
                    .collect();
                self.set_elems(r, out);
                Ok(())
            }
            CtOp::Assume => {
                let e = self.elems(data.operands[0])?;
                self.set_elems(data.results[0], e);
                Ok(())
            }
            CtOp::JoinTokens => {
                self.values.insert(data.results[0], Lowered::Token);
                Ok(())
            }
            CtOp::Broadcast | CtOp::Reshape | CtOp::Permute | CtOp::Extract | CtOp::Cat => {
                self.relayout(op, c, c.op.mnemonic(), crate::dispatch::forced(c))
            }
            CtOp::Pack | CtOp::Unpack => {
                // Both are the tile's bits read back at another element size (low bits
                // first), through shared memory. Whole-byte elements are written in the
                // source's type and read in the result's; a sub-byte element (i1 is one bit,
                // i4 and f4E2M1FN four) takes a byte of its own in shared memory, and each
                // packed byte is assembled from, or split into, its elements.
                let (src, result) = (data.operands[0], data.results[0]);
                let (st, rt) = (self.val_ty(src), self.val_ty(result));
                let packed_bits = |e: TileElem| match e {
                    TileElem::Num(NumType::I1) => 1,
                    TileElem::Num(n) => n.bit_width(),
                    TileElem::Ptr(_) => 64,
                };
                let (source_bits, result_bits) = (packed_bits(st.elem), packed_bits(rt.elem));
                if source_bits >= 8 && result_bits >= 8 {
                    let size = smem_elem_bytes(rt.elem);
                    return self.gather_through_smem(&[src], result, &mut |w, coords, _| Ok(w.emit("pk", format!("mul i32 {}, {size}", coords[0]))));
                }
                if c.op == CtOp::Pack {
                    // Byte i holds elements i·k .. i·k + k - 1 (k = 8 / bits), the first lowest.
                    let (per_byte, mask) = (8 / source_bits, (1u32 << source_bits) - 1);
                    self.through_smem(&[src], result, &mut |w, coords, _| {
                        let first = w.emit("pk", format!("mul i32 {}, {per_byte}", coords[0]));
                        let mut byte: Option<String> = None;
                        for k in 0..per_byte {
                            let at = w.emit("pk", format!("add i32 {first}, {k}"));
                            let raw = w.smem_load(TileElem::Num(NumType::I8), &at)?;
                            let bits = w.emit("pk", format!("and i8 {raw}, {mask}"));
                            let placed = if k == 0 { bits } else { w.emit("pk", format!("shl i8 {bits}, {}", k * source_bits)) };
                            byte = Some(match byte {
                                None => placed,
                                Some(b) => w.emit("pk", format!("or i8 {b}, {placed}")),
                            });
                        }
                        Ok(byte.unwrap_or_else(|| "0".into()))
                    })
                } else {
                    // Element j is bits (j·bits) % 8 .. of byte j·bits / 8.
                    let (per_byte, mask) = (8 / result_bits, (1u32 << result_bits) - 1);
                    self.through_smem(&[src], result, &mut |w, coords, _| {
                        let at = w.emit("up", format!("udiv i32 {}, {per_byte}", coords[0]));
                        let raw = w.smem_load(TileElem::Num(NumType::I8), &at)?;
                        let k = w.emit("up", format!("urem i32 {}, {per_byte}", coords[0]));
                        let shift32 = w.emit("up", format!("mul i32 {k}, {result_bits}"));
                        let shift = w.emit("up", format!("trunc i32 {shift32} to i8"));
                        let moved = w.emit("up", format!("lshr i8 {raw}, {shift}"));
                        let bits = w.emit("up", format!("and i8 {moved}, {mask}"));
                        Ok(if result_bits == 1 { w.emit("up", format!("trunc i8 {bits} to i1")) } else { bits })
                    })
                }
            }
            CtOp::Reduce | CtOp::Scan | CtOp::MmaF | CtOp::MmaI | CtOp::MmaFScaled => self.dispatch(op, c),
            CtOp::For => self.for_loop(op, c),
            CtOp::Loop => self.general_loop(op),
            CtOp::If => self.if_op(op),
            CtOp::Yield | CtOp::Continue | CtOp::Break => {
                Err(format!("'{}' outside the structured op it terminates", c.op.mnemonic()))
            }
            CtOp::Offset => {
                let TileElem::Ptr(pointee) = self.val_ty(data.operands[0]).elem else {
                    return Err("expected a pointer tile".into());
                };
                let it = self.val_ty(data.operands[1]).num().ok_or("expected an integer offset")?;
                if pointee == NumType::I4 {
                    return Err("pointers to i4 cannot be offset: i4 has no memory layout".into());
                }
                // Bytes (i1 and fp8 included) step by their storage size; f4E2M1FN by nibbles.
                let pt = if pointee == NumType::I1 { "i8" } else { elem_llvm(TileElem::Num(pointee))? };
                let (ps, os) = (self.elems(data.operands[0])?, self.elems(data.operands[1])?);
                let ilt = elem_llvm(TileElem::Num(it))?;
                let mut out = Vec::new();
                for (p, o) in ps.iter().zip(os.iter()) {
                    let w = if ilt == "i64" { o.clone() } else { self.emit("ow", format!("sext {ilt} {o} to i64")) };
                    out.push(if pointee == NumType::F4E2M1FN {
                        self.offset_nibble_pointer(p, &w)
                    } else {
                        self.emit("gp", format!("getelementptr {pt}, ptr addrspace(1) {p}, i64 {w}"))
                    });
                }
                self.set_elems(data.results[0], out);
                Ok(())
            }
            CtOp::LoadPtrTko => self.load_ptr(op, c),
            CtOp::PrintTko => self.print_op(op, c),
            CtOp::Assert => self.assert_op(op, c),
            CtOp::Alloca => self.alloca_op(op, c),
            CtOp::StorePtrTko => self.store_ptr(op, c),
            CtOp::AtomicRmwTko | CtOp::AtomicCasTko => self.atomic(op, c),
            CtOp::GdcWaitTko | CtOp::GdcLaunchDependentsTko => {
                if crate::writer::sm_number(&self.target).is_some_and(|sm| sm < 90) {
                    // Before sm_90 there is no programmatic dependent launch: a kernel starts
                    // only once the grids before it in its stream have finished (what the wait
                    // waits for), and the launch of dependents is a hint. Both are no-ops.
                    self.values.insert(data.results[0], Lowered::Token);
                    return Ok(());
                }
                let name = if c.op == CtOp::GdcWaitTko { "wait" } else { "launch.dependents" };
                self.declare(&format!("declare void @llvm.nvvm.griddepcontrol.{name}()"));
                self.line(&format!("call void @llvm.nvvm.griddepcontrol.{name}()"));
                self.values.insert(data.results[0], Lowered::Token);
                Ok(())
            }
            _ => self.elementwise_ct(op, c),
        }
    }

    fn constant(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let r = self.m.ops[op].results[0];
        let t = self.val_ty(r);
        let Some(Attr::Dense(d)) = c.get("value") else { return Err("missing dense value".into()) };
        let n = t.num().ok_or("pointer constants are not supported")?;
        let lt = elem_llvm(t.elem)?;
        let count = match &t.layout {
            Some(l) => reg_offsets(l, &t.shape).len(),
            None => 1,
        };
        if d.is_splat() || t.shape.is_empty() {
            // LLVM operands may be constants: the literal stands for the value.
            let _ = lt;
            self.set_elems(r, vec![literal(n, d.get(0)); count]);
            return Ok(());
        }
        // A non-uniform constant lives in global memory, read at each register's position.
        let lt_store = if lt == "i1" { "i8" } else { lt };
        let items: Vec<String> = (0..d.num_elements())
            .map(|i| format!("{lt_store} {}", if lt == "i1" { ((d.get(i) & 1) as i64).to_string() } else { literal(n, d.get(i)) }))
            .collect();
        self.counter += 1;
        let name = format!("{}.const{}", self.smem_name.trim_end_matches(".smem"), self.counter);
        self.declare(&format!(
            "{name} = internal addrspace(1) constant [{} x {lt_store}] [{}], align 16",
            items.len(),
            items.join(", ")
        ));
        let coords = self.result_coords(r);
        let mut out = Vec::new();
        for cs in coords {
            let lin = self.linear(&cs, &t.shape);
            // Replicated threads hold coordinates past the tile: clamp them into it.
            let cl = self.emit("cl", format!("urem i32 {lin}, {}", items.len()));
            let p = self.emit("cp", format!("getelementptr {lt_store}, ptr addrspace(1) {name}, i32 {cl}"));
            let v = self.emit("cv", format!("load {lt_store}, ptr addrspace(1) {p}"));
            out.push(if lt == "i1" { self.emit("cb", format!("trunc i8 {v} to i1")) } else { v });
        }
        self.set_elems(r, out);
        Ok(())
    }

    /// A relayout op (broadcast, reshape, permute, extract, cat; nv_tileas's convert_layout
    /// as a reshape to its own shape, named `mnemonic`): the cases where no element moves
    /// are handled here, the others by the first of the `relayout` variants (`registers`,
    /// `shuffle`, `shared_memory`) that applies, or the one `forced` names.
    pub(crate) fn relayout(&mut self, op: OpId, c: &CudaTileOp, mnemonic: &str, forced: Option<&str>) -> R<()> {
        let data = self.m.ops[op].clone();
        let src = data.operands[0];
        let result = data.results[0];
        let st = self.val_ty(src);
        let rt = self.val_ty(result);
        // A rank-0 source is already in every thread.
        if st.shape.is_empty() && matches!(c.op, CtOp::Broadcast | CtOp::Reshape) {
            let v = self.elems(src)?[0].clone();
            let count = rt.layout.as_ref().map(|l| reg_offsets(l, &rt.shape).len()).unwrap_or(1);
            self.set_elems(result, vec![v; count]);
            if is_single_element(&rt.shape) {
                self.uniform_values.insert(result);
            }
            return Ok(());
        }
        // Same shape and layout: the same elements, except for a permute that moves them
        // (a transpose of a square tile keeps its shape).
        let moves_elements = c.op == CtOp::Permute
            && !matches!(c.get("permutation"), Some(Attr::IntArray(p)) if p.iter().enumerate().all(|(i, &d)| d == i as i64));
        if st.layout == rt.layout && st.shape == rt.shape && !moves_elements {
            let e = self.elems(src)?;
            self.set_elems(result, e);
            if self.uniform_values.contains(&src) {
                self.uniform_values.insert(result);
            }
            return Ok(());
        }
        // A single element every thread holds is broadcast or reshaped in place.
        if matches!(c.op, CtOp::Broadcast | CtOp::Reshape) && self.uniform_values.contains(&src) {
            let v = self.elems(src)?[0].clone();
            let count = rt.layout.as_ref().map(|l| reg_offsets(l, &rt.shape).len()).unwrap_or(1);
            self.set_elems(result, vec![v; count]);
            if is_single_element(&rt.shape) {
                self.uniform_values.insert(result);
            }
            return Ok(());
        }
        self.run_variants(op, c, mnemonic, crate::dispatch::RELAYOUT, forced, &|_, _| None)
    }

    /// The source coordinates of each result coordinate of relayout `c`, and both tiles'
    /// layouts and shapes; None for ops without such a map (extract, cat) or layouts.
    fn relayout_map(&self, op: OpId, c: &CudaTileOp) -> Option<RelayoutMap> {
        let data = &self.m.ops[op];
        let (st, rt) = (self.val_ty(data.operands[0]), self.val_ty(data.results[0]));
        let (sl, rl) = (st.layout.clone()?, rt.layout.clone()?);
        let (sshape, rshape) = (st.shape.clone(), rt.shape.clone());
        let source_of: crate::in_thread::SourceOf = match c.op {
            CtOp::Broadcast => {
                let sshape = sshape.clone();
                Box::new(move |rc: &[i64]| rc.iter().zip(&sshape).map(|(&x, &s)| if s == 1 { 0 } else { x }).collect())
            }
            CtOp::Reshape => {
                let (sshape, rshape) = (sshape.clone(), rshape.clone());
                Box::new(move |rc: &[i64]| crate::in_thread::unflatten(crate::in_thread::flat_index(rc, &rshape), &sshape))
            }
            CtOp::Permute => match c.get("permutation") {
                Some(Attr::IntArray(perm)) => {
                    let perm = perm.clone();
                    Box::new(move |rc: &[i64]| {
                        let mut sc = vec![0; rc.len()];
                        for (i, &p) in perm.iter().enumerate() {
                            sc[p as usize] = rc[i];
                        }
                        sc
                    })
                }
                _ => return None,
            },
            _ => return None,
        };
        Some(RelayoutMap { source_of, source: (sl, sshape), result: (rl, rshape) })
    }

    /// The in-thread plan of relayout `op` (each result register a source register), or why
    /// there is none.
    fn relayout_in_thread_plan(&self, op: OpId, c: &CudaTileOp) -> R<Vec<usize>> {
        let RelayoutMap { source_of: f, source: (sl, ss), result: (rl, rs) } =
            self.relayout_map(op, c).ok_or("extract and cat move elements between threads")?;
        crate::in_thread::in_thread_sources((&sl, &ss), (&rl, &rs), &*f)
            .ok_or_else(|| "some thread needs elements another thread holds".to_string())
    }

    /// The warp-shuffle plan of relayout `op`, or why there is none.
    fn relayout_shuffle_plan(&self, op: OpId, c: &CudaTileOp) -> R<Vec<crate::in_thread::ShuffleSource>> {
        if !matches!(self.val_ty(self.m.ops[op].results[0]).elem, TileElem::Num(_)) {
            return Err("pointer tiles are not shuffled".into());
        }
        let RelayoutMap { source_of: f, source: (sl, ss), result: (rl, rs) } =
            self.relayout_map(op, c).ok_or("extract and cat move elements between threads")?;
        crate::in_thread::warp_shuffle_sources((&sl, &ss), (&rl, &rs), &*f)
            .ok_or_else(|| "some thread needs elements another warp holds".to_string())
    }

    /// The `registers` relayout variant: every thread already holds what it needs.
    pub(crate) fn relayout_in_registers(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let plan = self.relayout_in_thread_plan(op, c)?;
        let data = &self.m.ops[op];
        let (src, result) = (data.operands[0], data.results[0]);
        let e = self.elems(src)?;
        let out = plan.iter().map(|&k| e[k].clone()).collect();
        self.set_elems(result, out);
        Ok(())
    }

    /// The `shuffle` relayout variant: elements move between the lanes of each warp.
    pub(crate) fn relayout_shuffled(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let plan = self.relayout_shuffle_plan(op, c)?;
        let data = &self.m.ops[op];
        let (src, result) = (data.operands[0], data.results[0]);
        self.relayout_by_shuffles(src, result, &plan)
    }

    /// Why the `registers` relayout variant does not apply (None: it does).
    pub(crate) fn relayout_in_registers_rejects(&self, op: OpId, c: &CudaTileOp) -> Option<String> {
        self.relayout_in_thread_plan(op, c).err()
    }

    /// Why the `shuffle` relayout variant does not apply (None: it does).
    pub(crate) fn relayout_shuffled_rejects(&self, op: OpId, c: &CudaTileOp) -> Option<String> {
        self.relayout_shuffle_plan(op, c).err()
    }

    /// The `shared_memory` relayout variant: the source goes to shared memory and every
    /// thread reads its registers back (any op, any layouts).
    pub(crate) fn relayout_through_smem(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let src = data.operands[0];
        let result = data.results[0];
        let st = self.val_ty(src);
        let rt = self.val_ty(result);
        let size = smem_elem_bytes(rt.elem);
        let sshape = st.shape.clone();
        let rshape = rt.shape.clone();
        match c.op {
            CtOp::Broadcast => self.gather_through_smem(&[src], result, &mut |w, coords, _| {
                let sc: Vec<String> =
                    coords.iter().enumerate().map(|(d, x)| if sshape[d] == 1 { "0".to_string() } else { x.clone() }).collect();
                let lin = w.linear(&sc, &sshape);
                Ok(w.emit("bo", format!("mul i32 {lin}, {size}")))
            }),
            CtOp::Reshape => self.gather_through_smem(&[src], result, &mut |w, coords, _| {
                let lin = w.linear(coords, &rshape);
                Ok(w.emit("ro", format!("mul i32 {lin}, {size}")))
            }),
            CtOp::Permute => {
                let Some(Attr::IntArray(perm)) = c.get("permutation") else { return Err("missing permutation".into()) };
                let perm = perm.clone();
                self.gather_through_smem(&[src], result, &mut |w, coords, _| {
                    let mut sc = vec![String::new(); coords.len()];
                    for (i, &p) in perm.iter().enumerate() {
                        sc[p as usize] = coords[i].clone();
                    }
                    let lin = w.linear(&sc, &sshape);
                    Ok(w.emit("po", format!("mul i32 {lin}, {size}")))
                })
            }
            CtOp::Extract => {
                let mut idx = Vec::new();
                for &v in &data.operands[1..] {
                    idx.push(self.elems(v)?[0].clone());
                }
                self.gather_through_smem(&[src], result, &mut |w, coords, _| {
                    let mut sc = Vec::new();
                    for (d, x) in coords.iter().enumerate() {
                        let start = w.emit("xs", format!("mul i32 {}, {}", idx[d], rshape[d]));
                        sc.push(w.emit("xc", format!("add i32 {start}, {x}")));
                    }
                    let lin = w.linear(&sc, &sshape);
                    Ok(w.emit("xo", format!("mul i32 {lin}, {size}")))
                })
            }
            CtOp::Cat => {
                let dim = c.int("dim").ok_or("missing dim")? as usize;
                let rhs = data.operands[1];
                let lshape = sshape.clone();
                let rhs_shape = self.val_ty(rhs).shape;
                let split = lshape[dim];
                self.gather_through_smem(&[src, rhs], result, &mut |w, coords, bases| {
                    let ll = w.linear(coords, &lshape);
                    let lo = w.emit("co", format!("mul i32 {ll}, {size}"));
                    let mut rc = coords.to_vec();
                    rc[dim] = w.emit("cr", format!("sub i32 {}, {split}", coords[dim]));
                    let rl = w.linear(&rc, &rhs_shape);
                    let ro = w.emit("co", format!("mul i32 {rl}, {size}"));
                    let ro = w.emit("co", format!("add i32 {ro}, {}", bases[1]));
                    let is_l = w.emit("cl", format!("icmp slt i32 {}, {split}", coords[dim]));
                    Ok(w.emit("co", format!("select i1 {is_l}, i32 {lo}, i32 {ro}")))
                })
            }
            _ => Err("not a relayout op".into()),
        }
    }

    /// Lowers a region's block (reduce/scan bodies, loop bodies) with `args` bound to its
    /// arguments; returns the terminator's op and its operands' lowered values.
    pub(crate) fn inline_block(&mut self, block: tileir_ir::BlockId, args: &[Vec<String>]) -> R<Option<(OpId, Vec<Vec<String>>)>> {
        let bargs = self.m.blocks[block].args.clone();
        for (a, v) in bargs.iter().zip(args) {
            self.set_elems(*a, v.clone());
        }
        let term = self.inline_block_no_bind(block)?;
        self.wide.clear();
        Ok(term)
    }

    /// The identity values of a reduce/scan as operands of each operand's element type.
    pub(crate) fn identities(&mut self, ids: &[Attr], elem_tys: &[TileElem]) -> R<Vec<String>> {
        let mut identities = Vec::new();
        for (id, e) in ids.iter().zip(elem_tys) {
            let Attr::Scalar(it, bits) = id else { return Err("identity is not a typed scalar".into()) };
            let TileElem::Num(en) = e else { return Err("reduction of pointers".into()) };
            let lit = literal(*it, *bits);
            let lt = elem_llvm(*e)?;
            let v = if it == en {
                lit
            } else {
                let from = elem_llvm(TileElem::Num(*it))?;
                let op = if it.storage_bytes() < en.storage_bytes() { "fpext" } else { "fptrunc" };
                self.emit("id", format!("{op} {from} {lit} to {lt}"))
            };
            identities.push(v);
        }
        Ok(identities)
    }

    pub(crate) fn reduce_scan(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let m = self.m;
        let data = m.ops[op].clone();
        let is_scan = c.op == CtOp::Scan;
        let dim = c.int("dim").ok_or("missing dim")? as usize;
        let reverse = c.flag("reverse");
        let Some(Attr::Array(ids)) = c.get("identities") else { return Err("missing identities".into()) };
        let body = m.entry_block(op, 0).ok_or("missing body")?;
        let st = self.val_ty(data.operands[0]);
        let n = st.shape[dim];
        let elem_tys: Vec<TileElem> = data.operands.iter().map(|&v| self.val_ty(v).elem).collect();
        let identities = self.identities(ids, &elem_tys)?;
        // Stage every operand in shared memory, row-major.
        let mut bases = Vec::new();
        let mut total = 0u64;
        let count: i64 = st.shape.iter().product();
        for e in &elem_tys {
            bases.push(total);
            total += (count as u64 * smem_elem_bytes(*e)).div_ceil(16) * 16;
        }
        self.scratch(total);
        self.barrier();
        for (i, &v) in data.operands.iter().enumerate() {
            self.spill_to_smem(v, bases[i])?;
        }
        self.barrier();
        let results = data.results.clone();
        let coords = self.result_coords(results[0]);
        let shape = st.shape.clone();
        let mut outs: Vec<Vec<String>> = vec![Vec::new(); results.len()];
        for rc in coords {
            // Reduce: rc lacks `dim`; scan: rc is the full coordinate and the loop stops at it.
            // Scan: the loop stops at the element's own position (counted from the end when
            // reversed); reduce: it runs over the whole dimension.
            let trip = match (is_scan, reverse) {
                (false, _) => n.to_string(),
                (true, false) => self.emit("tr", format!("add i32 {}, 1", rc[dim])),
                (true, true) => self.emit("tr", format!("sub i32 {n}, {}", rc[dim])),
            };
            let carried: Vec<(&str, String)> =
                elem_tys.iter().zip(&identities).map(|(e, id)| Ok((elem_llvm(*e)?, id.clone()))).collect::<R<_>>()?;
            let l = self.counted_loop_begin("red", &trip, &carried);
            let k = l.k.clone();
            let accs = l.phis.clone();
            let kk = if is_scan && reverse { self.emit("kr", format!("sub i32 {}, {k}", n - 1)) } else { k };
            let mut sc: Vec<String> = rc.clone();
            if is_scan {
                sc[dim] = kk;
            } else {
                sc.insert(dim, kk);
            }
            let lin = self.linear(&sc, &shape);
            let mut args = Vec::new();
            for (i, e) in elem_tys.iter().enumerate() {
                let off = self.emit("ro", format!("mul i32 {lin}, {}", smem_elem_bytes(*e)));
                let off = self.emit("ro", format!("add i32 {off}, {}", bases[i]));
                let x = self.smem_load(*e, &off)?;
                args.push(vec![x]);
                args.push(vec![accs[i].clone()]);
            }
            let term = self.inline_block(body, &args)?.ok_or("reduction body without yield")?;
            let mut next = Vec::new();
            for i in 0..accs.len() {
                next.push(term.1.get(i).and_then(|v| v.first()).cloned().ok_or("reduction body yields too few values")?);
            }
            self.counted_loop_end(&l, 1, &next);
            for (i, a) in accs.iter().enumerate() {
                outs[i].push(a.clone());
            }
        }
        for (i, &r) in results.iter().enumerate() {
            self.set_elems(r, std::mem::take(&mut outs[i]));
        }
        Ok(())
    }

    pub(crate) fn dot(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let (a, b, acc) = (data.operands[0], data.operands[1], data.operands[2]);
        let (at, bt, ct) = (self.val_ty(a), self.val_ty(b), self.val_ty(acc));
        let rank = at.shape.len();
        let k_dim = at.shape[rank - 1];
        let (an, cn) = (at.num().ok_or("pointer operand")?, ct.num().ok_or("pointer operand")?);
        let is_int = c.op == CtOp::MmaI;
        let sa = c.enum_attr::<Signedness>("signedness_lhs").unwrap_or(Signedness::Signed);
        let sb = c.enum_attr::<Signedness>("signedness_rhs").unwrap_or(Signedness::Signed);
        let bytes_a = (at.shape.iter().product::<i64>() as u64 * smem_elem_bytes(at.elem)).div_ceil(16) * 16;
        let bytes_b = (bt.shape.iter().product::<i64>() as u64 * smem_elem_bytes(bt.elem)).div_ceil(16) * 16;
        // mmaf_scaled: per-block scale factors of A (M x K/V) and B (K/V x N).
        let scaled = c.op == CtOp::MmaFScaled;
        let scales = if scaled {
            let (sa_v, sb_v) = (data.operands[3], data.operands[4]);
            let (sat, sbt) = (self.val_ty(sa_v), self.val_ty(sb_v));
            let ks = sat.shape[rank - 1];
            if ks <= 0 || k_dim % ks != 0 {
                return Err(format!("scale blocks ({ks}) do not divide K ({k_dim})"));
            }
            let bytes_sa = (sat.shape.iter().product::<i64>() as u64 * smem_elem_bytes(sat.elem)).div_ceil(16) * 16;
            let bytes_sb = (sbt.shape.iter().product::<i64>() as u64 * smem_elem_bytes(sbt.elem)).div_ceil(16) * 16;
            Some((sa_v, sb_v, sat, sbt, k_dim / ks, bytes_a + bytes_b, bytes_a + bytes_b + bytes_sa, bytes_sa + bytes_sb))
        } else {
            None
        };
        self.scratch(bytes_a + bytes_b + scales.as_ref().map(|s| s.7).unwrap_or(0));
        self.barrier();
        self.spill_to_smem(a, 0)?;
        self.spill_to_smem(b, bytes_a)?;
        if let Some((sa_v, sb_v, _, _, _, off_sa, off_sb, _)) = &scales {
            self.spill_to_smem(*sa_v, *off_sa)?;
            self.spill_to_smem(*sb_v, *off_sb)?;
        }
        self.barrier();
        let accs = self.elems(acc)?;
        let coords = self.result_coords(data.results[0]);
        let clt = elem_llvm(ct.elem)?;
        let (alt, blt) = (elem_llvm(at.elem)?, elem_llvm(bt.elem)?);
        let carried: Vec<(&str, String)> = accs.iter().map(|a0| (clt, a0.clone())).collect();
        let l = self.counted_loop_begin("dot", &k_dim.to_string(), &carried);
        let (k, phis) = (l.k.clone(), l.phis.clone());
        let mut next = Vec::new();
        for (i, rc) in coords.iter().enumerate() {
            // rc = [batch?, m, n]
            let mut ac = rc.clone();
            ac[rank - 1] = k.clone();
            let mut bc = rc.clone();
            bc[rank - 2] = k.clone();
            let la = self.linear(&ac, &at.shape);
            let oa = self.emit("oa", format!("mul i32 {la}, {}", smem_elem_bytes(at.elem)));
            let x = self.smem_load(at.elem, &oa)?;
            let lb = self.linear(&bc, &bt.shape);
            let ob = self.emit("ob", format!("mul i32 {lb}, {}", smem_elem_bytes(bt.elem)));
            let ob = self.emit("ob", format!("add i32 {ob}, {bytes_a}"));
            let y = self.smem_load(bt.elem, &ob)?;
            let r = if is_int {
                let ext = |s: Signedness| if s == Signedness::Signed { "sext" } else { "zext" };
                let xw = self.emit("xw", format!("{} {alt} {x} to {clt}", ext(sa)));
                let yw = self.emit("yw", format!("{} {blt} {y} to {clt}", ext(sb)));
                let p = self.emit("pm", format!("mul {clt} {xw}, {yw}"));
                self.emit("pa", format!("add {clt} {}, {p}", phis[i]))
            } else {
                // Operands widen exactly to the accumulator type (fp8 through f16).
                let bn = bt.num().ok_or("pointer operand")?;
                let mut xw = self.ftof(an, cn, &x, RoundingMode::NearestEven)?;
                let mut yw = self.ftof(bn, cn, &y, RoundingMode::NearestEven)?;
                let _ = (alt, blt);
                if let Some((_, _, sat, sbt, v, off_sa, off_sb, _)) = &scales {
                    // Each operand times its block's scale: exact in f32 (an fp8 value times
                    // a power of two or another fp8 value).
                    let kb = self.emit("kb", format!("udiv i32 {k}, {v}"));
                    let mut sac = rc.clone();
                    sac[rank - 1] = kb.clone();
                    let mut sbc = rc.clone();
                    sbc[rank - 2] = kb;
                    let lsa = self.linear(&sac, &sat.shape);
                    let osa = self.emit("os", format!("mul i32 {lsa}, {}", smem_elem_bytes(sat.elem)));
                    let osa = self.emit("os", format!("add i32 {osa}, {off_sa}"));
                    let sx = self.smem_load(sat.elem, &osa)?;
                    let lsb = self.linear(&sbc, &sbt.shape);
                    let osb = self.emit("os", format!("mul i32 {lsb}, {}", smem_elem_bytes(sbt.elem)));
                    let osb = self.emit("os", format!("add i32 {osb}, {off_sb}"));
                    let sy = self.smem_load(sbt.elem, &osb)?;
                    let fx = self.scale_to_f32(sat.num().unwrap_or(NumType::F8E8M0FNU), &sx)?;
                    let fy = self.scale_to_f32(sbt.num().unwrap_or(NumType::F8E8M0FNU), &sy)?;
                    xw = self.emit("sx", format!("fmul float {xw}, {fx}"));
                    yw = self.emit("sy", format!("fmul float {yw}, {fy}"));
                }
                let fma = format!("llvm.fma.{}", if clt == "double" { "f64" } else if clt == "half" { "f16" } else { "f32" });
                self.intrinsic(clt, &fma, &[(clt, &xw), (clt, &yw), (clt, &phis[i])])
            };
            next.push(r);
        }
        self.counted_loop_end(&l, 1, &next);
        self.set_elems(data.results[0], phis);
        Ok(())
    }

    /// Flattened lowered values of `vs` and the LLVM type of each.
    fn flat(&mut self, vs: &[ValueId]) -> R<(Vec<String>, Vec<&'static str>)> {
        let mut vals = Vec::new();
        let mut tys = Vec::new();
        for &v in vs {
            let t = self.val_ty(v);
            let lt = match self.values.get(&v) {
                Some(Lowered::Token) => {
                    continue;
                }
                _ => elem_llvm(t.elem)?,
            };
            for e in self.elems(v)? {
                vals.push(e);
                tys.push(lt);
            }
        }
        Ok((vals, tys))
    }

    /// Binds `vs` (results or block args) from a flat list, in order; tokens take none.
    fn unflatten(&mut self, vs: &[ValueId], flat: &[String]) {
        let mut i = 0;
        for &v in vs {
            if matches!(self.m.types.get(self.m.value_type(v)), Type::Token | Type::MemToken) {
                self.values.insert(v, Lowered::Token);
                continue;
            }
            let t = self.val_ty(v);
            let n = t.layout.as_ref().map(|l| reg_offsets(l, &t.shape).len()).unwrap_or(1);
            let part = flat[i..(i + n).min(flat.len())].to_vec();
            i += n;
            self.set_elems(v, part);
        }
    }

    fn flat_of_lists(lists: &[Vec<String>]) -> Vec<String> {
        lists.iter().flatten().cloned().collect()
    }

    fn for_loop(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let m = self.m;
        // A persistent tile loop whose ring runs warp-specialized: the producer warpgroup
        // splits off here, with its own copy of this loop.
        if let Some((inner, pipe)) = self.persistent_ws_candidate(op) {
            self.split_persistent_producer(op, inner, &pipe)?;
        }
        let data = m.ops[op].clone();
        let (lb, ub, step) = (data.operands[0], data.operands[1], data.operands[2]);
        let it = self.val_ty(lb).num().ok_or("loop bounds must be integers")?;
        let ilt = elem_llvm(TileElem::Num(it))?;
        let (lbv, ubv, stv) = (self.elems(lb)?[0].clone(), self.elems(ub)?[0].clone(), self.elems(step)?[0].clone());
        // Iter values the loop carries as wgmma fragments enter them here, once.
        let carries = self.fragment_carries(op);
        // Carried accumulators scaled by a row vector: the scaling runs on the fragments,
        // and the [M, N] broadcast of the factor is never built.
        if let Some(body) = m.entry_block(op, 0) {
            let uses = m.use_counts();
            for (i, carry) in carries.iter().enumerate() {
                let (Some((plan, _)), Some(&arg)) = (carry, m.blocks[body].args.get(i + 1)) else { continue };
                if let Some(scale) = self.fragment_row_scale(body, arg, &uses) {
                    if uses.get(&m.ops[scale.broadcast].results[0]) == Some(&1) {
                        self.skipped_ops.insert(scale.broadcast);
                    }
                    self.fragment_scales.insert(scale.mul, (scale, plan.clone()));
                }
            }
        }
        let (mut init_vals, mut tys) = (Vec::new(), Vec::new());
        let mut counts = Vec::new();
        for (i, &v) in data.operands[3..].iter().enumerate() {
            let (vals, ts) = match &carries[i] {
                Some((plan, mma)) => {
                    let frags = self.tile_to_fragments(plan, v)?;
                    self.fragment_mmas.insert(*mma);
                    let n = frags.len();
                    (frags, vec![plan.acc_ty(); n])
                }
                None => self.flat(&[v])?,
            };
            counts.push(vals.len());
            init_vals.extend(vals);
            tys.extend(ts);
        }
        let body = m.entry_block(op, 0).ok_or("missing body")?;
        let cmp = if c.flag("unsignedCmp") { "ult" } else { "slt" };
        // A carried wgmma reading both operands by TMA: double-buffered, stage 0 issued here.
        let pipeline = self.plan_tma_pipeline(op, &carries);
        let persistent = self.persistent_ring.clone().filter(|pr| pr.inner == op);
        if persistent.is_some() && pipeline.as_ref().is_none_or(|p| p.split_at.is_none()) {
            // The producer already copies for this loop's ring and waits for its releases.
            return Err("internal: a persistent loop's producer was split off for a ring this loop no longer plans".into());
        }
        let ring = pipeline.as_ref().map(|p| match &persistent {
            Some(pr) => pr.ring,
            None => self.add_tma_ring(p),
        });
        // A persistent ring counts its iterations over the tiles: this tile's first index.
        let (base, trips) = match &persistent {
            Some(pr) if pipeline.is_some() => {
                let outer_body = m.entry_block(pr.outer, 0).ok_or("missing body")?;
                let t = self.elems(m.blocks[outer_body].args[0])?[0].clone();
                let (base, trips) = self.ring_base(pr.outer, op, &t)?;
                (Some(base), Some(trips))
            }
            _ => (None, None),
        };
        let mut pipeline_loop = pipeline.as_ref().zip(ring).map(|(p, ring)| crate::wgmma::TmaPipelineLoop {
            iv: String::new(),
            lb: lbv.clone(),
            ub: ubv.clone(),
            step: stv.clone(),
            ilt,
            cmp,
            loads: p.loads.clone(),
            stage_bytes: p.stage_bytes,
            bytes_a: p.bytes_a,
            ring,
            requested: p.requested,
            warps: p.warps,
            specialized: p.split_at.is_some(),
            base: base.clone(),
            trips: trips.clone(),
            loop_op: op,
        });
        if let (Some(p), Some(pl)) = (&pipeline, &pipeline_loop) {
            self.tma_pipeline_prologue(pl, &p.plan)?;
        }
        let (header, bodyl, latch, exit) =
            (self.new_label("for"), self.new_label("forb"), self.new_label("forl"), self.new_label("fore"));
        let pre = self.cur_block.clone();
        self.line(&format!("br label {header}"));
        self.label(&header);
        let mark = format!("@@FOR{}@@", self.counter);
        let iv = self.fresh("iv");
        self.line(&format!("{iv} = phi {ilt} [ {lbv}, {pre} ]{mark}iv"));
        let carried: Vec<(&str, String)> = tys.iter().copied().zip(init_vals.iter().cloned()).collect();
        let phis = self.open_phis("it", &mark, &pre, &carried);
        if let (Some(p), Some(mut pl)) = (&pipeline, pipeline_loop.take()) {
            pl.iv = iv.clone();
            self.tma_pipeline_loops.insert(p.mma, pl);
        }
        let go = self.emit("go", format!("icmp {cmp} {ilt} {iv}, {ubv}"));
        self.line(&format!("br i1 {go}, label {bodyl}, label {exit}"));
        self.label(&bodyl);
        let bargs = m.blocks[body].args.clone();
        self.values.insert(bargs[0], Lowered::Scalar(iv.clone()));
        self.bind_iter_values(&bargs[1..], &phis, &counts, &carries, true)?;
        // `continue`s (the final one and those inside `if`s) all reach one latch block,
        // which steps the induction variable, so the header has exactly two predecessors.
        self.loops.push(LoopTargets { header: latch.clone(), exit: exit.clone(), continues: vec![], breaks: vec![], alloca_depth: self.alloca_depth() });
        let ring_body = usize::from(pipeline.is_some());
        self.ring_loop_depth += ring_body;
        self.order_loop_carried(op, body);
        let term = self.inline_block_no_bind(body);
        self.ring_loop_depth -= ring_body;
        let term = term?;
        let mut targets = self.loops.pop().ok_or("loop stack underflow")?;
        let from = self.cur_block.clone();
        targets.continues.push((term.map(|t| Self::flat_of_lists(&t.1)).unwrap_or_default(), from));
        self.line(&format!("br label {latch}"));
        self.label(&latch);
        let mut latch_vals = Vec::new();
        for (i, ty) in tys.iter().enumerate() {
            let incoming: Vec<String> = targets
                .continues
                .iter()
                .map(|(v, from)| format!("[ {}, {} ]", v.get(i).cloned().unwrap_or_else(|| "poison".into()), from))
                .collect();
            latch_vals.push(self.emit("lv", format!("phi {ty} {}", incoming.join(", "))));
        }
        let ivn = self.emit("ivn", format!("add {ilt} {iv}, {stv}"));
        let latch_end = self.cur_block.clone();
        self.line(&format!("br label {header}"));
        self.body = self.body.replace(&format!("{mark}iv\n"), &format!(", [ {ivn}, {latch_end} ]\n"));
        self.patch_phis(&mark, &latch_end, &latch_vals);
        self.label(&exit);
        self.wide.clear();
        let mut exit_vals = phis.clone();
        if let Some(p) = &pipeline {
            // The last iteration's mma is still in flight: its accumulators pass through the
            // wait for it before anything reads them.
            let at = carries.iter().position(|c| c.as_ref().is_some_and(|(_, mma)| *mma == p.mma)).ok_or("pipelined mma is not carried")?;
            let first: usize = counts[..at].iter().sum();
            let accs = exit_vals[first..first + counts[at]].to_vec();
            let done = self.wgmma_wait_with(0, &p.plan, &accs);
            exit_vals.splice(first..first + counts[at], done);
            if let Some(pl) = self.tma_pipeline_loops.get(&p.mma).cloned() {
                self.release_last_stage(&pl);
            }
        }
        self.bind_iter_values(&data.results, &exit_vals, &counts, &carries, false)?;
        Ok(())
    }

    /// Binds a `for`'s block arguments (`inside`) or results from its flat phis: value i
    /// takes `counts[i]` of them; a fragment-carried accumulator stays fragments inside the
    /// loop and returns to its layout after it.
    fn bind_iter_values(
        &mut self,
        vs: &[ValueId],
        flat: &[String],
        counts: &[usize],
        carries: &[Option<(crate::wgmma::WgmmaPlan, OpId)>],
        inside: bool,
    ) -> R<()> {
        let mut at = 0;
        for (i, &v) in vs.iter().enumerate() {
            let part = &flat[at..at + counts[i]];
            at += counts[i];
            match &carries[i] {
                Some(_) if inside => {
                    self.set_elems(v, part.to_vec());
                    self.fragment_values.insert(v);
                }
                // A TMA store epilogue takes the fragments as they are.
                Some(_) if self.epilogues.results.contains(&v) => {
                    self.set_elems(v, part.to_vec());
                    self.fragment_values.insert(v);
                }
                Some((plan, _)) => self.fragments_to_tile(plan, part, v)?,
                None => self.unflatten(&[v], part),
            }
        }
        Ok(())
    }

    /// Lowers a body whose arguments are already bound; `continue`/`break` inside nested
    /// `if`s are recorded on the loop stack by [`Self::if_op`].
    fn inline_block_no_bind(&mut self, block: tileir_ir::BlockId) -> R<Option<(OpId, Vec<Vec<String>>)>> {
        let m = self.m;
        let ops = m.blocks[block].ops.clone();
        let mut term = None;
        self.open_alloca_scope();
        for &o in &ops {
            match m.ops[o].kind.ct() {
                Some(CtOp::Yield | CtOp::Continue | CtOp::Break) => {
                    let mut vals = Vec::new();
                    for &v in &m.ops[o].operands {
                        if matches!(self.values.get(&v), Some(Lowered::Token)) {
                            continue;
                        }
                        vals.push(self.elems(v)?);
                    }
                    term = Some((o, vals));
                }
                _ => self.op(o),
            }
        }
        self.close_alloca_scope();
        Ok(term)
    }

    fn general_loop(&mut self, op: OpId) -> R<()> {
        let m = self.m;
        let data = m.ops[op].clone();
        let (init_vals, tys) = self.flat(&data.operands)?;
        let body = m.entry_block(op, 0).ok_or("missing body")?;
        let (header, exit) = (self.new_label("loop"), self.new_label("loope"));
        let pre = self.cur_block.clone();
        self.line(&format!("br label {header}"));
        self.label(&header);
        let mark = format!("@@LOOP{}@@", self.counter);
        let carried: Vec<(&str, String)> = tys.iter().copied().zip(init_vals.iter().cloned()).collect();
        let phis = self.open_phis("lp", &mark, &pre, &carried);
        let bargs = m.blocks[body].args.clone();
        self.unflatten(&bargs, &phis);
        self.loops.push(LoopTargets { header: header.clone(), exit: exit.clone(), continues: vec![], breaks: vec![], alloca_depth: self.alloca_depth() });
        self.order_loop_carried(op, body);
        let term = self.inline_block_no_bind(body)?;
        let mut targets = self.loops.pop().ok_or("loop stack underflow")?;
        if let Some((t, vals)) = term {
            let from = self.cur_block.clone();
            if m.ops[t].kind.ct() == Some(CtOp::Break) {
                targets.breaks.push((Self::flat_of_lists(&vals), from));
                self.line(&format!("br label {exit}"));
            } else {
                targets.continues.push((Self::flat_of_lists(&vals), from));
                self.line(&format!("br label {header}"));
            }
        } else {
            let from = self.cur_block.clone();
            targets.continues.push((vec![], from));
            self.line(&format!("br label {header}"));
        }
        for i in 0..phis.len() {
            let incoming: String =
                targets.continues.iter().map(|(v, from)| format!(", [ {}, {} ]", v.get(i).cloned().unwrap_or_default(), from)).collect();
            self.body = self.body.replace(&format!("{mark}{i}\n"), &format!("{incoming}\n"));
        }
        self.label(&exit);
        self.wide.clear();
        // Results come from the breaks.
        let (_, rtys) = {
            let mut t = Vec::new();
            for &r in &data.results {
                let vt = self.val_ty(r);
                if matches!(self.m.types.get(self.m.value_type(r)), Type::Token | Type::MemToken) {
                    continue;
                }
                let n = vt.layout.as_ref().map(|l| reg_offsets(l, &vt.shape).len()).unwrap_or(1);
                for _ in 0..n {
                    t.push(elem_llvm(vt.elem)?);
                }
            }
            ((), t)
        };
        let mut res = Vec::new();
        for (i, lt) in rtys.iter().enumerate() {
            let incoming: Vec<String> =
                targets.breaks.iter().map(|(v, from)| format!("[ {}, {} ]", v.get(i).cloned().unwrap_or_default(), from)).collect();
            if incoming.is_empty() {
                res.push("poison".to_string());
            } else {
                res.push(self.emit("br", format!("phi {lt} {}", incoming.join(", "))));
            }
        }
        if targets.breaks.is_empty() {
            self.line("unreachable");
            let dead = self.new_label("dead");
            self.label(&dead);
        }
        self.unflatten(&data.results, &res);
        Ok(())
    }

    fn if_op(&mut self, op: OpId) -> R<()> {
        let m = self.m;
        let data = m.ops[op].clone();
        let cond = self.elems(data.operands[0])?[0].clone();
        let (then_l, else_l, join) = (self.new_label("then"), self.new_label("else"), self.new_label("endif"));
        self.line(&format!("br i1 {cond}, label {then_l}, label {else_l}"));
        let mut incoming: Vec<(Vec<String>, String)> = Vec::new();
        for (ri, label) in [(0usize, then_l), (1usize, else_l)] {
            self.label(&label);
            let block = m.entry_block(op, ri);
            let term = match block {
                Some(b) => self.inline_block_no_bind(b)?,
                None => None,
            };
            if let Some((t, _)) = &term {
                if matches!(m.ops[*t].kind.ct(), Some(CtOp::Continue | CtOp::Break)) {
                    // Leaving the loop body: the allocas of the blocks left end here.
                    let depth = self.loops.last().map(|l| l.alloca_depth).ok_or("'continue' or 'break' outside a loop")?;
                    self.free_allocas_from(depth);
                }
            }
            let from = self.cur_block.clone();
            match term {
                Some((t, vals)) => match m.ops[t].kind.ct() {
                    Some(CtOp::Yield) => {
                        incoming.push((Self::flat_of_lists(&vals), from));
                        self.line(&format!("br label {join}"));
                    }
                    Some(CtOp::Continue) => {
                        let l = self.loops.last_mut().ok_or("'continue' outside a loop")?;
                        l.continues.push((Self::flat_of_lists(&vals), from));
                        let h = l.header.clone();
                        self.line(&format!("br label {h}"));
                    }
                    Some(CtOp::Break) => {
                        let l = self.loops.last_mut().ok_or("'break' outside a loop")?;
                        l.breaks.push((Self::flat_of_lists(&vals), from));
                        let e = l.exit.clone();
                        self.line(&format!("br label {e}"));
                    }
                    _ => self.line(&format!("br label {join}")),
                },
                None => {
                    // The branch ended in `return` (its dead block falls through here).
                    incoming.push((vec![], from));
                    self.line(&format!("br label {join}"));
                }
            }
            self.wide.clear();
        }
        self.label(&join);
        let mut res = Vec::new();
        let mut tys = Vec::new();
        for &r in &data.results {
            if matches!(self.m.types.get(self.m.value_type(r)), Type::Token | Type::MemToken) {
                continue;
            }
            let vt = self.val_ty(r);
            let n = vt.layout.as_ref().map(|l| reg_offsets(l, &vt.shape).len()).unwrap_or(1);
            for _ in 0..n {
                tys.push(elem_llvm(vt.elem)?);
            }
        }
        for (i, lt) in tys.iter().enumerate() {
            let inc: Vec<String> = incoming
                .iter()
                .filter(|(v, _)| !v.is_empty())
                .map(|(v, from)| format!("[ {}, {} ]", v[i], from))
                .collect();
            if inc.is_empty() {
                res.push("poison".to_string());
            } else {
                res.push(self.emit("ifr", format!("phi {lt} {}", inc.join(", "))));
            }
        }
        self.unflatten(&data.results, &res);
        Ok(())
    }

    /// The guard under which a memory effect of `t` runs once per element: the thread
    /// owns real elements (tiles), or is thread 0 (rank-0 values every thread holds).
    fn effect_guard(&mut self, t: &ValTy) -> Option<String> {
        match &t.layout {
            Some(l) => self.owns(l, &t.shape),
            None => {
                let tid = self.thread_id();
                Some(self.emit("t0", format!("icmp eq i32 {tid}, 0")))
            }
        }
    }

    fn load_ptr(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let seg = &c.segments;
        let ordering = c.enum_attr::<MemoryOrdering>("memory_ordering_semantics").unwrap_or(MemoryOrdering::Weak);
        let ptrs = self.elems(data.operands[0])?;
        let mut i = 1;
        let mask = if seg.get(1).copied().unwrap_or(0) > 0 {
            i += 1;
            Some(self.elems(data.operands[1])?)
        } else {
            None
        };
        let pad = if seg.get(2).copied().unwrap_or(0) > 0 { Some(self.elems(data.operands[i])?) } else { None };
        let rt = self.val_ty(data.results[0]);
        let lt = elem_llvm(rt.elem)?;
        let mem_lt = if lt == "i1" { "i8" } else { lt };
        let sem = ptx_sem(ordering, c.enum_attr::<MemoryScope>("memory_scope"), true)?;
        let nibbles = rt.elem == TileElem::Num(NumType::F4E2M1FN);
        let mut out = Vec::new();
        for (k, p) in ptrs.iter().enumerate() {
            // A 4-bit element is read with its byte, then shifted out of it.
            let (p, shift) = if nibbles {
                let (byte, shift) = self.split_nibble_pointer(p);
                (byte, Some(shift))
            } else {
                (p.clone(), None)
            };
            let p = &p;
            let post = |w: &mut Self, x: String| match &shift {
                Some(sh) => {
                    let moved = w.emit("nb", format!("lshr i8 {x}, {sh}"));
                    w.emit("nb", format!("and i8 {moved}, 15"))
                }
                None => x,
            };
            let v = match (&mask, sem.as_deref()) {
                (None, None) => {
                    let x = self.emit("lp", format!("load {mem_lt}, ptr addrspace(1) {p}"));
                    post(self, x)
                }
                _ => {
                    // Masked or ordered: one guarded load per element.
                    let (yes, join) = (self.new_label("ml"), self.new_label("mlj"));
                    let pre = self.cur_block.clone();
                    let cond = mask.as_ref().map(|m| m[k].clone()).unwrap_or_else(|| "true".into());
                    self.line(&format!("br i1 {cond}, label {yes}, label {join}"));
                    self.label(&yes);
                    let x = match &sem {
                        None => self.emit("lp", format!("load {mem_lt}, ptr addrspace(1) {p}")),
                        Some(s) => self.emit("lp", format!("load atomic {mem_lt}, ptr addrspace(1) {p} {s}, align {}", mem_bytes(mem_lt))),
                    };
                    let x = post(self, x);
                    let from = self.cur_block.clone();
                    self.line(&format!("br label {join}"));
                    self.label(&join);
                    let other = match &pad {
                        Some(pv) => {
                            if lt == "i1" {
                                self.emit("pz", format!("zext i1 {} to i8", pv[k]))
                            } else {
                                pv[k].clone()
                            }
                        }
                        None => "poison".into(),
                    };
                    self.emit("ph", format!("phi {mem_lt} [ {x}, {from} ], [ {other}, {pre} ]"))
                }
            };
            out.push(if lt == "i1" { self.emit("nz", format!("icmp ne i8 {v}, 0")) } else { v });
        }
        self.set_elems(data.results[0], out);
        self.values.insert(data.results[1], Lowered::Token);
        Ok(())
    }

    fn store_ptr(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let seg = &c.segments;
        let ordering = c.enum_attr::<MemoryOrdering>("memory_ordering_semantics").unwrap_or(MemoryOrdering::Weak);
        let sem = ptx_sem(ordering, c.enum_attr::<MemoryScope>("memory_scope"), false)?;
        let pt = self.val_ty(data.operands[0]);
        let ptrs = self.elems(data.operands[0])?;
        let vals = self.elems(data.operands[1])?;
        let mask = if seg.get(2).copied().unwrap_or(0) > 0 { Some(self.elems(data.operands[2])?) } else { None };
        let lt = elem_llvm(self.val_ty(data.operands[1]).elem)?;
        // A byte's two 4-bit elements may belong to two threads (or CTAs): each element
        // is merged into its byte atomically.
        let nibbles = self.val_ty(data.operands[1]).elem == TileElem::Num(NumType::F4E2M1FN);
        let syncscope = if sem.is_some() { llvm_syncscope(c.enum_attr::<MemoryScope>("memory_scope")) } else { "" };
        if nibbles && ordering == MemoryOrdering::Release {
            self.line(&format!("fence {syncscope}release"));
        }
        let guard = self.effect_guard(&pt);
        let (yes, join) = (self.new_label("sg"), self.new_label("sgj"));
        self.line(&format!("br i1 {}, label {yes}, label {join}", guard.unwrap_or_else(|| "true".into())));
        self.label(&yes);
        for (k, p) in ptrs.iter().enumerate() {
            let v = if lt == "i1" { self.emit("sz", format!("zext i1 {} to i8", vals[k])) } else { vals[k].clone() };
            let mem_lt = if lt == "i1" { "i8" } else { lt };
            let (s_yes, s_join) = (self.new_label("ms"), self.new_label("msj"));
            let cond = mask.as_ref().map(|m| m[k].clone()).unwrap_or_else(|| "true".into());
            self.line(&format!("br i1 {cond}, label {s_yes}, label {s_join}"));
            self.label(&s_yes);
            match &sem {
                _ if nibbles => {
                    let (byte, shift) = self.split_nibble_pointer(p);
                    self.store_nibble_atomic(&byte, &shift, &v, syncscope);
                }
                None => self.line(&format!("store {mem_lt} {v}, ptr addrspace(1) {p}")),
                Some(s) => self.line(&format!("store atomic {mem_lt} {v}, ptr addrspace(1) {p} {s}, align {}", mem_bytes(mem_lt))),
            }
            self.line(&format!("br label {s_join}"));
            self.label(&s_join);
        }
        self.line(&format!("br label {join}"));
        self.label(&join);
        self.values.insert(data.results[0], Lowered::Token);
        Ok(())
    }

    fn atomic(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let is_cas = c.op == CtOp::AtomicCasTko;
        let ordering = c.enum_attr::<MemoryOrdering>("memory_ordering_semantics").unwrap_or(MemoryOrdering::Relaxed);
        let scope = c.enum_attr::<MemoryScope>("memory_scope").unwrap_or(MemoryScope::Device);
        let sem = match ordering {
            MemoryOrdering::Weak | MemoryOrdering::Relaxed => "relaxed",
            MemoryOrdering::Acquire => "acquire",
            MemoryOrdering::Release => "release",
            MemoryOrdering::AcqRel => "acq_rel",
        };
        let scope_s = match scope {
            MemoryScope::TlBlk => "cta",
            MemoryScope::Device => "gpu",
            MemoryScope::Sys => "sys",
        };
        let pt = self.val_ty(data.operands[0]);
        let ptrs = self.elems(data.operands[0])?;
        let nargs = if is_cas { 2 } else { 1 };
        let mut args = Vec::new();
        for i in 0..nargs {
            args.push(self.elems(data.operands[1 + i])?);
        }
        let seg_mask = c.segments.get(1 + nargs).copied().unwrap_or(0) > 0;
        let mask = if seg_mask { Some(self.elems(data.operands[1 + nargs])?) } else { None };
        let vt = self.val_ty(data.operands[1 + nargs - 1]);
        let n = vt.num().ok_or("pointer atomics")?;
        let lt = elem_llvm(vt.elem)?;
        let bits = n.storage_bytes() * 8;
        let (opname, ptx_ty) = if is_cas {
            ("cas", format!("b{bits}"))
        } else {
            let mode = c.enum_attr::<AtomicRmwMode>("mode").ok_or("missing mode")?;
            match mode {
                AtomicRmwMode::And => ("and", format!("b{bits}")),
                AtomicRmwMode::Or => ("or", format!("b{bits}")),
                AtomicRmwMode::Xor => ("xor", format!("b{bits}")),
                AtomicRmwMode::Add => ("add", format!("u{bits}")),
                AtomicRmwMode::AddF => ("add", if n == NumType::BF16 { "noftz.bf16".into() } else if n == NumType::F16 { "noftz.f16".into() } else { format!("f{bits}") }),
                AtomicRmwMode::Max => ("max", format!("s{bits}")),
                AtomicRmwMode::Min => ("min", format!("s{bits}")),
                AtomicRmwMode::UMax => ("max", format!("u{bits}")),
                AtomicRmwMode::UMin => ("min", format!("u{bits}")),
                AtomicRmwMode::Xchg => ("exch", format!("b{bits}")),
            }
        };
        if n == NumType::BF16 && opname == "add" && crate::writer::sm_number(&self.target).is_some_and(|sm| sm < 90) {
            // PTX has `atom.add.noftz.bf16` from sm_90 on (cuda_tile: "addf: … bf16 (sm_90+)").
            return Err(format!("atomic addf on bf16 needs sm_90 or newer; the target is {}", self.target));
        }
        let (reg_ty, cons) = match bits {
            16 => ("i16", "h"),
            32 => ("i32", "r"),
            64 => ("i64", "l"),
            _ => return Err(format!("atomics on {n} are not supported")),
        };
        // Ordering and scope must be spelled in PTX: LLVM 22 drops them from atomicrmw.
        let guard = self.effect_guard(&pt);
        let mut out = Vec::new();
        for (k, p) in ptrs.iter().enumerate() {
            let mut cond = guard.clone().unwrap_or_else(|| "true".into());
            if let Some(mk) = &mask {
                cond = self.emit("am", format!("and i1 {cond}, {}", mk[k]));
            }
            let mut operands = vec![format!("ptr addrspace(1) {p}"), format!("i1 {cond}")];
            for a in &args {
                let r = if lt == reg_ty { a[k].clone() } else { self.emit("ab", format!("bitcast {lt} {} to {reg_ty}", a[k])) };
                operands.push(format!("{reg_ty} {r}"));
            }
            let asm = if is_cas {
                format!("{{ .reg .pred p; setp.ne.b32 p, $2, 0; @p atom.{sem}.{scope_s}.global.cas.{ptx_ty} $0, [$1], $3, $4; }}")
            } else {
                format!("{{ .reg .pred p; setp.ne.b32 p, $2, 0; @p atom.{sem}.{scope_s}.global.{opname}.{ptx_ty} $0, [$1], $3; }}")
            };
            let mut cons_list = vec![format!("={cons}"), "l".into(), "r".into()];
            for _ in &args {
                cons_list.push(cons.into());
            }
            cons_list.push("~{memory}".into());
            // The predicate travels as an i32 (inline asm has no i1 register class).
            operands[1] = {
                let z = self.emit("ap", format!("zext i1 {cond} to i32"));
                format!("i32 {z}")
            };
            let r = self.emit("at", format!("call {reg_ty} asm sideeffect \"{asm}\", \"{}\"({})", cons_list.join(","), operands.join(", ")));
            out.push(if lt == reg_ty { r } else { self.emit("ar", format!("bitcast {reg_ty} {r} to {lt}")) });
        }
        // A rank-0 atomic ran in thread 0 only: broadcast its result.
        if pt.layout.is_none() {
            self.scratch(16);
            self.barrier();
            let result = out[0].clone();
            self.in_thread_zero(("t0", "ab", "abj"), |w| w.smem_store(vt.elem, "0", &result))?;
            self.barrier();
            out = vec![self.smem_load(vt.elem, "0")?];
        }
        self.set_elems(data.results[0], out);
        self.values.insert(data.results[1], Lowered::Token);
        Ok(())
    }

    /// Element-wise arithmetic, math, comparisons, selects and conversions.
    fn elementwise_ct(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        if let Some((scale, plan)) = self.fragment_scales.get(&op).cloned() {
            return self.scale_fragments(op, c, &scale, &plan);
        }
        let data = self.m.ops[op].clone();
        if data.results.len() != 1 {
            return Err(format!("'{}' is not supported by the LLVM writer yet", c.op.mnemonic()));
        }
        let r = data.results[0];
        let rt = self.val_ty(r);
        let in_t = data.operands.first().map(|&v| self.val_ty(v)).unwrap_or(rt.clone());
        let mut ops = Vec::new();
        for &v in &data.operands {
            ops.push(self.elems(v)?);
        }
        let n = ops.first().map(|o| o.len()).unwrap_or(0);
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let args: Vec<String> = ops.iter().map(|o| o.get(i).cloned().unwrap_or_else(|| o[0].clone())).collect();
            out.push(self.scalar_ct(c, &in_t, &rt, &args)?);
        }
        self.set_elems(r, out);
        // Of values every thread holds, every thread computes the same.
        if is_single_element(&rt.shape) && !data.operands.is_empty() && data.operands.iter().all(|&v| self.val_ty(v).shape.is_empty() || self.uniform_values.contains(&v)) {
            self.uniform_values.insert(r);
        }
        Ok(())
    }

    /// One element of an element-wise op.
    pub(crate) fn scalar_ct(&mut self, c: &CudaTileOp, in_t: &ValTy, rt: &ValTy, a: &[String]) -> R<String> {
        // The ops whose operand is a pointer.
        match c.op {
            CtOp::PtrToInt => {
                let rlt = elem_llvm(rt.elem)?;
                return Ok(self.emit("e", format!("ptrtoint ptr addrspace(1) {} to {rlt}", a[0])));
            }
            CtOp::PtrToPtr => return Ok(a[0].clone()),
            _ => {}
        }
        let it = in_t.num().ok_or_else(|| format!("'{}' of pointer operands is not supported", c.op.mnemonic()))?;
        let rn = rt.num().unwrap_or(it);
        let lt = elem_llvm(TileElem::Num(it))?;
        let rlt = elem_llvm(rt.elem)?;
        let sign = c.enum_attr::<Signedness>("signedness").unwrap_or(Signedness::Signed);
        let rounding = c.enum_attr::<RoundingMode>("rounding_mode").unwrap_or(RoundingMode::NearestEven);
        let ftz = c.flag("flush_to_zero");
        let w = int_bits(it);
        let bin = |s: &mut Self, inst: &str| s.emit("e", format!("{inst} {lt} {}, {}", a[0], a[1]));
        Ok(match c.op {
            CtOp::AddI => bin(self, "add"),
            CtOp::SubI => bin(self, "sub"),
            CtOp::MulI => bin(self, "mul"),
            CtOp::AndI => bin(self, "and"),
            CtOp::OrI => bin(self, "or"),
            CtOp::XOrI => bin(self, "xor"),
            CtOp::NegI => self.emit("e", format!("sub {lt} 0, {}", a[0])),
            CtOp::AbsI => self.intrinsic(lt, &format!("llvm.abs.{lt}"), &[(lt, &a[0]), ("i1", "false")]),
            CtOp::MaxI | CtOp::MinI => {
                let f = match (c.op == CtOp::MaxI, sign) {
                    (true, Signedness::Signed) => "smax",
                    (true, Signedness::Unsigned) => "umax",
                    (false, Signedness::Signed) => "smin",
                    (false, Signedness::Unsigned) => "umin",
                };
                self.intrinsic(lt, &format!("llvm.{f}.{lt}"), &[(lt, &a[0]), (lt, &a[1])])
            }
            CtOp::ShlI | CtOp::ShrI => {
                // Amounts >= the width give 0 (or the sign fill for arithmetic shifts),
                // where LLVM would give poison.
                let big = self.emit("sb", format!("icmp uge {lt} {}, {w}", a[1]));
                let (inst, fill) = match (c.op, sign) {
                    (CtOp::ShlI, _) => ("shl", "0".to_string()),
                    (_, Signedness::Unsigned) => ("lshr", "0".to_string()),
                    _ => ("ashr", self.emit("sf", format!("ashr {lt} {}, {}", a[0], w - 1))),
                };
                let s = self.emit("sh", format!("{inst} {lt} {}, {}", a[0], a[1]));
                self.emit("e", format!("select i1 {big}, {lt} {fill}, {lt} {s}"))
            }
            CtOp::MulHiI => {
                let wide = format!("i{}", 2 * w);
                let x = self.emit("mw", format!("zext {lt} {} to {wide}", a[0]));
                let y = self.emit("mw", format!("zext {lt} {} to {wide}", a[1]));
                let p = self.emit("mw", format!("mul {wide} {x}, {y}"));
                let h = self.emit("mw", format!("lshr {wide} {p}, {w}"));
                self.emit("e", format!("trunc {wide} {h} to {lt}"))
            }
            CtOp::RemI => bin(self, if sign == Signedness::Signed { "srem" } else { "urem" }),
            CtOp::DivI => {
                let rm = c.enum_attr::<RoundingMode>("rounding").unwrap_or(RoundingMode::Zero);
                let signed = sign == Signedness::Signed;
                let q = bin(self, if signed { "sdiv" } else { "udiv" });
                let rem = bin(self, if signed { "srem" } else { "urem" });
                let nz = self.emit("rz", format!("icmp ne {lt} {rem}, 0"));
                match (rm, signed) {
                    (RoundingMode::Zero, _) | (RoundingMode::NegativeInf, false) => q,
                    (RoundingMode::PositiveInf, false) => {
                        let inc = self.emit("ri", format!("zext i1 {nz} to {lt}"));
                        self.emit("e", format!("add {lt} {q}, {inc}"))
                    }
                    (RoundingMode::NegativeInf | RoundingMode::PositiveInf, true) => {
                        // Adjust when the remainder is non-zero and its sign differs from
                        // (floor) or equals (ceil) the divisor's.
                        let rneg = self.emit("rs", format!("icmp slt {lt} {rem}, 0"));
                        let dneg = self.emit("rs", format!("icmp slt {lt} {}, 0", a[1]));
                        let differ = self.emit("rs", format!("xor i1 {rneg}, {dneg}"));
                        let want = if rm == RoundingMode::NegativeInf { differ } else { self.emit("rs", format!("xor i1 {differ}, true")) };
                        let adj = self.emit("ra", format!("and i1 {nz}, {want}"));
                        let d = self.emit("ra", format!("zext i1 {adj} to {lt}"));
                        if rm == RoundingMode::NegativeInf {
                            self.emit("e", format!("sub {lt} {q}, {d}"))
                        } else {
                            self.emit("e", format!("add {lt} {q}, {d}"))
                        }
                    }
                    _ => return Err(format!("'divi' rounding '{rm}' is not supported")),
                }
            }
            CtOp::CmpI => {
                let p = c.enum_attr::<ComparisonPredicate>("comparison_predicate").ok_or("missing predicate")?;
                let s = sign == Signedness::Signed;
                let pred = match p {
                    ComparisonPredicate::Equal => "eq",
                    ComparisonPredicate::NotEqual => "ne",
                    ComparisonPredicate::LessThan => if s { "slt" } else { "ult" },
                    ComparisonPredicate::LessThanOrEqual => if s { "sle" } else { "ule" },
                    ComparisonPredicate::GreaterThan => if s { "sgt" } else { "ugt" },
                    ComparisonPredicate::GreaterThanOrEqual => if s { "sge" } else { "uge" },
                };
                self.emit("e", format!("icmp {pred} {lt} {}, {}", a[0], a[1]))
            }
            CtOp::CmpF => {
                let p = c.enum_attr::<ComparisonPredicate>("comparison_predicate").ok_or("missing predicate")?;
                let o = c.enum_attr::<ComparisonOrdering>("comparison_ordering").unwrap_or(ComparisonOrdering::Ordered);
                let base = match p {
                    ComparisonPredicate::Equal => "eq",
                    ComparisonPredicate::NotEqual => "ne",
                    ComparisonPredicate::LessThan => "lt",
                    ComparisonPredicate::LessThanOrEqual => "le",
                    ComparisonPredicate::GreaterThan => "gt",
                    ComparisonPredicate::GreaterThanOrEqual => "ge",
                };
                let pre = if o == ComparisonOrdering::Ordered { "o" } else { "u" };
                self.emit("e", format!("fcmp {pre}{base} {lt} {}, {}", a[0], a[1]))
            }
            CtOp::Select => {
                let vlt = elem_llvm(rt.elem)?;
                self.emit("e", format!("select i1 {}, {vlt} {}, {vlt} {}", a[0], a[1], a[2]))
            }
            CtOp::ExtI if it == NumType::I4 => {
                // The nibble's sign is bit 3 of its i8 register.
                let x = if sign == Signedness::Signed {
                    let up = self.emit("e", format!("shl i8 {}, 4", a[0]));
                    self.emit("e", format!("ashr i8 {up}, 4"))
                } else {
                    a[0].clone()
                };
                if rlt == "i8" { x } else { self.emit("e", format!("{} i8 {x} to {rlt}", if sign == Signedness::Signed { "sext" } else { "zext" })) }
            }
            CtOp::ExtI => self.emit("e", format!("{} {lt} {} to {rlt}", if sign == Signedness::Signed && it != NumType::I1 { "sext" } else { "zext" }, a[0])),
            CtOp::TruncI if rn == NumType::I4 => {
                let x = if lt == "i8" { a[0].clone() } else { self.emit("e", format!("trunc {lt} {} to i8", a[0])) };
                self.emit("e", format!("and i8 {x}, 15"))
            }
            CtOp::TruncI => self.emit("e", format!("trunc {lt} {} to {rlt}", a[0])),
            CtOp::Bitcast => {
                if lt == rlt {
                    a[0].clone()
                } else {
                    self.emit("e", format!("bitcast {lt} {} to {rlt}", a[0]))
                }
            }
            CtOp::IntToPtr => self.emit("e", format!("inttoptr {lt} {} to ptr addrspace(1)", a[0])),
            CtOp::IToF => {
                if !rn.is_float() || rn == NumType::F8E8M0FNU {
                    return Err(format!("'itof' to {rn} is not supported"));
                }
                if rounding != RoundingMode::NearestEven {
                    return Err(format!("'itof' rounding '{rounding}' is not supported yet"));
                }
                let signed = sign == Signedness::Signed && it != NumType::I1;
                if is_narrow_float(rn) {
                    // To f64 without losing what decides the final rounding, then one rounding.
                    let x = self.int_to_f64_round_to_odd(it, &a[0], signed);
                    return self.ftof(NumType::F64, rn, &x, rounding);
                }
                self.emit("e", format!("{} {lt} {} to {rlt}", if signed { "sitofp" } else { "uitofp" }, a[0]))
            }
            CtOp::FToI => {
                // cuda_tile's conversion saturates (NaN gives 0), like PTX cvt.rzi.sat.
                let f = if sign == Signedness::Signed { "fptosi" } else { "fptoui" };
                let (src, slt) = match it {
                    NumType::F64 => (a[0].clone(), "double"),
                    // Every narrower format widens to f32 exactly.
                    _ => (self.ftof(it, NumType::F32, &a[0], RoundingMode::NearestEven)?, "float"),
                };
                // `nearest_int_to_zero` (the default) is truncation, like C's cast.
                let x = match rounding {
                    RoundingMode::Zero | RoundingMode::NearestIntToZero => src,
                    RoundingMode::NearestEven => self.intrinsic(slt, &format!("llvm.roundeven.{}", fsuffix(slt)), &[(slt, &src)]),
                    RoundingMode::NegativeInf => self.intrinsic(slt, &format!("llvm.floor.{}", fsuffix(slt)), &[(slt, &src)]),
                    RoundingMode::PositiveInf => self.intrinsic(slt, &format!("llvm.ceil.{}", fsuffix(slt)), &[(slt, &src)]),
                    other => return Err(format!("'ftoi' rounding '{other}' is not supported")),
                };
                self.intrinsic(rlt, &format!("llvm.{f}.sat.{rlt}.{}", fsuffix(slt)), &[(slt, &x)])
            }
            CtOp::FToF => self.ftof(it, rn, &a[0], rounding)?,
            _ => self.float_ct(c, it, lt, a, rounding, ftz)?,
        })
    }

    /// A block-scale factor as f32: e8m0 is 2^(bits-127) (bits 0 is 2^-127, a subnormal;
    /// 255 is NaN), e4m3 an ordinary fp8 value.
    fn scale_to_f32(&mut self, n: NumType, v: &str) -> R<String> {
        if n != NumType::F8E8M0FNU {
            return self.ftof(n, NumType::F32, v, RoundingMode::NearestEven);
        }
        let w = self.emit("e8", format!("zext i8 {v} to i32"));
        let sh = self.emit("e8", format!("shl i32 {w}, 23"));
        let z = self.emit("e8", format!("icmp eq i32 {w}, 0"));
        let sh = self.emit("e8", format!("select i1 {z}, i32 4194304, i32 {sh}"));
        let nan = self.emit("e8", format!("icmp eq i32 {w}, 255"));
        let sh = self.emit("e8", format!("select i1 {nan}, i32 2143289344, i32 {sh}"));
        Ok(self.emit("e8", format!("bitcast i32 {sh} to float")))
    }

    /// e^x (or e^-x) as 2^t · 2^c, where t = x·log2(e) rounded to f32 and c the rounding
    /// error of that product (from an fma with log2(e) split in two): 2^c is within an ulp of
    /// 1 + c·ln 2, so the result keeps ex2.approx's few-ulp accuracy for every x, where
    /// ex2(x·log2(e)) alone loses up to ~60 ulp at |x| near 80.
    fn exp_f32(&mut self, x: &str, negate: bool, ftz: bool) -> String {
        self.exp_f32_scaled(x, negate, ftz, false)
    }

    /// e^x (e^-x when `negate`), or half of it when `halve` (exactly: 2^(t-1) for 2^t), so
    /// that e^x / 2 does not overflow where e^x alone would (sinh and cosh up to |x| ≈ 89.4).
    fn exp_f32_scaled(&mut self, x: &str, negate: bool, ftz: bool, halve: bool) -> String {
        const LOG2E_HI: &str = "0x3FF7154760000000"; // f32(log2 e)
        const LOG2E_LO: &str = "0x3E54AE0C00000000"; // f32(log2 e - LOG2E_HI)
        let fz = if ftz { ".ftz" } else { "" };
        let x = if negate { self.emit("xn", format!("fneg float {x}")) } else { x.to_string() };
        let t = self.emit("xt", format!("fmul float {x}, {LOG2E_HI}"));
        let nt = self.emit("xt", format!("fneg float {t}"));
        let err_hi = self.intrinsic("float", "llvm.fma.f32", &[("float", &x), ("float", LOG2E_HI), ("float", &nt)]);
        let c = self.intrinsic("float", "llvm.fma.f32", &[("float", &x), ("float", LOG2E_LO), ("float", &err_hi)]);
        // Past |x| = 150 the result is ∞ or 0 from 2^t alone, while the error term grows
        // with x (2^±500 at |x| = 1e10, and ∞ · 0 is NaN; at x = ±∞ it is NaN itself): it
        // is 0 there. NaN stays NaN.
        let ax = self.intrinsic("float", "llvm.fabs.f32", &[("float", &x)]);
        let huge = self.emit("xi", format!("fcmp ogt float {ax}, 150.0"));
        let c = self.emit("xc", format!("select i1 {huge}, float 0.0, float {c}"));
        // t - 1 is exact (|t| <= 217).
        let t = if halve { self.emit("xh", format!("fsub float {t}, 1.0")) } else { t };
        let et = self.intrinsic("float", &format!("llvm.nvvm.ex2.approx{fz}.f"), &[("float", &t)]);
        let ec = self.intrinsic("float", &format!("llvm.nvvm.ex2.approx{fz}.f"), &[("float", &c)]);
        self.emit("xe", format!("fmul float {et}, {ec}"))
    }

    /// tanh with `full` accuracy: an odd polynomial below |x| = 0.55 (1.24 ulp in f32), else
    /// 1 - 2/(e^(2|x|) + 1) with the accurate exp (about 4 ulp), signed like x.
    fn tanh_f32(&mut self, x: &str, ftz: bool) -> String {
        let s = self.emit("th", format!("fmul float {x}, {x}"));
        let mut p = TANH_COEFFS[TANH_COEFFS.len() - 1].to_string();
        for c in TANH_COEFFS.iter().rev().skip(1) {
            p = self.intrinsic("float", "llvm.fma.f32", &[("float", &p), ("float", &s), ("float", c)]);
        }
        let small = self.emit("th", format!("fmul float {p}, {x}"));
        let ax = self.intrinsic("float", "llvm.fabs.f32", &[("float", x)]);
        let two_ax = self.emit("th", format!("fadd float {ax}, {ax}"));
        let e = self.exp_f32(&two_ax, false, ftz);
        let d = self.emit("th", format!("fadd float {e}, 1.0"));
        let q = self.emit("th", format!("fdiv float 2.0, {d}"));
        let big = self.emit("th", format!("fsub float 1.0, {q}"));
        let big = self.intrinsic("float", "llvm.copysign.f32", &[("float", &big), ("float", x)]);
        let is_small = self.emit("th", format!("fcmp olt float {ax}, 0x3FE19999A0000000"));
        self.emit("th", format!("select i1 {is_small}, float {small}, float {big}"))
    }

    /// f32 `x` narrowed to f16 or bf16 with the PTX rounding `r` (`rz`, `rm`, `rp`, `rn`).
    fn narrow_directed(&mut self, to: NumType, x: &str, r: &str) -> String {
        let (ptx_ty, llvm_ty) = if to == NumType::BF16 { ("bf16", "bfloat") } else { ("f16", "half") };
        let bits = self.emit("nd", format!("call i16 asm \"cvt.{r}.{ptx_ty}.f32 $0, $1;\", \"=h,f\"(float {x})"));
        self.emit("nd", format!("bitcast i16 {bits} to {llvm_ty}"))
    }

    /// f16/bf16 → f32 (the precision math is computed in); other types unchanged.
    fn widen_small_float(&mut self, n: NumType, v: &str) -> R<String> {
        Ok(match n {
            NumType::F16 => self.emit("wf", format!("fpext half {v} to float")),
            NumType::BF16 => self.emit("wf", format!("fpext bfloat {v} to float")),
            _ => v.to_string(),
        })
    }

    pub(crate) fn ftof(&mut self, from: NumType, to: NumType, v: &str, rounding: RoundingMode) -> R<String> {
        let is_fp8 = |n: NumType| matches!(n, NumType::F8E4M3FN | NumType::F8E5M2);
        if from == to {
            return Ok(v.to_string());
        }
        if from == NumType::F4E2M1FN {
            // Every f4E2M1FN value is exact in f32 and in every other float format.
            let f = self.f4_to_f32(v);
            return self.ftof(NumType::F32, to, &f, rounding);
        }
        if to == NumType::F4E2M1FN {
            if rounding != RoundingMode::NearestEven {
                return Err(format!("'ftof' to f4E2M1FN with rounding '{rounding}' is not supported"));
            }
            // Compared in f64 for f64 sources, in f32 (an exact widening) for all others.
            let (x, ty) = match from {
                NumType::F64 => (v.to_string(), "double"),
                _ => (self.ftof(from, NumType::F32, v, RoundingMode::NearestEven)?, "float"),
            };
            return Ok(self.f4_from_float(&x, ty));
        }
        if from == NumType::F64 && is_narrow_float(to) {
            // fp8 and e8m0 round from f32: narrow to it by round-to-odd so that the value
            // is rounded once (a round-to-nearest step first could round twice).
            let x = self.f64_to_f32_round_to_odd(v);
            return self.ftof(NumType::F32, to, &x, rounding);
        }
        if from == NumType::F8E8M0FNU {
            let f = self.scale_to_f32(from, v)?;
            return self.ftof(NumType::F32, to, &f, rounding);
        }
        if to == NumType::F8E8M0FNU {
            // e8m0 holds 2^(e-127) for e in 0..=254 (255 is NaN): the biased exponent of
            // the f32 value, one more when the rounding goes up. f32 subnormals lie below
            // 2^-126, between e8m0's 0 (2^-127) and 1. Past 2^127, negative values, +inf
            // and NaN give NaN, as the interpreter defines (there is no saturation).
            let x = self.ftof(from, NumType::F32, v, RoundingMode::NearestEven)?;
            let b = self.emit("e8", format!("bitcast float {x} to i32"));
            let shifted = self.emit("e8", format!("lshr i32 {b}, 23"));
            let e = self.emit("e8", format!("and i32 {shifted}, 255"));
            let mant = self.emit("e8", format!("and i32 {b}, 8388607"));
            // (normal, subnormal): the smallest mantissa that rounds up.
            let (normal_up, subnormal_up) = match rounding {
                RoundingMode::Zero => (None, None),
                // Up from any fraction; a subnormal only past 2^-127 (= mantissa 2^22).
                RoundingMode::PositiveInf => (Some(("ne", 0)), Some(("ugt", 4194304))),
                // Ties (half the step) round up, as APFloat does for e8m0.
                RoundingMode::NearestEven => (Some(("uge", 4194304)), Some(("uge", 6291456))),
                other => return Err(format!("'ftof' to f8E8M0FNU with rounding '{other}' is not supported")),
            };
            let e = if let (Some((np, nv)), Some((sp, sv))) = (normal_up, subnormal_up) {
                let up_normal = self.emit("e8", format!("icmp {np} i32 {mant}, {nv}"));
                let up_subnormal = self.emit("e8", format!("icmp {sp} i32 {mant}, {sv}"));
                let is_subnormal = self.emit("e8", format!("icmp eq i32 {e}, 0"));
                let up = self.emit("e8", format!("select i1 {is_subnormal}, i1 {up_subnormal}, i1 {up_normal}"));
                let inc = self.emit("e8", format!("zext i1 {up} to i32"));
                // 254 + 1 is 255: NaN, the overflow.
                self.emit("e8", format!("add i32 {e}, {inc}"))
            } else {
                e
            };
            let nan = self.emit("e8", format!("fcmp uno float {x}, 0.0"));
            let negative = self.emit("e8", format!("fcmp olt float {x}, 0.0"));
            let invalid = self.emit("e8", format!("or i1 {nan}, {negative}"));
            let e = self.emit("e8", format!("select i1 {invalid}, i32 255, i32 {e}"));
            return Ok(self.emit("e8", format!("trunc i32 {e} to i8")));
        }
        if is_fp8(from) || is_fp8(to) {
            // sm_89 and newer convert fp8 in hardware; older targets in software, with the
            // same results.
            let hardware = self.target.starts_with("sm_9") || self.target.starts_with("sm_89") || self.target.starts_with("sm_1");
            let kind = |n: NumType| if n == NumType::F8E4M3FN { "e4m3x2" } else { "e5m2x2" };
            if is_fp8(to) {
                let x = match from {
                    NumType::F16 | NumType::BF16 => self.widen_small_float(from, v)?,
                    NumType::F32 | NumType::TF32 => v.to_string(),
                    // The other fp8 format: exactly through f32.
                    _ => self.ftof(from, NumType::F32, v, RoundingMode::NearestEven)?,
                };
                if !hardware {
                    return Ok(self.f32_to_fp8_soft(&x, to));
                }
                let pair = self.intrinsic("i16", &format!("llvm.nvvm.ff.to.{}.rn", kind(to)), &[("float", "0.0"), ("float", &x)]);
                return Ok(self.emit("f8", format!("trunc i16 {pair} to i8")));
            }
            if !hardware {
                let x = self.fp8_to_f32_soft(v, from);
                return self.ftof(NumType::F32, to, &x, rounding);
            }
            let w = self.emit("f8", format!("zext i8 {v} to i16"));
            let h2 = self.intrinsic("<2 x half>", &format!("llvm.nvvm.{}.to.f16x2.rn", kind(from)), &[("i16", &w)]);
            let h = self.emit("f8", format!("extractelement <2 x half> {h2}, i32 0"));
            return self.ftof(NumType::F16, to, &h, rounding);
        }
        let (fl, tl) = (elem_llvm(TileElem::Num(from))?, elem_llvm(TileElem::Num(to))?);
        if to == NumType::TF32 {
            if rounding != RoundingMode::NearestEven {
                return Err(format!("'ftof' to tf32 with rounding '{rounding}' is not supported"));
            }
            // Round to nearest even at bit 13 in software: `cvt.rna.tf32.f32` (the only form
            // sm_80 has) breaks ties away from zero. A carry into the exponent is the right
            // result (up to infinity); NaN is kept quiet so that clearing its low bits cannot
            // turn it into infinity.
            let x = if from == NumType::F64 { self.f64_to_f32_round_to_odd(v) } else { self.ftof(from, NumType::F32, v, rounding)? };
            let b = self.emit("tf", format!("bitcast float {x} to i32"));
            let shifted = self.emit("tf", format!("lshr i32 {b}, 13"));
            let lsb = self.emit("tf", format!("and i32 {shifted}, 1"));
            let bias = self.emit("tf", format!("add i32 {lsb}, 4095"));
            let sum = self.emit("tf", format!("add i32 {b}, {bias}"));
            let nan = self.emit("tf", format!("fcmp uno float {x}, 0.0"));
            let quiet = self.emit("tf", format!("or i32 {b}, 4194304"));
            let rounded = self.emit("tf", format!("select i1 {nan}, i32 {quiet}, i32 {sum}"));
            let t = self.emit("tf", format!("and i32 {rounded}, -8192"));
            return Ok(self.emit("tf", format!("bitcast i32 {t} to float")));
        }
        if from == NumType::TF32 {
            return self.ftof(NumType::F32, to, v, rounding);
        }
        let wider = from.storage_bytes() < to.storage_bytes() || (from == NumType::BF16 && to == NumType::F16) || (from == NumType::F16 && to == NumType::BF16);
        if from.storage_bytes() < to.storage_bytes() {
            return Ok(self.emit("e", format!("fpext {fl} {v} to {tl}")));
        }
        if wider {
            // f16 <-> bf16: through f32 (exact widening, then one rounding).
            let x = self.emit("e", format!("fpext {fl} {v} to float"));
            return self.ftof(NumType::F32, to, &x, rounding);
        }
        if rounding != RoundingMode::NearestEven {
            return Err(format!("'ftof' rounding '{rounding}' is not supported yet"));
        }
        Ok(self.emit("e", format!("fptrunc {fl} {v} to {tl}")))
    }

    /// f32 `x` to e4m3 or e5m2 in software, as sm_89's `cvt.rn.satfinite` does it: round to
    /// nearest even, past the largest finite value (infinities too) saturate to it, NaN
    /// gives NaN (0x7F). A normal result rounds the f32 bits at the format's last fraction
    /// bit (a carry moves the exponent up, which is right) and rebiases; a subnormal one
    /// is the value in units of the format's smallest subnormal, rounded to an integer
    /// (exact scaling by a power of two, then `roundeven`).
    fn f32_to_fp8_soft(&mut self, x: &str, to: NumType) -> String {
        // (fraction bits, exponent bias, largest finite code)
        let (m, bias, max_code): (u32, i32, u32) = if to == NumType::F8E4M3FN { (3, 7, 0x7E) } else { (2, 15, 0x7B) };
        let b = self.emit("s8", format!("bitcast float {x} to i32"));
        let sign32 = self.emit("s8", format!("lshr i32 {b}, 24"));
        let sign = self.emit("s8", format!("and i32 {sign32}, 128"));
        let a_bits = self.emit("s8", format!("and i32 {b}, 2147483647"));
        let a = self.emit("s8", format!("bitcast i32 {a_bits} to float"));
        // Normal: round away the low 23 - m fraction bits (to nearest even), then rebias.
        let drop = 23 - m;
        let lsb_shifted = self.emit("s8", format!("lshr i32 {a_bits}, {drop}"));
        let lsb = self.emit("s8", format!("and i32 {lsb_shifted}, 1"));
        let bias_add = self.emit("s8", format!("add i32 {lsb}, {}", (1u32 << (drop - 1)) - 1));
        let rounded = self.emit("s8", format!("add i32 {a_bits}, {bias_add}"));
        let kept = self.emit("s8", format!("lshr i32 {rounded}, {drop}"));
        let normal = self.emit("s8", format!("sub i32 {kept}, {}", ((127 - bias) as u32) << m));
        // Subnormal: |x| / 2^(1 - bias - m), rounded to an integer (at most 2^m: the
        // smallest normal, whose code is the same integer).
        let scale = (2f64).powi(bias - 1 + m as i32) as f32;
        let scaled = self.emit("s8", format!("fmul float {a}, 0x{:016X}", (scale as f64).to_bits()));
        let whole = self.intrinsic("float", "llvm.roundeven.f32", &[("float", &scaled)]);
        let subnormal = self.emit("s8", format!("fptoui float {whole} to i32"));
        let smallest_normal = (2f64).powi(1 - bias);
        let is_subnormal = self.emit("s8", format!("fcmp olt float {a}, 0x{:016X}", smallest_normal.to_bits()));
        let code = self.emit("s8", format!("select i1 {is_subnormal}, i32 {subnormal}, i32 {normal}"));
        self.declare("declare i32 @llvm.umin.i32(i32, i32)");
        let saturated = self.emit("s8", format!("call i32 @llvm.umin.i32(i32 {code}, i32 {max_code})"));
        let signed = self.emit("s8", format!("or i32 {saturated}, {sign}"));
        let nan = self.emit("s8", format!("fcmp uno float {x}, 0.0"));
        let out = self.emit("s8", format!("select i1 {nan}, i32 127, i32 {signed}"));
        self.emit("s8", format!("trunc i32 {out} to i8"))
    }

    /// e4m3 or e5m2 bits `v` as f32, exactly, in software. e5m2 is the top byte of an f16;
    /// e4m3 (bias 7, no infinity, S.1111.111 is NaN) is rebuilt field by field.
    fn fp8_to_f32_soft(&mut self, v: &str, from: NumType) -> String {
        let w = self.emit("u8", format!("zext i8 {v} to i16"));
        if from == NumType::F8E5M2 {
            let h_bits = self.emit("u8", format!("shl i16 {w}, 8"));
            let h = self.emit("u8", format!("bitcast i16 {h_bits} to half"));
            return self.emit("u8", format!("fpext half {h} to float"));
        }
        let c = self.emit("u8", format!("zext i8 {v} to i32"));
        let sign_bit = self.emit("u8", format!("and i32 {c}, 128"));
        let sign = self.emit("u8", format!("shl i32 {sign_bit}, 24"));
        let e_shifted = self.emit("u8", format!("lshr i32 {c}, 3"));
        let e = self.emit("u8", format!("and i32 {e_shifted}, 15"));
        let mant = self.emit("u8", format!("and i32 {c}, 7"));
        let exponent = self.emit("u8", format!("add i32 {e}, 120"));
        let exponent = self.emit("u8", format!("shl i32 {exponent}, 23"));
        let fraction = self.emit("u8", format!("shl i32 {mant}, 20"));
        let normal = self.emit("u8", format!("or i32 {exponent}, {fraction}"));
        // Subnormal: mant · 2^-9.
        let mf = self.emit("u8", format!("uitofp i32 {mant} to float"));
        let sub = self.emit("u8", format!("fmul float {mf}, 0x3F60000000000000"));
        let sub_bits = self.emit("u8", format!("bitcast float {sub} to i32"));
        let is_sub = self.emit("u8", format!("icmp eq i32 {e}, 0"));
        let magnitude = self.emit("u8", format!("select i1 {is_sub}, i32 {sub_bits}, i32 {normal}"));
        let low7 = self.emit("u8", format!("and i32 {c}, 127"));
        let is_nan = self.emit("u8", format!("icmp eq i32 {low7}, 127"));
        let magnitude = self.emit("u8", format!("select i1 {is_nan}, i32 2143289344, i32 {magnitude}"));
        let bits = self.emit("u8", format!("or i32 {magnitude}, {sign}"));
        self.emit("u8", format!("bitcast i32 {bits} to float"))
    }

    /// A relayout within warps: one `shfl.sync.idx` per result register, from the lane its
    /// [`crate::in_thread::ShuffleSource`] names (each distinct lane map computed once).
    fn relayout_by_shuffles(&mut self, src: ValueId, result: ValueId, plan: &[crate::in_thread::ShuffleSource]) -> R<()> {
        let elems = self.elems(src)?;
        let lt = elem_llvm(self.val_ty(result).elem)?;
        let tid = self.thread_id();
        let lane = self.emit("sl", format!("and i32 {tid}, 31"));
        let mut lanes: std::collections::HashMap<([u32; 5], u32), String> = std::collections::HashMap::new();
        let mut out = Vec::with_capacity(plan.len());
        for s in plan {
            let from = match lanes.get(&(s.columns, s.offset)) {
                Some(v) => v.clone(),
                None => {
                    let mut acc = s.offset.to_string();
                    for (j, &col) in s.columns.iter().enumerate().filter(|(_, &c)| c != 0) {
                        let bit = self.emit("sl", format!("and i32 {lane}, {}", 1u32 << j));
                        let set = self.emit("sl", format!("icmp ne i32 {bit}, 0"));
                        let term = self.emit("sl", format!("select i1 {set}, i32 {col}, i32 0"));
                        acc = self.emit("sl", format!("xor i32 {acc}, {term}"));
                    }
                    lanes.insert((s.columns, s.offset), acc.clone());
                    acc
                }
            };
            out.push(self.shuffle_from_lane(lt, &elems[s.reg], &from));
        }
        self.set_elems(result, out);
        Ok(())
    }

    /// A `ptr<f4E2M1FN>` moved by `offset` elements (i64). Such a pointer is its byte's
    /// address with bit 63 set when it addresses the high nibble (the interpreter's
    /// encoding; addresses never reach bit 63): its nibble index is address·2 + bit 63.
    fn offset_nibble_pointer(&mut self, p: &str, offset: &str) -> String {
        let bits = self.emit("np", format!("ptrtoint ptr addrspace(1) {p} to i64"));
        let high = self.emit("np", format!("lshr i64 {bits}, 63"));
        let doubled = self.emit("np", format!("shl i64 {bits}, 1"));
        let index = self.emit("np", format!("or i64 {doubled}, {high}"));
        let moved = self.emit("np", format!("add i64 {index}, {offset}"));
        let byte = self.emit("np", format!("lshr i64 {moved}, 1"));
        let odd = self.emit("np", format!("shl i64 {moved}, 63"));
        let encoded = self.emit("np", format!("or i64 {byte}, {odd}"));
        self.emit("np", format!("inttoptr i64 {encoded} to ptr addrspace(1)"))
    }

    /// A `ptr<f4E2M1FN>` as its byte's address and the element's shift in that byte (an
    /// i8: 0 for the low nibble, 4 for the high one).
    /// Stores the 4-bit `code` (an i8 whose high nibble is zero) into the nibble at bit
    /// `shift` (i8: 0 or 4) of the byte `byte` points to, keeping the byte's other nibble:
    /// a compare-and-swap loop on the aligned 32-bit word holding the byte. The other
    /// nibble may belong to another thread (or CTA) storing at the same time, and PTX has no
    /// byte-sized atomics. The word may reach past the array's last byte: GPU allocations
    /// are at least 256-byte granular, so it stays inside the allocation (the emulator, whose
    /// buffers end at the array's last byte, reports such a word as out of bounds).
    /// `syncscope` is "" or an LLVM `syncscope("…") ` prefix of the store's scope.
    pub(crate) fn store_nibble_atomic(&mut self, byte: &str, shift: &str, code: &str, syncscope: &str) {
        let address = self.emit("nw", format!("ptrtoint ptr addrspace(1) {byte} to i64"));
        let word_address = self.emit("nw", format!("and i64 {address}, -4"));
        let word = self.emit("nw", format!("inttoptr i64 {word_address} to ptr addrspace(1)"));
        let byte_in_word = self.emit("nw", format!("and i64 {address}, 3"));
        let byte_bits = self.emit("nw", format!("trunc i64 {byte_in_word} to i32"));
        let byte_shift = self.emit("nw", format!("shl i32 {byte_bits}, 3"));
        let nibble_shift = self.emit("nw", format!("zext i8 {shift} to i32"));
        let at = self.emit("nw", format!("add i32 {byte_shift}, {nibble_shift}"));
        let mask = self.emit("nw", format!("shl i32 15, {at}"));
        let keep = self.emit("nw", format!("xor i32 {mask}, -1"));
        let code32 = self.emit("nw", format!("zext i8 {code} to i32"));
        let placed = self.emit("nw", format!("shl i32 {code32}, {at}"));
        // A first guess of the word; the loop retries with what the swap found.
        let guess = self.emit("nw", format!("load i32, ptr addrspace(1) {word}, align 4"));
        let pre = self.cur_block.clone();
        let (retry, done) = (self.new_label("nibcas"), self.new_label("nibcasd"));
        self.line(&format!("br label {retry}"));
        self.label(&retry);
        let seen_name = self.fresh("nws");
        let old = self.emit("nwo", format!("phi i32 [ {guess}, {pre} ], [ {seen_name}, {retry} ]"));
        let kept = self.emit("nwk", format!("and i32 {old}, {keep}"));
        let new = self.emit("nwn", format!("or i32 {kept}, {placed}"));
        let pair = self.emit("nwp", format!("cmpxchg ptr addrspace(1) {word}, i32 {old}, i32 {new} {syncscope}monotonic monotonic, align 4"));
        self.line(&format!("{seen_name} = extractvalue {{ i32, i1 }} {pair}, 0"));
        let ok = self.emit("nwd", format!("extractvalue {{ i32, i1 }} {pair}, 1"));
        self.line(&format!("br i1 {ok}, label {done}, label {retry}"));
        self.label(&done);
    }

    fn split_nibble_pointer(&mut self, p: &str) -> (String, String) {
        let bits = self.emit("np", format!("ptrtoint ptr addrspace(1) {p} to i64"));
        let address = self.emit("np", format!("and i64 {bits}, 9223372036854775807"));
        let byte = self.emit("np", format!("inttoptr i64 {address} to ptr addrspace(1)"));
        let high = self.emit("np", format!("lshr i64 {bits}, 63"));
        let high8 = self.emit("np", format!("trunc i64 {high} to i8"));
        let shift = self.emit("np", format!("shl i8 {high8}, 2"));
        (byte, shift)
    }

    /// f32 or f64 `x` (LLVM type `ty`) to f4E2M1FN, rounding to nearest even and saturating
    /// (cuda_tile's `ftof`: ±∞ and everything past 6 give ±6, NaN gives +6).
    ///
    /// The magnitude's code (0..=7 for 0, 0.5, 1, 1.5, 2, 3, 4, 6) is the number of rounding
    /// boundaries it reaches; a value exactly on a boundary is a tie and goes to the even
    /// code, so the boundary counts as reached (`oge`) when the code above is even and only
    /// when passed (`ogt`) otherwise. The comparisons are exact, so this rounds once.
    fn f4_from_float(&mut self, x: &str, ty: &str) -> String {
        const BOUNDARIES: [(&str, &str); 7] =
            [("ogt", "0.25"), ("oge", "0.75"), ("ogt", "1.25"), ("oge", "1.75"), ("ogt", "2.5"), ("oge", "3.5"), ("ogt", "5.0")];
        let magnitude = self.intrinsic(ty, &format!("llvm.fabs.{}", fsuffix(ty)), &[(ty, x)]);
        let mut code: Option<String> = None;
        for (pred, bound) in BOUNDARIES {
            let reached = self.emit("f4", format!("fcmp {pred} {ty} {magnitude}, {bound}"));
            let step = self.emit("f4", format!("zext i1 {reached} to i8"));
            code = Some(match code {
                None => step,
                Some(c) => self.emit("f4", format!("add i8 {c}, {step}")),
            });
        }
        let code = code.unwrap_or_default();
        // The sign bit is kept, even on a zero result (-0.1 gives -0).
        let int_ty = if ty == "double" { "i64" } else { "i32" };
        let bits = self.emit("f4", format!("bitcast {ty} {x} to {int_ty}"));
        let negative = self.emit("f4", format!("icmp slt {int_ty} {bits}, 0"));
        let sign = self.emit("f4", format!("select i1 {negative}, i8 8, i8 0"));
        let signed = self.emit("f4", format!("or i8 {code}, {sign}"));
        let nan = self.emit("f4", format!("fcmp uno {ty} {x}, 0.0"));
        self.emit("f4", format!("select i1 {nan}, i8 7, i8 {signed}"))
    }

    /// An f4E2M1FN code (low nibble of `v`) as f32, exactly: the subnormal codes 0 and 1 are
    /// 0 and 0.5; code m >= 2 has exponent m/2 - 1 and fraction bit m & 1.
    fn f4_to_f32(&mut self, v: &str) -> String {
        let c = self.emit("f4", format!("zext i8 {v} to i32"));
        let m = self.emit("f4", format!("and i32 {c}, 7"));
        let half_m = self.emit("f4", format!("lshr i32 {m}, 1"));
        let biased = self.emit("f4", format!("add i32 {half_m}, 126"));
        let exponent = self.emit("f4", format!("shl i32 {biased}, 23"));
        let odd = self.emit("f4", format!("and i32 {m}, 1"));
        let fraction = self.emit("f4", format!("shl i32 {odd}, 22"));
        let normal = self.emit("f4", format!("or i32 {exponent}, {fraction}"));
        let is_half = self.emit("f4", format!("icmp eq i32 {m}, 1"));
        let subnormal = self.emit("f4", format!("select i1 {is_half}, i32 1056964608, i32 0"));
        let is_normal = self.emit("f4", format!("icmp uge i32 {m}, 2"));
        let magnitude = self.emit("f4", format!("select i1 {is_normal}, i32 {normal}, i32 {subnormal}"));
        let sign_bit = self.emit("f4", format!("and i32 {c}, 8"));
        let sign = self.emit("f4", format!("shl i32 {sign_bit}, 28"));
        let bits = self.emit("f4", format!("or i32 {magnitude}, {sign}"));
        self.emit("f4", format!("bitcast i32 {bits} to float"))
    }

    /// `x` (f64) narrowed to f32 with round-to-odd: truncate, then set the last bit when
    /// anything was dropped. Rounding that f32 to a format with at least two fewer
    /// significand bits (fp8, e8m0, f4) gives the correctly rounded value of `x`, where a
    /// round-to-nearest narrowing first can round twice (1.25 + 2^-40 would become the tie
    /// 1.25 and then 1.0 in f4E2M1FN, where 1.5 is right).
    fn f64_to_f32_round_to_odd(&mut self, x: &str) -> String {
        let truncated = self.intrinsic("float", "llvm.nvvm.d2f.rz", &[("double", x)]);
        let back = self.emit("ro", format!("fpext float {truncated} to double"));
        let inexact = self.emit("ro", format!("fcmp one double {back}, {x}"));
        let bits = self.emit("ro", format!("bitcast float {truncated} to i32"));
        let sticky = self.emit("ro", format!("zext i1 {inexact} to i32"));
        let odd = self.emit("ro", format!("or i32 {bits}, {sticky}"));
        self.emit("ro", format!("bitcast i32 {odd} to float"))
    }

    /// An integer (`ty`, signed or not) as f64 with round-to-odd: exact up to 32 bits; an i64
    /// is truncated and its last bit set when inexact, so a later narrowing rounds once.
    fn int_to_f64_round_to_odd(&mut self, ty: NumType, v: &str, signed: bool) -> String {
        let lt = elem_llvm(TileElem::Num(ty)).unwrap_or("i64");
        if ty != NumType::I64 {
            return self.emit("ro", format!("{} {lt} {v} to double", if signed { "sitofp" } else { "uitofp" }));
        }
        let (to_double, back) = if signed { ("llvm.nvvm.ll2d.rz", "fptosi") } else { ("llvm.nvvm.ull2d.rz", "fptoui") };
        let truncated = self.intrinsic("double", to_double, &[("i64", v)]);
        // The truncated value is no larger in magnitude than `v`, so it converts back exactly.
        let again = self.emit("ro", format!("{back} double {truncated} to i64"));
        let inexact = self.emit("ro", format!("icmp ne i64 {again}, {v}"));
        let bits = self.emit("ro", format!("bitcast double {truncated} to i64"));
        let sticky = self.emit("ro", format!("zext i1 {inexact} to i64"));
        let odd = self.emit("ro", format!("or i64 {bits}, {sticky}"));
        self.emit("ro", format!("bitcast i64 {odd} to double"))
    }

    /// `x` (f32) with a subnormal replaced by a zero of its sign.
    fn flush_subnormal_f32(&mut self, x: &str) -> String {
        let magnitude = self.intrinsic("float", "llvm.fabs.f32", &[("float", x)]);
        // 0x3810000000000000 is f32's smallest normal, 2^-126.
        let tiny = self.emit("fz", format!("fcmp olt float {magnitude}, 0x3810000000000000"));
        let zero = self.intrinsic("float", "llvm.copysign.f32", &[("float", "0.0"), ("float", x)]);
        self.emit("fz", format!("select i1 {tiny}, float {zero}, float {x}"))
    }

    /// Float arithmetic and math.
    fn float_ct(&mut self, c: &CudaTileOp, n: NumType, lt: &str, a: &[String], rounding: RoundingMode, ftz: bool) -> R<String> {
        let name = c.op.mnemonic();
        let f32_like = matches!(n, NumType::F32 | NumType::TF32);
        let default_mode = rounding == RoundingMode::NearestEven && !ftz;
        let suffix = fsuffix(lt);
        match c.op {
            CtOp::AddF | CtOp::SubF | CtOp::MulF | CtOp::DivF | CtOp::Fma => {
                let inst = match c.op {
                    CtOp::AddF => "fadd",
                    CtOp::SubF => "fsub",
                    CtOp::MulF => "fmul",
                    CtOp::DivF => "fdiv",
                    _ => "",
                };
                if default_mode {
                    if c.op == CtOp::Fma {
                        return Ok(self.intrinsic(lt, &format!("llvm.fma.{suffix}"), &[(lt, &a[0]), (lt, &a[1]), (lt, &a[2])]));
                    }
                    return Ok(self.emit("e", format!("{inst} {lt} {}, {}", a[0], a[1])));
                }
                if c.op == CtOp::DivF && f32_like && matches!(rounding, RoundingMode::Approx | RoundingMode::Full) {
                    let nm = if rounding == RoundingMode::Approx {
                        format!("llvm.nvvm.div.approx{}.f", if ftz { ".ftz" } else { "" })
                    } else {
                        format!("llvm.nvvm.div.full{}", if ftz { ".ftz" } else { "" })
                    };
                    return Ok(self.intrinsic("float", &nm, &[("float", &a[0]), ("float", &a[1])]));
                }
                let r = nvvm_rounding(rounding).ok_or_else(|| format!("'{name}' rounding '{rounding}' is not supported"))?;
                if matches!(n, NumType::F16 | NumType::BF16) {
                    // In f32 with the same rounding, then narrowed with it: each format's
                    // values are f32 values, so two roundings in one direction are one.
                    let wide: Vec<String> = a.iter().map(|x| self.widen_small_float(n, x)).collect::<R<_>>()?;
                    let (base, args): (&str, Vec<String>) = match c.op {
                        CtOp::AddF => ("add", vec![wide[0].clone(), wide[1].clone()]),
                        CtOp::SubF => ("add", vec![wide[0].clone(), self.emit("ng", format!("fneg float {}", wide[1]))]),
                        CtOp::MulF => ("mul", vec![wide[0].clone(), wide[1].clone()]),
                        CtOp::DivF => ("div", vec![wide[0].clone(), wide[1].clone()]),
                        _ => ("fma", wide.clone()),
                    };
                    let list: Vec<(&str, &str)> = args.iter().map(|x| ("float", x.as_str())).collect();
                    let r32 = self.intrinsic("float", &format!("llvm.nvvm.{base}.{r}.f"), &list);
                    return Ok(self.narrow_directed(n, &r32, r));
                }
                let (ty_s, ftz_s) = match n {
                    NumType::F32 | NumType::TF32 => ("f", if ftz { ".ftz" } else { "" }),
                    NumType::F64 => ("d", ""),
                    _ => return Err(format!("'{name}' with rounding '{rounding}' on {n} is not supported yet")),
                };
                let (base, args): (&str, Vec<String>) = match c.op {
                    CtOp::AddF => ("add", vec![a[0].clone(), a[1].clone()]),
                    CtOp::SubF => ("add", vec![a[0].clone(), self.emit("ng", format!("fneg {lt} {}", a[1]))]),
                    CtOp::MulF => ("mul", vec![a[0].clone(), a[1].clone()]),
                    CtOp::DivF => ("div", vec![a[0].clone(), a[1].clone()]),
                    _ => ("fma", vec![a[0].clone(), a[1].clone(), a[2].clone()]),
                };
                let list: Vec<(&str, &str)> = args.iter().map(|x| (lt, x.as_str())).collect();
                Ok(self.intrinsic(lt, &format!("llvm.nvvm.{base}.{r}{ftz_s}.{ty_s}"), &list))
            }
            CtOp::NegF => Ok(self.emit("e", format!("fneg {lt} {}", a[0]))),
            CtOp::AbsF => Ok(self.intrinsic(lt, &format!("llvm.fabs.{suffix}"), &[(lt, &a[0])])),
            CtOp::MaxF | CtOp::MinF => {
                let nan = c.flag("propagate_nan");
                let f = match (c.op == CtOp::MaxF, nan) {
                    (true, true) => "maximum",
                    (true, false) => "maxnum",
                    (false, true) => "minimum",
                    (false, false) => "minnum",
                };
                // flush_to_zero compares the operands with their subnormals flushed.
                let (x, y) = if ftz && lt == "float" {
                    (self.flush_subnormal_f32(&a[0]), self.flush_subnormal_f32(&a[1]))
                } else {
                    (a[0].clone(), a[1].clone())
                };
                Ok(self.intrinsic(lt, &format!("llvm.{f}.{suffix}"), &[(lt, &x), (lt, &y)]))
            }
            // C's fmod, exactly: libdevice's `__nv_fmod(f)` (LLVM lowers `frem` on NVPTX as
            // x - trunc(x / y) * y, which loses the result once the quotient passes 2^24 or
            // 2^53). f16 and bf16 go through f32, where their fmod is exact too.
            CtOp::RemF => Ok(match n {
                NumType::F64 => self.intrinsic("double", "__nv_fmod", &[("double", &a[0]), ("double", &a[1])]),
                NumType::F32 | NumType::TF32 => self.intrinsic("float", "__nv_fmodf", &[("float", &a[0]), ("float", &a[1])]),
                _ => {
                    let (x, y) = (self.widen_small_float(n, &a[0])?, self.widen_small_float(n, &a[1])?);
                    let r = self.intrinsic("float", "__nv_fmodf", &[("float", &x), ("float", &y)]);
                    self.emit("e", format!("fptrunc float {r} to {lt}"))
                }
            }),
            CtOp::Ceil | CtOp::Floor => {
                let f = if c.op == CtOp::Ceil { "ceil" } else { "floor" };
                Ok(self.intrinsic(lt, &format!("llvm.{f}.{suffix}"), &[(lt, &a[0])]))
            }
            CtOp::Sqrt if default_mode => Ok(self.intrinsic(lt, &format!("llvm.sqrt.{suffix}"), &[(lt, &a[0])])),
            CtOp::Sqrt if f32_like && rounding == RoundingMode::Approx => {
                Ok(self.intrinsic("float", &format!("llvm.nvvm.sqrt.approx{}.f", if ftz { ".ftz" } else { "" }), &[("float", &a[0])]))
            }
            CtOp::Sqrt => {
                let r = nvvm_rounding(rounding).ok_or_else(|| format!("'sqrt' rounding '{rounding}' is not supported"))?;
                match n {
                    NumType::F32 => Ok(self.intrinsic("float", &format!("llvm.nvvm.sqrt.{r}{}.f", if ftz { ".ftz" } else { "" }), &[("float", &a[0])])),
                    NumType::F64 => Ok(self.intrinsic("double", &format!("llvm.nvvm.sqrt.{r}.d"), &[("double", &a[0])])),
                    NumType::F16 | NumType::BF16 => {
                        // As for arithmetic: f32 and one more rounding in the same direction.
                        let wide = self.widen_small_float(n, &a[0])?;
                        let r32 = self.intrinsic("float", &format!("llvm.nvvm.sqrt.{r}.f"), &[("float", &wide)]);
                        Ok(self.narrow_directed(n, &r32, r))
                    }
                    _ => Err(format!("'sqrt' with rounding '{rounding}' on {n} is not supported yet")),
                }
            }
            CtOp::Rsqrt | CtOp::Exp | CtOp::Exp2 | CtOp::Log | CtOp::Log2 | CtOp::Sin | CtOp::Cos | CtOp::Tan | CtOp::TanH
            | CtOp::SinH | CtOp::CosH | CtOp::Pow | CtOp::Atan2 => {
                if n == NumType::F64 {
                    // libdevice's double-precision functions (≤ 1–2 ulp per the CUDA C++
                    // Programming Guide's table: exp/exp2/log/log2/sin/cos/tan/sinh/cosh/
                    // tanh/atan2 ≤ 1 or 2 ulp, pow ≤ 2, rsqrt ≤ 1); the LLVM worker links
                    // libdevice.10.bc into a module that calls them.
                    let f = match c.op {
                        CtOp::Rsqrt => "__nv_rsqrt",
                        CtOp::Exp => "__nv_exp",
                        CtOp::Exp2 => "__nv_exp2",
                        CtOp::Log => "__nv_log",
                        CtOp::Log2 => "__nv_log2",
                        CtOp::Sin => "__nv_sin",
                        CtOp::Cos => "__nv_cos",
                        CtOp::Tan => "__nv_tan",
                        CtOp::TanH => "__nv_tanh",
                        CtOp::SinH => "__nv_sinh",
                        CtOp::CosH => "__nv_cosh",
                        CtOp::Pow => "__nv_pow",
                        _ => "__nv_atan2",
                    };
                    let args: Vec<(&str, &str)> = a.iter().map(|v| ("double", v.as_str())).collect();
                    return Ok(self.intrinsic("double", f, &args));
                }
                let x = self.widen_small_float(n, &a[0])?;
                let y = if a.len() > 1 { Some(self.widen_small_float(n, &a[1])?) } else { None };
                let r = self.math_f32(c.op, &x, y.as_deref(), ftz, rounding)?;
                Ok(match n {
                    NumType::F16 | NumType::BF16 => self.emit("nr", format!("fptrunc float {r} to {lt}")),
                    _ => r,
                })
            }
            _ => Err(format!("'{name}' is not supported by the LLVM writer yet")),
        }
    }

    /// Transcendentals in f32 through the MUFU approximations (ex2, lg2, sin, cos, rsqrt,
    /// tanh). Bounds, from the PTX ISA: ex2.approx ≤ 2 ulp; lg2.approx ≤ 2^-22 absolute
    /// near 1, 2 ulp elsewhere; sin/cos.approx ≤ 2^-20.9 absolute on [-π, π]; rsqrt ≤ 2 ulp;
    /// tanh.approx ≤ 2^-10.987 relative. Derived functions add the error of one extra
    /// multiplication (exp, log) or division (tan, sinh, cosh, pow). log, log2, sin, cos
    /// and tan call libdevice instead unless `rounding` is `approx` (see below).
    fn math_f32(&mut self, op: CtOp, x: &str, y: Option<&str>, ftz: bool, rounding: RoundingMode) -> R<String> {
        let approx = rounding == RoundingMode::Approx;
        let fz = if ftz { ".ftz" } else { "" };
        let ex2 = |s: &mut Self, v: &str| s.intrinsic("float", &format!("llvm.nvvm.ex2.approx{fz}.f"), &[("float", v)]);
        let lg2 = |s: &mut Self, v: &str| s.intrinsic("float", &format!("llvm.nvvm.lg2.approx{fz}.f"), &[("float", v)]);
        const LN2: &str = "0x3FE62E4300000000"; // f32(ln 2)
        Ok(match op {
            CtOp::Rsqrt => self.intrinsic("float", &format!("llvm.nvvm.rsqrt.approx{fz}.f"), &[("float", x)]),
            CtOp::Exp2 => ex2(self, x),
            // `approx` asks for the bare hardware form; the default (`full`) for accuracy.
            CtOp::Exp if approx => {
                let s = self.emit("xs", format!("fmul float {x}, 0x3FF7154760000000"));
                ex2(self, &s)
            }
            CtOp::Exp => self.exp_f32(x, false, ftz),
            // log, log2, sin, cos and tan carry no rounding attribute in cuda_tile, so a
            // kernel has no way to ask for accuracy: the bare MUFU forms only bound the
            // absolute error (sin near 0: ~5000 ulp relative; lg2 near 1 likewise). Like
            // CUDA C++'s logf/sinf without -use_fast_math they go through libdevice
            // (`__nv_logf` ≤ 1 ulp, `__nv_log2f` ≤ 1, `__nv_sinf`/`__nv_cosf` ≤ 2,
            // `__nv_tanf` ≤ 4 per the CUDA C++ Programming Guide), which the LLVM worker
            // links only into modules that call `__nv_*`. `approx` (only reachable from a
            // lower dialect) keeps the hardware forms.
            CtOp::Log2 | CtOp::Log | CtOp::Sin | CtOp::Cos | CtOp::Tan if !approx => {
                let f = match op {
                    CtOp::Log2 => "__nv_log2f",
                    CtOp::Log => "__nv_logf",
                    CtOp::Sin => "__nv_sinf",
                    CtOp::Cos => "__nv_cosf",
                    _ => "__nv_tanf",
                };
                self.intrinsic("float", f, &[("float", x)])
            }
            // pow has no rounding attribute either: libdevice's `__nv_powf` (≤ 2 ulp per the
            // CUDA C++ Programming Guide; C99's special cases) rather than 2^(y·log2 x), which
            // is 75 ulp off on the H200 because lg2's error is multiplied by y.
            CtOp::Pow if !approx => {
                let y = y.ok_or("pow needs two operands")?;
                self.intrinsic("float", "__nv_powf", &[("float", x), ("float", y)])
            }
            CtOp::Log2 => lg2(self, x),
            CtOp::Log => {
                let l = lg2(self, x);
                self.emit("ln", format!("fmul float {l}, {LN2}"))
            }
            CtOp::Sin => self.intrinsic("float", &format!("llvm.nvvm.sin.approx{fz}.f"), &[("float", x)]),
            CtOp::Cos => self.intrinsic("float", &format!("llvm.nvvm.cos.approx{fz}.f"), &[("float", x)]),
            CtOp::Tan => {
                let s = self.intrinsic("float", &format!("llvm.nvvm.sin.approx{fz}.f"), &[("float", x)]);
                let c = self.intrinsic("float", &format!("llvm.nvvm.cos.approx{fz}.f"), &[("float", x)]);
                self.emit("tn", format!("fdiv float {s}, {c}"))
            }
            CtOp::TanH if approx => self.intrinsic("float", "llvm.nvvm.tanh.approx.f32", &[("float", x)]),
            CtOp::TanH => self.tanh_f32(x, ftz),
            CtOp::SinH | CtOp::CosH => {
                // (e^x ∓ e^-x) / 2 from the halves, which stay finite up to |x| ≈ 89.4 (e^x
                // itself overflows past 88.7).
                let e = self.exp_f32_scaled(x, false, ftz, true);
                let em = self.exp_f32_scaled(x, true, ftz, true);
                let r = self.emit("sh", format!("{} float {e}, {em}", if op == CtOp::SinH { "fsub" } else { "fadd" }));
                if op == CtOp::CosH {
                    r
                } else {
                    // Near 0, e^x - e^-x cancels: the Taylor series x + x³/3! + … + x⁹/9! is
                    // within 0.1 ulp below |x| = 0.5.
                    let s = self.emit("sh", format!("fmul float {x}, {x}"));
                    let mut p = "0x3EC71DE3A0000000".to_string();
                    for c in ["0x3F2A01A020000000", "0x3F81111120000000", "0x3FC5555560000000"] {
                        p = self.intrinsic("float", "llvm.fma.f32", &[("float", &p), ("float", &s), ("float", c)]);
                    }
                    let xs = self.emit("sh", format!("fmul float {x}, {s}"));
                    let small = self.intrinsic("float", "llvm.fma.f32", &[("float", &xs), ("float", &p), ("float", x)]);
                    let ax = self.intrinsic("float", "llvm.fabs.f32", &[("float", x)]);
                    let is_small = self.emit("sh", format!("fcmp olt float {ax}, 0.5"));
                    self.emit("sh", format!("select i1 {is_small}, float {small}, float {r}"))
                }
            }
            CtOp::Pow => {
                // |x|^y = 2^(y·log2|x|); a negative base gives a real result only for an
                // integer exponent (negated when it is odd); x^0 = 1^y = 1 even for NaN.
                let y = y.ok_or("pow needs two operands")?;
                let ax = self.intrinsic("float", "llvm.fabs.f32", &[("float", x)]);
                let l = lg2(self, &ax);
                let p = self.emit("pw", format!("fmul float {l}, {y}"));
                let r = ex2(self, &p);
                let fl = self.intrinsic("float", "llvm.floor.f32", &[("float", y)]);
                let is_int = self.emit("pw", format!("fcmp oeq float {fl}, {y}"));
                let half = self.emit("pw", format!("fmul float {y}, 0x3FE0000000000000"));
                let hf = self.intrinsic("float", "llvm.floor.f32", &[("float", &half)]);
                let odd = self.emit("pw", format!("fcmp one float {hf}, {half}"));
                let nr = self.emit("pw", format!("fneg float {r}"));
                let signed = self.emit("pw", format!("select i1 {odd}, float {nr}, float {r}"));
                let neg_case = self.emit("pw", format!("select i1 {is_int}, float {signed}, float 0x7FF8000000000000"));
                let neg = self.emit("pw", format!("fcmp olt float {x}, 0.0"));
                let v = self.emit("pw", format!("select i1 {neg}, float {neg_case}, float {r}"));
                let y0 = self.emit("pw", format!("fcmp oeq float {y}, 0.0"));
                let x1 = self.emit("pw", format!("fcmp oeq float {x}, 1.0"));
                let one = self.emit("pw", format!("or i1 {y0}, {x1}"));
                self.emit("pw", format!("select i1 {one}, float 1.0, float {v}"))
            }
            CtOp::Atan2 => {
                let x2 = y.ok_or("atan2 needs two operands")?;
                self.atan2_f32(x, x2)
            }
            _ => return Err(format!("'{}' is not a math op", op.mnemonic())),
        })
    }
}

/// tanh(x)/x as a polynomial in x² on [0, 0.55], fitted like [`ATAN_COEFFS`]: within 1.24
/// ulp of tanh with f32 Horner evaluation.
const TANH_COEFFS: [&str; 6] = [
    "0x3FF0000000000000",
    "0xBFD55554A0000000",
    "0x3FC110D140000000",
    "0xBFAB927E80000000",
    "0x3F95940EA0000000",
    "0xBF79B5F4A0000000",
];

/// atan(a)/a as a polynomial in a² on [0, 1], fitted here (least squares with iterative
/// reweighting on Chebyshev points); with f32 Horner evaluation atan(a) is within 1.42 ulp.
const ATAN_COEFFS: [&str; 10] = [
    "0x3FF0000000000000",
    "0xBFD55553C0000000",
    "0x3FC9991EE0000000",
    "0xBFC24224E0000000",
    "0x3FBC0A5CE0000000",
    "0xBFB585FA00000000",
    "0x3FADB6DF60000000",
    "0xBFA0016180000000",
    "0x3F86727DC0000000",
    "0xBF5D8EFEE0000000",
];

impl FuncWriter<'_> {
    /// `atan2(y, x)` in f32: atan of min/max(|x|, |y|) by polynomial, then the octant and
    /// quadrant fix-ups; NaN in, NaN out; atan2(±0, -0) = ±π, atan2(±0, +0) = ±0. Measured
    /// against float64 arctan2: within 3 ulp.
    fn atan2_f32(&mut self, y: &str, x: &str) -> String {
        let fabs = |w: &mut Self, v: &str| w.intrinsic("float", "llvm.fabs.f32", &[("float", v)]);
        let (ax, ay) = (fabs(self, x), fabs(self, y));
        let mx = self.intrinsic("float", "llvm.maxnum.f32", &[("float", &ax), ("float", &ay)]);
        let mn = self.intrinsic("float", "llvm.minnum.f32", &[("float", &ax), ("float", &ay)]);
        let q = self.emit("at", format!("fdiv float {mn}, {mx}"));
        let zero = self.emit("at", format!("fcmp oeq float {mx}, 0.0"));
        let q = self.emit("at", format!("select i1 {zero}, float 0.0, float {q}"));
        let inf = self.emit("at", format!("fcmp oeq float {mn}, 0x7FF0000000000000"));
        let a = self.emit("at", format!("select i1 {inf}, float 1.0, float {q}"));
        let s = self.emit("at", format!("fmul float {a}, {a}"));
        let mut p = ATAN_COEFFS[ATAN_COEFFS.len() - 1].to_string();
        for c in ATAN_COEFFS.iter().rev().skip(1) {
            p = self.intrinsic("float", "llvm.fma.f32", &[("float", &p), ("float", &s), ("float", c)]);
        }
        let r = self.emit("at", format!("fmul float {p}, {a}"));
        let steep = self.emit("at", format!("fcmp ogt float {ay}, {ax}"));
        let r2 = self.emit("at", format!("fsub float 0x3FF921FB60000000, {r}"));
        let r = self.emit("at", format!("select i1 {steep}, float {r2}, float {r}"));
        let xb = self.emit("at", format!("bitcast float {x} to i32"));
        let xneg = self.emit("at", format!("icmp slt i32 {xb}, 0"));
        let r3 = self.emit("at", format!("fsub float 0x400921FB60000000, {r}"));
        let r = self.emit("at", format!("select i1 {xneg}, float {r3}, float {r}"));
        let r = self.intrinsic("float", "llvm.copysign.f32", &[("float", &r), ("float", y)]);
        let nan = self.emit("at", format!("fcmp uno float {x}, {y}"));
        self.emit("at", format!("select i1 {nan}, float 0x7FF8000000000000, float {r}"))
    }
}

/// A tile (rank at least 1) of one element.
fn is_single_element(shape: &[i64]) -> bool {
    !shape.is_empty() && shape.iter().product::<i64>() == 1
}

/// Float formats narrower than 16 bits, which conversions reach only in software or from f32.
fn is_narrow_float(n: NumType) -> bool {
    matches!(n, NumType::F8E4M3FN | NumType::F8E5M2 | NumType::F8E8M0FNU | NumType::F4E2M1FN)
}

fn fsuffix(lt: &str) -> &'static str {
    match lt {
        "half" => "f16",
        "bfloat" => "bf16",
        "double" => "f64",
        _ => "f32",
    }
}

fn mem_bytes(lt: &str) -> u32 {
    match lt {
        "i8" => 1,
        "i16" | "half" | "bfloat" => 2,
        "i64" | "double" | "ptr addrspace(1)" => 8,
        _ => 4,
    }
}

/// LLVM atomic ordering + syncscope of an ordered pointer load or store (None: weak).
/// The LLVM `syncscope("…") ` prefix of a memory scope (none for the system scope; an
/// ordered access without a scope is at device scope).
fn llvm_syncscope(scope: Option<MemoryScope>) -> &'static str {
    match scope.unwrap_or(MemoryScope::Device) {
        MemoryScope::TlBlk => "syncscope(\"block\") ",
        MemoryScope::Device => "syncscope(\"device\") ",
        MemoryScope::Sys => "",
    }
}

fn ptx_sem(ordering: MemoryOrdering, scope: Option<MemoryScope>, load: bool) -> R<Option<String>> {
    let ord = match ordering {
        MemoryOrdering::Weak => return Ok(None),
        MemoryOrdering::Relaxed => "monotonic",
        MemoryOrdering::Acquire if load => "acquire",
        MemoryOrdering::Release if !load => "release",
        other => return Err(format!("memory ordering '{other}' is not valid on a {}", if load { "load" } else { "store" })),
    };
    let sc = llvm_syncscope(scope);
    let mut s = String::new();
    let _ = write!(s, "{sc}{ord}");
    Ok(Some(s))
}
