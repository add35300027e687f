//! IR helpers shared by the async pipeline passes: loop anatomy, building scalar index
//! arithmetic and structured control flow inside lowered (nv_tileaa/nv_tileas) functions,
//! and re-creating ops with extra operands, results and block arguments.

use tileir_ir::dialect::cuda_tile::schema::traits;
use tileir_ir::{
    Attr, BlockId, ComparisonPredicate, CtOp, CudaTileOp, DenseElements, LocId, Module, NumType, OpId, OpKind,
    Signedness, TileAsOp, Type, TypeId, ValueDef, ValueId,
};

/// The parts of a `cuda_tile.for`.
#[derive(Clone, Debug)]
pub(crate) struct ForLoop {
    pub op: OpId,
    pub lb: ValueId,
    pub ub: ValueId,
    pub step: ValueId,
    /// Initial values of the carried iter values.
    pub inits: Vec<ValueId>,
    pub body: BlockId,
    pub iv: ValueId,
    /// Block arguments of the carried values.
    pub carried: Vec<ValueId>,
    /// Whether the bound comparison is unsigned.
    pub unsigned: bool,
}

impl ForLoop {
    pub fn of(m: &Module, op: OpId) -> Option<ForLoop> {
        let ct = m.ops[op].kind.cuda_tile().filter(|c| c.op == CtOp::For)?;
        let ops = &m.ops[op].operands;
        if ops.len() < 3 {
            return None;
        }
        let body = m.entry_block(op, 0)?;
        let args = &m.blocks[body].args;
        Some(ForLoop {
            op,
            lb: ops[0],
            ub: ops[1],
            step: ops[2],
            inits: ops[3..].to_vec(),
            body,
            iv: *args.first()?,
            carried: args[1..].to_vec(),
            unsigned: ct.flag("unsignedCmp"),
        })
    }

    /// The `continue` ending the body, if it has one.
    pub fn terminator(&self, m: &Module) -> Option<OpId> {
        m.blocks[self.body].ops.last().copied().filter(|&t| m.ops[t].kind.ct() == Some(CtOp::Continue))
    }
}

/// Whether `v` is defined inside `op` (in one of its regions, at any depth).
pub(crate) fn defined_inside(m: &Module, v: ValueId, op: OpId) -> bool {
    let block = match m.values[v].def {
        ValueDef::OpResult { op: d, .. } => match m.ops[d].parent {
            Some(b) => b,
            None => return false,
        },
        ValueDef::BlockArg { block, .. } => block,
    };
    let mut owner = m.parent_op_of_block(block);
    while let Some(o) = owner {
        if o == op {
            return true;
        }
        owner = m.parent_op(o);
    }
    false
}

/// Values used inside `op`'s regions but defined outside `op`.
pub(crate) fn captured_values(m: &Module, op: OpId) -> Vec<ValueId> {
    let mut out = Vec::new();
    let mut stack: Vec<OpId> = Vec::new();
    for &r in &m.ops[op].regions {
        for &b in &m.regions[r].blocks {
            stack.extend(m.blocks[b].ops.iter().copied());
        }
    }
    while let Some(inner) = stack.pop() {
        for &v in &m.ops[inner].operands {
            if !defined_inside(m, v, op) && !out.contains(&v) {
                out.push(v);
            }
        }
        for &r in &m.ops[inner].regions {
            for &b in &m.regions[r].blocks {
                stack.extend(m.blocks[b].ops.iter().copied());
            }
        }
    }
    out
}

/// Appends a block argument of type `ty` to `block`.
pub(crate) fn append_block_arg(m: &mut Module, block: BlockId, ty: TypeId) -> ValueId {
    let index = m.blocks[block].args.len() as u32;
    let v = m.values.push(tileir_ir::module::ValueData { ty, def: ValueDef::BlockArg { block, index }, name: None });
    m.blocks[block].args.push(v);
    v
}

