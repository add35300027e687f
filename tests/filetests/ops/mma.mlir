// Matrix multiply-accumulate ops (3): every allowed mmaf input/accumulator
// pairing, batched (rank-3) operands, fast_acc, mmai signedness pairs and the
// mmaf_scaled block sizes.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @mmaf_pairs(
  entry @mmaf_pairs() {
    // CHECK: constant <f16: 1.000000e+00> : tile<16x32xf16>
    %h = constant <f16: 1.000000e+00> : tile<16x32xf16>
    // CHECK: constant <f16: 1.000000e+00> : tile<32x8xf16>
    %hk = constant <f16: 1.000000e+00> : tile<32x8xf16>
    // CHECK: constant <f16: 0.000000e+00> : tile<16x8xf16>
    %acc16 = constant <f16: 0.000000e+00> : tile<16x8xf16>
    // CHECK: constant <f32: 0.000000e+00> : tile<16x8xf32>
    %acc32 = constant <f32: 0.000000e+00> : tile<16x8xf32>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x32xf16>, tile<32x8xf16>, tile<16x8xf16>
    %0 = mmaf %h, %hk, %acc16 : tile<16x32xf16>, tile<32x8xf16>, tile<16x8xf16>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x32xf16>, tile<32x8xf16>, tile<16x8xf32>
    %1 = mmaf %h, %hk, %acc32 : tile<16x32xf16>, tile<32x8xf16>, tile<16x8xf32>
    // CHECK: constant <bf16: 1.000000e+00> : tile<16x32xbf16>
    %b = constant <bf16: 1.000000e+00> : tile<16x32xbf16>
    // CHECK: constant <bf16: 1.000000e+00> : tile<32x8xbf16>
    %bk = constant <bf16: 1.000000e+00> : tile<32x8xbf16>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x32xbf16>, tile<32x8xbf16>, tile<16x8xf32>
    %2 = mmaf %b, %bk, %acc32 : tile<16x32xbf16>, tile<32x8xbf16>, tile<16x8xf32>
    // CHECK: constant <tf32: 1.000000e+00> : tile<16x32xtf32>
    %t = constant <tf32: 1.000000e+00> : tile<16x32xtf32>
    // CHECK: constant <tf32: 1.000000e+00> : tile<32x8xtf32>
    %tk = constant <tf32: 1.000000e+00> : tile<32x8xtf32>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x32xtf32>, tile<32x8xtf32>, tile<16x8xf32>
    %3 = mmaf %t, %tk, %acc32 : tile<16x32xtf32>, tile<32x8xtf32>, tile<16x8xf32>
    // CHECK: constant <f32: 1.000000e+00> : tile<16x32xf32>
    %f = constant <f32: 1.000000e+00> : tile<16x32xf32>
    // CHECK: constant <f32: 1.000000e+00> : tile<32x8xf32>
    %fk = constant <f32: 1.000000e+00> : tile<32x8xf32>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x32xf32>, tile<32x8xf32>, tile<16x8xf32>
    %4 = mmaf %f, %fk, %acc32 : tile<16x32xf32>, tile<32x8xf32>, tile<16x8xf32>
    // CHECK: constant <f64: 1.000000e+00> : tile<16x32xf64>
    %d = constant <f64: 1.000000e+00> : tile<16x32xf64>
    // CHECK: constant <f64: 1.000000e+00> : tile<32x8xf64>
    %dk = constant <f64: 1.000000e+00> : tile<32x8xf64>
    // CHECK: constant <f64: 0.000000e+00> : tile<16x8xf64>
    %acc64 = constant <f64: 0.000000e+00> : tile<16x8xf64>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x32xf64>, tile<32x8xf64>, tile<16x8xf64>
    %5 = mmaf %d, %dk, %acc64 : tile<16x32xf64>, tile<32x8xf64>, tile<16x8xf64>
    // CHECK: constant <f8E4M3FN: 1.000000e+00> : tile<16x32xf8E4M3FN>
    %e4 = constant <f8E4M3FN: 1.000000e+00> : tile<16x32xf8E4M3FN>
    // CHECK: constant <f8E4M3FN: 1.000000e+00> : tile<32x8xf8E4M3FN>
    %e4k = constant <f8E4M3FN: 1.000000e+00> : tile<32x8xf8E4M3FN>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} fast_acc : tile<16x32xf8E4M3FN>, tile<32x8xf8E4M3FN>, tile<16x8xf16>
    %6 = mmaf %e4, %e4k, %acc16 fast_acc : tile<16x32xf8E4M3FN>, tile<32x8xf8E4M3FN>, tile<16x8xf16>
    // CHECK: constant <f8E5M2: 1.000000e+00> : tile<16x32xf8E5M2>
    %e5 = constant <f8E5M2: 1.000000e+00> : tile<16x32xf8E5M2>
    // CHECK: constant <f8E5M2: 1.000000e+00> : tile<32x8xf8E5M2>
    %e5k = constant <f8E5M2: 1.000000e+00> : tile<32x8xf8E5M2>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x32xf8E5M2>, tile<32x8xf8E5M2>, tile<16x8xf32>
    %7 = mmaf %e5, %e5k, %acc32 : tile<16x32xf8E5M2>, tile<32x8xf8E5M2>, tile<16x8xf32>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @batched(
  entry @batched() {
    // CHECK: constant <f16: 1.000000e+00> : tile<2x16x32xf16>
    %a = constant <f16: 1.000000e+00> : tile<2x16x32xf16>
    // CHECK: constant <f16: 1.000000e+00> : tile<2x32x8xf16>
    %b = constant <f16: 1.000000e+00> : tile<2x32x8xf16>
    // CHECK: constant <f32: 0.000000e+00> : tile<2x16x8xf32>
    %c = constant <f32: 0.000000e+00> : tile<2x16x8xf32>
    // CHECK: mmaf %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2x16x32xf16>, tile<2x32x8xf16>, tile<2x16x8xf32>
    %0 = mmaf %a, %b, %c : tile<2x16x32xf16>, tile<2x32x8xf16>, tile<2x16x8xf32>
    // CHECK: constant <i8: 1> : tile<4x8xi8>
    %ia = constant <i8: 1> : tile<4x8xi8>
    // CHECK: constant <i8: -1> : tile<8x16xi8>
    %ib = constant <i8: -1> : tile<8x16xi8>
    // CHECK: constant <i32: 0> : tile<4x16xi32>
    %ic = constant <i32: 0> : tile<4x16xi32>
    // CHECK: mmai %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} signed signed : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    %1 = mmai %ia, %ib, %ic signed signed : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    // CHECK: mmai %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} signed unsigned : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    %2 = mmai %ia, %ib, %ic signed unsigned : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    // CHECK: mmai %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} unsigned signed : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    %3 = mmai %ia, %ib, %ic unsigned signed : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    // CHECK: mmai %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} unsigned unsigned : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    %4 = mmai %ia, %ib, %ic unsigned unsigned : tile<4x8xi8>, tile<8x16xi8>, tile<4x16xi32>
    // CHECK: constant <i8: 1> : tile<2x4x8xi8>
    %ba = constant <i8: 1> : tile<2x4x8xi8>
    // CHECK: constant <i8: 1> : tile<2x8x16xi8>
    %bb = constant <i8: 1> : tile<2x8x16xi8>
    // CHECK: constant <i32: 0> : tile<2x4x16xi32>
    %bc = constant <i32: 0> : tile<2x4x16xi32>
    // CHECK: mmai %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} signed signed : tile<2x4x8xi8>, tile<2x8x16xi8>, tile<2x4x16xi32>
    %5 = mmai %ba, %bb, %bc signed signed : tile<2x4x8xi8>, tile<2x8x16xi8>, tile<2x4x16xi32>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @scaled(
  entry @scaled() {
    // CHECK: constant <f32: 0.000000e+00> : tile<16x16xf32>
    %acc = constant <f32: 0.000000e+00> : tile<16x16xf32>
    // fp8 data: block size K / K_scale = 32.
    // CHECK: constant <f8E5M2: 1.000000e+00> : tile<16x64xf8E5M2>
    %a8 = constant <f8E5M2: 1.000000e+00> : tile<16x64xf8E5M2>
    // CHECK: constant <f8E5M2: 1.000000e+00> : tile<64x16xf8E5M2>
    %b8 = constant <f8E5M2: 1.000000e+00> : tile<64x16xf8E5M2>
    // CHECK: constant <f8E8M0FNU: 1.000000e+00> : tile<16x2xf8E8M0FNU>
    %sa = constant <f8E8M0FNU: 1.000000e+00> : tile<16x2xf8E8M0FNU>
    // CHECK: constant <f8E8M0FNU: 1.000000e+00> : tile<2x16xf8E8M0FNU>
    %sb = constant <f8E8M0FNU: 1.000000e+00> : tile<2x16xf8E8M0FNU>
    // CHECK: mmaf_scaled %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf32>, tile<16x2xf8E8M0FNU>, tile<2x16xf8E8M0FNU>
    %0 = mmaf_scaled %a8, %b8, %acc, %sa, %sb : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf32>, tile<16x2xf8E8M0FNU>, tile<2x16xf8E8M0FNU>
    // f4 data with e4m3 scales: block size 16.
    // CHECK: constant <f4E2M1FN: 1.000000e+00> : tile<16x64xf4E2M1FN>
    %a4 = constant <f4E2M1FN: 1.000000e+00> : tile<16x64xf4E2M1FN>
    // CHECK: constant <f4E2M1FN: 1.000000e+00> : tile<64x16xf4E2M1FN>
    %b4 = constant <f4E2M1FN: 1.000000e+00> : tile<64x16xf4E2M1FN>
    // CHECK: constant <f8E4M3FN: 1.000000e+00> : tile<16x4xf8E4M3FN>
    %qa = constant <f8E4M3FN: 1.000000e+00> : tile<16x4xf8E4M3FN>
    // CHECK: constant <f8E4M3FN: 1.000000e+00> : tile<4x16xf8E4M3FN>
    %qb = constant <f8E4M3FN: 1.000000e+00> : tile<4x16xf8E4M3FN>
    // CHECK: mmaf_scaled %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, tile<16x4xf8E4M3FN>, tile<4x16xf8E4M3FN>
    %1 = mmaf_scaled %a4, %b4, %acc, %qa, %qb : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, tile<16x4xf8E4M3FN>, tile<4x16xf8E4M3FN>
    // f4 data with e8m0 scales: block size 32 (16 is also allowed).
    // CHECK: mmaf_scaled %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, tile<16x2xf8E8M0FNU>, tile<2x16xf8E8M0FNU>
    %2 = mmaf_scaled %a4, %b4, %acc, %sa, %sb : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, tile<16x2xf8E8M0FNU>, tile<2x16xf8E8M0FNU>
    // CHECK: return
    return
  }
}
