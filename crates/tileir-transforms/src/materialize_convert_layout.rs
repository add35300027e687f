//! `tileas-materialize-convert-layout` (spec/001 "Materialize Convert Layout", D08):
//! every `nv_tileas.convert_layout` between two register layouts becomes the sequence of
//! the plan chosen for it.
//!
//! # Plans
//!
//! Both layouts are turned into linear layouts ([`tileir_layout`]); the candidates are
//!
//! * tag 0, register to register, when the conversion needs no warp to see another warp's
//!   data ([`tileir_layout::plan_conversion`] answers `Identical`, `InThread` or
//!   `WarpShuffle`): *direct* (no data crosses a lane: the op stays a `convert_layout`,
//!   vector width 0, always feasible) or *shuffle* (`shfl.sync.idx` rounds, one per
//!   destination register; its vector width is the elements one 32-bit shuffle word carries,
//!   `max(1, 32 / element bits)`, feasible when that is ≤ `reg2reg-vec-size`);
//! * tag 1, via shared memory ([`tileir_layout::plan_shared`]: store, barrier, load through
//!   the swizzle with the fewest bank conflicts), for byte-sized elements, feasible when
//!   the scratch fits in [`MAX_SMEM_BYTES`]; its vector width is the narrower of the store
//!   and load accesses.
//!
//! Candidates are sorted by descending *efficiency*, bytes each thread converts per issue
//! slot: `bytes per thread / cost`, with cost 0 for direct (so it always wins), the number
//! of shuffle rounds for a shuffle, and store wavefronts + load wavefronts +
//! [`BARRIER_COST`] for shared memory (a stable sort: ties keep the order above). The first
//! feasible one is applied:
//!
//! * direct → `convert_layout` (with the plan recorded);
//! * shuffle → `shuffle {atom = "shfl.sync.idx.b32xN"}`;
//! * shared memory → `alloc_tensor` (`!nv_tileas.smem<…, swizzle=0>`), `view` of the source,
//!   `copy {atom = "st.shared.vV.bB"}` into the buffer and `convert_layout` from the buffer.
//!
//! The op that produces the converted tile carries the plan (`plan_tag`, `plan_vec`,
//! `plan_smem_bytes`). With `reinterpret-to-i8`, a tile of 8-bit-or-narrower floats is first
//! viewed as an `i8` tile (`view {reinterpret_byte}`; 4-bit elements pair up along the
//! fastest dimension, whose per-thread size must then be even), converted at byte
//! granularity, and viewed back; the conversion op carries `reinterpret_byte`.
//!
//! A conversion no plan serves (a layout tileir-layout cannot express, a non-numeric
//! element, every candidate infeasible: e.g. 4-bit floats, which shared memory cannot stage
//! without `reinterpret-to-i8`, under a small `reg2reg-vec-size`) gets the spec's diagnostic
//! [`NO_PLAN`] at the op, which is left unchanged, and the pass fails after the walk.

use tileir_ir::{
    AtomPlan, Diagnostic, Diagnostics, Layout, Module, NumType, OpId, OpKind, TileAsOp, TileElem, Type, TypeId,
};
use tileir_layout::{plan_conversion, plan_shared, ConversionPlan, LinearLayout};
use tileir_pass::{pass_options, Pass};

use crate::pipeline_util::Builder;

/// Registered name.
pub const NAME: &str = crate::pass_order::MATERIALIZE_CONVERT_LAYOUT;

/// spec/001's diagnostic, verbatim.
pub const NO_PLAN: &str = "failed to query target spec for convert_layout";

/// Shared memory one CTA may use (sm_90: 227 KiB).
pub const MAX_SMEM_BYTES: u64 = 227 * 1024;

/// Issue slots a CTA barrier costs in the efficiency model.
pub const BARRIER_COST: u32 = 2;

