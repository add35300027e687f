// Views and memory (11 ops): make_tensor_view (static and dynamic),
// make_partition_view, make_strided_view, make_gather_scatter_view,
// get_tensor_shape, get_index_space_shape, load/store through every view kind,
// load/store through pointers with masks, padding and tokens, and alloca.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @tensor_views(
  entry @tensor_views(%p: tile<ptr<f32>>, %n: tile<i64>, %m: tile<i32>) {
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [32, 32], strides = [32, 1] : tensor_view<32x32xf32, strides=[32,1]>
    %tv = make_tensor_view %p, shape = [32, 32], strides = [32, 1] : tensor_view<32x32xf32, strides=[32,1]>
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [%{{[^ ,]+}}, 128], strides = [128, 1] : tile<i64> -> tensor_view<?x128xf32, strides=[128,1]>
    %dv = make_tensor_view %p, shape = [%n, 128], strides = [128, 1] : tile<i64> -> tensor_view<?x128xf32, strides=[128,1]>
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [%{{[^ ,]+}}, %{{[^ ,]+}}], strides = [%{{[^ ,]+}}, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %dd = make_tensor_view %p, shape = [%m, %m], strides = [%m, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [], strides = [] : tensor_view<f32>
    %sv = make_tensor_view %p, shape = [], strides = [] : tensor_view<f32>
    // CHECK: get_tensor_shape %{{[^ ,]+}} : tensor_view<32x32xf32, strides=[32,1]> -> tile<i64>
    %0:2 = get_tensor_shape %tv : tensor_view<32x32xf32, strides=[32,1]> -> tile<i64>
    // CHECK: get_tensor_shape %{{[^ ,]+}} : tensor_view<?x?xf32, strides=[?,1]> -> tile<i32>
    %1:2 = get_tensor_shape %dd : tensor_view<?x?xf32, strides=[?,1]> -> tile<i32>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @partition(
  entry @partition(%p: tile<ptr<f32>>) {
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    // CHECK: make_partition_view %{{[^ ,]+}} : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    // CHECK: make_partition_view %{{[^ ,]+}} : partition_view<tile=(32x16), padding_value = nan, tensor_view<64x128xf32, strides=[128,1]>, dim_map=[1, 0]>
    %tp = make_partition_view %tv : partition_view<tile=(32x16), padding_value = nan, tensor_view<64x128xf32, strides=[128,1]>, dim_map=[1, 0]>
    // CHECK: get_tile_block_id : tile<i32>
    %i, %j, %k = get_tile_block_id : tile<i32>
    // CHECK: get_index_space_shape %{{[^ ,]+}} : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>> -> tile<i64>
    %0:2 = get_index_space_shape %pv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>> -> tile<i64>
    // CHECK: load_view_tko weak %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> tile<16x32xf32>, token
    %t, %tok = load_view_tko weak %pv[%i, %j] : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> tile<16x32xf32>, token
    // CHECK: load_view_tko acquire device %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] token = %{{[^ ,]+}} optimization_hints = <sm_100 = {latency = 3, allow_tma = false}> : partition_view<tile=(32x16), padding_value = nan, tensor_view<64x128xf32, strides=[128,1]>, dim_map=[1, 0]>, tile<i32> -> tile<32x16xf32>, token
    %u, %tok2 = load_view_tko acquire device %tp[%i, %j] token = %tok optimization_hints = <sm_100 = {latency = 3, allow_tma = false}> : partition_view<tile=(32x16), padding_value = nan, tensor_view<64x128xf32, strides=[128,1]>, dim_map=[1, 0]>, tile<i32> -> tile<32x16xf32>, token
    // CHECK: store_view_tko weak %{{[^ ,]+}}, %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] : tile<16x32xf32>, partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> token
    %tok3 = store_view_tko weak %t, %pv[%i, %j] : tile<16x32xf32>, partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> token
    // CHECK: store_view_tko release sys %{{[^ ,]+}}, %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] token = %{{[^ ,]+}} : tile<16x32xf32>, partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> token
    %tok4 = store_view_tko release sys %t, %pv[%j, %i] token = %tok3 : tile<16x32xf32>, partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> token
    // CHECK: store_view_tko relaxed tl_blk %{{[^ ,]+}}, %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] : tile<32x16xf32>, partition_view<tile=(32x16), padding_value = nan, tensor_view<64x128xf32, strides=[128,1]>, dim_map=[1, 0]>, tile<i32> -> token
    %tok5 = store_view_tko relaxed tl_blk %u, %tp[%i, %j] : tile<32x16xf32>, partition_view<tile=(32x16), padding_value = nan, tensor_view<64x128xf32, strides=[128,1]>, dim_map=[1, 0]>, tile<i32> -> token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @strided(
  entry @strided(%p: tile<ptr<f16>>) {
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [16], strides = [1] : tensor_view<16xf16, strides=[1]>
    %tv = make_tensor_view %p, shape = [16], strides = [1] : tensor_view<16xf16, strides=[1]>
    // Overlapping windows (stride 1 < tile 2) and gaps (stride 8 > tile 4).
    // CHECK: make_strided_view %{{[^ ,]+}} : strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>>
    %sv = make_strided_view %tv : strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>>
    // CHECK: make_strided_view %{{[^ ,]+}} : strided_view<tile=(4), traversal_strides=[8], padding_value = zero, tensor_view<16xf16, strides=[1]>>
    %gv = make_strided_view %tv : strided_view<tile=(4), traversal_strides=[8], padding_value = zero, tensor_view<16xf16, strides=[1]>>
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [64, 16], strides = [16, 1] : tensor_view<64x16xf16, strides=[16,1]>
    %t2 = make_tensor_view %p, shape = [64, 16], strides = [16, 1] : tensor_view<64x16xf16, strides=[16,1]>
    // CHECK: make_strided_view %{{[^ ,]+}} : strided_view<tile=(8x4), traversal_strides=[2,{{ ?}}3], padding_value = neg_inf, tensor_view<64x16xf16, strides=[16,1]>, dim_map=[1, 0]>
    %tsv = make_strided_view %t2 : strided_view<tile=(8x4), traversal_strides=[2, 3], padding_value = neg_inf, tensor_view<64x16xf16, strides=[16,1]>, dim_map=[1, 0]>
    // CHECK: constant <i64: 0> : tile<i64>
    %i = constant <i64: 0> : tile<i64>
    // CHECK: get_index_space_shape %{{[^ ,]+}} : strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>> -> tile<i64>
    %0 = get_index_space_shape %sv : strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>> -> tile<i64>
    // CHECK: load_view_tko relaxed device %{{[^ ,]+}}[%{{[^ ,]+}}] : strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>>, tile<i64> -> tile<2xf16>, token
    %t, %tok = load_view_tko relaxed device %sv[%i] : strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>>, tile<i64> -> tile<2xf16>, token
    // CHECK: load_view_tko weak %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] : strided_view<tile=(8x4), traversal_strides=[2,{{ ?}}3], padding_value = neg_inf, tensor_view<64x16xf16, strides=[16,1]>, dim_map=[1, 0]>, tile<i64> -> tile<8x4xf16>, token
    %w, %tok2 = load_view_tko weak %tsv[%i, %i] : strided_view<tile=(8x4), traversal_strides=[2, 3], padding_value = neg_inf, tensor_view<64x16xf16, strides=[16,1]>, dim_map=[1, 0]>, tile<i64> -> tile<8x4xf16>, token
    // CHECK: store_view_tko weak %{{[^ ,]+}}, %{{[^ ,]+}}[%{{[^ ,]+}}] : tile<2xf16>, strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>>, tile<i64> -> token
    %tok3 = store_view_tko weak %t, %sv[%i] : tile<2xf16>, strided_view<tile=(2), traversal_strides=[1], tensor_view<16xf16, strides=[1]>>, tile<i64> -> token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @gather_scatter(
  entry @gather_scatter(%p: tile<ptr<f32>>) {
    // CHECK: make_tensor_view %{{[^ ,]+}}, shape = [1024, 16], strides = [16, 1] : tensor_view<1024x16xf32, strides=[16,1]>
    %tv = make_tensor_view %p, shape = [1024, 16], strides = [16, 1] : tensor_view<1024x16xf32, strides=[16,1]>
    // CHECK: make_gather_scatter_view %{{[^ ,]+}} : gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0>
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0>
    // CHECK: make_gather_scatter_view %{{[^ ,]+}} : gather_scatter_view<tile=(8x4), padding_value = zero, tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=1>
    %gz = make_gather_scatter_view %tv : gather_scatter_view<tile=(8x4), padding_value = zero, tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=1>
    // CHECK: iota : tile<8xi32>
    %rows = iota : tile<8xi32>
    // CHECK: iota : tile<4xi32>
    %cols = iota : tile<4xi32>
    // CHECK: constant <i32: 0> : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    // CHECK: get_index_space_shape %{{[^ ,]+}} : gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0> -> tile<i32>
    %0:2 = get_index_space_shape %gv : gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0> -> tile<i32>
    // CHECK: load_view_tko weak %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] : gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> tile<8x16xf32>, token
    %g, %tok = load_view_tko weak %gv[%rows, %c0] : gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> tile<8x16xf32>, token
    // CHECK: load_view_tko weak %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] : gather_scatter_view<tile=(8x4), padding_value = zero, tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=1>, tile<i32>, tile<4xi32> -> tile<8x4xf32>, token
    %h, %tok2 = load_view_tko weak %gz[%c0, %cols] : gather_scatter_view<tile=(8x4), padding_value = zero, tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=1>, tile<i32>, tile<4xi32> -> tile<8x4xf32>, token
    // CHECK: store_view_tko weak %{{[^ ,]+}}, %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] token = %{{[^ ,]+}} : tile<8x16xf32>, gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> token
    %tok3 = store_view_tko weak %g, %gv[%rows, %c0] token = %tok : tile<8x16xf32>, gather_scatter_view<tile=(8x16), tensor_view<1024x16xf32, strides=[16,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @pointers(
  entry @pointers(%p: tile<ptr<f32>>) {
    // CHECK: reshape %{{[^ ,]+}} : tile<ptr<f32>> -> tile<1xptr<f32>>
    %r = reshape %p : tile<ptr<f32>> -> tile<1xptr<f32>>
    // CHECK: broadcast %{{[^ ,]+}} : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %b = broadcast %r : tile<1xptr<f32>> -> tile<8xptr<f32>>
    // CHECK: iota : tile<8xi32>
    %o = iota : tile<8xi32>
    // CHECK: offset %{{[^ ,]+}}, %{{[^ ,]+}} : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %ptrs = offset %b, %o : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    // CHECK: constant <i1: [true, true, true, true, false, false, false, false]> : tile<8xi1>
    %m = constant <i1: [true, true, true, true, false, false, false, false]> : tile<8xi1>
    // CHECK: constant <f32: 0.000000e+00> : tile<8xf32>
    %pad = constant <f32: 0.000000e+00> : tile<8xf32>
    // CHECK: load_ptr_tko weak %{{[^ ,]+}} : tile<8xptr<f32>> -> tile<8xf32>, token
    %v, %t0 = load_ptr_tko weak %ptrs : tile<8xptr<f32>> -> tile<8xf32>, token
    // CHECK: load_ptr_tko relaxed device %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} token=%{{[^ ,]+}} : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token
    %w, %t1 = load_ptr_tko relaxed device %ptrs, %m, %pad token=%t0 : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token
    // CHECK: load_ptr_tko acquire sys %{{[^ ,]+}}, %{{[^ ,]+}} : tile<8xptr<f32>>, tile<8xi1> -> tile<8xf32>, token
    %x, %t2 = load_ptr_tko acquire sys %ptrs, %m : tile<8xptr<f32>>, tile<8xi1> -> tile<8xf32>, token
    // CHECK: load_ptr_tko weak %{{[^ ,]+}} optimization_hints = <sm_90 = {latency = 2}> : tile<ptr<f32>> -> tile<f32>, token
    %y, %t3 = load_ptr_tko weak %p optimization_hints = <sm_90 = {latency = 2}> : tile<ptr<f32>> -> tile<f32>, token
    // CHECK: store_ptr_tko weak %{{[^ ,]+}}, %{{[^ ,]+}} : tile<8xptr<f32>>, tile<8xf32> -> token
    %t4 = store_ptr_tko weak %ptrs, %v : tile<8xptr<f32>>, tile<8xf32> -> token
    // CHECK: store_ptr_tko release tl_blk %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} token=%{{[^ ,]+}} : tile<8xptr<f32>>, tile<8xf32>, tile<8xi1> -> token
    %t5 = store_ptr_tko release tl_blk %ptrs, %w, %m token=%t4 : tile<8xptr<f32>>, tile<8xf32>, tile<8xi1> -> token
    // CHECK: store_ptr_tko relaxed device %{{[^ ,]+}}, %{{[^ ,]+}} : tile<ptr<f32>>, tile<f32> -> token
    %t6 = store_ptr_tko relaxed device %p, %y : tile<ptr<f32>>, tile<f32> -> token
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @allocas(
  entry @allocas() {
    // CHECK: alloca num_elem = 64, alignment = 128 global : tile<ptr<f32>>
    %0 = alloca num_elem = 64, alignment = 128 global : tile<ptr<f32>>
    // CHECK: alloca num_elem = 16, alignment = 4 : tile<ptr<i32>>
    %1 = alloca num_elem = 16, alignment = 4 : tile<ptr<i32>>
    // CHECK: alloca num_elem = 0, alignment = 8 : tile<ptr<f64>>
    %2 = alloca num_elem = 0, alignment = 8 : tile<ptr<f64>>
    // CHECK: return
    return
  }
}
