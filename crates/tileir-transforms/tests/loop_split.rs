//! `loop-split` on small hand-written loops: parse, split, verify, check the printed output.

use tileir_ir::{print_module, Attr, CtOp, Module, PrintOptions};
use tileir_transforms::loop_split::{split_loops, THRESHOLD_ATTR};

fn parse(src: &str) -> Module {
    let opts = tileir_syntax::ParseOptions {
        file_name: "t.mlir".into(),
        keep_names: true,
        ..Default::default()
    };
    tileir_syntax::parse_module(src, &opts).unwrap_or_else(|d| panic!("parse failed: {d:?}\n{src}"))
}

fn finish(m: &Module) -> String {
    let out = print_module(m, PrintOptions::default());
    if let Err(d) = tileir_verify::verify(m) {
        panic!("output does not verify: {d:?}\n{out}");
    }
    out
}

fn split(src: &str, threshold: i64) -> (usize, String) {
    let mut m = parse(src);
    let n = split_loops(&mut m, threshold);
    (n, finish(&m))
}

#[track_caller]
fn assert_in_order(out: &str, needles: &[&str]) {
    let ls: Vec<&str> = out.lines().map(str::trim).collect();
    let mut i = 0;
    for n in needles {
        match ls[i..].iter().position(|l| l.contains(n)) {
            Some(k) => i += k + 1,
            None => panic!("'{n}' not found (in order) in:\n{out}"),
        }
    }
}

/// An entry with a loop over `[0, %n)` (step `STEP`) whose body is `BODY`, accumulating an
/// i32 that is stored at the end.
fn kernel(step: &str, body: &str) -> String {
    format!(
        "cuda_tile.module @m {{\n  entry @k(%n: tile<i32>, %x: tile<i32>, %s: tile<i32>, %p: tile<ptr<i32>>) {{\n    %lb = constant <i32: 0> : tile<i32>\n    %one = constant <i32: 1> : tile<i32>\n    %r = for %i in (%lb to %n, step {step}) : tile<i32> iter_values(%acc = %lb) -> (tile<i32>) {{\n{body}\n    }}\n    %t = store_ptr_tko weak %p, %r : tile<ptr<i32>>, tile<i32> -> token\n    return\n  }}\n}}\n"
    )
}

const LT_BODY: &str = "      %c = cmpi less_than %i, %x, signed : tile<i32> -> tile<i1>\n      %v = if %c -> (tile<i32>) {\n        %a = addi %acc, %i : tile<i32>\n        yield %a : tile<i32>\n      } else {\n        %b = muli %acc, %i : tile<i32>\n        yield %b : tile<i32>\n      }\n      continue %v : tile<i32>";

#[test]
fn less_than_splits_at_the_bound_with_unit_step() {
    let (n, out) = split(&kernel("%one", LT_BODY), 1);
    assert_eq!(n, 1);
    assert_in_order(
        &out,
        &[
            "%0 = mini %x, %n signed",
            "%1 = maxi %x, %lb signed",
            "%2 = for %i in (%lb to %0, step %one)",
            "%a = addi %acc, %i",
            "continue %a",
            "%r = for %i_1 in (%1 to %n, step %one) : tile<i32> iter_values(%acc_1 = %2)",
            "%b = muli %acc_1, %i_1",
            "continue %b",
            "store_ptr_tko weak %p, %r",
        ],
    );
    assert!(!out.contains("cmpi") && !out.contains("if "), "{out}");
}

#[test]
fn swapped_greater_than_with_a_dynamic_step_rounds_the_split_up() {
    // `x > iv` is `iv < x`; `iv <= x` would add one. Here: `x >= iv` → `iv <= x`.
    let body = LT_BODY.replace("cmpi less_than %i, %x", "cmpi greater_than_or_equal %x, %i");
    let (n, out) = split(&kernel("%s", &body), 1);
    assert_eq!(n, 1);
    assert_in_order(
        &out,
        &[
            "constant <i32: 1>",
            "%1 = addi %x, %0",
            "%2 = subi %1, %lb",
            "%3 = divi %2, %s signed rounding<positive_inf>",
            "%4 = muli %3, %s",
            "%5 = addi %lb, %4",
            "mini %5, %n signed",
            "maxi %5, %lb signed",
            "addi %acc, %i",
            "muli %acc_1, %i_1",
        ],
    );
}

