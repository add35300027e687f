//! Runtime values: dense tiles, tokens, views and memrefs.
//!
//! A tile stores its elements in one typed vector chosen by the element type, so that every
//! op is a whole-array loop:
//! - integers (i1, i4, i8 … i64): `Vec<i64>`, each element the *sign-extended* value of its
//!   bit pattern (i1 `true` is −1, as the signed reading of `1`); signless ops re-canonicalize,
//!   unsigned ops mask.
//! - f64: `Vec<f64>`.
//! - every other float (f16, bf16, f32, tf32, fp8, fp4, e8m0): `Vec<f32>` holding the exact
//!   value (every value of those formats is an `f32`); NaN payloads are kept so that bit
//!   patterns survive data movement and bitcasts. tf32 keeps its 32 raw bits.
//! - pointers: `Vec<u64>` addresses. A pointer to a 4-bit type (`ptr<f4E2M1FN>`) addresses a
//!   half byte: see [`SubBytePtr`].

use crate::float::{bits_to_f32_storage, f32_storage_to_bits};
use tileir_ir::{NumType, PaddingValue, TileElem};

/// The elements of a tile, in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Integers, sign-extended from their width.
    Int(Vec<i64>),
    /// Floats of at most 32 bits, as exact `f32` values.
    F32(Vec<f32>),
    /// f64.
    F64(Vec<f64>),
    /// Pointers (byte addresses).
    Ptr(Vec<u64>),
}

impl Data {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::Int(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::Ptr(v) => v.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty vector of the storage class of `elem`, with room for `n`.
    pub fn with_capacity(elem: TileElem, n: usize) -> Data {
        match elem {
            TileElem::Ptr(_) => Data::Ptr(Vec::with_capacity(n)),
            TileElem::Num(t) if t.is_int() => Data::Int(Vec::with_capacity(n)),
            TileElem::Num(NumType::F64) => Data::F64(Vec::with_capacity(n)),
            TileElem::Num(_) => Data::F32(Vec::with_capacity(n)),
        }
    }

    /// The elements at `idx`, in that order.
    pub fn gather(&self, idx: &[usize]) -> Data {
        match self {
            Data::Int(v) => Data::Int(idx.iter().map(|&i| v[i]).collect()),
            Data::F32(v) => Data::F32(idx.iter().map(|&i| v[i]).collect()),
            Data::F64(v) => Data::F64(idx.iter().map(|&i| v[i]).collect()),
            Data::Ptr(v) => Data::Ptr(idx.iter().map(|&i| v[i]).collect()),
        }
    }

    /// Appends the elements of `other` in `range` (same storage class).
    pub fn extend_from(&mut self, other: &Data, range: std::ops::Range<usize>) {
        match (self, other) {
            (Data::Int(a), Data::Int(b)) => a.extend_from_slice(&b[range]),
            (Data::F32(a), Data::F32(b)) => a.extend_from_slice(&b[range]),
            (Data::F64(a), Data::F64(b)) => a.extend_from_slice(&b[range]),
            (Data::Ptr(a), Data::Ptr(b)) => a.extend_from_slice(&b[range]),
            _ => unreachable!("storage classes of one element type agree"),
        }
    }

    /// Appends `n` copies of element 0 of `other` (same storage class).
    pub fn extend_repeat(&mut self, other: &Data, n: usize) {
        match (self, other) {
            (Data::Int(a), Data::Int(b)) => a.resize(a.len() + n, b[0]),
            (Data::F32(a), Data::F32(b)) => a.resize(a.len() + n, b[0]),
            (Data::F64(a), Data::F64(b)) => a.resize(a.len() + n, b[0]),
            (Data::Ptr(a), Data::Ptr(b)) => a.resize(a.len() + n, b[0]),
            _ => unreachable!("storage classes of one element type agree"),
        }
    }

    /// Overwrites element `dst` of `self` with element `src` of `other`.
    pub fn set_from(&mut self, dst: usize, other: &Data, src: usize) {
        match (self, other) {
            (Data::Int(a), Data::Int(b)) => a[dst] = b[src],
            (Data::F32(a), Data::F32(b)) => a[dst] = b[src],
            (Data::F64(a), Data::F64(b)) => a[dst] = b[src],
            (Data::Ptr(a), Data::Ptr(b)) => a[dst] = b[src],
            _ => unreachable!("storage classes of one element type agree"),
        }
    }
}

/// Sign-extends the low `width` bits of `x` (the canonical integer form).
#[inline]
pub fn canon(width: u32, x: i64) -> i64 {
    if width >= 64 {
        x
    } else {
        let s = 64 - width;
        (x << s) >> s
    }
}

/// The low `width` bits of `x`, as unsigned.
#[inline]
pub fn unsigned(width: u32, x: i64) -> u64 {
    if width >= 64 {
        x as u64
    } else {
        (x as u64) & ((1u64 << width) - 1)
    }
}

/// The encoding of pointers to 4-bit elements (`ptr<f4E2M1FN>`).
///
/// Memory layout (as NVIDIA defines it for f4E2M1FN): elements are packed two per byte, the
/// element at the lower index in bits 3..0 and the next one in bits 7..4. Pointer arithmetic
/// counts elements (`offset` by `k` moves `4k` bits, per the rule that pointer arithmetic uses
/// the pointee's size), so a pointer may address the high half of a byte. The interpreter
/// keeps such a pointer as its byte address with bit 63 set ([`SubBytePtr::HIGH`]);
/// interpreter addresses never reach bit 63, so the two forms cannot be confused. A
/// pointer into the middle of a byte has no byte address: `ptr_to_int`, `ptr_to_ptr` to a
/// wider type and `make_tensor_view` (whose tensors must start on a byte) report it as
/// undefined behaviour instead of rounding it to its byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SubBytePtr {
    /// Address of the byte holding the element.
    pub byte: u64,
    /// True for the high nibble (bits 7..4), the odd element of the byte.
    pub high: bool,
}

