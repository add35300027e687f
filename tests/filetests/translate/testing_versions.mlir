// NVIDIA's test-only bytecode versions 250.0 and 250.1 with their test op
// `testing$bytecode_test_evolution` and `testing$bytecode_test_new_attribute`:
// listed after the releases, written with their own header and read back. An
// op that uses none of the fields added in 250.1 writes to both versions; 250.0
// drops the unused result (the reader gives it back) and the default `new_param`.
// RUN: tileir-translate --list-versions | FileCheck %s --check-prefix=LIST
// RUN: tileir-translate -mlir-to-cudatilebc -no-implicit-module -bytecode-version=250.0 %s -o %t.2500.bc
// RUN: od -An -tx1 -N12 %t.2500.bc | FileCheck %s --check-prefix=V2500
// RUN: tileir-translate -cudatilebc-to-mlir %t.2500.bc | FileCheck %s
// RUN: tileir-translate -mlir-to-cudatilebc -no-implicit-module -bytecode-version=250.1 %s -o %t.2501.bc
// RUN: od -An -tx1 -N12 %t.2501.bc | FileCheck %s --check-prefix=V2501
// RUN: tileir-translate -cudatilebc-to-mlir %t.2501.bc | FileCheck %s
// RUN: tileir-translate -test-cudatile-roundtrip -no-implicit-module -bytecode-version=250.0 %s | FileCheck %s
// RUN: tileir-opt %s | FileCheck %s

// LIST: 13.3
// LIST-NEXT: 13.4
// LIST-NEXT: 250.0
// LIST-NEXT: 250.1

// Magic "\x7FTileIR\0", then major 250 (0xfa), minor and a 16-bit tag.
// V2500: 7f 54 69 6c 65 49 52 00 fa 00 00 00
// V2501: 7f 54 69 6c 65 49 52 00 fa 01 00 00

// CHECK-LABEL: entry @evolution
cuda_tile.module @m {
  entry @evolution(%s: tile<f32>, %b: tile<i32>) {
    %a = constant <f32: [1.0, 2.0]> : tile<2xf32>
    // The inputs' types print in full, the tokens short.
    // CHECK: testing$bytecode_test_evolution(%{{.*}}, %{{.*}} : !cuda_tile.tile<2xf32>, !cuda_tile.tile<i32>) -> token
    %t0 = testing$bytecode_test_evolution (%a, %b : tile<2xf32>, tile<i32>) -> token
    // CHECK-NEXT: testing$bytecode_test_evolution( : ) -> token
    %t1 = testing$bytecode_test_evolution ( : ) -> !cuda_tile.token
    // CHECK-NEXT: testing$bytecode_test_new_attribute{{$}}
    testing$bytecode_test_new_attribute new_param = 42
    // CHECK-NEXT: testing$bytecode_test_new_attribute{{$}}
    testing$bytecode_test_new_attribute
    // CHECK-NEXT: return
    return
  }
}
