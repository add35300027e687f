// Tile construction and shape ops (11): constant, iota, broadcast, reshape,
// permute, cat, extract, select, offset, pack, unpack.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @construct(
  entry @construct(%s: tile<f32>, %i: tile<i32>) {
    // CHECK: iota : tile<128xi32>
    %0 = iota : tile<128xi32>
    // 256 elements of i8 are allowed: iota values are read unsigned.
    // CHECK: iota : tile<256xi8>
    %1 = iota : tile<256xi8>
    // CHECK: reshape %{{[^ ,]+}} : tile<f32> -> tile<1x1xf32>
    %2 = reshape %s : tile<f32> -> tile<1x1xf32>
    // CHECK: broadcast %{{[^ ,]+}} : tile<1x1xf32> -> tile<4x8xf32>
    %3 = broadcast %2 : tile<1x1xf32> -> tile<4x8xf32>
    // CHECK: reshape %{{[^ ,]+}} : tile<4x8xf32> -> tile<32xf32>
    %4 = reshape %3 : tile<4x8xf32> -> tile<32xf32>
    // CHECK: reshape %{{[^ ,]+}} : tile<4x8xf32> -> tile<2x2x8xf32>
    %5 = reshape %3 : tile<4x8xf32> -> tile<2x2x8xf32>
    // CHECK: permute %{{[^ ,]+}} [1, 0] : tile<4x8xf32> -> tile<8x4xf32>
    %6 = permute %3 [1, 0] : tile<4x8xf32> -> tile<8x4xf32>
    // CHECK: permute %{{[^ ,]+}} [2, 0, 1] : tile<2x2x8xf32> -> tile<8x2x2xf32>
    %7 = permute %5 [2, 0, 1] : tile<2x2x8xf32> -> tile<8x2x2xf32>
    // CHECK: cat %{{[^ ,]+}}, %{{[^ ,]+}} dim = 0 : tile<4x8xf32>, tile<4x8xf32> -> tile<8x8xf32>
    %8 = cat %3, %3 dim = 0 : tile<4x8xf32>, tile<4x8xf32> -> tile<8x8xf32>
    // CHECK: cat %{{[^ ,]+}}, %{{[^ ,]+}} dim = 1 : tile<4x8xf32>, tile<4x8xf32> -> tile<4x16xf32>
    %9 = cat %3, %3 dim = 1 : tile<4x8xf32>, tile<4x8xf32> -> tile<4x16xf32>
    // CHECK: extract %{{[^ ,]+}}[%{{[^ ,]+}}, %{{[^ ,]+}}] : tile<4x8xf32> -> tile<2x4xf32>
    %10 = extract %3[%i, %i] : tile<4x8xf32> -> tile<2x4xf32>
    // CHECK: extract %{{[^ ,]+}}[%{{[^ ,]+}}] : tile<32xf32> -> tile<32xf32>
    %11 = extract %4[%i] : tile<32xf32> -> tile<32xf32>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @select_ops(
  entry @select_ops(%c: tile<i1>, %a: tile<f32>, %b: tile<f32>) {
    // CHECK: select %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i1>, tile<f32>
    %0 = select %c, %a, %b : tile<i1>, tile<f32>
    // CHECK: constant <i1: [true, false, true, false]> : tile<4xi1>
    %m = constant <i1: [true, false, true, false]> : tile<4xi1>
    // CHECK: constant <i32: [1, 2, 3, 4]> : tile<4xi32>
    %x = constant <i32: [1, 2, 3, 4]> : tile<4xi32>
    // CHECK: constant <i32: 0> : tile<4xi32>
    %y = constant <i32: 0> : tile<4xi32>
    // CHECK: select %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<4xi1>, tile<4xi32>
    %1 = select %m, %x, %y : tile<4xi1>, tile<4xi32>
    // CHECK: constant <f8E5M2: 1.000000e+00> : tile<4xf8E5M2>
    %z = constant <f8E5M2: 1.000000e+00> : tile<4xf8E5M2>
    // CHECK: select %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<4xi1>, tile<4xf8E5M2>
    %2 = select %m, %z, %z : tile<4xi1>, tile<4xf8E5M2>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @offsets(
  entry @offsets(%p: tile<ptr<f32>>) {
    // CHECK: iota : tile<8xi32>
    %o = iota : tile<8xi32>
    // CHECK: reshape %{{[^ ,]+}} : tile<ptr<f32>> -> tile<1xptr<f32>>
    %r = reshape %p : tile<ptr<f32>> -> tile<1xptr<f32>>
    // CHECK: broadcast %{{[^ ,]+}} : tile<1xptr<f32>> -> tile<8xptr<f32>>
    %b = broadcast %r : tile<1xptr<f32>> -> tile<8xptr<f32>>
    // CHECK: offset %{{[^ ,]+}}, %{{[^ ,]+}} : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    %0 = offset %b, %o : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
    // CHECK: constant <i64: -1> : tile<i64>
    %n = constant <i64: -1> : tile<i64>
    // CHECK: offset %{{[^ ,]+}}, %{{[^ ,]+}} : tile<ptr<f32>>, tile<i64> -> tile<ptr<f32>>
    %1 = offset %p, %n : tile<ptr<f32>>, tile<i64> -> tile<ptr<f32>>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @packing(
  entry @packing() {
    // CHECK: constant <f16: 0.000000e+00> : tile<64xf16>
    %h = constant <f16: 0.000000e+00> : tile<64xf16>
    // CHECK: pack %{{[^ ,]+}} : tile<64xf16> -> tile<128xi8>
    %0 = pack %h : tile<64xf16> -> tile<128xi8>
    // CHECK: unpack %{{[^ ,]+}} : tile<128xi8> -> tile<64xf16>
    %1 = unpack %0 : tile<128xi8> -> tile<64xf16>
    // i1 counts as one bit: 16 x i1 = 2 bytes.
    // CHECK: constant <i1: false> : tile<16xi1>
    %b = constant <i1: false> : tile<16xi1>
    // CHECK: pack %{{[^ ,]+}} : tile<16xi1> -> tile<2xi8>
    %2 = pack %b : tile<16xi1> -> tile<2xi8>
    // CHECK: unpack %{{[^ ,]+}} : tile<2xi8> -> tile<16xi1>
    %3 = unpack %2 : tile<2xi8> -> tile<16xi1>
    // CHECK: constant <i8: 3> : tile<8xi8>
    %q = constant <i8: 3> : tile<8xi8>
    // CHECK: trunci %{{[^ ,]+}} : tile<8xi8> -> tile<8xi4>
    %4 = trunci %q : tile<8xi8> -> tile<8xi4>
    // CHECK: pack %{{[^ ,]+}} : tile<8xi4> -> tile<4xi8>
    %5 = pack %4 : tile<8xi4> -> tile<4xi8>
    // CHECK: unpack %{{[^ ,]+}} : tile<4xi8> -> tile<8xi4>
    %6 = unpack %5 : tile<4xi8> -> tile<8xi4>
    // CHECK: unpack %{{[^ ,]+}} : tile<4xi8> -> tile<8xf4E2M1FN>
    %7 = unpack %5 : tile<4xi8> -> tile<8xf4E2M1FN>
    // CHECK: return
    return
  }
}
