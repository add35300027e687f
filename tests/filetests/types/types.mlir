// Type syntax: short and long (!cuda_tile.) spellings, canonical printing of
// every dialect type (identity dim_map elided, strides without spaces, every
// padding value, strided and gather/scatter views, token).
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: testing$func @scalars(
  // CHECK-SAME: tile<f32>, %{{.*}}: tile<4xptr<i8>>, %{{.*}}: tile<2x2xptr<f8E5M2>>, %{{.*}}: tile<2xi4>, %{{.*}}: token, %{{.*}}: token)
  testing$func @scalars(%a: !cuda_tile.tile<f32>, %b: tile<4x!cuda_tile.ptr<i8>>, %c: !cuda_tile.tile<2x2x!cuda_tile.ptr<f8E5M2>>, %d: tile<2xi4>, %e: !cuda_tile.token, %f: token) {
    return
  }
  // CHECK-LABEL: testing$func @tensor_views(
  // CHECK-SAME: tensor_view<512x1024xf16, strides=[1024,1]>
  // CHECK-SAME: tensor_view<?x?xbf16, strides=[?,1]>
  // CHECK-SAME: tensor_view<i64>
  // CHECK-SAME: tensor_view<3x5x7xf8E8M0FNU, strides=[35,7,1]>)
  testing$func @tensor_views(%a: !cuda_tile.tensor_view<512x1024xf16, strides=[1024, 1]>, %b: tensor_view<?x?xbf16, strides=[?, 1]>, %c: tensor_view<i64>, %d: tensor_view<3x5x7xf8E8M0FNU, strides=[35,7,1]>) {
    return
  }
  // The identity dim_map is not printed.
  // CHECK-LABEL: testing$func @partition_views(
  // CHECK-SAME: partition_view<tile=(64x64), tensor_view<8192x128xf32, strides=[128,1]>>,
  // CHECK-SAME: partition_view<tile=(2x2), padding_value = neg_zero, tensor_view<4x4xf16, strides=[4,1]>, dim_map=[1, 0]>,
  // CHECK-SAME: partition_view<tile=(8), padding_value = pos_inf, tensor_view<?xf64, strides=[1]>>,
  // CHECK-SAME: partition_view<tile=(8), padding_value = zero, tensor_view<16xi8, strides=[1]>>)
  testing$func @partition_views(%a: partition_view<tile=(64x64), tensor_view<8192x128xf32, strides=[128,1]>, dim_map=[0, 1]>, %b: !cuda_tile.partition_view<tile=(2x2), padding_value = neg_zero, tensor_view<4x4xf16, strides=[4,1]>, dim_map=[1, 0]>, %c: partition_view<tile=(8), padding_value = pos_inf, tensor_view<?xf64, strides=[1]>>, %d: partition_view<tile=(8), padding_value = zero, tensor_view<16xi8, strides=[1]>>) {
    return
  }
  // CHECK-LABEL: testing$func @new_views(
  // CHECK-SAME: strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>,
  // CHECK-SAME: strided_view<tile=(4x4), traversal_strides=[1,{{ ?}}8], padding_value = nan, tensor_view<32x32xf32, strides=[32,1]>>,
  // CHECK-SAME: gather_scatter_view<tile=(64x64), tensor_view<8192x128xf32, strides=[128,1]>, sparse_dim=0>,
  // CHECK-SAME: gather_scatter_view<tile=(4x8), padding_value = neg_inf, tensor_view<?x8xf16, strides=[8,1]>, sparse_dim=1>)
  testing$func @new_views(%a: strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>, %b: !cuda_tile.strided_view<tile=(4x4), traversal_strides=[1,8], padding_value = nan, tensor_view<32x32xf32, strides=[32,1]>, dim_map=[0, 1]>, %c: gather_scatter_view<tile=(64x64), tensor_view<8192x128xf32, strides=[128,1]>, sparse_dim=0>, %d: !cuda_tile.gather_scatter_view<tile=(4x8), padding_value = neg_inf, tensor_view<?x8xf16, strides=[8,1]>, sparse_dim=1>) {
    return
  }
}
