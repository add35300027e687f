// Module structure (module, entry, global, get_global, get_tile_block_id,
// get_num_tile_blocks): globals with every visibility/constant/alignment
// combination, entry arguments of scalar tile types, the producer attribute.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels attributes {producer = "tileir filetests"} {
  // CHECK: global @plain <f32: [0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tile<4xf32>
  global @plain <f32: [0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tile<4xf32>
  // CHECK: global @aligned alignment = 128 <i32: 7> : tile<8xi32>
  global @aligned alignment = 128 <i32: 7> : tile<8xi32>
  // CHECK: global private @priv <i64: [1, -1]> : tile<2xi64>
  global private @priv <i64: [1, -1]> : tile<2xi64>
  // CHECK: global constant @lut <i8: [1, 2, 3, 4]> : tile<4xi8>
  global constant @lut <i8: [1, 2, 3, 4]> : tile<4xi8>
  // CHECK: global private constant @both alignment = 16 <f16: 1.000000e+00> : tile<1xf16>
  global private constant @both alignment = 16 <f16: 1.000000e+00> : tile<1xf16>

  // CHECK-LABEL: entry @empty(
  entry @empty() {
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @args(
  entry @args(%p: tile<ptr<f32>>, %i: tile<i32>, %b: tile<i1>, %h: tile<f16>, %q: tile<ptr<i8>>) {
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @grid(
  entry @grid() {
    // CHECK: get_tile_block_id : tile<i32>
    %x, %y, %z = get_tile_block_id : tile<i32>
    // CHECK: get_num_tile_blocks : tile<i32>
    %nx, %ny, %nz = get_num_tile_blocks : tile<i32>
    // CHECK: muli %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i32>
    %0 = muli %x, %nx : tile<i32>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @globals(
  entry @globals() {
    // CHECK: get_global @plain : tile<ptr<f32>>
    %0 = get_global @plain : tile<ptr<f32>>
    // CHECK: get_global @aligned : tile<ptr<i32>>
    %1 = get_global @aligned : tile<ptr<i32>>
    // CHECK: get_global @priv : tile<ptr<i64>>
    %2 = get_global @priv : tile<ptr<i64>>
    // CHECK: get_global @lut : tile<ptr<i8>>
    %3 = get_global @lut : tile<ptr<i8>>
    // CHECK: get_global @both : tile<ptr<f16>>
    %4 = get_global @both : tile<ptr<f16>>
    // CHECK: load_ptr_tko weak %{{[^ ,]+}} : tile<ptr<i8>> -> tile<i8>, token
    %v, %t = load_ptr_tko weak %3 : tile<ptr<i8>> -> tile<i8>, token
    // CHECK: return
    return
  }
}
