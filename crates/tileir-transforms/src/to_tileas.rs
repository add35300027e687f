//! `convert-tileaa-to-tileas`: nv_tileaa → nv_tileas.
//!
//! Every tile of rank ≥ 1 gets a blocked register layout chosen from its shape, its
//! element size and the kernel's warp count (the same inputs always give the same
//! layout, so element-wise ops on equal types stay layout-consistent). Tiled loads and
//! stores become nv_tileas ops whose `vector_width` is the widest per-thread access the
//! layout, the unit stride and the base alignment facts make safe.

use std::collections::HashMap;
use tileir_ir::{
    Diagnostic, Diagnostics, Dim, Layout, Module, OpId, OpKind, TileAaOp, TileAsOp, TileElem, Type, TypeId, ValueId,
};
use tileir_pass::{pass_options, Pass};

/// Registered name.
pub const NAME: &str = "convert-tileaa-to-tileas";

/// Widest per-thread global access, in bytes.
const MAX_VECTOR_BYTES: u32 = 16;

/// Largest-tile size from which the automatic warp count is 8.
const LARGE_TILE_ELEMENTS: i64 = 8192;

/// Element size the canonical per-shape layout is chosen for.
const CANONICAL_ELEM_BYTES: u32 = 4;

pass_options! {
    /// Options of `convert-tileaa-to-tileas`.
    pub struct ToTileAsOptions {
        /// Warps per CTA (1, 2, 4, 8 or 16); 0 picks from the largest tile (at most 4).
        num_warps("num-warps"): u32 = 0,
        /// Forces lowering variants: `OP:VARIANT` entries separated by `;` (for example
        /// `reduce:serial`), stamped on every op of that kind as `tileir.variant`; OP is a
        /// cuda_tile op, or `tiled_load` / `tiled_store` (nv_tileas's tiled memory ops, whose
        /// `variant` attribute it sets).
        force_variant("force-variant"): String = String::new(),
    }
}

/// The pass.
pub struct ConvertTileAaToTileAs {
    /// Its options.
    pub options: ToTileAsOptions,
}

impl Pass for ConvertTileAaToTileAs {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let w = self.options.num_warps;
        if w != 0 && (!w.is_power_of_two() || w > 16) {
            return Err(Diagnostics::one(Diagnostic::error(
                tileir_ir::Location::Unknown,
                format!("{NAME}: num-warps must be 0 (auto) or a power of two up to 16, got {w}"),
            )));
        }
        let forced = parse_forced_variants(&self.options.force_variant).map_err(|e| {
            Diagnostics::one(Diagnostic::error(tileir_ir::Location::Unknown, format!("{NAME}: option 'force-variant': {e}")))
        })?;
        // spec/000's lower_tileaa_to_tileas starts with the queue-to-pipeline rewrite.
        crate::queue_to_pipeline::rewrite_module(module).map_err(Diagnostics::one)?;
        convert(module, w, &forced)
    }
}

/// The blocked layout tileir gives a tile of `shape` with `elem_bytes`-byte elements
/// when the CTA has `num_warps` warps: the fastest (last) dimension gets up to 16 bytes
/// per thread, then threads and warps fill dimensions from fastest to slowest; threads
/// left over replicate along the slowest dimension (their extra elements are masked).
pub fn blocked_layout(shape: &[i64], elem_bytes: u32, num_warps: u32) -> Layout {
    let order: Vec<u32> = (0..shape.len() as u32).rev().collect();
    blocked_layout_ordered(shape, elem_bytes, num_warps, &order)
}

