// Invalid matrix multiply-accumulate ops.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// bf16 inputs accumulate in f32 only.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<4x8xbf16>, %b: tile<8x4xbf16>, %c: tile<4x4xf16>) {
    // expected-error @below {{'cuda_tile.mmaf' op unsupported combination of element types. Input type 'bf16' expects accumulator/result type to be one of {'f32'}, but got 'f16'}}
    %r = mmaf %a, %b, %c : tile<4x8xbf16>, tile<8x4xbf16>, tile<4x4xf16>
    return
  }
}

// -----

// f16 inputs accumulate in f16 or f32.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<4x8xf16>, %b: tile<8x4xf16>, %c: tile<4x4xf64>) {
    // expected-error @below {{'cuda_tile.mmaf' op unsupported combination of element types. Input type 'f16' expects accumulator/result type to be one of {'f16', 'f32'}, but got 'f64'}}
    %r = mmaf %a, %b, %c : tile<4x8xf16>, tile<8x4xf16>, tile<4x4xf64>
    return
  }
}

// -----

// K of lhs and rhs must agree.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<4x8xf16>, %b: tile<4x4xf16>, %c: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op shape error: dim 1 of lhs (8) and dim 0 of rhs (4) must match, but got lhs shape (4, 8) and rhs shape (4, 4)}}
    %r = mmaf %a, %b, %c : tile<4x8xf16>, tile<4x4xf16>, tile<4x4xf32>
    return
  }
}

// -----

// mmaf operands must share one rank.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<2x4x8xf16>, %b: tile<8x4xf16>, %c: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op failed to verify that all of {lhs, rhs, acc} have same rank}}
    %r = mmaf %a, %b, %c : tile<2x4x8xf16>, tile<8x4xf16>, tile<4x4xf32>
    return
  }
}

// -----

// lhs and rhs must have one element type.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<4x8xf16>, %b: tile<8x4xbf16>, %c: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op failed to verify that all of {lhs, rhs} have the same element type}}
    %r = mmaf %a, %b, %c : tile<4x8xf16>, tile<8x4xbf16>, tile<4x4xf32>
    return
  }
}

// -----

// mmaf needs rank 2 or 3.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<8xf16>, %b: tile<8xf16>, %c: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op operands must be 2D or 3D tiles}}
    %r = mmaf %a, %b, %c : tile<8xf16>, tile<8xf16>, tile<8xf32>
    return
  }
}

// -----

// mmai inputs are i8.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<4x8xi16>, %b: tile<8x4xi16>, %c: tile<4x4xi32>) {
    // expected-error @below {{'cuda_tile.mmai' op operand #0 must be mmai operand tile type of i8 values, but got '!cuda_tile.tile<4x8xi16>'}}
    %r = mmai %a, %b, %c signed signed : tile<4x8xi16>, tile<8x4xi16>, tile<4x4xi32>
    return
  }
}

// -----

// mmai accumulates in i32.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<4x8xi8>, %b: tile<8x4xi8>, %c: tile<4x4xi16>) {
    // expected-error @below {{'cuda_tile.mmai' op operand #2 must be mmai acc/result tile type of i32 values, but got '!cuda_tile.tile<4x4xi16>'}}
    %r = mmai %a, %b, %c signed signed : tile<4x8xi8>, tile<8x4xi8>, tile<4x4xi16>
    return
  }
}

// -----

// mmai needs two signedness keywords.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<4x8xi8>, %b: tile<8x4xi8>, %c: tile<4x4xi32>) {
    // expected-error @below {{custom op 'cuda_tile.mmai' expected valid keyword}}
    // expected-error @below {{custom op 'cuda_tile.mmai' expected signedness to be one of: {'signed', 'unsigned'}}}
    %r = mmai %a, %b, %c signed : tile<4x8xi8>, tile<8x4xi8>, tile<4x4xi32>
    return
  }
}

// -----

// e4m3 scales are only allowed with f4E2M1FN data.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<16x64xf8E5M2>, %b: tile<64x16xf8E5M2>, %c: tile<16x16xf32>, %sa: tile<16x4xf8E4M3FN>, %sb: tile<4x16xf8E4M3FN>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op unsupported combination of element types. Scale type 'f8E4M3FN' expects lhs and rhs element types to be 'f4E2M1FN', but got 'f8E5M2'}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf32>, tile<16x4xf8E4M3FN>, tile<4x16xf8E4M3FN>
    return
  }
}

// -----

// fp8 data needs a block size of 32 (K / K_scale = 64 / 4 = 16 here).
cuda_tile.module @kernels {
  testing$func @f(%a: tile<16x64xf8E5M2>, %b: tile<64x16xf8E5M2>, %c: tile<16x16xf32>, %sa: tile<16x4xf8E8M0FNU>, %sb: tile<4x16xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op shape error: f8 element type requires block scale factor of lhs_scale and rhs_scale to be 32, but got 16}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf32>, tile<16x4xf8E8M0FNU>, tile<4x16xf8E8M0FNU>
    return
  }
}

// -----

// mmaf_scaled data is fp8 or fp4 only.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<16x64xf16>, %b: tile<64x16xf16>, %c: tile<16x16xf32>, %sa: tile<16x2xf8E8M0FNU>, %sb: tile<2x16xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op operand #0 must be mmaf_scaled operand tile type of f8E4M3FN or f8E5M2 or f4E2M1FN values, but got '!cuda_tile.tile<16x64xf16>'}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<16x64xf16>, tile<64x16xf16>, tile<16x16xf32>, tile<16x2xf8E8M0FNU>, tile<2x16xf8E8M0FNU>
    return
  }
}

// -----

// mmaf_scaled accumulates in f32 only.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<16x64xf8E5M2>, %b: tile<64x16xf8E5M2>, %c: tile<16x16xf16>, %sa: tile<16x2xf8E8M0FNU>, %sb: tile<2x16xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op operand #2 must be mmaf_scaled result tile type of f32 values, but got '!cuda_tile.tile<16x16xf16>'}}
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<16x64xf8E5M2>, tile<64x16xf8E5M2>, tile<16x16xf16>, tile<16x2xf8E8M0FNU>, tile<2x16xf8E8M0FNU>
    return
  }
}
