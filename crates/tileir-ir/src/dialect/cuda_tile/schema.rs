//! The declarative schema of every cuda_tile op: operands, results, attributes, regions,
//! traits, bytecode opcode and the dialect version each piece appeared in.
//!
//! This table is the single source of truth that the generic parser and printer, the
//! verifier's structural (ODS-style) checks and the bytecode codec read. Op-specific
//! logic (custom syntax, semantic rules, lowering) matches exhaustively on [`CtOp`], so an
//! op added here without being taught to them is a compile error there.
//!
//! Field order matters: operands, results and attributes are listed in ODS declaration
//! order, which is the order the bytecode encodes them in.

use crate::attrs::{
    AtomicRmwMode, ComparisonOrdering, ComparisonPredicate, IntegerOverflow, MemoryOrdering, MemoryScope,
    RoundingMode, Signedness, SymbolVisibility,
};
use crate::types::PaddingValue;

/// A dialect (and bytecode) version, `major.minor`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version {
    /// Major (13).
    pub major: u8,
    /// Minor (1, 2, 3, 4).
    pub minor: u8,
}

impl Version {
    /// CUDA 13.1: the first public release.
    pub const V13_1: Version = Version { major: 13, minor: 1 };
    /// CUDA 13.2.
    pub const V13_2: Version = Version { major: 13, minor: 2 };
    /// CUDA 13.3.
    pub const V13_3: Version = Version { major: 13, minor: 3 };
    /// CUDA 13.4.
    pub const V13_4: Version = Version { major: 13, minor: 4 };
    /// NVIDIA's test-only version 250.0 (builds with `TILE_IR_INCLUDE_TESTS`): the version
    /// of the test-only ops.
    pub const TESTING: Version = Version { major: 250, minor: 0 };
    /// NVIDIA's test-only version 250.1: the fields the bytecode-evolution test ops gained
    /// after 250.0.
    pub const TESTING_1: Version = Version { major: 250, minor: 1 };

    /// True for NVIDIA's test-only versions (250.x), which sort after every release.
    pub fn is_testing(self) -> bool {
        self.major == Version::TESTING.major
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How many values an operand or result group holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Arity {
    /// Exactly one.
    One,
    /// Zero or one.
    Optional,
    /// Any number.
    Variadic,
}

/// The type constraint of an operand or result group (ODS type constraints).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeConstraint {
    /// Tile of i1, i8, i16, i32 or i64.
    IntTile,
    /// Tile of an integer type including i4.
    IntOrI4Tile,
    /// Tile of f16, bf16, f32 or f64.
    BaseFloatTile,
    /// Tile of any float type (BaseF, tf32, fp8, fp4, e8m0).
    FloatTile,
    /// Tile of any number type (not i4, not pointers).
    NumberTile,
    /// Tile of any number type or i4.
    NumberOrI4Tile,
    /// Tile of pointers.
    PtrTile,
    /// Any tile.
    AnyTile,
    /// Tile of i1.
    I1Tile,
    /// Tile of i8.
    I8Tile,
    /// Tile of i32.
    I32Tile,
    /// Tile of i64.
    I64Tile,
    /// Rank-0 integer tile.
    ScalarInt,
    /// Rank-0 i1 tile.
    ScalarI1,
    /// Rank-0 i32 tile.
    ScalarI32,
    /// Rank-0 pointer tile.
    ScalarPtr,
    /// `tensor_view`.
    TensorView,
    /// `partition_view`.
    PartitionView,
    /// `strided_view`.
    StridedView,
    /// `gather_scatter_view`.
    GatherScatterView,
    /// A view one can load tiles from: partition, strided or gather/scatter view.
    TileView,
    /// Any view, tensor views included.
    AnyView,
    /// `token`.
    Token,
    /// Anything (region terminators, `assume`, test functions).
    Any,
}

/// One operand or result group.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueSpec {
    /// ODS name (`lhs`, `mask`, `result_token`).
    pub name: &'static str,
    /// Arity.
    pub arity: Arity,
    /// Type constraint.
    pub constraint: TypeConstraint,
    /// Version the group appeared in.
    pub since: Version,
}

/// The enumerations attributes can hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EnumKind {
    /// `signed` / `unsigned`.
    Signedness,
    /// `overflow<…>`.
    Overflow,
    /// `rounding<…>`.
    Rounding,
    /// `cmpi`/`cmpf` predicate.
    ComparisonPredicate,
    /// `cmpf` ordering.
    ComparisonOrdering,
    /// Atomic RMW mode.
    AtomicRmwMode,
    /// Memory scope.
    MemoryScope,
    /// Memory ordering semantics.
    MemoryOrdering,
    /// View padding value.
    PaddingValue,
    /// Global visibility.
    SymbolVisibility,
}

impl EnumKind {
    /// Keywords in encoding order (the bytecode value is the index).
    pub fn keywords(self) -> Vec<&'static str> {
        fn kws<T: Copy>(all: &[T], kw: fn(T) -> &'static str) -> Vec<&'static str> {
            all.iter().map(|&v| kw(v)).collect()
        }
        match self {
            EnumKind::Signedness => kws(Signedness::ALL, Signedness::keyword),
            EnumKind::Overflow => kws(IntegerOverflow::ALL, IntegerOverflow::keyword),
            EnumKind::Rounding => kws(RoundingMode::ALL, RoundingMode::keyword),
            EnumKind::ComparisonPredicate => kws(ComparisonPredicate::ALL, ComparisonPredicate::keyword),
            EnumKind::ComparisonOrdering => kws(ComparisonOrdering::ALL, ComparisonOrdering::keyword),
            EnumKind::AtomicRmwMode => kws(AtomicRmwMode::ALL, AtomicRmwMode::keyword),
            EnumKind::MemoryScope => kws(MemoryScope::ALL, MemoryScope::keyword),
            EnumKind::MemoryOrdering => kws(MemoryOrdering::ALL, MemoryOrdering::keyword),
            EnumKind::PaddingValue => kws(&PaddingValue::ALL, PaddingValue::keyword),
            EnumKind::SymbolVisibility => kws(SymbolVisibility::ALL, SymbolVisibility::keyword),
        }
    }

