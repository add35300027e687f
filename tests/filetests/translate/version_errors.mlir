// tileir-translate rejects what an older bytecode version cannot encode, and
// unsupported versions and malformed input.
// RUN: not tileir-translate -mlir-to-cudatilebc -bytecode-version=13.1 -split-input-file %s -o %t.bc 2>&1 | FileCheck %s
// RUN: not tileir-translate -mlir-to-cudatilebc -bytecode-version=12.0 %s -o %t.bc 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: printf 'not bytecode' > %t.bad
// RUN: not tileir-translate -cudatilebc-to-mlir %t.bad 2>&1 | FileCheck %s --check-prefix=MAGIC

// VERSION: Invalid argument '12.0'
// MAGIC: invalid magic number

// CHECK: operation 'cuda_tile.atan2' is not available in bytecode version 13.1
cuda_tile.module @kernels {
  entry @k(%x: tile<f32>) {
    %0 = atan2 %x, %x : tile<f32>
    return
  }
}

// -----

// CHECK: 'cuda_tile.negi' op attribute 'overflow' requires bytecode version 13.2+, but targeting 13.1
cuda_tile.module @kernels {
  entry @k(%x: tile<i16>) {
    %0 = negi %x overflow<no_signed_wrap> : tile<i16>
    return
  }
}

// -----

// CHECK: type 'Float8E8M0FNU' requires bytecode version 13.2+, targeting 13.1
cuda_tile.module @kernels {
  entry @k(%x: tile<f8E8M0FNU>) {
    return
  }
}

// -----

// CHECK: operation 'cuda_tile.make_strided_view' is not available in bytecode version 13.1
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) {
    %tv = make_tensor_view %p, shape = [16], strides = [1] : tensor_view<16xf32, strides=[1]>
    %sv = make_strided_view %tv : strided_view<tile=(2), traversal_strides=[3], tensor_view<16xf32, strides=[1]>>
    return
  }
}

// -----

// CHECK: global `g` uses non-public symbol visibility, which cannot be encoded in bytecode version 13.1 (requires bytecode 13.3+)
cuda_tile.module @kernels {
  global private @g <f32: 1.0> : tile<2xf32>
}

// -----

// CHECK: 'cuda_tile.print_tko' op optional operand 'token' is provided but requires bytecode version 13.2, targeting 13.1
cuda_tile.module @kernels {
  entry @k() {
    %t = make_token : token
    %p = print_tko "x" token=%t -> token
    return
  }
}

// -----

// CHECK: 'cuda_tile.print_tko' op result 'result_token' requires bytecode version 13.2 but is being used and targeting 13.1
cuda_tile.module @kernels {
  entry @k() {
    %p = print_tko "x" -> token
    %j = join_tokens %p, %p : token
    return
  }
}
