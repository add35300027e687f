//! Whole-kernel tests: vector add, matmul, control flow, views, atomics, diagnostics.

mod common;
mod kernels;

use common::*;
use tileir_interp::{ArgValue, BlockOrder, ErrorKind, Memory, RunOptions};
use tileir_ir::*;

fn opts() -> RunOptions {
    RunOptions::default()
}

#[test]
fn vector_add_over_a_grid_with_a_partial_tile() {
    let n = 1000usize;
    let k = kernels::vector_add(n as i64, 128);
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
    for options in [
        opts(),
        RunOptions {
            parallel: true,
            ..opts()
        },
        RunOptions {
            order: BlockOrder::Shuffled(42),
            detect_races: true,
            ..opts()
        },
    ] {
        let mut mem = Memory::new();
        let (pa, pb) = (mem.alloc_f32(&a), mem.alloc_f32(&b));
        let pc = mem.alloc(n * 4, 256);
        let r = k
            .run(
                [8, 1, 1],
                &[ArgValue::Ptr(pa), ArgValue::Ptr(pb), ArgValue::Ptr(pc)],
                &mut mem,
                &options,
            )
            .unwrap();
        assert_eq!(r.blocks, 8);
        assert_eq!(r.ran_parallel, options.parallel);
        let c = mem.read_f32(pc, n).unwrap();
        for i in 0..n {
            assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "element {i}");
        }
    }
}

#[test]
fn matmul_f16_matches_the_sequential_reference() {
    let (m, n, kk) = (64usize, 96usize, 128usize);
    let k = kernels::matmul(NumType::F16, m as i64, n as i64, kk as i64, 32, 32, 16);
    let enc = |v: f64| {
        tileir_numeric::encode(
            tileir_numeric::FloatFormat::F16,
            v,
            tileir_numeric::Rounding::NearestEven,
            tileir_numeric::Saturation::None,
        )
    };
    let dec = |b: u64| tileir_numeric::decode(tileir_numeric::FloatFormat::F16, b) as f32;
    let abits: Vec<u64> = (0..m * kk)
        .map(|i| enc(((i * 37 % 101) as f64 - 50.0) / 7.0))
        .collect();
    let bbits: Vec<u64> = (0..kk * n)
        .map(|i| enc(((i * 53 % 97) as f64 - 48.0) / 9.0))
        .collect();
    let want = kernels::matmul_reference(
        &abits.iter().map(|&b| dec(b)).collect::<Vec<_>>(),
        &bbits.iter().map(|&b| dec(b)).collect::<Vec<_>>(),
        m,
        n,
        kk,
    );
    for parallel in [false, true] {
        let mut mem = Memory::new();
        let pa = mem.alloc_bytes(&to_bytes(NumType::F16, &abits));
        let pb = mem.alloc_bytes(&to_bytes(NumType::F16, &bbits));
        let pc = mem.alloc(m * n * 4, 256);
        let o = RunOptions {
            parallel,
            detect_races: true,
            ..opts()
        };
        k.run(
            [(n / 32) as u32, (m / 32) as u32, 1],
            &[ArgValue::Ptr(pa), ArgValue::Ptr(pb), ArgValue::Ptr(pc)],
            &mut mem,
            &o,
        )
        .unwrap();
        let got = mem.read_f32(pc, m * n).unwrap();
        assert!(
            got.iter()
                .zip(&want)
                .all(|(g, w)| g.to_bits() == w.to_bits()),
            "parallel={parallel}"
        );
    }
}

#[test]
fn matmul_f32_uses_fused_steps() {
    let (m, n, kk) = (16usize, 16usize, 32usize);
    let k = kernels::matmul(NumType::F32, m as i64, n as i64, kk as i64, 16, 16, 8);
    let a: Vec<f32> = (0..m * kk).map(|i| (i as f32 * 0.1).sin()).collect();
    let b: Vec<f32> = (0..kk * n).map(|i| (i as f32 * 0.3).cos()).collect();
    let mut mem = Memory::new();
    let (pa, pb) = (mem.alloc_f32(&a), mem.alloc_f32(&b));
    let pc = mem.alloc(m * n * 4, 256);
    k.run(
        [1, 1, 1],
        &[ArgValue::Ptr(pa), ArgValue::Ptr(pb), ArgValue::Ptr(pc)],
        &mut mem,
        &opts(),
    )
    .unwrap();
    let got = mem.read_f32(pc, m * n).unwrap();
    for i in 0..m {
        for j in 0..n {
            let mut s = 0f32;
            for p in 0..kk {
                s = a[i * kk + p].mul_add(b[p * n + j], s);
            }
            assert_eq!(got[i * n + j].to_bits(), s.to_bits());
        }
    }
}

