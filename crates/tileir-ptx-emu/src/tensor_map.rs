//! The 128-byte tensor map (`CUtensorMap`) of TMA copies, tile mode: a typed description,
//! validation with the rules `cuTensorMapEncodeTiled` documents, and an encoder/decoder of
//! the 128 bytes.
//!
//! NVIDIA does not document the byte layout. The placement below is our own code, written
//! from facts in public reverse-engineering material:
//!
//! - field order and bit positions: the `lwdaTmaDescTiled` / `set_tensor_common_1` /
//!   `set_tensor_stride` / `set_box_size` helpers of the "xmma hopper emu" TMA utility headers
//!   that circulate in public repositories (`lwda_tma_utils.h`, `tma_types.h`): a 64-bit
//!   address, a 32-bit word of mode bits, strides stored `>> 4` as 32 low bits plus a 4-bit
//!   high nibble per dimension, sizes stored minus one, 3-bit element strides minus one and
//!   8-bit box sizes minus one;
//! - the enum values of swizzle (0 none, 1 32B, 2 64B, 3 128B), interleave, L2 promotion and
//!   out-of-bounds fill: the public `CUtensorMap*` enums, which the same headers share;
//! - the hardware format codes (u8 0 … bf16 10): the same headers' `format_t`, which
//!   numbers f64 and bf16 differently from `CUtensorMapDataType` (8 and 9 there).
//!
//! UNVERIFIED until a GPU run compares [`TensorMap::encode`] with the bytes
//! `cuTensorMapEncodeTiled` writes: every placement here. Most doubtful: the version field
//! (bits 1..4 = 1), box dimension 0 of a rank-1 map (those headers only place it for rank >
//! 1; we place it at bits 24..32 of word 52 for every rank), the tf32 encodings (f32 formats
//! with the `f32_to_tf32` bit), and whether the driver writes bytes 60..128 (we keep them
//! zero and reject maps that do not). The emulator only needs encode and decode to agree,
//! so a wrong placement cannot make an emulated kernel compute a wrong value; it would make
//! a map the real driver wrote fail to decode here.
//!
//! Layout (little-endian):
//!
//! | bytes   | field |
//! |---------|-------|
//! | 0..8    | global address |
//! | 8..12   | bit 0 mode (0 tile, 1 im2col), bits 1..4 version (1), bits 4..7 rank-1, bits 7..11 format, bits 11..13 interleave, bits 13..15 swizzle, bit 15 oob fill, bit 16 f32→tf32, bits 17..19 L2 promotion |
//! | 12..28  | stride[i] >> 4, low 32 bits, i = 0..4 (strides of dimensions 1..rank) |
//! | 28..32  | stride[i] >> 4 bits 32..36, a nibble per i |
//! | 32..52  | dims[i] - 1, 32 bits each |
//! | 52..56  | bits 3i..3i+3: element_strides[i] - 1; bits 24..32: box_dims[0] - 1 |
//! | 56..60  | byte i-1: box_dims[i] - 1, i = 1..5 |
//! | 60..128 | zero |

use std::fmt;

/// Element types (`CUtensorMapDataType` numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DataType {
    /// CU_TENSOR_MAP_DATA_TYPE_UINT8
    U8 = 0,
    /// UINT16
    U16 = 1,
    /// UINT32
    U32 = 2,
    /// INT32
    I32 = 3,
    /// UINT64
    U64 = 4,
    /// INT64
    I64 = 5,
    /// FLOAT16
    F16 = 6,
    /// FLOAT32
    F32 = 7,
    /// FLOAT64
    F64 = 8,
    /// BFLOAT16
    Bf16 = 9,
    /// FLOAT32_FTZ
    F32Ftz = 10,
    /// TFLOAT32
    Tf32 = 11,
    /// TFLOAT32_FTZ
    Tf32Ftz = 12,
}

