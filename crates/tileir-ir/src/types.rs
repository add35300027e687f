//! Types of all three dialects, interned in a [`TypeTable`].
//!
//! cuda_tile (public): element types, `ptr<T>`, `tile<…>`, `tensor_view`, `partition_view`,
//! `strided_view`, `gather_scatter_view`, `token`, plus the builtin function type.
//! nv_tileaa adds scalars, address-space pointers, memrefs and memory tokens; nv_tileas
//! attaches a register [`Layout`] to tiles.

use crate::entity::UniqueArena;
use crate::entity_id;
use std::fmt::{self, Write};

entity_id!(
    /// An interned [`Type`].
    TypeId,
    "type"
);

/// Numeric element types (MLIR builtin types reused by cuda_tile).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum NumType {
    I1,
    I4,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    TF32,
    F64,
    F8E4M3FN,
    F8E5M2,
    F8E8M0FNU,
    F4E2M1FN,
}

impl NumType {
    /// Every element type, in bytecode-tag order where one exists.
    pub const ALL: [NumType; 15] = [
        NumType::I1,
        NumType::I4,
        NumType::I8,
        NumType::I16,
        NumType::I32,
        NumType::I64,
        NumType::F16,
        NumType::BF16,
        NumType::F32,
        NumType::TF32,
        NumType::F64,
        NumType::F8E4M3FN,
        NumType::F8E5M2,
        NumType::F8E8M0FNU,
        NumType::F4E2M1FN,
    ];

    /// The keyword used in text (`f32`, `f8E4M3FN`).
    pub fn keyword(self) -> &'static str {
        match self {
            NumType::I1 => "i1",
            NumType::I4 => "i4",
            NumType::I8 => "i8",
            NumType::I16 => "i16",
            NumType::I32 => "i32",
            NumType::I64 => "i64",
            NumType::F16 => "f16",
            NumType::BF16 => "bf16",
            NumType::F32 => "f32",
            NumType::TF32 => "tf32",
            NumType::F64 => "f64",
            NumType::F8E4M3FN => "f8E4M3FN",
            NumType::F8E5M2 => "f8E5M2",
            NumType::F8E8M0FNU => "f8E8M0FNU",
            NumType::F4E2M1FN => "f4E2M1FN",
        }
    }

    /// Parses a keyword (`f32`).
    pub fn from_keyword(text: &str) -> Option<NumType> {
        NumType::ALL.iter().copied().find(|t| t.keyword() == text)
    }

    /// True for the integer types (i1 … i64, i4).
    pub fn is_int(self) -> bool {
        matches!(self, NumType::I1 | NumType::I4 | NumType::I8 | NumType::I16 | NumType::I32 | NumType::I64)
    }

    /// True for every floating type.
    pub fn is_float(self) -> bool {
        !self.is_int()
    }

    /// f16, bf16, f32, f64: the types element-wise float arithmetic accepts.
    pub fn is_base_float(self) -> bool {
        matches!(self, NumType::F16 | NumType::BF16 | NumType::F32 | NumType::F64)
    }

    /// Width in bits.
    pub fn bit_width(self) -> u32 {
        match self {
            NumType::I1 => 1,
            NumType::I4 | NumType::F4E2M1FN => 4,
            NumType::I8 | NumType::F8E4M3FN | NumType::F8E5M2 | NumType::F8E8M0FNU => 8,
            NumType::I16 | NumType::F16 | NumType::BF16 => 16,
            NumType::I32 | NumType::F32 | NumType::TF32 => 32,
            NumType::I64 | NumType::F64 => 64,
        }
    }

    /// Bytes one element occupies in global memory (i1 is stored as a byte; 4-bit types
    /// report 1 here, they are packed two per byte by the ops that allow them).
    pub fn storage_bytes(self) -> u32 {
        self.bit_width().div_ceil(8).max(1)
    }
}

impl fmt::Display for NumType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// The element of a `tile<…>`: a number or a pointer to numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TileElem {
    /// A numeric element.
    Num(NumType),
    /// `ptr<T>`.
    Ptr(NumType),
}

/// A dimension size or stride that may be dynamic (`?`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Known at compile time.
    Static(i64),
    /// Known only at run time (printed `?`).
    Dynamic,
}

