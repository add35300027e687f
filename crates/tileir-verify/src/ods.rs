//! Checks derived from the op schema (what MLIR's ODS generates): operand and result
//! counts per group, type constraints, attribute presence.

use crate::Ctx;
use tileir_ir::{CudaTileOp, OpId};

/// Returns false when the op is too malformed for its own rules to run.
pub(crate) fn verify(_cx: &mut Ctx<'_>, _op: OpId, _kind: &CudaTileOp) -> bool {
    true
}
