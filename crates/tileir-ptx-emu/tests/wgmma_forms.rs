//! `wgmma.mma_async` forms beyond f16/bf16: m64nNk8 tf32 (4-byte elements whose low 13
//! bits the tensor cores ignore) and m64nNk32 s8/u8 with s32 accumulators (wrapping, or
//! clamping with `.satfinite`), plus e4m3 x e5m2. Operands are packed on the host from the
//! PTX ISA's canonical K-major layouts and register-fragment tables (written out here, not
//! taken from the emulator), and D is checked against a host matmul.
#![allow(clippy::needless_range_loop)] // index loops mirror the matrix formulas

use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};
use tileir_ptx_emu::{run, Arg, Buffer, EmuError, ErrorKind, LaunchConfig, Module, Options};

/// A warpgroup copies a shared-memory image in, loads its accumulators (and, with `rs`, its
/// four A-fragment registers) from global memory as word `reg * 128 + tid`, runs `wgmma`
/// (the full opcode) with scale-d = (param acc != 0), and stores D the same way. `dty` is
/// the accumulator register type (f32 or s32); `imms` follows scale-d verbatim.
fn kernel(wgmma: &str, n: usize, dty: &str, rs: bool, imms: &str) -> String {
    let nd = n / 2;
    let d: Vec<String> = (0..nd).map(|i| format!("%d{i}")).collect();
    let mut loads = String::new();
    if rs {
        for i in 0..4 {
            loads += &format!("ld.global.b32 %a{i}, [%rd12+{}];\n", 512 * i);
        }
    }
    let mut stores = String::new();
    for i in 0..nd {
        loads += &format!("ld.global.{dty} %d{i}, [%rd10+{}];\n", 512 * i);
        stores += &format!("st.global.{dty} [%rd11+{}], %d{i};\n", 512 * i);
    }
    let a_op = if rs { "{%a0, %a1, %a2, %a3}" } else { "%rd2" };
    format!(
        r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 1024 .b8 sm[16384];
.visible .entry wg(.param .u64 img, .param .u32 nbytes, .param .u64 da, .param .u64 db, .param .u64 cin, .param .u64 out, .param .u64 areg, .param .u32 acc)
.reqntid 128, 1, 1
{{
.reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .b32 %a<4>; .reg .{dty} %d<{nd}>;
ld.param.b64 %rd1, [img];
ld.param.b32 %r1, [nbytes];
ld.param.b64 %rd2, [da];
ld.param.b64 %rd3, [db];
ld.param.b64 %rd4, [cin];
ld.param.b64 %rd5, [out];
ld.param.b64 %rd6, [areg];
ld.param.b32 %r6, [acc];
mov.u32 %r2, %tid.x;
shl.b32 %r3, %r2, 4;
mov.u32 %r4, sm;
$L_copy:
setp.ge.u32 %p1, %r3, %r1;
@%p1 bra $L_done;
cvt.u64.u32 %rd7, %r3;
add.s64 %rd8, %rd1, %rd7;
ld.global.v2.b64 {{%rd13, %rd14}}, [%rd8];
add.s32 %r5, %r4, %r3;
st.shared.v2.b64 [%r5], {{%rd13, %rd14}};
add.s32 %r3, %r3, 2048;
bra.uni $L_copy;
$L_done:
bar.sync 0;
mul.wide.u32 %rd9, %r2, 4;
add.s64 %rd10, %rd4, %rd9;
add.s64 %rd11, %rd5, %rd9;
add.s64 %rd12, %rd6, %rd9;
{loads}wgmma.fence.sync.aligned;
setp.ne.u32 %p2, %r6, 0;
{wgmma} {{{}}}, {a_op}, %rd3, %p2{imms};
wgmma.commit_group.sync.aligned;
wgmma.wait_group.sync.aligned 0;
{stores}ret;
}}
"#,
        d.join(", ")
    )
}

