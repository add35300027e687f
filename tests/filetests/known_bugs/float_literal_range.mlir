// Known bug (per the dialect reference, §5.6): a decimal float literal that is
// not representable in the element type must be rejected with "float constant
// out of range for type"; tileir silently rounds it to +inf / NaN.
// XFAIL: *
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{float constant out of range for type}}
    %c = constant <f16: 1.0e+10> : tile<f16>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{float constant out of range for type}}
    %c = constant <f8E4M3FN: 1000.0> : tile<f8E4M3FN>
    return
  }
}