/// Re-creates `op` with extra operands and extra result types (regions move over; the
/// old results' uses go to the new op's leading results). Returns the new op.
pub(crate) fn rebuild_with_extra(m: &mut Module, op: OpId, extra_operands: &[ValueId], extra_results: &[TypeId]) -> OpId {
    let data = m.ops[op].clone();
    let mut operands = data.operands.clone();
    operands.extend_from_slice(extra_operands);
    let mut types: Vec<TypeId> = data.results.iter().map(|&r| m.value_type(r)).collect();
    types.extend_from_slice(extra_results);
    let mut kind = data.kind.clone();
    if let OpKind::CudaTile(ct) = &mut kind {
        if ct.op == CtOp::For && ct.schema().has(traits::SEGMENTED) {
            let n = operands.len().saturating_sub(3) as u32;
            *ct = ct.clone().with_segments(&[1, 1, 1, n]);
        }
    }
    let new = m.create_op(kind, operands, &types, data.loc);
    for (from, to) in data.regions.iter().zip(m.ops[new].regions.clone()) {
        m.move_region_blocks(*from, to);
    }
    for (i, &r) in data.results.iter().enumerate() {
        let nr = m.ops[new].results[i];
        m.values[nr].name = m.values[r].name.clone();
        m.replace_all_uses(r, nr);
    }
    m.insert_op_before(op, new);
    m.detach_op(op);
    new
}

/// Where new ops go: before `anchor` (or at the end of `block` when `anchor` is `None`).
pub(crate) struct Builder<'m> {
    pub m: &'m mut Module,
    pub anchor: Option<OpId>,
    pub block: BlockId,
    pub loc: LocId,
}

