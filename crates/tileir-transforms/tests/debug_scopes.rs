//! `synthesize-debug-info-scopes` on small modules: parse, run, verify, inspect locations.

use tileir_ir::location::DiScope;
use tileir_ir::{print_module, CtOp, Location, Module, PrintOptions};
use tileir_transforms::debug_scopes::synthesize;

fn parse(src: &str) -> Module {
    let opts = tileir_syntax::ParseOptions {
        file_name: "t.mlir".into(),
        ..Default::default()
    };
    tileir_syntax::parse_module(src, &opts).unwrap_or_else(|d| panic!("parse failed: {d:?}\n{src}"))
}

fn op_of(m: &Module, which: CtOp) -> tileir_ir::OpId {
    m.walk()
        .into_iter()
        .find(|&o| m.ops[o].kind.ct() == Some(which))
        .expect("op present")
}

#[test]
fn file_locations_get_a_subprogram_scope() {
    let mut m = parse(
        "cuda_tile.module @m {\n  testing$func @f(%x: tile<i32>) -> tile<i32> {\n    %a = addi %x, %x : tile<i32> loc(\"dir/k.py\":12:4)\n    return %a : tile<i32> loc(unknown)\n  } loc(\"dir/k.py\":10:1)\n} loc(\"unit.py\":1:1)\n",
    );
    assert_eq!(synthesize(&mut m), 1);
    tileir_verify::verify(&m).unwrap_or_else(|d| panic!("{d:?}"));
    let scoped = |op| match m.locs.get(m.ops[op].loc) {
        Location::DiLoc {
            loc,
            scope: DiScope::Subprogram(sp),
        } => (
            loc.file_line_col().map(|(f, l, c)| (f.to_string(), l, c)),
            sp.clone(),
        ),
        other => panic!("not scoped: {other:?}"),
    };
    let (pos, sp) = scoped(op_of(&m, CtOp::AddI));
    assert_eq!(pos, Some(("dir/k.py".to_string(), 12, 4)));
    assert_eq!(
        (
            sp.name.as_str(),
            sp.linkage_name.as_str(),
            sp.line,
            sp.scope_line
        ),
        ("f", "f", 10, Some(10))
    );
    assert_eq!(
        (sp.file.name.as_str(), sp.file.directory.as_str()),
        ("k.py", "dir")
    );
    assert_eq!(sp.compile_unit.file.name, "unit.py");
    // An op without a file location gets the function's.
    let (pos, _) = scoped(op_of(&m, CtOp::Return));
    assert_eq!(pos, Some(("dir/k.py".to_string(), 10, 1)));
    let (pos, _) = scoped(op_of(&m, CtOp::TestingFunc));
    assert_eq!(pos, Some(("dir/k.py".to_string(), 10, 1)));
    let out = print_module(
        &m,
        PrintOptions {
            debug_info: true,
            ..Default::default()
        },
    );
    assert!(out.contains("#cuda_tile.di_subprogram<file = #di_file, line = 10, name = \"f\", linkageName = \"f\""), "{out}");
}

#[test]
fn unknown_locations_use_line_one_of_an_unknown_file_and_scoped_functions_stay() {
    let mut m = parse(
        "#di_file = #cuda_tile.di_file<\"a.py\" in \"\">\n#di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>\n#di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 3, name = \"g\", linkageName = \"g\", compileUnit = #di_compile_unit>\ncuda_tile.module @m {\n  testing$func @f() {\n    return loc(unknown)\n  } loc(unknown)\n  testing$func @g() {\n    return loc(unknown)\n  } loc(#cuda_tile.di_loc<loc(\"a.py\":3:1) in #di_subprogram>)\n} loc(unknown)\n",
    );
    let ret_g_before = m
        .walk()
        .into_iter()
        .filter(|&o| m.ops[o].kind.ct() == Some(CtOp::Return))
        .nth(1)
        .unwrap();
    let loc_before = m.ops[ret_g_before].loc;
    assert_eq!(synthesize(&mut m), 1);
    assert_eq!(m.ops[ret_g_before].loc, loc_before);
    let f_ret = op_of(&m, CtOp::Return);
    match m.locs.get(m.ops[f_ret].loc) {
        Location::DiLoc { loc, scope } => {
            assert_eq!(loc.file_line_col(), Some(("<unknown>", 1, 1)));
            let sp = scope.subprogram();
            assert_eq!(
                (
                    sp.line,
                    sp.file.name.as_str(),
                    sp.compile_unit.file.name.as_str()
                ),
                (1, "<unknown>", "<unknown>")
            );
        }
        other => panic!("not scoped: {other:?}"),
    }
}
