//! `fuse-fma`: `addf(mulf(a, b), c)` → `fma(a, b, c)` and `subf(mulf(a, b), c)` →
//! `fma(a, b, negf(c))`.
//!
//! Fires only when the `mulf` result has exactly one use, sits on the left operand (an
//! `addf` with the multiply on the right is first commuted, as the `addf` canonicalization
//! does, so `c + a*b` is caught too), and the multiply and the add/sub carry the same
//! rounding mode and flush-to-zero flag, which the `fma` inherits. It is deliberately not
//! value-preserving: one rounding replaces two. The fused op keeps the add's location.

use tileir_ir::{Attr, CtOp, CudaTileOp, Diagnostics, Module, OpId, OpKind};
use tileir_pass::{pass_options, Pass};

/// Registered name.
pub const NAME: &str = "fuse-fma";

pass_options! {
    /// `fuse-fma` has no options.
    pub struct FuseFmaOptions {}
}

/// The pass.
pub struct FuseFma {
    /// Its options.
    pub options: FuseFmaOptions,
}

impl Pass for FuseFma {
    fn name(&self) -> &'static str {
        NAME
    }
    fn options_text(&self) -> String {
        self.options.to_text()
    }
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        fuse(module);
        Ok(())
    }
}

/// The cuda_tile op `op` if it is `which`.
fn ct_op(m: &Module, op: OpId, which: CtOp) -> Option<&CudaTileOp> {
    m.ops[op].kind.cuda_tile().filter(|k| k.op == which)
}

/// Whether the rounding mode and flush-to-zero flag of two float ops agree.
fn same_float_modes(a: &CudaTileOp, b: &CudaTileOp) -> bool {
    a.get("rounding_mode") == b.get("rounding_mode") && a.flag("flush_to_zero") == b.flag("flush_to_zero")
}

/// If the right operand of `addf` `op` is a `mulf` and the left one is not, swaps them
/// (addition commutes exactly in IEEE arithmetic). Returns true if it swapped.
pub fn commute_mul_to_lhs(m: &mut Module, op: OpId) -> bool {
    if ct_op(m, op, CtOp::AddF).is_none() || m.ops[op].operands.len() != 2 {
        return false;
    }
    let is_mul = |v| m.defining_op(v).is_some_and(|d| ct_op(m, d, CtOp::MulF).is_some());
    let (lhs, rhs) = (m.ops[op].operands[0], m.ops[op].operands[1]);
    if is_mul(rhs) && !is_mul(lhs) {
        m.ops[op].operands.swap(0, 1);
        return true;
    }
    false
}

/// Runs the rewrite over every reachable `addf`/`subf`.
pub fn fuse(m: &mut Module) -> usize {
    let mut fused = 0;
    for op in m.walk() {
        commute_mul_to_lhs(m, op);
    }
    let uses = m.use_counts();
    for op in m.walk() {
        let Some(outer) = m.ops[op].kind.cuda_tile().cloned() else { continue };
        if !matches!(outer.op, CtOp::AddF | CtOp::SubF) || m.ops[op].operands.len() != 2 || m.ops[op].results.len() != 1 {
            continue;
        }
        let (lhs, acc) = (m.ops[op].operands[0], m.ops[op].operands[1]);
        let Some(mul_op) = m.defining_op(lhs) else { continue };
        let Some(mul) = ct_op(m, mul_op, CtOp::MulF).cloned() else { continue };
        if uses.get(&lhs).copied() != Some(1) || !same_float_modes(&mul, &outer) || m.ops[mul_op].operands.len() != 2 {
            continue;
        }
        let loc = m.ops[op].loc;
        let result_ty = m.value_type(m.ops[op].results[0]);
        let acc = if outer.op == CtOp::SubF {
            let neg = m.create_op(OpKind::CudaTile(CudaTileOp::new(CtOp::NegF)), vec![acc], &[m.value_type(acc)], loc);
            m.insert_op_before(op, neg);
            m.result(neg, 0)
        } else {
            acc
        };
        let mut fma = CudaTileOp::new(CtOp::Fma);
        if let Some(r) = outer.get("rounding_mode") {
            fma.set("rounding_mode", r.clone());
        }
        if outer.flag("flush_to_zero") {
            fma.set("flush_to_zero", Attr::Unit);
        }
        let (a, b) = (m.ops[mul_op].operands[0], m.ops[mul_op].operands[1]);
        let fma_op = m.create_op(OpKind::CudaTile(fma), vec![a, b, acc], &[result_ty], loc);
        m.insert_op_before(op, fma_op);
        let (old, new) = (m.ops[op].results[0], m.result(fma_op, 0));
        if let Some(name) = m.values[old].name.clone() {
            m.set_name(new, &name);
        }
        m.replace_all_uses(old, new);
        m.detach_op(op);
        // The multiply had exactly one use, the add just removed.
        m.detach_op(mul_op);
        fused += 1;
    }
    fused
}

