//! Typed attribute vocabulary shared by the dialects (enums with their text keywords),
//! and [`Attr`], the untyped form attributes take in generic syntax and at the Python
//! builder boundary before an op's constructor checks and types them.

use crate::types::TypeId;
use std::fmt;

/// An enum spelled as keywords in text (`nearest_even`, `signed`).
pub trait KeywordEnum: Copy + Sized {
    /// Parses a keyword.
    fn from_keyword(text: &str) -> Option<Self>;
    /// The keyword.
    fn keyword(self) -> &'static str;
}

/// Declares a keyword enum: variants, their text keywords, `ALL`, parse and print.
macro_rules! keyword_enum {
    ($(#[$meta:meta])* $name:ident, $mnemonic:literal { $($variant:ident = $kw:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum $name { $($variant),+ }
        impl $name {
            /// Every value, in encoding order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Attribute mnemonic in generic form (`#cuda_tile.<mnemonic><kw>`).
            pub const MNEMONIC: &'static str = $mnemonic;
            /// The text keyword.
            pub fn keyword(self) -> &'static str {
                match self { $($name::$variant => $kw),+ }
            }
            /// Parses a keyword.
            pub fn from_keyword(text: &str) -> Option<Self> {
                match text { $($kw => Some($name::$variant),)+ _ => None }
            }
            /// Comma-separated list of keywords, for "expected one of" messages.
            pub fn expected() -> String {
                Self::ALL.iter().map(|v| v.keyword()).collect::<Vec<_>>().join(", ")
            }
        }
        impl KeywordEnum for $name {
            fn from_keyword(text: &str) -> Option<Self> { $name::from_keyword(text) }
            fn keyword(self) -> &'static str { $name::keyword(self) }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.keyword()) }
        }
    };
}

keyword_enum!(
    /// Rounding of float arithmetic and conversions.
    RoundingMode, "rounding" {
    NearestEven = "nearest_even",
    Zero = "zero",
    NegativeInf = "negative_inf",
    PositiveInf = "positive_inf",
    Approx = "approx",
    Full = "full",
    NearestIntToZero = "nearest_int_to_zero",
});

keyword_enum!(
    /// Memory ordering of loads, stores and atomics.
    MemoryOrdering, "memory_ordering_semantics" {
    Weak = "weak",
    Relaxed = "relaxed",
    Acquire = "acquire",
    Release = "release",
    AcqRel = "acq_rel",
});

keyword_enum!(
    /// Scope of a memory ordering.
    MemoryScope, "memory_scope" {
    TlBlk = "tl_blk",
    Device = "device",
    Sys = "sys",
});

keyword_enum!(
    /// Integer signedness attribute.
    Signedness, "signedness" {
    Unsigned = "unsigned",
    Signed = "signed",
});

keyword_enum!(
    /// Integer overflow promise.
    IntegerOverflow, "overflow" {
    None = "none",
    NoSignedWrap = "no_signed_wrap",
    NoUnsignedWrap = "no_unsigned_wrap",
    NoWrap = "no_wrap",
});

keyword_enum!(
    /// Predicate of `cmpi` / `cmpf`.
    ComparisonPredicate, "comparison_predicate" {
    Equal = "equal",
    NotEqual = "not_equal",
    LessThan = "less_than",
    LessThanOrEqual = "less_than_or_equal",
    GreaterThan = "greater_than",
    GreaterThanOrEqual = "greater_than_or_equal",
});

keyword_enum!(
    /// Whether `cmpf` is ordered (false on NaN) or unordered (true on NaN).
    ComparisonOrdering, "comparison_ordering" {
    Unordered = "unordered",
    Ordered = "ordered",
});

keyword_enum!(
    /// Operation of `atomic_rmw_tko` / `atomic_red_view_tko`.
    AtomicRmwMode, "atomic_rmw_mode" {
    And = "and",
    Or = "or",
    Xor = "xor",
    Add = "add",
    AddF = "addf",
    Max = "max",
    Min = "min",
    UMax = "umax",
    UMin = "umin",
    Xchg = "xchg",
});

keyword_enum!(
    /// Visibility of a `global`.
    SymbolVisibility, "symbol_visibility" {
    Public = "public",
    Private = "private",
});

