//! tileir-py: the native module `tileir._native`. Conversion and error mapping only;
//! compiler logic lives in the pure-Rust crates.
//!
//! Every entry point runs its Rust work inside [`guard`], which turns a panic into
//! `tileir.errors.InternalCompilerError` carrying a reproducer (the input IR and the
//! pipeline), so pyo3's `PanicException` never reaches Python. Long work runs with the
//! GIL released.

mod builder;
mod emu;
mod errors;
mod interp;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tileir_driver::{compile as drive, CompileOptions};
use tileir_ir::{print_module, Module, PrintOptions};

pub(crate) use errors::{guard, to_py_error};

/// A tileir module (any dialect).
#[pyclass(name = "Module", module = "tileir._native", frozen)]
pub struct PyModuleIr {
    pub(crate) inner: Module,
}

#[pymethods]
impl PyModuleIr {
    /// Custom-form text.
    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        let m = &self.inner;
        guard(py, || reproducer_of(m, ""), || Ok(print_module(m, PrintOptions::default())))
    }

    /// Text in custom (default) or generic form, optionally with locations.
    #[pyo3(signature = (generic = false, debug_info = false))]
    fn to_text(&self, py: Python<'_>, generic: bool, debug_info: bool) -> PyResult<String> {
        let m = &self.inner;
        guard(py, || reproducer_of(m, ""), || Ok(print_module(m, PrintOptions { generic, debug_info })))
    }

    /// cuda_tile bytecode of this module at `version` ("13.1", "13.2", "13.3"; default 13.3).
    /// Raises `BytecodeError` naming what the version cannot encode.
    #[pyo3(signature = (version = "13.3".to_string()))]
    fn to_bytecode<'py>(&self, py: Python<'py>, version: String) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let m = &self.inner;
        let result = guard(py, || reproducer_of(m, "to_bytecode"), || {
            Ok(py.detach(|| tileir_bytecode::parse_version(&version).and_then(|v| tileir_bytecode::write(m, v))))
        })?;
        match result {
            Ok(bytes) => Ok(pyo3::types::PyBytes::new(py, &bytes)),
            Err(e) => Err(errors::bytecode_error(py, &e)),
        }
    }

    /// Names of the kernels (`entry` ops) and test functions, in order.
    fn entries(&self) -> Vec<String> {
        let m = &self.inner;
        m.walk()
            .into_iter()
            .filter_map(|op| m.ops[op].kind.cuda_tile())
            .filter(|ct| matches!(ct.op, tileir_ir::CtOp::Entry | tileir_ir::CtOp::TestingFunc))
            .filter_map(|ct| ct.str("sym_name").map(str::to_string))
            .collect()
    }

    /// Parameter types (short text, e.g. `tile<ptr<f32>>`) of the entry (or test function)
    /// named `name`, in order; raises KeyError if there is none.
    fn entry_params(&self, name: &str) -> PyResult<Vec<String>> {
        let m = &self.inner;
        for op in m.walk() {
            let Some(ct) = m.ops[op].kind.cuda_tile() else { continue };
            if !matches!(ct.op, tileir_ir::CtOp::Entry | tileir_ir::CtOp::TestingFunc) || ct.str("sym_name") != Some(name) {
                continue;
            }
            if let Some(block) = m.entry_block(op, 0) {
                return Ok(m.blocks[block].args.iter().map(|&a| m.types.display(m.value_type(a), true)).collect());
            }
        }
        Err(pyo3::exceptions::PyKeyError::new_err(format!("no entry named '{name}' in the module")))
    }

    /// Raises `VerificationError` listing every problem, or returns None.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let m = &self.inner;
        let result = guard(py, || reproducer_of(m, "verify"), || Ok(py.detach(|| tileir_verify::verify(m))))?;
        result.map_err(|d| errors::verification_error(py, "the module does not verify", &d))
    }
}

