//! Whole kernels shared by the tests and the benchmark.
#![allow(dead_code)]

use crate::common::*;
use tileir_ir::*;

/// `c[i] = a[i] + b[i]` over `n` f32 elements with `tile_n`-element tiles (one per block);
/// the last tile may be partial (padding on load, masking on store).
pub fn vector_add(n: i64, tile_n: i64) -> K {
    let p = ptr_tile(&[], NumType::F32);
    let (mut k, a) = K::entry("k", &[p.clone(), p.clone(), p]);
    let [bx, _, _] = k.block_id();
    let (pa, _) = k.view1d(a[0], NumType::F32, n, tile_n, Some(PaddingValue::Zero));
    let (pb, _) = k.view1d(a[1], NumType::F32, n, tile_n, Some(PaddingValue::Zero));
    let (pc, _) = k.view1d(a[2], NumType::F32, n, tile_n, None);
    let t = tile(&[tile_n], NumType::F32);
    let x = k.load_view(pa, &[bx], t.clone());
    let y = k.load_view(pb, &[bx], t.clone());
    let s = k.op1(ct(CtOp::AddF), vec![x, y], t);
    k.store_view(s, pc, &[bx]);
    k.ret();
    k
}

/// `C (m x n, f32) = A (m x kk, elem) · B (kk x n, elem)`, one `bm x bn` tile of C per block
/// (grid x = n / bn, y = m / bm), a `for` loop over K in steps of `bk` with `mmaf`.
pub fn matmul(elem: NumType, m: i64, n: i64, kk: i64, bm: i64, bn: i64, bk: i64) -> K {
    let (mut k, a) = K::entry(
        "k",
        &[
            ptr_tile(&[], elem),
            ptr_tile(&[], elem),
            ptr_tile(&[], NumType::F32),
        ],
    );
    let [bx, by, _] = k.block_id();
    let va = k.view2d(a[0], elem, m, kk, bm, bk);
    let vb = k.view2d(a[1], elem, kk, n, bk, bn);
    let vc = k.view2d(a[2], NumType::F32, m, n, bm, bn);
    let acc_t = tile(&[bm, bn], NumType::F32);
    let zero = k.constant(NumType::F32, &[bm, bn], vec![0]);
    let lb = k.ci32(0);
    let ub = k.ci32((kk / bk) as i32);
    let step = k.ci32(1);
    let res = k.op(
        ct(CtOp::For),
        vec![lb, ub, step, zero],
        std::slice::from_ref(&acc_t),
    );
    let for_op = k.last_op();
    k.region(
        for_op,
        0,
        &[tile(&[], NumType::I32), acc_t.clone()],
        |k, args| {
            let (iv, acc) = (args[0], args[1]);
            let x = k.load_view(va, &[by, iv], tile(&[bm, bk], elem));
            let y = k.load_view(vb, &[iv, bx], tile(&[bk, bn], elem));
            let r = k.op1(ct(CtOp::MmaF), vec![x, y, acc], acc_t.clone());
            k.op(ct(CtOp::Continue), vec![r], &[]);
        },
    );
    k.store_view(res[0], vc, &[by, bx]);
    k.ret();
    k
}

/// The reference matmul with the interpreter's documented order: per output element,
/// products added in increasing k, each addition rounded to f32 (products of f16 are exact).
pub fn matmul_reference(a: &[f32], b: &[f32], m: usize, n: usize, kk: usize) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0f32;
            for p in 0..kk {
                s += a[i * kk + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
    c
}
