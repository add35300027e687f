//! Differential runs of the compiler's lowerings: each kernel is interpreted as written
//! (cuda_tile), after `convert-cuda-tile-to-tileaa` (nv_tileaa) and after
//! `convert-tileaa-to-tileas` (nv_tileas), with the same arguments against equal memories;
//! every level must write the same bytes. Each kernel's output is also checked against a
//! host-side reference, so that a lowering that breaks every level alike still fails.

mod lowering;

use lowering::{count, lower, parse, MATMUL};
use tileir_syntax::{parse_module, ParseOptions};
use tileir_interp::{run_entry, ArgValue, ErrorKind, InterpError, Memory, RunOptions};
use tileir_ir::{Module, OpKind, TileAaOp, TileAsOp};

const TO_TILEAA: &str = "convert-cuda-tile-to-tileaa";
const TO_TILEAS: &str = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas";

/// The kernel at the three levels: (stage name, module).
fn levels(text: &str) -> Vec<(&'static str, Module)> {
    let ct = parse(text);
    let aa = lower(&ct, TO_TILEAA);
    let as_ = lower(&ct, TO_TILEAS);
    vec![("cuda_tile", ct), ("nv_tileaa", aa), ("nv_tileas", as_)]
}


/// Runs `entry` at every level; `setup` fills a fresh memory and returns the arguments and
/// the buffers (address, bytes) to compare. Returns the bytes of those buffers (equal at
/// every level).
fn differential(
    text: &str,
    entry: &str,
    grid: [u32; 3],
    setup: impl Fn(&mut Memory) -> (Vec<ArgValue>, Vec<(u64, usize)>),
) -> Vec<Vec<u8>> {
    let mut results: Vec<(&str, Vec<Vec<u8>>)> = Vec::new();
    for (stage, m) in levels(text) {
        let mut mem = Memory::new();
        let (args, outs) = setup(&mut mem);
        run_entry(&m, entry, grid, &args, &mut mem, &RunOptions::default())
            .unwrap_or_else(|e| panic!("{stage}: {e}"));
        let bytes = outs
            .iter()
            .map(|&(a, n)| {
                let mut b = vec![0u8; n];
                mem.read(a, &mut b).unwrap();
                b
            })
            .collect();
        results.push((stage, bytes));
    }
    let (first, reference) = &results[0];
    for (stage, bytes) in &results[1..] {
        for (i, (a, b)) in reference.iter().zip(bytes).enumerate() {
            if let Some(j) = a.iter().zip(b).position(|(x, y)| x != y) {
                panic!("buffer #{i}: {stage} differs from {first} first at byte {j}");
            }
        }
    }
    results.swap_remove(0).1
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn alloc_f16(mem: &mut Memory, v: &[f32]) -> u64 {
    let bytes: Vec<u8> = v
        .iter()
        .flat_map(|&x| tileir_interp::float::f32_to_f16(x).to_le_bytes())
        .collect();
    mem.alloc_vec(bytes, 16)
}

const VECTOR_ADD: &str = r#"
cuda_tile.module @kernels {
  entry @vadd(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %n: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ap = assume div_by<16>, %a : tile<ptr<f32>>
    %ta = make_tensor_view %ap, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tb = make_tensor_view %b, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %tc = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pa = make_partition_view %ta : partition_view<tile=(32), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pb = make_partition_view %tb : partition_view<tile=(32), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %pc = make_partition_view %tc : partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>
    %x, %t0 = load_view_tko weak %pa[%bx] : partition_view<tile=(32), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<32xf32>, token
    %y, %t1 = load_view_tko weak %pb[%bx] token = %t0 : partition_view<tile=(32), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<32xf32>, token
    %s = addf %x, %y : tile<32xf32>
    %d = subf %s, %y : tile<32xf32>
    %p = mulf %d, %s : tile<32xf32>
    %t2 = store_view_tko weak %p, %pc[%bx] : tile<32xf32>, partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"#;

#[test]
fn vector_add_same_bytes_at_every_level() {
    let lv = levels(VECTOR_ADD);
    assert!(
        count(&lv[1].1, |k| matches!(
            k,
            OpKind::TileAa(TileAaOp::TiledLoad(_))
        )) == 2
    );
    assert!(count(&lv[1].1, |k| matches!(k, OpKind::TileAa(TileAaOp::MulF(_)))) == 1);
    assert!(
        count(&lv[2].1, |k| matches!(
            k,
            OpKind::TileAs(TileAsOp::TiledStore { .. })
        )) == 1
    );
    let n = 100usize; // 4 blocks of 32, the last one ragged
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.37 - 3.0).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.5)).collect();
    let out = differential(VECTOR_ADD, "vadd", [4, 1, 1], |mem| {
        let pa = mem.alloc_vec(a.iter().flat_map(|x| x.to_le_bytes()).collect(), 16);
        let pb = mem.alloc_f32(&b);
        // One sentinel element past the end: the ragged tile must not write it.
        let pc = mem.alloc_f32(&vec![-7.0; n + 1]);
        let args = vec![
            ArgValue::Ptr(pa),
            ArgValue::Ptr(pb),
            ArgValue::Ptr(pc),
            ArgValue::i32(n as i32),
        ];
        (args, vec![(pc, 4 * (n + 1))])
    });
    let c = f32s(&out[0]);
    for i in 0..n {
        let s = a[i] + b[i];
        assert_eq!(c[i].to_bits(), ((s - b[i]) * s).to_bits(), "element {i}");
    }
    assert_eq!(c[n], -7.0, "the masked tail was written");
}

