// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  testing$func @f(%a: tile<f32>) -> tile<f32> {
    // expected-error @below {{rounding}}
    %r = addf %a, %a rounding<approx> : tile<f32>
    return %r : tile<f32>
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @g(%a: tile<f16>) -> tile<f16> {
    // expected-error @below {{flush_to_zero}}
    %r = addf %a, %a flush_to_zero : tile<f16>
    return %r : tile<f16>
  }
}
