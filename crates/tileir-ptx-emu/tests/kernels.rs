//! Whole kernels through parse → decode → run: real NVPTX output (vector add), divergence
//! and reconvergence, barriers, collectives, atomics, and each kind of reported error.

use tileir_ptx_emu::{run, Arg, Buffer, ErrorKind, LaunchConfig, Module, Options};

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig { grid: [grid, 1, 1], block: [block, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32s_of(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn f32s_of(b: &[u8]) -> Vec<f32> {
    b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// A kernel with one u64 pointer parameter `out` and body `body`.
fn kernel(body: &str) -> String {
    format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u32 n)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<16>;\n\
         ld.param.b64 %rd1, [out];\nld.param.b32 %r30, [n];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n{body}\n}}\n"
    )
}

fn run_simple(body: &str, grid: u32, block: u32, words: usize) -> Result<Vec<u32>, tileir_ptx_emu::EmuError> {
    let m = Module::parse(&kernel(body))?;
    let p = m.kernel(None)?;
    let mut bufs = vec![Buffer::new("out", vec![0u8; words * 4])];
    run(&p, &cfg(grid, block), &[Arg::Buffer(0, 0), Arg::U32(words as u32)], &mut bufs)?;
    Ok(u32s_of(&bufs[0].data))
}

#[test]
fn nvptx_vector_add_fast_and_masked_paths() {
    let text = include_str!("data/vector_add.ptx");
    let m = Module::parse(text).unwrap();
    assert_eq!(m.kernel_names(), vec!["vector_add"]);
    let p = m.kernel(Some("vector_add")).unwrap();
    for n in [2048usize, 1000, 3000] {
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
        let mut bufs = vec![Buffer::new("a", f32s(&a)), Buffer::new("b", f32s(&b)), Buffer::new("c", vec![0u8; n * 4])];
        let nn = n as u32;
        let args = [Arg::Buffer(0, 0), Arg::U32(nn), Arg::U32(1), Arg::Buffer(1, 0), Arg::U32(nn), Arg::U32(1), Arg::Buffer(2, 0), Arg::U32(nn), Arg::U32(1)];
        let grid = n.div_ceil(1024) as u32;
        let stats = run(&p, &cfg(grid, 128), &args, &mut bufs).unwrap();
        let c = f32s_of(&bufs[2].data);
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "element {i} of {n}");
        }
        assert!(stats.thread_insts > 0);
    }
}

#[test]
fn divergent_loop_reconverges_before_shuffle() {
    // Each lane loops tid%5 times (divergent trip counts), then a full-warp butterfly sum
    // needs every lane back together.
    let body = "mov.u32 %r2, 0;\nrem.u32 %r3, %r1, 5;\n$L_loop:\nsetp.eq.u32 %p1, %r3, 0;\n@%p1 bra $L_done;\nadd.s32 %r2, %r2, 1;\nsub.s32 %r3, %r3, 1;\nbra.uni $L_loop;\n$L_done:\n\
                shfl.sync.bfly.b32 %r4, %r2, 16, 31, -1;\nadd.s32 %r2, %r2, %r4;\nshfl.sync.bfly.b32 %r4, %r2, 8, 31, -1;\nadd.s32 %r2, %r2, %r4;\n\
                shfl.sync.bfly.b32 %r4, %r2, 4, 31, -1;\nadd.s32 %r2, %r2, %r4;\nshfl.sync.bfly.b32 %r4, %r2, 2, 31, -1;\nadd.s32 %r2, %r2, %r4;\n\
                shfl.sync.bfly.b32 %r4, %r2, 1, 31, -1;\nadd.s32 %r2, %r2, %r4;\nst.global.b32 [%rd3], %r2;\nret;";
    let out = run_simple(body, 1, 64, 64).unwrap();
    let warp_sum: u32 = (0..32).map(|t| t % 5).sum();
    let warp2: u32 = (32..64).map(|t| t % 5).sum();
    assert!(out[..32].iter().all(|&v| v == warp_sum), "{out:?}");
    assert!(out[32..].iter().all(|&v| v == warp2), "{out:?}");
}

