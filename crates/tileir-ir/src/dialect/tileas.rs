//! `nv_tileas`: the operational dialect. Tiles carry register layouts (which thread owns
//! which element) and memory ops are the concrete forms the LLVM lowering emits. Residual
//! nv_tileaa ops (functions, arithmetic, memrefs) stay legal here, as in NVIDIA's stack;
//! the tileas verifier requires every tile value to carry a layout.

use super::read_segments;
use super::tileaa::TiledAccess;
use crate::attrs::{Attr, AtomicRmwMode, AttrReader, NamedAttrs, Signedness};

/// The nv_tileas ops tileir knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TileAsOp {
    /// `nv_tileas.tiled_load`: a register-distributed global load (each thread loads the
    /// elements its layout assigns it), masked against the memref bounds.
    TiledLoad {
        /// Ordering, padding and operands.
        access: TiledAccess,
        /// Widest per-thread vector access in elements (1 = scalar) the layout and the
        /// alignment facts allow.
        vector_width: u32,
        /// The lowering variant forced on this op (`variant = "cp_async"`), if any.
        variant: Option<String>,
    },
    /// `nv_tileas.tiled_store`: the store counterpart.
    TiledStore {
        /// Ordering and operands.
        access: TiledAccess,
        /// Widest per-thread vector access in elements.
        vector_width: u32,
        /// The lowering variant forced on this op, if any.
        variant: Option<String>,
    },

    // ---- The async pipeline family (`nv_tileas.async.pipeline.*`). ----
    /// `create_pipeline` → `!nv_tileas.pipeline<…>`: fresh stage buffers, all empty.
    CreatePipeline,
    /// `create_iterator %pipe` → iterator at position 0.
    CreateIterator,
    /// `inc_iter %it` → the iterator one position on.
    IncIter,
    /// `produce_one %pipe, %it { ^(stage entry…): … yield new entry }`: acquire, write and
    /// commit one stage in one region.
    ProduceOne(StageTag),
    /// `produce_one_async %pipe, %it { … }` → `!nv_tileas.async.token`: a produce whose
    /// writes complete asynchronously; the token observes their completion.
    ProduceOneAsync(StageTag),
    /// `consume_one %pipe, %it { ^(stage entry…): … yield results }` → results: wait for,
    /// read and release one stage in one region.
    ConsumeOne {
        /// Which consumer of the pipeline's group this is.
        consumer_idx: u32,
        /// Stage tag.
        tag: StageTag,
    },
    /// `producer_acquire %pipe, %it` → producer token: waits until the stage is empty.
    ProducerAcquire,
    /// `producer_write %tok, %it { ^(entry…): … yield new entry }` → producer token.
    ProducerWrite,
    /// `producer_commit %tok`: publishes the stage to the consumers.
    ProducerCommit,
    /// `consumer_wait %pipe, %it` → consumer token: waits until the stage is committed.
    ConsumerWait {
        /// Which consumer of the pipeline's group this is.
        consumer_idx: u32,
    },
    /// `consumer_read %tok, %it { ^(entry…): … yield results }` → (consumer token, results…).
    ConsumerRead,
    /// `consumer_release %tok`: this consumer is done with the stage.
    ConsumerRelease,
    /// `agent_switch { agent 0 } { agent 1 } …`: the function's work split into agents that
    /// run concurrently on disjoint warp groups.
    AgentSwitch {
        /// One entry per region.
        agents: Vec<AgentSpec>,
    },
    /// `async.pipeline.yield`: terminator of pipeline and agent regions.
    PipelineYield,

    // ---- Asynchronous memory and values. ----
    /// `create_none` → an async token that is already complete.
    CreateNone,
    /// `async.to_async %v` → async token: an already available value viewed as the result of
    /// an asynchronous operation (complete at once).
    ToAsync,
    /// `async.future_wait %tok…`: the values the tokens guard may be read after this.
    FutureWait,
    /// `async.wait %tok…`: waits for the asynchronous operations themselves to retire (their
    /// buffers may be reused after this).
    Wait,
    /// `async.tiled_load %memref[%coords…] [token]` → (tile, async token).
    AsyncTiledLoad(TiledAccess),
    /// `make_tiled_tma_desc %memref` → `!nv_tileas.tma_desc<…>`: the descriptor as a value of
    /// its own (so the scheduler can hoist and account for it separately from transfers).
    MakeTiledTmaDesc {
        /// The atom the descriptor serves.
        atom: crate::types::TmaKind,
        /// Box shape of the atom (the tile one transfer moves).
        box_shape: Vec<i64>,
    },
    /// `async.tiled_tma_load %desc, %dst[%coords…]` → async token.
    AsyncTiledTmaLoad,
    /// `async.tiled_tma_store %desc, %src[%coords…]` → async token.
    AsyncTiledTmaStore,
    /// `async.gather_tma_load %desc, %dst, %rows, %col` → async token: one TMA row per entry
    /// of the 1-D `%rows` tile.
    AsyncGatherTmaLoad,
    /// `async.scatter_tma_store %desc, %src, %rows, %col` → async token.
    AsyncScatterTmaStore,
    /// `alloc_tensor` → `!nv_tileas.smem<…>`: a shared-memory buffer.
    AllocTensor,

    // ---- Layout conversion (`tileas-materialize-convert-layout`). ----
    /// `convert_layout %src` → tile: the same elements held in another register layout.
    /// The source is a register tile (before materialization) or an `!nv_tileas.smem`
    /// buffer (the read-back of a shared-memory staging plan).
    ConvertLayout {
        /// The plan `tileas-materialize-convert-layout` chose (absent before it ran).
        plan: Option<AtomPlan>,
        /// The op reads a byte (`i8`) view of a sub-byte float tile.
        reinterpret_byte: bool,
    },
    /// `view %src` → a reinterpreting view of a tile or smem buffer (same element count and
    /// type; with `reinterpret_byte`, the same bytes as an `i8` tile on one side).
    View {
        /// A byte view of sub-byte float data (`reinterpret-to-i8`).
        reinterpret_byte: bool,
    },
    /// `copy %src, %dst`: stores a register tile (or smem buffer) into an smem buffer
    /// through the copy atom `atom`.
    Copy {
        /// The copy atom (for example `st.shared.v4.b16`).
        atom: String,
    },
    /// `shuffle %src` → tile: the tile in another layout of the same warps, moved with
    /// warp shuffles (`atom` names the shuffle sequence).
    Shuffle {
        /// The shuffle atom (for example `shfl.idx.b32x8`).
        atom: String,
        /// The plan `tileas-materialize-convert-layout` chose.
        plan: Option<AtomPlan>,
    },

    // ---- Tile structure (verified in tileir-verify's tile_structure.rs). ----
    /// `reinterpret %src` → tile: the same bits read as another element type (a bitcast of
    /// the whole tile). The bit counts of both sides are equal; when the element widths
    /// agree the shape is kept and each element is bitcast; otherwise the row-major bit
    /// string is re-cut (4-bit elements pack two to a byte, low half first), and only the
    /// innermost dimension may change.
    Reinterpret,
    /// `extract_slice %src {offsets, sizes, strides}` → tile of shape `sizes`: element `i` of
    /// the result is `src[offsets + i * strides]` (MLIR's `tensor.extract_slice` with
    /// static attributes). Every selected index is in bounds.
    ExtractSlice {
        /// First source index per dimension.
        offsets: Vec<i64>,
        /// Result shape.
        sizes: Vec<i64>,
        /// Step per dimension (≥ 1).
        strides: Vec<i64>,
    },
    /// `insert_slice %src, %dest {offsets, strides}` → the dest type: `dest` with
    /// `dest[offsets + i * strides] = src[i]` (MLIR's `tensor.insert_slice`); the slice's
    /// sizes are the source shape and lie within the destination.
    InsertSlice {
        /// First destination index per dimension.
        offsets: Vec<i64>,
        /// Step per dimension (≥ 1).
        strides: Vec<i64>,
    },
    /// `expand_dims %src {axis}` → tile: the same elements with a size-1 dimension inserted
    /// before dimension `axis` (`axis` = rank appends one).
    ExpandDims {
        /// Position of the new dimension in the result.
        axis: u32,
    },
    /// `generate { ^bb0(%i0: i32, …): … cuda_tile.yield %e }` → tile: one region run per
    /// result element in row-major order, its block arguments the element's indices (one
    /// `i32` per dimension), yielding the element (a scalar of the result element type).
    Generate,
    /// `tiled_atomic_rmw %memref[%coords…], %value [token]` → (old values, mem_token): the
    /// tile of `memref` at the tile coordinates (as `tiled_store` addresses it) updated
    /// element by element, in row-major order, with `rmw_mode`; out-of-bounds elements are
    /// not touched and read back zero. Operands as `tiled_store`'s (memref, value, coords…,
    /// token?), `operandSegmentSizes` = {memref, value, coords, token}.
    TiledAtomicRmw {
        /// Ordering, scope and operand layout (no padding).
        access: TiledAccess,
        /// The read-modify-write operation.
        mode: AtomicRmwMode,
    },
    /// `load %base[, %offsets][, %mask][, %padding][, token]` → (tile, mem_token): a
    /// pointer-tile gather. `%base` is a tile of pointers (shape S) or one
    /// `!nv_tileaa.ptr` with a tile of integer element offsets (shape S, required then);
    /// masked-off lanes read `%padding` (a tile of S or a scalar), zero without one.
    /// `operandSegmentSizes` = {base, offsets, mask, padding, token}.
    Load(PtrAccess),
    /// `store %base, %value[, %offsets][, %mask][, token]` → mem_token: the scatter
    /// counterpart (masked-off lanes are not written; lanes in row-major order).
    /// `operandSegmentSizes` = {base, value, offsets, mask, token}.
    Store(PtrAccess),
    /// `dot %a, %b, %c[, %sfa, %sfb]` → tile: `a × b + c` (spec/002's `nv_tileaa.dot`):
    /// float, integer (with `signedness_a`/`signedness_b`) or block-scaled (with the scale
    /// tiles). `operandSegmentSizes` = {A, B, C, sfa, sfb}.
    Dot(DotAttrs),
}

