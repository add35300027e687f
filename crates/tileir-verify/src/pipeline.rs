//! Rules of nv_tileaa's queues and nv_tileas's async pipelines, TMA and async memory ops.
//!
//! The twelve nv_tileas invariants (spec/000, "Verifier Invariants") are each enforced by
//! one check here, named in its comment (`I1` … `I12`). The schedulers that run after
//! these ops exist assume every one of them: a (stage, order) assignment computed on IR
//! that breaks one looks well-formed while describing an impossible pipeline.

use crate::{counts, Ctx};
use tileir_ir::{
    Dim, MemoryOrdering, NumType, OpId, OpKind, PaddingValue, TileAaOp, TileAsOp, TileElem, TiledAccess, TmaKind,
    Type, TypeId, ValueId,
};

/// Hardware limit of a TMA box dimension (elements), PTX ISA `cp.async.bulk.tensor`.
const TMA_MAX_BOX_DIM: i64 = 256;
/// TMA transfers move whole 16-byte chunks of the innermost dimension.
const TMA_INNER_BYTES_MULTIPLE: i64 = 16;

fn ty<'a>(cx: &'a Ctx<'_>, v: ValueId) -> &'a Type {
    cx.m.types.get(cx.m.value_type(v))
}

fn types_text(cx: &Ctx<'_>, ts: &[TypeId]) -> String {
    let parts: Vec<String> = ts.iter().map(|&t| cx.m.types.display(t, true)).collect();
    format!("({})", parts.join(", "))
}

/// The pipeline behind a pipeline value: (stages, consumers, entry types).
fn pipeline_of(cx: &Ctx<'_>, v: ValueId) -> Option<(u32, u32, Vec<TypeId>)> {
    match ty(cx, v) {
        Type::Pipeline { stages, consumers, elems } => Some((*stages, *consumers, elems.clone())),
        _ => None,
    }
}

/// Checks that operand `pipe` is a pipeline and `iter` an iterator over exactly its type.
fn pipe_and_iter(cx: &mut Ctx<'_>, op: OpId, pipe: ValueId, iter: ValueId) -> Option<(u32, u32, Vec<TypeId>)> {
    let Some(p) = pipeline_of(cx, pipe) else {
        cx.op_error(op, format!("operand #0 must be an !nv_tileas.pipeline, got {}", cx.vty(pipe)));
        return None;
    };
    match ty(cx, iter) {
        Type::PipelineIterator { pipeline } if *pipeline == cx.m.value_type(pipe) => Some(p),
        Type::PipelineIterator { pipeline } => {
            cx.op_error(
                op,
                format!(
                    "iterator indexes {} but the pipeline operand is {}",
                    cx.m.types.display(*pipeline, true),
                    cx.vty(pipe)
                ),
            );
            None
        }
        _ => {
            cx.op_error(op, format!("operand #1 must be an !nv_tileas.iterator, got {}", cx.vty(iter)));
            None
        }
    }
}

/// The entry types a producer or consumer token carries.
fn token_elems(cx: &Ctx<'_>, v: ValueId, producer: bool) -> Option<Vec<TypeId>> {
    match (ty(cx, v), producer) {
        (Type::ProducerToken { elems }, true) | (Type::ConsumerToken { elems }, false) => Some(elems.clone()),
        _ => None,
    }
}

/// The single block of region `index`, its argument types and its terminator (if any).
struct RegionShape {
    args: Vec<TypeId>,
    terminator: Option<OpId>,
}

fn region_shape(cx: &Ctx<'_>, op: OpId, index: usize) -> Option<RegionShape> {
    let m = cx.m;
    let block = m.entry_block(op, index)?;
    let args = m.blocks[block].args.iter().map(|&a| m.value_type(a)).collect();
    let terminator = m.blocks[block].ops.last().copied();
    Some(RegionShape { args, terminator })
}

