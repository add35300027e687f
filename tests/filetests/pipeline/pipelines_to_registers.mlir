// tileas-pipelines-to-registers: the general backend's form of a single-agent pipeline. The
// K loop's load, moved one iteration ahead by tileas-unspecialized-pipeline, becomes a plain
// load whose tile waits in a loop-carried register: the prologue's guarded load yields it
// (zeros when the iteration does not exist), the kernel loop carries it and loads the next.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=2 peel-epilogue=false},tileas-pipelines-to-registers' | FileCheck %s
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=2 peel-epilogue=false},tileas-pipelines-to-registers' | tileir-opt | FileCheck %s

// CHECK-NOT: async.pipeline
// CHECK: %[[PRO:.*]]:2 = cuda_tile.if %{{.*}} -> (i32, !cuda_tile.tile<16x16xf32
// CHECK: nv_tileas.tiled_load
// CHECK: } else {
// CHECK: %[[Z:.*]] = "cuda_tile.constant"() <{value = dense<0.000000e+00> : tensor<16x16xf32>}>
// CHECK: yield %{{.*}}, %[[Z]]
// CHECK: } {tileas.prologue_guard}
// CHECK: cuda_tile.for %{{.*}} iter_values({{.*}}%[[E:[^ ]*]] = %[[PRO]]#1)
// CHECK: %[[G:.*]]:3 = if %{{.*}} -> (i32, tile<16x16xf32
// CHECK: nv_tileas.tiled_load
// CHECK: yield %{{.*}}, %[[E]], %{{.*}}
// CHECK: } {tileas.prologue_guard}
// CHECK: nv_tileaa.addf %{{.*}}, %[[G]]#1
// CHECK-NOT: async.pipeline
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
