//! Layout conversion plans and the shared-memory bank-conflict model.

use crate::constructors::{shared_row_major, swizzled_shared};
use crate::layout::{bail, Dim, LayoutError, LinearLayout, Span};

/// Number of wavefronts (shared-memory passes) one warp-wide access takes.
///
/// `addrs[l]` is the byte address lane `l` accesses (`None` for an inactive lane), each
/// access `vec_bytes` bytes wide and naturally aligned. Model: shared memory has 32 banks of
/// 4 bytes; accesses wider than 4 bytes are served in phases of `128 / vec_bytes` lanes
/// (8-byte: half-warps, 16-byte: quarter-warps); within a phase the number of wavefronts is
/// the largest number of *distinct* 4-byte words any bank must deliver (lanes reading the
/// same word share it).
pub fn wavefronts(addrs: &[Option<u64>], vec_bytes: u32) -> u32 {
    let words = (vec_bytes / 4).max(1) as u64;
    let per_phase = if vec_bytes <= 4 {
        addrs.len().max(1)
    } else {
        (128 / vec_bytes) as usize
    };
    let mut total = 0;
    for phase in addrs.chunks(per_phase) {
        let mut banks: Vec<Vec<u64>> = vec![Vec::new(); 32];
        for a in phase.iter().flatten() {
            for k in 0..words {
                let w = a / 4 + k;
                let b = &mut banks[(w % 32) as usize];
                if !b.contains(&w) {
                    b.push(w);
                }
            }
        }
        let m = banks.iter().map(|b| b.len() as u32).max().unwrap_or(0);
        total += m;
    }
    total
}

/// Wavefronts a conflict-free warp-wide access of `vec_bytes`-byte vectors takes: one per
/// phase (1 up to 4 bytes, 2 for 8 bytes, 4 for 16 bytes).
pub fn ideal_wavefronts(vec_bytes: u32) -> u32 {
    if vec_bytes <= 4 {
        1
    } else {
        vec_bytes / 4
    }
}

/// How one side of a shared-memory round trip accesses memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemAccess {
    /// The distributed layout's element offsets: `(register, lane, warp) → offset` (the
    /// distributed layout composed with the inverse of the shared layout). Code generation
    /// materializes it like [`LinearLayout::thread_coords`].
    pub offsets: LinearLayout,
    /// Elements per vector access (consecutive registers at consecutive offsets).
    pub vec: u32,
    /// First register of each vector access a thread performs (for stores, registers that
    /// only duplicate a lower register are skipped).
    pub groups: Vec<u32>,
    /// Wavefronts one warp needs for all its accesses (summed over `groups`).
    pub wavefronts: u32,
    /// Wavefronts the same accesses would need without bank conflicts.
    pub ideal_wavefronts: u32,
}

impl SmemAccess {
    /// Whether the access pattern is free of bank conflicts.
    pub fn conflict_free(&self) -> bool {
        self.wavefronts == self.ideal_wavefronts
    }
}

/// A round trip through shared memory: every thread stores its `src` registers, a barrier,
/// every thread loads its `dst` registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedPlan {
    /// The scratch layout: element offset → tile coordinates (a bijection).
    pub smem: LinearLayout,
    /// Element width in bits.
    pub elem_bits: u32,
    /// The store side (source layout).
    pub store: SmemAccess,
    /// The load side (destination layout).
    pub load: SmemAccess,
}

impl SharedPlan {
    /// Bytes of scratch shared memory the round trip needs.
    pub fn scratch_bytes(&self) -> u64 {
        (1u64 << self.smem.total_out_bits()) * u64::from(self.elem_bits) / 8
    }
}

/// One round of warp shuffles (`shfl.sync.idx`): every lane `l` reads lane `src_lane[l]`,
/// which offers its register `send_reg[src_lane[l]]`, and writes the value into its register
/// `dst_reg[l]`. Registers that vary by lane are linear in the lane id (select on lane bits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShuffleRound {
    /// Destination register of each reading lane.
    pub dst_reg: Vec<u32>,
    /// Source lane of each reading lane.
    pub src_lane: Vec<u32>,
    /// Register each lane offers to the shuffle (0 when nobody reads it).
    pub send_reg: Vec<u32>,
}

