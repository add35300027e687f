//! Reduction plans, executed on simulated register files.

mod common;
use common::*;
use proptest::prelude::*;
use tileir_layout::*;

/// A value per element (wrapping sums stay exact).
fn value(flat: u64) -> u64 {
    flat.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (flat << 7)
}

/// Runs `plan` (sum) on `layout`'s register files and checks every thread's result registers
/// hold the sums of their slices.
fn check_reduction(layout: &LinearLayout, dim: usize) -> ReductionPlan {
    let plan = reduction_plan(layout, dim).unwrap();
    let warps = layout.num_warps();
    let files = register_files(layout, warps);
    // 1. In-thread.
    let mut part: Vec<Vec<Vec<u64>>> = files
        .iter()
        .map(|w| {
            w.iter()
                .map(|t| {
                    plan.register_groups
                        .iter()
                        .map(|g| {
                            g.iter()
                                .fold(0u64, |a, &r| a.wrapping_add(value(t[r as usize])))
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    // 2. Butterflies.
    for &m in &plan.lane_xor_masks {
        let prev = part.clone();
        for w in 0..warps as usize {
            for l in 0..32usize {
                for r in 0..plan.register_groups.len() {
                    part[w][l][r] = prev[w][l][r].wrapping_add(prev[w][l ^ m as usize][r]);
                }
            }
        }
    }
    // 3. Across warps.
    let mask: u32 = plan.warp_bits.iter().map(|b| 1 << b).sum();
    let prev = part.clone();
    for w in 0..warps {
        for l in 0..32usize {
            for r in 0..plan.register_groups.len() {
                let mut acc = 0u64;
                for o in 0..warps {
                    if (o & !mask) == (w & !mask) {
                        acc = acc.wrapping_add(prev[o as usize][l][r]);
                    }
                }
                part[w as usize][l][r] = acc;
            }
        }
    }
    // Expected: for each result register, the sum over the reduced dimension.
    let n = layout.shape()[dim];
    for w in 0..warps {
        for l in 0..32 {
            for r in 0..plan.result.num_registers() {
                let c = plan.result.coords(r, l, w);
                let mut want = 0u64;
                for x in 0..n {
                    let mut full = c.clone();
                    full.insert(dim, x);
                    want = want.wrapping_add(value(layout.flatten(&full)));
                }
                assert_eq!(
                    part[w as usize][l as usize][r as usize], want,
                    "warp {w} lane {l} reg {r}"
                );
            }
        }
    }
    plan
}

#[test]
fn blocked_and_mma_reductions() {
    let b = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    let p = check_reduction(&b, 1);
    assert_eq!(p.lane_xor_masks, vec![1, 2]);
    assert!(p.warp_bits.is_empty());
    assert_eq!(p.register_groups.len(), 2);
    assert_eq!(p.register_groups[0], (0..16).collect::<Vec<_>>());
    let p = check_reduction(&b, 0);
    assert_eq!(p.lane_xor_masks, vec![4, 8, 16]);
    assert_eq!(p.warp_bits, vec![0, 1]);
    let acc = mma_sync_accumulator([64, 64], [2, 2]).unwrap();
    let p = check_reduction(&acc, 1);
    assert_eq!(p.lane_xor_masks, vec![1, 2]);
    assert_eq!(p.warp_bits, vec![1]);
    check_reduction(&acc, 0);
    let w = wgmma_accumulator([128, 64], 8).unwrap();
    let p = check_reduction(&w, 1);
    assert!(p.warp_bits.is_empty());
    // Replicated warps are not summed twice.
    let small = blocked(&[8, 4], &[1, 1], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    let p = check_reduction(&small, 0);
    assert!(p.warp_bits.is_empty());
    // Mixed bases are refused.
    let nv = LinearLayout::new(
        vec![
            (Dim::Register, vec![vec![1, 1]]),
            (Dim::Lane, vec![vec![0, 1]]),
        ],
        vec![(Dim::Tile(0), 2), (Dim::Tile(1), 2)],
    )
    .unwrap();
    assert!(reduction_plan(&nv, 0).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn blocked_reductions_are_exact(a in 0u32..=6, b in 0u32..=6, w in 0u32..=2, v in 0u32..4, o in any::<bool>(), d in 0usize..2) {
        let shape = [1u32 << a, 1u32 << b];
        let order = if o { [0, 1] } else { [1, 0] };
        let l = Blocked::default_for(&shape, 1 << v, 1 << w, &order).to_linear(&shape).unwrap();
        check_reduction(&l, d);
    }

    #[test]
    fn random_reductions_are_exact_or_refused(a in 0u32..=5, b in 0u32..=5, w in 0u32..=2, seed in any::<u64>(), d in 0usize..2) {
        let l = random_layout([1 << a, 1 << b], w, seed);
        if reduction_plan(&l, d).is_ok() {
            check_reduction(&l, d);
        }
    }
}
