//! Per-op-family tests through small kernels.

mod common;

use common::*;
use tileir_ir::*;
use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};

fn f32s(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits() as u64).collect()
}

fn as_f32(v: &[u64]) -> Vec<f32> {
    v.iter().map(|&b| f32::from_bits(b as u32)).collect()
}

#[test]
fn math_functions_round_the_f64_result_once() {
    let xs = [0.5f32, 1.25, -2.0, 3.5];
    for (op, f) in [
        (CtOp::Sin, f64::sin as fn(f64) -> f64),
        (CtOp::Cos, f64::cos),
        (CtOp::Exp, f64::exp),
        (CtOp::Exp2, f64::exp2),
        (CtOp::TanH, f64::tanh),
        (CtOp::Floor, f64::floor),
        (CtOp::Ceil, f64::ceil),
    ] {
        let got = run_elementwise(&[(NumType::F32, f32s(&xs))], NumType::F32, |k, v| {
            k.op1(ct(op), vec![v[0]], tile(&[4], NumType::F32))
        })
        .unwrap();
        for (g, x) in as_f32(&got).iter().zip(xs) {
            assert_eq!(g.to_bits(), (f(x as f64) as f32).to_bits(), "{op:?}({x})");
        }
        // f16: rounded once from f64.
        let hs: Vec<u64> = xs
            .iter()
            .map(|&x| {
                encode(
                    FloatFormat::F16,
                    x as f64,
                    Rounding::NearestEven,
                    Saturation::None,
                )
            })
            .collect();
        let got = run_elementwise(&[(NumType::F16, hs.clone())], NumType::F16, |k, v| {
            k.op1(ct(op), vec![v[0]], tile(&[4], NumType::F16))
        })
        .unwrap();
        for (g, h) in got.iter().zip(&hs) {
            let want = encode(
                FloatFormat::F16,
                f(decode(FloatFormat::F16, *h)),
                Rounding::NearestEven,
                Saturation::None,
            );
            assert_eq!(*g, want, "{op:?} f16");
        }
    }
}

#[test]
fn maxf_minf_cmpf_and_select() {
    let a = f32s(&[1.0, f32::NAN, -0.0, 5.0]);
    let b = f32s(&[2.0, 3.0, 0.0, f32::NAN]);
    let run = |op: CudaTileOp| {
        as_f32(
            &run_elementwise(
                &[(NumType::F32, a.clone()), (NumType::F32, b.clone())],
                NumType::F32,
                |k, v| k.op1(op, vec![v[0], v[1]], tile(&[4], NumType::F32)),
            )
            .unwrap(),
        )
    };
    let mx = run(ct(CtOp::MaxF));
    assert_eq!((mx[0], mx[1], mx[3]), (2.0, 3.0, 5.0));
    assert!(mx[2] == 0.0 && mx[2].is_sign_positive());
    let mn = run(ct(CtOp::MinF).with("propagate_nan", Attr::Unit));
    assert_eq!(mn[0], 1.0);
    assert!(mn[1].is_nan() && mn[3].is_nan() && mn[2].is_sign_negative());
    // cmpf less_than ordered / unordered, then select.
    for (ord, want) in [("ordered", [1u64, 0, 0, 0]), ("unordered", [1, 1, 0, 1])] {
        let got = run_elementwise(
            &[(NumType::F32, a.clone()), (NumType::F32, b.clone())],
            NumType::I1,
            |k, v| {
                let c = ct(CtOp::CmpF)
                    .with(
                        "comparison_predicate",
                        en("comparison_predicate", "less_than"),
                    )
                    .with("comparison_ordering", en("comparison_ordering", ord));
                k.op1(c, vec![v[0], v[1]], tile(&[4], NumType::I1))
            },
        )
        .unwrap();
        assert_eq!(got, want, "{ord}");
    }
    let got = run_elementwise(
        &[
            (NumType::I1, vec![1, 0, 1, 0]),
            (NumType::F32, a.clone()),
            (NumType::F32, b.clone()),
        ],
        NumType::F32,
        |k, v| {
            k.op1(
                ct(CtOp::Select),
                vec![v[0], v[1], v[2]],
                tile(&[4], NumType::F32),
            )
        },
    )
    .unwrap();
    assert_eq!(got, vec![a[0], b[1], a[2], b[3]]);
}

