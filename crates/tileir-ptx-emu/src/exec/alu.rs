//! Integer semantics, one lane at a time: pure functions of bit patterns (values are kept
//! zero-extended to their width in 64-bit register slots).

use crate::program::{Cmp, IntBin, IntTy, IntUn};

/// All-ones mask of `bits` bits.
#[inline(always)]
pub fn mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `v`'s low `bits` bits as a signed value.
#[inline(always)]
pub fn sext(v: u64, bits: u8) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits as u32;
        ((v << s) as i64) >> s
    }
}

/// Integer binary operation; `Err` names undefined behaviour (division by zero).
#[inline(always)]
pub fn ibin(op: IntBin, t: IntTy, a: u64, b: u64) -> Result<u64, &'static str> {
    let bits = t.bits;
    let m = mask(bits);
    let (a, bm) = (a & m, b & m);
    Ok(match op {
        IntBin::Add => a.wrapping_add(bm) & m,
        IntBin::Sub => a.wrapping_sub(bm) & m,
        IntBin::AddSat | IntBin::SubSat => {
            let (x, y) = (sext(a, bits) as i128, sext(bm, bits) as i128);
            let r = if op == IntBin::AddSat { x + y } else { x - y };
            let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
            (r.clamp(lo, hi) as u64) & m
        }
        IntBin::MulLo => a.wrapping_mul(bm) & m,
        IntBin::MulHi => {
            let p = if t.signed { (sext(a, bits) as i128 * sext(bm, bits) as i128) as u128 } else { a as u128 * bm as u128 };
            ((p >> bits) as u64) & m
        }
        IntBin::MulWide => {
            let wm = mask(bits.saturating_mul(2).min(64));
            if t.signed {
                (sext(a, bits).wrapping_mul(sext(bm, bits)) as u64) & wm
            } else {
                a.wrapping_mul(bm) & wm
            }
        }
        IntBin::Mul24Lo | IntBin::Mul24Hi => {
            let (x, y) = if t.signed { (sext(a & 0xff_ffff, 24), sext(bm & 0xff_ffff, 24)) } else { ((a & 0xff_ffff) as i64, (bm & 0xff_ffff) as i64) };
            let p = x.wrapping_mul(y) as u64;
            if op == IntBin::Mul24Lo {
                p & 0xffff_ffff
            } else {
                (p >> 16) & 0xffff_ffff
            }
        }
        IntBin::Min | IntBin::Max => {
            let less = if t.signed { sext(a, bits) < sext(bm, bits) } else { a < bm };
            if (op == IntBin::Min) == less {
                a
            } else {
                bm
            }
        }
        IntBin::And => a & bm,
        IntBin::Or => a | bm,
        IntBin::Xor => a ^ bm,
        IntBin::Shl => {
            let n = b & 0xffff_ffff;
            if n >= bits as u64 {
                0
            } else {
                (a << n) & m
            }
        }
        IntBin::Shr => {
            let n = b & 0xffff_ffff;
            if t.signed {
                let n = n.min(bits as u64 - 1);
                ((sext(a, bits) >> n) as u64) & m
            } else if n >= bits as u64 {
                0
            } else {
                a >> n
            }
        }
        IntBin::Div | IntBin::Rem => {
            if bm == 0 {
                return Err("integer division by zero");
            }
            if t.signed {
                let (x, y) = (sext(a, bits), sext(bm, bits));
                let r = if op == IntBin::Div { x.wrapping_div(y) } else { x.wrapping_rem(y) };
                // The narrow MIN / -1 overflows its width: wraps like the hardware.
                (r as u64) & m
            } else if op == IntBin::Div {
                a / bm
            } else {
                a % bm
            }
        }
        IntBin::BmskClamp | IntBin::BmskWrap => {
            let (pos, width) = if op == IntBin::BmskWrap { (a & 31, bm & 31) } else { (a.min(32), bm.min(32)) };
            let ones = if width >= 32 { u64::MAX } else { (1u64 << width) - 1 };
            if pos >= 32 {
                0
            } else {
                (ones << pos) & 0xffff_ffff
            }
        }
    })
}

