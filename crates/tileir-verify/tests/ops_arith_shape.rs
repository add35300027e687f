//! Op rules of the arithmetic, conversion, shape, mma and reduction groups, and the
//! ODS-style checks that precede them: one valid and at least one invalid module per op,
//! each a `testing$func` (which accepts any argument types) holding the op under test.

use tileir_ir::parse_type::parse_type;
use tileir_ir::*;
use tileir_verify::verify;

/// A `cuda_tile.module` holding one `testing$func` whose arguments have the given types.
struct Func {
    m: Module,
    body: BlockId,
    loc: LocId,
    args: Vec<ValueId>,
}

impl Func {
    fn new(arg_types: &[&str]) -> Func {
        Func::with_types(|types| {
            arg_types
                .iter()
                .map(|t| parse_type(t, types).unwrap_or_else(|e| panic!("{t}: {e}")))
                .collect()
        })
    }

    /// Like [`Func::new`], for argument types the type parser cannot spell.
    fn with_types(make: impl FnOnce(&mut TypeTable) -> Vec<TypeId>) -> Func {
        let mut m = Module::new();
        let loc = m.locs.file_line_col("ops.mlir", 3, 5);
        let inputs = make(&mut m.types);
        let fty = m.types.intern(Type::Function {
            inputs: inputs.clone(),
            results: vec![],
        });
        let module = CudaTileOp::new(CtOp::Module).with("sym_name", Attr::Str("kernels".into()));
        let module_op = m.create_op(OpKind::CudaTile(module), vec![], &[], loc);
        let top = m.body;
        m.append_op(top, module_op);
        let module_block = m.add_block(m.ops[module_op].regions[0], &[]);
        let func = CudaTileOp::new(CtOp::TestingFunc)
            .with("sym_name", Attr::Str("f".into()))
            .with("function_type", Attr::Type(fty));
        let func_op = m.create_op(OpKind::CudaTile(func), vec![], &[], loc);
        m.append_op(module_block, func_op);
        let body = m.add_block(m.ops[func_op].regions[0], &inputs);
        let args = m.blocks[body].args.clone();
        Func { m, body, loc, args }
    }

    fn ty(&mut self, text: &str) -> TypeId {
        parse_type(text, &mut self.m.types).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// Appends `kind` with `operands` and results of the given types; returns the op.
    fn op(&mut self, kind: CudaTileOp, operands: &[ValueId], results: &[&str]) -> OpId {
        let types: Vec<TypeId> = results.iter().map(|t| self.ty(t)).collect();
        let op = self
            .m
            .create_op(OpKind::CudaTile(kind), operands.to_vec(), &types, self.loc);
        self.m.append_op(self.body, op);
        op
    }

    /// A rank-0 integer constant.
    fn int_constant(&mut self, elem: NumType, value: i64) -> ValueId {
        let dense = DenseElements {
            elem,
            shape: vec![],
            bits: vec![value as u64 & mask(elem)],
        };
        let ty = format!("tile<{elem}>");
        let op = self.op(
            CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(dense)),
            &[],
            &[&ty],
        );
        self.m.result(op, 0)
    }

    /// Closes the function and verifies; every diagnostic as text.
    fn diags(mut self) -> Vec<Diagnostic> {
        let ret = self.m.create_op(
            OpKind::CudaTile(CudaTileOp::new(CtOp::Return)),
            vec![],
            &[],
            self.loc,
        );
        self.m.append_op(self.body, ret);
        match verify(&self.m) {
            Ok(()) => Vec::new(),
            Err(d) => d.0,
        }
    }
}

fn mask(elem: NumType) -> u64 {
    match elem.bit_width() {
        64 => u64::MAX,
        w => (1u64 << w) - 1,
    }
}