impl Dim {
    /// The static value, if any.
    pub fn as_static(self) -> Option<i64> {
        match self {
            Dim::Static(v) => Some(v),
            Dim::Dynamic => None,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(v) => write!(f, "{v}"),
            Dim::Dynamic => f.write_str("?"),
        }
    }
}

/// Padding value of views (`padding_value = …`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum PaddingValue {
    Zero,
    NegZero,
    Nan,
    PosInf,
    NegInf,
}

impl PaddingValue {
    /// All values, in bytecode order.
    pub const ALL: [PaddingValue; 5] =
        [PaddingValue::Zero, PaddingValue::NegZero, PaddingValue::Nan, PaddingValue::PosInf, PaddingValue::NegInf];
    /// Text keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            PaddingValue::Zero => "zero",
            PaddingValue::NegZero => "neg_zero",
            PaddingValue::Nan => "nan",
            PaddingValue::PosInf => "pos_inf",
            PaddingValue::NegInf => "neg_inf",
        }
    }
    /// Parses a keyword.
    pub fn from_keyword(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|p| p.keyword() == text)
    }

    /// The bit pattern of this padding in `elem` (integers always pad with 0). A format
    /// without the value gets the nearest it has: no infinity gives NaN, no NaN either gives
    /// the largest finite value of that sign (f4E2M1FN: ±6), and NaN in a format without
    /// one is 0.
    pub fn bits(pad: Option<PaddingValue>, elem: NumType) -> u64 {
        let (Some(pad), Some(f)) = (pad, crate::print::float_format(elem)) else { return 0 };
        let negative = matches!(pad, PaddingValue::NegZero | PaddingValue::NegInf);
        match pad {
            PaddingValue::Zero => 0,
            PaddingValue::NegZero => f.zero_bits(true).unwrap_or(0),
            PaddingValue::Nan => f.nan_bits().unwrap_or(0),
            PaddingValue::PosInf | PaddingValue::NegInf => {
                f.inf_bits(negative).or_else(|| f.nan_bits()).unwrap_or_else(|| f.max_finite_bits(negative))
            }
        }
    }
}

/// `tensor_view<shape x elem, strides=[…]>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorViewType {
    /// Element type.
    pub elem: NumType,
    /// Sizes, possibly dynamic.
    pub shape: Vec<Dim>,
    /// Strides in elements, possibly dynamic.
    pub strides: Vec<Dim>,
}

impl TensorViewType {
    /// Why the shape and strides cannot form a tensor_view (ranks differ, or a static size
    /// is not positive), in the words of NVIDIA's `TensorViewType::verify`. The parser
    /// reports this while reading the type, the verifier for types built otherwise.
    pub fn shape_problem(&self) -> Option<String> {
        if self.shape.len() != self.strides.len() {
            return Some(format!(
                "expected shape and stride to be of same rank but got shape of rank {} and stride of rank {}",
                self.shape.len(),
                self.strides.len()
            ));
        }
        if self.shape.iter().any(|d| matches!(d, Dim::Static(v) if *v <= 0)) {
            let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
            return Some(format!("dimensions must have strictly positive constant sizes but got [{}]", dims.join(", ")));
        }
        None
    }
}

/// `partition_view<tile=(…), [padding_value = X,] tensor_view<…>[, dim_map=[…]]>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PartitionViewType {
    /// Shape of one tile of the partition.
    pub tile_shape: Vec<i64>,
    /// The partitioned tensor view (an interned `TensorView` type).
    pub tensor_view: TypeId,
    /// Tile dimension `i` runs along tensor dimension `dim_map[i]` (identity when empty).
    pub dim_map: Vec<i64>,
    /// Value read for out-of-bounds elements.
    pub padding: Option<PaddingValue>,
}

/// `strided_view<tile=(…), traversal_strides=[…], [padding_value = X,] tensor_view<…>[, dim_map=[…]]>`
/// (13.3): like a partition view, but tile origins advance by `traversal_strides`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StridedViewType {
    /// Shape of one tile.
    pub tile_shape: Vec<i64>,
    /// Step between consecutive tile origins, per tensor dimension.
    pub traversal_strides: Vec<i64>,
    /// The viewed tensor view (an interned `TensorView` type).
    pub tensor_view: TypeId,
    /// Tile dimension `i` runs along tensor dimension `dim_map[i]` (identity when empty).
    pub dim_map: Vec<i64>,
    /// Value read for out-of-bounds elements.
    pub padding: Option<PaddingValue>,
}

