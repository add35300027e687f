//! The `cp_async` variant of `tiled_load` (sm_80+): the tile is copied from global into
//! shared memory in 16-byte `cp.async` chunks spread over the CTA's threads, each chunk
//! zero-filled past the memref's end (`src-size` below 16), and every thread then reads its
//! registers from the image in the tile's layout, whatever that layout is.
//!
//! It asks for what 16-byte chunks need: a weak load (cp.async has no ordering), zero or no
//! padding (what the zero fill gives), a unit innermost stride, a base and outer strides that
//! are multiples of 16 bytes, and tile rows of whole chunks. The copy moves each row as
//! consecutive 16-byte pieces, however few elements each thread holds in its layout.

use crate::writer::{FuncWriter, TiledParts};
use tileir_ir::{MemoryOrdering, NumType, OpId, PaddingValue, TileElem};

type R<T> = Result<T, String>;

/// Why `cp_async` cannot lower the tiled load `p` (None: it applies).
pub(crate) fn cp_async_rejects(w: &FuncWriter<'_>, op: OpId, p: &TiledParts) -> Option<String> {
    match crate::writer::sm_number(&w.target) {
        Some(sm) if sm >= 80 => {}
        _ => return Some(format!("needs sm_80+ (target {})", w.target)),
    }
    if p.access.ordering != MemoryOrdering::Weak {
        return Some(format!("the load is {} (cp.async copies are weak)", p.access.ordering.keyword()));
    }
    if !matches!(p.access.padding, None | Some(PaddingValue::Zero)) {
        return Some("the padding is not zero (cp.async fills what lies past the memref with zeros)".into());
    }
    if matches!(p.elem, NumType::I1 | NumType::F4E2M1FN) {
        return Some(format!("{} tiles (bytes that are not whole elements or canonical booleans)", p.elem));
    }
    if p.access.origin_step.is_some() {
        return Some("a strided view (tile origins that are not tile multiples)".into());
    }
    let rank = p.shape.len();
    if rank == 0 {
        return Some("a 0-d tile".into());
    }
    if p.strides.last().map(String::as_str) != Some("1") {
        return Some("the innermost stride is not a static 1".into());
    }
    let eb = p.elem.storage_bytes() as i64;
    let m = w.m;
    if !crate::tma::strides_16_byte_aligned(m, m.ops[op].operands[0], eb) {
        return Some("the memref's base or outer strides are not known to be multiples of 16 bytes".into());
    }
    let row_bytes = p.shape[rank - 1] * eb;
    if row_bytes % 16 != 0 {
        return Some(format!("a tile row is {row_bytes} bytes (cp.async copies 16-byte chunks)"));
    }
    let bytes = p.shape.iter().product::<i64>() as u64 * eb as u64;
    let limit = crate::writer::max_smem_bytes(&w.target);
    if bytes > limit {
        return Some(format!("the tile needs {bytes} bytes of shared memory ({} allows {limit})", w.target));
    }
    None
}

