//! Kernel launch: argument binding, globals, block scheduling (sequential, shuffled or
//! parallel), per-block memory contexts and race detection.

use crate::exec::{BlockExec, Flow};
use crate::memory::{MemError, Memory};
use crate::value::{Tile, Value};
use std::collections::HashMap;
use tileir_ir::{Attr, CtOp, Location, Module, NumType, OpId, OpKind, TileAaOp, TileElem, Type};

/// A kernel argument: a scalar of a given element type (its bit pattern), or a pointer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// A scalar: the element type and its bit pattern in the low bits.
    Scalar {
        /// Element type; must equal the parameter's.
        ty: NumType,
        /// Bit pattern.
        bits: u64,
    },
    /// A pointer (a byte address in [`Memory`]).
    Ptr(u64),
}

impl ArgValue {
    /// An `i32` scalar.
    pub fn i32(v: i32) -> ArgValue {
        ArgValue::Scalar {
            ty: NumType::I32,
            bits: v as u32 as u64,
        }
    }
    /// An `i64` scalar.
    pub fn i64(v: i64) -> ArgValue {
        ArgValue::Scalar {
            ty: NumType::I64,
            bits: v as u64,
        }
    }
    /// An `f32` scalar.
    pub fn f32(v: f32) -> ArgValue {
        ArgValue::Scalar {
            ty: NumType::F32,
            bits: v.to_bits() as u64,
        }
    }
    /// An `f64` scalar.
    pub fn f64(v: f64) -> ArgValue {
        ArgValue::Scalar {
            ty: NumType::F64,
            bits: v.to_bits(),
        }
    }
}

/// In which order blocks run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum BlockOrder {
    /// x fastest, then y, then z.
    #[default]
    Sequential,
    /// A pseudo-random permutation from this seed, to expose order dependence. Blocks run in
    /// an order the specification leaves unspecified, so a result that depends on it comes
    /// from a data race (undefined behavior): a shuffled launch therefore also checks for
    /// races as [`RunOptions::detect_races`] does and reports them as [`ErrorKind::Race`].
    /// (Atomics may legitimately make results order dependent, e.g. the rounding of float
    /// atomic adds; they are not races and are not reported.)
    Shuffled(u64),
}

/// Launch options.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Block order (also the order print output is concatenated in).
    pub order: BlockOrder,
    /// Run blocks on several threads. Blocks run against a snapshot and their writes are
    /// committed afterwards; if two blocks touched the same bytes (one of them writing), or
    /// the kernel uses atomics or `alloca`, the launch is re-run sequentially, so results are
    /// always those of the sequential order.
    pub parallel: bool,
    /// Report data races between blocks of the launch as [`ErrorKind::Race`]: a byte that one
    /// block writes and another block reads or writes with plain (non-atomic) accesses, or
    /// accesses with a plain access while another block updates it atomically. Accesses are
    /// tracked as interval sets per block and checked after the launch, so the first race
    /// (lowest address) is reported with both blocks, the buffer (argument or global) and the
    /// element. Ordering through atomics (locks, flags) is not modelled: plain accesses that
    /// such synchronization orders are still reported.
    pub detect_races: bool,
    /// Check `assume` predicates at run time (a violated assumption is an error).
    pub check_assumes: bool,
    /// Maximum loop iterations per block (None: unlimited); guards against hangs.
    pub max_loop_iterations: Option<u64>,
    /// Names of the entry's parameters for diagnostics (e.g. the host program's names for
    /// them); parameter `i` without one here goes by its IR name, if any.
    pub arg_names: Vec<String>,
    /// How agents (`agent_switch`, `execute`) interleave at pipeline operations: run each
    /// until it waits, or adversarially by a seeded generator (see [`crate::agents`]).
    pub agent_interleave: crate::agents::Interleave,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            order: BlockOrder::Sequential,
            parallel: false,
            detect_races: false,
            check_assumes: false,
            max_loop_iterations: Some(100_000_000),
            arg_names: Vec::new(),
            agent_interleave: crate::agents::Interleave::UntilBlocked,
        }
    }
}

/// What a launch produced besides memory contents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunReport {
    /// Everything `print_tko` printed, blocks concatenated in execution order.
    pub output: String,
    /// Number of tile blocks run.
    pub blocks: u64,
    /// Whether the launch actually ran in parallel (false after a sequential fallback).
    pub ran_parallel: bool,
}

/// The class of an interpreter error.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Arguments or grid do not fit the entry.
    InvalidLaunch,
    /// The IR is malformed in a way the verifier should have caught.
    InvalidIr,
    /// Something the interpreter does not implement.
    Unsupported,
    /// A memory access outside every allocation.
    MemoryFault,
    /// Behavior the specification leaves undefined (division by zero, out-of-bounds tile, …).
    UndefinedBehavior,
    /// An `assert` failed.
    AssertionFailed,
    /// An `assume` predicate was violated (only with `check_assumes`).
    AssumptionViolated,
    /// A data race between two blocks (with `detect_races` or a shuffled order).
    Race,
    /// The loop iteration limit was reached.
    LoopLimit,
    /// Every agent waits on a pipeline that nobody can advance (or a lone block waits for
    /// itself).
    Deadlock,
}

