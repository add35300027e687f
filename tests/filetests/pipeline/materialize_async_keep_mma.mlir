// tileas-materialize-async{keep-mma-operands=true} (tileir's option; the sm_90a default):
// the K loop's loads that only feed the mma stay in the loop body for the backend to copy
// by TMA, while a load with another use is still pipelined. Without the option both move
// into the producer region.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async{keep-mma-operands=true}' | FileCheck %s --check-prefix=KEEP
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async' | FileCheck %s --check-prefix=ALL
// mma-operand-stages=N records the depth of the backend's TMA ring on the loop that keeps
// the loads (the kernel's num_stages hint); 0, the default, leaves it to the backend.
// mma-warp-specialize (default true) records whether the ring may get a producer warpgroup.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async{keep-mma-operands=true mma-operand-stages=3}' | FileCheck %s --check-prefix=DEPTH
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async{keep-mma-operands=true mma-warp-specialize=false}' | FileCheck %s --check-prefix=AUS

// DEPTH: cuda_tile.for
// DEPTH: } {tileir.num_stages = 3 : i64, tileir.warp_specialize = true}

// AUS: cuda_tile.for
// AUS-NOT: tileir.num_stages
// AUS: } {tileir.warp_specialize = false}

// KEEP: cuda_tile.for
// KEEP-NEXT: nv_tileas.tiled_load {{.*}} -> tile<64x16xf16
// KEEP-NEXT: nv_tileas.tiled_load {{.*}} -> tile<16x64xf16
// KEEP-NEXT: produce_one_async
// KEEP-NOT: tile<64x16xf16
// KEEP: nv_tileas.tiled_load {{.*}} -> tile<16x16xf32
// KEEP: consume_one
// KEEP: mmaf
// KEEP-NOT: tileir.num_stages

// ALL: produce_one_async
// ALL-DAG: nv_tileas.tiled_load {{.*}} -> tile<64x16xf16
// ALL-DAG: nv_tileas.tiled_load {{.*}} -> tile<16x64xf16
// ALL-DAG: nv_tileas.tiled_load {{.*}} -> tile<16x16xf32
// ALL: consume_one
cuda_tile.module @kernels {
  entry @mm(%A: tile<ptr<f16>>, %B: tile<ptr<f16>>, %S: tile<ptr<f32>>, %C: tile<ptr<f32>>, %n: tile<i32>) {
    %0 = make_token : token
    %ta = make_tensor_view %A, shape = [64, %n], strides = [%n, 1] : tile<i32> -> tensor_view<64x?xf16, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(64x16), padding_value = zero, tensor_view<64x?xf16, strides=[?,1]>>
    %tb = make_tensor_view %B, shape = [%n, 64], strides = [64, 1] : tile<i32> -> tensor_view<?x64xf16, strides=[64,1]>
    %pb = make_partition_view %tb : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x64xf16, strides=[64,1]>>
    %ts = make_tensor_view %S, shape = [16, %n], strides = [%n, 1] : tile<i32> -> tensor_view<16x?xf32, strides=[?,1]>
    %ps = make_partition_view %ts : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf32, strides=[?,1]>>
    %k:2 = get_index_space_shape %pa : partition_view<tile=(64x16), padding_value = zero, tensor_view<64x?xf16, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.0> : tile<64x64xf32>
    %zs = constant <f32: 0.0> : tile<16x16xf32>
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %acc:2 = for %i in (%c0 to %k#1, step %c1) : tile<i32> iter_values(%a = %zero, %s = %zs) -> (tile<64x64xf32>, tile<16x16xf32>) {
      %x, %xt = load_view_tko weak %pa[%c0, %i] token = %0 : partition_view<tile=(64x16), padding_value = zero, tensor_view<64x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x16xf16>, token
      %y, %yt = load_view_tko weak %pb[%i, %c0] token = %0 : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x64xf16, strides=[64,1]>>, tile<i32> -> tile<16x64xf16>, token
      %u, %ut = load_view_tko weak %ps[%c0, %i] token = %0 : partition_view<tile=(16x16), padding_value = zero, tensor_view<16x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x16xf32>, token
      %d = mmaf %x, %y, %a : tile<64x16xf16>, tile<16x64xf16>, tile<64x64xf32>
      %s2 = addf %s, %u : tile<16x16xf32>
      continue %d, %s2 : tile<64x64xf32>, tile<16x16xf32>
    }
    %ct = make_tensor_view %C, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %cp = make_partition_view %ct : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %st = store_view_tko weak %acc#0, %cp[%c0, %c0] token = %0 : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
