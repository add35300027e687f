// tileas-assign-layouts: a tile loaded through a view whose unit stride is not along the
// tile's last dimension gets a layout that runs along the unit-stride one (16-byte vectors,
// order=[0, 1]); element-wise users and stores through equally transposed views follow it,
// other users read it through a convert_layout back to the canonical layout, and a store
// through a transposed view converts its canonical tile to the vectorizing layout.
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts' | FileCheck %s
// RUN: tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts{anchor-loads=false anchor-stores=false}' | FileCheck %s --check-prefix=OFF
// It must run after convert-tileaa-to-tileas and before tileas-materialize-async, which
// copies tile types into pipeline types.
// RUN: not tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-materialize-async,tileas-assign-layouts' 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not tileir-opt %s --pass-pipeline='convert-cuda-tile-to-tileaa,tileas-assign-layouts,convert-tileaa-to-tileas' 2>&1 | FileCheck %s --check-prefix=ORDER2
// ORDER: pass 'tileas-materialize-async' must run after 'tileas-assign-layouts'
// ORDER2: pass 'tileas-assign-layouts' must run after 'convert-tileaa-to-tileas'

// CHECK-LABEL: nv_tileaa.func @transposed
// CHECK: %[[X:[0-9]+]]:2 = nv_tileas.tiled_load {{.*}} vector_width = 8 : {{.*}} -> tile<64x32xf16, #nv_tileas.blocked<size_per_thread=[8, 1], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[0, 1]>>
// CHECK-NOT: convert_layout
// CHECK: %[[Y:[0-9]+]] = nv_tileaa.addf %[[X]]#0, %[[X]]#0 : tile<64x32xf16, #nv_tileas.blocked<size_per_thread=[8, 1], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[0, 1]>>
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store weak %[[X]]#0, {{.*}} vector_width = 8
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store weak %[[Y]], {{.*}} vector_width = 8
// CHECK: nv_tileaa.return

// CHECK-LABEL: nv_tileaa.func @mixed
// CHECK: %[[T:[0-9]+]]:2 = nv_tileas.tiled_load {{.*}} vector_width = 8 : {{.*}} order=[0, 1]>>
// CHECK-NEXT: %[[C:[0-9]+]] = "nv_tileas.convert_layout"(%[[T]]#0) : ({{.*}}order=[0, 1]>>) -> !cuda_tile.tile<64x32xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0]>>
// CHECK: %[[R:[0-9]+]]:2 = nv_tileas.tiled_load {{.*}} vector_width = 4 : {{.*}} order=[1, 0]>>
// CHECK: %[[S:[0-9]+]] = nv_tileaa.addf %[[C]], %[[R]]#0 : {{.*}}order=[1, 0]>>
// CHECK: %[[B:[0-9]+]] = "nv_tileas.convert_layout"(%[[S]]) : ({{.*}}order=[1, 0]>>) -> {{.*}}order=[0, 1]>>
// CHECK-NEXT: nv_tileas.tiled_store weak %[[B]], {{.*}} vector_width = 8

// An element-wise op whose result is not a numeric tile (int_to_ptr) keeps the canonical
// layout: its operand is converted back.
// CHECK-LABEL: nv_tileaa.func @pointers
// CHECK: %[[P:[0-9]+]]:2 = nv_tileas.tiled_load {{.*}} -> tile<64x32xi64, {{.*}}order=[0, 1]>>
// CHECK-NEXT: %[[Q:[0-9]+]] = "nv_tileas.convert_layout"(%[[P]]#0) : ({{.*}}order=[0, 1]>>) -> {{.*}}order=[1, 0]>>
// CHECK-NEXT: int_to_ptr %[[Q]]

