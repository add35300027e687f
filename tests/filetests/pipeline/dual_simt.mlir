// tileas-materialize-schedule's dual SIMT (use-dual-simt, the default) on matmul K loops
// with 64x8 * 8x32 tiles at 8 warps: the schedule (5 stages, 5 work units) passes the
// dual-SIMT heuristic, so the loop is warp-specialized with a 1-warp producer agent and
// two 4-warp consumer agents over a consumers=2 pipeline. Consumer c (consumer_idx = c)
// extracts row half c of the accumulator's initial value and of the consumed A tile,
// accumulates a 32x32 half with mmaf against the full B tile, adds its half of the bias
// and stores the half at row coordinate 2*r + c. The record says dual_simt_split = true.
// The second kernel reduces the accumulator along dimension 0 after the loop, which no
// row half can compute alone: it keeps one 8-warp consumer agent (the record still says
// use_dual_simt = true, without dual_simt_split), as does use-dual-simt=false.
// RUN: tileir-opt %s -split-input-file --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{num-warps=8},tileas-materialize-async,tileas-materialize-schedule' | FileCheck %s
// RUN: tileir-opt %s -split-input-file --pass-pipeline='convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{num-warps=8},tileas-materialize-async,tileas-materialize-schedule{use-dual-simt=false}' | FileCheck %s --check-prefix=SINGLE

// The feasible kernel: three agents, consumers 0 and 1 each on their row half.
// CHECK-LABEL: nv_tileaa.func @matmul
// CHECK: %[[P:.*]] = "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=5, consumers=2,
// CHECK: "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 4, 4>, registers = array<i64: 40, 232, 232>}> ({
// CHECK-NEXT: cuda_tile.for
// CHECK-NEXT: "nv_tileas.async.pipeline.produce_one_async"(%[[P]], %{{.*}}) <{pipeline_stage = 0 : i64}>
// CHECK-NOT: consume_one
// CHECK: dual_simt_split = true
// CHECK-NEXT: "nv_tileas.async.pipeline.yield"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: %[[Z0:.*]] = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[Z1:.*]] = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[I0:.*]] = "cuda_tile.extract"(%{{.*}}, %[[Z0]], %[[Z1]]) : (!cuda_tile.tile<64x32xf32, {{.*}}) -> !cuda_tile.tile<32x32xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0]>>
// CHECK-NEXT: %[[L0:.*]]:4 = cuda_tile.for %{{.*}} iter_values(%[[ACC0:[^ ]*]] = %[[I0]],
// CHECK-NEXT: %[[C0:.*]]:2 = "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 0 : i64, pipeline_stage = 4 : i64}>
// CHECK: %[[A0:.*]] = "cuda_tile.extract"(%[[C0]]#0, %{{.*}}, %{{.*}}) : (!cuda_tile.tile<64x8xf16, {{.*}}>, i32, i32) -> !cuda_tile.tile<32x8xf16,
// CHECK: mmaf %[[A0]], %[[C0]]#1, %[[ACC0]] : tile<32x8xf16, {{.*}}>, tile<8x32xf16, {{.*}}>, tile<32x32xf32,
// CHECK: dual_simt_split = true
// CHECK: "cuda_tile.extract"({{.*}}) : (!cuda_tile.tile<64x32xf32, {{.*}}) -> !cuda_tile.tile<32x32xf32,
// CHECK-NEXT: %[[H0:.*]] = nv_tileaa.addf %[[L0]]#0, %{{.*}} : tile<32x32xf32,
// CHECK-NEXT: %[[TWO0:.*]] = "cuda_tile.constant"() <{value = dense<2> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[CC0:.*]] = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[R0:.*]] = cuda_tile.muli %[[BY:.*]], %[[TWO0]] : i32
// CHECK-NEXT: %[[ROW0:.*]] = cuda_tile.addi %[[R0]], %[[CC0]] : i32
// CHECK-NEXT: nv_tileas.tiled_store weak %[[H0]], %{{.*}}[%[[ROW0]], %{{.*}}] vector_width = 1 : tile<32x32xf32,
// CHECK-NEXT: "nv_tileas.async.pipeline.yield"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: %[[ONE:.*]] = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[Z2:.*]] = "cuda_tile.constant"() <{value = dense<0> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[I1:.*]] = "cuda_tile.extract"(%{{.*}}, %[[ONE]], %[[Z2]]) : (!cuda_tile.tile<64x32xf32, {{.*}}) -> !cuda_tile.tile<32x32xf32,
// CHECK-NEXT: %[[L1:.*]]:4 = cuda_tile.for %{{.*}} iter_values(%[[ACC1:[^ ]*]] = %[[I1]],
// CHECK-NEXT: %[[C1:.*]]:2 = "nv_tileas.async.pipeline.consume_one"(%[[P]], %{{.*}}) <{consumer_idx = 1 : i64, pipeline_stage = 4 : i64}>
// CHECK: %[[A1:.*]] = "cuda_tile.extract"(%[[C1]]#0, %{{.*}}, %{{.*}}) : (!cuda_tile.tile<64x8xf16, {{.*}}>, i32, i32) -> !cuda_tile.tile<32x8xf16,
// CHECK: mmaf %[[A1]], %[[C1]]#1, %[[ACC1]] : tile<32x8xf16, {{.*}}>, tile<8x32xf16, {{.*}}>, tile<32x32xf32,
// CHECK: dual_simt_split = true
// CHECK: %[[H1:.*]] = nv_tileaa.addf %[[L1]]#0, %{{.*}} : tile<32x32xf32,
// CHECK-NEXT: %[[TWO1:.*]] = "cuda_tile.constant"() <{value = dense<2> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[CC1:.*]] = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> i32
// CHECK-NEXT: %[[R1:.*]] = cuda_tile.muli %[[BY]], %[[TWO1]] : i32
// CHECK-NEXT: %[[ROW1:.*]] = cuda_tile.addi %[[R1]], %[[CC1]] : i32
// CHECK-NEXT: nv_tileas.tiled_store weak %[[H1]], %{{.*}}[%[[ROW1]], %{{.*}}] vector_width = 1 : tile<32x32xf32,
// CHECK-NEXT: "nv_tileas.async.pipeline.yield"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: nv_tileaa.return

