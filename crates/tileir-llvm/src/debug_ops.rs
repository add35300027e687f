//! `print_tko` (through the CUDA `vprintf` system call) and `assert` (through
//! `__assertfail`, which reports the message and the kernel source location and traps).
//!
//! cuda_tile prints with a C `printf` subset where each conversion consumes one tile: a
//! rank-0 tile prints one value, a larger tile a bracketed row-major nested list, every
//! element with the same conversion (the reference interpreter's `printf.rs` defines it).
//! The format is expanded at compile time to one conversion per element, with the length
//! modifier the element type needs, and thread 0 prints once per tile block after the tiles
//! are gathered through shared memory.

use crate::lower_ct::{elem_llvm, ValTy};
use crate::writer::FuncWriter;
use std::fmt::Write;
use tileir_ir::{CtOp, CudaTileOp, Location, NumType, OpId, TileElem};

type R<T> = Result<T, String>;

/// Most elements one `print_tko` may print (vprintf's buffer is bounded).
const MAX_PRINTED_ELEMENTS: i64 = 4096;

/// One piece of a format string.
enum Piece {
    Text(String),
    /// Flags, width and precision (without `%`, length modifiers or conversion), and the
    /// conversion character.
    Conv { spec: String, conv: char },
}

fn parse_format(fmt: &str) -> R<Vec<Piece>> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            text.push_str("%%");
            continue;
        }
        let mut spec = String::new();
        while let Some(&f) = chars.peek() {
            if "-+ #0".contains(f) || f.is_ascii_digit() || f == '.' {
                spec.push(f);
                chars.next();
            } else if f == '*' {
                return Err("'*' widths are not supported in print formats".into());
            } else {
                break;
            }
        }
        // Length modifiers are accepted and ignored: the element type decides the width.
        while let Some(&f) = chars.peek() {
            if "hlLqjzt".contains(f) {
                chars.next();
            } else {
                break;
            }
        }
        let Some(conv) = chars.next() else { return Err("print format ends inside a conversion".into()) };
        if !"diuoxXeEfFgGaAcpsSn".contains(conv) {
            return Err(format!("unsupported print conversion '%{conv}'"));
        }
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        out.push(Piece::Conv { spec, conv });
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// LLVM `c"..."` body of `s` with a terminating NUL.
fn c_string(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes().chain(std::iter::once(0)) {
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' || b == b' ' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\{b:02X}");
        }
    }
    out
}

