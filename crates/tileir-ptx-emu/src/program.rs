//! The pre-decoded program: a closed instruction enum with resolved register indices,
//! label targets and symbol addresses, so the executor never looks at text.

/// Runtime functions a kernel may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallFn {
    /// `vprintf(const char *fmt, void *args)`.
    Vprintf,
    /// `__assertfail(msg, file, line, func, charsize)`.
    AssertFail,
    /// `void *malloc(size_t size)`: device-heap allocation ([`crate::mem::GlobalMem::malloc`]).
    Malloc,
    /// `void free(void *ptr)`.
    Free,
}

/// A register index (into a warp's register file).
pub type Reg = u32;

/// A source operand: a register or an immediate (already converted to the operand's bits).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    /// A register.
    R(Reg),
    /// Immediate bits.
    I(u64),
}

/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Generic addressing: the window an address falls in picks the space.
    Generic,
    /// Global memory (the launch's buffers).
    Global,
    /// The CTA's shared memory.
    Shared,
    /// Per-thread local memory.
    Local,
    /// Kernel parameters.
    Param,
    /// Constant memory (module `.const` variables).
    Const,
}

impl Space {
    /// PTX spelling.
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Param => "param",
            Space::Const => "const",
        }
    }
}

/// An address operand `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Addr {
    /// Base register or absolute address.
    pub base: Src,
    /// Byte offset.
    pub off: i64,
}

/// Integer operand type: width and signedness (`.b` types are unsigned here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntTy {
    /// 8, 16, 32 or 64.
    pub bits: u8,
    /// `.s` types.
    pub signed: bool,
}

/// Floating-point kinds, including the packed pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FKind {
    /// `.f16`.
    F16,
    /// `.bf16`.
    BF16,
    /// `.f32`.
    F32,
    /// `.f64`.
    F64,
    /// `.f16x2` (two halves in 32 bits, element 0 in the low half).
    F16x2,
    /// `.bf16x2`.
    BF16x2,
}

/// Rounding modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward -inf.
    Rm,
    /// Toward +inf.
    Rp,
    /// To nearest, ties away from zero (`.rna`, cvt only).
    Rna,
}

/// Integer binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntBin {
    /// `add`.
    Add,
    /// `add.sat.s32`.
    AddSat,
    /// `sub`.
    Sub,
    /// `sub.sat.s32`.
    SubSat,
    /// `mul.lo`.
    MulLo,
    /// `mul.hi`.
    MulHi,
    /// `mul.wide` (result twice as wide).
    MulWide,
    /// `mul24.lo`.
    Mul24Lo,
    /// `mul24.hi`.
    Mul24Hi,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `shl`.
    Shl,
    /// `shr`.
    Shr,
    /// `div`.
    Div,
    /// `rem`.
    Rem,
    /// `sad` without the addend is not a thing; `bmsk.clamp`/`bmsk.wrap` (bit mask).
    BmskClamp,
    /// `bmsk.wrap`.
    BmskWrap,
}

/// Integer unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntUn {
    /// `not`.
    Not,
    /// `cnot`.
    Cnot,
    /// `neg`.
    Neg,
    /// `abs`.
    Abs,
    /// `popc` (result u32).
    Popc,
    /// `clz` (result u32).
    Clz,
    /// `brev`.
    Brev,
    /// `bfind` (result u32).
    Bfind,
    /// `bfind.shiftamt`.
    BfindShift,
}

/// Comparison operators of setp/set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// eq
    Eq,
    /// ne
    Ne,
    /// lt
    Lt,
    /// le
    Le,
    /// gt
    Gt,
    /// ge
    Ge,
    /// lo (unsigned <)
    Lo,
    /// ls
    Ls,
    /// hi
    Hi,
    /// hs
    Hs,
    /// equ (unordered or equal)
    Equ,
    /// neu
    Neu,
    /// ltu
    Ltu,
    /// leu
    Leu,
    /// gtu
    Gtu,
    /// geu
    Geu,
    /// num (both ordered)
    Num,
    /// nan (either NaN)
    Nan,
}

/// What the compared values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpTy {
    /// Integers.
    Int(IntTy),
    /// Floats (scalar only), and whether `.ftz` flushes subnormal inputs.
    Float(FKind, bool),
}

