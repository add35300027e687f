//! Malformed and hostile input: every failure is an error with a byte offset, never a
//! panic, a hang or a huge allocation. Includes a deterministic fuzz over random bytes and
//! random mutations of valid files.

mod common;

use common::kernels as roundtrip;
use common::Rng;
use tileir_bytecode::{read, write, Version, SUPPORTED_VERSIONS};

fn valid_files() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let a = roundtrip::kernel_13_1();
    for v in SUPPORTED_VERSIONS {
        out.push(write(&a, v).unwrap());
    }
    let b = roundtrip::kernel_13_3();
    out.push(write(&b, Version::V13_3).unwrap());
    out.push(write(&b, Version::V13_4).unwrap());
    out
}

fn err(data: &[u8]) -> tileir_bytecode::BytecodeError {
    match read(data) {
        Ok(_) => panic!("expected an error"),
        Err(e) => {
            assert!(e.offset.is_some(), "reader errors carry an offset: {e}");
            assert!(
                e.offset.unwrap() <= data.len(),
                "offset within the input: {e}"
            );
            e
        }
    }
}

#[test]
fn header_errors() {
    assert!(err(b"").message.contains("invalid magic number"));
    assert!(err(b"\x7fTileIQ\x00\x0d\x01\x00\x00")
        .message
        .contains("invalid magic number"));
    let e = err(b"\x7fTileIR\x00\x12\x00\x00\x00\x00");
    assert_eq!(
        e.message,
        "unsupported Tile version 18.0.0, this reader supports versions [13.1 - 13.4]"
    );
    assert_eq!(e.to_string(), "byte 8: error: unsupported Tile version 18.0.0, this reader supports versions [13.1 - 13.4]");
    assert!(err(b"\x7fTileIR\x00\x0d\x01")
        .message
        .contains("version tag"));
    assert!(err(b"\x7fTileIR\x00\x0d\x01\x00\x00")
        .message
        .contains("expected a section id"));
    let e = err(b"\x7fTileIR\x00\x0d\x01\x00\x00\x7f\x00\x00");
    assert_eq!(
        (e.offset, e.message.as_str()),
        (Some(12), "unknown section ID: 127")
    );
    // Producer (7) does not exist before 13.3.
    assert!(err(b"\x7fTileIR\x00\x0d\x02\x00\x00\x07\x00\x00")
        .message
        .contains("unknown section ID: 7"));
    let e = err(b"\x7fTileIR\x00\x0d\x01\x00\x00\x81\x90\x4e\x04");
    assert!(
        e.message.contains("string section length 10000 exceeds"),
        "{e}"
    );
    assert!(err(b"\x7fTileIR\x00\x0d\x01\x00\x00\x00\x00")
        .message
        .contains("end section is not the last section"));
    assert!(err(b"\x7fTileIR\x00\x0d\x01\x00\x00\x00")
        .message
        .contains("missing string section"));
}

#[test]
fn section_structure_errors() {
    let good = write(&roundtrip::kernel_13_1(), Version::V13_1).unwrap();
    assert!(read(&good).is_ok());
    // Dropping the final end marker.
    assert!(err(&good[..good.len() - 1])
        .message
        .contains("expected a section id"));
    // An unaligned string section.
    let mut bad = good.clone();
    let s = bad.iter().rposition(|&b| b == 0x81).unwrap();
    bad[s] = 0x01;
    let e = err(&bad);
    assert!(
        e.message.contains("must be aligned") || e.message.contains("section"),
        "{e}"
    );
}

