//! Matrix multiply-accumulate: `mmaf`, `mmai`, `mmaf_scaled`.
//!
//! Order of evaluation (documented contract): for every output element `(b, m, n)` the
//! products are added to the accumulator one at a time, in increasing `k`, each addition
//! rounded to the accumulator type. Products of inputs narrower than f32 (f16, bf16, tf32,
//! fp8) are exact in f32 and are not rounded; f32×f32 and f64×f64 steps are fused
//! multiply-adds (one rounding per step). `fast_acc` is accepted and ignored (the reference
//! result is the precise one).

use crate::arith::OpResult;
use crate::float::{add_odd, f16_to_f32, f32_to_f16, round_f64_to_f32_storage, tf32_value};
use crate::value::{canon, unsigned, Data, Tile};
use tileir_ir::{NumType, RoundingMode, Signedness};

/// Batch, M, K, N of an mma from the lhs/rhs/acc shapes (rank 2 or 3).
fn dims(a: &Tile, b: &Tile, c: &Tile) -> OpResult<(usize, usize, usize, usize)> {
    let (sa, sb, sc) = (&a.shape, &b.shape, &c.shape);
    let r = sa.len();
    if !(r == 2 || r == 3) || sb.len() != r || sc.len() != r {
        return Err(format!(
            "mma operands must all be rank 2 or 3, got ranks {}, {}, {}",
            r,
            sb.len(),
            sc.len()
        ));
    }
    let batch = if r == 3 { sa[0] } else { 1 };
    let (m, k, n) = (sa[r - 2], sa[r - 1], sb[r - 1]);
    if sb[r - 2] != k
        || sc[r - 2] != m
        || sc[r - 1] != n
        || (r == 3 && (sb[0] != batch || sc[0] != batch))
    {
        return Err(format!(
            "mma shapes do not agree: lhs {sa:?}, rhs {sb:?}, acc {sc:?}"
        ));
    }
    Ok((batch, m, k, n))
}

/// Input values as f32 (exact; tf32 padding bits dropped).
fn inputs_f32(t: &Tile) -> OpResult<Vec<f32>> {
    match &t.data {
        Data::F32(v) if t.num() == NumType::TF32 => Ok(v.iter().map(|&x| tf32_value(x)).collect()),
        Data::F32(v) => Ok(v.clone()),
        _ => Err("expected a float tile stored as f32".into()),
    }
}

