// Debug-info scope rules: function scope must be a subprogram whose linkageName
// is the function name; ops can only be scoped when their function is, and
// only to that function's subprogram; globals take no scope.
// The diagnostics are reported at the scoped location (a.py), outside this
// file, so they are checked on stderr rather than with -verify-diagnostics.
// RUN: not tileir-opt %s -split-input-file 2>&1 | FileCheck %s

#file = #cuda_tile.di_file<"a.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "other", linkageName = "other", compileUnit = #cu>
// CHECK: a.py:1:1: error: 'cuda_tile.entry' op invalid function debug info scope
// CHECK-SAME: Function name "k" does not match subprogram scope linkage name "other".
cuda_tile.module @kernels {
  entry @k() {
    return
  } loc(#cuda_tile.di_loc<loc("a.py":1:1) in #sp>)
}

// -----

#file = #cuda_tile.di_file<"a.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cu>
// CHECK: a.py:2:1: error: {{.*}}invalid operation debug info scope
// CHECK-SAME: Operation has debug info scope, but function debug info scope is undefined.
cuda_tile.module @kernels {
  entry @k(%x: tile<f32>) {
    %0 = negf %x : tile<f32> loc(#cuda_tile.di_loc<loc("a.py":2:1) in #sp>)
    return
  } loc("a.py":1:1)
}

// -----

#file = #cuda_tile.di_file<"a.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cu>
#sp2 = #cuda_tile.di_subprogram<file = #file, line = 5, name = "j", linkageName = "j", compileUnit = #cu>
// CHECK: a.py:2:1: error: invalid operation debug info scope: #cuda_tile.di_subprogram<{{.*}}name = "j"
// CHECK-SAME: Operation debug info scope does not match function debug info scope: #cuda_tile.di_subprogram<{{.*}}name = "k"
cuda_tile.module @kernels {
  entry @k(%x: tile<f32>) {
    %0 = negf %x : tile<f32> loc(#cuda_tile.di_loc<loc("a.py":2:1) in #sp2>)
    return
  } loc(#cuda_tile.di_loc<loc("a.py":1:1) in #sp>)
}

// -----

#file = #cuda_tile.di_file<"a.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "g", linkageName = "g", compileUnit = #cu>
// CHECK: a.py:1:1: error: 'cuda_tile.global' op invalid operation debug info scope
// CHECK-SAME: Global variables must not have scope.
cuda_tile.module @kernels {
  global @g <f32: 0.0> : tile<2xf32> loc(#cuda_tile.di_loc<loc("a.py":1:1) in #sp>)
}

// -----

#file = #cuda_tile.di_file<"a.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cu>
#block = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 2>
// CHECK: a.py:1:1: error: 'cuda_tile.entry' op invalid function debug info scope: #cuda_tile.di_lexical_block<
// CHECK-SAME: Function location must have cuda_tile.di_subprogram debug info scope.
cuda_tile.module @kernels {
  entry @k() {
    return
  } loc(#cuda_tile.di_loc<loc("a.py":1:1) in #block>)
}
