//! The writer: `Module` → bytes, for a chosen target version.
//!
//! Tables are filled in the order NVIDIA's writer fills them (function names and
//! signatures first, then globals, then each function's hints and body), so that indices
//! and therefore bytes match the reference writer for the same module where possible.

use crate::format::{self, attr_tag, debug_tag, func_flag, section, type_tag};
use crate::layout::{self, FlagField};
use crate::wire::Sink;
use crate::{is_supported_write_version, BytecodeError};
use std::collections::{HashMap, HashSet};
use tileir_ir::dialect::cuda_tile::schema::{
    Arity, AttrKind, EnumKind, OpSchema, Presence, Version,
};
use tileir_ir::dialect::cuda_tile::AssumePredicate;
use tileir_ir::location::{DiCompileUnit, DiFile, DiScope};
use tileir_ir::{
    Attr, BlockId, CtOp, CudaTileOp, DenseElements, Dim, Location, Module, NumType, OpId, OpKind,
    TileElem, Type, TypeId, TypeTable, ValueId,
};

/// Interning key of a bytecode type (tileir has no standalone pointer type: pointers
/// only exist as tile elements, but bytecode gives them a record of their own).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum TypeKey {
    Num(NumType),
    Ptr(NumType),
    Ir(TypeId),
}

struct Writer<'m> {
    m: &'m Module,
    /// A copy of the module's type table: ids of the module stay valid in it, and the
    /// writer may intern the few types it needs that the module lacks.
    tt: TypeTable,
    v: Version,
    strings: Vec<String>,
    string_index: HashMap<String, usize>,
    types: Vec<Vec<u8>>,
    type_index: HashMap<TypeKey, usize>,
    consts: Vec<Vec<u8>>,
    /// Debug records (record `i` has debug index `i + 1`; 0 means unknown).
    debug_records: Vec<Vec<u8>>,
    debug_index: HashMap<DebugKey, u64>,
    /// Per function with debug info: its location then its ops' locations, in pre-order.
    debug_funcs: Vec<Vec<u64>>,
    /// Whether the function being written records its ops' locations.
    debug_ops: bool,
    const_index: HashMap<Vec<u8>, usize>,
}

fn err(message: impl Into<String>) -> BytecodeError {
    BytecodeError::new(message)
}

/// Writes `module` as bytecode of `version`.
pub(crate) fn write(m: &Module, v: Version) -> Result<Vec<u8>, BytecodeError> {
    if !is_supported_write_version(v) {
        return Err(err(format!(
            "unsupported bytecode version {v} requested, this writer supports versions {}",
            crate::SUPPORTED_RANGE
        )));
    }
    let top: Vec<OpId> = m.blocks[m.body].ops.clone();
    let modules: Vec<OpId> = top
        .iter()
        .copied()
        .filter(|&o| m.ops[o].kind.ct() == Some(CtOp::Module))
        .collect();
    if modules.len() != 1 || top.len() != 1 {
        let others: Vec<String> = top
            .iter()
            .filter(|&&o| m.ops[o].kind.ct() != Some(CtOp::Module))
            .map(|&o| m.ops[o].kind.name())
            .collect();
        return Err(err(format!(
            "expected exactly one 'cuda_tile.module' at the top level, found {} module(s){}",
            modules.len(),
            if others.is_empty() {
                String::new()
            } else {
                format!(" and other ops: {}", others.join(", "))
            }
        )));
    }
    let module_op = modules[0];
    let module_ct = m.ops[module_op].kind.cuda_tile().expect("checked");
    let items: Vec<OpId> = match m.entry_block(module_op, 0) {
        Some(b) => m.blocks[b].ops.clone(),
        None => Vec::new(),
    };
    let mut w = Writer {
        m,
        tt: m.types.clone(),
        v,
        strings: Vec::new(),
        string_index: HashMap::new(),
        types: Vec::new(),
        type_index: HashMap::new(),
        consts: Vec::new(),
        const_index: HashMap::new(),
        debug_records: Vec::new(),
        debug_index: HashMap::new(),
        debug_funcs: Vec::new(),
        debug_ops: false,
    };

    // Classify the module body: only entries and globals can be encoded.
    let mut funcs = Vec::new();
    let mut globals = Vec::new();
    for &item in &items {
        match m.ops[item].kind.ct() {
            Some(CtOp::Entry) => funcs.push(item),
            Some(CtOp::Global) => globals.push(item),
            _ => {
                return Err(err(format!(
                    "'cuda_tile.module' op only function and global ops are allowed in the body, found '{}'",
                    m.ops[item].kind.name()
                )))
            }
        }
    }

    // Function names and signatures first (NVIDIA's buildFunctionMap).
    let mut metas = Vec::new();
    for &f in &funcs {
        let ct = m.ops[f].kind.cuda_tile().expect("entry");
        let name = ct
            .str("sym_name")
            .ok_or_else(|| err("'cuda_tile.entry' op is missing its symbol name"))?;
        let name_idx = w.string(name);
        let sig = w.signature(f, ct)?;
        let sig_idx = w.type_idx(&TypeKey::Ir(sig), "entry signature")?;
        metas.push((name_idx, sig_idx));
    }

    let global_payload = if globals.is_empty() {
        None
    } else {
        Some(w.globals(&globals)?)
    };

    let mut func_payload = Sink::default();
    func_payload.varint(funcs.len() as u64);
    for (&f, &(name_idx, sig_idx)) in funcs.iter().zip(metas.iter()) {
        let ct = m.ops[f].kind.cuda_tile().expect("entry");
        func_payload.varint(name_idx as u64);
        func_payload.varint(sig_idx as u64);
        let hints = match ct.get("optimization_hints") {
            Some(Attr::Dict(d)) if !d.is_empty() => Some(d.clone()),
            Some(Attr::Dict(_)) | None => None,
            Some(other) => {
                return Err(err(format!(
                "'cuda_tile.entry' op attribute 'optimization_hints' must be a dictionary, got {}",
                other.kind_name()
            )))
            }
        };
        let mut flags = func_flag::KERNEL;
        if hints.is_some() {
            flags |= func_flag::HAS_HINTS;
        }
        func_payload.byte(flags);
        // A function whose location has no debug scope gets slot 0, and none of its ops'
        // locations are stored (plain file locations are dropped, as NVIDIA's writer does).
        let floc = m.locs.get(m.ops[f].loc).clone();
        check_storable_loc(&floc)?;
        let slot = match canonical_loc(&floc) {
            Some(l) => {
                let i = w.debug_loc(&l)?;
                w.debug_funcs.push(vec![i]);
                w.debug_funcs.len() as u64
            }
            None => 0,
        };
        func_payload.varint(slot);
        if let Some(d) = hints {
            func_payload.varint(attr_tag::OPTIMIZATION_HINTS);
            w.dict_payload(
                &mut func_payload,
                &d,
                "'cuda_tile.entry' op attribute 'optimization_hints'",
                0,
            )?;
        }
        let body = w.function_body(f, slot != 0).map_err(|mut e| {
            if e.remark_op.is_some() && e.at_op.is_none() {
                e.at_op = Some(module_op);
            }
            e
        })?;
        func_payload.varint(body.len() as u64);
        func_payload.bytes(&body);
    }
    func_payload.align(8);

    let producer = if v >= Version::V13_3 {
        match module_ct.get("producer") {
            Some(Attr::Str(s)) => Some(w.string(s)),
            _ => None,
        }
    } else {
        // NVIDIA's writer drops the producer silently for older targets.
        None
    };

    // Assemble: header, Global, Func, Constant, (Debug), Type, Producer, String, End.
    let mut out = Sink::default();
    out.bytes(&format::MAGIC);
    out.byte(v.major);
    out.byte(v.minor);
    out.bytes(&0u16.to_le_bytes());
    if let Some(g) = global_payload {
        put_section(&mut out, section::GLOBAL, &g.buf, 1);
    }
    put_section(&mut out, section::FUNC, &func_payload.buf, 8);
    if !w.consts.is_empty() {
        let mut s = Sink::default();
        put_table(&mut s, w.consts.iter().map(|c| c.as_slice()), OffsetWidth::U64);
        put_section(&mut out, section::CONSTANT, &s.buf, 8);
    }
    if !w.debug_funcs.is_empty() {
        let mut d = Sink::default();
        d.varint(w.debug_funcs.len() as u64);
        d.align(4);
        let mut off = 0u32;
        for f in &w.debug_funcs {
            d.u32le(off);
            off += f.len() as u32;
        }
        d.varint(u64::from(off));
        d.align(8);
        for f in &w.debug_funcs {
            for &i in f {
                d.u64le(i);
            }
        }
        put_table(&mut d, w.debug_records.iter().map(|r| r.as_slice()), OffsetWidth::U32);
        put_section(&mut out, section::DEBUG, &d.buf, 8);
    }
    let mut ts = Sink::default();
    put_table(&mut ts, w.types.iter().map(|t| t.as_slice()), OffsetWidth::U32);
    put_section(&mut out, section::TYPE, &ts.buf, 4);
    if let Some(p) = producer {
        let mut s = Sink::default();
        s.varint(p as u64);
        put_section(&mut out, section::PRODUCER, &s.buf, 1);
    }
    let mut ss = Sink::default();
    put_table(&mut ss, w.strings.iter().map(|s| s.as_bytes()), OffsetWidth::U32);
    put_section(&mut out, section::STRING, &ss.buf, 4);
    out.byte(section::END);
    Ok(out.buf)
}

