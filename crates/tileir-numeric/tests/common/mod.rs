//! Shared test helpers.

/// SplitMix64: a tiny deterministic generator, so the randomized tests need
/// no dependency and always see the same inputs (failures reproduce).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A finite f64 spread over many magnitudes: random bits (mostly huge or
    /// tiny), small integers scaled by powers of two (hits every narrow
    /// format's grid and its ties), and short decimals.
    pub fn finite_f64(&mut self) -> f64 {
        loop {
            let v = match self.next_u64() % 3 {
                0 => f64::from_bits(self.next_u64()),
                1 => {
                    let m = (self.next_u64() % (1 << 26)) as f64;
                    let e = (self.next_u64() % 330) as i32 - 180;
                    m * 2f64.powi(e)
                }
                _ => {
                    (self.next_u64() % 10_000_000) as f64
                        / 10f64.powi((self.next_u64() % 14) as i32)
                }
            };
            if v.is_finite() {
                return if self.next_u64() & 1 == 1 { -v } else { v };
            }
        }
    }
}
