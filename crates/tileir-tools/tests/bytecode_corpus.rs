//! Issue #6's round-trip check: every valid program of the filetest corpus
//! (`tests/filetests/{ops,types,syntax}/*.mlir` without `_invalid`, each `// -----` chunk)
//! goes text → bytecode → text at every bytecode version able to encode it, and prints
//! exactly as the text did. A version that cannot encode a chunk must say why by naming
//! what it cannot encode (an op, attribute, type or location), never fail silently.

use std::path::Path;
use tileir_bytecode::{read, write, Version};
use tileir_ir::{print_module, PrintOptions};
use tileir_syntax::{parse_module, ParseOptions};

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests");
    let mut out = Vec::new();
    for dir in ["ops", "types", "syntax"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir)).expect("corpus dir").flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".mlir") || name.contains("invalid") || name.contains("warn") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, chunk) in text.split("\n// -----\n").enumerate() {
                out.push((format!("{dir}/{name}#{i}"), chunk.to_string()));
            }
        }
    }
    out
}

#[test]
fn the_valid_corpus_round_trips_through_bytecode_at_every_version() {
    let versions = [Version::V13_1, Version::V13_2, Version::V13_3];
    let (mut round_trips, mut refused) = (0, 0);
    for (name, text) in corpus() {
        let options = ParseOptions { file_name: name.clone(), ..Default::default() };
        let Ok(module) = parse_module(&text, &options) else { continue };
        if tileir_verify::verify(&module).is_err() {
            continue;
        }
        let expected = print_module(&module, PrintOptions::default());
        for v in versions {
            match write(&module, v) {
                Ok(bytes) => {
                    let back = read(&bytes).unwrap_or_else(|e| panic!("{name} at {v}: our own bytecode does not read back: {e}"));
                    assert_eq!(print_module(&back, PrintOptions::default()), expected, "{name} at {v}");
                    round_trips += 1;
                }
                Err(e) => {
                    assert!(
                        ["version", "location", "'cuda_tile.", "type '"].iter().any(|w| e.message.contains(w)),
                        "{name} at {v}: refusal does not say why: {e}"
                    );
                    refused += 1;
                }
            }
        }
    }
    // The corpus is large; a sudden drop means the corpus or the reader/writer broke.
    assert!(round_trips >= 20, "only {round_trips} round trips ({refused} refusals)");
    eprintln!("{round_trips} round trips, {refused} version refusals");
}
