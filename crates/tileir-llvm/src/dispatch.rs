//! Tile-primitive dispatch: how an op with several possible lowerings becomes LLVM.
//!
//! A table keyed by the op holds priority-ordered variants. Each variant has a predicate
//! (layouts, element types, target features) that says why it does not apply, and an
//! implementation that may still decline once it has looked closer; a decline rolls back
//! whatever text it wrote. The first variant that applies and does not decline wins.
//!
//! A variant can be forced per op with the discardable attribute `tileir.variant = "NAME"`
//! (the `convert-tileaa-to-tileas{force-variant=OP:NAME}` option stamps it on every op of
//! that kind). When no variant lowers an op, the error lists every variant with its reason,
//! at the op's location.

use crate::writer::FuncWriter;
use tileir_ir::{Attr, CtOp, CudaTileOp, OpId};

type R<T> = Result<T, String>;

/// The attribute that forces a variant.
pub const FORCE_ATTR: &str = "tileir.variant";

/// One way to lower an op.
pub(crate) struct Variant {
    /// Name, as `tileir.variant` spells it.
    pub name: &'static str,
    /// Why the variant cannot lower this op (None: it applies).
    pub rejects: fn(&FuncWriter<'_>, OpId, &CudaTileOp) -> Option<String>,
    /// Writes the op; an `Err` is a decline (the text written is rolled back).
    pub lower: fn(&mut FuncWriter<'_>, OpId, &CudaTileOp) -> R<()>,
}

/// The variants of `op`, best first.
pub(crate) fn variants(op: CtOp) -> &'static [Variant] {
    match op {
        CtOp::Reduce => REDUCE,
        CtOp::Scan => SCAN,
        CtOp::MmaF | CtOp::MmaI | CtOp::MmaFScaled => DOT,
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

/// The variant `c` forces, if any.
pub(crate) fn forced(c: &CudaTileOp) -> Option<&str> {
    c.discardable.iter().find(|(k, _)| k == FORCE_ATTR).and_then(|(_, v)| match v {
        Attr::Str(s) => Some(s.as_str()),
        _ => None,
    })
}

impl FuncWriter<'_> {
    /// Lowers `op` with the first variant that applies and does not decline.
    pub(crate) fn dispatch(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let table = variants(c.op);
        let forced = forced(c);
        if let Some(f) = forced {
            if !table.iter().any(|v| v.name == f) {
                let names: Vec<&str> = table.iter().map(|v| v.name).collect();
                return Err(format!("{FORCE_ATTR} = \"{f}\" names no variant of '{}' (variants: {})", c.op.mnemonic(), names.join(", ")));
            }
        }
        let mut reasons = Vec::new();
        for v in table {
            if forced.is_some_and(|f| f != v.name) {
                reasons.push(format!("{}: not the forced variant", v.name));
                continue;
            }
            if v.name != "wgmma" && self.m.ops[op].operands.iter().any(|o| self.fragment_values.contains(o)) {
                // The loop carries this accumulator in wgmma's fragment registers.
                reasons.push(format!("{}: the accumulator is held in wgmma fragments", v.name));
                continue;
            }
            if let Some(why) = (v.rejects)(self, op, c) {
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
        Err(format!("no lowering of '{}' applies on {}: {}", c.op.mnemonic(), self.target, reasons.join("; ")))
    }
}
