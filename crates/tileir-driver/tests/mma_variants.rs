//! The tensor-core variants of `mmaf` / `mmai` (issue #11): which one the dispatch picks for
//! each operand type and target, the intrinsic it writes, and the reasons it lists when no
//! variant (or not the forced one) applies.

use tileir_driver::{compile, CompileError, CompileOptions};

/// A kernel loading A (m x k), B (k x n) of `ab` and C (m x n) of `acc` and storing
/// `op` of them (`%a`, `%b`: A and B after `convert`, which may rebind them).
fn kernel(m: i64, n: i64, k: i64, ab: &str, acc: &str, convert: &str, op: &str) -> String {
    let view = |r: i64, c: i64, t: &str| format!("tensor_view<{r}x{c}x{t}, strides=[{c},1]>");
    let part = |r: i64, c: i64, t: &str| format!("partition_view<tile=({r}x{c}), {}>", view(r, c, t));
    let (va, vb, vc) = (view(m, k, ab), view(k, n, ab), view(m, n, acc));
    let (pa, pb, pc) = (part(m, k, ab), part(k, n, ab), part(m, n, acc));
    format!(
        r#"
cuda_tile.module @kernels {{
  entry @mm(%A: tile<ptr<{ab}>>, %B: tile<ptr<{ab}>>, %C: tile<ptr<{acc}>>) {{
    %tok = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %ta = make_tensor_view %A, shape = [{m}, {k}], strides = [{k}, 1] : {va}
    %tb = make_tensor_view %B, shape = [{k}, {n}], strides = [{n}, 1] : {vb}
    %tc = make_tensor_view %C, shape = [{m}, {n}], strides = [{n}, 1] : {vc}
    %pa = make_partition_view %ta : {pa}
    %pb = make_partition_view %tb : {pb}
    %pc = make_partition_view %tc : {pc}
    %a0, %t0 = load_view_tko weak %pa[%c0, %c0] token = %tok : {pa}, tile<i32> -> tile<{m}x{k}x{ab}>, token
    %b0, %t1 = load_view_tko weak %pb[%c0, %c0] token = %tok : {pb}, tile<i32> -> tile<{k}x{n}x{ab}>, token
    %c, %t2 = load_view_tko weak %pc[%c0, %c0] token = %tok : {pc}, tile<i32> -> tile<{m}x{n}x{acc}>, token
{convert}
    %d = {op}
    %t3 = store_view_tko weak %d, %pc[%c0, %c0] token = %tok : tile<{m}x{n}x{acc}>, {pc}, tile<i32> -> token
    return
  }}
}}
"#
    )
}

/// An f32 matmul in tf32, as the front end writes it.
fn tf32(m: i64, n: i64, k: i64) -> String {
    let convert = format!(
        "    %a = ftof %a0 : tile<{m}x{k}xf32> -> tile<{m}x{k}xtf32>\n    %b = ftof %b0 : tile<{k}x{n}xf32> -> tile<{k}x{n}xtf32>"
    );
    kernel(m, n, k, "f32", "f32", &convert, &format!("mmaf %a, %b, %c : tile<{m}x{k}xtf32>, tile<{k}x{n}xtf32>, tile<{m}x{n}xf32>"))
}

fn i8(m: i64, n: i64, k: i64, sa: &str, sb: &str) -> String {
    let convert = "    %a = addi %a0, %a0 : tile<MxKxi8>\n    %b = addi %b0, %b0 : tile<KxNxi8>"
        .replace("MxK", &format!("{m}x{k}"))
        .replace("KxN", &format!("{k}x{n}"));
    kernel(m, n, k, "i8", "i32", &convert, &format!("mmai %a, %b, %c {sa} {sb} : tile<{m}x{k}xi8>, tile<{k}x{n}xi8>, tile<{m}x{n}xi32>"))
}

/// fp8 operands, bit casts of i8 tiles (the LLVM writer loads no fp8 memory, and converts
/// to fp8 only on sm_89+).
fn fp8(m: i64, n: i64, k: i64, t: &str) -> String {
    let convert = format!(
        "    %a = bitcast %a0 : tile<{m}x{k}xi8> -> tile<{m}x{k}x{t}>\n    %b = bitcast %b0 : tile<{k}x{n}xi8> -> tile<{k}x{n}x{t}>"
    );
    kernel(m, n, k, "i8", "f32", &convert, &format!("mmaf %a, %b, %c : tile<{m}x{k}x{t}>, tile<{k}x{n}x{t}>, tile<{m}x{n}xf32>"))
}

