//! TMA: the tensor-map encoder/decoder, and `cp.async.bulk.tensor` kernels checked against
//! host computations (swizzle modes, ragged edges, stores, mbarrier transactions) and the
//! misuse each one reports.

use tileir_ptx_emu::tensor_map::{DataType, Interleave, L2Promotion, OobFill, Swizzle, TensorMap};
use tileir_ptx_emu::{run, Arg, Buffer, ErrorKind, LaunchConfig, Module, Options};

fn cfg(block: u32) -> LaunchConfig {
    LaunchConfig { grid: [1, 1, 1], block: [block, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() }
}

fn sample() -> TensorMap {
    TensorMap {
        base: 0x7000_0000_1230,
        elem: DataType::Bf16,
        rank: 3,
        dims: [200, 70, 5, 0, 0],
        strides_bytes: [416, 416 * 70, 0, 0],
        box_dims: [64, 32, 2, 0, 0],
        element_strides: [1, 2, 1, 0, 0],
        interleave: Interleave::None,
        swizzle: Swizzle::B128,
        l2_promotion: L2Promotion::B128,
        oob_fill: OobFill::NanRequestZeroFma,
    }
}

#[test]
fn tensor_map_round_trips() {
    let m = sample();
    let b = m.encode().unwrap();
    assert_eq!(TensorMap::decode(&b).unwrap(), m);
    // Every type, rank and swizzle, and strides that use the high nibble (>= 2^36).
    for (k, t) in DataType::ALL.into_iter().enumerate() {
        for rank in 1..=5usize {
            let sw = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128][(k + rank) % 4];
            let inner = if sw == Swizzle::None { 64 } else { sw.span() } / t.size();
            let dims = [inner * 3, 7, 5, 3, 2];
            let mut m = TensorMap::dense(0x1000 * k as u64, t, &dims[..rank], &[inner as u32, 256, 8, 1, 3][..rank], sw);
            if rank == 2 || rank == 3 {
                // Strides past 2^36 use the high nibble.
                m.strides_bytes[0] = 0x12_3456_7890;
                if rank == 3 {
                    m.strides_bytes[1] = 0x12_3456_7890 * 7;
                }
            }
            m.element_strides[0] = 1 + (k as u32 % 8);
            let e = m.encode().unwrap_or_else(|e| panic!("{t:?} rank {rank}: {e}"));
            assert_eq!(TensorMap::decode(&e).unwrap(), m, "{t:?} rank {rank}");
        }
    }
    // Field placement pinned (the layout the module documents).
    let m = TensorMap::dense(0x7000_0000_0000, DataType::F16, &[104, 80], &[64, 64], Swizzle::B128);
    let b = m.encode().unwrap();
    assert_eq!(u64::from_le_bytes(b[0..8].try_into().unwrap()), 0x7000_0000_0000);
    assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), 2 | (1 << 4) | (6 << 7) | (3 << 13));
    assert_eq!(u32::from_le_bytes(b[12..16].try_into().unwrap()), 208 >> 4);
    assert_eq!(u32::from_le_bytes(b[32..36].try_into().unwrap()), 103);
    assert_eq!(u32::from_le_bytes(b[36..40].try_into().unwrap()), 79);
    assert_eq!(u32::from_le_bytes(b[52..56].try_into().unwrap()), 63 << 24);
    assert_eq!(u32::from_le_bytes(b[56..60].try_into().unwrap()), 63);
    assert!(b[60..].iter().all(|&x| x == 0));
}

