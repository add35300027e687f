//! `encode` checked against an independent, obviously-correct reference: list
//! every value of the format, find the two neighbours of the input, and pick
//! one by the rounding rule. Inputs are every neighbour, midpoint and
//! near-midpoint of every value (all of them for the 8- and 4-bit formats and
//! f16, a sample for bf16 and tf32), plus random `f64`s. f32 is checked
//! against Rust's own `as f32` conversion.

mod common;

use common::Rng;
use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};
use FloatFormat::*;

/// Rounding relative to magnitude, after folding the sign away.
#[derive(Clone, Copy)]
enum Dir {
    Nearest,
    Down,
    Up,
}

/// Every nonnegative finite value of a format, ascending, with a virtual
/// value one unit above the largest ("the next value if the exponent range
/// went on"); reaching it means overflow.
struct Table {
    fmt: FloatFormat,
    values: Vec<(f64, u64)>,
    top: f64,
}

impl Table {
    fn new(fmt: FloatFormat) -> Table {
        let mut values: Vec<(f64, u64)> = (0..1u64 << fmt.apfloat_width())
            .map(|ap| fmt.from_apfloat_bits(ap))
            .filter(|&b| fmt.is_finite(b) && !fmt.is_sign_negative(b))
            .map(|b| (decode(fmt, b), b))
            .collect();
        if !fmt.has_zero() {
            // No zero: results that would be zero become the smallest value.
            values.push((0.0, fmt.min_normal_bits()));
        }
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        let ulp_of_max = 2f64.powi(fmt.max_exponent() - fmt.mantissa_bits() as i32);
        let top = fmt.max_finite() + ulp_of_max;
        Table { fmt, values, top }
    }

    /// Whether the significand of the candidate is even, for ties. The
    /// virtual top is 2^(emax+1) (even) except in f8E4M3FN, where it is the
    /// NaN pattern 1.111b * 2^8 (odd).
    fn even(&self, bits: Option<u64>) -> bool {
        match bits {
            // Look at the APFloat pattern: tf32's storage LSB is padding.
            Some(b) => self.fmt.to_apfloat_bits(b) & 1 == 0,
            None => self.fmt != F8E4M3FN,
        }
    }

    /// The expected result for the finite `x` (nonzero; sign handled here).
    fn expect(&self, x: f64, mode: Rounding, sat: Saturation) -> u64 {
        let fmt = self.fmt;
        let neg = x < 0.0;
        if neg && !fmt.has_sign() {
            return fmt.nan_bits().unwrap();
        }
        let dir = match (mode, neg) {
            (Rounding::NearestEven, _) => Dir::Nearest,
            (Rounding::TowardZero, _) => Dir::Down,
            (Rounding::TowardPositive, false) | (Rounding::TowardNegative, true) => Dir::Up,
            _ => Dir::Down,
        };
        let a = x.abs();
        // None stands for the virtual top.
        let pick: Option<u64> = if a >= self.top {
            match dir {
                Dir::Down => Some(fmt.max_finite_bits(false)),
                _ => None,
            }
        } else {
            let i = self.values.partition_point(|v| v.0 <= a) - 1;
            let (lo, lo_bits) = self.values[i];
            let (hi, hi_bits) = match self.values.get(i + 1) {
                Some(&(v, b)) => (v, Some(b)),
                None => (self.top, None),
            };
            if lo == a {
                Some(lo_bits)
            } else {
                match dir {
                    Dir::Down => Some(lo_bits),
                    Dir::Up => hi_bits,
                    Dir::Nearest => {
                        let (dl, dh) = (a - lo, hi - a);
                        if dl < dh {
                            Some(lo_bits)
                        } else if dh < dl {
                            hi_bits
                        } else if fmt == F8E8M0FNU {
                            // One-bit significand: APFloat rounds ties up.
                            hi_bits
                        } else if self.even(Some(lo_bits)) {
                            Some(lo_bits)
                        } else {
                            debug_assert!(self.even(hi_bits));
                            hi_bits
                        }
                    }
                }
            }
        };
        let magnitude = match pick {
            Some(b) => b,
            // Overflow toward infinity.
            None if sat == Saturation::Finite => fmt.max_finite_bits(false),
            None => fmt
                .inf_bits(false)
                .or(fmt.nan_bits())
                .unwrap_or_else(|| fmt.max_finite_bits(false)),
        };
        if neg {
            // Set the sign bit (storage layout; tf32's sign is bit 31).
            magnitude | 1u64 << (fmt.bit_width() - 1)
        } else {
            magnitude
        }
    }

    /// Interesting inputs around the value pair (i, i+1).
    fn probes(&self, i: usize) -> Vec<f64> {
        let lo = self.values[i].0;
        let hi = self.values.get(i + 1).map_or(self.top, |v| v.0);
        let mid = lo + (hi - lo) / 2.0;
        let up = |v: f64| f64::from_bits(v.to_bits() + 1);
        let down = |v: f64| f64::from_bits(v.to_bits() - 1);
        let mut p = vec![
            hi,
            mid,
            up(mid),
            down(mid),
            lo + (hi - lo) / 4.0,
            hi - (hi - lo) / 4.0,
            down(hi),
        ];
        if lo > 0.0 {
            p.extend([lo, up(lo)]);
        }
        p
    }
}

