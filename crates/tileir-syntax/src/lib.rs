//! tileir-syntax: the parser of the cuda_tile text format (MLIR custom and generic op
//! forms), the inverse of [`tileir_ir::print::print_module`].
//!
//! The top level of a file is the implicit builtin module: it may hold
//! `cuda_tile.module` ops, bare `cuda_tile.*` ops (negative tests), generic ops,
//! `#alias = …` / `!alias = …` definitions, and an explicit `module { … }` /
//! `builtin.module { … }` wrapper, which is the same implicit module. Inside
//! default-dialect regions (`cuda_tile.module`, `entry`, `for`, …) op names may omit the
//! `cuda_tile.` prefix and types may use their short forms.
//!
//! Regular ops are parsed through the declarative formats of
//! [`tileir_ir::print::format`], which the printer also uses; the irregular ones are
//! hand-written in [`ops`]. Diagnostics carry the `file:line:col` of the offending token
//! and MLIR's wording. Nesting is limited to [`MAX_DEPTH`] levels so that hostile input
//! cannot overflow the stack.
//!
//! ```
//! use tileir_syntax::{parse_module, ParseOptions};
//! let text = "cuda_tile.module @k {\n  entry @f(%a: tile<f32>) {\n    %b = addf %a, %a : tile<f32>\n    return\n  }\n}\n";
//! let m = parse_module(text, &ParseOptions::default()).unwrap();
//! let printed = tileir_ir::print_module(&m, Default::default());
//! // As in MLIR, values print with numbered names unless `keep_names` is set.
//! assert!(printed.contains("entry @f(%arg0: tile<f32>)") && printed.contains("%0 = addf %arg0, %arg0 : tile<f32>"));
//! ```

#![forbid(unsafe_code)]

mod lex;
mod lowered;
mod ops;
mod types_attrs;

use lex::{Cursor, R};
use std::collections::HashMap;
use tileir_ir::attrs::Attr;
use tileir_ir::location::Location;
use tileir_ir::module::{BlockId, Module, OpId, RegionData, ValueId};
use tileir_ir::types::TypeId;
use tileir_ir::Diagnostic;
pub use types_attrs::AliasValue;

/// Deepest nesting of regions, types, attributes and literals the parser accepts.
pub const MAX_DEPTH: usize = 256;

/// Parser switches.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// File name put into locations and diagnostics.
    pub file_name: String,
    /// Accept ops of unknown dialects in generic form (`-allow-unregistered-dialect`).
    pub allow_unregistered: bool,
    /// Keep the source's SSA value names for printing. Off by default, as in MLIR: printed
    /// names (`%0`, `%arg0`) then depend only on the IR, so text and bytecode round trips
    /// print identically.
    pub keep_names: bool,
}

/// When optimization-hint parameters (`num_cta_in_cga = 2`, …) are validated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HintCheck {
    /// As NVIDIA's 13.1 parser: an unknown key or parameter or a bad value is a parse
    /// error ("unallowed key sm_100a", "unknown param num_qqq for sm_100").
    AtParse,
    /// As NVIDIA's 13.3 tools (the default): keys and parameters are kept as written and
    /// the verifier judges them when asked to (`-Wunsupported-hints`). Non-dictionary
    /// values are parse errors either way.
    #[default]
    Deferred,
}

/// Parses a whole file into a module, leaving hint keys and parameters to the verifier
/// ([`HintCheck::Deferred`], as NVIDIA 13.3 does).
pub fn parse_module(text: &str, options: &ParseOptions) -> Result<Module, Vec<Diagnostic>> {
    parse_module_with(text, options, HintCheck::Deferred)
}

/// Parses a whole file into a module, with hint parameters checked as `hints` says.
pub fn parse_module_with(
    text: &str,
    options: &ParseOptions,
    hints: HintCheck,
) -> Result<Module, Vec<Diagnostic>> {
    let run = || {
        let mut p = Parser::new(text, options);
        p.hint_check = hints;
        match p.top_level() {
            Ok(()) => Ok(p.m),
            Err(d) => {
                let mut all = std::mem::take(&mut p.pending);
                all.push(d);
                Err(all)
            }
        }
    };
    // The parser is recursive descent bounded by MAX_DEPTH; a dedicated thread with a
    // known, generous stack makes that bound safe regardless of the caller's stack.
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .stack_size(PARSER_STACK)
            .spawn_scoped(s, run)
        {
            Ok(h) => h.join().unwrap_or_else(|_| {
                Err(vec![Diagnostic::error(
                    Location::Unknown,
                    "internal parser error",
                )])
            }),
            Err(_) => run(),
        }
    })
}

