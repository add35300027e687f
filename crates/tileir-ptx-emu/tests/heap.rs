//! The device heap: `malloc`/`free` as LLVM 22's NVPTX backend calls them (the call
//! sequences tileir's `cuda_tile.alloca` lowering emits: one thread allocates, the pointer is
//! broadcast through shared memory, one thread frees), exhaustion, alignment, the fill
//! pattern, and each misuse reported as an error with the PTX line.

use tileir_ptx_emu::{run, Arg, Buffer, EmuError, ErrorKind, LaunchConfig, LaunchStats, Module, Options, DEFAULT_MALLOC_HEAP_BYTES};

/// The declarations LLVM 22 emits for the device heap's functions.
const DECLS: &str = ".version 8.6\n.target sm_90a\n.address_size 64\n\
    .extern .func  (.param .b64 func_retval0) malloc\n(\n\t.param .b64 malloc_param_0\n)\n;\n\
    .extern .func free\n(\n\t.param .b64 free_param_0\n)\n;\n";

/// `dst = malloc(size)` (`size` a register or an immediate), as LLVM writes the call sequence.
fn malloc(dst: &str, size: &str) -> String {
    format!(
        "{{ // callseq 0, 0\n\t.param .b64 \tparam0;\n\t.param .b64 \tretval0;\n\tst.param.b64 \t[param0], {size};\n\
         \tcall.uni (retval0), malloc, (param0);\n\tld.param.b64 \t{dst}, [retval0];\n\t}} // callseq 0\n"
    )
}

/// `free(ptr)`.
fn free(ptr: &str) -> String {
    format!("{{ // callseq 1, 0\n\t.param .b64 \tparam0;\n\tst.param.b64 \t[param0], {ptr};\n\tcall.uni free, (param0);\n\t}} // callseq 1\n")
}

/// A kernel `k(.param .u64 out)` with `%rd1` = out, `%r1` = %tid.x, `%r2` = %ctaid.x.
fn kernel(body: &str) -> String {
    format!(
        "{DECLS}.visible .entry k(.param .u64 out)\n{{\n.shared .align 8 .b64 bcast;\n.reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<32>;\n\
         ld.param.b64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\n{body}ret;\n}}\n"
    )
}

