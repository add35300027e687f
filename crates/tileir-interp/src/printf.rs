//! `print_tko` formatting: a C `printf` subset applied to tiles.
//!
//! Each `%` conversion consumes one tile argument. A rank-0 tile prints as one value; a tile
//! with more elements prints as a bracketed, row-major nested list (`[[1, 2], [3, 4]]`), every
//! element formatted with the same conversion. Supported: flags `-+ #0`, width, precision,
//! length modifiers (accepted and ignored: the element type decides the width), conversions
//! `d i u o x X e E f F g G a A c p %`; `s`, `S` and `n` print the value as `%g`/`%d` would
//! (there are no strings or writable counters in Tile IR).

use crate::value::{unsigned, Data, Tile};

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    conv: char,
}

/// Formats `fmt` with `args`; errors name a mismatch between conversions and arguments.
pub fn format(fmt: &str, args: &[&Tile]) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut next_arg = 0;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            chars.next();
        }
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            spec.width = spec.width * 10 + d as usize;
            chars.next();
        }
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                p = p * 10 + d as usize;
                chars.next();
            }
            spec.precision = Some(p);
        }
        while matches!(chars.peek(), Some('h' | 'l' | 'L' | 'q' | 'j' | 'z' | 't')) {
            chars.next();
        }
        let Some(conv) = chars.next() else {
            return Err("format string ends inside a conversion".into());
        };
        spec.conv = conv;
        let Some(arg) = args.get(next_arg) else {
            return Err(format!(
                "format string has more conversions than the {} argument(s)",
                args.len()
            ));
        };
        next_arg += 1;
        format_tile(&mut out, arg, &spec);
    }
    if next_arg != args.len() {
        return Err(format!(
            "format string has {next_arg} conversion(s) but {} argument(s) were given",
            args.len()
        ));
    }
    Ok(out)
}

fn format_tile(out: &mut String, t: &Tile, spec: &Spec) {
    if t.shape.is_empty() {
        out.push_str(&format_elem(t, 0, spec));
        return;
    }
    fn rec(out: &mut String, t: &Tile, spec: &Spec, dim: usize, base: usize, stride: &[usize]) {
        out.push('[');
        for i in 0..t.shape[dim] {
            if i > 0 {
                out.push_str(", ");
            }
            let idx = base + i * stride[dim];
            if dim + 1 == t.shape.len() {
                out.push_str(&format_elem(t, idx, spec));
            } else {
                rec(out, t, spec, dim + 1, idx, stride);
            }
        }
        out.push(']');
    }
    let stride = crate::shape::strides_of(&t.shape);
    rec(out, t, spec, 0, 0, &stride);
}

fn format_elem(t: &Tile, i: usize, spec: &Spec) -> String {
    let w = t.num().bit_width();
    // The value in the two readings a conversion may want.
    let (int, uint, float): (i128, u128, f64) = match &t.data {
        Data::Int(v) => (v[i] as i128, unsigned(w, v[i]) as u128, v[i] as f64),
        Data::F32(v) => (v[i] as i128, v[i] as u128, v[i] as f64),
        Data::F64(v) => (v[i] as i128, v[i] as u128, v[i]),
        Data::Ptr(v) => (v[i] as i128, v[i] as u128, v[i] as f64),
    };
    let is_float = matches!(t.data, Data::F32(_) | Data::F64(_));
    let (body, negative, numeric) = match spec.conv {
        'd' | 'i' => {
            let v = if is_float { float.trunc() as i128 } else { int };
            let mut s = v.unsigned_abs().to_string();
            if let Some(p) = spec.precision {
                while s.len() < p {
                    s.insert(0, '0');
                }
            }
            (s, v < 0, true)
        }
        'u' | 'o' | 'x' | 'X' => {
            let v = if is_float {
                float.trunc() as i128 as u128
            } else {
                uint
            };
            let mut s = match spec.conv {
                'u' => v.to_string(),
                'o' => format!("{v:o}"),
                'x' => format!("{v:x}"),
                _ => format!("{v:X}"),
            };
            if let Some(p) = spec.precision {
                while s.len() < p {
                    s.insert(0, '0');
                }
            }
            if spec.alt && v != 0 {
                match spec.conv {
                    'o' => s.insert(0, '0'),
                    'x' => s.insert_str(0, "0x"),
                    'X' => s.insert_str(0, "0X"),
                    _ => {}
                }
            }
            (s, false, true)
        }
        'c' => (
            char::from_u32(uint as u32).unwrap_or('?').to_string(),
            false,
            false,
        ),
        'p' => (format!("0x{uint:x}"), false, false),
        _ => {
            let v = if is_float { float } else { int as f64 };
            (
                format_float(v.abs(), spec),
                v.is_sign_negative() && !v.is_nan(),
                true,
            )
        }
    };
    let sign = if negative {
        "-"
    } else if numeric && spec.plus {
        "+"
    } else if numeric && spec.space {
        " "
    } else {
        ""
    };
    let len = sign.len() + body.chars().count();
    if len >= spec.width {
        return format!("{sign}{body}");
    }
    let pad = spec.width - len;
    if spec.left {
        format!("{sign}{body}{}", " ".repeat(pad))
    } else if spec.zero
        && numeric
        && body
            .chars()
            .all(|c| c.is_ascii_hexdigit() || ".xXp+-e".contains(c))
    {
        format!("{sign}{}{body}", "0".repeat(pad))
    } else {
        format!("{}{sign}{body}", " ".repeat(pad))
    }
}

