//! Custom-syntax op parsing: the declarative formats of the regular ops and the
//! hand-written irregular ones (module, functions, globals, constants, control flow,
//! views, memory, atomics, print, assume, comparisons, …).

use crate::lex::R;
use crate::types_attrs::quoted;
use crate::{Parser, Use};
use tileir_ir::attrs::Attr;
use tileir_ir::dialect::cuda_tile::{Arity, AttrKind, CtOp, CudaTileOp, EnumKind};
use tileir_ir::module::{BlockId, OpId, RegionId, ValueId};
use tileir_ir::print::format::{self, Mod, Res, Types};
use tileir_ir::types::{NumType, TileElem, Type, TypeId};
use tileir_ir::{LocId, OpKind};

/// Looks up a cuda_tile mnemonic, accepting 13.1's `print` for `print_tko`.
pub(crate) fn ct_from_mnemonic(m: &str) -> Option<CtOp> {
    match m {
        "print" => Some(CtOp::PrintTko),
        _ => CtOp::from_mnemonic(m),
    }
}

fn enum_kind(op: CtOp, attr: &str) -> Option<EnumKind> {
    match op.schema().attrs.iter().find(|a| a.name == attr)?.kind {
        AttrKind::Enum(e) => Some(e),
        _ => None,
    }
}

/// Keywords of `kind` in the order MLIR's messages list them.
fn listed(kind: EnumKind) -> Vec<&'static str> {
    match kind {
        EnumKind::Signedness => vec!["signed", "unsigned"],
        EnumKind::ComparisonOrdering => vec!["ordered", "unordered"],
        k => k.keywords(),
    }
}

/// Keywords a conversion's custom rounding parser accepts, where that is narrower
/// than what the shared format records: NVIDIA's `itof` parser takes the IEEE modes
/// and `ftoi`'s only `nearest_int_to_zero`, rejecting the rest with the list.
fn parse_allowed(op: CtOp, attr: &str) -> Option<&'static [&'static str]> {
    match (op, attr) {
        (CtOp::IToF, "rounding_mode") => Some(format::IEEE_ROUNDING),
        (CtOp::FToI, "rounding_mode") => Some(&["nearest_int_to_zero"]),
        _ => None,
    }
}

fn human(attr: &str) -> String {
    match attr {
        "rounding_mode" | "rounding" => "rounding mode".into(),
        "signedness_lhs" | "signedness_rhs" => "signedness".into(),
        other => other.replace('_', " "),
    }
}

