//! Exact conversion between `f64` and every [`FloatFormat`].
//!
//! Decoding is exact because every value of every format is an `f64`. Encoding
//! rounds the `f64` *once*, straight to the target, so narrowing conversions
//! never double-round. Inputs wider than `f64` never occur in CUDA Tile IR,
//! so an `f64` input is enough to convert any element type to any other
//! exactly: `decode` then `encode` is a single, correct rounding.
//!
//! Results follow LLVM `APFloat::convert` bit for bit where `APFloat` defines
//! them (it is what MLIR's parser and constant folder use); the few cases it
//! leaves undefined are documented on [`encode_with_status`].

use crate::format::{FloatFormat, NonFinite, Parts};

/// Rounding direction of a conversion (IEEE 754 attributes; CUDA Tile IR's
/// `rounding<nearest_even|zero|negative_inf|positive_inf>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Round to nearest, ties to even (`rn`).
    NearestEven,
    /// Round toward zero, i.e. truncate (`rz`).
    TowardZero,
    /// Round toward negative infinity (`rm`).
    TowardNegative,
    /// Round toward positive infinity (`rp`).
    TowardPositive,
}

impl Rounding {
    /// Every rounding mode.
    pub const ALL: [Rounding; 4] = [
        Rounding::NearestEven,
        Rounding::TowardZero,
        Rounding::TowardNegative,
        Rounding::TowardPositive,
    ];

    /// Whether a value of this sign that is too large for the format goes to
    /// infinity (as opposed to the largest finite value) under this mode.
    fn overflows_to_infinity(self, negative: bool) -> bool {
        match self {
            Rounding::NearestEven => true,
            Rounding::TowardZero => false,
            Rounding::TowardNegative => negative,
            Rounding::TowardPositive => !negative,
        }
    }
}

/// What to do with values beyond the largest finite magnitude.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Saturation {
    /// `APFloat` semantics: overflow that the rounding mode sends toward
    /// infinity becomes ±infinity, or NaN in formats without infinities
    /// (f8E4M3FN, f8E8M0FNU); f4E2M1FN, which has neither, saturates. Other
    /// overflow gives the largest finite value.
    #[default]
    None,
    /// PTX `.satfinite`: every overflow, and ±infinity inputs, give the
    /// largest finite value of the same sign; NaN stays NaN.
    Finite,
}

/// IEEE-style exception flags of one conversion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Status {
    /// The result differs from the input value.
    pub inexact: bool,
    /// The input was finite and beyond the format's finite range (whatever
    /// the result: infinity, NaN or a saturated value).
    pub overflow: bool,
    /// The result is inexact and zero or subnormal.
    pub underflow: bool,
}

/// The bits of one conversion together with its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Encoded {
    /// The result, in the format's storage layout.
    pub bits: u64,
    /// What happened on the way.
    pub status: Status,
}

/// Converts `value` to `fmt` with one rounding; returns the storage bits.
/// See [`encode_with_status`] for the special cases.
pub fn encode(fmt: FloatFormat, value: f64, rounding: Rounding, saturation: Saturation) -> u64 {
    encode_with_status(fmt, value, rounding, saturation).bits
}

/// Converts an `f32` to `fmt` (exactly as [`encode`] of the same value: every
/// `f32` is an `f64`, so no precision is lost on the way).
pub fn encode_from_f32(
    fmt: FloatFormat,
    value: f32,
    rounding: Rounding,
    saturation: Saturation,
) -> u64 {
    encode(fmt, f64::from(value), rounding, saturation)
}

/// Converts a value held in one format to another with one rounding (the
/// CUDA Tile IR `ftof`). The value is decoded exactly, so this is a single
/// correct rounding from the source value.
pub fn convert(
    from: FloatFormat,
    bits: u64,
    to: FloatFormat,
    rounding: Rounding,
    saturation: Saturation,
) -> Encoded {
    if from == to && saturation == Saturation::None {
        // Same format: nothing to round, and going through f64 would lose
        // f64 NaN payload details; only tf32's padding bits are cleared.
        return Encoded {
            bits: from.from_apfloat_bits(from.to_apfloat_bits(bits)),
            status: Status::default(),
        };
    }
    encode_with_status(to, decode(from, bits), rounding, saturation)
}

