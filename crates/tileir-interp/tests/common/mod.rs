//! A small IR builder for interpreter tests (the text parser is developed concurrently).
#![allow(dead_code)]

use tileir_interp::{run_entry, ArgValue, InterpError, Memory, RunOptions, RunReport};
use tileir_ir::attrs::DenseElements;
use tileir_ir::*;

/// Builds one `cuda_tile.module @kernels` with one entry.
pub struct K {
    pub m: Module,
    pub cur: BlockId,
    pub module_block: BlockId,
    pub line: u32,
}

pub fn ct(op: CtOp) -> CudaTileOp {
    CudaTileOp::new(op)
}

pub fn en(mnemonic: &'static str, kw: &'static str) -> Attr {
    Attr::Enum(mnemonic, kw)
}

impl K {
    /// A module with entry `name` taking parameters of `params` types; returns the builder and
    /// the parameter values.
    pub fn entry(name: &str, params: &[Type]) -> (K, Vec<ValueId>) {
        let mut m = Module::new();
        let loc = m.locs.file_line_col("test.mlir", 1, 1);
        let module = ct(CtOp::Module).with("sym_name", Attr::Str("kernels".into()));
        let mop = m.create_op(OpKind::CudaTile(module), vec![], &[], loc);
        let body = m.body;
        m.append_op(body, mop);
        let region = m.ops[mop].regions[0];
        let module_block = m.add_block(region, &[]);
        let param_ids: Vec<TypeId> = params.iter().map(|t| m.types.intern(t.clone())).collect();
        let fty = m.types.intern(Type::Function {
            inputs: param_ids.clone(),
            results: vec![],
        });
        let entry = ct(CtOp::Entry)
            .with("sym_name", Attr::Str(name.into()))
            .with("function_type", Attr::Type(fty));
        let eop = m.create_op(OpKind::CudaTile(entry), vec![], &[], loc);
        m.append_op(module_block, eop);
        let eregion = m.ops[eop].regions[0];
        let eblock = m.add_block(eregion, &param_ids);
        let args = m.blocks[eblock].args.clone();
        (
            K {
                m,
                cur: eblock,
                module_block,
                line: 2,
            },
            args,
        )
    }

    pub fn ty(&mut self, t: Type) -> TypeId {
        self.m.types.intern(t)
    }

    /// Appends an op at the current block; each op gets its own line number.
    pub fn op(&mut self, op: CudaTileOp, operands: Vec<ValueId>, results: &[Type]) -> Vec<ValueId> {
        let rt: Vec<TypeId> = results
            .iter()
            .map(|t| self.m.types.intern(t.clone()))
            .collect();
        let loc = self.m.locs.file_line_col("test.mlir", self.line, 3);
        self.line += 1;
        let id = self.m.create_op(OpKind::CudaTile(op), operands, &rt, loc);
        self.m.append_op(self.cur, id);
        self.m.ops[id].results.clone()
    }

    pub fn op1(&mut self, op: CudaTileOp, operands: Vec<ValueId>, result: Type) -> ValueId {
        self.op(op, operands, &[result])[0]
    }

    /// The last op appended.
    pub fn last_op(&self) -> OpId {
        *self.m.blocks[self.cur].ops.last().unwrap()
    }

    /// Adds a block with `args` to region `r` of `op`, builds its body with `f`, and returns.
    pub fn region(
        &mut self,
        op: OpId,
        r: usize,
        args: &[Type],
        f: impl FnOnce(&mut K, Vec<ValueId>),
    ) {
        let arg_ids: Vec<TypeId> = args
            .iter()
            .map(|t| self.m.types.intern(t.clone()))
            .collect();
        let region = self.m.ops[op].regions[r];
        let b = self.m.add_block(region, &arg_ids);
        let saved = self.cur;
        self.cur = b;
        let a = self.m.blocks[b].args.clone();
        f(self, a);
        self.cur = saved;
    }

    pub fn ret(&mut self) {
        self.op(ct(CtOp::Return), vec![], &[]);
    }

    pub fn constant(&mut self, t: NumType, shape: &[i64], bits: Vec<u64>) -> ValueId {
        let d = DenseElements {
            elem: t,
            shape: shape.to_vec(),
            bits,
        };
        self.op1(
            ct(CtOp::Constant).with("value", Attr::Dense(d)),
            vec![],
            tile(shape, t),
        )
    }

    pub fn ci32(&mut self, v: i32) -> ValueId {
        self.constant(NumType::I32, &[], vec![v as u32 as u64])
    }

    pub fn block_id(&mut self) -> [ValueId; 3] {
        let r = self.op(
            ct(CtOp::GetTileBlockId),
            vec![],
            &[
                tile(&[], NumType::I32),
                tile(&[], NumType::I32),
                tile(&[], NumType::I32),
            ],
        );
        [r[0], r[1], r[2]]
    }

    /// A 1-D tensor view of `n` elements over `ptr` and its partition view of `tile_n` tiles.
    pub fn view1d(
        &mut self,
        ptr: ValueId,
        t: NumType,
        n: i64,
        tile_n: i64,
        padding: Option<PaddingValue>,
    ) -> (ValueId, Type) {
        let tvt = Type::TensorView(TensorViewType {
            elem: t,
            shape: vec![Dim::Static(n)],
            strides: vec![Dim::Static(1)],
        });
        let tv = self.op1(
            ct(CtOp::MakeTensorView).with_segments(&[1, 0, 0]),
            vec![ptr],
            tvt.clone(),
        );
        let tvid = self.ty(tvt);
        let pvt = Type::PartitionView(PartitionViewType {
            tile_shape: vec![tile_n],
            tensor_view: tvid,
            dim_map: vec![],
            padding,
        });
        (
            self.op1(ct(CtOp::MakePartitionView), vec![tv], pvt.clone()),
            pvt,
        )
    }

