// Invalid type syntax and type verification: tile shapes, pointers, element types.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// tile dimensions are powers of two.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type tile<3xf32>: all dimensions must be powers of two, got 3}}
  testing$func @f(%x: tile<3xf32>) {

    return
  }
}

// -----

// tile dimensions are positive.
cuda_tile.module @kernels {
  // expected-error @below {{all dimensions must be positive constants, got 0}}
  testing$func @f(%x: tile<0xf32>) {

    return
  }
}

// -----

// tile shapes are static.
cuda_tile.module @kernels {
  // expected-error @below {{expected static shape}}
  testing$func @f(%x: tile<?xf32>) {

    return
  }
}

// -----

// at most 2^24 elements per tile.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type tile<8192x4096xf32>: tile would exceed the maximum of 16777216 elements}}
  testing$func @f(%x: tile<8192x4096xf32>) {

    return
  }
}

// -----

// f4E2M1FN tiles need an even number of elements.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type tile<1xf4E2M1FN>: F4E2M1FN tiles must have an even number of elements}}
  testing$func @f(%x: tile<1xf4E2M1FN>) {

    return
  }
}

// -----

// i4 cannot be a pointee.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type tile<ptr<i4>>: failed to verify 'pointeeType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64}}
  testing$func @f(%x: tile<ptr<i4>>) {

    return
  }
}

// -----

// no pointers to pointers.
cuda_tile.module @kernels {
  // expected-error @below {{failed to verify 'pointeeType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64}}
  testing$func @f(%x: tile<ptr<ptr<f32>>>) {

    return
  }
}

// -----

// unsupported element type.
cuda_tile.module @kernels {
  // expected-error @below {{failed to verify 'elementType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64 or Pointer type (i4 is accepted as well)}}
  testing$func @f(%x: tile<4xf128>) {

    return
  }
}

// -----

// i4 cannot be a tensor_view element.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type tensor_view<8xi4, strides=[1]>: failed to verify 'elementType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64}}
  testing$func @f(%x: tensor_view<8xi4, strides=[1]>) {

    return
  }
}

// -----

// 0-d partition views are not supported.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type partition_view<tile=(2x2), tensor_view<f32>>: expected tensor_view rank and tile rank to match, got tensor_view of rank 0 and tiles of rank 2}}
  testing$func @f(%x: partition_view<tile=(2x2), tensor_view<f32>>) {

    return
  }
}

// -----

// nan padding needs float elements.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type gather_scatter_view<tile=(2x2), padding_value = nan, tensor_view<8x8xi32, strides=[8,1]>, sparse_dim=0>: padding_value 'nan' requires a floating-point element type, but the tensor_view holds 'i32'}}
  testing$func @f(%x: gather_scatter_view<tile=(2x2), padding_value = nan, tensor_view<8x8xi32, strides=[8,1]>, sparse_dim=0>) {

    return
  }
}

// -----

// the tile rank must equal the tensor rank.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.testing$func' op argument #0 has invalid type strided_view<tile=(2), traversal_strides=[1], tensor_view<8x8xf32, strides=[8,1]>>: expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and tiles of rank 1}}
  testing$func @f(%x: strided_view<tile=(2), traversal_strides=[1], tensor_view<8x8xf32, strides=[8,1]>>) {

    return
  }
}

// -----

// A 0-d tensor_view takes no strides clause.
cuda_tile.module @kernels {
  // expected-error @below {{strides must not be provided for 0-d tiles}}
  testing$func @f(%x: tensor_view<f32, strides=[1]>) {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{unexpected token after element type in 0-d tensor_view}}
  testing$func @f(%x: tensor_view<i8, 1>) {
    return
  }
}

// -----

// Any other rank needs the strides clause.
cuda_tile.module @kernels {
  // expected-error @below {{expected 'strides'}}
  testing$func @f(%x: tensor_view<8x8xi8>) {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{expected either 64-bit integer or question mark}}
  testing$func @f(%x: tensor_view<8x8xi8, strides=[8, *]>) {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{expected strictly positive integer, got -8}}
  testing$func @f(%x: tensor_view<8x8xi8, strides=[-8, 1]>) {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{expected shape and stride to be of same rank but got shape of rank 2 and stride of rank 1}}
  testing$func @f(%x: tensor_view<8x8xi8, strides=[1]>) {
    return
  }
}

// -----

// A type that is not a number type as a tile element: ODS's constraint, which
// also allows pointers.
cuda_tile.module @kernels {
  // expected-error @below {{failed to verify 'elementType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64 or Pointer type}}
  testing$func @f(%x: tile<4xtoken>) {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{failed to verify 'elementType': f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i1 or i8 or i16 or i32 or i64}}
  testing$func @f(%x: tensor_view<4xi3, strides=[1]>) {
    return
  }
}

// -----

// A negative extent ends the dimension list; no element type follows.
cuda_tile.module @kernels {
  // expected-error @below {{expected valid keyword}}
  testing$func @f(%x: tile<4x-4xf32>) {
    return
  }
}

// -----

cuda_tile.module @kernels {
  // expected-error @below {{expected valid '@'-identifier for symbol name}}
  testing$func f() {
    return
  }
}