/// A kernel whose every block writes the same element: a race.
#[test]
fn races_between_blocks_are_reported() {
    let (mut k, a) = K::entry("k", &[ptr_tile(&[], NumType::I32)]);
    let [bx, _, _] = k.block_id();
    // All blocks store their id to a[0].
    let op = ct(CtOp::StorePtrTko)
        .with(
            "memory_ordering_semantics",
            en("memory_ordering_semantics", "weak"),
        )
        .with_segments(&[1, 1, 0, 0]);
    k.op(op, vec![a[0], bx], &[Type::Token]);
    k.ret();
    let mut mem = Memory::new();
    let buf = mem.alloc(4, 256);
    let e = k
        .run(
            [2, 1, 1],
            &[ArgValue::Ptr(buf)],
            &mut mem,
            &RunOptions {
                detect_races: true,
                ..opts()
            },
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race);
    assert!(e.message.contains("both write"), "{e}");
    // Without detection the last block wins.
    k.run([2, 1, 1], &[ArgValue::Ptr(buf)], &mut mem, &opts())
        .unwrap();
    assert_eq!(mem.read_i32(buf, 1).unwrap(), vec![1]);
    // Parallel mode falls back to the sequential result.
    let r = k
        .run(
            [3, 1, 1],
            &[ArgValue::Ptr(buf)],
            &mut mem,
            &RunOptions {
                parallel: true,
                ..opts()
            },
        )
        .unwrap();
    assert!(!r.ran_parallel);
    assert_eq!(mem.read_i32(buf, 1).unwrap(), vec![2]);
}

#[test]
fn for_loop_with_if_and_loop_with_break() {
    // sum = Σ_{i<10} (i odd ? i : 0); then loop { x *= 2; if x > 1000 break x }.
    let i32t = tile(&[], NumType::I32);
    let (mut k, a) = K::entry("k", &[ptr_tile(&[], NumType::I32)]);
    let (lb, ub, st, zero) = (k.ci32(0), k.ci32(10), k.ci32(1), k.ci32(0));
    let one = k.ci32(1);
    let sum = k.op(
        ct(CtOp::For),
        vec![lb, ub, st, zero],
        std::slice::from_ref(&i32t),
    )[0];
    let f = k.last_op();
    k.region(f, 0, &[i32t.clone(), i32t.clone()], |k, args| {
        let (iv, acc) = (args[0], args[1]);
        let bit = k.op1(ct(CtOp::AndI), vec![iv, one], i32t.clone());
        let odd = k.op1(
            ct(CtOp::CmpI)
                .with("comparison_predicate", en("comparison_predicate", "equal"))
                .with("signedness", en("signedness", "signed")),
            vec![bit, one],
            tile(&[], NumType::I1),
        );
        let r = k.op(ct(CtOp::If), vec![odd], std::slice::from_ref(&i32t))[0];
        let ifop = k.last_op();
        k.region(ifop, 0, &[], |k, _| {
            let s = k.op1(ct(CtOp::AddI), vec![acc, iv], i32t.clone());
            k.op(ct(CtOp::Yield), vec![s], &[]);
        });
        k.region(ifop, 1, &[], |k, _| {
            k.op(ct(CtOp::Yield), vec![acc], &[]);
        });
        k.op(ct(CtOp::Continue), vec![r], &[]);
    });
    let thousand = k.ci32(1000);
    let res = k.op(ct(CtOp::Loop), vec![one], std::slice::from_ref(&i32t))[0];
    let lp = k.last_op();
    k.region(lp, 0, std::slice::from_ref(&i32t), |k, args| {
        let x = k.op1(ct(CtOp::AddI), vec![args[0], args[0]], i32t.clone());
        let big = k.op1(
            ct(CtOp::CmpI)
                .with(
                    "comparison_predicate",
                    en("comparison_predicate", "greater_than"),
                )
                .with("signedness", en("signedness", "signed")),
            vec![x, thousand],
            tile(&[], NumType::I1),
        );
        k.op(ct(CtOp::If), vec![big], &[]);
        let ifop = k.last_op();
        k.region(ifop, 0, &[], |k, _| {
            k.op(ct(CtOp::Break), vec![x], &[]);
        });
        k.op(ct(CtOp::Continue), vec![x], &[]);
    });
    let p1 = k.op1(
        ct(CtOp::Offset),
        vec![a[0], one],
        ptr_tile(&[], NumType::I32),
    );
    let st_op = || {
        ct(CtOp::StorePtrTko)
            .with(
                "memory_ordering_semantics",
                en("memory_ordering_semantics", "weak"),
            )
            .with_segments(&[1, 1, 0, 0])
    };
    k.op(st_op(), vec![a[0], sum], &[Type::Token]);
    k.op(st_op(), vec![p1, res], &[Type::Token]);
    k.ret();
    let mut mem = Memory::new();
    let buf = mem.alloc(8, 256);
    k.run([1, 1, 1], &[ArgValue::Ptr(buf)], &mut mem, &opts())
        .unwrap();
    assert_eq!(mem.read_i32(buf, 2).unwrap(), vec![25, 1024]);
}