/// Stack size of the parsing thread (enough for [`MAX_DEPTH`] levels of the deepest
/// recursion, in unoptimized builds too).
const PARSER_STACK: usize = 256 << 20;

/// Parses one type into `module`'s type table.
pub fn parse_type(text: &str, module: &mut Module) -> Result<TypeId, Diagnostic> {
    let opts = ParseOptions::default();
    let mut p = Parser::new(text, &opts);
    std::mem::swap(&mut p.m, module);
    let r = p.ty().and_then(|t| {
        if p.c.at_end() {
            Ok(t)
        } else {
            p.c.err("expected end of type")
        }
    });
    std::mem::swap(&mut p.m, module);
    r
}

/// Parses one attribute in generic syntax (types it mentions go into `module`).
pub fn parse_attribute(text: &str, module: &mut Module) -> Result<Attr, Diagnostic> {
    let opts = ParseOptions::default();
    let mut p = Parser::new(text, &opts);
    std::mem::swap(&mut p.m, module);
    let r = p.attr().and_then(|a| {
        if p.c.at_end() {
            Ok(a)
        } else {
            p.c.err("expected end of attribute")
        }
    });
    std::mem::swap(&mut p.m, module);
    r
}

/// One level of SSA name visibility.
struct Scope {
    /// Each name's values and the byte offset of its definition (for "prior use here").
    values: HashMap<String, (Vec<ValueId>, usize)>,
    /// Names above this scope are invisible (IsolatedFromAbove ops).
    isolated: bool,
}

