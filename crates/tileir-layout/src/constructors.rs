//! Named layouts: blocked, slice, mma.sync and wgmma fragments, shared-memory layouts.

use crate::layout::{bail, log2_exact, Dim, LayoutError, LinearLayout};
use std::fmt;

fn check_perm(order: &[usize], rank: usize) -> Result<(), LayoutError> {
    let mut seen = vec![false; rank];
    if order.len() != rank
        || order
            .iter()
            .any(|&p| p >= rank || std::mem::replace(&mut seen[p], true))
    {
        bail!("order {order:?} is not a permutation of 0..{rank}");
    }
    Ok(())
}

/// The empty layout over tile dimensions `dims` (in that packing order), each of size 1.
fn unit(dims: &[usize]) -> LinearLayout {
    let outs: Vec<(Dim, u32)> = dims.iter().map(|&d| (Dim::Tile(d as u32), 1)).collect();
    LinearLayout::empty(&outs).expect("unit layout")
}

fn tile(d: usize) -> Dim {
    Dim::Tile(d as u32)
}

/// Fits a layout to `shape`: along each dimension (in `rep_order`) that the layout covers
/// less than `shape`, new high register bits repeat it; along each dimension it covers more,
/// the extra coordinate bits are dropped (those input bits become broadcasts). Returns the
/// layout with tile dimensions in order `dim0..`.
pub(crate) fn fit_to_shape(
    mut l: LinearLayout,
    shape: &[u32],
    rep_order: &[usize],
) -> Result<LinearLayout, LayoutError> {
    for (d, &s) in shape.iter().enumerate() {
        log2_exact(s, &format!("shape[{d}]"))?;
    }
    for &d in rep_order {
        let i = l.out_index(tile(d)).expect("tile dim");
        let cur = l.out_dims()[i].1;
        if cur < shape[d] {
            l = l.product(&LinearLayout::identity_1d(
                shape[d] / cur,
                Dim::Register,
                tile(d),
            )?)?;
        }
    }
    for (d, &s) in shape.iter().enumerate() {
        let i = l.out_index(tile(d)).expect("tile dim");
        if l.out_dims()[i].1 > s {
            l = l.resize_out(i, s.trailing_zeros());
        }
    }
    let order: Vec<Dim> = (0..shape.len()).map(tile).collect();
    l.reorder_outs(&order)
}

/// Parameters of a Triton-style blocked layout (shape excluded).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    /// Consecutive elements per thread along each dimension.
    pub size_per_thread: Vec<u32>,
    /// Lanes along each dimension (product = warp size, 32).
    pub threads_per_warp: Vec<u32>,
    /// Warps along each dimension (product = number of warps).
    pub warps_per_cta: Vec<u32>,
    /// Dimensions from fastest to slowest varying.
    pub order: Vec<usize>,
}

