// tileas-unspecialized-pipeline leaves a loop whose producer cannot run ahead (it reads a
// value the loop carries) bit-for-bit unchanged, with the remark of spec/001; functions
// with agent_switch are never pipelined.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics -tileas-unspecialized-pipeline | FileCheck %s

// CHECK-LABEL: nv_tileaa.func @carried
// CHECK: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=1,
// CHECK-COUNT-1: cuda_tile.for
// CHECK-NOT: cuda_tile.for
"nv_tileaa.func"() <{function_type = (i32) -> (), kernel, sym_name = "carried"}> ({
^bb0(%n: i32):
  %c0 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %c1 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %z = "cuda_tile.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> f32
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=1, consumers=1, [f32]>
  %itp = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
  %itc = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=1, consumers=1, [f32]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>
  // expected-remark @below {{Failed to pipeline loop}}
  %r:3 = "cuda_tile.for"(%c0, %n, %c1, %z, %itp, %itc) ({
  ^bb0(%i: i32, %acc: f32, %p: !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>, %c: !nv_tileas.iterator<!nv_tileas.pipeline<stages=1, consumers=1, [f32]>>):
    "nv_tileas.async.pipeline.produce_one"(%pipe, %p) <{pipeline_stage = 0 : i64}> ({
    ^bb0(%old: f32):
      "nv_tileas.async.pipeline.yield"(%acc) : (f32) -> ()
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
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
