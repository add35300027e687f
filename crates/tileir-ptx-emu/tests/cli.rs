//! The `ptx-emu` command: runs a kernel of a .ptx file on buffers from the command line,
//! prints them, and reports errors (with the PTX line) and bad usage with a failing status.

use std::process::Command;

const SAXPY: &str = ".version 8.6
.target sm_90a
.address_size 64
.visible .entry saxpy(.param .f32 a, .param .u64 x, .param .u64 y)
{
.reg .b32 %r<4>; .reg .f32 %f<6>; .reg .b64 %rd<6>;
ld.param.f32 %f1, [a];
ld.param.u64 %rd1, [x];
ld.param.u64 %rd2, [y];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 4;
add.s64 %rd4, %rd1, %rd3;
add.s64 %rd5, %rd2, %rd3;
ld.global.f32 %f2, [%rd4];
ld.global.f32 %f3, [%rd5];
fma.rn.f32 %f4, %f1, %f2, %f3;
st.global.f32 [%rd5], %f4;
ret;
}
";

fn ptx_emu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptx-emu")).args(args).output().expect("ptx-emu runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn runs_a_ptx_file_and_prints_its_buffers() {
    let dir = std::env::temp_dir().join(format!("ptx-emu-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("saxpy.ptx");
    std::fs::write(&file, SAXPY).unwrap();
    let f = file.to_str().unwrap();
    let (ok, stdout, stderr) = ptx_emu(&[f, "--grid", "1", "--block", "4", "f32:2", "f32s:x:1,2,3,4", "f32s:y:10,20,30,40"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("12") && stdout.contains("24") && stdout.contains("36") && stdout.contains("48"), "{stdout}");
    // An out-of-bounds access (5 threads, 4 elements) is an error naming the PTX line.
    let (ok, _, stderr) = ptx_emu(&[f, "--grid", "1", "--block", "5", "f32:2", "f32s:x:1,2,3,4", "f32s:y:10,20,30,40"]);
    assert!(!ok && stderr.contains("PTX line 14"), "{stderr}");
    // Usage.
    let (ok, _, stderr) = ptx_emu(&["--help"]);
    assert!(!ok && stderr.contains("usage: ptx-emu") && stderr.contains("--shared-fill"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}