/// I1/I4: region `index` ends with `terminator_name` whose operand types are `want`
/// (`what` names the region in messages). Returns false on a mismatch.
fn check_yield(
    cx: &mut Ctx<'_>,
    op: OpId,
    index: usize,
    is_terminator: fn(&OpKind) -> bool,
    terminator_name: &str,
    want: &[TypeId],
    what: &str,
) -> bool {
    let m = cx.m;
    let Some(shape) = region_shape(cx, op, index) else {
        cx.op_error(op, format!("region #{index} must have one block"));
        return false;
    };
    let Some(t) = shape.terminator.filter(|&t| is_terminator(&m.ops[t].kind)) else {
        let found = shape.terminator.map(|t| format!("'{}'", m.ops[t].kind.name())).unwrap_or_else(|| "an empty block".into());
        cx.op_error(op, format!("region #{index} must end with {terminator_name}, found {found}"));
        return false;
    };
    let got: Vec<TypeId> = m.ops[t].operands.iter().map(|&v| m.value_type(v)).collect();
    if got != want {
        cx.op_error(
            op,
            format!("{what} types must match: region #{index} yields {} but {} is expected", types_text(cx, &got), types_text(cx, want)),
        );
        return false;
    }
    true
}

fn is_pipeline_yield(k: &OpKind) -> bool {
    matches!(k, OpKind::TileAs(TileAsOp::PipelineYield))
}

fn is_queue_yield(k: &OpKind) -> bool {
    matches!(k, OpKind::TileAa(TileAaOp::QueueYield))
}

/// I2/I3: the region's block arguments are the entry a stage (or token) carries.
fn check_region_args(cx: &mut Ctx<'_>, op: OpId, index: usize, want: &[TypeId], role: &str, carrier: &str) -> bool {
    let Some(shape) = region_shape(cx, op, index) else {
        cx.op_error(op, format!("region #{index} must have one block"));
        return false;
    };
    if shape.args != want {
        cx.op_error(
            op,
            format!(
                "{role} region argument types {} must match the element types carried by the {carrier} {}",
                types_text(cx, &shape.args),
                types_text(cx, want)
            ),
        );
        return false;
    }
    true
}

fn result_is(cx: &mut Ctx<'_>, op: OpId, index: usize, ok: bool, want: &str) {
    let r = cx.m.ops[op].results[index];
    if !ok {
        cx.op_error(op, format!("result #{index} must be {want}, got {}", cx.vty(r)));
    }
}

/// I5: `consumer_idx` names a consumer of the pipeline's group.
fn check_consumer_idx(cx: &mut Ctx<'_>, op: OpId, consumer_idx: u32, consumers: u32) {
    if consumer_idx >= consumers {
        cx.op_error(
            op,
            format!(
                "consumer_idx {consumer_idx} does not identify a consumer of a pipeline with {consumers} consumer(s) (valid: 0 to {})",
                consumers - 1
            ),
        );
    }
}

/// Agent regions take no arguments and end with an operand-less yield.
fn check_agents(cx: &mut Ctx<'_>, op: OpId, agents: &[tileir_ir::dialect::tileas::AgentSpec], lowered: bool) {
    counts(cx, op, 0, 0);
    if agents.is_empty() {
        cx.op_error(op, "needs at least one agent region");
    }
    let warps: u32 = agents.iter().map(|a| a.num_warps).sum();
    if warps > 32 {
        cx.op_error(op, format!("agents need {warps} warps in total; a CTA has at most 32"));
    }
    for i in 0..agents.len() {
        let (is_t, name): (fn(&OpKind) -> bool, &str) = if lowered {
            (is_pipeline_yield, "nv_tileas.async.pipeline.yield")
        } else {
            (is_queue_yield, "nv_tileaa.queue.yield")
        };
        if check_region_args(cx, op, i, &[], "agent", "agent (none)") {
            check_yield(cx, op, i, is_t, name, &[], "agent yield");
        }
    }
}

/// I11: special padding values (anything but zero) only for floating-point elements.
fn check_padding(cx: &mut Ctx<'_>, op: OpId, padding: Option<PaddingValue>, elem: NumType) {
    if let Some(p) = padding {
        if p != PaddingValue::Zero && !elem.is_float() {
            cx.op_error(
                op,
                format!("special padding value '{}' is only valid for floating-point element types, got {elem}", p.keyword()),
            );
        }
    }
}

/// I12: an access with acquire, release or stronger semantics is pinned by a token edge so
/// that no rewrite may move it across its synchronization boundary.
fn check_ordered_by_token(cx: &mut Ctx<'_>, op: OpId, a: &TiledAccess) {
    if !matches!(a.ordering, MemoryOrdering::Weak | MemoryOrdering::Relaxed) && !a.has_token {
        cx.op_error(
            op,
            format!(
                "memory operation with '{}' semantics must take a token operand: it may not be reordered across its synchronization boundary",
                a.ordering
            ),
        );
    }
}