/// Text of `module` and `pipeline` for a crash report (never panics itself).
pub(crate) fn reproducer_of(module: &Module, pipeline: &str) -> String {
    let text = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        print_module(module, PrintOptions { generic: true, debug_info: true })
    }))
    .unwrap_or_else(|_| "<the module could not be printed>".to_string());
    format!("// tileir reproducer\n// pipeline: {pipeline}\n{text}")
}

/// Runs the pass pipeline on a cuda_tile module without the LLVM writer; returns
/// `[(stage, text), …]` (for interpreting lowered stages, agents and TMA included).
#[pyfunction]
#[pyo3(signature = (module, pipeline = String::new()))]
fn lower_stages(py: Python<'_>, module: &PyModuleIr, pipeline: String) -> PyResult<Vec<(String, String)>> {
    let input = module.inner.clone();
    let options = CompileOptions { target: "sm_90a".into(), pipeline: pipeline.clone(), debug_info: false };
    let result = guard(py, || reproducer_of(&module.inner, &pipeline), || Ok(py.detach(move || tileir_driver::lower(input, &options))))?;
    Ok(result.map_err(|e| to_py_error(py, e))?.stages)
}

/// Compiles a cuda_tile module to LLVM IR; returns the stage texts and kernel ABI.
#[pyfunction]
#[pyo3(signature = (module, target = "sm_90a".to_string(), pipeline = String::new(), debug_info = false))]
fn compile<'py>(py: Python<'py>, module: &PyModuleIr, target: String, pipeline: String, debug_info: bool) -> PyResult<Bound<'py, PyDict>> {
    let input = module.inner.clone();
    let options = CompileOptions { target, pipeline: pipeline.clone(), debug_info };
    let result = guard(py, || reproducer_of(&module.inner, &pipeline), || Ok(py.detach(move || drive(input, &options))))?;
    let out = result.map_err(|e| to_py_error(py, e))?;
    let d = PyDict::new(py);
    let stages = PyList::empty(py);
    for (name, text) in &out.stages {
        stages.append((name, text))?;
    }
    d.set_item("stages", stages)?;
    let kernels = PyList::empty(py);
    for k in &out.kernels {
        let kd = PyDict::new(py);
        kd.set_item("name", &k.name)?;
        kd.set_item("params", k.params.iter().map(|p| p.as_str()).collect::<Vec<_>>())?;
        kd.set_item("num_threads", k.num_threads)?;
        kd.set_item("dynamic_smem", k.dynamic_smem_bytes)?;
        let maps = PyList::empty(py);
        for t in &k.tensor_maps {
            let refs = |v: &[tileir_llvm::ParamOrConst]| -> Vec<(&'static str, i64)> {
                v.iter()
                    .map(|r| match r {
                        tileir_llvm::ParamOrConst::Param(i) => ("param", *i as i64),
                        tileir_llvm::ParamOrConst::Const(c) => ("const", *c),
                    })
                    .collect()
            };
            let md = PyDict::new(py);
            md.set_item("base", t.base)?;
            md.set_item("sizes", refs(&t.sizes))?;
            md.set_item("strides", refs(&t.strides))?;
            md.set_item("elem", &t.elem)?;
            md.set_item("box", t.box_dims.clone())?;
            md.set_item("swizzle", t.swizzle_bytes)?;
            maps.append(md)?;
        }
        kd.set_item("tensor_maps", maps)?;
        kernels.append(kd)?;
    }
    d.set_item("kernels", kernels)?;
    d.set_item("canonical_pipeline", &out.canonical_pipeline)?;
    d.set_item("timings", out.timings.clone())?;
    Ok(d)
}

/// The canonical form of a pipeline (raises `PipelineError` if it is invalid).
#[pyfunction]
fn canonical_pipeline(py: Python<'_>, text: &str) -> PyResult<String> {
    let r = guard(py, || format!("// pipeline: {text}"), || Ok(tileir_driver::canonical_pipeline(text)))?;
    r.map_err(|e| to_py_error(py, tileir_driver::CompileError::Pipeline(e)))
}

/// The default pipeline text (for `target`, when given).
#[pyfunction]
#[pyo3(signature = (target=None))]
fn default_pipeline(target: Option<&str>) -> String {
    match target {
        Some(t) => tileir_driver::default_pipeline(t),
        None => tileir_driver::DEFAULT_PIPELINE.to_string(),
    }
}

