use super::*;

fn opts() -> CheckOptions {
    CheckOptions {
        dump_input: false,
        ..Default::default()
    }
}

fn run_with(check_text: &str, input: &str, o: &CheckOptions) -> Result<(), String> {
    check(check_text, "t.mlir", input, o)
}

#[track_caller]
fn ok(check_text: &str, input: &str) {
    if let Err(e) = run_with(check_text, input, &opts()) {
        panic!("expected success, got:\n{e}");
    }
}

#[track_caller]
fn ok_with(check_text: &str, input: &str, o: &CheckOptions) {
    if let Err(e) = run_with(check_text, input, o) {
        panic!("expected success, got:\n{e}");
    }
}

#[track_caller]
fn fails(check_text: &str, input: &str) -> String {
    match run_with(check_text, input, &opts()) {
        Ok(()) => panic!("expected failure for\n{check_text}\nagainst\n{input}"),
        Err(e) => e,
    }
}

#[track_caller]
fn fails_with(check_text: &str, input: &str, o: &CheckOptions) -> String {
    match run_with(check_text, input, o) {
        Ok(()) => panic!("expected failure"),
        Err(e) => e,
    }
}

#[test]
fn plain_checks_in_order() {
    ok("// CHECK: foo\n// CHECK: bar\n", "xx foo yy\nbar\n");
    fails("// CHECK: bar\n// CHECK: foo\n", "foo\nbar\n");
}

#[test]
fn not_found_message_looks_like_llvm() {
    let e = fails("// CHECK: foo\n// CHECK: qux\n", "foo\nbar\n");
    let expected = "t.mlir:2:11: error: CHECK: expected string not found in input\n\
                    // CHECK: qux\n\
                    \x20         ^\n\
                    <stdin>:2:1: note: scanning from here\n\
                    bar\n\
                    ^\n";
    assert!(e.starts_with(expected), "got:\n{e}");
}

#[test]
fn possible_intended_match() {
    let e = fails("CHECK: func @foo\n", "module\n  func @fop\n");
    assert!(
        e.contains("<stdin>:2:2: note: possible intended match here\n func @fop\n ^\n"),
        "{e}"
    );
}

#[test]
fn input_dump_is_appended() {
    let e = run_with("CHECK: nope\n", "a\nb\n", &CheckOptions::default()).unwrap_err();
    assert!(
        e.contains("Input was:\n<<<<<<\n     1: a\n     2: b\n>>>>>>\n"),
        "{e}"
    );
}

#[test]
fn check_next() {
    ok("CHECK: a\nCHECK-NEXT: b\n", "a\nb\n");
    let e = fails("CHECK: a\nCHECK-NEXT: b\n", "a\nx\nb\n");
    assert!(
        e.contains("error: CHECK-NEXT: is not on the line after the previous match"),
        "{e}"
    );
    assert!(e.contains("note: 'next' match was here"));
    assert!(
        e.contains("<stdin>:2:1: note: non-matching line after previous match is here"),
        "{e}"
    );
    let e = fails("CHECK: a\nCHECK-NEXT: b\n", "a b\n");
    assert!(
        e.contains("CHECK-NEXT: is on the same line as previous match"),
        "{e}"
    );
    let e = fails("CHECK-NEXT: b\n", "b\n");
    assert!(
        e.contains("error: found 'CHECK-NEXT' without previous 'CHECK: line"),
        "{e}"
    );
}

#[test]
fn check_same() {
    ok("CHECK: a\nCHECK-SAME: b\nCHECK-SAME: c\n", "a b c\n");
    let e = fails("CHECK: a\nCHECK-SAME: b\n", "a\nb\n");
    assert!(
        e.contains("t.mlir:2:13: error: CHECK-SAME: is not on the same line as the previous match"),
        "{e}"
    );
}

#[test]
fn check_empty() {
    ok("CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n", "a\n\nb\n");
    let e = fails("CHECK: a\nCHECK-EMPTY:\n", "a\nb\n\n");
    assert!(
        e.contains("CHECK-EMPTY: is not on the line after the previous match"),
        "{e}"
    );
    let e = fails("CHECK: a\nCHECK-EMPTY: x\n", "a\n\n");
    assert!(
        e.contains("found non-empty check string for empty check with prefix 'CHECK:'"),
        "{e}"
    );
}

