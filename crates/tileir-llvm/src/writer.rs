//! The LLVM IR text writer.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;
use tileir_ir::{
    Diagnostic, Diagnostics, Dim, Layout, Module, NumType, OpId, OpKind, PaddingValue, RoundingMode, TileAaOp, TileAsOp,
    TileElem, TiledAccess, Type, TypeId, ValueId,
};

/// Target settings.
#[derive(Clone, Debug)]
pub struct LlvmOptions {
    /// GPU architecture (`sm_90a`, `sm_80`).
    pub target: String,
}

/// How one kernel parameter is passed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A 64-bit global-memory address.
    Ptr,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// A 32-bit float.
    F32,
    /// A 64-bit float.
    F64,
    /// A 128-byte TMA tensor map (`KernelAbi::tensor_maps` says which, in order).
    TensorMap,
}

impl ParamKind {
    /// Short name (`ptr`, `i32`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::Ptr => "ptr",
            ParamKind::I32 => "i32",
            ParamKind::I64 => "i64",
            ParamKind::F32 => "f32",
            ParamKind::F64 => "f64",
            ParamKind::TensorMap => "tmap",
        }
    }
}

/// A kernel's launch attributes: spec/003's kernel-spec → NVVM table (ConvertTileFuncToLLVM,
/// phase 3). `nvvm.reqntid` = 32·warps and `nvvm.minctasm` = 1 always (minctasm also keeps
/// `setmaxnreg` effective, see docs/nvptx.md); `nvvm.maxnreg` from the `occupancy` hint;
/// `nvvm.cluster_dim` from `num_cta_in_cga` when the target is newer than sm_89 and the
/// cluster has more than one CTA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSpec {
    /// Threads per CTA.
    pub num_threads: u32,
    /// Registers per thread the occupancy hint allows (None: unconstrained).
    pub maxnreg: Option<u32>,
    /// CTAs per cluster along x (None: no cluster).
    pub cluster_x: Option<u32>,
}

/// Registers of one SM (every target tileir supports).
const REGISTERS_PER_SM: u32 = 65536;

impl KernelSpec {
    /// The spec of a kernel with `num_threads` threads for `target` under `hints` (the
    /// entry's per-architecture `optimization_hints`: the target's own entry overrides
    /// `default`).
    pub fn resolve(hints: Option<&[(String, tileir_ir::Attr)]>, target: &str, num_threads: u32) -> KernelSpec {
        let arch = target.trim_end_matches('a');
        let hint = |name: &str| -> Option<i64> {
            let entries = hints?;
            let lookup = |key: &str| {
                entries.iter().find(|(k, _)| k == key).and_then(|(_, v)| match v {
                    tileir_ir::Attr::Dict(d) => d.iter().find(|(n, _)| n == name).and_then(|(_, a)| match a {
                        tileir_ir::Attr::Int(i) => Some(*i),
                        tileir_ir::Attr::Scalar(_, b) => Some(*b as i64),
                        _ => None,
                    }),
                    _ => None,
                })
            };
            lookup(arch).or_else(|| lookup("default"))
        };
        // occupancy CTAs per SM share its registers; ptxas wants multiples of 8 within
        // [24, 255] (docs/cutile_python.md: occupancy 4 on 128 threads gives .maxnreg 128).
        let maxnreg = hint("occupancy").filter(|&o| o > 0).map(|o| {
            let per_thread = REGISTERS_PER_SM / (o as u32 * num_threads.max(1));
            (per_thread / 8 * 8).clamp(24, 255)
        });
        let sm: u32 = arch.trim_start_matches("sm_").parse().unwrap_or(0);
        let cluster_x = hint("num_cta_in_cga").filter(|&n| n > 1 && sm > 89).map(|n| n as u32);
        KernelSpec { num_threads, maxnreg, cluster_x }
    }

    /// The LLVM function attributes.
    pub fn nvvm_attributes(&self) -> String {
        let mut s = format!("\"nvvm.reqntid\"=\"{},1,1\" \"nvvm.minctasm\"=\"1\"", self.num_threads);
        if let Some(r) = self.maxnreg {
            s.push_str(&format!(" \"nvvm.maxnreg\"=\"{r}\""));
        }
        if let Some(c) = self.cluster_x {
            s.push_str(&format!(" \"nvvm.cluster_dim\"=\"{c},1,1\""));
        }
        s
    }
}

/// The launch contract of one kernel.
#[derive(Clone, Debug)]
pub struct KernelAbi {
    /// Symbol name.
    pub name: String,
    /// Parameters in order.
    pub params: Vec<ParamKind>,
    /// Threads per CTA (`.reqntid`).
    pub num_threads: u32,
    /// Bytes of dynamic shared memory the launch must provide (0: the kernel's shared
    /// memory is static). Past [`STATIC_SMEM_LIMIT`] the scratch buffer is an `extern`
    /// array, and a launch above 48 KiB also needs the function's opt-in attribute.
    pub dynamic_smem_bytes: u64,
    /// The tensor maps of the `ParamKind::TensorMap` parameters, in order.
    pub tensor_maps: Vec<crate::tma::TensorMapSpec>,
}

/// Bytes of static shared memory a kernel may declare.
pub const STATIC_SMEM_LIMIT: u64 = 48 * 1024;

