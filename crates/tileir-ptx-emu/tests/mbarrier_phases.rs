//! mbarrier phase misuse: a parity wait that names the wrong phase (a deadlock whose report
//! says which phase the wait names and which completed), and state-token waits on a phase
//! older than the one before the current (undefined in the ISA: "stale phase").

use tileir_ptx_emu::{run, Arg, Buffer, EmuError, ErrorKind, LaunchConfig, Module, Options};

fn launch(body: &str, block: u32) -> Result<Vec<u32>, EmuError> {
    let text = format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n.shared .align 8 .b64 bar;\n\
         .visible .entry k(.param .u64 out)\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n\
         ld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, bar;\n{body}\nret;\n}}\n"
    );
    let p = Module::parse(&text).unwrap().kernel(None).unwrap();
    let cfg = LaunchConfig { grid: [1, 1, 1], block: [block, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() };
    let mut bufs = vec![Buffer::new("out", vec![0u8; 4 * block as usize])];
    run(&p, &cfg, &[Arg::Buffer(0, 0)], &mut bufs)?;
    Ok(bufs[0].data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// Thread 0 inits a one-arrival mbarrier; after a CTA barrier each thread arrives once
/// (count 1: thread 0 only) and waits on parity `PARITY`.
const PARITY_KERNEL: &str = "setp.eq.u32 %p1, %r1, 0;\n@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;\nbar.sync 0;\n\
    @%p1 mbarrier.arrive.shared::cta.b64 %rd2, [%r2];\n\
    $L_wait:\nmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], PARITY;\n@!%p2 bra $L_wait;\n\
    mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\nst.global.b32 [%rd4], 1;";

#[test]
fn parity_wait_on_the_completed_phase_passes() {
    // Phase 0 completes with thread 0's arrival; parity 0 names it.
    let out = launch(&PARITY_KERNEL.replace("PARITY", "0"), 64).unwrap();
    assert!(out.iter().all(|&v| v == 1));
}

#[test]
fn wrong_parity_deadlock_names_the_phases() {
    // Parity 1 names phase 1 once phase 0 completed: nobody arrives on it. The deadlock
    // report says which phase the wait names, and that the completed one has parity 0.
    let e = launch(&PARITY_KERNEL.replace("PARITY", "1"), 64).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    let m = e.to_string();
    assert!(m.contains("mbarrier at shared 0x0: phase 1, 1 of 1 arrival(s) pending, tx-count 0"), "{m}");
    assert!(m.contains("the wait names parity 1, i.e. the current, incomplete phase 1: the last completed phase is 0 (parity 0); a wait meant for it names the wrong parity"), "{m}");
    assert!(m.contains("at PTX line 19"), "the try_wait's line: {m}");
}

/// Thread 0 inits a one-arrival mbarrier, arrives (token of phase 0), arrives twice more
/// (completing phases 1 and 2 too when `EXTRA` is 2), then tests its phase-0 token.
const TOKEN_KERNEL: &str = "setp.eq.u32 %p1, %r1, 0;\n@!%p1 bra $L_end;\nmbarrier.init.shared::cta.b64 [%r2], 1;\n\
    mbarrier.arrive.shared::cta.b64 %rd2, [%r2];\nEXTRA\
    mbarrier.test_wait.shared::cta.b64 %p2, [%r2], %rd2;\nselp.u32 %r3, 1, 0, %p2;\nst.global.b32 [%rd1], %r3;\n$L_end:";

#[test]
fn state_token_of_the_previous_phase_passes() {
    let out = launch(&TOKEN_KERNEL.replace("EXTRA", ""), 32).unwrap();
    assert_eq!(out[0], 1);
}

#[test]
fn state_token_two_phases_old_is_a_stale_phase() {
    // The second arrive completes phase 1 too: the phase-0 token is two phases behind.
    let e = launch(&TOKEN_KERNEL.replace("EXTRA", "mbarrier.arrive.shared::cta.b64 %rd3, [%r2];\n"), 32).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Undefined, "{e}");
    let m = e.to_string();
    assert!(m.contains("PTX line 18"), "{m}");
    assert!(m.contains("mbarrier wait on a stale phase: the state token is from phase 0, but the mbarrier at shared 0x0 is in phase 2"), "{m}");
}

#[test]
fn state_token_of_a_phase_not_reached() {
    let e = launch(&TOKEN_KERNEL.replace("EXTRA", "mov.u64 %rd2, 7;\n"), 32).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Undefined, "{e}");
    assert!(e.to_string().contains("a phase the mbarrier has not reached: the state token is from phase 7, but the mbarrier at shared 0x0 is in phase 1"), "{e}");
}