impl DataType {
    /// All types, in `CUtensorMapDataType` order.
    pub const ALL: [DataType; 13] = [
        DataType::U8,
        DataType::U16,
        DataType::U32,
        DataType::I32,
        DataType::U64,
        DataType::I64,
        DataType::F16,
        DataType::F32,
        DataType::F64,
        DataType::Bf16,
        DataType::F32Ftz,
        DataType::Tf32,
        DataType::Tf32Ftz,
    ];

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            DataType::U8 => 1,
            DataType::U16 | DataType::F16 | DataType::Bf16 => 2,
            DataType::U32 | DataType::I32 | DataType::F32 | DataType::F32Ftz | DataType::Tf32 | DataType::Tf32Ftz => 4,
            DataType::U64 | DataType::I64 | DataType::F64 => 8,
        }
    }

    /// A floating-point type (the NaN out-of-bounds fill needs one).
    pub fn is_float(self) -> bool {
        matches!(self, DataType::F16 | DataType::F32 | DataType::F64 | DataType::Bf16 | DataType::F32Ftz | DataType::Tf32 | DataType::Tf32Ftz)
    }

    /// (hardware format code, f32→tf32 bit).
    fn hw(self) -> (u32, u32) {
        match self {
            DataType::U8 => (0, 0),
            DataType::U16 => (1, 0),
            DataType::U32 => (2, 0),
            DataType::I32 => (3, 0),
            DataType::U64 => (4, 0),
            DataType::I64 => (5, 0),
            DataType::F16 => (6, 0),
            DataType::F32 => (7, 0),
            DataType::F32Ftz => (8, 0),
            DataType::F64 => (9, 0),
            DataType::Bf16 => (10, 0),
            DataType::Tf32 => (7, 1),
            DataType::Tf32Ftz => (8, 1),
        }
    }

    fn from_hw(format: u32, tf32: u32) -> Option<DataType> {
        DataType::ALL.into_iter().find(|t| t.hw() == (format, tf32))
    }
}

/// Shared-memory swizzle (`CUtensorMapSwizzle` numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Swizzle {
    /// No swizzle.
    None = 0,
    /// 32-byte span (CUTLASS Swizzle<1,4,3>).
    B32 = 1,
    /// 64-byte span (Swizzle<2,4,3>).
    B64 = 2,
    /// 128-byte span (Swizzle<3,4,3>).
    B128 = 3,
}

impl Swizzle {
    /// The span in bytes (0: none).
    pub fn span(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// Bytes after which the pattern repeats (8 rows of the span).
    pub fn repeat(self) -> u64 {
        self.span() * 8
    }

    /// The swizzled shared-memory byte address of linear byte address `a`: the 16-byte
    /// chunk index inside each span (address bits 4..4+b) is XORed with the span-row index
    /// bits 7..7+b, b = 1, 2, 3 for 32, 64, 128 bytes (CUTLASS Swizzle<b,4,3>).
    pub fn apply(self, a: u64) -> u64 {
        let bits = match self {
            Swizzle::None => return a,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        };
        let mask = ((1u64 << bits) - 1) << 4;
        a ^ ((a >> 3) & mask)
    }
}

/// Interleaved layouts (`CUtensorMapInterleave`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Interleave {
    /// None.
    None = 0,
    /// 16 bytes.
    B16 = 1,
    /// 32 bytes.
    B32 = 2,
}

/// L2 promotion (`CUtensorMapL2promotion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum L2Promotion {
    /// None.
    None = 0,
    /// 64 bytes.
    B64 = 1,
    /// 128 bytes.
    B128 = 2,
    /// 256 bytes.
    B256 = 3,
}

/// Out-of-bounds fill (`CUtensorMapFloatOOBfill`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum OobFill {
    /// Zeros.
    Zero = 0,
    /// NaN, requesting that FMA treat it as zero (float types only).
    NanRequestZeroFma = 1,
}

/// A tiled tensor map: what `cuTensorMapEncodeTiled` takes. Dimension 0 is innermost.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMap {
    /// Global address of element (0, …, 0).
    pub base: u64,
    /// Element type.
    pub elem: DataType,
    /// Dimensions, 1..=5.
    pub rank: u8,
    /// Elements per dimension (entries past `rank` are 0).
    pub dims: [u64; 5],
    /// Byte strides of dimensions 1..rank (`strides_bytes[i]` is dimension i+1's; past
    /// rank-1: 0). Dimension 0 is contiguous.
    pub strides_bytes: [u64; 4],
    /// Box (the tile one copy moves) per dimension (past `rank`: 0).
    pub box_dims: [u32; 5],
    /// Traversal stride per dimension, 1..=8 (past `rank`: 0).
    pub element_strides: [u32; 5],
    /// Interleaved layout.
    pub interleave: Interleave,
    /// Shared-memory swizzle.
    pub swizzle: Swizzle,
    /// L2 promotion.
    pub l2_promotion: L2Promotion,
    /// Out-of-bounds fill.
    pub oob_fill: OobFill,
}

