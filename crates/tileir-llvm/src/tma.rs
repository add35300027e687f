//! TMA loads of wgmma operands (sm_90a): tensor maps the launcher encodes, an mbarrier that
//! counts their bytes, and `cp.async.bulk.tensor` copies into swizzled shared memory.
//!
//! A tensor map describes a 2-d array (base, sizes, strides) and the box one copy moves. The
//! kernel receives it as a `grid_constant` byval parameter (docs/nvptx.md: without the
//! attribute LLVM copies the 128 bytes to local memory, and the copy would read that); the
//! launcher encodes it from the array's own parameters, named in [`TensorMapSpec`].
//!
//! One mbarrier per kernel, initialized in the entry block for every thread of the CTA,
//! serves every TMA use in turn: each thread arrives once per use (the issuing thread with
//! the use's byte count) and waits on the state its arrive returned, so no phase parity has
//! to be tracked across loops; a use's phase cannot complete before every thread of the
//! next has arrived, so a slow waiter never sees a later phase.

use crate::writer::{FuncWriter, Lowered};
use tileir_ir::{CtOp, Dim, Module, NumType, OpId, OpKind, TileAaOp, TileAsOp, Type, ValueDef, ValueId};

type R<T> = Result<T, String>;

/// A kernel parameter, or a value known when compiling.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParamOrConst {
    /// The value of kernel parameter #i.
    Param(usize),
    /// A constant.
    Const(i64),
}

/// A tensor map the launcher encodes and passes as a kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMapSpec {
    /// Kernel parameter holding the array's base address.
    pub base: usize,
    /// Sizes and strides (in elements), outermost first.
    pub sizes: Vec<ParamOrConst>,
    /// Strides in elements, outermost first (the innermost is 1).
    pub strides: Vec<ParamOrConst>,
    /// Element type, as cuda_tile spells it (`f16`, `bf16`, `i8`, …).
    pub elem: String,
    /// The box one copy moves, outermost first.
    pub box_dims: Vec<u32>,
    /// Swizzle span in bytes: 32, 64 or 128.
    pub swizzle_bytes: u32,
}

/// The call by which thread `tid` (re-)initializes the mbarriers at the i32 shared addresses
/// `addrs` for `count` arrivals each (invalidating them first when `inval`), then fences
/// the initialization for the async proxy. A barrier must follow before any other thread
/// uses them.
pub(crate) fn mbarrier_init_call(tid: &str, addrs: &[String], count: i64, inval: bool) -> String {
    let mut asm = String::from("{\\0A\\09.reg .pred p;\\0A\\09setp.eq.u32 p, $0, 0;\\0A\\09");
    if inval {
        for i in 0..addrs.len() {
            asm.push_str(&format!("@p mbarrier.inval.shared.b64 [${}];\\0A\\09", i + 1));
        }
    }
    for i in 0..addrs.len() {
        asm.push_str(&format!("@p mbarrier.init.shared.b64 [${}], {count};\\0A\\09", i + 1));
    }
    asm.push_str("}\\0A\\09fence.mbarrier_init.release.cluster;");
    let cons: Vec<&str> = std::iter::repeat_n("r", addrs.len() + 1).collect();
    let args: Vec<String> = std::iter::once(tid.to_string()).chain(addrs.iter().cloned()).map(|a| format!("i32 {a}")).collect();
    format!("call void asm sideeffect \"{asm}\", \"{},~{{memory}}\"({})", cons.join(","), args.join(", "))
}

/// The kernel parameter `v` is (looking through `assume`), or the constant it is.
fn param_or_const(m: &Module, func_block: tileir_ir::BlockId, v: ValueId) -> Option<ParamOrConst> {
    match m.values[v].def {
        ValueDef::BlockArg { block, index } if block == func_block => Some(ParamOrConst::Param(index as usize)),
        ValueDef::BlockArg { .. } => None,
        ValueDef::OpResult { op, .. } => match &m.ops[op].kind {
            OpKind::CudaTile(c) if c.op == CtOp::Assume => param_or_const(m, func_block, *m.ops[op].operands.first()?),
            OpKind::CudaTile(c) if c.op == CtOp::Constant => match c.get("value") {
                Some(tileir_ir::Attr::Dense(d)) if d.num_elements() == 1 => Some(ParamOrConst::Const(d.get(0) as i64)),
                _ => None,
            },
            _ => None,
        },
    }
}

