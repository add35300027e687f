//! `tileas-assign-layouts`: register layouts chosen per value, anchored at global loads
//! and stores, instead of one layout per shape.
//!
//! `convert-tileaa-to-tileas` gives every tile the canonical blocked layout of its shape,
//! whose fastest dimension is the last. That is right for row-major memory and wrong for a
//! tile whose contiguous dimension in memory is another one (a transposed or column-major
//! view, cuTile's `load(..., order=...)`): each thread then walks memory with a large
//! stride, one element per access, and a warp's access touches up to 32 sectors.
//!
//! # Anchors
//!
//! A weak `tiled_load` or `tiled_store` (ordered accesses go one element at a time
//! anyway) of byte-sized elements whose memref has unit stride
//! along tile dimension `f ≠ last` is an anchor. Its layout is the blocked layout ordered
//! with `f` fastest (`blocked_layout_ordered`: 16 bytes per thread along `f`, then the other
//! dimensions from last to first), taken only when it widens the access
//! (`vector_width` grows).
//!
//! # Propagation
//!
//! * **Forward from a load.** Each user of the loaded tile either reads any blocked layout
//!   (the `mmaf`/`mmai` operands A and B, which the backend stages through shared memory
//!   from each register's coordinates; a `reduce` whose operands all have it; a
//!   `tiled_store` whose vector width does not shrink),
//!   or derives its result's layout from its operand's (`reshape` that only adds or drops
//!   unit dimensions, `permute`: the result takes the image of the anchor's layout; an
//!   element-wise op whose tile operands all have the new layout or are splat constants,
//!   which are made again in it, and whose results are numeric tiles: they take it too),
//!   and propagation continues from that result, so the op moves no data. Every other user
//!   gets the value back in its previous layout through one `nv_tileas.convert_layout`
//!   placed right after its definition.
//! * **Through loops.** When such an element-wise op updates a value a `for` loop carries
//!   (its operand is the body's block argument and the body's `continue` passes its result
//!   at that position), the loop carries the value in the new layout: the block argument
//!   and the loop's result take it, the initial value is converted before the loop (a splat
//!   constant is made again in it), and their other users follow or convert back. A sum of
//!   transposed tiles then converts once after the loop instead of once per iteration.
//! * **Backward from a store.** The stored tile is converted to the anchor's layout before
//!   the store (a shared-memory trip, which the PTX backend chooses by the same planner as
//!   any relayout), unless it already is in it.
//!
//! # Cleanup
//!
//! A `convert_layout` whose source is already in the result's layout is removed, and one
//! of a `convert_layout`'s result converts the original source instead (or disappears).
//!
//! Locations: inserted conversions carry the location of the value's defining op (loads)
//! or of the store they feed.
//!
//! # Fragments (`mma-fragments`, on in sm_90a's default pipeline)
//!
//! After the anchors, mma results and what is computed from them register by register take
//! the wgmma accumulator fragment layout (`#nv_tileas.mma`, its `#nv_tileas.slice` for row
//! reductions) where that saves shared-memory round trips: see `fragment_layouts`.

use std::collections::HashMap;

use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::{
    CtOp, Diagnostics, Dim, Layout, Module, NumType, OpId, OpKind, TileAaOp, TileAsOp, TileElem, Type, TypeId, ValueDef,
    ValueId,
};
use tileir_pass::{pass_options, Pass};

use crate::to_tileas::{blocked_layout_ordered, vector_width};

/// Registered name.
pub const NAME: &str = "tileas-assign-layouts";

pass_options! {
    /// Options of `tileas-assign-layouts`.
    pub struct AssignLayoutsOptions {
        /// Re-layout loads whose contiguous memory dimension is not the tile's last.
        anchor_loads("anchor-loads"): bool = true,
        /// Convert stored tiles to the layout their memory's contiguous dimension wants.
        anchor_stores("anchor-stores"): bool = true,
        /// Hold wgmma results, and what is computed from them register by register, in the
        /// accumulator fragment layout (sm_90a; see `fragment_layouts`).
        mma_fragments("mma-fragments"): bool = false,
        /// With mma-fragments: a 16-bit mma A operand a loop reads unchanged is converted to
        /// the fragment layout once, before the loop, and read from registers. Off by
        /// default: on an H200, attention at head dim 64 computed with Q read this way
        /// differs from the interpreter (by up to 0.05, in about 5% of the outputs) while
        /// the PTX emulator matches it; head dim 128 matches. Until that is understood Q
        /// is staged in shared memory (benches/gpu_fmha_check.py compares both).
        invariant_a_in_registers("invariant-a-in-registers"): bool = false,
    }
}

