// Verifier rules of nv_tileas convert_layout, view, copy and shuffle, one case each;
// every mismatch names both sides.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// convert_layout: shapes match.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.convert_layout' op source shape 32x16 and result shape 16x32 must match}}
  %b = "nv_tileas.convert_layout"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x32xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// convert_layout: element types match.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.convert_layout' op source element type f32 and result element type f16 must match}}
  %b = "nv_tileas.convert_layout"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf16, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// convert_layout: the result is a register tile.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.convert_layout' op result must be a register tile, got !nv_tileas.smem<32x16xf32, swizzle=0>}}
  %b = "nv_tileas.convert_layout"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !nv_tileas.smem<32x16xf32, swizzle=0>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// convert_layout: a read-back from smem records tag 1.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  %s = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<32x16xf32, swizzle=0>
  // expected-error @below {{'nv_tileas.convert_layout' op recorded plan tag 0 does not match the op: a read-back from shared memory is tag 1}}
  %b = "nv_tileas.convert_layout"(%s) <{plan_tag = 0}> : (!nv_tileas.smem<32x16xf32, swizzle=0>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// plan_tag is 0 or 1.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.convert_layout' attribute 'plan_tag' must be 0 (reg-to-reg) or 1 (via smem), got 7}}
  %b = "nv_tileas.convert_layout"(%a) <{plan_tag = 7}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// view: element counts match.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.view' op source tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> and result tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> must have the same number of elements (512 vs 256)}}
  %b = "nv_tileas.view"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// view: element types match without reinterpret_byte.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.view' op source element type f32 and result element type i32 must match (a byte view needs 'reinterpret_byte')}}
  %b = "nv_tileas.view"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// view: a byte view has i8 on one side.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.view' op a byte view ('reinterpret_byte') needs i8 on one side, got source tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> and result tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>}}
  %b = "nv_tileas.view"(%a) <{reinterpret_byte}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// view: a byte view keeps the bits.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.view' op a byte view keeps the bytes: source tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> and result tile<32x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> must hold the same number of bits}}
  %b = "nv_tileas.view"(%a) <{reinterpret_byte}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// view: tiles stay tiles.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.view' op a view keeps the storage: source tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> and result !nv_tileas.smem<32x16xf32, swizzle=0> must both be tiles or both smem buffers}}
  %b = "nv_tileas.view"(%a) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !nv_tileas.smem<32x16xf32, swizzle=0>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// copy: the destination is an smem buffer.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %b: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.copy' op operand #1 (the destination) must be an !nv_tileas.smem buffer, got tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>}}
  "nv_tileas.copy"(%a, %b) <{atom = "st.shared.b32"}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// copy: shapes match.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  %s = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<16x32xf32, swizzle=0>
  // expected-error @below {{'nv_tileas.copy' op source shape 32x16 and destination shape 16x32 must match}}
  "nv_tileas.copy"(%a, %s) <{atom = "st.shared.b32"}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileas.smem<16x32xf32, swizzle=0>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// copy: element types match.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  %s = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<32x16xf16, swizzle=0>
  // expected-error @below {{'nv_tileas.copy' op source element type f32 and destination element type f16 must match}}
  "nv_tileas.copy"(%a, %s) <{atom = "st.shared.b32"}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileas.smem<32x16xf16, swizzle=0>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// copy: the atom attribute is required.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  %s = "nv_tileas.alloc_tensor"() : () -> !nv_tileas.smem<32x16xf32, swizzle=0>
  // expected-error @below {{'nv_tileas.copy' requires string attribute 'atom'}}
  "nv_tileas.copy"(%a, %s) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileas.smem<32x16xf32, swizzle=0>) -> ()
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// shuffle: stays within a warp.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.shuffle' op shuffles stay within a warp: source warps_per_cta [4, 1] and result warps_per_cta [1, 4] must match}}
  %b = "nv_tileas.shuffle"(%a) <{atom = "shfl.sync.idx.b32x4"}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[1, 4], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// shuffle: shapes match.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.shuffle' op source shape 32x16 and result shape 16x32 must match}}
  %b = "nv_tileas.shuffle"(%a) <{atom = "shfl.sync.idx.b32x4"}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x32xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// shuffle: element types match.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.shuffle' op source element type f32 and result element type i32 must match}}
  %b = "nv_tileas.shuffle"(%a) <{atom = "shfl.sync.idx.b32x4"}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// shuffle: a recorded plan is tag 0.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.shuffle' op recorded plan tag 1 does not match the op: a shuffle is tag 0}}
  %b = "nv_tileas.shuffle"(%a) <{atom = "shfl.sync.idx.b32x4", plan_tag = 1}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 2], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
