// Decimal float literals too large for the element type round as MLIR's parser
// rounds them (to nearest even): to infinity, or to NaN for formats without
// infinities (f8E4M3FN); they are not errors. A hexadecimal bit pattern wider
// than the type is an error.
// RUN: not tileir-opt %s -split-input-file 2>/dev/null | FileCheck %s
// RUN: not tileir-opt %s -split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: hexadecimal float constant out of range for type

// CHECK-LABEL: testing$func @round
cuda_tile.module @kernels {
  testing$func @round() {
    // CHECK: constant <f16: 0x7C00> : tile<f16>
    %a = constant <f16: 1.0e+10> : tile<f16>
    // CHECK: constant <bf16: 0xFF80> : tile<bf16>
    %b = constant <bf16: -3.5e+38> : tile<bf16>
    // CHECK: constant <f8E5M2: 0x7C> : tile<f8E5M2>
    %c = constant <f8E5M2: 1.0e+6> : tile<f8E5M2>
    // CHECK: constant <f8E4M3FN: 0x7F> : tile<f8E4M3FN>
    %d = constant <f8E4M3FN: 1000.0> : tile<f8E4M3FN>
    // CHECK: constant <f8E4M3FN: 0xFF> : tile<f8E4M3FN>
    %e = constant <f8E4M3FN: -1000.0> : tile<f8E4M3FN>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @wide() {
    %a = constant <f16: 0x10000> : tile<f16>
    return
  }
}
