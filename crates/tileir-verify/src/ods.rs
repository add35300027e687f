//! Checks derived from the op schema, i.e. what MLIR's ODS generates for NVIDIA's op
//! definitions: operand and result counts per group (`operandSegmentSizes` included),
//! attribute presence and kinds, each value's type constraint, and the predicate traits
//! (`AllTypesMatch`, `AllShapesMatch`, `AllRanksMatch`, `AllElementTypesMatch`,
//! `SameOperandsAndResultElementType`, …) with ODS's own wording.
//!
//! Like MLIR, verification of one op stops at its first failure: later checks (and the
//! op's own rules) index operands by group and read element types the constraints
//! guarantee, so they only run on ops that pass here.

use crate::types::{mlir_value_type, shape_of, tile_of};
use crate::Ctx;
use std::ops::Range;
use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::dialect::cuda_tile::{
    Arity, AttrKind, OpSchema, Presence, TypeConstraint, ValueSpec,
};
use tileir_ir::{
    Attr, CtOp, CudaTileOp, Module, NumType, OpData, OpId, TileElem, Type, TypeId, ValueId,
};

/// Runs the ODS-style checks; reports the first failure and returns false when the op is
/// too malformed for its own rules to run.
pub(crate) fn verify(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) -> bool {
    match check(cx.m, op, kind) {
        Ok(()) => true,
        Err(message) => {
            cx.op_error(op, message);
            false
        }
    }
}

/// Operand index ranges of each operand group of `kind`, given the op's operand count,
/// or the ODS message explaining why the count cannot be split.
pub(crate) fn operand_groups(
    kind: &CudaTileOp,
    num_operands: usize,
) -> Result<Vec<Range<usize>>, String> {
    let specs = kind.schema().operands;
    if kind.schema().has(traits::SEGMENTED) {
        if kind.segments.len() != specs.len() {
            return Err(format!(
                "'operandSegmentSizes' attribute for specifying operand segments must have {} elements, but got {}",
                specs.len(),
                kind.segments.len()
            ));
        }
        let total: usize = kind.segments.iter().map(|&s| s as usize).sum();
        if total != num_operands {
            return Err(format!(
                "operand count ({num_operands}) does not match with the total size ({total}) specified in attribute 'operandSegmentSizes'"
            ));
        }
        let mut start = 0;
        let mut out = Vec::with_capacity(specs.len());
        for (spec, &size) in specs.iter().zip(kind.segments.iter()) {
            let size = size as usize;
            match spec.arity {
                Arity::One if size != 1 => {
                    return Err(format!(
                        "operand group starting at #{start} requires 1 element, but found {size}"
                    ))
                }
                Arity::Optional if size > 1 => {
                    return Err(format!(
                    "operand group starting at #{start} requires 0 or 1 element, but found {size}"
                ))
                }
                _ => {}
            }
            out.push(start..start + size);
            start += size;
        }
        return Ok(out);
    }
    split_groups(specs, num_operands, "operand")
}

/// Splits `count` values over `specs` when at most one group is variable.
fn split_groups(
    specs: &[ValueSpec],
    count: usize,
    what: &str,
) -> Result<Vec<Range<usize>>, String> {
    let fixed = specs.iter().filter(|s| s.arity == Arity::One).count();
    let variable: Vec<&ValueSpec> = specs.iter().filter(|s| s.arity != Arity::One).collect();
    let plural = |n: usize| {
        if n == 1 {
            what.to_string()
        } else {
            format!("{what}s")
        }
    };
    match variable.as_slice() {
        [] if count != fixed => {
            return Err(match fixed {
                0 => format!("requires zero {what}s"),
                1 if what == "operand" => "requires a single operand".to_string(),
                1 => "requires one result".to_string(),
                _ => format!("expected {fixed} {}, but found {count}", plural(fixed)),
            })
        }
        [v] if count < fixed => {
            let _ = v;
            return Err(format!(
                "expected {fixed} or more {}, but found {count}",
                plural(fixed)
            ));
        }
        [v] if v.arity == Arity::Optional && count > fixed + 1 => {
            return Err(format!(
                "expected at most {} {}, but found {count}",
                fixed + 1,
                plural(fixed + 1)
            ));
        }
        [] | [_] => {}
        _ => {
            return Err(format!(
            "has several variable {what} groups but no size attribute to split its {count} {what}s"
        ))
        }
    }
    let mut start = 0;
    Ok(specs
        .iter()
        .map(|s| {
            let n = if s.arity == Arity::One {
                1
            } else {
                count - fixed
            };
            let r = start..start + n;
            start += n;
            r
        })
        .collect())
}