/// Padding and ordering rules every tiled load shares (nv_tileaa, nv_tileas, async).
pub(crate) fn check_tiled_load_rules(cx: &mut Ctx<'_>, op: OpId, a: &TiledAccess) {
    let memref = cx.m.ops[op].operands[0];
    if let Type::MemRef { elem, .. } = ty(cx, memref).clone() {
        check_padding(cx, op, a.padding, elem);
    }
    check_ordered_by_token(cx, op, a);
}

pub(crate) fn verify_aa(cx: &mut Ctx<'_>, op: OpId, kind: &TileAaOp) {
    let m = cx.m;
    let d = m.ops[op].clone();
    match kind {
        TileAaOp::JoinMemToken => {
            if d.operands.is_empty() {
                cx.op_error(op, "needs at least one token to join");
            }
            for (i, &v) in d.operands.iter().enumerate() {
                if !matches!(ty(cx, v), Type::MemToken) {
                    cx.op_error(op, format!("operand #{i} must be !nv_tileaa.mem_token, got {}", cx.vty(v)));
                }
            }
            if d.results.len() != 1 || !matches!(ty(cx, d.results[0]), Type::MemToken) {
                cx.op_error(op, "must have one !nv_tileaa.mem_token result");
            }
        }
        TileAaOp::MarkForReuse => {
            if d.operands.is_empty() {
                cx.op_error(op, "needs at least one value");
            }
            if !d.results.is_empty() {
                cx.op_error(op, format!("expects 0 result(s), got {}", d.results.len()));
            }
        }
        TileAaOp::CreateQueue if counts(cx, op, 0, 1) => {
            let ok = matches!(ty(cx, d.results[0]), Type::Queue { .. });
            result_is(cx, op, 0, ok, "an !nv_tileaa.queue");
        }
        TileAaOp::QueuePut => {
            if !counts(cx, op, 1, 0) {
                return;
            }
            let Type::Queue { elems, .. } = ty(cx, d.operands[0]).clone() else {
                cx.op_error(op, format!("operand #0 must be an !nv_tileaa.queue, got {}", cx.vty(d.operands[0])));
                return;
            };
            if check_region_args(cx, op, 0, &[], "producer", "put (none)") {
                check_yield(cx, op, 0, is_queue_yield, "nv_tileaa.queue.yield", &elems, "queue entry");
            }
        }
        TileAaOp::QueueGet { .. } => {
            if d.operands.len() != 1 {
                cx.op_error(op, format!("expects 1 operand(s), got {}", d.operands.len()));
                return;
            }
            let Type::Queue { elems, .. } = ty(cx, d.operands[0]).clone() else {
                cx.op_error(op, format!("operand #0 must be an !nv_tileaa.queue, got {}", cx.vty(d.operands[0])));
                return;
            };
            let results: Vec<TypeId> = d.results.iter().map(|&r| m.value_type(r)).collect();
            if check_region_args(cx, op, 0, &elems, "consumer", "queue") {
                check_yield(cx, op, 0, is_queue_yield, "nv_tileaa.queue.yield", &results, "region result and op result");
            }
        }
        TileAaOp::QueueYield => {
            let parent = d.parent.and_then(|b| m.parent_op_of_block(b)).map(|p| &m.ops[p].kind);
            if !matches!(parent, Some(OpKind::TileAa(TileAaOp::QueuePut | TileAaOp::QueueGet { .. } | TileAaOp::Execute { .. }))) {
                cx.op_error(op, "must terminate an nv_tileaa.queue.put, queue.get or execute region");
            }
        }
        TileAaOp::Execute { agents } => check_agents(cx, op, agents, false),
        _ => {}
    }
}

