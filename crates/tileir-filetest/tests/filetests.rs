//! End-to-end tests of the runner (`harness = false`).
//!
//! This binary doubles as its own tools, which is also the recommended way to
//! hook a directory of filetests into `cargo test` from another crate:
//! * under the names `FileCheck` / `not` it runs the built-in tools
//!   ([`tools::multicall_main`]);
//! * under the name `tileir-opt` it runs a tiny fake compiler (below) that
//!   uses [`split_input_file`] and [`verify_diagnostics`] like the real one
//!   will.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use tileir_filetest::diagnostics::{verify_diagnostics, EmittedDiag, Severity};
use tileir_filetest::split::{split_input_file, Chunk};
use tileir_filetest::{run_dir, run_file, tools, RunnerConfig, TestStatus};

/// A fake `tileir-opt`: every non-comment line is an op, printed inside
/// `module { ... }`. A line containing `bad` is an error (plus a note), `warn`
/// a warning, `lost` an error without location.
fn fake_opt(args: &[String]) -> i32 {
    let (mut file, mut split, mut verify) = (None, false, false);
    for a in args {
        match a.as_str() {
            "-split-input-file" | "--split-input-file" => split = true,
            "-verify-diagnostics" | "--verify-diagnostics" => verify = true,
            s if s.starts_with('-') && s != "-" => {
                eprintln!("tileir-opt: unknown option '{s}'");
                return 2;
            }
            s => file = Some(s.to_string()),
        }
    }
    let (name, text) = match file.as_deref() {
        Some(f) if f != "-" => (
            f.to_string(),
            std::fs::read_to_string(f).expect("readable input"),
        ),
        _ => (
            "<stdin>".to_string(),
            std::io::read_to_string(std::io::stdin()).expect("stdin"),
        ),
    };
    let chunks = if split {
        split_input_file(&text)
    } else {
        vec![Chunk {
            text,
            first_line: 1,
        }]
    };
    let mut outputs = Vec::new();
    let mut failed = false;
    for chunk in &chunks {
        let mut diags = Vec::new();
        let mut ops = Vec::new();
        for (i, line) in chunk.text.split('\n').enumerate() {
            let code_part = line.split("//").next().unwrap_or("");
            let code = code_part.trim();
            if code.is_empty() {
                continue;
            }
            let l = i as u32 + 1;
            if let Some(col) = code_part.find("bad") {
                let col = col as u32 + 1;
                diags.push(EmittedDiag::at(
                    Severity::Error,
                    l,
                    col,
                    format!("'{code}' op is invalid"),
                ));
                diags.push(EmittedDiag::at(
                    Severity::Note,
                    l,
                    col,
                    "see current operation",
                ));
            } else if code.contains("lost") {
                diags.push(EmittedDiag::unknown(Severity::Error, "lost location"));
            } else {
                if let Some(col) = code_part.find("warn") {
                    diags.push(EmittedDiag::at(
                        Severity::Warning,
                        l,
                        col as u32 + 1,
                        "op may be slow",
                    ));
                }
                ops.push(code.to_string());
            }
        }
        if verify {
            for f in verify_diagnostics(&chunk.text, &name, chunk.line_offset(), &diags) {
                eprintln!("{f}");
                failed = true;
            }
        } else {
            for d in &diags {
                match d.line {
                    Some(l) => eprintln!(
                        "{name}:{}:{}: {}: {}",
                        l + chunk.line_offset(),
                        d.col.unwrap_or(1),
                        d.severity,
                        d.message
                    ),
                    None => eprintln!("{}: {}", d.severity, d.message),
                }
            }
            if diags.iter().any(|d| d.severity == Severity::Error) {
                failed = true;
                continue;
            }
        }
        let body: String = ops.iter().map(|o| format!("  {o}\n")).collect();
        outputs.push(format!("module {{\n{body}}}\n"));
    }
    if !failed {
        let _ = std::io::stdout().write_all(outputs.join("// -----\n").as_bytes());
    }
    i32::from(failed)
}

fn config() -> RunnerConfig {
    let exe = std::env::current_exe().expect("current exe");
    let mut c = RunnerConfig::new()
        .with_current_exe_as_builtin_tools()
        .tool("tileir-opt", exe)
        .feature("fake-tool");
    c.bless = false;
    c
}

/// Configuration whose temporary files live under `dir` (removed by the test).
fn config_in(dir: &Path) -> RunnerConfig {
    let mut c = config();
    c.temp_root = Some(dir.join("tmp"));
    c
}

