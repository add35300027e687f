//! The async pipeline passes on hand-written IR: the materialize-async reconciler's
//! diagnostic, and materialize-async / unspecialized-pipeline leaving what they must not
//! touch alone.

use tileir_ir::{Module, OpKind, TileAsOp};
use tileir_transforms::materialize_async::{check_one_producer_per_pipeline, TWO_PRODUCERS};

fn parse(src: &str) -> Module {
    let opts = tileir_syntax::ParseOptions { file_name: "t.mlir".into(), ..Default::default() };
    tileir_syntax::parse_module(src, &opts).unwrap_or_else(|d| panic!("parse failed: {d:?}\n{src}"))
}

const P: &str = "!nv_tileas.pipeline<stages=2, consumers=1, [f32]>";

fn two_producers() -> String {
    let i = format!("!nv_tileas.iterator<{P}>");
    let produce = |v: &str| {
        format!(
            r#"  "nv_tileas.async.pipeline.produce_one"(%pipe, %it) ({{
  ^bb0(%old: f32):
    %c = "cuda_tile.constant"() <{{value = dense<{v}> : tensor<f32>}}> : () -> f32
    "nv_tileas.async.pipeline.yield"(%c) : (f32) -> ()
  }}) : ({P}, {i}) -> ()
"#
        )
    };
    format!(
        r#""nv_tileaa.func"() <{{function_type = () -> (), kernel, sym_name = "k"}}> ({{
  %pipe = "nv_tileas.async.pipeline.create_pipeline"() : () -> {P}
  %it = "nv_tileas.async.pipeline.create_iterator"(%pipe) : ({P}) -> {i}
{}{}  "nv_tileaa.return"() : () -> ()
}}) : () -> ()
"#,
        produce("1.0"),
        produce("2.0")
    )
}

#[test]
fn two_writers_of_one_pipeline_get_the_reconciler_diagnostic() {
    let m = parse(&two_producers());
    let pipe = m.walk().into_iter().find(|&o| matches!(m.ops[o].kind, OpKind::TileAs(TileAsOp::CreatePipeline))).unwrap();
    let pv = m.ops[pipe].results[0];
    let err = check_one_producer_per_pipeline(&m, &[pv]).unwrap_err();
    assert_eq!(err.0.len(), 1);
    assert_eq!(err.0[0].message, TWO_PRODUCERS);
    assert!(TWO_PRODUCERS.ends_with("It's a bug of MaterializeAsync Pass."));
    // Pipelines the pass did not create are not its business.
    assert!(check_one_producer_per_pipeline(&m, &[]).is_ok());
}
