//! tileir-numeric: bit-exact software number formats for CUDA Tile IR element types.
//!
//! CUDA Tile IR uses nine floating-point element types ([`FloatFormat`]):
//! `f16`, `bf16`, `f32`, `tf32`, `f64`, `f8E4M3FN`, `f8E5M2`, `f8E8M0FNU` and
//! `f4E2M1FN`. Most have no Rust type, so this crate handles them all as bit
//! patterns in a `u64` and provides:
//!
//! - the format descriptions ([`FloatFormat`]: widths, bias, which of
//!   infinity / NaN / zero / negative zero / subnormals exist, extreme values,
//!   classification);
//! - exact conversion: [`decode`] to `f64` (every value of every format is an
//!   `f64`) and [`encode`] from `f64` with one rounding in any
//!   [`Rounding`] mode, optionally saturating ([`Saturation`]), plus
//!   [`convert`] between formats and [`flush_subnormal`];
//! - MLIR's float text: [`format_mlir`] prints exactly what MLIR's printer
//!   prints for a float element (`1.000000e+00`, `2.7182818284590451`,
//!   `0x7FC00000`), and [`parse_mlir_float`] reads what MLIR's parser reads;
//! - integer helpers for dense literals ([`int_fits`], [`sign_extend`],
//!   [`truncate`]).
//!
//! The reference for every result is LLVM's `APFloat` (what MLIR uses to
//! parse, print and fold constants); where it is undefined, the choice made
//! here is documented on [`encode_with_status`].
//!
//! Bit patterns are always in the format's *storage* layout, which equals
//! MLIR's `APFloat` layout except for `tf32`: storage is the 32-bit GPU
//! memory layout (an `f32` whose low 13 fraction bits are zero), while MLIR
//! text and bytecode use a 19-bit pattern. [`FloatFormat::to_apfloat_bits`]
//! and [`FloatFormat::from_apfloat_bits`] convert between the two.
//!
//! ```
//! use tileir_numeric::{decode, encode, format_mlir, FloatFormat, Rounding, Saturation};
//!
//! let bits = encode(FloatFormat::F16, 3.14159, Rounding::NearestEven, Saturation::None);
//! assert_eq!(bits, 0x4248);
//! assert_eq!(decode(FloatFormat::F16, bits), 3.140625);
//! assert_eq!(format_mlir(FloatFormat::F16, bits), "3.140630e+00");
//! ```

mod bignum;
mod convert;
mod format;
mod int;
mod text;

pub use convert::{
    convert, decode, encode, encode_from_f32, encode_with_status, flush_subnormal, Encoded,
    Rounding, Saturation, Status,
};
pub use format::{FloatClass, FloatFormat};
pub use int::{int_fits, sign_extend, truncate, zero_extend};
pub use text::{
    format_mlir, parse_mlir_float, parse_mlir_float_checked, parse_mlir_float_with_status,
    FloatParseError,
};