#[cfg(test)]
mod tests {
    use super::*;
    use tileir_ir::{Builder, NumType, RoundingMode};

    /// An entry-less block with `%x, %y, %z : tile<f32>` made by `get_tile_block_id`-free
    /// constants; returns (module, block, [x, y, z]).
    fn setup() -> (Module, tileir_ir::BlockId, Vec<tileir_ir::ValueId>) {
        let mut m = Module::new();
        let loc = m.locs.file_line_col("t.mlir", 1, 1);
        let t = m.types.scalar_tile(NumType::F32);
        let body = m.body;
        let mut vals = Vec::new();
        for v in [1.0f32, 2.0, 3.0] {
            let d = tileir_ir::DenseElements { elem: NumType::F32, shape: vec![], bits: vec![v.to_bits() as u64] };
            let c = CudaTileOp::new(CtOp::Constant).with("value", Attr::Dense(d));
            let mut b = Builder::at_end(&mut m, body);
            vals.push(b.value(OpKind::CudaTile(c), vec![], t, loc));
        }
        (m, body, vals)
    }

    fn ops_of(m: &Module) -> Vec<&'static str> {
        m.walk().into_iter().filter_map(|o| m.ops[o].kind.ct().map(|c| c.mnemonic())).collect()
    }

    #[test]
    fn add_of_mul_fuses_in_either_operand_order() {
        for mul_on_right in [false, true] {
            let (mut m, body, v) = setup();
            let t = m.value_type(v[0]);
            let loc = m.locs.file_line_col("t.mlir", 2, 1);
            let mut b = Builder::at_end(&mut m, body);
            let mul = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::MulF)), vec![v[0], v[1]], t, loc);
            let operands = if mul_on_right { vec![v[2], mul] } else { vec![mul, v[2]] };
            let add = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), operands, t, loc);
            let user = b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::NegF)), vec![add], &[t], loc);
            assert_eq!(fuse(&mut m), 1);
            assert_eq!(ops_of(&m), ["constant", "constant", "constant", "fma", "negf"]);
            let fma = m.defining_op(m.ops[user].operands[0]).unwrap();
            assert_eq!(m.ops[fma].operands, vec![v[0], v[1], v[2]]);
        }
    }

    #[test]
    fn sub_of_mul_negates_the_accumulator() {
        let (mut m, body, v) = setup();
        let t = m.value_type(v[0]);
        let loc = m.locs.file_line_col("t.mlir", 2, 1);
        let mut b = Builder::at_end(&mut m, body);
        let mul = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::MulF)), vec![v[0], v[1]], t, loc);
        let sub = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::SubF)), vec![mul, v[2]], t, loc);
        b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::NegF)), vec![sub], &[t], loc);
        assert_eq!(fuse(&mut m), 1);
        assert_eq!(ops_of(&m), ["constant", "constant", "constant", "negf", "fma", "negf"]);
    }

    #[test]
    fn mismatched_modes_or_shared_multiplies_do_not_fuse() {
        let (mut m, body, v) = setup();
        let t = m.value_type(v[0]);
        let loc = m.locs.file_line_col("t.mlir", 2, 1);
        let zero = Attr::Enum(RoundingMode::MNEMONIC, "zero");
        let mut b = Builder::at_end(&mut m, body);
        let mul = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::MulF)), vec![v[0], v[1]], t, loc);
        // Different rounding: no fusion.
        let add = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF).with("rounding_mode", zero)), vec![mul, v[2]], t, loc);
        b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::NegF)), vec![add], &[t], loc);
        // A multiply with two uses: no fusion.
        let mul2 = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::MulF)), vec![v[0], v[1]], t, loc);
        let add2 = b.value(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![mul2, v[2]], t, loc);
        b.op(OpKind::CudaTile(CudaTileOp::new(CtOp::AddF)), vec![add2, mul2], &[t], loc);
        assert_eq!(fuse(&mut m), 0);
    }
}
