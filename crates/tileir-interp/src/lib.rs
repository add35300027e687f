//! tileir-interp: a reference interpreter that runs cuda_tile kernels on the CPU, exactly as
//! specified.
//!
//! [`run_entry`] launches an `entry` of a [`tileir_ir::Module`] over a grid of tile blocks
//! against a [`Memory`] of byte buffers. Values are dense tiles ([`Tile`]) stored as typed
//! vectors, so every op is one whole-array loop; tokens are placeholders; views carry their
//! base address, sizes and strides.
//!
//! Semantics that the specification leaves to the implementation are fixed and documented
//! here so that results are reproducible bit for bit:
//! - **Integers** wrap; overflow flags are promises and are not checked. `divi` rounds as its
//!   attribute says (`negative_inf` is Python-style floor division), `remi` truncates.
//!   Division by zero, signed `MIN / -1`, an out-of-range `extract` index, an index outside a
//!   view's index space and a tile entirely out of bounds are reported as
//!   [`ErrorKind::UndefinedBehavior`]. Shift amounts ≥ the width give 0 (or the sign fill for
//!   an arithmetic right shift).
//! - **Floats** are computed in the declared precision with one correct rounding per op in
//!   the requested mode (f16/bf16 through exact or round-to-odd intermediates, see
//!   [`float`]); `flush_to_zero` flushes f32 subnormal inputs and results; `approx`/`full`
//!   modes give the correctly rounded result. `maxf`/`minf` follow IEEE 754-2019
//!   maximum/minimum with `propagate_nan`, maximumNumber/minimumNumber without; a NaN result
//!   is the canonical quiet NaN. Math functions are evaluated in `f64` by the platform libm
//!   and rounded once (error ≤ 0.5 ulp + 2^-29 ulp for f32; f64 carries libm's ≤ 1 ulp).
//! - **Conversions**: `ftof`/`itof` round once from the exact source value. Past the range
//!   of the result: fp8 (e4m3, e5m2) saturates to its largest finite value, infinities
//!   included (NaN stays NaN), as NVIDIA's compiler converts (`F2FP.SATFINITE`);
//!   f4E2M1FN always saturates (NaN gives +6); other formats follow `APFloat` (infinity,
//!   or NaN for e8m0). `ftoi` truncates and saturates (NaN gives 0) where the
//!   specification says undefined.
//! - **mma**: sequential in increasing `k`, one rounding per accumulation step in the
//!   accumulator type (see [`mma`]).
//! - **reduce/scan**: sequential along `dim`, accumulator first set to the identity, body
//!   called as `(element, accumulator)`.
//! - **Memory**: every access is bounds-checked against the allocations ([`MemError`]);
//!   out-of-bounds view elements read the padding value (zero when the view has none) and are
//!   not written; masked pointer lanes read the padding operand (zero when absent). Atomics
//!   run lane by lane in row-major order. 4-bit elements (f4E2M1FN) are packed two per byte,
//!   the lower index in the low nibble; pointers to them count elements and may address a
//!   half byte ([`SubBytePtr`]).
//! - **Races**: with [`RunOptions::detect_races`] (implied by a shuffled order) plain
//!   read/write and write/write conflicts between blocks, and plain accesses to data another
//!   block updates atomically, are reported as [`ErrorKind::Race`] with both blocks, the
//!   argument or global and the element; atomics never race with each other.
//! - **Blocks** run one after another (x fastest) unless [`RunOptions`] asks for a shuffled
//!   order or parallel execution (which always produces the sequential result, see
//!   [`RunOptions::parallel`]).
//! - `print_tko` output goes to [`RunReport::output`]; `assert` failures carry the op's
//!   location; `assume` is a no-op unless [`RunOptions::check_assumes`] is set.
//!
//! Views: a `partition_view` index `i` (one per tile dimension) selects the tile whose element
//! `t` sits at tensor coordinate `idx[i]·tile[i] + t[i]` along tensor dimension
//! `dim_map[i]`. A `strided_view` uses `idx[i]·stride` instead (its `traversal_strides` are
//! read per tensor dimension) and its index space counts the origins needed to cover the
//! tensor (`ceil((size − tile)/stride) + 1`). A `gather_scatter_view` takes a 1-D index tile of
//! tensor coordinates along `sparse_dim` (out-of-range entries are padded/masked) and its
//! index space is 1 along that dimension.
//!
//! **Lowered kernels.** [`run_entry`] also runs a module after `convert-cuda-tile-to-tileaa`
//! (the `nv_tileaa.func` of the entry's name) or after `convert-tileaa-to-tileas`, with the
//! same argument list: the lowering keeps kernel parameters one to one (`tile<ptr<T>>` →
//! `!nv_tileaa.ptr<T, 1>`, `tile<T>` → `T`) and builds memrefs inside the kernel from the
//! same base, size and stride arguments, so a differential run is the same call on each
//! level's module against equal memories. nv_tileaa / nv_tileas ops have the semantics of the
//! cuda_tile ops they come from: `make_memref` is `make_tensor_view` ([`Value::MemRef`]),
//! `tiled_load` / `tiled_store` are partition (or, with `origin_step`, strided) view accesses
//! of the tile at the given tile coordinates with the same padding, masking and undefined
//! behavior; tokens and memory orderings are no-ops; residual cuda_tile ops take bare scalars
//! where cuda_tile has rank-0 tiles (a scalar `broadcast` splats); nv_tileas layouts and
//! vector widths do not change values. The async pipeline / queue / TMA ops go through one
//! dispatch point, `exec_async_op` in pipeline.rs.

#![forbid(unsafe_code)]

pub mod agents;
pub mod approx;
mod arith;
mod exec;
pub mod float;
mod launch;
pub mod memory;
pub mod mma;
mod printf;
mod shape;
pub mod value;

pub use launch::{run_entry, ArgValue, BlockOrder, ErrorKind, InterpError, RunOptions, RunReport};
pub use memory::{MemError, Memory};
pub use value::{Data, SubBytePtr, TensorView, Tile, TileView, Value, ViewKind};
