// Invalid assume, assert and print_tko ops.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// div_by divisors are powers of two.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' divisor must be a power of 2}}
    %r = assume div_by<3>, %x : tile<i32>
    return
  }
}

// -----

// div_by applies to integer/pointer tiles and tensor views.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' is valid only for tile of integer/pointer or tensor_view values}}
    %r = assume div_by<4>, %x : tile<f32>
    return
  }
}

// -----

// every and along come together.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{expected 'along'}}
    %r = assume div_by<4, every 2>, %x : tile<4xi32>
    return
  }
}

// -----

// along must be below the rank.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.div_by' every_dim (1) must be >= 0 and < tile rank (1)}}
    %r = assume div_by<4, every 2 along 1>, %x : tile<4xi32>
    return
  }
}

// -----

// bounded needs lb <= ub.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.bounded' expects lower bound to be less than or equal to upper bound}}
    %r = assume bounded<5, 1>, %x : tile<i32>
    return
  }
}

// -----

// bounds must fit the element type.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i8>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.bounded' expects upper bound to be within [-128, 127]}}
    %r = assume bounded<0, 300>, %x : tile<i8>
    return
  }
}

// -----

// bounded applies to integer tiles only.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.assume' op 'cuda_tile.bounded' is valid only for tile of integer values}}
    %r = assume bounded<0, 1>, %x : tile<f32>
    return
  }
}

// -----

// same_elements needs one value per dimension.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4x8xi32>) {
    // expected-error @below {{'cuda_tile.assume' op expected number of values in 'cuda_tile.same_elements' (1) to match rank of constrained tile (2)}}
    %r = assume same_elements<[2]>, %x : tile<4x8xi32>
    return
  }
}

// -----

// same_elements values are at most the dimension size.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<4x8xi32>) {
    // expected-error @below {{'cuda_tile.assume' op expected 'cuda_tile.same_elements' value 1 to be within 0 and the size of the respective dimension (8)}}
    %r = assume same_elements<[2, 16]>, %x : tile<4x8xi32>
    return
  }
}

// -----

// unknown assume predicate.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.assume' unknown assume predicate attribute: other (expected 'div_by', 'same_elements', or 'bounded')}}
    %r = assume other<1>, %x : tile<i32>
    return
  }
}

// -----

// A full attribute that is not an assume predicate.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{custom op 'cuda_tile.assume' expected assume predicate attribute}}
    %r = assume 16 : i64, %x : tile<i32>
    return
  }
}

// -----

// assert conditions are i1 tiles.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<i32>) {
    // expected-error @below {{'cuda_tile.assert' op operand #0 must be tile of i1 values, but got '!cuda_tile.tile<i32>'}}
    assert %c, "bad" : tile<i32>
    return
  }
}

// -----

// each conversion needs an argument.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.print_tko' op incorrect number of operands: expected 2, found 1}}
    %t = print_tko "%f %f", %x : tile<f32> -> token
    return
  }
}

// -----

// each argument needs a conversion.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.print_tko' op incorrect number of operands: expected 0, found 1}}
    %t = print_tko "value", %x : tile<f32> -> token
    return
  }
}

// -----

// unknown conversion specifier.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{'cuda_tile.print_tko' op found unterminated format expression}}
    %t = print_tko "%y", %x : tile<f32> -> token
    return
  }
}

// -----

// print_tko's '-> token' is mandatory.
cuda_tile.module @kernels {
  testing$func @f() {
    // expected-error @below {{expected '->'}}
    print_tko "hi"
    return
  }
}

// -----

// The format string is an attribute.
cuda_tile.module @kernels {
  testing$func @f(%x: tile<i32>) {
    // expected-error @below {{expected attribute value}}
    %t = print_tko %x : tile<i32> -> token
    return
  }
}

// -----

// Naming the results of an op that has none.
cuda_tile.module @kernels {
  testing$func @f(%c: tile<i1>) {
    // expected-error @below {{cannot name an operation with no results}}
    %r = assert %c, "never" : tile<i1>
    return
  }
}

// -----

cuda_tile.module @kernels {
  testing$func @f(%x: tile<f32>) {
    // expected-error @below {{operation defines 1 results but was provided 2 to bind}}
    %a, %b = negf %x : tile<f32>
    return
  }
}
