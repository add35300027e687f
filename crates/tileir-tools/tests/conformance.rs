//! Runs NVIDIA's public cuda_tile conformance suite with tileir's tools substituted for
//! theirs, when `TILEIR_CONFORMANCE_DIR` names a checkout's `test/` directory (the suite
//! is not part of this repository). Without it, this test reports that it was skipped.
//!
//! `TILEIR_CONFORMANCE_DIR=/path/to/cuda-tile/test cargo test -p tileir-tools --test conformance`
//!
//! Two files are known not to pass, for reasons outside tileir's behaviour (listed in
//! [`KNOWN_DIFFERENCES`]); the run fails on any other failure, and says so when a known one
//! starts passing.

use tileir_filetest::runner::{run_dir, TestStatus};

/// Suite files that cannot pass, and why.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "Bytecode/invalid/invalid_structure.mlir",
        "its six binary fixtures are not published; the same cases, rebuilt from our own bytes, \
         are tests/filetests/translate/bytecode_hostile.mlir",
    ),
    (
        "Bytecode/unsupportedVersionTest.mlir",
        "it expects the supported range '[13.1, 13.1]'; tileir supports 13.1 to 13.4 and says so",
    ),
];

fn main() {
    // When the runner invokes this binary as `FileCheck` or `not`, act as that tool.
    if let Some(code) = tileir_filetest::tools::multicall_main() {
        std::process::exit(code);
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Some(root) = std::env::var_os("TILEIR_CONFORMANCE_DIR") else {
        eprintln!("conformance: skipped (set TILEIR_CONFORMANCE_DIR to the cuda-tile repository's test/ directory)");
        return;
    };
    let root = std::path::PathBuf::from(root);
    let round_trip = root.join("Dialect/CudaTile/round_trip_test.sh");
    let config = tileir_filetest::RunnerConfig::new()
        .tool("tileir-opt", env!("CARGO_BIN_EXE_tileir-opt"))
        .tool("tileir-translate", env!("CARGO_BIN_EXE_tileir-translate"))
        .substitution("%round_trip_test", &format!("bash {}", round_trip.display()))
        .with_current_exe_as_builtin_tools();
    let summary = run_dir(&root, &config);
    eprint!("{}", summary.report());
    let known = |name: &str| KNOWN_DIFFERENCES.iter().find(|(n, _)| *n == name).map(|(_, why)| *why);
    let mut unexpected = 0;
    for o in &summary.outcomes {
        match (o.status.is_failure(), known(&o.name)) {
            (true, Some(why)) => eprintln!("known difference: {}: {why}", o.name),
            (true, None) => unexpected += 1,
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
