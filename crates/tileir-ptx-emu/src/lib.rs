//! tileir-ptx-emu: a PTX emulator for checking compiled kernels without a GPU.
//!
//! It parses the PTX that LLVM's NVPTX backend emits (and the inline PTX kernels write
//! themselves), decodes each kernel once into a compact program with resolved registers,
//! and runs a whole grid over host buffers with GPU semantics:
//!
//! - clusters run in parallel on OS threads, the CTAs of a cluster in one scheduler (with
//!   distributed shared memory, cluster barriers and TMA multicast); inside a CTA warps
//!   run round-robin, each warp's lanes in lockstep over per-lane register files,
//!   divergent lanes reconverging at the earliest common PC ([`exec`]);
//! - every memory access is bounds- and alignment-checked against the named buffers (and the
//!   device heap's `malloc` allocations, each at an address never reused, so a use after
//!   `free` is a fault naming the allocation);
//! - undefined behaviour (division by zero, divergent or exited lanes in a collective's
//!   member mask, shared- and (within a CTA) global-memory races in race-check mode, deadlock) is an error naming the
//!   PTX line, never a silent value.
//!
//! ```
//! use tileir_ptx_emu::{run, Arg, Buffer, LaunchConfig, Module, Options};
//!
//! let ptx = r#"
//! .version 8.6
//! .target sm_90a
//! .address_size 64
//! .visible .entry scale(.param .u64 out, .param .u32 n)
//! {
//!     .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
//!     ld.param.b64 %rd1, [out];
//!     ld.param.b32 %r1, [n];
//!     mov.u32 %r2, %tid.x;
//!     setp.ge.u32 %p1, %r2, %r1;
//!     @%p1 bra $L_end;
//!     mul.wide.u32 %rd2, %r2, 4;
//!     add.s64 %rd3, %rd1, %rd2;
//!     shl.b32 %r3, %r2, 1;
//!     st.global.b32 [%rd3], %r3;
//! $L_end:
//!     ret;
//! }
//! "#;
//! let module = Module::parse(ptx).unwrap();
//! let prog = module.kernel(Some("scale")).unwrap();
//! let mut bufs = vec![Buffer::new("out", vec![0u8; 4 * 40])];
//! let cfg = LaunchConfig { grid: [1, 1, 1], block: [64, 1, 1], dyn_shared: 0, options: Options::default(), ..LaunchConfig::default() };
//! run(&prog, &cfg, &[Arg::Buffer(0, 0), Arg::U32(40)], &mut bufs).unwrap();
//! assert_eq!(u32::from_le_bytes(bufs[0].data[4 * 39..4 * 40].try_into().unwrap()), 78);
//! ```

pub mod ast;
pub mod decode;
pub mod error;
pub mod exec;
pub mod lex;
pub mod mem;
pub mod parse;
pub mod program;
pub mod tensor_map;

pub use error::{EmuError, ErrorKind, Result};
pub use exec::{LaunchConfig, LaunchStats, Options, DEFAULT_MALLOC_HEAP_BYTES};
pub use program::Program;

use mem::GlobalMem;

/// A parsed PTX module.
#[derive(Clone, Debug)]
pub struct Module {
    /// The parsed statements.
    pub ast: ast::PtxModule,
}

impl Module {
    /// Parses PTX text.
    pub fn parse(text: &str) -> Result<Module> {
        Ok(Module { ast: parse::parse_module(text)? })
    }

    /// Names of the kernels (`.entry`), in order.
    pub fn kernel_names(&self) -> Vec<String> {
        self.ast.functions.iter().filter(|f| f.is_entry).map(|f| f.name.clone()).collect()
    }

    /// Decodes kernel `name` (the first kernel when None).
    pub fn kernel(&self, name: Option<&str>) -> Result<Program> {
        decode::decode_kernel(&self.ast, name)
    }
}

/// A global-memory buffer of a launch.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// Name used in error reports.
    pub name: String,
    /// Contents (updated in place by [`run`]).
    pub data: Vec<u8>,
    /// Stores into it are errors.
    pub read_only: bool,
}

