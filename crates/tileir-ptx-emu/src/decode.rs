//! Decoder: one parsed `.entry` to a [`Program`]: registers resolved through their (brace)
//! scopes to indices, labels to instruction indices, symbols to addresses, opcodes and their
//! modifiers to the closed [`Op`] enum. Everything the executor needs is computed here once.

use std::collections::HashMap;

use tileir_numeric::FloatFormat;

use crate::ast::{Function, Instr, Operand, PtxModule, Stmt, VarDecl};
use crate::error::{decode_err, Result};
use crate::mem::MODULE_VARS_BASE;
use crate::parse::parse_uint;
use crate::program::*;

/// A type word of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TyW {
    B(u8),
    U(u8),
    S(u8),
    F(FKind),
    Tf32,
    Fp8(FloatFormat, bool),
    Pred,
}

impl TyW {
    fn parse(w: &str) -> Option<TyW> {
        Some(match w {
            "b8" => TyW::B(8),
            "b16" => TyW::B(16),
            "b32" => TyW::B(32),
            "b64" => TyW::B(64),
            "b128" => TyW::B(128),
            "u8" => TyW::U(8),
            "u16" => TyW::U(16),
            "u32" => TyW::U(32),
            "u64" => TyW::U(64),
            "s8" => TyW::S(8),
            "s16" => TyW::S(16),
            "s32" => TyW::S(32),
            "s64" => TyW::S(64),
            "f16" => TyW::F(FKind::F16),
            "bf16" => TyW::F(FKind::BF16),
            "f32" => TyW::F(FKind::F32),
            "f64" => TyW::F(FKind::F64),
            "f16x2" => TyW::F(FKind::F16x2),
            "bf16x2" => TyW::F(FKind::BF16x2),
            "tf32" => TyW::Tf32,
            "e4m3" => TyW::Fp8(FloatFormat::F8E4M3FN, false),
            "e5m2" => TyW::Fp8(FloatFormat::F8E5M2, false),
            "e4m3x2" => TyW::Fp8(FloatFormat::F8E4M3FN, true),
            "e5m2x2" => TyW::Fp8(FloatFormat::F8E5M2, true),
            "pred" => TyW::Pred,
            _ => return None,
        })
    }
    fn bits(self) -> u8 {
        match self {
            TyW::B(b) | TyW::U(b) | TyW::S(b) => b,
            TyW::F(k) => fkind_bits(k),
            TyW::Tf32 => 32,
            TyW::Fp8(_, pair) => {
                if pair {
                    16
                } else {
                    8
                }
            }
            TyW::Pred => 1,
        }
    }
    fn int(self) -> Option<IntTy> {
        match self {
            TyW::B(b) | TyW::U(b) => Some(IntTy { bits: b, signed: false }),
            TyW::S(b) => Some(IntTy { bits: b, signed: true }),
            TyW::Pred => Some(IntTy { bits: 1, signed: false }),
            _ => None,
        }
    }
}

/// Bits of a float kind's register value.
pub fn fkind_bits(k: FKind) -> u8 {
    match k {
        FKind::F16 | FKind::BF16 => 16,
        FKind::F32 | FKind::F16x2 | FKind::BF16x2 => 32,
        FKind::F64 => 64,
    }
}

/// Decodes kernel `name` of `module` (the first `.entry` when `name` is None).
pub fn decode_kernel(module: &PtxModule, name: Option<&str>) -> Result<Program> {
    let f = match name {
        Some(n) => module.functions.iter().find(|f| f.is_entry && f.name == n).ok_or_else(|| {
            let have: Vec<&str> = module.functions.iter().filter(|f| f.is_entry).map(|f| f.name.as_str()).collect();
            decode_err(0, format!("no kernel named '{n}' in the PTX (kernels: {})", have.join(", ")))
        })?,
        None => module.functions.iter().find(|f| f.is_entry).ok_or_else(|| decode_err(0, "the PTX defines no .entry"))?,
    };
    let mut d = Decoder::new(f);
    d.module_vars(module)?;
    d.params(f)?;
    // Device functions the kernel reaches, placed after it; their parameters and results
    // live in local memory like call arguments (no recursion: one frame per function).
    let funcs = reachable_functions(module, f);
    let mut base = count_insts(f) + 1;
    for g in &funcs {
        let slot = |v: &VarDecl, d: &mut Decoder| -> Result<(u64, usize)> {
            let size = var_bytes(v)?;
            let off = align_up(d.local_bytes, (v.align.max(8)) as usize);
            d.local_bytes = off + size.max(8);
            Ok((off as u64, size))
        };
        let mut ps = Vec::new();
        for p in &g.params {
            ps.push(slot(p, &mut d)?);
        }
        let mut rs = Vec::new();
        for r in &g.returns {
            rs.push(slot(r, &mut d)?);
        }
        d.funcs.insert(g.name.clone(), (base, ps, rs));
        base += count_insts(g) + 1;
    }
    d.body(f, false)?;
    for g in &funcs {
        let (_, ps, rs) = d.funcs[&g.name].clone();
        for (v, s) in g.params.iter().zip(&ps).chain(g.returns.iter().zip(&rs)) {
            d.call_params.insert(v.name.clone(), *s);
        }
        if d.insts.len() as u32 != d.funcs[&g.name].0 {
            return Err(decode_err(g.line, format!("internal: function '{}' placed at {} instead of {}", g.name, d.insts.len(), d.funcs[&g.name].0)));
        }
        d.body(g, true)?;
    }
    Ok(d.finish(f))
}

fn count_insts(f: &Function) -> u32 {
    f.body.iter().filter(|s| matches!(s, Stmt::Inst(_))).count() as u32
}

/// The `.func`s with bodies that `f` calls, directly or not, in first-call order.
fn reachable_functions<'a>(m: &'a PtxModule, f: &'a Function) -> Vec<&'a Function> {
    let mut out: Vec<&Function> = Vec::new();
    let mut todo = vec![f];
    while let Some(g) = todo.pop() {
        for s in &g.body {
            let Stmt::Inst(i) = s else { continue };
            if !i.opcode.starts_with("call") {
                continue;
            }
            for o in &i.operands {
                if let Operand::Name(n) = o {
                    if let Some(h) = m.functions.iter().find(|h| !h.is_entry && &h.name == n) {
                        if !out.iter().any(|x| x.name == h.name) {
                            out.push(h);
                            todo.push(h);
                        }
                    }
                }
            }
        }
    }
    out
}

fn var_bytes(v: &VarDecl) -> Result<usize> {
    let elem = TyW::parse(&v.ty).map(|t| (t.bits() as usize).div_ceil(8)).unwrap_or(1).max(1) * v.vec as usize;
    let n = match v.array {
        None => 1,
        Some(Some(n)) => n as usize,
        Some(None) => 0,
    };
    elem.checked_mul(n).ok_or_else(|| decode_err(v.line, format!("'{}' is too large", v.name)))
}

fn align_up(x: usize, a: usize) -> usize {
    let a = a.max(1);
    x.div_ceil(a) * a
}

/// A device function's first instruction and the local (offset, size) slots of its
/// parameters and results.
type FuncSlots = (u32, Vec<(u64, usize)>, Vec<(u64, usize)>);

struct Decoder {
    name: String,
    reg_names: Vec<String>,
    reg_bits: Vec<u8>,
    /// width of the `.reg` declaration being processed
    cur_bits: u8,
    scopes: Vec<HashMap<String, Reg>>,
    specials: HashMap<String, Reg>,
    special_list: Vec<(Reg, Special)>,
    labels: HashMap<String, u32>,
    /// symbol → (space, address in that space)
    symbols: HashMap<String, (Space, u64)>,
    /// body `.param` variables (call arguments), placed in local memory
    call_params: HashMap<String, (u64, usize)>,
    /// callee name → (first instruction, parameter slots, return slots) as (offset, size)
    funcs: HashMap<String, FuncSlots>,
    params: Vec<ParamSlot>,
    param_bytes: usize,
    shared_bytes: usize,
    local_bytes: usize,
    module_vars: Vec<ModuleVar>,
    insts: Vec<Inst>,
}

impl Decoder {
    fn new(f: &Function) -> Self {
        Decoder {
            name: f.name.clone(),
            reg_names: Vec::new(),
            reg_bits: Vec::new(),
            cur_bits: 64,
            scopes: vec![HashMap::new()],
            specials: HashMap::new(),
            special_list: Vec::new(),
            labels: HashMap::new(),
            symbols: HashMap::new(),
            call_params: HashMap::new(),
            funcs: HashMap::new(),
            params: Vec::new(),
            param_bytes: 0,
            shared_bytes: 0,
            local_bytes: 0,
            module_vars: Vec::new(),
            insts: Vec::new(),
        }
    }

    fn finish(self, f: &Function) -> Program {
        Program {
            name: self.name,
            insts: self.insts,
            nregs: self.reg_names.len() as u32,
            reg_names: self.reg_names,
            reg_bits: self.reg_bits,
            specials: self.special_list,
            params: self.params,
            param_bytes: self.param_bytes,
            shared_bytes: align_up(self.shared_bytes, 16),
            local_bytes: align_up(self.local_bytes, 16),
            reqntid: f.reqntid.or(f.maxntid),
            maxnreg: f.maxnreg,
            minnctapersm: f.minnctapersm,
            cluster: f.cluster,
            explicit_cluster: f.explicit_cluster || f.cluster.is_some(),
            module_vars: self.module_vars,
        }
    }

