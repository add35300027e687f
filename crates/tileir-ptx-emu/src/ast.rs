//! The parsed form of a PTX module: statements as written, names unresolved.

/// A whole PTX module.
#[derive(Clone, Debug, Default)]
pub struct PtxModule {
    /// `.version` as written (`8.6`).
    pub version: String,
    /// `.target` words (`sm_90a`).
    pub target: String,
    /// Module-scope variables (`.global`, `.shared`, `.const`).
    pub globals: Vec<VarDecl>,
    /// Kernels and device functions with bodies, in order.
    pub functions: Vec<Function>,
}

/// A variable declaration (`.shared .align 16 .b8 smem[1024];`, `.param .u64 p`).
#[derive(Clone, Debug, Default)]
pub struct VarDecl {
    /// State space word without the dot (`shared`, `global`, `const`, `local`, `param`).
    pub space: String,
    /// `.align` value (0: natural).
    pub align: u32,
    /// Element type word without the dot (`b8`, `u64`).
    pub ty: String,
    /// Vector width from `.v2`/`.v4` (1 otherwise).
    pub vec: u32,
    /// The name.
    pub name: String,
    /// Array length: None for a scalar, Some(None) for `[]` (unsized, dynamic shared memory).
    pub array: Option<Option<u64>>,
    /// Initializer numbers as written (flattened).
    pub init: Vec<String>,
    /// `.extern` was given.
    pub is_extern: bool,
    /// Line of the declaration.
    pub line: u32,
}

/// A function (`.entry` or `.func`) with a body.
#[derive(Clone, Debug, Default)]
pub struct Function {
    /// Symbol name.
    pub name: String,
    /// `.entry` (a kernel) rather than `.func`.
    pub is_entry: bool,
    /// Parameters in order.
    pub params: Vec<VarDecl>,
    /// Return parameters of a `.func`.
    pub returns: Vec<VarDecl>,
    /// `.reqntid` if given.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxntid` if given.
    pub maxntid: Option<[u32; 3]>,
    /// `.maxnreg` if given.
    pub maxnreg: Option<u32>,
    /// `.minnctapersm` if given.
    pub minnctapersm: Option<u32>,
    /// `.reqnctapercluster` if given.
    pub cluster: Option<[u32; 3]>,
    /// `.explicitcluster`.
    pub explicit_cluster: bool,
    /// Body statements.
    pub body: Vec<Stmt>,
    /// Line of the `.entry`/`.func` word.
    pub line: u32,
}

/// One statement of a body.
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `name:`.
    Label(String, u32),
    /// `.reg .b32 %r<27>, %x;`: type word and (name, count) pairs; a count makes names
    /// `name0 .. name{count-1}`.
    Reg { ty: String, names: Vec<(String, Option<u32>)>, line: u32 },
    /// A variable in a function scope (`.local`, `.shared`, `.param`).
    Var(VarDecl),
    /// `{`: a new register scope (inline asm blocks open one).
    Open(u32),
    /// `}`.
    Close(u32),
    /// An instruction.
    Inst(Instr),
}

/// An instruction as written.
#[derive(Clone, Debug)]
pub struct Instr {
    /// 1-based line.
    pub line: u32,
    /// Guard predicate: (negated, register name).
    pub guard: Option<(bool, String)>,
    /// Full opcode with modifiers (`ld.global.v4.b32`).
    pub opcode: String,
    /// Operands.
    pub operands: Vec<Operand>,
}

/// An operand as written.
// Operand fields follow the PTX ISA: d/d2/pd destinations, a/b/c/e sources.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, special register, label or symbol name.
    Name(String),
    /// A numeric literal, with a leading minus if written.
    Imm { text: String, neg: bool },
    /// `{a, b, c, d}`.
    Vector(Vec<Operand>),
    /// `[base+offset]`: base is a Name or Imm.
    Addr { base: Box<Operand>, offset: i64 },
    /// `[tmap, {c0, c1}]`: a tensor-map address with coordinates (bulk tensor copies).
    TensorAddr { base: Box<Operand>, coords: Box<Operand> },
    /// `(a, b)`: call argument lists.
    Group(Vec<Operand>),
    /// `!p`.
    Not(Box<Operand>),
    /// `p|q` (the two destinations of setp).
    Pair(Box<Operand>, Box<Operand>),
    /// `_`: a sink destination.
    Sink,
}