/// Converts `value` to `fmt`, rounding once, and reports the IEEE flags.
///
/// Finite values follow `APFloat::convert` (MLIR's semantics):
/// - subnormal results are rounded at the subnormal quantum (no flush; use
///   [`flush_subnormal`] for flush-to-zero);
/// - overflow under [`Saturation::None`]: when the rounding mode points away
///   from zero for this sign (always for [`Rounding::NearestEven`]) the result
///   is ±infinity, or NaN (sign kept) for f8E4M3FN and f8E8M0FNU; otherwise
///   the largest finite value. For f8E4M3FN the NaN pattern counts as
///   overflow, so with round-to-nearest 464 (the tie) gives 448 and anything
///   above gives NaN. f4E2M1FN has no infinity or NaN and always saturates.
/// - f8E8M0FNU has a one-bit significand whose only digit is 1, so a tie
///   (`1.5 * 2^k`) rounds *up* under round-to-nearest-even, as in `APFloat`;
///   values below 2^-127, and zero, give 0x00 (2^-127, the format has no zero).
///
/// Cases `APFloat` leaves undefined (it asserts or produces garbage), with
/// the choice made here:
/// - negative nonzero values, -∞, and NaN to f8E8M0FNU: NaN (0xFF);
/// - +∞ to f8E8M0FNU: NaN, or 0xFE (2^127) under [`Saturation::Finite`];
/// - ±∞ to f4E2M1FN: ±6 (the format saturates everything else too);
/// - NaN to f4E2M1FN: +6 (the largest finite value, as PTX `.satfinite`
///   conversions to formats without NaN do);
/// - NaN to IEEE formats keeps the sign and the top payload bits and sets the
///   quiet bit (what `APFloat` does); NaN to f64 returns the input bits
///   unchanged; NaN to f8E4M3FN gives `S.1111.111`.
pub fn encode_with_status(
    fmt: FloatFormat,
    value: f64,
    rounding: Rounding,
    saturation: Saturation,
) -> Encoded {
    let l = fmt.layout();
    let neg = value.is_sign_negative();
    let exact = |bits: u64| Encoded {
        bits,
        status: Status::default(),
    };
    let inexact = |bits: u64| Encoded {
        bits,
        status: Status {
            inexact: true,
            ..Status::default()
        },
    };
    let max = fmt.max_finite_bits(neg);

    if value.is_nan() {
        return match l.non_finite {
            NonFinite::FiniteOnly => inexact(fmt.max_finite_bits(false)),
            NonFinite::NanOnlyAllOnes => exact(fmt.nan_bits_signed(neg).unwrap_or(0)),
            NonFinite::Ieee if fmt == FloatFormat::F64 => exact(value.to_bits()),
            NonFinite::Ieee => {
                // Keep the top payload bits, force the quiet bit: a signalling
                // NaN whose payload is truncated away must not become Inf.
                let payload = (value.to_bits() & ((1u64 << 52) - 1)) >> (52 - l.frac_bits);
                let quiet = 1u64 << (l.frac_bits - 1);
                let field = ((1u64 << l.exp_bits) - 1) << l.frac_bits;
                let sign = u64::from(neg) << (l.ap_width - 1);
                exact(fmt.from_apfloat_bits(sign | field | payload | quiet))
            }
        };
    }

    if !l.signed && neg && value != 0.0 {
        // f8E8M0FNU cannot hold any negative value.
        return inexact(fmt.nan_bits().unwrap_or(0));
    }

    if value.is_infinite() {
        return match (saturation, l.non_finite) {
            (Saturation::Finite, _) | (_, NonFinite::FiniteOnly) => inexact(max),
            (Saturation::None, NonFinite::Ieee) => exact(fmt.inf_bits(neg).unwrap_or(0)),
            (Saturation::None, NonFinite::NanOnlyAllOnes) => {
                inexact(fmt.nan_bits_signed(neg).unwrap_or(0))
            }
        };
    }

    if value == 0.0 {
        return match fmt.zero_bits(neg) {
            Some(bits) => exact(bits),
            // No zero: `APFloat` substitutes the smallest normal value.
            None => inexact(fmt.min_normal_bits()),
        };
    }

    // A finite nonzero f64 is sig * 2^exp with sig < 2^53.
    let raw = value.to_bits();
    let field = ((raw >> 52) & 0x7FF) as i32;
    let frac = raw & ((1u64 << 52) - 1);
    let (sig, exp) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | 1u64 << 52, field - 1075)
    };
    round_finite(fmt, neg, sig, exp, rounding, saturation)
}