/// Ordering and operand layout of nv_tileas `load` / `store` (pointer-tile forms).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PtrAccess {
    /// Memory ordering.
    pub ordering: crate::attrs::MemoryOrdering,
    /// Scope (required unless weak).
    pub scope: Option<crate::attrs::MemoryScope>,
    /// An offsets tile follows the base (required with a scalar `!nv_tileaa.ptr` base).
    pub has_offsets: bool,
    /// A mask operand is present.
    pub has_mask: bool,
    /// A padding operand is present (loads only).
    pub has_padding: bool,
    /// A token operand is present.
    pub has_token: bool,
}

impl PtrAccess {
    fn read(r: &mut AttrReader<'_>, store: bool) -> PtrAccess {
        use crate::attrs::{MemoryOrdering, MemoryScope};
        let ordering = r
            .keyword("mem_semantic", MemoryOrdering::from_keyword, MemoryOrdering::expected)
            .unwrap_or(MemoryOrdering::Weak);
        let scope = r.keyword("mem_scope", MemoryScope::from_keyword, MemoryScope::expected);
        let seg = read_segments(r, 5).unwrap_or_else(|| {
            r.error("requires attribute 'operandSegmentSizes'".to_string());
            vec![1, store as i64, 0, 0, 0]
        });
        let flag = |i: usize| seg[i] > 0;
        if seg.iter().any(|&n| n > 1) || seg[0] != 1 || (store && seg[1] != 1) {
            r.error(format!("'operandSegmentSizes' segments hold 0 or 1 operands (base{} exactly 1), got {seg:?}", if store { " and value" } else { "" }));
        }
        if store {
            PtrAccess { ordering, scope, has_offsets: flag(2), has_mask: flag(3), has_padding: false, has_token: flag(4) }
        } else {
            PtrAccess { ordering, scope, has_offsets: flag(1), has_mask: flag(2), has_padding: flag(3), has_token: flag(4) }
        }
    }
    fn attrs(&self, out: &mut NamedAttrs, store: bool) {
        use crate::attrs::MemoryOrdering;
        out.push(("mem_semantic".into(), Attr::Enum(MemoryOrdering::MNEMONIC, self.ordering.keyword())));
        if let Some(s) = self.scope {
            out.push(("mem_scope".into(), Attr::Enum(crate::attrs::MemoryScope::MNEMONIC, s.keyword())));
        }
        let b = |x: bool| x as i64;
        let seg = if store {
            vec![1, 1, b(self.has_offsets), b(self.has_mask), b(self.has_token)]
        } else {
            vec![1, b(self.has_offsets), b(self.has_mask), b(self.has_padding), b(self.has_token)]
        };
        out.push(("operandSegmentSizes".into(), Attr::IntArray(seg)));
    }
    /// Operand index of the offsets (after the base, and the value for stores).
    pub fn offsets_index(&self, store: bool) -> Option<usize> {
        self.has_offsets.then_some(1 + store as usize)
    }
    /// Operand index of the mask.
    pub fn mask_index(&self, store: bool) -> Option<usize> {
        self.has_mask.then_some(1 + store as usize + self.has_offsets as usize)
    }
    /// Operand index of the padding (loads).
    pub fn padding_index(&self) -> Option<usize> {
        self.has_padding.then_some(1 + self.has_offsets as usize + self.has_mask as usize)
    }
    /// Number of operands the op takes.
    pub fn num_operands(&self, store: bool) -> usize {
        1 + store as usize + self.has_offsets as usize + self.has_mask as usize + self.has_padding as usize + self.has_token as usize
    }
}

