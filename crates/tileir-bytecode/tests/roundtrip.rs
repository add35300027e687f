//! Write → read round trips at every supported version, version gating, and the
//! worked example of the reference (§6.8 of the dialect notes).

mod common;

use common::kernels::{kernel_13_1, kernel_13_3};
use common::*;
use tileir_bytecode::{read, write, Version, SUPPORTED_VERSIONS, TESTING_VERSIONS};
use tileir_ir::dialect::cuda_tile::AssumePredicate;
use tileir_ir::*;

fn print(m: &Module) -> String {
    print_module(m, PrintOptions::default())
}

fn assert_round_trip(m: &Module, v: Version) -> Vec<u8> {
    let bytes = write(m, v).unwrap_or_else(|e| panic!("write {v}: {e}"));
    let back = read(&bytes).unwrap_or_else(|e| panic!("read back {v}: {e}"));
    assert_eq!(dump(&back), dump(m), "structural round trip at {v}");
    assert_eq!(print(&back), print(m), "printed round trip at {v}");
    // Writing what we read gives the same bytes (the encoding is deterministic).
    assert_eq!(write(&back, v).unwrap(), bytes, "rewrite at {v}");
    bytes
}

#[test]
fn kernel_13_1_round_trips_at_every_version() {
    let m = kernel_13_1();
    for v in SUPPORTED_VERSIONS {
        let bytes = assert_round_trip(&m, v);
        assert_eq!(
            &bytes[..12],
            &[0x7F, b'T', b'i', b'l', b'e', b'I', b'R', 0, 13, v.minor, 0, 0]
        );
    }
}

#[test]
fn kernel_13_3_round_trips_at_13_3_and_13_4() {
    let m = kernel_13_3();
    assert_round_trip(&m, Version::V13_3);
    assert_round_trip(&m, Version::V13_4);
}

/// The 13.4 programmatic-dependent-launch ops: written and read back at 13.4 (with and
/// without their optional token), refused by name at 13.3.
#[test]
fn grid_dependency_control_ops_need_13_4() {
    let mut b = Build::new();
    let (e, _) = b.entry("k", &[], None);
    let tok = b.m.types.token();
    let t0 = b.val(e, CudaTileOp::new(CtOp::MakeToken), &[], tok);
    let w = b.val(e, CudaTileOp::new(CtOp::GdcWaitTko), &[t0], tok);
    b.val(e, CudaTileOp::new(CtOp::GdcLaunchDependentsTko), &[w], tok);
    b.val(e, CudaTileOp::new(CtOp::GdcWaitTko), &[], tok);
    b.ret(e);
    let bytes = assert_round_trip(&b.m, Version::V13_4);
    assert_eq!(bytes[9], 4);
    let text = print(&read(&bytes).unwrap());
    assert!(text.contains("gdc_wait_tko token=%"), "{text}");
    assert!(text.contains("gdc_launch_dependents_tko token=%"), "{text}");
    assert_eq!(
        write_err(&b.m, Version::V13_3),
        "operation 'cuda_tile.gdc_wait_tko' is not available in bytecode version 13.3"
    );
}