/// (row, column) of accumulator register `i` of warpgroup thread `tid` (PTX ISA, wgmma D
/// fragments): row 16·warp + groupID, + 8 for i % 4 >= 2; column 8·(i / 4) + 2·threadID_in_group
/// + i % 2.
fn d_rc(tid: usize, i: usize) -> (usize, usize) {
    let (w, lane) = (tid / 32, tid % 32);
    (16 * w + lane / 4 + if i % 4 >= 2 { 8 } else { 0 }, 8 * (i / 4) + 2 * (lane % 4) + i % 2)
}

/// A 64xN word matrix as fragment words (`reg * 128 + tid`).
fn pack_d(c: &[Vec<u32>]) -> Vec<u32> {
    let nd = c[0].len() / 2;
    let mut out = vec![0u32; 128 * nd];
    for tid in 0..128 {
        for i in 0..nd {
            let (r, col) = d_rc(tid, i);
            out[i * 128 + tid] = c[r][col];
        }
    }
    out
}

fn unpack_d(words: &[u32], n: usize) -> Vec<Vec<u32>> {
    let mut out = vec![vec![0u32; n]; 64];
    for tid in 0..128 {
        for i in 0..n / 2 {
            let (r, col) = d_rc(tid, i);
            out[r][col] = words[i * 128 + tid];
        }
    }
    out
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|x| x.to_le_bytes()).collect()
}

struct Launch<'a> {
    text: &'a str,
    n: usize,
    image: Vec<u8>,
    da: u64,
    db: u64,
    c: &'a [Vec<u32>],
    areg: Vec<u32>,
    accumulate: bool,
}

impl Launch<'_> {
    fn go(self) -> Result<Vec<Vec<u32>>, EmuError> {
        let p = Module::parse(self.text).unwrap().kernel(None).unwrap();
        let nbytes = self.image.len() as u32;
        let areg = if self.areg.is_empty() { vec![0u32; 512] } else { self.areg };
        let mut bufs = vec![Buffer::new("img", self.image), Buffer::new("cin", bytes(&pack_d(self.c))), Buffer::new("out", vec![0u8; 64 * self.n * 4]), Buffer::new("areg", bytes(&areg))];
        let cfg = LaunchConfig { grid: [1, 1, 1], block: [128, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() };
        let args = [Arg::Buffer(0, 0), Arg::U32(nbytes), Arg::U64(self.da), Arg::U64(self.db), Arg::Buffer(1, 0), Arg::Buffer(2, 0), Arg::Buffer(3, 0), Arg::U32(self.accumulate as u32)];
        run(&p, &cfg, &args, &mut bufs)?;
        let words: Vec<u32> = bufs[2].data.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
        Ok(unpack_d(&words, self.n))
    }
}

