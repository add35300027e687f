//! MLIR `-verify-diagnostics` matching.
//!
//! This reproduces MLIR's `SourceMgrDiagnosticVerifierHandler` for one
//! (split) chunk of a test file:
//!
//! * An annotation is recognised anywhere on a line (after trimming trailing
//!   whitespace) by the regex
//!   `expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *([0-9]+ *)?{{(.*)}}$`.
//!   The message is everything between the first `{{` and the `}}` that ends
//!   the line, so it may itself contain `}}`.
//! * Locations: none = the annotation's own line; `@+N` / `@-N` = relative to
//!   the annotation's line; `@below` = the next line that is not itself an
//!   annotation line (a dangling `@below` points past the last line);
//!   `@above` = the closest preceding line that is not an annotation line
//!   (line 1 if there is none); `@unknown` = a diagnostic without a file
//!   location.
//! * The message is a plain *substring* of the diagnostic; with `-re` the text
//!   outside `{{...}}` is literal and each inner `{{...}}` is a regex (POSIX
//!   flavour, as in LLVM), searched anywhere in the diagnostic.
//! * Count (an extension of MLIR, as in clang's `-verify`):
//!   `expected-error 2 {{msg}}` expects exactly two matching diagnostics.
//!   Without a count an annotation needs at least one matching diagnostic and,
//!   as in MLIR, also absorbs further identical ones.
//! * Diagnostics match annotations on the same line with the same severity; a
//!   diagnostic that only differs in severity gives MLIR's near-miss error
//!   `'warning' diagnostic emitted when expecting a 'error'`.
//!
//! Failures use MLIR's wording: `file:line:col: error: unexpected error: msg`
//! (at the diagnostic's location; without location just
//! `error: unexpected error: msg`), and
//! `file:line:col: error: expected error "msg" was not produced` (at the
//! annotation). Line numbers are those of the original file
//! (chunk line + `line_offset`).

use std::fmt;

/// Severity of a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// `error`
    Error,
    /// `warning`
    Warning,
    /// `note`
    Note,
    /// `remark`
    Remark,
}

impl Severity {
    /// The lower-case keyword used in annotations and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }

    /// Parse `error`, `warning`, `note` or `remark`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "note" => Some(Severity::Note),
            "remark" => Some(Severity::Remark),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A diagnostic emitted by the tool while processing one chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmittedDiag {
    /// Severity of the diagnostic (attached notes are passed as separate
    /// diagnostics, as MLIR does).
    pub severity: Severity,
    /// 1-based line within the chunk; `None` = unknown location.
    pub line: Option<u32>,
    /// 1-based column; `None` if unknown.
    pub col: Option<u32>,
    /// The diagnostic message.
    pub message: String,
}

impl EmittedDiag {
    /// A diagnostic at `line:col` (chunk-relative, 1-based).
    pub fn at(severity: Severity, line: u32, col: u32, message: impl Into<String>) -> Self {
        EmittedDiag {
            severity,
            line: Some(line),
            col: Some(col),
            message: message.into(),
        }
    }

    /// A diagnostic without a file location.
    pub fn unknown(severity: Severity, message: impl Into<String>) -> Self {
        EmittedDiag {
            severity,
            line: None,
            col: None,
            message: message.into(),
        }
    }
}

/// One parsed `expected-*` annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedDiag {
    /// Expected severity.
    pub severity: Severity,
    /// Chunk-relative 1-based line the diagnostic is expected on; `None` for
    /// `@unknown`.
    pub line: Option<u32>,
    /// Chunk-relative 1-based line of the annotation itself.
    pub annotation_line: u32,
    /// 1-based byte column of `expected-` on the annotation line.
    pub annotation_col: u32,
    /// The text between `{{` and `}}`.
    pub substring: String,
    /// Whether this is an `expected-*-re` annotation.
    pub is_regex: bool,
    /// Explicit count (`expected-error 2 {{...}}`), if any.
    pub count: Option<u32>,
}

/// One verification failure, with enough context to render it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagFailure {
    /// 1-based line in the original file, `None` for unknown locations.
    pub line: Option<u32>,
    /// 1-based column, if known.
    pub col: Option<u32>,
    /// The message, without location (e.g. `unexpected error: foo`).
    pub message: String,
    /// The source line the failure points at, if it lies in the chunk.
    pub source_line: Option<String>,
    /// Length of the highlighted range (0 = just a caret).
    pub range_len: u32,
}