/// NVIDIA's test-only versions 250.0 and 250.1 with their test ops: what 250.0 can
/// express round-trips at both, the 250.1 fields only at 250.1 (refused by name at
/// 250.0), and the ops at no release; a release file holding a test opcode is refused.
#[test]
fn testing_versions_and_their_test_ops() {
    assert_eq!(TESTING_VERSIONS, [Version::TESTING, Version::TESTING_1]);
    // Only 250.0 fields: inputs, an unused result, `new_param` at its default.
    let mut b = Build::new();
    let f32t = b.tile(&[], NumType::F32);
    let (e, args) = b.entry("k", &[f32t], None);
    let tok = b.m.types.token();
    b.val(e, evolution(&[1, 0]), &[args[0]], tok);
    b.op(e, CudaTileOp::new(CtOp::TestingBytecodeNewAttribute), &[], &[]);
    b.ret(e);
    for v in TESTING_VERSIONS {
        let bytes = assert_round_trip(&b.m, v);
        assert_eq!(&bytes[8..12], &[250, v.minor, 0, 0]);
    }
    for v in SUPPORTED_VERSIONS {
        assert_eq!(
            write_err(&b.m, v),
            format!("operation 'cuda_tile.testing$bytecode_test_evolution' is not available in bytecode version {v}")
        );
    }
    // A 250.0 file relabelled 13.3 holds an opcode 13.3 does not have.
    let mut bytes = write(&b.m, Version::TESTING).unwrap();
    bytes[8..10].copy_from_slice(&[13, 3]);
    let Err(err) = read(&bytes) else { panic!("a test opcode in a 13.3 file must be refused") };
    assert_eq!(
        err.message,
        "operation 'cuda_tile.testing$bytecode_test_evolution' is not available in bytecode version 13.3"
    );

    // Each 250.1 field alone.
    type AddOp = Box<dyn Fn(&mut Build, BlockId, ValueId, TypeId)>;
    let cases: Vec<(AddOp, &str)> = vec![
        (
            Box::new(|b, e, x, tok| {
                b.val(e, evolution(&[1, 0]).with("new_attr", Attr::Int(5)), &[x], tok);
            }),
            "'cuda_tile.testing$bytecode_test_evolution' op optional attribute 'new_attr' is provided but requires bytecode version 250.1, targeting 250.0",
        ),
        (
            Box::new(|b, e, x, tok| {
                let t = b.val(e, CudaTileOp::new(CtOp::MakeToken), &[], tok);
                b.val(e, evolution(&[1, 1]), &[x, t], tok);
            }),
            "'cuda_tile.testing$bytecode_test_evolution' op optional operand 'optional_token' is provided but requires bytecode version 250.1, targeting 250.0",
        ),
        (
            Box::new(|b, e, x, tok| {
                let t = b.val(e, evolution(&[1, 0]), &[x], tok);
                b.val(e, CudaTileOp::new(CtOp::JoinTokens), &[t, t], tok);
            }),
            "'cuda_tile.testing$bytecode_test_evolution' op result 'result_token' requires bytecode version 250.1 but is being used and targeting 250.0",
        ),
        (
            Box::new(|b, e, _, _| {
                b.op(e, CudaTileOp::new(CtOp::TestingBytecodeNewAttribute).with("new_flag", Attr::Unit), &[], &[]);
            }),
            "'cuda_tile.testing$bytecode_test_new_attribute' op optional attribute 'new_flag' is provided but requires bytecode version 250.1, targeting 250.0",
        ),
        (
            Box::new(|b, e, _, _| {
                b.op(e, CudaTileOp::new(CtOp::TestingBytecodeNewAttribute).with("new_param", Attr::Int(7)), &[], &[]);
            }),
            "'cuda_tile.testing$bytecode_test_new_attribute' op attribute 'new_param' requires bytecode version 250.1+, but targeting 250.0",
        ),
    ];
    for (add, expected) in cases {
        let mut b = Build::new();
        let f32t = b.tile(&[], NumType::F32);
        let (e, args) = b.entry("k", &[f32t], None);
        let tok = b.m.types.token();
        add(&mut b, e, args[0], tok);
        b.ret(e);
        assert_round_trip(&b.m, Version::TESTING_1);
        let msg = write_err(&b.m, Version::TESTING);
        assert!(msg.starts_with(expected), "{msg}");
    }
}

/// `testing$bytecode_test_evolution` with operand-group sizes `segments`.
fn evolution(segments: &[u32]) -> CudaTileOp {
    CudaTileOp::new(CtOp::TestingBytecodeEvolution).with_segments(segments)
}

#[test]
fn test_only_versions_parse_but_are_not_in_the_supported_range() {
    assert_eq!(tileir_bytecode::parse_version("250.0"), Ok(Version::TESTING));
    assert_eq!(tileir_bytecode::parse_version("250.1.0"), Ok(Version::TESTING_1));
    assert_eq!(
        tileir_bytecode::parse_version("250.2").unwrap_err().message,
        "Invalid argument '250.2': the supported versions are [13.1 - 13.4]"
    );
}

