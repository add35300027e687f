//! Tests of the `tileir-filecheck` and `tileir-not` binaries.

use std::io::Write;
use std::process::{Command, Stdio};

fn filecheck(args: &[&str], stdin: &str) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tileir-filecheck"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tileir-filecheck");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.stdout.is_empty(), "FileCheck must not write to stdout");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_dir(test: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("tileir-filetest-cli-{}-{test}", std::process::id()))
}

fn temp_file(test: &str, name: &str, text: &str) -> std::path::PathBuf {
    let dir = temp_dir(test);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn filecheck_stdin_and_exit_codes() {
    let chk = temp_file(
        "stdin",
        "a.mlir",
        "// RUN: x | FileCheck %s\n// CHECK: hello\n// CHECK-NEXT: world\n",
    );
    let chk = chk.to_str().unwrap();
    assert_eq!(filecheck(&[chk], "hello\nworld\n").0, 0);
    let (code, err) = filecheck(&[chk], "hello\nthere\nworld\n");
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "{chk}:3:16: error: CHECK-NEXT: is not on the line after the previous match"
        )),
        "{err}"
    );
    assert!(
        err.contains("<stdin>:3:1: note: 'next' match was here"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(temp_dir("stdin"));
}

#[test]
fn filecheck_prefixes_and_input_file() {
    let chk = temp_file("prefixes", "b.mlir", "// MAGIC: 7f 54\n// VERSION: 13.1\n");
    let input = temp_file("prefixes", "b.txt", "7f   54\n13.1\n");
    let chk = chk.to_str().unwrap();
    let input = input.to_str().unwrap();
    assert_eq!(
        filecheck(
            &[chk, "--check-prefixes=MAGIC,VERSION", "--input-file", input],
            ""
        )
        .0,
        0
    );
    assert_eq!(
        filecheck(&[chk, "--check-prefix=MAGIC", "--input-file", input], "").0,
        0
    );
    let (code, err) = filecheck(
        &[chk, "--check-prefix", "VERSION", "--input-file", input],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let (code, err) = filecheck(&[chk, "--check-prefix=NOPE"], "x\n");
    assert_eq!(code, 1);
    assert!(
        err.contains("no check strings found with prefix 'NOPE:'"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(temp_dir("prefixes"));
}

#[test]
fn filecheck_usage_errors() {
    assert_eq!(filecheck(&[], "").0, 2);
    assert_eq!(filecheck(&["/nonexistent/check"], "").0, 2);
    let chk = temp_file("usage", "c.mlir", "// CHECK: x\n");
    let (code, err) = filecheck(&[chk.to_str().unwrap()], "");
    assert_eq!(code, 2);
    assert!(
        err.contains("FileCheck error: '<stdin>' is empty."),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(temp_dir("usage"));
}

#[test]
fn not_binary() {
    let not = env!("CARGO_BIN_EXE_tileir-not");
    let st = |args: &[&str]| Command::new(not).args(args).status().unwrap().code();
    assert_eq!(st(&["false"]), Some(0));
    assert_eq!(st(&["true"]), Some(1));
    assert_eq!(st(&["--crash", "sh", "-c", "kill -ABRT $$"]), Some(0));
    assert_eq!(st(&["sh", "-c", "kill -ABRT $$"]), Some(1));
}