/// Rounds the nonzero value `(-1)^neg * sig * 2^exp` to `fmt` (one rounding).
fn round_finite(
    fmt: FloatFormat,
    neg: bool,
    sig: u64,
    exp: i32,
    rounding: Rounding,
    saturation: Saturation,
) -> Encoded {
    let l = fmt.layout();
    let p = l.precision() as i32;

    // The exponent the result will carry: that of the input's leading bit,
    // but never below emin (there the spacing stops shrinking: subnormals).
    let msb = 63 - sig.leading_zeros() as i32;
    let mut e = (exp + msb).max(l.emin);
    // The result is n * 2^(e - (p-1)); find n by shifting sig right.
    let shift = (e - (p - 1)) - exp;

    let (mut n, round_up, lost) = if shift <= 0 {
        // Exact: fewer significant bits than the format keeps.
        (sig << -shift, false, false)
    } else if shift >= 64 {
        // Everything is shifted out and sig < 2^53 is below half the quantum.
        let up = matches!(
            (rounding, neg),
            (Rounding::TowardPositive, false) | (Rounding::TowardNegative, true)
        );
        (0, up, true)
    } else {
        let kept = sig >> shift;
        let rem = sig & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let up = rem != 0
            && match rounding {
                // A tie goes to the even neighbour; note that for a one-bit
                // significand (f8E8M0FNU) the kept digit is always 1, so ties
                // round up, exactly as `APFloat` does.
                Rounding::NearestEven => rem > half || (rem == half && kept & 1 == 1),
                Rounding::TowardZero => false,
                Rounding::TowardNegative => neg,
                Rounding::TowardPositive => !neg,
            };
        (kept, up, rem != 0)
    };
    if round_up {
        n += 1;
        if n == 1u64 << p {
            // Carry out of the significand: 1.11..1 became 10.00..0.
            n >>= 1;
            e += 1;
        }
    }

    // Beyond the largest finite value? For formats whose NaN is the all-ones
    // pattern, reaching that pattern is overflow too (there is no 480 in
    // f8E4M3FN), exactly as `APFloat::normalize` treats it.
    let all_ones_nan = l.non_finite == NonFinite::NanOnlyAllOnes
        && l.frac_bits > 0
        && e == l.emax
        && n == (1u64 << p) - 1;
    if e > l.emax || all_ones_nan {
        let status = Status {
            inexact: true,
            overflow: true,
            underflow: false,
        };
        let to_infinity = saturation == Saturation::None
            && l.non_finite != NonFinite::FiniteOnly
            && rounding.overflows_to_infinity(neg);
        let bits = if !to_infinity {
            fmt.max_finite_bits(neg)
        } else if let Some(inf) = fmt.inf_bits(neg) {
            inf
        } else {
            fmt.nan_bits_signed(neg).unwrap_or(0)
        };
        return Encoded { bits, status };
    }

    let tiny = n < 1u64 << (p - 1);
    let status = Status {
        inexact: lost,
        overflow: false,
        underflow: lost && tiny,
    };
    if n == 0 {
        let bits = match fmt.zero_bits(neg) {
            Some(z) => z,
            // f8E8M0FNU has no zero: like `APFloat`, use the smallest normal.
            None => fmt.min_normal_bits(),
        };
        return Encoded { bits, status };
    }
    // Subnormal results keep the zero exponent field.
    let field = if tiny { 0 } else { (e + l.bias) as u64 };
    let sign = if neg && l.signed {
        1u64 << (l.ap_width - 1)
    } else {
        0
    };
    let frac = n & ((1u64 << l.frac_bits) - 1);
    Encoded {
        bits: fmt.from_apfloat_bits(sign | field << l.frac_bits | frac),
        status,
    }
}

/// The exact value of a bit pattern as an `f64` (every format's values are
/// `f64` values). NaNs keep their sign; IEEE NaNs keep their payload,
/// left-aligned, with the quiet bit set. For tf32 the 13 padding bits are
/// ignored.
pub fn decode(fmt: FloatFormat, bits: u64) -> f64 {
    if fmt == FloatFormat::F64 {
        return f64::from_bits(bits);
    }
    let l = fmt.layout();
    match fmt.parts(bits) {
        Parts::Nan { neg } => {
            let payload = if l.non_finite == NonFinite::Ieee {
                (fmt.to_apfloat_bits(bits) & ((1u64 << l.frac_bits) - 1)) << (52 - l.frac_bits)
            } else {
                0
            };
            let sign = u64::from(neg) << 63;
            f64::from_bits(sign | 0x7FF0_0000_0000_0000 | 1u64 << 51 | payload)
        }
        Parts::Inf { neg } => {
            if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Parts::Zero { neg } => {
            if neg {
                -0.0
            } else {
                0.0
            }
        }
        Parts::Finite { neg, sig, exp } => {
            // sig * 2^exp is a normal f64 for every narrow format: build it
            // directly so no arithmetic can round.
            let msb = 63 - sig.leading_zeros() as i32;
            let frac = (sig << (52 - msb)) & ((1u64 << 52) - 1);
            let field = (exp + msb + 1023) as u64;
            f64::from_bits(u64::from(neg) << 63 | field << 52 | frac)
        }
    }
}

/// Flush-to-zero: a subnormal pattern becomes zero of the same sign; every
/// other pattern is returned unchanged (masked to the storage width).
pub fn flush_subnormal(fmt: FloatFormat, bits: u64) -> u64 {
    let bits = bits & fmt.storage_mask();
    if fmt.classify(bits) == crate::FloatClass::Subnormal {
        fmt.zero_bits(fmt.is_sign_negative(bits)).unwrap_or(bits)
    } else {
        bits
    }
}