/// A 2-D copy of a ragged `m x n` f16 matrix (dynamic sizes and row stride) into a dense
/// array of whole tiles: the out-of-bounds part of every edge tile is the view's padding
/// (`neg_inf`), so padding values reach memory.
const PADDED_COPY: &str = r#"
cuda_tile.module @kernels {
  entry @copy(%src: tile<ptr<f16>>, %m: tile<i64>, %n: tile<i64>, %ld: tile<i64>, %dst: tile<ptr<f16>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ts = make_tensor_view %src, shape = [%m, %n], strides = [%ld, 1] : tile<i64> -> tensor_view<?x?xf16, strides=[?,1]>
    %td = make_tensor_view %dst, shape = [48, 40], strides = [40, 1] : tensor_view<48x40xf16, strides=[40,1]>
    %ps = make_partition_view %ts : partition_view<tile=(16x8), padding_value = neg_inf, tensor_view<?x?xf16, strides=[?,1]>>
    %pd = make_partition_view %td : partition_view<tile=(16x8), tensor_view<48x40xf16, strides=[40,1]>>
    %v, %t0 = load_view_tko weak %ps[%by, %bx] : partition_view<tile=(16x8), padding_value = neg_inf, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x8xf16>, token
    %t1 = store_view_tko weak %v, %pd[%by, %bx] : tile<16x8xf16>, partition_view<tile=(16x8), tensor_view<48x40xf16, strides=[40,1]>>, tile<i32> -> token
    return
  }
}
"#;

#[test]
fn padded_2d_tiles_same_bytes_at_every_level() {
    let (m, n, ld) = (37usize, 35usize, 36usize);
    let src: Vec<f32> = (0..m * ld).map(|i| (i % 97) as f32 - 40.0).collect();
    let out = differential(PADDED_COPY, "copy", [5, 3, 1], |mem| {
        let ps = alloc_f16(mem, &src);
        let pd = mem.alloc(48 * 40 * 2, 16);
        let args = vec![
            ArgValue::Ptr(ps),
            ArgValue::i64(m as i64),
            ArgValue::i64(n as i64),
            ArgValue::i64(ld as i64),
            ArgValue::Ptr(pd),
        ];
        (args, vec![(pd, 48 * 40 * 2)])
    });
    let got: Vec<u16> = out[0]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    for r in 0..48 {
        for c in 0..40 {
            let want = if r < m && c < n {
                tileir_interp::float::f32_to_f16(src[r * ld + c])
            } else {
                0xFC00 // f16 -inf
            };
            assert_eq!(got[r * 40 + c], want, "element ({r}, {c})");
        }
    }
}

