//! Pipeline text: `pass-a,pass-b{key=value key2=v1,v2}`.

use std::fmt;

/// A syntax or resolution error in pipeline text, with the byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    /// Byte offset into the pipeline text.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid pass pipeline at offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for PipelineError {}

/// One pass with its options as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineElement {
    /// Pass name.
    pub name: String,
    /// `key=value` pairs in order.
    pub options: Vec<(String, String)>,
    /// Byte offset of the name.
    pub offset: usize,
}

/// Parsed pipeline text.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Pipeline {
    /// Passes in order.
    pub elements: Vec<PipelineElement>,
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.' || c == b'$'
}

impl Pipeline {
    /// Parses pipeline text. An empty (or all-blank) text is the empty pipeline.
    pub fn parse(text: &str) -> Result<Pipeline, PipelineError> {
        let s = text.as_bytes();
        let mut pos = 0;
        let mut elements = Vec::new();
        let skip_ws = |pos: &mut usize| {
            while *pos < s.len() && s[*pos].is_ascii_whitespace() {
                *pos += 1;
            }
        };
        skip_ws(&mut pos);
        if pos == s.len() {
            return Ok(Pipeline::default());
        }
        loop {
            skip_ws(&mut pos);
            let start = pos;
            while pos < s.len() && is_name_char(s[pos]) {
                pos += 1;
            }
            if start == pos {
                let found = s.get(pos).map(|&c| format!("'{}'", c as char)).unwrap_or_else(|| "end of text".into());
                return Err(PipelineError { offset: pos, message: format!("expected a pass name, found {found}") });
            }
            let name = text[start..pos].to_string();
            let mut options = Vec::new();
            skip_ws(&mut pos);
            // `anchor(inner)`: MLIR's nested pipelines (`builtin.module(cuda_tile.module(
            // cuda_tile.entry(loop-split)))`). tileir's passes each walk the whole module
            // and act on the ops they apply to, so nesting is flattened into the inner passes.
            if pos < s.len() && s[pos] == b'(' {
                let inner_start = pos + 1;
                let mut depth = 0usize;
                let mut end = None;
                for (i, &c) in s.iter().enumerate().skip(pos) {
                    match c {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(i);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let Some(end) = end else {
                    return Err(PipelineError { offset: pos, message: format!("unbalanced '(' after op anchor '{name}'") });
                };
                let inner = Pipeline::parse(&text[inner_start..end]).map_err(|e| PipelineError {
                    offset: inner_start + e.offset,
                    message: e.message,
                })?;
                elements.extend(inner.elements.into_iter().map(|mut el| {
                    el.offset += inner_start;
                    el
                }));
                pos = end + 1;
                skip_ws(&mut pos);
                if pos == s.len() {
                    break;
                }
                if s[pos] != b',' {
                    return Err(PipelineError { offset: pos, message: format!("expected ',' or end of pipeline, found '{}'", s[pos] as char) });
                }
                pos += 1;
                continue;
            }
            if pos < s.len() && s[pos] == b'{' {
                pos += 1;
                loop {
                    skip_ws(&mut pos);
                    if pos < s.len() && s[pos] == b'}' {
                        pos += 1;
                        break;
                    }
                    let kstart = pos;
                    while pos < s.len() && is_name_char(s[pos]) {
                        pos += 1;
                    }
                    if kstart == pos {
                        return Err(PipelineError { offset: pos, message: "expected an option name or '}'".into() });
                    }
                    let key = text[kstart..pos].to_string();
                    skip_ws(&mut pos);
                    let value = if pos < s.len() && s[pos] == b'=' {
                        pos += 1;
                        skip_ws(&mut pos);
                        if pos < s.len() && s[pos] == b'"' {
                            // A quoted value: how an empty (or spaced) value prints.
                            let vstart = pos + 1;
                            let Some(len) = s[vstart..].iter().position(|&c| c == b'"') else {
                                return Err(PipelineError { offset: pos, message: format!("unterminated quoted value of option '{key}'") });
                            };
                            pos = vstart + len + 1;
                            text[vstart..vstart + len].to_string()
                        } else {
                            let vstart = pos;
                            while pos < s.len() && !s[pos].is_ascii_whitespace() && s[pos] != b'}' {
                                pos += 1;
                            }
                            if vstart == pos {
                                return Err(PipelineError { offset: pos, message: format!("expected a value for option '{key}'") });
                            }
                            text[vstart..pos].to_string()
                        }
                    } else {
                        // A bare flag means true, as in MLIR.
                        "true".to_string()
                    };
                    if pos >= s.len() {
                        return Err(PipelineError { offset: pos, message: format!("unterminated options of pass '{name}': expected '}}'") });
                    }
                    options.push((key, value));
                }
            }
            elements.push(PipelineElement { name, options, offset: start });
            skip_ws(&mut pos);
            if pos == s.len() {
                break;
            }
            if s[pos] != b',' {
                return Err(PipelineError { offset: pos, message: format!("expected ',' or end of pipeline, found '{}'", s[pos] as char) });
            }
            pos += 1;
        }
        Ok(Pipeline { elements })
    }
}

/// An option value as pipeline text writes it: quoted when empty or when it holds a space
/// or '}' (which would end an unquoted value).
pub fn quote_option_value(v: &str) -> String {
    if v.is_empty() || v.bytes().any(|c| c.is_ascii_whitespace() || c == b'}') {
        format!("\"{v}\"")
    } else {
        v.to_string()
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.elements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(&e.name)?;
            if !e.options.is_empty() {
                let opts: Vec<String> = e.options.iter().map(|(k, v)| format!("{k}={}", quote_option_value(v))).collect();
                write!(f, "{{{}}}", opts.join(" "))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_anchors_flatten_into_their_passes() {
        let p = Pipeline::parse("builtin.module(cuda_tile.module(cuda_tile.entry(loop-split{split-threshold=2})), canonicalize)").unwrap();
        let names: Vec<&str> = p.elements.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["loop-split", "canonicalize"]);
        assert_eq!(p.elements[0].options, vec![("split-threshold".to_string(), "2".to_string())]);
        let err = Pipeline::parse("builtin.module(cse").unwrap_err();
        assert!(err.message.contains("unbalanced"), "{err}");
    }

    #[test]
    fn parses_and_round_trips() {
        let text = "pass-a,pass-b{num-warps=4 flag=true list=1,2}";
        let p = Pipeline::parse(text).unwrap();
        assert_eq!(p.elements.len(), 2);
        assert_eq!(p.elements[1].options[2], ("list".to_string(), "1,2".to_string()));
        assert_eq!(p.to_string(), text);
        assert_eq!(Pipeline::parse(&p.to_string()).unwrap(), p);
    }

    #[test]
    fn empty_values_print_quoted_and_parse_back() {
        let p = Pipeline::parse("a{x=\"\" y=\"\"}").unwrap();
        assert_eq!(p.elements[0].options, vec![("x".to_string(), String::new()), ("y".to_string(), String::new())]);
        assert_eq!(p.to_string(), "a{x=\"\" y=\"\"}");
        assert_eq!(Pipeline::parse(&p.to_string()).unwrap(), p);
        assert_eq!(Pipeline::parse("a{x=\"").unwrap_err().offset, 4);
    }

    #[test]
    fn tolerates_spaces_and_bare_flags() {
        let p = Pipeline::parse("  a , b{ x = 1  y } ").unwrap();
        assert_eq!(p.to_string(), "a,b{x=1 y=true}");
    }

    #[test]
    fn rejects_malformed_text_with_offsets() {
        for (text, offset) in [("a,,b", 2), ("a{x=1", 5), ("a b", 2), ("a{=1}", 2), (",", 0), ("a{x=}", 4)] {
            let e = Pipeline::parse(text).unwrap_err();
            assert_eq!(e.offset, offset, "{text}: {e}");
        }
    }
}
