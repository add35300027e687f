//! tileir-driver: compiles a cuda_tile module to LLVM IR text.
//!
//! [`compile`] verifies the input, runs the pass pipeline (verifying between passes),
//! keeps the printed IR of every stage, and writes LLVM IR with the kernels' launch ABI.
//! The Python package turns that text into PTX (llvmlite) and a cubin (ptxas); this crate
//! never links LLVM.

#![forbid(unsafe_code)]

use std::time::Instant;
use tileir_ir::{print_module, Diagnostics, Module, PrintOptions};
use tileir_llvm::{KernelAbi, LlvmOptions};
use tileir_pass::{PassFailure, PassManager, PipelineError};

pub use tileir_transforms::{default_pipeline, DEFAULT_PIPELINE};

/// Targets the LLVM writer accepts.
pub const TARGETS: &[&str] = &["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"];

/// What to compile for, and how.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// GPU architecture (`sm_90a`).
    pub target: String,
    /// Pass pipeline text; empty means [`default_pipeline`] of the target.
    pub pipeline: String,
    /// Print locations in stage texts.
    pub debug_info: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { target: "sm_90a".into(), pipeline: String::new(), debug_info: false }
    }
}

/// Everything a compile produced.
#[derive(Clone, Debug)]
pub struct CompileOutput {
    /// Printed IR by stage, in order: `cuda_tile`, then one per pass (`nv_tileaa`,
    /// `nv_tileas` for the conversions, the pass name otherwise), then `llvm`.
    pub stages: Vec<(String, String)>,
    /// Kernels defined, with their launch ABI.
    pub kernels: Vec<KernelAbi>,
    /// The pipeline that ran, in canonical form.
    pub canonical_pipeline: String,
    /// Seconds spent per step (`verify`, each pass, `llvm-ir`).
    pub timings: Vec<(String, f64)>,
}

/// Why a compile failed.
#[derive(Clone, Debug)]
pub enum CompileError {
    /// The target is not one tileir can generate code for.
    Target(String),
    /// The input does not verify.
    Verification(Diagnostics),
    /// The pipeline text is malformed or names unknown passes/options.
    Pipeline(PipelineError),
    /// A pass failed (or its output did not verify).
    Pass(PassFailure),
    /// The LLVM writer cannot express something in the module.
    Codegen(Diagnostics),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Target(t) => write!(f, "unsupported target '{t}'; expected one of: {}", TARGETS.join(", ")),
            CompileError::Verification(d) => write!(f, "{d}"),
            CompileError::Pipeline(e) => write!(f, "{e}"),
            CompileError::Pass(p) => write!(f, "pass '{}' failed:\n{}", p.pass, p.diagnostics),
            CompileError::Codegen(d) => write!(f, "{d}"),
        }
    }
}

/// Stage name for the IR printed after `pass`.
/// The stage a pass's output is shown as. The nv_tileas-level passes up to software
/// pipelining all refine one stage, "nv_tileas" (the last of them wins: the scheduled
/// pipeline, its stage count and tags); the general backend's register lowering of
/// pipelines is its own stage, the IR the LLVM writer reads.
fn stage_name(pass: &str) -> String {
    use tileir_transforms as t;
    match pass {
        t::to_tileaa::NAME => "nv_tileaa".into(),
        t::to_tileas::NAME
        | t::assign_layouts::NAME
        | t::queue_to_pipeline::NAME
        | t::materialize_async::NAME
        | t::unspecialized_pipeline::NAME
        | t::materialize_schedule::NAME
        | t::materialize_convert_layout::NAME
        | t::optimize_pipeline_region::NAME => {
            "nv_tileas".into()
        }
        t::pipelines_to_registers::NAME => "nv_tileas-registers".into(),
        other => other.to_string(),
    }
}

/// Resolves and canonicalizes a pipeline without running it.
pub fn canonical_pipeline(text: &str) -> Result<String, PipelineError> {
    let text = if text.trim().is_empty() { DEFAULT_PIPELINE } else { text };
    Ok(PassManager::from_pipeline(text, &tileir_transforms::registry())?.canonical())
}

/// The passes of a compile without the LLVM writer: the stage texts (as
/// [`CompileOutput::stages`] names them, without "llvm"), the canonical pipeline and the
/// pass timings. For inspecting and interpreting lowered IR, including forms the LLVM
/// writer cannot emit yet (agents, TMA).
pub fn lower(mut module: Module, options: &CompileOptions) -> Result<CompileOutput, CompileError> {
    let (stages, canonical_pipeline, timings) = run_passes(&mut module, options)?;
    Ok(CompileOutput { stages, kernels: Vec::new(), canonical_pipeline, timings })
}

/// Stage texts, the canonical pipeline and the pass timings of a pass run.
type PassRun = (Vec<(String, String)>, String, Vec<(String, f64)>);

/// Verifies `module`, runs the pipeline of `options` on it and snapshots every stage.
fn run_passes(module: &mut Module, options: &CompileOptions) -> Result<PassRun, CompileError> {
    let print = PrintOptions { generic: false, debug_info: options.debug_info };
    let default = tileir_transforms::default_pipeline(&options.target);
    let pipeline_text = if options.pipeline.trim().is_empty() { default.as_str() } else { options.pipeline.as_str() };
    let mut pm = PassManager::from_pipeline(pipeline_text, &tileir_transforms::registry()).map_err(CompileError::Pipeline)?;
    pm.snapshot_after_each = true;
    pm.print_options = print;
    let mut timings = Vec::new();
    let start = Instant::now();
    tileir_verify::verify(module).map_err(CompileError::Verification)?;
    timings.push(("verify".to_string(), start.elapsed().as_secs_f64()));
    let mut stages = vec![("cuda_tile".to_string(), print_module(module, print))];
    let report = pm.run(module).map_err(CompileError::Pass)?;
    for (name, t) in &report.timings {
        timings.push((name.clone(), t.as_secs_f64()));
    }
    for snap in report.snapshots {
        let name = stage_name(&snap.after_pass);
        match stages.iter_mut().find(|(n, _)| *n == name) {
            Some(stage) => stage.1 = snap.text,
            None => stages.push((name, snap.text)),
        }
    }
    Ok((stages, pm.canonical(), timings))
}

/// Compiles `module` (cuda_tile) down to LLVM IR.
pub fn compile(mut module: Module, options: &CompileOptions) -> Result<CompileOutput, CompileError> {
    if !TARGETS.contains(&options.target.as_str()) {
        return Err(CompileError::Target(options.target.clone()));
    }
    let (mut stages, canonical_pipeline, mut timings) = run_passes(&mut module, options)?;
    let start = Instant::now();
    let llvm = tileir_llvm::write_module(&module, &LlvmOptions { target: options.target.clone() }).map_err(CompileError::Codegen)?;
    timings.push(("llvm-ir".to_string(), start.elapsed().as_secs_f64()));
    stages.push(("llvm".to_string(), llvm.text));
    Ok(CompileOutput { stages, kernels: llvm.kernels, canonical_pipeline, timings })
}