#[test]
fn if_else_divergence_and_shfl_modes() {
    let body = "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra $L_even;\nmul.lo.s32 %r5, %r1, 100;\nbra.uni $L_join;\n$L_even:\nneg.s32 %r5, %r1;\n$L_join:\n\
                shfl.sync.up.b32 %r6|%p2, %r5, 1, 0, -1;\n@!%p2 mov.b32 %r6, 7;\nshfl.sync.idx.b32 %r7, %r5, 3, 31, -1;\nadd.s32 %r8, %r6, %r7;\nst.global.b32 [%rd3], %r8;\nret;";
    let out = run_simple(body, 1, 32, 32).unwrap();
    let v = |t: i32| if t % 2 == 0 { -t } else { t * 100 };
    for t in 0..32i32 {
        let up = if t == 0 { 7 } else { v(t - 1) };
        assert_eq!(out[t as usize] as i32, up + v(3), "lane {t}");
    }
}

#[test]
fn barrier_and_shared_memory_reverse() {
    let text = ".version 8.6\n.target sm_90a\n.address_size 64\n.shared .align 4 .b8 buf[512];\n\
        .visible .entry rev(.param .u64 out)\n.reqntid 128, 1, 1\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n\
        ld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\nmul.lo.s32 %r5, %r1, 3;\nst.shared.b32 [%r4], %r5;\nbar.sync 0;\n\
        sub.s32 %r6, 508, %r2;\nadd.s32 %r6, %r3, %r6;\nld.shared.b32 %r7, [%r6];\ncvta.to.global.u64 %rd2, %rd1;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.b32 [%rd4], %r7;\nret;\n}\n";
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let mut c = cfg(2, 128);
    c.options.race_check = true;
    let mut bufs = vec![Buffer::new("out", vec![0u8; 512])];
    run(&p, &c, &[Arg::Buffer(0, 0)], &mut bufs).unwrap();
    let out = u32s_of(&bufs[0].data);
    for t in 0..128u32 {
        assert_eq!(out[t as usize], (127 - t) * 3);
    }
    // Without the barrier the read races with another warp's write.
    let racy = text.replace("bar.sync 0;\n", "");
    let p = Module::parse(&racy).unwrap().kernel(None).unwrap();
    let e = run(&p, &c, &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory, "{e}");
    // Warp 0 runs first and reads (line 19) bytes warp 3 has not written yet.
    assert!(e.message.contains("read of shared byte 0x1fc, which nothing has written"), "{e}");
    assert_eq!(e.line, 19, "{e}");
    // With the other warps' bytes written first, the same missing barrier is a race.
    let racy2 = racy.replace("ld.shared.b32 %r7, [%r6];", "st.shared.b32 [%r6], %r5;\nld.shared.b32 %r7, [%r6];");
    let p = Module::parse(&racy2).unwrap().kernel(None).unwrap();
    let e = run(&p, &c, &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert!(e.message.contains("shared-memory race"), "{e}");
}

#[test]
fn deadlock_reports_each_warp() {
    let body = "setp.lt.u32 %p1, %r1, 32;\n@%p1 bra $L_a;\nbar.sync 2;\nret;\n$L_a:\nbar.sync 1;\nret;";
    let e = run_simple(body, 1, 64, 64).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock);
    assert!(e.message.contains("warp 0 lanes 0-31 wait at barrier 1 at PTX line 19"), "{e}");
    assert!(e.message.contains("warp 1 lanes 0-31 wait at barrier 2 at PTX line 16"), "{e}");
}

