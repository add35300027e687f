//! `-split-input-file` chunking, exactly as MLIR's `splitAndProcessBuffer`.
//!
//! MLIR splits the *raw buffer* on the marker `// -----` (it is a substring
//! search, not a line match, although in practice the marker always stands on
//! its own line):
//!
//! * the text before the marker ends the previous chunk, the text right after
//!   the marker (usually the `\n` that ends the marker line) starts the next
//!   one, so a chunk's line 1 is the marker's line in the original file;
//! * MLIR actually searches for `// ---` and then requires the next two
//!   characters to be `--`, followed by at least one more character that is
//!   not `0` (sic: the code compares with `'0'`, not `'-'`). Anything else
//!   (`// ----`, `// -----0`, a marker ending the buffer) is a *near miss*: it
//!   does not split, and MLIR prints `warning: near miss with file split
//!   marker` (reported here through [`split_input_file_with_warnings`]). As a
//!   consequence `// ------` does split, and the next chunk starts with the
//!   extra `-`.
//!
//! [`Chunk::first_line`] is the 1-based line of the original file on which the
//! chunk text begins; `first_line - 1` ([`Chunk::line_offset`]) is the value to
//! pass as `line_offset` to
//! [`verify_diagnostics`](crate::diagnostics::verify_diagnostics).

/// The split marker recognised by `-split-input-file` (MLIR's default).
pub const SPLIT_MARKER: &str = "// -----";

/// One chunk of a split file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk text, exactly as MLIR hands it to the parser.
    pub text: String,
    /// 1-based line of the original file on which `text` begins.
    pub first_line: u32,
}

impl Chunk {
    /// Number of original lines preceding this chunk (`first_line - 1`).
    pub fn line_offset(&self) -> u32 {
        self.first_line.saturating_sub(1)
    }
}

/// A near miss with the split marker (`// ------`, or a marker ending the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitWarning {
    /// 1-based line of the near miss.
    pub line: u32,
    /// 1-based byte column of the near miss (points just after `// ---`).
    pub col: u32,
}

impl SplitWarning {
    /// Render the warning the way `mlir-opt` prints it.
    pub fn render(&self, file_name: &str) -> String {
        format!(
            "{file_name}:{}:{}: warning: near miss with file split marker",
            self.line, self.col
        )
    }
}

/// Split `text` on `// -----` markers like MLIR's `-split-input-file`.
///
/// Always returns at least one chunk (an empty input gives one empty chunk).
pub fn split_input_file(text: &str) -> Vec<Chunk> {
    split_input_file_with_warnings(text).0
}

/// Like [`split_input_file`], also returning the near-miss warnings.
pub fn split_input_file_with_warnings(text: &str) -> (Vec<Chunk>, Vec<SplitWarning>) {
    const CHECK_LEN: usize = 2;
    let head = &SPLIT_MARKER[..SPLIT_MARKER.len() - CHECK_LEN]; // "// ---"
    let tail = &SPLIT_MARKER[SPLIT_MARKER.len() - CHECK_LEN..]; // "--"

    // Byte ranges of the raw pieces between occurrences of `head`.
    let mut raw: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    while let Some(found) = text[start..].find(head) {
        raw.push((start, start + found));
        start += found + head.len();
    }
    raw.push((start, text.len()));

    let mut chunks: Vec<(usize, usize)> = Vec::new();
    let mut warnings = Vec::new();
    let mut prev: Option<(usize, usize)> = None;
    for (s, e) in raw {
        let Some((ps, pe)) = prev else {
            prev = Some((s, e));
            continue;
        };
        let piece = &text[s..e];
        let expected_suffix = piece.starts_with(tail)
            && piece.len() > CHECK_LEN
            && piece.as_bytes()[CHECK_LEN] != b'0';
        if expected_suffix {
            chunks.push((ps, pe));
            prev = Some((s + CHECK_LEN, e));
        } else {
            let (line, col) = line_col(text, s);
            warnings.push(SplitWarning { line, col });
            // Extend the previous chunk over the near miss.
            prev = Some((ps, e));
        }
    }
    if let Some(p) = prev {
        chunks.push(p);
    }

    let chunks = chunks
        .into_iter()
        .map(|(s, e)| Chunk {
            text: text[s..e].to_string(),
            first_line: line_col(text, s).0,
        })
        .collect();
    (chunks, warnings)
}

/// 1-based (line, byte column) of byte offset `pos` in `text`.
fn line_col(text: &str, pos: usize) -> (u32, u32) {
    let before = &text[..pos];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map(|p| p + 1).unwrap_or(0);
    (line as u32, (pos - line_start + 1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_marker_is_one_chunk() {
        let c = split_input_file("a\nb\n");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].text, "a\nb\n");
        assert_eq!(c[0].first_line, 1);
        assert_eq!(c[0].line_offset(), 0);
    }

    #[test]
    fn empty_input_is_one_empty_chunk() {
        let c = split_input_file("");
        assert_eq!(
            c,
            vec![Chunk {
                text: String::new(),
                first_line: 1
            }]
        );
    }

    #[test]
    fn splits_and_preserves_lines() {
        let text = "l1\nl2\n// -----\nl4\n\n// -----\nl7\n";
        let c = split_input_file(text);
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].text, "l1\nl2\n");
        assert_eq!(c[0].first_line, 1);
        // Chunk 2 starts with the rest of the marker line (line 3).
        assert_eq!(c[1].text, "\nl4\n\n");
        assert_eq!(c[1].first_line, 3);
        assert_eq!(c[2].text, "\nl7\n");
        assert_eq!(c[2].first_line, 6);
        // Line 2 of chunk 2 is line 4 of the file.
        assert_eq!(c[1].line_offset() + 2, 4);
    }

    #[test]
    fn near_misses_do_not_split() {
        let text = "a\n// ----\nb\n// -----0\nc\n// -----";
        let (c, w) = split_input_file_with_warnings(text);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].text, text);
        assert_eq!(w.len(), 3);
        assert_eq!(w[0].line, 2);
        assert_eq!(w[0].col, 7);
        assert_eq!(w[1].line, 4);
        assert_eq!(w[2].line, 6);
        assert_eq!(
            w[0].render("f.mlir"),
            "f.mlir:2:7: warning: near miss with file split marker"
        );
    }

    #[test]
    fn six_dashes_split_like_mlir() {
        let (c, w) = split_input_file_with_warnings("a\n// ------\nb\n");
        assert!(w.is_empty());
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].text, "a\n");
        assert_eq!(c[1].text, "-\nb\n");
        assert_eq!(c[1].first_line, 2);
    }

    #[test]
    fn marker_in_middle_of_line_splits_like_mlir() {
        let c = split_input_file("x // ----- y\nz\n");
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].text, "x ");
        assert_eq!(c[1].text, " y\nz\n");
        assert_eq!(c[1].first_line, 1);
    }
}
