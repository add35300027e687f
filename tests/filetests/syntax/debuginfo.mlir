// Debug-info attributes and scoped locations: di_file, di_compile_unit,
// di_subprogram, di_lexical_block, di_loc; printed with aliases under
// -mlir-print-debuginfo and kept by the bytecode (only di_loc survives).
// RUN: tileir-opt -mlir-print-debuginfo %s | tileir-opt -mlir-print-debuginfo | FileCheck %s
// RUN: tileir-opt %s | FileCheck %s --check-prefix=NOLOC
// RUN: %round_trip_test %s %t -mlir-print-debuginfo

#file = #cuda_tile.di_file<"kernel.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 10, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 11>
#block = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 12, column = 4>
#kloc = #cuda_tile.di_loc<loc("kernel.py":10:1) in #sp>

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK: entry @k(
  entry @k(%x: tile<f32>) {
    // CHECK: addf {{.*}} : tile<f32> loc(#[[L_ADD:loc[0-9]*]])
    // CHECK: mulf {{.*}} : tile<f32> loc(#[[L_MUL:loc[0-9]*]])
    // CHECK: return loc(#[[L_RET:loc[0-9]*]])
    // CHECK: } loc(#[[L_FN:loc[0-9]*]])
    %0 = addf %x, %x : tile<f32> loc(#cuda_tile.di_loc<loc("kernel.py":12:5) in #sp>)
    %1 = mulf %0, %x : tile<f32> loc(#cuda_tile.di_loc<loc("kernel.py":13:7) in #block>)
    return loc(#cuda_tile.di_loc<loc("kernel.py":14:3) in #sp>)
  } loc(#kloc)
// The bytecode does not store the module's location: make it unknown so the
// round trip compares equal.
} loc(unknown)

// CHECK-DAG: #[[FILE:di_file[0-9]*]] = #cuda_tile.di_file<"kernel.py" in "/src">
// CHECK-DAG: #[[CU:di_compile_unit[0-9]*]] = #cuda_tile.di_compile_unit<file = #[[FILE]]>
// CHECK-DAG: #[[SP:di_subprogram[0-9]*]] = #cuda_tile.di_subprogram<file = #[[FILE]], line = 10, name = "k", linkageName = "k", compileUnit = #[[CU]], scopeLine = 11>
// CHECK-DAG: #[[LB:di_lexical_block[0-9]*]] = #cuda_tile.di_lexical_block<scope = #[[SP]], file = #[[FILE]], line = 12, column = 4>
// CHECK-DAG: #[[P_FN:loc[0-9]*]] = loc("kernel.py":10:1)
// CHECK-DAG: #[[P_ADD:loc[0-9]*]] = loc("kernel.py":12:5)
// CHECK-DAG: #[[P_MUL:loc[0-9]*]] = loc("kernel.py":13:7)
// CHECK-DAG: #[[P_RET:loc[0-9]*]] = loc("kernel.py":14:3)
// CHECK-DAG: #[[L_FN]] = #cuda_tile.di_loc<#[[P_FN]] in #[[SP]]>
// CHECK-DAG: #[[L_ADD]] = #cuda_tile.di_loc<#[[P_ADD]] in #[[SP]]>
// CHECK-DAG: #[[L_MUL]] = #cuda_tile.di_loc<#[[P_MUL]] in #[[LB]]>
// CHECK-DAG: #[[L_RET]] = #cuda_tile.di_loc<#[[P_RET]] in #[[SP]]>

// NOLOC-NOT: loc(
// NOLOC-NOT: #cuda_tile.di
