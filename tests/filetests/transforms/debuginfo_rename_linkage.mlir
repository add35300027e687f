// Renaming a function updates the linkage name of its subprogram, also where it is
// reached through a lexical block.
// RUN: tileir-opt %s --test-debuginfo-update-symbol-name="symbol-to-rename=kernels::k new-name=_Z1kv" --mlir-print-debuginfo | FileCheck %s

// CHECK: entry @_Z1kv()
// CHECK: #cuda_tile.di_subprogram<{{.*}}, name = "k", linkageName = "_Z1kv"
// CHECK-NOT: linkageName = "k"

#file = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 1>
#blk = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 2, column = 3>
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <i32: 1> : tile<i32> loc(#cuda_tile.di_loc<loc("/src/k.py":2:3) in #blk>)
    return loc(#cuda_tile.di_loc<loc("/src/k.py":3:3) in #sp>)
  } loc(#cuda_tile.di_loc<loc("/src/k.py":1:1) in #sp>)
}
