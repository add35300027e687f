//! The public `cuda_tile` dialect (CUDA Tile IR). Ops are added here as the compiler
//! learns them; each variant's doc gives its operands and results.

use super::{read_segments, FloatArith};
use crate::attrs::{Attr, AttrReader, MemoryOrdering, MemoryScope, NamedAttrs};
use crate::types::TypeId;

/// `assume` predicates.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AssumePredicate {
    /// `div_by<N>`: the value (or address) is a multiple of N.
    DivBy(u64),
    /// `bounded<lb, ub>`: inclusive bounds, either may be absent (`?`).
    Bounded(Option<i64>, Option<i64>),
}

impl AssumePredicate {
    /// Custom-syntax text (`div_by<16>`, `bounded<0, ?>`).
    pub fn text(&self) -> String {
        let opt = |v: &Option<i64>| v.map(|x| x.to_string()).unwrap_or_else(|| "?".to_string());
        match self {
            AssumePredicate::DivBy(n) => format!("div_by<{n}>"),
            AssumePredicate::Bounded(lb, ub) => format!("bounded<{}, {}>", opt(lb), opt(ub)),
        }
    }
    /// Parses the custom-syntax text.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim().trim_start_matches("#cuda_tile.");
        let inner = |prefix: &str| text.strip_prefix(prefix)?.strip_prefix('<')?.strip_suffix('>');
        if let Some(body) = inner("div_by") {
            return body.trim().parse().ok().map(AssumePredicate::DivBy);
        }
        if let Some(body) = inner("bounded") {
            let (a, b) = body.split_once(',')?;
            let parse = |s: &str| -> Option<Option<i64>> {
                let s = s.trim();
                if s == "?" {
                    Some(None)
                } else {
                    s.parse().ok().map(Some)
                }
            };
            return Some(AssumePredicate::Bounded(parse(a)?, parse(b)?));
        }
        None
    }
}

/// Memory ordering, scope and operand layout of `load_view_tko` / `store_view_tko`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ViewAccess {
    /// `weak`, `relaxed`, `acquire` (loads) or `release` (stores).
    pub ordering: MemoryOrdering,
    /// Required unless `weak`.
    pub scope: Option<MemoryScope>,
    /// Number of index operands.
    pub num_indices: u32,
    /// Whether a `token = %t` operand follows the indices.
    pub has_token: bool,
}

impl ViewAccess {
    fn read(r: &mut AttrReader<'_>, leading: usize) -> ViewAccess {
        let ordering = r
            .keyword("memory_ordering_semantics", MemoryOrdering::from_keyword, MemoryOrdering::expected)
            .unwrap_or(MemoryOrdering::Weak);
        let scope = r.keyword("memory_scope", MemoryScope::from_keyword, MemoryScope::expected);
        let seg = read_segments(r, leading + 2).unwrap_or_else(|| {
            r.error("requires attribute 'operandSegmentSizes'".to_string());
            vec![0; leading + 2]
        });
        ViewAccess { ordering, scope, num_indices: seg[leading] as u32, has_token: seg[leading + 1] > 0 }
    }
    fn attrs(&self, out: &mut NamedAttrs, leading: usize) {
        out.push(("memory_ordering_semantics", Attr::Enum(MemoryOrdering::MNEMONIC, self.ordering.keyword())));
        if let Some(s) = self.scope {
            out.push(("memory_scope", Attr::Enum(MemoryScope::MNEMONIC, s.keyword())));
        }
        let mut seg = vec![1; leading];
        seg.push(self.num_indices as i64);
        seg.push(self.has_token as i64);
        out.push(("operandSegmentSizes", Attr::IntArray(seg)));
    }
}

/// The cuda_tile ops tileir knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CudaTileOp {
    /// `cuda_tile.module @name { … }`: one compilation unit (1 region, graph body).
    Module {
        /// Symbol name.
        sym_name: String,
    },
    /// `entry @k(%a: T, …) { … }`: a kernel (1 region; block args = parameters).
    Entry {
        /// Symbol name.
        sym_name: String,
        /// Function type (no results).
        function_type: TypeId,
    },
    /// `return`: terminates an entry.
    Return,
    /// `make_token : token`.
    MakeToken,
    /// `get_tile_block_id : tile<i32>` → 3 × `tile<i32>`.
    GetTileBlockId,
    /// `get_num_tile_blocks : tile<i32>` → 3 × `tile<i32>`.
    GetNumTileBlocks,
    /// `assume <pred>, %v : T` → same type.
    Assume {
        /// The promised fact.
        predicate: AssumePredicate,
    },
    /// `make_tensor_view %base, shape = [...], strides = [...]` → tensor_view.
    /// Operands: base `tile<ptr<T>>`, one scalar per dynamic size, one per dynamic stride.
    MakeTensorView {
        /// Number of dynamic size operands.
        num_dyn_shape: u32,
        /// Number of dynamic stride operands.
        num_dyn_strides: u32,
    },
    /// `make_partition_view %tv : partition_view<…>`.
    MakePartitionView,
    /// `load_view_tko weak %view[%i…] [token = %t]` → (tile, token).
    LoadViewTko(ViewAccess),
    /// `store_view_tko weak %tile, %view[%i…] [token = %t]` → token.
    StoreViewTko(ViewAccess),
    /// `addf %a, %b` (element-wise).
    AddF(FloatArith),
    /// `subf %a, %b`.
    SubF(FloatArith),
    /// `mulf %a, %b`.
    MulF(FloatArith),
}