#[test]
fn tensor_map_validation_names_the_field() {
    let check = |f: &dyn Fn(&mut TensorMap), want: &[&str]| {
        let mut m = sample();
        f(&mut m);
        let e = m.encode().unwrap_err().to_string();
        for w in want {
            assert!(e.contains(w), "want '{w}' in: {e}");
        }
    };
    check(&|m| m.rank = 0, &["rank 0", "1..=5"]);
    check(&|m| m.rank = 6, &["rank 6"]);
    check(&|m| m.base += 8, &["global address 0x700000001238", "16-byte aligned", "8 past"]);
    check(&|m| m.dims[1] = 0, &["dims[1] = 0", "1..=2^32"]);
    check(&|m| m.dims[1] = (1 << 32) + 1, &["dims[1] = 4294967297"]);
    check(&|m| m.dims[3] = 4, &["dims[3] = 4", "past rank 3"]);
    check(&|m| m.strides_bytes[0] = 424, &["strides_bytes[0] = 424", "multiple of 16", "8 past"]);
    check(&|m| {
        m.strides_bytes[0] = 1 << 40;
        m.strides_bytes[1] = 1 << 41;
    }, &["strides_bytes[0] = 1099511627776", "below 2^40"]);
    check(&|m| m.strides_bytes[0] = 384, &["strides_bytes[0] = 384", "smaller than dimension 0's extent in bytes, 400"]);
    check(&|m| m.strides_bytes[2] = 16, &["strides_bytes[2] = 16", "past rank 3"]);
    check(&|m| m.box_dims[1] = 0, &["box_dims[1] = 0", "1..=256"]);
    check(&|m| m.box_dims[2] = 257, &["box_dims[2] = 257"]);
    check(&|m| m.element_strides[1] = 9, &["element_strides[1] = 9", "1..=8"]);
    check(&|m| m.box_dims[4] = 1, &["box_dims[4] = 1", "past rank 3"]);
    check(&|m| {
        m.swizzle = Swizzle::None;
        m.box_dims[0] = 12;
    }, &["inner box bytes box_dims[0] * 2 = 24", "multiple of 16"]);
    check(&|m| m.swizzle = Swizzle::B64, &["inner box bytes box_dims[0] * 2 = 128", "swizzle span of B64, 64 bytes"]);
    check(&|m| m.box_dims[0] = 72, &["= 144", "B128, 128 bytes"]);
    check(&|m| {
        m.elem = DataType::I32;
        m.box_dims[0] = 32;
        m.strides_bytes = [800, 800 * 70, 0, 0];
    }, &["NanRequestZeroFma needs a floating-point type", "I32"]);
    check(&|m| {
        m.interleave = Interleave::B16;
        m.rank = 2;
        m.dims[2] = 0;
        m.strides_bytes[1] = 0;
        m.box_dims[2] = 0;
        m.element_strides[2] = 0;
    }, &["interleave B16 needs rank >= 3", "rank 2"]);
    check(&|m| m.interleave = Interleave::B32, &["32-byte aligned"]);
}

#[test]
fn tensor_map_decode_rejects_garbage() {
    let e = TensorMap::decode(&[0u8; 128]).unwrap_err().to_string();
    assert!(e.contains("version field") && e.contains("is 0, expected 1"), "{e}");
    let good = sample().encode().unwrap();
    let mut b = good;
    b[8] |= 1;
    assert!(TensorMap::decode(&b).unwrap_err().to_string().contains("im2col"));
    let mut b = good;
    b[100] = 7;
    assert!(TensorMap::decode(&b).unwrap_err().to_string().contains("reserved byte 100 is 0x07"));
    let mut b = good;
    b[8] |= 0x80; // format field (bits 7..11) 15
    b[9] |= 0x07;
    assert!(TensorMap::decode(&b).unwrap_err().to_string().contains("names no type"));
    let mut b = good;
    b[44] = 1; // dimension 3 of a rank-3 map
    assert!(TensorMap::decode(&b).unwrap_err().to_string().contains("dimension 3 (bytes 44..48) is set past rank 3"));
    let mut b = good;
    b[0] = 0x38; // address no longer 16-byte aligned: the decoded map fails validation
    assert!(TensorMap::decode(&b).unwrap_err().to_string().contains("16-byte aligned"));
}