#[test]
fn infinite_loops_hit_the_iteration_limit() {
    let i32t = tile(&[], NumType::I32);
    let (mut k, _) = K::entry("k", &[]);
    let one = k.ci32(1);
    k.op(ct(CtOp::Loop), vec![one], &[]);
    let lp = k.last_op();
    k.region(lp, 0, &[i32t], |k, args| {
        k.op(ct(CtOp::Continue), vec![args[0]], &[]);
    });
    k.ret();
    let e = k
        .run(
            [1, 1, 1],
            &[],
            &mut Memory::new(),
            &RunOptions {
                max_loop_iterations: Some(1000),
                ..opts()
            },
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::LoopLimit);
}

#[test]
fn assert_failure_carries_the_location_and_index() {
    let (mut k, _) = K::entry("k", &[]);
    let c = k.constant(NumType::I1, &[4], vec![1, 1, 0, 1]);
    k.op(
        ct(CtOp::Assert).with("message", Attr::Str("must hold".into())),
        vec![c],
        &[],
    );
    k.ret();
    let e = k
        .run([1, 1, 1], &[], &mut Memory::new(), &opts())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::AssertionFailed);
    let text = e.to_string();
    assert!(
        text.starts_with(
            "test.mlir:3:3: 'cuda_tile.assert' op assertion failed: \"must hold\" at index [2]"
        ),
        "{text}"
    );
    assert!(text.ends_with("(in tile block (0, 0, 0))"), "{text}");
}

#[test]
fn print_formats_tiles_into_the_report() {
    let (mut k, _) = K::entry("k", &[]);
    let [bx, _, _] = k.block_id();
    let v = k.constant(
        NumType::F32,
        &[2],
        vec![1.5f32.to_bits() as u64, (-2.0f32).to_bits() as u64],
    );
    let op = ct(CtOp::PrintTko)
        .with("str", Attr::Str("block %d: %.2f\n".into()))
        .with_segments(&[2, 0]);
    k.op(op, vec![bx, v], &[Type::Token]);
    k.ret();
    let r = k.run([2, 1, 1], &[], &mut Memory::new(), &opts()).unwrap();
    assert_eq!(r.output, "block 0: [1.50, -2.00]\nblock 1: [1.50, -2.00]\n");
}

#[test]
fn view_loads_pad_and_stores_mask_out_of_bounds_elements() {
    // A 5x3 i32 tensor, 4x4 tiles: tile (1, 0) has one valid row and three valid columns.
    let (mut k, a) = K::entry(
        "k",
        &[ptr_tile(&[], NumType::I32), ptr_tile(&[], NumType::I32)],
    );
    let tvt = Type::TensorView(TensorViewType {
        elem: NumType::I32,
        shape: vec![Dim::Static(5), Dim::Static(3)],
        strides: vec![Dim::Static(3), Dim::Static(1)],
    });
    let tv = k.op1(
        ct(CtOp::MakeTensorView).with_segments(&[1, 0, 0]),
        vec![a[0]],
        tvt.clone(),
    );
    let tvid = k.ty(tvt);
    let pvt = Type::PartitionView(PartitionViewType {
        tile_shape: vec![4, 4],
        tensor_view: tvid,
        dim_map: vec![],
        padding: Some(PaddingValue::Zero),
    });
    let pv = k.op1(ct(CtOp::MakePartitionView), vec![tv], pvt);
    let (i1, i0) = (k.ci32(1), k.ci32(0));
    let t = k.load_view(pv, &[i1, i0], tile(&[4, 4], NumType::I32));
    let flat = k.op1(ct(CtOp::Reshape), vec![t], tile(&[16], NumType::I32));
    let (ov, _) = k.view1d(a[1], NumType::I32, 16, 16, None);
    k.store_view(flat, ov, &[i0]);
    // Store the tile back shifted by one: writes only the in-bounds row 4.
    let hundred = k.constant(NumType::I32, &[4, 4], vec![100]);
    let t2 = k.op1(
        ct(CtOp::AddI),
        vec![t, hundred],
        tile(&[4, 4], NumType::I32),
    );
    k.store_view(t2, pv, &[i1, i0]);
    // Index space: ceil(5/4) x ceil(3/4).
    let shp = k.op(
        ct(CtOp::GetIndexSpaceShape),
        vec![pv],
        &[tile(&[], NumType::I32), tile(&[], NumType::I32)],
    );
    let st = || {
        ct(CtOp::StorePtrTko)
            .with(
                "memory_ordering_semantics",
                en("memory_ordering_semantics", "weak"),
            )
            .with_segments(&[1, 1, 0, 0])
    };
    let p1 = k.op1(
        ct(CtOp::Offset),
        vec![a[1], i1],
        ptr_tile(&[], NumType::I32),
    );
    k.op(st(), vec![p1, shp[0]], &[Type::Token]);
    let two = k.ci32(2);
    let p2 = k.op1(
        ct(CtOp::Offset),
        vec![a[1], two],
        ptr_tile(&[], NumType::I32),
    );
    k.op(st(), vec![p2, shp[1]], &[Type::Token]);
    k.ret();
    let mut mem = Memory::new();
    let src = mem.alloc_i32(&(0..15).collect::<Vec<_>>());
    let out = mem.alloc(64, 256);
    k.run(
        [1, 1, 1],
        &[ArgValue::Ptr(src), ArgValue::Ptr(out)],
        &mut mem,
        &opts(),
    )
    .unwrap();
    let got = mem.read_i32(out, 16).unwrap();
    // Row 4 = [12, 13, 14] then padding; index space written over elements 1 and 2 afterwards.
    assert_eq!(got[0], 12);
    assert_eq!(&got[1..3], &[2, 1]);
    assert_eq!(&got[3..], &[0; 13]);
    assert_eq!(
        mem.read_i32(src, 15).unwrap(),
        (0..15)
            .map(|i| if i >= 12 { i + 100 } else { i })
            .collect::<Vec<_>>()
    );
}

