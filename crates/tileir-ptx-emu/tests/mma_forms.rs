//! mma.sync forms beyond f16/bf16 (and the cvt the int8 FMA fallback needs): m16n8k8 tf32,
//! m16n8k32 s8/u8 (wrapping s32 accumulator)
//! and m16n8k32 e4m3/e5m2. Each lane loads its fragment registers from global memory, packed
//! on the host per the PTX ISA's fragment tables (written out independently of the emulator's
//! formulas), and the result is checked against a host matmul.
#![allow(clippy::needless_range_loop)] // index loops mirror the matrix formulas

use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};
use tileir_ptx_emu::{run, Arg, Buffer, LaunchConfig, Module, Options};

/// A kernel that runs one `mma` (`inst`: the full opcode) on registers loaded from
/// `[A|B|C] + (reg * 32 + lane) * 4` and stores D the same way.
fn kernel(inst: &str) -> String {
    format!(
        r#".version 8.6
.target sm_90a
.address_size 64
.visible .entry mm(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
.reg .b32 %r<40>; .reg .b64 %rd<20>;
ld.param.b64 %rd1, [pa];
ld.param.b64 %rd2, [pb];
ld.param.b64 %rd3, [pc];
ld.param.b64 %rd4, [pd];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd1, %rd5;
ld.global.b32 %r2, [%rd6];
ld.global.b32 %r3, [%rd6+128];
ld.global.b32 %r4, [%rd6+256];
ld.global.b32 %r5, [%rd6+384];
add.s64 %rd7, %rd2, %rd5;
ld.global.b32 %r6, [%rd7];
ld.global.b32 %r7, [%rd7+128];
add.s64 %rd8, %rd3, %rd5;
ld.global.b32 %r8, [%rd8];
ld.global.b32 %r9, [%rd8+128];
ld.global.b32 %r10, [%rd8+256];
ld.global.b32 %r11, [%rd8+384];
{inst} {{%r12, %r13, %r14, %r15}}, {{%r2, %r3, %r4, %r5}}, {{%r6, %r7}}, {{%r8, %r9, %r10, %r11}};
add.s64 %rd9, %rd4, %rd5;
st.global.b32 [%rd9], %r12;
st.global.b32 [%rd9+128], %r13;
st.global.b32 [%rd9+256], %r14;
st.global.b32 [%rd9+384], %r15;
ret;
}}
"#
    )
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `inst` with fragment words `a` (4 x 32), `b` (2 x 32), `c` (4 x 32); D's words.
fn run_mma(inst: &str, a: &[u32], b: &[u32], c: &[u32]) -> Vec<u32> {
    let mut bufs = vec![Buffer::new("A", words(a)), Buffer::new("B", words(b)), Buffer::new("C", words(c)), Buffer::new("D", vec![0u8; 512])];
    let p = Module::parse(&kernel(inst)).unwrap().kernel(None).unwrap();
    let cfg = LaunchConfig { grid: [1, 1, 1], block: [32, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() };
    run(&p, &cfg, &[Arg::Buffer(0, 0), Arg::Buffer(1, 0), Arg::Buffer(2, 0), Arg::Buffer(3, 0)], &mut bufs).unwrap();
    bufs[3].data.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect()
}

/// The accumulator table (c0..c3): row groupID (+8 for c2, c3), column 2·tig + (i & 1).
fn c_rc(lane: usize, i: usize) -> (usize, usize) {
    (lane / 4 + if i >= 2 { 8 } else { 0 }, (lane % 4) * 2 + (i & 1))
}

fn pack_c(c: &[[u32; 8]; 16]) -> Vec<u32> {
    let mut out = vec![0u32; 128];
    for lane in 0..32 {
        for i in 0..4 {
            let (r, col) = c_rc(lane, i);
            out[i * 32 + lane] = c[r][col];
        }
    }
    out
}

fn unpack_d(d: &[u32]) -> [[u32; 8]; 16] {
    let mut out = [[0u32; 8]; 16];
    for lane in 0..32 {
        for i in 0..4 {
            let (r, col) = c_rc(lane, i);
            out[r][col] = d[i * 32 + lane];
        }
    }
    out
}

#[test]
fn tf32_m16n8k8_ignores_the_padding_bits() {
    // A 16x8, B 8x8: small integers (exact sums) with junk in the 13 padding bits.
    let junk = |i: usize| (i as u32).wrapping_mul(2654435761) & 0x1fff;
    let av = |r: usize, k: usize| ((r * 3 + k * 5) % 9) as f32 - 4.0;
    let bv = |k: usize, n: usize| ((k * 7 + n) % 5) as f32 * 0.5 - 1.0;
    let bits = |x: f32, i: usize| x.to_bits() | if x != 0.0 { junk(i) } else { 0 };
    // PTX ISA, m16n8k8 .tf32: a_i row groupID (i = 0, 2) or groupID + 8 (i = 1, 3), column
    // threadID_in_group (i < 2) or + 4; b_i row threadID_in_group (+ 4 for b1), column groupID.
    let (mut a, mut b) = (vec![0u32; 128], vec![0u32; 64]);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            let (r, k) = (if i % 2 == 0 { g } else { g + 8 }, if i < 2 { t } else { t + 4 });
            a[i * 32 + lane] = bits(av(r, k), i * 32 + lane);
        }
        for i in 0..2 {
            let k = if i == 0 { t } else { t + 4 };
            b[i * 32 + lane] = bits(bv(k, g), 7 * lane + i);
        }
    }
    let mut c = [[0u32; 8]; 16];
    for r in 0..16 {
        for n in 0..8 {
            c[r][n] = ((r * 8 + n) as f32 * 0.25).to_bits();
        }
    }
    let d = unpack_d(&run_mma("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", &a, &b, &pack_c(&c)));
    for r in 0..16 {
        for n in 0..8 {
            let want = f32::from_bits(c[r][n]) + (0..8).map(|k| av(r, k) * bv(k, n)).sum::<f32>();
            assert_eq!(f32::from_bits(d[r][n]), want, "D[{r}][{n}]");
        }
    }
}

