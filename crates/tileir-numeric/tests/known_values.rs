//! Hand-checked bit patterns for every format, rounding mode and special case.

use tileir_numeric::{
    convert, decode, encode, encode_from_f32, encode_with_status, flush_subnormal, int_fits,
    sign_extend, truncate, zero_extend, FloatClass, FloatFormat, Rounding, Saturation,
};
use FloatFormat::*;
use Rounding::*;

fn rn(fmt: FloatFormat, x: f64) -> u64 {
    encode(fmt, x, NearestEven, Saturation::None)
}

fn enc(fmt: FloatFormat, x: f64, mode: Rounding) -> u64 {
    encode(fmt, x, mode, Saturation::None)
}

fn sat(fmt: FloatFormat, x: f64, mode: Rounding) -> u64 {
    encode(fmt, x, mode, Saturation::Finite)
}

#[test]
fn format_descriptions() {
    let table = [
        // fmt, width, apfloat width, exp, mant, bias, max, min normal
        (F16, 16, 16, 5, 10, 15, 65504.0, 2f64.powi(-14)),
        (
            BF16,
            16,
            16,
            8,
            7,
            127,
            3.3895313892515355e38,
            2f64.powi(-126),
        ),
        (F32, 32, 32, 8, 23, 127, f32::MAX as f64, 2f64.powi(-126)),
        (
            TF32,
            32,
            19,
            8,
            10,
            127,
            3.4011621342146535e38,
            2f64.powi(-126),
        ),
        (F64, 64, 64, 11, 52, 1023, f64::MAX, f64::MIN_POSITIVE),
        (F8E4M3FN, 8, 8, 4, 3, 7, 448.0, 2f64.powi(-6)),
        (F8E5M2, 8, 8, 5, 2, 15, 57344.0, 2f64.powi(-14)),
        (F8E8M0FNU, 8, 8, 8, 0, 127, 2f64.powi(127), 2f64.powi(-127)),
        (F4E2M1FN, 4, 4, 2, 1, 1, 6.0, 1.0),
    ];
    for (fmt, width, ap, exp, mant, bias, max, min_normal) in table {
        assert_eq!(fmt.bit_width(), width, "{fmt}");
        assert_eq!(fmt.apfloat_width(), ap, "{fmt}");
        assert_eq!(fmt.exponent_bits(), exp, "{fmt}");
        assert_eq!(fmt.mantissa_bits(), mant, "{fmt}");
        assert_eq!(fmt.bias(), bias, "{fmt}");
        assert_eq!(fmt.max_finite(), max, "{fmt}");
        assert_eq!(fmt.min_normal(), min_normal, "{fmt}");
        assert_eq!(FloatFormat::from_mlir_name(fmt.mlir_name()), Some(fmt));
        assert_eq!(decode(fmt, fmt.max_finite_bits(false)), max, "{fmt}");
        assert_eq!(decode(fmt, fmt.min_normal_bits()), min_normal, "{fmt}");
    }
    assert_eq!(FloatFormat::from_mlir_name("f8E4M3"), None);

    let ieee = [F16, BF16, F32, TF32, F64, F8E5M2];
    for fmt in FloatFormat::ALL {
        assert_eq!(fmt.has_inf(), ieee.contains(&fmt), "{fmt}");
        assert_eq!(fmt.has_nan(), fmt != F4E2M1FN, "{fmt}");
        assert_eq!(fmt.has_sign(), fmt != F8E8M0FNU, "{fmt}");
        assert_eq!(fmt.has_zero(), fmt != F8E8M0FNU, "{fmt}");
        assert_eq!(fmt.has_negative_zero(), fmt != F8E8M0FNU, "{fmt}");
        assert_eq!(fmt.has_subnormals(), fmt != F8E8M0FNU, "{fmt}");
    }
    assert_eq!(F16.min_positive(), 2f64.powi(-24));
    assert_eq!(F8E4M3FN.min_positive(), 2f64.powi(-9));
    assert_eq!(F4E2M1FN.min_positive(), 0.5);
    assert_eq!(F8E8M0FNU.min_positive(), 2f64.powi(-127));
    assert_eq!(F64.min_positive(), 5e-324);
    assert_eq!(F32.min_positive(), f64::from(f32::from_bits(1)));
    assert_eq!(TF32.min_positive(), 2f64.powi(-136));
}

