//! Property tests of the layout algebra.

mod common;
use common::*;
use proptest::prelude::*;
use std::collections::BTreeSet;
use tileir_layout::*;

fn shape_strategy() -> impl Strategy<Value = ([u32; 2], u32)> {
    (0u32..=6, 0u32..=6, 0u32..=2).prop_filter_map("small tiles", |(a, b, w)| {
        (a + b <= 10).then_some(([1 << a, 1 << b], w))
    })
}

/// Inputs of a layout as `(dim, value)` pairs from a flat value of its pseudo-inverse.
fn as_input(inv: &LinearLayout, flat: u64) -> Vec<(Dim, u32)> {
    let vals = inv.unflatten(flat);
    inv.out_dims()
        .iter()
        .zip(vals)
        .map(|((d, _), v)| (*d, v))
        .collect()
}

/// A random linear map from tile dims of `from` sizes to tile dims of `to` sizes.
fn random_map(from: [u32; 2], to: [u32; 2], seed: u64) -> LinearLayout {
    let mut rng = Rng(seed | 1);
    let mut ins = Vec::new();
    for (d, &n) in from.iter().enumerate() {
        let basis = (0..n.trailing_zeros())
            .map(|_| {
                vec![
                    rng.below(u64::from(to[0])) as u32,
                    rng.below(u64::from(to[1])) as u32,
                ]
            })
            .collect();
        ins.push((Dim::Tile(d as u32), basis));
    }
    LinearLayout::new(ins, vec![(Dim::Tile(0), to[0]), (Dim::Tile(1), to[1])]).unwrap()
}