/// An interpreter error: what, where (op location), which op and which block.
#[derive(Clone, Debug, PartialEq)]
pub struct InterpError {
    /// Class.
    pub kind: ErrorKind,
    /// Message.
    pub message: String,
    /// Source location of the failing op, if known.
    pub location: Option<Location>,
    /// Full name of the failing op (`cuda_tile.divi`).
    pub op: Option<String>,
    /// Tile block that failed.
    pub block: Option<[u32; 3]>,
}

impl InterpError {
    /// An error not tied to an op.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> InterpError {
        InterpError {
            kind,
            message: message.into(),
            location: None,
            op: None,
            block: None,
        }
    }
}

impl std::fmt::Display for InterpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(loc) = &self.location {
            if let Some((file, line, col)) = loc.file_line_col() {
                write!(f, "{file}:{line}:{col}: ")?;
            }
        }
        if let Some(op) = &self.op {
            write!(f, "'{op}' op ")?;
        }
        f.write_str(&self.message)?;
        if let Some(b) = self.block {
            write!(f, " (in tile block ({}, {}, {}))", b[0], b[1], b[2])?;
        }
        Ok(())
    }
}

impl std::error::Error for InterpError {}

/// Byte intervals `[start, end)` an access touched.
pub(crate) type Intervals = Vec<(u64, u64)>;

/// The bytes one block accessed, by kind (race detection and the parallel conflict check).
/// Each kind is an interval set: accesses are appended as intervals (merged with the previous
/// one when adjacent) and sorted and merged once the block is done, so tracking costs one
/// comparison per access run, not per element.
#[derive(Clone, Debug, Default)]
pub(crate) struct Accesses {
    /// Plain (non-atomic) reads.
    pub reads: Intervals,
    /// Plain writes.
    pub writes: Intervals,
    /// Atomic accesses (reads and writes of `atomic_*` ops).
    pub atomics: Intervals,
}

impl Accesses {
    fn normalized(self) -> Accesses {
        Accesses {
            reads: normalize(self.reads),
            writes: normalize(self.writes),
            atomics: normalize(self.atomics),
        }
    }
}

enum MemMode<'a> {
    Direct(&'a mut Memory),
    /// Parallel mode: reads see `base` plus this block's own writes, writes are logged.
    Overlay {
        base: &'a Memory,
        log: Vec<(u64, Vec<u8>)>,
    },
    /// An agent's view: every access goes to the starting block's memory context.
    Shared(&'a SharedMemLock<'a>),
}

/// The memory operations an agent forwards to the block that started it (agents run one
/// at a time, so a lock around the block's own memory context is never contended).
pub(crate) trait SharedMemory {
    fn read(&mut self, addr: u64, out: &mut [u8], atomic: bool) -> Result<(), MemError>;
    fn peek(&self, addr: u64, out: &mut [u8]) -> Result<(), MemError>;
    fn write(&mut self, addr: u64, bytes: &[u8], atomic: bool) -> Result<(), MemError>;
    fn alloc(&mut self, len: usize, align: u64) -> Option<u64>;
    fn free(&mut self, base: u64);
}

impl SharedMemory for MemCtx<'_> {
    fn read(&mut self, addr: u64, out: &mut [u8], atomic: bool) -> Result<(), MemError> {
        MemCtx::read(self, addr, out, atomic)
    }
    fn peek(&self, addr: u64, out: &mut [u8]) -> Result<(), MemError> {
        MemCtx::peek(self, addr, out)
    }
    fn write(&mut self, addr: u64, bytes: &[u8], atomic: bool) -> Result<(), MemError> {
        MemCtx::write(self, addr, bytes, atomic)
    }
    fn alloc(&mut self, len: usize, align: u64) -> Option<u64> {
        MemCtx::alloc(self, len, align)
    }
    fn free(&mut self, base: u64) {
        MemCtx::free(self, base)
    }
}

/// The lock agents share their block's memory through.
pub(crate) type SharedMemLock<'s> = std::sync::Mutex<&'s mut (dyn SharedMemory + Send + 's)>;

/// The memory one block sees.
pub(crate) struct MemCtx<'a> {
    mode: MemMode<'a>,
    /// What the block accessed, when tracked.
    pub track: Option<Accesses>,
}

impl<'a> MemCtx<'a> {
    fn record_read(&mut self, addr: u64, len: usize, atomic: bool) {
        if let Some(t) = &mut self.track {
            push_interval(
                if atomic { &mut t.atomics } else { &mut t.reads },
                addr,
                len,
            );
        }
    }

