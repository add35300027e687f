//! Property tests: element-wise ops through whole kernels (view load → op → view store)
//! against Rust reference computations, bit for bit.

mod common;

use common::*;
use proptest::prelude::*;
use tileir_ir::*;
use tileir_numeric::{encode, FloatFormat, Rounding, Saturation};

const INTS: [NumType; 4] = [NumType::I8, NumType::I16, NumType::I32, NumType::I64];

fn width_mask(w: u32) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

fn sx(w: u32, b: u64) -> i64 {
    tileir_numeric::sign_extend(b, w)
}

/// (type, lhs bits, rhs bits) for a power-of-two length up to 64.
fn int_case() -> impl Strategy<Value = (NumType, Vec<u64>, Vec<u64>)> {
    (0usize..4, 0u32..7).prop_flat_map(|(t, lg)| {
        let n = 1usize << lg;
        let ty = INTS[t];
        let m = width_mask(ty.bit_width());
        // Mix small values (edge cases) with full-range ones.
        let v = prop_oneof![
            any::<u64>().prop_map(move |x| x & m),
            (-4i64..4).prop_map(move |x| x as u64 & m)
        ];
        (
            Just(ty),
            proptest::collection::vec(v.clone(), n),
            proptest::collection::vec(v, n),
        )
    })
}

fn binop(
    op: CudaTileOp,
    t: NumType,
    a: &[u64],
    b: &[u64],
) -> Result<Vec<u64>, tileir_interp::InterpError> {
    let n = a.len() as i64;
    run_elementwise(&[(t, a.to_vec()), (t, b.to_vec())], t, |k, v| {
        k.op1(op, vec![v[0], v[1]], tile(&[n], t))
    })
}

