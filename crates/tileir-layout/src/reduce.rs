//! Reductions along one tile dimension: which registers combine in a thread, which lanes
//! combine by butterfly shuffles, and which warps combine through shared memory.

use crate::layout::{bail, Dim, LayoutError, LinearLayout};

/// How to reduce a distributed tile along one dimension.
///
/// 1. In each thread, combine the registers of each group: result register `r` is the
///    combination of source registers `register_groups[r]`.
/// 2. For each mask in `lane_xor_masks`, combine with the value of lane `lane ^ mask`
///    (`shfl.sync.bfly`).
/// 3. If `warp_bits` is not empty, warps whose ids differ in those bits hold partial results:
///    combine them through shared memory (every warp writes its partials, a barrier, every
///    warp reads and combines the `2^warp_bits.len()` partials of its slice position).
///
/// Afterwards every thread holds its registers of `result` (the slice layout): lanes and
/// warps that moved along the reduced dimension now hold copies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReductionPlan {
    /// The layout of the result ([`LinearLayout::slice`] of the source).
    pub result: LinearLayout,
    /// For each result register, the source registers it combines (duplicate registers of the
    /// source are left out, so a sum counts every element once).
    pub register_groups: Vec<Vec<u32>>,
    /// Butterfly shuffle masks, one per lane bit that moves along the reduced dimension.
    pub lane_xor_masks: Vec<u32>,
    /// Warp bits that move along the reduced dimension (the cross-warp step).
    pub warp_bits: Vec<u32>,
}

/// Plans the reduction of `layout` along tile dimension `dim`.
///
/// Every basis vector (register, lane, warp) must move either only along `dim` or not along
/// it at all (true of blocked, `mma.sync` and `wgmma` layouts); a basis mixing `dim` with
/// other dimensions is rejected (convert the layout first). Free (duplicate) registers, lanes and warps are not combined, so
/// sums count each element once.
pub fn reduction_plan(layout: &LinearLayout, dim: usize) -> Result<ReductionPlan, LayoutError> {
    if dim >= layout.rank() {
        bail!(
            "reduction dimension {dim} out of range for rank {}",
            layout.rank()
        );
    }
    let sh = layout.out_shift(dim);
    let dmask = ((1u64 << layout.outs_bits()[dim].1) - 1) << sh;
    let result = layout.slice(dim)?;
    // Slice coordinates of a flat parent value, in the result's packing.
    let project = |flat: u64| -> u64 {
        let mut c = layout.unflatten(flat);
        c.remove(dim);
        result.flatten(&c)
    };
    let collect = |d: Dim| -> Result<Vec<u32>, LayoutError> {
        let free = layout.free_mask(d);
        let mut bits = Vec::new();
        for (i, &v) in layout.bases_flat(d).iter().enumerate() {
            let along = v & dmask != 0;
            if along && v & !dmask != 0 {
                bail!("{d} bit {i} moves along dimension {dim} and others at once; reduce through shared memory");
            }
            if along && (free >> i) & 1 == 0 {
                bits.push(i as u32);
            }
        }
        Ok(bits)
    };
    collect(Dim::Register)?;
    let lane_bits = collect(Dim::Lane)?;
    let warp_bits = collect(Dim::Warp)?;
    if !collect(Dim::Block)?.is_empty() {
        bail!("reducing across CTAs is not supported");
    }
    let regs_only = {
        let ins = vec![(Dim::Register, result.bases_flat(Dim::Register).to_vec())];
        LinearLayout::from_flat(ins, result.outs_bits().to_vec())?
    };
    let free = layout.free_mask(Dim::Register);
    let mut groups = vec![Vec::new(); result.num_registers() as usize];
    for r in 0..layout.num_registers() {
        if r & free != 0 {
            continue;
        }
        let p = project(layout.apply_dim_flat(Dim::Register, r));
        let Some(pre) = regs_only.preimage_flat(p) else {
            bail!("register {r} does not map onto a result register");
        };
        let rr = pre.first().map_or(0, |x| x.1);
        groups[rr as usize].push(r);
    }
    Ok(ReductionPlan {
        result,
        register_groups: groups,
        lane_xor_masks: lane_bits.iter().map(|&b| 1 << b).collect(),
        warp_bits,
    })
}