/// [`blocked_layout`] with the dimensions ranked by `order` (fastest first) instead of
/// last-to-first: the dimension `order[0]` gets the 16-byte run, threads and warps fill the
/// dimensions in `order`, and leftovers replicate along `order`'s last (slowest) one.
/// `order` must be a permutation of `0..shape.len()`.
pub fn blocked_layout_ordered(shape: &[i64], elem_bytes: u32, num_warps: u32, order: &[u32]) -> Layout {
    let rank = shape.len();
    let mut spt = vec![1u32; rank];
    let mut tpw = vec![1u32; rank];
    let mut wpc = vec![1u32; rank];
    let fastest = order[0] as usize;
    let slowest = order[rank - 1] as usize;
    let per_vector = (MAX_VECTOR_BYTES / elem_bytes.max(1)).max(1);
    spt[fastest] = per_vector.min(shape[fastest] as u32).max(1);
    let mut threads_left = 32u32;
    for &d in order {
        let d = d as usize;
        let room = (shape[d] as u32 / spt[d]).max(1);
        let t = threads_left.min(room);
        tpw[d] = t;
        threads_left /= t;
    }
    tpw[slowest] *= threads_left;
    let mut warps_left = num_warps;
    for &d in order {
        let d = d as usize;
        let room = (shape[d] as u32 / (spt[d] * tpw[d])).max(1);
        let w = warps_left.min(room);
        wpc[d] = w;
        warps_left /= w;
    }
    wpc[slowest] *= warps_left;
    Layout::Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order: order.to_vec() }
}

/// The kind of op a `force-variant` entry names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ForcedOp {
    CudaTile(tileir_ir::CtOp),
    TiledLoad,
    TiledStore,
}

/// `OP:VARIANT;OP:VARIANT` → (op, variant) pairs; the op is a cuda_tile op name or
/// nv_tileas's `tiled_load` / `tiled_store`.
fn parse_forced_variants(text: &str) -> Result<HashMap<ForcedOp, String>, String> {
    let mut out = HashMap::new();
    for entry in text.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((op, variant)) = entry.split_once(':') else {
            return Err(format!("expected OP:VARIANT, got '{entry}'"));
        };
        let op = op.trim();
        let key = match op.trim_start_matches("nv_tileas.") {
            "tiled_load" => ForcedOp::TiledLoad,
            "tiled_store" => ForcedOp::TiledStore,
            _ => {
                let name = op.trim_start_matches("cuda_tile.");
                let ct = tileir_ir::CtOp::from_mnemonic(name)
                    .ok_or_else(|| format!("'{name}' is not a cuda_tile op (nor nv_tileas's tiled_load or tiled_store)"))?;
                ForcedOp::CudaTile(ct)
            }
        };
        if variant.trim().is_empty() {
            return Err(format!("no variant named for '{op}'"));
        }
        out.insert(key, variant.trim().to_string());
    }
    Ok(out)
}


/// Warp count for a kernel whose largest tile has `max_elements` elements.
fn auto_num_warps(max_elements: i64, elem_bytes: u32) -> u32 {
    let per_thread = (MAX_VECTOR_BYTES / elem_bytes.max(1)).max(1) as i64;
    // Large tiles get 8 warps, so that a thread's share of a 128x64 or 128x128
    // accumulator (32 or 64 registers) fits its register budget instead of spilling.
    if max_elements >= LARGE_TILE_ELEMENTS {
        return 8;
    }
    let mut w = 4;
    while w > 1 && 32 * w as i64 * per_thread > max_elements {
        w /= 2;
    }
    w
}