    /// The attribute mnemonic in generic syntax (`#cuda_tile.<mnemonic><kw>`).
    pub fn mnemonic(self) -> &'static str {
        match self {
            EnumKind::Signedness => Signedness::MNEMONIC,
            EnumKind::Overflow => IntegerOverflow::MNEMONIC,
            EnumKind::Rounding => RoundingMode::MNEMONIC,
            EnumKind::ComparisonPredicate => ComparisonPredicate::MNEMONIC,
            EnumKind::ComparisonOrdering => ComparisonOrdering::MNEMONIC,
            EnumKind::AtomicRmwMode => AtomicRmwMode::MNEMONIC,
            EnumKind::MemoryScope => MemoryScope::MNEMONIC,
            EnumKind::MemoryOrdering => MemoryOrdering::MNEMONIC,
            EnumKind::PaddingValue => "padding_value",
            EnumKind::SymbolVisibility => SymbolVisibility::MNEMONIC,
        }
    }

    /// True when generic syntax prints the enum as a plain `N : i32` integer (AtomicRMWMode,
    /// MemoryScope and MemoryOrderingSemantics are I32 enum attributes upstream).
    pub fn prints_as_i32(self) -> bool {
        matches!(self, EnumKind::AtomicRmwMode | EnumKind::MemoryScope | EnumKind::MemoryOrdering)
    }

    /// The encoding value of `keyword`.
    pub fn value_of(self, keyword: &str) -> Option<u8> {
        self.keywords().iter().position(|k| *k == keyword).map(|i| i as u8)
    }

    /// The keyword of encoding value `value`.
    pub fn keyword_of(self, value: u64) -> Option<&'static str> {
        self.keywords().get(value as usize).copied()
    }
}

/// What an attribute holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrKind {
    /// A presence flag (`flush_to_zero`).
    Unit,
    /// `true`/`false`.
    Bool,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// A string.
    Str,
    /// A symbol name (`@g`).
    SymbolRef,
    /// An enum.
    Enum(EnumKind),
    /// `array<i32: …>`.
    I32Array,
    /// Dense elements whose type is the op's result (or value) type.
    Dense,
    /// An array of typed scalars (`identities`).
    ScalarArray,
    /// `optimization_hints`.
    Hints,
    /// An `assume` predicate.
    AssumePredicate,
    /// A function type.
    FunctionType,
    /// An array of dictionaries (entry argument / result attributes).
    DictArray,
}

/// Whether an attribute must be present, has a default, or may be absent.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Presence {
    /// Must be given.
    Required,
    /// Optional with a default (an enum keyword, an integer or `false`), materialized when absent.
    Default(&'static str),
    /// May be absent (unit attributes are always this).
    Optional,
}

/// One attribute.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AttrSpec {
    /// Name in generic syntax.
    pub name: &'static str,
    /// Value kind.
    pub kind: AttrKind,
    /// Presence.
    pub presence: Presence,
    /// Version it appeared in.
    pub since: Version,
}

/// Op traits (bit set).
pub mod traits {
    /// No side effects (ODS `Pure`).
    pub const PURE: u32 = 1;
    /// Terminates its block.
    pub const TERMINATOR: u32 = 1 << 1;
    /// Every operand and result has the same type (`AllTypesMatch`).
    pub const SAME_TYPES: u32 = 1 << 2;
    /// Operands carry `operandSegmentSizes` (several optional/variadic groups).
    pub const SEGMENTED: u32 = 1 << 3;
    /// Defines a symbol (`sym_name`).
    pub const SYMBOL: u32 = 1 << 4;
    /// Function-like (entry, testing$func): region arguments are parameters.
    pub const FUNCTION: u32 = 1 << 5;
    /// Its regions resolve unqualified op names to cuda_tile (OpAsmOpInterface default dialect).
    pub const DEFAULT_DIALECT: u32 = 1 << 6;
    /// Element-wise: operands and results share a shape.
    pub const ELEMENTWISE: u32 = 1 << 7;
    /// Test-only (`TILE_IR_INCLUDE_TESTS`).
    pub const TEST_ONLY: u32 = 1 << 8;
    /// Has no memory effects but is not speculatable (ODS `NoMemoryEffect`).
    pub const NO_MEMORY_EFFECT: u32 = 1 << 9;
}

/// The schema of one op.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpSchema {
    /// Which op.
    pub op: CtOp,
    /// Mnemonic without the dialect prefix.
    pub mnemonic: &'static str,
    /// Bytecode opcode.
    pub opcode: u16,
    /// Version the op appeared in.
    pub since: Version,
    /// [`traits`] bits.
    pub traits: u32,
    /// Operand groups.
    pub operands: &'static [ValueSpec],
    /// Result groups.
    pub results: &'static [ValueSpec],
    /// Attributes.
    pub attrs: &'static [AttrSpec],
    /// Number of regions.
    pub regions: u8,
}

impl OpSchema {
    /// True if the op has trait `t`.
    pub fn has(&self, t: u32) -> bool {
        self.traits & t != 0
    }
    /// Index of attribute `name` in [`OpSchema::attrs`].
    pub fn attr_index(&self, name: &str) -> Option<usize> {
        self.attrs.iter().position(|a| a.name == name)
    }
    /// Whether some operand group is optional or variadic.
    pub fn has_variable_operands(&self) -> bool {
        self.operands.iter().any(|o| o.arity != Arity::One)
    }
    /// Whether some result group is optional or variadic.
    pub fn has_variable_results(&self) -> bool {
        self.results.iter().any(|o| o.arity != Arity::One)
    }
    /// The fixed number of results, if no result group is variadic or optional.
    pub fn fixed_results(&self) -> Option<usize> {
        (!self.has_variable_results()).then_some(self.results.len())
    }
}

