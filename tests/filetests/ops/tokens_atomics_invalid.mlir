// Invalid token and atomic ops.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// join_tokens needs at least two tokens.
cuda_tile.module @kernels {
  testing$func @f() {
    %a = make_token : token
    // expected-error @below {{'cuda_tile.join_tokens' op expect two or more tokens}}
    %r = join_tokens %a : token
    return
  }
}

// -----

// make_token produces a token.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.make_token' op result #0 must be cuda tile token type, but got '!cuda_tile.tile<i32>'}}
    %r = "cuda_tile.make_token"() : () -> !cuda_tile.tile<i32>
    return
  }
}

// -----

// join_tokens joins tokens only.
cuda_tile.module @kernels {
  testing$func @f(%a: tile<i32>, %b: tile<i32>) {
    // expected-error @below {{'cuda_tile.join_tokens' op operand #0 must be variadic of cuda tile token type, but got '!cuda_tile.tile<i32>'}}
    %r = "cuda_tile.join_tokens"(%a, %b) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> !cuda_tile.token
    return
  }
}

// -----

// atomics cannot be weak.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>, %v: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op memory ordering semantics must be one of: relaxed, acquire, release, acq_rel}}
    %r, %t = atomic_cas_tko weak device %p, %v, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// atomic_cas_tko works on 32/64-bit values only.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i16>>, %v: tile<i16>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op expect only float or integer types with 32 or 64 bit}}
    %r, %t = atomic_cas_tko relaxed device %p, %v, %v : tile<ptr<i16>>, tile<i16> -> tile<i16>, token
    return
  }
}

// -----

// the memory scope is mandatory for atomics.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>, %v: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.atomic_cas_tko' expected string or keyword containing one of the following enum values for attribute 'memory_scope' [tl_blk, device, sys]}}
    %r, %t = atomic_cas_tko relaxed %p, %v, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// the pointee type must equal the value element type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>, %v: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_cas_tko' op expected pointee type ('f32') to match element type of 'val' ('i32')}}
    %r, %t = atomic_cas_tko relaxed device %p, %v, %v : tile<ptr<f32>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// addf needs a float value.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>, %v: tile<i32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op 'addf' works only with floats f16, bf16, f32, and f64}}
    %r, %t = atomic_rmw_tko relaxed device %p, addf, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// bitwise modes need i32/i64 values.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<f32>>, %v: tile<f32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op 'and' works only with integers i32 and i64}}
    %r, %t = atomic_rmw_tko relaxed device %p, and, %v : tile<ptr<f32>>, tile<f32> -> tile<f32>, token
    return
  }
}

// -----

// unknown atomic mode.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>, %v: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.atomic_rmw_tko' expected string or keyword containing one of the following enum values for attribute 'mode' [and, or, xor, add, addf, max, min, umax, umin, xchg]}}
    %r, %t = atomic_rmw_tko relaxed device %p, nand, %v : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// the mask has the pointer shape.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<i32>>, %v: tile<4xi32>, %m: tile<2xi1>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op failed to verify that all of {pointers, arg, mask} have same shape}}
    %r, %t = atomic_rmw_tko relaxed device %p, add, %v, %m : tile<4xptr<i32>>, tile<4xi32>, tile<2xi1> -> tile<4xi32>, token
    return
  }
}

// -----

// atomic_red_view_tko ordering must be relaxed.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<4xi32>
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op only 'relaxed' memory ordering is supported for view-based atomic reductions, got 'acquire'}}
    %t = atomic_red_view_tko acquire device %pv[%i], add, %v : tile<4xi32>, partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// atomic_red_view_tko scope is tl_blk or device.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<4xi32>
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op memory scope 'sys' is not supported for view-based atomic reductions; use 'tl_blk' or 'device' for TMA compatibility}}
    %t = atomic_red_view_tko relaxed sys %pv[%i], add, %v : tile<4xi32>, partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// a reduction cannot exchange.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<4xi32>
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op atomic_red_view_tko op cannot use xchg operation}}
    %t = atomic_red_view_tko relaxed device %pv[%i], xchg, %v : tile<4xi32>, partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// atomic_red_view_tko rejects views with a padding value.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), padding_value = zero, tensor_view<64xi32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<4xi32>
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op views with padding_value are not supported for atomic reductions}}
    %t = atomic_red_view_tko relaxed device %pv[%i], add, %v : tile<4xi32>, partition_view<tile=(4), padding_value = zero, tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// atomic_red_view_tko rejects gather/scatter views.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [64, 4], strides = [4, 1] : tensor_view<64x4xi32, strides=[4,1]>
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(4x4), tensor_view<64x4xi32, strides=[4,1]>, sparse_dim=0>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<4x4xi32>
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op gather_scatter_view is not supported; use partition_view instead}}
    %t = atomic_red_view_tko relaxed device %gv[%i, %i], add, %v : tile<4x4xi32>, gather_scatter_view<tile=(4x4), tensor_view<64x4xi32, strides=[4,1]>, sparse_dim=0>, tile<i32> -> token
    return
  }
}

// -----

// the value must have the view's tile type.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [64], strides = [1] : tensor_view<64xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <i32: 1> : tile<8xi32>
    // expected-error @below {{'cuda_tile.atomic_red_view_tko' op view tile shape 4 must match value shape 8 for element-wise atomic operations}}
    %t = atomic_red_view_tko relaxed device %pv[%i], add, %v : tile<8xi32>, partition_view<tile=(4), tensor_view<64xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// The atomics' memory ordering is an enum keyword of their declarative format.
cuda_tile.module @kernels {
  testing$func @f(%p: tile<4xptr<i64>>, %v: tile<4xi64>) {
    // expected-error @below {{custom op 'cuda_tile.atomic_rmw_tko' expected string or keyword containing one of the following enum values for attribute 'memory_ordering_semantics' [weak, relaxed, acquire, release, acq_rel]}}
    %r, %t = atomic_rmw_tko seq_cst device %p, add, %v : tile<4xptr<i64>>, tile<4xi64> -> tile<4xi64>, token
    return
  }
}
