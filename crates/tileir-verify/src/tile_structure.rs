//! Rules of nv_tileas's tile-structure, pointer-tile memory and dot ops (spec/000's "Tile
//! structure" and "Memory and movement" rows; spec/002's nv_tileaa tables):
//!
//! - `reinterpret`: tile → tile of numbers holding the same number of bits; equal element
//!   widths keep the shape, otherwise only the innermost dimension may change.
//! - `extract_slice {offsets, sizes, strides}`: one entry per source dimension; the result
//!   shape is `sizes`; strides and sizes ≥ 1, offsets ≥ 0; every selected index is inside
//!   the source; element types agree.
//! - `insert_slice {offsets, strides}`: source and destination of one rank (the attributes'
//!   length); the result type is the destination type; the slice lies inside the
//!   destination; element types agree.
//! - `expand_dims {axis}`: `axis` ≤ rank; the result shape is the source shape with a 1
//!   inserted at `axis`; element types agree.
//! - `generate`: no operands, one tile result; one region whose block takes one `i32` index
//!   per result dimension and ends with `cuda_tile.yield` of one scalar of the result's
//!   element type.
//! - `tiled_atomic_rmw`: `tiled_store`'s operands (memref, value, one integer coordinate per
//!   memref dimension, optional token), no padding; the value tile's element type is the
//!   memref's and fits `rmw_mode` (`addf` floats, the others integers); results are the old
//!   values (the value's type) and a `mem_token`; every ordering is allowed, and non-weak
//!   ordering requires an explicit scope (weak takes none).
//! - `load` / `store`: the base is a tile of pointers (lane shape S) or an `!nv_tileaa.ptr`
//!   with an integer offsets tile (shape S); offsets match the lane shape; the mask is a
//!   tile of `i1` of shape S; a padding is a tile of shape S (or rank 0) of the pointee;
//!   the loaded / stored tile has shape S and the pointee type; ordering as `tiled_load` /
//!   `tiled_store`; a `mem_token` result (after the tile for loads).
//! - `dot`: A, B, C (+ sfa, sfb when block-scaled); integer dots carry `signedness_a` and
//!   `signedness_b` and no `propagate_nan`, float dots no signedness; then spec/002's
//!   element-tuple and shape rules, shared with residual `mmaf`/`mmai`/`mmaf_scaled`
//!   ([`crate::shape::verify_dot_values`]). Whether the target supports block-scaled MMA
//!   is left to the LLVM writer (the verifier has no target).
//!
//! Every mismatch names the op (the diagnostic's prefix), the entity and both sides.

use crate::cuda_tile::{verify_access_ordering, verify_scope_rule};
use crate::shape::{verify_dot_values, DotFlavor, DotValues};
use crate::{counts, Ctx};
use tileir_ir::{AtomicRmwMode, CtOp, NumType, OpId, OpKind, PtrAccess, TileAsOp, TileElem, Type, ValueId};

fn ty<'a>(cx: &'a Ctx<'_>, v: ValueId) -> &'a Type {
    cx.m.types.get(cx.m.value_type(v))
}

/// Shape and element of a tile (a scalar is a rank-0 tile).
fn tile_of(cx: &Ctx<'_>, v: ValueId) -> Option<(Vec<i64>, TileElem)> {
    match ty(cx, v) {
        Type::Tile { shape, elem, .. } => Some((shape.clone(), *elem)),
        Type::Scalar(n) => Some((Vec::new(), TileElem::Num(*n))),
        _ => None,
    }
}

