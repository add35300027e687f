// Known bug: when cat's rhs (not the result) disagrees on a non-concat
// dimension, tileir reports "expected: 2 but got: 2" (it compares with the
// result) instead of naming the offending rhs size 4.
// XFAIL: *
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>, %y: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op expect {lhs, rhs, and result} shape to match at non-concat position 0, expected: 2 but got: 4}}
    %r = cat %x, %y dim = 1 : tile<2x4xf32>, tile<4x4xf32> -> tile<2x8xf32>
    return
  }
}