#[test]
fn out_of_bounds_tiles_and_pointers_are_errors() {
    let (mut k, a) = K::entry("k", &[ptr_tile(&[], NumType::F32)]);
    let (pv, _) = k.view1d(a[0], NumType::F32, 8, 4, None);
    let i = k.ci32(2);
    k.load_view(pv, &[i], tile(&[4], NumType::F32));
    k.ret();
    let mut mem = Memory::new();
    let buf = mem.alloc(32, 256);
    let e = k
        .run([1, 1, 1], &[ArgValue::Ptr(buf)], &mut mem, &opts())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UndefinedBehavior, "{e}");
    assert!(
        e.to_string()
            .contains("'cuda_tile.load_view_tko' op index 2 along dimension 0 is outside the index space of size 2"),
        "{e}"
    );

    // A pointer one past the allocation faults.
    let (mut k, a) = K::entry("k", &[ptr_tile(&[], NumType::F32)]);
    let two = k.ci32(2);
    let p = k.op1(
        ct(CtOp::Offset),
        vec![a[0], two],
        ptr_tile(&[], NumType::F32),
    );
    let op = ct(CtOp::LoadPtrTko)
        .with(
            "memory_ordering_semantics",
            en("memory_ordering_semantics", "weak"),
        )
        .with_segments(&[1, 0, 0, 0]);
    k.op(op, vec![p], &[tile(&[], NumType::F32), Type::Token]);
    k.ret();
    let buf = mem.alloc(8, 256);
    let e = k
        .run([1, 1, 1], &[ArgValue::Ptr(buf)], &mut mem, &opts())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::MemoryFault, "{e}");
}

#[test]
fn masked_pointer_loads_use_padding_and_stores_skip_lanes() {
    let n = 8i64;
    let (mut k, a) = K::entry(
        "k",
        &[ptr_tile(&[], NumType::F32), ptr_tile(&[], NumType::F32)],
    );
    let io = k.op1(ct(CtOp::Iota), vec![], tile(&[n], NumType::I32));
    let b1 = k.op1(ct(CtOp::Reshape), vec![a[0]], ptr_tile(&[1], NumType::F32));
    let bb = k.op1(ct(CtOp::Broadcast), vec![b1], ptr_tile(&[n], NumType::F32));
    let ptrs = k.op1(ct(CtOp::Offset), vec![bb, io], ptr_tile(&[n], NumType::F32));
    let five = k.constant(NumType::I32, &[n], vec![5]);
    let mask = k.op1(
        ct(CtOp::CmpI)
            .with(
                "comparison_predicate",
                en("comparison_predicate", "less_than"),
            )
            .with("signedness", en("signedness", "signed")),
        vec![io, five],
        tile(&[n], NumType::I1),
    );
    let pad = k.constant(NumType::F32, &[n], vec![(-1.0f32).to_bits() as u64]);
    let op = ct(CtOp::LoadPtrTko)
        .with(
            "memory_ordering_semantics",
            en("memory_ordering_semantics", "weak"),
        )
        .with_segments(&[1, 1, 1, 0]);
    let v = k.op(
        op,
        vec![ptrs, mask, pad],
        &[tile(&[n], NumType::F32), Type::Token],
    )[0];
    let o1 = k.op1(ct(CtOp::Reshape), vec![a[1]], ptr_tile(&[1], NumType::F32));
    let ob = k.op1(ct(CtOp::Broadcast), vec![o1], ptr_tile(&[n], NumType::F32));
    let optrs = k.op1(ct(CtOp::Offset), vec![ob, io], ptr_tile(&[n], NumType::F32));
    let st = ct(CtOp::StorePtrTko)
        .with(
            "memory_ordering_semantics",
            en("memory_ordering_semantics", "weak"),
        )
        .with_segments(&[1, 1, 0, 0]);
    k.op(st, vec![optrs, v], &[Type::Token]);
    // Masked store of 7s into the source: only lanes < 5.
    let sevens = k.constant(NumType::F32, &[n], vec![7.0f32.to_bits() as u64]);
    let st = ct(CtOp::StorePtrTko)
        .with(
            "memory_ordering_semantics",
            en("memory_ordering_semantics", "weak"),
        )
        .with_segments(&[1, 1, 1, 0]);
    k.op(st, vec![ptrs, sevens, mask], &[Type::Token]);
    k.ret();
    let mut mem = Memory::new();
    let src = mem.alloc_f32(&[1., 2., 3., 4., 5., 6., 7., 8.]);
    let dst = mem.alloc(32, 256);
    k.run(
        [1, 1, 1],
        &[ArgValue::Ptr(src), ArgValue::Ptr(dst)],
        &mut mem,
        &opts(),
    )
    .unwrap();
    assert_eq!(
        mem.read_f32(dst, 8).unwrap(),
        vec![1., 2., 3., 4., 5., -1., -1., -1.]
    );
    assert_eq!(
        mem.read_f32(src, 8).unwrap(),
        vec![7., 7., 7., 7., 7., 6., 7., 8.]
    );
}