macro_rules! ct_ops {
    ($($variant:ident = $mnemonic:literal,)*) => {
        /// Every cuda_tile op (the 100 public 13.3 ops, the 13.4 grid-dependency-control ops
        /// and the test-only ops), in schema order.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum CtOp { $($variant),* }
        impl CtOp {
            /// Every op, in schema order.
            pub const ALL: &'static [CtOp] = &[$(CtOp::$variant),*];
            /// Mnemonic without the dialect prefix.
            pub fn mnemonic(self) -> &'static str {
                match self { $(CtOp::$variant => $mnemonic),* }
            }
            /// Looks an op up by mnemonic.
            pub fn from_mnemonic(text: &str) -> Option<CtOp> {
                match text { $($mnemonic => Some(CtOp::$variant),)* _ => None }
            }
            /// Every mnemonic, in schema order.
            pub const MNEMONICS: &'static [&'static str] = &[$($mnemonic),*];
        }
    };
}

ct_ops! {
    AbsF = "absf", AbsI = "absi", AddF = "addf", AddI = "addi", AndI = "andi", Assert = "assert",
    Assume = "assume", AtomicCasTko = "atomic_cas_tko", AtomicRmwTko = "atomic_rmw_tko", Bitcast = "bitcast",
    Break = "break", Broadcast = "broadcast", Cat = "cat", Ceil = "ceil", CmpF = "cmpf", CmpI = "cmpi",
    Constant = "constant", Continue = "continue", Cos = "cos", CosH = "cosh", DivF = "divf", DivI = "divi",
    Entry = "entry", Exp = "exp", Exp2 = "exp2", ExtI = "exti", Extract = "extract", Floor = "floor",
    Fma = "fma", For = "for", FToF = "ftof", FToI = "ftoi", GetGlobal = "get_global",
    GetIndexSpaceShape = "get_index_space_shape", GetNumTileBlocks = "get_num_tile_blocks",
    GetTensorShape = "get_tensor_shape", GetTileBlockId = "get_tile_block_id", Global = "global", If = "if",
    IntToPtr = "int_to_ptr", Iota = "iota", IToF = "itof", JoinTokens = "join_tokens",
    LoadPtrTko = "load_ptr_tko", LoadViewTko = "load_view_tko", Log = "log", Log2 = "log2", Loop = "loop",
    MakePartitionView = "make_partition_view", MakeTensorView = "make_tensor_view", MakeToken = "make_token",
    MaxF = "maxf", MaxI = "maxi", MinF = "minf", MinI = "mini", MmaF = "mmaf", MmaI = "mmai",
    Module = "module", MulF = "mulf", MulHiI = "mulhii", MulI = "muli", NegF = "negf", NegI = "negi",
    Offset = "offset", OrI = "ori", Permute = "permute", Pow = "pow", PrintTko = "print_tko",
    PtrToInt = "ptr_to_int", PtrToPtr = "ptr_to_ptr", Reduce = "reduce", RemF = "remf", RemI = "remi",
    Reshape = "reshape", Return = "return", Rsqrt = "rsqrt", Scan = "scan", Select = "select", ShlI = "shli",
    ShrI = "shri", Sin = "sin", SinH = "sinh", Sqrt = "sqrt", StorePtrTko = "store_ptr_tko",
    StoreViewTko = "store_view_tko", SubF = "subf", SubI = "subi", Tan = "tan", TanH = "tanh",
    TruncI = "trunci", XOrI = "xori", Yield = "yield", Atan2 = "atan2", Pack = "pack", Unpack = "unpack",
    Alloca = "alloca", MmaFScaled = "mmaf_scaled", MakeGatherScatterView = "make_gather_scatter_view",
    MakeStridedView = "make_strided_view", AtomicRedViewTko = "atomic_red_view_tko",
    GdcLaunchDependentsTko = "gdc_launch_dependents_tko", GdcWaitTko = "gdc_wait_tko",
    TestingFunc = "testing$func",
    TestingBytecodeNewAttribute = "testing$bytecode_test_new_attribute",
    TestingBytecodeEvolution = "testing$bytecode_test_evolution",
}

impl CtOp {
    /// This op's schema.
    pub fn schema(self) -> &'static OpSchema {
        &SCHEMAS[self as usize]
    }
    /// Number of public (non-test) ops: 13.3's 100 plus the two 13.4 `gdc_*_tko` ops.
    pub const NUM_PUBLIC: usize = 102;
}

// ---- constructors that keep the table below readable ----

use Arity::{One, Optional, Variadic};
use TypeConstraint as C;

const V1: Version = Version::V13_1;
const V2: Version = Version::V13_2;
const V3: Version = Version::V13_3;
const V4: Version = Version::V13_4;

