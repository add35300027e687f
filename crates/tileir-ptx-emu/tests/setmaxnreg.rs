//! `setmaxnreg`: per-warp register counts and the CTA's register pool. Warp-specialized
//! kernels (a producer warpgroup gives registers back, consumer warpgroups take them) run
//! when the counts fit what the CTA owns; an `.inc` the pool can never satisfy is a
//! deadlock naming it, and the ISA's rules (`.inc` below / `.dec` above the current count,
//! lanes or warps of a warpgroup disagreeing, a second setmaxnreg before the warpgroup
//! synchronized) are errors with the PTX line.

use tileir_ptx_emu::{run, Arg, Buffer, EmuError, ErrorKind, LaunchConfig, Module, Options};

/// A kernel of `threads` threads (`.reqntid` and `directives`): warpgroup `producer_wg`
/// runs `producer`, the others `consumer`; then every thread stores tid + 1 to `out[tid]`.
/// In both bodies %r1 is the thread index, %r2 its warpgroup, %r3 its warp in the
/// warpgroup, %r4 its lane.
fn ws(threads: u32, directives: &str, producer_wg: u32, producer: &str, consumer: &str) -> String {
    format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n.reqntid {threads}, 1, 1\n{directives}\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<8>;\n\
         ld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nshr.u32 %r2, %r1, 7;\nshr.u32 %r3, %r1, 5;\nand.b32 %r3, %r3, 3;\nand.b32 %r4, %r1, 31;\n\
         setp.eq.u32 %p1, %r2, {producer_wg};\n@%p1 bra $L_prod;\n{consumer}\nbra.uni $L_store;\n$L_prod:\n{producer}\n\
         $L_store:\nadd.s32 %r20, %r1, 1;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.b32 [%rd3], %r20;\nret;\n}}\n"
    )
}

fn launch(text: &str, threads: u32) -> Result<(), EmuError> {
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let cfg = LaunchConfig { grid: [2, 1, 1], block: [threads, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() };
    let mut bufs = vec![Buffer::new("out", vec![0u8; threads as usize * 4])];
    run(&p, &cfg, &[Arg::Buffer(0, 0)], &mut bufs)?;
    let out: Vec<u32> = bufs[0].data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert!(out.iter().enumerate().all(|(t, &v)| v == t as u32 + 1), "not every thread finished: {out:?}");
    Ok(())
}

/// The 1-based line of `text` holding `needle` (once).
fn line_of(text: &str, needle: &str) -> u32 {
    let hits: Vec<usize> = text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 1, "{needle}");
    hits[0] as u32
}

/// `__launch_bounds__(threads, 1)`: with `.reqntid`, what makes ptxas honour setmaxnreg.
const MIN1: &str = ".minnctapersm 1";

const DEC40: &str = "setmaxnreg.dec.sync.aligned.u32 40;";

fn inc(n: u32) -> String {
    format!("setmaxnreg.inc.sync.aligned.u32 {n};")
}

fn dec(n: u32) -> String {
    format!("setmaxnreg.dec.sync.aligned.u32 {n};")
}

#[test]
fn warp_specialized_split_that_fits_runs() {
    // 384 threads start at 168 each; the producer's dec to 40 frees 128 * 128 = 16384,
    // exactly what two consumer warpgroups' inc to 232 take (64 * 256).
    launch(&ws(384, MIN1, 0, DEC40, &inc(232)), 384).unwrap();
    // The producer last: the consumers ask first and get the registers once it gave them.
    launch(&ws(384, MIN1, 2, DEC40, &inc(232)), 384).unwrap();
    // 256 threads start at 256 (the maximum): only the producer gives back.
    launch(&ws(256, MIN1, 0, DEC40, ""), 256).unwrap();
    // .maxnreg 80 at 256 threads: the dec to 40 frees 40 * 128, the inc to 120 takes as much.
    launch(&ws(256, ".maxnreg 80", 0, DEC40, &inc(120)), 256).unwrap();
}