#[test]
fn atomics_run_sequentially_across_blocks() {
    // Every block adds its id+1 to counter[0] (atomic add) and swaps into counter[1].
    let (mut k, a) = K::entry(
        "k",
        &[ptr_tile(&[], NumType::I32), ptr_tile(&[], NumType::F32)],
    );
    let [bx, _, _] = k.block_id();
    let one = k.ci32(1);
    let v = k.op1(ct(CtOp::AddI), vec![bx, one], tile(&[], NumType::I32));
    let rmw = |mode: &'static str| {
        ct(CtOp::AtomicRmwTko)
            .with(
                "memory_ordering_semantics",
                en("memory_ordering_semantics", "relaxed"),
            )
            .with("memory_scope", en("memory_scope", "device"))
            .with("mode", en("atomic_rmw_mode", mode))
            .with_segments(&[1, 1, 0, 0])
    };
    k.op(
        rmw("add"),
        vec![a[0], v],
        &[tile(&[], NumType::I32), Type::Token],
    );
    let p1 = k.op1(
        ct(CtOp::Offset),
        vec![a[0], one],
        ptr_tile(&[], NumType::I32),
    );
    k.op(
        rmw("max"),
        vec![p1, v],
        &[tile(&[], NumType::I32), Type::Token],
    );
    let h = k.constant(NumType::F32, &[], vec![0.5f32.to_bits() as u64]);
    k.op(
        rmw("addf"),
        vec![a[1], h],
        &[tile(&[], NumType::F32), Type::Token],
    );
    // CAS: counter[2] from 0 to 100 succeeds only for the first block that runs.
    let two = k.ci32(2);
    let p2 = k.op1(
        ct(CtOp::Offset),
        vec![a[0], two],
        ptr_tile(&[], NumType::I32),
    );
    let (zero, hundred) = (k.ci32(0), k.ci32(100));
    let cas = ct(CtOp::AtomicCasTko)
        .with(
            "memory_ordering_semantics",
            en("memory_ordering_semantics", "acq_rel"),
        )
        .with("memory_scope", en("memory_scope", "device"))
        .with_segments(&[1, 1, 1, 0, 0]);
    let old = k.op(
        cas,
        vec![p2, zero, hundred],
        &[tile(&[], NumType::I32), Type::Token],
    )[0];
    let three = k.ci32(3);
    let p3 = k.op1(
        ct(CtOp::Offset),
        vec![a[0], three],
        ptr_tile(&[], NumType::I32),
    );
    k.op(
        rmw("add"),
        vec![p3, old],
        &[tile(&[], NumType::I32), Type::Token],
    );
    k.ret();
    let mut mem = Memory::new();
    let c = mem.alloc(16, 256);
    let f = mem.alloc(4, 256);
    let o = RunOptions {
        detect_races: true,
        parallel: true,
        ..opts()
    };
    let r = k
        .run(
            [10, 1, 1],
            &[ArgValue::Ptr(c), ArgValue::Ptr(f)],
            &mut mem,
            &o,
        )
        .unwrap();
    assert!(!r.ran_parallel, "atomics force sequential execution");
    assert_eq!(mem.read_i32(c, 4).unwrap(), vec![55, 10, 100, 900]);
    assert_eq!(mem.read_f32(f, 1).unwrap(), vec![5.0]);
}