    fn record_write(&mut self, addr: u64, len: usize, atomic: bool) {
        if let Some(t) = &mut self.track {
            push_interval(
                if atomic {
                    &mut t.atomics
                } else {
                    &mut t.writes
                },
                addr,
                len,
            );
        }
    }

    /// Reads `out.len()` bytes at `addr` (an atomic op's read when `atomic`).
    pub fn read(&mut self, addr: u64, out: &mut [u8], atomic: bool) -> Result<(), MemError> {
        if let MemMode::Shared(lock) = &self.mode {
            return lock.lock().unwrap_or_else(|p| p.into_inner()).read(addr, out, atomic);
        }
        self.record_read(addr, out.len(), atomic);
        self.peek(addr, out)
    }

    /// Reads without counting as an access (the read half of a sub-byte store, whose write
    /// covers the same byte).
    pub fn peek(&self, addr: u64, out: &mut [u8]) -> Result<(), MemError> {
        match &self.mode {
            MemMode::Direct(m) => m.read(addr, out),
            MemMode::Shared(lock) => lock.lock().unwrap_or_else(|p| p.into_inner()).peek(addr, out),
            MemMode::Overlay { base, log } => {
                base.read(addr, out)?;
                let end = addr + out.len() as u64;
                for (a, bytes) in log {
                    let b_end = a + bytes.len() as u64;
                    if *a < end && b_end > addr {
                        let lo = (*a).max(addr);
                        let hi = b_end.min(end);
                        out[(lo - addr) as usize..(hi - addr) as usize]
                            .copy_from_slice(&bytes[(lo - a) as usize..(hi - a) as usize]);
                    }
                }
                Ok(())
            }
        }
    }

    /// Reads `len` bytes at `addr` and hands them to `f`: borrowed straight from memory when
    /// the block runs directly on it, copied through `scratch` otherwise.
    pub fn read_with(
        &mut self,
        addr: u64,
        len: usize,
        scratch: &mut Vec<u8>,
        f: impl FnOnce(&[u8]),
    ) -> Result<(), MemError> {
        if let MemMode::Direct(m) = &self.mode {
            let bytes = m.slice(addr, len)?;
            f(bytes);
            self.record_read(addr, len, false);
            return Ok(());
        }
        scratch.resize(len, 0);
        self.read(addr, scratch, false)?;
        f(scratch);
        Ok(())
    }

    /// A plain (non-atomic) write of `len` bytes at `addr` that `f` fills in: straight into
    /// memory when the block runs directly on it, through a buffer otherwise.
    pub fn write_with(
        &mut self,
        addr: u64,
        len: usize,
        f: impl FnOnce(&mut [u8]),
    ) -> Result<(), MemError> {
        if let MemMode::Direct(m) = &mut self.mode {
            f(m.slice_mut(addr, len)?);
            self.record_write(addr, len, false);
            return Ok(());
        }
        let mut buf = vec![0u8; len];
        f(&mut buf);
        self.write(addr, &buf, false)
    }

    /// Writes `bytes` at `addr` (an atomic op's write when `atomic`).
    pub fn write(&mut self, addr: u64, bytes: &[u8], atomic: bool) -> Result<(), MemError> {
        match &mut self.mode {
            MemMode::Direct(m) => m.write(addr, bytes)?,
            MemMode::Overlay { base, log } => {
                base.check_write(addr, bytes.len())?;
                log.push((addr, bytes.to_vec()));
            }
            MemMode::Shared(lock) => return lock.lock().unwrap_or_else(|p| p.into_inner()).write(addr, bytes, atomic),
        }
        self.record_write(addr, bytes.len(), atomic);
        Ok(())
    }

    pub fn alloc(&mut self, len: usize, align: u64) -> Option<u64> {
        match &mut self.mode {
            MemMode::Direct(m) => Some(m.alloc(len, align)),
            MemMode::Overlay { .. } => None,
            MemMode::Shared(lock) => lock.lock().unwrap_or_else(|p| p.into_inner()).alloc(len, align),
        }
    }

    pub fn free(&mut self, base: u64) {
        match &mut self.mode {
            MemMode::Direct(m) => {
                m.free(base);
            }
            MemMode::Shared(lock) => lock.lock().unwrap_or_else(|p| p.into_inner()).free(base),
            MemMode::Overlay { .. } => {}
        }
    }

    /// An agent's context over `lock` (the starting block's context).
    pub(crate) fn shared(lock: &'a SharedMemLock<'a>) -> MemCtx<'a> {
        MemCtx { mode: MemMode::Shared(lock), track: None }
    }
}

/// Appends `[addr, addr+len)`, merging with the previous interval when adjacent or when it
/// lies inside it (so that a block re-reading the same run adds nothing).
fn push_interval(v: &mut Intervals, addr: u64, len: usize) {
    let end = addr + len as u64;
    if let Some(last) = v.last_mut() {
        if last.1 == addr {
            last.1 = end;
            return;
        }
        if last.0 <= addr && end <= last.1 {
            return;
        }
    }
    v.push((addr, end));
}