/// Boolean combination of setp with a third predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    /// and
    And,
    /// or
    Or,
    /// xor
    Xor,
}

/// Binary floating-point operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FBin {
    /// add
    Add,
    /// sub
    Sub,
    /// mul
    Mul,
    /// div (IEEE unless `approx`)
    Div,
    /// min
    Min,
    /// max
    Max,
    /// `copysign` (a gives the sign, b the magnitude).
    CopySign,
}

/// Unary floating-point operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FUn {
    /// neg
    Neg,
    /// abs
    Abs,
    /// sqrt
    Sqrt,
    /// rsqrt (approx)
    Rsqrt,
    /// rcp
    Rcp,
    /// sin.approx
    Sin,
    /// cos.approx
    Cos,
    /// lg2.approx
    Lg2,
    /// ex2.approx
    Ex2,
    /// tanh.approx
    Tanh,
}

/// Float flags shared by the FP families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FMods {
    /// Rounding.
    pub rnd: Rnd,
    /// `.ftz`.
    pub ftz: bool,
    /// `.sat` (clamp to [0, 1]).
    pub sat: bool,
    /// `.approx` / `.full`.
    pub approx: bool,
    /// `.NaN` on min/max (propagate NaN).
    pub nan: bool,
    /// `.relu` (clamp negatives to 0).
    pub relu: bool,
}

/// Type of a cvt side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CvtTy {
    /// Integer.
    Int(IntTy),
    /// A float in a scalar format: f16, bf16, tf32, f32, f64, or one fp8 element.
    Float(tileir_numeric::FloatFormat),
    /// Two fp8/f16/bf16 values packed (`.e4m3x2`, `.f16x2`, `.bf16x2`): element 1 in the high half.
    Pair(tileir_numeric::FloatFormat),
}

/// Shuffle modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    /// up
    Up,
    /// down
    Down,
    /// bfly
    Bfly,
    /// idx
    Idx,
}

/// Vote modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    /// all
    All,
    /// any
    Any,
    /// uni
    Uni,
    /// ballot
    Ballot,
}

/// Atomic operations (also `red` and `redux.sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    /// add
    Add,
    /// min
    Min,
    /// max
    Max,
    /// and
    And,
    /// or
    Or,
    /// xor
    Xor,
    /// exch
    Exch,
    /// cas
    Cas,
    /// inc (wrapping at b)
    Inc,
    /// dec
    Dec,
}

/// Type of an atomic's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomTy {
    /// Integer.
    Int(IntTy),
    /// Float (f32/f64; f16/bf16 scalar and x2).
    Float(FKind),
}

/// Barrier flavours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// bar.sync / barrier.sync: arrive and wait.
    Sync,
    /// bar.arrive: arrive only.
    Arrive,
    /// bar.red.popc.u32
    RedPopc,
    /// bar.red.and.pred
    RedAnd,
    /// bar.red.or.pred
    RedOr,
}

/// Special registers read once per thread at launch (the decoder maps each to a register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// %tid.{x,y,z}
    Tid(u8),
    /// %ntid
    Ntid(u8),
    /// %ctaid
    Ctaid(u8),
    /// %nctaid
    Nctaid(u8),
    /// %laneid
    Laneid,
    /// %warpid
    Warpid,
    /// %nwarpid
    Nwarpid,
    /// %smid (0)
    Smid,
    /// %nsmid
    Nsmid,
    /// %gridid
    Gridid,
    /// %lanemask_eq/le/lt/ge/gt (0..4)
    Lanemask(u8),
    /// %cluster_ctaid
    ClusterCtaid(u8),
    /// %cluster_nctaid
    ClusterNctaid(u8),
    /// %clusterid
    Clusterid(u8),
    /// %nclusterid
    Nclusterid(u8),
    /// %cluster_ctarank
    ClusterCtarank,
    /// %cluster_nctarank
    ClusterNctarank,
    /// %is_explicit_cluster
    IsExplicitCluster,
    /// %dynamic_smem_size
    DynSmem,
    /// %total_smem_size
    TotalSmem,
}

