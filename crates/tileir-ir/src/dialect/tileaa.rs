//! `nv_tileaa`: the alias-aware dialect. Pointers carry address spaces, global tensors
//! are explicit memrefs (base, sizes, strides, alignment), and every memory effect
//! consumes and produces a `mem_token`, so later passes may reorder only along the
//! token graph.

use super::{read_segments, FloatArith};
use crate::attrs::{Attr, AttrReader, MemoryOrdering, MemoryScope, NamedAttrs};
use crate::types::{PaddingValue, TypeId};

/// Ordering, padding and operand layout of `tiled_load` / `tiled_store`
/// (shared by nv_tileaa and nv_tileas).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TiledAccess {
    /// Memory ordering.
    pub ordering: MemoryOrdering,
    /// Scope (required unless weak).
    pub scope: Option<MemoryScope>,
    /// Value of out-of-bounds lanes for loads (`None`: unspecified; tileir reads zero).
    pub padding: Option<PaddingValue>,
    /// Number of tile-coordinate operands (= memref rank).
    pub num_indices: u32,
    /// Whether a token operand is present.
    pub has_token: bool,
    /// Distance in elements between consecutive tile origins per dimension, when it is not
    /// the tile shape (a cuda_tile `strided_view`'s traversal strides).
    pub origin_step: Option<Vec<i64>>,
}

impl TiledAccess {
    pub(crate) fn read(r: &mut AttrReader<'_>, leading: usize) -> TiledAccess {
        let ordering = r
            .keyword("mem_semantic", MemoryOrdering::from_keyword, MemoryOrdering::expected)
            .unwrap_or(MemoryOrdering::Weak);
        let scope = r.keyword("mem_scope", MemoryScope::from_keyword, MemoryScope::expected);
        let padding = r.keyword("padding_value", PaddingValue::from_keyword, || {
            PaddingValue::ALL.iter().map(|p| p.keyword()).collect::<Vec<_>>().join(", ")
        });
        let seg = read_segments(r, leading + 2).unwrap_or_else(|| {
            r.error("requires attribute 'operandSegmentSizes'".to_string());
            vec![0; leading + 2]
        });
        let origin_step = r.int_array("origin_step");
        TiledAccess { ordering, scope, padding, num_indices: seg[leading] as u32, has_token: seg[leading + 1] > 0, origin_step }
    }
    pub(crate) fn attrs(&self, out: &mut NamedAttrs, leading: usize) {
        out.push(("mem_semantic".into(), Attr::Enum(MemoryOrdering::MNEMONIC, self.ordering.keyword())));
        if let Some(s) = self.scope {
            out.push(("mem_scope".into(), Attr::Enum(MemoryScope::MNEMONIC, s.keyword())));
        }
        let mut seg = vec![1; leading];
        seg.push(self.num_indices as i64);
        seg.push(self.has_token as i64);
        out.push(("operandSegmentSizes".into(), Attr::IntArray(seg)));
        if let Some(p) = self.padding {
            out.push(("padding_value".into(), Attr::Enum("padding_value", p.keyword())));
        }
        if let Some(step) = &self.origin_step {
            out.push(("origin_step".into(), Attr::IntArray(step.clone())));
        }
    }
}

