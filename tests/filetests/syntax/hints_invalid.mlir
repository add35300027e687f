// Structural hint errors are parse errors: a key must be a keyword or a string, and
// each value a dictionary. Unknown keys and parameters, and bad values, are kept as
// written (NVIDIA 13.3): see hints_default.mlir, and hints_warn.mlir for the warnings
// -Wunsupported-hints gives them.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  // expected-error @below {{expected valid keyword or string}}
  entry @k() optimization_hints=<2> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{custom op 'cuda_tile.entry' expected dictionary attribute for optimization_hints entry `sm_100` got value=2 : i64}}
  entry @k() optimization_hints=<sm_100 = 2> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    // expected-error @below {{custom op 'cuda_tile.load_ptr_tko' expected dictionary attribute for optimization_hints entry `sm_90` got value=[1 : i64]}}
    %v, %t = load_ptr_tko weak %p optimization_hints = <sm_90 = [1]> : tile<ptr<f32>> -> tile<f32>, token
    return
  }
}