impl Blocked {
    /// The linear layout of this blocked layout over a tile of `shape`.
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        blocked(
            shape,
            &self.size_per_thread,
            &self.threads_per_warp,
            &self.warps_per_cta,
            &self.order,
        )
    }

    /// Recognizes a blocked layout: the parameters `p` with `p.to_linear(l.shape()) == l`, if
    /// any (when several parameter sets give the same layout, one of them). Use it to print
    /// the short `#tileas.blocked<…>` form.
    pub fn from_linear(l: &LinearLayout) -> Option<Blocked> {
        let shape = l.shape();
        let n = shape.len();
        if n == 0
            || l.in_dims()
                .iter()
                .any(|d| !matches!(d, Dim::Register | Dim::Lane | Dim::Warp))
        {
            return None;
        }
        let unit_dim = |v: &[u32]| -> Option<(usize, u32)> {
            let nz: Vec<usize> = (0..n).filter(|&i| v[i] != 0).collect();
            (nz.len() == 1 && v[nz[0]].is_power_of_two()).then(|| (nz[0], v[nz[0]]))
        };
        let (regs, lanes, warps) = (
            l.basis(Dim::Register),
            l.basis(Dim::Lane),
            l.basis(Dim::Warp),
        );
        // Order: dimensions by first appearance, then the rest from the last.
        let mut order = Vec::new();
        for v in regs.iter().chain(&lanes).chain(&warps) {
            if let Some((d, _)) = unit_dim(v) {
                if !order.contains(&d) {
                    order.push(d);
                }
            }
        }
        for d in (0..n).rev() {
            if !order.contains(&d) {
                order.push(d);
            }
        }
        let mut orders = vec![order];
        if n <= 4 {
            permutations(n, &mut Vec::new(), &mut orders);
        }
        orders.into_iter().find_map(|order| {
            let mut cover = vec![1u32; n];
            let mut take = |bases: &[Vec<u32>]| -> Vec<u32> {
                let mut sizes = vec![1u32; n];
                let mut it = bases.iter().peekable();
                for &d in &order {
                    while let Some(v) = it.peek() {
                        let full = cover[d] * sizes[d] >= shape[d];
                        let fits = unit_dim(v) == Some((d, cover[d] * sizes[d])) && !full;
                        let zero = full && v.iter().all(|&x| x == 0);
                        if !(fits || zero) {
                            break;
                        }
                        sizes[d] *= 2;
                        it.next();
                    }
                }
                for d in 0..n {
                    cover[d] *= sizes[d];
                }
                sizes
            };
            let spt = take(&regs);
            let tpw = take(&lanes);
            let wpc = take(&warps);
            let b = Blocked {
                size_per_thread: spt,
                threads_per_warp: tpw,
                warps_per_cta: wpc,
                order,
            };
            (b.to_linear(&shape).ok()? == *l).then_some(b)
        })
    }

    /// A default blocked layout for `shape`: `vec` elements per thread along the fastest
    /// dimension (`order[0]`), lanes then warps filling dimensions fastest first.
    pub fn default_for(shape: &[u32], vec: u32, num_warps: u32, order: &[usize]) -> Blocked {
        let n = shape.len();
        let mut spt = vec![1; n];
        let mut tpw = vec![1; n];
        let mut wpc = vec![1; n];
        let f = order[0];
        spt[f] = vec.min(shape[f]).max(1);
        let mut left: Vec<u32> = (0..n).map(|d| (shape[d] / spt[d]).max(1)).collect();
        let mut lanes = 32u32;
        for &d in order {
            let t = lanes.min(left[d]);
            tpw[d] = t;
            lanes /= t;
            left[d] /= t;
        }
        tpw[order[n - 1]] *= lanes;
        let mut warps = num_warps;
        for &d in order.iter().rev() {
            let w = warps.min(left[d]);
            wpc[d] = w;
            warps /= w;
        }
        wpc[order[0]] *= warps;
        Blocked {
            size_per_thread: spt,
            threads_per_warp: tpw,
            warps_per_cta: wpc,
            order: order.to_vec(),
        }
    }
}

/// Appends every permutation of `0..n` extending `prefix` to `out`.
fn permutations(n: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if prefix.len() == n {
        out.push(prefix.clone());
        return;
    }
    for d in 0..n {
        if !prefix.contains(&d) {
            prefix.push(d);
            permutations(n, prefix, out);
            prefix.pop();
        }
    }
}

impl fmt::Display for Blocked {
    /// `#tileas.blocked<size_per_thread=[1,4], threads_per_warp=[8,4], warps_per_cta=[4,1], order=[1,0]>`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("#tileas.blocked<size_per_thread=")?;
        crate::text::write_vec(f, &self.size_per_thread)?;
        f.write_str(", threads_per_warp=")?;
        crate::text::write_vec(f, &self.threads_per_warp)?;
        f.write_str(", warps_per_cta=")?;
        crate::text::write_vec(f, &self.warps_per_cta)?;
        f.write_str(", order=")?;
        crate::text::write_vec(f, &self.order)?;
        f.write_str(">")
    }
}

