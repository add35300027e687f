//! Element-wise integer and float arithmetic, comparisons, math functions and conversions.
//!
//! Every function takes whole tiles and loops once over their elements. Binary operations also
//! accept one operand with a single element and broadcast it: the vectorized execution of
//! `reduce`/`scan` bodies runs rank-0 body ops over all lanes at once and relies on it.

use crate::float::*;
use crate::value::{canon, unsigned, Data, Tile};
use tileir_ir::{
    ComparisonOrdering, ComparisonPredicate, IntegerOverflow, NumType, RoundingMode, Signedness,
    TileElem,
};

/// An error message (the caller attaches the op and location).
pub type OpResult<T> = Result<T, String>;

fn lanes(a: usize, b: usize) -> OpResult<usize> {
    if a == b || b == 1 {
        Ok(a)
    } else if a == 1 {
        Ok(b)
    } else {
        Err(format!("operand element counts differ: {a} vs {b}"))
    }
}

fn shape_of(a: &Tile, b: &Tile) -> Vec<usize> {
    if a.len() >= b.len() {
        a.shape.clone()
    } else {
        b.shape.clone()
    }
}

#[inline]
fn at<T: Copy>(v: &[T], i: usize) -> T {
    if v.len() == 1 {
        v[0]
    } else {
        v[i]
    }
}

fn int_width(t: &Tile) -> u32 {
    t.num().bit_width()
}

/// Applies `f` to integer lanes of `a` and `b`; the result is re-canonicalized to the width.
pub fn int_binary(
    a: &Tile,
    b: &Tile,
    f: impl Fn(i64, i64, u32) -> OpResult<i64>,
) -> OpResult<Tile> {
    let (Data::Int(x), Data::Int(y)) = (&a.data, &b.data) else {
        return Err("expected integer tiles".into());
    };
    let n = lanes(x.len(), y.len())?;
    let w = int_width(a);
    let mut out = Vec::with_capacity(n);
    if x.len() == y.len() {
        for (&p, &q) in x.iter().zip(y) {
            out.push(canon(w, f(p, q, w)?));
        }
    } else {
        for i in 0..n {
            out.push(canon(w, f(at(x, i), at(y, i), w)?));
        }
    }
    Ok(Tile {
        shape: shape_of(a, b),
        elem: a.elem,
        data: Data::Int(out),
    })
}

/// Applies `f` to integer lanes of `a`.
pub fn int_unary(a: &Tile, f: impl Fn(i64, u32) -> i64) -> OpResult<Tile> {
    let Data::Int(x) = &a.data else {
        return Err("expected an integer tile".into());
    };
    let w = int_width(a);
    Ok(Tile {
        shape: a.shape.clone(),
        elem: a.elem,
        data: Data::Int(x.iter().map(|&p| canon(w, f(p, w))).collect()),
    })
}

/// Integer binary ops that need no attributes beyond signedness.
#[derive(Copy, Clone, Debug)]
pub enum IntOp {
    /// addi
    Add,
    /// subi
    Sub,
    /// muli
    Mul,
    /// mulhii (unsigned high half)
    MulHi,
    /// andi
    And,
    /// ori
    Or,
    /// xori
    Xor,
    /// shli (amount unsigned; amounts ≥ width give 0)
    Shl,
    /// shri (signed: arithmetic, unsigned: logical; amounts ≥ width saturate)
    Shr(Signedness),
    /// maxi
    Max(Signedness),
    /// mini
    Min(Signedness),
    /// remi (truncated; ÷0 is UB and reported)
    Rem(Signedness),
    /// divi with rounding (÷0 and MIN/−1 are UB and reported)
    Div(Signedness, RoundingMode),
}