/// `gather_scatter_view<tile=(…), [padding_value = X,] tensor_view<…>, sparse_dim=N>` (13.3):
/// rows along `sparse_dim` are chosen by a 1-D index tile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GatherScatterViewType {
    /// Shape of one tile.
    pub tile_shape: Vec<i64>,
    /// The viewed tensor view (an interned `TensorView` type).
    pub tensor_view: TypeId,
    /// The gathered dimension.
    pub sparse_dim: i64,
    /// Value read for out-of-bounds elements.
    pub padding: Option<PaddingValue>,
}

/// A register layout of a tile across the threads of a CTA (nv_tileas).
///
/// `Blocked`: dimension-wise, each thread owns `size_per_thread` contiguous elements,
/// `threads_per_warp` threads and `warps_per_cta` warps tile the CTA's footprint, and the
/// footprint repeats over the tile. `order` lists dimensions fastest-varying first.
///
/// `Mma`: the accumulator fragment of an MMA instruction family, so that an mma's result,
/// the element-wise work on it and the next mma's operand stay in the registers the
/// instructions use (version 3: Hopper's `wgmma`). `Slice`: `parent` with dimension `dim`
/// reduced away (the layout of a reduction's result).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Triton-style blocked layout.
    Blocked {
        /// Contiguous elements per thread, per dimension.
        size_per_thread: Vec<u32>,
        /// Threads of a warp, per dimension (product 32).
        threads_per_warp: Vec<u32>,
        /// Warps of the CTA, per dimension.
        warps_per_cta: Vec<u32>,
        /// Dimensions from fastest to slowest varying.
        order: Vec<u32>,
    },
    /// The wgmma accumulator fragment over a rank-2 `[M, N]` tile (version 3).
    ///
    /// `warps_per_cta = [4 * g, 1]`: `g` warpgroups stacked along M, warpgroup `i` owning the
    /// `M / g` rows from `i * M / g`. Within a warpgroup, warp `w`, lane `l` holds row
    /// `16w + l/4 + 8·e2 + 64·b` and column `8·j + 2·(l%4) + e1` for its 64-row blocks `b`,
    /// 8-column groups `j` and `e1, e2 ∈ {0, 1}`, registers in the order (b, j, e2, e1): the
    /// PTX ISA's wgmma D fragment of every instruction covering the tile. Along a dimension
    /// shorter than the fragment (`N` of 1, 2 or 4, `M` of 1), threads hold copies of the
    /// elements at their coordinates modulo the extent.
    Mma {
        /// The instruction family: 3 (wgmma) is the only one so far.
        version: u32,
        /// Warps along M and N.
        warps_per_cta: Vec<u32>,
    },
    /// `parent` with tile dimension `dim` removed: a thread holds, once each, the
    /// coordinates `parent` gives it along the other dimensions.
    Slice {
        /// The removed dimension of the parent.
        dim: u32,
        /// The layout of the unreduced tile.
        parent: Box<Layout>,
    },
}

impl Layout {
    /// Number of threads the layout spans.
    pub fn num_threads(&self) -> u32 {
        match self {
            Layout::Blocked { threads_per_warp, warps_per_cta, .. } => {
                threads_per_warp.iter().product::<u32>() * warps_per_cta.iter().product::<u32>()
            }
            Layout::Mma { warps_per_cta, .. } => 32 * warps_per_cta.iter().product::<u32>(),
            Layout::Slice { parent, .. } => parent.num_threads(),
        }
    }

    /// The rank of the tiles the layout describes.
    pub fn rank(&self) -> usize {
        match self {
            Layout::Blocked { order, .. } => order.len(),
            Layout::Mma { .. } => 2,
            Layout::Slice { parent, .. } => parent.rank().saturating_sub(1),
        }
    }

    /// Whether this is a `Blocked` layout.
    pub fn is_blocked(&self) -> bool {
        matches!(self, Layout::Blocked { .. })
    }
}

