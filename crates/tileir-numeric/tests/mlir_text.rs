//! MLIR float text: printing as `printFloatValue` does, parsing as the MLIR
//! parser does, and print-then-parse returning the same bits everywhere.

mod common;

use common::Rng;
use tileir_numeric::{
    encode, format_mlir, parse_mlir_float, parse_mlir_float_checked, parse_mlir_float_with_status,
    FloatFormat, FloatParseError, Rounding, Saturation,
};
use FloatFormat::*;

#[test]
fn prints_like_mlir() {
    let cases: &[(FloatFormat, u64, &str)] = &[
        // From the reference test suite (dense_attr.mlir) and the dialect notes.
        (F32, 0x3F80_0000, "1.000000e+00"),
        (F32, 0x3FC0_0000, "1.500000e+00"),
        (F16, 0x3C00, "1.000000e+00"),
        (F16, 0x4000, "2.000000e+00"),
        (F64, 0x3FF0_0000_0000_0000, "1.000000e+00"),
        (F64, std::f64::consts::E.to_bits(), "2.7182818284590451"),
        (F16, 0xC248, "-3.140630e+00"),
        (F32, 0, "0.000000e+00"),
        (F32, 0x8000_0000, "-0.000000e+00"),
        (F32, 0x7FC0_0000, "0x7FC00000"),
        (F32, 0x7F80_0000, "0x7F800000"),
        (F32, 0xFF80_0000, "0xFF800000"),
        (F16, 0x7C00, "0x7C00"),
        (F16, 0xFC00, "0xFC00"),
        (F64, 0x7FF0_0000_0000_0000, "0x7FF0000000000000"),
        (F64, 0x7FF8_0000_0000_0000, "0x7FF8000000000000"),
        // Six digits that do not re-parse: the round-trip form.
        (F32, 0x4049_0FDB, "3.14159274"),
        (F32, 0x0080_0000, "1.17549435E-38"),
        (F32, 0x3DCC_CCCD, "1.000000e-01"),
        (F64, 0.1f64.to_bits(), "1.000000e-01"),
        (F64, std::f64::consts::PI.to_bits(), "3.1415926535897931"),
        // A round-trip form without a '.' falls back to hex.
        (F32, 1_234_567f32.to_bits() as u64, "0x4996B438"),
        (F64, 12_345_678f64.to_bits(), "0x41678C29C0000000"),
        // Seven significant digits do not fit the six-digit form either.
        (F64, 1_234_567f64.to_bits(), "0x4132D68700000000"),
        (F64, 123_456f64.to_bits(), "1.234560e+05"),
        // The narrow formats.
        (BF16, 0x3F80, "1.000000e+00"),
        (BF16, 0x4049, "3.140630e+00"),
        (BF16, 0x7FC0, "0x7FC0"),
        (TF32, 0x3F80_0000, "1.000000e+00"),
        (TF32, 0x7FC0_0000, "0x3FE00"),
        (TF32, 0xFF80_0000, "0x7FC00"),
        (F8E4M3FN, 0x7E, "4.480000e+02"),
        (F8E4M3FN, 0x7F, "0x7F"),
        (F8E4M3FN, 0xFF, "0xFF"),
        (F8E4M3FN, 0x01, "1.953130e-03"),
        (F8E4M3FN, 0x80, "-0.000000e+00"),
        (F8E5M2, 0x7B, "5.734400e+04"),
        (F8E5M2, 0x7C, "0x7C"),
        (F8E5M2, 0x01, "1.525880e-05"),
        (F8E8M0FNU, 0x7F, "1.000000e+00"),
        (F8E8M0FNU, 0x00, "5.877470e-39"),
        (F8E8M0FNU, 0xFE, "1.701410e+38"),
        (F8E8M0FNU, 0xFF, "0xFF"),
        (F4E2M1FN, 0x1, "5.000000e-01"),
        (F4E2M1FN, 0x7, "6.000000e+00"),
        (F4E2M1FN, 0xD, "-3.000000e+00"),
        (F4E2M1FN, 0x8, "-0.000000e+00"),
    ];
    for &(fmt, bits, text) in cases {
        assert_eq!(format_mlir(fmt, bits), text, "{fmt} {bits:#X}");
    }
}