/// The pass.
pub struct AssignLayouts {
    /// Its options.
    pub options: AssignLayoutsOptions,
}

impl Pass for AssignLayouts {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let ops = module.walk();
        // Every load takes its anchor before any propagates, so that an op of two anchored
        // tiles (`a + b` of two transposed loads) sees both in their new layout.
        let mut moved = Vec::new();
        if self.options.anchor_loads {
            for &op in &ops {
                if matches!(module.ops[op].kind, OpKind::TileAs(TileAsOp::TiledLoad { .. })) {
                    moved.extend(anchor_load(module, op));
                }
            }
        }
        for (value, previous) in moved {
            propagate_forward(module, value, &previous);
        }
        if self.options.anchor_stores {
            for &op in &ops {
                if matches!(module.ops[op].kind, OpKind::TileAs(TileAsOp::TiledStore { .. })) {
                    anchor_store(module, op);
                }
            }
        }
        if self.options.mma_fragments {
            crate::fragment_layouts::assign_fragment_layouts(module, self.options.invariant_a_in_registers);
        }
        remove_redundant_conversions(module);
        Ok(())
    }
}

/// Shape, element and blocked layout of a numeric register tile.
pub(crate) fn tile_parts(m: &Module, ty: TypeId) -> Option<(Vec<i64>, NumType, Layout)> {
    match m.types.get(ty) {
        Type::Tile { shape, elem: TileElem::Num(n), layout: Some(l) } => Some((shape.clone(), *n, l.clone())),
        _ => None,
    }
}

/// A register-to-register `convert_layout` (no plan yet, no byte reinterpretation): the
/// only conversions this pass creates, folds or removes.
pub(crate) const REGISTER_CONVERSION: OpKind = OpKind::TileAs(TileAsOp::ConvertLayout { plan: None, reinterpret_byte: false });

/// Whether `v` is a numeric register tile held in `layout`.
fn has_layout(m: &Module, v: ValueId, layout: &Layout) -> bool {
    tile_parts(m, m.value_type(v)).is_some_and(|(_, _, l)| l == *layout)
}

pub(crate) fn with_layout(m: &mut Module, ty: TypeId, layout: Layout) -> TypeId {
    let Type::Tile { shape, elem, .. } = m.types.get(ty).clone() else { return ty };
    m.types.intern(Type::Tile { shape, elem, layout: Some(layout) })
}

fn num_warps(l: &Layout) -> u32 {
    l.num_threads() / 32
}

/// The anchor layout of a tiled access of a `shape` tile of `elem` through `memref`, when
/// the memref's unit-stride dimension is not the tile's last.
fn anchor_layout(m: &Module, memref: ValueId, shape: &[i64], elem: NumType, current: &Layout) -> Option<Layout> {
    // Sub-byte elements pack along the last dimension (two to a byte): keep their layout.
    if elem.bit_width() < 8 || shape.len() < 2 {
        return None;
    }
    let Type::MemRef { strides, .. } = m.types.get(m.value_type(memref)) else { return None };
    let rank = shape.len();
    if strides.len() != rank || strides[rank - 1] == Dim::Static(1) {
        return None;
    }
    let fast = strides.iter().rposition(|s| *s == Dim::Static(1))?;
    if shape[fast] <= 1 {
        return None;
    }
    let order: Vec<u32> = std::iter::once(fast as u32).chain((0..rank as u32).rev().filter(|&d| d as usize != fast)).collect();
    Some(blocked_layout_ordered(shape, elem.storage_bytes(), num_warps(current), &order))
}

/// A weak tiled access's vector width and origin steps (None for an ordered access, which
/// the backend performs one element at a time whatever the layout).
fn tiled_parts(m: &Module, op: OpId) -> Option<(u32, Option<Vec<i64>>)> {
    match &m.ops[op].kind {
        OpKind::TileAs(TileAsOp::TiledLoad { access, vector_width, .. } | TileAsOp::TiledStore { access, vector_width, .. })
            if access.ordering == tileir_ir::MemoryOrdering::Weak =>
        {
            Some((*vector_width, access.origin_step.clone()))
        }
        _ => None,
    }
}

