//! MLIR's textual form of float attributes, printed and parsed exactly as the
//! reference toolchain does.
//!
//! **Printing** follows `printFloatValue` in `mlir/lib/IR/AsmPrinter.cpp`,
//! which builtin dense literals (and so CUDA Tile IR's `constant <f32: …>`)
//! use for every element:
//! 1. NaN and ±Inf print as the `APFloat` bit pattern in hexadecimal, `0x`
//!    and upper-case digits without zero padding (`0x7FC00000`, `0xFC00`,
//!    tf32 as its 19-bit pattern `0x3FC00`).
//! 2. Otherwise the value is printed in `%e` style with six significant
//!    digits (`APFloat::toString(…, 6, 0, false)`: `1.000000e+00`,
//!    `-3.140630e+00`, `0.000000e+00`); if that text parses back to the same
//!    bits, it is the answer.
//! 3. Otherwise `APFloat::toString` with its defaults (as many digits as the
//!    precision may need, plain notation when the exponent is small,
//!    `2.7182818284590451`, `1.17549435E-38`); if that text contains a `.`
//!    it is the answer.
//! 4. Otherwise (a large integral value such as f32 `1234567.0`, which the
//!    default form prints as `1234567`) the hexadecimal bit pattern.
//!
//! `APFloat::toString`'s digit generation has quirks (it truncates before it
//! rounds half-up, so an `%e` string can differ from C's `printf`); the code
//! below reproduces its arithmetic step by step rather than using Rust's
//! formatter.
//!
//! **Parsing** follows `Parser::parseFloatFromLiteral` (`mlir/lib/AsmParser`),
//! which CUDA Tile IR's dense-literal parser calls through
//! `AsmParser::parseFloat(semantics, …)`:
//! - a float token (`[0-9]+ '.' [0-9]* ([eE][-+]?[0-9]+)?`, optionally after
//!   a `-` token) is read as an `f64` (correctly rounded) and then converted
//!   to the target with round-to-nearest-even. The double rounding is MLIR's
//!   own behaviour, and it is harmless for every format here up to f32,
//!   because `f64` carries more than `2p + 2` bits for them.
//! - overflow is **not** an error: `70000.0` as f16 is `0x7C00` (+Inf), as
//!   the reference test `test/Dialect/CudaTile/dense_attr.mlir` checks; in
//!   f8E4M3FN it is NaN, in f4E2M1FN it saturates to 6.
//! - an integer token in hexadecimal is the raw `APFloat` bit pattern; it may
//!   have leading zeros but no more significant bits than the `APFloat` width
//!   (tf32: 19) and no minus sign.
//! - a decimal integer token (`42`) is rejected, and there are no `inf` or
//!   `nan` keywords.

use crate::bignum::BigUint;
use crate::convert::{encode_with_status, Encoded, Rounding, Saturation, Status};
use crate::format::{FloatFormat, Parts};

/// Why a float literal was rejected. `Display` gives MLIR's diagnostic text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatParseError {
    /// A decimal integer such as `42` where a float is expected; MLIR wants
    /// `42.0` (see [`FloatParseError::note`]).
    DecimalInteger,
    /// A hexadecimal bit pattern written with a leading `-`.
    NegativeHex,
    /// A hexadecimal bit pattern wider than the format.
    HexOutOfRange,
    /// A decimal literal beyond the format's finite range; only
    /// [`parse_mlir_float_checked`] reports this (MLIR itself accepts it).
    OutOfRange,
    /// Not a float literal at all (empty, stray characters, `inf`, `nan`, …).
    Invalid,
}

impl FloatParseError {
    /// The note MLIR attaches to the diagnostic, if any.
    pub fn note(self) -> Option<&'static str> {
        match self {
            FloatParseError::DecimalInteger => {
                Some("add a trailing dot to make the literal a float")
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for FloatParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FloatParseError::DecimalInteger => {
                "unexpected decimal integer literal for a floating point value"
            }
            FloatParseError::NegativeHex => {
                "hexadecimal float literal should not have a leading minus"
            }
            FloatParseError::HexOutOfRange => "hexadecimal float constant out of range for type",
            FloatParseError::OutOfRange => "float constant out of range for type",
            FloatParseError::Invalid => "expected floating point literal",
        })
    }
}

impl std::error::Error for FloatParseError {}

/// Prints a value the way MLIR prints a float element of a dense literal or a
/// `FloatAttr` (without the `: type` suffix). `bits` is in storage layout.
pub fn format_mlir(fmt: FloatFormat, bits: u64) -> String {
    let hex = || format!("0x{:X}", fmt.to_apfloat_bits(bits));
    let p = fmt.precision();
    match fmt.parts(bits) {
        Parts::Nan { .. } | Parts::Inf { .. } => hex(),
        // `toString` special-cases zero; it always re-parses to itself.
        Parts::Zero { neg } => format!("{}0.000000e+00", if neg { "-" } else { "" }),
        Parts::Finite { neg, sig, exp } => {
            let short = apfloat_to_string(neg, exp, sig, p, 6, 0, false);
            let canonical = fmt.from_apfloat_bits(fmt.to_apfloat_bits(bits));
            if reparse(fmt, &short) == Some(canonical) {
                return short;
            }
            let full = apfloat_to_string(neg, exp, sig, p, 0, 3, true);
            if full.contains('.') {
                full
            } else {
                hex()
            }
        }
    }
}

