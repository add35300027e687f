//! tileir-transforms: the passes of tileir and the [`registry`] that names them.
//!
//! - `convert-cuda-tile-to-tileaa` ([`to_tileaa`]): public cuda_tile → alias-aware
//!   nv_tileaa. Kernel parameters become scalars and address-space pointers, tensor views
//!   become memrefs (with the base alignment `assume div_by` promises), partition-view
//!   loads and stores become token-ordered `tiled_load` / `tiled_store`.
//! - `convert-tileaa-to-tileas` ([`to_tileas`]): nv_tileaa → operational nv_tileas. Picks
//!   the kernel's warp count, gives every tile a register layout, and turns tiled memory
//!   ops into layout-aware nv_tileas ops with the widest safe vector width.
//!
//! - `tileas-queue-to-pipeline` ([`queue_to_pipeline`]): nv_tileaa queues and `execute`
//!   → nv_tileas `create_pipeline`, `produce_one`/`consume_one` with SSA iterators threaded
//!   through `for`/`if`, and `agent_switch`.
//!
//! - `fuse-fma` ([`fuse_fma`]): `addf`/`subf` of a single-use `mulf` → `fma`.
//! - `canonicalize` ([`canonicalize`]): MLIR's greedy canonicalizer with the cuda_tile folds
//!   and patterns (dead code, constant hoisting, `if`/`select` simplification).
//! - `loop-split` ([`loop_split`]): splits a `for` where an `if` on its induction variable
//!   flips.
//! - `synthesize-debug-info-scopes` ([`debug_scopes`]): `di_subprogram` scopes and `di_loc`
//!   locations for functions that only have file locations.
//!
//! Every pass keeps each op's location on the ops it creates.

#![forbid(unsafe_code)]

pub mod canonicalize;
pub mod debug_scopes;
pub mod fuse_fma;
pub mod loop_split;
pub mod materialize_async;
pub mod materialize_convert_layout;
pub mod materialize_schedule;
pub mod assign_layouts;
mod fragment_layouts;
pub mod optimize_pipeline_region;
mod pass_order;
pub mod pipelines_to_registers;
pub mod queue_to_pipeline;
mod pipeline_util;
pub mod to_tileaa;
pub mod token_order;
pub mod to_tileas;
pub mod unspecialized_pipeline;

use tileir_pass::{PassInfo, Registry};

