//! `tileas-materialize-schedule` proven by execution: the matmul K loop is lowered through
//! async materialization and schedule materialization, once agent-unspecialized (the stamped
//! schedule expanded by `tileas-unspecialized-pipeline`) and once warp-specialized (producer
//! and consumer agents under `agent_switch`, run as concurrent agents under adversarial
//! interleavings), and must write the same bytes as the unpipelined kernel.

mod lowering;

use lowering::{count, lower, parse, run_matmul, MATMUL};
use tileir_interp::agents::Interleave;
use tileir_ir::{Module, OpKind, TileAsOp};

const ASYNC: &str = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async";

/// K extents giving trip counts 0, 1, 2, 3 and 8 (the last with a ragged final tile).
const KS: [usize; 5] = [0, 16, 32, 48, 125];

fn produce_ops(m: &Module) -> usize {
    count(m, |k| matches!(k, OpKind::TileAs(TileAsOp::ProduceOneAsync(_))))
}

fn agent_switches(m: &Module) -> usize {
    count(m, |k| matches!(k, OpKind::TileAs(TileAsOp::AgentSwitch { .. })))
}

fn stage_count(m: &Module) -> u32 {
    let stages: Vec<u32> = m
        .values
        .keys()
        .filter_map(|v| match m.types.get(m.values[v].ty) {
            tileir_ir::Type::Pipeline { stages, .. } => Some(*stages),
            _ => None,
        })
        .collect();
    assert!(!stages.is_empty());
    assert!(stages.iter().all(|&s| s == stages[0]), "{stages:?}");
    stages[0]
}

#[test]
fn aus_schedule_expanded_by_unspecialized_pipeline_matches_the_source() {
    let source = parse(MATMUL);
    let aus = lower(&source, &format!("{ASYNC},tileas-materialize-schedule{{use-AUS=true}},tileas-unspecialized-pipeline"));
    assert_eq!(agent_switches(&aus), 0);
    let stages = stage_count(&aus);
    assert!(stages >= 2, "the schedule overlaps iterations");
    // The stamped stage count wins over unspecialized-pipeline's default of 2: a prologue of
    // (lead = stages - 1 here) guarded producers plus the kernel's.
    assert_eq!(produce_ops(&aus) as u32, stages, "prologue + kernel producers");
    for k in KS {
        let want = run_matmul(&source, 32, 48, k, Interleave::UntilBlocked).unwrap();
        let got = run_matmul(&aus, 32, 48, k, Interleave::UntilBlocked).unwrap_or_else(|e| panic!("AUS, k = {k}: {e}"));
        assert!(want == got, "AUS differs at k = {k}");
    }
}

#[test]
fn aws_agents_match_the_source_under_adversarial_interleavings() {
    let source = parse(MATMUL);
    let aws = lower(&source, &format!("{ASYNC},tileas-materialize-schedule{{use-AUS=false}},tileas-unspecialized-pipeline"));
    assert_eq!(agent_switches(&aws), 1, "the matmul schedule passes the dual-SIMT heuristic: AWS");
    // Unspecialized pipelining skips the warp-specialized function: one producer, in agent 0.
    assert_eq!(produce_ops(&aws), 1);
    assert!(stage_count(&aws) >= 2);
    let mut schedules = vec![Interleave::UntilBlocked];
    schedules.extend((0..20).map(Interleave::Random));
    for k in KS {
        let want = run_matmul(&source, 32, 48, k, Interleave::UntilBlocked).unwrap();
        for &il in &schedules {
            let got = run_matmul(&aws, 32, 48, k, il).unwrap_or_else(|e| panic!("AWS, k = {k}, {il:?}: {e}"));
            assert!(want == got, "AWS differs at k = {k} under {il:?}");
        }
    }
}

#[test]
fn strategy_none_and_serial_leave_the_synchronous_loop_running() {
    let source = parse(MATMUL);
    for (strategy, unspecialized) in [("none", 2u32), ("serial", 1)] {
        let m = lower(&source, &format!("{ASYNC},tileas-materialize-schedule{{strategy={strategy}}},tileas-unspecialized-pipeline"));
        assert_eq!(agent_switches(&m), 0, "{strategy}");
        // none: the record is absent, so unspecialized-pipeline applies its own 2 stages;
        // serial: the one-stage record keeps the loop unpeeled.
        assert_eq!(produce_ops(&m) as u32, unspecialized, "{strategy}");
        for k in [0, 32, 125] {
            let want = run_matmul(&source, 32, 48, k, Interleave::UntilBlocked).unwrap();
            let got = run_matmul(&m, 32, 48, k, Interleave::UntilBlocked).unwrap();
            assert!(want == got, "{strategy} differs at k = {k}");
        }
    }
}

#[test]
fn a_producer_agent_that_stops_advancing_is_caught() {
    // The differential test has teeth: with the producer agent's iterator update dropped it
    // keeps writing the same entry, and the consumer agent waits forever (or reads stale data).
    let source = parse(MATMUL);
    let mut aws = lower(&source, &format!("{ASYNC},tileas-materialize-schedule"));
    let sw = aws.walk().into_iter().find(|&o| matches!(aws.ops[o].kind, OpKind::TileAs(TileAsOp::AgentSwitch { .. }))).unwrap();
    // Agent 0's block starts with its copy of the loop.
    let agent0 = aws.entry_block(sw, 0).unwrap();
    let producer_loop = aws.blocks[agent0].ops[0];
    let body = aws.entry_block(producer_loop, 0).unwrap();
    let inc = *aws.blocks[body].ops.iter().find(|&&o| matches!(aws.ops[o].kind, OpKind::TileAs(TileAsOp::IncIter))).unwrap();
    let (old, new) = (aws.ops[inc].results[0], aws.ops[inc].operands[0]);
    aws.replace_all_uses(old, new);
    let want = run_matmul(&source, 32, 48, 48, Interleave::UntilBlocked).unwrap();
    for il in [Interleave::UntilBlocked, Interleave::Random(3)] {
        let got = run_matmul(&aws, 32, 48, 48, il);
        assert!(got.as_ref() != Ok(&want), "{il:?}: {got:?}");
    }
}