impl Buffer {
    /// A writable buffer.
    pub fn new(name: impl Into<String>, data: Vec<u8>) -> Buffer {
        Buffer { name: name.into(), data, read_only: false }
    }
}

/// A kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// The address of buffer `index` plus a byte offset (a 64-bit pointer parameter).
    Buffer(usize, u64),
    /// A 32-bit value.
    U32(u32),
    /// A 64-bit value.
    U64(u64),
    /// An f32.
    F32(f32),
    /// An f64.
    F64(f64),
    /// Raw bytes (a `.b8` array parameter, e.g. a 128-byte tensor map).
    Bytes(Vec<u8>),
    /// A 128-byte tensor map over buffer `index`: the map's `base` is a byte offset into the
    /// buffer, replaced by the buffer's address plus that offset before encoding.
    TensorMap(usize, tensor_map::TensorMap),
}

/// Lays out `args` in `prog`'s parameter buffer (`bases`: each buffer's address).
pub fn param_buffer(prog: &Program, args: &[Arg], bases: &[u64]) -> Result<Vec<u8>> {
    if args.len() != prog.params.len() {
        return Err(EmuError::new(
            ErrorKind::Launch,
            0,
            format!("kernel '{}' takes {} parameter(s), got {} argument(s)", prog.name, prog.params.len(), args.len()),
        ));
    }
    let mut out = vec![0u8; prog.param_bytes];
    for (slot, arg) in prog.params.iter().zip(args) {
        let bytes: Vec<u8> = match arg {
            Arg::Buffer(i, off) => {
                let base = bases.get(*i).ok_or_else(|| {
                    EmuError::new(ErrorKind::Launch, 0, format!("parameter '{}' names buffer #{i}; there are {} buffer(s)", slot.name, bases.len()))
                })?;
                (base + off).to_le_bytes().to_vec()
            }
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::U64(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
            Arg::F64(v) => v.to_le_bytes().to_vec(),
            Arg::Bytes(b) => b.clone(),
            Arg::TensorMap(i, m) => {
                let base = bases.get(*i).ok_or_else(|| {
                    EmuError::new(ErrorKind::Launch, 0, format!("parameter '{}' is a tensor map over buffer #{i}; there are {} buffer(s)", slot.name, bases.len()))
                })?;
                let mut m = m.clone();
                m.base = base.wrapping_add(m.base);
                m.encode().map_err(|e| EmuError::new(ErrorKind::Launch, 0, format!("parameter '{}': {e}", slot.name)))?.to_vec()
            }
        };
        if bytes.len() != slot.size {
            return Err(EmuError::new(
                ErrorKind::Launch,
                0,
                format!("parameter '{}' (.{}) takes {} byte(s), the argument {arg:?} gives {}", slot.name, slot.ty, slot.size, bytes.len()),
            ));
        }
        out[slot.offset..slot.offset + slot.size].copy_from_slice(&bytes);
    }
    Ok(out)
}

/// Runs `prog` with `args` over `buffers`, writing the buffers' final contents back.
pub fn run(prog: &Program, cfg: &LaunchConfig, args: &[Arg], buffers: &mut [Buffer]) -> Result<LaunchStats> {
    let owned: Vec<(String, Vec<u8>, bool)> = buffers.iter_mut().map(|b| (b.name.clone(), std::mem::take(&mut b.data), b.read_only)).collect();
    let (global, bases) = GlobalMem::new(owned, &prog.module_vars);
    let restore = |global: &GlobalMem, buffers: &mut [Buffer]| {
        let first = prog.module_vars.len();
        for (i, b) in buffers.iter_mut().enumerate() {
            b.data = global.bytes_of(first + i);
        }
    };
    let params = match param_buffer(prog, args, &bases) {
        Ok(p) => p,
        Err(e) => {
            restore(&global, buffers);
            return Err(e);
        }
    };
    let result = exec::launch(prog, cfg, &params, &global);
    restore(&global, buffers);
    result
}
