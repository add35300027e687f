// Floating-point arithmetic ops (11) on every BaseF element type (f16, bf16,
// f32, f64), with rounding modes, flush_to_zero and propagate_nan variants.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @f32_ops(
  entry @f32_ops(%a: tile<f32>, %b: tile<f32>, %c: tile<f32>) {
    // CHECK: absf %{{[^ ,]+}} : tile<f32>
    %0 = absf %a : tile<f32>
    // CHECK: addf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
    %1 = addf %a, %b : tile<f32>
    // CHECK: addf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<zero> flush_to_zero : tile<f32>
    %2 = addf %a, %b rounding<zero> flush_to_zero : tile<f32>
    // CHECK: subf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<negative_inf> : tile<f32>
    %3 = subf %a, %b rounding<negative_inf> : tile<f32>
    // CHECK: mulf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<positive_inf> flush_to_zero : tile<f32>
    %4 = mulf %a, %b rounding<positive_inf> flush_to_zero : tile<f32>
    // CHECK: divf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<approx> flush_to_zero : tile<f32>
    %5 = divf %a, %b rounding<approx> flush_to_zero : tile<f32>
    // CHECK: divf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<full> : tile<f32>
    %6 = divf %a, %b rounding<full> : tile<f32>
    // CHECK: divf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
    %7 = divf %a, %b : tile<f32>
    // CHECK: remf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
    %8 = remf %a, %b : tile<f32>
    // CHECK: negf %{{[^ ,]+}} : tile<f32>
    %9 = negf %a : tile<f32>
    // CHECK: maxf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
    %10 = maxf %a, %b : tile<f32>
    // Unit flags are accepted in any order; the printer puts flush_to_zero first.
    // CHECK: maxf %{{[^ ,]+}}, %{{[^ ,]+}} flush_to_zero propagate_nan : tile<f32>
    %11 = maxf %a, %b propagate_nan flush_to_zero : tile<f32>
    // CHECK: minf %{{[^ ,]+}}, %{{[^ ,]+}} flush_to_zero : tile<f32>
    %12 = minf %a, %b flush_to_zero : tile<f32>
    // CHECK: minf %{{[^ ,]+}}, %{{[^ ,]+}} propagate_nan : tile<f32>
    %13 = minf %a, %b propagate_nan : tile<f32>
    // CHECK: fma %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
    %14 = fma %a, %b, %c : tile<f32>
    // CHECK: fma %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} rounding<zero> flush_to_zero : tile<f32>
    %15 = fma %a, %b, %c rounding<zero> flush_to_zero : tile<f32>
    // CHECK: cmpf equal ordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32> -> tile<i1>
    %16 = cmpf equal ordered %a, %b : tile<f32> -> tile<i1>
    // CHECK: cmpf not_equal unordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32> -> tile<i1>
    %17 = cmpf not_equal unordered %a, %b : tile<f32> -> tile<i1>
    // CHECK: cmpf less_than ordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32> -> tile<i1>
    %18 = cmpf less_than ordered %a, %b : tile<f32> -> tile<i1>
    // CHECK: cmpf less_than_or_equal unordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32> -> tile<i1>
    %19 = cmpf less_than_or_equal unordered %a, %b : tile<f32> -> tile<i1>
    // CHECK: cmpf greater_than ordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32> -> tile<i1>
    %20 = cmpf greater_than ordered %a, %b : tile<f32> -> tile<i1>
    // CHECK: cmpf greater_than_or_equal ordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32> -> tile<i1>
    %21 = cmpf greater_than_or_equal ordered %a, %b : tile<f32> -> tile<i1>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @f16_ops(
  entry @f16_ops(%a: tile<f16>) {
    // CHECK: absf %{{[^ ,]+}} : tile<f16>
    %0 = absf %a : tile<f16>
    // CHECK: addf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<zero> : tile<f16>
    %1 = addf %a, %a rounding<zero> : tile<f16>
    // CHECK: subf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f16>
    %2 = subf %a, %a : tile<f16>
    // CHECK: mulf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f16>
    %3 = mulf %a, %a : tile<f16>
    // CHECK: divf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<negative_inf> : tile<f16>
    %4 = divf %a, %a rounding<negative_inf> : tile<f16>
    // CHECK: remf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f16>
    %5 = remf %a, %a : tile<f16>
    // CHECK: negf %{{[^ ,]+}} : tile<f16>
    %6 = negf %a : tile<f16>
    // CHECK: maxf %{{[^ ,]+}}, %{{[^ ,]+}} propagate_nan : tile<f16>
    %7 = maxf %a, %a propagate_nan : tile<f16>
    // CHECK: minf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f16>
    %8 = minf %a, %a : tile<f16>
    // CHECK: fma %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} rounding<positive_inf> : tile<f16>
    %9 = fma %a, %a, %a rounding<positive_inf> : tile<f16>
    // CHECK: cmpf less_than unordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f16> -> tile<i1>
    %10 = cmpf less_than unordered %a, %a : tile<f16> -> tile<i1>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @ranked_bf16_f64(
  entry @ranked_bf16_f64() {
    // CHECK: constant <bf16: [1.000000e+00, -2.000000e+00]> : tile<2xbf16>
    %bf = constant <bf16: [1.000000e+00, -2.000000e+00]> : tile<2xbf16>
    // CHECK: addf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2xbf16>
    %0 = addf %bf, %bf : tile<2xbf16>
    // CHECK: mulf %{{[^ ,]+}}, %{{[^ ,]+}} rounding<zero> : tile<2xbf16>
    %1 = mulf %bf, %bf rounding<zero> : tile<2xbf16>
    // CHECK: maxf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2xbf16>
    %2 = maxf %bf, %bf : tile<2xbf16>
    // CHECK: fma %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2xbf16>
    %3 = fma %bf, %bf, %bf : tile<2xbf16>
    // CHECK: cmpf equal ordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2xbf16> -> tile<2xi1>
    %4 = cmpf equal ordered %bf, %bf : tile<2xbf16> -> tile<2xi1>
    // CHECK: constant <f64: 2.500000e+00> : tile<2x2xf64>
    %d = constant <f64: 2.5000000000000000> : tile<2x2xf64>
    // CHECK: subf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2x2xf64>
    %5 = subf %d, %d : tile<2x2xf64>
    // CHECK: divf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2x2xf64>
    %6 = divf %d, %d : tile<2x2xf64>
    // CHECK: remf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2x2xf64>
    %7 = remf %d, %d : tile<2x2xf64>
    // CHECK: negf %{{[^ ,]+}} : tile<2x2xf64>
    %8 = negf %d : tile<2x2xf64>
    // CHECK: absf %{{[^ ,]+}} : tile<2x2xf64>
    %9 = absf %d : tile<2x2xf64>
    // CHECK: minf %{{[^ ,]+}}, %{{[^ ,]+}} propagate_nan : tile<2x2xf64>
    %10 = minf %d, %d propagate_nan : tile<2x2xf64>
    // CHECK: cmpf greater_than unordered %{{[^ ,]+}}, %{{[^ ,]+}} : tile<2x2xf64> -> tile<2x2xi1>
    %11 = cmpf greater_than unordered %d, %d : tile<2x2xf64> -> tile<2x2xi1>
    // CHECK: return
    return
  }
}