/// Evaluates an integer binary op (wrapping; overflow flags are promises, not checked).
pub fn int_op(op: IntOp, a: &Tile, b: &Tile, _overflow: IntegerOverflow) -> OpResult<Tile> {
    int_binary(a, b, |x, y, w| {
        let ux = unsigned(w, x);
        let uy = unsigned(w, y);
        Ok(match op {
            IntOp::Add => x.wrapping_add(y),
            IntOp::Sub => x.wrapping_sub(y),
            IntOp::Mul => x.wrapping_mul(y),
            IntOp::MulHi => ((ux as u128 * uy as u128) >> w) as i64,
            IntOp::And => x & y,
            IntOp::Or => x | y,
            IntOp::Xor => x ^ y,
            IntOp::Shl => {
                if uy >= w as u64 {
                    0
                } else {
                    ((ux) << uy) as i64
                }
            }
            IntOp::Shr(Signedness::Signed) => x >> uy.min(63),
            IntOp::Shr(Signedness::Unsigned) => {
                if uy >= w as u64 {
                    0
                } else {
                    (ux >> uy) as i64
                }
            }
            IntOp::Max(Signedness::Signed) => x.max(y),
            IntOp::Min(Signedness::Signed) => x.min(y),
            IntOp::Max(Signedness::Unsigned) => ux.max(uy) as i64,
            IntOp::Min(Signedness::Unsigned) => ux.min(uy) as i64,
            IntOp::Rem(s) => {
                if uy == 0 {
                    return Err("integer remainder by zero (undefined behavior)".into());
                }
                match s {
                    Signedness::Signed => x.wrapping_rem(y),
                    Signedness::Unsigned => (ux % uy) as i64,
                }
            }
            IntOp::Div(s, rm) => {
                if uy == 0 {
                    return Err("integer division by zero (undefined behavior)".into());
                }
                match s {
                    Signedness::Signed => {
                        let min = canon(w, 1i64 << (w - 1).min(63));
                        if x == min && y == -1 {
                            return Err("signed division overflow (minimum value divided by -1, undefined behavior)".into());
                        }
                        let q = x / y;
                        let r = x % y;
                        match rm {
                            RoundingMode::NegativeInf if r != 0 && ((r < 0) != (y < 0)) => q - 1,
                            RoundingMode::PositiveInf if r != 0 && ((r < 0) == (y < 0)) => q + 1,
                            _ => q,
                        }
                    }
                    Signedness::Unsigned => {
                        let q = ux / uy;
                        match rm {
                            RoundingMode::PositiveInf if ux % uy != 0 => (q + 1) as i64,
                            _ => q as i64,
                        }
                    }
                }
            }
        })
    })
}

/// `cmpi`: an i1 tile (true = −1 in canonical form).
pub fn cmpi(a: &Tile, b: &Tile, pred: ComparisonPredicate, s: Signedness) -> OpResult<Tile> {
    let (Data::Int(x), Data::Int(y)) = (&a.data, &b.data) else {
        return Err("expected integer tiles".into());
    };
    let n = lanes(x.len(), y.len())?;
    let w = int_width(a);
    let out = (0..n)
        .map(|i| {
            let (p, q) = (at(x, i), at(y, i));
            let ord = match s {
                Signedness::Signed => p.cmp(&q),
                Signedness::Unsigned => unsigned(w, p).cmp(&unsigned(w, q)),
            };
            -(cmp_holds(pred, ord) as i64)
        })
        .collect();
    Ok(Tile {
        shape: shape_of(a, b),
        elem: TileElem::Num(NumType::I1),
        data: Data::Int(out),
    })
}

fn cmp_holds(pred: ComparisonPredicate, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match pred {
        ComparisonPredicate::Equal => ord == Equal,
        ComparisonPredicate::NotEqual => ord != Equal,
        ComparisonPredicate::LessThan => ord == Less,
        ComparisonPredicate::LessThanOrEqual => ord != Greater,
        ComparisonPredicate::GreaterThan => ord == Greater,
        ComparisonPredicate::GreaterThanOrEqual => ord != Less,
    }
}

/// `cmpf`: ordered predicates are false when either side is NaN, unordered ones true.
pub fn cmpf(
    a: &Tile,
    b: &Tile,
    pred: ComparisonPredicate,
    ordering: ComparisonOrdering,
) -> OpResult<Tile> {
    let cmp = |p: f64, q: f64| -> i64 {
        let r = match p.partial_cmp(&q) {
            None => ordering == ComparisonOrdering::Unordered,
            Some(ord) => cmp_holds(pred, ord),
        };
        -(r as i64)
    };
    let out: Vec<i64> = match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y)) => {
            let n = lanes(x.len(), y.len())?;
            (0..n)
                .map(|i| cmp(at(x, i) as f64, at(y, i) as f64))
                .collect()
        }
        (Data::F64(x), Data::F64(y)) => {
            let n = lanes(x.len(), y.len())?;
            (0..n).map(|i| cmp(at(x, i), at(y, i))).collect()
        }
        _ => return Err("expected float tiles of one type".into()),
    };
    Ok(Tile {
        shape: shape_of(a, b),
        elem: TileElem::Num(NumType::I1),
        data: Data::Int(out),
    })
}