impl ShuffleRound {
    /// `Some(c)` when every lane reads lane `l ^ c` (a `shfl.bfly`-style pattern).
    pub fn xor_mask(&self) -> Option<u32> {
        let c = self.src_lane[0];
        self.src_lane
            .iter()
            .enumerate()
            .all(|(l, &s)| s == l as u32 ^ c)
            .then_some(c)
    }

    /// `Some(r)` when every lane writes the same register `r`.
    pub fn uniform_dst_reg(&self) -> Option<u32> {
        let r = *self.dst_reg.first()?;
        self.dst_reg.iter().all(|&x| x == r).then_some(r)
    }

    /// `Some(r)` when every lane offers the same register `r` (no per-lane select needed).
    pub fn uniform_send_reg(&self) -> Option<u32> {
        let mut used = self.src_lane.iter().map(|&s| self.send_reg[s as usize]);
        let r = used.next()?;
        used.all(|x| x == r).then_some(r)
    }
}

/// How to turn a tile distributed as `src` into one distributed as `dst`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConversionPlan {
    /// Same layout: nothing to do.
    Identical,
    /// Every thread already holds what it needs: `dst` register `r` = `src` register
    /// `reg_map[r]`.
    InThread {
        /// Source register of each destination register.
        reg_map: Vec<u32>,
    },
    /// Lanes exchange data within each warp, one `shfl.sync.idx` round per destination
    /// register (each lane fills every one of its registers exactly once over the rounds).
    WarpShuffle {
        /// The rounds.
        rounds: Vec<ShuffleRound>,
    },
    /// A round trip through swizzled shared memory.
    SharedMemory(Box<SharedPlan>),
}

/// `layout` restricted to the given input dimensions.
fn restrict(layout: &LinearLayout, dims: &[Dim]) -> LinearLayout {
    let ins = dims
        .iter()
        .map(|&d| (d, layout.bases_flat(d).to_vec()))
        .collect();
    LinearLayout::from_flat(ins, layout.outs_bits().to_vec()).expect("restriction")
}

fn in_span(span: &Span, vs: &[u64]) -> bool {
    vs.iter().all(|&v| span.solve(v).is_some())
}

fn span_of(layout: &LinearLayout, dims: &[Dim]) -> Span {
    let mut s = Span::new();
    for &d in dims {
        for &v in layout.bases_flat(d) {
            s.insert(v, 0);
        }
    }
    s
}

