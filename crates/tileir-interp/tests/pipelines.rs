//! The async pipeline passes proven by execution: each kernel is interpreted before and
//! after `tileas-materialize-async` / `tileas-unspecialized-pipeline` (single agent) and
//! before and after the queue-to-pipeline rewrite (two agents, interleaved adversarially),
//! and must write the same bytes; schedules that cannot finish are reported as deadlocks.

mod lowering;

use lowering::{count, lower, parse, MATMUL};
use tileir_interp::agents::Interleave;
use tileir_interp::{run_entry, ArgValue, ErrorKind, InterpError, Memory, RunOptions};
use tileir_ir::{Module, OpKind, TileAsOp};

/// C of the matmul on `module` (one block per output tile, agents run until blocked).
fn run_matmul(module: &Module, m: usize, n: usize, k: usize) -> Result<Vec<u8>, InterpError> {
    lowering::run_matmul(module, m, n, k, Interleave::UntilBlocked)
}

const TO_TILEAS: &str = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas";

#[test]
fn software_pipelined_matmul_matches_for_every_trip_count_and_stage_count() {
    let source = parse(MATMUL);
    let materialized = lower(&source, &format!("{TO_TILEAS},tileas-materialize-async"));
    assert_eq!(count(&materialized, |k| matches!(k, OpKind::TileAs(TileAsOp::ProduceOneAsync(_)))), 1);
    // Trip counts 0, 1, 2, 3 (stages-1 and stages for S = 2..4), and 8 with a ragged tile.
    for k in [0usize, 16, 32, 40, 48, 125] {
        let want = run_matmul(&source, 32, 48, k).unwrap();
        let got = run_matmul(&materialized, 32, 48, k).unwrap();
        assert!(want == got, "materialize-async differs at k = {k}");
        for stages in 2..=4 {
            let pipelined = lower(&source, &format!("{TO_TILEAS},tileas-materialize-async,tileas-unspecialized-pipeline{{num-stages={stages}}}"));
            assert_eq!(
                count(&pipelined, |k| matches!(k, OpKind::TileAs(TileAsOp::ProduceOneAsync(_)))),
                stages,
                "S = {stages}: a prologue of S-1 producers plus the kernel's"
            );
            let got = run_matmul(&pipelined, 32, 48, k).unwrap_or_else(|e| panic!("S = {stages}, k = {k}: {e}"));
            assert!(want == got, "unspecialized-pipeline{{num-stages={stages}}} differs at k = {k}");
            // The predicated drain (no epilogue loop) computes the same.
            let predicated = lower(&source, &format!("{TO_TILEAS},tileas-materialize-async,tileas-unspecialized-pipeline{{num-stages={stages} peel-epilogue=false}}"));
            assert_eq!(count(&predicated, |k| matches!(k, OpKind::CudaTile(c) if c.op == tileir_ir::CtOp::For)), 1, "S = {stages}: one loop");
            let got = run_matmul(&predicated, 32, 48, k).unwrap_or_else(|e| panic!("predicated, S = {stages}, k = {k}: {e}"));
            assert!(want == got, "peel-epilogue=false at num-stages={stages} differs at k = {k}");
            let got = run_matmul(&lower(&predicated, "tileas-pipelines-to-registers"), 32, 48, k).unwrap();
            assert!(want == got, "registers after peel-epilogue=false at num-stages={stages} differ at k = {k}");
            // The general backend's form: in-flight entries as loop-carried registers.
            let registers = lower(&pipelined, "tileas-pipelines-to-registers");
            assert_eq!(count(&registers, |k| matches!(k, OpKind::TileAs(TileAsOp::CreatePipeline))), 0, "S = {stages}: pipeline left");
            let got = run_matmul(&registers, 32, 48, k).unwrap_or_else(|e| panic!("registers, S = {stages}, k = {k}: {e}"));
            assert!(want == got, "pipelines-to-registers after num-stages={stages} differs at k = {k}");
        }
    }
}

#[test]
fn a_pipeline_too_shallow_for_its_schedule_deadlocks() {
    // Pipelined for 3 stages, then the pipeline is cut back to 1 stage: the prologue's
    // second acquire waits for a release that only the loop after it would do.
    let source = parse(MATMUL);
    let mut pipelined = lower(&source, &format!("{TO_TILEAS},tileas-materialize-async,tileas-unspecialized-pipeline{{num-stages=3}}"));
    let ids: Vec<_> = pipelined.values.keys().collect();
    for v in ids {
        let t = pipelined.values[v].ty;
        let new = match pipelined.types.get(t).clone() {
            tileir_ir::Type::Pipeline { consumers, elems, .. } => {
                Some(pipelined.types.intern(tileir_ir::Type::Pipeline { stages: 1, consumers, elems }))
            }
            _ => None,
        };
        if let Some(n) = new {
            pipelined.values[v].ty = n;
        }
    }
    let e = run_matmul(&pipelined, 16, 16, 64).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("producer_acquire") && e.message.contains("consumer 0 released"), "{e}");
}