/// Merges intervals into sorted, disjoint ones.
fn normalize(mut v: Intervals) -> Intervals {
    v.sort_unstable();
    let mut out: Intervals = Vec::with_capacity(v.len());
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// A kind of access, for conflict checks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Access {
    /// A plain read.
    Read,
    /// A plain write.
    Write,
    /// An atomic read-modify-write (or atomic read).
    Atomic,
}

impl Access {
    /// Whether accesses of kinds `self` and `other` by two different blocks of one launch
    /// form a data race: at least one plain write, or an atomic against a plain access.
    /// Two atomics never race, nor do two reads.
    fn conflicts(self, other: Access) -> bool {
        use Access::*;
        !matches!((self, other), (Read, Read) | (Atomic, Atomic))
    }
}

/// Two conflicting accesses by different blocks: the first byte of the overlap, and for each
/// side the block (index into the launch's block list) and the kind of access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub addr: u64,
    pub first: (usize, Access),
    pub second: (usize, Access),
}

/// The conflicting pair of accesses at the lowest address, if any. `sets` holds, per block
/// (its index), its normalized accesses. One sweep over all intervals sorted by start: an
/// interval conflicts with an earlier one iff the earlier one still covers its start, so it
/// suffices to remember, per kind, the two furthest-reaching intervals of different blocks.
pub(crate) fn first_conflict(sets: &[(usize, Accesses)]) -> Option<Conflict> {
    let mut all: Vec<(u64, u64, usize, Access)> = Vec::new();
    for (b, acc) in sets {
        for (kind, iv) in [
            (Access::Read, &acc.reads),
            (Access::Write, &acc.writes),
            (Access::Atomic, &acc.atomics),
        ] {
            all.extend(iv.iter().map(|&(s, e)| (s, e, *b, kind)));
        }
    }
    all.sort_unstable();
    let mut top: [[Option<(u64, usize)>; 2]; 3] = [[None; 2]; 3];
    const KINDS: [Access; 3] = [Access::Read, Access::Write, Access::Atomic];
    for &(s, e, b, kind) in &all {
        for (ki, &other) in KINDS.iter().enumerate() {
            if !kind.conflicts(other) {
                continue;
            }
            for &(r_end, r_block) in top[ki].iter().flatten() {
                if s < r_end && r_block != b {
                    return Some(Conflict {
                        addr: s,
                        first: (r_block, other),
                        second: (b, kind),
                    });
                }
            }
        }
        update_top(&mut top[kind as usize], e, b);
    }
    None
}

/// Keeps `t[0]` = the furthest-reaching interval and `t[1]` = the furthest-reaching one of a
/// block other than `t[0]`'s.
fn update_top(t: &mut [Option<(u64, usize)>; 2], e: u64, b: usize) {
    match t[0] {
        None => t[0] = Some((e, b)),
        Some((e0, b0)) if b0 == b => {
            if e > e0 {
                t[0] = Some((e, b));
            }
        }
        Some((e0, b0)) => {
            if e > e0 {
                t[1] = Some((e0, b0));
                t[0] = Some((e, b));
            } else if t[1].is_none_or(|(e1, _)| e > e1) {
                t[1] = Some((e, b));
            }
        }
    }
}

/// Splitmix64: a tiny deterministic generator for shuffled block orders.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Shared, read-only state of one launch.
pub(crate) struct Launch<'m> {
    pub module: &'m Module,
    pub entry: OpId,
    pub grid: [u32; 3],
    pub args: Vec<Value>,
    pub globals: HashMap<String, u64>,
    pub options: &'m RunOptions,
    /// The named buffers of the launch (pointer arguments and globals), for diagnostics.
    pub buffers: Vec<NamedBuffer>,
}

impl Launch<'_> {
    /// Whether accesses are tracked for race detection: asked for, or implied by a shuffled
    /// block order (whose purpose is to expose order dependence; see [`RunOptions::order`]).
    fn check_races(&self) -> bool {
        self.options.detect_races || matches!(self.options.order, BlockOrder::Shuffled(_))
    }
}

/// A pointer the launch knows by name: where it points and to what.
#[derive(Clone, Debug)]
pub(crate) struct NamedBuffer {
    /// `argument #2 (%c: tile<ptr<f32>>)` or `global @g`.
    pub name: String,
    /// The pointer (a byte address; see `SubBytePtr` for 4-bit pointees).
    pub ptr: u64,
    /// The pointee type.
    pub elem: NumType,
}

/// Result of one block.
pub(crate) struct BlockOutcome {
    pub output: String,
    pub accesses: Accesses,
    pub log: Vec<(u64, Vec<u8>)>,
}

