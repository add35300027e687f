// Invalid view and memory ops: view construction, view type rules, index rules,
// memory ordering/scope rules, pointer loads/stores, alloca.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics
// the base pointee type must equal the view element type (the custom syntax
// derives the base type from the view type).
cuda_tile.module @kernels {
  // expected-note @below {{prior use here}}
  testing$func @f(%p: tile<ptr<f16>>) {
    // expected-error @below {{use of value '%p' expects different type than prior uses}}
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    return
  }
}

// -----

// tensor_view strides must be strictly positive (checked as the type is parsed).
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    // expected-error @below {{expected strictly positive integer, got 0}}
    %tv = make_tensor_view %p, shape = [64], strides = [0] : tensor_view<64xf32, strides=[0]>
    return
  }
}

// -----

// partition tile dims are powers of two.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    // expected-error @below {{'cuda_tile.make_partition_view' op result #0 has invalid type partition_view<tile=(16x24), tensor_view<64x128xf32, strides=[128,1]>>: tile shape dimensions must have power of two length but got [16, 24]}}
    %pv = make_partition_view %tv : partition_view<tile=(16x24), tensor_view<64x128xf32, strides=[128,1]>>
    return
  }
}

// -----

// dim_map entries must be unique.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    // expected-error @below {{'cuda_tile.make_partition_view' op result #0 has invalid type partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>, dim_map=[0, 0]>: target dimension 0 mapped at least twice (for tile dimensions 0 and 1)}}
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>, dim_map=[0, 0]>
    return
  }
}

// -----

// the tile rank must equal the tensor rank.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    // expected-error @below {{'cuda_tile.make_partition_view' op result #0 has invalid type partition_view<tile=(16), tensor_view<64x128xf32, strides=[128,1]>>: expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and tiles of rank 1}}
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<64x128xf32, strides=[128,1]>>
    return
  }
}

// -----

// nan padding is only valid for float elements.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    // expected-error @below {{'cuda_tile.make_partition_view' op result #0 has invalid type partition_view<tile=(16), padding_value = nan, tensor_view<64xi32, strides=[1]>>: padding_value 'nan' requires a floating-point element type, but the tensor_view holds 'i32'}}
    %pv = make_partition_view %tv : partition_view<tile=(16), padding_value = nan, tensor_view<64xi32, strides=[1]>>
    return
  }
}

// -----

// the view's tensor_view must equal the operand type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @below {{'cuda_tile.make_partition_view' op expected the type of the provided tensor_view value ('!cuda_tile.tensor_view<64xf32, strides=[1]>') to be the same as the view's tensor_view type ('!cuda_tile.tensor_view<32xf32, strides=[1]>')}}
    %pv = "cuda_tile.make_partition_view"(%tv) : (!cuda_tile.tensor_view<64xf32, strides=[1]>) -> !cuda_tile.partition_view<tile=(16), tensor_view<32xf32, strides=[1]>>
    return
  }
}

// -----

// traversal strides must be positive.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @below {{'cuda_tile.make_strided_view' op result #0 has invalid type strided_view<tile=(4), traversal_strides=[0], tensor_view<64xf32, strides=[1]>>: traversal strides must be strictly positive but got [0]}}
    %sv = make_strided_view %tv : strided_view<tile=(4), traversal_strides=[0], tensor_view<64xf32, strides=[1]>>
    return
  }
}

// -----

// one traversal stride per dimension.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @below {{'cuda_tile.make_strided_view' op result #0 has invalid type strided_view<tile=(4), traversal_strides=[2,2], tensor_view<64xf32, strides=[1]>>: expected 1 traversal strides, got 2}}
    %sv = make_strided_view %tv : strided_view<tile=(4), traversal_strides=[2, 2], tensor_view<64xf32, strides=[1]>>
    return
  }
}

// -----