/// `%e`/`%f`/`%g`/`%a` of a non-negative value (sign handled by the caller).
fn format_float(v: f64, spec: &Spec) -> String {
    let upper = spec.conv.is_ascii_uppercase();
    let s = if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        "inf".to_string()
    } else {
        let p = spec.precision.unwrap_or(6);
        match spec.conv.to_ascii_lowercase() {
            'f' => format!("{v:.p$}"),
            'e' => exp_form(v, p),
            'a' => hex_float(v, spec.precision),
            _ => {
                // %g: precision P (0 means 1); exponent X of the %e form decides the style.
                let p = if p == 0 { 1 } else { p };
                let x = if v == 0.0 {
                    0
                } else {
                    let e = exp_form(v, p - 1);
                    e[e.find('e').unwrap() + 1..].parse::<i32>().unwrap_or(0)
                };
                let mut s = if x < -4 || x >= p as i32 {
                    exp_form(v, p - 1)
                } else {
                    format!("{:.*}", (p as i32 - 1 - x) as usize, v)
                };
                if !spec.alt {
                    s = strip_zeros(&s);
                }
                s
            }
        }
    };
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{exp}")
}

/// C's `%.{p}e`: `d.ddde+XX` with at least two exponent digits.
fn exp_form(v: f64, p: usize) -> String {
    let s = format!("{v:.p$e}");
    let (mant, exp) = s.split_at(s.find('e').unwrap());
    let e: i32 = exp[1..].parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// C's `%a` for a non-negative finite value (glibc style: normalized `0x1.…p±e`, trailing
/// zeros removed when no precision is given).
fn hex_float(v: f64, precision: Option<usize>) -> String {
    if v == 0.0 {
        return "0x0p+0".to_string();
    }
    let bits = v.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i32;
    let mut frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        // Subnormal: normalize.
        let shift = frac.leading_zeros() - 11;
        frac = (frac << shift) & ((1u64 << 52) - 1);
        exp = 1 - shift as i32;
    }
    let e = exp - 1023;
    let mut digits = format!("{frac:013x}");
    match precision {
        Some(p) if p < 13 => digits.truncate(p),
        Some(p) => digits.extend(std::iter::repeat_n('0', p - 13)),
        None => {
            while digits.ends_with('0') {
                digits.pop();
            }
        }
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!(
        "0x1{dot}{digits}p{}{}",
        if e < 0 { '-' } else { '+' },
        e.abs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tileir_ir::{NumType, TileElem};

    fn f(v: f64) -> Tile {
        Tile {
            shape: vec![],
            elem: TileElem::Num(NumType::F64),
            data: Data::F64(vec![v]),
        }
    }

    #[test]
    fn c_like_formatting() {
        assert_eq!(
            format(
                "x=%f %e %g %g",
                &[&f(1.5), &f(12345.678), &f(0.0001), &f(1e20)]
            )
            .unwrap(),
            "x=1.500000 1.234568e+04 0.0001 1e+20"
        );
        let i = Tile {
            shape: vec![2],
            elem: TileElem::Num(NumType::I8),
            data: Data::Int(vec![-1, 5]),
        };
        assert_eq!(
            format("%d|%x|%4u%%", &[&i, &i, &i]).unwrap(),
            "[-1, 5]|[ff, 5]|[ 255,    5]%"
        );
        assert_eq!(
            format("%a %5.1f|%-4d|", &[&f(1.0), &f(-2.25), &f(3.0)]).unwrap(),
            "0x1p+0  -2.2|3   |"
        );
        assert!(format("%d %d", &[&f(1.0)]).is_err());
    }
}