fn llvm(src: &str, target: &str, force: Option<&str>) -> Result<String, CompileError> {
    let options = tileir_syntax::ParseOptions { file_name: "mm.mlir".into(), ..Default::default() };
    let module = tileir_syntax::parse_module(src, &options).unwrap_or_else(|d| panic!("parse failed: {d:?}\n{src}"));
    let pipeline = match force {
        Some(f) => format!("convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{{force-variant={f}}}"),
        None => String::new(),
    };
    let opts = CompileOptions { pipeline, target: target.into(), ..Default::default() };
    let out = compile(module, &opts)?;
    Ok(out.stages.iter().find(|(n, _)| n == "llvm").map(|(_, t)| t.clone()).unwrap_or_default())
}

const NO_MMA: &str = "@llvm.nvvm.mma.";

#[test]
fn tf32_matmul_uses_m16n8k8() {
    let text = llvm(&tf32(32, 32, 16), "sm_80", None).unwrap();
    assert!(text.contains("call { float, float, float, float } @llvm.nvvm.mma.m16n8k8.row.col.tf32(i32 "), "{text}");
    // The operands' ftof to tf32 rounds to nearest even at bit 13 (in software: the
    // hardware's cvt.rna breaks ties away from zero).
    assert!(text.contains(", -8192"), "{text}");
}

#[test]
fn ragged_tf32_shapes_fall_back_to_fma() {
    // Tile shapes are powers of two: these miss 16 (M), 8 (N) or 8 (K).
    for (m, n, k) in [(8, 32, 16), (32, 4, 16), (32, 32, 4)] {
        let text = llvm(&tf32(m, n, k), "sm_90a", None).unwrap();
        assert!(!text.contains(NO_MMA), "{m}x{n}x{k}:\n{text}");
    }
    let err = llvm(&tf32(32, 32, 4), "sm_90a", Some("mmaf:mma_sync_tf32")).unwrap_err().to_string();
    assert!(err.contains("mma_sync_tf32: 32x32x4 is not a multiple of the 16x8x8 instruction shape"), "{err}");
    assert!(err.contains("mma_sync: not the forced variant"), "{err}");
}

#[test]
fn int8_matmul_names_each_signedness() {
    for (sa, sb, name) in [
        ("signed", "signed", "m16n8k32.row.col.s8("),
        ("unsigned", "unsigned", "m16n8k32.row.col.u8("),
        ("signed", "unsigned", "m16n8k32.row.col.s8.u8("),
        ("unsigned", "signed", "m16n8k32.row.col.u8.s8("),
    ] {
        let text = llvm(&i8(32, 32, 64, sa, sb), "sm_80", None).unwrap();
        let call = format!("call {{ i32, i32, i32, i32 }} @llvm.nvvm.mma.{name}");
        assert!(text.contains(&call), "{sa} x {sb}: no {call} in\n{text}");
    }
    // K = 16 is not a multiple of 32: the FMA loop.
    let text = llvm(&i8(32, 32, 16, "signed", "signed"), "sm_80", None).unwrap();
    assert!(!text.contains(NO_MMA), "{text}");
}

#[test]
fn fp8_needs_sm_89() {
    let text = llvm(&fp8(32, 32, 32, "f8E4M3FN"), "sm_90a", None).unwrap();
    assert!(text.contains("@llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32(i32 "), "{text}");
    let text = llvm(&fp8(32, 32, 32, "f8E5M2"), "sm_89", None).unwrap();
    assert!(text.contains("@llvm.nvvm.mma.m16n8k32.row.col.f32.e5m2.e5m2.f32(i32 "), "{text}");
    // sm_80 has no fp8 tensor cores: the FMA loop, converting fp8 in software.
    let text = llvm(&fp8(32, 32, 32, "f8E4M3FN"), "sm_80", None).unwrap();
    assert!(!text.contains(NO_MMA), "{text}");
    assert!(!text.contains("@llvm.nvvm.e4m3x2.to.f16x2"), "{text}");
    // Forcing the fp8 tensor-core variant there lists why each variant does not apply.
    let err = llvm(&fp8(32, 32, 32, "f8E4M3FN"), "sm_80", Some("mmaf:mma_sync_fp8")).unwrap_err().to_string();
    for want in [
        "mma_sync: not the forced variant",
        "mma_sync_tf32: not the forced variant",
        "mma_sync_fp8: needs sm_89+ (target sm_80)",
        "fma: not the forced variant",
    ] {
        assert!(err.contains(want), "no '{want}' in {err}");
    }
    // Shapes the instruction does not tile fall back to the FMA loop on sm_89.
    let text = llvm(&fp8(32, 32, 16, "f8E4M3FN"), "sm_89", None).unwrap();
    assert!(!text.contains(NO_MMA), "{text}");
}

