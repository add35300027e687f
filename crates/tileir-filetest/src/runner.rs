//! A lit-like runner for test files with `// RUN:` lines.
//!
//! **Test files.** A test is any file with one of the configured extensions
//! (default `.mlir`) under the root directory, except in directories named
//! `Inputs` (lit convention for fixtures) and hidden ones. Keywords are found
//! anywhere on a line (the character before them must not be part of a word):
//!
//! * `RUN: cmd` — a shell command. A command ending in `\` continues on the
//!   next `RUN:` line (the `\` is removed, the texts are concatenated).
//!   RUN lines run in order, each via `bash -c` with `set -o pipefail` (lit's
//!   default; falls back to `sh` where there is no bash), with
//!   standard input from `/dev/null`, stdout and stderr captured together, the
//!   per-test temporary directory as working directory, and `PATH` starting
//!   with a directory of tool symlinks. The test fails at the first command
//!   that exits non-zero.
//! * `REQUIRES: f1, f2 && !f3` — every comma-separated expression must hold
//!   (over [`RunnerConfig::features`]), otherwise the test is unsupported.
//! * `UNSUPPORTED: expr, ...` — the test is unsupported if any holds (`*`
//!   always holds).
//! * `XFAIL: expr, ...` — the test is expected to fail if any holds.
//!
//! Expressions use identifiers, `!`, `&&`, `||`, parentheses, `true`, `false`.
//!
//! **Substitutions**: user substitutions from [`RunnerConfig::substitutions`]
//! (longest first, e.g. `%round_trip_test`), then `%s` (the test file,
//! absolute), `%S` and `%p` (its directory), `%t` (a temporary file path unique
//! to the test: `<tmpdir>/<file name>.tmp`), `%T` (that temporary directory),
//! `%{pathsep}`, `%(line)`, `%(line+N)`, `%(line-N)` (the RUN line's number)
//! and `%%` (`%`).
//!
//! **Tools.** [`RunnerConfig::tools`] maps a command name to an executable;
//! each becomes a symlink in the tool directory. Aliases are added when
//! missing: `cuda-tile-opt` ↔ `tileir-opt`, `cuda-tile-translate` ↔
//! `tileir-translate`, `FileCheck` ↔ `tileir-filecheck`, `not` ↔ `tileir-not`.
//! If no FileCheck is configured, `tileir-filecheck` is looked up next to the
//! configured tools and in the directories of the running executable
//! (`target/<profile>/` and `target/<profile>/deps/`); if no `not` is
//! configured, `tileir-not` is looked up the same way and otherwise a small
//! shell script with the same semantics is generated. A test harness can also
//! serve both tools itself, see
//! [`RunnerConfig::with_current_exe_as_builtin_tools`].
//!
//! **Bless.** With `TILEIR_BLESS=1` (or [`RunnerConfig::bless`]) failing
//! tests get their expectations regenerated, see [`crate::bless`].
//!
//! **Filtering.** [`RunnerConfig::filter`] (default: the `TILEIR_FILETEST_FILTER`
//! environment variable) keeps only tests whose path relative to the root
//! contains the given text.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use crate::bless;

/// Configuration of a test run.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// Command name → executable (e.g. `tileir-opt` → `target/debug/tileir-opt`).
    pub tools: BTreeMap<String, PathBuf>,
    /// Extra substitutions (`%name` → replacement), applied before the built-in ones.
    pub substitutions: Vec<(String, String)>,
    /// Features available to `REQUIRES:` / `UNSUPPORTED:` / `XFAIL:`.
    pub features: BTreeSet<String>,
    /// File extensions (without dot) of test files; default `["mlir"]`.
    pub extensions: Vec<String>,
    /// Worker threads for [`run_dir`]; 0 = available parallelism.
    pub jobs: usize,
    /// Bless failing tests. Defaults to true when the environment variable
    /// `TILEIR_BLESS` is set to anything but empty or `0`.
    pub bless: bool,
    /// Per-RUN-line time limit (default 300 s); `None` = unlimited.
    pub timeout: Option<Duration>,
    /// Directory for temporary files; default `$TMPDIR/tileir-filetest-<pid>`.
    pub temp_root: Option<PathBuf>,
    /// Keep the temporary directories of passing tests too.
    pub keep_temps: bool,
    /// Extra environment variables for RUN lines.
    pub env: Vec<(String, String)>,
    /// Only run tests whose relative path contains this text
    /// (default: `TILEIR_FILETEST_FILTER`).
    pub filter: Option<String>,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        RunnerConfig {
            tools: BTreeMap::new(),
            substitutions: Vec::new(),
            features: BTreeSet::new(),
            extensions: vec!["mlir".to_string()],
            jobs: 0,
            bless: std::env::var("TILEIR_BLESS").is_ok_and(|v| !v.is_empty() && v != "0"),
            timeout: Some(Duration::from_secs(300)),
            temp_root: None,
            keep_temps: false,
            env: Vec::new(),
            filter: std::env::var("TILEIR_FILETEST_FILTER")
                .ok()
                .filter(|f| !f.is_empty()),
        }
    }
}

