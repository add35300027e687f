//! The reader: bytes → `Module`. Sections are located first (any order), then parsed
//! String → Producer → Type → Constant → Global → Func → Debug, as NVIDIA's reader does.
//! Every failure is an error naming the byte offset; counts are bounded by the bytes
//! that remain and nesting by [`format::MAX_NESTING`].

use crate::format::{self, attr_tag, debug_tag, func_flag, section, type_tag};
use crate::layout::{self, FlagField};
use crate::wire::Cursor;
use crate::BytecodeError;
use tileir_ir::dialect::cuda_tile::schema::{
    traits, Arity, AttrKind, Presence, TypeConstraint, Version,
};
use tileir_ir::dialect::cuda_tile::AssumePredicate;
use tileir_ir::location::{DiCompileUnit, DiFile, DiLexicalBlock, DiScope, DiSubprogram};
use tileir_ir::types::{GatherScatterViewType, StridedViewType};
use tileir_ir::{
    Attr, BlockId, CtOp, CudaTileOp, DenseElements, Dim, LocId, Location, Module, NumType, OpId,
    OpKind, PaddingValue, PartitionViewType, TensorViewType, TileElem, Type, TypeId, ValueId,
};

/// An offset table's layout: where its data starts, its length, and each record's offset
/// with the position it was read at.
type TableOffsets = (usize, u64, Vec<(usize, u64)>);

/// A decoded type-table entry.
#[derive(Copy, Clone, Debug)]
enum BcType {
    /// An element type (also usable as a builtin scalar type).
    Num(NumType),
    /// `ptr<T>`: only valid as a tile element.
    Ptr(NumType),
    /// Any other type, interned in the module.
    Ir(TypeId),
}

struct Reader<'a> {
    data: &'a [u8],
    v: Version,
    m: Module,
    strings: Vec<&'a str>,
    types: Vec<BcType>,
    /// (absolute offset, length) of each constant's raw bytes.
    consts: Vec<(usize, usize)>,
    /// Per function, in file order: its op and its ops in pre-order (debug order).
    funcs: Vec<FuncInfo>,
}

/// A decoded debug record.
enum DebugRec {
    File(DiFile),
    CompileUnit(DiCompileUnit),
    Scope(DiScope),
    Loc(Location),
}

/// Upper bound on the total size of decoded debug records (records copy what they
/// reference; a hostile chain must not make that quadratic in memory).
const MAX_DEBUG_WEIGHT: u64 = 1 << 22;

struct FuncInfo {
    name: String,
    entry: OpId,
    debug_slot: u64,
    slot_at: usize,
    ops: Vec<OpId>,
}

pub(crate) fn read(data: &[u8]) -> Result<Module, BytecodeError> {
    let mut top = Cursor::new(data, 0, data.len());
    let magic = top
        .bytes(8.min(data.len()), "the magic number")
        .unwrap_or(&[]);
    if magic != format::MAGIC {
        return Err(BytecodeError::at(
            0,
            "invalid magic number, expected \\x7FTileIR\\0",
        ));
    }
    let major = top.u8("the major version")?;
    let minor = top.u8("the minor version")?;
    let tag = top.u16le("the version tag")?;
    let v = Version { major, minor };
    if !crate::is_known_version(v) {
        return Err(BytecodeError::at(
            8,
            format!("unsupported Tile version {major}.{minor}.{tag}, this reader supports versions {}", crate::SUPPORTED_RANGE),
        ));
    }

    // Locate sections.
    let mut found: [Option<Cursor<'_>>; 8] = Default::default();
    loop {
        let at = top.pos;
        let byte = top.u8("a section id (or the end marker 0x00)")?;
        let id = byte & 0x7F;
        let aligned = byte & 0x80 != 0;
        if id == section::END {
            if !top.at_end() {
                return Err(BytecodeError::at(
                    at,
                    format!(
                        "end section is not the last section ({} bytes follow it)",
                        top.remaining()
                    ),
                ));
            }
            break;
        }
        let max_id = if v >= Version::V13_3 {
            section::PRODUCER
        } else {
            section::GLOBAL
        };
        if id > max_id {
            return Err(BytecodeError::at(at, format!("unknown section ID: {id}")));
        }
        let len_at = top.pos;
        let len = top.varint("the section length")?;
        let mut align = 1u64;
        if aligned {
            let align_at = top.pos;
            align = top.varint("the section alignment")?;
            if align == 0 || !align.is_power_of_two() || align > 4096 {
                return Err(BytecodeError::at(
                    align_at,
                    format!("invalid alignment {align} for the {} section, expected a power of two up to 4096", section::name(id)),
                ));
            }
            let pad = (align as usize - top.pos % align as usize) % align as usize;
            top.bytes(pad, "section alignment padding")?;
        }
        let required = match id {
            section::STRING | section::TYPE => 4,
            section::CONSTANT | section::DEBUG | section::FUNC => 8,
            _ => 1,
        };
        if align % required != 0 {
            return Err(BytecodeError::at(
                at,
                format!(
                    "the {} section must be aligned to a multiple of {required} bytes, got alignment {align}",
                    section::name(id)
                ),
            ));
        }
        if len > top.remaining() as u64 {
            return Err(BytecodeError::at(
                len_at,
                format!(
                    "{} section length {len} exceeds the {} bytes left in the file",
                    section::name(id),
                    top.remaining()
                ),
            ));
        }
        let payload = top.sub(len as usize, "the section payload")?;
        if found[id as usize].is_some() {
            return Err(BytecodeError::at(
                at,
                format!("duplicate {} section", section::name(id)),
            ));
        }
        found[id as usize] = Some(payload);
    }

    let mut r = Reader {
        data,
        v,
        m: Module::new(),
        strings: Vec::new(),
        types: Vec::new(),
        consts: Vec::new(),
        funcs: Vec::new(),
    };
    let end = data.len();
    let string = found[section::STRING as usize]
        .clone()
        .ok_or_else(|| BytecodeError::at(end, "missing string section"))?;
    r.string_section(string)?;
    let mut producer = None;
    if let Some(mut c) = found[section::PRODUCER as usize].clone() {
        let s = r.string(&mut c, "the producer string index")?;
        producer = Some(s.to_string());
        r.expect_end(&c, "the producer section")?;
    }
    if let Some(c) = found[section::TYPE as usize].clone() {
        r.type_section(c)?;
    }
    if let Some(c) = found[section::CONSTANT as usize].clone() {
        r.constant_section(c)?;
    }

    // The module op.
    let unknown = r.m.locs.unknown();
    let mut module = CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()));
    if let Some(p) = producer {
        module.set("producer", Attr::Str(p));
    }
    let mop =
        r.m.create_op(OpKind::CudaTile(module), vec![], &[], unknown);
    let body = r.m.body;
    r.m.append_op(body, mop);
    let region = r.m.ops[mop].regions[0];
    let mblock = r.m.add_block(region, &[]);

    if let Some(c) = found[section::GLOBAL as usize].clone() {
        r.global_section(c, mblock)?;
    }
    let func = found[section::FUNC as usize]
        .clone()
        .ok_or_else(|| BytecodeError::at(end, "missing function section"))?;
    r.func_section(func, mblock)?;
    if let Some(c) = found[section::DEBUG as usize].clone() {
        r.debug_section(c)?;
    } else if let Some(f) = r.funcs.iter().find(|f| f.debug_slot != 0) {
        return Err(BytecodeError::at(
            f.slot_at,
            format!(
                "function '{}' refers to debug slot {} but the file has no debug section",
                f.name, f.debug_slot
            ),
        ));
    }
    Ok(r.m)
}