impl FuncWriter<'_> {
    /// A generic pointer to a private NUL-terminated string constant.
    fn string_constant(&mut self, s: &str) -> String {
        self.counter += 1;
        let name = format!("{}.str{}", self.smem_name.trim_end_matches(".smem"), self.counter);
        let len = s.len() + 1;
        self.declare(&format!("{name} = private unnamed_addr addrspace(1) constant [{len} x i8] c\"{}\", align 1", c_string(s)));
        let r = self.fresh("str");
        self.line(&format!("{r} = addrspacecast ptr addrspace(1) {name} to ptr"));
        r
    }

    pub(crate) fn print_op(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let pieces = parse_format(c.str("str").unwrap_or(""))?;
        let nargs = c.segments.first().map(|&n| n as usize).unwrap_or(data.operands.len());
        let args: Vec<_> = data.operands[..nargs.min(data.operands.len())].to_vec();
        let convs = pieces.iter().filter(|p| matches!(p, Piece::Conv { .. })).count();
        if convs != args.len() {
            return Err(format!("the format has {convs} conversions for {} arguments", args.len()));
        }
        let tys: Vec<ValTy> = args.iter().map(|&v| self.val_ty(v)).collect();
        let total: i64 = tys.iter().map(|t| t.shape.iter().product::<i64>()).sum();
        if total > MAX_PRINTED_ELEMENTS {
            return Err(format!("printing {total} elements at once is not supported (at most {MAX_PRINTED_ELEMENTS})"));
        }
        // Tiles go through shared memory to thread 0; scalars are already there.
        let offsets = self.stage_tiles_for_thread0(&args)?;
        let tid = self.thread_id();
        let is0 = self.emit("t0", format!("icmp eq i32 {tid}, 0"));
        let (yes, join) = (self.new_label("prt"), self.new_label("prtj"));
        self.line(&format!("br i1 {is0}, label {yes}, label {join}"));
        self.label(&yes);
        let mut fmt = String::new();
        let mut fields: Vec<(&'static str, String)> = Vec::new();
        let mut arg = 0;
        for p in &pieces {
            match p {
                Piece::Text(t) => fmt.push_str(t),
                Piece::Conv { spec, conv } => {
                    let t = tys[arg].clone();
                    let values = match offsets[arg] {
                        None => self.elems(args[arg])?,
                        Some(base) => {
                            let n: i64 = t.shape.iter().product();
                            let size = crate::lower_ct::smem_elem_bytes(t.elem);
                            let mut vs = Vec::new();
                            for i in 0..n {
                                vs.push(self.smem_load_at(t.elem, base + i as u64 * size)?);
                            }
                            vs
                        }
                    };
                    let mut elems = Vec::new();
                    for v in &values {
                        let (ty, value, modifier) = self.printf_value(t.elem, *conv, v)?;
                        fields.push((ty, value));
                        elems.push(format!("%{spec}{modifier}{conv}"));
                    }
                    fmt.push_str(&nest(&t.shape, &elems));
                    arg += 1;
                }
            }
        }
        let f = self.string_constant(&fmt);
        let buf = if fields.is_empty() {
            "null".to_string()
        } else {
            let sty = format!("{{ {} }}", fields.iter().map(|f| f.0).collect::<Vec<_>>().join(", "));
            let b = self.emit("pbuf", format!("alloca {sty}, align 8"));
            for (i, (ty, v)) in fields.iter().enumerate() {
                let p = self.emit("pf", format!("getelementptr inbounds {sty}, ptr {b}, i32 0, i32 {i}"));
                self.line(&format!("store {ty} {v}, ptr {p}"));
            }
            b
        };
        self.declare("declare i32 @vprintf(ptr, ptr)");
        self.emit("pr", format!("call i32 @vprintf(ptr {f}, ptr {buf})"));
        self.line(&format!("br label {join}"));
        self.label(&join);
        for &r in &data.results {
            self.values.insert(r, crate::writer::Lowered::Token);
        }
        Ok(())
    }

    /// The vprintf field of one element for conversion `conv`: (LLVM type, value, length
    /// modifier). Floats travel as double; integers as int, or long long for 64 bits.
    fn printf_value(&mut self, elem: TileElem, conv: char, v: &str) -> R<(&'static str, String, &'static str)> {
        let float_conv = "eEfFgGaA".contains(conv);
        let n = match elem {
            TileElem::Ptr(_) => {
                let i = self.emit("pp", format!("ptrtoint ptr addrspace(1) {v} to i64"));
                return Ok(("i64", i, "ll"));
            }
            TileElem::Num(n) => n,
        };
        if matches!(n, NumType::F8E4M3FN | NumType::F8E5M2 | NumType::F8E8M0FNU | NumType::F4E2M1FN) {
            // The narrow formats print as their (exact) f32 value.
            let f = self.ftof(n, NumType::F32, v, tileir_ir::RoundingMode::NearestEven)?;
            return self.printf_value(TileElem::Num(NumType::F32), conv, &f);
        }
        let lt = elem_llvm(elem)?;
        if n.is_float() {
            let d = if lt == "double" { v.to_string() } else { self.emit("pd", format!("fpext {lt} {v} to double")) };
            if float_conv || "sS".contains(conv) {
                return Ok(("double", d, ""));
            }
            let i = self.emit("pi", format!("fptosi double {d} to i64"));
            return Ok(("i64", i, "ll"));
        }
        if !n.is_int() && n != NumType::I1 {
            return Err(format!("printing {n} is not supported yet"));
        }
        let signed_conv = "dic".contains(conv);
        if float_conv {
            let op = if signed_conv || n == NumType::I1 { "uitofp" } else { "sitofp" };
            let d = self.emit("pd", format!("{op} {lt} {v} to double"));
            return Ok(("double", d, ""));
        }
        let ext = if n == NumType::I1 { "zext" } else { "sext" };
        if lt == "i64" {
            return Ok(("i64", v.to_string(), "ll"));
        }
        let w = if lt == "i32" { v.to_string() } else { self.emit("pe", format!("{ext} {lt} {v} to i32")) };
        Ok(("i32", w, ""))
    }

    pub(crate) fn assert_op(&mut self, op: OpId, c: &CudaTileOp) -> R<()> {
        let data = self.m.ops[op].clone();
        let cond = data.operands[0];
        let t = self.val_ty(cond);
        let vals = self.elems(cond)?;
        let mut any_false: Option<String> = None;
        for v in &vals {
            let f = self.emit("af", format!("xor i1 {v}, true"));
            any_false = Some(match any_false {
                None => f,
                Some(a) => self.emit("af", format!("or i1 {a}, {f}")),
            });
        }
        let mut fail = any_false.unwrap_or_else(|| "false".into());
        if let Some(l) = t.layout.clone() {
            // Threads that replicate others hold no real elements.
            if let Some(own) = self.thread_coords(&l, &t.shape).valid {
                fail = self.emit("af", format!("and i1 {fail}, {own}"));
            }
        }
        let (bad, ok) = (self.new_label("assert"), self.new_label("assertok"));
        self.line(&format!("br i1 {fail}, label {bad}, label {ok}"));
        self.label(&bad);
        let message = c.str("message").unwrap_or("assertion failed").to_string();
        self.report_failure(op, &message);
        self.line(&format!("br label {ok}"));
        self.label(&ok);
        for &r in &data.results {
            self.values.insert(r, crate::writer::Lowered::Token);
        }
        let _ = CtOp::Assert;
        Ok(())
    }
}