impl DiagFailure {
    /// `file:line:col: error: message` (MLIR's one-line form).
    pub fn render(&self, file_name: &str) -> String {
        match (self.line, self.col) {
            (Some(l), Some(c)) => format!("{file_name}:{l}:{c}: error: {}", self.message),
            (Some(l), None) => format!("{file_name}:{l}: error: {}", self.message),
            _ => format!("error: {}", self.message),
        }
    }

    /// The one-line form followed by the source line and a caret, as
    /// `llvm::SourceMgr` prints it.
    pub fn render_with_source(&self, file_name: &str) -> String {
        let mut s = self.render(file_name);
        if let (Some(src), Some(col)) = (&self.source_line, self.col) {
            s.push('\n');
            s.push_str(src);
            s.push('\n');
            let col = col.max(1) as usize;
            let pad: String = src
                .chars()
                .take(col - 1)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            s.push_str(&pad);
            s.push('^');
            for _ in 1..self.range_len {
                s.push('~');
            }
        }
        s
    }
}

struct Annotation {
    exp: ExpectedDiag,
    regex: Option<regex::Regex>,
    matched: u32,
}

impl Annotation {
    fn matches(&self, msg: &str) -> bool {
        match &self.regex {
            Some(re) => re.is_match(msg),
            None => msg.contains(&self.exp.substring),
        }
    }

    fn full(&self) -> bool {
        match self.exp.count {
            Some(c) => self.matched >= c,
            None => self.matched >= 1,
        }
    }
}

fn annotation_regex() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *(?:([0-9]+) *)?\{\{(.*)\}\}$",
        )
        .expect("valid annotation regex")
    })
}

/// Build the regex of an `expected-*-re` annotation (MLIR's `computeRegex`).
fn compute_regex(substring: &str) -> Result<regex::Regex, String> {
    let mut out = String::from("(?s)");
    let mut rest = substring;
    loop {
        let Some(open) = rest.find("{{") else {
            out.push_str(&regex::escape(rest));
            break;
        };
        out.push_str(&regex::escape(&rest[..open]));
        rest = &rest[open + 2..];
        let Some(close) = rest.find("}}") else {
            return Err("found start of regex with no end '}}'".to_string());
        };
        let inner = crate::posix::translate(&rest[..close], false);
        if let Err(e) = regex::Regex::new(&inner) {
            return Err(format!("invalid regex: {e}"));
        }
        out.push('(');
        out.push_str(&inner);
        out.push(')');
        rest = &rest[close + 2..];
    }
    regex::Regex::new(&out).map_err(|e| format!("invalid regex: {e}"))
}

/// Parse the `expected-*` annotations of a chunk.
///
/// Returns the annotations and the failures for malformed ones (bad regex),
/// the latter with chunk-relative line numbers.
pub fn parse_expected_diagnostics(chunk_text: &str) -> (Vec<ExpectedDiag>, Vec<DiagFailure>) {
    let (anns, failures) = parse_annotations(chunk_text, 0);
    (anns.into_iter().map(|a| a.exp).collect(), failures)
}