/// Elements each thread `(lane, warp)` holds.
fn thread_sets(l: &LinearLayout, warps: u32) -> Vec<BTreeSet<Vec<u32>>> {
    let mut out = Vec::new();
    for w in 0..warps {
        for ln in 0..32 {
            out.push((0..l.num_registers()).map(|r| l.coords(r, ln, w)).collect());
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn pseudo_inverse_is_a_right_inverse_and_inverts_the_non_free_part((shape, w) in shape_strategy(), seed in any::<u64>(), xs in prop::collection::vec(any::<u32>(), 8)) {
        let l = random_layout(shape, w, seed);
        let inv = l.pseudo_invert().unwrap();
        for flat in 0..(1u64 << l.total_out_bits()) {
            let c = l.unflatten(flat);
            let pre = as_input(&inv, inv.apply_flat(&c.iter().enumerate().map(|(i, &v)| (Dim::Tile(i as u32), v)).collect::<Vec<_>>()));
            prop_assert_eq!(l.apply_flat(&pre), flat);
            prop_assert_eq!(l.preimage_flat(flat).unwrap(), pre);
        }
        // inverse ∘ layout = identity on inputs whose free bits are zero.
        let free = l.free_masks();
        for x in xs {
            let input: Vec<(Dim, u32)> = free.iter().enumerate().map(|(i, &(d, m))| {
                let size = l.in_size(d);
                (d, (x.rotate_left(7 * i as u32) % size) & !m)
            }).collect();
            let back = l.preimage_flat(l.apply_flat(&input)).unwrap();
            prop_assert_eq!(back, input);
        }
        if l.is_bijective() {
            prop_assert_eq!(l.invert().unwrap(), inv.clone());
            // Size-1 dimensions are not inputs, so they only survive a double inversion
            // when there are none.
            if l.shape().iter().all(|&n| n > 1) {
                prop_assert_eq!(inv.invert().unwrap(), l.clone());
            }
        } else {
            prop_assert!(l.invert().is_err());
        }
    }

    #[test]
    fn composition_is_associative_and_pointwise(seed in any::<u64>(), (shape, w) in shape_strategy(), t in (0u32..4, 0u32..4, 0u32..4, 0u32..4)) {
        let a = random_layout(shape, w, seed);
        let mid = [1 << t.0, 1 << t.1];
        let end = [1 << t.2, 1 << t.3];
        let b = random_map(shape, mid, seed.rotate_left(17));
        let c = random_map(mid, end, seed.rotate_left(33));
        let ab_c = a.compose(&b).unwrap().compose(&c).unwrap();
        let a_bc = a.compose(&b.compose(&c).unwrap()).unwrap();
        prop_assert_eq!(&ab_c, &a_bc);
        for r in 0..a.num_registers() {
            for ln in [0, 5, 31] {
                let x = a.coords(r, ln, 0);
                let y = b.apply(&[(Dim::Tile(0), x[0]), (Dim::Tile(1), x[1])]);
                let z = c.apply(&[(Dim::Tile(0), y[0]), (Dim::Tile(1), y[1])]);
                prop_assert_eq!(ab_c.coords(r, ln, 0), z);
            }
        }
    }

    #[test]
    fn slice_and_broadcast_are_consistent((shape, w) in shape_strategy(), seed in any::<u64>(), d in 0usize..2) {
        let p = random_layout(shape, w, seed);
        let s = p.slice(d).unwrap();
        prop_assert_eq!(s.free_mask(Dim::Register), 0);
        let ss = thread_sets(&s, 1 << w);
        let e = s.expand_dims(d).unwrap().broadcast(d, shape[d]).unwrap();
        prop_assert_eq!(e.shape(), p.shape());
        let es = thread_sets(&e, 1 << w);
        for (t, held) in thread_sets(&p, 1 << w).iter().enumerate() {
            for c in held {
                let mut proj = c.clone();
                proj.remove(d);
                prop_assert!(ss[t].contains(&proj), "slice lost {:?} of thread {}", c, t);
                prop_assert!(es[t].contains(c), "broadcast lost {:?} of thread {}", c, t);
            }
            // Every element the broadcast layout gives a thread is a copy of a reduced value it holds.
            for c in &es[t] {
                let mut proj = c.clone();
                proj.remove(d);
                prop_assert!(ss[t].contains(&proj));
            }
        }
    }

    #[test]
    fn contiguity_and_disjointness_are_sound((shape, w) in shape_strategy(), seed in any::<u64>(), d in 0usize..2) {
        let l = random_layout(shape, w, seed);
        let k = l.contiguous_elements_per_thread(d);
        let tc = l.thread_coords();
        for wp in 0..(1u32 << w) {
            for ln in 0..32 {
                let c0 = l.coords(0, ln, wp);
                prop_assert_eq!(c0[d] % k, 0);
                for r in 0..k.min(l.num_registers()) {
                    let mut want = c0.clone();
                    want[d] += r;
                    prop_assert_eq!(l.coords(r, ln, wp), want);
                }
                if tc.disjoint {
                    // base + register constant, with integer addition.
                    let base = l.apply(&[(Dim::Lane, ln), (Dim::Warp, wp)]);
                    for r in 0..l.num_registers() {
                        let sum: Vec<u32> = base.iter().zip(&tc.register[r as usize]).map(|(a, b)| a + b).collect();
                        prop_assert_eq!(l.coords(r, ln, wp), sum);
                    }
                }
            }
        }
    }

    #[test]
    fn blocked_layouts_are_recognized((shape, w) in shape_strategy(), a in 0u32..3, b in 0u32..3, t in 0u32..6, o in any::<bool>()) {
        let order = if o { vec![1, 0] } else { vec![0, 1] };
        let l = blocked(&shape, &[1 << a, 1 << b], &[1 << t, 32 >> t], &[1 << w, 1], &order).unwrap();
        let p = Blocked::from_linear(&l).expect("recognized");
        prop_assert_eq!(p.to_linear(&shape).unwrap(), l);
    }

    #[test]
    fn text_round_trips((shape, w) in shape_strategy(), seed in any::<u64>()) {
        let l = random_layout(shape, w, seed);
        let s = l.to_string();
        prop_assert_eq!(s.parse::<LinearLayout>().unwrap(), l);
    }

    #[test]
    fn transpose_and_reshape_round_trip((shape, w) in shape_strategy(), seed in any::<u64>()) {
        let l = random_layout(shape, w, seed);
        let t = l.transpose(&[1, 0]).unwrap();
        prop_assert_eq!(t.shape(), vec![shape[1], shape[0]]);
        let c = l.coords(1, 3, 0);
        prop_assert_eq!(t.coords(1, 3, 0), vec![c[1], c[0]]);
        prop_assert_eq!(t.transpose(&[1, 0]).unwrap(), l.clone());
        let n = shape[0] * shape[1];
        let flat = l.reshape(&[n]).unwrap();
        prop_assert_eq!(flat.coords(1, 3, 0), vec![c[0] * shape[1] + c[1]]);
        prop_assert_eq!(flat.reshape(&shape).unwrap(), l);
    }

    #[test]
    fn swizzled_shared_layouts_are_bijections(rows in 0u32..7, cols in 3u32..8, eb in prop::sample::select(vec![8u32, 16, 32, 64]), sw in prop::sample::select(vec![0u32, 32, 64, 128]), tr in any::<bool>(), v in 0u32..4, pp in 0u32..3, mp in 0u32..4) {
        let shape = if tr { [1 << cols, 1 << rows] } else { [1 << rows, 1 << cols] };
        if let Ok(l) = nvmma_shared(shape, eb, sw, tr) {
            prop_assert!(l.is_bijective());
        } else {
            prop_assert!(u64::from(1u32 << cols) * u64::from(eb) / 8 < u64::from(sw));
        }
        if let Ok(l) = swizzled_shared(&[1 << rows, 1 << cols], &[1, 0], 1 << v, 1 << pp, 1 << mp) {
            prop_assert!(l.is_bijective());
        }
    }
}

#[test]
fn product_concatenates() {
    let a = LinearLayout::identity_1d(4, Dim::Register, Dim::Tile(0)).unwrap();
    let b = LinearLayout::identity_1d(8, Dim::Lane, Dim::Tile(1)).unwrap();
    let p = a.product(&b).unwrap();
    assert_eq!(p.shape(), vec![4, 8]);
    assert_eq!(p.coords(3, 5, 0), vec![3, 5]);
    // Same dims: other's bits above.
    let q = a
        .product(&LinearLayout::identity_1d(2, Dim::Register, Dim::Tile(0)).unwrap())
        .unwrap();
    assert_eq!(q.shape(), vec![8]);
    assert_eq!(q.basis(Dim::Register), vec![vec![1], vec![2], vec![4]]);
    let z = LinearLayout::zeros_1d(4, Dim::Warp, Dim::Tile(0)).unwrap();
    let r = a.product(&z).unwrap();
    assert_eq!(r.shape(), vec![4]);
    assert_eq!(r.free_mask(Dim::Warp), 0b11);
}

#[test]
fn errors_are_reported() {
    let a = blocked(&[16, 16], &[1, 1], &[8, 4], &[1, 1], &[1, 0]).unwrap();
    assert!(a.compose(&a).is_err());
    assert!(blocked(&[16, 12], &[1, 1], &[8, 4], &[1, 1], &[1, 0]).is_err());
    assert!(blocked(&[16, 16], &[1, 1], &[8, 4], &[1, 1], &[1, 1]).is_err());
    assert!(a.slice(2).is_err());
    assert!(a.broadcast(0, 2).is_err());
    assert!(a.transpose(&[0, 0]).is_err());
    let b = blocked(&[16, 8], &[1, 1], &[8, 4], &[1, 1], &[1, 0]).unwrap();
    assert!(plan_conversion(&a, &b, 16).is_err());
    assert!(mma_sync_operand_a([16, 16], 4, [1, 1]).is_err());
}
