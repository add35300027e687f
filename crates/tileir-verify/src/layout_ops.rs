//! Rules of nv_tileas's layout-conversion ops: `convert_layout`, `view`, `copy` and
//! `shuffle` (the ops `tileas-materialize-convert-layout` reads and writes).
//!
//! - `convert_layout`: one operand, a register tile or an `!nv_tileas.smem` buffer; one
//!   result, a register tile with a layout; shape and element type equal on both sides. A
//!   recorded plan (`plan_tag`) is tag 1 exactly when the source is a buffer.
//! - `view`: a tile viewed as a tile or a buffer as a buffer, with the same element type and
//!   element count; with `reinterpret_byte`, the same number of bits with `i8` on one side.
//! - `copy`: a tile or buffer into a buffer of the same shape and element type; no results;
//!   a non-empty `atom`.
//! - `shuffle`: a register tile into a register tile of the same shape and element type
//!   whose layout spans the same warps (shuffles stay within a warp); a non-empty `atom`;
//!   a recorded plan is tag 0.
//!
//! Every mismatch names both sides.

use crate::{counts, Ctx};
use tileir_ir::{AtomPlan, Layout, NumType, OpId, TileAsOp, TileElem, Type, ValueId};

/// The parts of a tile or smem buffer type the rules compare.
struct Shaped {
    shape: Vec<i64>,
    elem: TileElem,
    smem: bool,
    layout: Option<Layout>,
}

fn shaped(cx: &Ctx<'_>, v: ValueId) -> Option<Shaped> {
    match cx.m.types.get(cx.m.value_type(v)) {
        Type::Tile { shape, elem, layout } => Some(Shaped { shape: shape.clone(), elem: *elem, smem: false, layout: layout.clone() }),
        Type::SmemTile { shape, elem, .. } => Some(Shaped { shape: shape.clone(), elem: TileElem::Num(*elem), smem: true, layout: None }),
        _ => None,
    }
}

fn shape_text(s: &[i64]) -> String {
    if s.is_empty() {
        return "scalar".into();
    }
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x")
}

fn elem_text(e: TileElem) -> String {
    match e {
        TileElem::Num(n) => n.to_string(),
        TileElem::Ptr(p) => format!("ptr<{p}>"),
    }
}

fn elem_bits(e: TileElem) -> Option<u64> {
    match e {
        TileElem::Num(n) => Some(u64::from(n.bit_width())),
        TileElem::Ptr(_) => None,
    }
}

/// Shape and element type agree between operand `src` and `dst` (`what` names the sides).
fn same_shape_elem(cx: &mut Ctx<'_>, op: OpId, a: &Shaped, b: &Shaped, sides: (&str, &str)) -> bool {
    let mut ok = true;
    if a.shape != b.shape {
        cx.op_error(op, format!("{} shape {} and {} shape {} must match", sides.0, shape_text(&a.shape), sides.1, shape_text(&b.shape)));
        ok = false;
    }
    if a.elem != b.elem {
        cx.op_error(op, format!("{} element type {} and {} element type {} must match", sides.0, elem_text(a.elem), sides.1, elem_text(b.elem)));
        ok = false;
    }
    ok
}

fn operand_shaped(cx: &mut Ctx<'_>, op: OpId, i: usize, want: &str) -> Option<Shaped> {
    let v = cx.m.ops[op].operands[i];
    let s = shaped(cx, v);
    if s.is_none() {
        cx.op_error(op, format!("operand #{i} must be {want}, got {}", cx.vty(v)));
    }
    s
}

fn check_plan(cx: &mut Ctx<'_>, op: OpId, plan: &Option<AtomPlan>, want_tag: u32, why: &str) {
    if let Some(p) = plan {
        if p.tag != want_tag {
            cx.op_error(op, format!("recorded plan tag {} does not match the op: {why} is tag {want_tag}", p.tag));
        }
    }
}

fn warps(l: &Option<Layout>) -> Option<Vec<u32>> {
    match l.as_ref()? {
        Layout::Blocked { warps_per_cta, .. } | Layout::Mma { warps_per_cta, .. } => Some(warps_per_cta.clone()),
        Layout::Slice { parent, .. } => warps(&Some((**parent).clone())),
    }
}

