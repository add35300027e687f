//! Bless mode: regenerate the expectations of a failing test from the actual
//! output of the tools.
//!
//! Bless runs when `TILEIR_BLESS=1` is set in the environment (any value
//! other than empty or `0`) or [`RunnerConfig::bless`](crate::runner::RunnerConfig::bless)
//! is true, and only for tests that fail (tests marked `XFAIL` are never
//! blessed). Policy:
//!
//! **FileCheck tests.** A RUN line qualifies when it has the form
//! `PRODUCER | FileCheck %s [--check-prefix=P]` (or `tileir-filecheck`):
//! FileCheck is the last element of the pipeline, its check file is `%s`,
//! it has at most one prefix (`--check-prefix=P`, `--check-prefix P` or
//! `--check-prefixes=P`) and no option other than `--enable-var-scope`,
//! `--allow-unused-prefixes`, `--dump-input*`, `-v`, `-vv`, `--color`. The
//! producer must not start with `not` (error text contains file paths). For
//! each prefix the first qualifying RUN line is used; its producer is run
//! once (stdout only) and then, for that prefix:
//!
//! 1. the file is cut into chunks at lines consisting of `// -----` when the
//!    producer passes `-split-input-file` (the output is cut the same way
//!    and the i-th output chunk belongs to the i-th file chunk; bless fails if
//!    the counts differ); otherwise the whole file is one chunk;
//! 2. every line of the chunk that is a directive of that prefix
//!    (`// P:`, `// P-NEXT:`, `-SAME`, `-NOT`, `-DAG`, `-LABEL`, `-EMPTY`,
//!    `-COUNT-n`, with or without `{LITERAL}`) is dropped; all other lines are
//!    kept as they are;
//! 3. trailing blank lines of the chunk are removed and, after one blank
//!    line, one directive per non-empty output line is appended:
//!    `// P: <line>` for the first line of the chunk and for a line that
//!    follows one or more blank output lines, `// P-NEXT: <line>` otherwise.
//!    Trailing whitespace is dropped; `[[` and `{{` in the output are written
//!    as `{{\[\[}}` and `{{\{\{}}` so they are matched literally;
//! 4. a chunk that is followed by a separator gets one blank line before it.
//!
//! **`-verify-diagnostics` tests.** For RUN lines containing
//! `-verify-diagnostics` that do not pipe into FileCheck, the command is
//! re-run and its failure report (the wording of
//! [`verify_diagnostics`](crate::diagnostics::verify_diagnostics)) is parsed:
//! for `FILE:L:C: error: unexpected KIND: MSG` an annotation
//! `// expected-KIND @below {{MSG}}` (indented like line L) is inserted right
//! above line L; for `FILE:L:C: error: expected KIND "MSG" was not produced`
//! the annotation on line L is removed (the whole line when it holds nothing
//! else). Diagnostics without a location and severity near misses are not
//! blessed. Annotation edits are applied before CHECK regeneration.
//!
//! After rewriting, the test is run again (up to three bless rounds, since
//! moving lines can change printed locations); it is reported as
//! [`Blessed`](crate::runner::TestStatus::Blessed) only if it then passes.
//! Otherwise the original file is restored and the test fails, with the bless
//! notes and the output of the last blessed version in its log.

use std::collections::BTreeMap;

/// A RUN line of the form `PRODUCER | FileCheck %s [--check-prefix=P]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCheckRun {
    /// The pipeline before the last `|` (unsubstituted).
    pub producer: String,
    /// The check prefix (`CHECK` by default).
    pub prefix: String,
    /// Whether the producer splits its input (`-split-input-file`).
    pub split: bool,
}

/// Split a shell command at top-level `|` (not `||`, not inside quotes).
pub fn split_pipeline(cmd: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = cmd.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (Some(_), '\\') => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.push(c);
            }
            (None, '\\') => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (None, '|') => {
                if chars.peek() == Some(&'|') {
                    chars.next();
                    cur.push_str("||");
                } else {
                    parts.push(std::mem::take(&mut cur));
                }
            }
            (None, c) => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

