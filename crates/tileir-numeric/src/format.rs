//! The floating-point element types of CUDA Tile IR and their bit layouts.
//!
//! Every format here is described the way LLVM's `APFloat` describes it (a
//! precision, a normal exponent range and a policy for infinities, NaNs and
//! zero), because MLIR's parser, printer and constant folder all go through
//! `APFloat`; matching it field for field is what makes our bits agree with
//! the reference toolchain.

/// A floating-point element type of CUDA Tile IR.
///
/// Bit patterns are passed around as `u64` holding the format's *storage*
/// layout in the low [`FloatFormat::bit_width`] bits (see each variant). For
/// every format but [`FloatFormat::TF32`] the storage layout is also the
/// layout MLIR's `APFloat` uses; see [`FloatFormat::to_apfloat_bits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatFormat {
    /// IEEE 754 binary16 (`f16`): 1 sign, 5 exponent, 10 fraction bits, bias 15.
    F16,
    /// bfloat16 (`bf16`): 1 sign, 8 exponent, 7 fraction bits, bias 127.
    BF16,
    /// IEEE 754 binary32 (`f32`): 1 sign, 8 exponent, 23 fraction bits, bias 127.
    F32,
    /// NVIDIA TensorFloat-32 (`tf32`): 1 sign, 8 exponent, 10 fraction bits,
    /// bias 127. Stored as 32 bits laid out like `f32` with the low 13
    /// fraction bits zero (the GPU memory layout). MLIR/`APFloat` instead use
    /// a packed 19-bit pattern; convert with [`FloatFormat::to_apfloat_bits`].
    TF32,
    /// IEEE 754 binary64 (`f64`): 1 sign, 11 exponent, 52 fraction bits, bias 1023.
    F64,
    /// OCP FP8 E4M3 (`f8E4M3FN`): 1 sign, 4 exponent, 3 fraction bits, bias 7.
    /// No infinities; the only NaNs are `S.1111.111` (0x7F, 0xFF), so the
    /// largest finite value is 448 (0x7E). Has negative zero.
    F8E4M3FN,
    /// OCP FP8 E5M2 (`f8E5M2`): 1 sign, 5 exponent, 2 fraction bits, bias 15.
    /// IEEE-like: has infinities (0x7C), NaNs and negative zero; max 57344.
    F8E5M2,
    /// OCP MX scale E8M0 (`f8E8M0FNU`): 8 exponent bits only, no sign, bias 127.
    /// Value `2^(e-127)` for `e` in 0..=254, NaN = 0xFF; no zero, no infinity,
    /// no subnormals.
    F8E8M0FNU,
    /// OCP FP4 E2M1 (`f4E2M1FN`): 1 sign, 2 exponent, 1 fraction bit, bias 1.
    /// Finite only (no infinities, no NaN); values ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
    F4E2M1FN,
}

/// The class of a bit pattern in some [`FloatFormat`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatClass {
    /// A NaN (any payload, either sign).
    Nan,
    /// Positive or negative infinity.
    Infinite,
    /// Positive or negative zero.
    Zero,
    /// A nonzero value below the smallest normal magnitude.
    Subnormal,
    /// A normal finite nonzero value.
    Normal,
}

/// How a format represents values that do not fit: mirrors `APFloat`'s
/// `fltNonfiniteBehavior` (+ `fltNanEncoding`), which drives overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NonFinite {
    /// IEEE 754: exponent field all ones is Inf (fraction 0) or NaN.
    Ieee,
    /// No infinities; NaN is the all-ones pattern (sign aside).
    NanOnlyAllOnes,
    /// Neither infinities nor NaN.
    FiniteOnly,
}

/// The fixed description of one format, in `APFloat` terms.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// Bits of the `APFloat` pattern (19 for tf32).
    pub(crate) ap_width: u32,
    /// Extra zero bits below the fraction in the storage pattern (13 for tf32).
    pub(crate) pad: u32,
    /// Width of the exponent field.
    pub(crate) exp_bits: u32,
    /// Width of the stored fraction field (precision minus the hidden bit).
    pub(crate) frac_bits: u32,
    /// Exponent bias: value exponent = field - bias for normal numbers.
    pub(crate) bias: i32,
    /// Smallest exponent of a normal number (`APFloat` minExponent).
    pub(crate) emin: i32,
    /// Largest exponent of a finite number (`APFloat` maxExponent).
    pub(crate) emax: i32,
    pub(crate) signed: bool,
    pub(crate) non_finite: NonFinite,
}

impl Layout {
    /// Significand precision in bits, hidden bit included.
    pub(crate) fn precision(&self) -> u32 {
        self.frac_bits + 1
    }

