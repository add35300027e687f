//! tileir-filetest: run IR files with RUN/CHECK lines and expected-diagnostic annotations.
//!
//! * [`filecheck`]: a FileCheck engine compatible with LLVM `FileCheck`
//!   (also the `tileir-filecheck` binary);
//! * [`diagnostics`]: MLIR `-verify-diagnostics` annotation matching;
//! * [`split`]: MLIR `-split-input-file` chunking;
//! * [`runner`]: a lit-like runner for files with `// RUN:` lines, with a
//!   bless mode (`TILEIR_BLESS=1`) that regenerates CHECK lines and
//!   `expected-*` annotations (see [`bless`]);
//! * [`tools`]: the `not` utility and a multicall entry point for test
//!   harnesses.

pub mod bless;
pub mod diagnostics;
pub mod filecheck;
mod posix;
pub mod runner;
pub mod split;
pub mod tools;

pub use diagnostics::{verify_diagnostics, EmittedDiag, Severity};
pub use filecheck::{check, CheckOptions};
pub use runner::{run_dir, run_file, RunnerConfig, Summary, TestOutcome, TestStatus};
pub use split::{split_input_file, Chunk};
