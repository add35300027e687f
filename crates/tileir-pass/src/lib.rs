//! tileir-pass: the pass manager.
//!
//! A pipeline is MLIR-style text: passes separated by commas, each optionally followed by
//! options in braces, options separated by spaces: `pass-a,pass-b{num-warps=4 flag=true}`.
//! [`Pipeline::parse`] checks the syntax; [`PassManager::from_pipeline`] resolves names and
//! options against a [`Registry`] (unknown names and options get a "did you mean"), and
//! its canonical text ([`PassManager::canonical`]) lists every option with its value, so
//! it can key caches and reproducers. Between passes the manager verifies the module
//! (on by default) and can snapshot the IR after each pass.
//!
//! Pass options are declared once with [`pass_options!`], which gives parsing, defaults,
//! canonical printing and a description for `--help` and Python.

#![forbid(unsafe_code)]

mod options;
mod pipeline;

pub use options::{OptionInfo, OptionValue};
pub use pipeline::{quote_option_value, Pipeline, PipelineElement, PipelineError};

use std::time::{Duration, Instant};
use tileir_ir::{print_module, Diagnostic, Diagnostics, Location, Module, PrintOptions};

/// One transformation of a module.
pub trait Pass: Send + Sync {
    /// The registered name (`convert-cuda-tile-to-tileaa`).
    fn name(&self) -> &'static str;
    /// The options in canonical text (`num-warps=4`), empty if none.
    fn options_text(&self) -> String;
    /// Runs on `module`. Errors are located diagnostics; the module may be partly rewritten
    /// on error and must not be used further.
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics>;
    /// Runs on `module`, also reporting remarks: non-fatal notes such as a recoverable
    /// missed optimization ("Failed to pipeline loop"), which leave the module valid.
    /// Passes without remarks need not override it.
    fn run_with_remarks(&self, module: &mut Module, remarks: &mut Vec<Diagnostic>) -> Result<(), Diagnostics> {
        let _ = remarks;
        self.run(module)
    }
}

/// Builds a pass from its `key=value` options (already split), or says why it cannot.
pub type PassFactory = fn(&[(String, String)]) -> Result<Box<dyn Pass>, String>;

/// What the registry knows of a pass.
pub struct PassInfo {
    /// Registered name.
    pub name: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Option descriptions.
    pub options: fn() -> Vec<OptionInfo>,
    /// Builds the pass from `key=value` options (already split).
    pub create: PassFactory,
    /// Ordering invariants this pass declares (usually the ones where it must run after
    /// another pass; a rule may name a pass that is not registered yet). Every rule of
    /// every registered pass applies to every pipeline; see [`PassManager::from_pipeline`].
    pub ordering: &'static [OrderRule],
}

/// A declared ordering invariant between two passes: when both are in a pipeline, `later`
/// must run after `earlier` (at least one `earlier` must precede every `later`). A pipeline
/// without `earlier` is fine: the IR may already be in the form it produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderRule {
    /// The pass that must run first.
    pub earlier: &'static str,
    /// The pass that must run after it.
    pub later: &'static str,
    /// The invariant, for the diagnostic.
    pub invariant: &'static str,
}

/// The explicit list of passes a pipeline may name.
pub struct Registry {
    /// All passes.
    pub passes: Vec<PassInfo>,
}

impl Registry {
    /// Looks a pass up by name.
    pub fn get(&self, name: &str) -> Option<&PassInfo> {
        self.passes.iter().find(|p| p.name == name)
    }

    /// Every ordering rule the registered passes declare, each once, in registry order.
    pub fn ordering_rules(&self) -> Vec<OrderRule> {
        let mut out: Vec<OrderRule> = Vec::new();
        for rule in self.passes.iter().flat_map(|p| p.ordering.iter()) {
            if !out.contains(rule) {
                out.push(*rule);
            }
        }
        out
    }