impl RunnerConfig {
    /// Default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a tool (`name` as used in RUN lines → executable).
    pub fn tool(mut self, name: &str, path: impl Into<PathBuf>) -> Self {
        self.tools.insert(name.to_string(), path.into());
        self
    }

    /// Add a substitution (`%name` → `value`).
    pub fn substitution(mut self, key: &str, value: &str) -> Self {
        self.substitutions
            .push((key.to_string(), value.to_string()));
        self
    }

    /// Add an available feature.
    pub fn feature(mut self, name: &str) -> Self {
        self.features.insert(name.to_string());
        self
    }

    /// Serve `FileCheck`, `tileir-filecheck`, `not` and `tileir-not` (those
    /// not configured yet) with the running executable, which must call
    /// [`tools::multicall_main`](crate::tools::multicall_main) at the start of
    /// its `main` (a `harness = false` test target; [`test_main`] does it).
    pub fn with_current_exe_as_builtin_tools(mut self) -> Self {
        if let Ok(exe) = std::env::current_exe() {
            for name in ["FileCheck", "tileir-filecheck", "not", "tileir-not"] {
                self.tools
                    .entry(name.to_string())
                    .or_insert_with(|| exe.clone());
            }
        }
        self
    }

    /// Whether bless mode is on (see [`RunnerConfig::bless`]).
    pub fn bless_enabled(&self) -> bool {
        self.bless
    }
}

/// Result status of one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestStatus {
    /// All RUN lines succeeded.
    Pass,
    /// A RUN line failed.
    Fail,
    /// Skipped because of `REQUIRES:` / `UNSUPPORTED:`; carries the reason.
    Unsupported(String),
    /// Failed as announced by `XFAIL:`.
    ExpectedFail,
    /// Passed although marked `XFAIL:` (a failure).
    UnexpectedPass,
    /// The test could not be run (no RUN line, unreadable, bad syntax).
    Unresolved(String),
    /// Failed, was blessed, and passes now.
    Blessed,
}

impl TestStatus {
    /// Whether this status makes the run fail.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            TestStatus::Fail | TestStatus::UnexpectedPass | TestStatus::Unresolved(_)
        )
    }

    /// lit's label for the status (`PASS`, `FAIL`, `UNSUPPORTED`, ...).
    pub fn label(&self) -> &'static str {
        match self {
            TestStatus::Pass => "PASS",
            TestStatus::Fail => "FAIL",
            TestStatus::Unsupported(_) => "UNSUPPORTED",
            TestStatus::ExpectedFail => "XFAIL",
            TestStatus::UnexpectedPass => "XPASS",
            TestStatus::Unresolved(_) => "UNRESOLVED",
            TestStatus::Blessed => "BLESSED",
        }
    }
}

/// Outcome of one test file.
#[derive(Debug, Clone)]
pub struct TestOutcome {
    /// The test file.
    pub path: PathBuf,
    /// Display name (path relative to the root for [`run_dir`]).
    pub name: String,
    /// Status.
    pub status: TestStatus,
    /// Log of the executed RUN lines and their output (empty for passing tests).
    pub log: String,
    /// Wall-clock time.
    pub elapsed: Duration,
}

/// Outcomes of a directory run, in sorted path order.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// One outcome per test file.
    pub outcomes: Vec<TestOutcome>,
    /// Total wall-clock time.
    pub elapsed: Duration,
}

impl Summary {
    /// Whether no test failed.
    pub fn is_success(&self) -> bool {
        !self.outcomes.iter().any(|o| o.status.is_failure())
    }

    /// Outcomes that make the run fail.
    pub fn failures(&self) -> Vec<&TestOutcome> {
        self.outcomes
            .iter()
            .filter(|o| o.status.is_failure())
            .collect()
    }

    /// Number of outcomes with the given label (see [`TestStatus::label`]).
    pub fn count(&self, label: &str) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.status.label() == label)
            .count()
    }

    /// A lit-style report: the log of each failure, then the totals.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let total = self.outcomes.len();
        for (k, o) in self.outcomes.iter().enumerate() {
            match &o.status {
                TestStatus::Pass => {}
                TestStatus::Unsupported(reason) | TestStatus::Unresolved(reason) => {
                    let _ = writeln!(
                        out,
                        "{}: {} ({} of {total}): {reason}",
                        o.status.label(),
                        o.name,
                        k + 1
                    );
                }
                s => {
                    let _ = writeln!(out, "{}: {} ({} of {total})", s.label(), o.name, k + 1);
                }
            }
            if o.status.is_failure() || o.status == TestStatus::Blessed {
                let _ = writeln!(
                    out,
                    "******************** TEST '{}' {} ********************",
                    o.name,
                    o.status.label()
                );
                out.push_str(&o.log);
                if !o.log.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str("********************\n");
            }
        }
        let _ = writeln!(out, "\nTesting Time: {:.2}s", self.elapsed.as_secs_f64());
        let _ = writeln!(out, "\nTotal Discovered Tests: {total}");
        for label in [
            "PASS",
            "BLESSED",
            "UNSUPPORTED",
            "XFAIL",
            "XPASS",
            "UNRESOLVED",
            "FAIL",
        ] {
            let n = self.count(label);
            if n > 0 {
                let name = match label {
                    "PASS" => "Passed",
                    "BLESSED" => "Blessed",
                    "UNSUPPORTED" => "Unsupported",
                    "XFAIL" => "Expectedly Failed",
                    "XPASS" => "Unexpectedly Passed",
                    "UNRESOLVED" => "Unresolved",
                    _ => "Failed",
                };
                let _ = writeln!(out, "  {name}: {n}");
            }
        }
        out
    }

    /// Panic with [`Summary::report`] if any test failed (for `cargo test`).
    pub fn assert_success(&self) {
        assert!(self.is_success(), "filetests failed:\n{}", self.report());
    }
}