/// Every type of every dialect. Interned: compare [`TypeId`]s, not `Type`s.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A bare element type (`f32`): an nv_tileaa scalar, or an element in attributes.
    Scalar(NumType),
    /// cuda_tile `tile<shape x elem>` (rank 0 = scalar tile); in nv_tileas with a layout.
    Tile {
        /// Static shape; empty for rank 0.
        shape: Vec<i64>,
        /// Element type.
        elem: TileElem,
        /// Register layout (nv_tileas only).
        layout: Option<Layout>,
    },
    /// cuda_tile `tensor_view`.
    TensorView(TensorViewType),
    /// cuda_tile `partition_view`.
    PartitionView(PartitionViewType),
    /// cuda_tile `strided_view` (13.3).
    StridedView(StridedViewType),
    /// cuda_tile `gather_scatter_view` (13.3).
    GatherScatterView(GatherScatterViewType),
    /// cuda_tile `token`.
    Token,
    /// A type tileir does not model (a builtin `tensor<4xf32>`, `index`, or `!other.type`),
    /// kept verbatim so that verifiers can reject it by name.
    Opaque(String),
    /// Builtin function type `(inputs) -> results`.
    Function {
        /// Parameter types.
        inputs: Vec<TypeId>,
        /// Result types.
        results: Vec<TypeId>,
    },
    /// nv_tileaa `!nv_tileaa.ptr<T, addrspace>`.
    AaPtr {
        /// Pointee.
        pointee: NumType,
        /// NVPTX address space (1 = global).
        addr_space: u32,
    },
    /// nv_tileaa `!nv_tileaa.memref<shape x elem, strides=[…], addrspace>`.
    MemRef {
        /// Element type.
        elem: NumType,
        /// Sizes.
        shape: Vec<Dim>,
        /// Strides in elements.
        strides: Vec<Dim>,
        /// Address space.
        addr_space: u32,
    },
    /// nv_tileaa `!nv_tileaa.mem_token`.
    MemToken,
    /// nv_tileaa `!nv_tileaa.queue<depth, [T, …]>`: a bounded FIFO between producer and
    /// consumer agents, each entry a tuple of values of the listed types.
    Queue {
        /// Entries the queue holds before a producer must wait.
        depth: u32,
        /// Types of one entry.
        elems: Vec<TypeId>,
    },
    /// nv_tileas `!nv_tileas.pipeline<stages=S, consumers=C, [T, …]>`: the operational
    /// form of a queue, `S` stage buffers each holding one entry, released by `C` consumers.
    Pipeline {
        /// Stage buffers (≥ 1).
        stages: u32,
        /// Consumers that must release a stage before the producer may refill it (≥ 1).
        consumers: u32,
        /// Types of one stage's entry.
        elems: Vec<TypeId>,
    },
    /// nv_tileas `!nv_tileas.iterator<!nv_tileas.pipeline<…>>`: a position in a pipeline
    /// (stage = position mod S, phase = (position div S) mod 2). The pipeline type travels
    /// with it so that loop-carried iterators keep the element types they index.
    PipelineIterator {
        /// The pipeline type it iterates.
        pipeline: TypeId,
    },
    /// nv_tileas `!nv_tileas.producer_token<T, …>`: ownership of one acquired stage.
    ProducerToken {
        /// Types of the stage's entry.
        elems: Vec<TypeId>,
    },
    /// nv_tileas `!nv_tileas.consumer_token<T, …>`: one committed stage being consumed.
    ConsumerToken {
        /// Types of the stage's entry.
        elems: Vec<TypeId>,
    },
    /// nv_tileas `!nv_tileas.async.token`: completion of an asynchronous operation.
    AsyncToken,
    /// nv_tileas `!nv_tileas.tma_desc<tma_load, 64x32xf16>`: a tensor-memory-accelerator
    /// descriptor for boxes of the given shape.
    TmaDesc {
        /// Load or store atom the descriptor was built for.
        kind: TmaKind,
        /// Box shape (the tile one transfer moves).
        box_shape: Vec<i64>,
        /// Element type.
        elem: NumType,
    },
    /// nv_tileas `!nv_tileas.smem<64x32xf16, swizzle=128>`: a tile-shaped shared-memory
    /// buffer (row-major, innermost dimension last) with a TMA/wgmma swizzle mode.
    SmemTile {
        /// Shape.
        shape: Vec<i64>,
        /// Element type.
        elem: NumType,
        /// Swizzle span in bytes: 0 (none), 32, 64 or 128.
        swizzle: u32,
    },
}

/// Direction of a TMA atom.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TmaKind {
    /// Global → shared.
    Load,
    /// Shared → global.
    Store,
}