// the strided view's tensor_view must equal the operand type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1]>
    // expected-error @below {{'cuda_tile.make_strided_view' op expected the type of the provided tensor_view value ('!cuda_tile.tensor_view<64xf32, strides=[1]>') to be the same as the view's tensor_view type ('!cuda_tile.tensor_view<128xf32, strides=[1]>')}}
    %sv = "cuda_tile.make_strided_view"(%tv) : (!cuda_tile.tensor_view<64xf32, strides=[1]>) -> !cuda_tile.strided_view<tile=(4), traversal_strides=[2], tensor_view<128xf32, strides=[1]>>
    return
  }
}

// -----

// sparse_dim must be below the rank.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 16], strides = [16, 1] : tensor_view<64x16xf32, strides=[16,1]>
    // expected-error @below {{'cuda_tile.make_gather_scatter_view' op result #0 has invalid type gather_scatter_view<tile=(8x16), tensor_view<64x16xf32, strides=[16,1]>, sparse_dim=2>: sparse_dim must be in [0, 2) (the tensor_view rank), got 2}}
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(8x16), tensor_view<64x16xf32, strides=[16,1]>, sparse_dim=2>
    return
  }
}

// -----

// the gather/scatter view's tensor_view must equal the operand type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 16], strides = [16, 1] : tensor_view<64x16xf32, strides=[16,1]>
    // expected-error @below {{'cuda_tile.make_gather_scatter_view' op expected the type of the provided tensor_view value ('!cuda_tile.tensor_view<64x16xf32, strides=[16,1]>') to be the same as the view's tensor_view type ('!cuda_tile.tensor_view<32x16xf32, strides=[16,1]>')}}
    %gv = "cuda_tile.make_gather_scatter_view"(%tv) : (!cuda_tile.tensor_view<64x16xf32, strides=[16,1]>) -> !cuda_tile.gather_scatter_view<tile=(8x16), tensor_view<32x16xf32, strides=[16,1]>, sparse_dim=0>
    return
  }
}

// -----

// get_tensor_shape returns one value per tensor dimension.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    // The result count comes from the type's rank, so the binding is wrong.
    // expected-error @below {{operation defines 2 results but was provided 3 to bind}}
    %a, %b, %c = get_tensor_shape %tv : tensor_view<64x128xf32, strides=[128,1]> -> tile<i64>
    return
  }
}

// -----

// get_tensor_shape returns integers.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    // expected-error @below {{'cuda_tile.get_tensor_shape' op result #0 must be variadic of 0D tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<f32>'}}
    %a, %b = get_tensor_shape %tv : tensor_view<64x128xf32, strides=[128,1]> -> tile<f32>
    return
  }
}

// -----

// get_index_space_shape returns one value per index dimension.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{operation defines 2 results but was provided 1 to bind}}
    %a = get_index_space_shape %pv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>> -> tile<i32>
    return
  }
}

// -----

// one index per view dimension.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{'cuda_tile.load_view_tko' op expected 2 index operands (based on view type), got 1}}
    %t, %k = load_view_tko weak %pv[%i] : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> tile<16x32xf32>, token
    return
  }
}

// -----

// weak view accesses take no scope: the parser rejects it (NVIDIA 13.3).
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{custom op 'cuda_tile.load_view_tko' operation specifies weak memory ordering semantics, but then provides "device" scope, expected no memory scope.}}
    %t, %k = load_view_tko weak device %pv[%i, %i] : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> tile<16x32xf32>, token
    return
  }
}

// -----

// relaxed accesses need a scope.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{'cuda_tile.load_view_tko' op memory scope is required for relaxed load}}
    %t, %k = load_view_tko relaxed %pv[%i, %i] : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> tile<16x32xf32>, token
    return
  }
}

// -----

// loads cannot be release.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{'cuda_tile.load_view_tko' op expect one of: weak, relaxed, or acquire, but got: release}}
    %t, %k = load_view_tko release device %pv[%i, %i] : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> tile<16x32xf32>, token
    return
  }
}

// -----

// the loaded tile type is the view's tile type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    // expected-error @below {{'cuda_tile.load_view_tko' op expected tile type to be '!cuda_tile.tile<16x32xf32>' (based on view type), got '!cuda_tile.tile<32x16xf32>'}}
    %t, %k = load_view_tko weak %pv[%i, %i] : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> tile<32x16xf32>, token
    return
  }
}

// -----

