//! Dual SIMT (`tileas-materialize-schedule{use-dual-simt=true}`, the default) proven by
//! execution: a matmul K loop whose schedule passes the dual-SIMT heuristic is split into a
//! producer agent and two consumer agents, each accumulating one row half of the output
//! tile and storing it; run as concurrent agents under adversarial interleavings it must
//! write the same bytes as the unpipelined kernel. A kernel whose code after the loop
//! reduces the accumulator along dimension 0 cannot be split: it keeps one consumer agent
//! and is still correct.

mod lowering;

use lowering::{count, lower, parse, run_matmul_on};
use tileir_interp::agents::Interleave;
use tileir_ir::{Attr, Module, OpKind, TileAsOp, Type};

/// Eight warps (so two consumer agents of 4 warps each); the small K tile keeps the MMA short
/// enough for a deep schedule that passes the dual-SIMT heuristic.
const SCHEDULE: &str = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{num-warps=8},tileas-materialize-async,\
                        tileas-materialize-schedule,tileas-unspecialized-pipeline";

/// Output tile rows, columns and the K tile.
const TM: usize = 64;
const TN: usize = 32;
const TK: usize = 8;

/// K extents giving trip counts 0, 1, 2, 3 and 8 (the last with a ragged final tile).
const KS: [usize; 5] = [0, TK, 2 * TK, 3 * TK, 8 * TK - 3];

/// The matmul K loop over TM×TK · TK×TN tiles; `epilogue` computes `%out` (rank 2, stored
/// as C's tile) or writes C itself from `%acc`.
fn kernel(epilogue: &str) -> String {
    let a = format!("partition_view<tile=({TM}x{TK}), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>");
    let b = format!("partition_view<tile=({TK}x{TN}), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>");
    format!(
        r#"
cuda_tile.module @kernels {{
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {{
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : {a}
    %pb = make_partition_view %tb : {b}
    %pc = make_partition_view %tc : partition_view<tile=({TM}x{TN}), tensor_view<?x?xf32, strides=[?,1]>>
    %sp:2 = get_index_space_shape %pa : {a} -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<{TM}x{TN}xf32>
    %lb = constant <i32: 0> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%lb to %sp#1, step %st) : tile<i32> iter_values(%x = %zero) -> (tile<{TM}x{TN}xf32>) {{
      %va, %t0 = load_view_tko weak %pa[%by, %kk] : {a}, tile<i32> -> tile<{TM}x{TK}xf16>, token
      %vb, %t1 = load_view_tko weak %pb[%kk, %bx] : {b}, tile<i32> -> tile<{TK}x{TN}xf16>, token
      %r = mmaf %va, %vb, %x : tile<{TM}x{TK}xf16>, tile<{TK}x{TN}xf16>, tile<{TM}x{TN}xf32>
      continue %r : tile<{TM}x{TN}xf32>
    }}
{epilogue}
    return
  }}
}}
"#
    )
}

/// A bias added element-wise (a full constant each consumer extracts its half of), then
/// the tile stored.
fn biased_store() -> String {
    format!(
        r#"    %bias = constant <f32: 5.000000e-01> : tile<{TM}x{TN}xf32>
    %out = addf %acc, %bias : tile<{TM}x{TN}xf32>
    %t2 = store_view_tko weak %out, %pc[%by, %bx] : tile<{TM}x{TN}xf32>, partition_view<tile=({TM}x{TN}), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token"#
    )
}

/// Column sums of the accumulator (a reduce along dimension 0) stored as C's first row.
fn column_sums() -> String {
    format!(
        r#"    %cs = reduce %acc dim=0 identities=[0.000000e+00 : f32] : tile<{TM}x{TN}xf32> -> tile<{TN}xf32>
    (%e: tile<f32>, %s: tile<f32>) {{
      %r2 = addf %e, %s : tile<f32>
      yield %r2 : tile<f32>
    }}
    %tv = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=({TN}), tensor_view<?xf32, strides=[1]>>
    %t2 = store_view_tko weak %cs, %pv[%bx] : tile<{TN}xf32>, partition_view<tile=({TN}), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token"#
    )
}

/// Regions of each `agent_switch`.
fn agent_counts(m: &Module) -> Vec<usize> {
    m.walk()
        .into_iter()
        .filter_map(|o| match &m.ops[o].kind {
            OpKind::TileAs(TileAsOp::AgentSwitch { agents }) => Some(agents.len()),
            _ => None,
        })
        .collect()
}

fn agent_warps(m: &Module) -> Vec<u32> {
    m.walk()
        .into_iter()
        .filter_map(|o| match &m.ops[o].kind {
            OpKind::TileAs(TileAsOp::AgentSwitch { agents }) => Some(agents.iter().map(|a| a.num_warps)),
            _ => None,
        })
        .flatten()
        .collect()
}

