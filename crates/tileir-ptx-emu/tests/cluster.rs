//! Thread-block clusters: the cluster special registers, distributed shared memory through
//! `mapa` and `.shared::cluster` accesses, `barrier.cluster`, remote mbarrier arrivals and
//! TMA multicast, and the errors (grid not divisible, addresses outside every CTA's window,
//! deadlocked cluster barriers).

use tileir_ptx_emu::tensor_map::{DataType, Swizzle, TensorMap};
use tileir_ptx_emu::{run, Arg, Buffer, EmuError, ErrorKind, LaunchConfig, Module, Options};

fn launch(text: &str, grid: [u32; 3], block: u32, options: Options, bufs: &mut [Buffer], args: &[Arg]) -> Result<(), EmuError> {
    let p = Module::parse(text).unwrap().kernel(None).unwrap();
    let cfg = LaunchConfig { grid, block: [block, 1, 1], dyn_shared: 0, options, ..LaunchConfig::default() };
    run(&p, &cfg, args, bufs).map(|_| ())
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Thread 0 of each CTA writes 16 words at out[16 * linear ctaid]: %clusterid.{x,y},
/// %nclusterid.{x,y}, %cluster_ctaid.{x,y}, %cluster_nctaid.{x,y}, %cluster_ctarank,
/// %cluster_nctarank, %is_explicit_cluster, %ctaid.{x,y}, %clusterid.z, %cluster_nctaid.z, 0.
const SREGS: &str = r#".version 8.6
.target sm_90a
.address_size 64
.visible .entry sregs(.param .u64 out)
DIRECTIVE
{
.reg .pred %p<2>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
ld.param.b64 %rd1, [out];
mov.u32 %r1, %tid.x;
setp.ne.u32 %p1, %r1, 0;
@%p1 bra $L_end;
mov.u32 %r2, %ctaid.x;
mov.u32 %r3, %ctaid.y;
mov.u32 %r4, %nctaid.x;
mad.lo.u32 %r5, %r3, %r4, %r2;
mul.wide.u32 %rd2, %r5, 64;
add.s64 %rd3, %rd1, %rd2;
mov.u32 %r6, %clusterid.x;
mov.u32 %r7, %clusterid.y;
mov.u32 %r8, %nclusterid.x;
mov.u32 %r9, %nclusterid.y;
st.global.v4.b32 [%rd3], {%r6, %r7, %r8, %r9};
mov.u32 %r10, %cluster_ctaid.x;
mov.u32 %r11, %cluster_ctaid.y;
mov.u32 %r12, %cluster_nctaid.x;
mov.u32 %r13, %cluster_nctaid.y;
st.global.v4.b32 [%rd3+16], {%r10, %r11, %r12, %r13};
mov.u32 %r14, %cluster_ctarank;
mov.u32 %r15, %cluster_nctarank;
mov.u32 %r16, %is_explicit_cluster;
st.global.v4.b32 [%rd3+32], {%r14, %r15, %r16, %r2};
mov.u32 %r17, %clusterid.z;
mov.u32 %r18, %cluster_nctaid.z;
mov.u32 %r19, 0;
st.global.v4.b32 [%rd3+48], {%r3, %r17, %r18, %r19};
$L_end:
ret;
}
"#;

fn sregs(directive: &str, grid: [u32; 3], cluster: Option<[u32; 3]>) -> Result<Vec<[u32; 16]>, EmuError> {
    let n = (grid[0] * grid[1]) as usize;
    let mut bufs = vec![Buffer::new("out", vec![0u8; 64 * n])];
    let options = Options { cluster, ..Options::default() };
    launch(&SREGS.replace("DIRECTIVE", directive), grid, 32, options, &mut bufs, &[Arg::Buffer(0, 0)])?;
    Ok(words(&bufs[0].data).chunks(16).map(|c| c.try_into().unwrap()).collect())
}

#[test]
fn special_registers_of_a_2x1x1_cluster() {
    let grid = [4, 2, 1];
    let got = sregs(".reqnctapercluster 2, 1, 1", grid, None).unwrap();
    for y in 0..2u32 {
        for x in 0..4u32 {
            let r = got[(y * 4 + x) as usize];
            let want = [x / 2, y, 2, 2, x % 2, 0, 2, 1, x % 2, 2, 1, x, y, 0, 1, 0];
            assert_eq!(r, want, "CTA ({x},{y})");
        }
    }
    // The same clusters given at launch; a kernel's directive that disagrees is refused.
    assert_eq!(sregs("", grid, Some([2, 1, 1])).unwrap(), got);
    assert_eq!(sregs(".reqnctapercluster 2, 1, 1", grid, Some([2, 1, 1])).unwrap(), got);
    let e = sregs(".reqnctapercluster 2, 1, 1", grid, Some([1, 2, 1])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Launch, "{e}");
    // Without clusters: each CTA is its own, not explicit.
    let plain = sregs("", grid, None).unwrap();
    for y in 0..2u32 {
        for x in 0..4u32 {
            assert_eq!(plain[(y * 4 + x) as usize], [x, y, 4, 2, 0, 0, 1, 1, 0, 1, 0, x, y, 0, 1, 0], "CTA ({x},{y})");
        }
    }
    // .explicitcluster alone: clusters of one CTA that report explicit.
    assert_eq!(sregs(".explicitcluster", grid, None).unwrap()[0][10], 1);
}

#[test]
fn special_registers_of_a_2x2x1_cluster() {
    let grid = [4, 4, 1];
    for (directive, cluster) in [(".reqnctapercluster 2, 2, 1", None), ("", Some([2, 2, 1]))] {
        let got = sregs(directive, grid, cluster).unwrap();
        for y in 0..4u32 {
            for x in 0..4u32 {
                let r = got[(y * 4 + x) as usize];
                let rank = x % 2 + 2 * (y % 2);
                let want = [x / 2, y / 2, 2, 2, x % 2, y % 2, 2, 2, rank, 4, 1, x, y, 0, 1, 0];
                assert_eq!(r, want, "{directive:?} CTA ({x},{y})");
            }
        }
    }
}

#[test]
fn a_grid_not_divisible_into_clusters_is_refused() {
    let e = sregs(".reqnctapercluster 2, 1, 1", [3, 1, 1], None).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Launch, "{e}");
    assert!(e.message.contains("[3, 1, 1]") && e.message.contains("[2, 1, 1]"), "{e}");
    let e = sregs("", [4, 3, 1], Some([2, 2, 1])).unwrap_err();
    assert!(e.message.contains("[4, 3, 1]") && e.message.contains("[2, 2, 1]"), "{e}");
}