    fn new_reg(&mut self, name: String) -> Reg {
        let r = self.reg_names.len() as Reg;
        self.reg_names.push(name);
        self.reg_bits.push(self.cur_bits);
        r
    }

    fn module_vars(&mut self, m: &PtxModule) -> Result<()> {
        let mut next = MODULE_VARS_BASE;
        for v in &m.globals {
            let size = var_bytes(v)?;
            match v.space.as_str() {
                "shared" => {
                    let addr = align_up(self.shared_bytes, v.align.max(1) as usize);
                    self.shared_bytes = addr + size;
                    self.symbols.insert(v.name.clone(), (Space::Shared, addr as u64));
                }
                "global" | "const" => {
                    let align = v.align.max(8) as u64;
                    next = next.div_ceil(align) * align;
                    let elem = TyW::parse(&v.ty).map(|t| (t.bits() as usize).div_ceil(8)).unwrap_or(1).max(1);
                    let mut init = vec![0u8; size];
                    for (i, text) in v.init.iter().enumerate() {
                        let bits = parse_imm_text(text, false, (elem * 8) as u8)
                            .ok_or_else(|| decode_err(v.line, format!("bad initializer '{text}' of '{}'", v.name)))?;
                        for b in 0..elem {
                            if let Some(slot) = init.get_mut(i * elem + b) {
                                *slot = (bits >> (8 * b)) as u8;
                            }
                        }
                    }
                    let space = if v.space == "const" { Space::Const } else { Space::Global };
                    self.symbols.insert(v.name.clone(), (space, next));
                    self.module_vars.push(ModuleVar { name: v.name.clone(), addr: next, init, constant: space == Space::Const });
                    next += size.max(1) as u64;
                }
                other => return Err(decode_err(v.line, format!("module-scope .{other} variable '{}' is not supported", v.name))),
            }
        }
        Ok(())
    }

    fn params(&mut self, f: &Function) -> Result<()> {
        for p in &f.params {
            let size = var_bytes(p)?;
            let align = if p.align > 0 { p.align as usize } else { size.clamp(1, 8) };
            let off = align_up(self.param_bytes, align);
            self.param_bytes = off + size;
            self.symbols.insert(p.name.clone(), (Space::Param, off as u64));
            self.params.push(ParamSlot { name: p.name.clone(), ty: p.ty.clone(), offset: off, size });
        }
        Ok(())
    }

    fn body(&mut self, f: &Function, is_func: bool) -> Result<()> {
        // Labels are per function; registers get a scope of their own.
        self.labels.clear();
        self.scopes.push(HashMap::new());
        // Pass 1: labels → instruction index.
        let mut n = self.insts.len() as u32;
        for s in &f.body {
            match s {
                Stmt::Label(l, line) if self.labels.insert(l.clone(), n).is_some() => {
                    return Err(decode_err(*line, format!("label '{l}' is defined twice")));
                }
                Stmt::Inst(_) => n += 1,
                _ => {}
            }
        }
        // Pass 2: declarations in scope order, instructions.
        for s in &f.body {
            match s {
                Stmt::Open(_) => self.scopes.push(HashMap::new()),
                Stmt::Close(line) => {
                    if self.scopes.len() <= 1 {
                        return Err(decode_err(*line, "unbalanced '}'"));
                    }
                    self.scopes.pop();
                }
                Stmt::Reg { names, ty, line } => {
                    self.cur_bits = TyW::parse(ty).map(|t| t.bits()).ok_or_else(|| decode_err(*line, format!("unknown register type '.{ty}'")))?;
                    if self.cur_bits > 64 {
                        return Err(decode_err(*line, format!("registers of type .{ty} are not supported")));
                    }
                    for (name, count) in names {
                        match count {
                            Some(c) => {
                                for i in 0..*c {
                                    let full = format!("{name}{i}");
                                    let r = self.new_reg(full.clone());
                                    self.scopes.last_mut().expect("scope").insert(full, r);
                                }
                            }
                            None => {
                                let r = self.new_reg(name.clone());
                                self.scopes.last_mut().expect("scope").insert(name.clone(), r);
                            }
                        }
                    }
                    self.cur_bits = 64;
                }
                Stmt::Var(v) => {
                    let size = var_bytes(v)?;
                    let align = v.align.max(1) as usize;
                    match v.space.as_str() {
                        "local" => {
                            let off = align_up(self.local_bytes, align);
                            self.local_bytes = off + size;
                            self.symbols.insert(v.name.clone(), (Space::Local, off as u64));
                        }
                        "param" => {
                            let off = align_up(self.local_bytes, align.max(8));
                            self.local_bytes = off + size.max(8);
                            self.call_params.insert(v.name.clone(), (off as u64, size));
                            self.symbols.insert(v.name.clone(), (Space::Local, off as u64));
                        }
                        "shared" => {
                            let off = align_up(self.shared_bytes, align);
                            self.shared_bytes = off + size;
                            self.symbols.insert(v.name.clone(), (Space::Shared, off as u64));
                        }
                        other => return Err(decode_err(v.line, format!(".{other} variable '{}' in a function body is not supported", v.name))),
                    }
                }
                Stmt::Label(..) => {}
                Stmt::Inst(i) => {
                    let op = self.inst(i)?;
                    let (guard, guard_neg) = match &i.guard {
                        None => (NO_GUARD, false),
                        Some((neg, name)) => (self.reg(name, i.line)?, *neg),
                    };
                    self.insts.push(Inst { op, guard, guard_neg, line: i.line });
                }
            }
        }
        // Falling off the end is an implicit exit.
        // Falling off the end returns (a function) or exits (the kernel).
        let line = f.body.iter().rev().find_map(|s| match s {
            Stmt::Inst(i) => Some(i.line),
            _ => None,
        });
        self.insts.push(Inst { op: if is_func { Op::Ret } else { Op::Exit }, guard: NO_GUARD, guard_neg: false, line: line.unwrap_or(f.line) });
        self.scopes.pop();
        Ok(())
    }

    fn reg(&mut self, name: &str, line: u32) -> Result<Reg> {
        for s in self.scopes.iter().rev() {
            if let Some(&r) = s.get(name) {
                return Ok(r);
            }
        }
        if let Some(sp) = special_of(name) {
            if let Some(&r) = self.specials.get(name) {
                return Ok(r);
            }
            let r = self.new_reg(name.to_string());
            self.specials.insert(name.to_string(), r);
            self.special_list.push((r, sp));
            return Ok(r);
        }
        Err(decode_err(line, format!("register '{name}' is not declared")))
    }

    /// A source operand of `bits` bits (`float` set: decimal literals are floats of that kind).
    fn src(&mut self, o: &Operand, bits: u8, line: u32) -> Result<Src> {
        match o {
            Operand::Name(n) => {
                if let Some(&(_, addr)) = self.symbols.get(n) {
                    if !self.scopes.iter().any(|s| s.contains_key(n)) {
                        return Ok(Src::I(self.symbol_value(n, addr)));
                    }
                }
                if let Some(&t) = self.labels.get(n) {
                    if !self.scopes.iter().any(|s| s.contains_key(n)) {
                        return Ok(Src::I(t as u64));
                    }
                }
                Ok(Src::R(self.reg(n, line)?))
            }
            Operand::Imm { text, neg } => parse_imm_text(text, *neg, bits)
                .map(Src::I)
                .ok_or_else(|| decode_err(line, format!("bad immediate '{}{text}'", if *neg { "-" } else { "" }))),
            other => Err(decode_err(line, format!("expected a register or immediate, found {other:?}"))),
        }
    }

    /// The value of symbol `n` used as an operand: its address in its own space (a
    /// module-scope `.global` is a generic address already).
    fn symbol_value(&self, _n: &str, addr: u64) -> u64 {
        addr
    }

    fn dst(&mut self, o: &Operand, line: u32) -> Result<Option<Reg>> {
        match o {
            Operand::Sink => Ok(None),
            Operand::Name(n) => Ok(Some(self.reg(n, line)?)),
            other => Err(decode_err(line, format!("expected a destination register, found {other:?}"))),
        }
    }

    fn dreg(&mut self, o: &Operand, line: u32) -> Result<Reg> {
        match self.dst(o, line)? {
            Some(r) => Ok(r),
            // A sink still needs somewhere to write: a scratch register.
            None => Ok(self.new_reg("_".into())),
        }
    }

    /// An address operand; a symbol base overrides the space (call `.param` variables live
    /// in local memory).
    fn addr(&mut self, o: &Operand, space: Space, line: u32) -> Result<(Space, Addr)> {
        let Operand::Addr { base, offset } = o else {
            return Err(decode_err(line, format!("expected an address '[...]', found {o:?}")));
        };
        if let Operand::Name(n) = &**base {
            if !self.scopes.iter().any(|s| s.contains_key(n)) {
                if let Some(&(off, _)) = self.call_params.get(n) {
                    return Ok((Space::Local, Addr { base: Src::I(off), off: *offset }));
                }
                if let Some(&(sym_space, a)) = self.symbols.get(n) {
                    let sp = if space == Space::Generic { generic_space_of(sym_space) } else { space };
                    let a = if space == Space::Generic { crate::mem::to_generic(sym_space, a) } else { a };
                    return Ok((sp, Addr { base: Src::I(a), off: *offset }));
                }
            }
        }
        let b = self.src(base, 64, line)?;
        Ok((space, Addr { base: b, off: *offset }))
    }

