// synthesize-debug-info-scopes finds file locations through name, fused and call-site
// locations (the first file location inside, callee before caller), as NVIDIA 13.3 does.
// RUN: tileir-opt %s --pass-pipeline="builtin.module(cuda_tile.module(synthesize-debug-info-scopes))" --mlir-print-debuginfo | FileCheck %s

// CHECK-DAG: #[[FILE:.*]] = #cuda_tile.di_file<"f.py" in "/src">
// CHECK-DAG: #[[UNIT_FILE:.*]] = #cuda_tile.di_file<"unit.py" in "">
// CHECK-DAG: #cuda_tile.di_compile_unit<file = #[[UNIT_FILE]]>
// CHECK-DAG: #cuda_tile.di_subprogram<file = #[[FILE]], line = 10, name = "k", linkageName = "k", {{.*}}scopeLine = 10>
// CHECK-DAG: loc("/src/f.py":10:4)
// CHECK-DAG: loc("/src/f.py":12:2)
// CHECK-DAG: loc("/src/f.py":13:6)
cuda_tile.module @m {
  testing$func @k() {
    %c = constant <i32: 1> : tile<i32> loc(callsite(unknown at "/src/f.py":12:2))
    return loc("ret"("/src/f.py":13:6))
  } loc(fused[unknown, "/src/f.py":10:4, "/src/g.py":1:1])
} loc("unit"("unit.py":1:1))