#[test]
fn a_forced_variant_lists_every_reason() {
    let err = llvm(&i8(32, 32, 64, "signed", "signed"), "sm_90a", Some("mmai:mma_sync_tf32")).unwrap_err().to_string();
    for want in [
        "mma_sync: not the forced variant",
        "mma_sync_tf32: 'mmai' is not mmaf",
        "mma_sync_i8: not the forced variant",
        "mma_sync_fp8: not the forced variant",
        "fma: not the forced variant",
    ] {
        assert!(err.contains(want), "no '{want}' in {err}");
    }
    // Forcing the FMA loop keeps a tf32 matmul off the tensor cores.
    let text = llvm(&tf32(32, 32, 16), "sm_90a", Some("mmaf:fma")).unwrap();
    assert!(!text.contains(NO_MMA), "{text}");
}

/// The `wgmma.mma_async` form in `text` (the PTX mnemonic inside the inline asm), if any.
fn wgmma_form(text: &str) -> Option<String> {
    let at = text.find("wgmma.mma_async.sync.aligned.")?;
    let rest = &text[at + "wgmma.mma_async.sync.aligned.".len()..];
    Some(rest[..rest.find(' ')?].to_string())
}

fn f16(m: i64, n: i64, k: i64) -> String {
    kernel(m, n, k, "f16", "f32", "    %a = addf %a0, %a0 : tile<MxKxf16>\n    %b = addf %b0, %b0 : tile<KxNxf16>"
        .replace("MxK", &format!("{m}x{k}"))
        .replace("KxN", &format!("{k}x{n}"))
        .as_str(), &format!("mmaf %a, %b, %c : tile<{m}x{k}xf16>, tile<{k}x{n}xf16>, tile<{m}x{n}xf32>"))
}

#[test]
fn sm_90a_takes_wgmma_for_each_input_family() {
    let cases = [
        (f16(64, 64, 32), "m64n64k16.f32.f16.f16"),
        (tf32(64, 32, 16), "m64n32k8.f32.tf32.tf32"),
        (i8(64, 32, 64, "unsigned", "signed"), "m64n32k32.s32.u8.s8"),
        (fp8(64, 32, 64, "f8E5M2"), "m64n32k32.f32.e5m2.e5m2"),
    ];
    for (src, form) in cases {
        let text = llvm(&src, "sm_90a", None).unwrap();
        assert_eq!(wgmma_form(&text).as_deref(), Some(form), "{text}");
        assert!(!text.contains(NO_MMA), "{form}: mma.sync as well");
        // The protocol: operands made visible to the async proxy, then fence, commit, wait.
        for needle in [
            "@llvm.nvvm.fence.proxy.async.shared_cta()",
            "@llvm.nvvm.wgmma.fence.sync.aligned()",
            "@llvm.nvvm.wgmma.commit_group.sync.aligned()",
            "@llvm.nvvm.wgmma.wait_group.sync.aligned(i64 0)",
        ] {
            assert!(text.contains(needle), "{form}: no {needle}");
        }
        // Descriptors are packed with mov.b64 (an i64 add crashes ptxas 12.9).
        assert!(text.contains("mov.b64 $0, {$1, $2};"), "{form}");
        // Only 16-bit inputs read B transposed.
        let tnsp_b = if form.contains("f16") { ", 1, 1, 0, 1;" } else { "" };
        assert!(tnsp_b.is_empty() || text.contains(tnsp_b), "{form}");
    }
    // Neither sm_90 (no `a`) nor sm_80 has the instruction.
    for target in ["sm_90", "sm_80"] {
        let text = llvm(&f16(64, 64, 32), target, None).unwrap();
        assert!(wgmma_form(&text).is_none() && text.contains(NO_MMA), "{target}");
    }
}

#[test]
fn forced_wgmma_lists_its_reason() {
    let err = llvm(&f16(32, 64, 32), "sm_90a", Some("mmaf:wgmma")).unwrap_err().to_string();
    assert!(err.contains("wgmma: M = 32 is not a multiple of 64"), "{err}");
    assert!(err.contains("mma_sync: not the forced variant"), "{err}");
    let err = llvm(&f16(64, 64, 32), "sm_80", Some("mmaf:wgmma")).unwrap_err().to_string();
    assert!(err.contains("wgmma: needs sm_90a (target sm_80)"), "{err}");
}

