//! A minimal unsigned big integer, just enough to print floats exactly.
//!
//! Printing `sig * 2^exp` in decimal needs `sig * 5^-exp` exactly, which for
//! the smallest `f64` subnormals is a ~2600-bit number. Only the handful of
//! operations the printer uses are provided.

/// Little-endian base-2^32 digits, no trailing zero limbs (zero is empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BigUint {
    limbs: Vec<u32>,
}

impl BigUint {
    pub(crate) fn from_u64(v: u64) -> BigUint {
        let mut b = BigUint {
            limbs: vec![v as u32, (v >> 32) as u32],
        };
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// Number of significant bits (0 for zero): `APInt::getActiveBits`.
    pub(crate) fn bit_len(&self) -> u32 {
        match self.limbs.last() {
            None => 0,
            Some(top) => (self.limbs.len() as u32 - 1) * 32 + (32 - top.leading_zeros()),
        }
    }

    /// `self <<= bits`.
    pub(crate) fn shl(&mut self, bits: u32) {
        if self.is_zero() {
            return;
        }
        let words = (bits / 32) as usize;
        let bits = bits % 32;
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.limbs {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry != 0 {
                self.limbs.push(carry);
            }
        }
        self.limbs.splice(0..0, std::iter::repeat_n(0, words));
    }

    /// `self *= m`.
    pub(crate) fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
        self.trim();
    }

    /// `self /= d`, returning the remainder (truncating division).
    pub(crate) fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.limbs.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*limb);
            *limb = (cur / u64::from(d)) as u32;
            rem = cur % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    /// `self *= 5^k`.
    pub(crate) fn mul_pow5(&mut self, mut k: u32) {
        // 5^13 is the largest power of five below 2^32.
        const FIVE_13: u32 = 1_220_703_125;
        while k >= 13 {
            self.mul_small(FIVE_13);
            k -= 13;
        }
        self.mul_small(5u32.pow(k));
    }

    /// `self /= 10^k`, truncating (nested truncating divisions compose).
    pub(crate) fn div_pow10(&mut self, mut k: u32) {
        while k >= 9 {
            self.div_small(1_000_000_000);
            k -= 9;
        }
        self.div_small(10u32.pow(k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        let mut a = BigUint::from_u64(3);
        a.mul_pow5(30);
        assert_eq!(a.bit_len(), 72);
        assert_eq!(a.div_small(10), 5);
        let mut b = BigUint::from_u64(1);
        b.shl(100);
        assert_eq!(b.bit_len(), 101);
        b.div_pow10(30);
        // 2^100 / 10^30 = 1.267...
        assert_eq!(b, BigUint::from_u64(1));
        let mut z = BigUint::from_u64(0);
        z.shl(10);
        assert!(z.is_zero());
    }
}