/// Runs kernel `entry` of `module` over `grid` tile blocks.
///
/// The kernel is a cuda_tile `entry` (or `testing$func`), or, in a module lowered by
/// `convert-cuda-tile-to-tileaa` (and `convert-tileaa-to-tileas`), the `nv_tileaa.func` of
/// that name. The lowering keeps the kernel's parameters one to one (a `tile<ptr<T>>` becomes
/// `!nv_tileaa.ptr<T, 1>`, a `tile<T>` becomes `T`; tensor views are built inside the kernel,
/// `make_tensor_view` becoming `make_memref` over the same base, size and stride arguments),
/// so the same argument list runs the kernel at every level: a differential run is the same
/// `run_entry` call on each module, against equal memories.
///
/// Arguments must match the kernel's parameters one to one: a pointer parameter
/// (`tile<ptr<T>>`, `!nv_tileaa.ptr<T, …>`) takes [`ArgValue::Ptr`], a scalar parameter
/// (`tile<T>`, `T`) takes [`ArgValue::Scalar`] of the same element type. Globals of the module
/// (cuda_tile or nv_tileaa) are allocated in `memory` for the launch and freed afterwards.
pub fn run_entry(
    module: &Module,
    entry: &str,
    grid: [u32; 3],
    args: &[ArgValue],
    memory: &mut Memory,
    options: &RunOptions,
) -> Result<RunReport, InterpError> {
    let entry_op = find_symbol(module, CtOp::Entry, entry)
        .or_else(|| find_symbol(module, CtOp::TestingFunc, entry))
        .or_else(|| find_lowered_kernel(module, entry))
        .ok_or_else(|| {
            InterpError::new(
                ErrorKind::InvalidLaunch,
                format!("no entry named '{entry}' in the module"),
            )
        })?;
    if grid.iter().any(|&g| g == 0 || g > (1 << 24) - 1) {
        return Err(InterpError::new(
            ErrorKind::InvalidLaunch,
            format!("grid {grid:?}: every dimension must be in 1..=16777215"),
        ));
    }
    let body = module.entry_block(entry_op, 0).ok_or_else(|| {
        InterpError::new(ErrorKind::InvalidIr, format!("entry '{entry}' has no body"))
    })?;
    let params = &module.blocks[body].args;
    if params.len() != args.len() {
        return Err(InterpError::new(
            ErrorKind::InvalidLaunch,
            format!(
                "entry '{entry}' takes {} argument(s), {} given",
                params.len(),
                args.len()
            ),
        ));
    }
    let mut values = Vec::with_capacity(args.len());
    for (i, (&p, a)) in params.iter().zip(args).enumerate() {
        let ty = module.types.get(module.value_type(p));
        let v = match (ty, a) {
            (
                Type::Tile {
                    shape,
                    elem: TileElem::Ptr(t),
                    ..
                },
                ArgValue::Ptr(addr),
            ) if shape.is_empty() => Value::Tile(Tile {
                shape: vec![],
                elem: TileElem::Ptr(*t),
                data: crate::value::Data::Ptr(vec![*addr]),
            }),
            (
                Type::Tile {
                    shape,
                    elem: TileElem::Num(t),
                    ..
                },
                ArgValue::Scalar { ty, bits },
            ) if shape.is_empty() && t == ty => {
                Value::Tile(Tile::from_bits(vec![], TileElem::Num(*t), [*bits]))
            }
            // Lowered kernels: bare pointers and scalars.
            (Type::AaPtr { pointee, .. }, ArgValue::Ptr(addr)) => Value::Tile(Tile {
                shape: vec![],
                elem: TileElem::Ptr(*pointee),
                data: crate::value::Data::Ptr(vec![*addr]),
            }),
            (Type::Scalar(t), ArgValue::Scalar { ty, bits }) if t == ty => {
                Value::Tile(Tile::from_bits(vec![], TileElem::Num(*t), [*bits]))
            }
            _ => {
                return Err(InterpError::new(
                    ErrorKind::InvalidLaunch,
                    format!(
                        "argument #{i} of '{entry}': {a:?} does not fit parameter type {}",
                        module.types.display(module.value_type(p), true)
                    ),
                ))
            }
        };
        values.push(v);
    }
    let mut buffers = Vec::new();
    for (i, (&p, a)) in params.iter().zip(args).enumerate() {
        if let (
            ArgValue::Ptr(addr),
            Type::Tile {
                elem: TileElem::Ptr(t),
                ..
            }
            | Type::AaPtr { pointee: t, .. },
        ) = (a, module.types.get(module.value_type(p)))
        {
            let name = match options.arg_names.get(i).filter(|n| !n.is_empty()) {
                Some(n) => format!("{n}: "),
                None => module.values[p]
                    .name
                    .as_deref()
                    .map(|n| format!("%{}: ", n.trim_start_matches('%')))
                    .unwrap_or_default(),
            };
            buffers.push(NamedBuffer {
                name: format!(
                    "argument #{i} ({name}{})",
                    module.types.display(module.value_type(p), true)
                ),
                ptr: *addr,
                elem: *t,
            });
        }
    }

    // Globals: allocate and initialize for this launch.
    let mut globals = HashMap::new();
    for op in module.walk() {
        let (name, d, align) = match &module.ops[op].kind {
            OpKind::CudaTile(g) if g.op == CtOp::Global => {
                let (Some(name), Some(Attr::Dense(d))) = (g.str("sym_name"), g.get("value")) else {
                    continue;
                };
                (name, d, g.int("alignment").unwrap_or(0))
            }
            OpKind::TileAa(TileAaOp::Global {
                sym_name,
                value,
                alignment,
                ..
            }) => (sym_name.as_str(), value, *alignment),
            _ => continue,
        };
        let elem = TileElem::Num(d.elem);
        let n = d.num_elements();
        let tile = Tile::from_bits(vec![n], elem, (0..n).map(|i| d.get(i)));
        let bytes = crate::exec::encode_tile_bytes(&tile).map_err(|e| {
            InterpError::new(ErrorKind::Unsupported, format!("global @{name}: {e}"))
        })?;
        let align = align.max(1) as u64;
        let base = memory.alloc(bytes.len(), align);
        memory.write(base, &bytes).expect("fresh allocation");
        globals.insert(name.to_string(), base);
        buffers.push(NamedBuffer {
            name: format!("global @{name}"),
            ptr: base,
            elem: d.elem,
        });
    }

    let launch = Launch {
        module,
        entry: entry_op,
        grid,
        args: values,
        globals,
        options,
        buffers,
    };
    let result = run_blocks(&launch, memory);
    for base in launch.globals.values() {
        memory.free(*base);
    }
    result
}

