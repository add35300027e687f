// The nv_tileas stage in custom form (after -convert-tileaa-to-tileas): tiles carry
// `#nv_tileas.blocked<…>` layouts and the memory ops their vector widths (and a forced
// lowering variant). It parses
// back, verifies, and prints byte for byte as written.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt %s -o %t.1 && tileir-opt %t.1 -o %t.2 && diff %t.1 %t.2 && grep -v -e '^//' -e '^$' %s | diff - %t.1
// RUN: tileir-opt %s -mlir-print-op-generic | tileir-opt | diff %t.1 -

// CHECK: nv_tileaa.func @k(%arg0: !nv_tileaa.ptr<f32, 1>, %arg1: i32, %arg2: !nv_tileaa.ptr<f32, 1>) attributes {kernel, num_warps = 4} {
// CHECK: %9:2 = nv_tileas.tiled_load acquire device %1[%2, %8] token = %0 padding = nan vector_width = 4 : !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, i32 -> tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token
// CHECK-NEXT: %10 = nv_tileaa.addf %9#0, %9#0 rounding<zero> : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>
// CHECK: -> (!cuda_tile.tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>) {
// CHECK: %17 = nv_tileas.tiled_store release device %12, %1[%2, %8] token = %9#1 vector_width = 4 variant = "predicated" : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, i32 -> !nv_tileaa.mem_token
// CHECK: nv_tileaa.return
nv_tileaa.global constant @lut alignment = 16 <f32: [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tile<4xf32>
nv_tileaa.func @k(%arg0: !nv_tileaa.ptr<f32, 1>, %arg1: i32, %arg2: !nv_tileaa.ptr<f32, 1>) attributes {kernel, num_warps = 4} {
  %0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %1 = nv_tileaa.make_memref %arg0, sizes = [%arg1, 64], strides = [64, 1] alignment = 16 : (!nv_tileaa.ptr<f32, 1>, i32) -> !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>
  %2 = nv_tileaa.get_program_id x : i32
  %3 = nv_tileaa.get_program_id y : i32
  %4 = nv_tileaa.get_program_id z : i32
  %5 = nv_tileaa.get_num_programs x : i32
  %6 = nv_tileaa.get_num_programs y : i32
  %7 = nv_tileaa.get_num_programs z : i32
  %8 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %9:2 = nv_tileas.tiled_load acquire device %1[%2, %8] token = %0 padding = nan vector_width = 4 : !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, i32 -> tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token
  %10 = nv_tileaa.addf %9#0, %9#0 rounding<zero> : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>
  %11 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %12 = cuda_tile.for %arg3 in (%8 to %5, step %11) : i32 iter_values(%arg4 = %10) -> (!cuda_tile.tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>) {
    %13 = nv_tileaa.mulf %arg4, %9#0 : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>
    %14 = cmpi less_than %arg3, %3, signed : i32 -> i1
    %15 = if %14 -> (tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>) {
      %16 = nv_tileaa.subf %13, %9#0 : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>
      yield %16 : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>
    } else {
      yield %13 : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>
    }
    continue %15 : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>
  }
  %17 = nv_tileas.tiled_store release device %12, %1[%2, %8] token = %9#1 vector_width = 4 variant = "predicated" : tile<16x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[2, 16], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, i32 -> !nv_tileaa.mem_token
  %18 = nv_tileaa.get_global @lut : !nv_tileaa.ptr<f32, 1>
  %19, %20 = cuda_tile.load_ptr_tko weak %18 token=%17 : !nv_tileaa.ptr<f32, 1> -> f32, !nv_tileaa.mem_token
  %21 = cuda_tile.store_ptr_tko weak %arg2, %19 token=%20 : !nv_tileaa.ptr<f32, 1>, f32 -> !nv_tileaa.mem_token
  nv_tileaa.return
}