// ---------------------------------------------------------------------------
// Test script parsing
// ---------------------------------------------------------------------------

/// The keywords of one test file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestScript {
    /// `(line number, command)` of each RUN command (continuations joined).
    pub run_lines: Vec<(usize, String)>,
    /// `REQUIRES:` expressions.
    pub requires: Vec<String>,
    /// `UNSUPPORTED:` expressions.
    pub unsupported: Vec<String>,
    /// `XFAIL:` expressions.
    pub xfail: Vec<String>,
}

fn find_keyword<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(p) = line[from..].find(keyword) {
        let at = from + p;
        let ok = at == 0 || {
            let b = line.as_bytes()[at - 1];
            !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        if ok {
            return Some(&line[at + keyword.len()..]);
        }
        from = at + keyword.len();
    }
    None
}

/// Parse the RUN / REQUIRES / UNSUPPORTED / XFAIL keywords of a test file.
pub fn parse_test_script(text: &str) -> Result<TestScript, String> {
    let mut script = TestScript::default();
    let mut continuing = false;
    for (idx, line) in text.lines().enumerate() {
        if let Some(rest) = find_keyword(line, "RUN:") {
            let cmd = rest.trim_end();
            if continuing {
                let last = &mut script.run_lines.last_mut().expect("continuation").1;
                last.pop(); // the backslash
                last.push_str(cmd);
            } else {
                script.run_lines.push((idx + 1, cmd.to_string()));
            }
            continuing = script
                .run_lines
                .last()
                .is_some_and(|(_, c)| c.ends_with('\\'));
            continue;
        }
        if continuing {
            return Err(format!(
                "line {}: RUN line continued with '\\' but the next line is not a RUN line",
                idx
            ));
        }
        for (kw, list) in [
            ("REQUIRES:", &mut script.requires),
            ("UNSUPPORTED:", &mut script.unsupported),
            ("XFAIL:", &mut script.xfail),
        ] {
            if let Some(rest) = find_keyword(line, kw) {
                list.extend(
                    rest.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty()),
                );
            }
        }
    }
    if continuing {
        return Err("Test has unterminated RUN lines (with '\\')".to_string());
    }
    for (_, c) in &mut script.run_lines {
        *c = c.trim().to_string();
    }
    Ok(script)
}

/// Evaluate a lit boolean feature expression (`a && !(b || c)`, `*`).
pub fn eval_feature_expr(expr: &str, features: &BTreeSet<String>) -> Result<bool, String> {
    let expr = expr.trim();
    if expr == "*" {
        return Ok(true);
    }
    let mut tokens = Vec::new();
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if expr[i..].starts_with("&&") || expr[i..].starts_with("||") {
            tokens.push(expr[i..i + 2].to_string());
            i += 2;
        } else if matches!(c, b'!' | b'(' | b')') {
            tokens.push((c as char).to_string());
            i += 1;
        } else {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || matches!(b[i], b'-' | b'+' | b'=' | b'.' | b'_' | b'*'))
            {
                i += 1;
            }
            if start == i {
                return Err(format!(
                    "unexpected character in feature expression '{expr}'"
                ));
            }
            tokens.push(expr[start..i].to_string());
        }
    }
    struct P<'a> {
        t: &'a [String],
        i: usize,
        f: &'a BTreeSet<String>,
    }
    impl P<'_> {
        fn peek(&self) -> Option<&str> {
            self.t.get(self.i).map(String::as_str)
        }
        fn or(&mut self) -> Result<bool, String> {
            let mut v = self.and()?;
            while self.peek() == Some("||") {
                self.i += 1;
                v |= self.and()?;
            }
            Ok(v)
        }
        fn and(&mut self) -> Result<bool, String> {
            let mut v = self.not()?;
            while self.peek() == Some("&&") {
                self.i += 1;
                v &= self.not()?;
            }
            Ok(v)
        }
        fn not(&mut self) -> Result<bool, String> {
            if self.peek() == Some("!") {
                self.i += 1;
                return Ok(!self.not()?);
            }
            self.atom()
        }
        fn atom(&mut self) -> Result<bool, String> {
            let tok = self
                .peek()
                .ok_or("unexpected end of feature expression")?
                .to_string();
            self.i += 1;
            match tok.as_str() {
                "(" => {
                    let v = self.or()?;
                    if self.peek() != Some(")") {
                        return Err("missing ')' in feature expression".to_string());
                    }
                    self.i += 1;
                    Ok(v)
                }
                "true" | "*" => Ok(true),
                "false" => Ok(false),
                ")" | "&&" | "||" => Err(format!("unexpected '{tok}' in feature expression")),
                name => Ok(self.f.contains(name)),
            }
        }
    }
    let mut p = P {
        t: &tokens,
        i: 0,
        f: features,
    };
    let v = p.or()?;
    if p.i != tokens.len() {
        return Err(format!("trailing tokens in feature expression '{expr}'"));
    }
    Ok(v)
}

