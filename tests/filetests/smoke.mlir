// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK: entry @k(%[[X:.*]]: tile<f32>)
  entry @k(%x: tile<f32>) {
    // CHECK: addf %[[X]], %[[X]] rounding<zero> flush_to_zero : tile<f32>
    %a = addf %x, %x rounding<zero> flush_to_zero : tile<f32>
    // CHECK: return
    return
  }
}
