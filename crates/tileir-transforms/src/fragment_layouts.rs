//! `tileas-assign-layouts{mma-fragments=true}`: mma results, and the values computed from
//! them register by register, held in the mma's accumulator fragment layout.
//!
//! An mma's result lives in the registers the instruction wrote (the wgmma D fragment). Held
//! in a blocked layout instead, every use of it first moves the whole tile through shared
//! memory, and an mma whose A operand is computed from another mma's result (attention's
//! `P @ V` after `softmax(Q @ Kᵀ)`) stages that operand through shared memory again. With
//! `#nv_tileas.mma` (and `#nv_tileas.slice` of it for row reductions) on the whole
//! computation, the softmax runs on the fragments in place, row maxima and sums are
//! quad shuffles, and the next wgmma reads its A operand from registers.
//!
//! # Components
//!
//! Values that must share a layout are joined (union-find):
//! * the tile operands and results of an element-wise op (splat constants and broadcasts
//!   of a single element excepted: they are made again in whatever layout a use needs);
//! * a `broadcast`'s source and result (an Mma layout holds every shape of its family);
//! * a `reshape` between `[M]` and `[M, 1]` (a row vector and its keepdims form);
//! * the operands and results of a `reduce` along the last dimension of a rank-2 tile
//!   (the results take the `slice` of the operands' layout);
//! * a `for` loop's block argument, result and `continue` operand at one position;
//! * an mma's accumulator operand and result.
//!
//! A component containing the result of an mma the wgmma variant can run with its result
//! in fragments (an anchor), and gaining from fragments (it holds a reduction's operand or
//! another mma's A operand: an mma whose result is only scaled and stored is written
//! straight from the fragments by the backend already), takes the fragment layout: `#nv_tileas.mma` for its rank-2
//! values, `#nv_tileas.slice<dim=1>` of it for rank-1 ones (a member whose shape the
//! layout cannot describe keeps its layout). Then every use gets the layout its user needs:
//! members' users inside the component read them as they are, every other user reads the
//! value in its previous layout through one `nv_tileas.convert_layout` (placed after the
//! definition, so a loop-invariant value converts once, outside the loop), and operands a
//! member op takes from outside the component are converted to (or, splat constants and
//! single-element broadcasts, made again in) the fragment layout. An mma's A and B
//! operands are read in any layout (the backend takes a fragment-layout A from registers).

use std::collections::{HashMap, HashSet};

use tileir_ir::{CtOp, Layout, Module, NumType, OpId, TileElem, Type, ValueDef, ValueId};

use crate::assign_layouts::{is_elementwise, splat_constant, tile_parts, REGISTER_CONVERSION};

/// Accumulator registers per thread beyond which the backend's wgmma variant declines (and
/// with it the reason for a fragment layout).
const MAX_ACC_REGS: i64 = 128;

/// Union-find over values.
#[derive(Default)]
struct Components {
    parent: HashMap<ValueId, ValueId>,
}

impl Components {
    fn find(&mut self, v: ValueId) -> ValueId {
        let p = *self.parent.entry(v).or_insert(v);
        if p == v {
            return v;
        }
        let root = self.find(p);
        self.parent.insert(v, root);
        root
    }

    fn union(&mut self, a: ValueId, b: ValueId) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(ra, rb);
        }
    }

    fn members(&self) -> Vec<ValueId> {
        let mut v: Vec<ValueId> = self.parent.keys().copied().collect();
        v.sort();
        v
    }
}

/// Shape, element and layout of a numeric register tile of rank ≥ 1.
fn tile(m: &Module, v: ValueId) -> Option<(Vec<i64>, NumType, Layout)> {
    tile_parts(m, m.value_type(v)).filter(|(shape, _, _)| !shape.is_empty())
}

fn ct_op(m: &Module, op: OpId) -> Option<CtOp> {
    m.ops[op].kind.cuda_tile().map(|c| c.op)
}


