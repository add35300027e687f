//! `tileir-translate`: conversions between cuda_tile text and bytecode.

use crate::Io;


/// Runs `tileir-translate` with `args`; returns the exit code.
pub fn translate_main(_args: &[String], io: &mut Io<'_>) -> i32 {
    let _ = std::io::Write::write_fmt(io.stderr, format_args!, "tileir-translate: bytecode support is not built yet");
    1
}