/// `mmaf`.
pub fn mmaf(a: &Tile, b: &Tile, c: &Tile) -> OpResult<Tile> {
    let (batch, m, k, n) = dims(a, b, c)?;
    let acc_t = c.num();
    let data = match (&c.data, acc_t) {
        (Data::F64(acc), _) => {
            let (Data::F64(x), Data::F64(y)) = (&a.data, &b.data) else {
                return Err("f64 mma needs f64 inputs".into());
            };
            let mut out = acc.clone();
            for bi in 0..batch {
                for i in 0..m {
                    let row = &mut out[(bi * m + i) * n..(bi * m + i + 1) * n];
                    for kk in 0..k {
                        let av = x[(bi * m + i) * k + kk];
                        let brow = &y[(bi * k + kk) * n..(bi * k + kk + 1) * n];
                        for (o, &bv) in row.iter_mut().zip(brow) {
                            *o = av.mul_add(bv, *o);
                        }
                    }
                }
            }
            Data::F64(out)
        }
        (Data::F32(acc), NumType::F32) => {
            let x = inputs_f32(a)?;
            let y = inputs_f32(b)?;
            let fused = a.num() == NumType::F32;
            // f16 and fp8 products are exact in f32 (at most 22 significant bits, exponents far
            // inside the f32 range); bf16/tf32 products can leave the f32 exponent range, so
            // they are formed in f64 and added with a single rounding.
            let exact_in_f32 =
                matches!(a.num(), NumType::F16 | NumType::F8E4M3FN | NumType::F8E5M2);
            let mut out = acc.clone();
            if exact_in_f32 && !fused {
                mma_exact_f32(&x, &y, &mut out, (batch, m, k, n));
                return Ok(Tile {
                    shape: c.shape.clone(),
                    elem: c.elem,
                    data: Data::F32(out),
                });
            }
            for bi in 0..batch {
                for i in 0..m {
                    let row = &mut out[(bi * m + i) * n..(bi * m + i + 1) * n];
                    for kk in 0..k {
                        let av = x[(bi * m + i) * k + kk];
                        let brow = &y[(bi * k + kk) * n..(bi * k + kk + 1) * n];
                        if fused {
                            for (o, &bv) in row.iter_mut().zip(brow) {
                                *o = av.mul_add(bv, *o);
                            }
                        } else {
                            for (o, &bv) in row.iter_mut().zip(brow) {
                                *o = add_odd(*o as f64, av as f64 * bv as f64) as f32;
                            }
                        }
                    }
                }
            }
            Data::F32(out)
        }
        (Data::F32(acc), NumType::F16) => {
            let x = inputs_f32(a)?;
            let y = inputs_f32(b)?;
            let mut out = acc.clone();
            for bi in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let o = &mut out[(bi * m + i) * n + j];
                        let mut s = *o;
                        for kk in 0..k {
                            let p =
                                x[(bi * m + i) * k + kk] as f64 * y[(bi * k + kk) * n + j] as f64;
                            // acc + p rounded once to f16 (round-to-odd intermediate).
                            s = f16_to_f32(f32_to_f16(crate::float::f64_to_f32_odd(add_odd(
                                s as f64, p,
                            ))));
                        }
                        *o = s;
                    }
                }
            }
            Data::F32(out)
        }
        _ => return Err(format!("unsupported mmaf accumulator type {}", acc_t)),
    };
    Ok(Tile {
        shape: c.shape.clone(),
        elem: c.elem,
        data,
    })
}

/// `out += x · y` where every product is exact in f32: per output element the products are
/// added in increasing k, one rounding per addition, as in the plain loop; four k steps are
/// applied per pass over an output row so that the row stays in registers, and the loop over
/// the row vectorizes.
fn mma_exact_f32(
    x: &[f32],
    y: &[f32],
    out: &mut [f32],
    (batch, m, k, n): (usize, usize, usize, usize),
) {
    for bi in 0..batch {
        for i in 0..m {
            let row = &mut out[(bi * m + i) * n..(bi * m + i + 1) * n];
            let a = &x[(bi * m + i) * k..(bi * m + i + 1) * k];
            let brow = |kk: usize| &y[(bi * k + kk) * n..(bi * k + kk + 1) * n];
            let mut kk = 0;
            while kk + 4 <= k {
                let (a0, a1, a2, a3) = (a[kk], a[kk + 1], a[kk + 2], a[kk + 3]);
                let (b0, b1, b2, b3) = (brow(kk), brow(kk + 1), brow(kk + 2), brow(kk + 3));
                for j in 0..n {
                    let mut o = row[j];
                    o += a0 * b0[j];
                    o += a1 * b1[j];
                    o += a2 * b2[j];
                    o += a3 * b3[j];
                    row[j] = o;
                }
                kk += 4;
            }
            while kk < k {
                let av = a[kk];
                for (o, &bv) in row.iter_mut().zip(brow(kk)) {
                    *o += av * bv;
                }
                kk += 1;
            }
        }
    }
}

/// `mmai`: i8 × i8 (signedness per side) accumulated into i32 with wrap-around.
pub fn mmai(a: &Tile, b: &Tile, c: &Tile, sa: Signedness, sb: Signedness) -> OpResult<Tile> {
    let (batch, m, k, n) = dims(a, b, c)?;
    let read = |v: i64, s: Signedness| -> i32 {
        match s {
            Signedness::Signed => v as i32,
            Signedness::Unsigned => unsigned(8, v) as i32,
        }
    };
    let x: Vec<i32> = a.ints().iter().map(|&v| read(v, sa)).collect();
    let y: Vec<i32> = b.ints().iter().map(|&v| read(v, sb)).collect();
    let mut out: Vec<i32> = c.ints().iter().map(|&v| v as i32).collect();
    for bi in 0..batch {
        for i in 0..m {
            for kk in 0..k {
                let av = x[(bi * m + i) * k + kk];
                for j in 0..n {
                    let o = &mut out[(bi * m + i) * n + j];
                    *o = o.wrapping_add(av.wrapping_mul(y[(bi * k + kk) * n + j]));
                }
            }
        }
    }
    Ok(Tile {
        shape: c.shape.clone(),
        elem: c.elem,
        data: Data::Int(out.into_iter().map(|v| canon(32, v as i64)).collect()),
    })
}

