//! Floating-point semantics per lane. Results are correctly rounded in every rounding mode:
//! the operation is computed in f64 together with the sign of its exact error (error-free
//! transformations), then rounded once to the target format. NaN results are the canonical
//! NaN of the format (GPUs do not propagate payloads); `.ftz` flushes f32 subnormal inputs
//! and results to zero of the same sign; `.sat` clamps to [0, 1] with NaN giving 0.

use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};

use crate::program::{Cmp, FBin, FKind, FMods, FUn, Rnd};

/// Canonical NaN bits of a scalar format.
pub fn canonical_nan(f: FloatFormat) -> u64 {
    match f {
        FloatFormat::F64 => 0x7fff_ffff_ffff_ffff,
        FloatFormat::F32 | FloatFormat::TF32 => 0x7fff_ffff,
        FloatFormat::F16 | FloatFormat::BF16 => 0x7fff,
        FloatFormat::F8E4M3FN => 0x7f,
        FloatFormat::F8E5M2 => 0x7f,
        _ => 0,
    }
}

/// The scalar element format of a kind.
pub fn elem_format(k: FKind) -> FloatFormat {
    match k {
        FKind::F16 | FKind::F16x2 => FloatFormat::F16,
        FKind::BF16 | FKind::BF16x2 => FloatFormat::BF16,
        FKind::F32 => FloatFormat::F32,
        FKind::F64 => FloatFormat::F64,
    }
}

fn is_pair(k: FKind) -> bool {
    matches!(k, FKind::F16x2 | FKind::BF16x2)
}

/// Numeric's rounding for a PTX one (`.rna` is handled by [`encode_rnd`]).
pub fn rounding(r: Rnd) -> Rounding {
    match r {
        Rnd::Rn | Rnd::Rna => Rounding::NearestEven,
        Rnd::Rz => Rounding::TowardZero,
        Rnd::Rm => Rounding::TowardNegative,
        Rnd::Rp => Rounding::TowardPositive,
    }
}

/// `encode` with any PTX rounding, including `.rna` (to nearest, ties away from zero).
pub fn encode_rnd(f: FloatFormat, s: f64, rnd: Rnd, sat: Saturation) -> u64 {
    if rnd != Rnd::Rna || !s.is_finite() {
        return encode(f, s, rounding(rnd), sat);
    }
    let down = encode(f, s, Rounding::TowardNegative, sat);
    let up = encode(f, s, Rounding::TowardPositive, sat);
    if down == up {
        return down;
    }
    let (dv, uv) = (to_f64(f, down), to_f64(f, up));
    let (dd, du) = (s - dv, uv - s);
    if dd < du || (dd == du && s < 0.0) {
        down
    } else {
        up
    }
}

fn width(f: FloatFormat) -> u32 {
    f.bit_width()
}

/// Decodes bits of `f` exactly (f32/f64 directly, the rest through tileir-numeric).
#[inline(always)]
pub fn to_f64(f: FloatFormat, bits: u64) -> f64 {
    match f {
        FloatFormat::F32 => f32::from_bits(bits as u32) as f64,
        FloatFormat::F64 => f64::from_bits(bits),
        FloatFormat::F16 => super::half::f16_to_f32(bits as u16) as f64,
        FloatFormat::BF16 => super::half::bf16_to_f32(bits as u16) as f64,
        _ => decode(f, bits),
    }
}

fn is_subnormal(f: FloatFormat, bits: u64) -> bool {
    let w = width(f);
    let mbits = f.mantissa_bits();
    let exp_mask = ((1u64 << (w - 1 - mbits)) - 1) << mbits;
    bits & exp_mask == 0 && bits & ((1u64 << mbits) - 1) != 0
}

/// `.ftz` on one value (sign kept).
pub fn flush(f: FloatFormat, bits: u64) -> u64 {
    if is_subnormal(f, bits) {
        bits & (1u64 << (width(f) - 1))
    } else {
        bits
    }
}

/// The next value of `f` above (`up`) or below the finite value `bits`.
fn step(f: FloatFormat, bits: u64, up: bool) -> u64 {
    let sign = 1u64 << (width(f) - 1);
    let neg = bits & sign != 0;
    let mag = bits & !sign;
    if mag == 0 {
        // From ±0: the smallest subnormal of the direction's sign.
        return if up { 1 } else { sign | 1 };
    }
    if up != neg {
        bits + 1
    } else {
        bits - 1
    }
}

