//! TMA store epilogues (sm_90a). A K loop's wgmma accumulator, carried in fragment
//! registers, reaches its `tiled_store` (directly or through one `ftof`) without returning
//! to its blocked layout: each thread converts its fragments and writes them (two adjacent
//! columns at a time) into a row-major image in shared memory, cut into column slabs of at
//! most 128 bytes; after a proxy fence and a barrier one thread stores each slab by TMA
//! (`cp.async.bulk.tensor ... .bulk_group`), which clips at the tensor's edges, and waits
//! until the copies have read the image before the CTA goes on.
//!
//! The accumulator's trip through shared memory into its layout, and the layout's global
//! stores, are gone; the image is written once and read by the TMA engine.

use crate::mma_sync::num;
use crate::wgmma::WgmmaPlan;
use crate::writer::{FuncWriter, Lowered};
use std::collections::HashMap;
use tileir_ir::{CtOp, Dim, NumType, OpId, OpKind, RoundingMode, TileAsOp, Type, ValueDef, ValueId};

type R<T> = Result<T, String>;

/// The widest slab of the image one TMA store moves: 128 bytes of each row.
const SLAB_BYTES: i64 = 128;

/// A store the epilogue writes by TMA.
#[derive(Clone, Debug)]
pub(crate) struct TmaStore {
    /// The plan of the mma whose accumulator is stored.
    pub(crate) plan: WgmmaPlan,
    /// The stored element type.
    pub(crate) out: NumType,
    /// Columns of one slab.
    pub(crate) slab_cols: i64,
    /// Wait for the copies to complete (`cp.async.bulk.wait_group 0`), not only to have read
    /// the image (`.read`): memory ops may follow.
    pub(crate) complete: bool,
}

/// What the epilogues of a function lower specially.
#[derive(Default)]
pub(crate) struct Epilogues {
    /// By store op.
    pub(crate) stores: HashMap<OpId, TmaStore>,
    /// Loop results that stay fragments after their loop.
    pub(crate) results: std::collections::HashSet<ValueId>,
    /// `ftof` ops converting such fragments, element by element.
    pub(crate) converts: std::collections::HashSet<OpId>,
    /// Reshapes adding leading unit dimensions to such fragments, and same-width bitcasts of
    /// them: the same fragments (their LLVM type stays the converted accumulator's).
    pub(crate) passthrough: std::collections::HashSet<OpId>,
}

