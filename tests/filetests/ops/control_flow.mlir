// Control flow (7 ops): if with and without else and results, for with
// iter_values and the unsigned flag, loop with continue/break carrying
// different types, early return from an if, and nesting of all of them.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt -mlir-print-op-generic %s | tileir-opt | FileCheck %s
// RUN: %round_trip_test %s %t

// CHECK-LABEL: cuda_tile.module @kernels
cuda_tile.module @kernels {
  // CHECK-LABEL: entry @ifs(
  entry @ifs(%c: tile<i1>, %a: tile<f32>, %b: tile<i32>) {
    // CHECK: if %{{[^ ,]+}}
    if %c {
      // CHECK: negf %{{[^ ,]+}} : tile<f32>
      %0 = negf %a : tile<f32>
    }
    // CHECK: if %{{[^ ,]+}}
    if %c {
      // CHECK: absf %{{[^ ,]+}} : tile<f32>
      %1 = absf %a : tile<f32>
    // CHECK: } else
    } else {
      // CHECK: absi %{{[^ ,]+}} : tile<i32>
      %2 = absi %b : tile<i32>
    }
    // CHECK: if %{{[^ ,]+}} -> (tile<f32>, tile<i32>)
    %3:2 = if %c -> (tile<f32>, tile<i32>) {
      // CHECK: yield %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>, tile<i32>
      yield %a, %b : tile<f32>, tile<i32>
    // CHECK: } else
    } else {
      // CHECK: negf %{{[^ ,]+}} : tile<f32>
      %4 = negf %a : tile<f32>
      // CHECK: negi %{{[^ ,]+}} : tile<i32>
      %5 = negi %b : tile<i32>
      // CHECK: yield %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>, tile<i32>
      yield %4, %5 : tile<f32>, tile<i32>
    }
    // Early exit: return is allowed inside an if (not inside loops).
    // CHECK: if %{{[^ ,]+}}
    if %c {
      // CHECK: return
      return
    }
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @fors(
  entry @fors(%n: tile<i32>, %x: tile<f32>) {
    // CHECK: constant <i32: 0> : tile<i32>
    %lb = constant <i32: 0> : tile<i32>
    // CHECK: constant <i32: 1> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    // CHECK: for %{{[^ ,]+}} in (%{{[^ ,]+}} to %{{[^ ,]+}}, step %{{[^ ,]+}}) : tile<i32>
    for %iv in (%lb to %n, step %st) : tile<i32> {
      // CHECK: addi %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i32>
      %0 = addi %iv, %iv : tile<i32>
    }
    // CHECK: for %{{[^ ,]+}} in (%{{[^ ,]+}} to %{{[^ ,]+}}, step %{{[^ ,]+}}) : tile<i32> iter_values(%{{[^ ,]+}} = %{{[^ ,]+}}) -> (tile<f32>)
    %1 = for %iv in (%lb to %n, step %st) : tile<i32> iter_values(%acc = %x) -> (tile<f32>) {
      // CHECK: addf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
      %2 = addf %acc, %acc : tile<f32>
      // CHECK: continue %{{[^ ,]+}} : tile<f32>
      continue %2 : tile<f32>
    }
    // CHECK: for unsigned %{{[^ ,]+}} in (%{{[^ ,]+}} to %{{[^ ,]+}}, step %{{[^ ,]+}}) : tile<i32> iter_values(%{{[^ ,]+}} = %{{[^ ,]+}}, %{{[^ ,]+}} = %{{[^ ,]+}}) -> (tile<f32>, tile<i32>)
    %3:2 = for unsigned %iv in (%lb to %n, step %st) : tile<i32> iter_values(%p = %x, %q = %n) -> (tile<f32>, tile<i32>) {
      // CHECK: mulf %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>
      %4 = mulf %p, %p : tile<f32>
      // CHECK: addi %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i32>
      %5 = addi %q, %iv : tile<i32>
      // CHECK: continue %{{[^ ,]+}}, %{{[^ ,]+}} : tile<f32>, tile<i32>
      continue %4, %5 : tile<f32>, tile<i32>
    }
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @loops(
  entry @loops(%c: tile<i1>, %x: tile<i32>) {
    // CHECK: loop
    loop {
      // CHECK: break
      break
    }
    // continue carries the iteration type (i32), break the result type (f32).
    // CHECK: loop iter_values(%{{[^ ,]+}} = %{{[^ ,]+}}) : tile<i32> -> tile<f32>
    %0 = loop iter_values(%v = %x) : tile<i32> -> tile<f32> {
      // CHECK: addi %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i32>
      %1 = addi %v, %v : tile<i32>
      // CHECK: if %{{[^ ,]+}}
      if %c {
        // CHECK: itof %{{[^ ,]+}} signed : tile<i32> -> tile<f32>
        %2 = itof %1 signed : tile<i32> -> tile<f32>
        // CHECK: break %{{[^ ,]+}} : tile<f32>
        break %2 : tile<f32>
      }
      // CHECK: continue %{{[^ ,]+}} : tile<i32>
      continue %1 : tile<i32>
    }
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @nested(
  entry @nested(%c: tile<i1>, %n: tile<i64>) {
    // CHECK: constant <i64: 0> : tile<i64>
    %lb = constant <i64: 0> : tile<i64>
    // CHECK: constant <i64: 2> : tile<i64>
    %st = constant <i64: 2> : tile<i64>
    // CHECK: loop iter_values(%{{[^ ,]+}} = %{{[^ ,]+}}) : tile<i64> -> tile<i64>
    %r = loop iter_values(%i = %lb) : tile<i64> -> tile<i64> {
      // CHECK: for %{{[^ ,]+}} in (%{{[^ ,]+}} to %{{[^ ,]+}}, step %{{[^ ,]+}}) : tile<i64> iter_values(%{{[^ ,]+}} = %{{[^ ,]+}}) -> (tile<i64>)
      %s = for %j in (%lb to %n, step %st) : tile<i64> iter_values(%acc = %i) -> (tile<i64>) {
        // CHECK: if %{{[^ ,]+}} -> (tile<i64>)
        %t = if %c -> (tile<i64>) {
          // continue reaches the enclosing for through the if.
          // CHECK: continue %{{[^ ,]+}} : tile<i64>
          continue %acc : tile<i64>
        // CHECK: } else
        } else {
          // CHECK: addi %{{[^ ,]+}}, %{{[^ ,]+}} : tile<i64>
          %u = addi %acc, %j : tile<i64>
          // CHECK: yield %{{[^ ,]+}} : tile<i64>
          yield %u : tile<i64>
        }
        // CHECK: continue %{{[^ ,]+}} : tile<i64>
        continue %t : tile<i64>
      }
      // CHECK: cmpi greater_than %{{[^ ,]+}}, %{{[^ ,]+}}, signed : tile<i64> -> tile<i1>
      %d = cmpi greater_than %s, %n, signed : tile<i64> -> tile<i1>
      // CHECK: if %{{[^ ,]+}}
      if %d {
        // CHECK: break %{{[^ ,]+}} : tile<i64>
        break %s : tile<i64>
      }
      // CHECK: continue %{{[^ ,]+}} : tile<i64>
      continue %s : tile<i64>
    }
    // CHECK: return
    return
  }
}