fn launch(text: &str, cfg: &LaunchConfig, out_bytes: usize) -> Result<(Vec<u8>, LaunchStats), EmuError> {
    let p = Module::parse(text)?.kernel(None)?;
    let mut bufs = vec![Buffer::new("out", vec![0u8; out_bytes])];
    let stats = run(&p, cfg, &[Arg::Buffer(0, 0)], &mut bufs)?;
    Ok((bufs.remove(0).data, stats))
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig { grid: [grid, 1, 1], block: [block, 1, 1], ..LaunchConfig::default() }
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The 1-based line of the `n`-th (0-based) line of `text` containing `needle`.
fn line_of(text: &str, needle: &str, n: usize) -> u32 {
    text.lines().enumerate().filter(|(_, l)| l.contains(needle)).nth(n).map(|(i, _)| i as u32 + 1).unwrap()
}

#[test]
fn malloc_broadcast_store_load_atomics_free_across_ctas() {
    const CTAS: u32 = 8;
    const THREADS: u32 = 64;
    // Thread 0 of each CTA allocates 264 bytes (64 words plus a counter and one word it
    // never writes) and broadcasts the pointer through shared memory; every thread writes
    // its word through a generic store and bumps the counter with a global atomic; after a
    // barrier each reads its neighbour's word through a generic load; thread 0 checks the
    // counter with atom.cas, reads the unwritten word (the fill pattern) and frees.
    let body = format!(
        "setp.ne.u32 %p1, %r1, 0;\n@%p1 bra $L_wait;\n{}st.shared.b64 [bcast], %rd2;\nmov.u32 %r3, 0;\nst.global.b32 [%rd2+256], %r3;\n\
         $L_wait:\nbar.sync 0;\nld.shared.b64 %rd3, [bcast];\n\
         mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd3, %rd4;\nmad.lo.s32 %r4, %r2, 1000, %r1;\nst.u32 [%rd5], %r4;\natom.global.add.u32 %r5, [%rd3+256], 1;\n\
         bar.sync 0;\nadd.u32 %r6, %r1, 1;\nand.b32 %r6, %r6, 63;\nmul.wide.u32 %rd6, %r6, 4;\nadd.s64 %rd7, %rd3, %rd6;\nld.u32 %r7, [%rd7];\n\
         mad.lo.s32 %r8, %r2, 64, %r1;\nmul.wide.u32 %rd8, %r8, 4;\nadd.s64 %rd9, %rd1, %rd8;\nst.global.u32 [%rd9], %r7;\n\
         bar.sync 0;\n@%p1 bra $L_end;\n\
         atom.global.cas.b32 %r9, [%rd3+256], 64, 7;\nld.global.u32 %r10, [%rd3+256];\nld.global.u32 %r11, [%rd3+260];\n\
         mad.lo.s32 %r12, %r2, 3, {};\nmul.wide.u32 %rd10, %r12, 4;\nadd.s64 %rd11, %rd1, %rd10;\nst.global.u32 [%rd11], %r9;\nst.global.u32 [%rd11+4], %r10;\nst.global.u32 [%rd11+8], %r11;\n\
         {}$L_end:\n",
        malloc("%rd2", "264"),
        CTAS * THREADS,
        free("%rd3")
    );
    let text = kernel(&body);
    let words = (CTAS * THREADS + 3 * CTAS) as usize;
    for threads in [1, 4] {
        for race_check in [false, true] {
            let c = LaunchConfig { options: Options { threads, race_check, ..Options::default() }, ..cfg(CTAS, THREADS) };
            let (out, stats) = launch(&text, &c, words * 4).unwrap();
            let out = u32s(&out);
            for cta in 0..CTAS {
                for t in 0..THREADS {
                    assert_eq!(out[(cta * THREADS + t) as usize], cta * 1000 + (t + 1) % THREADS, "CTA {cta} thread {t}");
                }
                let tail = &out[(CTAS * THREADS + 3 * cta) as usize..][..3];
                assert_eq!(tail, [64, 7, 0xCDCD_CDCD], "CTA {cta}: counter before/after cas, unwritten heap word");
            }
            assert_eq!((stats.heap_allocations, stats.heap_frees, stats.heap_live_at_exit, stats.heap_failed_allocations), (CTAS as u64, CTAS as u64, 0, 0));
            assert!((264..=264 * CTAS as u64).contains(&stats.heap_peak_bytes), "{stats:?}");
            if threads == 1 {
                // One CTA at a time: each frees before the next allocates.
                assert_eq!(stats.heap_peak_bytes, 264);
            }
        }
    }
}

#[test]
fn exhaustion_returns_null_and_zero_bytes_is_a_unique_pointer() {
    // With a 1000-byte heap: 600 fits, another 600 does not (NULL), after freeing the first
    // 600 fits again at a new address; malloc(0) gives a non-null pointer of its own.
    let body = format!(
        "{}{}{}{}{}{}st.global.v2.u64 [%rd1], {{%rd2, %rd3}};\nst.global.v2.u64 [%rd1+16], {{%rd4, %rd5}};\nst.global.u64 [%rd1+32], %rd6;\n{}{}{}",
        malloc("%rd2", "600"),
        malloc("%rd3", "600"),
        free("%rd2"),
        malloc("%rd4", "600"),
        malloc("%rd5", "0"),
        malloc("%rd6", "0"),
        free("%rd4"),
        free("%rd5"),
        free("%rd6"),
    );
    let c = LaunchConfig { malloc_heap_bytes: 1000, ..cfg(1, 1) };
    let (out, stats) = launch(&kernel(&body), &c, 40).unwrap();
    let p = u64s(&out);
    assert_ne!(p[0], 0);
    assert_eq!(p[1], 0, "the second 600 bytes do not fit in 1000");
    assert!(p[2] != 0 && p[2] != p[0], "a freed address is never handed out again: {p:x?}");
    assert!(p[3] != 0 && p[4] != 0 && p[3] != p[4] && p[3] != p[2], "malloc(0) pointers are non-null and unique: {p:x?}");
    assert_eq!((stats.heap_allocations, stats.heap_frees, stats.heap_failed_allocations, stats.heap_peak_bytes, stats.heap_live_at_exit), (4, 4, 1, 600, 0));
    // The default heap is CUDA's 8 MiB: all of it at once fits, one byte more does not.
    assert_eq!(DEFAULT_MALLOC_HEAP_BYTES, 8 << 20);
    let body = format!("mov.u64 %rd7, {};\nadd.s64 %rd8, %rd7, 1;\n{}{}st.global.v2.u64 [%rd1], {{%rd2, %rd3}};\n{}", 8 << 20, malloc("%rd2", "%rd8"), malloc("%rd3", "%rd7"), free("%rd3"));
    let (out, stats) = launch(&kernel(&body), &cfg(1, 1), 16).unwrap();
    let p = u64s(&out);
    assert_eq!(p[0], 0, "{p:x?} {stats:?}");
    assert_ne!(p[1], 0);
    assert_eq!((stats.heap_allocations, stats.heap_failed_allocations, stats.heap_peak_bytes), (1, 1, 8 << 20));
}

#[test]
fn allocations_are_aligned_filled_and_leaks_are_counted() {
    // 32 lanes each allocate a different odd size (every lane its own allocation), record
    // address mod 16 and the first byte, and do not free: the stats show the leak.
    let body = format!(
        "mul.lo.u32 %r3, %r1, 7;\nadd.u32 %r3, %r3, 1;\ncvt.u64.u32 %rd4, %r3;\n{}and.b64 %rd5, %rd2, 15;\ncvt.u32.u64 %r4, %rd5;\nld.u8 %r5, [%rd2];\n\
         mul.wide.u32 %rd6, %r1, 8;\nadd.s64 %rd7, %rd1, %rd6;\nst.global.v2.u32 [%rd7], {{%r4, %r5}};\n",
        malloc("%rd2", "%rd4")
    );
    let (out, stats) = launch(&kernel(&body), &cfg(1, 32), 32 * 8).unwrap();
    let out = u32s(&out);
    for lane in 0..32 {
        assert_eq!(out[2 * lane], 0, "lane {lane}: malloc's pointer is 16-byte aligned");
        assert_eq!(out[2 * lane + 1], 0xCD, "lane {lane}: fresh heap bytes hold the fill pattern");
    }
    assert_eq!((stats.heap_allocations, stats.heap_frees, stats.heap_live_at_exit), (32, 0, 32));
    assert_eq!(stats.heap_peak_bytes, (0..32).map(|l| 7 * l + 1).sum::<u64>());
}

#[test]
fn use_after_free_is_a_fault_naming_the_allocation() {
    for access in ["ld.u32 %r3, [%rd2+16];", "st.global.u32 [%rd2+16], %r1;", "atom.global.cas.b32 %r3, [%rd2+16], 0, 1;", "ld.global.v2.u64 {%rd5, %rd6}, [%rd2+16];"] {
        let body = format!("{}{}{}{access}\n", malloc("%rd9", "64"), malloc("%rd2", "256"), free("%rd2"));
        let text = kernel(&body);
        let e = launch(&text, &cfg(1, 1), 4).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Memory, "{access}: {e}");
        assert_eq!(e.line, line_of(&text, access, 0), "{access}: {e}");
        assert!(e.message.contains("16 byte(s) into heap allocation #2 (256 bytes from malloc)") && e.message.contains("which was freed"), "{access}: {e}");
        assert!(e.message.contains("CTA (0,0,0) thread (0,0,0)"), "{e}");
    }
}