/// A persistent matmul: each block walks output tiles with an outer loop (which stores, so
/// it stays unpipelined) around the K loop (which is pipelined); the pipeline is created
/// inside the outer loop's body.
const PERSISTENT: &str = r#"
cuda_tile.module @kernels {
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %nbx, %nby, %nbz = get_num_tile_blocks : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %sp:2 = get_index_space_shape %pa : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %sq:2 = get_index_space_shape %pc : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
    %ntiles = muli %sq#0, %sq#1 : tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<16x16xf32>
    %lb = constant <i32: 0> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    for %t in (%bx to %ntiles, step %nbx) : tile<i32> {
      %tm = divi %t, %sq#1 signed : tile<i32>
      %tn = remi %t, %sq#1 signed : tile<i32>
      %acc = for %kk in (%lb to %sp#1, step %st) : tile<i32> iter_values(%x = %zero) -> (tile<16x16xf32>) {
        %va, %t0 = load_view_tko weak %pa[%tm, %kk] : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
        %vb, %t1 = load_view_tko weak %pb[%kk, %tn] : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
        %r = mmaf %va, %vb, %x : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
        continue %r : tile<16x16xf32>
      }
      %t2 = store_view_tko weak %acc, %pc[%tm, %tn] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
      continue
    }
    return
  }
}
"#;

#[test]
fn persistent_loops_pipeline_the_inner_loop_only() {
    let source = parse(PERSISTENT);
    for k in [0usize, 16, 40, 125] {
        let mut mem_want = None;
        for stages in 1..=3 {
            let lowered = lower(
                &source,
                &format!("{TO_TILEAS},tileas-materialize-async,tileas-unspecialized-pipeline{{num-stages={stages}}},tileas-pipelines-to-registers"),
            );
            assert_eq!(count(&lowered, |k| matches!(k, OpKind::TileAs(TileAsOp::CreatePipeline))), 0, "S = {stages}: pipeline left");
            // Three blocks walk the 6 output tiles of a 32 x 48 result.
            let got = run_persistent(&lowered, 32, 48, k).unwrap_or_else(|e| panic!("S = {stages}, k = {k}: {e}"));
            let want = mem_want.get_or_insert_with(|| run_persistent(&source, 32, 48, k).unwrap());
            assert!(*want == got, "persistent matmul at S = {stages}, k = {k} differs");
        }
    }
}

fn run_persistent(module: &Module, m: usize, n: usize, k: usize) -> Result<Vec<u8>, InterpError> {
    lowering::run_matmul_on(module, (m, n, k), [3, 1, 1], Interleave::UntilBlocked)
}

/// The matmul's K loop and store inside an `if` without else (taken for every block here):
/// the pipeline lives inside the `if`'s region.
fn guarded_matmul() -> String {
    let head = "    %t2 = store_view_tko";
    let text = MATMUL.replace(
        "    %acc = for %kk",
        "    %go = cmpi less_than %bz, %st, signed : tile<i32> -> tile<i1>\n    if %go {\n    %acc = for %kk",
    );
    let i = text.find(head).expect("store");
    let j = i + text[i..].find('\n').expect("line end");
    format!("{}\n    }}{}", &text[..j], &text[j..])
}

#[test]
fn a_pipelined_loop_inside_an_if_without_else_lowers() {
    let source = parse(&guarded_matmul());
    for stages in 1..=3 {
        let lowered = lower(
            &source,
            &format!("{TO_TILEAS},tileas-materialize-async,tileas-unspecialized-pipeline{{num-stages={stages} peel-epilogue=false}},tileas-pipelines-to-registers"),
        );
        assert_eq!(count(&lowered, |k| matches!(k, OpKind::TileAs(TileAsOp::CreatePipeline))), 0, "S = {stages}: pipeline left");
        for k in [0usize, 16, 40] {
            let want = run_matmul(&source, 32, 48, k).unwrap();
            let got = run_matmul(&lowered, 32, 48, k).unwrap_or_else(|e| panic!("S = {stages}, k = {k}: {e}"));
            assert!(want == got, "S = {stages}, k = {k}");
        }
    }
}