// ---------------------------------------------------------------------------
// Environment (tool directory, temporary files)
// ---------------------------------------------------------------------------

static COUNTER: AtomicUsize = AtomicUsize::new(0);

struct RunEnv {
    bin_dir: PathBuf,
    temp_root: PathBuf,
    path_var: OsString,
    notes: Vec<String>,
    shell: (String, bool),
}

impl Drop for RunEnv {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.bin_dir);
        let _ = std::fs::remove_dir(&self.temp_root);
    }
}

const NOT_SCRIPT: &str = r#"#!/bin/sh
# lit's `not` (generated by tileir-filetest): invert the exit status.
crash=0
if [ "$1" = "--crash" ]; then crash=1; shift; fi
"$@"
st=$?
crashed=0
if [ $st -gt 128 ] || [ $st -eq 101 ]; then crashed=1; fi
if [ $crash -eq 1 ]; then
  if [ $crashed -eq 1 ]; then exit 0; else exit 1; fi
fi
if [ $crashed -eq 1 ]; then echo "not: error: '$1' crashed (status $st)" >&2; exit 1; fi
if [ $st -eq 0 ]; then exit 1; fi
exit 0
"#;

fn find_shell() -> (String, bool) {
    for p in ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"] {
        if Path::new(p).exists() {
            return (p.to_string(), true);
        }
    }
    ("/bin/sh".to_string(), false)
}

fn link_tool(bin: &Path, name: &str, target: &Path) -> std::io::Result<()> {
    let link = bin.join(name);
    let _ = std::fs::remove_file(&link);
    let target = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&target, &link)
    }
    #[cfg(not(unix))]
    {
        std::fs::copy(&target, &link).map(|_| ())
    }
}

fn search_dirs(config: &RunnerConfig) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for p in config.tools.values() {
        if let Some(d) = p.parent() {
            dirs.push(d.to_path_buf());
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(d) = exe.parent() {
            dirs.push(d.to_path_buf());
            if d.file_name().is_some_and(|n| n == "deps") {
                if let Some(p) = d.parent() {
                    dirs.push(p.to_path_buf());
                }
            }
        }
    }
    dirs
}

fn setup_env(config: &RunnerConfig) -> Result<RunEnv, String> {
    let temp_root = config.temp_root.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("tileir-filetest-{}", std::process::id()))
    });
    let bin_dir = temp_root.join(format!("bin-{}", COUNTER.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&bin_dir);
    std::fs::create_dir_all(&bin_dir)
        .map_err(|e| format!("cannot create {}: {e}", bin_dir.display()))?;

    let mut tools = config.tools.clone();
    for (a, b) in [
        ("tileir-opt", "cuda-tile-opt"),
        ("tileir-translate", "cuda-tile-translate"),
        ("FileCheck", "tileir-filecheck"),
        ("not", "tileir-not"),
    ] {
        match (tools.get(a).cloned(), tools.get(b).cloned()) {
            (Some(p), None) => {
                tools.insert(b.to_string(), p);
            }
            (None, Some(p)) => {
                tools.insert(a.to_string(), p);
            }
            _ => {}
        }
    }
    let mut notes = Vec::new();
    let dirs = search_dirs(config);
    let find = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
    if !tools.contains_key("FileCheck") {
        match find("tileir-filecheck") {
            Some(p) => {
                tools.insert("FileCheck".to_string(), p.clone());
                tools.insert("tileir-filecheck".to_string(), p);
            }
            None => notes.push(
                "# note: no FileCheck configured and no tileir-filecheck binary found \
                 (build it with `cargo build -p tileir-filetest`)"
                    .to_string(),
            ),
        }
    }
    if !tools.contains_key("not") {
        if let Some(p) = find("tileir-not") {
            tools.insert("not".to_string(), p.clone());
            tools.insert("tileir-not".to_string(), p);
        } else {
            let script = bin_dir.join("not");
            std::fs::write(&script, NOT_SCRIPT)
                .map_err(|e| format!("cannot write {}: {e}", script.display()))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755));
            }
            let _ = link_tool(&bin_dir, "tileir-not", &script);
        }
    }
    for (name, path) in &tools {
        link_tool(&bin_dir, name, path)
            .map_err(|e| format!("cannot link tool {name} -> {}: {e}", path.display()))?;
    }
    let mut path_var = OsString::from(bin_dir.as_os_str());
    if let Some(old) = std::env::var_os("PATH") {
        path_var.push(":");
        path_var.push(old);
    }
    Ok(RunEnv {
        bin_dir,
        temp_root,
        path_var,
        notes,
        shell: find_shell(),
    })
}

