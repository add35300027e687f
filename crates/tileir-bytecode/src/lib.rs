//! tileir-bytecode: NVIDIA's CUDA Tile IR bytecode (`.tileirbc`), read and written.
//!
//! [`read()`] turns a file into a [`tileir_ir::Module`] holding one `cuda_tile.module @kernels`
//! (the format does not store the module name); [`write()`] encodes a module for a target
//! [`Version`] (13.1, 13.2, 13.3 or 13.4, or NVIDIA's test-only 250.0 and 250.1) and
//! refuses, naming the op, attribute or type, whatever that version cannot express.
//!
//! The op codec is driven by the op schema of `tileir_ir::dialect::cuda_tile::schema`
//! (opcodes, operand/result groups, attributes and the version each appeared in) using
//! the layout rules of NVIDIA's TableGen-generated codec (see `src/layout.rs`).
//! Reading is defensive: every error names the byte offset and what was
//! expected, counts are bounded by the bytes that remain, nesting is bounded, and no
//! input makes the reader panic.
//!
//! Debug information: `di_loc` and call-site locations (with their `di_subprogram`,
//! `di_lexical_block`, `di_compile_unit` and `di_file` records) are written and read. As
//! in NVIDIA's writer, a function whose own location has no debug scope stores no
//! locations at all, plain `file:line:col` and unknown locations are stored as
//! "unknown", and name/fused wrappers are reduced to their first storable part.
//!
//! ```
//! use tileir_ir::*;
//! use tileir_bytecode::{read, write, Version};
//! let mut m = Module::new();
//! let loc = m.locs.unknown();
//! let fty = m.types.intern(Type::Function { inputs: vec![], results: vec![] });
//! let module = CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()));
//! let mop = m.create_op(OpKind::CudaTile(module), vec![], &[], loc);
//! let body = m.body;
//! m.append_op(body, mop);
//! let mblock = m.add_block(m.ops[mop].regions[0], &[]);
//! let entry = CudaTileOp::new(CtOp::Entry).with("sym_name", Attr::Str("k".into())).with("function_type", Attr::Type(fty));
//! let eop = m.create_op(OpKind::CudaTile(entry), vec![], &[], loc);
//! m.append_op(mblock, eop);
//! let eblock = m.add_block(m.ops[eop].regions[0], &[]);
//! let ret = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::Return)), vec![], &[], loc);
//! m.append_op(eblock, ret);
//! let bytes = write(&m, Version::V13_3).unwrap();
//! let back = read(&bytes).unwrap();
//! assert_eq!(print_module(&back, PrintOptions::default()), print_module(&m, PrintOptions::default()));
//! ```

#![forbid(unsafe_code)]

mod format;
mod layout;
mod read;
mod wire;
mod write;

use std::fmt;
pub use tileir_ir::dialect::cuda_tile::schema::Version;
use tileir_ir::Module;

/// Versions this crate reads and writes, oldest first.
pub const SUPPORTED_VERSIONS: [Version; 4] = [
    Version::V13_1,
    Version::V13_2,
    Version::V13_3,
    Version::V13_4,
];

/// NVIDIA's test-only versions 250.0 and 250.1 (its builds with `TILE_IR_INCLUDE_TESTS`),
/// read and written for the test-only ops of its bytecode versioning tests. They sort
/// after every release (a 250.x file holds every public feature tileir knows, plus the
/// test-only ops and fields of that version) and are not part of [`SUPPORTED_RANGE`];
/// `--list-versions` lists them after the releases, as NVIDIA's test builds do.
pub const TESTING_VERSIONS: [Version; 2] = [Version::TESTING, Version::TESTING_1];

/// The supported range as the tools' messages show it, in NVIDIA's `[13.1 - 13.3]` form.
/// NVIDIA's 13.3 tools stop at 13.3; tileir also reads and writes 13.4 (cuTile's
/// encoder), a difference its conformance run lists on purpose.
pub const SUPPORTED_RANGE: &str = "[13.1 - 13.4]";

/// The version NVIDIA's writer targets by default (and ours when asked for "current").
pub const DEFAULT_VERSION: Version = Version::V13_3;

/// A read or write failure: a message, and for read errors the byte offset in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytecodeError {
    /// Absolute byte offset of the problem in the input (reader errors).
    pub offset: Option<usize>,
    /// What went wrong, naming what was expected.
    pub message: String,
    /// Writer errors about an op: the op the error is reported at, and the op a
    /// "invalid op" remark points at (NVIDIA reports a foreign op at its module, with a
    /// remark at the op itself).
    pub at_op: Option<tileir_ir::OpId>,
    /// See [`BytecodeError::at_op`].
    pub remark_op: Option<tileir_ir::OpId>,
}

impl BytecodeError {
    /// An error without a position (writer errors).
    pub fn new(message: impl Into<String>) -> BytecodeError {
        BytecodeError {
            offset: None,
            message: message.into(),
            at_op: None,
            remark_op: None,
        }
    }
    /// This error reported at `op`, with an "invalid op" remark at `culprit`.
    pub fn with_ops(mut self, op: tileir_ir::OpId, culprit: tileir_ir::OpId) -> BytecodeError {
        self.at_op = Some(op);
        self.remark_op = Some(culprit);
        self
    }
    /// An error at byte `offset`.
    pub fn at(offset: usize, message: impl Into<String>) -> BytecodeError {
        BytecodeError {
            offset: Some(offset),
            message: message.into(),
            at_op: None,
            remark_op: None,
        }
    }
}

impl fmt::Display for BytecodeError {
    /// `byte 12: error: ...` for reader errors, `error: ...` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "byte {o}: error: {}", self.message),
            None => write!(f, "error: {}", self.message),
        }
    }
}

impl std::error::Error for BytecodeError {}

/// True for a version this crate reads and writes: a release of [`SUPPORTED_VERSIONS`]
/// or a test-only version of [`TESTING_VERSIONS`].
pub fn is_known_version(v: Version) -> bool {
    SUPPORTED_VERSIONS.contains(&v) || TESTING_VERSIONS.contains(&v)
}

fn is_supported_write_version(v: Version) -> bool {
    is_known_version(v)
}

/// Parses a version string (`13.3`, `13.1.0`, the test-only `250.0`) into a supported
/// [`Version`], with NVIDIA's message (which names only the releases) for anything else.
pub fn parse_version(text: &str) -> Result<Version, BytecodeError> {
    let parts: Vec<&str> = text.trim().split('.').collect();
    let parsed = match parts.as_slice() {
        [a, b] | [a, b, _] => a.parse::<u8>().ok().zip(b.parse::<u8>().ok()),
        _ => None,
    };
    match parsed {
        Some((major, minor)) if is_supported_write_version(Version { major, minor }) => {
            Ok(Version { major, minor })
        }
        _ => Err(BytecodeError::new(format!(
            "Invalid argument '{text}': the supported versions are {SUPPORTED_RANGE}"
        ))),
    }
}

/// Reads a bytecode file into a module holding one `cuda_tile.module @kernels`.
pub fn read(data: &[u8]) -> Result<Module, BytecodeError> {
    read::read(data)
}

/// Writes `module` (whose top level must be one `cuda_tile.module` holding only
/// `entry` and `global` ops) as bytecode of `version`.
pub fn write(module: &Module, version: Version) -> Result<Vec<u8>, BytecodeError> {
    write::write(module, version)
}