#[test]
fn check_not_between_matches() {
    ok("CHECK: a\nCHECK-NOT: bad\nCHECK: z\n", "a\nok\nz\nbad\n");
    let e = fails("CHECK: a\nCHECK-NOT: bad\nCHECK: z\n", "a\nbad\nz\n");
    assert!(
        e.starts_with("t.mlir:2:12: error: CHECK-NOT: excluded string found in input\n"),
        "{e}"
    );
    assert!(
        e.contains("<stdin>:2:1: note: found here\nbad\n^~~\n"),
        "{e}"
    );
    // Before the first match and after the last one.
    fails("CHECK-NOT: bad\nCHECK: zz\n", "bad\nzz\n");
    ok("CHECK-NOT: bad\nCHECK: zz\n", "zz\nbad\n");
    fails("CHECK: zz\nCHECK-NOT: bad\n", "zz\nbad\n");
    ok("CHECK: zz\nCHECK-NOT: bad\n", "bad\nzz\n");
    // Only NOTs: checked against the whole input.
    ok("CHECK-NOT: bad\n", "good\n");
    fails("CHECK-NOT: bad\n", "so bad\n");
}

#[test]
fn check_dag_any_order() {
    let chk = "CHECK: start\nCHECK-DAG: x\nCHECK-DAG: y\nCHECK: end\n";
    ok(chk, "start\ny\nx\nend\n");
    ok(chk, "start\nx\ny\nend\n");
    // Matches must be after the previous CHECK and before the next one.
    fails(chk, "x\nstart\ny\nend\n");
    fails(chk, "start\ny\nend\nx\n");
}

#[test]
fn check_dag_no_overlap() {
    // Two identical DAGs need two occurrences.
    ok("CHECK-DAG: foo\nCHECK-DAG: foo\n", "foo\nfoo\n");
    let e = fails("CHECK-DAG: foo\nCHECK-DAG: foo\n", "foo\n");
    assert!(
        e.contains("CHECK-DAG: expected string not found in input"),
        "{e}"
    );
    // An earlier DAG match does not block a later pattern matching before it.
    ok("CHECK-DAG: b\nCHECK-DAG: a\n", "a b\n");
}

#[test]
fn check_dag_groups_separated_by_not() {
    let chk = "CHECK-DAG: x1\nCHECK-DAG: x2\nCHECK-NOT: bad\nCHECK-DAG: x3\nCHECK-DAG: x4\n";
    ok(chk, "x2\nx1\nok\nx4\nx3\n");
    fails(chk, "x2\nx1\nbad\nx4\nx3\n");
    // The second group must follow the first one entirely.
    fails(chk, "x2\nx3\nx1\nx4\n");
}

#[test]
fn check_dag_then_next() {
    ok("CHECK: a\nCHECK-DAG: x\nCHECK-NEXT: y\n", "a\nx\ny\n");
}

#[test]
fn check_label_splits_blocks() {
    let chk = "CHECK-LABEL: func @one\nCHECK: ret 1\nCHECK-LABEL: func @two\nCHECK: ret 2\n";
    ok(chk, "func @one\nret 1\nfunc @two\nret 2\n");
    // `ret 1` must be in the @one block; it is not allowed to come from @two.
    let e = fails(chk, "func @one\nret 3\nfunc @two\nret 1\nret 2\n");
    assert!(
        e.contains("t.mlir:2:8: error: CHECK: expected string not found in input"),
        "{e}"
    );
    // A failure in the first block does not stop checking of the second.
    let e = fails(chk, "func @one\nret 3\nfunc @two\nret 4\n");
    assert_eq!(e.matches("expected string not found").count(), 2, "{e}");
    // A missing label fails immediately.
    let e = fails(chk, "func @one\nret 1\n");
    assert!(
        e.contains("CHECK-LABEL: expected string not found in input"),
        "{e}"
    );
}

