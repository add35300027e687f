//! [`Module`]: the arena that owns every op, value, block and region of one compilation
//! unit, with its type and location tables.
//!
//! Structure follows MLIR: an op owns regions, a region owns blocks, a block owns block
//! arguments and an ordered op list. The module's `body` block is the implicit builtin
//! module. Ops removed from their block stay in the arena but are unreachable; the
//! printer, verifier and passes walk only what is reachable from `body`.

use crate::entity::PrimaryMap;
use crate::entity_id;
use crate::location::{LocId, LocTable, Location};
use crate::op::OpKind;
use crate::types::{TypeId, TypeTable};

entity_id!(
    /// An op in a [`Module`].
    OpId,
    "op"
);
entity_id!(
    /// An SSA value in a [`Module`].
    ValueId,
    "v"
);
entity_id!(
    /// A block in a [`Module`].
    BlockId,
    "block"
);
entity_id!(
    /// A region in a [`Module`].
    RegionId,
    "region"
);

/// Where a value is defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of `op`.
    OpResult {
        /// Defining op.
        op: OpId,
        /// Result index.
        index: u32,
    },
    /// Argument `index` of `block`.
    BlockArg {
        /// Owning block.
        block: BlockId,
        /// Argument index.
        index: u32,
    },
}

/// An SSA value.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// Its type.
    pub ty: TypeId,
    /// Its definition.
    pub def: ValueDef,
    /// A name for printing (`%a`), from the source when known.
    pub name: Option<String>,
}

/// An op.
#[derive(Clone, Debug)]
pub struct OpData {
    /// Which op, with its attributes.
    pub kind: OpKind,
    /// Operands.
    pub operands: Vec<ValueId>,
    /// Results.
    pub results: Vec<ValueId>,
    /// Owned regions.
    pub regions: Vec<RegionId>,
    /// Source location.
    pub loc: LocId,
    /// The block it sits in (None while detached).
    pub parent: Option<BlockId>,
}

/// A block.
#[derive(Clone, Debug, Default)]
pub struct BlockData {
    /// Block arguments.
    pub args: Vec<ValueId>,
    /// Ops in order.
    pub ops: Vec<OpId>,
    /// Owning region (None for the module body).
    pub parent: Option<RegionId>,
}

/// A region.
#[derive(Clone, Debug, Default)]
pub struct RegionData {
    /// Blocks in order (tile dialects use exactly one).
    pub blocks: Vec<BlockId>,
    /// Owning op.
    pub parent: Option<OpId>,
}

/// One compilation unit.
#[derive(Clone)]
pub struct Module {
    /// All ops ever created.
    pub ops: PrimaryMap<OpId, OpData>,
    /// All values.
    pub values: PrimaryMap<ValueId, ValueData>,
    /// All blocks.
    pub blocks: PrimaryMap<BlockId, BlockData>,
    /// All regions.
    pub regions: PrimaryMap<RegionId, RegionData>,
    /// Interned types.
    pub types: TypeTable,
    /// Interned locations.
    pub locs: LocTable,
    /// The top-level block (the implicit builtin module).
    pub body: BlockId,
}

