//! Prints a file canonically (custom, generic, and with debug info) — a debugging aid.
use tileir_ir::{print_module, PrintOptions};
use tileir_syntax::{parse_module, ParseOptions};

fn main() {
    let path = std::env::args().nth(1).expect("usage: roundtrip FILE");
    let text = std::fs::read_to_string(&path).expect("read");
    let opts = ParseOptions {
        file_name: path.clone(),
        allow_unregistered: true,
        keep_names: true,
    };
    match parse_module(&text, &opts) {
        Ok(m) => {
            let generic = std::env::args().any(|a| a == "--generic");
            let debug_info = std::env::args().any(|a| a == "--debug");
            std::io::Write::write_all(
                &mut std::io::stdout(),
                print_module(
                    &m,
                    PrintOptions {
                        generic,
                        debug_info,
                    },
                )
                .as_bytes(),
            )
            .ok();
        }
        Err(ds) => {
            for d in ds {
                eprintln!("{d}");
            }
            std::process::exit(1);
        }
    }
}