/// A type constraint as ODS states it: a schema constraint, or an op-specific list of
/// element types (the mma ops declare their own constraint names).
#[derive(Copy, Clone)]
enum Constraint {
    Schema(TypeConstraint),
    Elems(&'static str, &'static [NumType]),
}

const INTS: &str = "i1 or i8 or i16 or i32 or i64";
/// The number list in ODS's order, as NVIDIA's 13.3 suite quotes it (f8E8M0FNU between
/// f8E5M2 and f4E2M1FN).
const NUMBERS: &str =
    "i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN";

impl Constraint {
    /// ODS's summary of the constraint (`tile of i1 or i8 or i16 or i32 or i64 values`).
    fn description(self) -> String {
        use TypeConstraint as C;
        match self {
            Constraint::Elems(name, _) => format!("{name} values"),
            Constraint::Schema(c) => match c {
                C::IntTile => format!("tile of {INTS} values"),
                C::IntOrI4Tile => "tile of i1 or i4 or i8 or i16 or i32 or i64 values".into(),
                C::BaseFloatTile => "tile of f16 or bf16 or f32 or f64 values".into(),
                C::FloatTile => "tile of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values".into(),
                C::NumberTile => format!("tile of {NUMBERS} values"),
                C::NumberOrI4Tile => format!("tile of {NUMBERS} or i4 values"),
                C::PtrTile => "tile of Pointer type values".into(),
                C::AnyTile => "Tile type".into(),
                C::I1Tile => "tile of i1 values".into(),
                C::I8Tile => "tile of i8 values".into(),
                C::I32Tile => "tile of i32 values".into(),
                C::I64Tile => "tile of i64 values".into(),
                C::ScalarInt => format!("0D tile of {INTS} values"),
                C::ScalarI1 => "0D tile of i1 values".into(),
                C::ScalarI32 => "0D tile of i32 values".into(),
                C::ScalarPtr => "0D tile of Pointer type values".into(),
                C::TensorView => "tensor view type".into(),
                C::PartitionView => "partition view type".into(),
                C::StridedView => "strided view type".into(),
                C::GatherScatterView => "gather scatter view type".into(),
                C::TileView => "TileView instance".into(),
                C::AnyView => "TileView instance or tensor view type".into(),
                C::Token => "cuda tile token type".into(),
                C::Any => "any type".into(),
            },
        }
    }

    fn satisfied_by(self, m: &Module, ty: TypeId) -> bool {
        use TypeConstraint as C;
        let Some(t) = m.types.try_get(ty) else {
            return false;
        };
        let tile = match t {
            Type::Tile { shape, elem, .. } => Some((shape.as_slice(), *elem)),
            _ => None,
        };
        let num =
            |pred: &dyn Fn(NumType) -> bool| matches!(tile, Some((_, TileElem::Num(n))) if pred(n));
        let scalar_num = |pred: &dyn Fn(NumType) -> bool| matches!(tile, Some((s, TileElem::Num(n))) if s.is_empty() && pred(n));
        let is_int = |n: NumType| n.is_int() && n != NumType::I4;
        match self {
            Constraint::Elems(_, allowed) => num(&|n| allowed.contains(&n)),
            Constraint::Schema(c) => match c {
                C::IntTile => num(&is_int),
                C::IntOrI4Tile => num(&|n| n.is_int()),
                C::BaseFloatTile => num(&|n| n.is_base_float()),
                C::FloatTile => num(&|n| n.is_float()),
                C::NumberTile => num(&|n| n != NumType::I4),
                C::NumberOrI4Tile => num(&|_| true),
                C::PtrTile => matches!(tile, Some((_, TileElem::Ptr(_)))),
                C::AnyTile => tile.is_some(),
                C::I1Tile => num(&|n| n == NumType::I1),
                C::I8Tile => num(&|n| n == NumType::I8),
                C::I32Tile => num(&|n| n == NumType::I32),
                C::I64Tile => num(&|n| n == NumType::I64),
                C::ScalarInt => scalar_num(&is_int),
                C::ScalarI1 => scalar_num(&|n| n == NumType::I1),
                C::ScalarI32 => scalar_num(&|n| n == NumType::I32),
                C::ScalarPtr => matches!(tile, Some((s, TileElem::Ptr(_))) if s.is_empty()),
                C::TensorView => matches!(t, Type::TensorView(_)),
                C::PartitionView => matches!(t, Type::PartitionView(_)),
                C::StridedView => matches!(t, Type::StridedView(_)),
                C::GatherScatterView => matches!(t, Type::GatherScatterView(_)),
                C::TileView => matches!(
                    t,
                    Type::PartitionView(_) | Type::StridedView(_) | Type::GatherScatterView(_)
                ),
                C::AnyView => matches!(
                    t,
                    Type::TensorView(_)
                        | Type::PartitionView(_)
                        | Type::StridedView(_)
                        | Type::GatherScatterView(_)
                ),
                C::Token => matches!(t, Type::Token),
                C::Any => true,
            },
        }
    }
}