/// A and B fragments of an m16n8k32 8-bit mma from byte matrices A (16x32), B (32x8).
/// PTX ISA: a_i (i = 0..16, four per register) row groupID for i < 4 and 8 <= i < 12, else
/// groupID + 8; column threadID_in_group * 4 + (i & 3), + 16 for i >= 8. b_i (i = 0..8) row
/// threadID_in_group * 4 + (i & 3), + 16 for i >= 4; column groupID.
fn pack_k32(am: &[[u8; 32]; 16], bm: &[[u8; 8]; 32]) -> (Vec<u32>, Vec<u32>) {
    let (mut a, mut b) = (vec![0u32; 128], vec![0u32; 64]);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..16 {
            let r = if i < 4 || (8..12).contains(&i) { g } else { g + 8 };
            let k = t * 4 + (i & 3) + if i >= 8 { 16 } else { 0 };
            a[(i / 4) * 32 + lane] |= (am[r][k] as u32) << (8 * (i % 4));
        }
        for i in 0..8 {
            let k = t * 4 + (i & 3) + if i >= 4 { 16 } else { 0 };
            b[(i / 4) * 32 + lane] |= (bm[k][g] as u32) << (8 * (i % 4));
        }
    }
    (a, b)
}

#[test]
fn int8_m16n8k32_each_signedness_wraps_like_s32() {
    let mut am = [[0u8; 32]; 16];
    let mut bm = [[0u8; 8]; 32];
    for r in 0..16 {
        for k in 0..32 {
            am[r][k] = ((r * 37 + k * 101 + 3) % 256) as u8;
        }
    }
    for k in 0..32 {
        for n in 0..8 {
            bm[k][n] = ((k * 59 + n * 17 + 200) % 256) as u8;
        }
    }
    let mut c = [[0u32; 8]; 16];
    for r in 0..16 {
        for n in 0..8 {
            // Near the ends of the i32 range, so that unsigned products wrap.
            c[r][n] = if (r + n) % 2 == 0 { i32::MAX as u32 - (r * 8 + n) as u32 } else { i32::MIN as u32 + (r * 8 + n) as u32 };
        }
    }
    let (a, b) = pack_k32(&am, &bm);
    let mut wrapped = false;
    for (sa, sb) in [("s8", "s8"), ("s8", "u8"), ("u8", "s8"), ("u8", "u8")] {
        let read = |x: u8, s: &str| if s == "s8" { x as i8 as i32 } else { x as i32 };
        let inst = format!("mma.sync.aligned.m16n8k32.row.col.s32.{sa}.{sb}.s32");
        let d = unpack_d(&run_mma(&inst, &a, &b, &pack_c(&c)));
        for r in 0..16 {
            for n in 0..8 {
                let exact: i64 = c[r][n] as i32 as i64 + (0..32).map(|k| read(am[r][k], sa) as i64 * read(bm[k][n], sb) as i64).sum::<i64>();
                wrapped |= exact != exact as i32 as i64;
                assert_eq!(d[r][n] as i32, exact as i32, "{inst}: D[{r}][{n}]");
            }
        }
    }
    assert!(wrapped, "the data should overflow s32 somewhere");
}