#[test]
fn reduce_and_scan_execute_their_bodies_in_order() {
    // reduce dim 1 of a 2x4 i32 tile with addi; scan dim 1 (reverse) with a non-elementwise
    // body would need the slow path: use subf to make the order visible.
    let (mut k, a) = K::entry(
        "k",
        &[ptr_tile(&[], NumType::I32), ptr_tile(&[], NumType::F32)],
    );
    let x = k.constant(NumType::I32, &[2, 4], (1..=8).collect());
    let red = ct(CtOp::Reduce).with("dim", Attr::Int(1)).with(
        "identities",
        Attr::Array(vec![Attr::Scalar(NumType::I32, 100)]),
    );
    let r = k.op1(red, vec![x], tile(&[2], NumType::I32));
    let rop = k.last_op();
    let s = tile(&[], NumType::I32);
    k.region(rop, 0, &[s.clone(), s.clone()], |k, args| {
        let v = k.op1(ct(CtOp::AddI), vec![args[0], args[1]], s.clone());
        k.op(ct(CtOp::Yield), vec![v], &[]);
    });
    let (pv, _) = k.view1d(a[0], NumType::I32, 2, 2, None);
    let zero = k.ci32(0);
    k.store_view(r, pv, &[zero]);
    let y = k.constant(
        NumType::F32,
        &[4],
        [1.0f32, 2.0, 4.0, 8.0]
            .iter()
            .map(|v| v.to_bits() as u64)
            .collect(),
    );
    let f = tile(&[], NumType::F32);
    for (reverse, slot) in [(false, 0i64), (true, 1)] {
        let scan = ct(CtOp::Scan)
            .with("dim", Attr::Int(0))
            .with("reverse", Attr::Bool(reverse))
            .with(
                "identities",
                Attr::Array(vec![Attr::Scalar(NumType::F32, 0)]),
            );
        let sc = k.op1(scan, vec![y], tile(&[4], NumType::F32));
        let sop = k.last_op();
        k.region(sop, 0, &[f.clone(), f.clone()], |k, args| {
            // acc - elem: order dependent.
            let v = k.op1(ct(CtOp::SubF), vec![args[1], args[0]], f.clone());
            // A reshape round trip forces per-lane execution for the reverse scan.
            let v = if reverse {
                let r = k.op1(ct(CtOp::Reshape), vec![v], tile(&[1], NumType::F32));
                k.op1(ct(CtOp::Reshape), vec![r], f.clone())
            } else {
                v
            };
            k.op(ct(CtOp::Yield), vec![v], &[]);
        });
        let (pv, _) = k.view1d(a[1], NumType::F32, 8, 4, None);
        let i = k.ci32(slot as i32);
        k.store_view(sc, pv, &[i]);
    }
    k.ret();
    let mut mem = Memory::new();
    let o = mem.alloc(8, 256);
    let of = mem.alloc(32, 256);
    k.run(
        [1, 1, 1],
        &[ArgValue::Ptr(o), ArgValue::Ptr(of)],
        &mut mem,
        &opts(),
    )
    .unwrap();
    assert_eq!(mem.read_i32(o, 2).unwrap(), vec![110, 126]);
    assert_eq!(
        mem.read_f32(of, 8).unwrap(),
        vec![-1., -3., -7., -15., -15., -14., -12., -8.]
    );
}

#[test]
fn globals_and_alloca() {
    let (mut k, a) = K::entry("k", &[ptr_tile(&[], NumType::F32)]);
    // global @lut <f32: [10, 20, 30, 40]> : tile<4xf32>
    let d = attrs::DenseElements {
        elem: NumType::F32,
        shape: vec![4],
        bits: [10f32, 20., 30., 40.]
            .iter()
            .map(|v| v.to_bits() as u64)
            .collect(),
    };
    let g = ct(CtOp::Global)
        .with("sym_name", Attr::Str("lut".into()))
        .with("value", Attr::Dense(d));
    let loc = k.m.locs.unknown();
    let gop = k.m.create_op(OpKind::CudaTile(g), vec![], &[], loc);
    let mb = k.module_block;
    k.m.append_op(mb, gop);
    let p = k.op1(
        ct(CtOp::GetGlobal).with("name", Attr::Symbol("lut".into())),
        vec![],
        ptr_tile(&[], NumType::F32),
    );
    let (pv, _) = k.view1d(p, NumType::F32, 4, 4, None);
    let zero = k.ci32(0);
    let v = k.load_view(pv, &[zero], tile(&[4], NumType::F32));
    // Round trip through an alloca.
    let al = k.op1(
        ct(CtOp::Alloca)
            .with("num_elem", Attr::Int(4))
            .with("alignment", Attr::Int(16)),
        vec![],
        ptr_tile(&[], NumType::F32),
    );
    let (apv, _) = k.view1d(al, NumType::F32, 4, 4, None);
    k.store_view(v, apv, &[zero]);
    let w = k.load_view(apv, &[zero], tile(&[4], NumType::F32));
    let (opv, _) = k.view1d(a[0], NumType::F32, 4, 4, None);
    k.store_view(w, opv, &[zero]);
    k.ret();
    let mut mem = Memory::new();
    let out = mem.alloc(16, 256);
    k.run([2, 1, 1], &[ArgValue::Ptr(out)], &mut mem, &opts())
        .unwrap();
    assert_eq!(mem.read_f32(out, 4).unwrap(), vec![10., 20., 30., 40.]);
    assert_eq!(mem.num_allocations(), 1, "globals and allocas are freed");
}