/// Every registered pass: name, summary and options (name, type, default, help).
#[pyfunction]
fn pass_registry<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for p in tileir_transforms::registry().passes {
        let d = PyDict::new(py);
        d.set_item("name", p.name)?;
        d.set_item("summary", p.summary)?;
        let opts = PyList::empty(py);
        for o in (p.options)() {
            opts.append((o.name, o.ty, o.default, o.help))?;
        }
        d.set_item("options", opts)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Parses cuda_tile IR text (custom or generic form) into a module; raises `ParseError`
/// with every located diagnostic.
#[pyfunction]
#[pyo3(signature = (text, file_name = "<string>".to_string(), allow_unregistered = false, keep_names = false))]
fn parse(py: Python<'_>, text: String, file_name: String, allow_unregistered: bool, keep_names: bool) -> PyResult<PyModuleIr> {
    let reproducer = format!("// tileir reproducer: parse\n{text}");
    let options = tileir_syntax::ParseOptions { file_name, allow_unregistered, keep_names };
    let result = guard(py, || reproducer.clone(), || Ok(py.detach(move || tileir_syntax::parse_module(&text, &options))))?;
    match result {
        Ok(inner) => Ok(PyModuleIr { inner }),
        Err(diags) => Err(errors::parse_error(py, &diags)),
    }
}

/// Reads cuda_tile bytecode into a module; raises `BytecodeError` naming the byte offset.
#[pyfunction]
fn read_bytecode(py: Python<'_>, data: Vec<u8>) -> PyResult<PyModuleIr> {
    let reproducer = format!("// tileir reproducer: bytecode of {} bytes", data.len());
    let result = guard(py, || reproducer.clone(), || Ok(py.detach(move || tileir_bytecode::read(&data))))?;
    match result {
        Ok(inner) => Ok(PyModuleIr { inner }),
        Err(e) => Err(errors::bytecode_error(py, &e)),
    }
}

/// Runs a command-line tool (`tileir-opt`, `tileir-translate`) on the process's standard
/// streams; returns its exit code.
#[pyfunction]
fn tool_main(py: Python<'_>, tool: String, args: Vec<String>) -> PyResult<i32> {
    let reproducer = format!("// tileir reproducer: {tool} {}", args.join(" "));
    guard(py, || reproducer.clone(), || {
        Ok(py.detach(move || {
            let (mut stdin, mut stdout, mut stderr) = (std::io::stdin().lock(), std::io::stdout().lock(), std::io::stderr().lock());
            let mut io = tileir_tools::Io { stdin: &mut stdin, stdout: &mut stdout, stderr: &mut stderr };
            let code = tileir_tools::tool_main(&tool, &args, &mut io);
            let _ = io.stdout.flush();
            code
        }))
    })
}

/// Panics inside the guarded region, to test internal-error reporting.
#[pyfunction]
fn _debug_force_panic(py: Python<'_>, message: String) -> PyResult<()> {
    guard(py, || "// forced panic: no input".to_string(), || -> PyResult<()> { panic!("{message}") })
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::install_panic_hook();
    m.add_class::<PyModuleIr>()?;
    m.add_class::<builder::PyModuleBuilder>()?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(lower_stages, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_pipeline, m)?)?;
    m.add_function(wrap_pyfunction!(default_pipeline, m)?)?;
    m.add_function(wrap_pyfunction!(pass_registry, m)?)?;
    m.add_function(wrap_pyfunction!(_debug_force_panic, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(tool_main, m)?)?;
    m.add_function(wrap_pyfunction!(read_bytecode, m)?)?;
    m.add_function(wrap_pyfunction!(interp::interpret, m)?)?;
    m.add_function(wrap_pyfunction!(interp::interpreter_buffer_bases, m)?)?;
    emu::register(m)?;
    m.add("TARGETS", tileir_driver::TARGETS.to_vec())?;
    Ok(())
}