#[test]
fn module_name_is_not_stored() {
    let mut m = kernel_13_1();
    let mop = m.blocks[m.body].ops[0];
    if let OpKind::CudaTile(ct) = &mut m.ops[mop].kind {
        ct.set("sym_name", Attr::Str("other".into()));
    }
    let back = read(&write(&m, Version::V13_3).unwrap()).unwrap();
    assert!(print(&back).starts_with("cuda_tile.module @kernels"));
}

fn write_err(m: &Module, v: Version) -> String {
    match write(m, v) {
        Ok(_) => panic!("writing at {v} should fail"),
        Err(e) => e.message,
    }
}

#[test]
fn newer_features_are_refused_for_older_versions() {
    let m = kernel_13_3();
    let msg = write_err(&m, Version::V13_1);
    assert!(
        msg.contains("requires bytecode version 13.3+")
            || msg.contains("requires bytecode 13.3+")
            || msg.contains("13.2"),
        "{msg}"
    );
    // One feature at a time.
    type AddOp = Box<dyn Fn(&mut Build, BlockId, ValueId)>;
    let cases: Vec<(AddOp, Version, &str)> = vec![
        (
            Box::new(|b, e, x| {
                let t = b.m.value_type(x);
                b.val(e, CudaTileOp::new(CtOp::Atan2), &[x, x], t);
            }),
            Version::V13_1,
            "operation 'cuda_tile.atan2' is not available in bytecode version 13.1",
        ),
        (
            Box::new(|b, e, x| {
                let t = b.m.value_type(x);
                b.val(e, CudaTileOp::new(CtOp::Exp).with("rounding_mode", en("rounding", "approx")), &[x], t);
            }),
            Version::V13_2,
            "'cuda_tile.exp' op attribute 'rounding_mode' requires bytecode version 13.3+, but targeting 13.2",
        ),
        (
            Box::new(|b, e, _x| {
                let i = b.tile(&[], NumType::I32);
                let c = b.val(e, CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(dense(NumType::I32, &[], &[3]))), &[], i);
                b.val(e, CudaTileOp::new(CtOp::NegI).with("overflow", en("overflow", "no_wrap")), &[c], i);
            }),
            Version::V13_1,
            "'cuda_tile.negi' op attribute 'overflow' requires bytecode version 13.2+, but targeting 13.1",
        ),
        (
            Box::new(|b, e, _x| {
                let t = b.tile(&[2], NumType::F4E2M1FN);
                b.val(e, CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(dense(NumType::F4E2M1FN, &[2], &[1, 2]))), &[], t);
            }),
            Version::V13_1,
            "type 'Float4E2M1FN' requires bytecode version 13.3+, targeting 13.1",
        ),
        (
            Box::new(|b, e, _x| {
                let t = b.tile(&[2], NumType::F8E8M0FNU);
                b.val(e, CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(dense(NumType::F8E8M0FNU, &[2], &[1]))), &[], t);
            }),
            Version::V13_1,
            "type 'Float8E8M0FNU' requires bytecode version 13.2+, targeting 13.1",
        ),
        (
            Box::new(|b, e, x| {
                let t = b.m.value_type(x);
                b.val(e, CudaTileOp::new(CtOp::MmaF).with("fast_acc", Attr::Unit), &[x, x, x], t);
            }),
            Version::V13_2,
            "'cuda_tile.mmaf' op optional attribute 'fast_acc' is provided but requires bytecode version 13.3, targeting 13.2",
        ),
        (
            Box::new(|b, e, x| {
                let tok = b.m.types.token();
                let t0 = b.val(e, CudaTileOp::new(CtOp::MakeToken), &[], tok);
                b.op(e, CudaTileOp::new(CtOp::PrintTko).with("str", Attr::Str("s".into())).with_segments(&[1, 1]), &[x, t0], &[tok]);
            }),
            Version::V13_1,
            "'cuda_tile.print_tko' op optional operand 'token' is provided but requires bytecode version 13.2, targeting 13.1",
        ),
        (
            Box::new(|b, e, x| {
                let tok = b.m.types.token();
                let p = b.op(e, CudaTileOp::new(CtOp::PrintTko).with("str", Attr::Str("s".into())).with_segments(&[1, 0]), &[x], &[tok]);
                let t = b.m.ops[p].results[0];
                b.val(e, CudaTileOp::new(CtOp::JoinTokens), &[t, t], tok);
            }),
            Version::V13_1,
            "'cuda_tile.print_tko' op result 'result_token' requires bytecode version 13.2 but is being used and targeting 13.1",
        ),
    ];
    for (i, (add, v, want)) in cases.into_iter().enumerate() {
        let mut b = Build::new();
        let f32t = b.tile(&[], NumType::F32);
        let (e, args) = b.entry("k", &[f32t], None);
        add(&mut b, e, args[0]);
        b.ret(e);
        let msg = write_err(&b.m, v);
        assert!(msg.contains(want), "case {i}: got '{msg}', want '{want}'");
        // The newest version accepts it.
        assert_round_trip(&b.m, Version::V13_3);
    }

    let mut b = Build::new();
    b.global(
        "g",
        dense(NumType::I32, &[1], &[1]),
        &[("constant", Attr::Unit)],
    );
    assert!(write_err(&b.m, Version::V13_2)
        .contains("constant global `g` cannot be encoded in bytecode version 13.2 (the `constant` attribute requires bytecode 13.3+)"));
}