/// The nv_tileaa ops tileir knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TileAaOp {
    /// `nv_tileaa.func @k(...) { … }` (1 region).
    Func {
        /// Symbol name.
        sym_name: String,
        /// Function type.
        function_type: TypeId,
        /// A kernel (launched from the host) rather than a device helper.
        kernel: bool,
        /// Warps per CTA, once chosen (the kernel spec; set by the TileAS conversion).
        num_warps: Option<u32>,
        /// The entry's `optimization_hints` (per-architecture `occupancy`,
        /// `num_cta_in_cga`, …), kept as written: the LLVM writer resolves them for its
        /// target into the kernel's launch attributes.
        hints: Option<Vec<(String, Attr)>>,
    },
    /// `nv_tileaa.return`.
    Return,
    /// `nv_tileaa.create_mem_token` → mem_token.
    CreateMemToken,
    /// `nv_tileaa.get_program_id x` → i32.
    GetProgramId {
        /// 0 = x, 1 = y, 2 = z.
        dim: u8,
    },
    /// `nv_tileaa.get_num_programs x` → i32.
    GetNumPrograms {
        /// 0 = x, 1 = y, 2 = z.
        dim: u8,
    },
    /// `nv_tileaa.make_memref %base, sizes…, strides…` → memref.
    MakeMemref {
        /// Dynamic size operands.
        num_dyn_sizes: u32,
        /// Dynamic stride operands.
        num_dyn_strides: u32,
        /// Known alignment of the base address in bytes (from `assume div_by`), 0 if unknown.
        base_alignment: u32,
    },
    /// `nv_tileaa.tiled_load %memref[%tile_coords…] [token]` → (tile, mem_token).
    TiledLoad(TiledAccess),
    /// `nv_tileaa.tiled_store %memref[%tile_coords…], %value [token]` → mem_token.
    TiledStore(TiledAccess),
    /// `nv_tileaa.addf`.
    AddF(FloatArith),
    /// `nv_tileaa.subf`.
    SubF(FloatArith),
    /// `nv_tileaa.mulf`.
    MulF(FloatArith),
    /// `nv_tileaa.global [constant] @name alignment = A <dense> : tile<N×T>`: module-level
    /// statically allocated global memory with an initial value (a cuda_tile `global`).
    Global {
        /// Symbol name.
        sym_name: String,
        /// Initial value (rank 1).
        value: crate::attrs::DenseElements,
        /// Byte alignment (0: natural).
        alignment: i64,
        /// Never written by kernels.
        constant: bool,
    },
    /// `nv_tileaa.get_global @name` → `!nv_tileaa.ptr<T, 1>`: the address of a global.
    GetGlobal {
        /// The global's symbol name.
        name: String,
    },
    /// `nv_tileaa.join_mem_token %t…` → mem_token: one ordering edge after all the inputs.
    JoinMemToken,
    /// `nv_tileaa.mark_for_reuse %v…`: the values' buffers live until here (buffer
    /// allocation may not reuse them earlier).
    MarkForReuse,
    /// `nv_tileaa.create_queue` → `!nv_tileaa.queue<…>`: an empty bounded FIFO.
    CreateQueue,
    /// `nv_tileaa.queue.put %q { … queue.yield %entry… }`: the region computes one entry,
    /// which is appended to the queue (waiting while it is full).
    QueuePut,
    /// `nv_tileaa.queue.get %q { ^(entry…): … queue.yield %results… }` → results: takes
    /// the oldest entry (waiting while empty) and runs the region on it.
    QueueGet {
        /// Which consumer of the queue this is (each consumer sees every entry).
        consumer_idx: u32,
    },
    /// `nv_tileaa.queue.yield`: terminator of queue and execute regions.
    QueueYield,
    /// `nv_tileaa.execute { agent 0 } { agent 1 } …`: concurrent agents (warp groups)
    /// communicating through queues.
    Execute {
        /// One entry per region.
        agents: Vec<super::tileas::AgentSpec>,
    },
}

/// Reads `optimization_hints` of a function (a dictionary of per-architecture
/// dictionaries) from `attrs` through `r`.
pub fn read_hints_pub(r: &mut AttrReader<'_>, attrs: &[(String, Attr)], op: &str) -> Option<Vec<(String, Attr)>> {
    if !r.mark_used("optimization_hints") {
        return None;
    }
    match attrs.iter().find(|(n, _)| n == "optimization_hints").map(|(_, a)| a) {
        // The generic form writes the integers typed (`1 : i64`): keep them untyped, as the
        // entry's hints are, so both forms print the same.
        Some(Attr::Dict(d)) => Some(
            d.iter()
                .map(|(arch, v)| {
                    let v = match v {
                        Attr::Dict(kv) => Attr::Dict(
                            kv.iter()
                                .map(|(k, a)| match a {
                                    Attr::Scalar(t, bits) if t.is_int() => {
                                        (k.clone(), Attr::Int(tileir_numeric::sign_extend(*bits, t.bit_width())))
                                    }
                                    other => (k.clone(), other.clone()),
                                })
                                .collect(),
                        ),
                        other => other.clone(),
                    };
                    (arch.clone(), v)
                })
                .collect(),
        ),
        Some(other) => {
            r.error(format!("'{op}' attribute 'optimization_hints' must be a dictionary, got {}", other.kind_name()));
            None
        }
        None => None,
    }
}

/// Axis names of program-id ops.
pub const AXES: [&str; 3] = ["x", "y", "z"];

