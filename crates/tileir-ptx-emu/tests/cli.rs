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
    assert!(!ok && stderr.contains("usage: ptx-emu") && stderr.contains("--shared-fill") && stderr.contains("--malloc-heap"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A kernel whose thread allocates 64 bytes of device heap, stores through it and frees it.
const HEAP: &str = ".version 8.6
.target sm_90a
.address_size 64
.extern .func  (.param .b64 func_retval0) malloc
(
	.param .b64 malloc_param_0
)
;
.extern .func free
(
	.param .b64 free_param_0
)
;
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<4>; .reg .b64 %rd<4>;
ld.param.u64 %rd1, [out];
{
.param .b64 param0;
.param .b64 retval0;
st.param.b64 [param0], 64;
call.uni (retval0), malloc, (param0);
ld.param.b64 %rd2, [retval0];
}
st.u32 [%rd2+60], 7;
ld.u32 %r1, [%rd2+60];
st.global.u32 [%rd1], %r1;
{
.param .b64 param0;
st.param.b64 [param0], %rd2;
call.uni free, (param0);
}
ret;
}
";

#[test]
fn reports_the_device_heap() {
    let dir = std::env::temp_dir().join(format!("ptx-emu-cli-heap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("heap.ptx");
    std::fs::write(&file, HEAP).unwrap();
    let f = file.to_str().unwrap();
    let (ok, stdout, stderr) = ptx_emu(&[f, "--grid", "1", "--block", "1", "u32s:out:0"]);
    assert!(ok && stdout.contains('7'), "{stdout} {stderr}");
    assert!(stderr.contains("device heap: 1 malloc(s) (0 returned NULL), 1 free(s), peak 64 byte(s), 0 allocation(s) never freed"), "{stderr}");
    // A 32-byte heap cannot hold 64 bytes: malloc returns NULL and the store through it faults.
    let (ok, _, stderr) = ptx_emu(&[f, "--grid", "1", "--block", "1", "--malloc-heap", "32", "u32s:out:0"]);
    assert!(!ok && stderr.contains("global access of 4 byte(s) at 0x3c"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}
