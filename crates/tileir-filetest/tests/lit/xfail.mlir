// XFAIL: *
// RUN: tileir-opt %s | FileCheck %s
op
// CHECK: something that is not printed