// The fallback: one 8-warp consumer agent, exactly as without dual SIMT.
// CHECK-LABEL: nv_tileaa.func @matmul
// CHECK: "nv_tileas.async.pipeline.create_pipeline"() : () -> !nv_tileas.pipeline<stages=5, consumers=1,
// CHECK: "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 8>, registers = array<i64: 40, 232>}> ({
// CHECK-NOT: dual_simt_split
// CHECK: use_dual_simt = true
// CHECK-NOT: dual_simt_split
// CHECK: }, {
// CHECK-NOT: extract
// CHECK: "nv_tileas.async.pipeline.consume_one"(%{{.*}}, %{{.*}}) <{consumer_idx = 0 : i64, pipeline_stage = 4 : i64}>
// CHECK: mmaf %{{.*}} : tile<64x8xf16, {{.*}}>, tile<8x32xf16, {{.*}}>, tile<64x32xf32,
// CHECK-NOT: dual_simt_split
// CHECK: cuda_tile.reduce %{{.*}} dim=0
// CHECK: nv_tileas.tiled_store
// CHECK-NEXT: "nv_tileas.async.pipeline.yield"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: nv_tileaa.return

// SINGLE: "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 8>, registers = array<i64: 40, 232>}>
// SINGLE-NOT: extract
// SINGLE-NOT: consumer_idx = 1
// SINGLE: use_dual_simt = false
// SINGLE-NOT: dual_simt_split
// SINGLE: consumer_idx = 0
// SINGLE-NOT: consumer_idx = 1
// SINGLE: "nv_tileas.async.pipeline.agent_switch"() <{num_warps = array<i64: 1, 8>, registers = array<i64: 40, 232>}>
// SINGLE-NOT: dual_simt_split

cuda_tile.module @kernels {
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(64x8), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(8x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>
    %sp:2 = get_index_space_shape %pa : partition_view<tile=(64x8), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<64x32xf32>
    %lb = constant <i32: 0> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%lb to %sp#1, step %st) : tile<i32> iter_values(%x = %zero) -> (tile<64x32xf32>) {
      %va, %t0 = load_view_tko weak %pa[%by, %kk] : partition_view<tile=(64x8), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x8xf16>, token
      %vb, %t1 = load_view_tko weak %pb[%kk, %bx] : partition_view<tile=(8x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<8x32xf16>, token
      %r = mmaf %va, %vb, %x : tile<64x8xf16>, tile<8x32xf16>, tile<64x32xf32>
      continue %r : tile<64x32xf32>
    }
    %bias = constant <f32: 5.000000e-01> : tile<64x32xf32>
    %out = addf %acc, %bias : tile<64x32xf32>
    %t2 = store_view_tko weak %out, %pc[%by, %bx] : tile<64x32xf32>, partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

cuda_tile.module @kernels {
  entry @matmul(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(64x8), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(8x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pc = make_partition_view %tc : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>
    %sp:2 = get_index_space_shape %pa : partition_view<tile=(64x8), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
    %zero = constant <f32: 0.000000e+00> : tile<64x32xf32>
    %lb = constant <i32: 0> : tile<i32>
    %st = constant <i32: 1> : tile<i32>
    %acc = for %kk in (%lb to %sp#1, step %st) : tile<i32> iter_values(%x = %zero) -> (tile<64x32xf32>) {
      %va, %t0 = load_view_tko weak %pa[%by, %kk] : partition_view<tile=(64x8), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x8xf16>, token
      %vb, %t1 = load_view_tko weak %pb[%kk, %bx] : partition_view<tile=(8x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<8x32xf16>, token
      %r = mmaf %va, %vb, %x : tile<64x8xf16>, tile<8x32xf16>, tile<64x32xf32>
      continue %r : tile<64x32xf32>
    }
    %cs = reduce %acc dim=0 identities=[0.000000e+00 : f32] : tile<64x32xf32> -> tile<32xf32>
    (%e: tile<f32>, %s: tile<f32>) {
      %r2 = addf %e, %s : tile<f32>
      yield %r2 : tile<f32>
    }
    %tv = make_tensor_view %c, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>
    %t2 = store_view_tko weak %cs, %pv[%bx] : tile<32xf32>, partition_view<tile=(32), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
