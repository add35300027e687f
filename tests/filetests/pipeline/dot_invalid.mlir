// spec/002's dot rules on the matrix multiplies tileir keeps inside lowered functions
// (residual cuda_tile mmaf/mmai, whose cuda_tile ODS checks no longer run there): legal
// element tuples, the accumulator type, contracting shapes.
// RUN: tileir-opt %s -split-input-file -verify-diagnostics

"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xbf16>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<16x16xf16>, %b: !cuda_tile.tile<16x16xf16>, %c: !cuda_tile.tile<16x16xbf16>):
  // expected-error @below {{'cuda_tile.mmaf' op unsupported combination of element types. Input type 'f16' expects accumulator/result type to be one of {'f16', 'f32'}, but got 'bf16'}}
  %d = "cuda_tile.mmaf"(%a, %b, %c) : (!cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xbf16>) -> !cuda_tile.tile<16x16xbf16>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xbf16>, !cuda_tile.tile<16x16xf32>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<16x16xf16>, %b: !cuda_tile.tile<16x16xbf16>, %c: !cuda_tile.tile<16x16xf32>):
  // expected-error @below {{'cuda_tile.mmaf' op dot operands must share an element type, got 'f16' and 'bf16'}}
  %d = "cuda_tile.mmaf"(%a, %b, %c) : (!cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xbf16>, !cuda_tile.tile<16x16xf32>) -> !cuda_tile.tile<16x16xf32>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x16xi16>, !cuda_tile.tile<16x16xi16>, !cuda_tile.tile<16x16xi32>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<16x16xi16>, %b: !cuda_tile.tile<16x16xi16>, %c: !cuda_tile.tile<16x16xi32>):
  // expected-error @below {{'cuda_tile.mmai' op illegal integer dot element tuple ('i16', 'i16') -> 'i32': integer dot takes i8 operands and an i32 accumulator}}
  %d = "cuda_tile.mmai"(%a, %b, %c) <{signedness_lhs = #cuda_tile.signedness<signed>, signedness_rhs = #cuda_tile.signedness<signed>}> : (!cuda_tile.tile<16x16xi16>, !cuda_tile.tile<16x16xi16>, !cuda_tile.tile<16x16xi32>) -> !cuda_tile.tile<16x16xi32>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()

// -----

"nv_tileaa.func"() <{function_type = (!cuda_tile.tile<16x8xf16>, !cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xf32>) -> (), kernel, sym_name = "k"}> ({
^bb0(%a: !cuda_tile.tile<16x8xf16>, %b: !cuda_tile.tile<16x16xf16>, %c: !cuda_tile.tile<16x16xf32>):
  // expected-error-re @below {{'cuda_tile.mmaf' op {{.*}}}}
  %d = "cuda_tile.mmaf"(%a, %b, %c) : (!cuda_tile.tile<16x8xf16>, !cuda_tile.tile<16x16xf16>, !cuda_tile.tile<16x16xf32>) -> !cuda_tile.tile<16x16xf32>
  "nv_tileaa.return"() : () -> ()
}) : () -> ()
