//! Integer helpers for CUDA Tile IR's signless integers (`i1` … `i64`, `i4`).
//!
//! Integers are signless bit patterns; signedness is an attribute of the
//! operation. Dense literals accept a value if it fits *either* reading of
//! the width, so `<i8: 255>` and `<i8: -1>` are the same constant (the
//! reference parser's `validateIntegerBounds`), and the printer shows the
//! signed reading.

/// Whether `value` is a valid literal of an integer type `width` bits wide:
/// the union of the signed and unsigned ranges, `-2^(w-1) ..= 2^w - 1`
/// (i1: -1..=1, i8: -128..=255, i64: `i64::MIN ..= u64::MAX`).
/// `width` must be 1..=64.
pub fn int_fits(width: u32, value: i128) -> bool {
    assert!(
        (1..=64).contains(&width),
        "integer width {width} not in 1..=64"
    );
    let min = -(1i128 << (width - 1));
    let max = (1i128 << width) - 1;
    (min..=max).contains(&value)
}

/// Reads the low `width` bits of `bits` as a two's-complement number
/// (`sign_extend(0xFF, 8) == -1`, `sign_extend(1, 1) == -1`).
/// `width` must be 1..=64.
pub fn sign_extend(bits: u64, width: u32) -> i64 {
    assert!(
        (1..=64).contains(&width),
        "integer width {width} not in 1..=64"
    );
    let unused = 64 - width;
    ((bits << unused) as i64) >> unused
}

/// Reads the low `width` bits of `bits` as an unsigned number.
/// `width` must be 1..=64.
pub fn zero_extend(bits: u64, width: u32) -> u64 {
    truncate(i128::from(bits), width)
}

/// The bit pattern of `value` wrapped to `width` bits (two's complement), in
/// the low bits of the result: `truncate(-1, 8) == 0xFF`,
/// `truncate(256, 8) == 0`. `width` must be 1..=64.
pub fn truncate(value: i128, width: u32) -> u64 {
    assert!(
        (1..=64).contains(&width),
        "integer width {width} not in 1..=64"
    );
    (value as u64) & crate::format::mask(width)
}
