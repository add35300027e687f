//! A FileCheck engine compatible with LLVM's `FileCheck` for the features MLIR
//! test suites use.
//!
//! Supported directives (for every check prefix, default `CHECK`):
//! `CHECK:`, `CHECK-NEXT:`, `CHECK-SAME:`, `CHECK-NOT:`, `CHECK-DAG:`,
//! `CHECK-LABEL:`, `CHECK-EMPTY:`, `CHECK-COUNT-<n>:` and the `{LITERAL}`
//! modifier (`CHECK{LITERAL}:`). Comment prefixes (default `COM` and `RUN`, as in
//! LLVM) turn the rest of their line into a comment, so `// COM: CHECK: x` and
//! `// RUN: FileCheck --check-prefix=CHECK-X` are not directives.
//!
//! Patterns: fixed text, `{{regex}}`, `[[NAME:regex]]` definitions, `[[NAME]]`
//! uses (a use of a variable defined earlier on the same line becomes a
//! back-reference), `[[$NAME...]]` global variables (kept by
//! `--enable-var-scope`), `-D NAME=VALUE`, and the legacy `[[@LINE]]`,
//! `[[@LINE+N]]`, `[[@LINE-N]]` expressions. Numeric substitution blocks
//! `[[#...]]` are not supported and are rejected with a clear error.
//! Regexes use LLVM's POSIX flavour (translated, see the `posix` module);
//! `.` and negated bracket expressions never match a newline, `^`/`$` match
//! at line boundaries.
//!
//! Matching follows LLVM's algorithm: both the check file and the input are
//! whitespace-canonicalized (runs of spaces/tabs become one space) unless
//! `--strict-whitespace`; the input is split into blocks at `CHECK-LABEL`
//! matches; `CHECK-DAG` groups match in any order without overlapping;
//! `CHECK-NOT` is checked in the region between the surrounding positive
//! matches; a failing block does not prevent the following blocks from being
//! checked.
//!
//! Errors are printed like LLVM's (`file:line:col: error: CHECK: expected
//! string not found in input`, the pattern line with a caret, a
//! `note: scanning from here` in the input, `note: possible intended match
//! here`, `note: with "VAR" equal to "..."`), followed by a dump of the input
//! lines around the reported locations.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::rc::Rc;

/// Options of a FileCheck run (the command-line flags of LLVM's `FileCheck`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// Check prefixes (`--check-prefix`, `--check-prefixes`); empty = `CHECK`.
    pub check_prefixes: Vec<String>,
    /// Comment prefixes (`--comment-prefixes`); default `COM`, `RUN`.
    pub comment_prefixes: Vec<String>,
    /// `--strict-whitespace`: do not canonicalize horizontal whitespace.
    pub strict_whitespace: bool,
    /// `--match-full-lines`: positive patterns must match whole lines.
    pub match_full_lines: bool,
    /// `--ignore-case`.
    pub ignore_case: bool,
    /// `--enable-var-scope`: forget non-`$` variables at each `CHECK-LABEL` block.
    pub enable_var_scope: bool,
    /// `--allow-empty`: accept an empty input.
    pub allow_empty: bool,
    /// `--allow-unused-prefixes`: do not require every prefix to be used.
    pub allow_unused_prefixes: bool,
    /// `--implicit-check-not` patterns.
    pub implicit_check_not: Vec<String>,
    /// `-D NAME=VALUE` string variable definitions.
    pub defines: Vec<(String, String)>,
    /// Name of the input in messages (`<stdin>` by default).
    pub input_name: String,
    /// Append a dump of the relevant input lines to error reports
    /// (`--dump-input=fail`, the default; `--dump-input=never` clears it).
    pub dump_input: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            check_prefixes: Vec::new(),
            comment_prefixes: vec!["COM".to_string(), "RUN".to_string()],
            strict_whitespace: false,
            match_full_lines: false,
            ignore_case: false,
            enable_var_scope: false,
            allow_empty: false,
            allow_unused_prefixes: false,
            implicit_check_not: Vec::new(),
            defines: Vec::new(),
            input_name: "<stdin>".to_string(),
            dump_input: true,
        }
    }
}

impl CheckOptions {
    /// Options with the given check prefix (like `--check-prefix=P`).
    pub fn with_prefix(prefix: &str) -> Self {
        CheckOptions {
            check_prefixes: vec![prefix.to_string()],
            ..Default::default()
        }
    }

    /// The check prefixes in effect (`CHECK` when none was given).
    pub fn effective_check_prefixes(&self) -> Vec<String> {
        if self.check_prefixes.is_empty() {
            vec!["CHECK".to_string()]
        } else {
            self.check_prefixes.clone()
        }
    }
}

/// Run FileCheck: check `input` against the directives of `check_file_text`.
///
/// `check_file_name` is used in messages. Returns `Err` with LLVM-style
/// diagnostics when the check file is malformed or the input does not match.
pub fn check(
    check_file_text: &str,
    check_file_name: &str,
    input: &str,
    options: &CheckOptions,
) -> Result<(), String> {
    let prefixes = options.effective_check_prefixes();
    validate_prefixes(&prefixes, &options.comment_prefixes)?;
    let strict = options.strict_whitespace;

    let mut sources = vec![Source {
        name: check_file_name.to_string(),
        text: canonicalize(check_file_text, strict),
    }];
    for pat in &options.implicit_check_not {
        sources.push(Source {
            name: "command line".to_string(),
            text: canonicalize(&format!("-implicit-check-not='{pat}'"), strict),
        });
    }
    let check_strings = parse_check_file(&sources, options, &prefixes)?;

    if input.is_empty() && !options.allow_empty {
        return Err(format!(
            "FileCheck error: '{}' is empty.\n",
            options.input_name
        ));
    }
    let input = canonicalize(input, strict);

    let mut checker = Checker {
        opts: options,
        sources: &sources,
        input: &input,
        vars: HashMap::new(),
        cache: HashMap::new(),
        out: String::new(),
        input_marks: Vec::new(),
    };
    for (name, value) in &options.defines {
        checker.vars.insert(name.clone(), value.clone());
    }
    if checker.run(&check_strings) {
        Ok(())
    } else {
        let mut out = checker.out.clone();
        if options.dump_input {
            out.push_str(&checker.dump(check_file_name));
        }
        Err(out)
    }
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

/// A parsed `FileCheck` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The check file (positional argument).
    pub check_file: String,
    /// `--input-file`; `None` (or `-`) = standard input.
    pub input_file: Option<String>,
    /// All other options.
    pub options: CheckOptions,
}

