//! Parser and printer behaviour that mirrors MLIR's: the "prior use here" note on a
//! type mismatch, the paired keyword errors of enum parsers, 13.1's `print`, and the
//! separately named (value, token) results of memory ops.

use tileir_ir::{print_module, Diagnostic, PrintOptions, Severity};
use tileir_syntax::{parse_module, ParseOptions};

fn opts() -> ParseOptions {
    ParseOptions {
        file_name: "p.mlir".into(),
        allow_unregistered: false,
        keep_names: false,
    }
}

fn errors(text: &str) -> Vec<Diagnostic> {
    match parse_module(text, &opts()) {
        Ok(_) => panic!("expected a parse error for\n{text}"),
        Err(e) => e,
    }
}

fn line_col(d: &Diagnostic) -> (u32, u32) {
    let (_, l, c) = d.loc.file_line_col().expect("located");
    (l, c)
}

fn kernel(body: &str) -> String {
    format!("cuda_tile.module @m {{\n  testing$func @k(%a: tile<i16>, %f: tile<f32>) {{\n{body}\n  }}\n}}\n")
}

#[test]
fn type_mismatch_notes_the_definition() {
    let errs = errors(&kernel("    %0 = absi %a : tile<2xi16>"));
    assert_eq!(errs.len(), 1);
    let d = &errs[0];
    assert!(d
        .message
        .starts_with("use of value '%a' expects different type than prior uses"));
    assert_eq!(line_col(d), (3, 15));
    assert_eq!(d.notes.len(), 1, "{d}");
    assert_eq!(d.notes[0].severity, Severity::Note);
    assert_eq!(d.notes[0].message, "prior use here");
    // The block argument's definition in the signature.
    assert_eq!(line_col(&d.notes[0]), (2, 19));
}

#[test]
fn note_points_at_a_result_definition_too() {
    let errs = errors(&kernel(
        "    %x = negi %a : tile<i16>\n    %y = negi %x : tile<i32>",
    ));
    let d = &errs[0];
    assert_eq!(line_col(&d.notes[0]), (3, 5));
}

#[test]
fn missing_enum_keyword_reports_both_errors() {
    // Not a keyword at all: "expected valid keyword", then the allowed values.
    let errs = errors(&kernel(
        "    %0 = cmpi %a, %a, signed : tile<i16> -> tile<i1>",
    ));
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert_eq!(
        errs[0].message,
        "custom op 'cuda_tile.cmpi' expected valid keyword"
    );
    assert!(errs[1].message.starts_with(
        "custom op 'cuda_tile.cmpi' expected 'comparison_predicate' to be one of: {'equal', 'not_equal'"
    ));
    assert_eq!(line_col(&errs[0]), line_col(&errs[1]));

    let errs = errors(&kernel("    %0 = divi %a, %a : tile<i16>"));
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].message.ends_with("expected valid keyword"));
    assert!(errs[1]
        .message
        .ends_with("expected signedness to be one of: {'signed', 'unsigned'}"));

    let errs = errors(&kernel(
        "    %0 = cmpi equal %a, %a, : tile<i16> -> tile<i1>",
    ));
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[1]
        .message
        .ends_with("expected signedness to be one of: {'signed', 'unsigned'}"));
}

#[test]
fn wrong_enum_keyword_reports_one_error() {
    let errs = errors(&kernel(
        "    %0 = cmpi bogus %a, %a, signed : tile<i16> -> tile<i1>",
    ));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0]
        .message
        .contains("expected 'comparison_predicate' to be one of"));
    let errs = errors(&kernel("    %0 = divi %a, %a sideways : tile<i16>"));
    assert_eq!(errs.len(), 1, "{errs:?}");
}

