// Verifier rules of nv_tileas reinterpret, extract_slice, insert_slice, expand_dims,
// generate, tiled_atomic_rmw, load, store and dot, one case each; every mismatch names the
// op, the entity and both sides.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

// reinterpret: the bit counts agree.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.reinterpret' op source tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> holds 16384 bits but result tile<32x8xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> holds 8192: a reinterpret keeps the bits}}
  %r = "nv_tileas.reinterpret"(%a0) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x8xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// reinterpret: equal element widths keep the shape.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.reinterpret' op source shape [32, 16] and result shape [16, 32] must match (the element widths are equal)}}
  %r = "nv_tileas.reinterpret"(%a0) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x32xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// reinterpret: other widths change only the innermost dimension.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.reinterpret' op source shape [32, 16] and result shape [16, 64] may differ only in the innermost dimension}}
  %r = "nv_tileas.reinterpret"(%a0) : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x64xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// reinterpret: numbers only.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.reinterpret' op reinterprets numbers: source element type ptr<f32> and result element type i64 must both be numeric}}
  %r = "nv_tileas.reinterpret"(%a0) : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> !cuda_tile.tile<16xi64, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// extract_slice: one offset per source dimension.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.extract_slice' op 'offsets' has 1 entries but the source rank is 2}}
  %r = "nv_tileas.extract_slice"(%a0) <{offsets = array<i64: 0>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// extract_slice: the result shape is 'sizes'.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.extract_slice' op 'sizes' [8, 4] and result shape [4, 8] must match}}
  %r = "nv_tileas.extract_slice"(%a0) <{offsets = array<i64: 0, 0>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<4x8xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// extract_slice: element types agree.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.extract_slice' op source element type f32 and result element type i32 must match}}
  %r = "nv_tileas.extract_slice"(%a0) <{offsets = array<i64: 0, 0>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<8x4xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// extract_slice: strides are positive.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.extract_slice' op 'strides' entry #0 must be at least 1, got 0}}
  %r = "nv_tileas.extract_slice"(%a0) <{offsets = array<i64: 0, 0>, sizes = array<i64: 8, 4>, strides = array<i64: 0, 1>}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// extract_slice: offsets are non-negative.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.extract_slice' op 'offsets' entry #0 must be non-negative, got -1}}
  %r = "nv_tileas.extract_slice"(%a0) <{offsets = array<i64: -1, 0>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// extract_slice: the slice lies within the source.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.extract_slice' op slice dimension #0 reaches index 36 (offset 1 + (8 - 1) x stride 5) but the source dimension has size 32}}
  %r = "nv_tileas.extract_slice"(%a0) <{offsets = array<i64: 1, 0>, sizes = array<i64: 8, 4>, strides = array<i64: 5, 4>}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// extract_slice: requires its attributes.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.extract_slice' requires attribute 'strides'}}
  %r = "nv_tileas.extract_slice"(%a0) <{offsets = array<i64: 0, 0>, sizes = array<i64: 8, 4>}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// insert_slice: the result type is the destination type.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.insert_slice' op result type tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> must equal the destination type tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>}}
  %r = "nv_tileas.insert_slice"(%a0, %a1) <{offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// insert_slice: source and destination ranks agree.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<8xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<8xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %a1: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.insert_slice' op source rank 1 and destination rank 2 must match}}
  %r = "nv_tileas.insert_slice"(%a0, %a1) <{offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<8xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// insert_slice: one offset per destination dimension.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.insert_slice' op 'offsets' has 1 entries but the destination rank is 2}}
  %r = "nv_tileas.insert_slice"(%a0, %a1) <{offsets = array<i64: 0>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// insert_slice: element types agree.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<8x4xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<8x4xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.insert_slice' op source element type i32 and destination element type f32 must match}}
  %r = "nv_tileas.insert_slice"(%a0, %a1) <{offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<8x4xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// insert_slice: the slice lies within the destination.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.insert_slice' op slice dimension #0 reaches index 37 (offset 30 + (8 - 1) x stride 1) but the destination dimension has size 32}}
  %r = "nv_tileas.insert_slice"(%a0, %a1) <{offsets = array<i64: 30, 0>, strides = array<i64: 1, 1>}> : (!cuda_tile.tile<8x4xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// expand_dims: axis is at most the rank.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.expand_dims' op axis 3 is out of range for a rank-2 source (0 to 2)}}
  %r = "nv_tileas.expand_dims"(%a0) <{axis = 3}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<32x16x1xf32, #nv_tileas.blocked<size_per_thread=[1, 1, 4], threads_per_warp=[1, 8, 4], warps_per_cta=[1, 4, 1], order=[2, 1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// expand_dims: the result inserts a 1 at axis.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.expand_dims' op result shape [1, 32, 16] must be the source shape [32, 16] with a 1 inserted at axis 1: [32, 1, 16]}}
  %r = "nv_tileas.expand_dims"(%a0) <{axis = 1}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<1x32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 1, 4], threads_per_warp=[1, 8, 4], warps_per_cta=[1, 4, 1], order=[2, 1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// expand_dims: element types agree.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.expand_dims' op source element type f32 and result element type i32 must match}}
  %r = "nv_tileas.expand_dims"(%a0) <{axis = 0}> : (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<1x32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 1, 4], threads_per_warp=[1, 8, 4], warps_per_cta=[1, 4, 1], order=[2, 1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// generate: one index argument per result dimension.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
^bb0():
  // expected-error @below {{'nv_tileas.generate' op region has 1 index argument(s) but the result tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> has rank 2}}
  %r = "nv_tileas.generate"() ({
  ^bb0(%i: i32):
    "cuda_tile.yield"(%i) : (i32) -> ()
  }) : () -> !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// generate: index arguments are i32.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
^bb0():
  // expected-error @below {{'nv_tileas.generate' op index argument #0 must be i32, got i64}}
  %r = "nv_tileas.generate"() ({
  ^bb0(%i: i64, %j: i64):
    "cuda_tile.yield"(%i) : (i64) -> ()
  }) : () -> !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// generate: the region yields one element of the result type.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
^bb0():
  // expected-error @below {{'nv_tileas.generate' op yielded element i32 and result element type f32 must match (one scalar per element)}}
  %r = "nv_tileas.generate"() ({
  ^bb0(%i: i32, %j: i32):
    "cuda_tile.yield"(%i) : (i32) -> ()
  }) : () -> !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// generate: the region yields exactly one value.
"nv_tileaa.func"() <{function_type = () -> (), kernel, sym_name = "k"}> ({
^bb0():
  // expected-error @below {{'nv_tileas.generate' op region must yield one element, yields 2}}
  %r = "nv_tileas.generate"() ({
  ^bb0(%i: i32, %j: i32):
    "cuda_tile.yield"(%i, %j) : (i32, i32) -> ()
  }) : () -> !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: non-weak memory ordering requires explicit scope.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op non-weak memory ordering requires explicit scope (ordering is 'acq_rel')}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<acq_rel>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<add>}> : (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: weak memory ordering takes no scope.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op weak memory ordering must not carry a scope}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, mem_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<add>}> : (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: addf needs floats.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op rmw_mode 'addf' needs a float element type, got i32}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<addf>}> : (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: integer modes need integers.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xf32, strides=[16,1], 1>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xf32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op rmw_mode 'max' needs an integer element type, got f32}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<max>}> : (!nv_tileaa.memref<?x16xf32, strides=[16,1], 1>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: the value's element type is the memref's.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op value element type f32 and memref element type i32 must match}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<add>}> : (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: one coordinate per memref dimension.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op expects 2 tile coordinate(s) (the memref rank), got 1}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 1, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<add>}> : (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: the old values have the value's type.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op result #0 (the old values) type tile<32x16xi64, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>> must equal the value type tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<add>}> : (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xi64, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// tiled_atomic_rmw: no padding.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32) -> (), kernel, sym_name = "k"}> ({
^bb0(%m: !nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, %v: !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %i: i32):
  %tok = "nv_tileaa.create_mem_token"() : () -> !nv_tileaa.mem_token
  // expected-error @below {{'nv_tileas.tiled_atomic_rmw' op takes no 'padding_value': out-of-bounds elements are not updated}}
  %r:2 = "nv_tileas.tiled_atomic_rmw"(%m, %v, %i, %i, %tok) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, padding_value = #cuda_tile.padding_value<zero>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, rmw_mode = #cuda_tile.atomic_rmw_mode<add>}> : (!nv_tileaa.memref<?x16xi32, strides=[16,1], 1>, !cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, i32, i32, !nv_tileaa.mem_token) -> (!cuda_tile.tile<32x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// load: a scalar base needs offsets.
"nv_tileaa.func"() <{function_type = (!nv_tileaa.ptr<f32, 1>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !nv_tileaa.ptr<f32, 1>):
  // expected-error @below {{'nv_tileas.load' op a scalar base !nv_tileaa.ptr<f32, 1> needs an offsets tile}}
  %r:2 = "nv_tileas.load"(%a0) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>}> : (!nv_tileaa.ptr<f32, 1>) -> (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// load: offsets match the base's lanes.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<8xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %a1: !cuda_tile.tile<8xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.load' op base lane shape [16] and offsets shape [8] must match}}
  %r:2 = "nv_tileas.load"(%a0, %a1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<8xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// load: the result holds the pointee type in the lane shape.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.load' op loaded result tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>> must be a tile of shape [16] and the pointee type f32}}
  %r:2 = "nv_tileas.load"(%a0) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (!cuda_tile.tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// load: the mask is i1 of the lane shape.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %a1: !cuda_tile.tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.load' op mask tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>> must be a tile of i1 of the lane shape [16]}}
  %r:2 = "nv_tileas.load"(%a0, %a1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// load: the padding is the pointee type.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %a1: !cuda_tile.tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.load' op padding tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>> must be the pointee type f32 with the lane shape [16] (or rank 0)}}
  %r:2 = "nv_tileas.load"(%a0, %a1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xi32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// load: release is not a load ordering.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.load' op memory ordering 'release' is not allowed here; expected one of: weak, relaxed, acquire}}
  %r:2 = "nv_tileas.load"(%a0) <{mem_semantic = #cuda_tile.memory_ordering_semantics<release>, mem_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// load: segments hold 0 or 1 operands.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'operandSegmentSizes' must hold 5 non-negative integers, got [1, 0, 0, 0]}}
  %r:2 = "nv_tileas.load"(%a0) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token)
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// store: acquire is not a store ordering.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %a1: !cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.store' op memory ordering 'acquire' is not allowed here; expected one of: weak, relaxed, release}}
  %r = "nv_tileas.store"(%a0, %a1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<acquire>, mem_scope = #cuda_tile.memory_scope<device>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> !nv_tileaa.mem_token
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// store: the value has the lane shape.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<8xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %a1: !cuda_tile.tile<8xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.store' op stored value tile<8xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>> must be a tile of shape [16] and the pointee type f32}}
  %r = "nv_tileas.store"(%a0, %a1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (!cuda_tile.tile<16x!cuda_tile.ptr<f32>, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<8xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> !nv_tileaa.mem_token
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// store: the base is pointers.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %a1: !cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>):
  // expected-error @below {{'nv_tileas.store' op base (operand #0) must be a tile of pointers or an !nv_tileaa.ptr, got tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>}}
  %r = "nv_tileas.store"(%a0, %a1) <{mem_semantic = #cuda_tile.memory_ordering_semantics<weak>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (!cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !cuda_tile.tile<16xf32, #nv_tileas.blocked<size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>) -> !nv_tileaa.mem_token
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: integer dots carry both signedness attributes.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op an integer dot (A is i8) requires 'signedness_a' and 'signedness_b'}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: float dots carry no signedness.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op 'signedness_a' / 'signedness_b' apply to integer dots only, but A is f16}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, signedness_a = #cuda_tile.signedness<signed>, signedness_b = #cuda_tile.signedness<signed>}> : (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: propagate_nan is for float dots.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op 'propagate_nan' applies to floating-point dots only, but A is i8}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, signedness_a = #cuda_tile.signedness<signed>, signedness_b = #cuda_tile.signedness<signed>, propagate_nan}> : (!cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi8, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: the accumulator type is legal for the inputs.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op unsupported combination of element types. Input type 'f16' expects accumulator/result type to be one of}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: float operands share an element type.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xbf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xbf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op dot operands must share an element type, got 'f16' and 'bf16'}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xbf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: integer dots take i8 operands and an i32 accumulator.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op illegal integer dot element tuple ('i32', 'i32') -> 'i32': integer dot takes i8 operands and an i32 accumulator}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, signedness_a = #cuda_tile.signedness<signed>, signedness_b = #cuda_tile.signedness<signed>}> : (!cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xi32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: K agrees.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x32xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x32xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op shape error: dim 1 of lhs (32) and dim 0 of rhs (16) must match, but got lhs shape (16, 32) and rhs shape (16, 16)}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!cuda_tile.tile<16x32xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: accumulator and result agree.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' op dot accumulator 'f32' and result 'f16' must have the same type}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> : (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

// dot: scale operands come in pairs.
"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a0: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a1: !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, %a2: !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>):
  // expected-error @below {{'nv_tileas.dot' 'operandSegmentSizes' must be [1, 1, 1, 0, 0] or [1, 1, 1, 1, 1] (A, B, C, sfa, sfb), got [1, 1, 1, 1, 0]}}
  %r = "nv_tileas.dot"(%a0, %a1, %a2) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (!cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf16, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>, !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>) -> !cuda_tile.tile<16x16xf32, #nv_tileas.blocked<size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0]>>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