/// Float binary arithmetic ops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FBin {
    /// addf
    Add,
    /// subf
    Sub,
    /// mulf
    Mul,
    /// divf
    Div,
}

/// Exactly rounded `a op b` for operands of a format of at most 24 bits: the result is exact
/// or rounded to odd in `f64` (see [`crate::float`]).
fn exact_odd(op: FBin, a: f64, b: f64) -> f64 {
    match op {
        FBin::Add => add_odd(a, b),
        FBin::Sub => add_odd(a, -b),
        FBin::Mul => a * b,
        FBin::Div => div_odd(a, b),
    }
}

/// IEEE 754 §6.3: an exact zero sum of operands that are not both +0 (x + (−x), +0 + −0) is
/// −0 when rounding toward −inf, +0 otherwise.
fn exact_zero_sign(a: f64, b: f64, s: f64, e: f64, rm: RoundingMode) -> f64 {
    if s == 0.0
        && e == 0.0
        && rm == RoundingMode::NegativeInf
        && (!(a == 0.0 && b == 0.0) || a.is_sign_negative() || b.is_sign_negative())
    {
        -0.0
    } else {
        s
    }
}

fn f64_directed(op: FBin, a: f64, b: f64, rm: RoundingMode) -> f64 {
    let finite = a.is_finite() && b.is_finite();
    match op {
        FBin::Add | FBin::Sub => {
            let b = if op == FBin::Sub { -b } else { b };
            let (s, e) = two_sum(a, b);
            let s = exact_zero_sign(a, b, s, e, rm);
            directed_f64(s, e, rm, finite)
        }
        FBin::Mul => {
            let r = a * b;
            let e = if r.is_finite() { a.mul_add(b, -r) } else { 0.0 };
            directed_f64(r, e, rm, finite)
        }
        FBin::Div => {
            let q = a / b;
            let resid = if q.is_finite() && q != 0.0 {
                (-q).mul_add(b, a) * b.signum()
            } else if q == 0.0 && a != 0.0 && b.is_finite() {
                a.signum() * b.signum()
            } else {
                0.0
            };
            directed_f64(q, resid, rm, finite && b != 0.0)
        }
    }
}

