//! The public `cuda_tile` dialect (CUDA Tile IR 13.3): 100 ops plus the test-only
//! `testing$func`, `testing$bytecode_test_new_attribute` and
//! `testing$bytecode_test_evolution` (NVIDIA's bytecode versioning test ops, of the
//! test-only versions 250.0 and 250.1), described once in [`schema`].
//!
//! A [`CudaTileOp`] is an opcode ([`CtOp`]) plus its attribute values, stored in schema
//! order and checked against the schema's kinds when built, plus the sizes of its operand
//! groups for ops with several optional or variadic groups. Discardable attributes (names
//! the schema does not declare, such as pass hints) are kept in [`CudaTileOp::discardable`].

pub mod hints;
pub mod schema;

use crate::attrs::{Attr, KeywordEnum, NamedAttrs};
pub use schema::{Arity, AttrKind, AttrSpec, CtOp, EnumKind, OpSchema, Presence, TypeConstraint, ValueSpec, Version};
use std::ops::Range;

/// `assume` predicates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AssumePredicate {
    /// `div_by<N>` or `div_by<N, every E along A>`: the value (or address) is a multiple of N
    /// (for every E-th element along dimension A).
    DivBy {
        /// The divisor, a power of two.
        divisor: u64,
        /// `every E along A`, when given.
        every_along: Option<(i64, i64)>,
    },
    /// `same_elements<[…]>`: groups of this many consecutive elements per dimension are equal.
    SameElements(Vec<i64>),
    /// `bounded<lb, ub>`: inclusive bounds, either may be absent (`?`).
    Bounded(Option<i64>, Option<i64>),
}

impl AssumePredicate {
    /// `div_by<n>` without `every … along …`.
    pub fn div_by(divisor: u64) -> AssumePredicate {
        AssumePredicate::DivBy { divisor, every_along: None }
    }

    /// Parses the custom-syntax text (with or without the `#cuda_tile.` prefix).
    pub fn parse(text: &str) -> Option<AssumePredicate> {
        let text = text.trim();
        let text = text.strip_prefix("#cuda_tile.").unwrap_or(text);
        let inner = |prefix: &str| text.strip_prefix(prefix)?.trim_start().strip_prefix('<')?.strip_suffix('>');
        let int = |s: &str| s.trim().parse::<i64>().ok();
        if let Some(body) = inner("div_by") {
            let (divisor, rest) = match body.split_once(',') {
                Some((d, rest)) => (d, Some(rest)),
                None => (body, None),
            };
            let divisor = divisor.trim().parse().ok()?;
            let every_along = match rest {
                None => None,
                Some(rest) => {
                    let words: Vec<&str> = rest.split_whitespace().collect();
                    match words.as_slice() {
                        ["every", e, "along", a] => Some((int(e)?, int(a)?)),
                        _ => return None,
                    }
                }
            };
            return Some(AssumePredicate::DivBy { divisor, every_along });
        }
        if let Some(body) = inner("same_elements") {
            let list = body.trim().strip_prefix('[')?.strip_suffix(']')?;
            let values: Option<Vec<i64>> =
                if list.trim().is_empty() { Some(Vec::new()) } else { list.split(',').map(int).collect() };
            return values.map(AssumePredicate::SameElements);
        }
        if let Some(body) = inner("bounded") {
            let (a, b) = body.split_once(',')?;
            let bound = |s: &str| if s.trim() == "?" { Some(None) } else { int(s).map(Some) };
            return Some(AssumePredicate::Bounded(bound(a)?, bound(b)?));
        }
        None
    }

    /// Custom-syntax text (`div_by<16>`, `bounded<0, ?>`, `same_elements<[1, 4]>`).
    pub fn text(&self) -> String {
        let opt = |v: &Option<i64>| v.map(|x| x.to_string()).unwrap_or_else(|| "?".to_string());
        match self {
            AssumePredicate::DivBy { divisor, every_along: None } => format!("div_by<{divisor}>"),
            AssumePredicate::DivBy { divisor, every_along: Some((e, a)) } => {
                format!("div_by<{divisor}, every {e} along {a}>")
            }
            AssumePredicate::SameElements(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                format!("same_elements<[{}]>", parts.join(", "))
            }
            AssumePredicate::Bounded(lb, ub) => format!("bounded<{}, {}>", opt(lb), opt(ub)),
        }
    }
}