const fn one(name: &'static str, constraint: TypeConstraint) -> ValueSpec {
    ValueSpec { name, arity: One, constraint, since: V1 }
}
const fn opt(name: &'static str, constraint: TypeConstraint) -> ValueSpec {
    ValueSpec { name, arity: Optional, constraint, since: V1 }
}
const fn var(name: &'static str, constraint: TypeConstraint) -> ValueSpec {
    ValueSpec { name, arity: Variadic, constraint, since: V1 }
}
const fn since(mut v: ValueSpec, version: Version) -> ValueSpec {
    v.since = version;
    v
}
const fn req(name: &'static str, kind: AttrKind) -> AttrSpec {
    AttrSpec { name, kind, presence: Presence::Required, since: V1 }
}
const fn dflt(name: &'static str, kind: AttrKind, default: &'static str) -> AttrSpec {
    AttrSpec { name, kind, presence: Presence::Default(default), since: V1 }
}
const fn optional(name: &'static str, kind: AttrKind) -> AttrSpec {
    AttrSpec { name, kind, presence: Presence::Optional, since: V1 }
}
const fn unit(name: &'static str) -> AttrSpec {
    AttrSpec { name, kind: AttrKind::Unit, presence: Presence::Optional, since: V1 }
}
const fn attr_since(mut a: AttrSpec, version: Version) -> AttrSpec {
    a.since = version;
    a
}
#[allow(clippy::too_many_arguments)]
const fn op(
    op: CtOp,
    opcode: u16,
    since: Version,
    traits: u32,
    operands: &'static [ValueSpec],
    results: &'static [ValueSpec],
    attrs: &'static [AttrSpec],
    regions: u8,
) -> OpSchema {
    OpSchema { op, mnemonic: "", opcode, since, traits, operands, results, attrs, regions }
}

use traits::*;
const EW: u32 = PURE | SAME_TYPES | ELEMENTWISE;

const ROUNDING: AttrKind = AttrKind::Enum(EnumKind::Rounding);
const SIGNEDNESS: AttrKind = AttrKind::Enum(EnumKind::Signedness);
const OVERFLOW: AttrKind = AttrKind::Enum(EnumKind::Overflow);
const ORDERING: AttrKind = AttrKind::Enum(EnumKind::MemoryOrdering);
const SCOPE: AttrKind = AttrKind::Enum(EnumKind::MemoryScope);
const MODE: AttrKind = AttrKind::Enum(EnumKind::AtomicRmwMode);

const INT_UNARY: &[ValueSpec] = &[one("source", C::IntTile)];
const INT_BINARY: &[ValueSpec] = &[one("lhs", C::IntTile), one("rhs", C::IntTile)];
const INT_RESULT: &[ValueSpec] = &[one("result", C::IntTile)];
const F_UNARY: &[ValueSpec] = &[one("source", C::BaseFloatTile)];
const F_BINARY: &[ValueSpec] = &[one("lhs", C::BaseFloatTile), one("rhs", C::BaseFloatTile)];
const F_RESULT: &[ValueSpec] = &[one("result", C::BaseFloatTile)];
const NONE: &[ValueSpec] = &[];
const NO_ATTRS: &[AttrSpec] = &[];
const OVERFLOW_ATTRS: &[AttrSpec] = &[dflt("overflow", OVERFLOW, "none")];
const SIGNED_ATTRS: &[AttrSpec] = &[req("signedness", SIGNEDNESS)];
const IEEE_FLOAT_ATTRS: &[AttrSpec] = &[dflt("rounding_mode", ROUNDING, "nearest_even"), unit("flush_to_zero")];
const FTZ_ATTRS: &[AttrSpec] = &[unit("flush_to_zero")];
const NAN_FTZ_ATTRS: &[AttrSpec] = &[unit("propagate_nan"), unit("flush_to_zero")];
const TERMINATOR_OPERANDS: &[ValueSpec] = &[var("operands", C::Any)];
const ANY_IN: &[ValueSpec] = &[one("source", C::AnyTile)];
const ANY_OUT: &[ValueSpec] = &[one("result", C::AnyTile)];
const VIEW_OUT_TOKEN: &[ValueSpec] = &[one("result_token", C::Token)];
const VIEW_ACCESS_ATTRS: &[AttrSpec] = &[
    req("memory_ordering_semantics", ORDERING),
    optional("memory_scope", SCOPE),
    optional("optimization_hints", AttrKind::Hints),
];
const FUNC_ATTRS: &[AttrSpec] = &[
    req("sym_name", AttrKind::Str),
    req("function_type", AttrKind::FunctionType),
    optional("arg_attrs", AttrKind::DictArray),
    optional("res_attrs", AttrKind::DictArray),
    optional("optimization_hints", AttrKind::Hints),
];
const MAKE_VIEW_IN: &[ValueSpec] = &[one("tensor_view", C::TensorView)];

