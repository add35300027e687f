// Invalid conversion ops: width rules, shapes, rounding restrictions, pointer casts.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// bitcast needs equal bit widths.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.bitcast' op types must be equal width, cannot convert '!cuda_tile.tile<i32>' of width 32 to type '!cuda_tile.tile<f16>' of width 16}}
    %r = bitcast %x : tile<i32> -> tile<f16>
    return
  }
}

// -----

// pointers must use ptr_to_int, not bitcast.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<ptr<f32>>) {
    // expected-error @below {{'cuda_tile.bitcast' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<ptr<f32>>'}}
    %r = bitcast %x : tile<ptr<f32>> -> tile<i64>
    return
  }
}

// -----

// bitcast keeps the shape.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.bitcast' op failed to verify that all of {source, result} have same shape}}
    %r = bitcast %x : tile<4xi32> -> tile<2xf32>
    return
  }
}

// -----

// exti must widen.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.exti' op extending to smaller or identical integer}}
    %r = exti %x signed : tile<i32> -> tile<i16>
    return
  }
}

// -----

// exti to the same width is rejected.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.exti' op extending to smaller or identical integer}}
    %r = exti %x signed : tile<i32> -> tile<i32>
    return
  }
}

// -----

// exti keeps the shape.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi8>) {
    // expected-error @below {{'cuda_tile.exti' op failed to verify that all of {from, to} have same shape}}
    %r = exti %x unsigned : tile<4xi8> -> tile<2xi32>
    return
  }
}

// -----

// trunci must narrow.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i8>) {
    // expected-error @below {{'cuda_tile.trunci' op truncating to larger or identical integer}}
    %r = trunci %x : tile<i8> -> tile<i16>
    return
  }
}

// -----

// trunci takes integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.trunci' op operand #0 must be tile of i1 or i4 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = trunci %x : tile<f32> -> tile<f16>
    return
  }
}

// -----

// ftof needs different source and result types.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.ftof' op converting tiles must not be a no-op}}
    %r = ftof %x : tile<f32> -> tile<f32>
    return
  }
}

// -----

// ftof to f8E8M0FNU needs rounding<zero> or rounding<positive_inf>.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.ftof' op invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and 'positive_inf' are supported}}
    %r = ftof %x : tile<f32> -> tile<f8E8M0FNU>
    return
  }
}

// -----

// ftof to anything but f8E8M0FNU only rounds to nearest_even.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.ftof' op invalid rounding mode specified. Only 'nearest_even' is supported}}
    %r = ftof %x rounding<zero> : tile<f32> -> tile<f16>
    return
  }
}

// -----

// ftof takes float tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.ftof' op operand #0 must be tile of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<i32>'}}
    %r = ftof %x : tile<i32> -> tile<f32>
    return
  }
}

// -----

// ftoi source must be a float tile.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.ftoi' op operand #0 must be tile of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<i32>'}}
    %r = ftoi %x signed : tile<i32> -> tile<i16>
    return
  }
}

// -----

// ftoi only supports nearest_int_to_zero rounding.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.ftoi' op invalid rounding mode specified. Only 'nearest_int_to_zero' is supported}}
    %r = "cuda_tile.ftoi"(%x) <{signedness = #cuda_tile.signedness<signed>, rounding_mode = #cuda_tile.rounding<zero>}> : (!cuda_tile.tile<f32>) -> !cuda_tile.tile<i32>
    return
  }
}

// -----

// itof to f8E8M0FNU is rejected.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.itof' op integer to f8E8M0FNU conversion is not supported, please first convert to another float type}}
    %r = itof %x signed : tile<i32> -> tile<f8E8M0FNU>
    return
  }
}

// -----

// itof source must be an integer tile.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.itof' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %r = itof %x signed : tile<f32> -> tile<f16>
    return
  }
}

// -----

// int_to_ptr takes i64 only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.int_to_ptr' op operand #0 must be tile of i64 values, but got '!cuda_tile.tile<i32>'}}
    %r = int_to_ptr %x : tile<i32> -> tile<ptr<f32>>
    return
  }
}

// -----

// ptr_to_int produces i64 only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<ptr<f32>>) {
    // expected-error @below {{'cuda_tile.ptr_to_int' op result #0 must be tile of i64 values, but got '!cuda_tile.tile<i32>'}}
    %r = ptr_to_int %x : tile<ptr<f32>> -> tile<i32>
    return
  }
}

// -----

// ptr_to_ptr takes pointer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i64>) {
    // expected-error @below {{'cuda_tile.ptr_to_ptr' op operand #0 must be tile of Pointer type values, but got '!cuda_tile.tile<i64>'}}
    %r = ptr_to_ptr %x : tile<i64> -> tile<ptr<f32>>
    return
  }
}

// -----

// In custom syntax, ftoi's parser only takes nearest_int_to_zero.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xf16>) {
    // expected-error @below {{custom op 'cuda_tile.ftoi' expected rounding mode to be one of: 'nearest_int_to_zero', got: 'zero'}}
    %r = ftoi %x signed rounding<zero> : tile<4xf16> -> tile<4xi16>
    return
  }
}

// -----

// itof's parser takes the IEEE modes only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi16>) {
    // expected-error @below {{custom op 'cuda_tile.itof' expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', got: 'approx'}}
    %r = itof %x signed rounding<approx> : tile<4xi16> -> tile<4xf16>
    return
  }
}