/// C (f32) = A (f16) · B (f16), one 16x16 tile of C per block, a `for` over K whose trip
/// count comes from `get_index_space_shape`; K is ragged (zero padding).

#[test]
fn matmul_loop_same_bytes_at_every_level() {
    let (m, n, k) = (32usize, 48usize, 40usize);
    // Small integers: every product and partial sum is exact, so the reference is exact.
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 13) as f32 - 6.0).collect();
    let out = differential(MATMUL, "matmul", [3, 2, 1], |mem| {
        let pa = alloc_f16(mem, &a);
        let pb = alloc_f16(mem, &b);
        let pc = mem.alloc(m * n * 4, 16);
        let args = vec![
            ArgValue::Ptr(pa),
            ArgValue::Ptr(pb),
            ArgValue::Ptr(pc),
            ArgValue::i32(m as i32),
            ArgValue::i32(n as i32),
            ArgValue::i32(k as i32),
        ];
        (args, vec![(pc, m * n * 4)])
    });
    let c = f32s(&out[0]);
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            assert_eq!(c[i * n + j], want, "C[{i}][{j}]");
        }
    }
}

/// Row sums (reduce along dim 1, an `addf` body that becomes `nv_tileaa.addf`) and the
/// tile's maximum (reduce to a rank-0 tile, a bare scalar once lowered) stored through an
/// offset pointer.
const REDUCTION: &str = r#"
cuda_tile.module @kernels {
  entry @rowsum(%x: tile<ptr<f32>>, %rows: tile<ptr<f32>>, %maxes: tile<ptr<f32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [32, 16], strides = [16, 1] : tensor_view<32x16xf32, strides=[16,1]>
    %tr = make_tensor_view %rows, shape = [32], strides = [1] : tensor_view<32xf32, strides=[1]>
    %px = make_partition_view %tx : partition_view<tile=(8x16), tensor_view<32x16xf32, strides=[16,1]>>
    %pr = make_partition_view %tr : partition_view<tile=(8), tensor_view<32xf32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %v, %t0 = load_view_tko weak %px[%bx, %c0] : partition_view<tile=(8x16), tensor_view<32x16xf32, strides=[16,1]>>, tile<i32> -> tile<8x16xf32>, token
    %s = reduce %v dim=1 identities=[0.000000e+00 : f32] : tile<8x16xf32> -> tile<8xf32>
    (%e: tile<f32>, %acc: tile<f32>) {
      %r = addf %e, %acc : tile<f32>
      yield %r : tile<f32>
    }
    %t1 = store_view_tko weak %s, %pr[%bx] : tile<8xf32>, partition_view<tile=(8), tensor_view<32xf32, strides=[1]>>, tile<i32> -> token
    %mx = reduce %s dim=0 identities=[0xFF800000 : f32] : tile<8xf32> -> tile<f32>
    (%e2: tile<f32>, %acc2: tile<f32>) {
      %r2 = maxf %e2, %acc2 : tile<f32>
      yield %r2 : tile<f32>
    }
    %q = offset %maxes, %bx : tile<ptr<f32>>, tile<i32> -> tile<ptr<f32>>
    %t2 = store_ptr_tko weak %q, %mx : tile<ptr<f32>>, tile<f32> -> token
    return
  }
}
"#;

#[test]
fn reduction_same_bytes_at_every_level() {
    let lv = levels(REDUCTION);
    assert!(count(&lv[1].1, |k| matches!(k, OpKind::TileAa(TileAaOp::AddF(_)))) == 1);
    let x: Vec<f32> = (0..32 * 16)
        .map(|i| ((i * 37) % 101) as f32 * 0.125 - 6.0)
        .collect();
    let out = differential(REDUCTION, "rowsum", [4, 1, 1], |mem| {
        let px = mem.alloc_f32(&x);
        let pr = mem.alloc(32 * 4, 16);
        let pm = mem.alloc(4 * 4, 16);
        let args = vec![ArgValue::Ptr(px), ArgValue::Ptr(pr), ArgValue::Ptr(pm)];
        (args, vec![(pr, 32 * 4), (pm, 16)])
    });
    let rows = f32s(&out[0]);
    let maxes = f32s(&out[1]);
    for r in 0..32 {
        let want = (0..16).fold(0.0f32, |acc, c| x[r * 16 + c] + acc);
        assert_eq!(rows[r].to_bits(), want.to_bits(), "row {r}");
    }
    for b in 0..4 {
        let want = rows[b * 8..b * 8 + 8]
            .iter()
            .copied()
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(maxes[b], want, "block {b}");
    }
}

