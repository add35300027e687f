// Parser and verifier behaviour taken from NVIDIA's 13.3 suite (our own cases).
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// View ops read their ordering and scope with NVIDIA's directive: a bad word is named.
cuda_tile.module @kernels {
  testing$func @f(%v: tile<4xf32>, %pv: partition_view<tile=(4), tensor_view<64xf32, strides=[1]>>) {
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{invalid memory_ordering_semantics attribute specification. Got "strong" but expect one of: weak, relaxed, acquire, release, acq_rel}}
    %t = store_view_tko strong %v, %pv[%i] : tile<4xf32>, partition_view<tile=(4), tensor_view<64xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%pv: partition_view<tile=(4), tensor_view<64xf32, strides=[1]>>) {
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{invalid memory_scope attribute specification. Got "cluster" but expect one of: tl_blk, device, sys}}
    %x, %t = load_view_tko acquire cluster %pv[%i] : partition_view<tile=(4), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<4xf32>, token
    return
  }
}

// -----

// Pointer ops leave a non-scope word after `weak` to the operand list.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>) {
    // expected-error @below {{expected SSA operand}}
    %x, %t = load_ptr_tko weak cluster %p : tile<4xptr<f32>> -> tile<4xf32>, token
    return
  }
}

// -----

// permute's ODS predicates come before its own checks.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op failed to verify that all of {source, result} have same rank}}
    %y = permute %x [1, 0] : tile<2x4xf32> -> tile<4x2x1xf32>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op failed to verify that all of {source, result} have the same element type}}
    %y = permute %x [1, 0] : tile<2x4xf32> -> tile<4x2xf16>
    return
  }
}

// -----

// Elements are checked before the element count: an integer is no float.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{unexpected decimal integer literal for a floating point value}}
    // expected-note @below {{add a trailing dot to make the literal a float}}
    %c = constant <f32: [1.0, 2, 3.0]> : tile<2xf32>
    return
  }
}

// -----

// A full type where the element type goes is named.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{expect element type to be one of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<f32>'}}
    %c = constant <tile<f32> : 1.0> : tile<f32>
    return
  }
}

// -----

// An odd number of f4E2M1FN elements is reported before the power-of-two rule.
// expected-error @below {{F4E2M1FN tiles must have an even number of elements}}
cuda_tile.testing$func @f(%x: tile<3xf4E2M1FN>) {
  return
}

// -----

// A failing `!cuda_tile.` type reports only its own error.
cuda_tile.module @kernels {
  // expected-error @below {{expected static shape}}
  testing$func @f(%x: !cuda_tile.tile<?x4xf32>) {
  }
}

// -----

// Debug-info structs have required parameters: `<>` lacks a name.
// expected-error @below {{expected a parameter name in struct}}
#cu = #cuda_tile.di_compile_unit<>