impl Default for Module {
    fn default() -> Self {
        Module::new()
    }
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        let mut blocks = PrimaryMap::default();
        let body = blocks.push(BlockData::default());
        Module {
            ops: PrimaryMap::default(),
            values: PrimaryMap::default(),
            blocks,
            regions: PrimaryMap::default(),
            types: TypeTable::default(),
            locs: LocTable::default(),
            body,
        }
    }

    /// Creates a detached op with fresh results of `result_types` and empty regions as
    /// its kind requires.
    pub fn create_op(&mut self, kind: OpKind, operands: Vec<ValueId>, result_types: &[TypeId], loc: LocId) -> OpId {
        let num_regions = kind.num_regions();
        let op = self.ops.push(OpData { kind, operands, results: Vec::new(), regions: Vec::new(), loc, parent: None });
        let results = result_types
            .iter()
            .enumerate()
            .map(|(i, &ty)| self.values.push(ValueData { ty, def: ValueDef::OpResult { op, index: i as u32 }, name: None }))
            .collect();
        self.ops[op].results = results;
        for _ in 0..num_regions {
            let region = self.regions.push(RegionData { blocks: Vec::new(), parent: Some(op) });
            self.ops[op].regions.push(region);
        }
        op
    }

    /// Appends a detached op at the end of `block`.
    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        self.ops[op].parent = Some(block);
        self.blocks[block].ops.push(op);
    }

    /// Removes `op` from its block (it stays in the arena, unreachable).
    pub fn detach_op(&mut self, op: OpId) {
        if let Some(block) = self.ops[op].parent.take() {
            self.blocks[block].ops.retain(|&o| o != op);
        }
    }

    /// Inserts the detached `op` immediately before `anchor` in `anchor`'s block.
    pub fn insert_op_before(&mut self, anchor: OpId, op: OpId) {
        let block = self.ops[anchor].parent.expect("anchor op is attached to a block");
        let pos = self.blocks[block].ops.iter().position(|&o| o == anchor).expect("anchor is listed in its block");
        self.ops[op].parent = Some(block);
        self.blocks[block].ops.insert(pos, op);
    }

    /// Replaces every use of `old` by `new` in the reachable ops; returns how many.
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) -> usize {
        let mut count = 0;
        for op in self.walk() {
            for operand in &mut self.ops[op].operands {
                if *operand == old {
                    *operand = new;
                    count += 1;
                }
            }
        }
        count
    }

    /// Whether `op` is a `cuda_tile.reshape` that only drops or adds leading unit
    /// dimensions (`tile<1x64x32xf16>` to `tile<64x32xf16>` and back): the same elements in
    /// the same order, as a batched load's tile becomes an mma operand, or an mma result a
    /// batched store's tile.
    pub fn is_unit_prefix_reshape(&self, op: OpId) -> bool {
        if self.ops[op].kind.ct() != Some(crate::CtOp::Reshape) || self.ops[op].operands.len() != 1 {
            return false;
        }
        let shape = |v: ValueId| self.types.get(self.value_type(v)).tile_shape().map(<[i64]>::to_vec);
        let (Some(from), Some(to)) = (shape(self.ops[op].operands[0]), self.ops[op].results.first().and_then(|&r| shape(r))) else {
            return false;
        };
        let strip = |s: &[i64]| s.iter().position(|&d| d != 1).map_or(&s[s.len()..], |i| &s[i..]).to_vec();
        strip(&from) == strip(&to)
    }

    /// Whether `op` is a `cuda_tile.bitcast` between element types of one width, of one
    /// shape: the same bits (a uint8 view read as fp8, an int16 view as bf16).
    pub fn is_same_width_bitcast(&self, op: OpId) -> bool {
        if self.ops[op].kind.ct() != Some(crate::CtOp::Bitcast) || self.ops[op].operands.len() != 1 {
            return false;
        }
        let tile = |v: ValueId| match self.types.get(self.value_type(v)) {
            crate::types::Type::Tile { shape, elem: crate::types::TileElem::Num(n), .. } => Some((shape.clone(), Some(n.bit_width()))),
            _ => None,
        };
        match (tile(self.ops[op].operands[0]), self.ops[op].results.first().and_then(|&r| tile(r))) {
            (Some((s1, Some(w1))), Some((s2, Some(w2)))) => s1 == s2 && w1 == w2,
            _ => false,
        }
    }

    /// Whether `op` keeps its operand's bits in the same element order: a reshape only
    /// dropping or adding leading unit dimensions, or a same-width bitcast. A copy engine
    /// moving the operand's bytes moves the result's.
    pub fn is_bit_view(&self, op: OpId) -> bool {
        self.is_unit_prefix_reshape(op) || self.is_same_width_bitcast(op)
    }

    /// Number of uses of each value among the reachable ops.
    pub fn use_counts(&self) -> std::collections::HashMap<ValueId, usize> {
        let mut counts = std::collections::HashMap::new();
        for op in self.walk() {
            for &v in &self.ops[op].operands {
                *counts.entry(v).or_insert(0) += 1;
            }
        }
        counts
    }

    /// The divisor an `assume div_by<N>` states for `v`, looking through chained assumes
    /// (1 when nothing is known).
    pub fn assumed_divisor(&self, v: ValueId) -> i64 {
        let ValueDef::OpResult { op, .. } = self.values[v].def else { return 1 };
        match &self.ops[op].kind {
            OpKind::CudaTile(c) if c.op == crate::CtOp::Assume => match c.predicate() {
                Some(crate::AssumePredicate::DivBy { divisor, every_along: None }) => (*divisor).min(1 << 20) as i64,
                _ => self.ops[op].operands.first().map(|&inner| self.assumed_divisor(inner)).unwrap_or(1),
            },
            _ => 1,
        }
    }

    /// The op defining `value`, if it is an op result.
    pub fn defining_op(&self, value: ValueId) -> Option<OpId> {
        match self.values[value].def {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// Appends a new block with arguments of `arg_types` to `region`.
    pub fn add_block(&mut self, region: RegionId, arg_types: &[TypeId]) -> BlockId {
        let block = self.blocks.push(BlockData { args: Vec::new(), ops: Vec::new(), parent: Some(region) });
        let args = arg_types
            .iter()
            .enumerate()
            .map(|(i, &ty)| self.values.push(ValueData { ty, def: ValueDef::BlockArg { block, index: i as u32 }, name: None }))
            .collect();
        self.blocks[block].args = args;
        self.regions[region].blocks.push(block);
        block
    }

    /// Result `index` of `op`.
    pub fn result(&self, op: OpId, index: usize) -> ValueId {
        self.ops[op].results[index]
    }

    /// The type of `value`.
    pub fn value_type(&self, value: ValueId) -> TypeId {
        self.values[value].ty
    }

    /// Sets a printing name on `value`.
    pub fn set_name(&mut self, value: ValueId, name: &str) {
        self.values[value].name = Some(name.to_string());
    }

    /// The location of `op`, resolved.
    pub fn op_location(&self, op: OpId) -> Location {
        self.locs.get(self.ops[op].loc).clone()
    }

    /// The op whose region holds `block`, if any.
    pub fn parent_op_of_block(&self, block: BlockId) -> Option<OpId> {
        self.regions[self.blocks[block].parent?].parent
    }

    /// Every reachable op in pre-order (an op before the ops of its regions).
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        let mut stack: Vec<OpId> = self.blocks[self.body].ops.iter().rev().copied().collect();
        while let Some(op) = stack.pop() {
            out.push(op);
            for &region in self.ops[op].regions.iter().rev() {
                for &block in self.regions[region].blocks.iter().rev() {
                    stack.extend(self.blocks[block].ops.iter().rev().copied());
                }
            }
        }
        out
    }

    /// The single block of `op`'s region `index` (tile dialects use one block per region).
    pub fn entry_block(&self, op: OpId, region: usize) -> Option<BlockId> {
        let region = *self.ops[op].regions.get(region)?;
        self.regions[region].blocks.first().copied()
    }
}