// stores cannot be acquire.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    %f = constant <f32: 0.000000e+00> : tile<16x32xf32>
    // expected-error @below {{'cuda_tile.store_view_tko' op expect one of: weak, relaxed, or release, but got: acquire}}
    %k = store_view_tko acquire device %f, %pv[%i, %i] : tile<16x32xf32>, partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> token
    return
  }
}

// -----

// the stored tile must have the view's tile type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128, 1] : tensor_view<64x128xf32, strides=[128,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>
    %i = constant <i32: 0> : tile<i32>
    %f = constant <f32: 0.000000e+00> : tile<16x16xf32>
    // expected-error @below {{'cuda_tile.store_view_tko' op expected tile type to be '!cuda_tile.tile<16x32xf32>' (based on view type), got '!cuda_tile.tile<16x16xf32>'}}
    %k = store_view_tko weak %f, %pv[%i, %i] : tile<16x16xf32>, partition_view<tile=(16x32), tensor_view<64x128xf32, strides=[128,1]>>, tile<i32> -> token
    return
  }
}

// -----

// the sparse index tile length must equal the tile size along sparse_dim.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [64, 16], strides = [16, 1] : tensor_view<64x16xf32, strides=[16,1]>
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(8x16), tensor_view<64x16xf32, strides=[16,1]>, sparse_dim=0>
    %rows = iota : tile<4xi32>
    %c = constant <i32: 0> : tile<i32>
    // expected-error @below {{'cuda_tile.load_view_tko' op expected gather/scatter index size (4) to match tile shape at gather/scatter dimension 0 (8)}}
    %t, %k = load_view_tko weak %gv[%rows, %c] : gather_scatter_view<tile=(8x16), tensor_view<64x16xf32, strides=[16,1]>, sparse_dim=0>, tile<4xi32>, tile<i32> -> tile<8x16xf32>, token
    return
  }
}

// -----

// the mask has the pointer shape.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>, %m: tile<2xi1>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op failed to verify that shape of 'mask' must match the shape of 'source'}}
    %v, %t = load_ptr_tko weak %p, %m : tile<4xptr<f32>>, tile<2xi1> -> tile<4xf32>, token
    return
  }
}

// -----

// the padding value has the result type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>, %m: tile<4xi1>, %pad: tile<4xf16>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op failed to verify that type of 'paddingValue' must match the type of 'result'}}
    %v, %t = load_ptr_tko weak %p, %m, %pad : tile<4xptr<f32>>, tile<4xi1>, tile<4xf16> -> tile<4xf32>, token
    return
  }
}

// -----

// the loaded element type is the pointee type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op failed to verify that `source` type is expected a pointer type of `result` type}}
    %v, %t = load_ptr_tko weak %p : tile<4xptr<f32>> -> tile<4xf16>, token
    return
  }
}

// -----

// loads cannot be acq_rel.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op expect one of: weak, relaxed, or acquire, but got: acq_rel}}
    %v, %t = load_ptr_tko acq_rel device %p : tile<4xptr<f32>> -> tile<4xf32>, token
    return
  }
}

// -----

// the stored element type is the pointee type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>, %v: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.store_ptr_tko' op failed to verify that `destination` type is expected a pointer type of `value` type}}
    %t = store_ptr_tko weak %p, %v : tile<4xptr<f32>>, tile<4xi32> -> token
    return
  }
}

// -----

// stores cannot be acquire.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<f32>>, %v: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.store_ptr_tko' op expect one of: weak, relaxed, or release, but got: acquire}}
    %t = store_ptr_tko acquire device %p, %v : tile<4xptr<f32>>, tile<4xf32> -> token
    return
  }
}

// -----

// alloca alignment is a power of two.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.alloca' op 'alignment' must be power of two}}
    %a = alloca num_elem = 4, alignment = 24 : tile<ptr<f32>>
    return
  }
}

// -----

// alloca alignment is at least the element size.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.alloca' op 'alignment' (2) must be at least the natural size (8 bytes) for element type 'f64'}}
    %a = alloca num_elem = 4, alignment = 2 : tile<ptr<f64>>
    return
  }
}

// -----