fn convert(module: &mut Module, requested_warps: u32, forced: &HashMap<ForcedOp, String>) -> Result<(), Diagnostics> {
    let src = std::mem::take(module);
    let mut dst = Module::new();
    let mut diags = Vec::new();
    for &top in &src.blocks[src.body].ops {
        if let OpKind::TileAa(g @ TileAaOp::Global { .. }) = &src.ops[top].kind {
            // Globals carry no tiles: they pass through unchanged.
            let loc = dst.locs.import(&src.locs, src.ops[top].loc);
            let new = dst.create_op(OpKind::TileAa(g.clone()), vec![], &[], loc);
            let body = dst.body;
            dst.append_op(body, new);
            continue;
        }
        let OpKind::TileAa(TileAaOp::Func { sym_name, function_type, kernel, hints, .. }) = &src.ops[top].kind else {
            diags.push(Diagnostic::error(
                src.op_location(top),
                format!("'{}' at the top level: expected nv_tileaa.func", src.ops[top].kind.name()),
            ));
            continue;
        };
        // Warp count: requested, or from the largest tile in the function.
        let num_warps = if requested_warps != 0 {
            requested_warps
        } else {
            let mut biggest = (1i64, 4u32);
            for op in src.walk() {
                for &r in &src.ops[op].results {
                    if let Type::Tile { shape, elem: TileElem::Num(n), .. } = src.types.get(src.value_type(r)) {
                        let count: i64 = shape.iter().product();
                        if count > biggest.0 {
                            biggest = (count, n.storage_bytes());
                        }
                    }
                }
            }
            auto_num_warps(biggest.0, biggest.1)
        };
        let mut cx = FuncConverter { src: &src, dst: &mut dst, values: HashMap::new(), num_warps, forced };
        let fty = cx.ty(*function_type);
        let loc = cx.dst.locs.import(&src.locs, src.ops[top].loc);
        let func = cx.dst.create_op(
            OpKind::TileAa(TileAaOp::Func {
                sym_name: sym_name.clone(),
                function_type: fty,
                kernel: *kernel,
                num_warps: Some(num_warps),
                hints: hints.clone(),
            }),
            vec![],
            &[],
            loc,
        );
        let body = cx.dst.body;
        cx.dst.append_op(body, func);
        let Some(src_block) = src.entry_block(top, 0) else { continue };
        let arg_types: Vec<TypeId> = src.blocks[src_block].args.iter().map(|&a| src.value_type(a)).collect();
        let arg_types: Vec<TypeId> = arg_types.iter().map(|&t| cx.ty(t)).collect();
        let region = cx.dst.ops[func].regions[0];
        let block = cx.dst.add_block(region, &arg_types);
        for (i, &a) in src.blocks[src_block].args.iter().enumerate() {
            let na = cx.dst.blocks[block].args[i];
            cx.copy_name(a, na);
            cx.values.insert(a, na);
        }
        for &op in &src.blocks[src_block].ops {
            if let Err(d) = cx.op(op, block) {
                diags.push(d);
            }
        }
    }
    if diags.is_empty() {
        *module = dst;
        Ok(())
    } else {
        Err(Diagnostics(diags))
    }
}

struct FuncConverter<'a> {
    src: &'a Module,
    dst: &'a mut Module,
    values: HashMap<ValueId, ValueId>,
    num_warps: u32,
    forced: &'a HashMap<ForcedOp, String>,
}