/// Rounds `s + err` (exact value; `err` gives only its sign relative to `s`, 0 if `s` is
/// exact) to `f` with `rnd`.
pub fn round_to(f: FloatFormat, s: f64, e: f64, rnd: Rnd) -> u64 {
    if e == 0.0 || !s.is_finite() || e.is_nan() {
        return encode_rnd(f, s, rnd, Saturation::None);
    }
    let near = encode(f, s, Rounding::NearestEven, Saturation::None);
    if to_f64(f, near) == s {
        // s itself is representable: the exact value is just beside it.
        let sign = if s == 0.0 { e < 0.0 } else { s < 0.0 };
        return match rnd {
            Rnd::Rn | Rnd::Rna => near,
            Rnd::Rz => {
                // The exact value is farther from zero than s when the error has s's sign.
                if (e < 0.0) == sign {
                    near
                } else {
                    step(f, near, sign)
                }
            }
            Rnd::Rm => {
                if e < 0.0 {
                    step(f, near, false)
                } else {
                    near
                }
            }
            Rnd::Rp => {
                if e > 0.0 {
                    step(f, near, true)
                } else {
                    near
                }
            }
        };
    }
    if matches!(rnd, Rnd::Rn | Rnd::Rna) {
        let down = encode(f, s, Rounding::TowardNegative, Saturation::None);
        let up = encode(f, s, Rounding::TowardPositive, Saturation::None);
        let (dv, uv) = (to_f64(f, down), to_f64(f, up));
        if dv.is_finite() && uv.is_finite() && s == dv + (uv - dv) / 2.0 {
            // s is exactly the midpoint; the error says which side the exact value is on.
            return if e > 0.0 { up } else { down };
        }
    }
    encode_rnd(f, s, rnd, Saturation::None)
}

/// TwoSum: s = fl(a+b) and the exact error.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// Finishes a scalar result: NaN canonical, ftz, sat, relu.
fn finish(f: FloatFormat, bits: u64, m: FMods) -> u64 {
    let mut bits = bits;
    let v = to_f64(f, bits);
    if v.is_nan() {
        return if m.sat { 0 } else { canonical_nan(f) };
    }
    if m.ftz {
        bits = flush(f, bits);
    }
    if m.sat {
        let v = to_f64(f, bits);
        if v <= 0.0 {
            return 0;
        }
        if v >= 1.0 {
            return encode(f, 1.0, Rounding::NearestEven, Saturation::None);
        }
    }
    if m.relu && to_f64(f, bits) < 0.0 {
        return 0;
    }
    bits
}

fn input(f: FloatFormat, bits: u64, m: FMods) -> f64 {
    let bits = bits & if width(f) >= 64 { u64::MAX } else { (1u64 << width(f)) - 1 };
    to_f64(f, if m.ftz { flush(f, bits) } else { bits })
}