/// Loads a 64-row box of `w`-element-wide f16 boxes (64 / `w` of them side by side) at
/// (x0, y0) per round into `buf`, thread 0 issuing with arrive.expect_tx of 8192 bytes; every
/// thread waits on the round's parity, un-swizzles (XOR of address bits 4.. with bits 7..
/// under `mask`) and copies the 64x64 tile to `out` + round * 8192. Round r reads at
/// (x0 + 8r, y0).
const LOAD: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 8 .b8 bar[8];
.shared .align 1024 .b8 buf[8192];
.visible .entry tma_load(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 x0, .param .u32 y0, .param .u32 w, .param .u32 mask, .param .u32 rounds)
{
.reg .pred %p<6>; .reg .b32 %r<40>; .reg .b64 %rd<10>; .reg .b16 %rs<2>;
mov.u64 %rd1, tmap;
cvta.param.u64 %rd2, %rd1;
ld.param.u64 %rd3, [out];
ld.param.u32 %r1, [x0];
ld.param.u32 %r2, [y0];
ld.param.u32 %r3, [w];
ld.param.u32 %r4, [mask];
ld.param.u32 %r32, [rounds];
mov.u32 %r5, %tid.x;
mov.u32 %r6, bar;
mov.u32 %r7, buf;
setp.eq.u32 %p4, %r5, 0;
@!%p4 bra $L_init_done;
prefetch.param.tensormap [tmap];
mbarrier.init.shared.b64 [%r6], 1;
$L_init_done:
bar.sync 0;
mov.u32 %r30, 0;
$L_round:
@!%p4 bra $L_wait;
mbarrier.arrive.expect_tx.shared.b64 %rd4, [%r6], 8192;
mov.u32 %r8, 0;
mov.u32 %r9, buf;
add.s32 %r9, %r9, DST;
$L_issue:
add.s32 %r10, %r1, %r8;
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r9], [%rd2, {%r10, %r2}], [%r6];
add.s32 %r8, %r8, %r3;
shl.b32 %r11, %r3, 7;
add.s32 %r9, %r9, %r11;
setp.lt.u32 %p2, %r8, 64;
@%p2 bra $L_issue;
$L_wait:
and.b32 %r31, %r30, 1;
$L_spin:
mbarrier.try_wait.parity.shared.b64 %p3, [%r6], %r31;
@!%p3 bra $L_spin;
mov.u32 %r12, %r5;
$L_read:
and.b32 %r13, %r12, 63;
shr.u32 %r14, %r12, 6;
div.u32 %r15, %r13, %r3;
rem.u32 %r16, %r13, %r3;
mul.lo.u32 %r17, %r15, %r3;
shl.b32 %r17, %r17, 7;
mad.lo.u32 %r18, %r14, %r3, %r16;
shl.b32 %r18, %r18, 1;
add.s32 %r19, %r17, %r18;
shr.u32 %r20, %r19, 3;
and.b32 %r20, %r20, %r4;
xor.b32 %r21, %r19, %r20;
add.s32 %r22, %r7, %r21;
ld.shared.u16 %rs1, [%r22];
shl.b32 %r23, %r30, 12;
add.s32 %r24, %r23, %r12;
mul.wide.u32 %rd5, %r24, 2;
add.s64 %rd6, %rd3, %rd5;
st.global.u16 [%rd6], %rs1;
add.s32 %r12, %r12, 128;
setp.lt.u32 %p1, %r12, 4096;
@%p1 bra $L_read;
bar.sync 0;
add.s32 %r1, %r1, 8;
add.s32 %r30, %r30, 1;
setp.lt.u32 %p5, %r30, %r32;
@%p5 bra $L_round;
ret;
}
"#;

const GW: u64 = 104; // tensor columns (208-byte rows)
const GH: u64 = 80; // tensor rows

fn input() -> Vec<u16> {
    (0..GW * GH).map(|i| (i as u16).wrapping_mul(7).wrapping_add(3) | 0x100).collect()
}

fn bytes16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words16(b: &[u8]) -> Vec<u16> {
    b.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
}

