//! cp.async, ldmatrix, mma.sync and mbarrier kernels, checked against host computations,
#![allow(clippy::needless_range_loop)] // index loops mirror the matrix formulas
//! and the misuse each one reports.

use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};
use tileir_ptx_emu::{run, Arg, Buffer, ErrorKind, LaunchConfig, Module, Options};

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig { grid: [grid, 1, 1], block: [block, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() }
}

const MMA: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 16 .b8 smA[512];
.shared .align 16 .b8 smB[256];
.visible .entry mm(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
.reg .pred %p<2>; .reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .f32 %f<9>;
ld.param.b64 %rd1, [pa];
ld.param.b64 %rd2, [pb];
ld.param.b64 %rd3, [pd];
mov.u32 %r1, %tid.x;
mov.u32 %r2, smA;
mov.u32 %r3, smB;
shl.b32 %r4, %r1, 4;
add.s32 %r5, %r2, %r4;
cvt.u64.u32 %rd4, %r4;
add.s64 %rd5, %rd1, %rd4;
cp.async.cg.shared.global [%r5], [%rd5], 16;
setp.lt.u32 %p1, %r1, 16;
add.s32 %r6, %r3, %r4;
add.s64 %rd6, %rd2, %rd4;
@%p1 cp.async.cg.shared.global [%r6], [%rd6], 16;
cp.async.commit_group;
cp.async.wait_group 0;
bar.sync 0;
and.b32 %r7, %r1, 15;
shr.u32 %r8, %r1, 4;
shl.b32 %r9, %r7, 5;
shl.b32 %r10, %r8, 4;
add.s32 %r11, %r9, %r10;
add.s32 %r12, %r2, %r11;
ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r13, %r14, %r15, %r16}, [%r12];
shl.b32 %r18, %r7, 4;
add.s32 %r19, %r3, %r18;
ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r20, %r21}, [%r19];
mov.f32 %f1, 0f3F800000;
mov.f32 %f2, 0f3F800000;
mov.f32 %f3, 0f3F800000;
mov.f32 %f4, 0f3F800000;
mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f5, %f6, %f7, %f8}, {%r13, %r14, %r15, %r16}, {%r20, %r21}, {%f1, %f2, %f3, %f4};
shr.u32 %r22, %r1, 2;
and.b32 %r23, %r1, 3;
shl.b32 %r24, %r22, 3;
shl.b32 %r25, %r23, 1;
add.s32 %r26, %r24, %r25;
mul.wide.u32 %rd7, %r26, 4;
add.s64 %rd8, %rd3, %rd7;
st.global.v2.f32 [%rd8], {%f5, %f6};
st.global.v2.f32 [%rd8+256], {%f7, %f8};
ret;
}
"#;

fn bf16(x: f64) -> u16 {
    encode(FloatFormat::BF16, x, Rounding::NearestEven, Saturation::None) as u16
}

#[test]
fn cp_async_ldmatrix_mma_gemm_tile() {
    // A: 16x16 row-major, B: 16x8 row-major (K x N), D = A B + 1.
    let a: Vec<u16> = (0..256).map(|i| bf16(((i * 7) % 13) as f64 - 6.0)).collect();
    let b: Vec<u16> = (0..128).map(|i| bf16(((i * 5) % 11) as f64 * 0.25 - 1.0)).collect();
    let bytes = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bufs = vec![Buffer::new("A", bytes(&a)), Buffer::new("B", bytes(&b)), Buffer::new("D", vec![0u8; 16 * 8 * 4])];
    let p = Module::parse(MMA).unwrap().kernel(None).unwrap();
    run(&p, &cfg(1, 32), &[Arg::Buffer(0, 0), Arg::Buffer(1, 0), Arg::Buffer(2, 0)], &mut bufs).unwrap();
    let d: Vec<f32> = bufs[2].data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    for r in 0..16 {
        for c in 0..8 {
            let mut s = 1.0f64;
            for k in 0..16 {
                s += decode(FloatFormat::BF16, a[r * 16 + k] as u64) * decode(FloatFormat::BF16, b[k * 8 + c] as u64);
            }
            assert_eq!(d[r * 8 + c], s as f32, "D[{r}][{c}]");
        }
    }
}

