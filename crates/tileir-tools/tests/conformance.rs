//! Runs NVIDIA's public cuda_tile conformance suite with tileir's tools substituted for
//! theirs, when `TILEIR_CONFORMANCE_DIR` names a checkout's `test/` directory (the suite
//! is not part of this repository). Without it, this test reports that it was skipped.
//!
//! `TILEIR_CONFORMANCE_DIR=/path/to/cuda-tile/test cargo test -p tileir-tools --test conformance`

fn main() {
    // When the runner invokes this binary as `FileCheck` or `not`, act as that tool.
    if let Some(code) = tileir_filetest::tools::multicall_main() {
        std::process::exit(code);
    }
    let Some(root) = std::env::var_os("TILEIR_CONFORMANCE_DIR") else {
        eprintln!("conformance: skipped (set TILEIR_CONFORMANCE_DIR to the cuda-tile repository's test/ directory)");
        return;
    };
    let root = std::path::PathBuf::from(root);
    let round_trip = root.join("Dialect/CudaTile/round_trip_test.sh");
    tileir_filetest::runner::test_main(root, move || {
        tileir_filetest::RunnerConfig::new()
            .tool("tileir-opt", env!("CARGO_BIN_EXE_tileir-opt"))
            .tool("tileir-translate", env!("CARGO_BIN_EXE_tileir-translate"))
            .substitution("%round_trip_test", &format!("bash {}", round_trip.display()))
    })
}