/// 2-CTA clusters of 64 threads: thread t writes 100 * (rank + 1) + t into its neighbour's
/// s[t] through mapa, then (BARRIER) reads its own s[t] into out[64 * ctaid.x + t].
const EXCHANGE: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 16 .b8 s[256];
.visible .entry exchange(.param .u64 out)
.reqnctapercluster 2, 1, 1
{
.reg .pred %p<2>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
ld.param.b64 %rd1, [out];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %cluster_ctarank;
xor.b32 %r3, %r2, 1;
mov.u32 %r4, s;
shl.b32 %r5, %r1, 2;
add.s32 %r6, %r4, %r5;
mapa.shared::cluster.u32 %r7, %r6, %r3;
add.s32 %r8, %r2, 1;
mul.lo.u32 %r9, %r8, 100;
add.s32 %r10, %r9, %r1;
st.shared::cluster.u32 [%r7], %r10;
BARRIER
ld.shared.u32 %r11, [%r6];
mov.u32 %r12, %ctaid.x;
shl.b32 %r13, %r12, 6;
add.s32 %r14, %r13, %r1;
mul.wide.u32 %rd2, %r14, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r11;
ret;
}
"#;

const CLUSTER_BARRIER: &str = "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;";

fn exchange(barrier: &str, race: bool) -> Result<Vec<u32>, EmuError> {
    let mut bufs = vec![Buffer::new("out", vec![0u8; 4 * 64 * 4])];
    let options = Options { race_check: race, ..Options::default() };
    launch(&EXCHANGE.replace("BARRIER", barrier), [4, 1, 1], 64, options, &mut bufs, &[Arg::Buffer(0, 0)])?;
    Ok(words(&bufs[0].data))
}

#[test]
fn dsmem_exchange_through_mapa_and_the_cluster_barrier() {
    let want: Vec<u32> = (0..4u32).flat_map(|c| (0..64u32).map(move |t| 100 * (((c % 2) ^ 1) + 1) + t)).collect();
    for race in [false, true] {
        assert_eq!(exchange(CLUSTER_BARRIER, race).unwrap(), want, "race check {race}");
        // The relaxed arrive also completes the phase.
        let relaxed = "barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;";
        assert_eq!(exchange(relaxed, race).unwrap(), want, "race check {race}");
    }
    // Generic addresses: mapa.u64 of a cvta'd address, st through the generic window.
    let generic = EXCHANGE
        .replace("mapa.shared::cluster.u32 %r7, %r6, %r3;", "cvt.u64.u32 %rd4, %r6;\ncvta.shared.u64 %rd5, %rd4;\nmapa.u64 %rd6, %rd5, %r3;")
        .replace("st.shared::cluster.u32 [%r7], %r10;", "st.u32 [%rd6], %r10;")
        .replace("BARRIER", CLUSTER_BARRIER);
    let mut bufs = vec![Buffer::new("out", vec![0u8; 4 * 64 * 4])];
    launch(&generic, [4, 1, 1], 64, Options::default(), &mut bufs, &[Arg::Buffer(0, 0)]).unwrap();
    assert_eq!(words(&bufs[0].data), want);
}

