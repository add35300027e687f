//! `tileir-translate`: conversions between cuda_tile text and NVIDIA's cuda_tile bytecode.
//!
//! - `-mlir-to-cudatilebc` (default): text → bytecode (`-bytecode-version=X.Y`, default 13.3);
//! - `-cudatilebc-to-mlir`: bytecode → text;
//! - `-test-cudatile-roundtrip`: text → bytecode → text, printing the result;
//! - `--list-versions`: the bytecode versions tileir reads and writes (the releases, then
//!   NVIDIA's test-only 250.0 and 250.1).

use crate::args::{self, Spec};
use crate::{emit, read_input, shift_lines, split_input, write_output, Io};
use tileir_ir::{print_module, Diagnostic, Location, Module, PrintOptions};

const FLAGS: &[&str] = &[
    "mlir-to-cudatilebc",
    "cudatilebc-to-mlir",
    "test-cudatile-roundtrip",
    "list-versions",
    "no-implicit-module",
    "split-input-file",
    "verify-diagnostics",
    "allow-unregistered-dialect",
    "mlir-print-op-generic",
    "mlir-print-debuginfo",
    "help",
];
const OPTIONS: &[&str] = &["o", "bytecode-version"];

const USAGE: &str = "USAGE: tileir-translate [options] <input file>

Translates between cuda_tile IR text and cuda_tile bytecode.

OPTIONS:
  -mlir-to-cudatilebc             Text to bytecode (the default)
  -cudatilebc-to-mlir             Bytecode to text
  -test-cudatile-roundtrip        Text to bytecode and back to text
  -bytecode-version=<X.Y>         Bytecode version to write (default 13.3)
  --list-versions                 Print the supported bytecode versions
  -no-implicit-module             The input is a bare cuda_tile.module
  -split-input-file               Translate each '// -----' chunk separately
  -verify-diagnostics             Check emitted diagnostics against expected-* annotations
  -allow-unregistered-dialect     Accept ops of unknown dialects (the writer still rejects them)
  -mlir-print-op-generic          Print the generic op form
  -mlir-print-debuginfo           Print locations
  -o <file>                       Output file (default: standard output)
";

/// Runs `tileir-translate` with `args`; returns the exit code.
pub fn translate_main(args: &[String], io: &mut Io<'_>) -> i32 {
    let spec = Spec { tool: "tileir-translate", flags: FLAGS, options: OPTIONS, ordered_flags: &[] };
    let flags = match args::parse(args, &spec) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(io.stderr, "{e}");
            return 1;
        }
    };
    if flags.has("help") {
        let _ = write!(io.stdout, "{USAGE}");
        return 0;
    }
    if flags.has("list-versions") {
        let _ = writeln!(io.stdout, "Supported bytecode versions:");
        // The releases, then NVIDIA's test-only versions (as its test builds list them).
        for v in tileir_bytecode::SUPPORTED_VERSIONS.into_iter().chain(tileir_bytecode::TESTING_VERSIONS) {
            let _ = writeln!(io.stdout, "  {v}");
        }
        return 0;
    }
    let directions = ["mlir-to-cudatilebc", "cudatilebc-to-mlir", "test-cudatile-roundtrip"];
    let chosen: Vec<&&str> = directions.iter().filter(|d| flags.has(d)).collect();
    if chosen.len() > 1 {
        let _ = writeln!(io.stderr, "tileir-translate: choose one of -{}", directions.join(", -"));
        return 1;
    }
    let direction = chosen.first().map(|d| **d).unwrap_or("mlir-to-cudatilebc");
    let version = match flags.value("bytecode-version") {
        None => tileir_bytecode::DEFAULT_VERSION,
        Some(text) => match tileir_bytecode::parse_version(text) {
            Ok(v) => v,
            Err(e) => {
                let _ = writeln!(io.stderr, "tileir-translate: {}", e.message);
                return 1;
            }
        },
    };
    let input = match read_input(&flags.input, io) {
        Ok(bytes) => bytes,
        Err(e) => {
            let _ = writeln!(io.stderr, "tileir-translate: {e}");
            return 1;
        }
    };
    let file_name = if flags.input == "-" { "<stdin>".to_string() } else { flags.input.clone() };
    let print_options =
        PrintOptions { generic: flags.has("mlir-print-op-generic"), debug_info: flags.has("mlir-print-debuginfo") };

    if direction == "cudatilebc-to-mlir" {
        return match tileir_bytecode::read(&input) {
            Ok(module) => {
                // As mlir-translate does for every translation to MLIR, the decoded
                // module is verified: well-formed bytes can still encode invalid IR.
                let mlir_compatible = tileir_verify::VerifyOptions { stop_at_first_failure: true, ..Default::default() };
                match tileir_verify::verify_with(&module, &mlir_compatible) {
                    Ok(warnings) => {
                        emit(&warnings, io);
                    }
                    Err(d) => {
                        emit(&d.0, io);
                        return 1;
                    }
                }
                finish(write_output(flags.value("o"), print_module(&module, print_options).as_bytes(), io), io)
            }
            Err(e) => {
                let _ = writeln!(io.stderr, "{file_name}: {e}");
                1
            }
        };
    }

    let Ok(text) = String::from_utf8(input) else {
        let _ = writeln!(io.stderr, "tileir-translate: input file '{file_name}' is not valid UTF-8 text");
        return 1;
    };
    let verify_diags = flags.has("verify-diagnostics");
    let mut failed = false;
    let mut output: Vec<u8> = Vec::new();
    for chunk in split_input(&text, flags.has("split-input-file")) {
        let mut diags = Vec::new();
        let produced = text_to_output(&chunk.text, &file_name, &flags, direction, version, print_options, &mut diags);
        if verify_diags {
            let mismatches = crate::opt::match_annotations(&chunk.text, &file_name, chunk.first_line, &diags);
            for m in &mismatches {
                let _ = writeln!(io.stderr, "{m}");
            }
            failed |= !mismatches.is_empty();
        } else {
            let shifted: Vec<Diagnostic> = diags.into_iter().map(|d| shift_lines(d, &file_name, chunk.first_line)).collect();
            failed |= emit(&shifted, io);
        }
        if let Some(bytes) = produced {
            output.extend_from_slice(&bytes);
        }
    }
    if !output.is_empty() {
        if let Err(e) = write_output(flags.value("o"), &output, io) {
            let _ = writeln!(io.stderr, "tileir-translate: {e}");
            return 1;
        }
    }
    i32::from(failed)
}