fn shape_text(s: &[i64]) -> String {
    if s.is_empty() {
        return "[] (rank 0)".into();
    }
    format!("[{}]", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
}

fn elem_text(e: TileElem) -> String {
    match e {
        TileElem::Num(n) => n.to_string(),
        TileElem::Ptr(p) => format!("ptr<{p}>"),
    }
}

/// Operand `i` as a tile, reporting a non-tile.
fn operand_tile(cx: &mut Ctx<'_>, op: OpId, i: usize, what: &str) -> Option<(Vec<i64>, TileElem)> {
    let v = cx.m.ops[op].operands[i];
    let t = tile_of(cx, v);
    if t.is_none() {
        cx.op_error(op, format!("{what} (operand #{i}) must be a tile, got {}", cx.vty(v)));
    }
    t
}

fn result_tile(cx: &mut Ctx<'_>, op: OpId, i: usize) -> Option<(Vec<i64>, TileElem)> {
    let v = cx.m.ops[op].results[i];
    let t = tile_of(cx, v);
    if t.is_none() {
        cx.op_error(op, format!("result #{i} must be a tile, got {}", cx.vty(v)));
    }
    t
}

fn same_elem(cx: &mut Ctx<'_>, op: OpId, a: (&str, TileElem), b: (&str, TileElem)) -> bool {
    if a.1 != b.1 {
        cx.op_error(op, format!("{} element type {} and {} element type {} must match", a.0, elem_text(a.1), b.0, elem_text(b.1)));
        return false;
    }
    true
}

fn attr_len(cx: &mut Ctx<'_>, op: OpId, name: &str, v: &[i64], rank: usize, of: &str) -> bool {
    if v.len() != rank {
        cx.op_error(op, format!("'{name}' has {} entries but the {of} rank is {rank}", v.len()));
        return false;
    }
    true
}

/// Strides ≥ 1, offsets ≥ 0, and the slice of `sizes` inside `outer` (`what` names it).
fn slice_in_bounds(cx: &mut Ctx<'_>, op: OpId, offsets: &[i64], sizes: &[i64], strides: &[i64], outer: &[i64], what: &str) {
    for i in 0..offsets.len() {
        let (o, n, s) = (offsets[i], sizes[i], strides[i]);
        if s < 1 {
            cx.op_error(op, format!("'strides' entry #{i} must be at least 1, got {s}"));
            continue;
        }
        if n < 1 {
            cx.op_error(op, format!("slice size of dimension #{i} must be at least 1, got {n}"));
            continue;
        }
        if o < 0 {
            cx.op_error(op, format!("'offsets' entry #{i} must be non-negative, got {o}"));
            continue;
        }
        let last = o + (n - 1) * s;
        if last >= outer[i] {
            cx.op_error(
                op,
                format!("slice dimension #{i} reaches index {last} (offset {o} + ({n} - 1) x stride {s}) but the {what} dimension has size {}", outer[i]),
            );
        }
    }
}

fn is_int(e: TileElem) -> bool {
    matches!(e, TileElem::Num(n) if n.is_int())
}


pub(crate) fn verify(cx: &mut Ctx<'_>, op: OpId, kind: &TileAsOp) {
    match kind {
        TileAsOp::Reinterpret => verify_reinterpret(cx, op),
        TileAsOp::ExtractSlice { offsets, sizes, strides } => {
            if !counts(cx, op, 1, 1) {
                return;
            }
            let (Some((src, se)), Some((res, re))) = (operand_tile(cx, op, 0, "source"), result_tile(cx, op, 0)) else { return };
            let rank = src.len();
            if !(attr_len(cx, op, "offsets", offsets, rank, "source")
                & attr_len(cx, op, "sizes", sizes, rank, "source")
                & attr_len(cx, op, "strides", strides, rank, "source"))
            {
                return;
            }
            same_elem(cx, op, ("source", se), ("result", re));
            if sizes[..] != res[..] {
                cx.op_error(op, format!("'sizes' {} and result shape {} must match", shape_text(sizes), shape_text(&res)));
                return;
            }
            slice_in_bounds(cx, op, offsets, sizes, strides, &src, "source");
        }
        TileAsOp::InsertSlice { offsets, strides } => {
            if !counts(cx, op, 2, 1) {
                return;
            }
            let (Some((src, se)), Some((dst, de))) = (operand_tile(cx, op, 0, "source"), operand_tile(cx, op, 1, "destination")) else { return };
            let d = cx.m.ops[op].clone();
            if cx.m.value_type(d.results[0]) != cx.m.value_type(d.operands[1]) {
                cx.op_error(op, format!("result type {} must equal the destination type {}", cx.vty(d.results[0]), cx.vty(d.operands[1])));
                return;
            }
            if src.len() != dst.len() {
                cx.op_error(op, format!("source rank {} and destination rank {} must match", src.len(), dst.len()));
                return;
            }
            if !(attr_len(cx, op, "offsets", offsets, dst.len(), "destination") & attr_len(cx, op, "strides", strides, dst.len(), "destination")) {
                return;
            }
            if same_elem(cx, op, ("source", se), ("destination", de)) {
                slice_in_bounds(cx, op, offsets, &src, strides, &dst, "destination");
            }
        }
        TileAsOp::ExpandDims { axis } => {
            if !counts(cx, op, 1, 1) {
                return;
            }
            let (Some((src, se)), Some((res, re))) = (operand_tile(cx, op, 0, "source"), result_tile(cx, op, 0)) else { return };
            let axis = *axis as usize;
            if axis > src.len() {
                cx.op_error(op, format!("axis {axis} is out of range for a rank-{} source (0 to {})", src.len(), src.len()));
                return;
            }
            same_elem(cx, op, ("source", se), ("result", re));
            let mut want = src.clone();
            want.insert(axis, 1);
            if res != want {
                cx.op_error(
                    op,
                    format!("result shape {} must be the source shape {} with a 1 inserted at axis {axis}: {}", shape_text(&res), shape_text(&src), shape_text(&want)),
                );
            }
        }
        TileAsOp::Generate => verify_generate(cx, op),
        TileAsOp::TiledAtomicRmw { access, mode } => verify_tiled_atomic(cx, op, access, *mode),
        TileAsOp::Load(a) => verify_ptr_access(cx, op, a, false),
        TileAsOp::Store(a) => verify_ptr_access(cx, op, a, true),
        TileAsOp::Dot(attrs) => {
            let n = if attrs.scaled { 5 } else { 3 };
            if !counts(cx, op, n, 1) {
                return;
            }
            let d = cx.m.ops[op].clone();
            for (i, name) in ["A", "B", "C", "sfa", "sfb"].iter().enumerate().take(n) {
                if operand_tile(cx, op, i, name).is_none() {
                    return;
                }
            }
            if result_tile(cx, op, 0).is_none() {
                return;
            }
            let ea = tile_of(cx, d.operands[0]).map(|t| t.1).expect("checked");
            let flavor = if attrs.scaled {
                DotFlavor::Scaled
            } else if is_int(ea) {
                DotFlavor::Int
            } else {
                DotFlavor::Float
            };
            if flavor == DotFlavor::Int {
                if attrs.signedness_a.is_none() || attrs.signedness_b.is_none() {
                    cx.op_error(op, format!("an integer dot (A is {}) requires 'signedness_a' and 'signedness_b'", elem_text(ea)));
                    return;
                }
                if attrs.propagate_nan {
                    cx.op_error(op, format!("'propagate_nan' applies to floating-point dots only, but A is {}", elem_text(ea)));
                    return;
                }
            } else if attrs.signedness_a.is_some() || attrs.signedness_b.is_some() {
                cx.op_error(op, format!("'signedness_a' / 'signedness_b' apply to integer dots only, but A is {}", elem_text(ea)));
                return;
            }
            let scales = attrs.scaled.then(|| (d.operands[3], d.operands[4]));
            verify_dot_values(cx, op, flavor, &DotValues { lhs: d.operands[0], rhs: d.operands[1], acc: d.operands[2], res: d.results[0], scales });
        }
        _ => {}
    }
}

fn verify_reinterpret(cx: &mut Ctx<'_>, op: OpId) {
    if !counts(cx, op, 1, 1) {
        return;
    }
    let (Some((src, se)), Some((res, re))) = (operand_tile(cx, op, 0, "source"), result_tile(cx, op, 0)) else { return };
    let (TileElem::Num(sn), TileElem::Num(rn)) = (se, re) else {
        cx.op_error(op, format!("reinterprets numbers: source element type {} and result element type {} must both be numeric", elem_text(se), elem_text(re)));
        return;
    };
    let d = cx.m.ops[op].clone();
    let (sv, rv) = (cx.vty(d.operands[0]), cx.vty(d.results[0]));
    let bits = |s: &[i64], n: NumType| s.iter().product::<i64>() * i64::from(n.bit_width());
    let (sb, rb) = (bits(&src, sn), bits(&res, rn));
    if sb != rb {
        cx.op_error(op, format!("source {sv} holds {sb} bits but result {rv} holds {rb}: a reinterpret keeps the bits"));
        return;
    }
    if sn.bit_width() == rn.bit_width() {
        if src != res {
            cx.op_error(op, format!("source shape {} and result shape {} must match (the element widths are equal)", shape_text(&src), shape_text(&res)));
        }
    } else if src.len() != res.len() || src.is_empty() || src[..src.len() - 1] != res[..res.len() - 1] {
        cx.op_error(op, format!("source shape {} and result shape {} may differ only in the innermost dimension", shape_text(&src), shape_text(&res)));
    }
}

fn verify_generate(cx: &mut Ctx<'_>, op: OpId) {
    if !counts(cx, op, 0, 1) {
        return;
    }
    let Some((shape, elem)) = result_tile(cx, op, 0) else { return };
    let m = cx.m;
    let Some(block) = m.entry_block(op, 0) else {
        cx.op_error(op, "region #0 must have one block");
        return;
    };
    let args = m.blocks[block].args.clone();
    if args.len() != shape.len() {
        cx.op_error(op, format!("region has {} index argument(s) but the result {} has rank {}", args.len(), cx.vty(m.ops[op].results[0]), shape.len()));
        return;
    }
    for (i, &a) in args.iter().enumerate() {
        if tile_of(cx, a) != Some((Vec::new(), TileElem::Num(NumType::I32))) {
            cx.op_error(op, format!("index argument #{i} must be i32, got {}", cx.vty(a)));
            return;
        }
    }
    let last = m.blocks[block].ops.last().copied();
    let Some(t) = last.filter(|&t| matches!(&m.ops[t].kind, OpKind::CudaTile(k) if k.op == CtOp::Yield)) else {
        let found = last.map(|t| format!("'{}'", m.ops[t].kind.name())).unwrap_or_else(|| "an empty block".into());
        cx.op_error(op, format!("region must end with cuda_tile.yield, found {found}"));
        return;
    };
    let ys = m.ops[t].operands.clone();
    if ys.len() != 1 {
        cx.op_error(op, format!("region must yield one element, yields {}", ys.len()));
        return;
    }
    match tile_of(cx, ys[0]) {
        Some((s, e)) if s.is_empty() && e == elem => {}
        _ => cx.op_error(
            op,
            format!("yielded element {} and result element type {} must match (one scalar per element)", cx.vty(ys[0]), elem_text(elem)),
        ),
    }
}

fn verify_tiled_atomic(cx: &mut Ctx<'_>, op: OpId, a: &tileir_ir::TiledAccess, mode: AtomicRmwMode) {
    let n = a.num_indices as usize;
    if !counts(cx, op, 2 + n + a.has_token as usize, 2) {
        return;
    }
    let d = cx.m.ops[op].clone();
    verify_scope_rule(cx, op, a.ordering, a.scope.is_some());
    if a.padding.is_some() {
        cx.op_error(op, "takes no 'padding_value': out-of-bounds elements are not updated");
    }
    let Type::MemRef { elem, shape, .. } = ty(cx, d.operands[0]).clone() else {
        cx.op_error(op, format!("operand #0 must be a memref, got {}", cx.vty(d.operands[0])));
        return;
    };
    if n != shape.len() {
        cx.op_error(op, format!("expects {} tile coordinate(s) (the memref rank), got {n}", shape.len()));
        return;
    }
    for &v in &d.operands[2..2 + n] {
        if !matches!(tile_of(cx, v), Some((s, e)) if s.is_empty() && is_int(e)) {
            cx.op_error(op, format!("tile coordinates must be scalar integers, got {}", cx.vty(v)));
            return;
        }
    }
    if a.has_token && !matches!(ty(cx, d.operands[2 + n]), Type::MemToken) {
        cx.op_error(op, format!("token operand must be !nv_tileaa.mem_token, got {}", cx.vty(d.operands[2 + n])));
    }
    let Some((vs, ve)) = operand_tile(cx, op, 1, "value") else { return };
    if ve != TileElem::Num(elem) {
        cx.op_error(op, format!("value element type {} and memref element type {elem} must match", elem_text(ve)));
        return;
    }
    if vs.len() != shape.len() {
        cx.op_error(op, format!("value rank {} and memref rank {} must match", vs.len(), shape.len()));
        return;
    }
    match mode {
        AtomicRmwMode::AddF if !elem.is_float() => {
            cx.op_error(op, format!("rmw_mode 'addf' needs a float element type, got {elem}"));
        }
        AtomicRmwMode::AddF | AtomicRmwMode::Xchg => {}
        other if !elem.is_int() => {
            cx.op_error(op, format!("rmw_mode '{}' needs an integer element type, got {elem}", other.keyword()));
        }
        _ => {}
    }
    if cx.m.value_type(d.results[0]) != cx.m.value_type(d.operands[1]) {
        cx.op_error(op, format!("result #0 (the old values) type {} must equal the value type {}", cx.vty(d.results[0]), cx.vty(d.operands[1])));
    }
    if !matches!(ty(cx, d.results[1]), Type::MemToken) {
        cx.op_error(op, format!("result #1 must be !nv_tileaa.mem_token, got {}", cx.vty(d.results[1])));
    }
}

fn verify_ptr_access(cx: &mut Ctx<'_>, op: OpId, a: &PtrAccess, store: bool) {
    if !counts(cx, op, a.num_operands(store), if store { 1 } else { 2 }) {
        return;
    }
    let d = cx.m.ops[op].clone();
    verify_access_ordering(cx, op, a.ordering, a.scope.is_some(), !store);
    // The base: a tile of pointers or one !nv_tileaa.ptr.
    let (base_shape, pointee) = match ty(cx, d.operands[0]).clone() {
        Type::AaPtr { pointee, .. } => {
            if !a.has_offsets {
                cx.op_error(op, format!("a scalar base {} needs an offsets tile", cx.vty(d.operands[0])));
                return;
            }
            (None, pointee)
        }
        Type::Tile { shape, elem: TileElem::Ptr(p), .. } => (Some(shape), p),
        _ => {
            cx.op_error(op, format!("base (operand #0) must be a tile of pointers or an !nv_tileaa.ptr, got {}", cx.vty(d.operands[0])));
            return;
        }
    };
    let lanes = match a.offsets_index(store) {
        Some(i) => {
            let Some((s, e)) = operand_tile(cx, op, i, "offsets") else { return };
            if !is_int(e) {
                cx.op_error(op, format!("offsets must be integers, got {}", cx.vty(d.operands[i])));
                return;
            }
            if let Some(b) = &base_shape {
                if *b != s {
                    cx.op_error(op, format!("base lane shape {} and offsets shape {} must match", shape_text(b), shape_text(&s)));
                    return;
                }
            }
            s
        }
        None => base_shape.expect("a scalar base has offsets"),
    };
    let (data, what) = if store { (d.operands[1], "stored value") } else { (d.results[0], "loaded result") };
    match tile_of(cx, data) {
        Some((s, e)) if s == lanes && e == TileElem::Num(pointee) => {}
        _ => {
            cx.op_error(op, format!("{what} {} must be a tile of shape {} and the pointee type {pointee}", cx.vty(data), shape_text(&lanes)));
            return;
        }
    }
    if let Some(i) = a.mask_index(store) {
        match tile_of(cx, d.operands[i]) {
            Some((s, TileElem::Num(NumType::I1))) if s == lanes => {}
            _ => cx.op_error(op, format!("mask {} must be a tile of i1 of the lane shape {}", cx.vty(d.operands[i]), shape_text(&lanes))),
        }
    }
    if let Some(i) = a.padding_index().filter(|_| !store) {
        match tile_of(cx, d.operands[i]) {
            Some((s, e)) if (s.is_empty() || s == lanes) && e == TileElem::Num(pointee) => {}
            _ => cx.op_error(
                op,
                format!("padding {} must be the pointee type {pointee} with the lane shape {} (or rank 0)", cx.vty(d.operands[i]), shape_text(&lanes)),
            ),
        }
    }
    if a.has_token {
        let t = *d.operands.last().expect("counted");
        if !matches!(ty(cx, t), Type::MemToken) {
            cx.op_error(op, format!("token operand must be !nv_tileaa.mem_token, got {}", cx.vty(t)));
        }
    }
    let tok = *d.results.last().expect("counted");
    if !matches!(ty(cx, tok), Type::MemToken) {
        cx.op_error(op, format!("the last result must be !nv_tileaa.mem_token, got {}", cx.vty(tok)));
    }
}
