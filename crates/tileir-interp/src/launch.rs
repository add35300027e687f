//! Kernel launch: argument binding, globals, block scheduling (sequential, shuffled or
//! parallel), per-block memory contexts and race detection.

use crate::exec::{BlockExec, Flow};
use crate::memory::{MemError, Memory};
use crate::value::{Tile, Value};
use std::collections::HashMap;
use tileir_ir::{Attr, CtOp, Location, Module, NumType, OpId, TileElem, Type};

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
    /// A pseudo-random permutation from this seed (to expose order dependence).
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
    /// Report plain (non-atomic) writes by different blocks to the same byte as an error.
    pub detect_races: bool,
    /// Check `assume` predicates at run time (a violated assumption is an error).
    pub check_assumes: bool,
    /// Maximum loop iterations per block (None: unlimited); guards against hangs.
    pub max_loop_iterations: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            order: BlockOrder::Sequential,
            parallel: false,
            detect_races: false,
            check_assumes: false,
            max_loop_iterations: Some(100_000_000),
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
    /// Two blocks wrote the same address (only with `detect_races`).
    Race,
    /// The loop iteration limit was reached.
    LoopLimit,
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

enum MemMode<'a> {
    Direct(&'a mut Memory),
    /// Parallel mode: reads see `base` plus this block's own writes, writes are logged.
    Overlay {
        base: &'a Memory,
        log: Vec<(u64, Vec<u8>)>,
    },
}

/// The memory one block sees.
pub(crate) struct MemCtx<'a> {
    mode: MemMode<'a>,
    /// Plain writes (race detection / parallel conflict check).
    pub writes: Option<Intervals>,
    /// Reads (parallel conflict check).
    pub reads: Option<Intervals>,
}

impl<'a> MemCtx<'a> {
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), MemError> {
        if let Some(r) = &mut self.reads {
            push_interval(r, addr, out.len());
        }
        match &self.mode {
            MemMode::Direct(m) => m.read(addr, out),
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
            if let Some(r) = &mut self.reads {
                push_interval(r, addr, len);
            }
            f(m.slice(addr, len)?);
            return Ok(());
        }
        scratch.resize(len, 0);
        self.read(addr, scratch)?;
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
            if let Some(w) = &mut self.writes {
                push_interval(w, addr, len);
            }
            f(m.slice_mut(addr, len)?);
            return Ok(());
        }
        let mut buf = vec![0u8; len];
        f(&mut buf);
        self.write(addr, &buf, false)
    }

    pub fn write(&mut self, addr: u64, bytes: &[u8], atomic: bool) -> Result<(), MemError> {
        if !atomic {
            if let Some(w) = &mut self.writes {
                push_interval(w, addr, bytes.len());
            }
        }
        match &mut self.mode {
            MemMode::Direct(m) => m.write(addr, bytes),
            MemMode::Overlay { base, log } => {
                base.check_write(addr, bytes.len())?;
                log.push((addr, bytes.to_vec()));
                Ok(())
            }
        }
    }

    pub fn alloc(&mut self, len: usize, align: u64) -> Option<u64> {
        match &mut self.mode {
            MemMode::Direct(m) => Some(m.alloc(len, align)),
            MemMode::Overlay { .. } => None,
        }
    }

    pub fn free(&mut self, base: u64) {
        if let MemMode::Direct(m) = &mut self.mode {
            m.free(base);
        }
    }
}