impl FuncWriter<'_> {
    /// The stores of `func` an epilogue can write by TMA: a weak, unmasked store of a 2-d
    /// tile into a memref the launcher can describe (parameters or constants, 16-byte
    /// aligned rows, a TMA element type), whose value is a fragment-carried loop result of
    /// the tile's shape (used only there, or by one `ftof` used only there) from a loop in
    /// the store's block.
    pub(crate) fn find_tma_stores(&self, func: OpId) -> Epilogues {
        let m = self.m;
        let mut out = Epilogues::default();
        if self.target != "sm_90a" {
            return out;
        }
        let uses = m.use_counts();
        let Some(func_block) = m.entry_block(func, 0) else { return out };
        for op in m.walk() {
            let OpKind::TileAs(TileAsOp::TiledStore { access, .. }) = &m.ops[op].kind else { continue };
            if !m.is_ancestor(func, op) || access.ordering != tileir_ir::MemoryOrdering::Weak || access.num_indices < 2 {
                continue;
            }
            // Operands: memref, value, tile indices, token.
            let (memref, value) = (m.ops[op].operands[0], m.ops[op].operands[1]);
            let block = m.ops[op].parent;
            // The value: the loop result, through an ftof and then reshapes adding leading
            // unit dimensions (a batched store) and same-width bitcasts (an integer view of
            // the output), each optional and used only on this path.
            let single = |v: ValueId, o: OpId| m.ops[o].parent == block && uses.get(&v) == Some(&1);
            let (mut passthrough, mut x) = (Vec::new(), value);
            while let Some(r) = m.defining_op(x).filter(|&r| m.is_bit_view(r) && single(x, r)) {
                if passthrough.len() == 2 {
                    break;
                }
                passthrough.push(r);
                x = m.ops[r].operands[0];
            }
            let (convert, result) = match m.defining_op(x) {
                Some(f) if m.ops[f].kind.ct() == Some(CtOp::FToF) && single(x, f) => (Some(f), m.ops[f].operands[0]),
                _ => (None, x),
            };
            let ValueDef::OpResult { op: looped, index } = m.values[result].def else { continue };
            if m.ops[looped].kind.ct() != Some(CtOp::For) || m.ops[looped].parent != block || uses.get(&result) != Some(&1) {
                continue;
            }
            let Some(Some((plan, _))) = self.fragment_carries(looped).into_iter().nth(index as usize) else { continue };
            // The stored bits are those of the converted accumulator (a bitcast keeps them).
            let Some(out_ty) = num(self.val_ty(x).elem) else { continue };
            if crate::tma::tma_elem_name(out_ty).is_none() {
                continue;
            }
            let eb = out_ty.bit_width() as i64 / 8;
            let Type::MemRef { strides, .. } = m.types.get(m.value_type(memref)) else { continue };
            let shape = &self.val_ty(value).shape;
            let rank = shape.len();
            let shape_ok = rank == access.num_indices as usize
                && shape[rank - 2..] == [plan.m, plan.n]
                && shape[..rank - 2].iter().all(|&d| d == 1);
            let boxed = plan.m <= 256 && (plan.n * eb) % 16 == 0;
            if !shape_ok
                || !boxed
                || strides.last() != Some(&Dim::Static(1))
                || !crate::tma::strides_16_byte_aligned(m, memref, eb)
                || crate::tma::memref_source(m, func_block, memref).is_none()
            {
                continue;
            }
            let slab_cols = (SLAB_BYTES / eb).min(plan.n);
            if plan.n % slab_cols != 0 {
                continue;
            }
            // Until the copies' global writes are complete, memory ops after the store could
            // see stale data: a store inside a loop or followed by memory ops in its block waits
            // for completion, otherwise only for the image to be read.
            let complete = block != Some(func_block)
                || m.blocks[func_block].ops.iter().skip_while(|&&o| o != op).skip(1).any(|&o| crate::wgmma::touches_memory(m, o));
            out.stores.insert(op, TmaStore { plan, out: out_ty, slab_cols, complete });
            out.results.insert(result);
            out.converts.extend(convert);
            out.passthrough.extend(passthrough);
        }
        out
    }

    /// `ftof` of fragments (an epilogue's conversion): element by element, still fragments.
    pub(crate) fn convert_fragments(&mut self, op: OpId, c: &tileir_ir::CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let from = num(self.val_ty(data.operands[0]).elem).ok_or("ftof of a non-numeric tile")?;
        let to = num(self.val_ty(data.results[0]).elem).ok_or("ftof to a non-numeric tile")?;
        let rounding = c.enum_attr::<RoundingMode>("rounding_mode").unwrap_or(RoundingMode::NearestEven);
        let mut out = Vec::new();
        for x in self.elems(data.operands[0])? {
            out.push(self.ftof(from, to, &x, rounding)?);
        }
        self.set_elems(data.results[0], out);
        self.fragment_values.insert(data.results[0]);
        Ok(())
    }

    /// A reshape adding leading unit dimensions to fragments, or a same-width bitcast of
    /// them: the same fragments.
    pub(crate) fn pass_fragments(&mut self, op: OpId) -> R<()> {
        let data = self.m.ops[op].clone();
        let frags = self.elems(data.operands[0])?;
        self.set_elems(data.results[0], frags);
        self.fragment_values.insert(data.results[0]);
        Ok(())
    }

    /// The TMA store epilogue of store `op` (see the module documentation).
    pub(crate) fn tma_store(&mut self, op: OpId, st: &TmaStore) -> R<()> {
        let m = self.m;
        let data = m.ops[op].clone();
        let (memref, value) = (data.operands[0], data.operands[1]);
        let (rows, cols, slab) = (st.plan.m, st.plan.n, st.slab_cols);
        let rank = self.val_ty(value).shape.len();
        let eb = st.out.bit_width() as i64 / 8;
        let lt = crate::lower_ct::elem_llvm(tileir_ir::TileElem::Num(st.out))?;
        let frags = self.elems(value)?;
        let entry = self.entry_block.ok_or("no entry block")?;
        let (base, sizes, strides) = crate::tma::memref_source(m, entry, memref).ok_or("the memref's parameters are not known to the launcher")?;
        let elem = crate::tma::tma_elem_name(st.out).ok_or("no TMA element type")?;
        let tmap = self.tensor_map_param(crate::tma::TensorMapSpec {
            base,
            sizes,
            strides,
            elem: elem.to_string(),
            // Leading (batch) dimensions of the tile are 1.
            box_dims: std::iter::repeat_n(1, rank - 2).chain([rows as u32, slab as u32]).collect(),
            swizzle_bytes: 0,
        });
        let index = self.tile_index_i32(op)?;
        // The image: slab s holds columns [s * slab, (s + 1) * slab) of every row.
        self.scratch((rows * cols * eb) as u64);
        self.barrier();
        let coords = self.fragment_coords(&st.plan);
        for (k, pair) in frags.chunks(2).enumerate() {
            let (r, c) = coords[2 * k].clone();
            let s = self.emit("es", format!("udiv i32 {c}, {slab}"));
            let s = self.emit("es", format!("mul i32 {s}, {}", rows * slab * eb));
            let within = self.emit("ec", format!("urem i32 {c}, {slab}"));
            let lin = self.emit("el", format!("mul i32 {r}, {slab}"));
            let lin = self.emit("el", format!("add i32 {lin}, {within}"));
            let lin = self.emit("el", format!("mul i32 {lin}, {eb}"));
            let off = self.emit("eo", format!("add i32 {s}, {lin}"));
            let p = self.smem_ptr(&off);
            // Registers 2k and 2k + 1 are columns c and c + 1 of row r.
            let v0 = self.emit("ev", format!("insertelement <2 x {lt}> poison, {lt} {}, i32 0", pair[0]));
            let v = self.emit("ev", format!("insertelement <2 x {lt}> {v0}, {lt} {}, i32 1", pair[1]));
            self.line(&format!("store <2 x {lt}> {v}, ptr addrspace(3) {p}, align {}", 2 * eb));
        }
        // The image's generic writes (and earlier generic global stores the copies could
        // overwrite) before the async proxy acts.
        self.intrinsic_void("llvm.nvvm.fence.proxy.async", &[]);
        self.barrier();
        let row0 = self.emit("erow", format!("mul i32 {}, {rows}", index[rank - 2]));
        let col0 = self.emit("ecol", format!("mul i32 {}, {cols}", index[rank - 1]));
        // TMA coordinates innermost first: column, row, then the batch indices (extent 1).
        let outer: Vec<String> = std::iter::once(row0).chain(index[..rank - 2].iter().rev().cloned()).collect();
        let slots: Vec<String> = (0..=outer.len()).map(|i| format!("${}", i + 1)).collect();
        let src_slot = outer.len() + 2;
        let smem = self.smem_name.clone();
        let sbase = self.emit("esb", format!("ptrtoint ptr addrspace(3) {smem} to i32"));
        let tid = self.thread_id();
        let issuer = self.emit("eiss", format!("icmp eq i32 {tid}, 0"));
        let (yes, join) = (self.new_label("tmas"), self.new_label("tmasj"));
        self.line(&format!("br i1 {issuer}, label {yes}, label {join}"));
        self.label(&yes);
        for s in 0..cols / slab {
            let col = self.emit("ecs", format!("add i32 {col0}, {}", s * slab));
            let src = self.emit("esrc", format!("add i32 {sbase}, {}", s * rows * slab * eb));
            let coords: Vec<String> = std::iter::once(&col).chain(&outer).map(|c| format!("i32 {c}")).collect();
            self.line(&format!(
                "call void asm sideeffect \"cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group [$0, {{{}}}], [${src_slot}];\", \"l,{}r,~{{memory}}\"(ptr {tmap}, {}, i32 {src})",
                slots.join(", "),
                "r,".repeat(rank),
                coords.join(", ")
            ));
        }
        // The copies must have read the image before anything overwrites it.
        self.line("call void asm sideeffect \"cp.async.bulk.commit_group;\", \"~{memory}\"()");
        let wait = if st.complete { "cp.async.bulk.wait_group 0;" } else { "cp.async.bulk.wait_group.read 0;" };
        self.line(&format!("call void asm sideeffect \"{wait}\", \"~{{memory}}\"()"));
        self.line(&format!("br label {join}"));
        self.label(&join);
        self.barrier();
        for &r in &data.results {
            self.values.insert(r, Lowered::Token);
        }
        Ok(())
    }
}