impl FuncConverter<'_> {
    fn ty(&mut self, t: TypeId) -> TypeId {
        match self.src.types.get(t).clone() {
            Type::Tile { shape, elem, layout: None } if !shape.is_empty() => {
                // One layout per shape, whatever the element type: element-wise ops mixing
                // types (select, comparisons, conversions) then never move data between
                // threads. 4-byte elements give 16-byte vectors for f32 and 8-byte ones for
                // f16.
                let layout = blocked_layout(&shape, CANONICAL_ELEM_BYTES, self.num_warps);
                self.dst.types.intern(Type::Tile { shape, elem, layout: Some(layout) })
            }
            Type::Function { inputs, results } => {
                let inputs = inputs.iter().map(|&i| self.ty(i)).collect();
                let results = results.iter().map(|&r| self.ty(r)).collect();
                self.dst.types.intern(Type::Function { inputs, results })
            }
            // Entries of pipelines (and what carries their types) are tiles too.
            Type::Pipeline { stages, consumers, elems } => {
                let elems = elems.iter().map(|&e| self.ty(e)).collect();
                self.dst.types.intern(Type::Pipeline { stages, consumers, elems })
            }
            Type::PipelineIterator { pipeline } => {
                let pipeline = self.ty(pipeline);
                self.dst.types.intern(Type::PipelineIterator { pipeline })
            }
            Type::ProducerToken { elems } => {
                let elems = elems.iter().map(|&e| self.ty(e)).collect();
                self.dst.types.intern(Type::ProducerToken { elems })
            }
            Type::ConsumerToken { elems } => {
                let elems = elems.iter().map(|&e| self.ty(e)).collect();
                self.dst.types.intern(Type::ConsumerToken { elems })
            }
            _ => self.dst.types.import(&self.src.types, t),
        }
    }

    fn copy_name(&mut self, old: ValueId, new: ValueId) {
        if let Some(n) = &self.src.values[old].name {
            self.dst.set_name(new, n);
        }
    }

    /// Vector width for a tiled access of `tile` through `memref` (defined by make_memref).
    fn vector_width(&self, memref: ValueId, tile: TypeId, origin_step: Option<&[i64]>) -> u32 {
        match self.dst.types.get(tile) {
            Type::Tile { layout: Some(layout), .. } => vector_width(self.src, memref, layout, origin_step),
            _ => 1,
        }
    }

    /// A residual cuda_tile op keeps its kind; its tile types gain layouts and its regions
    /// are converted recursively.
    fn residual(&mut self, op: OpId, block: tileir_ir::BlockId) -> Result<(), Diagnostic> {
        let src = self.src;
        let data = src.ops[op].clone();
        let mut operands = Vec::with_capacity(data.operands.len());
        for v in &data.operands {
            operands.push(*self.values.get(v).ok_or_else(|| {
                Diagnostic::error(src.op_location(op), format!("'{}' uses a value that was not lowered", data.kind.name()))
            })?);
        }
        let result_types: Vec<TypeId> = data.results.iter().map(|&r| self.ty(src.value_type(r))).collect();
        let loc = self.dst.locs.import(&src.locs, data.loc);
        let mut kind = data.kind.clone();
        if let OpKind::CudaTile(ct) = &mut kind {
            if let Some(v) = self.forced.get(&ForcedOp::CudaTile(ct.op)) {
                ct.discardable.retain(|(k, _)| k != "tileir.variant");
                ct.discardable.push(("tileir.variant".into(), tileir_ir::Attr::Str(v.clone())));
            }
        }
        let new_op = self.dst.create_op(kind, operands, &result_types, loc);
        self.dst.append_op(block, new_op);
        for (i, &r) in data.results.iter().enumerate() {
            let nr = self.dst.result(new_op, i);
            self.copy_name(r, nr);
            self.values.insert(r, nr);
        }
        for (ri, &region) in data.regions.iter().enumerate() {
            let new_region = self.dst.ops[new_op].regions[ri];
            for &inner in &src.regions[region].blocks {
                let arg_types: Vec<TypeId> = src.blocks[inner].args.iter().map(|&a| self.ty(src.value_type(a))).collect();
                let new_block = self.dst.add_block(new_region, &arg_types);
                for (i, &a) in src.blocks[inner].args.iter().enumerate() {
                    let na = self.dst.blocks[new_block].args[i];
                    self.copy_name(a, na);
                    self.values.insert(a, na);
                }
                for &inner_op in &src.blocks[inner].ops {
                    self.op(inner_op, new_block)?;
                }
            }
        }
        Ok(())
    }

    fn op(&mut self, op: OpId, block: tileir_ir::BlockId) -> Result<(), Diagnostic> {
        let src = self.src;
        let data = src.ops[op].clone();
        let kind = match &data.kind {
            OpKind::TileAa(kind) => kind,
            OpKind::CudaTile(ct) if tileir_ir::is_residual_cuda_tile(ct.op) => return self.residual(op, block),
            // Async pipeline, agent and TMA ops (from the queue rewrite or written by hand)
            // keep their kind; their tiles gain layouts like residual ops'.
            OpKind::TileAs(k) if !matches!(k, TileAsOp::TiledLoad { .. } | TileAsOp::TiledStore { .. }) => {
                return self.residual(op, block)
            }
            _ => {
                return Err(Diagnostic::error(
                    src.op_location(op),
                    format!("'{}' inside nv_tileaa.func cannot be lowered to nv_tileas", data.kind.name()),
                ))
            }
        };
        let operands: Vec<ValueId> = data
            .operands
            .iter()
            .map(|v| {
                self.values.get(v).copied().ok_or_else(|| {
                    Diagnostic::error(src.op_location(op), format!("'{}' uses a value that was not lowered", data.kind.name()))
                })
            })
            .collect::<Result<_, _>>()?;
        let result_types: Vec<TypeId> = data.results.iter().map(|&r| self.ty(src.value_type(r))).collect();
        let new_kind = match kind {
            TileAaOp::TiledLoad(access) => {
                let vector_width = self.vector_width(data.operands[0], result_types[0], access.origin_step.as_deref());
                let variant = self.forced.get(&ForcedOp::TiledLoad).cloned();
                OpKind::TileAs(TileAsOp::TiledLoad { access: access.clone(), vector_width, variant })
            }
            TileAaOp::TiledStore(access) => {
                let value_ty = self.dst.value_type(operands[1]);
                let vector_width = self.vector_width(data.operands[0], value_ty, access.origin_step.as_deref());
                let variant = self.forced.get(&ForcedOp::TiledStore).cloned();
                OpKind::TileAs(TileAsOp::TiledStore { access: access.clone(), vector_width, variant })
            }
            TileAaOp::Func { .. } => {
                return Err(Diagnostic::error(src.op_location(op), "nested nv_tileaa.func is not supported"));
            }
            TileAaOp::Global { .. } => {
                return Err(Diagnostic::error(src.op_location(op), "nv_tileaa.global inside a function is not supported"));
            }
            TileAaOp::Return
            | TileAaOp::CreateMemToken
            | TileAaOp::GetProgramId { .. }
            | TileAaOp::GetNumPrograms { .. }
            | TileAaOp::MakeMemref { .. }
            | TileAaOp::AddF(_)
            | TileAaOp::SubF(_)
            | TileAaOp::MulF(_)
            | TileAaOp::GetGlobal { .. }
            | TileAaOp::JoinMemToken
            | TileAaOp::MarkForReuse => OpKind::TileAa(kind.clone()),
            TileAaOp::CreateQueue
            | TileAaOp::QueuePut
            | TileAaOp::QueueGet { .. }
            | TileAaOp::QueueYield
            | TileAaOp::Execute { .. } => {
                return Err(Diagnostic::error(
                    src.op_location(op),
                    format!("'{}' survived the queue-to-pipeline rewrite (is it outside an nv_tileaa.func?)", data.kind.name()),
                ));
            }
        };
        let loc = self.dst.locs.import(&src.locs, data.loc);
        let new_op = self.dst.create_op(new_kind, operands, &result_types, loc);
        self.dst.append_op(block, new_op);
        for (i, &r) in data.results.iter().enumerate() {
            let nr = self.dst.result(new_op, i);
            self.copy_name(r, nr);
            self.values.insert(r, nr);
        }
        Ok(())
    }
}

