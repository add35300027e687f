// tileas-materialize-convert-layout on 4-bit floats: shared memory cannot stage them, so
// the only plan is shuffles (8 elements per 32-bit shuffle word). Under
// reg2reg-vec-size=4 no plan is feasible: the spec's diagnostic, verbatim, and the pass
// fails. With reinterpret-to-i8 the tile is viewed as i8 (nibbles paired along the fastest
// dimension: 32x16xf4E2M1FN -> 32x8xi8), converted at byte granularity and viewed back.
// RUN: not tileir-opt %s -allow-unregistered-dialect --pass-pipeline='tileas-materialize-convert-layout{reg2reg-vec-size=4}' 2>&1 | FileCheck %s --check-prefix=DIAG
// RUN: tileir-opt %s -allow-unregistered-dialect --pass-pipeline='tileas-materialize-convert-layout{reg2reg-vec-size=4 reinterpret-to-i8=true}' | FileCheck %s --check-prefix=BYTES
// RUN: tileir-opt %s -allow-unregistered-dialect --pass-pipeline='tileas-materialize-convert-layout' | FileCheck %s --check-prefix=NATIVE

// DIAG: materialize_convert_layout_subbyte.mlir:22:3: error: failed to query target spec for convert_layout

// BYTES: %[[V:.*]] = "nv_tileas.view"(%arg0) <{reinterpret_byte}> : (!cuda_tile.tile<32x16xf4E2M1FN, {{.*}}>) -> !cuda_tile.tile<32x8xi8, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
// BYTES-NEXT: %[[S:.*]] = "nv_tileas.shuffle"(%[[V]]) <{atom = "shfl.sync.idx.b32x2", plan_tag = 0 : i64, plan_vec = 4 : i64, plan_smem_bytes = 0 : i64}> : ({{.*}}) -> !cuda_tile.tile<32x8xi8, #nv_tileas.blocked<size_per_thread=[1, 1], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
// BYTES-NEXT: %[[R:.*]] = "nv_tileas.view"(%[[S]]) <{reinterpret_byte}> : ({{.*}}) -> !cuda_tile.tile<32x16xf4E2M1FN, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
// BYTES-NEXT: "test.keep"(%[[R]])

// NATIVE: "nv_tileas.shuffle"(%arg0) <{atom = "shfl.sync.idx.b32x4", plan_tag = 0 : i64, plan_vec = 8 : i64, plan_smem_bytes = 0 : i64}>
// NATIVE-NOT: reinterpret_byte

"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf4E2M1FN, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%f: !cuda_tile.tile<32x16xf4E2M1FN, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  %w = "nv_tileas.convert_layout"(%f) : (!cuda_tile.tile<32x16xf4E2M1FN, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf4E2M1FN, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "test.keep"(%w) : (!cuda_tile.tile<32x16xf4E2M1FN, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