// ---------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------

struct ExecResult {
    code: Option<i32>,
    output: String,
    timed_out: bool,
}

impl ExecResult {
    fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }
}

fn exec_shell(
    env: &RunEnv,
    config: &RunnerConfig,
    cmd: &str,
    cwd: &Path,
    capture_stderr: bool,
) -> ExecResult {
    let (shell, is_bash) = &env.shell;
    let script = if *is_bash {
        format!("set -o pipefail\n{cmd}")
    } else {
        format!("(set -o pipefail) 2>/dev/null && set -o pipefail\n{cmd}")
    };
    let out_path = env.temp_root.join(format!(
        ".run-{}.out",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let file = match std::fs::File::create(&out_path) {
        Ok(f) => f,
        Err(e) => {
            return ExecResult {
                code: None,
                output: format!("cannot create {}: {e}", out_path.display()),
                timed_out: false,
            }
        }
    };
    let stderr = if capture_stderr {
        file.try_clone()
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null())
    } else {
        Stdio::null()
    };
    let mut command = Command::new(shell);
    command
        .arg("-c")
        .arg(&script)
        .current_dir(cwd)
        .env("PATH", &env.path_var)
        .envs(config.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(stderr);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(&out_path);
            return ExecResult {
                code: None,
                output: format!("cannot run {shell}: {e}"),
                timed_out: false,
            };
        }
    };
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let timed_out = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = config.timeout.map(|limit| {
        let timed_out = timed_out.clone();
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(limit) {
                timed_out.store(true, Ordering::SeqCst);
                let _ = Command::new("kill")
                    .arg("-KILL")
                    .arg("--")
                    .arg(format!("-{pid}"))
                    .status();
            }
        })
    });
    let status = child.wait();
    let _ = done_tx.send(());
    if let Some(w) = watchdog {
        let _ = w.join();
    }
    let output = std::fs::read(&out_path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    let code = match status {
        Ok(s) => s.code().or(Some(-1)),
        Err(_) => None,
    };
    ExecResult {
        code,
        output,
        timed_out: timed_out.load(Ordering::SeqCst),
    }
}

struct TestCtx {
    path: PathBuf,
    work: PathBuf,
    subs: Vec<(String, String)>,
}

impl TestCtx {
    fn new(path: &Path, env: &RunEnv, config: &RunnerConfig) -> TestCtx {
        use std::hash::{Hash, Hasher};
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let mut h = std::collections::hash_map::DefaultHasher::new();
        path.hash(&mut h);
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let work = env
            .temp_root
            .join(format!("{file_name}-{:016x}", h.finish()));
        let dir = path
            .parent()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut user: Vec<(String, String)> = config.substitutions.clone();
        user.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        let mut subs = user;
        let tmp = work.join(format!("{file_name}.tmp"));
        subs.extend([
            ("%{pathsep}".to_string(), ":".to_string()),
            ("%%".to_string(), "%".to_string()),
            ("%s".to_string(), path.to_string_lossy().into_owned()),
            ("%S".to_string(), dir.clone()),
            ("%p".to_string(), dir),
            ("%t".to_string(), tmp.to_string_lossy().into_owned()),
            ("%T".to_string(), work.to_string_lossy().into_owned()),
        ]);
        TestCtx { path, work, subs }
    }

    fn substitute(&self, cmd: &str, line: usize) -> String {
        let mut out = String::with_capacity(cmd.len() + 64);
        let mut i = 0;
        while i < cmd.len() {
            let rest = &cmd[i..];
            if rest.starts_with('%') {
                if let Some((k, v)) = self.subs.iter().find(|(k, _)| rest.starts_with(k.as_str())) {
                    out.push_str(v);
                    i += k.len();
                    continue;
                }
                if let Some(inner) = rest.strip_prefix("%(line").and_then(|r| r.split_once(')')) {
                    let expr: String = inner.0.chars().filter(|c| !c.is_whitespace()).collect();
                    let value = if expr.is_empty() {
                        Some(line as i64)
                    } else if let Some(n) = expr.strip_prefix('+') {
                        n.parse::<i64>().ok().map(|n| line as i64 + n)
                    } else if let Some(n) = expr.strip_prefix('-') {
                        n.parse::<i64>().ok().map(|n| line as i64 - n)
                    } else {
                        None
                    };
                    if let Some(v) = value {
                        out.push_str(&v.to_string());
                        i += "%(line".len() + inner.0.len() + 1;
                        continue;
                    }
                }
            }
            let c = rest.chars().next().expect("non-empty");
            out.push(c);
            i += c.len_utf8();
        }
        out
    }
}