pub(crate) fn verify_as(cx: &mut Ctx<'_>, op: OpId, kind: &TileAsOp) {
    let m = cx.m;
    let d = m.ops[op].clone();
    match kind {
        TileAsOp::TiledLoad { .. } | TileAsOp::TiledStore { .. } => {}
        TileAsOp::CreatePipeline => {
            if counts(cx, op, 0, 1) {
                let ok = pipeline_of(cx, d.results[0]).is_some();
                result_is(cx, op, 0, ok, "an !nv_tileas.pipeline");
            }
        }
        TileAsOp::CreateIterator => {
            if counts(cx, op, 1, 1) {
                if pipeline_of(cx, d.operands[0]).is_none() {
                    cx.op_error(op, format!("operand #0 must be an !nv_tileas.pipeline, got {}", cx.vty(d.operands[0])));
                    return;
                }
                let want = m.value_type(d.operands[0]);
                let ok = matches!(ty(cx, d.results[0]), Type::PipelineIterator { pipeline } if *pipeline == want);
                let text = format!("!nv_tileas.iterator<{}>", cx.vty(d.operands[0]));
                result_is(cx, op, 0, ok, &text);
            }
        }
        TileAsOp::IncIter => {
            if counts(cx, op, 1, 1) {
                if !matches!(ty(cx, d.operands[0]), Type::PipelineIterator { .. }) {
                    cx.op_error(op, format!("operand #0 must be an !nv_tileas.iterator, got {}", cx.vty(d.operands[0])));
                } else if m.value_type(d.results[0]) != m.value_type(d.operands[0]) {
                    cx.op_error(
                        op,
                        format!("result type {} must equal the operand's iterator type {}", cx.vty(d.results[0]), cx.vty(d.operands[0])),
                    );
                }
            }
        }
        TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_) => {
            let is_async = matches!(kind, TileAsOp::ProduceOneAsync(_));
            if !counts(cx, op, 2, is_async as usize) {
                return;
            }
            let Some((_, _, elems)) = pipe_and_iter(cx, op, d.operands[0], d.operands[1]) else { return };
            if is_async {
                let ok = matches!(ty(cx, d.results[0]), Type::AsyncToken);
                result_is(cx, op, 0, ok, "!nv_tileas.async.token");
            }
            if check_region_args(cx, op, 0, &elems, "producer", "producer token") {
                check_yield(cx, op, 0, is_pipeline_yield, "nv_tileas.async.pipeline.yield", &elems, "stage entry");
            }
        }
        TileAsOp::ConsumeOne { consumer_idx, .. } => {
            if d.operands.len() != 2 {
                cx.op_error(op, format!("expects 2 operand(s), got {}", d.operands.len()));
                return;
            }
            let Some((_, consumers, elems)) = pipe_and_iter(cx, op, d.operands[0], d.operands[1]) else { return };
            check_consumer_idx(cx, op, *consumer_idx, consumers);
            let results: Vec<TypeId> = d.results.iter().map(|&r| m.value_type(r)).collect();
            if check_region_args(cx, op, 0, &elems, "consumer", "consumer token") {
                check_yield(cx, op, 0, is_pipeline_yield, "nv_tileas.async.pipeline.yield", &results, "region result and op result");
            }
        }
        TileAsOp::ProducerAcquire => {
            if counts(cx, op, 2, 1) {
                if let Some((_, _, elems)) = pipe_and_iter(cx, op, d.operands[0], d.operands[1]) {
                    let ok = token_elems(cx, d.results[0], true).as_deref() == Some(&elems[..]);
                    let want = format!("!nv_tileas.producer_token<{}>", types_text(cx, &elems).trim_matches(['(', ')']));
                    result_is(cx, op, 0, ok, &want);
                }
            }
        }
        TileAsOp::ConsumerWait { consumer_idx } => {
            if counts(cx, op, 2, 1) {
                if let Some((_, consumers, elems)) = pipe_and_iter(cx, op, d.operands[0], d.operands[1]) {
                    check_consumer_idx(cx, op, *consumer_idx, consumers);
                    let ok = token_elems(cx, d.results[0], false).as_deref() == Some(&elems[..]);
                    let want = format!("!nv_tileas.consumer_token<{}>", types_text(cx, &elems).trim_matches(['(', ')']));
                    result_is(cx, op, 0, ok, &want);
                }
            }
        }
        TileAsOp::ProducerWrite | TileAsOp::ConsumerRead => {
            let producer = matches!(kind, TileAsOp::ProducerWrite);
            if d.operands.len() != 2 || d.results.is_empty() {
                cx.op_error(op, format!("expects 2 operands (token, iterator) and a token result, got {} and {}", d.operands.len(), d.results.len()));
                return;
            }
            let role = if producer { "producer" } else { "consumer" };
            let Some(elems) = token_elems(cx, d.operands[0], producer) else {
                cx.op_error(op, format!("operand #0 must be an !nv_tileas.{role}_token, got {}", cx.vty(d.operands[0])));
                return;
            };
            if !matches!(ty(cx, d.operands[1]), Type::PipelineIterator { .. }) {
                cx.op_error(op, format!("operand #1 must be an !nv_tileas.iterator, got {}", cx.vty(d.operands[1])));
                return;
            }
            if m.value_type(d.results[0]) != m.value_type(d.operands[0]) {
                cx.op_error(op, format!("result #0 must have the token operand's type {}, got {}", cx.vty(d.operands[0]), cx.vty(d.results[0])));
                return;
            }
            if !check_region_args(cx, op, 0, &elems, role, &format!("{role} token")) {
                return;
            }
            if producer {
                if d.results.len() != 1 {
                    cx.op_error(op, format!("expects 1 result(s), got {}", d.results.len()));
                    return;
                }
                check_yield(cx, op, 0, is_pipeline_yield, "nv_tileas.async.pipeline.yield", &elems, "stage entry");
            } else {
                let results: Vec<TypeId> = d.results[1..].iter().map(|&r| m.value_type(r)).collect();
                check_yield(cx, op, 0, is_pipeline_yield, "nv_tileas.async.pipeline.yield", &results, "region result and op result");
            }
        }
        TileAsOp::ProducerCommit | TileAsOp::ConsumerRelease => {
            let producer = matches!(kind, TileAsOp::ProducerCommit);
            if counts(cx, op, 1, 0) && token_elems(cx, d.operands[0], producer).is_none() {
                let role = if producer { "producer" } else { "consumer" };
                cx.op_error(op, format!("operand #0 must be an !nv_tileas.{role}_token, got {}", cx.vty(d.operands[0])));
            }
        }
        TileAsOp::AgentSwitch { agents } => check_agents(cx, op, agents, true),
        TileAsOp::PipelineYield => {
            let parent = d.parent.and_then(|b| m.parent_op_of_block(b)).map(|p| &m.ops[p].kind);
            let ok = matches!(parent, Some(OpKind::TileAs(k)) if k.is_stage_region() || matches!(k, TileAsOp::AgentSwitch { .. }));
            if !ok {
                cx.op_error(
                    op,
                    "must terminate a pipeline region (produce_one, produce_one_async, consume_one, producer_write, consumer_read or agent_switch)",
                );
            }
        }
        TileAsOp::CreateNone => {
            if counts(cx, op, 0, 1) {
                let ok = matches!(ty(cx, d.results[0]), Type::AsyncToken);
                result_is(cx, op, 0, ok, "!nv_tileas.async.token");
            }
        }
        TileAsOp::ToAsync => {
            if counts(cx, op, 1, 1) {
                let ok = matches!(ty(cx, d.results[0]), Type::AsyncToken);
                result_is(cx, op, 0, ok, "!nv_tileas.async.token");
            }
        }
        TileAsOp::FutureWait | TileAsOp::Wait => {
            if d.operands.is_empty() {
                cx.op_error(op, "needs at least one !nv_tileas.async.token");
            }
            for (i, &v) in d.operands.iter().enumerate() {
                if !matches!(ty(cx, v), Type::AsyncToken) {
                    cx.op_error(op, format!("operand #{i} must be !nv_tileas.async.token, got {}", cx.vty(v)));
                }
            }
            if !d.results.is_empty() {
                cx.op_error(op, format!("expects 0 result(s), got {}", d.results.len()));
            }
        }
        TileAsOp::AsyncTiledLoad(a) => verify_async_tiled_load(cx, op, a),
        TileAsOp::MakeTiledTmaDesc { atom, box_shape } => verify_make_tma_desc(cx, op, *atom, box_shape),
        TileAsOp::AsyncTiledTmaLoad | TileAsOp::AsyncTiledTmaStore => {
            let want = if matches!(kind, TileAsOp::AsyncTiledTmaLoad) { TmaKind::Load } else { TmaKind::Store };
            verify_tma_transfer(cx, op, want, false);
        }
        TileAsOp::AsyncGatherTmaLoad | TileAsOp::AsyncScatterTmaStore => {
            let want = if matches!(kind, TileAsOp::AsyncGatherTmaLoad) { TmaKind::Load } else { TmaKind::Store };
            verify_tma_transfer(cx, op, want, true);
        }
        TileAsOp::AllocTensor => {
            if counts(cx, op, 0, 1) {
                let ok = matches!(ty(cx, d.results[0]), Type::SmemTile { .. });
                result_is(cx, op, 0, ok, "an !nv_tileas.smem buffer");
            }
        }
        TileAsOp::ConvertLayout { .. } | TileAsOp::View { .. } | TileAsOp::Copy { .. } | TileAsOp::Shuffle { .. } => {
            crate::layout_ops::verify(cx, op, kind)
        }
        TileAsOp::Reinterpret
        | TileAsOp::ExtractSlice { .. }
        | TileAsOp::InsertSlice { .. }
        | TileAsOp::ExpandDims { .. }
        | TileAsOp::Generate
        | TileAsOp::TiledAtomicRmw { .. }
        | TileAsOp::Load(_)
        | TileAsOp::Store(_)
        | TileAsOp::Dot(_) => crate::tile_structure::verify(cx, op, kind),
    }
}