fn parse_annotations(chunk_text: &str, line_offset: u32) -> (Vec<Annotation>, Vec<DiagFailure>) {
    let re = annotation_regex();
    let lines: Vec<&str> = chunk_text.split('\n').collect();
    let num_lines = lines.len() as u32;
    let mut anns: Vec<Annotation> = Vec::new();
    let mut failures = Vec::new();
    let mut last_non_designator: u32 = 0; // 0-based line index
    let mut for_next_line: Vec<usize> = Vec::new();

    for (idx, raw_line) in lines.iter().enumerate() {
        let idx = idx as u32;
        let line = raw_line.trim_end();
        let Some(caps) = re.captures(line) else {
            for &a in &for_next_line {
                anns[a].exp.line = Some(idx + 1);
            }
            for_next_line.clear();
            last_non_designator = idx;
            continue;
        };
        let whole = caps.get(0).expect("group 0");
        let severity = Severity::parse(&caps[1]).expect("regex only matches known kinds");
        let is_regex = caps.get(2).is_some();
        let substring = caps[6].to_string();
        let count = caps.get(5).and_then(|m| m.as_str().parse::<u32>().ok());
        let col = whole.start() as u32 + 1;
        let mut exp = ExpectedDiag {
            severity,
            line: Some(idx + 1),
            annotation_line: idx + 1,
            annotation_col: col,
            substring,
            is_regex,
            count,
        };

        let regex = if is_regex {
            match compute_regex(&exp.substring) {
                Ok(r) => Some(r),
                Err(msg) => {
                    failures.push(DiagFailure {
                        line: Some(idx + 1 + line_offset),
                        col: Some(col),
                        message: msg,
                        source_line: Some(raw_line.to_string()),
                        range_len: exp.substring.len() as u32,
                    });
                    continue;
                }
            }
        } else {
            None
        };

        let mut below = false;
        if let Some(loc) = caps.get(4) {
            let loc = loc.as_str();
            if let Some(n) = loc.strip_prefix('+') {
                let n: u32 = n.parse().unwrap_or(0);
                exp.line = Some(idx + 1 + n);
            } else if let Some(n) = loc.strip_prefix('-') {
                let n: u32 = n.parse().unwrap_or(0);
                exp.line = Some((idx + 1).saturating_sub(n));
            } else if loc == "unknown" {
                exp.line = None;
            } else if loc == "above" {
                exp.line = Some(last_non_designator + 1);
            } else {
                // `below`: dangling designators point past the last line.
                below = true;
                exp.line = Some(num_lines);
            }
        }
        if below {
            for_next_line.push(anns.len());
        }
        anns.push(Annotation {
            exp,
            regex,
            matched: 0,
        });
    }
    (anns, failures)
}

/// Verify the diagnostics emitted for one chunk against its annotations.
///
/// `line_offset` is the number of lines preceding the chunk in the original
/// file (see [`Chunk::line_offset`](crate::split::Chunk::line_offset)).
/// Returns one line per failure, in MLIR's wording; empty = success.
pub fn verify_diagnostics(
    chunk_text: &str,
    file_name: &str,
    line_offset: u32,
    emitted: &[EmittedDiag],
) -> Vec<String> {
    verify_diagnostics_detailed(chunk_text, line_offset, emitted)
        .iter()
        .map(|f| f.render(file_name))
        .collect()
}

