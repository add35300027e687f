// tileir-translate: supported versions, the bytecode header for the default
// (13.3) and an explicit older version, text -> bytecode -> text in both
// directions, and the -test-cudatile-roundtrip shortcut.
// RUN: tileir-translate --list-versions | FileCheck %s --check-prefix=LIST
// RUN: tileir-translate -mlir-to-cudatilebc -no-implicit-module %s -o %t.bc
// RUN: od -An -tx1 -N12 %t.bc | FileCheck %s --check-prefix=V133
// RUN: tileir-translate -cudatilebc-to-mlir %t.bc | FileCheck %s
// RUN: tileir-translate -mlir-to-cudatilebc -bytecode-version=13.2 %s -o %t.132.bc
// RUN: od -An -tx1 -N12 %t.132.bc | FileCheck %s --check-prefix=V132
// RUN: tileir-translate -cudatilebc-to-mlir %t.132.bc | FileCheck %s
// RUN: tileir-translate -test-cudatile-roundtrip %s | FileCheck %s

// LIST: 13.1
// LIST-NEXT: 13.2
// LIST-NEXT: 13.3

// Magic "\x7FTileIR\0", then major, minor and a 16-bit tag.
// V133: 7f 54 69 6c 65 49 52 00 0d 03 00 00
// V132: 7f 54 69 6c 65 49 52 00 0d 02 00 00

// The module name is not stored in bytecode: the reader calls it @kernels.
// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK: entry @k(%[[X:.*]]: tile<f32>, %[[I:.*]]: tile<i16>)
  entry @k(%x: tile<f32>, %i: tile<i16>) {
    // atan2 and negi's overflow need 13.2.
    // CHECK: atan2 %[[X]], %[[X]] : tile<f32>
    %0 = atan2 %x, %x : tile<f32>
    // CHECK: negi %[[I]] overflow<no_signed_wrap> : tile<i16>
    %1 = negi %i overflow<no_signed_wrap> : tile<i16>
    // CHECK: print_tko "%f", %{{.*}} : tile<f32> -> token
    %t = print_tko "%f", %0 : tile<f32> -> token
    return
  }
}