fn enum_value<T: Copy>(all: &[T], v: u64, what: &str, at: usize) -> Result<T, BytecodeError> {
    all.get(v as usize).copied().ok_or_else(|| {
        BytecodeError::at(
            at,
            format!("invalid {what} value {v}, expected 0..{}", all.len() - 1),
        )
    })
}

impl<'a> Reader<'a> {
    fn expect_end(&self, c: &Cursor<'_>, what: &str) -> Result<(), BytecodeError> {
        if !c.at_end() {
            return Err(c.err(format!(
                "{} unexpected trailing bytes in {what}",
                c.remaining()
            )));
        }
        Ok(())
    }

    fn string(&self, c: &mut Cursor<'_>, what: &str) -> Result<&'a str, BytecodeError> {
        let i = c.index(what, self.strings.len())?;
        Ok(self.strings[i])
    }

    /// An offset table: count, padding to `width`, `count` offsets of `width` bytes;
    /// returns the records as sub-cursors (each runs to the next offset, the last to the
    /// end of the payload).
    fn table(
        &self,
        c: &mut Cursor<'a>,
        width: usize,
        what: &str,
    ) -> Result<Vec<Cursor<'a>>, BytecodeError> {
        let (base, len, offsets) = self.table_offsets(c, width, what)?;
        let n = offsets.len();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let (at, start) = offsets[i];
            let stop = if i + 1 < n { offsets[i + 1].1 } else { len };
            if start > stop || stop > len {
                return Err(BytecodeError::at(
                    at,
                    format!(
                        "{what} offset {start} is out of order or beyond the {len} bytes of data"
                    ),
                ));
            }
            out.push(Cursor::new(
                self.data,
                base + start as usize,
                base + stop as usize,
            ));
        }
        Ok(out)
    }

    /// The layout of an offset table: where its data starts, how long it is, and each
    /// record's offset (with the position it was read at).
    fn table_offsets(&self, c: &mut Cursor<'a>, width: usize, what: &str) -> Result<TableOffsets, BytecodeError> {
        let n = c.count(&format!("number of {what}"), width)?;
        c.align(width, &format!("padding before the {what} offsets"))?;
        let mut offsets = Vec::with_capacity(n);
        for _ in 0..n {
            let at = c.pos;
            let off = if width == 4 {
                u64::from(c.u32le("an offset")?)
            } else {
                c.u64le("an offset")?
            };
            offsets.push((at, off));
        }
        Ok((c.pos, c.remaining() as u64, offsets))
    }

    /// Strings are sliced as NVIDIA's reader slices them (LLVM `StringRef::slice`): an
    /// offset past the data or before the previous one clamps to an empty string rather
    /// than failing, so a damaged table is reported where a string is misused (an empty
    /// dictionary key, say), as NVIDIA's tools report it.
    fn string_section(&mut self, mut c: Cursor<'a>) -> Result<(), BytecodeError> {
        let (base, len, offsets) = self.table_offsets(&mut c, 4, "strings")?;
        let n = offsets.len();
        for i in 0..n {
            let (at, start) = offsets[i];
            let stop = if i + 1 < n { offsets[i + 1].1 } else { len };
            let start = start.min(len);
            let stop = stop.clamp(start, len);
            let bytes = &self.data[base + start as usize..base + stop as usize];
            let s = std::str::from_utf8(bytes)
                .map_err(|_| BytecodeError::at(at, "string is not valid UTF-8"))?;
            self.strings.push(s);
        }
        Ok(())
    }

    fn type_section(&mut self, mut c: Cursor<'a>) -> Result<(), BytecodeError> {
        let entries = self.table(&mut c, 4, "types")?;
        for (i, mut e) in entries.into_iter().enumerate() {
            let t = self.type_record(&mut e, i)?;
            self.expect_end(&e, &format!("type record {i}"))?;
            self.types.push(t);
        }
        Ok(())
    }

    fn require_type(&self, since: Version, name: &str, at: usize) -> Result<(), BytecodeError> {
        if self.v < since {
            return Err(BytecodeError::at(
                at,
                format!(
                    "type '{name}' requires bytecode version {since}+, file version is {}",
                    self.v
                ),
            ));
        }
        Ok(())
    }

    /// A reference to an earlier type record (records only reference lower indices).
    fn type_ref(
        &self,
        c: &mut Cursor<'_>,
        what: &str,
        current: usize,
    ) -> Result<BcType, BytecodeError> {
        let i = c.index(what, current)?;
        Ok(self.types[i])
    }

    fn num_ref(
        &self,
        c: &mut Cursor<'_>,
        what: &str,
        current: usize,
    ) -> Result<NumType, BytecodeError> {
        let at = c.pos;
        match self.type_ref(c, what, current)? {
            BcType::Num(n) => Ok(n),
            other => Err(BytecodeError::at(
                at,
                format!(
                    "{what} must be an element type, got {}",
                    self.bc_name(other)
                ),
            )),
        }
    }

    fn bc_name(&self, t: BcType) -> String {
        match t {
            BcType::Num(n) => n.keyword().to_string(),
            BcType::Ptr(n) => format!("ptr<{n}>"),
            BcType::Ir(t) => self.m.types.display(t, true),
        }
    }

    fn i64_list(&self, c: &mut Cursor<'_>, what: &str) -> Result<Vec<i64>, BytecodeError> {
        let n = c.count(&format!("number of {what}"), 8)?;
        (0..n).map(|_| c.i64le(what)).collect()
    }

    /// A dense i32 array (attribute values, and the integer lists of view types). As in
    /// NVIDIA's reader, INT32_MIN and INT32_MAX are refused: they are reserved sentinels.
    fn i32_list(&self, c: &mut Cursor<'_>, what: &str) -> Result<Vec<i64>, BytecodeError> {
        let n = c.count(&format!("number of {what}"), 4)?;
        (0..n)
            .map(|_| {
                let at = c.pos;
                let v = c.i32le(what)?;
                if v == i32::MIN || v == i32::MAX {
                    return Err(BytecodeError::at(at, format!("array contains unsupported value {v}")));
                }
                Ok(i64::from(v))
            })
            .collect()
    }

    fn tensor_view_ref(&self, c: &mut Cursor<'_>, current: usize) -> Result<TypeId, BytecodeError> {
        let at = c.pos;
        match self.type_ref(c, "tensor view type index", current)? {
            BcType::Ir(t) if matches!(self.m.types.get(t), Type::TensorView(_)) => Ok(t),
            other => Err(BytecodeError::at(
                at,
                format!("expected a tensor_view type, got {}", self.bc_name(other)),
            )),
        }
    }

    fn padding(&self, c: &mut Cursor<'_>) -> Result<PaddingValue, BytecodeError> {
        let at = c.pos;
        let p = c.varint("a padding value")?;
        enum_value(&PaddingValue::ALL, p, "padding_value", at)
    }

    /// Optional-parameter flags of view types (13.3+): only bit 0 (padding) is defined.
    fn view_flags(&self, c: &mut Cursor<'_>) -> Result<bool, BytecodeError> {
        let at = c.pos;
        let f = c.varint("the optional-parameter flags")?;
        if f > 1 {
            return Err(BytecodeError::at(
                at,
                format!("unknown optional-parameter flags {f:#x}, expected 0 or 1"),
            ));
        }
        Ok(f == 1)
    }

    /// 13.4 pointer attribute of ptr and tensor_view types: flags, then (if set) the
    /// attribute value; only the default (0) is known, and tileir does not model it.
    fn ptr_attr_flags(&self, c: &mut Cursor<'_>) -> Result<bool, BytecodeError> {
        if self.v < layout::V13_4 {
            return Ok(false);
        }
        self.view_flags(c)
    }

    fn ptr_attr_value(&self, c: &mut Cursor<'_>, present: bool) -> Result<(), BytecodeError> {
        if present {
            let at = c.pos;
            let a = c.u8("the pointer attribute")?;
            if a != 0 {
                return Err(BytecodeError::at(
                    at,
                    format!("unsupported pointer attribute value {a}, expected 0 (default)"),
                ));
            }
        }
        Ok(())
    }

    fn type_record(&mut self, c: &mut Cursor<'_>, current: usize) -> Result<BcType, BytecodeError> {
        let at = c.pos;
        let tag = c.varint("a type tag")?;
        if let Some(n) = format::num_of_tag(tag) {
            self.require_type(format::num_since(n), format::num_type_name(n), at)?;
            return Ok(BcType::Num(n));
        }
        let ty = match tag {
            type_tag::PTR => {
                let flagged = self.ptr_attr_flags(c)?;
                let n = self.num_ref(c, "pointee type index", current)?;
                self.ptr_attr_value(c, flagged)?;
                return Ok(BcType::Ptr(n));
            }
            type_tag::TILE => {
                let e_at = c.pos;
                let elem = match self.type_ref(c, "tile element type index", current)? {
                    BcType::Num(n) => TileElem::Num(n),
                    BcType::Ptr(n) => TileElem::Ptr(n),
                    other => {
                        return Err(BytecodeError::at(
                            e_at,
                            format!(
                                "tile element must be a number or pointer type, got {}",
                                self.bc_name(other)
                            ),
                        ))
                    }
                };
                let shape = self.i64_list(c, "tile dimensions")?;
                Type::Tile {
                    shape,
                    elem,
                    layout: None,
                }
            }
            type_tag::TENSOR_VIEW => {
                let flagged = self.ptr_attr_flags(c)?;
                let elem = self.num_ref(c, "tensor_view element type index", current)?;
                let dims = |v: Vec<i64>| {
                    v.into_iter()
                        .map(|x| {
                            if x == i64::MIN {
                                Dim::Dynamic
                            } else {
                                Dim::Static(x)
                            }
                        })
                        .collect()
                };
                let shape = dims(self.i64_list(c, "tensor_view dimensions")?);
                let strides = dims(self.i64_list(c, "tensor_view strides")?);
                self.ptr_attr_value(c, flagged)?;
                Type::TensorView(TensorViewType {
                    elem,
                    shape,
                    strides,
                })
            }
            type_tag::PARTITION_VIEW => {
                let unified = self.v >= Version::V13_3;
                let flagged = if unified { self.view_flags(c)? } else { false };
                let tile_shape = self.i32_list(c, "tile shape entries")?;
                let tensor_view = self.tensor_view_ref(c, current)?;
                let dim_map = self.i32_list(c, "dim_map entries")?;
                let has_padding = if unified {
                    flagged
                } else {
                    let p_at = c.pos;
                    match c.u8("the padding presence byte")? {
                        0 => false,
                        1 => true,
                        x => {
                            return Err(BytecodeError::at(
                                p_at,
                                format!("padding presence byte must be 0 or 1, got {x}"),
                            ))
                        }
                    }
                };
                let padding = if has_padding {
                    Some(self.padding(c)?)
                } else {
                    None
                };
                Type::PartitionView(PartitionViewType {
                    tile_shape,
                    tensor_view,
                    dim_map,
                    padding,
                })
            }
            type_tag::STRIDED_VIEW => {
                self.require_type(Version::V13_3, "StridedView", at)?;
                let flagged = self.view_flags(c)?;
                let tile_shape = self.i32_list(c, "tile shape entries")?;
                let traversal_strides = self.i32_list(c, "traversal strides")?;
                let tensor_view = self.tensor_view_ref(c, current)?;
                let dim_map = self.i32_list(c, "dim_map entries")?;
                let padding = if flagged {
                    Some(self.padding(c)?)
                } else {
                    None
                };
                Type::StridedView(StridedViewType {
                    tile_shape,
                    traversal_strides,
                    tensor_view,
                    dim_map,
                    padding,
                })
            }
            type_tag::GATHER_SCATTER_VIEW => {
                self.require_type(Version::V13_3, "GatherScatterView", at)?;
                let flagged = self.view_flags(c)?;
                let tile_shape = self.i32_list(c, "tile shape entries")?;
                let tensor_view = self.tensor_view_ref(c, current)?;
                let sd_at = c.pos;
                let sparse_dim = c.varint("sparse_dim")?;
                if sparse_dim > u64::from(u32::MAX) {
                    return Err(BytecodeError::at(
                        sd_at,
                        format!("sparse_dim {sparse_dim} does not fit in u32"),
                    ));
                }
                let padding = if flagged {
                    Some(self.padding(c)?)
                } else {
                    None
                };
                Type::GatherScatterView(GatherScatterViewType {
                    tile_shape,
                    tensor_view,
                    sparse_dim: sparse_dim as i64,
                    padding,
                })
            }
            type_tag::FUNCTION => {
                let n = c.count("number of function inputs", 1)?;
                let mut inputs = Vec::with_capacity(n);
                for _ in 0..n {
                    inputs.push(self.value_type_ref(c, "function input type index", current)?);
                }
                let n = c.count("number of function results", 1)?;
                let mut results = Vec::with_capacity(n);
                for _ in 0..n {
                    results.push(self.value_type_ref(c, "function result type index", current)?);
                }
                Type::Function { inputs, results }
            }
            type_tag::TOKEN => Type::Token,
            type_tag::F8E5M3FNU => {
                return Err(BytecodeError::at(
                    at,
                    "type 'f8E5M3FNU' (a 13.4 developer preview) is not supported by tileir",
                ))
            }
            other => return Err(BytecodeError::at(at, format!("unknown type tag {other}"))),
        };
        Ok(BcType::Ir(self.m.types.intern(ty)))
    }

    /// A type usable for values: element types become builtin scalars, pointers are
    /// rejected.
    fn as_value_type(&mut self, t: BcType, at: usize, what: &str) -> Result<TypeId, BytecodeError> {
        match t {
            BcType::Num(n) => Ok(self.m.types.scalar(n)),
            BcType::Ir(t) => Ok(t),
            BcType::Ptr(n) => Err(BytecodeError::at(
                at,
                format!("{what}: ptr<{n}> is only valid as a tile element"),
            )),
        }
    }

    fn value_type_ref(
        &mut self,
        c: &mut Cursor<'_>,
        what: &str,
        current: usize,
    ) -> Result<TypeId, BytecodeError> {
        let at = c.pos;
        let t = self.type_ref(c, what, current)?;
        self.as_value_type(t, at, what)
    }

    fn value_type(&mut self, c: &mut Cursor<'_>, what: &str) -> Result<TypeId, BytecodeError> {
        let n = self.types.len();
        self.value_type_ref(c, what, n)
    }

    fn constant_section(&mut self, mut c: Cursor<'a>) -> Result<(), BytecodeError> {
        let entries = self.table(&mut c, 8, "constants")?;
        for (i, mut e) in entries.into_iter().enumerate() {
            let n = e.count("the constant's byte size", 1)?;
            let at = e.pos;
            e.bytes(n, "constant data")?;
            self.expect_end(&e, &format!("constant {i}"))?;
            self.consts.push((at, n));
        }
        Ok(())
    }

    /// Decodes constant `index` as a value of `tile<shape x elem>`.
    fn dense(&self, index: usize, t: TypeId, at: usize) -> Result<DenseElements, BytecodeError> {
        let (shape, elem) = match self.m.types.get(t) {
            Type::Tile {
                shape,
                elem: TileElem::Num(n),
                ..
            } => (shape.clone(), *n),
            _ => {
                return Err(BytecodeError::at(
                    at,
                    format!(
                        "dense constant type must be a tile of numbers, got {}",
                        self.m.types.display(t, true)
                    ),
                ))
            }
        };
        let mut n: u64 = 1;
        for &d in &shape {
            if d <= 0 {
                return Err(BytecodeError::at(
                    at,
                    format!("dense constant shape has a non-positive dimension {d}"),
                ));
            }
            n = n.saturating_mul(d as u64);
        }
        if n > format::MAX_DENSE_ELEMENTS {
            return Err(BytecodeError::at(
                at,
                format!(
                    "dense constant has {n} elements, more than the maximum {}",
                    format::MAX_DENSE_ELEMENTS
                ),
            ));
        }
        let n = n as usize;
        let (start, len) = self.consts[index];
        let raw = &self.data[start..start + len];
        let w = format::dense_bytes(elem);
        let le = |chunk: &[u8]| {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            format::ap_to_storage(elem, u64::from_le_bytes(b))
        };
        let bits: Vec<u64> = if elem == NumType::I1 {
            // Three layouts exist in the wild: a splat byte (0x00/0xFF), eight elements per
            // byte (what NVIDIA's tools write and read), or one byte per element (newer MLIR).
            // Bit-packed first: for up to 8 elements a packed byte and a splat byte have
            // the same size, and 0x00/0xFF mean the same either way.
            if len == n.div_ceil(8) {
                (0..n)
                    .map(|i| u64::from(raw[i / 8] >> (i % 8) & 1))
                    .collect()
            } else if len == 1 {
                vec![u64::from(raw[0] != 0)]
            } else if len == n {
                raw.iter().map(|&b| u64::from(b != 0)).collect()
            } else {
                return Err(BytecodeError::at(
                    start,
                    format!(
                        "dense i1 constant of {n} elements has {len} bytes, expected 1, {n} or {}",
                        n.div_ceil(8)
                    ),
                ));
            }
        } else if len == w {
            vec![le(raw)]
        } else if len == n * w {
            raw.chunks(w).map(le).collect()
        } else {
            return Err(BytecodeError::at(
                start,
                format!(
                    "dense constant of type {} has {len} bytes, expected {w} (splat) or {}",
                    self.m.types.display(t, true),
                    n * w
                ),
            ));
        };
        Ok(DenseElements { elem, shape, bits })
    }

    fn global_section(&mut self, mut c: Cursor<'a>, mblock: BlockId) -> Result<(), BytecodeError> {
        let n = c.count("number of globals", 4)?;
        for _ in 0..n {
            let name = self.string(&mut c, "global name string index")?.to_string();
            let t_at = c.pos;
            let t = self.value_type(&mut c, "global value type index")?;
            let k_at = c.pos;
            let k = c.index("global constant index", self.consts.len())?;
            let value = self.dense(k, t, t_at.min(k_at))?;
            let alignment = c.varint("global alignment")?;
            let mut op = CudaTileOp::new(CtOp::Global)
                .with("sym_name", Attr::Str(name))
                .with("value", Attr::Dense(value))
                .with("alignment", Attr::Int(alignment as i64));
            if self.v >= Version::V13_3 {
                let at = c.pos;
                let vis = c.varint("global visibility")?;
                let kw = match vis {
                    0 => "public",
                    1 => "private",
                    _ => {
                        return Err(BytecodeError::at(
                            at,
                            format!("invalid global visibility {vis}, expected 0 or 1"),
                        ))
                    }
                };
                op.set("symbol_visibility", Attr::Enum("symbol_visibility", kw));
                let at = c.pos;
                match c.varint("global constant flag")? {
                    0 => {}
                    1 => op.set("constant", Attr::Unit),
                    x => {
                        return Err(BytecodeError::at(
                            at,
                            format!("invalid global constant flag {x}, expected 0 or 1"),
                        ))
                    }
                }
            }
            let loc = self.m.locs.unknown();
            let g = self.m.create_op(OpKind::CudaTile(op), vec![], &[], loc);
            self.m.append_op(mblock, g);
        }
        self.expect_end(&c, "the global section")
    }

    fn func_section(&mut self, mut c: Cursor<'a>, mblock: BlockId) -> Result<(), BytecodeError> {
        let n = c.count("number of functions", 5)?;
        for _ in 0..n {
            let name = self
                .string(&mut c, "function name string index")?
                .to_string();
            let sig_at = c.pos;
            let sig = self.value_type(&mut c, "function signature type index")?;
            let inputs = match self.m.types.get(sig) {
                Type::Function { inputs, .. } => inputs.clone(),
                _ => {
                    return Err(BytecodeError::at(
                        sig_at,
                        format!(
                            "function signature must be a function type, got {}",
                            self.m.types.display(sig, true)
                        ),
                    ))
                }
            };
            let flags_at = c.pos;
            let flags = c.u8("the function flags")?;
            if flags & !(func_flag::PRIVATE | func_flag::KERNEL | func_flag::HAS_HINTS) != 0 {
                return Err(BytecodeError::at(
                    flags_at,
                    format!("unknown function flags {flags:#04x}"),
                ));
            }
            if flags & func_flag::KERNEL == 0 {
                return Err(BytecodeError::at(
                    flags_at,
                    format!("function '{name}' is not a kernel; only kernel (entry) functions are supported"),
                ));
            }
            let slot_at = c.pos;
            let debug_slot = c.varint("the function's debug slot")?;
            let mut op = CudaTileOp::new(CtOp::Entry)
                .with("sym_name", Attr::Str(name.clone()))
                .with("function_type", Attr::Type(sig));
            if flags & func_flag::HAS_HINTS != 0 {
                let at = c.pos;
                let tag = c.varint("the optimization hints tag")?;
                if tag != attr_tag::OPTIMIZATION_HINTS {
                    return Err(BytecodeError::at(
                        at,
                        format!("expected optimization hints (attribute tag 11), got tag {tag}"),
                    ));
                }
                let d = self.dict_payload(&mut c, 0)?;
                op.set("optimization_hints", Attr::Dict(d));
            }
            let len = c.count("the function body length", 1)?;
            let mut body = c.sub(len, "the function body")?;
            let loc = self.m.locs.unknown();
            let entry = self.m.create_op(OpKind::CudaTile(op), vec![], &[], loc);
            self.m.append_op(mblock, entry);
            let region = self.m.ops[entry].regions[0];
            let block = self.m.add_block(region, &inputs);
            let mut stack: Vec<ValueId> = self.m.blocks[block].args.clone();
            let mut ops = Vec::new();
            while !body.at_end() {
                self.op(&mut body, block, &mut stack, &mut ops, 0)?;
            }
            self.funcs.push(FuncInfo {
                name,
                entry,
                debug_slot,
                slot_at,
                ops,
            });
        }
        // Trailing alignment padding of the section.
        let rest = c.remaining();
        if rest >= 8 {
            return Err(c.err(format!(
                "{rest} unexpected trailing bytes in the function section"
            )));
        }
        Ok(())
    }

    fn op(
        &mut self,
        c: &mut Cursor<'a>,
        block: BlockId,
        stack: &mut Vec<ValueId>,
        order: &mut Vec<OpId>,
        depth: usize,
    ) -> Result<(), BytecodeError> {
        let at = c.pos;
        let opcode = c.varint("an opcode")?;
        let ct = layout::op_for_opcode(opcode)
            .ok_or_else(|| BytecodeError::at(at, format!("unknown opcode {opcode:#x}")))?;
        let schema = ct.schema();
        let name = format!("cuda_tile.{}", schema.mnemonic);
        if layout::is_structural(ct) {
            return Err(BytecodeError::at(
                at,
                format!("opcode {opcode:#x} ('{name}') cannot appear inside a function body"),
            ));
        }
        if schema.since > self.v {
            return Err(BytecodeError::at(
                at,
                format!(
                    "operation '{name}' is not available in bytecode version {}",
                    self.v
                ),
            ));
        }

        // Results.
        let mut result_types = Vec::new();
        let n_results = if layout::has_result_count(schema) {
            c.count(&format!("'{name}' result count"), 1)?
        } else {
            schema.results.iter().filter(|g| g.since <= self.v).count()
        };
        for _ in 0..n_results {
            result_types.push(self.value_type(c, &format!("'{name}' result type index"))?);
        }
        let numbered = result_types.len();
        // Results newer than the file: tokens exist in the IR, unnumbered (13.1's `print`
        // reads as a `print_tko` with its token, as NVIDIA 13.3's reader makes it); other
        // optional ones are simply absent.
        for g in schema.results.iter().filter(|g| g.since > self.v) {
            if g.constraint == TypeConstraint::Token
                && matches!(g.arity, Arity::One | Arity::Optional)
            {
                result_types.push(self.m.types.token());
                continue;
            }
            if g.arity == Arity::Optional {
                continue;
            }
            return Err(BytecodeError::at(
                at,
                format!(
                    "cannot supply '{name}' result '{}' missing from a {} file",
                    g.name, self.v
                ),
            ));
        }
        if crate::write::result_groups(schema, result_types.len()).is_none() {
            return Err(BytecodeError::at(
                at,
                format!("'{name}' cannot have {} results", result_types.len()),
            ));
        }

        // Flags.
        let fields = layout::flag_fields(schema, self.v);
        let mut flags = 0u64;
        if !fields.is_empty() {
            let f_at = c.pos;
            flags = c.varint(&format!("'{name}' flags"))?;
            if fields.len() < 64 && flags >> fields.len() != 0 {
                return Err(BytecodeError::at(
                    f_at,
                    format!(
                        "'{name}' flags {flags:#x} set unknown bits (it has {} flags)",
                        fields.len()
                    ),
                ));
            }
        }
        let flag = |f: FlagField| {
            fields
                .iter()
                .position(|&x| x == f)
                .is_some_and(|bit| flags >> bit & 1 == 1)
        };
        if flag(FlagField::Saturating) {
            return Err(BytecodeError::at(
                at,
                format!("'{name}' attribute 'saturating' (13.4) is not supported by tileir"),
            ));
        }

        // Attributes.
        let mut op = CudaTileOp::new(ct);
        for (i, a) in schema.attrs.iter().enumerate() {
            let since = a.since.max(schema.since);
            if a.kind == AttrKind::Unit {
                if since <= self.v && flag(FlagField::Attr(i)) {
                    op.set(a.name, Attr::Unit);
                }
                continue;
            }
            if since > self.v {
                continue; // the default materialized by CudaTileOp::new stands
            }
            if a.presence == Presence::Optional && !flag(FlagField::Attr(i)) {
                continue;
            }
            let value =
                self.inline_attr(c, a.kind, result_types.first().copied(), &name, a.name)?;
            op.set(a.name, value);
        }
        if layout::has_inbounds(ct, self.v) {
            // 13.4 `inbounds` promises; tileir does not model them and drops them (a
            // weaker but correct reading).
            let n = c.count(&format!("'{name}' inbounds entries"), 1)?;
            c.bytes(n, "inbounds entries")?;
        }

        // Operands.
        let mut operands = Vec::new();
        let operand =
            |c: &mut Cursor<'_>, operands: &mut Vec<ValueId>| -> Result<(), BytecodeError> {
                let i = c.index(&format!("'{name}' operand value index"), stack.len())?;
                operands.push(stack[i]);
                Ok(())
            };
        if schema.has(traits::SEGMENTED) {
            let mut segments = Vec::new();
            for (g_i, g) in schema.operands.iter().enumerate() {
                let size = if g.since > self.v {
                    0
                } else {
                    match g.arity {
                        Arity::One => 1,
                        Arity::Optional => usize::from(flag(FlagField::Operand(g_i))),
                        Arity::Variadic => {
                            c.count(&format!("'{name}' operand count of '{}'", g.name), 1)?
                        }
                    }
                };
                for _ in 0..size {
                    operand(c, &mut operands)?;
                }
                segments.push(size as u32);
            }
            op.segments = segments.into();
        } else if !schema.operands.is_empty() {
            let n = if schema.has_variable_operands() {
                c.count(&format!("'{name}' operand count"), 1)?
            } else {
                schema.operands.len()
            };
            for _ in 0..n {
                operand(c, &mut operands)?;
            }
            if op.operand_groups(n).is_none() {
                return Err(BytecodeError::at(
                    at,
                    format!("'{name}' cannot have {n} operands"),
                ));
            }
        }

        let loc: LocId = self.m.locs.unknown();
        let new_op = self
            .m
            .create_op(OpKind::CudaTile(op), operands, &result_types, loc);
        self.m.append_op(block, new_op);
        order.push(new_op);

        // Regions.
        if schema.regions > 0 {
            if depth >= format::MAX_NESTING {
                return Err(BytecodeError::at(
                    at,
                    format!("regions nest more than {} levels deep", format::MAX_NESTING),
                ));
            }
            let r_at = c.pos;
            let n = c.varint(&format!("'{name}' region count"))?;
            if n != u64::from(schema.regions) {
                return Err(BytecodeError::at(
                    r_at,
                    format!(
                        "'{name}' has {} regions, got a region count of {n}",
                        schema.regions
                    ),
                ));
            }
            let regions = self.m.ops[new_op].regions.clone();
            for region in regions {
                let nb = c.count("number of blocks", 2)?;
                for _ in 0..nb {
                    let na = c.count("number of block arguments", 1)?;
                    let mut arg_types = Vec::with_capacity(na);
                    for _ in 0..na {
                        arg_types.push(self.value_type(c, "block argument type index")?);
                    }
                    let b = self.m.add_block(region, &arg_types);
                    let mark = stack.len();
                    stack.extend(self.m.blocks[b].args.iter().copied());
                    let nops = c.count("number of ops in the block", 1)?;
                    for _ in 0..nops {
                        self.op(c, b, stack, order, depth + 1)?;
                    }
                    stack.truncate(mark);
                }
            }
        }
        stack.extend(self.m.ops[new_op].results[..numbered].iter().copied());
        Ok(())
    }

    fn inline_attr(
        &mut self,
        c: &mut Cursor<'a>,
        kind: AttrKind,
        result_type: Option<TypeId>,
        op: &str,
        attr: &str,
    ) -> Result<Attr, BytecodeError> {
        let what = format!("'{op}' attribute '{attr}'");
        let at = c.pos;
        Ok(match kind {
            AttrKind::Bool => Attr::Bool(c.u8(&what)? != 0),
            AttrKind::I32 => {
                let v = c.varint(&what)?;
                let v = u32::try_from(v).map_err(|_| {
                    BytecodeError::at(at, format!("{what} value {v} does not fit in 32 bits"))
                })?;
                Attr::Int(i64::from(v as i32))
            }
            AttrKind::I64 => Attr::Int(c.varint(&what)? as i64),
            AttrKind::Str => Attr::Str(self.string(c, &what)?.to_string()),
            AttrKind::SymbolRef => Attr::Symbol(self.string(c, &what)?.to_string()),
            AttrKind::Enum(e) => {
                let v = c.varint(&what)?;
                let kw = e.keyword_of(v).ok_or_else(|| {
                    BytecodeError::at(
                        at,
                        format!(
                            "{what} has invalid {} value {v}, expected 0..{}",
                            e.mnemonic(),
                            e.keywords().len() - 1
                        ),
                    )
                })?;
                Attr::Enum(e.mnemonic(), kw)
            }
            AttrKind::I32Array => Attr::IntArray(self.i32_list(c, &what)?),
            AttrKind::Dense => {
                let k = c.index(&format!("{what} constant index"), self.consts.len())?;
                let t = result_type
                    .ok_or_else(|| BytecodeError::at(at, format!("{what} needs a result type")))?;
                Attr::Dense(self.dense(k, t, at)?)
            }
            AttrKind::ScalarArray => {
                let n = c.count(&format!("{what} length"), 2)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    let i_at = c.pos;
                    match self.tagged(c, 1)? {
                        Attr::Int(v) => items.push(Attr::Scalar(NumType::I64, v as u64)),
                        s @ Attr::Scalar(..) => items.push(s),
                        other => {
                            return Err(BytecodeError::at(
                                i_at,
                                format!(
                                    "{what} must hold typed scalars, got {}",
                                    other.kind_name()
                                ),
                            ))
                        }
                    }
                }
                Attr::Array(items)
            }
            AttrKind::Hints => Attr::Dict(self.dict_payload(c, 0)?),
            AttrKind::AssumePredicate => match self.tagged(c, 0)? {
                a @ Attr::Assume(_) => a,
                other => {
                    return Err(BytecodeError::at(
                        at,
                        format!(
                            "{what} must be an assume predicate, got {}",
                            other.kind_name()
                        ),
                    ))
                }
            },
            AttrKind::Unit | AttrKind::FunctionType | AttrKind::DictArray => {
                return Err(BytecodeError::at(
                    at,
                    format!("{what} cannot appear in an op record"),
                ))
            }
        })
    }

    fn dict_payload(
        &mut self,
        c: &mut Cursor<'a>,
        depth: usize,
    ) -> Result<Vec<(String, Attr)>, BytecodeError> {
        let n = c.count("number of dictionary entries", 2)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let at = c.pos;
            let key = self.string(c, "dictionary key string index")?;
            if key.is_empty() {
                return Err(BytecodeError::at(
                    at,
                    format!("invalid empty attribute name for DictionaryAttr element {i}"),
                ));
            }
            let value = self.tagged(c, depth + 1)?;
            out.push((key.to_string(), value));
        }
        Ok(out)
    }

    fn tagged(&mut self, c: &mut Cursor<'a>, depth: usize) -> Result<Attr, BytecodeError> {
        let at = c.pos;
        if depth > format::MAX_NESTING {
            return Err(BytecodeError::at(
                at,
                format!(
                    "attributes nest more than {} levels deep",
                    format::MAX_NESTING
                ),
            ));
        }
        let tag = c.varint("an attribute tag")?;
        Ok(match tag {
            attr_tag::INTEGER => {
                let n = self.types.len();
                let t_at = c.pos;
                let t = self.num_ref(c, "integer attribute type index", n)?;
                if !t.is_int() {
                    return Err(BytecodeError::at(
                        t_at,
                        format!("integer attribute has non-integer type {t}"),
                    ));
                }
                let v_at = c.pos;
                let v = c.varint("an integer attribute value")?;
                if v & !format::mask(t.bit_width()) != 0 {
                    return Err(BytecodeError::at(
                        v_at,
                        format!("integer attribute value {v:#x} does not fit in {t}"),
                    ));
                }
                if t == NumType::I64 {
                    Attr::Int(v as i64)
                } else {
                    Attr::Scalar(t, v)
                }
            }
            attr_tag::FLOAT => {
                let n = self.types.len();
                let t_at = c.pos;
                let t = self.num_ref(c, "float attribute type index", n)?;
                if !t.is_float() {
                    return Err(BytecodeError::at(
                        t_at,
                        format!("float attribute has non-float type {t}"),
                    ));
                }
                let w = format::ap_width(t);
                let v_at = c.pos;
                let ap = if w <= 8 {
                    u64::from(c.u8("a float attribute value")?)
                } else {
                    c.svarint("a float attribute value")? as u64
                };
                if ap & !format::mask(w) != 0 {
                    return Err(BytecodeError::at(
                        v_at,
                        format!("float attribute bits {ap:#x} do not fit in {t}"),
                    ));
                }
                Attr::Scalar(t, format::ap_to_storage(t, ap))
            }
            attr_tag::BOOL => Attr::Bool(c.u8("a bool attribute value")? != 0),
            attr_tag::TYPE => Attr::Type(self.value_type(c, "type attribute type index")?),
            attr_tag::STRING => Attr::Str(self.string(c, "string attribute index")?.to_string()),
            attr_tag::ARRAY => {
                let n = c.count("number of array elements", 1)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.tagged(c, depth + 1)?);
                }
                Attr::Array(items)
            }
            attr_tag::DENSE => {
                let t_at = c.pos;
                let t = self.value_type(c, "dense attribute type index")?;
                let k = c.index("dense attribute constant index", self.consts.len())?;
                Attr::Dense(self.dense(k, t, t_at)?)
            }
            attr_tag::DIV_BY => {
                let divisor = c.varint("the div_by divisor")?;
                let f_at = c.pos;
                let f = c.u8("the div_by flags")?;
                if f > 3 {
                    return Err(BytecodeError::at(
                        f_at,
                        format!("unknown div_by flags {f:#x}"),
                    ));
                }
                let every = if f & 1 != 0 {
                    Some(c.svarint("div_by every")?)
                } else {
                    None
                };
                let along = if f & 2 != 0 {
                    Some(c.svarint("div_by along")?)
                } else {
                    None
                };
                let every_along = match (every, along) {
                    (Some(e), Some(a)) => Some((e, a)),
                    (None, None) => None,
                    _ => {
                        return Err(BytecodeError::at(
                            f_at,
                            "div_by 'every' and 'along' must be given together",
                        ))
                    }
                };
                Attr::Assume(AssumePredicate::DivBy {
                    divisor,
                    every_along,
                })
            }
            attr_tag::SAME_ELEMENTS => Attr::Assume(AssumePredicate::SameElements(
                self.i64_list(c, "same_elements values")?,
            )),
            attr_tag::BOUNDED => {
                let f_at = c.pos;
                let f = c.u8("the bounded flags")?;
                if f > 3 {
                    return Err(BytecodeError::at(
                        f_at,
                        format!("unknown bounded flags {f:#x}"),
                    ));
                }
                let lb = if f & 1 != 0 {
                    Some(c.svarint("bounded lower bound")?)
                } else {
                    None
                };
                let ub = if f & 2 != 0 {
                    Some(c.svarint("bounded upper bound")?)
                } else {
                    None
                };
                Attr::Assume(AssumePredicate::Bounded(lb, ub))
            }
            attr_tag::DICTIONARY | attr_tag::OPTIMIZATION_HINTS => {
                Attr::Dict(self.dict_payload(c, depth)?)
            }
            other => {
                return Err(BytecodeError::at(
                    at,
                    format!("unknown attribute tag {other}"),
                ))
            }
        })
    }

    fn debug_section(&mut self, mut c: Cursor<'a>) -> Result<(), BytecodeError> {
        let nf = c.count("number of functions with debug info", 4)?;
        c.align(4, "padding before the debug index offsets")?;
        let mut starts = Vec::with_capacity(nf);
        for _ in 0..nf {
            starts.push((c.pos, u64::from(c.u32le("a debug index offset")?)));
        }
        let ni = c.count("number of debug indices", 8)?;
        c.align(8, "padding before the debug indices")?;
        let mut indices = Vec::with_capacity(ni);
        for _ in 0..ni {
            indices.push((c.pos, c.u64le("a debug index")?));
        }
        let records = self.table(&mut c, 4, "debug records")?;
        // Decode records (record i has index i + 1; 0 = unknown). Records only reference
        // earlier records, which rules out cycles; each decoded record owns copies of what
        // it references, so their total size is bounded to keep hostile chains cheap.
        let mut recs: Vec<DebugRec> = Vec::with_capacity(records.len());
        let mut weights: Vec<u64> = Vec::with_capacity(records.len());
        let mut total: u64 = 0;
        for (i, mut rec) in records.into_iter().enumerate() {
            let at = rec.pos;
            let tag = rec.varint("a debug record tag")?;
            let mut weight = 1u64;
            let mut get =
                |rec: &mut Cursor<'_>, what: &str| -> Result<(usize, usize), BytecodeError> {
                    let r_at = rec.pos;
                    let k = rec.index(what, i + 1)?;
                    if k > 0 {
                        weight = weight.saturating_add(weights[k - 1]);
                    }
                    Ok((r_at, k))
                };
            let file = |recs: &[DebugRec], (r_at, k): (usize, usize)| match k
                .checked_sub(1)
                .map(|k| &recs[k])
            {
                Some(DebugRec::File(f)) => Ok(f.clone()),
                _ => Err(BytecodeError::at(
                    r_at,
                    format!("debug record {k} is not a di_file"),
                )),
            };
            let scope = |recs: &[DebugRec], (r_at, k): (usize, usize)| match k
                .checked_sub(1)
                .map(|k| &recs[k])
            {
                Some(DebugRec::Scope(s)) => Ok(s.clone()),
                _ => Err(BytecodeError::at(
                    r_at,
                    format!("debug record {k} is not a di_subprogram or di_lexical_block"),
                )),
            };
            let location = |recs: &[DebugRec], (r_at, k): (usize, usize)| match k
                .checked_sub(1)
                .map(|k| &recs[k])
            {
                None => Ok(Location::Unknown),
                Some(DebugRec::Loc(l)) => Ok(l.clone()),
                _ => Err(BytecodeError::at(
                    r_at,
                    format!("debug record {k} is not a location"),
                )),
            };
            let u32v = |rec: &mut Cursor<'_>, what: &str| -> Result<u32, BytecodeError> {
                let v_at = rec.pos;
                let v = rec.varint(what)?;
                u32::try_from(v).map_err(|_| {
                    BytecodeError::at(v_at, format!("{what} {v} does not fit in 32 bits"))
                })
            };
            let decoded = match tag {
                debug_tag::UNKNOWN => DebugRec::Loc(Location::Unknown),
                debug_tag::COMPILE_UNIT => {
                    let f = get(&mut rec, "compile unit file")?;
                    DebugRec::CompileUnit(DiCompileUnit {
                        file: file(&recs, f)?,
                    })
                }
                debug_tag::FILE => {
                    let name = self.string(&mut rec, "file name string index")?.to_string();
                    let directory = self.string(&mut rec, "directory string index")?.to_string();
                    DebugRec::File(DiFile { name, directory })
                }
                debug_tag::LEXICAL_BLOCK => {
                    let sc = get(&mut rec, "lexical block scope")?;
                    let f = get(&mut rec, "lexical block file")?;
                    let line = u32v(&mut rec, "lexical block line")?;
                    let column = u32v(&mut rec, "lexical block column")?;
                    DebugRec::Scope(DiScope::LexicalBlock(Box::new(DiLexicalBlock {
                        scope: scope(&recs, sc)?,
                        file: file(&recs, f)?,
                        line,
                        column: (column != 0).then_some(column),
                    })))
                }
                debug_tag::LOC => {
                    let sc = get(&mut rec, "location scope")?;
                    let file_name = self
                        .string(&mut rec, "location file name string index")?
                        .to_string();
                    let line = u32v(&mut rec, "location line")?;
                    let col = u32v(&mut rec, "location column")?;
                    DebugRec::Loc(Location::DiLoc {
                        loc: Box::new(Location::FileLineCol {
                            file: file_name,
                            line,
                            col,
                        }),
                        scope: scope(&recs, sc)?,
                    })
                }
                debug_tag::SUBPROGRAM => {
                    let f = get(&mut rec, "subprogram file")?;
                    let line = u32v(&mut rec, "subprogram line")?;
                    let name = self
                        .string(&mut rec, "subprogram name string index")?
                        .to_string();
                    let linkage_name = self
                        .string(&mut rec, "subprogram linkage name string index")?
                        .to_string();
                    let cu_ref = get(&mut rec, "subprogram compile unit")?;
                    let scope_line = u32v(&mut rec, "subprogram scope line")?;
                    let compile_unit = match cu_ref.1.checked_sub(1).map(|k| &recs[k]) {
                        Some(DebugRec::CompileUnit(c)) => c.clone(),
                        _ => {
                            return Err(BytecodeError::at(
                                cu_ref.0,
                                format!("debug record {} is not a di_compile_unit", cu_ref.1),
                            ))
                        }
                    };
                    DebugRec::Scope(DiScope::Subprogram(Box::new(DiSubprogram {
                        file: file(&recs, f)?,
                        line,
                        name,
                        linkage_name,
                        compile_unit,
                        scope_line: (scope_line != 0).then_some(scope_line),
                    })))
                }
                debug_tag::CALL_SITE => {
                    let callee = get(&mut rec, "call site callee")?;
                    let caller = get(&mut rec, "call site caller")?;
                    DebugRec::Loc(Location::CallSite {
                        callee: Box::new(location(&recs, callee)?),
                        caller: Box::new(location(&recs, caller)?),
                    })
                }
                other => {
                    return Err(BytecodeError::at(
                        at,
                        format!("unknown debug record tag {other}"),
                    ))
                }
            };
            total = total.saturating_add(weight);
            if total > MAX_DEBUG_WEIGHT {
                return Err(BytecodeError::at(
                    at,
                    "debug records expand to more than the supported size",
                ));
            }
            self.expect_end(&rec, &format!("debug record {}", i + 1))?;
            recs.push(decoded);
            weights.push(weight);
        }

        // Attach locations: per function, its own location then its ops in pre-order.
        for f in 0..self.funcs.len() {
            let (slot, slot_at) = (self.funcs[f].debug_slot, self.funcs[f].slot_at);
            if slot == 0 {
                continue;
            }
            if slot > nf as u64 {
                return Err(BytecodeError::at(
                    slot_at,
                    format!("debug slot {slot} is out of range ({nf} functions have debug info)"),
                ));
            }
            let s = slot as usize - 1;
            let (start_at, start) = starts[s];
            let stop = if s + 1 < nf {
                starts[s + 1].1
            } else {
                ni as u64
            };
            if start > stop || stop > ni as u64 {
                return Err(BytecodeError::at(
                    start_at,
                    format!("debug index offset {start} is out of order or beyond {ni} indices"),
                ));
            }
            let want = 1 + self.funcs[f].ops.len() as u64;
            if stop - start != want {
                return Err(BytecodeError::at(
                    start_at,
                    format!(
                        "function '{}' has {} debug locations, expected {want} (the function and its {} ops)",
                        self.funcs[f].name,
                        stop - start,
                        want - 1
                    ),
                ));
            }
            let targets: Vec<OpId> = std::iter::once(self.funcs[f].entry)
                .chain(self.funcs[f].ops.iter().copied())
                .collect();
            for (k, op) in targets.into_iter().enumerate() {
                let (at, di) = indices[start as usize + k];
                let loc = if di == 0 {
                    Location::Unknown
                } else {
                    match recs.get(di as usize - 1) {
                        Some(DebugRec::Loc(l)) => l.clone(),
                        Some(_) => {
                            return Err(BytecodeError::at(
                                at,
                                format!("debug record {di} is not a location"),
                            ))
                        }
                        None => {
                            return Err(BytecodeError::at(
                                at,
                                format!(
                                    "debug record index {di} is out of range ({} records)",
                                    recs.len()
                                ),
                            ))
                        }
                    }
                };
                let id = self.m.locs.intern(loc);
                self.m.ops[op].loc = id;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader_with_constant(data: &[u8]) -> Reader<'_> {
        Reader {
            data,
            v: Version::V13_3,
            m: Module::new(),
            strings: Vec::new(),
            types: Vec::new(),
            consts: vec![(0, data.len())],
            funcs: Vec::new(),
        }
    }

    #[test]
    fn i1_constants_accept_all_three_layouts() {
        let want: Vec<u64> = (0..10).map(|i| u64::from(i % 3 == 0)).collect();
        let bytes: Vec<u8> = want.iter().map(|&b| b as u8).collect();
        let mut packed = [0u8; 2];
        for (i, &b) in want.iter().enumerate() {
            packed[i / 8] |= (b as u8) << (i % 8);
        }
        for (raw, expect) in [
            (&bytes[..], want.clone()),
            (&packed[..], want.clone()),
            (&[0xFFu8][..], vec![1]),
            (&[0u8][..], vec![0]),
        ] {
            let mut r = reader_with_constant(raw);
            let t = r.m.types.tile(&[10], TileElem::Num(NumType::I1));
            assert_eq!(r.dense(0, t, 0).unwrap().bits, expect, "{raw:?}");
        }
        let mut r = reader_with_constant(&[1, 2, 3]);
        let t = r.m.types.tile(&[10], TileElem::Num(NumType::I1));
        assert!(r
            .dense(0, t, 0)
            .unwrap_err()
            .message
            .contains("expected 1, 10 or 2"));
    }

    #[test]
    fn dense_widths_follow_mlir_raw_buffers() {
        // tf32: three bytes per element holding the 19-bit pattern; storage bits are the
        // 32-bit layout.
        let raw = [0x00, 0xFC, 0x01];
        let mut r = reader_with_constant(&raw);
        let t = r.m.types.tile(&[4], TileElem::Num(NumType::TF32));
        assert_eq!(r.dense(0, t, 0).unwrap().bits, vec![0x3F80_0000]);
        let raw = [0u8; 5];
        let mut r = reader_with_constant(&raw);
        let t = r.m.types.tile(&[4], TileElem::Num(NumType::F16));
        assert!(r
            .dense(0, t, 0)
            .unwrap_err()
            .message
            .contains("expected 2 (splat) or 8"));
    }
}
