//! Async results read before their wait (wgmma accumulators and A fragments, cp.async
//! destinations) and, in race-check mode, shared-memory races inside a warp and a CTA.

use tileir_ptx_emu::{run, Arg, Buffer, EmuError, ErrorKind, LaunchConfig, Module, Options};

fn launch(text: &str, block: u32, race: bool, bufs: &mut [Buffer], args: &[Arg]) -> Result<(), EmuError> {
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let options = Options { race_check: race, ..Options::default() };
    let cfg = LaunchConfig { grid: [1, 1, 1], block: [block, 1, 1], dyn_shared: 0, options, ..LaunchConfig::default() };
    run(&p, &cfg, args, bufs).map(|_| ())
}

/// Each thread copies 16 bytes into group 0 (sm[16 tid]) and 16 into group 1
/// (sm[512 + 16 tid]), waits, and sums the four words it reads back at `READ`.
const CP: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 16 .b8 sm[1024];
.visible .entry cp(.param .u64 src, .param .u64 dst)
{
.reg .b32 %r<20>; .reg .b64 %rd<10>;
ld.param.b64 %rd1, [src];
ld.param.b64 %rd2, [dst];
mov.u32 %r1, %tid.x;
shl.b32 %r2, %r1, 4;
mov.u32 %r3, sm;
add.s32 %r4, %r3, %r2;
cvt.u64.u32 %rd3, %r2;
add.s64 %rd4, %rd1, %rd3;
cp.async.cg.shared.global [%r4], [%rd4], 16;
cp.async.commit_group;
cp.async.cg.shared.global [%r4+512], [%rd4+512], 16;
cp.async.commit_group;
WAIT
READ
add.s32 %r9, %r5, %r6;
add.s32 %r9, %r9, %r7;
add.s32 %r9, %r9, %r8;
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.b32 [%rd6], %r9;
ret;
}
"#;

fn cp_kernel(wait: &str, read: &str) -> String {
    CP.replace("WAIT", wait).replace("READ", read)
}

