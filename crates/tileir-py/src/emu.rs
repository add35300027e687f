//! Binding of the PTX emulator (tileir-ptx-emu): runs a kernel of PTX text over byte buffers
//! with the GIL released.
//!
//! Python passes each distinct buffer once as `bytes` and each parameter as
//! `("ptr", buffer_index, byte_offset)`, or `(kind, bits)` with kind `u32`/`u64`/`f32`/`f64`
//! (raw bit patterns), `int`/`float` (width taken from the PTX parameter: 4 or 8 bytes), or
//! `("bytes", b)` for array parameters. Failures come back as data, not exceptions, so the
//! Python layer raises its own `EmulatorError` with the PTX line.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use tileir_ptx_emu::{run, Arg, Buffer, LaunchConfig, Module, Options, DEFAULT_MALLOC_HEAP_BYTES};

/// Registers the emulator's functions on the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(emulate_ptx, m)?)?;
    m.add_function(wrap_pyfunction!(emulator_buffer_bases, m)?)?;
    m.add_function(wrap_pyfunction!(ptx_kernel_params, m)?)?;
    m.add_function(wrap_pyfunction!(encode_tensor_map, m)?)?;
    Ok(())
}

/// The emulator's 128-byte tensor map (tile mode, zero fill) of a row-major array:
/// `sizes`, `strides_bytes` and `box_dims` outermost first (the innermost stride is the
/// element's size), `swizzle_bytes` 0, 32, 64 or 128.
#[pyfunction]
pub fn encode_tensor_map<'py>(
    py: Python<'py>,
    elem: &str,
    base: u64,
    sizes: Vec<u64>,
    strides_bytes: Vec<u64>,
    box_dims: Vec<u32>,
    swizzle_bytes: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    use tileir_ptx_emu::tensor_map::{DataType, Swizzle, TensorMap};
    let bad = |why: String| pyo3::exceptions::PyValueError::new_err(why);
    let dtype = match elem {
        "f16" => DataType::F16,
        "bf16" => DataType::Bf16,
        "f32" => DataType::F32,
        "i8" | "f8E4M3FN" | "f8E5M2" => DataType::U8,
        other => return Err(bad(format!("no tensor-map element type for '{other}'"))),
    };
    let swizzle = match swizzle_bytes {
        0 => Swizzle::None,
        32 => Swizzle::B32,
        64 => Swizzle::B64,
        128 => Swizzle::B128,
        other => return Err(bad(format!("swizzle of {other} bytes (expected 0, 32, 64 or 128)"))),
    };
    let rank = sizes.len();
    if rank == 0 || rank > 5 || box_dims.len() != rank || strides_bytes.len() != rank {
        return Err(bad(format!("a rank-{rank} map needs {rank} box dimensions and strides")));
    }
    // The map lists dimensions innermost first.
    let dims: Vec<u64> = sizes.iter().rev().copied().collect();
    let boxes: Vec<u32> = box_dims.iter().rev().copied().collect();
    let mut map = TensorMap::dense(base, dtype, &dims, &boxes, swizzle);
    for (i, s) in strides_bytes.iter().rev().skip(1).enumerate() {
        map.strides_bytes[i] = *s;
    }
    let bytes = map.encode().map_err(|e| bad(e.to_string()))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Addresses the emulator gives buffers of these sizes, in order (for records that hold
/// pointers, built before the launch).
#[pyfunction]
pub fn emulator_buffer_bases(sizes: Vec<usize>) -> Vec<u64> {
    let bufs = sizes.into_iter().map(|n| (String::new(), vec![0u8; n], false)).collect();
    tileir_ptx_emu::mem::GlobalMem::new(bufs, &[]).1
}

/// `(name, type, size)` of each parameter of kernel `kernel` (None: the first) in `ptx`.
#[pyfunction]
#[pyo3(signature = (ptx, kernel=None))]
pub fn ptx_kernel_params(ptx: &str, kernel: Option<&str>) -> PyResult<Vec<(String, String, usize)>> {
    let prog = Module::parse(ptx)
        .and_then(|m| m.kernel(kernel))
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(prog.params.iter().map(|p| (p.name.clone(), p.ty.clone(), p.size)).collect())
}

fn param_of(p: &Bound<'_, PyAny>, size: Option<usize>) -> PyResult<Arg> {
    let t = p.cast::<PyTuple>()?;
    let kind: String = t.get_item(0)?.extract()?;
    let bad = |why: String| pyo3::exceptions::PyValueError::new_err(why);
    Ok(match kind.as_str() {
        "ptr" => Arg::Buffer(t.get_item(1)?.extract()?, t.get_item(2)?.extract()?),
        "u32" => Arg::U32(t.get_item(1)?.extract::<u64>()? as u32),
        "u64" => Arg::U64(t.get_item(1)?.extract()?),
        "f32" => Arg::U32(t.get_item(1)?.extract::<u64>()? as u32),
        "f64" => Arg::U64(t.get_item(1)?.extract()?),
        "int" => {
            let v: i128 = t.get_item(1)?.extract()?;
            match size {
                Some(4) => Arg::U32(v as u32),
                _ => Arg::U64(v as u64),
            }
        }
        "float" => {
            let v: f64 = t.get_item(1)?.extract()?;
            match size {
                Some(4) => Arg::F32(v as f32),
                _ => Arg::F64(v),
            }
        }
        "bytes" => Arg::Bytes(t.get_item(1)?.cast::<PyBytes>()?.as_bytes().to_vec()),
        other => return Err(bad(format!("unknown parameter kind '{other}'"))),
    })
}

/// Runs kernel `kernel` of `ptx` over `grid` × `block`. Returns a dict: `ok`, `buffers`
/// (final contents as bytes), `output` (printf text), `thread_insts`, the device heap's
/// counters (`heap_allocations`, `heap_frees`, `heap_failed_allocations`, `heap_peak_bytes`,
/// `heap_live_at_exit`), and on failure `error` = (kind, line, message).
/// `malloc_heap_bytes` is the heap's capacity for in-kernel `malloc` (None: CUDA's 8 MiB).
#[pyfunction]
#[pyo3(signature = (ptx, kernel, grid, block, params, buffers, dyn_shared=0, race_check=false, threads=0, max_warp_steps=None, shared_fill=0xFF, cluster=None, malloc_heap_bytes=None))]
#[allow(clippy::too_many_arguments)]
pub fn emulate_ptx<'py>(
    py: Python<'py>,
    ptx: String,
    kernel: Option<String>,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    params: Vec<Bound<'py, PyAny>>,
    buffers: Vec<Bound<'py, PyBytes>>,
    dyn_shared: u32,
    race_check: bool,
    threads: usize,
    max_warp_steps: Option<u64>,
    shared_fill: u8,
    cluster: Option<(u32, u32, u32)>,
    malloc_heap_bytes: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let fail = |out: &Bound<'py, PyDict>, kind: &str, line: u32, msg: String| -> PyResult<()> {
        out.set_item("ok", false)?;
        out.set_item("error", (kind.to_string(), line, msg))?;
        Ok(())
    };
    let prog = match py.detach(|| Module::parse(&ptx).and_then(|m| m.kernel(kernel.as_deref()))) {
        Ok(p) => p,
        Err(e) => {
            fail(&out, &format!("{:?}", e.kind), e.line, e.to_string())?;
            return Ok(out);
        }
    };
    let mut args = Vec::new();
    for (i, p) in params.iter().enumerate() {
        args.push(param_of(p, prog.params.get(i).map(|s| s.size))?);
    }
    let mut bufs: Vec<Buffer> = buffers.iter().enumerate().map(|(i, b)| Buffer::new(format!("buffer #{i}"), b.as_bytes().to_vec())).collect();
    let mut options = Options { race_check, threads, shared_fill, cluster: cluster.map(|c| [c.0, c.1, c.2]), ..Options::default() };
    if let Some(m) = max_warp_steps {
        options.max_warp_steps = m;
    }
    let cfg = LaunchConfig {
        grid: [grid.0, grid.1, grid.2],
        block: [block.0, block.1, block.2],
        dyn_shared,
        options,
        malloc_heap_bytes: malloc_heap_bytes.unwrap_or(DEFAULT_MALLOC_HEAP_BYTES),
    };
    let result = py.detach(|| run(&prog, &cfg, &args, &mut bufs));
    let contents: Vec<Bound<'py, PyBytes>> = bufs.iter().map(|b| PyBytes::new(py, &b.data)).collect();
    out.set_item("buffers", contents)?;
    match result {
        Ok(stats) => {
            out.set_item("ok", true)?;
            out.set_item("output", stats.output)?;
            out.set_item("thread_insts", stats.thread_insts)?;
            out.set_item("heap_allocations", stats.heap_allocations)?;
            out.set_item("heap_frees", stats.heap_frees)?;
            out.set_item("heap_failed_allocations", stats.heap_failed_allocations)?;
            out.set_item("heap_peak_bytes", stats.heap_peak_bytes)?;
            out.set_item("heap_live_at_exit", stats.heap_live_at_exit)?;
        }
        Err(e) => fail(&out, &format!("{:?}", e.kind), e.line, e.to_string())?,
    }
    Ok(out)
}