fn sig(s: &'static str) -> Attr {
    en("signedness", s)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn integer_arithmetic_matches_rust((t, a, b) in int_case()) {
        let w = t.bit_width();
        let m = width_mask(w);
        let check = |op: CudaTileOp, f: &dyn Fn(u64, u64) -> u64| {
            let got = binop(op.clone(), t, &a, &b).unwrap();
            for i in 0..a.len() {
                assert_eq!(got[i], f(a[i], b[i]) & m, "{} {t} {:#x} {:#x}", op.mnemonic(), a[i], b[i]);
            }
        };
        check(ct(CtOp::AddI), &|x, y| x.wrapping_add(y));
        check(ct(CtOp::SubI), &|x, y| x.wrapping_sub(y));
        check(ct(CtOp::MulI), &|x, y| x.wrapping_mul(y));
        check(ct(CtOp::MulHiI), &|x, y| ((x as u128 * y as u128) >> w) as u64);
        check(ct(CtOp::AndI), &|x, y| x & y);
        check(ct(CtOp::OrI), &|x, y| x | y);
        check(ct(CtOp::XOrI), &|x, y| x ^ y);
        check(ct(CtOp::MaxI).with("signedness", sig("signed")), &|x, y| sx(w, x).max(sx(w, y)) as u64);
        check(ct(CtOp::MinI).with("signedness", sig("unsigned")), &|x, y| x.min(y));
        check(ct(CtOp::ShlI), &|x, y| if y < w as u64 { x << y } else { 0 });
        check(ct(CtOp::ShrI).with("signedness", sig("signed")), &|x, y| (sx(w, x) >> y.min(63)) as u64);
        check(ct(CtOp::ShrI).with("signedness", sig("unsigned")), &|x, y| if y < w as u64 { x >> y } else { 0 });
    }

    #[test]
    fn integer_division_matches_rust((t, a, b) in int_case()) {
        let w = t.bit_width();
        let m = width_mask(w);
        // Division by zero and MIN / -1 are undefined: replace such divisors by 1.
        let min = 1u64 << (w - 1);
        let b: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| if y == 0 || (x == min && y == m) { 1 } else { y }).collect();
        for (rm, f) in [
            ("zero", (|q: i128, _r: i128, _y: i128| q) as fn(i128, i128, i128) -> i128),
            ("negative_inf", |q, r, y| if r != 0 && (r < 0) != (y < 0) { q - 1 } else { q }),
            ("positive_inf", |q, r, y| if r != 0 && (r < 0) == (y < 0) { q + 1 } else { q }),
        ] {
            let op = ct(CtOp::DivI).with("signedness", sig("signed")).with("rounding", en("rounding", rm));
            let got = binop(op, t, &a, &b).unwrap();
            for i in 0..a.len() {
                let (x, y) = (sx(w, a[i]) as i128, sx(w, b[i]) as i128);
                assert_eq!(got[i], f(x / y, x % y, y) as u64 & m, "divi signed {rm} {x} {y}");
            }
            if rm != "negative_inf" {
                let op = ct(CtOp::DivI).with("signedness", sig("unsigned")).with("rounding", en("rounding", rm));
                let got = binop(op, t, &a, &b).unwrap();
                for i in 0..a.len() {
                    let (x, y) = (a[i], b[i]);
                    let q = if rm == "zero" { x / y } else { x.div_ceil(y) };
                    assert_eq!(got[i], q & m, "divi unsigned {rm} {x} {y}");
                }
            }
        }
        let got = binop(ct(CtOp::RemI).with("signedness", sig("signed")), t, &a, &b).unwrap();
        for i in 0..a.len() {
            assert_eq!(got[i], (sx(w, a[i]) as i128 % sx(w, b[i]) as i128) as u64 & m);
        }
        let got = binop(ct(CtOp::RemI).with("signedness", sig("unsigned")), t, &a, &b).unwrap();
        for i in 0..a.len() {
            assert_eq!(got[i], a[i] % b[i]);
        }
    }

    #[test]
    fn comparisons_and_extensions((t, a, b) in int_case()) {
        let w = t.bit_width();
        let n = a.len() as i64;
        let got = run_elementwise(&[(t, a.clone()), (t, b.clone())], NumType::I8, |k, v| {
            let c = k.op1(ct(CtOp::CmpI).with("comparison_predicate", en("comparison_predicate", "less_than")).with("signedness", sig("signed")), vec![v[0], v[1]], tile(&[n], NumType::I1));
            k.op1(ct(CtOp::ExtI).with("signedness", sig("unsigned")), vec![c], tile(&[n], NumType::I8))
        }).unwrap();
        for i in 0..a.len() {
            assert_eq!(got[i], (sx(w, a[i]) < sx(w, b[i])) as u64);
        }
        if t != NumType::I64 {
            for (s, f) in [("signed", (|x: u64, w: u32| sx(w, x) as u64) as fn(u64, u32) -> u64), ("unsigned", |x, _| x)] {
                let got = run_elementwise(&[(t, a.clone())], NumType::I64, |k, v| {
                    k.op1(ct(CtOp::ExtI).with("signedness", sig(s)), vec![v[0]], tile(&[n], NumType::I64))
                }).unwrap();
                for i in 0..a.len() {
                    assert_eq!(got[i], f(a[i], w), "exti {s} {t}");
                }
            }
        }
        if t != NumType::I8 {
            let got = run_elementwise(&[(t, a.clone())], NumType::I8, |k, v| k.op1(ct(CtOp::TruncI), vec![v[0]], tile(&[n], NumType::I8))).unwrap();
            for i in 0..a.len() {
                assert_eq!(got[i], a[i] & 0xff);
            }
        }
    }

    #[test]
    fn f32_and_f64_arithmetic_is_exactly_rusts(a in proptest::collection::vec(any::<f32>(), 16), b in proptest::collection::vec(any::<f32>(), 16), c in proptest::collection::vec(any::<f64>(), 16), d in proptest::collection::vec(any::<f64>(), 16)) {
        let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>();
        let bits64 = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let same32 = |got: u64, want: f32| f32::from_bits(got as u32).to_bits() == want.to_bits() || (want.is_nan() && f32::from_bits(got as u32).is_nan());
        let same64 = |got: u64, want: f64| got == want.to_bits() || (want.is_nan() && f64::from_bits(got).is_nan());
        for (op, f32f, f64f) in [
            (CtOp::AddF, (|x: f32, y: f32| x + y) as fn(f32, f32) -> f32, (|x: f64, y: f64| x + y) as fn(f64, f64) -> f64),
            (CtOp::SubF, |x, y| x - y, |x, y| x - y),
            (CtOp::MulF, |x, y| x * y, |x, y| x * y),
            (CtOp::DivF, |x, y| x / y, |x, y| x / y),
            (CtOp::RemF, |x, y| x % y, |x, y| x % y),
        ] {
            let got = binop(ct(op), NumType::F32, &bits32(&a), &bits32(&b)).unwrap();
            for i in 0..16 { assert!(same32(got[i], f32f(a[i], b[i])), "{op:?} f32 {} {}", a[i], b[i]); }
            let got = binop(ct(op), NumType::F64, &bits64(&c), &bits64(&d)).unwrap();
            for i in 0..16 { assert!(same64(got[i], f64f(c[i], d[i])), "{op:?} f64 {} {}", c[i], d[i]); }
        }
        let got = run_elementwise(&[(NumType::F32, bits32(&a)), (NumType::F32, bits32(&b)), (NumType::F32, bits32(&a))], NumType::F32, |k, v| {
            k.op1(ct(CtOp::Fma), vec![v[0], v[1], v[2]], tile(&[16], NumType::F32))
        }).unwrap();
        for i in 0..16 { assert!(same32(got[i], a[i].mul_add(b[i], a[i]))); }
        let got = run_elementwise(&[(NumType::F32, bits32(&a))], NumType::F32, |k, v| k.op1(ct(CtOp::Sqrt), vec![v[0]], tile(&[16], NumType::F32))).unwrap();
        for i in 0..16 { assert!(same32(got[i], a[i].sqrt())); }
    }

    #[test]
    fn narrow_floats_round_the_exact_result(a in proptest::collection::vec(any::<u16>(), 32), b in proptest::collection::vec(any::<u16>(), 32), rm in 0usize..4) {
        let modes = [("nearest_even", Rounding::NearestEven), ("zero", Rounding::TowardZero), ("negative_inf", Rounding::TowardNegative), ("positive_inf", Rounding::TowardPositive)];
        let (kw, rounding) = modes[rm];
        for (t, fmt) in [(NumType::F16, FloatFormat::F16), (NumType::BF16, FloatFormat::BF16)] {
            let av: Vec<u64> = a.iter().map(|&x| x as u64).collect();
            let bv: Vec<u64> = b.iter().map(|&x| x as u64).collect();
            let dec = |x: u64| tileir_numeric::decode(fmt, x);
            // mul and add of two narrow values are exact in f64; div is not, so it is checked
            // against the f64 quotient only when that quotient is exact.
            for (op, f) in [
                (CtOp::AddF, (|x: f64, y: f64| x + y) as fn(f64, f64) -> f64),
                (CtOp::SubF, |x, y| x - y),
                (CtOp::MulF, |x, y| x * y),
                (CtOp::DivF, |x, y| x / y),
            ] {
                let got = binop(ct(op).with("rounding_mode", en("rounding", kw)), t, &av, &bv).unwrap();
                for i in 0..32 {
                    let (x, y) = (dec(av[i]), dec(bv[i]));
                    let mut exact = f(x, y);
                    if matches!(op, CtOp::AddF | CtOp::SubF) && exact.is_finite() {
                        // The f64 sum may be inexact (exponents far apart): make it the
                        // round-to-odd value, which rounds to the same narrow result as the
                        // exact sum.
                        let y2 = if op == CtOp::SubF { -y } else { y };
                        let (hi, lo) = if x.abs() >= y2.abs() { (x, y2) } else { (y2, x) };
                        let err = lo - (exact - hi);
                        if err != 0.0 && exact.to_bits() & 1 == 0 {
                            let toward_larger = (err > 0.0) == (exact > 0.0);
                            exact = f64::from_bits(if toward_larger { exact.to_bits() + 1 } else { exact.to_bits() - 1 });
                        }
                    }
                    if op == CtOp::DivF && exact.is_finite() && exact * y != x {
                        continue;
                    }
                    let mut want = encode(fmt, exact, rounding, Saturation::None);
                    // IEEE 754 §6.3: an exact zero sum is −0 when rounding toward −inf unless both
                    // addends are +0.
                    let y2 = if op == CtOp::SubF { -y } else { y };
                    if exact == 0.0 && matches!(op, CtOp::AddF | CtOp::SubF) && rounding == Rounding::TowardNegative
                        && !(x == 0.0 && y2 == 0.0 && x.is_sign_positive() && y2.is_sign_positive())
                    {
                        want = fmt.zero_bits(true).unwrap();
                    }
                    let gotv = dec(got[i]);
                    assert!(got[i] == want || (gotv.is_nan() && dec(want).is_nan()), "{op:?} {t} {kw} {x:e} {y:e}: got {:#x} want {want:#x}", got[i]);
                }
            }
        }
    }

    #[test]
    fn conversions_round_once(a in proptest::collection::vec(any::<u32>(), 16), rm in 0usize..4) {
        let modes = [("nearest_even", Rounding::NearestEven), ("zero", Rounding::TowardZero), ("negative_inf", Rounding::TowardNegative), ("positive_inf", Rounding::TowardPositive)];
        let (kw, rounding) = modes[rm];
        let av: Vec<u64> = a.iter().map(|&x| x as u64).collect();
        for (t, fmt) in [(NumType::F16, FloatFormat::F16), (NumType::BF16, FloatFormat::BF16), (NumType::F8E4M3FN, FloatFormat::F8E4M3FN), (NumType::F8E5M2, FloatFormat::F8E5M2), (NumType::TF32, FloatFormat::TF32)] {
            let got = run_elementwise(&[(NumType::F32, av.clone())], t, |k, v| {
                k.op1(ct(CtOp::FToF).with("rounding_mode", en("rounding", kw)), vec![v[0]], tile(&[16], t))
            }).unwrap();
            for i in 0..16 {
                let x = f32::from_bits(a[i]) as f64;
                // fp8 saturates to its largest finite value (NVIDIA's `.satfinite`).
                let saturation = if matches!(t, NumType::F8E4M3FN | NumType::F8E5M2) { Saturation::Finite } else { Saturation::None };
                let want = encode(fmt, x, rounding, saturation);
                let ok = got[i] == want || (x.is_nan() && fmt.is_nan(got[i]));
                assert!(ok, "ftof f32->{t} {kw} {x:e}: got {:#x} want {want:#x}", got[i]);
            }
        }
        // itof from i32 (signed) to f16 rounds once from the exact integer.
        let got = run_elementwise(&[(NumType::I32, av.clone())], NumType::F16, |k, v| {
            k.op1(ct(CtOp::IToF).with("signedness", sig("signed")), vec![v[0]], tile(&[16], NumType::F16))
        }).unwrap();
        for i in 0..16 {
            assert_eq!(got[i], encode(FloatFormat::F16, a[i] as i32 as f64, Rounding::NearestEven, Saturation::None));
        }
        // itof i64 -> f32: Rust's `as` rounds to nearest even.
        let wide: Vec<u64> = a.iter().map(|&x| (x as u64) << 31 | x as u64).collect();
        let got = run_elementwise(&[(NumType::I64, wide.clone())], NumType::F32, |k, v| {
            k.op1(ct(CtOp::IToF).with("signedness", sig("unsigned")), vec![v[0]], tile(&[16], NumType::F32))
        }).unwrap();
        for i in 0..16 {
            assert_eq!(got[i] as u32, (wide[i] as f32).to_bits());
        }
    }
}
