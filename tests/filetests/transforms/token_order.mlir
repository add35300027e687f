// token-order threads memory-ordering tokens through accesses built unordered (all on the
// initial token), per alias set, as cuTile Python's front end does.
// RUN: tileir-opt %s --pass-pipeline="builtin.module(token-order{distinct-arguments=true})" -split-input-file | FileCheck %s

// A load after a store to the same array follows it; a load of another array does not;
// a store follows every earlier access of its array.
// CHECK-LABEL: entry @raw
// CHECK: %[[T:.*]] = make_token
// CHECK: %[[X:.*]], %[[XT:.*]] = load_view_tko weak %{{.*}}[%{{.*}}] token = %[[T]]
// CHECK: %[[S:.*]] = store_view_tko weak %{{.*}}, %{{.*}}[%{{.*}}] token = %[[XT]]
// CHECK: load_view_tko weak %{{.*}}[%{{.*}}] token = %[[S]]
// CHECK: load_view_tko weak %{{.*}}[%{{.*}}] token = %[[T]]
cuda_tile.module @m {
  entry @raw(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %va = make_tensor_view %a, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %vb = make_tensor_view %b, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pa = make_partition_view %va : partition_view<tile=(128), tensor_view<256xf32, strides=[1]>>
    %pb = make_partition_view %vb : partition_view<tile=(128), tensor_view<256xf32, strides=[1]>>
    %x, %xt = load_view_tko weak %pa[%c0] token = %t : partition_view<tile=(128), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %s = store_view_tko weak %x, %pa[%c1] token = %t : tile<128xf32>, partition_view<tile=(128), tensor_view<256xf32, strides=[1]>>, tile<i32> -> token
    %y, %yt = load_view_tko weak %pa[%c1] token = %t : partition_view<tile=(128), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %z, %zt = load_view_tko weak %pb[%c1] token = %t : partition_view<tile=(128), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    return
  }
}

// -----

// A store indexed by the induction variable, the only access of its array in the loop, is
// a parallel store: it follows what came before the loop, and nothing is carried for it.
// CHECK-LABEL: entry @parallel
// CHECK: %[[T:.*]] = make_token
// CHECK: for %{{.*}} in (%{{.*}} to %{{.*}}, step %{{.*}}) : tile<i32> {
// CHECK: store_view_tko weak %{{.*}}, %{{.*}}[%{{.*}}] token = %[[T]]
cuda_tile.module @m {
  entry @parallel(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %n: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %va = make_tensor_view %a, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %vb = make_tensor_view %b, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pa = make_partition_view %va : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>
    %pb = make_partition_view %vb : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>
    for %i in (%c0 to %n, step %c1) : tile<i32> {
      %x, %xt = load_view_tko weak %pa[%i] token = %t : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
      %s = store_view_tko weak %x, %pb[%i] token = %t : tile<16xf32>, partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>, tile<i32> -> token
      continue
    }
    return
  }
}

// -----

// A store whose index may repeat between iterations (a product may wrap) follows the
// previous iteration's: the loop carries the array's last access.
// CHECK-LABEL: entry @carried
// CHECK: %[[T:.*]] = make_token
// CHECK: for %{{.*}} in (%{{.*}} to %{{.*}}, step %{{.*}}) : tile<i32> iter_values(%[[C:.*]] = %[[T]]) -> (token) {
// CHECK: %[[S:.*]] = store_view_tko weak %{{.*}}, %{{.*}}[%{{.*}}] token = %[[C]]
// CHECK: continue %[[S]] : token
cuda_tile.module @m {
  entry @carried(%b: tile<ptr<f32>>, %n: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %x = constant <f32: 1.0> : tile<16xf32>
    %vb = make_tensor_view %b, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pb = make_partition_view %vb : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>
    for %i in (%c0 to %n, step %c1) : tile<i32> {
      %j = muli %i, %c2 : tile<i32>
      %s = store_view_tko weak %x, %pb[%j] token = %t : tile<16xf32>, partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>, tile<i32> -> token
      continue
    }
    return
  }
}

// -----

// After an acquire, every access follows it; a release follows every earlier access.
// CHECK-LABEL: entry @acquire_release
// CHECK: %[[T:.*]] = make_token
// CHECK: %{{.*}}, %[[L:.*]] = atomic_cas_tko acquire{{.*}}token=%[[T]]
// CHECK: %{{.*}}, %[[X:.*]] = load_view_tko weak %{{.*}}[%{{.*}}] token = %[[L]]
// CHECK: %[[J:.*]] = join_tokens %[[L]], %[[X]]
// CHECK: atomic_rmw_tko release{{.*}}token=%[[J]]
cuda_tile.module @m {
  entry @acquire_release(%lock: tile<ptr<i32>>, %a: tile<ptr<f32>>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %old, %lt = atomic_cas_tko acquire device %lock, %c0, %c1 token = %t : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %va = make_tensor_view %a, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pa = make_partition_view %va : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>
    %x, %xt = load_view_tko weak %pa[%c0] token = %t : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    %r, %rt = atomic_rmw_tko release device %lock, xchg, %c0 token = %t : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    return
  }
}

// -----

// An if merges the tokens of the sets its branches touch: a branch that does not touch
// them yields the tokens it got; a loop's break and continue pass them on.
// CHECK-LABEL: entry @branches
// CHECK: %[[T:.*]] = make_token
// CHECK: %[[L:.*]] = loop iter_values(%[[OP:.*]] = %[[T]], %[[ST:.*]] = %[[T]]) : token, token -> token {
// CHECK: %[[I:.*]]:2 = if %{{.*}} -> (token, token) {
// CHECK: %[[S:.*]] = store_view_tko weak %{{.*}}, %{{.*}}[%{{.*}}] token = %[[OP]]
// CHECK: yield %[[S]], %[[S]] : token, token
// CHECK: } else {
// CHECK: break %[[ST]] : token
// CHECK: continue %[[I]]#0, %[[I]]#1 : token, token
// CHECK: load_view_tko weak %{{.*}}[%{{.*}}] token = %[[L]]
cuda_tile.module @m {
  entry @branches(%b: tile<ptr<f32>>, %c: tile<i1>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %x = constant <f32: 1.0> : tile<16xf32>
    %vb = make_tensor_view %b, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pb = make_partition_view %vb : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>
    loop {
      if %c {
        %s = store_view_tko weak %x, %pb[%c0] token = %t : tile<16xf32>, partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>, tile<i32> -> token
      } else {
        break
      }
      continue
    }
    %y, %yt = load_view_tko weak %pb[%c0] token = %t : partition_view<tile=(16), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
    return
  }
}