fn lit_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lit")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tileir-filetest-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn lit_directory() {
    let mut cfg = config();
    cfg.filter = None;
    let summary = run_dir(lit_dir(), &cfg);
    let report = summary.report();
    eprint!("{report}");
    let status = |name: &str| {
        summary
            .outcomes
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("{name} not run:\n{report}"))
            .status
            .clone()
    };
    assert!(summary.is_success(), "{report}");
    for t in [
        "print.mlir",
        "invalid.mlir",
        "errors.mlir",
        "split.mlir",
        "tmp.mlir",
    ] {
        assert_eq!(status(t), TestStatus::Pass, "{t}:\n{report}");
    }
    assert!(
        matches!(status("requires.mlir"), TestStatus::Unsupported(r) if r.contains("nvidia-gpu")),
        "{report}"
    );
    assert!(
        matches!(status("unsupported.mlir"), TestStatus::Unsupported(_)),
        "{report}"
    );
    assert_eq!(status("xfail.mlir"), TestStatus::ExpectedFail);
    assert!(
        !summary.outcomes.iter().any(|o| o.name.contains("Inputs")),
        "{report}"
    );
    // Deterministic order.
    let names: Vec<&str> = summary.outcomes.iter().map(|o| o.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(report.contains("Passed: 5"), "{report}");
}

fn failures_are_reported() {
    let d = scratch("fail");
    let cfg = config_in(&d);
    let p = d.join("wrong.mlir");
    std::fs::write(
        &p,
        "// RUN: tileir-opt %s | FileCheck %s\nop1\n// CHECK: op2\n",
    )
    .unwrap();
    let o = run_file(&p, &cfg);
    assert_eq!(o.status, TestStatus::Fail, "{}", o.log);
    assert!(o.log.contains("# RUN: at line 1\n"), "{}", o.log);
    assert!(
        o.log
            .contains("wrong.mlir:3:11: error: CHECK: expected string not found in input"),
        "{}",
        o.log
    );
    assert!(
        o.log
            .contains("# error: command failed with exit status: 1"),
        "{}",
        o.log
    );

    let p = d.join("diag.mlir");
    std::fs::write(&p, "// RUN: tileir-opt %s -verify-diagnostics\nx = bad\n").unwrap();
    let o = run_file(&p, &cfg);
    assert_eq!(o.status, TestStatus::Fail);
    assert!(
        o.log
            .contains("diag.mlir:2:5: error: unexpected error: 'x = bad' op is invalid"),
        "{}",
        o.log
    );

    let p = d.join("norun.mlir");
    std::fs::write(&p, "op\n").unwrap();
    assert!(matches!(
        run_file(&p, &cfg).status,
        TestStatus::Unresolved(_)
    ));

    let p = d.join("xpass.mlir");
    std::fs::write(&p, "// XFAIL: fake-tool\n// RUN: true\n").unwrap();
    assert_eq!(run_file(&p, &cfg).status, TestStatus::UnexpectedPass);

    let p = d.join("slow.mlir");
    std::fs::write(&p, "// RUN: sleep 5\n").unwrap();
    let mut cfg = config_in(&d);
    cfg.timeout = Some(std::time::Duration::from_millis(200));
    let o = run_file(&p, &cfg);
    assert_eq!(o.status, TestStatus::Fail);
    assert!(o.log.contains("timed out"), "{}", o.log);
    assert!(o.elapsed < std::time::Duration::from_secs(4));
    let _ = std::fs::remove_dir_all(&d);
}

