//! tileir-transforms: the passes of tileir and the [`registry`] that names them.
//!
//! - `convert-cuda-tile-to-tileaa` ([`to_tileaa`]): public cuda_tile → alias-aware
//!   nv_tileaa. Kernel parameters become scalars and address-space pointers, tensor views
//!   become memrefs (with the base alignment `assume div_by` promises), partition-view
//!   loads and stores become token-ordered `tiled_load` / `tiled_store`.
//! - `convert-tileaa-to-tileas` ([`to_tileas`]): nv_tileaa → operational nv_tileas. Picks
//!   the kernel's warp count, gives every tile a register layout, and turns tiled memory
//!   ops into layout-aware nv_tileas ops with the widest safe vector width.
//!
//! - `fuse-fma` ([`fuse_fma`]): `addf`/`subf` of a single-use `mulf` → `fma`.
//! - `canonicalize` ([`canonicalize`]): MLIR's greedy canonicalizer with the cuda_tile folds
//!   and patterns (dead code, constant hoisting, `if`/`select` simplification).
//! - `loop-split` ([`loop_split`]): splits a `for` where an `if` on its induction variable
//!   flips.
//! - `synthesize-debug-info-scopes` ([`debug_scopes`]): `di_subprogram` scopes and `di_loc`
//!   locations for functions that only have file locations.
//!
//! Every pass keeps each op's location on the ops it creates.

#![forbid(unsafe_code)]

pub mod canonicalize;
pub mod debug_scopes;
pub mod fuse_fma;
pub mod loop_split;
pub mod to_tileaa;
pub mod to_tileas;

use tileir_pass::{PassInfo, Registry};

/// The registry of every pass tileir has (an explicit list: no link-time registration).
pub fn registry() -> Registry {
    Registry {
        passes: vec![
            PassInfo {
                name: canonicalize::NAME,
                summary: "Greedy canonicalization: folds, dead-code removal, if/select simplification, constant hoisting",
                options: canonicalize::CanonicalizeOptions::describe,
                create: |opts| {
                    Ok(Box::new(canonicalize::Canonicalize { options: canonicalize::CanonicalizeOptions::parse(opts)? }))
                },
            },
            PassInfo {
                name: fuse_fma::NAME,
                summary: "Fuse addf/subf of a single-use mulf into fma (not value-preserving: one rounding)",
                options: fuse_fma::FuseFmaOptions::describe,
                create: |opts| Ok(Box::new(fuse_fma::FuseFma { options: fuse_fma::FuseFmaOptions::parse(opts)? })),
            },
            PassInfo {
                name: loop_split::NAME,
                summary: "Split a for loop where an if on its induction variable flips",
                options: loop_split::LoopSplitOptions::describe,
                create: |opts| Ok(Box::new(loop_split::LoopSplit { options: loop_split::LoopSplitOptions::parse(opts)? })),
            },
            PassInfo {
                name: debug_scopes::NAME,
                summary: "Give every function without debug scopes a di_subprogram and di_loc locations",
                options: debug_scopes::SynthesizeDebugInfoScopesOptions::describe,
                create: |opts| {
                    Ok(Box::new(debug_scopes::SynthesizeDebugInfoScopes {
                        options: debug_scopes::SynthesizeDebugInfoScopesOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: to_tileaa::NAME,
                summary: "Lower cuda_tile to nv_tileaa (memrefs, tokens, program ids)",
                options: to_tileaa::ToTileAaOptions::describe,
                create: |opts| Ok(Box::new(to_tileaa::ConvertCudaTileToTileAa { options: to_tileaa::ToTileAaOptions::parse(opts)? })),
            },
            PassInfo {
                name: to_tileas::NAME,
                summary: "Lower nv_tileaa to nv_tileas (warp count, register layouts, vectorized memory ops)",
                options: to_tileas::ToTileAsOptions::describe,
                create: |opts| Ok(Box::new(to_tileas::ConvertTileAaToTileAs { options: to_tileas::ToTileAsOptions::parse(opts)? })),
            },
        ],
    }
}

/// The default lowering pipeline from cuda_tile to nv_tileas.
pub const DEFAULT_PIPELINE: &str = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas";