#[test]
fn out_of_bounds_and_misaligned_accesses() {
    let e = run_simple("st.global.b32 [%rd3+4], %r1;\nret;", 1, 32, 32).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory);
    assert_eq!(e.line, 14);
    assert!(e.message.contains("thread (31,0,0)") && e.message.contains("past the end of 'out'"), "{e}");
    let e = run_simple("ld.global.b32 %r2, [%rd3+2];\nret;", 1, 32, 32).unwrap_err();
    assert!(e.message.contains("misaligned global load of 4 byte(s)"), "{e}");
    let e = run_simple("ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd3];\nret;", 1, 32, 128).unwrap_err();
    assert!(e.message.contains("needs 16-byte alignment"), "{e}");
}

#[test]
fn collective_with_exited_member_is_an_error() {
    let body = "setp.ge.u32 %p1, %r1, 16;\n@%p1 ret;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\nret;";
    let e = run_simple(body, 1, 32, 32).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Undefined);
    assert!(e.message.contains("lanes 16-31"), "{e}");
    // With the right mask it is fine.
    let ok = "setp.ge.u32 %p1, %r1, 16;\n@%p1 ret;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffff;\nst.global.b32 [%rd3], %r2;\nret;";
    let out = run_simple(ok, 1, 32, 32).unwrap();
    assert_eq!(out[..4], [1, 0, 3, 2]);
}

#[test]
fn atomics_votes_and_reductions() {
    // Every thread of 4 CTAs adds 1 to out[0]; out[1] gets the ballot of odd lanes; out[2]
    // the redux sum of tids; out[3] match.any of tid/8.
    let body = "atom.global.add.u32 %r2, [%rd1], 1;\nand.b32 %r3, %r1, 1;\nsetp.ne.u32 %p1, %r3, 0;\nvote.sync.ballot.b32 %r4, %p1, -1;\n\
                redux.sync.add.u32 %r5, %r1, -1;\nshr.u32 %r6, %r1, 3;\nmatch.any.sync.b32 %r7, %r6, -1;\nsetp.ne.u32 %p2, %r1, 9;\n@%p2 bra $L_end;\n\
                st.global.b32 [%rd1+4], %r4;\nst.global.b32 [%rd1+8], %r5;\nst.global.b32 [%rd1+12], %r7;\n$L_end:\nret;";
    let out = run_simple(body, 4, 32, 4).unwrap();
    assert_eq!(out[0], 128);
    assert_eq!(out[1], 0xaaaa_aaaa);
    assert_eq!(out[2], (0..32).sum::<u32>());
    assert_eq!(out[3], 0xff00);
}

#[test]
fn printf_and_trap() {
    let text = ".version 8.6\n.target sm_90a\n.address_size 64\n.global .align 1 .b8 $str[12] = {116, 105, 100, 32, 37, 100, 32, 37, 46, 49, 102, 0};\n\
        .extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n\
        .visible .entry k()\n{\n.local .align 8 .b8 __local_depot0[16];\n.reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n.reg .f64 %fd<2>;\n\
        mov.u64 %rd1, __local_depot0;\ncvta.local.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\nst.local.b32 [%rd1], %r1;\nmov.f64 %fd1, 0d3FF8000000000000;\nst.local.f64 [%rd1+8], %fd1;\n\
        mov.u64 %rd3, $str;\ncvta.global.u64 %rd4, %rd3;\n{\n.param .b64 param0;\nst.param.b64 [param0], %rd4;\n.param .b64 param1;\nst.param.b64 [param1], %rd2;\n\
        .param .b32 retval0;\ncall.uni (retval0), vprintf, (param0, param1);\nld.param.b32 %r2, [retval0];\n}\nret;\n}\n";
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let mut bufs = vec![];
    let s = run(&p, &cfg(1, 2), &[], &mut bufs).unwrap();
    assert_eq!(s.output, "tid 0 1.5tid 1 1.5");
    let t = kernel("setp.eq.u32 %p1, %r1, 5;\n@%p1 trap;\nret;");
    let p = Module::parse(&t).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0; 4])];
    let e = run(&p, &cfg(1, 32), &[Arg::Buffer(0, 0), Arg::U32(1)], &mut bufs).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Trap);
    assert!(e.message.contains("thread (5,0,0)"), "{e}");
}

