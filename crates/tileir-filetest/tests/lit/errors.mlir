// RUN: not tileir-opt %s 2>&1 | FileCheck %s
// RUN: not tileir-opt %s -bogus-flag

// CHECK: errors.mlir:[[@LINE+2]]:5: error: 'x = bad' op is invalid
// CHECK-NEXT: errors.mlir:[[@LINE+1]]:5: note: see current operation
x = bad
