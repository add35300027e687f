//! Verifier rules checked on parsed text: each case is a small module written for this
//! file, and the expected diagnostics are compared line for line (location, severity,
//! message), the way `-verify-diagnostics` compares them.

use tileir_syntax::{parse_module, ParseOptions};
use tileir_verify::{verify_with, VerifyOptions};

/// Every diagnostic (and note) of verifying `text` the way `tileir-opt` does (MLIR's
/// behaviour: each unit stops at its first failing op), as `line:col: severity: message`.
fn diagnostics(text: &str) -> Vec<String> {
    diagnostics_with(text, VerifyOptions { stop_at_first_failure: true, ..Default::default() })
}

fn diagnostics_with(text: &str, verify_options: VerifyOptions) -> Vec<String> {
    let options = ParseOptions {
        file_name: "t.mlir".into(),
        allow_unregistered: true,
        ..ParseOptions::default()
    };
    let module = parse_module(text, &options).unwrap_or_else(|e| panic!("parse failed: {e:?}"));
    let mut out = Vec::new();
    if let Err(diags) = verify_with(&module, &verify_options) {
        for d in diags.0 {
            for line in d.to_string().lines() {
                out.push(line.trim_start_matches("t.mlir:").to_string());
            }
        }
    }
    out
}

#[track_caller]
fn expect(text: &str, want: &[&str]) {
    assert_eq!(diagnostics(text), want, "\n{text}");
}

#[test]
fn cat_names_all_three_shapes_at_a_mismatched_position() {
    expect(
        r#"cuda_tile.module @m {
  testing$func @f(%a: tile<2x2xf32>) {
    %0 = cat %a, %a dim = 1 : tile<2x2xf32>, tile<2x2xf32> -> tile<4x4xf32>
  }
}"#,
        &["3:5: error: 'cuda_tile.cat' op expect lhs and result shapes to match at non-concat position 0, expected: 2 but got: 4"],
    );
}

#[test]
fn extract_checks_the_index_count_after_the_shapes() {
    expect(
        r#"cuda_tile.module @m {
  testing$func @f(%t: tile<8xf32>, %i: tile<i32>) {
    %0 = extract %t[%i, %i] : tile<8xf32> -> tile<2xf32>
  }
}"#,
        &["3:5: error: 'cuda_tile.extract' op expected 1 indices, but got 2"],
    );
}

#[test]
fn reduce_operands_share_one_shape_before_identities_are_checked() {
    // SameOperandsShape is a trait: it fails before the op's own identity check would.
    expect(
        r#"cuda_tile.module @m {
  testing$func @f(%a: tile<8xf32>, %b: tile<16xi32>) {
    %0:2 = reduce %a, %b dim=0 identities=[0.0 : f32, 0.0 : f32]
        : tile<8xf32>, tile<16xi32> -> tile<f32>, tile<i32>
    (%x: tile<f32>, %xa: tile<f32>, %y: tile<i32>, %ya: tile<i32>) {
      yield %x, %y : tile<f32>, tile<i32>
    }
  }
}"#,
        &["3:5: error: 'cuda_tile.reduce' op requires the same shape for all operands"],
    );
}

#[test]
fn scan_operands_share_one_shape() {
    expect(
        r#"cuda_tile.module @m {
  testing$func @f(%a: tile<8xf32>, %b: tile<16xi32>) {
    %0:2 = scan %a, %b dim=0 reverse=false identities=[0.0 : f32, 0 : i32]
        : tile<8xf32>, tile<16xi32> -> tile<8xf32>, tile<16xi32>
    (%x: tile<f32>, %xa: tile<f32>, %y: tile<i32>, %ya: tile<i32>) {
      yield %x, %y : tile<f32>, tile<i32>
    }
  }
}"#,
        &["3:5: error: 'cuda_tile.scan' op requires the same shape for all operands"],
    );
}

#[test]
fn reduce_and_scan_dims_are_non_negative_attributes() {
    for (op, extra, result) in [
        ("reduce", "", "tile<f32>"),
        ("scan", " reverse=false", "tile<8xf32>"),
    ] {
        let text = format!(
            r#"cuda_tile.module @m {{
  testing$func @f(%a: tile<8xf32>) {{
    %0 = {op} %a dim=-1{extra} identities=[0.0 : f32] : tile<8xf32> -> {result}
    (%x: tile<f32>, %xa: tile<f32>) {{
      yield %x : tile<f32>
    }}
  }}
}}"#
        );
        expect(
            &text,
            &[&format!("3:5: error: 'cuda_tile.{op}' op attribute 'dim' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative")],
        );
    }
}

#[test]
fn reduce_reports_all_inferred_result_types_then_the_inference_failure() {
    expect(
        r#"cuda_tile.module @m {
  testing$func @f(%a: tile<8xf32>, %b: tile<8xi32>) {
    %0:2 = reduce %a, %b dim=0 identities=[0.0 : f32, 0 : i32]
        : tile<8xf32>, tile<8xi32> -> tile<1xf32>, tile<i32>
    (%x: tile<f32>, %xa: tile<f32>, %y: tile<i32>, %ya: tile<i32>) {
      yield %x, %y : tile<f32>, tile<i32>
    }
  }
}"#,
        &[
            "3:5: error: 'cuda_tile.reduce' op inferred type(s) '!cuda_tile.tile<f32>', '!cuda_tile.tile<i32>' are incompatible with return type(s) of operation '!cuda_tile.tile<1xf32>', '!cuda_tile.tile<i32>'",
            "3:5: error: 'cuda_tile.reduce' op failed to infer returned types",
        ],
    );
}