fn set_vector_width(m: &mut Module, op: OpId, w: u32) {
    if let OpKind::TileAs(TileAsOp::TiledLoad { vector_width, .. } | TileAsOp::TiledStore { vector_width, .. }) = &mut m.ops[op].kind {
        *vector_width = w;
    }
}

/// Gives a load its anchor layout; returns the loaded value and its previous layout, for
/// [`propagate_forward`].
fn anchor_load(m: &mut Module, op: OpId) -> Option<(ValueId, Layout)> {
    let (memref, result) = (m.ops[op].operands[0], m.ops[op].results[0]);
    let (shape, elem, current) = tile_parts(m, m.value_type(result))?;
    let anchor = anchor_layout(m, memref, &shape, elem, &current)?;
    let (old_w, step) = tiled_parts(m, op)?;
    let new_w = vector_width(m, memref, &anchor, step.as_deref());
    if new_w <= old_w || anchor == current {
        return None;
    }
    let ty = with_layout(m, m.value_type(result), anchor);
    m.values[result].ty = ty;
    set_vector_width(m, op, new_w);
    Some((result, current))
}

/// `v` now has a new layout and had `previous`: each user either takes the new one (or
/// derives its result's from it) or reads `v` through a conversion back to `previous`.
fn propagate_forward(m: &mut Module, v: ValueId, previous: &Layout) {
    let Some((_, _, layout)) = tile_parts(m, m.value_type(v)) else { return };
    let mut back = Vec::new();
    for (user, index) in uses_of(m, v) {
        let kind = m.ops[user].kind.clone();
        match &kind {
            OpKind::CudaTile(c) if matches!(c.op, CtOp::MmaF | CtOp::MmaI) && index < 2 => {}
            // A reduction reads its operands in their own (common) layout and writes its
            // result in the result's.
            OpKind::CudaTile(c)
                if c.op == CtOp::Reduce
                    && m.ops[user].operands.iter().all(|&o| has_layout(m, o, &layout)) => {}
            OpKind::CudaTile(c) if matches!(c.op, CtOp::Reshape | CtOp::Permute) && index == 0 => {
                let r = m.ops[user].results[0];
                let Some((rshape, _, rprev)) = tile_parts(m, m.value_type(r)) else { continue };
                let sshape = match m.types.get(m.value_type(v)) {
                    Type::Tile { shape, .. } => shape.clone(),
                    _ => continue,
                };
                let derived = match c.op {
                    CtOp::Reshape => reshape_layout(&layout, &sshape, &rshape),
                    _ => match c.get("permutation") {
                        Some(tileir_ir::Attr::IntArray(p)) => permute_layout(&layout, p),
                        _ => None,
                    },
                };
                // Without a derived layout the op relayouts by itself (as it did before).
                if let Some(d) = derived.filter(|d| *d != rprev) {
                    let ty = with_layout(m, m.value_type(r), d);
                    m.values[r].ty = ty;
                    propagate_forward(m, r, &rprev);
                }
            }
            _ if is_elementwise(m, user) => {
                // Element-wise ops work register by register: the result follows when every
                // tile operand is in the new layout, or a splat constant (made again in it),
                // and every result is a numeric tile (whose type can follow).
                let results_follow = m.ops[user].results.iter().all(|&r| tile_parts(m, m.value_type(r)).is_some());
                let operands = m.ops[user].operands.clone();
                let mut carried = Vec::new();
                let all_new = results_follow
                    && operands.iter().all(|&o| match m.types.get(m.value_type(o)) {
                        Type::Tile { shape, layout: l, .. } => {
                            shape.is_empty() || l.as_ref() == Some(&layout) || splat_constant(m, o).is_some() || {
                                // A loop-carried value this op updates follows too (below).
                                let c = carried_update(m, o, user);
                                carried.extend(c);
                                c.is_some()
                            }
                        }
                        _ => true,
                    });
                if !all_new {
                    back.push((user, index));
                    continue;
                }
                for &(for_op, position) in &carried {
                    carry_in_layout(m, for_op, position, &layout);
                }
                for (i, &o) in operands.iter().enumerate() {
                    let relayout = matches!(m.types.get(m.value_type(o)), Type::Tile { shape, layout: l, .. }
                        if !shape.is_empty() && l.as_ref() != Some(&layout));
                    if relayout {
                        let constant = splat_constant(m, o).expect("checked above");
                        let ty = with_layout(m, m.value_type(o), layout.clone());
                        let loc = m.ops[constant].loc;
                        let copy = m.create_op(m.ops[constant].kind.clone(), vec![], &[ty], loc);
                        m.insert_op_before(user, copy);
                        m.ops[user].operands[i] = m.result(copy, 0);
                        if uses_of(m, o).is_empty() {
                            m.detach_op(constant);
                        }
                    }
                }
                for r in m.ops[user].results.clone() {
                    let Some((_, _, rprev)) = tile_parts(m, m.value_type(r)) else { continue };
                    if rprev != layout {
                        let ty = with_layout(m, m.value_type(r), layout.clone());
                        m.values[r].ty = ty;
                        propagate_forward(m, r, &rprev);
                    }
                }
            }
            // The update of a value a loop carries in this layout (see `carry_in_layout`).
            OpKind::CudaTile(c)
                if c.op == CtOp::Continue
                    && carried_argument(m, user, index).is_some_and(|a| has_layout(m, a, &layout)) => {}
            OpKind::TileAs(TileAsOp::TiledStore { .. }) if index == 1 => {
                let Some((old_w, step)) = tiled_parts(m, user) else {
                    back.push((user, index));
                    continue;
                };
                let new_w = vector_width(m, m.ops[user].operands[0], &layout, step.as_deref());
                if new_w >= old_w {
                    set_vector_width(m, user, new_w);
                } else {
                    back.push((user, index));
                }
            }
            _ => back.push((user, index)),
        }
    }
    if back.is_empty() {
        return;
    }
    let Some(def) = m.defining_op(v) else { return };
    let ty = with_layout(m, m.value_type(v), previous.clone());
    let loc = m.ops[def].loc;
    let cvt = m.create_op(REGISTER_CONVERSION, vec![v], &[ty], loc);
    m.insert_op_after(def, cvt);
    let converted = m.result(cvt, 0);
    for (user, index) in back {
        m.ops[user].operands[index] = converted;
    }
}

