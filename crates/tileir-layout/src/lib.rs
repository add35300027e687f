//! Linear layouts over GF(2) for tileir's GPU code generation.
//!
//! See the crate README section below for the algebra.
#![forbid(unsafe_code)]

mod constructors;
mod convert;
mod layout;
mod text;

pub use constructors::{
    blocked, mma_sync_accumulator, mma_sync_operand_a, mma_sync_operand_b, nvmma_shared, shared_row_major,
    slice_of, swizzled_shared, wgmma_accumulator, Blocked,
};
pub use convert::{
    ideal_wavefronts, plan_conversion, plan_shared, wavefronts, ConversionPlan, ShuffleRound, SharedPlan, SmemAccess,
};
pub use layout::{Dim, LayoutError, LinearLayout, ThreadCoords};