    /// The first element of `pipeline` listed before a pass it must run after: for some
    /// rule, the element is the rule's `later` pass, the rule's `earlier` pass appears
    /// further on, and no `earlier` precedes the element.
    pub fn check_ordering(&self, pipeline: &Pipeline) -> Result<(), PipelineError> {
        let rules = self.ordering_rules();
        let names: Vec<&str> = pipeline.elements.iter().map(|e| e.name.as_str()).collect();
        for (i, element) in pipeline.elements.iter().enumerate() {
            for rule in rules.iter().filter(|r| r.later == element.name) {
                let before = names[..i].contains(&rule.earlier);
                if !before && names[i + 1..].contains(&rule.earlier) {
                    return Err(PipelineError {
                        offset: element.offset,
                        message: format!(
                            "pass '{}' must run after '{}' (spec/001 ordering invariant: {})",
                            rule.later, rule.earlier, rule.invariant
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// The IR after one pass.
#[derive(Clone, Debug)]
pub struct IrSnapshot {
    /// The pass that just ran.
    pub after_pass: String,
    /// The printed module.
    pub text: String,
}

/// Why a pipeline run stopped.
#[derive(Clone, Debug)]
pub struct PassFailure {
    /// The pass that failed (or after which verification failed).
    pub pass: String,
    /// True if the pass succeeded but its output did not verify (a compiler bug).
    pub verification: bool,
    /// What went wrong.
    pub diagnostics: Diagnostics,
}

/// Result of a successful run.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// IR after each pass, when snapshots are on.
    pub snapshots: Vec<IrSnapshot>,
    /// Wall time of each pass (verification excluded).
    pub timings: Vec<(String, Duration)>,
    /// Remarks the passes reported (each names the pass that made it in `RunReport::remark_passes`).
    pub remarks: Vec<Diagnostic>,
    /// The pass behind each entry of `remarks`.
    pub remark_passes: Vec<String>,
}

/// Runs a sequence of passes.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    /// Verify after every pass (default on).
    pub verify_each: bool,
    /// Snapshot the IR after every pass.
    pub snapshot_after_each: bool,
    /// How snapshots print.
    pub print_options: PrintOptions,
}

impl PassManager {
    /// Builds the passes named by `text` from `registry`. Besides unknown names and bad
    /// options, rejects a pipeline that lists a pass before one it must run after (the
    /// registry's [`OrderRule`]s; see [`Registry::check_ordering`]).
    pub fn from_pipeline(text: &str, registry: &Registry) -> Result<PassManager, PipelineError> {
        let pipeline = Pipeline::parse(text)?;
        let mut passes = Vec::new();
        for element in &pipeline.elements {
            let info = registry.get(&element.name).ok_or_else(|| {
                let names: Vec<&str> = registry.passes.iter().map(|p| p.name).collect();
                let mut message = format!("unknown pass '{}'", element.name);
                if let Some(s) = tileir_ir::op::suggest(&element.name, &names) {
                    message.push_str(&format!("; did you mean '{s}'?"));
                }
                message.push_str(&format!(" (known passes: {})", names.join(", ")));
                PipelineError { offset: element.offset, message }
            })?;
            let pass = (info.create)(&element.options)
                .map_err(|message| PipelineError { offset: element.offset, message: format!("pass '{}': {message}", info.name) })?;
            passes.push(pass);
        }
        registry.check_ordering(&pipeline)?;
        Ok(PassManager { passes, verify_each: true, snapshot_after_each: false, print_options: PrintOptions::default() })
    }

    /// Canonical pipeline text: every pass with every option.
    pub fn canonical(&self) -> String {
        self.passes
            .iter()
            .map(|p| {
                let opts = p.options_text();
                if opts.is_empty() {
                    p.name().to_string()
                } else {
                    format!("{}{{{opts}}}", p.name())
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Runs every pass in order on `module`.
    pub fn run(&self, module: &mut Module) -> Result<RunReport, PassFailure> {
        let mut report = RunReport::default();
        for pass in &self.passes {
            let start = Instant::now();
            let mut remarks = Vec::new();
            pass.run_with_remarks(module, &mut remarks)
                .map_err(|diagnostics| PassFailure { pass: pass.name().to_string(), verification: false, diagnostics })?;
            report.remark_passes.extend(remarks.iter().map(|_| pass.name().to_string()));
            report.remarks.extend(remarks);
            report.timings.push((pass.name().to_string(), start.elapsed()));
            if self.verify_each {
                if let Err(diags) = tileir_verify::verify(module) {
                    let mut all = vec![Diagnostic::error(
                        Location::Unknown,
                        format!("internal error: the output of pass '{}' does not verify", pass.name()),
                    )];
                    all.extend(diags.0);
                    return Err(PassFailure { pass: pass.name().to_string(), verification: true, diagnostics: Diagnostics(all) });
                }
            }
            if self.snapshot_after_each {
                report.snapshots.push(IrSnapshot { after_pass: pass.name().to_string(), text: print_module(module, self.print_options) });
            }
        }
        Ok(report)
    }
}

#[cfg(test)]
mod ordering_tests {
    use super::*;

    struct Nop(&'static str);
    impl Pass for Nop {
        fn name(&self) -> &'static str {
            self.0
        }
        fn options_text(&self) -> String {
            String::new()
        }
        fn run(&self, _: &mut Module) -> Result<(), Diagnostics> {
            Ok(())
        }
    }

    const ASYNC_RULES: &[OrderRule] = &[
        OrderRule { earlier: "queue", later: "async", invariant: "Queue-to-pipeline rewrite must run before async materialization" },
        OrderRule { earlier: "async", later: "schedule", invariant: "Async materialization must run before schedule materialization" },
    ];
    const REGION_RULES: &[OrderRule] =
        &[OrderRule { earlier: "unspec", later: "region", invariant: "Pipeline-region optimization must run after producer/consumer regions are in their final form" }];

    fn info(name: &'static str, ordering: &'static [OrderRule], create: PassFactory) -> PassInfo {
        PassInfo { name, summary: "", options: Vec::new, create, ordering }
    }

    fn registry() -> Registry {
        Registry {
            passes: vec![
                info("queue", &[], |_| Ok(Box::new(Nop("queue")))),
                info("async", ASYNC_RULES, |_| Ok(Box::new(Nop("async")))),
                info("unspec", &[], |_| Ok(Box::new(Nop("unspec")))),
                info("region", REGION_RULES, |_| Ok(Box::new(Nop("region")))),
                info("other", &[], |_| Ok(Box::new(Nop("other")))),
            ],
        }
    }

    fn err(text: &str) -> PipelineError {
        PassManager::from_pipeline(text, &registry()).err().expect("rejected")
    }

    #[test]
    fn out_of_order_pipelines_are_rejected_with_both_names_and_the_invariant() {
        let e = err("other,async,queue");
        assert_eq!(e.offset, 6);
        assert_eq!(
            e.message,
            "pass 'async' must run after 'queue' (spec/001 ordering invariant: Queue-to-pipeline rewrite must run before async materialization)"
        );
        assert!(e.to_string().starts_with("invalid pass pipeline at offset 6: pass 'async' must run after 'queue'"));
        let e = err("region,unspec");
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("pass 'region' must run after 'unspec' (spec/001 ordering invariant: Pipeline-region optimization"));
    }

    #[test]
    fn a_rule_may_name_an_unregistered_pass() {
        // "schedule" is not registered: the rule never fires, and naming it is an unknown pass.
        assert!(err("schedule,async").message.starts_with("unknown pass 'schedule'"));
        assert!(registry().ordering_rules().iter().any(|r| r.later == "schedule"));
    }

    #[test]
    fn in_order_and_prerequisite_absent_pipelines_are_accepted() {
        for ok in ["queue,async,unspec,region", "async", "region", "async,region", "other,region,other", "queue,async,queue", "unspec,region,unspec"] {
            let pm = PassManager::from_pipeline(ok, &registry()).unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert_eq!(pm.canonical(), ok);
        }
    }

    #[test]
    fn the_first_violation_is_reported() {
        let e = err("region,async,unspec,queue");
        assert!(e.message.starts_with("pass 'region' must run after 'unspec'"), "{}", e.message);
        assert_eq!(e.offset, 0);
    }
}