/// `addf`/`subf`/`mulf`/`divf` in the tile's precision with rounding `rm` and flush-to-zero
/// (f32 only: subnormal inputs and results become zeros of the same sign).
pub fn float_binary(op: FBin, a: &Tile, b: &Tile, rm: RoundingMode, ftz: bool) -> OpResult<Tile> {
    let t = a.num();
    let shape = shape_of(a, b);
    let data = match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y))
            if op == FBin::Div
                && t == NumType::F32
                && matches!(rm, RoundingMode::Approx | RoundingMode::Full) =>
        {
            // The fast division sequences (see `approx`), not a rounding of the quotient.
            let n = lanes(x.len(), y.len())?;
            let f = if rm == RoundingMode::Approx {
                crate::approx::div_approx
            } else {
                crate::approx::div_full
            };
            Data::F32((0..n).map(|i| f(at(x, i), at(y, i), ftz)).collect())
        }
        (Data::F32(x), Data::F32(y)) => {
            let n = lanes(x.len(), y.len())?;
            let mut out = Vec::with_capacity(n);
            let nearest = is_nearest(rm);
            let f = |p: f32, q: f32| -> f32 {
                let (p, q) = if ftz { (ftz32(p), ftz32(q)) } else { (p, q) };
                let r = if nearest {
                    let r = match op {
                        FBin::Add => p + q,
                        FBin::Sub => p - q,
                        FBin::Mul => p * q,
                        FBin::Div => p / q,
                    };
                    // f32 has 24 >= 2p+2 bits for f16/bf16, so rounding the f32 result again
                    // is the correctly rounded result of the exact operation.
                    round_f32_rn(t, r)
                } else {
                    let (pd, qd) = (
                        p as f64,
                        if op == FBin::Sub {
                            -(q as f64)
                        } else {
                            q as f64
                        },
                    );
                    let mut x = exact_odd(op, p as f64, q as f64);
                    if matches!(op, FBin::Add | FBin::Sub) {
                        x = exact_zero_sign(pd, qd, x, 0.0, rm);
                    }
                    round_f64_to_f32_storage(t, x, rm)
                };
                if ftz {
                    ftz32(r)
                } else {
                    r
                }
            };
            if x.len() == y.len() && nearest && !ftz && t == NumType::F32 {
                // The hot path (plain f32 arithmetic) as a straight loop the compiler vectorizes.
                match op {
                    FBin::Add => out.extend(x.iter().zip(y).map(|(p, q)| p + q)),
                    FBin::Sub => out.extend(x.iter().zip(y).map(|(p, q)| p - q)),
                    FBin::Mul => out.extend(x.iter().zip(y).map(|(p, q)| p * q)),
                    FBin::Div => out.extend(x.iter().zip(y).map(|(p, q)| p / q)),
                }
            } else {
                for i in 0..n {
                    out.push(f(at(x, i), at(y, i)));
                }
            }
            Data::F32(out)
        }
        (Data::F64(x), Data::F64(y)) => {
            let n = lanes(x.len(), y.len())?;
            let nearest = is_nearest(rm);
            Data::F64(
                (0..n)
                    .map(|i| {
                        let (p, q) = (at(x, i), at(y, i));
                        if nearest {
                            match op {
                                FBin::Add => p + q,
                                FBin::Sub => p - q,
                                FBin::Mul => p * q,
                                FBin::Div => p / q,
                            }
                        } else {
                            f64_directed(op, p, q, rm)
                        }
                    })
                    .collect(),
            )
        }
        _ => return Err("expected float tiles of one type".into()),
    };
    Ok(Tile {
        shape,
        elem: a.elem,
        data,
    })
}

/// `fma`: `a*b + c` with a single rounding.
pub fn fma(a: &Tile, b: &Tile, c: &Tile, rm: RoundingMode, ftz: bool) -> OpResult<Tile> {
    let t = a.num();
    let n = lanes(lanes(a.len(), b.len())?, c.len())?;
    let shape = if a.len() == n {
        a.shape.clone()
    } else if b.len() == n {
        b.shape.clone()
    } else {
        c.shape.clone()
    };
    let data = match (&a.data, &b.data, &c.data) {
        (Data::F32(x), Data::F32(y), Data::F32(z)) => Data::F32(
            (0..n)
                .map(|i| {
                    let (p, q, r) = (at(x, i), at(y, i), at(z, i));
                    let (p, q, r) = if ftz {
                        (ftz32(p), ftz32(q), ftz32(r))
                    } else {
                        (p, q, r)
                    };
                    let v = if t == NumType::F32 && is_nearest(rm) {
                        p.mul_add(q, r)
                    } else {
                        // The product of two <=24-bit values is exact in f64.
                        round_f64_to_f32_storage(t, add_odd(p as f64 * q as f64, r as f64), rm)
                    };
                    if ftz {
                        ftz32(v)
                    } else {
                        v
                    }
                })
                .collect(),
        ),
        (Data::F64(x), Data::F64(y), Data::F64(z)) => Data::F64(
            (0..n)
                .map(|i| {
                    let (p, q, r) = (at(x, i), at(y, i), at(z, i));
                    let v = p.mul_add(q, r);
                    if is_nearest(rm)
                        || !(v.is_finite() || p.is_finite() && q.is_finite() && r.is_finite())
                    {
                        return v;
                    }
                    let finite = p.is_finite() && q.is_finite() && r.is_finite();
                    let resid = if v.is_finite() {
                        let hi = p * q;
                        let lo = if hi.is_finite() {
                            p.mul_add(q, -hi)
                        } else {
                            0.0
                        };
                        exact_sum_sign(&[hi, lo, r, -v])
                    } else {
                        0.0
                    };
                    directed_f64(v, resid, rm, finite)
                })
                .collect(),
        ),
        _ => return Err("expected float tiles of one type".into()),
    };
    Ok(Tile {
        shape,
        elem: a.elem,
        data,
    })
}

