//! Conversion plans, executed on simulated register files and shared memory.

mod common;
use common::*;
use proptest::prelude::*;
use tileir_layout::*;

#[test]
fn identical_and_in_thread() {
    let b = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    assert_eq!(check_plan(&b, &b, 32), ConversionPlan::Identical);
    // Same threads, registers in another order.
    let mut regs = b.basis(Dim::Register);
    regs.reverse();
    let r = LinearLayout::new(
        vec![
            (Dim::Register, regs),
            (Dim::Lane, b.basis(Dim::Lane)),
            (Dim::Warp, b.basis(Dim::Warp)),
        ],
        b.out_dims(),
    )
    .unwrap();
    let p = check_plan(&b, &r, 32);
    assert_eq!(kind(&p), "in-thread");
    // Dropping a register (the destination needs a subset) is in-thread too.
    let s = slice_of(&b, 1)
        .unwrap()
        .expand_dims(1)
        .unwrap()
        .broadcast(1, 64)
        .unwrap();
    let _ = s;
}

#[test]
fn mma_accumulator_to_blocked_by_shuffles() {
    // One warp: the accumulator's column bit 0 is a register, the blocked layout's a lane, so
    // two readers want different registers of one sender unless the destination register
    // depends on the lane.
    let acc = mma_sync_accumulator([16, 8], [1, 1]).unwrap();
    let b = blocked(&[16, 8], &[1, 1], &[4, 8], &[1, 1], &[1, 0]).unwrap();
    let p = check_plan(&acc, &b, 32);
    let ConversionPlan::WarpShuffle { rounds } = &p else {
        panic!("expected shuffles, got {p:?}")
    };
    assert_eq!(rounds.len(), 4);
    assert!(rounds.iter().any(|r| r.uniform_dst_reg().is_none()));
    for r in rounds {
        // Every round is a permutation of lanes.
        let mut seen: Vec<u32> = r.src_lane.clone();
        seen.sort();
        assert_eq!(seen, (0..32).collect::<Vec<_>>());
    }
    // With several warps, each warp shuffles on its own.
    let acc = mma_sync_accumulator([64, 8], [4, 1]).unwrap();
    let b = blocked(&[64, 8], &[4, 1], &[4, 8], &[4, 1], &[1, 0]).unwrap();
    assert_eq!(kind(&check_plan(&acc, &b, 16)), "shuffle");
    // A lane-rotation in a blocked layout is a plain xor shuffle.
    let b1 = blocked(&[8, 32], &[1, 1], &[1, 32], &[1, 1], &[1, 0]).unwrap();
    let lanes: Vec<Vec<u32>> = b1.basis(Dim::Lane).into_iter().rev().collect();
    let b2 = LinearLayout::new(
        vec![(Dim::Register, b1.basis(Dim::Register)), (Dim::Lane, lanes)],
        b1.out_dims(),
    )
    .unwrap();
    let p = check_plan(&b1, &b2, 32);
    let ConversionPlan::WarpShuffle { rounds } = &p else {
        panic!("expected shuffles, got {p:?}")
    };
    assert!(rounds
        .iter()
        .all(|r| r.uniform_dst_reg().is_some() && r.uniform_send_reg().is_some()));
}

#[test]
fn operand_and_wgmma_conversions() {
    // Global-load layout to mma.sync operands (through shared memory: warps differ).
    let g = blocked(&[64, 32], &[1, 8], &[16, 2], &[4, 1], &[1, 0]).unwrap();
    let a = mma_sync_operand_a([64, 32], 16, [2, 2]).unwrap();
    let p = check_plan(&g, &a, 16);
    assert_eq!(kind(&p), "shared");
    let b = mma_sync_operand_b([32, 64], 16, [2, 2]).unwrap();
    let gb = blocked(&[32, 64], &[1, 8], &[4, 8], &[4, 1], &[1, 0]).unwrap();
    check_plan(&gb, &b, 16);
    // Accumulator to operand A of the next mma (flash-attention style P @ V): for 16-bit A the
    // fragments coincide; for 8-bit A (k-width 4) the registers move within warps only.
    let acc = mma_sync_accumulator([64, 32], [4, 1]).unwrap();
    let a = mma_sync_operand_a([64, 32], 16, [4, 1]).unwrap();
    assert_eq!(check_plan(&acc, &a, 16), ConversionPlan::Identical);
    let a8 = mma_sync_operand_a([64, 32], 8, [4, 1]).unwrap();
    let p = check_plan(&acc, &a8, 8);
    assert_eq!(kind(&p), "shuffle", "{p:?}");
    // wgmma accumulator to a slice (row reduction result) broadcast back.
    let w = wgmma_accumulator([64, 64], 4).unwrap();
    let s = slice_of(&w, 1)
        .unwrap()
        .expand_dims(1)
        .unwrap()
        .broadcast(1, 64)
        .unwrap();
    check_plan(&s, &w, 32);
}

