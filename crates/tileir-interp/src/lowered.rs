//! Execution of the nv_tileaa and nv_tileas ops of lowered kernels (everything but the async
//! pipeline family, which `exec_op` routes to pipeline.rs).
//!
//! Semantics are those of the cuda_tile ops they come from (see `convert-cuda-tile-to-tileaa`):
//! - `make_memref` is `make_tensor_view`: a [`Value::MemRef`] with the base address, sizes and
//!   strides (static ones from the result type, dynamic ones from the operands, read
//!   unsigned). Its `alignment` is the `assume div_by` the conversion folded in, checked only
//!   with [`crate::RunOptions::check_assumes`].
//! - `tiled_load` / `tiled_store` (both dialects; nv_tileas' `vector_width` only says how
//!   wide the hardware accesses are) address the tile whose coordinates are the tile indices
//!   per memref dimension: origin `idx[i] · tile[i]`, or `idx[i] · origin_step[i]` for a
//!   strided view. The memref is already permuted for a view's `dim_map`. Out-of-bounds
//!   elements read the padding value (zero without one) and are not written; a tile outside
//!   the index space, or entirely out of bounds, is fully masked (the generated code masks
//!   every element), unlike `load_view_tko` / `store_view_tko` where that is undefined
//!   behavior (the cuda_tile source keeps those checks).
//! - Memory ordering and tokens (`create_mem_token`, `join_mem_token`, the token operands and
//!   results) are no-ops in a sequential interpreter; `mark_for_reuse` only checks that its
//!   operands are defined.
//! - `get_program_id` / `get_num_programs` are `get_tile_block_id` / `get_num_tile_blocks`;
//!   `get_global` is `get_global`; `addf` / `subf` / `mulf` are cuda_tile's.

use super::{kind_name, BlockExec, Flow, ViewAccess, R};
use crate::arith::{self, FBin};
use crate::launch::ErrorKind;
use crate::value::{is_sub_byte, unsigned, Data, TensorView, Tile, TileView, Value, ViewKind};
use tileir_ir::{Dim, OpId, OpKind, TileAaOp, TileAsOp, TileElem, TiledAccess, Type};

/// Whether `kind` is one of the async pipeline / queue / TMA ops that only
/// `BlockExec::exec_async_op` (pipeline.rs) runs.
pub(super) fn is_async_op(kind: &OpKind) -> bool {
    match kind {
        OpKind::TileAs(k) => match k {
            TileAsOp::TiledLoad { .. } | TileAsOp::TiledStore { .. } => false,
            TileAsOp::CreatePipeline
            | TileAsOp::CreateIterator
            | TileAsOp::IncIter
            | TileAsOp::ProduceOne(_)
            | TileAsOp::ProduceOneAsync(_)
            | TileAsOp::ConsumeOne { .. }
            | TileAsOp::ProducerAcquire
            | TileAsOp::ProducerWrite
            | TileAsOp::ProducerCommit
            | TileAsOp::ConsumerWait { .. }
            | TileAsOp::ConsumerRead
            | TileAsOp::ConsumerRelease
            | TileAsOp::AgentSwitch { .. }
            | TileAsOp::PipelineYield
            | TileAsOp::CreateNone
            | TileAsOp::ToAsync
            | TileAsOp::FutureWait
            | TileAsOp::Wait
            | TileAsOp::AsyncTiledLoad(_)
            | TileAsOp::MakeTiledTmaDesc { .. }
            | TileAsOp::AsyncTiledTmaLoad
            | TileAsOp::AsyncTiledTmaStore
            | TileAsOp::AsyncGatherTmaLoad
            | TileAsOp::AsyncScatterTmaStore => true,
            // Shared-memory buffers and layout conversions: layout_ops.rs, via exec_tileas.
            TileAsOp::AllocTensor
            | TileAsOp::ConvertLayout { .. }
            | TileAsOp::View { .. }
            | TileAsOp::Copy { .. }
            | TileAsOp::Shuffle { .. } => false,
            // Tile structure, pointer-tile memory and dot: tile_structure.rs, via exec_tileas.
            TileAsOp::Reinterpret
            | TileAsOp::ExtractSlice { .. }
            | TileAsOp::InsertSlice { .. }
            | TileAsOp::ExpandDims { .. }
            | TileAsOp::Generate
            | TileAsOp::TiledAtomicRmw { .. }
            | TileAsOp::Load(_)
            | TileAsOp::Store(_)
            | TileAsOp::Dot(_) => false,
        },
        OpKind::TileAa(k) => match k {
            TileAaOp::CreateQueue
            | TileAaOp::QueuePut
            | TileAaOp::QueueGet { .. }
            | TileAaOp::QueueYield
            | TileAaOp::Execute { .. } => true,
            TileAaOp::Func { .. }
            | TileAaOp::Return
            | TileAaOp::CreateMemToken
            | TileAaOp::GetProgramId { .. }
            | TileAaOp::GetNumPrograms { .. }
            | TileAaOp::MakeMemref { .. }
            | TileAaOp::TiledLoad(_)
            | TileAaOp::TiledStore(_)
            | TileAaOp::AddF(_)
            | TileAaOp::SubF(_)
            | TileAaOp::MulF(_)
            | TileAaOp::Global { .. }
            | TileAaOp::GetGlobal { .. }
            | TileAaOp::JoinMemToken
            | TileAaOp::MarkForReuse => false,
        },
        OpKind::CudaTile(_) | OpKind::Unregistered(_) => false,
    }
}