const MMAF_IN: Constraint = Constraint::Elems(
    "mmaf operand tile type of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2",
    &[
        NumType::F16,
        NumType::BF16,
        NumType::F32,
        NumType::F64,
        NumType::TF32,
        NumType::F8E4M3FN,
        NumType::F8E5M2,
    ],
);
const MMAF_ACC: Constraint = Constraint::Elems(
    "mmaf acc/result tile type of f16 or f32 or f64",
    &[NumType::F16, NumType::F32, NumType::F64],
);
const MMAI_IN: Constraint = Constraint::Elems("mmai operand tile type of i8", &[NumType::I8]);
const MMAI_ACC: Constraint = Constraint::Elems("mmai acc/result tile type of i32", &[NumType::I32]);
const SCALED_IN: Constraint = Constraint::Elems(
    "mmaf_scaled operand tile type of f8E4M3FN or f8E5M2 or f4E2M1FN",
    &[NumType::F8E4M3FN, NumType::F8E5M2, NumType::F4E2M1FN],
);
const SCALED_ACC: Constraint =
    Constraint::Elems("mmaf_scaled result tile type of f32", &[NumType::F32]);
const SCALED_SCALE: Constraint = Constraint::Elems(
    "mmaf_scaled scale tile type of f8E4M3FN or f8E8M0FNU",
    &[NumType::F8E4M3FN, NumType::F8E8M0FNU],
);

/// The constraint of operand group `group` (or result group when `result`).
fn constraint(op: CtOp, result: bool, group: usize, spec: &ValueSpec) -> Constraint {
    match (op, result, group) {
        (CtOp::MmaF, false, 0 | 1) => MMAF_IN,
        (CtOp::MmaF, false, 2) | (CtOp::MmaF, true, 0) => MMAF_ACC,
        (CtOp::MmaI, false, 0 | 1) => MMAI_IN,
        (CtOp::MmaI, false, 2) | (CtOp::MmaI, true, 0) => MMAI_ACC,
        (CtOp::MmaFScaled, false, 0 | 1) => SCALED_IN,
        (CtOp::MmaFScaled, false, 2) | (CtOp::MmaFScaled, true, 0) => SCALED_ACC,
        (CtOp::MmaFScaled, false, 3 | 4) => SCALED_SCALE,
        _ => Constraint::Schema(spec.constraint),
    }
}

/// A predicate trait over named operand/result groups.
#[derive(Copy, Clone)]
enum Pred {
    /// `AllTypesMatch`.
    SameType(&'static [&'static str]),
    /// `AllShapesMatch`.
    SameShape(&'static [&'static str]),
    /// `AllRanksMatch`.
    SameRank(&'static [&'static str]),
    /// `AllElementTypesMatch`.
    SameElem(&'static [&'static str]),
    /// cmpi/cmpf: the result is an i1 tile shaped like the operands.
    ResultI1SameShape,
    /// Native `SameOperandsAndResultElementType`.
    AllSameElem,
    /// Native `SameOperandsAndResultShape`.
    AllSameShape,
    /// Native `SameOperandsShape`.
    OperandsSameShape,
}

