//! `canonicalize` on small hand-written cases, one per fold or pattern: parse, run, verify,
//! and check the printed output.

use tileir_ir::{print_module, PrintOptions};
use tileir_transforms::canonicalize::{canonicalize, canonicalize_with, CanonicalizeOptions};

fn parse(src: &str) -> tileir_ir::Module {
    let opts = tileir_syntax::ParseOptions {
        file_name: "t.mlir".into(),
        keep_names: true,
        ..Default::default()
    };
    tileir_syntax::parse_module(src, &opts).unwrap_or_else(|d| panic!("parse failed: {d:?}\n{src}"))
}

fn run_with(src: &str, options: &CanonicalizeOptions) -> String {
    let mut m = parse(src);
    canonicalize_with(&mut m, options);
    let out = print_module(&m, PrintOptions::default());
    if let Err(d) = tileir_verify::verify(&m) {
        panic!("output does not verify: {d:?}\n{out}");
    }
    out
}

fn run(src: &str) -> String {
    run_with(src, &CanonicalizeOptions::default())
}

/// Wraps a function body taking `%x, %y : tile<i32>` and `%p : tile<i1>` and returning a
/// `tile<i32>`.
fn func(body: &str) -> String {
    format!(
        "cuda_tile.module @m {{\n  testing$func @f(%x: tile<i32>, %y: tile<i32>, %p: tile<i1>) -> tile<i32> {{\n{body}\n  }}\n}}\n"
    )
}

/// Lines of `out` with indentation removed.
fn lines(out: &str) -> Vec<String> {
    out.lines().map(|l| l.trim().to_string()).collect()
}

/// Asserts that `needles` occur as substrings of successive lines, in order.
#[track_caller]
fn assert_in_order(out: &str, needles: &[&str]) {
    let ls = lines(out);
    let mut i = 0;
    for n in needles {
        match ls[i..].iter().position(|l| l.contains(n)) {
            Some(k) => i += k + 1,
            None => panic!("'{n}' not found (in order) in:\n{out}"),
        }
    }
}

#[test]
fn addf_moves_the_multiply_to_the_left() {
    let out = run(&func(
        "    %a = constant <f32: 1.0> : tile<f32>\n    %m = mulf %a, %a : tile<f32>\n    %s = addf %a, %m : tile<f32>\n    %i = bitcast %s : tile<f32> -> tile<i32>\n    return %i : tile<i32>",
    ));
    assert!(out.contains("%s = addf %m, %a"), "{out}");
}

#[test]
fn dead_pure_ops_go_and_effects_stay() {
    let out = run(&func(
        "    %d = addi %x, %y : tile<i32>\n    %e = muli %d, %d : tile<i32>\n    %t = print_tko \"hi\" -> token\n    return %x : tile<i32>",
    ));
    assert!(!out.contains("addi") && !out.contains("muli"), "{out}");
    assert!(out.contains("print_tko"), "{out}");
}

#[test]
fn constants_are_deduplicated_and_hoisted_to_the_function_start() {
    let out = run(&func(
        "    %a = constant <i32: 7> : tile<i32>\n    %s = addi %x, %a : tile<i32>\n    %r = if %p -> (tile<i32>) {\n      %b = constant <i32: 7> : tile<i32>\n      %c = constant <i32: 9> : tile<i32>\n      %u = addi %s, %b : tile<i32>\n      %v = addi %u, %c : tile<i32>\n      yield %v : tile<i32>\n    } else {\n      yield %s : tile<i32>\n    }\n    return %r : tile<i32>",
    ));
    // The 9 moves in front of the 7 (MLIR moves each constant to the very front); the
    // duplicate 7 is gone.
    assert_in_order(
        &out,
        &[
            "%c = constant <i32: 9>",
            "%a = constant <i32: 7>",
            "%s = addi",
            "if %p",
            "%u = addi %s, %a",
        ],
    );
    assert_eq!(out.matches("<i32: 7>").count(), 1, "{out}");
}