#[test]
fn check_label_with_variable_is_rejected() {
    let e = fails("CHECK-LABEL: func [[X:@.*]]\n", "func @a\n");
    assert!(
        e.contains("found 'CHECK-LABEL:' with variable definition or use"),
        "{e}"
    );
}

#[test]
fn captures_reused_across_lines() {
    let chk = "CHECK: %[[C:.*]] = constant\nCHECK: addi %[[C]], %[[C]]\n";
    ok(chk, "%c42 = constant\n%1 = addi %c42, %c42\n");
    let e = fails(chk, "%c42 = constant\n%1 = addi %c42, %c43\n");
    assert!(e.contains("note: with \"C\" equal to \"c42\""), "{e}");
    // Variable values are escaped when substituted.
    ok(
        "CHECK: [[V:.*]] =\nCHECK: use [[V]]\n",
        "a.b* =\nuse a.b*\n",
    );
    fails(
        "CHECK: [[V:.*]] =\nCHECK: use [[V]]\n",
        "a.b* =\nuse axbb\n",
    );
}

#[test]
fn capture_redefinition() {
    ok(
        "CHECK: x=[[V:[0-9]+]]\nCHECK: y=[[V]]\nCHECK: x=[[V:[0-9]+]]\nCHECK: y=[[V]]\n",
        "x=1\ny=1\nx=2\ny=2\n",
    );
}

#[test]
fn same_line_backreference() {
    ok("CHECK: [[A:[a-z]+]] == [[A]]\n", "foo == bar\nbaz == baz\n");
    fails("CHECK: [[A:[a-z]+]] == [[A]]\n", "foo == bar\n");
}

#[test]
fn undefined_variable() {
    let e = fails("CHECK: [[NOPE]]\n", "x\n");
    assert!(
        e.starts_with("t.mlir:1:10: error: undefined variable: NOPE\n"),
        "{e}"
    );
}

#[test]
fn numeric_blocks_are_rejected() {
    let e = fails("CHECK: [[#N+1]]\n", "x\n");
    assert!(
        e.contains("numeric substitution blocks ([[#...]]) are not supported"),
        "{e}"
    );
}

#[test]
fn bracket_literal_needs_escaping_like_llvm() {
    let e = fails("CHECK: dense<[[1, 2]]>\n", "dense<[[1, 2]]>\n");
    assert!(
        e.contains("t.mlir:1:18: error: unexpected whitespace"),
        "{e}"
    );
    let e = fails("CHECK: [[a]b]]\n", "x\n");
    assert!(
        e.contains("missing closing \"]\" for regex variable"),
        "{e}"
    );
    ok("CHECK: dense<{{\\[\\[}}1, 2]]>\n", "dense<[[1, 2]]>\n");
    // "[[[" treats the first bracket literally.
    ok("CHECK: [[[X:[0-9]]]]\n", "[7]\n");
}

#[test]
fn inline_regex() {
    ok("CHECK: tile<{{[0-9]+}}xf32>\n", "tile<128xf32>\n");
    fails("CHECK: tile<{{[0-9]+}}xf32>\n", "tile<Nxf32>\n");
    ok("CHECK: a{{x|y}}b\n", "ayb\n");
    ok("CHECK: {{^}}foo{{$}}\n", "  bar\nfoo\n");
    fails("CHECK: {{^}}foo{{$}}\n", " foo\n");
    // `.` does not cross lines.
    fails("CHECK: a{{.*}}b\n", "a\nb\n");
    let e = fails("CHECK: a{{(}}\n", "a\n");
    assert!(e.contains("invalid regex"), "{e}");
    let e = fails("CHECK: a{{b\n", "a\n");
    assert!(
        e.contains("found start of regex string with no end '}}'"),
        "{e}"
    );
}

#[test]
fn whitespace_canonicalization() {
    ok("CHECK: a   b\n", "a \t b\n");
    ok("CHECK: a b\n", "a\t\tb\n");
    fails("CHECK: a b\n", "ab\n");
    // Leading/trailing whitespace of a pattern is ignored.
    ok("CHECK:     a   \n", "a\n");
    let strict = CheckOptions {
        strict_whitespace: true,
        ..opts()
    };
    fails_with("CHECK: a  b\n", "a b\n", &strict);
    ok_with("CHECK: a  b\n", "a  b\n", &strict);
}