impl FuncWriter<'_> {
    /// The `cp_async` variant (see the module documentation).
    pub(crate) fn tiled_cp_async(&mut self, op: OpId, p: &TiledParts) -> R<()> {
        let data = self.m.ops[op].clone();
        let (shape, rank) = (&p.shape, p.shape.len());
        let eb = p.elem.storage_bytes() as i64;
        let elem = TileElem::Num(p.elem);
        let lt = crate::lower_ct::elem_llvm(elem)?;
        let per_chunk = 16 / eb;
        let chunks_per_row = shape[rank - 1] / per_chunk;
        let total = shape.iter().product::<i64>() * eb / 16;
        let threads = p.layout.num_threads() as i64;
        self.scratch((total * 16) as u64);
        // Earlier readers of the scratch region are done with it.
        self.barrier();
        let tid = self.thread_id();
        self.declare("declare void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3), ptr addrspace(1), i32)");
        self.declare("declare i64 @llvm.smin.i64(i64, i64)");
        // The tile's first global coordinate per dimension.
        let starts: Vec<String> =
            (0..rank).map(|d| self.emit("cps", format!("mul i64 {}, {}", p.tile_index[d], shape[d]))).collect();
        self.for_each_thread_item(&tid, total, threads, &mut |w, c| {
            // The chunk's tile coordinates: its row (outer dimensions, row-major) and column.
            let c64 = w.emit("cpc", format!("zext i32 {c} to i64"));
            let mut rest = w.emit("cprw", format!("udiv i64 {c64}, {chunks_per_row}"));
            let chunk = w.emit("cpch", format!("urem i64 {c64}, {chunks_per_row}"));
            let mut within = vec![String::new(); rank];
            within[rank - 1] = w.emit("cpcl", format!("mul i64 {chunk}, {per_chunk}"));
            for d in (0..rank - 1).rev() {
                within[d] = w.emit("cpd", format!("urem i64 {rest}, {}", shape[d]));
                rest = w.emit("cprw", format!("udiv i64 {rest}, {}", shape[d]));
            }
            // Global coordinates; a chunk reads only when all of them are inside the memref
            // (unsigned: a negative coordinate is out), and as many elements of its row as
            // the memref has left.
            let mut inside: Option<String> = None;
            let mut linear: Option<String> = None;
            for d in 0..rank {
                let g = w.emit("cpg", format!("add i64 {}, {}", starts[d], within[d]));
                let ok = w.emit("cpok", format!("icmp ult i64 {g}, {}", p.sizes[d]));
                inside = Some(w.chain(inside, ok, "and i1", "cpok"));
                let term = if p.strides[d] == "1" { g.clone() } else { w.emit("cpt", format!("mul i64 {g}, {}", p.strides[d])) };
                linear = Some(w.chain(linear, term, "add i64", "cpl"));
                if d + 1 == rank {
                    let left = w.emit("cplf", format!("sub i64 {}, {g}", p.sizes[d]));
                    let left = w.emit("cplf", format!("call i64 @llvm.smin.i64(i64 {left}, i64 {per_chunk})"));
                    let inside = inside.clone().unwrap_or_else(|| "true".into());
                    let left = w.emit("cplf", format!("select i1 {inside}, i64 {left}, i64 0"));
                    let bytes = w.emit("cpsz", format!("mul i64 {left}, {eb}"));
                    let bytes = w.emit("cpsz", format!("trunc i64 {bytes} to i32"));
                    // A chunk with nothing to read keeps the base address: no address past
                    // the allocation is ever formed.
                    let linear = linear.clone().unwrap_or_else(|| "0".into());
                    let linear = w.emit("cpl", format!("select i1 {inside}, i64 {linear}, i64 0"));
                    let src = w.emit("cpsrc", format!("getelementptr {lt}, ptr addrspace(1) {}, i64 {linear}", p.base));
                    let off = w.emit("cpo", format!("mul i32 {c}, 16"));
                    let dst = w.smem_ptr(&off);
                    w.line(&format!(
                        "call void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3) {dst}, ptr addrspace(1) {src}, i32 {bytes})"
                    ));
                }
            }
            Ok(())
        })?;
        self.declare("declare void @llvm.nvvm.cp.async.commit.group()");
        self.declare("declare void @llvm.nvvm.cp.async.wait.group(i32)");
        self.intrinsic_void("llvm.nvvm.cp.async.commit.group", &[]);
        self.intrinsic_void("llvm.nvvm.cp.async.wait.group", &[("i32", "0")]);
        // Every thread's chunks have landed before any thread reads another's.
        self.barrier();
        let coords = self.result_coords(data.results[0]);
        let mut loaded = Vec::with_capacity(coords.len());
        for rc in coords {
            let lin = self.linear(&rc, shape);
            let off = self.emit("cpr", format!("mul i32 {lin}, {eb}"));
            loaded.push(self.smem_load(elem, &off)?);
        }
        self.values.insert(data.results[0], crate::writer::Lowered::Tile(loaded));
        self.values.insert(data.results[1], crate::writer::Lowered::Token);
        Ok(())
    }

    /// Runs `body` once for each of `total` items spread over `threads` threads: thread
    /// `tid` takes items tid, tid + threads, …, and `body` gets the item's index (an i32
    /// value). A last, partial round is guarded.
    pub(crate) fn for_each_thread_item(
        &mut self,
        tid: &str,
        total: i64,
        threads: i64,
        body: &mut dyn FnMut(&mut Self, &str) -> R<()>,
    ) -> R<()> {
        for first in (0..total).step_by(threads as usize) {
            let c = self.emit("cc", format!("add i32 {tid}, {first}"));
            let guard = (first + threads > total).then(|| {
                let ok = self.emit("cin", format!("icmp ult i32 {c}, {total}"));
                let (yes, join) = (self.new_label("cpa"), self.new_label("cpaj"));
                self.line(&format!("br i1 {ok}, label {yes}, label {join}"));
                self.label(&yes);
                join
            });
            body(self, &c)?;
            if let Some(join) = guard {
                self.line(&format!("br label {join}"));
                self.label(&join);
            }
        }
        Ok(())
    }
}
