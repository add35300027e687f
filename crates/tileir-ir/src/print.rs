//! The textual printer: MLIR custom syntax (the form cuda_tile tools print) or MLIR's
//! generic op form, optionally with `loc(...)` trailers (`-mlir-print-debuginfo`).
//!
//! Output is canonical and deterministic: value names come from source names made
//! unique per function, then from a counter; default-valued attributes are elided in
//! custom syntax and always printed in generic syntax; dense literals print splats as
//! one scalar, integers signed, floats as MLIR prints them. With debug info, every
//! location is printed through an alias (`loc(#loc3)`) and the aliases (`#loc3 = …`,
//! `#di_file = …`) follow the module, ordered as MLIR orders them (by nesting depth,
//! then alias name, then first use).
//!
//! The custom syntax of the regular cuda_tile ops is described once, declaratively, in
//! [`format`]; the printer here and the parser in `tileir-syntax` both interpret it.

use crate::attrs::{Attr, DenseElements};
use crate::dialect::cuda_tile::{AttrKind, CtOp, CudaTileOp, Presence};
use crate::dialect::tileaa::{TileAaOp, TiledAccess, AXES};
use crate::dialect::tileas::TileAsOp;
use crate::location::{DiCompileUnit, DiFile, DiLexicalBlock, DiScope, DiSubprogram, Location};
use crate::module::{BlockId, Module, OpId, ValueId};
use crate::op::OpKind;
use crate::types::{Dim, NumType, TileElem, Type, TypeId};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Printer switches.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// MLIR generic op form (`"cuda_tile.addf"(%a, %b) <{…}> : (…) -> …`).
    pub generic: bool,
    /// Append `loc(...)` to every op (`-mlir-print-debuginfo`).
    pub debug_info: bool,
}

/// The declarative custom syntax of the regular cuda_tile ops, shared by the printer
/// and the parser (`tileir-syntax`) so that the two cannot disagree.
///
/// A regular op prints as `name operands modifiers [{attrs}] : types`, where the
/// operands are all operands comma-separated, the modifiers are [`Mod`]s in the listed
/// order (the parser accepts them in any order), and `types` follows [`Types`]. Ops
/// whose syntax does not fit this shape ([`of`] returns `None`) are hand-written in both.
pub mod format {
    use crate::dialect::cuda_tile::CtOp;

    /// IEEE rounding modes: the set `addf`/`subf`/`mulf`/`fma` parse.
    pub const IEEE_ROUNDING: &[&str] = &["nearest_even", "zero", "negative_inf", "positive_inf"];
    /// Rounding modes `sqrt` parses.
    pub const SQRT_ROUNDING: &[&str] = &[
        "nearest_even",
        "zero",
        "negative_inf",
        "positive_inf",
        "approx",
    ];

    /// One attribute spelled between the operands and the `:`.
    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    pub enum Mod {
        /// `prefix<keyword>` for an enum attribute; omitted when it has its default value.
        /// `allowed` restricts the keywords the parser accepts (MLIR's custom parsers).
        Wrapped {
            /// Attribute name.
            attr: &'static str,
            /// Spelled word (`rounding`, `overflow`).
            prefix: &'static str,
            /// Keywords the parser accepts (None: every keyword of the enum).
            allowed: Option<&'static [&'static str]>,
        },
        /// A bare required enum keyword (`signed`).
        Keyword {
            /// Attribute name.
            attr: &'static str,
        },
        /// A unit flag spelled as its name (`flush_to_zero`).
        Unit {
            /// Attribute name.
            attr: &'static str,
        },
        /// `name = N` for an integer attribute (`dim = 1`).
        AttrEq {
            /// Attribute name (also the spelled word).
            attr: &'static str,
        },
        /// `[a, b, …]` for an i32 array attribute (`permute`).
        Bracketed {
            /// Attribute name.
            attr: &'static str,
        },
    }

    /// How the type list after `:` maps to operands and results.
    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    pub enum Types {
        /// `: T` — every operand and every result has type T.
        Same,
        /// `: Tin -> Tout` — one operand of Tin, every result Tout.
        Conv,
        /// `: T0, T1, …` (`written` types); operand i has type `operands[i]`; the result type
        /// is given by `result`.
        List {
            /// Number of types written before any `->`.
            written: u8,
            /// For each operand, the index of its written type.
            operands: &'static [u8],
            /// Where the (single) result type comes from.
            result: Res,
        },
    }

    /// Source of the result type in [`Types::List`].
    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    pub enum Res {
        /// Written after `->`.
        Arrow,
        /// Equal to written type `k`.
        Written(u8),
    }

    /// The custom syntax of one regular op.
    #[derive(Copy, Clone, Debug, PartialEq, Eq)]
    pub struct Format {
        /// Modifiers between operands and `:`, in print order.
        pub mods: &'static [Mod],
        /// The type list.
        pub types: Types,
    }

    const RND: Mod = Mod::Wrapped {
        attr: "rounding_mode",
        prefix: "rounding",
        allowed: None,
    };
    const RND_IEEE: Mod = Mod::Wrapped {
        attr: "rounding_mode",
        prefix: "rounding",
        allowed: Some(IEEE_ROUNDING),
    };
    const RND_SQRT: Mod = Mod::Wrapped {
        attr: "rounding_mode",
        prefix: "rounding",
        allowed: Some(SQRT_ROUNDING),
    };
    const OVF: Mod = Mod::Wrapped {
        attr: "overflow",
        prefix: "overflow",
        allowed: None,
    };
    const FTZ: Mod = Mod::Unit {
        attr: "flush_to_zero",
    };
    const SIGN: Mod = Mod::Keyword { attr: "signedness" };

    const fn same(mods: &'static [Mod]) -> Option<Format> {
        Some(Format {
            mods,
            types: Types::Same,
        })
    }
    const fn conv(mods: &'static [Mod]) -> Option<Format> {
        Some(Format {
            mods,
            types: Types::Conv,
        })
    }
    const fn list(
        mods: &'static [Mod],
        written: u8,
        operands: &'static [u8],
        result: Res,
    ) -> Option<Format> {
        Some(Format {
            mods,
            types: Types::List {
                written,
                operands,
                result,
            },
        })
    }

    /// The declarative format of `op`, or `None` when its syntax is hand-written.
    pub fn of(op: CtOp) -> Option<Format> {
        use CtOp::*;
        match op {
            AbsF | AbsI | AndI | Ceil | Cos | CosH | Floor | Log | Log2 | MulHiI | NegF | OrI
            | Pow | RemF | Sin | SinH | Tan | XOrI | Atan2 | Iota | MakeToken | JoinTokens
            | GetTileBlockId | GetNumTileBlocks => same(&[]),
            AddF | SubF | MulF | Fma => same(&[RND_IEEE, FTZ]),
            DivF => same(&[RND, FTZ]),
            Sqrt => same(&[RND_SQRT, FTZ]),
            AddI | SubI | MulI | ShlI | NegI => same(&[OVF]),
            DivI => same(&[
                SIGN,
                Mod::Wrapped {
                    attr: "rounding",
                    prefix: "rounding",
                    allowed: None,
                },
            ]),
            MaxI | MinI | RemI | ShrI => same(&[SIGN]),
            Exp | TanH => same(&[RND]),
            Exp2 | Rsqrt => same(&[FTZ]),
            MaxF | MinF => same(&[
                FTZ,
                Mod::Unit {
                    attr: "propagate_nan",
                },
            ]),
            Bitcast | IntToPtr | PtrToInt | PtrToPtr | Broadcast | Reshape | Pack | Unpack
            | GetTensorShape | GetIndexSpaceShape => conv(&[]),
            ExtI => conv(&[SIGN]),
            TruncI => conv(&[OVF]),
            FToF => conv(&[RND]),
            FToI | IToF => conv(&[SIGN, RND]),
            Permute => conv(&[Mod::Bracketed {
                attr: "permutation",
            }]),
            Offset => list(&[], 2, &[0, 1], Res::Arrow),
            Cat => list(&[Mod::AttrEq { attr: "dim" }], 2, &[0, 1], Res::Arrow),
            MmaF => list(
                &[Mod::Unit { attr: "fast_acc" }],
                3,
                &[0, 1, 2],
                Res::Written(2),
            ),
            MmaI => list(
                &[
                    Mod::Keyword {
                        attr: "signedness_lhs",
                    },
                    Mod::Keyword {
                        attr: "signedness_rhs",
                    },
                ],
                3,
                &[0, 1, 2],
                Res::Written(2),
            ),
            MmaFScaled => list(&[], 5, &[0, 1, 2, 3, 4], Res::Written(2)),
            Select => list(&[], 2, &[0, 1, 1], Res::Written(1)),
            _ => None,
        }
    }
}

/// Architecture keys accepted in `optimization_hints` (§4.4).
pub const HINT_KEYS: &[&str] = &[
    "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120",
    "sm_121", "default",
];

/// Prints the whole module.
pub fn print_module(module: &Module, options: PrintOptions) -> String {
    let mut p = Printer {
        m: module,
        opts: options,
        out: String::new(),
        names: HashMap::new(),
        used: HashSet::new(),
        next: 0,
        next_arg: 0,
        aliases: Aliases::default(),
    };
    if options.debug_info {
        p.collect_aliases();
    }
    for &op in &module.blocks[module.body].ops {
        p.reset_names();
        p.op(op, 0, false);
    }
    if options.debug_info {
        p.print_aliases();
    }
    p.out
}

