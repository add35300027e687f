// Writing NVIDIA's test ops to a version without the fields they use, or without
// the ops at all, fails naming the field; so do versions tileir does not know
// and out-of-range attribute values.
// RUN: not tileir-translate -mlir-to-cudatilebc -no-implicit-module -bytecode-version=250.0 -split-input-file %s -o %t.bc 2>&1 | FileCheck %s
// RUN: not tileir-translate -mlir-to-cudatilebc -no-implicit-module -bytecode-version=13.4 -split-input-file %s -o %t.bc 2>&1 | FileCheck %s --check-prefix=RELEASE
// RUN: not tileir-translate -mlir-to-cudatilebc -bytecode-version=250.2 %s -o %t.bc 2>&1 | FileCheck %s --check-prefix=VERSION

// VERSION: Invalid argument '250.2': the supported versions are [13.1 - 13.4]

// CHECK: 'cuda_tile.testing$bytecode_test_evolution' op optional attribute 'new_attr' is provided but requires bytecode version 250.1, targeting 250.0
// RELEASE: operation 'cuda_tile.testing$bytecode_test_evolution' is not available in bytecode version 13.4
cuda_tile.module @m {
  entry @k() {
    %a = constant <f32: 1.0> : tile<f32>
    %t = testing$bytecode_test_evolution (%a : tile<f32>) new_attr = 1 -> token
    return
  }
}

// -----

// CHECK: 'cuda_tile.testing$bytecode_test_new_attribute' op attribute 'new_param' requires bytecode version 250.1+, but targeting 250.0
// RELEASE: operation 'cuda_tile.testing$bytecode_test_new_attribute' is not available in bytecode version 13.4
cuda_tile.module @m {
  entry @k() {
    testing$bytecode_test_new_attribute new_param = 41
    return
  }
}

// -----

// The result is used (as another op's optional token).
// CHECK: 'cuda_tile.testing$bytecode_test_evolution' op result 'result_token' requires bytecode version 250.1 but is being used and targeting 250.0
cuda_tile.module @m {
  entry @k() {
    %t = testing$bytecode_test_evolution ( : ) -> token
    %u = testing$bytecode_test_evolution ( : ) token = %t : token -> token
    return
  }
}

// -----

// CHECK: integer constant out of range for attribute
cuda_tile.module @m {
  entry @k() {
    testing$bytecode_test_new_attribute new_param = 2147483648
    return
  }
}
