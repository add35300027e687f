//! Per-op rules of cuda_tile.

use crate::Ctx;
use tileir_ir::{CtOp, CudaTileOp, MemoryOrdering, OpId};

/// Ordering/scope rules of a load (`weak`, `relaxed`, `acquire`) or store (`weak`,
/// `relaxed`, `release`): weak takes no scope, the others require one.
pub(crate) fn verify_access_ordering(
    cx: &mut Ctx<'_>,
    op: OpId,
    ordering: MemoryOrdering,
    has_scope: bool,
    is_load: bool,
) {
    let allowed: &[MemoryOrdering] = if is_load {
        &[
            MemoryOrdering::Weak,
            MemoryOrdering::Relaxed,
            MemoryOrdering::Acquire,
        ]
    } else {
        &[
            MemoryOrdering::Weak,
            MemoryOrdering::Relaxed,
            MemoryOrdering::Release,
        ]
    };
    if !allowed.contains(&ordering) {
        let list: Vec<&str> = allowed.iter().map(|o| o.keyword()).collect();
        cx.op_error(
            op,
            format!(
                "memory ordering '{ordering}' is not allowed here; expected one of: {}",
                list.join(", ")
            ),
        );
    }
    verify_scope_rule(cx, op, ordering, has_scope);
}

/// The scope half of the ordering rules (spec/002, `verify_memory_op_common`), shared by
/// loads, stores and atomics (which accept every ordering): weak takes no scope, the
/// others require one.
pub(crate) fn verify_scope_rule(cx: &mut Ctx<'_>, op: OpId, ordering: MemoryOrdering, has_scope: bool) {
    if ordering == MemoryOrdering::Weak && has_scope {
        cx.op_error(op, "weak memory ordering must not carry a scope");
    }
    if ordering != MemoryOrdering::Weak && !has_scope {
        // nv_tileaa's wording (spec/002, verify_memory_op_common).
        cx.op_error(
            op,
            format!("non-weak memory ordering requires explicit scope (ordering is '{ordering}')"),
        );
    }
}

/// nv_tileaa's `addf`/`subf`/`mulf` share the float-arith rules, which live with the other
/// arithmetic rules.
pub(crate) use crate::arith::verify_float_arith;

/// Runs every rule of the cuda_tile op `op`: the schema-derived (ODS) checks first, then the
/// op's own rules. The match is exhaustive so a new op cannot be forgotten.
pub(crate) fn verify_op(cx: &mut Ctx<'_>, op: OpId, kind: &CudaTileOp) {
    if !crate::ods::verify(cx, op, kind) {
        return;
    }
    use CtOp::*;
    match kind.op {
        AbsI | AddI | SubI | MulI | MulHiI | DivI | RemI | NegI | MaxI | MinI | ShlI | ShrI
        | AndI | OrI | XOrI | CmpI | AddF | SubF | MulF | AbsF | DivF | RemF | NegF | MaxF
        | MinF | Fma | CmpF | Ceil | Floor | Cos | CosH | Sin | SinH | Tan | TanH | Exp | Exp2
        | Log | Log2 | Pow | Sqrt | Rsqrt | Atan2 | Bitcast | ExtI | TruncI | FToF | FToI
        | IToF | IntToPtr | PtrToInt | PtrToPtr => crate::arith::verify(cx, op, kind),
        Constant | Iota | Broadcast | Reshape | Permute | Cat | Extract | Select | Offset
        | Pack | Unpack | MmaF | MmaI | MmaFScaled | Reduce | Scan => {
            crate::shape::verify(cx, op, kind)
        }
        MakeTensorView
        | MakePartitionView
        | MakeStridedView
        | MakeGatherScatterView
        | GetTensorShape
        | GetIndexSpaceShape
        | LoadViewTko
        | StoreViewTko
        | LoadPtrTko
        | StorePtrTko
        | Alloca
        | MakeToken
        | JoinTokens
        | AtomicCasTko
        | AtomicRmwTko
        | AtomicRedViewTko
        | GdcLaunchDependentsTko
        | GdcWaitTko => crate::memory::verify(cx, op, kind),
        If | For | Loop | Yield | Continue | Break | Return => crate::control::verify(cx, op, kind),
        Module | Entry | TestingFunc | Global | GetGlobal | GetTileBlockId | GetNumTileBlocks
        | Assume | Assert | PrintTko => crate::module_ops::verify(cx, op, kind),
        // Test-only ops of the bytecode versioning tests: their schema says it all.
        TestingBytecodeNewAttribute | TestingBytecodeEvolution => {}
    }
}