pass_options! {
    /// Options of `tileas-materialize-convert-layout` (spec/001 names and defaults).
    pub struct MaterializeConvertLayoutOptions {
        /// Cap on the register-to-register atom width, in elements.
        reg2reg_vec_size("reg2reg-vec-size"): u32 = 16,
        /// Stage sub-byte (≤ 8-bit) float tiles as i8 tiles.
        reinterpret_to_i8("reinterpret-to-i8"): bool = false,
    }
}

/// The pass.
pub struct MaterializeConvertLayout {
    /// Its options.
    pub options: MaterializeConvertLayoutOptions,
}

impl Pass for MaterializeConvertLayout {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        // Bottom-up, like the spec's walk; ops created here carry a plan and are skipped.
        let ops: Vec<OpId> = module
            .walk()
            .into_iter()
            .rev()
            .filter(|&o| matches!(module.ops[o].kind, OpKind::TileAs(TileAsOp::ConvertLayout { plan: None, .. })))
            .collect();
        let mut diags = Vec::new();
        for op in ops {
            if !module.is_attached(op) {
                continue;
            }
            if materialize_one(module, op, &self.options).is_none() {
                diags.push(Diagnostic::error(module.op_location(op), NO_PLAN));
            }
        }
        if diags.is_empty() {
            Ok(())
        } else {
            Err(Diagnostics(diags))
        }
    }
}

/// What a candidate does.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Action {
    Direct,
    Shuffle { rounds: u32 },
    Smem { store_vec: u32 },
}

/// One candidate plan.
#[derive(Clone, Debug)]
struct Candidate {
    action: Action,
    plan: AtomPlan,
    /// Issue slots per thread.
    cost: u32,
}

/// A register tile's parts.
#[derive(Clone)]
struct RegTile {
    shape: Vec<i64>,
    elem: NumType,
    layout: Layout,
}

fn reg_tile(m: &Module, t: TypeId) -> Option<RegTile> {
    match m.types.get(t) {
        Type::Tile { shape, elem: TileElem::Num(n), layout: Some(l) } => Some(RegTile { shape: shape.clone(), elem: *n, layout: l.clone() }),
        _ => None,
    }
}

fn linear(t: &RegTile) -> Option<LinearLayout> {
    let shape: Vec<u32> = t.shape.iter().map(|&d| u32::try_from(d).ok()).collect::<Option<_>>()?;
    match &t.layout {
        Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order } => {
            let order: Vec<usize> = order.iter().map(|&o| o as usize).collect();
            tileir_layout::blocked(&shape, size_per_thread, threads_per_warp, warps_per_cta, &order).ok()
        }
        // Fragment layouts are converted by the backend (through shared memory); this pass
        // plans blocked ones only.
        Layout::Mma { .. } | Layout::Slice { .. } => None,
    }
}

/// Sub-byte float formats `reinterpret-to-i8` stages as bytes (FP8, FP6, NVFP4).
fn is_sub_byte_fp(n: NumType) -> bool {
    n.is_float() && n.bit_width() <= 8
}

/// The `i8` tile holding the same bytes as `t` (elements packed along the fastest
/// dimension), if the layout's per-thread run there covers whole bytes.
fn byte_view(t: &RegTile) -> Option<RegTile> {
    let bits = t.elem.bit_width();
    if bits == 8 {
        return Some(RegTile { elem: NumType::I8, ..t.clone() });
    }
    if bits == 0 || 8 % bits != 0 {
        return None;
    }
    let per_byte = 8 / bits;
    let Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order } = &t.layout else { return None };
    let fast = *order.first()? as usize;
    if size_per_thread[fast] % per_byte != 0 || t.shape[fast] % i64::from(per_byte) != 0 {
        return None;
    }
    let mut spt = size_per_thread.clone();
    spt[fast] /= per_byte;
    let mut shape = t.shape.clone();
    shape[fast] /= i64::from(per_byte);
    Some(RegTile {
        shape,
        elem: NumType::I8,
        layout: Layout::Blocked {
            size_per_thread: spt,
            threads_per_warp: threads_per_warp.clone(),
            warps_per_cta: warps_per_cta.clone(),
            order: order.clone(),
        },
    })
}