impl TmaKind {
    /// Text spelling (`tma_load`, `tma_store`).
    pub fn keyword(self) -> &'static str {
        match self {
            TmaKind::Load => "tma_load",
            TmaKind::Store => "tma_store",
        }
    }
    /// Parses a spelling.
    pub fn from_keyword(s: &str) -> Option<TmaKind> {
        match s {
            "tma_load" => Some(TmaKind::Load),
            "tma_store" => Some(TmaKind::Store),
            _ => None,
        }
    }
}

/// Swizzle spans a TMA transfer and a wgmma shared-memory descriptor understand.
pub const SMEM_SWIZZLES: [u32; 4] = [0, 32, 64, 128];

impl Type {
    /// The shape if this is a tile.
    pub fn tile_shape(&self) -> Option<&[i64]> {
        match self {
            Type::Tile { shape, .. } => Some(shape),
            _ => None,
        }
    }
    /// True for `tile<…>` whose rank is 0.
    pub fn is_scalar_tile(&self) -> bool {
        matches!(self, Type::Tile { shape, .. } if shape.is_empty())
    }
}

/// The interner for types of one module.
#[derive(Clone, Default)]
pub struct TypeTable {
    arena: UniqueArena<TypeId, Type>,
}

impl TypeTable {
    /// Interns `ty`.
    pub fn intern(&mut self, ty: Type) -> TypeId {
        self.arena.intern(ty)
    }
    /// The type behind `id`.
    pub fn get(&self, id: TypeId) -> &Type {
        &self.arena[id]
    }
    /// The type behind `id` if in range.
    pub fn try_get(&self, id: TypeId) -> Option<&Type> {
        self.arena.get(id)
    }
    /// `tile<shape x elem>` without layout.
    pub fn tile(&mut self, shape: &[i64], elem: TileElem) -> TypeId {
        self.intern(Type::Tile { shape: shape.to_vec(), elem, layout: None })
    }
    /// Rank-0 `tile<elem>`.
    pub fn scalar_tile(&mut self, elem: NumType) -> TypeId {
        self.tile(&[], TileElem::Num(elem))
    }
    /// A bare scalar.
    pub fn scalar(&mut self, elem: NumType) -> TypeId {
        self.intern(Type::Scalar(elem))
    }
    /// cuda_tile `token`.
    pub fn token(&mut self) -> TypeId {
        self.intern(Type::Token)
    }
    /// nv_tileaa mem token.
    pub fn mem_token(&mut self) -> TypeId {
        self.intern(Type::MemToken)
    }
    /// Copies type `id` of `other` into this table (recursively), returning its id here.
    pub fn import(&mut self, other: &TypeTable, id: TypeId) -> TypeId {
        let ty = match other.get(id).clone() {
            Type::PartitionView(mut pv) => {
                pv.tensor_view = self.import(other, pv.tensor_view);
                Type::PartitionView(pv)
            }
            Type::StridedView(mut sv) => {
                sv.tensor_view = self.import(other, sv.tensor_view);
                Type::StridedView(sv)
            }
            Type::GatherScatterView(mut gv) => {
                gv.tensor_view = self.import(other, gv.tensor_view);
                Type::GatherScatterView(gv)
            }
            Type::Function { inputs, results } => Type::Function {
                inputs: inputs.iter().map(|&t| self.import(other, t)).collect(),
                results: results.iter().map(|&t| self.import(other, t)).collect(),
            },
            ty => ty,
        };
        self.intern(ty)
    }

    /// Renders `id` as text. `short` omits the `!cuda_tile.` prefix (inside cuda_tile regions).
    pub fn display(&self, id: TypeId, short: bool) -> String {
        let mut out = String::new();
        self.write(&mut out, id, short);
        out
    }

