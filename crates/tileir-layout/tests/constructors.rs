//! Hand-computed ownership checks for the named layouts.

use tileir_layout::*;

#[test]
fn blocked_64x64_ownership() {
    let l = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    assert_eq!(l.shape(), vec![64, 64]);
    assert_eq!(l.num_registers(), 32);
    assert_eq!(l.num_lanes(), 32);
    assert_eq!(l.num_warps(), 4);
    assert!(l.is_bijective());
    for w in 0..4 {
        for lane in 0..32 {
            for r in 0..32 {
                let want = vec![
                    lane / 4 + 8 * w + 32 * (r >> 4),
                    4 * (lane % 4) + (r & 3) + 16 * ((r >> 2) & 3),
                ];
                assert_eq!(l.coords(r, lane, w), want, "r={r} lane={lane} warp={w}");
            }
        }
    }
    assert_eq!(l.contiguous_elements_per_thread(1), 4);
    assert_eq!(l.contiguous_elements_per_thread(0), 1);
    assert!(l.is_disjoint());
    let tc = l.thread_coords();
    assert_eq!(tc.register[5], vec![0, 17]);
    assert_eq!(
        tc.lane,
        vec![vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0]]
    );
    assert_eq!(tc.warp, vec![vec![8, 0], vec![16, 0]]);
}

#[test]
fn blocked_replicates_when_tile_is_small() {
    let l = blocked(&[8, 4], &[1, 1], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    assert_eq!(l.num_registers(), 1);
    assert_eq!(l.basis(Dim::Warp), vec![vec![0, 0], vec![0, 0]]);
    assert_eq!(l.free_mask(Dim::Warp), 0b11);
    assert_eq!(l.free_mask(Dim::Lane), 0);
    assert!(l.is_surjective());
    assert!(!l.is_injective());
    // Lanes also wrap when a dimension is smaller than the lanes along it.
    let l = blocked(&[4, 4], &[1, 1], &[8, 4], &[1, 1], &[1, 0]).unwrap();
    assert_eq!(l.free_mask(Dim::Lane), 0b10000);
    assert_eq!(l.coords(0, 17, 0), vec![0, 1]);
}

#[test]
fn blocked_order_dim0_fastest() {
    let l = blocked(&[32, 4], &[2, 1], &[16, 2], &[1, 2], &[0, 1]).unwrap();
    // lane l, reg r: dim0 = 2*(l%16) + r, dim1 = l/16 + 2*w.
    for w in 0..2 {
        for lane in 0..32 {
            for r in 0..2 {
                assert_eq!(
                    l.coords(r, lane, w),
                    vec![2 * (lane % 16) + r, lane / 16 + 2 * w]
                );
            }
        }
    }
    assert_eq!(l.num_registers(), 2);
    assert_eq!(l.contiguous_elements_per_thread(0), 2);
    // A 32x8 tile needs a second register block along dim1.
    let l = blocked(&[32, 8], &[2, 1], &[16, 2], &[1, 2], &[0, 1]).unwrap();
    assert_eq!(l.num_registers(), 4);
    assert_eq!(l.coords(2, 0, 0), vec![0, 4]);
}

#[test]
fn slice_of_blocked() {
    let p = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    // Reduce over dim1: each thread keeps its rows once.
    let s = slice_of(&p, 1).unwrap();
    assert_eq!(s.shape(), vec![64]);
    assert_eq!(s.num_registers(), 2);
    assert_eq!(s.basis(Dim::Register), vec![vec![32]]);
    assert_eq!(
        s.basis(Dim::Lane),
        vec![vec![0], vec![0], vec![1], vec![2], vec![4]]
    );
    assert_eq!(s.free_mask(Dim::Lane), 0b11);
    // Reduce over dim0: columns, warps and high lanes broadcast.
    let s = slice_of(&p, 0).unwrap();
    assert_eq!(s.shape(), vec![64]);
    assert_eq!(s.num_registers(), 16);
    assert_eq!(s.basis(Dim::Warp), vec![vec![0], vec![0]]);
    for lane in 0..32 {
        for r in 0..16 {
            assert_eq!(
                s.coords(r, lane, 3),
                vec![4 * (lane % 4) + (r & 3) + 16 * (r >> 2)]
            );
        }
    }
}

#[test]
fn mma_sync_accumulator_fragment() {
    let l = mma_sync_accumulator([16, 8], [1, 1]).unwrap();
    for lane in 0..32 {
        for r in 0..4 {
            assert_eq!(
                l.coords(r, lane, 0),
                vec![lane / 4 + 8 * (r / 2), 2 * (lane % 4) + r % 2]
            );
        }
    }
    // 64x32 tile, 2x2 warps: warp bits along M then N, registers repeat N first then M.
    let l = mma_sync_accumulator([64, 32], [2, 2]).unwrap();
    assert!(l.is_bijective());
    assert_eq!(l.num_registers(), 4 * 2 * 2);
    for w in 0..4 {
        for lane in 0..32 {
            for r in 0..16 {
                let (rn, rm) = ((r >> 2) & 1, r >> 3);
                let row = lane / 4 + 8 * ((r >> 1) & 1) + 16 * (w & 1) + 32 * rm;
                let col = 2 * (lane % 4) + (r & 1) + 8 * (w >> 1) + 16 * rn;
                assert_eq!(
                    l.coords(r, lane, w),
                    vec![row, col],
                    "r={r} lane={lane} w={w}"
                );
            }
        }
    }
    assert!(l.is_disjoint());
    assert_eq!(l.contiguous_elements_per_thread(1), 2);
}

#[test]
fn mma_sync_operands_f16() {
    // PTX ISA, m16n8k16 .f16/.bf16 A: a_i row = g + 8*((i/2)%2), col = 2t + i%2 + 8*(i/4).
    let a = mma_sync_operand_a([16, 16], 16, [1, 1]).unwrap();
    assert_eq!(a.num_registers(), 8);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..8 {
            assert_eq!(
                a.coords(i, lane, 0),
                vec![g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4)]
            );
        }
    }
    // B (16x8): b_i row(k) = 2t + i%2 + 8*(i/2), col = g.
    let b = mma_sync_operand_b([16, 8], 16, [1, 1]).unwrap();
    assert_eq!(b.num_registers(), 4);
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            assert_eq!(b.coords(i, lane, 0), vec![2 * t + i % 2 + 8 * (i / 2), g]);
        }
    }
}