/// One cuda_tile op: opcode, typed attribute values and operand-group sizes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CudaTileOp {
    /// Which op.
    pub op: CtOp,
    /// Values aligned with `op.schema().attrs`; `None` = absent. Attributes with a default
    /// are always present (materialized on construction).
    attrs: Box<[Option<Attr>]>,
    /// Size of each operand group, for ops with the `SEGMENTED` trait; empty otherwise
    /// (sizes then follow from the operand count).
    pub segments: Box<[u32]>,
    /// Attributes the schema does not declare (discardable attributes), in source order.
    pub discardable: Vec<(String, Attr)>,
}

impl CudaTileOp {
    /// A fresh op with defaults materialized, no optional attributes, and (for segmented
    /// ops) every optional/variadic group empty.
    pub fn new(op: CtOp) -> CudaTileOp {
        let schema = op.schema();
        let attrs = schema
            .attrs
            .iter()
            .map(|spec| match spec.presence {
                Presence::Default(text) => default_value(spec.kind, text),
                _ => None,
            })
            .collect();
        let segments = if schema.has(schema::traits::SEGMENTED) {
            schema.operands.iter().map(|o| u32::from(o.arity == Arity::One)).collect()
        } else {
            Box::default()
        };
        CudaTileOp { op, attrs, segments, discardable: Vec::new() }
    }

    /// Builder-style: sets attribute `name` (must be declared by the schema).
    pub fn with(mut self, name: &str, value: Attr) -> CudaTileOp {
        self.set(name, value);
        self
    }

    /// Builder-style: sets operand-group sizes (segmented ops).
    pub fn with_segments(mut self, sizes: &[u32]) -> CudaTileOp {
        self.segments = sizes.into();
        self
    }