impl<'m> Builder<'m> {
    /// Inserting before `anchor`.
    pub fn before(m: &'m mut Module, anchor: OpId) -> Builder<'m> {
        let block = m.ops[anchor].parent.expect("anchor is attached");
        let loc = m.ops[anchor].loc;
        Builder { m, anchor: Some(anchor), block, loc }
    }
    /// Appending to `block`.
    pub fn at_end(m: &'m mut Module, block: BlockId, loc: LocId) -> Builder<'m> {
        Builder { m, anchor: None, block, loc }
    }

    pub fn place(&mut self, op: OpId) {
        match self.anchor {
            Some(a) => self.m.insert_op_before(a, op),
            None => self.m.append_op(self.block, op),
        }
    }

    pub fn op(&mut self, kind: OpKind, operands: Vec<ValueId>, types: &[TypeId]) -> OpId {
        let o = self.m.create_op(kind, operands, types, self.loc);
        self.place(o);
        o
    }

    pub fn value(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: TypeId) -> ValueId {
        let o = self.op(kind, operands, &[ty]);
        self.m.ops[o].results[0]
    }

    /// A scalar integer constant of the (scalar) type `ty`.
    pub fn int_const(&mut self, ty: TypeId, value: i64) -> ValueId {
        let elem = match self.m.types.get(ty) {
            Type::Scalar(n) => *n,
            Type::Tile { elem: tileir_ir::TileElem::Num(n), .. } => *n,
            _ => NumType::I32,
        };
        let width = elem.bit_width();
        let bits = if width >= 64 { value as u64 } else { (value as u64) & ((1u64 << width) - 1) };
        let c = CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(DenseElements { elem, shape: vec![], bits: vec![bits] }));
        self.value(OpKind::CudaTile(c), vec![], ty)
    }

    fn int_bin(&mut self, op: CtOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.m.value_type(a);
        self.value(OpKind::CudaTile(CudaTileOp::new(op)), vec![a, b], ty)
    }
    pub fn addi(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.int_bin(CtOp::AddI, a, b)
    }
    pub fn subi(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.int_bin(CtOp::SubI, a, b)
    }
    pub fn muli(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.int_bin(CtOp::MulI, a, b)
    }

    /// `a < b` (`a <= b` with `or_equal`), signed unless `unsigned`.
    pub fn less(&mut self, a: ValueId, b: ValueId, or_equal: bool, unsigned: bool) -> ValueId {
        let pred = if or_equal { ComparisonPredicate::LessThanOrEqual } else { ComparisonPredicate::LessThan };
        let sign = if unsigned { Signedness::Unsigned } else { Signedness::Signed };
        let c = CudaTileOp::new(CtOp::CmpI)
            .with("comparison_predicate", Attr::Enum(ComparisonPredicate::MNEMONIC, pred.keyword()))
            .with("signedness", Attr::Enum(Signedness::MNEMONIC, sign.keyword()));
        let i1 = self.m.types.scalar(NumType::I1);
        self.value(OpKind::CudaTile(c), vec![a, b], i1)
    }

    pub fn select(&mut self, c: ValueId, t: ValueId, f: ValueId) -> ValueId {
        let ty = self.m.value_type(t);
        self.value(OpKind::CudaTile(CudaTileOp::new(CtOp::Select)), vec![c, t, f], ty)
    }

    /// `if %cond -> (types) { then } else { else }`: returns the op and its two blocks
    /// (empty; the caller fills them and their `yield`s).
    pub fn if_op(&mut self, cond: ValueId, types: &[TypeId]) -> (OpId, BlockId, BlockId) {
        let o = self.op(OpKind::CudaTile(CudaTileOp::new(CtOp::If)), vec![cond], types);
        let r0 = self.m.ops[o].regions[0];
        let r1 = self.m.ops[o].regions[1];
        let then_b = self.m.add_block(r0, &[]);
        let else_b = self.m.add_block(r1, &[]);
        (o, then_b, else_b)
    }

    pub fn terminator(&mut self, which: CtOp, operands: Vec<ValueId>) -> OpId {
        self.op(OpKind::CudaTile(CudaTileOp::new(which)), operands, &[])
    }

    pub fn inc_iter(&mut self, it: ValueId) -> ValueId {
        let ty = self.m.value_type(it);
        self.value(OpKind::TileAs(TileAsOp::IncIter), vec![it], ty)
    }
}

/// Whether `op` (at any depth) writes memory or has another effect that forbids moving
/// loads across it.
pub(crate) fn has_side_effects(m: &Module, op: OpId) -> bool {
    let own = match &m.ops[op].kind {
        OpKind::TileAs(k) => matches!(
            k,
            TileAsOp::TiledStore { .. } | TileAsOp::AsyncTiledTmaStore | TileAsOp::AsyncScatterTmaStore | TileAsOp::AgentSwitch { .. }
        ),
        OpKind::TileAa(k) => matches!(
            k,
            tileir_ir::TileAaOp::TiledStore(_)
                | tileir_ir::TileAaOp::QueuePut
                | tileir_ir::TileAaOp::QueueGet { .. }
                | tileir_ir::TileAaOp::Execute { .. }
        ),
        OpKind::CudaTile(ct) => matches!(
            ct.op,
            CtOp::StoreViewTko
                | CtOp::StorePtrTko
                | CtOp::AtomicRmwTko
                | CtOp::AtomicCasTko
                | CtOp::AtomicRedViewTko
                | CtOp::PrintTko
                | CtOp::Assert
        ),
        OpKind::Unregistered(_) => true,
    };
    own || m.ops[op].regions.iter().any(|&r| m.regions[r].blocks.iter().any(|&b| m.blocks[b].ops.iter().any(|&o| has_side_effects(m, o))))
}

/// Re-types `pipe`'s pipeline with `stages` and/or `consumers` changed: the pipeline value
/// and every iterator over it, followed through `inc_iter` and the iter values, results and
/// yields of `for`/`if` (the values this pipeline's handles flow into — not other values
/// that merely share its type).
pub(crate) fn retype_pipeline(m: &mut Module, pipe: ValueId, stages: Option<u32>, consumers: Option<u32>) {
    let old = m.value_type(pipe);
    let Type::Pipeline { stages: s, consumers: c, elems } = m.types.get(old).clone() else { return };
    let new = m.types.intern(Type::Pipeline { stages: stages.unwrap_or(s), consumers: consumers.unwrap_or(c), elems });
    let old_it = m.types.intern(Type::PipelineIterator { pipeline: old });
    let new_it = m.types.intern(Type::PipelineIterator { pipeline: new });
    for v in pipeline_handles(m, pipe) {
        let t = m.values[v].ty;
        if t == old {
            m.values[v].ty = new;
        } else if t == old_it {
            m.values[v].ty = new_it;
        }
    }
}

/// `pipe` and the values its iterators flow into (see [`retype_pipeline`]).
fn pipeline_handles(m: &Module, pipe: ValueId) -> Vec<ValueId> {
    let mut set: std::collections::BTreeSet<ValueId> = std::collections::BTreeSet::from([pipe]);
    let ops = m.walk();
    loop {
        let before = set.len();
        for &op in &ops {
            let d = &m.ops[op];
            match &d.kind {
                OpKind::TileAs(TileAsOp::CreateIterator | TileAsOp::IncIter)
                    if d.operands.first().is_some_and(|v| set.contains(v)) =>
                {
                    set.extend(d.results.iter().copied());
                }
                OpKind::CudaTile(ct) if ct.op == CtOp::For => {
                    let Some(body) = m.entry_block(op, 0) else { continue };
                    for (k, v) in d.operands.iter().skip(3).enumerate() {
                        if set.contains(v) {
                            set.extend(m.blocks[body].args.get(k + 1).copied());
                            set.extend(d.results.get(k).copied());
                        }
                    }
                }
                OpKind::CudaTile(ct) if matches!(ct.op, CtOp::Continue | CtOp::Yield) => {
                    let Some(parent) = d.parent.and_then(|b| m.parent_op_of_block(b)) else { continue };
                    let pd = &m.ops[parent];
                    let is_for = pd.kind.ct() == Some(CtOp::For);
                    if !is_for && pd.kind.ct() != Some(CtOp::If) {
                        continue;
                    }
                    for (k, v) in d.operands.iter().enumerate() {
                        if set.contains(v) {
                            set.extend(pd.results.get(k).copied());
                            if is_for {
                                let body = m.entry_block(parent, 0);
                                set.extend(body.and_then(|b| m.blocks[b].args.get(k + 1).copied()));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if set.len() == before {
            return set.into_iter().collect();
        }
    }
}

/// [`retype_pipeline`] with a new stage count.
pub(crate) fn retype_pipeline_stages(m: &mut Module, pipe: ValueId, stages: u32) {
    retype_pipeline(m, pipe, Some(stages), None);
}

/// `op` and every op nested in it, in pre-order.
pub(crate) fn walk_op(m: &Module, op: OpId) -> Vec<OpId> {
    let mut out = vec![op];
    let mut i = 0;
    while i < out.len() {
        let o = out[i];
        for &r in &m.ops[o].regions {
            for &b in &m.regions[r].blocks {
                out.extend(m.blocks[b].ops.iter().copied());
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "!nv_tileas.pipeline<stages=1, consumers=1, [f32]>";

    /// Two pipelines of one type, each with an iterator: re-typing the first must leave the
    /// second (and its iterator) as it was.
    #[test]
    fn retyping_one_pipeline_leaves_a_same_typed_pipeline_alone() {
        let i = format!("!nv_tileas.iterator<{P}>");
        let src = format!(
            r#""nv_tileaa.func"() <{{function_type = () -> (), kernel, sym_name = "k"}}> ({{
  %a = "nv_tileas.async.pipeline.create_pipeline"() : () -> {P}
  %ia = "nv_tileas.async.pipeline.create_iterator"(%a) : ({P}) -> {i}
  %b = "nv_tileas.async.pipeline.create_pipeline"() : () -> {P}
  %ib = "nv_tileas.async.pipeline.create_iterator"(%b) : ({P}) -> {i}
  "nv_tileaa.return"() : () -> ()
}}) : () -> ()
"#
        );
        let opts = tileir_syntax::ParseOptions { file_name: "t.mlir".into(), ..Default::default() };
        let mut m = tileir_syntax::parse_module(&src, &opts).unwrap_or_else(|d| panic!("{d:?}"));
        let results_of = |m: &Module, kind: TileAsOp| -> Vec<ValueId> {
            m.walk().into_iter().filter(|&o| matches!(&m.ops[o].kind, OpKind::TileAs(k) if *k == kind)).map(|o| m.ops[o].results[0]).collect()
        };
        let pipes = results_of(&m, TileAsOp::CreatePipeline);
        let iters = results_of(&m, TileAsOp::CreateIterator);
        assert_eq!((pipes.len(), iters.len()), (2, 2));
        let (old_pipe, old_iter) = (m.value_type(pipes[1]), m.value_type(iters[1]));

        retype_pipeline_stages(&mut m, pipes[0], 3);

        let stages = |m: &Module, v: ValueId| match m.types.get(m.value_type(v)) {
            Type::Pipeline { stages, .. } => *stages,
            other => panic!("not a pipeline: {other:?}"),
        };
        assert_eq!(stages(&m, pipes[0]), 3);
        let Type::PipelineIterator { pipeline } = m.types.get(m.value_type(iters[0])).clone() else { panic!("not an iterator") };
        assert_eq!(pipeline, m.value_type(pipes[0]), "the first pipeline's iterator follows it");
        assert_eq!((m.value_type(pipes[1]), m.value_type(iters[1])), (old_pipe, old_iter), "the second pipeline is untouched");
    }
}