/// The parser state.
pub(crate) struct Parser<'a> {
    pub(crate) c: Cursor<'a>,
    pub(crate) opts: &'a ParseOptions,
    pub(crate) m: Module,
    scopes: Vec<Scope>,
    pub(crate) attr_aliases: HashMap<String, AliasValue>,
    pub(crate) type_aliases: HashMap<String, TypeId>,
    /// Ops whose `loc(#alias)` names an alias defined later in the file.
    deferred_locs: Vec<(OpId, String, usize)>,
    pub(crate) depth: usize,
    /// Stack: whether bare op names resolve to cuda_tile.
    pub(crate) default_ct: Vec<bool>,
    /// Full name of the custom op being parsed (for "custom op '…'" messages).
    pub(crate) cur_op: String,
    /// Errors MLIR's parser reports before the one that stops parsing (e.g. "expected
    /// valid keyword" ahead of "expected signedness to be one of: …").
    pub(crate) pending: Vec<Diagnostic>,
    /// True while a type is being parsed (nested types do not restart the op-type rules).
    pub(crate) in_type: bool,
    /// When hint parameters are validated.
    pub(crate) hint_check: HintCheck,
    /// How many `nv_tileaa.func` bodies enclose the current op (see [`Self::resolve`]).
    pub(crate) lowered: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, opts: &'a ParseOptions) -> Self {
        Parser {
            c: Cursor::new(text, &opts.file_name),
            opts,
            m: Module::new(),
            scopes: vec![Scope {
                values: HashMap::new(),
                isolated: true,
            }],
            attr_aliases: HashMap::new(),
            type_aliases: HashMap::new(),
            deferred_locs: Vec::new(),
            depth: 0,
            default_ct: vec![false],
            cur_op: String::new(),
            pending: Vec::new(),
            in_type: false,
            hint_check: HintCheck::Deferred,
            lowered: 0,
        }
    }

    /// Enters one nesting level; fails past [`MAX_DEPTH`].
    pub(crate) fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return self.c.err(format!(
                "nesting too deep (the limit is {MAX_DEPTH} levels)"
            ));
        }
        Ok(())
    }

    /// A type as MLIR prints it in diagnostics: dialect types with one `!cuda_tile.`
    /// prefix and short-form parameters (`!cuda_tile.tile<4xptr<f32>>`).
    pub(crate) fn type_text(&self, t: TypeId) -> String {
        use tileir_ir::Type as T;
        match self.m.types.get(t) {
            T::Tile { .. }
            | T::TensorView(_)
            | T::PartitionView(_)
            | T::StridedView(_)
            | T::GatherScatterView(_)
            | T::Token => format!("!cuda_tile.{}", self.m.types.display(t, true)),
            _ => self.m.types.display(t, false),
        }
    }

    /// Prefixes a message with `custom op '<name>' `.
    pub(crate) fn custom(&self, msg: String) -> String {
        if self.cur_op.is_empty() {
            msg
        } else {
            format!("custom op '{}' {msg}", self.cur_op)
        }
    }

    /// An error at `pos` prefixed with the current custom op's name.
    pub(crate) fn cerr<T>(&self, pos: usize, msg: impl Into<String>) -> R<T> {
        self.c.err_at(pos, self.custom(msg.into()))
    }

    /// A bad enum keyword at `pos`: MLIR's generated enum parsers first fail to read a
    /// keyword ("expected valid keyword", only when the token is not one) and then
    /// report the allowed values (`msg`).
    pub(crate) fn keyword_err<T>(&mut self, pos: usize, msg: impl Into<String>) -> R<T> {
        let save = self.c.pos;
        self.c.pos = pos;
        let is_kw = self.c.peek_ident().is_some();
        self.c.pos = save;
        if !is_kw {
            let d = Diagnostic::error(
                self.c.loc_at(pos),
                self.custom("expected valid keyword".into()),
            );
            self.pending.push(d);
        }
        self.cerr(pos, msg)
    }

    fn top_level(&mut self) -> R<()> {
        let body = self.m.body;
        let mut explicit_module = false;
        loop {
            self.c.ws();
            if self.c.at_end() {
                break;
            }
            let at = self.c.pos;
            if self.c.at("#") {
                self.alias_def()?;
                continue;
            }
            if self.c.at("!") {
                self.c.pos += 1;
                let name = self.c.suffix_id().unwrap_or("").to_string();
                self.c.expect("=")?;
                let t = self.ty()?;
                if self.type_aliases.insert(name.clone(), t).is_some() {
                    return self
                        .c
                        .err_at(at, format!("redefinition of type alias id '{name}'"));
                }
                continue;
            }
            let word = self.c.peek_ident();
            if matches!(word, Some("module") | Some("builtin.module")) {
                if explicit_module || !self.m.blocks[body].ops.is_empty() {
                    return self.c.err_at(
                        at,
                        "an explicit top-level module must be the only top-level op",
                    );
                }
                explicit_module = true;
                self.c.ident();
                if self.c.at("@") {
                    self.symbol()?;
                }
                if self.c.eat_kw("attributes") {
                    self.attr_dict()?;
                }
                self.c.expect("{")?;
                loop {
                    self.c.ws();
                    if self.c.eat("}") {
                        break;
                    }
                    if self.c.at_end() {
                        return self.c.err("expected '}' to end the module");
                    }
                    if self.c.at("#") {
                        self.alias_def()?;
                        continue;
                    }
                    self.operation(body)?;
                }
                if self.c.at("loc") {
                    let _ = self.location()?;
                }
                continue;
            }
            if explicit_module {
                return self.c.err_at(
                    at,
                    "an explicit top-level module must be the only top-level op",
                );
            }
            self.operation(body)?;
        }
        for (op, name, pos) in std::mem::take(&mut self.deferred_locs) {
            match self.attr_aliases.get(&name) {
                Some(AliasValue::Loc(l)) => {
                    let id = self.m.locs.intern(l.clone());
                    self.m.ops[op].loc = id;
                }
                Some(_) => {
                    return self.c.err_at(
                        pos,
                        format!("expected location, but '#{name}' is not a location"),
                    )
                }
                None => {
                    return self
                        .c
                        .err_at(pos, format!("undefined symbol alias id '{name}'"))
                }
            }
        }
        Ok(())
    }

    fn alias_def(&mut self) -> R<()> {
        let at = self.c.pos;
        self.c.expect("#")?;
        let Some(name) = self.c.suffix_id() else {
            return self.c.err("expected alias name");
        };
        let name = name.to_string();
        if name.contains('.') {
            return self
                .c
                .err_at(at, "expected '=' in attribute alias definition");
        }
        self.c.expect("=")?;
        self.c.ws();
        let v = if self.c.at("loc")
            || self.c.at("#cuda_tile.di_")
            || (self.c.at("#") && !self.c.at("#cuda_tile."))
        {
            self.debug_attr()?
        } else {
            AliasValue::Attr(self.attr()?)
        };
        if self.attr_aliases.insert(name.clone(), v).is_some() {
            return self
                .c
                .err_at(at, format!("redefinition of attribute alias id '{name}'"));
        }
        Ok(())
    }

    // ---------------- values ----------------

    pub(crate) fn push_scope(&mut self, isolated: bool) {
        self.scopes.push(Scope {
            values: HashMap::new(),
            isolated,
        });
    }

    pub(crate) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// Binds `name` (without `%`) to values in the current scope.
    pub(crate) fn define(&mut self, name: &str, values: Vec<ValueId>, pos: usize) -> R<()> {
        for s in self.scopes.iter().rev() {
            if s.values.contains_key(name) {
                return self
                    .c
                    .err_at(pos, format!("redefinition of SSA value '%{name}'"));
            }
            if s.isolated {
                break;
            }
        }
        if let Some(&v) = values.first() {
            if self.opts.keep_names {
                self.m.set_name(v, name);
            }
        }
        self.scopes
            .last_mut()
            .expect("scope")
            .values
            .insert(name.to_string(), (values, pos));
        Ok(())
    }

    /// Resolves a use `%name#idx`, checking its type against `expected`.
    pub(crate) fn resolve(&mut self, u: &Use, expected: Option<TypeId>) -> R<ValueId> {
        let mut found = None;
        for s in self.scopes.iter().rev() {
            if let Some(v) = s.values.get(&u.name) {
                found = Some(v.clone());
                break;
            }
            if s.isolated {
                break;
            }
        }
        let Some((vals, def_pos)) = found else {
            return self.c.err_at(u.pos, "use of undeclared SSA value name");
        };
        let Some(&v) = vals.get(u.idx) else {
            return self.c.err_at(
                u.pos,
                format!(
                    "reference to invalid result number {} of '%{}'",
                    u.idx, u.name
                ),
            );
        };
        if let Some(t) = expected {
            let actual = self.m.value_type(v);
            // Inside nv_tileaa functions the operand types a residual cuda_tile op's
            // custom syntax fixes (a `token`, an `if` condition `tile<i1>`, …) appear in
            // their lowered forms, as `convert-cuda-tile-to-tileaa` retypes them.
            if actual != t && !(self.lowered > 0 && self.lowered_form(t) == Some(actual)) {
                let name = if u.idx > 0 {
                    format!("%{}#{}", u.name, u.idx)
                } else {
                    format!("%{}", u.name)
                };
                // As MLIR's parser: the note points at where the value was defined
                // (its "prior use"), whose type is the one that wins.
                return Err(Diagnostic::error(
                    self.c.loc_at(u.pos),
                    format!(
                        "use of value '{name}' expects different type than prior uses: '{}' vs '{}'",
                        self.m.types.display(t, false),
                        self.m.types.display(actual, false)
                    ),
                )
                .with_note(self.c.loc_at(def_pos), "prior use here"));
            }
        }
        Ok(v)
    }

    /// The nv_tileaa form of a cuda_tile type the alias-aware conversion retypes:
    /// `token` → `!nv_tileaa.mem_token`, `tile<T>` → `T`, `tile<ptr<T>>` →
    /// `!nv_tileaa.ptr<T, 1>`; `None` for the types it keeps.
    fn lowered_form(&mut self, t: TypeId) -> Option<TypeId> {
        use tileir_ir::{TileElem, Type};
        match self.m.types.get(t).clone() {
            Type::Token => Some(self.m.types.mem_token()),
            Type::Tile { shape, elem, layout: None } if shape.is_empty() => Some(match elem {
                TileElem::Num(n) => self.m.types.scalar(n),
                TileElem::Ptr(n) => self.m.types.intern(Type::AaPtr { pointee: n, addr_space: 1 }),
            }),
            _ => None,
        }
    }

    /// `%name` or `%name#N`.
    pub(crate) fn use_ref(&mut self) -> R<Use> {
        self.c.ws();
        let pos = self.c.pos;
        if !self.c.eat("%") {
            return self.c.err("expected SSA operand");
        }
        let Some(name) = self.c.suffix_id() else {
            return self.c.err_at(pos, "expected SSA operand");
        };
        let name = name.to_string();
        let mut idx = 0;
        if self.c.peek_at(0) == Some(b'#') {
            self.c.pos += 1;
            let b = self.c.src.as_bytes();
            let s = self.c.pos;
            while self.c.pos < b.len() && b[self.c.pos].is_ascii_digit() {
                self.c.pos += 1;
            }
            idx = self.c.src[s..self.c.pos]
                .parse()
                .or_else(|_| self.c.err_at(pos, "invalid SSA value result number"))?;
        }
        Ok(Use { name, idx, pos })
    }

    /// A comma-separated list of uses (possibly empty when the next token is not `%`).
    pub(crate) fn use_list(&mut self) -> R<Vec<Use>> {
        let mut v = Vec::new();
        if self.c.peek() != Some(b'%') {
            return Ok(v);
        }
        loop {
            v.push(self.use_ref()?);
            if !(self.c.at(",") && self.peek_after_comma_is_value()) {
                return Ok(v);
            }
            self.c.expect(",")?;
        }
    }

    fn peek_after_comma_is_value(&mut self) -> bool {
        let save = self.c.pos;
        self.c.eat(",");
        let r = self.c.peek() == Some(b'%');
        self.c.pos = save;
        r
    }

    /// A comma-separated type list.
    pub(crate) fn type_list(&mut self) -> R<Vec<TypeId>> {
        let mut v = vec![self.ty()?];
        while self.c.eat(",") {
            v.push(self.ty()?);
        }
        Ok(v)
    }

    // ---------------- operations ----------------

    /// Parses one operation and appends it to `block`.
    pub(crate) fn operation(&mut self, block: BlockId) -> R<OpId> {
        self.c.ws();
        let start = self.c.pos;
        // Result bindings: `%a, %b:2 =`.
        let mut binds: Vec<(String, usize, usize)> = Vec::new();
        if self.c.peek() == Some(b'%') {
            loop {
                self.c.ws();
                let pos = self.c.pos;
                self.c.expect("%")?;
                let Some(name) = self.c.suffix_id() else {
                    return self.c.err_at(pos, "expected SSA value name");
                };
                let name = name.to_string();
                let mut count = 1;
                if self.c.peek_at(0) == Some(b':') {
                    self.c.pos += 1;
                    let n = self.c.int()?;
                    count = usize::try_from(n)
                        .ok()
                        .filter(|&n| n > 0 && n < 1 << 20)
                        .map_or_else(
                            || self.c.err_at(pos, "expected a positive result count"),
                            Ok,
                        )?;
                }
                binds.push((name, count, pos));
                if !self.c.eat(",") {
                    break;
                }
            }
            self.c.expect("=")?;
        }
        let nbound: usize = binds.iter().map(|b| b.1).sum();
        let loc = self.m.locs.intern(self.c.loc_at(start));
        self.c.ws();
        let op = if self.c.peek() == Some(b'"') {
            self.generic_op(block, nbound, loc, start)?
        } else {
            self.custom_op(block, nbound, !binds.is_empty(), loc, start)?
        };
        // Bind results.
        let results = self.m.ops[op].results.clone();
        if !binds.is_empty() && results.is_empty() {
            return self
                .c
                .err_at(start, "cannot name an operation with no results");
        }
        if !binds.is_empty() && results.len() != nbound {
            return self.c.err_at(
                start,
                format!(
                    "operation defines {} results but was provided {} to bind",
                    results.len(),
                    nbound
                ),
            );
        }
        let mut next = 0;
        for (name, count, pos) in binds {
            let vals = results[next..next + count].to_vec();
            next += count;
            self.define(&name, vals, pos)?;
        }
        // Trailing location.
        if self.c.at("loc") && self.c.src[self.c.pos + 3..].starts_with('(') {
            self.c.ws();
            let pos = self.c.pos;
            match self.location()? {
                Ok(l) => self.m.ops[op].loc = self.m.locs.intern(l),
                Err(name) => self.deferred_locs.push((op, name, pos)),
            }
        }
        Ok(op)
    }

    /// Creates an op with `kind`, appends it, and returns it.
    pub(crate) fn create(
        &mut self,
        block: BlockId,
        kind: tileir_ir::OpKind,
        operands: Vec<ValueId>,
        results: &[TypeId],
        loc: tileir_ir::LocId,
    ) -> OpId {
        let op = self.m.create_op(kind, operands, results, loc);
        self.m.append_op(block, op);
        op
    }

    /// A fresh detached region (filled, then attached with [`Self::attach_regions`]).
    pub(crate) fn new_region(&mut self) -> tileir_ir::RegionId {
        self.m.regions.push(RegionData {
            blocks: Vec::new(),
            parent: None,
        })
    }

    /// Replaces `op`'s regions with `regions`.
    pub(crate) fn attach_regions(&mut self, op: OpId, regions: Vec<tileir_ir::RegionId>) {
        for &r in &regions {
            self.m.regions[r].parent = Some(op);
        }
        self.m.ops[op].regions = regions;
    }

    /// Parses a generic op after its result bindings.
    fn generic_op(
        &mut self,
        block: BlockId,
        nbound: usize,
        loc: tileir_ir::LocId,
        start: usize,
    ) -> R<OpId> {
        // Generic ops are not parsed by a custom parser: no "custom op" prefix.
        let saved = std::mem::take(&mut self.cur_op);
        let r = self.generic_op_inner(block, nbound, loc, start);
        self.cur_op = saved;
        r
    }

    fn generic_op_inner(
        &mut self,
        block: BlockId,
        nbound: usize,
        loc: tileir_ir::LocId,
        start: usize,
    ) -> R<OpId> {
        let name = self.c.string()?;
        self.c.expect("(")?;
        let mut uses = Vec::new();
        if !self.c.eat(")") {
            uses = self.use_list()?;
            self.c.expect(")")?;
        }
        if self.c.at("[") {
            return self.c.err("successors are not supported");
        }
        let mut attrs: Vec<(String, Attr)> = Vec::new();
        if self.c.eat("<") {
            self.c.ws();
            attrs = self.attr_dict()?;
            self.c.expect(">")?;
        }
        let ct_kind = name
            .strip_prefix("cuda_tile.")
            .and_then(ops::ct_from_mnemonic);
        // `from_generic` knows the op by its current name only.
        let legacy_print = name == "cuda_tile.print";
        let name = if legacy_print {
            "cuda_tile.print_tko".to_string()
        } else {
            name
        };
        let known_dialect = name.starts_with("cuda_tile.")
            || name.starts_with("nv_tileaa.")
            || name.starts_with("nv_tileas.");
        if !known_dialect && !self.opts.allow_unregistered {
            return self.c.err_at(
                start,
                format!("operation being parsed with an unregistered dialect ('{name}'). If this is intended, please use -allow-unregistered-dialect with the MLIR tool used"),
            );
        }
        if known_dialect && name.starts_with("cuda_tile.") && ct_kind.is_none() {
            return self.c.err_at(start, format!("unregistered operation '{name}' found in dialect ('cuda_tile') that does not allow unknown operations"));
        }
        let mut regions = Vec::new();
        if self.c.at("(") {
            self.c.expect("(")?;
            let default_ct = ct_kind.is_some_and(|k| {
                k.schema()
                    .has(tileir_ir::dialect::cuda_tile::schema::traits::DEFAULT_DIALECT)
            });
            let isolated = matches!(
                ct_kind,
                Some(
                    tileir_ir::CtOp::Entry | tileir_ir::CtOp::TestingFunc | tileir_ir::CtOp::Module
                )
            );
            loop {
                let r = self.new_region();
                self.generic_region(r, default_ct, isolated)?;
                regions.push(r);
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        if self.c.at("{") {
            let more = self.attr_dict()?;
            for (n, a) in more {
                if attrs.iter().any(|(m, _)| *m == n) {
                    return self.c.err_at(
                        start,
                        format!("duplicate key '{n}' in dictionary attribute"),
                    );
                }
                attrs.push((n, a));
            }
        }
        self.c.expect(":")?;
        self.c.ws();
        let tat = self.c.pos;
        let fty = self.ty()?;
        let (ins, outs) = match self.m.types.get(fty) {
            tileir_ir::Type::Function { inputs, results } => (inputs.clone(), results.clone()),
            _ => return self.c.err_at(tat, "expected function type"),
        };
        if ins.len() != uses.len() {
            return self.c.err_at(
                tat,
                format!(
                    "expected {} operand types but had {}",
                    uses.len(),
                    ins.len()
                ),
            );
        }
        let _ = nbound;
        let mut operands = Vec::new();
        for (u, t) in uses.iter().zip(&ins) {
            operands.push(self.resolve(u, Some(*t))?);
        }
        let attrs_had_segments = attrs.iter().any(|(n, _)| n == "operandSegmentSizes");
        let kind = if known_dialect {
            let attrs = match ct_kind {
                Some(k) => normalize_generic_attrs(k, attrs),
                None => attrs,
            };
            match tileir_ir::OpKind::from_generic(&name, &attrs) {
                Ok(k) => k,
                Err(errs) => return self.c.err_at(start, errs.join("; ")),
            }
        } else {
            tileir_ir::OpKind::Unregistered(tileir_ir::UnregisteredOp {
                name: name.clone(),
                attrs,
                num_regions: regions.len(),
            })
        };
        let mut kind = kind;
        if let tileir_ir::OpKind::CudaTile(ct) = &mut kind {
            // 13.1's `print` has one variadic operand group and no segment sizes.
            if legacy_print && !attrs_had_segments {
                ct.segments = vec![operands.len() as u32, 0].into();
            }
            if !ct.segments.is_empty() {
                let total: u32 = ct.segments.iter().sum();
                if total as usize != operands.len() {
                    return self.c.err_at(
                        start,
                        format!("'{name}' op operand count ({}) does not match with the total size ({total}) specified in attribute 'operandSegmentSizes'", operands.len()),
                    );
                }
            }
        }
        let want = kind.num_regions();
        if regions.len() > want {
            return self.c.err_at(
                start,
                format!(
                    "'{name}' op requires {want} regions but {} were given",
                    regions.len()
                ),
            );
        }
        while regions.len() < want {
            regions.push(self.new_region());
        }
        let op = self.create(block, kind, operands, &outs, loc);
        self.attach_regions(op, regions);
        Ok(op)
    }

    /// `{ [^bb0(%a: T, …):] ops }` in generic syntax.
    fn generic_region(
        &mut self,
        region: tileir_ir::RegionId,
        default_ct: bool,
        isolated: bool,
    ) -> R<()> {
        self.enter()?;
        self.c.expect("{")?;
        self.push_scope(isolated);
        self.default_ct.push(default_ct);
        let r = (|| -> R<()> {
            self.c.ws();
            if self.c.eat("}") {
                return Ok(());
            }
            let mut arg_uses = Vec::new();
            let mut arg_types = Vec::new();
            if self.c.eat("^") {
                self.c.suffix_id();
                if self.c.eat("(") && !self.c.eat(")") {
                    loop {
                        let u = self.use_ref()?;
                        self.c.expect(":")?;
                        arg_types.push(self.ty()?);
                        if self.c.at("loc") {
                            let _ = self.location()?;
                        }
                        arg_uses.push(u);
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
                self.c.expect(":")?;
            }
            let b = self.m.add_block(region, &arg_types);
            let args = self.m.blocks[b].args.clone();
            for (u, v) in arg_uses.iter().zip(args) {
                self.define(&u.name, vec![v], u.pos)?;
            }
            loop {
                self.c.ws();
                if self.c.eat("}") {
                    return Ok(());
                }
                if self.c.at("^") {
                    return self
                        .c
                        .err("regions with more than one block are not supported");
                }
                if self.c.at_end() {
                    return self.c.err("expected '}' to end the region");
                }
                self.operation(b)?;
            }
        })();
        self.default_ct.pop();
        self.pop_scope();
        self.depth -= 1;
        r
    }
}

/// An SSA use before resolution.
#[derive(Clone, Debug)]
pub(crate) struct Use {
    pub(crate) name: String,
    pub(crate) idx: usize,
    pub(crate) pos: usize,
}

/// Gives generic-syntax attribute values the spelling `CudaTileOp::from_generic`
/// expects for their declared kinds (`4 : i32` → an integer for I32 and I32-enum attrs).
fn normalize_generic_attrs(op: tileir_ir::CtOp, attrs: Vec<(String, Attr)>) -> Vec<(String, Attr)> {
    use tileir_ir::dialect::cuda_tile::AttrKind;
    let schema = op.schema();
    attrs
        .into_iter()
        .map(|(n, a)| {
            let kind = schema.attrs.iter().find(|s| s.name == n).map(|s| s.kind);
            let a = match (kind, a) {
                (
                    Some(AttrKind::I32 | AttrKind::I64 | AttrKind::Enum(_)),
                    Attr::Scalar(t, bits),
                ) if t.is_int() => Attr::Int(tileir_numeric::sign_extend(bits, t.bit_width())),
                (Some(AttrKind::Bool), Attr::Scalar(tileir_ir::NumType::I1, b)) => {
                    Attr::Bool(b == 1)
                }
                (_, a) => a,
            };
            (n, a)
        })
        .collect()
}

/// Location of a diagnostic (re-exported for callers that build their own).
pub fn diagnostic_location(d: &Diagnostic) -> &Location {
    &d.loc
}
