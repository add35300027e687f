// Structural hint errors are hard errors even without -Wunsupported-hints:
// unknown architecture keys and non-dictionary values.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  // expected-error @below {{custom op 'cuda_tile.entry' unallowed key sm_100a}}
  entry @k() optimization_hints=<sm_100a = {num_cta_in_cga = 2}> {
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
