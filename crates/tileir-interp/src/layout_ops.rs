//! nv_tileas shared-memory buffers and layout conversions: `alloc_tensor`,
//! `convert_layout`, `view`, `copy` and `shuffle` (routed here by `exec_tileas`).
//!
//! Layouts say which thread holds which element; they never change values, and a tile is
//! interpreted whole, so:
//! - `convert_layout` and `shuffle` of a tile return the same elements (the result's layout
//!   is only a type);
//! - `view` reinterprets: the same bits read as the result type (same element count, or with
//!   `reinterpret_byte` the same bytes: 4-bit elements pack two to a byte, the first in the
//!   low half, row-major);
//! - `alloc_tensor` makes a buffer ([`SmemBuffer`]: a shared cell, empty at first); `copy`
//!   stores a tile (or a buffer's contents) into it; `convert_layout` from a buffer reads it
//!   back as the result type; a `view` of a buffer is the same buffer. Reading a buffer
//!   nothing was copied into is an error.

use super::{BlockExec, Flow, R};
use crate::launch::ErrorKind;
use crate::value::{SmemBuffer, Tile, Value};
use tileir_ir::{OpId, TileAsOp, TileElem, Type};

/// `t`'s bits (row-major, each element its bit width, little-endian packed) read as a tile
/// of `shape` × `elem`; `None` if the bit counts differ.
pub(super) fn reinterpret(t: &Tile, shape: Vec<usize>, elem: TileElem) -> Option<Tile> {
    let n: usize = shape.iter().product();
    if t.elem == elem {
        return (t.len() == n).then(|| Tile { shape, elem, data: t.data.clone() });
    }
    let width = |e: TileElem| match e {
        TileElem::Num(n) => n.bit_width() as usize,
        TileElem::Ptr(_) => 64,
    };
    let (wi, wo) = (width(t.elem), width(elem));
    if wi * t.len() != wo * n {
        return None;
    }
    let mut bits = vec![false; wi * t.len()];
    for (i, b) in t.to_bits().into_iter().enumerate() {
        for k in 0..wi {
            bits[i * wi + k] = (b >> k) & 1 == 1;
        }
    }
    let out = (0..n).map(|i| (0..wo).fold(0u64, |a, k| a | (u64::from(bits[i * wo + k]) << k)));
    Some(Tile::from_bits(shape, elem, out))
}

impl BlockExec<'_, '_, '_> {
    fn layout_operand(&self, op: OpId, i: usize) -> R<Value> {
        let v = *self.m().ops[op]
            .operands
            .get(i)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, format!("missing operand #{i}")))?;
        Ok(self.get(op, v)?.clone())
    }

    /// The tile a tile operand holds, or a buffer operand's contents.
    fn tile_or_contents(&self, op: OpId, i: usize) -> R<Tile> {
        match self.layout_operand(op, i)? {
            Value::Tile(t) => Ok(t),
            Value::Smem(b) => {
                let stored = b.0.lock().map_err(|_| self.error(op, ErrorKind::InvalidIr, "poisoned buffer"))?.clone();
                let t = stored.ok_or_else(|| {
                    self.error(op, ErrorKind::InvalidIr, "reads a shared-memory buffer nothing was copied into")
                })?;
                // Read as the operand's type (a view of the buffer may differ from the copy).
                let v = self.m().ops[op].operands[i];
                match self.m().types.get(self.m().value_type(v)) {
                    Type::SmemTile { shape, elem, .. } => {
                        let shape: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
                        reinterpret(&t, shape, TileElem::Num(*elem))
                            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, "the buffer holds a tile of another size"))
                    }
                    _ => Ok(t),
                }
            }
            other => Err(self.error(op, ErrorKind::InvalidIr, format!("operand #{i} must be a tile or a buffer, got {}", super::kind_name(&other)))),
        }
    }

    /// Executes `alloc_tensor`, `convert_layout`, `view`, `copy` or `shuffle`.
    pub(super) fn exec_layout_op(&mut self, op: OpId, k: &TileAsOp) -> R<Option<Flow>> {
        match k {
            TileAsOp::AllocTensor => self.set_result(op, 0, Value::Smem(SmemBuffer::default()))?,
            TileAsOp::Copy { .. } => {
                let t = self.tile_or_contents(op, 0)?;
                let Value::Smem(buf) = self.layout_operand(op, 1)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #1 must be a shared-memory buffer"));
                };
                *buf.0.lock().map_err(|_| self.error(op, ErrorKind::InvalidIr, "poisoned buffer"))? = Some(t);
            }
            TileAsOp::View { .. } if matches!(self.layout_operand(op, 0)?, Value::Smem(_)) => {
                let b = self.layout_operand(op, 0)?;
                self.set_result(op, 0, b)?;
            }
            TileAsOp::ConvertLayout { .. } | TileAsOp::Shuffle { .. } | TileAsOp::View { .. } => {
                let t = self.tile_or_contents(op, 0)?;
                let (shape, elem) = self.result_tile_type(op, 0)?;
                let r = reinterpret(&t, shape, elem).ok_or_else(|| {
                    self.error(op, ErrorKind::InvalidIr, "the result does not hold the operand's bits")
                })?;
                self.set_result(op, 0, Value::Tile(r))?;
            }
            _ => return Err(self.error(op, ErrorKind::InvalidIr, "not a layout op")),
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::reinterpret;
    use crate::value::{Data, Tile};
    use tileir_ir::{NumType, TileElem};

    #[test]
    fn nibbles_pack_low_first() {
        let t = Tile::from_bits(vec![4], TileElem::Num(NumType::I4), [1, 2, 3, 0xf]);
        let b = reinterpret(&t, vec![2], TileElem::Num(NumType::I8)).unwrap();
        assert_eq!(b.data, Data::Int(vec![0x21, -13]));
        let back = reinterpret(&b, vec![4], TileElem::Num(NumType::I4)).unwrap();
        assert_eq!(back, t);
    }
}