    /// Entry types inside nv_tileaa/nv_tileas types print in the short form (`tile<4xf32>`)
    /// whatever the context, so a type has one spelling.
    fn write_list(&self, out: &mut String, ids: &[TypeId], short: bool) {
        for (i, t) in ids.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write(out, *t, short);
        }
    }

    /// Writes the text of `id`.
    pub fn write(&self, out: &mut String, id: TypeId, short: bool) {
        let ct = if short { "" } else { "!cuda_tile." };
        match self.try_get(id) {
            None => {
                let _ = write!(out, "<<invalid {id}>>");
            }
            Some(ty) => match ty {
                Type::Scalar(n) => out.push_str(n.keyword()),
                Type::Tile { shape, elem, layout } => {
                    let _ = write!(out, "{ct}tile<");
                    for d in shape {
                        let _ = write!(out, "{d}x");
                    }
                    match elem {
                        TileElem::Num(n) => out.push_str(n.keyword()),
                        TileElem::Ptr(n) => {
                            let _ = write!(out, "{ct}ptr<{n}>");
                        }
                    }
                    if let Some(layout) = layout {
                        out.push_str(", ");
                        write_layout(out, layout);
                    }
                    out.push('>');
                }
                Type::TensorView(tv) => write_tensor_view(out, tv, ct),
                Type::PartitionView(pv) => {
                    let _ = write!(out, "{ct}partition_view<tile=(");
                    write_joined(out, &pv.tile_shape, "x");
                    out.push(')');
                    if let Some(p) = pv.padding {
                        let _ = write!(out, ", padding_value = {}", p.keyword());
                    }
                    out.push_str(", ");
                    self.write(out, pv.tensor_view, true);
                    let identity = pv.dim_map.iter().enumerate().all(|(i, &d)| d == i as i64);
                    if !pv.dim_map.is_empty() && !identity {
                        out.push_str(", dim_map=[");
                        write_joined(out, &pv.dim_map, ", ");
                        out.push(']');
                    }
                    out.push('>');
                }
                Type::StridedView(sv) => {
                    let _ = write!(out, "{ct}strided_view<tile=(");
                    write_joined(out, &sv.tile_shape, "x");
                    out.push_str("), traversal_strides=[");
                    write_joined(out, &sv.traversal_strides, ",");
                    out.push(']');
                    if let Some(p) = sv.padding {
                        let _ = write!(out, ", padding_value = {}", p.keyword());
                    }
                    out.push_str(", ");
                    self.write(out, sv.tensor_view, true);
                    let identity = sv.dim_map.iter().enumerate().all(|(i, &d)| d == i as i64);
                    if !sv.dim_map.is_empty() && !identity {
                        out.push_str(", dim_map=[");
                        write_joined(out, &sv.dim_map, ", ");
                        out.push(']');
                    }
                    out.push('>');
                }
                Type::GatherScatterView(gv) => {
                    let _ = write!(out, "{ct}gather_scatter_view<tile=(");
                    write_joined(out, &gv.tile_shape, "x");
                    out.push(')');
                    if let Some(p) = gv.padding {
                        let _ = write!(out, ", padding_value = {}", p.keyword());
                    }
                    out.push_str(", ");
                    self.write(out, gv.tensor_view, true);
                    let _ = write!(out, ", sparse_dim={}>", gv.sparse_dim);
                }
                Type::Opaque(text) => out.push_str(text),
                Type::Token => {
                    let _ = write!(out, "{ct}token");
                }
                Type::Function { inputs, results } => {
                    out.push('(');
                    for (i, t) in inputs.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        self.write(out, *t, short);
                    }
                    out.push_str(") -> ");
                    if results.len() == 1 {
                        self.write(out, results[0], short);
                    } else {
                        out.push('(');
                        for (i, t) in results.iter().enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            self.write(out, *t, short);
                        }
                        out.push(')');
                    }
                }
                Type::AaPtr { pointee, addr_space } => {
                    let _ = write!(out, "!nv_tileaa.ptr<{pointee}, {addr_space}>");
                }
                Type::MemRef { elem, shape, strides, addr_space } => {
                    out.push_str("!nv_tileaa.memref<");
                    for d in shape {
                        let _ = write!(out, "{d}x");
                    }
                    let _ = write!(out, "{elem}, strides=[");
                    write_joined(out, strides, ",");
                    let _ = write!(out, "], {addr_space}>");
                }
                Type::MemToken => out.push_str("!nv_tileaa.mem_token"),
                Type::Queue { depth, elems } => {
                    let _ = write!(out, "!nv_tileaa.queue<{depth}, [");
                    self.write_list(out, elems, true);
                    out.push_str("]>");
                }
                Type::Pipeline { stages, consumers, elems } => {
                    let _ = write!(out, "!nv_tileas.pipeline<stages={stages}, consumers={consumers}, [");
                    self.write_list(out, elems, true);
                    out.push_str("]>");
                }
                Type::PipelineIterator { pipeline } => {
                    out.push_str("!nv_tileas.iterator<");
                    self.write(out, *pipeline, true);
                    out.push('>');
                }
                Type::ProducerToken { elems } | Type::ConsumerToken { elems } => {
                    let role = if matches!(ty, Type::ProducerToken { .. }) { "producer" } else { "consumer" };
                    let _ = write!(out, "!nv_tileas.{role}_token<");
                    self.write_list(out, elems, true);
                    out.push('>');
                }
                Type::AsyncToken => out.push_str("!nv_tileas.async.token"),
                Type::TmaDesc { kind, box_shape, elem } => {
                    let _ = write!(out, "!nv_tileas.tma_desc<{}, ", kind.keyword());
                    for d in box_shape {
                        let _ = write!(out, "{d}x");
                    }
                    let _ = write!(out, "{elem}>");
                }
                Type::SmemTile { shape, elem, swizzle } => {
                    out.push_str("!nv_tileas.smem<");
                    for d in shape {
                        let _ = write!(out, "{d}x");
                    }
                    let _ = write!(out, "{elem}, swizzle={swizzle}>");
                }
            },
        }
    }
}