fn desc(start: u64, lbo: u64, sbo: u64, swizzle: u64) -> u64 {
    (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (swizzle << 62)
}

/// Byte offset of element (row, k) of `es`-byte elements in the K-major, no-swizzle canonical
/// layout: core matrices of 8 rows x 16 bytes (contiguous 128 bytes), `lbo` apart along K,
/// `sbo` apart along rows.
fn k_major(r: usize, k: usize, es: usize, lbo: usize, sbo: usize) -> usize {
    let kb = k * es;
    (r / 8) * sbo + (kb / 16) * lbo + (r % 8) * 16 + kb % 16
}

/// Byte address of element (row, k) in the K-major 128-byte swizzle layout at a 1024-byte
/// aligned `base`: 128-byte rows, 8-row atoms of 1024 bytes, 16-byte chunk c of row r stored
/// at chunk c XOR (r % 8).
fn k_major_sw128(base: usize, r: usize, k: usize, es: usize) -> usize {
    let (row, kb) = (r % 8, k * es);
    base + (r / 8) * 1024 + row * 128 + ((kb / 16) ^ row) * 16 + kb % 16
}

fn put(image: &mut [u8], addr: usize, v: &[u8]) {
    image[addr..addr + v.len()].copy_from_slice(v);
}

/// tf32 bits of `x` (exact in tf32) with junk in the 13 low bits, which must be ignored.
fn tf32_junk(x: f32, i: usize) -> u32 {
    x.to_bits() | ((i as u32).wrapping_mul(2654435761) >> 7 & 0x1fff)
}

fn f32_words(c: &[Vec<f32>]) -> Vec<Vec<u32>> {
    c.iter().map(|row| row.iter().map(|x| x.to_bits()).collect()).collect()
}

#[test]
fn tf32_no_swizzle_ignores_padding_bits_negates_and_accumulates() {
    let n = 16;
    let a: Vec<Vec<f32>> = (0..64).map(|r| (0..8).map(|k| ((r * 3 + k * 5) % 9) as f32 - 4.0).collect()).collect();
    let b: Vec<Vec<f32>> = (0..n).map(|c| (0..8).map(|k| ((c * 7 + k) % 5) as f32 * 0.5 - 1.0).collect()).collect();
    let c: Vec<Vec<f32>> = (0..64).map(|r| (0..n).map(|col| (r * n + col) as f32 * 0.25).collect()).collect();
    // A: 8 row groups of 256 bytes at 0; B: 2 row groups at 2048. Two core matrices along K.
    let mut image = vec![0u8; 2048 + 512];
    for r in 0..64 {
        for k in 0..8 {
            put(&mut image, k_major(r, k, 4, 128, 256), &tf32_junk(a[r][k], r * 8 + k).to_le_bytes());
        }
    }
    for col in 0..n {
        for k in 0..8 {
            put(&mut image, 2048 + k_major(col, k, 4, 128, 256), &tf32_junk(b[col][k], 1000 + col * 8 + k).to_le_bytes());
        }
    }
    // imm-scale-a = -1: D = -(A·B) + C.
    let text = kernel("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32", n, "f32", false, ", -1, 1");
    let cw = f32_words(&c);
    let d = Launch { text: &text, n, image, da: desc(0, 128, 256, 0), db: desc(2048, 128, 256, 0), c: &cw, areg: vec![], accumulate: true }.go().unwrap();
    for r in 0..64 {
        for col in 0..n {
            let want = c[r][col] - (0..8).map(|k| a[r][k] * b[col][k]).sum::<f32>();
            assert_eq!(f32::from_bits(d[r][col]), want, "D[{r}][{col}]");
        }
    }
}

#[test]
fn tf32_128_byte_swizzle_second_k_step_overwrites_d() {
    let n = 8;
    // K = 32: one 128-byte swizzled row per matrix row; the wgmma reads K 8..16.
    let a: Vec<Vec<f32>> = (0..64).map(|r| (0..32).map(|k| ((r * 5 + k * 3) % 11) as f32 - 5.0).collect()).collect();
    let b: Vec<Vec<f32>> = (0..n).map(|c| (0..32).map(|k| ((c * 7 + k * 2) % 5) as f32 - 2.0).collect()).collect();
    let mut image = vec![0u8; 8192 + 1024];
    for r in 0..64 {
        for k in 0..32 {
            put(&mut image, k_major_sw128(0, r, k, 4), &tf32_junk(a[r][k], r * 32 + k).to_le_bytes());
        }
    }
    for col in 0..n {
        for k in 0..32 {
            put(&mut image, k_major_sw128(8192, col, k, 4), &tf32_junk(b[col][k], 5000 + col * 32 + k).to_le_bytes());
        }
    }
    // scale-d = 0: the NaN accumulators are not read.
    let c = vec![vec![f32::NAN.to_bits(); n]; 64];
    let text = kernel("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", n, "f32", false, ", 1, 1");
    let d = Launch { text: &text, n, image, da: desc(32, 16, 1024, 1), db: desc(8192 + 32, 16, 1024, 1), c: &c, areg: vec![], accumulate: false }.go().unwrap();
    for r in 0..64 {
        for col in 0..n {
            let want: f32 = (8..16).map(|k| a[r][k] * b[col][k]).sum();
            assert_eq!(f32::from_bits(d[r][col]), want, "D[{r}][{col}]");
        }
    }
}

#[test]
fn tf32_register_a_fragment() {
    let n = 8;
    let a: Vec<Vec<f32>> = (0..64).map(|r| (0..8).map(|k| ((r * 7 + k * 3) % 13) as f32 * 0.25 - 1.5).collect()).collect();
    let b: Vec<Vec<f32>> = (0..n).map(|c| (0..8).map(|k| ((c * 3 + k * 5) % 7) as f32 - 3.0).collect()).collect();
    // PTX ISA, wgmma .m64nNk8 A fragment (tf32): a_i row 16·warp + groupID (i = 0, 2) or
    // + 8 (i = 1, 3); column threadID_in_group (i < 2) or + 4.
    let mut areg = vec![0u32; 512];
    for tid in 0..128 {
        let (w, g, t) = (tid / 32, (tid % 32) / 4, tid % 4);
        for i in 0..4 {
            let (r, k) = (16 * w + g + if i % 2 == 1 { 8 } else { 0 }, t + if i >= 2 { 4 } else { 0 });
            areg[i * 128 + tid] = tf32_junk(a[r][k], tid * 4 + i);
        }
    }
    let mut image = vec![0u8; 256];
    for col in 0..n {
        for k in 0..8 {
            put(&mut image, k_major(col, k, 4, 128, 256), &tf32_junk(b[col][k], col * 8 + k).to_le_bytes());
        }
    }
    let c: Vec<Vec<f32>> = (0..64).map(|r| (0..n).map(|col| (r + col) as f32).collect()).collect();
    // imm-scale-b = -1.
    let text = kernel("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", n, "f32", true, ", 1, -1");
    let cw = f32_words(&c);
    let d = Launch { text: &text, n, image, da: 0, db: desc(0, 128, 256, 0), c: &cw, areg, accumulate: true }.go().unwrap();
    for r in 0..64 {
        for col in 0..n {
            let want = c[r][col] - (0..8).map(|k| a[r][k] * b[col][k]).sum::<f32>();
            assert_eq!(f32::from_bits(d[r][col]), want, "D[{r}][{col}]");
        }
    }
}

fn int8(x: u8, signed: bool) -> i64 {
    if signed {
        x as i8 as i64
    } else {
        x as i64
    }
}

type Bytes2d = Vec<Vec<u8>>;

/// A 64x`k` and `n`x`k` byte matrices with every byte value, and C near both ends of the
/// s32 range so that sums overflow.
fn int8_data(n: usize, k: usize) -> (Bytes2d, Bytes2d, Vec<Vec<u32>>) {
    let a = (0..64).map(|r| (0..k).map(|kk| ((r * 37 + kk * 101 + 3) % 256) as u8).collect()).collect();
    let b = (0..n).map(|c| (0..k).map(|kk| ((kk * 59 + c * 17 + 200) % 256) as u8).collect()).collect();
    let c = (0..64)
        .map(|r| (0..n).map(|col| if (r + col) % 2 == 0 { i32::MAX as u32 - (r * n + col) as u32 } else { i32::MIN as u32 + (r * n + col) as u32 }).collect())
        .collect();
    (a, b, c)
}

#[test]
fn int8_no_swizzle_each_signedness_wraps_like_s32() {
    let (n, k) = (24, 32);
    let (a, b, c) = int8_data(n, k);
    // Core matrices of 8 rows x 16 bytes: two along K (LBO 128), row groups 256 apart.
    let mut image = vec![0u8; 2048 + 768];
    for r in 0..64 {
        for kk in 0..k {
            image[k_major(r, kk, 1, 128, 256)] = a[r][kk];
        }
    }
    for col in 0..n {
        for kk in 0..k {
            image[2048 + k_major(col, kk, 1, 128, 256)] = b[col][kk];
        }
    }
    let mut wrapped = false;
    for (sa, sb) in [("s8", "s8"), ("s8", "u8"), ("u8", "s8"), ("u8", "u8")] {
        let text = kernel(&format!("wgmma.mma_async.sync.aligned.m64n{n}k32.s32.{sa}.{sb}"), n, "s32", false, "");
        let d = Launch { text: &text, n, image: image.clone(), da: desc(0, 128, 256, 0), db: desc(2048, 128, 256, 0), c: &c, areg: vec![], accumulate: true }.go().unwrap();
        for r in 0..64 {
            for col in 0..n {
                let exact = c[r][col] as i32 as i64 + (0..k).map(|kk| int8(a[r][kk], sa == "s8") * int8(b[col][kk], sb == "s8")).sum::<i64>();
                wrapped |= exact != exact as i32 as i64;
                assert_eq!(d[r][col] as i32, exact as i32, "{sa} x {sb}: D[{r}][{col}]");
            }
        }
    }
    assert!(wrapped, "the data should overflow s32 somewhere");
}

#[test]
fn int8_128_byte_swizzle_second_k_step_satfinite_clamps() {
    let (n, k) = (48, 128);
    let (a, b, c) = int8_data(n, k);
    // 128 one-byte elements per swizzled row; the wgmma reads K 32..64 (bytes 32..64).
    let mut image = vec![0u8; 8192 + 6144];
    for r in 0..64 {
        for kk in 0..k {
            image[k_major_sw128(0, r, kk, 1)] = a[r][kk];
        }
    }
    for col in 0..n {
        for kk in 0..k {
            image[k_major_sw128(8192, col, kk, 1)] = b[col][kk];
        }
    }
    let (mut high, mut low) = (false, false);
    for sat in [true, false] {
        let text = kernel(&format!("wgmma.mma_async.sync.aligned.m64n{n}k32{}.s32.u8.s8", if sat { ".satfinite" } else { "" }), n, "s32", false, "");
        let d = Launch { text: &text, n, image: image.clone(), da: desc(32, 16, 1024, 1), db: desc(8192 + 32, 16, 1024, 1), c: &c, areg: vec![], accumulate: true }.go().unwrap();
        for r in 0..64 {
            for col in 0..n {
                let exact = c[r][col] as i32 as i64 + (32..64).map(|kk| int8(a[r][kk], false) * int8(b[col][kk], true)).sum::<i64>();
                high |= exact > i32::MAX as i64;
                low |= exact < i32::MIN as i64;
                let want = if sat { exact.clamp(i32::MIN as i64, i32::MAX as i64) as i32 } else { exact as i32 };
                assert_eq!(d[r][col] as i32, want, "satfinite {sat}: D[{r}][{col}]");
            }
        }
    }
    assert!(high && low, "the data should overflow s32 both ways");
}

#[test]
fn int8_register_a_fragment() {
    let (n, k) = (16, 32);
    let (a, b, _) = int8_data(n, k);
    // PTX ISA, wgmma .m64nNk32 A fragment (8-bit): a_i (four per register, low byte first)
    // row 16·warp + groupID for i < 4 and 8 <= i < 12, else + 8; column
    // 4·threadID_in_group + (i & 3), + 16 for i >= 8.
    let mut areg = vec![0u32; 512];
    for tid in 0..128 {
        let (w, g, t) = (tid / 32, (tid % 32) / 4, tid % 4);
        for i in 0..16 {
            let r = 16 * w + g + if i < 4 || (8..12).contains(&i) { 0 } else { 8 };
            let kk = 4 * t + (i & 3) + if i >= 8 { 16 } else { 0 };
            areg[(i / 4) * 128 + tid] |= (a[r][kk] as u32) << (8 * (i % 4));
        }
    }
    let mut image = vec![0u8; 512];
    for col in 0..n {
        for kk in 0..k {
            image[k_major(col, kk, 1, 128, 256)] = b[col][kk];
        }
    }
    let c = vec![vec![0xdead_beef; n]; 64];
    let text = kernel("wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8", n, "s32", true, "");
    let d = Launch { text: &text, n, image, da: 0, db: desc(0, 128, 256, 0), c: &c, areg, accumulate: false }.go().unwrap();
    for r in 0..64 {
        for col in 0..n {
            let want: i64 = (0..k).map(|kk| int8(a[r][kk], true) * int8(b[col][kk], false)).sum();
            assert_eq!(d[r][col] as i32 as i64, want, "D[{r}][{col}]");
        }
    }
}

#[test]
fn fp8_mixed_e4m3_e5m2() {
    let n = 8;
    let a: Vec<Vec<f64>> = (0..64).map(|r| (0..32).map(|k| ((r * 5 + k * 3) % 13) as f64 * 0.5 - 3.0).collect()).collect();
    let b: Vec<Vec<f64>> = (0..n).map(|c| (0..32).map(|k| ((k + c * 7) % 7) as f64 - 3.0).collect()).collect();
    let mut image = vec![0u8; 2048 + 256];
    for r in 0..64 {
        for k in 0..32 {
            image[k_major(r, k, 1, 128, 256)] = encode(FloatFormat::F8E4M3FN, a[r][k], Rounding::NearestEven, Saturation::None) as u8;
        }
    }
    for col in 0..n {
        for k in 0..32 {
            image[2048 + k_major(col, k, 1, 128, 256)] = encode(FloatFormat::F8E5M2, b[col][k], Rounding::NearestEven, Saturation::None) as u8;
        }
    }
    let c = vec![vec![1.5f32.to_bits(); n]; 64];
    let text = kernel("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2", n, "f32", false, ", 1, 1");
    let d = Launch { text: &text, n, image: image.clone(), da: desc(0, 128, 256, 0), db: desc(2048, 128, 256, 0), c: &c, areg: vec![], accumulate: true }.go().unwrap();
    for r in 0..64 {
        for col in 0..n {
            let dec = |f: FloatFormat, x: u8| decode(f, x as u64);
            let want = 1.5
                + (0..32).map(|k| dec(FloatFormat::F8E4M3FN, image[k_major(r, k, 1, 128, 256)]) * dec(FloatFormat::F8E5M2, image[2048 + k_major(col, k, 1, 128, 256)])).sum::<f64>();
            assert_eq!(f32::from_bits(d[r][col]), want as f32, "D[{r}][{col}]");
        }
    }
}

/// The decode error of `text`, checked to name the wgmma's line.
fn decode_error(text: &str) -> String {
    let line = text.lines().position(|l| l.starts_with("wgmma.mma_async")).unwrap() as u32 + 1;
    match Module::parse(text).and_then(|m| m.kernel(None).map(|_| ())) {
        Ok(()) => panic!("decoded: {text}"),
        Err(e) => {
            assert_eq!(e.line, line, "{e}");
            e.to_string()
        }
    }
}

#[test]
fn malformed_tf32_and_integer_forms_are_decode_errors() {
    let tf32 = "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32";
    let int = "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8";
    let cases: &[(String, &str)] = &[
        // Transpose immediates (f16/bf16 only).
        (kernel(tf32, 8, "f32", false, ", 1, 1, 0, 0"), "takes 6 operands (d, a-desc|{a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b; transpose immediates exist only for f16/bf16 inputs), got 8"),
        (kernel(tf32, 8, "f32", false, ""), "takes 6 operands"),
        (kernel(tf32, 8, "f32", false, ", 1, 2"), "imm-scale-b must be the immediate 1 or -1"),
        (kernel(tf32, 8, "f32", false, ", %r1, 1"), "imm-scale-a must be the immediate 1 or -1"),
        (kernel("wgmma.mma_async.sync.aligned.m64n8k16.f32.tf32.tf32", 8, "f32", false, ", 1, 1"), "tf32 inputs need shape m64nNk8"),
        (kernel("wgmma.mma_async.sync.aligned.m64n8k8.f16.tf32.tf32", 8, "f32", false, ", 1, 1"), "tf32 accumulators must be f32"),
        (kernel("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.f16", 8, "f32", false, ", 1, 1"), "A and B must both be"),
        (kernel(tf32, 8, "f32", false, ", 1, 1").replace("{%d0, %d1, %d2, %d3}", "{%d0, %d1, %d2}"), "needs 4 accumulator registers, got 3"),
        (kernel(tf32, 8, "f32", true, ", 1, 1").replace("{%a0, %a1, %a2, %a3}", "{%a0, %a1}"), "register A needs four .b32 registers, got 2"),
        // Integer wgmma has no immediates at all.
        (kernel(int, 8, "s32", false, ", 1, 1"), "takes 4 operands (d, a-desc|{a0..a3}, b-desc, scale-d; integer wgmma has no scale or transpose immediates), got 6"),
        (kernel("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.u8", 40, "s32", false, ""), "N = 40 is not a valid N for s8 inputs (8, 16, 24 or a multiple of 16 up to 256)"),
        (kernel("wgmma.mma_async.sync.aligned.m64n8k32.f32.s8.s8", 8, "f32", false, ""), "s8/u8 accumulators must be s32"),
        (kernel("wgmma.mma_async.sync.aligned.m64n8k16.s32.u8.u8", 8, "s32", false, ""), "u8 inputs need shape m64nNk32"),
        (kernel("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.e4m3", 8, "s32", false, ""), "A and B must both be"),
        (kernel("wgmma.mma_async.sync.aligned.m64n8k8.satfinite.f32.tf32.tf32", 8, "f32", false, ", 1, 1"), ".satfinite exists only for s32 accumulators"),
    ];
    for (text, want) in cases {
        let e = decode_error(text);
        assert!(e.contains(want), "want '{want}', got: {e}");
    }
    // The f16 RS form keeps its seven operands.
    let text = kernel("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", 8, "f32", true, ", 1, 1, 0, 0");
    assert!(decode_error(&text).contains("takes 7 operands (d, {a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b), got 8"));
}

#[test]
fn new_forms_keep_the_in_flight_checks() {
    let launch = |text: &str, n: usize, rs: bool| {
        let c = vec![vec![0u32; n]; 64];
        let areg = if rs { vec![0u32; 512] } else { vec![] };
        Launch { text, n, image: vec![0u8; 16], da: desc(0, 128, 256, 0), db: desc(0, 128, 256, 0), c: &c, areg, accumulate: true }.go()
    };
    // An s32 accumulator read between the commit and the wait.
    let int = kernel("wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.u8", 8, "s32", false, "")
        .replace("wgmma.commit_group.sync.aligned;\n", "wgmma.commit_group.sync.aligned;\nadd.s32 %r7, %d2, 1;\n");
    let e = launch(&int, 8, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Undefined, "{e}");
    assert!(e.message.contains("%d2 is an accumulator of the wgmma.mma_async at PTX line 42, still in flight"), "{e}");
    assert_eq!(e.line, 44, "{e}");
    // A tf32 A-fragment register overwritten before the wgmma is committed.
    let tf32 = kernel("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", 8, "f32", true, ", 1, 1")
        .replace("wgmma.commit_group.sync.aligned;\n", "mov.b32 %a3, 0;\nwgmma.commit_group.sync.aligned;\n");
    let e = launch(&tf32, 8, true).unwrap_err();
    assert!(e.message.contains("%a3 is an A-fragment register of the wgmma.mma_async at PTX line 46, still in flight") && e.message.contains("not committed yet"), "{e}");
    // Both run once the wait comes first.
    launch(&int.replace("add.s32 %r7, %d2, 1;\n", ""), 8, false).unwrap();
    launch(&tf32.replace("mov.b32 %a3, 0;\n", ""), 8, true).unwrap();
}