#[test]
fn decode_errors_name_the_line() {
    let e = Module::parse(&kernel("add.s32 %r2, %r99, 1;\nret;")).unwrap().kernel(None).unwrap_err();
    assert_eq!(e.line, 14);
    assert!(e.message.contains("'%r99' is not declared"), "{e}");
    let e = Module::parse(&kernel("frobnicate.b32 %r2, %r1;\nret;")).unwrap().kernel(None).unwrap_err();
    assert!(e.message.contains("unsupported instruction 'frobnicate.b32'"), "{e}");
    let e = Module::parse(&kernel("bra $L_nowhere;")).unwrap().kernel(None).unwrap_err();
    assert!(e.message.contains("label '$L_nowhere' is not defined"), "{e}");
}

#[test]
fn integer_division_by_zero_is_reported() {
    let e = run_simple("div.u32 %r2, 7, %r1;\nret;", 1, 32, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Undefined);
    assert!(e.message.contains("thread (0,0,0): integer division by zero"), "{e}");
}

#[test]
fn named_barriers_with_counts_and_bar_red() {
    // Warps 0-1 produce into shared memory and bar.arrive on barrier 1 (64 producers + 64
    // consumers); warps 2-3 bar.sync on it and read. bar.red.popc counts odd threads.
    let text = ".version 8.6\n.target sm_90a\n.address_size 64\n.shared .align 4 .b8 s[256];\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n\
        ld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, s;\nsetp.ge.u32 %p1, %r1, 64;\n@%p1 bra $L_cons;\n\
        shl.b32 %r3, %r1, 2;\nadd.s32 %r4, %r2, %r3;\nadd.s32 %r5, %r1, 1000;\nst.shared.b32 [%r4], %r5;\nbar.arrive 1, 128;\nbra.uni $L_red;\n\
        $L_cons:\nbar.sync 1, 128;\nsub.s32 %r6, %r1, 64;\nshl.b32 %r3, %r6, 2;\nadd.s32 %r4, %r2, %r3;\nld.shared.b32 %r7, [%r4];\n\
        mul.wide.u32 %rd2, %r6, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.b32 [%rd3], %r7;\n\
        $L_red:\nand.b32 %r8, %r1, 1;\nsetp.ne.u32 %p2, %r8, 0;\nbar.red.popc.u32 %r9, 0, %p2;\nelect.sync %r10|%p3, -1;\n\
        @!%p3 bra $L_end;\nmov.u32 %r11, %warpid;\nadd.s32 %r12, %r11, 64;\nmul.wide.u32 %rd4, %r12, 4;\nadd.s64 %rd5, %rd1, %rd4;\nadd.s32 %r13, %r9, %r10;\nst.global.b32 [%rd5], %r13;\n\
        $L_end:\nret;\n}\n";
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0u8; 68 * 4])];
    let mut c = cfg(1, 128);
    c.options.race_check = true;
    run(&p, &c, &[Arg::Buffer(0, 0)], &mut bufs).unwrap();
    let out = u32s_of(&bufs[0].data);
    for (t, &v) in out[..64].iter().enumerate() {
        assert_eq!(v, 1000 + t as u32);
    }
    // popc of odd threads (64) plus the elected lane (0) for each warp.
    assert_eq!(out[64..68], [64, 64, 64, 64]);
    // A thread count that is no multiple of the warp size is undefined behaviour.
    let p = Module::parse(&text.replace("bar.sync 1, 128;", "bar.sync 1, 100;")).unwrap().kernel(None).unwrap();
    let e = run(&p, &c, &[Arg::Buffer(0, 0)], &mut bufs).unwrap_err();
    assert!(e.message.contains("barrier 1's thread count 100 is not a multiple of the warp size (32)"), "{e}");
}

