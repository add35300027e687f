//! Binding of the reference interpreter: runs a module's entry on byte buffers.
//!
//! Python passes every distinct array once as `bytes` (so aliasing arguments share one
//! allocation) and each argument as `("ptr", buffer_index, byte_offset)` or
//! `("scalar", element_type, bit_pattern)`; it gets back the print output and the final
//! contents of every buffer, which it copies into the caller's arrays.

use crate::{guard, reproducer_of, PyModuleIr};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use tileir_interp::{run_entry, ArgValue, BlockOrder, InterpError, Memory, RunOptions};
use tileir_ir::NumType;

fn interp_error(py: Python<'_>, e: &InterpError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = py.import("tileir.errors")?.getattr("InterpreterError")?;
        let loc = e.location.as_ref().and_then(|l| l.file_line_col()).map(|(f, l, c)| (f.to_string(), l, c));
        let exc = cls.call1((e.to_string(), format!("{:?}", e.kind), loc, e.block.map(|b| (b[0], b[1], b[2])), e.op.clone()))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|err| pyo3::exceptions::PyRuntimeError::new_err(format!("{e} ({err})")))
}

/// Runs `entry` of `module` over `grid`; see the module docs for the argument encoding.
/// Returns `(print_output, [buffer bytes …])`.
#[pyfunction]
#[pyo3(signature = (module, entry, grid, buffers, args, shuffle_seed = None, parallel = false, detect_races = false, check_assumes = false))]
#[allow(clippy::too_many_arguments)]
pub fn interpret<'py>(
    py: Python<'py>,
    module: &PyModuleIr,
    entry: String,
    grid: (u32, u32, u32),
    buffers: Vec<Vec<u8>>,
    args: Vec<Bound<'py, PyTuple>>,
    shuffle_seed: Option<u64>,
    parallel: bool,
    detect_races: bool,
    check_assumes: bool,
) -> PyResult<(String, Vec<Bound<'py, PyBytes>>)> {
    let mut memory = Memory::new();
    let bases: Vec<u64> = buffers.iter().map(|b| memory.alloc_bytes(b)).collect();
    let mut values = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let kind: String = a.get_item(0)?.extract()?;
        match kind.as_str() {
            "ptr" => {
                let index: usize = a.get_item(1)?.extract()?;
                let offset: u64 = a.get_item(2)?.extract()?;
                let base = *bases.get(index).ok_or_else(|| {
                    pyo3::exceptions::PyValueError::new_err(format!("argument #{i}: buffer index {index} out of range"))
                })?;
                values.push(ArgValue::Ptr(base + offset));
            }
            "scalar" => {
                let ty: String = a.get_item(1)?.extract()?;
                let bits: u64 = a.get_item(2)?.extract()?;
                let ty = NumType::from_keyword(&ty).ok_or_else(|| {
                    pyo3::exceptions::PyValueError::new_err(format!("argument #{i}: unknown element type '{ty}'"))
                })?;
                values.push(ArgValue::Scalar { ty, bits });
            }
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "argument #{i}: expected ('ptr', index, offset) or ('scalar', type, bits), got kind '{other}'"
                )))
            }
        }
    }
    let options = RunOptions {
        order: shuffle_seed.map(BlockOrder::Shuffled).unwrap_or(BlockOrder::Sequential),
        parallel,
        detect_races,
        check_assumes,
        ..RunOptions::default()
    };
    let m = &module.inner;
    let grid = [grid.0, grid.1, grid.2];
    let result = guard(py, || reproducer_of(m, &format!("interpret {entry}")), || {
        Ok(py.detach(|| run_entry(m, &entry, grid, &values, &mut memory, &options)))
    })?;
    let report = result.map_err(|e| interp_error(py, &e))?;
    let out = bases
        .iter()
        .map(|&b| PyBytes::new(py, memory.bytes(b).unwrap_or(&[])))
        .collect();
    Ok((report.output, out))
}
