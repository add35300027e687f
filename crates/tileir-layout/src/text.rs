//! Textual form of layouts for the IR:
//!
//! ```text
//! #tileas.linear<register=[[0,1],[0,2]], lane=[[0,4],[0,8],[1,0],[2,0],[4,0]], warp=[[8,0],[16,0]], shape=[32,16]>
//! #tileas.blocked<size_per_thread=[1,4], threads_per_warp=[8,4], warps_per_cta=[4,1], order=[1,0]>
//! ```
//!
//! Each input dimension lists its basis vectors (one coordinate per output dimension, bit 0
//! first). Output dimensions named `dim0, dim1, …` in order are written `shape=[…]`; any other
//! outputs (an inverted layout's, a shared layout's inverse) are written `out=[offset=4096]`.
//! Distributed layouts always print `register`, `lane` and `warp`, even when empty.

use crate::constructors::Blocked;
use crate::layout::{Dim, LayoutError, LinearLayout};
use std::fmt;
use std::str::FromStr;

/// `[a,b,c]`, the list form both layout texts use.
pub(crate) fn write_vec(f: &mut fmt::Formatter<'_>, v: &[impl fmt::Display]) -> fmt::Result {
    f.write_str("[")?;
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{x}")?;
    }
    f.write_str("]")
}

impl fmt::Display for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("#tileas.linear<")?;
        let ins = self.in_dims();
        let distributed = ins
            .iter()
            .all(|d| matches!(d, Dim::Register | Dim::Lane | Dim::Warp | Dim::Block));
        let mut dims: Vec<Dim> = ins.clone();
        if distributed {
            for d in [Dim::Register, Dim::Lane, Dim::Warp] {
                if !dims.contains(&d) {
                    dims.push(d);
                }
            }
            dims.sort();
        }
        let mut first = true;
        for d in dims {
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            write!(f, "{d}=[")?;
            for (i, b) in self.basis(d).iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write_vec(f, b)?;
            }
            f.write_str("]")?;
        }
        if !first {
            f.write_str(", ")?;
        }
        let outs = self.out_dims();
        if outs
            .iter()
            .enumerate()
            .all(|(i, o)| o.0 == Dim::Tile(i as u32))
        {
            f.write_str("shape=")?;
            write_vec(f, &self.shape())?;
        } else {
            f.write_str("out=[")?;
            for (i, (d, s)) in outs.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{d}={s}")?;
            }
            f.write_str("]")?;
        }
        f.write_str(">")
    }
}

/// A parsed value: an integer, a list, or `name=int` (only inside `out=[…]`).
#[derive(Debug)]
enum Val {
    Int(u32),
    List(Vec<Val>),
    Named(String, u32),
}

struct P<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> P<'a> {
    fn err<T>(&self, msg: impl fmt::Display) -> Result<T, LayoutError> {
        Err(LayoutError(format!(
            "layout syntax error at offset {}: {msg}",
            self.pos
        )))
    }

    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), LayoutError> {
        if self.eat(c) {
            Ok(())
        } else {
            let found = self
                .s
                .get(self.pos)
                .map_or("end of input".to_string(), |b| format!("'{}'", *b as char));
            self.err(format!("expected '{}', found {found}", c as char))
        }
    }

    fn ident(&mut self) -> Result<String, LayoutError> {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_')
        {
            self.pos += 1;
        }
        if start == self.pos {
            return self.err("expected a name");
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
    }

    fn int(&mut self) -> Result<u32, LayoutError> {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if start == self.pos {
            return self.err("expected an integer");
        }
        let t = std::str::from_utf8(&self.s[start..self.pos]).unwrap();
        match t.parse() {
            Ok(v) => Ok(v),
            Err(_) => {
                self.pos = start;
                self.err(format!("integer {t} out of range"))
            }
        }
    }

    fn value(&mut self) -> Result<Val, LayoutError> {
        self.ws();
        match self.s.get(self.pos) {
            Some(b'[') => {
                self.pos += 1;
                let mut v = Vec::new();
                if !self.eat(b']') {
                    loop {
                        v.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        self.expect(b',')?;
                    }
                }
                Ok(Val::List(v))
            }
            Some(c) if c.is_ascii_digit() => Ok(Val::Int(self.int()?)),
            Some(c) if c.is_ascii_alphabetic() => {
                let n = self.ident()?;
                self.expect(b'=')?;
                Ok(Val::Named(n, self.int()?))
            }
            _ => self.err("expected an integer or '['"),
        }
    }

    /// `#tileas.<kind><name=value, …>` → entries with their start offsets.
    fn attr(&mut self, kind: &str) -> Result<Vec<(String, Val, usize)>, LayoutError> {
        self.ws();
        let head = format!("#tileas.{kind}<");
        if !self.s[self.pos..].starts_with(head.as_bytes()) {
            return self.err(format!("expected '{head}'"));
        }
        self.pos += head.len();
        let mut entries = Vec::new();
        if !self.eat(b'>') {
            loop {
                self.ws();
                let at = self.pos;
                let name = self.ident()?;
                if entries
                    .iter()
                    .any(|(n, _, _): &(String, Val, usize)| *n == name)
                {
                    self.pos = at;
                    return self.err(format!("'{name}' given twice"));
                }
                self.expect(b'=')?;
                let v = self.value()?;
                entries.push((name, v, at));
                if self.eat(b'>') {
                    break;
                }
                self.expect(b',')?;
            }
        }
        self.ws();
        if self.pos != self.s.len() {
            return self.err("unexpected text after '>'");
        }
        Ok(entries)
    }
}

