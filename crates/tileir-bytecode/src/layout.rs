//! The shape of an op record for one target version, derived from the op schema
//! (`tileir_ir::dialect::cuda_tile::schema`) by the rules of NVIDIA's TableGen backend:
//!
//! * a result count is written iff some operand or result group is *Variadic*;
//! * a flags varint exists iff the op has optional attributes (unit attributes included)
//!   or, for segmented ops, optional operands; bits are assigned by the field's `since`
//!   version (oldest first), attributes before operands within a version, declaration
//!   order within each; fields newer than the target version have no bit, and the varint
//!   is omitted when no field is old enough;
//! * attributes follow in declaration order (unit attributes only as flags);
//! * operands per group (segmented ops) or as one list.
//!
//! Two 13.4 fields are not part of our schema (tileir models 13.3): `ftoi`'s unit
//! attribute `saturating` and the `inbounds` bool array of `load_view_tko` /
//! `store_view_tko`. They are handled here as per-op extras so that 13.4 records keep
//! their exact layout without changing the schema's meaning.

use tileir_ir::dialect::cuda_tile::schema::{traits, Arity, AttrKind, OpSchema, Presence, Version};
use tileir_ir::CtOp;

/// Version 13.4 (layout taken from NVIDIA's cuTile Python encoder).
pub(crate) const V13_4: Version = Version::V13_4;

/// One bit of the flags varint.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FlagField {
    /// Schema attribute `i` (optional or unit).
    Attr(usize),
    /// Schema operand group `i` (optional, segmented ops only).
    Operand(usize),
    /// `ftoi`'s 13.4 `saturating` unit attribute, which tileir does not model.
    Saturating,
}

/// True when the record carries a result count (some group is Variadic; Optional does
/// not count).
pub(crate) fn has_result_count(s: &OpSchema) -> bool {
    s.operands
        .iter()
        .chain(s.results.iter())
        .any(|g| g.arity == Arity::Variadic)
}

/// The flag bits present in `version`, in bit order.
pub(crate) fn flag_fields(s: &OpSchema, version: Version) -> Vec<FlagField> {
    // (since, attrs-before-operands, declaration index, field)
    let mut fields: Vec<(Version, u8, usize, FlagField)> = Vec::new();
    for (i, a) in s.attrs.iter().enumerate() {
        if a.presence == Presence::Optional || a.kind == AttrKind::Unit {
            fields.push((a.since.max(s.since), 0, i, FlagField::Attr(i)));
        }
    }
    if s.has(traits::SEGMENTED) {
        for (i, g) in s.operands.iter().enumerate() {
            if g.arity == Arity::Optional {
                fields.push((g.since.max(s.since), 1, i, FlagField::Operand(i)));
            }
        }
    }
    if s.op == CtOp::FToI {
        fields.push((V13_4, 0, usize::MAX, FlagField::Saturating));
    }
    fields.sort_by_key(|f| (f.0, f.1, f.2));
    fields
        .into_iter()
        .filter(|f| f.0 <= version)
        .map(|f| f.3)
        .collect()
}

/// Whether the op carries the 13.4 `inbounds` array after its schema attributes.
pub(crate) fn has_inbounds(op: CtOp, version: Version) -> bool {
    version >= V13_4 && matches!(op, CtOp::LoadViewTko | CtOp::StoreViewTko)
}

/// Ops that are file-level records (function table, global section, the file itself)
/// and never appear as instructions.
pub(crate) fn is_structural(op: CtOp) -> bool {
    matches!(
        op,
        CtOp::Entry | CtOp::Global | CtOp::Module | CtOp::TestingFunc
    )
}

/// The op with bytecode opcode `opcode`.
pub(crate) fn op_for_opcode(opcode: u64) -> Option<CtOp> {
    CtOp::ALL
        .iter()
        .copied()
        .find(|op| u64::from(op.schema().opcode) == opcode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tileir_ir::dialect::cuda_tile::schema::Version;

    #[test]
    fn flag_rules_match_the_reference_table() {
        let v3 = Version::V13_3;
        let load = CtOp::LoadPtrTko.schema();
        assert_eq!(
            flag_fields(load, v3),
            vec![
                FlagField::Attr(1),
                FlagField::Attr(2),
                FlagField::Operand(1),
                FlagField::Operand(2),
                FlagField::Operand(3)
            ]
        );
        assert!(flag_fields(CtOp::For.schema(), Version::V13_1).is_empty());
        assert_eq!(flag_fields(CtOp::For.schema(), Version::V13_2).len(), 1);
        assert!(flag_fields(CtOp::MmaF.schema(), Version::V13_2).is_empty());
        assert!(flag_fields(CtOp::PrintTko.schema(), Version::V13_1).is_empty());
        assert_eq!(
            flag_fields(CtOp::PrintTko.schema(), Version::V13_2),
            vec![FlagField::Operand(1)]
        );
        assert!(flag_fields(CtOp::FToI.schema(), v3).is_empty());
        assert_eq!(
            flag_fields(CtOp::FToI.schema(), V13_4),
            vec![FlagField::Saturating]
        );
        // Result counts: any variadic group.
        for (op, want) in [
            (CtOp::Return, true),
            (CtOp::LoadViewTko, true),
            (CtOp::LoadPtrTko, false),
            (CtOp::Extract, true),
            (CtOp::PrintTko, true),
            (CtOp::AddF, false),
            (CtOp::If, true),
        ] {
            assert_eq!(has_result_count(op.schema()), want, "{op:?}");
        }
    }
}