/// The op defining `v` when any layout holds it without moving data: a splat constant, or a
/// broadcast of a single-element tile.
fn remakeable(m: &Module, v: ValueId) -> Option<OpId> {
    if let Some(op) = splat_constant(m, v) {
        return Some(op);
    }
    let op = m.defining_op(v)?;
    match m.ops[op].kind.cuda_tile()?.op {
        CtOp::Broadcast => {
            let src = m.ops[op].operands[0];
            match m.types.get(m.value_type(src)) {
                Type::Tile { shape, .. } if shape.iter().all(|&d| d == 1) => Some(op),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The fragment layout of a CTA of `warps` warps.
fn mma_layout(warps: u32) -> Layout {
    Layout::Mma { version: 3, warps_per_cta: vec![warps, 1] }
}

/// Whether the mma `op`'s result can live in the wgmma fragment: rank-2 operands, a CTA of
/// whole warpgroups (a power of two of them) stacked along M, N a multiple of 8 and the
/// accumulator within the wgmma variant's register budget.
fn anchor_of(m: &Module, op: OpId) -> Option<u32> {
    let r = m.ops[op].results[0];
    let (shape, elem, layout) = tile(m, r)?;
    if shape.len() != 2 || !matches!(elem, NumType::F32 | NumType::I32 | NumType::F16) {
        return None;
    }
    if m.ops[op].operands.iter().take(2).any(|&o| tile(m, o).is_none_or(|(s, _, _)| s.len() != 2)) {
        return None;
    }
    let warps = layout.num_threads() / 32;
    let groups = (warps / 4) as i64;
    if warps % 4 != 0 || groups == 0 || !(groups as u64).is_power_of_two() {
        return None;
    }
    let (rows, cols) = (shape[0], shape[1]);
    if rows % (64 * groups) != 0 || cols % 8 != 0 || (rows / (64 * groups)) * cols / 2 > MAX_ACC_REGS {
        return None;
    }
    Some(warps)
}

/// The fragment layout (or its row slice) for a tile of `shape`, if it can describe it.
fn fragment_layout(shape: &[i64], warps: u32) -> Option<Layout> {
    let rows_ok = |m: i64| m % (16 * warps as i64) == 0;
    match shape {
        [m, n] if (*m == 1 || rows_ok(*m)) && (matches!(n, 1 | 2 | 4) || n % 8 == 0) => Some(mma_layout(warps)),
        [m] if rows_ok(*m) => Some(Layout::Slice { dim: 1, parent: Box::new(mma_layout(warps)) }),
        _ => None,
    }
}

/// Joins the values that must share a layout (see the module docs) and returns the anchors
/// with their CTA's warp count, and the values whose components gain from fragments: a
/// reduction's operand (row statistics computed in place) and an mma's A operand (read from
/// registers). A component with neither (an mma whose result is only stored, or scaled
/// and stored) keeps its layout: the backend writes such results straight from the
/// fragments already.
fn join_components(m: &Module, c: &mut Components) -> (Vec<(ValueId, u32)>, Vec<ValueId>) {
    let mut anchors = Vec::new();
    let mut gains = Vec::new();
    for op in m.walk() {
        let data = &m.ops[op];
        match ct_op(m, op) {
            Some(CtOp::MmaF | CtOp::MmaI) if data.operands.len() >= 3 => {
                let (acc, r) = (data.operands[2], data.results[0]);
                if let Some(w) = anchor_of(m, op) {
                    anchors.push((r, w));
                }
                if tile(m, data.operands[0]).is_some() {
                    gains.push(data.operands[0]);
                }
                c.find(r);
                if remakeable(m, acc).is_none() && tile(m, acc).is_some() {
                    c.union(acc, r);
                }
            }
            Some(CtOp::Broadcast) => {
                let (s, r) = (data.operands[0], data.results[0]);
                if remakeable(m, r).is_none() && tile(m, s).is_some() && tile(m, r).is_some() {
                    c.union(s, r);
                }
            }
            Some(CtOp::Reshape) => {
                let (s, r) = (data.operands[0], data.results[0]);
                if let (Some((ss, _, _)), Some((rs, _, _))) = (tile(m, s), tile(m, r)) {
                    let row = |a: &[i64], b: &[i64]| a.len() == 1 && b.len() == 2 && b[0] == a[0] && b[1] == 1;
                    if row(&ss, &rs) || row(&rs, &ss) {
                        c.union(s, r);
                    }
                }
            }
            Some(CtOp::Reduce) => {
                let dim = data.kind.cuda_tile().and_then(|c| c.int("dim"));
                let rank2 = data.operands.iter().all(|&o| tile(m, o).is_some_and(|(s, _, _)| s.len() == 2));
                let results = data.results.iter().all(|&r| tile(m, r).is_some());
                if dim == Some(1) && rank2 && results {
                    let first = data.operands[0];
                    gains.push(first);
                    for &v in data.operands.iter().chain(&data.results) {
                        c.union(first, v);
                    }
                }
            }
            Some(CtOp::For) => {
                let Some(looped) = crate::pipeline_util::ForLoop::of(m, op) else { continue };
                let Some(term) = looped.terminator(m) else { continue };
                for (p, &arg) in looped.carried.iter().enumerate() {
                    let (Some(&r), Some(&next)) = (data.results.get(p), m.ops[term].operands.get(p)) else { continue };
                    if tile(m, arg).is_some() {
                        c.union(arg, r);
                        if remakeable(m, next).is_none() {
                            c.union(arg, next);
                        }
                    }
                }
            }
            _ if is_elementwise(m, op) => {
                let values: Vec<ValueId> = data.operands.iter().chain(&data.results).copied().collect();
                if !values.iter().all(|&v| matches!(m.types.get(m.value_type(v)), Type::Tile { elem: TileElem::Num(_), .. })) {
                    continue;
                }
                let joined: Vec<ValueId> = values.into_iter().filter(|&v| tile(m, v).is_some() && remakeable(m, v).is_none()).collect();
                for w in joined.windows(2) {
                    c.union(w[0], w[1]);
                }
            }
            _ => {}
        }
    }
    (anchors, gains)
}

/// Whether `v`'s definition can produce it in a fragment layout: the ops the components
/// are joined through, and a `for` loop's block arguments and results. Anything else (a
/// load, an iota, a dense constant) joins through a conversion.
fn fragment_producer(m: &Module, v: ValueId) -> bool {
    match m.values[v].def {
        ValueDef::BlockArg { block, .. } => m.parent_op_of_block(block).is_some_and(|p| ct_op(m, p) == Some(CtOp::For)),
        ValueDef::OpResult { op, .. } => {
            is_elementwise(m, op)
                || matches!(ct_op(m, op), Some(CtOp::MmaF | CtOp::MmaI | CtOp::Broadcast | CtOp::Reshape | CtOp::Reduce | CtOp::For))
        }
    }
}

/// Whether `a`, an operand of the mma `op`, is defined outside the innermost loop around
/// `op` (false when `op` is in no loop: converting would gain nothing there).
fn loop_invariant_a(m: &Module, op: OpId, a: ValueId) -> bool {
    let mut cur = m.parent_op(op);
    while let Some(p) = cur {
        if matches!(ct_op(m, p), Some(CtOp::For | CtOp::Loop)) {
            return match m.values[a].def {
                ValueDef::OpResult { op: def, .. } => !m.is_ancestor(p, def),
                ValueDef::BlockArg { block, .. } => m.parent_op_of_block(block).is_some_and(|b| b != p && !m.is_ancestor(p, b)),
            };
        }
        cur = m.parent_op(p);
    }
    false
}

/// The loop (`for` or `loop`) a `continue` or `break` belongs to.
fn enclosing_loop(m: &Module, op: OpId) -> Option<OpId> {
    let mut cur = m.parent_op(op)?;
    loop {
        if matches!(ct_op(m, cur), Some(CtOp::For | CtOp::Loop)) {
            return Some(cur);
        }
        cur = m.parent_op(cur)?;
    }
}

/// The layout `op` needs operand `index` in, where that differs from "as it is": members'
/// users inside the component need the fragment layout, others a member's previous layout.
fn wanted(
    m: &Module,
    op: OpId,
    index: usize,
    member_op: bool,
    previous: &HashMap<ValueId, Layout>,
    invariant_a_in_registers: bool,
) -> Option<Layout> {
    let o = m.ops[op].operands[index];
    let (shape, _, _) = tile(m, o)?;
    let result_layout = |i: usize| m.ops[op].results.get(i).and_then(|&r| tile(m, r)).map(|(_, _, l)| l);
    match ct_op(m, op) {
        // Initial values match the block arguments.
        Some(CtOp::For) if index >= 3 => {
            let looped = crate::pipeline_util::ForLoop::of(m, op)?;
            looped.carried.get(index - 3).and_then(|&a| tile(m, a)).map(|(_, _, l)| l)
        }
        Some(CtOp::Continue) => {
            let lp = enclosing_loop(m, op)?;
            let body = m.entry_block(lp, 0)?;
            let args = &m.blocks[body].args;
            let skip = usize::from(ct_op(m, lp) == Some(CtOp::For));
            args.get(index + skip).and_then(|&a| tile(m, a)).map(|(_, _, l)| l)
        }
        Some(CtOp::Break) => {
            let lp = enclosing_loop(m, op)?;
            m.ops[lp].results.get(index).and_then(|&r| tile(m, r)).map(|(_, _, l)| l)
        }
        Some(CtOp::Yield) => {
            let parent = m.parent_op(op)?;
            (ct_op(m, parent) == Some(CtOp::If)).then_some(())?;
            m.ops[parent].results.get(index).and_then(|&r| tile(m, r)).map(|(_, _, l)| l)
        }
        Some(CtOp::MmaF | CtOp::MmaI) if index == 2 => result_layout(0),
        // A 16-bit A that a loop reads unchanged (attention's Q) is converted once, before
        // the loop, and read from registers by every iteration's wgmma instead of being
        // staged through shared memory each time.
        Some(CtOp::MmaF) if index == 0 && invariant_a_in_registers && loop_invariant_a(m, op, o) => {
            let r = result_layout(0).filter(|l| matches!(l, Layout::Mma { .. }))?;
            let (_, elem, _) = tile(m, o)?;
            (matches!(elem, NumType::F16 | NumType::BF16) && shape.len() == 2 && shape[1] % 16 == 0).then_some(r)
        }
        // A and B otherwise: any layout (a fragment A is read from registers).
        Some(CtOp::MmaF | CtOp::MmaI) => None,
        _ if member_op => {
            let r = result_layout(0)?;
            let warps = r.num_threads() / 32;
            if is_elementwise(m, op) {
                Some(r)
            } else {
                fragment_layout(&shape, warps)
            }
        }
        _ => previous.get(&o).cloned(),
    }
}

/// Gives every anchored component the fragment layout and converts at its boundary.
pub(crate) fn assign_fragment_layouts(m: &mut Module, invariant_a_in_registers: bool) {
    let mut c = Components::default();
    let (anchors, gains) = join_components(m, &mut c);
    let gaining: HashSet<ValueId> = gains.into_iter().map(|v| c.find(v)).collect();
    let anchored: HashMap<ValueId, u32> =
        anchors.iter().map(|&(v, w)| (c.find(v), w)).filter(|(root, _)| gaining.contains(root)).collect();
    if anchored.is_empty() {
        return;
    }
    let mut previous: HashMap<ValueId, Layout> = HashMap::new();
    for v in c.members() {
        let root = c.find(v);
        let Some(&warps) = anchored.get(&root) else { continue };
        let Some((shape, _, layout)) = tile(m, v) else { continue };
        if !fragment_producer(m, v) {
            continue;
        }
        let Some(new) = fragment_layout(&shape, warps) else { continue };
        if new != layout {
            let ty = crate::assign_layouts::with_layout(m, m.value_type(v), new);
            m.values[v].ty = ty;
            previous.insert(v, layout);
        }
    }
    if previous.is_empty() {
        return;
    }
    let members: HashSet<ValueId> = previous.keys().copied().collect();
    let mut made: HashMap<(ValueId, Layout), ValueId> = HashMap::new();
    for op in m.walk() {
        if !m.is_attached(op) || m.ops[op].kind == REGISTER_CONVERSION {
            continue;
        }
        let member_op = m.ops[op].results.iter().any(|r| members.contains(r));
        for index in 0..m.ops[op].operands.len() {
            let o = m.ops[op].operands[index];
            let Some(want) = wanted(m, op, index, member_op, &previous, invariant_a_in_registers) else { continue };
            let Some((_, _, have)) = tile(m, o) else { continue };
            if want == have {
                continue;
            }
            let key = (o, want.clone());
            let v = match made.get(&key) {
                Some(&v) => v,
                None => {
                    let v = materialize(m, o, want);
                    made.insert(key, v);
                    v
                }
            };
            m.ops[op].operands[index] = v;
        }
    }
    // Splat constants and broadcasts made again in the fragment layout may have left the
    // originals unused.
    let uses = m.use_counts();
    for op in m.walk() {
        if m.ops[op].results.len() == 1
            && !uses.contains_key(&m.ops[op].results[0])
            && remakeable(m, m.ops[op].results[0]).is_some()
        {
            m.detach_op(op);
        }
    }
}

/// `v` in `layout`: a splat constant or single-element broadcast made again in it, or a
/// register conversion; placed right after `v`'s definition (at the start of its block for
/// a block argument).
fn materialize(m: &mut Module, v: ValueId, layout: Layout) -> ValueId {
    let ty = crate::assign_layouts::with_layout(m, m.value_type(v), layout);
    let new_op = match remakeable(m, v) {
        Some(def) => {
            let copy = m.create_op(m.ops[def].kind.clone(), m.ops[def].operands.clone(), &[ty], m.ops[def].loc);
            m.insert_op_after(def, copy);
            copy
        }
        None => match m.values[v].def {
            ValueDef::OpResult { op: def, .. } => {
                let cvt = m.create_op(REGISTER_CONVERSION, vec![v], &[ty], m.ops[def].loc);
                m.insert_op_after(def, cvt);
                cvt
            }
            ValueDef::BlockArg { block, .. } => {
                let loc = m.parent_op_of_block(block).map_or_else(|| m.locs.unknown(), |p| m.ops[p].loc);
                let cvt = m.create_op(REGISTER_CONVERSION, vec![v], &[ty], loc);
                m.prepend_op(block, cvt);
                cvt
            }
        },
    };
    m.result(new_op, 0)
}
