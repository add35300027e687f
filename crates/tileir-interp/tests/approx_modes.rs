//! The `approx` / `full` rounding modes (see `tileir_interp::approx`): property tests of the
//! documented error bounds against a float64 reference, the special cases, and kernels that
//! select the modes through the `rounding_mode` attribute.

use proptest::prelude::*;
use tileir_interp::approx::{div_approx, div_full, exp_approx, sqrt_approx, tanh_approx};
use tileir_interp::{run_entry, ArgValue, Memory, RunOptions};
use tileir_syntax::{parse_module, ParseOptions};

/// One unit in the last place of f32 at the magnitude of `v` (subnormal spacing below the
/// normal range).
fn ulp_f32(v: f64) -> f64 {
    let a = v.abs();
    if a < f32::MIN_POSITIVE as f64 {
        2f64.powi(-149)
    } else {
        2f64.powi(a.log2().floor() as i32 - 23)
    }
}

/// The error of `got` against the exact `want`, in f32 ulps of `want`.
fn ulps(got: f32, want: f64) -> f64 {
    (got as f64 - want).abs() / ulp_f32(want)
}

/// Any finite f32 from its bit pattern.
fn finite() -> impl Strategy<Value = f32> {
    any::<u32>()
        .prop_map(f32::from_bits)
        .prop_filter("finite", |x| x.is_finite())
}