fn verify_async_tiled_load(cx: &mut Ctx<'_>, op: OpId, a: &TiledAccess) {
    let m = cx.m;
    let d = m.ops[op].clone();
    if !counts(cx, op, 1 + a.num_indices as usize + a.has_token as usize, 2) {
        return;
    }
    crate::cuda_tile::verify_access_ordering(cx, op, a.ordering, a.scope.is_some(), true);
    let Type::MemRef { elem, shape, .. } = ty(cx, d.operands[0]).clone() else {
        cx.op_error(op, format!("operand #0 must be a memref, got {}", cx.vty(d.operands[0])));
        return;
    };
    if a.num_indices as usize != shape.len() {
        cx.op_error(op, format!("expects {} tile coordinate(s) (the memref rank), got {}", shape.len(), a.num_indices));
    }
    if a.has_token && !matches!(ty(cx, *d.operands.last().expect("counted")), Type::MemToken) {
        cx.op_error(op, format!("token operand must be !nv_tileaa.mem_token, got {}", cx.vty(*d.operands.last().expect("counted"))));
    }
    match ty(cx, d.results[0]) {
        Type::Tile { shape: s, elem: TileElem::Num(e), layout } if *e == elem && s.len() == shape.len() => {
            if layout.is_none() {
                cx.op_error(op, format!("tile {} needs a layout in nv_tileas", cx.vty(d.results[0])));
            }
        }
        _ => cx.op_error(op, format!("result #0 {} does not fit memref {}", cx.vty(d.results[0]), cx.vty(d.operands[0]))),
    }
    let ok = matches!(ty(cx, d.results[1]), Type::AsyncToken);
    result_is(cx, op, 1, ok, "!nv_tileas.async.token");
    check_tiled_load_rules(cx, op, a);
}