fn check(table: &Table, x: f64) {
    for mode in Rounding::ALL {
        for sat in [Saturation::None, Saturation::Finite] {
            for v in [x, -x] {
                let want = table.expect(v, mode, sat);
                let got = encode(table.fmt, v, mode, sat);
                assert_eq!(
                    got,
                    want,
                    "{} {v:e} ({:#X}) {mode:?} {sat:?}",
                    table.fmt,
                    v.to_bits()
                );
            }
        }
    }
}

fn check_format(fmt: FloatFormat, pair_stride: usize) {
    let table = Table::new(fmt);
    for i in (0..table.values.len()).step_by(pair_stride) {
        for x in table.probes(i) {
            check(&table, x);
        }
    }
    // Beyond the range, and tiny values below everything.
    for x in [
        table.top,
        table.top * 1.5,
        table.top * 4.0,
        1e300,
        5e-324,
        1e-300,
        1e-45,
    ] {
        check(&table, x);
    }
    let mut rng = Rng(u64::from(fmt.bit_width()) * 7919 + fmt.mantissa_bits() as u64);
    for _ in 0..20_000 {
        let x = rng.finite_f64();
        if x != 0.0 {
            check(&table, x.abs());
        }
    }
}

#[test]
fn fp4_all_values() {
    check_format(F4E2M1FN, 1);
}

#[test]
fn fp8_e4m3fn_all_values() {
    check_format(F8E4M3FN, 1);
}

#[test]
fn fp8_e5m2_all_values() {
    check_format(F8E5M2, 1);
}

#[test]
fn fp8_e8m0fnu_all_values() {
    check_format(F8E8M0FNU, 1);
}

#[test]
fn f16_all_values() {
    check_format(F16, 1);
}

#[test]
fn bf16_sampled_values() {
    check_format(BF16, 7);
}

#[test]
fn tf32_sampled_values() {
    check_format(TF32, 61);
}

/// Neighbours of an f32 (finite, nonnegative) in the f32 order.
fn f32_up(v: f32) -> f32 {
    f32::from_bits(v.to_bits() + 1)
}

#[test]
fn f32_matches_rust_and_neighbours() {
    let mut rng = Rng(32);
    let mut inputs: Vec<f64> = (0..200_000).map(|_| rng.finite_f64()).collect();
    // Around f32 values: exact, midpoints, and one f64 step off midpoints.
    for _ in 0..50_000 {
        let f = f32::from_bits(rng.next_u64() as u32 & 0x7FFF_FFFE);
        if f.is_finite() && f32_up(f).is_finite() {
            let (a, b) = (f64::from(f), f64::from(f32_up(f)));
            let mid = a + (b - a) / 2.0;
            inputs.extend([
                a,
                mid,
                f64::from_bits(mid.to_bits() + 1),
                f64::from_bits(mid.to_bits() - 1),
            ]);
        }
    }
    for x in inputs {
        let rne = encode(F32, x, Rounding::NearestEven, Saturation::None);
        assert_eq!(rne, u64::from((x as f32).to_bits()), "{x:e}");

        // Directed modes: the f32 neighbours that bracket x.
        let near = x as f32;
        let (lo, hi) = if f64::from(near) == x {
            (near, near)
        } else if f64::from(near) < x {
            (
                near,
                f32::from_bits(if near >= 0.0 {
                    near.to_bits() + 1
                } else {
                    near.to_bits() - 1
                }),
            )
        } else {
            (
                f32::from_bits(if near > 0.0 {
                    near.to_bits() - 1
                } else {
                    near.to_bits() + 1
                }),
                near,
            )
        };
        // Clamp overflow the way IEEE directed rounding does.
        let fix = |v: f32, toward_inf: bool| {
            if v.is_infinite() && !toward_inf {
                f32::MAX.copysign(v)
            } else {
                v
            }
        };
        let lo_ok = fix(if lo == 0.0 && x < 0.0 { -0.0 } else { lo }, x < 0.0);
        let hi_ok = fix(if hi == 0.0 && x < 0.0 { -0.0 } else { hi }, x > 0.0);
        let tz = if x < 0.0 { hi_ok } else { lo_ok };
        let got = |m| f32::from_bits(encode(F32, x, m, Saturation::None) as u32);
        assert_eq!(
            got(Rounding::TowardNegative).to_bits(),
            lo_ok.to_bits(),
            "rm {x:e}"
        );
        assert_eq!(
            got(Rounding::TowardPositive).to_bits(),
            hi_ok.to_bits(),
            "rp {x:e}"
        );
        assert_eq!(
            got(Rounding::TowardZero).to_bits(),
            tz.to_bits(),
            "rz {x:e}"
        );
    }
}

#[test]
fn decode_then_encode_is_identity() {
    for fmt in FloatFormat::ALL {
        let mut rng = Rng(99);
        let patterns: Vec<u64> = if fmt.apfloat_width() <= 19 {
            (0..1u64 << fmt.apfloat_width())
                .map(|ap| fmt.from_apfloat_bits(ap))
                .collect()
        } else {
            (0..100_000)
                .map(|_| rng.next_u64() & fmt.storage_mask())
                .collect()
        };
        for bits in patterns {
            if fmt.is_nan(bits) {
                assert!(decode(fmt, bits).is_nan());
                continue;
            }
            let v = decode(fmt, bits);
            for mode in Rounding::ALL {
                assert_eq!(
                    encode(fmt, v, mode, Saturation::None),
                    bits,
                    "{fmt} {bits:#X} {mode:?}"
                );
            }
        }
    }
}