/// The 64x64 tile at (x0, y0) of `input()`, zero outside the tensor.
fn expected(x0: i64, y0: i64) -> Vec<u16> {
    let inp = input();
    let mut out = vec![0u16; 4096];
    for y in 0..64i64 {
        for x in 0..64i64 {
            let (gx, gy) = (x0 + x, y0 + y);
            if (0..GW as i64).contains(&gx) && (0..GH as i64).contains(&gy) {
                out[(y * 64 + x) as usize] = inp[(gy * GW as i64 + gx) as usize];
            }
        }
    }
    out
}

fn swizzle_case(sw: Swizzle) -> (u32, u32) {
    match sw {
        Swizzle::None => (64, 0),
        Swizzle::B32 => (16, 0x10),
        Swizzle::B64 => (32, 0x30),
        Swizzle::B128 => (64, 0x70),
    }
}

fn run_load(text: &str, sw: Swizzle, unswizzle: bool, x0: i32, y0: i32, rounds: u32) -> tileir_ptx_emu::Result<Vec<u16>> {
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let (w, mask) = swizzle_case(sw);
    let map = TensorMap::dense(0, DataType::F16, &[GW, GH], &[w, 64], sw);
    let mut bufs = vec![Buffer::new("in", bytes16(&input())), Buffer::new("out", vec![0u8; 8192 * rounds as usize])];
    bufs[0].read_only = true;
    let args = [
        Arg::TensorMap(0, map),
        Arg::Buffer(1, 0),
        Arg::U32(x0 as u32),
        Arg::U32(y0 as u32),
        Arg::U32(w),
        Arg::U32(if unswizzle { mask } else { 0 }),
        Arg::U32(rounds),
    ];
    run(&p, &cfg(128), &args, &mut bufs)?;
    Ok(words16(&bufs[1].data))
}

fn load_ptx() -> String {
    LOAD.replace("DST", "0")
}

#[test]
fn tma_load_64x64_f16_in_every_swizzle_mode() {
    let text = load_ptx();
    for sw in [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128] {
        let got = run_load(&text, sw, true, 8, 4, 1).unwrap_or_else(|e| panic!("{sw:?}: {e}"));
        assert_eq!(got, expected(8, 4), "{sw:?}");
        if sw != Swizzle::None {
            // Read back without un-swizzling: the bytes really are permuted in shared memory,
            // exactly as the swizzle of the linear layout says.
            let raw = run_load(&text, sw, false, 8, 4, 1).unwrap();
            assert_ne!(raw, expected(8, 4), "{sw:?}");
            let (w, _) = swizzle_case(sw);
            let lin = |x: u64, y: u64| (x / w as u64) * w as u64 * 128 + (y * w as u64 + x % w as u64) * 2;
            let want = expected(8, 4);
            for y in 0..64u64 {
                for x in 0..64u64 {
                    // raw[e] holds the shared bytes at linear(e); the element stored there is
                    // the one whose swizzled address is linear(e) (the swizzle is an involution).
                    let a = sw.apply(lin(x, y));
                    let (bx, rest) = (a / (w as u64 * 128), a % (w as u64 * 128));
                    let (yy, xx) = (rest / 2 / w as u64, rest / 2 % w as u64);
                    assert_eq!(raw[(y * 64 + x) as usize], want[(yy * 64 + bx * w as u64 + xx) as usize], "{sw:?} ({x}, {y})");
                }
            }
        }
    }
}

#[test]
fn tma_load_at_the_ragged_edge_zero_fills() {
    let text = load_ptx();
    for (x0, y0) in [(64, 40), (-8, -3), (100, 79), (-64, 0), (200, 200)] {
        for sw in [Swizzle::None, Swizzle::B128, Swizzle::B32] {
            let got = run_load(&text, sw, true, x0, y0, 1).unwrap_or_else(|e| panic!("{sw:?} ({x0}, {y0}): {e}"));
            assert_eq!(got, expected(x0 as i64, y0 as i64), "{sw:?} ({x0}, {y0})");
        }
    }
    assert!(expected(64, 40)[0] != 0 && expected(64, 40)[63] == 0 && expected(-8, -3)[0] == 0);
}

