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

// CHECK: type 'F8E8M0FNU' requires bytecode version 13.2+, targeting 13.1
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

// CHECK: 'cuda_tile.global' op '@g': attribute 'symbol_visibility' requires bytecode version 13.3+, but targeting 13.1
cuda_tile.module @kernels {
  global private @g <f32: 1.0> : tile<2xf32>
}