/// Attributes of nv_tileas `dot`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DotAttrs {
    /// Signedness of integer A (required for integer dots).
    pub signedness_a: Option<Signedness>,
    /// Signedness of integer B (required for integer dots).
    pub signedness_b: Option<Signedness>,
    /// NaN inputs propagate (float dots only).
    pub propagate_nan: bool,
    /// The scale-factor operands `sfa`, `sfb` are present (block-scaled dot).
    pub scaled: bool,
}

/// The plan `tileas-materialize-convert-layout` recorded on the op that ends a conversion
/// (spec/001 `atom_plan`), printed as `plan_tag`, `plan_vec` and `plan_smem_bytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AtomPlan {
    /// 0 = register to register (shuffles or no data movement), 1 = via shared memory.
    pub tag: u32,
    /// Vector width of the plan's atom in elements (the shuffle word or the widest
    /// shared-memory access).
    pub vec: u32,
    /// Scratch shared memory the plan stages through (0 for tag 0).
    pub smem_bytes: u64,
}

impl AtomPlan {
    /// Tag of a register-to-register plan.
    pub const REG_TO_REG: u32 = 0;
    /// Tag of a shared-memory staging plan.
    pub const VIA_SMEM: u32 = 1;

    fn read(r: &mut AttrReader<'_>, full: &str) -> Option<AtomPlan> {
        let tag = r.int("plan_tag");
        let vec = r.int("plan_vec");
        let smem = r.int("plan_smem_bytes");
        let tag = match tag {
            None => {
                if vec.is_some() || smem.is_some() {
                    r.error(format!("'{full}' attributes 'plan_vec' and 'plan_smem_bytes' need 'plan_tag'"));
                }
                return None;
            }
            Some(t @ (0 | 1)) => t as u32,
            Some(t) => {
                r.error(format!("'{full}' attribute 'plan_tag' must be 0 (reg-to-reg) or 1 (via smem), got {t}"));
                0
            }
        };
        let vec = vec.unwrap_or(0);
        let smem = smem.unwrap_or(0);
        if !(0..=u32::MAX as i64).contains(&vec) || smem < 0 {
            r.error(format!("'{full}' attributes 'plan_vec' and 'plan_smem_bytes' must be non-negative"));
        }
        Some(AtomPlan { tag, vec: vec.clamp(0, u32::MAX as i64) as u32, smem_bytes: smem.max(0) as u64 })
    }