impl CudaTileOp {
    /// Mnemonic without the dialect prefix.
    pub fn mnemonic(&self) -> &'static str {
        match self {
            CudaTileOp::Module { .. } => "module",
            CudaTileOp::Entry { .. } => "entry",
            CudaTileOp::Return => "return",
            CudaTileOp::MakeToken => "make_token",
            CudaTileOp::GetTileBlockId => "get_tile_block_id",
            CudaTileOp::GetNumTileBlocks => "get_num_tile_blocks",
            CudaTileOp::Assume { .. } => "assume",
            CudaTileOp::MakeTensorView { .. } => "make_tensor_view",
            CudaTileOp::MakePartitionView => "make_partition_view",
            CudaTileOp::LoadViewTko(_) => "load_view_tko",
            CudaTileOp::StoreViewTko(_) => "store_view_tko",
            CudaTileOp::AddF(_) => "addf",
            CudaTileOp::SubF(_) => "subf",
            CudaTileOp::MulF(_) => "mulf",
        }
    }

    /// Every mnemonic, for "unknown op" suggestions and registry listings.
    pub const MNEMONICS: &'static [&'static str] = &[
        "module",
        "entry",
        "return",
        "make_token",
        "get_tile_block_id",
        "get_num_tile_blocks",
        "assume",
        "make_tensor_view",
        "make_partition_view",
        "load_view_tko",
        "store_view_tko",
        "addf",
        "subf",
        "mulf",
    ];

    /// Number of regions the op owns.
    pub fn num_regions(&self) -> usize {
        match self {
            CudaTileOp::Module { .. } | CudaTileOp::Entry { .. } => 1,
            _ => 0,
        }
    }

    /// True for block terminators.
    pub fn is_terminator(&self) -> bool {
        matches!(self, CudaTileOp::Return)
    }

    /// Attributes in generic form.
    pub fn attributes(&self) -> NamedAttrs {
        let mut out = NamedAttrs::new();
        match self {
            CudaTileOp::Module { sym_name } => out.push(("sym_name", Attr::Str(sym_name.clone()))),
            CudaTileOp::Entry { sym_name, function_type } => {
                out.push(("function_type", Attr::Type(*function_type)));
                out.push(("sym_name", Attr::Str(sym_name.clone())));
            }
            CudaTileOp::Return
            | CudaTileOp::MakeToken
            | CudaTileOp::GetTileBlockId
            | CudaTileOp::GetNumTileBlocks
            | CudaTileOp::MakePartitionView => {}
            CudaTileOp::Assume { predicate } => out.push(("predicate", Attr::Str(predicate.text()))),
            CudaTileOp::MakeTensorView { num_dyn_shape, num_dyn_strides } => out.push((
                "operandSegmentSizes",
                Attr::IntArray(vec![1, *num_dyn_shape as i64, *num_dyn_strides as i64]),
            )),
            CudaTileOp::LoadViewTko(a) => a.attrs(&mut out, 1),
            CudaTileOp::StoreViewTko(a) => a.attrs(&mut out, 2),
            CudaTileOp::AddF(f) | CudaTileOp::SubF(f) | CudaTileOp::MulF(f) => f.attrs(&mut out),
        }
        out
    }

    /// Builds an op from its mnemonic and untyped attributes (generic form, Python builder).
    /// `Ok(None)` means the mnemonic is unknown.
    pub fn from_generic(mnemonic: &str, attrs: &[(String, Attr)]) -> Result<Option<CudaTileOp>, Vec<String>> {
        let full = format!("cuda_tile.{mnemonic}");
        let mut r = AttrReader::new(&full, attrs);
        let op = match mnemonic {
            "module" => CudaTileOp::Module { sym_name: r.string("sym_name").unwrap_or_default() },
            "entry" => {
                let sym_name = r.string("sym_name").unwrap_or_default();
                match r.type_id("function_type") {
                    Some(function_type) => CudaTileOp::Entry { sym_name, function_type },
                    None => return Err(r.finish().err().unwrap_or_default()),
                }
            }
            "return" => CudaTileOp::Return,
            "make_token" => CudaTileOp::MakeToken,
            "get_tile_block_id" => CudaTileOp::GetTileBlockId,
            "get_num_tile_blocks" => CudaTileOp::GetNumTileBlocks,
            "assume" => {
                let text = r.string("predicate").unwrap_or_default();
                match AssumePredicate::parse(&text) {
                    Some(predicate) => CudaTileOp::Assume { predicate },
                    None => {
                        r.error(format!("'{full}' has an invalid predicate '{text}'"));
                        return Err(r.finish().err().unwrap_or_default());
                    }
                }
            }
            "make_tensor_view" => {
                let seg = read_segments(&mut r, 3).unwrap_or(vec![1, 0, 0]);
                CudaTileOp::MakeTensorView { num_dyn_shape: seg[1] as u32, num_dyn_strides: seg[2] as u32 }
            }
            "make_partition_view" => CudaTileOp::MakePartitionView,
            "load_view_tko" => CudaTileOp::LoadViewTko(ViewAccess::read(&mut r, 1)),
            "store_view_tko" => CudaTileOp::StoreViewTko(ViewAccess::read(&mut r, 2)),
            "addf" => CudaTileOp::AddF(FloatArith::read(&mut r)),
            "subf" => CudaTileOp::SubF(FloatArith::read(&mut r)),
            "mulf" => CudaTileOp::MulF(FloatArith::read(&mut r)),
            _ => return Ok(None),
        };
        r.finish()?;
        Ok(Some(op))
    }
}