#[test]
fn static_conditions_inline_the_branch_taken() {
    let out = run(&func(
        "    %t = constant <i1: true> : tile<i1>\n    %f = constant <i1: false> : tile<i1>\n    %r = if %t -> (tile<i32>) {\n      %a = addi %x, %y : tile<i32>\n      yield %a : tile<i32>\n    } else {\n      yield %y : tile<i32>\n    }\n    if %f {\n      %k = print_tko \"never\" -> token\n    }\n    %s = if %f -> (tile<i32>) {\n      yield %x : tile<i32>\n    } else {\n      yield %r : tile<i32>\n    }\n    return %s : tile<i32>",
    ));
    assert!(
        !out.contains("if ") && !out.contains("never") && !out.contains("constant"),
        "{out}"
    );
    assert_in_order(&out, &["%a = addi %x, %y", "return %a"]);
}

#[test]
fn a_static_branch_that_exits_drops_the_rest_of_the_block() {
    let out = run(
        "cuda_tile.module @m {\n  testing$func @f(%x: tile<i32>) -> tile<i32> {\n    %lb = constant <i32: 0> : tile<i32>\n    %one = constant <i32: 1> : tile<i32>\n    %r = for %i in (%lb to %x, step %one) : tile<i32> iter_values(%acc = %lb) -> (tile<i32>) {\n      %t = constant <i1: true> : tile<i1>\n      %v = if %t -> (tile<i32>) {\n        continue %i : tile<i32>\n      } else {\n        yield %acc : tile<i32>\n      }\n      %w = addi %v, %one : tile<i32>\n      continue %w : tile<i32>\n    }\n    return %r : tile<i32>\n  }\n}\n",
    );
    assert_in_order(&out, &["for %i", "continue %i", "}", "return %r"]);
    assert!(!out.contains("addi") && !out.contains("if "), "{out}");
}

#[test]
fn trivial_ifs_become_selects() {
    let out = run(&func(
        "    %a = addi %x, %y : tile<i32>\n    %r, %s = if %p -> (tile<i32>, tile<i32>) {\n      %in = muli %x, %y : tile<i32>\n      yield %x, %in : tile<i32>, tile<i32>\n    } else {\n      yield %a, %y : tile<i32>, tile<i32>\n    }\n    %t = addi %r, %s : tile<i32>\n    return %t : tile<i32>",
    ));
    // The first result is yielded from outside both branches: a select; the second stays.
    assert_in_order(
        &out,
        &[
            "%0 = select %p, %x, %a",
            "= if %p -> (tile<i32>)",
            "yield %in",
            "yield %y",
        ],
    );
}

#[test]
fn ifs_yielding_the_same_value_or_booleans_fold() {
    let src = "cuda_tile.module @m {\n  testing$func @f(%x: tile<i32>, %p: tile<i1>) -> tile<i1> {\n    %r, %b, %n = if %p -> (tile<i32>, tile<i1>, tile<i1>) {\n      %t = constant <i1: true> : tile<i1>\n      %f = constant <i1: false> : tile<i1>\n      yield %x, %t, %f : tile<i32>, tile<i1>, tile<i1>\n    } else {\n      %t2 = constant <i1: true> : tile<i1>\n      %f2 = constant <i1: false> : tile<i1>\n      yield %x, %f2, %t2 : tile<i32>, tile<i1>, tile<i1>\n    }\n    %c = andi %b, %n : tile<i1>\n    %q = exti %c unsigned : tile<i1> -> tile<i32>\n    %s = addi %q, %r : tile<i32>\n    %u = trunci %s : tile<i32> -> tile<i1>\n    return %u : tile<i1>\n  }\n}\n";
    let out = run(src);
    assert!(!out.contains("if "), "{out}");
    // %b is the condition, %n its negation, %r is %x.
    assert_in_order(&out, &["xori %p,", "andi %p,", "addi %q, %x"]);
}