/// A Triton-style blocked layout over a tile of `shape`.
///
/// Each thread holds a `size_per_thread` block of consecutive elements, lanes are laid out
/// `threads_per_warp` and warps `warps_per_cta`, all with dimension `order[0]` fastest.
/// Register bits come first (fastest dimension first), then lane bits, then warp bits. When
/// the CTA covers less than `shape` along a dimension, new high register bits repeat the
/// pattern (dimensions in `order`); when it covers more, the surplus lanes/warps hold copies
/// (zero basis vectors).
pub fn blocked(
    shape: &[u32],
    size_per_thread: &[u32],
    threads_per_warp: &[u32],
    warps_per_cta: &[u32],
    order: &[usize],
) -> Result<LinearLayout, LayoutError> {
    let n = shape.len();
    if size_per_thread.len() != n || threads_per_warp.len() != n || warps_per_cta.len() != n {
        bail!("blocked: parameter ranks differ from the shape's rank {n}");
    }
    check_perm(order, n)?;
    let mut l = unit(order);
    for (in_dim, sizes) in [
        (Dim::Register, size_per_thread),
        (Dim::Lane, threads_per_warp),
        (Dim::Warp, warps_per_cta),
    ] {
        for &d in order {
            log2_exact(sizes[d], &format!("blocked {in_dim} size along dim{d}"))?;
            l = l.product(&LinearLayout::identity_1d(sizes[d], in_dim, tile(d))?)?;
        }
    }
    fit_to_shape(l, shape, order)
}

/// The layout of `parent` reduced over tile dimension `dim` (Triton's slice layout); see
/// [`LinearLayout::slice`].
pub fn slice_of(parent: &LinearLayout, dim: usize) -> Result<LinearLayout, LayoutError> {
    parent.slice(dim)
}

fn instr(
    reg: &[[u32; 2]],
    lane: &[[u32; 2]],
    tile_shape: [u32; 2],
) -> Result<LinearLayout, LayoutError> {
    let v = |b: &[[u32; 2]]| b.iter().map(|c| c.to_vec()).collect::<Vec<_>>();
    LinearLayout::new(
        vec![(Dim::Register, v(reg)), (Dim::Lane, v(lane))],
        vec![(tile(0), tile_shape[0]), (tile(1), tile_shape[1])],
    )
}

fn warps_2d(
    l: LinearLayout,
    warps: [u32; 2],
    along: [bool; 2],
) -> Result<LinearLayout, LayoutError> {
    let mut l = l;
    for d in 0..2 {
        let w = if along[d] {
            LinearLayout::identity_1d(warps[d], Dim::Warp, tile(d))?
        } else {
            LinearLayout::zeros_1d(warps[d], Dim::Warp, tile(d))?
        };
        l = l.product(&w)?;
    }
    Ok(l)
}

