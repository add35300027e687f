// The bytecode writer refuses what the format cannot hold: name and fused locations
// (also inside call sites), types of other dialects, and ops of other dialects
// (reported at the module, with a remark at the op).
// RUN: not tileir-translate -mlir-to-cudatilebc -split-input-file %s -o %t.bc 2>&1 | FileCheck %s
// RUN: tileir-translate -mlir-to-cudatilebc -split-input-file -verify-diagnostics -allow-unregistered-dialect %S/Inputs/foreign_op.mlir -o %t2.bc

// CHECK: unsupported location, got NameLoc, expected DILocAttr or CallSiteLoc
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <i32: 1> : tile<i32> loc("n"("a.py":1:1))
    return
  }
}

// -----

// CHECK: unsupported location, got FusedLoc, expected DILocAttr or CallSiteLoc
cuda_tile.module @kernels {
  entry @k() {
    return loc(callsite(fused["a.py":1:1, "a.py":2:2] at "a.py":3:3))
  }
}

// -----

// CHECK: unsupported type in bytecode writer
cuda_tile.module @kernels {
  entry @k(%x: tensor<2xi16>) {
    return
  }
}
