//! spec/001's "Ordering Invariants" as [`OrderRule`]s, attached to the registry entries
//! (each rule to one entry; every registered rule applies to every pipeline, so a rule may
//! name a pass that is not registered yet, such as `tileas-materialize-schedule`).
//! `tileir_pass::PassManager::from_pipeline` rejects a pipeline that lists a rule's
//! `later` pass before its `earlier` one; a pipeline without the `earlier` pass is fine.

use tileir_pass::OrderRule;

use crate::{
    assign_layouts, materialize_async, optimize_pipeline_region, pipelines_to_registers, queue_to_pipeline, to_tileas,
    unspecialized_pipeline,
};

/// Schedule materialization (not registered yet).
pub const MATERIALIZE_SCHEDULE: &str = "tileas-materialize-schedule";
/// Convert-layout materialization (`materialize_convert_layout`).
pub const MATERIALIZE_CONVERT_LAYOUT: &str = "tileas-materialize-convert-layout";

const QUEUE_FIRST: &str = "Queue-to-pipeline rewrite must run before async materialization";
const ASYNC_BEFORE_SCHEDULE: &str = "Async materialization must run before schedule materialization";
const LAYOUT_BEFORE_SCHEDULE: &str = "Convert-layout materialization must run before schedule consumers rely on final stage counts";
const REGION_LAST: &str = "Pipeline-region optimization must run after producer/consumer regions are in their final form";

/// `tileas-materialize-async`: after queue-to-pipeline (run on its own or inside
/// `convert-tileaa-to-tileas`), before schedule materialization and its consumer, the
/// unspecialized pipeline (which expands the stage tags async materialization writes).
pub const MATERIALIZE_ASYNC: &[OrderRule] = &[
    OrderRule { earlier: queue_to_pipeline::NAME, later: materialize_async::NAME, invariant: QUEUE_FIRST },
    OrderRule { earlier: to_tileas::NAME, later: materialize_async::NAME, invariant: QUEUE_FIRST },
    OrderRule { earlier: materialize_async::NAME, later: MATERIALIZE_SCHEDULE, invariant: ASYNC_BEFORE_SCHEDULE },
    OrderRule { earlier: materialize_async::NAME, later: unspecialized_pipeline::NAME, invariant: ASYNC_BEFORE_SCHEDULE },
];

/// `tileas-unspecialized-pipeline` and schedule materialization rely on final stage counts:
/// convert-layout materialization comes first.
pub const UNSPECIALIZED_PIPELINE: &[OrderRule] = &[
    OrderRule { earlier: MATERIALIZE_CONVERT_LAYOUT, later: MATERIALIZE_SCHEDULE, invariant: LAYOUT_BEFORE_SCHEDULE },
    OrderRule { earlier: MATERIALIZE_CONVERT_LAYOUT, later: unspecialized_pipeline::NAME, invariant: LAYOUT_BEFORE_SCHEDULE },
];

/// `tileas-optimize-pipeline-region`: after the unspecialized pipeline (D11 → D13).
pub const OPTIMIZE_PIPELINE_REGION: &[OrderRule] =
    &[OrderRule { earlier: unspecialized_pipeline::NAME, later: optimize_pipeline_region::NAME, invariant: REGION_LAST }];

const REGISTERS_LAST: &str = "tileir: pipelines are lowered to registers once their schedule and regions are final";

/// `tileas-pipelines-to-registers` (tileir's general-backend lowering) consumes the final
/// pipelined form: after software pipelining and region optimization.
pub const PIPELINES_TO_REGISTERS: &[OrderRule] = &[
    OrderRule { earlier: unspecialized_pipeline::NAME, later: pipelines_to_registers::NAME, invariant: REGISTERS_LAST },
    OrderRule { earlier: optimize_pipeline_region::NAME, later: pipelines_to_registers::NAME, invariant: REGISTERS_LAST },
    OrderRule { earlier: MATERIALIZE_SCHEDULE, later: pipelines_to_registers::NAME, invariant: REGISTERS_LAST },
];

const LAYOUTS_BEFORE_PIPELINES: &str =
    "tileir: register layouts are assigned to nv_tileas tiles before async materialization copies tile types into pipelines";

/// `tileas-assign-layouts` re-types tiles that `convert-tileaa-to-tileas` made, before
/// `tileas-materialize-async` puts loaded tiles' types into pipeline types (which the pass
/// does not rewrite).
pub const ASSIGN_LAYOUTS: &[OrderRule] = &[
    OrderRule { earlier: to_tileas::NAME, later: assign_layouts::NAME, invariant: LAYOUTS_BEFORE_PIPELINES },
    OrderRule { earlier: assign_layouts::NAME, later: materialize_async::NAME, invariant: LAYOUTS_BEFORE_PIPELINES },
];
