//! Parse → print is a fixed point after one step, and the generic and custom forms of a
//! program parse to the same IR, for a program using every public cuda_tile op.

use std::collections::BTreeSet;
use tileir_ir::dialect::cuda_tile::schema::{traits, SCHEMAS};
use tileir_ir::{print_module, CtOp, Module, PrintOptions};
use tileir_syntax::{parse_module, ParseOptions};

const ALL_OPS: &str = include_str!("all_ops.mlir");

fn parse(text: &str) -> Module {
    let opts = ParseOptions {
        file_name: "t.mlir".into(),
        allow_unregistered: true,
        keep_names: true,
    };
    match parse_module(text, &opts) {
        Ok(m) => m,
        Err(d) => panic!(
            "parse failed: {}\n--- input ---\n{text}",
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn print(m: &Module, generic: bool, debug_info: bool) -> String {
    print_module(
        m,
        PrintOptions {
            generic,
            debug_info,
        },
    )
}

/// Checks the three round-trip properties of `text` and returns its canonical print.
fn check_round_trip(text: &str) -> String {
    let first = print(&parse(text), false, false);
    let second = print(&parse(&first), false, false);
    assert_eq!(first, second, "custom print is not a fixed point");
    let generic = print(&parse(&first), true, false);
    let from_generic = print(&parse(&generic), false, false);
    assert_eq!(
        first, from_generic,
        "generic form parses to different IR:\n{generic}"
    );
    let generic2 = print(&parse(&generic), true, false);
    assert_eq!(generic, generic2, "generic print is not a fixed point");
    let dbg = print(&parse(&first), false, true);
    let dbg2 = print(&parse(&dbg), false, true);
    assert_eq!(dbg, dbg2, "debug-info print is not a fixed point");
    first
}

#[test]
fn every_public_op_round_trips() {
    let m = parse(ALL_OPS);
    let seen: BTreeSet<&str> = m
        .walk()
        .iter()
        .filter_map(|&o| m.ops[o].kind.ct())
        .map(|o| o.mnemonic())
        .collect();
    let public: BTreeSet<&str> = SCHEMAS
        .iter()
        .filter(|s| !s.has(traits::TEST_ONLY))
        .map(|s| s.mnemonic)
        .collect();
    let missing: Vec<_> = public.difference(&seen).collect();
    assert!(missing.is_empty(), "ops without an example: {missing:?}");
    assert_eq!(public.len(), CtOp::NUM_PUBLIC);
    check_round_trip(ALL_OPS);
}

/// Each op's line of the canonical print, checked against what the reference prints.
#[test]
fn canonical_spellings() {
    let out = check_round_trip(ALL_OPS);
    for expected in [
        "cuda_tile.module @kernels attributes {producer = \"tileir tests\"} {",
        "global @lut alignment = 128 <f32: [0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tile<4xf32>",
        "global private constant @ids <i32: [1, 2]> : tile<2xi32>",
        "optimization_hints=<sm_100 = {num_cta_in_cga = 2}, default = {occupancy = 2}> {",
        "= addf %f, %f rounding<zero> flush_to_zero : tile<f32>",
        "= cmpi greater_than_or_equal %i, %i, unsigned : tile<i32> -> tile<i1>",
        "= cmpf less_than unordered %f, %f : tile<f32> -> tile<i1>",
        "= divi %i, %i signed rounding<positive_inf> : tile<i32>",
        "= maxf %f, %f propagate_nan : tile<f32>",
        "= constant <f16: -3.140630e+00> : tile<4x8xf16>",
        "= permute %x [1, 0] : tile<2x4xf32> -> tile<4x2xf32>",
        "= cat %x, %x dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x8xf32>",
        "%r:2 = reduce %c, %x dim=1 identities=[0 : i32, 0.000000e+00 : f32] : tile<2x2xi32>, tile<2x4xf32> -> tile<2xi32>, tile<2xf32>",
        "= scan %x dim=1 reverse=true identities=[1.000000e+00 : f32]",
        "partition_view<tile=(8x8), tensor_view<32x32xf32, strides=[32,1]>, dim_map=[1, 0]>",
        "token = %t0 optimization_hints = <sm_100 = {latency = 3, allow_tma = true}> :",
        "load_ptr_tko relaxed device %ptrs, %mask, %v8 token=%tk2 : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token",
        "= print_tko \"x=%f %d\\0A\", %v8, %bx token=%red : tile<8xf32>, tile<i32> -> token",
        "= print_tko \"hello\" -> token",
        "= gdc_launch_dependents_tko token=%pt -> token",
        "= gdc_wait_tko -> token",
        "%is:2 = get_index_space_shape %pv",
        "= assume same_elements<[1, 4]>, %mask : tile<8xi1>",
        "for unsigned %iv in (%lb to %ub, step %lb) : tile<i32> iter_values(%acc = %x) -> (tile<f32>) {",
        "%w:2 = loop iter_values(%k = %lb) : tile<i32> -> tile<f32>, tile<i32> {",
        "return %w#0, %w#1 : tile<f32>, tile<i32>",
        "testing$func @control(%c: tile<i1>, %lb: tile<i32>, %ub: tile<i32>, %x: tile<f32>) -> (tile<f32>, tile<i32>) {",
    ] {
        assert!(out.contains(expected), "missing `{expected}` in\n{out}");
    }
    // Implicit terminators without operands are not printed (entries always print `return`).
    assert!(
        !out.contains("yield\n") && !out.contains("continue\n"),
        "{out}"
    );
}

fn in_kernel(body: &str) -> String {
    format!("cuda_tile.module @kernels {{\n  entry @k() {{\n{body}\n    return\n  }}\n}}\n")
}

#[test]
fn dense_literal_printing() {
    let out = check_round_trip(&in_kernel(
        "%1 = constant <i16: 0xFFFF> : tile<i16>
         %2 = constant <i32: 0x12345678> : tile<i32>
         %3 = constant <i32: [42]> : tile<1xi32>
         %4 = constant <i1: [[[true, false]], [[false, true]]]> : tile<2x1x2xi1>
         %5 = constant <f16: 70000.0> : tile<f16>
         %6 = constant <f32: 0x7FC00000> : tile<f32>
         %7 = constant <f64: 2.7182818284590451> : tile<f64>
         %8 = constant <i64: -9223372036854775808> : tile<i64>
         %9 = constant <f32: 1.5> : tile<2x4x4xf32>
         %10 = constant <i8: 255> : tile<i8>",
    ));
    for e in [
        "constant <i16: -1> : tile<i16>",
        "constant <i32: 305419896> : tile<i32>",
        "constant <i32: 42> : tile<1xi32>",
        "constant <i1: [[[true, false]], [[false, true]]]> : tile<2x1x2xi1>",
        "constant <f16: 0x7C00> : tile<f16>",
        "constant <f32: 0x7FC00000> : tile<f32>",
        "constant <f64: 2.7182818284590451> : tile<f64>",
        "constant <i64: -9223372036854775808> : tile<i64>",
        "constant <f32: 1.500000e+00> : tile<2x4x4xf32>",
        "constant <i8: -1> : tile<i8>",
    ] {
        assert!(out.contains(e), "missing `{e}` in\n{out}");
    }
}

#[test]
fn types_print_canonically() {
    let out = check_round_trip(
        "cuda_tile.module @kernels {
  testing$func @t(%a: !cuda_tile.ptr<i1>, %b: !cuda_tile.tensor_view<f32>, %c: !cuda_tile.tensor_view<?x2xf32, strides=[1,?]>,
      %d: !cuda_tile.partition_view<tile=(2), tensor_view<16xf32, strides=[1]>, dim_map=[0]>,
      %e: !cuda_tile.partition_view<tile=(2x2), padding_value = neg_inf, !cuda_tile.tensor_view<16x16xf32, strides=[16,1]>, dim_map=[0, 1]>,
      %f: !cuda_tile.tile<4x!cuda_tile.ptr<f16>>) {
    return
  }
}",
    );
    for e in [
        "tensor_view<f32>",
        "tensor_view<?x2xf32, strides=[1,?]>",
        "%d: partition_view<tile=(2), tensor_view<16xf32, strides=[1]>>",
        "partition_view<tile=(2x2), padding_value = neg_inf, tensor_view<16x16xf32, strides=[16,1]>>",
        "%f: tile<4xptr<f16>>",
        "ptr<i1>",
    ] {
        assert!(out.contains(e), "missing `{e}` in\n{out}");
    }
}

#[test]
fn default_attributes_are_elided_in_custom_and_printed_in_generic() {
    let text = in_kernel(
        "%a = constant <i16: 1> : tile<i16>
         %b = addi %a, %a overflow<none> : tile<i16>
         %f = constant <f32: 1.0> : tile<f32>
         %g = addf %f, %f rounding<nearest_even> : tile<f32>
         %h = tanh %f rounding<full> : tile<f32>",
    );
    let out = check_round_trip(&text);
    assert!(out.contains("%b = addi %a, %a : tile<i16>"), "{out}");
    assert!(out.contains("%g = addf %f, %f : tile<f32>"), "{out}");
    assert!(out.contains("%h = tanh %f : tile<f32>"), "{out}");
    let generic = print(&parse(&text), true, false);
    assert!(
        generic.contains("<{overflow = #cuda_tile.overflow<none>}>"),
        "{generic}"
    );
    assert!(
        generic.contains("<{rounding_mode = #cuda_tile.rounding<nearest_even>}>"),
        "{generic}"
    );
}

#[test]
fn i32_enums_print_as_integers_in_generic_form() {
    let text = "cuda_tile.module @kernels {
  testing$func @t(%p: tile<2xptr<f32>>, %v: tile<2xf32>) {
    %r, %t = atomic_rmw_tko relaxed device %p, addf, %v : tile<2xptr<f32>>, tile<2xf32> -> tile<2xf32>, token
    return
  }
}";
    check_round_trip(text);
    let generic = print(&parse(text), true, false);
    assert!(
        generic.contains("memory_ordering_semantics = 1 : i32"),
        "{generic}"
    );
    assert!(generic.contains("memory_scope = 1 : i32"), "{generic}");
    assert!(generic.contains("mode = 4 : i32"), "{generic}");
    assert!(
        generic.contains("operandSegmentSizes = array<i32: 1, 1, 0, 0>"),
        "{generic}"
    );
}

#[test]
fn older_attribute_dictionary_spelling_parses() {
    let text = in_kernel(
        "%s1 = constant <i16: 42> : tile<i16>
         %c = \"cuda_tile.cmpi\"(%s1, %s1) {comparison_predicate = #cuda_tile.comparison_predicate<equal>, signedness = #cuda_tile.signedness<signed>} : (!cuda_tile.tile<i16>, !cuda_tile.tile<i16>) -> !cuda_tile.tile<i1>",
    );
    let out = check_round_trip(&text);
    assert!(
        out.contains("cmpi equal %s1, %s1, signed : tile<i16> -> tile<i1>"),
        "{out}"
    );
}

#[test]
fn top_level_ops_and_explicit_module() {
    // Bare cuda_tile ops at builtin-module level print with their prefix and long types.
    let out = check_round_trip(
        "cuda_tile.testing$func @f(%a: !cuda_tile.tile<f32>) -> !cuda_tile.tile<f32> {
  %b = cuda_tile.negf %a : !cuda_tile.tile<f32>
  cuda_tile.return %b : !cuda_tile.tile<f32>
}",
    );
    assert!(
        out.starts_with("cuda_tile.testing$func @f(%a: tile<f32>) -> tile<f32> {"),
        "{out}"
    );
    let wrapped = print(
        &parse("module {\n  cuda_tile.module @k {\n  }\n}\n"),
        false,
        false,
    );
    let bare = print(&parse("cuda_tile.module @k {\n}\n"), false, false);
    assert_eq!(wrapped, bare);
    let b2 = print(
        &parse("builtin.module {\n  cuda_tile.module @k {\n  }\n}\n"),
        false,
        false,
    );
    assert_eq!(b2, bare);
}

