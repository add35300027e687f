//! Custom-syntax parsers of the nv_tileaa and nv_tileas ops: the inverses of their
//! printers in [`tileir_ir::print`], so that the IR the lowering pipeline prints at
//! those levels reads back (`print(parse(print(x))) == print(x)`).
//!
//! Inside an `nv_tileaa.func` body op names keep their dialect prefix (residual
//! cuda_tile ops are written `cuda_tile.addi …`, with bare scalar types such as `i32`);
//! regions of residual cuda_tile ops (`cuda_tile.for`) are default-cuda_tile regions as
//! everywhere else.

use crate::lex::R;
use crate::{Parser, Use};
use tileir_ir::attrs::{AttrReader, MemoryOrdering, MemoryScope, RoundingMode};
use tileir_ir::dialect::tileaa::AXES;
use tileir_ir::module::{BlockId, OpId, RegionId, ValueId};
use tileir_ir::types::{PaddingValue, Type, TypeId};
use tileir_ir::{FloatArith, LocId, OpKind, TileAaOp, TileAsOp, TiledAccess};

/// The operands of a tiled access before their types are known.
struct AccessUses {
    access: TiledAccess,
    value: Option<Use>,
    memref: Use,
    indices: Vec<Use>,
    token: Option<Use>,
    vector_width: Option<u32>,
    /// A forced lowering variant (nv_tileas forms).
    variant: Option<String>,
}

