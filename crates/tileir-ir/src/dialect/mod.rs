//! The three dialects' closed op sets. Each op is an enum variant whose fields are its
//! typed attributes; operands, results and regions live in the module arena.
//! Every `match` over these enums in the verifier, printer and lowerings is exhaustive,
//! so adding an op without teaching them is a compile error.

pub mod cuda_tile;

pub mod tileaa;
pub mod tileas;

use crate::attrs::{Attr, AttrReader, RoundingMode};

/// Rounding and flush-to-zero of element-wise float arithmetic (`addf`, `subf`, `mulf`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FloatArith {
    /// Rounding mode (default `nearest_even`).
    pub rounding: RoundingMode,
    /// Flush denormals to zero (f32 only).
    pub flush_to_zero: bool,
}

impl Default for FloatArith {
    fn default() -> Self {
        FloatArith { rounding: RoundingMode::NearestEven, flush_to_zero: false }
    }
}

impl FloatArith {
    /// Reads rounding and flush-to-zero from a cuda_tile op's attributes.
    pub fn of(op: &cuda_tile::CudaTileOp) -> FloatArith {
        FloatArith {
            rounding: op.enum_attr("rounding_mode").unwrap_or(RoundingMode::NearestEven),
            flush_to_zero: op.flag("flush_to_zero"),
        }
    }

    pub(crate) fn read(r: &mut AttrReader<'_>) -> FloatArith {
        FloatArith {
            rounding: r
                .keyword("rounding_mode", RoundingMode::from_keyword, RoundingMode::expected)
                .unwrap_or(RoundingMode::NearestEven),
            flush_to_zero: r.flag("flush_to_zero"),
        }
    }
    pub(crate) fn attrs(&self, out: &mut crate::attrs::NamedAttrs) {
        if self.flush_to_zero {
            out.push(("flush_to_zero".into(), Attr::Unit));
        }
        out.push(("rounding_mode".into(), Attr::Enum(RoundingMode::MNEMONIC, self.rounding.keyword())));
    }
    /// Custom-syntax modifiers (`rounding<zero> flush_to_zero`), empty for the defaults.
    pub fn custom_suffix(&self) -> String {
        let mut s = String::new();
        if self.rounding != RoundingMode::NearestEven {
            s.push_str(&format!(" rounding<{}>", self.rounding.keyword()));
        }
        if self.flush_to_zero {
            s.push_str(" flush_to_zero");
        }
        s
    }
}

/// Reads `operandSegmentSizes` (an int array of `expected_len` entries) if present.
pub(crate) fn read_segments(r: &mut AttrReader<'_>, expected_len: usize) -> Option<Vec<i64>> {
    let v = r.int_array("operandSegmentSizes")?;
    if v.len() != expected_len || v.iter().any(|&n| n < 0) {
        r.error(format!("'operandSegmentSizes' must hold {expected_len} non-negative integers, got {v:?}"));
        return None;
    }
    Some(v)
}