#[test]
fn inc_waits_for_a_later_dec() {
    // The consumers (warpgroups 0 and 1) run first and find the pool empty; the producer
    // (warpgroup 2) spins through a loop longer than a scheduler slice before it gives its
    // registers back. The consumers wait in their inc, then go on.
    let producer = format!("mov.u32 %r10, 0;\n$L_delay:\nadd.s32 %r10, %r10, 1;\nsetp.lt.u32 %p2, %r10, 5000;\n@%p2 bra $L_delay;\n{DEC40}");
    launch(&ws(384, MIN1, 2, &producer, &inc(232)), 384).unwrap();
    // Without the dec the same inc waits forever.
    let e = launch(&ws(384, MIN1, 2, &producer.replace(DEC40, ""), &inc(232)), 384).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("wait in setmaxnreg.inc 232 for 2048 registers (168 to 232 per thread, 32 threads) while the CTA's pool has 0"), "{e}");
}

#[test]
fn inc_past_the_ctas_registers_is_a_deadlock() {
    // Two consumer warpgroups at 240 need 72 * 256 = 18432 of the 16384 the producer freed:
    // seven consumer warps get 2304 each, the eighth waits for 2304 with 256 left.
    let text = ws(384, MIN1, 0, DEC40, &inc(240));
    let e = launch(&text, 384).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("warp 11 lanes 0-31 wait in setmaxnreg.inc 240 for 2304 registers (168 to 240 per thread, 32 threads) while the CTA's pool has 256"), "{e}");
    assert!(e.message.contains(&format!("at PTX line {}", line_of(&text, &inc(240)))), "{e}");
    // .maxnreg 80 at 384 threads: the CTA owns 80 per thread, the dec to 40 frees 5120 and
    // one consumer warp's inc to 232 takes 4864 of it.
    let text = ws(384, ".maxnreg 80", 0, DEC40, &inc(232));
    let e = launch(&text, 384).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("wait in setmaxnreg.inc 232 for 4864 registers (80 to 232 per thread, 32 threads) while the CTA's pool has 256 (registers released by setmaxnreg.dec; the CTA owns 80 per thread for 384 threads)"), "{e}");
}

#[test]
fn counts_against_the_current_one_are_errors() {
    // An inc below the launch count (168 at 384 threads).
    let text = ws(384, MIN1, 0, DEC40, &inc(160));
    let e = launch(&text, 384).unwrap_err();
    assert_eq!((&e.kind, e.line), (&ErrorKind::Undefined, line_of(&text, &inc(160))), "{e}");
    assert!(e.message.contains("warp 4: setmaxnreg.inc to 160 registers per thread is below the warp's current count 168"), "{e}");
    // A dec above it.
    let text = ws(384, MIN1, 0, &dec(200), "");
    let e = launch(&text, 384).unwrap_err();
    assert_eq!((&e.kind, e.line), (&ErrorKind::Undefined, line_of(&text, &dec(200))), "{e}");
    assert!(e.message.contains("warp 0: setmaxnreg.dec to 200 registers per thread is above the warp's current count 168"), "{e}");
    // A dec to 40 then an inc to 32 (after the warpgroup synchronized): below 40.
    let text = ws(256, MIN1, 0, &format!("{DEC40}\nbar.sync 1, 128;\n{}", inc(32)), "");
    let e = launch(&text, 256).unwrap_err();
    assert_eq!(e.line, line_of(&text, &inc(32)), "{e}");
    assert!(e.message.contains("setmaxnreg.inc to 32 registers per thread is below the warp's current count 40"), "{e}");
}

#[test]
fn lanes_of_a_warp_must_agree() {
    // Half the lanes skip it under a guard.
    let text = ws(256, MIN1, 0, &format!("setp.lt.u32 %p3, %r4, 16;\n@%p3 {DEC40}"), "");
    let e = launch(&text, 256).unwrap_err();
    assert_eq!((&e.kind, e.line), (&ErrorKind::Undefined, line_of(&text, DEC40)), "{e}");
    assert!(e.message.contains("warp 0: lanes 0-15 execute setmaxnreg but lanes 16-31 skip it"), "{e}");
    // Two halves at different setmaxnreg instructions.
    let text = ws(256, MIN1, 0, &format!("setp.lt.u32 %p3, %r4, 16;\n@%p3 bra $L_a;\n{}\nbra.uni $L_j;\n$L_a:\n{DEC40}\n$L_j:", dec(48)), "");
    let e = launch(&text, 256).unwrap_err();
    assert_eq!((&e.kind, e.line), (&ErrorKind::Undefined, line_of(&text, DEC40)), "{e}");
    assert!(
        e.message.contains(&format!("warp 0: its lanes disagree on setmaxnreg: lanes 0-15 execute the one at PTX line {}, lanes 16-31 the one at PTX line {}", line_of(&text, DEC40), line_of(&text, &dec(48)))),
        "{e}"
    );
    // Half the lanes exit first: the rest alone is fine (exited lanes take no part).
    launch(&ws(256, MIN1, 1, "", &format!("setp.lt.u32 %p3, %r4, 16;\n@%p3 bra $L_go;\nadd.s32 %r20, %r1, 1;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.b32 [%rd3], %r20;\nexit;\n$L_go:\n{DEC40}")), 256).unwrap();
}

