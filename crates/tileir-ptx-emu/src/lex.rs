//! Tokenizer: PTX text to tokens with line numbers. Comments are dropped here so that the
//! parser never sees them.

use crate::error::{parse_err, Result};

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A word: opcode, directive (`.reg`), register (`%r1`, `%tid.x`), label (`$L__BB0_2`),
    /// symbol.
    Word(String),
    /// A number as written (`12`, `0x1F`, `0f3F800000`, `0d...`, `1.5`).
    Num(String),
    /// A string literal (without the quotes).
    Str(String),
    /// One punctuation character.
    Punct(char),
}

/// A token and the 1-based line it starts on.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its line.
    pub line: u32,
}

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%' | '.')
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.')
}

/// Splits `text` into tokens.
pub fn tokenize(text: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1u32;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let start = line;
            i += 2;
            loop {
                if i + 1 >= chars.len() {
                    return Err(parse_err(start, "unterminated /* comment"));
                }
                if chars[i] == '\n' {
                    line += 1;
                }
                if chars[i] == '*' && chars[i + 1] == '/' {
                    i += 2;
                    break;
                }
                i += 1;
            }
        } else if c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\n' {
                    return Err(parse_err(line, "unterminated string literal"));
                }
                i += 1;
            }
            let s: String = chars[start..i.min(chars.len())].iter().collect();
            i += 1;
            out.push(Token { tok: Tok::Str(s), line });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            out.push(Token { tok: Tok::Num(chars[start..i].iter().collect()), line });
        } else if is_word_start(c) {
            let start = i;
            // `::` joins qualified modifiers (`shared::cta`, `L2::cache_hint`) into the word.
            while i < chars.len() && (is_word_char(chars[i]) || (chars[i] == ':' && chars.get(i + 1) == Some(&':'))) {
                i += if chars[i] == ':' { 2 } else { 1 };
            }
            out.push(Token { tok: Tok::Word(chars[start..i].iter().collect()), line });
        } else if "{}[]()<>,;:@!+-=|".contains(c) {
            out.push(Token { tok: Tok::Punct(c), line });
            i += 1;
        } else {
            return Err(parse_err(line, format!("unexpected character '{c}'")));
        }
    }
    Ok(out)
}
