//! The async pipeline, queue and TMA ops: nv_tileas `async.pipeline.*`, `create_none`,
//! `async.to_async` / `future_wait` / `wait` / `tiled_load`, `make_tiled_tma_desc`, the TMA
//! transfers and `alloc_tensor`; nv_tileaa `create_queue`, `queue.put` / `queue.get` /
//! `queue.yield` and `execute` (the set is `is_async_op` in lowered.rs).
//!
//! `BlockExec::exec_op` routes every one of them here and nowhere else. This module is a
//! child of `exec`, so it sees the block's private state and helpers (`error`, `get`,
//! `set_result`, `run_block`, the tiled-access helpers, …).

use super::{BlockExec, Flow, R};
use crate::launch::ErrorKind;
use tileir_ir::OpId;

impl BlockExec<'_, '_, '_> {
    /// Executes one async pipeline / queue / TMA op; returns `Some` for terminators.
    pub(super) fn exec_async_op(&mut self, op: OpId) -> R<Option<Flow>> {
        let name = self.m().ops[op].kind.name();
        Err(self.error(
            op,
            ErrorKind::Unsupported,
            format!("the interpreter does not run '{name}' yet"),
        ))
    }
}
