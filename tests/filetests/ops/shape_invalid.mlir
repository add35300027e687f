// Invalid tile construction and shape ops.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// iota results are rank 1.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.iota' op expects result type to be 1-d tile}}
    %r = iota : tile<4x4xi32>
    return
  }
}

// -----

// iota values must fit the element type (read unsigned).
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.iota' op the number of elements 512 exceeds the maximum value of element type 'i8'}}
    %r = iota : tile<512xi8>
    return
  }
}

// -----

// iota produces integer tiles only.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.iota' op result #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<8xf32>'}}
    %r = iota : tile<8xf32>
    return
  }
}

// -----

// there are no i4 constants.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.constant' unknown type: i4}}
    // expected-error @below {{expect element type to be one of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '<<NULL TYPE>>'}}
    %r = constant <i4: 1> : tile<2xi4>
    return
  }
}

// -----

// broadcast keeps the rank (use reshape first).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2xf32>) {
    // expected-error @below {{'cuda_tile.broadcast' op failed to verify that all of {source, result} have same rank}}
    %r = broadcast %x : tile<2xf32> -> tile<2x2xf32>
    return
  }
}

// -----

// broadcast only expands dimensions of size 1.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x2xf32>) {
    // expected-error @below {{'cuda_tile.broadcast' op expects the shape of source tile to be compatible with that of the result tile, but got: 2, 2 and 4, 4}}
    %r = broadcast %x : tile<2x2xf32> -> tile<4x4xf32>
    return
  }
}

// -----

// broadcast keeps the element type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<1x2xf32>) {
    // expected-error @below {{'cuda_tile.broadcast' op requires the same element type for all operands and results}}
    %r = broadcast %x : tile<1x2xf32> -> tile<4x2xf16>
    return
  }
}

// -----

// reshape keeps the number of elements.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.reshape' op expected source tile and result tile to have the same number of elements}}
    %r = reshape %x : tile<4x4xf32> -> tile<8xf32>
    return
  }
}

// -----

// reshape keeps the element type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.reshape' op requires the same element type for all operands and results}}
    %r = reshape %x : tile<4xf32> -> tile<4xi32>
    return
  }
}

// -----

// permute needs rank >= 2.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op expects at least rank 2, but got: 1}}
    %r = permute %x [0] : tile<4xf32> -> tile<4xf32>
    return
  }
}

// -----

// permutation entries must be unique.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op expect permutation elements to be unique}}
    %r = permute %x [0, 0] : tile<2x4xf32> -> tile<2x4xf32>
    return
  }
}

// -----

// result dim i must equal source dim perm[i].
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op result shape invalid at index 0, expected: 4, but got: 2}}
    %r = permute %x [1, 0] : tile<2x4xf32> -> tile<2x4xf32>
    return
  }
}

// -----

// permutation length must equal the rank.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.permute' op expect permutation size (3) to equal the rank of the source (2)}}
    %r = permute %x [0, 1, 2] : tile<2x4xf32> -> tile<2x4xf32>
    return
  }
}

// -----

// cat dim must be in [0, rank).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op expect dim to be [0, 2), but got: 2}}
    %r = cat %x, %x dim = 2 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x8xf32>
    return
  }
}

// -----

// cat result dim must be the sum of the operand dims.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op invalid concat at position 1, expected: 8 but got: 4}}
    %r = cat %x, %x dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x4xf32>
    return
  }
}

// -----

// extract: result dims must divide source dims (16 does not divide 8).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op source dimension 0 size (8) must be evenly divisible by result dimension 0 size (16)}}
    %r = extract %x[%i] : tile<8xf32> -> tile<16xf32>
    return
  }
}

// -----

// extract indices are rank-0 i32 tiles.
cuda_tile.module @kernels {
  // expected-note @below {{prior use here}}
  testing$func @f(%x: tile<8xf32>, %i: tile<i64>) {
    // expected-error @below {{use of value '%i' expects different type than prior uses: '!cuda_tile.tile<i32>' vs '!cuda_tile.tile<i64>'}}
    %r = extract %x[%i] : tile<8xf32> -> tile<4xf32>
    return
  }
}