fn assert_conflict_free(p: &ConversionPlan) -> &SharedPlan {
    let ConversionPlan::SharedMemory(s) = p else {
        panic!("expected a shared-memory plan, got {p:?}")
    };
    assert!(
        s.store.conflict_free(),
        "store conflicts: {:?} vs ideal {}",
        s.store.wavefronts,
        s.store.ideal_wavefronts
    );
    assert!(
        s.load.conflict_free(),
        "load conflicts: {:?} vs ideal {}",
        s.load.wavefronts,
        s.load.ideal_wavefronts
    );
    s
}

#[test]
fn blocked_transpose_is_conflict_free() {
    for elem_bits in [16, 32] {
        let row = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
        let col = blocked(&[64, 64], &[4, 1], &[4, 8], &[1, 4], &[0, 1]).unwrap();
        let p = check_plan(&row, &col, elem_bits);
        let s = assert_conflict_free(&p);
        assert!(s.store.vec * s.load.vec >= 4, "{s:?}");
        let p = check_plan(&col, &row, elem_bits);
        assert_conflict_free(&p);
    }
}

#[test]
fn mma_accumulator_to_blocked_is_conflict_free() {
    for (elem_bits, warps) in [(32, [2, 2]), (16, [4, 1]), (32, [4, 1])] {
        let acc = mma_sync_accumulator([64, 64], warps).unwrap();
        let b = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
        let p = check_plan(&acc, &b, elem_bits);
        assert_conflict_free(&p);
    }
    let acc = wgmma_accumulator([64, 128], 4).unwrap();
    let b = blocked(&[64, 128], &[1, 8], &[4, 8], &[4, 1], &[1, 0]).unwrap();
    let p = check_plan(&acc, &b, 16);
    assert_conflict_free(&p);
}

#[test]
fn bank_model() {
    // 32 lanes reading consecutive words: one wavefront.
    let a: Vec<Option<u64>> = (0..32).map(|l| Some(4 * l)).collect();
    assert_eq!(wavefronts(&a, 4), 1);
    // Stride of 128 bytes: all lanes on bank 0, 32 distinct words.
    let a: Vec<Option<u64>> = (0..32).map(|l| Some(128 * l)).collect();
    assert_eq!(wavefronts(&a, 4), 32);
    // Everyone reading the same word: broadcast.
    let a: Vec<Option<u64>> = (0..32).map(|_| Some(64)).collect();
    assert_eq!(wavefronts(&a, 4), 1);
    // 16-byte vectors, consecutive: 4 wavefronts (ideal).
    let a: Vec<Option<u64>> = (0..32).map(|l| Some(16 * l)).collect();
    assert_eq!(wavefronts(&a, 16), 4);
    assert_eq!(ideal_wavefronts(16), 4);
    // 16-byte vectors down a column of 128-byte rows: 8-way conflicts in each quarter.
    let a: Vec<Option<u64>> = (0..32).map(|l| Some(128 * l)).collect();
    assert_eq!(wavefronts(&a, 16), 32);
    // 2-byte elements: two lanes in one word do not conflict.
    let a: Vec<Option<u64>> = (0..32).map(|l| Some(2 * l)).collect();
    assert_eq!(wavefronts(&a, 2), 1);
}

#[test]
fn nvmma_swizzle_is_conflict_free_for_16_byte_columns() {
    // Reading a 16-byte chunk of 8 consecutive rows (what ldmatrix and wgmma do) hits 8
    // different bank groups once swizzled; unswizzled it is an 8-way conflict.
    for (swizzle, cols) in [(128u32, 64u32), (64, 32), (32, 16)] {
        let l = nvmma_shared([64, cols], 16, swizzle, false).unwrap();
        assert!(l.is_bijective());
        let inv = l.invert().unwrap();
        for chunk in 0..cols / 8 {
            for row0 in (0..64).step_by(32) {
                let addrs: Vec<Option<u64>> = (0..32u32)
                    .map(|lane| {
                        let off =
                            inv.apply(&[(Dim::Tile(0), row0 + lane), (Dim::Tile(1), chunk * 8)])[0];
                        Some(u64::from(off) * 2)
                    })
                    .collect();
                let rows_per_line = 128 / (cols * 2);
                // Lanes of a quarter-warp read 8 rows; rows sharing a 128-byte line share banks
                // only when the swizzle is narrower than 128 bytes, which its period covers.
                let _ = rows_per_line;
                assert_eq!(wavefronts(&addrs, 16), 4, "swizzle {swizzle} chunk {chunk}");
            }
        }
        let plain = nvmma_shared([64, cols], 16, 0, false)
            .unwrap()
            .invert()
            .unwrap();
        let addrs: Vec<Option<u64>> = (0..32u32)
            .map(|lane| {
                Some(u64::from(plain.apply(&[(Dim::Tile(0), lane), (Dim::Tile(1), 0)])[0]) * 2)
            })
            .collect();
        assert!(wavefronts(&addrs, 16) > 4);
    }
}

