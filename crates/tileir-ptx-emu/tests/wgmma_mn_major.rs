//! `wgmma.mma_async` with MN-major (transposed) shared-memory operands: imm-trans-a /
//! imm-trans-b = 1 for f16/bf16, through matrix descriptors in the interleaved (no swizzle)
//! and 32/64/128-byte swizzled layouts, checked against a host matmul. The host packing
//! below follows the ISA's canonical-layout figures (core matrices / swizzle atoms of 8
//! K-rows, 16-byte chunks permuted per row), not the emulator's address function.
#![allow(clippy::needless_range_loop)] // index loops mirror the matrix formulas

use tileir_numeric::{encode, FloatFormat, Rounding, Saturation};
use tileir_ptx_emu::{run, Arg, Buffer, LaunchConfig, Module, Options};

const M: usize = 64;
const N: usize = 32;
const K: usize = 16;

/// A warpgroup copies a shared-memory image in, runs one m64n32k16 wgmma (A from a
/// descriptor, or from registers loaded row-major out of `areg` when `rs`), and stores D
/// (64x32 f32) row-major.
fn kernel(ty: &str, ta: u32, tb: u32, rs: bool) -> String {
    let d: Vec<String> = (1..=16).map(|i| format!("%f{i}")).collect();
    let mut stores = String::new();
    for j in 0..N / 8 {
        let (lo, hi) = (4 * j + 1, 4 * j + 3);
        stores += &format!("st.global.v2.f32 [%rd10+{}], {{%f{lo}, %f{}}};\n", 32 * j, lo + 1);
        stores += &format!("st.global.v2.f32 [%rd10+{}], {{%f{hi}, %f{}}};\n", 32 * j + 8 * N * 4, hi + 1);
    }
    // RS: lane (g, t) of warp w holds A[16w+g(+8)][2t(+1)(+8)] as in the mma.sync A fragment.
    let (a_load, a_op, imms) = if rs {
        (
            "shl.b32 %r13, %r10, 5;\nadd.s32 %r13, %r13, %r12;\ncvt.u64.u32 %rd11, %r13;\nadd.s64 %rd11, %rd5, %rd11;\n\
             ld.global.b32 %r20, [%rd11];\nld.global.b32 %r21, [%rd11+256];\nld.global.b32 %r22, [%rd11+16];\nld.global.b32 %r23, [%rd11+272];\n",
            "{%r20, %r21, %r22, %r23}".to_string(),
            format!("1, 1, {tb}"),
        )
    } else {
        ("", "%rd2".to_string(), format!("1, 1, {ta}, {tb}"))
    };
    format!(
        r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 1024 .b8 sm[8192];
.visible .entry wg(.param .u64 img, .param .u32 nbytes, .param .u64 da, .param .u64 db, .param .u64 out, .param .u64 areg)
.reqntid 128, 1, 1
{{
.reg .pred %p<3>; .reg .b32 %r<32>; .reg .b64 %rd<16>; .reg .f32 %f<17>;
ld.param.b64 %rd1, [img];
ld.param.b32 %r1, [nbytes];
ld.param.b64 %rd2, [da];
ld.param.b64 %rd3, [db];
ld.param.b64 %rd4, [out];
ld.param.b64 %rd5, [areg];
mov.u32 %r2, %tid.x;
shl.b32 %r3, %r2, 4;
mov.u32 %r4, sm;
$L_copy:
setp.ge.u32 %p1, %r3, %r1;
@%p1 bra $L_done;
cvt.u64.u32 %rd6, %r3;
add.s64 %rd7, %rd1, %rd6;
ld.global.v2.b64 {{%rd8, %rd9}}, [%rd7];
add.s32 %r5, %r4, %r3;
st.shared.v2.b64 [%r5], {{%rd8, %rd9}};
add.s32 %r3, %r3, 2048;
bra.uni $L_copy;
$L_done:
bar.sync 0;
shr.u32 %r6, %r2, 5;
and.b32 %r7, %r2, 31;
shr.u32 %r8, %r7, 2;
and.b32 %r9, %r7, 3;
shl.b32 %r10, %r6, 4;
add.s32 %r10, %r10, %r8;
shl.b32 %r12, %r9, 2;
{a_load}wgmma.fence.sync.aligned;
setp.ne.b32 %p2, 0, 0;
wgmma.mma_async.sync.aligned.m64n32k16.f32.{ty}.{ty} {{{}}}, {a_op}, %rd3, %p2, {imms};
wgmma.commit_group.sync.aligned;
wgmma.wait_group.sync.aligned 0;
mul.lo.u32 %r11, %r10, {N};
shl.b32 %r14, %r9, 1;
add.s32 %r11, %r11, %r14;
mul.wide.u32 %rd12, %r11, 4;
add.s64 %rd10, %rd4, %rd12;
{stores}ret;
}}
"#,
        d.join(", ")
    )
}

