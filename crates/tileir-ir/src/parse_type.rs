//! Parser for type text (`tile<128xf32>`, `tensor_view<?xf32, strides=[1]>`,
//! `!nv_tileaa.memref<?xf32, strides=[1], 1>`, …), interning into a [`TypeTable`].
//! Errors give the byte offset and what was expected.

use crate::types::{Dim, NumType, PaddingValue, PartitionViewType, TensorViewType, TileElem, Type, TypeId, TypeTable};

/// A type-parse error: byte offset into the text and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeParseError {
    /// Byte offset where parsing failed.
    pub offset: usize,
    /// What was expected.
    pub message: String,
}

impl std::fmt::Display for TypeParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at offset {}: {}", self.offset, self.message)
    }
}

/// Parses a tile layout at the start of `text` for a tile of rank `rank`; returns it and the
/// number of bytes it spans (leading whitespace included).
pub fn parse_layout_prefix(text: &str, rank: usize) -> Result<(crate::types::Layout, usize), TypeParseError> {
    let mut types = TypeTable::default();
    let mut p = TypeParser { s: text.as_bytes(), pos: 0, types: &mut types };
    let layout = p.layout(rank)?;
    Ok((layout, p.pos))
}

/// Parses one complete type.
pub fn parse_type(text: &str, types: &mut TypeTable) -> Result<TypeId, TypeParseError> {
    let mut p = TypeParser { s: text.as_bytes(), pos: 0, types };
    let t = p.ty()?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("end of type"));
    }
    Ok(t)
}

struct TypeParser<'a, 't> {
    s: &'a [u8],
    pos: usize,
    types: &'t mut TypeTable,
}