#[test]
fn unused_if_results_are_dropped() {
    let out = run(&func(
        "    %r, %s = if %p -> (tile<i32>, tile<i32>) {\n      %k = print_tko \"then\" -> token\n      %a = addi %x, %y : tile<i32>\n      yield %a, %x : tile<i32>, tile<i32>\n    } else {\n      %b = muli %x, %y : tile<i32>\n      yield %b, %y : tile<i32>, tile<i32>\n    }\n    return %r : tile<i32>",
    ));
    assert_in_order(
        &out,
        &[
            "%r = if %p -> (tile<i32>) {",
            "yield %a : tile<i32>",
            "yield %b : tile<i32>",
        ],
    );
}

#[test]
fn consecutive_ifs_on_one_condition_merge() {
    let out = run(&func(
        "    %r = if %p -> (tile<i32>) {\n      %a = addi %x, %y : tile<i32>\n      yield %a : tile<i32>\n    } else {\n      %b = muli %x, %y : tile<i32>\n      yield %b : tile<i32>\n    }\n    %s = if %p -> (tile<i32>) {\n      %c = addi %r, %x : tile<i32>\n      yield %c : tile<i32>\n    } else {\n      %d = muli %r, %x : tile<i32>\n      yield %d : tile<i32>\n    }\n    %t = addi %r, %s : tile<i32>\n    return %t : tile<i32>",
    ));
    assert_eq!(out.matches("if %p").count(), 1, "{out}");
    assert_in_order(
        &out,
        &[
            "if %p",
            "%a = addi %x, %y",
            "%c = addi %a, %x",
            "yield %a, %c",
            "else",
            "%b = muli",
            "%d = muli %b, %x",
            "yield %b, %d",
        ],
    );
}

#[test]
fn merging_stops_at_a_branch_that_returns() {
    let out = run(&func(
        "    %r = if %p -> (tile<i32>) {\n      return %x : tile<i32>\n    } else {\n      yield %y : tile<i32>\n    }\n    %s = if %p -> (tile<i32>) {\n      %c = addi %r, %x : tile<i32>\n      yield %c : tile<i32>\n    } else {\n      %d = muli %r, %x : tile<i32>\n      yield %d : tile<i32>\n    }\n    %t = addi %r, %s : tile<i32>\n    return %t : tile<i32>",
    ));
    assert_eq!(out.matches("if %p").count(), 1, "{out}");
    // The merged first result is %y whenever control gets past the `if`.
    assert_in_order(
        &out,
        &[
            "%s = if %p",
            "return %x",
            "} else {",
            "%d = muli %y, %x",
            "yield %d",
            "addi %y, %s",
        ],
    );
    assert!(!out.contains("%c = addi"), "{out}");
}

#[test]
fn nested_ifs_combine_their_conditions() {
    let out = run(&func(
        "    %q = cmpi equal %x, %y, signed : tile<i32> -> tile<i1>\n    if %p {\n      if %q {\n        %k = print_tko \"both\" -> token\n      }\n    }\n    return %x : tile<i32>",
    ));
    assert_in_order(&out, &["%0 = andi %p, %q", "if %0 {", "print_tko \"both\""]);
    assert_eq!(out.matches("if ").count(), 1, "{out}");
}

#[test]
fn branches_that_both_return_keep_only_the_then_if() {
    let out = run(&func(
        "    if %p {\n      %k = print_tko \"a\" -> token\n      return %x : tile<i32>\n    } else {\n      %l = print_tko \"b\" -> token\n      return %y : tile<i32>\n    }\n    %m = print_tko \"unreachable\" -> token\n    return %x : tile<i32>",
    ));
    assert_in_order(
        &out,
        &["if %p {", "return %x", "}", "print_tko \"b\"", "return %y"],
    );
    assert!(
        !out.contains("else") && !out.contains("unreachable"),
        "{out}"
    );
}

