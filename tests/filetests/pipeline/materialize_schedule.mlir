// tileas-materialize-schedule on the front end's matmul K loop after async
// materialization (a stage-0 producer region with the two tile loads, a consumer region
// feeding mmaf). The default strategy on sm 90 is cost_based; its schedule (II 51, 8
// stages, the consumer 7 iterations behind the producer) passes the dual-SIMT heuristic,
// so the default is warp-specialized (one agent_switch with a 1-warp producer agent running the loop's
// producer slice and, dual SIMT being feasible here, two 1-warp consumer agents over a
// consumers=2 pipeline, each running the rest of the loop and the store after it on one
// 8-row half of the accumulator; dual_simt.mlir shows the split in detail).
// use-AUS=true stamps the schedule instead (consumer stage, pipeline depth, the record on
// the loop), which tileas-unspecialized-pipeline then expands at the stamped depth;
// strategy=none changes nothing; serial (also sm 80's default) only records one stage,
// which keeps unspecialized-pipeline from peeling the loop.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-materialize-schedule{use-AUS=true}' | FileCheck %s --check-prefix=AUS
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-materialize-schedule{use-AUS=true},tileas-unspecialized-pipeline' | FileCheck %s --check-prefix=EXPAND
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-materialize-schedule' | FileCheck %s --check-prefix=AWS
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-materialize-schedule{strategy=fast},tileas-unspecialized-pipeline' | FileCheck %s --check-prefix=AWS
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-materialize-schedule{strategy=none}' | FileCheck %s --check-prefix=NONE
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-materialize-schedule{strategy=serial},tileas-unspecialized-pipeline' | FileCheck %s --check-prefix=SERIAL
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-materialize-schedule{sm=80},tileas-unspecialized-pipeline' | FileCheck %s --check-prefix=SERIAL
// RUN: not tileir-opt %s --pass-pipeline='tileas-materialize-schedule{strategy=greedy}' 2>&1 | FileCheck %s --check-prefix=BAD

// AUS: %[[P:.*]] = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=8,
// AUS-NOT: agent_switch
// AUS: cuda_tile.for
// AUS: "nv_tileas.async.pipeline.produce_one_async"(%[[P]], %{{.*}}) <{pipeline_stage = 0 : i64}>
// AUS: "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 0 : i64, pipeline_stage = 7 : i64}>
// AUS: mmaf
// AUS: } {tileas.schedule = {strategy = "cost_based", driver = "AUS", ii = 51 : i64, num_stages = 8 : i64, consumer_stage = 7 : i64, total_work = 5 : i64, iters = -1 : i64, mii = 32 : i64, res_mii = 16 : i64, rec_mii = 32 : i64, use_dual_simt = false, schedule_rewrite = true, cycles = array<i64: 0, 0, 400, 0, 401>, stages = array<i64: 0, 0, 7, 0, 7>}}
// AUS-NOT: agent_switch

// The stamped 8 stages win over unspecialized-pipeline's default of 2: 7 guarded
// prologue producers, the kernel's producer, none in the epilogue.
// EXPAND: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=8,
// EXPAND-COUNT-7: "nv_tileas.async.pipeline.produce_one_async"
// EXPAND: cuda_tile.for
// EXPAND: "nv_tileas.async.pipeline.produce_one_async"
// EXPAND: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 7 : i64
// EXPAND: cuda_tile.for
// EXPAND-NOT: produce_one
// EXPAND: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 7 : i64

// AWS: %[[P:.*]] = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=8, consumers=2,
// AWS: "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 1, 1>, registers = array<i64: 40, 232, 232>}> ({
// AWS-NEXT: cuda_tile.for
// AWS-NEXT: "nv_tileas.async.pipeline.produce_one_async"(%[[P]], %{{.*}}) <{pipeline_stage = 0 : i64}>
// AWS-NOT: consume_one
// AWS-NOT: mmaf
// AWS: "nv_tileas.async.pipeline.inc_iter"
// AWS-NEXT: continue
// AWS-NEXT: } {tileas.schedule = {strategy = "{{cost_based|fast}}", driver = "AWS", {{.*}}use_dual_simt = true{{.*}}dual_simt_split = true
// AWS-NEXT: "nv_tileas.async.pipeline.yield"() : () -> ()
// AWS-NEXT: }, {
// AWS: %[[L:.*]]:4 = cuda_tile.for
// AWS-NOT: produce_one
// AWS: "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 0 : i64, pipeline_stage = 7 : i64}>
// AWS: mmaf {{.*}} : tile<8x16xf16, {{.*}}>, tile<16x16xf16, {{.*}}>, tile<8x16xf32,
// AWS: driver = "AWS"
// AWS-NEXT: "nv_tileas.async.future_wait"(%[[L]]#3)
// AWS-NEXT: "nv_tileas.async.wait"(%[[L]]#3)
// AWS: nv_tileas.tiled_store weak %[[L]]#0, {{.*}} : tile<8x16xf32,
// AWS-NEXT: "nv_tileas.async.pipeline.yield"() : () -> ()
// AWS-NEXT: }, {
// AWS: %[[L1:.*]]:4 = cuda_tile.for
// AWS-NOT: produce_one
// AWS: "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 1 : i64, pipeline_stage = 7 : i64}>
// AWS: mmaf {{.*}} : tile<8x16xf16, {{.*}}>, tile<16x16xf16, {{.*}}>, tile<8x16xf32,
// AWS: driver = "AWS"
// AWS-NEXT: "nv_tileas.async.future_wait"(%[[L1]]#3)
// AWS-NEXT: "nv_tileas.async.wait"(%[[L1]]#3)
// AWS: nv_tileas.tiled_store weak %[[L1]]#0, {{.*}} : tile<8x16xf32,
// AWS-NEXT: "nv_tileas.async.pipeline.yield"() : () -> ()
// AWS-NEXT: }) : () -> ()
// AWS-NEXT: nv_tileaa.return

// NONE: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=1,
// NONE-NOT: agent_switch
// NONE: "nv_tileas.async.pipeline.produce_one_async"{{.*}}<{pipeline_stage = 0 : i64}>
// NONE: "nv_tileas.async.pipeline.consume_one"{{.*}}<{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}>
// NONE-NOT: tileas.schedule
// NONE: continue
// NONE-NEXT: }
// NONE-NEXT: "nv_tileas.async.future_wait"
// NONE-NOT: agent_switch

// SERIAL: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=1,
// SERIAL-NOT: agent_switch
// SERIAL-COUNT-1: "nv_tileas.async.pipeline.produce_one_async"
// SERIAL: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 1 : i64
// SERIAL: } {tileas.schedule = {strategy = "serial", driver = "serial", {{.*}}num_stages = 1 : i64
// SERIAL-NOT: produce_one
// SERIAL-NOT: cuda_tile.for

// BAD: unknown schedule strategy `greedy`; expected one of none, serial, cost_based, fast, default
cuda_tile.module @kernels {
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
    %sp:2 = get_index_space_shape %pa : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<16x16xf32>
    %lb = constant <i32: 0> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%lb to %sp#1, step %st) : tile<i32> iter_values(%x = %zero) -> (tile<16x16xf32>) {
      %va, %t0 = load_view_tko weak %pa[%by, %kk] : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      %vb, %t1 = load_view_tko weak %pb[%kk, %bx] : partition_view<tile=(16x16), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
      %r = mmaf %va, %vb, %x : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
      continue %r : tile<16x16xf32>
    }
    %t2 = store_view_tko weak %acc, %pc[%by, %bx] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
