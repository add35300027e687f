// Known bug: print_tko's '-> token' result type is mandatory in the reference
// syntax (the dialect reference lists the README example without it as a doc
// error), but tileir's parser accepts it when it is missing.
// XFAIL: *
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{expected '->'}}
    print_tko "hi"
    return
  }
}
