// Without -Wunsupported-hints, hints are kept as written and nothing is reported
// (NVIDIA 13.3): unknown architecture keys (also as strings), unknown parameters and
// out-of-range values survive a round trip unchanged.
// RUN: tileir-opt %s | FileCheck %s
// RUN: tileir-opt %s -Wunsupported-hints 2>&1 | FileCheck %s --check-prefix=WARN

cuda_tile.module @kernels {
  // CHECK: entry @unknown_key() optimization_hints=<sm_100a = {num_cta_in_cga = 2}, "sm 9" = {x = 1}>
  // WARN: warning: unknown hint key sm_100a
  entry @unknown_key() optimization_hints=<sm_100a={num_cta_in_cga=2}, "sm 9"={x=1}> {
    return
  }
  // CHECK: entry @bad_values() optimization_hints=<sm_100 = {num_cta_in_cga = 7, num_qqq = 1}>
  // WARN: warning: expected power-of-two ≤ 16 for sm_100.num_cta_in_cga
  entry @bad_values() optimization_hints=<sm_100={num_cta_in_cga=7, num_qqq=1}> {
    return
  }
}
