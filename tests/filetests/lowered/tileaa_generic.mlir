// The nv_tileaa stage in generic form (-mlir-print-op-generic): integer attributes are
// written typed (`alignment = 16 : i64`, `dim = 0 : i64`) and read back as integers. It
// parses, verifies, prints in custom form, and prints generically byte for byte as written.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt %s -mlir-print-op-generic -o %t.1 && grep -v -e '^//' -e '^$' %s | diff - %t.1
// RUN: tileir-opt %s -o %t.2 && tileir-opt %t.2 -mlir-print-op-generic | diff %t.1 -

// CHECK: nv_tileaa.global constant @lut alignment = 16 <f32: [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tile<4xf32>
// CHECK: nv_tileaa.func @k(%arg0: !nv_tileaa.ptr<f32, 1>, %arg1: i32, %arg2: !nv_tileaa.ptr<f32, 1>) attributes {kernel} {
// CHECK: %1 = nv_tileaa.make_memref %arg0, sizes = [%arg1, 64], strides = [64, 1] alignment = 16 : (!nv_tileaa.ptr<f32, 1>, i32) -> !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>
// CHECK: %4 = nv_tileaa.get_program_id z : i32
// CHECK: %9:2 = nv_tileaa.tiled_load acquire device %1[%2, %8] token = %0 padding = nan : !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, i32 -> tile<16x64xf32>, !nv_tileaa.mem_token
// CHECK: %17 = nv_tileaa.tiled_store release device %12, %1[%2, %8] token = %9#1 : tile<16x64xf32>, !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, i32 -> !nv_tileaa.mem_token
"nv_tileaa.global"() <{alignment = 16 : i64, constant, sym_name = "lut", value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}> : () -> ()
"nv_tileaa.func"() <{function_type = (!nv_tileaa.ptr<f32, 1>, i32, !nv_tileaa.ptr<f32, 1>) -> (), kernel, sym_name = "k"}> ({
^bb0(%arg0: !nv_tileaa.ptr<f32, 1>, %arg1: i32, %arg2: !nv_tileaa.ptr<f32, 1>):
  %0 = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  %1 = "nv_tileaa.make_memref"(%arg0, %arg1) <{alignment = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (!nv_tileaa.ptr<f32, 1>, i32) -> !nv_tileaa.memref<?x64xf32, strides=[64,1], 1>
  %2 = "nv_tileaa.get_program_id"() <{dim = 0 : i64}> : () -> i32
  %3 = "nv_tileaa.get_program_id"() <{dim = 1 : i64}> : () -> i32
  %4 = "nv_tileaa.get_program_id"() <{dim = 2 : i64}> : () -> i32
  %5 = "nv_tileaa.get_num_programs"() <{dim = 0 : i64}> : () -> i32
  %6 = "nv_tileaa.get_num_programs"() <{dim = 1 : i64}> : () -> i32
  %7 = "nv_tileaa.get_num_programs"() <{dim = 2 : i64}> : () -> i32
  %8 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %9:2 = "nv_tileaa.tiled_load"(%1, %2, %8, %0) <{mem_semantic = #cuda_tile.memory_ordering_semantics<acquire>, mem_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 2, 1>, padding_value = #cuda_tile.padding_value<nan>}> : (!nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<16x64xf32>, !nv_tileaa.mem_token)
  %10 = "nv_tileaa.addf"(%9#0, %9#0) <{rounding_mode = #cuda_tile.rounding<zero>}> : (!cuda_tile.tile<16x64xf32>, !cuda_tile.tile<16x64xf32>) -> !cuda_tile.tile<16x64xf32>
  %11 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %12 = "cuda_tile.for"(%8, %5, %11, %10) ({
  ^bb0(%arg3: i32, %arg4: !cuda_tile.tile<16x64xf32>):
    %13 = "nv_tileaa.mulf"(%arg4, %9#0) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<16x64xf32>, !cuda_tile.tile<16x64xf32>) -> !cuda_tile.tile<16x64xf32>
    %14 = "cuda_tile.cmpi"(%arg3, %3) <{comparison_predicate = #cuda_tile.comparison_predicate<less_than>, signedness = #cuda_tile.signedness<signed>}> : (i32, i32) -> i1
    %15 = "cuda_tile.if"(%14) ({
      %16 = "nv_tileaa.subf"(%13, %9#0) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<16x64xf32>, !cuda_tile.tile<16x64xf32>) -> !cuda_tile.tile<16x64xf32>
      "cuda_tile.yield"(%16) : (!cuda_tile.tile<16x64xf32>) -> ()
    }, {
      "cuda_tile.yield"(%13) : (!cuda_tile.tile<16x64xf32>) -> ()
    }) : (i1) -> !cuda_tile.tile<16x64xf32>
    "cuda_tile.continue"(%15) : (!cuda_tile.tile<16x64xf32>) -> ()
  }) : (i32, i32, i32, !cuda_tile.tile<16x64xf32>) -> !cuda_tile.tile<16x64xf32>
  %17 = "nv_tileaa.tiled_store"(%1, %12, %2, %8, %9#1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<release>, mem_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 1, 2, 1>}> : (!nv_tileaa.memref<?x64xf32, strides=[64,1], 1>, !cuda_tile.tile<16x64xf32>, i32, i32, !nv_tileaa.mem_token) -> !nv_tileaa.mem_token
  %18 = "nv_tileaa.get_global"() <{name = @lut}> : () -> !nv_tileaa.ptr<f32, 1>
  %19, %20 = "cuda_tile.load_ptr_tko"(%18, %17) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (!nv_tileaa.ptr<f32, 1>, !nv_tileaa.mem_token) -> (f32, !nv_tileaa.mem_token)
  %21 = "cuda_tile.store_ptr_tko"(%arg2, %19, %20) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (!nv_tileaa.ptr<f32, 1>, f32, !nv_tileaa.mem_token) -> !nv_tileaa.mem_token
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
