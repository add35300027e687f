//! The entry's optimization hints become the kernel's launch attributes (spec/003's
//! kernel-spec → NVVM table): occupancy → `nvvm.maxnreg`, `num_cta_in_cga` → `nvvm.cluster_dim`
//! past sm_89, the target's own entry overriding `default`.

use tileir_driver::{compile, CompileOptions};

const KERNEL: &str = r#"
cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>) optimization_hints=<default = {occupancy = 4}, sm_90 = {num_cta_in_cga = 2}> {
    %tv = make_tensor_view %p, shape = [1024], strides = [1] : tensor_view<1024xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(1024), tensor_view<1024xf32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %x, %t = load_view_tko weak %pv[%c0] : partition_view<tile=(1024), tensor_view<1024xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token
    %y = addf %x, %x : tile<1024xf32>
    %t2 = store_view_tko weak %y, %pv[%c0] : tile<1024xf32>, partition_view<tile=(1024), tensor_view<1024xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"#;

fn llvm_attributes(target: &str) -> String {
    let m = tileir_syntax::parse_module(KERNEL, &tileir_syntax::ParseOptions::default()).expect("parses");
    let out = compile(m, &CompileOptions { target: target.into(), ..Default::default() }).expect("compiles");
    let aa = &out.stages.iter().find(|(n, _)| n == "nv_tileaa").expect("stage").1;
    assert!(aa.contains("optimization_hints = #cuda_tile.optimization_hints<default = {occupancy = 4}, sm_90 = {num_cta_in_cga = 2}>"), "{aa}");
    let llvm = &out.stages.iter().find(|(n, _)| n == "llvm").expect("stage").1;
    llvm.lines().find(|l| l.starts_with("attributes #0")).expect("attribute group").to_string()
}

#[test]
fn occupancy_and_cluster_hints_reach_the_kernel_attributes() {
    let threads = 32 * 4;
    // 65536 registers / (4 CTAs x 128 threads) = 128 per thread.
    let sm90 = llvm_attributes("sm_90a");
    assert!(sm90.contains(&format!("\"nvvm.reqntid\"=\"{threads},1,1\"")) && sm90.contains("\"nvvm.minctasm\"=\"1\""), "{sm90}");
    assert!(sm90.contains("\"nvvm.maxnreg\"=\"128\"") && sm90.contains("\"nvvm.cluster_dim\"=\"2,1,1\""), "{sm90}");
    // sm_80: only the default entry applies, and clusters need sm_90.
    let sm80 = llvm_attributes("sm_80");
    assert!(sm80.contains("\"nvvm.maxnreg\"=\"128\"") && !sm80.contains("cluster"), "{sm80}");
}