#[test]
fn empty_else_is_removed_and_negated_conditions_swap_branches() {
    let out = run(&func(
        "    %t = constant <i1: true> : tile<i1>\n    %n = xori %p, %t : tile<i1>\n    %r = if %n -> (tile<i32>) {\n      %a = addi %x, %y : tile<i32>\n      yield %a : tile<i32>\n    } else {\n      %b = muli %x, %y : tile<i32>\n      yield %b : tile<i32>\n    }\n    %q = cmpi equal %x, %y, signed : tile<i32> -> tile<i1>\n    if %q {\n      %k = print_tko \"x\" -> token\n    } else {\n    }\n    return %r : tile<i32>",
    ));
    assert!(!out.contains("xori"), "{out}");
    assert_in_order(
        &out,
        &[
            "%r = if %p",
            "%b = muli",
            "} else {",
            "%a = addi",
            "if %q {",
            "print_tko",
            "}",
            "return %r",
        ],
    );
    assert_eq!(out.matches("else").count(), 1, "{out}");
}

#[test]
fn tokens_and_shaped_tiles_never_become_selects() {
    let out = run(
        "cuda_tile.module @m {\n  entry @e(%p: tile<i1>, %q: tile<ptr<i32>>) {\n    %c0 = constant <i32: 0> : tile<2xi32>\n    %c1 = constant <i32: 1> : tile<2xi32>\n    %t0 = make_token : token\n    %t1 = make_token : token\n    %v, %t = if %p -> (tile<2xi32>, token) {\n      yield %c0, %t0 : tile<2xi32>, token\n    } else {\n      yield %c1, %t1 : tile<2xi32>, token\n    }\n    %r = reshape %q : tile<ptr<i32>> -> tile<1xptr<i32>>\n    %b = broadcast %r : tile<1xptr<i32>> -> tile<2xptr<i32>>\n    %s = store_ptr_tko weak %b, %v token=%t : tile<2xptr<i32>>, tile<2xi32> -> token\n    return\n  }\n}\n",
    );
    assert!(!out.contains("select"), "{out}");
    assert!(out.contains("= if %p"), "{out}");
}

#[test]
fn select_folds() {
    let out = run(
        "cuda_tile.module @m {\n  testing$func @f(%x: tile<i32>, %y: tile<i32>, %p: tile<i1>) -> tile<i32> {\n    %t = constant <i1: true> : tile<i1>\n    %f = constant <i1: false> : tile<i1>\n    %s1 = select %p, %x, %x : tile<i1>, tile<i32>\n    %s2 = select %t, %s1, %y : tile<i1>, tile<i32>\n    %s3 = select %f, %y, %s2 : tile<i1>, tile<i32>\n    %e = cmpi equal %s3, %y, signed : tile<i32> -> tile<i1>\n    %s4 = select %e, %s3, %y : tile<i1>, tile<i32>\n    %in = select %p, %x, %y : tile<i1>, tile<i32>\n    %s5 = select %p, %in, %s4 : tile<i1>, tile<i32>\n    %b1 = select %p, %t, %f : tile<i1>, tile<i1>\n    %b2 = select %b1, %f, %t : tile<i1>, tile<i1>\n    %z = exti %b2 unsigned : tile<i1> -> tile<i32>\n    %r = addi %s5, %z : tile<i32>\n    return %r : tile<i32>\n  }\n}\n",
    );
    // s1 = x, s2 = x, s3 = x, s4 = y (eq compare), s5 = select(p, x, y); b1 = p, b2 = !p.
    assert_in_order(&out, &["%s5 = select %p, %x, %y", "xori %p,", "exti"]);
    assert_eq!(out.matches("select").count(), 1, "{out}");
}