/// When `v` is a value a `for` loop carries (its body's block argument) and `update`, in the
/// body's own block, computes the next iteration's value from it (the body's `continue`
/// passes `update`'s result at `v`'s position): the loop and the position.
fn carried_update(m: &Module, v: ValueId, update: OpId) -> Option<(OpId, usize)> {
    let ValueDef::BlockArg { block, index } = m.values[v].def else { return None };
    let for_op = m.parent_op_of_block(block)?;
    let looped = crate::pipeline_util::ForLoop::of(m, for_op)?;
    let position = (index as usize).checked_sub(1)?;
    let term = looped.terminator(m)?;
    (looped.body == block
        && m.ops[update].parent == Some(block)
        && m.ops[update].results.len() == 1
        && m.ops[term].operands.get(position) == Some(&m.ops[update].results[0]))
    .then_some((for_op, position))
}

/// The block argument of the loop whose `continue` is `term`, for its operand `index`.
fn carried_argument(m: &Module, term: OpId, index: usize) -> Option<ValueId> {
    let block = m.ops[term].parent?;
    let for_op = m.parent_op_of_block(block)?;
    let looped = crate::pipeline_util::ForLoop::of(m, for_op)?;
    (looped.body == block).then(|| looped.carried.get(index).copied()).flatten()
}

/// Makes loop `for_op` carry its value at `position` in `layout`: the block argument and
/// the loop's result take it, the initial value is converted before the loop (a splat
/// constant is made again in it), and the argument's and the result's other users follow
/// or convert back (`propagate_forward`).
fn carry_in_layout(m: &mut Module, for_op: OpId, position: usize, layout: &Layout) {
    let Some(looped) = crate::pipeline_util::ForLoop::of(m, for_op) else { return };
    let (arg, result, init) = (looped.carried[position], m.ops[for_op].results[position], looped.inits[position]);
    let Some((_, _, previous)) = tile_parts(m, m.value_type(arg)) else { return };
    if previous == *layout {
        return;
    }
    let ty = with_layout(m, m.value_type(arg), layout.clone());
    m.values[arg].ty = ty;
    m.values[result].ty = ty;
    let loc = m.ops[for_op].loc;
    let new_init = match splat_constant(m, init) {
        Some(constant) => m.create_op(m.ops[constant].kind.clone(), vec![], &[ty], m.ops[constant].loc),
        None => m.create_op(REGISTER_CONVERSION, vec![init], &[ty], loc),
    };
    m.insert_op_before(for_op, new_init);
    m.ops[for_op].operands[3 + position] = m.result(new_init, 0);
    if let Some(constant) = splat_constant(m, init).filter(|_| uses_of(m, init).is_empty()) {
        m.detach_op(constant);
    }
    propagate_forward(m, arg, &previous);
    propagate_forward(m, result, &previous);
}