#[test]
fn special_patterns() {
    assert_eq!(F32.nan_bits(), Some(0x7FC0_0000));
    assert_eq!(F16.nan_bits(), Some(0x7E00));
    assert_eq!(BF16.nan_bits(), Some(0x7FC0));
    assert_eq!(F64.nan_bits(), Some(0x7FF8_0000_0000_0000));
    assert_eq!(TF32.nan_bits(), Some(0x7FC0_0000));
    assert_eq!(F8E4M3FN.nan_bits(), Some(0x7F));
    assert_eq!(F8E4M3FN.nan_bits_signed(true), Some(0xFF));
    assert_eq!(F8E5M2.nan_bits(), Some(0x7E));
    assert_eq!(F8E8M0FNU.nan_bits(), Some(0xFF));
    assert_eq!(F4E2M1FN.nan_bits(), None);

    assert_eq!(F16.inf_bits(false), Some(0x7C00));
    assert_eq!(F16.inf_bits(true), Some(0xFC00));
    assert_eq!(F8E5M2.inf_bits(false), Some(0x7C));
    assert_eq!(TF32.inf_bits(true), Some(0xFF80_0000));
    assert_eq!(F8E4M3FN.inf_bits(false), None);

    assert_eq!(F8E4M3FN.zero_bits(true), Some(0x80));
    assert_eq!(F4E2M1FN.zero_bits(true), Some(0x8));
    assert_eq!(F8E8M0FNU.zero_bits(false), None);

    // tf32: storage is the f32-like 32-bit layout, APFloat uses 19 bits.
    assert_eq!(TF32.to_apfloat_bits(0x3F80_0000), 0x1FC00);
    assert_eq!(TF32.to_apfloat_bits(0x7FC0_0000), 0x3FE00);
    assert_eq!(TF32.from_apfloat_bits(0x3FC00), 0x7F80_0000);
    assert_eq!(
        F16.to_apfloat_bits(0x1_3C00),
        0x3C00,
        "bits beyond the width are ignored"
    );

    let classes = [
        (F16, 0x0000, FloatClass::Zero),
        (F16, 0x8000, FloatClass::Zero),
        (F16, 0x0001, FloatClass::Subnormal),
        (F16, 0x0400, FloatClass::Normal),
        (F16, 0x7C00, FloatClass::Infinite),
        (F16, 0x7C01, FloatClass::Nan),
        (F8E4M3FN, 0x78, FloatClass::Normal),
        (F8E4M3FN, 0x7E, FloatClass::Normal),
        (F8E4M3FN, 0x7F, FloatClass::Nan),
        (F8E4M3FN, 0xFF, FloatClass::Nan),
        (F8E5M2, 0x7D, FloatClass::Nan),
        (F8E8M0FNU, 0x00, FloatClass::Normal),
        (F8E8M0FNU, 0xFE, FloatClass::Normal),
        (F8E8M0FNU, 0xFF, FloatClass::Nan),
        (F4E2M1FN, 0x1, FloatClass::Subnormal),
        (F4E2M1FN, 0xF, FloatClass::Normal),
        (F4E2M1FN, 0x8, FloatClass::Zero),
    ];
    for (fmt, bits, class) in classes {
        assert_eq!(fmt.classify(bits), class, "{fmt} {bits:#X}");
    }
    assert!(F16.is_sign_negative(0x8000));
    assert!(!F8E8M0FNU.is_sign_negative(0xFF));
}

#[test]
fn f16_values() {
    assert_eq!(rn(F16, 1.0), 0x3C00);
    assert_eq!(rn(F16, -2.0), 0xC000);
    assert_eq!(rn(F16, 65504.0), 0x7BFF);
    assert_eq!(rn(F16, 314_159.0 / 100_000.0), 0x4248);
    assert_eq!(rn(F16, 1.0 / 3.0), 0x3555);
    assert_eq!(rn(F16, 2f64.powi(-14)), 0x0400);
    assert_eq!(rn(F16, 2f64.powi(-24)), 0x0001);
    assert_eq!(decode(F16, 0x3555), 0.333251953125);
    assert_eq!(decode(F16, 0x0001), 2f64.powi(-24));
    assert_eq!(decode(F16, 0x83FF), -1023.0 * 2f64.powi(-24));
    assert_eq!(decode(F16, 0xFC00), f64::NEG_INFINITY);
    assert!(decode(F16, 0x7E00).is_nan());
}