fn find_symbol(module: &Module, kind: CtOp, name: &str) -> Option<OpId> {
    module.walk().into_iter().find(|&op| {
        module.ops[op]
            .kind
            .cuda_tile()
            .is_some_and(|o| o.op == kind && o.str("sym_name") == Some(name))
    })
}

/// The `nv_tileaa.func` named `name` (a kernel rather than a device helper when both exist).
fn find_lowered_kernel(module: &Module, name: &str) -> Option<OpId> {
    let mut found = None;
    for op in module.walk() {
        if let OpKind::TileAa(TileAaOp::Func {
            sym_name, kernel, ..
        }) = &module.ops[op].kind
        {
            if sym_name == name {
                if *kernel {
                    return Some(op);
                }
                found.get_or_insert(op);
            }
        }
    }
    found
}

fn block_list(grid: [u32; 3], order: BlockOrder) -> Vec<[u32; 3]> {
    let mut blocks = Vec::with_capacity(grid.iter().map(|&g| g as usize).product());
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                blocks.push([x, y, z]);
            }
        }
    }
    if let BlockOrder::Shuffled(seed) = order {
        let mut state = seed;
        for i in (1..blocks.len()).rev() {
            let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
            blocks.swap(i, j);
        }
    }
    blocks
}

/// Whether the kernel may run in parallel at all (no atomics, no alloca).
fn parallel_safe(module: &Module, entry: OpId) -> bool {
    let mut stack = vec![entry];
    while let Some(op) = stack.pop() {
        if matches!(
            module.ops[op].kind.ct(),
            Some(CtOp::AtomicCasTko | CtOp::AtomicRmwTko | CtOp::AtomicRedViewTko | CtOp::Alloca)
        ) {
            return false;
        }
        for &r in &module.ops[op].regions {
            for &b in &module.regions[r].blocks {
                stack.extend(module.blocks[b].ops.iter().copied());
            }
        }
    }
    true
}

fn run_blocks(launch: &Launch, memory: &mut Memory) -> Result<RunReport, InterpError> {
    let blocks = block_list(launch.grid, launch.options.order);
    if launch.options.parallel && blocks.len() > 1 && parallel_safe(launch.module, launch.entry) {
        if let Some(report) = run_parallel(launch, memory, &blocks)? {
            return Ok(report);
        }
    }
    let mut output = String::new();
    let track = launch.check_races();
    let mut accesses: Vec<(usize, Accesses)> = Vec::new();
    for (i, &b) in blocks.iter().enumerate() {
        let mem = MemCtx {
            mode: MemMode::Direct(memory),
            track: track.then(Accesses::default),
        };
        let outcome = run_one(launch, b, mem)?;
        output.push_str(&outcome.output);
        if track {
            accesses.push((i, outcome.accesses.normalized()));
        }
    }
    if track {
        check_races(launch, memory, &accesses, &blocks)?;
    }
    Ok(RunReport {
        output,
        blocks: blocks.len() as u64,
        ran_parallel: false,
    })
}

