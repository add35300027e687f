//! The async pipeline, queue and TMA ops: nv_tileas `async.pipeline.*`, `create_none`,
//! `async.to_async` / `future_wait` / `wait` / `tiled_load`, `make_tiled_tma_desc`, the TMA
//! transfers; nv_tileaa `create_queue`, `queue.put` / `queue.get` /
//! `queue.yield` and `execute` (the set is `is_async_op` in lowered.rs).
//!
//! `BlockExec::exec_op` routes every one of them here and nowhere else. This module is a
//! child of `exec`, so it sees the block's private state and helpers.
//!
//! Semantics (the runtime itself is [`crate::agents`]):
//! - a pipeline is `S` stage buffers; `producer_acquire` waits until the stage at the
//!   iterator's position is free for its round, `producer_write` runs its region on the
//!   stage's previous entry and stores what it yields, `producer_commit` publishes it;
//!   `consumer_wait` waits until the round is committed, `consumer_read` runs its region on
//!   the entry, `consumer_release` frees the stage for the next round; `produce_one` /
//!   `consume_one` do all three in one region. A wait that can never be satisfied (every
//!   agent waiting, or a lone block waiting for itself) is a deadlock error naming each
//!   wait; reading a stage that was not waited for is an error too.
//! - an nv_tileaa queue is a pipeline whose positions are implicit: each agent keeps its
//!   own position per queue and role.
//! - `agent_switch` / `execute` run their regions as concurrent agents on threads, one at a
//!   time, the baton passing at pipeline operations per [`crate::RunOptions`]'s
//!   `agent_interleave` (run-until-blocked or seeded adversarial).
//! - asynchronous operations complete at once (`future_wait` / `wait` are no-ops).
//! - TMA descriptors are not modelled yet: those ops are `Unsupported` (shared-memory
//!   buffers are, in layout_ops.rs).

use super::{BlockExec, Flow, R};
use crate::agents::{AsyncError, AsyncWorld, MAIN};
use crate::launch::{ErrorKind, InterpError};
use crate::value::{AsyncValue, Tile, Value};
use std::sync::Arc;
use tileir_ir::{OpId, OpKind, TileAaOp, TileAsOp, TileElem, Type, TypeId};