#[test]
fn mbarrier_transactions_flip_the_phase_each_round() {
    // Two rounds: the second waits on parity 1 and reads the box 8 columns further.
    let text = load_ptx();
    let got = run_load(&text, Swizzle::B64, true, 0, 10, 2).unwrap();
    assert_eq!(got[..4096], expected(0, 10)[..]);
    assert_eq!(got[4096..], expected(8, 10)[..]);
}

#[test]
fn waiting_on_the_wrong_parity_deadlocks() {
    let text = load_ptx().replace("and.b32 %r31, %r30, 1;", "xor.b32 %r31, %r30, 1;");
    let e = run_load(&text, Swizzle::B128, true, 0, 0, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("mbarrier at shared 0x0: phase 1, 1 of 1 arrival(s) pending, tx-count 0"), "{e}");
}

#[test]
fn expecting_more_bytes_than_the_boxes_bring_deadlocks_with_the_tx_count() {
    let text = load_ptx().replace("[%r6], 8192;", "[%r6], 8208;");
    let e = run_load(&text, Swizzle::None, true, 0, 0, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("phase 0, 0 of 1 arrival(s) pending, tx-count 16"), "{e}");
}

#[test]
fn tma_misuse_is_reported_with_the_ptx_line() {
    let line_of = |text: &str| text.lines().position(|l| l.starts_with("cp.async.bulk.tensor")).unwrap() as u32 + 1;
    // A box larger than the shared allocation.
    let text = load_ptx().replace("buf[8192]", "buf[4096]");
    let e = run_load(&text, Swizzle::B128, true, 0, 0, 1).unwrap_err();
    assert_eq!((e.kind.clone(), e.line), (ErrorKind::Memory, line_of(&text)), "{e}");
    assert!(e.message.contains("the box of 8192 byte(s) (64x64) at shared 0x400 runs 4096 byte(s) past the CTA's 5120 byte(s) of shared memory"), "{e}");
    // Misaligned destination for the 128-byte swizzle (aligned enough without a swizzle).
    let text = LOAD.replace("DST", "128");
    let e = run_load(&text, Swizzle::B128, true, 0, 0, 1).unwrap_err();
    assert!(e.kind == ErrorKind::Memory && e.message.contains("is not 1024-byte aligned (the repeat of the B128 swizzle)"), "{e}");
    let text = LOAD.replace("DST", "16");
    let e = run_load(&text, Swizzle::None, true, 0, 0, 1).unwrap_err();
    assert!(e.message.contains("is not 128-byte aligned"), "{e}");
    // A map that does not decode, and a parameter-space (not generic) map address.
    let p = Module::parse(&load_ptx()).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0u8; 8192])];
    let args = [Arg::Bytes(vec![0; 128]), Arg::Buffer(0, 0), Arg::U32(0), Arg::U32(0), Arg::U32(64), Arg::U32(0), Arg::U32(1)];
    let e = run(&p, &cfg(128), &args, &mut bufs).unwrap_err();
    assert_eq!((e.kind.clone(), e.line), (ErrorKind::Undefined, line_of(&load_ptx())), "{e}");
    assert!(e.message.contains("version field"), "{e}");
    let text = load_ptx().replace("cvta.param.u64 %rd2, %rd1;", "mov.u64 %rd2, %rd1;");
    let e = run_load(&text, Swizzle::None, true, 0, 0, 1).unwrap_err();
    assert!(e.message.contains("cvta.param"), "{e}");
    // A map whose in-bounds elements lie outside every buffer (dims larger than the data).
    let p = Module::parse(&load_ptx()).unwrap().kernel(None).unwrap();
    let map = TensorMap::dense(0, DataType::F16, &[GW, GH + 8], &[64, 64], Swizzle::None);
    let mut bufs = vec![Buffer::new("in", bytes16(&input())), Buffer::new("out", vec![0u8; 8192])];
    let args = [Arg::TensorMap(0, map), Arg::Buffer(1, 0), Arg::U32(0), Arg::U32(40), Arg::U32(64), Arg::U32(0), Arg::U32(1)];
    let e = run(&p, &cfg(128), &args, &mut bufs).unwrap_err();
    assert!(e.kind == ErrorKind::Memory && e.message.contains("element (0, 80) of the tensor") && e.message.contains("past the end of 'in'"), "{e}");
    // A rank mismatch between the instruction and the map.
    let map = TensorMap::dense(0, DataType::F16, &[GW, GH, 1], &[64, 64, 1], Swizzle::None);
    let mut bufs = vec![Buffer::new("in", bytes16(&input())), Buffer::new("out", vec![0u8; 8192])];
    let args = [Arg::TensorMap(0, map), Arg::Buffer(1, 0), Arg::U32(0), Arg::U32(0), Arg::U32(64), Arg::U32(0), Arg::U32(1)];
    let e = run(&p, &cfg(128), &args, &mut bufs).unwrap_err();
    assert!(e.message.contains("a 2-d copy through a rank-3 tensor map"), "{e}");
    // An invalid map given to the launch.
    let map = TensorMap::dense(8, DataType::F16, &[GW, GH], &[64, 64], Swizzle::None);
    let args = [Arg::TensorMap(0, map), Arg::Buffer(1, 0), Arg::U32(0), Arg::U32(0), Arg::U32(64), Arg::U32(0), Arg::U32(1)];
    let e = run(&p, &cfg(128), &args, &mut bufs).unwrap_err();
    assert!(e.kind == ErrorKind::Launch && e.message.contains("parameter 'tmap'") && e.message.contains("16-byte aligned"), "{e}");
}