fn shape_strategy() -> impl Strategy<Value = ([u32; 2], u32)> {
    (0u32..=6, 0u32..=6, 0u32..=2).prop_filter_map("small tiles", |(a, b, w)| {
        (a + b <= 10).then_some(([1 << a, 1 << b], w))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_conversions_move_every_element((shape, w) in shape_strategy(), s1 in any::<u64>(), s2 in any::<u64>(), eb in prop::sample::select(vec![8u32, 16, 32])) {
        let src = random_layout(shape, w, s1);
        let dst = random_layout(shape, w, s2);
        check_plan(&src, &dst, eb);
        // The shared path on its own is correct too.
        let p = ConversionPlan::SharedMemory(Box::new(plan_shared(&src, &dst, eb).unwrap()));
        let got = simulate(&p, &src, &dst, 1 << w);
        prop_assert_eq!(got, register_files(&dst, 1 << w));
    }

    #[test]
    fn same_threads_other_registers_is_in_thread((shape, w) in shape_strategy(), s in any::<u64>(), k in any::<u64>()) {
        let src = random_layout(shape, w, s);
        let mut regs = src.basis(Dim::Register);
        if regs.len() > 1 {
            let n = regs.len();
            regs.rotate_left((k as usize) % n);
        }
        let dst = LinearLayout::new(
            vec![(Dim::Register, regs), (Dim::Lane, src.basis(Dim::Lane)), (Dim::Warp, src.basis(Dim::Warp))],
            src.out_dims(),
        ).unwrap();
        let p = check_plan(&src, &dst, 32);
        let ok = matches!(p, ConversionPlan::Identical | ConversionPlan::InThread { .. });
        prop_assert!(ok, "unexpected plan {:?}", p);
    }

    #[test]
    fn blocked_conversions((shape, w) in shape_strategy(), p1 in 0u32..4, p2 in 0u32..4, o1 in any::<bool>(), o2 in any::<bool>()) {
        let mk = |v: u32, o: bool| {
            let order = if o { vec![1, 0] } else { vec![0, 1] };
            Blocked::default_for(&shape, 1 << v, 1 << w, &order).to_linear(&shape).unwrap()
        };
        let (src, dst) = (mk(p1, o1), mk(p2, o2));
        check_plan(&src, &dst, 16);
    }
}

#[test]
fn fragments_against_nvmma_shared_tiles() {
    // wgmma accumulator (f16 results, 2 per 4-byte store) into a 128B-swizzled tile for a TMA
    // store: conflict-free.
    let acc = wgmma_accumulator([64, 64], 4).unwrap();
    let smem = nvmma_shared([64, 64], 16, 128, false).unwrap();
    let a = smem_access(&acc, &smem, 16).unwrap();
    assert_eq!(a.vec, 2);
    assert!(a.conflict_free(), "{a:?}");
    // The same into an unswizzled tile: 8 rows of 128 bytes share banks.
    let plain = nvmma_shared([64, 64], 16, 0, false).unwrap();
    let p = smem_access(&acc, &plain, 16).unwrap();
    assert!(!p.conflict_free());
    assert_eq!(p.wavefronts, 8 * p.ideal_wavefronts);
    // mma.sync A fragments read from a K-major 128B-swizzled tile: conflict-free.
    let a_frag = mma_sync_operand_a([64, 64], 16, [4, 1]).unwrap();
    let r = smem_access(&a_frag, &smem, 16).unwrap();
    assert!(r.conflict_free(), "{r:?}");
    // f32 accumulators (8-byte stores) into a 128B-swizzled f32 tile: the 4 lanes of a row
    // cover two 16-byte chunks, and the next row's swizzle (chunk ^ 1) swaps those same two
    // chunks, so a half-warp phase is a 2-way conflict. The model must say so.
    let acc32 = mma_sync_accumulator([64, 32], [4, 1]).unwrap();
    let s32 = nvmma_shared([64, 32], 32, 128, false).unwrap();
    let x = smem_access(&acc32, &s32, 32).unwrap();
    assert_eq!(x.vec, 2);
    assert_eq!(x.wavefronts, 2 * x.ideal_wavefronts, "{x:?}");
}

#[test]
fn blocked_pairs_are_conflict_free() {
    // Every shared-memory plan between default blocked layouts (any vector width, either
    // order) is free of bank conflicts on both sides (narrowing a vector where needed).
    for shape in [[32u32, 64u32], [64, 64], [128, 32]] {
        for v1 in [1u32, 4, 8] {
            for v2 in [1u32, 4, 8] {
                for o in [false, true] {
                    let a = Blocked::default_for(&shape, v1, 4, &[1, 0])
                        .to_linear(&shape)
                        .unwrap();
                    let order = if o { [0, 1] } else { [1, 0] };
                    let b = Blocked::default_for(&shape, v2, 4, &order)
                        .to_linear(&shape)
                        .unwrap();
                    for eb in [16, 32] {
                        let p = check_plan(&a, &b, eb);
                        if let ConversionPlan::SharedMemory(s) = &p {
                            assert!(
                                s.store.conflict_free() && s.load.conflict_free(),
                                "{shape:?} v{v1}->v{v2} order {order:?} {eb}-bit: {s:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