/// `maxf`/`minf`. With `propagate_nan` a NaN operand gives NaN (IEEE 754-2019 maximum /
/// minimum); otherwise NaN only when both are NaN (maximumNumber). −0 < +0 in both. A NaN
/// result is the type's canonical quiet NaN.
pub fn max_min_f(
    a: &Tile,
    b: &Tile,
    is_max: bool,
    propagate_nan: bool,
    ftz: bool,
) -> OpResult<Tile> {
    let t = a.num();
    fn pick<F: Copy + PartialOrd + Into<f64>>(p: F, q: F, is_max: bool, prop: bool, nan: F) -> F {
        let (pn, qn) = (p.into().is_nan(), q.into().is_nan());
        if pn || qn {
            if prop || (pn && qn) {
                return nan;
            }
            return if pn { q } else { p };
        }
        let (pf, qf): (f64, f64) = (p.into(), q.into());
        if pf == qf {
            // Only ±0 compare equal with different bits: order them by sign.
            let p_neg = pf.is_sign_negative();
            let q_neg = qf.is_sign_negative();
            return if is_max == (p_neg && !q_neg) { q } else { p };
        }
        if (pf > qf) == is_max {
            p
        } else {
            q
        }
    }
    let shape = shape_of(a, b);
    let data = match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y)) => {
            let n = lanes(x.len(), y.len())?;
            let nan = canonical_nan_f32(t);
            Data::F32(
                (0..n)
                    .map(|i| {
                        let (p, q) = (at(x, i), at(y, i));
                        let (p, q) = if ftz { (ftz32(p), ftz32(q)) } else { (p, q) };
                        pick(p, q, is_max, propagate_nan, nan)
                    })
                    .collect(),
            )
        }
        (Data::F64(x), Data::F64(y)) => {
            let n = lanes(x.len(), y.len())?;
            Data::F64(
                (0..n)
                    .map(|i| pick(at(x, i), at(y, i), is_max, propagate_nan, f64::NAN))
                    .collect(),
            )
        }
        _ => return Err("expected float tiles of one type".into()),
    };
    Ok(Tile {
        shape,
        elem: a.elem,
        data,
    })
}

/// `remf`: `x − trunc(x/y)·y` (the C `fmod`, exact in every format).
pub fn remf(a: &Tile, b: &Tile) -> OpResult<Tile> {
    let shape = shape_of(a, b);
    let data = match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y)) => {
            let n = lanes(x.len(), y.len())?;
            Data::F32((0..n).map(|i| at(x, i) % at(y, i)).collect())
        }
        (Data::F64(x), Data::F64(y)) => {
            let n = lanes(x.len(), y.len())?;
            Data::F64((0..n).map(|i| at(x, i) % at(y, i)).collect())
        }
        _ => return Err("expected float tiles of one type".into()),
    };
    Ok(Tile {
        shape,
        elem: a.elem,
        data,
    })
}

/// Unary math functions, computed in `f64` and rounded once to the tile's type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Math {
    /// absf (exact, sign bit cleared)
    Abs,
    /// negf (exact, sign bit flipped)
    Neg,
    /// ceil (exact)
    Ceil,
    /// floor (exact)
    Floor,
    /// cos
    Cos,
    /// cosh
    CosH,
    /// sin
    Sin,
    /// sinh
    SinH,
    /// tan
    Tan,
    /// tanh
    TanH,
    /// exp
    Exp,
    /// exp2
    Exp2,
    /// log
    Log,
    /// log2
    Log2,
    /// rsqrt
    Rsqrt,
}

fn math_f64(f: Math, x: f64) -> f64 {
    match f {
        Math::Abs => x.abs(),
        Math::Neg => -x,
        Math::Ceil => x.ceil(),
        Math::Floor => x.floor(),
        Math::Cos => x.cos(),
        Math::CosH => x.cosh(),
        Math::Sin => x.sin(),
        Math::SinH => x.sinh(),
        Math::Tan => x.tan(),
        Math::TanH => x.tanh(),
        Math::Exp => x.exp(),
        Math::Exp2 => x.exp2(),
        Math::Log => x.ln(),
        Math::Log2 => x.log2(),
        Math::Rsqrt => 1.0 / x.sqrt(),
    }
}