/// Integer unary operation.
#[inline(always)]
pub fn iun(op: IntUn, t: IntTy, a: u64) -> u64 {
    let bits = t.bits;
    let m = mask(bits);
    let a = a & m;
    match op {
        IntUn::Not => !a & m,
        IntUn::Cnot => (a == 0) as u64,
        IntUn::Neg => a.wrapping_neg() & m,
        IntUn::Abs => (sext(a, bits).wrapping_abs() as u64) & m,
        IntUn::Popc => a.count_ones() as u64,
        IntUn::Clz => (a.leading_zeros() - (64 - bits as u32)) as u64,
        IntUn::Brev => a.reverse_bits() >> (64 - bits as u32),
        IntUn::Bfind | IntUn::BfindShift => {
            // For signed inputs the search is for the most significant bit that differs from
            // the sign.
            let v = if t.signed && sext(a, bits) < 0 { !a & m } else { a };
            if v == 0 {
                return 0xffff_ffff;
            }
            let pos = 63 - v.leading_zeros() as u64;
            if op == IntUn::BfindShift {
                bits as u64 - 1 - pos
            } else {
                pos
            }
        }
    }
}

/// `mad` (lo/hi/wide): the product as `mul` gives it, plus `c`.
#[inline(always)]
pub fn imad(mode: IntBin, t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    let p = ibin(mode, t, a, b).unwrap_or(0);
    let w = if mode == IntBin::MulWide { t.bits.saturating_mul(2).min(64) } else { t.bits };
    p.wrapping_add(c) & mask(w)
}

/// Integer comparison.
#[inline(always)]
pub fn icmp(cmp: Cmp, t: IntTy, a: u64, b: u64) -> bool {
    let m = mask(t.bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, t.bits), sext(b, t.bits));
    match cmp {
        Cmp::Eq | Cmp::Equ => a == b,
        Cmp::Ne | Cmp::Neu => a != b,
        Cmp::Lt | Cmp::Ltu => if t.signed { sa < sb } else { a < b },
        Cmp::Le | Cmp::Leu => if t.signed { sa <= sb } else { a <= b },
        Cmp::Gt | Cmp::Gtu => if t.signed { sa > sb } else { a > b },
        Cmp::Ge | Cmp::Geu => if t.signed { sa >= sb } else { a >= b },
        Cmp::Lo => a < b,
        Cmp::Ls => a <= b,
        Cmp::Hi => a > b,
        Cmp::Hs => a >= b,
        Cmp::Num => true,
        Cmp::Nan => false,
    }
}

/// `lop3.b32`: bit i of the result is bit `(a_i<<2)|(b_i<<1)|c_i` of `lut` (the table is
/// `F(0xF0, 0xCC, 0xAA)`).
#[inline(always)]
pub fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut r = 0u64;
    for k in 0..8u32 {
        if lut >> k & 1 == 1 {
            let ta = if k & 4 != 0 { a } else { !a };
            let tb = if k & 2 != 0 { b } else { !b };
            let tc = if k & 1 != 0 { c } else { !c };
            r |= ta & tb & tc;
        }
    }
    r & 0xffff_ffff
}

/// `prmt.b32` with `mode` (0 default, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16).
pub fn prmt(mode: u8, a: u64, b: u64, c: u64) -> u64 {
    let src = (a & 0xffff_ffff) | ((b & 0xffff_ffff) << 32);
    let byte = |i: u64| (src >> (8 * (i & 7))) & 0xff;
    let mut r = 0u64;
    for i in 0..4u64 {
        let v = if mode == 0 {
            let sel = (c >> (4 * i)) & 0xf;
            let x = byte(sel & 7);
            if sel & 8 != 0 {
                if x & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            } else {
                x
            }
        } else {
            let s = c & 3;
            let idx = match mode {
                1 => s + i,
                2 => s.wrapping_sub(i) & 7,
                3 => s,
                4 => i.max(s),
                5 => i.min(s),
                _ => 2 * (s & 1) + (i & 1),
            };
            byte(idx)
        };
        r |= v << (8 * i);
    }
    r
}

