//! `tileir-translate`: see the tileir-tools crate.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut stdin, mut stdout, mut stderr) = (std::io::stdin().lock(), std::io::stdout().lock(), std::io::stderr().lock());
    let mut io = tileir_tools::Io { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
    let code = tileir_tools::tool_main("tileir-translate", &args, &mut io);
    std::process::exit(code);
}
