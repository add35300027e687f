// With -Wunsupported-hints, invalid hint parameters are warnings; with
// -Werr-hints added they also fail verification.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics -Wunsupported-hints
// RUN: not tileir-opt %s -split-input-file -Wunsupported-hints -Werr-hints 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: warning: expected power-of-two ≤ 16 for sm_100.num_cta_in_cga
// ERR-NEXT: {{.*}} error: 'cuda_tile.entry' op Optimization hints verification failed
// ERR: warning: bogus is not known hint for current Operation
// ERR-NEXT: {{.*}} error: 'cuda_tile.entry' op Optimization hints verification failed
// ERR: warning: expected 1 for sm_80.num_cta_in_cga
// ERR-NEXT: {{.*}} error: 'cuda_tile.entry' op Optimization hints verification failed
// ERR: warning: integer value expected for sm_100.num_cta_in_cga
// ERR-NEXT: {{.*}} error: 'cuda_tile.entry' op Optimization hints verification failed
// ERR: warning: integer value in the range [1, 32] is expected for sm_100.occupancy
// ERR-NEXT: {{.*}} error: 'cuda_tile.entry' op Optimization hints verification failed
// ERR: warning: integer value in the range [1, 10] is expected for sm_100.latency
// ERR-NEXT: {{.*}} error: 'cuda_tile.load_ptr_tko' op Optimization hints verification failed
// ERR: warning: allow_tma is not known hint for current Operation
// ERR-NEXT: {{.*}} error: 'cuda_tile.load_ptr_tko' op Optimization hints verification failed

cuda_tile.module @kernels {
  // expected-warning @below {{expected power-of-two ≤ 16 for sm_100.num_cta_in_cga}}
  entry @k() optimization_hints=<sm_100 = {num_cta_in_cga = 3}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-warning @below {{bogus is not known hint for current Operation}}
  entry @k() optimization_hints=<sm_100 = {bogus = 1}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-warning @below {{expected 1 for sm_80.num_cta_in_cga}}
  entry @k() optimization_hints=<sm_80 = {num_cta_in_cga = 2}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-warning @below {{integer value expected for sm_100.num_cta_in_cga}}
  entry @k() optimization_hints=<sm_100 = {num_cta_in_cga = "two"}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-warning @below {{integer value in the range [1, 32] is expected for sm_100.occupancy}}
  entry @k() optimization_hints=<sm_100 = {occupancy = 64}> {
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    // expected-warning @below {{integer value in the range [1, 10] is expected for sm_100.latency}}
    %v, %t = load_ptr_tko weak %p optimization_hints = <sm_100 = {latency = 11}> : tile<ptr<f32>> -> tile<f32>, token
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    // expected-warning @below {{allow_tma is not known hint for current Operation}}
    %v, %t = load_ptr_tko weak %p optimization_hints = <sm_100 = {allow_tma = true}> : tile<ptr<f32>> -> tile<f32>, token
    return
  }
}
