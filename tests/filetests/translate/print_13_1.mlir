// A 13.1 file has no token result for print_tko: an unused one is dropped when
// writing, and reading a 13.1 print gives print_tko with its token again (NVIDIA 13.3),
// without disturbing the numbering of the values after it.
// RUN: tileir-translate -mlir-to-cudatilebc -bytecode-version=13.1 %s -o %t.bc
// RUN: tileir-translate -cudatilebc-to-mlir %t.bc | FileCheck %s

// CHECK: %[[C:.*]] = constant <i32: 1> : tile<i32>
// CHECK: print_tko "a %d", %[[C]] : tile<i32> -> token
// CHECK: %[[D:.*]] = constant <i32: 2> : tile<i32>
// CHECK: print_tko "b %d", %[[D]] : tile<i32> -> token
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    %p = print_tko "a %d", %c : tile<i32> -> token
    %d = constant <i32: 2> : tile<i32>
    %q = print_tko "b %d", %d : tile<i32> -> token
    return
  }
}