#[test]
fn ties_in_every_format() {
    // Nearest-even ties go to the even significand; directed modes ignore ties.
    let one_ulp = 2f64.powi(-10);
    assert_eq!(rn(F16, 1.0 + one_ulp / 2.0), 0x3C00);
    assert_eq!(rn(F16, 1.0 + 1.5 * one_ulp), 0x3C02);
    assert_eq!(enc(F16, 1.0 + one_ulp / 2.0, TowardPositive), 0x3C01);
    assert_eq!(enc(F16, 1.0 + one_ulp / 2.0, TowardZero), 0x3C00);
    assert_eq!(enc(F16, -(1.0 + one_ulp / 2.0), TowardNegative), 0xBC01);
    assert_eq!(enc(F16, -(1.0 + one_ulp / 2.0), TowardPositive), 0xBC00);

    assert_eq!(rn(BF16, 1.0), 0x3F80);
    assert_eq!(rn(BF16, 1.0 + 2f64.powi(-8)), 0x3F80);
    assert_eq!(rn(BF16, 1.0 + 3.0 * 2f64.powi(-8)), 0x3F82);
    assert_eq!(rn(BF16, std::f64::consts::PI), 0x4049);

    assert_eq!(rn(TF32, 1.0), 0x3F80_0000);
    assert_eq!(rn(TF32, 1.0 + 2f64.powi(-11)), 0x3F80_0000);
    assert_eq!(rn(TF32, 1.0 + 3.0 * 2f64.powi(-11)), 0x3F80_4000);
    assert_eq!(enc(TF32, 1.0 + 2f64.powi(-20), TowardPositive), 0x3F80_2000);
    assert_eq!(
        rn(TF32, f64::from(f32::MAX)),
        0x7F80_0000,
        "f32::MAX is above tf32's tie point"
    );
    assert_eq!(enc(TF32, f64::from(f32::MAX), TowardZero), 0x7F7F_E000);

    assert_eq!(rn(F8E4M3FN, 1.0), 0x38);
    assert_eq!(rn(F8E4M3FN, 1.0625), 0x38, "tie 1 + 1/16 -> even 1.0");
    assert_eq!(
        rn(F8E4M3FN, 1.1875),
        0x3A,
        "tie between 1.125 and 1.25 -> 1.25"
    );

    assert_eq!(rn(F8E5M2, 1.0), 0x3C);
    assert_eq!(rn(F8E5M2, 1.125), 0x3C);
    assert_eq!(rn(F8E5M2, 1.375), 0x3E);

    // f4E2M1FN: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
    let f4 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    for (i, v) in f4.iter().enumerate() {
        assert_eq!(rn(F4E2M1FN, *v), i as u64);
        assert_eq!(rn(F4E2M1FN, -v), i as u64 | 8);
        assert_eq!(decode(F4E2M1FN, i as u64), *v);
        assert_eq!(decode(F4E2M1FN, i as u64 | 8), -v);
    }
    assert_eq!(rn(F4E2M1FN, 0.25), 0x0, "tie 0 / 0.5 -> 0");
    assert_eq!(rn(F4E2M1FN, 0.75), 0x2, "tie 0.5 / 1 -> 1");
    assert_eq!(rn(F4E2M1FN, 2.5), 0x4, "tie 2 / 3 -> 2");
    assert_eq!(rn(F4E2M1FN, 5.0), 0x6, "tie 4 / 6 -> 4");
    assert_eq!(enc(F4E2M1FN, 0.1, TowardPositive), 0x1);
    assert_eq!(enc(F4E2M1FN, -0.1, TowardNegative), 0x9);
    assert_eq!(enc(F4E2M1FN, -0.1, TowardPositive), 0x8);

    // f8E8M0FNU: a one-bit significand, so a tie (1.5 * 2^k) rounds up, as
    // APFloat does.
    assert_eq!(rn(F8E8M0FNU, 1.0), 0x7F);
    assert_eq!(rn(F8E8M0FNU, 1.5), 0x80);
    assert_eq!(rn(F8E8M0FNU, 1.49), 0x7F);
    assert_eq!(rn(F8E8M0FNU, 0.75), 0x7F);
    assert_eq!(enc(F8E8M0FNU, 1.5, TowardZero), 0x7F);
    assert_eq!(enc(F8E8M0FNU, 1.01, TowardPositive), 0x80);
    assert_eq!(enc(F8E8M0FNU, 1.99, TowardNegative), 0x7F);
    assert_eq!(decode(F8E8M0FNU, 0x7F), 1.0);
    assert_eq!(decode(F8E8M0FNU, 0x00), 2f64.powi(-127));
    assert_eq!(decode(F8E8M0FNU, 0xFE), 2f64.powi(127));
}