fn verify_make_tma_desc(cx: &mut Ctx<'_>, op: OpId, atom: TmaKind, box_shape: &[i64]) {
    let d = cx.m.ops[op].clone();
    if !counts(cx, op, 1, 1) {
        return;
    }
    let Type::MemRef { elem, shape, strides, addr_space } = ty(cx, d.operands[0]).clone() else {
        cx.op_error(op, format!("operand #0 must be a memref, got {}", cx.vty(d.operands[0])));
        return;
    };
    if addr_space != 1 {
        cx.op_error(op, format!("TMA reads and writes global memory (address space 1), got address space {addr_space}"));
    }
    // I8: the descriptor's box is the atom's box.
    if box_shape.len() != shape.len() {
        cx.op_error(
            op,
            format!("TMA box rank {} does not match the memref rank {} ({})", box_shape.len(), shape.len(), cx.vty(d.operands[0])),
        );
    }
    if box_shape.len() > 5 {
        cx.op_error(op, format!("TMA boxes have at most 5 dimensions, got {}", box_shape.len()));
    }
    for (i, &b) in box_shape.iter().enumerate() {
        if !(1..=TMA_MAX_BOX_DIM).contains(&b) {
            cx.op_error(op, format!("TMA box dimension #{i} is {b}; the hardware range is 1 to {TMA_MAX_BOX_DIM}"));
        }
    }
    if let Some(&inner) = box_shape.last() {
        let bytes = inner * elem.bit_width() as i64 / 8;
        if bytes % TMA_INNER_BYTES_MULTIPLE != 0 {
            cx.op_error(
                op,
                format!("TMA box inner dimension is {inner} x {elem} = {bytes} bytes; it must be a multiple of {TMA_INNER_BYTES_MULTIPLE} bytes"),
            );
        }
    }
    // I9: TMA walks the innermost dimension contiguously.
    match strides.last() {
        Some(Dim::Static(1)) | None => {}
        Some(other) => cx.op_error(op, format!("TMA element stride must be one: the innermost stride of the memref is {other}")),
    }
    match ty(cx, d.results[0]).clone() {
        Type::TmaDesc { kind, box_shape: tb, elem: te } => {
            if kind != atom {
                cx.op_error(op, format!("result descriptor is for {} but the atom is {}", kind.keyword(), atom.keyword()));
            }
            if tb != box_shape {
                cx.op_error(
                    op,
                    format!("TMA box dimensions {:?} of the result do not match the atom's box dimensions {box_shape:?}", tb),
                );
            }
            if te != elem {
                cx.op_error(op, format!("result descriptor element type {te} does not match the memref element type {elem}"));
            }
        }
        _ => cx.op_error(op, format!("result #0 must be an !nv_tileas.tma_desc, got {}", cx.vty(d.results[0]))),
    }
}