#[test]
fn warps_of_a_warpgroup_must_agree() {
    // Warp 0 of the producer warpgroup gives back to 40, warps 1-3 to 48.
    let text = ws(256, MIN1, 0, &format!("setp.eq.u32 %p3, %r3, 0;\n@%p3 bra $L_a;\n{}\nbra.uni $L_j;\n$L_a:\n{DEC40}\n$L_j:", dec(48)), "");
    let e = launch(&text, 256).unwrap_err();
    assert_eq!((&e.kind, e.line), (&ErrorKind::Undefined, line_of(&text, &dec(48))), "{e}");
    assert!(e.message.contains(&format!("warp 1 executes setmaxnreg.dec 48 but warp 0 of its warpgroup executed setmaxnreg.dec 40 at PTX line {} as the warpgroup's setmaxnreg number 1", line_of(&text, DEC40))), "{e}");
}

#[test]
fn a_second_setmaxnreg_needs_the_warpgroup_synchronized() {
    // Warp 0 runs on to its second setmaxnreg before warps 1-3 executed the first.
    let text = ws(256, MIN1, 0, &format!("{DEC40}\n{}", dec(32)), "");
    let e = launch(&text, 256).unwrap_err();
    assert_eq!((&e.kind, e.line), (&ErrorKind::Undefined, line_of(&text, &dec(32))), "{e}");
    assert!(
        e.message.contains(&format!("warp 0 executes setmaxnreg.dec 32 (its setmaxnreg number 2) while warp 1 of its warpgroup has not executed the previous one (setmaxnreg.dec 40 at PTX line {})", line_of(&text, DEC40))),
        "{e}"
    );
    // A warpgroup barrier in between orders them; the registers come back from the pool.
    launch(&ws(256, MIN1, 0, &format!("{DEC40}\nbar.sync 1, 128;\n{}\nbar.sync 1, 128;\n{}", dec(32), inc(256)), ""), 256).unwrap();
}

#[test]
fn the_count_at_entry_follows_the_launch_bounds() {
    // Two CTAs per SM: 256 threads start at 65536 / 512 = 128. The dec to 40 frees
    // 88 * 128, exactly the consumers' inc to 216; at 224 three warps take 3072 each and
    // the fourth waits with 2048 left.
    let two = ".minnctapersm 2";
    launch(&ws(256, two, 0, DEC40, &inc(216)), 256).unwrap();
    let e = launch(&ws(256, two, 0, DEC40, &inc(224)), 256).unwrap_err();
    assert!(e.message.contains("wait in setmaxnreg.inc 224 for 3072 registers (128 to 224 per thread, 32 threads) while the CTA's pool has 2048"), "{e}");
    let e = launch(&ws(256, two, 0, DEC40, &inc(120)), 256).unwrap_err();
    assert!(e.message.contains("below the warp's current count 128"), "{e}");
    // .maxnreg caps the count below 65536 / threads.
    let e = launch(&ws(256, &format!("{MIN1}\n.maxnreg 96"), 0, DEC40, &inc(88)), 256).unwrap_err();
    assert!(e.message.contains("below the warp's current count 96"), "{e}");
    // With .reqntid alone ptxas cannot tell the count at entry and drops setmaxnreg
    // (advisory C7508): the over-asking inc and the inc below 168 run as no-ops.
    launch(&ws(384, "", 0, DEC40, &inc(240)), 384).unwrap();
    launch(&ws(384, "", 0, DEC40, &inc(160)), 384).unwrap();
    launch(&ws(384, ".minnctapersm 1", 0, DEC40, &inc(232)), 384).unwrap();
}