/// One decoded operation.
// Operand fields follow the PTX ISA: d/d2/pd destinations, a/b/c/e sources.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Copy `bits` bits.
    Mov { d: Reg, a: Src, bits: u8 },
    /// Read a clock (%clock, %clock64, %globaltimer): the warp's instruction count.
    Clock { d: Reg },
    /// `mov.bN d, {a, b, ..}`: pack parts (element 0 lowest).
    Pack { d: Reg, parts: Vec<Src>, part_bits: u8 },
    /// `mov.bN {a, b, ..}, s`: unpack (None: sink `_`).
    Unpack { ds: Vec<Option<Reg>>, a: Src, part_bits: u8 },
    /// Integer binary op.
    IBin { op: IntBin, t: IntTy, d: Reg, a: Src, b: Src },
    /// Integer unary op.
    IUn { op: IntUn, t: IntTy, d: Reg, a: Src },
    /// `mad.lo/hi/wide` (`mode` is MulLo, MulHi or MulWide).
    IMad { mode: IntBin, t: IntTy, d: Reg, a: Src, b: Src, c: Src },
    /// `add.cc/addc(.cc)/sub.cc/subc(.cc)` on 32/64 bits with the warp's carry flags.
    AddC { sub: bool, use_carry: bool, set_carry: bool, bits: u8, d: Reg, a: Src, b: Src },
    /// `mad.lo/hi.cc` and `madc.lo/hi(.cc)` (unsigned or signed, 32/64 bits): the low or
    /// high half of a·b plus c, plus the carry flag with `madc`; `.cc` sets the carry.
    MadC { hi: bool, signed: bool, use_carry: bool, set_carry: bool, bits: u8, d: Reg, a: Src, b: Src, c: Src },
    /// setp (d2 gets the complement when given); `comb` combines with a predicate.
    Setp { cmp: Cmp, t: CmpTy, d: Option<Reg>, d2: Option<Reg>, a: Src, b: Src, comb: Option<(BoolOp, Src, bool)> },
    /// `set.cmp.dtype`: writes all-ones/1.0 or 0.
    Set { cmp: Cmp, t: CmpTy, float_result: bool, d: Reg, a: Src, b: Src },
    /// selp: d = p ? a : b.
    Selp { bits: u8, d: Reg, a: Src, b: Src, p: Src },
    /// Predicate logic (and/or/xor/not on .pred) is IBin/IUn with 1-bit width; lop3.
    Lop3 { d: Reg, a: Src, b: Src, c: Src, lut: u8 },
    /// prmt.b32 with mode (0: default; 1..6: f4e, b4e, rc8, ecl, ecr, rc16).
    Prmt { mode: u8, d: Reg, a: Src, b: Src, c: Src },
    /// bfe
    Bfe { t: IntTy, d: Reg, a: Src, b: Src, c: Src },
    /// bfi
    Bfi { bits: u8, d: Reg, a: Src, b: Src, c: Src, e: Src },
    /// shf.l/.r .wrap/.clamp
    Shf { left: bool, wrap: bool, d: Reg, a: Src, b: Src, c: Src },
    /// Integer `sad`/`dp4a` not supported; `szext`.
    Szext { signed: bool, wrap: bool, d: Reg, a: Src, b: Src },
    /// Float binary op.
    FBin { op: FBin, k: FKind, m: FMods, d: Reg, a: Src, b: Src },
    /// fma/mad on floats.
    Fma { k: FKind, m: FMods, d: Reg, a: Src, b: Src, c: Src },
    /// Float unary op.
    FUn { op: FUn, k: FKind, m: FMods, d: Reg, a: Src },
    /// `testp.{finite,infinite,number,notanumber,normal,subnormal}` (0..5).
    Testp { which: u8, k: FKind, d: Reg, a: Src },
    /// cvt.
    Cvt { dt: CvtTy, st: CvtTy, m: FMods, d: Reg, a: Src, b: Option<Src> },
    /// cvta (to: generic→space; otherwise space→generic).
    Cvta { to: bool, space: Space, d: Reg, a: Src },
    /// isspacep
    Isspacep { space: Space, d: Reg, a: Src },
    /// ld: `n` elements of `bits` each; `sext` sign-extends into wider registers.
    Ld { space: Space, bits: u8, sext: bool, ds: Vec<Option<Reg>>, addr: Addr },
    /// st
    St { space: Space, bits: u8, vals: Vec<Src>, addr: Addr },
    /// atom (d: None for red).
    Atom { space: Space, op: AtomOp, t: AtomTy, d: Option<Reg>, addr: Addr, b: Src, c: Option<Src> },
    /// Vector `red` (`red.global.v4.f32.add`): one atomic per element.
    RedVec { space: Space, op: AtomOp, t: AtomTy, addr: Addr, vals: Vec<Src> },
    /// Call of a `.func` with a body: copy arguments (local slot → callee slot, bytes), push
    /// the return point, jump. `rets` are copied back (callee slot → caller slot) on return.
    CallFunc { target: u32, args: Vec<(u64, u64, u32)>, rets: Vec<(u64, u64, u32)> },
    /// `ret`: return from a `.func` (or end the thread in the kernel itself).
    Ret,
    /// Branch to instruction index.
    Bra { target: u32 },
    /// ret/exit: the thread finishes.
    Exit,
    /// trap/brkpt.
    Trap,
    /// `call` of a runtime function; arguments and result are `.param` variables declared in
    /// the body, which live in local memory (their local addresses are given).
    Call { func: CallFn, args: Vec<u64>, ret: Option<u64> },
    /// bar / barrier.
    Bar { kind: BarKind, id: Src, count: Option<Src>, d: Option<Reg>, p: Option<(Src, bool)> },
    /// bar.warp.sync
    WarpSync { mask: Src },
    /// shfl.sync
    Shfl { mode: ShflMode, d: Reg, pd: Option<Reg>, a: Src, b: Src, c: Src, mask: Src },
    /// vote.sync (or vote without sync: mask = all active)
    Vote { mode: VoteMode, d: Reg, a: Src, neg: bool, mask: Option<Src> },
    /// match.any/all.sync
    Match { all: bool, bits: u8, d: Reg, pd: Option<Reg>, a: Src, mask: Src },
    /// redux.sync
    Redux { op: AtomOp, t: IntTy, d: Reg, a: Src, mask: Src },
    /// activemask
    Activemask { d: Reg },
    /// elect.sync d|p, mask
    Elect { d: Option<Reg>, p: Option<Reg>, mask: Src },
    /// fences, membar, prefetch, griddepcontrol, nanosleep, pragmas: no effect on a
    /// sequentially consistent emulator.
    Nop,
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 n`: the warp's per-thread register count
    /// becomes `n`, taking registers from (`inc`, blocking until there are enough) or giving
    /// them back to (`dec`) its CTA's pool.
    SetMaxNReg { inc: bool, n: u32 },
    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16`: `ds.len()` matrices.
    Ldmatrix { space: Space, trans: bool, ds: Vec<Reg>, addr: Addr },
    /// `stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16`.
    Stmatrix { space: Space, trans: bool, vals: Vec<Src>, addr: Addr },
    /// `mma.sync.aligned.mMnNkK.row.col.dtype.atype.btype.ctype`.
    /// (`at`, `bt`: the A and B element types; s8/u8 inputs have s32 accumulators.)
    Mma { m: u8, n: u8, k: u8, at: MmaIn, bt: MmaIn, d_f16: bool, c_f16: bool, ds: Vec<Reg>, a: Vec<Src>, b: Vec<Src>, c: Vec<Src> },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], size{, src_size}`.
    CpAsync { dst: Addr, src: Addr, size: u8, src_size: Option<Src> },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} n`.
    BulkWait { n: u32 },
    /// `cp.async.wait_group n` (None: `wait_all`).
    CpAsyncWait { n: Option<u32> },
    /// `cp.async.mbarrier.arrive{.noinc}.shared.b64 [mbar]`.
    CpAsyncMbarArrive { noinc: bool, addr: Addr },
    /// mbarrier operations.
    Mbar { op: MbarOp, d: Option<Reg>, addr: Addr, b: Option<Src> },
    /// `wgmma.mma_async` (one warp's 16-row slice of the warpgroup's m64nNk tile): A and B
    /// of types `at` / `bt` (f16/bf16 k16, tf32 k8, e4m3/e5m2 or s8/u8 k32).
    Wgmma { n: u16, k: u8, at: MmaIn, bt: MmaIn, d: WgmmaD, ds: Vec<Reg>, a: WgmmaA, b: Src, scale_d: Src, neg_a: bool, neg_b: bool, tnsp_a: bool, tnsp_b: bool },
    /// `wgmma.fence`: orders earlier register accesses before later wgmma.mma_async.
    WgmmaFence,
    /// `wgmma.commit_group`.
    WgmmaCommit,
    /// `wgmma.wait_group n`.
    WgmmaWait { n: u32 },
    /// `cp.async.bulk` (non-tensor): `size` bytes from `src` to `dst`, then complete_tx
    /// of `size` bytes on `mbar` when given.
    BulkCopy { dst_space: Space, dst: Addr, src_space: Space, src: Addr, size: Src, mbar: Option<Addr> },
    /// `mapa`: the address of a shared variable in CTA `rank` of the cluster.
    Mapa { d: Reg, a: Src, rank: Src, generic: bool },
    /// `barrier.cluster.arrive{.relaxed}`: the thread arrives on the cluster barrier.
    ClusterArrive { relaxed: bool },
    /// `barrier.cluster.wait`: the thread waits for the phase it arrived in to complete.
    ClusterWait,
    /// `cp.async.bulk.tensor.{rank}d` in tile mode through the tensor map at `tmap` (in
    /// `tmap_space`, Generic: resolved by window): a load (global → shared at `smem`, then
    /// complete_tx of the box's bytes on `mbar`; `mask`: the multicast CTA mask) or a store
    /// (shared at `smem` → global).
    TensorCopy { load: bool, rank: u8, smem: Addr, tmap_space: Space, tmap: Addr, coords: Vec<Src>, mbar: Option<Addr>, mask: Option<Src> },
}