#[test]
fn setmaxnreg_counts_follow_the_isa() {
    let kernel = |line: &str| {
        let text = format!(".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry k()\n.maxntid 128, 1, 1\n{{\n{line}\nret;\n}}\n");
        Module::parse(&text).unwrap().kernel(None).map(|_| ())
    };
    kernel("setmaxnreg.inc.sync.aligned.u32 232;").unwrap();
    kernel("setmaxnreg.dec.sync.aligned.u32 40;").unwrap();
    for (bad, why) in [("setmaxnreg.inc.sync.aligned.u32 7;", "count 7 must be a multiple of 8 in [24, 256]"), ("setmaxnreg.dec.sync.aligned.u32 264;", "count 264"), ("setmaxnreg.sync.aligned.u32 64;", "needs .inc or .dec")] {
        let e = kernel(bad).unwrap_err();
        assert!(e.message.contains(why), "{bad}: {e}");
    }
}

#[test]
fn assertfail_reports_message_and_location() {
    let text = ".version 8.6\n.target sm_90a\n.address_size 64\n\
        .global .align 1 .b8 $msg[5] = {98, 111, 111, 109, 0};\n.global .align 1 .b8 $file[4] = {107, 46, 112, 0};\n.global .align 1 .b8 $fn[2] = {102, 0};\n\
        .extern .func __assertfail(.param .b64 a, .param .b64 b, .param .b32 c, .param .b64 d, .param .b64 e);\n\
        .visible .entry k()\n{\n.reg .b64 %rd<8>;\n.reg .b32 %r<2>;\n\
        mov.u64 %rd1, $msg;\nmov.u64 %rd2, $file;\nmov.u64 %rd3, $fn;\nmov.u32 %r1, 42;\nmov.u64 %rd4, 1;\n\
        {\n.param .b64 p0;\nst.param.b64 [p0], %rd1;\n.param .b64 p1;\nst.param.b64 [p1], %rd2;\n.param .b32 p2;\nst.param.b32 [p2], %r1;\n\
        .param .b64 p3;\nst.param.b64 [p3], %rd3;\n.param .b64 p4;\nst.param.b64 [p4], %rd4;\ncall.uni __assertfail, (p0, p1, p2, p3, p4);\n}\nret;\n}\n";
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let e = run(&p, &cfg(1, 1), &[], &mut []).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Trap);
    assert!(e.message.contains("assertion 'boom' failed at k.p:42 in f"), "{e}");
}

#[test]
fn carry_chains() {
    // out[0..2] = 0x00000001_ffffffff + tid (as a 64-bit add in two 32-bit halves),
    // out[2..4] = 0x00000002_00000000 - 1 - tid (sub.cc / subc).
    let body = "add.cc.u32 %r2, %r1, 0xffffffff;\naddc.u32 %r3, 1, 0;\nsub.cc.u32 %r4, 0, 1;\nsubc.cc.u32 %r5, 2, 0;\nsub.cc.u32 %r6, %r4, %r1;\nsubc.u32 %r7, %r5, 0;\n\
                setp.ne.u32 %p1, %r1, 1;\n@%p1 bra $L_end;\nst.global.v2.b32 [%rd1], {%r2, %r3};\nst.global.v2.b32 [%rd1+8], {%r6, %r7};\n$L_end:\nret;";
    let out = run_simple(body, 1, 32, 4).unwrap();
    let sum = 0x1_ffff_ffffu64 + 1;
    let dif = 0x2_0000_0000u64 - 1 - 1;
    assert_eq!(out, vec![sum as u32, (sum >> 32) as u32, dif as u32, (dif >> 32) as u32]);
}