/// Escapes a string for MLIR string literals (printable ASCII kept; `"`, `\` and
/// non-printable bytes as `\XX`).
pub fn escape_string(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\22"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7F => {
                let _ = write!(out, "\\{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The float format of a float element type.
pub fn float_format(t: NumType) -> Option<tileir_numeric::FloatFormat> {
    if t.is_int() {
        None
    } else {
        tileir_numeric::FloatFormat::from_mlir_name(t.keyword())
    }
}

/// One element of a dense literal or a typed scalar as MLIR prints it: integers signed
/// (`-1` for i16 `0xFFFF`), i1 as `true`/`false`, floats in MLIR's style.
pub fn scalar_text(t: NumType, bits: u64) -> String {
    if t == NumType::I1 {
        return if bits & 1 == 1 {
            "true".into()
        } else {
            "false".into()
        };
    }
    match float_format(t) {
        Some(f) => tileir_numeric::format_mlir(f, bits),
        None => tileir_numeric::sign_extend(bits, t.bit_width()).to_string(),
    }
}

/// The body of a dense literal in custom syntax: `<f32: [1.000000e+00, 2.000000e+00]>`;
/// a splat (or a literal whose elements are all equal) prints as one scalar.
pub fn dense_text(d: &DenseElements) -> String {
    let mut out = format!("<{}: ", d.elem);
    let n = d.num_elements();
    let all_equal = d.is_splat() || (n > 0 && (0..n).all(|i| d.get(i) == d.get(0)));
    if all_equal && !d.bits.is_empty() {
        out.push_str(&scalar_text(d.elem, d.bits[0]));
    } else {
        write_nested(&mut out, d, 0, &mut 0);
    }
    out.push('>');
    out
}

fn write_nested(out: &mut String, d: &DenseElements, dim: usize, next: &mut usize) {
    if dim == d.shape.len() {
        out.push_str(&scalar_text(
            d.elem,
            d.bits.get(*next).copied().unwrap_or(0),
        ));
        *next += 1;
        return;
    }
    out.push('[');
    for i in 0..d.shape[dim].max(0) {
        if i > 0 {
            out.push_str(", ");
        }
        write_nested(out, d, dim + 1, next);
    }
    out.push(']');
}

/// The generic form of a dense attribute: `dense<…> : tensor<…>`.
pub fn dense_generic_text(d: &DenseElements) -> String {
    let body = dense_text(d);
    // Strip `<elem: ` and `>`: generic syntax names the type after the literal instead.
    let inner = body
        .split_once(": ")
        .map(|(_, r)| r)
        .unwrap_or("")
        .trim_end_matches('>');
    let mut ty = String::from("tensor<");
    for s in &d.shape {
        let _ = write!(ty, "{s}x");
    }
    let _ = write!(ty, "{}>", d.elem);
    format!("dense<{inner}> : {ty}")
}

/// The text of an optimization-hints dictionary inside `<…>`: `sm_100 = {num_cta_in_cga = 2}`.
pub fn hints_text(entries: &[(String, Attr)], types: &crate::types::TypeTable) -> String {
    entries
        .iter()
        .map(|(k, v)| format!("{} = {}", hint_key_text(k), attr_text_elided(v, types)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A hint key as MLIR prints a dictionary key: bare when it is an identifier, quoted
/// otherwise (13.3 accepts string keys such as `"sm 100"`).
fn hint_key_text(k: &str) -> String {
    let bare = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || "_$.".contains(c));
    if bare {
        k.to_string()
    } else {
        format!("\"{}\"", escape_string(k))
    }
}

/// Attribute text with `i64` integer types elided (MLIR's `AttrTypeElision::May`, used for
/// the values inside hint dictionaries).
fn attr_text_elided(attr: &Attr, types: &crate::types::TypeTable) -> String {
    match attr {
        Attr::Int(i) => i.to_string(),
        Attr::Dict(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{k} = {}", attr_text_elided(v, types)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => attr_value_text(other, types),
    }
}

/// Prints a symbol name, quoting it when it is not a bare identifier.
pub fn symbol_text(s: &str) -> String {
    if is_ident(s) {
        format!("@{s}")
    } else {
        format!("@\"{}\"", escape_string(s))
    }
}

/// Generic text of an attribute value (integers as `N : i64`).
pub fn attr_value_text(attr: &Attr, types: &crate::types::TypeTable) -> String {
    match attr {
        Attr::Unit => "unit".into(),
        Attr::Bool(b) => b.to_string(),
        Attr::Int(i) => format!("{i} : i64"),
        Attr::Str(s) => format!("\"{}\"", escape_string(s)),
        Attr::Enum(mnemonic, kw) => format!("#cuda_tile.{mnemonic}<{kw}>"),
        Attr::IntArray(v) => {
            let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            if items.is_empty() {
                "array<i64>".into()
            } else {
                format!("array<i64: {}>", items.join(", "))
            }
        }
        Attr::Type(t) => types.display(*t, false),
        Attr::Symbol(s) => symbol_text(s),
        Attr::Scalar(t, bits) => format!("{} : {t}", scalar_text(*t, *bits)),
        Attr::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|a| attr_value_text(a, types))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Attr::Dict(entries) => {
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    if *v == Attr::Unit {
                        k.clone()
                    } else {
                        format!("{k} = {}", attr_value_text(v, types))
                    }
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Attr::Dense(d) => dense_generic_text(d),
        Attr::Assume(p) => format!("#cuda_tile.{}", p.text()),
        Attr::Opaque(text) => text.clone(),
    }
}

/// Generic text of attribute `value` declared with `kind` on a cuda_tile op.
fn typed_attr_text(
    kind: Option<AttrKind>,
    name: &str,
    value: &Attr,
    types: &crate::types::TypeTable,
) -> String {
    match (kind, value) {
        (Some(AttrKind::I32), Attr::Int(i)) => format!("{i} : i32"),
        (Some(AttrKind::Enum(e)), Attr::Enum(_, kw)) if e.prints_as_i32() => {
            format!("{} : i32", e.value_of(kw).unwrap_or(0))
        }
        (Some(AttrKind::I32Array), Attr::IntArray(v)) => i32_array_text(v),
        (None, Attr::IntArray(v)) if name == "operandSegmentSizes" => i32_array_text(v),
        (Some(AttrKind::Hints), Attr::Dict(entries)) => format!(
            "#cuda_tile.optimization_hints<{}>",
            hints_text(entries, types)
        ),
        _ => attr_value_text(value, types),
    }
}

fn i32_array_text(v: &[i64]) -> String {
    if v.is_empty() {
        "array<i32>".into()
    } else {
        format!(
            "array<i32: {}>",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Whether `s` can be printed bare after `%`/`@`.
fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
        && !s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// A location or debug-info attribute that gets an alias.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum AliasKey {
    Loc(Location),
    File(DiFile),
    CompileUnit(DiCompileUnit),
    Subprogram(DiSubprogram),
    LexicalBlock(DiLexicalBlock),
}

impl AliasKey {
    fn base(&self) -> &'static str {
        match self {
            AliasKey::Loc(_) => "loc",
            AliasKey::File(_) => "di_file",
            AliasKey::CompileUnit(_) => "di_compile_unit",
            AliasKey::Subprogram(_) => "di_subprogram",
            AliasKey::LexicalBlock(_) => "di_lexical_block",
        }
    }
}

#[derive(Default)]
struct Aliases {
    /// In first-use order: key, depth.
    order: Vec<(AliasKey, usize)>,
    index: HashMap<AliasKey, usize>,
    /// Final names, by `order` index.
    names: Vec<String>,
    /// `order` indices in print order.
    sorted: Vec<usize>,
}

impl Aliases {
    fn name(&self, key: &AliasKey) -> Option<&str> {
        self.index.get(key).map(|&i| self.names[i].as_str())
    }
}

struct Printer<'a> {
    m: &'a Module,
    opts: PrintOptions,
    out: String,
    names: HashMap<ValueId, String>,
    used: HashSet<String>,
    next: usize,
    /// Next `%argN` number for unnamed block arguments (MLIR's spelling).
    next_arg: usize,
    aliases: Aliases,
}

/// Saved naming state (functions restart value numbering, like MLIR's isolated ops).
type NameState = (HashMap<ValueId, String>, HashSet<String>, usize, usize);

impl<'a> Printer<'a> {
    fn reset_names(&mut self) {
        self.names.clear();
        self.used.clear();
        self.next = 0;
        self.next_arg = 0;
    }

    fn save_names(&mut self) -> NameState {
        (
            std::mem::take(&mut self.names),
            std::mem::take(&mut self.used),
            std::mem::replace(&mut self.next, 0),
            std::mem::replace(&mut self.next_arg, 0),
        )
    }

    fn restore_names(&mut self, s: NameState) {
        self.names = s.0;
        self.used = s.1;
        self.next = s.2;
        self.next_arg = s.3;
    }

    fn name(&mut self, v: ValueId) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        let candidate = match self.m.values.get(v).and_then(|d| d.name.clone()) {
            Some(hint) if is_ident(&hint) => {
                let mut name = hint.clone();
                let mut k = 1;
                while self.used.contains(&name) {
                    name = format!("{hint}_{k}");
                    k += 1;
                }
                name
            }
            _ => {
                let is_arg = matches!(
                    self.m.values.get(v).map(|d| d.def),
                    Some(crate::module::ValueDef::BlockArg { .. })
                );
                loop {
                    let name = if is_arg {
                        self.next_arg += 1;
                        format!("arg{}", self.next_arg - 1)
                    } else {
                        self.next += 1;
                        (self.next - 1).to_string()
                    };
                    if !self.used.contains(&name) {
                        break name;
                    }
                }
            }
        };
        self.used.insert(candidate.clone());
        let text = format!("%{candidate}");
        self.names.insert(v, text.clone());
        text
    }

    fn ty(&self, t: TypeId, short: bool) -> String {
        self.m.types.display(t, short && !self.opts.generic)
    }

    fn vty(&self, v: ValueId, short: bool) -> String {
        self.ty(self.m.value_type(v), short)
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    // ---- debug-info aliases ----

    fn collect_aliases(&mut self) {
        let mut a = Aliases::default();
        for op in self.m.walk() {
            let loc = self.m.op_location(op);
            reg_loc(&mut a, &loc);
        }
        let mut sorted: Vec<usize> = (0..a.order.len()).collect();
        sorted.sort_by(|&x, &y| {
            let (kx, dx) = &a.order[x];
            let (ky, dy) = &a.order[y];
            dx.cmp(dy).then(kx.base().cmp(ky.base())).then(x.cmp(&y))
        });
        let mut counters: HashMap<&'static str, usize> = HashMap::new();
        a.names = vec![String::new(); a.order.len()];
        for &i in &sorted {
            let base = a.order[i].0.base();
            let c = counters.entry(base).or_insert(0);
            a.names[i] = if *c == 0 {
                format!("#{base}")
            } else {
                format!("#{base}{c}")
            };
            *c += 1;
        }
        a.sorted = sorted;
        self.aliases = a;
    }

    fn loc_ref(&self, l: &Location) -> String {
        match self.aliases.name(&AliasKey::Loc(l.clone())) {
            Some(n) => n.to_string(),
            None => {
                let s = l.to_string();
                s.strip_prefix("loc(")
                    .and_then(|s| s.strip_suffix(')'))
                    .unwrap_or(&s)
                    .to_string()
            }
        }
    }

    fn alias_or(&self, key: AliasKey, inline: impl FnOnce() -> String) -> String {
        match self.aliases.name(&key) {
            Some(n) => n.to_string(),
            None => inline(),
        }
    }

    fn file_ref(&self, f: &DiFile) -> String {
        self.alias_or(AliasKey::File(f.clone()), || f.to_string())
    }
    fn cu_ref(&self, c: &DiCompileUnit) -> String {
        self.alias_or(AliasKey::CompileUnit(c.clone()), || c.to_string())
    }
    fn scope_ref(&self, s: &DiScope) -> String {
        match s {
            DiScope::Subprogram(sp) => {
                self.alias_or(AliasKey::Subprogram((**sp).clone()), || sp.to_string())
            }
            DiScope::LexicalBlock(b) => {
                self.alias_or(AliasKey::LexicalBlock((**b).clone()), || b.to_string())
            }
        }
    }

    fn print_aliases(&mut self) {
        let sorted = self.aliases.sorted.clone();
        for i in sorted {
            let (key, _) = self.aliases.order[i].clone();
            let name = self.aliases.names[i].clone();
            let body = match &key {
                AliasKey::Loc(l) => match l {
                    Location::Unknown | Location::FileLineCol { .. } => l.to_string(),
                    Location::Fused(parts) => {
                        format!(
                            "loc(fused[{}])",
                            parts
                                .iter()
                                .map(|p| self.loc_ref(p))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                    Location::Name { name, child } => match child {
                        Some(c) => format!("loc(\"{}\"({}))", escape_string(name), self.loc_ref(c)),
                        None => format!("loc(\"{}\")", escape_string(name)),
                    },
                    Location::CallSite { callee, caller } => {
                        format!(
                            "loc(callsite({} at {}))",
                            self.loc_ref(callee),
                            self.loc_ref(caller)
                        )
                    }
                    Location::DiLoc { loc, scope } => {
                        format!(
                            "#cuda_tile.di_loc<{} in {}>",
                            self.loc_ref(loc),
                            self.scope_ref(scope)
                        )
                    }
                },
                AliasKey::File(f) => f.to_string(),
                AliasKey::CompileUnit(c) => format!(
                    "#cuda_tile.di_compile_unit<file = {}>",
                    self.file_ref(&c.file)
                ),
                AliasKey::Subprogram(s) => {
                    let mut t = format!(
                        "#cuda_tile.di_subprogram<file = {}, line = {}, name = \"{}\", linkageName = \"{}\", compileUnit = {}",
                        self.file_ref(&s.file),
                        s.line,
                        escape_string(&s.name),
                        escape_string(&s.linkage_name),
                        self.cu_ref(&s.compile_unit)
                    );
                    if let Some(l) = s.scope_line {
                        let _ = write!(t, ", scopeLine = {l}");
                    }
                    t.push('>');
                    t
                }
                AliasKey::LexicalBlock(b) => {
                    let mut t = format!(
                        "#cuda_tile.di_lexical_block<scope = {}, file = {}, line = {}",
                        self.scope_ref(&b.scope),
                        self.file_ref(&b.file),
                        b.line
                    );
                    if let Some(c) = b.column {
                        let _ = write!(t, ", column = {c}");
                    }
                    t.push('>');
                    t
                }
            };
            let _ = writeln!(self.out, "{name} = {body}");
        }
    }

    fn loc_suffix(&mut self, op: OpId) {
        if self.opts.debug_info {
            let loc = self.m.op_location(op);
            let r = self.loc_ref(&loc);
            let _ = write!(self.out, " loc({r})");
        }
    }

    // ---- common pieces ----

    fn results_prefix(&mut self, op: OpId) {
        let results = self.m.ops[op].results.clone();
        if results.is_empty() {
            return;
        }
        // Results without their own names print as one group (`%r:3`, used as `%r#1`),
        // as MLIR prints them.
        // The dialect names the (value, token) results of its memory ops individually
        // (getAsmResultNames), so those never print as a group.
        let split = matches!(
            self.m.ops[op].kind.ct(),
            Some(CtOp::LoadViewTko | CtOp::LoadPtrTko | CtOp::AtomicRmwTko | CtOp::AtomicCasTko)
        );
        let grouped = results.len() > 1
            && !split
            && !self.names.contains_key(&results[0])
            && results[1..]
                .iter()
                .all(|&r| self.m.values.get(r).is_none_or(|d| d.name.is_none()));
        if grouped {
            let base = self.name(results[0]);
            for (i, &r) in results.iter().enumerate() {
                self.names.insert(r, format!("{base}#{i}"));
            }
            let _ = write!(self.out, "{base}:{} = ", results.len());
            return;
        }
        let names: Vec<String> = results.iter().map(|&r| self.name(r)).collect();
        let _ = write!(self.out, "{} = ", names.join(", "));
    }

    fn op(&mut self, op: OpId, depth: usize, in_cuda_tile: bool) {
        // Functions restart value naming (they are isolated from above, as in MLIR).
        if matches!(
            self.m.ops[op].kind.ct(),
            Some(CtOp::Entry | CtOp::TestingFunc)
        ) {
            let saved = self.save_names();
            self.op_inner(op, depth, in_cuda_tile);
            self.restore_names(saved);
        } else {
            self.op_inner(op, depth, in_cuda_tile);
        }
    }

    fn op_inner(&mut self, op: OpId, depth: usize, in_cuda_tile: bool) {
        self.indent(depth);
        if self.opts.generic {
            self.generic(op, depth);
        } else {
            let kind = self.m.ops[op].kind.clone();
            match &kind {
                OpKind::CudaTile(ct) => {
                    let mark = self.out.len();
                    if !self.cuda_tile(op, ct, depth, in_cuda_tile) {
                        // The custom form cannot express this op (invalid IR, unusual
                        // attributes): the generic form always can.
                        self.out.truncate(mark);
                        self.generic(op, depth);
                    }
                }
                OpKind::TileAa(aa) => self.tileaa(op, aa, depth),
                OpKind::TileAs(ts) => self.tileas(op, ts, depth),
                OpKind::Unregistered(_) => self.generic(op, depth),
            }
        }
        self.loc_suffix(op);
        self.out.push('\n');
    }

    fn operand_list(&mut self, vals: &[ValueId]) -> String {
        vals.iter()
            .map(|&v| self.name(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn type_list(&self, vals: &[ValueId], short: bool) -> String {
        vals.iter()
            .map(|&v| self.vty(v, short))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn block_body(&mut self, block: BlockId, depth: usize, in_cuda_tile: bool) {
        for &inner in &self.m.blocks[block].ops.clone() {
            self.op(inner, depth, in_cuda_tile);
        }
    }

    /// Prints a block's ops, leaving out a trailing terminator `implicit` with no operands.
    fn block_body_elide(&mut self, block: BlockId, depth: usize, implicit: CtOp) {
        let ops = self.m.blocks[block].ops.clone();
        for (i, &inner) in ops.iter().enumerate() {
            let d = &self.m.ops[inner];
            let elide = i + 1 == ops.len()
                && d.kind.ct() == Some(implicit)
                && d.operands.is_empty()
                && (!self.opts.debug_info || self.m.op_location(inner) == Location::Unknown);
            if !elide {
                self.op(inner, depth, true);
            }
        }
    }

    fn signature(&mut self, block: Option<BlockId>, short: bool) -> String {
        let args = block
            .map(|b| self.m.blocks[b].args.clone())
            .unwrap_or_default();
        let parts: Vec<String> = args
            .iter()
            .map(|&a| {
                let n = self.name(a);
                format!("{n}: {}", self.vty(a, short))
            })
            .collect();
        parts.join(", ")
    }

    // ---- generic form ----

    fn generic(&mut self, op: OpId, depth: usize) {
        self.results_prefix(op);
        let data = self.m.ops[op].clone();
        let operands = self.operand_list(&data.operands);
        let legacy_print = is_legacy_print(&data);
        let name = if legacy_print {
            "cuda_tile.print".to_string()
        } else {
            data.kind.name()
        };
        let _ = write!(self.out, "\"{name}\"({operands})");
        let (props, attrs): (Vec<String>, Vec<String>) = match &data.kind {
            OpKind::CudaTile(ct) => {
                let schema = ct.schema();
                let mut props: Vec<(String, String)> = Vec::new();
                for (spec, v) in schema.attrs.iter().zip(ct.attr_values()) {
                    if let Some(v) = v {
                        props.push((
                            spec.name.to_string(),
                            self.named_attr(spec.name, Some(spec.kind), v),
                        ));
                    }
                }
                if !ct.segments.is_empty() && !legacy_print {
                    let v: Vec<i64> = ct.segments.iter().map(|&s| s as i64).collect();
                    props.push((
                        "operandSegmentSizes".into(),
                        format!("operandSegmentSizes = {}", i32_array_text(&v)),
                    ));
                }
                // MLIR prints properties as a dictionary: sorted by name.
                props.sort_by(|a, b| a.0.cmp(&b.0));
                let attrs = ct
                    .discardable
                    .iter()
                    .map(|(n, a)| self.named_attr(n, None, a))
                    .collect();
                (props.into_iter().map(|p| p.1).collect(), attrs)
            }
            OpKind::Unregistered(u) => (
                Vec::new(),
                u.attrs
                    .iter()
                    .map(|(n, a)| self.named_attr(n, None, a))
                    .collect(),
            ),
            other => (
                other
                    .attributes()
                    .iter()
                    .map(|(n, a)| {
                        // A function's hints print as cuda_tile's hints attribute does (keys
                        // that are not identifiers quoted), so any key round trips.
                        let kind = (&**n == "optimization_hints").then_some(AttrKind::Hints);
                        self.named_attr(n, kind, a)
                    })
                    .collect(),
                Vec::new(),
            ),
        };
        if !props.is_empty() {
            let _ = write!(self.out, " <{{{}}}>", props.join(", "));
        }
        if !data.regions.is_empty() {
            self.out.push_str(" (");
            for (i, &region) in data.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str("{\n");
                for &block in &self.m.regions[region].blocks.clone() {
                    let args = self.m.blocks[block].args.clone();
                    if !args.is_empty() {
                        self.indent(depth);
                        let sig = self.signature(Some(block), false);
                        let _ = writeln!(self.out, "^bb0({sig}):");
                    } else if self.m.blocks[block].ops.is_empty() {
                        // An empty block must be spelled out: `{}` is a region without blocks.
                        self.indent(depth);
                        self.out.push_str("^bb0:\n");
                    }
                    self.block_body(block, depth + 1, false);
                }
                self.indent(depth);
                self.out.push('}');
            }
            self.out.push(')');
        }
        if !attrs.is_empty() {
            let _ = write!(self.out, " {{{}}}", attrs.join(", "));
        }
        let ins: Vec<String> = data.operands.iter().map(|&v| self.vty(v, false)).collect();
        let outs: Vec<String> = data.results.iter().map(|&v| self.vty(v, false)).collect();
        let outs = if outs.len() == 1
            && !self
                .m
                .types
                .display(self.m.value_type(data.results[0]), false)
                .starts_with('(')
        {
            outs[0].clone()
        } else {
            format!("({})", outs.join(", "))
        };
        let _ = write!(self.out, " : ({}) -> {}", ins.join(", "), outs);
    }

    fn named_attr(&self, name: &str, kind: Option<AttrKind>, attr: &Attr) -> String {
        if *attr == Attr::Unit {
            return name.to_string();
        }
        format!(
            "{name} = {}",
            typed_attr_text(kind, name, attr, &self.m.types)
        )
    }

    // ---- cuda_tile custom forms ----

    /// ` {name = value, …}` after an op's regions, when it has discardable attributes.
    fn trailing_discardable(&mut self, ct: &CudaTileOp) {
        if ct.discardable.is_empty() {
            return;
        }
        let parts: Vec<String> = ct
            .discardable
            .iter()
            .map(|(n, a)| self.named_attr(n, None, a))
            .collect();
        let _ = write!(self.out, " {{{}}}", parts.join(", "));
    }

    /// Prints the custom form; false when the op cannot be expressed in it.
    fn cuda_tile(&mut self, op: OpId, ct: &CudaTileOp, depth: usize, in_ct: bool) -> bool {
        let data = self.m.ops[op].clone();
        let prefix = if in_ct { "" } else { "cuda_tile." };
        let short = in_ct;
        let ops = data.operands.clone();
        let res = data.results.clone();
        let mn = ct.mnemonic();
        if let Some(f) = format::of(ct.op) {
            return self.regular(op, ct, f, prefix, short);
        }
        // `if` and `for` print their discardable attributes after the regions (NVIDIA's
        // loop-split hints); other custom forms have no place for them.
        // Functions print theirs as `attributes {…}` before the body.
        let trailing_attrs = matches!(
            ct.op,
            CtOp::If
                | CtOp::For
                | CtOp::Entry
                | CtOp::TestingFunc
                | CtOp::TestingBytecodeNewAttribute
                | CtOp::TestingBytecodeEvolution
        );
        if !ct.discardable.is_empty() && !trailing_attrs {
            return false;
        }
        let groups = match ct.operand_groups(ops.len()) {
            Some(g) => g,
            None => return false,
        };
        let group = |name: &str| -> Vec<ValueId> {
            let i = ct
                .schema()
                .operands
                .iter()
                .position(|o| o.name == name)
                .unwrap_or(usize::MAX);
            groups
                .get(i)
                .map(|r| ops[r.clone()].to_vec())
                .unwrap_or_default()
        };
        match ct.op {
            CtOp::Module => {
                let Some(name) = ct.str("sym_name") else {
                    return false;
                };
                let _ = write!(self.out, "{prefix}module {}", symbol_text(name));
                if let Some(p) = ct.str("producer") {
                    let _ = write!(
                        self.out,
                        " attributes {{producer = \"{}\"}}",
                        escape_string(p)
                    );
                }
                self.out.push_str(" {\n");
                if let Some(block) = self.m.entry_block(op, 0) {
                    let saved = self.save_names();
                    self.block_body(block, depth + 1, true);
                    self.restore_names(saved);
                }
                self.indent(depth);
                self.out.push('}');
            }
            CtOp::Entry | CtOp::TestingFunc => {
                let Some(name) = ct.str("sym_name") else {
                    return false;
                };
                let Some(block) = self.m.entry_block(op, 0) else {
                    return false;
                };
                let results = match ct.get("function_type") {
                    Some(Attr::Type(t)) => match self.m.types.get(*t) {
                        Type::Function { results, .. } => results.clone(),
                        _ => return false,
                    },
                    _ => return false,
                };
                if ct.op == CtOp::Entry && !results.is_empty() {
                    return false;
                }
                let arg_attrs = match ct.get("arg_attrs") {
                    Some(Attr::Array(a)) => a.clone(),
                    _ => Vec::new(),
                };
                let args = self.m.blocks[block].args.clone();
                let mut parts = Vec::new();
                for (i, &a) in args.iter().enumerate() {
                    let mut s = format!("{}: {}", self.name(a), self.vty(a, true));
                    if let Some(Attr::Dict(d)) = arg_attrs.get(i) {
                        if !d.is_empty() {
                            s.push(' ');
                            s.push_str(&attr_value_text(&Attr::Dict(d.clone()), &self.m.types));
                        }
                    }
                    parts.push(s);
                }
                let _ = write!(
                    self.out,
                    "{prefix}{mn} {}({})",
                    symbol_text(name),
                    parts.join(", ")
                );
                if !results.is_empty() {
                    let r: Vec<String> = results.iter().map(|&t| self.ty(t, true)).collect();
                    if r.len() == 1 && !r[0].starts_with('(') {
                        let _ = write!(self.out, " -> {}", r[0]);
                    } else {
                        let _ = write!(self.out, " -> ({})", r.join(", "));
                    }
                }
                if let Some(Attr::Dict(h)) = ct.get("optimization_hints") {
                    let _ = write!(
                        self.out,
                        " optimization_hints=<{}>",
                        hints_text(h, &self.m.types)
                    );
                }
                if !ct.discardable.is_empty() {
                    let parts: Vec<String> = ct
                        .discardable
                        .iter()
                        .map(|(n, a)| self.named_attr(n, None, a))
                        .collect();
                    let _ = write!(self.out, " attributes {{{}}}", parts.join(", "));
                }
                self.out.push_str(" {\n");
                self.block_body(block, depth + 1, true);
                self.indent(depth);
                self.out.push('}');
            }
            CtOp::Global => {
                let (Some(name), Some(Attr::Dense(d))) = (ct.str("sym_name"), ct.get("value"))
                else {
                    return false;
                };
                let _ = write!(self.out, "{prefix}global");
                if ct.keyword("symbol_visibility") == Some("private") {
                    self.out.push_str(" private");
                }
                if ct.flag("constant") {
                    self.out.push_str(" constant");
                }
                let _ = write!(self.out, " {}", symbol_text(name));
                if let Some(a) = ct.int("alignment").filter(|&a| a != 0) {
                    let _ = write!(self.out, " alignment = {a}");
                }
                let mut tt = String::from(if short { "tile<" } else { "!cuda_tile.tile<" });
                for s in &d.shape {
                    let _ = write!(tt, "{s}x");
                }
                let _ = write!(tt, "{}>", d.elem);
                let _ = write!(self.out, " {} : {tt}", dense_text(d));
            }
            CtOp::Constant => {
                let (Some(Attr::Dense(d)), [r]) = (ct.get("value"), res.as_slice()) else {
                    return false;
                };
                if !self.dense_matches(d, *r) {
                    return false;
                }
                self.results_prefix(op);
                let _ = write!(
                    self.out,
                    "{prefix}constant {} : {}",
                    dense_text(d),
                    self.vty(*r, short)
                );
            }
            CtOp::GetGlobal => {
                let (Some(name), [r]) = (ct.str("name"), res.as_slice()) else {
                    return false;
                };
                self.results_prefix(op);
                let _ = write!(
                    self.out,
                    "{prefix}get_global {} : {}",
                    symbol_text(name),
                    self.vty(*r, short)
                );
            }
            CtOp::Assume => {
                let (Some(p), [v], [r]) = (ct.predicate(), ops.as_slice(), res.as_slice()) else {
                    return false;
                };
                if self.m.value_type(*v) != self.m.value_type(*r) {
                    return false;
                }
                self.results_prefix(op);
                let n = self.name(*v);
                let _ = write!(
                    self.out,
                    "{prefix}assume {}, {n} : {}",
                    p.text(),
                    self.vty(*r, short)
                );
            }
            CtOp::Assert => {
                let (Some(msg), [c], []) = (ct.str("message"), ops.as_slice(), res.as_slice())
                else {
                    return false;
                };
                let n = self.name(*c);
                let _ = write!(
                    self.out,
                    "{prefix}assert {n}, \"{}\" : {}",
                    escape_string(msg),
                    self.vty(*c, short)
                );
            }
            CtOp::Alloca => {
                let (Some(n), Some(a), [r]) =
                    (ct.int("num_elem"), ct.int("alignment"), res.as_slice())
                else {
                    return false;
                };
                self.results_prefix(op);
                let _ = write!(self.out, "{prefix}alloca num_elem = {n}, alignment = {a}");
                if ct.flag("global") {
                    self.out.push_str(" global");
                }
                let _ = write!(self.out, " : {}", self.vty(*r, short));
            }
            CtOp::CmpI | CtOp::CmpF => {
                let ([a, b], [r]) = (ops.as_slice(), res.as_slice()) else {
                    return false;
                };
                let Some(pred) = ct.keyword("comparison_predicate") else {
                    return false;
                };
                if self.m.value_type(*a) != self.m.value_type(*b) {
                    return false;
                }
                self.results_prefix(op);
                let (na, nb) = (self.name(*a), self.name(*b));
                if ct.op == CtOp::CmpI {
                    let Some(s) = ct.keyword("signedness") else {
                        return false;
                    };
                    let _ = write!(self.out, "{prefix}cmpi {pred} {na}, {nb}, {s}");
                } else {
                    let Some(o) = ct.keyword("comparison_ordering") else {
                        return false;
                    };
                    let _ = write!(self.out, "{prefix}cmpf {pred} {o} {na}, {nb}");
                }
                let _ = write!(
                    self.out,
                    " : {} -> {}",
                    self.vty(*a, short),
                    self.vty(*r, short)
                );
            }
            CtOp::Extract => {
                let [r] = res.as_slice() else { return false };
                let src = group("source");
                let idx = group("indices");
                let [s] = src.as_slice() else { return false };
                let i32_scalar = self.m.types.try_get(self.m.value_type(*s)).is_some();
                if !i32_scalar || idx.iter().any(|&i| !self.is_scalar_of(i, NumType::I32)) {
                    return false;
                }
                self.results_prefix(op);
                let n = self.name(*s);
                let list = self.operand_list(&idx);
                let _ = write!(
                    self.out,
                    "{prefix}extract {n}[{list}] : {} -> {}",
                    self.vty(*s, short),
                    self.vty(*r, short)
                );
            }
            CtOp::MakePartitionView | CtOp::MakeStridedView | CtOp::MakeGatherScatterView => {
                let ([v], [r]) = (ops.as_slice(), res.as_slice()) else {
                    return false;
                };
                let tv = match self.m.types.try_get(self.m.value_type(*r)) {
                    Some(Type::PartitionView(p)) => p.tensor_view,
                    Some(Type::StridedView(p)) => p.tensor_view,
                    Some(Type::GatherScatterView(p)) => p.tensor_view,
                    _ => return false,
                };
                if tv != self.m.value_type(*v) {
                    return false;
                }
                self.results_prefix(op);
                let n = self.name(*v);
                let _ = write!(self.out, "{prefix}{mn} {n} : {}", self.vty(*r, short));
            }
            CtOp::MakeTensorView => {
                let [r] = res.as_slice() else { return false };
                let (shape, strides) = match self.m.types.try_get(self.m.value_type(*r)) {
                    Some(Type::TensorView(tv)) => (tv.shape.clone(), tv.strides.clone()),
                    _ => return false,
                };
                let base = group("base");
                let dyn_shape = group("dynamicShape");
                let dyn_strides = group("dynamicStrides");
                let [b] = base.as_slice() else { return false };
                let ndyn = |d: &[Dim]| d.iter().filter(|x| **x == Dim::Dynamic).count();
                if ndyn(&shape) != dyn_shape.len() || ndyn(&strides) != dyn_strides.len() {
                    return false;
                }
                let all_dyn: Vec<ValueId> = dyn_shape
                    .iter()
                    .chain(dyn_strides.iter())
                    .copied()
                    .collect();
                if all_dyn
                    .iter()
                    .any(|&v| self.m.value_type(v) != self.m.value_type(all_dyn[0]))
                {
                    return false;
                }
                self.results_prefix(op);
                let bn = self.name(*b);
                let shape_txt = self.mixed_list(&shape, &dyn_shape);
                let strides_txt = self.mixed_list(&strides, &dyn_strides);
                let _ = write!(self.out, "{prefix}make_tensor_view {bn}, shape = [{shape_txt}], strides = [{strides_txt}] : ");
                if let Some(&first) = all_dyn.first() {
                    let _ = write!(self.out, "{} -> ", self.vty(first, short));
                }
                let _ = write!(self.out, "{}", self.vty(*r, short));
            }
            CtOp::LoadViewTko | CtOp::StoreViewTko => {
                let view = group("view");
                let idx = group("index");
                let token = group("token");
                let tile = group("tile");
                let [v] = view.as_slice() else { return false };
                self.results_prefix(op);
                let _ = write!(self.out, "{prefix}{mn} {}", self.ordering_scope(ct));
                if let [t] = tile.as_slice() {
                    let n = self.name(*t);
                    let _ = write!(self.out, " {n},");
                }
                let vn = self.name(*v);
                let il = self.operand_list(&idx);
                let _ = write!(self.out, " {vn}[{il}]");
                if let [t] = token.as_slice() {
                    let n = self.name(*t);
                    let _ = write!(self.out, " token = {n}");
                }
                if let Some(Attr::Dict(h)) = ct.get("optimization_hints") {
                    let _ = write!(
                        self.out,
                        " optimization_hints = <{}>",
                        hints_text(h, &self.m.types)
                    );
                }
                self.out.push_str(" : ");
                if let [t] = tile.as_slice() {
                    let _ = write!(self.out, "{}, ", self.vty(*t, short));
                }
                let _ = write!(
                    self.out,
                    "{}{} -> {}",
                    self.vty(*v, short),
                    self.index_types(&idx, short),
                    self.type_list(&res, short)
                );
            }
            CtOp::LoadPtrTko | CtOp::StorePtrTko => {
                let (first, second) = if ct.op == CtOp::LoadPtrTko {
                    ("source", "paddingValue")
                } else {
                    ("destination", "value")
                };
                let p = group(first);
                let mask = group("mask");
                let other = group(second);
                let token = group("token");
                // Load: `%p[, %mask[, %pad]]` — a padding value needs a mask to be expressible.
                if ct.op == CtOp::LoadPtrTko && !other.is_empty() && mask.is_empty() {
                    return false;
                }
                let mut listed: Vec<ValueId> = p.clone();
                if ct.op == CtOp::LoadPtrTko {
                    listed.extend(&mask);
                    listed.extend(&other);
                } else {
                    listed.extend(&other);
                    listed.extend(&mask);
                }
                self.results_prefix(op);
                let ol = self.operand_list(&listed);
                let _ = write!(self.out, "{prefix}{mn} {} {ol}", self.ordering_scope(ct));
                if let [t] = token.as_slice() {
                    let n = self.name(*t);
                    let _ = write!(self.out, " token={n}");
                }
                if let Some(Attr::Dict(h)) = ct.get("optimization_hints") {
                    let _ = write!(
                        self.out,
                        " optimization_hints = <{}>",
                        hints_text(h, &self.m.types)
                    );
                }
                let _ = write!(
                    self.out,
                    " : {} -> {}",
                    self.type_list(&listed, short),
                    self.type_list(&res, short)
                );
            }
            CtOp::AtomicCasTko | CtOp::AtomicRmwTko => {
                let p = group("pointers");
                let mask = group("mask");
                let token = group("token");
                let (Some(ord), Some(scope)) = (
                    ct.keyword("memory_ordering_semantics"),
                    ct.keyword("memory_scope"),
                ) else {
                    return false;
                };
                let mut types_of: Vec<ValueId> = p.clone();
                self.results_prefix(op);
                let pn = self.operand_list(&p);
                let _ = write!(self.out, "{prefix}{mn} {ord} {scope} {pn}");
                if ct.op == CtOp::AtomicCasTko {
                    let (cmp, val) = (group("cmp"), group("val"));
                    let ([c], [v]) = (cmp.as_slice(), val.as_slice()) else {
                        return false;
                    };
                    if self.m.value_type(*c) != self.m.value_type(*v) {
                        return false;
                    }
                    let (cn, vn) = (self.name(*c), self.name(*v));
                    let _ = write!(self.out, ", {cn}, {vn}");
                    types_of.push(*v);
                } else {
                    let Some(mode) = ct.keyword("mode") else {
                        return false;
                    };
                    let arg = group("arg");
                    let [a] = arg.as_slice() else { return false };
                    let an = self.name(*a);
                    let _ = write!(self.out, ", {mode}, {an}");
                    types_of.push(*a);
                }
                if let [mk] = mask.as_slice() {
                    let n = self.name(*mk);
                    let _ = write!(self.out, ", {n}");
                    types_of.push(*mk);
                }
                if let [t] = token.as_slice() {
                    let n = self.name(*t);
                    let _ = write!(self.out, " token={n}");
                }
                let _ = write!(
                    self.out,
                    " : {} -> {}",
                    self.type_list(&types_of, short),
                    self.type_list(&res, short)
                );
            }
            CtOp::AtomicRedViewTko => {
                let (view, idx, value, token) = (
                    group("view"),
                    group("index"),
                    group("value"),
                    group("token"),
                );
                let ([v], [val]) = (view.as_slice(), value.as_slice()) else {
                    return false;
                };
                let (Some(ord), Some(scope), Some(mode)) = (
                    ct.keyword("memory_ordering_semantics"),
                    ct.keyword("memory_scope"),
                    ct.keyword("mode"),
                ) else {
                    return false;
                };
                self.results_prefix(op);
                let vn = self.name(*v);
                let il = self.operand_list(&idx);
                let valn = self.name(*val);
                let _ = write!(
                    self.out,
                    "{prefix}{mn} {ord} {scope} {vn}[{il}], {mode}, {valn}"
                );
                if let [t] = token.as_slice() {
                    // Spaced like the other view ops (NVIDIA 13.3 prints `token = %t`).
                    let n = self.name(*t);
                    let _ = write!(self.out, " token = {n}");
                }
                let _ = write!(
                    self.out,
                    " : {}, {}{} -> {}",
                    self.vty(*val, short),
                    self.vty(*v, short),
                    self.index_types(&idx, short),
                    self.type_list(&res, short)
                );
            }
            // 13.4: `gdc_wait_tko [token=%t] -> token`.
            CtOp::GdcLaunchDependentsTko | CtOp::GdcWaitTko => {
                let token = group("token");
                self.results_prefix(op);
                let _ = write!(self.out, "{prefix}{mn}");
                if let [t] = token.as_slice() {
                    let n = self.name(*t);
                    let _ = write!(self.out, " token={n}");
                }
                if !res.is_empty() {
                    let _ = write!(self.out, " -> {}", self.type_list(&res, short));
                }
            }
            // Test-only (NVIDIA's bytecode versioning tests):
            // `testing$bytecode_test_new_attribute [new_flag] [new_param = N] [{attrs}]`,
            // `new_param` elided at its default (42).
            CtOp::TestingBytecodeNewAttribute => {
                let _ = write!(self.out, "{prefix}{mn}");
                if ct.flag("new_flag") {
                    self.out.push_str(" new_flag");
                }
                match ct.get("new_param") {
                    Some(Attr::Int(42)) | None => {}
                    Some(Attr::Int(n)) => {
                        let _ = write!(self.out, " new_param = {n}");
                    }
                    Some(_) => return false,
                }
                self.trailing_discardable(ct);
            }
            // `testing$bytecode_test_evolution(%in, … : !cuda_tile.tile<…>, …) [new_attr = N]
            // [token = %t : token] -> token [{attrs}]`: the inputs' types print in full
            // (a plain `type($inputs)` directive), the tokens short.
            CtOp::TestingBytecodeEvolution => {
                let (inputs, token) = (group("inputs"), group("optional_token"));
                let [r] = res.as_slice() else { return false };
                self.results_prefix(op);
                let l = self.operand_list(&inputs);
                let _ = write!(self.out, "{prefix}{mn}({l} : {})", self.type_list(&inputs, false));
                match ct.get("new_attr") {
                    None => {}
                    Some(Attr::Int(n)) => {
                        let _ = write!(self.out, " new_attr = {n}");
                    }
                    Some(_) => return false,
                }
                if let [t] = token.as_slice() {
                    let n = self.name(*t);
                    let _ = write!(self.out, " token = {n} : {}", self.vty(*t, short));
                }
                let _ = write!(self.out, " -> {}", self.vty(*r, short));
                self.trailing_discardable(ct);
            }
            CtOp::PrintTko => {
                let Some(s) = ct.str("str") else { return false };
                let (args, token) = (group("args"), group("token"));
                self.results_prefix(op);
                // Without token operand and result this is 13.1's `print`.
                let mn = if res.is_empty() && token.is_empty() {
                    "print"
                } else {
                    "print_tko"
                };
                let _ = write!(self.out, "{prefix}{mn} \"{}\"", escape_string(s));
                if !args.is_empty() {
                    let l = self.operand_list(&args);
                    let _ = write!(self.out, ", {l}");
                }
                if let [t] = token.as_slice() {
                    let n = self.name(*t);
                    let _ = write!(self.out, " token={n}");
                }
                if !args.is_empty() {
                    let _ = write!(self.out, " : {}", self.type_list(&args, short));
                }
                if !res.is_empty() {
                    let _ = write!(self.out, " -> {}", self.type_list(&res, short));
                }
            }
            CtOp::Yield | CtOp::Continue | CtOp::Break | CtOp::Return => {
                let _ = write!(self.out, "{prefix}{mn}");
                if !ops.is_empty() {
                    let l = self.operand_list(&ops);
                    let _ = write!(self.out, " {l} : {}", self.type_list(&ops, short));
                }
            }
            CtOp::If => {
                let [c] = ops.as_slice() else { return false };
                let Some(then_b) = self.m.entry_block(op, 0) else {
                    return false;
                };
                self.results_prefix(op);
                let cn = self.name(*c);
                let _ = write!(self.out, "{prefix}if {cn}");
                if !res.is_empty() {
                    let _ = write!(self.out, " -> ({})", self.type_list(&res, short));
                }
                self.out.push_str(" {\n");
                self.block_body_elide(then_b, depth + 1, CtOp::Yield);
                self.indent(depth);
                self.out.push('}');
                if let Some(else_b) = self.m.entry_block(op, 1) {
                    self.out.push_str(" else {\n");
                    self.block_body_elide(else_b, depth + 1, CtOp::Yield);
                    self.indent(depth);
                    self.out.push('}');
                }
                self.trailing_discardable(ct);
            }
            CtOp::For => {
                let Some(body) = self.m.entry_block(op, 0) else {
                    return false;
                };
                let args = self.m.blocks[body].args.clone();
                let (lb, ub, step, inits) = (
                    group("lowerBound"),
                    group("upperBound"),
                    group("step"),
                    group("initValues"),
                );
                let ([lb], [ub], [step]) = (lb.as_slice(), ub.as_slice(), step.as_slice()) else {
                    return false;
                };
                if args.len() != inits.len() + 1 || res.len() != inits.len() {
                    return false;
                }
                let bt = self.m.value_type(*lb);
                if [*ub, *step, args[0]]
                    .iter()
                    .any(|&v| self.m.value_type(v) != bt)
                {
                    return false;
                }
                self.results_prefix(op);
                let _ = write!(self.out, "{prefix}for ");
                if ct.flag("unsignedCmp") {
                    self.out.push_str("unsigned ");
                }
                let (iv, lbn, ubn, sn) = (
                    self.name(args[0]),
                    self.name(*lb),
                    self.name(*ub),
                    self.name(*step),
                );
                let _ = write!(
                    self.out,
                    "{iv} in ({lbn} to {ubn}, step {sn}) : {}",
                    self.ty(bt, short)
                );
                if !inits.is_empty() {
                    let pairs: Vec<String> = args[1..]
                        .iter()
                        .zip(&inits)
                        .map(|(&a, &i)| format!("{} = {}", self.name(a), self.name(i)))
                        .collect();
                    let _ = write!(
                        self.out,
                        " iter_values({}) -> ({})",
                        pairs.join(", "),
                        self.type_list(&res, short)
                    );
                }
                self.out.push_str(" {\n");
                self.block_body_elide(body, depth + 1, CtOp::Continue);
                self.indent(depth);
                self.out.push('}');
                self.trailing_discardable(ct);
            }
            CtOp::Loop => {
                let Some(body) = self.m.entry_block(op, 0) else {
                    return false;
                };
                let args = self.m.blocks[body].args.clone();
                if args.len() != ops.len() {
                    return false;
                }
                self.results_prefix(op);
                let _ = write!(self.out, "{prefix}loop");
                if !ops.is_empty() {
                    let pairs: Vec<String> = args
                        .iter()
                        .zip(&ops)
                        .map(|(&a, &i)| format!("{} = {}", self.name(a), self.name(i)))
                        .collect();
                    let _ = write!(
                        self.out,
                        " iter_values({}) : {}",
                        pairs.join(", "),
                        self.type_list(&ops, short)
                    );
                    if !res.is_empty() {
                        let _ = write!(self.out, " -> {}", self.type_list(&res, short));
                    }
                } else if !res.is_empty() {
                    let _ = write!(self.out, " : {}", self.type_list(&res, short));
                }
                self.out.push_str(" {\n");
                self.block_body_elide(body, depth + 1, CtOp::Continue);
                self.indent(depth);
                self.out.push('}');
            }
            CtOp::Reduce | CtOp::Scan => {
                let Some(body) = self.m.entry_block(op, 0) else {
                    return false;
                };
                let (Some(dim), Some(Attr::Array(ids))) = (ct.int("dim"), ct.get("identities"))
                else {
                    return false;
                };
                if ops.is_empty() {
                    return false;
                }
                self.results_prefix(op);
                let l = self.operand_list(&ops);
                let _ = write!(self.out, "{prefix}{mn} {l} dim={dim}");
                if ct.op == CtOp::Scan {
                    let rev = matches!(ct.get("reverse"), Some(Attr::Bool(true)));
                    let _ = write!(self.out, " reverse={rev}");
                }
                let ids_txt: Vec<String> = ids
                    .iter()
                    .map(|a| attr_value_text(a, &self.m.types))
                    .collect();
                let _ = writeln!(
                    self.out,
                    " identities=[{}] : {} -> {}",
                    ids_txt.join(", "),
                    self.type_list(&ops, short),
                    self.type_list(&res, short)
                );
                self.indent(depth + 1);
                let sig = self.signature(Some(body), true);
                let _ = writeln!(self.out, "({sig}) {{");
                self.block_body(body, depth + 2, true);
                self.indent(depth + 1);
                self.out.push('}');
            }
            _ => return false,
        }
        true
    }

    fn is_scalar_of(&self, v: ValueId, n: NumType) -> bool {
        matches!(self.m.types.try_get(self.m.value_type(v)), Some(Type::Tile { shape, elem: TileElem::Num(e), layout: None }) if shape.is_empty() && *e == n)
    }

    /// True when the dense literal's element type and shape are the result tile's.
    fn dense_matches(&self, d: &DenseElements, r: ValueId) -> bool {
        matches!(self.m.types.try_get(self.m.value_type(r)), Some(Type::Tile { shape, elem: TileElem::Num(e), layout: None }) if *shape == d.shape && *e == d.elem)
    }

    fn ordering_scope(&self, ct: &CudaTileOp) -> String {
        let mut s = ct
            .keyword("memory_ordering_semantics")
            .unwrap_or("weak")
            .to_string();
        if let Some(sc) = ct.keyword("memory_scope") {
            s.push(' ');
            s.push_str(sc);
        }
        s
    }

    /// A regular op through its declarative [`format::Format`].
    fn regular(
        &mut self,
        op: OpId,
        ct: &CudaTileOp,
        f: format::Format,
        prefix: &str,
        short: bool,
    ) -> bool {
        use format::{Mod, Res, Types};
        let data = self.m.ops[op].clone();
        let (ops, res) = (&data.operands, &data.results);
        let tys =
            |vs: &[ValueId]| -> Vec<TypeId> { vs.iter().map(|&v| self.m.value_type(v)).collect() };
        let (ot, rt) = (tys(ops), tys(res));
        // The type list the format writes, or None when the op's types do not fit it.
        let written: Option<(Vec<TypeId>, Vec<TypeId>)> = match f.types {
            Types::Same => {
                let all: Vec<TypeId> = ot.iter().chain(rt.iter()).copied().collect();
                match all.first() {
                    Some(&t) if all.iter().all(|&x| x == t) => Some((vec![t], vec![])),
                    _ => None,
                }
            }
            Types::Conv => match (ot.as_slice(), rt.first()) {
                ([i], Some(&o)) if rt.iter().all(|&x| x == o) => Some((vec![*i], vec![o])),
                _ => None,
            },
            Types::List {
                written,
                operands,
                result,
            } => {
                let mut w: Vec<Option<TypeId>> = vec![None; written as usize];
                let mut ok = ot.len() == operands.len() && rt.len() == 1;
                if ok {
                    for (t, &k) in ot.iter().zip(operands) {
                        match w[k as usize] {
                            None => w[k as usize] = Some(*t),
                            Some(prev) if prev == *t => {}
                            Some(_) => ok = false,
                        }
                    }
                }
                match (ok, result) {
                    (true, Res::Arrow) => Some((w.into_iter().flatten().collect(), rt.clone())),
                    (true, Res::Written(k)) if w[k as usize] == Some(rt[0]) => {
                        Some((w.into_iter().flatten().collect(), vec![]))
                    }
                    _ => None,
                }
            }
        };
        let Some((before, after)) = written else {
            return false;
        };
        let mut mods = String::new();
        for m in f.mods {
            match *m {
                Mod::Wrapped {
                    attr, prefix: word, ..
                } => {
                    let Some(kw) = ct.keyword(attr) else { continue };
                    let default = ct
                        .schema()
                        .attrs
                        .iter()
                        .find(|a| a.name == attr)
                        .and_then(|a| match a.presence {
                            Presence::Default(d) => Some(d),
                            _ => None,
                        });
                    if default != Some(kw) {
                        let _ = write!(mods, " {word}<{kw}>");
                    }
                }
                Mod::Keyword { attr } => match ct.keyword(attr) {
                    Some(kw) => {
                        let _ = write!(mods, " {kw}");
                    }
                    None => return false,
                },
                Mod::Unit { attr } => {
                    if ct.flag(attr) {
                        let _ = write!(mods, " {attr}");
                    }
                }
                Mod::AttrEq { attr } => match ct.int(attr) {
                    Some(v) => {
                        let _ = write!(mods, " {attr} = {v}");
                    }
                    None => return false,
                },
                Mod::Bracketed { attr } => match ct.get(attr) {
                    Some(Attr::IntArray(v)) => {
                        let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                        let _ = write!(mods, " [{}]", items.join(", "));
                    }
                    _ => return false,
                },
            }
        }
        if !ct.discardable.is_empty() {
            let parts: Vec<String> = ct
                .discardable
                .iter()
                .map(|(n, a)| self.named_attr(n, None, a))
                .collect();
            let _ = write!(mods, " {{{}}}", parts.join(", "));
        }
        self.results_prefix(op);
        let _ = write!(self.out, "{prefix}{}", ct.mnemonic());
        if !ops.is_empty() {
            let l = self.operand_list(ops);
            let _ = write!(self.out, " {l}");
        }
        self.out.push_str(&mods);
        let b: Vec<String> = before.iter().map(|&t| self.ty(t, short)).collect();
        let _ = write!(self.out, " : {}", b.join(", "));
        if !after.is_empty() {
            let a: Vec<String> = after.iter().map(|&t| self.ty(t, short)).collect();
            let _ = write!(self.out, " -> {}", a.join(", "));
        }
        true
    }

    fn result_ty(&self, results: &[ValueId], i: usize) -> String {
        results
            .get(i)
            .map(|&r| self.vty(r, true))
            .unwrap_or_default()
    }

    /// `, T` when all index types agree, else `, T0, T1, …`.
    fn index_types(&self, indices: &[ValueId], short: bool) -> String {
        if indices.is_empty() {
            return String::new();
        }
        let tys: Vec<TypeId> = indices.iter().map(|&v| self.m.value_type(v)).collect();
        if tys.iter().all(|&t| t == tys[0]) {
            format!(", {}", self.ty(tys[0], short))
        } else {
            tys.iter()
                .map(|&t| format!(", {}", self.ty(t, short)))
                .collect()
        }
    }

    /// `[128, %n]`: static entries as numbers, dynamic ones as the next SSA operand.
    fn mixed_list(&mut self, dims: &[Dim], dynamic: &[ValueId]) -> String {
        let mut dyn_iter = dynamic.iter();
        let parts: Vec<String> = dims
            .iter()
            .map(|d| match d {
                Dim::Static(v) => v.to_string(),
                Dim::Dynamic => dyn_iter
                    .next()
                    .map(|&v| self.name(v))
                    .unwrap_or_else(|| "<<missing>>".into()),
            })
            .collect();
        parts.join(", ")
    }

    /// `ORDERING [SCOPE] {value}%memref[indices] [token = …] [padding = …] [origin_step = …]`
    /// (`value` is a store's `%v, `, empty for loads).
    fn tiled_access_text(
        &mut self,
        a: &TiledAccess,
        value: &str,
        memref: Option<ValueId>,
        indices: &[ValueId],
        token: Option<ValueId>,
    ) -> String {
        let mut s = a.ordering.to_string();
        if let Some(scope) = a.scope {
            let _ = write!(s, " {scope}");
        }
        let memref_name = memref.map(|v| self.name(v)).unwrap_or_default();
        let _ = write!(s, " {value}{memref_name}[{}]", self.operand_list(indices));
        if let Some(t) = token {
            let _ = write!(s, " token = {}", self.name(t));
        }
        if let Some(p) = a.padding {
            let _ = write!(s, " padding = {}", p.keyword());
        }
        if let Some(step) = &a.origin_step {
            let parts: Vec<String> = step.iter().map(|v| v.to_string()).collect();
            let _ = write!(s, " origin_step = [{}]", parts.join(", "));
        }
        s
    }

    fn tileaa(&mut self, op: OpId, aa: &TileAaOp, depth: usize) {
        let data = self.m.ops[op].clone();
        let ops = &data.operands;
        match aa {
            TileAaOp::Func {
                sym_name,
                function_type,
                kernel,
                num_warps,
                hints,
            } => {
                let block = self.m.entry_block(op, 0);
                let sig = self.signature(block, true);
                let _ = write!(self.out, "nv_tileaa.func {}({sig})", symbol_text(sym_name));
                // Results, when the function type has any (kernels have none).
                if let Some(Type::Function { results, .. }) = self.m.types.try_get(*function_type) {
                    let rs: Vec<String> = results.iter().map(|&t| self.ty(t, true)).collect();
                    match rs.len() {
                        0 => {}
                        1 if !rs[0].starts_with('(') => {
                            let _ = write!(self.out, " -> {}", rs[0]);
                        }
                        _ => {
                            let _ = write!(self.out, " -> ({})", rs.join(", "));
                        }
                    }
                }
                let mut attrs = Vec::new();
                if *kernel {
                    attrs.push("kernel".to_string());
                }
                if let Some(w) = num_warps {
                    attrs.push(format!("num_warps = {w}"));
                }
                if let Some(h) = hints {
                    attrs.push(self.named_attr("optimization_hints", Some(AttrKind::Hints), &Attr::Dict(h.clone())));
                }
                if !attrs.is_empty() {
                    let _ = write!(self.out, " attributes {{{}}}", attrs.join(", "));
                }
                self.out.push_str(" {\n");
                if let Some(block) = block {
                    self.block_body(block, depth + 1, false);
                }
                self.indent(depth);
                self.out.push('}');
            }
            TileAaOp::Return => self.out.push_str("nv_tileaa.return"),
            TileAaOp::CreateMemToken => {
                self.results_prefix(op);
                let _ = write!(
                    self.out,
                    "nv_tileaa.create_mem_token : {}",
                    self.result_ty(&data.results, 0)
                );
            }
            TileAaOp::GetProgramId { dim } | TileAaOp::GetNumPrograms { dim } => {
                self.results_prefix(op);
                let axis = AXES.get(*dim as usize).copied().unwrap_or("?");
                let _ = write!(
                    self.out,
                    "nv_tileaa.{} {axis} : {}",
                    aa.mnemonic(),
                    self.result_ty(&data.results, 0)
                );
            }
            TileAaOp::MakeMemref {
                num_dyn_sizes,
                num_dyn_strides,
                base_alignment,
            } => {
                self.results_prefix(op);
                let (shape, strides) = match data
                    .results
                    .first()
                    .map(|&r| self.m.types.get(self.m.value_type(r)))
                {
                    Some(Type::MemRef { shape, strides, .. }) => (shape.clone(), strides.clone()),
                    _ => (Vec::new(), Vec::new()),
                };
                let n = *num_dyn_sizes as usize;
                let dyn_sizes: Vec<ValueId> = ops.iter().skip(1).take(n).copied().collect();
                let dyn_strides: Vec<ValueId> = ops
                    .iter()
                    .skip(1 + n)
                    .take(*num_dyn_strides as usize)
                    .copied()
                    .collect();
                let base = ops.first().map(|&v| self.name(v)).unwrap_or_default();
                let sizes = self.mixed_list(&shape, &dyn_sizes);
                let strides_txt = self.mixed_list(&strides, &dyn_strides);
                let _ = write!(
                    self.out,
                    "nv_tileaa.make_memref {base}, sizes = [{sizes}], strides = [{strides_txt}]"
                );
                if *base_alignment > 0 {
                    let _ = write!(self.out, " alignment = {base_alignment}");
                }
                let in_tys: Vec<String> = ops.iter().map(|&v| self.vty(v, true)).collect();
                let _ = write!(
                    self.out,
                    " : ({}) -> {}",
                    in_tys.join(", "),
                    self.result_ty(&data.results, 0)
                );
            }
            TileAaOp::TiledLoad(a) => self.tiled_load("nv_tileaa", op, a, None),
            TileAaOp::TiledStore(a) => self.tiled_store("nv_tileaa", op, a, None),
            TileAaOp::Global { sym_name, value, alignment, constant } => {
                self.out.push_str("nv_tileaa.global");
                if *constant {
                    self.out.push_str(" constant");
                }
                let _ = write!(self.out, " {}", symbol_text(sym_name));
                if *alignment != 0 {
                    let _ = write!(self.out, " alignment = {alignment}");
                }
                let shape: String = value.shape.iter().map(|s| format!("{s}x")).collect();
                let _ = write!(self.out, " {} : tile<{shape}{}>", dense_text(value), value.elem);
            }
            // Queue, execute and token-join ops have no custom assembly (generic form).
            TileAaOp::JoinMemToken
            | TileAaOp::MarkForReuse
            | TileAaOp::CreateQueue
            | TileAaOp::QueuePut
            | TileAaOp::QueueGet { .. }
            | TileAaOp::QueueYield
            | TileAaOp::Execute { .. } => self.generic(op, depth),
            TileAaOp::GetGlobal { name } => {
                self.results_prefix(op);
                let _ = write!(self.out, "nv_tileaa.get_global {} : {}", symbol_text(name), self.result_ty(&data.results, 0));
            }
            TileAaOp::AddF(f) | TileAaOp::SubF(f) | TileAaOp::MulF(f) => {
                self.results_prefix(op);
                let v = self.operand_list(ops);
                let _ = write!(
                    self.out,
                    "nv_tileaa.{} {v}{} : {}",
                    aa.mnemonic(),
                    f.custom_suffix(),
                    self.result_ty(&data.results, 0)
                );
            }
        }
    }

    /// nv_tileas's attributes of a tiled access: its vector width and forced variant.
    fn tileas_access_attrs(&mut self, attrs: Option<(u32, Option<&str>)>) {
        if let Some((w, variant)) = attrs {
            let _ = write!(self.out, " vector_width = {w}");
            if let Some(v) = variant {
                let _ = write!(self.out, " variant = \"{}\"", escape_string(v));
            }
        }
    }

    fn tiled_load(&mut self, dialect: &str, op: OpId, a: &TiledAccess, vector_width: Option<(u32, Option<&str>)>) {
        let data = self.m.ops[op].clone();
        let ops = &data.operands;
        self.results_prefix(op);
        let memref = ops.first().copied();
        let indices: Vec<ValueId> = ops
            .iter()
            .skip(1)
            .take(a.num_indices as usize)
            .copied()
            .collect();
        let token = if a.has_token {
            ops.get(1 + a.num_indices as usize).copied()
        } else {
            None
        };
        let body = self.tiled_access_text(a, "", memref, &indices, token);
        let _ = write!(self.out, "{dialect}.tiled_load {body}");
        self.tileas_access_attrs(vector_width);
        let memref_ty = memref.map(|v| self.vty(v, true)).unwrap_or_default();
        let idx = self.index_types(&indices, true);
        let outs: Vec<String> = data.results.iter().map(|&r| self.vty(r, true)).collect();
        let _ = write!(self.out, " : {memref_ty}{idx} -> {}", outs.join(", "));
    }

    fn tiled_store(&mut self, dialect: &str, op: OpId, a: &TiledAccess, vector_width: Option<(u32, Option<&str>)>) {
        let data = self.m.ops[op].clone();
        let ops = &data.operands;
        self.results_prefix(op);
        let memref = ops.first().copied();
        let value = ops.get(1).copied();
        let indices: Vec<ValueId> = ops
            .iter()
            .skip(2)
            .take(a.num_indices as usize)
            .copied()
            .collect();
        let token = if a.has_token {
            ops.get(2 + a.num_indices as usize).copied()
        } else {
            None
        };
        let value_name = value.map(|v| self.name(v)).unwrap_or_default();
        // `relaxed device %value, %memref[...]`: ordering and scope lead, as in cuda_tile's
        // store_view_tko.
        let body = self.tiled_access_text(a, &format!("{value_name}, "), memref, &indices, token);
        let _ = write!(self.out, "{dialect}.tiled_store {body}");
        self.tileas_access_attrs(vector_width);
        let value_ty = value.map(|v| self.vty(v, true)).unwrap_or_default();
        let memref_ty = memref.map(|v| self.vty(v, true)).unwrap_or_default();
        let idx = self.index_types(&indices, true);
        let _ = write!(
            self.out,
            " : {value_ty}, {memref_ty}{idx} -> {}",
            self.result_ty(&data.results, 0)
        );
    }

    fn tileas(&mut self, op: OpId, ts: &TileAsOp, depth: usize) {
        match ts {
            TileAsOp::TiledLoad { access, vector_width, variant } => {
                self.tiled_load("nv_tileas", op, access, Some((*vector_width, variant.as_deref())))
            }
            TileAsOp::TiledStore { access, vector_width, variant } => {
                self.tiled_store("nv_tileas", op, access, Some((*vector_width, variant.as_deref())))
            }
            // The async pipeline and TMA ops have no custom assembly: like MLIR ops without
            // an assembly format, they print (and parse) in the generic form.
            _ => self.generic(op, depth),
        }
    }
}

fn reg_key(a: &mut Aliases, key: AliasKey, depth: usize) -> usize {
    if let Some(&i) = a.index.get(&key) {
        return a.order[i].1;
    }
    a.index.insert(key.clone(), a.order.len());
    a.order.push((key, depth));
    depth
}

fn reg_file(a: &mut Aliases, f: &DiFile) -> usize {
    reg_key(a, AliasKey::File(f.clone()), 0)
}

fn reg_cu(a: &mut Aliases, c: &DiCompileUnit) -> usize {
    let d = reg_file(a, &c.file) + 1;
    reg_key(a, AliasKey::CompileUnit(c.clone()), d)
}

fn reg_scope(a: &mut Aliases, s: &DiScope) -> usize {
    match s {
        DiScope::Subprogram(sp) => {
            let d = reg_file(a, &sp.file).max(reg_cu(a, &sp.compile_unit)) + 1;
            reg_key(a, AliasKey::Subprogram((**sp).clone()), d)
        }
        DiScope::LexicalBlock(b) => {
            let d = reg_scope(a, &b.scope).max(reg_file(a, &b.file)) + 1;
            reg_key(a, AliasKey::LexicalBlock((**b).clone()), d)
        }
    }
}

fn reg_loc(a: &mut Aliases, l: &Location) -> usize {
    if let Some(&i) = a.index.get(&AliasKey::Loc(l.clone())) {
        return a.order[i].1;
    }
    let depth = match l {
        Location::Unknown | Location::FileLineCol { .. } => 0,
        Location::Fused(parts) => parts.iter().map(|p| reg_loc(a, p)).max().unwrap_or(0) + 1,
        Location::Name { child, .. } => child.as_ref().map(|c| reg_loc(a, c) + 1).unwrap_or(0),
        Location::CallSite { callee, caller } => reg_loc(a, callee).max(reg_loc(a, caller)) + 1,
        Location::DiLoc { loc, scope } => reg_loc(a, loc).max(reg_scope(a, scope)) + 1,
    };
    reg_key(a, AliasKey::Loc(l.clone()), depth)
}

/// True for a `print_tko` without token operand or result: 13.1's `cuda_tile.print`,
/// which has a single variadic operand group.
fn is_legacy_print(data: &crate::module::OpData) -> bool {
    match &data.kind {
        OpKind::CudaTile(ct) => {
            ct.op == CtOp::PrintTko
                && data.results.is_empty()
                && ct.segments.get(1).is_none_or(|&n| n == 0)
        }
        _ => false,
    }
}
