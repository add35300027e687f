// The nv_tileas verifier invariants (spec/000, I1-I12) and the nv_tileaa queue and
// memory-order rules (spec/002), one case each, with their diagnostics.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// I1: a produce_one region ends with nv_tileas.async.pipeline.yield.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  // expected-error @below {{'nv_tileas.async.pipeline.produce_one' op region #0 must end with nv_tileas.async.pipeline.yield, found 'cuda_tile.constant'}}
  "nv_tileas.async.pipeline.produce_one"(%pipe, %it) ({
  ^bb0(%old: !cuda_tile.tile<4xf32>):
    %v = "cuda_tile.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !cuda_tile.tile<4xf32>
  }) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I2: producer region arguments are the entry the producer token carries.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  // expected-error @below {{'nv_tileas.async.pipeline.produce_one' op producer region argument types (tile<8xf32>) must match the element types carried by the producer token (tile<4xf32>)}}
  "nv_tileas.async.pipeline.produce_one"(%pipe, %it) ({
  ^bb0(%old: !cuda_tile.tile<8xf32>):
    %v = "cuda_tile.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> !cuda_tile.tile<4xf32>
    "nv_tileas.async.pipeline.yield"(%v) : (!cuda_tile.tile<4xf32>) -> ()
  }) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I3: consumer region arguments are the entry the consumer token carries.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  %t = "nv_tileas.async.pipeline.consumer_wait"(%pipe, %it) <{consumer_idx = 0 : i64}> : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> !nv_tileas.consumer_token<tile<4xf32>>
  // expected-error @below {{'nv_tileas.async.pipeline.consumer_read' op consumer region argument types (f32) must match the element types carried by the consumer token (tile<4xf32>)}}
  %t2, %r = "nv_tileas.async.pipeline.consumer_read"(%t, %it) ({
  ^bb0(%e: f32):
    "nv_tileas.async.pipeline.yield"(%e) : (f32) -> ()
  }) : (!nv_tileas.consumer_token<tile<4xf32>>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> (!nv_tileas.consumer_token<tile<4xf32>>, f32)
  "nv_tileas.async.pipeline.consumer_release"(%t2) : (!nv_tileas.consumer_token<tile<4xf32>>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I4: region results are the op's results.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  // expected-error @below {{'nv_tileas.async.pipeline.consume_one' op region result and op result types must match: region #0 yields (tile<4xf32>) but (i32) is expected}}
  %r = "nv_tileas.async.pipeline.consume_one"(%pipe, %it) <{consumer_idx = 0 : i64}> ({
  ^bb0(%e: !cuda_tile.tile<4xf32>):
    "nv_tileas.async.pipeline.yield"(%e) : (!cuda_tile.tile<4xf32>) -> ()
  }) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> i32
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I5: consumer_idx names a consumer of the pipeline's group.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  // expected-error @below {{'nv_tileas.async.pipeline.consumer_wait' op consumer_idx 1 does not identify a consumer of a pipeline with 1 consumer(s) (valid: 0 to 0)}}
  %t = "nv_tileas.async.pipeline.consumer_wait"(%pipe, %it) <{consumer_idx = 1 : i64}> : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> !nv_tileas.consumer_token<tile<4xf32>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I6: iterators yielded from both arms of a branch have one type.
"nv_tileaa.func"() <{function_type = (i1) -> (), kernel, sym_name = "k"}> ({
^bb0(%c: i1):
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  %p3 = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>
  %it3 = "nv_tileas.async.pipeline.create_iterator"(%p3) : (!nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>>
  // expected-error @below {{'cuda_tile.if' op pipeline iterator values yielded from both arms of a branch must have the same type: result #0 is !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>> in the then-arm and !nv_tileas.iterator<!nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>> in the else-arm}}
  %m = "cuda_tile.if"(%c) ({
    "cuda_tile.yield"(%it) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> ()
  }, {
    "cuda_tile.yield"(%it3) : (!nv_tileas.iterator<!nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>>) -> ()
  }) : (i1) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I7: a TMA load uses a load atom.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x?xf16, strides=[?,1], 1>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x?xf16, strides=[?,1], 1>, %i: i32):
  %d = "nv_tileas.make_tiled_tma_desc"(%m) <{atom = "tma_store", box = array<i64: 64, 64>}> : (!nv_tileaa.memref<?x?xf16, strides=[?,1], 1>) -> !nv_tileas.tma_desc<tma_store, 64x64xf16>
  %s = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<64x64xf16, swizzle=128>
  // expected-error @below {{'nv_tileas.async.tiled_tma_load' op needs a descriptor built for the tma_load atom, got one for tma_store}}
  %t = "nv_tileas.async.tiled_tma_load"(%d, %s, %i, %i) : (!nv_tileas.tma_desc<tma_store, 64x64xf16>, !nv_tileas.smem<64x64xf16, swizzle=128>, i32, i32) -> !nv_tileas.async.token
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I8: the descriptor's box dimensions are the atom's.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x?xf16, strides=[?,1], 1>) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x?xf16, strides=[?,1], 1>):
  // expected-error @below {{'nv_tileas.make_tiled_tma_desc' op TMA box dimensions [64, 64] of the result do not match the atom's box dimensions [64, 32]}}
  %d = "nv_tileas.make_tiled_tma_desc"(%m) <{atom = "tma_load", box = array<i64: 64, 32>}> : (!nv_tileaa.memref<?x?xf16, strides=[?,1], 1>) -> !nv_tileas.tma_desc<tma_load, 64x64xf16>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I9: TMA element stride is one.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x?xf16, strides=[?,?], 1>) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x?xf16, strides=[?,?], 1>):
  // expected-error @below {{'nv_tileas.make_tiled_tma_desc' op TMA element stride must be one: the innermost stride of the memref is ?}}
  %d = "nv_tileas.make_tiled_tma_desc"(%m) <{atom = "tma_load", box = array<i64: 64, 64>}> : (!nv_tileaa.memref<?x?xf16, strides=[?,?], 1>) -> !nv_tileas.tma_desc<tma_load, 64x64xf16>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I10: the shared-memory layout TMA writes is TMA-compatible.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x?xf16, strides=[?,1], 1>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x?xf16, strides=[?,1], 1>, %i: i32):
  %d = "nv_tileas.make_tiled_tma_desc"(%m) <{atom = "tma_load", box = array<i64: 64, 64>}> : (!nv_tileaa.memref<?x?xf16, strides=[?,1], 1>) -> !nv_tileas.tma_desc<tma_load, 64x64xf16>
  %s = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<64x64xf16, swizzle=64>
  // expected-error @below {{'nv_tileas.async.tiled_tma_load' op shared-memory layout !nv_tileas.smem<64x64xf16, swizzle=64> is not TMA-compatible: a 128-byte row exceeds the 64-byte swizzle span}}
  %t = "nv_tileas.async.tiled_tma_load"(%d, %s, %i, %i) : (!nv_tileas.tma_desc<tma_load, 64x64xf16>, !nv_tileas.smem<64x64xf16, swizzle=64>, i32, i32) -> !nv_tileas.async.token
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I11: special padding values only for floating-point elements.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?xi32, strides=[1], 1>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?xi32, strides=[1], 1>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileaa.tiled_load' op special padding value 'nan' is only valid for floating-point element types, got i32}}
  %v, %t2 = "nv_tileaa.tiled_load"(%m, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1>, padding_value = #cuda_tile.padding_value<nan>}> : (!nv_tileaa.memref<?xi32, strides=[1], 1>, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<16xi32>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// I12: acquire accesses are pinned by a token edge.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?xi32, strides=[1], 1>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?xi32, strides=[1], 1>, %i: i32):
  // expected-error @below {{'nv_tileaa.tiled_load' op memory operation with 'acquire' semantics must take a token operand: it may not be reordered across its synchronization boundary}}
  %v, %t2 = "nv_tileaa.tiled_load"(%m, %i) <{mem_semantic = #cuda_tile.memory_ordering_semantics<acquire>, mem_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (!nv_tileaa.memref<?xi32, strides=[1], 1>, i32) -> (!cuda_tile.tile<16xi32>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// nv_tileaa: non-weak memory ordering requires explicit scope (spec/002).
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?xi32, strides=[1], 1>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?xi32, strides=[1], 1>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileaa.tiled_load' op non-weak memory ordering requires explicit scope (ordering is 'relaxed')}}
  %v, %t2 = "nv_tileaa.tiled_load"(%m, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<relaxed>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!nv_tileaa.memref<?xi32, strides=[1], 1>, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<16xi32>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// A queue.get region takes the queue's entry.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %q = "nv_tileaa.create_queue"() : () -> !nv_tileaa.queue<2, [tile<4xf32>]>
  // expected-error @below {{'nv_tileaa.queue.get' op consumer region argument types (tile<8xf32>) must match the element types carried by the queue (tile<4xf32>)}}
  %r = "nv_tileaa.queue.get"(%q) <{consumer_idx = 0 : i64}> ({
  ^bb0(%e: !cuda_tile.tile<8xf32>):
    "nv_tileaa.queue.yield"(%e) : (!cuda_tile.tile<8xf32>) -> ()
  }) : (!nv_tileaa.queue<2, [tile<4xf32>]>) -> !cuda_tile.tile<8xf32>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// A queue.put region yields one entry of the queue's types.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %q = "nv_tileaa.create_queue"() : () -> !nv_tileaa.queue<2, [tile<4xf32>]>
  // expected-error @below {{'nv_tileaa.queue.put' op queue entry types must match: region #0 yields (i32) but (tile<4xf32>) is expected}}
  "nv_tileaa.queue.put"(%q) ({
    %c = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
    "nv_tileaa.queue.yield"(%c) : (i32) -> ()
  }) : (!nv_tileaa.queue<2, [tile<4xf32>]>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// Agents fit in one CTA.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  // expected-error @below {{'nv_tileas.async.pipeline.agent_switch' op agents need 36 warps in total; a CTA has at most 32}}
  "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 4, 32>}> ({
    "nv_tileas.async.pipeline.yield"() : () -> ()
  }, {
    "nv_tileas.async.pipeline.yield"() : () -> ()
  }) : () -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// The iterator indexes the pipeline it is used with.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : (!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>) -> !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>
  %p3 = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>
  // expected-error @below {{'nv_tileas.async.pipeline.producer_acquire' op iterator indexes !nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]> but the pipeline operand is !nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>}}
  %t = "nv_tileas.async.pipeline.producer_acquire"(%p3, %it) : (!nv_tileas.pipeline<stages=3, consumers=1, [tile<4xf32>]>, !nv_tileas.iterator<!nv_tileas.pipeline<stages=2, consumers=1, [tile<4xf32>]>>) -> !nv_tileas.producer_token<tile<4xf32>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// A pipeline yield terminates a pipeline region only.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
  %x = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
  %c = "cuda_tile.constant"() <{value = dense<1> : tensor<i1>}> : () -> i1
  "cuda_tile.if"(%c) ({
    // expected-error @below {{'nv_tileas.async.pipeline.yield' op must terminate a pipeline region (produce_one, produce_one_async, consume_one, producer_write, consumer_read or agent_switch)}}
    "nv_tileas.async.pipeline.yield"() : () -> ()
  }, {
    "cuda_tile.yield"() : () -> ()
  }) : (i1) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// Waits take async tokens.
"nv_tileaa.func"() <{function_type = (i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%i: i32):
  // expected-error @below {{'nv_tileas.async.wait' op operand #0 must be !nv_tileas.async.token, got i32}}
  "nv_tileas.async.wait"(%i) : (i32) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