/// The sm number of a target such as `sm_90a` (None: not an `sm_` target).
pub(crate) fn sm_number(target: &str) -> Option<u32> {
    let digits: String = target.strip_prefix("sm_")?.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// Bytes of shared memory one CTA may use on `target` (static plus dynamic, after the
/// opt-in): 227 KiB on sm_90 and sm_100, 163 KiB on sm_80/sm_87, 99 KiB on the other sm_8x
/// and sm_12x parts, 64 KiB before.
pub fn max_smem_bytes(target: &str) -> u64 {
    match sm_number(target).unwrap_or(0) {
        90 | 100 | 101 | 103 | 110 => 227 * 1024,
        80 | 87 => 163 * 1024,
        86 | 89 | 120 | 121 => 99 * 1024,
        _ => 64 * 1024,
    }
}

/// The LLVM module text and the kernels it defines.
#[derive(Clone, Debug)]
pub struct LlvmOutput {
    /// LLVM IR text.
    pub text: String,
    /// Kernels in definition order.
    pub kernels: Vec<KernelAbi>,
}

/// Writes `module` (nv_tileas form, verified) as LLVM IR.
pub fn write_module(module: &Module, options: &LlvmOptions) -> Result<LlvmOutput, Diagnostics> {
    let mut out = String::new();
    let _ = writeln!(out, "; generated by tileir for {}", options.target);
    out.push_str("target datalayout = \"e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64\"\n");
    out.push_str("target triple = \"nvptx64-nvidia-cuda\"\n\n");
    let mut decls = BTreeSet::new();
    let mut kernels = Vec::new();
    let mut diags = Vec::new();
    let mut attr_groups = Vec::new();
    for &top in &module.blocks[module.body].ops {
        match &module.ops[top].kind {
            OpKind::TileAa(TileAaOp::Func { sym_name, num_warps, hints, .. }) => {
                let group = attr_groups.len();
                let mut f = FuncWriter::new(module, &mut decls, &options.target, format!("@{}.smem", sanitize(sym_name)));
                f.kernel_hints = hints.clone();
                let written = f.function(top, sym_name, group);
                // A warp-specialized ring's producer warpgroup comes on top of the kernel's warps
                // (those its consumers' barriers count: they must be the kernel's).
                let warps = num_warps.unwrap_or(4);
                let written = match (written, f.producer_warps) {
                    (Ok(_), Some(w)) if w != i64::from(warps) => Err(vec![Diagnostic::error(
                        module.op_location(top),
                        format!("internal: the warp-specialized ring's consumers are {w} warps, but the kernel has {warps}"),
                    )]),
                    (w, _) => w,
                };
                let producer_threads = if f.producer_warps.is_some() { 128 } else { 0 };
                let num_threads = 32 * warps + producer_threads;
                let spec = KernelSpec::resolve(hints.as_deref(), &options.target, num_threads);
                attr_groups.push(format!("attributes #{group} = {{ nounwind {} }}", spec.nvvm_attributes()));
                match written {
                    Ok((text, params, dynamic_smem_bytes)) => {
                        out.push_str(&text);
                        out.push('\n');
                        let tensor_maps = std::mem::take(&mut f.tensor_maps);
                        kernels.push(KernelAbi { name: sym_name.clone(), params, num_threads, dynamic_smem_bytes, tensor_maps });
                    }
                    Err(d) => diags.extend(d),
                }
            }
            OpKind::TileAa(TileAaOp::Global { sym_name, value, alignment, constant }) => {
                match global_definition(sym_name, value, *alignment, *constant) {
                    Ok(text) => {
                        out.push_str(&text);
                        out.push_str("\n\n");
                    }
                    Err(e) => diags.push(Diagnostic::error(module.op_location(top), format!("'nv_tileaa.global' @{sym_name}: {e}"))),
                }
            }
            other => diags.push(Diagnostic::error(
                module.op_location(top),
                format!("'{}' at the top level cannot be written as LLVM IR (expected nv_tileaa.func)", other.name()),
            )),
        }
    }
    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    for d in &decls {
        out.push_str(d);
        out.push('\n');
    }
    out.push('\n');
    if decls.iter().any(|d| d.contains("@__nv_")) {
        // libdevice gets linked in (by the LLVM worker): its `__nvvm_reflect("__CUDA_FTZ")`
        // reads this flag. 0 (keep denormals): the ops routed to libdevice have no
        // flush_to_zero attribute (cuda_tile allows it on exp2/rsqrt in f32 only, which
        // stay on the hardware forms).
        out.push_str("!llvm.module.flags = !{!0}\n!0 = !{i32 4, !\"nvvm-reflect-ftz\", i32 0}\n\n");
    }
    for g in &attr_groups {
        out.push_str(g);
        out.push('\n');
    }
    Ok(LlvmOutput { text: out, kernels })
}

/// What a tileir value became in LLVM.
#[derive(Clone, Debug)]
pub(crate) enum Lowered {
    /// A scalar (or pointer) SSA value with its LLVM type.
    Scalar(String),
    /// A memref: base pointer, sizes and strides as i64 operands.
    MemRef { base: String, sizes: Vec<String>, strides: Vec<String> },
    /// Ordering only; no code.
    Token,
    /// The thread's elements of a tile, in the layout's element order.
    Tile(Vec<String>),
}

/// Per-layout thread coordinates, computed once per function.
#[derive(Clone)]
pub(crate) struct ThreadCoords {
    /// Per-dimension first coordinate the thread owns in each repetition (i64 operands).
    pub(crate) base: Vec<String>,
    /// i1 operand: the thread owns real elements (false for replicated threads).
    pub(crate) valid: Option<String>,
}

pub(crate) struct FuncWriter<'a> {
    pub(crate) m: &'a Module,
    pub(crate) decls: &'a mut BTreeSet<String>,
    pub(crate) body: String,
    /// Entry-block code that every later block may use (thread ids and coordinates).
    pub(crate) prologue: String,
    /// The LLVM block being written (the predecessor label of phis that follow).
    pub(crate) cur_block: String,
    pub(crate) counter: usize,
    pub(crate) values: HashMap<ValueId, Lowered>,
    /// Keyed by layout and tile shape: equal layouts over different shapes differ in which
    /// threads own real elements.
    pub(crate) coords: HashMap<(Layout, Vec<i64>), ThreadCoords>,
    pub(crate) tid: Option<String>,
    /// i64 forms of integer scalars, made once per region (cleared when a region ends, so a
    /// cached form is always defined in a block dominating its uses).
    pub(crate) wide: HashMap<ValueId, String>,
    pub(crate) diags: Vec<Diagnostic>,
    /// Bytes of the function's shared-memory scratch buffer (the largest any op needs).
    pub(crate) smem_bytes: u64,
    /// Symbol of that buffer.
    pub(crate) smem_name: String,
    /// Enclosing loops, innermost last (targets of `continue` and `break`).
    pub(crate) loops: Vec<crate::lower_ct::LoopTargets>,
    /// Target architecture (`sm_90a`).
    pub(crate) target: String,
    /// Symbol of the function being written (for `assert` reports).
    pub(crate) function_name: String,
    /// Results of ops that could not be written.
    pub(crate) failed: std::collections::HashSet<ValueId>,
    /// Accumulator tiles held as wgmma fragment registers rather than in their layout
    /// (a loop's carried accumulator; see `FuncWriter::fragment_carries`).
    pub(crate) fragment_values: std::collections::HashSet<ValueId>,
    /// Single-element tiles every thread holds, replicas included, in every register (a
    /// reduction's result, a shared-memory gather's, element-wise ops of those): broadcasting
    /// or reshaping one moves no data.
    pub(crate) uniform_values: std::collections::HashSet<ValueId>,
    /// mma ops whose result stays in fragment registers.
    pub(crate) fragment_mmas: std::collections::HashSet<OpId>,
    /// Multiplications of a fragment-carried accumulator by a row vector (`acc * alpha`
    /// with `alpha` of shape [M, 1] broadcast to [M, N]): each fragment register is scaled
    /// by its row's factor in place (see `FuncWriter::fragment_row_scale`).
    pub(crate) fragment_scales: HashMap<OpId, (crate::wgmma::RowScale, crate::wgmma::WgmmaPlan)>,
    /// Ops whose only user lowers without them (the broadcast of a fragment row scale).
    pub(crate) skipped_ops: std::collections::HashSet<OpId>,
    /// Tiled loads (by their tile) that their wgmma copies straight into shared memory
    /// (`FuncWriter::find_direct_loads`); the load itself writes nothing.
    pub(crate) direct_loads: HashMap<ValueId, crate::wgmma::DirectLoad>,
    /// Stores written by TMA store epilogues, and what they lower specially.
    pub(crate) epilogues: crate::epilogue::Epilogues,
    /// The ops of `direct_loads` (loads, and the reshapes and bitcasts after them), which
    /// emit nothing.
    pub(crate) direct_copied_ops: std::collections::HashSet<OpId>,
    /// Tensor maps the kernel takes as trailing parameters, in order.
    pub(crate) tensor_maps: Vec<crate::tma::TensorMapSpec>,
    /// Whether the kernel's mbarrier is used (and initialized in the entry block).
    pub(crate) mbarrier_used: bool,
    /// The TMA rings of pipelined loops, in order; their stage region is placed past the
    /// scratch, and their depths settled, when the function is done.
    pub(crate) tma_rings: Vec<crate::wgmma::TmaRing>,
    /// While > 0, ops are lowered inside a TMA ring's loop body; the scratch they use
    /// (`ring_scratch_bytes`) is what the stages must not overlap. The scratch used before
    /// a ring's prologue (ordered by its proxy fence and barrier) or after its loop (every
    /// copy waited for, every wgmma retired) may share bytes with the stages.
    pub(crate) ring_loop_depth: usize,
    pub(crate) ring_scratch_bytes: u64,
    /// Whether the stage mbarriers of TMA rings are used.
    pub(crate) stage_mbarriers_used: bool,
    /// mma ops in TMA-ring loops, with their loop's values.
    pub(crate) tma_pipeline_loops: HashMap<OpId, crate::wgmma::TmaPipelineLoop>,
    /// The function's entry block (its arguments are the kernel parameters).
    pub(crate) entry_block: Option<tileir_ir::BlockId>,
    /// Set once a warp-specialized ring has split off its producer warpgroup (threads past
    /// the kernel's `warps` warps, which left): later barriers count only the kernel's
    /// warps, and the launch has one warpgroup more.
    pub(crate) producer_warps: Option<i64>,
    /// The warp-specialized ring of a persistent tile loop, once its producer split off.
    pub(crate) persistent_ring: Option<crate::wgmma::PersistentRing>,
    /// The kernel's optimization hints (the occupancy cap bounds a producer split's
    /// register budget).
    pub(crate) kernel_hints: Option<Vec<(String, tileir_ir::Attr)>>,
    /// The device-heap pointers of `alloca`s, one list per block being lowered (innermost
    /// last), freed when their block is left (see `alloca.rs`).
    pub(crate) alloca_scopes: Vec<Vec<String>>,
    /// What each token orders after (see `memory_order.rs`).
    pub(crate) token_order: crate::memory_order::TokenOrder,
}

pub(crate) fn llvm_type(n: NumType) -> Option<&'static str> {
    Some(match n {
        NumType::I8 => "i8",
        NumType::I16 => "i16",
        NumType::I32 => "i32",
        NumType::I64 => "i64",
        NumType::F16 => "half",
        NumType::BF16 => "bfloat",
        NumType::F32 => "float",
        NumType::F64 => "double",
        _ => return None,
    })
}

/// How an element type is moved by predicated PTX `ld`/`st` in inline asm.
#[derive(Copy, Clone)]
struct PtxScalar {
    /// PTX access type (`b32`).
    ld_type: &'static str,
    /// LLVM integer type of the register (`i32`).
    reg_ty: &'static str,
    /// Inline-asm register constraint (`r`).
    constraint: &'static str,
    /// Register width in bits (for the padding `mov`).
    reg_bits: u32,
    /// The element is narrower than its register (bytes live in a 16-bit register).
    widen: bool,
}

impl PtxScalar {
    fn of(n: NumType) -> Option<PtxScalar> {
        let s = |ld_type, reg_ty, constraint, reg_bits, widen| PtxScalar { ld_type, reg_ty, constraint, reg_bits, widen };
        Some(match n.storage_bytes() {
            // PTX has no 8-bit registers: bytes are loaded into and stored from 16-bit ones.
            1 => s("b8", "i16", "h", 16, true),
            2 => s("b16", "i16", "h", 16, false),
            4 => s("b32", "i32", "r", 32, false),
            8 => s("b64", "i64", "l", 64, false),
            _ => return None,
        })
    }
}

/// A tiled load or store with its operands lowered: what each variant of `tiled_load` and
/// `tiled_store` works from.
pub(crate) struct TiledParts {
    pub access: TiledAccess,
    /// Widest vector access the layout and alignment allow (elements).
    pub vector_width: u32,
    pub is_load: bool,
    /// The tile: shape, element and layout.
    pub shape: Vec<i64>,
    pub elem: NumType,
    pub layout: Layout,
    /// The memref (base pointer, i64 sizes and strides) and the tile's index (i64).
    pub base: String,
    pub sizes: Vec<String>,
    pub strides: Vec<String>,
    pub tile_index: Vec<String>,
}

/// What a 4-bit tiled access needs to address its elements.
struct NibbleAccess<'a> {
    /// Per dimension, this thread's first coordinate (i64).
    origin: &'a [String],
    /// Whether this thread owns elements at all (replicated threads do not).
    valid: &'a Option<String>,
    sizes: &'a [String],
    strides: &'a [String],
    base: &'a str,
    /// PTX qualifier of ordered accesses (`.relaxed.gpu`), or empty.
    qualifier: &'a str,
}

/// The padding value's bit pattern as a PTX hex immediate (the interpreter's rule).
fn padding_bits(n: NumType, pad: Option<PaddingValue>) -> String {
    format!("0x{:X}", PaddingValue::bits(pad, n))
}

/// The LLVM symbol of an nv_tileaa global named `name`.
pub(crate) fn global_symbol(name: &str) -> String {
    // PTX identifiers allow no '.' after the first character: keep letters, digits and '_'.
    let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    format!("@tileir_global_{safe}")
}

