//! The IR the lowering pipeline prints at the nv_tileaa and nv_tileas levels reads back:
//! every cuda_tile input of tileir's filetests (and of NVIDIA's conformance suite, when
//! present beside the checkout) that the pipeline accepts is lowered through
//! `convert-cuda-tile-to-tileaa` and `convert-tileaa-to-tileas`, and at each stage
//! `print(parse(print(m))) == print(m)` byte for byte, in custom and generic form, with
//! and without locations, the re-parsed module verifies, and the generic text parses to
//! the module the custom text prints.

use std::path::{Path, PathBuf};
use tileir_ir::{print_module, Module, PrintOptions};
use tileir_syntax::{parse_module, ParseOptions};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            // Our own lowered inputs are not cuda_tile; NVIDIA's bindings' tests are not IR.
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !matches!(name, "lowered" | "python" | "CAPI" | "Inputs") {
                mlir_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "mlir") {
            out.push(p);
        }
    }
}

/// The `// -----` chunks of a file (each is a separate input under `-split-input-file`).
fn chunks(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in text.lines() {
        if line.trim_start().starts_with("// -----") {
            out.push(String::new());
        } else {
            let last = out.last_mut().expect("one chunk");
            last.push_str(line);
            last.push('\n');
        }
    }
    out
}

fn print(m: &Module, generic: bool, debug_info: bool) -> String {
    print_module(m, PrintOptions { generic, debug_info })
}

/// Checks the round trips of `m` (a lowered stage); `what` names it in failures.
fn check_stage(m: &Module, what: &str) -> Result<(), String> {
    let reference = print(m, false, false);
    for (generic, debug_info) in [(false, false), (true, false), (false, true), (true, true)] {
        let form = format!("{}{}", if generic { "generic" } else { "custom" }, if debug_info { " with locations" } else { "" });
        let text = print(m, generic, debug_info);
        let opts = ParseOptions { file_name: "lowered.mlir".into(), ..Default::default() };
        let m2 = parse_module(&text, &opts).map_err(|d| {
            let msgs: Vec<String> = d.iter().map(|d| d.to_string()).collect();
            format!("{what}: the {form} text does not parse: {}\n{text}", msgs.join("\n"))
        })?;
        if let Err(d) = tileir_verify::verify(&m2) {
            return Err(format!("{what}: the re-parsed {form} text does not verify: {d:?}\n{text}"));
        }
        let again = print(&m2, generic, debug_info);
        if again != text {
            return Err(format!("{what}: {form} round trip differs:\n--- printed\n{text}\n--- re-printed\n{again}"));
        }
        // Whatever form it was read from, the module is the same one.
        let custom = print(&m2, false, false);
        if custom != reference {
            return Err(format!("{what}: the module read from the {form} text prints differently:\n--- original\n{reference}\n--- re-read\n{custom}"));
        }
    }
    Ok(())
}

#[test]
fn lowered_stages_round_trip() {
    let mut files = Vec::new();
    mlir_files(&repo().join("tests/filetests"), &mut files);
    let suite = repo().join("../shared/conformance/cuda-tile-13.3.2/test");
    mlir_files(&suite, &mut files);
    let registry = tileir_transforms::registry();
    let to_aa = tileir_pass::PassManager::from_pipeline("convert-cuda-tile-to-tileaa", &registry).expect("pass");
    let to_as = tileir_pass::PassManager::from_pipeline("convert-tileaa-to-tileas", &registry).expect("pass");
    let (mut n_aa, mut n_as) = (0usize, 0usize);
    let mut failures = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        // Negative tests' inputs are not what the pipeline is given.
        if text.contains("expected-error") || text.contains("allow-unregistered-dialect") {
            continue;
        }
        for (i, chunk) in chunks(&text).iter().enumerate() {
            let name = format!("{}#{i}", file.strip_prefix(repo()).unwrap_or(file).display());
            let Ok(mut m) = parse_module(chunk, &ParseOptions::default()) else { continue };
            if tileir_verify::verify(&m).is_err() || to_aa.run(&mut m).is_err() {
                continue;
            }
            // Only modules that the conversion turned into nv_tileaa functions.
            if !print(&m, false, false).contains("nv_tileaa.func") {
                continue;
            }
            n_aa += 1;
            if let Err(e) = check_stage(&m, &format!("{name} (nv_tileaa)")) {
                failures.push(e);
                continue;
            }
            if to_as.run(&mut m).is_err() {
                continue;
            }
            n_as += 1;
            if let Err(e) = check_stage(&m, &format!("{name} (nv_tileas)")) {
                failures.push(e);
            }
        }
    }
    eprintln!("lowered round trips: {n_aa} nv_tileaa and {n_as} nv_tileas modules");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    // The corpus must keep exercising both stages (tests/filetests alone lowers dozens).
    assert!(n_aa >= 20 && n_as >= 20, "too few lowered inputs: {n_aa} nv_tileaa, {n_as} nv_tileas");
}

#[test]
fn bad_lowered_syntax_is_a_located_error() {
    let cases = [
        ("nv_tileaa.func @k() {\n  %0 = nv_tileaa.get_program_id w : i32\n  nv_tileaa.return\n}\n", "2:33", "expected dimension 'x', 'y' or 'z'"),
        ("nv_tileaa.func @k() {\n  nv_tileaa.bogus\n}\n", "2:3", "custom op 'nv_tileaa.bogus' is unknown"),
        ("nv_tileaa.func @k(%a: !nv_tileaa.ptr<f32, 1>) {\n  %0 = nv_tileaa.make_memref %a, sizes = [4], strides = [2] : (!nv_tileaa.ptr<f32, 1>) -> !nv_tileaa.memref<4xf32, strides=[1], 1>\n}\n", "2:58", "stride entry 0 does not match the memref type (expected 1, got 2)"),
        ("nv_tileaa.func @k(%a: tile<4xf32, #nv_tileas.blocked<size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[1, 1], order=[0]>>) {\n}\n", "1:112", "layout 'warps_per_cta' has 2 entries, expected 1"),
        ("nv_tileaa.func @k() attributes {kernel, speed = 3} {\n}\n", "1:32", "has no attribute named 'speed'"),
    ];
    for (text, at, msg) in cases {
        let opts = ParseOptions { file_name: "bad.mlir".into(), ..Default::default() };
        let Err(d) = parse_module(text, &opts) else { panic!("{text}: parsed") };
        let shown = d.last().expect("a diagnostic").to_string();
        assert!(shown.contains(&format!("bad.mlir:{at}")) && shown.contains(msg), "{text}: {shown}");
    }
}
