//! [`OpKind`]: the closed union of every dialect's ops.

use crate::attrs::{Attr, NamedAttrs};
use crate::dialect::cuda_tile::{CtOp, CudaTileOp};
use crate::dialect::tileaa::TileAaOp;
use crate::dialect::tileas::TileAsOp;

/// The dialects tileir knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// Public CUDA Tile IR.
    CudaTile,
    /// Alias-aware tile IR.
    TileAa,
    /// Operational tile IR.
    TileAs,
    /// Ops of dialects tileir does not know (kept only under `-allow-unregistered-dialect`).
    Unregistered,
}

impl Dialect {
    /// The op-name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Dialect::CudaTile => "cuda_tile",
            Dialect::TileAa => "nv_tileaa",
            Dialect::TileAs => "nv_tileas",
            Dialect::Unregistered => "",
        }
    }
}

/// Which op an arena entry is, with its typed attributes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// A cuda_tile op.
    CudaTile(CudaTileOp),
    /// An nv_tileaa op.
    TileAa(TileAaOp),
    /// An nv_tileas op.
    TileAs(TileAsOp),
    /// An op of no known dialect, kept as written (`-allow-unregistered-dialect`).
    Unregistered(UnregisteredOp),
}

/// An op tileir does not know, kept verbatim: name, attributes and region count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnregisteredOp {
    /// Full name as written (`"cond"`, `"test.use_type"`).
    pub name: String,
    /// Attributes as written.
    pub attrs: Vec<(String, Attr)>,
    /// Number of regions it owns.
    pub num_regions: usize,
}

impl OpKind {
    /// The op's dialect.
    pub fn dialect(&self) -> Dialect {
        match self {
            OpKind::CudaTile(_) => Dialect::CudaTile,
            OpKind::TileAa(_) => Dialect::TileAa,
            OpKind::TileAs(_) => Dialect::TileAs,
            OpKind::Unregistered(_) => Dialect::Unregistered,
        }
    }

    /// Mnemonic without prefix (the whole name for unregistered ops).
    pub fn mnemonic(&self) -> &str {
        match self {
            OpKind::CudaTile(op) => op.mnemonic(),
            OpKind::TileAa(op) => op.mnemonic(),
            OpKind::TileAs(op) => op.mnemonic(),
            OpKind::Unregistered(op) => &op.name,
        }
    }

    /// Full name (`cuda_tile.addf`).
    pub fn name(&self) -> String {
        match self {
            OpKind::Unregistered(op) => op.name.clone(),
            _ => format!("{}.{}", self.dialect().prefix(), self.mnemonic()),
        }
    }

    /// The cuda_tile op, if this is one.
    pub fn cuda_tile(&self) -> Option<&CudaTileOp> {
        match self {
            OpKind::CudaTile(op) => Some(op),
            _ => None,
        }
    }

    /// The cuda_tile opcode, if this is a cuda_tile op.
    pub fn ct(&self) -> Option<CtOp> {
        self.cuda_tile().map(|op| op.op)
    }

    /// Regions the op must own.
    pub fn num_regions(&self) -> usize {
        match self {
            OpKind::CudaTile(op) => op.schema().regions as usize,
            OpKind::TileAa(op) => op.num_regions(),
            OpKind::TileAs(op) => op.num_regions(),
            OpKind::Unregistered(op) => op.num_regions,
        }
    }

    /// True for terminators.
    pub fn is_terminator(&self) -> bool {
        match self {
            OpKind::CudaTile(op) => op.schema().has(crate::dialect::cuda_tile::schema::traits::TERMINATOR),
            OpKind::TileAa(op) => op.is_terminator(),
            OpKind::TileAs(op) => op.is_terminator(),
            OpKind::Unregistered(_) => false,
        }
    }

    /// Attributes in generic form.
    pub fn attributes(&self) -> NamedAttrs {
        match self {
            OpKind::CudaTile(op) => op.attributes(),
            OpKind::TileAa(op) => op.attributes(),
            OpKind::TileAs(op) => op.attributes(),
            OpKind::Unregistered(op) => op.attrs.iter().map(|(n, a)| (n.clone().into(), a.clone())).collect(),
        }
    }

    /// Builds an op from a full name (`cuda_tile.addf`) and untyped attributes.
    /// Names without a dialect prefix resolve to cuda_tile (MLIR's default-dialect rule).
    pub fn from_generic(name: &str, attrs: &[(String, Attr)]) -> Result<OpKind, Vec<String>> {
        let (dialect, mnemonic) = match name.split_once('.') {
            Some((d, m)) => (d, m),
            None => ("cuda_tile", name),
        };
        let built = match dialect {
            "cuda_tile" => CudaTileOp::from_generic(mnemonic, attrs)?.map(OpKind::CudaTile),
            "nv_tileaa" => TileAaOp::from_generic(mnemonic, attrs)?.map(OpKind::TileAa),
            "nv_tileas" => TileAsOp::from_generic(mnemonic, attrs)?.map(OpKind::TileAs),
            _ => return Err(vec![format!("unknown dialect '{dialect}' in op name '{name}'")]),
        };
        built.ok_or_else(|| {
            let mut msg = format!("unknown op '{dialect}.{mnemonic}'");
            if dialect == "cuda_tile" {
                if let Some(s) = suggest(mnemonic, CtOp::MNEMONICS) {
                    msg.push_str(&format!("; did you mean '{s}'?"));
                }
            }
            vec![msg]
        })
    }
}

/// The closest candidate by edit distance, if close enough to be a likely typo.
pub fn suggest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4))
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = if ca == *cb { 0 } else { 1 };
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