const USAGE: &str = "USAGE: tileir-filecheck [options] <check-file>

Options:
  --check-prefix=<p>          Prefix to use (repeatable); default CHECK
  --check-prefixes=<a,b,...>  Several prefixes
  --comment-prefixes=<a,...>  Comment prefixes; default COM,RUN
  --input-file=<file>         Input to check; default standard input
  --strict-whitespace         Do not canonicalize horizontal whitespace
  --match-full-lines          Require positive matches to cover whole lines
  --ignore-case               Case-insensitive matching
  --enable-var-scope          Clear local variables at each CHECK-LABEL block
  --allow-empty               Allow an empty input
  --allow-unused-prefixes     Do not require every prefix to be used
  --implicit-check-not=<pat>  Add an implicit CHECK-NOT everywhere
  -D<VAR>=<VALUE>             Define a string variable
  --dump-input=<fail|never|always|help>
";

/// Parse LLVM `FileCheck` arguments (without the program name).
///
/// Accepts `-opt=value`, `--opt=value`, `-opt value` and `--opt value`.
pub fn parse_command_line(args: &[String]) -> Result<CommandLine, String> {
    let mut options = CheckOptions::default();
    let mut comment_prefixes: Option<Vec<String>> = None;
    let mut check_file = None;
    let mut input_file = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "-" || !arg.starts_with('-') {
            if check_file.is_some() {
                return Err(format!("too many positional arguments: '{arg}'"));
            }
            check_file = Some(arg.clone());
            continue;
        }
        if let Some(def) = arg
            .strip_prefix("-D")
            .filter(|d| !d.is_empty() && !arg.starts_with("--"))
        {
            options.defines.push(parse_define(def)?);
            continue;
        }
        let body = arg.trim_start_matches('-');
        let (name, inline_value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let take_value = |i: &mut usize| -> Result<String, String> {
            if let Some(v) = &inline_value {
                return Ok(v.clone());
            }
            let v = args
                .get(*i)
                .cloned()
                .ok_or_else(|| format!("option '{arg}' requires a value"))?;
            *i += 1;
            Ok(v)
        };
        let flag = |v: &Option<String>| -> Result<bool, String> {
            match v.as_deref() {
                None | Some("true") | Some("1") => Ok(true),
                Some("false") | Some("0") => Ok(false),
                Some(other) => Err(format!("invalid boolean value '{other}' for '{arg}'")),
            }
        };
        match name {
            "check-prefix" => options.check_prefixes.push(take_value(&mut i)?),
            "check-prefixes" => options
                .check_prefixes
                .extend(take_value(&mut i)?.split(',').map(str::to_string)),
            "comment-prefixes" => {
                let v = take_value(&mut i)?;
                comment_prefixes = Some(
                    v.split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                );
            }
            "input-file" => input_file = Some(take_value(&mut i)?),
            "strict-whitespace" => options.strict_whitespace = flag(&inline_value)?,
            "match-full-lines" => options.match_full_lines = flag(&inline_value)?,
            "ignore-case" => options.ignore_case = flag(&inline_value)?,
            "enable-var-scope" => options.enable_var_scope = flag(&inline_value)?,
            "allow-empty" => options.allow_empty = flag(&inline_value)?,
            "allow-unused-prefixes" => options.allow_unused_prefixes = flag(&inline_value)?,
            "implicit-check-not" => options.implicit_check_not.push(take_value(&mut i)?),
            "D" => options.defines.push(parse_define(&take_value(&mut i)?)?),
            "dump-input" => match take_value(&mut i)?.as_str() {
                "never" => options.dump_input = false,
                "fail" | "always" => options.dump_input = true,
                "help" => return Err(USAGE.to_string()),
                other => return Err(format!("invalid --dump-input value '{other}'")),
            },
            "dump-input-context" | "dump-input-filter" | "color" => {
                if inline_value.is_none() && name != "color" {
                    take_value(&mut i)?;
                }
            }
            "v" | "vv" | "verbose" => {}
            "h" | "help" => return Err(USAGE.to_string()),
            _ => return Err(format!("Unknown command line argument '{arg}'.\n{USAGE}")),
        }
    }
    if let Some(c) = comment_prefixes {
        options.comment_prefixes = c;
    }
    let check_file = check_file.ok_or_else(|| format!("missing check file\n{USAGE}"))?;
    Ok(CommandLine {
        check_file,
        input_file: input_file.filter(|f| f != "-"),
        options,
    })
}