fn finish(result: Result<(), String>, io: &mut Io<'_>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(io.stderr, "tileir-translate: {e}");
            1
        }
    }
}

/// Parses and verifies one chunk of text, then writes bytecode (or round-trips it back to
/// text). Diagnostics go to `diags`; returns the output bytes on success.
fn text_to_output(
    text: &str,
    file_name: &str,
    flags: &args::Flags,
    direction: &str,
    version: tileir_bytecode::Version,
    print_options: PrintOptions,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<u8>> {
    let parse_options =
        tileir_syntax::ParseOptions { file_name: file_name.to_string(), allow_unregistered: flags.has("allow-unregistered-dialect"), keep_names: false };
    let module: Module = match tileir_syntax::parse_module(text, &parse_options) {
        Ok(m) => m,
        Err(d) => {
            diags.extend(d);
            return None;
        }
    };
    let mlir_compatible = tileir_verify::VerifyOptions { stop_at_first_failure: true, ..Default::default() };
    match tileir_verify::verify_with(&module, &mlir_compatible) {
        Ok(warnings) => diags.extend(warnings),
        Err(d) => {
            diags.extend(d.0);
            return None;
        }
    }
    let bytes = match tileir_bytecode::write(&module, version) {
        Ok(b) => b,
        Err(e) => {
            // Writer errors name the op or attribute; most have no source position of
            // their own and are reported at an unknown location as NVIDIA's tool does.
            // A foreign op is reported at its module, with a remark at the op.
            let at = |op: Option<tileir_ir::OpId>| {
                op.map_or(Location::Unknown, |o| module.op_location(o))
            };
            diags.push(Diagnostic::error(at(e.at_op), e.message));
            if e.remark_op.is_some() {
                diags.push(Diagnostic {
                    severity: tileir_ir::Severity::Remark,
                    message: "invalid op".into(),
                    loc: at(e.remark_op),
                    notes: Vec::new(),
                });
            }
            return None;
        }
    };
    if direction == "test-cudatile-roundtrip" {
        return match tileir_bytecode::read(&bytes) {
            Ok(back) => Some(print_module(&back, print_options).into_bytes()),
            Err(e) => {
                diags.push(Diagnostic::error(Location::Unknown, format!("internal error: the bytecode tileir wrote does not read back: {e}")));
                None
            }
        };
    }
    Some(bytes)
}