    /// A 2-D row-major view over `ptr` (`rows x cols`) partitioned into `tr x tc` tiles.
    pub fn view2d(
        &mut self,
        ptr: ValueId,
        t: NumType,
        rows: i64,
        cols: i64,
        tr: i64,
        tc: i64,
    ) -> ValueId {
        let tvt = Type::TensorView(TensorViewType {
            elem: t,
            shape: vec![Dim::Static(rows), Dim::Static(cols)],
            strides: vec![Dim::Static(cols), Dim::Static(1)],
        });
        let tv = self.op1(
            ct(CtOp::MakeTensorView).with_segments(&[1, 0, 0]),
            vec![ptr],
            tvt.clone(),
        );
        let tvid = self.ty(tvt);
        let pvt = Type::PartitionView(PartitionViewType {
            tile_shape: vec![tr, tc],
            tensor_view: tvid,
            dim_map: vec![],
            padding: None,
        });
        self.op1(ct(CtOp::MakePartitionView), vec![tv], pvt)
    }

    pub fn load_view(&mut self, view: ValueId, idx: &[ValueId], result: Type) -> ValueId {
        let mut ops = vec![view];
        ops.extend_from_slice(idx);
        let op = ct(CtOp::LoadViewTko)
            .with(
                "memory_ordering_semantics",
                en("memory_ordering_semantics", "weak"),
            )
            .with_segments(&[1, idx.len() as u32, 0]);
        self.op(op, ops, &[result, Type::Token])[0]
    }

    pub fn store_view(&mut self, value: ValueId, view: ValueId, idx: &[ValueId]) {
        let mut ops = vec![value, view];
        ops.extend_from_slice(idx);
        let op = ct(CtOp::StoreViewTko)
            .with(
                "memory_ordering_semantics",
                en("memory_ordering_semantics", "weak"),
            )
            .with_segments(&[1, 1, idx.len() as u32, 0]);
        self.op(op, ops, &[Type::Token]);
    }

    pub fn run(
        &self,
        grid: [u32; 3],
        args: &[ArgValue],
        mem: &mut Memory,
        opts: &RunOptions,
    ) -> Result<RunReport, InterpError> {
        run_entry(&self.m, "k", grid, args, mem, opts)
    }
}

pub fn tile(shape: &[i64], t: NumType) -> Type {
    Type::Tile {
        shape: shape.to_vec(),
        elem: TileElem::Num(t),
        layout: None,
    }
}

pub fn ptr_tile(shape: &[i64], t: NumType) -> Type {
    Type::Tile {
        shape: shape.to_vec(),
        elem: TileElem::Ptr(t),
        layout: None,
    }
}

/// Little-endian bytes of bit patterns of `t` (≥ 8 bits; i1 as a byte).
pub fn to_bytes(t: NumType, bits: &[u64]) -> Vec<u8> {
    let size = t.storage_bytes() as usize;
    bits.iter()
        .flat_map(|b| b.to_le_bytes()[..size].to_vec())
        .collect()
}

pub fn from_bytes(t: NumType, bytes: &[u8]) -> Vec<u64> {
    let size = t.storage_bytes() as usize;
    bytes
        .chunks_exact(size)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// Builds and runs a one-block kernel `out = f(in_0, …, in_{k-1})` over 1-D tiles of `n`
/// elements loaded from memory; returns the result bit patterns. `f` builds the body from the
/// loaded tiles and returns the result value and its element type.
pub fn run_elementwise(
    inputs: &[(NumType, Vec<u64>)],
    out_t: NumType,
    f: impl FnOnce(&mut K, &[ValueId]) -> ValueId,
) -> Result<Vec<u64>, InterpError> {
    let n = inputs[0].1.len() as i64;
    let mut params: Vec<Type> = inputs.iter().map(|(t, _)| ptr_tile(&[], *t)).collect();
    params.push(ptr_tile(&[], out_t));
    let (mut k, args) = K::entry("k", &params);
    let zero = k.ci32(0);
    let mut loaded = Vec::new();
    for (i, (t, _)) in inputs.iter().enumerate() {
        let (pv, _) = k.view1d(args[i], *t, n, n, None);
        loaded.push(k.load_view(pv, &[zero], tile(&[n], *t)));
    }
    let r = f(&mut k, &loaded);
    let (pv, _) = k.view1d(args[inputs.len()], out_t, n, n, None);
    k.store_view(r, pv, &[zero]);
    k.ret();
    let mut mem = Memory::new();
    let mut argv = Vec::new();
    for (t, bits) in inputs {
        argv.push(ArgValue::Ptr(mem.alloc_bytes(&to_bytes(*t, bits))));
    }
    let out = mem.alloc(n as usize * out_t.storage_bytes() as usize, 256);
    argv.push(ArgValue::Ptr(out));
    k.run([1, 1, 1], &argv, &mut mem, &RunOptions::default())?;
    Ok(from_bytes(out_t, mem.bytes(out).unwrap()))
}