/// `APFloat(semantics, text)`: the correctly rounded (nearest-even) value of
/// a decimal string in `fmt`. Via `f64` this is exact for every format up to
/// f32 (double rounding through 53 bits is innocuous for p <= 25) and trivially
/// for f64.
fn reparse(fmt: FloatFormat, text: &str) -> Option<u64> {
    let v: f64 = text.parse().ok()?;
    Some(encode_with_status(fmt, v, Rounding::NearestEven, Saturation::None).bits)
}

/// Our transcription of `toStringImpl` from LLVM's `APFloat.cpp`: prints
/// `(-1)^neg * sig * 2^exp2` (nonzero) where the format has `precision` bits.
///
/// * `format_precision`: significant digits to keep (0: enough to round-trip,
///   `2 + precision * 59 / 196`);
/// * `max_padding`: how many zeros plain notation may add before switching
///   to scientific (0: always scientific);
/// * `truncate_zero`: scientific style `1.0E+10` (true) or `1.000000e+10`
///   (false, zero-filled to `format_precision` and a two-digit exponent).
fn apfloat_to_string(
    neg: bool,
    exp2: i32,
    sig: u64,
    precision: u32,
    format_precision: u32,
    max_padding: u32,
    truncate_zero: bool,
) -> String {
    debug_assert!(sig != 0);
    let fp = if format_precision == 0 {
        // Steele & White: digits that always suffice for this precision.
        2 + precision * 59 / 196
    } else {
        format_precision
    };

    // Drop trailing binary zeros, then turn sig * 2^exp2 into big * 10^exp.
    let tz = sig.trailing_zeros();
    let mut exp = exp2 + tz as i32;
    let mut big = BigUint::from_u64(sig >> tz);
    if exp > 0 {
        big.shl(exp as u32);
        exp = 0;
    } else if exp < 0 {
        // N * 2^-e == N * 5^e * 10^-e.
        big.mul_pow5(exp.unsigned_abs());
    }

    // First trim (APFloat's integer AdjustToPrecision): divide away whole
    // powers of ten beyond what `fp` digits need, *truncating*. 196/59
    // slightly overestimates log2(10), so a few spare digits usually remain
    // for the rounding below, but not always.
    let bits = big.bit_len();
    // APFloat writes this as (fp * 196 + 58) / 59.
    let required = (fp * 196).div_ceil(59);
    if bits > required {
        let tens = (bits - required) * 59 / 196;
        if tens > 0 {
            exp += tens as i32;
            big.div_pow10(tens);
        }
    }

    // Decimal digits, least significant first, trailing zeros folded into exp.
    let mut digits: Vec<u8> = Vec::new();
    while !big.is_zero() {
        let d = big.div_small(10) as u8;
        if digits.is_empty() && d == 0 {
            exp += 1;
        } else {
            digits.push(b'0' + d);
        }
    }

    // Second trim (the digit-buffer AdjustToPrecision): keep `fp` digits,
    // rounding half up on the first dropped digit alone.
    let n = digits.len();
    if n > fp as usize {
        let mut first = n - fp as usize;
        if digits[first - 1] < b'5' {
            // Truncate, also dropping zeros that would become trailing.
            while first < n && digits[first] == b'0' {
                first += 1;
            }
            exp += first as i32;
            digits.drain(..first);
        } else {
            // Add one with carry; nines that carry become trailing zeros and
            // are dropped with the rest.
            while first < n && digits[first] == b'9' {
                first += 1;
            }
            if first < n {
                digits[first] += 1;
            }
            exp += first as i32;
            if first == n {
                digits = vec![b'1'];
            } else {
                digits.drain(..first);
            }
        }
    }

    let nd = digits.len();
    // Most significant digit first from here on.
    digits.reverse();
    let mut out = String::new();
    if neg {
        out.push('-');
    }

    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        // 765e3 -> 765000, unless that adds too many zeros or implies more
        // precision than the value has.
        exp as u32 > max_padding || nd as u32 + exp as u32 > fp
    } else {
        // Power of ten of the most significant digit.
        let msd = exp + nd as i32 - 1;
        msd < 0 && msd.unsigned_abs() > max_padding
    };

    if scientific {
        exp += nd as i32 - 1;
        out.push(digits[0] as char);
        out.push('.');
        if nd == 1 && truncate_zero {
            out.push('0');
        } else {
            out.extend(digits[1..].iter().map(|&d| d as char));
        }
        if !truncate_zero && fp as usize > nd - 1 {
            out.extend(std::iter::repeat_n('0', fp as usize + 1 - nd));
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if exp >= 0 { '+' } else { '-' });
        let mag = exp.unsigned_abs().to_string();
        if !truncate_zero && mag.len() < 2 {
            out.push('0');
        }
        out.push_str(&mag);
    } else if exp >= 0 {
        out.extend(digits.iter().map(|&d| d as char));
        out.extend(std::iter::repeat_n('0', exp as usize));
    } else {
        let whole = exp + nd as i32;
        if whole > 0 {
            let whole = whole as usize;
            out.extend(digits[..whole].iter().map(|&d| d as char));
            out.push('.');
            out.extend(digits[whole..].iter().map(|&d| d as char));
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', whole.unsigned_abs() as usize));
            out.extend(digits.iter().map(|&d| d as char));
        }
    }
    out
}