impl<'m> BlockExec<'_, 'm, '_> {
    /// Executes one nv_tileaa op; returns `Some` for terminators.
    pub(super) fn exec_tileaa(&mut self, op: OpId, k: &'m TileAaOp) -> R<Option<Flow>> {
        let value = match k {
            TileAaOp::Return => return Ok(Some(Flow::Return(self.operand_values(op)?))),
            TileAaOp::CreateMemToken | TileAaOp::JoinMemToken => {
                self.operand_values(op)?;
                Value::Token
            }
            TileAaOp::MarkForReuse => {
                self.operand_values(op)?;
                self.tokens_from(op, 0)?;
                return Ok(None);
            }
            TileAaOp::GetProgramId { dim } | TileAaOp::GetNumPrograms { dim } => {
                let xyz = if matches!(k, TileAaOp::GetProgramId { .. }) {
                    self.block
                } else {
                    self.launch.grid
                };
                let v = *xyz.get(*dim as usize).ok_or_else(|| {
                    self.error(op, ErrorKind::InvalidIr, format!("invalid dim {dim}"))
                })?;
                let t = self.result_int(op)?;
                Value::Tile(Tile::scalar_int(t, v as i64))
            }
            TileAaOp::MakeMemref {
                num_dyn_sizes,
                num_dyn_strides,
                base_alignment,
            } => self.make_memref(
                op,
                *num_dyn_sizes as usize,
                *num_dyn_strides as usize,
                *base_alignment,
            )?,
            TileAaOp::TiledLoad(a) => return self.tiled_load(op, a),
            TileAaOp::TiledStore(a) => return self.tiled_store(op, a),
            TileAaOp::AddF(f) | TileAaOp::SubF(f) | TileAaOp::MulF(f) => {
                let which = match k {
                    TileAaOp::AddF(_) => FBin::Add,
                    TileAaOp::SubF(_) => FBin::Sub,
                    _ => FBin::Mul,
                };
                let r = arith::float_binary(
                    which,
                    self.operand_tile(op, 0)?,
                    self.operand_tile(op, 1)?,
                    f.rounding,
                    f.flush_to_zero,
                );
                Value::Tile(self.lift(op, r)?)
            }
            TileAaOp::GetGlobal { name } => {
                let addr = *self.launch.globals.get(name).ok_or_else(|| {
                    self.error(op, ErrorKind::InvalidIr, format!("no global named @{name}"))
                })?;
                let (shape, elem) = self.result_tile_type(op, 0)?;
                if !matches!(elem, TileElem::Ptr(_)) {
                    return Err(self.error(op, ErrorKind::InvalidIr, "result is not a pointer"));
                }
                Value::Tile(Tile {
                    data: Data::Ptr(vec![addr; shape.iter().product()]),
                    shape,
                    elem,
                })
            }
            TileAaOp::Func { .. } | TileAaOp::Global { .. } => {
                return Err(self.error(
                    op,
                    ErrorKind::InvalidIr,
                    "module-level op inside a kernel body",
                ))
            }
            TileAaOp::CreateQueue
            | TileAaOp::QueuePut
            | TileAaOp::QueueGet { .. }
            | TileAaOp::QueueYield
            | TileAaOp::Execute { .. } => return Err(self.not_routed_async(op)),
        };
        self.set_result(op, 0, value)?;
        Ok(None)
    }