#[test]
fn shared_memory_past_48_kib_is_dynamic() {
    let options = tileir_syntax::ParseOptions { file_name: "mm.mlir".into(), ..Default::default() };
    let big = tileir_syntax::parse_module(&f16(128, 128, 64), &options).unwrap();
    let out = compile(big, &CompileOptions { target: "sm_90a".into(), ..Default::default() }).unwrap();
    // The 128x128 f32 accumulator staged through shared memory: 64 KiB.
    assert_eq!(out.kernels[0].dynamic_smem_bytes, 128 * 128 * 4);
    let text = &out.stages.iter().find(|(n, _)| n == "llvm").unwrap().1;
    assert!(text.contains("@__tileir_dsmem_mm = external addrspace(3) global [0 x i8], align 16"), "{text}");
    let small = tileir_syntax::parse_module(&f16(64, 64, 32), &options).unwrap();
    let out = compile(small, &CompileOptions { target: "sm_90a".into(), ..Default::default() }).unwrap();
    assert_eq!(out.kernels[0].dynamic_smem_bytes, 0);
    // sm_86 allows 99 KiB per CTA: the FMA dot stages its f32 operands, 128x256 and 256x64
    // (192 KiB), in shared memory, which does not fit there.
    let src = kernel(128, 64, 256, "f32", "f32", "", "mmaf %a0, %b0, %c : tile<128x256xf32>, tile<256x64xf32>, tile<128x64xf32>");
    let big = tileir_syntax::parse_module(&src, &options).unwrap();
    let err = compile(big, &CompileOptions { target: "sm_86".into(), ..Default::default() }).unwrap_err().to_string();
    assert!(err.contains("error: kernel 'mm' needs") && err.contains("bytes of shared memory; sm_86 allows at most 101376 per CTA"), "{err}");
}

#[test]
fn aligned_operand_loads_become_tma_with_tensor_map_parameters() {
    // f16 A and B whose base pointers are known 16-byte aligned: both operands are copied by
    // TMA, each through a tensor map the launcher encodes from the array's parameters.
    let src = f16(64, 64, 32)
        .replace("%ta = make_tensor_view %A,", "%A16 = assume div_by<16>, %A : tile<ptr<f16>>\n    %ta = make_tensor_view %A16,")
        .replace("%tb = make_tensor_view %B,", "%B16 = assume div_by<16>, %B : tile<ptr<f16>>\n    %tb = make_tensor_view %B16,")
        // The operands feed the mma directly (no element-wise op between).
        .replace("    %a = addf %a0, %a0 : tile<64x32xf16>\n    %b = addf %b0, %b0 : tile<32x64xf16>\n", "")
        .replace("mmaf %a, %b, %c", "mmaf %a0, %b0, %c");
    let options = tileir_syntax::ParseOptions { file_name: "mm.mlir".into(), ..Default::default() };
    let module = tileir_syntax::parse_module(&src, &options).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
    let out = compile(module, &CompileOptions { target: "sm_90a".into(), ..Default::default() }).unwrap();
    let abi = &out.kernels[0];
    let maps = &abi.tensor_maps;
    assert_eq!(maps.len(), 2, "{maps:?}");
    // A: 64 rows x 32 columns (64 bytes: the 64-byte swizzle); B: 32 rows x 64 columns
    // (each instruction's 64 columns are 128 bytes).
    assert_eq!((maps[0].box_dims.clone(), maps[0].swizzle_bytes), (vec![64, 32], 64));
    assert_eq!((maps[1].box_dims.clone(), maps[1].swizzle_bytes), (vec![32, 64], 128));
    assert_eq!((maps[0].base, maps[1].base), (0, 1));
    use tileir_llvm::ParamOrConst::Const;
    assert_eq!(maps[0].sizes, vec![Const(64), Const(32)]);
    assert_eq!(maps[0].strides, vec![Const(32), Const(1)]);
    assert_eq!(abi.params.iter().filter(|p| p.as_str() == "tmap").count(), 2);
    let text = &out.stages.iter().find(|(n, _)| n == "llvm").unwrap().1;
    assert!(text.contains("ptr byval([128 x i8]) align 64 \"nvvm.grid_constant\" %tmap0"), "{text}");
    assert!(text.contains("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), "{text}");
    assert!(text.contains("mbarrier.arrive.expect_tx.shared.b64") && text.contains("mbarrier.try_wait.shared.b64"), "{text}");
    // Swizzled images: the scratch buffer is 1024-byte aligned.
    assert!(text.contains("align 1024"), "{text}");
    // Without the alignment fact: no TMA, and no tensor map.
    let plain = compile(tileir_syntax::parse_module(&f16(64, 64, 32), &options).unwrap(), &CompileOptions { target: "sm_90a".into(), ..Default::default() }).unwrap();
    assert!(plain.kernels[0].tensor_maps.is_empty());
}