#[test]
fn fp8_m16n8k32_mixed_formats() {
    let e4 = |x: f64| encode(FloatFormat::F8E4M3FN, x, Rounding::NearestEven, Saturation::None) as u8;
    let e5 = |x: f64| encode(FloatFormat::F8E5M2, x, Rounding::NearestEven, Saturation::None) as u8;
    let mut am = [[0u8; 32]; 16];
    let mut bm = [[0u8; 8]; 32];
    for r in 0..16 {
        for k in 0..32 {
            am[r][k] = e4(((r * 5 + k * 3) % 13) as f64 * 0.5 - 3.0);
        }
    }
    for k in 0..32 {
        for n in 0..8 {
            bm[k][n] = e5(((k + n * 7) % 7) as f64 - 3.0);
        }
    }
    let c = [[1.5f32.to_bits(); 8]; 16];
    let (a, b) = pack_k32(&am, &bm);
    let d = unpack_d(&run_mma("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", &a, &b, &pack_c(&c)));
    for r in 0..16 {
        for n in 0..8 {
            let want = 1.5 + (0..32).map(|k| decode(FloatFormat::F8E4M3FN, am[r][k] as u64) * decode(FloatFormat::F8E5M2, bm[k][n] as u64)).sum::<f64>();
            assert_eq!(f32::from_bits(d[r][n]), want as f32, "D[{r}][{n}]");
        }
    }
}

#[test]
fn satfinite_and_mismatched_accumulators_are_unsupported() {
    for inst in ["mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", "mma.sync.aligned.m16n8k8.row.col.f16.tf32.tf32.f16", "mma.sync.aligned.m16n8k32.row.col.f32.s8.s8.f32"] {
        let err = Module::parse(&kernel(inst)).and_then(|m| m.kernel(None).map(|_| ())).unwrap_err();
        assert!(err.to_string().contains("unsupported mma form"), "{inst}: {err}");
    }
}

/// The int8 FMA fallback of `mmai` sign-extends bytes with `cvt.s8.s32` into a 16-bit
/// register before `mul.wide.s16`: a signed narrow cvt result fills the wider register.
#[test]
fn cvt_to_s8_sign_extends_into_wider_registers() {
    let src = r#".version 8.6
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 pd)
{
.reg .b16 %rs<4>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
ld.param.b64 %rd1, [pd];
mov.b32 %r1, 0x1ff;
cvt.s8.s32 %rs1, %r1;
mov.b16 %rs2, 3;
mul.wide.s16 %r2, %rs1, %rs2;
cvt.s8.s32 %r3, %r1;
cvt.u8.s32 %rs3, %r1;
mul.wide.s16 %r4, %rs3, %rs2;
cvt.s16.s32 %r5, %r1;
st.global.b32 [%rd1], %r2;
st.global.b32 [%rd1+4], %r3;
st.global.b32 [%rd1+8], %r4;
st.global.b32 [%rd1+12], %r5;
ret;
}
"#;
    let mut bufs = vec![Buffer::new("D", vec![0u8; 16])];
    let p = Module::parse(src).unwrap().kernel(None).unwrap();
    let cfg = LaunchConfig { grid: [1, 1, 1], block: [1, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() };
    run(&p, &cfg, &[Arg::Buffer(0, 0)], &mut bufs).unwrap();
    let d: Vec<i32> = bufs[0].data.chunks(4).map(|w| i32::from_le_bytes(w.try_into().unwrap())).collect();
    assert_eq!(d, vec![-3, -1, 765, 0x1ff]);
}