impl Parser<'_> {
    /// Parses a custom-form `nv_tileaa.*` / `nv_tileas.*` op (after its result bindings);
    /// `at` is the position of the op name.
    pub(crate) fn lowered_op(
        &mut self,
        block: BlockId,
        dialect: &str,
        mnemonic: &str,
        at: usize,
        loc: LocId,
        start: usize,
    ) -> R<OpId> {
        let full = format!("{dialect}.{mnemonic}");
        let saved = std::mem::replace(&mut self.cur_op, full);
        let r = self.lowered_op_inner(block, dialect, mnemonic, at, loc, start);
        self.cur_op = saved;
        r
    }

    fn lowered_op_inner(
        &mut self,
        block: BlockId,
        dialect: &str,
        mnemonic: &str,
        at: usize,
        loc: LocId,
        start: usize,
    ) -> R<OpId> {
        match (dialect, mnemonic) {
            ("nv_tileaa", "func") => self.aa_func(block, loc),
            ("nv_tileaa", "return") => {
                Ok(self.create(block, OpKind::TileAa(TileAaOp::Return), vec![], &[], loc))
            }
            ("nv_tileaa", "create_mem_token") => {
                self.c.expect(":")?;
                let t = self.ty()?;
                let kind = OpKind::TileAa(TileAaOp::CreateMemToken);
                Ok(self.create(block, kind, vec![], &[t], loc))
            }
            ("nv_tileaa", "get_program_id" | "get_num_programs") => {
                self.c.ws();
                let pos = self.c.pos;
                let axis = self.c.ident().unwrap_or("");
                let Some(dim) = AXES.iter().position(|a| *a == axis) else {
                    return self.cerr(pos, "expected dimension 'x', 'y' or 'z'");
                };
                let dim = dim as u8;
                self.c.expect(":")?;
                let t = self.ty()?;
                let op = if mnemonic == "get_program_id" {
                    TileAaOp::GetProgramId { dim }
                } else {
                    TileAaOp::GetNumPrograms { dim }
                };
                Ok(self.create(block, OpKind::TileAa(op), vec![], &[t], loc))
            }
            ("nv_tileaa", "make_memref") => self.make_memref(block, loc),
            ("nv_tileaa", "tiled_load") => self.tiled_access(block, loc, false, None),
            ("nv_tileaa", "tiled_store") => self.tiled_access(block, loc, true, None),
            ("nv_tileas", "tiled_load") => self.tiled_access(block, loc, false, Some(())),
            ("nv_tileas", "tiled_store") => self.tiled_access(block, loc, true, Some(())),
            ("nv_tileaa", "addf" | "subf" | "mulf") => self.aa_float(block, mnemonic, loc),
            ("nv_tileaa", "global") => {
                let constant = self.c.eat_kw("constant");
                let sym_name = self.symbol()?;
                let mut alignment = 0;
                if self.c.eat_kw("alignment") {
                    self.c.expect("=")?;
                    alignment = self.i64()?;
                }
                let (value, _) = self.dense_custom(start)?;
                let kind = OpKind::TileAa(TileAaOp::Global { sym_name, value, alignment, constant });
                Ok(self.create(block, kind, vec![], &[], loc))
            }
            ("nv_tileaa", "get_global") => {
                let name = self.symbol()?;
                self.c.expect(":")?;
                let t = self.ty()?;
                let kind = OpKind::TileAa(TileAaOp::GetGlobal { name });
                Ok(self.create(block, kind, vec![], &[t], loc))
            }
            _ => self.c.err_at(at, format!("custom op '{dialect}.{mnemonic}' is unknown")),
        }
    }

    /// `nv_tileaa.func @name(%a: T, …) [-> results] [attributes {kernel, num_warps = N}] { … }`
    fn aa_func(&mut self, block: BlockId, loc: LocId) -> R<OpId> {
        let sym_name = self.symbol()?;
        self.c.expect("(")?;
        let mut args: Vec<(Use, TypeId)> = Vec::new();
        if !self.c.eat(")") {
            loop {
                let u = self.use_ref()?;
                self.c.expect(":")?;
                let t = self.ty()?;
                if self.c.at("loc") {
                    let _ = self.location()?;
                }
                args.push((u, t));
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        let results = self.function_results()?;
        let (mut kernel, mut num_warps, mut hints) = (false, None, None);
        if self.c.eat_kw("attributes") {
            self.c.ws();
            let dict_at = self.c.pos;
            let dict = self.attr_dict()?;
            let mut r = AttrReader::new("nv_tileaa.func", &dict);
            kernel = r.flag("kernel");
            let w = r.int("num_warps");
            hints = tileir_ir::dialect::tileaa::read_hints_pub(&mut r, &dict, "nv_tileaa.func");
            if let Err(errs) = r.finish() {
                return self.c.err_at(dict_at, errs.join("; "));
            }
            if let Some(w) = w {
                match u32::try_from(w) {
                    Ok(w) => num_warps = Some(w),
                    Err(_) => return self.cerr(dict_at, format!("num_warps {w} is out of range")),
                }
            }
        }
        let inputs = args.iter().map(|a| a.1).collect();
        let function_type = self.m.types.intern(Type::Function { inputs, results });
        let kind = OpKind::TileAa(TileAaOp::Func { sym_name, function_type, kernel, num_warps, hints });
        let o = self.create(block, kind, vec![], &[], loc);
        let r = self.m.ops[o].regions[0];
        self.lowered_region(r, &args)?;
        Ok(o)
    }

    /// `{ ops }` of a function body: isolated from above, op names with their prefix.
    fn lowered_region(&mut self, region: RegionId, args: &[(Use, TypeId)]) -> R<()> {
        self.enter()?;
        self.c.expect("{")?;
        self.push_scope(true);
        self.default_ct.push(false);
        self.lowered += 1;
        let r = (|| -> R<()> {
            let types: Vec<TypeId> = args.iter().map(|a| a.1).collect();
            let b = self.m.add_block(region, &types);
            let vals = self.m.blocks[b].args.clone();
            for ((u, _), v) in args.iter().zip(vals) {
                self.define(&u.name, vec![v], u.pos)?;
            }
            loop {
                self.c.ws();
                if self.c.eat("}") {
                    return Ok(());
                }
                if self.c.at_end() {
                    return self.c.err("expected '}' to end the region");
                }
                self.operation(b)?;
            }
        })();
        self.lowered -= 1;
        self.default_ct.pop();
        self.pop_scope();
        self.depth -= 1;
        r
    }

    /// `nv_tileaa.make_memref %base, sizes = [..], strides = [..] [alignment = A]
    /// : (T_base, T_dyn…) -> !nv_tileaa.memref<…>`: the static entries must be the
    /// result type's.
    fn make_memref(&mut self, block: BlockId, loc: LocId) -> R<OpId> {
        let base = self.use_ref()?;
        self.c.expect(",")?;
        self.c.expect_kw("sizes")?;
        self.c.expect("=")?;
        self.c.ws();
        let sizes_at = self.c.pos;
        let sizes = self.mixed_list()?;
        self.c.expect(",")?;
        self.c.expect_kw("strides")?;
        self.c.expect("=")?;
        self.c.ws();
        let strides_at = self.c.pos;
        let strides = self.mixed_list()?;
        let mut base_alignment = 0u32;
        if self.c.eat_kw("alignment") {
            self.c.expect("=")?;
            self.c.ws();
            let apos = self.c.pos;
            let a = self.i64()?;
            base_alignment = match u32::try_from(a) {
                Ok(a) => a,
                Err(_) => return self.cerr(apos, format!("alignment {a} is out of range")),
            };
        }
        self.c.expect(":")?;
        self.c.ws();
        let tpos = self.c.pos;
        let fty = self.ty()?;
        let Type::Function { inputs, results } = self.m.types.get(fty).clone() else {
            return self.cerr(tpos, "expected function type '(operand types) -> memref type'");
        };
        let memref = match results.as_slice() {
            [t] => *t,
            _ => return self.cerr(tpos, "expected one result type"),
        };
        let Type::MemRef { shape, strides: stride_dims, .. } = self.m.types.get(memref).clone() else {
            let shown = self.type_text(memref);
            return self.cerr(tpos, format!("expected '!nv_tileaa.memref' result type, but got '{shown}'"));
        };
        let count = |what: &str, want: usize, got: usize| {
            format!("expected {want} {what} entries (the memref's rank), but {got} were provided")
        };
        let entry = |what: &str, i: usize, want: &str, got: &str| {
            format!("{what} entry {i} does not match the memref type (expected {want}, got {got})")
        };
        self.check_dims(&sizes, &shape, sizes_at, "size", count, entry)?;
        self.check_dims(&strides, &stride_dims, strides_at, "stride", count, entry)?;
        let dyn_s: Vec<Use> = sizes.into_iter().filter_map(|e| e.0.err()).collect();
        let dyn_t: Vec<Use> = strides.into_iter().filter_map(|e| e.0.err()).collect();
        let uses: Vec<&Use> = std::iter::once(&base).chain(&dyn_s).chain(&dyn_t).collect();
        if inputs.len() != uses.len() {
            return self.cerr(tpos, format!("expected {} operand types but had {}", uses.len(), inputs.len()));
        }
        let mut operands = Vec::new();
        for (u, t) in uses.into_iter().zip(&inputs) {
            operands.push(self.resolve(u, Some(*t))?);
        }
        let op = TileAaOp::MakeMemref {
            num_dyn_sizes: dyn_s.len() as u32,
            num_dyn_strides: dyn_t.len() as u32,
            base_alignment,
        };
        Ok(self.create(block, OpKind::TileAa(op), operands, &[memref], loc))
    }

    /// `ORDERING [SCOPE] [%value,] %memref[%i, …] [token = %t] [padding = P]
    /// [origin_step = [..]] [vector_width = N]`.
    fn access_uses(&mut self, store: bool, tileas: bool) -> R<AccessUses> {
        self.c.ws();
        let pos = self.c.pos;
        let word = self.c.peek_ident().unwrap_or("");
        let Some(ordering) = MemoryOrdering::from_keyword(word) else {
            return self.cerr(
                pos,
                format!("expected memory ordering to be one of: {}, got '{word}'", MemoryOrdering::expected()),
            );
        };
        self.c.ident();
        let mut scope = None;
        if let Some(s) = self.c.peek_ident().and_then(MemoryScope::from_keyword) {
            self.c.ident();
            scope = Some(s);
        }
        let value = if store {
            let v = self.use_ref()?;
            self.c.expect(",")?;
            Some(v)
        } else {
            None
        };
        let memref = self.use_ref()?;
        self.c.expect("[")?;
        let mut indices = Vec::new();
        if !self.c.eat("]") {
            loop {
                indices.push(self.use_ref()?);
                if self.c.eat("]") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        let mut token = None;
        if self.c.eat_kw("token") {
            self.c.expect("=")?;
            token = Some(self.use_ref()?);
        }
        let mut padding = None;
        if self.c.eat_kw("padding") {
            self.c.expect("=")?;
            self.c.ws();
            let ppos = self.c.pos;
            let w = self.c.ident().unwrap_or("");
            match PaddingValue::from_keyword(w) {
                Some(p) => padding = Some(p),
                None => {
                    let all: Vec<&str> = PaddingValue::ALL.iter().map(|p| p.keyword()).collect();
                    return self.cerr(ppos, format!("expected padding value ({}), got '{w}'", all.join(", ")));
                }
            }
        }
        let mut origin_step = None;
        if self.c.eat_kw("origin_step") {
            self.c.expect("=")?;
            origin_step = Some(self.int_list("[", "]")?);
        }
        let mut vector_width = None;
        let mut variant = None;
        if tileas {
            self.c.ws();
            if !self.c.eat_kw("vector_width") {
                return self.cerr(self.c.pos, "expected 'vector_width'");
            }
            self.c.expect("=")?;
            self.c.ws();
            let vpos = self.c.pos;
            let w = self.i64()?;
            match u32::try_from(w) {
                Ok(w) => vector_width = Some(w),
                Err(_) => return self.cerr(vpos, format!("vector_width {w} is out of range")),
            }
            self.c.ws();
            if self.c.eat_kw("variant") {
                self.c.expect("=")?;
                variant = Some(self.c.string()?);
            }
        }
        let access = TiledAccess {
            ordering,
            scope,
            padding,
            num_indices: indices.len() as u32,
            has_token: token.is_some(),
            origin_step,
        };
        Ok(AccessUses { access, value, memref, indices, token, vector_width, variant })
    }

    /// `tiled_load … : MEMREF, IDX… -> TILE, TOKEN` and
    /// `tiled_store … : VALUE, MEMREF, IDX… -> TOKEN` of either dialect (`tileas`: the
    /// nv_tileas forms, with `vector_width`). One index type stands for all indices.
    fn tiled_access(&mut self, block: BlockId, loc: LocId, store: bool, tileas: Option<()>) -> R<OpId> {
        let a = self.access_uses(store, tileas.is_some())?;
        self.c.expect(":")?;
        self.c.ws();
        let tpos = self.c.pos;
        let tys = self.type_list()?;
        let lead = if store { 2 } else { 1 };
        if tys.len() < lead {
            return self.cerr(tpos, format!("expected {} leading types ({})", lead, if store { "value, memref" } else { "memref" }));
        }
        let n = a.indices.len();
        let mut idx_tys = tys[lead..].to_vec();
        if idx_tys.len() == 1 {
            idx_tys = vec![idx_tys[0]; n];
        }
        if idx_tys.len() != n {
            return self.cerr(tpos, format!("expected {n} index types or a single one, got {}", tys.len() - lead));
        }
        self.c.expect("->")?;
        let results = self.type_list()?;
        let mut operands: Vec<ValueId> = Vec::new();
        operands.push(self.resolve(&a.memref, Some(tys[lead - 1]))?);
        if let Some(v) = &a.value {
            operands.push(self.resolve(v, Some(tys[0]))?);
        }
        for (u, t) in a.indices.iter().zip(&idx_tys) {
            operands.push(self.resolve(u, Some(*t))?);
        }
        if let Some(t) = &a.token {
            let tt = self.m.types.mem_token();
            operands.push(self.resolve(t, Some(tt))?);
        }
        let kind = match (tileas, store) {
            (None, false) => OpKind::TileAa(TileAaOp::TiledLoad(a.access)),
            (None, true) => OpKind::TileAa(TileAaOp::TiledStore(a.access)),
            (Some(()), false) => {
                OpKind::TileAs(TileAsOp::TiledLoad { access: a.access, vector_width: a.vector_width.unwrap_or(1), variant: a.variant })
            }
            (Some(()), true) => {
                OpKind::TileAs(TileAsOp::TiledStore { access: a.access, vector_width: a.vector_width.unwrap_or(1), variant: a.variant })
            }
        };
        Ok(self.create(block, kind, operands, &results, loc))
    }

    /// `nv_tileaa.addf %a, %b [rounding<M>] [flush_to_zero] : T` (and subf, mulf).
    fn aa_float(&mut self, block: BlockId, mnemonic: &str, loc: LocId) -> R<OpId> {
        let uses = self.use_list()?;
        let mut f = FloatArith::default();
        if self.c.eat_kw("rounding") {
            self.c.expect("<")?;
            self.c.ws();
            let pos = self.c.pos;
            let w = self.c.ident().unwrap_or("");
            match RoundingMode::from_keyword(w) {
                Some(r) => f.rounding = r,
                None => {
                    return self.cerr(pos, format!("expected rounding mode to be one of: {}, got '{w}'", RoundingMode::expected()))
                }
            }
            self.c.expect(">")?;
        }
        if self.c.eat_kw("flush_to_zero") {
            f.flush_to_zero = true;
        }
        self.c.expect(":")?;
        let t = self.ty()?;
        let mut operands = Vec::new();
        for u in &uses {
            operands.push(self.resolve(u, Some(t))?);
        }
        let op = match mnemonic {
            "addf" => TileAaOp::AddF(f),
            "subf" => TileAaOp::SubF(f),
            _ => TileAaOp::MulF(f),
        };
        Ok(self.create(block, OpKind::TileAa(op), operands, &[t], loc))
    }
}
