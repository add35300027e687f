// tileas-optimize-pipeline-region (spec/001 D13) shrinks produce_one/produce_one_async/
// consume_one regions to the backward slice of their yielded values: an op that does not
// feed the yield and has no effect moves out, before the region op, when it depends on
// nothing that stays inside; the walk stops at block arguments, at values defined outside
// the region and at a sibling produce_one; side-effecting ops stay. Stage-tagged regions
// over a still one-stage pipeline (a loop tileas-unspecialized-pipeline left synchronous)
// are skipped.
// RUN: tileir-opt %s -split-input-file -tileas-optimize-pipeline-region -mlir-print-op-generic | FileCheck %s
// RUN: tileir-opt %s -split-input-file --pass-pipeline='tileas-unspecialized-pipeline,tileas-optimize-pipeline-region' -mlir-print-op-generic | FileCheck %s --check-prefix=D11
// RUN: not tileir-opt %s -split-input-file --pass-pipeline='tileas-optimize-pipeline-region,tileas-unspecialized-pipeline' 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not tileir-opt %s --pass-pipeline='convert-tileaa-to-tileas,tileas-unspecialized-pipeline,tileas-materialize-async' 2>&1 | FileCheck %s --check-prefix=ORDER2

// ORDER: invalid pass pipeline at offset 0: pass 'tileas-optimize-pipeline-region' must run after 'tileas-unspecialized-pipeline' (spec/001 ordering invariant: Pipeline-region optimization must run after producer/consumer regions are in their final form)
// ORDER2: invalid pass pipeline at offset 25: pass 'tileas-unspecialized-pipeline' must run after 'tileas-materialize-async' (spec/001 ordering invariant: Async materialization must run before schedule materialization)