#[test]
fn ftz_and_directed_rounding_in_f32() {
    let tiny = f32::from_bits(1); // smallest subnormal
    let got = run_elementwise(
        &[
            (NumType::F32, f32s(&[tiny, 1.0])),
            (NumType::F32, f32s(&[0.0, 3.0])),
        ],
        NumType::F32,
        |k, v| {
            k.op1(
                ct(CtOp::AddF).with("flush_to_zero", Attr::Unit),
                vec![v[0], v[1]],
                tile(&[2], NumType::F32),
            )
        },
    )
    .unwrap();
    assert_eq!(as_f32(&got), vec![0.0, 4.0]);
    // 1/3 rounded toward zero and toward +inf differ by one ulp.
    let div = |rm: &'static str| {
        run_elementwise(
            &[(NumType::F32, f32s(&[1.0])), (NumType::F32, f32s(&[3.0]))],
            NumType::F32,
            |k, v| {
                k.op1(
                    ct(CtOp::DivF).with("rounding_mode", en("rounding", rm)),
                    vec![v[0], v[1]],
                    tile(&[1], NumType::F32),
                )
            },
        )
        .unwrap()[0]
    };
    assert_eq!(div("positive_inf"), div("zero") + 1);
    assert_eq!(div("nearest_even") as u32, (1.0f32 / 3.0).to_bits());
    // f64 fma toward -inf: 1 + 2^-60 * 2^-60 rounds down to 1, toward +inf up.
    let e = 2f64.powi(-60);
    let fma = |rm: &'static str| {
        let v = vec![e.to_bits()];
        run_elementwise(
            &[
                (NumType::F64, v.clone()),
                (NumType::F64, v),
                (NumType::F64, vec![1f64.to_bits()]),
            ],
            NumType::F64,
            |k, v| {
                k.op1(
                    ct(CtOp::Fma).with("rounding_mode", en("rounding", rm)),
                    vec![v[0], v[1], v[2]],
                    tile(&[1], NumType::F64),
                )
            },
        )
        .unwrap()[0]
    };
    assert_eq!(f64::from_bits(fma("negative_inf")), 1.0);
    assert_eq!(fma("positive_inf"), 1f64.to_bits() + 1);
}

#[test]
fn ftoi_bitcast_and_i4_pack() {
    let got = run_elementwise(
        &[(NumType::F32, f32s(&[-2.7, 2.7, 1e10, f32::NAN]))],
        NumType::I16,
        |k, v| {
            k.op1(
                ct(CtOp::FToI).with("signedness", en("signedness", "signed")),
                vec![v[0]],
                tile(&[4], NumType::I16),
            )
        },
    )
    .unwrap();
    assert_eq!(got, vec![0xfffe, 2, 0x7fff, 0]);
    let got = run_elementwise(
        &[(NumType::F32, f32s(&[1.0, -0.0]))],
        NumType::I32,
        |k, v| k.op1(ct(CtOp::Bitcast), vec![v[0]], tile(&[2], NumType::I32)),
    )
    .unwrap();
    assert_eq!(got, vec![0x3f80_0000, 0x8000_0000]);
    // i8 -> trunci i4 -> pack -> i8: two nibbles per byte, element 0 in the low nibble.
    let got = run_elementwise(
        &[(NumType::I8, vec![1, 0xff, 7, 0x08])],
        NumType::I8,
        |k, v| {
            let t = k.op1(ct(CtOp::TruncI), vec![v[0]], tile(&[4], NumType::I4));
            let p = k.op1(ct(CtOp::Pack), vec![t], tile(&[2], NumType::I8));
            let u = k.op1(ct(CtOp::Unpack), vec![p], tile(&[4], NumType::I4));
            k.op1(
                ct(CtOp::ExtI).with("signedness", en("signedness", "signed")),
                vec![u],
                tile(&[4], NumType::I8),
            )
        },
    )
    .unwrap();
    assert_eq!(got, vec![1, 0xff, 7, 0xf8]);
}