/// The candidates for converting `src` to `dst` (same shape and element), sorted by
/// descending efficiency (stable).
fn candidates(src: &RegTile, dst: &RegTile) -> Vec<Candidate> {
    let mut out = Vec::new();
    if src.shape != dst.shape || src.elem != dst.elem {
        return out;
    }
    let (Some(ls), Some(ld)) = (linear(src), linear(dst)) else { return out };
    let bits = src.elem.bit_width();
    match plan_conversion(&ls, &ld, bits) {
        Ok(ConversionPlan::Identical | ConversionPlan::InThread { .. }) => out.push(Candidate {
            action: Action::Direct,
            plan: AtomPlan { tag: AtomPlan::REG_TO_REG, vec: 0, smem_bytes: 0 },
            cost: 0,
        }),
        Ok(ConversionPlan::WarpShuffle { rounds }) => out.push(Candidate {
            action: Action::Shuffle { rounds: rounds.len() as u32 },
            plan: AtomPlan { tag: AtomPlan::REG_TO_REG, vec: (32 / bits).max(1), smem_bytes: 0 },
            cost: rounds.len() as u32,
        }),
        Ok(ConversionPlan::SharedMemory(_)) | Err(_) => {}
    }
    if let Ok(sp) = plan_shared(&ls, &ld, bits) {
        out.push(Candidate {
            action: Action::Smem { store_vec: sp.store.vec },
            plan: AtomPlan { tag: AtomPlan::VIA_SMEM, vec: sp.store.vec.min(sp.load.vec), smem_bytes: sp.scratch_bytes() },
            cost: sp.store.wavefronts + sp.load.wavefronts + BARRIER_COST,
        });
    }
    let bytes = f64::from(ls.num_registers()) * f64::from(bits) / 8.0;
    let eff = |c: &Candidate| if c.cost == 0 { f64::INFINITY } else { bytes / f64::from(c.cost) };
    out.sort_by(|a, b| eff(b).total_cmp(&eff(a)));
    out
}

fn feasible(c: &Candidate, opts: &MaterializeConvertLayoutOptions) -> bool {
    match c.action {
        Action::Direct => true,
        Action::Shuffle { .. } => c.plan.vec <= opts.reg2reg_vec_size,
        Action::Smem { .. } => c.plan.smem_bytes <= MAX_SMEM_BYTES,
    }
}

fn tile_type(m: &mut Module, t: &RegTile) -> TypeId {
    m.types.intern(Type::Tile { shape: t.shape.clone(), elem: TileElem::Num(t.elem), layout: Some(t.layout.clone()) })
}

