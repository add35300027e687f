// Invalid uses of the 13.4 gdc_* ops: a non-token input, a non-token result,
// too many operands in the generic form.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

cuda_tile.module @kernels {
  // expected-note @below {{prior use here}}
  entry @a(%p: tile<i32>) {
    // expected-error @below {{use of value '%p' expects different type than prior uses: '!cuda_tile.token' vs '!cuda_tile.tile<i32>'}}
    %w = gdc_wait_tko token=%p -> token
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @b() {
    // expected-error @below {{'cuda_tile.gdc_launch_dependents_tko' op result #0 must be cuda tile token type, but got '!cuda_tile.tile<i32>'}}
    %l = gdc_launch_dependents_tko -> tile<i32>
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @c() {
    %t = make_token : token
    // expected-error @below {{'cuda_tile.gdc_wait_tko' op expected at most 1 operand, but found 2}}
    %w = "cuda_tile.gdc_wait_tko"(%t, %t) : (!cuda_tile.token, !cuda_tile.token) -> !cuda_tile.token
    return
  }
}