/// `async.tiled_tma_load/store %desc, %smem, coords…` and the gather/scatter forms
/// `%desc, %smem, %rows, %col`.
fn verify_tma_transfer(cx: &mut Ctx<'_>, op: OpId, want: TmaKind, indexed: bool) {
    let m = cx.m;
    let d = m.ops[op].clone();
    if d.operands.len() < 2 || d.results.len() != 1 {
        cx.op_error(op, format!("expects a descriptor, a shared-memory buffer and coordinates, and one async token result; got {} operand(s), {} result(s)", d.operands.len(), d.results.len()));
        return;
    }
    let ok = matches!(ty(cx, d.results[0]), Type::AsyncToken);
    result_is(cx, op, 0, ok, "!nv_tileas.async.token");
    let Type::TmaDesc { kind, box_shape, elem } = ty(cx, d.operands[0]).clone() else {
        cx.op_error(op, format!("operand #0 must be an !nv_tileas.tma_desc, got {}", cx.vty(d.operands[0])));
        return;
    };
    // I7: loads use load atoms, stores store atoms.
    if kind != want {
        cx.op_error(op, format!("needs a descriptor built for the {} atom, got one for {}", want.keyword(), kind.keyword()));
    }
    let Type::SmemTile { shape, elem: se, swizzle } = ty(cx, d.operands[1]).clone() else {
        cx.op_error(op, format!("operand #1 must be an !nv_tileas.smem buffer, got {}", cx.vty(d.operands[1])));
        return;
    };
    if se != elem {
        cx.op_error(op, format!("shared-memory element type {se} does not match the descriptor's {elem}"));
    }
    let coords = &d.operands[2..];
    if indexed {
        // One TMA row (box[0] == 1) per entry of a 1-D row-index tile, then one column.
        if box_shape.len() != 2 || box_shape[0] != 1 {
            cx.op_error(op, format!("gather/scatter TMA needs a rank-2 descriptor with a box of one row, got box {box_shape:?}"));
        }
        if coords.len() != 2 {
            cx.op_error(op, format!("expects a row-index tile and a column coordinate, got {} operand(s)", coords.len()));
            return;
        }
        let rows = match ty(cx, coords[0]) {
            Type::Tile { shape: s, elem: TileElem::Num(NumType::I32), .. } if s.len() == 1 => s[0],
            _ => {
                cx.op_error(op, format!("row indices must be a 1-D tile of i32, got {}", cx.vty(coords[0])));
                return;
            }
        };
        if shape.len() != 2 || shape[0] != rows || box_shape.get(1) != shape.get(1) {
            cx.op_error(op, format!("shared-memory buffer {} must hold {rows} rows of the box width {:?}", cx.vty(d.operands[1]), box_shape.get(1)));
        }
        if !matches!(ty(cx, coords[1]), Type::Scalar(n) if n.is_int()) {
            cx.op_error(op, format!("column coordinate must be a scalar integer, got {}", cx.vty(coords[1])));
        }
    } else {
        if coords.len() != box_shape.len() {
            cx.op_error(op, format!("expects {} coordinate(s) (the box rank), got {}", box_shape.len(), coords.len()));
        }
        for &c in coords {
            if !matches!(ty(cx, c), Type::Scalar(n) if n.is_int()) {
                cx.op_error(op, format!("coordinates must be scalar integers, got {}", cx.vty(c)));
            }
        }
        if shape != box_shape {
            cx.op_error(op, format!("shared-memory buffer {} does not have the box shape {box_shape:?}", cx.vty(d.operands[1])));
        }
    }
    // I10: the swizzle TMA applies must be one the buffer's layout can hold: with a swizzle
    // span S, one box row (innermost dimension) may not exceed S bytes.
    if let Some(&inner) = shape.last() {
        let row_bytes = inner * se.bit_width() as i64 / 8;
        if swizzle != 0 && row_bytes > swizzle as i64 {
            cx.op_error(
                op,
                format!(
                    "shared-memory layout {} is not TMA-compatible: a {row_bytes}-byte row exceeds the {swizzle}-byte swizzle span",
                    cx.vty(d.operands[1])
                ),
            );
        }
        if row_bytes % TMA_INNER_BYTES_MULTIPLE != 0 {
            cx.op_error(
                op,
                format!(
                    "shared-memory layout {} is not TMA-compatible: rows of {row_bytes} bytes are not a multiple of {TMA_INNER_BYTES_MULTIPLE}",
                    cx.vty(d.operands[1])
                ),
            );
        }
    }
}