/// The predicate traits of `op` beyond `SAME_TYPES`, in the order ODS checks them
/// (declared predicates first, native traits after).
fn preds(op: CtOp) -> &'static [Pred] {
    use Pred::*;
    match op {
        CtOp::ExtI | CtOp::TruncI | CtOp::FToF | CtOp::FToI | CtOp::IToF => {
            &[SameShape(&["from", "to"])]
        }
        CtOp::Bitcast | CtOp::IntToPtr | CtOp::PtrToInt | CtOp::PtrToPtr => {
            &[SameShape(&["source", "result"])]
        }
        CtOp::CmpI | CtOp::CmpF => &[SameType(&["lhs", "rhs"]), ResultI1SameShape],
        CtOp::Select => &[
            SameType(&["val_if_true", "val_if_false", "result"]),
            SameShape(&["cond", "val_if_true", "val_if_false", "result"]),
        ],
        CtOp::Offset => &[SameType(&["result", "ptr"]), AllSameShape],
        CtOp::Broadcast => &[SameRank(&["source", "result"]), AllSameElem],
        CtOp::Reshape => &[AllSameElem],
        // 13.3 declares permute's rank and element predicates in ODS.
        CtOp::Permute => &[SameRank(&["source", "result"]), SameElem(&["source", "result"])],
        CtOp::Cat => &[
            SameElem(&["lhs", "rhs", "result"]),
            SameRank(&["lhs", "rhs", "result"]),
        ],
        CtOp::Extract | CtOp::Pack | CtOp::Unpack => &[SameRank(&["source", "result"])],
        CtOp::MmaF => &[
            SameElem(&["lhs", "rhs"]),
            SameRank(&["lhs", "rhs", "acc"]),
            SameType(&["acc", "result"]),
        ],
        CtOp::MmaI => &[
            SameRank(&["lhs", "rhs", "acc"]),
            SameType(&["acc", "result"]),
        ],
        CtOp::MmaFScaled => &[
            SameElem(&["lhs", "rhs"]),
            SameElem(&["lhs_scale", "rhs_scale"]),
            SameRank(&["lhs", "rhs", "acc", "lhs_scale", "rhs_scale"]),
            SameType(&["acc", "result"]),
        ],
        CtOp::AtomicRmwTko => &[SameShape(&["pointers", "arg", "result"])],
        CtOp::AtomicCasTko => &[SameShape(&["pointers", "cmp", "val", "result"])],
        CtOp::Reduce | CtOp::Scan => &[OperandsSameShape],
        _ => &[],
    }
}

/// ODS `ConfinedAttr` bounds on integer attributes: (op, attribute, minimum, how ODS's
/// summary words the bound). NVIDIA's definitions confine these to be non-negative.
const INT_MINIMUMS: &[(CtOp, &str, i64, &str)] = &[
    (CtOp::Alloca, "num_elem", 0, "whose minimum value is 0"),
    (CtOp::Alloca, "alignment", 0, "whose minimum value is 0"),
    (CtOp::Reduce, "dim", 0, "whose value is non-negative"),
    (CtOp::Scan, "dim", 0, "whose value is non-negative"),
];

fn int_minimum(op: CtOp, name: &str) -> Option<(i64, &'static str)> {
    INT_MINIMUMS
        .iter()
        .find(|(o, n, _, _)| *o == op && *n == name)
        .map(|&(_, _, min, words)| (min, words))
}

/// ODS's description of an attribute kind, for "failed to satisfy constraint" messages.
fn attr_description(op: CtOp, name: &str, kind: AttrKind) -> String {
    let base = match kind {
        AttrKind::I32 => "32-bit signless integer attribute",
        AttrKind::I64 => "64-bit signless integer attribute",
        _ => return other_attr_description(kind),
    };
    match int_minimum(op, name) {
        Some((_, words)) => format!("{base} {words}"),
        None => base.into(),
    }
}

