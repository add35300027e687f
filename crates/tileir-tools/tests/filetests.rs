//! Runs tileir's own filetests (`tests/filetests/**/*.mlir` at the repository root): RUN
//! lines with `tileir-opt` / `tileir-translate`, FileCheck and `-verify-diagnostics`.
//! `cargo test --test filetests -- NAME` filters by path; `TILEIR_BLESS=1` updates
//! expectations of failing tests.

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/filetests");
    tileir_filetest::runner::test_main(root, || {
        tileir_filetest::RunnerConfig::new()
            .tool("tileir-opt", env!("CARGO_BIN_EXE_tileir-opt"))
            .tool("tileir-translate", env!("CARGO_BIN_EXE_tileir-translate"))
            .substitution("%round_trip_test", concat!("sh ", env!("CARGO_MANIFEST_DIR"), "/../../scripts/round_trip_test.sh"))
    })
}
