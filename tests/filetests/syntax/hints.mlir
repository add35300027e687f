// Optimization hints on entry and on memory ops: printing, the 'default' key,
// empty hints dropped. (Invalid parameters are parse errors, see
// hints_invalid.mlir, or verifier warnings with -Wunsupported-hints, see
// hints_warn.mlir.)
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @cga() optimization_hints=<default = {num_worker_warps_per_cta = 8}, sm_100 = {num_cta_in_cga = 2}, sm_90 = {num_cta_in_cga = 4, occupancy = 2}> {
  entry @cga() optimization_hints=<default = {num_worker_warps_per_cta = 8}, sm_100 = {num_cta_in_cga = 2}, sm_90 = {num_cta_in_cga = 4, occupancy = 2}> {
    // CHECK: return
    return
  }
  // Empty hints are dropped by the printer.
  // CHECK-LABEL: entry @empty() {
  entry @empty() optimization_hints=<> {
    // CHECK: return
    return
  }
  // CHECK-LABEL: entry @memory
  entry @memory(%p: tile<ptr<f32>>) {
    // CHECK: load_ptr_tko weak %{{[^ ,]+}} optimization_hints = <default = {latency = 1}, sm_100 = {latency = 5}> : tile<ptr<f32>> -> tile<f32>, token
    %v, %t = load_ptr_tko weak %p optimization_hints = <default = {latency = 1}, sm_100 = {latency = 5}> : tile<ptr<f32>> -> tile<f32>, token
    // CHECK: store_ptr_tko weak %{{[^ ,]+}}, %{{[^ ,]+}} optimization_hints = <sm_80 = {latency = 10}> : tile<ptr<f32>>, tile<f32> -> token
    %t2 = store_ptr_tko weak %p, %v optimization_hints = <sm_80 = {latency = 10}> : tile<ptr<f32>>, tile<f32> -> token
    // CHECK: return
    return
  }
}