/// Reports the first data race between blocks (see [`Access::conflicts`]): both blocks, the
/// buffer and the element.
fn check_races(
    launch: &Launch,
    memory: &Memory,
    accesses: &[(usize, Accesses)],
    blocks: &[[u32; 3]],
) -> Result<(), InterpError> {
    let Some(c) = first_conflict(accesses) else {
        return Ok(());
    };
    let blk = |i: usize| {
        let b = blocks[i];
        format!("({}, {}, {})", b[0], b[1], b[2])
    };
    let what = describe_address(launch, memory, c.addr);
    let ((a, ka), (b, kb)) = (c.first, c.second);
    let verb = |k: Access| match k {
        Access::Read => "reads",
        Access::Write => "writes",
        Access::Atomic => "atomically updates",
    };
    let message = if ka == Access::Write && kb == Access::Write {
        format!(
            "data race: tile blocks {} and {} both write {what} in one launch",
            blk(a),
            blk(b)
        )
    } else {
        // Name the writer first.
        let ((w, kw), (o, ko)) =
            if kb == Access::Write || (kb == Access::Atomic && ka == Access::Read) {
                ((b, kb), (a, ka))
            } else {
                ((a, ka), (b, kb))
            };
        format!(
            "data race: tile block {} {} {what}, which tile block {} {} in the same launch without ordering between them",
            blk(w),
            verb(kw),
            blk(o),
            verb(ko)
        )
    };
    let mut e = InterpError::new(
        ErrorKind::Race,
        format!(
            "{message} (undefined behavior: the result depends on the order the blocks run in)"
        ),
    );
    e.block = Some(blocks[b]);
    Err(e)
}

/// `element 5 of argument #2 (%c: tile<ptr<f32>>) (address 0x…)`, or the allocation and
/// byte offset when no argument or global points into it below `addr`.
fn describe_address(launch: &Launch, memory: &Memory, addr: u64) -> String {
    let alloc = memory.allocation_of(addr);
    let best = launch
        .buffers
        .iter()
        .filter(|nb| {
            let p = crate::value::SubBytePtr::decode(nb.ptr).byte;
            p <= addr && alloc.is_some() && memory.allocation_of(p) == alloc
        })
        .max_by_key(|nb| crate::value::SubBytePtr::decode(nb.ptr).nibble_index());
    match (best, alloc) {
        (Some(nb), _) => {
            let p = crate::value::SubBytePtr::decode(nb.ptr);
            let bytes = addr - p.byte;
            if crate::value::is_sub_byte(nb.elem) {
                let first = (bytes * 2).saturating_sub(p.high as u64);
                format!(
                    "the byte holding elements {first} and {} of {} (address {addr:#x})",
                    first + 1,
                    nb.name
                )
            } else {
                let size = nb.elem.storage_bytes() as u64;
                format!(
                    "element {} of {} (address {addr:#x})",
                    bytes / size,
                    nb.name
                )
            }
        }
        (None, Some((base, _))) => format!(
            "byte {} of the allocation at {base:#x} (address {addr:#x})",
            addr - base
        ),
        (None, None) => format!("address {addr:#x}"),
    }
}

fn run_one(launch: &Launch, block: [u32; 3], mem: MemCtx) -> Result<BlockOutcome, InterpError> {
    let mut ex = BlockExec::new(launch, block, mem);
    let body = launch.module.entry_block(launch.entry, 0).expect("checked");
    let args = launch.args.clone();
    let flow = ex.run_block(body, args);
    let flow = flow.map_err(|mut e| {
        e.block = Some(block);
        e
    })?;
    if let Flow::Break(_) | Flow::Continue(_) = flow {
        let mut e = InterpError::new(
            ErrorKind::InvalidIr,
            "'break'/'continue' reached the kernel body",
        );
        e.block = Some(block);
        return Err(e);
    }
    Ok(ex.finish())
}

/// Parallel execution; `Ok(None)` means "conflicts found, run sequentially instead".
fn run_parallel(
    launch: &Launch,
    memory: &mut Memory,
    blocks: &[[u32; 3]],
) -> Result<Option<RunReport>, InterpError> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(4)
        .min(blocks.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let base: &Memory = memory;
    let mut results: Vec<Option<Result<BlockOutcome, InterpError>>> = Vec::new();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= blocks.len() {
                            break;
                        }
                        let mem = MemCtx {
                            mode: MemMode::Overlay {
                                base,
                                log: Vec::new(),
                            },
                            track: Some(Accesses::default()),
                        };
                        mine.push((i, run_one(launch, blocks[i], mem)));
                    }
                    mine
                })
            })
            .collect();
        results = (0..blocks.len()).map(|_| None).collect();
        for h in handles {
            for (i, r) in h.join().expect("interpreter threads do not panic") {
                results[i] = Some(r);
            }
        }
    });
    let mut outcomes: Vec<BlockOutcome> = Vec::with_capacity(blocks.len());
    for r in results {
        match r.expect("every block ran") {
            Ok(o) => outcomes.push(o),
            // An error in parallel mode might stem from reading a value another block was
            // supposed to write first: let the sequential run report it (or not).
            Err(_) => return Ok(None),
        }
    }
    let accesses: Vec<(usize, Accesses)> = outcomes
        .iter_mut()
        .enumerate()
        .map(|(i, o)| (i, std::mem::take(&mut o.accesses).normalized()))
        .collect();
    if first_conflict(&accesses).is_some() {
        // Blocks saw each other's effects (or would have, in some order): the sequential run
        // gives the defined result, and reports the race when asked to.
        return Ok(None);
    }
    let mut output = String::new();
    for o in outcomes {
        output.push_str(&o.output);
        for (addr, bytes) in o.log {
            memory
                .write(addr, &bytes)
                .map_err(|e| InterpError::new(ErrorKind::MemoryFault, e.to_string()))?;
        }
    }
    Ok(Some(RunReport {
        output,
        blocks: blocks.len() as u64,
        ran_parallel: true,
    }))
}