/// The C/D (accumulator) fragment of `mma.sync.aligned.m16n8k*` over an `[M, N]` tile, with
/// `warps = [warps along M, warps along N]`.
///
/// Per instruction (16×8): lane `l`, register `r` holds row `l/4 + 8·(r/2)`, column
/// `2·(l%4) + r%2`. Warp bits tile 16×8 blocks along M first, then N; further registers
/// repeat the CTA tile along N first, then M (4 registers per 16×8 block).
pub fn mma_sync_accumulator(shape: [u32; 2], warps: [u32; 2]) -> Result<LinearLayout, LayoutError> {
    let l = instr(
        &[[0, 1], [8, 0]],
        &[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
        [16, 8],
    )?;
    fit_to_shape(warps_2d(l, warps, [true, true])?, &shape, &[1, 0])
}

fn k_width(elem_bits: u32) -> Result<u32, LayoutError> {
    match elem_bits {
        8 | 16 | 32 => Ok(32 / elem_bits),
        _ => bail!("mma.sync operands need 8-, 16- or 32-bit (tf32) elements, got {elem_bits}"),
    }
}

/// The A fragment of `mma.sync` over an `[M, K]` tile of `elem_bits`-bit elements
/// (16: m16n8k16 f16/bf16; 8: m16n8k32 s8/u8/e4m3/e5m2; 32: m16n8k8 tf32), for an
/// accumulator with `warps = [along M, along N]` (warps along N hold copies).
///
/// With `w = 32 / elem_bits` elements per 32-bit register, per instruction (16 × 8w):
/// register bits step K by `1..w`, then M by 8, then K by `4w`; lane bits 0–1 step K by `w`,
/// `2w`, lane bits 2–4 step M by 1, 2, 4. Registers repeat along K first, then M.
pub fn mma_sync_operand_a(
    shape: [u32; 2],
    elem_bits: u32,
    warps: [u32; 2],
) -> Result<LinearLayout, LayoutError> {
    let w = k_width(elem_bits)?;
    let mut reg: Vec<[u32; 2]> = (0..w.trailing_zeros()).map(|i| [0, 1 << i]).collect();
    reg.push([8, 0]);
    reg.push([0, 4 * w]);
    let l = instr(
        &reg,
        &[[0, w], [0, 2 * w], [1, 0], [2, 0], [4, 0]],
        [16, 8 * w],
    )?;
    fit_to_shape(warps_2d(l, warps, [true, false])?, &shape, &[1, 0])
}

/// The B fragment of `mma.sync` over a `[K, N]` tile (see [`mma_sync_operand_a`] for the
/// element widths), for an accumulator with `warps = [along M, along N]` (warps along M hold
/// copies).
///
/// Per instruction (8w × 8): register bits step K by `1..w`, then K by `4w`; lane bits 0–1
/// step K by `w`, `2w`, lane bits 2–4 step N by 1, 2, 4. Registers repeat along K first, then N.
pub fn mma_sync_operand_b(
    shape: [u32; 2],
    elem_bits: u32,
    warps: [u32; 2],
) -> Result<LinearLayout, LayoutError> {
    let w = k_width(elem_bits)?;
    let mut reg: Vec<[u32; 2]> = (0..w.trailing_zeros()).map(|i| [1 << i, 0]).collect();
    reg.push([4 * w, 0]);
    let l = instr(
        &reg,
        &[[w, 0], [2 * w, 0], [0, 1], [0, 2], [0, 4]],
        [8 * w, 8],
    )?;
    fit_to_shape(warps_2d(l, warps, [false, true])?, &shape, &[0, 1])
}

/// The D (accumulator) fragment of `wgmma.mma_async.m64nNk*` over an `[M, N]` tile with
/// `num_warps` warps (a multiple of 4: one or more warpgroups, stacked along M).
///
/// Within a warpgroup, warp `w` owns rows `16w..16w+16`; lane `l`, register `r` holds row
/// `16w + l/4 + 8·((r/2)%2)`, column `8·(r/4) + 2·(l%4) + r%2`, exactly the `mma.sync`
/// accumulator repeated along N. Registers beyond one `m64nN` block repeat along M.
pub fn wgmma_accumulator(shape: [u32; 2], num_warps: u32) -> Result<LinearLayout, LayoutError> {
    if num_warps < 4 || num_warps % 4 != 0 {
        bail!("wgmma needs a multiple of 4 warps, got {num_warps}");
    }
    let l = instr(
        &[[0, 1], [8, 0]],
        &[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
        [16, 8],
    )?;
    let l = l.product(&LinearLayout::identity_1d(num_warps, Dim::Warp, tile(0))?)?;
    fit_to_shape(l, &shape, &[1, 0])
}

/// A plain (unswizzled) shared-memory layout: element offset → coordinates, dimension
/// `order[0]` contiguous.
pub fn shared_row_major(shape: &[u32], order: &[usize]) -> Result<LinearLayout, LayoutError> {
    check_perm(order, shape.len())?;
    let mut l = unit(order);
    for &d in order {
        l = l.product(&LinearLayout::identity_1d(shape[d], Dim::Offset, tile(d))?)?;
    }
    let o: Vec<Dim> = (0..shape.len()).map(tile).collect();
    l.reorder_outs(&o)
}

/// A Triton-style swizzled shared layout: dimension `order[0]` is the row (length `C`), the
/// other dimensions (in `order`) flatten into the row index; the `vec`-element chunk index
/// of row `r` is XORed with `(r / per_phase) % max_phase`. Element offset → coordinates.
pub fn swizzled_shared(
    shape: &[u32],
    order: &[usize],
    vec: u32,
    per_phase: u32,
    max_phase: u32,
) -> Result<LinearLayout, LayoutError> {
    let base = shared_row_major(shape, order)?;
    let f = order[0];
    let c_bits = shape[f].trailing_zeros();
    let lv = log2_exact(vec, "vec")?;
    let lpp = log2_exact(per_phase, "per_phase")?;
    let lmp = log2_exact(max_phase, "max_phase")?;
    if lv + lmp > c_bits {
        bail!(
            "swizzle vec {vec} × max_phase {max_phase} exceeds the row length {}",
            shape[f]
        );
    }
    let fi = base.out_index(tile(f)).unwrap();
    let sh = base.out_shift(fi);
    let mut bases: Vec<u64> = base.bases_flat(Dim::Offset).to_vec();
    for (i, b) in bases.iter_mut().enumerate() {
        let i = i as u32;
        if i >= c_bits {
            let k = i - c_bits;
            if k >= lpp && k - lpp < lmp {
                *b ^= (u64::from(vec) << (k - lpp)) << sh;
            }
        }
    }
    LinearLayout::from_flat(vec![(Dim::Offset, bases)], base.outs_bits().to_vec())
}

/// The NVMMA shared-memory layout of a 2-D `[rows, cols]` tile of `elem_bits`-bit elements
/// with the TMA/wgmma swizzle mode `swizzle_bytes` ∈ {0, 32, 64, 128}: element offset →
/// coordinates. `transposed = false` makes dim1 contiguous (K-major A, or N-major B), `true`
/// makes dim0 contiguous.
///
/// The contiguous dimension is cut into column blocks of `swizzle_bytes` bytes; each block is
/// stored row after row (a TMA box per block), blocks one after another. The swizzle is the
/// hardware's on byte addresses (base aligned to 1024 bytes): address bits `[4, 4+S)` — the
/// 16-byte chunk within a 128-byte line — are XORed with bits `[7, 7+S)`, `S = log2(swizzle/16)`
/// (CUTLASS `Swizzle<S,4,3>`). With `swizzle_bytes = 0` the layout is plain row-major.
pub fn nvmma_shared(
    shape: [u32; 2],
    elem_bits: u32,
    swizzle_bytes: u32,
    transposed: bool,
) -> Result<LinearLayout, LayoutError> {
    let (cd, od) = if transposed { (0, 1) } else { (1, 0) };
    if !matches!(elem_bits, 8 | 16 | 32 | 64) {
        bail!("nvmma_shared: element width must be 8, 16, 32 or 64 bits, got {elem_bits}");
    }
    log2_exact(shape[0], "shape[0]")?;
    log2_exact(shape[1], "shape[1]")?;
    if swizzle_bytes == 0 {
        return shared_row_major(&shape, &[cd, od]);
    }
    if !matches!(swizzle_bytes, 32 | 64 | 128) {
        bail!("nvmma_shared: swizzle must be 0, 32, 64 or 128 bytes, got {swizzle_bytes}");
    }
    let eb = (elem_bits / 8).trailing_zeros();
    let w = swizzle_bytes * 8 / elem_bits;
    let c = shape[cd];
    if c < w {
        bail!(
            "nvmma_shared: the contiguous dimension holds {} bytes, less than the {swizzle_bytes}-byte swizzle",
            c * elem_bits / 8
        );
    }
    let u = unit(&[cd, od])
        .product(&LinearLayout::identity_1d(w, Dim::Offset, tile(cd))?)?
        .product(&LinearLayout::identity_1d(
            shape[od],
            Dim::Offset,
            tile(od),
        )?)?
        .product(&LinearLayout::identity_1d(c / w, Dim::Offset, tile(cd))?)?
        .reorder_outs(&[tile(0), tile(1)])?;
    let ub = u.bases_flat(Dim::Offset).to_vec();
    let s = (swizzle_bytes / 16).trailing_zeros();
    // physical offset p -> logical offset p ^ f(p), f moving byte bits [7,7+S) to [4,4+S).
    let mut bases = ub.clone();
    for j in 0..s {
        let hi = (7 + j - eb) as usize;
        let lo = (4 + j - eb) as usize;
        if hi < bases.len() {
            bases[hi] ^= ub[lo];
        }
    }
    LinearLayout::from_flat(vec![(Dim::Offset, bases)], u.outs_bits().to_vec())
}
