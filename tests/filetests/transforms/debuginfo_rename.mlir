// NVIDIA's test pass of its debug-info rename utility: the symbol and the linkage name
// of its subprogram (also through lexical blocks) change, uses follow.
// RUN: tileir-opt %s --test-debuginfo-update-symbol-name="symbol-to-rename=kernels::g new-name=g2 update-uses=true" --mlir-print-debuginfo | FileCheck %s
// RUN: not tileir-opt %s --test-debuginfo-update-symbol-name="symbol-to-rename=kernels::k scope=kernels::other new-name=x" 2>&1 | FileCheck %s --check-prefix=SCOPE

// CHECK: global @g2
// CHECK: entry @k()
// CHECK: get_global @g2
// CHECK-DAG: #cuda_tile.di_subprogram<{{.*}} name = "k", linkageName = "k"
// SCOPE: error: attempted to update symbol names in a scope that did not enclose the symbol itself
// SCOPE: note: scope defined here

#file = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 1>
#blk = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 2, column = 3>
cuda_tile.module @kernels {
  global @g <f32: 1.0> : tile<1xf32>
  entry @k() {
    %p = get_global @g : tile<ptr<f32>> loc(#cuda_tile.di_loc<loc("/src/k.py":2:3) in #blk>)
    return loc(#cuda_tile.di_loc<loc("/src/k.py":3:3) in #sp>)
  } loc(#cuda_tile.di_loc<loc("/src/k.py":1:1) in #sp>)
  entry @other() {
    return
  }
}