/// `bfe`: extract `len` bits at `pos` (zero- or sign-extended).
pub fn bfe(t: IntTy, a: u64, pos: u64, len: u64) -> u64 {
    let bits = t.bits as u64;
    let (pos, len) = (pos & 0xff, len & 0xff);
    let m = mask(t.bits);
    let a = a & m;
    let msb = bits - 1;
    let sbit = if !t.signed || len == 0 { 0 } else { (a >> (pos + len - 1).min(msb)) & 1 };
    let mut r = 0u64;
    for i in 0..bits {
        let bit = if i < len && pos + i <= msb { (a >> (pos + i)) & 1 } else { sbit };
        r |= bit << i;
    }
    r
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(bits: u8, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mut r = b & mask(bits);
    let mut i = 0;
    while i < len && pos + i < bits as u64 {
        r = (r & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        i += 1;
    }
    r
}

/// `shf.{l,r}.{wrap,clamp}.b32`: funnel shift of `b:a` by `c`.
pub fn shf(left: bool, wrap: bool, a: u64, b: u64, c: u64) -> u64 {
    let n = if wrap { c & 31 } else { (c & 0xffff_ffff).min(32) };
    let v = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    if left {
        ((v << n) >> 32) & 0xffff_ffff
    } else {
        (v >> n) & 0xffff_ffff
    }
}

/// `szext`: sign- or zero-extend the low `b` bits of `a`.
pub fn szext(signed: bool, wrap: bool, a: u64, b: u64) -> u64 {
    let n = if wrap { b & 31 } else { (b & 0xffff_ffff).min(32) };
    if n >= 32 {
        return a & 0xffff_ffff;
    }
    if n == 0 {
        return 0;
    }
    let v = a & mask(n as u8);
    if signed {
        (sext(v, n as u8) as u64) & 0xffff_ffff
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const U32: IntTy = IntTy { bits: 32, signed: false };
    const S32: IntTy = IntTy { bits: 32, signed: true };
    const U64: IntTy = IntTy { bits: 64, signed: false };

    #[test]
    fn shifts_at_and_beyond_width() {
        assert_eq!(ibin(IntBin::Shl, U32, 1, 31).unwrap(), 0x8000_0000);
        assert_eq!(ibin(IntBin::Shl, U32, 1, 32).unwrap(), 0);
        assert_eq!(ibin(IntBin::Shr, U32, 0x8000_0000, 40).unwrap(), 0);
        assert_eq!(ibin(IntBin::Shr, S32, 0x8000_0000, 40).unwrap(), 0xffff_ffff);
        assert_eq!(ibin(IntBin::Shr, S32, 0x4000_0000, 100).unwrap(), 0);
        assert_eq!(ibin(IntBin::Shl, U64, 1, 63).unwrap(), 1 << 63);
        assert_eq!(ibin(IntBin::Shl, U64, 1, 64).unwrap(), 0);
    }

    #[test]
    fn mul_forms() {
        assert_eq!(ibin(IntBin::MulHi, U32, 0xffff_ffff, 0xffff_ffff).unwrap(), 0xffff_fffe);
        assert_eq!(ibin(IntBin::MulHi, S32, 0xffff_ffff, 0xffff_ffff).unwrap(), 0);
        assert_eq!(ibin(IntBin::MulWide, S32, 0xffff_fffe, 3).unwrap(), (-6i64) as u64);
        assert_eq!(ibin(IntBin::MulWide, U32, 0xffff_ffff, 2).unwrap(), 0x1_ffff_fffe);
        assert_eq!(ibin(IntBin::MulHi, U64, u64::MAX, 2).unwrap(), 1);
        assert_eq!(imad(IntBin::MulWide, U32, 4, 1024, 7), 4103);
    }

    #[test]
    fn division() {
        assert!(ibin(IntBin::Div, U32, 1, 0).is_err());
        assert!(ibin(IntBin::Rem, S32, 1, 0).is_err());
        assert_eq!(ibin(IntBin::Div, S32, (-7i32) as u32 as u64, 2).unwrap(), (-3i32) as u32 as u64);
        assert_eq!(ibin(IntBin::Rem, S32, (-7i32) as u32 as u64, 2).unwrap(), (-1i32) as u32 as u64);
        assert_eq!(ibin(IntBin::Div, S32, 0x8000_0000, 0xffff_ffff).unwrap(), 0x8000_0000);
    }

    #[test]
    fn min_max_sat() {
        assert_eq!(ibin(IntBin::Min, S32, 0xffff_ffff, 1).unwrap(), 0xffff_ffff);
        assert_eq!(ibin(IntBin::Min, U32, 0xffff_ffff, 1).unwrap(), 1);
        assert_eq!(ibin(IntBin::AddSat, S32, 0x7fff_ffff, 1).unwrap(), 0x7fff_ffff);
        assert_eq!(ibin(IntBin::SubSat, S32, 0x8000_0000, 1).unwrap(), 0x8000_0000);
    }

    #[test]
    fn bit_ops() {
        assert_eq!(iun(IntUn::Popc, U32, 0xf0f0), 8);
        assert_eq!(iun(IntUn::Clz, U32, 1), 31);
        assert_eq!(iun(IntUn::Clz, U32, 0), 32);
        assert_eq!(iun(IntUn::Brev, U32, 1), 0x8000_0000);
        assert_eq!(iun(IntUn::Bfind, U32, 0), 0xffff_ffff);
        assert_eq!(iun(IntUn::Bfind, U32, 0x10), 4);
        assert_eq!(iun(IntUn::Bfind, S32, 0xffff_ffef), 4);
        assert_eq!(iun(IntUn::BfindShift, U32, 0x10), 27);
        assert_eq!(iun(IntUn::Abs, S32, 0x8000_0000), 0x8000_0000);
        assert_eq!(iun(IntUn::Not, IntTy { bits: 1, signed: false }, 1), 0);
        assert_eq!(lop3(0xF0, 0xCC, 0xAA, 0x80), 0x80);
        assert_eq!(lop3(0xF0, 0xCC, 0xAA, 0x96), 0x96);
        assert_eq!(lop3(0x1234, 0xff00, 0, 0xC0), 0x1200);
    }

    #[test]
    fn permute() {
        assert_eq!(prmt(0, 0x33221100, 0x77665544, 0x3210), 0x33221100);
        assert_eq!(prmt(0, 0x33221100, 0x77665544, 0x7654), 0x77665544);
        assert_eq!(prmt(0, 0x000080ff, 0, 0x4449), 0x0000_00ff);
        assert_eq!(prmt(0, 0x000080ff, 0, 0x8881), 0xffff_ff80);
        assert_eq!(prmt(1, 0x33221100, 0x77665544, 1), 0x44332211);
        assert_eq!(prmt(2, 0x33221100, 0x77665544, 0), 0x55667700);
        assert_eq!(prmt(3, 0x33221100, 0, 2), 0x22222222);
        assert_eq!(prmt(6, 0x33221100, 0, 1), 0x33223322);
    }

    #[test]
    fn fields_and_funnel() {
        assert_eq!(bfe(U32, 0xABCD_1234, 4, 8), 0x23);
        assert_eq!(bfe(S32, 0x0000_0080, 4, 4), 0xffff_fff8);
        assert_eq!(bfe(U32, 0xffff_ffff, 30, 8), 3);
        assert_eq!(bfe(S32, 0x8000_0000, 30, 8), 0xffff_fffe);
        assert_eq!(bfe(U32, 0x1234, 0, 0), 0);
        assert_eq!(bfi(32, 0xF, 0, 4, 4), 0xF0);
        assert_eq!(bfi(32, 0xF, 0, 30, 4), 0xC000_0000);
        assert_eq!(shf(true, true, 0x8000_0000, 1, 1), 3);
        assert_eq!(shf(false, false, 0, 1, 40), 1);
        assert_eq!(shf(false, true, 0, 1, 36), 0x1000_0000);
        assert_eq!(szext(true, false, 0x80, 8), 0xffff_ff80);
    }
}
