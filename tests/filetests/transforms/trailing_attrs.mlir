// `if`, `for` and functions take an attribute dictionary after their regions (13.3);
// loop-split reads its hints from it, and the printer keeps them.
// RUN: tileir-opt %s | FileCheck %s --check-prefix=PRINT
// RUN: tileir-opt %s --pass-pipeline='builtin.module(cuda_tile.module(cuda_tile.entry(loop-split)))' | FileCheck %s

// PRINT: entry @k(%arg0: tile<ptr<i32>>, %arg1: tile<i1>) attributes {cuda_tile.loop_split = 0 : i64} {
// PRINT: } {cuda_tile.loop_split = 1 : i64}
// PRINT: } {cuda_tile.loop_split = 0 : i64}
// The function disables splitting and the loop enables it again: the loop is split.
// CHECK: mini
// CHECK: maxi
// CHECK: for
// CHECK: for
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<i32>>, %q: tile<i1>) {
    %c0 = constant <i32: 0> : tile<i32>
    %c7 = constant <i32: 7> : tile<i32>
    %lb = constant <i64: 0> : tile<i64>
    %ub = constant <i64: 128> : tile<i64>
    %st = constant <i64: 1> : tile<i64>
    %sp = constant <i64: 32> : tile<i64>
    %r = for %i in (%lb to %ub, step %st) : tile<i64> iter_values(%acc = %c0) -> (tile<i32>) {
      %c = cmpi greater_than_or_equal %i, %sp, signed : tile<i64> -> tile<i1>
      %a = if %c -> (tile<i32>) {
        %m = muli %c7, %c7 : tile<i32>
        yield %m : tile<i32>
      } else {
        yield %c7 : tile<i32>
      }
      %b = addi %acc, %a : tile<i32>
      continue %b : tile<i32>
    } {cuda_tile.loop_split = 1}
    %s = if %q -> (tile<i32>) {
      yield %r : tile<i32>
    } else {
      yield %c7 : tile<i32>
    } {cuda_tile.loop_split = 0}
    %t = store_ptr_tko weak %p, %s : tile<ptr<i32>>, tile<i32> -> token
    return
  } {cuda_tile.loop_split = 0}
}