#[test]
fn launch_arguments_are_checked() {
    let (mut k, _) = K::entry("k", &[tile(&[], NumType::I32)]);
    k.ret();
    let mut mem = Memory::new();
    assert_eq!(
        k.run([1, 1, 1], &[ArgValue::f32(1.0)], &mut mem, &opts())
            .unwrap_err()
            .kind,
        ErrorKind::InvalidLaunch
    );
    assert_eq!(
        k.run([1, 1, 1], &[], &mut mem, &opts()).unwrap_err().kind,
        ErrorKind::InvalidLaunch
    );
    assert_eq!(
        k.run([0, 1, 1], &[ArgValue::i32(1)], &mut mem, &opts())
            .unwrap_err()
            .kind,
        ErrorKind::InvalidLaunch
    );
    assert!(k
        .run([1, 1, 1], &[ArgValue::i32(1)], &mut mem, &opts())
        .is_ok());
    let e = tileir_interp::run_entry(&k.m, "nope", [1, 1, 1], &[], &mut mem, &opts()).unwrap_err();
    assert!(e.message.contains("no entry named 'nope'"));
}

#[test]
fn dynamic_tensor_views_and_gather() {
    // make_tensor_view with dynamic shape [n] and stride [s]: a strided column read, then a
    // gather of rows [3, 0, 9(out of range), 1] from a 4x2 view.
    let (mut k, a) = K::entry(
        "k",
        &[
            ptr_tile(&[], NumType::I32),
            tile(&[], NumType::I64),
            ptr_tile(&[], NumType::I32),
        ],
    );
    let tvt = Type::TensorView(TensorViewType {
        elem: NumType::I32,
        shape: vec![Dim::Dynamic, Dim::Static(2)],
        strides: vec![Dim::Static(2), Dim::Static(1)],
    });
    let tv = k.op1(
        ct(CtOp::MakeTensorView).with_segments(&[1, 1, 0]),
        vec![a[0], a[1]],
        tvt.clone(),
    );
    let shp = k.op(
        ct(CtOp::GetTensorShape),
        vec![tv],
        &[tile(&[], NumType::I64), tile(&[], NumType::I64)],
    );
    let tvid = k.ty(tvt);
    let gvt = Type::GatherScatterView(types::GatherScatterViewType {
        tile_shape: vec![4, 2],
        tensor_view: tvid,
        sparse_dim: 0,
        padding: Some(PaddingValue::Zero),
    });
    let gv = k.op1(ct(CtOp::MakeGatherScatterView), vec![tv], gvt);
    let rows = k.constant(NumType::I32, &[4], vec![3, 0, 9, 1]);
    let zero = k.ci32(0);
    let g = k.load_view(gv, &[rows, zero], tile(&[4, 2], NumType::I32));
    let flat = k.op1(ct(CtOp::Reshape), vec![g], tile(&[8], NumType::I32));
    let (ov, _) = k.view1d(a[2], NumType::I32, 10, 8, None);
    k.store_view(flat, ov, &[zero]);
    let p8 = k.constant(NumType::I32, &[], vec![8]);
    let p = k.op1(
        ct(CtOp::Offset),
        vec![a[2], p8],
        ptr_tile(&[], NumType::I32),
    );
    let t32 = k.op1(ct(CtOp::TruncI), vec![shp[0]], tile(&[], NumType::I32));
    let st = ct(CtOp::StorePtrTko)
        .with(
            "memory_ordering_semantics",
            en("memory_ordering_semantics", "weak"),
        )
        .with_segments(&[1, 1, 0, 0]);
    k.op(st, vec![p, t32], &[Type::Token]);
    k.ret();
    let mut mem = Memory::new();
    let src = mem.alloc_i32(&[0, 1, 10, 11, 20, 21, 30, 31]);
    let out = mem.alloc(40, 256);
    k.run(
        [1, 1, 1],
        &[ArgValue::Ptr(src), ArgValue::i64(4), ArgValue::Ptr(out)],
        &mut mem,
        &opts(),
    )
    .unwrap();
    assert_eq!(
        mem.read_i32(out, 9).unwrap(),
        vec![30, 31, 0, 1, 0, 0, 10, 11, 4]
    );
}

#[test]
fn assume_is_checked_on_request() {
    let (mut k, a) = K::entry("k", &[tile(&[], NumType::I32)]);
    k.op1(
        ct(CtOp::Assume).with("predicate", Attr::Assume(AssumePredicate::div_by(16))),
        vec![a[0]],
        tile(&[], NumType::I32),
    );
    k.ret();
    let mut mem = Memory::new();
    assert!(k
        .run([1, 1, 1], &[ArgValue::i32(24)], &mut mem, &opts())
        .is_ok());
    let e = k
        .run(
            [1, 1, 1],
            &[ArgValue::i32(24)],
            &mut mem,
            &RunOptions {
                check_assumes: true,
                ..opts()
            },
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::AssumptionViolated);
    assert!(k
        .run(
            [1, 1, 1],
            &[ArgValue::i32(32)],
            &mut mem,
            &RunOptions {
                check_assumes: true,
                ..opts()
            }
        )
        .is_ok());
}