    /// Executes one nv_tileas op (the async family excepted); returns `Some` for terminators.
    pub(super) fn exec_tileas(&mut self, op: OpId, k: &'m TileAsOp) -> R<Option<Flow>> {
        match k {
            // The vector width only says how wide the hardware accesses are.
            TileAsOp::TiledLoad { access, .. } => self.tiled_load(op, access),
            TileAsOp::TiledStore { access, .. } => self.tiled_store(op, access),
            TileAsOp::AllocTensor
            | TileAsOp::ConvertLayout { .. }
            | TileAsOp::View { .. }
            | TileAsOp::Copy { .. }
            | TileAsOp::Shuffle { .. } => self.exec_layout_op(op, k),
            TileAsOp::Reinterpret
            | TileAsOp::ExtractSlice { .. }
            | TileAsOp::InsertSlice { .. }
            | TileAsOp::ExpandDims { .. }
            | TileAsOp::Generate
            | TileAsOp::TiledAtomicRmw { .. }
            | TileAsOp::Load(_)
            | TileAsOp::Store(_)
            | TileAsOp::Dot(_) => self.exec_tile_structure(op, k),
            _ => Err(self.not_routed_async(op)),
        }
    }

    /// The error for an async op that reached a dialect executor instead of `exec_async_op`
    /// (cannot happen through `exec_op`).
    fn not_routed_async(&self, op: OpId) -> crate::InterpError {
        self.error(
            op,
            ErrorKind::InvalidIr,
            "async pipeline ops run through exec_async_op only",
        )
    }

    /// The integer element type of (scalar) result 0.
    fn result_int(&self, op: OpId) -> R<tileir_ir::NumType> {
        match self.result_tile_type(op, 0)?.1 {
            TileElem::Num(t) if t.is_int() => Ok(t),
            _ => Err(self.error(op, ErrorKind::InvalidIr, "result is not an integer")),
        }
    }

    /// Binds tokens to results `from..` of `op`.
    fn tokens_from(&mut self, op: OpId, from: usize) -> R<()> {
        for i in from..self.m().ops[op].results.len() {
            self.set_result(op, i, Value::Token)?;
        }
        Ok(())
    }