/// An `nv_tileaa.global` as an LLVM global in global memory (addrspace 1: initializers of
/// shared-memory globals would be dropped, see docs/nvptx.md P9), initialized with its dense
/// value; `constant` globals are LLVM constants.
fn global_definition(name: &str, value: &tileir_ir::DenseElements, alignment: i64, constant: bool) -> Result<String, String> {
    let n = value.elem;
    let count = value.shape.first().copied().unwrap_or(1).max(0) as usize;
    let element = |i: usize| value.get(if value.is_splat() { 0 } else { i });
    // The bytes of the narrow formats are their codes; f4E2M1FN packs two codes to a byte,
    // the lower index in the low nibble (as every f4 access reads them).
    let (lt, items): (&str, Vec<String>) = match n {
        NumType::I1 => ("i8", (0..count).map(|i| format!("i8 {}", element(i) & 1)).collect()),
        NumType::F8E4M3FN | NumType::F8E5M2 | NumType::F8E8M0FNU => ("i8", (0..count).map(|i| format!("i8 {}", element(i) & 0xFF)).collect()),
        NumType::F4E2M1FN => {
            let code = |i: usize| if i < count { element(i) & 0xF } else { 0 };
            ("i8", (0..count.div_ceil(2)).map(|b| format!("i8 {}", code(2 * b) | code(2 * b + 1) << 4)).collect())
        }
        // tf32 is stored as f32 bits.
        NumType::TF32 => ("float", (0..count).map(|i| format!("float {}", crate::lower_ct::literal(NumType::F32, element(i)))).collect()),
        _ => {
            let lt = llvm_type(n).ok_or_else(|| format!("globals of {n} are not supported yet"))?;
            (lt, (0..count).map(|i| format!("{lt} {}", crate::lower_ct::literal(n, element(i)))).collect())
        }
    };
    let count = items.len();
    let natural = (n.storage_bytes().max(1)) as i64;
    let align = if alignment > 0 { alignment.max(natural) } else { natural };
    let kind = if constant { "constant" } else { "global" };
    Ok(format!("{} = addrspace(1) {kind} [{count} x {lt}] [{}], align {align}", global_symbol(name), items.join(", ")))
}

fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '.' { c } else { '_' }).collect()
}

impl<'a> FuncWriter<'a> {
    fn new(m: &'a Module, decls: &'a mut BTreeSet<String>, target: &str, smem_name: String) -> Self {
        FuncWriter {
            m,
            decls,
            body: String::new(),
            prologue: String::new(),
            cur_block: "%entry".into(),
            smem_bytes: 0,
            smem_name,
            loops: Vec::new(),
            target: target.to_string(),
            function_name: String::new(),
            failed: Default::default(),
            fragment_values: Default::default(),
            uniform_values: Default::default(),
            fragment_mmas: Default::default(),
            fragment_scales: Default::default(),
            skipped_ops: Default::default(),
            direct_loads: HashMap::new(),
            direct_copied_ops: Default::default(),
            epilogues: Default::default(),
            tensor_maps: Vec::new(),
            mbarrier_used: false,
            entry_block: None,
            producer_warps: None,
            persistent_ring: None,
            kernel_hints: None,
            alloca_scopes: Vec::new(),
            token_order: Default::default(),
            stage_mbarriers_used: false,
            tma_rings: Vec::new(),
            ring_loop_depth: 0,
            ring_scratch_bytes: 0,
            tma_pipeline_loops: HashMap::new(),
            counter: 0,
            values: HashMap::new(),
            coords: HashMap::new(),
            tid: None,
            wide: HashMap::new(),
            diags: Vec::new(),
        }
    }

    pub(crate) fn fresh(&mut self, hint: &str) -> String {
        self.counter += 1;
        // A hint ending in a digit is kept apart from the counter: "e8" + 81 must not read
        // as "e" + 881.
        if hint.ends_with(|c: char| c.is_ascii_digit()) {
            format!("%{hint}_{}", self.counter)
        } else {
            format!("%{hint}{}", self.counter)
        }
    }

    pub(crate) fn line(&mut self, text: &str) {
        self.body.push_str("  ");
        self.body.push_str(text);
        self.body.push('\n');
    }

    pub(crate) fn label(&mut self, name: &str) {
        let _ = writeln!(self.body, "{}:", &name[1..]);
        self.cur_block = name.to_string();
    }