impl BlockExec<'_, '_, '_> {
    fn world(&mut self) -> Arc<AsyncWorld<Value>> {
        if self.async_world.is_none() {
            self.async_world = Some(Arc::new(AsyncWorld::new(self.launch.options.agent_interleave)));
        }
        self.async_world.clone().expect("just created")
    }

    fn async_err(&self, op: OpId, e: AsyncError) -> InterpError {
        let kind = if e.0.starts_with("deadlock") { ErrorKind::Deadlock } else { ErrorKind::InvalidIr };
        self.error(op, kind, e.0)
    }

    fn async_operand(&self, op: OpId, i: usize) -> R<AsyncValue> {
        let v = *self.m().ops[op]
            .operands
            .get(i)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, format!("missing operand #{i}")))?;
        match self.get(op, v)? {
            Value::Async(a) => Ok(*a),
            other => Err(self.error(op, ErrorKind::InvalidIr, format!("operand #{i} must be an async pipeline value, got {}", super::kind_name(other)))),
        }
    }

    fn pipe_and_pos(&self, op: OpId) -> R<(usize, u64)> {
        let pipe = match self.async_operand(op, 0)? {
            AsyncValue::Pipeline(p) => p,
            _ => return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a pipeline")),
        };
        match self.async_operand(op, 1)? {
            AsyncValue::Iterator { pipe: p, pos } if p == pipe => Ok((pipe, pos)),
            AsyncValue::Iterator { .. } => Err(self.error(op, ErrorKind::InvalidIr, "the iterator belongs to another pipeline")),
            _ => Err(self.error(op, ErrorKind::InvalidIr, "operand #1 must be an iterator")),
        }
    }

    /// `file:line:col` of `op`, for wait reports.
    fn site(&self, op: OpId) -> String {
        let loc = self.m().op_location(op);
        let name = self.m().ops[op].kind.name();
        match loc.file_line_col() {
            Some((f, l, c)) => format!("'{name}' ({f}:{l}:{c})"),
            None => format!("'{name}'"),
        }
    }

    /// Zero values of `types` (what a never-written stage holds).
    fn zero_entry(&self, op: OpId, types: &[TypeId]) -> R<Vec<Value>> {
        let m = self.m();
        types
            .iter()
            .map(|&t| match m.types.get(t) {
                Type::Tile { shape, elem, .. } => {
                    let shape: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
                    let n: usize = shape.iter().product();
                    Ok(Value::Tile(Tile::from_bits(shape, *elem, std::iter::repeat_n(0, n))))
                }
                Type::Scalar(n) => Ok(Value::Tile(Tile::from_bits(vec![], TileElem::Num(*n), [0]))),
                other => Err(self.error(op, ErrorKind::Unsupported, format!("pipeline entries of type {other:?} are not modelled"))),
            })
            .collect()
    }

    /// Runs region `index` of `op` on `args`; what its terminator yields.
    fn run_region(&mut self, op: OpId, index: usize, args: Vec<Value>) -> R<Vec<Value>> {
        let block = self
            .m()
            .entry_block(op, index)
            .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, format!("region #{index} has no block")))?;
        match self.run_block(block, args)? {
            Flow::Yield(v) => Ok(v),
            _ => Err(self.error(op, ErrorKind::InvalidIr, "a pipeline region must end with a yield")),
        }
    }

    fn entry_types(&self, pipe_value_op: OpId) -> Vec<TypeId> {
        let m = self.m();
        let v = m.ops[pipe_value_op].operands[0];
        match m.types.get(m.value_type(v)) {
            Type::Pipeline { elems, .. } | Type::Queue { elems, .. } => elems.clone(),
            _ => Vec::new(),
        }
    }

    /// The entry of the stage at `pos` for a producer region (zeros if never written).
    fn previous_entry(&mut self, op: OpId, pipe: usize, pos: u64) -> R<Vec<Value>> {
        let world = self.world();
        match world.entry(pipe, pos).map_err(|e| self.async_err(op, e))? {
            Some(e) => Ok(e),
            None => {
                let types = self.entry_types(op);
                self.zero_entry(op, &types)
            }
        }
    }

    /// acquire, write (region `0` of `op` on the previous entry), commit.
    fn produce_at(&mut self, op: OpId, pipe: usize, pos: u64) -> R<()> {
        let world = self.world();
        let site = self.site(op);
        world.acquire(self.agent, pipe, pos, &site).map_err(|e| self.async_err(op, e))?;
        let old = self.previous_entry(op, pipe, pos)?;
        let entry = self.run_region(op, 0, old)?;
        world.write(pipe, pos, entry).map_err(|e| self.async_err(op, e))?;
        world.commit(pipe, pos).map_err(|e| self.async_err(op, e))
    }

    /// wait, read (region `0` of `op` on the entry), release; the region's results.
    fn consume_at(&mut self, op: OpId, pipe: usize, pos: u64, consumer: u32) -> R<Vec<Value>> {
        let world = self.world();
        let site = self.site(op);
        world.wait(self.agent, pipe, pos, consumer, &site).map_err(|e| self.async_err(op, e))?;
        let entry = world.read(pipe, pos, consumer).map_err(|e| self.async_err(op, e))?;
        let results = self.run_region(op, 0, entry)?;
        world.release(pipe, pos, consumer).map_err(|e| self.async_err(op, e))?;
        Ok(results)
    }

    fn set_results(&mut self, op: OpId, values: Vec<Value>) -> R<()> {
        for (i, v) in values.into_iter().enumerate() {
            self.set_result(op, i, v)?;
        }
        Ok(())
    }

    /// Executes one async pipeline / queue / TMA op; returns `Some` for terminators.
    pub(super) fn exec_async_op(&mut self, op: OpId) -> R<Option<Flow>> {
        let kind = self.m().ops[op].kind.clone();
        match &kind {
            OpKind::TileAs(k) => self.exec_tileas_async(op, k),
            OpKind::TileAa(k) => self.exec_queue_op(op, k),
            _ => Err(self.error(op, ErrorKind::InvalidIr, "not an async op")),
        }
    }

    fn exec_tileas_async(&mut self, op: OpId, k: &TileAsOp) -> R<Option<Flow>> {
        let m = self.m();
        match k {
            TileAsOp::CreatePipeline => {
                let Type::Pipeline { stages, consumers, .. } = m.types.get(m.value_type(m.ops[op].results[0])).clone() else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "result is not a pipeline"));
                };
                let h = self.world().create_pipeline(stages, consumers);
                self.set_result(op, 0, Value::Async(AsyncValue::Pipeline(h)))?;
            }
            TileAsOp::CreateIterator => {
                let AsyncValue::Pipeline(pipe) = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a pipeline"));
                };
                self.set_result(op, 0, Value::Async(AsyncValue::Iterator { pipe, pos: 0 }))?;
            }
            TileAsOp::IncIter => {
                let AsyncValue::Iterator { pipe, pos } = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be an iterator"));
                };
                self.set_result(op, 0, Value::Async(AsyncValue::Iterator { pipe, pos: pos + 1 }))?;
            }
            TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_) => {
                let (pipe, pos) = self.pipe_and_pos(op)?;
                self.produce_at(op, pipe, pos)?;
                if matches!(k, TileAsOp::ProduceOneAsync(_)) {
                    self.set_result(op, 0, Value::Async(AsyncValue::Done))?;
                }
            }
            TileAsOp::ConsumeOne { consumer_idx, .. } => {
                let (pipe, pos) = self.pipe_and_pos(op)?;
                let results = self.consume_at(op, pipe, pos, *consumer_idx)?;
                self.set_results(op, results)?;
            }
            TileAsOp::ProducerAcquire => {
                let (pipe, pos) = self.pipe_and_pos(op)?;
                let world = self.world();
                let site = self.site(op);
                world.acquire(self.agent, pipe, pos, &site).map_err(|e| self.async_err(op, e))?;
                self.set_result(op, 0, Value::Async(AsyncValue::ProducerToken { pipe, pos }))?;
            }
            TileAsOp::ProducerWrite => {
                let AsyncValue::ProducerToken { pipe, pos } = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a producer token"));
                };
                let old = self.previous_entry(op, pipe, pos)?;
                let entry = self.run_region(op, 0, old)?;
                self.world().write(pipe, pos, entry).map_err(|e| self.async_err(op, e))?;
                self.set_result(op, 0, Value::Async(AsyncValue::ProducerToken { pipe, pos }))?;
            }
            TileAsOp::ProducerCommit => {
                let AsyncValue::ProducerToken { pipe, pos } = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a producer token"));
                };
                self.world().commit(pipe, pos).map_err(|e| self.async_err(op, e))?;
            }
            TileAsOp::ConsumerWait { consumer_idx } => {
                let (pipe, pos) = self.pipe_and_pos(op)?;
                let world = self.world();
                let site = self.site(op);
                world.wait(self.agent, pipe, pos, *consumer_idx, &site).map_err(|e| self.async_err(op, e))?;
                self.set_result(op, 0, Value::Async(AsyncValue::ConsumerToken { pipe, pos, consumer: *consumer_idx }))?;
            }
            TileAsOp::ConsumerRead => {
                let AsyncValue::ConsumerToken { pipe, pos, consumer } = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a consumer token"));
                };
                let entry = self.world().read(pipe, pos, consumer).map_err(|e| self.async_err(op, e))?;
                let mut results = vec![Value::Async(AsyncValue::ConsumerToken { pipe, pos, consumer })];
                results.extend(self.run_region(op, 0, entry)?);
                self.set_results(op, results)?;
            }
            TileAsOp::ConsumerRelease => {
                let AsyncValue::ConsumerToken { pipe, pos, consumer } = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a consumer token"));
                };
                self.world().release(pipe, pos, consumer).map_err(|e| self.async_err(op, e))?;
            }
            TileAsOp::AgentSwitch { agents } => self.run_agents(op, agents.len())?,
            TileAsOp::PipelineYield => return Ok(Some(Flow::Yield(self.operand_values(op)?))),
            TileAsOp::CreateNone | TileAsOp::ToAsync => self.set_result(op, 0, Value::Async(AsyncValue::Done))?,
            // Asynchronous operations complete when issued.
            TileAsOp::FutureWait | TileAsOp::Wait => {}
            TileAsOp::AsyncTiledLoad(access) => {
                self.tiled_load(op, access)?;
                self.set_result(op, 1, Value::Async(AsyncValue::Done))?;
            }
            TileAsOp::MakeTiledTmaDesc { .. }
            | TileAsOp::AsyncTiledTmaLoad
            | TileAsOp::AsyncTiledTmaStore
            | TileAsOp::AsyncGatherTmaLoad
            | TileAsOp::AsyncScatterTmaStore => {
                let name = kind_text(&self.m().ops[op].kind);
                return Err(self.error(
                    op,
                    ErrorKind::Unsupported,
                    format!("the interpreter does not model shared-memory buffers or TMA descriptors yet ('{name}')"),
                ));
            }
            TileAsOp::TiledLoad { .. }
            | TileAsOp::TiledStore { .. }
            | TileAsOp::AllocTensor
            | TileAsOp::ConvertLayout { .. }
            | TileAsOp::View { .. }
            | TileAsOp::Copy { .. }
            | TileAsOp::Shuffle { .. }
            | TileAsOp::Reinterpret
            | TileAsOp::ExtractSlice { .. }
            | TileAsOp::InsertSlice { .. }
            | TileAsOp::ExpandDims { .. }
            | TileAsOp::Generate
            | TileAsOp::TiledAtomicRmw { .. }
            | TileAsOp::Load(_)
            | TileAsOp::Store(_)
            | TileAsOp::Dot(_) => {
                return Err(self.error(op, ErrorKind::InvalidIr, "not an async op"));
            }
        }
        Ok(None)
    }

    fn exec_queue_op(&mut self, op: OpId, k: &TileAaOp) -> R<Option<Flow>> {
        let m = self.m();
        match k {
            TileAaOp::CreateQueue => {
                let q = m.ops[op].results[0];
                let Type::Queue { depth, .. } = m.types.get(m.value_type(q)).clone() else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "result is not a queue"));
                };
                // The consumer group: every consumer index a get of this queue names.
                let consumers = 1 + m
                    .walk()
                    .into_iter()
                    .filter_map(|o| match m.ops[o].kind {
                        OpKind::TileAa(TileAaOp::QueueGet { consumer_idx }) if m.ops[o].operands.first() == Some(&q) => Some(consumer_idx),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0);
                let h = self.world().create_pipeline(depth, consumers);
                self.set_result(op, 0, Value::Async(AsyncValue::Pipeline(h)))?;
            }
            TileAaOp::QueuePut => {
                let AsyncValue::Pipeline(pipe) = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a queue"));
                };
                let pos = *self.queue_positions.entry((pipe, None)).or_insert(0);
                let world = self.world();
                let site = self.site(op);
                world.acquire(self.agent, pipe, pos, &site).map_err(|e| self.async_err(op, e))?;
                let entry = self.run_region(op, 0, Vec::new())?;
                world.write(pipe, pos, entry).map_err(|e| self.async_err(op, e))?;
                world.commit(pipe, pos).map_err(|e| self.async_err(op, e))?;
                self.queue_positions.insert((pipe, None), pos + 1);
            }
            TileAaOp::QueueGet { consumer_idx } => {
                let AsyncValue::Pipeline(pipe) = self.async_operand(op, 0)? else {
                    return Err(self.error(op, ErrorKind::InvalidIr, "operand #0 must be a queue"));
                };
                let key = (pipe, Some(*consumer_idx));
                let pos = *self.queue_positions.entry(key).or_insert(0);
                let results = self.consume_at(op, pipe, pos, *consumer_idx)?;
                self.queue_positions.insert(key, pos + 1);
                self.set_results(op, results)?;
            }
            TileAaOp::QueueYield => return Ok(Some(Flow::Yield(self.operand_values(op)?))),
            TileAaOp::Execute { agents } => self.run_agents(op, agents.len())?,
            _ => return Err(self.error(op, ErrorKind::InvalidIr, "not an async op")),
        }
        Ok(None)
    }

    /// Runs the regions of `op` as concurrent agents.
    fn run_agents(&mut self, op: OpId, n: usize) -> R<()> {
        if self.agent != MAIN {
            return Err(self.error(op, ErrorKind::Unsupported, "agents inside an agent are not supported"));
        }
        let world = self.world();
        self.with_agents(op, n, world)
    }
}

