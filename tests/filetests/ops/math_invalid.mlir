// Invalid math ops: element types and rounding/flush_to_zero restrictions.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// ceil takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.ceil' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'}}
    %r = ceil %x : tile<i32>
    return
  }
}

// -----

// floor takes BaseF tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<tf32>) {
    // expected-error @below {{'cuda_tile.floor' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<tf32>'}}
    %r = floor %x : tile<tf32>
    return
  }
}

// -----

// cos takes BaseF tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f8E5M2>) {
    // expected-error @below {{'cuda_tile.cos' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<f8E5M2>'}}
    %r = cos %x : tile<f8E5M2>
    return
  }
}

// -----

// cosh takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i8>) {
    // expected-error @below {{'cuda_tile.cosh' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i8>'}}
    %r = cosh %x : tile<i8>
    return
  }
}

// -----

// sin takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i64>) {
    // expected-error @below {{'cuda_tile.sin' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i64>'}}
    %r = sin %x : tile<i64>
    return
  }
}

// -----

// sinh takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<ptr<f32>>) {
    // expected-error @below {{'cuda_tile.sinh' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<ptr<f32>>'}}
    %r = sinh %x : tile<ptr<f32>>
    return
  }
}

// -----

// tan takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i1>) {
    // expected-error @below {{'cuda_tile.tan' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i1>'}}
    %r = tan %x : tile<i1>
    return
  }
}

// -----

// tanh approx is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f16>) {
    // expected-error @below {{'cuda_tile.tanh' op approx modifier only supported for f32 data type, but got: 'f16'}}
    %r = tanh %x rounding<approx> : tile<f16>
    return
  }
}

// -----

// tanh rounding is approx or full (the reference emits this error without failing; we must fail).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.tanh' op invalid rounding mode specified, expect one of [approx, full]}}
    %r = tanh %x rounding<zero> : tile<f32>
    return
  }
}

// -----

// exp approx is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f64>) {
    // expected-error @below {{'cuda_tile.exp' op approx modifier only supported for f32 data type, but got: 'f64'}}
    %r = exp %x rounding<approx> : tile<f64>
    return
  }
}

// -----

// exp rounding is approx or full.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.exp' op invalid rounding mode specified, expect one of [approx, full]}}
    %r = exp %x rounding<nearest_even> : tile<f32>
    return
  }
}

// -----

// flush_to_zero is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f16>) {
    // expected-error @below {{'cuda_tile.exp2' op flush_to_zero modifier only supported for f32 data type, but got: 'f16'}}
    %r = exp2 %x flush_to_zero : tile<f16>
    return
  }
}

// -----

// log takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.log' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'}}
    %r = log %x : tile<i32>
    return
  }
}

// -----

// log2 takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i16>) {
    // expected-error @below {{'cuda_tile.log2' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i16>'}}
    %r = log2 %x : tile<i16>
    return
  }
}

// -----

// pow source and exponent must have one type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xf32>, %y: tile<4xf64>) {
    // expected-error @below {{'cuda_tile.pow' op failed to verify that all of {source, exponent, result} have same type}}
    %r = "cuda_tile.pow"(%x, %y) : (!cuda_tile.tile<4xf32>, !cuda_tile.tile<4xf64>) -> !cuda_tile.tile<4xf32>
    return
  }
}

// -----

// sqrt does not accept 'full'.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{custom op 'cuda_tile.sqrt' expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', 'approx', got: 'full'}}
    %r = sqrt %x rounding<full> : tile<f32>
    return
  }
}

// -----

// sqrt approx is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f16>) {
    // expected-error @below {{'cuda_tile.sqrt' op approx modifier only supported for f32 data type, but got: 'f16'}}
    %r = sqrt %x rounding<approx> : tile<f16>
    return
  }
}

// -----

// flush_to_zero is f32-only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f64>) {
    // expected-error @below {{'cuda_tile.rsqrt' op flush_to_zero modifier only supported for f32 data type, but got: 'f64'}}
    %r = rsqrt %x flush_to_zero : tile<f64>
    return
  }
}

// -----

// atan2 takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.atan2' op operand #0 must be tile of f16 or bf16 or f32 or f64 values, but got '!cuda_tile.tile<i32>'}}
    %r = atan2 %x, %x : tile<i32>
    return
  }
}