/// Width of the offsets of a table (u32 for strings, types and debug records; u64 for the
/// constant pool, whose payload is 8-aligned).
#[derive(Copy, Clone)]
enum OffsetWidth {
    U32,
    U64,
}

/// Appends a table: the count, padding to the offset width, one offset per record
/// (relative to the start of the record data), then the records back to back.
fn put_table<'a>(s: &mut Sink, records: impl Iterator<Item = &'a [u8]> + Clone, width: OffsetWidth) {
    s.varint(records.clone().count() as u64);
    let mut off = 0u64;
    match width {
        OffsetWidth::U32 => {
            s.align(4);
            for r in records.clone() {
                s.u32le(off as u32);
                off += r.len() as u64;
            }
        }
        OffsetWidth::U64 => {
            s.align(8);
            for r in records.clone() {
                s.u64le(off);
                off += r.len() as u64;
            }
        }
    }
    for r in records {
        s.bytes(r);
    }
}

/// Appends a section header (aligning the payload to `align` in the file) and payload.
fn put_section(out: &mut Sink, id: u8, payload: &[u8], align: usize) {
    out.byte(if align > 1 { id | 0x80 } else { id });
    out.varint(payload.len() as u64);
    if align > 1 {
        out.varint(align as u64);
        out.align(align);
    }
    out.bytes(payload);
}

/// Per-function SSA numbering: values are numbered in definition order; a block's
/// values are forgotten when the block ends (stack-scoped).
struct Numbering {
    index: HashMap<ValueId, u64>,
    log: Vec<ValueId>,
}

impl Numbering {
    fn define(&mut self, v: ValueId) {
        self.index.insert(v, self.log.len() as u64);
        self.log.push(v);
    }
    fn mark(&self) -> usize {
        self.log.len()
    }
    fn pop_to(&mut self, mark: usize) {
        while self.log.len() > mark {
            let v = self.log.pop().expect("non-empty");
            self.index.remove(&v);
        }
    }
}

impl<'m> Writer<'m> {
    fn string(&mut self, s: &str) -> usize {
        if let Some(&i) = self.string_index.get(s) {
            return i;
        }
        let i = self.strings.len();
        self.strings.push(s.to_string());
        self.string_index.insert(s.to_string(), i);
        i
    }

    fn constant(&mut self, raw: Vec<u8>) -> usize {
        let mut rec = Sink::default();
        rec.varint(raw.len() as u64);
        rec.bytes(&raw);
        if let Some(&i) = self.const_index.get(&rec.buf) {
            return i;
        }
        let i = self.consts.len();
        self.const_index.insert(rec.buf.clone(), i);
        self.consts.push(rec.buf);
        i
    }

    fn type_name(&self, t: TypeId) -> String {
        self.tt.display(t, true)
    }

    fn require(&self, since: Version, name: &str) -> Result<(), BytecodeError> {
        if self.v < since {
            return Err(err(format!(
                "type '{name}' requires bytecode version {since}+, targeting {}",
                self.v
            )));
        }
        Ok(())
    }

