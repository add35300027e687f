// The fields NVIDIA's test ops gained in the test-only bytecode version 250.1
// (an optional attribute, a unit flag, a defaulted attribute, an optional
// operand and a used result) round-trip through 250.1 bytecode and tileir-opt.
// RUN: tileir-translate -mlir-to-cudatilebc -no-implicit-module -bytecode-version=250.1 %s -o %t.bc
// RUN: tileir-translate -cudatilebc-to-mlir %t.bc | FileCheck %s
// RUN: tileir-translate -test-cudatile-roundtrip -no-implicit-module -bytecode-version=250.1 %s | FileCheck %s
// RUN: tileir-opt %s | FileCheck %s

// CHECK-LABEL: entry @evolved
cuda_tile.module @m {
  entry @evolved() {
    %a = constant <f32: 0.5> : tile<2xf32>
    // CHECK: %[[T0:.*]] = testing$bytecode_test_evolution(%{{.*}} : !cuda_tile.tile<2xf32>) new_attr = -7 -> token
    %t0 = testing$bytecode_test_evolution (%a : !cuda_tile.tile<2xf32>) new_attr = -7 -> !cuda_tile.token
    // CHECK-NEXT: %[[T1:.*]] = testing$bytecode_test_evolution(%{{.*}} : !cuda_tile.tile<2xf32>) token = %[[T0]] : token -> token
    %t1 = testing$bytecode_test_evolution (%a : !cuda_tile.tile<2xf32>) token = %t0 : token -> token
    // CHECK-NEXT: join_tokens %[[T0]], %[[T1]] : token
    %j = join_tokens %t0, %t1 : token
    // CHECK-NEXT: testing$bytecode_test_new_attribute new_flag{{$}}
    testing$bytecode_test_new_attribute new_flag
    // CHECK-NEXT: testing$bytecode_test_new_attribute new_param = 0{{$}}
    testing$bytecode_test_new_attribute new_param = 0
    // CHECK-NEXT: testing$bytecode_test_new_attribute new_flag new_param = -2147483648{{$}}
    testing$bytecode_test_new_attribute new_flag new_param = -2147483648
    return
  }
}
