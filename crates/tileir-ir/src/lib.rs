//! tileir-ir: the IR data structure of tileir and its text form.
//!
//! A [`Module`] owns arenas of ops, values, blocks and regions addressed by small typed
//! ids ([`OpId`], [`ValueId`], [`BlockId`], [`RegionId`]), plus interned types
//! ([`TypeTable`]) and locations ([`LocTable`]). Ops form a closed set per dialect
//! ([`dialect::cuda_tile::CudaTileOp`], described by [`dialect::cuda_tile::schema`], [`dialect::tileaa::TileAaOp`],
//! [`dialect::tileas::TileAsOp`]) with typed attributes; [`print::print_module`] renders
//! custom or generic MLIR syntax deterministically.
//!
//! Invariants this crate guarantees: ids handed out by a module index that module's
//! arenas; equal types and locations intern to equal ids in first-insertion order.
//! Invariants it assumes but does not check (the verifier does): operand ids are in
//! range, values are defined before use, ops' operand and result counts fit their kind.
//!
//! ```
//! use tileir_ir::*;
//! let mut m = Module::new();
//! let loc = m.locs.file_line_col("k.py", 3, 5);
//! let body = m.body;
//! let mut b = Builder::at_end(&mut m, body);
//! let module = CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()));
//! b.op(OpKind::CudaTile(module), vec![], &[], loc);
//! assert!(print_module(&m, PrintOptions::default()).starts_with("cuda_tile.module @kernels"));
//! ```

#![forbid(unsafe_code)]

pub mod attrs;
pub mod diag;
pub mod dialect;
pub mod entity;
pub mod location;
pub mod module;
pub mod op;
pub mod parse_type;
pub mod print;
pub mod types;

pub use attrs::{Attr, NUM_STAGES_ATTR, WARP_SPECIALIZE_ATTR, AtomicRmwMode, ComparisonOrdering, ComparisonPredicate, DenseElements, KeywordEnum, SymbolVisibility, IntegerOverflow, MemoryOrdering, MemoryScope, RoundingMode, Signedness};
pub use diag::{Diagnostic, Diagnostics, Severity};
pub use dialect::cuda_tile::{AssumePredicate, CtOp, CudaTileOp};
pub use dialect::tileaa::{is_residual_cuda_tile, TileAaOp, TiledAccess};
pub use dialect::tileas::{AtomPlan, DotAttrs, PtrAccess, TileAsOp};
pub use dialect::FloatArith;
pub use location::{LocId, LocTable, Location};
pub use module::{BlockId, Builder, Module, OpData, OpId, RegionId, ValueDef, ValueId};
pub use op::{Dialect, OpKind, UnregisteredOp};
pub use print::{print_module, PrintOptions};
pub use types::{Dim, Layout, NumType, PaddingValue, PartitionViewType, TensorViewType, TileElem, TmaKind, Type, TypeId, TypeTable, SMEM_SWIZZLES};