fn bin_scalar(op: FBin, f: FloatFormat, m: FMods, a: u64, b: u64) -> u64 {
    // Fast path: f32 add/sub/mul in the default mode are native IEEE operations.
    if f == FloatFormat::F32 && m.rnd == Rnd::Rn && !m.ftz && !m.sat && !m.relu && matches!(op, FBin::Add | FBin::Sub | FBin::Mul) {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = match op {
            FBin::Add => x + y,
            FBin::Sub => x - y,
            _ => x * y,
        };
        return if r.is_nan() { 0x7fff_ffff } else { r.to_bits() as u64 };
    }
    let (x, y) = (input(f, a, m), input(f, b, m));
    let bits = match op {
        FBin::Add | FBin::Sub => {
            let y = if op == FBin::Sub { -y } else { y };
            // TwoSum gives the exact error even when x+y is inexact in f64.
            let (s, e) = two_sum(x, y);
            round_to(f, s, e, m.rnd)
        }
        FBin::Mul => {
            let s = x * y;
            let e = if f == FloatFormat::F64 && s.is_finite() { x.mul_add(y, -s) } else { 0.0 };
            round_to(f, s, e, m.rnd)
        }
        FBin::Div => {
            if m.approx {
                // The PTX ISA's structure, d = a * (1/b): a reciprocal below the normal range
                // is zero, so 2^126 < |b| < 2^128 gives 0 (NaN for an infinite a), as the ISA
                // documents; both roundings are to nearest.
                let r = 1.0f32 / y as f32;
                let r = if r != 0.0 && r.abs() < f32::MIN_POSITIVE { 0.0f32.copysign(r) } else { r };
                let s = (x as f32 * r) as f64;
                return finish(f, encode(f, s, Rounding::NearestEven, Saturation::None), m);
            }
            let s = x / y;
            let e = if s.is_finite() && y != 0.0 && s != 0.0 { (-s).mul_add(y, x) * y.signum() } else { 0.0 };
            round_to(f, s, e, m.rnd)
        }
        FBin::Min | FBin::Max => {
            if x.is_nan() || y.is_nan() {
                if m.nan || (x.is_nan() && y.is_nan()) {
                    return canonical_nan(f);
                }
                let v = if x.is_nan() { b } else { a };
                return finish(f, v, FMods { sat: false, ..m });
            }
            // -0 is below +0 here.
            let less = x < y || (x == y && x.is_sign_negative() && !y.is_sign_negative());
            let pick_a = (op == FBin::Min) == less;
            let v = if pick_a { a } else { b };
            let v = if m.ftz { flush(f, v) } else { v };
            return finish(f, v, m);
        }
        FBin::CopySign => {
            let sign = 1u64 << (width(f) - 1);
            return (b & !sign) | (a & sign);
        }
    };
    finish(f, bits, m)
}

/// A binary floating-point operation on one lane's bits.
pub fn fbin(op: FBin, k: FKind, m: FMods, a: u64, b: u64) -> u64 {
    let f = elem_format(k);
    if is_pair(k) {
        let lo = bin_scalar(op, f, m, a & 0xffff, b & 0xffff);
        let hi = bin_scalar(op, f, m, (a >> 16) & 0xffff, (b >> 16) & 0xffff);
        return lo | (hi << 16);
    }
    bin_scalar(op, f, m, a, b)
}

fn fma_scalar(f: FloatFormat, m: FMods, a: u64, b: u64, c: u64) -> u64 {
    if f == FloatFormat::F32 && m.rnd == Rnd::Rn && !m.ftz && !m.sat && !m.relu {
        let r = f32::from_bits(a as u32).mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32));
        return if r.is_nan() { 0x7fff_ffff } else { r.to_bits() as u64 };
    }
    let (x, y, z) = (input(f, a, m), input(f, b, m), input(f, c, m));
    let bits = if f == FloatFormat::F64 {
        let s = x.mul_add(y, z);
        let e = if s.is_finite() {
            // exact = p + pe + z; residual = (p - s) + z + pe
            let p = x * y;
            let pe = x.mul_add(y, -p);
            let (h, l) = two_sum(p, -s);
            (h + z) + (pe + l)
        } else {
            0.0
        };
        round_to(f, s, e, m.rnd)
    } else {
        // Narrow formats: the product is exact in f64, so TwoSum gives the exact error.
        let p = x * y;
        let (s, e) = two_sum(p, z);
        round_to(f, s, e, m.rnd)
    };
    finish(f, bits, m)
}

