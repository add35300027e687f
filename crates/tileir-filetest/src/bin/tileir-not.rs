//! `tileir-not`: lit's `not`. `tileir-not CMD ARGS...` succeeds iff `CMD`
//! fails without crashing; `tileir-not --crash CMD ARGS...` succeeds iff `CMD`
//! crashes (signal or Rust panic). See [`tileir_filetest::tools::not_main`].

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(tileir_filetest::tools::not_main(&args));
}