    fn ops<'a>(&self, i: &'a Instr, n: usize) -> Result<&'a [Operand]> {
        if i.operands.len() < n {
            return Err(decode_err(i.line, format!("'{}' needs {n} operands, got {}", i.opcode, i.operands.len())));
        }
        Ok(&i.operands)
    }

    fn inst(&mut self, i: &Instr) -> Result<Op> {
        let parts: Vec<&str> = i.opcode.split('.').collect();
        let base = parts[0];
        let mods = &parts[1..];
        let has = |m: &str| mods.contains(&m);
        let tys: Vec<TyW> = mods.iter().filter_map(|m| TyW::parse(m)).collect();
        let line = i.line;
        let last_ty = || tys.last().copied().ok_or_else(|| decode_err(line, format!("'{}' has no type", i.opcode)));
        let unsupported = || decode_err(line, format!("unsupported instruction '{}'", i.opcode));
        let o = &i.operands;
        let fm = fmods(mods);
        Ok(match base {
            "mov" => {
                let t = last_ty()?;
                let bits = t.bits();
                self.ops(i, 2)?;
                match (&o[0], &o[1]) {
                    (Operand::Vector(ds), s) => {
                        let part = bits / ds.len() as u8;
                        let mut out = Vec::new();
                        for d in ds {
                            out.push(self.dst(d, line)?);
                        }
                        Op::Unpack { ds: out, a: self.src(s, bits, line)?, part_bits: part }
                    }
                    (d, Operand::Vector(ps)) => {
                        let part = bits / ps.len() as u8;
                        let mut parts = Vec::new();
                        for p in ps {
                            parts.push(self.src(p, part, line)?);
                        }
                        Op::Pack { d: self.dreg(d, line)?, parts, part_bits: part }
                    }
                    (d, Operand::Name(n)) if matches!(n.as_str(), "%clock" | "%clock64" | "%globaltimer" | "%globaltimer_lo") => {
                        Op::Clock { d: self.dreg(d, line)? }
                    }
                    (d, s) => Op::Mov { d: self.dreg(d, line)?, a: self.src(s, bits, line)?, bits },
                }
            }
            "ld" | "ldu" => {
                let t = last_ty()?;
                let space = space_of(mods);
                self.ops(i, 2)?;
                let ds = match &o[0] {
                    Operand::Vector(v) => {
                        let mut out = Vec::new();
                        for d in v {
                            out.push(self.dst(d, line)?);
                        }
                        out
                    }
                    d => vec![self.dst(d, line)?],
                };
                if t.bits() > 64 {
                    return Err(unsupported());
                }
                let (space, addr) = self.addr(&o[1], space, line)?;
                Op::Ld { space, bits: t.bits().max(8), sext: matches!(t, TyW::S(_)), ds, addr }
            }
            "st" => {
                let t = last_ty()?;
                let space = space_of(mods);
                self.ops(i, 2)?;
                let bits = t.bits().max(8);
                let vals = match &o[1] {
                    Operand::Vector(v) => {
                        let mut out = Vec::new();
                        for s in v {
                            out.push(self.src(s, bits, line)?);
                        }
                        out
                    }
                    s => vec![self.src(s, bits, line)?],
                };
                if t.bits() > 64 {
                    return Err(unsupported());
                }
                let (space, addr) = self.addr(&o[0], space, line)?;
                Op::St { space, bits, vals, addr }
            }
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl" | "shr" | "mul24" | "copysign" | "bmsk" => {
                let t = last_ty()?;
                self.ops(i, 3)?;
                let d = self.dreg(&o[0], line)?;
                if let TyW::F(k) = t {
                    let op = match base {
                        "add" => FBin::Add,
                        "sub" => FBin::Sub,
                        "mul" => FBin::Mul,
                        "div" => FBin::Div,
                        "min" => FBin::Min,
                        "max" => FBin::Max,
                        "copysign" => FBin::CopySign,
                        _ => return Err(unsupported()),
                    };
                    let bits = t.bits();
                    let (a, b) = (self.src(&o[1], bits, line)?, self.src(&o[2], bits, line)?);
                    return Ok(Op::FBin { op, k, m: fm, d, a, b });
                }
                let it = t.int().ok_or_else(unsupported)?;
                if has("cc") {
                    if !matches!(base, "add" | "sub") || it.bits < 32 {
                        return Err(unsupported());
                    }
                    let (a, b) = (self.src(&o[1], it.bits, line)?, self.src(&o[2], it.bits, line)?);
                    return Ok(Op::AddC { sub: base == "sub", use_carry: false, set_carry: true, bits: it.bits, d, a, b });
                }
                let op = match base {
                    "add" if has("sat") => IntBin::AddSat,
                    "add" => IntBin::Add,
                    "sub" if has("sat") => IntBin::SubSat,
                    "sub" => IntBin::Sub,
                    "mul" if has("hi") => IntBin::MulHi,
                    "mul" if has("wide") => IntBin::MulWide,
                    "mul" => IntBin::MulLo,
                    "mul24" if has("hi") => IntBin::Mul24Hi,
                    "mul24" => IntBin::Mul24Lo,
                    "div" => IntBin::Div,
                    "rem" => IntBin::Rem,
                    "min" => IntBin::Min,
                    "max" => IntBin::Max,
                    "and" => IntBin::And,
                    "or" => IntBin::Or,
                    "xor" => IntBin::Xor,
                    "shl" => IntBin::Shl,
                    "shr" => IntBin::Shr,
                    "bmsk" if has("wrap") => IntBin::BmskWrap,
                    "bmsk" => IntBin::BmskClamp,
                    _ => return Err(unsupported()),
                };
                let bbits = if matches!(op, IntBin::Shl | IntBin::Shr) { 32 } else { it.bits };
                let (a, b) = (self.src(&o[1], it.bits, line)?, self.src(&o[2], bbits, line)?);
                Op::IBin { op, t: it, d, a, b }
            }
            "addc" | "subc" => {
                let t = last_ty()?;
                self.ops(i, 3)?;
                let bits = t.bits();
                if bits < 32 {
                    return Err(unsupported());
                }
                let d = self.dreg(&o[0], line)?;
                let (a, b) = (self.src(&o[1], bits, line)?, self.src(&o[2], bits, line)?);
                Op::AddC { sub: base == "subc", use_carry: true, set_carry: has("cc"), bits, d, a, b }
            }
            "madc" | "mad" if has("cc") || base == "madc" => {
                let t = last_ty()?;
                self.ops(i, 4)?;
                let it = t.int().ok_or_else(unsupported)?;
                if it.bits < 32 || has("wide") || has("sat") {
                    return Err(unsupported());
                }
                let d = self.dreg(&o[0], line)?;
                let (a, b, c) = (self.src(&o[1], it.bits, line)?, self.src(&o[2], it.bits, line)?, self.src(&o[3], it.bits, line)?);
                Op::MadC { hi: has("hi"), signed: it.signed, use_carry: base == "madc", set_carry: has("cc"), bits: it.bits, d, a, b, c }
            }
            "mad" | "fma" | "mad24" => {
                let t = last_ty()?;
                self.ops(i, 4)?;
                let d = self.dreg(&o[0], line)?;
                let bits = t.bits();
                if let TyW::F(k) = t {
                    let (a, b, c) = (self.src(&o[1], bits, line)?, self.src(&o[2], bits, line)?, self.src(&o[3], bits, line)?);
                    return Ok(Op::Fma { k, m: fm, d, a, b, c });
                }
                let it = t.int().ok_or_else(unsupported)?;
                if base == "mad24" || has("cc") || has("sat") {
                    return Err(unsupported());
                }
                let mode = if has("hi") {
                    IntBin::MulHi
                } else if has("wide") {
                    IntBin::MulWide
                } else {
                    IntBin::MulLo
                };
                let cbits = if mode == IntBin::MulWide { bits * 2 } else { bits };
                let (a, b, c) = (self.src(&o[1], bits, line)?, self.src(&o[2], bits, line)?, self.src(&o[3], cbits, line)?);
                Op::IMad { mode, t: it, d, a, b, c }
            }
            "neg" | "abs" | "not" | "cnot" | "popc" | "clz" | "brev" | "bfind" | "sqrt" | "rsqrt" | "rcp" | "sin" | "cos" | "lg2" | "ex2" | "tanh" => {
                let t = last_ty()?;
                self.ops(i, 2)?;
                let d = self.dreg(&o[0], line)?;
                let a = self.src(&o[1], t.bits(), line)?;
                if let TyW::F(k) = t {
                    let op = match base {
                        "neg" => FUn::Neg,
                        "abs" => FUn::Abs,
                        "sqrt" => FUn::Sqrt,
                        "rsqrt" => FUn::Rsqrt,
                        "rcp" => FUn::Rcp,
                        "sin" => FUn::Sin,
                        "cos" => FUn::Cos,
                        "lg2" => FUn::Lg2,
                        "ex2" => FUn::Ex2,
                        "tanh" => FUn::Tanh,
                        _ => return Err(unsupported()),
                    };
                    return Ok(Op::FUn { op, k, m: fm, d, a });
                }
                let it = t.int().ok_or_else(unsupported)?;
                let op = match base {
                    "neg" => IntUn::Neg,
                    "abs" => IntUn::Abs,
                    "not" => IntUn::Not,
                    "cnot" => IntUn::Cnot,
                    "popc" => IntUn::Popc,
                    "clz" => IntUn::Clz,
                    "brev" => IntUn::Brev,
                    "bfind" if has("shiftamt") => IntUn::BfindShift,
                    "bfind" => IntUn::Bfind,
                    _ => return Err(unsupported()),
                };
                Op::IUn { op, t: it, d, a }
            }
            "setp" | "set" => {
                let cmp_word = mods.first().copied().unwrap_or("");
                let cmp = cmp_of(cmp_word).ok_or_else(|| decode_err(line, format!("unknown comparison '{cmp_word}' in '{}'", i.opcode)))?;
                let st = *tys.last().ok_or_else(unsupported)?;
                let t = match st {
                    TyW::F(k @ (FKind::F16 | FKind::BF16 | FKind::F32 | FKind::F64)) => CmpTy::Float(k, has("ftz")),
                    other => CmpTy::Int(other.int().ok_or_else(unsupported)?),
                };
                let sbits = st.bits();
                if base == "set" {
                    self.ops(i, 3)?;
                    let dt = tys.first().copied().ok_or_else(unsupported)?;
                    if has("and") || has("or") || has("xor") {
                        return Err(unsupported());
                    }
                    let d = self.dreg(&o[0], line)?;
                    return Ok(Op::Set { cmp, t, float_result: matches!(dt, TyW::F(_)), d, a: self.src(&o[1], sbits, line)?, b: self.src(&o[2], sbits, line)? });
                }
                self.ops(i, 3)?;
                let (d, d2) = match &o[0] {
                    Operand::Pair(p, q) => (self.dst(p, line)?, self.dst(q, line)?),
                    p => (self.dst(p, line)?, None),
                };
                let bop = if has("and") {
                    Some(BoolOp::And)
                } else if has("or") {
                    Some(BoolOp::Or)
                } else if has("xor") {
                    Some(BoolOp::Xor)
                } else {
                    None
                };
                let comb = match bop {
                    None => None,
                    Some(b) => {
                        self.ops(i, 4)?;
                        let (neg, c) = match &o[3] {
                            Operand::Not(x) => (true, &**x),
                            x => (false, x),
                        };
                        Some((b, self.src(c, 1, line)?, neg))
                    }
                };
                Op::Setp { cmp, t, d, d2, a: self.src(&o[1], sbits, line)?, b: self.src(&o[2], sbits, line)?, comb }
            }
            "selp" => {
                let t = last_ty()?;
                self.ops(i, 4)?;
                let bits = t.bits();
                Op::Selp { bits, d: self.dreg(&o[0], line)?, a: self.src(&o[1], bits, line)?, b: self.src(&o[2], bits, line)?, p: self.src(&o[3], 1, line)? }
            }
            "lop3" => {
                self.ops(i, 5)?;
                let lut = match self.src(&o[4], 8, line)? {
                    Src::I(v) => v as u8,
                    Src::R(_) => return Err(decode_err(line, "lop3's lookup table must be an immediate")),
                };
                Op::Lop3 { d: self.dreg(&o[0], line)?, a: self.src(&o[1], 32, line)?, b: self.src(&o[2], 32, line)?, c: self.src(&o[3], 32, line)?, lut }
            }
            "prmt" => {
                self.ops(i, 4)?;
                let mode = ["", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"].iter().position(|m| !m.is_empty() && has(m)).unwrap_or(0) as u8;
                Op::Prmt { mode, d: self.dreg(&o[0], line)?, a: self.src(&o[1], 32, line)?, b: self.src(&o[2], 32, line)?, c: self.src(&o[3], 32, line)? }
            }
            "bfe" => {
                let t = last_ty()?.int().ok_or_else(unsupported)?;
                self.ops(i, 4)?;
                Op::Bfe { t, d: self.dreg(&o[0], line)?, a: self.src(&o[1], t.bits, line)?, b: self.src(&o[2], 32, line)?, c: self.src(&o[3], 32, line)? }
            }
            "bfi" => {
                let bits = last_ty()?.bits();
                self.ops(i, 5)?;
                Op::Bfi { bits, d: self.dreg(&o[0], line)?, a: self.src(&o[1], bits, line)?, b: self.src(&o[2], bits, line)?, c: self.src(&o[3], 32, line)?, e: self.src(&o[4], 32, line)? }
            }
            "shf" => {
                self.ops(i, 4)?;
                Op::Shf { left: has("l"), wrap: has("wrap"), d: self.dreg(&o[0], line)?, a: self.src(&o[1], 32, line)?, b: self.src(&o[2], 32, line)?, c: self.src(&o[3], 32, line)? }
            }
            "szext" => {
                self.ops(i, 3)?;
                Op::Szext { signed: has("s32"), wrap: has("wrap"), d: self.dreg(&o[0], line)?, a: self.src(&o[1], 32, line)?, b: self.src(&o[2], 32, line)? }
            }
            "testp" => {
                let k = match last_ty()? {
                    TyW::F(k) => k,
                    _ => return Err(unsupported()),
                };
                let which = ["finite", "infinite", "number", "notanumber", "normal", "subnormal"].iter().position(|w| has(w)).ok_or_else(unsupported)? as u8;
                self.ops(i, 2)?;
                Op::Testp { which, k, d: self.dreg(&o[0], line)?, a: self.src(&o[1], fkind_bits(k), line)? }
            }
            "cvt" => self.cvt(i, mods, &tys)?,
            "cvta" => {
                self.ops(i, 2)?;
                let space = space_of(mods);
                let bits = last_ty()?.bits();
                Op::Cvta { to: has("to"), space, d: self.dreg(&o[0], line)?, a: self.src(&o[1], bits, line)? }
            }
            "isspacep" => {
                self.ops(i, 2)?;
                Op::Isspacep { space: space_of(mods), d: self.dreg(&o[0], line)?, a: self.src(&o[1], 64, line)? }
            }
            "bra" | "brx" => {
                self.ops(i, 1)?;
                let Operand::Name(l) = &o[0] else { return Err(decode_err(line, "bra needs a label")) };
                let target = *self.labels.get(l).ok_or_else(|| decode_err(line, format!("label '{l}' is not defined")))?;
                Op::Bra { target }
            }
            "ret" => Op::Ret,
            "exit" => Op::Exit,
            "trap" | "brkpt" => Op::Trap,
            "call" => self.call(i)?,
            "bar" | "barrier" => {
                if has("warp") {
                    self.ops(i, 1)?;
                    return Ok(Op::WarpSync { mask: self.src(&o[0], 32, line)? });
                }
                if has("cluster") {
                    return Ok(if has("arrive") { Op::ClusterArrive { relaxed: has("relaxed") } } else { Op::ClusterWait });
                }
                if has("red") {
                    self.ops(i, 3)?;
                    let kind = if has("popc") {
                        BarKind::RedPopc
                    } else if has("and") {
                        BarKind::RedAnd
                    } else {
                        BarKind::RedOr
                    };
                    let d = self.dreg(&o[0], line)?;
                    let id = self.src(&o[1], 32, line)?;
                    let (count, pi) = if o.len() == 4 { (Some(self.src(&o[2], 32, line)?), 3) } else { (None, 2) };
                    let (neg, p) = match &o[pi] {
                        Operand::Not(x) => (true, &**x),
                        x => (false, x),
                    };
                    return Ok(Op::Bar { kind, id, count, d: Some(d), p: Some((self.src(p, 1, line)?, neg)) });
                }
                let kind = if has("arrive") { BarKind::Arrive } else { BarKind::Sync };
                let id = if o.is_empty() { Src::I(0) } else { self.src(&o[0], 32, line)? };
                let count = if o.len() > 1 { Some(self.src(&o[1], 32, line)?) } else { None };
                Op::Bar { kind, id, count, d: None, p: None }
            }
            "shfl" => {
                self.ops(i, 5)?;
                let mode = if has("up") {
                    ShflMode::Up
                } else if has("down") {
                    ShflMode::Down
                } else if has("bfly") {
                    ShflMode::Bfly
                } else {
                    ShflMode::Idx
                };
                let (d, pd) = match &o[0] {
                    Operand::Pair(p, q) => (self.dreg(p, line)?, self.dst(q, line)?),
                    p => (self.dreg(p, line)?, None),
                };
                Op::Shfl { mode, d, pd, a: self.src(&o[1], 32, line)?, b: self.src(&o[2], 32, line)?, c: self.src(&o[3], 32, line)?, mask: self.src(&o[4], 32, line)? }
            }
            "vote" => {
                self.ops(i, 2)?;
                let mode = if has("all") {
                    VoteMode::All
                } else if has("any") {
                    VoteMode::Any
                } else if has("uni") {
                    VoteMode::Uni
                } else {
                    VoteMode::Ballot
                };
                let (neg, a) = match &o[1] {
                    Operand::Not(x) => (true, &**x),
                    x => (false, x),
                };
                let a = self.src(a, 1, line)?;
                let mask = if has("sync") { Some(self.src(self.ops(i, 3)?.get(2).ok_or_else(unsupported)?, 32, line)?) } else { None };
                Op::Vote { mode, d: self.dreg(&o[0], line)?, a, neg, mask }
            }
            "match" => {
                self.ops(i, 3)?;
                let bits = last_ty()?.bits();
                let (d, pd) = match &o[0] {
                    Operand::Pair(p, q) => (self.dreg(p, line)?, self.dst(q, line)?),
                    p => (self.dreg(p, line)?, None),
                };
                Op::Match { all: has("all"), bits, d, pd, a: self.src(&o[1], bits, line)?, mask: self.src(&o[2], 32, line)? }
            }
            "redux" => {
                self.ops(i, 3)?;
                let t = last_ty()?.int().ok_or_else(unsupported)?;
                let op = atom_op(mods).ok_or_else(unsupported)?;
                Op::Redux { op, t, d: self.dreg(&o[0], line)?, a: self.src(&o[1], 32, line)?, mask: self.src(&o[2], 32, line)? }
            }
            "activemask" => {
                self.ops(i, 1)?;
                Op::Activemask { d: self.dreg(&o[0], line)? }
            }
            "elect" => {
                self.ops(i, 2)?;
                let (d, p) = match &o[0] {
                    Operand::Pair(p, q) => (self.dst(p, line)?, self.dst(q, line)?),
                    p => (self.dst(p, line)?, None),
                };
                Op::Elect { d, p, mask: self.src(&o[1], 32, line)? }
            }
            "atom" | "red" => {
                let t = last_ty()?;
                let op = atom_op(mods).ok_or_else(unsupported)?;
                let at = match t {
                    TyW::F(k) => AtomTy::Float(k),
                    other => AtomTy::Int(other.int().ok_or_else(unsupported)?),
                };
                let bits = t.bits();
                let space = space_of(mods);
                if has("v2") || has("v4") || has("v8") {
                    if base != "red" {
                        return Err(unsupported());
                    }
                    self.ops(i, 2)?;
                    let (space, addr) = self.addr(&o[0], space, line)?;
                    let vals = match &o[1] {
                        Operand::Vector(v) => v.iter().map(|x| self.src(x, bits, line)).collect::<Result<Vec<_>>>()?,
                        _ => return Err(decode_err(line, format!("'{}' needs a {{...}} vector of values", i.opcode))),
                    };
                    return Ok(Op::RedVec { space, op, t: at, addr, vals });
                }
                let (d, rest) = if base == "atom" {
                    self.ops(i, 3)?;
                    (Some(self.dreg(&o[0], line)?), &o[1..])
                } else {
                    self.ops(i, 2)?;
                    (None, &o[..])
                };
                let (space, addr) = self.addr(&rest[0], space, line)?;
                let b = self.src(&rest[1], bits, line)?;
                let c = if op == AtomOp::Cas {
                    Some(self.src(rest.get(2).ok_or_else(|| decode_err(line, "atom.cas needs 3 sources"))?, bits, line)?)
                } else {
                    None
                };
                Op::Atom { space, op, t: at, d, addr, b, c }
            }
            "ldmatrix" | "stmatrix" => {
                self.ops(i, 2)?;
                let trans = has("trans");
                let (vec_op, addr_op) = if base == "ldmatrix" { (&o[0], &o[1]) } else { (&o[1], &o[0]) };
                let items = match vec_op {
                    Operand::Vector(v) => v.clone(),
                    other => vec![other.clone()],
                };
                let (space, addr) = self.addr(addr_op, space_of(mods), line)?;
                if base == "ldmatrix" {
                    let mut ds = Vec::new();
                    for d in &items {
                        ds.push(self.dreg(d, line)?);
                    }
                    Op::Ldmatrix { space, trans, ds, addr }
                } else {
                    let mut vals = Vec::new();
                    for v in &items {
                        vals.push(self.src(v, 32, line)?);
                    }
                    Op::Stmatrix { space, trans, vals, addr }
                }
            }
            "mma" => self.mma(i, mods)?,
            "cp" if mods.first() == Some(&"async") => self.cp_async(i, mods)?,
            "mbarrier" => {
                let op = match mods.first().copied() {
                    Some("init") => MbarOp::Init,
                    Some("inval") => MbarOp::Inval,
                    Some("arrive") if has("expect_tx") => MbarOp::ArriveExpectTx,
                    Some("arrive") => MbarOp::Arrive,
                    Some("arrive_drop") => MbarOp::ArriveDrop,
                    Some("expect_tx") => MbarOp::ExpectTx,
                    Some("complete_tx") => MbarOp::CompleteTx,
                    Some("try_wait") => MbarOp::TryWait(has("parity")),
                    Some("test_wait") => MbarOp::TestWait(has("parity")),
                    _ => return Err(unsupported()),
                };
                // Forms with a result take it first: arrive/try_wait/test_wait.
                let with_result = matches!(op, MbarOp::Arrive | MbarOp::ArriveDrop | MbarOp::ArriveExpectTx | MbarOp::TryWait(_) | MbarOp::TestWait(_));
                let (d, rest) = if with_result {
                    self.ops(i, 2)?;
                    (self.dst(&o[0], line)?, &o[1..])
                } else {
                    self.ops(i, 1)?;
                    (None, &o[..])
                };
                let (_, addr) = self.addr(&rest[0], space_of(mods), line)?;
                let b = match rest.get(1) {
                    Some(x) => Some(self.src(x, 64, line)?),
                    None => None,
                };
                Op::Mbar { op, d, addr, b }
            }
            "mapa" => {
                self.ops(i, 3)?;
                let generic = space_of(mods) == Space::Generic;
                Op::Mapa { d: self.dreg(&o[0], line)?, a: self.src(&o[1], 64, line)?, rank: self.src(&o[2], 32, line)?, generic }
            }
            // wgmma.mma_async computes when issued; groups only track which accumulators are
            // still in flight (touching them before the wait is an error).
            "wgmma" if has("fence") => Op::WgmmaFence,
            "wgmma" if has("commit_group") => Op::WgmmaCommit,
            "wgmma" if has("wait_group") => {
                self.ops(i, 1)?;
                match self.src(&o[0], 32, line)? {
                    Src::I(n) => Op::WgmmaWait { n: n as u32 },
                    Src::R(_) => return Err(decode_err(line, "wgmma.wait_group needs an immediate count")),
                }
            }
            "wgmma" if has("mma_async") => self.wgmma(i, mods)?,
            "membar" | "fence" | "prefetch" | "prefetchu" | "griddepcontrol" | "setmaxnreg" | "nanosleep" | "pmevent" | "discard" | "applypriority" | "createpolicy" => {
                if base == "createpolicy" {
                    self.ops(i, 1)?;
                    let d = self.dreg(&o[0], line)?;
                    return Ok(Op::Mov { d, a: Src::I(0), bits: 64 });
                }
                if base == "setmaxnreg" {
                    // The count's rules are the ISA's: .inc or .dec, an immediate in [24, 256],
                    // a multiple of 8. The executor models the CTA's register pool.
                    self.ops(i, 1)?;
                    if !has("inc") && !has("dec") {
                        return Err(decode_err(line, "setmaxnreg needs .inc or .dec"));
                    }
                    return match self.src(&o[0], 32, line)? {
                        Src::I(n) if (24..=256).contains(&n) && n % 8 == 0 => Ok(Op::SetMaxNReg { inc: has("inc"), n: n as u32 }),
                        Src::I(n) => Err(decode_err(line, format!("setmaxnreg count {n} must be a multiple of 8 in [24, 256]"))),
                        Src::R(_) => Err(decode_err(line, "setmaxnreg needs an immediate register count")),
                    };
                }
                Op::Nop
            }
            _ => return Err(unsupported()),
        })
    }

    fn cvt(&mut self, i: &Instr, mods: &[&str], tys: &[TyW]) -> Result<Op> {
        let line = i.line;
        let unsupported = || decode_err(line, format!("unsupported conversion '{}'", i.opcode));
        if tys.len() != 2 {
            return Err(unsupported());
        }
        let side = |t: TyW| -> Option<CvtTy> {
            Some(match t {
                TyW::F(FKind::F16) => CvtTy::Float(FloatFormat::F16),
                TyW::F(FKind::BF16) => CvtTy::Float(FloatFormat::BF16),
                TyW::F(FKind::F32) => CvtTy::Float(FloatFormat::F32),
                TyW::F(FKind::F64) => CvtTy::Float(FloatFormat::F64),
                TyW::F(FKind::F16x2) => CvtTy::Pair(FloatFormat::F16),
                TyW::F(FKind::BF16x2) => CvtTy::Pair(FloatFormat::BF16),
                TyW::Tf32 => CvtTy::Float(FloatFormat::TF32),
                TyW::Fp8(f, false) => CvtTy::Float(f),
                TyW::Fp8(f, true) => CvtTy::Pair(f),
                other => CvtTy::Int(other.int()?),
            })
        };
        let dt = side(tys[0]).ok_or_else(unsupported)?;
        let st = side(tys[1]).ok_or_else(unsupported)?;
        self.ops(i, 2)?;
        let o = &i.operands;
        let mut m = fmods(mods);
        // Integer rounding modifiers (.rni etc.) select the same directions.
        for (w, r) in [("rni", Rnd::Rn), ("rzi", Rnd::Rz), ("rmi", Rnd::Rm), ("rpi", Rnd::Rp)] {
            if mods.contains(&w) {
                m.rnd = r;
                m.approx = true; // marks "round to integral" for float→float
            }
        }
        if mods.contains(&"satfinite") {
            m.nan = true; // reused: saturate to finite
        }
        let d = self.dreg(&o[0], line)?;
        let a = self.src(&o[1], tys[1].bits(), line)?;
        let b = if o.len() > 2 { Some(self.src(&o[2], tys[1].bits(), line)?) } else { None };
        Ok(Op::Cvt { dt, st, m, d, a, b })
    }

    fn mma(&mut self, i: &Instr, mods: &[&str]) -> Result<Op> {
        let line = i.line;
        let unsupported = || decode_err(line, format!("unsupported mma form '{}' (supported: .row.col m16n8k16 / m16n8k8 f16/bf16 -> f32/f16, m16n8k8 tf32 -> f32, m16n8k32 s8/u8 -> s32 without .satfinite, m16n8k32 e4m3/e5m2 -> f32)", i.opcode));
        let shape = mods.iter().find(|m| m.starts_with('m') && m.contains('n') && m.contains('k')).ok_or_else(unsupported)?;
        let (m, n, k) = match *shape {
            "m16n8k16" => (16, 8, 16),
            "m16n8k8" => (16, 8, 8),
            "m16n8k32" => (16, 8, 32),
            _ => return Err(unsupported()),
        };
        if !(mods.contains(&"row") && mods.contains(&"col")) || mods.contains(&"satfinite") {
            return Err(unsupported());
        }
        let tys: Vec<&str> = mods.iter().copied().filter(|m| matches!(*m, "f16" | "bf16" | "f32" | "tf32" | "s8" | "u8" | "s32" | "e4m3" | "e5m2" | "f64")).collect();
        if tys.len() != 4 {
            return Err(unsupported());
        }
        let input = mma_input;
        let (at, bt) = (input(tys[1]).ok_or_else(unsupported)?, input(tys[2]).ok_or_else(unsupported)?);
        let acc_ok = |t: &str| match at {
            MmaIn::F(FloatFormat::F16 | FloatFormat::BF16) => matches!(t, "f16" | "f32"),
            MmaIn::S8 | MmaIn::U8 => t == "s32",
            _ => t == "f32",
        };
        let pair_ok = match (at, bt) {
            (MmaIn::F(FloatFormat::F16 | FloatFormat::BF16), _) => at == bt && matches!(k, 8 | 16),
            (MmaIn::F(FloatFormat::TF32), _) => at == bt && k == 8,
            (MmaIn::S8 | MmaIn::U8, MmaIn::S8 | MmaIn::U8) => k == 32,
            (MmaIn::F(FloatFormat::F8E4M3FN | FloatFormat::F8E5M2), MmaIn::F(FloatFormat::F8E4M3FN | FloatFormat::F8E5M2)) => k == 32,
            _ => false,
        };
        if !pair_ok || !acc_ok(tys[0]) || !acc_ok(tys[3]) {
            return Err(unsupported());
        }
        self.ops(i, 4)?;
        let o = &i.operands;
        let list = |this: &mut Self, op: &Operand| -> Result<Vec<Src>> {
            let items = match op {
                Operand::Vector(v) => v.clone(),
                x => vec![x.clone()],
            };
            items.iter().map(|x| this.src(x, 32, line)).collect()
        };
        let ds = match &o[0] {
            Operand::Vector(v) => v.iter().map(|x| self.dreg(x, line)).collect::<Result<Vec<_>>>()?,
            x => vec![self.dreg(x, line)?],
        };
        let (a, b, c) = (list(self, &o[1])?, list(self, &o[2])?, list(self, &o[3])?);
        let (d_f16, c_f16) = (tys[0] == "f16", tys[3] == "f16");
        let want = |f16: bool| if f16 { 2 } else { 4 };
        // Each A / B register packs 32 / bits elements: A holds K / 2 elements per lane, B K / 4.
        let per_reg = match at {
            MmaIn::F(FloatFormat::F16 | FloatFormat::BF16) => 2,
            MmaIn::F(FloatFormat::TF32) => 1,
            _ => 4,
        };
        let (na, nb) = (k as usize / 2 / per_reg, k as usize / 4 / per_reg);
        if a.len() != na || b.len() != nb || c.len() != want(c_f16) || ds.len() != want(d_f16) {
            return Err(decode_err(line, format!("'{}' needs {}, {na}, {nb} and {} registers, got {}, {}, {} and {}", i.opcode, want(d_f16), want(c_f16), ds.len(), a.len(), b.len(), c.len())));
        }
        Ok(Op::Mma { m, n, k, at, bt, d_f16, c_f16, ds, a, b, c })
    }

    /// `wgmma.mma_async`. The operands after scale-d depend on the input family (PTX ISA):
    /// f16/bf16 take imm-scale-a, imm-scale-b, then imm-trans-a (descriptor A only) and
    /// imm-trans-b; tf32 and e4m3/e5m2 only the two scale immediates (they are K-major
    /// only); s8/u8 none at all. A is a descriptor or four .b32 fragment registers.
    fn wgmma(&mut self, i: &Instr, mods: &[&str]) -> Result<Op> {
        #[derive(Clone, Copy, PartialEq)]
        enum Family {
            Half,
            Tf32,
            Fp8,
            Int,
        }
        use Family::*;
        let line = i.line;
        let unsupported = |why: &str| decode_err(line, format!("unsupported wgmma form '{}': {why}", i.opcode));
        if mods.contains(&"sp") {
            return Err(unsupported("sparse A (.sp) is not supported"));
        }
        let shape = mods.iter().find(|m| m.starts_with("m64n")).ok_or_else(|| unsupported("no m64nNkK shape"))?;
        let (n, k) = shape[4..].split_once('k').and_then(|(n, k)| Some((n.parse::<u16>().ok()?, k.parse::<u8>().ok()?))).ok_or_else(|| unsupported("bad shape"))?;
        let tys: Vec<&str> = mods.iter().copied().filter(|m| matches!(*m, "f16" | "bf16" | "f32" | "tf32" | "e4m3" | "e5m2" | "s8" | "u8" | "s32")).collect();
        if tys.len() != 3 {
            return Err(unsupported("expected .dtype.atype.btype"));
        }
        let input = mma_input;
        let (at, bt) = match (input(tys[1]), input(tys[2])) {
            (Some(at), Some(bt)) => (at, bt),
            _ => return Err(unsupported("A and B must be f16, bf16, tf32, e4m3, e5m2, s8 or u8")),
        };
        let fp8 = |t: MmaIn| matches!(t, MmaIn::F(FloatFormat::F8E4M3FN | FloatFormat::F8E5M2));
        let int = |t: MmaIn| matches!(t, MmaIn::S8 | MmaIn::U8);
        let family = match at {
            MmaIn::F(FloatFormat::F16 | FloatFormat::BF16) if at == bt => Half,
            MmaIn::F(FloatFormat::TF32) if at == bt => Tf32,
            _ if fp8(at) && fp8(bt) => Fp8,
            _ if int(at) && int(bt) => Int,
            _ => return Err(unsupported("A and B must both be f16, both bf16, both tf32, both e4m3/e5m2 or both s8/u8")),
        };
        let want_k = match family {
            Half => 16,
            Tf32 => 8,
            Fp8 | Int => 32,
        };
        if k != want_k {
            return Err(unsupported(&format!("{} inputs need shape m64nNk{want_k}", tys[1])));
        }
        // Integer wgmma has fewer N: multiples of 8 up to 24, then of 16 (PTX ISA).
        let n_ok = n % 8 == 0 && (8..=256).contains(&n) && (family != Int || n <= 24 || n % 16 == 0);
        if !n_ok {
            let valid = if family == Int { "8, 16, 24 or a multiple of 16 up to 256" } else { "a multiple of 8 up to 256" };
            return Err(unsupported(&format!("N = {n} is not a valid N for {} inputs ({valid})", tys[1])));
        }
        let satfinite = mods.contains(&"satfinite");
        if satfinite && family != Int {
            return Err(unsupported(".satfinite exists only for s32 accumulators (s8/u8 inputs)"));
        }
        let d = match (tys[0], family) {
            ("f32", Half | Tf32 | Fp8) => WgmmaD::F32,
            ("f16", Half | Fp8) => WgmmaD::F16,
            ("s32", Int) => WgmmaD::S32 { satfinite },
            (_, Half | Fp8) => return Err(unsupported("accumulators must be f32 or f16")),
            (_, Tf32) => return Err(unsupported("tf32 accumulators must be f32")),
            (_, Int) => return Err(unsupported("s8/u8 accumulators must be s32")),
        };
        let o = &i.operands;
        let rs = matches!(o.get(1), Some(Operand::Vector(_)));
        let (want_ops, form) = match family {
            Half if rs => (7, "d, {a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b"),
            Half => (8, "d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b"),
            Tf32 | Fp8 => (6, "d, a-desc|{a0..a3}, b-desc, scale-d, imm-scale-a, imm-scale-b; transpose immediates exist only for f16/bf16 inputs"),
            Int => (4, "d, a-desc|{a0..a3}, b-desc, scale-d; integer wgmma has no scale or transpose immediates"),
        };
        if o.len() != want_ops {
            return Err(decode_err(line, format!("'{}' takes {want_ops} operands ({form}), got {}", i.opcode, o.len())));
        }
        let ds = match &o[0] {
            Operand::Vector(v) => v.iter().map(|x| self.dreg(x, line)).collect::<Result<Vec<_>>>()?,
            _ => return Err(unsupported("the accumulators must be a {...} list")),
        };
        let want = if d == WgmmaD::F16 { n as usize / 4 } else { n as usize / 2 };
        if ds.len() != want {
            return Err(decode_err(line, format!("'{}' needs {want} accumulator registers, got {}", i.opcode, ds.len())));
        }
        let a = match &o[1] {
            Operand::Vector(v) => {
                // Every family's A fragment is four .b32 registers per thread (K·16 elements
                // of a warp's 16 rows over 32 lanes, 32 bits each).
                if v.len() != 4 {
                    return Err(unsupported(&format!("register A needs four .b32 registers, got {}", v.len())));
                }
                WgmmaA::Regs(v.iter().map(|x| self.src(x, 32, line)).collect::<Result<Vec<_>>>()?)
            }
            x => WgmmaA::Desc(self.src(x, 64, line)?),
        };
        let b = self.src(&o[2], 64, line)?;
        let scale_d = self.src(&o[3], 1, line)?;
        // Scale immediates are 1 or -1, transpose immediates 0 or 1; true: negate / transpose.
        let imm = |this: &mut Self, x: &Operand, what: &str, scale: bool| -> Result<bool> {
            let v = match this.src(x, 32, line)? {
                Src::I(v) => Some(v as u32 as i32),
                Src::R(_) => None,
            };
            match (scale, v) {
                (true, Some(1)) | (false, Some(0)) => Ok(false),
                (true, Some(-1)) | (false, Some(1)) => Ok(true),
                _ => Err(unsupported(&format!("{what} must be the immediate {}", if scale { "1 or -1" } else { "0 or 1" }))),
            }
        };
        let (mut neg_a, mut neg_b, mut tnsp_a, mut tnsp_b) = (false, false, false, false);
        if family != Int {
            neg_a = imm(self, &o[4], "imm-scale-a", true)?;
            neg_b = imm(self, &o[5], "imm-scale-b", true)?;
        }
        if family == Half {
            if rs {
                tnsp_b = imm(self, &o[6], "imm-trans-b", false)?;
            } else {
                tnsp_a = imm(self, &o[6], "imm-trans-a", false)?;
                tnsp_b = imm(self, &o[7], "imm-trans-b", false)?;
            }
        }
        Ok(Op::Wgmma { n, k, at, bt, d, ds, a, b, scale_d, neg_a, neg_b, tnsp_a, tnsp_b })
    }

    fn cp_async(&mut self, i: &Instr, mods: &[&str]) -> Result<Op> {
        let line = i.line;
        let has = |m: &str| mods.contains(&m);
        let o = &i.operands;
        if has("bulk") {
            // Bulk copies complete when issued; the groups only track (in race-check mode) the
            // shared memory bulk stores may still read until a wait_group retires them.
            if has("prefetch") {
                return Ok(Op::Nop);
            }
            if has("commit_group") {
                return Ok(Op::BulkCommit);
            }
            if has("wait_group") {
                self.ops(i, 1)?;
                return match self.src(&o[0], 32, line)? {
                    Src::I(n) => Ok(Op::BulkWait { n: n as u32 }),
                    Src::R(_) => Err(decode_err(line, "cp.async.bulk.wait_group needs an immediate count")),
                };
            }
            if has("tensor") {
                return self.tensor_copy(i, mods);
            }
            self.ops(i, 3)?;
            // The first space word after "bulk" is the destination's, the second the source's.
            let spaces: Vec<Space> = mods.iter().filter_map(|m| match m.split("::").next() {
                Some("global") => Some(Space::Global),
                Some("shared") => Some(Space::Shared),
                _ => None,
            }).collect();
            if spaces.len() != 2 {
                return Err(decode_err(line, format!("'{}' needs a destination and a source state space", i.opcode)));
            }
            let (dst_space, dst) = self.addr(&o[0], spaces[0], line)?;
            let (src_space, src) = self.addr(&o[1], spaces[1], line)?;
            let size = self.src(&o[2], 32, line)?;
            let mbar = match o.get(3) {
                Some(m @ Operand::Addr { .. }) if mods.iter().any(|w| w.starts_with("mbarrier")) => Some(self.addr(m, Space::Shared, line)?.1),
                _ => None,
            };
            return Ok(Op::BulkCopy { dst_space, dst, src_space, src, size, mbar });
        }
        if has("commit_group") {
            return Ok(Op::CpAsyncCommit);
        }
        if has("wait_all") {
            return Ok(Op::CpAsyncWait { n: None });
        }
        if has("wait_group") {
            self.ops(i, 1)?;
            let n = match self.src(&o[0], 32, line)? {
                Src::I(v) => v as u32,
                Src::R(_) => return Err(decode_err(line, "cp.async.wait_group needs an immediate count")),
            };
            return Ok(Op::CpAsyncWait { n: Some(n) });
        }
        if has("mbarrier") {
            self.ops(i, 1)?;
            let (_, addr) = self.addr(&o[0], space_of(mods), line)?;
            return Ok(Op::CpAsyncMbarArrive { noinc: has("noinc"), addr });
        }
        self.ops(i, 3)?;
        let (_, dst) = self.addr(&o[0], Space::Shared, line)?;
        let (_, src) = self.addr(&o[1], Space::Global, line)?;
        let size = match self.src(&o[2], 32, line)? {
            Src::I(v @ (4 | 8 | 16)) => v as u8,
            _ => return Err(decode_err(line, "cp.async copies 4, 8 or 16 bytes (an immediate)")),
        };
        // A fourth operand is the source size unless it is the cache policy of .L2::cache_hint.
        let src_size = match o.get(3) {
            Some(x) if !(has("L2::cache_hint") && o.len() == 4) => Some(self.src(x, 32, line)?),
            _ => None,
        };
        Ok(Op::CpAsync { dst, src, size, src_size })
    }

    /// `cp.async.bulk.tensor.{1..5}d` in tile mode: the load
    /// `.shared::cluster.global.tile.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint}
    /// [dst], [tmap, {c..}], [mbar]{, mask}{, policy}` and the store
    /// `.global.shared::cta.tile.bulk_group{.L2::cache_hint} [tmap, {c..}], [src]{, policy}`.
    fn tensor_copy(&mut self, i: &Instr, mods: &[&str]) -> Result<Op> {
        let line = i.line;
        let has = |m: &str| mods.contains(&m);
        let o = &i.operands;
        let unsupported = |what: &str| decode_err(line, format!("'{}': {what} is not supported (tile-mode loads into shared memory and stores from it are)", i.opcode));
        if has("im2col") || mods.iter().any(|m| m.starts_with("im2col") || m.starts_with("tile::")) {
            return Err(unsupported("im2col and gather/scatter modes"));
        }
        let rank = match mods.iter().find_map(|m| m.strip_suffix('d').and_then(|n| n.parse::<u8>().ok())) {
            Some(r @ 1..=5) => r,
            _ => return Err(decode_err(line, format!("'{}' needs a dimension .1d to .5d", i.opcode))),
        };
        let spaces: Vec<&str> = mods.iter().filter(|m| m.starts_with("global") || m.starts_with("shared")).copied().collect();
        let load = match spaces.as_slice() {
            [d, "global"] if d.starts_with("shared") => true,
            ["global", s] if s.starts_with("shared") => false,
            _ => return Err(unsupported("a copy that is not shared <- global or global <- shared")),
        };
        let tensor_operand = |op: &Operand| -> Result<(Operand, Vec<Operand>)> {
            match op {
                Operand::TensorAddr { base, coords } => {
                    let cs = match &**coords {
                        Operand::Vector(v) => v.clone(),
                        c => vec![c.clone()],
                    };
                    Ok((Operand::Addr { base: base.clone(), offset: 0 }, cs))
                }
                other => Err(decode_err(line, format!("'{}' expects '[tensorMap, {{coordinates}}]', found {other:?}", i.opcode))),
            }
        };
        let (smem_op, tm_op) = if load {
            self.ops(i, 3)?;
            (&o[0], &o[1])
        } else {
            self.ops(i, 2)?;
            (&o[1], &o[0])
        };
        let (tm_addr, cs) = tensor_operand(tm_op)?;
        if cs.len() != rank as usize {
            return Err(decode_err(line, format!("'{}' is a {rank}-d copy with {} coordinate(s)", i.opcode, cs.len())));
        }
        let coords = cs.iter().map(|c| self.src(c, 32, line)).collect::<Result<Vec<_>>>()?;
        let (tmap_space, tmap) = self.addr(&tm_addr, Space::Generic, line)?;
        let (_, smem) = self.addr(smem_op, Space::Shared, line)?;
        let (mbar, mask) = if load {
            if !mods.iter().any(|m| m.starts_with("mbarrier")) {
                return Err(unsupported("a load without .mbarrier::complete_tx::bytes"));
            }
            let (_, m) = self.addr(&o[2], Space::Shared, line)?;
            let mask = if has("multicast::cluster") {
                Some(self.src(o.get(3).ok_or_else(|| decode_err(line, "multicast needs a CTA mask operand"))?, 16, line)?)
            } else {
                None
            };
            (Some(m), mask)
        } else {
            if !has("bulk_group") {
                return Err(unsupported("a store without .bulk_group"));
            }
            (None, None)
        };
        Ok(Op::TensorCopy { load, rank, smem, tmap_space, tmap, coords, mbar, mask })
    }

    fn call(&mut self, i: &Instr) -> Result<Op> {
        let line = i.line;
        let mut ret: Vec<(u64, usize)> = Vec::new();
        let mut name = None;
        let mut args: Vec<(u64, usize)> = Vec::new();
        let slot = |this: &Self, a: &Operand, what: &str| -> Result<(u64, usize)> {
            let Operand::Name(n) = a else { return Err(decode_err(line, format!("call {what} must be .param variables"))) };
            this.call_params.get(n).copied().ok_or_else(|| decode_err(line, format!("call {what} '{n}' is not a .param variable")))
        };
        for o in &i.operands {
            match o {
                Operand::Group(g) if name.is_none() => {
                    for a in g {
                        ret.push(slot(self, a, "result")?);
                    }
                }
                Operand::Name(n) if name.is_none() => name = Some(n.clone()),
                Operand::Group(g) => {
                    for a in g {
                        args.push(slot(self, a, "argument")?);
                    }
                }
                _ => {}
            }
        }
        let name = name.ok_or_else(|| decode_err(line, "call without a function name"))?;
        if let Some((target, ps, rs)) = self.funcs.get(&name).cloned() {
            if ps.len() != args.len() || rs.len() < ret.len() {
                return Err(decode_err(line, format!("call of '{name}' passes {} argument(s) and {} result(s); it takes {} and returns {}", args.len(), ret.len(), ps.len(), rs.len())));
            }
            let args = args.iter().zip(&ps).map(|(a, p)| (a.0, p.0, a.1.min(p.1) as u32)).collect();
            let rets = rs.iter().zip(&ret).map(|(r, c)| (r.0, c.0, r.1.min(c.1) as u32)).collect();
            return Ok(Op::CallFunc { target, args, rets });
        }
        let func = match name.as_str() {
            "vprintf" => CallFn::Vprintf,
            "__assertfail" => CallFn::AssertFail,
            "malloc" => CallFn::Malloc,
            "free" => CallFn::Free,
            other => return Err(decode_err(line, format!("call of '{other}', which has no body here (only vprintf, __assertfail, malloc and free are provided)"))),
        };
        if matches!(func, CallFn::Malloc | CallFn::Free) && args.len() != 1 {
            return Err(decode_err(line, format!("call of '{name}' passes {} argument(s); it takes 1", args.len())));
        }
        Ok(Op::Call { func, args: args.iter().map(|a| a.0).collect(), ret: ret.first().map(|r| r.0) })
    }
}