/// Plans the conversion of a tile of `elem_bits`-bit elements from layout `src` to `dst`.
///
/// Tries, in order: identical layouts; an in-thread register permutation (same lane, warp and
/// block bases, and `dst`'s registers a subset of `src`'s); warp shuffles (same warp and block
/// bases, `dst`'s registers and lanes within the span of `src`'s, and every shuffle round
/// conflict-free on the sending side); otherwise a round trip through shared memory with the
/// swizzle that minimizes bank conflicts on both sides (see [`plan_shared`]).
pub fn plan_conversion(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
) -> Result<ConversionPlan, LayoutError> {
    if src.out_dims() != dst.out_dims() {
        bail!(
            "cannot convert between layouts of different shapes ({:?} vs {:?})",
            src.out_dims(),
            dst.out_dims()
        );
    }
    for l in [src, dst] {
        if l.in_dims()
            .iter()
            .any(|d| !matches!(d, Dim::Register | Dim::Lane | Dim::Warp | Dim::Block))
        {
            bail!("conversion needs distributed layouts (register/lane/warp/block inputs)");
        }
    }
    if !src.is_surjective() {
        bail!("the source layout does not hold every element of the tile");
    }
    if src == dst {
        return Ok(ConversionPlan::Identical);
    }
    let same = |d: Dim| src.bases_flat(d) == dst.bases_flat(d);
    if same(Dim::Block) && same(Dim::Warp) && same(Dim::Lane) {
        let regs = restrict(src, &[Dim::Register]);
        let mut reg_map = Vec::new();
        let mut ok = true;
        for r in 0..dst.num_registers() {
            match regs.preimage_flat(dst.apply_dim_flat(Dim::Register, r)) {
                Some(p) => reg_map.push(p.first().map_or(0, |x| x.1)),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Ok(ConversionPlan::InThread { reg_map });
        }
    }
    if same(Dim::Block) && same(Dim::Warp) {
        let span = span_of(src, &[Dim::Register, Dim::Lane]);
        if in_span(&span, dst.bases_flat(Dim::Register))
            && in_span(&span, dst.bases_flat(Dim::Lane))
        {
            if let Some(rounds) = plan_shuffles(src, dst) {
                return Ok(ConversionPlan::WarpShuffle { rounds });
            }
        }
    }
    Ok(ConversionPlan::SharedMemory(Box::new(plan_shared(
        src, dst, elem_bits,
    )?)))
}

/// Shuffle rounds where round `k` fills register `k ^ c(l)` of lane `l`, with `c` linear in
/// the lane bits (`lane_to_reg[j]` for lane bit `j`). `None` if some lane would have to offer
/// two different registers in one round.
fn shuffle_rounds(
    sub: &LinearLayout,
    dst: &LinearLayout,
    lane_to_reg: &[u32],
) -> Option<Vec<ShuffleRound>> {
    let lanes = dst.num_lanes();
    let mut rounds = Vec::new();
    for k in 0..dst.num_registers() {
        let mut src_lane = vec![0u32; lanes as usize];
        let mut dst_reg = vec![0u32; lanes as usize];
        let mut send: Vec<Option<u32>> = vec![None; lanes as usize];
        for l in 0..lanes {
            let c = lane_to_reg
                .iter()
                .enumerate()
                .filter(|(j, _)| (l >> j) & 1 == 1)
                .fold(0, |a, (_, &v)| a ^ v);
            let rd = k ^ c;
            let flat = dst.apply_flat(&[(Dim::Register, rd), (Dim::Lane, l)]);
            let pre = sub.preimage_flat(flat)?;
            let get = |d: Dim| pre.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
            let (sr, sl) = (get(Dim::Register), get(Dim::Lane));
            if sl >= lanes {
                return None;
            }
            src_lane[l as usize] = sl;
            dst_reg[l as usize] = rd;
            match send[sl as usize] {
                Some(x) if x != sr => return None,
                _ => send[sl as usize] = Some(sr),
            }
        }
        rounds.push(ShuffleRound {
            dst_reg,
            src_lane,
            send_reg: send.into_iter().map(|x| x.unwrap_or(0)).collect(),
        });
    }
    Some(rounds)
}

/// Plans warp shuffles from `src` to `dst` (same warps). First with every lane filling the
/// same register each round; if some lane would have to offer two registers at once, with a
/// lane-dependent destination register chosen so that every round is a permutation of lanes.
///
/// Let `φ(r, l) = (r', l')` be the (linear) canonical source of `dst`'s register `r` in lane
/// `l`. Round `k` fills register `k ⊕ C·l`; its source lane is `φ_lane(k) ⊕ M·l` with
/// `M = φ_lane∘(C, id)`. `C` is built so that `M` is invertible: lane bits whose `φ` lane
/// images are independent modulo `W = φ_lane(registers)` keep `C = 0`, each remaining lane
/// bit is steered onto its own basis vector of `W`.
fn plan_shuffles(src: &LinearLayout, dst: &LinearLayout) -> Option<Vec<ShuffleRound>> {
    let sub = restrict(src, &[Dim::Register, Dim::Lane]);
    if let Some(r) = shuffle_rounds(&sub, dst, &[]) {
        return Some(r);
    }
    let lane_bits = dst.in_bits(Dim::Lane) as usize;
    if src.in_bits(Dim::Lane) as usize != lane_bits {
        return None;
    }
    let phi = |reg: u32, lane: u32| -> Option<(u32, u32)> {
        let pre = sub.preimage_flat(dst.apply_flat(&[(Dim::Register, reg), (Dim::Lane, lane)]))?;
        let get = |d: Dim| pre.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
        Some((get(Dim::Register), get(Dim::Lane)))
    };
    let rb = dst.in_bits(Dim::Register);
    // W and a basis of it, each basis vector with the register combination producing it.
    let mut w_span = Span::new();
    let mut w_basis: Vec<(u64, u32)> = Vec::new();
    for i in 0..rb {
        let (_, sl) = phi(1 << i, 0)?;
        if w_span.insert(u64::from(sl), 0) {
            w_basis.push((u64::from(sl), 1 << i));
        }
    }
    // F: lane bits independent modulo W.
    let mut fw = w_span.clone();
    let mut f_bits = Vec::new();
    let mut rest = Vec::new();
    for j in 0..lane_bits {
        let (_, sl) = phi(0, 1 << j)?;
        if fw.insert(u64::from(sl), 0) {
            f_bits.push(j);
        } else {
            rest.push(j);
        }
    }
    if f_bits.len() + w_basis.len() != lane_bits || rest.len() > w_basis.len() {
        return None;
    }
    // Decompose into (span F) ⊕ W: tag F vectors with bit 0 and W basis vectors with bit 1+i.
    let mut both = Span::new();
    for &j in &f_bits {
        both.insert(u64::from(phi(0, 1 << j)?.1), 1);
    }
    for (i, &(v, _)) in w_basis.iter().enumerate() {
        both.insert(v, 1 << (i + 1));
    }
    let mut lane_to_reg = vec![0u32; lane_bits];
    for (n, &j) in rest.iter().enumerate() {
        let (_, sl) = phi(0, 1 << j)?;
        let combo = both.solve(u64::from(sl))?;
        // W component of φ(e_j), as register combination, plus the target basis vector n.
        let mut reg = w_basis[n].1;
        for (i, &(_, r)) in w_basis.iter().enumerate() {
            if (combo >> (i + 1)) & 1 == 1 {
                reg ^= r;
            }
        }
        lane_to_reg[j] = reg;
    }
    shuffle_rounds(&sub, dst, &lane_to_reg)
}

/// Analyzes one side of a round trip: `dist` accessing shared layout `smem` (with inverse
/// `inv`). Only warp 0 is simulated: other warps XOR a constant into every address, which
/// preserves which accesses share a bank or a word.
fn analyze(dist: &LinearLayout, inv: &LinearLayout, elem_bits: u32, skip_dup: bool) -> SmemAccess {
    let offsets = dist.compose(inv).expect("shapes agree");
    let max_vec = (128 / elem_bits).max(1);
    let vec = offsets.contiguous_elements_per_thread(0).min(max_vec);
    let free = if skip_dup {
        dist.free_mask(Dim::Register)
    } else {
        0
    };
    let lanes = dist.num_lanes();
    let lane_off: Vec<u64> = (0..lanes)
        .map(|l| offsets.apply_dim_flat(Dim::Lane, l))
        .collect();
    let eb = u64::from(elem_bits);
    let vec_bytes = (vec * elem_bits / 8).max(1);
    let mut groups = Vec::new();
    let (mut wf, mut ideal) = (0, 0);
    for g in (0..dist.num_registers()).step_by(vec as usize) {
        if g & free != 0 {
            continue;
        }
        groups.push(g);
        let base = offsets.apply_dim_flat(Dim::Register, g);
        let addrs: Vec<Option<u64>> = lane_off
            .iter()
            .map(|&o| Some((base ^ o) * eb / 8))
            .collect();
        wf += wavefronts(&addrs, vec_bytes);
        ideal += ideal_wavefronts(vec_bytes);
    }
    SmemAccess {
        offsets,
        vec,
        groups,
        wavefronts: wf,
        ideal_wavefronts: ideal,
    }
}

/// How a distributed layout accesses a given shared layout (`offset → coordinates`, a
/// bijection onto the same tile): offsets per register/lane/warp, the widest vector (at most
/// 16 bytes), and bank conflicts per warp. For example a `wgmma` accumulator stored into an
/// NVMMA-swizzled tile for a TMA store, or `mma.sync` operands loaded from one.
pub fn smem_access(
    dist: &LinearLayout,
    smem: &LinearLayout,
    elem_bits: u32,
) -> Result<SmemAccess, LayoutError> {
    if dist.out_dims() != smem.out_dims() {
        bail!("the distributed and shared layouts cover different tiles");
    }
    if elem_bits == 0 || elem_bits % 8 != 0 || !elem_bits.is_power_of_two() {
        bail!("shared-memory access needs byte-sized power-of-two elements, got {elem_bits} bits");
    }
    Ok(analyze(dist, &smem.invert()?, elem_bits, true))
}

/// The tile dimension that register bit 0 of `l` moves along, if any.
fn fastest_dim(l: &LinearLayout) -> Option<usize> {
    let v = *l.bases_flat(Dim::Register).first()?;
    (0..l.rank()).find(|&i| (v >> l.out_shift(i)) & ((1u64 << l.outs_bits()[i].1) - 1) != 0)
}

/// Candidate scratch layouts for a round trip, in two tiers. For the fastest dimension of
/// either side (and the last dimension): tier 0 holds a greedy linear swizzle and the plain
/// layout, tier 1 every Triton-style swizzle (`vec`, `per_phase`, `max_phase`).
fn candidates(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
    tier: u32,
) -> Vec<LinearLayout> {
    let shape = src.shape();
    let rank = shape.len();
    let mut fasts = Vec::new();
    for f in [
        fastest_dim(dst),
        fastest_dim(src),
        Some(rank.saturating_sub(1)),
    ]
    .into_iter()
    .flatten()
    {
        if !fasts.contains(&f) {
            fasts.push(f);
        }
    }
    let mut out = Vec::new();
    for f in fasts {
        let mut order = vec![f];
        order.extend((0..rank).rev().filter(|&d| d != f));
        if tier == 0 {
            if let Ok(l) = shared_row_major(&shape, &order) {
                // Narrower vectors leave more bank bits to swizzle; try every width.
                for cap in (0..=4u32.saturating_sub((elem_bits / 8).trailing_zeros())).rev() {
                    if let Some(g) = greedy_swizzle(src, dst, &l, elem_bits, cap) {
                        if !out.contains(&g) {
                            out.push(g);
                        }
                    }
                }
                out.push(l);
            }
            continue;
        }
        let c = shape[f];
        let rows: u32 = shape.iter().product::<u32>() / c;
        let mut vec = 1;
        while vec < c {
            let mut mp = 2;
            while vec * mp <= c && mp <= rows {
                let mut pp = 1;
                while pp * mp <= rows.max(2) && pp <= 32 {
                    if let Ok(l) = swizzled_shared(&shape, &order, vec, pp, mp) {
                        out.push(l);
                    }
                    pp *= 2;
                }
                mp *= 2;
            }
            vec *= 2;
        }
    }
    out
}

/// Rank over GF(2) of a set of vectors.
fn rank(vs: impl IntoIterator<Item = u64>) -> u32 {
    let mut s = Span::new();
    vs.into_iter().filter(|&v| s.insert(v, 0)).count() as u32
}

/// One side of the greedy swizzle search: the offsets (unswizzled) of the lane bits that share
/// a phase, and the granule (log2 bytes of one lane's access, at least a 4-byte word).
struct Side {
    lanes: Vec<u64>,
    granule: u32,
}

impl Side {
    fn new(offsets: &LinearLayout, elem_bytes_log: u32, cap: u32) -> Side {
        let vec = offsets
            .contiguous_elements_per_thread(0)
            .min(16 >> elem_bytes_log)
            .min(1 << cap)
            .max(1);
        let vb_log = vec.trailing_zeros() + elem_bytes_log;
        let granule = vb_log.max(2);
        let phase_bits = if vb_log <= 2 { 5 } else { 7 - vb_log };
        let lanes = offsets
            .bases_flat(Dim::Lane)
            .iter()
            .take(phase_bits as usize)
            .copied()
            .collect();
        Side { lanes, granule }
    }

    /// log2 of the wavefronts per phase with swizzle `swz` applied to byte addresses.
    fn deficiency(&self, swz: &dyn Fn(u64) -> u64, eb: u32) -> u32 {
        let words: Vec<u64> = self
            .lanes
            .iter()
            .map(|&o| swz(o) << eb >> self.granule)
            .collect();
        let banks = words.iter().map(|w| w & ((1u64 << (7 - self.granule)) - 1));
        rank(words.iter().copied()) - rank(banks)
    }
}

/// A scratch layout that XORs high offset bits (at or above the 128-byte bank line) into bank
/// bits above both sides' vector bits, chosen greedily bit by bit to minimize bank conflicts
/// of both sides (linear algebra on the lanes' offsets: the wavefronts of a phase are
/// `2^(rank of the lanes' word offsets − rank of their bank bits)`). Vectors are limited to
/// `2^cap` elements, which frees the bits above for the swizzle.
fn greedy_swizzle(
    src: &LinearLayout,
    dst: &LinearLayout,
    base: &LinearLayout,
    elem_bits: u32,
    cap: u32,
) -> Option<LinearLayout> {
    let inv = base.invert().ok()?;
    let eb = (elem_bits / 8).trailing_zeros();
    let a_s = src.compose(&inv).ok()?;
    let a_d = dst.compose(&inv).ok()?;
    let sides = [Side::new(&a_s, eb, cap), Side::new(&a_d, eb, cap)];
    let nbits = base.total_out_bits();
    let hi = 7u32.saturating_sub(eb).min(nbits);
    let vec_bits = [&a_s, &a_d]
        .iter()
        .map(|a| {
            a.contiguous_elements_per_thread(0)
                .min(16 >> eb)
                .min(1 << cap)
                .trailing_zeros()
        })
        .max()
        .unwrap_or(0);
    let t0 = vec_bits.max(2u32.saturating_sub(eb));
    if t0 >= hi {
        return None;
    }
    let t_count = hi - t0;
    let relevant: Vec<u32> = (hi..nbits)
        .filter(|&h| {
            sides
                .iter()
                .any(|sd| sd.lanes.iter().any(|&o| (o >> h) & 1 == 1))
        })
        .collect();
    if relevant.is_empty() {
        return None;
    }
    let mut table = vec![0u64; 64];
    let apply = |table: &[u64], o: u64| -> u64 {
        let mut r = o;
        for h in hi..nbits {
            if (o >> h) & 1 == 1 {
                r ^= table[h as usize];
            }
        }
        r
    };
    for &h in &relevant {
        let mut best = (u32::MAX, 0u64);
        for x in 0..(1u64 << t_count) {
            table[h as usize] = x << t0;
            let t = table.clone();
            let f = move |o: u64| apply(&t, o);
            let d: u32 = sides.iter().map(|sd| sd.deficiency(&f, eb)).sum();
            if d < best.0 {
                best = (d, x << t0);
            }
        }
        table[h as usize] = best.1;
    }
    // Physical offset p holds the element of unswizzled offset p ^ S(high bits of p).
    let bb = base.bases_flat(Dim::Offset);
    let img = |v: u64| -> u64 {
        (0..bb.len())
            .filter(|&i| (v >> i) & 1 == 1)
            .fold(0, |a, i| a ^ bb[i])
    };
    let bases = (0..bb.len())
        .map(|i| bb[i] ^ if i as u32 >= hi { img(table[i]) } else { 0 })
        .collect();
    LinearLayout::from_flat(vec![(Dim::Offset, bases)], base.outs_bits().to_vec()).ok()
}

/// Plans a round trip through shared memory: among the candidate scratch layouts (a greedy
/// linear swizzle and the plain layout; if neither is conflict-free on both sides, also the
/// Triton-style swizzles), picks the one with the fewest wavefronts over both sides, then the
/// fewest access instructions (widest vectors).
pub fn plan_shared(
    src: &LinearLayout,
    dst: &LinearLayout,
    elem_bits: u32,
) -> Result<SharedPlan, LayoutError> {
    if src.out_dims() != dst.out_dims() {
        bail!("cannot convert between layouts of different shapes");
    }
    if !src.bases_flat(Dim::Block).is_empty() || !dst.bases_flat(Dim::Block).is_empty() {
        bail!("a shared-memory round trip cannot move data between CTAs");
    }
    if !src.is_surjective() {
        bail!("the source layout does not hold every element of the tile");
    }
    if elem_bits == 0 || elem_bits % 8 != 0 || !elem_bits.is_power_of_two() {
        bail!(
            "shared-memory conversion needs byte-sized power-of-two elements, got {elem_bits} bits"
        );
    }
    let mut best: Option<((u32, u32), SharedPlan)> = None;
    for tier in 0..2 {
        for smem in candidates(src, dst, elem_bits, tier) {
            let inv = smem.invert()?;
            let store = analyze(src, &inv, elem_bits, true);
            let load = analyze(dst, &inv, elem_bits, false);
            let score = (
                store.wavefronts + load.wavefronts,
                store.groups.len() as u32 + load.groups.len() as u32,
            );
            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                best = Some((
                    score,
                    SharedPlan {
                        smem,
                        elem_bits,
                        store,
                        load,
                    },
                ));
            }
        }
        if best
            .as_ref()
            .is_some_and(|(_, p)| p.store.conflict_free() && p.load.conflict_free())
        {
            break;
        }
    }
    best.map(|b| b.1)
        .ok_or_else(|| LayoutError("no scratch layout fits this tile".into()))
}