#[test]
fn multiply_add_carry_chains() {
    // libdevice's trig range reduction: mad.lo.cc / madc.hi(.cc) / addc.
    // 0xfffffffe·3 + 0x10 = 0x3_0000000a; hi(0xfffffffe²) + 0xffffffff + carry 1 carries out.
    let body = "mov.b32 %r2, 0xfffffffe;\nmad.lo.cc.u32 %r3, %r2, 3, 16;\nmadc.hi.u32 %r4, %r2, 3, 0;\n\
                madc.hi.cc.u32 %r5, %r2, %r2, 0xffffffff;\naddc.u32 %r6, 0, 0;\n\
                setp.ne.u32 %p1, %r1, 1;\n@%p1 bra $L_end;\nst.global.v2.b32 [%rd1], {%r3, %r4};\nst.global.v2.b32 [%rd1+8], {%r5, %r6};\n$L_end:\nret;";
    let out = run_simple(body, 1, 32, 4).unwrap();
    assert_eq!(out, vec![0xa, 3, 0xffff_fffc, 1]);
}

#[test]
fn vector_red_and_float_atomics() {
    // Every thread of 2 CTAs adds {1, 2, 3, 4} (f32) to out[0..4]; atom.add.f32 returns the
    // old value; atom.global.max.s32 keeps the largest tid.
    let body = "mov.b32 %r2, 0f3F800000;\nmov.b32 %r3, 0f40000000;\nmov.b32 %r4, 0f40400000;\nmov.b32 %r5, 0f40800000;\n\
                red.global.v4.f32.add [%rd1], {%r2, %r3, %r4, %r5};\natom.global.max.s32 %r6, [%rd1+16], %r1;\nret;";
    let out = run_simple(body, 2, 64, 8).unwrap();
    let f: Vec<f32> = out[..4].iter().map(|&b| f32::from_bits(b)).collect();
    assert_eq!(f, vec![128.0, 256.0, 384.0, 512.0]);
    assert_eq!(out[4], 63);
}

#[test]
fn sixteen_bit_global_atomics() {
    // 64 threads of 2 CTAs: atom.add.noftz.bf16 of 1.0 at byte 2 (the neighbouring halves of
    // the word keep their values), atom.add.noftz.f16 of 0.5 at byte 4, and atom.cas.b16 at
    // byte 6 that only the thread seeing 0 wins. Before the fix: "2-byte atomics on global
    // memory are not supported" (LLVM selects atom.global.add.noftz.bf16 for atomicrmw fadd
    // on bfloat, probe 07a).
    let body = "mov.b16 %rs1, 0x3F80;
atom.global.add.noftz.bf16 %rs2, [%rd1+2], %rs1;
                mov.b16 %rs3, 0x3800;
atom.global.add.noftz.f16 %rs4, [%rd1+4], %rs3;
                cvt.u16.u32 %rs5, %r1;
add.u16 %rs5, %rs5, 1;
mov.b16 %rs6, 0;
atom.global.cas.b16 %rs7, [%rd1+6], %rs6, %rs5;
ret;";
    let text = kernel(body).replace(".reg .b64 %rd<16>;", ".reg .b64 %rd<16>;\n.reg .b16 %rs<8>;");
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let mut init = vec![0u8; 8];
    init[0..2].copy_from_slice(&0xBEEFu16.to_le_bytes());
    let mut bufs = vec![Buffer::new("out", init)];
    run(&p, &cfg(2, 32), &[Arg::Buffer(0, 0), Arg::U32(2)], &mut bufs).unwrap();
    let h: Vec<u16> = bufs[0].data.chunks(2).map(|c| u16::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(h[0], 0xBEEF, "the other half of the word is untouched");
    assert_eq!(h[1], 0x4280, "bf16 64.0");
    assert_eq!(h[2], 0x5000, "f16 32.0");
    assert!((1..=32).contains(&h[3]), "one cas wins: {:#x}", h[3]);
}

#[test]
fn pointer_parameters_keep_their_natural_alignment() {
    // `.ptr .global .align 1` is the pointee's alignment: the u64 still sits at offset 8.
    let text = ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u32 n, .param .u64 .ptr .global .align 1 out)\n{\n\
        .reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nld.param.b32 %r1, [n];\nld.param.b64 %rd1, [out];\nst.global.b32 [%rd1], %r1;\nret;\n}\n";
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    assert_eq!(p.params[1].offset, 8);
    let mut bufs = vec![Buffer::new("out", vec![0u8; 4])];
    run(&p, &cfg(1, 1), &[Arg::U32(7), Arg::Buffer(0, 0)], &mut bufs).unwrap();
    assert_eq!(u32s_of(&bufs[0].data), vec![7]);
}

