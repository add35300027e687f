// Invalid module-level constructs: globals, get_global, entry signatures and grid queries.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// globals are rank-1 tiles.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.global' op type must have rank 1}}
  global @g <f32: 1.000000e+00> : tile<f32>
}

// -----

// get_global must name an existing global.
cuda_tile.module @kernels {
  entry @k() {
    // expected-error @below {{'cuda_tile.get_global' op 'missing' does not reference a valid global}}
    %p = get_global @missing : tile<ptr<f32>>
    return
  }
}

// -----

// get_global's pointee must equal the global element type.
cuda_tile.module @kernels {
  global @g <f16: [1.000000e+00, 2.000000e+00]> : tile<2xf16>
  entry @k() {
    // expected-error @below {{'cuda_tile.get_global' op pointee type of result type '!cuda_tile.ptr<f32>' does not match type 'f16' of the global @g}}
    %p = get_global @g : tile<ptr<f32>>
    return
  }
}

// -----

// get_global returns a scalar pointer tile.
cuda_tile.module @kernels {
  global @g <i32: [1, 2]> : tile<2xi32>
  entry @k() {
    // expected-error @below {{'cuda_tile.get_global' op result #0 must be 0D tile of Pointer type values, but got '!cuda_tile.tile<2xptr<i32>>'}}
    %p = get_global @g : tile<2xptr<i32>>
    return
  }
}

// -----

// entry arguments are scalar tiles.
cuda_tile.module @kernels {
  // expected-error @below {{'cuda_tile.entry' op entry op must have scalar types (rank 0 !cuda_tile.tile)}}
  entry @k(%x: tile<4xf32>) {
    return
  }
}

// -----

// symbols are unique within a module.
cuda_tile.module @kernels {
  // expected-note @below {{see existing symbol definition here}}
  entry @k() {
    return
  }
  // expected-error @below {{redefinition of symbol named 'k'}}
  entry @k() {
    return
  }
}

// -----

// get_tile_block_id returns i32 scalars.
cuda_tile.module @kernels {
  entry @k() {
    // expected-error @below {{'cuda_tile.get_tile_block_id' op result #0 must be 0D tile of i32 values, but got '!cuda_tile.tile<i64>'}}
    %x, %y, %z = get_tile_block_id : tile<i64>
    return
  }
}

// -----

// get_num_tile_blocks returns i32 scalars.
cuda_tile.module @kernels {
  entry @k() {
    // expected-error @below {{'cuda_tile.get_num_tile_blocks' op result #0 must be 0D tile of i32 values, but got '!cuda_tile.tile<2xi32>'}}
    %x, %y, %z = get_num_tile_blocks : tile<2xi32>
    return
  }
}

// -----

// get_tile_block_id has three results.
cuda_tile.module @kernels {
  entry @k() {
    // expected-error @below {{operation defines 3 results but was provided 2 to bind}}
    %x, %y = get_tile_block_id : tile<i32>
    return
  }
}

// -----

// modules do not nest.
// expected-error @below {{'cuda_tile.module' op only function and global ops are allowed in the body}}
cuda_tile.module @kernels {
  // expected-remark @below {{invalid op}}
  cuda_tile.module @inner {
  }
}