/// Run all RUN lines; returns (success, log).
fn run_script(
    env: &RunEnv,
    config: &RunnerConfig,
    ctx: &TestCtx,
    script: &TestScript,
) -> (bool, String) {
    let _ = std::fs::remove_dir_all(&ctx.work);
    if let Err(e) = std::fs::create_dir_all(&ctx.work) {
        return (
            false,
            format!("cannot create {}: {e}\n", ctx.work.display()),
        );
    }
    let mut log = String::new();
    for (line, raw) in &script.run_lines {
        let cmd = ctx.substitute(raw, *line);
        let _ = writeln!(log, "# RUN: at line {line}\n{cmd}");
        let r = exec_shell(env, config, &cmd, &ctx.work, true);
        log.push_str(&r.output);
        if !r.output.is_empty() && !r.output.ends_with('\n') {
            log.push('\n');
        }
        if !r.success() {
            if r.timed_out {
                let _ = writeln!(
                    log,
                    "# error: command timed out after {:?}",
                    config.timeout.unwrap_or_default()
                );
            } else {
                match r.code {
                    Some(c) => {
                        let _ = writeln!(log, "# error: command failed with exit status: {c}");
                    }
                    None => {
                        let _ = writeln!(log, "# error: command could not be run");
                    }
                }
            }
            for n in &env.notes {
                let _ = writeln!(log, "{n}");
            }
            return (false, log);
        }
    }
    (true, log)
}

fn unsupported_reason(
    script: &TestScript,
    features: &BTreeSet<String>,
) -> Result<Option<String>, String> {
    let mut missing = Vec::new();
    for e in &script.requires {
        if !eval_feature_expr(e, features)? {
            missing.push(e.clone());
        }
    }
    if !missing.is_empty() {
        return Ok(Some(format!(
            "Test requires the following unavailable features: {}",
            missing.join(", ")
        )));
    }
    let mut present = Vec::new();
    for e in &script.unsupported {
        if eval_feature_expr(e, features)? {
            present.push(e.clone());
        }
    }
    if !present.is_empty() {
        return Ok(Some(format!(
            "Test does not support the following features: {}",
            present.join(", ")
        )));
    }
    Ok(None)
}

/// One bless round: rewrite the file from the tools' actual output.
/// Returns a description of the changes, or why nothing could be done.
fn bless_once(
    env: &RunEnv,
    config: &RunnerConfig,
    ctx: &TestCtx,
    script: &TestScript,
) -> Result<String, String> {
    let original =
        std::fs::read_to_string(&ctx.path).map_err(|e| format!("cannot read test: {e}"))?;
    let mut text = original.clone();
    let mut notes = String::new();
    let file_name = ctx
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();

    // -verify-diagnostics annotations (line numbers of the original file).
    let mut edits = Vec::new();
    for (line, raw) in &script.run_lines {
        if bless::parse_filecheck_run(raw).is_some() {
            continue;
        }
        let words = bless::shell_words(raw);
        if !words
            .iter()
            .any(|w| w == "-verify-diagnostics" || w == "--verify-diagnostics")
        {
            continue;
        }
        let last = bless::split_pipeline(raw).pop().unwrap_or_default();
        if bless::shell_words(&last)
            .first()
            .is_some_and(|w| w == "FileCheck" || w == "tileir-filecheck")
        {
            continue;
        }
        let r = exec_shell(env, config, &ctx.substitute(raw, *line), &ctx.work, true);
        let e = bless::parse_verify_failures(&r.output, &file_name);
        if !e.is_empty() {
            let _ = writeln!(
                notes,
                "# bless: {} annotation edit(s) from RUN line {line}",
                e.len()
            );
        }
        edits.extend(e);
    }
    if !edits.is_empty() {
        edits.sort_by_key(|e| match e {
            bless::VerifyEdit::Insert { line, .. } | bless::VerifyEdit::Remove { line } => *line,
        });
        edits.dedup();
        text = bless::apply_verify_edits(&text, &edits);
    }

    // FileCheck directives, one prefix at a time (first RUN line per prefix).
    let mut done: BTreeSet<String> = BTreeSet::new();
    for (line, raw) in &script.run_lines {
        let Some(run) = bless::parse_filecheck_run(raw) else {
            continue;
        };
        if !done.insert(run.prefix.clone()) {
            continue;
        }
        let r = exec_shell(
            env,
            config,
            &ctx.substitute(&run.producer, *line),
            &ctx.work,
            false,
        );
        if !r.success() {
            let _ = writeln!(
                notes,
                "# bless: producer of RUN line {line} failed; {} lines not regenerated",
                run.prefix
            );
            continue;
        }
        text = bless::rewrite_checks(&text, &run.prefix, &r.output, run.split)?;
        let _ = writeln!(
            notes,
            "# bless: regenerated {} lines from RUN line {line}",
            run.prefix
        );
    }
    if text == original {
        return Err(format!("{notes}# bless: nothing to change"));
    }
    std::fs::write(&ctx.path, &text)
        .map_err(|e| format!("cannot write {}: {e}", ctx.path.display()))?;
    Ok(notes)
}

