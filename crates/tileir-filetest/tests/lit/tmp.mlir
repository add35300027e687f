// RUN: tileir-opt %s > %t
// RUN: FileCheck %s --input-file %t
// RUN: cat %S/Inputs/data.txt | FileCheck %s --check-prefix=DATA
// RUN: tileir-opt %s \
// RUN:   | FileCheck %s
only_op
// CHECK: only_op
// DATA: fixture data