/// Appends ops at the end of one block.
pub struct Builder<'m> {
    /// The module being built.
    pub module: &'m mut Module,
    /// Where ops go.
    pub block: BlockId,
}

impl<'m> Builder<'m> {
    /// A builder appending to `block`.
    pub fn at_end(module: &'m mut Module, block: BlockId) -> Self {
        Builder { module, block }
    }
    /// Creates and appends an op; returns it.
    pub fn op(&mut self, kind: OpKind, operands: Vec<ValueId>, result_types: &[TypeId], loc: LocId) -> OpId {
        let op = self.module.create_op(kind, operands, result_types, loc);
        self.module.append_op(self.block, op);
        op
    }
    /// Creates and appends a single-result op; returns the result.
    pub fn value(&mut self, kind: OpKind, operands: Vec<ValueId>, result_type: TypeId, loc: LocId) -> ValueId {
        let op = self.op(kind, operands, &[result_type], loc);
        self.module.result(op, 0)
    }
}

/// Structural mutation helpers used by the rewriting passes (canonicalize, loop-split).
impl Module {
    /// True when `op` is reachable from the module body (not detached, and no enclosing op
    /// detached either).
    pub fn is_attached(&self, op: OpId) -> bool {
        let mut op = op;
        loop {
            let Some(block) = self.ops[op].parent else { return false };
            if block == self.body {
                return true;
            }
            let Some(region) = self.blocks[block].parent else { return false };
            let Some(parent) = self.regions[region].parent else { return false };
            op = parent;
        }
    }