/// A validation or decoding failure: the field and what was wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapError(pub String);

impl fmt::Display for TensorMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TensorMapError {}

fn bad<T>(m: String) -> Result<T, TensorMapError> {
    Err(TensorMapError(format!("tensor map: {m}")))
}

impl TensorMap {
    /// A row-major (innermost-first) map of a dense tensor: strides from the dims, element
    /// strides 1, no interleave, no L2 promotion, zero fill.
    #[allow(clippy::needless_range_loop)] // dimension i indexes several arrays
    pub fn dense(base: u64, elem: DataType, dims: &[u64], box_dims: &[u32], swizzle: Swizzle) -> TensorMap {
        let rank = dims.len().min(5);
        let mut m = TensorMap {
            base,
            elem,
            rank: rank as u8,
            dims: [0; 5],
            strides_bytes: [0; 4],
            box_dims: [0; 5],
            element_strides: [0; 5],
            interleave: Interleave::None,
            swizzle,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
        };
        let mut s = elem.size();
        for i in 0..rank {
            m.dims[i] = dims[i];
            m.box_dims[i] = box_dims.get(i).copied().unwrap_or(1);
            m.element_strides[i] = 1;
            if i > 0 {
                m.strides_bytes[i - 1] = s;
            }
            s = s.saturating_mul(dims[i]);
        }
        m
    }

    /// Bytes one copy moves: the product of ceil(box / element stride) times the element size
    /// (the mbarrier transaction count of a load, out-of-bounds elements included).
    pub fn box_bytes(&self) -> u64 {
        (0..self.rank as usize).map(|i| self.box_elems(i)).product::<u64>() * self.elem.size()
    }

    /// Elements the box holds along dimension `i`.
    pub fn box_elems(&self, i: usize) -> u64 {
        (self.box_dims[i] as u64).div_ceil(self.element_strides[i].max(1) as u64)
    }

    /// Byte stride of dimension `i` (0: the element size).
    pub fn stride(&self, i: usize) -> u64 {
        if i == 0 {
            self.elem.size()
        } else {
            self.strides_bytes[i - 1]
        }
    }

    /// Checks the rules `cuTensorMapEncodeTiled` documents; each error names the field, its
    /// value and the bound.
    pub fn validate(&self) -> Result<(), TensorMapError> {
        let r = self.rank as usize;
        if !(1..=5).contains(&r) {
            return bad(format!("rank {} is not in 1..=5", self.rank));
        }
        if self.interleave != Interleave::None && r < 3 {
            return bad(format!("interleave {:?} needs rank >= 3, the map has rank {r}", self.interleave));
        }
        let align = if self.interleave == Interleave::B32 { 32 } else { 16 };
        if self.base % align != 0 {
            return bad(format!("global address {:#x} is not {align}-byte aligned (it is {} past a multiple of {align})", self.base, self.base % align));
        }
        let es = self.elem.size();
        for i in 0..5 {
            let d = self.dims[i];
            if i < r && !(1..=1u64 << 32).contains(&d) {
                return bad(format!("dims[{i}] = {d} is not in 1..=2^32"));
            }
            if i >= r && d != 0 {
                return bad(format!("dims[{i}] = {d} is set past rank {r}"));
            }
        }
        let mut prev = self.dims[0] * es;
        for i in 0..4 {
            let s = self.strides_bytes[i];
            if i + 1 >= r {
                if s != 0 {
                    return bad(format!("strides_bytes[{i}] = {s} is set past rank {r} (strides_bytes has rank-1 = {} entries)", r - 1));
                }
                continue;
            }
            if s % 16 != 0 {
                return bad(format!("strides_bytes[{i}] = {s} is not a multiple of 16 (it is {} past one)", s % 16));
            }
            if s >= 1u64 << 40 {
                return bad(format!("strides_bytes[{i}] = {s} is not below 2^40 = {}", 1u64 << 40));
            }
            if s < prev {
                return bad(format!("strides_bytes[{i}] = {s} is smaller than dimension {i}'s extent in bytes, {prev} (dims[{i}] times its stride)"));
            }
            prev = s.saturating_mul(self.dims[i + 1]);
        }
        for i in 0..5 {
            let (b, e) = (self.box_dims[i], self.element_strides[i]);
            if i >= r {
                if b != 0 || e != 0 {
                    return bad(format!("box_dims[{i}] = {b} / element_strides[{i}] = {e} set past rank {r}"));
                }
                continue;
            }
            if !(1..=256).contains(&b) {
                return bad(format!("box_dims[{i}] = {b} is not in 1..=256"));
            }
            if !(1..=8).contains(&e) {
                return bad(format!("element_strides[{i}] = {e} is not in 1..=8"));
            }
        }
        let inner = self.box_dims[0] as u64 * es;
        if self.interleave == Interleave::None {
            if inner % 16 != 0 {
                return bad(format!("inner box bytes box_dims[0] * {es} = {inner} is not a multiple of 16"));
            }
            if self.swizzle != Swizzle::None && inner > self.swizzle.span() {
                return bad(format!("inner box bytes box_dims[0] * {es} = {inner} exceed the swizzle span of {:?}, {} bytes", self.swizzle, self.swizzle.span()));
            }
        } else if self.interleave == Interleave::B32 && self.swizzle != Swizzle::B32 {
            return bad(format!("interleave B32 needs swizzle B32, the map has {:?}", self.swizzle));
        }
        if self.oob_fill == OobFill::NanRequestZeroFma && !self.elem.is_float() {
            return bad(format!("oob_fill NanRequestZeroFma needs a floating-point type, the map has {:?}", self.elem));
        }
        Ok(())
    }