#[test]
fn subnormals_in_every_mode() {
    let tiny = 2f64.powi(-24); // f16's smallest subnormal
    assert_eq!(rn(F16, tiny / 2.0), 0x0000, "tie with zero -> zero (even)");
    assert_eq!(rn(F16, tiny * 0.75), 0x0001);
    assert_eq!(rn(F16, tiny * 1.5), 0x0002, "tie 1/2 ulp -> 2 (even)");
    assert_eq!(rn(F16, tiny * 2.5), 0x0002);
    assert_eq!(rn(F16, -tiny / 4.0), 0x8000, "underflow keeps the sign");
    assert_eq!(enc(F16, 2f64.powi(-40), TowardPositive), 0x0001);
    assert_eq!(enc(F16, 2f64.powi(-40), TowardNegative), 0x0000);
    assert_eq!(enc(F16, -2f64.powi(-40), TowardNegative), 0x8001);
    assert_eq!(enc(F16, -2f64.powi(-40), TowardZero), 0x8000);
    assert_eq!(
        enc(F16, 5e-324, TowardPositive),
        0x0001,
        "smallest f64 subnormal"
    );
    assert_eq!(rn(F16, 5e-324), 0x0000);
    // Rounding up out of the subnormal range gives the smallest normal.
    assert_eq!(rn(F16, 2f64.powi(-14) - tiny / 4.0), 0x0400);
    assert_eq!(enc(F16, 2f64.powi(-14) - tiny / 4.0, TowardZero), 0x03FF);

    assert_eq!(rn(F8E4M3FN, 2f64.powi(-9)), 0x01);
    assert_eq!(rn(F8E4M3FN, 3.0 * 2f64.powi(-10)), 0x02);
    assert_eq!(rn(F8E5M2, 2f64.powi(-16)), 0x01);
    assert_eq!(rn(F8E5M2, 2f64.powi(-17)), 0x00);
    assert_eq!(rn(F32, 2f64.powi(-149)), 0x0000_0001);
    assert_eq!(rn(F32, 2f64.powi(-150)), 0x0000_0000);
    assert_eq!(rn(F32, 3.0 * 2f64.powi(-151)), 0x0000_0001);
    assert_eq!(rn(BF16, 2f64.powi(-133)), 0x0001);
    assert_eq!(rn(TF32, 2f64.powi(-136)), 0x0000_2000);

    // No zero and no subnormals in f8E8M0FNU: everything tiny is 2^-127.
    for mode in Rounding::ALL {
        assert_eq!(enc(F8E8M0FNU, 2f64.powi(-128), mode), 0x00);
        assert_eq!(enc(F8E8M0FNU, 1e-300, mode), 0x00);
        assert_eq!(enc(F8E8M0FNU, 0.0, mode), 0x00);
    }

    let s = encode_with_status(F16, tiny / 3.0, NearestEven, Saturation::None).status;
    assert!(s.underflow && s.inexact && !s.overflow);
    let s = encode_with_status(F16, tiny, NearestEven, Saturation::None).status;
    assert!(!s.underflow && !s.inexact, "exact subnormal: no underflow");
}