/// fma / mad on floats.
pub fn fma(k: FKind, m: FMods, a: u64, b: u64, c: u64) -> u64 {
    let f = elem_format(k);
    if is_pair(k) {
        let lo = fma_scalar(f, m, a & 0xffff, b & 0xffff, c & 0xffff);
        let hi = fma_scalar(f, m, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
        return lo | (hi << 16);
    }
    fma_scalar(f, m, a, b, c)
}

fn un_scalar(op: FUn, f: FloatFormat, m: FMods, a: u64) -> u64 {
    let sign = 1u64 << (width(f) - 1);
    let a = if m.ftz { flush(f, a) } else { a };
    match op {
        FUn::Neg => return a ^ sign,
        FUn::Abs => return a & !sign,
        _ => {}
    }
    let x = to_f64(f, a);
    let near = |v: f64| encode(f, v, Rounding::NearestEven, Saturation::None);
    let bits = match op {
        FUn::Sqrt if !m.approx => {
            let s = x.sqrt();
            let e = if s.is_finite() && s > 0.0 { (-s).mul_add(s, x) } else { 0.0 };
            round_to(f, s, e, m.rnd)
        }
        FUn::Rcp if !m.approx => {
            let s = 1.0 / x;
            let e = if s.is_finite() && s != 0.0 { (-s).mul_add(x, 1.0) * x.signum() } else { 0.0 };
            round_to(f, s, e, m.rnd)
        }
        // Approximate forms: computed in f64 and rounded once, well inside the ISA's
        // documented error bounds.
        FUn::Sqrt => near(x.sqrt()),
        FUn::Rcp => near(1.0 / x),
        FUn::Rsqrt => near(1.0 / x.sqrt()),
        FUn::Sin => near(x.sin()),
        FUn::Cos => near(x.cos()),
        FUn::Lg2 => near(x.log2()),
        FUn::Ex2 => near(x.exp2()),
        FUn::Tanh => near(x.tanh()),
        FUn::Neg | FUn::Abs => a,
    };
    finish(f, bits, m)
}

/// A unary floating-point operation.
pub fn fun(op: FUn, k: FKind, m: FMods, a: u64) -> u64 {
    let f = elem_format(k);
    if is_pair(k) {
        return un_scalar(op, f, m, a & 0xffff) | (un_scalar(op, f, m, (a >> 16) & 0xffff) << 16);
    }
    un_scalar(op, f, m, a)
}

/// Float comparison (ordered forms are false on NaN, `u` forms true).
pub fn fcmp(cmp: Cmp, k: FKind, ftz: bool, a: u64, b: u64) -> bool {
    let f = elem_format(k);
    let m = FMods { rnd: Rnd::Rn, ftz, sat: false, approx: false, nan: false, relu: false };
    let (x, y) = (input(f, a, m), input(f, b, m));
    let unordered = x.is_nan() || y.is_nan();
    match cmp {
        Cmp::Eq => !unordered && x == y,
        Cmp::Ne => !unordered && x != y,
        Cmp::Lt | Cmp::Lo => !unordered && x < y,
        Cmp::Le | Cmp::Ls => !unordered && x <= y,
        Cmp::Gt | Cmp::Hi => !unordered && x > y,
        Cmp::Ge | Cmp::Hs => !unordered && x >= y,
        Cmp::Equ => unordered || x == y,
        Cmp::Neu => unordered || x != y,
        Cmp::Ltu => unordered || x < y,
        Cmp::Leu => unordered || x <= y,
        Cmp::Gtu => unordered || x > y,
        Cmp::Geu => unordered || x >= y,
        Cmp::Num => !unordered,
        Cmp::Nan => unordered,
    }
}

/// testp: 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal.
pub fn testp(which: u8, k: FKind, a: u64) -> bool {
    let f = elem_format(k);
    let x = to_f64(f, a);
    match which {
        0 => x.is_finite(),
        1 => x.is_infinite(),
        2 => !x.is_nan(),
        3 => x.is_nan(),
        4 => x.is_finite() && x != 0.0 && !is_subnormal(f, a),
        _ => is_subnormal(f, a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: FMods = FMods { rnd: Rnd::Rn, ftz: false, sat: false, approx: false, nan: false, relu: false };
    fn with(rnd: Rnd) -> FMods {
        FMods { rnd, ..RN }
    }
    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }

    #[test]
    fn add_rounding_modes_on_ties_and_directions() {
        // 1 + 2^-24 is a tie between 1 and 1+2^-23: RN goes to even (1).
        let tiny = f(2f32.powi(-24));
        assert_eq!(fbin(FBin::Add, FKind::F32, RN, f(1.0), tiny), f(1.0));
        assert_eq!(fbin(FBin::Add, FKind::F32, with(Rnd::Rp), f(1.0), tiny), f(1.0 + 2f32.powi(-23)));
        assert_eq!(fbin(FBin::Add, FKind::F32, with(Rnd::Rz), f(1.0), tiny), f(1.0));
        assert_eq!(fbin(FBin::Add, FKind::F32, with(Rnd::Rm), f(-1.0), f(-(2f32.powi(-24)))), f(-1.0 - 2f32.powi(-23)));
        // A far smaller addend still moves directed modes by one ulp.
        let t = f(1e-30);
        assert_eq!(fbin(FBin::Add, FKind::F32, with(Rnd::Rp), f(1.0), t), f(1.0 + 2f32.powi(-23)));
        assert_eq!(fbin(FBin::Add, FKind::F32, with(Rnd::Rm), f(1.0), t), f(1.0));
        assert_eq!(fbin(FBin::Sub, FKind::F32, with(Rnd::Rz), f(1.0), t), f(1.0 - 2f32.powi(-24)));
        // f64 too.
        let one = 1f64.to_bits();
        assert_eq!(fbin(FBin::Add, FKind::F64, with(Rnd::Rp), one, 1e-300f64.to_bits()), (1.0f64 + f64::EPSILON).to_bits());
    }

    #[test]
    fn overflow_by_mode() {
        let max = f(f32::MAX);
        assert_eq!(fbin(FBin::Mul, FKind::F32, RN, max, f(2.0)), f(f32::INFINITY));
        assert_eq!(fbin(FBin::Mul, FKind::F32, with(Rnd::Rz), max, f(2.0)), max);
        assert_eq!(fbin(FBin::Add, FKind::F32, with(Rnd::Rp), max, f(1.0)), f(f32::INFINITY));
        assert_eq!(fbin(FBin::Add, FKind::F32, with(Rnd::Rm), max, f(1.0)), max);
    }

    #[test]
    fn nan_subnormal_ftz_sat() {
        assert_eq!(fbin(FBin::Add, FKind::F32, RN, 0x7fc0_0001, f(1.0)), 0x7fff_ffff);
        assert_eq!(fbin(FBin::Mul, FKind::F32, RN, f(0.0), f(f32::INFINITY)), 0x7fff_ffff);
        let sub = 1u64; // smallest subnormal
        assert_eq!(fbin(FBin::Add, FKind::F32, RN, sub, sub), 2);
        let ftz = FMods { ftz: true, ..RN };
        assert_eq!(fbin(FBin::Add, FKind::F32, ftz, sub, sub), 0);
        assert_eq!(fbin(FBin::Mul, FKind::F32, ftz, f(-1e-20), f(1e-20)), f(-0.0));
        let sat = FMods { sat: true, ..RN };
        assert_eq!(fbin(FBin::Add, FKind::F32, sat, f(0.75), f(0.5)), f(1.0));
        assert_eq!(fbin(FBin::Add, FKind::F32, sat, f(-0.75), f(0.5)), f(0.0));
        assert_eq!(fbin(FBin::Add, FKind::F32, sat, 0x7fc0_0000, f(0.5)), 0);
    }

    #[test]
    fn min_max_nan_and_zero_signs() {
        assert_eq!(fbin(FBin::Min, FKind::F32, RN, 0x7fc0_0000, f(2.0)), f(2.0));
        assert_eq!(fbin(FBin::Min, FKind::F32, FMods { nan: true, ..RN }, 0x7fc0_0000, f(2.0)), 0x7fff_ffff);
        assert_eq!(fbin(FBin::Min, FKind::F32, RN, f(0.0), f(-0.0)), f(-0.0));
        assert_eq!(fbin(FBin::Max, FKind::F32, RN, f(-0.0), f(0.0)), f(0.0));
    }

    #[test]
    fn div_sqrt_fma_correctly_rounded() {
        assert_eq!(fbin(FBin::Div, FKind::F32, RN, f(1.0), f(3.0)), f(1.0 / 3.0));
        // RN of 1/3 in f32 (0x3EAAAAAB) is above 1/3.
        assert_eq!(fbin(FBin::Div, FKind::F32, with(Rnd::Rp), f(1.0), f(3.0)), f(1.0 / 3.0));
        assert_eq!(fbin(FBin::Div, FKind::F32, with(Rnd::Rz), f(1.0), f(3.0)), f(1.0 / 3.0) - 1);
        assert_eq!(fbin(FBin::Div, FKind::F32, with(Rnd::Rm), f(-1.0), f(3.0)), f(-1.0 / 3.0));
        assert_eq!(fun(FUn::Sqrt, FKind::F32, RN, f(2.0)), f(2f32.sqrt()));
        assert_eq!(fun(FUn::Sqrt, FKind::F32, with(Rnd::Rm), f(2.0)), f(2f32.sqrt()));
        assert_eq!(fun(FUn::Sqrt, FKind::F32, with(Rnd::Rp), f(2.0)), f(2f32.sqrt()) + 1);
        let e = 2f32.powi(-23);
        // (1+e)(1-e) = 1 - e^2: fma keeps it, a separate multiply would not.
        assert_eq!(fma(FKind::F32, RN, f(1.0 + e), f(1.0 - e), f(-1.0)), f(-e * e));
        assert_eq!(fma(FKind::F32, with(Rnd::Rm), f(1.0), f(1.0), f(1e-30)), f(1.0));
        assert_eq!(fma(FKind::F32, with(Rnd::Rp), f(1.0), f(1.0), f(1e-30)), f(1.0) + 1);
    }

    #[test]
    fn packed_halves() {
        // 1.0 + 2.0 and 0.5 + 0.25 in f16x2.
        let a = 0x3C00 | (0x3800 << 16);
        let b = 0x4000 | (0x3400 << 16);
        assert_eq!(fbin(FBin::Add, FKind::F16x2, RN, a, b), 0x4200 | (0x3A00 << 16));
        // bf16: 1.0 * 3.0
        assert_eq!(fbin(FBin::Mul, FKind::BF16, RN, 0x3F80, 0x4040), 0x4040);
    }

    #[test]
    fn compares_with_nan() {
        let nan = 0x7fc0_0000;
        assert!(!fcmp(Cmp::Lt, FKind::F32, false, nan, f(1.0)));
        assert!(fcmp(Cmp::Ltu, FKind::F32, false, nan, f(1.0)));
        assert!(!fcmp(Cmp::Ne, FKind::F32, false, nan, nan));
        assert!(fcmp(Cmp::Neu, FKind::F32, false, nan, nan));
        assert!(fcmp(Cmp::Nan, FKind::F32, false, nan, f(0.0)));
        assert!(fcmp(Cmp::Eq, FKind::F32, false, f(0.0), f(-0.0)));
        assert!(fcmp(Cmp::Eq, FKind::F32, true, 1, 0));
        assert!(testp(5, FKind::F32, 1));
        assert!(testp(1, FKind::F32, f(f32::NEG_INFINITY)));
    }

    #[test]
    fn half_precision_rounding_overflow_subnormals() {
        let h = |r: Rnd| FMods { rnd: r, ..RN };
        // 1 + 2^-11 is the tie between 1 and 1 + 2^-10.
        assert_eq!(fbin(FBin::Add, FKind::F16, RN, 0x3C00, 0x1000), 0x3C00);
        assert_eq!(fbin(FBin::Add, FKind::F16, h(Rnd::Rp), 0x3C00, 0x1000), 0x3C01);
        // 65504 + 65504 overflows: to infinity when rounding to nearest, to max when toward zero.
        assert_eq!(fbin(FBin::Add, FKind::F16, RN, 0x7BFF, 0x7BFF), 0x7C00);
        assert_eq!(fbin(FBin::Add, FKind::F16, h(Rnd::Rz), 0x7BFF, 0x7BFF), 0x7BFF);
        // 2^-24 * 0.5 is the tie between 0 and the smallest subnormal.
        assert_eq!(fbin(FBin::Mul, FKind::F16, RN, 0x0001, 0x3800), 0x0000);
        assert_eq!(fbin(FBin::Mul, FKind::F16, h(Rnd::Rp), 0x0001, 0x3800), 0x0001);
        assert_eq!(fbin(FBin::Mul, FKind::F16, RN, 0x0001, 0x3E00), 0x0002);
        // NaN results are canonical in every width.
        assert_eq!(fbin(FBin::Sub, FKind::F16, RN, 0x7C00, 0x7C00), 0x7FFF);
        assert_eq!(fbin(FBin::Mul, FKind::BF16x2, RN, 0x7F80_0000, 0x0000_3F80), 0x7FFF_0000);
    }

    #[test]
    fn double_precision_and_special_values() {
        let d = |x: f64| x.to_bits();
        let third = 1.0f64 / 3.0;
        // RN of 1/3 is below 1/3, so RP is one ulp up and RZ equals RN.
        assert_eq!(fbin(FBin::Div, FKind::F64, with(Rnd::Rp), d(1.0), d(3.0)), d(third) + 1);
        assert_eq!(fbin(FBin::Div, FKind::F64, with(Rnd::Rz), d(1.0), d(3.0)), d(third));
        assert_eq!(fun(FUn::Sqrt, FKind::F32, RN, f(-1.0)), 0x7fff_ffff);
        assert_eq!(fun(FUn::Sqrt, FKind::F32, RN, f(-0.0)), f(-0.0));
        assert_eq!(fun(FUn::Rcp, FKind::F32, RN, f(0.0)), f(f32::INFINITY));
        assert_eq!(fun(FUn::Rcp, FKind::F32, RN, f(f32::NEG_INFINITY)), f(-0.0));
        assert_eq!(fun(FUn::Ex2, FKind::F32, FMods { approx: true, ftz: true, ..RN }, f(f32::NEG_INFINITY)), f(0.0));
        assert_eq!(fun(FUn::Lg2, FKind::F32, FMods { approx: true, ..RN }, f(0.0)), f(f32::NEG_INFINITY));
        assert_eq!(fun(FUn::Neg, FKind::F32, RN, f(0.0)), f(-0.0));
        assert_eq!(fun(FUn::Abs, FKind::F16x2, RN, 0x8001_BC00), 0x0001_3C00);
        assert_eq!(fbin(FBin::CopySign, FKind::F32, RN, f(-1.0), f(2.5)), f(-2.5));
        // fma keeps the product exact: 2^-30 survives in (1+2^-15)^2 - 1.
        let x = f(1.0 + 2f32.powi(-15));
        assert_eq!(fma(FKind::F32, RN, x, x, f(-1.0)), f(2f32.powi(-14) + 2f32.powi(-30)));
    }

    /// The approximate f32 forms stay within the PTX ISA's documented maximum errors over a
    /// sweep of inputs (the emulator rounds the f64 value once, so they are far inside),
    /// and handle subnormals (kept, or flushed with `.ftz`), infinities, zeros and NaN as
    /// the ISA's tables say.
    #[test]
    fn approximate_forms_within_the_isa_error_bounds() {
        let approx = FMods { approx: true, ..RN };
        let ftz = FMods { approx: true, ftz: true, ..RN };
        let run = |op: FUn, m: FMods, x: f32| f32::from_bits(fun(op, FKind::F32, m, f(x)) as u32);
        // Inputs: a geometric sweep over the whole range (normal and subnormal), both signs,
        // plus a dense linear sweep over [-8, 8].
        let mut xs: Vec<f32> = Vec::new();
        let mut b = 1u32;
        while b < 0x7f80_0000 {
            xs.push(f32::from_bits(b));
            xs.push(-f32::from_bits(b));
            b = b + b / 97 + 1;
        }
        xs.extend((-4096..=4096).map(|i| i as f32 / 512.0));
        let ulp = |y: f64| {
            let a = (y.abs() as f32).max(f32::MIN_POSITIVE);
            (f32::from_bits(a.to_bits() + 1) - a) as f64
        };
        for &x in &xs {
            let xd = x as f64;
            // rcp.approx.f32: max 1 ulp over the full range.
            if x != 0.0 && (1.0 / xd).abs() < f32::MAX as f64 {
                let (got, want) = (run(FUn::Rcp, approx, x) as f64, 1.0 / xd);
                assert!((got - want).abs() <= ulp(want), "rcp.approx({x:e}) = {got:e}");
            }
            if x > 0.0 {
                // sqrt.approx.f32: max relative error 2^-23; rsqrt.approx.f32: 2^-22.9.
                let (got, want) = (run(FUn::Sqrt, approx, x) as f64, xd.sqrt());
                assert!(((got - want) / want).abs() <= 2f64.powf(-23.0), "sqrt.approx({x:e}) = {got:e}");
                let want = 1.0 / xd.sqrt();
                if want < f32::MAX as f64 {
                    let got = run(FUn::Rsqrt, approx, x) as f64;
                    assert!(((got - want) / want).abs() <= 2f64.powf(-22.9), "rsqrt.approx({x:e}) = {got:e}");
                }
                // lg2.approx.f32: max absolute error 2^-22.6 on [0.5, 2], relative 2^-22 elsewhere.
                let (got, want) = (run(FUn::Lg2, approx, x) as f64, xd.log2());
                let err = if (0.5..=2.0).contains(&xd) { (got - want).abs() / 2f64.powf(-22.6) } else { ((got - want) / want).abs() / 2f64.powf(-22.0) };
                assert!(err <= 1.0, "lg2.approx({x:e}) = {got:e}");
            }
            // ex2.approx.f32: max relative error 2^-22.5 (results from subnormal to overflow).
            if xd.abs() <= 126.0 {
                let (got, want) = (run(FUn::Ex2, approx, x) as f64, xd.exp2());
                assert!(((got - want) / want).abs() <= 2f64.powf(-22.5), "ex2.approx({x:e}) = {got:e}");
            }
            // sin/cos.approx.f32: max absolute error 2^-20.9 on [-100 pi, 100 pi].
            if xd.abs() <= 100.0 * std::f64::consts::PI {
                assert!((run(FUn::Sin, approx, x) as f64 - xd.sin()).abs() <= 2f64.powf(-20.9), "sin.approx({x:e})");
                assert!((run(FUn::Cos, approx, x) as f64 - xd.cos()).abs() <= 2f64.powf(-20.9), "cos.approx({x:e})");
            }
            // tanh.approx.f32: max relative error 2^-10.987.
            if x != 0.0 {
                let (got, want) = (run(FUn::Tanh, approx, x) as f64, xd.tanh());
                assert!(((got - want) / want).abs() <= 2f64.powf(-10.987), "tanh.approx({x:e}) = {got:e}");
            }
        }
        // Special values.
        let (inf, nan, sub) = (f32::INFINITY, f32::NAN, f32::from_bits(0x0000_1234));
        assert_eq!(run(FUn::Ex2, approx, inf), inf);
        assert_eq!(run(FUn::Ex2, approx, -inf).to_bits(), 0);
        assert_eq!(run(FUn::Ex2, approx, -130.0), f32::from_bits(1 << 19), "subnormal result (2^-130) kept");
        assert_eq!(run(FUn::Ex2, ftz, -130.0).to_bits(), 0, ".ftz flushes a subnormal result");
        assert_eq!(run(FUn::Ex2, ftz, sub), 1.0, ".ftz flushes a subnormal input");
        assert_eq!(run(FUn::Lg2, approx, -1.0).to_bits(), 0x7fff_ffff);
        assert_eq!(run(FUn::Lg2, approx, inf), inf);
        assert_eq!(run(FUn::Lg2, ftz, sub), -inf);
        assert!((run(FUn::Lg2, approx, sub) as f64 - (sub as f64).log2()).abs() < 1e-5, "subnormal input kept");
        assert_eq!(run(FUn::Rcp, approx, -0.0), -inf);
        assert_eq!(run(FUn::Rcp, approx, inf).to_bits(), 0);
        assert_eq!(run(FUn::Rcp, ftz, -sub), -inf);
        assert_eq!(run(FUn::Rsqrt, approx, 0.0), inf);
        assert_eq!(run(FUn::Rsqrt, approx, -0.0), -inf);
        assert_eq!(run(FUn::Rsqrt, approx, inf).to_bits(), 0);
        assert_eq!(run(FUn::Rsqrt, approx, -1.0).to_bits(), 0x7fff_ffff);
        assert_eq!(run(FUn::Sqrt, approx, -0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(run(FUn::Sqrt, approx, inf), inf);
        assert_eq!(run(FUn::Sin, approx, inf).to_bits(), 0x7fff_ffff);
        assert_eq!(run(FUn::Cos, approx, -inf).to_bits(), 0x7fff_ffff);
        assert_eq!(run(FUn::Tanh, approx, inf), 1.0);
        assert_eq!(run(FUn::Tanh, approx, -inf), -1.0);
        assert_eq!(run(FUn::Tanh, approx, -0.0).to_bits(), (-0.0f32).to_bits());
        for op in [FUn::Ex2, FUn::Lg2, FUn::Rcp, FUn::Rsqrt, FUn::Sqrt, FUn::Sin, FUn::Cos, FUn::Tanh] {
            assert_eq!(run(op, approx, nan).to_bits(), 0x7fff_ffff, "{op:?}(NaN) is the canonical NaN");
        }
    }
}
