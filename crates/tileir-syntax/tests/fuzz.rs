//! Robustness: random bytes and random mutations of a valid program never panic or hang;
//! whatever parses also prints and re-parses.

use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use tileir_ir::{print_module, PrintOptions};
use tileir_syntax::{parse_module, ParseOptions};

const SEED: &str = include_str!("all_ops.mlir");
static TRIED: AtomicUsize = AtomicUsize::new(0);

fn run(text: &str) {
    TRIED.fetch_add(1, Ordering::Relaxed);
    let opts = ParseOptions {
        file_name: "f.mlir".into(),
        allow_unregistered: true,
        keep_names: false,
    };
    if let Ok(m) = parse_module(text, &opts) {
        // The verifier must report, never panic, on whatever the parser accepted.
        let _ = tileir_verify::verify(&m);
        for generic in [false, true] {
            let printed = print_module(
                &m,
                PrintOptions {
                    generic,
                    debug_info: true,
                },
            );
            // What the printer produced from parsed input must parse again.
            if let Err(e) = parse_module(&printed, &opts) {
                panic!("printed text does not re-parse: {}\n{printed}", e[0]);
            }
        }
    }
}

/// Applies byte-level edits (delete, duplicate, replace with a syntax character) to `SEED`.
fn mutate(edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = SEED.as_bytes().to_vec();
    const PIECES: &[u8] = b"%@#<>[](){}:,=-x0123456789\"!? \n";
    for &(pos, kind, ch) in edits {
        if bytes.is_empty() {
            break;
        }
        let p = pos % bytes.len();
        match kind % 4 {
            0 => {
                bytes.remove(p);
            }
            1 => bytes.insert(p, PIECES[ch as usize % PIECES.len()]),
            2 => bytes[p] = PIECES[ch as usize % PIECES.len()],
            _ => {
                let end = (p + ch as usize % 40).min(bytes.len());
                let chunk = bytes[p..end].to_vec();
                bytes.splice(p..p, chunk);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        run(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_syntax_soup_never_panics(s in "[%@#<>\\[\\](){}:,=x0-9a-z_\" .!?-]{0,300}") {
        run(&s);
    }

    #[test]
    fn mutated_programs_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)) {
        run(&mutate(&edits));
    }
}

/// A deterministic sweep (no proptest): seeded mutations of the valid program, 3000 by
/// default; `TILEIR_FUZZ_SWEEP=N` runs N for a longer campaign.
#[test]
fn seeded_mutation_sweep() {
    let count: u64 = std::env::var("TILEIR_FUZZ_SWEEP").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let before = TRIED.load(Ordering::Relaxed);
    for _ in 0..count {
        let n = 1 + (next() % 4) as usize;
        let edits: Vec<(usize, u8, u8)> = (0..n)
            .map(|_| (next() as usize, next() as u8, next() as u8))
            .collect();
        run(&mutate(&edits));
    }
    // Other tests run concurrently and share TRIED: it can only have grown by more.
    assert!(TRIED.load(Ordering::Relaxed) - before >= count as usize);
    eprintln!("seeded mutations parsed, verified and re-printed: {count}");
}