// CHECK-LABEL: sym_name = "shrink"
// The producer: the dead constant leaves, the yielded one and the print stay.
// CHECK: "nv_tileas.async.pipeline.create_pipeline"
// CHECK: "cuda_tile.for"
// CHECK: %[[DEAD:.*]] = "cuda_tile.constant"() <{value = dense<3.000000e+00>
// CHECK-NEXT: "nv_tileas.async.pipeline.produce_one"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[V:.*]] = "cuda_tile.constant"() <{value = dense<1.000000e+00>
// CHECK-NEXT: "cuda_tile.print_tko"(%[[DEAD]])
// CHECK-NEXT: "nv_tileas.async.pipeline.yield"(%[[V]])
// Region-parent boundary: %x (defined outside, in the loop body) stays where it is.
// CHECK: %[[X:.*]] = "cuda_tile.addf"(%[[I:.*]], %[[I]])
// The consumer: the constant leaves; the mulf of the entry (a block argument) cannot.
// CHECK-NEXT: %[[K:.*]] = "cuda_tile.constant"() <{value = dense<2.000000e+00>
// CHECK-NEXT: "nv_tileas.async.pipeline.consume_one"
// CHECK-NEXT: ^bb0(%[[E:.*]]: f32):
// CHECK-NEXT: "cuda_tile.mulf"(%[[E]], %[[K]])
// CHECK-NEXT: %[[Y:.*]] = "cuda_tile.addf"(%[[E]], %[[X]])
// CHECK-NEXT: "nv_tileas.async.pipeline.yield"(%[[Y]])
// Cross-pipeline boundary: the walk stops at the inner produce_one_async, so the iterator
// it reads is not part of the slice and leaves; the producer itself stays.
// CHECK: %[[IT2:.*]] = "nv_tileas.async.pipeline.inc_iter"
// CHECK-NEXT: "nv_tileas.async.pipeline.consume_one"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[TK:.*]] = "nv_tileas.async.pipeline.produce_one_async"(%{{.*}}, %[[IT2]])
// CHECK: "nv_tileas.async.pipeline.yield"(%[[TK]])
// D11-LABEL: sym_name = "shrink"
// D11: %{{.*}} = "cuda_tile.constant"() <{value = dense<3.000000e+00>
// D11-NEXT: "nv_tileas.async.pipeline.produce_one"
"nv_tileaa.func"() <{function_type = (i32, f32) -> (), kernel, sym_name = "shrink"}> ({
^bb0(%n: i32, %f: f32):
  %c0 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %c1 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [f32]>
  %itp = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [f32]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>
  %itc = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [f32]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>
  %tp = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [f32]>
  %tit = "nv_tileas.async.pipeline.create_iterator"(%tp) : (!nv_tileas.pipeline<stages=2, consumers=1, [f32]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>
  %r:2 = "cuda_tile.for"(%c0, %n, %c1, %itp, %itc) ({
  ^bb0(%i: i32, %p: !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>, %c: !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>):
    "nv_tileas.async.pipeline.produce_one"(%pipe, %p) ({
    ^bb0(%old: f32):
      %dead = "cuda_tile.constant"() <{value = dense<3.0> : tensor<f32>}> : () -> f32
      %v = "cuda_tile.constant"() <{value = dense<1.0> : tensor<f32>}> : () -> f32
      %pt = "cuda_tile.print_tko"(%dead) <{operandSegmentSizes = array<i32: 1, 0>, str = "%f"}> : (f32) -> !cuda_tile.token
      "nv_tileas.async.pipeline.yield"(%v) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=2, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> ()
    %p2 = "nv_tileas.async.pipeline.inc_iter"(%p) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>
    %fi = "cuda_tile.constant"() <{value = dense<4.0> : tensor<f32>}> : () -> f32
    %x = "cuda_tile.addf"(%fi, %fi) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
    %w = "nv_tileas.async.pipeline.consume_one"(%pipe, %c) <{consumer_idx = 0 : i64}> ({
    ^bb0(%e: f32):
      %k = "cuda_tile.constant"() <{value = dense<2.0> : tensor<f32>}> : () -> f32
      %d = "cuda_tile.mulf"(%e, %k) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
      %y = "cuda_tile.addf"(%e, %x) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
      "nv_tileas.async.pipeline.yield"(%y) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=2, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> f32
    %tok = "nv_tileas.async.pipeline.consume_one"(%pipe, %c) <{consumer_idx = 0 : i64}> ({
    ^bb0(%e2: f32):
      %it2 = "nv_tileas.async.pipeline.inc_iter"(%tit) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>
      %tk = "nv_tileas.async.pipeline.produce_one_async"(%tp, %it2) ({
      ^bb0(%o: f32):
        "nv_tileas.async.pipeline.yield"(%e2) : (f32) -> ()
      }) : (!nv_tileas.pipeline<stages=2, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> !nv_tileas.async.token
      "nv_tileas.async.pipeline.yield"(%tk) : (!nv_tileas.async.token) -> ()
    }) : (!nv_tileas.pipeline<stages=2, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> !nv_tileas.async.token
    %c2 = "nv_tileas.async.pipeline.inc_iter"(%c) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>
    "cuda_tile.continue"(%p2, %c2) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> ()
  }) : (i32, i32, i32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>) -> (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [f32]>>)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// A tagged region over a one-stage pipeline is a loop D11 left synchronous: skipped.
// CHECK-LABEL: sym_name = "refused"
// CHECK: "nv_tileas.async.pipeline.consume_one"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: "cuda_tile.constant"() <{value = dense<5.000000e+00>
// D11-LABEL: sym_name = "refused"
// D11: "nv_tileas.async.pipeline.consume_one"
// D11-NEXT: ^bb0
// D11-NEXT: "cuda_tile.constant"() <{value = dense<5.000000e+00>
"nv_tileaa.func"() <{function_type = (i32) -> (), kernel, sym_name = "refused"}> ({
^bb0(%n: i32):
  %c0 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %c1 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %z = "cuda_tile.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> f32
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=1, consumers=1, [f32]>
  %itp = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
  %itc = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
  %r:3 = "cuda_tile.for"(%c0, %n, %c1, %z, %itp, %itc) ({
  ^bb0(%i: i32, %acc: f32, %p: !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, %c: !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>):
    "nv_tileas.async.pipeline.produce_one"(%pipe, %p) <{pipeline_stage = 0 : i64}> ({
    ^bb0(%old: f32):
      "nv_tileas.async.pipeline.yield"(%acc) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
    %p2 = "nv_tileas.async.pipeline.inc_iter"(%p) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    %v = "nv_tileas.async.pipeline.consume_one"(%pipe, %c) <{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}> ({
    ^bb0(%e: f32):
      %unused = "cuda_tile.constant"() <{value = dense<5.0> : tensor<f32>}> : () -> f32
      "nv_tileas.async.pipeline.yield"(%e) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> f32
    %c2 = "nv_tileas.async.pipeline.inc_iter"(%c) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    %s = "cuda_tile.addf"(%acc, %v) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
    "cuda_tile.continue"(%s, %p2, %c2) : (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
  }) : (i32, i32, i32, f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