impl SubBytePtr {
    /// The flag bit of an encoded pointer to the high nibble of its byte.
    pub const HIGH: u64 = 1 << 63;

    /// Decodes a pointer value.
    #[inline]
    pub fn decode(v: u64) -> SubBytePtr {
        SubBytePtr {
            byte: v & !SubBytePtr::HIGH,
            high: v & SubBytePtr::HIGH != 0,
        }
    }

    /// Encodes as a pointer value.
    #[inline]
    pub fn encode(self) -> u64 {
        self.byte | if self.high { SubBytePtr::HIGH } else { 0 }
    }

    /// Position in half bytes from address 0 (wrapping in the 63-bit address space).
    #[inline]
    pub fn nibble_index(self) -> u64 {
        (self.byte << 1) | self.high as u64
    }

    /// The pointer at half-byte position `n` (wrapping in the 63-bit address space).
    #[inline]
    pub fn from_nibble_index(n: u64) -> SubBytePtr {
        SubBytePtr {
            byte: (n >> 1) & !SubBytePtr::HIGH,
            high: n & 1 == 1,
        }
    }
}

/// True for element types packed two per byte in memory (f4E2M1FN; i4 never reaches memory).
#[inline]
pub fn is_sub_byte(t: NumType) -> bool {
    t.bit_width() == 4
}

/// A dense tile value.
#[derive(Clone, Debug, PartialEq)]
pub struct Tile {
    /// Shape (empty for rank 0).
    pub shape: Vec<usize>,
    /// Element type.
    pub elem: TileElem,
    /// Elements, row-major.
    pub data: Data,
}

impl Tile {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the tile has no elements (never for valid IR).
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The numeric element type (pointers report their pointee).
    pub fn num(&self) -> NumType {
        match self.elem {
            TileElem::Num(t) | TileElem::Ptr(t) => t,
        }
    }

    /// A tile from raw bit patterns of `elem` (low bits significant).
    pub fn from_bits(
        shape: Vec<usize>,
        elem: TileElem,
        bits: impl IntoIterator<Item = u64>,
    ) -> Tile {
        let data = match elem {
            TileElem::Ptr(_) => Data::Ptr(bits.into_iter().collect()),
            TileElem::Num(t) if t.is_int() => {
                let w = t.bit_width();
                Data::Int(bits.into_iter().map(|b| canon(w, b as i64)).collect())
            }
            TileElem::Num(NumType::F64) => {
                Data::F64(bits.into_iter().map(f64::from_bits).collect())
            }
            TileElem::Num(t) => Data::F32(
                bits.into_iter()
                    .map(|b| bits_to_f32_storage(t, b))
                    .collect(),
            ),
        };
        Tile { shape, elem, data }
    }

    /// The raw bit pattern of every element (zero-extended to 64 bits).
    pub fn to_bits(&self) -> Vec<u64> {
        match (&self.data, self.elem) {
            (Data::Int(v), TileElem::Num(t)) => {
                let w = t.bit_width();
                v.iter().map(|&x| unsigned(w, x)).collect()
            }
            (Data::F32(v), TileElem::Num(t)) => {
                v.iter().map(|&x| f32_storage_to_bits(t, x)).collect()
            }
            (Data::F64(v), _) => v.iter().map(|x| x.to_bits()).collect(),
            (Data::Ptr(v), _) => v.clone(),
            _ => unreachable!("storage class follows the element type"),
        }
    }

    /// Bits of element `i`.
    pub fn bits_at(&self, i: usize) -> u64 {
        match (&self.data, self.elem) {
            (Data::Int(v), TileElem::Num(t)) => unsigned(t.bit_width(), v[i]),
            (Data::F32(v), TileElem::Num(t)) => f32_storage_to_bits(t, v[i]),
            (Data::F64(v), _) => v[i].to_bits(),
            (Data::Ptr(v), _) => v[i],
            _ => unreachable!("storage class follows the element type"),
        }
    }

