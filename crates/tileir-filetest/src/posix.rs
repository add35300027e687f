//! Translation of LLVM regular expressions (`llvm::Regex`, POSIX ERE flavour)
//! to the syntax of the `regex` / `fancy-regex` crates.
//!
//! The differences that matter for test files:
//! * In a POSIX bracket expression a backslash is an ordinary character and a
//!   `]` right after `[` or `[^` is literal; `[:alpha:]`-style classes are kept.
//! * With `llvm::Regex::Newline` (used by FileCheck) a negated bracket
//!   expression never matches a newline, and `.` does not either (the latter is
//!   also the default of the `regex` crate).
//! * An escaped letter unknown to the `regex` crate (`\y`) is the letter itself.
//!
//! Everything else is passed through; the Perl extensions of the `regex` crate
//! (`\d`, `\s`, `\w`, `\b`, …) keep their usual meaning, which only makes the
//! engine more permissive than LLVM's.

/// Translate an LLVM regex into `regex` crate syntax.
///
/// `newline_sensitive` mirrors `llvm::Regex::Newline`: negated bracket
/// expressions then exclude `\n`.
pub(crate) fn translate(src: &str, newline_sensitive: bool) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                match chars.get(i + 1) {
                    None => out.push('\\'), // let the regex compiler complain
                    Some(&n) => {
                        if n.is_ascii_digit() || KNOWN_ESCAPES.contains(n) {
                            out.push('\\');
                            out.push(n);
                        } else if n.is_ascii_alphabetic() {
                            out.push(n);
                        } else if n.is_ascii_punctuation() {
                            out.push('\\');
                            out.push(n);
                        } else {
                            out.push_str(&regex::escape(&n.to_string()));
                        }
                    }
                }
                i += 2;
            }
            '[' => match translate_bracket(&chars, i, newline_sensitive) {
                Some((class, next)) => {
                    out.push_str(&class);
                    i = next;
                }
                None => {
                    // Unterminated: pass the rest through, the compiler reports it.
                    out.extend(&chars[i..]);
                    break;
                }
            },
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Escapes the `regex` crate understands (besides digits for back-references).
const KNOWN_ESCAPES: &str = "afnrtvAzbBdDsSwWpPxuU<>";

/// Translate the bracket expression starting at `chars[start] == '['`.
/// Returns the translated class and the index just past its closing `]`.
fn translate_bracket(chars: &[char], start: usize, nl: bool) -> Option<(String, usize)> {
    let mut i = start + 1;
    let mut negated = false;
    if chars.get(i) == Some(&'^') {
        negated = true;
        i += 1;
    }
    let mut items = String::new();
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        if c == ']' && !first {
            i += 1;
            break;
        }
        first = false;
        if c == '[' && matches!(chars.get(i + 1), Some(':' | '=' | '.')) {
            let delim = chars[i + 1];
            let mut j = i + 2;
            while j + 1 < chars.len() && !(chars[j] == delim && chars[j + 1] == ']') {
                j += 1;
            }
            if j + 1 >= chars.len() {
                return None;
            }
            let inner: String = chars[i + 2..j].iter().collect();
            if delim == ':' {
                items.push_str(&format!("[:{inner}:]"));
            } else {
                for ch in inner.chars() {
                    items.push_str(&escape_class_char(ch));
                }
            }
            i = j + 2;
            continue;
        }
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&d| d != ']') {
            let d = chars[i + 2];
            items.push_str(&escape_class_char(c));
            items.push('-');
            items.push_str(&escape_class_char(d));
            i += 3;
            continue;
        }
        items.push_str(&escape_class_char(c));
        i += 1;
    }
    if negated && nl {
        items.push_str("\\n");
    }
    Some((format!("[{}{}]", if negated { "^" } else { "" }, items), i))
}

fn escape_class_char(c: char) -> String {
    if matches!(c, '[' | ']' | '\\' | '^' | '-' | '&' | '~') {
        format!("\\{c}")
    } else {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::translate;

    fn m(re: &str, hay: &str) -> bool {
        regex::Regex::new(&translate(re, true))
            .unwrap()
            .is_match(hay)
    }

    #[test]
    fn passes_common_forms() {
        assert_eq!(translate(".*", true), ".*");
        assert_eq!(translate("[0-9]+", true), "[0-9]+");
        assert_eq!(translate("\\[\\[", true), "\\[\\[");
        assert!(m("[[:alpha:]]+", "abc"));
        assert!(m("a|b", "b"));
    }

    #[test]
    fn negated_bracket_excludes_newline() {
        assert!(!m("x[^y]z", "x\nz"));
        assert!(m("x[^y]z", "xaz"));
    }

    #[test]
    fn posix_bracket_rules() {
        // `]` first is literal; backslash is literal inside brackets.
        assert!(m("[]a]", "]"));
        assert!(m("[\\]", "\\"));
        assert!(m("[a-]", "-"));
        assert!(m("[[]", "["));
    }

    #[test]
    fn unknown_letter_escape_is_literal() {
        assert!(m("\\y", "y"));
        assert!(m("\\%", "%"));
    }
}