/// Where the launcher finds memref `memref`'s base, sizes and strides: kernel parameters
/// or constants (None when one of them is computed in the kernel).
pub(crate) fn memref_source(m: &Module, func_block: tileir_ir::BlockId, memref: ValueId) -> Option<(usize, Vec<ParamOrConst>, Vec<ParamOrConst>)> {
    let mk = m.defining_op(memref)?;
    let OpKind::TileAa(TileAaOp::MakeMemref { .. }) = &m.ops[mk].kind else { return None };
    let Type::MemRef { shape, strides, .. } = m.types.get(m.value_type(memref)) else { return None };
    let ops = &m.ops[mk].operands;
    let ParamOrConst::Param(base) = param_or_const(m, func_block, ops[0])? else { return None };
    let mut dynamic = ops[1..].iter();
    let mut resolve = |dims: &[Dim]| -> Option<Vec<ParamOrConst>> {
        dims.iter()
            .map(|d| match d {
                Dim::Static(v) => Some(ParamOrConst::Const(*v)),
                Dim::Dynamic => param_or_const(m, func_block, *dynamic.next()?),
            })
            .collect()
    };
    // Dynamic strides follow all dynamic sizes.
    let sizes = resolve(shape)?;
    let strides = resolve(strides)?;
    Some((base, sizes, strides))
}

/// Whether memref `memref` (made by `make_memref`) has a 16-byte aligned base and every
/// stride but the unit one (the contiguous dimension: the innermost, or the first of a
/// transposed view) a multiple of 16 bytes (static, or a dynamic stride under `assume
/// div_by`): TMA's rule for tensor maps, and cp.async's for 16-byte row chunks.
pub(crate) fn strides_16_byte_aligned(m: &Module, memref: ValueId, elem_bytes: i64) -> bool {
    let Type::MemRef { strides, .. } = m.types.get(m.value_type(memref)) else { return false };
    let Some(mk) = m.defining_op(memref) else { return false };
    let OpKind::TileAa(TileAaOp::MakeMemref { base_alignment, num_dyn_sizes, .. }) = &m.ops[mk].kind else { return false };
    // Dynamic strides follow the base and the dynamic sizes, outermost first.
    let mut dynamic = m.ops[mk].operands.iter().skip(1 + *num_dyn_sizes as usize);
    let outer: Vec<i64> = strides
        .iter()
        .filter_map(|d| match d {
            Dim::Static(1) => None,
            Dim::Static(s) => Some(*s),
            Dim::Dynamic => Some(dynamic.next().map_or(1, |&v| m.assumed_divisor(v))),
        })
        .collect();
    *base_alignment >= 16 && outer.len() + 1 == strides.len() && outer.iter().all(|&s| (s * elem_bytes) % 16 == 0)
}

/// cuda_tile's name of a TMA-copyable element type.
pub(crate) fn tma_elem_name(n: NumType) -> Option<&'static str> {
    Some(match n {
        NumType::F16 => "f16",
        NumType::BF16 => "bf16",
        NumType::F32 => "f32",
        NumType::I8 => "i8",
        NumType::F8E4M3FN => "f8E4M3FN",
        NumType::F8E5M2 => "f8E5M2",
        _ => return None,
    })
}