/// mbarrier operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarOp {
    /// init [a], count
    Init,
    /// inval [a]
    Inval,
    /// arrive (optionally with a count)
    Arrive,
    /// arrive_drop
    ArriveDrop,
    /// arrive.expect_tx [a], tx
    ArriveExpectTx,
    /// expect_tx [a], tx
    ExpectTx,
    /// complete_tx [a], tx
    CompleteTx,
    /// try_wait (parity: operand is a phase parity, else a state token)
    TryWait(bool),
    /// test_wait
    TestWait(bool),
}

/// An A or B element type of `mma.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaIn {
    /// A float format (f16, bf16, tf32, e4m3, e5m2).
    F(tileir_numeric::FloatFormat),
    /// Signed 8-bit integers.
    S8,
    /// Unsigned 8-bit integers.
    U8,
}

/// The A operand of wgmma: a shared-memory matrix descriptor or registers.
#[derive(Clone, Debug, PartialEq)]
pub enum WgmmaA {
    /// A 64-bit matrix descriptor.
    Desc(Src),
    /// Fragment registers (RS form).
    Regs(Vec<Src>),
}

/// The accumulator (D) type of wgmma.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WgmmaD {
    /// f32, one per register.
    F32,
    /// f16, two per register.
    F16,
    /// s32 (8-bit integer inputs).
    S32 {
        /// `.satfinite`: results clamp to the s32 range instead of wrapping.
        satfinite: bool,
    },
}