#[test]
fn print_13_1_has_no_result_and_round_trips() {
    let text = "cuda_tile.module @m {\n  entry @e() {\n    %c = constant <i32: 1> : tile<i32>\n    print \"v=%d\\0A\", %c : tile<i32>\n    cuda_tile.print \"hi\"\n    return\n  }\n}\n";
    let m = parse_module(text, &opts()).unwrap();
    let custom = print_module(&m, PrintOptions::default());
    assert!(
        custom.contains("    print \"v=%d\\0A\", %0 : tile<i32>\n"),
        "{custom}"
    );
    assert!(custom.contains("    print \"hi\"\n"), "{custom}");
    assert!(!custom.contains("print_tko"), "{custom}");
    let generic = print_module(
        &m,
        PrintOptions {
            generic: true,
            debug_info: false,
        },
    );
    assert!(
        generic.contains("\"cuda_tile.print\"(%0) <{str = "),
        "{generic}"
    );
    assert!(!generic.contains("operandSegmentSizes"), "{generic}");
    for t in [&custom, &generic] {
        let back = parse_module(t, &opts()).unwrap();
        assert_eq!(print_module(&back, PrintOptions::default()), custom);
    }
    // print_tko keeps its name and token result.
    let text = "cuda_tile.module @m {\n  entry @e() {\n    %t = print_tko \"hi\" -> token\n    return\n  }\n}\n";
    let m = parse_module(text, &opts()).unwrap();
    assert!(print_module(&m, PrintOptions::default()).contains("%0 = print_tko \"hi\" -> token"));
}

#[test]
fn memory_op_results_are_named_separately() {
    let text = "cuda_tile.module @m {\n  entry @e(%p: tile<ptr<f32>>) {\n    %v, %t = load_ptr_tko weak %p : tile<ptr<f32>> -> tile<f32>, token\n    %s:3 = get_tile_block_id : tile<i32>\n    return\n  }\n}\n";
    let m = parse_module(text, &opts()).unwrap();
    let out = print_module(&m, PrintOptions::default());
    assert!(out.contains("%0, %1 = load_ptr_tko weak %arg0"), "{out}");
    // Other multi-result ops still print as one group.
    assert!(out.contains("%2:3 = get_tile_block_id"), "{out}");
    let back = parse_module(&out, &opts()).unwrap();
    assert_eq!(print_module(&back, PrintOptions::default()), out);
}

#[test]
fn op_types_follow_the_dialect_type_parser() {
    // No type where one is due: the short-form keyword read fails.
    let errs = errors(&kernel("    %0 = negi %a :\n"));
    assert_eq!(
        errs.last().unwrap().message,
        "custom op 'cuda_tile.negi' expected valid keyword"
    );
    // A full `!cuda_tile.` type that fails reports only its own error (13.3 no longer
    // adds the short-form attempt's "expected valid keyword").
    let text = "cuda_tile.module @m {\n  testing$func @k(%a: !cuda_tile.tile<1x0xf32>) {\n  }\n}\n";
    let errs = errors(text);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].message,
        "all dimensions must be positive constants, got 1, 0"
    );
    // The short form reports only its own error.
    let errs = errors(&kernel("    %0 = negi %a : tile<0xi16>"));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].message,
        "all dimensions must be positive constants, got 0"
    );
    // Generic ops are not custom ops: plain "expected type"-style errors only.
    let errs = errors("\"cuda_tile.negi\"() : () -> !cuda_tile.tile<0xi16>\n");
    assert_eq!(errs.len(), 1, "{errs:?}");
}

#[test]
fn short_operand_and_type_lists_want_a_comma() {
    let errs = errors(&kernel("    %0 = select %a, %a : tile<i1>, tile<i16>"));
    assert_eq!(errs[0].message, "expected ','");
    let errs = errors(&kernel(
        "    %c = constant <i1: true> : tile<i1>\n    %0 = select %c, %a, %a : tile<i1>",
    ));
    assert_eq!(errs[0].message, "expected ','");
}

#[test]
fn missing_token_at_line_end_is_reported_on_that_line() {
    // The next token is on a later line: MLIR reports at the end of the previous token.
    let errs = errors(&kernel(
        "    %c = constant <i1: true> : tile<i1>\n    %0 = select %c, %a, %a : tile<i1> // no result type\n",
    ));
    assert_eq!(errs[0].message, "expected ','");
    assert_eq!(line_col(&errs[0]), (4, 38));
    // On the same line it stays at the offending token.
    let errs = errors(&kernel("    %0 = negi %a : tile<i16> )"));
    assert!(errs.iter().all(|d| line_col(d).0 == 3), "{errs:?}");
}