impl TypeParser<'_, '_> {
    fn err(&self, expected: &str) -> TypeParseError {
        let found = match self.s.get(self.pos) {
            Some(_) => {
                let rest = String::from_utf8_lossy(&self.s[self.pos..]);
                format!("'{}'", rest.chars().take(12).collect::<String>())
            }
            None => "end of input".to_string(),
        };
        TypeParseError { offset: self.pos, message: format!("expected {expected}, found {found}") }
    }
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn eat(&mut self, lit: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, lit: &str) -> Result<(), TypeParseError> {
        if self.eat(lit) {
            Ok(())
        } else {
            Err(self.err(&format!("'{lit}'")))
        }
    }
    fn ident(&mut self) -> String {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len() && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_') {
            self.pos += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.pos]).into_owned()
    }
    fn int(&mut self) -> Result<i64, TypeParseError> {
        self.ws();
        let start = self.pos;
        if self.pos < self.s.len() && self.s[self.pos] == b'-' {
            self.pos += 1;
        }
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| TypeParseError { offset: start, message: "expected an integer".into() })
    }
    fn dim(&mut self) -> Result<Dim, TypeParseError> {
        if self.eat("?") {
            Ok(Dim::Dynamic)
        } else {
            Ok(Dim::Static(self.int()?))
        }
    }
    fn num(&mut self) -> Result<NumType, TypeParseError> {
        let at = self.pos;
        let word = self.ident();
        NumType::from_keyword(&word).ok_or_else(|| {
            self.pos = at;
            self.err("an element type (i1, i4, i8, i16, i32, i64, f16, bf16, f32, tf32, f64, f8E4M3FN, f8E5M2, f8E8M0FNU, f4E2M1FN)")
        })
    }
    /// `AxBx…xElem` where Elem may itself start with a letter: dims are digits or `?`.
    fn dims_then<T>(&mut self, mut elem: impl FnMut(&mut Self) -> Result<T, TypeParseError>) -> Result<(Vec<Dim>, T), TypeParseError> {
        let mut dims = Vec::new();
        loop {
            self.ws();
            match self.s.get(self.pos) {
                Some(c) if c.is_ascii_digit() || *c == b'?' => {
                    dims.push(self.dim()?);
                    self.expect("x")?;
                }
                _ => break,
            }
        }
        Ok((dims, elem(self)?))
    }
    fn int_list(&mut self, open: &str, close: &str, sep: &str) -> Result<Vec<i64>, TypeParseError> {
        self.expect(open)?;
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.int()?);
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(sep)?;
        }
    }
    fn dim_list(&mut self) -> Result<Vec<Dim>, TypeParseError> {
        self.expect("[")?;
        let mut v = Vec::new();
        if self.eat("]") {
            return Ok(v);
        }
        loop {
            v.push(self.dim()?);
            if self.eat("]") {
                return Ok(v);
            }
            self.expect(",")?;
        }
    }
    fn tensor_view_body(&mut self) -> Result<TensorViewType, TypeParseError> {
        let (shape, elem) = self.dims_then(|p| p.num())?;
        let strides = if !shape.is_empty() {
            self.expect(",")?;
            self.expect("strides")?;
            self.expect("=")?;
            self.dim_list()?
        } else {
            Vec::new()
        };
        self.expect(">")?;
        Ok(TensorViewType { elem, shape, strides })
    }

    /// `#nv_tileas.blocked<size_per_thread=[…], threads_per_warp=[…], warps_per_cta=[…],
    /// order=[…]>` for a tile of rank `rank` (each list has one entry per dimension).
    fn layout(&mut self, rank: usize) -> Result<crate::types::Layout, TypeParseError> {
        self.ws();
        let at = self.pos;
        if self.eat("#nv_tileas.mma") {
            // `#nv_tileas.mma<version=3, warps_per_cta=[…]>`: rank 2.
            self.expect("<")?;
            self.expect("version")?;
            self.expect("=")?;
            self.ws();
            let vat = self.pos;
            let version = self.int()?;
            if version != 3 {
                return Err(TypeParseError { offset: vat, message: format!("mma layout version {version} is not supported (only 3, wgmma)") });
            }
            self.expect(",")?;
            self.expect("warps_per_cta")?;
            self.expect("=")?;
            self.ws();
            let wat = self.pos;
            let warps = self.int_list("[", "]", ",")?;
            self.expect(">")?;
            if rank != 2 || warps.len() != 2 {
                return Err(TypeParseError {
                    offset: if rank != 2 { at } else { wat },
                    message: format!("mma layouts describe rank-2 tiles with 2 warps_per_cta entries, got a rank-{rank} tile and {} entries", warps.len()),
                });
            }
            let warps_per_cta = warps
                .into_iter()
                .map(|x| u32::try_from(x).map_err(|_| TypeParseError { offset: wat, message: format!("layout 'warps_per_cta' entry {x} is out of range") }))
                .collect::<Result<Vec<u32>, _>>()?;
            return Ok(crate::types::Layout::Mma { version: version as u32, warps_per_cta });
        }
        if self.eat("#nv_tileas.slice") {
            // `#nv_tileas.slice<dim=D, parent=LAYOUT>`: the parent describes rank + 1.
            self.expect("<")?;
            self.expect("dim")?;
            self.expect("=")?;
            self.ws();
            let dat = self.pos;
            let dim = self.int()?;
            if dim < 0 || dim > rank as i64 {
                return Err(TypeParseError { offset: dat, message: format!("slice dim {dim} is out of range for a rank-{} parent", rank + 1) });
            }
            self.expect(",")?;
            self.expect("parent")?;
            self.expect("=")?;
            let parent = self.layout(rank + 1)?;
            self.expect(">")?;
            return Ok(crate::types::Layout::Slice { dim: dim as u32, parent: Box::new(parent) });
        }
        if !self.eat("#nv_tileas.blocked") {
            return Err(self.err("tile layout '#nv_tileas.blocked<…>', '#nv_tileas.mma<…>' or '#nv_tileas.slice<…>'"));
        }
        self.expect("<")?;
        let mut lists: Vec<Vec<u32>> = Vec::new();
        for (i, key) in ["size_per_thread", "threads_per_warp", "warps_per_cta", "order"].into_iter().enumerate() {
            if i > 0 {
                self.expect(",")?;
            }
            self.expect(key)?;
            self.expect("=")?;
            self.ws();
            let at = self.pos;
            let v = self.int_list("[", "]", ",")?;
            if v.len() != rank {
                return Err(TypeParseError {
                    offset: at,
                    message: format!("layout '{key}' has {} entries, expected {rank} (the tile's rank)", v.len()),
                });
            }
            let mut u = Vec::with_capacity(v.len());
            for x in v {
                match u32::try_from(x) {
                    Ok(x) => u.push(x),
                    Err(_) => return Err(TypeParseError { offset: at, message: format!("layout '{key}' entry {x} is out of range") }),
                }
            }
            lists.push(u);
        }
        self.expect(">")?;
        let order = lists.pop().unwrap_or_default();
        let warps_per_cta = lists.pop().unwrap_or_default();
        let threads_per_warp = lists.pop().unwrap_or_default();
        let size_per_thread = lists.pop().unwrap_or_default();
        Ok(crate::types::Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order })
    }

    /// A positive count (stages, consumers, depth) that fits in u32.
    fn count(&mut self, what: &str) -> Result<u32, TypeParseError> {
        self.ws();
        let at = self.pos;
        let v = self.int()?;
        if v < 1 || v > u32::MAX as i64 {
            return Err(TypeParseError { offset: at, message: format!("{what} must be a positive 32-bit integer, got {v}") });
        }
        Ok(v as u32)
    }

    /// `open T, T, … close` (possibly empty).
    fn type_list(&mut self, open: &str, close: &str) -> Result<Vec<TypeId>, TypeParseError> {
        self.expect(open)?;
        let mut out = Vec::new();
        self.ws();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.ty()?);
            self.ws();
            if self.eat(close) {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    /// `64x32xf16` (static dims then an element type).
    fn static_shape_elem(&mut self) -> Result<(Vec<i64>, NumType), TypeParseError> {
        self.ws();
        let at = self.pos;
        let (dims, elem) = self.dims_then(|p| p.num())?;
        let mut shape = Vec::new();
        for d in dims {
            match d {
                Dim::Static(v) if v > 0 => shape.push(v),
                _ => return Err(TypeParseError { offset: at, message: "expected a static, positive shape".into() }),
            }
        }
        Ok((shape, elem))
    }

    /// The nv_tileas types, after `!nv_tileas.`.
    fn tileas_type(&mut self, start: usize) -> Result<TypeId, TypeParseError> {
        let word = self.ident();
        match word.as_str() {
            "pipeline" => {
                self.expect("<")?;
                self.expect("stages")?;
                self.expect("=")?;
                let stages = self.count("pipeline stages")?;
                self.expect(",")?;
                self.expect("consumers")?;
                self.expect("=")?;
                let consumers = self.count("pipeline consumers")?;
                self.expect(",")?;
                let elems = self.type_list("[", "]")?;
                self.expect(">")?;
                Ok(self.types.intern(Type::Pipeline { stages, consumers, elems }))
            }
            "iterator" => {
                self.expect("<")?;
                self.ws();
                let at = self.pos;
                let pipeline = self.ty()?;
                if !matches!(self.types.get(pipeline), Type::Pipeline { .. }) {
                    return Err(TypeParseError { offset: at, message: "expected an !nv_tileas.pipeline type".into() });
                }
                self.expect(">")?;
                Ok(self.types.intern(Type::PipelineIterator { pipeline }))
            }
            "producer_token" | "consumer_token" => {
                let elems = self.type_list("<", ">")?;
                Ok(self.types.intern(if word == "producer_token" {
                    Type::ProducerToken { elems }
                } else {
                    Type::ConsumerToken { elems }
                }))
            }
            "async" if self.eat(".token") => Ok(self.types.intern(Type::AsyncToken)),
            "tma_desc" => {
                self.expect("<")?;
                self.ws();
                let at = self.pos;
                let kind_word = self.ident();
                let Some(kind) = crate::types::TmaKind::from_keyword(&kind_word) else {
                    return Err(TypeParseError { offset: at, message: "expected tma_load or tma_store".into() });
                };
                self.expect(",")?;
                let (box_shape, elem) = self.static_shape_elem()?;
                self.expect(">")?;
                Ok(self.types.intern(Type::TmaDesc { kind, box_shape, elem }))
            }
            "smem" => {
                self.expect("<")?;
                let (shape, elem) = self.static_shape_elem()?;
                self.expect(",")?;
                self.expect("swizzle")?;
                self.expect("=")?;
                self.ws();
                let at = self.pos;
                let swizzle = self.int()?;
                if !crate::types::SMEM_SWIZZLES.contains(&(swizzle as u32)) || swizzle < 0 {
                    return Err(TypeParseError { offset: at, message: format!("swizzle must be 0, 32, 64 or 128 bytes, got {swizzle}") });
                }
                self.expect(">")?;
                Ok(self.types.intern(Type::SmemTile { shape, elem, swizzle: swizzle as u32 }))
            }
            _ => {
                self.pos = start;
                Err(self.err("an nv_tileas type (pipeline, iterator, producer_token, consumer_token, async.token, tma_desc, smem)"))
            }
        }
    }

    fn ty(&mut self) -> Result<TypeId, TypeParseError> {
        self.ws();
        let start = self.pos;
        if self.eat("!nv_tileaa.") {
            let word = self.ident();
            return match word.as_str() {
                "mem_token" => Ok(self.types.mem_token()),
                "ptr" => {
                    self.expect("<")?;
                    let pointee = self.num()?;
                    self.expect(",")?;
                    let addr_space = self.int()? as u32;
                    self.expect(">")?;
                    Ok(self.types.intern(Type::AaPtr { pointee, addr_space }))
                }
                "memref" => {
                    self.expect("<")?;
                    let (shape, elem) = self.dims_then(|p| p.num())?;
                    self.expect(",")?;
                    self.expect("strides")?;
                    self.expect("=")?;
                    let strides = self.dim_list()?;
                    self.expect(",")?;
                    let addr_space = self.int()? as u32;
                    self.expect(">")?;
                    Ok(self.types.intern(Type::MemRef { elem, shape, strides, addr_space }))
                }
                "queue" => {
                    self.expect("<")?;
                    let depth = self.count("queue depth")?;
                    self.expect(",")?;
                    let elems = self.type_list("[", "]")?;
                    self.expect(">")?;
                    Ok(self.types.intern(Type::Queue { depth, elems }))
                }
                _ => {
                    self.pos = start;
                    Err(self.err("an nv_tileaa type (ptr, memref, mem_token, queue)"))
                }
            };
        }
        if self.eat("!nv_tileas.") {
            return self.tileas_type(start);
        }
        let _ = self.eat("!cuda_tile.");
        let at = self.pos;
        let word = self.ident();
        match word.as_str() {
            "token" => Ok(self.types.token()),
            "tile" => {
                self.expect("<")?;
                let (dims, elem) = self.dims_then(|p| {
                    p.ws();
                    let save = p.pos;
                    let _ = p.eat("!cuda_tile.");
                    if p.eat("ptr") {
                        p.expect("<")?;
                        let n = p.num()?;
                        p.expect(">")?;
                        Ok(TileElem::Ptr(n))
                    } else {
                        p.pos = save;
                        Ok(TileElem::Num(p.num()?))
                    }
                })?;
                let mut shape = Vec::new();
                for d in dims {
                    match d {
                        Dim::Static(v) => shape.push(v),
                        Dim::Dynamic => return Err(TypeParseError { offset: at, message: "expected static shape".into() }),
                    }
                }
                // nv_tileas tiles carry a layout after the element type.
                let layout = if self.eat(",") { Some(self.layout(shape.len())?) } else { None };
                self.expect(">")?;
                Ok(self.types.intern(Type::Tile { shape, elem, layout }))
            }
            "tensor_view" => {
                self.expect("<")?;
                let tv = self.tensor_view_body()?;
                Ok(self.types.intern(Type::TensorView(tv)))
            }
            "partition_view" => {
                self.expect("<")?;
                self.expect("tile")?;
                self.expect("=")?;
                self.expect("(")?;
                let mut tile_shape = vec![self.int()?];
                while self.eat("x") {
                    tile_shape.push(self.int()?);
                }
                self.expect(")")?;
                self.expect(",")?;
                let mut padding = None;
                if self.eat("padding_value") {
                    self.expect("=")?;
                    let at = self.pos;
                    let kw = self.ident();
                    padding = Some(PaddingValue::from_keyword(&kw).ok_or_else(|| {
                        self.pos = at;
                        self.err("a padding value (zero, neg_zero, nan, pos_inf, neg_inf)")
                    })?);
                    self.expect(",")?;
                }
                let _ = self.eat("!cuda_tile.");
                self.expect("tensor_view")?;
                self.expect("<")?;
                let tv = self.tensor_view_body()?;
                let tensor_view = self.types.intern(Type::TensorView(tv));
                let mut dim_map = Vec::new();
                if self.eat(",") {
                    self.expect("dim_map")?;
                    self.expect("=")?;
                    dim_map = self.int_list("[", "]", ",")?;
                }
                self.expect(">")?;
                Ok(self.types.intern(Type::PartitionView(PartitionViewType { tile_shape, tensor_view, dim_map, padding })))
            }
            _ => {
                if let Some(n) = NumType::from_keyword(&word) {
                    return Ok(self.types.scalar(n));
                }
                self.pos = at;
                Err(self.err("a type"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_the_printer_prints() {
        let cases = [
            "tile<128xf32>",
            "tile<ptr<f32>>",
            "tile<i32>",
            "tile<4x8xptr<f16>>",
            "token",
            "tensor_view<?xf32, strides=[1]>",
            "tensor_view<?x128xf16, strides=[?,1]>",
            "partition_view<tile=(1024), padding_value = zero, tensor_view<?xf32, strides=[1]>>",
            "partition_view<tile=(8x16), tensor_view<64x64xf32, strides=[64,1]>, dim_map=[1, 0]>",
            "!nv_tileaa.ptr<f32, 1>",
            "!nv_tileaa.memref<?xf32, strides=[1], 1>",
            "!nv_tileaa.mem_token",
            "i32",
        ];
        for text in cases {
            let mut t = TypeTable::default();
            let id = parse_type(text, &mut t).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(t.display(id, true), text);
        }
    }

    #[test]
    fn long_prefix_is_accepted() {
        let mut t = TypeTable::default();
        let id = parse_type("!cuda_tile.tile<4x!cuda_tile.ptr<i8>>", &mut t).unwrap();
        assert_eq!(t.display(id, true), "tile<4xptr<i8>>");
    }

    #[test]
    fn errors_name_offset_and_expectation() {
        let mut t = TypeTable::default();
        let e = parse_type("tile<128xf33>", &mut t).unwrap_err();
        assert_eq!(e.offset, 9);
        assert!(e.message.contains("expected an element type"), "{}", e.message);
        let e = parse_type("tile<?xf32>", &mut t).unwrap_err();
        assert!(e.message.contains("expected static shape"));
        assert!(parse_type("tile<128xf32", &mut t).is_err());
        assert!(parse_type("", &mut t).is_err());
    }
}