/// Where the operand lives in shared memory.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// K-major, no swizzle: 8 rows x 16 bytes core matrices, LBO along K, SBO along rows.
    KMajor { lbo: u64, sbo: u64 },
    /// MN-major, no swizzle (interleave): core matrices of 8 K-rows x 16 bytes (8 MN
    /// elements), LBO between groups of 8 K, SBO between groups of 8 MN.
    MnInterleave { lbo: u64, sbo: u64 },
    /// MN-major with a `width`-byte swizzle: atoms of 8 K-rows x `width` bytes, LBO between
    /// atoms along MN, SBO between groups of 8 K.
    MnSwizzle { width: u64, lbo: u64, sbo: u64 },
}

impl Layout {
    fn transposed(self) -> bool {
        !matches!(self, Layout::KMajor { .. })
    }

    fn desc(self, start: u64) -> u64 {
        let (lbo, sbo, mode) = match self {
            Layout::KMajor { lbo, sbo } | Layout::MnInterleave { lbo, sbo } => (lbo, sbo, 0),
            Layout::MnSwizzle { width, lbo, sbo } => (lbo, sbo, match width { 128 => 1, 64 => 2, _ => 3 }),
        };
        (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62)
    }

    /// Byte offset of element (`mn`, `k`) from a 1024-byte aligned operand start.
    fn offset(self, mn: usize, k: usize) -> u64 {
        let (mn, k) = (mn as u64, k as u64);
        match self {
            Layout::KMajor { lbo, sbo } => (mn / 8) * sbo + (k / 8) * lbo + (mn % 8) * 16 + (k % 8) * 2,
            Layout::MnInterleave { lbo, sbo } => {
                // One core matrix: 128 contiguous bytes, K-row r at 16 r.
                let core = (mn / 8) * sbo + (k / 8) * lbo;
                core + (k % 8) * 16 + (mn % 8) * 2
            }
            Layout::MnSwizzle { width, lbo, sbo } => {
                let per_row = width / 2; // elements along MN in one atom row
                let atom = (mn / per_row) * lbo + (k / 8) * sbo;
                let row = k % 8;
                let byte = (mn % per_row) * 2;
                let (chunk, within) = (byte / 16, byte % 16);
                // The ISA's swizzle figures: 16-byte chunk c of row r goes to c XOR f(r), where
                // the pattern repeats every 128 bytes of address: f(r) = r (128B), r/2 (64B), r/4 (32B).
                let f = match width {
                    128 => row,
                    64 => row / 2,
                    _ => row / 4,
                };
                atom + row * width + (chunk ^ f) * 16 + within
            }
        }
    }
}

fn enc(ty: &str, x: f64) -> [u8; 2] {
    let f = if ty == "f16" { FloatFormat::F16 } else { FloatFormat::BF16 };
    (encode(f, x, Rounding::NearestEven, Saturation::None) as u16).to_le_bytes()
}