    fn num_idx(&mut self, n: NumType) -> Result<usize, BytecodeError> {
        self.type_idx(&TypeKey::Num(n), "")
    }

    /// The index of a type, registering it (after its dependencies) when new.
    fn type_idx(&mut self, key: &TypeKey, context: &str) -> Result<usize, BytecodeError> {
        let key = match key {
            TypeKey::Ir(t) => match self.tt.try_get(*t) {
                Some(Type::Scalar(n)) => TypeKey::Num(*n),
                Some(_) => key.clone(),
                None => {
                    return Err(err(format!(
                        "{context}: type id {t} is not in the module's type table"
                    )))
                }
            },
            _ => key.clone(),
        };
        if let Some(&i) = self.type_index.get(&key) {
            return Ok(i);
        }
        let mut rec = Sink::default();
        match &key {
            TypeKey::Num(n) => {
                self.require(format::num_since(*n), format::num_type_name(*n))?;
                rec.varint(format::num_tag(*n));
            }
            TypeKey::Ptr(n) => {
                let p = self.num_idx(*n)?;
                rec.varint(type_tag::PTR);
                if self.v >= layout::V13_4 {
                    rec.varint(0); // optional-parameter flags: no pointer attribute
                }
                rec.varint(p as u64);
            }
            TypeKey::Ir(t) => {
                let ty = self.tt.get(*t).clone();
                match ty {
                    Type::Scalar(_) => unreachable!("normalized to Num above"),
                    Type::Tile {
                        shape,
                        elem,
                        layout,
                    } => {
                        if layout.is_some() {
                            return Err(err(format!(
                                "{context}: type '{}' has a register layout and cannot be encoded in bytecode",
                                self.type_name(*t)
                            )));
                        }
                        let e = match elem {
                            TileElem::Num(n) => self.num_idx(n)?,
                            TileElem::Ptr(n) => self.type_idx(&TypeKey::Ptr(n), context)?,
                        };
                        rec.varint(type_tag::TILE);
                        rec.varint(e as u64);
                        rec.varint(shape.len() as u64);
                        for d in shape {
                            rec.bytes(&d.to_le_bytes());
                        }
                    }
                    Type::TensorView(tv) => {
                        let e = self.num_idx(tv.elem)?;
                        rec.varint(type_tag::TENSOR_VIEW);
                        if self.v >= layout::V13_4 {
                            rec.varint(0);
                        }
                        rec.varint(e as u64);
                        for dims in [&tv.shape, &tv.strides] {
                            rec.varint(dims.len() as u64);
                            for d in dims {
                                let x = match d {
                                    Dim::Static(x) => *x,
                                    Dim::Dynamic => i64::MIN,
                                };
                                rec.bytes(&x.to_le_bytes());
                            }
                        }
                    }
                    Type::PartitionView(pv) => {
                        let tv = self.view_tensor(pv.tensor_view, *t, context)?;
                        let rank = pv.tile_shape.len();
                        rec.varint(type_tag::PARTITION_VIEW);
                        let unified = self.v >= Version::V13_3;
                        if unified {
                            rec.varint(u64::from(pv.padding.is_some()));
                        }
                        self.i32_array(&mut rec, &pv.tile_shape, *t, "tile shape")?;
                        rec.varint(tv as u64);
                        self.i32_array(
                            &mut rec,
                            &dim_map_or_identity(&pv.dim_map, rank),
                            *t,
                            "dim_map",
                        )?;
                        if !unified {
                            rec.byte(u8::from(pv.padding.is_some()));
                        }
                        if let Some(p) = pv.padding {
                            rec.varint(padding_value(p));
                        }
                    }
                    Type::StridedView(sv) => {
                        self.require(Version::V13_3, "StridedView")?;
                        let tv = self.view_tensor(sv.tensor_view, *t, context)?;
                        let rank = sv.tile_shape.len();
                        rec.varint(type_tag::STRIDED_VIEW);
                        rec.varint(u64::from(sv.padding.is_some()));
                        self.i32_array(&mut rec, &sv.tile_shape, *t, "tile shape")?;
                        self.i32_array(&mut rec, &sv.traversal_strides, *t, "traversal strides")?;
                        rec.varint(tv as u64);
                        self.i32_array(
                            &mut rec,
                            &dim_map_or_identity(&sv.dim_map, rank),
                            *t,
                            "dim_map",
                        )?;
                        if let Some(p) = sv.padding {
                            rec.varint(padding_value(p));
                        }
                    }
                    Type::GatherScatterView(gv) => {
                        self.require(Version::V13_3, "GatherScatterView")?;
                        let tv = self.view_tensor(gv.tensor_view, *t, context)?;
                        rec.varint(type_tag::GATHER_SCATTER_VIEW);
                        rec.varint(u64::from(gv.padding.is_some()));
                        self.i32_array(&mut rec, &gv.tile_shape, *t, "tile shape")?;
                        rec.varint(tv as u64);
                        if gv.sparse_dim < 0 || gv.sparse_dim > i64::from(u32::MAX) {
                            return Err(err(format!(
                                "type '{}': sparse_dim {} does not fit in u32",
                                self.type_name(*t),
                                gv.sparse_dim
                            )));
                        }
                        rec.varint(gv.sparse_dim as u64);
                        if let Some(p) = gv.padding {
                            rec.varint(padding_value(p));
                        }
                    }
                    Type::Token => rec.varint(type_tag::TOKEN),
                    Type::Function { inputs, results } => {
                        let mut ins = Vec::new();
                        for i in &inputs {
                            ins.push(self.type_idx(&TypeKey::Ir(*i), context)?);
                        }
                        let mut outs = Vec::new();
                        for r in &results {
                            outs.push(self.type_idx(&TypeKey::Ir(*r), context)?);
                        }
                        rec.varint(type_tag::FUNCTION);
                        rec.varint(ins.len() as u64);
                        for i in ins {
                            rec.varint(i as u64);
                        }
                        rec.varint(outs.len() as u64);
                        for o in outs {
                            rec.varint(o as u64);
                        }
                    }
                    Type::Opaque(_)
                    | Type::AaPtr { .. }
                    | Type::MemRef { .. }
                    | Type::MemToken
                    | Type::Queue { .. }
                    | Type::Pipeline { .. }
                    | Type::PipelineIterator { .. }
                    | Type::ProducerToken { .. }
                    | Type::ConsumerToken { .. }
                    | Type::AsyncToken
                    | Type::TmaDesc { .. }
                    | Type::SmemTile { .. } => {
                        return Err(err(format!(
                            "unsupported type in bytecode writer: {}type '{}' is not a cuda_tile type",
                            if context.is_empty() {
                                String::new()
                            } else {
                                format!("{context}: ")
                            },
                            self.type_name(*t)
                        )));
                    }
                }
            }
        }
        let i = self.types.len();
        self.types.push(rec.buf);
        self.type_index.insert(key, i);
        Ok(i)
    }

