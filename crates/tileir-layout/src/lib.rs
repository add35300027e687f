//! Linear layouts over GF(2): one representation for where every element of a tile lives.
//!
//! # The algebra
//!
//! Tile dimensions in `cuda_tile` are powers of two, so an element's coordinates are bit
//! vectors, and so are the indices of the hardware resources that hold it: a register within a
//! thread, a lane within a warp, a warp within a CTA, a CTA within a cluster, or an element
//! offset in shared memory. A [`LinearLayout`] is a linear map over GF(2) from those *input
//! dimensions* ([`Dim::Register`], [`Dim::Lane`], [`Dim::Warp`], [`Dim::Block`],
//! [`Dim::Offset`]) to the tile's *output dimensions* (`dim0, dim1, …`, [`Dim::Tile`]). It is
//! stored as one basis vector per input bit; applying it XORs the basis vectors of the set
//! bits:
//!
//! ```text
//! L(register=r, lane=l, warp=w) = ⊕_{i: r_i=1} R_i ⊕ ⊕_{i: l_i=1} L_i ⊕ ⊕_{i: w_i=1} W_i
//! ```
//!
//! (This is Triton's "linear layouts", arXiv 2505.23819.) A zero basis vector means the bit
//! does not move the element: the data is replicated along it (a broadcast). Every layout the
//! GPU code generator needs has this form:
//!
//! * distributed tiles: [`blocked`] (Triton-style), [`slice_of`] (the result of a reduction),
//!   the `mma.sync` fragments [`mma_sync_accumulator`], [`mma_sync_operand_a`],
//!   [`mma_sync_operand_b`] (16-bit, 8-bit and tf32 element widths), and the `wgmma`
//!   accumulator [`wgmma_accumulator`];
//! * shared memory: [`shared_row_major`], Triton-style [`swizzled_shared`], and
//!   [`nvmma_shared`], the 32/64/128-byte swizzles that TMA writes and `wgmma` reads
//!   (physical offset → coordinates, so the XOR swizzle is just another linear map).
//!
//! The operations are those of linear algebra: [`LinearLayout::compose`],
//! [`LinearLayout::invert`] / [`LinearLayout::pseudo_invert`] (canonical preimage: registers
//! first, then the lowest lane, warp, block), [`LinearLayout::product`],
//! [`LinearLayout::transpose`], [`LinearLayout::reshape`] (row-major), [`LinearLayout::slice`],
//! [`LinearLayout::expand_dims`] / [`LinearLayout::broadcast`], free-variable masks
//! ([`LinearLayout::free_masks`]: which registers, lanes and warps hold copies), and
//! [`LinearLayout::contiguous_elements_per_thread`] (the widest vector access). Equality is
//! structural on a canonical form (input dimensions sorted, size-1 inputs dropped).
//!
//! # How code generation uses a layout
//!
//! A thread's element coordinates are never tabulated at run time. Because the map is linear,
//!
//! ```text
//! coords(r, lane, warp) = base(lane, warp) ⊕ coords(r, 0, 0)
//! base(lane, warp)      = ⊕_{i: lane_i=1} L_i ⊕ ⊕_{i: warp_i=1} W_i
//! ```
//!
//! so the generator computes `base` once per thread (for each dimension, `xor` of
//! `(lane >> i) & 1 ? L_i[d] : 0`; [`ThreadCoords::lane`] / [`ThreadCoords::warp`]) and adds
//! the compile-time constant [`ThreadCoords::register`]`[r]` per register
//! ([`LinearLayout::thread_coords`]). XOR equals ADD whenever the two operands share no set
//! bits; [`LinearLayout::is_disjoint`] says the register, lane, warp and block bases touch
//! pairwise disjoint coordinate bits, so `coord = base + const` and the constant folds into
//! the address arithmetic (`getelementptr` offsets). Blocked, `mma.sync` and `wgmma` layouts
//! are disjoint; swizzled shared layouts are not (their addresses need the `xor`).
//!
//! The same recipe gives shared-memory addresses: composing a distributed layout with the
//! inverse of a shared layout yields `(register, lane, warp) → offset`
//! ([`SmemAccess::offsets`]), materialized exactly like coordinates.
//!
//! # Conversions
//!
//! [`plan_conversion`] turns a tile held as `src` into one held as `dst`:
//!
//! * [`ConversionPlan::Identical`];
//! * [`ConversionPlan::InThread`]: same lanes, warps and blocks; a register permutation;
//! * [`ConversionPlan::WarpShuffle`]: same warps; rounds of `shfl.sync.idx` computed from the
//!   linear maps (the canonical source `(register, lane)` of every destination
//!   `(register, lane)` is linear; when two readers would need different registers of one
//!   lane in the same round, the destination register is made lane-dependent so that every
//!   round is a permutation of lanes);
//! * [`ConversionPlan::SharedMemory`]: store, barrier, load, through a scratch layout chosen
//!   to minimize bank conflicts on both sides. The bank model is [`wavefronts`]: 32 banks of
//!   4 bytes, 8-byte accesses in half-warp phases and 16-byte accesses in quarter-warp phases.
//!   For linear layouts the lanes of a phase access an affine subspace, whose conflicts are
//!   `2^(rank of the word offsets − rank of their bank bits)`; the planner XORs high offset
//!   bits into bank bits greedily to drive that to zero for both sides at once.
//!
//! Tests execute every plan on simulated register files and shared memory and check that
//! each thread ends with exactly the elements `dst` assigns it.
//!
//! [`reduction_plan`] splits a reduction along one dimension into in-thread register groups,
//! butterfly shuffles over the lane bits that move along it, and a cross-warp step; the result
//! is held in the [`slice_of`] layout.
//!
//! # Text
//!
//! Layouts print as `#tileas.linear<register=[[0,1],[0,2]], lane=[…], warp=[…], shape=[64,64]>`
//! and parse back with [`str::parse`]; blocked parameters print as
//! `#tileas.blocked<size_per_thread=[1,4], threads_per_warp=[8,4], warps_per_cta=[4,1], order=[1,0]>`
//! ([`Blocked`]).
//!
//! ```
//! use tileir_layout::{blocked, Dim};
//!
//! // 64×64 tile, 4 warps, 4 consecutive elements per thread along dim1.
//! let l = blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
//! assert_eq!(l.coords(5, 6, 1), vec![6 / 4 + 8, 4 * (6 % 4) + 5 % 4 + 16]);
//! assert_eq!(l.contiguous_elements_per_thread(1), 4);
//! let tc = l.thread_coords();
//! assert!(tc.disjoint);
//! assert_eq!(tc.register[5], vec![0, 17]);
//! assert_eq!(l.basis(Dim::Warp), vec![vec![8, 0], vec![16, 0]]);
//! ```
#![forbid(unsafe_code)]

mod constructors;
mod convert;
mod layout;
mod reduce;
mod text;

pub use constructors::{
    blocked, mma_sync_accumulator, mma_sync_operand_a, mma_sync_operand_b, nvmma_shared,
    shared_row_major, slice_of, swizzled_shared, wgmma_accumulator, Blocked,
};
pub use convert::{
    ideal_wavefronts, plan_conversion, plan_shared, smem_access, wavefronts, ConversionPlan,
    SharedPlan, ShuffleRound, SmemAccess,
};
pub use layout::{Dim, LayoutError, LinearLayout, ThreadCoords};
pub use reduce::{reduction_plan, ReductionPlan};
