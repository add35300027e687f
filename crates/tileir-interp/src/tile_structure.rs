//! nv_tileas tile-structure, pointer-tile memory and dot ops: `reinterpret`,
//! `extract_slice`, `insert_slice`, `expand_dims`, `generate`, `tiled_atomic_rmw`, `load`,
//! `store` and `dot` (routed here by `exec_tileas`).
//!
//! - `reinterpret` reads the operand's bits as the result type (as `view` with
//!   `reinterpret_byte` does: row-major, 4-bit elements two to a byte, low half first).
//! - `extract_slice` / `insert_slice` are MLIR's static-slice semantics: result element `i`
//!   is `src[offsets + i·strides]`; `insert_slice` returns `dest` with those positions
//!   overwritten by the source.
//! - `expand_dims` only reshapes (the row-major element order is unchanged).
//! - `generate` runs its region once per element in row-major order with the element's
//!   indices as `i32` scalars and collects the yielded scalars.
//! - `tiled_atomic_rmw` addresses its tile as `tiled_store` does; elements are updated one
//!   after another in row-major order (each update atomic), out-of-bounds elements are
//!   skipped and read back zero; the token result is a no-op.
//! - `load` / `store`: lane `i`'s address is the base pointer (the tile's lane `i`, or the
//!   scalar base) plus offset `i` elements (signed); masked-off load lanes read the padding
//!   (zero without one), masked-off store lanes write nothing; lanes in row-major order.
//! - `dot` is cuda_tile's `mmaf` / `mmai` / `mmaf_scaled` (by the operands: scales present
//!   → block-scaled, integer A → integer); `propagate_nan` changes nothing, as the
//!   interpreter's float arithmetic already propagates NaN.

use super::{rmw, BlockExec, Flow, R};
use crate::launch::ErrorKind;
use crate::mma;
use crate::value::{Data, Tile, Value};
use tileir_ir::{AtomicRmwMode, DotAttrs, NumType, OpId, PtrAccess, TileAsOp, TileElem, TiledAccess};

/// Per-lane (base address, element offset) pairs, the pointee and the lane shape.
type Lanes = (Vec<(u64, u64)>, NumType, Vec<usize>);

fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Row-major flat indices into a tile of `outer` shape of the slice `offsets + i·strides`,
/// `i` over `sizes`; `None` if one falls outside.
fn slice_indices(outer: &[usize], offsets: &[i64], sizes: &[usize], strides: &[i64]) -> Option<Vec<usize>> {
    if offsets.len() != outer.len() || sizes.len() != outer.len() || strides.len() != outer.len() {
        return None;
    }
    let os = strides_of(outer);
    let n: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(n);
    for flat in 0..n {
        let mut rem = flat;
        let mut at = 0usize;
        for d in (0..sizes.len()).rev() {
            let i = (rem % sizes[d]) as i64;
            rem /= sizes[d];
            let c = offsets[d] + i * strides[d];
            if c < 0 || c as usize >= outer[d] {
                return None;
            }
            at += c as usize * os[d];
        }
        out.push(at);
    }
    Some(out)
}

