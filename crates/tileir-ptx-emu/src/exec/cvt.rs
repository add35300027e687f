//! `cvt`: integer ↔ integer (truncate/extend, `.sat`), integer ↔ float (one rounding in
//! every mode), float ↔ float (including f16, bf16, tf32 and fp8, scalar and packed pairs),
//! and round-to-integral (`.rni`/`.rzi`/`.rmi`/`.rpi` between floats of one format).

use tileir_numeric::{convert, FloatFormat, Rounding, Saturation};

use super::alu::{mask, sext};
use super::fp::{canonical_nan, encode_rnd, flush, round_to, to_f64};
use crate::program::{CvtTy, FMods, IntTy, Rnd};

fn round_integral(x: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rn => x.round_ties_even(),
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
        Rnd::Rna => x.round(),
    }
}

fn int_value(t: IntTy, a: u64) -> i128 {
    if t.signed {
        sext(a, t.bits) as i128
    } else {
        (a & mask(t.bits)) as i128
    }
}

fn int_range(t: IntTy) -> (i128, i128) {
    if t.signed {
        (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
    } else {
        (0, (1i128 << t.bits) - 1)
    }
}

fn sat_of(m: FMods) -> Saturation {
    if m.nan {
        Saturation::Finite
    } else {
        Saturation::None
    }
}

/// Float `a` of format `sf` to float format `df`.
fn float_to_float(df: FloatFormat, sf: FloatFormat, m: FMods, a: u64) -> u64 {
    let w = sf.bit_width();
    let a = a & if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let a = if m.ftz && sf == FloatFormat::F32 { flush(sf, a) } else { a };
    let x = to_f64(sf, a);
    if x.is_nan() {
        return if m.sat { 0 } else { canonical_nan(df) };
    }
    if !m.ftz && !m.sat && !m.relu && !m.nan && !m.approx {
        // The conversions kernels do most, without tileir-numeric's general path.
        let fast = match (df, sf, m.rnd) {
            (FloatFormat::F32, FloatFormat::F16 | FloatFormat::BF16, _) => Some((x as f32).to_bits() as u64),
            (FloatFormat::F16, FloatFormat::F32, Rnd::Rn) => super::half::f32_to_f16_rn(x as f32).map(u64::from),
            (FloatFormat::BF16, FloatFormat::F32, Rnd::Rn) => super::half::f32_to_bf16_rn(x as f32).map(u64::from),
            (FloatFormat::TF32, FloatFormat::F32, Rnd::Rna) => super::half::f32_to_tf32_rna(x as f32).map(u64::from),
            _ => None,
        };
        if let Some(b) = fast {
            return b;
        }
    }
    let mut bits = if df == sf {
        if m.approx {
            round_to(df, round_integral(x, m.rnd), 0.0, Rnd::Rn)
        } else {
            a
        }
    } else {
        if sf == FloatFormat::F64 || df == FloatFormat::TF32 || m.rnd == Rnd::Rna {
            encode_rnd(df, x, m.rnd, sat_of(m))
        } else {
            convert(sf, a, df, super::fp::rounding(m.rnd), sat_of(m)).bits
        }
    };
    if m.ftz && df == FloatFormat::F32 {
        bits = flush(df, bits);
    }
    let v = to_f64(df, bits);
    if m.sat {
        if v <= 0.0 {
            return 0;
        }
        if v >= 1.0 {
            return convert(FloatFormat::F64, 1f64.to_bits(), df, Rounding::NearestEven, Saturation::None).bits;
        }
    }
    if m.relu && v < 0.0 {
        return 0;
    }
    bits
}

/// One `cvt` on a lane's bits (`b`: the second source of packing conversions, converted
/// into the low half).
pub fn cvt(dt: CvtTy, st: CvtTy, m: FMods, a: u64, b: Option<u64>) -> u64 {
    match (dt, st) {
        (CvtTy::Int(d), CvtTy::Int(s)) => {
            let mut v = int_value(s, a);
            if m.sat {
                let (lo, hi) = int_range(d);
                v = v.clamp(lo, hi);
            }
            (v as u64) & mask(d.bits)
        }
        (CvtTy::Float(df), CvtTy::Int(s)) => {
            let v = int_value(s, a);
            let sv = v as f64;
            let e = (v - sv as i128).signum() as f64;
            let bits = round_to(df, sv, e, m.rnd);
            let bits = if m.ftz && df == FloatFormat::F32 { flush(df, bits) } else { bits };
            if m.sat {
                float_to_float(df, df, FMods { approx: false, ..m }, bits)
            } else {
                bits
            }
        }
        (CvtTy::Int(d), CvtTy::Float(sf)) => {
            let w = sf.bit_width();
            let a = a & if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
            let a = if m.ftz && sf == FloatFormat::F32 { flush(sf, a) } else { a };
            let x = to_f64(sf, a);
            if x.is_nan() {
                return 0;
            }
            let r = round_integral(x, m.rnd);
            let (lo, hi) = int_range(d);
            // Float-to-integer conversions always saturate in PTX.
            let v = if r <= lo as f64 {
                lo
            } else if r >= hi as f64 {
                hi
            } else {
                r as i128
            };
            (v as u64) & mask(d.bits)
        }
        (CvtTy::Float(df), CvtTy::Float(sf)) => float_to_float(df, sf, m, a),
        (CvtTy::Pair(df), CvtTy::Float(sf)) => {
            let w = df.bit_width();
            let hi = float_to_float(df, sf, m, a);
            let lo = b.map_or(0, |b| float_to_float(df, sf, m, b));
            (hi << w) | lo
        }
        (CvtTy::Pair(df), CvtTy::Pair(sf)) => {
            let (dw, sw) = (df.bit_width(), sf.bit_width());
            let sm = (1u64 << sw) - 1;
            let lo = float_to_float(df, sf, m, a & sm);
            let hi = float_to_float(df, sf, m, (a >> sw) & sm);
            (hi << dw) | lo
        }
        (CvtTy::Float(df), CvtTy::Pair(sf)) => float_to_float(df, sf, m, a & ((1u64 << sf.bit_width()) - 1)),
        (CvtTy::Int(_), CvtTy::Pair(_)) | (CvtTy::Pair(_), CvtTy::Int(_)) => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: FMods = FMods { rnd: Rnd::Rn, ftz: false, sat: false, approx: false, nan: false, relu: false };
    const F32: CvtTy = CvtTy::Float(FloatFormat::F32);
    const F16: CvtTy = CvtTy::Float(FloatFormat::F16);
    const S32: CvtTy = CvtTy::Int(IntTy { bits: 32, signed: true });
    const U32: CvtTy = CvtTy::Int(IntTy { bits: 32, signed: false });
    const U8: CvtTy = CvtTy::Int(IntTy { bits: 8, signed: false });
    const S64: CvtTy = CvtTy::Int(IntTy { bits: 64, signed: true });
    const U64: CvtTy = CvtTy::Int(IntTy { bits: 64, signed: false });
    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }
    fn rnd(r: Rnd) -> FMods {
        FMods { rnd: r, approx: true, ..RN }
    }

    #[test]
    fn integer_widths() {
        assert_eq!(cvt(S64, S32, RN, 0xffff_fffe, None), (-2i64) as u64);
        assert_eq!(cvt(U64, U32, RN, 0xffff_fffe, None), 0xffff_fffe);
        assert_eq!(cvt(U32, U64, RN, 0x1_0000_0005, None), 5);
        assert_eq!(cvt(U8, S32, FMods { sat: true, ..RN }, (-5i32) as u32 as u64, None), 0);
        assert_eq!(cvt(U8, U32, FMods { sat: true, ..RN }, 300, None), 255);
    }

    #[test]
    fn float_to_int_saturates_and_rounds() {
        assert_eq!(cvt(S32, F32, rnd(Rnd::Rz), f(-2.7), None), (-2i32) as u32 as u64);
        assert_eq!(cvt(S32, F32, rnd(Rnd::Rm), f(-2.2), None), (-3i32) as u32 as u64);
        assert_eq!(cvt(S32, F32, rnd(Rnd::Rn), f(2.5), None), 2);
        assert_eq!(cvt(S32, F32, rnd(Rnd::Rn), f(3.5), None), 4);
        assert_eq!(cvt(S32, F32, rnd(Rnd::Rz), f(1e20), None), 0x7fff_ffff);
        assert_eq!(cvt(U32, F32, rnd(Rnd::Rz), f(-1.0), None), 0);
        assert_eq!(cvt(S32, F32, rnd(Rnd::Rz), 0x7fc0_0000, None), 0);
    }

    #[test]
    fn int_to_float_rounding() {
        // 2^24 + 1 is a tie: RN to even gives 2^24, RP gives 2^24 + 2.
        assert_eq!(cvt(F32, S32, RN, (1 << 24) + 1, None), f(16777216.0));
        assert_eq!(cvt(F32, S32, FMods { rnd: Rnd::Rp, ..RN }, (1 << 24) + 1, None), f(16777218.0));
        // u64::MAX: RZ gives the largest float below 2^64.
        assert_eq!(cvt(F32, U64, FMods { rnd: Rnd::Rz, ..RN }, u64::MAX, None), f(1.8446743e19));
        assert_eq!(cvt(F32, U64, RN, u64::MAX, None), f(18446744073709551616.0));
    }

    #[test]
    fn narrow_floats_and_packing() {
        assert_eq!(cvt(F16, F32, RN, f(1.0), None), 0x3C00);
        assert_eq!(cvt(F32, F16, RN, 0x3C00, None), f(1.0));
        assert_eq!(cvt(F16, F32, RN, f(65520.0), None), 0x7C00);
        assert_eq!(cvt(F16, F32, FMods { rnd: Rnd::Rz, ..RN }, f(65520.0), None), 0x7BFF);
        assert_eq!(cvt(CvtTy::Float(FloatFormat::BF16), F32, RN, f(1.003_906_2), None), 0x3F80);
        assert_eq!(cvt(CvtTy::Pair(FloatFormat::F16), F32, RN, f(2.0), Some(f(1.0))), 0x4000_3C00);
        let e4 = CvtTy::Pair(FloatFormat::F8E4M3FN);
        assert_eq!(cvt(e4, F32, FMods { nan: true, ..RN }, f(1000.0), Some(f(1.0))), 0x7E38);
        assert_eq!(cvt(CvtTy::Pair(FloatFormat::F16), e4, RN, 0x7E38, None), 0x5F00_3C00);
        let tf = cvt(CvtTy::Float(FloatFormat::TF32), F32, FMods { rnd: Rnd::Rna, ..RN }, f(1.0 + 2f32.powi(-11)), None);
        assert_eq!(tf, f(1.0 + 2f32.powi(-10)));
        assert_eq!(cvt(F32, F32, rnd(Rnd::Rm), f(-1.5), None), f(-2.0));
        assert_eq!(cvt(F32, F32, FMods { sat: true, ..RN }, f(3.0), None), f(1.0));
        assert_eq!(cvt(F16, F32, RN, 0x7f80_0001, None), 0x7fff);
    }

    #[test]
    fn rounding_saturation_and_special_values() {
        let d = |x: f64| x.to_bits();
        let f64t = CvtTy::Float(FloatFormat::F64);
        // Ties to even on .rni; NaN to 0; infinities saturate.
        assert_eq!(cvt(S32, F32, rnd(Rnd::Rn), f(-2.5), None), (-2i32) as u32 as u64);
        assert_eq!(cvt(S64, f64t, rnd(Rnd::Rz), d(1e300), None), i64::MAX as u64);
        assert_eq!(cvt(S64, f64t, rnd(Rnd::Rz), d(f64::NEG_INFINITY), None), i64::MIN as u64);
        assert_eq!(cvt(U64, f64t, rnd(Rnd::Rz), d(f64::NAN), None), 0);
        // f64 -> f32 in each direction.
        let x = d(1.0 + 2f64.powi(-30));
        assert_eq!(cvt(F32, f64t, FMods { rnd: Rnd::Rz, ..RN }, x, None), f(1.0));
        assert_eq!(cvt(F32, f64t, FMods { rnd: Rnd::Rp, ..RN }, x, None), f(1.0 + 2f32.powi(-23)));
        assert_eq!(cvt(f64t, F32, RN, f(0.1), None), d(0.1f32 as f64));
        // f16 subnormals: 2^-25 is a tie (to 0), 3 * 2^-26 rounds up to 2^-24.
        assert_eq!(cvt(F16, F32, RN, f(2f32.powi(-25)), None), 0x0000);
        assert_eq!(cvt(F16, F32, RN, f(3.0 * 2f32.powi(-26)), None), 0x0001);
        // fp8 with .satfinite: infinity saturates to 448, NaN stays NaN.
        let e4 = CvtTy::Pair(FloatFormat::F8E4M3FN);
        let sf = FMods { nan: true, ..RN };
        assert_eq!(cvt(e4, F32, sf, f(f32::INFINITY), Some(f(f32::NAN))), 0x7E7F);
        let e5 = CvtTy::Pair(FloatFormat::F8E5M2);
        assert_eq!(cvt(e5, F32, RN, f(1.0), Some(f(-2.0))), 0x3CC0);
        // Integer narrowing truncates unless .sat.
        let s8 = CvtTy::Int(IntTy { bits: 8, signed: true });
        assert_eq!(cvt(s8, S32, RN, 0x1ff, None), 0xff);
        assert_eq!(cvt(s8, S32, FMods { sat: true, ..RN }, 0x1ff, None), 0x7f);
        assert_eq!(cvt(U32, S32, FMods { sat: true, ..RN }, 0xffff_ffff, None), 0);
    }
}