/// Parses a float literal of `fmt` as MLIR does (see the module docs) and
/// returns the storage bits. `text` is the literal with an optional leading
/// `-` and no surrounding space: `1.5`, `-2.0e-3`, `0x7FC00000`.
pub fn parse_mlir_float(fmt: FloatFormat, text: &str) -> Result<u64, FloatParseError> {
    parse_mlir_float_with_status(fmt, text).map(|e| e.bits)
}

/// Like [`parse_mlir_float`], but rejects a decimal literal that overflows the
/// format with [`FloatParseError::OutOfRange`] ("float constant out of range
/// for type"). MLIR does not do this; use it where a stricter front end is
/// wanted.
pub fn parse_mlir_float_checked(fmt: FloatFormat, text: &str) -> Result<u64, FloatParseError> {
    let e = parse_mlir_float_with_status(fmt, text)?;
    if e.status.overflow {
        Err(FloatParseError::OutOfRange)
    } else {
        Ok(e.bits)
    }
}

/// Like [`parse_mlir_float`], also reporting what the conversion did.
/// `status.overflow` is set when a decimal literal is beyond the format's
/// finite range (the result is then ±Inf, NaN or saturated, as MLIR makes
/// it); `inexact`/`underflow` describe the `f64` -> format step only (the
/// decimal -> `f64` step is not tracked). Hex patterns are always exact.
pub fn parse_mlir_float_with_status(
    fmt: FloatFormat,
    text: &str,
) -> Result<Encoded, FloatParseError> {
    let (neg, lit) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let b = lit.as_bytes();

    // MLIR's lexer: `0x` followed by a hex digit starts a hexadecimal integer.
    if b.len() > 2 && b[0] == b'0' && b[1] == b'x' && b[2].is_ascii_hexdigit() {
        let hex = &lit[2..];
        if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(FloatParseError::Invalid);
        }
        if neg {
            return Err(FloatParseError::NegativeHex);
        }
        let significant = hex.trim_start_matches('0');
        let active_bits = match significant.as_bytes().first() {
            None => 0,
            Some(&c) => {
                let top = (c as char).to_digit(16).unwrap_or(0);
                4 * (significant.len() as u32 - 1) + (32 - top.leading_zeros())
            }
        };
        if active_bits > fmt.apfloat_width() {
            return Err(FloatParseError::HexOutOfRange);
        }
        let value = u64::from_str_radix(
            if significant.is_empty() {
                "0"
            } else {
                significant
            },
            16,
        )
        .map_err(|_| FloatParseError::HexOutOfRange)?;
        return Ok(Encoded {
            bits: fmt.from_apfloat_bits(value),
            status: Status::default(),
        });
    }

    // Decimal: [0-9]+ then, for a float token, '.' [0-9]* ([eE][-+]?[0-9]+)?
    let int_end = b
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(b.len());
    if int_end == 0 {
        return Err(FloatParseError::Invalid);
    }
    if b.get(int_end) != Some(&b'.') {
        // The first token is an integer: that is what MLIR complains about.
        return Err(FloatParseError::DecimalInteger);
    }
    let frac_start = int_end + 1;
    let frac_end = frac_start
        + b[frac_start..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(b.len() - frac_start);
    let mut end = frac_end;
    let mut exponent = "";
    if matches!(b.get(end), Some(b'e' | b'E')) {
        // The exponent belongs to the token only if digits follow.
        let mut digits_at = end + 1;
        if matches!(b.get(digits_at), Some(b'+' | b'-')) {
            digits_at += 1;
        }
        let exp_len = b[digits_at.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if exp_len > 0 {
            exponent = &lit[end + 1..digits_at + exp_len];
            end = digits_at + exp_len;
        }
    }
    if end != b.len() {
        return Err(FloatParseError::Invalid);
    }

    // Token::getFloatingPointValue: the correctly rounded f64.
    let frac = &lit[frac_start..frac_end];
    let normalized = format!(
        "{}.{}e{}",
        &lit[..int_end],
        if frac.is_empty() { "0" } else { frac },
        if exponent.is_empty() { "0" } else { exponent }
    );
    let magnitude: f64 = normalized.parse().map_err(|_| FloatParseError::Invalid)?;
    let value = if neg { -magnitude } else { magnitude };
    let mut encoded = encode_with_status(fmt, value, Rounding::NearestEven, Saturation::None);
    if magnitude.is_infinite() {
        // The literal was finite: it overflowed already on the way to f64.
        encoded.status.overflow = true;
        encoded.status.inexact = true;
    }
    Ok(encoded)
}
