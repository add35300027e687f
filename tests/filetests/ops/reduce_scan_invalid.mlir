// Invalid reduce and scan ops: identities, dims, region signature, purity.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// one identity per operand.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect identities to match the number of operands but got: 1 operands and 2 identities}}
    %r = reduce %x dim=0 identities=[0.000000e+00 : f32, 0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      %s = addf %a, %b : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

// dim must be within the operand rank.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op dimension (1) is out of bound [0, 1)}}
    %r = reduce %x dim=1 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      %s = addf %a, %b : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

// identity type must equal the operand element type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same type for operand at index: 0 and identity at index: 0 but got: 'f32' and 'i32'}}
    %r = reduce %x dim=0 identities=[0 : i32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      %s = addf %a, %b : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

// region arguments are rank-0 tiles.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect 0-rank tile type at index: 0 but got: '!cuda_tile.tile<1xf32>'}}
    %r = reduce %x dim=0 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<1xf32>, %b: tile<1xf32>) {
      %s = addf %a, %b : tile<1xf32>
      yield %s : tile<1xf32>
    }
    return
  }
}

// -----

// element and accumulator arguments must have one element type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same element type for block argument at index: 0 and 1 but got: 'f32' and 'i32'}}
    %r = reduce %x dim=0 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<i32>) {
      yield %a : tile<f32>
    }
    return
  }
}

// -----

// only pure ops are allowed in the body; the offending op is reported (13.3).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xi32>) {
    %r = reduce %x dim=0 identities=[0 : i32] : tile<8xi32> -> tile<i32>
    (%a: tile<i32>, %b: tile<i32>) {
      // expected-error @below {{'cuda_tile.print_tko' op only pure operations are allowed inside 'cuda_tile.reduce'}}
      %t = print_tko "side effect" -> token
      yield %a : tile<i32>
    }
    return
  }
}

// -----

// the yielded value must have the operand element type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same type for operand at index: 0 and terminator argument at index: 0 but got: 'i32' and 'i64'}}
    %r = reduce %x dim=0 identities=[0 : i32] : tile<8xi32> -> tile<i32>
    (%a: tile<i32>, %b: tile<i32>) {
      %c = exti %a signed : tile<i32> -> tile<i64>
      yield %c : tile<i64>
    }
    return
  }
}

// -----

// reduce removes the reduced dimension from the result.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op inferred type(s) '!cuda_tile.tile<i32>' are incompatible with return type(s) of operation '!cuda_tile.tile<8xi32>'}}
    // expected-error @below {{'cuda_tile.reduce' op failed to infer returned types}}
    %r = reduce %x dim=0 identities=[0 : i32] : tile<8xi32> -> tile<8xi32>
    (%a: tile<i32>, %b: tile<i32>) {
      yield %a : tile<i32>
    }
    return
  }
}

// -----

// scan results have the operand types.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4x8xf32>) {
    // expected-error @below {{'cuda_tile.scan' op expect same type for operand at index: 0 and result at index: 0}}
    %r = scan %x dim=0 reverse=false identities=[0.000000e+00 : f32] : tile<4x8xf32> -> tile<8xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %s = addf %a, %b : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}

// -----

// identity type must equal the operand element type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.scan' op expect same type for operand at index: 0 and identity at index: 0 but got: 'f32' and 'i64'}}
    %r = scan %x dim=0 reverse=false identities=[0 : i64] : tile<8xf32> -> tile<8xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield %a : tile<f32>
    }
    return
  }
}

// -----

// the body must yield one value per operand.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.scan' op expect number of terminators operands (0) to match number of operands (1)}}
    %r = scan %x dim=0 reverse=false identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<8xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield
    }
    return
  }
}

// -----

// `{}` without block arguments is a region with no block at all.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.scan' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
    %r = scan %x dim=0 reverse=false identities=[0 : i32] : tile<4xi32> -> tile<4xi32>
    () {}
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{custom op 'cuda_tile.reduce' number of operands and types do not match: got 1 operands and 2 types}}
    %r = reduce %x dim=0 identities=[0 : i32] : tile<4xi32>, tile<4xi32> -> tile<i32>
    (%a: tile<i32>, %b: tile<i32>) {
      yield %a : tile<i32>
    }
    return
  }
}