#[test]
fn overflow_follows_apfloat() {
    // IEEE formats: nearest -> inf beyond max + ulp/2 (the tie goes to inf,
    // since max is odd); directed modes clamp toward zero.
    assert_eq!(rn(F16, 65519.99), 0x7BFF);
    assert_eq!(rn(F16, 65520.0), 0x7C00);
    assert_eq!(rn(F16, -1e10), 0xFC00);
    assert_eq!(enc(F16, 1e10, TowardZero), 0x7BFF);
    assert_eq!(enc(F16, 1e10, TowardNegative), 0x7BFF);
    assert_eq!(enc(F16, 1e10, TowardPositive), 0x7C00);
    assert_eq!(enc(F16, -1e10, TowardPositive), 0xFBFF);
    assert_eq!(enc(F16, -1e10, TowardNegative), 0xFC00);
    assert_eq!(enc(F16, 65505.0, TowardPositive), 0x7C00);
    assert_eq!(rn(F8E5M2, 57344.0), 0x7B);
    assert_eq!(rn(F8E5M2, 61439.0), 0x7B);
    assert_eq!(rn(F8E5M2, 61440.0), 0x7C);
    assert_eq!(rn(F32, 1e39), 0x7F80_0000);

    // f8E4M3FN: no inf; NaN (sign kept) takes its place, and the NaN pattern
    // 480 is itself overflow: 464 is the tie between 448 (even) and 480.
    assert_eq!(rn(F8E4M3FN, 448.0), 0x7E);
    assert_eq!(rn(F8E4M3FN, 464.0), 0x7E);
    assert_eq!(rn(F8E4M3FN, 464.01), 0x7F);
    assert_eq!(rn(F8E4M3FN, -500.0), 0xFF);
    assert_eq!(rn(F8E4M3FN, 1e6), 0x7F);
    assert_eq!(enc(F8E4M3FN, 1e6, TowardZero), 0x7E);
    assert_eq!(enc(F8E4M3FN, 470.0, TowardZero), 0x7E);
    assert_eq!(enc(F8E4M3FN, 1e6, TowardNegative), 0x7E);
    assert_eq!(enc(F8E4M3FN, 449.0, TowardPositive), 0x7F);
    assert_eq!(enc(F8E4M3FN, -449.0, TowardPositive), 0xFE);
    assert_eq!(enc(F8E4M3FN, -1e6, TowardNegative), 0xFF);

    // f8E8M0FNU: NaN on overflow toward infinity, 2^127 otherwise.
    assert_eq!(rn(F8E8M0FNU, 2f64.powi(127)), 0xFE);
    assert_eq!(rn(F8E8M0FNU, 1.5 * 2f64.powi(127)), 0xFF);
    assert_eq!(rn(F8E8M0FNU, 2f64.powi(128)), 0xFF);
    assert_eq!(enc(F8E8M0FNU, 2f64.powi(200), TowardZero), 0xFE);
    assert_eq!(enc(F8E8M0FNU, 1.1 * 2f64.powi(127), TowardPositive), 0xFF);

    // f4E2M1FN has neither: it always saturates.
    for mode in Rounding::ALL {
        assert_eq!(enc(F4E2M1FN, 7.0, mode), 0x7);
        assert_eq!(enc(F4E2M1FN, 100.0, mode), 0x7);
        assert_eq!(enc(F4E2M1FN, -100.0, mode), 0xF);
    }

    let s = encode_with_status(F16, 1e6, NearestEven, Saturation::None).status;
    assert!(s.overflow && s.inexact);
    let s = encode_with_status(F4E2M1FN, 100.0, NearestEven, Saturation::None).status;
    assert!(s.overflow && s.inexact);
    let s = encode_with_status(F8E4M3FN, 464.0, NearestEven, Saturation::None).status;
    assert!(!s.overflow && s.inexact);
}

#[test]
fn saturating_mode() {
    assert_eq!(sat(F16, 1e10, NearestEven), 0x7BFF);
    assert_eq!(sat(F16, -1e10, NearestEven), 0xFBFF);
    assert_eq!(sat(F16, f64::INFINITY, NearestEven), 0x7BFF);
    assert_eq!(sat(F16, f64::NEG_INFINITY, TowardPositive), 0xFBFF);
    assert_eq!(sat(F16, f64::NAN, NearestEven), 0x7E00, "NaN stays NaN");
    assert_eq!(sat(F8E4M3FN, 1000.0, NearestEven), 0x7E);
    assert_eq!(sat(F8E4M3FN, -1000.0, TowardNegative), 0xFE);
    assert_eq!(sat(F8E4M3FN, f64::INFINITY, NearestEven), 0x7E);
    assert_eq!(sat(F8E5M2, 1e6, NearestEven), 0x7B);
    assert_eq!(sat(F8E8M0FNU, 2f64.powi(130), TowardPositive), 0xFE);
    assert_eq!(sat(F8E8M0FNU, f64::INFINITY, NearestEven), 0xFE);
    // Values in range are unaffected.
    assert_eq!(sat(F16, 1.0, NearestEven), 0x3C00);
}