/// Split a command into words (simple shell quoting rules).
pub fn shell_words(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for n in chars.by_ref() {
                    if n == '\'' {
                        break;
                    }
                    cur.push(n);
                }
            }
            '"' => {
                in_word = true;
                while let Some(n) = chars.next() {
                    match n {
                        '"' => break,
                        '\\' => {
                            if let Some(m) = chars.next() {
                                cur.push(m);
                            }
                        }
                        _ => cur.push(n),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Recognise a blessable FileCheck RUN line (see the module docs).
pub fn parse_filecheck_run(cmd: &str) -> Option<FileCheckRun> {
    let mut parts = split_pipeline(cmd);
    if parts.len() < 2 {
        return None;
    }
    let last = parts.pop()?;
    let words = shell_words(&last);
    let tool = words.first()?;
    if tool != "FileCheck" && tool != "tileir-filecheck" {
        return None;
    }
    let mut prefix: Option<String> = None;
    let mut saw_check_file = false;
    let mut i = 1;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if w == "%s" && !saw_check_file {
            saw_check_file = true;
            continue;
        }
        let body = w.trim_start_matches('-');
        if !w.starts_with('-') {
            return None;
        }
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        match name {
            "check-prefix" | "check-prefixes" => {
                let v = match value {
                    Some(v) => v,
                    None => {
                        let v = words.get(i)?.clone();
                        i += 1;
                        v
                    }
                };
                if prefix.is_some() || v.contains(',') || v.is_empty() {
                    return None;
                }
                prefix = Some(v);
            }
            "enable-var-scope"
            | "allow-unused-prefixes"
            | "dump-input"
            | "dump-input-context"
            | "dump-input-filter"
            | "v"
            | "vv"
            | "color" => {}
            _ => return None,
        }
    }
    if !saw_check_file {
        return None;
    }
    let producer = parts.join("|").trim().to_string();
    let first = shell_words(&producer).into_iter().next()?;
    if first == "not" {
        return None;
    }
    let split = shell_words(&producer)
        .iter()
        .any(|w| w.starts_with("-split-input-file") || w.starts_with("--split-input-file"));
    Some(FileCheckRun {
        producer,
        prefix: prefix.unwrap_or_else(|| "CHECK".to_string()),
        split,
    })
}

/// Escape an output line for use as a FileCheck pattern.
pub fn escape_check_text(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        if rest.starts_with("[[") {
            out.push_str("{{\\[\\[}}");
            rest = &rest[2..];
        } else if rest.starts_with("{{") {
            out.push_str("{{\\{\\{}}");
            rest = &rest[2..];
        } else {
            let c = rest.chars().next().expect("non-empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Whether `line` is a FileCheck directive of `prefix` written as a `//` comment.
pub fn is_check_line(line: &str, prefix: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("//") else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix(prefix) else {
        return false;
    };
    let mut rest = rest;
    for suffix in ["-NEXT", "-SAME", "-NOT", "-DAG", "-LABEL", "-EMPTY"] {
        if let Some(r) = rest.strip_prefix(suffix) {
            rest = r;
            break;
        }
    }
    if let Some(r) = rest.strip_prefix("-COUNT-") {
        rest = r.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let rest = rest.strip_prefix("{LITERAL}").unwrap_or(rest);
    rest.starts_with(':')
}

fn is_separator(line: &str) -> bool {
    line.trim() == crate::split::SPLIT_MARKER
}

/// Generate the directives for one chunk of output.
pub fn checks_for_output(prefix: &str, output: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut prev_nonempty = false;
    for l in output.lines() {
        let l = l.trim_end();
        if l.trim().is_empty() {
            prev_nonempty = false;
            continue;
        }
        let directive = if lines.is_empty() || !prev_nonempty {
            ""
        } else {
            "-NEXT"
        };
        lines.push(format!("// {prefix}{directive}: {}", escape_check_text(l)));
        prev_nonempty = true;
    }
    lines
}

/// Rewrite the `prefix` directives of `file_text` from `output` (policy in
/// the module docs). Fails if `split` and the chunk counts differ.
pub fn rewrite_checks(
    file_text: &str,
    prefix: &str,
    output: &str,
    split: bool,
) -> Result<String, String> {
    let lines: Vec<&str> = file_text.lines().collect();
    // File chunks: lists of line indices; separators are kept separately.
    let mut chunks: Vec<Vec<&str>> = vec![Vec::new()];
    let mut separators: Vec<&str> = Vec::new();
    for l in &lines {
        if split && is_separator(l) {
            separators.push(l);
            chunks.push(Vec::new());
        } else {
            chunks.last_mut().expect("non-empty").push(l);
        }
    }
    let out_chunks: Vec<String> = if split {
        let mut v = vec![String::new()];
        for l in output.lines() {
            if is_separator(l) {
                v.push(String::new());
            } else {
                let cur = v.last_mut().expect("non-empty");
                cur.push_str(l);
                cur.push('\n');
            }
        }
        v
    } else {
        vec![output.to_string()]
    };
    if out_chunks.len() != chunks.len() {
        return Err(format!(
            "bless: the file has {} chunk(s) but the output has {}",
            chunks.len(),
            out_chunks.len()
        ));
    }
    let mut result: Vec<String> = Vec::new();
    let n = chunks.len();
    for (k, (chunk, out)) in chunks.iter().zip(&out_chunks).enumerate() {
        let mut body: Vec<String> = chunk
            .iter()
            .filter(|l| !is_check_line(l, prefix))
            .map(|l| l.to_string())
            .collect();
        while body.last().is_some_and(|l| l.trim().is_empty()) {
            body.pop();
        }
        let checks = checks_for_output(prefix, out);
        if !checks.is_empty() {
            if !body.is_empty() {
                body.push(String::new());
            }
            body.extend(checks);
        }
        result.extend(body);
        if k + 1 < n {
            result.push(String::new());
            result.push(separators[k].to_string());
        }
    }
    let mut text = result.join("\n");
    text.push('\n');
    Ok(text)
}

/// One edit of `expected-*` annotations derived from a tool's failure report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyEdit {
    /// Insert `// expected-<severity> @below {{message}}` above `line`.
    Insert {
        /// 1-based line of the diagnostic in the file.
        line: usize,
        /// `error`, `warning`, `note` or `remark`.
        severity: String,
        /// The diagnostic message.
        message: String,
    },
    /// Remove the annotation on `line` (1-based).
    Remove {
        /// 1-based line of the annotation.
        line: usize,
    },
}

/// Parse a `-verify-diagnostics` failure report for the file named
/// `file_name` (compared by file name, so relative and absolute spellings of
/// the path both match).
pub fn parse_verify_failures(tool_output: &str, file_name: &str) -> Vec<VerifyEdit> {
    static RE: std::sync::OnceLock<(regex::Regex, regex::Regex)> = std::sync::OnceLock::new();
    let (unexpected, missing) = RE.get_or_init(|| {
        (
            regex::Regex::new(r"^(.+?):(\d+):(?:\d+:)? error: unexpected (error|warning|note|remark): (.*)$")
                .expect("valid"),
            regex::Regex::new(r#"^(.+?):(\d+):(?:\d+:)? error: expected (error|warning|note|remark) "(.*)" was not produced$"#)
                .expect("valid"),
        )
    });
    let same_file = |p: &str| {
        std::path::Path::new(p).file_name() == std::path::Path::new(file_name).file_name()
    };
    let mut edits = Vec::new();
    for l in tool_output.lines() {
        if let Some(c) = unexpected.captures(l) {
            if same_file(&c[1]) {
                if let Ok(line) = c[2].parse() {
                    edits.push(VerifyEdit::Insert {
                        line,
                        severity: c[3].to_string(),
                        message: c[4].to_string(),
                    });
                }
            }
        } else if let Some(c) = missing.captures(l) {
            if same_file(&c[1]) {
                if let Ok(line) = c[2].parse() {
                    edits.push(VerifyEdit::Remove { line });
                }
            }
        }
    }
    edits
}

/// Apply annotation edits (line numbers refer to `file_text`).
pub fn apply_verify_edits(file_text: &str, edits: &[VerifyEdit]) -> String {
    let lines: Vec<&str> = file_text.lines().collect();
    let mut inserts: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut removes = std::collections::BTreeSet::new();
    for e in edits {
        match e {
            VerifyEdit::Insert {
                line,
                severity,
                message,
            } => {
                let Some(target) = lines.get(line.wrapping_sub(1)) else {
                    continue;
                };
                let indent: String = target.chars().take_while(|c| c.is_whitespace()).collect();
                inserts.entry(*line).or_default().push(format!(
                    "{indent}// expected-{severity} @below {{{{{message}}}}}"
                ));
            }
            VerifyEdit::Remove { line } => {
                removes.insert(*line);
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let n = i + 1;
        if let Some(v) = inserts.get(&n) {
            out.extend(v.iter().cloned());
        }
        if removes.contains(&n) {
            if let Some(pos) = l.find("expected-") {
                let before = &l[..pos];
                let cut = before.rfind("//").unwrap_or(pos);
                let kept = l[..cut].trim_end();
                if !kept.trim().is_empty() {
                    out.push(kept.to_string());
                }
                continue;
            }
        }
        out.push(l.to_string());
    }
    let mut text = out.join("\n");
    if file_text.ends_with('\n') || !text.is_empty() {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipeline_splitting() {
        assert_eq!(
            split_pipeline("a | b 'x|y' || c | d"),
            vec!["a ", " b 'x|y' || c ", " d"]
        );
        assert_eq!(
            shell_words(" a 'b c' \"d\\\"e\" f\\ g"),
            vec!["a", "b c", "d\"e", "f g"]
        );
    }

    #[test]
    fn recognises_filecheck_runs() {
        let r = parse_filecheck_run(" tileir-opt %s | tileir-opt | FileCheck %s").unwrap();
        assert_eq!(r.producer, "tileir-opt %s | tileir-opt");
        assert_eq!(r.prefix, "CHECK");
        assert!(!r.split);
        let r = parse_filecheck_run(
            "tileir-opt %s -split-input-file | FileCheck %s --check-prefix=GEN",
        )
        .unwrap();
        assert_eq!(r.prefix, "GEN");
        assert!(r.split);
        let r = parse_filecheck_run("tileir-opt %s | FileCheck --check-prefix X %s").unwrap();
        assert_eq!(r.prefix, "X");
        assert!(parse_filecheck_run("not tileir-opt %s 2>&1 | FileCheck %s").is_none());
        assert!(parse_filecheck_run("tileir-opt %s | FileCheck %s --check-prefixes=A,B").is_none());
        assert!(parse_filecheck_run("tileir-opt %s | FileCheck %s --strict-whitespace").is_none());
        assert!(parse_filecheck_run("tileir-opt %s -verify-diagnostics").is_none());
        assert!(parse_filecheck_run("tileir-opt %s | FileCheck %t").is_none());
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape_check_text("dense<[[1, 2]]> {{x}}"),
            "dense<{{\\[\\[}}1, 2]]> {{\\{\\{}}x}}"
        );
        let pat = format!("CHECK: {}\n", escape_check_text("a [[[1]]] {{b}} c"));
        crate::filecheck::check(&pat, "t", "a [[[1]]] {{b}} c\n", &Default::default()).unwrap();
    }

    #[test]
    fn check_line_detection() {
        assert!(is_check_line("  // CHECK: x", "CHECK"));
        assert!(is_check_line("// CHECK-NEXT: x", "CHECK"));
        assert!(is_check_line("// CHECK-COUNT-2: x", "CHECK"));
        assert!(is_check_line("// CHECK-LABEL{LITERAL}: x", "CHECK"));
        assert!(!is_check_line("// CHECKX: x", "CHECK"));
        assert!(!is_check_line("// GEN: x", "CHECK"));
        assert!(!is_check_line("// RUN: FileCheck %s", "CHECK"));
        assert!(!is_check_line("%0 = op // CHECK: x", "CHECK"));
    }

    #[test]
    fn rewrite_single_chunk() {
        let file = "// RUN: tileir-opt %s | FileCheck %s\n\n// CHECK-LABEL: old\nfunc @f() {\n// CHECK: stale\n  return\n}\n\n";
        let out = "module {\n  func @f() {\n    return\n  }\n\n}\n";
        let new = rewrite_checks(file, "CHECK", out, false).unwrap();
        assert_eq!(
            new,
            "// RUN: tileir-opt %s | FileCheck %s\n\nfunc @f() {\n  return\n}\n\n\
             // CHECK: module {\n// CHECK-NEXT:   func @f() {\n// CHECK-NEXT:     return\n// CHECK-NEXT:   }\n// CHECK: }\n"
        );
        // The result passes FileCheck against the output.
        crate::filecheck::check(&new, "t", out, &Default::default()).unwrap();
        // Idempotent.
        assert_eq!(rewrite_checks(&new, "CHECK", out, false).unwrap(), new);
    }

    #[test]
    fn rewrite_split_chunks() {
        let file = "// RUN: x\nop1\n// CHECK: old1\n\n// -----\n\nop2\n// -----\nop3\n";
        let out = "r1\n// -----\nr2a\nr2b\n// -----\n";
        let new = rewrite_checks(file, "CHECK", out, true).unwrap();
        assert_eq!(
            new,
            "// RUN: x\nop1\n\n// CHECK: r1\n\n// -----\n\nop2\n\n// CHECK: r2a\n// CHECK-NEXT: r2b\n\n// -----\nop3\n"
        );
        crate::filecheck::check(&new, "t", out, &Default::default()).unwrap();
        assert!(rewrite_checks(file, "CHECK", "a\n", true).is_err());
    }

    #[test]
    fn rewrite_keeps_other_prefixes() {
        let file = "x\n// GEN: keep\n// CHECK: drop\n";
        let new = rewrite_checks(file, "CHECK", "y\n", false).unwrap();
        assert_eq!(new, "x\n// GEN: keep\n\n// CHECK: y\n");
    }

    #[test]
    fn verify_edits() {
        let file = "// RUN: tileir-opt %s -verify-diagnostics\n  %0 = bad\n// expected-error @below {{gone}}\nop\nop2 // expected-error {{also gone}}\n";
        let report = "/abs/dir/t.mlir:2:3: error: unexpected error: 'bad' op is bad\n\
                      /abs/dir/t.mlir:2:3: error: unexpected note: see {here}\n\
                      /abs/dir/t.mlir:3:4: error: expected error \"gone\" was not produced\n\
                      /abs/dir/t.mlir:5:8: error: expected error \"also gone\" was not produced\n\
                      error: unexpected error: no location\n\
                      /abs/dir/other.mlir:1:1: error: unexpected error: elsewhere\n";
        let edits = parse_verify_failures(report, "t.mlir");
        assert_eq!(edits.len(), 4);
        let new = apply_verify_edits(file, &edits);
        assert_eq!(
            new,
            "// RUN: tileir-opt %s -verify-diagnostics\n  // expected-error @below {{'bad' op is bad}}\n  // expected-note @below {{see {here}}}\n  %0 = bad\nop\nop2\n"
        );
        let (exp, _) = crate::diagnostics::parse_expected_diagnostics(&new);
        assert_eq!(exp[0].line, Some(4));
        assert_eq!(exp[1].substring, "see {here}");
    }
}