#[test]
fn mma_sync_operands_8bit_and_tf32() {
    // m16n8k32 8-bit A: a_i row = g + 8*((i/4)%2), col = 4t + i%4 + 16*(i/8).
    let a = mma_sync_operand_a([16, 32], 8, [1, 1]).unwrap();
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..16 {
            assert_eq!(
                a.coords(i, lane, 0),
                vec![g + 8 * ((i / 4) % 2), 4 * t + i % 4 + 16 * (i / 8)]
            );
        }
    }
    // m16n8k32 8-bit B: b_i row = 4t + i%4 + 16*(i/4), col = g.
    let b = mma_sync_operand_b([32, 8], 8, [1, 1]).unwrap();
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..8 {
            assert_eq!(b.coords(i, lane, 0), vec![4 * t + i % 4 + 16 * (i / 4), g]);
        }
    }
    // m16n8k8 tf32 A: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); B: b0 (t, g), b1 (t+4, g).
    let a = mma_sync_operand_a([16, 8], 32, [1, 1]).unwrap();
    let b = mma_sync_operand_b([8, 8], 32, [1, 1]).unwrap();
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for i in 0..4 {
            assert_eq!(a.coords(i, lane, 0), vec![g + 8 * (i % 2), t + 4 * (i / 2)]);
        }
        for i in 0..2 {
            assert_eq!(b.coords(i, lane, 0), vec![t + 4 * i, g]);
        }
    }
}

#[test]
fn mma_sync_operands_with_warps() {
    // 2x2 warps: A is split along M and copied along N; B the other way round.
    let a = mma_sync_operand_a([32, 32], 16, [2, 2]).unwrap();
    assert_eq!(a.basis(Dim::Warp), vec![vec![16, 0], vec![0, 0]]);
    assert_eq!(a.num_registers(), 16);
    let b = mma_sync_operand_b([32, 16], 16, [2, 2]).unwrap();
    assert_eq!(b.basis(Dim::Warp), vec![vec![0, 0], vec![0, 8]]);
    assert_eq!(b.num_registers(), 8);
    assert!(a.is_surjective() && b.is_surjective());
}

#[test]
fn wgmma_accumulator_fragment() {
    let l = wgmma_accumulator([64, 64], 4).unwrap();
    assert_eq!(l.num_registers(), 32);
    for w in 0..4 {
        for lane in 0..32 {
            for i in 0..32 {
                let row = 16 * w + lane / 4 + 8 * ((i / 2) % 2);
                let col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                assert_eq!(l.coords(i, lane, w), vec![row, col]);
            }
        }
    }
    // Two warpgroups over 128 rows.
    let l = wgmma_accumulator([128, 32], 8).unwrap();
    assert_eq!(l.coords(0, 0, 4), vec![64, 0]);
    assert_eq!(l.num_registers(), 16);
    assert!(wgmma_accumulator([64, 64], 6).is_err());
}

