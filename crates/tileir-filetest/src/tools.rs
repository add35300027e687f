//! Small command line tools used by RUN lines, and a multicall entry point.
//!
//! * [`not_main`]: lit's `not`: runs a command and inverts its success.
//! * [`multicall_main`]: lets any binary (typically a `harness = false` test
//!   target) act as `FileCheck` / `tileir-filecheck` / `not` / `tileir-not`
//!   when invoked under one of those names, so that a test harness can serve
//!   its own tools through symlinks (see
//!   [`RunnerConfig::with_current_exe_as_builtin_tools`](crate::runner::RunnerConfig::with_current_exe_as_builtin_tools)).

use std::path::Path;
use std::process::Command;

/// Exit code of a Rust program that panicked (treated as a crash by `not`).
pub const PANIC_EXIT_CODE: i32 = 101;

/// Whether an exit status denotes a crash: killed by a signal, or a Rust
/// panic (exit code 101).
pub fn is_crash(status: &std::process::ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if status.signal().is_some() {
            return true;
        }
    }
    status.code() == Some(PANIC_EXIT_CODE)
}

/// Entry point of `not` (arguments without the program name).
///
/// `not CMD ARGS...` succeeds (0) iff `CMD` ran and failed *without crashing*;
/// `not --crash CMD ARGS...` succeeds iff `CMD` crashed. As in LLVM, a crash
/// is a death by signal; in addition a Rust panic (exit code 101) counts as a
/// crash, so `not tileir-opt ...` does not accept a panicking compiler.
pub fn not_main(args: &[String]) -> i32 {
    let mut args = args;
    let mut expect_crash = false;
    if args.first().map(String::as_str) == Some("--crash") {
        expect_crash = true;
        args = &args[1..];
    }
    let Some(program) = args.first() else {
        eprintln!("not: error: no command given");
        return 1;
    };
    match Command::new(program).args(&args[1..]).status() {
        Err(e) => {
            eprintln!("not: error: unable to run '{program}': {e}");
            1
        }
        Ok(status) => {
            let crashed = is_crash(&status);
            if crashed {
                if !expect_crash {
                    eprintln!("not: error: '{program}' crashed ({status})");
                }
                return if expect_crash { 0 } else { 1 };
            }
            if expect_crash {
                return 1;
            }
            i32::from(status.success())
        }
    }
}

/// Dispatch on the program name (`argv[0]`'s file name): `FileCheck` or
/// `tileir-filecheck` run [`filecheck::main_with_args`](crate::filecheck::main_with_args),
/// `not` or `tileir-not` run [`not_main`]. Returns `None` for any other name.
///
/// Call it first thing in the `main` of a `harness = false` test target:
/// `if let Some(code) = tileir_filetest::tools::multicall_main() { std::process::exit(code) }`.
pub fn multicall_main() -> Option<i32> {
    let mut args = std::env::args();
    let argv0 = args.next()?;
    let rest: Vec<String> = args.collect();
    multicall_dispatch(&argv0, &rest)
}

/// Like [`multicall_main`] with an explicit program name and arguments.
pub fn multicall_dispatch(argv0: &str, args: &[String]) -> Option<i32> {
    let name = Path::new(argv0).file_name()?.to_str()?;
    match name {
        "FileCheck" | "tileir-filecheck" => Some(crate::filecheck::main_with_args(args)),
        "not" | "tileir-not" => Some(not_main(args)),
        _ => None,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn not_inverts() {
        assert_eq!(not_main(&s(&["false"])), 0);
        assert_eq!(not_main(&s(&["true"])), 1);
        assert_eq!(not_main(&s(&["sh", "-c", "exit 3"])), 0);
        assert_eq!(not_main(&s(&[])), 1);
        assert_eq!(not_main(&s(&["/nonexistent/program"])), 1);
    }

    #[test]
    fn not_crash() {
        assert_eq!(not_main(&s(&["sh", "-c", "kill -SEGV $$"])), 1);
        assert_eq!(not_main(&s(&["--crash", "sh", "-c", "kill -SEGV $$"])), 0);
        assert_eq!(not_main(&s(&["sh", "-c", "exit 101"])), 1);
        assert_eq!(not_main(&s(&["--crash", "sh", "-c", "exit 101"])), 0);
        assert_eq!(not_main(&s(&["--crash", "false"])), 1);
    }

    #[test]
    fn dispatch_by_name() {
        assert_eq!(multicall_dispatch("/x/y/not", &s(&["false"])), Some(0));
        assert_eq!(multicall_dispatch("tileir-not", &s(&["true"])), Some(1));
        assert_eq!(multicall_dispatch("/x/other", &[]), None);
    }
}
