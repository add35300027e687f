//! Tile-primitive dispatch: the preferred variant is chosen, a variant can be forced, and
//! a forced variant that does not exist is a located error listing the variants.

use tileir_driver::{compile, CompileError, CompileOptions};

/// A row sum of a 4x256 f32 tile, stored as a 4-element column.
const ROW_SUM: &str = r#"
cuda_tile.module @kernels {
  entry @rowsum(%X: tile<ptr<f32>>, %Y: tile<ptr<f32>>) {
    %0 = make_token : token
    %1 = make_tensor_view %X, shape = [4, 256], strides = [256, 1] : tensor_view<4x256xf32, strides=[256,1]>
    %2 = make_tensor_view %Y, shape = [4], strides = [1] : tensor_view<4xf32, strides=[1]>
    %c0 = constant <i32: 0> : tile<i32>
    %3 = make_partition_view %1 : partition_view<tile=(4x256), tensor_view<4x256xf32, strides=[256,1]>>
    %4, %5 = load_view_tko weak %3[%c0, %c0] token = %0 : partition_view<tile=(4x256), tensor_view<4x256xf32, strides=[256,1]>>, tile<i32> -> tile<4x256xf32>, token
    %6 = reduce %4 dim=1 identities=[0.000000e+00 : f32] : tile<4x256xf32> -> tile<4xf32>
      (%a: tile<f32>, %b: tile<f32>) {
        %7 = addf %a, %b : tile<f32>
        yield %7 : tile<f32>
      }
    %8 = make_partition_view %2 : partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>
    %9 = store_view_tko weak %6, %8[%c0] token = %0 : tile<4xf32>, partition_view<tile=(4), tensor_view<4xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"#;

fn llvm(pipeline: &str) -> Result<String, CompileError> {
    let options = tileir_syntax::ParseOptions { file_name: "rowsum.mlir".into(), ..Default::default() };
    let module = tileir_syntax::parse_module(ROW_SUM, &options).expect("test input parses");
    let opts = CompileOptions { pipeline: pipeline.into(), ..Default::default() };
    let out = compile(module, &opts)?;
    Ok(out.stages.iter().find(|(n, _)| n == "llvm").map(|(_, t)| t.clone()).unwrap_or_default())
}

#[test]
fn reduce_prefers_the_tree_variant() {
    let text = llvm("").unwrap();
    assert!(text.contains("llvm.nvvm.shfl.sync.bfly.i32"), "no warp shuffle in:\n{text}");
}

#[test]
fn a_forced_variant_is_used() {
    let text = llvm("convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=reduce:serial}").unwrap();
    assert!(!text.contains("shfl.sync"), "the serial variant shuffles:\n{text}");
    let stages = {
        let options = tileir_syntax::ParseOptions { file_name: "rowsum.mlir".into(), ..Default::default() };
        let module = tileir_syntax::parse_module(ROW_SUM, &options).unwrap();
        let opts = CompileOptions {
            pipeline: "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=reduce:serial}".into(),
            ..Default::default()
        };
        compile(module, &opts).unwrap().stages
    };
    let tileas = &stages.iter().find(|(n, _)| n == "nv_tileas").unwrap().1;
    assert!(tileas.contains("tileir.variant = \"serial\""), "{tileas}");
}

#[test]
fn an_unknown_forced_variant_lists_the_variants_at_the_op() {
    let err = llvm("convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=reduce:warp}").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("rowsum.mlir:10:5: error:"), "{text}");
    assert_eq!(text.matches("error:").count(), 1, "one mistake, one diagnostic: {text}");
    assert!(text.contains("tileir.variant = \"warp\" names no variant of 'reduce' (variants: tree, serial)"), "{text}");
}

#[test]
fn force_variant_names_a_cuda_tile_op() {
    let err = llvm("convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=reduction:tree}").unwrap_err();
    assert!(err.to_string().contains("'reduction' is not a cuda_tile op"), "{err}");
}

#[test]
fn tiled_loads_and_stores_prefer_vectors_and_can_be_forced_to_predicate_every_element() {
    // Without alignment facts the vectors are one element wide; the whole-tile path is
    // still taken for tiles inside the memref.
    let text = llvm("").unwrap();
    assert_eq!(text.matches("label %fast.").count(), 2, "two unpredicated paths in:\n{text}");
    let text = llvm("convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=tiled_load:predicated;nv_tileas.tiled_store:predicated}").unwrap();
    assert!(!text.contains("%fast."), "an unpredicated path in:\n{text}");
    assert!(text.contains("ld.global.b32") && text.contains("st.global.b32"), "no predicated element access in:\n{text}");
}

#[test]
fn a_forced_cp_async_load_without_alignment_facts_says_why_at_the_load() {
    // The hand-written kernel's pointer carries no `assume div_by<16>`: its base alignment
    // is unknown, so 16-byte cp.async chunks cannot be proven aligned.
    let err = llvm("convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=tiled_load:cp_async}").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("rowsum.mlir:9:"), "{text}");
    assert!(
        text.contains("no lowering of 'tiled_load' applies on sm_90a: vector: not the forced variant; cp_async: the memref's base or outer strides are not known to be multiples of 16 bytes; predicated: not the forced variant"),
        "{text}"
    );
    let err = llvm("convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas{force-variant=tiled_store:cp_async}").unwrap_err();
    assert!(err.to_string().contains("tileir.variant = \"cp_async\" names no variant of 'tiled_store' (variants: vector, predicated)"), "{err}");
}