    /// The 128 bytes, after [`validate`](Self::validate).
    pub fn encode(&self) -> Result<[u8; 128], TensorMapError> {
        self.validate()?;
        let r = self.rank as usize;
        let mut out = [0u8; 128];
        out[0..8].copy_from_slice(&self.base.to_le_bytes());
        let (format, tf32) = self.elem.hw();
        let mode = (1u32 << 1)
            | ((r as u32 - 1) << 4)
            | (format << 7)
            | ((self.interleave as u32) << 11)
            | ((self.swizzle as u32) << 13)
            | ((self.oob_fill as u32) << 15)
            | (tf32 << 16)
            | ((self.l2_promotion as u32) << 17);
        out[8..12].copy_from_slice(&mode.to_le_bytes());
        let mut upper = 0u32;
        for i in 0..r - 1 {
            let s = self.strides_bytes[i] >> 4;
            out[12 + 4 * i..16 + 4 * i].copy_from_slice(&(s as u32).to_le_bytes());
            upper |= (((s >> 32) & 0xf) as u32) << (4 * i);
        }
        out[28..32].copy_from_slice(&upper.to_le_bytes());
        for i in 0..r {
            out[32 + 4 * i..36 + 4 * i].copy_from_slice(&((self.dims[i] - 1) as u32).to_le_bytes());
        }
        let mut w52 = (self.box_dims[0] - 1) << 24;
        let mut w56 = 0u32;
        for i in 0..r {
            w52 |= (self.element_strides[i] - 1) << (3 * i);
            if i > 0 {
                w56 |= (self.box_dims[i] - 1) << (8 * (i - 1));
            }
        }
        out[52..56].copy_from_slice(&w52.to_le_bytes());
        out[56..60].copy_from_slice(&w56.to_le_bytes());
        Ok(out)
    }