    /// `make_memref %base, sizes…, strides…`: operands base, dynamic sizes, dynamic strides.
    fn make_memref(
        &mut self,
        op: OpId,
        num_dyn_sizes: usize,
        num_dyn_strides: usize,
        alignment: u32,
    ) -> R<Value> {
        let Type::MemRef {
            elem,
            shape,
            strides,
            ..
        } = self.result_type(op, 0)?
        else {
            return Err(self.error(op, ErrorKind::InvalidIr, "result is not a memref"));
        };
        let n = self.m().ops[op].operands.len();
        let count = |dims: &[Dim]| dims.iter().filter(|d| matches!(d, Dim::Dynamic)).count();
        if n != 1 + num_dyn_sizes + num_dyn_strides
            || count(shape) != num_dyn_sizes
            || count(strides) != num_dyn_strides
            || shape.len() != strides.len()
        {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!(
                    "{n} operand(s) for {num_dyn_sizes} dynamic size(s) and {num_dyn_strides} dynamic stride(s) of {}",
                    self.m().types.display(self.m().value_type(self.m().ops[op].results[0]), true)
                ),
            ));
        }
        let base = match &self.operand_tile(op, 0)?.data {
            Data::Ptr(p) if p.len() == 1 => p[0],
            _ => return Err(self.error(op, ErrorKind::InvalidIr, "base is not a pointer")),
        };
        let read = |dims: &[Dim], first: usize| -> R<Vec<u64>> {
            let mut next = first;
            dims.iter()
                .map(|d| match d {
                    Dim::Static(v) => Ok(*v as u64),
                    Dim::Dynamic => {
                        let t = self.operand_int(op, next)?;
                        next += 1;
                        Ok(unsigned(t.num().bit_width(), t.ints()[0]))
                    }
                })
                .collect()
        };
        let sizes = read(shape, 1)?;
        let strides_v = read(strides, 1 + num_dyn_sizes)?;
        if is_sub_byte(*elem) {
            self.check_sub_byte_view(op, *elem, base, &sizes, &strides_v)?;
        }
        if self.launch.options.check_assumes && alignment > 1 && base % alignment as u64 != 0 {
            return Err(self.error(
                op,
                ErrorKind::AssumptionViolated,
                format!(
                    "assumption div_by<{alignment}> does not hold: the base address {base:#x} is not a multiple of {alignment}"
                ),
            ));
        }
        Ok(Value::MemRef(TensorView {
            base,
            elem: *elem,
            shape: sizes,
            strides: strides_v,
        }))
    }

    /// Where the tile of a `tiled_load` (operands: memref, coordinates…, token?) or
    /// `tiled_store` (memref, value, coordinates…, token?) lies.
    pub(super) fn tiled_view(&self, op: OpId, a: &TiledAccess, store: bool) -> R<ViewAccess> {
        let m = self.m();
        let ops = &m.ops[op].operands;
        let lead = if store { 2 } else { 1 };
        let n = a.num_indices as usize;
        let expected = lead + n + a.has_token as usize;
        if ops.len() != expected {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!("expects {expected} operands, has {}", ops.len()),
            ));
        }
        let mr = match self.get(op, ops[0])? {
            Value::MemRef(t) => t,
            other => {
                return Err(self.error(
                    op,
                    ErrorKind::InvalidIr,
                    format!("operand #0 must be a memref, got {}", kind_name(other)),
                ))
            }
        };
        let shape: Vec<usize> = if store {
            self.tile(op, ops[1])?.shape.clone()
        } else {
            self.result_tile_type(op, 0)?.0
        };
        let rank = mr.shape.len();
        if shape.len() != rank || n != rank {
            return Err(self.error(
                op,
                ErrorKind::InvalidIr,
                format!(
                    "a rank-{} tile through a rank-{rank} memref with {n} tile coordinate(s)",
                    shape.len()
                ),
            ));
        }
        let kind = match &a.origin_step {
            None => ViewKind::Partition,
            Some(s) if s.len() == rank && s.iter().all(|&x| x >= 1) => {
                ViewKind::Strided(s.iter().map(|&x| x as u64).collect())
            }
            Some(s) => {
                return Err(self.error(
                    op,
                    ErrorKind::InvalidIr,
                    format!("origin_step {s:?} must hold {rank} positive steps"),
                ))
            }
        };
        let view = TileView {
            tensor: mr.clone(),
            tile_shape: shape.iter().map(|&d| d as u64).collect(),
            dim_map: (0..rank).collect(),
            padding: if store { None } else { a.padding },
            kind,
        };
        let idx = ops[lead..lead + n]
            .iter()
            .map(|&v| self.tile(op, v))
            .collect::<R<Vec<_>>>()?;
        // The lowered accesses mask every element (the LLVM writer's code does), so a tile
        // wholly outside the memref reads padding / writes nothing, as a split tile's
        // ragged half may (dual-SIMT consumers).
        self.tile_access(op, &view, &idx, true)
    }

    pub(super) fn tiled_load(&mut self, op: OpId, a: &TiledAccess) -> R<Option<Flow>> {
        let acc = self.tiled_view(op, a, false)?;
        let tile = self.load_access(op, acc)?;
        self.set_result(op, 0, Value::Tile(tile))?;
        self.tokens_from(op, 1)?;
        Ok(None)
    }

    fn tiled_store(&mut self, op: OpId, a: &TiledAccess) -> R<Option<Flow>> {
        let acc = self.tiled_view(op, a, true)?;
        let value = self.m().ops[op].operands[1];
        self.store_access(op, acc, value)?;
        self.tokens_from(op, 0)?;
        Ok(None)
    }
}
