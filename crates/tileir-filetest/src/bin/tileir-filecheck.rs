//! `tileir-filecheck`: LLVM `FileCheck` command line on top of
//! [`tileir_filetest::filecheck`].
//!
//! `tileir-filecheck CHECKFILE [--check-prefix P]... [--input-file F]`; reads
//! standard input when no input file is given. Exit status 0 on match, 1 on
//! mismatch, 2 on usage or I/O errors.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(tileir_filetest::filecheck::main_with_args(&args));
}