/// I6 and loop agreement: a pipeline iterator carried through structured control flow keeps
/// one type. `if` arms must yield the same iterator type; a loop's yielded iterator must
/// have the type of its iter value. (Residual cuda_tile control flow inside lowered
/// functions skips cuda_tile's own type rules, so this check is the one that applies.)
pub(crate) fn verify_iterator_agreement(cx: &mut Ctx<'_>, op: OpId) {
    let m = cx.m;
    let d = &m.ops[op];
    let Some(ct) = d.kind.ct() else { return };
    let yields = |region: usize| -> Option<Vec<ValueId>> {
        let b = m.entry_block(op, region)?;
        let t = *m.blocks[b].ops.last()?;
        Some(m.ops[t].operands.clone())
    };
    let is_iter = |v: ValueId| matches!(m.types.get(m.value_type(v)), Type::PipelineIterator { .. });
    match ct {
        tileir_ir::CtOp::If if d.regions.len() == 2 => {
            let (Some(a), Some(b)) = (yields(0), yields(1)) else { return };
            for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
                if (is_iter(x) || is_iter(y)) && m.value_type(x) != m.value_type(y) {
                    cx.op_error(
                        op,
                        format!(
                            "pipeline iterator values yielded from both arms of a branch must have the same type: result #{i} is {} in the then-arm and {} in the else-arm",
                            cx.vty(x),
                            cx.vty(y)
                        ),
                    );
                }
            }
        }
        tileir_ir::CtOp::For | tileir_ir::CtOp::Loop => {
            let Some(b) = m.entry_block(op, 0) else { return };
            let args = &m.blocks[b].args;
            // `for` has the induction variable first.
            let carried = if ct == tileir_ir::CtOp::For { args.get(1..).unwrap_or(&[]) } else { &args[..] };
            let Some(&last) = m.blocks[b].ops.last() else { return };
            if m.ops[last].kind.ct() == Some(tileir_ir::CtOp::Continue) {
                for (i, (&arg, &y)) in carried.iter().zip(&m.ops[last].operands).enumerate() {
                    if (is_iter(arg) || is_iter(y)) && m.value_type(arg) != m.value_type(y) {
                        cx.op_error(
                            op,
                            format!(
                                "loop-carried pipeline iterator #{i} must keep its type: the iter value is {} but the body yields {}",
                                cx.vty(arg),
                                cx.vty(y)
                            ),
                        );
                    }
                }
            }
        }
        _ => {}
    }
}