fn parse_define(def: &str) -> Result<(String, String), String> {
    let (name, value) = def
        .split_once('=')
        .ok_or_else(|| format!("Missing equal sign in command-line definition '-D{def}'"))?;
    let ok = {
        let n = name.strip_prefix('$').unwrap_or(name);
        let mut chars = n.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !ok {
        return Err(format!(
            "invalid variable name in command-line definition '-D{def}'"
        ));
    }
    Ok((name.to_string(), value.to_string()))
}

/// Entry point of the `FileCheck` command line tool (used by the
/// `tileir-filecheck` binary). Takes the arguments without the program name;
/// returns the exit code (0 = match, 1 = mismatch, 2 = usage or I/O error).
/// Diagnostics go to standard error.
pub fn main_with_args(args: &[String]) -> i32 {
    let cl = match parse_command_line(args) {
        Ok(cl) => cl,
        Err(e) => {
            eprintln!("tileir-filecheck: {e}");
            return 2;
        }
    };
    let check_text = match std::fs::read(&cl.check_file) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("Could not open check file '{}': {e}", cl.check_file);
            return 2;
        }
    };
    let mut options = cl.options;
    let input = match &cl.input_file {
        Some(f) => {
            options.input_name = f.clone();
            match std::fs::read(f) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) => {
                    eprintln!("Could not open input file '{f}': {e}");
                    return 2;
                }
            }
        }
        None => {
            let mut buf = Vec::new();
            if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf) {
                eprintln!("Could not read standard input: {e}");
                return 2;
            }
            String::from_utf8_lossy(&buf).into_owned()
        }
    };
    match check(&check_text, &cl.check_file, &input, &options) {
        Ok(()) => 0,
        Err(msg) => {
            eprint!("{msg}");
            if !msg.ends_with('\n') {
                eprintln!();
            }
            if msg.starts_with("FileCheck error: '") && msg.contains("' is empty.") {
                2
            } else {
                1
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Check file parsing
// ---------------------------------------------------------------------------

struct Source {
    name: String,
    text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Next,
    Same,
    Not,
    Dag,
    Label,
    Empty,
    Eof,
}

#[derive(Debug, Clone)]
enum Part {
    /// A regex fragment (escaped fixed text or a translated `{{regex}}`).
    Re(String),
    /// `[[NAME:regex]]`.
    Def {
        name: String,
        re: String,
        group: String,
    },
    /// `[[NAME]]`; `backref` names the group when defined on the same line.
    Use {
        name: String,
        loc: usize,
        backref: Option<String>,
    },
}

#[derive(Debug, Clone)]
enum Body {
    Fixed(String),
    Regex { parts: Vec<Part>, full_lines: bool },
    Empty,
    Eof,
}

#[derive(Debug, Clone)]
struct Pattern {
    kind: Kind,
    count: usize,
    prefix: String,
    src: usize,
    loc: usize,
    body: Body,
    /// Text used for the fuzzy "possible intended match" search.
    example: String,
}

impl Pattern {
    fn description(&self) -> String {
        let p = &self.prefix;
        match self.kind {
            Kind::Plain if self.count > 1 => format!("{p}-COUNT"),
            Kind::Plain => p.clone(),
            Kind::Next => format!("{p}-NEXT"),
            Kind::Same => format!("{p}-SAME"),
            Kind::Not => format!("{p}-NOT"),
            Kind::Dag => format!("{p}-DAG"),
            Kind::Label => format!("{p}-LABEL"),
            Kind::Empty => format!("{p}-EMPTY"),
            Kind::Eof => "implicit EOF".to_string(),
        }
    }

    fn uses(&self) -> impl Iterator<Item = &str> {
        let parts: &[Part] = match &self.body {
            Body::Regex { parts, .. } => parts,
            _ => &[],
        };
        parts.iter().filter_map(|p| match p {
            Part::Use {
                name,
                backref: None,
                ..
            } => Some(name.as_str()),
            _ => None,
        })
    }
}

struct CheckString {
    pat: Pattern,
    dag_not: Vec<Pattern>,
}

fn canonicalize(text: &str, strict: bool) -> String {
    if strict {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_ws = false;
    for c in text.chars() {
        if c == ' ' || c == '\t' {
            if !in_ws {
                out.push(' ');
            }
            in_ws = true;
        } else {
            in_ws = false;
            out.push(c);
        }
    }
    out
}

fn is_part_of_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn validate_prefixes(check: &[String], comment: &[String]) -> Result<(), String> {
    let valid = |p: &str| {
        let mut chars = p.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let mut seen = BTreeSet::new();
    for p in check {
        if !valid(p) || !seen.insert(p.as_str()) {
            return Err(format!(
                "error: supplied check prefix '{p}' is invalid! Prefixes must be unique and start \
                 with a letter and contain only alphanumeric characters, hyphens and underscores\n"
            ));
        }
    }
    for p in comment {
        if !valid(p) {
            return Err(format!(
                "error: supplied comment prefix '{p}' is invalid!\n"
            ));
        }
        if !seen.insert(p.as_str()) {
            return Err(format!(
                "error: supplied comment prefix must not be the same as a check prefix: '{p}'\n"
            ));
        }
    }
    Ok(())
}

enum Found {
    None,
    Comment(usize),
    BadNot(usize),
    BadCount(usize),
    Check {
        kind: Kind,
        count: usize,
        literal: bool,
        after: usize,
    },
}

/// LLVM's `FindCheckType`: classify what follows a prefix at `pstart`.
fn find_check_type(buf: &str, pstart: usize, prefix: &str, is_comment: bool) -> Found {
    let b = buf.as_bytes();
    let mut i = pstart + prefix.len();
    if i >= b.len() {
        return Found::None;
    }
    if is_comment {
        return if b[i] == b':' {
            Found::Comment(i + 1)
        } else {
            Found::None
        };
    }
    let consume_modifiers = |i: usize, kind: Kind, count: usize| -> Found {
        match b.get(i) {
            Some(b':') => {
                return Found::Check {
                    kind,
                    count,
                    literal: false,
                    after: i + 1,
                }
            }
            Some(b'{') => {}
            _ => return Found::None,
        }
        let mut j = i + 1;
        let literal = true;
        let skip_ws = |j: &mut usize| {
            while *j < b.len() && b[*j].is_ascii_whitespace() {
                *j += 1;
            }
        };
        loop {
            skip_ws(&mut j);
            if buf[j..].starts_with("LITERAL") {
                j += "LITERAL".len();
            } else {
                return Found::None;
            }
            skip_ws(&mut j);
            if b.get(j) == Some(&b',') {
                j += 1;
            } else {
                break;
            }
        }
        if buf[j..].starts_with("}:") {
            Found::Check {
                kind,
                count,
                literal,
                after: j + 2,
            }
        } else {
            Found::None
        }
    };
    if b[i] == b':' || b[i] == b'{' {
        return consume_modifiers(i, Kind::Plain, 1);
    }
    if b[i] != b'-' {
        return Found::None;
    }
    i += 1;
    let rest = &buf[i..];
    if let Some(r) = rest.strip_prefix("COUNT-") {
        let start = i + "COUNT-".len();
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Found::BadCount(start);
        }
        let count = match r[..digits].parse::<i64>() {
            Ok(c) if c > 0 && c <= i64::from(i32::MAX) => c as usize,
            _ => return Found::BadCount(start),
        };
        let j = start + digits;
        if !matches!(b.get(j), Some(b':' | b'{')) {
            return Found::BadCount(start);
        }
        return consume_modifiers(j, Kind::Plain, count);
    }
    const BAD_NOT: [&str; 8] = [
        "DAG-NOT:",
        "NOT-DAG:",
        "NEXT-NOT:",
        "NOT-NEXT:",
        "SAME-NOT:",
        "NOT-SAME:",
        "EMPTY-NOT:",
        "NOT-EMPTY:",
    ];
    if BAD_NOT.iter().any(|s| rest.starts_with(s)) {
        return Found::BadNot(i);
    }
    for (name, kind) in [
        ("NEXT", Kind::Next),
        ("SAME", Kind::Same),
        ("NOT", Kind::Not),
        ("DAG", Kind::Dag),
        ("LABEL", Kind::Label),
        ("EMPTY", Kind::Empty),
    ] {
        if rest.starts_with(name) {
            return consume_modifiers(i + name.len(), kind, 1);
        }
    }
    Found::None
}

fn line_number(text: &str, pos: usize) -> usize {
    text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Render a `SourceMgr`-style message: header, source line, caret line.
fn render(out: &mut String, name: &str, text: &str, pos: usize, len: usize, kind: &str, msg: &str) {
    let pos = pos.min(text.len());
    let line_start = text[..pos].rfind('\n').map(|p| p + 1).unwrap_or(0);
    let line_end = text[pos..]
        .find('\n')
        .map(|p| p + pos)
        .unwrap_or(text.len());
    let line_text = text[line_start..line_end].trim_end_matches('\r');
    let line_no = line_number(text, pos);
    let col = pos - line_start + 1;
    let _ = writeln!(out, "{name}:{line_no}:{col}: {kind}: {msg}");
    let _ = writeln!(out, "{line_text}");
    let pad: String = line_text
        .char_indices()
        .take_while(|(i, _)| *i < pos - line_start)
        .map(|(_, c)| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let visible = len.min(line_end.saturating_sub(pos));
    let tildes = line_text
        .get(pos - line_start..(pos - line_start + visible).min(line_text.len()))
        .map(|s| s.chars().count())
        .unwrap_or(0);
    let _ = writeln!(out, "{pad}^{}", "~".repeat(tildes.saturating_sub(1)));
}

fn parse_error(src: &Source, pos: usize, msg: &str) -> String {
    let mut out = String::new();
    render(&mut out, &src.name, &src.text, pos, 0, "error", msg);
    out
}

fn parse_check_file(
    sources: &[Source],
    opts: &CheckOptions,
    prefixes: &[String],
) -> Result<Vec<CheckString>, String> {
    // Implicit CHECK-NOTs (one source each, after the check file).
    let mut implicit = Vec::new();
    for (k, src) in sources.iter().enumerate().skip(1) {
        let start = "-implicit-check-not='".len();
        let end = src.text.len() - 1;
        let text = &src.text[start..end];
        implicit.push(parse_pattern(
            src,
            k,
            text,
            start,
            Kind::Not,
            1,
            "IMPLICIT-CHECK",
            false,
            opts,
        )?);
    }

    let src = &sources[0];
    let buf = src.text.as_str();
    let mut all: Vec<&str> = prefixes
        .iter()
        .map(String::as_str)
        .chain(opts.comment_prefixes.iter().map(String::as_str))
        .collect();
    all.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let prefix_re = regex::Regex::new(
        &all.iter()
            .map(|p| regex::escape(p))
            .collect::<Vec<_>>()
            .join("|"),
    )
    .map_err(|e| format!("error: bad prefixes: {e}\n"))?;

    let mut check_strings: Vec<CheckString> = Vec::new();
    let mut dag_not: Vec<Pattern> = implicit.clone();
    let mut found_prefixes: BTreeSet<String> = BTreeSet::new();
    let mut pos = 0;
    while pos < buf.len() {
        let Some(m) = prefix_re.find_at(buf, pos) else {
            break;
        };
        let pstart = m.start();
        let prefix = m.as_str();
        let is_comment = opts.comment_prefixes.iter().any(|c| c == prefix);
        let word_start = pstart == 0 || !is_part_of_word(buf.as_bytes()[pstart - 1]);
        let found = if word_start {
            find_check_type(buf, pstart, prefix, is_comment)
        } else {
            Found::None
        };
        let (kind, count, literal, after) = match found {
            Found::None => {
                let mut p = pstart + prefix.len();
                while p < buf.len() && is_part_of_word(buf.as_bytes()[p]) {
                    p += 1;
                }
                pos = p;
                continue;
            }
            Found::BadNot(at) => {
                return Err(parse_error(
                    src,
                    at,
                    &format!("unsupported -NOT combo on prefix '{prefix}'"),
                ))
            }
            Found::BadCount(at) => {
                return Err(parse_error(
                    src,
                    at,
                    &format!("invalid count in -COUNT specification on prefix '{prefix}'"),
                ))
            }
            Found::Comment(after) => (None, 1, false, after),
            Found::Check {
                kind,
                count,
                literal,
                after,
            } => (Some(kind), count, literal, after),
        };
        let mut p = after;
        if !(opts.strict_whitespace && opts.match_full_lines) {
            while p < buf.len() && matches!(buf.as_bytes()[p], b' ' | b'\t') {
                p += 1;
            }
        }
        let eol = buf[p..]
            .find(['\n', '\r'])
            .map(|x| p + x)
            .unwrap_or(buf.len());
        pos = eol;
        let Some(kind) = kind else { continue };
        found_prefixes.insert(prefix.to_string());
        let pat = parse_pattern(src, 0, &buf[p..eol], p, kind, count, prefix, literal, opts)?;

        if kind == Kind::Label && pattern_has_vars(&pat) {
            return Err(parse_error(
                src,
                pstart,
                &format!("found '{prefix}-LABEL:' with variable definition or use"),
            ));
        }
        if matches!(kind, Kind::Next | Kind::Same | Kind::Empty) && check_strings.is_empty() {
            let ty = match kind {
                Kind::Next => "NEXT",
                Kind::Empty => "EMPTY",
                _ => "SAME",
            };
            return Err(parse_error(
                src,
                eol,
                &format!("found '{prefix}-{ty}' without previous '{prefix}: line"),
            ));
        }
        if matches!(kind, Kind::Dag | Kind::Not) {
            dag_not.push(pat);
            continue;
        }
        check_strings.push(CheckString {
            pat,
            dag_not: std::mem::replace(&mut dag_not, implicit.clone()),
        });
    }

    if !dag_not.is_empty() {
        check_strings.push(CheckString {
            pat: Pattern {
                kind: Kind::Eof,
                count: 1,
                prefix: prefixes[0].clone(),
                src: 0,
                loc: buf.len(),
                body: Body::Eof,
                example: String::new(),
            },
            dag_not,
        });
    }

    let not_found: Vec<&String> = prefixes
        .iter()
        .filter(|p| !found_prefixes.contains(*p))
        .collect();
    let none_found = found_prefixes.is_empty();
    let some_unused = !opts.allow_unused_prefixes && !none_found && !not_found.is_empty();
    let is_default_prefix = opts.check_prefixes.is_empty();
    if (none_found || some_unused) && (opts.implicit_check_not.is_empty() || !is_default_prefix) {
        let list: Vec<String> = not_found.iter().map(|p| format!("'{p}:'")).collect();
        return Err(format!(
            "error: no check strings found with prefix{} {}\n",
            if list.len() > 1 { "es" } else { "" },
            list.join(", ")
        ));
    }
    Ok(check_strings)
}

fn pattern_has_vars(p: &Pattern) -> bool {
    match &p.body {
        Body::Regex { parts, .. } => parts.iter().any(|x| !matches!(x, Part::Re(_))),
        _ => false,
    }
}

/// Validate a translated regex fragment; returns the compiler's message on error.
fn validate_regex(re: &str) -> Result<(), String> {
    match regex::Regex::new(re) {
        Ok(_) => Ok(()),
        Err(e) => match fancy_regex::Regex::new(re) {
            Ok(_) => Ok(()),
            Err(_) => Err(e.to_string()),
        },
    }
}

/// LLVM's `FindRegexVarEnd`: offset of the `]]` closing a substitution block.
fn find_var_end(s: &str) -> Result<Option<usize>, usize> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    while i < b.len() {
        if depth == 0 && b[i..].starts_with(b"]]") {
            return Ok(Some(i));
        }
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        match b[i] {
            b'[' => depth += 1,
            b']' => {
                if depth == 0 {
                    return Err(i);
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(None)
}

/// LLVM's `parseVariable`: returns (name, is_pseudo, length consumed).
fn parse_variable(s: &str) -> Result<(String, bool, usize), &'static str> {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err("empty variable name");
    }
    let pseudo = b[0] == b'@';
    let mut i = usize::from(b[0] == b'$' || pseudo);
    if i == b.len() {
        return Err("empty variable name");
    }
    if !(b[i].is_ascii_alphabetic() || b[i] == b'_') {
        return Err("invalid variable name");
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    Ok((s[..i].to_string(), pseudo, i))
}

#[allow(clippy::too_many_arguments)]
fn parse_pattern(
    src: &Source,
    src_idx: usize,
    text: &str,
    loc: usize,
    kind: Kind,
    count: usize,
    prefix: &str,
    literal: bool,
    opts: &CheckOptions,
) -> Result<Pattern, String> {
    let full_lines_here = opts.match_full_lines && kind != Kind::Not;
    let mut text = text;
    if !(opts.strict_whitespace && opts.match_full_lines) {
        text = text.trim_end_matches([' ', '\t']);
    }
    if text.is_empty() && kind != Kind::Empty {
        return Err(parse_error(
            src,
            loc,
            &format!("found empty check string with prefix '{prefix}:'"),
        ));
    }
    if !text.is_empty() && kind == Kind::Empty {
        return Err(parse_error(
            src,
            loc,
            &format!("found non-empty check string for empty check with prefix '{prefix}:'"),
        ));
    }
    let mk = |body: Body| Pattern {
        kind,
        count,
        prefix: prefix.to_string(),
        src: src_idx,
        loc,
        body,
        example: text.to_string(),
    };
    if kind == Kind::Empty {
        return Ok(mk(Body::Empty));
    }
    if literal
        || (!full_lines_here && (text.len() < 2 || (!text.contains("{{") && !text.contains("[["))))
    {
        return Ok(mk(Body::Fixed(text.to_string())));
    }

    let mut parts: Vec<Part> = Vec::new();
    let mut defined_here: HashMap<String, String> = HashMap::new();
    let mut groups = 0usize;
    let mut rest = text;
    let offset = |rest: &str| loc + (text.len() - rest.len());
    while !rest.is_empty() {
        if rest.starts_with("{{") {
            let Some(end) = rest.find("}}") else {
                return Err(parse_error(
                    src,
                    offset(rest),
                    "found start of regex string with no end '}}'",
                ));
            };
            let re = crate::posix::translate(&rest[2..end], true);
            if let Err(e) = validate_regex(&re) {
                return Err(parse_error(
                    src,
                    offset(rest) + 2,
                    &format!("invalid regex: {e}"),
                ));
            }
            parts.push(Part::Re(format!("(?:{re})")));
            rest = &rest[end + 2..];
            continue;
        }
        if rest.starts_with("[[") && !rest.starts_with("[[[") {
            let block_loc = offset(rest);
            let unparsed = &rest[2..];
            let end = match find_var_end(unparsed) {
                Ok(Some(e)) => e,
                Ok(None) => {
                    return Err(parse_error(
                        src,
                        block_loc,
                        "Invalid substitution block, no ]] found",
                    ))
                }
                Err(at) => {
                    return Err(parse_error(
                        src,
                        block_loc + 2 + at,
                        "missing closing \"]\" for regex variable",
                    ))
                }
            };
            let block = &unparsed[..end];
            rest = &unparsed[end + 2..];
            if block.starts_with('#') {
                return Err(parse_error(
                    src,
                    block_loc,
                    "numeric substitution blocks ([[#...]]) are not supported by tileir-filecheck",
                ));
            }
            let name_loc = block_loc + 2;
            let colon = block.find(':');
            if let Some(sp) = block[..colon.unwrap_or(block.len())].find([' ', '\t']) {
                return Err(parse_error(src, name_loc + sp, "unexpected whitespace"));
            }
            let (name, pseudo, used) =
                parse_variable(block).map_err(|m| parse_error(src, name_loc, m))?;
            let remainder = &block[used..];
            if colon.is_some() {
                let Some(re) = remainder.strip_prefix(':').filter(|_| !pseudo) else {
                    return Err(parse_error(
                        src,
                        name_loc,
                        "invalid name in string variable definition",
                    ));
                };
                let re = crate::posix::translate(re, true);
                if let Err(e) = validate_regex(&re) {
                    return Err(parse_error(src, name_loc, &format!("invalid regex: {e}")));
                }
                let group = format!("fcv{groups}");
                groups += 1;
                defined_here.insert(name.clone(), group.clone());
                parts.push(Part::Def { name, re, group });
            } else if pseudo {
                if name != "@LINE" {
                    return Err(parse_error(
                        src,
                        name_loc,
                        &format!("invalid pseudo numeric variable '{name}'"),
                    ));
                }
                let line = line_number(&src.text, loc) as i64;
                let value = if remainder.is_empty() {
                    line
                } else {
                    let sign = remainder.as_bytes()[0];
                    let n: Option<i64> = remainder[1..].trim().parse().ok();
                    match (sign, n) {
                        (b'+', Some(n)) => line + n,
                        (b'-', Some(n)) => line - n,
                        _ => {
                            return Err(parse_error(
                                src,
                                name_loc + used,
                                &format!(
                                    "unexpected characters at end of expression '{remainder}'"
                                ),
                            ))
                        }
                    }
                };
                parts.push(Part::Re(regex::escape(&value.to_string())));
            } else {
                if !remainder.is_empty() {
                    return Err(parse_error(
                        src,
                        name_loc,
                        "invalid name in string variable use",
                    ));
                }
                let backref = defined_here.get(&name).cloned();
                parts.push(Part::Use {
                    name,
                    loc: name_loc,
                    backref,
                });
            }
            continue;
        }
        let first_len = rest.chars().next().map(char::len_utf8).unwrap_or(1);
        let tail = &rest[first_len..];
        let end = [tail.find("{{"), tail.find("[[")]
            .into_iter()
            .flatten()
            .min()
            .map(|e| e + first_len)
            .unwrap_or(rest.len());
        parts.push(Part::Re(regex::escape(&rest[..end])));
        rest = &rest[end..];
    }
    Ok(mk(Body::Regex {
        parts,
        full_lines: full_lines_here,
    }))
}

// ---------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------

enum Compiled {
    Std(regex::Regex),
    Fancy(fancy_regex::Regex),
}

type GroupMatch = Option<(usize, usize, Vec<String>)>;

impl Compiled {
    fn find(&self, hay: &str, groups: &[String]) -> Result<GroupMatch, String> {
        match self {
            Compiled::Std(r) => {
                if groups.is_empty() {
                    return Ok(r.find(hay).map(|m| (m.start(), m.end(), Vec::new())));
                }
                Ok(r.captures(hay).map(|c| {
                    let m = c.get(0).expect("group 0");
                    let vals = groups
                        .iter()
                        .map(|g| {
                            c.name(g)
                                .map(|x| x.as_str().to_string())
                                .unwrap_or_default()
                        })
                        .collect();
                    (m.start(), m.end(), vals)
                }))
            }
            Compiled::Fancy(r) => {
                let caps = r.captures(hay).map_err(|e| e.to_string())?;
                Ok(caps.map(|c| {
                    let m = c.get(0).expect("group 0");
                    let vals = groups
                        .iter()
                        .map(|g| {
                            c.name(g)
                                .map(|x| x.as_str().to_string())
                                .unwrap_or_default()
                        })
                        .collect();
                    (m.start(), m.end(), vals)
                }))
            }
        }
    }
}

enum MatchRes {
    Found(usize, usize),
    NotFound,
    Undefined(Vec<(String, usize)>),
    RegexError(String),
}

struct Checker<'a> {
    opts: &'a CheckOptions,
    sources: &'a [Source],
    input: &'a str,
    vars: HashMap<String, String>,
    cache: HashMap<(String, bool), Rc<Compiled>>,
    out: String,
    input_marks: Vec<usize>,
}

fn write_escaped(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Count newlines (`\n`, `\r`, `\r\n`, `\n\r` count once); also return the
/// offset just past the first one.
fn count_newlines(s: &str) -> (usize, usize) {
    let b = s.as_bytes();
    let mut n = 0;
    let mut first = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\n' || b[i] == b'\r' {
            n += 1;
            if i + 1 < b.len() && (b[i + 1] == b'\n' || b[i + 1] == b'\r') && b[i] != b[i + 1] {
                i += 1;
            }
            i += 1;
            if n == 1 {
                first = i;
            }
        } else {
            i += 1;
        }
    }
    (n, first)
}

fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

impl Checker<'_> {
    fn note_input(&mut self, pos: usize, len: usize, kind: &str, msg: &str) {
        self.input_marks.push(pos);
        render(
            &mut self.out,
            &self.opts.input_name,
            self.input,
            pos,
            len,
            kind,
            msg,
        );
    }

    fn note_check(&mut self, pat: &Pattern, pos: usize, len: usize, kind: &str, msg: &str) {
        let src = &self.sources[pat.src];
        render(&mut self.out, &src.name, &src.text, pos, len, kind, msg);
    }

    fn compile(&mut self, re: &str, fancy: bool) -> Result<Rc<Compiled>, String> {
        let key = (re.to_string(), fancy);
        if let Some(c) = self.cache.get(&key) {
            return Ok(c.clone());
        }
        let c = if fancy {
            Compiled::Fancy(fancy_regex::Regex::new(re).map_err(|e| e.to_string())?)
        } else {
            Compiled::Std(regex::Regex::new(re).map_err(|e| e.to_string())?)
        };
        let c = Rc::new(c);
        self.cache.insert(key, c.clone());
        Ok(c)
    }

    /// Match `pat` in `input[start..end]`; positions returned are absolute.
    fn match_pattern(&mut self, pat: &Pattern, start: usize, end: usize) -> MatchRes {
        let input = self.input;
        let hay = &input[start..end];
        let ci = if self.opts.ignore_case { "(?i)" } else { "" };
        match &pat.body {
            Body::Eof => MatchRes::Found(end, 0),
            Body::Fixed(s) if !self.opts.ignore_case => match hay.find(s.as_str()) {
                Some(p) => MatchRes::Found(start + p, s.len()),
                None => MatchRes::NotFound,
            },
            Body::Fixed(s) => {
                let re = format!("{ci}{}", regex::escape(s));
                self.run_regex(&re, false, &[], start, end, 0)
            }
            Body::Empty => self.run_regex("(?m)\n$", false, &[], start, end, 1),
            Body::Regex { parts, full_lines } => {
                let strict = self.opts.strict_whitespace;
                let mut re = format!("{ci}(?m)");
                if *full_lines {
                    re.push('^');
                    if !strict {
                        re.push_str(" *");
                    }
                }
                let mut fancy = false;
                let mut undefined = Vec::new();
                let mut defs: Vec<(String, String)> = Vec::new();
                for part in parts {
                    match part {
                        Part::Re(s) => re.push_str(s),
                        Part::Def { name, re: r, group } => {
                            let _ = write!(re, "(?P<{group}>{r})");
                            defs.push((name.clone(), group.clone()));
                        }
                        Part::Use {
                            backref: Some(g), ..
                        } => {
                            let _ = write!(re, "\\k<{g}>");
                            fancy = true;
                        }
                        Part::Use {
                            name,
                            loc,
                            backref: None,
                        } => match self.vars.get(name) {
                            Some(v) => re.push_str(&regex::escape(v)),
                            None => undefined.push((name.clone(), *loc)),
                        },
                    }
                }
                if *full_lines {
                    if !strict {
                        re.push_str(" *");
                    }
                    re.push('$');
                }
                if !undefined.is_empty() {
                    return MatchRes::Undefined(undefined);
                }
                let groups: Vec<String> = defs.iter().map(|(_, g)| g.clone()).collect();
                let res = self.run_regex_groups(&re, fancy, &groups, start, end, 0);
                match res {
                    Ok(Some((s, e, vals))) => {
                        for ((name, _), v) in defs.into_iter().zip(vals) {
                            self.vars.insert(name, v);
                        }
                        MatchRes::Found(s, e - s)
                    }
                    Ok(None) => MatchRes::NotFound,
                    Err(e) => MatchRes::RegexError(e),
                }
            }
        }
    }

    fn run_regex(
        &mut self,
        re: &str,
        fancy: bool,
        groups: &[String],
        start: usize,
        end: usize,
        skip: usize,
    ) -> MatchRes {
        match self.run_regex_groups(re, fancy, groups, start, end, skip) {
            Ok(Some((s, e, _))) => MatchRes::Found(s, e - s),
            Ok(None) => MatchRes::NotFound,
            Err(e) => MatchRes::RegexError(e),
        }
    }

    /// Returns absolute (start, end, group values); `skip` bytes are dropped
    /// from the front of the match (CHECK-EMPTY consumes the preceding newline).
    fn run_regex_groups(
        &mut self,
        re: &str,
        fancy: bool,
        groups: &[String],
        start: usize,
        end: usize,
        skip: usize,
    ) -> Result<GroupMatch, String> {
        let compiled = self.compile(re, fancy)?;
        let hay = &self.input[start..end];
        Ok(compiled
            .find(hay, groups)?
            .map(|(s, e, v)| (start + (s + skip).min(e), start + e, v)))
    }

    fn print_substitutions(&mut self, pat: &Pattern, at: usize) {
        let uses: Vec<String> = pat.uses().map(str::to_string).collect();
        let mut seen = BTreeSet::new();
        for name in uses {
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some(v) = self.vars.get(&name).cloned() {
                let msg = format!(
                    "with \"{}\" equal to \"{}\"",
                    write_escaped(&name),
                    write_escaped(&v)
                );
                self.note_input(at, 0, "note", &msg);
            }
        }
    }

    fn report_no_match(
        &mut self,
        pat: &Pattern,
        start: usize,
        end: usize,
        matched: usize,
        res: MatchRes,
    ) {
        let mut pattern_error = false;
        match res {
            MatchRes::Undefined(names) => {
                pattern_error = true;
                for (name, loc) in names {
                    self.note_check(
                        pat,
                        loc,
                        name.len(),
                        "error",
                        &format!("undefined variable: {name}"),
                    );
                }
            }
            MatchRes::RegexError(e) => {
                pattern_error = true;
                self.note_check(pat, pat.loc, 0, "error", &format!("regex error: {e}"));
            }
            _ => {}
        }
        // If the current position is at the end of a line, advance to the
        // start of the next line (as LLVM does).
        let skipped = self.input[start..end]
            .find(|c: char| !matches!(c, ' ' | '\t' | '\n' | '\r'))
            .unwrap_or(end - start);
        let scan = start + skipped;
        if !pattern_error {
            let mut msg = format!("{}: expected string not found in input", pat.description());
            if pat.count > 1 {
                let _ = write!(msg, " ({} out of {})", matched, pat.count);
            }
            self.note_check(pat, pat.loc, 0, "error", &msg);
            self.note_input(scan, 0, "note", "scanning from here");
        }
        self.print_substitutions(pat, scan);
        if let Some(best) = self.fuzzy_match(pat, scan, end) {
            self.note_input(best, 0, "note", "possible intended match here");
        }
    }

    fn fuzzy_match(&self, pat: &Pattern, start: usize, end: usize) -> Option<usize> {
        let example = pat.example.as_bytes();
        if example.is_empty() {
            return None;
        }
        let example = &example[..example.len().min(256)];
        let buf = &self.input.as_bytes()[start..end];
        let limit = buf.len().min(4096);
        let mut lines_fwd = 0usize;
        let mut best: Option<(usize, f64)> = None;
        for i in 0..limit {
            if buf[i] == b'\n' {
                lines_fwd += 1;
            }
            if buf[i] == b' ' || buf[i] == b'\t' || !self.input.is_char_boundary(start + i) {
                continue;
            }
            let mut prefix = &buf[i..(i + example.len()).min(buf.len())];
            if let Some(nl) = prefix.iter().position(|&b| b == b'\n') {
                prefix = &prefix[..nl];
            }
            let q = edit_distance(prefix, example) as f64 + lines_fwd as f64 / 100.0;
            if best.is_none_or(|(_, bq)| q < bq) {
                best = Some((i, q));
            }
        }
        match best {
            Some((b, q)) if b != 0 && q < 50.0 => Some(start + b),
            _ => None,
        }
    }

    /// Check `CHECK-NOT` patterns in `input[start..end]`; true = failure.
    fn check_not(&mut self, nots: &[&Pattern], start: usize, end: usize) -> bool {
        let mut failed = false;
        for pat in nots {
            match self.match_pattern(pat, start, end) {
                MatchRes::NotFound => {}
                MatchRes::Found(pos, len) => {
                    failed = true;
                    let msg = format!("{}: excluded string found in input", pat.description());
                    self.note_check(pat, pat.loc, 0, "error", &msg);
                    self.note_input(pos, len, "note", "found here");
                    self.print_substitutions(pat, pos);
                }
                res => {
                    failed = true;
                    self.report_no_match(pat, start, end, 0, res);
                }
            }
        }
        failed
    }

    fn check_dag<'p>(
        &mut self,
        cs: &'p CheckString,
        start: usize,
        end: usize,
        nots: &mut Vec<&'p Pattern>,
    ) -> Option<usize> {
        if cs.dag_not.is_empty() {
            return Some(start);
        }
        let mut start_pos = start;
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (idx, pat) in cs.dag_not.iter().enumerate() {
            if pat.kind == Kind::Not {
                nots.push(pat);
                continue;
            }
            let mut match_pos = start_pos;
            let mut mi = 0;
            loop {
                let (pos, len) = match self.match_pattern(pat, match_pos, end) {
                    MatchRes::Found(p, l) => (p, l),
                    res => {
                        self.report_no_match(pat, match_pos, end, 0, res);
                        return None;
                    }
                };
                let m = (pos, pos + len);
                if ranges.is_empty() {
                    ranges.push(m);
                    break;
                }
                let mut overlap = false;
                while mi < ranges.len() {
                    if m.0 < ranges[mi].1 {
                        overlap = ranges[mi].0 < m.1;
                        break;
                    }
                    mi += 1;
                }
                if !overlap {
                    ranges.insert(mi, m);
                    break;
                }
                match_pos = ranges[mi].1;
                mi += 1;
            }
            let group_end = idx + 1 == cs.dag_not.len() || cs.dag_not[idx + 1].kind == Kind::Not;
            if group_end {
                if !nots.is_empty() {
                    let region_end = ranges[0].0;
                    if self.check_not(nots, start_pos, region_end) {
                        return None;
                    }
                    nots.clear();
                }
                start_pos = ranges.last().expect("non-empty").1;
                ranges.clear();
            }
        }
        Some(start_pos)
    }

    fn check_next(&mut self, pat: &Pattern, last: usize, pos: usize) -> bool {
        if !matches!(pat.kind, Kind::Next | Kind::Empty) {
            return false;
        }
        let name = format!(
            "{}-{}",
            pat.prefix,
            if pat.kind == Kind::Empty {
                "EMPTY"
            } else {
                "NEXT"
            }
        );
        let (n, first) = count_newlines(&self.input[last..pos]);
        if n == 0 {
            self.note_check(
                pat,
                pat.loc,
                0,
                "error",
                &format!("{name}: is on the same line as previous match"),
            );
            self.note_input(pos, 0, "note", "'next' match was here");
            self.note_input(last, 0, "note", "previous match ended here");
            return true;
        }
        if n != 1 {
            self.note_check(
                pat,
                pat.loc,
                0,
                "error",
                &format!("{name}: is not on the line after the previous match"),
            );
            self.note_input(pos, 0, "note", "'next' match was here");
            self.note_input(last, 0, "note", "previous match ended here");
            self.note_input(
                last + first,
                0,
                "note",
                "non-matching line after previous match is here",
            );
            return true;
        }
        false
    }

    fn check_same(&mut self, pat: &Pattern, last: usize, pos: usize) -> bool {
        if pat.kind != Kind::Same {
            return false;
        }
        let (n, _) = count_newlines(&self.input[last..pos]);
        if n != 0 {
            let msg = format!(
                "{}-SAME: is not on the same line as the previous match",
                pat.prefix
            );
            self.note_check(pat, pat.loc, 0, "error", &msg);
            self.note_input(pos, 0, "note", "'next' match was here");
            self.note_input(last, 0, "note", "previous match ended here");
            return true;
        }
        false
    }

    /// LLVM's `FileCheckString::Check`: returns (absolute match position, length).
    fn check_string(
        &mut self,
        cs: &CheckString,
        start: usize,
        end: usize,
        label_scan: bool,
    ) -> Option<(usize, usize)> {
        let mut last_pos = start;
        let mut nots: Vec<&Pattern> = Vec::new();
        if !label_scan {
            last_pos = self.check_dag(cs, start, end, &mut nots)?;
        }
        let mut last_match_end = last_pos;
        let mut first_match_pos = last_pos;
        for i in 1..=cs.pat.count {
            match self.match_pattern(&cs.pat, last_match_end, end) {
                MatchRes::Found(pos, len) => {
                    if i == 1 {
                        first_match_pos = pos;
                    }
                    last_match_end = pos + len;
                }
                res => {
                    self.report_no_match(&cs.pat, last_match_end, end, i - 1, res);
                    return None;
                }
            }
        }
        let match_len = last_match_end - first_match_pos;
        if !label_scan
            && (self.check_next(&cs.pat, last_pos, first_match_pos)
                || self.check_same(&cs.pat, last_pos, first_match_pos)
                || self.check_not(&nots, last_pos, first_match_pos))
        {
            return None;
        }
        Some((first_match_pos, match_len))
    }

    fn run(&mut self, css: &[CheckString]) -> bool {
        let len = self.input.len();
        let mut buffer_start = 0;
        let mut failed = false;
        let (mut i, mut j) = (0, 0);
        let e = css.len();
        loop {
            let region_end;
            let region_start = buffer_start;
            if j == e {
                region_end = len;
            } else {
                if css[j].pat.kind != Kind::Label {
                    j += 1;
                    continue;
                }
                let (pos, mlen) = match self.check_string(&css[j], buffer_start, len, true) {
                    Some(m) => m,
                    None => return false,
                };
                region_end = pos + mlen;
                buffer_start = pos + mlen;
                j += 1;
            }
            if i != 0 && self.opts.enable_var_scope {
                self.vars.retain(|k, _| k.starts_with('$'));
            }
            let mut cur = region_start;
            while i != j {
                match self.check_string(&css[i], cur, region_end, false) {
                    Some((pos, mlen)) => cur = pos + mlen,
                    None => {
                        failed = true;
                        i = j;
                        break;
                    }
                }
                i += 1;
            }
            if j == e {
                break;
            }
        }
        !failed
    }

    fn dump(&self, check_name: &str) -> String {
        const CONTEXT: usize = 5;
        let lines: Vec<&str> = self.input.split('\n').collect();
        let mut n = lines.len();
        if n > 1 && lines[n - 1].is_empty() {
            n -= 1;
        }
        let mut show = vec![false; n + 1];
        for &m in &self.input_marks {
            let l = line_number(self.input, m).min(n.max(1));
            let lo = l.saturating_sub(CONTEXT).max(1);
            let hi = (l + CONTEXT).min(n);
            if lo <= hi {
                show[lo..=hi].iter_mut().for_each(|s| *s = true);
            }
        }
        let width = n.to_string().len().max(6);
        let mut out = format!(
            "\nInput file: {}\nCheck file: {check_name}\n\nInput was:\n<<<<<<\n",
            self.opts.input_name
        );
        let mut gap = false;
        for (k, line) in lines.iter().enumerate().take(n) {
            if show[k + 1] {
                let _ = writeln!(out, "{:>width$}: {}", k + 1, line);
                gap = false;
            } else if !gap {
                let _ = writeln!(out, "{:>width$}", ".");
                gap = true;
            }
        }
        out.push_str(">>>>>>\n");
        out
    }
}

#[cfg(test)]
mod tests;