    fn view_tensor(
        &mut self,
        tv: TypeId,
        view: TypeId,
        context: &str,
    ) -> Result<usize, BytecodeError> {
        match self.tt.try_get(tv) {
            Some(Type::TensorView(_)) => self.type_idx(&TypeKey::Ir(tv), context),
            _ => Err(err(format!(
                "type '{}': its tensor view is not a tensor_view type",
                self.type_name(view)
            ))),
        }
    }

    fn i32_array(
        &self,
        s: &mut Sink,
        values: &[i64],
        t: TypeId,
        what: &str,
    ) -> Result<(), BytecodeError> {
        s.varint(values.len() as u64);
        for &x in values {
            let x = i32::try_from(x).map_err(|_| {
                err(format!(
                    "type '{}': {what} value {x} does not fit in i32",
                    self.type_name(t)
                ))
            })?;
            s.bytes(&x.to_le_bytes());
        }
        Ok(())
    }

    /// The entry's signature type: its `function_type` attribute, or one built from its
    /// block arguments.
    fn signature(&mut self, f: OpId, ct: &CudaTileOp) -> Result<TypeId, BytecodeError> {
        if let Some(Attr::Type(t)) = ct.get("function_type") {
            if matches!(self.tt.try_get(*t), Some(Type::Function { .. })) {
                return Ok(*t);
            }
            return Err(err(format!(
                "'cuda_tile.entry' op attribute 'function_type' is not a function type: {}",
                self.type_name(*t)
            )));
        }
        let args: Vec<TypeId> = match self.m.entry_block(f, 0) {
            Some(b) => self.m.blocks[b]
                .args
                .iter()
                .map(|&a| self.m.value_type(a))
                .collect(),
            None => Vec::new(),
        };
        Ok(self.tt.intern(Type::Function {
            inputs: args,
            results: Vec::new(),
        }))
    }

    fn globals(&mut self, globals: &[OpId]) -> Result<Sink, BytecodeError> {
        let mut s = Sink::default();
        s.varint(globals.len() as u64);
        for &g in globals {
            let ct = self.m.ops[g].kind.cuda_tile().expect("global");
            let name = ct
                .str("sym_name")
                .ok_or_else(|| err("'cuda_tile.global' op is missing its symbol name"))?;
            let what = format!("'cuda_tile.global' op '@{name}'");
            let dense = match ct.get("value") {
                Some(Attr::Dense(d)) => d.clone(),
                _ => return Err(err(format!("{what} has no dense 'value' attribute"))),
            };
            let constant = ct.flag("constant");
            let private = ct.keyword("symbol_visibility") == Some("private");
            if self.v < Version::V13_3 {
                // NVIDIA 13.3's wording (the legacy global record has no field for either).
                if constant {
                    return Err(err(format!(
                        "constant global `{name}` cannot be encoded in bytecode version {} (the `constant` attribute requires bytecode 13.3+)",
                        self.v
                    )));
                }
                if private {
                    return Err(err(format!(
                        "global `{name}` uses non-public symbol visibility, which cannot be encoded in bytecode version {} (requires bytecode 13.3+)",
                        self.v
                    )));
                }
            }
            let name_idx = self.string(name);
            let ty = self.dense_type_key(&dense, &what)?;
            let ty_idx = self.type_idx(&ty, &what)?;
            let raw = dense_raw(&dense, &what)?;
            let c = self.constant(raw);
            let alignment = ct.int("alignment").unwrap_or(0);
            if alignment < 0 {
                return Err(err(format!("{what}: alignment {alignment} is negative")));
            }
            s.varint(name_idx as u64);
            s.varint(ty_idx as u64);
            s.varint(c as u64);
            s.varint(alignment as u64);
            if self.v >= Version::V13_3 {
                s.varint(u64::from(private));
                s.varint(u64::from(constant));
            }
        }
        Ok(s)
    }

    /// `tile<shape x elem>` of a dense attribute, found among the module's types.
    fn dense_type_key(&mut self, d: &DenseElements, what: &str) -> Result<TypeKey, BytecodeError> {
        let _ = what;
        Ok(TypeKey::Ir(self.tt.intern(Type::Tile {
            shape: d.shape.clone(),
            elem: TileElem::Num(d.elem),
            layout: None,
        })))
    }

    fn function_body(&mut self, f: OpId, debug: bool) -> Result<Vec<u8>, BytecodeError> {
        self.debug_ops = debug;
        let mut num = Numbering {
            index: HashMap::new(),
            log: Vec::new(),
        };
        let Some(block) = self.m.entry_block(f, 0) else {
            return Err(err("'cuda_tile.entry' op has no body"));
        };
        // Values that some op uses: results that an older version cannot encode may be
        // dropped only when unused.
        let mut used = HashSet::new();
        let mut stack = vec![f];
        while let Some(op) = stack.pop() {
            used.extend(self.m.ops[op].operands.iter().copied());
            for &r in &self.m.ops[op].regions {
                for &b in &self.m.regions[r].blocks {
                    stack.extend(self.m.blocks[b].ops.iter().copied());
                }
            }
        }
        for &a in &self.m.blocks[block].args {
            num.define(a);
        }
        let mut s = Sink::default();
        for &op in &self.m.blocks[block].ops.clone() {
            self.op(&mut s, op, &mut num, &used)?;
        }
        Ok(s.buf)
    }

