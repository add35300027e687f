// RUN: tileir-opt %s -split-input-file | FileCheck %s
a1
// CHECK-LABEL: module {
// CHECK-NEXT: a1
// CHECK-NEXT: }
// CHECK-NEXT: {{//}} -----

// -----
b1
b2
// CHECK: module {
// CHECK-DAG: b2
// CHECK-DAG: b1
// CHECK-NEXT: }