/// Like [`verify_diagnostics`] but returns structured failures (render them
/// with [`DiagFailure::render`] or [`DiagFailure::render_with_source`]).
pub fn verify_diagnostics_detailed(
    chunk_text: &str,
    line_offset: u32,
    emitted: &[EmittedDiag],
) -> Vec<DiagFailure> {
    let (mut anns, mut failures) = parse_annotations(chunk_text, line_offset);
    let lines: Vec<&str> = chunk_text.split('\n').collect();
    let source_line = |chunk_line: u32| -> Option<String> {
        lines
            .get((chunk_line as usize).checked_sub(1)?)
            .map(|s| s.to_string())
    };

    for d in emitted {
        let candidates: Vec<usize> = anns
            .iter()
            .enumerate()
            .filter(|(_, a)| a.exp.line == d.line && a.matches(&d.message))
            .map(|(i, _)| i)
            .collect();
        let same_kind = |i: &&usize| anns[**i].exp.severity == d.severity;
        let chosen = candidates
            .iter()
            .filter(same_kind)
            .find(|&&i| !anns[i].full())
            .or_else(|| {
                candidates
                    .iter()
                    .filter(same_kind)
                    .find(|&&i| anns[i].exp.count.is_none())
            })
            .copied();
        if let Some(i) = chosen {
            anns[i].matched += 1;
            continue;
        }
        let near_miss = if candidates
            .iter()
            .any(|i| anns[*i].exp.severity == d.severity)
        {
            None
        } else {
            // MLIR reports the last candidate that only differs in severity.
            candidates.last().copied()
        };
        if let Some(i) = near_miss {
            let a = &anns[i].exp;
            failures.push(DiagFailure {
                line: Some(a.annotation_line + line_offset),
                col: Some(a.annotation_col),
                message: format!(
                    "'{}' diagnostic emitted when expecting a '{}'",
                    d.severity, a.severity
                ),
                source_line: source_line(a.annotation_line),
                range_len: 0,
            });
        } else {
            failures.push(DiagFailure {
                line: d.line.map(|l| l + line_offset),
                col: if d.line.is_some() { d.col } else { None },
                message: format!("unexpected {}: {}", d.severity, d.message),
                source_line: d.line.and_then(source_line),
                range_len: 0,
            });
        }
    }

    for a in &anns {
        let e = &a.exp;
        let problem = match e.count {
            _ if a.matched == 0 => Some(format!(
                "expected {} \"{}\" was not produced",
                e.severity, e.substring
            )),
            Some(c) if a.matched < c => Some(format!(
                "expected {} \"{}\" was produced {} time(s) instead of {}",
                e.severity, e.substring, a.matched, c
            )),
            _ => None,
        };
        if let Some(message) = problem {
            failures.push(DiagFailure {
                line: Some(e.annotation_line + line_offset),
                col: Some(e.annotation_col),
                message,
                source_line: source_line(e.annotation_line),
                range_len: e.substring.len() as u32,
            });
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;
    use Severity::*;

    fn verify(text: &str, emitted: &[EmittedDiag]) -> Vec<String> {
        verify_diagnostics(text, "t.mlir", 0, emitted)
    }

    #[test]
    fn below_skips_annotation_lines() {
        let text =
            "// expected-error @below {{bad op}}\n// expected-note @below {{see}}\n%0 = op\n";
        let (exp, f) = parse_expected_diagnostics(text);
        assert!(f.is_empty());
        assert_eq!(exp.len(), 2);
        assert_eq!(exp[0].line, Some(3));
        assert_eq!(exp[1].line, Some(3));
        assert_eq!(exp[0].annotation_col, 4);
        let r = verify(
            text,
            &[
                EmittedDiag::at(Error, 3, 1, "a bad op here"),
                EmittedDiag::at(Note, 3, 1, "see this"),
            ],
        );
        assert!(r.is_empty(), "{r:?}");
    }

    #[test]
    fn above_and_relative_and_same_line() {
        let text = "a\n// expected-note @above {{x}}\nb // expected-error {{y}}\n// expected-warning @+2 {{z}}\n\nc\n// expected-remark @-6 {{w}}\n";
        let (exp, _) = parse_expected_diagnostics(text);
        assert_eq!(exp[0].line, Some(1));
        assert_eq!(exp[1].line, Some(3));
        assert_eq!(exp[2].line, Some(6));
        assert_eq!(exp[3].line, Some(1));
        let r = verify(
            text,
            &[
                EmittedDiag::at(Note, 1, 1, "x"),
                EmittedDiag::at(Error, 3, 1, "y"),
                EmittedDiag::at(Warning, 6, 1, "zz"),
                EmittedDiag::at(Remark, 1, 2, "w"),
            ],
        );
        assert!(r.is_empty(), "{r:?}");
    }

    #[test]
    fn above_at_start_and_dangling_below() {
        let text = "// expected-error @above {{a}}\nx\n// expected-error @below {{b}}";
        let (exp, _) = parse_expected_diagnostics(text);
        assert_eq!(exp[0].line, Some(1));
        assert_eq!(exp[1].line, Some(3));
    }

    #[test]
    fn unexpected_and_not_produced_with_offset() {
        let text = "\n// expected-error @below {{wanted}}\nop\n";
        let r = verify_diagnostics(text, "f.mlir", 10, &[EmittedDiag::at(Error, 3, 5, "other")]);
        assert_eq!(
            r,
            vec![
                "f.mlir:13:5: error: unexpected error: other".to_string(),
                "f.mlir:12:4: error: expected error \"wanted\" was not produced".to_string(),
            ]
        );
    }

    #[test]
    fn unknown_location() {
        let text = "// expected-error @unknown {{no loc}}\nop\n";
        assert!(verify(text, &[EmittedDiag::unknown(Error, "has no loc here")]).is_empty());
        // A located diagnostic does not satisfy @unknown.
        let r = verify(text, &[EmittedDiag::at(Error, 2, 1, "no loc")]);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0], "t.mlir:2:1: error: unexpected error: no loc");
        // An unknown-location diagnostic without annotation.
        let r = verify("op\n", &[EmittedDiag::unknown(Warning, "w")]);
        assert_eq!(r, vec!["error: unexpected warning: w".to_string()]);
    }

    #[test]
    fn severity_near_miss() {
        let text = "// expected-error @below {{m}}\nop\n";
        let r = verify(text, &[EmittedDiag::at(Warning, 2, 1, "m")]);
        assert_eq!(
            r,
            vec![
                "t.mlir:1:4: error: 'warning' diagnostic emitted when expecting a 'error'"
                    .to_string(),
                "t.mlir:1:4: error: expected error \"m\" was not produced".to_string(),
            ]
        );
    }

    #[test]
    fn counts() {
        let text = "// expected-error@below 2 {{dup}}\nop\n";
        let e = EmittedDiag::at(Error, 2, 1, "dup");
        assert!(verify(text, &[e.clone(), e.clone()]).is_empty());
        let r = verify(text, std::slice::from_ref(&e));
        assert_eq!(
            r,
            vec![
                "t.mlir:1:4: error: expected error \"dup\" was produced 1 time(s) instead of 2"
                    .to_string()
            ]
        );
        let r = verify(text, &[e.clone(), e.clone(), e.clone()]);
        assert_eq!(
            r,
            vec!["t.mlir:2:1: error: unexpected error: dup".to_string()]
        );
        // Without a count, duplicates are absorbed (MLIR behaviour).
        let text = "// expected-error@below {{dup}}\nop\n";
        assert!(verify(text, &[e.clone(), e]).is_empty());
    }

    #[test]
    fn two_annotations_same_message() {
        let text = "// expected-error@below {{x}}\n// expected-error@below {{x}}\nop\n";
        let e = EmittedDiag::at(Error, 3, 1, "x");
        assert!(verify(text, &[e.clone(), e.clone()]).is_empty());
        // Only one emitted: the second annotation is reported.
        let r = verify(text, &[e]);
        assert_eq!(
            r,
            vec!["t.mlir:2:4: error: expected error \"x\" was not produced".to_string()]
        );
    }

    #[test]
    fn regex_annotations() {
        let text = "// expected-error-re @below {{operand #{{[0-9]+}} must be {{.*}}tile}}\nop\n";
        assert!(verify(
            text,
            &[EmittedDiag::at(Error, 2, 1, "operand #12 must be a tile")]
        )
        .is_empty());
        assert_eq!(
            verify(
                text,
                &[EmittedDiag::at(Error, 2, 1, "operand #x must be a tile")]
            )
            .len(),
            2
        );
        // Literal parts are escaped.
        let text = "// expected-error-re @below {{a.b{{c}}}}\nop\n";
        assert_eq!(
            verify(text, &[EmittedDiag::at(Error, 2, 1, "axbc")]).len(),
            2
        );
        assert!(verify(text, &[EmittedDiag::at(Error, 2, 1, "a.bc")]).is_empty());
        let bad = "// expected-error-re {{x{{(}}}}\n";
        let r = verify(bad, &[]);
        assert_eq!(r.len(), 1);
        assert!(
            r[0].starts_with("t.mlir:1:4: error: invalid regex"),
            "{r:?}"
        );
    }

    #[test]
    fn message_may_contain_braces() {
        let text = "// expected-error @below {{expected '}}' here}}\nop\n";
        let (exp, _) = parse_expected_diagnostics(text);
        assert_eq!(exp[0].substring, "expected '}}' here");
    }

    #[test]
    fn substring_is_plain_text() {
        let text = "op // expected-error {{type 'tile<4xf32>' (*)}}\n";
        assert!(verify(
            text,
            &[EmittedDiag::at(
                Error,
                1,
                1,
                "bad type 'tile<4xf32>' (*) here"
            )]
        )
        .is_empty());
    }

    #[test]
    fn render_with_source() {
        let text = "\n// expected-error @below {{wanted}}\nop\n";
        let f = verify_diagnostics_detailed(text, 0, &[]);
        assert_eq!(
            f[0].render_with_source("f"),
            "f:2:4: error: expected error \"wanted\" was not produced\n// expected-error @below {{wanted}}\n   ^~~~~~"
        );
    }

    #[test]
    fn trailing_whitespace_is_ignored() {
        let text = "// expected-error @below {{m}}   \nop\n";
        assert!(verify(text, &[EmittedDiag::at(Error, 2, 1, "m")]).is_empty());
    }
}
