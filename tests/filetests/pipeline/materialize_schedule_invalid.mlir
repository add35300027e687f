// tileas-materialize-schedule's alias check (spec/001, materialization stage 2): a pipeline
// reaching schedule materialization must belong to one loop, with the loop's producer
// tagged stage 0 and its consumer a later stage; anything else is fatal.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics -tileas-materialize-schedule
// RUN: tileir-opt %s -split-input-file --pass-pipeline='tileas-materialize-schedule{strategy=none}' | FileCheck %s --check-prefix=NONE

// With strategy none the pass does nothing, so it checks nothing either.
// NONE: "nv_tileas.async.pipeline.consume_one"(%{{.*}}) <{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}>
// NONE-NOT: tileas.schedule
// NONE-NOT: agent_switch

// One pipeline consumed by two loops.
"nv_tileaa.func"() <{function_type = (i32) -> (), kernel, sym_name = "k"}> ({
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
      "nv_tileas.async.pipeline.yield"(%z) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
    %p2 = "nv_tileas.async.pipeline.inc_iter"(%p) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    %v = "nv_tileas.async.pipeline.consume_one"(%pipe, %c) <{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}> ({
    ^bb0(%e: f32):
      "nv_tileas.async.pipeline.yield"(%e) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> f32
    %c2 = "nv_tileas.async.pipeline.inc_iter"(%c) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    %s = "cuda_tile.addf"(%acc, %v) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
    "cuda_tile.continue"(%s, %p2, %c2) : (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
  }) : (i32, i32, i32, f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>)
  %r2:2 = "cuda_tile.for"(%c0, %n, %c1, %r#0, %r#2) ({
  ^bb0(%j: i32, %acc2: f32, %c3: !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>):
    // expected-error @below {{Alias is not expected here.}}
    %w = "nv_tileas.async.pipeline.consume_one"(%pipe, %c3) <{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}> ({
    ^bb0(%e2: f32):
      "nv_tileas.async.pipeline.yield"(%e2) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> f32
    %c4 = "nv_tileas.async.pipeline.inc_iter"(%c3) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    %s2 = "cuda_tile.addf"(%acc2, %w) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
    "cuda_tile.continue"(%s2, %c4) : (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
  }) : (i32, i32, i32, f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// The consumer is tagged with the producer's stage.
"nv_tileaa.func"() <{function_type = (i32) -> (), kernel, sym_name = "k"}> ({
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
      "nv_tileas.async.pipeline.yield"(%z) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
    %p2 = "nv_tileas.async.pipeline.inc_iter"(%p) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    // expected-error @below {{Alias is not expected here.}}
    %v = "nv_tileas.async.pipeline.consume_one"(%pipe, %c) <{consumer_idx = 0 : i64, pipeline_stage = 0 : i64}> ({
    ^bb0(%e: f32):
      "nv_tileas.async.pipeline.yield"(%e) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> f32
    %c2 = "nv_tileas.async.pipeline.inc_iter"(%c) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    %s = "cuda_tile.addf"(%acc, %v) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
    "cuda_tile.continue"(%s, %p2, %c2) : (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
  }) : (i32, i32, i32, f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// The consumer carries no stage tag.
"nv_tileaa.func"() <{function_type = (i32) -> (), kernel, sym_name = "k"}> ({
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
      "nv_tileas.async.pipeline.yield"(%z) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
    %p2 = "nv_tileas.async.pipeline.inc_iter"(%p) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    // expected-error @below {{Alias is not expected here.}}
    %v = "nv_tileas.async.pipeline.consume_one"(%pipe, %c) <{consumer_idx = 0 : i64}> ({
    ^bb0(%e: f32):
      "nv_tileas.async.pipeline.yield"(%e) : (f32) -> ()
    }) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> f32
    %c2 = "nv_tileas.async.pipeline.inc_iter"(%c) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
    %s = "cuda_tile.addf"(%acc, %v) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (f32, f32) -> f32
    "cuda_tile.continue"(%s, %p2, %c2) : (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> ()
  }) : (i32, i32, i32, f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>) -> (f32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
