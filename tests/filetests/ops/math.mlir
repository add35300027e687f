// Math ops (16) on every BaseF element type, including the rounding modes of
// tanh/exp/sqrt and flush_to_zero of exp2/sqrt/rsqrt.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @f32_math(
  entry @f32_math(%x: tile<f32>, %y: tile<f32>) {
    // CHECK: ceil %{{[^ ,]+}} : tile<f32>
    %0 = ceil %x : tile<f32>
    // CHECK: floor %{{[^ ,]+}} : tile<f32>
    %1 = floor %x : tile<f32>
    // CHECK: cos %{{[^ ,]+}} : tile<f32>
    %2 = cos %x : tile<f32>
    // CHECK: cosh %{{[^ ,]+}} : tile<f32>
    %3 = cosh %x : tile<f32>
    // CHECK: sin %{{[^ ,]+}} : tile<f32>
    %4 = sin %x : tile<f32>
    // CHECK: sinh %{{[^ ,]+}} : tile<f32>
    %5 = sinh %x : tile<f32>
    // CHECK: tan %{{[^ ,]+}} : tile<f32>
    %6 = tan %x : tile<f32>
    // CHECK: tanh %{{[^ ,]+}} : tile<f32>
    %7 = tanh %x : tile<f32>
    // CHECK: tanh %{{[^ ,]+}} rounding<approx> : tile<f32>
    %8 = tanh %x rounding<approx> : tile<f32>
    // CHECK: exp %{{[^ ,]+}} : tile<f32>
    %9 = exp %x : tile<f32>
    // CHECK: exp %{{[^ ,]+}} rounding<approx> : tile<f32>
    %10 = exp %x rounding<approx> : tile<f32>
    // CHECK: exp2 %{{[^ ,]+}} : tile<f32>
    %11 = exp2 %x : tile<f32>
    // CHECK: exp2 %{{[^ ,]+}} flush_to_zero : tile<f32>
    %12 = exp2 %x flush_to_zero : tile<f32>
    // CHECK: log %{{[^ ,]+}} : tile<f32>
    %13 = log %x : tile<f32>
    // CHECK: log2 %{{[^ ,]+}} : tile<f32>
    %14 = log2 %x : tile<f32>
    // CHECK: pow %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
    %15 = pow %x, %y : tile<f32>
    // CHECK: sqrt %{{[^ ,]+}} : tile<f32>
    %16 = sqrt %x : tile<f32>
    // CHECK: sqrt %{{[^ ,]+}} rounding<approx> flush_to_zero : tile<f32>
    %17 = sqrt %x rounding<approx> flush_to_zero : tile<f32>
    // CHECK: sqrt %{{[^ ,]+}} rounding<zero> : tile<f32>
    %18 = sqrt %x rounding<zero> : tile<f32>
    // CHECK: rsqrt %{{[^ ,]+}} : tile<f32>
    %19 = rsqrt %x : tile<f32>
    // CHECK: rsqrt %{{[^ ,]+}} flush_to_zero : tile<f32>
    %20 = rsqrt %x flush_to_zero : tile<f32>
    // CHECK: atan2 %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
    %21 = atan2 %x, %y : tile<f32>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @other_widths(
  entry @other_widths() {
    // CHECK: constant <f16: [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tile<4xf16>
    %h = constant <f16: [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tile<4xf16>
    // CHECK: ceil %{{[^ ,]+}} : tile<4xf16>
    %0 = ceil %h : tile<4xf16>
    // CHECK: cos %{{[^ ,]+}} : tile<4xf16>
    %1 = cos %h : tile<4xf16>
    // CHECK: exp %{{[^ ,]+}} : tile<4xf16>
    %2 = exp %h : tile<4xf16>
    // CHECK: log %{{[^ ,]+}} : tile<4xf16>
    %3 = log %h : tile<4xf16>
    // CHECK: pow %{{[^ ,]+}}, %{{[^ ,]+}} : tile<4xf16>
    %4 = pow %h, %h : tile<4xf16>
    // CHECK: sqrt %{{[^ ,]+}} rounding<negative_inf> : tile<4xf16>
    %5 = sqrt %h rounding<negative_inf> : tile<4xf16>
    // CHECK: atan2 %{{[^ ,]+}}, %{{[^ ,]+}} : tile<4xf16>
    %6 = atan2 %h, %h : tile<4xf16>
    // CHECK: constant <bf16: 5.000000e-01> : tile<2x2xbf16>
    %b = constant <bf16: 5.000000e-01> : tile<2x2xbf16>
    // CHECK: floor %{{[^ ,]+}} : tile<2x2xbf16>
    %7 = floor %b : tile<2x2xbf16>
    // CHECK: sin %{{[^ ,]+}} : tile<2x2xbf16>
    %8 = sin %b : tile<2x2xbf16>
    // CHECK: tanh %{{[^ ,]+}} : tile<2x2xbf16>
    %9 = tanh %b : tile<2x2xbf16>
    // CHECK: exp2 %{{[^ ,]+}} : tile<2x2xbf16>
    %10 = exp2 %b : tile<2x2xbf16>
    // CHECK: rsqrt %{{[^ ,]+}} : tile<2x2xbf16>
    %11 = rsqrt %b : tile<2x2xbf16>
    // CHECK: constant <f64: 1.000000e+00> : tile<8xf64>
    %d = constant <f64: 1.000000e+00> : tile<8xf64>
    // CHECK: cosh %{{[^ ,]+}} : tile<8xf64>
    %12 = cosh %d : tile<8xf64>
    // CHECK: sinh %{{[^ ,]+}} : tile<8xf64>
    %13 = sinh %d : tile<8xf64>
    // CHECK: tan %{{[^ ,]+}} : tile<8xf64>
    %14 = tan %d : tile<8xf64>
    // CHECK: log2 %{{[^ ,]+}} : tile<8xf64>
    %15 = log2 %d : tile<8xf64>
    // CHECK: sqrt %{{[^ ,]+}} : tile<8xf64>
    %16 = sqrt %d : tile<8xf64>
    // CHECK: return
    return
  }
}
