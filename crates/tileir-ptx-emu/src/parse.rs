//! Parser: tokens to [`PtxModule`]. Accepts the PTX subset LLVM's NVPTX backend emits plus
//! the inline PTX kernels write themselves (brace-scoped blocks with their own `.reg`s).

use crate::ast::{Function, Instr, Operand, PtxModule, Stmt, VarDecl};
use crate::error::{parse_err, Result};
use crate::lex::{tokenize, Tok, Token};

/// Parses a whole module.
pub fn parse_module(text: &str) -> Result<PtxModule> {
    let toks = tokenize(text)?;
    let mut p = Parser { toks, pos: 0 };
    p.module()
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }
    fn line(&self) -> u32 {
        self.toks.get(self.pos).or_else(|| self.toks.last()).map_or(0, |t| t.line)
    }
    fn next(&mut self) -> Result<Token> {
        let t = self.toks.get(self.pos).cloned().ok_or_else(|| parse_err(self.line(), "unexpected end of PTX text"))?;
        self.pos += 1;
        Ok(t)
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, c: char) -> Result<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(parse_err(self.line(), format!("expected '{c}', found {}", self.describe())))
        }
    }
    fn describe(&self) -> String {
        match self.peek() {
            None => "end of text".into(),
            Some(Tok::Word(w)) => format!("'{w}'"),
            Some(Tok::Num(n)) => format!("'{n}'"),
            Some(Tok::Str(s)) => format!("\"{s}\""),
            Some(Tok::Punct(c)) => format!("'{c}'"),
        }
    }
    fn word(&mut self) -> Result<String> {
        match self.next()? {
            Token { tok: Tok::Word(w), .. } => Ok(w),
            t => {
                self.pos -= 1;
                Err(parse_err(t.line, format!("expected a name, found {}", self.describe())))
            }
        }
    }
    fn number(&mut self) -> Result<u64> {
        let line = self.line();
        match self.next()? {
            Token { tok: Tok::Num(n), .. } => parse_uint(&n).ok_or_else(|| parse_err(line, format!("bad number '{n}'"))),
            _ => {
                self.pos -= 1;
                Err(parse_err(line, format!("expected a number, found {}", self.describe())))
            }
        }
    }
    /// Skips the rest of the current line (directives without a terminating ';').
    fn skip_line(&mut self, line: u32) {
        while self.pos < self.toks.len() && self.toks[self.pos].line == line {
            self.pos += 1;
        }
    }
    fn skip_to_semicolon(&mut self) -> Result<()> {
        while !self.eat_punct(';') {
            self.next()?;
        }
        Ok(())
    }
    /// Skips a balanced `{ ... }` (debug sections).
    fn skip_braces(&mut self) -> Result<()> {
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            match self.next()?.tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn module(&mut self) -> Result<PtxModule> {
        let mut m = PtxModule::default();
        let mut is_extern = false;
        while let Some(tok) = self.peek().cloned() {
            let line = self.line();
            match tok {
                Tok::Word(w) => match w.as_str() {
                    ".version" | ".target" | ".address_size" | ".file" | ".loc" => {
                        self.pos += 1;
                        let start = self.pos;
                        self.skip_line(line);
                        let words: Vec<String> = self.toks[start..self.pos]
                            .iter()
                            .filter_map(|t| match &t.tok {
                                Tok::Word(w) | Tok::Num(w) => Some(w.clone()),
                                _ => None,
                            })
                            .collect();
                        if w == ".version" {
                            m.version = words.join("");
                        } else if w == ".target" {
                            m.target = words.join(",");
                        }
                    }
                    ".section" => {
                        self.pos += 1;
                        self.word()?;
                        self.skip_braces()?;
                    }
                    ".visible" | ".weak" | ".common" => self.pos += 1,
                    ".extern" => {
                        self.pos += 1;
                        is_extern = true;
                        continue;
                    }
                    ".entry" | ".func" => {
                        self.pos += 1;
                        let f = self.function(w == ".entry", line)?;
                        if let Some(f) = f {
                            m.functions.push(f);
                        }
                    }
                    ".global" | ".shared" | ".const" | ".local" => {
                        let mut v = self.var_decl()?;
                        v.is_extern = is_extern;
                        self.expect_punct(';')?;
                        m.globals.push(v);
                    }
                    _ => return Err(parse_err(line, format!("unexpected '{w}' at module scope"))),
                },
                Tok::Punct(';') => self.pos += 1,
                _ => return Err(parse_err(line, format!("unexpected {} at module scope", self.describe()))),
            }
            is_extern = false;
        }
        Ok(m)
    }

    /// A declaration starting at its state-space word, up to (not including) `;`, `,` or `)`.
    fn var_decl(&mut self) -> Result<VarDecl> {
        let line = self.line();
        let mut v = VarDecl { line, vec: 1, ..Default::default() };
        let space = self.word()?;
        v.space = space.trim_start_matches('.').to_string();
        // `.ptr .global .align N` describes the pointee, not the parameter's own alignment.
        let mut after_ptr = false;
        loop {
            match self.peek() {
                Some(Tok::Word(w)) if w.starts_with('.') => {
                    let w = w.clone();
                    self.pos += 1;
                    match w.as_str() {
                        ".align" if after_ptr => {
                            self.number()?;
                        }
                        ".ptr" => after_ptr = true,
                        ".align" => v.align = self.number()? as u32,
                        ".v2" => v.vec = 2,
                        ".v4" => v.vec = 4,
                        ".v8" => v.vec = 8,
                        ".global" | ".shared" | ".const" | ".local" | ".param" => {}
                        _ => v.ty = w[1..].to_string(),
                    }
                }
                Some(Tok::Word(_)) => break,
                _ => return Err(parse_err(self.line(), format!("expected a variable name, found {}", self.describe()))),
            }
        }
        v.name = self.word()?;
        if self.eat_punct('[') {
            if self.eat_punct(']') {
                v.array = Some(None);
            } else {
                v.array = Some(Some(self.number()?));
                self.expect_punct(']')?;
            }
        }
        if self.eat_punct('=') {
            let mut depth = 0;
            loop {
                match self.peek() {
                    Some(Tok::Punct('{')) => depth += 1,
                    Some(Tok::Punct('}')) => depth -= 1,
                    Some(Tok::Punct(';')) if depth == 0 => break,
                    Some(Tok::Num(n)) => v.init.push(n.clone()),
                    Some(Tok::Punct('-')) => {
                        if let Some(Tok::Num(n)) = self.peek_at(1) {
                            v.init.push(format!("-{n}"));
                            self.pos += 1;
                        }
                    }
                    None => return Err(parse_err(line, "unterminated initializer")),
                    _ => {}
                }
                self.pos += 1;
            }
        }
        Ok(v)
    }

    /// `(params)` lists of `.param` declarations.
    fn param_list(&mut self) -> Result<Vec<VarDecl>> {
        self.expect_punct('(')?;
        let mut out = Vec::new();
        if self.eat_punct(')') {
            return Ok(out);
        }
        loop {
            out.push(self.var_decl()?);
            if self.eat_punct(')') {
                return Ok(out);
            }
            self.expect_punct(',')?;
        }
    }

    fn dims(&mut self) -> Result<[u32; 3]> {
        let mut d = [1u32; 3];
        for (i, slot) in d.iter_mut().enumerate() {
            if i > 0 && !self.eat_punct(',') {
                break;
            }
            *slot = self.number()? as u32;
        }
        Ok(d)
    }

    /// After `.entry`/`.func`: returns None for a declaration without a body.
    fn function(&mut self, is_entry: bool, line: u32) -> Result<Option<Function>> {
        let mut f = Function { is_entry, line, ..Default::default() };
        if self.is_punct('(') {
            f.returns = self.param_list()?;
        }
        f.name = self.word()?;
        if self.is_punct('(') {
            f.params = self.param_list()?;
        }
        loop {
            match self.peek().cloned() {
                Some(Tok::Punct(';')) => {
                    self.pos += 1;
                    return Ok(None);
                }
                Some(Tok::Punct('{')) => break,
                Some(Tok::Word(w)) => {
                    self.pos += 1;
                    match w.as_str() {
                        ".reqntid" => f.reqntid = Some(self.dims()?),
                        ".maxntid" => f.maxntid = Some(self.dims()?),
                        ".maxnreg" => f.maxnreg = Some(self.number()? as u32),
                        ".minnctapersm" => f.minnctapersm = Some(self.number()? as u32),
                        ".reqnctapercluster" => f.cluster = Some(self.dims()?),
                        ".explicitcluster" => f.explicit_cluster = true,
                        _ => {}
                    }
                }
                Some(_) => self.pos += 1,
                None => return Err(parse_err(line, format!("function '{}' has no body", f.name))),
            }
        }
        self.expect_punct('{')?;
        let mut depth = 0u32;
        loop {
            let line = self.line();
            let Some(tok) = self.peek().cloned() else {
                return Err(parse_err(f.line, format!("function '{}' is not closed by '}}'", f.name)));
            };
            match tok {
                Tok::Punct('{') => {
                    self.pos += 1;
                    depth += 1;
                    f.body.push(Stmt::Open(line));
                }
                Tok::Punct('}') => {
                    self.pos += 1;
                    if depth == 0 {
                        return Ok(Some(f));
                    }
                    depth -= 1;
                    f.body.push(Stmt::Close(line));
                }
                Tok::Punct(';') => self.pos += 1,
                Tok::Word(w) if self.peek_at(1) == Some(&Tok::Punct(':')) && !w.starts_with('%') => {
                    self.pos += 2;
                    f.body.push(Stmt::Label(w, line));
                }
                Tok::Word(w) if w == ".reg" => {
                    self.pos += 1;
                    let mut ty = String::new();
                    while let Some(Tok::Word(t)) = self.peek() {
                        if !t.starts_with('.') {
                            break;
                        }
                        ty = t[1..].to_string();
                        self.pos += 1;
                    }
                    let mut names = Vec::new();
                    loop {
                        let name = self.word()?;
                        let mut count = None;
                        if self.eat_punct('<') {
                            count = Some(self.number()? as u32);
                            self.expect_punct('>')?;
                        }
                        names.push((name, count));
                        if self.eat_punct(';') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                    f.body.push(Stmt::Reg { ty, names, line });
                }
                Tok::Word(w) if matches!(w.as_str(), ".local" | ".shared" | ".param" | ".global" | ".const") => {
                    let v = self.var_decl()?;
                    self.expect_punct(';')?;
                    f.body.push(Stmt::Var(v));
                }
                Tok::Word(w) if w == ".pragma" => {
                    self.skip_to_semicolon()?;
                }
                Tok::Word(w) if w == ".loc" || w == ".file" => {
                    self.pos += 1;
                    self.skip_line(line);
                }
                Tok::Word(_) | Tok::Punct('@') => {
                    let i = self.instruction()?;
                    f.body.push(Stmt::Inst(i));
                }
                _ => return Err(parse_err(line, format!("unexpected {} in the body of '{}'", self.describe(), f.name))),
            }
        }
    }

    fn instruction(&mut self) -> Result<Instr> {
        let line = self.line();
        let mut guard = None;
        if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            guard = Some((neg, self.word()?));
        }
        let opcode = self.word()?;
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            loop {
                operands.push(self.operand()?);
                if self.eat_punct(';') {
                    break;
                }
                if !self.eat_punct(',') {
                    return Err(parse_err(
                        self.line(),
                        format!("expected ',' or ';' after an operand of '{opcode}', found {}", self.describe()),
                    ));
                }
            }
        }
        Ok(Instr { line, guard, opcode, operands })
    }

    fn operand(&mut self) -> Result<Operand> {
        let line = self.line();
        let t = self.next()?;
        let op = match t.tok {
            Tok::Punct('{') => {
                let mut items = Vec::new();
                loop {
                    items.push(self.operand()?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
                Operand::Vector(items)
            }
            Tok::Punct('(') => {
                let mut items = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        items.push(self.operand()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Operand::Group(items)
            }
            Tok::Punct('[') => {
                let base = match self.next()?.tok {
                    Tok::Word(w) => Operand::Name(w),
                    Tok::Num(n) => Operand::Imm { text: n, neg: false },
                    _ => return Err(parse_err(line, "expected a register, symbol or address in '[...]'")),
                };
                if self.eat_punct(',') {
                    // `[tensormap, {c0, c1}]`: a tensor address with coordinates.
                    let coords = self.operand()?;
                    self.expect_punct(']')?;
                    return Ok(Operand::TensorAddr { base: Box::new(base), coords: Box::new(coords) });
                }
                let mut offset = 0i64;
                while !self.eat_punct(']') {
                    let mut sign = 1i64;
                    loop {
                        if self.eat_punct('+') {
                        } else if self.eat_punct('-') {
                            sign = -sign;
                        } else {
                            break;
                        }
                    }
                    let n = self.number()?;
                    offset = offset.wrapping_add(sign.wrapping_mul(n as i64));
                }
                Operand::Addr { base: Box::new(base), offset }
            }
            Tok::Punct('!') => Operand::Not(Box::new(self.operand()?)),
            Tok::Punct('-') => match self.next()?.tok {
                Tok::Num(n) => Operand::Imm { text: n, neg: true },
                _ => return Err(parse_err(line, "expected a number after '-'")),
            },
            Tok::Num(n) => Operand::Imm { text: n, neg: false },
            Tok::Word(w) if w == "_" => Operand::Sink,
            Tok::Word(w) => Operand::Name(w),
            _ => {
                self.pos -= 1;
                return Err(parse_err(line, format!("expected an operand, found {}", self.describe())));
            }
        };
        if self.eat_punct('|') {
            let second = self.operand()?;
            return Ok(Operand::Pair(Box::new(op), Box::new(second)));
        }
        Ok(op)
    }
}

/// Parses an unsigned integer literal: decimal, `0x` hex, `0b` binary, octal with a leading
/// 0, with an optional `U` suffix.
pub fn parse_uint(text: &str) -> Option<u64> {
    let t = text.trim_end_matches(['U', 'u']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| b.is_ascii_digit()) {
        u64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entry_with_inline_asm_scope() {
        let text = ".version 8.6\n.target sm_90a\n.address_size 64\n\
            .visible .entry k(\n .param .u64 .ptr .global .align 1 k_param_0,\n .param .u32 k_param_1\n)\n\
            .reqntid 128, 1, 1\n{\n .reg .pred %p<3>;\n .reg .b32 %r<5>;\n\
            ld.param.b32 %r1, [k_param_1];\n{ .reg .pred p; setp.ne.b32 p, %r1, 0; @!p mov.b32 %r2, 0x0; }\n\
            $L__BB0_1:\n @%p1 bra $L__BB0_1;\n st.global.v2.b32 [%rd1+-8], {%r1, %r2};\n ret;\n}\n";
        let m = parse_module(text).unwrap();
        assert_eq!(m.version, "8.6");
        assert_eq!(m.target, "sm_90a");
        let f = &m.functions[0];
        assert_eq!(f.name, "k");
        assert_eq!(f.params.len(), 2);
        assert_eq!(f.params[0].ty, "u64");
        assert_eq!(f.reqntid, Some([128, 1, 1]));
        let insts: Vec<&Instr> = f.body.iter().filter_map(|s| if let Stmt::Inst(i) = s { Some(i) } else { None }).collect();
        assert_eq!(insts[1].opcode, "setp.ne.b32");
        assert_eq!(insts[2].guard, Some((true, "p".to_string())));
        let st = insts.iter().find(|i| i.opcode.starts_with("st.")).unwrap();
        assert_eq!(st.operands[0], Operand::Addr { base: Box::new(Operand::Name("%rd1".into())), offset: -8 });
        assert!(matches!(&st.operands[1], Operand::Vector(v) if v.len() == 2));
        assert_eq!(st.line, 16);
    }

    #[test]
    fn reports_line_of_bad_token() {
        let err = parse_module(".version 8.6\n.entry k()\n{\n add.s32 %r1, %r2 %r3;\n}\n").unwrap_err();
        assert_eq!(err.line, 4);
    }
}