fn errors(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

/// A function with arguments `args` and one `kind` op over `operands` (argument indices).
fn one_op(
    args: &[&str],
    kind: CudaTileOp,
    operands: &[usize],
    results: &[&str],
) -> Vec<Diagnostic> {
    let mut f = Func::new(args);
    let values: Vec<ValueId> = operands.iter().map(|&i| f.args[i]).collect();
    f.op(kind, &values, results);
    f.diags()
}

#[track_caller]
fn assert_valid(diags: Vec<Diagnostic>) {
    assert_eq!(errors(&diags), Vec::<String>::new());
}

/// Exactly one error, from the op under test, containing `needle`.
#[track_caller]
fn assert_error(diags: Vec<Diagnostic>, needle: &str) {
    let errs = errors(&diags);
    assert_eq!(
        errs.len(),
        1,
        "expected one error containing {needle:?}, got {errs:#?}"
    );
    assert!(
        errs[0].contains(needle),
        "expected {needle:?} in {:?}",
        errs[0]
    );
    assert!(
        errs[0].starts_with("ops.mlir:3:5: error: 'cuda_tile."),
        "{}",
        errs[0]
    );
}

fn op(o: CtOp) -> CudaTileOp {
    CudaTileOp::new(o)
}
fn signed(o: CtOp) -> CudaTileOp {
    op(o).with("signedness", Attr::Enum(Signedness::MNEMONIC, "signed"))
}
fn unsigned(o: CtOp) -> CudaTileOp {
    op(o).with("signedness", Attr::Enum(Signedness::MNEMONIC, "unsigned"))
}
fn rounding(k: CudaTileOp, name: &str, mode: RoundingMode) -> CudaTileOp {
    k.with(name, Attr::Enum(RoundingMode::MNEMONIC, mode.keyword()))
}
fn ftz(k: CudaTileOp) -> CudaTileOp {
    k.with("flush_to_zero", Attr::Unit)
}
fn cmp(o: CtOp, pred: ComparisonPredicate) -> CudaTileOp {
    let k = op(o).with(
        "comparison_predicate",
        Attr::Enum(ComparisonPredicate::MNEMONIC, pred.keyword()),
    );
    if o == CtOp::CmpI {
        k.with("signedness", Attr::Enum(Signedness::MNEMONIC, "signed"))
    } else {
        k.with(
            "comparison_ordering",
            Attr::Enum(ComparisonOrdering::MNEMONIC, "ordered"),
        )
    }
}

const INT_MSG: &str = "must be tile of i1 or i8 or i16 or i32 or i64 values, but got";
const FLOAT_MSG: &str = "must be tile of f16 or bf16 or f32 or f64 values, but got";

// ---------------------------------------------------------------- integer (§3.1)

/// The integer ops, built with the attributes each requires.
fn int_ops() -> Vec<(CudaTileOp, usize)> {
    let mut v: Vec<(CudaTileOp, usize)> = [
        CtOp::AddI,
        CtOp::SubI,
        CtOp::MulI,
        CtOp::MulHiI,
        CtOp::AndI,
        CtOp::OrI,
        CtOp::XOrI,
        CtOp::ShlI,
    ]
    .into_iter()
    .map(|o| (op(o), 2))
    .collect();
    v.extend(
        [CtOp::DivI, CtOp::RemI, CtOp::MaxI, CtOp::MinI, CtOp::ShrI]
            .into_iter()
            .map(|o| (signed(o), 2)),
    );
    v.push((op(CtOp::AbsI), 1));
    v.push((op(CtOp::NegI), 1));
    v
}

#[test]
fn integer_ops_accept_integer_tiles() {
    for (k, arity) in int_ops() {
        let name = k.mnemonic();
        let diags = one_op(
            &["tile<4xi32>", "tile<4xi32>"],
            k,
            &[0, 1][..arity],
            &["tile<4xi32>"],
        );
        assert_eq!(errors(&diags), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn integer_ops_reject_float_tiles_with_ods_wording() {
    for (k, arity) in int_ops() {
        let name = k.mnemonic();
        let diags = one_op(
            &["tile<4xf32>", "tile<4xf32>"],
            k,
            &[0, 1][..arity],
            &["tile<4xf32>"],
        );
        let errs = errors(&diags);
        assert_eq!(errs.len(), 1, "{name}: {errs:#?}");
        let want = format!("'cuda_tile.{name}' op operand #0 {INT_MSG} '!cuda_tile.tile<4xf32>'");
        assert!(errs[0].contains(&want), "{name}: {}", errs[0]);
    }
}

#[test]
fn integer_ops_require_one_type_for_all_values() {
    assert_error(
        one_op(
            &["tile<4xi32>", "tile<4xi16>"],
            op(CtOp::AddI),
            &[0, 1],
            &["tile<4xi32>"],
        ),
        "failed to verify that all of {lhs, rhs, result} have same type",
    );
    assert_error(
        one_op(
            &["tile<4xi32>", "tile<4xi32>"],
            op(CtOp::MulHiI),
            &[0, 1],
            &["tile<8xi32>"],
        ),
        "failed to verify that all of {x, y, result} have same type",
    );
}

#[test]
fn integer_ops_check_counts_and_required_attributes() {
    assert_error(
        one_op(&["tile<4xi32>"], op(CtOp::AddI), &[0], &["tile<4xi32>"]),
        "expected 2 operands, but found 1",
    );
    assert_error(
        one_op(
            &["tile<4xi32>", "tile<4xi32>"],
            op(CtOp::AddI),
            &[0, 1],
            &[],
        ),
        "requires one result",
    );
    assert_error(
        one_op(
            &["tile<4xi32>", "tile<4xi32>"],
            op(CtOp::MaxI),
            &[0, 1],
            &["tile<4xi32>"],
        ),
        "requires attribute 'signedness'",
    );
    let bad_attr = op(CtOp::ShrI).with("signedness", Attr::Int(3));
    assert_error(
        one_op(
            &["tile<4xi32>", "tile<4xi32>"],
            bad_attr,
            &[0, 1],
            &["tile<4xi32>"],
        ),
        "attribute 'signedness' failed to satisfy constraint",
    );
}

#[test]
fn negi_rejects_no_unsigned_wrap() {
    let flag = |kw: &'static str| {
        op(CtOp::NegI).with("overflow", Attr::Enum(IntegerOverflow::MNEMONIC, kw))
    };
    assert_valid(one_op(
        &["tile<i16>"],
        flag("no_signed_wrap"),
        &[0],
        &["tile<i16>"],
    ));
    assert_error(
        one_op(
            &["tile<i16>"],
            flag("no_unsigned_wrap"),
            &[0],
            &["tile<i16>"],
        ),
        "'no_unsigned_wrap' overflow flag is not supported",
    );
}

#[test]
fn divi_rounding_modes() {
    let args = ["tile<i32>", "tile<i32>"];
    assert_valid(one_op(
        &args,
        rounding(signed(CtOp::DivI), "rounding", RoundingMode::NegativeInf),
        &[0, 1],
        &["tile<i32>"],
    ));
    assert_valid(one_op(
        &args,
        rounding(unsigned(CtOp::DivI), "rounding", RoundingMode::PositiveInf),
        &[0, 1],
        &["tile<i32>"],
    ));
    assert_error(
        one_op(
            &args,
            rounding(unsigned(CtOp::DivI), "rounding", RoundingMode::NegativeInf),
            &[0, 1],
            &["tile<i32>"],
        ),
        "rounding mode 'negative_inf' is not allowed with 'unsigned' flag",
    );
    assert_error(
        one_op(
            &args,
            rounding(signed(CtOp::DivI), "rounding", RoundingMode::NearestEven),
            &[0, 1],
            &["tile<i32>"],
        ),
        "invalid rounding mode specified, expect one of [zero, negative_inf, positive_inf]",
    );
}

#[test]
fn cmpi_result_is_an_i1_tile_of_the_operand_shape() {
    let args = ["tile<2x2xi32>", "tile<2x2xi32>", "tile<2x2xi16>"];
    assert_valid(one_op(
        &args,
        cmp(CtOp::CmpI, ComparisonPredicate::LessThan),
        &[0, 1],
        &["tile<2x2xi1>"],
    ));
    assert_error(
        one_op(
            &args,
            cmp(CtOp::CmpI, ComparisonPredicate::Equal),
            &[0, 1],
            &["tile<i1>"],
        ),
        "failed to verify that Result type has i1 element type and same shape as operands",
    );
    assert_error(
        one_op(
            &args,
            cmp(CtOp::CmpI, ComparisonPredicate::Equal),
            &[0, 2],
            &["tile<2x2xi1>"],
        ),
        "failed to verify that all of {lhs, rhs} have same type",
    );
    assert_error(
        one_op(
            &args,
            cmp(CtOp::CmpI, ComparisonPredicate::Equal),
            &[0, 1],
            &["tile<2x2xi16>"],
        ),
        "result #0 must be tile of i1 values, but got '!cuda_tile.tile<2x2xi16>'",
    );
}

// ---------------------------------------------------------------- float and math (§3.2, §3.3)

fn float_ops() -> Vec<(CudaTileOp, usize)> {
    let binary = [
        CtOp::AddF,
        CtOp::SubF,
        CtOp::MulF,
        CtOp::DivF,
        CtOp::RemF,
        CtOp::MaxF,
        CtOp::MinF,
        CtOp::Pow,
        CtOp::Atan2,
    ];
    let unary = [
        CtOp::AbsF,
        CtOp::NegF,
        CtOp::Ceil,
        CtOp::Floor,
        CtOp::Cos,
        CtOp::CosH,
        CtOp::Sin,
        CtOp::SinH,
        CtOp::Tan,
        CtOp::TanH,
        CtOp::Exp,
        CtOp::Exp2,
        CtOp::Log,
        CtOp::Log2,
        CtOp::Sqrt,
        CtOp::Rsqrt,
    ];
    let mut v: Vec<(CudaTileOp, usize)> = binary.into_iter().map(|o| (op(o), 2)).collect();
    v.extend(unary.into_iter().map(|o| (op(o), 1)));
    v.push((op(CtOp::Fma), 3));
    v
}

#[test]
fn float_ops_accept_base_float_tiles() {
    for elem in ["f16", "bf16", "f32", "f64"] {
        let t = format!("tile<2x4x{elem}>");
        for (k, arity) in float_ops() {
            let name = k.mnemonic();
            let diags = one_op(&[&t, &t, &t], k, &[0, 1, 2][..arity], &[&t]);
            assert_eq!(errors(&diags), Vec::<String>::new(), "{name} on {t}");
        }
    }
}

#[test]
fn float_ops_reject_other_element_types() {
    for bad in ["tile<4xi32>", "tile<4xf8E5M2>", "tile<4xtf32>"] {
        for (k, arity) in float_ops() {
            let name = k.mnemonic();
            let diags = one_op(&[bad, bad, bad], k, &[0, 1, 2][..arity], &[bad]);
            let errs = errors(&diags);
            assert_eq!(errs.len(), 1, "{name}: {errs:#?}");
            let want = format!("'cuda_tile.{name}' op operand #0 {FLOAT_MSG} '!cuda_tile.{bad}'");
            assert!(errs[0].contains(&want), "{name}: {}", errs[0]);
        }
    }
}

#[test]
fn ieee_ops_accept_only_ieee_rounding() {
    for o in [CtOp::AddF, CtOp::SubF, CtOp::MulF, CtOp::Fma] {
        let n = if o == CtOp::Fma { 3 } else { 2 };
        let t = "tile<4xf32>";
        assert_valid(one_op(
            &[t, t, t],
            rounding(op(o), "rounding_mode", RoundingMode::Zero),
            &[0, 1, 2][..n],
            &[t],
        ));
        for bad in [
            RoundingMode::Approx,
            RoundingMode::Full,
            RoundingMode::NearestIntToZero,
        ] {
            assert_error(
                one_op(&[t, t, t], rounding(op(o), "rounding_mode", bad), &[0, 1, 2][..n], &[t]),
                "invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf]",
            );
        }
    }
}

#[test]
fn flush_to_zero_is_f32_only() {
    let f32t = "tile<4xf32>";
    for o in [
        CtOp::AddF,
        CtOp::SubF,
        CtOp::MulF,
        CtOp::DivF,
        CtOp::MaxF,
        CtOp::MinF,
        CtOp::Exp2,
        CtOp::Rsqrt,
        CtOp::Sqrt,
        CtOp::Fma,
    ] {
        let n = match o {
            CtOp::Fma => 3,
            CtOp::Exp2 | CtOp::Rsqrt | CtOp::Sqrt => 1,
            _ => 2,
        };
        assert_valid(one_op(
            &[f32t, f32t, f32t],
            ftz(op(o)),
            &[0, 1, 2][..n],
            &[f32t],
        ));
        for (elem, t) in [
            ("f16", "tile<4xf16>"),
            ("bf16", "tile<4xbf16>"),
            ("f64", "tile<4xf64>"),
        ] {
            assert_error(
                one_op(&[t, t, t], ftz(op(o)), &[0, 1, 2][..n], &[t]),
                &format!(
                    "flush_to_zero modifier only supported for f32 data type, but got: '{elem}'"
                ),
            );
        }
    }
}

#[test]
fn divf_approx_and_full_are_f32_only() {
    let (f32t, f16t) = ("tile<4xf32>", "tile<4xf16>");
    for mode in [RoundingMode::Approx, RoundingMode::Full] {
        assert_valid(one_op(
            &[f32t, f32t],
            rounding(op(CtOp::DivF), "rounding_mode", mode),
            &[0, 1],
            &[f32t],
        ));
        assert_error(
            one_op(
                &[f16t, f16t],
                rounding(op(CtOp::DivF), "rounding_mode", mode),
                &[0, 1],
                &[f16t],
            ),
            &format!(
                "{} modifier only supported for f32 data type, but got: 'f16'",
                mode.keyword()
            ),
        );
    }
    assert_error(
        one_op(
            &[f32t, f32t],
            rounding(
                op(CtOp::DivF),
                "rounding_mode",
                RoundingMode::NearestIntToZero,
            ),
            &[0, 1],
            &[f32t],
        ),
        "expect one of [nearest_even, zero, negative_inf, positive_inf, approx, full]",
    );
    // flush_to_zero is reported before approx, as NVIDIA's verifier does.
    assert_error(
        one_op(
            &[f16t, f16t],
            ftz(rounding(
                op(CtOp::DivF),
                "rounding_mode",
                RoundingMode::Approx,
            )),
            &[0, 1],
            &[f16t],
        ),
        "flush_to_zero modifier only supported for f32 data type, but got: 'f16'",
    );
}

#[test]
fn sqrt_allows_approx_on_f32_but_never_full() {
    let (f32t, f16t) = ("tile<4xf32>", "tile<4xf16>");
    assert_valid(one_op(
        &[f32t],
        rounding(op(CtOp::Sqrt), "rounding_mode", RoundingMode::Approx),
        &[0],
        &[f32t],
    ));
    assert_valid(one_op(
        &[f16t],
        rounding(op(CtOp::Sqrt), "rounding_mode", RoundingMode::Zero),
        &[0],
        &[f16t],
    ));
    assert_error(
        one_op(&[f32t], rounding(op(CtOp::Sqrt), "rounding_mode", RoundingMode::Full), &[0], &[f32t]),
        "invalid rounding mode specified, expect one of [nearest_even, zero, negative_inf, positive_inf, approx]",
    );
    assert_error(
        one_op(
            &[f16t],
            rounding(op(CtOp::Sqrt), "rounding_mode", RoundingMode::Approx),
            &[0],
            &[f16t],
        ),
        "approx modifier only supported for f32 data type, but got: 'f16'",
    );
}

#[test]
fn tanh_and_exp_take_approx_or_full() {
    let (f32t, f16t) = ("tile<4xf32>", "tile<4xf16>");
    for o in [CtOp::TanH, CtOp::Exp] {
        assert_valid(one_op(
            &[f32t],
            rounding(op(o), "rounding_mode", RoundingMode::Approx),
            &[0],
            &[f32t],
        ));
        assert_valid(one_op(
            &[f16t],
            rounding(op(o), "rounding_mode", RoundingMode::Full),
            &[0],
            &[f16t],
        ));
        assert_error(
            one_op(
                &[f16t],
                rounding(op(o), "rounding_mode", RoundingMode::Approx),
                &[0],
                &[f16t],
            ),
            "approx modifier only supported for f32 data type, but got: 'f16'",
        );
        assert_error(
            one_op(
                &[f32t],
                rounding(op(o), "rounding_mode", RoundingMode::NearestEven),
                &[0],
                &[f32t],
            ),
            "invalid rounding mode specified, expect one of [approx, full]",
        );
    }
}

#[test]
fn cmpf_compares_base_floats_into_i1() {
    let args = ["tile<2xf32>", "tile<2xf32>", "tile<2xi32>"];
    assert_valid(one_op(
        &args,
        cmp(CtOp::CmpF, ComparisonPredicate::GreaterThan),
        &[0, 1],
        &["tile<2xi1>"],
    ));
    assert_error(
        one_op(
            &args,
            cmp(CtOp::CmpF, ComparisonPredicate::GreaterThan),
            &[0, 1],
            &["tile<2x1xi1>"],
        ),
        "failed to verify that Result type has i1 element type and same shape as operands",
    );
    assert_error(
        one_op(
            &args,
            cmp(CtOp::CmpF, ComparisonPredicate::GreaterThan),
            &[2, 2],
            &["tile<2xi1>"],
        ),
        &format!("operand #0 {FLOAT_MSG} '!cuda_tile.tile<2xi32>'"),
    );
}

// ---------------------------------------------------------------- conversions (§3.4)

#[test]
fn bitcast_needs_equal_widths_and_shapes() {
    assert_valid(one_op(
        &["tile<4xi32>"],
        op(CtOp::Bitcast),
        &[0],
        &["tile<4xf32>"],
    ));
    assert_error(
        one_op(&["tile<i32>"], op(CtOp::Bitcast), &[0], &["tile<i16>"]),
        "types must be equal width, cannot convert '!cuda_tile.tile<i32>' of width 32 to type '!cuda_tile.tile<i16>' of width 16",
    );
    assert_error(
        one_op(&["tile<4xi16>"], op(CtOp::Bitcast), &[0], &["tile<2xi32>"]),
        "failed to verify that all of {source, result} have same shape",
    );
    assert_error(
        one_op(
            &["tile<4xptr<f32>>"],
            op(CtOp::Bitcast),
            &[0],
            &["tile<4xi64>"],
        ),
        "operand #0 must be tile of i1",
    );
}

#[test]
fn exti_widens_and_trunci_narrows_strictly() {
    assert_valid(one_op(
        &["tile<2xi4>"],
        signed(CtOp::ExtI),
        &[0],
        &["tile<2xi8>"],
    ));
    assert_valid(one_op(
        &["tile<2xi16>"],
        op(CtOp::TruncI),
        &[0],
        &["tile<2xi8>"],
    ));
    assert_valid(one_op(
        &["tile<2xi8>"],
        op(CtOp::TruncI),
        &[0],
        &["tile<2xi4>"],
    ));
    assert_error(
        one_op(&["tile<i8>"], signed(CtOp::ExtI), &[0], &["tile<i8>"]),
        "extending to smaller or identical integer",
    );
    assert_error(
        one_op(&["tile<2xi16>"], signed(CtOp::ExtI), &[0], &["tile<2xi8>"]),
        "extending to smaller or identical integer",
    );
    assert_error(
        one_op(&["tile<2xi8>"], op(CtOp::TruncI), &[0], &["tile<2xi16>"]),
        "truncating to larger or identical integer",
    );
    assert_error(
        one_op(&["tile<2xi8>"], signed(CtOp::ExtI), &[0], &["tile<i16>"]),
        "failed to verify that all of {from, to} have same shape",
    );
    assert_error(
        one_op(&["tile<2xi8>"], op(CtOp::ExtI), &[0], &["tile<2xi16>"]),
        "requires attribute 'signedness'",
    );
}

#[test]
fn ftof_rounding_depends_on_the_target() {
    assert_valid(one_op(
        &["tile<2xf16>"],
        op(CtOp::FToF),
        &[0],
        &["tile<2xf32>"],
    ));
    assert_valid(one_op(
        &["tile<2xf32>"],
        rounding(op(CtOp::FToF), "rounding_mode", RoundingMode::PositiveInf),
        &[0],
        &["tile<2xf8E8M0FNU>"],
    ));
    assert_valid(one_op(
        &["tile<2xf4E2M1FN>"],
        op(CtOp::FToF),
        &[0],
        &["tile<2xf8E4M3FN>"],
    ));
    assert_error(
        one_op(&["tile<2xf16>"], op(CtOp::FToF), &[0], &["tile<2xf16>"]),
        "converting tiles must not be a no-op",
    );
    assert_error(
        one_op(
            &["tile<2x2xf32>"],
            rounding(op(CtOp::FToF), "rounding_mode", RoundingMode::NegativeInf),
            &[0],
            &["tile<2x2xf64>"],
        ),
        "invalid rounding mode specified. Only 'nearest_even' is supported",
    );
    assert_error(
        one_op(&["tile<2x2xf32>"], op(CtOp::FToF), &[0], &["tile<2x2xf8E8M0FNU>"]),
        "invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and 'positive_inf' are supported",
    );
    assert_error(
        one_op(&["tile<2xf16>"], op(CtOp::FToF), &[0], &["tile<2xi32>"]),
        "result #0 must be tile of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got '!cuda_tile.tile<2xi32>'",
    );
}

#[test]
fn ftoi_and_itof_rounding() {
    assert_valid(one_op(
        &["tile<2xf8E4M3FN>"],
        signed(CtOp::FToI),
        &[0],
        &["tile<2xi16>"],
    ));
    assert_valid(one_op(
        &["tile<i1>"],
        unsigned(CtOp::IToF),
        &[0],
        &["tile<f16>"],
    ));
    assert_error(
        one_op(
            &["tile<2xf32>"],
            rounding(
                signed(CtOp::FToI),
                "rounding_mode",
                RoundingMode::NearestEven,
            ),
            &[0],
            &["tile<2xi64>"],
        ),
        "invalid rounding mode specified. Only 'nearest_int_to_zero' is supported",
    );
    assert_error(
        one_op(
            &["tile<2xi32>"],
            rounding(
                unsigned(CtOp::IToF),
                "rounding_mode",
                RoundingMode::NegativeInf,
            ),
            &[0],
            &["tile<2xf32>"],
        ),
        "invalid rounding mode specified. Only 'nearest_even' is supported",
    );
    assert_error(
        one_op(
            &["tile<2xi32>"],
            signed(CtOp::IToF),
            &[0],
            &["tile<2xf8E8M0FNU>"],
        ),
        "integer to f8E8M0FNU conversion is not supported, please first convert to another float type",
    );
    assert_error(
        one_op(&["tile<2xf16>"], signed(CtOp::IToF), &[0], &["tile<2xf32>"]),
        "operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<2xf16>'",
    );
    assert_error(
        one_op(&["tile<2xf16>"], signed(CtOp::FToI), &[0], &["tile<i32>"]),
        "failed to verify that all of {from, to} have same shape",
    );
}

#[test]
fn pointer_conversions_use_i64() {
    assert_valid(one_op(
        &["tile<4xi64>"],
        op(CtOp::IntToPtr),
        &[0],
        &["tile<4xptr<i8>>"],
    ));
    assert_valid(one_op(
        &["tile<ptr<i8>>"],
        op(CtOp::PtrToInt),
        &[0],
        &["tile<i64>"],
    ));
    assert_valid(one_op(
        &["tile<4xptr<i8>>"],
        op(CtOp::PtrToPtr),
        &[0],
        &["tile<4xptr<f64>>"],
    ));
    assert_error(
        one_op(&["tile<i32>"], op(CtOp::IntToPtr), &[0], &["tile<ptr<i8>>"]),
        "operand #0 must be tile of i64 values, but got '!cuda_tile.tile<i32>'",
    );
    assert_error(
        one_op(&["tile<ptr<i8>>"], op(CtOp::PtrToInt), &[0], &["tile<i32>"]),
        "result #0 must be tile of i64 values, but got '!cuda_tile.tile<i32>'",
    );
    assert_error(
        one_op(
            &["tile<4xptr<i8>>"],
            op(CtOp::PtrToPtr),
            &[0],
            &["tile<2xptr<i8>>"],
        ),
        "failed to verify that all of {source, result} have same shape",
    );
}

// ---------------------------------------------------------------- construction and shapes (§3.5)

fn dense(elem: NumType, shape: &[i64], bits: &[u64]) -> Attr {
    Attr::Dense(DenseElements {
        elem,
        shape: shape.to_vec(),
        bits: bits.to_vec(),
    })
}

#[test]
fn constant_value_matches_the_result_type() {
    let k = |a: Attr| op(CtOp::Constant).with("value", a);
    assert_valid(one_op(
        &[],
        k(dense(NumType::I32, &[4], &[1, 2, 3, 4])),
        &[],
        &["tile<4xi32>"],
    ));
    assert_valid(one_op(
        &[],
        k(dense(NumType::F32, &[2, 4], &[0])),
        &[],
        &["tile<2x4xf32>"],
    ));
    assert_error(
        one_op(
            &[],
            k(dense(NumType::I16, &[4], &[0])),
            &[],
            &["tile<4xi32>"],
        ),
        "expected the value's element type 'i16' to match the result element type 'i32'",
    );
    assert_error(
        one_op(
            &[],
            k(dense(NumType::I32, &[2], &[0])),
            &[],
            &["tile<4xi32>"],
        ),
        "expected the value's shape [2] to match the result type '!cuda_tile.tile<4xi32>'",
    );
    assert_error(
        one_op(
            &[],
            k(dense(NumType::I32, &[4], &[1, 2])),
            &[],
            &["tile<4xi32>"],
        ),
        "value holds 2 elements",
    );
    assert_error(
        one_op(&[], op(CtOp::Constant), &[], &["tile<4xi32>"]),
        "requires attribute 'value'",
    );
    assert_error(
        one_op(
            &[],
            k(dense(NumType::I32, &[], &[0])),
            &[],
            &["tile<ptr<i32>>"],
        ),
        "result #0 must be tile of i1 or i8",
    );
}

#[test]
fn iota_is_rank_one_and_fits_its_element_type() {
    assert_valid(one_op(&[], op(CtOp::Iota), &[], &["tile<256xi8>"]));
    assert_error(
        one_op(&[], op(CtOp::Iota), &[], &["tile<i64>"]),
        "expects result type to be 1-d tile",
    );
    assert_error(
        one_op(&[], op(CtOp::Iota), &[], &["tile<32x64xi32>"]),
        "expects result type to be 1-d tile",
    );
    assert_error(
        one_op(&[], op(CtOp::Iota), &[], &["tile<512xi8>"]),
        "the number of elements 512 exceeds the maximum value of element type 'i8'",
    );
}

#[test]
fn broadcast_reshape_and_permute() {
    assert_valid(one_op(
        &["tile<1x2xf32>"],
        op(CtOp::Broadcast),
        &[0],
        &["tile<4x2xf32>"],
    ));
    assert_error(
        one_op(&["tile<4x4xf32>"], op(CtOp::Broadcast), &[0], &["tile<2x4xf32>"]),
        "expects the shape of source tile to be compatible with that of the result tile, but got: 4, 4 and 2, 4",
    );
    assert_error(
        one_op(
            &["tile<2xf32>"],
            op(CtOp::Broadcast),
            &[0],
            &["tile<2x2xf32>"],
        ),
        "failed to verify that all of {source, result} have same rank",
    );
    assert_error(
        one_op(
            &["tile<2x2xf32>"],
            op(CtOp::Broadcast),
            &[0],
            &["tile<2x2xf64>"],
        ),
        "requires the same element type for all operands and results",
    );

    assert_valid(one_op(
        &["tile<i8>"],
        op(CtOp::Reshape),
        &[0],
        &["tile<1x1xi8>"],
    ));
    assert_valid(one_op(
        &["tile<4xi4>"],
        op(CtOp::Reshape),
        &[0],
        &["tile<2x2xi4>"],
    ));
    assert_error(
        one_op(
            &["tile<2x2xf32>"],
            op(CtOp::Reshape),
            &[0],
            &["tile<8xf32>"],
        ),
        "expected source tile and result tile to have the same number of elements",
    );
    assert_error(
        one_op(&["tile<i16>"], op(CtOp::Reshape), &[0], &["tile<1xi32>"]),
        "requires the same element type for all operands and results",
    );

    let perm = |p: &[i64]| op(CtOp::Permute).with("permutation", Attr::IntArray(p.to_vec()));
    assert_valid(one_op(
        &["tile<2x4xf32>"],
        perm(&[1, 0]),
        &[0],
        &["tile<4x2xf32>"],
    ));
    assert_error(
        one_op(&["tile<4xf32>"], perm(&[0]), &[0], &["tile<4xf32>"]),
        "expects at least rank 2, but got: 1",
    );
    assert_error(
        one_op(&["tile<2x4xf32>"], perm(&[0]), &[0], &["tile<2x4xf32>"]),
        "expect permutation size (1) to equal the rank of the source (2)",
    );
    assert_error(
        one_op(&["tile<2x4xf32>"], perm(&[1, 1]), &[0], &["tile<4x2xf32>"]),
        "expect permutation elements to be unique",
    );
    assert_error(
        one_op(&["tile<2x4xf32>"], perm(&[0, 2]), &[0], &["tile<4x2xf32>"]),
        "permutation element at index 1 (2) is out of bound [0, 2)",
    );
    assert_error(
        one_op(&["tile<2x4xf32>"], perm(&[1, 0]), &[0], &["tile<2x4xf32>"]),
        "result shape invalid at index 0, expected: 4, but got: 2",
    );
    assert_error(
        one_op(
            &["tile<2x4xf32>"],
            op(CtOp::Permute),
            &[0],
            &["tile<4x2xf32>"],
        ),
        "requires attribute 'permutation'",
    );
}

#[test]
fn cat_joins_along_one_dimension() {
    let cat = |d: i64| op(CtOp::Cat).with("dim", Attr::Int(d));
    let args = ["tile<2x2xf32>", "tile<2x2xf64>"];
    assert_valid(one_op(&args, cat(1), &[0, 0], &["tile<2x4xf32>"]));
    assert_error(
        one_op(&args, cat(2), &[0, 0], &["tile<2x4xf32>"]),
        "expect dim to be [0, 2), but got: 2",
    );
    assert_error(
        one_op(&args, cat(-1), &[0, 0], &["tile<2x4xf32>"]),
        "expect dim to be [0, 2), but got: -1",
    );
    assert_error(
        one_op(&args, cat(1), &[0, 0], &["tile<2x16xf32>"]),
        "invalid concat at position 1, expected: 4 but got: 16",
    );
    assert_error(
        one_op(&args, cat(1), &[0, 0], &["tile<4x4xf32>"]),
        "expect lhs and result shapes to match at non-concat position 0, expected: 2 but got: 4",
    );
    assert_error(
        one_op(&args, cat(1), &[0, 1], &["tile<2x4xf32>"]),
        "failed to verify that all of {lhs, rhs, result} have the same element type",
    );
    assert_error(
        one_op(&args, cat(1), &[0, 0], &["tile<2x4x1xf32>"]),
        "failed to verify that all of {lhs, rhs, result} have same rank",
    );
}

#[test]
fn extract_slices_evenly() {
    let args = ["tile<8x4xf32>", "tile<i32>", "tile<i64>"];
    assert_valid(one_op(
        &args,
        op(CtOp::Extract),
        &[0, 1, 1],
        &["tile<4x2xf32>"],
    ));
    assert_error(
        one_op(&args, op(CtOp::Extract), &[0, 1], &["tile<4x2xf32>"]),
        "expected 2 indices, but got 1",
    );
    assert_error(
        one_op(&args, op(CtOp::Extract), &[0, 1, 1], &["tile<4x8xf32>"]),
        "source dimension 1 size (4) must be evenly divisible by result dimension 1 size (8)",
    );
    assert_error(
        one_op(&args, op(CtOp::Extract), &[0, 1, 1], &["tile<4x2xi32>"]),
        "source and result element type do not match",
    );
    assert_error(
        one_op(&args, op(CtOp::Extract), &[0, 1, 1], &["tile<4x2x1xf32>"]),
        "failed to verify that all of {source, result} have same rank",
    );
    assert_error(
        one_op(&args, op(CtOp::Extract), &[0, 1, 2], &["tile<4x2xf32>"]),
        "operand #2 must be variadic of 0D tile of i32 values, but got '!cuda_tile.tile<i64>'",
    );
}

#[test]
fn extract_with_a_constant_index_out_of_range_only_warns() {
    let mut f = Func::new(&["tile<8xf32>"]);
    let good = f.int_constant(NumType::I32, 3);
    let bad = f.int_constant(NumType::I32, 4);
    let negative = f.int_constant(NumType::I32, -1);
    let src = f.args[0];
    f.op(op(CtOp::Extract), &[src, good], &["tile<2xf32>"]);
    f.op(op(CtOp::Extract), &[src, bad], &["tile<2xf32>"]);
    f.op(op(CtOp::Extract), &[src, negative], &["tile<2xf32>"]);
    let diags = f.diags();
    assert_eq!(errors(&diags), Vec::<String>::new());
    // Whether `verify` hands warnings back on success is the driver's business; when it
    // does (or fails for another reason) they must be warnings, one per bad index.
    let warnings: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    if !warnings.is_empty() {
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(
            warnings[0].message.contains("slice 4"),
            "{}",
            warnings[0].message
        );
        assert!(
            warnings[1].message.contains("slice -1"),
            "{}",
            warnings[1].message
        );
    }
}

#[test]
fn extract_warnings_are_warnings_not_errors() {
    // An unrelated error makes `verify` return every diagnostic, so the warning is visible.
    let mut f = Func::new(&["tile<8xf32>", "tile<4xi32>"]);
    let bad = f.int_constant(NumType::I32, 9);
    let (src, ints) = (f.args[0], f.args[1]);
    f.op(op(CtOp::Extract), &[src, bad], &["tile<2xf32>"]);
    f.op(op(CtOp::NegF), &[ints], &["tile<4xi32>"]);
    let diags = f.diags();
    assert_eq!(errors(&diags).len(), 1, "{diags:#?}");
    let warning = diags
        .iter()
        .find(|d| d.severity == Severity::Warning)
        .expect("a warning for index 9");
    assert!(
        warning.to_string().starts_with("ops.mlir:3:5: warning: "),
        "{warning}"
    );
    assert!(
        warning
            .message
            .contains("'cuda_tile.extract' op index 0 is out of bounds"),
        "{}",
        warning.message
    );
}

#[test]
fn select_and_offset() {
    let args = [
        "tile<4xi1>",
        "tile<4xf32>",
        "tile<4xi32>",
        "tile<i1>",
        "tile<4xf4E2M1FN>",
    ];
    assert_valid(one_op(
        &args,
        op(CtOp::Select),
        &[0, 1, 1],
        &["tile<4xf32>"],
    ));
    assert_error(
        one_op(&args, op(CtOp::Select), &[2, 1, 1], &["tile<4xf32>"]),
        "operand #0 must be tile of i1 values, but got '!cuda_tile.tile<4xi32>'",
    );
    assert_error(
        one_op(&args, op(CtOp::Select), &[3, 1, 1], &["tile<4xf32>"]),
        "failed to verify that all of {cond, val_if_true, val_if_false, result} have same shape",
    );
    assert_error(
        one_op(&args, op(CtOp::Select), &[0, 1, 2], &["tile<4xf32>"]),
        "failed to verify that all of {val_if_true, val_if_false, result} have same type",
    );
    assert_error(
        one_op(&args, op(CtOp::Select), &[0, 4, 4], &["tile<4xf4E2M1FN>"]),
        "cannot operate on sub-byte type F4E2M1FN",
    );

    let args = [
        "tile<8xptr<f32>>",
        "tile<8xi32>",
        "tile<i32>",
        "tile<8xf32>",
    ];
    assert_valid(one_op(
        &args,
        op(CtOp::Offset),
        &[0, 1],
        &["tile<8xptr<f32>>"],
    ));
    assert_error(
        one_op(&args, op(CtOp::Offset), &[0, 2], &["tile<8xptr<f32>>"]),
        "requires the same shape for all operands and results",
    );
    assert_error(
        one_op(&args, op(CtOp::Offset), &[0, 1], &["tile<8xptr<f64>>"]),
        "failed to verify that all of {result, ptr} have same type",
    );
    assert_error(
        one_op(&args, op(CtOp::Offset), &[0, 3], &["tile<8xptr<f32>>"]),
        "'cuda_tile.offset' op operand #1 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<8xf32>'",
    );
}

#[test]
fn pack_and_unpack_count_bits() {
    assert_valid(one_op(
        &["tile<64xf16>"],
        op(CtOp::Pack),
        &[0],
        &["tile<128xi8>"],
    ));
    assert_valid(one_op(
        &["tile<16xi1>"],
        op(CtOp::Pack),
        &[0],
        &["tile<2xi8>"],
    ));
    assert_valid(one_op(
        &["tile<64xi8>"],
        op(CtOp::Unpack),
        &[0],
        &["tile<512xi1>"],
    ));
    assert_valid(one_op(
        &["tile<4xi8>"],
        op(CtOp::Unpack),
        &[0],
        &["tile<8xf4E2M1FN>"],
    ));
    assert_error(
        one_op(&["tile<32xf16>"], op(CtOp::Pack), &[0], &["tile<32xi8>"]),
        "expects source and result to have the same size in bytes, but got source tile size 64 bytes and result tile size 32 bytes",
    );
    assert_error(
        one_op(
            &["tile<32xf8E4M3FN>"],
            op(CtOp::Pack),
            &[0],
            &["tile<32xi8>"],
        ),
        "expects source and result to have different element type widths",
    );
    assert_error(
        one_op(&["tile<32xi8>"], op(CtOp::Unpack), &[0], &["tile<32xi8>"]),
        "expects source and result to have different element type widths",
    );
    assert_error(
        one_op(
            &["tile<32x32xf16>"],
            op(CtOp::Pack),
            &[0],
            &["tile<32x64xi8>"],
        ),
        "expects source and result to be rank-1 tiles",
    );
    assert_error(
        one_op(&["tile<32xf16>"], op(CtOp::Pack), &[0], &["tile<32x2xi8>"]),
        "failed to verify that all of {source, result} have same rank",
    );
    assert_error(
        one_op(&["tile<4xi1>"], op(CtOp::Pack), &[0], &["tile<1xi8>"]),
        "expects the source tile size to be a whole number of bytes, but got 4 bits",
    );
    assert_error(
        one_op(&["tile<64xi16>"], op(CtOp::Unpack), &[0], &["tile<128xi8>"]),
        "operand #0 must be tile of i8 values",
    );
}

// ---------------------------------------------------------------- mma (§3.6)

#[test]
fn mmaf_shapes_and_type_table() {
    let mma = |args: &[&str], res: &str| one_op(args, op(CtOp::MmaF), &[0, 1, 2], &[res]);
    assert_valid(mma(
        &["tile<4x8xf16>", "tile<8x16xf16>", "tile<4x16xf32>"],
        "tile<4x16xf32>",
    ));
    assert_valid(mma(
        &[
            "tile<2x4x8xf8E4M3FN>",
            "tile<2x8x16xf8E4M3FN>",
            "tile<2x4x16xf16>",
        ],
        "tile<2x4x16xf16>",
    ));
    assert_valid(mma(
        &["tile<4x8xf64>", "tile<8x16xf64>", "tile<4x16xf64>"],
        "tile<4x16xf64>",
    ));
    assert_error(
        mma(&["tile<4x16xf32>", "tile<8x16xf32>", "tile<4x16xf32>"], "tile<4x16xf32>"),
        "dim 1 of lhs (16) and dim 0 of rhs (8) must match, but got lhs shape (4, 16) and rhs shape (8, 16)",
    );
    assert_error(
        mma(&["tile<16x8xf32>", "tile<8x16xf32>", "tile<4x16xf32>"], "tile<4x16xf32>"),
        "dim 0 of lhs (16) and dim 0 of acc (4) must match, but got lhs shape (16, 8) and acc shape (4, 16)",
    );
    assert_error(
        mma(&["tile<4x8xf32>", "tile<8x16xf32>", "tile<4x32xf32>"], "tile<4x32xf32>"),
        "dim 1 of rhs (16) and dim 1 of acc (32) must match, but got rhs shape (8, 16) and acc shape (4, 32)",
    );
    assert_error(
        mma(&["tile<2x4x8xf32>", "tile<2x8x16xf32>", "tile<4x4x16xf32>"], "tile<4x4x16xf32>"),
        "dim 0 of lhs (2) and dim 0 of acc (4) must match, but got lhs shape (2, 4, 8) and acc shape (4, 4, 16)",
    );
    assert_error(
        mma(
            &["tile<4xf32>", "tile<8x16xf32>", "tile<4x16xf32>"],
            "tile<4x16xf32>",
        ),
        "failed to verify that all of {lhs, rhs, acc} have same rank",
    );
    assert_error(
        mma(
            &["tile<4x8xf32>", "tile<8x16xf16>", "tile<4x16xf32>"],
            "tile<4x16xf32>",
        ),
        "failed to verify that all of {lhs, rhs} have the same element type",
    );
    assert_error(
        mma(&["tile<2x2xf8E4M3FN>", "tile<2x2xf8E4M3FN>", "tile<2x2xf64>"], "tile<2x2xf64>"),
        "unsupported combination of element types. Input type 'f8E4M3FN' expects accumulator/result type to be one of {'f16', 'f32'}, but got 'f64'",
    );
    assert_error(
        mma(&["tile<2x2xbf16>", "tile<2x2xbf16>", "tile<2x2xbf16>"], "tile<2x2xbf16>"),
        "operand #2 must be mmaf acc/result tile type of f16 or f32 or f64 values, but got '!cuda_tile.tile<2x2xbf16>'",
    );
    assert_error(
        mma(&["tile<2x2xi8>", "tile<2x2xi8>", "tile<2x2xi32>"], "tile<2x2xi32>"),
        "operand #0 must be mmaf operand tile type of f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 values, but got '!cuda_tile.tile<2x2xi8>'",
    );
    assert_error(
        mma(
            &["tile<2x2x2xf32>", "tile<2x2x2xf32>", "tile<2x2x2xf32>"],
            "tile<2x2xf32>",
        ),
        "failed to verify that all of {acc, result} have same type",
    );
    assert_error(
        mma(
            &[
                "tile<2x2x2x2xf32>",
                "tile<2x2x2x2xf32>",
                "tile<2x2x2x2xf32>",
            ],
            "tile<2x2x2x2xf32>",
        ),
        "operands must be 2D or 3D tiles",
    );
}

#[test]
fn mmai_takes_i8_into_i32() {
    let mmai = op(CtOp::MmaI)
        .with("signedness_lhs", Attr::Enum(Signedness::MNEMONIC, "signed"))
        .with(
            "signedness_rhs",
            Attr::Enum(Signedness::MNEMONIC, "unsigned"),
        );
    assert_valid(one_op(
        &["tile<4x8xi8>", "tile<8x16xi8>", "tile<4x16xi32>"],
        mmai.clone(),
        &[0, 1, 2],
        &["tile<4x16xi32>"],
    ));
    assert_error(
        one_op(&["tile<2x2xi16>", "tile<2x2xi16>", "tile<2x2xi32>"], mmai.clone(), &[0, 1, 2], &["tile<2x2xi32>"]),
        "operand #0 must be mmai operand tile type of i8 values, but got '!cuda_tile.tile<2x2xi16>'",
    );
    assert_error(
        one_op(
            &["tile<4x8xi8>", "tile<4x16xi8>", "tile<4x16xi32>"],
            mmai,
            &[0, 1, 2],
            &["tile<4x16xi32>"],
        ),
        "dim 1 of lhs (8) and dim 0 of rhs (4) must match",
    );
}

fn scaled(args: &[&str]) -> Vec<Diagnostic> {
    let acc = args[2].to_string();
    one_op(args, op(CtOp::MmaFScaled), &[0, 1, 2, 3, 4], &[&acc])
}

#[test]
fn mmaf_scaled_block_scales() {
    assert_valid(scaled(&[
        "tile<128x128xf8E5M2>",
        "tile<128x128xf8E5M2>",
        "tile<128x128xf32>",
        "tile<128x4xf8E8M0FNU>",
        "tile<4x128xf8E8M0FNU>",
    ]));
    assert_valid(scaled(&[
        "tile<128x128xf4E2M1FN>",
        "tile<128x128xf4E2M1FN>",
        "tile<128x128xf32>",
        "tile<128x8xf8E4M3FN>",
        "tile<8x128xf8E4M3FN>",
    ]));
    assert_valid(scaled(&[
        "tile<4x64x64xf4E2M1FN>",
        "tile<4x64x64xf4E2M1FN>",
        "tile<4x64x64xf32>",
        "tile<4x64x2xf8E8M0FNU>",
        "tile<4x2x64xf8E8M0FNU>",
    ]));
    for (args, needle) in [
        (
            ["tile<128x128xf8E5M2>", "tile<128x128xf8E5M2>", "tile<128x128xf32>", "tile<128x4xf8E4M3FN>", "tile<4x128xf8E4M3FN>"],
            "unsupported combination of element types. Scale type 'f8E4M3FN' expects lhs and rhs element types to be 'f4E2M1FN', but got 'f8E5M2'",
        ),
        (
            ["tile<128x128xf8E5M2>", "tile<128x128xf8E5M2>", "tile<128x128xf16>", "tile<128x4xf8E8M0FNU>", "tile<4x128xf8E8M0FNU>"],
            "operand #2 must be mmaf_scaled result tile type of f32 values, but got '!cuda_tile.tile<128x128xf16>'",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf8E5M2>", "tile<128x128xf32>", "tile<128x8xf8E8M0FNU>", "tile<8x128xf8E8M0FNU>"],
            "failed to verify that all of {lhs, rhs} have the same element type",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf4E2M1FN>", "tile<128x128xf32>", "tile<128x8xf8E8M0FNU>", "tile<8x128xf8E4M3FN>"],
            "failed to verify that all of {lhs_scale, rhs_scale} have the same element type",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf4E2M1FN>", "tile<128x128xf32>", "tile<64x4xf8E8M0FNU>", "tile<4x128xf8E8M0FNU>"],
            "shape error: dim 0 of lhs (128) and dim 0 of lhs_scale (64) must match",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf4E2M1FN>", "tile<128x128xf32>", "tile<128x4xf8E8M0FNU>", "tile<4x64xf8E8M0FNU>"],
            "shape error: dim 1 of rhs (128) and dim 1 of rhs_scale (64) must match",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf4E2M1FN>", "tile<128x128xf32>", "tile<128x8xf8E8M0FNU>", "tile<4x128xf8E8M0FNU>"],
            "shape error: dim 1 of lhs_scale (8) and dim 0 of rhs_scale (4) must match, but got lhs_scale shape (128, 8) and rhs_scale shape (4, 128)",
        ),
        (
            ["tile<128x128xf8E4M3FN>", "tile<128x128xf8E4M3FN>", "tile<128x128xf32>", "tile<128x8xf8E8M0FNU>", "tile<8x128xf8E8M0FNU>"],
            "shape error: f8 element type requires block scale factor of lhs_scale and rhs_scale to be 32, but got 16",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf4E2M1FN>", "tile<128x128xf32>", "tile<128x16xf8E8M0FNU>", "tile<16x128xf8E8M0FNU>"],
            "shape error: f4E2M1FN element type with f8E8M0FNU scales requires block scale factor of lhs_scale and rhs_scale to be 16 or 32, but got 8",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf4E2M1FN>", "tile<128x128xf32>", "tile<128x16xf8E4M3FN>", "tile<16x128xf8E4M3FN>"],
            "shape error: f4E2M1FN element type with f8E4M3FN scales requires block scale factor of lhs_scale and rhs_scale to be 16, but got 8",
        ),
        (
            ["tile<128x128xf16>", "tile<128x128xf16>", "tile<128x128xf32>", "tile<128x4xf8E8M0FNU>", "tile<4x128xf8E8M0FNU>"],
            "operand #0 must be mmaf_scaled operand tile type of f8E4M3FN or f8E5M2 or f4E2M1FN values, but got '!cuda_tile.tile<128x128xf16>'",
        ),
        (
            ["tile<128x128xf4E2M1FN>", "tile<128x128xf4E2M1FN>", "tile<128x128xf32>", "tile<128x4xf32>", "tile<4x128xf32>"],
            "operand #3 must be mmaf_scaled scale tile type of f8E4M3FN or f8E8M0FNU values, but got '!cuda_tile.tile<128x4xf32>'",
        ),
    ] {
        assert_error(scaled(&args), needle);
    }
}

// ---------------------------------------------------------------- reduce / scan (§3.7)

/// A reduce (or scan) of `src` along `dim` whose body adds, built by `body_op`, with block
/// argument types `arg_types` and identities `identities`.
fn aggregate(
    o: CtOp,
    src: &str,
    result: &str,
    dim: i64,
    identities: Vec<Attr>,
    arg_types: &[&str],
    body: impl FnOnce(&mut Module, BlockId, LocId),
) -> Vec<Diagnostic> {
    let mut f = Func::new(&[src]);
    let mut k = op(o)
        .with("dim", Attr::Int(dim))
        .with("identities", Attr::Array(identities));
    if o == CtOp::Scan {
        k = k.with("reverse", Attr::Bool(false));
    }
    let x = f.args[0];
    let reduce = f.op(k, &[x], &[result]);
    let types: Vec<TypeId> = arg_types.iter().map(|t| f.ty(t)).collect();
    let region = f.m.ops[reduce].regions[0];
    let block = f.m.add_block(region, &types);
    body(&mut f.m, block, f.loc);
    f.diags()
}

/// `addf` of the two block arguments, yielded.
fn add_and_yield(m: &mut Module, b: BlockId, loc: LocId) {
    let (a, acc) = (m.blocks[b].args[0], m.blocks[b].args[1]);
    let t = m.value_type(a);
    let add = m.create_op(OpKind::CudaTile(op(CtOp::AddF)), vec![a, acc], &[t], loc);
    m.append_op(b, add);
    let y = m.create_op(
        OpKind::CudaTile(op(CtOp::Yield)),
        vec![m.result(add, 0)],
        &[],
        loc,
    );
    m.append_op(b, y);
}

fn f32_zero() -> Vec<Attr> {
    vec![Attr::Scalar(NumType::F32, 0)]
}

#[test]
fn reduce_removes_its_dimension() {
    let s = ["tile<f32>", "tile<f32>"];
    assert_valid(aggregate(
        CtOp::Reduce,
        "tile<8x4xf32>",
        "tile<4xf32>",
        0,
        f32_zero(),
        &s,
        add_and_yield,
    ));
    assert_valid(aggregate(
        CtOp::Reduce,
        "tile<8xbf16>",
        "tile<bf16>",
        0,
        vec![Attr::Scalar(NumType::F16, 0)],
        &["tile<bf16>", "tile<bf16>"],
        add_and_yield,
    ));
    // InferTypeOpInterface: the whole lists, then a second error, both at the op.
    let errs = errors(&aggregate(
        CtOp::Reduce,
        "tile<8x4xf32>",
        "tile<8xf32>",
        0,
        f32_zero(),
        &s,
        add_and_yield,
    ));
    assert_eq!(
        errs,
        [
            "ops.mlir:3:5: error: 'cuda_tile.reduce' op inferred type(s) '!cuda_tile.tile<4xf32>' are incompatible with return type(s) of operation '!cuda_tile.tile<8xf32>'",
            "ops.mlir:3:5: error: 'cuda_tile.reduce' op failed to infer returned types",
        ]
    );
    assert_error(
        aggregate(
            CtOp::Reduce,
            "tile<8xf32>",
            "tile<f32>",
            1,
            f32_zero(),
            &s,
            add_and_yield,
        ),
        "dimension (1) is out of bound [0, 1)",
    );
    assert_error(
        aggregate(CtOp::Reduce, "tile<8xf32>", "tile<f32>", 0, vec![Attr::Scalar(NumType::I32, 0)], &s, add_and_yield),
        "expect same type for operand at index: 0 and identity at index: 0 but got: 'f32' and 'i32'",
    );
    assert_error(
        aggregate(
            CtOp::Reduce,
            "tile<8xf32>",
            "tile<f32>",
            0,
            vec![],
            &s,
            add_and_yield,
        ),
        "expect identities to match the number of operands but got: 1 operands and 0 identities",
    );
}

#[test]
fn reduce_region_signature() {
    assert_error(
        aggregate(
            CtOp::Reduce,
            "tile<8xf32>",
            "tile<f32>",
            0,
            f32_zero(),
            &["tile<f32>"],
            |m, b, loc| {
                let a = m.blocks[b].args[0];
                let y = m.create_op(OpKind::CudaTile(op(CtOp::Yield)), vec![a], &[], loc);
                m.append_op(b, y);
            },
        ),
        "expect 2 block arguments but got: 1",
    );
    assert_error(
        aggregate(
            CtOp::Reduce,
            "tile<8xf32>",
            "tile<f32>",
            0,
            f32_zero(),
            &["tile<2xf32>", "tile<2xf32>"],
            add_and_yield,
        ),
        "expect 0-rank tile type at index: 0 but got: '!cuda_tile.tile<2xf32>'",
    );
    assert_error(
        aggregate(
            CtOp::Reduce,
            "tile<8xf32>",
            "tile<f32>",
            0,
            f32_zero(),
            &["tile<f32>", "tile<f64>"],
            |m, b, loc| {
                let a = m.blocks[b].args[0];
                let y = m.create_op(OpKind::CudaTile(op(CtOp::Yield)), vec![a], &[], loc);
                m.append_op(b, y);
            },
        ),
        "expect same element type for block argument at index: 0 and 1 but got: 'f32' and 'f64'",
    );
    assert_error(
        aggregate(CtOp::Reduce, "tile<8xf32>", "tile<f32>", 0, f32_zero(), &["tile<f64>", "tile<f64>"], add_and_yield),
        "expect same type for operand at index: 0 and block argument at index: 0 but got: 'f32' and 'f64'",
    );
    assert_error(
        aggregate(
            CtOp::Reduce,
            "tile<8xf32>",
            "tile<f32>",
            0,
            f32_zero(),
            &["tile<f32>", "tile<f32>"],
            |m, b, loc| {
                let y = m.create_op(OpKind::CudaTile(op(CtOp::Yield)), vec![], &[], loc);
                m.append_op(b, y);
            },
        ),
        "expect number of terminators operands (0) to match number of operands (1)",
    );
}

#[test]
fn reduce_body_holds_only_pure_ops() {
    let diags = aggregate(
        CtOp::Reduce,
        "tile<8xf32>",
        "tile<f32>",
        0,
        f32_zero(),
        &["tile<f32>", "tile<f32>"],
        |m, b, loc| {
            let a = m.blocks[b].args[0];
            let token = m.types.token();
            let t = m.create_op(OpKind::CudaTile(op(CtOp::MakeToken)), vec![], &[token], loc);
            m.append_op(b, t);
            let print = op(CtOp::PrintTko)
                .with("str", Attr::Str("x".into()))
                .with_segments(&[0, 0]);
            let p = m.create_op(OpKind::CudaTile(print), vec![], &[token], loc);
            m.append_op(b, p);
            let y = m.create_op(OpKind::CudaTile(op(CtOp::Yield)), vec![a], &[], loc);
            m.append_op(b, y);
        },
    );
    let errs = errors(&diags);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    // The offending op itself is reported (NVIDIA 13.3), with no separate remark.
    assert!(
        errs[0].contains("'cuda_tile.print_tko' op only pure operations are allowed inside 'cuda_tile.reduce'"),
        "{}",
        errs[0]
    );
    assert!(
        !diags.iter().any(|d| d.severity == Severity::Remark),
        "{diags:#?}"
    );
}

#[test]
fn scan_keeps_its_operand_types() {
    let s = ["tile<f32>", "tile<f32>"];
    assert_valid(aggregate(
        CtOp::Scan,
        "tile<8x16xf32>",
        "tile<8x16xf32>",
        1,
        f32_zero(),
        &s,
        add_and_yield,
    ));
    assert_error(
        aggregate(
            CtOp::Scan,
            "tile<8x16xf32>",
            "tile<8xf32>",
            1,
            f32_zero(),
            &s,
            add_and_yield,
        ),
        "expect same type for operand at index: 0 and result at index: 0",
    );
    assert_error(
        aggregate(
            CtOp::Scan,
            "tile<8x16xf32>",
            "tile<8x16xf32>",
            -1,
            f32_zero(),
            &s,
            add_and_yield,
        ),
        "attribute 'dim' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative",
    );
}

// ---------------------------------------------------------------- types (§1)

#[test]
fn tile_types_are_checked_wherever_they_appear() {
    for (ty, needle) in [
        ("tile<3x5xf32>", "all dimensions must be powers of two, got 3, 5"),
        ("tile<1024x1024x1024xf32>", "tile would exceed the maximum of 16777216 elements"),
        ("tile<f4E2M1FN>", "F4E2M1FN tiles must have an even number of elements"),
        // f4E2M1FN packing is checked before the power-of-two rule (NVIDIA 13.3).
        ("tile<3x3xf4E2M1FN>", "F4E2M1FN tiles must have an even number of elements"),
        ("tile<3x2xf4E2M1FN>", "all dimensions must be powers of two"),
        ("tile<ptr<i4>>", "failed to verify 'pointeeType'"),
        ("tensor_view<?xf32, strides=[0]>", "expected strictly positive integer, got 0"),
        ("tensor_view<4xi4, strides=[1]>", "failed to verify 'elementType'"),
        (
            "partition_view<tile=(1024x1024), tensor_view<4096x4096xf32, strides=[4096,1]>, dim_map=[0]>",
            "expected dim_map to map exactly all 2 dimensions of the tile, got 1 mappings",
        ),
        (
            "partition_view<tile=(1024x1024), tensor_view<4096x4096xf32, strides=[4096,1]>, dim_map=[2, 1]>",
            "target dimension is outside of tensor view dimensions, expected strictly less than 2, got 2",
        ),
        (
            "partition_view<tile=(1024x1024), tensor_view<4096x4096xf32, strides=[4096,1]>, dim_map=[0, 0]>",
            "target dimension 0 mapped at least twice (for tile dimensions 0 and 1)",
        ),
        ("partition_view<tile=(5x1024), tensor_view<4096x4096xf32, strides=[4096,1]>>", "tile shape dimensions must have power of two length but got [5, 1024]"),
        (
            "partition_view<tile=(1x1), tensor_view<8192x8192x64xf32, strides=[524288,64,1]>>",
            "expected tensor_view rank and tile rank to match, got tensor_view of rank 3 and tiles of rank 2",
        ),
        ("partition_view<tile=(4), padding_value = nan, tensor_view<16xi32, strides=[1]>>", "padding_value 'nan' requires a floating-point element type"),
    ] {
        let mut f = Func::new(&[ty]);
        let _ = f.ty(ty);
        let errs = errors(&f.diags());
        assert!(errs.iter().any(|e| e.contains(needle) && e.contains("argument #0 has invalid type")), "{ty}: {errs:#?}");
    }
    for ty in ["tile<2xf4E2M1FN>", "tile<4xi4>", "partition_view<tile=(2x2), padding_value = zero, tensor_view<16x16xi32, strides=[16,1]>, dim_map=[1, 0]>"] {
        assert_valid(Func::new(&[ty]).diags());
    }
}

/// A strided or gather/scatter view over `tensor_view<16x16xf32, strides=[16,1]>`.
fn view_arg(strided: Option<Vec<i64>>, sparse_dim: i64) -> Vec<Diagnostic> {
    Func::with_types(|types| {
        let tv = parse_type("tensor_view<16x16xf32, strides=[16,1]>", types).unwrap();
        let view = match strided {
            Some(traversal_strides) => Type::StridedView(types::StridedViewType {
                tile_shape: vec![2, 2],
                traversal_strides,
                tensor_view: tv,
                dim_map: vec![],
                padding: None,
            }),
            None => Type::GatherScatterView(types::GatherScatterViewType {
                tile_shape: vec![4, 4],
                tensor_view: tv,
                sparse_dim,
                padding: None,
            }),
        };
        vec![types.intern(view)]
    })
    .diags()
}

#[test]
fn strided_and_gather_scatter_view_types() {
    assert_valid(view_arg(Some(vec![3, 1]), 0));
    assert_valid(view_arg(None, 1));
    for (diags, needle) in [
        (
            view_arg(Some(vec![2]), 0),
            "expected 2 traversal strides, got 1",
        ),
        (
            view_arg(Some(vec![2, 0]), 0),
            "traversal strides must be strictly positive but got [2, 0]",
        ),
        (
            view_arg(None, 2),
            "sparse_dim must be in [0, 2) (the tensor_view rank), got 2",
        ),
    ] {
        let errs = errors(&diags);
        assert!(
            errs.len() == 1
                && errs[0].contains(needle)
                && errs[0].contains("argument #0 has invalid type"),
            "{needle}: {errs:#?}"
        );
    }
}

#[test]
fn ods_splits_segmented_operands() {
    // load_ptr_tko: source, mask?, paddingValue?, token?.
    let k = |segments: &[u32]| {
        op(CtOp::LoadPtrTko)
            .with(
                "memory_ordering_semantics",
                Attr::Enum(MemoryOrdering::MNEMONIC, "weak"),
            )
            .with_segments(segments)
    };
    let args = ["tile<8xptr<f32>>", "tile<8xi1>", "tile<8xf32>"];
    let results = ["tile<8xf32>", "token"];
    assert_valid(one_op(&args, k(&[1, 1, 0, 0]), &[0, 1], &results));
    assert_error(
        one_op(&args, k(&[1, 2, 0, 0]), &[0, 1, 1], &results),
        "operand group starting at #1 requires 0 or 1 element, but found 2",
    );
    assert_error(one_op(&args, k(&[1, 1, 0]), &[0, 1], &results), "'operandSegmentSizes' attribute for specifying operand segments must have 4 elements, but got 3");
    assert_error(
        one_op(&args, k(&[1, 1, 1, 0]), &[0, 1], &results),
        "operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'",
    );
    assert_error(
        one_op(&args, k(&[1, 1, 0, 0]), &[0, 2], &results),
        "operand #1 must be tile of i1 values, but got '!cuda_tile.tile<8xf32>'",
    );
}
