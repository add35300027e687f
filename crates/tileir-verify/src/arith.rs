//! Per-op rules of cuda_tile's arithmetic groups (reference §3.1–3.4): integer, float,
//! math and conversion ops. They run after [`crate::ods`], so operand counts, element
//! classes and same-type/same-shape traits already hold; what is left is what NVIDIA's
//! hand-written verifiers check: rounding-mode sets per op, `flush_to_zero` and `approx` /
//! `full` only on f32, overflow flags, widening/narrowing direction and bit widths.
//! Messages are NVIDIA's where the conformance suite quotes them.

use crate::types::{mlir_value_type, num_elem};
use crate::Ctx;
use tileir_ir::{
    CtOp, CudaTileOp, FloatArith, IntegerOverflow, NumType, OpId, RoundingMode, Signedness,
};

use RoundingMode as R;

/// The IEEE rounding modes of `addf`, `subf`, `mulf`, `fma`.
const IEEE: &[RoundingMode] = &[R::NearestEven, R::Zero, R::NegativeInf, R::PositiveInf];

/// Runs the rules of the arithmetic op `op`; reports the first violation.
pub(crate) fn verify(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    if let Err(message) = check(cx, op, kind) {
        cx.op_error(op, message);
    }
}

/// `[a, b, c]` as NVIDIA lists allowed rounding modes.
fn mode_list(modes: &[RoundingMode]) -> String {
    modes
        .iter()
        .map(|m| m.keyword())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rounding mode must be one of `allowed`.
fn rounding_in(rounding: RoundingMode, allowed: &[RoundingMode]) -> Result<(), String> {
    if allowed.contains(&rounding) {
        Ok(())
    } else {
        Err(format!(
            "invalid rounding mode specified, expect one of [{}]",
            mode_list(allowed)
        ))
    }
}

/// A float modifier (`flush_to_zero`, `approx`, `full`) is only defined for f32.
fn f32_only(modifier: &str, present: bool, elem: Option<NumType>) -> Result<(), String> {
    match elem {
        Some(e) if present && e != NumType::F32 => Err(format!(
            "{modifier} modifier only supported for f32 data type, but got: '{e}'"
        )),
        _ => Ok(()),
    }
}

/// The rounding-mode / flush-to-zero rules of element-wise float arithmetic, shared with
/// the nv_tileaa forms of `addf`/`subf`/`mulf`: IEEE rounding modes only, ftz only on f32.
pub(crate) fn float_arith_rules(f: &FloatArith, elem: Option<NumType>) -> Result<(), String> {
    rounding_in(f.rounding, IEEE)?;
    f32_only("flush_to_zero", f.flush_to_zero, elem)
}

/// Rules of nv_tileaa's element-wise float arithmetic (which has no schema): two operands
/// and a result of one float type, then [`float_arith_rules`].
pub(crate) fn verify_float_arith(cx: &mut Ctx<'_>, op: OpId, f: &FloatArith) {
    if !crate::counts(cx, op, 2, 1) {
        return;
    }
    let m = cx.m;
    let d = &m.ops[op];
    let (a, b, r) = (d.operands[0], d.operands[1], d.results[0]);
    if m.value_type(a) != m.value_type(b) || m.value_type(a) != m.value_type(r) {
        cx.op_error(
            op,
            format!(
                "failed to verify that all of {{lhs, rhs, result}} have same type, got {}, {} -> {}",
                cx.vty(a),
                cx.vty(b),
                cx.vty(r)
            ),
        );
        return;
    }
    let elem = match m.types.get(m.value_type(a)) {
        tileir_ir::Type::Tile {
            elem: tileir_ir::TileElem::Num(n),
            ..
        }
        | tileir_ir::Type::Scalar(n)
            if n.is_base_float() =>
        {
            *n
        }
        _ => {
            cx.op_error(
                op,
                format!(
                    "operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '{}'",
                    mlir_value_type(m, a)
                ),
            );
            return;
        }
    };
    if let Err(message) = float_arith_rules(f, Some(elem)) {
        cx.op_error(op, message);
    }
}

fn check(cx: &Ctx<'_>, op: OpId, kind: &CudaTileOp) -> Result<(), String> {
    let m = cx.m;
    let d = &m.ops[op];
    // ODS guarantees the counts each op relies on below.
    let first = d.operands.first().copied();
    let elem = first.and_then(|v| num_elem(m, v));
    let rounding = |name: &str| kind.enum_attr::<RoundingMode>(name);
    let ftz = kind.flag("flush_to_zero");
    match kind.op {
        CtOp::AddF | CtOp::SubF | CtOp::MulF | CtOp::Fma => float_arith_rules(
            &FloatArith {
                rounding: rounding("rounding_mode").unwrap_or(R::NearestEven),
                flush_to_zero: ftz,
            },
            elem,
        ),
        CtOp::DivF => {
            let mode = rounding("rounding_mode").unwrap_or(R::NearestEven);
            rounding_in(
                mode,
                &[
                    R::NearestEven,
                    R::Zero,
                    R::NegativeInf,
                    R::PositiveInf,
                    R::Approx,
                    R::Full,
                ],
            )?;
            // One enum value: approx and full are exclusive by construction.
            f32_only("flush_to_zero", ftz, elem)?;
            f32_only("approx", mode == R::Approx, elem)?;
            f32_only("full", mode == R::Full, elem)
        }
        CtOp::Sqrt => {
            let mode = rounding("rounding_mode").unwrap_or(R::NearestEven);
            rounding_in(
                mode,
                &[
                    R::NearestEven,
                    R::Zero,
                    R::NegativeInf,
                    R::PositiveInf,
                    R::Approx,
                ],
            )?;
            f32_only("flush_to_zero", ftz, elem)?;
            f32_only("approx", mode == R::Approx, elem)
        }
        CtOp::TanH | CtOp::Exp => {
            let mode = rounding("rounding_mode").unwrap_or(R::Full);
            rounding_in(mode, &[R::Approx, R::Full])?;
            f32_only("approx", mode == R::Approx, elem)
        }
        CtOp::Exp2 | CtOp::Rsqrt | CtOp::MaxF | CtOp::MinF => f32_only("flush_to_zero", ftz, elem),
        CtOp::NegI => {
            if kind.enum_attr::<IntegerOverflow>("overflow")
                == Some(IntegerOverflow::NoUnsignedWrap)
            {
                // negi has signed semantics: an unsigned-wrap promise is meaningless.
                return Err("'no_unsigned_wrap' overflow flag is not supported".into());
            }
            Ok(())
        }
        CtOp::DivI => {
            let mode = rounding("rounding").unwrap_or(R::Zero);
            rounding_in(mode, &[R::Zero, R::NegativeInf, R::PositiveInf])?;
            if mode == R::NegativeInf
                && kind.enum_attr::<Signedness>("signedness") == Some(Signedness::Unsigned)
            {
                return Err(
                    "rounding mode 'negative_inf' is not allowed with 'unsigned' flag".into(),
                );
            }
            Ok(())
        }
        CtOp::ExtI | CtOp::TruncI => {
            let (Some(from), Some(to)) = (elem, d.results.first().and_then(|&r| num_elem(m, r)))
            else {
                return Ok(());
            };
            if kind.op == CtOp::ExtI && to.bit_width() <= from.bit_width() {
                return Err("extending to smaller or identical integer".into());
            }
            if kind.op == CtOp::TruncI && to.bit_width() >= from.bit_width() {
                return Err("truncating to larger or identical integer".into());
            }
            Ok(())
        }
        CtOp::FToF => {
            let (Some(src), Some(&res)) = (first, d.results.first()) else {
                return Ok(());
            };
            if m.value_type(src) == m.value_type(res) {
                return Err("converting tiles must not be a no-op".into());
            }
            let mode = rounding("rounding_mode").unwrap_or(R::NearestEven);
            if num_elem(m, res) == Some(NumType::F8E8M0FNU) {
                // The e8m0 scale format has no mantissa: only directed roundings make sense.
                if !matches!(mode, R::Zero | R::PositiveInf) {
                    return Err("invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and 'positive_inf' are supported".into());
                }
            } else if mode != R::NearestEven {
                return Err(
                    "invalid rounding mode specified. Only 'nearest_even' is supported"
                        .into(),
                );
            }
            Ok(())
        }
        CtOp::FToI => {
            if rounding("rounding_mode").unwrap_or(R::NearestIntToZero) != R::NearestIntToZero {
                return Err(
                    "invalid rounding mode specified. Only 'nearest_int_to_zero' is supported"
                        .into(),
                );
            }
            Ok(())
        }
        CtOp::IToF => {
            if rounding("rounding_mode").unwrap_or(R::NearestEven) != R::NearestEven {
                return Err(
                    "invalid rounding mode specified. Only 'nearest_even' is supported".into(),
                );
            }
            if d.results.first().and_then(|&r| num_elem(m, r)) == Some(NumType::F8E8M0FNU) {
                // The e8m0 scale format has no integer meaning; NVIDIA points users at a
                // two-step conversion.
                return Err(
                    "integer to f8E8M0FNU conversion is not supported, please first convert to another float type".into(),
                );
            }
            Ok(())
        }
        CtOp::Bitcast => {
            let (Some(src), Some(&res)) = (first, d.results.first()) else {
                return Ok(());
            };
            let (Some(a), Some(b)) = (num_elem(m, src), num_elem(m, res)) else {
                return Ok(());
            };
            if a.bit_width() != b.bit_width() {
                return Err(format!(
                    "types must be equal width, cannot convert '{}' of width {} to type '{}' of width {}",
                    mlir_value_type(m, src),
                    a.bit_width(),
                    mlir_value_type(m, res),
                    b.bit_width()
                ));
            }
            Ok(())
        }
        // Only ODS constraints and traits (checked before) apply to these.
        CtOp::AbsI
        | CtOp::AddI
        | CtOp::SubI
        | CtOp::MulI
        | CtOp::MulHiI
        | CtOp::RemI
        | CtOp::MaxI
        | CtOp::MinI
        | CtOp::ShlI
        | CtOp::ShrI
        | CtOp::AndI
        | CtOp::OrI
        | CtOp::XOrI
        | CtOp::CmpI
        | CtOp::AbsF
        | CtOp::RemF
        | CtOp::NegF
        | CtOp::CmpF
        | CtOp::Ceil
        | CtOp::Floor
        | CtOp::Cos
        | CtOp::CosH
        | CtOp::Sin
        | CtOp::SinH
        | CtOp::Tan
        | CtOp::Log
        | CtOp::Log2
        | CtOp::Pow
        | CtOp::Atan2
        | CtOp::IntToPtr
        | CtOp::PtrToInt
        | CtOp::PtrToPtr => Ok(()),
        // The dispatch sends no other op here.
        _ => Ok(()),
    }
}
