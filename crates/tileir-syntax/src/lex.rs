//! Character-level scanning shared by every part of the parser: whitespace and
//! comments, identifiers, numbers, strings, SSA names, and located errors.

use tileir_ir::{Diagnostic, Location};

/// Result of a parse step: the first error aborts (as in MLIR's parser).
pub type R<T> = Result<T, Diagnostic>;

/// A cursor over the source text.
pub struct Cursor<'a> {
    /// The text.
    pub src: &'a str,
    /// Current byte offset.
    pub pos: usize,
    file: String,
    line_starts: Vec<usize>,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `src`; diagnostics name `file`.
    pub fn new(src: &'a str, file: &str) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Cursor {
            src,
            pos: 0,
            file: file.to_string(),
            line_starts,
        }
    }

    /// `file:line:col` of byte offset `pos` (1-based).
    pub fn loc_at(&self, pos: usize) -> Location {
        let line = match self.line_starts.binary_search(&pos) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let col = self.src[self.line_starts[line]..pos.min(self.src.len())]
            .chars()
            .count()
            + 1;
        Location::FileLineCol {
            file: self.file.clone(),
            line: line as u32 + 1,
            col: col as u32,
        }
    }

    /// An error at `pos`.
    pub fn err_at<T>(&self, pos: usize, msg: impl Into<String>) -> R<T> {
        Err(Diagnostic::error(self.loc_at(pos), msg))
    }

    /// An error at the next token.
    pub fn err<T>(&mut self, msg: impl Into<String>) -> R<T> {
        self.ws();
        self.err_at(self.pos, msg)
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    /// Skips whitespace and `//` comments.
    pub fn ws(&mut self) {
        let b = self.bytes();
        loop {
            while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if b[self.pos..].starts_with(b"//") {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next byte after whitespace.
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.bytes().get(self.pos).copied()
    }

    /// The byte `k` past the current position (no whitespace skipping).
    pub fn peek_at(&self, k: usize) -> Option<u8> {
        self.bytes().get(self.pos + k).copied()
    }

    /// True at end of input.
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// True if the next token starts with `lit`.
    pub fn at(&mut self, lit: &str) -> bool {
        self.ws();
        self.src[self.pos..].starts_with(lit)
    }

    /// Consumes punctuation `lit` if next.
    pub fn eat(&mut self, lit: &str) -> bool {
        if self.at(lit) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    /// Consumes `lit` or fails with MLIR's "expected 'lit'".
    pub fn expect(&mut self, lit: &str) -> R<()> {
        if self.eat(lit) {
            Ok(())
        } else {
            self.wrong_token(format!("expected '{lit}'"))
        }
    }

    /// A missing-token error, placed as MLIR's parser places it: at the next token, or
    /// at the end of the previous token when the next one is on a later line (or the
    /// input ended), so the error sits on the line that is missing something.
    pub fn wrong_token<T>(&mut self, msg: impl Into<String>) -> R<T> {
        self.ws();
        let b = self.bytes();
        let mut p = self.pos;
        while p > 0 && b[p - 1].is_ascii_whitespace() {
            p -= 1;
        }
        let crossed_line = b[p..self.pos].contains(&b'\n') || self.pos >= b.len();
        if !crossed_line || p == 0 {
            return self.err_at(self.pos, msg);
        }
        // Skip back over a trailing `//` comment on that line (outside string literals).
        let line_start = b[..p]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let mut in_str = false;
        let mut end = p;
        let mut i = line_start;
        while i + 1 < p {
            match b[i] {
                b'\\' if in_str => i += 1,
                b'"' => in_str = !in_str,
                b'/' if !in_str && b[i + 1] == b'/' => {
                    end = i;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        while end > line_start && b[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        self.err_at(end, msg)
    }

    fn is_id_start(c: u8) -> bool {
        c.is_ascii_alphabetic() || c == b'_'
    }

    fn is_id_char(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
    }

    /// The bare identifier at the cursor, without consuming it.
    pub fn peek_ident(&mut self) -> Option<&'a str> {
        self.ws();
        let b = self.bytes();
        if self.pos < b.len() && Self::is_id_start(b[self.pos]) {
            let mut e = self.pos + 1;
            while e < b.len() && Self::is_id_char(b[e]) {
                e += 1;
            }
            Some(&self.src[self.pos..e])
        } else {
            None
        }
    }

    /// Consumes a bare identifier.
    pub fn ident(&mut self) -> Option<&'a str> {
        let id = self.peek_ident()?;
        self.pos += id.len();
        Some(id)
    }

    /// Consumes identifier `kw` if it is next.
    pub fn eat_kw(&mut self, kw: &str) -> bool {
        if self.peek_ident() == Some(kw) {
            self.pos += kw.len();
            true
        } else {
            false
        }
    }

    /// Consumes keyword `kw` or fails with "expected 'kw'".
    pub fn expect_kw(&mut self, kw: &str) -> R<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            self.err(format!("expected '{kw}'"))
        }
    }

    /// Consumes an identifier made of `[A-Za-z0-9_]` (element types inside shapes).
    pub fn word(&mut self) -> Option<&'a str> {
        self.ws();
        let b = self.bytes();
        let mut e = self.pos;
        while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
            e += 1;
        }
        if e == self.pos {
            return None;
        }
        let w = &self.src[self.pos..e];
        self.pos = e;
        Some(w)
    }

    /// The raw text of a numeric literal (`-12`, `0x1F`, `1.5e-3`), consumed.
    pub fn number_text(&mut self) -> Option<&'a str> {
        self.ws();
        let b = self.bytes();
        let start = self.pos;
        let mut e = start;
        if e < b.len() && b[e] == b'-' {
            e += 1;
        }
        if e >= b.len() || !b[e].is_ascii_digit() {
            return None;
        }
        if b[e] == b'0'
            && e + 2 < b.len() + 1
            && b.get(e + 1) == Some(&b'x')
            && b.get(e + 2).is_some_and(|c| c.is_ascii_hexdigit())
        {
            e += 2;
            while e < b.len() && b[e].is_ascii_hexdigit() {
                e += 1;
            }
        } else {
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            if e < b.len() && b[e] == b'.' {
                e += 1;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                if e < b.len() && (b[e] == b'e' || b[e] == b'E') {
                    let mut k = e + 1;
                    if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                        k += 1;
                    }
                    if k < b.len() && b[k].is_ascii_digit() {
                        e = k;
                        while e < b.len() && b[e].is_ascii_digit() {
                            e += 1;
                        }
                    }
                }
            }
        }
        self.pos = e;
        Some(&self.src[start..e])
    }

    /// An integer literal (decimal or hex, optional `-`).
    pub fn int(&mut self) -> R<i128> {
        self.ws();
        let at = self.pos;
        match self.number_text() {
            Some(t) => match parse_int_text(t) {
                Some(v) => Ok(v),
                None => self.err_at(at, "expected integer value"),
            },
            None => self.err_at(at, "expected integer value"),
        }
    }

    /// A string literal with MLIR escapes (`\n`, `\t`, `\\`, `\"`, `\XX`).
    pub fn string(&mut self) -> R<String> {
        self.ws();
        let b = self.bytes();
        if self.pos >= b.len() || b[self.pos] != b'"' {
            return self.err("expected string");
        }
        let start = self.pos;
        let mut i = self.pos + 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            match b.get(i) {
                None | Some(b'\n') => return self.err_at(start, "expected '\"' in string literal"),
                Some(b'"') => {
                    i += 1;
                    break;
                }
                Some(b'\\') => match (b.get(i + 1), b.get(i + 2)) {
                    (Some(b'n'), _) => {
                        out.push(b'\n');
                        i += 2;
                    }
                    (Some(b't'), _) => {
                        out.push(b'\t');
                        i += 2;
                    }
                    (Some(b'\\'), _) => {
                        out.push(b'\\');
                        i += 2;
                    }
                    (Some(b'"'), _) => {
                        out.push(b'"');
                        i += 2;
                    }
                    (Some(h1), Some(h2)) if h1.is_ascii_hexdigit() && h2.is_ascii_hexdigit() => {
                        let v =
                            u8::from_str_radix(std::str::from_utf8(&[*h1, *h2]).unwrap_or("0"), 16)
                                .unwrap_or(0);
                        out.push(v);
                        i += 3;
                    }
                    _ => return self.err_at(i, "unknown escape in string literal"),
                },
                Some(&c) => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        self.pos = i;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// A suffix id after `%`/`^`/`#`: `[0-9]+` or `[A-Za-z$._-][A-Za-z0-9$._-]*`.
    pub fn suffix_id(&mut self) -> Option<&'a str> {
        let b = self.bytes();
        let start = self.pos;
        let mut e = start;
        if e < b.len() && b[e].is_ascii_digit() {
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
        } else {
            while e < b.len()
                && (b[e].is_ascii_alphanumeric() || matches!(b[e], b'$' | b'.' | b'_' | b'-'))
            {
                e += 1;
            }
        }
        if e == start {
            return None;
        }
        self.pos = e;
        Some(&self.src[start..e])
    }
}

/// Parses decimal or `0x` hex integer text with an optional leading `-`.
pub fn parse_int_text(t: &str) -> Option<i128> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v: i128 = if let Some(h) = body.strip_prefix("0x") {
        if h.len() > 30 {
            return None;
        }
        i128::from_str_radix(h, 16).ok()?
    } else {
        if body.contains(['.', 'e', 'E']) || body.len() > 38 {
            return None;
        }
        body.parse().ok()?
    };
    Some(if neg { -v } else { v })
}