/// The `constant` op defining `v` when it is a splat (one value everywhere), which any
/// layout holds without moving data.
pub(crate) fn splat_constant(m: &Module, v: ValueId) -> Option<OpId> {
    let op = m.defining_op(v)?;
    let OpKind::CudaTile(c) = &m.ops[op].kind else { return None };
    if c.op != CtOp::Constant || !m.ops[op].operands.is_empty() {
        return None;
    }
    matches!(c.get("value"), Some(tileir_ir::Attr::Dense(d)) if d.is_splat()).then_some(op)
}

/// Whether `op` computes each result element from the operands' elements at the same
/// coordinates (and has no regions): cuda_tile's element-wise ops and nv_tileaa's float
/// arithmetic.
pub(crate) fn is_elementwise(m: &Module, op: OpId) -> bool {
    if !m.ops[op].regions.is_empty() {
        return false;
    }
    match &m.ops[op].kind {
        OpKind::CudaTile(c) => c.schema().has(traits::ELEMENTWISE),
        OpKind::TileAa(TileAaOp::AddF(_) | TileAaOp::SubF(_) | TileAaOp::MulF(_)) => true,
        _ => false,
    }
}

fn anchor_store(m: &mut Module, op: OpId) {
    let (memref, value) = (m.ops[op].operands[0], m.ops[op].operands[1]);
    let Some((shape, elem, current)) = tile_parts(m, m.value_type(value)) else { return };
    let Some(anchor) = anchor_layout(m, memref, &shape, elem, &current) else { return };
    let Some((old_w, step)) = tiled_parts(m, op) else { return };
    let new_w = vector_width(m, memref, &anchor, step.as_deref());
    if new_w <= old_w || anchor == current {
        return;
    }
    let ty = with_layout(m, m.value_type(value), anchor);
    let loc = m.ops[op].loc;
    let cvt = m.create_op(REGISTER_CONVERSION, vec![value], &[ty], loc);
    m.insert_op_before(op, cvt);
    m.ops[op].operands[1] = m.result(cvt, 0);
    set_vector_width(m, op, new_w);
}

/// Every (op, operand index) that uses `v`.
fn uses_of(m: &Module, v: ValueId) -> Vec<(OpId, usize)> {
    let mut out = Vec::new();
    for op in m.walk() {
        for (i, &o) in m.ops[op].operands.iter().enumerate() {
            if o == v {
                out.push((op, i));
            }
        }
    }
    out
}

/// Removes conversions to the layout their source already has, and folds conversions of
/// conversions.
fn remove_redundant_conversions(m: &mut Module) {
    for op in m.walk() {
        if m.ops[op].kind != REGISTER_CONVERSION || !m.is_attached(op) {
            continue;
        }
        let mut src = m.ops[op].operands[0];
        // convert(convert(x)) converts x.
        if let ValueDef::OpResult { op: inner, .. } = m.values[src].def {
            if m.ops[inner].kind == REGISTER_CONVERSION {
                src = m.ops[inner].operands[0];
                m.ops[op].operands[0] = src;
            }
        }
        let result = m.ops[op].results[0];
        if m.value_type(src) == m.value_type(result) {
            m.replace_all_uses(result, src);
            m.detach_op(op);
        }
    }
    // Conversions left without users (an inner conversion folded away) go too.
    let uses = m.use_counts();
    for op in m.walk() {
        if m.ops[op].kind == REGISTER_CONVERSION
            && m.is_attached(op)
            && !uses.contains_key(&m.ops[op].results[0])
        {
            m.detach_op(op);
        }
    }
}