#[test]
fn dsmem_exchange_without_the_barrier_reads_too_early() {
    // Rank 0 runs first and reads its s[] before rank 1 has written it: the fill pattern
    // instead of the neighbour's value; the race check reports the never-written byte.
    let got = exchange("", false).unwrap();
    assert_eq!(got[0], 0xffff_ffff);
    assert_ne!(got[..64], (0..64u32).map(|t| 200 + t).collect::<Vec<_>>()[..]);
    let e = exchange("", true).unwrap_err();
    assert!(e.message.contains("nothing has written"), "{e}");
    assert_eq!(e.line, 22, "{e}");
}

#[test]
fn dsmem_addresses_outside_the_cluster_fault_with_the_line() {
    // Rank 2 of a 2-CTA cluster.
    let text = EXCHANGE.replace("xor.b32 %r3, %r2, 1;", "mov.u32 %r3, 2;").replace("BARRIER", CLUSTER_BARRIER);
    let e = exchange_text(&text).unwrap_err();
    assert_eq!(e.line, 16, "{e}");
    assert!(e.message.contains("cluster rank 2") && e.message.contains("2 CTA(s)"), "{e}");
    // An address in no CTA's window (rank 5's).
    let text = EXCHANGE.replace("add.s32 %r8, %r2, 1;", "add.s32 %r7, %r7, 0x05000000;\nadd.s32 %r8, %r2, 1;").replace("BARRIER", CLUSTER_BARRIER);
    let e = exchange_text(&text).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Memory, "{e}");
    assert_eq!(e.line, 21, "{e}");
    assert!(e.message.contains("outside every CTA's window"), "{e}");
}

fn exchange_text(text: &str) -> Result<Vec<u32>, EmuError> {
    let mut bufs = vec![Buffer::new("out", vec![0u8; 4 * 64 * 4])];
    launch(text, [4, 1, 1], 64, Options::default(), &mut bufs, &[Arg::Buffer(0, 0)])?;
    Ok(words(&bufs[0].data))
}

#[test]
fn a_cluster_barrier_that_cannot_complete_is_a_deadlock_naming_the_ctas() {
    // Rank 1's second warp waits at a named barrier for 64 threads instead of arriving.
    let text = EXCHANGE.replace(
        "BARRIER",
        "setp.eq.u32 %p1, %r2, 1;\nsetp.ge.and.u32 %p1, %r1, 32, %p1;\n@%p1 bar.sync 1, 64;\nbarrier.cluster.arrive;\nbarrier.cluster.wait;",
    );
    let e = exchange_text(&text).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("CTA (0,0,0), CTA (1,0,0)"), "{e}");
    assert!(e.message.contains("wait at the cluster barrier"), "{e}");
    assert!(e.message.contains("cluster barrier: 32 of 64 live thread(s) of CTA (1,0,0)"), "{e}");
    // A wait without an arrive is an error of its own.
    let e = exchange_text(&EXCHANGE.replace("BARRIER", "barrier.cluster.wait;")).unwrap_err();
    assert!(e.message.contains("without a preceding barrier.cluster.arrive"), "{e}");
}

/// Remote mbarrier arrival: each CTA's thread 0 inits its mbarrier (count 1); after a
/// cluster barrier, rank 1 arrives on rank 0's mbarrier through a shared::cluster address
/// and rank 0 arrives on rank 1's; everybody waits for phase 0 of its own mbarrier.
const REMOTE_ARRIVE: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 8 .b8 bar[8];
.visible .entry remote(.param .u64 out)
.reqnctapercluster 2, 1, 1
{
.reg .pred %p<4>; .reg .b32 %r<24>; .reg .b64 %rd<8>;
ld.param.b64 %rd1, [out];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %cluster_ctarank;
xor.b32 %r3, %r2, 1;
mov.u32 %r4, bar;
setp.eq.u32 %p1, %r1, 0;
@%p1 mbarrier.init.shared::cta.b64 [%r4], 1;
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
mapa.shared::cluster.u32 %r5, %r4, %r3;
ARRIVE
$L_spin:
mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], 0;
@!%p2 bra $L_spin;
mov.u32 %r6, %ctaid.x;
mul.wide.u32 %rd2, %r6, 4;
add.s64 %rd3, %rd1, %rd2;
@%p1 st.global.u32 [%rd3], 7;
ret;
}
"#;