    /// The op whose region holds `op`'s block (None at the top level or when detached).
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        self.parent_op_of_block(self.ops[op].parent?)
    }

    /// The block in which `value` is defined (its defining op's block, or the block owning
    /// the argument); None for results of a detached op.
    pub fn value_block(&self, value: ValueId) -> Option<BlockId> {
        match self.values[value].def {
            ValueDef::OpResult { op, .. } => self.ops[op].parent,
            ValueDef::BlockArg { block, .. } => Some(block),
        }
    }

    /// The region in which `value` is defined, if any (None at the module top level).
    pub fn value_region(&self, value: ValueId) -> Option<RegionId> {
        self.blocks[self.value_block(value)?].parent
    }

    /// True when `ancestor` is `op` or encloses it through regions.
    pub fn is_ancestor(&self, ancestor: OpId, op: OpId) -> bool {
        let mut cur = Some(op);
        while let Some(o) = cur {
            if o == ancestor {
                return true;
            }
            cur = self.parent_op(o);
        }
        false
    }

    /// Inserts the detached `op` immediately after `anchor` in `anchor`'s block.
    pub fn insert_op_after(&mut self, anchor: OpId, op: OpId) {
        let block = self.ops[anchor].parent.expect("anchor op is attached to a block");
        let pos = self.blocks[block].ops.iter().position(|&o| o == anchor).expect("anchor is listed in its block");
        self.ops[op].parent = Some(block);
        self.blocks[block].ops.insert(pos + 1, op);
    }

    /// Inserts the detached `op` at the start of `block`.
    pub fn prepend_op(&mut self, block: BlockId, op: OpId) {
        self.ops[op].parent = Some(block);
        self.blocks[block].ops.insert(0, op);
    }

    /// Moves every op of `block` (in order) to just before `anchor`, leaving `block` empty.
    pub fn move_block_ops_before(&mut self, block: BlockId, anchor: OpId) {
        let ops = std::mem::take(&mut self.blocks[block].ops);
        for op in ops {
            self.ops[op].parent = None;
            self.insert_op_before(anchor, op);
        }
    }

    /// Moves every op of `from` (in order) to the end of `to`, leaving `from` empty.
    pub fn move_block_ops_to_end(&mut self, from: BlockId, to: BlockId) {
        let ops = std::mem::take(&mut self.blocks[from].ops);
        for op in ops {
            self.append_op(to, op);
        }
    }

    /// Moves all blocks of region `from` to the end of region `to` (`from` ends up empty).
    pub fn move_region_blocks(&mut self, from: RegionId, to: RegionId) {
        let blocks = std::mem::take(&mut self.regions[from].blocks);
        for &b in &blocks {
            self.blocks[b].parent = Some(to);
        }
        self.regions[to].blocks.extend(blocks);
    }

    /// Removes every block of `region` (they stay in the arena, unreachable).
    pub fn clear_region(&mut self, region: RegionId) {
        for b in std::mem::take(&mut self.regions[region].blocks) {
            self.blocks[b].parent = None;
        }
    }

    /// Deep-copies `op` (detached): operands are looked up in `map` (kept when absent),
    /// results and nested block arguments get fresh values recorded in `map`, names and
    /// locations are copied.
    pub fn clone_op(&mut self, op: OpId, map: &mut std::collections::HashMap<ValueId, ValueId>) -> OpId {
        let data = self.ops[op].clone();
        let operands = data.operands.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
        let types: Vec<TypeId> = data.results.iter().map(|&r| self.values[r].ty).collect();
        let new = self.create_op(data.kind.clone(), operands, &types, data.loc);
        for (i, &r) in data.results.iter().enumerate() {
            let nr = self.ops[new].results[i];
            self.values[nr].name = self.values[r].name.clone();
            map.insert(r, nr);
        }
        for (ri, &region) in data.regions.iter().enumerate() {
            let new_region = self.ops[new].regions[ri];
            for block in self.regions[region].blocks.clone() {
                let arg_types: Vec<TypeId> = self.blocks[block].args.iter().map(|&a| self.values[a].ty).collect();
                let nb = self.add_block(new_region, &arg_types);
                for (i, a) in self.blocks[block].args.clone().into_iter().enumerate() {
                    let na = self.blocks[nb].args[i];
                    self.values[na].name = self.values[a].name.clone();
                    map.insert(a, na);
                }
                for inner in self.blocks[block].ops.clone() {
                    let c = self.clone_op(inner, map);
                    self.append_op(nb, c);
                }
            }
        }
        new
    }
}