#[test]
fn damaged_string_offsets_are_reported_where_a_string_is_misused() {
    // NVIDIA's reader slices strings leniently (an offset out of order gives an empty
    // string); the damage shows where the string is used: here an empty hint key.
    let good = write(&roundtrip::kernel_13_1(), Version::V13_1).unwrap();
    let s = good.iter().rposition(|&b| b == 0x81).unwrap();
    // id, one-byte length and alignment, padding to 4, count, padding to 4, offsets.
    let mut p = s + 3;
    while p % 4 != 0 {
        p += 1;
    }
    let count = usize::from(good[p]);
    let mut table = p + 1;
    while table % 4 != 0 {
        table += 1;
    }
    let data = table + 4 * count;
    let offset = |i: usize| {
        u32::from_le_bytes(good[table + 4 * i..table + 4 * i + 4].try_into().unwrap()) as usize
    };
    let key = (0..count)
        .find(|&i| {
            let end = if i + 1 < count { offset(i + 1) } else { good[data..].iter().position(|&b| b == 0).unwrap() };
            &good[data + offset(i)..data + end] == b"sm_90"
        })
        .expect("the hint key is a string");
    assert!(key > 0);
    let mut bad = good.clone();
    // The key's start moves past the end: its slice clamps to nothing.
    bad[table + 4 * key..table + 4 * key + 4].copy_from_slice(&0x7000_0000u32.to_le_bytes());
    let e = err(&bad);
    assert!(
        e.message.contains("invalid empty attribute name for DictionaryAttr element 0"),
        "{e}"
    );
}

#[test]
fn table_indices_are_checked() {
    // A function whose name index points past the string table.
    let m = roundtrip::kernel_13_1();
    let good = write(&m, Version::V13_1).unwrap();
    let f = good.iter().position(|&b| b == 0x82).unwrap();
    // Skip id, length, alignment and padding to the payload start (aligned to 8).
    let mut p = f + 3;
    while p % 8 != 0 {
        p += 1;
    }
    let mut bad = good.clone();
    assert_eq!(bad[p], 2, "two functions");
    bad[p + 1] = 0x7F; // name index of the first function
    let e = err(&bad);
    assert!(
        e.message
            .contains("function name string index 127 is out of range"),
        "{e}"
    );
    assert_eq!(e.offset, Some(p + 1));
    let mut bad = good.clone();
    bad[p] = 0x7F; // absurd function count
    assert!(err(&bad).message.contains("number of functions"));
}

#[test]
fn every_truncation_is_an_error() {
    let mut tried = 0;
    for file in valid_files() {
        for len in 0..file.len() {
            let _ = err(&file[..len]);
            tried += 1;
        }
    }
    eprintln!("truncations tried: {tried}");
}

fn no_panic(data: &[u8]) -> bool {
    match std::panic::catch_unwind(|| read(data)) {
        Ok(Ok(m)) => {
            // Whatever parses must also print and re-encode without panicking.
            let _ = tileir_ir::print_module(&m, tileir_ir::PrintOptions::default());
            let _ = write(&m, Version::V13_3);
            true
        }
        Ok(Err(e)) => e.offset.is_some_and(|o| o <= data.len()),
        Err(_) => false,
    }
}

#[test]
fn fuzz_random_bytes_and_mutations_never_panic() {
    let files = valid_files();
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut tried = 0u64;
    let mut parsed = 0u64;
    // Random garbage behind a valid header (so that section parsing is exercised).
    for _ in 0..20_000 {
        let n = rng.below(200);
        let mut data = vec![
            0x7F,
            b'T',
            b'i',
            b'l',
            b'e',
            b'I',
            b'R',
            0,
            13,
            1 + rng.below(4) as u8,
            0,
            0,
        ];
        data.extend((0..n).map(|_| rng.next() as u8));
        assert!(no_panic(&data), "input {data:02x?}");
        tried += 1;
    }
    // Mutations of valid files: flip bytes, insert, delete, splice.
    for i in 0..60_000 {
        let base = &files[i % files.len()];
        let mut data = base.clone();
        for _ in 0..1 + rng.below(4) {
            match rng.below(4) {
                0 | 1 => {
                    let at = rng.below(data.len());
                    data[at] = rng.next() as u8;
                }
                2 => {
                    let at = rng.below(data.len() + 1);
                    data.insert(at, rng.next() as u8);
                }
                _ => {
                    if !data.is_empty() {
                        let at = rng.below(data.len());
                        data.remove(at);
                    }
                }
            }
        }
        let ok = read(&data).is_ok();
        assert!(no_panic(&data), "mutation {i}: {data:02x?}");
        parsed += u64::from(ok);
        tried += 1;
    }
    eprintln!("fuzz inputs tried: {tried}, of which still readable: {parsed}");
}
