// Invalid dense literals (constant and global values): ranges, nesting, element
// // type prefix, float representability.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// 256 is outside i8's signed-or-unsigned range.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{integer constant out of range for type}}
    %c = constant <i8: 256> : tile<i8>
    return
  }
}

// -----

// -129 is outside i8's range.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{integer constant out of range for type}}
    %c = constant <i8: -129> : tile<i8>
    return
  }
}

// -----

// i1 accepts -1..1 only.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{integer constant out of range for type}}
    %c = constant <i1: 2> : tile<i1>
    return
  }
}

// -----

// true/false are only for i1.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{expected integer value}}
    %c = constant <i32: true> : tile<i32>
    return
  }
}

// -----

// integers cannot take float literals.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{expected integer value}}
    %c = constant <i32: 1.5> : tile<i32>
    return
  }
}

// -----

// the list length must match the shape.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{inferred shape of elements literal ([3]) does not match type ([4])}}
    %c = constant <i32: [1, 2, 3]> : tile<4xi32>
    return
  }
}

// -----

// ragged nesting.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{tensor literal is invalid; ranks are not consistent between elements}}
    %c = constant <i32: [[1, 2], [3]]> : tile<2x2xi32>
    return
  }
}

// -----

// nesting depth must match the rank.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{inferred shape of elements literal ([4]) does not match type ([2, 2])}}
    %c = constant <i32: [1, 2, 3, 4]> : tile<2x2xi32>
    return
  }
}

// -----

// scalar tiles cannot take a list.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{inferred shape of elements literal ([1]) does not match type ([])}}
    %c = constant <i32: [1]> : tile<i32>
    return
  }
}

// -----

// the prefix element type must equal the tile element type.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{mismatch between the element type: 'i16' and the tile element type 'i32'}}
    %c = constant <i16: 1> : tile<i32>
    return
  }
}

// -----

// unknown element type: named, and reported as no type by the element type check.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.constant' unknown type: f33}}
    // expected-error @below {{expect element type to be one of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '<<NULL TYPE>>'}}
    %c = constant <f33: 1.0> : tile<f32>
    return
  }
}

// -----

// missing ':' after the element type.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{expected ':'}}
    %c = constant <i32 1> : tile<i32>
    return
  }
}

// -----

// global values follow the same literal rules.
cuda_tile.module @kernels {
  // expected-error @below {{inferred shape of elements literal ([3]) does not match type ([2])}}
  global @g <i32: [1, 2, 3]> : tile<2xi32>
}

// -----

// A constant's type must be a tile of a number type (ODS's result constraint).
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{custom op 'cuda_tile.constant' result #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got 'vector<4xf32>'}}
    %c = constant <f32: 1.0> : vector<4xf32>
    return
  }
}