#[test]
fn apfloat_digit_quirks() {
    // APFloat truncates to about six digits with an integer division first
    // and only then rounds half-up on the first dropped digit, so this f64
    // (2.7182818...) prints 2.718280e+00 and not printf's 2.718282e+00; the
    // six-digit form does not re-parse, so MLIR shows the long form anyway.
    // What matters is that the short form is exactly APFloat's: when it *does*
    // re-parse, it is printed. 1.0000005 in f32 shows the half-up rounding:
    let x = 1.000_000_5f32;
    assert_eq!(format_mlir(F32, u64::from(x.to_bits())), "1.00000048");
    // Halfway digits round up: f16 3.140625 -> 3.14063.
    assert_eq!(format_mlir(F16, 0x4248), "3.140630e+00");
    // Large and small exponents keep two-digit exponents in the short form.
    assert_eq!(format_mlir(F16, 0x0001), "5.960460e-08");
    assert_eq!(format_mlir(F32, 0x7F7F_FFFF), "3.40282347E+38");
    assert_eq!(format_mlir(F64, 5e-324f64.to_bits()), "4.940660e-324");
}

#[test]
fn parses_like_mlir() {
    let ok: &[(FloatFormat, &str, u64)] = &[
        (F32, "1.0", 0x3F80_0000),
        (F32, "1.", 0x3F80_0000),
        (F32, "-2.5", 0xC020_0000),
        (F32, "1.5e2", 0x4316_0000),
        (F32, "1.5E+2", 0x4316_0000),
        (F32, "1.e3", 0x447A_0000),
        (F32, "15.0e-1", 0x3FC0_0000),
        (F32, "-0.0", 0x8000_0000),
        (F32, "0.1", 0x3DCC_CCCD),
        (F16, "3.14159", 0x4248),
        (F16, "65504.0", 0x7BFF),
        (BF16, "1.0", 0x3F80),
        (TF32, "1.0", 0x3F80_0000),
        (F64, "2.7182818284590451", 0x4005_BF0A_8B14_5769),
        // Hex patterns are raw bits.
        (F32, "0x7FC00000", 0x7FC0_0000),
        (F32, "0x7F800000", 0x7F80_0000),
        (F32, "0x7f800000", 0x7F80_0000),
        (F16, "0x0000003C00", 0x3C00),
        (F16, "0x0", 0x0000),
        (F64, "0xFFFFFFFFFFFFFFFF", u64::MAX),
        (TF32, "0x3FE00", 0x7FC0_0000),
        (TF32, "0x7FC00", 0xFF80_0000),
        (F8E4M3FN, "0x7F", 0x7F),
        (F4E2M1FN, "0xF", 0xF),
        // Overflow is not an error in MLIR (dense_attr.mlir checks these).
        (F16, "70000.0", 0x7C00),
        (F16, "-70000.0", 0xFC00),
        (
            F32,
            "10000000000000000000000000000000000000000.0",
            0x7F80_0000,
        ),
        (
            F32,
            "-10000000000000000000000000000000000000000.0",
            0xFF80_0000,
        ),
        (F64, "1.0e400", 0x7FF0_0000_0000_0000),
        (F64, "1.0e99999999999999999999", 0x7FF0_0000_0000_0000),
        (F64, "1.0e-99999999999999999999", 0),
        (F8E4M3FN, "1000.0", 0x7F),
        (F8E4M3FN, "-1000.0", 0xFF),
        (F8E4M3FN, "464.0", 0x7E),
        (F4E2M1FN, "100.0", 0x7),
        (F8E8M0FNU, "1.0", 0x7F),
        (F8E8M0FNU, "0.0", 0x00),
        (F8E8M0FNU, "-1.0", 0xFF),
    ];
    for &(fmt, text, bits) in ok {
        assert_eq!(parse_mlir_float(fmt, text), Ok(bits), "{fmt} {text}");
    }

    let bad: &[(FloatFormat, &str, FloatParseError)] = &[
        (F32, "42", FloatParseError::DecimalInteger),
        (F32, "-5", FloatParseError::DecimalInteger),
        (F32, "1e5", FloatParseError::DecimalInteger),
        (F32, "0x", FloatParseError::DecimalInteger),
        (F32, "-0x3F800000", FloatParseError::NegativeHex),
        (F16, "0x10000", FloatParseError::HexOutOfRange),
        (F16, "0xFFFFFFFF", FloatParseError::HexOutOfRange),
        (TF32, "0x80000", FloatParseError::HexOutOfRange),
        (TF32, "0x3F800000", FloatParseError::HexOutOfRange),
        (F8E5M2, "0x100", FloatParseError::HexOutOfRange),
        (F4E2M1FN, "0x10", FloatParseError::HexOutOfRange),
        (F64, "0x10000000000000000", FloatParseError::HexOutOfRange),
        (F32, "", FloatParseError::Invalid),
        (F32, "-", FloatParseError::Invalid),
        (F32, ".5", FloatParseError::Invalid),
        (F32, "+1.0", FloatParseError::Invalid),
        (F32, "inf", FloatParseError::Invalid),
        (F32, "nan", FloatParseError::Invalid),
        (F32, "1.0e", FloatParseError::Invalid),
        (F32, "1.0e+", FloatParseError::Invalid),
        (F32, "1.0f", FloatParseError::Invalid),
        (F32, " 1.0", FloatParseError::Invalid),
        (F32, "0x1G", FloatParseError::Invalid),
        (F32, "0X10", FloatParseError::DecimalInteger),
    ];
    for &(fmt, text, err) in bad {
        assert_eq!(parse_mlir_float(fmt, text), Err(err), "{fmt} {text:?}");
    }

    assert_eq!(
        FloatParseError::DecimalInteger.to_string(),
        "unexpected decimal integer literal for a floating point value"
    );
    assert_eq!(
        FloatParseError::DecimalInteger.note(),
        Some("add a trailing dot to make the literal a float")
    );
    assert_eq!(
        FloatParseError::NegativeHex.to_string(),
        "hexadecimal float literal should not have a leading minus"
    );
    assert_eq!(
        FloatParseError::HexOutOfRange.to_string(),
        "hexadecimal float constant out of range for type"
    );
    assert_eq!(
        FloatParseError::OutOfRange.to_string(),
        "float constant out of range for type"
    );
    assert_eq!(
        FloatParseError::Invalid.to_string(),
        "expected floating point literal"
    );
}