#[test]
fn device_function_calls_with_divergence() {
    // Odd lanes call sq(tid) = tid*tid through .param arguments; even lanes call it with
    // tid+1 and then add one; the function itself branches on its argument.
    let text = ".version 8.6\n.target sm_90a\n.address_size 64\n\
        .func (.param .b32 sq_ret) sq(.param .b32 sq_x)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n\
        ld.param.b32 %r1, [sq_x];\nmul.lo.s32 %r2, %r1, %r1;\nsetp.gt.u32 %p1, %r1, 20;\n@%p1 add.s32 %r2, %r2, 1000;\nst.param.b32 [sq_ret], %r2;\nret;\n}\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
        ld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra $L_even;\n\
        {\n.param .b32 a0;\nst.param.b32 [a0], %r1;\n.param .b32 r0;\ncall.uni (r0), sq, (a0);\nld.param.b32 %r3, [r0];\n}\nbra.uni $L_join;\n\
        $L_even:\nadd.s32 %r4, %r1, 1;\n{\n.param .b32 a1;\nst.param.b32 [a1], %r4;\n.param .b32 r1;\ncall.uni (r1), sq, (a1);\nld.param.b32 %r5, [r1];\n}\nadd.s32 %r3, %r5, 1;\n\
        $L_join:\nshfl.sync.idx.b32 %r6, %r3, 0, 31, -1;\nadd.s32 %r3, %r3, %r6;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.b32 [%rd3], %r3;\nret;\n}\n";
    let p = Module::parse(text).unwrap().kernel(Some("k")).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0u8; 32 * 4])];
    run(&p, &cfg(1, 32), &[Arg::Buffer(0, 0)], &mut bufs).unwrap();
    let sq = |x: u32| x * x + if x > 20 { 1000 } else { 0 };
    let v = |t: u32| if t % 2 == 1 { sq(t) } else { sq(t + 1) + 1 };
    let out = u32s_of(&bufs[0].data);
    for t in 0..32 {
        assert_eq!(out[t as usize], v(t) + v(0), "lane {t}");
    }
}

#[test]
fn shuffles_within_16_lane_segments() {
    // CUDA's width-16 shuffles: c = ((32 - 16) << 8) | 31 for down/idx, (32 - 16) << 8 for up.
    let body = "mul.lo.s32 %r2, %r1, 10;\nshfl.sync.down.b32 %r3, %r2, 1, 0x101f, -1;\nshfl.sync.up.b32 %r4, %r2, 1, 0x1000, -1;\n\
                shfl.sync.idx.b32 %r5, %r2, 3, 0x101f, -1;\nmul.wide.u32 %rd4, %r1, 12;\nadd.s64 %rd5, %rd1, %rd4;\n\
                st.global.b32 [%rd5], %r3;\nst.global.b32 [%rd5+4], %r4;\nst.global.b32 [%rd5+8], %r5;\nret;";
    let out = run_simple(body, 1, 32, 96).unwrap();
    for t in 0..32u32 {
        let seg = t / 16 * 16;
        let down = if t % 16 == 15 { t } else { t + 1 };
        let up = if t % 16 == 0 { t } else { t - 1 };
        assert_eq!(out[3 * t as usize..3 * t as usize + 3], [down * 10, up * 10, (seg + 3) * 10], "lane {t}");
    }
}

