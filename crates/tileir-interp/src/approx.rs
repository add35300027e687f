//! The `approx` and `full` rounding modes of f32 `divf`, `sqrt`, `exp` and `tanh`.
//!
//! These modes name fast hardware sequences rather than roundings, and the specification
//! (and the PTX ISA behind it) gives their structure and error bounds but not their exact
//! bits. The interpreter emulates the documented structure with deterministic, correctly
//! rounded building blocks, so results are reproducible, differ from the IEEE result where
//! the hardware's do (two roundings, the flush of tiny reciprocals), and stay within the
//! documented bound:
//!
//! | op / mode | specification | emulation | bound (ulp of the f32 result) |
//! |---|---|---|---|
//! | `divf approx` | `x · rcp.approx(y)`; ≤ 2 ulp for `2^-126 ≤ |y| ≤ 2^126`; for `2^126 < |y| < 2^128` gives 0 (NaN when `x` is infinite) | `RN(x · r)` with `r = RN(1/y)` in f32, where an `r` below the normal range is flushed to ±0 (this gives the documented 0/NaN for huge `y`) | ≤ 1.5 in the documented range |
//! | `divf full` | full-range approximation that scales the operands; ≤ 2 ulp everywhere | `RN(x · r)` with `r = 1/y` rounded to 24 bits in an unbounded exponent range (what the scaling achieves), so tiny and huge `y` are accurate | ≤ 1.5 everywhere |
//! | `sqrt approx` | fast approximation (`sqrt.approx.f32`) | `RN(x · RN(1/√x))`, with `√±0 = ±0`, `√+∞ = +∞`, `√(x<0) = NaN` | relative error ≤ 2^-23 + 2^-48 (≤ 1.5 ulp) |
//! | `exp approx` | exp2-based (`ex2.approx(x · log2 e)`) | `RN(2^t)` with `t = RN(x · RN(log2 e))` in f32 | ≤ 1 + 1.22·|x| (the error of `t` is scaled by `|t|`, as for CUDA's `__expf`: 2 + ⌊1.173·|x|⌋) |
//! | `tanh approx` | `tanh.approx.f32`, relative error 2^-10.987 | `tanh` rounded to 11 significant bits, then to f32 | relative error ≤ 2^-11 |
//! | `exp`/`tanh full` (their default) | the accurate library functions (≤ 2 ulp) | the correctly rounded value (evaluated in f64, rounded once) | ≤ 0.5 (+2^-29) |
//!
//! `flush_to_zero` (divf, sqrt) flushes subnormal inputs and results to signed zeros, as in
//! the IEEE modes. The verifier only allows these modes on f32; on other types the
//! interpreter falls back to the correctly rounded result.

use crate::float::ftz32;

/// The reciprocal of `rcp.approx.f32` as emulated for `divf approx`: `RN(1/y)` in f32, with a
/// result below the normal range flushed to a signed zero (the hardware's reciprocal does not
/// produce subnormals, which is why the specification documents 0 for `2^126 < |y| < 2^128`).
fn rcp_approx(y: f32) -> f32 {
    let r = 1.0 / y;
    if r != 0.0 && r.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(r)
    } else {
        r
    }
}

/// `divf rounding<approx>` on f32 elements (see the module table).
pub fn div_approx(x: f32, y: f32, ftz: bool) -> f32 {
    let (x, y) = if ftz { (ftz32(x), ftz32(y)) } else { (x, y) };
    let d = x * rcp_approx(y);
    if ftz {
        ftz32(d)
    } else {
        d
    }
}

/// Rounds a normal (or zero, infinite, NaN) f64 to `bits` significant bits, to nearest even,
/// without an exponent range limit.
fn round_significant_bits(v: f64, bits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    // Adding and subtracting 1.5 · 2^(e + 53 - bits), where 2^e is v's leading bit, leaves
    // the sum's last place at 2^(e + 1 - bits): the addition rounds v there (nearest even)
    // and the subtraction is exact.
    let e = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let big = (2.0f64).powi(e + 53 - bits) * 1.5f64.copysign(v);
    (v + big) - big
}

/// `divf rounding<full>` on f32 elements (see the module table).
pub fn div_full(x: f32, y: f32, ftz: bool) -> f32 {
    let (x, y) = if ftz { (ftz32(x), ftz32(y)) } else { (x, y) };
    // 1/y of an f32 is finite and normal in f64 for every non-zero finite y; the product of
    // two 24-bit significands is exact in f64, so `as f32` is the one final rounding.
    let r = round_significant_bits(1.0 / y as f64, 24);
    let d = (x as f64 * r) as f32;
    if ftz {
        ftz32(d)
    } else {
        d
    }
}

/// `sqrt rounding<approx>` on f32 elements (see the module table).
pub fn sqrt_approx(x: f32, ftz: bool) -> f32 {
    let x = if ftz { ftz32(x) } else { x };
    let d = if x == 0.0 || x == f32::INFINITY || x.is_nan() {
        // ±0 and +∞ are their own square roots (x · rsqrt(x) would be 0 · ∞).
        x
    } else if x < 0.0 {
        f32::NAN
    } else {
        // rsqrt of an f32 is a normal f64 well inside the f32 range after rounding
        // (2^-64 < 1/√x < 2^75), so rounding it to f32 is the correctly rounded rsqrt.
        let r = (1.0 / (x as f64).sqrt()) as f32;
        x * r
    };
    if ftz {
        ftz32(d)
    } else {
        d
    }
}

/// `exp rounding<approx>` on f32 elements (see the module table).
pub fn exp_approx(x: f32) -> f32 {
    let t = x * std::f32::consts::LOG2_E;
    // 2^t for an f32 t: exact-argument exp2 in f64 (within 1 ulp of f64) rounded once to f32.
    (t as f64).exp2() as f32
}

/// `tanh rounding<approx>` on f32 elements (see the module table).
pub fn tanh_approx(x: f32) -> f32 {
    let v = (x as f64).tanh();
    // Keep 11 significant bits (round to nearest even), then store as f32 (exact).
    round_significant_bits(v, 11) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approx_division_flushes_tiny_reciprocals() {
        let y = 2f32.powi(127);
        assert_eq!(div_approx(1.0, y, false), 0.0);
        assert!(div_approx(f32::INFINITY, y, false).is_nan());
        assert_eq!(div_full(1.0, y, false), 2f32.powi(-127));
        assert_eq!(div_approx(6.0, 3.0, false), 2.0);
    }

    #[test]
    fn rounding_to_24_bits() {
        let below_two = f64::from_bits(2.0f64.to_bits() - 1);
        for v in [
            1.0f64,
            1.0 + 2f64.powi(-24),
            3.0f64.recip(),
            2f64.powi(140) / 3.0,
            below_two,
            -below_two,
            -0.1,
        ] {
            let r = round_significant_bits(v, 24);
            // Same as f32 rounding where f32 has the range.
            if v.abs() < 1e30 {
                assert_eq!(r, v as f32 as f64, "{v}");
            }
            assert!(((r - v) / v).abs() <= 2f64.powi(-24), "{v}");
        }
    }

    #[test]
    fn tanh_keeps_eleven_bits() {
        let t = tanh_approx(0.3);
        let bits = t.to_bits() & 0x1fff;
        assert_eq!(bits, 0, "low 13 of 24 significand bits are zero: {t}");
        assert!(((t as f64 - 0.3f64.tanh()) / 0.3f64.tanh()).abs() <= 2f64.powi(-11));
    }
}