fn write_tensor_view(out: &mut String, tv: &TensorViewType, ct: &str) {
    let _ = write!(out, "{ct}tensor_view<");
    for d in &tv.shape {
        let _ = write!(out, "{d}x");
    }
    out.push_str(tv.elem.keyword());
    if !tv.shape.is_empty() {
        out.push_str(", strides=[");
        write_joined(out, &tv.strides, ",");
        out.push(']');
    }
    out.push('>');
}

fn write_layout(out: &mut String, layout: &Layout) {
    match layout {
        Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order } => {
            out.push_str("#nv_tileas.blocked<size_per_thread=[");
            write_joined(out, size_per_thread, ", ");
            out.push_str("], threads_per_warp=[");
            write_joined(out, threads_per_warp, ", ");
            out.push_str("], warps_per_cta=[");
            write_joined(out, warps_per_cta, ", ");
            out.push_str("], order=[");
            write_joined(out, order, ", ");
            out.push_str("]>");
        }
        Layout::Mma { version, warps_per_cta } => {
            let _ = write!(out, "#nv_tileas.mma<version={version}, warps_per_cta=[");
            write_joined(out, warps_per_cta, ", ");
            out.push_str("]>");
        }
        Layout::Slice { dim, parent } => {
            let _ = write!(out, "#nv_tileas.slice<dim={dim}, parent=");
            write_layout(out, parent);
            out.push('>');
        }
    }
}

/// Writes `items` separated by `sep`.
pub fn write_joined<T: fmt::Display>(out: &mut String, items: &[T], sep: &str) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        let _ = write!(out, "{item}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_cuda_tile_types_short_and_long() {
        let mut t = TypeTable::default();
        let tile = t.tile(&[128], TileElem::Num(NumType::F32));
        assert_eq!(t.display(tile, true), "tile<128xf32>");
        assert_eq!(t.display(tile, false), "!cuda_tile.tile<128xf32>");
        let p = t.tile(&[], TileElem::Ptr(NumType::F16));
        assert_eq!(t.display(p, true), "tile<ptr<f16>>");
        let tv = t.intern(Type::TensorView(TensorViewType {
            elem: NumType::F32,
            shape: vec![Dim::Dynamic, Dim::Static(128)],
            strides: vec![Dim::Static(128), Dim::Static(1)],
        }));
        assert_eq!(t.display(tv, true), "tensor_view<?x128xf32, strides=[128,1]>");
        let pv = t.intern(Type::PartitionView(PartitionViewType {
            tile_shape: vec![8, 16],
            tensor_view: tv,
            dim_map: vec![1, 0],
            padding: Some(PaddingValue::Nan),
        }));
        assert_eq!(
            t.display(pv, true),
            "partition_view<tile=(8x16), padding_value = nan, tensor_view<?x128xf32, strides=[128,1]>, dim_map=[1, 0]>"
        );
    }

    #[test]
    fn equal_types_intern_to_one_id() {
        let mut t = TypeTable::default();
        let a = t.tile(&[4], TileElem::Num(NumType::I32));
        let b = t.tile(&[4], TileElem::Num(NumType::I32));
        assert_eq!(a, b);
    }

    #[test]
    fn every_keyword_round_trips() {
        for n in NumType::ALL {
            assert_eq!(NumType::from_keyword(n.keyword()), Some(n));
        }
    }
}