/// The layout of `reshape`'s result when it only adds or drops unit dimensions of a
/// tile held in `l`: the other dimensions keep their parameters, unit dimensions get one
/// element, thread and warp, and rank last in the order. None for any other reshape, or
/// when a dropped unit dimension holds threads or warps (replicas).
pub fn reshape_layout(l: &Layout, src: &[i64], dst: &[i64]) -> Option<Layout> {
    let Layout::Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order } = l else { return None };
    let s_real: Vec<usize> = (0..src.len()).filter(|&d| src[d] != 1).collect();
    let d_real: Vec<usize> = (0..dst.len()).filter(|&d| dst[d] != 1).collect();
    if s_real.len() != d_real.len() || s_real.iter().zip(&d_real).any(|(&s, &d)| src[s] != dst[d]) {
        return None;
    }
    if (0..src.len()).any(|d| src[d] == 1 && (tpw[d] != 1 || wpc[d] != 1 || spt[d] != 1)) {
        return None;
    }
    let rank = dst.len();
    let (mut nspt, mut ntpw, mut nwpc) = (vec![1u32; rank], vec![1u32; rank], vec![1u32; rank]);
    let mut to_dst = HashMap::new();
    for (&s, &d) in s_real.iter().zip(&d_real) {
        nspt[d] = spt[s];
        ntpw[d] = tpw[s];
        nwpc[d] = wpc[s];
        to_dst.insert(s as u32, d as u32);
    }
    let mut norder: Vec<u32> = order.iter().filter_map(|s| to_dst.get(s).copied()).collect();
    norder.extend((0..rank as u32).rev().filter(|d| dst[*d as usize] == 1));
    Some(Layout::Blocked { size_per_thread: nspt, threads_per_warp: ntpw, warps_per_cta: nwpc, order: norder })
}

/// The layout of `permute`'s result (result dimension i is source dimension `perm[i]`)
/// for a source held in `l`: the same threads hold the same elements.
pub fn permute_layout(l: &Layout, perm: &[i64]) -> Option<Layout> {
    let Layout::Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order } = l else { return None };
    let rank = spt.len();
    if perm.len() != rank {
        return None;
    }
    let mut inverse = vec![u32::MAX; rank];
    for (i, &p) in perm.iter().enumerate() {
        let slot = inverse.get_mut(usize::try_from(p).ok()?)?;
        if *slot != u32::MAX {
            return None;
        }
        *slot = i as u32;
    }
    let pick = |v: &Vec<u32>| perm.iter().map(|&p| v[p as usize]).collect::<Vec<u32>>();
    Some(Layout::Blocked {
        size_per_thread: pick(spt),
        threads_per_warp: pick(tpw),
        warps_per_cta: pick(wpc),
        order: order.iter().map(|&s| inverse[s as usize]).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(spt: &[u32], tpw: &[u32], wpc: &[u32], order: &[u32]) -> Layout {
        Layout::Blocked { size_per_thread: spt.to_vec(), threads_per_warp: tpw.to_vec(), warps_per_cta: wpc.to_vec(), order: order.to_vec() }
    }

    #[test]
    fn dropping_a_unit_dimension_keeps_every_thread_s_elements() {
        let l = blocked(&[1, 8, 1], &[1, 8, 4], &[1, 1, 4], &[1, 2, 0]);
        let r = reshape_layout(&l, &[1, 64, 64], &[64, 64]).unwrap();
        assert_eq!(r, blocked(&[8, 1], &[8, 4], &[1, 4], &[0, 1]));
        // And back.
        assert_eq!(reshape_layout(&r, &[64, 64], &[1, 64, 64]).unwrap(), blocked(&[1, 8, 1], &[1, 8, 4], &[1, 1, 4], &[1, 2, 0]));
    }

    #[test]
    fn reshapes_that_move_elements_or_drop_replicas_derive_nothing() {
        let l = blocked(&[1, 4], &[2, 16], &[4, 1], &[1, 0]);
        assert_eq!(reshape_layout(&l, &[8, 64], &[512]), None);
        let replicated = blocked(&[1, 4], &[2, 16], &[4, 1], &[1, 0]);
        assert_eq!(reshape_layout(&replicated, &[1, 64], &[64]), None);
    }

    #[test]
    fn permuting_moves_parameters_with_their_dimensions() {
        let l = blocked(&[8, 1], &[8, 4], &[1, 4], &[0, 1]);
        assert_eq!(permute_layout(&l, &[1, 0]).unwrap(), blocked(&[1, 8], &[4, 8], &[4, 1], &[1, 0]));
        assert_eq!(permute_layout(&l, &[1, 1]), None);
    }
}