impl TileAaOp {
    /// Mnemonic without the dialect prefix.
    pub fn mnemonic(&self) -> &'static str {
        match self {
            TileAaOp::Func { .. } => "func",
            TileAaOp::Return => "return",
            TileAaOp::CreateMemToken => "create_mem_token",
            TileAaOp::GetProgramId { .. } => "get_program_id",
            TileAaOp::GetNumPrograms { .. } => "get_num_programs",
            TileAaOp::MakeMemref { .. } => "make_memref",
            TileAaOp::TiledLoad(_) => "tiled_load",
            TileAaOp::TiledStore(_) => "tiled_store",
            TileAaOp::AddF(_) => "addf",
            TileAaOp::SubF(_) => "subf",
            TileAaOp::MulF(_) => "mulf",
            TileAaOp::Global { .. } => "global",
            TileAaOp::GetGlobal { .. } => "get_global",
            TileAaOp::JoinMemToken => "join_mem_token",
            TileAaOp::MarkForReuse => "mark_for_reuse",
            TileAaOp::CreateQueue => "create_queue",
            TileAaOp::QueuePut => "queue.put",
            TileAaOp::QueueGet { .. } => "queue.get",
            TileAaOp::QueueYield => "queue.yield",
            TileAaOp::Execute { .. } => "execute",
        }
    }

    /// Number of regions.
    pub fn num_regions(&self) -> usize {
        match self {
            TileAaOp::Func { .. } | TileAaOp::QueuePut | TileAaOp::QueueGet { .. } => 1,
            TileAaOp::Execute { agents } => agents.len(),
            _ => 0,
        }
    }

    /// True for terminators.
    pub fn is_terminator(&self) -> bool {
        matches!(self, TileAaOp::Return | TileAaOp::QueueYield)
    }

    /// Attributes in generic form.
    pub fn attributes(&self) -> NamedAttrs {
        let mut out = NamedAttrs::new();
        match self {
            TileAaOp::Func { sym_name, function_type, kernel, num_warps, hints } => {
                out.push(("function_type".into(), Attr::Type(*function_type)));
                if *kernel {
                    out.push(("kernel".into(), Attr::Unit));
                }
                if let Some(w) = num_warps {
                    out.push(("num_warps".into(), Attr::Int(*w as i64)));
                }
                if let Some(h) = hints {
                    out.push(("optimization_hints".into(), Attr::Dict(h.clone())));
                }
                out.push(("sym_name".into(), Attr::Str(sym_name.clone())));
            }
            TileAaOp::Return | TileAaOp::CreateMemToken => {}
            TileAaOp::GetProgramId { dim } | TileAaOp::GetNumPrograms { dim } => {
                out.push(("dim".into(), Attr::Int(*dim as i64)))
            }
            TileAaOp::MakeMemref { num_dyn_sizes, num_dyn_strides, base_alignment } => {
                if *base_alignment > 0 {
                    out.push(("alignment".into(), Attr::Int(*base_alignment as i64)));
                }
                out.push((
                    "operandSegmentSizes".into(),
                    Attr::IntArray(vec![1, *num_dyn_sizes as i64, *num_dyn_strides as i64]),
                ));
            }
            TileAaOp::TiledLoad(a) => a.attrs(&mut out, 1),
            TileAaOp::TiledStore(a) => a.attrs(&mut out, 2),
            TileAaOp::AddF(f) | TileAaOp::SubF(f) | TileAaOp::MulF(f) => f.attrs(&mut out),
            TileAaOp::Global { sym_name, value, alignment, constant } => {
                if *alignment != 0 {
                    out.push(("alignment".into(), Attr::Int(*alignment)));
                }
                if *constant {
                    out.push(("constant".into(), Attr::Unit));
                }
                out.push(("sym_name".into(), Attr::Str(sym_name.clone())));
                out.push(("value".into(), Attr::Dense(value.clone())));
            }
            TileAaOp::GetGlobal { name } => out.push(("name".into(), Attr::Symbol(name.clone()))),
            TileAaOp::QueueGet { consumer_idx } => out.push(("consumer_idx".into(), Attr::Int(*consumer_idx as i64))),
            TileAaOp::Execute { agents } => super::tileas::AgentSpec::attrs(agents, &mut out),
            TileAaOp::JoinMemToken
            | TileAaOp::MarkForReuse
            | TileAaOp::CreateQueue
            | TileAaOp::QueuePut
            | TileAaOp::QueueYield => {}
        }
        out
    }

    /// Builds an op from its mnemonic and untyped attributes; `Ok(None)` if unknown.
    pub fn from_generic(mnemonic: &str, attrs: &[(String, Attr)]) -> Result<Option<TileAaOp>, Vec<String>> {
        let full = format!("nv_tileaa.{mnemonic}");
        let mut r = AttrReader::new(&full, attrs);
        let dim = |r: &mut AttrReader<'_>| -> u8 {
            match r.int("dim") {
                Some(d @ 0..=2) => d as u8,
                Some(d) => {
                    r.error(format!("'{full}' attribute 'dim' must be 0, 1 or 2, got {d}"));
                    0
                }
                None => 0,
            }
        };
        let op = match mnemonic {
            "func" => {
                let sym_name = r.string("sym_name").unwrap_or_default();
                let kernel = r.flag("kernel");
                let num_warps = r.int("num_warps").map(|w| w as u32);
                let hints = read_hints_pub(&mut r, attrs, &full);
                match r.type_id("function_type") {
                    Some(function_type) => TileAaOp::Func { sym_name, function_type, kernel, num_warps, hints },
                    None => return Err(r.finish().err().unwrap_or_default()),
                }
            }
            "return" => TileAaOp::Return,
            "create_mem_token" => TileAaOp::CreateMemToken,
            "get_program_id" => TileAaOp::GetProgramId { dim: dim(&mut r) },
            "get_num_programs" => TileAaOp::GetNumPrograms { dim: dim(&mut r) },
            "make_memref" => {
                let base_alignment = r.int("alignment").unwrap_or(0) as u32;
                let seg = read_segments(&mut r, 3).unwrap_or(vec![1, 0, 0]);
                TileAaOp::MakeMemref { num_dyn_sizes: seg[1] as u32, num_dyn_strides: seg[2] as u32, base_alignment }
            }
            "tiled_load" => TileAaOp::TiledLoad(TiledAccess::read(&mut r, 1)),
            "tiled_store" => TileAaOp::TiledStore(TiledAccess::read(&mut r, 2)),
            "addf" => TileAaOp::AddF(FloatArith::read(&mut r)),
            "subf" => TileAaOp::SubF(FloatArith::read(&mut r)),
            "mulf" => TileAaOp::MulF(FloatArith::read(&mut r)),
            "global" => {
                let sym_name = r.string("sym_name").unwrap_or_default();
                let alignment = r.int("alignment").unwrap_or(0);
                let constant = r.flag("constant");
                r.mark_used("value");
                let value = match attrs.iter().find(|(n, _)| n == "value").map(|(_, a)| a) {
                    Some(Attr::Dense(d)) => d.clone(),
                    Some(other) => {
                        r.error(format!("'{full}' attribute 'value' must be dense elements, got {}", other.kind_name()));
                        return Err(r.finish().err().unwrap_or_default());
                    }
                    None => {
                        r.error(format!("'{full}' requires attribute 'value'"));
                        return Err(r.finish().err().unwrap_or_default());
                    }
                };
                TileAaOp::Global { sym_name, value, alignment, constant }
            }
            "get_global" => TileAaOp::GetGlobal { name: r.string("name").unwrap_or_default() },
            "join_mem_token" => TileAaOp::JoinMemToken,
            "mark_for_reuse" => TileAaOp::MarkForReuse,
            "create_queue" => TileAaOp::CreateQueue,
            "queue.put" => TileAaOp::QueuePut,
            "queue.get" => {
                let consumer_idx = match r.int("consumer_idx") {
                    None => 0,
                    Some(v) if (0..=u32::MAX as i64).contains(&v) => v as u32,
                    Some(v) => {
                        r.error(format!("'{full}' attribute 'consumer_idx' must be a non-negative 32-bit integer, got {v}"));
                        0
                    }
                };
                TileAaOp::QueueGet { consumer_idx }
            }
            "queue.yield" => TileAaOp::QueueYield,
            "execute" => TileAaOp::Execute { agents: super::tileas::AgentSpec::read_list(&mut r, &full) },
            _ => return Ok(None),
        };
        r.finish()?;
        Ok(Some(op))
    }
}

/// Whether a cuda_tile op may survive, unchanged in meaning, inside nv_tileaa and nv_tileas
/// functions.
///
/// NVIDIA's stack keeps element-wise arithmetic, math, shape and structured control flow
/// in upstream dialects (`arith`, `math`, `scf`) below cuda_tile; tileir has no separate
/// copies of those dialects, so the cuda_tile ops themselves play that part. What must
/// never survive is what the alias-aware conversion exists to rewrite: the module and
/// entry shells, views and view memory access, tokens made from nothing, and grid queries
/// (each has an nv_tileaa form).
pub fn is_residual_cuda_tile(op: crate::CtOp) -> bool {
    use crate::CtOp::*;
    !matches!(
        op,
        Module
            | Entry
            | TestingFunc
            | Global
            | Return
            | MakeTensorView
            | MakePartitionView
            | MakeStridedView
            | MakeGatherScatterView
            | LoadViewTko
            | StoreViewTko
            | AtomicRedViewTko
            | GetTileBlockId
            | GetNumTileBlocks
            | GetGlobal
            | MakeToken
    )
}