    fn block(
        &mut self,
        s: &mut Sink,
        b: BlockId,
        num: &mut Numbering,
        used: &HashSet<ValueId>,
    ) -> Result<(), BytecodeError> {
        let mark = num.mark();
        let args = self.m.blocks[b].args.clone();
        s.varint(args.len() as u64);
        for &a in &args {
            let t = self.type_idx(&TypeKey::Ir(self.m.value_type(a)), "block argument")?;
            s.varint(t as u64);
            num.define(a);
        }
        let ops = self.m.blocks[b].ops.clone();
        s.varint(ops.len() as u64);
        for op in ops {
            self.op(s, op, num, used)?;
        }
        num.pop_to(mark);
        Ok(())
    }

    fn op(
        &mut self,
        s: &mut Sink,
        op: OpId,
        num: &mut Numbering,
        used: &HashSet<ValueId>,
    ) -> Result<(), BytecodeError> {
        let data = &self.m.ops[op];
        let ct = match &data.kind {
            OpKind::CudaTile(ct) => ct.clone(),
            other => {
                // Reported at the enclosing module (see `write`), with a remark at the op.
                let mut e = err(format!(
                    "'cuda_tile.module' op only ops from the 'cuda_tile' dialect are allowed, found '{}'",
                    other.name()
                ));
                e.remark_op = Some(op);
                return Err(e);
            }
        };
        let schema = ct.schema();
        let name = format!("cuda_tile.{}", schema.mnemonic);
        if layout::is_structural(ct.op) {
            return Err(err(format!(
                "operation '{name}' cannot appear inside a function body in bytecode"
            )));
        }
        if schema.since > self.v {
            return Err(err(format!(
                "operation '{name}' is not available in bytecode version {}",
                self.v
            )));
        }
        let operands = data.operands.clone();
        let results = data.results.clone();
        let regions = data.regions.clone();
        s.varint(u64::from(schema.opcode));
        check_storable_loc(self.m.locs.get(self.m.ops[op].loc))?;
        if self.debug_ops {
            let loc = self.m.locs.get(self.m.ops[op].loc).clone();
            let i = match canonical_loc(&loc) {
                Some(l) => self.debug_loc(&l)?,
                None => 0,
            };
            self.debug_funcs.last_mut().expect("function slot").push(i);
        }

        // Results: those of groups the target version knows.
        let groups = result_groups(schema, results.len()).ok_or_else(|| {
            err(format!(
                "'{name}' op has {} results, which does not fit its result groups",
                results.len()
            ))
        })?;
        let mut kept = Vec::new();
        for (g, range) in schema.results.iter().zip(groups) {
            for &r in &results[range] {
                if g.since <= self.v {
                    kept.push(r);
                } else if used.contains(&r) {
                    return Err(err(format!(
                        "'{name}' op result '{}' requires bytecode version {} but is being used and targeting {}. \
                         Cannot serialize to older bytecode version when newer features are used.",
                        g.name, g.since, self.v
                    )));
                }
            }
        }
        if layout::has_result_count(schema) {
            s.varint(kept.len() as u64);
        }
        for &r in &kept {
            let t = self.type_idx(
                &TypeKey::Ir(self.m.value_type(r)),
                &format!("'{name}' op result"),
            )?;
            s.varint(t as u64);
        }

        // Operand groups.
        let seg = &ct.segments;
        let segmented = schema.has(tileir_ir::dialect::cuda_tile::schema::traits::SEGMENTED);
        let group_ranges = ct.operand_groups(operands.len()).ok_or_else(|| {
            err(format!(
                "'{name}' op has {} operands, which do not fit its operand groups{}",
                operands.len(),
                if segmented {
                    format!(" (segment sizes {:?})", seg)
                } else {
                    String::new()
                }
            ))
        })?;

        // Optional fields newer than the target must be absent.
        for (i, a) in schema.attrs.iter().enumerate() {
            let newer = a.since.max(schema.since) > self.v;
            if newer
                && (a.presence == Presence::Optional || a.kind == AttrKind::Unit)
                && attr_present(&ct, i)
            {
                return Err(err(format!(
                    "'{name}' op optional attribute '{}' is provided but requires bytecode version {}, targeting {}",
                    a.name, a.since, self.v
                )));
            }
        }
        for (g, range) in schema.operands.iter().zip(group_ranges.iter()) {
            if g.since > self.v && !range.is_empty() {
                return Err(err(format!(
                    "'{name}' op optional operand '{}' is provided but requires bytecode version {}, targeting {}",
                    g.name, g.since, self.v
                )));
            }
        }

        // Flags.
        let fields = layout::flag_fields(schema, self.v);
        if !fields.is_empty() {
            let mut flags = 0u64;
            for (bit, f) in fields.iter().enumerate() {
                let set = match *f {
                    FlagField::Attr(i) => attr_present(&ct, i),
                    FlagField::Operand(g) => !group_ranges[g].is_empty(),
                    FlagField::Saturating => false,
                };
                if set {
                    flags |= 1 << bit;
                }
            }
            s.varint(flags);
        }

        // Attributes.
        let result_type = results.first().map(|&r| self.m.value_type(r));
        for (i, a) in schema.attrs.iter().enumerate() {
            if a.kind == AttrKind::Unit {
                continue;
            }
            let value = ct.attr_values()[i].clone();
            let since = a.since.max(schema.since);
            if since > self.v {
                // Defaulted attributes newer than the target are omitted; they must hold
                // their default.
                let is_default = match (a.presence, &value) {
                    (Presence::Default(d), Some(v)) => attr_equals_default(a.kind, d, v),
                    (_, None) => true,
                    _ => false,
                };
                if !is_default {
                    return Err(err(format!(
                        "'{name}' op attribute '{}' requires bytecode version {}+, but targeting {}",
                        a.name, a.since, self.v
                    )));
                }
                continue;
            }
            match (a.presence, value) {
                (Presence::Optional, None) => {}
                (_, Some(v)) => {
                    let ctx = format!("'{name}' op attribute '{}'", a.name);
                    self.inline_attr(s, a.kind, &v, result_type, &ctx)?;
                }
                (_, None) => {
                    return Err(err(format!("'{name}' op requires attribute '{}'", a.name)));
                }
            }
        }
        if layout::has_inbounds(ct.op, self.v) {
            // 13.4 `inbounds`: one bool per index; tileir never promises in-bounds access.
            let g = schema
                .operands
                .iter()
                .position(|g| g.name == "index")
                .expect("view ops have an index group");
            s.varint(group_ranges[g].len() as u64);
            for _ in group_ranges[g].clone() {
                s.byte(0);
            }
        }

        // Operands.
        let idx = |num: &Numbering, v: ValueId| -> Result<u64, BytecodeError> {
            num.index.get(&v).copied().ok_or_else(|| {
                err(format!(
                    "'{name}' op uses value {v}, which is not defined before it in this scope"
                ))
            })
        };
        if segmented {
            for (g, range) in schema.operands.iter().zip(group_ranges.iter()) {
                match g.arity {
                    Arity::Variadic => {
                        s.varint(range.len() as u64);
                        for &o in &operands[range.clone()] {
                            s.varint(idx(num, o)?);
                        }
                    }
                    Arity::Optional | Arity::One => {
                        for &o in &operands[range.clone()] {
                            s.varint(idx(num, o)?);
                        }
                    }
                }
            }
        } else if !schema.operands.is_empty() {
            if schema.has_variable_operands() {
                s.varint(operands.len() as u64);
            }
            for &o in &operands {
                s.varint(idx(num, o)?);
            }
        }

        // Regions.
        if schema.regions > 0 {
            s.varint(regions.len() as u64);
            for r in regions {
                let blocks = self.m.regions[r].blocks.clone();
                s.varint(blocks.len() as u64);
                for b in blocks {
                    self.block(s, b, num, used)?;
                }
            }
        }
        for r in kept {
            num.define(r);
        }
        Ok(())
    }