pub(crate) fn verify(cx: &mut Ctx<'_>, op: OpId, kind: &TileAsOp) {
    match kind {
        TileAsOp::ConvertLayout { plan, reinterpret_byte: _ } => {
            if !counts(cx, op, 1, 1) {
                return;
            }
            let Some(src) = operand_shaped(cx, op, 0, "a tile or an !nv_tileas.smem buffer") else { return };
            let r = cx.m.ops[op].results[0];
            let Some(dst) = shaped(cx, r).filter(|d| !d.smem) else {
                cx.op_error(op, format!("result must be a register tile, got {}", cx.vty(r)));
                return;
            };
            if dst.layout.is_none() {
                cx.op_error(op, format!("result {} must carry a register layout", cx.vty(r)));
            }
            same_shape_elem(cx, op, &src, &dst, ("source", "result"));
            if src.smem {
                check_plan(cx, op, plan, AtomPlan::VIA_SMEM, "a read-back from shared memory");
            } else {
                check_plan(cx, op, plan, AtomPlan::REG_TO_REG, "a register-to-register conversion");
            }
        }
        TileAsOp::View { reinterpret_byte } => {
            if !counts(cx, op, 1, 1) {
                return;
            }
            let Some(src) = operand_shaped(cx, op, 0, "a tile or an !nv_tileas.smem buffer") else { return };
            let r = cx.m.ops[op].results[0];
            let Some(dst) = shaped(cx, r) else {
                cx.op_error(op, format!("result must be a tile or an !nv_tileas.smem buffer, got {}", cx.vty(r)));
                return;
            };
            let (sv, rv) = (cx.vty(cx.m.ops[op].operands[0]), cx.vty(r));
            if src.smem != dst.smem {
                cx.op_error(op, format!("a view keeps the storage: source {sv} and result {rv} must both be tiles or both smem buffers"));
                return;
            }
            let count = |s: &Shaped| s.shape.iter().product::<i64>();
            if *reinterpret_byte {
                let i8 = TileElem::Num(NumType::I8);
                if src.elem != i8 && dst.elem != i8 {
                    cx.op_error(op, format!("a byte view ('reinterpret_byte') needs i8 on one side, got source {sv} and result {rv}"));
                    return;
                }
                let bits = |s: &Shaped| elem_bits(s.elem).map(|b| b * count(s) as u64);
                if bits(&src) != bits(&dst) {
                    cx.op_error(op, format!("a byte view keeps the bytes: source {sv} and result {rv} must hold the same number of bits"));
                }
            } else {
                if src.elem != dst.elem {
                    cx.op_error(op, format!("source element type {} and result element type {} must match (a byte view needs 'reinterpret_byte')", elem_text(src.elem), elem_text(dst.elem)));
                }
                if count(&src) != count(&dst) {
                    cx.op_error(op, format!("source {sv} and result {rv} must have the same number of elements ({} vs {})", count(&src), count(&dst)));
                }
            }
        }
        TileAsOp::Copy { atom } => {
            if !counts(cx, op, 2, 0) {
                return;
            }
            if atom.is_empty() {
                cx.op_error(op, "attribute 'atom' must name a copy atom");
            }
            let Some(src) = operand_shaped(cx, op, 0, "a tile or an !nv_tileas.smem buffer") else { return };
            let Some(dst) = operand_shaped(cx, op, 1, "an !nv_tileas.smem buffer") else { return };
            if !dst.smem {
                let d = cx.m.ops[op].operands[1];
                cx.op_error(op, format!("operand #1 (the destination) must be an !nv_tileas.smem buffer, got {}", cx.vty(d)));
                return;
            }
            same_shape_elem(cx, op, &src, &dst, ("source", "destination"));
        }
        TileAsOp::Shuffle { atom, plan } => {
            if !counts(cx, op, 1, 1) {
                return;
            }
            if atom.is_empty() {
                cx.op_error(op, "attribute 'atom' must name a shuffle atom");
            }
            let Some(src) = operand_shaped(cx, op, 0, "a register tile") else { return };
            let r = cx.m.ops[op].results[0];
            let Some(dst) = shaped(cx, r) else {
                cx.op_error(op, format!("result must be a register tile, got {}", cx.vty(r)));
                return;
            };
            if src.smem || dst.smem {
                let s = cx.vty(cx.m.ops[op].operands[0]);
                cx.op_error(op, format!("shuffles move registers: source {s} and result {} must be register tiles", cx.vty(r)));
                return;
            }
            same_shape_elem(cx, op, &src, &dst, ("source", "result"));
            if let (Some(a), Some(b)) = (warps(&src.layout), warps(&dst.layout)) {
                if a != b {
                    cx.op_error(op, format!("shuffles stay within a warp: source warps_per_cta {a:?} and result warps_per_cta {b:?} must match"));
                }
            }
            check_plan(cx, op, plan, AtomPlan::REG_TO_REG, "a shuffle");
        }
        _ => {}
    }
}