    /// Runs `f` with its output going to the entry block's prologue.
    pub(crate) fn in_prologue<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::take(&mut self.body);
        let out = f(self);
        let emitted = std::mem::replace(&mut self.body, saved);
        self.prologue.push_str(&emitted);
        out
    }

    /// Reports that `op` could not be written. Its results are marked failed, and an op
    /// using a failed value reports nothing of its own: one mistake, one diagnostic.
    pub(crate) fn error(&mut self, op: OpId, message: String) {
        let data = &self.m.ops[op];
        let follows_failure = data.operands.iter().any(|v| self.failed.contains(v));
        self.failed.extend(data.results.iter().copied());
        if follows_failure {
            return;
        }
        let name = data.kind.name();
        self.diags.push(Diagnostic::error(self.m.op_location(op), format!("'{name}': {message}")));
    }

    pub(crate) fn declare(&mut self, decl: &str) {
        self.decls.insert(decl.to_string());
    }

    pub(crate) fn sreg(&mut self, reg: &str) -> String {
        self.declare(&format!("declare i32 @llvm.nvvm.read.ptx.sreg.{reg}()"));
        let v = self.fresh(&reg.replace('.', "_"));
        self.line(&format!("{v} = call i32 @llvm.nvvm.read.ptx.sreg.{reg}()"));
        v
    }

    /// The kernel's definition, its parameters and the bytes of dynamic shared memory it needs.
    fn function(&mut self, func: OpId, name: &str, group: usize) -> Result<(String, Vec<ParamKind>, u64), Vec<Diagnostic>> {
        let m = self.m;
        let Some(block) = m.entry_block(func, 0) else { return Err(vec![]) };
        self.function_name = name.to_string();
        let mut params = Vec::new();
        let mut sig = Vec::new();
        let mut used_names = std::collections::HashSet::new();
        for (i, &arg) in m.blocks[block].args.iter().enumerate() {
            let base = m.values[arg].name.as_deref().map(sanitize).unwrap_or_else(|| format!("arg{i}"));
            let mut pname = format!("%{base}");
            let mut k = 1;
            while !used_names.insert(pname.clone()) {
                pname = format!("%{base}.{k}");
                k += 1;
            }
            match m.types.get(m.value_type(arg)) {
                Type::AaPtr { addr_space: 1, .. } => {
                    sig.push(format!("ptr addrspace(1) {pname}"));
                    params.push(ParamKind::Ptr);
                }
                Type::Scalar(NumType::I1) => {
                    // A boolean travels as a 32-bit integer (the launch's i1 ABI): non-zero
                    // is true.
                    sig.push(format!("i32 {pname}"));
                    params.push(ParamKind::I32);
                    let flag = self.in_prologue(|w| w.emit("pflag", format!("icmp ne i32 {pname}, 0")));
                    self.values.insert(arg, Lowered::Scalar(flag));
                    continue;
                }
                Type::Scalar(n) => {
                    let (kind, lt) = match n {
                        NumType::I32 => (ParamKind::I32, "i32"),
                        NumType::I64 => (ParamKind::I64, "i64"),
                        NumType::F32 | NumType::TF32 => (ParamKind::F32, "float"),
                        NumType::F64 => (ParamKind::F64, "double"),
                        NumType::I8 | NumType::I16 | NumType::F16 | NumType::BF16 | NumType::F8E4M3FN | NumType::F8E5M2 | NumType::F8E8M0FNU => {
                            // A scalar narrower than 32 bits travels in the low bits of a
                            // 32-bit parameter (like a boolean): its bits, truncated here.
                            sig.push(format!("i32 {pname}"));
                            params.push(ParamKind::I32);
                            let n = *n;
                            let value = self.in_prologue(|w| {
                                let bits = n.bit_width();
                                let int = w.emit("pnarrow", format!("trunc i32 {pname} to i{bits}"));
                                match crate::lower_ct::elem_llvm(TileElem::Num(n)) {
                                    Ok(lt) if !lt.starts_with('i') => w.emit("pbits", format!("bitcast i{bits} {int} to {lt}")),
                                    _ => int,
                                }
                            });
                            self.values.insert(arg, Lowered::Scalar(value));
                            continue;
                        }
                        other => {
                            self.error(func, format!("kernel parameter #{i} of type {other} is not supported: scalars are passed as i1, i8, i16, i32, i64, f16, bf16, tf32, f32, f64 or an 8-bit float"));
                            continue;
                        }
                    };
                    sig.push(format!("{lt} {pname}"));
                    params.push(kind);
                }
                _ => {
                    self.error(func, format!("kernel parameter #{i} of type {} cannot be passed", m.types.display(m.value_type(arg), true)));
                    continue;
                }
            }
            self.values.insert(arg, Lowered::Scalar(pname));
        }
        self.entry_block = Some(block);
        self.direct_loads = self.find_direct_loads(func);
        self.direct_copied_ops = self.direct_loads.values().flat_map(|d| std::iter::once(d.load).chain(d.via.into_iter().flatten())).collect();
        self.epilogues = self.find_tma_stores(func);
        self.open_alloca_scope();
        for &op in &m.blocks[block].ops {
            self.op(op);
        }
        self.close_alloca_scope();
        if !self.diags.is_empty() {
            return Err(std::mem::take(&mut self.diags));
        }
        // mbarriers are static shared variables next to the buffer, and a 1024-byte aligned
        // buffer may need as much again for its alignment: keep room for both.
        let reserve = if self.mbarrier_used || self.stage_mbarriers_used || !self.tensor_maps.is_empty() { 2048 } else { 0 };
        let limit = max_smem_bytes(&self.target);
        if !self.tma_rings.is_empty() {
            // The rings go past the scratch their loop bodies use, each as deep as what is
            // left allows; the rest of the scratch may overlap them.
            let base = self.ring_scratch_bytes.div_ceil(1024) * 1024;
            let mut body = std::mem::take(&mut self.body);
            let region = self.settle_tma_rings(&mut body, base, limit.saturating_sub(base + reserve));
            self.body = body;
            self.smem_bytes = self.smem_bytes.max(base + region);
            let init = self.stage_mbarrier_init();
            self.prologue.push_str(&init);
        }
        if self.smem_bytes + reserve > limit {
            return Err(vec![Diagnostic::error(
                m.op_location(func),
                format!(
                    "kernel '{name}' needs {} bytes of shared memory; {} allows at most {limit} per CTA",
                    self.smem_bytes + reserve,
                    self.target
                ),
            )]);
        }
        // TMA tensor maps: trailing grid-constant byval parameters.
        for i in 0..self.tensor_maps.len() {
            sig.push(format!("ptr byval([128 x i8]) align 64 \"nvvm.grid_constant\" %tmap{i}"));
            params.push(ParamKind::TensorMap);
        }
        let mut text = String::new();
        if self.mbarrier_used {
            let _ = writeln!(text, "{} = internal addrspace(3) global i64 undef, align 8", self.mbarrier_name());
        }
        if self.stage_mbarriers_used {
            for kind in ["stages", "empty"] {
                let _ = writeln!(
                    text,
                    "{}.{kind} = internal addrspace(3) global [{} x i64] undef, align 8",
                    self.smem_name.trim_end_matches(".smem"),
                    self.stage_mbarrier_count()
                );
            }
        }
        // Swizzled TMA images repeat every 1024 bytes of the absolute address.
        let align = if self.tensor_maps.is_empty() { 16 } else { 1024 };
        let mut dynamic_smem_bytes = 0;
        if self.smem_bytes + reserve > STATIC_SMEM_LIMIT {
            // An external symbol keeps its name in PTX, where '.' is not an identifier
            // character (internal ones are renamed by LLVM).
            let extern_name = format!("@__tileir_dsmem_{}", sanitize(name));
            self.prologue = self.prologue.replace(&self.smem_name, &extern_name);
            self.body = self.body.replace(&self.smem_name, &extern_name);
            dynamic_smem_bytes = self.smem_bytes;
            let _ = writeln!(text, "{extern_name} = external addrspace(3) global [0 x i8], align {align}");
        } else if self.smem_bytes > 0 {
            let _ = writeln!(text, "{} = internal addrspace(3) global [{} x i8] undef, align {align}", self.smem_name, self.smem_bytes);
        }
        let _ = writeln!(text, "define ptx_kernel void @{name}({}) #{group} {{", sig.join(", "));
        text.push_str("entry:\n");
        text.push_str(&self.prologue);
        text.push_str(&self.body);
        if !self.body.trim_end().ends_with("ret void") {
            // The last block is the dead one after a final return.
            text.push_str("  unreachable\n");
        }
        text.push_str("}\n");
        Ok((text, params, dynamic_smem_bytes))
    }

    pub(crate) fn get(&mut self, op: OpId, v: ValueId) -> Option<Lowered> {
        let got = self.values.get(&v).cloned();
        if got.is_none() {
            self.error(op, format!("operand {v} was not lowered"));
        }
        got
    }

    pub(crate) fn scalar(&mut self, op: OpId, v: ValueId) -> Option<String> {
        match self.get(op, v)? {
            Lowered::Scalar(s) => Some(s),
            other => {
                self.error(op, format!("expected a scalar operand, got {other:?}"));
                None
            }
        }
    }

    /// An i64 operand from an i32/i64 scalar (zero-extended: sizes and indices are unsigned).
    pub(crate) fn as_i64(&mut self, op: OpId, v: ValueId) -> Option<String> {
        if let Some(w) = self.wide.get(&v) {
            return Some(w.clone());
        }
        let s = self.scalar(op, v)?;
        match self.m.types.get(self.m.value_type(v)) {
            Type::Scalar(NumType::I64) => Some(s),
            Type::Scalar(n) if n.is_int() => {
                let lt = llvm_type(*n)?;
                let r = self.fresh("z");
                self.line(&format!("{r} = zext {lt} {s} to i64"));
                self.wide.insert(v, r.clone());
                Some(r)
            }
            _ => {
                self.error(op, "expected an integer scalar".into());
                None
            }
        }
    }

    pub(crate) fn op(&mut self, op: OpId) {
        if self.skipped_ops.contains(&op) {
            return;
        }
        let ordered = self.order_memory_before(op);
        self.lower_op(op);
        self.order_memory_after(op, ordered);
    }

    fn lower_op(&mut self, op: OpId) {
        let m = self.m;
        let data = m.ops[op].clone();
        if let Some(st) = self.epilogues.stores.get(&op).cloned() {
            if let Err(e) = self.tma_store(op, &st) {
                self.error(op, format!("TMA store epilogue: {e}"));
            }
            return;
        }
        if self.epilogues.passthrough.contains(&op) {
            if let Err(e) = self.pass_fragments(op) {
                self.error(op, e);
            }
            return;
        }
        if self.epilogues.converts.contains(&op) {
            if let OpKind::CudaTile(c) = &data.kind {
                if let Err(e) = self.convert_fragments(op, c) {
                    self.error(op, e);
                }
            }
            return;
        }
        if self.direct_copied_ops.contains(&op) {
            // A load (and the reshape after it) whose wgmma copies the tile into shared
            // memory itself: nothing to emit; its token orders nothing.
            for &r in &data.results[1..] {
                self.values.insert(r, Lowered::Token);
            }
            return;
        }
        match &data.kind {
            OpKind::TileAa(k) => match k {
                TileAaOp::Return => {
                    // The kernel's allocas all end here.
                    self.free_allocas_from(0);
                    self.line("ret void");
                    // An early return (inside `if`) leaves the rest of its block unreachable.
                    let dead = format!("%dead.{}", self.counter);
                    self.counter += 1;
                    self.label(&dead);
                }
                TileAaOp::CreateMemToken => {
                    self.values.insert(data.results[0], Lowered::Token);
                }
                TileAaOp::GetProgramId { dim } | TileAaOp::GetNumPrograms { dim } => {
                    let axis = ["x", "y", "z"][*dim as usize % 3];
                    let reg = if matches!(k, TileAaOp::GetProgramId { .. }) { "ctaid" } else { "nctaid" };
                    let v = self.sreg(&format!("{reg}.{axis}"));
                    self.values.insert(data.results[0], Lowered::Scalar(v));
                }
                TileAaOp::MakeMemref { num_dyn_sizes, .. } => self.make_memref(op, *num_dyn_sizes as usize),
                TileAaOp::AddF(f) | TileAaOp::SubF(f) | TileAaOp::MulF(f) => {
                    // The same element-wise lowering as cuda_tile's ops of these names.
                    let ct_op = match k {
                        TileAaOp::AddF(_) => tileir_ir::CtOp::AddF,
                        TileAaOp::SubF(_) => tileir_ir::CtOp::SubF,
                        _ => tileir_ir::CtOp::MulF,
                    };
                    let mut c = tileir_ir::CudaTileOp::new(ct_op)
                        .with("rounding_mode", tileir_ir::Attr::Enum(RoundingMode::MNEMONIC, f.rounding.keyword()));
                    if f.flush_to_zero {
                        c = c.with("flush_to_zero", tileir_ir::Attr::Unit);
                    }
                    self.ct_op(op, &c);
                }
                TileAaOp::TiledLoad(_) | TileAaOp::TiledStore(_) => {
                    self.error(op, "nv_tileaa tiled memory ops must be lowered to nv_tileas before LLVM emission".into())
                }
                TileAaOp::Func { .. } => self.error(op, "nested functions are not supported".into()),
                TileAaOp::GetGlobal { name } => {
                    self.values.insert(data.results[0], Lowered::Scalar(global_symbol(name)));
                }
                TileAaOp::Global { .. } => self.error(op, "nv_tileaa.global inside a function is not supported".into()),
                // Token edges order the IR's memory effects; the emitted code is in program order.
                TileAaOp::JoinMemToken => {
                    self.values.insert(data.results[0], Lowered::Token);
                }
                TileAaOp::MarkForReuse => {}
                TileAaOp::CreateQueue
                | TileAaOp::QueuePut
                | TileAaOp::QueueGet { .. }
                | TileAaOp::QueueYield
                | TileAaOp::Execute { .. } => {
                    self.error(op, "queues must be rewritten to nv_tileas pipelines before LLVM emission".into())
                }
            },
            OpKind::TileAs(k) => match k {
                TileAsOp::TiledLoad { access, vector_width, variant } => self.tiled(op, access, *vector_width, true, variant.as_deref()),
                TileAsOp::TiledStore { access, vector_width, variant } => self.tiled(op, access, *vector_width, false, variant.as_deref()),
                // The same elements in another register layout: a reshape to the same shape
                // is exactly that relayout (renaming, warp shuffles or a shared-memory trip,
                // whichever the planner finds for the two layouts).
                TileAsOp::ConvertLayout { plan: None, reinterpret_byte: false } => {
                    if let Err(message) = self.relayout(op, &tileir_ir::CudaTileOp::new(tileir_ir::CtOp::Reshape), "convert_layout", None) {
                        self.error(op, message);
                    }
                }
                TileAsOp::Reinterpret
                | TileAsOp::ExtractSlice { .. }
                | TileAsOp::InsertSlice { .. }
                | TileAsOp::ExpandDims { .. }
                | TileAsOp::Generate
                | TileAsOp::TiledAtomicRmw { .. }
                | TileAsOp::Load(_)
                | TileAsOp::Store(_)
                | TileAsOp::Dot(_) => self.error(
                    op,
                    format!(
                        "the LLVM writer cannot emit 'nv_tileas.{}' yet: the tile-structure, pointer-tile memory and dot ops of nv_tileas have no LLVM lowering (the conversion keeps cuda_tile's own ops for them)",
                        k.mnemonic()
                    ),
                ),
                TileAsOp::AllocTensor
                | TileAsOp::View { .. }
                | TileAsOp::Copy { .. }
                | TileAsOp::Shuffle { .. }
                | TileAsOp::ConvertLayout { .. } => self.error(
                    op,
                    format!(
                        "the LLVM writer cannot emit 'nv_tileas.{}' yet: it lowers each plain convert_layout itself (renaming, warp shuffles or shared memory, planned per layout pair); the staging ops of tileas-materialize-convert-layout have no LLVM lowering, so leave that pass out of pipelines that reach LLVM",
                        k.mnemonic()
                    ),
                ),
                other => self.error(
                    op,
                    format!(
                        "the LLVM writer cannot emit 'nv_tileas.{}': async pipelines and agents reach LLVM only through tileas-pipelines-to-registers (the default pipeline's last pass), and TMA copies only as the backend plans them for wgmma operands and store epilogues",
                        other.mnemonic()
                    ),
                ),
            },
            OpKind::CudaTile(ct) => self.ct_op(op, ct),
            OpKind::Unregistered(_) => self.error(op, "unregistered ops cannot be written as LLVM IR".into()),
        }
    }

    fn make_memref(&mut self, op: OpId, num_dyn_sizes: usize) {
        let m = self.m;
        let data = m.ops[op].clone();
        let Type::MemRef { shape, strides, .. } = m.types.get(m.value_type(data.results[0])).clone() else { return };
        let Some(base) = self.scalar(op, data.operands[0]) else { return };
        let mut dyn_sizes = data.operands[1..1 + num_dyn_sizes].iter().copied();
        let mut dyn_strides = data.operands[1 + num_dyn_sizes..].iter().copied();
        let resolve = |w: &mut Self, dims: &[Dim], dynamic: &mut dyn Iterator<Item = ValueId>| -> Vec<String> {
            dims.iter()
                .map(|d| match d {
                    Dim::Static(v) => v.to_string(),
                    Dim::Dynamic => dynamic.next().and_then(|v| w.as_i64(op, v)).unwrap_or_else(|| "0".into()),
                })
                .collect()
        };
        let sizes = resolve(self, &shape, &mut dyn_sizes);
        let strides = resolve(self, &strides, &mut dyn_strides);
        self.values.insert(data.results[0], Lowered::MemRef { base, sizes, strides });
    }

    pub(crate) fn thread_id(&mut self) -> String {
        if let Some(t) = &self.tid {
            return t.clone();
        }
        let t = self.in_prologue(|w| w.sreg("tid.x"));
        self.tid = Some(t.clone());
        t
    }

    /// `value` folded into a running `inst` chain (`and i1` of predicates, `add i64` of
    /// offsets): the first value starts the chain without an instruction.
    pub(crate) fn chain(&mut self, acc: Option<String>, value: String, inst: &str, hint: &str) -> String {
        match acc {
            None => value,
            Some(prev) => {
                let r = self.fresh(hint);
                self.line(&format!("{r} = {inst} {prev}, {value}"));
                r
            }
        }
    }

    /// `(id / div) % extent` as i32, omitting the identity steps; `covers_rest` says the
    /// id never reaches `div * extent`, so the remainder is not needed.
    fn digit(&mut self, hint: &str, id: &str, div: u32, extent: u32, covers_rest: bool) -> String {
        let mut v = id.to_string();
        if div != 1 {
            let q = self.fresh(hint);
            self.line(&format!("{q} = udiv i32 {v}, {div}"));
            v = q;
        }
        if !covers_rest {
            let r = self.fresh(hint);
            self.line(&format!("{r} = urem i32 {v}, {extent}"));
            v = r;
        }
        v
    }

    /// Per-dimension base coordinates of this thread under `layout` for a tile of `shape`.
    pub(crate) fn thread_coords(&mut self, layout: &Layout, shape: &[i64]) -> ThreadCoords {
        if let Some(c) = self.coords.get(&(layout.clone(), shape.to_vec())) {
            return c.clone();
        }
        self.thread_id();
        let coords = self.in_prologue(|w| w.thread_coords_uncached(layout, shape));
        self.coords.insert((layout.clone(), shape.to_vec()), coords.clone());
        coords
    }

    fn thread_coords_uncached(&mut self, layout: &Layout, shape: &[i64]) -> ThreadCoords {
        let (spt, tpw, wpc, order) = match layout {
            Layout::Blocked { size_per_thread, threads_per_warp, warps_per_cta, order } => (size_per_thread, threads_per_warp, warps_per_cta, order),
            Layout::Mma { .. } => return self.fragment_thread_coords(layout, shape),
            Layout::Slice { dim, parent } => {
                let (d, full) = crate::lower_ct::slice_parent_shape(*dim, shape);
                let mut tc = self.thread_coords_uncached(parent, &full);
                tc.base.remove(d);
                return tc;
            }
        };
        let tid = self.thread_id();
        let lane = self.fresh("lane");
        self.line(&format!("{lane} = and i32 {tid}, 31"));
        let warp = self.fresh("warp");
        self.line(&format!("{warp} = lshr i32 {tid}, 5"));
        let rank = shape.len();
        let mut lane_d = vec![String::new(); rank];
        let mut warp_d = vec![String::new(); rank];
        let (mut lane_div, mut warp_div) = (1u32, 1u32);
        let total_warps: u32 = wpc.iter().product();
        for &d in order {
            let d = d as usize;
            // coordinate = (id / div) % extent; both steps are skipped when they are the
            // identity (div 1, or the last factor of the id's range) to keep the IR small.
            lane_d[d] = self.digit("ld", &lane, lane_div, tpw[d], lane_div * tpw[d] >= 32);
            lane_div *= tpw[d];
            warp_d[d] = self.digit("wd", &warp, warp_div, wpc[d], warp_div * wpc[d] >= total_warps);
            warp_div *= wpc[d];
        }
        let mut base = Vec::new();
        let mut valid: Option<String> = None;
        for d in 0..rank {
            // base_d = (warp_d * tpw_d + lane_d) * spt_d
            let b = self.fresh("base");
            self.line(&format!("{b}.w = mul i32 {}, {}", warp_d[d], tpw[d]));
            self.line(&format!("{b}.t = add i32 {b}.w, {}", lane_d[d]));
            self.line(&format!("{b}.e = mul i32 {b}.t, {}", spt[d]));
            self.line(&format!("{b} = zext i32 {b}.e to i64"));
            let footprint = (spt[d] * tpw[d] * wpc[d]) as i64;
            if footprint > shape[d] {
                // Replicated threads own no element of this dimension.
                let c = self.fresh("own");
                self.line(&format!("{c} = icmp ult i64 {b}, {}", shape[d]));
                valid = Some(self.chain(valid, c, "and i1", "own"));
            }
            base.push(b);
        }
        ThreadCoords { base, valid }
    }

    /// A thread's base (row, column) under a fragment layout (`lower_ct::FragmentGeometry`).
    /// Every thread holds elements; along a dimension shorter than the fragment several
    /// threads hold copies of one, and only the first (unwrapped coordinate inside the tile)
    /// owns it: `valid` says which, for the writes to memory.
    fn fragment_thread_coords(&mut self, layout: &Layout, shape: &[i64]) -> ThreadCoords {
        let Some(g) = crate::lower_ct::fragment_geometry(layout, shape) else {
            return ThreadCoords { base: vec![], valid: None };
        };
        let tid = self.thread_id();
        let lane = self.emit("flane", format!("and i32 {tid}, 31"));
        let row = self.fresh("frow");
        let mut valid = None;
        if g.rows == 1 {
            self.line(&format!("{row}.e = add i32 0, 0"));
            // Owner: warp 0's lanes 0..3 (row 0 of the first warpgroup's fragment).
            let first = self.emit("fown", format!("icmp ult i32 {tid}, 4"));
            valid = Some(first);
        } else {
            let warp = self.emit("fwarp", format!("lshr i32 {tid}, 5"));
            let group = self.emit("fgrp", format!("lshr i32 {warp}, 2"));
            let group_row = self.emit("fgr", format!("mul i32 {group}, {}", g.group_rows));
            let wq = self.emit("fwq", format!("and i32 {warp}, 3"));
            let wq16 = self.emit("fwq", format!("shl i32 {wq}, 4"));
            let quad = self.emit("fq", format!("lshr i32 {lane}, 2"));
            let r = self.emit("fr", format!("add i32 {group_row}, {wq16}"));
            self.line(&format!("{row}.e = add i32 {r}, {quad}"));
        }
        self.line(&format!("{row} = zext i32 {row}.e to i64"));
        let col = self.fresh("fcol");
        let tig = self.emit("ftig", format!("and i32 {lane}, 3"));
        if g.cols < 8 {
            let c = self.emit("fc", format!("shl i32 {tig}, 1"));
            self.line(&format!("{col}.e = and i32 {c}, {}", g.cols - 1));
            let own = self.emit("fown", format!("icmp ult i32 {c}, {}", g.cols));
            valid = Some(match valid {
                Some(v) => self.emit("fown", format!("and i1 {v}, {own}")),
                None => own,
            });
        } else {
            self.line(&format!("{col}.e = shl i32 {tig}, 1"));
        }
        self.line(&format!("{col} = zext i32 {col}.e to i64"));
        ThreadCoords { base: vec![row, col], valid }
    }

    /// A tiled load or store: its operands resolved, then lowered by the first of its
    /// variants (`vector`, `cp_async`, `predicated`) that applies (see `dispatch`).
    fn tiled(&mut self, op: OpId, access: &TiledAccess, vector_width: u32, is_load: bool, variant: Option<&str>) {
        let m = self.m;
        let data = m.ops[op].clone();
        let tile_ty: TypeId = if is_load { m.value_type(data.results[0]) } else { m.value_type(data.operands[1]) };
        let Type::Tile { shape, elem: TileElem::Num(elem), layout: Some(layout) } = m.types.get(tile_ty).clone() else {
            return self.error(op, "expected a numeric tile with a layout".into());
        };
        if crate::lower_ct::elem_llvm(TileElem::Num(elem)).is_err() || PtxScalar::of(elem).is_none() {
            return self.error(op, format!("loads and stores of {elem} are not supported by the LLVM writer yet"));
        }
        let Some(Lowered::MemRef { base, sizes, strides }) = self.get(op, data.operands[0]) else {
            return self.error(op, "operand #0 is not a memref".into());
        };
        let leading = if is_load { 1 } else { 2 };
        let mut tile_index = Vec::new();
        for &v in &data.operands[leading..leading + access.num_indices as usize] {
            match self.as_i64(op, v) {
                Some(s) => tile_index.push(s),
                None => return,
            }
        }
        let parts = TiledParts {
            access: access.clone(),
            vector_width,
            is_load,
            shape,
            elem,
            layout,
            base,
            sizes,
            strides,
            tile_index,
        };
        let (name, table) = if is_load {
            ("tiled_load", crate::dispatch::TILED_LOAD)
        } else {
            ("tiled_store", crate::dispatch::TILED_STORE)
        };
        if let Err(message) = self.run_variants(op, &parts, name, table, variant, &|_, _| None) {
            self.error(op, message);
        }
    }

    /// A register-distributed tile load or store: the `vector` variant (`checked`) and the
    /// `predicated` one (only the slow path below, for every tile: less code, more
    /// instructions per element).
    ///
    /// One uniform branch per access decides between two straight-line paths:
    /// - fast: the whole tile lies inside the memref (and every thread owns real elements),
    ///   so each thread's groups are plain (vector) accesses with no per-element test;
    /// - slow: each element is guarded by its own predicate through predicated PTX
    ///   `ld`/`st` (inline asm), so out-of-bounds elements are never read or written and
    ///   loads of them produce the padding value.
    ///
    /// Branch-free masking keeps both LLVM and ptxas fast (LLVM's `llvm.masked.*` are
    /// scalarized into a branch per element on NVPTX) and keeps the in-bounds tiles, which
    /// are all but the edge tiles of a grid, free of mask arithmetic.
    pub(crate) fn tiled_in_registers(&mut self, op: OpId, p: &TiledParts, checked: bool) -> Result<(), String> {
        let m = self.m;
        let data = m.ops[op].clone();
        let (access, vector_width, is_load) = (&p.access, p.vector_width, p.is_load);
        let (shape, elem, layout) = (p.shape.clone(), p.elem, p.layout.clone());
        let (base, sizes, strides, tile_index) = (p.base.clone(), p.sizes.clone(), p.strides.clone(), p.tile_index.clone());
        let lt = crate::lower_ct::elem_llvm(TileElem::Num(elem))?;
        let ptx = PtxScalar::of(elem).ok_or_else(|| format!("loads and stores of {elem} are not supported by the LLVM writer yet"))?;
        // Ordered accesses are relaxed ("strong") element accesses at the op's scope, with a
        // fence after an acquire load or before a release store: the PTX memory model's
        // fence-based acquire/release patterns.
        use tileir_ir::{MemoryOrdering, MemoryScope};
        let strong = access.ordering != MemoryOrdering::Weak;
        let (llvm_scope, ptx_scope) = match access.scope.unwrap_or(MemoryScope::Device) {
            MemoryScope::TlBlk => ("syncscope(\"block\") ", "cta"),
            MemoryScope::Device => ("syncscope(\"device\") ", "gpu"),
            MemoryScope::Sys => ("", "sys"),
        };
        let qualifier = if strong { format!(".relaxed.{ptx_scope}") } else { String::new() };
        match access.ordering {
            MemoryOrdering::Release | MemoryOrdering::AcqRel if !is_load => self.line(&format!("fence {llvm_scope}release")),
            _ => {}
        }
        let Layout::Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, .. } = &layout else {
            return Err("internal: a register access of a tile whose layout is not blocked".into());
        };
        let rank = shape.len();
        // The vector dimension: the layout's fastest (the last for the canonical layouts;
        // `tileas-assign-layouts` orders a transposed view's unit-stride dimension first).
        let vdim = crate::lower_ct::fastest_dim(&layout, rank);
        let coords = self.thread_coords(&layout, &shape);
        // Per dimension: the tile's first global coordinate, and this thread's first one.
        let mut tile_start = Vec::new();
        let mut origin = Vec::new();
        for d in 0..rank {
            // Tile origins are index x tile shape, or index x traversal stride (strided views).
            let step = access.origin_step.as_ref().and_then(|s| s.get(d).copied()).unwrap_or(shape[d]);
            let t = self.fresh("tile");
            self.line(&format!("{t} = mul i64 {}, {step}", tile_index[d]));
            // A load's replicated threads (past a dimension the CTA over-covers) read what
            // the threads they replicate read, so the values they compute and drop are those
            // (no division by a never-loaded zero); only owners store.
            let replicated = (spt[d] * tpw[d] * wpc[d]) as i64 > shape[d];
            let base_d = if is_load && replicated {
                let w = self.fresh("wrap");
                self.line(&format!("{w} = and i64 {}, {}", coords.base[d], shape[d] - 1));
                w
            } else {
                coords.base[d].clone()
            };
            let o = self.fresh("org");
            self.line(&format!("{o} = add i64 {t}, {base_d}"));
            tile_start.push(t);
            origin.push(o);
        }
        let owners_only = if is_load { None } else { coords.valid.clone() };
        let reps: Vec<i64> = (0..rank).map(|d| (shape[d] / (spt[d] * tpw[d] * wpc[d]) as i64).max(1)).collect();
        let footprint: Vec<i64> = (0..rank).map(|d| (spt[d] * tpw[d] * wpc[d]) as i64).collect();
        let group = spt[vdim] as usize; // contiguous run along the vector dimension
        let bytes = elem.storage_bytes() as usize;
        let vw = if strong { 1 } else { (vector_width as usize).clamp(1, group) };
        // Enumerate (rep multi-index, other dimensions' j multi-index); each gives one group
        // along the vector dimension.
        let mut groups: Vec<Vec<i64>> = vec![vec![]]; // per-dimension offsets from origin (vdim: group start)
        for d in 0..rank {
            let mut next = Vec::new();
            for g in &groups {
                for r in 0..reps[d] {
                    let js = if d == vdim { 1 } else { spt[d] as i64 };
                    for j in 0..js {
                        let mut ng = g.clone();
                        ng.push(r * footprint[d] + j);
                        next.push(ng);
                    }
                }
            }
            groups = next;
        }
        // Element j of group g is register `register_of[g * group + j]` of the tile (the
        // identity when the vector dimension is the last: registers run last dimension fastest).
        let register_of: Vec<usize> = if vdim + 1 == rank {
            (0..groups.len() * group).collect()
        } else {
            let index: HashMap<Vec<i64>, usize> =
                crate::lower_ct::reg_offsets(&layout, &shape).into_iter().enumerate().map(|(i, o)| (o, i)).collect();
            let mut out = Vec::with_capacity(groups.len() * group);
            for g in &groups {
                for j in 0..group as i64 {
                    let mut o = g.clone();
                    o[vdim] += j;
                    match index.get(&o) {
                        Some(&i) => out.push(i),
                        None => return Err(format!("internal: no register holds offsets {o:?} of the tile")),
                    }
                }
            }
            out
        };
        let stored: Vec<String> = if is_load {
            Vec::new()
        } else {
            match self.get(op, data.operands[1]) {
                Some(Lowered::Tile(e)) if e.len() == register_of.len() => register_of.iter().map(|&i| e[i].clone()).collect(),
                Some(Lowered::Tile(e)) => {
                    return Err(format!("stored tile has {} elements per thread, expected {}", e.len(), register_of.len()))
                }
                _ => return Err("stored value is not a tile".into()),
            }
        };
        if elem == NumType::F4E2M1FN {
            if vdim + 1 != rank {
                return Err("4-bit tiles must be held with their last dimension fastest".into());
            }
            let nibbles = NibbleAccess { origin: &origin, valid: &coords.valid, sizes: &sizes, strides: &strides, base: &base, qualifier: &qualifier };
            let loaded = if is_load {
                let pad = PaddingValue::bits(access.padding, elem);
                self.load_nibbles(&nibbles, &groups, group, pad)
            } else if vector_width >= 2 {
                self.store_nibble_pairs(&nibbles, &groups, group, &stored);
                Vec::new()
            } else {
                let syncscope = if strong { llvm_scope } else { "" };
                self.store_nibbles_atomic(&nibbles, &groups, group, &stored, syncscope);
                Vec::new()
            };
            self.finish_tiled(&data, access, is_load, llvm_scope, loaded);
            return Ok(());
        }
        let (mut l_fast, mut l_slow, mut l_join) = (String::new(), String::new(), String::new());
        let mut fast_vals = Vec::new();
        if checked {
        // The whole tile is inside the memref: 0 <= start and start + shape <= size in
        // every dimension (signed: a negative tile index must not pass as a huge one).
        let mut full: Option<String> = owners_only.clone();
        for d in 0..rank {
            let lo = self.fresh("lo");
            self.line(&format!("{lo} = icmp sge i64 {}, 0", tile_start[d]));
            let end = self.fresh("end");
            self.line(&format!("{end} = add i64 {}, {}", tile_start[d], shape[d]));
            let hi = self.fresh("hi");
            self.line(&format!("{hi} = icmp sle i64 {end}, {}", sizes[d]));
            let both = self.fresh("inb");
            self.line(&format!("{both} = and i1 {lo}, {hi}"));
            full = Some(self.chain(full, both, "and i1", "inb"));
        }
        let full = full.unwrap_or_else(|| "true".into());
        let id = self.counter;
        (l_fast, l_slow, l_join) = (format!("%fast.{id}"), format!("%slow.{id}"), format!("%join.{id}"));
        self.line(&format!("br i1 {full}, label {l_fast}, label {l_slow}"));

        // Fast path: `group / vw` vector accesses of vw elements per group.
        self.label(&l_fast);
        let align = vw * bytes;
        // i1 elements are bytes in memory (a vector of i1 would be bit-packed in LLVM).
        let bool_elems = lt == "i1";
        let mem_lt = if bool_elems { "i8" } else { lt };
        for (gi, offsets) in groups.iter().enumerate() {
            let (addr, _) = self.group_address(&origin, offsets, &strides, &base, mem_lt);
            for k in 0..group / vw {
                let p = if k == 0 {
                    addr.clone()
                } else if strides[vdim] == "1" {
                    let p = self.fresh("addr");
                    self.line(&format!("{p} = getelementptr {mem_lt}, ptr addrspace(1) {addr}, i64 {}", k * vw));
                    p
                } else {
                    // A permuted view walks its fastest tile dimension with a non-unit
                    // stride (then vw is 1).
                    let off = self.fresh("soff");
                    self.line(&format!("{off} = mul i64 {}, {}", strides[vdim], k * vw));
                    let p = self.fresh("addr");
                    self.line(&format!("{p} = getelementptr {mem_lt}, ptr addrspace(1) {addr}, i64 {off}"));
                    p
                };
                if is_load {
                    if strong {
                        let v = self.fresh("ld");
                        self.line(&format!("{v} = load atomic {mem_lt}, ptr addrspace(1) {p} {llvm_scope}monotonic, align {align}"));
                        let v = self.loaded_bool(bool_elems, v);
                        fast_vals.push(v);
                    } else if vw == 1 {
                        let v = self.fresh("ld");
                        self.line(&format!("{v} = load {mem_lt}, ptr addrspace(1) {p}, align {align}"));
                        let v = self.loaded_bool(bool_elems, v);
                        fast_vals.push(v);
                    } else {
                        let v = self.fresh("ldv");
                        self.line(&format!("{v} = load <{vw} x {mem_lt}>, ptr addrspace(1) {p}, align {align}"));
                        for e in 0..vw {
                            let x = self.fresh("x");
                            self.line(&format!("{x} = extractelement <{vw} x {mem_lt}> {v}, i32 {e}"));
                            let x = self.loaded_bool(bool_elems, x);
                            fast_vals.push(x);
                        }
                    }
                } else {
                    let vals: Vec<String> = stored[gi * group + k * vw..gi * group + (k + 1) * vw]
                        .iter()
                        .map(|v| if bool_elems { self.emit("sb", format!("zext i1 {v} to i8")) } else { v.clone() })
                        .collect();
                    if strong {
                        self.line(&format!("store atomic {mem_lt} {}, ptr addrspace(1) {p} {llvm_scope}monotonic, align {align}", vals[0]));
                    } else if vw == 1 {
                        self.line(&format!("store {mem_lt} {}, ptr addrspace(1) {p}, align {align}", vals[0]));
                    } else {
                        let mut acc = "poison".to_string();
                        for (e, val) in vals.iter().enumerate() {
                            let n = self.fresh("sv");
                            self.line(&format!("{n} = insertelement <{vw} x {mem_lt}> {acc}, {mem_lt} {val}, i32 {e}"));
                            acc = n;
                        }
                        self.line(&format!("store <{vw} x {mem_lt}> {acc}, ptr addrspace(1) {p}, align {align}"));
                    }
                }
            }
        }
        self.line(&format!("br label {l_join}"));
        self.label(&l_slow);
        }

        // Slow path: one predicate per element; masked-off elements are neither read
        // nor written, and masked-off loads yield the padding value.
        let pad_bits = padding_bits(elem, access.padding);
        let mut slow_vals = Vec::new();
        for (gi, offsets) in groups.iter().enumerate() {
            let (addr, at) = self.group_address(&origin, offsets, &strides, &base, lt);
            // In-bounds test of the group's outer coordinates (all but the vector dimension).
            let mut outer_ok: Option<String> = owners_only.clone();
            for (d, c) in at.iter().enumerate().filter(|&(d, _)| d != vdim) {
                let ok = self.fresh("in");
                self.line(&format!("{ok} = icmp ult i64 {c}, {}", sizes[d]));
                outer_ok = Some(self.chain(outer_ok, ok, "and i1", "in"));
            }
            let last = &at[vdim];
            let mut preds = Vec::with_capacity(group);
            for j in 0..group {
                let cj = if j == 0 {
                    last.clone()
                } else {
                    let cj = self.fresh("cj");
                    self.line(&format!("{cj} = add i64 {last}, {j}"));
                    cj
                };
                let okj = self.fresh("okj");
                self.line(&format!("{okj} = icmp ult i64 {cj}, {}", sizes[vdim]));
                let okj = self.chain(outer_ok.clone(), okj, "and i1", "okj");
                preds.push(okj);
            }
            // Byte offset of element j from the group start along the vector dimension.
            let elem_stride = &strides[vdim];
            let step_bytes: Option<i64> = elem_stride.parse::<i64>().ok().map(|s| s * bytes as i64);
            // A static stride addresses every element from the group start by displacement;
            // a dynamic one needs an address per element.
            let mut ptrs = vec![addr.clone()];
            for j in 1..group {
                if step_bytes.is_none() {
                    let q = self.fresh("ep");
                    let off = self.fresh("eo");
                    self.line(&format!("{off} = mul i64 {elem_stride}, {j}"));
                    self.line(&format!("{q} = getelementptr {lt}, ptr addrspace(1) {addr}, i64 {off}"));
                    ptrs.push(q);
                }
            }
            let disp = |j: usize| -> i64 { step_bytes.map(|s| s * j as i64).unwrap_or(0) };
            if is_load {
                let vals = self.predicated_load(ptx, lt, &ptrs, &preds, &disp, &pad_bits, &qualifier);
                slow_vals.extend(vals);
            } else {
                let vals: Vec<String> = stored[gi * group..(gi + 1) * group].to_vec();
                self.predicated_store(ptx, lt, &ptrs, &preds, &disp, &vals, &qualifier);
            }
        }
        let mut loaded = vec![String::new(); slow_vals.len()];
        if checked {
            self.line(&format!("br label {l_join}"));
            self.label(&l_join);
            for (k, (f, s)) in fast_vals.iter().zip(slow_vals.iter()).enumerate() {
                let r = self.fresh("v");
                self.line(&format!("{r} = phi {lt} [ {f}, {l_fast} ], [ {s}, {l_slow} ]"));
                loaded[register_of[k]] = r;
            }
        } else {
            for (k, s) in slow_vals.into_iter().enumerate() {
                loaded[register_of[k]] = s;
            }
        }
        self.finish_tiled(&data, access, is_load, llvm_scope, loaded);
        Ok(())
    }

    /// The end of a tiled access: the acquire fence of an ordered load (after the phis,
    /// which must open the block), and the op's results.
    fn finish_tiled(&mut self, data: &tileir_ir::OpData, access: &TiledAccess, is_load: bool, llvm_scope: &str, loaded: Vec<String>) {
        if is_load {
            if matches!(access.ordering, tileir_ir::MemoryOrdering::Acquire | tileir_ir::MemoryOrdering::AcqRel) {
                self.line(&format!("fence {llvm_scope}acquire"));
            }
            self.values.insert(data.results[0], Lowered::Tile(loaded));
            self.values.insert(data.results[1], Lowered::Token);
        } else {
            self.values.insert(data.results[0], Lowered::Token);
        }
    }

    /// One element of a 4-bit tiled access: whether it is in bounds (and owned), and its
    /// index in elements from the memref's base.
    fn nibble_element(&mut self, a: &NibbleAccess, offsets: &[i64], j: i64) -> (String, String) {
        let rank = a.origin.len();
        let mut ok: Option<String> = a.valid.clone();
        let mut index: Option<String> = None;
        for (d, &offset) in offsets.iter().enumerate().take(rank) {
            let delta = offset + if d + 1 == rank { j } else { 0 };
            let c = if delta == 0 {
                a.origin[d].clone()
            } else {
                let c = self.fresh("nc");
                self.line(&format!("{c} = add i64 {}, {delta}", a.origin[d]));
                c
            };
            // Unsigned: a negative coordinate is out of bounds too.
            let inside = self.fresh("nin");
            self.line(&format!("{inside} = icmp ult i64 {c}, {}", a.sizes[d]));
            ok = Some(self.chain(ok, inside, "and i1", "nok"));
            let term = if a.strides[d] == "1" {
                c
            } else {
                let t = self.fresh("nt");
                self.line(&format!("{t} = mul i64 {c}, {}", a.strides[d]));
                t
            };
            index = Some(match index {
                None => term,
                Some(i) => {
                    let sum = self.fresh("ni");
                    self.line(&format!("{sum} = add i64 {i}, {term}"));
                    sum
                }
            });
        }
        (ok.unwrap_or_else(|| "true".into()), index.unwrap_or_else(|| "0".into()))
    }

    /// The bit (i8: 0 or 4) at which element `index` of a 4-bit memref starts in its byte:
    /// the lower index of a pair is the low nibble.
    fn nibble_shift(&mut self, index: &str) -> String {
        let odd = self.fresh("nod");
        self.line(&format!("{odd} = trunc i64 {index} to i8"));
        let bit = self.fresh("nod");
        self.line(&format!("{bit} = and i8 {odd}, 1"));
        let shift = self.fresh("nsh");
        self.line(&format!("{shift} = shl i8 {bit}, 2"));
        shift
    }

    /// The byte holding element `index` of a 4-bit memref.
    fn nibble_byte_address(&mut self, base: &str, index: &str) -> String {
        let byte = self.fresh("nby");
        self.line(&format!("{byte} = lshr i64 {index}, 1"));
        let p = self.fresh("nadr");
        self.line(&format!("{p} = getelementptr i8, ptr addrspace(1) {base}, i64 {byte}"));
        p
    }

    /// Loads of 4-bit elements (two to a byte, the lower index in the low nibble): each
    /// element reads its byte under its own predicate and shifts its nibble out;
    /// out-of-bounds elements are the padding code.
    fn load_nibbles(&mut self, a: &NibbleAccess, groups: &[Vec<i64>], group: usize, pad: u64) -> Vec<String> {
        let byte_ptx = PtxScalar::of(NumType::I8).expect("bytes have a PTX type");
        let mut out = Vec::with_capacity(groups.len() * group);
        for offsets in groups {
            for j in 0..group as i64 {
                let (ok, index) = self.nibble_element(a, offsets, j);
                let p = self.nibble_byte_address(a.base, &index);
                let byte = self.predicated_load(byte_ptx, "i8", &[p], std::slice::from_ref(&ok), &|_| 0, "0x0", a.qualifier).remove(0);
                let shift = self.nibble_shift(&index);
                let moved = self.fresh("nmv");
                self.line(&format!("{moved} = lshr i8 {byte}, {shift}"));
                let code = self.fresh("ncd");
                self.line(&format!("{code} = and i8 {moved}, 15"));
                let v = self.fresh("nv");
                self.line(&format!("{v} = select i1 {ok}, i8 {code}, i8 {pad}"));
                out.push(v);
            }
        }
        out
    }

    /// Stores of 4-bit elements where each byte's two elements are in one thread (the
    /// access's vector width is at least 2: unit stride along the last dimension, even
    /// strides and origins elsewhere, even runs per thread): a pair is one byte, written
    /// when its first element is in bounds. The second then is too: a unit-stride dimension
    /// of 4-bit elements has an even size (odd ones are undefined behaviour).
    fn store_nibble_pairs(&mut self, a: &NibbleAccess, groups: &[Vec<i64>], group: usize, stored: &[String]) {
        let byte_ptx = PtxScalar::of(NumType::I8).expect("bytes have a PTX type");
        for (gi, offsets) in groups.iter().enumerate() {
            for j in (0..group).step_by(2) {
                let (ok, index) = self.nibble_element(a, offsets, j as i64);
                let p = self.nibble_byte_address(a.base, &index);
                let (lo, hi) = (&stored[gi * group + j], &stored[gi * group + j + 1]);
                let high = self.fresh("nhi");
                self.line(&format!("{high} = shl i8 {hi}, 4"));
                let byte = self.fresh("nbt");
                self.line(&format!("{byte} = or i8 {lo}, {high}"));
                self.predicated_store(byte_ptx, "i8", &[p], &[ok], &|_| 0, &[byte], a.qualifier);
            }
        }
    }

    /// Stores of 4-bit elements whose bytes may be shared with other threads (a stride or
    /// origin not known to be even, a layout not running along the last dimension): each
    /// in-bounds element is merged into its byte by a compare-and-swap loop.
    fn store_nibbles_atomic(&mut self, a: &NibbleAccess, groups: &[Vec<i64>], group: usize, stored: &[String], syncscope: &str) {
        for (gi, offsets) in groups.iter().enumerate() {
            for j in 0..group {
                let (ok, index) = self.nibble_element(a, offsets, j as i64);
                let (yes, join) = (self.new_label("nst"), self.new_label("nstj"));
                self.line(&format!("br i1 {ok}, label {yes}, label {join}"));
                self.label(&yes);
                let p = self.nibble_byte_address(a.base, &index);
                let shift = self.nibble_shift(&index);
                self.store_nibble_atomic(&p, &shift, &stored[gi * group + j], syncscope);
                self.line(&format!("br label {join}"));
                self.label(&join);
            }
        }
    }

    /// Address of a group's first element: `base + sum_d (origin_d + offset_d) * stride_d`.
    /// Also returns the group's global coordinates, one per dimension.
    fn group_address(
        &mut self,
        origin: &[String],
        offsets: &[i64],
        strides: &[String],
        base: &str,
        lt: &str,
    ) -> (String, Vec<String>) {
        let mut linear: Option<String> = None;
        let mut coords = Vec::with_capacity(origin.len());
        for d in 0..origin.len() {
            let c = if offsets[d] == 0 {
                origin[d].clone()
            } else {
                let c = self.fresh("c");
                self.line(&format!("{c} = add i64 {}, {}", origin[d], offsets[d]));
                c
            };
            coords.push(c.clone());
            let term = if strides[d] == "1" {
                c
            } else {
                let t = self.fresh("off");
                self.line(&format!("{t} = mul i64 {c}, {}", strides[d]));
                t
            };
            linear = Some(self.chain(linear, term, "add i64", "off"));
        }
        let linear = linear.unwrap_or_else(|| "0".into());
        let addr = self.fresh("addr");
        self.line(&format!("{addr} = getelementptr {lt}, ptr addrspace(1) {base}, i64 {linear}"));
        (addr, coords)
    }

    /// Predicated element loads of one group in one inline-asm statement: each register
    /// starts as the padding bits and element j is loaded only when `preds[j]` holds.
    #[allow(clippy::too_many_arguments)]
    fn predicated_load(
        &mut self,
        ptx: PtxScalar,
        lt: &str,
        ptrs: &[String],
        preds: &[String],
        disp: &dyn Fn(usize) -> i64,
        pad_bits: &str,
        qualifier: &str,
    ) -> Vec<String> {
        let n = preds.len();
        let mut asm = String::new();
        for j in 0..n {
            let _ = write!(asm, "mov.b{} ${j}, {pad_bits};\\0A", ptx.reg_bits);
        }
        // Operands: n outputs, the addresses (one shared, or one per element), the n predicates.
        let na = ptrs.len();
        let addr_of = |j: usize| if na == 1 { n } else { n + j };
        for j in 0..n {
            let _ = write!(asm, "@${} ld{qualifier}.global.{} ${j}, [${}+{}];\\0A", n + na + j, ptx.ld_type, addr_of(j), disp(j));
        }
        let outs = vec![format!("={}", ptx.constraint); n];
        let ins: Vec<&str> = std::iter::repeat_n("l", na).chain(std::iter::repeat_n("b", n)).collect();
        let constraints = format!("{},{}", outs.join(","), ins.join(","));
        let ret_ty = if n == 1 { ptx.reg_ty.to_string() } else { format!("{{{}}}", vec![ptx.reg_ty; n].join(", ")) };
        let args: Vec<String> = ptrs
            .iter()
            .map(|p| format!("ptr addrspace(1) {p}"))
            .chain(preds.iter().map(|p| format!("i1 {p}")))
            .collect();
        let r = self.fresh("pld");
        self.line(&format!("{r} = call {ret_ty} asm sideeffect \"{asm}\", \"{constraints}\"({})", args.join(", ")));
        let mut out = Vec::with_capacity(n);
        for j in 0..n {
            let raw = if n == 1 {
                r.clone()
            } else {
                let x = self.fresh("pe");
                self.line(&format!("{x} = extractvalue {ret_ty} {r}, {j}"));
                x
            };
            out.push(self.reg_to_elem(ptx, lt, &raw));
        }
        out
    }

    /// Predicated element stores of one group in one inline-asm statement.
    #[allow(clippy::too_many_arguments)]
    fn predicated_store(
        &mut self,
        ptx: PtxScalar,
        lt: &str,
        ptrs: &[String],
        preds: &[String],
        disp: &dyn Fn(usize) -> i64,
        vals: &[String],
        qualifier: &str,
    ) {
        let n = preds.len();
        let mut asm = String::new();
        // Operands: the addresses (one shared, or one per element), the n predicates, the n values.
        let na = ptrs.len();
        for j in 0..n {
            let a = if na == 1 { 0 } else { j };
            let _ = write!(asm, "@${} st{qualifier}.global.{} [${a}+{}], ${};\\0A", na + j, ptx.ld_type, disp(j), na + n + j);
        }
        let cons: Vec<String> = std::iter::repeat_n("l".to_string(), na)
            .chain(std::iter::repeat_n("b".to_string(), n))
            .chain(std::iter::repeat_n(ptx.constraint.to_string(), n))
            .chain(std::iter::once("~{memory}".to_string()))
            .collect();
        let mut args: Vec<String> = ptrs.iter().map(|p| format!("ptr addrspace(1) {p}")).collect();
        args.extend(preds.iter().map(|p| format!("i1 {p}")));
        for v in vals {
            let reg = self.elem_to_reg(ptx, lt, v);
            args.push(format!("{} {reg}", ptx.reg_ty));
        }
        self.line(&format!("call void asm sideeffect \"{asm}\", \"{}\"({})", cons.join(","), args.join(", ")));
    }

    /// An element value moved into the integer register type inline asm uses.
    fn elem_to_reg(&mut self, ptx: PtxScalar, lt: &str, v: &str) -> String {
        if lt == ptx.reg_ty {
            return v.to_string();
        }
        let r = self.fresh("r");
        if ptx.widen {
            self.line(&format!("{r} = zext {lt} {v} to {}", ptx.reg_ty));
        } else {
            self.line(&format!("{r} = bitcast {lt} {v} to {}", ptx.reg_ty));
        }
        r
    }

    /// A byte loaded for an i1 element as the i1 (non-zero is true); other values as they are.
    fn loaded_bool(&mut self, bool_elem: bool, v: String) -> String {
        if bool_elem {
            self.emit("lb", format!("icmp ne i8 {v}, 0"))
        } else {
            v
        }
    }

    /// The inverse of [`Self::elem_to_reg`].
    fn reg_to_elem(&mut self, ptx: PtxScalar, lt: &str, raw: &str) -> String {
        if lt == ptx.reg_ty {
            return raw.to_string();
        }
        let r = self.fresh("e");
        if ptx.widen {
            self.line(&format!("{r} = trunc {} {raw} to {lt}", ptx.reg_ty));
        } else {
            self.line(&format!("{r} = bitcast {} {raw} to {lt}", ptx.reg_ty));
        }
        r
    }
}