// OFF-NOT: order=[0, 1]
// OFF-NOT: convert_layout
cuda_tile.module @kernels {
  entry @transposed(%A: tile<ptr<f16>>, %C: tile<ptr<f16>>, %D: tile<ptr<f16>>, %n: tile<i32>) {
    %0 = make_token : token
    %Aa = assume div_by<16>, %A : tile<ptr<f16>>
    %Ca = assume div_by<16>, %C : tile<ptr<f16>>
    %Da = assume div_by<16>, %D : tile<ptr<f16>>
    %ta = make_tensor_view %Aa, shape = [64, %n], strides = [1, 64] : tile<i32> -> tensor_view<64x?xf16, strides=[1,64]>
    %pa = make_partition_view %ta : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x?xf16, strides=[1,64]>>
    %tc = make_tensor_view %Ca, shape = [64, %n], strides = [1, 64] : tile<i32> -> tensor_view<64x?xf16, strides=[1,64]>
    %pc = make_partition_view %tc : partition_view<tile=(64x32), tensor_view<64x?xf16, strides=[1,64]>>
    %td = make_tensor_view %Da, shape = [64, %n], strides = [1, 64] : tile<i32> -> tensor_view<64x?xf16, strides=[1,64]>
    %pd = make_partition_view %td : partition_view<tile=(64x32), tensor_view<64x?xf16, strides=[1,64]>>
    %c0 = constant <i32: 0> : tile<i32>
    %x, %xt = load_view_tko weak %pa[%c0, %c0] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x?xf16, strides=[1,64]>>, tile<i32> -> tile<64x32xf16>, token
    %y = addf %x, %x : tile<64x32xf16>
    %s1 = store_view_tko weak %x, %pc[%c0, %c0] token = %0 : tile<64x32xf16>, partition_view<tile=(64x32), tensor_view<64x?xf16, strides=[1,64]>>, tile<i32> -> token
    %s2 = store_view_tko weak %y, %pd[%c0, %c0] token = %0 : tile<64x32xf16>, partition_view<tile=(64x32), tensor_view<64x?xf16, strides=[1,64]>>, tile<i32> -> token
    return
  }
  entry @mixed(%A: tile<ptr<f16>>, %R: tile<ptr<f16>>, %D: tile<ptr<f16>>, %n: tile<i32>) {
    %0 = make_token : token
    %Aa = assume div_by<16>, %A : tile<ptr<f16>>
    %Ra = assume div_by<16>, %R : tile<ptr<f16>>
    %Da = assume div_by<16>, %D : tile<ptr<f16>>
    %ta = make_tensor_view %Aa, shape = [64, %n], strides = [1, 64] : tile<i32> -> tensor_view<64x?xf16, strides=[1,64]>
    %pa = make_partition_view %ta : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x?xf16, strides=[1,64]>>
    %tr = make_tensor_view %Ra, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf16, strides=[32,1]>
    %pr = make_partition_view %tr : partition_view<tile=(64x32), tensor_view<64x32xf16, strides=[32,1]>>
    %td = make_tensor_view %Da, shape = [64, %n], strides = [1, 64] : tile<i32> -> tensor_view<64x?xf16, strides=[1,64]>
    %pd = make_partition_view %td : partition_view<tile=(64x32), tensor_view<64x?xf16, strides=[1,64]>>
    %c0 = constant <i32: 0> : tile<i32>
    %x, %xt = load_view_tko weak %pa[%c0, %c0] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x?xf16, strides=[1,64]>>, tile<i32> -> tile<64x32xf16>, token
    %r, %rt = load_view_tko weak %pr[%c0, %c0] token = %0 : partition_view<tile=(64x32), tensor_view<64x32xf16, strides=[32,1]>>, tile<i32> -> tile<64x32xf16>, token
    %s = addf %x, %r : tile<64x32xf16>
    %s2 = store_view_tko weak %s, %pd[%c0, %c0] token = %0 : tile<64x32xf16>, partition_view<tile=(64x32), tensor_view<64x?xf16, strides=[1,64]>>, tile<i32> -> token
    return
  }
  entry @pointers(%A: tile<ptr<i64>>, %D: tile<ptr<f32>>, %n: tile<i32>) {
    %0 = make_token : token
    %Aa = assume div_by<16>, %A : tile<ptr<i64>>
    %Da = assume div_by<16>, %D : tile<ptr<f32>>
    %ta = make_tensor_view %Aa, shape = [64, %n], strides = [1, 64] : tile<i32> -> tensor_view<64x?xi64, strides=[1,64]>
    %pa = make_partition_view %ta : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x?xi64, strides=[1,64]>>
    %td = make_tensor_view %Da, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf32, strides=[32,1]>
    %pd = make_partition_view %td : partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %x, %xt = load_view_tko weak %pa[%c0, %c0] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x?xi64, strides=[1,64]>>, tile<i32> -> tile<64x32xi64>, token
    %p = int_to_ptr %x : tile<64x32xi64> -> tile<64x32xptr<f32>>
    %v, %vt = load_ptr_tko weak %p : tile<64x32xptr<f32>> -> tile<64x32xf32>, token
    %s2 = store_view_tko weak %v, %pd[%c0, %c0] token = %0 : tile<64x32xf32>, partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>, tile<i32> -> token
    return
  }
}
