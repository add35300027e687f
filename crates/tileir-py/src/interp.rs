//! Binding of the reference interpreter: runs a module's entry on byte buffers.
//!
//! Python passes every distinct array once (so aliasing arguments share one allocation) and
//! each argument as `("ptr", buffer_index, byte_offset)` or `("scalar", element_type,
//! bit_pattern)`. A buffer is either `bytes`, or a writable 1-D `uint8` NumPy view of the
//! caller's array. It gets back the print output and, per buffer, its final contents as
//! `bytes`, or `None` when there is nothing to copy: the buffer was a view (already written
//! back in place, if the kernel wrote to it), or `only_written` was set and the kernel never
//! wrote to it.
//!
//! Views are moved in [`CHUNK`]-byte pieces (`view[i:j].tobytes()` in, `view[i:j] =
//! memoryview(piece)` out) because this abi3-py310 module has no buffer protocol: turning a
//! whole array into one `bytes` object, and returning another, makes large short-lived
//! allocations that the C allocator hands back to the system after every call and faults in
//! again on the next, which for a vector add costs more than interpreting it.

use crate::{guard, reproducer_of, PyModuleIr};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PySlice, PyTuple};
use tileir_interp::{run_entry, ArgValue, BlockOrder, InterpError, Memory, RunOptions};
use tileir_ir::NumType;
use std::sync::Mutex;

/// Bytes moved per Python call for NumPy views (small enough for the C allocator to reuse
/// the pieces' memory from one call to the next).
const CHUNK: usize = 64 << 10;

/// The contents of one buffer argument (`bytes`, or a 1-D `uint8` view read piece by piece)
/// in a pooled vector.
fn read_buffer(py: Python<'_>, b: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = b.cast::<PyBytes>() {
        return Ok(pooled_copy(bytes.as_bytes()));
    }
    let n = b.len()?;
    let mut v = pooled_vec(n);
    let mut start = 0;
    while start < n {
        let end = (start + CHUNK).min(n);
        let piece = b.get_item(PySlice::new(py, start as isize, end as isize, 1))?.call_method0("tobytes")?;
        let piece = piece.cast::<PyBytes>()?;
        if piece.as_bytes().len() != end - start {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "bytes {start}..{end} of the view gave {} byte(s); the view must be 1-D uint8",
                piece.as_bytes().len()
            )));
        }
        v.extend_from_slice(piece.as_bytes());
        start = end;
    }
    Ok(v)
}

/// Buffers of earlier launches, kept for reuse (at most [`POOL_BYTES`] in all). Large buffers
/// freed and allocated again on every call would each time be returned to the operating
/// system and faulted back in page by page, which costs more than the interpretation of a
/// small kernel; reusing them keeps launches on already-mapped memory.
static POOL: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
/// Upper bound on the bytes [`POOL`] retains between launches.
const POOL_BYTES: usize = 64 << 20;

/// A copy of `bytes` in a pooled buffer when one is large enough.
fn pooled_copy(bytes: &[u8]) -> Vec<u8> {
    let mut v = pooled_vec(bytes.len());
    v.extend_from_slice(bytes);
    v
}

/// An empty vector with room for `n` bytes: the smallest pooled buffer that fits, else a new
/// one.
fn pooled_vec(n: usize) -> Vec<u8> {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    let best = pool
        .iter()
        .enumerate()
        .filter(|(_, v)| v.capacity() >= n)
        .min_by_key(|(_, v)| v.capacity())
        .map(|(i, _)| i);
    match best {
        Some(i) => {
            let mut v = pool.swap_remove(i);
            v.clear();
            v
        }
        None => Vec::with_capacity(n),
    }
}

/// Returns buffers to [`POOL`], largest first, while it stays under [`POOL_BYTES`].
fn recycle(mut bufs: Vec<Vec<u8>>) {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    bufs.sort_by_key(|v| std::cmp::Reverse(v.capacity()));
    let mut held: usize = pool.iter().map(|v| v.capacity()).sum();
    for v in bufs {
        if held + v.capacity() <= POOL_BYTES {
            held += v.capacity();
            pool.push(v);
        }
    }
}