    fn attrs(plan: &Option<AtomPlan>, out: &mut NamedAttrs) {
        if let Some(p) = plan {
            out.push(("plan_tag".into(), Attr::Int(p.tag as i64)));
            out.push(("plan_vec".into(), Attr::Int(p.vec as i64)));
            out.push(("plan_smem_bytes".into(), Attr::Int(p.smem_bytes as i64)));
        }
    }
}

fn flag_attr(name: &'static str, on: bool, out: &mut NamedAttrs) {
    if on {
        out.push((name.into(), Attr::Unit));
    }
}

/// The scheduling tag a producer or consumer region carries (`pipeline_stage`), written by
/// async materialization and read by schedule materialization.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StageTag {
    /// Pipeline stage index, once assigned.
    pub pipeline_stage: Option<u32>,
}

impl StageTag {
    fn read(r: &mut AttrReader<'_>) -> StageTag {
        StageTag { pipeline_stage: r.int("pipeline_stage").map(|v| v.clamp(0, u32::MAX as i64) as u32) }
    }
    fn attrs(&self, out: &mut NamedAttrs) {
        if let Some(s) = self.pipeline_stage {
            out.push(("pipeline_stage".into(), Attr::Int(s as i64)));
        }
    }
}

/// One agent of an `agent_switch` (or nv_tileaa `execute`): its role and resources.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AgentSpec {
    /// Warps the agent runs on.
    pub num_warps: u32,
    /// Registers per thread the agent asks for (`setmaxnreg`), 0 = leave as launched.
    pub registers: u32,
}

