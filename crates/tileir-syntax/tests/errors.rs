//! Malformed input gives one located diagnostic with MLIR's wording.

use tileir_syntax::{parse_module, ParseOptions};

/// Parses `text` expecting an error containing `msg` at `line:col`.
fn expect_error(text: &str, msg: &str, line: u32, col: u32) {
    let opts = ParseOptions {
        file_name: "e.mlir".into(),
        allow_unregistered: false,
        keep_names: false,
    };
    let errs = match parse_module(text, &opts) {
        Ok(_) => panic!("expected an error `{msg}` for\n{text}"),
        Err(e) => e,
    };
    let d = &errs[0];
    assert!(d.message.contains(msg), "got `{}`, want `{msg}`", d.message);
    assert_eq!(
        d.loc.file_line_col(),
        Some(("e.mlir", line, col)),
        "location of `{}`",
        d.message
    );
}

fn kernel(body: &str) -> String {
    format!("cuda_tile.module @kernels {{\n  testing$func @k(%arg0: tile<f32>, %arg1: tile<i32>) {{\n{body}\n  }}\n}}\n")
}

#[test]
fn value_errors() {
    expect_error(
        &kernel("    %0 = addf %arg0, %nope : tile<f32>"),
        "use of undeclared SSA value name",
        3,
        22,
    );
    expect_error(
        &kernel("    %0 = addi %arg0, %arg0 : tile<i32>"),
        "use of value '%arg0' expects different type than prior uses: '!cuda_tile.tile<i32>' vs '!cuda_tile.tile<f32>'",
        3,
        15,
    );
    expect_error(
        &kernel("    %0 = negf %arg0 : tile<f32>\n    %0 = negf %arg0 : tile<f32>"),
        "redefinition of SSA value '%0'",
        4,
        5,
    );
    expect_error(
        &kernel("    %0, %1 = negf %arg0 : tile<f32>"),
        "operation defines 1 results but was provided 2 to bind",
        3,
        5,
    );
    expect_error(
        &kernel("    %0 = addf %arg0 : tile<f32>"),
        // MLIR's declarative parser wants the ',' before the missing operand.
        "expected ','",
        3,
        21,
    );
    expect_error(
        &kernel("    %0 = \"cuda_tile.addf\"(%arg0, %arg0) : (!cuda_tile.tile<f32>) -> !cuda_tile.tile<f32>"),
        "expected 2 operand types but had 1",
        3,
        43,
    );
}

#[test]
fn syntax_errors() {
    expect_error(
        &kernel("    %0 = negf %arg0 tile<f32>"),
        "expected ':'",
        3,
        21,
    );
    expect_error(
        &kernel("    %0 = cuda_tile.foo %arg0 : tile<f32>"),
        "custom op 'cuda_tile.foo' is unknown",
        3,
        10,
    );
    expect_error(
        &kernel("    %0 = foo %arg0 : tile<f32>"),
        "custom op 'foo' is unknown (tried 'cuda_tile.foo' as well)",
        3,
        10,
    );
    expect_error(
        "entry @k() {\n}\n",
        "custom op 'entry' is unknown (tried 'builtin.entry' as well)",
        1,
        1,
    );
    expect_error(
        &kernel("    \"test.op\"() : () -> ()"),
        "unregistered dialect",
        3,
        5,
    );
    expect_error(&kernel("    %0 = subf %arg0, %arg0 rounding<full> : tile<f32>"), "custom op 'cuda_tile.subf' expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', got: 'full'", 3, 37);
    expect_error(
        &kernel("    %0 = maxi %arg1, %arg1 sined : tile<i32>"),
        "expected signedness to be one of: {'signed', 'unsigned'}",
        3,
        28,
    );
    expect_error(
        &kernel("    %0 = cmpi foo %arg1, %arg1, signed : tile<i32> -> tile<i1>"),
        "custom op 'cuda_tile.cmpi' expected 'comparison_predicate' to be one of",
        3,
        15,
    );
    expect_error(
        &kernel("    %0 = constant <i32: 1> : tile<?xi32>"),
        "expected static shape",
        3,
        35,
    );
    // (Unknown hint keys are kept since 13.3: see hints_are_kept_as_written_unless_checked_at_parse.)
    expect_error(
        "cuda_tile.module @m {\n  entry @t(%a: tile<ptr<f32>>) optimization_hints=<sm_100=2> {\n  }\n}\n",
        "expected dictionary attribute for optimization_hints entry `sm_100` got value=2 : i64",
        2,
        59,
    );
    expect_error(
        "cuda_tile.module @m {\n  entry @t() {\n    return loc(#nowhere)\n  }\n}\n",
        "undefined symbol alias id 'nowhere'",
        3,
        12,
    );
    expect_error(
        "#a = #cuda_tile.di_compile_unit<>\n",
        "expected a parameter name in struct",
        1,
        33,
    );
}