#[test]
fn reading_a_cp_async_destination_before_the_wait_is_an_error() {
    let early = MMA.replace("cp.async.wait_group 0;\nbar.sync 0;\n", "bar.sync 0;\n");
    let p = Module::parse(&early).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("A", vec![0; 512]), Buffer::new("B", vec![0; 256]), Buffer::new("D", vec![0u8; 512])];
    let e = run(&p, &cfg(1, 32), &[Arg::Buffer(0, 0), Arg::Buffer(1, 0), Arg::Buffer(2, 0)], &mut bufs).unwrap_err();
    assert!(e.message.contains("destination of a cp.async"), "{e}");
    assert_eq!(e.line, 32, "{e}"); // the first ldmatrix
}

/// Warp 0 produces (stores a value, arrives); warp 1 waits on the mbarrier's phase 0 and
/// reads it. `ARRIVE` is replaced to make the producer forget to arrive.
const MBAR: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 8 .b8 bar[8];
.shared .align 4 .b8 val[4];
.visible .entry pc(.param .u64 out)
{
.reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
ld.param.b64 %rd1, [out];
mov.u32 %r1, %tid.x;
mov.u32 %r2, bar;
setp.ne.u32 %p1, %r1, 0;
@%p1 bra $L_init_done;
mbarrier.init.shared.b64 [%r2], 32;
$L_init_done:
bar.sync 0;
setp.ge.u32 %p2, %r1, 32;
@%p2 bra $L_consumer;
setp.ne.u32 %p3, %r1, 5;
@%p3 bra $L_arrive;
mov.u32 %r3, val;
st.shared.b32 [%r3], 42;
$L_arrive:
ARRIVE
ret;
$L_consumer:
mbarrier.try_wait.parity.shared.b64 %p1, [%r2], 0;
@!%p1 bra $L_consumer;
mov.u32 %r3, val;
ld.shared.b32 %r4, [%r3];
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.b32 [%rd3], %r4;
ret;
}
"#;

#[test]
fn mbarrier_producer_consumer() {
    let text = MBAR.replace("ARRIVE", "mbarrier.arrive.shared.b64 %rd4, [%r2];");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    // The mbarrier wait orders the consumers' reads after the producer's store, also for
    // the race check.
    for race in [false, true] {
        let mut bufs = vec![Buffer::new("out", vec![0u8; 64 * 4])];
        let mut c = cfg(1, 64);
        c.options.race_check = race;
        run(&p, &c, &[Arg::Buffer(0, 0)], &mut bufs).unwrap();
        let out: Vec<u32> = bufs[0].data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert!(out[32..].iter().all(|&v| v == 42), "{out:?}");
    }
    // A store after the arrive is not ordered by the wait.
    let late = MBAR.replace(
        "st.shared.b32 [%r3], 42;\n$L_arrive:\nARRIVE",
        "st.shared.b32 [%r3], 41;\n$L_arrive:\nmbarrier.arrive.shared.b64 %rd4, [%r2];\n@%p3 bra $L_skip;\nst.shared.b32 [%r3], 42;\n$L_skip:",
    );
    assert!(late.contains("$L_skip:"), "{late}");
    let p = Module::parse(&late).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0u8; 64 * 4])];
    let mut c = cfg(1, 64);
    c.options.race_check = true;
    let e = run(&p, &c, &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    // Whichever runs first, the consumer's read (line 33) and the late store (line 26) race.
    assert!(e.message.contains("shared-memory race on byte 0x8"), "{e}");
    assert!(e.message.contains("PTX line 33 by CTA (0,0,0) thread (32,0,0)") && e.message.contains("PTX line 26 by CTA (0,0,0) thread (5,0,0)"), "{e}");
}

#[test]
fn mbarrier_never_completed_is_a_deadlock() {
    let text = MBAR.replace("ARRIVE", "");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0u8; 64 * 4])];
    let e = run(&p, &cfg(1, 64), &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("spin in an mbarrier wait loop on the mbarrier at shared 0x0: phase 0, 32 of 32 arrival(s) pending"), "{e}");
}

