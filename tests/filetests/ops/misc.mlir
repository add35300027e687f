// assume (div_by, same_elements, bounded predicates), assert and print_tko.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @assumes(
  entry @assumes(%p: tile<ptr<f32>>, %n: tile<i32>) {
    // CHECK: assume div_by<16>, %{{[^ ,]+}} : tile<ptr<f32>>
    %0 = assume div_by<16>, %p : tile<ptr<f32>>
    // CHECK: assume div_by<4>, %{{[^ ,]+}} : tile<i32>
    %1 = assume div_by<4>, %n : tile<i32>
    // CHECK: assume bounded<0, ?>, %{{[^ ,]+}} : tile<i32>
    %2 = assume bounded<0, ?>, %n : tile<i32>
    // CHECK: assume bounded<?, 42>, %{{[^ ,]+}} : tile<i32>
    %3 = assume bounded<?, 42>, %n : tile<i32>
    // CHECK: assume bounded<-8, 8>, %{{[^ ,]+}} : tile<i32>
    %4 = assume bounded<-8, 8>, %1 : tile<i32>
    // CHECK: reshape %{{[^ ,]+}} : tile<ptr<f32>> -> tile<1x1xptr<f32>>
    %r = reshape %p : tile<ptr<f32>> -> tile<1x1xptr<f32>>
    // CHECK: broadcast %{{[^ ,]+}} : tile<1x1xptr<f32>> -> tile<4x8xptr<f32>>
    %b = broadcast %r : tile<1x1xptr<f32>> -> tile<4x8xptr<f32>>
    // CHECK: assume same_elements<[4, 2]>, %{{[^ ,]+}} : tile<4x8xptr<f32>>
    %5 = assume same_elements<[4, 2]>, %b : tile<4x8xptr<f32>>
    // CHECK: assume div_by<32, every 4 along 1>, %{{[^ ,]+}} : tile<4x8xptr<f32>>
    %6 = assume div_by<32, every 4 along 1>, %b : tile<4x8xptr<f32>>
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %tv = make_tensor_view %0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    // CHECK: assume div_by<16>, %{{[^ ,]+}} : tensor_view<128xf32, strides=[1]>
    %7 = assume div_by<16>, %tv : tensor_view<128xf32, strides=[1]>
    // CHECK: iota : tile<16xi16>
    %i = iota : tile<16xi16>
    // CHECK: assume bounded<0, 15>, %{{[^ ,]+}} : tile<16xi16>
    %8 = assume bounded<0, 15>, %i : tile<16xi16>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @asserts(
  entry @asserts(%c: tile<i1>) {
    // CHECK: assert %{{[^ ,]+}}, "scalar condition failed" : tile<i1>
    assert %c, "scalar condition failed" : tile<i1>
    // CHECK: constant <i1: [true, false]> : tile<2xi1>
    %m = constant <i1: [true, false]> : tile<2xi1>
    // CHECK: assert %{{[^ ,]+}}, "lane %d failed" : tile<2xi1>
    assert %m, "lane %d failed" : tile<2xi1>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @prints(
  entry @prints(%x: tile<f32>, %i: tile<i32>) {
    // CHECK: print_tko "hello\0A" -> token
    // Strings print with MLIR escapes (newline as \0A).
    %t0 = print_tko "hello\n" -> token
    // CHECK: print_tko "x=%f i=%d\0A", %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>, tile<i32> -> token
    %t1 = print_tko "x=%f i=%d\n", %x, %i : tile<f32>, tile<i32> -> token
    // CHECK: print_tko "100%% done %x\0A", %{{[^ ,]+}} token=%{{[^ ,]+}} : tile<i32> -> token
    %t2 = print_tko "100%% done %x\n", %i token=%t1 : tile<i32> -> token
    // CHECK: iota : tile<4xi32>
    %v = iota : tile<4xi32>
    // CHECK: print_tko "v=%u", %{{[^ ,]+}} token=%{{[^ ,]+}} : tile<4xi32> -> token
    %t3 = print_tko "v=%u", %v token=%t2 : tile<4xi32> -> token
    // CHECK: return
    return
  }
}