/// Thread 0 loads the box at (xa, ya) of map A into `buf`, waits, then stores `buf` as the
/// box at (xb, yb) of map B and waits for the bulk group.
const STORE: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 1024 .b8 buf[8192];
.shared .align 8 .b8 bar[8];
.visible .entry tma_store(.param .align 64 .b8 ta[128], .param .align 64 .b8 tb[128], .param .u32 xa, .param .u32 ya, .param .u32 xb, .param .u32 yb)
{
.reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<10>;
mov.u64 %rd1, ta;
cvta.param.u64 %rd2, %rd1;
mov.u64 %rd3, tb;
cvta.param.u64 %rd4, %rd3;
ld.param.u32 %r1, [xa];
ld.param.u32 %r2, [ya];
ld.param.u32 %r3, [xb];
ld.param.u32 %r4, [yb];
mov.u32 %r5, %tid.x;
mov.u32 %r6, bar;
mov.u32 %r7, buf;
setp.ne.u32 %p1, %r5, 0;
@%p1 bra $L_end;
mbarrier.init.shared.b64 [%r6], 1;
mbarrier.arrive.expect_tx.shared.b64 %rd5, [%r6], 8192;
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r7], [%rd2, {%r1, %r2}], [%r6];
$L_spin:
mbarrier.try_wait.parity.shared.b64 %p2, [%r6], 0;
@!%p2 bra $L_spin;
fence.proxy.async.shared::cta;
cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd4, {%r3, %r4}], [%r7];
cp.async.bulk.commit_group;
cp.async.bulk.wait_group.read 0;
$L_end:
ret;
}
"#;

