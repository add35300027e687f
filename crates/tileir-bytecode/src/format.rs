//! Constants of the file format shared by the reader and the writer: magic, section
//! ids, type tags, attribute tags, debug tags, and the element-type encodings.

use tileir_ir::dialect::cuda_tile::schema::Version;
use tileir_ir::NumType;

/// `\x7fTileIR\0`.
pub(crate) const MAGIC: [u8; 8] = [0x7F, b'T', b'i', b'l', b'e', b'I', b'R', 0x00];

pub(crate) mod section {
    pub const END: u8 = 0;
    pub const STRING: u8 = 1;
    pub const FUNC: u8 = 2;
    pub const DEBUG: u8 = 3;
    pub const CONSTANT: u8 = 4;
    pub const TYPE: u8 = 5;
    pub const GLOBAL: u8 = 6;
    pub const PRODUCER: u8 = 7;

    /// Name for diagnostics.
    pub fn name(id: u8) -> &'static str {
        match id {
            END => "end",
            STRING => "string",
            FUNC => "function",
            DEBUG => "debug",
            CONSTANT => "constant",
            TYPE => "type",
            GLOBAL => "global",
            PRODUCER => "producer",
            _ => "unknown",
        }
    }
}

pub(crate) mod type_tag {
    pub const PTR: u64 = 12;
    pub const TILE: u64 = 13;
    pub const TENSOR_VIEW: u64 = 14;
    pub const PARTITION_VIEW: u64 = 15;
    pub const FUNCTION: u64 = 16;
    pub const TOKEN: u64 = 17;
    pub const GATHER_SCATTER_VIEW: u64 = 20;
    pub const STRIDED_VIEW: u64 = 21;
    /// 13.4 developer-preview `f8E5M3FNU` (not modelled by tileir).
    pub const F8E5M3FNU: u64 = 130;
}

pub(crate) mod attr_tag {
    pub const INTEGER: u64 = 1;
    pub const FLOAT: u64 = 2;
    pub const BOOL: u64 = 3;
    pub const TYPE: u64 = 4;
    pub const STRING: u64 = 5;
    pub const ARRAY: u64 = 6;
    pub const DENSE: u64 = 7;
    pub const DIV_BY: u64 = 8;
    pub const SAME_ELEMENTS: u64 = 9;
    pub const DICTIONARY: u64 = 10;
    pub const OPTIMIZATION_HINTS: u64 = 11;
    pub const BOUNDED: u64 = 12;
}

pub(crate) mod debug_tag {
    pub const UNKNOWN: u64 = 0;
    pub const COMPILE_UNIT: u64 = 1;
    pub const FILE: u64 = 2;
    pub const LEXICAL_BLOCK: u64 = 3;
    pub const LOC: u64 = 4;
    pub const SUBPROGRAM: u64 = 5;
    pub const CALL_SITE: u64 = 6;
}

/// Function-table flag bits.
pub(crate) mod func_flag {
    pub const PRIVATE: u8 = 1;
    pub const KERNEL: u8 = 2;
    pub const HAS_HINTS: u8 = 4;
}

/// The type tag of an element type.
pub(crate) fn num_tag(n: NumType) -> u64 {
    match n {
        NumType::I1 => 0,
        NumType::I8 => 1,
        NumType::I16 => 2,
        NumType::I32 => 3,
        NumType::I64 => 4,
        NumType::F16 => 5,
        NumType::BF16 => 6,
        NumType::F32 => 7,
        NumType::TF32 => 8,
        NumType::F64 => 9,
        NumType::F8E4M3FN => 10,
        NumType::F8E5M2 => 11,
        NumType::F8E8M0FNU => 18,
        NumType::F4E2M1FN => 19,
        NumType::I4 => 22,
    }
}

/// The element type with tag `tag`.
pub(crate) fn num_of_tag(tag: u64) -> Option<NumType> {
    NumType::ALL.iter().copied().find(|&n| num_tag(n) == tag)
}

/// The first version that knows element type `n`.
pub(crate) fn num_since(n: NumType) -> Version {
    match n {
        NumType::F8E8M0FNU => Version::V13_2,
        NumType::F4E2M1FN | NumType::I4 => Version::V13_3,
        _ => Version::V13_1,
    }
}

/// NVIDIA's name of a type in version diagnostics (its TableGen record names).
pub(crate) fn num_type_name(n: NumType) -> &'static str {
    match n {
        NumType::F8E8M0FNU => "Float8E8M0FNU",
        NumType::F4E2M1FN => "Float4E2M1FN",
        NumType::I4 => "I4",
        other => other.keyword(),
    }
}

/// Width in bits of MLIR's `APFloat`/`APInt` pattern (what tagged attributes and dense
/// constants encode): as the storage width except tf32 (19 bits).
pub(crate) fn ap_width(n: NumType) -> u32 {
    match n {
        NumType::TF32 => 19,
        other => other.bit_width(),
    }
}

/// Bytes one element takes in a dense constant: MLIR's raw buffer rounds each element's
/// `APFloat`/`APInt` width up to whole bytes (so i1, i4 and f4 take one byte, tf32 three).
pub(crate) fn dense_bytes(n: NumType) -> usize {
    ap_width(n).div_ceil(8) as usize
}

/// Storage bits (tileir's convention) to the `APFloat`/`APInt` pattern.
pub(crate) fn storage_to_ap(n: NumType, bits: u64) -> u64 {
    match n {
        NumType::TF32 => (bits >> 13) & 0x7FFFF,
        other => bits & mask(other.bit_width()),
    }
}

/// The `APFloat`/`APInt` pattern to storage bits.
pub(crate) fn ap_to_storage(n: NumType, bits: u64) -> u64 {
    match n {
        NumType::TF32 => (bits & 0x7FFFF) << 13,
        other => bits & mask(other.bit_width()),
    }
}

/// Low `width` bits set.
pub(crate) fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The largest number of elements a dense constant may describe when read: the tile
/// element limit (2^24), which also bounds memory use on hostile input.
pub(crate) const MAX_DENSE_ELEMENTS: u64 = 1 << 24;

/// How deeply regions (and nested attributes) may nest in a file we read: deeper input
/// is rejected instead of exhausting the stack.
pub(crate) const MAX_NESTING: usize = 200;