#[test]
fn match_full_lines() {
    let o = CheckOptions {
        match_full_lines: true,
        ..opts()
    };
    ok_with("CHECK: foo bar\n", "  foo bar  \n", &o);
    fails_with("CHECK: foo\n", "foo bar\n", &o);
    // CHECK-NOT is not anchored.
    fails_with("CHECK-NOT: bad\nCHECK: ok\n", "a bad b\nok\n", &o);
}

#[test]
fn ignore_case() {
    let o = CheckOptions {
        ignore_case: true,
        ..opts()
    };
    ok_with("CHECK: HeLLo\nCHECK: {{W}}orld\n", "hello\nworld\n", &o);
}

#[test]
fn custom_prefixes() {
    let o = CheckOptions::with_prefix("MAGIC");
    let o = CheckOptions {
        dump_input: false,
        ..o
    };
    ok_with("// MAGIC: 7f\n// CHECK: ignored\n", "7f\n", &o);
    let o2 = CheckOptions {
        check_prefixes: vec!["A".into(), "B".into()],
        dump_input: false,
        ..Default::default()
    };
    ok_with("A: one\nB: two\n", "one\ntwo\n", &o2);
    let e = fails_with("A: one\n", "one\n", &o2);
    assert_eq!(e, "error: no check strings found with prefix 'B:'\n");
    let o3 = CheckOptions {
        allow_unused_prefixes: true,
        ..o2
    };
    ok_with("A: one\n", "one\n", &o3);
    // A longer prefix sharing a stem is a different word.
    let o4 = CheckOptions {
        check_prefixes: vec!["CHECK-250".into()],
        dump_input: false,
        ..Default::default()
    };
    ok_with(
        "// CHECK-250: x\n// CHECK-250-NEXT: y\n// CHECK: nope\n",
        "x\ny\n",
        &o4,
    );
    // Prefix must not be a suffix of another word.
    let e = fails("// XCHECK: a\n", "a\n");
    assert_eq!(e, "error: no check strings found with prefix 'CHECK:'\n");
    let e = check("", "t", "x", &CheckOptions::with_prefix("1BAD")).unwrap_err();
    assert!(e.contains("is invalid"), "{e}");
}

#[test]
fn comments_and_run_lines() {
    ok("// COM: CHECK: not a check\n// CHECK: real\n", "real\n");
    ok(
        "// RUN: tool | FileCheck %s --check-prefix=CHECK-X\n// CHECK: real\n",
        "real\n",
    );
    // A comment prefix with a suffix is not a comment.
    ok("// COM-X: whatever CHECK: real\n", "real\n");
}

#[test]
fn check_count() {
    ok("CHECK-COUNT-3: x\nCHECK-NEXT: y\n", "x\nx\nx\ny\n");
    let e = fails("CHECK-COUNT-3: x\n", "x\nx\n");
    assert!(
        e.contains("CHECK-COUNT: expected string not found in input (2 out of 3)"),
        "{e}"
    );
    let e = fails("CHECK-COUNT-0: x\n", "x\n");
    assert!(
        e.contains("invalid count in -COUNT specification on prefix 'CHECK'"),
        "{e}"
    );
}

#[test]
fn literal_modifier() {
    ok("CHECK{LITERAL}: [[a]] {{b}}\n", "x [[a]] {{b}}\n");
}

#[test]
fn at_line() {
    ok(
        "\nCHECK: line [[@LINE]]\nCHECK: prev [[@LINE-1]]\n",
        "line 2\nprev 2\n",
    );
}

#[test]
fn implicit_check_not() {
    let o = CheckOptions {
        implicit_check_not: vec!["error".into()],
        ..opts()
    };
    ok_with("CHECK: a\n", "a\nb\n", &o);
    let e = fails_with("CHECK: a\n", "a\nerror here\n", &o);
    assert!(
        e.starts_with(
            "command line:1:22: error: IMPLICIT-CHECK-NOT: excluded string found in input"
        ),
        "{e}"
    );
    fails_with("CHECK: a\n", "error\na\n", &o);
}

