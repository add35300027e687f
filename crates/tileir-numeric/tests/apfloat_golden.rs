//! Compares against answers produced by LLVM's APFloat itself (see the header
//! of `data/apfloat_golden.txt`): MLIR's float printing for f16/bf16/f32/f64
//! and `APFloat::convert` from f64 in every rounding mode.

use tileir_numeric::{encode, format_mlir, parse_mlir_float, FloatFormat, Rounding, Saturation};

const GOLDEN: &str = include_str!("data/apfloat_golden.txt");

#[test]
fn matches_llvm_apfloat() {
    let mut checked = 0;
    for line in GOLDEN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split(' ').collect();
        let fmt = FloatFormat::from_mlir_name(f[1]).expect("format name");
        match f[0] {
            "print" => {
                let bits = u64::from_str_radix(f[2], 16).unwrap();
                assert_eq!(format_mlir(fmt, bits), f[3], "printing {fmt} {:#X}", bits);
                // What MLIR prints, MLIR parses back to the same bits.
                assert_eq!(parse_mlir_float(fmt, f[3]), Ok(bits), "re-parsing {}", f[3]);
            }
            "conv" => {
                let mode = match f[2] {
                    "rne" => Rounding::NearestEven,
                    "rz" => Rounding::TowardZero,
                    "rm" => Rounding::TowardNegative,
                    _ => Rounding::TowardPositive,
                };
                let x = f64::from_bits(u64::from_str_radix(f[3], 16).unwrap());
                let want = u64::from_str_radix(f[4], 16).unwrap();
                assert_eq!(encode(fmt, x, mode, Saturation::None), want, "{line}");
            }
            other => panic!("unknown golden line kind {other}"),
        }
        checked += 1;
    }
    assert!(checked > 2000);
}
