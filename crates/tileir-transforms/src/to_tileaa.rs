//! `convert-cuda-tile-to-tileaa`: cuda_tile → nv_tileaa.

use std::collections::HashMap;
use tileir_ir::{
    AssumePredicate, Builder, CtOp, CudaTileOp, Diagnostic, Diagnostics, FloatArith, MemoryOrdering, Module, OpId, OpKind,
    PaddingValue, TileAaOp, TileElem, TiledAccess, Type, TypeId, ValueId,
};
use tileir_pass::{pass_options, Pass};

/// Registered name.
pub const NAME: &str = "convert-cuda-tile-to-tileaa";

pass_options! {
    /// Options of `convert-cuda-tile-to-tileaa` (none yet).
    pub struct ToTileAaOptions {}
}

/// The pass.
pub struct ConvertCudaTileToTileAa {
    /// Its options.
    pub options: ToTileAaOptions,
}

impl Pass for ConvertCudaTileToTileAa {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let out = convert(module)?;
        *module = out;
        Ok(())
    }
}

/// What a cuda_tile partition view stands for in nv_tileaa.
#[derive(Clone)]
struct ViewInfo {
    memref: ValueId,
    padding: Option<PaddingValue>,
    /// Tile shape of the view (for index-space queries).
    tile: Vec<i64>,
    /// A strided view's step between tile origins, per tile dimension.
    origin_step: Option<Vec<i64>>,
    /// A gather/scatter view's gathered dimension (its index is a 1-D tile of coordinates).
    sparse_dim: Option<usize>,
}

/// One size or stride of a memref: static, or the (nv_tileaa) value holding it.
#[derive(Clone, Copy)]
enum Extent {
    Static(i64),
    Dynamic(ValueId),
}

/// How a memref was made, so views can permute it and shape queries can read it.
#[derive(Clone)]
struct MemrefInfo {
    base: ValueId,
    sizes: Vec<Extent>,
    strides: Vec<Extent>,
    elem: tileir_ir::NumType,
    base_alignment: u32,
}

struct Converter<'a> {
    src: &'a Module,
    dst: Module,
    values: HashMap<ValueId, ValueId>,
    /// Known byte alignment of pointer values (from `assume div_by`).
    alignment: HashMap<ValueId, u32>,
    views: HashMap<ValueId, ViewInfo>,
    memrefs: HashMap<ValueId, MemrefInfo>,
    diags: Vec<Diagnostic>,
}

fn convert(src: &Module) -> Result<Module, Diagnostics> {
    let mut cx = Converter {
        src,
        dst: Module::new(),
        values: HashMap::new(),
        alignment: HashMap::new(),
        views: HashMap::new(),
        memrefs: HashMap::new(),
        diags: Vec::new(),
    };
    for &top in &src.blocks[src.body].ops {
        match &src.ops[top].kind {
            OpKind::CudaTile(ct) if ct.op == CtOp::Module => {
                if let Some(block) = src.entry_block(top, 0) {
                    for &item in &src.blocks[block].ops {
                        cx.top_level(item);
                    }
                }
            }
            _ => cx.unsupported(top, "at the top level of a cuda_tile program"),
        }
    }
    if cx.diags.is_empty() {
        Ok(cx.dst)
    } else {
        Err(Diagnostics(cx.diags))
    }
}