/// A producer agent puts `3·i` for `i < np` into a two-deep queue; a consumer agent takes
/// `n` entries and stores them to `out[i]`.
const QUEUES: &str = r#"
"nv_tileaa.func"() <{function_type = (!nv_tileaa.ptr<i32, 1>, i32, i32) -> (), kernel, sym_name = "queues"}> ({
^bb0(%out: !nv_tileaa.ptr<i32, 1>, %n: i32, %np: i32):
  %c0 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %c1 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %c3 = "cuda_tile.constant"() <{value = dense<3> : tensor<i32>}> : () -> i32
  %q = "nv_tileaa.create_queue"() : () -> !nv_tileaa.queue<2, [i32]>
  "nv_tileaa.execute"() <{num_warps = array<i64: 1, 4>}> ({
    "cuda_tile.for"(%c0, %np, %c1) ({
    ^bb0(%i: i32):
      "nv_tileaa.queue.put"(%q) ({
        %v = "cuda_tile.muli"(%i, %c3) : (i32, i32) -> i32
        "nv_tileaa.queue.yield"(%v) : (i32) -> ()
      }) : (!nv_tileaa.queue<2, [i32]>) -> ()
      "cuda_tile.continue"() : () -> ()
    }) : (i32, i32, i32) -> ()
    "nv_tileaa.queue.yield"() : () -> ()
  }, {
    "cuda_tile.for"(%c0, %n, %c1) ({
    ^bb0(%i: i32):
      %r = "nv_tileaa.queue.get"(%q) <{consumer_idx = 0 : i64}> ({
      ^bb0(%e: i32):
        "nv_tileaa.queue.yield"(%e) : (i32) -> ()
      }) : (!nv_tileaa.queue<2, [i32]>) -> i32
      %p = "cuda_tile.offset"(%out, %i) : (!nv_tileaa.ptr<i32, 1>, i32) -> !nv_tileaa.ptr<i32, 1>
      %t = "cuda_tile.store_ptr_tko"(%p, %r) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!nv_tileaa.ptr<i32, 1>, i32) -> !nv_tileaa.mem_token
      "cuda_tile.continue"() : () -> ()
    }) : (i32, i32, i32) -> ()
    "nv_tileaa.queue.yield"() : () -> ()
  }) : () -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
"#;

fn run_queues(module: &Module, n: i32, np: i32, interleave: Interleave) -> Result<Vec<i32>, InterpError> {
    let mut mem = Memory::new();
    let out = mem.alloc_vec(vec![0xAB; 4 * n.max(1) as usize], 16);
    let opts = RunOptions { agent_interleave: interleave, ..Default::default() };
    run_entry(module, "queues", [1, 1, 1], &[ArgValue::Ptr(out), ArgValue::i32(n), ArgValue::i32(np)], &mut mem, &opts)?;
    let mut b = vec![0u8; 4 * n as usize];
    mem.read(out, &mut b).unwrap();
    Ok(b.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect())
}

#[test]
fn queue_program_and_its_pipeline_agree_under_adversarial_interleavings() {
    let queues = parse(QUEUES);
    let pipelines = lower(&queues, "tileas-queue-to-pipeline");
    assert_eq!(count(&pipelines, |k| matches!(k, OpKind::TileAs(TileAsOp::AgentSwitch { .. }))), 1);
    assert_eq!(count(&pipelines, |k| matches!(k, OpKind::TileAs(TileAsOp::ConsumeOne { .. }))), 1);
    let want: Vec<i32> = (0..9).map(|i| 3 * i).collect();
    let mut schedules = vec![Interleave::UntilBlocked];
    schedules.extend((0..25).map(Interleave::Random));
    for &il in &schedules {
        assert_eq!(run_queues(&queues, 9, 9, il).unwrap(), want, "queues, {il:?}");
        assert_eq!(run_queues(&pipelines, 9, 9, il).unwrap(), want, "pipelines, {il:?}");
    }
}

#[test]
fn unbalanced_agents_are_reported_as_deadlocks() {
    let queues = parse(QUEUES);
    let pipelines = lower(&queues, "tileas-queue-to-pipeline");
    for il in [Interleave::UntilBlocked, Interleave::Random(7), Interleave::Random(99)] {
        for m in [&queues, &pipelines] {
            // The producer puts 3 entries more than the consumer takes: with two stages it
            // waits forever for a release.
            let e = run_queues(m, 4, 7, il).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
            assert!(e.message.contains("producer_acquire") || e.message.contains("queue.put"), "{e}");
            // The consumer waits for an entry that is never put.
            let e = run_queues(m, 5, 3, il).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
            assert!(e.message.contains("not committed"), "{e}");
        }
    }
}