fn kind_text(k: &OpKind) -> String {
    k.name()
}

impl From<AsyncError> for InterpError {
    fn from(e: AsyncError) -> InterpError {
        let kind = if e.0.starts_with("deadlock") { ErrorKind::Deadlock } else { ErrorKind::InvalidIr };
        InterpError::new(kind, e.0)
    }
}

impl BlockExec<'_, '_, '_> {
    /// Runs region `i` of `op` as agent `i` on its own thread (one at a time, per the
    /// world's baton), each with a copy of the values defined so far and this block's
    /// memory behind a lock; their print output is appended in agent order.
    fn with_agents(&mut self, op: OpId, n: usize, world: Arc<AsyncWorld<Value>>) -> R<()> {
        let m = self.m();
        let mut blocks = Vec::with_capacity(n);
        for i in 0..n {
            let b = m
                .entry_block(op, i)
                .ok_or_else(|| self.error(op, ErrorKind::InvalidIr, format!("agent region #{i} has no block")))?;
            blocks.push(b);
        }
        let launch = self.launch;
        let env = self.env.clone();
        let tile_block = self.block;
        let results = {
            let shared: &mut (dyn crate::launch::SharedMemory + Send) = &mut self.mem;
            let lock: crate::launch::SharedMemLock<'_> = std::sync::Mutex::new(shared);
            let lock = &lock;
            world.run_agents(n, |i| -> R<(String, Vec<u64>)> {
                let mut agent = BlockExec::new(launch, tile_block, crate::launch::MemCtx::shared(lock));
                agent.env = env.clone();
                agent.async_world = Some(world.clone());
                agent.agent = i;
                match agent.run_block(blocks[i], Vec::new())? {
                    Flow::Yield(_) => {}
                    _ => return Err(agent.error(op, ErrorKind::InvalidIr, "an agent region must end with a yield")),
                }
                Ok((std::mem::take(&mut agent.output), std::mem::take(&mut agent.allocas)))
            })
        };
        let results = results.map_err(|mut e: InterpError| {
            if e.location.is_none() {
                e.location = Some(self.m().op_location(op));
                e.op = Some(self.m().ops[op].kind.name());
            }
            e.block = Some(self.block);
            e
        })?;
        for (out, allocas) in results {
            self.output.push_str(&out);
            self.allocas.extend(allocas);
        }
        Ok(())
    }
}
