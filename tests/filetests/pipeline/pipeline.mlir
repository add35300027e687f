// The nv_tileas async pipeline family and the nv_tileaa queue family: a producer agent
// fills a two-stage pipeline of f32 tiles that a consumer agent drains, written in the
// generic form these ops print in; it must verify, print and re-parse unchanged.
// RUN: tileir-opt %s | tileir-opt | FileCheck %s
// RUN: tileir-opt %s -mlir-print-op-generic | tileir-opt -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: nv_tileaa.func @pipelined
// CHECK: %[[P:.*]] = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
// CHECK: "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 4>, registers = array<i64: 40, 232>}>
// CHECK: "nv_tileas.async.pipeline.produce_one"(%[[P]], %{{.*}}) <{pipeline_stage = 0 : i64}>
// CHECK: "nv_tileas.async.pipeline.yield"
// CHECK: "nv_tileas.async.pipeline.inc_iter"
// CHECK: "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}>
// GENERIC: "nv_tileaa.func"()
// GENERIC: "cuda_tile.for"
"nv_tileaa.func"() <{function_type = (!nv_tileaa.ptr<f32, 1>) -> (), kernel, sym_name = "pipelined"}> ({
^bb0(%out: !nv_tileaa.ptr<f32, 1>):
  %c0 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %c1 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %c8 = "cuda_tile.constant"() <{value = dense<8> : tensor<i32>}> : () -> i32
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it0 = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 4>, registers = array<i64: 40, 232>}> ({
    %end = "cuda_tile.for"(%c0, %c8, %c1, %it0) ({
    ^bb0(%i: i32, %it: !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>):
      "nv_tileas.async.pipeline.produce_one"(%pipe, %it) <{pipeline_stage = 0 : i64}> ({
      ^bb0(%old: !cuda_tile.tile<4xf32>):
        %v = "cuda_tile.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !cuda_tile.tile<4xf32>
        "nv_tileas.async.pipeline.yield"(%v) : (!cuda_tile.tile<4xf32>) -> ()
      }) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> ()
      %next = "nv_tileas.async.pipeline.inc_iter"(%it) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
      "cuda_tile.continue"(%next) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> ()
    }) : (i32, i32, i32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
    "nv_tileas.async.pipeline.yield"() : () -> ()
  }, {
    %end = "cuda_tile.for"(%c0, %c8, %c1, %it0) ({
    ^bb0(%i: i32, %it: !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>):
      %sum = "nv_tileas.async.pipeline.consume_one"(%pipe, %it) <{consumer_idx = 0 : i64, pipeline_stage = 1 : i64}> ({
      ^bb0(%entry: !cuda_tile.tile<4xf32>):
        %r = "cuda_tile.reduce"(%entry) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
        ^bb0(%a: !cuda_tile.tile<f32>, %b: !cuda_tile.tile<f32>):
          %s = "cuda_tile.addf"(%a, %b) <{rounding_mode = #cuda_tile.rounding<nearest_even>}> : (!cuda_tile.tile<f32>, !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>
          "cuda_tile.yield"(%s) : (!cuda_tile.tile<f32>) -> ()
        }) : (!cuda_tile.tile<4xf32>) -> f32
        "nv_tileas.async.pipeline.yield"(%r) : (f32) -> ()
      }) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> f32
      %next = "nv_tileas.async.pipeline.inc_iter"(%it) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
      "cuda_tile.continue"(%next) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> ()
    }) : (i32, i32, i32, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
    "nv_tileas.async.pipeline.yield"() : () -> ()
  }) : () -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