fn generic_space_of(s: Space) -> Space {
    match s {
        Space::Const => Space::Global,
        other => other,
    }
}

fn fmods(mods: &[&str]) -> FMods {
    let has = |m: &str| mods.contains(&m);
    FMods {
        rnd: if has("rz") {
            Rnd::Rz
        } else if has("rm") {
            Rnd::Rm
        } else if has("rp") {
            Rnd::Rp
        } else if has("rna") {
            Rnd::Rna
        } else {
            Rnd::Rn
        },
        ftz: has("ftz"),
        sat: has("sat"),
        approx: has("approx"),
        nan: has("NaN"),
        relu: has("relu"),
    }
}

fn space_of(mods: &[&str]) -> Space {
    for m in mods {
        let s = m.split("::").next().unwrap_or("");
        match s {
            "global" => return Space::Global,
            "shared" => return Space::Shared,
            "local" => return Space::Local,
            "param" => return Space::Param,
            "const" => return Space::Const,
            _ => {}
        }
    }
    Space::Generic
}

fn atom_op(mods: &[&str]) -> Option<AtomOp> {
    for m in mods {
        let op = match *m {
            "add" => AtomOp::Add,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exch" => AtomOp::Exch,
            "cas" => AtomOp::Cas,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            _ => continue,
        };
        return Some(op);
    }
    None
}

