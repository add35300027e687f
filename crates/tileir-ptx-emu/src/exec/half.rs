//! Fast exact conversions between f32 and the 16-bit formats (f16, bf16) and tf32, for the
//! hot paths of cvt; everything else goes through tileir-numeric. Bit-for-bit the same
//! results (tests compare the two on many values).

/// f16 bits to f32 (exact; NaN payloads kept).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) >> 15) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // Subnormal: man · 2^-24, exact in f32.
            let v = man as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
    } else if exp == 31 {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// f32 to f16 bits, round to nearest even; None for NaN (callers decide the NaN).
#[inline]
pub fn f32_to_f16_rn(x: f32) -> Option<u16> {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 255 {
        return if man != 0 { None } else { Some(sign | 0x7c00) };
    }
    let e = exp - 112;
    if e >= 31 {
        return Some(sign | 0x7c00);
    }
    if e <= 0 {
        if e < -10 {
            return Some(sign);
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        let r = if rem > half || (rem == half && r & 1 == 1) { r + 1 } else { r };
        return Some(sign | r as u16);
    }
    let r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    // A carry out of the mantissa moves to the next binade (or to infinity): still right.
    let r = if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) { r + 1 } else { r };
    Some(sign | r as u16)
}

/// bf16 bits to f32.
#[inline]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// f32 to bf16 bits, round to nearest even; None for NaN.
#[inline]
pub fn f32_to_bf16_rn(x: f32) -> Option<u16> {
    if x.is_nan() {
        return None;
    }
    let b = x.to_bits();
    let r = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    Some((r >> 16) as u16)
}

/// f32 to tf32 (in f32 storage), round to nearest with ties away; None for NaN.
#[inline]
pub fn f32_to_tf32_rna(x: f32) -> Option<u32> {
    if x.is_nan() {
        return None;
    }
    if x.is_infinite() {
        return Some(x.to_bits());
    }
    Some(x.to_bits().wrapping_add(0x1000) & !0x1fff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tileir_numeric::{decode, encode, FloatFormat, Rounding, Saturation};

    #[test]
    fn agree_with_tileir_numeric() {
        for h in 0..=u16::MAX {
            let f = decode(FloatFormat::F16, h as u64);
            let g = f16_to_f32(h) as f64;
            assert!(f == g || (f.is_nan() && g.is_nan()), "f16 {h:#x}");
            let b = decode(FloatFormat::BF16, h as u64);
            let c = bf16_to_f32(h) as f64;
            assert!(b == c || (b.is_nan() && c.is_nan()), "bf16 {h:#x}");
        }
        let mut x = 0x0000_0001u32;
        let mut samples = vec![0x3380_0000, 0x3300_0000, 0x3300_0001, 0x477f_f000, 0x477f_efff, 0x4780_0000, 0x387f_c000, 0x3880_1000];
        while x < 0x7f80_0000 {
            samples.push(x);
            x = x.wrapping_mul(3).wrapping_add(0x1357) % 0x7f80_0000 + (x >> 4) + 1;
        }
        for &b in &samples {
            for s in [0u32, 0x8000_0000] {
                let v = f32::from_bits(b | s);
                let want = encode(FloatFormat::F16, v as f64, Rounding::NearestEven, Saturation::None) as u16;
                assert_eq!(f32_to_f16_rn(v), Some(want), "f32 {:#x} to f16", b | s);
                let want = encode(FloatFormat::BF16, v as f64, Rounding::NearestEven, Saturation::None) as u16;
                assert_eq!(f32_to_bf16_rn(v), Some(want), "f32 {:#x} to bf16", b | s);
            }
        }
        assert_eq!(f32_to_tf32_rna(f32::from_bits(0x3f80_1000)), Some(0x3f80_2000));
        assert_eq!(f32_to_tf32_rna(f32::from_bits(0x3f80_0fff)), Some(0x3f80_0000));
    }
}