/// Applies a unary math function. For types narrower than f64 the function is evaluated in
/// `f64` (the platform libm, within 1 ulp of f64) and rounded once to the type (nearest even),
/// so results are within 0.5 ulp + 2^-29 ulp of the exact value for f32 and correctly rounded
/// except in rare near-tie cases for f16/bf16; f64 results carry the libm error (≤ 1 ulp).
/// `rsqrt` for f32 is computed as `1/sqrt` in f64 (two f64 roundings, then one to f32).
pub fn math(f: Math, a: &Tile, ftz: bool) -> OpResult<Tile> {
    let t = a.num();
    let data = match &a.data {
        Data::F32(x) => Data::F32(
            x.iter()
                .map(|&p| match f {
                    // Sign operations must keep NaN payloads and work on every format.
                    Math::Abs => f32::from_bits(p.to_bits() & 0x7fff_ffff),
                    Math::Neg => f32::from_bits(p.to_bits() ^ 0x8000_0000),
                    _ => {
                        let p = if ftz { ftz32(p) } else { p };
                        let r = round_f64_to_f32_storage(
                            t,
                            math_f64(f, p as f64),
                            RoundingMode::NearestEven,
                        );
                        if ftz {
                            ftz32(r)
                        } else {
                            r
                        }
                    }
                })
                .collect(),
        ),
        Data::F64(x) => Data::F64(
            x.iter()
                .map(|&p| match f {
                    Math::Abs => f64::from_bits(p.to_bits() & !(1u64 << 63)),
                    Math::Neg => f64::from_bits(p.to_bits() ^ (1u64 << 63)),
                    _ => math_f64(f, p),
                })
                .collect(),
        ),
        _ => return Err("expected a float tile".into()),
    };
    Ok(Tile {
        shape: a.shape.clone(),
        elem: a.elem,
        data,
    })
}

/// `sqrt` with rounding mode and ftz: correctly rounded in the IEEE modes; f32 `approx` is
/// the fast sequence of [`crate::approx::sqrt_approx`].
pub fn sqrt(a: &Tile, rm: RoundingMode, ftz: bool) -> OpResult<Tile> {
    let t = a.num();
    let data = match &a.data {
        Data::F32(x) if rm == RoundingMode::Approx && t == NumType::F32 => Data::F32(
            x.iter()
                .map(|&p| crate::approx::sqrt_approx(p, ftz))
                .collect(),
        ),
        Data::F32(x) => Data::F32(
            x.iter()
                .map(|&p| {
                    let p = if ftz { ftz32(p) } else { p };
                    let r = if is_nearest(rm) {
                        round_f32_rn(t, p.sqrt())
                    } else {
                        round_f64_to_f32_storage(t, sqrt_odd(p as f64), rm)
                    };
                    if ftz {
                        ftz32(r)
                    } else {
                        r
                    }
                })
                .collect(),
        ),
        Data::F64(x) => Data::F64(
            x.iter()
                .map(|&p| {
                    let q = p.sqrt();
                    if is_nearest(rm) || !q.is_finite() || q == 0.0 {
                        return q;
                    }
                    directed_f64(q, (-q).mul_add(q, p), rm, true)
                })
                .collect(),
        ),
        _ => return Err("expected a float tile".into()),
    };
    Ok(Tile {
        shape: a.shape.clone(),
        elem: a.elem,
        data,
    })
}

/// Binary math functions (`pow`, `atan2`), computed in f64 and rounded once.
pub fn math2(a: &Tile, b: &Tile, f: fn(f64, f64) -> f64) -> OpResult<Tile> {
    let t = a.num();
    let shape = shape_of(a, b);
    let data = match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y)) => {
            let n = lanes(x.len(), y.len())?;
            Data::F32(
                (0..n)
                    .map(|i| {
                        round_f64_to_f32_storage(
                            t,
                            f(at(x, i) as f64, at(y, i) as f64),
                            RoundingMode::NearestEven,
                        )
                    })
                    .collect(),
            )
        }
        (Data::F64(x), Data::F64(y)) => {
            let n = lanes(x.len(), y.len())?;
            Data::F64((0..n).map(|i| f(at(x, i), at(y, i))).collect())
        }
        _ => return Err("expected float tiles of one type".into()),
    };
    Ok(Tile {
        shape,
        elem: a.elem,
        data,
    })
}