#[test]
fn tma_store_round_trip_writes_only_inside_the_tensor() {
    let p = Module::parse(STORE).unwrap().kernel(None).unwrap();
    // B: a 40x30 tensor inside a 104x80 buffer of sentinels (row stride 208 bytes).
    const S: u16 = 0xabcd;
    for (sw, (xa, ya), (xb, yb)) in [(Swizzle::B128, (8i64, 4i64), (24i64, 20i64)), (Swizzle::None, (64, 40), (-10, -5)), (Swizzle::B128, (0, 0), (0, 0))] {
        let ma = TensorMap::dense(0, DataType::F16, &[GW, GH], &[64, 64], sw);
        let mut mb = TensorMap::dense(0, DataType::F16, &[40, 30], &[64, 64], sw);
        mb.strides_bytes[0] = GW * 2;
        let mut bufs = vec![Buffer::new("a", bytes16(&input())), Buffer::new("b", bytes16(&vec![S; (GW * GH) as usize]))];
        let args = [Arg::TensorMap(0, ma), Arg::TensorMap(1, mb), Arg::U32(xa as u32), Arg::U32(ya as u32), Arg::U32(xb as u32), Arg::U32(yb as u32)];
        run(&p, &cfg(32), &args, &mut bufs).unwrap_or_else(|e| panic!("{sw:?}: {e}"));
        let b = words16(&bufs[1].data);
        let tile = expected(xa, ya);
        for gy in 0..GH as i64 {
            for gx in 0..GW as i64 {
                let (x, y) = (gx - xb, gy - yb);
                let inside_tensor = gx < 40 && gy < 30;
                let inside_box = (0..64).contains(&x) && (0..64).contains(&y);
                let want = if inside_tensor && inside_box { tile[(y * 64 + x) as usize] } else { S };
                assert_eq!(b[(gy * GW as i64 + gx) as usize], want, "{sw:?} element ({gx}, {gy})");
            }
        }
    }
}

#[test]
fn tma_decode_rejects_unsupported_forms() {
    let text = STORE.replace(".2d.global.shared::cta.tile.bulk_group", ".2d.global.shared::cta.im2col.bulk_group");
    let e = Module::parse(&text).unwrap().kernel(None).unwrap_err();
    assert!(e.kind == ErrorKind::Decode && e.message.contains("im2col"), "{e}");
    let text = STORE.replace("[%rd4, {%r3, %r4}], [%r7];", "[%rd4, {%r3}], [%r7];");
    let e = Module::parse(&text).unwrap().kernel(None).unwrap_err();
    assert!(e.message.contains("2-d copy with 1 coordinate(s)"), "{e}");
}

#[test]
fn nan_fill_and_element_strides() {
    let p = Module::parse(&load_ptx()).unwrap().kernel(None).unwrap();
    // NaN fill: elements outside the tensor read as all-ones f16 (a NaN).
    let mut map = TensorMap::dense(0, DataType::F16, &[GW, GH], &[64, 64], Swizzle::B128);
    map.oob_fill = OobFill::NanRequestZeroFma;
    let mut bufs = vec![Buffer::new("in", bytes16(&input())), Buffer::new("out", vec![0u8; 8192])];
    let args = [Arg::TensorMap(0, map), Arg::Buffer(1, 0), Arg::U32(64), Arg::U32(40), Arg::U32(64), Arg::U32(0x70), Arg::U32(1)];
    run(&p, &cfg(128), &args, &mut bufs).unwrap();
    let want: Vec<u16> = expected(64, 40).iter().enumerate().map(|(i, &v)| if 64 + i % 64 >= GW as usize || 40 + i / 64 >= GH as usize { 0xffff } else { v }).collect();
    assert_eq!(words16(&bufs[1].data), want);
    // Element stride 2 along rows: a 64x128 box brings 64 rows, every other one, and 8192
    // bytes (the transaction count the kernel expects).
    let mut map = TensorMap::dense(0, DataType::F16, &[GW, GH], &[64, 128], Swizzle::None);
    map.element_strides[1] = 2;
    let mut bufs = vec![Buffer::new("in", bytes16(&input())), Buffer::new("out", vec![0u8; 8192])];
    let args = [Arg::TensorMap(0, map), Arg::Buffer(1, 0), Arg::U32(4), Arg::U32(1), Arg::U32(64), Arg::U32(0), Arg::U32(1)];
    run(&p, &cfg(128), &args, &mut bufs).unwrap();
    let inp = input();
    let got = words16(&bufs[1].data);
    for y in 0..64u64 {
        for x in 0..64u64 {
            let gy = 1 + 2 * y;
            let want = if gy < GH && 4 + x < GW { inp[(gy * GW + 4 + x) as usize] } else { 0 };
            assert_eq!(got[(y * 64 + x) as usize], want, "({x}, {y})");
        }
    }
}

