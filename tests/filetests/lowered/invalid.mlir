// Malformed nv_tileaa / nv_tileas custom syntax: each mistake is a located parse error.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

nv_tileaa.func @k() attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.get_program_id' expected dimension 'x', 'y' or 'z'}}
  %0 = nv_tileaa.get_program_id w : i32
  nv_tileaa.return
}

// -----

nv_tileaa.func @k() attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.frobnicate' is unknown}}
  nv_tileaa.frobnicate
}

// -----

// expected-error @below {{'nv_tileaa.func' has no attribute named 'speed'}}
nv_tileaa.func @k() attributes {kernel, speed = 3} {
  nv_tileaa.return
}

// -----

nv_tileaa.func @k(%a: !nv_tileaa.ptr<f32, 1>) attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.make_memref' stride entry 0 does not match the memref type (expected 1, got 2)}}
  %0 = nv_tileaa.make_memref %a, sizes = [4], strides = [2] : (!nv_tileaa.ptr<f32, 1>) -> !nv_tileaa.memref<4xf32, strides=[1], 1>
  nv_tileaa.return
}

// -----

nv_tileaa.func @k(%a: !nv_tileaa.ptr<f32, 1>, %n: i32) attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.make_memref' expected 1 size entries (the memref's rank), but 2 were provided}}
  %0 = nv_tileaa.make_memref %a, sizes = [%n, 4], strides = [1] : (!nv_tileaa.ptr<f32, 1>, i32) -> !nv_tileaa.memref<?xf32, strides=[1], 1>
  nv_tileaa.return
}

// -----

nv_tileaa.func @k(%m: !nv_tileaa.memref<?xf32, strides=[1], 1>, %i: i32) attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.tiled_load' expected memory ordering to be one of}}
  %0:2 = nv_tileaa.tiled_load sloppy %m[%i] : !nv_tileaa.memref<?xf32, strides=[1], 1>, i32 -> tile<16xf32>, !nv_tileaa.mem_token
  nv_tileaa.return
}

// -----

nv_tileaa.func @k(%m: !nv_tileaa.memref<?xf32, strides=[1], 1>, %i: i32) attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.tiled_load' expected padding value (zero, neg_zero, nan, pos_inf, neg_inf), got 'one'}}
  %0:2 = nv_tileaa.tiled_load weak %m[%i] padding = one : !nv_tileaa.memref<?xf32, strides=[1], 1>, i32 -> tile<16xf32>, !nv_tileaa.mem_token
  nv_tileaa.return
}

// -----

nv_tileaa.func @k(%m: !nv_tileaa.memref<?x?xf32, strides=[?,1], 1>, %i: i32, %j: i64) attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.tiled_load' expected 2 index types or a single one, got 3}}
  %0:2 = nv_tileaa.tiled_load weak %m[%i, %i] : !nv_tileaa.memref<?x?xf32, strides=[?,1], 1>, i32, i32, i32 -> tile<16x16xf32>, !nv_tileaa.mem_token
  nv_tileaa.return
}

// -----

nv_tileaa.func @k(%m: !nv_tileaa.memref<?xf32, strides=[1], 1>, %i: i32) attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileas.tiled_load' expected 'vector_width'}}
  %0:2 = nv_tileas.tiled_load weak %m[%i] : !nv_tileaa.memref<?xf32, strides=[1], 1>, i32 -> tile<16xf32, #nv_tileas.blocked<size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, !nv_tileaa.mem_token
  nv_tileaa.return
}

// -----

// expected-note @below {{prior use here}}
nv_tileaa.func @k(%v: tile<16xf32, #nv_tileas.blocked<size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[4], order=[0]>>, %m: !nv_tileaa.memref<?xf32, strides=[1], 1>, %i: i32) attributes {kernel} {
  // expected-error @below {{use of value '%v' expects different type than prior uses}}
  %0 = nv_tileas.tiled_store weak %v, %m[%i] vector_width = 1 : tile<16xf32>, !nv_tileaa.memref<?xf32, strides=[1], 1>, i32 -> !nv_tileaa.mem_token
  nv_tileaa.return
}

// -----

// expected-error @below {{layout 'warps_per_cta' has 2 entries, expected 1 (the tile's rank)}}
nv_tileaa.func @k(%a: tile<4xf32, #nv_tileas.blocked<size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[1, 1], order=[0]>>) attributes {kernel} {
  nv_tileaa.return
}

// -----

// expected-error @below {{expected tile layout '#nv_tileas.blocked<…>'}}
nv_tileaa.func @k(%a: tile<4xf32, #nv_tileas.swizzled<1>>) attributes {kernel} {
  nv_tileaa.return
}

// -----

nv_tileaa.func @k(%a: f32) attributes {kernel} {
  // expected-error @below {{custom op 'nv_tileaa.addf' expected rounding mode to be one of}}
  %0 = nv_tileaa.addf %a, %a rounding<sideways> : f32
  nv_tileaa.return
}

// -----

nv_tileaa.func @k() attributes {kernel} {
  // expected-error @below {{expected valid '@'-identifier for symbol name}}
  %0 = nv_tileaa.get_global lut : !nv_tileaa.ptr<f32, 1>
  nv_tileaa.return
}

// -----

// expected-note @below {{prior use here}}
nv_tileaa.func @k(%a: i32) attributes {kernel} {
  %0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  // The residual ops' fixed cuda_tile types take their lowered forms, but only those.
  // expected-error @below {{use of value '%a' expects different type than prior uses}}
  %1 = cuda_tile.gdc_wait_tko token=%a -> !nv_tileaa.mem_token
  nv_tileaa.return
}

// -----

nv_tileaa.func @k() attributes {kernel} {
  nv_tileaa.return
  // expected-error @below {{expected '}' to end the region}}