/// The exact `f64` value of element `i` of a float tile (tf32 ignores its padding bits).
fn float_value(t: &Tile, i: usize) -> f64 {
    match &t.data {
        Data::F32(v) => {
            if t.num() == NumType::TF32 {
                tf32_value(v[i]) as f64
            } else {
                v[i] as f64
            }
        }
        Data::F64(v) => v[i],
        _ => unreachable!("float tile"),
    }
}

/// `ftof`: one rounding from the exact source value to the target type.
pub fn ftof(a: &Tile, to: NumType, rm: RoundingMode) -> OpResult<Tile> {
    let n = a.len();
    let data = if to == NumType::F64 {
        Data::F64((0..n).map(|i| float_value(a, i)).collect())
    } else {
        Data::F32(
            (0..n)
                .map(|i| round_f64_to_f32_storage(to, float_value(a, i), rm))
                .collect(),
        )
    };
    Ok(Tile {
        shape: a.shape.clone(),
        elem: TileElem::Num(to),
        data,
    })
}

/// `ftoi`: rounds toward zero. NaN, infinities and out-of-range values are undefined behavior
/// upstream; here they saturate (NaN gives 0), like PTX `cvt.rzi.sat`.
pub fn ftoi(a: &Tile, to: NumType, s: Signedness) -> OpResult<Tile> {
    let w = to.bit_width();
    let data = (0..a.len())
        .map(|i| {
            let v = float_value(a, i).trunc();
            if v.is_nan() {
                return 0;
            }
            match s {
                Signedness::Signed => {
                    let lo = -(2f64.powi(w as i32 - 1));
                    let hi = 2f64.powi(w as i32 - 1) - 1.0;
                    canon(w, v.clamp(lo, hi) as i64)
                }
                Signedness::Unsigned => {
                    let hi = 2f64.powi(w as i32) - 1.0;
                    canon(w, v.clamp(0.0, hi) as u64 as i64)
                }
            }
        })
        .collect();
    Ok(Tile {
        shape: a.shape.clone(),
        elem: TileElem::Num(to),
        data: Data::Int(data),
    })
}

/// An integer as an `f64` rounded to odd (exact below 2^53).
fn int_to_f64_odd(v: i128) -> f64 {
    let f = v as f64;
    let back = if f.abs() >= 1.7e38 {
        return f;
    } else {
        f as i128
    };
    to_odd(f, (v - back).signum() as f64)
}

/// `itof`: one rounding from the exact integer to the target type.
pub fn itof(a: &Tile, to: NumType, s: Signedness, rm: RoundingMode) -> OpResult<Tile> {
    let w = int_width(a);
    let x = a.ints();
    let value = |p: i64| -> i128 {
        match s {
            Signedness::Signed => p as i128,
            Signedness::Unsigned => unsigned(w, p) as i128,
        }
    };
    let data = if to == NumType::F64 {
        Data::F64(
            x.iter()
                .map(|&p| {
                    let v = value(p);
                    let r = v as f64;
                    if is_nearest(rm) {
                        r
                    } else {
                        directed_f64(r, (v - r as i128).signum() as f64, rm, true)
                    }
                })
                .collect(),
        )
    } else {
        Data::F32(
            x.iter()
                .map(|&p| round_f64_to_f32_storage(to, int_to_f64_odd(value(p)), rm))
                .collect(),
        )
    };
    Ok(Tile {
        shape: a.shape.clone(),
        elem: TileElem::Num(to),
        data,
    })
}

/// `exti`: sign or zero extension to a wider integer type.
pub fn exti(a: &Tile, to: NumType, s: Signedness) -> Tile {
    let w = int_width(a);
    let tw = to.bit_width();
    let data = a
        .ints()
        .iter()
        .map(|&p| match s {
            Signedness::Signed => p,
            Signedness::Unsigned => canon(tw, unsigned(w, p) as i64),
        })
        .collect();
    Tile {
        shape: a.shape.clone(),
        elem: TileElem::Num(to),
        data: Data::Int(data),
    }
}