impl FuncWriter<'_> {
    /// The symbol of the kernel's mbarrier (not under the scratch buffer's name, which a
    /// dynamic buffer renames).
    pub(crate) fn mbarrier_name(&self) -> String {
        format!("{}.mbar", self.smem_name.trim_end_matches(".smem"))
    }

    /// The LLVM parameter of the tensor map `spec` (added on first use).
    pub(crate) fn tensor_map_param(&mut self, spec: TensorMapSpec) -> String {
        if let Some(i) = self.tensor_maps.iter().position(|s| *s == spec) {
            return format!("%tmap{i}");
        }
        self.tensor_maps.push(spec);
        format!("%tmap{}", self.tensor_maps.len() - 1)
    }

    /// The i32 shared address of the kernel's mbarrier, initialized (in the entry block) on
    /// first use for every thread of the CTA.
    pub(crate) fn mbarrier(&mut self, threads: i64) -> String {
        let name = self.mbarrier_name();
        if !self.mbarrier_used {
            self.mbarrier_used = true;
            let tid = self.thread_id();
            let init = mbarrier_init_call(&tid, &["%mbar.addr".to_string()], threads, false);
            self.declare("declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)");
            self.prologue.push_str(&format!(
                "  %mbar.addr = ptrtoint ptr addrspace(3) {name} to i32\n  {init}\n  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n"
            ));
        }
        "%mbar.addr".to_string()
    }

    /// Every thread arrives on the mbarrier; the thread for which `is_issuer` holds also
    /// expects `bytes` of transfers. Returns the arrive's state (i64) to wait on.
    pub(crate) fn mbarrier_arrive(&mut self, mbar: &str, is_issuer: &str, bytes: i64) -> String {
        let issuer = self.emit("iss", format!("zext i1 {is_issuer} to i32"));
        self.emit(
            "mbs",
            format!(
                "call i64 asm sideeffect \"{{\\0A\\09.reg .pred p;\\0A\\09setp.ne.u32 p, $1, 0;\\0A\\09@p mbarrier.arrive.expect_tx.shared.b64 $0, [$2], $3;\\0A\\09@!p mbarrier.arrive.shared.b64 $0, [$2];\\0A\\09}}\", \"=l,r,r,r,~{{memory}}\"(i32 {issuer}, i32 {mbar}, i32 {bytes})"
            ),
        )
    }

    /// Waits until the phase of `state` (i64, an arrive's result) completes.
    pub(crate) fn mbarrier_wait(&mut self, mbar: &str, state: &str) {
        self.mbarrier_spin(mbar, "try_wait", ("l", "i64", state));
    }

    /// Waits until the phase of parity `parity` (i32) completes.
    pub(crate) fn mbarrier_wait_parity(&mut self, mbar: &str, parity: &str) {
        self.mbarrier_spin(mbar, "try_wait.parity", ("r", "i32", parity));
    }

    /// Spins on `mbarrier.{wait}` of `mbar` with its second operand `arg` (constraint,
    /// LLVM type, value) until it holds.
    fn mbarrier_spin(&mut self, mbar: &str, wait: &str, arg: (&str, &str, &str)) {
        let (cons, ty, value) = arg;
        let (spin, done) = (self.new_label("mbw"), self.new_label("mbwd"));
        self.line(&format!("br label {spin}"));
        self.label(&spin);
        let ok = self.emit(
            "mbok",
            format!(
                "call i32 asm sideeffect \"{{\\0A\\09.reg .pred p;\\0A\\09mbarrier.{wait}.shared.b64 p, [$1], $2;\\0A\\09selp.u32 $0, 1, 0, p;\\0A\\09}}\", \"=r,r,{cons},~{{memory}}\"(i32 {mbar}, {ty} {value})"
            ),
        );
        let ok = self.emit("mbok", format!("icmp ne i32 {ok}, 0"));
        self.line(&format!("br i1 {ok}, label {done}, label {spin}"));
        self.label(&done);
    }

    /// One TMA load of the box at `coords` (i32 element coordinates, innermost first; 1 to 5
    /// of them) of tensor map `tmap` into shared byte `dst` (i32 shared address), counted on
    /// `mbar`.
    pub(crate) fn tma_load(&mut self, tmap: &str, dst: &str, coords: &[String], mbar: &str) {
        let n = coords.len();
        let slots: Vec<String> = (0..n).map(|i| format!("${}", i + 2)).collect();
        let args: Vec<String> = coords.iter().map(|c| format!("i32 {c}")).collect();
        self.line(&format!(
            "call void asm sideeffect \"cp.async.bulk.tensor.{n}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {{{}}}], [${}];\", \"r,l,{}r,~{{memory}}\"(i32 {dst}, ptr {tmap}, {}, i32 {mbar})",
            slots.join(", "),
            n + 2,
            "r,".repeat(n),
            args.join(", ")
        ));
    }

    /// The tile coordinates (i32) of tiled load or store `op` (a load's follow its memref, a
    /// store's its memref and value).
    pub(crate) fn tile_index_i32(&mut self, op: OpId) -> R<Vec<String>> {
        let data = self.m.ops[op].clone();
        let (access, first) = match &data.kind {
            OpKind::TileAs(TileAsOp::TiledLoad { access, .. }) => (access, 1),
            OpKind::TileAs(TileAsOp::TiledStore { access, .. }) => (access, 2),
            _ => return Err("not a tiled load or store".into()),
        };
        let mut out = Vec::new();
        for &v in &data.operands[first..first + access.num_indices as usize] {
            let i = self.as_i64(op, v).ok_or("the tile index was not lowered")?;
            out.push(self.emit("tix", format!("trunc i64 {i} to i32")));
        }
        if !matches!(self.get(op, data.operands[0]), Some(Lowered::MemRef { .. })) {
            return Err("the memref was not lowered".into());
        }
        Ok(out)
    }
}
