//! Types, attributes, dense literals and locations.

use crate::lex::{parse_int_text, R};
use crate::Parser;
use tileir_ir::attrs::{Attr, DenseElements};
use tileir_ir::location::{DiCompileUnit, DiFile, DiLexicalBlock, DiScope, DiSubprogram, Location};
use tileir_ir::types::{
    Dim, GatherScatterViewType, NumType, PaddingValue, PartitionViewType, StridedViewType,
    TensorViewType, TileElem, Type, TypeId,
};
use tileir_ir::AssumePredicate;

/// A value bound to a `#name = …` alias.
#[derive(Clone, Debug)]
pub enum AliasValue {
    /// A location (`loc(…)`, `#cuda_tile.di_loc<…>`).
    Loc(Location),
    /// `#cuda_tile.di_file<…>`.
    File(DiFile),
    /// `#cuda_tile.di_compile_unit<…>`.
    CompileUnit(DiCompileUnit),
    /// A debug scope.
    Scope(DiScope),
    /// Any other attribute.
    Attr(Attr),
}

/// A dense literal before its type is known: nested lists of element tokens.
pub enum Lit {
    /// One element: its text and position.
    Elem(String, usize),
    /// `[…]`.
    List(Vec<Lit>, usize),
}

const ENUM_MNEMONICS: &[(&str, tileir_ir::dialect::cuda_tile::EnumKind)] = {
    use tileir_ir::dialect::cuda_tile::EnumKind as E;
    &[
        ("signedness", E::Signedness),
        ("overflow", E::Overflow),
        ("rounding", E::Rounding),
        ("comparison_predicate", E::ComparisonPredicate),
        ("comparison_ordering", E::ComparisonOrdering),
        ("atomic_rmw_mode", E::AtomicRmwMode),
        ("memory_scope", E::MemoryScope),
        ("memory_ordering_semantics", E::MemoryOrdering),
        ("padding_value", E::PaddingValue),
        ("symbol_visibility", E::SymbolVisibility),
    ]
};