impl FuncWriter<'_> {
    /// Emits the device-side failure report of `op`: `__assertfail` with `message`, the
    /// op's source file and line and the kernel's name (the launch then fails with them).
    pub(crate) fn report_failure(&mut self, op: OpId, message: &str) {
        let (file, line) = match leaf_location(&self.m.op_location(op)) {
            Some((f, l)) => (f, l),
            None => ("<unknown>".to_string(), 0),
        };
        let msg = self.string_constant(message);
        let file = self.string_constant(&file);
        let func = self.function_name.clone();
        let func = self.string_constant(&func);
        self.declare("declare void @__assertfail(ptr, ptr, i32, ptr, i64)");
        self.line(&format!("call void @__assertfail(ptr {msg}, ptr {file}, i32 {line}, ptr {func}, i64 1)"));
    }
}

/// The first file:line inside a (possibly fused, named or call-site) location.
fn leaf_location(loc: &Location) -> Option<(String, u32)> {
    match loc {
        Location::FileLineCol { file, line, .. } => Some((file.clone(), *line)),
        Location::Fused(v) => v.iter().find_map(leaf_location),
        Location::Name { child, .. } => child.as_deref().and_then(leaf_location),
        Location::CallSite { callee, .. } => leaf_location(callee),
        _ => None,
    }
}

/// Row-major nested list text of `elems` (one formatted conversion each) for `shape`.
fn nest(shape: &[i64], elems: &[String]) -> String {
    if shape.is_empty() {
        return elems.first().cloned().unwrap_or_default();
    }
    let inner: i64 = shape[1..].iter().product();
    let parts: Vec<String> =
        (0..shape[0]).map(|i| nest(&shape[1..], &elems[(i * inner) as usize..((i + 1) * inner) as usize])).collect();
    format!("[{}]", parts.join(", "))
}