/// f32 values with a magnitude in `[2^lo, 2^hi)`, either sign.
fn magnitude(lo: i32, hi: i32) -> impl Strategy<Value = f32> {
    (lo..hi, 0u32..(1 << 23), any::<bool>()).prop_map(|(e, m, neg)| {
        let v = f32::from_bits((((e + 127) as u32) << 23) | m);
        if neg {
            -v
        } else {
            v
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// div approx: ≤ 2 ulp (the specification) for 2^-126 ≤ |y| ≤ 2^126 with a normal
    /// quotient; the emulation guarantees ≤ 1.5.
    #[test]
    fn div_approx_within_bound((x, y) in (-126i32..126, -100i32..100).prop_flat_map(|(ey, d)| {
        let ex = (ey + d).clamp(-126, 127);
        (magnitude(ex, ex + 1), magnitude(ey, ey + 1))
    })) {
        let want = x as f64 / y as f64;
        prop_assume!(want.abs() >= f32::MIN_POSITIVE as f64 && want.abs() < f32::MAX as f64);
        let got = div_approx(x, y, false);
        prop_assert!(ulps(got, want) <= 1.5 + 1e-9, "{x} / {y}: {got} vs {want} ({} ulp)", ulps(got, want));
    }

    /// div full: ≤ 2 ulp across the full range (the emulation: ≤ 1.5), subnormal quotients and
    /// divisors included.
    #[test]
    fn div_full_within_bound_everywhere(x in finite(), y in finite()) {
        prop_assume!(y != 0.0);
        let want = x as f64 / y as f64;
        prop_assume!(want.abs() < f32::MAX as f64);
        let got = div_full(x, y, false);
        prop_assert!(ulps(got, want) <= 1.5 + 1e-9, "{x} / {y}: {got} vs {want} ({} ulp)", ulps(got, want));
    }

    /// sqrt approx: relative error ≤ 2^-23 + 2^-48, subnormal inputs included.
    #[test]
    fn sqrt_approx_within_bound(x in finite()) {
        let x = x.abs();
        prop_assume!(x > 0.0);
        let want = (x as f64).sqrt();
        let got = sqrt_approx(x, false) as f64;
        prop_assert!(((got - want) / want).abs() <= 2f64.powi(-23) + 2f64.powi(-48), "sqrt {x}: {got} vs {want}");
    }

    /// exp approx: ≤ 1 + 1.22·|x| ulp wherever the result is normal.
    #[test]
    fn exp_approx_within_bound(x in -87.0f32..88.0) {
        let want = (x as f64).exp();
        let got = exp_approx(x);
        prop_assert!(ulps(got, want) <= 1.0 + 1.22 * (x.abs() as f64), "exp {x}: {got} vs {want} ({} ulp)", ulps(got, want));
    }

    /// tanh approx: relative error ≤ 2^-11 (the specification: 2^-10.987).
    #[test]
    fn tanh_approx_within_bound(x in finite()) {
        prop_assume!(x != 0.0);
        let want = (x as f64).tanh();
        let got = tanh_approx(x) as f64;
        prop_assert!(((got - want) / want).abs() <= 2f64.powi(-11), "tanh {x}: {got} vs {want}");
    }
}

#[test]
fn approx_modes_are_not_the_correctly_rounded_results() {
    // Two roundings show: some quotient differs from the IEEE one in the last place.
    let mut differs = 0;
    for i in 1..2000u32 {
        let (x, y) = (1.0 + i as f32 * 0.37, 3.0 + i as f32 * 0.011);
        if div_approx(x, y, false) != x / y {
            differs += 1;
        }
        assert_eq!(
            div_approx(x, y, false),
            div_full(x, y, false),
            "same in the normal range"
        );
    }
    assert!(differs > 0);
    assert_ne!(tanh_approx(0.3), 0.3f32.tanh());
    assert!((0..1000).any(|i| {
        let x = i as f32 * 0.0731 - 30.0;
        exp_approx(x) != ((x as f64).exp() as f32)
    }));
}

#[test]
fn special_cases() {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let tiny = f32::from_bits(1); // the smallest subnormal
    let big = 2f32.powi(127); // 2^126 < |y| < 2^128
    for f in [div_approx, div_full] {
        assert!(f(nan, 1.0, false).is_nan() && f(1.0, nan, false).is_nan());
        assert!(f(0.0, 0.0, false).is_nan() && f(inf, inf, false).is_nan());
        assert_eq!(f(1.0, 0.0, false), inf);
        assert_eq!(f(-1.0, 0.0, false), -inf);
        assert_eq!(f(1.0, -0.0, false), -inf);
        assert_eq!(f(inf, 2.0, false), inf);
        assert_eq!(f(3.0, inf, false).to_bits(), 0.0f32.to_bits());
        assert_eq!(f(3.0, -inf, false).to_bits(), (-0.0f32).to_bits());
        // ftz: subnormal operands are zeros, subnormal results flush.
        assert_eq!(f(1.0, tiny, true), inf);
        assert_eq!(f(tiny, 1.0, true), 0.0);
        assert_eq!(f(f32::MIN_POSITIVE, 4.0, true).to_bits(), 0.0f32.to_bits());
    }
    // approx: the documented 0 / NaN for 2^126 < |y| < 2^128; full divides accurately.
    assert_eq!(div_approx(1e30, big, false), 0.0);
    assert_eq!(div_approx(-1e30, big, false).to_bits(), (-0.0f32).to_bits());
    assert!(div_approx(inf, big, false).is_nan());
    assert_eq!(
        div_full(1e30, big, false),
        (1e30f64 / 2f64.powi(127)) as f32
    );
    assert_eq!(div_full(inf, big, false), inf);
    // Subnormal quotients without ftz.
    assert_eq!(
        div_full(f32::MIN_POSITIVE, 4.0, false),
        f32::MIN_POSITIVE / 4.0
    );
    assert_eq!(
        div_approx(f32::MIN_POSITIVE, 4.0, false),
        f32::MIN_POSITIVE / 4.0
    );
    // sqrt approx.
    assert_eq!(sqrt_approx(0.0, false).to_bits(), 0.0f32.to_bits());
    assert_eq!(sqrt_approx(-0.0, false).to_bits(), (-0.0f32).to_bits());
    assert_eq!(sqrt_approx(inf, false), inf);
    assert!(sqrt_approx(-1.0, false).is_nan() && sqrt_approx(-inf, false).is_nan());
    assert!(sqrt_approx(nan, false).is_nan());
    assert_eq!(sqrt_approx(tiny, true), 0.0);
    assert!(sqrt_approx(tiny, false) > 0.0);
    assert_eq!(sqrt_approx(4.0, false), 2.0);
    // exp approx.
    assert_eq!(exp_approx(-inf), 0.0);
    assert_eq!(exp_approx(inf), inf);
    assert!(exp_approx(nan).is_nan());
    assert_eq!(exp_approx(0.0), 1.0);
    assert_eq!(exp_approx(100.0), inf);
    assert_eq!(exp_approx(-110.0), 0.0);
    // tanh approx.
    assert_eq!(tanh_approx(inf), 1.0);
    assert_eq!(tanh_approx(-inf), -1.0);
    assert_eq!(tanh_approx(-0.0).to_bits(), (-0.0f32).to_bits());
    assert!(tanh_approx(nan).is_nan());
    assert_eq!(tanh_approx(tiny), tiny);
}

/// `%out[i] = op(%x[i], %y[i])` for the approx/full variants, 4 elements each.
const KERNEL: &str = r#"
cuda_tile.module @m {
  entry @k(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %out: tile<ptr<f32>>) {
    %i = iota : tile<4xi32>
    %x1 = reshape %x : tile<ptr<f32>> -> tile<1xptr<f32>>
    %xs = broadcast %x1 : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %px = offset %xs, %i : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %y1 = reshape %y : tile<ptr<f32>> -> tile<1xptr<f32>>
    %ys = broadcast %y1 : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %py = offset %ys, %i : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %a, %t0 = load_ptr_tko weak %px : tile<4xptr<f32>> -> tile<4xf32>, token
    %b, %t1 = load_ptr_tko weak %py : tile<4xptr<f32>> -> tile<4xf32>, token
    %d0 = divf %a, %b rounding<approx> : tile<4xf32>
    %d1 = divf %a, %b rounding<full> flush_to_zero : tile<4xf32>
    %d2 = sqrt %a rounding<approx> : tile<4xf32>
    %d3 = exp %a rounding<approx> : tile<4xf32>
    %d4 = tanh %a rounding<approx> : tile<4xf32>
    %d5 = tanh %a : tile<4xf32>
    %o1 = reshape %out : tile<ptr<f32>> -> tile<1xptr<f32>>
    %os = broadcast %o1 : tile<1xptr<f32>> -> tile<4xptr<f32>>
    %c4 = constant <i32: 4> : tile<4xi32>
    %q0 = offset %os, %i : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s0 = store_ptr_tko weak %q0, %d0 : tile<4xptr<f32>>, tile<4xf32> -> token
    %q1 = offset %q0, %c4 : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s1 = store_ptr_tko weak %q1, %d1 : tile<4xptr<f32>>, tile<4xf32> -> token
    %q2 = offset %q1, %c4 : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s2 = store_ptr_tko weak %q2, %d2 : tile<4xptr<f32>>, tile<4xf32> -> token
    %q3 = offset %q2, %c4 : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s3 = store_ptr_tko weak %q3, %d3 : tile<4xptr<f32>>, tile<4xf32> -> token
    %q4 = offset %q3, %c4 : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s4 = store_ptr_tko weak %q4, %d4 : tile<4xptr<f32>>, tile<4xf32> -> token
    %q5 = offset %q4, %c4 : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f32>>
    %s5 = store_ptr_tko weak %q5, %d5 : tile<4xptr<f32>>, tile<4xf32> -> token
    return
  }
}
"#;

#[test]
fn kernels_select_the_modes_by_attribute() {
    let m = parse_module(KERNEL, &ParseOptions::default()).expect("parses");
    let x = [1e30f32, 2.0, f32::MIN_POSITIVE, 0.3];
    let y = [2f32.powi(127), 3.0, 4.0, 7.0];
    let mut mem = Memory::new();
    let (px, py) = (mem.alloc_f32(&x), mem.alloc_f32(&y));
    let out = mem.alloc(24 * 4, 256);
    run_entry(
        &m,
        "k",
        [1, 1, 1],
        &[ArgValue::Ptr(px), ArgValue::Ptr(py), ArgValue::Ptr(out)],
        &mut mem,
        &RunOptions::default(),
    )
    .unwrap();
    let got = mem.read_f32(out, 24).unwrap();
    for i in 0..4 {
        assert_eq!(
            got[i].to_bits(),
            div_approx(x[i], y[i], false).to_bits(),
            "divf approx {i}"
        );
        assert_eq!(
            got[4 + i].to_bits(),
            div_full(x[i], y[i], true).to_bits(),
            "divf full ftz {i}"
        );
        assert_eq!(
            got[8 + i].to_bits(),
            sqrt_approx(x[i], false).to_bits(),
            "sqrt approx {i}"
        );
        assert_eq!(
            got[12 + i].to_bits(),
            exp_approx(x[i]).to_bits(),
            "exp approx {i}"
        );
        assert_eq!(
            got[16 + i].to_bits(),
            tanh_approx(x[i]).to_bits(),
            "tanh approx {i}"
        );
        // tanh's default (full) stays the accurate function.
        assert_eq!(
            got[20 + i].to_bits(),
            ((x[i] as f64).tanh() as f32).to_bits(),
            "tanh {i}"
        );
    }
    assert_eq!(got[0], 0.0, "approx: 1e30 / 2^127 is 0");
    assert_eq!(
        got[4],
        (1e30f64 / 2f64.powi(127)) as f32,
        "full divides accurately"
    );
    assert_eq!(got[6], 0.0, "full with ftz flushes the subnormal quotient");
}