impl Parser<'_> {
    // ---------------- types ----------------

    /// Parses a type (short or `!cuda_tile.` long form, builtin, alias, function type).
    pub fn ty(&mut self) -> R<TypeId> {
        self.enter()?;
        let outer = !self.in_type && !self.cur_op.is_empty();
        let was = std::mem::replace(&mut self.in_type, true);
        let r = if outer { self.op_ty() } else { self.ty_inner() };
        self.in_type = was;
        self.depth -= 1;
        r
    }

    /// A type in custom op syntax. The dialect tries a full (`!…` or builtin) type first
    /// and otherwise reads a short-form keyword, so MLIR reports "expected valid keyword"
    /// when no type is there. A full type that failed to parse reports only its own
    /// error (NVIDIA's 13.3 parser no longer adds a second one).
    fn op_ty(&mut self) -> R<TypeId> {
        self.c.ws();
        let pos = self.c.pos;
        if self.c.at("!") {
            return self.ty_inner();
        }
        if self.c.peek_ident().is_none() && !self.c.at("(") {
            return self.cerr(pos, "expected valid keyword");
        }
        self.ty_inner()
    }

    fn ty_inner(&mut self) -> R<TypeId> {
        self.c.ws();
        let start = self.c.pos;
        if self.c.eat("(") {
            let mut inputs = Vec::new();
            if !self.c.eat(")") {
                loop {
                    inputs.push(self.ty()?);
                    if self.c.eat(")") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            }
            self.c.expect("->")?;
            let results = if self.c.at("(") {
                self.c.expect("(")?;
                let mut r = Vec::new();
                if !self.c.eat(")") {
                    loop {
                        r.push(self.ty()?);
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
                r
            } else {
                vec![self.ty()?]
            };
            return Ok(self.m.types.intern(Type::Function { inputs, results }));
        }
        if self.c.eat("!") {
            if self.c.src[self.c.pos..].starts_with("cuda_tile.") {
                self.c.pos += "cuda_tile.".len();
                let Some(w) = self.c.ident() else {
                    return self.c.err("expected type");
                };
                return self.dialect_type(w, start);
            }
            if self.c.src[self.c.pos..].starts_with("nv_tileaa.") || self.c.src[self.c.pos..].starts_with("nv_tileas.") {
                let end = self.balanced_end(self.c.pos);
                let text = &self.c.src[start..end];
                return match tileir_ir::parse_type::parse_type(text, &mut self.m.types) {
                    Ok(t) => {
                        self.c.pos = end;
                        Ok(t)
                    }
                    Err(e) => self.c.err_at(start + e.offset, e.message),
                };
            }
            let Some(name) = self.c.suffix_id() else {
                return self.c.err_at(start, "expected type");
            };
            if !name.contains('.') {
                return match self.type_aliases.get(name) {
                    Some(&t) => Ok(t),
                    None => self
                        .c
                        .err_at(start, format!("undefined symbol alias id '{name}'")),
                };
            }
            let end = self.balanced_end(self.c.pos);
            let text = self.c.src[start..end].to_string();
            self.c.pos = end;
            return Ok(self.m.types.intern(Type::Opaque(text)));
        }
        let Some(w) = self.c.peek_ident() else {
            return self.c.err("expected type");
        };
        match w {
            "tile"
            | "tensor_view"
            | "partition_view"
            | "strided_view"
            | "gather_scatter_view"
            | "token"
            | "ptr" => {
                self.c.pos += w.len();
                self.dialect_type(w, start)
            }
            _ => {
                if let Some(n) = NumType::from_keyword(w) {
                    self.c.pos += w.len();
                    return Ok(self.m.types.scalar(n));
                }
                // A builtin type tileir does not model (`tensor<4xf32>`, `index`, `i7`): kept verbatim.
                let end = self.balanced_end(self.c.pos + w.len());
                let text = self.c.src[start..end].to_string();
                self.c.pos = end;
                Ok(self.m.types.intern(Type::Opaque(text)))
            }
        }
    }

    /// End of an identifier followed by an optional balanced `<…>`.
    fn balanced_end(&self, from: usize) -> usize {
        let b = self.c.src.as_bytes();
        let mut e = from;
        while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_' || b[e] == b'.') {
            e += 1;
        }
        if e < b.len() && b[e] == b'<' {
            let mut depth = 0usize;
            while e < b.len() {
                match b[e] {
                    b'<' => depth += 1,
                    b'>' => {
                        if e > 0 && b[e - 1] == b'-' {
                            // `->` inside a nested function type
                        } else {
                            depth -= 1;
                            if depth == 0 {
                                return e + 1;
                            }
                        }
                    }
                    _ => {}
                }
                e += 1;
            }
        }
        e
    }

    fn num_type(&mut self) -> R<NumType> {
        self.c.ws();
        let at = self.c.pos;
        let w = self.c.word().unwrap_or("");
        match NumType::from_keyword(w) {
            Some(n) => Ok(n),
            None => self
                .c
                .err_at(at, format!("expected element type, got '{w}'")),
        }
    }

    /// The element type parameter `param` of a dialect type (`elementType` of tile and
    /// tensor_view, `pointeeType` of ptr). As in MLIR, any type parses there and the
    /// type's parameter constraint then rejects what is not a number type, in ODS's
    /// words; with no type at all the dialect's keyword parser reports "expected valid
    /// keyword".
    fn elem_param(&mut self, param: &str) -> R<NumType> {
        self.c.ws();
        let at = self.c.pos;
        if let Some(n) = self.c.peek_ident().and_then(NumType::from_keyword) {
            self.c.pos += n.keyword().len();
            return Ok(n);
        }
        if self.c.peek_ident().is_none() && !self.c.at("!") && !self.c.at("(") {
            return self.c.err_at(at, "expected valid keyword");
        }
        let t = self.ty()?;
        match self.m.types.get(t) {
            Type::Scalar(n) => Ok(*n),
            _ => self.c.err_at(
                at,
                format!("failed to verify '{param}': {}", number_types_text(false)),
            ),
        }
    }

    fn dims(&mut self, allow_dynamic: bool) -> R<Vec<Dim>> {
        let mut dims = Vec::new();
        loop {
            self.c.ws();
            match self.c.peek_at(0) {
                Some(b'?') => {
                    if !allow_dynamic {
                        return self.c.err("expected static shape");
                    }
                    self.c.pos += 1;
                    dims.push(Dim::Dynamic);
                }
                Some(c) if c.is_ascii_digit() => {
                    let at = self.c.pos;
                    let b = self.c.src.as_bytes();
                    let mut e = at;
                    while e < b.len() && b[e].is_ascii_digit() {
                        e += 1;
                    }
                    let v: i64 = match self.c.src[at..e].parse() {
                        Ok(v) => v,
                        Err(_) => return self.c.err_at(at, "dimension out of range"),
                    };
                    self.c.pos = e;
                    dims.push(Dim::Static(v));
                }
                _ => return Ok(dims),
            }
            if self.c.peek_at(0) != Some(b'x') {
                return self.c.err("expected 'x' in dimension list");
            }
            self.c.pos += 1;
        }
    }

    /// `[s, ?, …]` of a tensor_view: each entry `?` or a strictly positive integer.
    fn stride_list(&mut self) -> R<Vec<Dim>> {
        self.c.expect("[")?;
        let mut v = Vec::new();
        if self.c.eat("]") {
            return Ok(v);
        }
        loop {
            self.c.ws();
            let at = self.c.pos;
            if self.c.eat("?") {
                v.push(Dim::Dynamic);
            } else {
                let b = self.c.src.as_bytes();
                let looks_int = matches!(b.get(at), Some(c) if c.is_ascii_digit())
                    || (b.get(at) == Some(&b'-')
                        && matches!(b.get(at + 1), Some(c) if c.is_ascii_digit()));
                if !looks_int {
                    return self
                        .c
                        .err_at(at, "expected either 64-bit integer or question mark");
                }
                let s = self.i64()?;
                if s <= 0 {
                    return self
                        .c
                        .err_at(at, format!("expected strictly positive integer, got {s}"));
                }
                v.push(Dim::Static(s));
            }
            if self.c.eat("]") {
                return Ok(v);
            }
            self.c.expect(",")?;
        }
    }

    /// An integer that fits i64.
    pub fn i64(&mut self) -> R<i64> {
        self.c.ws();
        let at = self.c.pos;
        let v = self.c.int()?;
        i64::try_from(v).or_else(|_| self.c.err_at(at, "integer constant out of range"))
    }

    pub(crate) fn int_list(&mut self, open: &str, close: &str) -> R<Vec<i64>> {
        self.c.expect(open)?;
        let mut v = Vec::new();
        if self.c.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.i64()?);
            if self.c.eat(close) {
                return Ok(v);
            }
            self.c.expect(",")?;
        }
    }

    fn tile_shape(&mut self) -> R<Vec<i64>> {
        self.c.expect_kw("tile")?;
        self.c.expect("=")?;
        self.c.expect("(")?;
        let mut v = Vec::new();
        if self.c.eat(")") {
            return Ok(v);
        }
        v.push(self.i64()?);
        loop {
            self.c.ws();
            if self.c.peek_at(0) == Some(b'x') {
                self.c.pos += 1;
                v.push(self.i64()?);
            } else {
                break;
            }
        }
        self.c.expect(")")?;
        Ok(v)
    }

    fn padding_opt(&mut self) -> R<Option<PaddingValue>> {
        if !self.c.eat_kw("padding_value") {
            return Ok(None);
        }
        self.c.expect("=")?;
        self.c.ws();
        let at = self.c.pos;
        let w = self.c.ident().unwrap_or("");
        match PaddingValue::from_keyword(w) {
            Some(p) => {
                self.c.expect(",")?;
                Ok(Some(p))
            }
            None => self.c.err_at(
                at,
                format!(
                    "expected padding value (zero, neg_zero, nan, pos_inf, neg_inf), got '{w}'"
                ),
            ),
        }
    }

    fn tensor_view_ref(&mut self) -> R<TypeId> {
        self.c.ws();
        let at = self.c.pos;
        let t = self.ty()?;
        if matches!(self.m.types.get(t), Type::TensorView(_)) {
            Ok(t)
        } else {
            let shown = self.type_text(t);
            self.c.err_at(at, format!("expected 'tensor_view' type, but got '{shown}'"))
        }
    }

    fn dialect_type(&mut self, w: &str, start: usize) -> R<TypeId> {
        let ty = match w {
            "token" => Type::Token,
            "ptr" => {
                self.c.expect("<")?;
                let n = self.elem_param("pointeeType")?;
                self.c.expect(">")?;
                Type::Opaque(format!("!cuda_tile.ptr<{n}>"))
            }
            "tile" => {
                self.c.expect("<")?;
                let dims = self.dims(false)?;
                self.c.ws();
                let eat = self.c.pos;
                let elem = if self.c.eat("!cuda_tile.ptr") || self.c.eat_kw("ptr") {
                    self.c.expect("<")?;
                    let n = self.elem_param("pointeeType")?;
                    self.c.expect(">")?;
                    TileElem::Ptr(n)
                } else {
                    match self.elem_param("elementType") {
                        Ok(n) => TileElem::Num(n),
                        // A tile's element may also be a pointer: its constraint says so.
                        Err(e) if e.message.starts_with("failed to verify") => {
                            return self.c.err_at(
                                eat,
                                format!(
                                    "failed to verify 'elementType': {}",
                                    number_types_text(true)
                                ),
                            )
                        }
                        Err(e) => return Err(e),
                    }
                };
                // nv_tileas: a register layout after the element type.
                let layout = if self.c.eat(",") {
                    Some(self.layout(dims.len())?)
                } else {
                    None
                };
                self.c.expect(">")?;
                let shape: Vec<i64> = dims.iter().map(|d| d.as_static().unwrap_or(0)).collect();
                // MLIR builds types checked: a zero extent is a parse error.
                if shape.contains(&0) {
                    let list: Vec<String> = shape.iter().map(i64::to_string).collect();
                    return self.c.err_at(
                        start,
                        format!(
                            "all dimensions must be positive constants, got {}",
                            list.join(", ")
                        ),
                    );
                }
                Type::Tile {
                    shape,
                    elem,
                    layout,
                }
            }
            "tensor_view" => {
                self.c.expect("<")?;
                let shape = self.dims(true)?;
                let elem = self.elem_param("elementType")?;
                // NVIDIA's parser: no strides clause for rank 0, a mandatory one otherwise.
                let strides = if shape.is_empty() {
                    if self.c.eat(",") {
                        self.c.ws();
                        let msg = if self.c.eat_kw("strides") {
                            "strides must not be provided for 0-d tiles"
                        } else {
                            "unexpected token after element type in 0-d tensor_view"
                        };
                        return self.c.err(msg);
                    }
                    Vec::new()
                } else {
                    if !self.c.eat(",") {
                        return self.c.err("expected 'strides'");
                    }
                    self.c.expect_kw("strides")?;
                    self.c.expect("=")?;
                    self.stride_list()?
                };
                self.c.expect(">")?;
                let tv = TensorViewType {
                    elem,
                    shape,
                    strides,
                };
                // The type is built checked, so its invariants are parse errors.
                if let Some(problem) = tv.shape_problem() {
                    return self.c.err_at(start, problem);
                }
                Type::TensorView(tv)
            }
            "partition_view" => {
                self.c.expect("<")?;
                let tile_shape = self.tile_shape()?;
                self.c.expect(",")?;
                let padding = self.padding_opt()?;
                let tensor_view = self.tensor_view_ref()?;
                let dim_map = self.optional_dim_map()?;
                self.c.expect(">")?;
                Type::PartitionView(PartitionViewType {
                    tile_shape,
                    tensor_view,
                    dim_map,
                    padding,
                })
            }
            "strided_view" => {
                self.c.expect("<")?;
                let tile_shape = self.tile_shape()?;
                self.c.expect(",")?;
                self.c.expect_kw("traversal_strides")?;
                self.c.expect("=")?;
                let traversal_strides = self.int_list("[", "]")?;
                self.c.expect(",")?;
                let padding = self.padding_opt()?;
                let tensor_view = self.tensor_view_ref()?;
                let dim_map = self.optional_dim_map()?;
                self.c.expect(">")?;
                Type::StridedView(StridedViewType {
                    tile_shape,
                    traversal_strides,
                    tensor_view,
                    dim_map,
                    padding,
                })
            }
            "gather_scatter_view" => {
                self.c.expect("<")?;
                let tile_shape = self.tile_shape()?;
                self.c.expect(",")?;
                let padding = self.padding_opt()?;
                let tensor_view = self.tensor_view_ref()?;
                self.c.expect(",")?;
                self.c.expect_kw("sparse_dim")?;
                self.c.expect("=")?;
                let sparse_dim = self.i64()?;
                self.c.expect(">")?;
                Type::GatherScatterView(GatherScatterViewType {
                    tile_shape,
                    tensor_view,
                    sparse_dim,
                    padding,
                })
            }
            _ => {
                return self
                    .c
                    .err_at(start, format!("unknown cuda_tile type '{w}'"))
            }
        };
        Ok(self.m.types.intern(ty))
    }

    /// An nv_tileas register layout of a rank-`rank` tile, as the printer writes it:
    /// `#nv_tileas.blocked<size_per_thread=[…], threads_per_warp=[…],
    /// warps_per_cta=[…], order=[…]>`. Each list has one entry per dimension; what the
    /// entries must satisfy (32 threads per warp, `order` a permutation) is the
    /// verifier's to say.
    pub(crate) fn layout(&mut self, rank: usize) -> R<tileir_ir::types::Layout> {
        // One grammar for layouts, shared with the type parser of nv_tileas types.
        let start = self.c.pos;
        match tileir_ir::parse_type::parse_layout_prefix(&self.c.src[start..], rank) {
            Ok((layout, len)) => {
                self.c.pos = start + len;
                Ok(layout)
            }
            Err(e) => self.c.err_at(start + e.offset, e.message),
        }
    }

    /// `, dim_map=[…]` after a view's tensor_view, or an empty (identity) map.
    fn optional_dim_map(&mut self) -> R<Vec<i64>> {
        if !self.c.eat(",") {
            return Ok(Vec::new());
        }
        self.c.expect_kw("dim_map")?;
        self.c.expect("=")?;
        self.int_list("[", "]")
    }

    // ---------------- dense literals ----------------

    /// Parses a dense literal value (scalar or nested lists) without interpreting it.
    pub fn lit(&mut self) -> R<Lit> {
        self.enter()?;
        self.c.ws();
        let at = self.c.pos;
        let r = if self.c.eat("[") {
            let mut items = Vec::new();
            if !self.c.eat("]") {
                loop {
                    items.push(self.lit()?);
                    if self.c.eat("]") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            }
            Ok(Lit::List(items, at))
        } else if let Some(t) = self.c.number_text() {
            Ok(Lit::Elem(t.to_string(), at))
        } else if let Some(w) = self.c.ident() {
            Ok(Lit::Elem(w.to_string(), at))
        } else {
            self.c.err("expected integer value")
        };
        self.depth -= 1;
        r
    }

    fn lit_shape(&self, lit: &Lit) -> R<Option<Vec<i64>>> {
        match lit {
            Lit::Elem(..) => Ok(None),
            Lit::List(items, at) => {
                let mut inner: Option<Option<Vec<i64>>> = None;
                for it in items {
                    let s = self.lit_shape(it)?;
                    match &inner {
                        None => inner = Some(s),
                        Some(prev) if *prev == s => {}
                        Some(_) => return self.c.err_at(
                            *at,
                            "tensor literal is invalid; ranks are not consistent between elements",
                        ),
                    }
                }
                let mut shape = vec![items.len() as i64];
                if let Some(Some(s)) = inner {
                    shape.extend(s);
                }
                Ok(Some(shape))
            }
        }
    }

    fn lit_elems<'l>(lit: &'l Lit, out: &mut Vec<(&'l str, usize)>) {
        match lit {
            Lit::Elem(t, at) => out.push((t, *at)),
            Lit::List(items, _) => items.iter().for_each(|i| Self::lit_elems(i, out)),
        }
    }

    /// Converts a literal to dense elements of `elem` with `shape`, with MLIR's checks.
    pub fn dense(
        &mut self,
        lit: &Lit,
        elem: NumType,
        shape: &[i64],
        at: usize,
    ) -> R<DenseElements> {
        // Elements are converted before the shape is compared: NVIDIA's 13.3 parser reports
        // a bad element (such as `2` for a float) even when the count is also wrong.
        let inferred = self.lit_shape(lit)?;
        let mut elems = Vec::new();
        Self::lit_elems(lit, &mut elems);
        let mut bits = Vec::with_capacity(elems.len());
        for (t, pos) in elems {
            bits.push(self.element(t, pos, elem)?);
        }
        if let Some(s) = inferred {
            if s != shape {
                let f = |v: &[i64]| {
                    v.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return self.c.err_at(
                    at,
                    format!(
                        "inferred shape of elements literal ([{}]) does not match type ([{}])",
                        f(&s),
                        f(shape)
                    ),
                );
            }
        }
        if bits.iter().all(|&b| b == bits[0]) {
            bits.truncate(1);
        }
        Ok(DenseElements {
            elem,
            shape: shape.to_vec(),
            bits,
        })
    }

    /// One element of a dense literal or a typed scalar.
    pub fn element(&mut self, t: &str, pos: usize, elem: NumType) -> R<u64> {
        if elem.is_int() {
            let w = elem.bit_width();
            let v: i128 = match t {
                "true" if elem == NumType::I1 => 1,
                "false" if elem == NumType::I1 => 0,
                _ => match parse_int_text(t) {
                    Some(v) => v,
                    None => return self.c.err_at(pos, "expected integer value"),
                },
            };
            let min = -(1i128 << (w - 1));
            let max = (1i128 << w) - 1;
            if v < min || v > max {
                return self.c.err_at(pos, "integer constant out of range for type");
            }
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            Ok((v as u64) & mask)
        } else {
            let Some(fmt) = tileir_ir::print::float_format(elem) else {
                return self.c.err_at(pos, "unsupported float type");
            };
            match tileir_numeric::parse_mlir_float(fmt, t) {
                Ok(b) => Ok(b),
                Err(e) => {
                    let mut d = tileir_ir::Diagnostic::error(self.c.loc_at(pos), e.to_string());
                    if let Some(n) = e.note() {
                        d = d.with_note(self.c.loc_at(pos), n);
                    }
                    Err(d)
                }
            }
        }
    }

    // ---------------- attributes ----------------

    /// Parses an attribute value in generic syntax.
    pub fn attr(&mut self) -> R<Attr> {
        self.enter()?;
        let r = self.attr_inner();
        self.depth -= 1;
        r
    }

    fn attr_inner(&mut self) -> R<Attr> {
        self.c.ws();
        let at = self.c.pos;
        match self.c.peek() {
            Some(b'"') => return Ok(Attr::Str(self.c.string()?)),
            Some(b'@') => return Ok(Attr::Symbol(self.symbol()?)),
            Some(b'[') => {
                self.c.pos += 1;
                let mut items = Vec::new();
                if !self.c.eat("]") {
                    loop {
                        items.push(self.attr()?);
                        if self.c.eat("]") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
                return Ok(Attr::Array(items));
            }
            Some(b'{') => return Ok(Attr::Dict(self.attr_dict()?)),
            Some(b'#') => {
                self.c.pos += 1;
                if self.c.src[self.c.pos..].starts_with("cuda_tile.") {
                    self.c.pos += "cuda_tile.".len();
                    return self.ct_attr(at);
                }
                let Some(name) = self.c.suffix_id() else {
                    return self.c.err_at(at, "expected attribute");
                };
                return match self.attr_aliases.get(name) {
                    Some(AliasValue::Attr(a)) => Ok(a.clone()),
                    Some(_) => self.c.err_at(
                        at,
                        format!("alias '#{name}' is a debug-info attribute, not allowed here"),
                    ),
                    None => self
                        .c
                        .err_at(at, format!("undefined symbol alias id '{name}'")),
                };
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                let t = self.c.number_text().unwrap_or("").to_string();
                return self.typed_number(&t, at);
            }
            _ => {}
        }
        if let Some(w) = self.c.peek_ident() {
            match w {
                "true" | "false" => {
                    self.c.pos += w.len();
                    if self.c.eat(":") {
                        let t = self.ty()?;
                        if let Type::Scalar(NumType::I1) = self.m.types.get(t) {
                            return Ok(Attr::Scalar(NumType::I1, u64::from(w == "true")));
                        }
                        return self
                            .c
                            .err_at(at, "expected i1 type for a boolean attribute");
                    }
                    return Ok(Attr::Bool(w == "true"));
                }
                "unit" => {
                    self.c.pos += 4;
                    return Ok(Attr::Unit);
                }
                "array" => {
                    self.c.pos += 5;
                    self.c.expect("<")?;
                    let _elem = self.num_type()?;
                    let mut v = Vec::new();
                    if self.c.eat(":") {
                        loop {
                            v.push(self.i64()?);
                            if !self.c.eat(",") {
                                break;
                            }
                        }
                    }
                    self.c.expect(">")?;
                    return Ok(Attr::IntArray(v));
                }
                "dense" => {
                    self.c.pos += 5;
                    self.c.expect("<")?;
                    let lit = self.lit()?;
                    self.c.expect(">")?;
                    self.c.expect(":")?;
                    self.c.ws();
                    let tat = self.c.pos;
                    let t = self.ty()?;
                    let (shape, elem) =
                        match self.m.types.get(t).clone() {
                            Type::Tile {
                                shape,
                                elem: TileElem::Num(e),
                                ..
                            } => (shape, e),
                            Type::Opaque(text) if text.starts_with("tensor<") => {
                                let inner = &text["tensor<".len()..text.len() - 1];
                                let parts: Vec<&str> = inner.split('x').collect();
                                let (dims, e) = parts.split_at(parts.len() - 1);
                                let shape: Option<Vec<i64>> =
                                    dims.iter().map(|d| d.parse().ok()).collect();
                                match (shape, NumType::from_keyword(e[0])) {
                                    (Some(s), Some(e)) => (s, e),
                                    _ => return self.c.err_at(
                                        tat,
                                        "expected a static tensor type of a supported element type",
                                    ),
                                }
                            }
                            _ => {
                                return self.c.err_at(
                                    tat,
                                    "expected a static tensor type of a supported element type",
                                )
                            }
                        };
                    return Ok(Attr::Dense(self.dense(&lit, elem, &shape, at)?));
                }
                _ => {}
            }
        }
        // Anything else is a type attribute.
        let t = self.ty()?;
        Ok(Attr::Type(t))
    }

    fn typed_number(&mut self, t: &str, at: usize) -> R<Attr> {
        let is_float = t.contains('.') || (t.contains(['e', 'E']) && !t.contains("0x"));
        if self.c.eat(":") {
            self.c.ws();
            let tat = self.c.pos;
            let ty = self.ty()?;
            let Type::Scalar(n) = self.m.types.get(ty).clone() else {
                return self.c.err_at(tat, "expected integer or float type");
            };
            let bits = self.element(t, at, n)?;
            return Ok(Attr::Scalar(n, bits));
        }
        if is_float {
            let bits = self.element(t, at, NumType::F64)?;
            return Ok(Attr::Scalar(NumType::F64, bits));
        }
        match parse_int_text(t).and_then(|v| i64::try_from(v).ok()) {
            Some(v) => Ok(Attr::Int(v)),
            None => self.c.err_at(at, "integer constant out of range for type"),
        }
    }

    /// `{name = value, flag, …}`.
    pub fn attr_dict(&mut self) -> R<Vec<(String, Attr)>> {
        self.c.expect("{")?;
        let mut out = Vec::new();
        if self.c.eat("}") {
            return Ok(out);
        }
        loop {
            self.c.ws();
            let at = self.c.pos;
            let name = if self.c.peek() == Some(b'"') {
                self.c.string()?
            } else {
                match self.c.ident() {
                    Some(n) => n.to_string(),
                    None => return self.c.err("expected attribute name"),
                }
            };
            if out.iter().any(|(n, _)| *n == name) {
                return self.c.err_at(
                    at,
                    format!("duplicate key '{name}' in dictionary attribute"),
                );
            }
            let value = if self.c.eat("=") {
                self.attr()?
            } else {
                Attr::Unit
            };
            out.push((name, value));
            if self.c.eat("}") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    /// `@name` or `@"name"`.
    pub fn symbol(&mut self) -> R<String> {
        const MSG: &str = "expected valid '@'-identifier for symbol name";
        if !self.c.eat("@") {
            return self.c.wrong_token(MSG);
        }
        if self.c.peek_at(0) == Some(b'"') {
            return self.c.string();
        }
        match self.c.suffix_id() {
            Some(s) => Ok(s.to_string()),
            None => self.c.err(MSG),
        }
    }

    /// `#cuda_tile.<mnemonic><…>` after the prefix (enum, assume predicate, hints).
    fn ct_attr(&mut self, at: usize) -> R<Attr> {
        let Some(m) = self.c.ident() else {
            return self.c.err_at(at, "expected attribute mnemonic");
        };
        if let Some((_, kind)) = ENUM_MNEMONICS.iter().find(|(n, _)| *n == m) {
            self.c.expect("<")?;
            self.c.ws();
            let kat = self.c.pos;
            let kw = self.c.ident().unwrap_or("");
            let Some(k) = kind.keywords().into_iter().find(|k| *k == kw) else {
                return self.c.err_at(
                    kat,
                    format!("expected {m} to be one of: {}", quoted(&kind.keywords())),
                );
            };
            self.c.expect(">")?;
            return Ok(Attr::Enum(kind.mnemonic(), k));
        }
        match m {
            "div_by" | "same_elements" | "bounded" => Ok(Attr::Assume(self.assume_body(m, at)?)),
            "optimization_hints" => Ok(Attr::Dict(self.hints_body()?)),
            _ => self
                .c
                .err_at(at, format!("unknown attribute '#cuda_tile.{m}'")),
        }
    }

    /// The `<…>` of an assume predicate whose mnemonic was just read.
    pub fn assume_body(&mut self, m: &str, at: usize) -> R<AssumePredicate> {
        self.c.expect("<")?;
        let p = match m {
            "div_by" => {
                let d = self.c.int()?;
                let divisor =
                    u64::try_from(d).or_else(|_| self.c.err_at(at, "divisor out of range"))?;
                let every_along = if self.c.eat(",") {
                    self.c.expect_kw("every")?;
                    let e = self.i64()?;
                    self.c.expect_kw("along")?;
                    let a = self.i64()?;
                    Some((e, a))
                } else {
                    None
                };
                AssumePredicate::DivBy {
                    divisor,
                    every_along,
                }
            }
            "same_elements" => AssumePredicate::SameElements(self.int_list("[", "]")?),
            _ => {
                let lb = if self.c.eat("?") {
                    None
                } else {
                    Some(self.i64()?)
                };
                self.c.expect(",")?;
                let ub = if self.c.eat("?") {
                    None
                } else {
                    Some(self.i64()?)
                };
                AssumePredicate::Bounded(lb, ub)
            }
        };
        self.c.expect(">")?;
        Ok(p)
    }

    /// `<key = {…}, …>` of optimization hints; checks keys and dictionary values.
    pub fn hints_body(&mut self) -> R<Vec<(String, Attr)>> {
        self.c.expect("<")?;
        let mut out = Vec::new();
        if self.c.eat(">") {
            return Ok(out);
        }
        loop {
            self.c.ws();
            let at = self.c.pos;
            // 13.3 keeps any key (a keyword or a string) and lets the verifier warn
            // about unknown ones under `-Wunsupported-hints`; 13.1 rejected them here.
            let key = if self.c.peek() == Some(b'"') {
                self.c.string()?
            } else if let Some(k) = self.c.ident() {
                k.to_string()
            } else {
                return self.c.err("expected valid keyword or string");
            };
            let key = key.as_str();
            if self.hint_check == crate::HintCheck::AtParse
                && !tileir_ir::print::HINT_KEYS.contains(&key)
            {
                return self
                    .c
                    .err_at(at, self.custom(format!("unallowed key {key}")));
            }
            self.c.expect("=")?;
            self.c.ws();
            let vat = self.c.pos;
            let v = self.attr()?;
            if !matches!(v, Attr::Dict(_)) {
                let shown = match &v {
                    Attr::Int(i) => format!("{i} : i64"),
                    other => tileir_ir::print::attr_value_text(other, &self.m.types),
                };
                return self.c.err_at(vat, self.custom(format!("expected dictionary attribute for optimization_hints entry `{key}` got value={shown}")));
            }
            if let (Attr::Dict(params), crate::HintCheck::AtParse) = (&v, self.hint_check) {
                for (param, value) in params {
                    if let Some(problem) =
                        tileir_ir::dialect::cuda_tile::hints::value_problem(key, param, value)
                    {
                        return self.c.err(self.custom(problem));
                    }
                }
            }
            out.push((key.to_string(), v));
            if self.c.eat(">") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    // ---------------- locations and debug info ----------------

    /// `loc(…)`; `None` for an alias not defined yet (resolved at the end).
    pub fn location(&mut self) -> R<Result<Location, String>> {
        self.c.expect("loc")?;
        self.c.expect("(")?;
        self.c.ws();
        if self.c.peek() == Some(b'#') && !self.c.src[self.c.pos..].starts_with("#cuda_tile.") {
            let at = self.c.pos;
            self.c.pos += 1;
            let name = self.c.suffix_id().unwrap_or("").to_string();
            self.c.expect(")")?;
            return match self.attr_aliases.get(&name) {
                Some(AliasValue::Loc(l)) => Ok(Ok(l.clone())),
                Some(_) => self.c.err_at(
                    at,
                    format!("expected location, but '#{name}' is not a location"),
                ),
                None => Ok(Err(name)),
            };
        }
        let l = self.loc_inner()?;
        self.c.expect(")")?;
        Ok(Ok(l))
    }

    fn loc_inner(&mut self) -> R<Location> {
        self.enter()?;
        let r = self.loc_inner2();
        self.depth -= 1;
        r
    }

    fn loc_inner2(&mut self) -> R<Location> {
        self.c.ws();
        let at = self.c.pos;
        if self.c.at("#") {
            return self.loc_attr();
        }
        if self.c.peek() == Some(b'"') {
            let s = self.c.string()?;
            if self.c.eat(":") {
                let line = self.c.int()?;
                self.c.expect(":")?;
                let col = self.c.int()?;
                let (Ok(line), Ok(col)) = (u32::try_from(line), u32::try_from(col)) else {
                    return self.c.err_at(at, "expected line and column in range");
                };
                return Ok(Location::FileLineCol { file: s, line, col });
            }
            if self.c.eat("(") {
                let child = self.loc_inner()?;
                self.c.expect(")")?;
                return Ok(Location::Name {
                    name: s,
                    child: Some(Box::new(child)),
                });
            }
            return Ok(Location::Name {
                name: s,
                child: None,
            });
        }
        match self.c.ident() {
            Some("unknown") => Ok(Location::Unknown),
            Some("fused") => {
                if self.c.at("<") {
                    self.c.expect("<")?;
                    let _ = self.attr()?;
                    self.c.expect(">")?;
                }
                self.c.expect("[")?;
                let mut parts = Vec::new();
                if !self.c.eat("]") {
                    loop {
                        parts.push(self.loc_inner()?);
                        if self.c.eat("]") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
                Ok(Location::Fused(parts))
            }
            Some("callsite") => {
                self.c.expect("(")?;
                let callee = self.loc_inner()?;
                self.c.expect_kw("at")?;
                let caller = self.loc_inner()?;
                self.c.expect(")")?;
                Ok(Location::CallSite {
                    callee: Box::new(callee),
                    caller: Box::new(caller),
                })
            }
            _ => self.c.err_at(at, "expected location instance"),
        }
    }

    /// A location written as an attribute: `#alias`, `#cuda_tile.di_loc<…>`, or `loc(…)`.
    fn loc_attr(&mut self) -> R<Location> {
        self.c.ws();
        let at = self.c.pos;
        if self.c.at("loc") {
            return match self.location()? {
                Ok(l) => Ok(l),
                Err(name) => self
                    .c
                    .err_at(at, format!("undefined symbol alias id '{name}'")),
            };
        }
        match self.debug_attr()? {
            AliasValue::Loc(l) => Ok(l),
            _ => self.c.err_at(at, "expected location"),
        }
    }

    /// `#alias` or `#cuda_tile.di_*<…>`.
    pub fn debug_attr(&mut self) -> R<AliasValue> {
        self.enter()?;
        let r = self.debug_attr_inner();
        self.depth -= 1;
        r
    }

    fn debug_attr_inner(&mut self) -> R<AliasValue> {
        self.c.ws();
        let at = self.c.pos;
        if self.c.at("loc") {
            return Ok(AliasValue::Loc(self.loc_attr()?));
        }
        self.c.expect("#")?;
        if !self.c.src[self.c.pos..].starts_with("cuda_tile.") {
            let name = self.c.suffix_id().unwrap_or("").to_string();
            return match self.attr_aliases.get(&name) {
                Some(v) => Ok(v.clone()),
                None => self
                    .c
                    .err_at(at, format!("undefined symbol alias id '{name}'")),
            };
        }
        self.c.pos += "cuda_tile.".len();
        let m = self.c.ident().unwrap_or("").to_string();
        match m.as_str() {
            "di_loc" => {
                self.c.expect("<")?;
                let loc = self.loc_attr()?;
                self.c.expect_kw("in")?;
                let scope = self.scope_ref()?;
                self.c.expect(">")?;
                Ok(AliasValue::Loc(Location::DiLoc {
                    loc: Box::new(loc),
                    scope,
                }))
            }
            "di_file" => {
                self.c.expect("<")?;
                let name = self.c.string()?;
                self.c.expect_kw("in")?;
                let directory = self.c.string()?;
                self.c.expect(">")?;
                Ok(AliasValue::File(DiFile { name, directory }))
            }
            "di_compile_unit" | "di_subprogram" | "di_lexical_block" => {
                let fields = self.struct_fields()?;
                self.build_di(&m, fields, at)
            }
            _ => {
                self.c.pos = at + 1;
                let a = self.ct_attr_after_hash(at)?;
                Ok(AliasValue::Attr(a))
            }
        }
    }

    fn ct_attr_after_hash(&mut self, at: usize) -> R<Attr> {
        self.c.pos += "cuda_tile.".len();
        self.ct_attr(at)
    }

    fn scope_ref(&mut self) -> R<DiScope> {
        self.c.ws();
        let at = self.c.pos;
        match self.debug_attr()? {
            AliasValue::Scope(s) => Ok(s),
            _ => self
                .c
                .err_at(at, "expected a di_subprogram or di_lexical_block scope"),
        }
    }

    fn struct_fields(&mut self) -> R<Vec<(String, usize, DiField)>> {
        self.c.expect("<")?;
        let mut out = Vec::new();
        // Every debug-info struct has a required parameter, so `<>` is a missing name
        // (MLIR's struct parser words it so).
        loop {
            self.c.ws();
            let at = self.c.pos;
            let Some(k) = self.c.ident() else {
                return self.c.err("expected a parameter name in struct");
            };
            self.c.expect("=")?;
            self.c.ws();
            let v = match self.c.peek() {
                Some(b'"') => DiField::Str(self.c.string()?),
                Some(b'#') => DiField::Attr(self.debug_attr()?),
                _ => {
                    let v = self.c.int()?;
                    DiField::Int(
                        u32::try_from(v).or_else(|_| self.c.err_at(at, "value out of range"))?,
                    )
                }
            };
            out.push((k.to_string(), at, v));
            if self.c.eat(">") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    fn build_di(
        &mut self,
        m: &str,
        fields: Vec<(String, usize, DiField)>,
        at: usize,
    ) -> R<AliasValue> {
        let get = |k: &str| {
            fields
                .iter()
                .find(|(n, ..)| n == k)
                .map(|(_, p, v)| (*p, v.clone()))
        };
        let missing = |k: &str| format!("struct is missing required parameter: {k}");
        let file = |s: &Self, k: &str| -> R<DiFile> {
            match get(k) {
                Some((_, DiField::Attr(AliasValue::File(f)))) => Ok(f),
                Some((p, _)) => {
                    s.c.err_at(p, format!("expected a di_file for parameter '{k}'"))
                }
                None => s.c.err_at(at, missing(k)),
            }
        };
        let int = |s: &Self, k: &str| -> R<Option<u32>> {
            match get(k) {
                Some((_, DiField::Int(v))) => Ok(Some(v)),
                Some((p, _)) => {
                    s.c.err_at(p, format!("expected an integer for parameter '{k}'"))
                }
                None => Ok(None),
            }
        };
        let string = |s: &Self, k: &str| -> R<String> {
            match get(k) {
                Some((_, DiField::Str(v))) => Ok(v),
                Some((p, _)) => {
                    s.c.err_at(p, format!("expected a string for parameter '{k}'"))
                }
                None => s.c.err_at(at, missing(k)),
            }
        };
        match m {
            "di_compile_unit" => Ok(AliasValue::CompileUnit(DiCompileUnit {
                file: file(self, "file")?,
            })),
            "di_subprogram" => {
                let compile_unit = match get("compileUnit") {
                    Some((_, DiField::Attr(AliasValue::CompileUnit(c)))) => c,
                    Some((p, _)) => {
                        return self
                            .c
                            .err_at(p, "expected a di_compile_unit for parameter 'compileUnit'")
                    }
                    None => return self.c.err_at(at, missing("compileUnit")),
                };
                let Some(line) = int(self, "line")? else {
                    return self.c.err_at(at, missing("line"));
                };
                Ok(AliasValue::Scope(DiScope::Subprogram(Box::new(
                    DiSubprogram {
                        file: file(self, "file")?,
                        line,
                        name: string(self, "name")?,
                        linkage_name: string(self, "linkageName")?,
                        compile_unit,
                        scope_line: int(self, "scopeLine")?,
                    },
                ))))
            }
            _ => {
                let scope = match get("scope") {
                    Some((_, DiField::Attr(AliasValue::Scope(s)))) => s,
                    Some((p, _)) => {
                        return self.c.err_at(p, "expected a scope for parameter 'scope'")
                    }
                    None => return self.c.err_at(at, missing("scope")),
                };
                let Some(line) = int(self, "line")? else {
                    return self.c.err_at(at, missing("line"));
                };
                Ok(AliasValue::Scope(DiScope::LexicalBlock(Box::new(
                    DiLexicalBlock {
                        scope,
                        file: file(self, "file")?,
                        line,
                        column: int(self, "column")?,
                    },
                ))))
            }
        }
    }
}

/// A parameter value of a debug-info struct attribute.
#[derive(Clone)]
pub enum DiField {
    /// `"…"`.
    Str(String),
    /// An integer.
    Int(u32),
    /// A nested attribute.
    Attr(AliasValue),
}

/// ODS's list of the number types a `ptr`, `tensor_view` or `tile` holds, worded as
/// NVIDIA's 13.3 suite quotes it. A tile's list ends `or Pointer type`; i4 tiles (kept
/// to integer conversions) are accepted too but ODS leaves them out of the list, so
/// they are named after it.
pub(crate) fn number_types_text(tile: bool) -> String {
    let tail = if tile {
        " or Pointer type (i4 is accepted as well)"
    } else {
        ""
    };
    format!("f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64{tail}")
}


/// `{'a', 'b'}`-style list for "expected X to be one of" messages.
pub fn quoted(kws: &[&str]) -> String {
    format!(
        "{{{}}}",
        kws.iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}