fn interp_error(py: Python<'_>, e: &InterpError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = py.import("tileir.errors")?.getattr("InterpreterError")?;
        let loc = e.location.as_ref().and_then(|l| l.file_line_col()).map(|(f, l, c)| (f.to_string(), l, c));
        let exc = cls.call1((e.to_string(), format!("{:?}", e.kind), loc, e.block.map(|b| (b[0], b[1], b[2])), e.op.clone()))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|err| pyo3::exceptions::PyRuntimeError::new_err(format!("{e} ({err})")))
}

/// The base address each buffer of `sizes` (bytes, in order) gets when [`interpret`]
/// allocates buffers of those sizes in a fresh interpreter memory. Callers that must store
/// addresses inside a buffer (records of list-of-arrays parameters) use this instead of
/// re-deriving the allocator's placement rule.
#[pyfunction]
pub fn interpreter_buffer_bases(sizes: Vec<usize>) -> Vec<u64> {
    let mut memory = Memory::new();
    sizes.into_iter().map(|n| memory.alloc_vec(vec![0; n], 256)).collect()
}

/// Runs `entry` of `module` over `grid`; see the module docs for the argument encoding.
/// `arg_names` optionally names the entry's parameters in diagnostics (race reports).
/// Returns `(print_output, [buffer bytes or None …])`; see the module docs for when an entry
/// is None.
#[pyfunction]
#[pyo3(signature = (module, entry, grid, buffers, args, shuffle_seed = None, parallel = false, detect_races = false, check_assumes = false, only_written = false, arg_names = None))]
#[allow(clippy::too_many_arguments)]
pub fn interpret<'py>(
    py: Python<'py>,
    module: &PyModuleIr,
    entry: String,
    grid: (u32, u32, u32),
    buffers: Vec<Bound<'py, PyAny>>,
    args: Vec<Bound<'py, PyTuple>>,
    shuffle_seed: Option<u64>,
    parallel: bool,
    detect_races: bool,
    check_assumes: bool,
    only_written: bool,
    arg_names: Option<Vec<String>>,
) -> PyResult<(String, Vec<Option<Bound<'py, PyBytes>>>)> {
    let mut memory = Memory::new();
    let mut bases = Vec::with_capacity(buffers.len());
    for (i, b) in buffers.iter().enumerate() {
        let bytes = read_buffer(py, b).map_err(|e| {
            pyo3::exceptions::PyTypeError::new_err(format!("buffer #{i}: expected bytes or a 1-D uint8 NumPy view ({e})"))
        })?;
        bases.push(memory.alloc_vec(bytes, 256));
    }
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
        arg_names: arg_names.unwrap_or_default(),
        ..RunOptions::default()
    };
    let m = &module.inner;
    let grid = [grid.0, grid.1, grid.2];
    let result = guard(py, || reproducer_of(m, &format!("interpret {entry}")), || {
        Ok(py.detach(|| run_entry(m, &entry, grid, &values, &mut memory, &options)))
    })?;
    let report = result.map_err(|e| interp_error(py, &e))?;
    let mut out = Vec::with_capacity(bases.len());
    for (&base, b) in bases.iter().zip(&buffers) {
        let data = memory.bytes(base).unwrap_or(&[]);
        let written = memory.written(base);
        out.push(if b.cast::<PyBytes>().is_ok() {
            (written || !only_written).then(|| PyBytes::new(py, data))
        } else if !written {
            None
        } else {
            for (k, piece) in data.chunks(CHUNK).enumerate() {
                let start = (k * CHUNK) as isize;
                let slice = PySlice::new(py, start, start + piece.len() as isize, 1);
                b.set_item(slice, PyMemoryView::from(PyBytes::new(py, piece).as_any())?)?;
            }
            None
        });
    }
    recycle(bases.iter().filter_map(|&b| memory.free(b)).collect());
    Ok((report.output, out))
}