#[test]
fn producer_is_dropped_below_13_3() {
    let mut b = Build::new();
    let mop = b.module_op();
    b.m.ops[mop].kind = OpKind::CudaTile(
        CudaTileOp::new(CtOp::Module)
            .with("sym_name", Attr::Str("kernels".into()))
            .with("producer", Attr::Str("me".into())),
    );
    let back = read(&write(&b.m, Version::V13_2).unwrap()).unwrap();
    let mop = back.blocks[back.body].ops[0];
    assert_eq!(
        back.ops[mop].kind.cuda_tile().unwrap().get("producer"),
        None
    );
    let back = read(&write(&b.m, Version::V13_3).unwrap()).unwrap();
    let mop = back.blocks[back.body].ops[0];
    assert_eq!(
        back.ops[mop].kind.cuda_tile().unwrap().str("producer"),
        Some("me")
    );
}

#[test]
fn only_cuda_tile_entries_and_globals_are_written() {
    let mut b = Build::new();
    let tok = b.m.types.token();
    let op = b.m.create_op(
        OpKind::CudaTile(CudaTileOp::new(CtOp::MakeToken)),
        vec![],
        &[tok],
        b.loc,
    );
    let body = b.body;
    b.m.append_op(body, op);
    assert!(write_err(&b.m, Version::V13_3)
        .contains("only function and global ops are allowed in the body"));

    let mut b = Build::new();
    let (e, _) = b.entry("k", &[], None);
    let tok = b.m.types.mem_token();
    b.op(e, CudaTileOp::new(CtOp::Return), &[], &[]);
    let aa = b.m.create_op(
        OpKind::TileAa(TileAaOp::CreateMemToken),
        vec![],
        &[tok],
        b.loc,
    );
    b.m.append_op(e, aa);
    assert!(write_err(&b.m, Version::V13_3)
        .contains("only ops from the 'cuda_tile' dialect are allowed"));

    assert!(write(&Module::new(), Version::V13_3)
        .unwrap_err()
        .message
        .contains("expected exactly one 'cuda_tile.module'"));
    let m = kernel_13_1();
    assert!(tileir_bytecode::parse_version("12.0")
        .unwrap_err()
        .message
        .contains("Invalid argument '12.0'"));
    assert_eq!(
        tileir_bytecode::parse_version("13.2").unwrap(),
        Version::V13_2
    );
    let _ = m;
}