#[test]
fn mbarrier_misuse() {
    // Arriving twice per thread completes phases 0 and 1 before the consumer looks: waiting
    // on parity 0 then waits for phase 2, forever (the parity ABA bug).
    let text = MBAR.replace("ARRIVE", "mbarrier.arrive.shared.b64 %rd4, [%r2];\nmbarrier.arrive.shared.b64 %rd4, [%r2];");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0u8; 64 * 4])];
    let e = run(&p, &cfg(1, 64), &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert!(e.kind == ErrorKind::Deadlock && e.message.contains("phase 2"), "{e}");
    // Use before init.
    let text = MBAR.replace("mbarrier.init.shared.b64 [%r2], 32;", "").replace("ARRIVE", "mbarrier.arrive.shared.b64 %rd4, [%r2];");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let e = run(&p, &cfg(1, 64), &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert!(e.message.contains("used before mbarrier.init"), "{e}");
    // expect_tx that never completes, then a late arrive beyond the count.
    let text = MBAR.replace("mbarrier.init.shared.b64 [%r2], 32;", "mbarrier.init.shared.b64 [%r2], 1;\nmbarrier.expect_tx.shared.b64 [%r2], 16;")
        .replace("ARRIVE", "mbarrier.arrive.shared.b64 %rd4, [%r2];");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let e = run(&p, &cfg(1, 64), &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert!(e.message.contains("only 0 of 1 arrival(s) pending (tx-count 16)"), "{e}");
    // A transaction count past the ISA's 2^20 - 1.
    let text = MBAR.replace("mbarrier.init.shared.b64 [%r2], 32;", "mbarrier.init.shared.b64 [%r2], 32;\nmbarrier.expect_tx.shared.b64 [%r2], 2000000;")
        .replace("ARRIVE", "mbarrier.arrive.shared.b64 %rd4, [%r2];");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let e = run(&p, &cfg(1, 64), &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert!(e.message.contains("transaction count 2000000") && e.message.contains("[0, 2^20 - 1]"), "{e}");
}

#[test]
fn bulk_copy_completes_the_mbarrier_transaction() {
    let text = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 16 .b8 buf[256];
.shared .align 8 .b8 bar[8];
.visible .entry bulk(.param .u64 inp, .param .u64 out)
{
.reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
ld.param.b64 %rd1, [inp];
ld.param.b64 %rd2, [out];
mov.u32 %r1, %tid.x;
mov.u32 %r2, bar;
mov.u32 %r3, buf;
setp.ne.u32 %p1, %r1, 0;
@%p1 bra $L_wait;
mbarrier.init.shared.b64 [%r2], 1;
mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r2], 256;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 256, [%r2];
$L_wait:
bar.sync 0;
$L_spin:
mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;
@!%p2 bra $L_spin;
shl.b32 %r4, %r1, 2;
add.s32 %r5, %r3, %r4;
ld.shared.b32 %r6, [%r5];
mul.wide.u32 %rd4, %r1, 4;
add.s64 %rd5, %rd2, %rd4;
st.global.b32 [%rd5], %r6;
ret;
}
"#;
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let inp: Vec<u8> = (0..64u32).flat_map(|i| (i * 3 + 1).to_le_bytes()).collect();
    let mut bufs = vec![Buffer::new("inp", inp), Buffer::new("out", vec![0u8; 256])];
    run(&p, &cfg(1, 64), &[Arg::Buffer(0, 0), Arg::Buffer(1, 0)], &mut bufs).unwrap();
    let out: Vec<u32> = bufs[1].data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(out, (0..64u32).map(|i| i * 3 + 1).collect::<Vec<_>>());
}

/// A warpgroup copies a shared-memory image in, runs one m64n8k16 wgmma on descriptors passed
/// as parameters (scale-d = 0: D = A·Bᵀ), and stores D row-major.
const WGMMA: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 1024 .b8 sm[9216];
.visible .entry wg(.param .u64 img, .param .u32 nbytes, .param .u64 da, .param .u64 db, .param .u64 out)
.reqntid 128, 1, 1
{
.reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .f32 %f<5>;
ld.param.b64 %rd1, [img];
ld.param.b32 %r1, [nbytes];
ld.param.b64 %rd2, [da];
ld.param.b64 %rd3, [db];
ld.param.b64 %rd4, [out];
mov.u32 %r2, %tid.x;
shl.b32 %r3, %r2, 4;
mov.u32 %r4, sm;
$L_copy:
setp.ge.u32 %p1, %r3, %r1;
@%p1 bra $L_done;
cvt.u64.u32 %rd5, %r3;
add.s64 %rd6, %rd1, %rd5;
ld.global.v2.b64 {%rd7, %rd8}, [%rd6];
add.s32 %r5, %r4, %r3;
st.shared.v2.b64 [%r5], {%rd7, %rd8};
add.s32 %r3, %r3, 2048;
bra.uni $L_copy;
$L_done:
bar.sync 0;
wgmma.fence.sync.aligned;
setp.ne.b32 %p2, 0, 0;
wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd2, %rd3, %p2, 1, 1, 0, 0;
wgmma.commit_group.sync.aligned;
wgmma.wait_group.sync.aligned 0;
shr.u32 %r6, %r2, 5;
and.b32 %r7, %r2, 31;
shr.u32 %r8, %r7, 2;
and.b32 %r9, %r7, 3;
shl.b32 %r10, %r6, 4;
add.s32 %r10, %r10, %r8;
shl.b32 %r11, %r10, 3;
shl.b32 %r12, %r9, 1;
add.s32 %r11, %r11, %r12;
mul.wide.u32 %rd9, %r11, 4;
add.s64 %rd10, %rd4, %rd9;
st.global.v2.f32 [%rd10], {%f1, %f2};
st.global.v2.f32 [%rd10+256], {%f3, %f4};
ret;
}
"#;

fn wgmma_case(a: &[Vec<f64>], b: &[Vec<f64>], image: Vec<u8>, da: u64, db: u64, k0: usize) {
    let p = Module::parse(WGMMA).unwrap().kernel(None).unwrap();
    let n = image.len() as u32;
    let mut bufs = vec![Buffer::new("img", image), Buffer::new("out", vec![0u8; 64 * 8 * 4])];
    run(&p, &cfg(1, 128), &[Arg::Buffer(0, 0), Arg::U32(n), Arg::U64(da), Arg::U64(db), Arg::Buffer(1, 0)], &mut bufs).unwrap();
    let d: Vec<f32> = bufs[1].data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    for r in 0..64 {
        for c in 0..8 {
            let s: f64 = (0..16).map(|k| a[r][k0 + k] * b[c][k0 + k]).sum();
            assert_eq!(d[r * 8 + c], s as f32, "D[{r}][{c}]");
        }
    }
}

fn desc(start: u64, lbo: u64, sbo: u64, swizzle: u64) -> u64 {
    (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (swizzle << 62)
}

fn put(image: &mut [u8], addr: u64, x: f64) {
    let h = bf16(x).to_le_bytes();
    image[addr as usize..addr as usize + 2].copy_from_slice(&h);
}

#[test]
fn wgmma_k_major_without_swizzle() {
    let a: Vec<Vec<f64>> = (0..64).map(|r| (0..16).map(|k| ((r * 3 + k * 7) % 9) as f64 - 4.0).collect()).collect();
    let b: Vec<Vec<f64>> = (0..8).map(|n| (0..16).map(|k| ((n * 5 + k) % 7) as f64 * 0.5 - 1.5).collect()).collect();
    // Core matrices of 8 rows x 16 bytes: LBO 128 along K, SBO 256 along rows.
    let at = |r: usize, k: usize| ((r / 8) * 256 + (k / 8) * 128 + (r % 8) * 16 + (k % 8) * 2) as u64;
    let mut image = vec![0u8; 2048 + 256];
    for r in 0..64 {
        for k in 0..16 {
            put(&mut image, at(r, k), a[r][k]);
        }
    }
    for nn in 0..8 {
        for k in 0..16 {
            put(&mut image, 2048 + at(nn, k), b[nn][k]);
        }
    }
    wgmma_case(&a, &b, image, desc(0, 128, 256, 0), desc(2048, 128, 256, 0), 0);
}

#[test]
fn wgmma_k_major_128_byte_swizzle_second_k_step() {
    let a: Vec<Vec<f64>> = (0..64).map(|r| (0..64).map(|k| ((r * 5 + k * 3) % 11) as f64 - 5.0).collect()).collect();
    let b: Vec<Vec<f64>> = (0..8).map(|n| (0..64).map(|k| ((n * 7 + k * 2) % 5) as f64 - 2.0).collect()).collect();
    // 128-byte rows, 8-row atoms of 1024 bytes, 16-byte chunks XOR-ed with the row in the atom.
    let at = |base: u64, r: usize, k: usize| {
        let a = base + ((r / 8) * 1024 + (r % 8) * 128 + k * 2) as u64;
        a ^ (((a >> 7) & 7) << 4)
    };
    let mut image = vec![0u8; 8192 + 1024];
    for r in 0..64 {
        for k in 0..64 {
            put(&mut image, at(0, r, k), a[r][k]);
        }
    }
    for nn in 0..8 {
        for k in 0..64 {
            put(&mut image, at(8192, nn, k), b[nn][k]);
        }
    }
    // The second K step starts 32 bytes into the (unswizzled) row.
    wgmma_case(&a, &b, image, desc(32, 16, 1024, 1), desc(8192 + 32, 16, 1024, 1), 16);
}

#[test]
fn touching_wgmma_accumulators_in_flight_is_an_error() {
    let text = WGMMA.replace("wgmma.commit_group.sync.aligned;\n", "wgmma.commit_group.sync.aligned;\nadd.f32 %f1, %f1, %f1;\n");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("img", vec![0u8; 2304]), Buffer::new("out", vec![0u8; 64 * 8 * 4])];
    let args = [Arg::Buffer(0, 0), Arg::U32(2304), Arg::U64(desc(0, 128, 256, 0)), Arg::U64(desc(2048, 128, 256, 0)), Arg::Buffer(1, 0)];
    let e = run(&p, &cfg(1, 128), &args, &mut bufs).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Undefined, "{e}");
    assert!(e.message.contains("%f1 is an accumulator of the wgmma.mma_async at PTX line 31, still in flight"), "{e}");
    assert_eq!(e.line, 33);
}

#[test]
fn wgmma_accumulators_need_the_wait_that_covers_their_group() {
    let args = [Arg::Buffer(0, 0), Arg::U32(2304), Arg::U64(desc(0, 128, 256, 0)), Arg::U64(desc(2048, 128, 256, 0)), Arg::Buffer(1, 0)];
    let go = |text: &str| {
        let p = Module::parse(text).unwrap().kernel(None).unwrap();
        let mut bufs = vec![Buffer::new("img", vec![0u8; 2304]), Buffer::new("out", vec![0u8; 64 * 8 * 4])];
        run(&p, &cfg(1, 128), &args, &mut bufs)
    };
    // wait_group 1 leaves the only group in flight: the store of %f1 is an error naming the
    // wgmma's line and the wait it needs.
    let e = go(&WGMMA.replace("wgmma.wait_group.sync.aligned 0;", "wgmma.wait_group.sync.aligned 1;")).unwrap_err();
    assert!(e.message.contains("of the wgmma.mma_async at PTX line 31, still in flight") && e.message.contains("it waits on a wgmma.wait_group 0 (or lower)"), "{e}");
    assert_eq!(e.line, 45, "{e}");
    // Before the commit.
    let e = go(&WGMMA.replace("wgmma.commit_group.sync.aligned;\n", "mov.f32 %f9, %f2;\nwgmma.commit_group.sync.aligned;\n").replace("%f<5>", "%f<10>")).unwrap_err();
    assert!(e.message.contains("%f2 is an accumulator") && e.message.contains("not committed yet"), "{e}");
    // A second group committed after it: wait_group 1 retires the first.
    let two = WGMMA.replace(
        "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;",
        "wgmma.commit_group.sync.aligned;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f5, %f6, %f7, %f8}, %rd2, %rd3, %p2, 1, 1, 0, 0;\nwgmma.commit_group.sync.aligned;\nmov.f32 %f9, %f5;\nwgmma.wait_group.sync.aligned 0;",
    ).replace("%f<5>", "%f<10>");
    let e = go(&two).unwrap_err();
    assert!(e.message.contains("%f5 is an accumulator of the wgmma.mma_async at PTX line 33") && e.message.contains("wgmma.wait_group 0 (or lower)"), "{e}");
    go(&two.replace("mov.f32 %f9, %f5;\n", "")).unwrap();
    let ok = two.replace("mov.f32 %f9, %f5;\nwgmma.wait_group.sync.aligned 0;", "wgmma.wait_group.sync.aligned 1;\nmov.f32 %f9, %f1;\nwgmma.wait_group.sync.aligned 0;");
    go(&ok).unwrap();
}

/// Race check: the tensor core may read a wgmma's shared-memory operands until a
/// wgmma.wait_group retires its group, so a write there before that is a race; after it the
/// writer must be ordered after a wait that retired the group (any warp's of the warpgroup).
#[test]
fn overwriting_wgmma_operands_in_flight_is_a_race() {
    let args = [Arg::Buffer(0, 0), Arg::U32(2304), Arg::U64(desc(0, 128, 256, 0)), Arg::U64(desc(2048, 128, 256, 0)), Arg::Buffer(1, 0)];
    let go = |text: &str, race_check: bool| {
        let p = Module::parse(text).unwrap().kernel(None).unwrap();
        let image: Vec<u8> = (0..2304u32).map(|i| (i % 7) as u8).collect();
        let mut bufs = vec![Buffer::new("img", image), Buffer::new("out", vec![0u8; 64 * 8 * 4])];
        let config = LaunchConfig { options: Options { race_check, ..Options::default() }, ..cfg(1, 128) };
        run(&p, &config, &args, &mut bufs)
    };
    let commit = "wgmma.commit_group.sync.aligned;\n";
    let wait = "wgmma.wait_group.sync.aligned 0;\n";
    // Thread 0 overwrites B's first word (shared byte 2048) while the group is in flight.
    let store = "setp.eq.u32 %p1, %r2, 0;\n@%p1 st.shared.b32 [%r4+2048], 0;\n";
    let early = WGMMA.replace(commit, &format!("{commit}{store}"));
    go(&early, false).unwrap();
    let e = go(&early, true).unwrap_err();
    assert!(e.message.contains("write at PTX line 34 by CTA (0,0,0) thread (0,0,0) to shared byte 0x800, which the wgmma.mma_async at PTX line 31 still reads (no wgmma.wait_group has retired it yet)"), "{e}");
    assert_eq!(e.line, 34, "{e}");
    // After its own warp's wait, with no barrier: the wgmma is one operation of the
    // warpgroup, so that wait retired every warp's reads of the group (it completes only
    // once all four warps issued it, and the wait returns only once it has completed).
    go(&WGMMA.replace(wait, &format!("{wait}{store}")), true).unwrap();
    go(&WGMMA.replace(wait, &format!("{wait}bar.sync 0;\n{store}")), true).unwrap();
}

/// A warp-specialized stage release (CUTLASS's consumer_release): warps 0-3 (a consumer
/// warpgroup) run one wgmma on the stage; one elected thread arrives on the stage's "empty"
/// mbarrier (one arrival expected), and the producer, thread 128 of warp 4, waits on it and
/// overwrites the stage (B's first word, shared byte 2048, which all four warps read).
const WS_RELEASE: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 1024 .b8 sm[9216];
.visible .entry ws(.param .u64 img, .param .u32 nbytes, .param .u64 da, .param .u64 db, .param .u64 out)
.reqntid 160, 1, 1
{
.reg .pred %p<6>; .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .f32 %f<5>;
ld.param.b64 %rd1, [img];
ld.param.b32 %r1, [nbytes];
ld.param.b64 %rd2, [da];
ld.param.b64 %rd3, [db];
ld.param.b64 %rd4, [out];
mov.u32 %r2, %tid.x;
shl.b32 %r3, %r2, 4;
mov.u32 %r4, sm;
setp.eq.u32 %p3, %r2, 0;
@%p3 mbarrier.init.shared::cta.b64 [%r4+4096], 1;
$L_copy:
setp.ge.u32 %p1, %r3, %r1;
@%p1 bra $L_done;
cvt.u64.u32 %rd5, %r3;
add.s64 %rd6, %rd1, %rd5;
ld.global.v2.b64 {%rd7, %rd8}, [%rd6];
add.s32 %r5, %r4, %r3;
st.shared.v2.b64 [%r5], {%rd7, %rd8};
add.s32 %r3, %r3, 2560;
bra.uni $L_copy;
$L_done:
bar.sync 0;
setp.ge.u32 %p4, %r2, 128;
@%p4 bra $L_producer;
setp.eq.u32 %p5, %r2, ELECTED;
wgmma.fence.sync.aligned;
setp.ne.b32 %p2, 0, 0;
wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd2, %rd3, %p2, 1, 1, 0, 0;
wgmma.commit_group.sync.aligned;
BEFORE
wgmma.wait_group.sync.aligned 0;
AFTER
shr.u32 %r6, %r2, 5;
and.b32 %r7, %r2, 31;
shr.u32 %r8, %r7, 2;
and.b32 %r9, %r7, 3;
shl.b32 %r10, %r6, 4;
add.s32 %r10, %r10, %r8;
shl.b32 %r11, %r10, 3;
shl.b32 %r12, %r9, 1;
add.s32 %r11, %r11, %r12;
mul.wide.u32 %rd9, %r11, 4;
add.s64 %rd10, %rd4, %rd9;
st.global.v2.f32 [%rd10], {%f1, %f2};
st.global.v2.f32 [%rd10+256], {%f3, %f4};
ret;
$L_producer:
setp.ne.u32 %p1, %r2, 128;
@%p1 ret;
$L_wait:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r4+4096], 0;
@!%p1 bra $L_wait;
st.shared.b32 [%r4+2048], 0;
ret;
}
"#;

