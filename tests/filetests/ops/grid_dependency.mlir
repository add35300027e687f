// The two 13.4 programmatic-dependent-launch ops, gdc_wait_tko and
// gdc_launch_dependents_tko: custom and generic forms, and bytecode, which
// needs version 13.4 and is refused at 13.3 with the op's name.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: tileir-translate -mlir-to-cudatilebc -no-implicit-module -bytecode-version=13.4 %s -o %t.bc
// RUN: tileir-translate -cudatilebc-to-mlir %t.bc | FileCheck %s
// RUN: not tileir-translate -mlir-to-cudatilebc -no-implicit-module -bytecode-version=13.3 %s -o %t.old.bc 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: 'cuda_tile.gdc_wait_tko' is not available in bytecode version 13.3

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @pdl(
  entry @pdl(%p: tile<ptr<f32>>) {
    // CHECK: %[[W:.+]] = gdc_wait_tko -> token
    %w = gdc_wait_tko -> token
    // CHECK: load_ptr_tko weak %{{.+}} token=%[[W]]
    %x, %t = load_ptr_tko weak %p token = %w : tile<ptr<f32>> -> tile<f32>, token
    // CHECK: %[[S:.+]] = store_ptr_tko weak
    %s = store_ptr_tko weak %p, %x token = %t : tile<ptr<f32>>, tile<f32> -> token
    // CHECK: gdc_launch_dependents_tko token=%[[S]] -> token
    %l = gdc_launch_dependents_tko token = %s -> token
    // CHECK: gdc_wait_tko token=%[[S]] -> token
    %w2 = gdc_wait_tko token = %s -> token
    return
  }
}
