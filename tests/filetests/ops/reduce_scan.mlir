// reduce and scan: single and multiple operands, integer and float
// identities, reverse scans, and the block signature printing.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @reductions(
  entry @reductions() {
    // CHECK: constant <f32: 1.000000e+00> : tile<8xf32>
    %f = constant <f32: 1.000000e+00> : tile<8xf32>
    // CHECK: reduce %{{[^ ,]+}} dim=0 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
    %0 = reduce %f dim=0 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
    // CHECK: (%{{[^ ,]+}}: tile<f32>, %{{[^ ,]+}}: tile<f32>)
    (%a: tile<f32>, %acc: tile<f32>) {
      // CHECK: addf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
      %s = addf %a, %acc : tile<f32>
      // CHECK: yield %{{[^ ,]+}} : tile<f32>
      yield %s : tile<f32>
    }
    // CHECK: constant <i32: 1> : tile<4x8xi32>
    %i = constant <i32: 1> : tile<4x8xi32>
    // CHECK: constant <f32: 2.000000e+00> : tile<4x8xf32>
    %g = constant <f32: 2.000000e+00> : tile<4x8xf32>
    // CHECK: reduce %{{[^ ,]+}}, %{{[^ ,]+}} dim=1 identities=[0 : i32, 1.000000e+00 : f32] : tile<4x8xi32>, tile<4x8xf32> -> tile<4xi32>, tile<4xf32>
    %1:2 = reduce %i, %g dim=1 identities=[0 : i32, 1.000000e+00 : f32] : tile<4x8xi32>, tile<4x8xf32> -> tile<4xi32>, tile<4xf32>
    // CHECK: (%{{[^ ,]+}}: tile<i32>, %{{[^ ,]+}}: tile<i32>, %{{[^ ,]+}}: tile<f32>, %{{[^ ,]+}}: tile<f32>)
    (%x0: tile<i32>, %a0: tile<i32>, %x1: tile<f32>, %a1: tile<f32>) {
      // CHECK: maxi %{{[^ ,]+}}, %{{[^ ,]+}} signed : tile<i32>
      %s0 = maxi %x0, %a0 signed : tile<i32>
      // CHECK: mulf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
      %s1 = mulf %x1, %a1 : tile<f32>
      // CHECK: yield %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i32>, tile<f32>
      yield %s0, %s1 : tile<i32>, tile<f32>
    }
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @scans(
  entry @scans() {
    // CHECK: constant <f16: 1.000000e+00> : tile<8x16xf16>
    %f = constant <f16: 1.000000e+00> : tile<8x16xf16>
    // CHECK: scan %{{[^ ,]+}} dim=1 reverse=false identities=[0.000000e+00 : f16] : tile<8x16xf16> -> tile<8x16xf16>
    %0 = scan %f dim=1 reverse=false identities=[0.000000e+00 : f16] : tile<8x16xf16> -> tile<8x16xf16>
    // CHECK: (%{{[^ ,]+}}: tile<f16>, %{{[^ ,]+}}: tile<f16>)
    (%a: tile<f16>, %acc: tile<f16>) {
      // CHECK: addf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f16>
      %s = addf %a, %acc : tile<f16>
      // CHECK: yield %{{[^ ,]+}} : tile<f16>
      yield %s : tile<f16>
    }
    // CHECK: constant <i64: 3> : tile<32xi64>
    %i = constant <i64: 3> : tile<32xi64>
    // CHECK: scan %{{[^ ,]+}} dim=0 reverse=true identities=[1 : i64] : tile<32xi64> -> tile<32xi64>
    %1 = scan %i dim=0 reverse=true identities=[1 : i64] : tile<32xi64> -> tile<32xi64>
    // CHECK: (%{{[^ ,]+}}: tile<i64>, %{{[^ ,]+}}: tile<i64>)
    (%a: tile<i64>, %acc: tile<i64>) {
      // CHECK: muli %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i64>
      %m = muli %a, %acc : tile<i64>
      // CHECK: yield %{{[^ ,]+}} : tile<i64>
      yield %m : tile<i64>
    }
    // CHECK: return
    return
  }
}