fn bless_filecheck() {
    let d = scratch("bless-fc");
    let p = d.join("b.mlir");
    let original = "// RUN: tileir-opt %s -split-input-file | FileCheck %s\n\
                    // RUN: tileir-opt %s -split-input-file | FileCheck %s --check-prefix=SAME\n\
                    \n\
                    // CHECK-LABEL: stale\n\
                    first [[x]]\n\
                    // SAME: first\n\
                    \n\
                    // -----\n\
                    \n\
                    second\n\
                    // CHECK: stale too\n\
                    third\n";
    std::fs::write(&p, original).unwrap();
    let mut cfg = config_in(&d);
    assert_eq!(run_file(&p, &cfg).status, TestStatus::Fail);
    cfg.bless = true;
    let o = run_file(&p, &cfg);
    assert_eq!(o.status, TestStatus::Blessed, "{}", o.log);
    let blessed = std::fs::read_to_string(&p).unwrap();
    let expected = "// RUN: tileir-opt %s -split-input-file | FileCheck %s\n\
                    // RUN: tileir-opt %s -split-input-file | FileCheck %s --check-prefix=SAME\n\
                    \n\
                    first [[x]]\n\
                    \n\
                    // CHECK: module {\n\
                    // CHECK-NEXT:   first {{\\[\\[}}x]]\n\
                    // CHECK-NEXT: }\n\
                    \n\
                    // SAME: module {\n\
                    // SAME-NEXT:   first {{\\[\\[}}x]]\n\
                    // SAME-NEXT: }\n\
                    \n\
                    // -----\n\
                    \n\
                    second\n\
                    third\n\
                    \n\
                    // CHECK: module {\n\
                    // CHECK-NEXT:   second\n\
                    // CHECK-NEXT:   third\n\
                    // CHECK-NEXT: }\n\
                    \n\
                    // SAME: module {\n\
                    // SAME-NEXT:   second\n\
                    // SAME-NEXT:   third\n\
                    // SAME-NEXT: }\n";
    assert_eq!(blessed, expected);
    cfg.bless = false;
    assert_eq!(run_file(&p, &cfg).status, TestStatus::Pass);
    // Passing tests are left alone.
    cfg.bless = true;
    assert_eq!(run_file(&p, &cfg).status, TestStatus::Pass);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), expected);

    // A test that bless cannot fix is restored.
    let p = d.join("r.mlir");
    let text = "// RUN: tileir-opt %s | FileCheck %s\n// RUN: false\nop\n// CHECK: stale\n";
    std::fs::write(&p, text).unwrap();
    let o = run_file(&p, &cfg);
    assert_eq!(o.status, TestStatus::Fail);
    assert!(o.log.contains("original restored"), "{}", o.log);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), text);

    // `not` pipelines are not blessed.
    let p = d.join("n.mlir");
    let text = "// RUN: not tileir-opt %s 2>&1 | FileCheck %s\nx = bad\n// CHECK: nothing\n";
    std::fs::write(&p, text).unwrap();
    let o = run_file(&p, &cfg);
    assert_eq!(o.status, TestStatus::Fail);
    assert!(o.log.contains("bless: nothing to change"), "{}", o.log);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
    let _ = std::fs::remove_dir_all(&d);
}

fn bless_verify_diagnostics() {
    let d = scratch("bless-vd");
    let p = d.join("v.mlir");
    std::fs::write(
        &p,
        "// RUN: tileir-opt %s -split-input-file -verify-diagnostics\n\
         \n\
         \x20 x = bad\n\
         \n\
         // -----\n\
         \n\
         // expected-error @below {{stale}}\n\
         y = fine\n\
         z = warn // expected-error {{also stale}}\n",
    )
    .unwrap();
    let mut cfg = config_in(&d);
    cfg.bless = true;
    let o = run_file(&p, &cfg);
    assert_eq!(o.status, TestStatus::Blessed, "{}", o.log);
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "// RUN: tileir-opt %s -split-input-file -verify-diagnostics\n\
         \n\
         \x20 // expected-error @below {{'x = bad' op is invalid}}\n\
         \x20 // expected-note @below {{see current operation}}\n\
         \x20 x = bad\n\
         \n\
         // -----\n\
         \n\
         y = fine\n\
         // expected-warning @below {{op may be slow}}\n\
         z = warn\n"
    );
    let _ = std::fs::remove_dir_all(&d);
}

fn main() {
    if let Some(code) = tools::multicall_main() {
        std::process::exit(code);
    }
    let args: Vec<String> = std::env::args().collect();
    if Path::new(&args[0])
        .file_name()
        .is_some_and(|n| n == "tileir-opt")
    {
        std::process::exit(fake_opt(&args[1..]));
    }
    let filters: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with('-')).collect();
    let tests: [(&str, fn()); 4] = [
        ("lit_directory", lit_directory),
        ("failures_are_reported", failures_are_reported),
        ("bless_filecheck", bless_filecheck),
        ("bless_verify_diagnostics", bless_verify_diagnostics),
    ];
    let mut failed = 0;
    let mut ran = 0;
    for (name, f) in tests {
        if !filters.is_empty() && !filters.iter().any(|x| name.contains(x.as_str())) {
            continue;
        }
        ran += 1;
        let ok = std::panic::catch_unwind(f).is_ok();
        eprintln!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        failed += usize::from(!ok);
    }
    eprintln!(
        "\ntest result: {}. {} passed; {failed} failed",
        if failed == 0 { "ok" } else { "FAILED" },
        ran - failed
    );
    std::process::exit(i32::from(failed > 0));
}