/// The widest per-thread vector (in elements) a tiled access through `memref` (of `m`,
/// defined by `make_memref`) can use for a tile held in `layout`: the run of the layout's
/// fastest dimension (`order[0]`), when the memref's stride along it is 1, capped at 16
/// bytes, and halved until every other stride (static, or stated by an `assume div_by` on
/// make_memref's dynamic stride operand), the tile origins along the vector dimension and
/// the base alignment keep each vector aligned.
pub fn vector_width(m: &Module, memref: ValueId, layout: &Layout, origin_step: Option<&[i64]>) -> u32 {
    let Type::MemRef { elem, strides, .. } = m.types.get(m.value_type(memref)) else { return 1 };
    let Layout::Blocked { size_per_thread, order, .. } = layout else { return 1 };
    let rank = strides.len();
    if rank == 0 || size_per_thread.len() != rank {
        return 1;
    }
    let fast = order.first().map_or(rank - 1, |&o| o as usize);
    if fast >= rank || strides[fast] != Dim::Static(1) {
        return 1;
    }
    let def = match m.values[memref].def {
        tileir_ir::ValueDef::OpResult { op, .. } => Some(op),
        _ => None,
    };
    // Divisibility of each stride: static, or stated by an `assume div_by` on the dynamic
    // stride operand of make_memref (operands: base, dynamic sizes, dynamic strides).
    let stride_div: Vec<i64> = {
        let num_dyn_sizes = match def.map(|o| &m.ops[o].kind) {
            Some(OpKind::TileAa(TileAaOp::MakeMemref { num_dyn_sizes, .. })) => *num_dyn_sizes as usize,
            _ => 0,
        };
        let mut next_dyn = 1 + num_dyn_sizes;
        strides
            .iter()
            .map(|s| match s {
                Dim::Static(v) => *v,
                Dim::Dynamic => {
                    let operand = def.and_then(|o| m.ops[o].operands.get(next_dyn).copied());
                    next_dyn += 1;
                    operand.map(|v| m.assumed_divisor(v)).unwrap_or(1)
                }
            })
            .collect()
    };
    let alignment = match def.map(|o| &m.ops[o].kind) {
        Some(OpKind::TileAa(TileAaOp::MakeMemref { base_alignment, .. })) => *base_alignment,
        _ => 0,
    };
    let bytes = elem.storage_bytes();
    let mut w = size_per_thread[fast].min((MAX_VECTOR_BYTES / bytes).max(1));
    while w > 1 {
        // Each vector start must stay aligned: the other strides must be multiples of w.
        let rows_aligned = stride_div.iter().enumerate().all(|(d, v)| d == fast || v % w as i64 == 0);
        // A strided view's tile origins must stay aligned too.
        let origins_aligned = origin_step.is_none_or(|st| st.get(fast).is_some_and(|&v| v % w as i64 == 0));
        // w elements span (w · bits) / 8 bytes: for 4-bit elements, a pair is one byte,
        // which every base (a byte address) is aligned to.
        let vector_bytes = (w * elem.bit_width()).div_ceil(8);
        if rows_aligned && origins_aligned && alignment.max(1) >= vector_bytes {
            break;
        }
        w /= 2;
    }
    w.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_add_layout_uses_16_byte_vectors() {
        let Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order } = blocked_layout(&[1024], 4, 4) else { panic!("blocked") };
        assert_eq!((size_per_thread, threads_per_warp, warps_per_cta, order), (vec![4], vec![32], vec![4], vec![0]));
    }

    #[test]
    fn small_tiles_replicate_threads() {
        let Layout::Blocked { size_per_thread, threads_per_warp, .. } = blocked_layout(&[16], 4, 1) else { panic!("blocked") };
        assert_eq!(size_per_thread, vec![4]);
        assert_eq!(threads_per_warp, vec![32]);
        assert_eq!(auto_num_warps(16, 4), 1);
        assert_eq!(auto_num_warps(1024, 4), 4);
    }

    #[test]
    fn two_d_layout_fills_fastest_dimension_first() {
        let Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order } = blocked_layout(&[64, 64], 2, 4) else { panic!("blocked") };
        assert_eq!(size_per_thread, vec![1, 8]);
        assert_eq!(threads_per_warp, vec![4, 8]);
        assert_eq!(warps_per_cta, vec![4, 1]);
        assert_eq!(order, vec![1, 0]);
    }
}
