// Invalid floating-point arithmetic ops: element types, rounding modes, flush_to_zero.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// absf takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.absf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'}}
    %r = absf %x : tile<i32>
    return
  }
}

// -----

// addf rounding is limited to the four IEEE modes.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{custom op 'cuda_tile.addf' expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', got: 'full'}}
    %r = addf %x, %x rounding<full> : tile<f32>
    return
  }
}

// -----

// flush_to_zero is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f16>) {
    // expected-error @below {{'cuda_tile.addf' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'}}
    %r = addf %x, %x flush_to_zero : tile<f16>
    return
  }
}

// -----

// tf32 is not a BaseF type: arithmetic is not allowed on it.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<tf32>) {
    // expected-error @below {{'cuda_tile.addf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<tf32>'}}
    %r = addf %x, %x : tile<tf32>
    return
  }
}

// -----

// subf takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i16>) {
    // expected-error @below {{'cuda_tile.subf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i16>'}}
    %r = subf %x, %x : tile<i16>
    return
  }
}

// -----

// flush_to_zero is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<bf16>) {
    // expected-error @below {{'cuda_tile.mulf' op flush_to_zero modifier only supported for f32 data type, but got: 'bf16'}}
    %r = mulf %x, %x flush_to_zero : tile<bf16>
    return
  }
}

// -----

// divf approx is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f16>) {
    // expected-error @below {{'cuda_tile.divf' op approx modifier only supported for f32 data type, but got: 'f16'}}
    %r = divf %x, %x rounding<approx> : tile<f16>
    return
  }
}

// -----

// divf full is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f64>) {
    // expected-error @below {{'cuda_tile.divf' op full modifier only supported for f32 data type, but got: 'f64'}}
    %r = divf %x, %x rounding<full> : tile<f64>
    return
  }
}

// -----

// nearest_int_to_zero is not a divf rounding mode.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.divf' op invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf, approx, full]}}
    %r = divf %x, %x rounding<nearest_int_to_zero> : tile<f32>
    return
  }
}

// -----

// remf takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.remf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'}}
    %r = remf %x, %x : tile<i32>
    return
  }
}

// -----

// negf takes BaseF tiles only (fp8 is conversion/mma only).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f8E4M3FN>) {
    // expected-error @below {{'cuda_tile.negf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<f8E4M3FN>'}}
    %r = negf %x : tile<f8E4M3FN>
    return
  }
}

// -----

// flush_to_zero is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f16>) {
    // expected-error @below {{'cuda_tile.maxf' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'}}
    %r = maxf %x, %x flush_to_zero : tile<f16>
    return
  }
}

// -----

// minf takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.minf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'}}
    %r = minf %x, %x : tile<i32>
    return
  }
}

// -----

// fma rounding is limited to the four IEEE modes.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{custom op 'cuda_tile.fma' expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', got: 'approx'}}
    %r = fma %x, %x, %x rounding<approx> : tile<f32>
    return
  }
}

// -----

// fma operands must all have one type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xf32>, %y: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.fma' op failed to verify that all of {lhs, rhs, acc, result} have same type}}
    %r = "cuda_tile.fma"(%x, %x, %y) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<4xf32>, !cuda_tile.tile<4xf32>, !cuda_tile.tile<4xf16>) -> !cuda_tile.tile<4xf32>
    return
  }
}

// -----

// cmpf takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.cmpf' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'}}
    %r = cmpf equal ordered %x, %x : tile<i32> -> tile<i1>
    return
  }
}

// -----

// cmpf requires an ordering keyword.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{custom op 'cuda_tile.cmpf' expected valid keyword}}
    // expected-error @below {{custom op 'cuda_tile.cmpf' expected 'comparison_ordering' to be one of: {'ordered', 'unordered'}}}
    %r = cmpf equal %x, %x : tile<f32> -> tile<i1>
    return
  }
}

// -----

// cmpf result element type must be i1.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2xf32>) {
    // expected-error @below {{'cuda_tile.cmpf' op result #0 must be tile of i1 values, but got '!cuda_tile.tile<2xf32>'}}
    %r = cmpf less_than ordered %x, %x : tile<2xf32> -> tile<2xf32>
    return
  }
}