/// The schema of every op, indexed by `CtOp as usize`.
pub static SCHEMAS: [OpSchema; CtOp::ALL.len()] = {
    let mut table = [
        // ---- integer arithmetic, bitwise, comparison ----
        op(CtOp::AbsF, 0x00, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(CtOp::AbsI, 0x01, V1, EW, INT_UNARY, INT_RESULT, NO_ATTRS, 0),
        op(CtOp::AddF, 0x02, V1, EW, F_BINARY, F_RESULT, IEEE_FLOAT_ATTRS, 0),
        op(CtOp::AddI, 0x03, V1, EW, INT_BINARY, INT_RESULT, OVERFLOW_ATTRS, 0),
        op(CtOp::AndI, 0x04, V1, EW, INT_BINARY, INT_RESULT, NO_ATTRS, 0),
        op(CtOp::Assert, 0x05, V1, 0, &[one("condition", C::I1Tile)], NONE, &[req("message", AttrKind::Str)], 0),
        op(
            CtOp::Assume,
            0x06,
            V1,
            SAME_TYPES,
            &[one("value", C::Any)],
            &[one("result", C::Any)],
            &[req("predicate", AttrKind::AssumePredicate)],
            0,
        ),
        op(
            CtOp::AtomicCasTko,
            0x07,
            V1,
            SEGMENTED,
            &[
                one("pointers", C::PtrTile),
                one("cmp", C::NumberTile),
                one("val", C::NumberTile),
                opt("mask", C::I1Tile),
                opt("token", C::Token),
            ],
            &[one("result", C::NumberTile), one("result_token", C::Token)],
            &[req("memory_ordering_semantics", ORDERING), req("memory_scope", SCOPE)],
            0,
        ),
        op(
            CtOp::AtomicRmwTko,
            0x08,
            V1,
            SEGMENTED,
            &[one("pointers", C::PtrTile), one("arg", C::NumberTile), opt("mask", C::I1Tile), opt("token", C::Token)],
            &[one("result", C::NumberTile), one("result_token", C::Token)],
            &[req("memory_ordering_semantics", ORDERING), req("memory_scope", SCOPE), req("mode", MODE)],
            0,
        ),
        op(CtOp::Bitcast, 0x09, V1, PURE | ELEMENTWISE, &[one("source", C::NumberTile)], &[one("result", C::NumberTile)], NO_ATTRS, 0),
        op(CtOp::Break, 0x0A, V1, TERMINATOR | PURE, TERMINATOR_OPERANDS, NONE, NO_ATTRS, 0),
        op(CtOp::Broadcast, 0x0B, V1, PURE, ANY_IN, ANY_OUT, NO_ATTRS, 0),
        op(
            CtOp::Cat,
            0x0C,
            V1,
            PURE,
            &[one("lhs", C::AnyTile), one("rhs", C::AnyTile)],
            ANY_OUT,
            &[req("dim", AttrKind::I64)],
            0,
        ),
        op(CtOp::Ceil, 0x0D, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(
            CtOp::CmpF,
            0x0E,
            V1,
            PURE | ELEMENTWISE,
            F_BINARY,
            &[one("result", C::I1Tile)],
            &[
                req("comparison_predicate", AttrKind::Enum(EnumKind::ComparisonPredicate)),
                req("comparison_ordering", AttrKind::Enum(EnumKind::ComparisonOrdering)),
            ],
            0,
        ),
        op(
            CtOp::CmpI,
            0x0F,
            V1,
            PURE | ELEMENTWISE,
            INT_BINARY,
            &[one("result", C::I1Tile)],
            &[req("comparison_predicate", AttrKind::Enum(EnumKind::ComparisonPredicate)), req("signedness", SIGNEDNESS)],
            0,
        ),
        op(CtOp::Constant, 0x10, V1, PURE, NONE, &[one("result", C::NumberTile)], &[req("value", AttrKind::Dense)], 0),
        op(CtOp::Continue, 0x11, V1, TERMINATOR | PURE, TERMINATOR_OPERANDS, NONE, NO_ATTRS, 0),
        op(CtOp::Cos, 0x12, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(CtOp::CosH, 0x13, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(
            CtOp::DivF,
            0x14,
            V1,
            EW,
            F_BINARY,
            F_RESULT,
            &[dflt("rounding_mode", ROUNDING, "nearest_even"), unit("flush_to_zero")],
            0,
        ),
        op(
            CtOp::DivI,
            0x15,
            V1,
            SAME_TYPES | ELEMENTWISE | NO_MEMORY_EFFECT,
            INT_BINARY,
            INT_RESULT,
            &[req("signedness", SIGNEDNESS), dflt("rounding", ROUNDING, "zero")],
            0,
        ),
        op(CtOp::Entry, 0x16, V1, SYMBOL | FUNCTION | DEFAULT_DIALECT, NONE, NONE, FUNC_ATTRS, 1),
        op(
            CtOp::Exp,
            0x17,
            V1,
            EW,
            F_UNARY,
            F_RESULT,
            &[attr_since(dflt("rounding_mode", ROUNDING, "full"), V3)],
            0,
        ),
        op(CtOp::Exp2, 0x18, V1, EW, F_UNARY, F_RESULT, FTZ_ATTRS, 0),
        op(
            CtOp::ExtI,
            0x25,
            V1,
            PURE | ELEMENTWISE,
            &[one("from", C::IntOrI4Tile)],
            &[one("to", C::IntOrI4Tile)],
            SIGNED_ATTRS,
            0,
        ),
        op(
            CtOp::Extract,
            0x26,
            V1,
            PURE,
            &[one("source", C::AnyTile), var("indices", C::ScalarI32)],
            ANY_OUT,
            NO_ATTRS,
            0,
        ),
        op(CtOp::Floor, 0x27, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(
            CtOp::Fma,
            0x28,
            V1,
            EW,
            &[one("lhs", C::BaseFloatTile), one("rhs", C::BaseFloatTile), one("acc", C::BaseFloatTile)],
            F_RESULT,
            IEEE_FLOAT_ATTRS,
            0,
        ),
        op(
            CtOp::For,
            0x29,
            V1,
            DEFAULT_DIALECT,
            &[
                one("lowerBound", C::ScalarInt),
                one("upperBound", C::ScalarInt),
                one("step", C::ScalarInt),
                var("initValues", C::Any),
            ],
            &[var("results", C::Any)],
            &[attr_since(unit("unsignedCmp"), V2)],
            1,
        ),
        op(
            CtOp::FToF,
            0x2A,
            V1,
            PURE | ELEMENTWISE,
            &[one("from", C::FloatTile)],
            &[one("to", C::FloatTile)],
            &[dflt("rounding_mode", ROUNDING, "nearest_even")],
            0,
        ),
        op(
            CtOp::FToI,
            0x2B,
            V1,
            PURE | ELEMENTWISE,
            &[one("from", C::FloatTile)],
            &[one("to", C::IntTile)],
            &[req("signedness", SIGNEDNESS), dflt("rounding_mode", ROUNDING, "nearest_int_to_zero")],
            0,
        ),
        op(CtOp::GetGlobal, 0x2C, V1, PURE, NONE, &[one("result", C::ScalarPtr)], &[req("name", AttrKind::SymbolRef)], 0),
        op(
            CtOp::GetIndexSpaceShape,
            0x2D,
            V1,
            PURE,
            &[one("src", C::TileView)],
            &[var("result", C::ScalarInt)],
            NO_ATTRS,
            0,
        ),
        op(
            CtOp::GetNumTileBlocks,
            0x2E,
            V1,
            PURE,
            NONE,
            &[one("gridSize_x", C::ScalarI32), one("gridSize_y", C::ScalarI32), one("gridSize_z", C::ScalarI32)],
            NO_ATTRS,
            0,
        ),
        op(
            CtOp::GetTensorShape,
            0x2F,
            V1,
            PURE,
            &[one("src", C::TensorView)],
            &[var("result", C::ScalarInt)],
            NO_ATTRS,
            0,
        ),
        op(
            CtOp::GetTileBlockId,
            0x30,
            V1,
            PURE,
            NONE,
            &[one("blockId_x", C::ScalarI32), one("blockId_y", C::ScalarI32), one("blockId_z", C::ScalarI32)],
            NO_ATTRS,
            0,
        ),
        op(
            CtOp::Global,
            0x31,
            V1,
            SYMBOL,
            NONE,
            NONE,
            &[
                req("sym_name", AttrKind::Str),
                req("value", AttrKind::Dense),
                dflt("alignment", AttrKind::I64, "0"),
                attr_since(unit("constant"), V3),
                attr_since(dflt("symbol_visibility", AttrKind::Enum(EnumKind::SymbolVisibility), "public"), V3),
            ],
            0,
        ),
        op(CtOp::If, 0x32, V1, DEFAULT_DIALECT, &[one("condition", C::ScalarI1)], &[var("results", C::Any)], NO_ATTRS, 2),
        op(CtOp::IntToPtr, 0x33, V1, PURE | ELEMENTWISE, &[one("source", C::I64Tile)], &[one("result", C::PtrTile)], NO_ATTRS, 0),
        op(CtOp::Iota, 0x3A, V1, PURE, NONE, INT_RESULT, NO_ATTRS, 0),
        op(
            CtOp::IToF,
            0x3B,
            V1,
            PURE | ELEMENTWISE,
            &[one("from", C::IntTile)],
            &[one("to", C::FloatTile)],
            &[req("signedness", SIGNEDNESS), dflt("rounding_mode", ROUNDING, "nearest_even")],
            0,
        ),
        op(CtOp::JoinTokens, 0x3C, V1, PURE, &[var("tokens", C::Token)], &[one("result", C::Token)], NO_ATTRS, 0),
        op(
            CtOp::LoadPtrTko,
            0x3D,
            V1,
            SEGMENTED,
            &[
                one("source", C::PtrTile),
                opt("mask", C::I1Tile),
                opt("paddingValue", C::NumberTile),
                opt("token", C::Token),
            ],
            &[one("result", C::NumberTile), one("result_token", C::Token)],
            VIEW_ACCESS_ATTRS,
            0,
        ),
        op(
            CtOp::LoadViewTko,
            0x3E,
            V1,
            SEGMENTED,
            &[one("view", C::TileView), var("index", C::IntTile), opt("token", C::Token)],
            &[one("tile", C::NumberTile), one("result_token", C::Token)],
            VIEW_ACCESS_ATTRS,
            0,
        ),
        op(CtOp::Log, 0x3F, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(CtOp::Log2, 0x40, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(CtOp::Loop, 0x41, V1, DEFAULT_DIALECT, &[var("initValues", C::Any)], &[var("results", C::Any)], NO_ATTRS, 1),
        op(CtOp::MakePartitionView, 0x42, V1, PURE, MAKE_VIEW_IN, &[one("result", C::PartitionView)], NO_ATTRS, 0),
        op(
            CtOp::MakeTensorView,
            0x43,
            V1,
            PURE | SEGMENTED,
            &[one("base", C::ScalarPtr), var("dynamicShape", C::ScalarInt), var("dynamicStrides", C::ScalarInt)],
            &[one("result", C::TensorView)],
            NO_ATTRS,
            0,
        ),
        op(CtOp::MakeToken, 0x44, V1, PURE, NONE, &[one("result", C::Token)], NO_ATTRS, 0),
        op(CtOp::MaxF, 0x45, V1, EW, F_BINARY, F_RESULT, NAN_FTZ_ATTRS, 0),
        op(CtOp::MaxI, 0x46, V1, EW, INT_BINARY, INT_RESULT, SIGNED_ATTRS, 0),
        op(CtOp::MinF, 0x47, V1, EW, F_BINARY, F_RESULT, NAN_FTZ_ATTRS, 0),
        op(CtOp::MinI, 0x48, V1, EW, INT_BINARY, INT_RESULT, SIGNED_ATTRS, 0),
        op(
            CtOp::MmaF,
            0x49,
            V1,
            PURE,
            &[one("lhs", C::FloatTile), one("rhs", C::FloatTile), one("acc", C::FloatTile)],
            &[one("result", C::FloatTile)],
            &[attr_since(unit("fast_acc"), V3)],
            0,
        ),
        op(
            CtOp::MmaI,
            0x4A,
            V1,
            PURE,
            &[one("lhs", C::I8Tile), one("rhs", C::I8Tile), one("acc", C::I32Tile)],
            &[one("result", C::I32Tile)],
            &[req("signedness_lhs", SIGNEDNESS), req("signedness_rhs", SIGNEDNESS)],
            0,
        ),
        op(
            CtOp::Module,
            0x4B,
            V1,
            SYMBOL | DEFAULT_DIALECT,
            NONE,
            NONE,
            &[req("sym_name", AttrKind::Str), attr_since(optional("producer", AttrKind::Str), V3)],
            1,
        ),
        op(CtOp::MulF, 0x4C, V1, EW, F_BINARY, F_RESULT, IEEE_FLOAT_ATTRS, 0),
        op(CtOp::MulHiI, 0x4D, V1, EW, &[one("x", C::IntTile), one("y", C::IntTile)], INT_RESULT, NO_ATTRS, 0),
        op(CtOp::MulI, 0x4E, V1, EW, INT_BINARY, INT_RESULT, OVERFLOW_ATTRS, 0),
        op(CtOp::NegF, 0x4F, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(
            CtOp::NegI,
            0x50,
            V1,
            EW,
            INT_UNARY,
            INT_RESULT,
            &[attr_since(dflt("overflow", OVERFLOW, "none"), V2)],
            0,
        ),
        op(
            CtOp::Offset,
            0x51,
            V1,
            PURE | ELEMENTWISE,
            &[one("ptr", C::PtrTile), one("offset", C::IntTile)],
            &[one("result", C::PtrTile)],
            NO_ATTRS,
            0,
        ),
        op(CtOp::OrI, 0x52, V1, EW, INT_BINARY, INT_RESULT, NO_ATTRS, 0),
        op(CtOp::Permute, 0x53, V1, PURE, ANY_IN, ANY_OUT, &[req("permutation", AttrKind::I32Array)], 0),
        op(
            CtOp::Pow,
            0x54,
            V1,
            EW,
            &[one("source", C::BaseFloatTile), one("exponent", C::BaseFloatTile)],
            F_RESULT,
            NO_ATTRS,
            0,
        ),
        op(
            CtOp::PrintTko,
            0x55,
            V1,
            SEGMENTED,
            &[var("args", C::AnyTile), since(opt("token", C::Token), V2)],
            // Optional: 13.1's `print` (no token operand) has no result.
            &[since(opt("result_token", C::Token), V2)],
            &[req("str", AttrKind::Str)],
            0,
        ),
        op(CtOp::PtrToInt, 0x56, V1, PURE | ELEMENTWISE, &[one("source", C::PtrTile)], &[one("result", C::I64Tile)], NO_ATTRS, 0),
        op(CtOp::PtrToPtr, 0x57, V1, PURE | ELEMENTWISE, &[one("source", C::PtrTile)], &[one("result", C::PtrTile)], NO_ATTRS, 0),
        op(
            CtOp::Reduce,
            0x58,
            V1,
            PURE | DEFAULT_DIALECT,
            &[var("operands", C::AnyTile)],
            &[var("results", C::AnyTile)],
            &[req("dim", AttrKind::I32), req("identities", AttrKind::ScalarArray)],
            1,
        ),
        op(CtOp::RemF, 0x59, V1, EW, F_BINARY, F_RESULT, NO_ATTRS, 0),
        op(CtOp::RemI, 0x5A, V1, EW | NO_MEMORY_EFFECT, INT_BINARY, INT_RESULT, SIGNED_ATTRS, 0),
        op(CtOp::Reshape, 0x5B, V1, PURE, ANY_IN, ANY_OUT, NO_ATTRS, 0),
        op(CtOp::Return, 0x5C, V1, TERMINATOR | PURE, TERMINATOR_OPERANDS, NONE, NO_ATTRS, 0),
        op(CtOp::Rsqrt, 0x5D, V1, EW, F_UNARY, F_RESULT, FTZ_ATTRS, 0),
        op(
            CtOp::Scan,
            0x5E,
            V1,
            PURE | DEFAULT_DIALECT,
            &[var("operands", C::AnyTile)],
            &[var("results", C::AnyTile)],
            &[req("dim", AttrKind::I32), req("reverse", AttrKind::Bool), req("identities", AttrKind::ScalarArray)],
            1,
        ),
        op(
            CtOp::Select,
            0x5F,
            V1,
            PURE | ELEMENTWISE,
            &[one("cond", C::I1Tile), one("val_if_true", C::AnyTile), one("val_if_false", C::AnyTile)],
            ANY_OUT,
            NO_ATTRS,
            0,
        ),
        op(CtOp::ShlI, 0x60, V1, EW, INT_BINARY, INT_RESULT, OVERFLOW_ATTRS, 0),
        op(CtOp::ShrI, 0x61, V1, EW, INT_BINARY, INT_RESULT, SIGNED_ATTRS, 0),
        op(CtOp::Sin, 0x62, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(CtOp::SinH, 0x63, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(CtOp::Sqrt, 0x64, V1, EW, F_UNARY, F_RESULT, IEEE_FLOAT_ATTRS, 0),
        op(
            CtOp::StorePtrTko,
            0x65,
            V1,
            SEGMENTED,
            &[
                one("destination", C::PtrTile),
                one("value", C::NumberTile),
                opt("mask", C::I1Tile),
                opt("token", C::Token),
            ],
            VIEW_OUT_TOKEN,
            VIEW_ACCESS_ATTRS,
            0,
        ),
        op(
            CtOp::StoreViewTko,
            0x66,
            V1,
            SEGMENTED,
            &[one("tile", C::NumberTile), one("view", C::TileView), var("index", C::IntTile), opt("token", C::Token)],
            VIEW_OUT_TOKEN,
            VIEW_ACCESS_ATTRS,
            0,
        ),
        op(CtOp::SubF, 0x67, V1, EW, F_BINARY, F_RESULT, IEEE_FLOAT_ATTRS, 0),
        op(CtOp::SubI, 0x68, V1, EW, INT_BINARY, INT_RESULT, OVERFLOW_ATTRS, 0),
        op(CtOp::Tan, 0x69, V1, EW, F_UNARY, F_RESULT, NO_ATTRS, 0),
        op(
            CtOp::TanH,
            0x6A,
            V1,
            EW,
            F_UNARY,
            F_RESULT,
            &[attr_since(dflt("rounding_mode", ROUNDING, "full"), V2)],
            0,
        ),
        op(
            CtOp::TruncI,
            0x6B,
            V1,
            PURE | ELEMENTWISE,
            &[one("from", C::IntOrI4Tile)],
            &[one("to", C::IntOrI4Tile)],
            OVERFLOW_ATTRS,
            0,
        ),
        op(CtOp::XOrI, 0x6C, V1, EW, INT_BINARY, INT_RESULT, NO_ATTRS, 0),
        op(CtOp::Yield, 0x6D, V1, TERMINATOR | PURE, TERMINATOR_OPERANDS, NONE, NO_ATTRS, 0),
        op(CtOp::Atan2, 0x6E, V2, EW, &[one("x", C::BaseFloatTile), one("y", C::BaseFloatTile)], F_RESULT, NO_ATTRS, 0),
        op(CtOp::Pack, 0x6F, V3, PURE, &[one("source", C::NumberOrI4Tile)], &[one("result", C::I8Tile)], NO_ATTRS, 0),
        op(CtOp::Unpack, 0x70, V3, PURE, &[one("source", C::I8Tile)], &[one("result", C::NumberOrI4Tile)], NO_ATTRS, 0),
        op(
            CtOp::Alloca,
            0x71,
            V3,
            0,
            NONE,
            &[one("result", C::ScalarPtr)],
            &[req("num_elem", AttrKind::I64), req("alignment", AttrKind::I64), unit("global")],
            0,
        ),
        op(
            CtOp::MmaFScaled,
            0x72,
            V3,
            PURE,
            &[
                one("lhs", C::FloatTile),
                one("rhs", C::FloatTile),
                one("acc", C::FloatTile),
                one("lhs_scale", C::FloatTile),
                one("rhs_scale", C::FloatTile),
            ],
            &[one("result", C::FloatTile)],
            NO_ATTRS,
            0,
        ),
        op(CtOp::MakeGatherScatterView, 0x73, V3, PURE, MAKE_VIEW_IN, &[one("result", C::GatherScatterView)], NO_ATTRS, 0),
        op(CtOp::MakeStridedView, 0x74, V3, PURE, MAKE_VIEW_IN, &[one("result", C::StridedView)], NO_ATTRS, 0),
        op(
            CtOp::AtomicRedViewTko,
            0x75,
            V3,
            SEGMENTED,
            &[one("view", C::TileView), var("index", C::IntTile), one("value", C::NumberTile), opt("token", C::Token)],
            VIEW_OUT_TOKEN,
            &[req("memory_ordering_semantics", ORDERING), req("memory_scope", SCOPE), req("mode", MODE)],
            0,
        ),
        // 13.4 programmatic dependent launch (opcodes and layout from NVIDIA's cuTile Python
        // encoder): an optional input token, a result token, no attributes.
        op(
            CtOp::GdcLaunchDependentsTko,
            0x77,
            V4,
            0,
            &[since(opt("token", C::Token), V4)],
            &[since(one("result_token", C::Token), V4)],
            NO_ATTRS,
            0,
        ),
        op(
            CtOp::GdcWaitTko,
            0x78,
            V4,
            0,
            &[since(opt("token", C::Token), V4)],
            &[since(one("result_token", C::Token), V4)],
            NO_ATTRS,
            0,
        ),
        op(
            CtOp::TestingFunc,
            0x3001,
            Version::TESTING,
            SYMBOL | FUNCTION | DEFAULT_DIALECT | TEST_ONLY,
            NONE,
            NONE,
            FUNC_ATTRS,
            1,
        ),
        // Test-only ops of NVIDIA's bytecode versioning tests (opcodes 0x3000+): each is a
        // 250.0 op that gained fields in 250.1, so that writing to 250.0 exercises every
        // rule for fields newer than the target.
        op(
            CtOp::TestingBytecodeNewAttribute,
            0x3000,
            Version::TESTING,
            TEST_ONLY,
            NONE,
            NONE,
            &[
                attr_since(unit("new_flag"), Version::TESTING_1),
                attr_since(dflt("new_param", AttrKind::I32, "42"), Version::TESTING_1),
            ],
            0,
        ),
        op(
            CtOp::TestingBytecodeEvolution,
            0x3002,
            Version::TESTING,
            SEGMENTED | TEST_ONLY,
            &[
                since(var("inputs", C::AnyTile), Version::TESTING),
                since(opt("optional_token", C::Token), Version::TESTING_1),
            ],
            &[since(one("result_token", C::Token), Version::TESTING_1)],
            &[attr_since(optional("new_attr", AttrKind::I32), Version::TESTING_1)],
            0,
        ),
    ];
    // Fill in mnemonics from the enum so they cannot disagree.
    let mut i = 0;
    while i < table.len() {
        table[i].mnemonic = CtOp::MNEMONICS[table[i].op as usize];
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_op() {
        for (i, s) in SCHEMAS.iter().enumerate() {
            assert_eq!(s.op as usize, i, "schema row {i} is {:?}", s.op);
            assert_eq!(s.mnemonic, s.op.mnemonic());
        }
    }

    #[test]
    fn counts_match_the_reference() {
        let public = SCHEMAS.iter().filter(|s| !s.has(traits::TEST_ONLY)).count();
        assert_eq!(public, CtOp::NUM_PUBLIC);
        let by_version = |v| SCHEMAS.iter().filter(|s| !s.has(traits::TEST_ONLY) && s.since <= v).count();
        assert_eq!(by_version(Version::V13_1), 92);
        assert_eq!(by_version(Version::V13_2), 93);
        assert_eq!(by_version(Version::V13_3), 100);
    }

    #[test]
    fn opcodes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for s in SCHEMAS.iter() {
            assert!(seen.insert(s.opcode), "duplicate opcode {:#x} ({})", s.opcode, s.mnemonic);
        }
    }

    #[test]
    fn segmented_ops_are_the_ones_with_several_variable_groups() {
        for s in SCHEMAS.iter() {
            let variable = s.operands.iter().filter(|o| o.arity != Arity::One).count();
            if variable > 1 {
                assert!(s.has(traits::SEGMENTED), "{} has {variable} variable operand groups", s.mnemonic);
            }
        }
    }
}
