//! Compiles a cuda_tile MLIR file and prints one stage (`llvm` by default):
//! `cargo run -p tileir-driver --example compile_mlir -- FILE [STAGE] [TARGET] [PIPELINE]`.

#![allow(clippy::print_stdout)]

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: compile_mlir FILE [STAGE] [TARGET] [PIPELINE]");
        std::process::exit(2);
    };
    let stage = args.get(2).cloned().unwrap_or_else(|| "llvm".into());
    let target = args.get(3).cloned().unwrap_or_else(|| "sm_90a".into());
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let options = tileir_syntax::ParseOptions { file_name: path.clone(), ..Default::default() };
    let module = match tileir_syntax::parse_module(&text, &options) {
        Ok(m) => m,
        Err(diags) => {
            for d in diags {
                eprintln!("{d}");
            }
            std::process::exit(1)
        }
    };
    let pipeline = args.get(4).cloned().unwrap_or_default();
    let opts = tileir_driver::CompileOptions { target, pipeline, ..Default::default() };
    match tileir_driver::compile(module, &opts) {
        Ok(out) => {
            for (name, text) in &out.stages {
                if *name == stage {
                    print!("{text}");
                }
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