#[test]
fn shape_ops_through_a_kernel() {
    // permute a 2x4 iota to 4x2, extract the second 2x2 block, broadcast a row, cat.
    let (mut k, a) = K::entry("k", &[ptr_tile(&[], NumType::I32)]);
    let io = k.op1(ct(CtOp::Iota), vec![], tile(&[8], NumType::I32));
    let m = k.op1(ct(CtOp::Reshape), vec![io], tile(&[2, 4], NumType::I32));
    let p = k.op1(
        ct(CtOp::Permute).with("permutation", Attr::IntArray(vec![1, 0])),
        vec![m],
        tile(&[4, 2], NumType::I32),
    );
    let (one, zero) = (k.ci32(1), k.ci32(0));
    let e = k.op1(
        ct(CtOp::Extract),
        vec![p, one, zero],
        tile(&[2, 2], NumType::I32),
    );
    let row = k.constant(NumType::I32, &[1, 2], vec![7, 9]);
    let b = k.op1(ct(CtOp::Broadcast), vec![row], tile(&[2, 2], NumType::I32));
    let c = k.op1(
        ct(CtOp::Cat).with("dim", Attr::Int(1)),
        vec![e, b],
        tile(&[2, 4], NumType::I32),
    );
    let flat = k.op1(ct(CtOp::Reshape), vec![c], tile(&[8], NumType::I32));
    let (pv, _) = k.view1d(a[0], NumType::I32, 8, 8, None);
    k.store_view(flat, pv, &[zero]);
    k.ret();
    let mut mem = tileir_interp::Memory::new();
    let out = mem.alloc(32, 256);
    k.run(
        [1, 1, 1],
        &[tileir_interp::ArgValue::Ptr(out)],
        &mut mem,
        &Default::default(),
    )
    .unwrap();
    // permute: [[0,4],[1,5],[2,6],[3,7]]; extract block (1,0): [[2,6],[3,7]].
    assert_eq!(mem.read_i32(out, 8).unwrap(), vec![2, 6, 7, 9, 3, 7, 7, 9]);
}

#[test]
fn mmai_and_mmaf_scaled() {
    // 2x4 (i8, signed) x 4x2 (i8, unsigned) + acc.
    let (mut k, a) = K::entry(
        "k",
        &[ptr_tile(&[], NumType::I32), ptr_tile(&[], NumType::F32)],
    );
    let x = k.constant(NumType::I8, &[2, 4], vec![1, 0xff, 2, 0x80, 0, 1, 0, 1]);
    let y = k.constant(NumType::I8, &[4, 2], vec![0xff, 1, 1, 1, 1, 1, 1, 1]);
    let acc = k.constant(NumType::I32, &[2, 2], vec![10]);
    let op = ct(CtOp::MmaI)
        .with("signedness_lhs", en("signedness", "signed"))
        .with("signedness_rhs", en("signedness", "unsigned"));
    let r = k.op1(op, vec![x, y, acc], tile(&[2, 2], NumType::I32));
    let f = k.op1(ct(CtOp::Reshape), vec![r], tile(&[4], NumType::I32));
    let (pv, _) = k.view1d(a[0], NumType::I32, 4, 4, None);
    let zero = k.ci32(0);
    k.store_view(f, pv, &[zero]);
    // mmaf_scaled: 1x32 e4m3 ones times 32x1 e4m3 twos, scales 2^1 and 2^-2 (e8m0).
    let e4 = |v: f64| {
        encode(
            FloatFormat::F8E4M3FN,
            v,
            Rounding::NearestEven,
            Saturation::None,
        )
    };
    let e8 = |v: f64| {
        encode(
            FloatFormat::F8E8M0FNU,
            v,
            Rounding::NearestEven,
            Saturation::None,
        )
    };
    let lhs = k.constant(NumType::F8E4M3FN, &[1, 32], vec![e4(1.0)]);
    let rhs = k.constant(NumType::F8E4M3FN, &[32, 1], vec![e4(2.0)]);
    let acc = k.constant(NumType::F32, &[1, 1], vec![1.0f32.to_bits() as u64]);
    let sl = k.constant(NumType::F8E8M0FNU, &[1, 1], vec![e8(2.0)]);
    let sr = k.constant(NumType::F8E8M0FNU, &[1, 1], vec![e8(0.25)]);
    let r = k.op1(
        ct(CtOp::MmaFScaled),
        vec![lhs, rhs, acc, sl, sr],
        tile(&[1, 1], NumType::F32),
    );
    let f = k.op1(ct(CtOp::Reshape), vec![r], tile(&[1], NumType::F32));
    let (pv, _) = k.view1d(a[1], NumType::F32, 1, 1, None);
    k.store_view(f, pv, &[zero]);
    k.ret();
    let mut mem = tileir_interp::Memory::new();
    let out = mem.alloc(16, 256);
    let outf = mem.alloc(4, 256);
    k.run(
        [1, 1, 1],
        &[
            tileir_interp::ArgValue::Ptr(out),
            tileir_interp::ArgValue::Ptr(outf),
        ],
        &mut mem,
        &Default::default(),
    )
    .unwrap();
    // Row 0 = [1, -1, 2, -128] · columns [255,1,1,1] / [1,1,1,1].
    assert_eq!(
        mem.read_i32(out, 4).unwrap(),
        vec![10 + 255 - 1 + 2 - 128, 10 + 1 - 1 + 2 - 128, 10 + 2, 10 + 2]
    );
    assert_eq!(
        mem.read_f32(outf, 1).unwrap(),
        vec![1.0 + 32.0 * 2.0 * 2.0 * 0.25]
    );
}