fn cp_run(text: &str, race: bool) -> Result<Vec<u32>, EmuError> {
    let src: Vec<u8> = (0..256u32).flat_map(|i| i.to_le_bytes()).collect();
    let mut bufs = vec![Buffer::new("src", src), Buffer::new("dst", vec![0u8; 128])];
    launch(text, 32, race, &mut bufs, &[Arg::Buffer(0, 0), Arg::Buffer(1, 0)])?;
    Ok(bufs[1].data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

const READ_OWN_BOTH: &str = "ld.shared.v2.b32 {%r5, %r6}, [%r4];\nld.shared.v2.b32 {%r7, %r8}, [%r4+512];";

#[test]
fn cp_async_waited_correctly_passes() {
    for race in [false, true] {
        let out = cp_run(&cp_kernel("cp.async.wait_group 0;", READ_OWN_BOTH), race).unwrap();
        let want: Vec<u32> = (0..32u32).map(|t| 16 * t + 258).collect();
        assert_eq!(out, want);
        let out = cp_run(&cp_kernel("cp.async.wait_all;", READ_OWN_BOTH), race).unwrap();
        assert_eq!(out, want);
    }
}

#[test]
fn cp_async_destination_read_before_the_wait_that_covers_it() {
    // wait_group 1 completes group 0 only: reading group 1's destination is an error that
    // names the cp.async's line and the wait it needs.
    let e = cp_run(&cp_kernel("cp.async.wait_group 1;", READ_OWN_BOTH), false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory, "{e}");
    assert_eq!(e.line, 22, "{e}"); // the second ld.shared
    assert!(e.message.contains("the cp.async at PTX line 18 by CTA (0,0,0) thread (0,0,0)"), "{e}");
    assert!(e.message.contains("cp.async.wait_group 0 (or lower)"), "{e}");
    // Group 0 alone after wait_group 1 is fine.
    let ok = cp_kernel("cp.async.wait_group 1;", "ld.shared.v4.b32 {%r5, %r6, %r7, %r8}, [%r4];");
    cp_run(&ok, false).unwrap();
    // No wait at all: the first read (group 0) needs wait_group 1.
    let e = cp_run(&cp_kernel("", READ_OWN_BOTH), false).unwrap_err();
    assert!(e.message.contains("the cp.async at PTX line 16") && e.message.contains("cp.async.wait_group 1 (or lower)"), "{e}");
}

#[test]
fn cp_async_destination_written_before_commit() {
    let text = CP.replace("cp.async.commit_group;\nWAIT", "st.shared.b32 [%r4+512], %r1;\ncp.async.wait_all;").replace("READ", READ_OWN_BOTH);
    let e = cp_run(&text, false).unwrap_err();
    assert!(e.message.contains("PTX line 18") && e.message.contains("not committed yet"), "{e}");
}

/// A neighbour's destination after this thread's own wait but without a barrier: the
/// neighbour's copy may not be complete (race mode catches it); with bar.sync it passes.
#[test]
fn cp_async_destination_of_another_thread_needs_a_barrier() {
    let read_next = "add.s32 %r10, %r1, 1;\nand.b32 %r10, %r10, 31;\nshl.b32 %r10, %r10, 4;\nadd.s32 %r10, %r3, %r10;\nld.shared.v4.b32 {%r5, %r6, %r7, %r8}, [%r10];";
    let e = cp_run(&cp_kernel("cp.async.wait_group 0;", read_next), true).unwrap_err();
    assert!(e.message.contains("shared-memory race"), "{e}");
    let out = cp_run(&cp_kernel("cp.async.wait_group 0;\nbar.sync 0;", read_next), true).unwrap();
    let want: Vec<u32> = (0..32u32).map(|t| 16 * ((t + 1) % 32) + 6).collect();
    assert_eq!(out, want);
}

/// 64 threads (two warps) over s[64] words: `BODY` is the exchange under test; each thread
/// stores what it read (%r9) to out[tid].
const EX: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 4 .b8 s[256];
.visible .entry ex(.param .u64 out)
{
.reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<10>;
ld.param.b64 %rd1, [out];
mov.u32 %r1, %tid.x;
mov.u32 %r2, s;
shl.b32 %r3, %r1, 2;
add.s32 %r4, %r2, %r3;
xor.b32 %r5, %r1, 1;
shl.b32 %r5, %r5, 2;
add.s32 %r5, %r2, %r5;
BODY
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.b32 [%rd3], %r9;
ret;
}
"#;

fn ex_run(body: &str, race: bool) -> Result<Vec<u32>, EmuError> {
    let mut bufs = vec![Buffer::new("out", vec![0u8; 256])];
    launch(&EX.replace("BODY", body), 64, race, &mut bufs, &[Arg::Buffer(0, 0)])?;
    Ok(bufs[0].data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

fn neighbours() -> Vec<u32> {
    (0..64u32).map(|t| (t ^ 1) + 100).collect()
}

/// Lanes of one warp exchange through shared memory: without bar.warp.sync (or a CTA
/// barrier) the read of the neighbour's word races with its write.
#[test]
fn intra_warp_exchange_needs_a_sync() {
    let racy = "add.s32 %r6, %r1, 100;\nst.shared.b32 [%r4], %r6;\nld.shared.b32 %r9, [%r5];";
    // Off by default: the racy kernel runs (and, run in lockstep, even gets the values).
    assert_eq!(ex_run(racy, false).unwrap(), neighbours());
    let e = ex_run(racy, true).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory, "{e}");
    assert_eq!(e.line, 18, "{e}");
    assert!(
        e.message.contains("shared-memory race on byte 0x4: read at PTX line 18 by CTA (0,0,0) thread (0,0,0), of the write at PTX line 17 by CTA (0,0,0) thread (1,0,0)"),
        "{e}"
    );
    for sync in ["bar.warp.sync -1;", "bar.sync 0;", "barrier.sync 0;"] {
        let ok = racy.replace("\nld.shared", &format!("\n{sync}\nld.shared"));
        assert_eq!(ex_run(&ok, true).unwrap(), neighbours(), "{sync}");
    }
}

/// Across warps: after a barrier, each thread reads the word of thread t ^ 32 (other warp),
/// then overwrites its own with no second barrier. Warp 0 runs ahead and overwrites words
/// 0..31 before warp 1 reads them: reported with both threads and lines.
#[test]
fn intra_cta_exchange_without_a_barrier() {
    let body = "xor.b32 %r5, %r1, 32;\nshl.b32 %r5, %r5, 2;\nadd.s32 %r5, %r2, %r5;\nst.shared.b32 [%r4], %r1;\nbar.sync 0;\n\
                ld.shared.b32 %r9, [%r5];\nBAR\nadd.s32 %r6, %r1, 1000;\nst.shared.b32 [%r4], %r6;";
    let e = ex_run(&body.replace("BAR", ""), true).unwrap_err();
    assert_eq!(e.line, 21, "{e}");
    assert!(
        e.message.contains("shared-memory race on byte 0x0: read at PTX line 21 by CTA (0,0,0) thread (32,0,0), of the write at PTX line 24 by CTA (0,0,0) thread (0,0,0)"),
        "{e}"
    );
    let out = ex_run(&body.replace("BAR", "bar.sync 0;"), true).unwrap();
    assert_eq!(out, (0..64u32).map(|t| t ^ 32).collect::<Vec<_>>());
}

#[test]
fn two_threads_writing_the_same_bytes() {
    let body = "st.shared.b32 [%r2], %r1;\nbar.sync 0;\nld.shared.b32 %r9, [%r2];";
    let e = ex_run(body, true).unwrap_err();
    assert!(e.message.contains("shared-memory race on byte 0x0: write at PTX line 16 by CTA (0,0,0) thread (1,0,0), and the write at PTX line 16 by CTA (0,0,0) thread (0,0,0)"), "{e}");
    // One writer, then everybody reads after the barrier.
    let ok = "setp.ne.u32 %p1, %r1, 7;\n@!%p1 st.shared.b32 [%r2], %r1;\nbar.sync 0;\nld.shared.b32 %r9, [%r2];";
    assert_eq!(ex_run(ok, true).unwrap(), vec![7; 64]);
    // Atomics on the same word never race.
    let atom = "setp.eq.u32 %p1, %r1, 0;\n@%p1 st.shared.b32 [%r2], 0;\nbar.sync 0;\natom.shared.add.u32 %r7, [%r2], 1;\nbar.sync 0;\nld.shared.b32 %r9, [%r2];";
    assert_eq!(ex_run(atom, true).unwrap(), vec![64; 64]);
}

/// A warp-synchronous exchange through shfl needs no barrier: each thread only touches its
/// own word of shared memory.
#[test]
fn shfl_exchange_is_not_flagged() {
    let body = "add.s32 %r6, %r1, 100;\nshfl.sync.bfly.b32 %r7, %r6, 1, 31, -1;\nst.shared.b32 [%r4], %r7;\nld.shared.b32 %r9, [%r4];";
    assert_eq!(ex_run(body, true).unwrap(), neighbours());
}