/// One instruction with its guard and source line.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// The operation.
    pub op: Op,
    /// Guard predicate register (`NO_GUARD`: none).
    pub guard: Reg,
    /// `@!p`.
    pub guard_neg: bool,
    /// PTX line.
    pub line: u32,
}

/// No guard predicate.
pub const NO_GUARD: Reg = u32::MAX;

/// A kernel parameter's place in the parameter buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSlot {
    /// Name.
    pub name: String,
    /// PTX type word (`u64`, `b8`).
    pub ty: String,
    /// Offset in the parameter buffer.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// A module-scope `.global`/`.const` variable with its fixed address and initial bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleVar {
    /// Name.
    pub name: String,
    /// Address (in the global window; `.const` variables are read-only).
    pub addr: u64,
    /// Initial contents.
    pub init: Vec<u8>,
    /// `.const`.
    pub constant: bool,
}

/// A decoded kernel.
#[derive(Clone, Debug)]
pub struct Program {
    /// Kernel name.
    pub name: String,
    /// Instructions.
    pub insts: Vec<Inst>,
    /// Registers per thread.
    pub nregs: u32,
    /// Register names (for reports).
    pub reg_names: Vec<String>,
    /// Declared width of each register (1 for predicates).
    pub reg_bits: Vec<u8>,
    /// Special registers to fill per thread before it starts.
    pub specials: Vec<(Reg, Special)>,
    /// Parameters.
    pub params: Vec<ParamSlot>,
    /// Bytes of the parameter buffer.
    pub param_bytes: usize,
    /// Bytes of static shared memory; dynamic shared memory starts here (aligned).
    pub shared_bytes: usize,
    /// Bytes of local memory per thread.
    pub local_bytes: usize,
    /// `.reqntid` / `.maxntid` if present.
    pub reqntid: Option<[u32; 3]>,
    /// `.maxnreg` if present: caps the per-thread register count every warp starts with
    /// (setmaxnreg's starting point).
    pub maxnreg: Option<u32>,
    /// `.minnctapersm` if present: with `.reqntid`/`.maxntid` it makes setmaxnreg effective
    /// (ptxas ignores setmaxnreg in a kernel with neither this nor `.maxnreg`).
    pub minnctapersm: Option<u32>,
    /// `.reqnctapercluster`.
    pub cluster: Option<[u32; 3]>,
    /// `.explicitcluster` or `.reqnctapercluster`: `%is_explicit_cluster` reads 1.
    pub explicit_cluster: bool,
    /// Module variables.
    pub module_vars: Vec<ModuleVar>,
}