#[test]
fn non_finite_inputs() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    assert_eq!(rn(F16, inf), 0x7C00);
    assert_eq!(rn(F16, -inf), 0xFC00);
    assert_eq!(rn(F8E5M2, -inf), 0xFC);
    assert_eq!(rn(F8E4M3FN, inf), 0x7F);
    assert_eq!(rn(F8E4M3FN, -inf), 0xFF);
    assert_eq!(rn(F8E8M0FNU, inf), 0xFF);
    assert_eq!(rn(F8E8M0FNU, -inf), 0xFF);
    assert_eq!(rn(F4E2M1FN, inf), 0x7);
    assert_eq!(rn(F4E2M1FN, -inf), 0xF);

    assert_eq!(rn(F32, nan), 0x7FC0_0000);
    assert_eq!(rn(F16, -nan), 0xFE00);
    assert_eq!(rn(TF32, nan), 0x7FC0_0000);
    assert_eq!(rn(F8E4M3FN, nan), 0x7F);
    assert_eq!(rn(F8E4M3FN, -nan), 0xFF);
    assert_eq!(rn(F8E5M2, nan), 0x7E);
    assert_eq!(rn(F8E8M0FNU, nan), 0xFF);
    assert_eq!(rn(F4E2M1FN, nan), 0x7);
    // Payload: top bits kept, quiet bit forced (a signalling NaN whose
    // payload is cut off must stay a NaN).
    let snan_low = f64::from_bits(0x7FF0_0000_0000_0001);
    assert_eq!(rn(F32, snan_low), 0x7FC0_0000);
    let payload = f64::from_bits(0x7FF4_0000_2000_0000);
    assert_eq!(rn(F32, payload), 0x7FE0_0001);
    assert_eq!(
        rn(F64, snan_low).to_le(),
        0x7FF0_0000_0000_0001,
        "f64 to f64 keeps the bits"
    );
    // Decoding keeps sign and payload.
    assert_eq!(decode(F32, 0xFFE0_0001).to_bits(), 0xFFFC_0000_2000_0000);
    assert_eq!(decode(F8E4M3FN, 0xFF).to_bits(), 0xFFF8_0000_0000_0000);

    // Zeros keep their sign; f8E8M0FNU has no zero and no sign.
    assert_eq!(rn(F16, -0.0), 0x8000);
    assert_eq!(rn(F8E4M3FN, -0.0), 0x80);
    assert_eq!(rn(F4E2M1FN, -0.0), 0x8);
    assert_eq!(rn(F8E8M0FNU, -0.0), 0x00);
    // Negative values are not representable in f8E8M0FNU: NaN.
    assert_eq!(rn(F8E8M0FNU, -1.0), 0xFF);
    assert_eq!(enc(F8E8M0FNU, -1e-30, TowardPositive), 0xFF);
}

#[test]
fn f64_and_f32_paths() {
    for x in [0.1, -2.5e-310, 1e308, std::f64::consts::E] {
        for mode in Rounding::ALL {
            assert_eq!(enc(F64, x, mode), x.to_bits());
        }
    }
    let x = 0.1f32;
    assert_eq!(
        encode_from_f32(F32, x, NearestEven, Saturation::None),
        0x3DCC_CCCD
    );
    assert_eq!(
        encode_from_f32(BF16, x, NearestEven, Saturation::None),
        0x3DCD
    );
    assert_eq!(
        encode_from_f32(BF16, x, TowardZero, Saturation::None),
        0x3DCC
    );
    // A value just above an f32 midpoint: rounding f64 -> f16 directly gives
    // 0x3C01, while rounding through f32 first would tie down to 0x3C00.
    let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(rn(F16, x), 0x3C01);
    assert_eq!(rn(F16, f64::from(x as f32)), 0x3C00);
}