    fn frac_mask(&self) -> u64 {
        (1u64 << self.frac_bits) - 1
    }

    fn exp_mask(&self) -> u64 {
        (1u64 << self.exp_bits) - 1
    }

    fn sign_bit(&self) -> u64 {
        if self.signed {
            1u64 << (self.ap_width - 1)
        } else {
            0
        }
    }
}

/// A value of a format split into its parts: `(-1)^neg * sig * 2^exp`, where
/// `sig` is the integer significand (hidden bit included for normals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parts {
    Nan { neg: bool },
    Inf { neg: bool },
    Zero { neg: bool },
    Finite { neg: bool, sig: u64, exp: i32 },
}

impl FloatFormat {
    /// Every format, in declaration order.
    pub const ALL: [FloatFormat; 9] = [
        FloatFormat::F16,
        FloatFormat::BF16,
        FloatFormat::F32,
        FloatFormat::TF32,
        FloatFormat::F64,
        FloatFormat::F8E4M3FN,
        FloatFormat::F8E5M2,
        FloatFormat::F8E8M0FNU,
        FloatFormat::F4E2M1FN,
    ];

    pub(crate) fn layout(self) -> Layout {
        use NonFinite::*;
        // (ap_width, pad, exp_bits, frac_bits, bias, emin, emax, signed, non_finite)
        let (ap_width, pad, exp_bits, frac_bits, bias, emin, emax, signed, non_finite) = match self
        {
            FloatFormat::F16 => (16, 0, 5, 10, 15, -14, 15, true, Ieee),
            FloatFormat::BF16 => (16, 0, 8, 7, 127, -126, 127, true, Ieee),
            FloatFormat::F32 => (32, 0, 8, 23, 127, -126, 127, true, Ieee),
            FloatFormat::TF32 => (19, 13, 8, 10, 127, -126, 127, true, Ieee),
            FloatFormat::F64 => (64, 0, 11, 52, 1023, -1022, 1023, true, Ieee),
            // The all-ones exponent still holds finite values (up to 1.110b*2^8),
            // hence emax 8 rather than 7.
            FloatFormat::F8E4M3FN => (8, 0, 4, 3, 7, -6, 8, true, NanOnlyAllOnes),
            FloatFormat::F8E5M2 => (8, 0, 5, 2, 15, -14, 15, true, Ieee),
            // Field 0 is the *normal* value 2^-127: no zero, no subnormals, so
            // emin = -bias (not 1 - bias) and field 254 is the finite 2^127.
            FloatFormat::F8E8M0FNU => (8, 0, 8, 0, 127, -127, 127, false, NanOnlyAllOnes),
            FloatFormat::F4E2M1FN => (4, 0, 2, 1, 1, 0, 2, true, FiniteOnly),
        };
        Layout {
            ap_width,
            pad,
            exp_bits,
            frac_bits,
            bias,
            emin,
            emax,
            signed,
            non_finite,
        }
    }