impl AgentSpec {
    /// Reads `num_warps = [..]` / `registers = [..]` (one entry per region).
    pub(crate) fn read_list(r: &mut AttrReader<'_>, op: &str) -> Vec<AgentSpec> {
        let warps = r.int_array("num_warps").unwrap_or_default();
        let regs = r.int_array("registers").unwrap_or_else(|| vec![0; warps.len()]);
        if warps.len() != regs.len() {
            r.error(format!(
                "'{op}' needs one 'registers' entry per agent: {} agents in 'num_warps', {} in 'registers'",
                warps.len(),
                regs.len()
            ));
        }
        let mut out = Vec::new();
        for (i, &w) in warps.iter().enumerate() {
            let g = regs.get(i).copied().unwrap_or(0);
            if !(1..=32).contains(&w) {
                r.error(format!("'{op}' agent #{i} must run on 1 to 32 warps, got {w}"));
            }
            if !(0..=256).contains(&g) {
                r.error(format!("'{op}' agent #{i} asks for {g} registers per thread; the range is 0 (unchanged) to 256"));
            }
            out.push(AgentSpec { num_warps: w.clamp(1, 32) as u32, registers: g.clamp(0, 256) as u32 });
        }
        out
    }
    pub(crate) fn attrs(agents: &[AgentSpec], out: &mut NamedAttrs) {
        out.push(("num_warps".into(), Attr::IntArray(agents.iter().map(|a| a.num_warps as i64).collect())));
        if agents.iter().any(|a| a.registers != 0) {
            out.push(("registers".into(), Attr::IntArray(agents.iter().map(|a| a.registers as i64).collect())));
        }
    }
}