/// A transpose through a `dim_map = [1, 0]` partition view (a permuted memref once lowered)
/// and overlapping windows of a strided view (`origin_step`), both with ragged edges.
const VIEWS: &str = r#"
cuda_tile.module @kernels {
  entry @views(%x: tile<ptr<i32>>, %xt: tile<ptr<i32>>, %win: tile<ptr<i32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [20, 12], strides = [12, 1] : tensor_view<20x12xi32, strides=[12,1]>
    %pt = make_partition_view %tx : partition_view<tile=(8x8), padding_value = zero, tensor_view<20x12xi32, strides=[12,1]>, dim_map=[1, 0]>
    %v, %t0 = load_view_tko weak %pt[%by, %bx] : partition_view<tile=(8x8), padding_value = zero, tensor_view<20x12xi32, strides=[12,1]>, dim_map=[1, 0]>, tile<i32> -> tile<8x8xi32>, token
    %to = make_tensor_view %xt, shape = [12, 20], strides = [20, 1] : tensor_view<12x20xi32, strides=[20,1]>
    %po = make_partition_view %to : partition_view<tile=(8x8), tensor_view<12x20xi32, strides=[20,1]>>
    %t1 = store_view_tko weak %v, %po[%by, %bx] : tile<8x8xi32>, partition_view<tile=(8x8), tensor_view<12x20xi32, strides=[20,1]>>, tile<i32> -> token
    %sv = make_strided_view %tx : strided_view<tile=(4x8), traversal_strides=[3, 5], padding_value = zero, tensor_view<20x12xi32, strides=[12,1]>>
    %w, %t2 = load_view_tko weak %sv[%bx, %by] : strided_view<tile=(4x8), traversal_strides=[3, 5], padding_value = zero, tensor_view<20x12xi32, strides=[12,1]>>, tile<i32> -> tile<4x8xi32>, token
    %tw = make_tensor_view %win, shape = [12, 16], strides = [16, 1] : tensor_view<12x16xi32, strides=[16,1]>
    %pw = make_partition_view %tw : partition_view<tile=(4x8), tensor_view<12x16xi32, strides=[16,1]>>
    %t3 = store_view_tko weak %w, %pw[%bx, %by] : tile<4x8xi32>, partition_view<tile=(4x8), tensor_view<12x16xi32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
"#;

#[test]
fn permuted_and_strided_views_same_bytes_at_every_level() {
    let lv = levels(VIEWS);
    let steps = count(
        &lv[1].1,
        |k| matches!(k, OpKind::TileAa(TileAaOp::TiledLoad(a)) if a.origin_step.is_some()),
    );
    assert_eq!(
        steps, 1,
        "the strided view lowers to a tiled_load with origin_step"
    );
    assert_eq!(
        count(&lv[1].1, |k| matches!(
            k,
            OpKind::TileAa(TileAaOp::MakeMemref { .. })
        )),
        4,
        "three tensor views and one permuted memref"
    );
    let x: Vec<i32> = (0..20 * 12).map(|i| i * 3 + 1).collect();
    // Grid 3x2: transpose tiles (by in 0..2 over 12 rows, bx in 0..3 over 20 columns);
    // windows (bx in 0..3 row origins 0,3,6; by in 0..2 column origins 0,5).
    let out = differential(VIEWS, "views", [3, 2, 1], |mem| {
        let px = mem.alloc_i32(&x);
        let pt = mem.alloc_i32(&vec![-1; 12 * 20]);
        let pw = mem.alloc_i32(&vec![-1; 12 * 16]);
        let args = vec![ArgValue::Ptr(px), ArgValue::Ptr(pt), ArgValue::Ptr(pw)];
        (args, vec![(pt, 12 * 20 * 4), (pw, 12 * 16 * 4)])
    });
    let i32s = |b: &[u8]| -> Vec<i32> {
        b.chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let xt = i32s(&out[0]);
    for r in 0..12 {
        for c in 0..20 {
            assert_eq!(xt[r * 20 + c], x[c * 12 + r], "transpose ({r}, {c})");
        }
    }
    let win = i32s(&out[1]);
    for bx in 0..3 {
        for by in 0..2 {
            for i in 0..4 {
                for j in 0..8 {
                    let (r, c) = (bx * 3 + i, by * 5 + j);
                    let want = if c < 12 { x[r * 12 + c] } else { 0 };
                    assert_eq!(
                        win[(bx * 4 + i) * 16 + by * 8 + j],
                        want,
                        "window ({bx}, {by}) ({i}, {j})"
                    );
                }
            }
        }
    }
}

/// A gather (lowered to masked pointer loads with padding), a module global read through
/// `get_global`, and the grid size (`get_num_programs`).
const GATHER_GLOBAL: &str = r#"
cuda_tile.module @kernels {
  global @scale <f32: [2.000000e+00, 3.000000e+00]> : tile<2xf32>
  entry @gather(%x: tile<ptr<f32>>, %idx: tile<ptr<i32>>, %out: tile<ptr<f32>>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %nx, %ny, %nz = get_num_tile_blocks : tile<i32>
    %ti = make_tensor_view %idx, shape = [16], strides = [1] : tensor_view<16xi32, strides=[1]>
    %pi = make_partition_view %ti : partition_view<tile=(8), tensor_view<16xi32, strides=[1]>>
    %rows, %t0 = load_view_tko weak %pi[%bx] : partition_view<tile=(8), tensor_view<16xi32, strides=[1]>>, tile<i32> -> tile<8xi32>, token
    %tx = make_tensor_view %x, shape = [10, 4], strides = [4, 1] : tensor_view<10x4xf32, strides=[4,1]>
    %gv = make_gather_scatter_view %tx : gather_scatter_view<tile=(8x4), padding_value = nan, tensor_view<10x4xf32, strides=[4,1]>, sparse_dim=0>
    %c0 = constant <i32: 0> : tile<i32>
    %g, %t1 = load_view_tko weak %gv[%rows, %c0] : gather_scatter_view<tile=(8x4), padding_value = nan, tensor_view<10x4xf32, strides=[4,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> tile<8x4xf32>, token
    %sp = get_global @scale : tile<ptr<f32>>
    %sq = offset %sp, %bx : tile<ptr<f32>>, tile<i32> -> tile<ptr<f32>>
    %s, %t2 = load_ptr_tko weak %sq : tile<ptr<f32>> -> tile<f32>, token
    %n = itof %nx signed : tile<i32> -> tile<f32>
    %sn = mulf %s, %n : tile<f32>
    %s1 = reshape %sn : tile<f32> -> tile<1x1xf32>
    %sb = broadcast %s1 : tile<1x1xf32> -> tile<8x4xf32>
    %r = mulf %g, %sb : tile<8x4xf32>
    %to = make_tensor_view %out, shape = [16, 4], strides = [4, 1] : tensor_view<16x4xf32, strides=[4,1]>
    %po = make_partition_view %to : partition_view<tile=(8x4), tensor_view<16x4xf32, strides=[4,1]>>
    %t3 = store_view_tko weak %r, %po[%bx, %c0] : tile<8x4xf32>, partition_view<tile=(8x4), tensor_view<16x4xf32, strides=[4,1]>>, tile<i32> -> token
    return
  }
}
"#;

#[test]
fn gather_and_globals_same_bytes_at_every_level() {
    let lv = levels(GATHER_GLOBAL);
    assert_eq!(
        count(&lv[2].1, |k| matches!(
            k,
            OpKind::TileAa(TileAaOp::GetGlobal { .. })
        )),
        1
    );
    assert_eq!(
        count(&lv[1].1, |k| matches!(
            k,
            OpKind::TileAa(TileAaOp::GetNumPrograms { .. })
        )),
        3
    );
    let x: Vec<f32> = (0..40).map(|i| i as f32 + 0.5).collect();
    // Rows 10 and 12 are out of range: they read the padding (NaN).
    let idx: Vec<i32> = vec![3, 0, 9, 10, 1, 1, 7, 2, 5, 12, 4, 8, 6, 0, 9, 3];
    let out = differential(GATHER_GLOBAL, "gather", [2, 1, 1], |mem| {
        let px = mem.alloc_f32(&x);
        let pi = mem.alloc_i32(&idx);
        let po = mem.alloc(16 * 4 * 4, 16);
        let args = vec![ArgValue::Ptr(px), ArgValue::Ptr(pi), ArgValue::Ptr(po)];
        (args, vec![(po, 16 * 4 * 4)])
    });
    let o = f32s(&out[0]);
    for (r, &row) in idx.iter().enumerate() {
        let scale = [2.0f32, 3.0][r / 8] * 2.0;
        for c in 0..4 {
            let got = o[r * 4 + c];
            if row >= 10 {
                assert!(got.is_nan(), "row {r} reads padding");
            } else {
                assert_eq!(got, x[row as usize * 4 + c] * scale, "({r}, {c})");
            }
        }
    }
}

// ---- error paths ----

fn run_err(m: &Module, entry: &str, args: &[ArgValue], mem: &mut Memory) -> InterpError {
    run_entry(m, entry, [1, 1, 1], args, mem, &RunOptions::default())
        .expect_err("the launch must fail")
}

fn line_of(e: &InterpError) -> u32 {
    e.location
        .as_ref()
        .and_then(|l| l.file_line_col())
        .map(|(_, line, _)| line)
        .unwrap_or_else(|| panic!("no location on {e}"))
}

#[test]
fn tiled_access_outside_the_allocation_is_a_memory_fault_with_location() {
    // The tensor claims 100 elements, the buffer holds 8.
    let text = VECTOR_ADD;
    for (stage, m) in levels(text) {
        let mut mem = Memory::new();
        let pa = mem.alloc_vec(vec![0; 32], 16);
        let pb = mem.alloc_f32(&[0.0; 100]);
        let pc = mem.alloc_f32(&[0.0; 100]);
        let args = [
            ArgValue::Ptr(pa),
            ArgValue::Ptr(pb),
            ArgValue::Ptr(pc),
            ArgValue::i32(100),
        ];
        let e = run_err(&m, "vadd", &args, &mut mem);
        assert_eq!(e.kind, ErrorKind::MemoryFault, "{stage}: {e}");
        // The first load (line 12 of the kernel text) faults at every level.
        assert_eq!(line_of(&e), 12, "{stage}: {e}");
        let want = if stage == "cuda_tile" {
            "cuda_tile.load_view_tko"
        } else if stage == "nv_tileaa" {
            "nv_tileaa.tiled_load"
        } else {
            "nv_tileas.tiled_load"
        };
        assert_eq!(e.op.as_deref(), Some(want), "{stage}");
    }
}

#[test]
fn a_value_of_the_wrong_kind_is_an_error_not_a_panic() {
    // Make the lowered tiled_load read through a pointer instead of a memref.
    for (stage, mut m) in levels(VECTOR_ADD).into_iter().skip(1) {
        let load = m
            .walk()
            .into_iter()
            .find(|&o| {
                matches!(
                    m.ops[o].kind,
                    OpKind::TileAa(TileAaOp::TiledLoad(_))
                        | OpKind::TileAs(TileAsOp::TiledLoad { .. })
                )
            })
            .unwrap();
        let func = m.blocks[m.body].ops[0];
        let body = m.entry_block(func, 0).unwrap();
        let ptr_arg = m.blocks[body].args[1];
        m.ops[load].operands[0] = ptr_arg;
        let mut mem = Memory::new();
        let p = mem.alloc_f32(&[0.0; 64]);
        let args = [
            ArgValue::Ptr(p),
            ArgValue::Ptr(p),
            ArgValue::Ptr(p),
            ArgValue::i32(64),
        ];
        let e = run_err(&m, "vadd", &args, &mut mem);
        assert_eq!(e.kind, ErrorKind::InvalidIr, "{stage}: {e}");
        assert!(
            e.message.contains("must be a memref, got a tile"),
            "{stage}: {e}"
        );
        assert_eq!(line_of(&e), 12, "{stage}: {e}");
    }
}

#[test]
fn async_ops_are_routed_to_the_pipeline_dispatch() {
    // TMA descriptors are the async ops the interpreter does not model yet: the dispatch
    // reports them at the op.
    let text = r#"
nv_tileaa.func @k(%p: !nv_tileaa.ptr<f16, 1>) attributes {kernel} {
  %t = "nv_tileas.create_none"() : () -> !nv_tileas.async.token
  %m = "nv_tileaa.make_memref"(%p) <{alignment = 16 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (!nv_tileaa.ptr<f16, 1>) -> !nv_tileaa.memref<64x64xf16, strides=[64,1], 1>
  %d = "nv_tileas.make_tiled_tma_desc"(%m) <{atom = "tma_load", box = array<i64: 64, 64>}> : (!nv_tileaa.memref<64x64xf16, strides=[64,1], 1>) -> !nv_tileas.tma_desc<tma_load, 64x64xf16>
  nv_tileaa.return
}
"#;
    let m = parse(text);
    let mut mem = Memory::new();
    let p = mem.alloc_f32(&[0.0; 2048]);
    let e = run_err(&m, "k", &[ArgValue::Ptr(p)], &mut mem);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("TMA descriptors") && e.message.contains("make_tiled_tma_desc"), "{e}");
    assert_eq!(line_of(&e), 5);
}

#[test]
fn lowered_kernel_arguments_are_checked() {
    let lv = levels(VECTOR_ADD);
    let mut mem = Memory::new();
    let p = mem.alloc_f32(&[0.0; 4]);
    // i64 where the lowered kernel takes i32.
    let args = [
        ArgValue::Ptr(p),
        ArgValue::Ptr(p),
        ArgValue::Ptr(p),
        ArgValue::i64(4),
    ];
    let e = run_err(&lv[1].1, "vadd", &args, &mut mem);
    assert_eq!(e.kind, ErrorKind::InvalidLaunch, "{e}");
    assert!(e.message.contains("does not fit parameter type i32"), "{e}");
    let e = run_err(&lv[2].1, "nope", &args, &mut mem);
    assert_eq!(e.kind, ErrorKind::InvalidLaunch, "{e}");
}

#[test]
fn memref_alignment_is_checked_with_check_assumes() {
    let lv = levels(VECTOR_ADD);
    for (stage, m) in &lv {
        let mut mem = Memory::new();
        let buf = mem.alloc_f32(&[1.0; 80]);
        // %a is assumed 16-byte aligned: pass it 4 bytes in.
        let args = [
            ArgValue::Ptr(buf + 4),
            ArgValue::Ptr(buf),
            ArgValue::Ptr(buf),
            ArgValue::i32(32),
        ];
        let opts = RunOptions {
            check_assumes: true,
            ..Default::default()
        };
        let e = run_entry(m, "vadd", [1, 1, 1], &args, &mut mem, &opts).unwrap_err();
        assert_eq!(e.kind, ErrorKind::AssumptionViolated, "{stage}: {e}");
    }
}

#[test]
fn an_unknown_op_is_an_error_with_location() {
    let text = r#"
nv_tileaa.func @k(%p: !nv_tileaa.ptr<f32, 1>) attributes {kernel} {
  %t = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  "test.unknown"() : () -> ()
  nv_tileaa.return
}
"#;
    let m = parse_module(
        text,
        &ParseOptions {
            file_name: "lowered.mlir".into(),
            allow_unregistered: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|d| panic!("parse failed: {d:?}"));
    let mut mem = Memory::new();
    let p = mem.alloc_f32(&[0.0]);
    let e = run_err(&m, "k", &[ArgValue::Ptr(p)], &mut mem);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("'test.unknown'"), "{e}");
    assert_eq!(line_of(&e), 4);
}
