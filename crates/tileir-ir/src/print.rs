//! The textual printer: MLIR custom syntax (the form cuda_tile tools print) or MLIR's
//! generic op form, optionally with `loc(...)` trailers. Output is deterministic: value
//! names come from source names made unique per function, then from a counter.

use crate::attrs::Attr;
use crate::dialect::cuda_tile::{CtOp, CudaTileOp};
use crate::dialect::FloatArith;
use crate::dialect::tileaa::{TileAaOp, TiledAccess, AXES};
use crate::dialect::tileas::TileAsOp;
use crate::module::{BlockId, Module, OpId, ValueId};
use crate::op::{Dialect, OpKind};
use crate::types::{Dim, Type, TypeId};
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

/// Prints the whole module.
pub fn print_module(module: &Module, options: PrintOptions) -> String {
    let mut p = Printer { m: module, opts: options, out: String::new(), names: HashMap::new(), used: HashSet::new(), next: 0 };
    for &op in &module.blocks[module.body].ops {
        p.reset_names();
        p.op(op, 0, false);
    }
    p.out
}

/// Escapes a string for MLIR string literals.
pub fn escape_string(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\22"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\0A"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

struct Printer<'a> {
    m: &'a Module,
    opts: PrintOptions,
    out: String,
    names: HashMap<ValueId, String>,
    used: HashSet<String>,
    next: usize,
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
        && !s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

impl<'a> Printer<'a> {
    fn reset_names(&mut self) {
        self.names.clear();
        self.used.clear();
        self.next = 0;
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
            _ => loop {
                let name = self.next.to_string();
                self.next += 1;
                if !self.used.contains(&name) {
                    break name;
                }
            },
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

    fn loc_suffix(&mut self, op: OpId) {
        if self.opts.debug_info {
            let loc = self.m.op_location(op);
            let _ = write!(self.out, " {loc}");
        }
    }

    fn results_prefix(&mut self, op: OpId) {
        let results = self.m.ops[op].results.clone();
        if results.is_empty() {
            return;
        }
        let names: Vec<String> = results.iter().map(|&r| self.name(r)).collect();
        let _ = write!(self.out, "{} = ", names.join(", "));
    }

    fn op(&mut self, op: OpId, depth: usize, in_cuda_tile: bool) {
        self.indent(depth);
        if self.opts.generic {
            self.generic(op, depth);
        } else {
            let kind = self.m.ops[op].kind.clone();
            match &kind {
                OpKind::CudaTile(ct) => self.cuda_tile(op, ct, depth, in_cuda_tile),
                OpKind::TileAa(aa) => self.tileaa(op, aa, depth),
                OpKind::TileAs(ts) => self.tileas(op, ts),
                OpKind::Unregistered(_) => self.generic(op, depth),
            }
        }
        self.loc_suffix(op);
        self.out.push('\n');
    }

    fn operand_list(&mut self, vals: &[ValueId]) -> String {
        vals.iter().map(|&v| self.name(v)).collect::<Vec<_>>().join(", ")
    }

    fn block_body(&mut self, block: BlockId, depth: usize, in_cuda_tile: bool) {
        for &inner in &self.m.blocks[block].ops.clone() {
            self.op(inner, depth, in_cuda_tile);
        }
    }

    fn signature(&mut self, block: Option<BlockId>, short: bool) -> String {
        let args = block.map(|b| self.m.blocks[b].args.clone()).unwrap_or_default();
        let parts: Vec<String> = args
            .iter()
            .map(|&a| {
                let n = self.name(a);
                format!("{n}: {}", self.vty(a, short))
            })
            .collect();
        parts.join(", ")
    }

    fn generic(&mut self, op: OpId, depth: usize) {
        self.results_prefix(op);
        let data = self.m.ops[op].clone();
        let operands = self.operand_list(&data.operands);
        let _ = write!(self.out, "\"{}\"({operands})", data.kind.name());
        let attrs = data.kind.attributes();
        if !attrs.is_empty() {
            let parts: Vec<String> = attrs.iter().map(|(n, a)| self.attr_text(n, a, data.kind.dialect())).collect();
            let _ = write!(self.out, " <{{{}}}>", parts.join(", "));
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
                    }
                    self.block_body(block, depth + 1, false);
                }
                self.indent(depth);
                self.out.push('}');
            }
            self.out.push(')');
        }
        let ins: Vec<String> = data.operands.iter().map(|&v| self.vty(v, false)).collect();
        let outs: Vec<String> = data.results.iter().map(|&v| self.vty(v, false)).collect();
        let outs = if outs.len() == 1 { outs[0].clone() } else { format!("({})", outs.join(", ")) };
        let _ = write!(self.out, " : ({}) -> {}", ins.join(", "), outs);
    }

    fn attr_text(&self, name: &str, attr: &Attr, dialect: Dialect) -> String {
        let value = match attr {
            Attr::Unit => return name.to_string(),
            Attr::Bool(b) => b.to_string(),
            Attr::Int(i) => format!("{i} : i64"),
            Attr::Str(s) => format!("\"{}\"", escape_string(s)),
            Attr::Enum(mnemonic, kw) => format!("#{}.{mnemonic}<{kw}>", dialect.prefix()),
            Attr::IntArray(v) => {
                let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                if name == "operandSegmentSizes" {
                    format!("array<i32: {}>", items.join(", "))
                } else {
                    format!("array<i64: {}>", items.join(", "))
                }
            }
            Attr::Type(t) => self.ty(*t, false),
            Attr::Symbol(s) => format!("@{s}"),
            other => attr_value_text(other),
        };
        format!("{name} = {value}")
    }

    fn cuda_tile(&mut self, op: OpId, ct: &CudaTileOp, depth: usize, in_cuda_tile: bool) {
        let data = self.m.ops[op].clone();
        let prefix = if in_cuda_tile { "" } else { "cuda_tile." };
        let ops = &data.operands;
        match ct.op {
            CtOp::Module => {
                let sym_name = ct.str("sym_name").unwrap_or_default();
                let _ = writeln!(self.out, "cuda_tile.module @{sym_name} {{");
                if let Some(block) = self.m.entry_block(op, 0) {
                    self.block_body(block, depth + 1, true);
                }
                self.indent(depth);
                self.out.push('}');
            }
            CtOp::Entry => {
                let sym_name = ct.str("sym_name").unwrap_or_default();
                let block = self.m.entry_block(op, 0);
                let sig = self.signature(block, true);
                let _ = writeln!(self.out, "{prefix}entry @{sym_name}({sig}) {{");
                if let Some(block) = block {
                    self.block_body(block, depth + 1, true);
                }
                self.indent(depth);
                self.out.push('}');
            }
            CtOp::Return => {
                let _ = write!(self.out, "{prefix}return");
                if !ops.is_empty() {
                    let tys: Vec<String> = ops.iter().map(|&v| self.vty(v, true)).collect();
                    let names = self.operand_list(ops);
                    let _ = write!(self.out, " {names} : {}", tys.join(", "));
                }
            }
            CtOp::MakeToken => {
                self.results_prefix(op);
                let _ = write!(self.out, "{prefix}make_token : {}", self.result_ty(&data.results, 0));
            }
            CtOp::GetTileBlockId | CtOp::GetNumTileBlocks => {
                self.results_prefix(op);
                let _ = write!(self.out, "{prefix}{} : {}", ct.mnemonic(), self.result_ty(&data.results, 0));
            }
            CtOp::Assume if ct.predicate().is_some() => {
                let predicate = ct.predicate().expect("checked");
                self.results_prefix(op);
                let v = self.operand_list(ops);
                let _ = write!(self.out, "{prefix}assume {}, {v} : {}", predicate.text(), self.result_ty(&data.results, 0));
            }
            CtOp::MakeTensorView if ct.segments.len() == 3 => {
                let (num_dyn_shape, num_dyn_strides) = (&ct.segments[1], &ct.segments[2]);
                self.results_prefix(op);
                let result_ty = data.results.first().map(|&r| self.m.value_type(r));
                let (shape, strides) = match result_ty.map(|t| self.m.types.get(t)) {
                    Some(Type::TensorView(tv)) => (tv.shape.clone(), tv.strides.clone()),
                    _ => (Vec::new(), Vec::new()),
                };
                let base = ops.first().map(|&v| self.name(v)).unwrap_or_default();
                let nsh = *num_dyn_shape as usize;
                let dyn_shape: Vec<ValueId> = ops.iter().skip(1).take(nsh).copied().collect();
                let dyn_strides: Vec<ValueId> =
                    ops.iter().skip(1 + nsh).take(*num_dyn_strides as usize).copied().collect();
                let shape_txt = self.mixed_list(&shape, &dyn_shape);
                let strides_txt = self.mixed_list(&strides, &dyn_strides);
                let _ = write!(self.out, "{prefix}make_tensor_view {base}, shape = [{shape_txt}], strides = [{strides_txt}] : ");
                if let Some(&first_dyn) = dyn_shape.first().or(dyn_strides.first()) {
                    let _ = write!(self.out, "{} -> ", self.vty(first_dyn, true));
                }
                let _ = write!(self.out, "{}", self.result_ty(&data.results, 0));
            }
            CtOp::MakePartitionView => {
                self.results_prefix(op);
                let v = self.operand_list(ops);
                let _ = write!(self.out, "{prefix}make_partition_view {v} : {}", self.result_ty(&data.results, 0));
            }
            CtOp::LoadViewTko if ct.segments.len() == 3 => {
                let a = ViewAccessText::of(ct, 1);
                self.results_prefix(op);
                let view = ops.first().copied();
                let indices: Vec<ValueId> = ops.iter().skip(1).take(a.num_indices as usize).copied().collect();
                let token = if a.has_token { ops.get(1 + a.num_indices as usize).copied() } else { None };
                let _ = write!(self.out, "{prefix}load_view_tko {}", a.ordering);
                if let Some(s) = a.scope {
                    let _ = write!(self.out, " {s}");
                }
                let view_name = view.map(|v| self.name(v)).unwrap_or_default();
                let idx_names = self.operand_list(&indices);
                let _ = write!(self.out, " {view_name}[{idx_names}]");
                if let Some(t) = token {
                    let t = self.name(t);
                    let _ = write!(self.out, " token = {t}");
                }
                let view_ty = view.map(|v| self.vty(v, true)).unwrap_or_default();
                let idx_tys = self.index_types(&indices);
                let outs: Vec<String> = data.results.iter().map(|&r| self.vty(r, true)).collect();
                let _ = write!(self.out, " : {view_ty}{idx_tys} -> {}", outs.join(", "));
            }
            CtOp::StoreViewTko if ct.segments.len() == 4 => {
                let a = ViewAccessText::of(ct, 2);
                self.results_prefix(op);
                let tile = ops.first().copied();
                let view = ops.get(1).copied();
                let indices: Vec<ValueId> = ops.iter().skip(2).take(a.num_indices as usize).copied().collect();
                let token = if a.has_token { ops.get(2 + a.num_indices as usize).copied() } else { None };
                let _ = write!(self.out, "{prefix}store_view_tko {}", a.ordering);
                if let Some(s) = a.scope {
                    let _ = write!(self.out, " {s}");
                }
                let tile_name = tile.map(|v| self.name(v)).unwrap_or_default();
                let view_name = view.map(|v| self.name(v)).unwrap_or_default();
                let idx_names = self.operand_list(&indices);
                let _ = write!(self.out, " {tile_name}, {view_name}[{idx_names}]");
                if let Some(t) = token {
                    let t = self.name(t);
                    let _ = write!(self.out, " token = {t}");
                }
                let tile_ty = tile.map(|v| self.vty(v, true)).unwrap_or_default();
                let view_ty = view.map(|v| self.vty(v, true)).unwrap_or_default();
                let idx_tys = self.index_types(&indices);
                let _ = write!(self.out, " : {tile_ty}, {view_ty}{idx_tys} -> {}", self.result_ty(&data.results, 0));
            }
            CtOp::AddF | CtOp::SubF | CtOp::MulF => {
                let f = FloatArith::of(ct);
                self.results_prefix(op);
                let v = self.operand_list(ops);
                let _ = write!(
                    self.out,
                    "{prefix}{} {v}{} : {}",
                    ct.mnemonic(),
                    f.custom_suffix(),
                    self.result_ty(&data.results, 0)
                );
            }
            _ => self.generic(op, depth),
        }
    }

    fn result_ty(&self, results: &[ValueId], i: usize) -> String {
        results.get(i).map(|&r| self.vty(r, true)).unwrap_or_default()
    }

    /// `, T` when all index types agree, else `, T0, T1, …`.
    fn index_types(&self, indices: &[ValueId]) -> String {
        if indices.is_empty() {
            return String::new();
        }
        let tys: Vec<TypeId> = indices.iter().map(|&v| self.m.value_type(v)).collect();
        if tys.iter().all(|&t| t == tys[0]) {
            format!(", {}", self.ty(tys[0], true))
        } else {
            tys.iter().map(|&t| format!(", {}", self.ty(t, true))).collect()
        }
    }

    /// `[128, %n]`: static entries as numbers, dynamic ones as the next SSA operand.
    fn mixed_list(&mut self, dims: &[Dim], dynamic: &[ValueId]) -> String {
        let mut dyn_iter = dynamic.iter();
        let parts: Vec<String> = dims
            .iter()
            .map(|d| match d {
                Dim::Static(v) => v.to_string(),
                Dim::Dynamic => dyn_iter.next().map(|&v| self.name(v)).unwrap_or_else(|| "<<missing>>".into()),
            })
            .collect();
        parts.join(", ")
    }

    fn tiled_access_text(&mut self, a: &TiledAccess, memref: Option<ValueId>, indices: &[ValueId], token: Option<ValueId>) -> String {
        let mut s = a.ordering.to_string();
        if let Some(scope) = a.scope {
            let _ = write!(s, " {scope}");
        }
        let memref_name = memref.map(|v| self.name(v)).unwrap_or_default();
        let _ = write!(s, " {memref_name}[{}]", self.operand_list(indices));
        if let Some(t) = token {
            let _ = write!(s, " token = {}", self.name(t));
        }
        if let Some(p) = a.padding {
            let _ = write!(s, " padding = {}", p.keyword());
        }
        s
    }

    fn tileaa(&mut self, op: OpId, aa: &TileAaOp, depth: usize) {
        let data = self.m.ops[op].clone();
        let ops = &data.operands;
        match aa {
            TileAaOp::Func { sym_name, kernel, num_warps, .. } => {
                let block = self.m.entry_block(op, 0);
                let sig = self.signature(block, true);
                let _ = write!(self.out, "nv_tileaa.func @{sym_name}({sig})");
                let mut attrs = Vec::new();
                if *kernel {
                    attrs.push("kernel".to_string());
                }
                if let Some(w) = num_warps {
                    attrs.push(format!("num_warps = {w}"));
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
                let _ = write!(self.out, "nv_tileaa.create_mem_token : {}", self.result_ty(&data.results, 0));
            }
            TileAaOp::GetProgramId { dim } | TileAaOp::GetNumPrograms { dim } => {
                self.results_prefix(op);
                let axis = AXES.get(*dim as usize).copied().unwrap_or("?");
                let _ = write!(self.out, "nv_tileaa.{} {axis} : {}", aa.mnemonic(), self.result_ty(&data.results, 0));
            }
            TileAaOp::MakeMemref { num_dyn_sizes, num_dyn_strides, base_alignment } => {
                self.results_prefix(op);
                let (shape, strides) = match data.results.first().map(|&r| self.m.types.get(self.m.value_type(r))) {
                    Some(Type::MemRef { shape, strides, .. }) => (shape.clone(), strides.clone()),
                    _ => (Vec::new(), Vec::new()),
                };
                let n = *num_dyn_sizes as usize;
                let dyn_sizes: Vec<ValueId> = ops.iter().skip(1).take(n).copied().collect();
                let dyn_strides: Vec<ValueId> = ops.iter().skip(1 + n).take(*num_dyn_strides as usize).copied().collect();
                let base = ops.first().map(|&v| self.name(v)).unwrap_or_default();
                let sizes = self.mixed_list(&shape, &dyn_sizes);
                let strides_txt = self.mixed_list(&strides, &dyn_strides);
                let _ = write!(self.out, "nv_tileaa.make_memref {base}, sizes = [{sizes}], strides = [{strides_txt}]");
                if *base_alignment > 0 {
                    let _ = write!(self.out, " alignment = {base_alignment}");
                }
                let in_tys: Vec<String> = ops.iter().map(|&v| self.vty(v, true)).collect();
                let _ = write!(self.out, " : ({}) -> {}", in_tys.join(", "), self.result_ty(&data.results, 0));
            }
            TileAaOp::TiledLoad(a) => self.tiled_load("nv_tileaa", op, a, None),
            TileAaOp::TiledStore(a) => self.tiled_store("nv_tileaa", op, a, None),
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

    fn tiled_load(&mut self, dialect: &str, op: OpId, a: &TiledAccess, vector_width: Option<u32>) {
        let data = self.m.ops[op].clone();
        let ops = &data.operands;
        self.results_prefix(op);
        let memref = ops.first().copied();
        let indices: Vec<ValueId> = ops.iter().skip(1).take(a.num_indices as usize).copied().collect();
        let token = if a.has_token { ops.get(1 + a.num_indices as usize).copied() } else { None };
        let body = self.tiled_access_text(a, memref, &indices, token);
        let _ = write!(self.out, "{dialect}.tiled_load {body}");
        if let Some(w) = vector_width {
            let _ = write!(self.out, " vector_width = {w}");
        }
        let memref_ty = memref.map(|v| self.vty(v, true)).unwrap_or_default();
        let idx = self.index_types(&indices);
        let outs: Vec<String> = data.results.iter().map(|&r| self.vty(r, true)).collect();
        let _ = write!(self.out, " : {memref_ty}{idx} -> {}", outs.join(", "));
    }

    fn tiled_store(&mut self, dialect: &str, op: OpId, a: &TiledAccess, vector_width: Option<u32>) {
        let data = self.m.ops[op].clone();
        let ops = &data.operands;
        self.results_prefix(op);
        let memref = ops.first().copied();
        let value = ops.get(1).copied();
        let indices: Vec<ValueId> = ops.iter().skip(2).take(a.num_indices as usize).copied().collect();
        let token = if a.has_token { ops.get(2 + a.num_indices as usize).copied() } else { None };
        let value_name = value.map(|v| self.name(v)).unwrap_or_default();
        let body = self.tiled_access_text(a, memref, &indices, token);
        // `weak %value, %memref[...]`: the ordering leads, as in cuda_tile's store_view_tko.
        let (ordering, rest) = body.split_once(' ').unwrap_or((body.as_str(), ""));
        let _ = write!(self.out, "{dialect}.tiled_store {ordering} {value_name}, {rest}");
        if let Some(w) = vector_width {
            let _ = write!(self.out, " vector_width = {w}");
        }
        let value_ty = value.map(|v| self.vty(v, true)).unwrap_or_default();
        let memref_ty = memref.map(|v| self.vty(v, true)).unwrap_or_default();
        let idx = self.index_types(&indices);
        let _ = write!(self.out, " : {value_ty}, {memref_ty}{idx} -> {}", self.result_ty(&data.results, 0));
    }

    fn tileas(&mut self, op: OpId, ts: &TileAsOp) {
        match ts {
            TileAsOp::TiledLoad { access, vector_width } => self.tiled_load("nv_tileas", op, access, Some(*vector_width)),
            TileAsOp::TiledStore { access, vector_width } => {
                self.tiled_store("nv_tileas", op, access, Some(*vector_width))
            }
        }
    }
}

/// Ordering, scope and operand layout of a view load/store, read from its attributes.
struct ViewAccessText {
    ordering: &'static str,
    scope: Option<&'static str>,
    num_indices: u32,
    has_token: bool,
}

impl ViewAccessText {
    fn of(ct: &CudaTileOp, index_group: usize) -> ViewAccessText {
        ViewAccessText {
            ordering: ct.keyword("memory_ordering_semantics").unwrap_or("weak"),
            scope: ct.keyword("memory_scope"),
            num_indices: ct.segments[index_group],
            has_token: ct.segments[index_group + 1] > 0,
        }
    }
}

/// Generic text of attribute kinds that have no op-specific spelling (a basic rendering;
/// scalars print their raw bits in hex).
fn attr_value_text(attr: &Attr) -> String {
    match attr {
        Attr::Unit => "unit".into(),
        Attr::Bool(b) => b.to_string(),
        Attr::Int(i) => format!("{i} : i64"),
        Attr::Str(s) => format!("\"{}\"", escape_string(s)),
        Attr::Enum(mnemonic, kw) => format!("#cuda_tile.{mnemonic}<{kw}>"),
        Attr::IntArray(v) => {
            let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            format!("array<i64: {}>", items.join(", "))
        }
        Attr::Type(t) => format!("{t}"),
        Attr::Symbol(s) => format!("@{s}"),
        Attr::Scalar(t, bits) => format!("{bits:#x} : {t}"),
        Attr::Array(items) => format!("[{}]", items.iter().map(attr_value_text).collect::<Vec<_>>().join(", ")),
        Attr::Dict(entries) => format!(
            "{{{}}}",
            entries.iter().map(|(k, v)| format!("{k} = {}", attr_value_text(v))).collect::<Vec<_>>().join(", ")
        ),
        Attr::Dense(d) => {
            let items: Vec<String> = d.bits.iter().map(|b| format!("{b:#x}")).collect();
            format!("dense<[{}]>", items.join(", "))
        }
        Attr::Assume(p) => format!("#cuda_tile.{}", p.text()),
        Attr::Opaque(text) => text.clone(),
    }
}
