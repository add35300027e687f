//! Floating-point helpers: fast exact conversions between `f32` and the 16-bit formats,
//! round-to-odd intermediates (so that computing in `f64` and then rounding to a narrower
//! format is a single correct rounding), and directed rounding of `f64` results from the
//! sign of their exact residual.
//!
//! Why round-to-odd: if a value is first rounded to a format with at least `p + 2` bits of
//! precision using round-to-odd, a second rounding to a `p`-bit format (in any mode) gives
//! the same result as rounding the exact value once. `f64` has 53 bits, every narrow CUDA
//! Tile IR format at most 24, so every `f64` intermediate built here is exact or odd-rounded.

use tileir_ir::{NumType, RoundingMode};
use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};

/// The software format of a float element type (None for integers).
pub fn format_of(t: NumType) -> Option<FloatFormat> {
    Some(match t {
        NumType::F16 => FloatFormat::F16,
        NumType::BF16 => FloatFormat::BF16,
        NumType::F32 => FloatFormat::F32,
        NumType::TF32 => FloatFormat::TF32,
        NumType::F64 => FloatFormat::F64,
        NumType::F8E4M3FN => FloatFormat::F8E4M3FN,
        NumType::F8E5M2 => FloatFormat::F8E5M2,
        NumType::F8E8M0FNU => FloatFormat::F8E8M0FNU,
        NumType::F4E2M1FN => FloatFormat::F4E2M1FN,
        _ => return None,
    })
}

/// The numeric crate's rounding for an IR rounding mode. `approx`, `full` and
/// `nearest_int_to_zero` are not directions; they map to nearest-even. (The f32 `approx` /
/// `full` sequences are emulated in [`crate::approx`]; where those modes reach other types,
/// which the verifier rejects, the correctly rounded result stands in.)
pub fn rounding_of(rm: RoundingMode) -> Rounding {
    match rm {
        RoundingMode::Zero => Rounding::TowardZero,
        RoundingMode::NegativeInf => Rounding::TowardNegative,
        RoundingMode::PositiveInf => Rounding::TowardPositive,
        _ => Rounding::NearestEven,
    }
}

/// True when `rm` rounds to nearest (every non-directed mode counts).
pub fn is_nearest(rm: RoundingMode) -> bool {
    rounding_of(rm) == Rounding::NearestEven
}

/// f16 bits to the exact `f32` value. NaN payloads move to the top of the `f32` fraction, so
/// [`f32_to_f16`] gives the same bits back.
pub fn f16_to_f32(h: u16) -> f32 {
    // Branch-free, so that whole-tile conversions vectorize: the exponent and fraction bits
    // shifted into f32 position read as 2^-112 times the f16 value (normals) or as an f32
    // subnormal equal to it times 2^-112 (subnormals); one exact multiplication by 2^112
    // rescales both. Infinities and NaNs get the all-ones exponent with their payload.
    let h = h as u32;
    let sign = (h & 0x8000) << 16;
    let em = (h & 0x7fff) << 13;
    let finite = f32::from_bits(em) * f32::from_bits(0x7780_0000); // 2^112
    let bits = if em >= 0x7c00 << 13 {
        em | 0x7f80_0000
    } else {
        finite.to_bits()
    };
    f32::from_bits(bits | sign)
}

/// `f32` to f16 bits, round to nearest even; overflow gives infinity, NaN keeps its sign and
/// top payload bits (quiet bit set only if the payload would otherwise vanish).
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 255 {
        if man == 0 {
            return sign | 0x7c00;
        }
        let p = (man >> 13) as u16;
        return sign | 0x7c00 | if p == 0 { 0x200 } else { p };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if exp == 0 {
            // f32 zero or subnormal: far below half the smallest f16 subnormal.
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        if shift > 24 {
            return sign;
        }
        let q = m >> shift;
        let r = m & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        let q = if r > half || (r == half && q & 1 == 1) {
            q + 1
        } else {
            q
        };
        return sign | q as u16;
    }
    let q = ((e as u32) << 10) | (man >> 13);
    let r = man & 0x1fff;
    let q = if r > 0x1000 || (r == 0x1000 && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    sign | q as u16
}

/// bf16 bits to the exact `f32`.
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// `f32` to bf16 bits, round to nearest even (NaN keeps its top payload, quieted if empty).
pub fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        let h = (b >> 16) as u16;
        return if h & 0x7f == 0 { h | 0x40 } else { h };
    }
    let r = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    (r >> 16) as u16
}

/// Rounds an `f32` to a value of the 16-bit format `t` (round to nearest even), returned as
/// the exact `f32`. Identity for f32.
#[inline]
pub fn round_f32_rn(t: NumType, x: f32) -> f32 {
    match t {
        NumType::F16 => f16_to_f32(f32_to_f16(x)),
        NumType::BF16 => bf16_to_f32(f32_to_bf16(x)),
        _ => x,
    }
}