#[test]
fn unsigned_loops_split_on_unsigned_compares_only() {
    let src = "cuda_tile.module @m {\n  entry @k(%n: tile<i32>, %x: tile<i32>, %p: tile<ptr<i32>>) {\n    %lb = constant <i32: 0> : tile<i32>\n    %one = constant <i32: 1> : tile<i32>\n    for unsigned %i in (%lb to %n, step %one) : tile<i32> {\n      %c = cmpi greater_than %i, %x, SIGN : tile<i32> -> tile<i1>\n      if %c {\n        %t = store_ptr_tko weak %p, %i : tile<ptr<i32>>, tile<i32> -> token\n        continue\n      }\n      %u = store_ptr_tko weak %p, %x : tile<ptr<i32>>, tile<i32> -> token\n    }\n    return\n  }\n}\n";
    let (n, _) = split(&src.replace("SIGN", "signed"), 1);
    assert_eq!(n, 0);
    let (n, out) = split(&src.replace("SIGN", "unsigned"), 1);
    assert_eq!(n, 1);
    // gt: split at x + 1; first loop (iv <= x) runs the fall-through, second the branch,
    // whose `continue` ends the body copy.
    assert_in_order(
        &out,
        &[
            "%1 = addi %x, %0",
            "mini %1, %n unsigned",
            "maxi %1, %lb unsigned",
            "for unsigned %i in",
            "store_ptr_tko weak %p, %x",
            "for unsigned %i_1 in",
            "store_ptr_tko weak %p, %i_1",
        ],
    );
    let second_loop = &out[out.rfind("for unsigned").unwrap()..];
    assert!(!second_loop.contains("%p, %x"), "{out}");
}

#[test]
fn a_compare_with_other_uses_stays_as_a_constant() {
    let body = LT_BODY.replace("      continue %v", "      %e = exti %c unsigned : tile<i1> -> tile<i32>\n      %w = addi %v, %e : tile<i32>\n      continue %w");
    let (n, out) = split(&kernel("%one", &body), 1);
    assert_eq!(n, 1);
    assert_in_order(
        &out,
        &[
            "%3 = constant <i1: true>",
            "exti %3",
            "%4 = constant <i1: false>",
            "exti %4",
        ],
    );
}

#[test]
fn loop_variant_bounds_do_not_split() {
    let body = LT_BODY.replace("cmpi less_than %i, %x", "cmpi less_than %i, %acc");
    let (n, _) = split(&kernel("%one", &body), 1);
    assert_eq!(n, 0);
}

#[test]
fn thresholds_and_hints_decide_profitability() {
    // One op per branch: below a threshold of 2.
    let (n, _) = split(&kernel("%one", LT_BODY), 2);
    assert_eq!(n, 0);
    // A heavy op (a store) always pays off.
    let heavy = LT_BODY.replace("        %a = addi", "        %st = store_ptr_tko weak %p, %i : tile<ptr<i32>>, tile<i32> -> token\n        %a = addi");
    let (n, _) = split(&kernel("%one", &heavy), 5);
    assert_eq!(n, 1);
    // Hints: if > for > entry > option; 0 disables.
    let set = |m: &mut Module, which: CtOp, v: i64| {
        let op = m
            .walk()
            .into_iter()
            .find(|&o| m.ops[o].kind.ct() == Some(which))
            .unwrap();
        if let tileir_ir::OpKind::CudaTile(c) = &mut m.ops[op].kind {
            c.discardable
                .push((THRESHOLD_ATTR.to_string(), Attr::Int(v)));
        }
    };
    let mut m = parse(&kernel("%one", LT_BODY));
    set(&mut m, CtOp::Entry, 0);
    assert_eq!(split_loops(&mut m, 1), 0);
    set(&mut m, CtOp::For, 1);
    set(&mut m, CtOp::If, 0);
    assert_eq!(split_loops(&mut m, 1), 0);
    let mut m = parse(&kernel("%one", LT_BODY));
    set(&mut m, CtOp::Entry, 0);
    set(&mut m, CtOp::For, 1);
    assert_eq!(split_loops(&mut m, 0), 1);
    finish(&m);
}