fn consumer_indices(m: &Module) -> Vec<u32> {
    let mut v: Vec<u32> = m
        .walk()
        .into_iter()
        .filter_map(|o| match &m.ops[o].kind {
            OpKind::TileAs(TileAsOp::ConsumeOne { consumer_idx, .. }) => Some(*consumer_idx),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v
}

fn pipeline_consumers(m: &Module) -> Vec<u32> {
    let mut v: Vec<u32> = m
        .values
        .keys()
        .filter_map(|x| match m.types.get(m.values[x].ty) {
            Type::Pipeline { consumers, .. } => Some(*consumers),
            _ => None,
        })
        .collect();
    v.dedup();
    v
}

/// The `tileas.schedule` records on the loops: (use_dual_simt, dual_simt_split).
fn records(m: &Module) -> Vec<(bool, bool)> {
    let flag = |fields: &[(String, Attr)], k: &str| fields.iter().any(|(n, a)| n == k && *a == Attr::Bool(true));
    m.walk()
        .into_iter()
        .filter_map(|o| {
            let ct = m.ops[o].kind.cuda_tile()?;
            let (_, Attr::Dict(f)) = ct.discardable.iter().find(|(k, _)| k == "tileas.schedule")? else { return None };
            Some((flag(f, "use_dual_simt"), flag(f, "dual_simt_split")))
        })
        .collect()
}

fn run(m: &Module, k: usize, il: Interleave, grid_rows: u32) -> Vec<u8> {
    let (mm, nn) = (grid_rows as usize * TM, 2 * TN);
    run_matmul_on(m, (mm, nn, k), [2, grid_rows, 1], il).unwrap_or_else(|e| panic!("k = {k}, {il:?}: {e}"))
}

fn schedules() -> Vec<Interleave> {
    let mut s = vec![Interleave::UntilBlocked];
    s.extend((0..20).map(Interleave::Random));
    s
}

#[test]
fn two_consumer_agents_compute_the_row_halves_byte_identically() {
    let source = parse(&kernel(&biased_store()));
    let dual = lower(&source, SCHEDULE);
    assert_eq!(agent_counts(&dual), vec![3], "a producer and two consumer agents");
    assert_eq!(agent_warps(&dual), vec![1, 4, 4]);
    assert_eq!(consumer_indices(&dual), vec![0, 1]);
    assert_eq!(pipeline_consumers(&dual), vec![2]);
    let recs = records(&dual);
    assert_eq!(recs.len(), 3, "the producer loop and both consumer loops carry the record");
    assert!(recs.iter().all(|&r| r == (true, true)), "{recs:?}");
    // Both halves of the output tile stored, each by one agent.
    let stores = count(&dual, |k| matches!(k, OpKind::TileAs(TileAsOp::TiledStore { .. })));
    assert_eq!(stores, 2);
    for k in KS {
        let want = run(&source, k, Interleave::UntilBlocked, 2);
        for il in schedules() {
            assert!(want == run(&dual, k, il, 2), "dual SIMT differs at k = {k} under {il:?}");
        }
    }
}

#[test]
fn use_dual_simt_false_keeps_one_consumer_agent() {
    let source = parse(&kernel(&biased_store()));
    let single = lower(&source, &SCHEDULE.replace("tileas-materialize-schedule", "tileas-materialize-schedule{use-dual-simt=false}"));
    assert_eq!(agent_counts(&single), vec![2]);
    assert_eq!(agent_warps(&single), vec![1, 8]);
    assert_eq!(consumer_indices(&single), vec![0]);
    assert_eq!(pipeline_consumers(&single), vec![1]);
    assert!(records(&single).iter().all(|&r| r == (false, false)));
    let want = run(&source, 3 * TK, Interleave::UntilBlocked, 1);
    assert!(want == run(&single, 3 * TK, Interleave::Random(7), 1));
}

#[test]
fn a_reduce_along_dimension_0_after_the_loop_falls_back_to_one_consumer() {
    let source = parse(&kernel(&column_sums()));
    let m = lower(&source, SCHEDULE);
    assert_eq!(agent_counts(&m), vec![2], "the split is infeasible: one consumer agent");
    assert_eq!(consumer_indices(&m), vec![0]);
    assert_eq!(pipeline_consumers(&m), vec![1]);
    let recs = records(&m);
    assert_eq!(recs.len(), 2);
    assert!(recs.iter().all(|&r| r == (true, false)), "the heuristic still asked for dual SIMT: {recs:?}");
    for k in KS {
        // One block row: the column sums of every block go to C's first row.
        let want = run(&source, k, Interleave::UntilBlocked, 1);
        for il in [Interleave::UntilBlocked, Interleave::Random(1), Interleave::Random(2)] {
            assert!(want == run(&m, k, il, 1), "fallback differs at k = {k} under {il:?}");
        }
    }
}