fn run_one(path: &Path, name: String, env: &RunEnv, config: &RunnerConfig) -> TestOutcome {
    let start = Instant::now();
    let outcome = |status: TestStatus, log: String| TestOutcome {
        path: path.to_path_buf(),
        name: name.clone(),
        status,
        log,
        elapsed: start.elapsed(),
    };
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return outcome(
                TestStatus::Unresolved(format!("cannot read: {e}")),
                String::new(),
            )
        }
    };
    let script = match parse_test_script(&text) {
        Ok(s) => s,
        Err(e) => return outcome(TestStatus::Unresolved(e), String::new()),
    };
    if script.run_lines.is_empty() {
        return outcome(
            TestStatus::Unresolved("Test has no 'RUN:' line".to_string()),
            String::new(),
        );
    }
    match unsupported_reason(&script, &config.features) {
        Ok(Some(reason)) => return outcome(TestStatus::Unsupported(reason), String::new()),
        Ok(None) => {}
        Err(e) => return outcome(TestStatus::Unresolved(e), String::new()),
    }
    let xfail = match script
        .xfail
        .iter()
        .map(|e| eval_feature_expr(e, &config.features))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(v) => v.into_iter().any(|b| b),
        Err(e) => return outcome(TestStatus::Unresolved(e), String::new()),
    };

    let ctx = TestCtx::new(path, env, config);
    let (ok, mut log) = run_script(env, config, &ctx, &script);
    let cleanup = |passed: bool| {
        if passed && !config.keep_temps {
            let _ = std::fs::remove_dir_all(&ctx.work);
        }
    };
    if xfail {
        cleanup(true);
        return if ok {
            outcome(TestStatus::UnexpectedPass, log)
        } else {
            outcome(TestStatus::ExpectedFail, String::new())
        };
    }
    if ok {
        cleanup(true);
        return outcome(TestStatus::Pass, String::new());
    }
    if config.bless_enabled() {
        let original = std::fs::read(&ctx.path).ok();
        let mut bless_log = String::new();
        let mut changed = false;
        let mut last_log = String::new();
        for round in 1..=3 {
            // Re-read the script: RUN lines are kept by bless, but be safe.
            let script = std::fs::read_to_string(&ctx.path)
                .ok()
                .and_then(|t| parse_test_script(&t).ok())
                .unwrap_or_else(|| script.clone());
            match bless_once(env, config, &ctx, &script) {
                Ok(notes) => {
                    changed = true;
                    bless_log.push_str(&notes);
                }
                Err(e) => {
                    let _ = writeln!(bless_log, "{e}");
                    break;
                }
            }
            let (ok, new_log) = run_script(env, config, &ctx, &script);
            if ok {
                cleanup(true);
                let _ = writeln!(bless_log, "# bless: test passes after {round} round(s)");
                return outcome(TestStatus::Blessed, bless_log);
            }
            last_log = new_log;
        }
        if changed {
            if let Some(orig) = &original {
                let _ = std::fs::write(&ctx.path, orig);
            }
            let _ = writeln!(
                bless_log,
                "# bless: the blessed file still fails, original restored; last run of the blessed file:"
            );
            bless_log.push_str(&last_log);
        }
        log.push_str(&bless_log);
    }
    let _ = writeln!(log, "# temporary files kept in {}", ctx.work.display());
    outcome(TestStatus::Fail, log)
}

/// Run one test file.
pub fn run_file(path: impl AsRef<Path>, config: &RunnerConfig) -> TestOutcome {
    let path = path.as_ref();
    let name = path.display().to_string();
    match setup_env(config) {
        Ok(env) => run_one(path, name, &env, config),
        Err(e) => TestOutcome {
            path: path.to_path_buf(),
            name,
            status: TestStatus::Unresolved(e),
            log: String::new(),
            elapsed: Duration::ZERO,
        },
    }
}

/// Entry point for a `harness = false` test target that runs a directory of
/// filetests (see the crate documentation for the `Cargo.toml` lines).
///
/// 1. acts as `FileCheck` / `not` when invoked under those names
///    ([`tools::multicall_main`](crate::tools::multicall_main));
/// 2. builds the configuration with `make_config` and adds
///    [`RunnerConfig::with_current_exe_as_builtin_tools`];
/// 3. uses the first non-option argument as a path filter
///    (`cargo test --test filetests -- arith_invalid`);
/// 4. runs [`run_dir`], prints [`Summary::report`] to stderr and exits with
///    0 (success) or 1.
pub fn test_main(root: impl AsRef<Path>, make_config: impl FnOnce() -> RunnerConfig) -> ! {
    if let Some(code) = crate::tools::multicall_main() {
        std::process::exit(code);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        std::process::exit(0);
    }
    let mut config = make_config().with_current_exe_as_builtin_tools();
    let mut filter = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if matches!(
            a.as_str(),
            "--test-threads" | "--skip" | "--format" | "--color" | "-Z" | "--logfile"
        ) {
            i += 1;
        } else if !a.starts_with('-') && filter.is_none() {
            filter = Some(a.clone());
        }
    }
    if filter.is_some() {
        config.filter = filter;
    }
    let summary = run_dir(root, &config);
    eprint!("{}", summary.report());
    std::process::exit(if summary.is_success() { 0 } else { 1 })
}