#[test]
fn conversions_between_formats() {
    // Widening is exact, narrowing back returns the original pattern.
    for fmt in [F8E4M3FN, F8E5M2, F8E8M0FNU, F4E2M1FN, F16, BF16] {
        for bits in 0..(1u64 << fmt.bit_width()) {
            if fmt.is_nan(bits) {
                continue;
            }
            let wide = convert(fmt, bits, F32, NearestEven, Saturation::None);
            assert!(!wide.status.inexact, "{fmt} {bits:#X}");
            let back = convert(F32, wide.bits, fmt, NearestEven, Saturation::None);
            assert_eq!(back.bits, bits, "{fmt} {bits:#X}");
            assert!(!back.status.inexact);
        }
    }
    assert_eq!(
        convert(F16, 0x7BFF, F8E4M3FN, NearestEven, Saturation::None).bits,
        0x7F
    );
    assert_eq!(
        convert(F16, 0x7BFF, F8E4M3FN, NearestEven, Saturation::Finite).bits,
        0x7E
    );
    assert_eq!(
        convert(F8E4M3FN, 0x7E, F4E2M1FN, TowardZero, Saturation::None).bits,
        0x7
    );
    assert_eq!(
        convert(F32, 0x7FC0_0001, F32, NearestEven, Saturation::None).bits,
        0x7FC0_0001
    );
    assert_eq!(
        convert(TF32, 0x3F80_1FFF, TF32, NearestEven, Saturation::None).bits,
        0x3F80_0000
    );
    assert_eq!(
        convert(TF32, 0x3F80_1FFF, TF32, NearestEven, Saturation::Finite).bits,
        0x3F80_0000
    );
}

#[test]
fn flush_to_zero_keeps_the_sign() {
    assert_eq!(flush_subnormal(F16, 0x0001), 0x0000);
    assert_eq!(flush_subnormal(F16, 0x83FF), 0x8000);
    assert_eq!(flush_subnormal(F16, 0x0400), 0x0400);
    assert_eq!(flush_subnormal(F16, 0x7E00), 0x7E00);
    assert_eq!(flush_subnormal(F32, 0x8000_0001), 0x8000_0000);
    assert_eq!(flush_subnormal(TF32, 0x0000_2000), 0x0000_0000);
    assert_eq!(flush_subnormal(F8E4M3FN, 0x81), 0x80);
    assert_eq!(flush_subnormal(F8E5M2, 0x03), 0x00);
    assert_eq!(flush_subnormal(F4E2M1FN, 0x9), 0x8);
    assert_eq!(flush_subnormal(F4E2M1FN, 0x2), 0x2);
    assert_eq!(flush_subnormal(F8E8M0FNU, 0x00), 0x00, "no subnormals");
    assert_eq!(flush_subnormal(F64, 1), 0);
}

#[test]
fn integer_helpers() {
    assert!(int_fits(8, 255) && int_fits(8, -128) && int_fits(8, 0));
    assert!(!int_fits(8, 256) && !int_fits(8, -129));
    assert!(int_fits(1, -1) && int_fits(1, 0) && int_fits(1, 1));
    assert!(!int_fits(1, 2) && !int_fits(1, -2));
    assert!(int_fits(4, 15) && int_fits(4, -8) && !int_fits(4, 16) && !int_fits(4, -9));
    assert!(int_fits(16, 65535) && !int_fits(16, 65536) && int_fits(16, -32768));
    assert!(int_fits(32, 4_294_967_295) && !int_fits(32, 4_294_967_296));
    assert!(int_fits(64, i128::from(u64::MAX)) && int_fits(64, i128::from(i64::MIN)));
    assert!(!int_fits(64, i128::from(u64::MAX) + 1) && !int_fits(64, i128::from(i64::MIN) - 1));

    assert_eq!(sign_extend(0xFF, 8), -1);
    assert_eq!(sign_extend(0x7F, 8), 127);
    assert_eq!(sign_extend(0x80, 8), -128);
    assert_eq!(sign_extend(1, 1), -1);
    assert_eq!(sign_extend(0, 1), 0);
    assert_eq!(sign_extend(0xFFFF, 16), -1);
    assert_eq!(sign_extend(0x1234_FF00, 8), 0, "high bits are ignored");
    assert_eq!(sign_extend(u64::MAX, 64), -1);
    assert_eq!(sign_extend(0x8, 4), -8);

    assert_eq!(truncate(-1, 8), 0xFF);
    assert_eq!(truncate(256, 8), 0);
    assert_eq!(truncate(255, 8), 0xFF);
    assert_eq!(truncate(-1, 1), 1);
    assert_eq!(truncate(-1, 64), u64::MAX);
    assert_eq!(truncate(i128::from(u64::MAX), 64), u64::MAX);
    assert_eq!(truncate(-32768, 16), 0x8000);
    assert_eq!(zero_extend(0xFFFF_FFFF_FFFF_FF80, 8), 0x80);
    assert_eq!(zero_extend(u64::MAX, 64), u64::MAX);
}