    fn debug_record(&mut self, key: DebugKey, rec: Sink) -> u64 {
        let i = self.debug_records.len() as u64 + 1;
        self.debug_records.push(rec.buf);
        self.debug_index.insert(key, i);
        i
    }

    fn debug_file(&mut self, f: &DiFile) -> u64 {
        let key = DebugKey::File(f.clone());
        if let Some(&i) = self.debug_index.get(&key) {
            return i;
        }
        let mut r = Sink::default();
        r.varint(debug_tag::FILE);
        r.varint(self.string(&f.name) as u64);
        r.varint(self.string(&f.directory) as u64);
        self.debug_record(key, r)
    }

    fn debug_scope(&mut self, scope: &DiScope) -> u64 {
        let key = DebugKey::Scope(scope.clone());
        if let Some(&i) = self.debug_index.get(&key) {
            return i;
        }
        let mut r = Sink::default();
        match scope {
            DiScope::Subprogram(sp) => {
                let file = self.debug_file(&sp.file);
                let cu_key = DebugKey::CompileUnit(sp.compile_unit.clone());
                let cu = match self.debug_index.get(&cu_key) {
                    Some(&i) => i,
                    None => {
                        let f = self.debug_file(&sp.compile_unit.file);
                        let mut c = Sink::default();
                        c.varint(debug_tag::COMPILE_UNIT);
                        c.varint(f);
                        self.debug_record(cu_key, c)
                    }
                };
                r.varint(debug_tag::SUBPROGRAM);
                r.varint(file);
                r.varint(u64::from(sp.line));
                r.varint(self.string(&sp.name) as u64);
                r.varint(self.string(&sp.linkage_name) as u64);
                r.varint(cu);
                r.varint(u64::from(sp.scope_line.unwrap_or(0)));
            }
            DiScope::LexicalBlock(b) => {
                let parent = self.debug_scope(&b.scope);
                let file = self.debug_file(&b.file);
                r.varint(debug_tag::LEXICAL_BLOCK);
                r.varint(parent);
                r.varint(file);
                r.varint(u64::from(b.line));
                r.varint(u64::from(b.column.unwrap_or(0)));
            }
        }
        self.debug_record(key, r)
    }

    /// The debug index of a canonical location (a `di_loc` or a call site of two).
    fn debug_loc(&mut self, loc: &Location) -> Result<u64, BytecodeError> {
        let key = DebugKey::Loc(loc.clone());
        if let Some(&i) = self.debug_index.get(&key) {
            return Ok(i);
        }
        let mut r = Sink::default();
        match loc {
            Location::DiLoc { loc: pos, scope } => {
                let Location::FileLineCol { file, line, col } = &**pos else {
                    return Err(err(format!(
                        "unsupported location, got {loc}: a di_loc must wrap a file location"
                    )));
                };
                let sc = self.debug_scope(scope);
                r.varint(debug_tag::LOC);
                r.varint(sc);
                r.varint(self.string(file) as u64);
                r.varint(u64::from(*line));
                r.varint(u64::from(*col));
            }
            Location::CallSite { callee, caller } => {
                let a = self.debug_loc(callee)?;
                let b = self.debug_loc(caller)?;
                r.varint(debug_tag::CALL_SITE);
                r.varint(a);
                r.varint(b);
            }
            other => return Err(err(format!("unsupported location, got {other}"))),
        }
        Ok(self.debug_record(key, r))
    }