/// The values of a dense elements attribute (`constant`, `global`): raw bit patterns, one
/// per element in row-major order (each zero-extended to 64 bits), or one for a splat.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DenseElements {
    /// Element type.
    pub elem: crate::types::NumType,
    /// Shape of the value (the op's tile shape).
    pub shape: Vec<i64>,
    /// Bit patterns: exactly 1 for a splat, else the product of `shape`.
    pub bits: Vec<u64>,
}

impl DenseElements {
    /// True when every element is the same (stored once).
    pub fn is_splat(&self) -> bool {
        self.bits.len() == 1
    }
    /// Bits of element `i` (row-major), expanding a splat.
    pub fn get(&self, i: usize) -> u64 {
        if self.is_splat() {
            self.bits[0]
        } else {
            self.bits[i]
        }
    }
    /// Number of elements described (product of the shape).
    pub fn num_elements(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }
}

/// The discardable integer attribute on a `cuda_tile.for` that sets the depth of the
/// backend's shared-memory ring for the mma operands its body loads (stamped by
/// `tileas-materialize-async{mma-operand-stages=N}`; read by the sm_90a LLVM writer).
pub const NUM_STAGES_ATTR: &str = "tileir.num_stages";

/// The discardable boolean attribute on a `cuda_tile.for` that lets the sm_90a backend run
/// its mma operands' ring warp-specialized (spec/001's AWS): a producer warpgroup of its
/// own issues the copies while the kernel's warps run the mma (stamped by
/// `tileas-materialize-async{mma-warp-specialize=…}`; false is AUS, one agent doing both).
pub const WARP_SPECIALIZE_ATTR: &str = "tileir.warp_specialize";

/// An attribute value before an op constructor gives it a type: what the generic form
/// and the Python builder hand over.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Attr {
    /// Presence flag (`flush_to_zero`).
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string, or an enum keyword not yet typed.
    Str(String),
    /// An enum value: mnemonic and keyword (`#cuda_tile.rounding<zero>`).
    Enum(&'static str, &'static str),
    /// `array<i64: …>` / `[…]`.
    IntArray(Vec<i64>),
    /// A type (function signatures).
    Type(TypeId),
    /// `@symbol`.
    Symbol(String),
    /// A typed scalar (`0.0 : f32`, `1 : i32`) as a bit pattern of its element type
    /// (reduce/scan identities, tagged Integer/Float attributes).
    Scalar(crate::types::NumType, u64),
    /// `[a, b, …]`.
    Array(Vec<Attr>),
    /// `{name = value, …}` (optimization hints, argument attributes).
    Dict(Vec<(String, Attr)>),
    /// Dense elements (`constant`, `global` values).
    Dense(DenseElements),
    /// An `assume` predicate.
    Assume(crate::dialect::cuda_tile::AssumePredicate),
    /// An attribute tileir does not model, kept as its source text (unregistered ops).
    Opaque(String),
}

impl Attr {
    /// The keyword if this is a string or an enum.
    pub fn as_keyword(&self) -> Option<&str> {
        match self {
            Attr::Str(s) => Some(s),
            Attr::Enum(_, kw) => Some(kw),
            _ => None,
        }
    }
    /// A short description of the kind, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Attr::Unit => "unit",
            Attr::Bool(_) => "bool",
            Attr::Int(_) => "integer",
            Attr::Str(_) => "string",
            Attr::Enum(..) => "enum",
            Attr::IntArray(_) => "integer array",
            Attr::Type(_) => "type",
            Attr::Symbol(_) => "symbol",
            Attr::Scalar(..) => "typed scalar",
            Attr::Array(_) => "array",
            Attr::Dict(_) => "dictionary",
            Attr::Dense(_) => "dense elements",
            Attr::Assume(_) => "assume predicate",
            Attr::Opaque(_) => "opaque attribute",
        }
    }
}

/// Named attributes of one op, in a fixed (declaration) order.
pub type NamedAttrs = Vec<(std::borrow::Cow<'static, str>, Attr)>;

/// Reads typed fields out of a bag of named attributes, reporting every mistake
/// (unknown names, wrong kinds, bad keywords) with the op's name.
pub struct AttrReader<'a> {
    op: &'a str,
    attrs: &'a [(String, Attr)],
    used: Vec<bool>,
    errors: Vec<String>,
}

impl<'a> AttrReader<'a> {
    /// Starts reading `attrs` for op `op`.
    pub fn new(op: &'a str, attrs: &'a [(String, Attr)]) -> Self {
        AttrReader { op, attrs, used: vec![false; attrs.len()], errors: Vec::new() }
    }

