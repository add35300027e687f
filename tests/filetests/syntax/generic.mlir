// Generic-form input: every construct written with "cuda_tile.op"(...) syntax,
// long type spellings, properties and attribute dictionaries, regions, and
// operandSegmentSizes; it must print in the custom form.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
"cuda_tile.module"() <{sym_name = "kernels"}> ({
  // CHECK: global private @g <i32: [1, 2]> : tile<2xi32>
  "cuda_tile.global"() <{sym_name = "g", value = dense<[1, 2]> : tensor<2xi32>, alignment = 0 : i64, symbol_visibility = #cuda_tile.symbol_visibility<private>}> : () -> ()
  // CHECK: entry @k(%[[A:.*]]: tile<f32>, %[[P:.*]]: tile<ptr<f32>>, %[[N:.*]]: tile<i64>)
  "cuda_tile.entry"() <{function_type = (!cuda_tile.tile<f32>, !cuda_tile.tile<!cuda_tile.ptr<f32>>, !cuda_tile.tile<i64>) -> (), sym_name = "k"}> ({
  ^bb0(%a: !cuda_tile.tile<f32>, %p: !cuda_tile.tile<!cuda_tile.ptr<f32>>, %n: !cuda_tile.tile<i64>):
    // CHECK: addf %[[A]], %[[A]] rounding<zero> flush_to_zero : tile<f32>
    %0 = "cuda_tile.addf"(%a, %a) <{flush_to_zero, rounding_mode = #cuda_tile.rounding<zero>}> : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
    // The older attribute-dictionary spelling is accepted too.
    // CHECK: cmpf less_than unordered %[[A]], %[[A]] : tile<f32> -> tile<i1>
    %1 = "cuda_tile.cmpf"(%a, %a) {comparison_predicate = #cuda_tile.comparison_predicate<less_than>, comparison_ordering = #cuda_tile.comparison_ordering<unordered>} : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<i1>
    // CHECK: %[[C:.*]] = constant <i64: 4> : tile<i64>
    %c = "cuda_tile.constant"() <{value = dense<4> : tensor<i64>}> : () -> !cuda_tile.tile<i64>
    // CHECK: make_tensor_view %[[P]], shape = [%[[N]], 4], strides = [%[[C]], 1] : tile<i64> -> tensor_view<?x4xf32, strides=[?,1]>
    %tv = "cuda_tile.make_tensor_view"(%p, %n, %c) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!cuda_tile.tile<!cuda_tile.ptr<f32>>, !cuda_tile.tile<i64>, !cuda_tile.tile<i64>) -> !cuda_tile.tensor_view<?x4xf32, strides=[?,1]>
    // CHECK: atomic_rmw_tko relaxed device %[[P]], addf, %[[A]] : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    %2, %3 = "cuda_tile.atomic_rmw_tko"(%p, %a) <{memory_ordering_semantics = 1 : i32, memory_scope = 1 : i32, mode = 4 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!cuda_tile.tile<!cuda_tile.ptr<f32>>, !cuda_tile.tile<f32>) -> (!cuda_tile.tile<f32>, !cuda_tile.token)
    // CHECK: if %{{.*}} -> (tile<f32>) {
    // CHECK: yield %[[A]] : tile<f32>
    // CHECK: } else {
    // CHECK: yield %{{.*}} : tile<f32>
    %4 = "cuda_tile.if"(%1) ({
      "cuda_tile.yield"(%a) : (!cuda_tile.tile<f32>) -> ()
    }, {
      "cuda_tile.yield"(%0) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<i1>) -> !cuda_tile.tile<f32>
    // CHECK: return
    "cuda_tile.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