/// `mmaf_scaled`: `acc + Σ_k (a[m,k]·sa[m,k/V]) · (b[k,n]·sb[k/V,n])` with `V = K / K_scale`.
/// Each scaled product is exact in f64 (fp8/fp4 values times power-of-two or e4m3 scales);
/// it is added to the f32 accumulator with one rounding per k, in increasing k.
pub fn mmaf_scaled(a: &Tile, b: &Tile, c: &Tile, sa: &Tile, sb: &Tile) -> OpResult<Tile> {
    let (batch, m, k, n) = dims(a, b, c)?;
    let r = a.shape.len();
    let ks = sa.shape[r - 1];
    if ks == 0
        || k % ks != 0
        || sb.shape.len() != r
        || sb.shape[r - 2] != ks
        || sa.shape[r - 2] != m
        || sb.shape[r - 1] != n
    {
        return Err(format!(
            "mmaf_scaled scale shapes {:?} and {:?} do not fit K = {k}",
            sa.shape, sb.shape
        ));
    }
    let v = k / ks;
    let (Data::F32(x), Data::F32(y), Data::F32(xs), Data::F32(ys), Data::F32(acc)) =
        (&a.data, &b.data, &sa.data, &sb.data, &c.data)
    else {
        return Err("mmaf_scaled needs narrow float inputs and an f32 accumulator".into());
    };
    let mut out = acc.clone();
    for bi in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let mut s = out[(bi * m + i) * n + j];
                for kk in 0..k {
                    let av =
                        x[(bi * m + i) * k + kk] as f64 * xs[(bi * m + i) * ks + kk / v] as f64;
                    let bv =
                        y[(bi * k + kk) * n + j] as f64 * ys[(bi * ks + kk / v) * n + j] as f64;
                    s = round_f64_to_f32_storage(
                        NumType::F32,
                        add_odd(s as f64, av * bv),
                        RoundingMode::NearestEven,
                    );
                }
                out[(bi * m + i) * n + j] = s;
            }
        }
    }
    Ok(Tile {
        shape: c.shape.clone(),
        elem: c.elem,
        data: Data::F32(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tileir_ir::TileElem;

    fn tile(shape: &[usize], t: NumType, v: Vec<f32>) -> Tile {
        Tile {
            shape: shape.to_vec(),
            elem: TileElem::Num(t),
            data: Data::F32(v),
        }
    }

    #[test]
    fn blocked_f16_mma_adds_in_k_order_with_one_rounding_per_step() {
        // k = 7 exercises the blocked passes and the tail; values with many significant bits
        // make any change of summation order visible.
        let (m, k, n) = (3usize, 7usize, 5usize);
        let val = |i: usize| f16_to_f32(f32_to_f16(((i * 7919) % 2003) as f32 / 97.0 - 9.0));
        let x: Vec<f32> = (0..m * k).map(val).collect();
        let y: Vec<f32> = (0..k * n).map(|i| val(i + 500)).collect();
        let acc: Vec<f32> = (0..m * n).map(|i| i as f32 * 1.0e-3).collect();
        let r = mmaf(
            &tile(&[m, k], NumType::F16, x.clone()),
            &tile(&[k, n], NumType::F16, y.clone()),
            &tile(&[m, n], NumType::F32, acc.clone()),
        )
        .unwrap();
        let mut want = acc;
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    want[i * n + j] += x[i * k + p] * y[p * n + j];
                }
            }
        }
        let Data::F32(got) = r.data else { panic!() };
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want));
    }
}
