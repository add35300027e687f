//! Runs NVIDIA's public cuda_tile conformance suite with tileir's tools substituted for
//! theirs. The suite is not part of this repository: it is looked for in
//! `TILEIR_CONFORMANCE_DIR` (a checkout's `test/` directory) and otherwise in
//! `<repo>/../shared/conformance/cuda-tile-13.3.2/test`; without either, this test says
//! that it was skipped and passes.
//!
//! `cargo test -p tileir-tools --test conformance` (or, per case,
//! `python3 scripts/conformance_report.py <suite> --tools target/release`).
//!
//! Its `python/` and `CAPI/` folders test NVIDIA's own bindings and are not run. Files
//! that differ on purpose are listed in [`KNOWN_DIFFERENCES`] with the reason; the run
//! fails on any other failure, and says so when a listed one starts passing.

use std::path::PathBuf;
use tileir_filetest::runner::{run_dir, TestStatus};

/// The suite release this project follows.
const SUITE: &str = "cuda-tile-13.3.2";

/// Suite files tileir does not pass on purpose, and why. This is the one list of
/// intentional differences (README.md's conformance section points here).
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "Bytecode/unsupportedVersionTest.mlir",
        "it expects the supported range '[13.1 - 13.3]'; tileir also reads and writes 13.4 \
         (cuTile's encoder) and says '[13.1 - 13.4]'",
    ),
    (
        "Bytecode/invalid/invalid_structure.mlir",
        "its VERSION check expects the reader's range '[13.1 - 13.3]' (tileir: '[13.1 - 13.4]', \
         as above); its five other checks (MAGIC, SECTION_ID, SECTION_LENGTH, DENSE_MAP, \
         ATTR_NAME) pass, and tests/filetests/translate/bytecode_hostile.mlir and the bytecode \
         crate's hostile tests cover the same cases with our own bytes",
    ),
    (
        "Bytecode/list_versions.mlir",
        "it expects 13.1, 13.2, 13.3 then NVIDIA's test-only 250.0 and 250.1; tileir lists \
         13.1 to 13.4 then 250.0 and 250.1",
    ),
];

/// Suite directories that do not apply to tileir (they exercise NVIDIA's bindings).
const NOT_APPLICABLE: &[&str] = &["python", "CAPI"];

/// Where the suite is: `TILEIR_CONFORMANCE_DIR`, else the shared reference copy beside
/// the checkout.
fn suite_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TILEIR_CONFORMANCE_DIR") {
        return Some(PathBuf::from(dir));
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = repo.join("../shared/conformance").join(SUITE).join("test");
    shared.is_dir().then_some(shared)
}

fn main() {
    // When the runner invokes this binary as `FileCheck` or `not`, act as that tool.
    if let Some(code) = tileir_filetest::tools::multicall_main() {
        std::process::exit(code);
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(root) = suite_dir() else {
        eprintln!(
            "conformance: skipped: NVIDIA's suite was not found (set TILEIR_CONFORMANCE_DIR to \
             a cuda-tile checkout's test/ directory, or provide ../shared/conformance/{SUITE}/test)"
        );
        return;
    };
    if !root.is_dir() {
        eprintln!("conformance: {} is not a directory", root.display());
        std::process::exit(1);
    }
    let round_trip = root.join("Dialect/CudaTile/round_trip_test.sh");
    let config = tileir_filetest::RunnerConfig::new()
        .tool("tileir-opt", env!("CARGO_BIN_EXE_tileir-opt"))
        .tool("tileir-translate", env!("CARGO_BIN_EXE_tileir-translate"))
        .substitution("%round_trip_test", &format!("bash {}", round_trip.display()))
        .with_current_exe_as_builtin_tools();
    let summary = run_dir(&root, &config);
    let applies = |name: &str| !NOT_APPLICABLE.iter().any(|d| name.starts_with(&format!("{d}/")));
    let known = |name: &str| KNOWN_DIFFERENCES.iter().find(|(n, _)| *n == name).map(|(_, why)| *why);
    eprint!("{}", summary.report());
    let mut unexpected = 0;
    for o in summary.outcomes.iter().filter(|o| applies(&o.name)) {
        match (o.status.is_failure(), known(&o.name)) {
            (true, Some(why)) => eprintln!("known difference: {}: {why}", o.name),
            (true, None) => {
                eprintln!("unexpected failure: {}", o.name);
                unexpected += 1;
            }
            (false, Some(_)) if o.status == TestStatus::Pass => {
                eprintln!("note: {} passes now; remove it from KNOWN_DIFFERENCES", o.name)
            }
            _ => {}
        }
    }
    if unexpected > 0 {
        eprintln!("conformance: {unexpected} unexpected failure(s)");
        std::process::exit(1);
    }
}