/// The registry of every pass tileir has (an explicit list: no link-time registration).
pub fn registry() -> Registry {
    Registry {
        passes: vec![
            PassInfo {
                name: canonicalize::NAME,
                ordering: &[],
                summary: "Greedy canonicalization: folds, dead-code removal, if/select simplification, constant hoisting",
                options: canonicalize::CanonicalizeOptions::describe,
                create: |opts| {
                    Ok(Box::new(canonicalize::Canonicalize { options: canonicalize::CanonicalizeOptions::parse(opts)? }))
                },
            },
            PassInfo {
                name: fuse_fma::NAME,
                ordering: &[],
                summary: "Fuse addf/subf of a single-use mulf into fma (not value-preserving: one rounding)",
                options: fuse_fma::FuseFmaOptions::describe,
                create: |opts| Ok(Box::new(fuse_fma::FuseFma { options: fuse_fma::FuseFmaOptions::parse(opts)? })),
            },
            PassInfo {
                name: token_order::NAME,
                ordering: &[],
                summary: "Thread memory-ordering tokens through accesses built unordered, per alias set (cuTile's token order)",
                options: token_order::TokenOrderOptions::describe,
                create: |opts| Ok(Box::new(token_order::TokenOrder { options: token_order::TokenOrderOptions::parse(opts)? })),
            },
            PassInfo {
                name: loop_split::NAME,
                ordering: &[],
                summary: "Split a for loop where an if on its induction variable flips",
                options: loop_split::LoopSplitOptions::describe,
                create: |opts| Ok(Box::new(loop_split::LoopSplit { options: loop_split::LoopSplitOptions::parse(opts)? })),
            },
            PassInfo {
                name: debug_scopes::NAME,
                ordering: &[],
                summary: "Give every function without debug scopes a di_subprogram and di_loc locations",
                options: debug_scopes::SynthesizeDebugInfoScopesOptions::describe,
                create: |opts| {
                    Ok(Box::new(debug_scopes::SynthesizeDebugInfoScopes {
                        options: debug_scopes::SynthesizeDebugInfoScopesOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: to_tileaa::NAME,
                ordering: &[],
                summary: "Lower cuda_tile to nv_tileaa (memrefs, tokens, program ids)",
                options: to_tileaa::ToTileAaOptions::describe,
                create: |opts| Ok(Box::new(to_tileaa::ConvertCudaTileToTileAa { options: to_tileaa::ToTileAaOptions::parse(opts)? })),
            },
            PassInfo {
                name: queue_to_pipeline::NAME,
                ordering: &[],
                summary: "Rewrite nv_tileaa queues and execute into nv_tileas async pipelines and agent_switch, threading iterators through for/if",
                options: queue_to_pipeline::QueueToPipelineOptions::describe,
                create: |opts| {
                    Ok(Box::new(queue_to_pipeline::QueueToPipeline {
                        options: queue_to_pipeline::QueueToPipelineOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: materialize_async::NAME,
                ordering: pass_order::MATERIALIZE_ASYNC,
                summary: "Turn loop loads issuable ahead of time into produce_one_async/consume_one pairs over an async pipeline",
                options: materialize_async::MaterializeAsyncOptions::describe,
                create: |opts| {
                    Ok(Box::new(materialize_async::MaterializeAsync {
                        options: materialize_async::MaterializeAsyncOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: materialize_schedule::NAME,
                ordering: &[],
                summary: materialize_schedule::DESCRIPTION,
                options: materialize_schedule::MaterializeScheduleOptions::describe,
                create: |opts| {
                    Ok(Box::new(materialize_schedule::MaterializeSchedule::new(
                        materialize_schedule::MaterializeScheduleOptions::parse(opts)?,
                    )?))
                },
            },
            PassInfo {
                name: materialize_convert_layout::NAME,
                ordering: &[],
                summary: "Decompose nv_tileas.convert_layout into the most efficient feasible plan: a direct conversion, warp shuffles, or alloc_tensor/view/copy/convert_layout through shared memory",
                options: materialize_convert_layout::MaterializeConvertLayoutOptions::describe,
                create: |opts| {
                    Ok(Box::new(materialize_convert_layout::MaterializeConvertLayout {
                        options: materialize_convert_layout::MaterializeConvertLayoutOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: unspecialized_pipeline::NAME,
                ordering: pass_order::UNSPECIALIZED_PIPELINE,
                summary: "Software-pipeline single-agent loops: prologue, kernel with the producer num-stages-1 iterations ahead, epilogue drain",
                options: unspecialized_pipeline::UnspecializedPipelineOptions::describe,
                create: |opts| {
                    Ok(Box::new(unspecialized_pipeline::UnspecializedPipeline {
                        options: unspecialized_pipeline::UnspecializedPipelineOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: optimize_pipeline_region::NAME,
                ordering: pass_order::OPTIMIZE_PIPELINE_REGION,
                summary: optimize_pipeline_region::DESCRIPTION,
                options: optimize_pipeline_region::OptimizePipelineRegionOptions::describe,
                create: |opts| {
                    Ok(Box::new(optimize_pipeline_region::OptimizePipelineRegion {
                        options: optimize_pipeline_region::OptimizePipelineRegionOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: pipelines_to_registers::NAME,
                ordering: pass_order::PIPELINES_TO_REGISTERS,
                summary: "Lower single-agent pipelines of register values to SSA: in-flight entries become loop-carried values",
                options: pipelines_to_registers::PipelinesToRegistersOptions::describe,
                create: |opts| {
                    Ok(Box::new(pipelines_to_registers::PipelinesToRegisters {
                        options: pipelines_to_registers::PipelinesToRegistersOptions::parse(opts)?,
                    }))
                },
            },
            PassInfo {
                name: assign_layouts::NAME,
                ordering: pass_order::ASSIGN_LAYOUTS,
                summary: "Choose register layouts per value: tiled loads and stores whose contiguous memory dimension is not the last get a layout that vectorizes along it, propagated through their users, with convert_layout where a user needs the old one",
                options: assign_layouts::AssignLayoutsOptions::describe,
                create: |opts| {
                    Ok(Box::new(assign_layouts::AssignLayouts { options: assign_layouts::AssignLayoutsOptions::parse(opts)? }))
                },
            },
            PassInfo {
                name: to_tileas::NAME,
                ordering: &[],
                summary: "Lower nv_tileaa to nv_tileas (warp count, register layouts, vectorized memory ops)",
                options: to_tileas::ToTileAsOptions::describe,
                create: |opts| Ok(Box::new(to_tileas::ConvertTileAaToTileAs { options: to_tileas::ToTileAsOptions::parse(opts)? })),
            },
        ],
    }
}

/// The default lowering pipeline from cuda_tile to nv_tileas: the conversions, then
/// single-agent software pipelining of loop loads (two stages: each load issued one
/// iteration ahead; the drain predicated rather than peeled, which keeps one copy of the
/// loop body for LLVM) and its lowering to loop-carried registers for the general backend.
pub const DEFAULT_PIPELINE: &str = "convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas,tileas-assign-layouts,tileas-materialize-async,tileas-unspecialized-pipeline{num-stages=2 peel-epilogue=false max-inflight-bytes=64},tileas-optimize-pipeline-region,tileas-pipelines-to-registers";

/// The default pipeline for `target`: on sm_90a, loads that only feed an mma stay in place
/// (`tileas-materialize-async{keep-mma-operands=true}`), for the backend copies them by
/// TMA and double-buffers the loop itself.
pub fn default_pipeline(target: &str) -> String {
    if target == "sm_90a" {
        DEFAULT_PIPELINE
            .replacen("tileas-assign-layouts,", "tileas-assign-layouts{mma-fragments=true},", 1)
            .replacen("tileas-materialize-async,", "tileas-materialize-async{keep-mma-operands=true},", 1)
    } else {
        DEFAULT_PIPELINE.to_string()
    }
}