    /// The map the 128 bytes encode, validated; errors name the field.
    #[allow(clippy::needless_range_loop)] // dimension i indexes several fields
    pub fn decode(bytes: &[u8; 128]) -> Result<TensorMap, TensorMapError> {
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap_or([0; 4]));
        let base = u64::from_le_bytes(bytes[0..8].try_into().unwrap_or([0; 8]));
        let mode = u32_at(8);
        let version = (mode >> 1) & 7;
        if version != 1 {
            return bad(format!("version field (bits 1..4 of byte 8) is {version}, expected 1: not a tensor map this encoder knows (mode word {mode:#010x})"));
        }
        if mode & 1 != 0 {
            return bad("mode bit (bit 0 of byte 8) says im2col; only tile-mode maps are supported".into());
        }
        if mode >> 19 != 0 {
            return bad(format!("reserved bits 19..32 of the mode word are {:#x}, expected 0", mode >> 19));
        }
        let r = ((mode >> 4) & 7) as usize + 1;
        if r > 5 {
            return bad(format!("rank field is {r}, not in 1..=5"));
        }
        let format = (mode >> 7) & 0xf;
        let tf32 = (mode >> 16) & 1;
        let Some(elem) = DataType::from_hw(format, tf32) else {
            return bad(format!("data-type field is format {format} with f32->tf32 bit {tf32}, which names no type"));
        };
        let interleave = match (mode >> 11) & 3 {
            0 => Interleave::None,
            1 => Interleave::B16,
            2 => Interleave::B32,
            v => return bad(format!("interleave field is {v}, not 0..=2")),
        };
        let swizzle = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128][((mode >> 13) & 3) as usize];
        let oob_fill = if (mode >> 15) & 1 == 0 { OobFill::Zero } else { OobFill::NanRequestZeroFma };
        let l2_promotion = [L2Promotion::None, L2Promotion::B64, L2Promotion::B128, L2Promotion::B256][((mode >> 17) & 3) as usize];
        if let Some(i) = (60..128).find(|&i| bytes[i] != 0) {
            return bad(format!("reserved byte {i} is {:#04x}, expected 0", bytes[i]));
        }
        let upper = u32_at(28);
        let mut strides_bytes = [0u64; 4];
        for i in 0..4 {
            let s = u32_at(12 + 4 * i) as u64 | (((upper >> (4 * i)) & 0xf) as u64) << 32;
            if i + 1 >= r && s != 0 {
                return bad(format!("stride {i} (bytes {}..{}) is set past rank {r}", 12 + 4 * i, 16 + 4 * i));
            }
            strides_bytes[i] = s << 4;
        }
        let mut dims = [0u64; 5];
        for (i, d) in dims.iter_mut().enumerate() {
            let v = u32_at(32 + 4 * i);
            if i < r {
                *d = v as u64 + 1;
            } else if v != 0 {
                return bad(format!("dimension {i} (bytes {}..{}) is set past rank {r}", 32 + 4 * i, 36 + 4 * i));
            }
        }
        let (w52, w56) = (u32_at(52), u32_at(56));
        let mut box_dims = [0u32; 5];
        let mut element_strides = [0u32; 5];
        for i in 0..5 {
            let e = (w52 >> (3 * i)) & 7;
            let b = if i == 0 { (w52 >> 24) & 0xff } else { (w56 >> (8 * (i - 1))) & 0xff };
            if i < r {
                element_strides[i] = e + 1;
                box_dims[i] = b + 1;
            } else if e != 0 || b != 0 {
                return bad(format!("box or element stride of dimension {i} is set past rank {r}"));
            }
        }
        if (w52 >> 15) & 0x1ff != 0 {
            return bad(format!("reserved bits 15..24 of byte 52's word are {:#x}, expected 0", (w52 >> 15) & 0x1ff));
        }
        let m = TensorMap { base, elem, rank: r as u8, dims, strides_bytes, box_dims, element_strides, interleave, swizzle, l2_promotion, oob_fill };
        m.validate()?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_patterns_match_cutlass() {
        // Swizzle<3,4,3>: row 1's chunk 0 lands in chunk 1; row 7's chunk 2 in chunk 5.
        assert_eq!(Swizzle::B128.apply(128), 128 + 16);
        assert_eq!(Swizzle::B128.apply(7 * 128 + 2 * 16 + 3), 7 * 128 + 5 * 16 + 3);
        assert_eq!(Swizzle::B64.apply(3 * 128 + 16), 3 * 128 + 2 * 16);
        assert_eq!(Swizzle::B32.apply(128 + 16), 128);
        assert_eq!(Swizzle::None.apply(12345), 12345);
        for s in [Swizzle::B32, Swizzle::B64, Swizzle::B128] {
            // A permutation of every repeat block.
            let mut seen: Vec<u64> = (0..s.repeat()).map(|a| s.apply(a)).collect();
            seen.sort();
            assert_eq!(seen, (0..s.repeat()).collect::<Vec<_>>());
        }
    }
}
