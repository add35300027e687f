//! Tile-primitive dispatch: how an op with several possible lowerings becomes LLVM.
//!
//! A table keyed by the op holds priority-ordered variants. Each variant has a predicate
//! (layouts, element types, target features) that says why it does not apply, and an
//! implementation that may still decline once it has looked closer; a decline rolls back
//! whatever text it wrote. The first variant that applies and does not decline wins.
//!
//! A variant can be forced per op with the discardable attribute `tileir.variant = "NAME"`
//! (nv_tileas's `tiled_load` / `tiled_store`: their `variant` attribute); the
//! `convert-tileaa-to-tileas{force-variant=OP:NAME}` option stamps it on every op of that
//! kind. When no variant lowers an op, the error lists every variant with its reason, at
//! the op's location.
//!
//! | op | variants, best first |
//! |----|----------------------|
//! | `reduce` | `tree` (in-thread, warp shuffles, shared memory across warps), `serial` |
//! | `scan` | `serial` |
//! | `mmaf` / `mmai` / `mmaf_scaled` | `wgmma`, `mma_sync`, `mma_sync_tf32`, `mma_sync_i8`, `mma_sync_fp8`, `fma` |
//! | `broadcast` / `reshape` / `permute` / `extract` / `cat` (and `convert_layout`) | `registers` (every thread holds what it needs: registers are renamed), `shuffle` (within warps: `shfl.sync`), `shared_memory` (a round trip through shared memory; any op and layouts) |
//! | `tiled_load` | `vector` (vector `ld.global` for tiles inside the memref, predicated per element at its edges), `cp_async` (sm_80+: 16-byte `cp.async` into shared memory, zero-filled past the edges, then read in the tile's layout), `predicated` (one predicate per element everywhere) |
//! | `tiled_store` | `vector`, `predicated` |

use crate::writer::{FuncWriter, TiledParts};
use tileir_ir::{Attr, CtOp, CudaTileOp, OpId};

type R<T> = Result<T, String>;

/// The attribute that forces a variant.
pub const FORCE_ATTR: &str = "tileir.variant";

