//! tileir-tools: the command-line tools `tileir-opt` and `tileir-translate`, drop-in for
//! NVIDIA's `cuda-tile-opt` and `cuda-tile-translate` on the flags their conformance suite
//! uses. Each tool is a library function over explicit input and output streams, so the
//! Rust binaries, the Python console scripts and the tests share one implementation.
//!
//! Exit codes follow MLIR's tools: 0 on success, 1 when any error was reported (or, under
//! `-verify-diagnostics`, when the emitted diagnostics do not match the annotations).

#![forbid(unsafe_code)]

mod args;
mod opt;
mod translate;

pub use args::{ArgError, Flags};
pub use opt::opt_main;
pub use translate::translate_main;

use std::io::{Read, Write};
use tileir_ir::{Diagnostic, Location, Severity};

/// The streams a tool reads and writes.
pub struct Io<'a> {
    /// Standard input (read when the input file is `-`).
    pub stdin: &'a mut dyn Read,
    /// Standard output.
    pub stdout: &'a mut dyn Write,
    /// Standard error (diagnostics).
    pub stderr: &'a mut dyn Write,
}

/// Runs the tool named `tool` (`tileir-opt`, `tileir-translate`, or NVIDIA's names for
/// them) with `args` (without the program name). Returns the exit code.
pub fn tool_main(tool: &str, args: &[String], io: &mut Io<'_>) -> i32 {
    match tool {
        "tileir-opt" | "cuda-tile-opt" => opt_main(args, io),
        "tileir-translate" | "cuda-tile-translate" => translate_main(args, io),
        _ => {
            let _ = writeln!(io.stderr, "error: unknown tool '{tool}'; expected tileir-opt or tileir-translate");
            2
        }
    }
}

/// The chunks to process: MLIR's `-split-input-file` splitting (shared with the filetest
/// runner, so tools and tests agree on chunk boundaries and line numbers), or the whole text.
pub(crate) fn split_input(text: &str, split: bool) -> Vec<tileir_filetest::Chunk> {
    if split {
        tileir_filetest::split_input_file(text)
    } else {
        vec![tileir_filetest::Chunk { text: text.to_string(), first_line: 1 }]
    }
}

/// Reads the input file (`-` = stdin).
pub(crate) fn read_input(path: &str, io: &mut Io<'_>) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut buf = Vec::new();
        io.stdin.read_to_end(&mut buf).map_err(|e| format!("could not read standard input: {e}"))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| format!("could not open input file '{path}': {e}"))
    }
}

/// Writes `bytes` to `-o` (or stdout).
pub(crate) fn write_output(path: Option<&str>, bytes: &[u8], io: &mut Io<'_>) -> Result<(), String> {
    match path {
        None | Some("-") => io.stdout.write_all(bytes).map_err(|e| format!("could not write output: {e}")),
        Some(p) => std::fs::write(p, bytes).map_err(|e| format!("could not write output file '{p}': {e}")),
    }
}

/// Moves a diagnostic parsed from a chunk to the line numbering of the whole file.
pub(crate) fn shift_lines(mut d: Diagnostic, file: &str, first_line: u32) -> Diagnostic {
    if first_line > 1 {
        d.loc = shift_loc(d.loc, file, first_line);
        d.notes = d.notes.into_iter().map(|n| shift_lines(n, file, first_line)).collect();
    }
    d
}

fn shift_loc(loc: Location, file: &str, first_line: u32) -> Location {
    match loc {
        Location::FileLineCol { file: f, line, col } if f == file => {
            Location::FileLineCol { file: f, line: line + first_line - 1, col }
        }
        other => other,
    }
}

/// Prints diagnostics MLIR-style, returning whether any was an error.
pub(crate) fn emit(diags: &[Diagnostic], io: &mut Io<'_>) -> bool {
    let mut any_error = false;
    for d in diags {
        any_error |= d.severity == Severity::Error;
        let _ = writeln!(io.stderr, "{d}");
    }
    any_error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_keeps_file_line_numbers() {
        let chunks = split_input("a\n// -----\nb\nc\n// -----\nd", true);
        let firsts: Vec<u32> = chunks.iter().map(|c| c.first_line).collect();
        // Each chunk after the first starts on its marker's line, as in MLIR.
        assert_eq!(firsts, [1, 2, 5]);
        assert!(chunks[1].text.contains("b\nc"));
        assert_eq!(split_input("a\n// -----\nb", false).len(), 1);
    }
}
