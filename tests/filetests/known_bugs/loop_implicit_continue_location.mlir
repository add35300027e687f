// Known bug: when a loop with iter_values ends without an explicit continue,
// the "missing a valid terminator" error is reported at an unknown location
// instead of at the loop.
// XFAIL: *
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>, %c: tile<i1>) {
    // expected-error @below {{`loop` is missing a valid terminator}}
    %r = loop iter_values(%v = %x) : tile<i32> -> tile<i32> {
      if %c {
        break %v : tile<i32>
      }
    }
    return
  }
}