    /// A rank-0 integer tile.
    pub fn scalar_int(t: NumType, v: i64) -> Tile {
        Tile {
            shape: vec![],
            elem: TileElem::Num(t),
            data: Data::Int(vec![canon(t.bit_width(), v)]),
        }
    }

    /// The integers (panics on a non-integer tile: callers check types first).
    pub fn ints(&self) -> &[i64] {
        match &self.data {
            Data::Int(v) => v,
            _ => panic!("not an integer tile"),
        }
    }

    /// The bit pattern of the padding value `pad` in `elem` (zero for `None`).
    pub fn padding_bits(elem: NumType, pad: Option<PaddingValue>) -> u64 {
        PaddingValue::bits(pad, elem)
    }
}

/// A tensor view at run time: base address, element type, sizes and strides (in elements).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorView {
    /// Base address.
    pub base: u64,
    /// Element type.
    pub elem: NumType,
    /// Sizes.
    pub shape: Vec<u64>,
    /// Strides in elements.
    pub strides: Vec<u64>,
}

/// How a tile view places tiles over its tensor view.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewKind {
    /// `partition_view`: tile origins at multiples of the tile shape.
    Partition,
    /// `strided_view`: tile origins at multiples of `traversal_strides` (per tile dimension).
    Strided(Vec<u64>),
    /// `gather_scatter_view`: rows along `sparse_dim` picked by a 1-D index tile.
    GatherScatter(usize),
}

/// A partition, strided or gather/scatter view at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct TileView {
    /// The viewed tensor.
    pub tensor: TensorView,
    /// Tile shape.
    pub tile_shape: Vec<u64>,
    /// Tile dimension `i` runs along tensor dimension `dim_map[i]`.
    pub dim_map: Vec<usize>,
    /// Out-of-bounds value.
    pub padding: Option<PaddingValue>,
    /// Placement.
    pub kind: ViewKind,
}

impl TileView {
    /// The index space shape (one entry per tile dimension).
    pub fn index_space(&self) -> Vec<u64> {
        (0..self.tile_shape.len())
            .map(|i| {
                let dim = self.tensor.shape[self.dim_map[i]];
                let tile = self.tile_shape[i];
                match &self.kind {
                    ViewKind::Partition => dim.div_ceil(tile),
                    // Origins needed to cover the tensor: partial edge tiles count, origins
                    // past the point where an earlier tile already reaches the end do not.
                    ViewKind::Strided(s) => {
                        if dim <= tile {
                            1
                        } else {
                            (dim - tile).div_ceil(s[i]) + 1
                        }
                    }
                    ViewKind::GatherScatter(sparse) => {
                        if *sparse == i {
                            1
                        } else {
                            dim.div_ceil(tile)
                        }
                    }
                }
            })
            .collect()
    }
}

/// A runtime value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A tile.
    Tile(Tile),
    /// An ordering token (no runtime content).
    Token,
    /// A tensor view.
    TensorView(TensorView),
    /// A partition/strided/gather-scatter view.
    View(TileView),
    /// An nv_tileaa memref (`make_memref`): base, element type, sizes and strides, like a
    /// tensor view.
    MemRef(TensorView),
    /// A handle of the asynchronous runtime (pipelines, iterators, tokens, queues).
    Async(AsyncValue),
    /// An nv_tileas shared-memory buffer (`alloc_tensor`; views of it share it).
    Smem(SmemBuffer),
}

/// A shared-memory buffer as the interpreter models it: a value holder with the last tile
/// `copy` stored into it (`None` until then). Clones (and views) share the cell; readers
/// reinterpret the stored bits as the type they read.
#[derive(Clone, Debug, Default)]
pub struct SmemBuffer(pub std::sync::Arc<std::sync::Mutex<Option<Tile>>>);

impl PartialEq for SmemBuffer {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Values of the async pipeline ops: handles into the block's [`crate::agents::AsyncWorld`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncValue {
    /// A pipeline (or the pipeline behind an nv_tileaa queue).
    Pipeline(usize),
    /// A position in a pipeline.
    Iterator {
        /// The pipeline.
        pipe: usize,
        /// Position (stage = pos mod S, round = pos div S).
        pos: u64,
    },
    /// An acquired stage.
    ProducerToken {
        /// The pipeline.
        pipe: usize,
        /// Position.
        pos: u64,
    },
    /// A stage being consumed.
    ConsumerToken {
        /// The pipeline.
        pipe: usize,
        /// Position.
        pos: u64,
        /// Which consumer.
        consumer: u32,
    },
    /// An async token: the interpreter completes asynchronous operations at once.
    Done,
}
