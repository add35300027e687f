// tileas-materialize-async and tileas-unspecialized-pipeline on a K loop that sums 16x16
// tiles (the front end's shape of a matmul main loop): the load becomes a producer region
// (stage 0) over a pipeline and its users read a consumer region (stage 1); pipelining at
// S stages peels S-1 guarded producer iterations, runs the kernel loop N-(S-1) times with
// the producer S-1 iterations ahead, and drains the rest in an epilogue loop.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async' | FileCheck %s --check-prefix=ASYNC
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline' | FileCheck %s --check-prefix=S2
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline' | tileir-opt | FileCheck %s --check-prefix=S2
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=3}' | FileCheck %s --check-prefix=S3
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=1}' | FileCheck %s --check-prefix=ASYNC
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=2 peel-epilogue=false}' | FileCheck %s --check-prefix=PRED
// A budget on the bytes in flight per thread (the default compile's, for register pipelines):
// the 16x16xf32 entry over 64 threads is 16 bytes per stage.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=2 max-inflight-bytes=8}' 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=3 max-inflight-bytes=32}' | FileCheck %s --check-prefix=S3

// BUDGET: remark: Failed to pipeline loop
// BUDGET: note: 16 bytes per thread would be in flight (1 stage(s) ahead over 64 threads); the limit is 8
// BUDGET: stages=1,

// Per-pass IR dumps, as MLIR's -mlir-print-ir-after-all writes them.
// RUN: tileir-opt %s -convert-cuda-tile-to-tileaa -convert-tileaa-to-tileas -tileas-materialize-async -tileas-unspecialized-pipeline -mlir-print-ir-after-all -o %t.out 2>&1 | FileCheck %s --check-prefix=DUMP

// DUMP: // -----// IR Dump After convert-cuda-tile-to-tileaa //----- //
// DUMP: nv_tileaa.tiled_load
// DUMP: // -----// IR Dump After convert-tileaa-to-tileas //----- //
// DUMP: // -----// IR Dump After tileas-materialize-async //----- //
// DUMP: stages=1
// DUMP: // -----// IR Dump After tileas-unspecialized-pipeline //----- //
// DUMP: stages=2

// PRED: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2,
// PRED: "nv_tileas.async.pipeline.produce_one_async"
// PRED: } {tileas.prologue_guard}
// PRED: cuda_tile.for
// PRED: %[[AHEAD:.*]] = addi %{{.*}}, %{{.*}} : i32
// PRED: cmpi less_than %[[AHEAD]]
// PRED: "nv_tileas.async.pipeline.produce_one_async"
// PRED: } {tileas.prologue_guard}
// PRED: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 1 : i64
// PRED-NOT: cuda_tile.for

// ASYNC: %[[P:.*]] = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=1, consumers=1, [tile<16x16xf32
// ASYNC: %[[T0:.*]] = "nv_tileas.create_none"()
// ASYNC: %[[L:.*]]:4 = cuda_tile.for
// ASYNC: "nv_tileas.async.pipeline.produce_one_async"(%[[P]], %{{.*}}) <{pipeline_stage = 0 : i64}>
// ASYNC: nv_tileas.tiled_load
// ASYNC: "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}>
// ASYNC: "nv_tileas.async.future_wait"(%[[L]]#3)
// ASYNC: "nv_tileas.async.wait"(%[[L]]#3)

// S2: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2,
// S2-COUNT-1: "nv_tileas.async.pipeline.produce_one_async"
// S2: %[[K:.*]]:5 = cuda_tile.for
// S2: "nv_tileas.async.pipeline.produce_one_async"
// S2: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 1 : i64
// S2: cuda_tile.for %{{.*}} in (%[[K]]#4 to
// S2-NOT: produce_one
// S2: "nv_tileas.async.pipeline.consume_one"

// S3: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=3,
// S3-COUNT-2: "nv_tileas.async.pipeline.produce_one_async"
// S3: cuda_tile.for
// S3: "nv_tileas.async.pipeline.produce_one_async"
// S3: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 2 : i64
// S3: cuda_tile.for
// S3-NOT: produce_one
// S3: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 2 : i64
cuda_tile.module @kernels {
  entry @ksum(%A: tile<ptr<f32>>, %n: tile<i32>, %C: tile<ptr<f32>>) {
    %0 = make_token : token
    %tv = make_tensor_view %A, shape = [16, %n], strides = [%n, 1] : tile<i32> -> tensor_view<16x?xf32, strides=[?,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf32, strides=[?,1]>>
    %k:2 = get_index_space_shape %pv : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf32, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.0> : tile<16x16xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %acc = for %i in (%c0 to %k#1, step %c1) : tile<i32> iter_values(%a = %zero) -> (tile<16x16xf32>) {
      %t, %tk = load_view_tko weak %pv[%c0, %i] token = %0 : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      %s = addf %a, %t : tile<16x16xf32>
      continue %s : tile<16x16xf32>
    }
    %ct = make_tensor_view %C, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf32, strides=[16,1]>
    %cp = make_partition_view %ct : partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>
    %st = store_view_tko weak %acc, %cp[%c0, %c0] token = %0 : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
}
