//! 4-bit (f4E2M1FN) memory accesses through pointers and views, and data-race detection
//! (read/write and atomic/plain conflicts, shuffled block orders). Kernels are written in the
//! textual syntax.

use tileir_interp::{
    run_entry, ArgValue, BlockOrder, ErrorKind, InterpError, Memory, RunOptions, RunReport,
};
use tileir_numeric::{decode, FloatFormat};
use tileir_syntax::{parse_module, ParseOptions};

fn parse(text: &str) -> tileir_ir::Module {
    match parse_module(
        text,
        &ParseOptions {
            file_name: "memory_model.mlir".into(),
            keep_names: true,
            ..Default::default()
        },
    ) {
        Ok(m) => m,
        Err(d) => panic!("parse failed: {d:?}"),
    }
}

fn run(
    text: &str,
    entry: &str,
    grid: [u32; 3],
    args: &[ArgValue],
    mem: &mut Memory,
    options: &RunOptions,
) -> Result<RunReport, InterpError> {
    run_entry(&parse(text), entry, grid, args, mem, options)
}

/// Element `n` of packed 4-bit data (the lower index in the low nibble).
fn nibble(bytes: &[u8], n: usize) -> u64 {
    ((bytes[n / 2] >> (4 * (n % 2))) & 0xf) as u64
}

// ---------------------------------------------------------------------------------------
// f4E2M1FN through pointers
// ---------------------------------------------------------------------------------------

/// Loads 8 f4 elements starting at element `%off` of `%src` (any offset, odd included), with
/// lanes `>= %n` masked off and padded with -6.0, and stores them as f32 to `%dst`.
const F4_GATHER: &str = r#"
cuda_tile.module @m {
  entry @gather(%src: tile<ptr<f4E2M1FN>>, %dst: tile<ptr<f32>>, %off: tile<i32>, %n: tile<i32>) {
    %i = iota : tile<8xi32>
    %o1 = reshape %off : tile<i32> -> tile<1xi32>
    %o = broadcast %o1 : tile<1xi32> -> tile<8xi32>
    %idx = addi %i, %o : tile<8xi32>
    %n1 = reshape %n : tile<i32> -> tile<1xi32>
    %nn = broadcast %n1 : tile<1xi32> -> tile<8xi32>
    %m = cmpi less_than %i, %nn, signed : tile<8xi32> -> tile<8xi1>
    %s1 = reshape %src : tile<ptr<f4E2M1FN>> -> tile<1xptr<f4E2M1FN>>
    %s = broadcast %s1 : tile<1xptr<f4E2M1FN>> -> tile<8xptr<f4E2M1FN>>
    %p = offset %s, %idx : tile<8xptr<f4E2M1FN>>, tile<8xi32> -> tile<8xptr<f4E2M1FN>>
    %pad = constant <f4E2M1FN: -6.0> : tile<8xf4E2M1FN>
    %v, %t = load_ptr_tko weak %p, %m, %pad : tile<8xptr<f4E2M1FN>>, tile<8xi1>, tile<8xf4E2M1FN> -> tile<8xf4E2M1FN>, token
    %f = ftof %v : tile<8xf4E2M1FN> -> tile<8xf32>
    %d1 = reshape %dst : tile<ptr<f32>> -> tile<1xptr<f32>>
    %d = broadcast %d1 : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %q = offset %d, %i : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %t2 = store_ptr_tko weak %q, %f : tile<8xptr<f32>>, tile<8xf32> -> token
    return
  }
}
"#;