#[test]
fn overflow_is_reported_on_request() {
    let s = parse_mlir_float_with_status(F16, "70000.0").unwrap();
    assert_eq!(s.bits, 0x7C00);
    assert!(s.status.overflow);
    assert!(
        !parse_mlir_float_with_status(F16, "65504.0")
            .unwrap()
            .status
            .overflow
    );
    assert!(
        !parse_mlir_float_with_status(F16, "65519.0")
            .unwrap()
            .status
            .overflow
    );
    assert!(
        parse_mlir_float_with_status(F64, "1.0e400")
            .unwrap()
            .status
            .overflow
    );
    assert!(
        !parse_mlir_float_with_status(F16, "0x7C00")
            .unwrap()
            .status
            .overflow
    );

    assert_eq!(
        parse_mlir_float_checked(F16, "70000.0"),
        Err(FloatParseError::OutOfRange)
    );
    assert_eq!(
        parse_mlir_float_checked(F8E4M3FN, "465.0"),
        Err(FloatParseError::OutOfRange)
    );
    assert_eq!(
        parse_mlir_float_checked(F4E2M1FN, "7.0"),
        Err(FloatParseError::OutOfRange)
    );
    assert_eq!(parse_mlir_float_checked(F8E4M3FN, "464.0"), Ok(0x7E));
    assert_eq!(parse_mlir_float_checked(F16, "0x7C00"), Ok(0x7C00));
    assert_eq!(
        parse_mlir_float_checked(F16, "1.0e-30"),
        Ok(0x0000),
        "underflow is fine"
    );
}

/// Every pattern of a format prints to text that parses back to it
/// (NaN and Inf print as hex, so they round-trip too).
fn round_trip_all(fmt: FloatFormat) {
    for ap in 0..1u64 << fmt.apfloat_width() {
        let bits = fmt.from_apfloat_bits(ap);
        let text = format_mlir(fmt, bits);
        assert_eq!(
            parse_mlir_float(fmt, &text),
            Ok(bits),
            "{fmt} {bits:#X} printed {text}"
        );
    }
}

#[test]
fn round_trip_every_small_pattern() {
    for fmt in [F4E2M1FN, F8E4M3FN, F8E5M2, F8E8M0FNU, F16, BF16] {
        round_trip_all(fmt);
    }
}

#[test]
fn round_trip_every_tf32_pattern() {
    round_trip_all(TF32);
}

#[test]
fn round_trip_random_f32_f64() {
    let mut rng = Rng(64);
    for _ in 0..30_000 {
        let bits = rng.next_u64();
        let text = format_mlir(F64, bits);
        assert_eq!(
            parse_mlir_float(F64, &text),
            Ok(bits),
            "f64 {bits:#X} printed {text}"
        );
        let bits32 = bits >> 32;
        let text = format_mlir(F32, bits32);
        assert_eq!(
            parse_mlir_float(F32, &text),
            Ok(bits32),
            "f32 {bits32:#X} printed {text}"
        );

        // Values with short decimal or binary expansions take other paths.
        let x = rng.finite_f64();
        let text = format_mlir(F64, x.to_bits());
        assert_eq!(
            parse_mlir_float(F64, &text),
            Ok(x.to_bits()),
            "{x:e} printed {text}"
        );
        let f = encode(F32, x, Rounding::NearestEven, Saturation::None);
        let text = format_mlir(F32, f);
        assert_eq!(
            parse_mlir_float(F32, &text),
            Ok(f),
            "f32 {f:#X} printed {text}"
        );
    }
}