#[test]
fn reduce_checks_its_dim_before_inferring_result_types() {
    // With dim out of range the inferred types would not match either; the op's own
    // verifier runs first and names the real problem.
    expect(
        r#"cuda_tile.module @m {
  testing$func @f(%a: tile<8xf32>) {
    %0 = reduce %a dim=3 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%x: tile<f32>, %xa: tile<f32>) {
      yield %x : tile<f32>
    }
  }
}"#,
        &["3:5: error: 'cuda_tile.reduce' op dimension (3) is out of bound [0, 1)"],
    );
}

#[test]
fn an_impure_op_in_a_reduce_body_is_named_by_a_remark() {
    let got = diagnostics(
        r#"cuda_tile.module @m {
  testing$func @f(%a: tile<8xf32>) {
    %0 = reduce %a dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%x: tile<f32>, %xa: tile<f32>) {
      %t = print_tko "x" -> token
      yield %x : tile<f32>
    }
  }
}"#,
    );
    // NVIDIA 13.3 reports the offending op itself, naming the body's owner.
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(
        got[0],
        "5:7: error: 'cuda_tile.print_tko' op only pure operations are allowed inside 'cuda_tile.reduce'"
    );
}

#[test]
fn conversions_word_their_rounding_errors_like_nvidia() {
    for (line, want) in [
        (
            "%r = itof %x signed rounding<zero> : tile<2xi32> -> tile<2xf32>",
            "'cuda_tile.itof' op invalid rounding mode specified. Only 'nearest_even' is supported",
        ),
        (
            "%r = ftof %y rounding<zero> : tile<2xf32> -> tile<2xf16>",
            "'cuda_tile.ftof' op invalid rounding mode specified. Only 'nearest_even' is supported",
        ),
    ] {
        let text = format!(
            "cuda_tile.module @m {{\n  testing$func @f(%x: tile<2xi32>, %y: tile<2xf32>) {{\n    {line}\n  }}\n}}"
        );
        expect(&text, &[&format!("3:5: error: {want}")]);
    }
}

#[test]
fn a_failing_op_hides_the_ops_nested_in_it() {
    // The if fails on its result type, so the returns inside it are not verified.
    expect(
        r#"cuda_tile.testing$func @f(%c: tile<i1>, %v: tensor_view<2x2xf32, strides=[1,1]>) {
  %0 = if %c -> (tensor_view<2x2xf32, strides=[1,1]>) {
    return %v : tensor_view<2x2xf32, strides=[1,1]>
  } else {
    return %v : tensor_view<2x2xf32, strides=[1,1]>
  }
}"#,
        &["2:3: error: 'cuda_tile.if' op result type 0 is a tensor_view, which is not supported"],
    );
}

#[test]
fn a_failing_entry_hides_its_body() {
    expect(
        r#"cuda_tile.module @m {
  entry @k(%a: tile<f32>) -> tile<f32> {
    return %a : tile<f32>
  }
}"#,
        &["2:3: error: 'cuda_tile.entry' op entry op must not return values"],
    );
}

#[test]
fn the_first_failing_op_ends_its_function_but_not_its_siblings() {
    expect(
        r#"cuda_tile.module @m {
  testing$func @f(%t: tile<8xf32>, %i: tile<i32>) {
    %0 = extract %t[%i, %i] : tile<8xf32> -> tile<2xf32>
    %1 = extract %t[%i, %i, %i] : tile<8xf32> -> tile<2xf32>
  }
  testing$func @g(%a: tile<2x2xf32>) {
    %0 = cat %a, %a dim = 1 : tile<2x2xf32>, tile<2x2xf32> -> tile<4x4xf32>
  }
}"#,
        &[
            "3:5: error: 'cuda_tile.extract' op expected 1 indices, but got 2",
            "7:5: error: 'cuda_tile.cat' op expect lhs and result shapes to match at non-concat position 0, expected: 2 but got: 4",
        ],
    );
}

#[test]
fn by_default_every_failing_op_is_reported() {
    let text = r#"cuda_tile.module @m {
  testing$func @f(%t: tile<8xf32>, %i: tile<i32>) {
    %0 = extract %t[%i, %i] : tile<8xf32> -> tile<2xf32>
    %1 = extract %t[%i, %i, %i] : tile<8xf32> -> tile<2xf32>
  }
}"#;
    assert_eq!(
        diagnostics_with(text, VerifyOptions::default()),
        [
            "3:5: error: 'cuda_tile.extract' op expected 1 indices, but got 2",
            "4:5: error: 'cuda_tile.extract' op expected 1 indices, but got 3",
        ]
    );
}

#[test]
fn symbol_uses_are_resolved_only_after_the_module_verified() {
    // The result type fails first; the unknown global is then not looked up.
    expect(
        r#"cuda_tile.module @m {
  entry @k() {
    %0 = get_global @g1 : tile<4xptr<f32>>
  }
}"#,
        &["3:5: error: 'cuda_tile.get_global' op result #0 must be 0D tile of Pointer type values, but got '!cuda_tile.tile<4xptr<f32>>'"],
    );
    expect(
        r#"cuda_tile.module @m {
  entry @k() {
    %0 = get_global @g1 : tile<ptr<f32>>
  }
}"#,
        &["3:5: error: 'cuda_tile.get_global' op 'g1' does not reference a valid global"],
    );
}

#[test]
fn a_generic_builtin_module_wrapper_is_the_top_level() {
    expect(
        r#""builtin.module"() ({
  "cuda_tile.module"() <{sym_name = "m"}> ({
    cuda_tile.entry @k() {
      return
    }
  }) : () -> ()
}) : () -> ()"#,
        &[],
    );
}
