// tileas-optimize-pipeline-region after the unspecialized pipeline on the K-loop kernel of
// unspecialized_pipeline.mlir: every producer region is already its load's backward slice
// (the load pins, its address feeds it) and the consumers only yield their entries, so
// nothing moves; in the one-stage form (D11 at num-stages=1) the regions are skipped.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline' > %t.d11
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline,tileas-optimize-pipeline-region' > %t.d13
// RUN: diff %t.d11 %t.d13
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline,tileas-optimize-pipeline-region' | FileCheck %s
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-optimize-pipeline-region' | FileCheck %s --check-prefix=S1

// CHECK: !nv_tileas.pipeline<stages=2,
// CHECK: "nv_tileas.async.pipeline.produce_one_async"
// CHECK: nv_tileas.tiled_load
// CHECK: "nv_tileas.async.pipeline.yield"
// CHECK: "nv_tileas.async.pipeline.consume_one"{{.*}}pipeline_stage = 1 : i64
// S1: !nv_tileas.pipeline<stages=1,
// S1: "nv_tileas.async.pipeline.produce_one_async"
// S1: nv_tileas.tiled_load
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
