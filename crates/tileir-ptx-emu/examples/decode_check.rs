//! Parses and decodes every kernel of the .ptx files given, printing the first error of
//! each (a checklist of unsupported PTX).
//!
//!     cargo run -p tileir-ptx-emu --example decode_check -- FILE.ptx...

fn main() {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        match tileir_ptx_emu::Module::parse(&text) {
            Err(e) => eprintln!("{path}: {e}"),
            Ok(m) => {
                for k in m.kernel_names() {
                    match m.kernel(Some(&k)) {
                        Ok(p) => eprintln!("{path}: {k}: ok ({} instructions)", p.insts.len()),
                        Err(e) => eprintln!("{path}: {k}: {e}"),
                    }
                }
            }
        }
    }
}
