//! `nv_tileas`: the operational dialect. Tiles carry register layouts (which thread owns
//! which element) and memory ops are the concrete forms the LLVM lowering emits. Residual
//! nv_tileaa ops (functions, arithmetic, memrefs) stay legal here, as in NVIDIA's stack;
//! the tileas verifier requires every tile value to carry a layout.

use super::tileaa::TiledAccess;
use crate::attrs::{Attr, NamedAttrs};

/// The nv_tileas ops tileir knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TileAsOp {
    /// `nv_tileas.tiled_load`: a register-distributed global load (each thread loads the
    /// elements its layout assigns it), masked against the memref bounds.
    TiledLoad {
        /// Ordering, padding and operands.
        access: TiledAccess,
        /// Widest per-thread vector access in elements (1 = scalar) the layout and the
        /// alignment facts allow.
        vector_width: u32,
    },
    /// `nv_tileas.tiled_store`: the store counterpart.
    TiledStore {
        /// Ordering and operands.
        access: TiledAccess,
        /// Widest per-thread vector access in elements.
        vector_width: u32,
    },
}

impl TileAsOp {
    /// Mnemonic without the dialect prefix.
    pub fn mnemonic(&self) -> &'static str {
        match self {
            TileAsOp::TiledLoad { .. } => "tiled_load",
            TileAsOp::TiledStore { .. } => "tiled_store",
        }
    }

    /// Attributes in generic form.
    pub fn attributes(&self) -> NamedAttrs {
        let mut out = NamedAttrs::new();
        match self {
            TileAsOp::TiledLoad { access, vector_width } => {
                access.attrs(&mut out, 1);
                out.push(("vector_width".into(), Attr::Int(*vector_width as i64)));
            }
            TileAsOp::TiledStore { access, vector_width } => {
                access.attrs(&mut out, 2);
                out.push(("vector_width".into(), Attr::Int(*vector_width as i64)));
            }
        }
        out
    }

    /// Builds an op from its mnemonic and untyped attributes; `Ok(None)` if unknown.
    pub fn from_generic(mnemonic: &str, attrs: &[(String, Attr)]) -> Result<Option<TileAsOp>, Vec<String>> {
        let full = format!("nv_tileas.{mnemonic}");
        let mut r = crate::attrs::AttrReader::new(&full, attrs);
        let op = match mnemonic {
            "tiled_load" => {
                let access = TiledAccess::read(&mut r, 1);
                TileAsOp::TiledLoad { access, vector_width: r.int("vector_width").unwrap_or(1) as u32 }
            }
            "tiled_store" => {
                let access = TiledAccess::read(&mut r, 2);
                TileAsOp::TiledStore { access, vector_width: r.int("vector_width").unwrap_or(1) as u32 }
            }
            _ => return Ok(None),
        };
        r.finish()?;
        Ok(Some(op))
    }
}