// alloca returns a scalar pointer tile.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.alloca' op result #0 must be 0D tile of Pointer type values, but got '!cuda_tile.tile<4xptr<f32>>'}}
    %a = alloca num_elem = 4, alignment = 16 : tile<4xptr<f32>>
    return
  }
}

// -----

// make_tensor_view: entry counts and values are checked against the type while
// parsing, in NVIDIA's words; a type whose shape and strides differ in rank is
// itself invalid.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    // expected-error @below {{expected stride declaration to contain 2 elements due to tensor_view type, but 1 were provided}}
    %tv = make_tensor_view %p, shape = [64, 128], strides = [128] : tensor_view<64x128xf32, strides=[128,1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>, %n: tile<i64>) {
    // expected-error @below {{input shape dimension 0 does not match tensor_view type (expected 64, got dynamic)}}
    %tv = make_tensor_view %p, shape = [%n, 128], strides = [128, 1] : tile<i64> -> tensor_view<64x128xf32, strides=[128,1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>) {
    // expected-error @below {{expected shape and stride to be of same rank but got shape of rank 1 and stride of rank 2}}
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xf32, strides=[1, 1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f16>>) {
    // expected-error @below {{expected shape declaration to contain 3 elements due to tensor_view type, but 2 were provided}}
    %tv = make_tensor_view %p, shape = [4, 8], strides = [64, 8, 1] : tensor_view<4x8x8xf16, strides=[64,8,1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f16>>) {
    // expected-error @below {{input stride dimension 1 does not match tensor_view type (expected 8, got 16)}}
    %tv = make_tensor_view %p, shape = [4, 8], strides = [8, 16] : tensor_view<4x8xf16, strides=[8,8]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f16>>, %s: tile<i32>) {
    // expected-error @below {{input stride dimension 0 does not match tensor_view type (expected dynamic, got 8)}}
    %tv = make_tensor_view %p, shape = [%s, 8], strides = [8, 1] : tile<i32> -> tensor_view<?x8xf16, strides=[?,1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f16>>) {
    // expected-error @below {{custom op 'cuda_tile.make_tensor_view' expected either integer or SSA value}}
    %tv = make_tensor_view %p, shape = [4, n], strides = [8, 1] : tensor_view<4x8xf16, strides=[8,1]>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f16>>) {
    // expected-error @below {{custom op 'cuda_tile.make_tensor_view' expected 'tensor_view' type, but got '!cuda_tile.tile<4xf16>'}}
    %tv = make_tensor_view %p, shape = [4], strides = [1] : tile<4xf16>
    return
  }
}

// -----

// The view makers name the view type they need.
cuda_tile.module @kernels {
  testing$func @f(%tv: tensor_view<16xf32, strides=[1]>) {
    // expected-error @below {{custom op 'cuda_tile.make_strided_view' expected 'strided_view' type, but got '!cuda_tile.partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>'}}
    %v = make_strided_view %tv : partition_view<tile=(4), tensor_view<16xf32, strides=[1]>>
    return
  }
}

// -----

// One index type stands for all indices; with none written it is dropped and the
// verifier reports the missing index.
cuda_tile.module @kernels {
  testing$func @f(%tv: tensor_view<64xf32, strides=[1]>) {
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>
    // expected-error @below {{expected 1 index operands (based on view type), got 0}}
    %t, %tok = load_view_tko weak %pv[] : partition_view<tile=(16), tensor_view<64xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    return
  }
}

// -----

// get_tensor_shape and get_index_space_shape need the right kind of source type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi64>) {
    // expected-error @below {{custom op 'cuda_tile.get_tensor_shape' expected tensor_view, got '!cuda_tile.tile<4xi64>'}}
    %a = get_tensor_shape %x : tile<4xi64> -> tile<i64>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%tv: tensor_view<64xf32, strides=[1]>) {
    // expected-error @below {{custom op 'cuda_tile.get_index_space_shape' expected tile view, got '!cuda_tile.tensor_view<64xf32, strides=[1]>'}}
    %a = get_index_space_shape %tv : tensor_view<64xf32, strides=[1]> -> tile<i32>
    return
  }
}