/// Member masks of warp collectives: every executing lane passes the same mask, which names
/// the lane itself; shfl reads only member lanes. Each violation names the lane and masks.
#[test]
fn collective_member_mask_rules() {
    // Lanes disagree on the mask (lane 0 passes 0xffffffff, the others 0xfffffffe).
    let differ = "setp.eq.u32 %p1, %r1, 0;\nselp.b32 %r4, -1, -2, %p1;\nvote.sync.ballot.b32 %r2, %p1, %r4;\nret;";
    let e = run_simple(differ, 1, 32, 32).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Undefined);
    assert!(e.message.contains("differs from lane 0's 0xffffffff"), "{e}");
    // A mask without the executing lane itself.
    for op in ["redux.sync.add.u32 %r2, %r1, 0xfffffffe;", "match.any.sync.b32 %r2, %r1, 0xfffffffe;", "vote.sync.any.pred %p2, %p1, 0xfffffffe;"] {
        let body = format!("setp.eq.u32 %p1, %r1, 0;\n{op}\nret;");
        let e = run_simple(&body, 1, 32, 32).unwrap_err();
        assert!(e.message.contains("does not include the lane itself"), "{op}: {e}");
    }
    // Lanes 0-15 shuffle among themselves with mask 0xffff, but lane 15 reads lane 16.
    let outside = "setp.ge.u32 %p1, %r1, 16;\n@%p1 ret;\nshfl.sync.down.b32 %r2, %r1, 1, 31, 0xffff;\nst.global.b32 [%rd3], %r2;\nret;";
    let e = run_simple(outside, 1, 32, 32).unwrap_err();
    assert!(e.message.contains("lane 16"), "{e}");
    // elect.sync picks the lowest member; with the right masks everything runs.
    let ok = "elect.sync %r2|%p1, 0xff00;\nselp.u32 %r3, 1, 0, %p1;\nst.global.b32 [%rd3], %r2;\nret;";
    let e = run_simple(ok, 1, 32, 32).unwrap_err();
    assert!(e.message.contains("does not include the lane itself"), "lanes outside 0xff00 may not execute it: {e}");
    let ok = "setp.lt.u32 %p2, %r1, 8;\n@%p2 ret;\nsetp.ge.u32 %p2, %r1, 16;\n@%p2 ret;\nelect.sync %r2|%p1, 0xff00;\nst.global.b32 [%rd3], %r2;\nret;";
    let out = run_simple(ok, 1, 32, 32).unwrap();
    assert_eq!(out[8..16], [8; 8]);
}

/// Special registers: lane id and masks, warp id, CTA and block coordinates.
#[test]
fn special_registers() {
    let body = "mov.u32 %r2, %laneid;\nmov.u32 %r3, %lanemask_lt;\nmov.u32 %r4, %lanemask_ge;\nmov.u32 %r5, %warpid;\nmov.u32 %r6, %ctaid.x;\n\
                mov.u32 %r7, %nctaid.x;\nmov.u32 %r8, %ntid.x;\nmov.u32 %r9, %ntid.y;\n\
                mov.u32 %r10, %ctaid.x;\nmad.lo.u32 %r11, %r10, %r8, %r1;\nmul.wide.u32 %rd4, %r11, 32;\nadd.s64 %rd5, %rd1, %rd4;\n\
                st.global.v4.b32 [%rd5], {%r2, %r3, %r4, %r5};\nst.global.v4.b32 [%rd5+16], {%r6, %r7, %r8, %r9};\nret;";
    let out = run_simple(body, 2, 64, 2 * 64 * 8).unwrap();
    for cta in 0..2u32 {
        for t in 0..64u32 {
            let row = &out[((cta * 64 + t) * 8) as usize..][..8];
            let lane = t % 32;
            assert_eq!(row[0], lane, "laneid of thread {t}");
            assert_eq!(row[1], (1u32 << lane) - 1, "lanemask_lt");
            assert_eq!(row[2], !((1u32 << lane) - 1), "lanemask_ge");
            assert_eq!(row[3], t / 32, "warpid");
            assert_eq!(&row[4..8], &[cta, 2, 64, 1], "ctaid.x, nctaid.x, ntid.x, ntid.y");
        }
    }
}