#[cfg(test)]
mod kernel_spec_tests {
    use super::KernelSpec;
    use tileir_ir::Attr;

    fn hints(entries: &[(&str, &[(&str, i64)])]) -> Vec<(String, Attr)> {
        entries
            .iter()
            .map(|(arch, kv)| ((*arch).to_string(), Attr::Dict(kv.iter().map(|(k, v)| ((*k).to_string(), Attr::Int(*v))).collect())))
            .collect()
    }

    #[test]
    fn occupancy_caps_registers_and_clusters_need_hopper() {
        let h = hints(&[("default", &[("occupancy", 4)]), ("sm_100", &[("num_cta_in_cga", 2), ("occupancy", 2)])]);
        let s = KernelSpec::resolve(Some(&h), "sm_90a", 128);
        assert_eq!((s.maxnreg, s.cluster_x), (Some(128), None));
        assert_eq!(s.nvvm_attributes(), "\"nvvm.reqntid\"=\"128,1,1\" \"nvvm.minctasm\"=\"1\" \"nvvm.maxnreg\"=\"128\"");
        // The target's own entry overrides default; clusters only past sm_89.
        let s = KernelSpec::resolve(Some(&h), "sm_100", 256);
        assert_eq!((s.maxnreg, s.cluster_x), (Some(128), Some(2)));
        let c = hints(&[("default", &[("num_cta_in_cga", 2)])]);
        assert_eq!(KernelSpec::resolve(Some(&c), "sm_80", 128).cluster_x, None);
        assert_eq!(KernelSpec::resolve(Some(&c), "sm_90a", 128).cluster_x, Some(2));
        // One CTA is no cluster; huge occupancies stay within ptxas's range.
        let one = hints(&[("default", &[("num_cta_in_cga", 1), ("occupancy", 32)])]);
        let s = KernelSpec::resolve(Some(&one), "sm_90a", 1024);
        assert_eq!((s.maxnreg, s.cluster_x), (Some(24), None));
        assert_eq!(KernelSpec::resolve(None, "sm_90a", 128).nvvm_attributes(), "\"nvvm.reqntid\"=\"128,1,1\" \"nvvm.minctasm\"=\"1\"");
    }
}