    /// The op's schema.
    pub fn schema(&self) -> &'static OpSchema {
        self.op.schema()
    }

    /// Mnemonic without prefix.
    pub fn mnemonic(&self) -> &'static str {
        self.op.mnemonic()
    }

    /// Sets attribute `name`. Panics if the schema does not declare it: callers inside the
    /// compiler name attributes statically; untrusted input goes through [`Self::from_generic`].
    pub fn set(&mut self, name: &str, value: Attr) {
        let i = self
            .schema()
            .attr_index(name)
            .unwrap_or_else(|| panic!("'cuda_tile.{}' declares no attribute '{name}'", self.mnemonic()));
        self.attrs[i] = Some(value);
    }

    /// Removes attribute `name` (no-op if absent or undeclared).
    pub fn clear(&mut self, name: &str) {
        if let Some(i) = self.schema().attr_index(name) {
            self.attrs[i] = None;
        }
    }

    /// The value of attribute `name`, if present.
    pub fn get(&self, name: &str) -> Option<&Attr> {
        let i = self.schema().attr_index(name)?;
        self.attrs[i].as_ref()
    }

    /// Attribute values in schema order (None = absent).
    pub fn attr_values(&self) -> &[Option<Attr>] {
        &self.attrs
    }

    /// True if unit attribute `name` is set (or bool attribute `name` is true).
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), Some(Attr::Unit) | Some(Attr::Bool(true)))
    }

    /// Integer attribute `name`.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Attr::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// String or symbol attribute `name`.
    pub fn str(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            Attr::Str(s) | Attr::Symbol(s) => Some(s),
            _ => None,
        }
    }

    /// Keyword of enum attribute `name`.
    pub fn keyword(&self, name: &str) -> Option<&'static str> {
        match self.get(name)? {
            Attr::Enum(_, kw) => Some(kw),
            _ => None,
        }
    }

    /// Enum attribute `name` as its Rust enum.
    pub fn enum_attr<E: KeywordEnum>(&self, name: &str) -> Option<E> {
        E::from_keyword(self.keyword(name)?)
    }

    /// The `assume` predicate.
    pub fn predicate(&self) -> Option<&AssumePredicate> {
        match self.get("predicate")? {
            Attr::Assume(p) => Some(p),
            _ => None,
        }
    }

    /// Operand index ranges of each operand group, given the op's operand count. Returns
    /// `None` when the count cannot be split as the schema requires.
    pub fn operand_groups(&self, num_operands: usize) -> Option<Vec<Range<usize>>> {
        let specs = self.schema().operands;
        let sizes: Vec<usize> = if !self.segments.is_empty() {
            if self.segments.len() != specs.len() {
                return None;
            }
            self.segments.iter().map(|&s| s as usize).collect()
        } else {
            let fixed = specs.iter().filter(|o| o.arity == Arity::One).count();
            let variable = specs.len() - fixed;
            if num_operands < fixed || (variable == 0 && num_operands != fixed) || variable > 1 {
                return None;
            }
            specs.iter().map(|o| if o.arity == Arity::One { 1 } else { num_operands - fixed }).collect()
        };
        if sizes.iter().sum::<usize>() != num_operands {
            return None;
        }
        let mut start = 0;
        Some(
            sizes
                .into_iter()
                .map(|n| {
                    let r = start..start + n;
                    start += n;
                    r
                })
                .collect(),
        )
    }

    /// Operand range of group `name` (`"index"`, `"mask"`), given the operand count.
    pub fn group(&self, name: &str, num_operands: usize) -> Option<Range<usize>> {
        let i = self.schema().operands.iter().position(|o| o.name == name)?;
        self.operand_groups(num_operands)?.get(i).cloned()
    }

    /// Attributes in generic form: declared attributes that are present, in schema order,
    /// `operandSegmentSizes` for segmented ops, then discardable attributes.
    pub fn attributes(&self) -> NamedAttrs {
        let mut out: NamedAttrs = Vec::new();
        for (spec, value) in self.schema().attrs.iter().zip(self.attrs.iter()) {
            if let Some(v) = value {
                out.push((spec.name.into(), v.clone()));
            }
        }
        if !self.segments.is_empty() {
            out.push(("operandSegmentSizes".into(), Attr::IntArray(self.segments.iter().map(|&s| s as i64).collect())));
        }
        for (name, v) in &self.discardable {
            out.push((name.clone().into(), v.clone()));
        }
        out
    }

    /// Builds an op from its mnemonic and untyped attributes (generic form, Python builder).
    /// Checks every declared attribute's kind and presence. `Ok(None)`: unknown mnemonic.
    pub fn from_generic(mnemonic: &str, attrs: &[(String, Attr)]) -> Result<Option<CudaTileOp>, Vec<String>> {
        let Some(op) = CtOp::from_mnemonic(mnemonic) else { return Ok(None) };
        let schema = op.schema();
        let full = format!("cuda_tile.{mnemonic}");
        let mut built = CudaTileOp::new(op);
        let mut errors = Vec::new();
        let mut seen = vec![false; schema.attrs.len()];
        for (name, value) in attrs {
            if name == "operandSegmentSizes" && schema.has(schema::traits::SEGMENTED) {
                match value {
                    Attr::IntArray(v) if v.len() == schema.operands.len() && v.iter().all(|&n| n >= 0) => {
                        built.segments = v.iter().map(|&n| n as u32).collect();
                    }
                    _ => errors.push(format!(
                        "'{full}' op operandSegmentSizes must be an array<i32> of {} non-negative values",
                        schema.operands.len()
                    )),
                }
                continue;
            }
            match schema.attr_index(name) {
                Some(i) => {
                    seen[i] = true;
                    match typed_attr(&schema.attrs[i], value.clone()) {
                        Ok(v) => built.attrs[i] = Some(v),
                        Err(why) => errors.push(format!("'{full}' op attribute '{name}' {why}")),
                    }
                }
                None => built.discardable.push((name.clone(), value.clone())),
            }
        }
        for (i, spec) in schema.attrs.iter().enumerate() {
            if spec.presence == Presence::Required && !seen[i] {
                errors.push(format!("'{full}' op requires attribute '{}'", spec.name));
            }
        }
        if errors.is_empty() {
            Ok(Some(built))
        } else {
            Err(errors)
        }
    }
}