impl BlockOutcome {
    pub(crate) fn from_mem(mem: MemCtx, output: String) -> BlockOutcome {
        let log = match mem.mode {
            MemMode::Overlay { log, .. } => log,
            MemMode::Direct(_) | MemMode::Shared(_) => Vec::new(),
        };
        BlockOutcome {
            output,
            accesses: mem.track.unwrap_or_default(),
            log,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(reads: &[(u64, u64)], writes: &[(u64, u64)], atomics: &[(u64, u64)]) -> Accesses {
        Accesses {
            reads: reads.to_vec(),
            writes: writes.to_vec(),
            atomics: atomics.to_vec(),
        }
    }

    #[test]
    fn conflict_detection() {
        let a = vec![
            (0usize, acc(&[], &[(0, 4)], &[])),
            (1, acc(&[], &[(4, 8)], &[])),
        ];
        assert_eq!(first_conflict(&a), None);
        let b = vec![
            (0usize, acc(&[], &[(0, 5)], &[])),
            (1, acc(&[], &[(4, 8)], &[])),
        ];
        let c = first_conflict(&b).unwrap();
        assert_eq!(
            (c.addr, c.first, c.second),
            (4, (0, Access::Write), (1, Access::Write))
        );
        // Reads by the writer itself are no conflict; reads by another block are.
        let own = vec![
            (0usize, acc(&[(0, 4)], &[(0, 4)], &[])),
            (1, acc(&[(8, 9)], &[], &[])),
        ];
        assert_eq!(first_conflict(&own), None);
        let other = vec![
            (0usize, acc(&[], &[(0, 4)], &[])),
            (1, acc(&[(2, 3)], &[], &[])),
        ];
        let c = first_conflict(&other).unwrap();
        assert_eq!(
            (c.addr, c.first, c.second),
            (2, (0, Access::Write), (1, Access::Read))
        );
        // Reads never conflict with reads, atomics never with atomics; an atomic against a
        // plain access of another block does.
        let rr = vec![
            (0usize, acc(&[(0, 8)], &[], &[(16, 20)])),
            (1, acc(&[(0, 8)], &[], &[(16, 20)])),
        ];
        assert_eq!(first_conflict(&rr), None);
        let ar = vec![
            (0usize, acc(&[], &[], &[(16, 20)])),
            (1, acc(&[(18, 19)], &[], &[])),
        ];
        let c = first_conflict(&ar).unwrap();
        assert_eq!(
            (c.addr, c.first, c.second),
            (18, (0, Access::Atomic), (1, Access::Read))
        );
        // The lowest conflicting address is reported, whatever the block order.
        let many = vec![
            (0usize, acc(&[], &[(100, 200)], &[])),
            (1, acc(&[(150, 160)], &[], &[])),
            (2, acc(&[], &[(120, 130)], &[])),
        ];
        assert_eq!(first_conflict(&many).unwrap().addr, 120);
        // A third block's interval that starts inside a long one of a block already seen.
        let nested = vec![
            (0usize, acc(&[], &[(0, 100)], &[])),
            (0, acc(&[], &[(0, 100)], &[])),
            (3, acc(&[(50, 51)], &[], &[])),
        ];
        assert_eq!(first_conflict(&nested).unwrap().second, (3, Access::Read));
    }

    #[test]
    fn intervals_merge_and_skip_repeats() {
        let mut v = Vec::new();
        push_interval(&mut v, 0, 4);
        push_interval(&mut v, 4, 4);
        push_interval(&mut v, 2, 2);
        push_interval(&mut v, 16, 4);
        assert_eq!(v, vec![(0, 8), (16, 20)]);
        assert_eq!(
            normalize(vec![(16, 20), (0, 8), (6, 10)]),
            vec![(0, 10), (16, 20)]
        );
    }

    #[test]
    fn shuffled_order_is_a_permutation() {
        let mut b = block_list([4, 3, 2], BlockOrder::Shuffled(7));
        assert_ne!(b, block_list([4, 3, 2], BlockOrder::Sequential));
        b.sort();
        let mut s = block_list([4, 3, 2], BlockOrder::Sequential);
        s.sort();
        assert_eq!(b, s);
    }
}