/// Builds the 359-byte file of §6.8 (NVIDIA's fixture `print-op-13.1.tileirbc`): the
/// function section is the doc's hex byte for byte; the type table is reconstructed from
/// the types the body references (sizes match the documented section lengths; the second
/// tensor view, which the doc does not show, is chosen here).
fn worked_example() -> Vec<u8> {
    fn i64s(v: &[i64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
    fn i32s(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
    let mut types: Vec<Vec<u8>> = vec![
        vec![0x09],                               // [0] f64
        vec![0x0C, 0x00],                         // [1] ptr<f64>
        vec![0x0D, 0x01, 0x00],                   // [2] tile<ptr<f64>>
        vec![0x10, 0x03, 0x02, 0x02, 0x02, 0x00], // [3] (3 x [2]) -> ()
    ];
    let mut tv = vec![0x0E, 0x00, 0x02];
    tv.extend(i64s(&[1024, 1024]));
    tv.push(0x02);
    tv.extend(i64s(&[1024, 1]));
    types.push(tv); // [4]
    let mut tv2 = vec![0x0E, 0x00, 0x02];
    tv2.extend(i64s(&[1024, 1024]));
    tv2.push(0x02);
    tv2.extend(i64s(&[1, 1024]));
    types.push(tv2); // [5]
    for base in [5u8, 4] {
        let mut pv = vec![0x0F, 0x02];
        pv.extend(i32s(&[256, 256]));
        pv.push(base);
        pv.push(0x02);
        pv.extend(i32s(&[0, 1]));
        pv.push(0x00);
        types.push(pv); // [6], [7]
    }
    types.push(vec![0x03]); // [8] i32
    types.push(vec![0x0D, 0x08, 0x00]); // [9] tile<i32>
    let mut t10 = vec![0x0D, 0x00, 0x02];
    t10.extend(i64s(&[256, 256]));
    types.push(t10); // [10] tile<256x256xf64>
    types.push(vec![0x11]); // [11] token

    let body: Vec<u8> = vec![
        0x06, 0x02, 0x08, 0x80, 0x02, 0x00, 0x02, // assume div_by<256> %2 -> %3
        0x06, 0x02, 0x08, 0x80, 0x02, 0x00, 0x00, // assume %0 -> %4
        0x43, 0x01, 0x04, 0x04, 0x00, 0x00, // make_tensor_view %4 -> %5
        0x43, 0x01, 0x05, 0x03, 0x00, 0x00, // make_tensor_view %3 -> %6
        0x42, 0x06, 0x06, // make_partition_view %6 -> %7
        0x42, 0x07, 0x05, // make_partition_view %5 -> %8
        0x30, 0x09, 0x09, 0x09, // get_tile_block_id -> %9 %10 %11
        0x3E, 0x02, 0x0A, 0x0B, 0x00, 0x00, 0x08, 0x02, 0x09,
        0x0A, // load_view_tko -> %12 %13
        0x41, 0x01, 0x0A, 0x01, 0x0C, 0x01, 0x01, 0x01, 0x0A, 0x04, // loop iter %12, arg %14
        0x55, 0x00, 0x01, 0x00, // print "Iteration result"
        0x3E, 0x02, 0x0A, 0x0B, 0x00, 0x00, 0x07, 0x02, 0x09,
        0x0A, // load_view_tko -> %15 %16
        0x49, 0x0A, 0x0F, 0x0F, 0x0E, // mmaf %15 %15 %14 -> %17
        0x11, 0x00, 0x01, 0x11, // continue %17
        0x5C, 0x00, 0x00, // return
    ];
    assert_eq!(body.len(), 82);
    let mut func = vec![0x01, 0x00, 0x03, 0x02, 0x00, body.len() as u8];
    func.extend(&body);
    assert_eq!(func.len(), 88);

    let table = |items: &[Vec<u8>]| {
        let mut p = vec![items.len() as u8, 0xCB, 0xCB, 0xCB];
        let mut off = 0u32;
        for it in items {
            p.extend(off.to_le_bytes());
            off += it.len() as u32;
        }
        for it in items {
            p.extend(it);
        }
        p
    };
    let type_payload = table(&types);
    assert_eq!(type_payload.len(), 202);
    let string_payload = table(&[b"mutated_kernel".to_vec(), b"Iteration result".to_vec()]);
    assert_eq!(string_payload.len(), 42);

    let mut f = vec![
        0x7F, b'T', b'i', b'l', b'e', b'I', b'R', 0x00, 0x0D, 0x01, 0x00, 0x00,
    ];
    f.extend([0x82, 88, 0x08, 0xCB]); // func section, aligned to 8 (offset 16)
    f.extend(&func);
    f.extend([0x85, 0xCA, 0x01, 0x04]); // type section, length 202, aligned to 4 (offset 108)
    f.extend(&type_payload);
    f.extend([0x81, 42, 0x04, 0xCB, 0xCB, 0xCB]); // string section, aligned to 4 (offset 316)
    f.extend(&string_payload);
    f.push(0x00);
    f
}

#[test]
fn worked_example_of_the_reference_decodes() {
    let bytes = worked_example();
    assert_eq!(bytes.len(), 359);
    let m = read(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let text = dump(&m);
    let mop = m.blocks[m.body].ops[0];
    let items = &m.blocks[m.entry_block(mop, 0).unwrap()].ops;
    assert_eq!(items.len(), 1);
    let entry = items[0];
    assert_eq!(
        m.ops[entry].kind.cuda_tile().unwrap().str("sym_name"),
        Some("mutated_kernel")
    );
    let body = m.entry_block(entry, 0).unwrap();
    assert_eq!(m.blocks[body].args.len(), 3);
    let names: Vec<String> = m.blocks[body]
        .ops
        .iter()
        .map(|&o| m.ops[o].kind.mnemonic().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "assume",
            "assume",
            "make_tensor_view",
            "make_tensor_view",
            "make_partition_view",
            "make_partition_view",
            "get_tile_block_id",
            "load_view_tko",
            "loop",
            "return"
        ]
    );
    let ops = &m.blocks[body].ops;
    let assume = m.ops[ops[0]].kind.cuda_tile().unwrap();
    assert_eq!(assume.predicate(), Some(&AssumePredicate::div_by(256)));
    assert_eq!(m.ops[ops[0]].operands[0], m.blocks[body].args[2]);
    assert_eq!(
        m.types
            .display(m.value_type(m.ops[ops[2]].results[0]), true),
        "tensor_view<1024x1024xf64, strides=[1024,1]>"
    );
    assert_eq!(
        m.types
            .display(m.value_type(m.ops[ops[4]].results[0]), true),
        "partition_view<tile=(256x256), tensor_view<1024x1024xf64, strides=[1,1024]>>"
    );
    // The loop: one block, one argument, print (13.1 form: no token operand and no
    // result), load, mmaf, continue.
    let lp = ops[8];
    let lb = m.entry_block(lp, 0).unwrap();
    let inner: Vec<&str> = m.blocks[lb]
        .ops
        .iter()
        .map(|&o| m.ops[o].kind.mnemonic())
        .collect();
    assert_eq!(inner, ["print_tko", "load_view_tko", "mmaf", "continue"]);
    let print_op = m.blocks[lb].ops[0];
    assert_eq!(
        m.ops[print_op].kind.cuda_tile().unwrap().str("str"),
        Some("Iteration result")
    );
    // 13.1's print reads as a print_tko with its token (NVIDIA 13.3's reader).
    assert_eq!(m.ops[print_op].results.len(), 1);
    assert!(matches!(m.types.get(m.value_type(m.ops[print_op].results[0])), Type::Token));
    let mmaf = m.blocks[lb].ops[2];
    assert_eq!(m.ops[mmaf].operands[2], m.blocks[lb].args[0]);
    assert_eq!(
        m.ops[mmaf].operands[0],
        m.ops[m.blocks[lb].ops[1]].results[0]
    );
    let cont = m.blocks[lb].ops[3];
    assert_eq!(m.ops[cont].operands, vec![m.ops[mmaf].results[0]]);
    assert!(text.contains("cuda_tile.loop"), "{text}");
    // It re-encodes: at 13.1 to the same function section (the string and type tables may
    // be ordered differently from NVIDIA's writer).
    let again = write(&m, Version::V13_1).unwrap();
    assert_eq!(dump(&read(&again).unwrap()), text);
    let body_at = again
        .windows(body_prefix().len())
        .position(|w| w == body_prefix());
    assert!(
        body_at.is_some(),
        "the re-encoded body keeps the reference's op records"
    );
}

fn body_prefix() -> Vec<u8> {
    vec![0x3E, 0x02, 0x0A, 0x0B, 0x00, 0x00, 0x08, 0x02, 0x09, 0x0A]
}

#[test]
fn debug_locations_round_trip() {
    use tileir_ir::location::{DiCompileUnit, DiFile, DiLexicalBlock, DiScope, DiSubprogram};
    let file = DiFile {
        name: "k.py".into(),
        directory: "/src".into(),
    };
    let sp = DiScope::Subprogram(Box::new(DiSubprogram {
        file: file.clone(),
        line: 3,
        name: "k".into(),
        linkage_name: "k".into(),
        compile_unit: DiCompileUnit { file: file.clone() },
        scope_line: Some(4),
    }));
    let block = DiScope::LexicalBlock(Box::new(DiLexicalBlock {
        scope: sp.clone(),
        file,
        line: 5,
        column: Some(2),
    }));
    let at = |line, scope: &DiScope| Location::DiLoc {
        loc: Box::new(Location::FileLineCol {
            file: "k.py".into(),
            line,
            col: 7,
        }),
        scope: scope.clone(),
    };
    let mut b = Build::new();
    let f32t = b.tile(&[], NumType::F32);
    let (e, args) = b.entry("k", &[f32t], None);
    let entry = b.m.blocks[b.body].ops[0];
    b.m.ops[entry].loc = b.m.locs.intern(at(3, &sp));
    let x = b.val(e, CudaTileOp::new(CtOp::NegF), &[args[0]], f32t);
    let neg = b.m.blocks[e].ops[0];
    b.m.ops[neg].loc = b.m.locs.intern(at(6, &block));
    let y = b.val(e, CudaTileOp::new(CtOp::AbsF), &[x], f32t);
    let abs = b.m.blocks[e].ops[1];
    let call = Location::CallSite {
        callee: Box::new(at(8, &block)),
        caller: Box::new(at(9, &sp)),
    };
    b.m.ops[abs].loc = b.m.locs.intern(call);
    let _ = y;
    b.ret(e);
    let ret = b.m.blocks[e].ops[2];
    b.m.ops[ret].loc = b.m.locs.intern(Location::Name {
        name: "n".into(),
        child: Some(Box::new(at(10, &sp))),
    });
    // Name (and fused) locations have no record: NVIDIA 13.3's writer refuses them.
    assert_eq!(
        write_err(&b.m, Version::V13_3),
        "unsupported location, got NameLoc, expected DILocAttr or CallSiteLoc"
    );
    b.m.ops[ret].loc = b.m.locs.intern(at(10, &sp));
    let bytes = write(&b.m, Version::V13_3).unwrap();
    let back = read(&bytes).unwrap();
    let text = dump(&back);
    assert!(text.contains("di_loc"), "{text}");
    assert_eq!(text, dump(&b.m));
    // Plain file locations are not stored.
    let mut c = Build::new();
    let (e, _) = c.entry("k", &[], None);
    c.ret(e);
    let entry = c.m.blocks[c.body].ops[0];
    c.m.ops[entry].loc = c.m.locs.file_line_col("k.py", 1, 1);
    let back = read(&write(&c.m, Version::V13_1).unwrap()).unwrap();
    assert!(!dump(&back).contains("k.py"));
}
