//! Emulated thread-instructions per second on one core: straight-line integer/FP ALU code,
//! and a 2^20-element vector add from real NVPTX output.
//!
//!     cargo bench -p tileir-ptx-emu --bench throughput

// A benchmark that reports on stdout.
#![allow(clippy::print_stdout)]

use std::time::Instant;

use tileir_ptx_emu::{run, Arg, Buffer, LaunchConfig, Module, Options};

/// A kernel of `n` dependent-free ALU instructions per thread (integer and f32 mixed), and
/// one store so the work is observable.
fn alu_kernel(n: usize) -> String {
    let mut body = String::new();
    for i in 0..n {
        let (d, a, b) = (4 + i % 8, 4 + (i + 3) % 8, 4 + (i + 5) % 8);
        body.push_str(&match i % 6 {
            0 => format!("add.s32 %r{d}, %r{a}, %r{b};\n"),
            1 => format!("xor.b32 %r{d}, %r{a}, %r{b};\n"),
            2 => format!("shl.b32 %r{d}, %r{a}, 3;\n"),
            3 => format!("mad.lo.s32 %r{d}, %r{a}, %r{b}, %r1;\n"),
            4 => format!("add.rn.f32 %r{d}, %r{a}, %r{b};\n"),
            _ => format!("fma.rn.f32 %r{d}, %r{a}, %r{b}, %r{a};\n"),
        });
    }
    format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry alu(.param .u64 out)\n{{\n.reg .b32 %r<16>;\n.reg .b64 %rd<4>;\n\
         ld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\nmov.b32 %r4, %r1;\nmov.b32 %r5, %r2;\nmov.b32 %r6, 3;\nmov.b32 %r7, 0f3F800000;\n\
         mov.b32 %r8, 5;\nmov.b32 %r9, 7;\nmov.b32 %r10, 11;\nmov.b32 %r11, 13;\n{body}mad.lo.s32 %r3, %r2, 128, %r1;\nmul.wide.u32 %rd2, %r3, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.b32 [%rd3], %r4;\nret;\n}}\n"
    )
}

fn main() {
    let opts = Options { threads: 1, ..Options::default() };
    // Straight-line ALU.
    let ctas = 64u32;
    let prog = Module::parse(&alu_kernel(2000)).unwrap().kernel(None).unwrap();
    let mut bufs = vec![Buffer::new("out", vec![0u8; ctas as usize * 128 * 4])];
    let cfg = LaunchConfig { grid: [ctas, 1, 1], block: [128, 1, 1], dyn_shared: 0, options: opts.clone(), ..LaunchConfig::default() };
    let t0 = Instant::now();
    let s = run(&prog, &cfg, &[Arg::Buffer(0, 0)], &mut bufs).unwrap();
    let dt = t0.elapsed().as_secs_f64();
    println!("straight-line ALU: {} thread-instructions in {dt:.3} s = {:.3e} thread-instructions/s on 1 core", s.thread_insts, s.thread_insts as f64 / dt);

    // Vector add, 2^20 elements, tile 1024.
    let prog = Module::parse(include_str!("../tests/data/vector_add.ptx")).unwrap().kernel(None).unwrap();
    let n = 1usize << 20;
    let a: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    for threads in [1usize, 0] {
        let mut bufs = vec![Buffer::new("a", a.clone()), Buffer::new("b", a.clone()), Buffer::new("c", vec![0u8; n * 4])];
        let nn = n as u32;
        let args = [Arg::Buffer(0, 0), Arg::U32(nn), Arg::U32(1), Arg::Buffer(1, 0), Arg::U32(nn), Arg::U32(1), Arg::Buffer(2, 0), Arg::U32(nn), Arg::U32(1)];
        let cfg = LaunchConfig { grid: [(n / 1024) as u32, 1, 1], block: [128, 1, 1], dyn_shared: 0, options: Options { threads, ..Options::default() }, ..LaunchConfig::default() };
        let t0 = Instant::now();
        let s = run(&prog, &cfg, &args, &mut bufs).unwrap();
        let dt = t0.elapsed().as_secs_f64();
        let label = if threads == 1 { "1 core".to_string() } else { "all cores".to_string() };
        println!("vector add 2^20 ({label}): {dt:.3} s, {} thread-instructions, {:.3e}/s", s.thread_insts, s.thread_insts as f64 / dt);
    }
}