/// Rewrites one op; `None` when no plan serves it (the op is left unchanged).
fn materialize_one(m: &mut Module, op: OpId, opts: &MaterializeConvertLayoutOptions) -> Option<()> {
    let src_v = *m.ops[op].operands.first()?;
    let res = *m.ops[op].results.first()?;
    let src = reg_tile(m, m.value_type(src_v))?;
    let dst = reg_tile(m, m.value_type(res))?;
    // Byte reinterpretation when asked for and possible on both ends.
    let bytes = if opts.reinterpret_to_i8 && is_sub_byte_fp(src.elem) && is_sub_byte_fp(dst.elem) {
        byte_view(&src).zip(byte_view(&dst))
    } else {
        None
    };
    let (csrc, cdst) = bytes.clone().unwrap_or_else(|| (src.clone(), dst.clone()));
    let chosen = candidates(&csrc, &cdst).into_iter().find(|c| feasible(c, opts))?;
    let reinterpret = bytes.is_some();
    let dst_ty = m.value_type(res);
    let csrc_ty = tile_type(m, &csrc);
    let cdst_ty = tile_type(m, &cdst);
    let mut b = Builder::before(m, op);
    let mut from = src_v;
    if reinterpret {
        from = b.value(OpKind::TileAs(TileAsOp::View { reinterpret_byte: true }), vec![from], csrc_ty);
    }
    let plan = Some(chosen.plan);
    let converted = match chosen.action {
        Action::Direct => {
            b.value(OpKind::TileAs(TileAsOp::ConvertLayout { plan, reinterpret_byte: reinterpret }), vec![from], cdst_ty)
        }
        Action::Shuffle { rounds } => {
            let atom = format!("shfl.sync.idx.b32x{rounds}");
            b.value(OpKind::TileAs(TileAsOp::Shuffle { atom, plan }), vec![from], cdst_ty)
        }
        Action::Smem { store_vec } => {
            let smem_ty = b.m.types.intern(Type::SmemTile { shape: csrc.shape.clone(), elem: csrc.elem, swizzle: 0 });
            let buf = b.value(OpKind::TileAs(TileAsOp::AllocTensor), vec![], smem_ty);
            // The source view (spec: "view the source through the plan's source view"); the
            // byte view itself when reinterpreting.
            let view = if reinterpret {
                from
            } else {
                b.value(OpKind::TileAs(TileAsOp::View { reinterpret_byte: false }), vec![from], csrc_ty)
            };
            let atom = format!("st.shared.v{store_vec}.b{}", csrc.elem.bit_width());
            b.op(OpKind::TileAs(TileAsOp::Copy { atom }), vec![view, buf], &[]);
            b.value(OpKind::TileAs(TileAsOp::ConvertLayout { plan, reinterpret_byte: reinterpret }), vec![buf], cdst_ty)
        }
    };
    let last = if reinterpret {
        b.value(OpKind::TileAs(TileAsOp::View { reinterpret_byte: true }), vec![converted], dst_ty)
    } else {
        converted
    };
    if let Some(n) = m.values[res].name.clone() {
        m.values[last].name = Some(n);
    }
    m.replace_all_uses(res, last);
    m.detach_op(op);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(shape: &[i64], spt: &[u32], tpw: &[u32], wpc: &[u32], order: &[u32], elem: NumType) -> RegTile {
        RegTile {
            shape: shape.to_vec(),
            elem,
            layout: Layout::Blocked {
                size_per_thread: spt.to_vec(),
                threads_per_warp: tpw.to_vec(),
                warps_per_cta: wpc.to_vec(),
                order: order.to_vec(),
            },
        }
    }

    #[test]
    fn within_warp_prefers_shuffle_and_cross_warp_needs_smem() {
        let a = blocked(&[32, 16], &[1, 4], &[8, 4], &[4, 1], &[1, 0], NumType::F32);
        let b = blocked(&[32, 16], &[1, 2], &[8, 4], &[4, 1], &[1, 0], NumType::F32);
        let c = candidates(&a, &b);
        assert!(matches!(c[0].action, Action::Shuffle { .. }), "{c:?}");
        assert!(c.iter().any(|c| matches!(c.action, Action::Smem { .. })));
        let d = blocked(&[32, 16], &[1, 4], &[8, 4], &[1, 4], &[1, 0], NumType::F32);
        let c = candidates(&a, &d);
        assert!(c.iter().all(|c| c.plan.tag == AtomPlan::VIA_SMEM), "{c:?}");
        assert_eq!(candidates(&a, &a)[0].action, Action::Direct);
    }

    #[test]
    fn byte_view_packs_nibbles_along_the_fastest_dimension() {
        let a = blocked(&[32, 32], &[1, 4], &[4, 8], &[4, 1], &[1, 0], NumType::F4E2M1FN);
        let v = byte_view(&a).expect("even run");
        assert_eq!(v.shape, vec![32, 16]);
        assert_eq!(v.elem, NumType::I8);
        let odd = blocked(&[32, 32], &[1, 1], &[1, 32], &[4, 1], &[1, 0], NumType::F4E2M1FN);
        assert!(byte_view(&odd).is_none());
    }
}