    /// An attribute inside an op record, whose kind the schema fixes.
    fn inline_attr(
        &mut self,
        s: &mut Sink,
        kind: AttrKind,
        v: &Attr,
        result_type: Option<TypeId>,
        ctx: &str,
    ) -> Result<(), BytecodeError> {
        let wrong = |want: &str| err(format!("{ctx} must be {want}, got {}", v.kind_name()));
        match (kind, v) {
            (AttrKind::Bool, Attr::Bool(b)) => s.byte(u8::from(*b)),
            (AttrKind::I32, Attr::Int(n)) => {
                let x = i32::try_from(*n)
                    .map_err(|_| err(format!("{ctx} value {n} does not fit in i32")))?;
                s.varint(u64::from(x as u32));
            }
            (AttrKind::I64, Attr::Int(n)) => s.varint(*n as u64),
            (AttrKind::Str | AttrKind::SymbolRef, Attr::Str(x) | Attr::Symbol(x)) => {
                let i = self.string(x);
                s.varint(i as u64);
            }
            (AttrKind::Enum(e), Attr::Enum(_, kw)) => {
                let value = e
                    .value_of(kw)
                    .ok_or_else(|| err(format!("{ctx} has unknown value '{kw}'")))?;
                s.varint(u64::from(value));
            }
            (AttrKind::Enum(e), Attr::Str(kw)) => {
                let value = e
                    .value_of(kw)
                    .ok_or_else(|| err(format!("{ctx} has unknown value '{kw}'")))?;
                s.varint(u64::from(value));
            }
            (AttrKind::I32Array, Attr::IntArray(xs)) => {
                s.varint(xs.len() as u64);
                for &x in xs {
                    let x = i32::try_from(x)
                        .map_err(|_| err(format!("{ctx} value {x} does not fit in i32")))?;
                    s.bytes(&x.to_le_bytes());
                }
            }
            (AttrKind::Dense, Attr::Dense(d)) => {
                if let Some(t) = result_type {
                    let want = Type::Tile {
                        shape: d.shape.clone(),
                        elem: TileElem::Num(d.elem),
                        layout: None,
                    };
                    if self.tt.try_get(t) != Some(&want) {
                        return Err(err(format!(
                            "{ctx}: the value's type tile<{}> differs from the result type {}",
                            dense_shape_text(d),
                            self.type_name(t)
                        )));
                    }
                }
                let raw = dense_raw(d, ctx)?;
                let c = self.constant(raw);
                s.varint(c as u64);
            }
            (AttrKind::ScalarArray, Attr::Array(items)) => {
                s.varint(items.len() as u64);
                for item in items {
                    self.tagged(s, item, ctx, 1)?;
                }
            }
            (AttrKind::Hints, Attr::Dict(d)) => self.dict_payload(s, d, ctx, 0)?,
            (AttrKind::AssumePredicate, Attr::Assume(_)) => self.tagged(s, v, ctx, 0)?,
            (AttrKind::Bool, _) => return Err(wrong("a bool")),
            (AttrKind::I32 | AttrKind::I64, _) => return Err(wrong("an integer")),
            (AttrKind::Str | AttrKind::SymbolRef, _) => return Err(wrong("a string")),
            (AttrKind::Enum(e), _) => return Err(wrong(&format!("a {} value", enum_name(e)))),
            (AttrKind::I32Array, _) => return Err(wrong("an i32 array")),
            (AttrKind::Dense, _) => return Err(wrong("dense elements")),
            (AttrKind::ScalarArray, _) => return Err(wrong("an array of typed scalars")),
            (AttrKind::Hints, _) => return Err(wrong("optimization hints")),
            (AttrKind::AssumePredicate, _) => return Err(wrong("an assume predicate")),
            (AttrKind::Unit | AttrKind::FunctionType | AttrKind::DictArray, _) => {
                return Err(err(format!("{ctx} cannot be encoded inside an op record")))
            }
        }
        Ok(())
    }

    fn dict_payload(
        &mut self,
        s: &mut Sink,
        d: &[(String, Attr)],
        ctx: &str,
        depth: usize,
    ) -> Result<(), BytecodeError> {
        s.varint(d.len() as u64);
        for (k, v) in d {
            if k.is_empty() {
                return Err(err(format!("{ctx}: dictionary has an empty key")));
            }
            let i = self.string(k);
            s.varint(i as u64);
            self.tagged(s, v, &format!("{ctx} entry '{k}'"), depth + 1)?;
        }
        Ok(())
    }

    /// A self-describing ("tagged") attribute.
    fn tagged(
        &mut self,
        s: &mut Sink,
        v: &Attr,
        ctx: &str,
        depth: usize,
    ) -> Result<(), BytecodeError> {
        if depth > format::MAX_NESTING {
            return Err(err(format!(
                "{ctx}: attributes nest more than {} levels deep",
                format::MAX_NESTING
            )));
        }
        match v {
            Attr::Int(n) => {
                let t = self.num_idx(NumType::I64)?;
                s.varint(attr_tag::INTEGER);
                s.varint(t as u64);
                s.varint(*n as u64);
            }
            Attr::Scalar(n, bits) => {
                let t = self.num_idx(*n)?;
                if n.is_int() {
                    s.varint(attr_tag::INTEGER);
                    s.varint(t as u64);
                    s.varint(bits & format::mask(n.bit_width()));
                } else {
                    s.varint(attr_tag::FLOAT);
                    s.varint(t as u64);
                    let ap = format::storage_to_ap(*n, *bits);
                    if format::ap_width(*n) <= 8 {
                        s.byte(ap as u8);
                    } else {
                        s.svarint(ap as i64);
                    }
                }
            }
            Attr::Bool(b) => {
                s.varint(attr_tag::BOOL);
                s.byte(u8::from(*b));
            }
            Attr::Type(t) => {
                let i = self.type_idx(&TypeKey::Ir(*t), ctx)?;
                s.varint(attr_tag::TYPE);
                s.varint(i as u64);
            }
            Attr::Str(x) => {
                let i = self.string(x);
                s.varint(attr_tag::STRING);
                s.varint(i as u64);
            }
            Attr::Array(items) => {
                s.varint(attr_tag::ARRAY);
                s.varint(items.len() as u64);
                for item in items {
                    self.tagged(s, item, ctx, depth + 1)?;
                }
            }
            Attr::Dense(d) => {
                let key = self.dense_type_key(d, ctx)?;
                let t = self.type_idx(&key, ctx)?;
                let raw = dense_raw(d, ctx)?;
                let c = self.constant(raw);
                s.varint(attr_tag::DENSE);
                s.varint(t as u64);
                s.varint(c as u64);
            }
            Attr::Dict(d) => {
                s.varint(attr_tag::DICTIONARY);
                self.dict_payload(s, d, ctx, depth)?;
            }
            Attr::Assume(p) => match p {
                AssumePredicate::DivBy {
                    divisor,
                    every_along,
                } => {
                    s.varint(attr_tag::DIV_BY);
                    s.varint(*divisor);
                    match every_along {
                        Some((e, a)) => {
                            s.byte(3);
                            s.svarint(*e);
                            s.svarint(*a);
                        }
                        None => s.byte(0),
                    }
                }
                AssumePredicate::SameElements(xs) => {
                    s.varint(attr_tag::SAME_ELEMENTS);
                    s.varint(xs.len() as u64);
                    for x in xs {
                        s.bytes(&x.to_le_bytes());
                    }
                }
                AssumePredicate::Bounded(lb, ub) => {
                    s.varint(attr_tag::BOUNDED);
                    s.byte(u8::from(lb.is_some()) | (u8::from(ub.is_some()) << 1));
                    if let Some(x) = lb {
                        s.svarint(*x);
                    }
                    if let Some(x) = ub {
                        s.svarint(*x);
                    }
                }
            },
            Attr::Unit | Attr::Enum(..) | Attr::IntArray(_) | Attr::Symbol(_) | Attr::Opaque(_) => {
                return Err(err(format!(
                    "{ctx}: a {} attribute has no bytecode encoding",
                    v.kind_name()
                )));
            }
        }
        Ok(())
    }
}