#[test]
fn double_free_is_an_error() {
    let body = format!("{}{}{}", malloc("%rd2", "32"), free("%rd2"), free("%rd2"));
    let text = kernel(&body);
    let e = launch(&text, &cfg(1, 1), 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory);
    assert_eq!(e.line, line_of(&text, "call.uni free", 1), "{e}");
    assert!(e.message.contains("heap allocation #1 (32 bytes from malloc)") && e.message.contains("already freed (a double free)"), "{e}");
    // free(NULL) is a no-op, as in C.
    let (_, stats) = launch(&kernel(&format!("mov.u64 %rd2, 0;\n{}", free("%rd2"))), &cfg(1, 1), 4).unwrap();
    assert_eq!((stats.heap_allocations, stats.heap_frees), (0, 0));
}

#[test]
fn free_of_what_malloc_did_not_return_is_an_error() {
    let heap = malloc("%rd2", "32");
    for (setup, why) in [
        ("add.s64 %rd3, %rd1, 0;\n".to_string(), "0 byte(s) into launch buffer 'out'"),
        (format!("{heap}add.s64 %rd3, %rd2, 8;\n"), "8 byte(s) into heap allocation #1 (32 bytes from malloc)"),
        (format!("{heap}add.s64 %rd3, %rd2, 4096;\n"), "no heap allocation starts there"),
        ("mov.u64 %rd4, bcast;\ncvta.shared.u64 %rd3, %rd4;\n".to_string(), "a generic shared address, not heap memory"),
        ("mov.u64 %rd3, 0x1234;\n".to_string(), "malloc never returned it"),
    ] {
        let text = kernel(&format!("{setup}{}", free("%rd3")));
        let e = launch(&text, &cfg(1, 1), 4).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Memory, "{why}: {e}");
        assert_eq!(e.line, line_of(&text, "call.uni free", 0), "{e}");
        assert!(e.message.contains("free of 0x") && e.message.contains(why), "{why}: {e}");
    }
}

#[test]
fn overruns_fault_like_buffer_overruns() {
    for (access, why) in [
        ("st.global.u32 [%rd2+256], %r1;", "4 byte(s) past the end of 'heap allocation #1 (256 bytes from malloc)'"),
        ("ld.v2.u64 {%rd5, %rd6}, [%rd2+256];", "8 byte(s) past the end of 'heap allocation #1 (256 bytes from malloc)'"),
        ("ld.global.u32 %r3, [%rd2+-4];", "4 byte(s) before the start of 'heap allocation #1"),
        ("ld.global.u8 %r3, [%rd7];", "1 byte(s) past the end of 'heap allocation #2 (0 bytes from malloc)'"),
    ] {
        let text = kernel(&format!("{}{}{access}\n", malloc("%rd2", "256"), malloc("%rd7", "0")));
        let e = launch(&text, &cfg(1, 1), 4).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Memory, "{access}: {e}");
        assert_eq!(e.line, line_of(&text, access, 0), "{e}");
        assert!(e.message.contains(why), "{access}: {e}");
    }
}

#[test]
fn decode_names_the_provided_functions() {
    let text = format!("{DECLS}.extern .func foo(.param .b64 a);\n.visible .entry k()\n{{\n.reg .b64 %rd<2>;\n{{\n.param .b64 param0;\nst.param.b64 [param0], 0;\ncall.uni foo, (param0);\n}}\nret;\n}}\n");
    let e = Module::parse(&text).unwrap().kernel(None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Decode);
    assert!(e.message.contains("only vprintf, __assertfail, malloc and free are provided"), "{e}");
}