impl Program {
    /// The PTX line of instruction `pc` (0 past the end).
    pub fn line_of(&self, pc: u32) -> u32 {
        self.insts.get(pc as usize).map_or(0, |i| i.line)
    }
}

impl Op {
    /// Every register the operation reads or writes (for in-flight checks; not hot).
    pub fn registers(&self) -> Vec<Reg> {
        let (mut reads, writes) = self.register_uses();
        reads.extend(writes);
        reads
    }

    /// The registers the operation writes.
    pub fn written(&self) -> Vec<Reg> {
        self.register_uses().1
    }

    /// The registers the operation reads, and those it writes.
    fn register_uses(&self) -> (Vec<Reg>, Vec<Reg>) {
        let mut out = Vec::new();
        let mut s = |x: &Src| {
            if let Src::R(r) = x {
                out.push(*r);
            }
        };
        let mut regs: Vec<Reg> = Vec::new();
        match self {
            Op::Mov { d, a, .. } => {
                regs.push(*d);
                s(a);
            }
            Op::Clock { d } | Op::Activemask { d } => regs.push(*d),
            Op::Pack { d, parts, .. } => {
                regs.push(*d);
                parts.iter().for_each(&mut s);
            }
            Op::Unpack { ds, a, .. } => {
                regs.extend(ds.iter().flatten());
                s(a);
            }
            Op::IBin { d, a, b, .. } | Op::AddC { d, a, b, .. } | Op::Set { d, a, b, .. } | Op::FBin { d, a, b, .. } | Op::Szext { d, a, b, .. } => {
                regs.push(*d);
                s(a);
                s(b);
            }
            Op::IUn { d, a, .. } | Op::FUn { d, a, .. } | Op::Testp { d, a, .. } | Op::Cvta { d, a, .. } | Op::Isspacep { d, a, .. } => {
                regs.push(*d);
                s(a);
            }
            Op::IMad { d, a, b, c, .. } | Op::MadC { d, a, b, c, .. } | Op::Lop3 { d, a, b, c, .. } | Op::Prmt { d, a, b, c, .. } | Op::Bfe { d, a, b, c, .. } | Op::Shf { d, a, b, c, .. } | Op::Fma { d, a, b, c, .. } => {
                regs.push(*d);
                s(a);
                s(b);
                s(c);
            }
            Op::Selp { d, a, b, p, .. } => {
                regs.push(*d);
                s(a);
                s(b);
                s(p);
            }
            Op::Bfi { d, a, b, c, e, .. } => {
                regs.push(*d);
                [a, b, c, e].into_iter().for_each(&mut s);
            }
            Op::Setp { d, d2, a, b, comb, .. } => {
                regs.extend(d.iter().chain(d2.iter()));
                s(a);
                s(b);
                if let Some((_, c, _)) = comb {
                    s(c);
                }
            }
            Op::Cvt { d, a, b, .. } => {
                regs.push(*d);
                s(a);
                if let Some(b) = b {
                    s(b);
                }
            }
            Op::Ld { ds, addr, .. } => {
                regs.extend(ds.iter().flatten());
                s(&addr.base);
            }
            Op::St { vals, addr, .. } => {
                vals.iter().for_each(&mut s);
                s(&addr.base);
            }
            Op::Atom { d, addr, b, c, .. } => {
                regs.extend(d.iter());
                s(&addr.base);
                s(b);
                if let Some(c) = c {
                    s(c);
                }
            }
            Op::Bar { id, count, d, p, .. } => {
                s(id);
                if let Some(c) = count {
                    s(c);
                }
                regs.extend(d.iter());
                if let Some((p, _)) = p {
                    s(p);
                }
            }
            Op::WarpSync { mask } => s(mask),
            Op::Shfl { d, pd, a, b, c, mask, .. } => {
                regs.push(*d);
                regs.extend(pd.iter());
                [a, b, c, mask].into_iter().for_each(&mut s);
            }
            Op::Vote { d, a, mask, .. } => {
                regs.push(*d);
                s(a);
                if let Some(m) = mask {
                    s(m);
                }
            }
            Op::Match { d, pd, a, mask, .. } => {
                regs.push(*d);
                regs.extend(pd.iter());
                s(a);
                s(mask);
            }
            Op::Redux { d, a, mask, .. } => {
                regs.push(*d);
                s(a);
                s(mask);
            }
            Op::Elect { d, p, mask } => {
                regs.extend(d.iter().chain(p.iter()));
                s(mask);
            }
            Op::Ldmatrix { ds, addr, .. } => {
                regs.extend(ds.iter());
                s(&addr.base);
            }
            Op::Stmatrix { vals, addr, .. } => {
                vals.iter().for_each(&mut s);
                s(&addr.base);
            }
            Op::Mma { ds, a, b, c, .. } => {
                regs.extend(ds.iter());
                a.iter().chain(b.iter()).chain(c.iter()).for_each(&mut s);
            }
            Op::Wgmma { ds, a, b, scale_d, .. } => {
                regs.extend(ds.iter());
                match a {
                    WgmmaA::Regs(a) => a.iter().for_each(&mut s),
                    WgmmaA::Desc(x) => s(x),
                }
                s(b);
                s(scale_d);
            }
            Op::CpAsync { dst, src, src_size, .. } => {
                s(&dst.base);
                s(&src.base);
                if let Some(x) = src_size {
                    s(x);
                }
            }
            Op::CpAsyncMbarArrive { addr, .. } => s(&addr.base),
            Op::RedVec { addr, vals, .. } => {
                s(&addr.base);
                vals.iter().for_each(&mut s);
            }
            Op::Mbar { d, addr, b, .. } => {
                regs.extend(d.iter());
                s(&addr.base);
                if let Some(b) = b {
                    s(b);
                }
            }
            Op::BulkCopy { dst, src, size, mbar, .. } => {
                s(&dst.base);
                s(&src.base);
                s(size);
                if let Some(m) = mbar {
                    s(&m.base);
                }
            }
            Op::TensorCopy { smem, tmap, coords, mbar, mask, .. } => {
                s(&smem.base);
                s(&tmap.base);
                coords.iter().for_each(&mut s);
                if let Some(m) = mbar {
                    s(&m.base);
                }
                if let Some(m) = mask {
                    s(m);
                }
            }
            Op::Mapa { d, a, rank, .. } => {
                regs.push(*d);
                s(a);
                s(rank);
            }
            Op::Bra { .. } | Op::Exit | Op::Ret | Op::CallFunc { .. } | Op::ClusterArrive { .. } | Op::ClusterWait | Op::Trap | Op::Call { .. } | Op::Nop | Op::SetMaxNReg { .. } | Op::CpAsyncCommit | Op::CpAsyncWait { .. } | Op::BulkCommit | Op::BulkWait { .. } | Op::WgmmaFence | Op::WgmmaCommit | Op::WgmmaWait { .. } => {}
        }
        (out, regs)
    }
}
