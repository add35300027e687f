//! tileir-filetest: run IR files with RUN/CHECK lines and expected-diagnostic annotations.
//!
//! * [`filecheck`]: a FileCheck engine compatible with LLVM `FileCheck`
//!   (also the `tileir-filecheck` binary);
//! * [`diagnostics`]: MLIR `-verify-diagnostics` annotation matching;
//! * [`split`]: MLIR `-split-input-file` chunking;
//! * [`runner`]: a lit-like runner for files with `// RUN:` lines;
//! * [`bless`]: regeneration of CHECK lines and `expected-*` annotations
//!   (`TILEIR_BLESS=1`);
//! * [`tools`]: lit's `not` (also the `tileir-not` binary) and a multicall
//!   entry point for test harnesses.
//!
//! # Hooking a directory of tests into `cargo test`
//!
//! In the package that builds `tileir-opt` (so that Cargo provides
//! `CARGO_BIN_EXE_tileir-opt` to its tests):
//!
//! ```toml
//! [dev-dependencies]
//! tileir-filetest = { workspace = true }
//!
//! [[test]]
//! name = "filetests"
//! harness = false
//! ```
//!
//! and `tests/filetests.rs`:
//!
//! ```rust,ignore
//! fn main() {
//!     tileir_filetest::runner::test_main(
//!         concat!(env!("CARGO_MANIFEST_DIR"), "/tests/filetests"),
//!         || {
//!             tileir_filetest::RunnerConfig::new()
//!                 .tool("tileir-opt", env!("CARGO_BIN_EXE_tileir-opt"))
//!         },
//!     )
//! }
//! ```
//!
//! The test binary serves `FileCheck` and `not` itself (it is symlinked under
//! those names and dispatches on `argv[0]`), so nothing else must be built.
//! `cargo test --test filetests -- NAME` runs the tests whose path contains
//! `NAME`; `TILEIR_BLESS=1 cargo test --test filetests` blesses failing tests.
//!
//! With the default libtest harness, call
//! `tileir_filetest::run_dir(dir, &config).assert_success()` in a `#[test]`;
//! `FileCheck` is then the `tileir-filecheck` binary, found next to the
//! configured tools or in the target directory (build it with
//! `cargo build -p tileir-filetest`), and `not` falls back to a generated
//! shell script.

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