impl Converter<'_> {
    fn unsupported(&mut self, op: OpId, context: &str) {
        let name = self.src.ops[op].kind.name();
        self.diags.push(Diagnostic::error(
            self.src.op_location(op),
            format!("'{name}' {context} is not supported by tileir's lowering yet"),
        ));
    }

    /// The nv_tileaa type of a cuda_tile value type.
    fn lower_type(&mut self, ty: TypeId) -> TypeId {
        match self.src.types.get(ty).clone() {
            Type::Tile { shape, elem, .. } if shape.is_empty() => match elem {
                TileElem::Num(n) => self.dst.types.scalar(n),
                TileElem::Ptr(n) => self.dst.types.intern(Type::AaPtr { pointee: n, addr_space: 1 }),
            },
            Type::Token => self.dst.types.mem_token(),
            _ => self.dst.types.import(&self.src.types, ty),
        }
    }

    fn map(&mut self, op: OpId, v: ValueId) -> Option<ValueId> {
        let mapped = self.values.get(&v).copied();
        if mapped.is_none() {
            let name = self.src.ops[op].kind.name();
            self.diags.push(Diagnostic::error(
                self.src.op_location(op),
                format!("'{name}' uses a value whose definition could not be lowered"),
            ));
        }
        mapped
    }

    fn top_level(&mut self, item: OpId) {
        let src = self.src;
        if let Some(ct) = src.ops[item].kind.cuda_tile().filter(|ct| ct.op == CtOp::Global) {
            let (Some(sym_name), Some(tileir_ir::Attr::Dense(value))) = (ct.str("sym_name"), ct.get("value")) else {
                self.unsupported(item, "without a name and a dense value");
                return;
            };
            if value.shape.len() != 1 {
                self.unsupported(item, "with a value that is not rank 1");
                return;
            }
            let kind = TileAaOp::Global {
                sym_name: sym_name.to_string(),
                value: value.clone(),
                alignment: ct.int("alignment").unwrap_or(0),
                constant: ct.flag("constant"),
            };
            let loc = self.dst.locs.import(&src.locs, src.ops[item].loc);
            let g = self.dst.create_op(OpKind::TileAa(kind), vec![], &[], loc);
            let body = self.dst.body;
            self.dst.append_op(body, g);
            return;
        }
        let Some((sym_name, function_type)) = src.ops[item].kind.cuda_tile().and_then(|ct| match (ct.op, ct.get("function_type")) {
            (CtOp::Entry, Some(tileir_ir::Attr::Type(t))) => Some((ct.str("sym_name").unwrap_or_default(), t)),
            _ => None,
        }) else {
            self.unsupported(item, "inside cuda_tile.module");
            return;
        };
        let Type::Function { inputs, .. } = src.types.get(*function_type).clone() else { return };
        let lowered_inputs: Vec<TypeId> = inputs.iter().map(|&t| self.lower_type(t)).collect();
        let fty = self.dst.types.intern(Type::Function { inputs: lowered_inputs.clone(), results: vec![] });
        let loc = self.dst.locs.import(&src.locs, src.ops[item].loc);
        let func = self.dst.create_op(
            OpKind::TileAa(TileAaOp::Func {
                sym_name: sym_name.to_string(),
                function_type: fty,
                kernel: true,
                num_warps: None,
                hints: match src.ops[item].kind.cuda_tile().and_then(|c| c.get("optimization_hints")) {
                    Some(tileir_ir::Attr::Dict(h)) => Some(h.clone()),
                    _ => None,
                },
            }),
            vec![],
            &[],
            loc,
        );
        let body = self.dst.body;
        self.dst.append_op(body, func);
        let region = self.dst.ops[func].regions[0];
        let block = self.dst.add_block(region, &lowered_inputs);
        let Some(src_block) = src.entry_block(item, 0) else { return };
        for (i, &arg) in src.blocks[src_block].args.iter().enumerate() {
            let new_arg = self.dst.blocks[block].args[i];
            if let Some(name) = &src.values[arg].name {
                self.dst.set_name(new_arg, name);
            }
            self.values.insert(arg, new_arg);
        }
        self.convert_block_ops(src_block, block);
    }

    fn convert_block_ops(&mut self, src_block: tileir_ir::BlockId, block: tileir_ir::BlockId) {
        for &op in &self.src.blocks[src_block].ops {
            self.body_op(op, block);
        }
    }

    /// Copies a residual cuda_tile op (arithmetic, math, shape, control flow: see
    /// [`tileir_ir::is_residual_cuda_tile`]) with its operands mapped, its types lowered and
    /// its regions converted recursively.
    fn residual(&mut self, op: OpId, block: tileir_ir::BlockId, operands: Vec<ValueId>, result_types: &[TypeId]) -> OpId {
        let src = self.src;
        let data = &src.ops[op];
        let loc = self.dst.locs.import(&src.locs, data.loc);
        let new_op = {
            let mut b = Builder::at_end(&mut self.dst, block);
            b.op(data.kind.clone(), operands, result_types, loc)
        };
        for (ri, &region) in data.regions.iter().enumerate() {
            let new_region = self.dst.ops[new_op].regions[ri];
            for &src_inner in &src.regions[region].blocks {
                let arg_types: Vec<TypeId> =
                    src.blocks[src_inner].args.iter().map(|&a| self.lower_type(src.value_type(a))).collect();
                let inner = self.dst.add_block(new_region, &arg_types);
                for (i, &arg) in src.blocks[src_inner].args.iter().enumerate() {
                    let new_arg = self.dst.blocks[inner].args[i];
                    self.name_like(arg, new_arg);
                    self.values.insert(arg, new_arg);
                }
                self.convert_block_ops(src_inner, inner);
            }
        }
        new_op
    }

    fn body_op(&mut self, op: OpId, block: tileir_ir::BlockId) {
        let src = self.src;
        let data = src.ops[op].clone();
        let OpKind::CudaTile(kind) = &data.kind else {
            self.unsupported(op, "inside a cuda_tile entry");
            return;
        };
        let loc = self.dst.locs.import(&src.locs, data.loc);
        let result_types: Vec<TypeId> = data.results.iter().map(|&r| self.lower_type(src.value_type(r))).collect();
        let mut operands = Vec::new();
        for &v in &data.operands {
            match self.values.get(&v) {
                Some(&nv) => operands.push(nv),
                None if self.views.contains_key(&v) => {}
                None => {
                    self.map(op, v);
                    return;
                }
            }
        }
        let emit = |cx: &mut Self, kind: TileAaOp, operands: Vec<ValueId>, tys: &[TypeId]| -> OpId {
            let mut b = Builder::at_end(&mut cx.dst, block);
            b.op(OpKind::TileAa(kind), operands, tys, loc)
        };
        let new_op = match kind.op {
            CtOp::Module | CtOp::Entry => {
                self.unsupported(op, "nested in an entry");
                return;
            }
            // The kernel's end, or an early return inside `if`s (a bounds guard).
            CtOp::Return if returns_from_entry(src, op) => {
                emit(self, TileAaOp::Return, vec![], &[])
            }
            CtOp::MakeToken => emit(self, TileAaOp::CreateMemToken, vec![], &result_types),
            CtOp::GetGlobal => {
                let name = kind.str("name").unwrap_or_default().to_string();
                emit(self, TileAaOp::GetGlobal { name }, vec![], &result_types)
            }
            CtOp::GetTileBlockId | CtOp::GetNumTileBlocks => {
                let i32t = self.dst.types.scalar(tileir_ir::NumType::I32);
                for (dim, &r) in data.results.iter().enumerate() {
                    let k = if kind.op == CtOp::GetTileBlockId {
                        TileAaOp::GetProgramId { dim: dim as u8 }
                    } else {
                        TileAaOp::GetNumPrograms { dim: dim as u8 }
                    };
                    let o = emit(self, k, vec![], &[i32t]);
                    let nv = self.dst.result(o, 0);
                    self.name_like(r, nv);
                    self.values.insert(r, nv);
                }
                return;
            }
            CtOp::Assume => {
                // A pointer's alignment is folded into the memrefs made from it; a fact about
                // an integer (a stride's divisibility) stays as a residual `assume`, which
                // convert-tileaa-to-tileas reads when it picks vector widths.
                let v = operands[0];
                if matches!(self.dst.types.get(self.dst.value_type(v)), Type::AaPtr { .. }) {
                    if let Some(AssumePredicate::DivBy { divisor: n, every_along: None }) = kind.predicate() {
                        let known = self.alignment.get(&v).copied().unwrap_or(0);
                        let a = (*n).min(1 << 16) as u32;
                        self.alignment.insert(v, known.max(a));
                    }
                    self.values.insert(data.results[0], v);
                    return;
                }
                self.residual(op, block, operands, &result_types)
            }
            CtOp::MakeTensorView => {
                let (num_dyn_shape, num_dyn_strides) = (&kind.segments[1], &kind.segments[2]);
                let Type::TensorView(tv) = src.types.get(src.value_type(data.results[0])).clone() else { return };
                let memref_ty = self.dst.types.intern(Type::MemRef {
                    elem: tv.elem,
                    shape: tv.shape.clone(),
                    strides: tv.strides.clone(),
                    addr_space: 1,
                });
                let base_alignment = self.alignment.get(&operands[0]).copied().unwrap_or(0);
                let mut dynamic = operands[1..].iter().copied();
                let mut extents = |dims: &[tileir_ir::Dim]| -> Vec<Extent> {
                    dims.iter()
                        .map(|d| match d {
                            tileir_ir::Dim::Static(v) => Extent::Static(*v),
                            tileir_ir::Dim::Dynamic => dynamic.next().map(Extent::Dynamic).unwrap_or(Extent::Static(0)),
                        })
                        .collect()
                };
                let sizes = extents(&tv.shape);
                let strides = extents(&tv.strides);
                let new_op = emit(
                    self,
                    TileAaOp::MakeMemref { num_dyn_sizes: *num_dyn_shape, num_dyn_strides: *num_dyn_strides, base_alignment },
                    operands.clone(),
                    &[memref_ty],
                );
                let info = MemrefInfo { base: operands[0], sizes, strides, elem: tv.elem, base_alignment };
                self.memrefs.insert(self.dst.result(new_op, 0), info);
                new_op
            }
            CtOp::GetTensorShape | CtOp::GetIndexSpaceShape => {
                let view = data.operands[0];
                let (memref, tile, step, sparse) = match (self.views.get(&view), self.values.get(&view)) {
                    (Some(v), _) => (v.memref, Some(v.tile.clone()), v.origin_step.clone(), v.sparse_dim),
                    (None, Some(&m)) => (m, None, None, None),
                    _ => {
                        self.unsupported(op, "on a view tileir cannot lower");
                        return;
                    }
                };
                let Some(info) = self.memrefs.get(&memref).cloned() else {
                    self.unsupported(op, "on a view not made by make_tensor_view");
                    return;
                };
                for (d, &r) in data.results.iter().enumerate() {
                    let rty = result_types[d];
                    let Some(&size) = info.sizes.get(d) else { return };
                    let mut v = self.extent_value(size, rty, block, loc);
                    if kind.op == CtOp::GetIndexSpaceShape && sparse == Some(d) {
                        // A gather/scatter view's index space is 1 along its gathered dimension.
                        v = self.int_constant(1, rty, block, loc);
                    } else if kind.op == CtOp::GetIndexSpaceShape && step.is_some() {
                        // A strided view needs ceil((size - tile) / step) + 1 origins.
                        let t = tile.as_ref().map(|t| t[d]).unwrap_or(1);
                        let st = step.as_ref().map(|s| s[d]).unwrap_or(1);
                        let tv = self.int_constant(t, rty, block, loc);
                        let sv = self.int_constant(st, rty, block, loc);
                        let one = self.int_constant(1, rty, block, loc);
                        let signed = tileir_ir::Attr::Enum(tileir_ir::Signedness::MNEMONIC, "signed");
                        let mut b = Builder::at_end(&mut self.dst, block);
                        let diff = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::SubI)), vec![v, tv], rty, loc);
                        let div = CudaTileOp::new(CtOp::DivI)
                            .with("signedness", signed)
                            .with("rounding", tileir_ir::Attr::Enum(tileir_ir::RoundingMode::MNEMONIC, "positive_inf"));
                        let q = b.value(OpKind::CudaTile(div), vec![diff, sv], rty, loc);
                        v = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::AddI)), vec![q, one], rty, loc);
                    } else if kind.op == CtOp::GetIndexSpaceShape {
                        let t = tile.as_ref().map(|t| t[d]).unwrap_or(1);
                        let tv = self.int_constant(t, rty, block, loc);
                        let div = CudaTileOp::new(CtOp::DivI)
                            .with("signedness", tileir_ir::Attr::Enum(tileir_ir::Signedness::MNEMONIC, "unsigned"))
                            .with("rounding", tileir_ir::Attr::Enum(tileir_ir::RoundingMode::MNEMONIC, "positive_inf"));
                        let mut b = Builder::at_end(&mut self.dst, block);
                        v = b.value(OpKind::CudaTile(div), vec![v, tv], rty, loc);
                    }
                    self.name_like(r, v);
                    self.values.insert(r, v);
                }
                return;
            }
            CtOp::MakePartitionView => {
                let Type::PartitionView(pv) = src.types.get(src.value_type(data.results[0])).clone() else { return };
                let identity = pv.dim_map.iter().enumerate().all(|(i, &d)| d == i as i64);
                let memref = if identity {
                    operands[0]
                } else {
                    // Tile dimension i walks tensor dimension dim_map[i]: a memref with
                    // permuted sizes and strides makes the view an identity one.
                    let Some(info) = self.memrefs.get(&operands[0]).cloned() else {
                        self.unsupported(op, "with a dim_map over a tensor view not made by make_tensor_view");
                        return;
                    };
                    self.permuted_memref(&info, &pv.dim_map, block, loc)
                };
                self.views.insert(data.results[0], ViewInfo { memref, padding: pv.padding, tile: pv.tile_shape.clone(), origin_step: None, sparse_dim: None });
                return;
            }
            CtOp::MakeStridedView => {
                let Type::StridedView(sv) = src.types.get(src.value_type(data.results[0])).clone() else { return };
                let rank = sv.tile_shape.len();
                let dim_map: Vec<i64> = if sv.dim_map.is_empty() { (0..rank as i64).collect() } else { sv.dim_map.clone() };
                let identity = dim_map.iter().enumerate().all(|(i, &d)| d == i as i64);
                let memref = if identity {
                    operands[0]
                } else {
                    let Some(info) = self.memrefs.get(&operands[0]).cloned() else {
                        self.unsupported(op, "with a dim_map over a tensor view not made by make_tensor_view");
                        return;
                    };
                    self.permuted_memref(&info, &dim_map, block, loc)
                };
                // Traversal strides are given per tensor dimension; tile dimension i walks
                // tensor dimension dim_map[i].
                let step: Vec<i64> = dim_map.iter().map(|&d| sv.traversal_strides.get(d as usize).copied().unwrap_or(1)).collect();
                self.views.insert(
                    data.results[0],
                    ViewInfo { memref, padding: sv.padding, tile: sv.tile_shape.clone(), origin_step: Some(step), sparse_dim: None },
                );
                return;
            }
            CtOp::MakeGatherScatterView => {
                let Type::GatherScatterView(gv) = src.types.get(src.value_type(data.results[0])).clone() else { return };
                let rank = gv.tile_shape.len();
                let Some(sd) = usize::try_from(gv.sparse_dim).ok().filter(|&d| d < rank) else {
                    self.unsupported(op, "with a sparse_dim outside the tile's rank");
                    return;
                };
                self.views.insert(
                    data.results[0],
                    ViewInfo { memref: operands[0], padding: gv.padding, tile: gv.tile_shape.clone(), origin_step: None, sparse_dim: Some(sd) },
                );
                return;
            }
            CtOp::LoadViewTko | CtOp::StoreViewTko | CtOp::AtomicRedViewTko
                if data.operands.first().and_then(|v| self.views.get(v)).is_some_and(|v| v.sparse_dim.is_some())
                    || data.operands.get(1).and_then(|v| self.views.get(v)).is_some_and(|v| v.sparse_dim.is_some())
                    || kind.op == CtOp::AtomicRedViewTko =>
            {
                // Gathers, scatters and view reductions address each element on its own: a
                // tile of pointers and an in-bounds mask feed the pointer ops.
                let Some(new_op) = self.view_through_pointers(op, kind, &operands, &result_types, block, loc) else { return };
                new_op
            }
            CtOp::LoadViewTko | CtOp::StoreViewTko => {
                let is_load = kind.op == CtOp::LoadViewTko;
                let view_operand = data.operands[if is_load { 0 } else { 1 }];
                let Some(view) = self.views.get(&view_operand).cloned() else {
                    self.unsupported(op, "on a view not made by make_partition_view");
                    return;
                };
                let leading = if is_load { 1 } else { 2 };
                let ordering = kind.enum_attr("memory_ordering_semantics").unwrap_or(MemoryOrdering::Weak);
                let scope = kind.enum_attr("memory_scope");
                let (num_indices, has_token) = (kind.segments[leading], kind.segments[leading + 1] > 0);
                let access = TiledAccess {
                    ordering,
                    scope,
                    padding: if is_load { view.padding } else { None },
                    num_indices,
                    has_token,
                    origin_step: view.origin_step.clone(),
                };
                // operands (views skipped): load: indices…, token? ; store: tile, indices…, token?
                let mut new_operands = vec![view.memref];
                new_operands.extend(operands);
                let kind = if is_load { TileAaOp::TiledLoad(access) } else { TileAaOp::TiledStore(access) };
                let mut tys = result_types.clone();
                if !is_load {
                    // token result only
                    tys = vec![self.dst.types.mem_token()];
                } else {
                    tys[1] = self.dst.types.mem_token();
                }
                emit(self, kind, new_operands, &tys)
            }
            CtOp::AddF => emit(self, TileAaOp::AddF(FloatArith::of(kind)), operands, &result_types),
            CtOp::SubF => emit(self, TileAaOp::SubF(FloatArith::of(kind)), operands, &result_types),
            CtOp::MulF => emit(self, TileAaOp::MulF(FloatArith::of(kind)), operands, &result_types),
            c if tileir_ir::is_residual_cuda_tile(c) => self.residual(op, block, operands, &result_types),
            _ => {
                self.unsupported(op, "in a kernel");
                return;
            }
        };
        for (i, &r) in data.results.iter().enumerate() {
            let nv = self.dst.result(new_op, i);
            self.name_like(r, nv);
            self.values.insert(r, nv);
        }
    }

    /// A residual cuda_tile op with one result, appended to `block`.
    fn ct(&mut self, c: CudaTileOp, operands: Vec<ValueId>, ty: TypeId, block: tileir_ir::BlockId, loc: tileir_ir::LocId) -> ValueId {
        let mut b = Builder::at_end(&mut self.dst, block);
        b.value(OpKind::CudaTile(c), operands, ty, loc)
    }

    /// `v` (an integer scalar or tile) zero-extended to i64 elements of type `ty`: view
    /// indices are unsigned.
    fn widen_unsigned(&mut self, v: ValueId, ty: TypeId, block: tileir_ir::BlockId, loc: tileir_ir::LocId) -> ValueId {
        let is_i64 = match self.dst.types.get(self.dst.value_type(v)) {
            Type::Scalar(n) => *n == tileir_ir::NumType::I64,
            Type::Tile { elem, .. } => *elem == TileElem::Num(tileir_ir::NumType::I64),
            _ => false,
        };
        if is_i64 {
            return v;
        }
        let c = CudaTileOp::new(CtOp::ExtI).with("signedness", tileir_ir::Attr::Enum(tileir_ir::Signedness::MNEMONIC, "unsigned"));
        self.ct(c, vec![v], ty, block, loc)
    }

    /// Lowers `load_view_tko`/`store_view_tko` on a gather/scatter view and
    /// `atomic_red_view_tko` on any view to the pointer ops (`load_ptr_tko`, `store_ptr_tko`,
    /// `atomic_rmw_tko`) over a tile of element pointers and an in-bounds mask, so that
    /// out-of-range elements read the view's padding and are never written.
    fn view_through_pointers(
        &mut self,
        op: OpId,
        kind: &CudaTileOp,
        operands: &[ValueId],
        result_types: &[TypeId],
        block: tileir_ir::BlockId,
        loc: tileir_ir::LocId,
    ) -> Option<OpId> {
        use tileir_ir::NumType;
        let src = self.src;
        let data = &src.ops[op];
        let view_pos = if kind.op == CtOp::StoreViewTko { 1 } else { 0 };
        let Some(view) = data.operands.get(view_pos).and_then(|v| self.views.get(v)).cloned() else {
            self.unsupported(op, "on a view tileir cannot lower");
            return None;
        };
        let Some(info) = self.memrefs.get(&view.memref).cloned() else {
            self.unsupported(op, "on a view over a tensor view not made by make_tensor_view");
            return None;
        };
        let rank = view.tile.len();
        let seg = |i: usize| kind.segments.get(i).copied().unwrap_or(0) as usize;
        // Operands without the view: load: index…, token? ; store: tile, index…, token? ;
        // atomic: index…, value, token?
        let (first_index, num_indices, has_token) = match kind.op {
            CtOp::StoreViewTko => (1, seg(2), seg(3) > 0),
            CtOp::AtomicRedViewTko => (0, seg(1), seg(3) > 0),
            _ => (0, seg(1), seg(2) > 0),
        };
        if num_indices != rank || info.sizes.len() != rank || operands.len() < first_index + num_indices {
            self.unsupported(op, &format!("with {num_indices} indices on a rank-{rank} view"));
            return None;
        }
        let indices = operands[first_index..first_index + num_indices].to_vec();
        let token = if has_token { operands.last().copied() } else { None };
        let shape = view.tile.clone();
        let i64s = self.dst.types.scalar(NumType::I64);
        let t_i64 = self.dst.types.tile(&shape, TileElem::Num(NumType::I64));
        let t_i1 = self.dst.types.tile(&shape, TileElem::Num(NumType::I1));
        let unsigned = tileir_ir::Attr::Enum(tileir_ir::Signedness::MNEMONIC, "unsigned");
        let mut offset: Option<ValueId> = None;
        let mut mask: Option<ValueId> = None;
        for (d, &idx) in indices.iter().enumerate() {
            let n = shape[d];
            let mut line = vec![1i64; rank];
            line[d] = n;
            let t_line = self.dst.types.tile(&line, TileElem::Num(NumType::I64));
            let t_1d = self.dst.types.tile(&[n], TileElem::Num(NumType::I64));
            // Coordinates along tensor dimension d of every tile position, as a 1-D tile
            // stretched over the tile's shape.
            let coord = if view.sparse_dim == Some(d) {
                let wide = self.widen_unsigned(idx, t_1d, block, loc);
                let r = self.ct(CudaTileOp::new(CtOp::Reshape), vec![wide], t_line, block, loc);
                self.ct(CudaTileOp::new(CtOp::Broadcast), vec![r], t_i64, block, loc)
            } else {
                let step = view.origin_step.as_ref().and_then(|s| s.get(d).copied()).unwrap_or(n);
                let o = self.widen_unsigned(idx, i64s, block, loc);
                let sc = self.int_constant(step, i64s, block, loc);
                let origin = self.ct(CudaTileOp::new(CtOp::MulI), vec![o, sc], i64s, block, loc);
                let io = self.ct(CudaTileOp::new(CtOp::Iota), vec![], t_1d, block, loc);
                let r = self.ct(CudaTileOp::new(CtOp::Reshape), vec![io], t_line, block, loc);
                let b = self.ct(CudaTileOp::new(CtOp::Broadcast), vec![r], t_i64, block, loc);
                let ob = self.ct(CudaTileOp::new(CtOp::Broadcast), vec![origin], t_i64, block, loc);
                self.ct(CudaTileOp::new(CtOp::AddI), vec![b, ob], t_i64, block, loc)
            };
            let size = self.extent_value(info.sizes[d], i64s, block, loc);
            let size_b = self.ct(CudaTileOp::new(CtOp::Broadcast), vec![size], t_i64, block, loc);
            let cmp = CudaTileOp::new(CtOp::CmpI)
                .with("comparison_predicate", tileir_ir::Attr::Enum(tileir_ir::ComparisonPredicate::MNEMONIC, "less_than"))
                .with("signedness", unsigned.clone());
            let inb = self.ct(cmp, vec![coord, size_b], t_i1, block, loc);
            mask = Some(match mask {
                Some(m) => self.ct(CudaTileOp::new(CtOp::AndI), vec![m, inb], t_i1, block, loc),
                None => inb,
            });
            let stride = self.extent_value(info.strides[d], i64s, block, loc);
            let stride_b = self.ct(CudaTileOp::new(CtOp::Broadcast), vec![stride], t_i64, block, loc);
            let term = self.ct(CudaTileOp::new(CtOp::MulI), vec![coord, stride_b], t_i64, block, loc);
            offset = Some(match offset {
                Some(o) => self.ct(CudaTileOp::new(CtOp::AddI), vec![o, term], t_i64, block, loc),
                None => term,
            });
        }
        let (Some(offset), Some(mask)) = (offset, mask) else {
            self.unsupported(op, "on a rank-0 view");
            return None;
        };
        let t_ptr = self.dst.types.tile(&shape, TileElem::Ptr(info.elem));
        let base = self.ct(CudaTileOp::new(CtOp::Broadcast), vec![info.base], t_ptr, block, loc);
        let ptrs = self.ct(CudaTileOp::new(CtOp::Offset), vec![base, offset], t_ptr, block, loc);
        let token_ty = self.dst.types.mem_token();
        let copy_attrs = |mut c: CudaTileOp, names: &[&str]| {
            for &name in names {
                if let Some(a) = kind.get(name) {
                    c = c.with(name, a.clone());
                }
            }
            c
        };
        let t = u32::from(token.is_some());
        let (c, mut ops, tys) = match kind.op {
            CtOp::LoadViewTko => {
                let elem_ty = result_types.first().copied()?;
                let pad_bits = padding_bits(info.elem, view.padding);
                let dense = tileir_ir::DenseElements { elem: info.elem, shape: shape.clone(), bits: vec![pad_bits] };
                let pad = self.ct(CudaTileOp::new(CtOp::Constant).with("value", tileir_ir::Attr::Dense(dense)), vec![], elem_ty, block, loc);
                let c = copy_attrs(CudaTileOp::new(CtOp::LoadPtrTko), &["memory_ordering_semantics", "memory_scope", "optimization_hints"])
                    .with_segments(&[1, 1, 1, t]);
                (c, vec![ptrs, mask, pad], vec![elem_ty, token_ty])
            }
            CtOp::StoreViewTko => {
                let c = copy_attrs(CudaTileOp::new(CtOp::StorePtrTko), &["memory_ordering_semantics", "memory_scope", "optimization_hints"])
                    .with_segments(&[1, 1, 1, t]);
                let &value = operands.first()?;
                (c, vec![ptrs, value, mask], vec![token_ty])
            }
            _ => {
                if kind.enum_attr::<tileir_ir::AtomicRmwMode>("mode") == Some(tileir_ir::AtomicRmwMode::Xchg) {
                    self.unsupported(op, "with mode xchg");
                    return None;
                }
                let Some(&value) = operands.get(first_index + num_indices) else {
                    self.unsupported(op, "without a value operand");
                    return None;
                };
                let value_ty = self.dst.value_type(value);
                let c = copy_attrs(CudaTileOp::new(CtOp::AtomicRmwTko), &["memory_ordering_semantics", "memory_scope", "mode"])
                    .with_segments(&[1, 1, 1, t]);
                (c, vec![ptrs, value, mask], vec![value_ty, token_ty])
            }
        };
        ops.extend(token);
        let new_op = {
            let mut b = Builder::at_end(&mut self.dst, block);
            b.op(OpKind::CudaTile(c), ops, &tys, loc)
        };
        if kind.op == CtOp::AtomicRedViewTko {
            // Only the token is a result of the view reduction: a forwarding op keeps the
            // caller's result mapping (result i of the new op) uniform.
            let tok = self.dst.result(new_op, 1);
            let join = {
                let mut b = Builder::at_end(&mut self.dst, block);
                b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::JoinTokens)), vec![tok], &[token_ty], loc)
            };
            return Some(join);
        }
        Some(new_op)
    }

    /// A memref over the same memory whose dimension i is `info`'s dimension `perm[i]`.
    fn permuted_memref(&mut self, info: &MemrefInfo, perm: &[i64], block: tileir_ir::BlockId, loc: tileir_ir::LocId) -> ValueId {
        let pick = |v: &[Extent]| -> Vec<Extent> { perm.iter().map(|&p| v[p as usize]).collect() };
        let (sizes, strides) = (pick(&info.sizes), pick(&info.strides));
        let dims = |v: &[Extent]| -> Vec<tileir_ir::Dim> {
            v.iter()
                .map(|e| match e {
                    Extent::Static(x) => tileir_ir::Dim::Static(*x),
                    Extent::Dynamic(_) => tileir_ir::Dim::Dynamic,
                })
                .collect()
        };
        let dyn_of = |v: &[Extent]| -> Vec<ValueId> {
            v.iter().filter_map(|e| if let Extent::Dynamic(x) = e { Some(*x) } else { None }).collect()
        };
        let (ds, dt) = (dyn_of(&sizes), dyn_of(&strides));
        let ty = self.dst.types.intern(Type::MemRef { elem: info.elem, shape: dims(&sizes), strides: dims(&strides), addr_space: 1 });
        let mut operands = vec![info.base];
        operands.extend(&ds);
        operands.extend(&dt);
        let kind = TileAaOp::MakeMemref {
            num_dyn_sizes: ds.len() as u32,
            num_dyn_strides: dt.len() as u32,
            base_alignment: info.base_alignment,
        };
        let mut b = Builder::at_end(&mut self.dst, block);
        let v = b.value(OpKind::TileAa(kind), operands, ty, loc);
        self.memrefs.insert(v, MemrefInfo { base: info.base, sizes, strides, elem: info.elem, base_alignment: info.base_alignment });
        v
    }

    /// An integer constant of (scalar) type `ty` as a residual cuda_tile constant.
    fn int_constant(&mut self, value: i64, ty: TypeId, block: tileir_ir::BlockId, loc: tileir_ir::LocId) -> ValueId {
        let n = match self.dst.types.get(ty) {
            Type::Scalar(n) => *n,
            _ => tileir_ir::NumType::I64,
        };
        let dense = tileir_ir::DenseElements { elem: n, shape: vec![], bits: vec![value as u64] };
        let c = CudaTileOp::new(CtOp::Constant).with("value", tileir_ir::Attr::Dense(dense));
        let mut b = Builder::at_end(&mut self.dst, block);
        b.value(OpKind::CudaTile(c), vec![], ty, loc)
    }

    /// A memref extent as a value of integer type `ty` (converted if its type differs).
    fn extent_value(&mut self, e: Extent, ty: TypeId, block: tileir_ir::BlockId, loc: tileir_ir::LocId) -> ValueId {
        match e {
            Extent::Static(v) => self.int_constant(v, ty, block, loc),
            Extent::Dynamic(v) => {
                let from = self.dst.value_type(v);
                if from == ty {
                    return v;
                }
                let bits = |t: &Type| match t {
                    Type::Scalar(n) => n.storage_bytes(),
                    _ => 8,
                };
                let (fb, tb) = (bits(self.dst.types.get(from)), bits(self.dst.types.get(ty)));
                let op = if fb > tb {
                    CudaTileOp::new(CtOp::TruncI)
                } else {
                    CudaTileOp::new(CtOp::ExtI).with("signedness", tileir_ir::Attr::Enum(tileir_ir::Signedness::MNEMONIC, "unsigned"))
                };
                let mut b = Builder::at_end(&mut self.dst, block);
                b.value(OpKind::CudaTile(op), vec![v], ty, loc)
            }
        }
    }

    fn name_like(&mut self, old: ValueId, new: ValueId) {
        if let Some(name) = &self.src.values[old].name {
            self.dst.set_name(new, name);
        }
    }
}