/// The next `f64` toward +inf (NaN and +inf unchanged).
pub fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The next `f64` toward -inf.
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// Knuth's TwoSum: `(s, e)` with `s = RN(a + b)` and `a + b = s + e` exactly (finite inputs).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Round-to-odd adjustment: `s` is `RN(x)` and `resid` the sign of `x - s`; returns the
/// round-to-odd value of `x` at `f64` precision.
#[inline]
pub fn to_odd(s: f64, resid: f64) -> f64 {
    if resid == 0.0 || !s.is_finite() || s.to_bits() & 1 == 1 {
        s
    } else if resid > 0.0 {
        next_up(s)
    } else {
        next_down(s)
    }
}

/// `a + b` rounded to odd (exact inputs up to `f64`).
#[inline]
pub fn add_odd(a: f64, b: f64) -> f64 {
    let (s, e) = two_sum(a, b);
    if !s.is_finite() {
        return s;
    }
    to_odd(s, e)
}

/// `a / b` rounded to odd. Valid when the residual `a - q*b` is exactly computable by an
/// FMA, which holds for operands coming from formats of at most 24 bits.
pub fn div_odd(a: f64, b: f64) -> f64 {
    let q = a / b;
    if !q.is_finite() || q == 0.0 {
        return q;
    }
    let r = (-q).mul_add(b, a);
    to_odd(q, r * b.signum())
}

/// `sqrt(a)` rounded to odd (same validity as [`div_odd`]).
pub fn sqrt_odd(a: f64) -> f64 {
    let q = a.sqrt();
    if !q.is_finite() || q == 0.0 {
        return q;
    }
    let r = (-q).mul_add(q, a);
    to_odd(q, r)
}

/// `f64` to `f32` rounded to odd (for a second rounding to a 16-bit format).
pub fn f64_to_f32_odd(x: f64) -> f32 {
    let f = x as f32;
    if !f.is_finite() || x.is_nan() {
        return f;
    }
    let d = x - f as f64;
    if d == 0.0 || f.to_bits() & 1 == 1 {
        return f;
    }
    let up = d > 0.0;
    let b = f.to_bits();
    let toward_larger_magnitude = up == (f >= 0.0 && !(f == 0.0 && f.is_sign_negative()));
    let nb = if f == 0.0 {
        // Smallest subnormal with the sign of the direction.
        if up {
            1
        } else {
            0x8000_0001
        }
    } else if toward_larger_magnitude {
        b + 1
    } else {
        b - 1
    };
    f32::from_bits(nb)
}

/// Rounds an `f64` (exact or odd-rounded) to the float type `t`, in `f32` storage for every
/// type but f64, with rounding mode `rm`.
pub fn round_f64_to_f32_storage(t: NumType, x: f64, rm: RoundingMode) -> f32 {
    if is_nearest(rm) {
        match t {
            NumType::F32 => return x as f32,
            NumType::F16 | NumType::BF16 => return round_f32_rn(t, f64_to_f32_odd(x)),
            _ => {}
        }
    }
    let fmt = format_of(t).expect("float type");
    let bits = encode(fmt, x, rounding_of(rm), saturation_of(t));
    bits_to_f32_storage(t, bits)
}

/// How conversions into `t` treat values past its range. The fp8 formats saturate to their
/// largest finite value (±inf included; NaN stays NaN), as NVIDIA's compiler converts
/// (`F2FP.SATFINITE`, the only fp8 conversion Hopper has); the other formats follow
/// `APFloat` (infinity, or NaN where the format has none; f4E2M1FN always saturates).
pub fn saturation_of(t: NumType) -> Saturation {
    match t {
        NumType::F8E4M3FN | NumType::F8E5M2 => Saturation::Finite,
        _ => Saturation::None,
    }
}

/// The exact `f32` of a bit pattern of a float type stored as `f32` (all but f64). tf32 keeps
/// its 32 raw bits (the padding bits are ignored by arithmetic, kept by data movement).
pub fn bits_to_f32_storage(t: NumType, bits: u64) -> f32 {
    match t {
        NumType::F32 | NumType::TF32 => f32::from_bits(bits as u32),
        NumType::F16 => f16_to_f32(bits as u16),
        NumType::BF16 => bf16_to_f32(bits as u16),
        _ => {
            let fmt = format_of(t).expect("float type");
            decode(fmt, bits) as f32
        }
    }
}

/// The bit pattern of an `f32`-stored float of type `t` (exact: the value is one of `t`).
pub fn f32_storage_to_bits(t: NumType, x: f32) -> u64 {
    match t {
        NumType::F32 | NumType::TF32 => x.to_bits() as u64,
        NumType::F16 => f32_to_f16(x) as u64,
        NumType::BF16 => f32_to_bf16(x) as u64,
        _ => {
            let fmt = format_of(t).expect("float type");
            encode(fmt, x as f64, Rounding::NearestEven, Saturation::None)
        }
    }
}

/// The value tf32 arithmetic sees: the low 13 fraction bits are padding and ignored.
#[inline]
pub fn tf32_value(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    f32::from_bits(x.to_bits() & 0xffff_e000)
}