/// Appends `[addr, addr+len)`, merging with the previous interval when adjacent.
fn push_interval(v: &mut Intervals, addr: u64, len: usize) {
    let end = addr + len as u64;
    if let Some(last) = v.last_mut() {
        if last.1 == addr {
            last.1 = end;
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

/// The first byte written by two different blocks, with the two blocks.
fn find_overlap(
    sets: &[(usize, Intervals)],
    against: Option<&[(usize, Intervals)]>,
) -> Option<(u64, usize, usize)> {
    // Sweep over (start, end, block) of every interval.
    let mut all: Vec<(u64, u64, usize, bool)> = Vec::new();
    for (b, iv) in sets {
        all.extend(iv.iter().map(|&(s, e)| (s, e, *b, true)));
    }
    if let Some(other) = against {
        for (b, iv) in other {
            all.extend(iv.iter().map(|&(s, e)| (s, e, *b, false)));
        }
    }
    all.sort_unstable();
    // Per kind, the two furthest-reaching intervals seen so far that belong to different
    // blocks: if any earlier interval of another block still covers the current start, one
    // of these two does.
    let mut top: [[Option<(u64, usize)>; 2]; 2] = [[None; 2]; 2];
    for &(s, e, b, first) in &all {
        let other_kind = if against.is_some() { !first } else { first };
        for &(r_end, r_block) in top[other_kind as usize].iter().flatten() {
            if s < r_end && r_block != b {
                return Some((s, r_block, b));
            }
        }
        update_top(&mut top[first as usize], e, b);
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
}

/// Result of one block.
pub(crate) struct BlockOutcome {
    pub output: String,
    pub writes: Intervals,
    pub reads: Intervals,
    pub log: Vec<(u64, Vec<u8>)>,
}

/// Runs `entry` of `module` over `grid` tile blocks.
///
/// Arguments must match the entry's parameters one to one: a pointer parameter
/// (`tile<ptr<T>>`) takes [`ArgValue::Ptr`], a scalar parameter takes [`ArgValue::Scalar`] of
/// the same element type. Globals of the module are allocated in `memory` for the launch and
/// freed afterwards.
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

    // Globals: allocate and initialize for this launch.
    let mut globals = HashMap::new();
    for op in module.walk() {
        let Some(g) = module.ops[op]
            .kind
            .cuda_tile()
            .filter(|g| g.op == CtOp::Global)
        else {
            continue;
        };
        let (Some(name), Some(Attr::Dense(d))) = (g.str("sym_name"), g.get("value")) else {
            continue;
        };
        let elem = TileElem::Num(d.elem);
        let n = d.num_elements();
        let tile = Tile::from_bits(vec![n], elem, (0..n).map(|i| d.get(i)));
        let bytes = crate::exec::encode_tile_bytes(&tile).map_err(|e| {
            InterpError::new(ErrorKind::Unsupported, format!("global @{name}: {e}"))
        })?;
        let align = g.int("alignment").unwrap_or(0).max(1) as u64;
        let base = memory.alloc(bytes.len(), align);
        memory.write(base, &bytes).expect("fresh allocation");
        globals.insert(name.to_string(), base);
    }

    let launch = Launch {
        module,
        entry: entry_op,
        grid,
        args: values,
        globals,
        options,
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
    let mut writes: Vec<(usize, Intervals)> = Vec::new();
    for (i, &b) in blocks.iter().enumerate() {
        let mem = MemCtx {
            mode: MemMode::Direct(memory),
            writes: launch.options.detect_races.then(Vec::new),
            reads: None,
        };
        let outcome = run_one(launch, b, mem)?;
        output.push_str(&outcome.output);
        if launch.options.detect_races {
            writes.push((i, normalize(outcome.writes)));
        }
    }
    if launch.options.detect_races {
        check_races(&writes, &blocks)?;
    }
    Ok(RunReport {
        output,
        blocks: blocks.len() as u64,
        ran_parallel: false,
    })
}

fn check_races(writes: &[(usize, Intervals)], blocks: &[[u32; 3]]) -> Result<(), InterpError> {
    if let Some((addr, a, b)) = find_overlap(writes, None) {
        let mut e = InterpError::new(
            ErrorKind::Race,
            format!(
                "data race: tile blocks ({}, {}, {}) and ({}, {}, {}) both write address {addr:#x} in one launch",
                blocks[a][0], blocks[a][1], blocks[a][2], blocks[b][0], blocks[b][1], blocks[b][2]
            ),
        );
        e.block = Some(blocks[b]);
        return Err(e);
    }
    Ok(())
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
                            writes: Some(Vec::new()),
                            reads: Some(Vec::new()),
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
    let mut outcomes = Vec::with_capacity(blocks.len());
    for r in results {
        match r.expect("every block ran") {
            Ok(o) => outcomes.push(o),
            // An error in parallel mode might stem from reading a value another block was
            // supposed to write first: let the sequential run report it (or not).
            Err(_) => return Ok(None),
        }
    }
    let writes: Vec<(usize, Intervals)> = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| (i, normalize(o.writes.clone())))
        .collect();
    if launch.options.detect_races {
        check_races(&writes, blocks)?;
    }
    let reads: Vec<(usize, Intervals)> = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| (i, normalize(o.reads.clone())))
        .collect();
    if find_overlap(&writes, None).is_some() || find_overlap(&writes, Some(&reads)).is_some() {
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
            MemMode::Direct(_) => Vec::new(),
        };
        BlockOutcome {
            output,
            writes: mem.writes.unwrap_or_default(),
            reads: mem.reads.unwrap_or_default(),
            log,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_detection() {
        let a = vec![(0usize, vec![(0u64, 4u64)]), (1, vec![(4, 8)])];
        assert_eq!(find_overlap(&a, None), None);
        let b = vec![(0usize, vec![(0u64, 5u64)]), (1, vec![(4, 8)])];
        assert_eq!(find_overlap(&b, None), Some((4, 0, 1)));
        // Reads by the writer itself are no conflict; reads by another block are.
        let r_self = vec![(0usize, vec![(0u64, 4u64)])];
        assert_eq!(find_overlap(&a, Some(&r_self)), None);
        let r_other = vec![(1usize, vec![(2u64, 3u64)])];
        assert!(find_overlap(&a, Some(&r_other)).is_some());
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
