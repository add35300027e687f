//! tileir-llvm: writes an nv_tileas module (verified) as LLVM IR text for the NVPTX back
//! end (`nvptx64-nvidia-cuda`), using the spellings checked in `docs/nvptx.md`:
//! `ptx_kernel` functions, `"nvvm.reqntid"`/`"nvvm.minctasm"` attributes, `llvm.nvvm.*`
//! special-register intrinsics, and the generic `llvm.masked.load/store` intrinsics for
//! masked tile accesses.
//!
//! Each tile value becomes the list of elements the executing thread owns under the
//! tile's blocked layout. A tiled load or store handles each thread's contiguous run of
//! elements as one group: a group entirely inside the tensor takes a plain (vector)
//! access; a group that crosses the tensor's end takes a masked access, so elements past
//! the end are never read or written.
//!
//! Output is deterministic: names come from counters and source names, intrinsic
//! declarations are sorted.

#![forbid(unsafe_code)]

mod alloca;
mod cp_async;
mod debug_ops;
mod dispatch;
mod epilogue;
mod in_thread;
mod reduce_tree;
mod lower_ct;
mod memory_order;
mod mma_sync;
pub(crate) mod wgmma;
mod tma;
mod writer;

pub use dispatch::FORCE_ATTR;
pub use tma::{ParamOrConst, TensorMapSpec};
pub use writer::{max_smem_bytes, write_module, KernelAbi, KernelSpec, LlvmOptions, LlvmOutput, ParamKind, STATIC_SMEM_LIMIT};
