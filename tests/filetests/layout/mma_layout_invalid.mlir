// The fragment layouts' rules: #nv_tileas.mma (the wgmma accumulator fragment, version 3)
// stacks whole warpgroups along M and needs M a multiple of 64 per warpgroup;
// #nv_tileas.slice removes one dimension of its parent.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'nv_tileaa.func' op argument #0 has invalid type tile<64x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[4, 2]>>: mma layout warps_per_cta [4, 2] must stack whole warpgroups along M ([4 * g, 1])}}
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<64x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[4, 2]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<64x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[4, 2]>>):
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<64x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[8, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<64x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[8, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.convert_layout' op result #0 has invalid type tile<64x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>: mma layout over 8 warps needs M of 1 or a multiple of 128, got 64}}
  %b = "nv_tileas.convert_layout"(%a) : (!cuda_tile.tile<64x64xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[8, 1], order=[1, 0]>>) -> !cuda_tile.tile<64x64xf32, #nv_tileas.mma<version=3, warps_per_cta=[8, 1]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{mma layout version 2 is not supported (only 3, wgmma)}}
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<64x64xf32, #nv_tileas.mma<version=2, warps_per_cta=[4, 1]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<64x64xf32, #nv_tileas.mma<version=2, warps_per_cta=[4, 1]>>):
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{mma layouts describe rank-2 tiles with 2 warps_per_cta entries, got a rank-3 tile and 2 entries}}
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<64x64xf32, #nv_tileas.slice<dim=1, parent=#nv_tileas.mma<version=3, warps_per_cta=[4, 1]>>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<64x64xf32, #nv_tileas.slice<dim=1, parent=#nv_tileas.mma<version=3, warps_per_cta=[4, 1]>>>):
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