/// Race check: a TMA store reads its shared-memory source until a
/// cp.async.bulk.wait_group{.read} retires its group, so writing the source before that is
/// a race; after it the same thread may write (other threads need a barrier too).
#[test]
fn overwriting_a_tma_store_source_before_its_wait_is_a_race() {
    let p = |text: &str| Module::parse(text).unwrap().kernel(None).unwrap();
    let go = |text: &str, race_check: bool| {
        let ma = TensorMap::dense(0, DataType::F16, &[GW, GH], &[64, 64], Swizzle::B128);
        let mb = TensorMap::dense(0, DataType::F16, &[GW, GH], &[64, 64], Swizzle::B128);
        let mut bufs = vec![Buffer::new("a", bytes16(&input())), Buffer::new("b", bytes16(&vec![0; (GW * GH) as usize]))];
        let args = [Arg::TensorMap(0, ma), Arg::TensorMap(1, mb), Arg::U32(0), Arg::U32(0), Arg::U32(0), Arg::U32(0)];
        let config = LaunchConfig { options: Options { race_check, ..Options::default() }, ..cfg(32) };
        run(&p(text), &config, &args, &mut bufs)
    };
    let wait = "cp.async.bulk.wait_group.read 0;\n";
    let overwrite = "st.shared.b32 [%r7+64], %r5;\n";
    let early = STORE.replace(wait, &format!("{overwrite}{wait}"));
    go(&early, false).unwrap();
    let e = go(&early, true).unwrap_err();
    assert!(
        e.message.contains("to shared byte 0x40, which the bulk copy at PTX line 29 still reads (no cp.async.bulk.wait_group has retired it yet)"),
        "{e}"
    );
    // A wait on a later group leaves this one in flight; waiting for all retires it.
    let later = STORE.replace(wait, "cp.async.bulk.wait_group.read 1;\n").replace("$L_end:", &format!("{overwrite}$L_end:"));
    assert!(go(&later, true).unwrap_err().message.contains("still reads"));
    go(&STORE.replace("$L_end:", &format!("{overwrite}$L_end:")), true).unwrap();
}

/// Race check: a TMA copy's bytes are written by the async proxy, which only the mbarrier
/// the copy completes orders before a reader; a CTA barrier does not wait for a copy. One
/// thread's wait, then a barrier, orders every thread (barriers are cumulative).
#[test]
fn tma_data_is_ordered_by_its_mbarrier_not_by_a_barrier() {
    let run_checked = |text: &str| {
        let p = Module::parse(text).unwrap().kernel(None).unwrap();
        let (w, _) = swizzle_case(Swizzle::B128);
        let map = TensorMap::dense(0, DataType::F16, &[GW, GH], &[w, 64], Swizzle::B128);
        let mut bufs = vec![Buffer::new("in", bytes16(&input())), Buffer::new("out", vec![0u8; 8192])];
        let args = [Arg::TensorMap(0, map), Arg::Buffer(1, 0), Arg::U32(0), Arg::U32(0), Arg::U32(w), Arg::U32(0), Arg::U32(1)];
        let config = LaunchConfig { options: Options { race_check: true, ..Options::default() }, ..cfg(128) };
        run(&p, &config, &args, &mut bufs)
    };
    let spin = "$L_spin:\nmbarrier.try_wait.parity.shared.b64 %p3, [%r6], %r31;\n@!%p3 bra $L_spin;\n";
    assert!(load_ptx().contains(spin));
    // Nobody waits on the mbarrier; a barrier after the issue does not order the copy.
    let e = run_checked(&load_ptx().replace(spin, "bar.sync 0;\n")).unwrap_err();
    assert!(e.message.contains("by the async proxy (a TMA copy) of CTA (0,0,0), with no barrier"), "{e}");
    // Thread 0 waits, then a barrier: every thread is ordered after the copy.
    let one_waits = load_ptx().replace(spin, &format!("@!%p4 bra $L_waited;\n{spin}$L_waited:\nbar.sync 0;\n"));
    run_checked(&one_waits).unwrap();
    run_checked(&load_ptx()).unwrap();
}