/// The bit pattern a view's padding value has in element type `n` (zero when none is given,
/// as the interpreter reads out-of-bounds elements).
fn padding_bits(n: tileir_ir::NumType, pad: Option<PaddingValue>) -> u64 {
    use tileir_ir::NumType as N;
    let pad = pad.unwrap_or(PaddingValue::Zero);
    if n.is_int() {
        return 0;
    }
    match (n, pad) {
        (_, PaddingValue::Zero) => 0,
        (N::F16 | N::BF16, PaddingValue::NegZero) => 0x8000,
        (N::F16, PaddingValue::Nan) => 0x7E00,
        (N::F16, PaddingValue::PosInf) => 0x7C00,
        (N::F16, PaddingValue::NegInf) => 0xFC00,
        (N::BF16, PaddingValue::Nan) => 0x7FC0,
        (N::BF16, PaddingValue::PosInf) => 0x7F80,
        (N::BF16, PaddingValue::NegInf) => 0xFF80,
        (N::F32 | N::TF32, PaddingValue::NegZero) => 0x8000_0000,
        (N::F32 | N::TF32, PaddingValue::Nan) => 0x7FC0_0000,
        (N::F32 | N::TF32, PaddingValue::PosInf) => 0x7F80_0000,
        (N::F32 | N::TF32, PaddingValue::NegInf) => 0xFF80_0000,
        (N::F64, PaddingValue::NegZero) => 0x8000_0000_0000_0000,
        (N::F64, PaddingValue::Nan) => 0x7FF8_0000_0000_0000,
        (N::F64, PaddingValue::PosInf) => 0x7FF0_0000_0000_0000,
        (N::F64, PaddingValue::NegInf) => 0xFFF0_0000_0000_0000,
        _ => 0,
    }
}

/// Whether the `return` `op` ends the kernel: it sits in the entry's body, directly or inside
/// `if`s only (a return from a loop body is not lowered).
fn returns_from_entry(src: &tileir_ir::Module, op: OpId) -> bool {
    let mut at = src.parent_op(op);
    while let Some(p) = at {
        match src.ops[p].kind.ct() {
            Some(CtOp::Entry) => return true,
            Some(CtOp::If) => at = src.parent_op(p),
            _ => return false,
        }
    }
    false
}