/// Runs D = A·B with A (64x16) laid out by `la` at 0 (or in registers when `la` is None)
/// and B (16x32, stored as b[n][k]) by `lb` at 4096; compares with the host product.
fn case(ty: &str, la: Option<Layout>, lb: Layout) {
    let a: Vec<Vec<f64>> = (0..M).map(|m| (0..K).map(|k| ((m * 5 + k * 3) % 11) as f64 - 5.0).collect()).collect();
    let b: Vec<Vec<f64>> = (0..N).map(|n| (0..K).map(|k| ((n * 7 + k * 2 + n / 8) % 9) as f64 * 0.5 - 2.0).collect()).collect();
    let mut image = vec![0u8; 8192];
    let mut put = |addr: u64, x: f64| image[addr as usize..addr as usize + 2].copy_from_slice(&enc(ty, x));
    if let Some(la) = la {
        for m in 0..M {
            for k in 0..K {
                put(la.offset(m, k), a[m][k]);
            }
        }
    }
    for n in 0..N {
        for k in 0..K {
            put(4096 + lb.offset(n, k), b[n][k]);
        }
    }
    let areg: Vec<u8> = a.iter().flatten().flat_map(|&x| enc(ty, x)).collect();
    let text = kernel(ty, la.is_some_and(|l| l.transposed()) as u32, lb.transposed() as u32, la.is_none());
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("img", image), Buffer::new("out", vec![0u8; M * N * 4]), Buffer::new("areg", areg)];
    let da = la.map_or(0, |l| l.desc(0));
    let cfg = LaunchConfig { grid: [1, 1, 1], block: [128, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() };
    let args = [Arg::Buffer(0, 0), Arg::U32(8192), Arg::U64(da), Arg::U64(lb.desc(4096)), Arg::Buffer(1, 0), Arg::Buffer(2, 0)];
    run(&p, &cfg, &args, &mut bufs).unwrap_or_else(|e| panic!("{ty} {la:?} {lb:?}: {e}"));
    let d: Vec<f32> = bufs[1].data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    for m in 0..M {
        for n in 0..N {
            let s: f64 = (0..K).map(|k| a[m][k] * b[n][k]).sum();
            assert_eq!(d[m * N + n], s as f32, "{ty} A {la:?} B {lb:?}: D[{m}][{n}]");
        }
    }
}

const K_MAJOR: Layout = Layout::KMajor { lbo: 128, sbo: 256 };

/// A (64 M x 16 K) in each MN-major layout: 2 K-groups, and 1 (128B), 2 (64B), 4 (32B)
/// or 8 (interleave) MN blocks.
fn a_layouts() -> [Layout; 4] {
    [
        Layout::MnInterleave { lbo: 1024, sbo: 128 },
        Layout::MnSwizzle { width: 32, lbo: 256, sbo: 1024 },
        Layout::MnSwizzle { width: 64, lbo: 1024, sbo: 512 },
        Layout::MnSwizzle { width: 128, lbo: 2048, sbo: 1024 },
    ]
}

/// B (32 N x 16 K) in each MN-major layout.
fn b_layouts() -> [Layout; 4] {
    [
        Layout::MnInterleave { lbo: 128, sbo: 256 },
        Layout::MnSwizzle { width: 32, lbo: 256, sbo: 512 },
        Layout::MnSwizzle { width: 64, lbo: 2048, sbo: 512 },
        Layout::MnSwizzle { width: 128, lbo: 2048, sbo: 1024 },
    ]
}

#[test]
fn m_major_a_every_layout() {
    for ty in ["bf16", "f16"] {
        for la in a_layouts() {
            case(ty, Some(la), K_MAJOR);
        }
    }
}

#[test]
fn n_major_b_every_layout() {
    for ty in ["bf16", "f16"] {
        for lb in b_layouts() {
            case(ty, Some(K_MAJOR), lb);
        }
    }
}

#[test]
fn both_transposed_every_layout_pair() {
    for la in a_layouts() {
        for lb in b_layouts() {
            case("bf16", Some(la), lb);
        }
    }
}

#[test]
fn register_a_with_n_major_b() {
    for lb in b_layouts() {
        case("f16", None, lb);
    }
}

#[test]
fn fp8_transpose_is_rejected() {
    let text = kernel("e4m3", 1, 0, false).replace("m64n32k16", "m64n32k32");
    let e = Module::parse(&text).unwrap().kernel(None).unwrap_err();
    assert!(e.message.contains("only for f16/bf16"), "{e}");
}