/// One way to lower an op described by `C` (a cuda_tile op, or a resolved tiled access).
pub(crate) struct Variant<C = CudaTileOp> {
    /// Name, as `tileir.variant` spells it.
    pub name: &'static str,
    /// Why the variant cannot lower this op (None: it applies).
    pub rejects: fn(&FuncWriter<'_>, OpId, &C) -> Option<String>,
    /// Writes the op; an `Err` is a decline (the text written is rolled back).
    pub lower: fn(&mut FuncWriter<'_>, OpId, &C) -> R<()>,
}

/// The variants of `op`, best first.
pub(crate) fn variants(op: CtOp) -> &'static [Variant] {
    match op {
        CtOp::Reduce => REDUCE,
        CtOp::Scan => SCAN,
        CtOp::MmaF | CtOp::MmaI | CtOp::MmaFScaled => DOT,
        CtOp::Broadcast | CtOp::Reshape | CtOp::Permute | CtOp::Extract | CtOp::Cat => RELAYOUT,
        _ => &[],
    }
}

const REDUCE: &[Variant] = &[
    Variant { name: "tree", rejects: crate::reduce_tree::tree_rejects, lower: |w, op, c| w.reduce_tree(op, c) },
    Variant { name: "serial", rejects: |_, _, _| None, lower: |w, op, c| w.reduce_scan(op, c) },
];

const SCAN: &[Variant] = &[Variant { name: "serial", rejects: |_, _, _| None, lower: |w, op, c| w.reduce_scan(op, c) }];

const DOT: &[Variant] = &[
    Variant { name: "wgmma", rejects: crate::wgmma::wgmma_rejects, lower: |w, op, c| w.wgmma(op, c) },
    Variant { name: "mma_sync", rejects: crate::mma_sync::mma_sync_rejects, lower: |w, op, c| w.mma_sync("mma_sync", op, c) },
    Variant { name: "mma_sync_tf32", rejects: crate::mma_sync::mma_sync_tf32_rejects, lower: |w, op, c| w.mma_sync("mma_sync_tf32", op, c) },
    Variant { name: "mma_sync_i8", rejects: crate::mma_sync::mma_sync_i8_rejects, lower: |w, op, c| w.mma_sync("mma_sync_i8", op, c) },
    Variant { name: "mma_sync_fp8", rejects: crate::mma_sync::mma_sync_fp8_rejects, lower: |w, op, c| w.mma_sync("mma_sync_fp8", op, c) },
    Variant { name: "fma", rejects: |_, _, _| None, lower: |w, op, c| w.dot(op, c) },
];

/// Relayouts (broadcast, reshape, permute, extract, cat, nv_tileas's convert_layout) where
/// elements change threads or registers.
pub(crate) const RELAYOUT: &[Variant] = &[
    Variant { name: "registers", rejects: |w, op, c| w.relayout_in_registers_rejects(op, c), lower: |w, op, c| w.relayout_in_registers(op, c) },
    Variant { name: "shuffle", rejects: |w, op, c| w.relayout_shuffled_rejects(op, c), lower: |w, op, c| w.relayout_shuffled(op, c) },
    Variant { name: "shared_memory", rejects: |_, _, _| None, lower: |w, op, c| w.relayout_through_smem(op, c) },
];

pub(crate) const TILED_LOAD: &[Variant<TiledParts>] = &[
    Variant { name: "vector", rejects: blocked_rejects, lower: |w, op, p| w.tiled_in_registers(op, p, true) },
    Variant { name: "cp_async", rejects: crate::cp_async::cp_async_rejects, lower: |w, op, p| w.tiled_cp_async(op, p) },
    Variant { name: "predicated", rejects: predicated_rejects, lower: |w, op, p| w.tiled_in_registers(op, p, false) },
];

pub(crate) const TILED_STORE: &[Variant<TiledParts>] = &[
    Variant { name: "vector", rejects: blocked_rejects, lower: |w, op, p| w.tiled_in_registers(op, p, true) },
    Variant { name: "predicated", rejects: predicated_rejects, lower: |w, op, p| w.tiled_in_registers(op, p, false) },
];

/// The register variants address each thread's elements from a blocked layout.
fn blocked_rejects(_: &FuncWriter<'_>, _: OpId, p: &TiledParts) -> Option<String> {
    (!matches!(p.layout, tileir_ir::Layout::Blocked { .. }))
        .then(|| "the tile's layout is not blocked (convert it to a blocked layout first)".into())
}

fn predicated_rejects(w: &FuncWriter<'_>, op: OpId, p: &TiledParts) -> Option<String> {
    // 4-bit elements share bytes: their accesses merge nibbles (the `vector` variant's own path).
    blocked_rejects(w, op, p).or_else(|| {
        (p.elem == tileir_ir::NumType::F4E2M1FN).then(|| "4-bit elements are merged into bytes by the vector variant".into())
    })
}

/// The variant `c` forces, if any.
pub(crate) fn forced(c: &CudaTileOp) -> Option<&str> {
    c.discardable.iter().find(|(k, _)| k == FORCE_ATTR).and_then(|(_, v)| match v {
        Attr::Str(s) => Some(s.as_str()),
        _ => None,
    })
}

impl FuncWriter<'_> {
    /// Lowers cuda_tile op `op` with the first variant that applies and does not decline.
    pub(crate) fn dispatch(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let fragments = |w: &FuncWriter<'_>, name: &str| -> Option<String> {
            (name != "wgmma" && w.m.ops[op].operands.iter().any(|o| w.fragment_values.contains(o)))
                // The loop carries this accumulator in wgmma's fragment registers.
                .then(|| "the accumulator is held in wgmma fragments".to_string())
        };
        self.run_variants(op, c, c.op.mnemonic(), variants(c.op), forced(c), &fragments)
    }

    /// Lowers `op` (described by `c`, named `mnemonic` in messages) with the first variant of
    /// `table` that applies (`precheck` and its own predicate find no reason against it) and
    /// does not decline; `forced` names the only variant that may.
    pub(crate) fn run_variants<C>(
        &mut self,
        op: OpId,
        c: &C,
        mnemonic: &str,
        table: &[Variant<C>],
        forced: Option<&str>,
        precheck: &dyn Fn(&FuncWriter<'_>, &str) -> Option<String>,
    ) -> R<()> {
        if let Some(f) = forced {
            if !table.iter().any(|v| v.name == f) {
                let names: Vec<&str> = table.iter().map(|v| v.name).collect();
                return Err(format!("{FORCE_ATTR} = \"{f}\" names no variant of '{mnemonic}' (variants: {})", names.join(", ")));
            }
        }
        let mut reasons = Vec::new();
        for v in table {
            if forced.is_some_and(|f| f != v.name) {
                reasons.push(format!("{}: not the forced variant", v.name));
                continue;
            }
            if let Some(why) = precheck(self, v.name).or_else(|| (v.rejects)(self, op, c)) {
                reasons.push(format!("{}: {why}", v.name));
                continue;
            }
            let (body_len, block, smem, ring_smem) = (self.body.len(), self.cur_block.clone(), self.smem_bytes, self.ring_scratch_bytes);
            match (v.lower)(self, op, c) {
                Ok(()) => return Ok(()),
                Err(why) => {
                    self.body.truncate(body_len);
                    self.cur_block = block;
                    self.smem_bytes = smem;
                    self.ring_scratch_bytes = ring_smem;
                    reasons.push(format!("{}: declined: {why}", v.name));
                }
            }
        }
        Err(format!("no lowering of '{mnemonic}' applies on {}: {}", self.target, reasons.join("; ")))
    }
}
