//! Per-op rules of cuda_tile (memory group).

use crate::Ctx;
use tileir_ir::{CudaTileOp, OpId};

pub(crate) fn verify(_cx: &mut Ctx<'_>, _op: OpId, _kind: &CudaTileOp) {}