const RELEASE: &str = "@%p5 mbarrier.arrive.shared::cta.b64 %rd11, [%r4+4096];";

fn ws_release(elected: u32, before: &str, after: &str, race_check: bool) -> Result<Vec<f32>, tileir_ptx_emu::EmuError> {
    let text = WS_RELEASE.replace("ELECTED", &elected.to_string()).replace("BEFORE", before).replace("AFTER", after);
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let image: Vec<u8> = (0..2304u32).map(|i| [0x80, 0x3f, 0x00, 0x40][i as usize % 4]).collect(); // bf16 1.0, 2.0
    let mut bufs = vec![Buffer::new("img", image), Buffer::new("out", vec![0u8; 64 * 8 * 4])];
    let args = [Arg::Buffer(0, 0), Arg::U32(2304), Arg::U64(desc(0, 128, 256, 0)), Arg::U64(desc(2048, 128, 256, 0)), Arg::Buffer(1, 0)];
    let config = LaunchConfig { options: Options { race_check, ..Options::default() }, ..cfg(1, 160) };
    run(&p, &config, &args, &mut bufs)?;
    Ok(bufs[1].data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// One elected thread releases the stage after its own warp's wgmma.wait_group: that wait
/// retired the warpgroup's whole wgmma (every warp's reads), so the producer's overwrite is
/// ordered after all of them — whichever warp the elected thread is in, and although the
/// other warps' waits may run later. The result is D = A·Bᵀ of the original stage.
#[test]
fn elected_release_after_wgmma_wait_is_no_race() {
    for elected in [0, 37, 127] {
        for race_check in [false, true] {
            let d = ws_release(elected, "", RELEASE, race_check).unwrap_or_else(|e| panic!("elected thread {elected}: {e}"));
            // Every element of A and B alternates 1.0 and 2.0 along K: 8·1 + 8·4 = 40.
            assert!(d.iter().all(|&x| x == 40.0), "elected thread {elected}: {:?}", &d[..8]);
        }
    }
}

/// The elected thread releases the stage between its commit_group and its wait_group: its
/// wgmma may still be reading, so the producer's overwrite races with it — reported whether
/// or not another warp's wait has retired the group by then (the producer is not ordered
/// after that wait).
#[test]
fn release_before_wgmma_wait_is_a_race() {
    for elected in [0, 37, 127] {
        let e = ws_release(elected, RELEASE, "", true).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Memory, "{e}");
        assert!(e.message.contains("byte 0x800: write at PTX line 61 by CTA (0,0,0) thread (128,0,0)") && e.message.contains("the read at PTX line 36 by the wgmma.mma_async of warpgroup 0 (warps 0-3)"), "elected thread {elected}: {e}");
        assert_eq!(e.line, 61, "{e}");
    }
}

/// A wgmma.wait_group cannot complete before every live warp of the warpgroup has issued the
/// group's wgmma: a warp that never does leaves the others waiting (a deadlock naming it); a
/// warp that exits instead holds up nobody.
#[test]
fn wgmma_wait_waits_for_the_whole_warpgroup() {
    let skip = |how: &str| WGMMA.replace("wgmma.fence.sync.aligned;\n", &format!("wgmma.fence.sync.aligned;\nsetp.ge.u32 %p1, %r2, 96;\n@%p1 {how};\n"));
    let args = [Arg::Buffer(0, 0), Arg::U32(2304), Arg::U64(desc(0, 128, 256, 0)), Arg::U64(desc(2048, 128, 256, 0)), Arg::Buffer(1, 0)];
    let go = |text: &str| {
        let p = Module::parse(text).unwrap().kernel(None).unwrap();
        let mut bufs = vec![Buffer::new("img", vec![0u8; 2304]), Buffer::new("out", vec![0u8; 64 * 8 * 4])];
        run(&p, &cfg(1, 128), &args, &mut bufs)
    };
    let e = go(&skip("bar.sync 1, 64")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("warp 0 lanes 0-31 wait in wgmma.wait_group 0 for warp(s) 3 of the warpgroup, which have not committed its wgmma group 1 yet"), "{e}");
    go(&skip("ret")).unwrap();
}

/// stmatrix: lane t holds, in each register, the two b16 elements (row t / 4, columns
/// 2 (t % 4) and + 1) of one 8x8 matrix (PTX ISA, stmatrix fragment layout); lanes 0-7 give
/// matrix 0's row addresses, 8-15 matrix 1's (x2). Stored, read back by every lane.
#[test]
fn stmatrix_writes_the_fragment_layout() {
    let text = |trans: &str| format!(".version 8.6
.target sm_90a
.address_size 64
.shared .align 16 .b8 sm[256];
.visible .entry st(.param .u64 out)
{{
.reg .b32 %r<16>; .reg .b64 %rd<8>;
ld.param.b64 %rd1, [out];
mov.u32 %r1, %tid.x;
shl.b32 %r2, %r1, 1;
add.s32 %r3, %r2, 1;
shl.b32 %r3, %r3, 16;
or.b32 %r4, %r3, %r2;
add.s32 %r5, %r4, 0x00400040;
and.b32 %r6, %r1, 15;
shl.b32 %r7, %r6, 4;
mov.u32 %r8, sm;
add.s32 %r9, %r8, %r7;
stmatrix.sync.aligned.m8n8.x2{trans}.shared.b16 [%r9], {{%r4, %r5}};
bar.warp.sync -1;
shl.b32 %r10, %r1, 3;
add.s32 %r11, %r8, %r10;
ld.shared.v2.b32 {{%r12, %r13}}, [%r11];
mul.wide.u32 %rd2, %r1, 8;
add.s64 %rd3, %rd1, %rd2;
st.global.v2.b32 [%rd3], {{%r12, %r13}};
ret;
}}
");
    for trans in ["", ".trans"] {
        let p = Module::parse(&text(trans)).unwrap().kernel(None).unwrap();
        let mut bufs = vec![Buffer::new("out", vec![0u8; 256])];
        run(&p, &cfg(1, 32), &[Arg::Buffer(0, 0)], &mut bufs).unwrap_or_else(|e| panic!("{trans}: {e}"));
        let got: Vec<u16> = bufs[0].data.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        // Matrix k (0, 1), element (r, c): lane 4r + c/2's register k, half c % 2, whose
        // value is 2 (4r + c/2) + c % 2 + 64 k = 8r + c + 64k; .trans stores it at (c, r).
        for k in 0..2usize {
            for r in 0..8usize {
                for c in 0..8usize {
                    let value = (8 * r + c + 64 * k) as u16;
                    let (row, col) = if trans.is_empty() { (r, c) } else { (c, r) };
                    assert_eq!(got[k * 64 + row * 8 + col], value, "{trans} matrix {k} element ({r}, {c})");
                }
            }
        }
    }
}