impl Parser<'_> {
    /// Checks a list of static / dynamic entries (`[%n, 4]`) against the dimensions a type
    /// declares: the count (`count(what, wanted, given)` words the error), then each entry's
    /// kind and value (`entry(what, index, wanted, given)`).
    pub(crate) fn check_dims(
        &self,
        list: &[(Result<i64, Use>, usize)],
        dims: &[tileir_ir::Dim],
        list_at: usize,
        what: &str,
        count: impl Fn(&str, usize, usize) -> String,
        entry: impl Fn(&str, usize, &str, &str) -> String,
    ) -> R<()> {
        if list.len() != dims.len() {
            return self.cerr(list_at, count(what, dims.len(), list.len()));
        }
        let text = |d: Option<i64>| d.map_or("dynamic".to_string(), |v| v.to_string());
        for (i, ((e, at), d)) in list.iter().zip(dims).enumerate() {
            let given = e.as_ref().ok().copied();
            if given != d.as_static() {
                return self.cerr(*at, entry(what, i, &text(d.as_static()), &text(given)));
            }
        }
        Ok(())
    }

    /// A function signature's optional results: `-> T` or `-> (T, …)` (none without `->`).
    pub(crate) fn function_results(&mut self) -> R<Vec<tileir_ir::TypeId>> {
        let mut results = Vec::new();
        if self.c.eat("->") {
            if self.c.eat("(") {
                if !self.c.eat(")") {
                    results = self.type_list()?;
                    self.c.expect(")")?;
                }
            } else {
                results.push(self.ty()?);
            }
        }
        Ok(results)
    }

    /// Parses a custom-form op (after its result bindings).
    pub(crate) fn custom_op(
        &mut self,
        block: BlockId,
        nbound: usize,
        _has_binds: bool,
        loc: LocId,
        start: usize,
    ) -> R<OpId> {
        self.c.ws();
        let at = self.c.pos;
        let Some(name) = self.c.ident() else {
            return self.c.err("expected operation name");
        };
        if let Some((d @ ("nv_tileaa" | "nv_tileas"), m)) = name.split_once('.') {
            return self.lowered_op(block, d, m, at, loc, start);
        }
        let op = match name.split_once('.') {
            Some(("cuda_tile", m)) => ct_from_mnemonic(m),
            Some(_) => None,
            None if *self.default_ct.last().unwrap_or(&false) => ct_from_mnemonic(name),
            None => None,
        };
        // 13.1 spelled `print_tko` as `print` (no token operand or result); the op keeps
        // that name in messages and when printed without a token result.
        let legacy_print = op == Some(CtOp::PrintTko) && name.ends_with("print");
        let Some(op) = op.filter(|o| *o != CtOp::TestingFunc || name.ends_with("testing$func"))
        else {
            let tried = if name.contains('.') {
                String::new()
            } else if *self.default_ct.last().unwrap_or(&false) {
                format!(" (tried 'cuda_tile.{name}' as well)")
            } else {
                format!(" (tried 'builtin.{name}' as well)")
            };
            return self
                .c
                .err_at(at, format!("custom op '{name}' is unknown{tried}"));
        };
        let full = if legacy_print {
            "cuda_tile.print".to_string()
        } else {
            format!("cuda_tile.{}", op.mnemonic())
        };
        let saved = std::mem::replace(&mut self.cur_op, full);
        let r = match format::of(op) {
            _ if matches!(op, CtOp::GetTensorShape | CtOp::GetIndexSpaceShape) => {
                self.shape_query(block, op, loc)
            }
            Some(f) => self.regular(block, op, f, nbound, loc, start),
            None => self.irregular(block, op, nbound, loc, start),
        };
        self.cur_op = saved;
        r
    }

    fn enum_attr(
        &mut self,
        op: CtOp,
        attr: &str,
        pos: usize,
        kw: &str,
        allowed: Option<&[&str]>,
    ) -> R<Attr> {
        let Some(kind) = enum_kind(op, attr) else {
            return self.cerr(pos, format!("has no enum attribute '{attr}'"));
        };
        let kws = kind.keywords();
        let ok = kws
            .iter()
            .find(|k| **k == kw)
            .filter(|k| allowed.is_none_or(|a| a.contains(k)));
        match ok {
            Some(k) => Ok(Attr::Enum(kind.mnemonic(), k)),
            None => {
                let list: Vec<&str> = allowed.map(|a| a.to_vec()).unwrap_or_else(|| listed(kind));
                if matches!(attr, "rounding_mode" | "rounding") {
                    let l = list
                        .iter()
                        .map(|k| format!("'{k}'"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.keyword_err(
                        pos,
                        format!("expected rounding mode to be one of: {l}, got: '{kw}'"),
                    )
                } else {
                    self.keyword_err(
                        pos,
                        format!("expected {} to be one of: {}", human(attr), quoted(&list)),
                    )
                }
            }
        }
    }

    /// A bare enum keyword for `attr` (e.g. `signed`).
    fn kw_attr(&mut self, op: CtOp, attr: &str) -> R<Attr> {
        self.c.ws();
        let pos = self.c.pos;
        match self.c.ident() {
            Some(w) => self.enum_attr(op, attr, pos, w, None),
            None => self.enum_attr(op, attr, pos, "", None),
        }
    }

    fn regular(
        &mut self,
        block: BlockId,
        op: CtOp,
        f: format::Format,
        nbound: usize,
        loc: LocId,
        start: usize,
    ) -> R<OpId> {
        let uses = self.use_list()?;
        self.c.ws();
        let after_uses = self.c.pos;
        let mut ct = CudaTileOp::new(op);
        let mut filled = vec![false; f.mods.len()];
        loop {
            self.c.ws();
            let pos = self.c.pos;
            if self.c.at("{") {
                let d = self.attr_dict()?;
                for (n, a) in d {
                    if ct.schema().attr_index(&n).is_some() {
                        ct.set(&n, a);
                    } else {
                        ct.discardable.push((n, a));
                    }
                }
                continue;
            }
            if self.c.at("[") {
                let Some(i) = f
                    .mods
                    .iter()
                    .position(|m| matches!(m, Mod::Bracketed { .. }))
                else {
                    break;
                };
                let Mod::Bracketed { attr } = f.mods[i] else {
                    break;
                };
                let v = self.int_list("[", "]")?;
                ct.set(attr, Attr::IntArray(v));
                filled[i] = true;
                continue;
            }
            let Some(w) = self.c.peek_ident() else { break };
            let mut matched = false;
            for (i, m) in f.mods.iter().enumerate() {
                match *m {
                    Mod::Wrapped {
                        attr,
                        prefix,
                        allowed,
                    } if w == prefix => {
                        self.c.ident();
                        self.c.expect("<")?;
                        self.c.ws();
                        let kpos = self.c.pos;
                        let kw = self.c.ident().unwrap_or("");
                        let allowed = parse_allowed(op, attr).or(allowed);
                        let a = self.enum_attr(op, attr, kpos, kw, allowed)?;
                        self.c.expect(">")?;
                        ct.set(attr, a);
                    }
                    Mod::Unit { attr } if w == attr => {
                        self.c.ident();
                        ct.set(attr, Attr::Unit);
                    }
                    Mod::AttrEq { attr } if w == attr => {
                        self.c.ident();
                        self.c.expect("=")?;
                        let v = self.i64()?;
                        ct.set(attr, Attr::Int(v));
                    }
                    Mod::Keyword { attr }
                        if !filled[i]
                            && enum_kind(op, attr).is_some_and(|k| k.keywords().contains(&w)) =>
                    {
                        self.c.ident();
                        let a = self.enum_attr(op, attr, pos, w, None)?;
                        ct.set(attr, a);
                    }
                    _ => continue,
                }
                filled[i] = true;
                matched = true;
                break;
            }
            if !matched {
                break;
            }
        }
        for (i, m) in f.mods.iter().enumerate() {
            if let (Mod::Keyword { attr }, false) = (m, filled[i]) {
                self.c.ws();
                let pos = self.c.pos;
                let kws = enum_kind(op, attr).map(listed).unwrap_or_default();
                return self.keyword_err(
                    pos,
                    format!("expected {} to be one of: {}", human(attr), quoted(&kws)),
                );
            }
        }
        self.c.expect(":")?;
        let schema = op.schema();
        let fixed_operands = schema
            .operands
            .iter()
            .all(|o| o.arity == Arity::One)
            .then_some(schema.operands.len());
        let check_count = |p: &Self, n: usize| -> R<()> {
            match fixed_operands {
                // The declarative format reads `$a, $b, …` one by one: a short list
                // fails where the next ',' should be.
                Some(k) if n > 0 && n < k => p.c.err_at(after_uses, "expected ','"),
                Some(k) if k != n => {
                    p.c.err_at(start, format!("{n} operands present, but expected {k}"))
                }
                _ => Ok(()),
            }
        };
        check_count(self, uses.len())?;
        let nres = schema.fixed_results().unwrap_or(nbound);
        let (operand_types, result_types): (Vec<TypeId>, Vec<TypeId>) = match f.types {
            Types::Same => {
                let t = self.ty()?;
                (vec![t; uses.len()], vec![t; nres])
            }
            Types::Conv => {
                let a = self.ty()?;
                self.c.expect("->")?;
                let b = self.ty()?;
                (vec![a; uses.len()], vec![b; nres])
            }
            Types::List {
                written,
                operands,
                result,
            } => {
                self.c.ws();
                let tpos = self.c.pos;
                let w = self.type_list()?;
                if w.len() < written as usize {
                    return self.c.wrong_token("expected ','");
                }
                if w.len() != written as usize {
                    return self.c.err_at(
                        tpos,
                        format!("expected {written} types but got {}", w.len()),
                    );
                }
                let ot = operands.iter().map(|&k| w[k as usize]).collect();
                let rt = match result {
                    Res::Arrow => {
                        self.c.expect("->")?;
                        vec![self.ty()?]
                    }
                    Res::Written(k) => vec![w[k as usize]],
                };
                (ot, rt)
            }
        };
        let mut operands = Vec::new();
        for (u, t) in uses.iter().zip(&operand_types) {
            operands.push(self.resolve(u, Some(*t))?);
        }
        Ok(self.create(block, OpKind::CudaTile(ct), operands, &result_types, loc))
    }

    fn resolve_all(&mut self, uses: &[Use], types: &[TypeId]) -> R<Vec<ValueId>> {
        uses.iter()
            .zip(types)
            .map(|(u, t)| self.resolve(u, Some(*t)))
            .collect()
    }

    /// An integer that fits i32 (an `I32Attr` written bare in a declarative format).
    fn i32_value(&mut self) -> R<i64> {
        self.c.ws();
        let at = self.c.pos;
        let v = self.c.int()?;
        match i32::try_from(v) {
            Ok(v) => Ok(i64::from(v)),
            Err(_) => self.c.err_at(at, "integer constant out of range for attribute"),
        }
    }

    fn token_ty(&mut self) -> TypeId {
        self.m.types.token()
    }

    /// `token = %t` / `token=%t`.
    fn token_opt(&mut self) -> R<Option<Use>> {
        if self.c.peek_ident() == Some("token") {
            self.c.ident();
            self.c.expect("=")?;
            return Ok(Some(self.use_ref()?));
        }
        Ok(None)
    }

    fn hints_opt(&mut self, ct: &mut CudaTileOp) -> R<()> {
        if self.c.eat_kw("optimization_hints") {
            self.c.expect("=")?;
            let h = self.hints_body()?;
            if !h.is_empty() {
                ct.set("optimization_hints", Attr::Dict(h));
            }
        }
        Ok(())
    }

    /// An enum attribute written as a bare keyword (or a string) by a declarative
    /// format, with the message ODS's generated parser gives for anything else.
    fn ods_enum(&mut self, op: CtOp, attr: &str) -> R<Attr> {
        self.c.ws();
        let pos = self.c.pos;
        let Some(kind) = enum_kind(op, attr) else {
            return self.cerr(pos, format!("has no enum attribute '{attr}'"));
        };
        let kws = kind.keywords();
        if self.c.peek() == Some(b'"') {
            let s = self.c.string()?;
            return match kws.iter().find(|k| **k == s) {
                Some(k) => Ok(Attr::Enum(kind.mnemonic(), k)),
                None => self.cerr(
                    pos,
                    format!("invalid {attr} attribute specification: \"{s}\""),
                ),
            };
        }
        if let Some(k) = self
            .c
            .peek_ident()
            .and_then(|w| kws.iter().find(|k| **k == w).copied())
        {
            self.c.ident();
            return Ok(Attr::Enum(kind.mnemonic(), k));
        }
        self.cerr(
            pos,
            format!(
                "expected string or keyword containing one of the following enum values for attribute '{attr}' [{}]",
                kws.join(", ")
            ),
        )
    }

    fn ordering(&mut self, op: CtOp, ct: &mut CudaTileOp, scope_required: bool) -> R<()> {
        if scope_required {
            // The atomics spell both enums through their declarative format.
            let a = self.ods_enum(op, "memory_ordering_semantics")?;
            ct.set("memory_ordering_semantics", a);
            let s = self.ods_enum(op, "memory_scope")?;
            ct.set("memory_scope", s);
            return Ok(());
        }
        if matches!(op, CtOp::LoadViewTko | CtOp::StoreViewTko) {
            return self.view_ordering(op, ct);
        }
        let a = self.kw_attr(op, "memory_ordering_semantics")?;
        ct.set("memory_ordering_semantics", a);
        if scope_required {
            let s = self.kw_attr(op, "memory_scope")?;
            ct.set("memory_scope", s);
        } else if let Some(w) = self.c.peek_ident() {
            if EnumKind::MemoryScope.keywords().contains(&w) {
                let pos = self.c.pos;
                self.c.ident();
                let s = self.enum_attr(op, "memory_scope", pos, w, None)?;
                ct.set("memory_scope", s);
            }
        }
        Ok(())
    }

    /// The view ops' ordering and scope, read by NVIDIA's custom directive: it names the
    /// bad keyword and rejects a scope after `weak` while parsing (the pointer ops leave
    /// both to the verifier). A scope is optional here; the verifier asks for it.
    fn view_ordering(&mut self, op: CtOp, ct: &mut CudaTileOp) -> R<()> {
        self.c.ws();
        let pos = self.c.pos;
        let word = self.c.peek_ident().unwrap_or("").to_string();
        let orderings = EnumKind::MemoryOrdering.keywords();
        if !orderings.contains(&word.as_str()) {
            return self.cerr(
                pos,
                format!(
                    "invalid memory_ordering_semantics attribute specification. Got \"{word}\" but expect one of: {}",
                    orderings.join(", ")
                ),
            );
        }
        self.c.ident();
        let a = self.enum_attr(op, "memory_ordering_semantics", pos, &word, None)?;
        ct.set("memory_ordering_semantics", a);
        self.c.ws();
        let pos = self.c.pos;
        let Some(scope) = self.c.peek_ident().map(str::to_string) else {
            return Ok(());
        };
        let scopes = EnumKind::MemoryScope.keywords();
        if word == "weak" {
            // After `weak`, only a scope keyword is taken as one (anything else is left
            // for the operand list).
            if scopes.contains(&scope.as_str()) {
                return self.cerr(
                    pos,
                    format!("operation specifies weak memory ordering semantics, but then provides \"{scope}\" scope, expected no memory scope."),
                );
            }
            return Ok(());
        }
        if !scopes.contains(&scope.as_str()) {
            return self.cerr(
                pos,
                format!(
                    "invalid memory_scope attribute specification. Got \"{scope}\" but expect one of: {}",
                    scopes.join(", ")
                ),
            );
        }
        self.c.ident();
        let s = self.enum_attr(op, "memory_scope", pos, &scope, None)?;
        ct.set("memory_scope", s);
        Ok(())
    }

    /// An attribute dictionary after an op's regions (`} {cuda_tile.loop_split = 0}`),
    /// kept as discardable attributes of the op.
    fn trailing_attrs(&mut self, o: OpId) -> R<()> {
        self.c.ws();
        if !self.c.at("{") {
            return Ok(());
        }
        let attrs = self.attr_dict()?;
        if let OpKind::CudaTile(ct) = &mut self.m.ops[o].kind {
            ct.discardable.extend(attrs);
        }
        Ok(())
    }

    /// Index types after a view type: one for all indices or one per index.
    fn index_types(&mut self, n: usize) -> R<Vec<TypeId>> {
        let mut v = Vec::new();
        while self.c.eat(",") {
            v.push(self.ty()?);
        }
        // One type stands for every index (NVIDIA's type splat), however many there are:
        // with no indices it is dropped and the verifier reports the missing ones.
        if v.len() == 1 {
            v = vec![v[0]; n];
        }
        if v.len() != n {
            return self.c.err(format!(
                "expected {n} index types or a single one, got {}",
                v.len()
            ));
        }
        Ok(v)
    }

    /// `{ ops }` of a custom-form region with the given block arguments.
    fn custom_region(
        &mut self,
        region: RegionId,
        args: &[(Use, TypeId)],
        isolated: bool,
        implicit: Option<CtOp>,
    ) -> R<()> {
        self.enter()?;
        self.c.expect("{")?;
        self.push_scope(isolated);
        self.default_ct.push(true);
        let parent = self.m.regions[region].parent;
        let r = (|| -> R<()> {
            // As MLIR's region parser: `{}` without arguments is a region with no block.
            // Ops with an implicit terminator (and the single-block module) get one
            // back below; for the others (reduce, scan) the verifier reports it.
            let keeps_block = implicit.is_some()
                || parent.is_some_and(|o| self.m.ops[o].kind.ct() == Some(CtOp::Module));
            if args.is_empty() && !keeps_block {
                self.c.ws();
                if self.c.eat("}") {
                    return Ok(());
                }
            }
            let types: Vec<TypeId> = args.iter().map(|a| a.1).collect();
            let b = self.m.add_block(region, &types);
            let vals = self.m.blocks[b].args.clone();
            for ((u, _), v) in args.iter().zip(vals) {
                self.define(&u.name, vec![v], u.pos)?;
            }
            loop {
                self.c.ws();
                if self.c.eat("}") {
                    break;
                }
                if self.c.at_end() {
                    return self.c.err("expected '}' to end the region");
                }
                self.operation(b)?;
            }
            if let Some(t) = implicit {
                let last_is_term = self.m.blocks[b]
                    .ops
                    .last()
                    .is_some_and(|&o| self.m.ops[o].kind.is_terminator());
                if !last_is_term {
                    // MLIR builds the implicit terminator at the parent op's location, so
                    // its diagnostics point at that op.
                    let at = match parent {
                        Some(o) => self.m.ops[o].loc,
                        None => self.m.locs.unknown(),
                    };
                    self.create(b, OpKind::CudaTile(CudaTileOp::new(t)), vec![], &[], at);
                }
            }
            Ok(())
        })();
        self.default_ct.pop();
        self.pop_scope();
        self.depth -= 1;
        r
    }

    fn region_of(&self, op: OpId, i: usize) -> RegionId {
        self.m.ops[op].regions[i]
    }

    fn scalar_i32(&mut self) -> TypeId {
        self.m.types.scalar_tile(NumType::I32)
    }

    fn irregular(
        &mut self,
        block: BlockId,
        op: CtOp,
        nbound: usize,
        loc: LocId,
        start: usize,
    ) -> R<OpId> {
        let mut ct = CudaTileOp::new(op);
        let tok = self.token_ty();
        match op {
            CtOp::Module => {
                let name = self.symbol()?;
                ct.set("sym_name", Attr::Str(name));
                if self.c.eat_kw("attributes") {
                    for (n, a) in self.attr_dict()? {
                        if n == "producer" {
                            ct.set("producer", a);
                        } else {
                            ct.discardable.push((n, a));
                        }
                    }
                }
                let o = self.create(block, OpKind::CudaTile(ct), vec![], &[], loc);
                let r = self.region_of(o, 0);
                self.custom_region(r, &[], true, None)?;
                Ok(o)
            }
            CtOp::Entry | CtOp::TestingFunc => {
                let name = self.symbol()?;
                self.c.expect("(")?;
                let mut args: Vec<(Use, TypeId)> = Vec::new();
                let mut arg_attrs: Vec<Attr> = Vec::new();
                if !self.c.eat(")") {
                    loop {
                        let u = self.use_ref()?;
                        self.c.expect(":")?;
                        let t = self.ty()?;
                        let d = if self.c.at("{") {
                            self.attr_dict()?
                        } else {
                            Vec::new()
                        };
                        if self.c.at("loc") {
                            let _ = self.location()?;
                        }
                        arg_attrs.push(Attr::Dict(d));
                        args.push((u, t));
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
                let results = self.function_results()?;
                if self.c.eat_kw("optimization_hints") {
                    self.c.expect("=")?;
                    let h = self.hints_body()?;
                    if !h.is_empty() {
                        ct.set("optimization_hints", Attr::Dict(h));
                    }
                }
                if self.c.eat_kw("attributes") {
                    for (n, a) in self.attr_dict()? {
                        if ct.schema().attr_index(&n).is_some()
                            && n != "sym_name"
                            && n != "function_type"
                        {
                            ct.set(&n, a);
                        } else {
                            ct.discardable.push((n, a));
                        }
                    }
                }
                let inputs = args.iter().map(|a| a.1).collect();
                let fty = self.m.types.intern(Type::Function { inputs, results });
                ct.set("sym_name", Attr::Str(name));
                ct.set("function_type", Attr::Type(fty));
                if arg_attrs
                    .iter()
                    .any(|a| !matches!(a, Attr::Dict(d) if d.is_empty()))
                {
                    ct.set("arg_attrs", Attr::Array(arg_attrs));
                }
                let o = self.create(block, OpKind::CudaTile(ct), vec![], &[], loc);
                let r = self.region_of(o, 0);
                self.custom_region(r, &args, true, Some(CtOp::Return))?;
                // 13.3 also takes the attribute dictionary after the body.
                self.trailing_attrs(o)?;
                Ok(o)
            }
            CtOp::Global => {
                loop {
                    if self.c.eat_kw("private") || self.c.eat_kw("public") {
                        let kw = &self.c.src[..self.c.pos];
                        let v = if kw.ends_with("private") {
                            "private"
                        } else {
                            "public"
                        };
                        ct.set(
                            "symbol_visibility",
                            Attr::Enum(EnumKind::SymbolVisibility.mnemonic(), v),
                        );
                    } else if self.c.eat_kw("constant") {
                        ct.set("constant", Attr::Unit);
                    } else {
                        break;
                    }
                }
                let name = self.symbol()?;
                ct.set("sym_name", Attr::Str(name));
                if self.c.eat_kw("alignment") {
                    self.c.expect("=")?;
                    let a = self.i64()?;
                    ct.set("alignment", Attr::Int(a));
                }
                let d = self.dense_custom(start)?;
                ct.set("value", Attr::Dense(d.0));
                Ok(self.create(block, OpKind::CudaTile(ct), vec![], &[], loc))
            }
            CtOp::Constant => {
                let (d, t) = self.dense_custom(start)?;
                ct.set("value", Attr::Dense(d));
                Ok(self.create(block, OpKind::CudaTile(ct), vec![], &[t], loc))
            }
            CtOp::GetGlobal => {
                let name = self.symbol()?;
                ct.set("name", Attr::Symbol(name));
                self.c.expect(":")?;
                let t = self.ty()?;
                Ok(self.create(block, OpKind::CudaTile(ct), vec![], &[t], loc))
            }
            CtOp::Assume => {
                self.c.ws();
                let pos = self.c.pos;
                const PREDICATES: [&str; 3] = ["div_by", "same_elements", "bounded"];
                // NVIDIA's parser first tries a full attribute (`#cuda_tile.div_by<…>`, or
                // any other attribute, which is then not a predicate), then the short
                // keyword form.
                let long = self.c.eat("#cuda_tile.");
                let word = self.c.peek_ident().unwrap_or("").to_string();
                let is_pred = PREDICATES.contains(&word.as_str());
                let attr_start = long
                    || self.c.at("#")
                    || matches!(word.as_str(), "true" | "false" | "unit" | "dense" | "array")
                    || (word.is_empty() && !self.c.at(",") && !self.c.at(":"));
                if !is_pred && attr_start {
                    self.c.pos = pos;
                    self.attr()?;
                    return self.cerr(pos, "expected assume predicate attribute");
                }
                if word.is_empty() {
                    return self.cerr(pos, "expected attribute name");
                }
                if !is_pred {
                    return self.cerr(
                        pos,
                        format!("unknown assume predicate attribute: {word} (expected 'div_by', 'same_elements', or 'bounded')"),
                    );
                }
                self.c.ident();
                let m = word;
                let p = self.assume_body(&m, pos)?;
                ct.set("predicate", Attr::Assume(p));
                self.c.expect(",")?;
                let u = self.use_ref()?;
                self.c.expect(":")?;
                let t = self.ty()?;
                let v = self.resolve(&u, Some(t))?;
                Ok(self.create(block, OpKind::CudaTile(ct), vec![v], &[t], loc))
            }
            CtOp::Assert => {
                let u = self.use_ref()?;
                self.c.expect(",")?;
                let msg = self.c.string()?;
                ct.set("message", Attr::Str(msg));
                self.c.expect(":")?;
                let t = self.ty()?;
                let v = self.resolve(&u, Some(t))?;
                Ok(self.create(block, OpKind::CudaTile(ct), vec![v], &[], loc))
            }
            CtOp::Alloca => {
                self.c.expect_kw("num_elem")?;
                self.c.expect("=")?;
                let n = self.i64()?;
                self.c.expect(",")?;
                self.c.expect_kw("alignment")?;
                self.c.expect("=")?;
                let a = self.i64()?;
                ct.set("num_elem", Attr::Int(n));
                ct.set("alignment", Attr::Int(a));
                if self.c.eat_kw("global") {
                    ct.set("global", Attr::Unit);
                }
                self.c.expect(":")?;
                let t = self.ty()?;
                Ok(self.create(block, OpKind::CudaTile(ct), vec![], &[t], loc))
            }
            CtOp::CmpI | CtOp::CmpF => {
                self.c.ws();
                let pos = self.c.pos;
                let p = self.c.ident().unwrap_or("");
                let pa = match enum_kind(op, "comparison_predicate")
                    .and_then(|k| k.keywords().into_iter().find(|k| *k == p))
                {
                    Some(k) => Attr::Enum(EnumKind::ComparisonPredicate.mnemonic(), k),
                    None => {
                        return self.keyword_err(
                            pos,
                            format!(
                                "expected 'comparison_predicate' to be one of: {}",
                                quoted(&EnumKind::ComparisonPredicate.keywords())
                            ),
                        )
                    }
                };
                ct.set("comparison_predicate", pa);
                if op == CtOp::CmpF {
                    self.c.ws();
                    let pos = self.c.pos;
                    let o = self.c.ident().unwrap_or("");
                    match EnumKind::ComparisonOrdering
                        .keywords()
                        .into_iter()
                        .find(|k| *k == o)
                    {
                        Some(k) => ct.set(
                            "comparison_ordering",
                            Attr::Enum(EnumKind::ComparisonOrdering.mnemonic(), k),
                        ),
                        None => {
                            return self.keyword_err(
                                pos,
                                format!(
                                    "expected 'comparison_ordering' to be one of: {}",
                                    quoted(&listed(EnumKind::ComparisonOrdering))
                                ),
                            )
                        }
                    }
                }
                let a = self.use_ref()?;
                self.c.expect(",")?;
                let b = self.use_ref()?;
                if op == CtOp::CmpI {
                    self.c.expect(",")?;
                    self.c.ws();
                    let pos = self.c.pos;
                    match self.c.ident() {
                        Some(w) if EnumKind::Signedness.keywords().contains(&w) => {
                            let s = self.enum_attr(op, "signedness", pos, w, None)?;
                            ct.set("signedness", s);
                        }
                        _ => {
                            return self.keyword_err(
                                pos,
                                format!(
                                    "expected signedness to be one of: {}",
                                    quoted(&listed(EnumKind::Signedness))
                                ),
                            )
                        }
                    }
                }
                self.c.expect(":")?;
                let t = self.ty()?;
                let r = if self.c.eat("->") {
                    self.ty()?
                } else {
                    match self.m.types.get(t).clone() {
                        Type::Tile { shape, .. } => {
                            self.m.types.tile(&shape, TileElem::Num(NumType::I1))
                        }
                        _ => return self.c.err("expected '->'"),
                    }
                };
                let ops = self.resolve_all(&[a, b], &[t, t])?;
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &[r], loc))
            }
            CtOp::Extract => {
                let s = self.use_ref()?;
                self.c.expect("[")?;
                let mut idx = Vec::new();
                if !self.c.eat("]") {
                    idx = self.use_list()?;
                    self.c.expect("]")?;
                }
                self.c.expect(":")?;
                let ts = self.ty()?;
                self.c.expect("->")?;
                let tr = self.ty()?;
                let i32t = self.scalar_i32();
                let mut ops = vec![self.resolve(&s, Some(ts))?];
                for u in &idx {
                    ops.push(self.resolve(u, Some(i32t))?);
                }
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &[tr], loc))
            }
            CtOp::MakePartitionView | CtOp::MakeStridedView | CtOp::MakeGatherScatterView => {
                let u = self.use_ref()?;
                self.c.expect(":")?;
                self.c.ws();
                let tpos = self.c.pos;
                let t = self.ty()?;
                let tv = match self.m.types.get(t) {
                    Type::PartitionView(p) if op == CtOp::MakePartitionView => p.tensor_view,
                    Type::StridedView(p) if op == CtOp::MakeStridedView => p.tensor_view,
                    Type::GatherScatterView(p) if op == CtOp::MakeGatherScatterView => {
                        p.tensor_view
                    }
                    _ => {
                        let shown = self.type_text(t);
                        return self.cerr(
                            tpos,
                            format!(
                                "expected '{}' type, but got '{shown}'",
                                &op.mnemonic()["make_".len()..]
                            ),
                        );
                    }
                };
                let v = self.resolve(&u, Some(tv))?;
                Ok(self.create(block, OpKind::CudaTile(ct), vec![v], &[t], loc))
            }
            CtOp::MakeTensorView => self.make_tensor_view(block, ct, loc),
            CtOp::LoadViewTko | CtOp::StoreViewTko => {
                self.ordering(op, &mut ct, false)?;
                let tile = if op == CtOp::StoreViewTko {
                    let u = self.use_ref()?;
                    self.c.expect(",")?;
                    Some(u)
                } else {
                    None
                };
                let view = self.use_ref()?;
                self.c.expect("[")?;
                let mut idx = Vec::new();
                if !self.c.eat("]") {
                    idx = self.use_list()?;
                    self.c.expect("]")?;
                }
                let token = self.token_opt()?;
                self.hints_opt(&mut ct)?;
                self.c.expect(":")?;
                let tile_t = if tile.is_some() {
                    let t = self.ty()?;
                    self.c.expect(",")?;
                    Some(t)
                } else {
                    None
                };
                let vt = self.ty()?;
                let its = self.index_types(idx.len())?;
                self.c.expect("->")?;
                let results = self.type_list()?;
                let mut ops = Vec::new();
                if let (Some(u), Some(t)) = (&tile, tile_t) {
                    ops.push(self.resolve(u, Some(t))?);
                }
                ops.push(self.resolve(&view, Some(vt))?);
                ops.extend(self.resolve_all(&idx, &its)?);
                if let Some(t) = &token {
                    ops.push(self.resolve(t, Some(tok))?);
                }
                let tk = u32::from(token.is_some());
                ct = if op == CtOp::StoreViewTko {
                    ct.with_segments(&[1, 1, idx.len() as u32, tk])
                } else {
                    ct.with_segments(&[1, idx.len() as u32, tk])
                };
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &results, loc))
            }
            CtOp::LoadPtrTko | CtOp::StorePtrTko => {
                self.ordering(op, &mut ct, false)?;
                // The pointer operand is mandatory: MLIR's operand list parser reports a
                // missing one (e.g. an unknown scope word after `weak`) right there.
                self.c.ws();
                if self.c.peek() != Some(b'%') {
                    return self.c.err("expected SSA operand");
                }
                let uses = self.use_list()?;
                let token = self.token_opt()?;
                self.hints_opt(&mut ct)?;
                self.c.expect(":")?;
                let tys = self.type_list()?;
                self.c.expect("->")?;
                let results = self.type_list()?;
                let (min, max) = if op == CtOp::LoadPtrTko {
                    (1, 3)
                } else {
                    (2, 3)
                };
                if uses.len() < min || uses.len() > max {
                    return self.c.err_at(
                        start,
                        format!(
                            "{} operands present, but expected {min} to {max}",
                            uses.len()
                        ),
                    );
                }
                if tys.len() != uses.len() {
                    return self.c.err_at(
                        start,
                        format!("expected {} types but got {}", uses.len(), tys.len()),
                    );
                }
                let mut ops = self.resolve_all(&uses, &tys)?;
                if let Some(t) = &token {
                    ops.push(self.resolve(t, Some(tok))?);
                }
                let tk = u32::from(token.is_some());
                let n = uses.len() as u32;
                ct = if op == CtOp::LoadPtrTko {
                    ct.with_segments(&[1, u32::from(n >= 2), u32::from(n >= 3), tk])
                } else {
                    ct.with_segments(&[1, 1, u32::from(n >= 3), tk])
                };
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &results, loc))
            }
            CtOp::AtomicCasTko | CtOp::AtomicRmwTko => {
                self.ordering(op, &mut ct, true)?;
                let p = self.use_ref()?;
                self.c.expect(",")?;
                let mut uses = vec![p];
                if op == CtOp::AtomicRmwTko {
                    let m = self.ods_enum(op, "mode")?;
                    ct.set("mode", m);
                    self.c.expect(",")?;
                    uses.extend(self.use_list()?);
                } else {
                    uses.extend(self.use_list()?);
                }
                let token = self.token_opt()?;
                self.c.expect(":")?;
                let tys = self.type_list()?;
                self.c.expect("->")?;
                let results = self.type_list()?;
                let nval = if op == CtOp::AtomicCasTko { 3 } else { 2 };
                if uses.len() < nval || uses.len() > nval + 1 {
                    return self.c.err_at(
                        start,
                        format!(
                            "{} operands present, but expected {nval} or {}",
                            uses.len(),
                            nval + 1
                        ),
                    );
                }
                // Types: pointers, value (shared by cmp and val for CAS), [mask].
                let mut types = vec![];
                let need = uses.len() - (nval - 2);
                if tys.len() != need {
                    return self.c.err_at(
                        start,
                        format!("expected {need} types but got {}", tys.len()),
                    );
                }
                types.push(tys[0]);
                if op == CtOp::AtomicCasTko {
                    types.push(tys[1]);
                }
                types.push(tys[1]);
                if uses.len() > nval {
                    types.push(tys[2]);
                }
                let mut ops = self.resolve_all(&uses, &types)?;
                if let Some(t) = &token {
                    ops.push(self.resolve(t, Some(tok))?);
                }
                let mask = u32::from(uses.len() > nval);
                let tk = u32::from(token.is_some());
                ct = if op == CtOp::AtomicCasTko {
                    ct.with_segments(&[1, 1, 1, mask, tk])
                } else {
                    ct.with_segments(&[1, 1, mask, tk])
                };
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &results, loc))
            }
            CtOp::AtomicRedViewTko => {
                self.ordering(op, &mut ct, true)?;
                let view = self.use_ref()?;
                self.c.expect("[")?;
                let mut idx = Vec::new();
                if !self.c.eat("]") {
                    idx = self.use_list()?;
                    self.c.expect("]")?;
                }
                self.c.expect(",")?;
                let m = self.ods_enum(op, "mode")?;
                ct.set("mode", m);
                self.c.expect(",")?;
                let val = self.use_ref()?;
                let token = self.token_opt()?;
                self.c.expect(":")?;
                let valt = self.ty()?;
                self.c.expect(",")?;
                let vt = self.ty()?;
                let its = self.index_types(idx.len())?;
                self.c.expect("->")?;
                let results = self.type_list()?;
                let mut ops = vec![self.resolve(&view, Some(vt))?];
                ops.extend(self.resolve_all(&idx, &its)?);
                ops.push(self.resolve(&val, Some(valt))?);
                if let Some(t) = &token {
                    ops.push(self.resolve(t, Some(tok))?);
                }
                ct = ct.with_segments(&[1, idx.len() as u32, 1, u32::from(token.is_some())]);
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &results, loc))
            }
            CtOp::GdcLaunchDependentsTko | CtOp::GdcWaitTko => {
                let token = self.token_opt()?;
                self.c.expect("->")?;
                let results = self.type_list()?;
                let mut ops = Vec::new();
                if let Some(t) = &token {
                    ops.push(self.resolve(t, Some(tok))?);
                }
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &results, loc))
            }
            // Test-only ops of NVIDIA's bytecode versioning tests (declarative formats).
            CtOp::TestingBytecodeNewAttribute => {
                if self.c.eat_kw("new_flag") {
                    ct.set("new_flag", Attr::Unit);
                }
                if self.c.eat_kw("new_param") {
                    self.c.expect("=")?;
                    let v = self.i32_value()?;
                    ct.set("new_param", Attr::Int(v));
                }
                let o = self.create(block, OpKind::CudaTile(ct), vec![], &[], loc);
                self.trailing_attrs(o)?;
                Ok(o)
            }
            CtOp::TestingBytecodeEvolution => {
                self.c.expect("(")?;
                let inputs = self.use_list()?;
                self.c.expect(":")?;
                let tys = if self.c.at(")") { Vec::new() } else { self.type_list()? };
                self.c.expect(")")?;
                if tys.len() != inputs.len() {
                    return self.c.err_at(
                        start,
                        format!("{} operands present, but expected {}", inputs.len(), tys.len()),
                    );
                }
                if self.c.eat_kw("new_attr") {
                    self.c.expect("=")?;
                    let v = self.i32_value()?;
                    ct.set("new_attr", Attr::Int(v));
                }
                let token = if self.c.eat_kw("token") {
                    self.c.expect("=")?;
                    let u = self.use_ref()?;
                    self.c.expect(":")?;
                    let t = self.ty()?;
                    Some((u, t))
                } else {
                    None
                };
                self.c.expect("->")?;
                let result = self.ty()?;
                let mut ops = self.resolve_all(&inputs, &tys)?;
                if let Some((u, t)) = &token {
                    ops.push(self.resolve(u, Some(*t))?);
                }
                ct = ct.with_segments(&[inputs.len() as u32, u32::from(token.is_some())]);
                let o = self.create(block, OpKind::CudaTile(ct), ops, &[result], loc);
                self.trailing_attrs(o)?;
                Ok(o)
            }
            CtOp::PrintTko => {
                // The format string is an attribute: anything else is not an attribute value.
                if self.c.peek() != Some(b'"') {
                    return self.c.err("expected attribute value");
                }
                let s = self.c.string()?;
                ct.set("str", Attr::Str(s));
                let mut args = Vec::new();
                if self.c.eat(",") {
                    args = self.use_list()?;
                }
                let token = self.token_opt()?;
                let mut tys = Vec::new();
                if self.c.eat(":") {
                    tys = self.type_list()?;
                }
                if tys.len() != args.len() {
                    return self.c.err_at(
                        start,
                        format!("expected {} types but got {}", args.len(), tys.len()),
                    );
                }
                // 13.1's `print` has no result; `print_tko`'s `-> token` is mandatory.
                let results = if self.c.eat("->") {
                    self.type_list()?
                } else if self.cur_op == "cuda_tile.print" {
                    Vec::new()
                } else {
                    return self.c.wrong_token("expected '->'");
                };
                let mut ops = self.resolve_all(&args, &tys)?;
                if let Some(t) = &token {
                    ops.push(self.resolve(t, Some(tok))?);
                }
                ct = ct.with_segments(&[args.len() as u32, u32::from(token.is_some())]);
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &results, loc))
            }
            CtOp::Yield | CtOp::Continue | CtOp::Break | CtOp::Return => {
                let uses = self.use_list()?;
                let mut tys = Vec::new();
                if !uses.is_empty() {
                    self.c.expect(":")?;
                    tys = self.type_list()?;
                    if tys.len() != uses.len() {
                        return self.c.err_at(
                            start,
                            format!(
                                "{} operands present, but expected {}",
                                uses.len(),
                                tys.len()
                            ),
                        );
                    }
                }
                let ops = self.resolve_all(&uses, &tys)?;
                Ok(self.create(block, OpKind::CudaTile(ct), ops, &[], loc))
            }
            CtOp::If => {
                let c = self.use_ref()?;
                let mut results = Vec::new();
                if self.c.eat("->") {
                    self.c.expect("(")?;
                    if !self.c.eat(")") {
                        results = self.type_list()?;
                        self.c.expect(")")?;
                    }
                }
                let i1 = self.m.types.scalar_tile(NumType::I1);
                let cv = self.resolve(&c, Some(i1))?;
                let o = self.create(block, OpKind::CudaTile(ct), vec![cv], &results, loc);
                let r0 = self.region_of(o, 0);
                self.custom_region(r0, &[], false, Some(CtOp::Yield))?;
                if self.c.eat_kw("else") {
                    let r1 = self.region_of(o, 1);
                    self.custom_region(r1, &[], false, Some(CtOp::Yield))?;
                }
                self.trailing_attrs(o)?;
                Ok(o)
            }
            CtOp::For => {
                if self.c.eat_kw("unsigned") {
                    ct.set("unsignedCmp", Attr::Unit);
                }
                let iv = self.use_ref()?;
                self.c.expect_kw("in")?;
                self.c.expect("(")?;
                let lb = self.use_ref()?;
                self.c.expect_kw("to")?;
                let ub = self.use_ref()?;
                self.c.expect(",")?;
                self.c.expect_kw("step")?;
                let step = self.use_ref()?;
                self.c.expect(")")?;
                self.c.expect(":")?;
                let t = self.ty()?;
                let mut iters: Vec<(Use, Use)> = Vec::new();
                let mut results = Vec::new();
                if self.c.eat_kw("iter_values") {
                    iters = self.iter_values()?;
                    self.c.expect("->")?;
                    self.c.expect("(")?;
                    results = self.type_list()?;
                    self.c.expect(")")?;
                    if results.len() != iters.len() {
                        return self.c.err_at(
                            start,
                            format!(
                                "expected {} result types but got {}",
                                iters.len(),
                                results.len()
                            ),
                        );
                    }
                }
                let mut ops = self.resolve_all(&[lb, ub, step], &[t, t, t])?;
                for ((_, init), rt) in iters.iter().zip(&results) {
                    ops.push(self.resolve(init, Some(*rt))?);
                }
                let o = self.create(block, OpKind::CudaTile(ct), ops, &results, loc);
                let mut args = vec![(iv, t)];
                args.extend(iters.into_iter().zip(&results).map(|((a, _), &rt)| (a, rt)));
                let r = self.region_of(o, 0);
                self.custom_region(r, &args, false, Some(CtOp::Continue))?;
                self.trailing_attrs(o)?;
                Ok(o)
            }
            CtOp::Loop => {
                let mut iters: Vec<(Use, Use)> = Vec::new();
                if self.c.eat_kw("iter_values") {
                    iters = self.iter_values()?;
                }
                let mut colon_types = Vec::new();
                if self.c.eat(":") {
                    colon_types = self.type_list()?;
                }
                let mut results = Vec::new();
                if self.c.eat("->") {
                    results = self.type_list()?;
                }
                let iter_types = if iters.is_empty() {
                    if results.is_empty() {
                        results = colon_types;
                    } else if !colon_types.is_empty() {
                        return self.c.err_at(
                            start,
                            "loop without iter_values takes its result types after ':'",
                        );
                    }
                    Vec::new()
                } else {
                    if colon_types.len() != iters.len() {
                        return self.cerr(
                            self.c.pos,
                            format!(
                                "found different number of iter_values and types ({} values, {} types)",
                                iters.len(),
                                colon_types.len()
                            ),
                        );
                    }
                    colon_types
                };
                let mut ops = Vec::new();
                for ((_, init), t) in iters.iter().zip(&iter_types) {
                    ops.push(self.resolve(init, Some(*t))?);
                }
                let o = self.create(block, OpKind::CudaTile(ct), ops, &results, loc);
                let args: Vec<(Use, TypeId)> = iters
                    .into_iter()
                    .zip(&iter_types)
                    .map(|((a, _), &t)| (a, t))
                    .collect();
                let r = self.region_of(o, 0);
                self.custom_region(r, &args, false, Some(CtOp::Continue))?;
                Ok(o)
            }
            CtOp::Reduce | CtOp::Scan => {
                let uses = self.use_list()?;
                self.c.expect_kw("dim")?;
                self.c.expect("=")?;
                let dim = self.i64()?;
                ct.set("dim", Attr::Int(dim));
                if op == CtOp::Scan {
                    self.c.expect_kw("reverse")?;
                    self.c.expect("=")?;
                    self.c.ws();
                    let pos = self.c.pos;
                    let v = match self.c.ident() {
                        Some("true") => true,
                        Some("false") => false,
                        _ => return self.cerr(pos, "expected 'true' or 'false'"),
                    };
                    ct.set("reverse", Attr::Bool(v));
                }
                self.c.expect_kw("identities")?;
                self.c.expect("=")?;
                self.c.ws();
                let ipos = self.c.pos;
                let ids = self.attr()?;
                match &ids {
                    Attr::Array(items) if items.iter().all(|a| matches!(a, Attr::Scalar(..))) => {}
                    _ => {
                        return self.cerr(
                            ipos,
                            "expected identities to be an array of typed integer or float values",
                        )
                    }
                }
                ct.set("identities", ids);
                self.c.expect(":")?;
                let tys = self.type_list()?;
                self.c.expect("->")?;
                let results = self.type_list()?;
                if tys.len() != uses.len() {
                    return self.cerr(
                        start,
                        format!(
                            "number of operands and types do not match: got {} operands and {} types",
                            uses.len(),
                            tys.len()
                        ),
                    );
                }
                let ops = self.resolve_all(&uses, &tys)?;
                let _ = nbound;
                let o = self.create(block, OpKind::CudaTile(ct), ops, &results, loc);
                self.c.expect("(")?;
                let mut args = Vec::new();
                if !self.c.eat(")") {
                    loop {
                        let u = self.use_ref()?;
                        self.c.expect(":")?;
                        let t = self.ty()?;
                        args.push((u, t));
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
                let r = self.region_of(o, 0);
                self.custom_region(r, &args, false, None)?;
                Ok(o)
            }
            _ => self.cerr(start, "has no custom syntax"),
        }
    }

    /// `get_tensor_shape` / `get_index_space_shape`: `%src : T -> R`, with one result of
    /// type `R` per dimension of `T` (NVIDIA's parsers derive the count from the type, so
    /// a different number of names is a binding error).
    fn shape_query(&mut self, block: BlockId, op: CtOp, loc: LocId) -> R<OpId> {
        let src = self.use_ref()?;
        self.c.expect(":")?;
        self.c.ws();
        let tpos = self.c.pos;
        let st = self.ty()?;
        self.c.expect("->")?;
        let rt = self.ty()?;
        let rank = match (op, self.m.types.get(st)) {
            (CtOp::GetTensorShape, Type::TensorView(tv)) => Some(tv.shape.len()),
            (CtOp::GetIndexSpaceShape, Type::PartitionView(p)) => Some(p.tile_shape.len()),
            (CtOp::GetIndexSpaceShape, Type::StridedView(p)) => Some(p.tile_shape.len()),
            (CtOp::GetIndexSpaceShape, Type::GatherScatterView(p)) => Some(p.tile_shape.len()),
            _ => None,
        };
        let Some(rank) = rank else {
            let want = if op == CtOp::GetTensorShape {
                "tensor_view"
            } else {
                "tile view"
            };
            let shown = self.type_text(st);
            return self.cerr(tpos, format!("expected {want}, got '{shown}'"));
        };
        let v = self.resolve(&src, Some(st))?;
        let ct = CudaTileOp::new(op);
        Ok(self.create(block, OpKind::CudaTile(ct), vec![v], &vec![rt; rank], loc))
    }

    /// `(%a = %init, …)` after `iter_values`.
    fn iter_values(&mut self) -> R<Vec<(Use, Use)>> {
        self.c.expect("(")?;
        let mut v = Vec::new();
        if self.c.eat(")") {
            return Ok(v);
        }
        loop {
            let a = self.use_ref()?;
            self.c.expect("=")?;
            let i = self.use_ref()?;
            v.push((a, i));
            if self.c.eat(")") {
                return Ok(v);
            }
            self.c.expect(",")?;
        }
    }

    /// `<elem: value> : tile<…>` (constant and global): the dense value and the type.
    pub(crate) fn dense_custom(&mut self, start: usize) -> R<(tileir_ir::DenseElements, TypeId)> {
        self.c.expect("<")?;
        self.c.ws();
        let epos = self.c.pos;
        let mut ew = self.c.word().unwrap_or("").to_string();
        // What NVIDIA's element-type check reports when the element is not a number
        // type: a type's text, or `<<NULL TYPE>>` when the word names no type at all.
        let mut bad_type = None;
        if ew.is_empty() || self.c.at("<") {
            // A full type (`tensor<i32>`, `!cuda_tile.tile<…>`) where a number type goes.
            self.c.pos = epos;
            let t = self.ty()?;
            match self.m.types.get(t) {
                Type::Scalar(n) => ew = n.keyword().to_string(),
                _ => bad_type = Some(self.type_text(t)),
            }
        }
        let elem = NumType::from_keyword(&ew).filter(|n| *n != NumType::I4);
        self.c.expect(":")?;
        let lit = self.lit()?;
        self.c.expect(">")?;
        self.c.expect(":")?;
        self.c.ws();
        let tpos = self.c.pos;
        let t = self.ty()?;
        const ELEMS: &str = "i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN";
        let Some(elem) = elem else {
            let shown = match bad_type {
                Some(t) => t,
                None => {
                    // An unknown word is reported by name as well.
                    let d = tileir_ir::Diagnostic::error(
                        self.c.loc_at(epos),
                        format!("'{}' unknown type: {ew}", self.cur_op),
                    );
                    self.pending.push(d);
                    "<<NULL TYPE>>".to_string()
                }
            };
            return self.c.err_at(
                epos,
                format!("expect element type to be one of {ELEMS} values, but got '{shown}'"),
            );
        };
        let (shape, te) = match self.m.types.get(t).clone() {
            Type::Tile {
                shape,
                elem: TileElem::Num(e),
                ..
            } => (shape, e),
            _ => {
                // ODS's wording of the result constraint, as NVIDIA's 13.3 parser has it.
                let shown = self.type_text(t);
                return self.cerr(
                    tpos,
                    format!(
                        "result #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '{shown}'"
                    ),
                );
            }
        };
        if te != elem {
            return self.c.err_at(
                epos,
                format!(
                    "mismatch between the element type: '{elem}' and the tile element type '{te}'"
                ),
            );
        }
        let _ = start;
        let d = self.dense(&lit, elem, &shape, epos)?;
        Ok((d, t))
    }

    /// NVIDIA's custom parser: the static entries are checked against the result type
    /// here, at parse time, each error at the entry (or list) it is about.
    fn make_tensor_view(&mut self, block: BlockId, mut ct: CudaTileOp, loc: LocId) -> R<OpId> {
        let base = self.use_ref()?;
        self.c.expect(",")?;
        self.c.expect_kw("shape")?;
        self.c.expect("=")?;
        self.c.ws();
        let shape_at = self.c.pos;
        let shape = self.mixed_list()?;
        self.c.expect(",")?;
        self.c.expect_kw("strides")?;
        self.c.expect("=")?;
        self.c.ws();
        let strides_at = self.c.pos;
        let strides = self.mixed_list()?;
        if self.c.at("{") {
            for (n, a) in self.attr_dict()? {
                ct.discardable.push((n, a));
            }
        }
        self.c.expect(":")?;
        let dynamic = shape.iter().chain(&strides).any(|e| e.0.is_err());
        let idx_t = if dynamic {
            let t = self.ty()?;
            self.c.expect("->")?;
            Some(t)
        } else {
            None
        };
        let tv = self.ty()?;
        let Type::TensorView(tvt) = self.m.types.get(tv).clone() else {
            let shown = self.type_text(tv);
            return self.cerr(
                self.c.pos,
                format!("expected 'tensor_view' type, but got '{shown}'"),
            );
        };
        let base_t = self.m.types.tile(&[], TileElem::Ptr(tvt.elem));
        let base_v = self.resolve(&base, Some(base_t))?;
        let count = |what: &str, want: usize, got: usize| {
            format!("expected {what} declaration to contain {want} elements due to tensor_view type, but {got} were provided")
        };
        let entry = |what: &str, i: usize, want: &str, got: &str| {
            format!("input {what} dimension {i} does not match tensor_view type (expected {want}, got {got})")
        };
        self.check_dims(&shape, &tvt.shape, shape_at, "shape", count, entry)?;
        self.check_dims(&strides, &tvt.strides, strides_at, "stride", count, entry)?;
        let dyn_s: Vec<Use> = shape.into_iter().filter_map(|e| e.0.err()).collect();
        let dyn_t: Vec<Use> = strides.into_iter().filter_map(|e| e.0.err()).collect();
        let mut ops = vec![base_v];
        for u in dyn_s.iter().chain(&dyn_t) {
            ops.push(self.resolve(u, idx_t)?);
        }
        let ct = ct.with_segments(&[1, dyn_s.len() as u32, dyn_t.len() as u32]);
        Ok(self.create(block, OpKind::CudaTile(ct), ops, &[tv], loc))
    }

    /// `[128, %n]`: static integers or SSA uses, each with its position.
    pub(crate) fn mixed_list(&mut self) -> R<Vec<(Result<i64, Use>, usize)>> {
        self.c.expect("[")?;
        let mut v = Vec::new();
        if self.c.eat("]") {
            return Ok(v);
        }
        loop {
            self.c.ws();
            let at = self.c.pos;
            let b = self.c.src.as_bytes();
            let int_start = matches!(b.get(at), Some(c) if c.is_ascii_digit())
                || (b.get(at) == Some(&b'-')
                    && matches!(b.get(at + 1), Some(c) if c.is_ascii_digit()));
            if int_start {
                v.push((Ok(self.i64()?), at));
            } else if self.c.peek() == Some(b'%') {
                v.push((Err(self.use_ref()?), at));
            } else {
                return self.cerr(at, "expected either integer or SSA value");
            }
            if self.c.eat("]") {
                return Ok(v);
            }
            self.c.expect(",")?;
        }
    }
}