impl TileAsOp {
    /// Mnemonic without the dialect prefix.
    pub fn mnemonic(&self) -> &'static str {
        match self {
            TileAsOp::TiledLoad { .. } => "tiled_load",
            TileAsOp::TiledStore { .. } => "tiled_store",
            TileAsOp::CreatePipeline => "async.pipeline.create_pipeline",
            TileAsOp::CreateIterator => "async.pipeline.create_iterator",
            TileAsOp::IncIter => "async.pipeline.inc_iter",
            TileAsOp::ProduceOne(_) => "async.pipeline.produce_one",
            TileAsOp::ProduceOneAsync(_) => "async.pipeline.produce_one_async",
            TileAsOp::ConsumeOne { .. } => "async.pipeline.consume_one",
            TileAsOp::ProducerAcquire => "async.pipeline.producer_acquire",
            TileAsOp::ProducerWrite => "async.pipeline.producer_write",
            TileAsOp::ProducerCommit => "async.pipeline.producer_commit",
            TileAsOp::ConsumerWait { .. } => "async.pipeline.consumer_wait",
            TileAsOp::ConsumerRead => "async.pipeline.consumer_read",
            TileAsOp::ConsumerRelease => "async.pipeline.consumer_release",
            TileAsOp::AgentSwitch { .. } => "async.pipeline.agent_switch",
            TileAsOp::PipelineYield => "async.pipeline.yield",
            TileAsOp::CreateNone => "create_none",
            TileAsOp::ToAsync => "async.to_async",
            TileAsOp::FutureWait => "async.future_wait",
            TileAsOp::Wait => "async.wait",
            TileAsOp::AsyncTiledLoad(_) => "async.tiled_load",
            TileAsOp::MakeTiledTmaDesc { .. } => "make_tiled_tma_desc",
            TileAsOp::AsyncTiledTmaLoad => "async.tiled_tma_load",
            TileAsOp::AsyncTiledTmaStore => "async.tiled_tma_store",
            TileAsOp::AsyncGatherTmaLoad => "async.gather_tma_load",
            TileAsOp::AsyncScatterTmaStore => "async.scatter_tma_store",
            TileAsOp::AllocTensor => "alloc_tensor",
            TileAsOp::ConvertLayout { .. } => "convert_layout",
            TileAsOp::View { .. } => "view",
            TileAsOp::Copy { .. } => "copy",
            TileAsOp::Shuffle { .. } => "shuffle",
            TileAsOp::Reinterpret => "reinterpret",
            TileAsOp::ExtractSlice { .. } => "extract_slice",
            TileAsOp::InsertSlice { .. } => "insert_slice",
            TileAsOp::ExpandDims { .. } => "expand_dims",
            TileAsOp::Generate => "generate",
            TileAsOp::TiledAtomicRmw { .. } => "tiled_atomic_rmw",
            TileAsOp::Load(_) => "load",
            TileAsOp::Store(_) => "store",
            TileAsOp::Dot(_) => "dot",
        }
    }

    /// Regions the op owns.
    pub fn num_regions(&self) -> usize {
        match self {
            TileAsOp::ProduceOne(_)
            | TileAsOp::ProduceOneAsync(_)
            | TileAsOp::ConsumeOne { .. }
            | TileAsOp::ProducerWrite
            | TileAsOp::ConsumerRead
            | TileAsOp::Generate => 1,
            TileAsOp::AgentSwitch { agents } => agents.len(),
            _ => 0,
        }
    }

    /// True for terminators.
    pub fn is_terminator(&self) -> bool {
        matches!(self, TileAsOp::PipelineYield)
    }

    /// True for the ops whose region is a producer or consumer region of a pipeline stage.
    pub fn is_stage_region(&self) -> bool {
        matches!(
            self,
            TileAsOp::ProduceOne(_) | TileAsOp::ProduceOneAsync(_) | TileAsOp::ConsumeOne { .. } | TileAsOp::ProducerWrite | TileAsOp::ConsumerRead
        )
    }

    /// Attributes in generic form.
    pub fn attributes(&self) -> NamedAttrs {
        let mut out = NamedAttrs::new();
        match self {
            TileAsOp::TiledLoad { access, vector_width, variant } | TileAsOp::TiledStore { access, vector_width, variant } => {
                access.attrs(&mut out, if matches!(self, TileAsOp::TiledLoad { .. }) { 1 } else { 2 });
                out.push(("vector_width".into(), Attr::Int(*vector_width as i64)));
                if let Some(v) = variant {
                    out.push(("variant".into(), Attr::Str(v.clone())));
                }
            }
            TileAsOp::ProduceOne(tag) | TileAsOp::ProduceOneAsync(tag) => tag.attrs(&mut out),
            TileAsOp::ConsumeOne { consumer_idx, tag } => {
                out.push(("consumer_idx".into(), Attr::Int(*consumer_idx as i64)));
                tag.attrs(&mut out);
            }
            TileAsOp::ConsumerWait { consumer_idx } => {
                out.push(("consumer_idx".into(), Attr::Int(*consumer_idx as i64)))
            }
            TileAsOp::AgentSwitch { agents } => AgentSpec::attrs(agents, &mut out),
            TileAsOp::AsyncTiledLoad(access) => access.attrs(&mut out, 1),
            TileAsOp::MakeTiledTmaDesc { atom, box_shape } => {
                out.push(("atom".into(), Attr::Str(atom.keyword().into())));
                out.push(("box".into(), Attr::IntArray(box_shape.clone())));
            }
            TileAsOp::CreatePipeline
            | TileAsOp::CreateIterator
            | TileAsOp::IncIter
            | TileAsOp::ProducerAcquire
            | TileAsOp::ProducerWrite
            | TileAsOp::ProducerCommit
            | TileAsOp::ConsumerRead
            | TileAsOp::ConsumerRelease
            | TileAsOp::PipelineYield
            | TileAsOp::CreateNone
            | TileAsOp::ToAsync
            | TileAsOp::FutureWait
            | TileAsOp::Wait
            | TileAsOp::AsyncTiledTmaLoad
            | TileAsOp::AsyncTiledTmaStore
            | TileAsOp::AsyncGatherTmaLoad
            | TileAsOp::AsyncScatterTmaStore
            | TileAsOp::AllocTensor
            | TileAsOp::Reinterpret
            | TileAsOp::Generate => {}
            TileAsOp::ExtractSlice { offsets, sizes, strides } => {
                out.push(("offsets".into(), Attr::IntArray(offsets.clone())));
                out.push(("sizes".into(), Attr::IntArray(sizes.clone())));
                out.push(("strides".into(), Attr::IntArray(strides.clone())));
            }
            TileAsOp::InsertSlice { offsets, strides } => {
                out.push(("offsets".into(), Attr::IntArray(offsets.clone())));
                out.push(("strides".into(), Attr::IntArray(strides.clone())));
            }
            TileAsOp::ExpandDims { axis } => out.push(("axis".into(), Attr::Int(*axis as i64))),
            TileAsOp::TiledAtomicRmw { access, mode } => {
                out.push(("rmw_mode".into(), Attr::Enum(AtomicRmwMode::MNEMONIC, mode.keyword())));
                access.attrs(&mut out, 2);
            }
            TileAsOp::Load(a) => a.attrs(&mut out, false),
            TileAsOp::Store(a) => a.attrs(&mut out, true),
            TileAsOp::Dot(d) => {
                let s = d.scaled as i64;
                out.push(("operandSegmentSizes".into(), Attr::IntArray(vec![1, 1, 1, s, s])));
                if let Some(x) = d.signedness_a {
                    out.push(("signedness_a".into(), Attr::Enum(Signedness::MNEMONIC, x.keyword())));
                }
                if let Some(x) = d.signedness_b {
                    out.push(("signedness_b".into(), Attr::Enum(Signedness::MNEMONIC, x.keyword())));
                }
                flag_attr("propagate_nan", d.propagate_nan, &mut out);
            }
            TileAsOp::ConvertLayout { plan, reinterpret_byte } => {
                AtomPlan::attrs(plan, &mut out);
                flag_attr("reinterpret_byte", *reinterpret_byte, &mut out);
            }
            TileAsOp::View { reinterpret_byte } => flag_attr("reinterpret_byte", *reinterpret_byte, &mut out),
            TileAsOp::Copy { atom } => out.push(("atom".into(), Attr::Str(atom.clone()))),
            TileAsOp::Shuffle { atom, plan } => {
                out.push(("atom".into(), Attr::Str(atom.clone())));
                AtomPlan::attrs(plan, &mut out);
            }
        }
        out
    }

    /// Builds an op from its mnemonic and untyped attributes; `Ok(None)` if unknown.
    pub fn from_generic(mnemonic: &str, attrs: &[(String, Attr)]) -> Result<Option<TileAsOp>, Vec<String>> {
        let full = format!("nv_tileas.{mnemonic}");
        let mut r = crate::attrs::AttrReader::new(&full, attrs);
        let consumer_idx = |r: &mut AttrReader<'_>| -> u32 {
            match r.int("consumer_idx") {
                None => 0,
                Some(v) if (0..=u32::MAX as i64).contains(&v) => v as u32,
                Some(v) => {
                    r.error(format!("'{full}' attribute 'consumer_idx' must be a non-negative 32-bit integer, got {v}"));
                    0
                }
            }
        };
        let op = match mnemonic {
            "tiled_load" => {
                let access = TiledAccess::read(&mut r, 1);
                TileAsOp::TiledLoad { access, vector_width: r.int("vector_width").unwrap_or(1) as u32, variant: r.opt_string("variant") }
            }
            "tiled_store" => {
                let access = TiledAccess::read(&mut r, 2);
                TileAsOp::TiledStore { access, vector_width: r.int("vector_width").unwrap_or(1) as u32, variant: r.opt_string("variant") }
            }
            "async.pipeline.create_pipeline" => TileAsOp::CreatePipeline,
            "async.pipeline.create_iterator" => TileAsOp::CreateIterator,
            "async.pipeline.inc_iter" => TileAsOp::IncIter,
            "async.pipeline.produce_one" => TileAsOp::ProduceOne(StageTag::read(&mut r)),
            "async.pipeline.produce_one_async" => TileAsOp::ProduceOneAsync(StageTag::read(&mut r)),
            "async.pipeline.consume_one" => {
                let consumer_idx = consumer_idx(&mut r);
                TileAsOp::ConsumeOne { consumer_idx, tag: StageTag::read(&mut r) }
            }
            "async.pipeline.producer_acquire" => TileAsOp::ProducerAcquire,
            "async.pipeline.producer_write" => TileAsOp::ProducerWrite,
            "async.pipeline.producer_commit" => TileAsOp::ProducerCommit,
            "async.pipeline.consumer_wait" => TileAsOp::ConsumerWait { consumer_idx: consumer_idx(&mut r) },
            "async.pipeline.consumer_read" => TileAsOp::ConsumerRead,
            "async.pipeline.consumer_release" => TileAsOp::ConsumerRelease,
            "async.pipeline.agent_switch" => TileAsOp::AgentSwitch { agents: AgentSpec::read_list(&mut r, &full) },
            "async.pipeline.yield" => TileAsOp::PipelineYield,
            "create_none" => TileAsOp::CreateNone,
            "async.to_async" => TileAsOp::ToAsync,
            "async.future_wait" => TileAsOp::FutureWait,
            "async.wait" => TileAsOp::Wait,
            "async.tiled_load" => TileAsOp::AsyncTiledLoad(TiledAccess::read(&mut r, 1)),
            "make_tiled_tma_desc" => {
                let atom = match r.string("atom") {
                    Some(a) => match crate::types::TmaKind::from_keyword(&a) {
                        Some(k) => k,
                        None => {
                            r.error(format!("'{full}' attribute 'atom' must be \"tma_load\" or \"tma_store\", got \"{a}\""));
                            crate::types::TmaKind::Load
                        }
                    },
                    None => crate::types::TmaKind::Load,
                };
                let box_shape = r.int_array("box").unwrap_or_else(|| {
                    r.error(format!("'{full}' requires attribute 'box'"));
                    Vec::new()
                });
                TileAsOp::MakeTiledTmaDesc { atom, box_shape }
            }
            "async.tiled_tma_load" => TileAsOp::AsyncTiledTmaLoad,
            "async.tiled_tma_store" => TileAsOp::AsyncTiledTmaStore,
            "async.gather_tma_load" => TileAsOp::AsyncGatherTmaLoad,
            "async.scatter_tma_store" => TileAsOp::AsyncScatterTmaStore,
            "alloc_tensor" => TileAsOp::AllocTensor,
            "convert_layout" => {
                let plan = AtomPlan::read(&mut r, &full);
                TileAsOp::ConvertLayout { plan, reinterpret_byte: r.flag("reinterpret_byte") }
            }
            "view" => TileAsOp::View { reinterpret_byte: r.flag("reinterpret_byte") },
            "copy" | "shuffle" => {
                let atom = r.string("atom").unwrap_or_else(|| {
                    r.error(format!("'{full}' requires string attribute 'atom'"));
                    String::new()
                });
                if mnemonic == "copy" {
                    TileAsOp::Copy { atom }
                } else {
                    TileAsOp::Shuffle { atom, plan: AtomPlan::read(&mut r, &full) }
                }
            }
            "reinterpret" => TileAsOp::Reinterpret,
            "generate" => TileAsOp::Generate,
            "extract_slice" | "insert_slice" => {
                let need = |r: &mut AttrReader<'_>, name: &str| {
                    r.int_array(name).unwrap_or_else(|| {
                        r.error(format!("'{full}' requires attribute '{name}'"));
                        Vec::new()
                    })
                };
                let offsets = need(&mut r, "offsets");
                if mnemonic == "extract_slice" {
                    let sizes = need(&mut r, "sizes");
                    TileAsOp::ExtractSlice { offsets, sizes, strides: need(&mut r, "strides") }
                } else {
                    TileAsOp::InsertSlice { offsets, strides: need(&mut r, "strides") }
                }
            }
            "expand_dims" => {
                let axis = match r.int("axis") {
                    Some(v) if (0..=u32::MAX as i64).contains(&v) => v as u32,
                    Some(v) => {
                        r.error(format!("'{full}' attribute 'axis' must be a non-negative integer, got {v}"));
                        0
                    }
                    None => {
                        r.error(format!("'{full}' requires attribute 'axis'"));
                        0
                    }
                };
                TileAsOp::ExpandDims { axis }
            }
            "tiled_atomic_rmw" => {
                let mode = r.keyword("rmw_mode", AtomicRmwMode::from_keyword, AtomicRmwMode::expected).unwrap_or_else(|| {
                    r.error(format!("'{full}' requires attribute 'rmw_mode'"));
                    AtomicRmwMode::Add
                });
                TileAsOp::TiledAtomicRmw { access: TiledAccess::read(&mut r, 2), mode }
            }
            "load" => TileAsOp::Load(PtrAccess::read(&mut r, false)),
            "store" => TileAsOp::Store(PtrAccess::read(&mut r, true)),
            "dot" => {
                let seg = read_segments(&mut r, 5).unwrap_or_else(|| {
                    r.error("requires attribute 'operandSegmentSizes'".to_string());
                    vec![1, 1, 1, 0, 0]
                });
                if seg[..3] != [1, 1, 1] || seg[3] > 1 || seg[3] != seg[4] {
                    r.error(format!("'{full}' 'operandSegmentSizes' must be [1, 1, 1, 0, 0] or [1, 1, 1, 1, 1] (A, B, C, sfa, sfb), got {seg:?}"));
                }
                let signedness_a = r.keyword("signedness_a", Signedness::from_keyword, Signedness::expected);
                let signedness_b = r.keyword("signedness_b", Signedness::from_keyword, Signedness::expected);
                TileAsOp::Dot(DotAttrs { signedness_a, signedness_b, propagate_nan: r.flag("propagate_nan"), scaled: seg[3] > 0 })
            }
            _ => return Ok(None),
        };
        r.finish()?;
        Ok(Some(op))
    }
}