fn other_attr_description(kind: AttrKind) -> String {
    match kind {
        AttrKind::Unit => "unit attribute".into(),
        AttrKind::Bool => "bool attribute".into(),
        AttrKind::I32 => "32-bit signless integer attribute".into(),
        AttrKind::I64 => "64-bit signless integer attribute".into(),
        AttrKind::Str => "string attribute".into(),
        AttrKind::SymbolRef => "flat symbol reference attribute".into(),
        AttrKind::Enum(e) => format!(
            "#cuda_tile.{} attribute (one of: {})",
            e.mnemonic(),
            e.keywords().join(", ")
        ),
        AttrKind::I32Array => "i32 dense array attribute".into(),
        AttrKind::Dense => "dense int or float elements attribute".into(),
        AttrKind::ScalarArray => "array of typed integer or float attributes".into(),
        AttrKind::Hints => "optimization hints attribute".into(),
        AttrKind::AssumePredicate => "assume predicate attribute".into(),
        AttrKind::FunctionType => "type attribute of function type".into(),
        AttrKind::DictArray => "Array of dictionary attributes".into(),
    }
}

fn attr_ok(m: &Module, op: CtOp, name: &str, kind: AttrKind, value: &Attr) -> bool {
    match (kind, value) {
        (AttrKind::Unit, Attr::Unit) | (AttrKind::Bool, Attr::Bool(_)) => true,
        (AttrKind::I32, Attr::Int(v)) => {
            i32::try_from(*v).is_ok() && int_minimum(op, name).is_none_or(|(min, _)| *v >= min)
        }
        (AttrKind::I64, Attr::Int(v)) => int_minimum(op, name).is_none_or(|(min, _)| *v >= min),
        (AttrKind::Str, Attr::Str(_)) | (AttrKind::SymbolRef, Attr::Symbol(_)) => true,
        (AttrKind::Enum(e), Attr::Enum(mnemonic, kw)) => {
            *mnemonic == e.mnemonic() && e.value_of(kw).is_some()
        }
        (AttrKind::I32Array, Attr::IntArray(v)) => v.iter().all(|&x| i32::try_from(x).is_ok()),
        (AttrKind::Dense, Attr::Dense(_)) => true,
        (AttrKind::ScalarArray, Attr::Array(items)) => {
            items.iter().all(|a| matches!(a, Attr::Scalar(..)))
        }
        (AttrKind::Hints, Attr::Dict(_)) | (AttrKind::AssumePredicate, Attr::Assume(_)) => true,
        (AttrKind::FunctionType, Attr::Type(t)) => {
            matches!(m.types.try_get(*t), Some(Type::Function { .. }))
        }
        (AttrKind::DictArray, Attr::Array(items)) => {
            items.iter().all(|a| matches!(a, Attr::Dict(_)))
        }
        _ => false,
    }
}