#[test]
fn defines_and_var_scope() {
    let o = CheckOptions {
        defines: vec![("N".into(), "42".into())],
        ..opts()
    };
    ok_with("CHECK: value [[N]]\n", "value 42\n", &o);
    let chk = "CHECK-LABEL: one\nCHECK: [[X:[a-z]+]] [[$G:[a-z]+]]\nCHECK-LABEL: two\nCHECK: [[$G]] [[X]]\n";
    let input = "one\nfoo bar\ntwo\nbar foo\n";
    ok(chk, input);
    let scoped = CheckOptions {
        enable_var_scope: true,
        ..opts()
    };
    let e = fails_with(chk, input, &scoped);
    assert!(e.contains("undefined variable: X"), "{e}");
}

#[test]
fn empty_input() {
    let e = fails("CHECK-NOT: x\n", "");
    assert_eq!(e, "FileCheck error: '<stdin>' is empty.\n");
    let o = CheckOptions {
        allow_empty: true,
        ..opts()
    };
    ok_with("CHECK-NOT: x\n", "", &o);
}

#[test]
fn empty_check_string_is_an_error() {
    let e = fails("CHECK:\n", "x\n");
    assert!(
        e.contains("found empty check string with prefix 'CHECK:'"),
        "{e}"
    );
}

#[test]
fn no_checks_is_an_error() {
    let e = fails("nothing here\n", "x\n");
    assert_eq!(e, "error: no check strings found with prefix 'CHECK:'\n");
}

#[test]
fn bad_not_combo() {
    let e = fails("CHECK-DAG-NOT: x\n", "x\n");
    assert!(
        e.contains("unsupported -NOT combo on prefix 'CHECK'"),
        "{e}"
    );
}

#[test]
fn negated_class_does_not_cross_lines() {
    fails("CHECK: a{{[^;]*}}b\n", "a\nb\n");
    ok("CHECK: a{{[^;]*}}b\n", "a xx b\n");
}

#[test]
fn mlir_style_test() {
    let chk = r#"
// RUN: tileir-opt %s | FileCheck %s
// CHECK-LABEL: cuda_tile.module @kernels
// CHECK: entry @add(%[[A:.*]]: !cuda_tile.tile<f32>, %[[B:.*]]: !cuda_tile.tile<f32>)
// CHECK-NEXT: %[[R:.*]] = addf %[[A]], %[[B]]
// CHECK-SAME: : tile<f32>
// CHECK-NOT: mulf
// CHECK: return
"#;
    let input = "cuda_tile.module @kernels {\n  entry @add(%arg0: !cuda_tile.tile<f32>, %arg1: !cuda_tile.tile<f32>) {\n    %0 = addf %arg0, %arg1  : tile<f32>\n    return\n  }\n}\n";
    ok(chk, input);
}

#[test]
fn command_line_parsing() {
    let args: Vec<String> = [
        "%s",
        "--check-prefix=A",
        "-check-prefix",
        "B",
        "--check-prefixes=C,D",
        "--input-file",
        "in.txt",
        "--strict-whitespace",
        "-DX=1",
        "-D",
        "Y=2",
        "--dump-input=never",
        "--implicit-check-not=err",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let cl = parse_command_line(&args).unwrap();
    assert_eq!(cl.check_file, "%s");
    assert_eq!(cl.input_file.as_deref(), Some("in.txt"));
    assert_eq!(cl.options.check_prefixes, vec!["A", "B", "C", "D"]);
    assert!(cl.options.strict_whitespace);
    assert!(!cl.options.dump_input);
    assert_eq!(
        cl.options.defines,
        vec![
            ("X".to_string(), "1".to_string()),
            ("Y".to_string(), "2".to_string())
        ]
    );
    assert_eq!(cl.options.implicit_check_not, vec!["err"]);
    assert!(parse_command_line(&["f".to_string(), "--bogus".to_string()]).is_err());
    assert!(parse_command_line(&[]).is_err());
}