/// Collect the test files under `root` (sorted; see the module docs).
pub fn collect_tests(root: &Path, config: &RunnerConfig) -> Vec<PathBuf> {
    fn walk(dir: &Path, config: &RunnerConfig, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in rd.flatten() {
            let p = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                if name != "Inputs" {
                    walk(&p, config, out);
                }
            } else if p
                .extension()
                .is_some_and(|e| config.extensions.iter().any(|x| e == x.as_str()))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    if root.is_file() {
        out.push(root.to_path_buf());
    } else {
        walk(root, config, &mut out);
    }
    out.sort();
    out
}

/// Run every test under `root` (in parallel, report in sorted path order).
pub fn run_dir(root: impl AsRef<Path>, config: &RunnerConfig) -> Summary {
    let start = Instant::now();
    let root = root.as_ref();
    let mut files = collect_tests(root, config);
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    if let Some(f) = &config.filter {
        files.retain(|p| rel(p).contains(f.as_str()));
    }
    let env = match setup_env(config) {
        Ok(env) => env,
        Err(e) => {
            return Summary {
                outcomes: files
                    .iter()
                    .map(|p| TestOutcome {
                        path: p.clone(),
                        name: rel(p),
                        status: TestStatus::Unresolved(e.clone()),
                        log: String::new(),
                        elapsed: Duration::ZERO,
                    })
                    .collect(),
                elapsed: start.elapsed(),
            }
        }
    };
    let jobs = if config.jobs == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(4)
    } else {
        config.jobs
    }
    .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<TestOutcome>>> = Mutex::new(vec![None; files.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(p) = files.get(i) else { break };
                let o = run_one(p, rel(p), &env, config);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(o);
            });
        }
    });
    let outcomes = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect();
    Summary {
        outcomes,
        elapsed: start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_parsing() {
        let text = "// RUN: tool %s \\\n// RUN:   | FileCheck %s\n// RUN: other\n// REQUIRES: a, b && !c\n// UNSUPPORTED: x\n// XFAIL: *\n# CHECK-RUN: nope\n";
        let s = parse_test_script(text).unwrap();
        assert_eq!(
            s.run_lines,
            vec![
                (1, "tool %s    | FileCheck %s".to_string()),
                (3, "other".to_string())
            ]
        );
        assert_eq!(s.requires, vec!["a", "b && !c"]);
        assert_eq!(s.unsupported, vec!["x"]);
        assert_eq!(s.xfail, vec!["*"]);
        assert!(parse_test_script("// RUN: a \\\n").is_err());
        assert!(parse_test_script("// RUN: a \\\nfoo\n").is_err());
    }

    #[test]
    fn feature_expressions() {
        let f: BTreeSet<String> = ["linux", "gpu"].iter().map(|s| s.to_string()).collect();
        assert!(eval_feature_expr("linux", &f).unwrap());
        assert!(!eval_feature_expr("windows", &f).unwrap());
        assert!(eval_feature_expr("linux && !windows", &f).unwrap());
        assert!(eval_feature_expr("windows || (gpu && linux)", &f).unwrap());
        assert!(!eval_feature_expr("!gpu", &f).unwrap());
        assert!(eval_feature_expr("*", &f).unwrap());
        assert!(eval_feature_expr("(linux", &f).is_err());
        assert!(eval_feature_expr("linux gpu", &f).is_err());
    }

    #[test]
    fn substitutions() {
        let env = RunEnv {
            bin_dir: PathBuf::from("/nonexistent-bin"),
            temp_root: PathBuf::from("/tmp/root"),
            path_var: OsString::new(),
            notes: Vec::new(),
            shell: find_shell(),
        };
        let config = RunnerConfig::new()
            .substitution("%round_trip_test", "sh rt.sh")
            .substitution("%r", "R");
        let ctx = TestCtx::new(Path::new("/a/b/x.mlir"), &env, &config);
        let s = ctx.substitute(
            "t %s %S %p %t %T %% %round_trip_test %r %(line) %(line+2) %(line - 1) %{pathsep}",
            10,
        );
        let work = ctx.work.display().to_string();
        assert!(work.starts_with("/tmp/root/x.mlir-"));
        assert_eq!(
            s,
            format!("t /a/b/x.mlir /a/b /a/b {work}/x.mlir.tmp {work} % sh rt.sh R 10 12 9 :")
        );
        std::mem::forget(env); // do not remove anything
    }
}