fn check_attrs(m: &Module, kind: &CudaTileOp) -> Result<(), String> {
    let schema = kind.schema();
    for (spec, value) in schema.attrs.iter().zip(kind.attr_values()) {
        match value {
            None if spec.presence == Presence::Required => {
                return Err(format!("requires attribute '{}'", spec.name))
            }
            Some(v) if !attr_ok(m, kind.op, spec.name, spec.kind, v) => {
                return Err(format!(
                    "attribute '{}' failed to satisfy constraint: {}",
                    spec.name,
                    attr_description(kind.op, spec.name, spec.kind)
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The values of the operand or result group called `name`.
fn named<'a>(
    schema: &OpSchema,
    d: &'a OpData,
    operand_groups: &[Range<usize>],
    result_groups: &[Range<usize>],
    name: &str,
) -> &'a [ValueId] {
    if let Some(i) = schema.operands.iter().position(|s| s.name == name) {
        return &d.operands[operand_groups[i].clone()];
    }
    if let Some(i) = schema.results.iter().position(|s| s.name == name) {
        return &d.results[result_groups[i].clone()];
    }
    &[]
}

/// True when `key` gives the same answer for every value.
fn all_equal<K: PartialEq>(values: &[ValueId], key: impl Fn(ValueId) -> K) -> bool {
    let mut keys = values.iter().map(|&v| key(v));
    match keys.next() {
        None => true,
        Some(first) => keys.all(|k| k == first),
    }
}

fn check_pred(
    m: &Module,
    schema: &OpSchema,
    d: &OpData,
    og: &[Range<usize>],
    rg: &[Range<usize>],
    pred: Pred,
) -> Result<(), String> {
    let gather = |names: &[&str]| -> Vec<ValueId> {
        names
            .iter()
            .flat_map(|n| named(schema, d, og, rg, n).iter().copied())
            .collect()
    };
    let list = |names: &[&str]| names.join(", ");
    let elem = |v: ValueId| tile_of(m, v).map(|(_, e)| e);
    match pred {
        Pred::SameType(names) => {
            if !all_equal(&gather(names), |v| m.value_type(v)) {
                return Err(format!(
                    "failed to verify that all of {{{}}} have same type",
                    list(names)
                ));
            }
        }
        Pred::SameShape(names) => {
            if !all_equal(&gather(names), |v| shape_of(m, v).to_vec()) {
                return Err(format!(
                    "failed to verify that all of {{{}}} have same shape",
                    list(names)
                ));
            }
        }
        Pred::SameRank(names) => {
            if !all_equal(&gather(names), |v| shape_of(m, v).len()) {
                return Err(format!(
                    "failed to verify that all of {{{}}} have same rank",
                    list(names)
                ));
            }
        }
        Pred::SameElem(names) => {
            if !all_equal(&gather(names), elem) {
                return Err(format!(
                    "failed to verify that all of {{{}}} have the same element type",
                    list(names)
                ));
            }
        }
        Pred::ResultI1SameShape => {
            let ok = match (d.operands.first(), d.results.first()) {
                (Some(&a), Some(&r)) => {
                    elem(r) == Some(TileElem::Num(NumType::I1)) && shape_of(m, a) == shape_of(m, r)
                }
                _ => false,
            };
            if !ok {
                return Err("failed to verify that Result type has i1 element type and same shape as operands".into());
            }
        }
        Pred::AllSameElem => {
            let all: Vec<ValueId> = d.operands.iter().chain(d.results.iter()).copied().collect();
            if !all_equal(&all, elem) {
                return Err("requires the same element type for all operands and results".into());
            }
        }
        Pred::OperandsSameShape => {
            if !all_equal(&d.operands, |v| shape_of(m, v).to_vec()) {
                return Err("requires the same shape for all operands".into());
            }
        }
        Pred::AllSameShape => {
            let all: Vec<ValueId> = d.operands.iter().chain(d.results.iter()).copied().collect();
            if !all_equal(&all, |v| shape_of(m, v).to_vec()) {
                return Err("requires the same shape for all operands and results".into());
            }
        }
    }
    Ok(())
}

fn check(m: &Module, op: OpId, kind: &CudaTileOp) -> Result<(), String> {
    let schema = kind.schema();
    let d = &m.ops[op];
    let og = operand_groups(kind, d.operands.len())?;
    let rg = split_groups(schema.results, d.results.len(), "result")?;
    check_attrs(m, kind)?;
    for (side, specs, groups, values) in [
        ("operand", schema.operands, &og, &d.operands),
        ("result", schema.results, &rg, &d.results),
    ] {
        let is_result = side == "result";
        for (gi, (spec, range)) in specs.iter().zip(groups.iter()).enumerate() {
            let c = constraint(kind.op, is_result, gi, spec);
            let prefix = if spec.arity == Arity::Variadic {
                "variadic of "
            } else {
                ""
            };
            for i in range.clone() {
                let v = values[i];
                if !c.satisfied_by(m, m.value_type(v)) {
                    return Err(format!(
                        "{side} #{i} must be {prefix}{}, but got '{}'",
                        c.description(),
                        mlir_value_type(m, v),
                    ));
                }
            }
        }
    }
    if schema.has(traits::SAME_TYPES) {
        let all: Vec<ValueId> = d.operands.iter().chain(d.results.iter()).copied().collect();
        if !all_equal(&all, |v| m.value_type(v)) {
            let names: Vec<&str> = schema
                .operands
                .iter()
                .chain(schema.results.iter())
                .map(|s| s.name)
                .collect();
            return Err(format!(
                "failed to verify that all of {{{}}} have same type",
                names.join(", ")
            ));
        }
    }
    for &p in preds(kind.op) {
        check_pred(m, schema, d, &og, &rg, p)?;
    }
    Ok(())
}
