//! Files produced by NVIDIA's cuTile Python from our own kernels (tests/data, made by
//! `tests/nvidia_compat.py --make-reference`): our reader reads them, and what we read
//! re-encodes to an equivalent module. The ignored test writes our own files for the
//! `--check` step of that script (NVIDIA's disassembler and compiler).

mod common;

use common::dump;
use std::path::{Path, PathBuf};
use tileir_bytecode::{read, write, Version, SUPPORTED_VERSIONS};

fn data_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "tileirbc"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn reference_files_from_cutile_are_read() {
    let files = data_files();
    assert!(
        files.len() >= 4,
        "expected the reference files in tests/data"
    );
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let m = read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let text = tileir_ir::print_module(&m, tileir_ir::PrintOptions::default());
        assert!(text.starts_with("cuda_tile.module @kernels {"), "{text}");
        assert!(text.contains("entry @"), "{}: {text}", f.display());
        let version = Version {
            major: bytes[8],
            minor: bytes[9],
        };
        for v in SUPPORTED_VERSIONS.into_iter().filter(|&v| v >= version) {
            let again = write(&m, v).unwrap_or_else(|e| panic!("{} at {v}: {e}", f.display()));
            assert_eq!(
                dump(&read(&again).unwrap()),
                dump(&m),
                "{} re-encoded at {v}",
                f.display()
            );
        }
    }
}

#[test]
#[ignore = "writes files for tests/nvidia_compat.py --check; set TILEIR_BC_OUT"]
fn writes_files_for_nvidia_tools() {
    let Ok(out) = std::env::var("TILEIR_BC_OUT") else {
        eprintln!("TILEIR_BC_OUT is not set; nothing written");
        return;
    };
    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out).unwrap();
    let mut n = 0;
    for f in data_files() {
        let m = read(&std::fs::read(&f).unwrap()).unwrap();
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        for v in [Version::V13_1, Version::V13_3, Version::V13_4] {
            if let Ok(bytes) = write(&m, v) {
                std::fs::write(out.join(format!("ours-{stem}-as-{v}.tileirbc")), bytes).unwrap();
                n += 1;
            }
        }
    }
    for (name, m, versions) in [
        (
            "kernel_13_1",
            common::kernels::kernel_13_1(),
            vec![
                Version::V13_1,
                Version::V13_2,
                Version::V13_3,
                Version::V13_4,
            ],
        ),
        (
            "kernel_13_3",
            common::kernels::kernel_13_3(),
            vec![Version::V13_3, Version::V13_4],
        ),
    ] {
        for v in versions {
            std::fs::write(
                out.join(format!("ours-{name}-{v}.tileirbc")),
                write(&m, v).unwrap(),
            )
            .unwrap();
            n += 1;
        }
    }
    eprintln!("wrote {n} files to {}", out.display());
}