/// `trunci`: keeps the low bits.
pub fn trunci(a: &Tile, to: NumType) -> Tile {
    let tw = to.bit_width();
    Tile {
        shape: a.shape.clone(),
        elem: TileElem::Num(to),
        data: Data::Int(a.ints().iter().map(|&p| canon(tw, p)).collect()),
    }
}

/// `bitcast` between number types of equal width (bit patterns kept).
pub fn bitcast(a: &Tile, to: NumType) -> Tile {
    Tile::from_bits(a.shape.clone(), TileElem::Num(to), a.to_bits())
}

/// `select`: element-wise choice by an i1 condition.
pub fn select(c: &Tile, a: &Tile, b: &Tile) -> OpResult<Tile> {
    let cond = c.ints();
    let n = lanes(lanes(cond.len(), a.len())?, b.len())?;
    let shape = if a.len() == n {
        a.shape.clone()
    } else if b.len() == n {
        b.shape.clone()
    } else {
        c.shape.clone()
    };
    macro_rules! sel {
        ($x:expr, $y:expr, $ctor:path) => {
            $ctor(
                (0..n)
                    .map(|i| {
                        if at(cond, i) != 0 {
                            at($x, i)
                        } else {
                            at($y, i)
                        }
                    })
                    .collect(),
            )
        };
    }
    let data = match (&a.data, &b.data) {
        (Data::Int(x), Data::Int(y)) => sel!(x, y, Data::Int),
        (Data::F32(x), Data::F32(y)) => sel!(x, y, Data::F32),
        (Data::F64(x), Data::F64(y)) => sel!(x, y, Data::F64),
        (Data::Ptr(x), Data::Ptr(y)) => sel!(x, y, Data::Ptr),
        _ => return Err("select operands differ in type".into()),
    };
    Ok(Tile {
        shape,
        elem: a.elem,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i32s(v: &[i64]) -> Tile {
        Tile {
            shape: vec![v.len()],
            elem: TileElem::Num(NumType::I32),
            data: Data::Int(v.to_vec()),
        }
    }

    #[test]
    fn division_rounding_modes() {
        let a = i32s(&[7, -7, 7, -7, 6]);
        let b = i32s(&[2, 2, -2, -2, 3]);
        let run = |rm| {
            int_op(
                IntOp::Div(Signedness::Signed, rm),
                &a,
                &b,
                IntegerOverflow::None,
            )
            .unwrap()
            .ints()
            .to_vec()
        };
        assert_eq!(run(RoundingMode::Zero), vec![3, -3, -3, 3, 2]);
        assert_eq!(run(RoundingMode::NegativeInf), vec![3, -4, -4, 3, 2]);
        assert_eq!(run(RoundingMode::PositiveInf), vec![4, -3, -3, 4, 2]);
        let rem = int_op(
            IntOp::Rem(Signedness::Signed),
            &a,
            &b,
            IntegerOverflow::None,
        )
        .unwrap();
        assert_eq!(rem.ints(), &[1, -1, 1, -1, 0]);
        assert!(int_op(
            IntOp::Div(Signedness::Signed, RoundingMode::Zero),
            &a,
            &i32s(&[0]),
            IntegerOverflow::None
        )
        .is_err());
    }

    #[test]
    fn max_respects_signed_zero_and_nan_modes() {
        let f = |v: &[f32]| Tile {
            shape: vec![v.len()],
            elem: TileElem::Num(NumType::F32),
            data: Data::F32(v.to_vec()),
        };
        let a = f(&[-0.0, f32::NAN, 1.0]);
        let b = f(&[0.0, 2.0, f32::NAN]);
        let r = max_min_f(&a, &b, true, false, false).unwrap();
        let Data::F32(v) = r.data else { panic!() };
        assert!(v[0] == 0.0 && v[0].is_sign_positive());
        assert_eq!(&v[1..], &[2.0, 1.0]);
        let r = max_min_f(&a, &b, false, true, false).unwrap();
        let Data::F32(v) = r.data else { panic!() };
        assert!(v[0] == 0.0 && v[0].is_sign_negative());
        assert!(v[1].is_nan() && v[2].is_nan());
    }
}
