//! Optimization-hint parameters: which values NVIDIA's validators accept.
//!
//! Shared by the text parser (NVIDIA 13.1 checks parameters as it parses them) and the
//! verifier (13.3 checks them only when asked to warn), so both word problems alike.

use crate::attrs::Attr;

/// An integer hint value (`2` or a typed `2 : i32`).
fn hint_int(value: &Attr) -> Option<i64> {
    match value {
        Attr::Int(v) => Some(*v),
        Attr::Scalar(n, bits) if n.is_int() => {
            let w = n.bit_width();
            // Sign-extend the stored bit pattern.
            Some(if w >= 64 {
                *bits as i64
            } else {
                ((*bits << (64 - w)) as i64) >> (64 - w)
            })
        }
        _ => None,
    }
}

/// Why one hint parameter's value is invalid (the texts of NVIDIA's validators).
pub fn value_problem(arch: &str, param: &str, value: &Attr) -> Option<String> {
    let context = format!("{arch}.{param}");
    let int = hint_int(value);
    match param {
        "num_cta_in_cga" => {
            let Some(n) = int else {
                return Some(format!("integer value expected for {context}"));
            };
            // Ampere and Ada have no CTA clusters.
            let single = ["sm_80", "sm_86", "sm_87", "sm_88", "sm_89"]
                .iter()
                .any(|a| arch.starts_with(a));
            if single && n != 1 {
                return Some(format!("expected 1 for {context}"));
            }
            (n <= 0 || n > 16 || n & (n - 1) != 0)
                .then(|| format!("expected power-of-two ≤ 16 for {context}"))
        }
        "num_worker_warps_per_cta" => {
            let Some(n) = int else {
                return Some(format!("integer value expected for {context}"));
            };
            (n <= 0 || n > 32 || n & (n - 1) != 0)
                .then(|| format!("expected power-of-two ≤ 32 for {context}"))
        }
        "occupancy" => {
            let Some(n) = int else {
                return Some(format!("integer value expected for {context}"));
            };
            (!(1..=32).contains(&n))
                .then(|| format!("integer value in the range [1, 32] is expected for {context}"))
        }
        "latency" => {
            let Some(n) = int else {
                return Some(format!("integer value expected for {context}"));
            };
            (!(1..=10).contains(&n))
                .then(|| format!("integer value in the range [1, 10] is expected for {context}"))
        }
        "allow_tma" => (!matches!(value, Attr::Bool(_)))
            .then(|| format!("boolean value expected for {context}")),
        _ => Some(format!("unknown param {param} for {arch}")),
    }
}