#[test]
fn remote_mbarrier_arrive_completes_the_other_ctas_phase() {
    let text = REMOTE_ARRIVE.replace("ARRIVE", "@%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r5];");
    let mut bufs = vec![Buffer::new("out", vec![0u8; 16])];
    launch(&text, [4, 1, 1], 64, Options::default(), &mut bufs, &[Arg::Buffer(0, 0)]).unwrap();
    assert_eq!(words(&bufs[0].data), vec![7; 4]);
    // Only rank 1 arrives (on rank 0's): rank 1's own mbarrier never completes.
    let text = REMOTE_ARRIVE.replace("ARRIVE", "setp.eq.and.u32 %p3, %r2, 1, %p1;\n@%p3 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r5];");
    let e = launch(&text, [2, 1, 1], 64, Options::default(), &mut bufs, &[Arg::Buffer(0, 0)]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("CTA (1,0,0) (rank 1)") && e.message.contains("1 of 1 arrival(s) pending"), "{e}");
}

/// TMA multicast: each CTA of a 2-CTA cluster inits its mbarrier and expects the box's
/// 8192 bytes; after a cluster barrier rank 0 issues one load multicast to MASK; every
/// thread waits, then copies the CTA's box to out[8192 * rank ..].
const MULTICAST: &str = r#".version 8.6
.target sm_90a
.address_size 64
.shared .align 1024 .b8 buf[8192];
.shared .align 8 .b8 bar[8];
.visible .entry multicast(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u16 mask)
.reqnctapercluster 2, 1, 1
{
.reg .pred %p<4>; .reg .b16 %h<2>; .reg .b32 %r<24>; .reg .b64 %rd<12>;
mov.u64 %rd1, tmap;
cvta.param.u64 %rd2, %rd1;
ld.param.b64 %rd3, [out];
ld.param.u16 %h1, [mask];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %cluster_ctarank;
mov.u32 %r3, bar;
mov.u32 %r4, buf;
setp.eq.u32 %p1, %r1, 0;
@%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
barrier.cluster.arrive.aligned;
barrier.cluster.wait.aligned;
@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r3], 8192;
setp.eq.and.u32 %p2, %r2, 0, %p1;
mov.u32 %r5, 0;
@%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd2, {%r5, %r5}], [%r3], %h1;
$L_spin:
mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
@!%p3 bra $L_spin;
mul.wide.u32 %rd5, %r2, 8192;
add.s64 %rd6, %rd3, %rd5;
mov.u32 %r6, 0;
$L_copy:
shl.b32 %r7, %r6, 7;
add.s32 %r8, %r7, %r1;
shl.b32 %r9, %r8, 2;
add.s32 %r10, %r4, %r9;
ld.shared.u32 %r11, [%r10];
cvt.u64.u32 %rd7, %r9;
add.s64 %rd8, %rd6, %rd7;
st.global.u32 [%rd8], %r11;
add.s32 %r6, %r6, 1;
setp.lt.u32 %p3, %r6, 16;
@%p3 bra $L_copy;
barrier.cluster.arrive.aligned;
barrier.cluster.wait.aligned;
ret;
}
"#;

fn multicast(mask: u16, race: bool) -> Result<(Vec<u8>, Vec<u8>), EmuError> {
    let input: Vec<u8> = (0..64 * 64u32).flat_map(|i| ((i * 7 + 3) as u16).to_le_bytes()).collect();
    let map = TensorMap::dense(0, DataType::F16, &[64, 64], &[64, 64], Swizzle::None);
    let mut bufs = vec![Buffer::new("in", input.clone()), Buffer::new("out", vec![0u8; 2 * 8192])];
    let args = [Arg::TensorMap(0, map), Arg::Buffer(1, 0), Arg::Bytes(mask.to_le_bytes().to_vec())];
    launch(MULTICAST, [2, 1, 1], 128, Options { race_check: race, ..Options::default() }, &mut bufs, &args)?;
    Ok((input, bufs[1].data.clone()))
}

#[test]
fn tma_multicast_delivers_the_box_to_every_cta_of_the_mask() {
    for race in [false, true] {
        let (input, out) = multicast(0b11, race).unwrap();
        assert_eq!(&out[..8192], &input[..], "rank 0, race check {race}");
        assert_eq!(&out[8192..], &input[..], "rank 1, race check {race}");
    }
    // Only rank 1 in the mask: rank 0's mbarrier never gets its bytes.
    let e = multicast(0b10, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("tx-count 8192"), "{e}");
    // A rank the cluster does not have.
    let e = multicast(0b100, false).unwrap_err();
    assert!(e.message.contains("multicast mask 0x4"), "{e}");
    assert_eq!(e.line, 25, "{e}");
}