fn phys_offset(l: &LinearLayout, coords: &[u32]) -> u32 {
    let inv = l.invert().unwrap();
    inv.apply(&[(Dim::Tile(0), coords[0]), (Dim::Tile(1), coords[1])])[0]
}

#[test]
fn nvmma_shared_swizzles() {
    // 128B swizzle, fp16, [64, 64]: 16-byte chunk (8 elements) index XOR row % 8.
    let l = nvmma_shared([64, 64], 16, 128, false).unwrap();
    assert!(l.is_bijective());
    for r in 0..64 {
        for c in 0..64 {
            assert_eq!(
                phys_offset(&l, &[r, c]),
                r * 64 + (((c / 8) ^ (r % 8)) * 8) + c % 8
            );
        }
    }
    // 64B swizzle, fp16, [16, 32]: rows of 64 bytes; chunk XOR (r/2)%4.
    let l = nvmma_shared([16, 32], 16, 64, false).unwrap();
    for r in 0..16 {
        for c in 0..32 {
            assert_eq!(
                phys_offset(&l, &[r, c]),
                r * 32 + (((c / 8) ^ ((r / 2) % 4)) * 8) + c % 8
            );
        }
    }
    // 32B swizzle, fp32, [16, 8]: chunk (4 elements) XOR (r/4)%2.
    let l = nvmma_shared([16, 8], 32, 32, false).unwrap();
    for r in 0..16 {
        for c in 0..8 {
            assert_eq!(
                phys_offset(&l, &[r, c]),
                r * 8 + (((c / 4) ^ ((r / 4) % 2)) * 4) + c % 4
            );
        }
    }
    // 128B, fp16, [64, 128]: two column blocks of 64 elements, each 64 rows.
    let l = nvmma_shared([64, 128], 16, 128, false).unwrap();
    for r in 0..64 {
        for c in 0..128 {
            let cb = c / 64;
            let cc = c % 64;
            assert_eq!(
                phys_offset(&l, &[r, c]),
                cb * 4096 + r * 64 + (((cc / 8) ^ (r % 8)) * 8) + cc % 8
            );
        }
    }
    // Transposed: dim0 contiguous.
    let l = nvmma_shared([64, 64], 16, 128, true).unwrap();
    for r in 0..64 {
        for c in 0..64 {
            assert_eq!(
                phys_offset(&l, &[r, c]),
                c * 64 + (((r / 8) ^ (c % 8)) * 8) + r % 8
            );
        }
    }
    // No swizzle = row-major.
    let l = nvmma_shared([8, 16], 16, 0, false).unwrap();
    assert_eq!(phys_offset(&l, &[3, 5]), 3 * 16 + 5);
    assert!(nvmma_shared([64, 32], 16, 128, false).is_err());
}

#[test]
fn shared_layouts() {
    let l = shared_row_major(&[4, 8, 16], &[2, 1, 0]).unwrap();
    assert_eq!(
        l.apply(&[(Dim::Offset, 3 * 128 + 5 * 16 + 7)]),
        vec![3, 5, 7]
    );
    let l = shared_row_major(&[4, 8], &[0, 1]).unwrap();
    assert_eq!(l.apply(&[(Dim::Offset, 6)]), vec![2, 1]);
    let s = swizzled_shared(&[32, 32], &[1, 0], 4, 2, 8).unwrap();
    assert!(s.is_bijective());
    let inv = s.invert().unwrap();
    for r in 0..32u32 {
        for c in 0..32u32 {
            let off = inv.apply(&[(Dim::Tile(0), r), (Dim::Tile(1), c)])[0];
            assert_eq!(off, r * 32 + ((c / 4) ^ ((r / 2) % 8)) * 4 + c % 4);
        }
    }
}

#[test]
fn clusters_split_the_tile() {
    let l = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    let c = l.with_ctas(&[2, 2], &[1, 0]).unwrap();
    assert_eq!(c.shape(), vec![128, 128]);
    assert_eq!(c.basis(Dim::Block), vec![vec![0, 64], vec![64, 0]]);
    assert_eq!(
        c.apply(&[
            (Dim::Register, 5),
            (Dim::Lane, 6),
            (Dim::Warp, 1),
            (Dim::Block, 3)
        ]),
        vec![64 + 9, 64 + 25]
    );
    assert!(c.is_bijective());
    assert!(c.to_string().contains("block=[[0,64],[64,0]]"));
    assert!(l.with_ctas(&[2], &[0]).is_err());
}