/// Directed rounding of an `f64` operation: `r` is the round-to-nearest result, `resid` the
/// sign of (exact − r); `finite_inputs` says whether an infinite `r` is an overflow.
pub fn directed_f64(r: f64, resid: f64, rm: RoundingMode, finite_inputs: bool) -> f64 {
    let rounding = rounding_of(rm);
    if r.is_nan() {
        return r;
    }
    if r.is_infinite() {
        if !finite_inputs {
            return r;
        }
        // Overflow: the exact value is finite and beyond the largest finite value.
        let toward_inf = match rounding {
            Rounding::NearestEven => true,
            Rounding::TowardZero => false,
            Rounding::TowardNegative => r < 0.0,
            Rounding::TowardPositive => r > 0.0,
        };
        return if toward_inf { r } else { f64::MAX.copysign(r) };
    }
    if resid == 0.0 {
        return r;
    }
    match rounding {
        Rounding::NearestEven => r,
        Rounding::TowardPositive => {
            if resid > 0.0 {
                next_up(r)
            } else {
                r
            }
        }
        Rounding::TowardNegative => {
            if resid < 0.0 {
                next_down(r)
            } else {
                r
            }
        }
        Rounding::TowardZero => {
            if r > 0.0 && resid < 0.0 {
                next_down(r)
            } else if r < 0.0 && resid > 0.0 {
                next_up(r)
            } else {
                r
            }
        }
    }
}

/// The sign of an exact sum of `f64` terms (Shewchuk's grow-expansion: the components are
/// non-overlapping, so the most significant nonzero one carries the sign).
pub fn exact_sum_sign(terms: &[f64]) -> f64 {
    let mut expansion: Vec<f64> = Vec::with_capacity(terms.len() * 2);
    for &t in terms {
        let mut q = t;
        let mut next = Vec::with_capacity(expansion.len() + 1);
        for &e in &expansion {
            let (s, err) = two_sum(q, e);
            if err != 0.0 {
                next.push(err);
            }
            q = s;
        }
        next.push(q);
        expansion = next;
    }
    // Components are in increasing magnitude; the last nonzero one dominates.
    expansion
        .iter()
        .rev()
        .find(|&&c| c != 0.0)
        .map(|c| c.signum())
        .unwrap_or(0.0)
}

/// Flushes an `f32` subnormal to a zero of the same sign (flush_to_zero).
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// A quiet NaN of type `t` in its storage (`f32` for all but f64).
pub fn canonical_nan_f32(t: NumType) -> f32 {
    match t {
        NumType::F16 => f16_to_f32(0x7e00),
        NumType::BF16 => bf16_to_f32(0x7fc0),
        _ => f32::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_to_f32_matches_the_field_by_field_decoding() {
        let reference = |h: u16| -> f32 {
            let sign = ((h as u32) & 0x8000) << 16;
            let exp = (h >> 10) & 0x1f;
            let man = (h & 0x3ff) as u32;
            if exp == 0 {
                let v = man as f32 * (1.0 / 16_777_216.0);
                return if sign != 0 { -v } else { v };
            }
            if exp == 31 {
                return f32::from_bits(sign | 0x7f80_0000 | (man << 13));
            }
            f32::from_bits(sign | ((exp as u32 + 112) << 23) | (man << 13))
        };
        for h in 0..=u16::MAX {
            assert_eq!(f16_to_f32(h).to_bits(), reference(h).to_bits(), "{h:#06x}");
        }
    }

    #[test]
    fn f16_round_trip_is_exact_for_every_pattern() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            assert_eq!(f32_to_f16(f), h, "{h:#x}");
            if !f.is_nan() {
                assert_eq!(f as f64, decode(FloatFormat::F16, h as u64));
            }
        }
    }

    #[test]
    fn f32_to_f16_matches_the_numeric_crate() {
        let mut x: u32 = 0x1234_5678;
        for _ in 0..200_000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let f = f32::from_bits(x);
            if f.is_nan() {
                continue;
            }
            let want = encode(
                FloatFormat::F16,
                f as f64,
                Rounding::NearestEven,
                Saturation::None,
            );
            assert_eq!(f32_to_f16(f) as u64, want, "{f:e}");
            let want = encode(
                FloatFormat::BF16,
                f as f64,
                Rounding::NearestEven,
                Saturation::None,
            );
            assert_eq!(f32_to_bf16(f) as u64, want, "{f:e}");
        }
    }

    #[test]
    fn odd_rounding_avoids_double_rounding() {
        // 1 + 2^-11 + 2^-40 must round up in f16 (above the tie), though RN to f32 drops 2^-40.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(
            round_f64_to_f32_storage(NumType::F16, x, RoundingMode::NearestEven),
            1.0 + 2f32.powi(-10)
        );
        assert_eq!(exact_sum_sign(&[1.0, 1e-30, -1.0]), 1.0);
        assert_eq!(exact_sum_sign(&[1.0, -1.0]), 0.0);
    }
}