fn cmp_of(w: &str) -> Option<Cmp> {
    Some(match w {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" => Cmp::Lt,
        "le" => Cmp::Le,
        "gt" => Cmp::Gt,
        "ge" => Cmp::Ge,
        "lo" => Cmp::Lo,
        "ls" => Cmp::Ls,
        "hi" => Cmp::Hi,
        "hs" => Cmp::Hs,
        "equ" => Cmp::Equ,
        "neu" => Cmp::Neu,
        "ltu" => Cmp::Ltu,
        "leu" => Cmp::Leu,
        "gtu" => Cmp::Gtu,
        "geu" => Cmp::Geu,
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        _ => return None,
    })
}

fn special_of(name: &str) -> Option<Special> {
    let dim = |s: &str| match s {
        "x" => Some(0u8),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    if let Some((reg, d)) = name.split_once('.') {
        let d = dim(d)?;
        return Some(match reg {
            "%tid" => Special::Tid(d),
            "%ntid" => Special::Ntid(d),
            "%ctaid" => Special::Ctaid(d),
            "%nctaid" => Special::Nctaid(d),
            "%cluster_ctaid" => Special::ClusterCtaid(d),
            "%cluster_nctaid" => Special::ClusterNctaid(d),
            "%clusterid" => Special::Clusterid(d),
            "%nclusterid" => Special::Nclusterid(d),
            _ => return None,
        });
    }
    Some(match name {
        "%laneid" => Special::Laneid,
        "%warpid" => Special::Warpid,
        "%nwarpid" => Special::Nwarpid,
        "%smid" => Special::Smid,
        "%nsmid" => Special::Nsmid,
        "%gridid" => Special::Gridid,
        "%lanemask_eq" => Special::Lanemask(0),
        "%lanemask_le" => Special::Lanemask(1),
        "%lanemask_lt" => Special::Lanemask(2),
        "%lanemask_ge" => Special::Lanemask(3),
        "%lanemask_gt" => Special::Lanemask(4),
        "%cluster_ctarank" => Special::ClusterCtarank,
        "%cluster_nctarank" => Special::ClusterNctarank,
        "%is_explicit_cluster" => Special::IsExplicitCluster,
        "%dynamic_smem_size" => Special::DynSmem,
        "%total_smem_size" => Special::TotalSmem,
        _ => return None,
    })
}

/// Bits of an immediate written `text` (with a leading minus if `neg`) for an operand of
/// `bits` bits: integers in two's complement, `0f`/`0d` hex floats as given, decimal floats
/// converted to the operand's float width (32 or 64; 16-bit operands take f16).
pub fn parse_imm_text(text: &str, neg: bool, bits: u8) -> Option<u64> {
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let sign32 = if neg { 0x8000_0000u64 } else { 0 };
    if let Some(h) = text.strip_prefix("0f").or_else(|| text.strip_prefix("0F")) {
        let v = u32::from_str_radix(h, 16).ok()? as u64;
        return Some(v ^ sign32);
    }
    if let Some(h) = text.strip_prefix("0d").or_else(|| text.strip_prefix("0D")) {
        let v = u64::from_str_radix(h, 16).ok()?;
        return Some(if neg { v ^ (1 << 63) } else { v });
    }
    if text.contains('.') || (text.contains(['e', 'E']) && !text.starts_with("0x")) {
        let mut x: f64 = text.parse().ok()?;
        if neg {
            x = -x;
        }
        return Some(match bits {
            64 => x.to_bits(),
            16 => tileir_numeric::encode(FloatFormat::F16, x, tileir_numeric::Rounding::NearestEven, tileir_numeric::Saturation::None),
            _ => (x as f32).to_bits() as u64,
        });
    }
    let v = parse_uint(text)?;
    Some(if neg { v.wrapping_neg() & mask } else { v & mask })
}

/// The input element of an `mma.sync` / `wgmma` type suffix.
fn mma_input(t: &str) -> Option<MmaIn> {
    match t {
        "f16" => Some(MmaIn::F(FloatFormat::F16)),
        "bf16" => Some(MmaIn::F(FloatFormat::BF16)),
        "tf32" => Some(MmaIn::F(FloatFormat::TF32)),
        "e4m3" => Some(MmaIn::F(FloatFormat::F8E4M3FN)),
        "e5m2" => Some(MmaIn::F(FloatFormat::F8E5M2)),
        "s8" => Some(MmaIn::S8),
        "u8" => Some(MmaIn::U8),
        _ => None,
    }
}
