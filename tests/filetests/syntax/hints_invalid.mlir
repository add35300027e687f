// Structural hint errors (unknown architecture keys, non-dictionary values) are
// parse errors. Without -Wunsupported-hints the parameters are checked while
// parsing too, as NVIDIA's 13.1 parser does: an unknown parameter or a bad
// value is a parse error (with the flag they are verifier warnings, see
// hints_warn.mlir).
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

// -----

cuda_tile.module @kernels {
  // expected-error @below {{custom op 'cuda_tile.entry' unknown param cluster_size for default}}
  entry @k() optimization_hints=<default = {cluster_size = 4}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{custom op 'cuda_tile.entry' expected power-of-two ≤ 16 for sm_90.num_cta_in_cga}}
  entry @k() optimization_hints=<sm_100 = {num_cta_in_cga = 4}, sm_90 = {num_cta_in_cga = 32}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{custom op 'cuda_tile.entry' integer value expected for sm_120.occupancy}}
  entry @k() optimization_hints=<sm_120 = {occupancy = 2.5}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{custom op 'cuda_tile.entry' integer value in the range [1, 32] is expected for sm_100.occupancy}}
  entry @k() optimization_hints=<sm_100 = {occupancy = 0}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{custom op 'cuda_tile.entry' expected power-of-two ≤ 32 for default.num_worker_warps_per_cta}}
  entry @k() optimization_hints=<default = {num_worker_warps_per_cta = 12}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    // expected-error @below {{custom op 'cuda_tile.load_ptr_tko' integer value in the range [1, 10] is expected for sm_100.latency}}
    %v, %t = load_ptr_tko weak %p optimization_hints = <sm_100 = {latency = 11}> : tile<ptr<f32>> -> tile<f32>, token
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    // expected-error @below {{custom op 'cuda_tile.store_ptr_tko' boolean value expected for sm_100.allow_tma}}
    %t = store_ptr_tko weak %p, %p optimization_hints = <sm_100 = {allow_tma = 1}> : tile<ptr<f32>>, tile<ptr<f32>> -> token
    return
  }
}

// -----

// The generic form spells the same attribute, with the same checks.
cuda_tile.module @kernels {
  // expected-error @below {{expected power-of-two ≤ 16 for sm_100.num_cta_in_cga}}
  "cuda_tile.entry"() <{function_type = () -> (), optimization_hints = #cuda_tile.optimization_hints<sm_100 = {num_cta_in_cga = 6}>, sym_name = "k"}> ({
    "cuda_tile.return"() : () -> ()
  }) : () -> ()
}