/// A 2-D view with explicit dims, strides, tile shape, dim_map and padding.
fn view2d_general(
    k: &mut K,
    ptr: ValueId,
    shape: [i64; 2],
    strides: [i64; 2],
    tile_shape: [i64; 2],
    dim_map: Vec<i64>,
    padding: Option<PaddingValue>,
) -> ValueId {
    let tvt = Type::TensorView(TensorViewType {
        elem: NumType::I32,
        shape: shape.iter().map(|&d| Dim::Static(d)).collect(),
        strides: strides.iter().map(|&d| Dim::Static(d)).collect(),
    });
    let tv = k.op1(
        ct(CtOp::MakeTensorView).with_segments(&[1, 0, 0]),
        vec![ptr],
        tvt.clone(),
    );
    let tvid = k.ty(tvt);
    let pvt = Type::PartitionView(PartitionViewType {
        tile_shape: tile_shape.to_vec(),
        tensor_view: tvid,
        dim_map,
        padding,
    });
    k.op1(ct(CtOp::MakePartitionView), vec![tv], pvt)
}

#[test]
fn transposed_and_partial_view_tiles_move_the_right_elements() {
    // A 5x6 i32 tensor (row stride 7: one unused element per row). Through a transposed view
    // (tile dimension 0 runs along tensor columns) tile (1, 1) covers columns 4..8 (two out of
    // bounds) and rows 3..6 (one out of bounds); the tile is stored, plus 1000, through a plain
    // 4x4 view at tile (0, 1), whose rows run past the tensor's end column.
    let (mut k, a) = K::entry(
        "k",
        &[ptr_tile(&[], NumType::I32), ptr_tile(&[], NumType::I32)],
    );
    let tr = view2d_general(
        &mut k,
        a[0],
        [5, 6],
        [7, 1],
        [4, 3],
        vec![1, 0],
        Some(PaddingValue::Zero),
    );
    let plain = view2d_general(&mut k, a[1], [5, 6], [7, 1], [4, 3], vec![], None);
    let i1 = k.ci32(1);
    let t = k.load_view(tr, &[i1, i1], tile(&[4, 3], NumType::I32));
    let thousand = k.constant(NumType::I32, &[4, 3], vec![1000]);
    let t2 = k.op1(
        ct(CtOp::AddI),
        vec![t, thousand],
        tile(&[4, 3], NumType::I32),
    );
    let i0 = k.ci32(0);
    k.store_view(t2, plain, &[i1, i1]);
    k.store_view(t, plain, &[i0, i0]);
    k.ret();
    let mut mem = Memory::new();
    let src = mem.alloc_i32(&(0..35).collect::<Vec<_>>());
    let dst = mem.alloc_i32(&[-1; 35]);
    k.run(
        [1, 1, 1],
        &[ArgValue::Ptr(src), ArgValue::Ptr(dst)],
        &mut mem,
        &opts(),
    )
    .unwrap();
    // Element (p, q) of the loaded tile is tensor element (row 3 + q, column 4 + p).
    let want_tile: Vec<i32> = (0..4)
        .flat_map(|p| {
            (0..3).map(move |q| {
                let (r, c) = (3 + q, 4 + p);
                if r < 5 && c < 6 {
                    r * 7 + c
                } else {
                    0
                }
            })
        })
        .collect();
    let mut want = vec![-1; 35];
    for p in 0..4usize {
        for q in 0..3usize {
            // Tile (1, 1) of the plain view: rows 4..8, columns 3..6 (row 4 only in bounds).
            let (r, c) = (4 + p, 3 + q);
            if r < 5 && c < 6 {
                want[r * 7 + c] = want_tile[p * 3 + q] + 1000;
            }
            // Tile (0, 0): rows 0..4, columns 0..3.
            want[p * 7 + q] = want_tile[p * 3 + q];
        }
    }
    assert_eq!(mem.read_i32(dst, 35).unwrap(), want);
}

#[test]
fn a_fault_inside_a_partial_row_names_the_first_faulting_element() {
    // A 2x6 i32 tensor view over an allocation of only 8 elements; tile (0, 1) of 2x4 tiles
    // reads columns 4..8 (6 and 7 are padding) of rows 0 and 1: row 1 starts at element 10,
    // outside the allocation, so the fault is a 4-byte read at element 10.
    let (mut k, a) = K::entry("k", &[ptr_tile(&[], NumType::I32)]);
    let v = view2d_general(
        &mut k,
        a[0],
        [2, 6],
        [6, 1],
        [2, 4],
        vec![],
        Some(PaddingValue::Zero),
    );
    let (i0, i1) = (k.ci32(0), k.ci32(1));
    k.load_view(v, &[i0, i1], tile(&[2, 4], NumType::I32));
    k.ret();
    let mut mem = Memory::new();
    let buf = mem.alloc(32, 256);
    let e = k
        .run([1, 1, 1], &[ArgValue::Ptr(buf)], &mut mem, &opts())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::MemoryFault, "{e}");
    assert!(
        e.to_string().contains(&format!(
            "out-of-bounds read of 4 byte(s) at address {:#x}",
            buf + 40
        )),
        "{e}"
    );
}