#[test]
fn unregistered_ops_round_trip_when_allowed() {
    let text = "cuda_tile.module @kernels {
  testing$func @t() {
    %c = \"cond\"() : () -> !cuda_tile.tile<i1>
    \"use_type\"(%c) {tag = 3 : i32, name = \"x\"} : (!cuda_tile.tile<i1>) -> ()
    return
  }
}";
    let out = check_round_trip(text);
    assert!(
        out.contains("%c = \"cond\"() : () -> !cuda_tile.tile<i1>"),
        "{out}"
    );
    assert!(
        out.contains(
            "\"use_type\"(%c) {tag = 3 : i32, name = \"x\"} : (!cuda_tile.tile<i1>) -> ()"
        ),
        "{out}"
    );
}

#[test]
fn debug_info_locations_and_aliases() {
    let text = "cuda_tile.module @kernels {
  entry @k() {
    %c = constant <i32: 42> : tile<i32> loc(#loc2)
    return loc(#loc3)
  } loc(#loc1)
} loc(#loc)
#di_file = #cuda_tile.di_file<\"k.py\" in \"/src\">
#loc = loc(unknown)
#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>
#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 8, name = \"k\", linkageName = \"k\", compileUnit = #di_compile_unit, scopeLine = 8>
#loc1 = #cuda_tile.di_loc<loc(\"k.py\":8:3) in #di_subprogram>
#loc2 = #cuda_tile.di_loc<loc(\"k.py\":10:10) in #di_subprogram>
#loc3 = loc(callsite(\"a.py\":1:2 at \"b.py\":3:4))
";
    let m = parse(text);
    let dbg = print(&m, false, true);
    let expected_tail = "#di_file = #cuda_tile.di_file<\"k.py\" in \"/src\">
#loc = loc(unknown)
#loc1 = loc(\"k.py\":8:3)
#loc2 = loc(\"k.py\":10:10)
#loc3 = loc(\"a.py\":1:2)
#loc4 = loc(\"b.py\":3:4)
#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>
#loc5 = loc(callsite(#loc3 at #loc4))
#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 8, name = \"k\", linkageName = \"k\", compileUnit = #di_compile_unit, scopeLine = 8>
#loc6 = #cuda_tile.di_loc<#loc1 in #di_subprogram>
#loc7 = #cuda_tile.di_loc<#loc2 in #di_subprogram>
";
    assert!(dbg.ends_with(expected_tail), "{dbg}");
    assert!(
        dbg.contains("} loc(#loc6)")
            && dbg.contains("return loc(#loc5)")
            && dbg.contains("} loc(#loc)"),
        "{dbg}"
    );
    assert_eq!(dbg, print(&parse(&dbg), false, true));
    // Without debug info, no locations or aliases are printed.
    assert!(!print(&m, false, false).contains("loc("));
    // The op's own location is the parsed one; an op without a trailer gets its source position.
    let plain = parse("cuda_tile.module @k {\n  entry @f() {\n    return\n  }\n}\n");
    let ret = plain
        .walk()
        .into_iter()
        .find(|&o| plain.ops[o].kind.ct() == Some(CtOp::Return))
        .unwrap();
    assert_eq!(
        plain.op_location(ret).file_line_col(),
        Some(("t.mlir", 3, 5))
    );
}