    /// The MLIR spelling of the type (`f16`, `bf16`, `f32`, `tf32`, `f64`,
    /// `f8E4M3FN`, `f8E5M2`, `f8E8M0FNU`, `f4E2M1FN`).
    pub fn mlir_name(self) -> &'static str {
        match self {
            FloatFormat::F16 => "f16",
            FloatFormat::BF16 => "bf16",
            FloatFormat::F32 => "f32",
            FloatFormat::TF32 => "tf32",
            FloatFormat::F64 => "f64",
            FloatFormat::F8E4M3FN => "f8E4M3FN",
            FloatFormat::F8E5M2 => "f8E5M2",
            FloatFormat::F8E8M0FNU => "f8E8M0FNU",
            FloatFormat::F4E2M1FN => "f4E2M1FN",
        }
    }

    /// The format spelled `name` in MLIR, if it is one of ours.
    pub fn from_mlir_name(name: &str) -> Option<FloatFormat> {
        FloatFormat::ALL.into_iter().find(|f| f.mlir_name() == name)
    }

    /// Width of the storage pattern in bits (tf32: 32, the memory layout).
    pub fn bit_width(self) -> u32 {
        let l = self.layout();
        l.ap_width + l.pad
    }

    /// Width of the pattern MLIR/`APFloat` uses (`bitcastToAPInt`): the same
    /// as [`FloatFormat::bit_width`] except tf32, which is 19 bits there. This
    /// is the width that hexadecimal MLIR literals and MLIR bytecode use.
    pub fn apfloat_width(self) -> u32 {
        self.layout().ap_width
    }

    /// Mask of the storage bits (`bit_width` low bits set).
    pub fn storage_mask(self) -> u64 {
        mask(self.bit_width())
    }

    /// Width of the exponent field.
    pub fn exponent_bits(self) -> u32 {
        self.layout().exp_bits
    }

    /// Width of the stored fraction (mantissa) field, hidden bit excluded.
    pub fn mantissa_bits(self) -> u32 {
        self.layout().frac_bits
    }

    /// Significand precision in bits, hidden bit included (`APFloat` precision).
    pub fn precision(self) -> u32 {
        self.layout().precision()
    }

    /// Exponent bias: a normal value is `1.f * 2^(field - bias)`.
    pub fn bias(self) -> i32 {
        self.layout().bias
    }

    /// Exponent of the smallest normal value (`APFloat` minExponent).
    pub fn min_exponent(self) -> i32 {
        self.layout().emin
    }

    /// Exponent of the largest finite value (`APFloat` maxExponent).
    pub fn max_exponent(self) -> i32 {
        self.layout().emax
    }

    /// Whether the format has a sign bit (all but f8E8M0FNU).
    pub fn has_sign(self) -> bool {
        self.layout().signed
    }

    /// Whether zero is representable (all but f8E8M0FNU).
    pub fn has_zero(self) -> bool {
        self != FloatFormat::F8E8M0FNU
    }

    /// Whether negative zero is representable (every signed format).
    pub fn has_negative_zero(self) -> bool {
        self.has_sign() && self.has_zero()
    }

    /// Whether infinities are representable (f16, bf16, f32, tf32, f64, f8E5M2).
    pub fn has_inf(self) -> bool {
        self.layout().non_finite == NonFinite::Ieee
    }

    /// Whether NaN is representable (all but f4E2M1FN).
    pub fn has_nan(self) -> bool {
        self.layout().non_finite != NonFinite::FiniteOnly
    }

    /// Whether subnormal values exist (all but f8E8M0FNU).
    pub fn has_subnormals(self) -> bool {
        self.has_zero() && self.layout().frac_bits > 0
    }

    /// The largest finite value.
    pub fn max_finite(self) -> f64 {
        crate::decode(self, self.max_finite_bits(false))
    }

    /// The smallest positive normal value.
    pub fn min_normal(self) -> f64 {
        crate::decode(self, self.min_normal_bits())
    }

    /// The smallest positive value (the smallest subnormal when the format
    /// has subnormals, else the smallest normal).
    pub fn min_positive(self) -> f64 {
        if self.has_subnormals() {
            // The pattern 0...01: zero exponent field, fraction 1.
            crate::decode(self, self.from_apfloat_bits(1))
        } else {
            self.min_normal()
        }
    }

    /// Bits of the largest finite value, negated when `negative` and the
    /// format has a sign (f8E8M0FNU has no negative values; `negative` is
    /// ignored there).
    pub fn max_finite_bits(self, negative: bool) -> u64 {
        let l = self.layout();
        let mut frac = l.frac_mask();
        let field = (l.emax + l.bias) as u64;
        if l.non_finite == NonFinite::NanOnlyAllOnes && l.frac_bits > 0 {
            // All-ones is NaN, so the largest value ends in a 0 bit.
            frac &= !1;
        }
        let sign = if negative { l.sign_bit() } else { 0 };
        self.from_apfloat_bits(sign | field << l.frac_bits | frac)
    }

    /// Bits of the smallest positive normal value.
    pub fn min_normal_bits(self) -> u64 {
        let l = self.layout();
        self.from_apfloat_bits(((l.emin + l.bias) as u64) << l.frac_bits)
    }

    /// Bits of ±infinity, or `None` when the format has no infinities.
    pub fn inf_bits(self, negative: bool) -> Option<u64> {
        let l = self.layout();
        if !self.has_inf() {
            return None;
        }
        let sign = if negative { l.sign_bit() } else { 0 };
        Some(self.from_apfloat_bits(sign | l.exp_mask() << l.frac_bits))
    }

    /// Bits of the canonical (quiet, positive) NaN that `APFloat::getNaN`
    /// produces, or `None` for f4E2M1FN. IEEE formats set the top fraction
    /// bit (f32: 0x7FC00000, f16: 0x7E00); f8E4M3FN is 0x7F, f8E8M0FNU 0xFF.
    pub fn nan_bits(self) -> Option<u64> {
        self.nan_bits_signed(false)
    }

    /// Like [`FloatFormat::nan_bits`] with the sign bit set when `negative`
    /// (ignored for unsigned formats).
    pub fn nan_bits_signed(self, negative: bool) -> Option<u64> {
        let l = self.layout();
        let sign = if negative { l.sign_bit() } else { 0 };
        let ap = match l.non_finite {
            NonFinite::FiniteOnly => return None,
            NonFinite::NanOnlyAllOnes => l.exp_mask() << l.frac_bits | l.frac_mask() | sign,
            NonFinite::Ieee => l.exp_mask() << l.frac_bits | 1u64 << (l.frac_bits - 1) | sign,
        };
        Some(self.from_apfloat_bits(ap))
    }

    /// Bits of ±0, or `None` for f8E8M0FNU (no zero). Negative zero of an
    /// unsigned format is plain zero.
    pub fn zero_bits(self, negative: bool) -> Option<u64> {
        if !self.has_zero() {
            return None;
        }
        let sign = if negative {
            self.layout().sign_bit()
        } else {
            0
        };
        Some(self.from_apfloat_bits(sign))
    }

    /// Converts storage bits to the `APFloat` (MLIR) pattern: identity except
    /// tf32, where the 32-bit memory layout drops its 13 padding bits to give
    /// the 19-bit pattern (e.g. 0x7FC00000 -> 0x3FE00). Bits outside the
    /// storage width are ignored.
    pub fn to_apfloat_bits(self, bits: u64) -> u64 {
        let l = self.layout();
        (bits & self.storage_mask()) >> l.pad
    }

    /// Converts an `APFloat` (MLIR) pattern to storage bits: identity except
    /// tf32 (19-bit pattern shifted up by 13). Bits outside the `APFloat`
    /// width are ignored.
    pub fn from_apfloat_bits(self, bits: u64) -> u64 {
        let l = self.layout();
        (bits & mask(l.ap_width)) << l.pad
    }

    /// Whether the sign bit of `bits` is set (always false for unsigned formats).
    pub fn is_sign_negative(self, bits: u64) -> bool {
        self.to_apfloat_bits(bits) & self.layout().sign_bit() != 0
    }

    /// The class of a bit pattern.
    pub fn classify(self, bits: u64) -> FloatClass {
        match self.parts(bits) {
            Parts::Nan { .. } => FloatClass::Nan,
            Parts::Inf { .. } => FloatClass::Infinite,
            Parts::Zero { .. } => FloatClass::Zero,
            Parts::Finite { sig, .. } => {
                if sig >> self.layout().frac_bits == 0 {
                    FloatClass::Subnormal
                } else {
                    FloatClass::Normal
                }
            }
        }
    }

    /// Whether `bits` is a NaN.
    pub fn is_nan(self, bits: u64) -> bool {
        self.classify(bits) == FloatClass::Nan
    }

    /// Whether `bits` is ±infinity.
    pub fn is_inf(self, bits: u64) -> bool {
        self.classify(bits) == FloatClass::Infinite
    }

    /// Whether `bits` is a finite value (zero included).
    pub fn is_finite(self, bits: u64) -> bool {
        !matches!(self.classify(bits), FloatClass::Nan | FloatClass::Infinite)
    }

    /// Splits a pattern into sign, integer significand and exponent. For tf32
    /// the 13 padding bits are ignored, like the tensor cores ignore them.
    pub(crate) fn parts(self, bits: u64) -> Parts {
        let l = self.layout();
        let ap = self.to_apfloat_bits(bits);
        let neg = ap & l.sign_bit() != 0;
        let field = (ap >> l.frac_bits) & l.exp_mask();
        let frac = ap & l.frac_mask();
        match l.non_finite {
            NonFinite::Ieee if field == l.exp_mask() => {
                return if frac == 0 {
                    Parts::Inf { neg }
                } else {
                    Parts::Nan { neg }
                };
            }
            NonFinite::NanOnlyAllOnes if field == l.exp_mask() && frac == l.frac_mask() => {
                return Parts::Nan { neg };
            }
            _ => {}
        }
        if field == 0 && self.has_zero() {
            // Zero and subnormals: exponent pinned at emin, no hidden bit.
            return if frac == 0 {
                Parts::Zero { neg }
            } else {
                Parts::Finite {
                    neg,
                    sig: frac,
                    exp: l.emin - l.frac_bits as i32,
                }
            };
        }
        let sig = frac | 1u64 << l.frac_bits;
        Parts::Finite {
            neg,
            sig,
            exp: field as i32 - l.bias - l.frac_bits as i32,
        }
    }
}

impl std::fmt::Display for FloatFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.mlir_name())
    }
}

/// A mask of the `width` low bits (`width` may be 64).
pub(crate) fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}
