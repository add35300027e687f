//! Command-line parsing in LLVM's style: one or two leading dashes, `-flag=value` or
//! `-flag value` for options that take a value, one positional input file (default `-`).

use std::fmt;

/// A command-line mistake, reported with LLVM's wording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a tool accepts: flags without values, options with values, and extra flag names
/// (such as pass names) that are collected in order.
pub(crate) struct Spec<'a> {
    pub tool: &'a str,
    pub flags: &'a [&'a str],
    pub options: &'a [&'a str],
    /// Further accepted value-less flags (pass names), recorded in order.
    pub ordered_flags: &'a [&'a str],
}

/// Parsed command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// The input file (`-` = stdin).
    pub input: String,
    /// Value-less flags given (canonical names, without dashes).
    pub set: Vec<String>,
    /// `name=value` options, in order.
    pub values: Vec<(String, String)>,
    /// Ordered flags (pass names) and `pass-pipeline` texts, in command-line order.
    pub ordered: Vec<(String, Option<String>)>,
}

impl Flags {
    /// True if flag `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.set.iter().any(|s| s == name)
    }
    /// The last value of option `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

pub(crate) fn parse(args: &[String], spec: &Spec<'_>) -> Result<Flags, ArgError> {
    let mut flags = Flags { input: "-".into(), ..Flags::default() };
    let mut positional: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "-" || !arg.starts_with('-') {
            positional.push(arg.clone());
            continue;
        }
        let body = arg.trim_start_matches('-');
        let (name, inline_value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if spec.options.contains(&name) {
            let value = match inline_value {
                Some(v) => v,
                None => {
                    let Some(v) = args.get(i) else {
                        return Err(ArgError(format!("{}: for the -{name} option: requires a value!", spec.tool)));
                    };
                    i += 1;
                    v.clone()
                }
            };
            if name == "pass-pipeline" {
                flags.ordered.push((name.to_string(), Some(value.clone())));
            }
            flags.values.push((name.to_string(), value));
        } else if spec.flags.contains(&name) || spec.ordered_flags.contains(&name) {
            if let Some(v) = inline_value {
                // LLVM accepts `-flag=true` / `-flag=false` for booleans.
                match v.as_str() {
                    "true" | "1" => {}
                    "false" | "0" => continue,
                    _ => {
                        return Err(ArgError(format!(
                            "{}: for the -{name} option: '{v}' is invalid value for boolean argument! Try 0 or 1",
                            spec.tool
                        )))
                    }
                }
            }
            if spec.ordered_flags.contains(&name) {
                flags.ordered.push((name.to_string(), None));
            } else {
                flags.set.push(name.to_string());
            }
        } else {
            let mut known: Vec<&str> = spec.flags.to_vec();
            known.extend_from_slice(spec.options);
            known.extend_from_slice(spec.ordered_flags);
            let hint = tileir_ir::op::suggest(name, &known)
                .map(|s| format!(" Did you mean '-{s}'?"))
                .unwrap_or_default();
            return Err(ArgError(format!(
                "{}: Unknown command line argument '{arg}'.  Try: '{} --help'{hint}",
                spec.tool, spec.tool
            )));
        }
    }
    match positional.len() {
        0 => {}
        1 => flags.input = positional.remove(0),
        _ => {
            return Err(ArgError(format!(
                "{}: Too many positional arguments specified! Can specify at most 1 positional argument: See: {} --help",
                spec.tool, spec.tool
            )))
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec<'static> {
        Spec { tool: "t", flags: &["split-input-file"], options: &["o", "pass-pipeline"], ordered_flags: &["canonicalize"] }
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn single_and_double_dashes_and_values() {
        let f = parse(&s(&["--split-input-file", "in.mlir", "-o", "out", "-canonicalize", "--pass-pipeline=a,b"]), &spec()).unwrap();
        assert_eq!(f.input, "in.mlir");
        assert!(f.has("split-input-file"));
        assert_eq!(f.value("o"), Some("out"));
        assert_eq!(f.ordered, vec![("canonicalize".into(), None), ("pass-pipeline".into(), Some("a,b".into()))]);
    }

    #[test]
    fn mistakes_are_named() {
        let e = parse(&s(&["-split-input-fil"]), &spec()).unwrap_err();
        assert!(e.0.contains("Unknown command line argument '-split-input-fil'") && e.0.contains("-split-input-file"), "{e}");
        assert!(parse(&s(&["-o"]), &spec()).unwrap_err().0.contains("requires a value"));
        assert!(parse(&s(&["a", "b"]), &spec()).unwrap_err().0.contains("Too many positional"));
    }
}
