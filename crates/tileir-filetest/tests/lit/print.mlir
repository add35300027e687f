// RUN: tileir-opt %s | FileCheck %s
// RUN: tileir-opt %s | tileir-opt | FileCheck %s --check-prefix=TWICE
// RUN: tileir-opt %s | FileCheck %s --check-prefix=FULL --match-full-lines

func @add {
  %0 = addf %a, %b   // a trailing comment
  return %0
}

// CHECK-LABEL: module {
// CHECK: func @add {
// CHECK-NEXT: %[[SUM:.*]] = addf %a,   %b
// CHECK-NEXT: return %[[SUM]]
// CHECK-NOT: comment
// CHECK: }

// COM: the second run wraps the module once more.
// TWICE: module {
// TWICE-NEXT: module {

// FULL: func @add {
// FULL-NEXT: %0 = addf %a, %b