    fn take(&mut self, name: &str) -> Option<&'a Attr> {
        let idx = self.attrs.iter().position(|(n, _)| n == name)?;
        self.used[idx] = true;
        Some(&self.attrs[idx].1)
    }

    /// An optional keyword enum field.
    pub fn keyword<T>(&mut self, name: &str, parse: fn(&str) -> Option<T>, expected: fn() -> String) -> Option<T> {
        let attr = self.take(name)?;
        match attr.as_keyword() {
            Some(kw) => match parse(kw) {
                Some(v) => Some(v),
                None => {
                    self.errors.push(format!(
                        "'{}' attribute '{name}' has unknown value '{kw}'; expected one of: {}",
                        self.op,
                        expected()
                    ));
                    None
                }
            },
            None => {
                self.errors.push(format!(
                    "'{}' attribute '{name}' must be a keyword, got {}",
                    self.op,
                    attr.kind_name()
                ));
                None
            }
        }
    }

    /// A presence flag (`Unit` or `Bool`).
    pub fn flag(&mut self, name: &str) -> bool {
        match self.take(name) {
            None => false,
            Some(Attr::Unit) => true,
            Some(Attr::Bool(b)) => *b,
            Some(other) => {
                self.errors.push(format!("'{}' attribute '{name}' must be a flag, got {}", self.op, other.kind_name()));
                false
            }
        }
    }

    /// An optional integer: an untyped one, or a typed integer scalar (`16 : i64`, as
    /// the generic printer writes integer attributes), sign-extended from its width.
    pub fn int(&mut self, name: &str) -> Option<i64> {
        match self.take(name)? {
            Attr::Int(v) => Some(*v),
            Attr::Scalar(crate::types::NumType::I1, bits) => Some((*bits & 1) as i64),
            Attr::Scalar(t, bits) if t.is_int() => Some(tileir_numeric::sign_extend(*bits, t.bit_width())),
            other => {
                self.errors.push(format!("'{}' attribute '{name}' must be an integer, got {}", self.op, other.kind_name()));
                None
            }
        }
    }

    /// An optional string.
    pub fn opt_string(&mut self, name: &str) -> Option<String> {
        match self.take(name)? {
            Attr::Str(s) => Some(s.clone()),
            other => {
                self.errors.push(format!("'{}' attribute '{name}' must be a string, got {}", self.op, other.kind_name()));
                None
            }
        }
    }

    /// A required string or symbol.
    pub fn string(&mut self, name: &str) -> Option<String> {
        match self.take(name) {
            Some(Attr::Str(s)) | Some(Attr::Symbol(s)) => Some(s.clone()),
            Some(other) => {
                self.errors.push(format!("'{}' attribute '{name}' must be a string, got {}", self.op, other.kind_name()));
                None
            }
            None => {
                self.errors.push(format!("'{}' requires attribute '{name}'", self.op));
                None
            }
        }
    }

    /// A required type.
    pub fn type_id(&mut self, name: &str) -> Option<TypeId> {
        match self.take(name) {
            Some(Attr::Type(t)) => Some(*t),
            Some(other) => {
                self.errors.push(format!("'{}' attribute '{name}' must be a type, got {}", self.op, other.kind_name()));
                None
            }
            None => {
                self.errors.push(format!("'{}' requires attribute '{name}'", self.op));
                None
            }
        }
    }

    /// Marks `name` as consumed; true if present.
    pub fn mark_used(&mut self, name: &str) -> bool {
        self.take(name).is_some()
    }

    /// An optional integer array.
    pub fn int_array(&mut self, name: &str) -> Option<Vec<i64>> {
        match self.take(name)? {
            Attr::IntArray(v) => Some(v.clone()),
            other => {
                self.errors.push(format!("'{}' attribute '{name}' must be an integer array, got {}", self.op, other.kind_name()));
                None
            }
        }
    }

    /// Records a custom error.
    pub fn error(&mut self, message: String) {
        self.errors.push(message);
    }

    /// Finishes: errors for every attribute nobody asked for, then all errors if any.
    pub fn finish(mut self) -> Result<(), Vec<String>> {
        for (i, used) in self.used.iter().enumerate() {
            if !used {
                self.errors.push(format!("'{}' has no attribute named '{}'", self.op, self.attrs[i].0));
            }
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self.errors)
        }
    }
}