impl BlockExec<'_, '_, '_> {
    fn invalid(&self, op: OpId, msg: impl Into<String>) -> crate::InterpError {
        self.error(op, ErrorKind::InvalidIr, msg)
    }

    /// Executes a tile-structure, pointer-tile memory or dot op.
    pub(super) fn exec_tile_structure(&mut self, op: OpId, k: &TileAsOp) -> R<Option<Flow>> {
        let value = match k {
            TileAsOp::Reinterpret => {
                let t = self.operand_tile(op, 0)?;
                let (shape, elem) = self.result_tile_type(op, 0)?;
                super::layout_ops::reinterpret(t, shape, elem)
                    .ok_or_else(|| self.invalid(op, "the result does not hold the operand's bits"))?
            }
            TileAsOp::ExtractSlice { offsets, sizes, strides } => {
                let t = self.operand_tile(op, 0)?;
                let sizes: Vec<usize> = sizes.iter().map(|&s| s.max(0) as usize).collect();
                let idx = slice_indices(&t.shape, offsets, &sizes, strides)
                    .ok_or_else(|| self.invalid(op, "the slice does not lie within the source"))?;
                Tile { shape: sizes, elem: t.elem, data: t.data.gather(&idx) }
            }
            TileAsOp::InsertSlice { offsets, strides } => {
                let src = self.operand_tile(op, 0)?.clone();
                let mut dst = self.operand_tile(op, 1)?.clone();
                let idx = slice_indices(&dst.shape, offsets, &src.shape, strides)
                    .ok_or_else(|| self.invalid(op, "the slice does not lie within the destination"))?;
                if src.elem != dst.elem {
                    return Err(self.invalid(op, "source and destination element types differ"));
                }
                for (i, &at) in idx.iter().enumerate() {
                    dst.data.set_from(at, &src.data, i);
                }
                dst
            }
            TileAsOp::ExpandDims { .. } => {
                let t = self.operand_tile(op, 0)?.clone();
                let (shape, _) = self.result_tile_type(op, 0)?;
                if shape.iter().product::<usize>() != t.len() {
                    return Err(self.invalid(op, "the result does not hold the operand's elements"));
                }
                Tile { shape, ..t }
            }
            TileAsOp::Generate => self.generate(op)?,
            TileAsOp::TiledAtomicRmw { access, mode } => {
                let old = self.tiled_atomic(op, access, *mode)?;
                self.set_result(op, 0, Value::Tile(old))?;
                self.set_result(op, 1, Value::Token)?;
                return Ok(None);
            }
            TileAsOp::Load(a) => {
                let t = self.ptr_load(op, a)?;
                self.set_result(op, 0, Value::Tile(t))?;
                self.set_result(op, 1, Value::Token)?;
                return Ok(None);
            }
            TileAsOp::Store(a) => {
                self.ptr_store(op, a)?;
                self.set_result(op, 0, Value::Token)?;
                return Ok(None);
            }
            TileAsOp::Dot(d) => self.dot(op, d)?,
            _ => return Err(self.invalid(op, "not a tile-structure op")),
        };
        self.set_result(op, 0, Value::Tile(value))?;
        Ok(None)
    }

    fn generate(&mut self, op: OpId) -> R<Tile> {
        let (shape, elem) = self.result_tile_type(op, 0)?;
        let body = self.m().entry_block(op, 0).ok_or_else(|| self.invalid(op, "generate needs a region"))?;
        let n: usize = shape.iter().product();
        let mut data = Data::with_capacity(elem, n);
        for flat in 0..n {
            let idx = super::unravel(flat, &shape);
            let args = idx.iter().map(|&i| Value::Tile(Tile::scalar_int(NumType::I32, i as i64))).collect();
            let y = self.run_body_yield(op, body, args, 1)?.pop().expect("one value");
            if y.elem != elem || y.len() != 1 {
                return Err(self.invalid(op, "the region must yield one element of the result type"));
            }
            data.extend_from(&y.data, 0..1);
        }
        Ok(Tile { shape, elem, data })
    }

    fn tiled_atomic(&mut self, op: OpId, a: &TiledAccess, mode: AtomicRmwMode) -> R<Tile> {
        let acc = self.tiled_view(op, a, true)?;
        let value = self.operand_tile(op, 1)?.clone();
        let t = acc.elem;
        if value.elem != TileElem::Num(t) {
            return Err(self.invalid(op, "value and memref element types differ"));
        }
        // Element offsets in row-major order (None: out of bounds).
        let mut offs = Vec::with_capacity(value.len());
        let mut rows = acc.row_offsets();
        while let Some(row) = rows.next_row() {
            for run in &acc.runs {
                for k in 0..run.len {
                    offs.push(match (row, run.first) {
                        (Some(r), Some(f)) => Some(r.wrapping_add(f).wrapping_add(k as u64)),
                        _ => None,
                    });
                }
            }
        }
        if offs.len() != value.len() {
            return Err(self.invalid(op, "the value tile does not match the addressed tile"));
        }
        let mut old = Vec::with_capacity(offs.len());
        for (i, o) in offs.into_iter().enumerate() {
            let Some(o) = o else {
                old.push(0);
                continue;
            };
            let prev = self.read_elem(op, t, acc.base, o, true)?;
            let new = self.lift(op, rmw(mode, t, prev, value.bits_at(i)))?;
            self.write_elem(op, t, acc.base, o, new, true)?;
            old.push(prev);
        }
        Ok(Tile::from_bits(value.shape.clone(), TileElem::Num(t), old))
    }

    /// Per-lane (base address, element offset) of a `load` / `store`, the pointee and the
    /// lane shape.
    fn lanes(&self, op: OpId, a: &PtrAccess, store: bool) -> R<Lanes> {
        let base = self.operand_tile(op, 0)?;
        let Data::Ptr(ptrs) = &base.data else {
            return Err(self.invalid(op, "the base is not a pointer"));
        };
        let t = base.num();
        match a.offsets_index(store) {
            None => Ok((ptrs.iter().map(|&p| (p, 0)).collect(), t, base.shape.clone())),
            Some(i) => {
                let off = self.operand_int(op, i)?;
                let shape = off.shape.clone();
                if ptrs.len() != 1 && ptrs.len() != off.len() {
                    return Err(self.invalid(op, "base and offsets lane counts differ"));
                }
                let lanes = off
                    .ints()
                    .iter()
                    .enumerate()
                    .map(|(k, &o)| (ptrs[if ptrs.len() == 1 { 0 } else { k }], o as u64))
                    .collect();
                Ok((lanes, t, shape))
            }
        }
    }

    fn lane_on(mask: &Option<Tile>, i: usize) -> bool {
        mask.as_ref().is_none_or(|m| m.ints()[if m.len() == 1 { 0 } else { i }] != 0)
    }

    fn ptr_load(&mut self, op: OpId, a: &PtrAccess) -> R<Tile> {
        let (lanes, t, shape) = self.lanes(op, a, false)?;
        let mask = a.mask_index(false).map(|i| self.operand_tile(op, i).cloned()).transpose()?;
        let pad = a.padding_index().map(|i| self.operand_tile(op, i).cloned()).transpose()?;
        let mut bits = Vec::with_capacity(lanes.len());
        for (i, &(p, o)) in lanes.iter().enumerate() {
            if Self::lane_on(&mask, i) {
                bits.push(self.read_elem(op, t, p, o, false)?);
            } else {
                bits.push(pad.as_ref().map(|pt| pt.bits_at(if pt.len() == 1 { 0 } else { i })).unwrap_or(0));
            }
        }
        Ok(Tile::from_bits(shape, TileElem::Num(t), bits))
    }

    fn ptr_store(&mut self, op: OpId, a: &PtrAccess) -> R<()> {
        let (lanes, t, _) = self.lanes(op, a, true)?;
        let value = self.operand_tile(op, 1)?.clone();
        let mask = a.mask_index(true).map(|i| self.operand_tile(op, i).cloned()).transpose()?;
        if value.len() != lanes.len() {
            return Err(self.invalid(op, "the value does not have one element per lane"));
        }
        for (i, &(p, o)) in lanes.iter().enumerate() {
            if Self::lane_on(&mask, i) {
                self.write_elem(op, t, p, o, value.bits_at(i), false)?;
            }
        }
        Ok(())
    }

    fn dot(&mut self, op: OpId, d: &DotAttrs) -> R<Tile> {
        let (a, b, c) = (self.operand_tile(op, 0)?, self.operand_tile(op, 1)?, self.operand_tile(op, 2)?);
        let r = if d.scaled {
            mma::mmaf_scaled(a, b, c, self.operand_tile(op, 3)?, self.operand_tile(op, 4)?)
        } else if a.num().is_int() {
            let sa = d.signedness_a.ok_or_else(|| self.invalid(op, "integer dot without 'signedness_a'"))?;
            let sb = d.signedness_b.ok_or_else(|| self.invalid(op, "integer dot without 'signedness_b'"))?;
            mma::mmai(a, b, c, sa, sb)
        } else {
            mma::mmaf(a, b, c)
        };
        self.lift(op, r)
    }
}

#[cfg(test)]
mod tests {
    use super::slice_indices;

    #[test]
    fn strided_slice_indices() {
        // A 4x6 tile, rows 1 and 3, columns 0, 2, 4.
        assert_eq!(slice_indices(&[4, 6], &[1, 0], &[2, 3], &[2, 2]), Some(vec![6, 8, 10, 18, 20, 22]));
        assert_eq!(slice_indices(&[4, 6], &[3, 0], &[2, 1], &[1, 1]), None);
    }
}
