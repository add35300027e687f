// Known bug: a 0-d tensor_view with a strides clause is rejected with a bare
// "expected '>'" instead of the reference's "strides must not be provided for
// 0-d tiles".
// XFAIL: *
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  // expected-error @below {{strides must not be provided for 0-d tiles}}
  testing$func @f(%x: tensor_view<f32, strides=[1]>) {
    return
  }
}
