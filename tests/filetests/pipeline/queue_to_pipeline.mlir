// tileas-queue-to-pipeline: a producer agent puts eight entries into a two-deep queue,
// the second entry of each pair only when a flag is set, and a consumer agent takes them.
// The queue becomes a pipeline, execute an agent_switch, put/get produce_one/consume_one,
// and each agent's iterators are created at its start and threaded through `for` (an extra
// iter value and result) and `if` (an extra result yielded by both arms).
// RUN: tileir-opt %s -tileas-queue-to-pipeline | FileCheck %s
// RUN: tileir-opt %s -tileas-queue-to-pipeline | tileir-opt | FileCheck %s

// CHECK-LABEL: nv_tileaa.func @queues
// CHECK: %[[P:.*]] = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
// CHECK-NOT: nv_tileaa.create_queue
// CHECK: "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 4>}>
// CHECK: %[[IT0:.*]] = "nv_tileas.async.pipeline.create_iterator"(%[[P]])
// CHECK: %[[END:.*]]:2 = cuda_tile.for %{{.*}} in ({{.*}}) : i32 iter_values(%{{.*}} = %{{.*}}, %[[IT:.*]] = %[[IT0]])
// CHECK: "nv_tileas.async.pipeline.produce_one"(%[[P]], %[[IT]])
// CHECK: ^bb0(%{{.*}}: !cuda_tile.tile<4xf32>):
// CHECK: "nv_tileas.async.pipeline.yield"
// CHECK: %[[IT1:.*]] = "nv_tileas.async.pipeline.inc_iter"(%[[IT]])
// CHECK: %[[IF:.*]] = {{(cuda_tile\.)?}}if %
// CHECK: "nv_tileas.async.pipeline.produce_one"(%[[P]], %[[IT1]])
// CHECK: %[[IT2:.*]] = "nv_tileas.async.pipeline.inc_iter"(%[[IT1]])
// CHECK: yield %[[IT2]]
// CHECK: } else {
// CHECK: yield %[[IT1]]
// CHECK: continue %{{.*}}, %[[IF]]
// CHECK: "nv_tileas.async.pipeline.yield"() : () -> ()
// CHECK: "nv_tileas.async.pipeline.create_iterator"(%[[P]])
// CHECK: "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 0 : i64}>
// CHECK-NOT: nv_tileaa.queue
"nv_tileaa.func"() <{function_type = (!nv_tileaa.ptr<f32, 1>, i1) -> (), kernel, sym_name = "queues"}> ({
^bb0(%out: !nv_tileaa.ptr<f32, 1>, %flag: i1):
  %c0 = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %c1 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
  %c4 = "cuda_tile.constant"() <{value = dense<4> : tensor<i32>}> : () -> i32
  %q = "nv_tileaa.create_queue"() : () -> !nv_tileaa.queue<2, [tile<4xf32>]>
  "nv_tileaa.execute"() <{num_warps = array<i64: 1, 4>}> ({
    %n = "cuda_tile.for"(%c0, %c4, %c1, %c0) ({
    ^bb0(%i: i32, %acc: i32):
      "nv_tileaa.queue.put"(%q) ({
        %v = "cuda_tile.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !cuda_tile.tile<4xf32>
        "nv_tileaa.queue.yield"(%v) : (!cuda_tile.tile<4xf32>) -> ()
      }) : (!nv_tileaa.queue<2, [tile<4xf32>]>) -> ()
      "cuda_tile.if"(%flag) ({
        "nv_tileaa.queue.put"(%q) ({
          %w = "cuda_tile.constant"() <{value = dense<2.0> : tensor<4xf32>}> : () -> !cuda_tile.tile<4xf32>
          "nv_tileaa.queue.yield"(%w) : (!cuda_tile.tile<4xf32>) -> ()
        }) : (!nv_tileaa.queue<2, [tile<4xf32>]>) -> ()
        "cuda_tile.yield"() : () -> ()
      }, {
        "cuda_tile.yield"() : () -> ()
      }) : (i1) -> ()
      %a = "cuda_tile.addi"(%acc, %c1) <{overflow = #cuda_tile.overflow<none>}> : (i32, i32) -> i32
      "cuda_tile.continue"(%a) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "nv_tileaa.queue.yield"() : () -> ()
  }, {
    %s = "cuda_tile.for"(%c0, %c4, %c1, %c0) ({
    ^bb0(%i: i32, %acc: i32):
      %r = "nv_tileaa.queue.get"(%q) <{consumer_idx = 0 : i64}> ({
      ^bb0(%e: !cuda_tile.tile<4xf32>):
        "nv_tileaa.queue.yield"(%e) : (!cuda_tile.tile<4xf32>) -> ()
      }) : (!nv_tileaa.queue<2, [tile<4xf32>]>) -> !cuda_tile.tile<4xf32>
      "cuda_tile.continue"(%acc) : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "nv_tileaa.queue.yield"() : () -> ()
  }) : () -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