// -----

// extract needs one index per dimension.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8x8xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op expected 2 indices, but got 1}}
    %r = extract %x[%i] : tile<8x8xf32> -> tile<4x4xf32>
    return
  }
}

// -----

// select rejects f4E2M1FN.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<2xi1>, %x: tile<2xf4E2M1FN>) {
    // expected-error @below {{'cuda_tile.select' op cannot operate on sub-byte type F4E2M1FN}}
    %r = select %c, %x, %x : tile<2xi1>, tile<2xf4E2M1FN>
    return
  }
}

// -----

// select condition must be an i1 tile.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<2xi32>, %x: tile<2xf32>) {
    // expected-error @below {{'cuda_tile.select' op operand #0 must be tile of i1 values, but got '!cuda_tile.tile<2xi32>'}}
    %r = select %c, %x, %x : tile<2xi32>, tile<2xf32>
    return
  }
}

// -----

// select condition and values must have the same shape.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<4xi1>, %x: tile<2xf32>) {
    // expected-error @below {{'cuda_tile.select' op failed to verify that all of {cond, val_if_true, val_if_false, result} have same shape}}
    %r = select %c, %x, %x : tile<4xi1>, tile<2xf32>
    return
  }
}

// -----

// offset pointer and offset tiles must have the same shape.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>, %o: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.offset' op requires the same shape for all operands and results}}
    %r = offset %p, %o : tile<4xptr<f32>>, tile<8xi32> -> tile<4xptr<f32>>
    return
  }
}

// -----

// offset result type must equal the pointer type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>, %o: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.offset' op failed to verify that all of {result, ptr} have same type}}
    %r = offset %p, %o : tile<4xptr<f32>>, tile<4xi32> -> tile<4xptr<f16>>
    return
  }
}

// -----

// offset amounts are integers.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>, %o: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.offset' op operand #1 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<4xf32>'}}
    %r = offset %p, %o : tile<4xptr<f32>>, tile<4xf32> -> tile<4xptr<f32>>
    return
  }
}

// -----

// pack needs different element widths (8-bit types use bitcast).
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xi8>) {
    // expected-error @below {{'cuda_tile.pack' op expects source and result to have different element type widths}}
    %r = pack %x : tile<8xi8> -> tile<8xi8>
    return
  }
}

// -----

// pack takes rank-1 tiles.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4x4xf16>) {
    // expected-error @below {{'cuda_tile.pack' op failed to verify that all of {source, result} have same rank}}
    %r = pack %x : tile<4x4xf16> -> tile<32xi8>
    return
  }
}

// -----

// pack must keep the total number of bits.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.pack' op expects source and result to have the same size in bytes, but got source tile size 8 bytes and result tile size 16 bytes}}
    %r = pack %x : tile<4xf16> -> tile<16xi8>
    return
  }
}

// -----

// unpack source must be an i8 tile.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xi16>) {
    // expected-error @below {{'cuda_tile.unpack' op operand #0 must be tile of i8 values, but got '!cuda_tile.tile<8xi16>'}}
    %r = unpack %x : tile<8xi16> -> tile<16xi8>
    return
  }
}

// -----

// unpack must keep the total number of bits.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<8xi8>) {
    // expected-error @below {{'cuda_tile.unpack' op expects source and result to have the same size in bytes, but got source tile size 8 bytes and result tile size 4 bytes}}
    %r = unpack %x : tile<8xi8> -> tile<2xf16>
    return
  }
}

// -----

// cat: a non-concat mismatch of rhs (lhs and result agree) names the rhs.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<2x4xf32>, %y: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op expect rhs and result shapes to match at non-concat position 0, expected: 4 but got: 2}}
    %r = cat %x, %y dim = 1 : tile<2x4xf32>, tile<4x4xf32> -> tile<2x8xf32>
    return
  }
}