/// The materialized default of an attribute.
fn default_value(kind: AttrKind, text: &'static str) -> Option<Attr> {
    match kind {
        AttrKind::Enum(e) => {
            let kw = e.keywords().into_iter().find(|k| *k == text)?;
            Some(Attr::Enum(e.mnemonic(), kw))
        }
        AttrKind::I32 | AttrKind::I64 => text.parse().ok().map(Attr::Int),
        AttrKind::Bool => Some(Attr::Bool(text == "true")),
        _ => None,
    }
}

/// Checks `value` against `spec`'s kind, normalizing the spellings generic syntax allows
/// (enum keywords as strings, I32 enums as integers).
fn typed_attr(spec: &AttrSpec, value: Attr) -> Result<Attr, String> {
    let wrong = |value: &Attr, want: &str| Err(format!("must be {want}, got {}", value.kind_name()));
    match (spec.kind, value) {
        (AttrKind::Unit, Attr::Unit) => Ok(Attr::Unit),
        (AttrKind::Unit, v) => wrong(&v, "a unit attribute"),
        (AttrKind::Bool, Attr::Bool(b)) => Ok(Attr::Bool(b)),
        (AttrKind::Bool, v) => wrong(&v, "a bool"),
        (AttrKind::I32, Attr::Int(n)) => {
            if i32::try_from(n).is_ok() {
                Ok(Attr::Int(n))
            } else {
                Err(format!("value {n} does not fit in i32"))
            }
        }
        (AttrKind::I64, Attr::Int(n)) => Ok(Attr::Int(n)),
        (AttrKind::I32 | AttrKind::I64, v) => wrong(&v, "an integer"),
        (AttrKind::Str, Attr::Str(s)) => Ok(Attr::Str(s)),
        (AttrKind::Str, v) => wrong(&v, "a string"),
        (AttrKind::SymbolRef, Attr::Symbol(s)) => Ok(Attr::Symbol(s)),
        (AttrKind::SymbolRef, v) => wrong(&v, "a symbol reference"),
        (AttrKind::Enum(e), v) => {
            let keyword = match &v {
                Attr::Enum(m, kw) if *m == e.mnemonic() => Some(*kw),
                Attr::Enum(m, _) => return Err(format!("must be a #cuda_tile.{}<…> value, got #cuda_tile.{m}<…>", e.mnemonic())),
                Attr::Str(s) => e.keywords().into_iter().find(|k| k == s),
                Attr::Int(n) if e.prints_as_i32() => match e.keyword_of(*n as u64) {
                    Some(kw) if *n >= 0 => Some(kw),
                    _ => return Err(format!("value {n} is not a valid {} (0..{})", e.mnemonic(), e.keywords().len() - 1)),
                },
                _ => return wrong(&v, &format!("a {} keyword", e.mnemonic())),
            };
            match keyword {
                Some(kw) => Ok(Attr::Enum(e.mnemonic(), kw)),
                None => Err(format!(
                    "has unknown value '{}'; expected one of: {}",
                    v.as_keyword().unwrap_or("?"),
                    e.keywords().join(", ")
                )),
            }
        }
        (AttrKind::I32Array, Attr::IntArray(v)) => {
            if v.iter().all(|&x| i32::try_from(x).is_ok()) {
                Ok(Attr::IntArray(v))
            } else {
                Err("has values that do not fit in i32".into())
            }
        }
        (AttrKind::I32Array, v) => wrong(&v, "an array<i32: …>"),
        (AttrKind::Dense, Attr::Dense(d)) => Ok(Attr::Dense(d)),
        (AttrKind::Dense, v) => wrong(&v, "dense elements"),
        (AttrKind::ScalarArray, Attr::Array(items)) => {
            if items.iter().all(|a| matches!(a, Attr::Scalar(..))) {
                Ok(Attr::Array(items))
            } else {
                Err("must be an array of typed integer or float values".into())
            }
        }
        (AttrKind::ScalarArray, v) => wrong(&v, "an array of typed scalars"),
        (AttrKind::Hints, Attr::Dict(d)) => Ok(Attr::Dict(d)),
        (AttrKind::Hints, v) => wrong(&v, "optimization hints"),
        (AttrKind::AssumePredicate, Attr::Assume(p)) => Ok(Attr::Assume(p)),
        (AttrKind::AssumePredicate, Attr::Str(text)) => match AssumePredicate::parse(&text) {
            Some(p) => Ok(Attr::Assume(p)),
            None => Err(format!("'{text}' is not an assume predicate (div_by<…>, same_elements<[…]> or bounded<…, …>)")),
        },
        (AttrKind::AssumePredicate, v) => wrong(&v, "an assume predicate (div_by, same_elements or bounded)"),
        (AttrKind::FunctionType, Attr::Type(t)) => Ok(Attr::Type(t)),
        (AttrKind::FunctionType, v) => wrong(&v, "a function type"),
        (AttrKind::DictArray, Attr::Array(items)) => {
            if items.iter().all(|a| matches!(a, Attr::Dict(_))) {
                Ok(Attr::Array(items))
            } else {
                Err("must be an array of dictionaries".into())
            }
        }
        (AttrKind::DictArray, v) => wrong(&v, "an array of dictionaries"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attrs::RoundingMode;

    #[test]
    fn defaults_are_materialized() {
        let op = CudaTileOp::new(CtOp::AddF);
        assert_eq!(op.enum_attr::<RoundingMode>("rounding_mode"), Some(RoundingMode::NearestEven));
        assert!(!op.flag("flush_to_zero"));
    }

    #[test]
    fn generic_attributes_are_typed_and_checked() {
        let attrs = vec![
            ("memory_ordering_semantics".to_string(), Attr::Int(1)),
            ("memory_scope".to_string(), Attr::Int(1)),
            ("mode".to_string(), Attr::Int(4)),
        ];
        let op = CudaTileOp::from_generic("atomic_rmw_tko", &attrs).unwrap().unwrap();
        assert_eq!(op.keyword("mode"), Some("addf"));
        assert_eq!(op.keyword("memory_scope"), Some("device"));
        let bad = vec![("rounding_mode".to_string(), Attr::Str("sideways".into()))];
        let errs = CudaTileOp::from_generic("addf", &bad).unwrap_err();
        assert!(errs[0].contains("unknown value 'sideways'"), "{errs:?}");
        let missing = CudaTileOp::from_generic("cmpi", &[]).unwrap_err();
        assert_eq!(missing.len(), 2);
        assert!(CudaTileOp::from_generic("frobnicate", &[]).unwrap().is_none());
    }

    #[test]
    fn assume_predicates_round_trip_through_text() {
        for text in ["div_by<16>", "div_by<32, every 4 along 0>", "same_elements<[1, 4, 2]>", "bounded<0, ?>", "bounded<?, 42>"] {
            let p = AssumePredicate::parse(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(p.text(), text);
        }
        assert_eq!(AssumePredicate::parse("#cuda_tile.div_by<8>"), Some(AssumePredicate::div_by(8)));
        assert_eq!(AssumePredicate::parse("div_by<8, every 4>"), None);
    }

    #[test]
    fn operand_groups_split_counts() {
        let op = CudaTileOp::new(CtOp::LoadViewTko).with_segments(&[1, 2, 1]);
        assert_eq!(op.group("index", 4), Some(1..3));
        assert_eq!(op.group("token", 4), Some(3..4));
        let extract = CudaTileOp::new(CtOp::Extract);
        assert_eq!(extract.group("indices", 3), Some(1..3));
        assert_eq!(CudaTileOp::new(CtOp::AddF).operand_groups(3), None);
    }
}