fn int_list(v: &Val, what: &str) -> Result<Vec<u32>, LayoutError> {
    match v {
        Val::List(items) => items
            .iter()
            .map(|x| match x {
                Val::Int(i) => Ok(*i),
                _ => Err(LayoutError(format!("{what}: expected a list of integers"))),
            })
            .collect(),
        _ => Err(LayoutError(format!("{what}: expected a list of integers"))),
    }
}

impl FromStr for LinearLayout {
    type Err = LayoutError;

    /// Parses the form written by [`Display`](fmt::Display).
    fn from_str(s: &str) -> Result<Self, LayoutError> {
        let mut p = P {
            s: s.as_bytes(),
            pos: 0,
        };
        let entries = p.attr("linear")?;
        let mut ins = Vec::new();
        let mut outs: Option<Vec<(Dim, u32)>> = None;
        for (name, v, at) in &entries {
            let ctx = |m: String| LayoutError(format!("layout error at offset {at}: {m}"));
            match name.as_str() {
                "shape" => {
                    if outs.is_some() {
                        return Err(ctx("both 'shape' and 'out' given".into()));
                    }
                    let sh = int_list(v, "shape").map_err(|e| ctx(e.0))?;
                    outs = Some(
                        sh.iter()
                            .enumerate()
                            .map(|(i, &n)| (Dim::Tile(i as u32), n))
                            .collect(),
                    );
                }
                "out" => {
                    if outs.is_some() {
                        return Err(ctx("both 'shape' and 'out' given".into()));
                    }
                    let Val::List(items) = v else {
                        return Err(ctx("out: expected [name=size, …]".into()));
                    };
                    let mut o = Vec::new();
                    for it in items {
                        let Val::Named(n, size) = it else {
                            return Err(ctx("out: expected [name=size, …]".into()));
                        };
                        let d = Dim::from_name(n)
                            .ok_or_else(|| ctx(format!("unknown dimension '{n}'")))?;
                        o.push((d, *size));
                    }
                    outs = Some(o);
                }
                other => {
                    let d = Dim::from_name(other).ok_or_else(|| {
                        ctx(format!("unknown dimension '{other}' (expected register, lane, warp, block, offset, dimN, shape or out)"))
                    })?;
                    let Val::List(items) = v else {
                        return Err(ctx(format!("{other}: expected a list of basis vectors")));
                    };
                    let basis = items
                        .iter()
                        .enumerate()
                        .map(|(i, b)| int_list(b, &format!("{other} basis vector {i}")))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| ctx(e.0))?;
                    ins.push((d, basis));
                }
            }
        }
        let outs =
            outs.ok_or_else(|| LayoutError("layout error: missing 'shape' (or 'out')".into()))?;
        LinearLayout::new(ins, outs)
    }
}

impl FromStr for Blocked {
    type Err = LayoutError;

    /// Parses `#tileas.blocked<size_per_thread=[…], threads_per_warp=[…], warps_per_cta=[…], order=[…]>`.
    fn from_str(s: &str) -> Result<Self, LayoutError> {
        let mut p = P {
            s: s.as_bytes(),
            pos: 0,
        };
        let entries = p.attr("blocked")?;
        let get = |key: &str| -> Result<Vec<u32>, LayoutError> {
            let (_, v, _) = entries
                .iter()
                .find(|(n, _, _)| n == key)
                .ok_or_else(|| LayoutError(format!("blocked layout: missing '{key}'")))?;
            int_list(v, key)
        };
        for (n, _, at) in &entries {
            if ![
                "size_per_thread",
                "threads_per_warp",
                "warps_per_cta",
                "order",
            ]
            .contains(&n.as_str())
            {
                return Err(LayoutError(format!(
                    "layout error at offset {at}: unknown blocked parameter '{n}'"
                )));
            }
        }
        let b = Blocked {
            size_per_thread: get("size_per_thread")?,
            threads_per_warp: get("threads_per_warp")?,
            warps_per_cta: get("warps_per_cta")?,
            order: get("order")?.into_iter().map(|x| x as usize).collect(),
        };
        let n = b.order.len();
        if b.size_per_thread.len() != n
            || b.threads_per_warp.len() != n
            || b.warps_per_cta.len() != n
        {
            return Err(LayoutError(
                "blocked layout: parameter lists have different lengths".into(),
            ));
        }
        Ok(b)
    }
}
