//! Shared helpers: random layouts and a conversion-plan simulator.
#![allow(dead_code)]

use tileir_layout::*;

/// Property-test case count: `TILEIR_LAYOUT_CASES` or 64.
pub fn cases() -> u32 {
    std::env::var("TILEIR_LAYOUT_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64)
}

/// A small deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// A random distributed layout over `shape` (2-D, powers of two) with 32 lanes and
/// `2^warp_bits` warps: every tile bit is given to a register, lane or warp bit, lanes and
/// warps are padded with broadcast (zero) bits, and bases are mixed by XORing earlier bases
/// into later ones (which keeps the layout surjective, and may add replication).
pub fn random_layout(shape: [u32; 2], warp_bits: u32, seed: u64) -> LinearLayout {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (a, b) = (shape[0].trailing_zeros(), shape[1].trailing_zeros());
    let mut units: Vec<Vec<u32>> = (0..a)
        .map(|i| vec![1 << i, 0])
        .chain((0..b).map(|i| vec![0, 1 << i]))
        .collect();
    for i in (1..units.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        units.swap(i, j);
    }
    let n = units.len();
    let nl = rng.below(5.min(n) as u64 + 1) as usize;
    let nw = rng.below((warp_bits as usize).min(n - nl) as u64 + 1) as usize;
    let mut it = units.into_iter();
    let mut lane: Vec<Vec<u32>> = (&mut it).take(nl).collect();
    let mut warp: Vec<Vec<u32>> = (&mut it).take(nw).collect();
    let mut reg: Vec<Vec<u32>> = it.collect();
    let pad = |v: &mut Vec<Vec<u32>>, len: usize, rng: &mut Rng| {
        while v.len() < len {
            let p = rng.below(v.len() as u64 + 1) as usize;
            v.insert(p, vec![0, 0]);
        }
    };
    pad(&mut lane, 5, &mut rng);
    pad(&mut warp, warp_bits as usize, &mut rng);
    // Sometimes a duplicate register.
    if rng.below(4) == 0 && !reg.is_empty() {
        let p = rng.below(reg.len() as u64 + 1) as usize;
        reg.insert(p, vec![0, 0]);
    }
    // Mix: all bases in priority order; XOR an earlier one into a later one.
    let mut all: Vec<Vec<u32>> = reg.iter().chain(&lane).chain(&warp).cloned().collect();
    for _ in 0..rng.below(6) {
        let j = rng.below(all.len() as u64) as usize;
        if j == 0 {
            continue;
        }
        let i = rng.below(j as u64) as usize;
        let src = all[i].clone();
        all[j][0] ^= src[0];
        all[j][1] ^= src[1];
    }
    let (nr, nl) = (reg.len(), lane.len());
    let reg = all[..nr].to_vec();
    let lane = all[nr..nr + nl].to_vec();
    let warp = all[nr + nl..].to_vec();
    LinearLayout::new(
        vec![(Dim::Register, reg), (Dim::Lane, lane), (Dim::Warp, warp)],
        vec![(Dim::Tile(0), shape[0]), (Dim::Tile(1), shape[1])],
    )
    .unwrap()
}

/// Register files of every thread of `l` (`[warp][lane][register]`), each register holding the
/// flat coordinate of its element.
pub fn register_files(l: &LinearLayout, warps: u32) -> Vec<Vec<Vec<u64>>> {
    (0..warps)
        .map(|w| {
            (0..32)
                .map(|ln| {
                    (0..l.num_registers())
                        .map(|r| {
                            l.apply_flat(&[(Dim::Register, r), (Dim::Lane, ln), (Dim::Warp, w)])
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// Executes `plan` on register files holding `src`, step by step, and returns the resulting
/// register files in the shape of `dst`. Panics if a step reads something that is not there.
pub fn simulate(
    plan: &ConversionPlan,
    src: &LinearLayout,
    dst: &LinearLayout,
    warps: u32,
) -> Vec<Vec<Vec<u64>>> {
    let regs = register_files(src, warps);
    let nd = dst.num_registers() as usize;
    match plan {
        ConversionPlan::Identical => regs,
        ConversionPlan::InThread { reg_map } => {
            assert_eq!(reg_map.len(), nd);
            regs.iter()
                .map(|w| {
                    w.iter()
                        .map(|t| reg_map.iter().map(|&r| t[r as usize]).collect())
                        .collect()
                })
                .collect()
        }
        ConversionPlan::WarpShuffle { rounds } => {
            let mut out = vec![vec![vec![u64::MAX; nd]; 32]; warps as usize];
            for (w, wregs) in regs.iter().enumerate() {
                for round in rounds {
                    for l in 0..32 {
                        let s = round.src_lane[l] as usize;
                        let v = wregs[s][round.send_reg[s] as usize];
                        out[w][l][round.dst_reg[l] as usize] = v;
                    }
                }
            }
            out
        }
        ConversionPlan::SharedMemory(p) => {
            let size = 1usize << p.smem.total_out_bits();
            let mut mem: Vec<Option<u64>> = vec![None; size];
            let off = |acc: &SmemAccess, r: u32, l: u32, w: u32| -> usize {
                acc.offsets
                    .apply_flat(&[(Dim::Register, r), (Dim::Lane, l), (Dim::Warp, w)])
                    as usize
            };
            // The scratch layout must say where each element lives.
            let inv = p.smem.invert().unwrap();
            let _ = inv;
            for w in 0..warps {
                for l in 0..32u32 {
                    for &g in &p.store.groups {
                        let base = off(&p.store, g, l, w);
                        assert_eq!(base % p.store.vec as usize, 0, "misaligned vector store");
                        for i in 0..p.store.vec {
                            let o = off(&p.store, g + i, l, w);
                            assert_eq!(o, base + i as usize, "store vector not contiguous");
                            let v = regs[w as usize][l as usize][(g + i) as usize];
                            // The offset must be where the scratch layout keeps this element.
                            assert_eq!(p.smem.apply_flat(&[(Dim::Offset, o as u32)]), v);
                            if let Some(old) = mem[o] {
                                assert_eq!(old, v, "two different values stored at offset {o}");
                            }
                            mem[o] = Some(v);
                        }
                    }
                }
            }
            let mut out = vec![vec![vec![u64::MAX; nd]; 32]; warps as usize];
            for w in 0..warps {
                for l in 0..32u32 {
                    for &g in &p.load.groups {
                        let base = off(&p.load, g, l, w);
                        assert_eq!(base % p.load.vec as usize, 0, "misaligned vector load");
                        for i in 0..p.load.vec {
                            let o = off(&p.load, g + i, l, w);
                            assert_eq!(o, base + i as usize, "load vector not contiguous");
                            out[w as usize][l as usize][(g + i) as usize] = mem[o]
                                .unwrap_or_else(|| panic!("load of offset {o} that nobody stored"));
                        }
                    }
                }
            }
            out
        }
    }
}

/// Checks that after running `plan` every thread holds exactly the elements `dst` assigns it.
pub fn check_plan(src: &LinearLayout, dst: &LinearLayout, elem_bits: u32) -> ConversionPlan {
    let warps = src.num_warps().max(dst.num_warps());
    let plan = plan_conversion(src, dst, elem_bits).unwrap();
    let got = simulate(&plan, src, dst, warps);
    let want = register_files(dst, warps);
    assert_eq!(got, want, "plan {plan:?}\nsrc {src}\ndst {dst}");
    plan
}

pub fn kind(p: &ConversionPlan) -> &'static str {
    match p {
        ConversionPlan::Identical => "identical",
        ConversionPlan::InThread { .. } => "in-thread",
        ConversionPlan::WarpShuffle { .. } => "shuffle",
        ConversionPlan::SharedMemory(_) => "shared",
    }
}