#[test]
fn f4_pointer_loads_at_any_element_offset_with_mask_and_padding() {
    let src: Vec<u8> = (0..16u8).map(|k| k.wrapping_mul(37) ^ 0x5a).collect();
    for off in [0usize, 1, 3, 6, 11] {
        for n in [8i32, 5] {
            let mut mem = Memory::new();
            let ps = mem.alloc_bytes(&src);
            let pd = mem.alloc(32, 256);
            run(
                F4_GATHER,
                "gather",
                [1, 1, 1],
                &[
                    ArgValue::Ptr(ps),
                    ArgValue::Ptr(pd),
                    ArgValue::i32(off as i32),
                    ArgValue::i32(n),
                ],
                &mut mem,
                &RunOptions::default(),
            )
            .unwrap();
            let got = mem.read_f32(pd, 8).unwrap();
            for (i, g) in got.iter().enumerate() {
                let want = if (i as i32) < n {
                    decode(FloatFormat::F4E2M1FN, nibble(&src, off + i)) as f32
                } else {
                    -6.0
                };
                assert_eq!(g.to_bits(), want.to_bits(), "offset {off}, n {n}, lane {i}");
            }
        }
    }
}

#[test]
fn f4_pointer_loads_past_the_end_fault_at_the_right_byte() {
    // 4 bytes hold elements 0..8: elements 1..9 need byte 4, outside the allocation.
    let mut mem = Memory::new();
    let ps = mem.alloc_bytes(&[0x11, 0x22, 0x33, 0x44]);
    let pd = mem.alloc(32, 256);
    let args = |off: i32| {
        [
            ArgValue::Ptr(ps),
            ArgValue::Ptr(pd),
            ArgValue::i32(off),
            ArgValue::i32(8),
        ]
    };
    let opts = RunOptions::default();
    run(F4_GATHER, "gather", [1, 1, 1], &args(0), &mut mem, &opts).unwrap();
    let e = run(F4_GATHER, "gather", [1, 1, 1], &args(1), &mut mem, &opts).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MemoryFault, "{e}");
    assert!(e.message.contains(&format!("{:#x}", ps + 4)), "{e}");
    // Masked-off lanes are not accessed: the same offset with only 7 lanes on is fine.
    let mut a = args(1);
    a[3] = ArgValue::i32(7);
    run(F4_GATHER, "gather", [1, 1, 1], &a, &mut mem, &opts).unwrap();
}

/// Stores 8 f4 values to elements `%off + i` of `%dst`, lane 2 masked off.
const F4_SCATTER: &str = r#"
cuda_tile.module @m {
  entry @scatter(%dst: tile<ptr<f4E2M1FN>>, %off: tile<i32>) {
    %i = iota : tile<8xi32>
    %o1 = reshape %off : tile<i32> -> tile<1xi32>
    %o = broadcast %o1 : tile<1xi32> -> tile<8xi32>
    %idx = addi %i, %o : tile<8xi32>
    %two = constant <i32: 2> : tile<8xi32>
    %m = cmpi not_equal %i, %two, signed : tile<8xi32> -> tile<8xi1>
    %d1 = reshape %dst : tile<ptr<f4E2M1FN>> -> tile<1xptr<f4E2M1FN>>
    %d = broadcast %d1 : tile<1xptr<f4E2M1FN>> -> tile<8xptr<f4E2M1FN>>
    %p = offset %d, %idx : tile<8xptr<f4E2M1FN>>, tile<8xi32> -> tile<8xptr<f4E2M1FN>>
    %v = constant <f4E2M1FN: [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -1.0]> : tile<8xf4E2M1FN>
    %t = store_ptr_tko weak %p, %v, %m : tile<8xptr<f4E2M1FN>>, tile<8xf4E2M1FN>, tile<8xi1> -> token
    return
  }
}
"#;

