// Known bug: make_tensor_view's shape/stride entry checks do not use the
// reference wording ("expected shape declaration to contain N elements due to
// tensor_view type, but M were provided", "input shape dimension I does not
// match tensor_view type (expected X, got dynamic)"); tileir says "expected 2
// stride entries, got 1" / "shape entries do not match the result type". A
// tensor_view type whose shape and strides differ in length is reported as an
// entry-count mismatch instead of an invalid type.
// XFAIL: *
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    // expected-error @below {{expected stride declaration to contain 2 elements due to tensor_view type, but 1 were provided}}
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128] : tensor_view<64x128xf32, strides=[128,1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>, %n: tile<i64>) {
    // expected-error @below {{input shape dimension 0 does not match tensor_view type (expected 64, got dynamic)}}
    %tv = make_tensor_view %p, shape = [%n, 128], strides = [128, 1] : tile<i64> -> tensor_view<64x128xf32, strides=[128,1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    // expected-error @below {{expected shape and stride to be of same rank but got shape of rank 1 and stride of rank 2}}
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1, 1]>
    return
  }
}
