// Constants of every element type: splats, nested lists, hex integer and
// float bit patterns, signed/unsigned integer ranges, special float values,
// and the canonical printing of each (splat folding, signed integers, MLIR
// float formatting, NaN/Inf as hex).
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @integers
  entry @integers() {
    // CHECK: constant <i1: true> : tile<i1>
    %0 = constant <i1: true> : tile<i1>
    // CHECK: constant <i1: [true, false, false, true]> : tile<4xi1>
    %1 = constant <i1: [true, false, false, true]> : tile<4xi1>
    // CHECK: constant <i1: true> : tile<2xi1>
    %2 = constant <i1: 1> : tile<2xi1>
    // CHECK: constant <i1: true> : tile<2xi1>
    %3 = constant <i1: -1> : tile<2xi1>
    // CHECK: constant <i8: -1> : tile<i8>
    %4 = constant <i8: 255> : tile<i8>
    // CHECK: constant <i8: -128> : tile<2xi8>
    %5 = constant <i8: -128> : tile<2xi8>
    // CHECK: constant <i8: [127, -128]> : tile<2xi8>
    %6 = constant <i8: [0x7F, 0x80]> : tile<2xi8>
    // CHECK: constant <i16: -1> : tile<i16>
    %7 = constant <i16: 0xFFFF> : tile<i16>
    // CHECK: constant <i16: {{\[\[}}1, 2], [3, 4{{\]\]}}> : tile<2x2xi16>
    %8 = constant <i16: [[1, 2], [3, 4]]> : tile<2x2xi16>
    // CHECK: constant <i32: 2147483647> : tile<i32>
    %9 = constant <i32: 2147483647> : tile<i32>
    // CHECK: constant <i32: -1> : tile<i32>
    %10 = constant <i32: 4294967295> : tile<i32>
    // CHECK: constant <i32: 42> : tile<1xi32>
    %11 = constant <i32: [42]> : tile<1xi32>
    // CHECK: constant <i32: 7> : tile<4xi32>
    %12 = constant <i32: [7, 7, 7, 7]> : tile<4xi32>
    // CHECK: constant <i64: -9223372036854775808> : tile<i64>
    %13 = constant <i64: -9223372036854775808> : tile<i64>
    // CHECK: constant <i64: 9223372036854775807> : tile<2x2x2xi64>
    %14 = constant <i64: 0x7FFFFFFFFFFFFFFF> : tile<2x2x2xi64>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @floats
  entry @floats() {
    // CHECK: constant <f16: 3.140630e+00> : tile<f16>
    %0 = constant <f16: 3.14159> : tile<f16>
    // CHECK: constant <f16: [1.000000e+00, -2.000000e+00]> : tile<2xf16>
    %1 = constant <f16: [1.0, -2.0]> : tile<2xf16>
    // CHECK: constant <bf16: 1.500000e+00> : tile<bf16>
    %2 = constant <bf16: 1.5> : tile<bf16>
    // CHECK: constant <bf16: [5.000000e-01, 2.500000e-01]> : tile<2xbf16>
    %3 = constant <bf16: [0.5, 0.25]> : tile<2xbf16>
    // CHECK: constant <f32: 1.000000e+00> : tile<f32>
    %4 = constant <f32: 1.0> : tile<f32>
    // CHECK: constant <f32: {{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00{{\]\]}}> : tile<2x2xf32>
    %5 = constant <f32: [[1.0, 2.0], [3.0, 4.0]]> : tile<2x2xf32>
    // CHECK: constant <f32: 0x7F800000> : tile<f32>
    %6 = constant <f32: 0x7F800000> : tile<f32>
    // CHECK: constant <f32: 0xFF800000> : tile<2xf32>
    %7 = constant <f32: 0xFF800000> : tile<2xf32>
    // CHECK: constant <f32: 0x7FC00000> : tile<f32>
    %8 = constant <f32: 0x7FC00000> : tile<f32>
    // CHECK: constant <f32: -0.000000e+00> : tile<f32>
    %9 = constant <f32: -0.0> : tile<f32>
    // CHECK: constant <tf32: 1.000000e+00> : tile<tf32>
    %10 = constant <tf32: 1.0> : tile<tf32>
    // CHECK: constant <tf32: [2.000000e+00, 4.000000e+00]> : tile<2xtf32>
    %11 = constant <tf32: [2.0, 4.0]> : tile<2xtf32>
    // CHECK: constant <f64: 2.7182818284590451> : tile<f64>
    %12 = constant <f64: 2.7182818284590451> : tile<f64>
    // CHECK: constant <f64: [1.000000e+100, -1.000000e-100]> : tile<2xf64>
    %13 = constant <f64: [1.0e+100, -1.0e-100]> : tile<2xf64>
    // CHECK: constant <f8E4M3FN: 4.480000e+02> : tile<f8E4M3FN>
    %14 = constant <f8E4M3FN: 448.0> : tile<f8E4M3FN>
    // CHECK: constant <f8E4M3FN: [1.000000e+00, -5.000000e-01]> : tile<2xf8E4M3FN>
    %15 = constant <f8E4M3FN: [1.0, -0.5]> : tile<2xf8E4M3FN>
    // CHECK: constant <f8E5M2: 5.734400e+04> : tile<f8E5M2>
    %16 = constant <f8E5M2: 57344.0> : tile<f8E5M2>
    // CHECK: constant <f8E5M2: [2.500000e-01, 2.000000e+00]> : tile<2xf8E5M2>
    %17 = constant <f8E5M2: [0.25, 2.0]> : tile<2xf8E5M2>
    // CHECK: constant <f8E8M0FNU: 1.000000e+00> : tile<f8E8M0FNU>
    %18 = constant <f8E8M0FNU: 1.0> : tile<f8E8M0FNU>
    // CHECK: constant <f8E8M0FNU: [2.000000e+00, 5.000000e-01]> : tile<2xf8E8M0FNU>
    %19 = constant <f8E8M0FNU: [2.0, 0.5]> : tile<2xf8E8M0FNU>
    // CHECK: constant <f4E2M1FN: 6.000000e+00> : tile<2xf4E2M1FN>
    %20 = constant <f4E2M1FN: 6.0> : tile<2xf4E2M1FN>
    // CHECK: constant <f4E2M1FN: [5.000000e-01, -1.500000e+00, 3.000000e+00, 0.000000e+00]> : tile<4xf4E2M1FN>
    %21 = constant <f4E2M1FN: [0.5, -1.5, 3.0, 0.0]> : tile<4xf4E2M1FN>
    // CHECK: return
    return
  }
}