#[test]
fn f4_pointer_stores_write_only_their_nibble() {
    // f4E2M1FN bits of 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -1.0.
    let vals = [0x1u8, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0xa];
    for off in [0usize, 1, 5] {
        let mut mem = Memory::new();
        let pd = mem.alloc_bytes(&[0xff; 8]);
        run(
            F4_SCATTER,
            "scatter",
            [1, 1, 1],
            &[ArgValue::Ptr(pd), ArgValue::i32(off as i32)],
            &mut mem,
            &RunOptions::default(),
        )
        .unwrap();
        let got = mem.slice(pd, 8).unwrap().to_vec();
        for e in 0..16usize {
            let want = match e.checked_sub(off) {
                Some(i) if i < 8 && i != 2 => vals[i] as u64,
                _ => 0xf,
            };
            assert_eq!(
                nibble(&got, e),
                want,
                "offset {off}, element {e}: {got:02x?}"
            );
        }
    }
}

#[test]
fn f4_nibble_stores_of_two_blocks_into_one_byte_are_a_race() {
    // Block b stores one element at element offset b: blocks 0 and 1 share byte 0.
    const K: &str = r#"
cuda_tile.module @m {
  entry @k(%dst: tile<ptr<f4E2M1FN>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %i = iota : tile<2xi32>
    %two = constant <i32: 2> : tile<2xi32>
    %b1 = reshape %bx : tile<i32> -> tile<1xi32>
    %b = broadcast %b1 : tile<1xi32> -> tile<2xi32>
    %i2 = muli %i, %two : tile<2xi32>
    %idx = addi %i2, %b : tile<2xi32>
    %d1 = reshape %dst : tile<ptr<f4E2M1FN>> -> tile<1xptr<f4E2M1FN>>
    %d = broadcast %d1 : tile<1xptr<f4E2M1FN>> -> tile<2xptr<f4E2M1FN>>
    %p = offset %d, %idx : tile<2xptr<f4E2M1FN>>, tile<2xi32> -> tile<2xptr<f4E2M1FN>>
    %v = constant <f4E2M1FN: [1.0, 2.0]> : tile<2xf4E2M1FN>
    %t = store_ptr_tko weak %p, %v : tile<2xptr<f4E2M1FN>>, tile<2xf4E2M1FN> -> token
    return
  }
}
"#;
    let mut mem = Memory::new();
    let pd = mem.alloc(4, 256);
    // Without race detection the halves combine: elements 0, 2 from block 0, 1, 3 from 1.
    run(
        K,
        "k",
        [2, 1, 1],
        &[ArgValue::Ptr(pd)],
        &mut mem,
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(mem.slice(pd, 2).unwrap(), &[0x22, 0x44]);
    let e = run(
        K,
        "k",
        [2, 1, 1],
        &[ArgValue::Ptr(pd)],
        &mut mem,
        &RunOptions {
            detect_races: true,
            ..RunOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    assert!(
        e.message.contains(
            "the byte holding elements 0 and 1 of argument #0 (%dst: tile<ptr<f4E2M1FN>>)"
        ),
        "{e}"
    );
}

/// A 1-D f4 tensor view of `%n` elements over `%base + %off` elements, loaded as 8-element
/// tiles with padding -0 and widened to f32.
const F4_VIEW: &str = r#"
cuda_tile.module @m {
  entry @v(%base: tile<ptr<f4E2M1FN>>, %dst: tile<ptr<f32>>, %off: tile<i32>, %n: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %p = offset %base, %off : tile<ptr<f4E2M1FN>>, tile<i32> -> tile<ptr<f4E2M1FN>>
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf4E2M1FN, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(8), padding_value = neg_zero, tensor_view<?xf4E2M1FN, strides=[1]>>
    %x, %t0 = load_view_tko weak %pv[%bx] : partition_view<tile=(8), padding_value = neg_zero, tensor_view<?xf4E2M1FN, strides=[1]>>, tile<i32> -> tile<8xf4E2M1FN>, token
    %f = ftof %x : tile<8xf4E2M1FN> -> tile<8xf32>
    %dv = make_tensor_view %dst, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %dp = make_partition_view %dv : partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>
    %t1 = store_view_tko weak %f, %dp[%bx] : tile<8xf32>, partition_view<tile=(8), tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"#;

#[test]
fn f4_views_load_with_padding_and_diagnose_misaligned_layouts() {
    let src: Vec<u8> = (0..16u8).map(|k| k.wrapping_mul(29) ^ 0x3c).collect();
    let mut mem = Memory::new();
    let ps = mem.alloc_bytes(&src);
    let pd = mem.alloc(64 * 4, 256);
    let opts = RunOptions::default();
    // 12 elements from element 2 (byte 1): tile 1 has 4 elements and 4 padded with -0.
    run(
        F4_VIEW,
        "v",
        [2, 1, 1],
        &[
            ArgValue::Ptr(ps),
            ArgValue::Ptr(pd),
            ArgValue::i32(2),
            ArgValue::i32(12),
        ],
        &mut mem,
        &opts,
    )
    .unwrap();
    let got = mem.read_f32(pd, 16).unwrap();
    for (i, g) in got.iter().enumerate() {
        let want = if i < 12 {
            decode(FloatFormat::F4E2M1FN, nibble(&src, 2 + i)) as f32
        } else {
            -0.0
        };
        assert_eq!(g.to_bits(), want.to_bits(), "element {i}");
    }
    // A view must start on a byte: element 3 is the high half of byte 1.
    let e = run(
        F4_VIEW,
        "v",
        [1, 1, 1],
        &[
            ArgValue::Ptr(ps),
            ArgValue::Ptr(pd),
            ArgValue::i32(3),
            ArgValue::i32(12),
        ],
        &mut mem,
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UndefinedBehavior, "{e}");
    assert!(e.message.contains("byte boundary"), "{e}");
    assert!(e.op.as_deref() == Some("cuda_tile.make_tensor_view"), "{e}");
    // Its unit-stride dimension must have an even size.
    let e = run(
        F4_VIEW,
        "v",
        [1, 1, 1],
        &[
            ArgValue::Ptr(ps),
            ArgValue::Ptr(pd),
            ArgValue::i32(2),
            ArgValue::i32(11),
        ],
        &mut mem,
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UndefinedBehavior, "{e}");
    assert!(
        e.message
            .contains("f4E2M1FN view dimensions with stride = 1 must have an even size, dimension 0 has size 11"),
        "{e}"
    );
}

#[test]
fn f4_pointers_into_the_middle_of_a_byte_have_no_byte_address() {
    const K: &str = r#"
cuda_tile.module @m {
  entry @k(%p: tile<ptr<f4E2M1FN>>, %out: tile<ptr<i64>>, %off: tile<i32>) {
    %q = offset %p, %off : tile<ptr<f4E2M1FN>>, tile<i32> -> tile<ptr<f4E2M1FN>>
    %a = assume div_by<2>, %q : tile<ptr<f4E2M1FN>>
    %i = ptr_to_int %a : tile<ptr<f4E2M1FN>> -> tile<i64>
    %t = store_ptr_tko weak %out, %i : tile<ptr<i64>>, tile<i64> -> token
    return
  }
}
"#;
    let mut mem = Memory::new();
    let p = mem.alloc(16, 256);
    let out = mem.alloc(8, 256);
    let go = |mem: &mut Memory, off: i32, check_assumes: bool| {
        run(
            K,
            "k",
            [1, 1, 1],
            &[ArgValue::Ptr(p), ArgValue::Ptr(out), ArgValue::i32(off)],
            mem,
            &RunOptions {
                check_assumes,
                ..RunOptions::default()
            },
        )
    };
    // Element 4 is byte 2; element -2 is byte -1.
    go(&mut mem, 4, true).unwrap();
    assert_eq!(
        mem.slice(out, 8).unwrap(),
        &(p + 2).to_le_bytes(),
        "offsets count elements"
    );
    go(&mut mem, -2, false).unwrap();
    assert_eq!(mem.slice(out, 8).unwrap(), &(p - 1).to_le_bytes());
    // Element 5: the high nibble of byte 2.
    let e = go(&mut mem, 5, false).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UndefinedBehavior, "{e}");
    assert!(
        e.message.contains(&format!(
            "high nibble (odd f4E2M1FN element) of byte {:#x}",
            p + 2
        )),
        "{e}"
    );
    // An odd pointer is not a multiple of anything (byte 2.5 for the assumption).
    let e = go(&mut mem, 5, true).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AssumptionViolated, "{e}");
    assert!(e.message.contains(".5 is not a multiple of 2"), "{e}");
}

#[test]
fn f4_globals_are_packed() {
    const K: &str = r#"
cuda_tile.module @m {
  global @g <f4E2M1FN: [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -1.0]> : tile<8xf4E2M1FN>
  entry @k(%dst: tile<ptr<f32>>) {
    %g = get_global @g : tile<ptr<f4E2M1FN>>
    %i = iota : tile<8xi32>
    %g1 = reshape %g : tile<ptr<f4E2M1FN>> -> tile<1xptr<f4E2M1FN>>
    %gs = broadcast %g1 : tile<1xptr<f4E2M1FN>> -> tile<8xptr<f4E2M1FN>>
    %p = offset %gs, %i : tile<8xptr<f4E2M1FN>>, tile<8xi32> -> tile<8xptr<f4E2M1FN>>
    %v, %t = load_ptr_tko weak %p : tile<8xptr<f4E2M1FN>> -> tile<8xf4E2M1FN>, token
    %f = ftof %v : tile<8xf4E2M1FN> -> tile<8xf32>
    %d1 = reshape %dst : tile<ptr<f32>> -> tile<1xptr<f32>>
    %d = broadcast %d1 : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %q = offset %d, %i : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %t2 = store_ptr_tko weak %q, %f : tile<8xptr<f32>>, tile<8xf32> -> token
    return
  }
}
"#;
    let mut mem = Memory::new();
    let pd = mem.alloc(32, 256);
    run(
        K,
        "k",
        [1, 1, 1],
        &[ArgValue::Ptr(pd)],
        &mut mem,
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(
        mem.read_f32(pd, 8).unwrap(),
        vec![0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -1.0]
    );
}

// ---------------------------------------------------------------------------------------
// Races
// ---------------------------------------------------------------------------------------

/// Block `b` copies tile `b + 1` of `%a` into tile `b`: block `b` reads what block `b + 1`
/// writes.
const SHIFT: &str = r#"
cuda_tile.module @m {
  entry @shift(%a: tile<ptr<f32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %nx = addi %bx, %one : tile<i32>
    %tv = make_tensor_view %a, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(64), tensor_view<256xf32, strides=[1]>>
    %x, %t0 = load_view_tko weak %pv[%nx] : partition_view<tile=(64), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
    %t1 = store_view_tko weak %x, %pv[%bx] : tile<64xf32>, partition_view<tile=(64), tensor_view<256xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"#;

#[test]
fn a_block_reading_what_another_writes_is_a_race() {
    let data: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let mut mem = Memory::new();
    let pa = mem.alloc_f32(&data);
    // Sequentially (x fastest) the shift is well defined without detection...
    run(
        SHIFT,
        "shift",
        [3, 1, 1],
        &[ArgValue::Ptr(pa)],
        &mut mem,
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(mem.read_f32(pa, 1).unwrap(), vec![64.0]);
    // ...but blocks have no order: block (0,0,0) reads elements 64.. that (1,0,0) writes.
    for options in [
        RunOptions {
            detect_races: true,
            ..RunOptions::default()
        },
        RunOptions {
            detect_races: true,
            parallel: true,
            ..RunOptions::default()
        },
        // A shuffled order checks for races on its own.
        RunOptions {
            order: BlockOrder::Shuffled(5),
            ..RunOptions::default()
        },
    ] {
        let e = run(
            SHIFT,
            "shift",
            [3, 1, 1],
            &[ArgValue::Ptr(pa)],
            &mut mem,
            &options,
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Race, "{e}");
        assert!(
            e.message.contains(&format!(
                "tile block (1, 0, 0) writes element 64 of argument #0 (%a: tile<ptr<f32>>) (address {:#x}), which tile block (0, 0, 0) reads",
                pa + 256
            )),
            "{options:?}: {e}"
        );
        assert!(e.message.contains("undefined behavior"), "{e}");
    }
    // Disjoint reads and writes are no race, in any order.
    let mut mem = Memory::new();
    let pa = mem.alloc_f32(&data);
    run(
        SHIFT,
        "shift",
        [1, 1, 1],
        &[ArgValue::Ptr(pa)],
        &mut mem,
        &RunOptions {
            order: BlockOrder::Shuffled(5),
            detect_races: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
}

#[test]
fn aliasing_arguments_are_named_by_the_nearest_pointer() {
    // Two arguments into one allocation: the conflict is reported against the argument whose
    // pointer is closest below the address.
    const K: &str = r#"
cuda_tile.module @m {
  entry @k(%src: tile<ptr<i32>>, %dst: tile<ptr<i32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %x, %t0 = load_ptr_tko weak %src : tile<ptr<i32>> -> tile<i32>, token
    %p = offset %dst, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t1 = store_ptr_tko weak %p, %x : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"#;
    let mut mem = Memory::new();
    let buf = mem.alloc(64, 256);
    let e = run(
        K,
        "k",
        [4, 1, 1],
        &[ArgValue::Ptr(buf + 12), ArgValue::Ptr(buf + 4)],
        &mut mem,
        &RunOptions {
            detect_races: true,
            ..RunOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    // dst[2] = src[0] is written by block 2 and read by every other block.
    assert!(
        e.message.contains(
            "tile block (2, 0, 0) writes element 0 of argument #0 (%src: tile<ptr<i32>>)"
        ),
        "{e}"
    );
    assert!(
        e.message.contains("which tile block (0, 0, 0) reads"),
        "{e}"
    );
}

/// Every block atomically adds 1 to `%c[0]`; with `%peek` set, it also reads `%c[0]` plainly.
const COUNTER: &str = r#"
cuda_tile.module @m {
  entry @count(%c: tile<ptr<i32>>, %out: tile<ptr<i32>>, %peek: tile<i1>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %old, %t = atomic_rmw_tko relaxed device %c, add, %one : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    if %peek {
      %v, %t1 = load_ptr_tko weak %c : tile<ptr<i32>> -> tile<i32>, token
      %p = offset %out, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
      %t2 = store_ptr_tko weak %p, %v : tile<ptr<i32>>, tile<i32> -> token
    }
    return
  }
}
"#;

#[test]
fn atomics_are_not_races_but_plain_accesses_to_atomic_data_are() {
    let mut mem = Memory::new();
    let c = mem.alloc(4, 256);
    let out = mem.alloc(64, 256);
    let peek = |on: bool| ArgValue::Scalar {
        ty: tileir_ir::NumType::I1,
        bits: on as u64,
    };
    let opts = RunOptions {
        detect_races: true,
        order: BlockOrder::Shuffled(3),
        ..RunOptions::default()
    };
    run(
        COUNTER,
        "count",
        [8, 2, 1],
        &[ArgValue::Ptr(c), ArgValue::Ptr(out), peek(false)],
        &mut mem,
        &opts,
    )
    .unwrap();
    assert_eq!(mem.read_i32(c, 1).unwrap(), vec![16]);
    let e = run(
        COUNTER,
        "count",
        [8, 2, 1],
        &[ArgValue::Ptr(c), ArgValue::Ptr(out), peek(true)],
        &mut mem,
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    assert!(
        e.message
            .contains("atomically updates element 0 of argument #0 (%c: tile<ptr<i32>>)"),
        "{e}"
    );
    assert!(e.message.contains("reads"), "{e}");
}
