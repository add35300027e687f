//! Mapping Rust outcomes to `tileir.errors` (the hierarchy is defined in Python, once).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;
use tileir_driver::CompileError;
use tileir_ir::{Diagnostic, Diagnostics};

thread_local! {
    /// The message and source position of the last panic on this thread.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records panics instead of printing them: the guard reports them as exceptions.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let payload = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "<non-string panic payload>".into());
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{payload}{at}")));
        }));
    });
}

fn errors_module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    PyModule::import(py, "tileir.errors")
}

/// Runs `work`; a panic becomes `InternalCompilerError` with `reproducer()`'s text.
pub fn guard<T>(py: Python<'_>, reproducer: impl FnOnce() -> String, work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(r) => r,
        Err(_) => {
            let what = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "unknown panic".into());
            let repro = reproducer();
            static N: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "tileir-crash-{}-{}.mlir",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let path_text = std::fs::write(&path, &repro).ok().map(|_| path.display().to_string());
            let message = format!("internal compiler error: {what}\nThis is a bug in tileir; please report it with the reproducer.");
            let cls = errors_module(py)?.getattr("InternalCompilerError")?;
            let exc = cls.call1((message, repro, path_text))?;
            Err(PyErr::from_value(exc))
        }
    }
}

fn py_diagnostic<'py>(py: Python<'py>, d: &Diagnostic) -> PyResult<Bound<'py, PyAny>> {
    let cls = errors_module(py)?.getattr("Diagnostic")?;
    let (file, line, col) = match d.loc.file_line_col() {
        Some((f, l, c)) => (Some(f.to_string()), Some(l), Some(c)),
        None => (None, None, None),
    };
    let notes: Vec<Bound<'py, PyAny>> = d.notes.iter().map(|n| py_diagnostic(py, n)).collect::<PyResult<_>>()?;
    cls.call1((d.severity.as_str(), d.message.clone(), file, line, col, PyTuple::new(py, notes)?))
}

fn make_error(py: Python<'_>, class: &str, message: String, diags: &[Diagnostic]) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let items: Vec<Bound<'_, PyAny>> = diags.iter().map(|d| py_diagnostic(py, d)).collect::<PyResult<_>>()?;
        let cls = errors_module(py)?.getattr(class)?;
        let exc = cls.call1((message.clone(), PyTuple::new(py, items)?))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| PyRuntimeError::new_err(format!("{message} (and tileir.errors could not be loaded: {e})")))
}

/// `VerificationError` from diagnostics.
pub fn verification_error(py: Python<'_>, headline: &str, d: &Diagnostics) -> PyErr {
    make_error(py, "VerificationError", format!("{headline}:\n{d}"), &d.0)
}

/// A parse failure as `ParseError`.
pub fn parse_error(py: Python<'_>, diags: &[tileir_ir::Diagnostic]) -> PyErr {
    let text: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    make_error(py, "ParseError", format!("the input does not parse:\n{}", text.join("\n")), diags)
}

/// A bytecode read or write failure as `BytecodeError` (offset in the message).
pub fn bytecode_error(py: Python<'_>, e: &tileir_bytecode::BytecodeError) -> PyErr {
    make_error(py, "BytecodeError", e.to_string(), &[])
}

/// Maps a driver error to its Python class.
pub fn to_py_error(py: Python<'_>, e: CompileError) -> PyErr {
    match e {
        CompileError::Verification(d) => verification_error(py, "the input does not verify", &d),
        CompileError::Pipeline(p) => make_error(py, "PipelineError", p.to_string(), &[]),
        CompileError::Target(_) => make_error(py, "CompilationError", e.to_string(), &[]),
        CompileError::Pass(f) => {
            make_error(py, "CompilationError", format!("pass '{}' failed:\n{}", f.pass, f.diagnostics), &f.diagnostics.0)
        }
        CompileError::Codegen(d) => make_error(py, "CompilationError", format!("cannot generate LLVM IR:\n{d}"), &d.0),
    }
}

/// A builder misuse (bad op name, attribute or operand) as `CompilationError`.
pub fn builder_error(py: Python<'_>, message: String) -> PyErr {
    make_error(py, "CompilationError", message, &[])
}