#[test]
fn select_with_constant_lanes_folds_elementwise() {
    let out = run(
        "cuda_tile.module @m {\n  testing$func @f() -> tile<2xi32> {\n    %c = constant <i1: [true, false]> : tile<2xi1>\n    %a = constant <i32: [1, 2]> : tile<2xi32>\n    %b = constant <i32: [3, 4]> : tile<2xi32>\n    %s = select %c, %a, %b : tile<2xi1>, tile<2xi32>\n    return %s : tile<2xi32>\n  }\n}\n",
    );
    assert!(!out.contains("select"), "{out}");
    assert!(
        out.contains("constant <i32: [1, 4]> : tile<2xi32>"),
        "{out}"
    );
}

#[test]
fn select_to_ext_is_on_by_default() {
    let src = func(
        "    %one = constant <i32: 1> : tile<i32>\n    %zero = constant <i32: 0> : tile<i32>\n    %s = select %p, %one, %zero : tile<i1>, tile<i32>\n    %n = select %p, %zero, %one : tile<i1>, tile<i32>\n    %r = addi %s, %n : tile<i32>\n    return %r : tile<i32>",
    );
    let out = run(&src);
    assert!(!out.contains("select"), "{out}");
    assert_in_order(&out, &["exti %p unsigned", "xori %p,", "exti"]);
    let opts = CanonicalizeOptions {
        select_to_ext: false,
        ..Default::default()
    };
    let kept = run_with(&src, &opts);
    assert_eq!(kept.matches("select").count(), 2, "{kept}");
}

#[test]
fn a_negated_select_condition_swaps_the_operands() {
    let out = run(&func(
        "    %a = constant <i32: 3> : tile<i32>\n    %b = constant <i32: 5> : tile<i32>\n    %t = constant <i1: true> : tile<i1>\n    %n = xori %p, %t : tile<i1>\n    %s = select %n, %a, %b : tile<i1>, tile<i32>\n    return %s : tile<i32>",
    ));
    assert!(out.contains("select %p, %b, %a"), "{out}");
    assert!(!out.contains("xori"), "{out}");
}

#[test]
fn an_if_yielding_outside_tiles_becomes_a_broadcast_select() {
    let out = run(&func(
        "    %a = constant <i32: [3, 4]> : tile<2xi32>\n    %b = constant <i32: [5, 6]> : tile<2xi32>\n    %r = if %p -> (tile<2xi32>) {\n      yield %a : tile<2xi32>\n    } else {\n      yield %b : tile<2xi32>\n    }\n    %u = reshape %r : tile<2xi32> -> tile<2x1xi32>\n    %v = reshape %u : tile<2x1xi32> -> tile<2xi32>\n    %z = extract %v[%x] : tile<2xi32> -> tile<1xi32>\n    %w = reshape %z : tile<1xi32> -> tile<i32>\n    return %w : tile<i32>",
    ));
    assert!(!out.contains(" if "), "{out}");
    assert_in_order(
        &out,
        &[
            "reshape %p : tile<i1> -> tile<1xi1>",
            "tile<1xi1> -> tile<2xi1>",
            "%a, %b : tile<2xi1>, tile<2xi32>",
        ],
    );
}

#[test]
fn identical_nested_assumes_fold() {
    let out = run(
        "cuda_tile.module @m {\n  testing$func @f(%q: tile<ptr<f32>>) -> tile<ptr<f32>> {\n    %a = assume div_by<16>, %q : tile<ptr<f32>>\n    %b = assume div_by<16>, %a : tile<ptr<f32>>\n    %c = assume div_by<32>, %b : tile<ptr<f32>>\n    return %c : tile<ptr<f32>>\n  }\n}\n",
    );
    assert_eq!(out.matches("div_by<16>").count(), 1, "{out}");
    assert!(out.contains("assume div_by<32>, %a"), "{out}");
}

#[test]
fn a_canonical_module_is_left_alone() {
    let src = func("    %a = addi %x, %y : tile<i32>\n    return %a : tile<i32>");
    let mut m = parse(&src);
    assert_eq!(canonicalize(&mut m), 0);
}