/// Interning key of a debug record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum DebugKey {
    File(DiFile),
    CompileUnit(DiCompileUnit),
    Scope(DiScope),
    Loc(Location),
}

/// Refuses a name or fused location anywhere in `loc` (through call sites), as NVIDIA
/// 13.3's writer does for every op, scoped or not: the format has no record for them and
/// dropping them silently would lose what the producer meant.
fn check_storable_loc(loc: &Location) -> Result<(), BytecodeError> {
    match loc {
        Location::Fused(_) => Err(err(
            "unsupported location, got FusedLoc, expected DILocAttr or CallSiteLoc",
        )),
        Location::Name { .. } => Err(err(
            "unsupported location, got NameLoc, expected DILocAttr or CallSiteLoc",
        )),
        Location::CallSite { callee, caller } => {
            check_storable_loc(callee)?;
            check_storable_loc(caller)
        }
        Location::DiLoc { .. } | Location::Unknown | Location::FileLineCol { .. } => Ok(()),
    }
}

/// What the format can keep of a location, as NVIDIA's writer canonicalizes it: a
/// `di_loc`, or a call site whose both sides canonicalize (name and fused locations are
/// refused before, by [`check_storable_loc`]); anything else is unknown.
fn canonical_loc(loc: &Location) -> Option<Location> {
    match loc {
        Location::DiLoc { .. } => Some(loc.clone()),
        Location::Name { child, .. } => child.as_deref().and_then(canonical_loc),
        Location::Fused(parts) => parts.iter().find_map(canonical_loc),
        Location::CallSite { callee, caller } => Some(Location::CallSite {
            callee: Box::new(canonical_loc(callee)?),
            caller: Box::new(canonical_loc(caller)?),
        }),
        Location::Unknown | Location::FileLineCol { .. } => None,
    }
}

fn attr_present(ct: &CudaTileOp, i: usize) -> bool {
    match &ct.attr_values()[i] {
        None => false,
        Some(Attr::Bool(false)) => ct.schema().attrs[i].kind != AttrKind::Unit,
        Some(_) => true,
    }
}

fn attr_equals_default(kind: AttrKind, default: &str, v: &Attr) -> bool {
    match (kind, v) {
        (AttrKind::Enum(_), a) => a.as_keyword() == Some(default),
        (AttrKind::I32 | AttrKind::I64, Attr::Int(n)) => default.parse::<i64>().ok() == Some(*n),
        (AttrKind::Bool, Attr::Bool(b)) => (default == "true") == *b,
        _ => false,
    }
}

fn enum_name(e: EnumKind) -> &'static str {
    e.mnemonic()
}

/// Index ranges of each result group, given the result count (at most one group is
/// variable-sized in the schema).
pub(crate) fn result_groups(schema: &OpSchema, n: usize) -> Option<Vec<std::ops::Range<usize>>> {
    let fixed = schema
        .results
        .iter()
        .filter(|g| g.arity == Arity::One)
        .count();
    let variable = schema.results.len() - fixed;
    if n < fixed || variable > 1 || (variable == 0 && n != fixed) {
        return None;
    }
    let mut start = 0;
    Some(
        schema
            .results
            .iter()
            .map(|g| {
                let len = if g.arity == Arity::One { 1 } else { n - fixed };
                let r = start..start + len;
                start += len;
                r
            })
            .collect(),
    )
}

fn padding_value(p: tileir_ir::PaddingValue) -> u64 {
    tileir_ir::PaddingValue::ALL
        .iter()
        .position(|&q| q == p)
        .expect("listed") as u64
}

fn dim_map_or_identity(dim_map: &[i64], rank: usize) -> Vec<i64> {
    if dim_map.is_empty() {
        (0..rank as i64).collect()
    } else {
        dim_map.to_vec()
    }
}

fn dense_shape_text(d: &DenseElements) -> String {
    let mut s = String::new();
    for x in &d.shape {
        s.push_str(&format!("{x}x"));
    }
    s.push_str(d.elem.keyword());
    s
}

/// MLIR's raw buffer of a dense elements attribute: little-endian elements of their
/// `APInt`/`APFloat` width rounded up to bytes, a splat (all elements equal) stored once;
/// i1 bit-packed.
pub(crate) fn dense_raw(d: &DenseElements, ctx: &str) -> Result<Vec<u8>, BytecodeError> {
    let n = d.num_elements();
    if d.bits.is_empty() || (d.bits.len() != 1 && d.bits.len() != n) {
        return Err(err(format!(
            "{ctx}: dense value of tile<{}> holds {} elements, expected 1 or {n}",
            dense_shape_text(d),
            d.bits.len()
        )));
    }
    if d.elem == NumType::I1 {
        // MLIR's (and NVIDIA's tools') i1 layout: a splat is one byte 0x00/0xFF, anything
        // else is bit-packed, element i in bit i % 8 of byte i / 8.
        let bit = |i: usize| d.get(i) & 1;
        if (0..n).all(|i| bit(i) == bit(0)) {
            return Ok(vec![if bit(0) == 1 { 0xFF } else { 0x00 }]);
        }
        let mut out = vec![0u8; n.div_ceil(8)];
        for i in 0..n {
            out[i / 8] |= (bit(i) as u8) << (i % 8);
        }
        return Ok(out);
    }
    let w = format::dense_bytes(d.elem);
    let splat = d
        .bits
        .iter()
        .all(|&b| format::storage_to_ap(d.elem, b) == format::storage_to_ap(d.elem, d.bits[0]));
    let items: &[u64] = if splat { &d.bits[..1] } else { &d.bits };
    let mut out = Vec::with_capacity(items.len() * w);
    for &b in items {
        let ap = format::storage_to_ap(d.elem, b);
        out.extend_from_slice(&ap.to_le_bytes()[..w]);
    }
    Ok(out)
}