#[test]
fn dense_literal_errors() {
    let c = |lit: &str| kernel(&format!("    %0 = constant {lit}"));
    expect_error(
        &c("<i1: [[true, true], [true, true]]> : tile<4x2xi1>"),
        "inferred shape of elements literal ([2, 2]) does not match type ([4, 2])",
        3,
        20,
    );
    expect_error(
        &c("<i32: [1, 2, 3]> : tile<8xi32>"),
        "inferred shape of elements literal ([3]) does not match type ([8])",
        3,
        20,
    );
    expect_error(
        &c("<i1: [[true, true], [true]]> : tile<2x2xi1>"),
        "tensor literal is invalid; ranks are not consistent between elements",
        3,
        24,
    );
    expect_error(
        &c("<i16: ABC> : tile<i16>"),
        "expected integer value",
        3,
        25,
    );
    expect_error(
        &c("<i8: 0x10AB> : tile<i8>"),
        "integer constant out of range for type",
        3,
        24,
    );
    expect_error(
        &c("<i8: 256> : tile<i8>"),
        "integer constant out of range for type",
        3,
        24,
    );
    expect_error(
        &c("<i16: -32769> : tile<i16>"),
        "integer constant out of range for type",
        3,
        25,
    );
    expect_error(
        &c("<f16: 0x12345678> : tile<f16>"),
        "float constant out of range for type",
        3,
        25,
    );
    expect_error(
        &c("<f32: [1.0, 2]> : tile<2xf32>"),
        "unexpected decimal integer literal for a floating point value",
        3,
        31,
    );
    expect_error(
        &c("<f16: 42.0> : tile<f32>"),
        "mismatch between the element type: 'f16' and the tile element type 'f32'",
        3,
        20,
    );
    expect_error(
        &c("<pluto : 42.0> : tile<f32>"),
        "'cuda_tile.constant' unknown type: pluto",
        3,
        20,
    );
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let deep = format!("cuda_tile.module @m {{\n  entry @t() {{\n    %0 = constant <i32: {}1{}> : tile<i32>\n  }}\n}}\n", "[".repeat(100_000), "]".repeat(100_000));
    let opts = ParseOptions::default();
    let Err(e) = parse_module(&deep, &opts) else {
        panic!("accepted")
    };
    assert!(
        e[0].message.contains("nesting too deep"),
        "{}",
        e[0].message
    );
    let mut loops = String::from("cuda_tile.module @m {\n  entry @t() {\n");
    loops.push_str(&"loop {\n".repeat(5000));
    let Err(e) = parse_module(&loops, &opts) else {
        panic!("accepted")
    };
    assert!(
        e[0].message.contains("nesting too deep"),
        "{}",
        e[0].message
    );
    let types = format!(
        "!a = {}f32{}\n",
        "(".repeat(50_000),
        ") -> f32".repeat(50_000)
    );
    let Err(e) = parse_module(&types, &opts) else {
        panic!("accepted")
    };
    assert!(
        e[0].message.contains("nesting too deep"),
        "{}",
        e[0].message
    );
}

#[test]
fn hints_are_kept_as_written_unless_checked_at_parse() {
    use tileir_syntax::{parse_module_with, HintCheck};
    // By default (13.3) unknown keys, string keys and unknown parameters are kept for
    // the verifier to judge under -Wunsupported-hints.
    let text = "cuda_tile.module @m {\n  entry @t() optimization_hints=<sm_100a={num_cta_in_cga=2}, \"sm 9\"={x=1}, sm_100={num_qqq=1}> {\n  }\n}\n";
    let m = parse_module(text, &ParseOptions::default()).expect("13.3 keeps any hint");
    let printed = tileir_ir::print_module(&m, Default::default());
    assert!(
        printed.contains(
            "optimization_hints=<sm_100a = {num_cta_in_cga = 2}, \"sm 9\" = {x = 1}, sm_100 = {num_qqq = 1}>"
        ),
        "{printed}"
    );
    // A key must be a keyword or a string.
    expect_error(
        "cuda_tile.module @m {\n  entry @t() optimization_hints=<2> {\n  }\n}\n",
        "expected valid keyword or string",
        2,
        34,
    );
    // 13.1's parse-time checks, still available.
    let param = "cuda_tile.module @m {\n  entry @t() optimization_hints=<sm_100={num_qqq=1}> {\n  }\n}\n";
    let Err(e) = parse_module_with(param, &ParseOptions::default(), HintCheck::AtParse) else {
        panic!("13.1 rejects unknown parameters");
    };
    assert!(e[0].message.contains("unknown param num_qqq for sm_100"), "{}", e[0].message);
    let key = "cuda_tile.module @m {\n  entry @t() optimization_hints=<sm_100a={}> {\n  }\n}\n";
    let Err(e) = parse_module_with(key, &ParseOptions::default(), HintCheck::AtParse) else {
        panic!("13.1 rejects unknown keys");
    };
    assert!(e[0].message.contains("unallowed key sm_100a"), "{}", e[0].message);
}
