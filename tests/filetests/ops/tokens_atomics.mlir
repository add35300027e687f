// Tokens (make_token, join_tokens) and atomics (atomic_cas_tko,
// atomic_rmw_tko with every mode, atomic_red_view_tko), with masks, input
// tokens and every allowed ordering/scope.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @tokens(
  entry @tokens() {
    // CHECK: make_token : token
    %a = make_token : token
    // CHECK: make_token : token
    %b = make_token : token
    // CHECK: make_token : token
    %c = make_token : token
    // CHECK: join_tokens %{{[^ ,]+}}, %{{[^ ,]+}} : token
    %0 = join_tokens %a, %b : token
    // CHECK: join_tokens %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : token
    %1 = join_tokens %a, %b, %c, %0 : token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @rmw(
  entry @rmw(%pi: tile<ptr<i32>>, %pf: tile<ptr<f32>>, %v: tile<i32>, %f: tile<f32>) {
    // CHECK: make_token : token
    %t = make_token : token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, and, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %0, %t0 = atomic_rmw_tko relaxed device %pi, and, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko acquire device %{{[^ ,]+}}, or, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %1, %t1 = atomic_rmw_tko acquire device %pi, or, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko release sys %{{[^ ,]+}}, xor, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %2, %t2 = atomic_rmw_tko release sys %pi, xor, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko acq_rel tl_blk %{{[^ ,]+}}, add, %{{[^ ,]+}} token=%{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %3, %t3 = atomic_rmw_tko acq_rel tl_blk %pi, add, %v token=%t : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, max, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %4, %t4 = atomic_rmw_tko relaxed device %pi, max, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, min, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %5, %t5 = atomic_rmw_tko relaxed device %pi, min, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, umax, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %6, %t6 = atomic_rmw_tko relaxed device %pi, umax, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, umin, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %7, %t7 = atomic_rmw_tko relaxed device %pi, umin, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, xchg, %{{[^ ,]+}} : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %8, %t8 = atomic_rmw_tko relaxed device %pi, xchg, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, addf, %{{[^ ,]+}} : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    %9, %t9 = atomic_rmw_tko relaxed device %pf, addf, %f : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    // CHECK: atomic_rmw_tko relaxed device %{{[^ ,]+}}, xchg, %{{[^ ,]+}} : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    %10, %t10 = atomic_rmw_tko relaxed device %pf, xchg, %f : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @masked(
  entry @masked(%p: tile<ptr<i64>>) {
    // CHECK: reshape %{{[^ ,]+}} : tile<ptr<i64>> -> tile<1xptr<i64>>
    %r = reshape %p : tile<ptr<i64>> -> tile<1xptr<i64>>
    // CHECK: broadcast %{{[^ ,]+}} : tile<1xptr<i64>> -> tile<4xptr<i64>>
    %b = broadcast %r : tile<1xptr<i64>> -> tile<4xptr<i64>>
    // CHECK: iota : tile<4xi64>
    %o = iota : tile<4xi64>
    // CHECK: offset %{{[^ ,]+}}, %{{[^ ,]+}} : tile<4xptr<i64>>, tile<4xi64> -> tile<4xptr<i64>>
    %ptrs = offset %b, %o : tile<4xptr<i64>>, tile<4xi64> -> tile<4xptr<i64>>
    // CHECK: constant <i1: [true, false, true, false]> : tile<4xi1>
    %m = constant <i1: [true, false, true, false]> : tile<4xi1>
    // CHECK: constant <i64: 0> : tile<4xi64>
    %cmp = constant <i64: 0> : tile<4xi64>
    // CHECK: constant <i64: 1> : tile<4xi64>
    %val = constant <i64: 1> : tile<4xi64>
    // CHECK: make_token : token
    %t = make_token : token
    // CHECK: atomic_cas_tko relaxed device %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<4xptr<i64>>, tile<4xi64> -> tile<4xi64>, token
    %0, %t0 = atomic_cas_tko relaxed device %ptrs, %cmp, %val : tile<4xptr<i64>>, tile<4xi64> -> tile<4xi64>, token
    // CHECK: atomic_cas_tko acq_rel sys %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} token=%{{[^ ,]+}} : tile<4xptr<i64>>, tile<4xi64>, tile<4xi1> -> tile<4xi64>, token
    %1, %t1 = atomic_cas_tko acq_rel sys %ptrs, %cmp, %val, %m token=%t : tile<4xptr<i64>>, tile<4xi64>, tile<4xi1> -> tile<4xi64>, token
    // CHECK: atomic_rmw_tko release tl_blk %{{[^ ,]+}}, add, %{{[^ ,]+}}, %{{[^ ,]+}} token=%{{[^ ,]+}} : tile<4xptr<i64>>, tile<4xi64>, tile<4xi1> -> tile<4xi64>, token
    %2, %t2 = atomic_rmw_tko release tl_blk %ptrs, add, %val, %m token=%t1 : tile<4xptr<i64>>, tile<4xi64>, tile<4xi1> -> tile<4xi64>, token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @float_cas(
  entry @float_cas(%p: tile<ptr<f64>>, %c: tile<f64>, %v: tile<f64>) {
    // CHECK: atomic_cas_tko acquire device %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<ptr<f64>>, tile<f64> -> tile<f64>, token
    %0, %t0 = atomic_cas_tko acquire device %p, %c, %v : tile<ptr<f64>>, tile<f64> -> tile<f64>, token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @reductions(
  entry @reductions(%p: tile<ptr<i32>>, %q: tile<ptr<f32>>) {
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xi32, strides=[64,1]>
    %tv = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xi32, strides=[64,1]>
    // CHECK: make_partition_view %{{[^ ,]+}} : partition_view<tile=(2x2), tensor_view<64x64xi32, strides=[64,1]>>
    %pv = make_partition_view %tv : partition_view<tile=(2x2), tensor_view<64x64xi32, strides=[64,1]>>
    // CHECK: constant <i32: 0> : tile<i32>
    %i = constant <i32: 0> : tile<i32>
    // CHECK: constant <i32: 1> : tile<2x2xi32>
    %v = constant <i32: 1> : tile<2x2xi32>
    // CHECK: make_token : token
    %t = make_token : token
    // CHECK: atomic_red_view_tko relaxed device %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}], add, %{{[^ ,]+}} : tile<2x2xi32>, partition_view<tile=(2x2), tensor_view<64x64xi32, strides=[64,1]>>, tile<i32> -> token
    %0 = atomic_red_view_tko relaxed device %pv[%i, %i], add, %v : tile<2x2xi32>, partition_view<tile=(2x2), tensor_view<64x64xi32, strides=[64,1]>>, tile<i32> -> token
    // CHECK: atomic_red_view_tko relaxed tl_blk %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}], umax, %{{[^ ,]+}} token = %{{[^ ,]+}} : tile<2x2xi32>, partition_view<tile=(2x2), tensor_view<64x64xi32, strides=[64,1]>>, tile<i32> -> token
    %1 = atomic_red_view_tko relaxed tl_blk %pv[%i, %i], umax, %v token=%t : tile<2x2xi32>, partition_view<tile=(2x2), tensor_view<64x64xi32, strides=[64,1]>>, tile<i32> -> token
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    %fv = make_tensor_view %q, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // CHECK: make_strided_view %{{[^ ,]+}} : strided_view<tile=(4), traversal_strides=[2], tensor_view<64xf32, strides=[1]>>
    %sv = make_strided_view %fv : strided_view<tile=(4), traversal_strides=[2], tensor_view<64xf32, strides=[1]>>
    // CHECK: constant <f32: 1.000000e+00> : tile<4xf32>
    %f = constant <f32: 1.000000e+00> : tile<4xf32>
    // CHECK: atomic_red_view_tko relaxed device %{{[^ ,]+}}[%{{[^ ,]+}}], addf, %{{[^ ,]+}} : tile<4xf32>, strided_view<tile=(4), traversal_strides=[2], tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    %2 = atomic_red_view_tko relaxed device %sv[%i], addf, %f : tile<4xf32>, strided_view<tile=(4), traversal_strides=[2], tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    // CHECK: return
    return
  }
}
