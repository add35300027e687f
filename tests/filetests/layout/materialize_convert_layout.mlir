// tileas-materialize-convert-layout: a conversion within a warp becomes a shuffle (the
// most efficient feasible plan: 4 shuffle rounds beat the shared-memory round trip), one
// across warps is staged through shared memory (alloc_tensor + view + copy + convert_layout
// from smem, plan tag 1), an identity conversion stays a direct convert_layout. With
// reg2reg-vec-size=0 no shuffle is feasible and the within-warp one is staged too.
// RUN: tileir-opt %s -allow-unregistered-dialect --pass-pipeline='tileas-materialize-convert-layout' | FileCheck %s
// RUN: tileir-opt %s -allow-unregistered-dialect --pass-pipeline='tileas-materialize-convert-layout{reg2reg-vec-size=16 reinterpret-to-i8=false}' | FileCheck %s
// RUN: tileir-opt %s -allow-unregistered-dialect --pass-pipeline='tileas-materialize-convert-layout{reg2reg-vec-size=0}' | FileCheck %s --check-prefix=SMEM
// RUN: not tileir-opt %s --pass-pipeline='tileas-materialize-convert-layout{reg2reg-vec-size=-1}' 2>&1 | FileCheck %s --check-prefix=BADOPT

// CHECK-LABEL: nv_tileaa.func @k
// CHECK-NOT: "nv_tileas.convert_layout"(%arg0) :
// CHECK: %[[W:.*]] = "nv_tileas.shuffle"(%arg0) <{atom = "shfl.sync.idx.b32x4", plan_tag = 0 : i64, plan_vec = 1 : i64, plan_smem_bytes = 0 : i64}> : ({{.*}}size_per_thread=[1, 4]{{.*}}) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
// CHECK-NEXT: %[[BUF:.*]] = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<32x16xf32, swizzle=0>
// CHECK-NEXT: %[[V:.*]] = "nv_tileas.view"(%arg0) : ({{.*}}) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
// CHECK-NEXT: "nv_tileas.copy"(%[[V]], %[[BUF]]) <{atom = "st.shared.v4.b32"}>
// CHECK-NEXT: %[[X:.*]] = "nv_tileas.convert_layout"(%[[BUF]]) <{plan_tag = 1 : i64, plan_vec = 4 : i64, plan_smem_bytes = 2048 : i64}> : (!nv_tileas.smem<32x16xf32, swizzle=0>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[1, 0]>>
// CHECK-NEXT: %[[Y:.*]] = "nv_tileas.convert_layout"(%arg0) <{plan_tag = 0 : i64, plan_vec = 0 : i64, plan_smem_bytes = 0 : i64}>
// CHECK-NEXT: "test.keep"(%[[W]], %[[X]], %[[Y]])

// SMEM-LABEL: nv_tileaa.func @k
// SMEM-NOT: nv_tileas.shuffle
// SMEM: %[[B0:.*]] = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<32x16xf32, swizzle=0>
// SMEM-NEXT: %[[V0:.*]] = "nv_tileas.view"(%arg0)
// SMEM-NEXT: "nv_tileas.copy"(%[[V0]], %[[B0]]) <{atom = "st.shared.v4.b32"}>
// SMEM-NEXT: %[[W:.*]] = "nv_tileas.convert_layout"(%[[B0]]) <{plan_tag = 1 : i64, plan_vec = 2 : i64, plan_smem_bytes = 2048 : i64}> : (!nv_tileas.smem<32x16xf32, swizzle=0>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
// SMEM: "nv_tileas.convert_layout"(%arg0) <{plan_tag = 0 : i64
// SMEM-NOT: nv_tileas.shuffle

// BADOPT: pass 'tileas-materialize-convert-layout': option 'reg2reg-vec-size': expected an unsigned integer, got '-1'

"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  %w = "nv_tileas.convert_layout"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  %x = "nv_tileas.convert_layout"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[1, 0]>>
  %y = "nv_tileas.convert_layout"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "test.keep"(%w, %x, %y) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
