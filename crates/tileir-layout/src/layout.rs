//! The [`LinearLayout`] type: a linear map over GF(2) from named input dimensions to named
//! output dimensions, and the algebra on it.

use std::fmt;

/// A named dimension, used both as an input (hardware) dimension and as an output (tile)
/// dimension of a [`LinearLayout`].
///
/// The derived order (`Register < Lane < Warp < Block < Offset < Tile(0) < Tile(1) …`) is the
/// canonical order of input dimensions and the priority order of the pseudo-inverse: a
/// coordinate held by several register/lane/warp combinations resolves to the one that uses
/// registers first, then the lowest lanes, then the lowest warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// Register index within a thread.
    Register,
    /// Lane (thread index) within a warp.
    Lane,
    /// Warp index within a CTA.
    Warp,
    /// CTA index within a cluster.
    Block,
    /// Element offset in shared memory.
    Offset,
    /// Logical tile dimension `dimN`.
    Tile(u32),
}

impl Dim {
    /// The textual name (`register`, `lane`, `warp`, `block`, `offset`, `dim0`, …).
    pub fn name(self) -> String {
        match self {
            Dim::Register => "register".into(),
            Dim::Lane => "lane".into(),
            Dim::Warp => "warp".into(),
            Dim::Block => "block".into(),
            Dim::Offset => "offset".into(),
            Dim::Tile(i) => format!("dim{i}"),
        }
    }

    /// Parses a name written by [`Dim::name`].
    pub fn from_name(s: &str) -> Option<Dim> {
        Some(match s {
            "register" => Dim::Register,
            "lane" => Dim::Lane,
            "warp" => Dim::Warp,
            "block" => Dim::Block,
            "offset" => Dim::Offset,
            _ => {
                let n = s.strip_prefix("dim")?;
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                Dim::Tile(n.parse().ok()?)
            }
        })
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// An error from building or transforming a layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LayoutError {}

macro_rules! bail {
    ($($t:tt)*) => { return Err($crate::LayoutError(format!($($t)*))) };
}
pub(crate) use bail;

/// `log2(n)` for a power of two, or an error naming `what`.
pub(crate) fn log2_exact(n: u32, what: &str) -> Result<u32, LayoutError> {
    if n == 0 || !n.is_power_of_two() {
        bail!("{what} must be a power of two, got {n}");
    }
    Ok(n.trailing_zeros())
}

/// A linear layout over GF(2).
///
/// Every input dimension (`register`, `lane`, `warp`, `block`, `offset`, or a tile dimension
/// after [`LinearLayout::invert`]) has size `2^k` and one basis vector per bit; every output
/// dimension has size `2^k`. Applying the layout to an input XORs the basis vectors of the set
/// input bits. A zero basis vector means the input bit does not move the element: the data is
/// replicated (broadcast) along it.
///
/// Internally an output coordinate is packed into one `u64` ("flat" value) with the *last*
/// output dimension in the lowest bits, so for tile dimensions the flat value is the row-major
/// linear index of the element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinearLayout {
    /// Input dimensions in canonical (sorted) order, none of size 1, each with one flat basis
    /// vector per bit.
    ins: Vec<(Dim, Vec<u64>)>,
    /// Output dimensions in packing order (first = most significant), with log2 sizes.
    outs: Vec<(Dim, u32)>,
}

/// Incremental Gaussian elimination over GF(2): rows keyed by their highest set bit, each
/// carrying the combination of inserted items that produced it.
#[derive(Clone)]
pub(crate) struct Span {
    rows: Vec<Option<(u64, u64)>>,
}

impl Span {
    pub(crate) fn new() -> Span {
        Span {
            rows: vec![None; 64],
        }
    }

    /// Reduces `v` (with combination `c`) against the rows, from the highest pivot down;
    /// returns the remainder and the accumulated combination.
    pub(crate) fn reduce(&self, mut v: u64, mut c: u64) -> (u64, u64) {
        for p in (0..64).rev() {
            if (v >> p) & 1 == 1 {
                if let Some((rv, rc)) = self.rows[p] {
                    v ^= rv;
                    c ^= rc;
                }
            }
        }
        (v, c)
    }

    /// Inserts `v` tagged with combination `c`; returns whether it was independent.
    pub(crate) fn insert(&mut self, v: u64, c: u64) -> bool {
        let (r, rc) = self.reduce(v, c);
        if r == 0 {
            return false;
        }
        let p = 63 - r.leading_zeros() as usize;
        self.rows[p] = Some((r, rc));
        true
    }

    /// Solves `v` as a combination of inserted items, if it lies in the span.
    pub(crate) fn solve(&self, v: u64) -> Option<u64> {
        let (r, c) = self.reduce(v, 0);
        (r == 0).then_some(c)
    }
}

impl LinearLayout {
    // ----- construction -------------------------------------------------------------------

    /// Builds a layout from per-input-dimension basis vectors (each a coordinate list with one
    /// entry per output dimension) and output dimensions with their sizes.
    pub fn new(ins: Vec<(Dim, Vec<Vec<u32>>)>, outs: Vec<(Dim, u32)>) -> Result<Self, LayoutError> {
        let mut out_bits = Vec::with_capacity(outs.len());
        for (i, &(d, size)) in outs.iter().enumerate() {
            if outs[..i].iter().any(|&(e, _)| e == d) {
                bail!("output dimension {d} appears twice");
            }
            out_bits.push((
                d,
                log2_exact(size, &format!("size of output dimension {d}"))?,
            ));
        }
        if out_bits.iter().map(|o| o.1).sum::<u32>() > 63 {
            bail!("output space too large (more than 2^63 elements)");
        }
        let mut flat_ins = Vec::new();
        for (d, basis) in ins {
            if flat_ins.iter().any(|(e, _): &(Dim, Vec<u64>)| *e == d) {
                bail!("input dimension {d} appears twice");
            }
            let mut v = Vec::with_capacity(basis.len());
            for (bit, coords) in basis.iter().enumerate() {
                if coords.len() != out_bits.len() {
                    bail!(
                        "basis vector {bit} of {d} has {} coordinates, expected {}",
                        coords.len(),
                        out_bits.len()
                    );
                }
                let mut flat = 0u64;
                let mut shift = 0;
                for (j, &(od, b)) in out_bits.iter().enumerate().rev() {
                    let c = coords[j];
                    if u64::from(c) >= 1u64 << b {
                        bail!(
                            "basis vector {bit} of {d}: coordinate {c} out of range for {od} of size {}",
                            1u64 << b
                        );
                    }
                    flat |= u64::from(c) << shift;
                    shift += b;
                }
                v.push(flat);
            }
            flat_ins.push((d, v));
        }
        Self::from_flat(flat_ins, out_bits)
    }

    /// Builds a layout from flat basis vectors and log2 output sizes.
    pub(crate) fn from_flat(
        mut ins: Vec<(Dim, Vec<u64>)>,
        outs: Vec<(Dim, u32)>,
    ) -> Result<Self, LayoutError> {
        ins.retain(|(_, b)| !b.is_empty());
        ins.sort_by_key(|(d, _)| *d);
        if ins.iter().map(|(_, b)| b.len()).sum::<usize>() > 64 {
            bail!("more than 64 input bits");
        }
        for w in ins.windows(2) {
            if w[0].0 == w[1].0 {
                bail!("input dimension {} appears twice", w[0].0);
            }
        }
        Ok(LinearLayout { ins, outs })
    }

    /// The layout with no inputs and the given output dimensions (sizes): every output maps
    /// from nothing. Mostly useful as the unit of [`LinearLayout::product`].
    pub fn empty(outs: &[(Dim, u32)]) -> Result<Self, LayoutError> {
        Self::new(vec![], outs.to_vec())
    }

    /// `in_dim` of size `size` mapped identically onto `out_dim` of the same size.
    pub fn identity_1d(size: u32, in_dim: Dim, out_dim: Dim) -> Result<Self, LayoutError> {
        let b = log2_exact(size, "identity size")?;
        Self::from_flat(
            vec![(in_dim, (0..b).map(|i| 1u64 << i).collect())],
            vec![(out_dim, b)],
        )
    }

    /// `in_dim` of size `size` mapped to zero (all inputs hold the same element); the output
    /// dimension `out_dim` has size 1.
    pub fn zeros_1d(size: u32, in_dim: Dim, out_dim: Dim) -> Result<Self, LayoutError> {
        let b = log2_exact(size, "broadcast size")?;
        Self::from_flat(vec![(in_dim, vec![0; b as usize])], vec![(out_dim, 0)])
    }

    // ----- shape queries -----------------------------------------------------------------

    /// Input dimensions of size > 1, in canonical order.
    pub fn in_dims(&self) -> Vec<Dim> {
        self.ins.iter().map(|(d, _)| *d).collect()
    }

    /// log2 of the size of input dimension `d` (0 when absent).
    pub fn in_bits(&self, d: Dim) -> u32 {
        self.bases_flat(d).len() as u32
    }

    /// Size of input dimension `d` (1 when absent).
    pub fn in_size(&self, d: Dim) -> u32 {
        1 << self.in_bits(d)
    }

    /// Total number of input bits.
    pub fn total_in_bits(&self) -> u32 {
        self.ins.iter().map(|(_, b)| b.len() as u32).sum()
    }

    /// Output dimensions with their sizes, in order.
    pub fn out_dims(&self) -> Vec<(Dim, u32)> {
        self.outs.iter().map(|&(d, b)| (d, 1u32 << b)).collect()
    }

    /// Output dimension sizes, in order (the tile shape for distributed layouts).
    pub fn shape(&self) -> Vec<u32> {
        self.outs.iter().map(|&(_, b)| 1u32 << b).collect()
    }

    /// Number of output dimensions.
    pub fn rank(&self) -> usize {
        self.outs.len()
    }

    /// Total number of output bits (log2 of the number of elements).
    pub fn total_out_bits(&self) -> u32 {
        self.outs.iter().map(|o| o.1).sum()
    }

    /// Number of registers per thread (`2^bits(register)`).
    pub fn num_registers(&self) -> u32 {
        self.in_size(Dim::Register)
    }

    /// Number of lanes (`2^bits(lane)`).
    pub fn num_lanes(&self) -> u32 {
        self.in_size(Dim::Lane)
    }

    /// Number of warps (`2^bits(warp)`).
    pub fn num_warps(&self) -> u32 {
        self.in_size(Dim::Warp)
    }

    /// Index of output dimension `d`.
    pub fn out_index(&self, d: Dim) -> Option<usize> {
        self.outs.iter().position(|o| o.0 == d)
    }

    /// Bit position where output dimension `i` starts in the flat value.
    pub(crate) fn out_shift(&self, i: usize) -> u32 {
        self.outs[i + 1..].iter().map(|o| o.1).sum()
    }

    /// Flat basis vectors of input dimension `d` (empty when absent).
    pub(crate) fn bases_flat(&self, d: Dim) -> &[u64] {
        self.ins
            .iter()
            .find(|(e, _)| *e == d)
            .map(|(_, b)| b.as_slice())
            .unwrap_or(&[])
    }

    pub(crate) fn outs_bits(&self) -> &[(Dim, u32)] {
        &self.outs
    }

    /// Basis vectors of input dimension `d`, as coordinate lists.
    pub fn basis(&self, d: Dim) -> Vec<Vec<u32>> {
        self.bases_flat(d)
            .iter()
            .map(|&f| self.unflatten(f))
            .collect()
    }

    // ----- applying ------------------------------------------------------------------------

    /// Packs output coordinates into the flat value (last dimension in the lowest bits).
    pub fn flatten(&self, coords: &[u32]) -> u64 {
        assert_eq!(coords.len(), self.outs.len(), "coordinate rank mismatch");
        let mut flat = 0u64;
        let mut shift = 0;
        for (j, &(_, b)) in self.outs.iter().enumerate().rev() {
            flat |= (u64::from(coords[j]) & ((1u64 << b) - 1)) << shift;
            shift += b;
        }
        flat
    }

    /// Unpacks a flat value into output coordinates.
    pub fn unflatten(&self, flat: u64) -> Vec<u32> {
        let mut out = vec![0u32; self.outs.len()];
        let mut shift = 0;
        for (j, &(_, b)) in self.outs.iter().enumerate().rev() {
            out[j] = ((flat >> shift) & ((1u64 << b) - 1)) as u32;
            shift += b;
        }
        out
    }

    /// Flat image of value `v` of input dimension `d` (bits beyond its size are ignored).
    pub fn apply_dim_flat(&self, d: Dim, v: u32) -> u64 {
        let mut acc = 0;
        for (i, &b) in self.bases_flat(d).iter().enumerate() {
            if (v >> i) & 1 == 1 {
                acc ^= b;
            }
        }
        acc
    }

    /// Flat image of an input given as `(dimension, value)` pairs (absent dimensions are 0).
    pub fn apply_flat(&self, input: &[(Dim, u32)]) -> u64 {
        input
            .iter()
            .fold(0, |acc, &(d, v)| acc ^ self.apply_dim_flat(d, v))
    }

    /// Output coordinates of an input given as `(dimension, value)` pairs.
    pub fn apply(&self, input: &[(Dim, u32)]) -> Vec<u32> {
        self.unflatten(self.apply_flat(input))
    }

    /// Coordinates of the element held in `register` of `lane` in `warp` (block 0).
    pub fn coords(&self, register: u32, lane: u32, warp: u32) -> Vec<u32> {
        self.apply(&[
            (Dim::Register, register),
            (Dim::Lane, lane),
            (Dim::Warp, warp),
        ])
    }

    /// Coordinates held by each register of lane 0, warp 0: the per-register constants that
    /// code generation XORs (or adds, see [`LinearLayout::is_disjoint`]) onto the thread's base
    /// coordinate.
    pub fn register_coords(&self) -> Vec<Vec<u32>> {
        (0..self.num_registers())
            .map(|r| self.apply(&[(Dim::Register, r)]))
            .collect()
    }

    // ----- linear algebra ------------------------------------------------------------------

    /// Input bits in priority order, as `(dim, bit, flat vector)`.
    fn input_bits(&self) -> impl Iterator<Item = (Dim, usize, u64)> + '_ {
        self.ins
            .iter()
            .flat_map(|(d, b)| b.iter().enumerate().map(move |(i, &v)| (*d, i, v)))
    }

    /// Global index of the first bit of each input dimension in [`Self::input_bits`] order.
    fn in_offsets(&self) -> Vec<u32> {
        let mut o = 0;
        self.ins
            .iter()
            .map(|(_, b)| {
                let s = o;
                o += b.len() as u32;
                s
            })
            .collect()
    }

    /// Span of the image, with each pivot tagged by the global input bit that produced it;
    /// also returns the mask (global bit indices) of free input bits.
    fn span(&self) -> (Span, u64) {
        let mut s = Span::new();
        let mut free = 0u64;
        for (k, (_, _, v)) in self.input_bits().enumerate() {
            if !s.insert(v, 1u64 << k) {
                free |= 1u64 << k;
            }
        }
        (s, free)
    }

    /// Rank of the map (log2 of the number of distinct elements it reaches).
    pub fn rank_bits(&self) -> u32 {
        self.total_in_bits() - self.span().1.count_ones()
    }

    /// Whether every output coordinate is reached.
    pub fn is_surjective(&self) -> bool {
        self.rank_bits() == self.total_out_bits()
    }

    /// Whether distinct inputs reach distinct outputs (no replication).
    pub fn is_injective(&self) -> bool {
        self.rank_bits() == self.total_in_bits()
    }

    /// Whether the layout is a bijection.
    pub fn is_bijective(&self) -> bool {
        self.is_injective() && self.is_surjective()
    }

    /// For each input dimension, the mask of its *free* bits: bits whose basis vector is zero or
    /// a combination of bits earlier in priority order (registers first, then lanes, warps,
    /// blocks). Flipping free bits of a thread id only reaches data another thread (or
    /// register) with a lower id already holds, so free lane/warp bits mark redundant threads.
    pub fn free_masks(&self) -> Vec<(Dim, u32)> {
        let (_, free) = self.span();
        let offs = self.in_offsets();
        self.ins
            .iter()
            .zip(offs)
            .map(|((d, b), o)| (*d, ((free >> o) & ((1u64 << b.len()) - 1)) as u32))
            .collect()
    }

    /// Mask of the free bits of input dimension `d` (see [`LinearLayout::free_masks`]).
    pub fn free_mask(&self, d: Dim) -> u32 {
        self.free_masks()
            .into_iter()
            .find(|(e, _)| *e == d)
            .map(|(_, m)| m)
            .unwrap_or(0)
    }

    /// Solves for the canonical preimage of a flat output value: the input that uses only
    /// non-free bits. Returns `(dim, value)` for every input dimension, or `None` when the
    /// value is not in the image.
    pub fn preimage_flat(&self, flat: u64) -> Option<Vec<(Dim, u32)>> {
        let (s, _) = self.span();
        let c = s.solve(flat)?;
        Some(self.split_combo(c))
    }

    /// Canonical preimage of output coordinates (see [`LinearLayout::preimage_flat`]).
    pub fn preimage(&self, coords: &[u32]) -> Option<Vec<(Dim, u32)>> {
        self.preimage_flat(self.flatten(coords))
    }

    fn split_combo(&self, c: u64) -> Vec<(Dim, u32)> {
        self.ins
            .iter()
            .zip(self.in_offsets())
            .map(|((d, b), o)| (*d, ((c >> o) & ((1u64 << b.len()) - 1)) as u32))
            .collect()
    }

    /// The inverse of a bijective layout: a layout from this layout's output dimensions to its
    /// input dimensions.
    pub fn invert(&self) -> Result<LinearLayout, LayoutError> {
        if !self.is_bijective() {
            bail!(
                "layout is not a bijection (rank {} with {} input bits and {} output bits); use pseudo_invert",
                self.rank_bits(),
                self.total_in_bits(),
                self.total_out_bits()
            );
        }
        self.pseudo_invert()
    }

    /// A right inverse of a surjective layout: maps every output coordinate to its canonical
    /// preimage (free input bits zero). `self ∘ pseudo_invert` is the identity on the output
    /// space; `pseudo_invert ∘ self` is the identity on inputs whose free bits are zero.
    pub fn pseudo_invert(&self) -> Result<LinearLayout, LayoutError> {
        if !self.is_surjective() {
            bail!(
                "layout is not surjective (reaches 2^{} of 2^{} elements)",
                self.rank_bits(),
                self.total_out_bits()
            );
        }
        let (s, _) = self.span();
        // Output of the inverse: this layout's input dims, packed in canonical order.
        let inv_outs: Vec<(Dim, u32)> =
            self.ins.iter().map(|(d, b)| (*d, b.len() as u32)).collect();
        // The combination mask uses global bit k = offset(dim) + bit, with the first input dim
        // in the lowest bits; the inverse's flat packing puts the last dim lowest. Repack.
        let offs = self.in_offsets();
        let repack = |c: u64| -> u64 {
            let mut flat = 0;
            let mut shift = 0;
            for (i, (_, b)) in self.ins.iter().enumerate().rev() {
                let v = (c >> offs[i]) & ((1u64 << b.len()) - 1);
                flat |= v << shift;
                shift += b.len() as u32;
            }
            flat
        };
        let mut inv_ins = Vec::new();
        for (i, &(d, bits)) in self.outs.iter().enumerate() {
            let sh = self.out_shift(i);
            let v = (0..bits)
                .map(|j| repack(s.solve(1u64 << (sh + j)).expect("surjective")))
                .collect();
            inv_ins.push((d, v));
        }
        let mut inv = LinearLayout {
            ins: vec![],
            outs: inv_outs,
        };
        inv_ins.retain(|(_, b): &(Dim, Vec<u64>)| !b.is_empty());
        inv_ins.sort_by_key(|(d, _)| *d);
        inv.ins = inv_ins;
        Ok(inv)
    }

    /// Composition: first `self`, then `next` (`x ↦ next(self(x))`). `next`'s input
    /// dimensions must be `self`'s output dimensions with the same sizes.
    pub fn compose(&self, next: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        for (i, &(d, b)) in self.outs.iter().enumerate() {
            let nb = next.in_bits(d);
            if nb != b {
                bail!("cannot compose: output {d} (index {i}) has size {} but the next layout's input has size {}", 1u64 << b, 1u64 << nb);
            }
        }
        for d in next.in_dims() {
            if self.out_index(d).is_none() {
                bail!("cannot compose: the next layout's input {d} is not an output of the first");
            }
        }
        let map = |flat: u64| -> u64 {
            let mut acc = 0;
            for (i, &(d, b)) in self.outs.iter().enumerate() {
                let v = ((flat >> self.out_shift(i)) & ((1u64 << b) - 1)) as u32;
                acc ^= next.apply_dim_flat(d, v);
            }
            acc
        };
        let ins = self
            .ins
            .iter()
            .map(|(d, b)| (*d, b.iter().map(|&v| map(v)).collect()))
            .collect();
        Self::from_flat(ins, next.outs.clone())
    }

    /// Tensor product: input dimensions with the same name are concatenated (`self`'s bits
    /// low, `other`'s high); output dimensions with the same name multiply in size (`self`'s
    /// coordinates low); other dimensions are kept side by side. Output order: `self`'s
    /// dimensions, then `other`'s new ones.
    pub fn product(&self, other: &LinearLayout) -> Result<LinearLayout, LayoutError> {
        let mut outs: Vec<(Dim, u32)> = self.outs.clone();
        for &(d, b) in &other.outs {
            match outs.iter_mut().find(|o| o.0 == d) {
                Some(o) => o.1 += b,
                None => outs.push((d, b)),
            }
        }
        if outs.iter().map(|o| o.1).sum::<u32>() > 63 {
            bail!("product: output space too large");
        }
        let tmp = LinearLayout {
            ins: vec![],
            outs: outs.clone(),
        };
        // Map a flat value of `src` into the combined packing; `high` shifts coordinates of dims
        // shared with `self` above `self`'s bits.
        let remap = |src: &LinearLayout, flat: u64, high: bool| -> u64 {
            let mut acc = 0;
            for (i, &(d, b)) in src.outs.iter().enumerate() {
                let v = (flat >> src.out_shift(i)) & ((1u64 << b) - 1);
                let j = tmp.out_index(d).expect("dim present");
                let lift = if high {
                    self.outs.iter().find(|o| o.0 == d).map_or(0, |o| o.1)
                } else {
                    0
                };
                acc |= (v << lift) << tmp.out_shift(j);
            }
            acc
        };
        let mut ins: Vec<(Dim, Vec<u64>)> = self
            .ins
            .iter()
            .map(|(d, b)| (*d, b.iter().map(|&v| remap(self, v, false)).collect()))
            .collect();
        for (d, b) in &other.ins {
            let mapped: Vec<u64> = b.iter().map(|&v| remap(other, v, true)).collect();
            match ins.iter_mut().find(|(e, _)| e == d) {
                Some((_, v)) => v.extend(mapped),
                None => ins.push((*d, mapped)),
            }
        }
        Self::from_flat(ins, outs)
    }

    /// Reorders output dimensions to `order` (names), keeping the names.
    pub fn reorder_outs(&self, order: &[Dim]) -> Result<LinearLayout, LayoutError> {
        if order.len() != self.outs.len() || order.iter().any(|d| self.out_index(*d).is_none()) {
            bail!("reorder_outs: {order:?} is not a permutation of the output dimensions");
        }
        let outs: Vec<(Dim, u32)> = order
            .iter()
            .map(|d| self.outs[self.out_index(*d).unwrap()])
            .collect();
        let tmp = LinearLayout {
            ins: vec![],
            outs: outs.clone(),
        };
        let remap = |flat: u64| -> u64 {
            let mut acc = 0;
            for (i, &(d, b)) in self.outs.iter().enumerate() {
                let v = (flat >> self.out_shift(i)) & ((1u64 << b) - 1);
                acc |= v << tmp.out_shift(tmp.out_index(d).unwrap());
            }
            acc
        };
        let ins = self
            .ins
            .iter()
            .map(|(d, b)| (*d, b.iter().map(|&v| remap(v)).collect()))
            .collect();
        Self::from_flat(ins, outs)
    }

    /// Transposes the tile dimensions: new `dim{i}` is old output dimension `perm[i]`.
    pub fn transpose(&self, perm: &[usize]) -> Result<LinearLayout, LayoutError> {
        let n = self.outs.len();
        let mut seen = vec![false; n];
        if perm.len() != n
            || perm
                .iter()
                .any(|&p| p >= n || std::mem::replace(&mut seen[p], true))
        {
            bail!("transpose: {perm:?} is not a permutation of 0..{n}");
        }
        let order: Vec<Dim> = perm.iter().map(|&p| self.outs[p].0).collect();
        let mut r = self.reorder_outs(&order)?;
        for (i, o) in r.outs.iter_mut().enumerate() {
            o.0 = Dim::Tile(i as u32);
        }
        Ok(r)
    }

    /// Reshapes the output into tile dimensions `dim0..` of sizes `shape`, on the row-major
    /// flattening (the flat value is unchanged).
    pub fn reshape(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        let mut outs = Vec::new();
        for (i, &s) in shape.iter().enumerate() {
            outs.push((Dim::Tile(i as u32), log2_exact(s, "reshape size")?));
        }
        self.reshape_outs(outs)
    }

    /// Reshapes into arbitrary output dimensions (log2 sizes), keeping the flat value.
    pub(crate) fn reshape_outs(&self, outs: Vec<(Dim, u32)>) -> Result<LinearLayout, LayoutError> {
        let total: u32 = outs.iter().map(|o| o.1).sum();
        if total != self.total_out_bits() {
            bail!(
                "reshape: {} elements cannot become {}",
                1u64 << self.total_out_bits(),
                1u64 << total
            );
        }
        Self::from_flat(self.ins.clone(), outs)
    }

    /// Sets the size of output dimension `i` to `2^bits`, keeping the low coordinate bits
    /// (truncating, which turns bases that only moved the dropped bits into broadcasts) or
    /// widening.
    pub(crate) fn resize_out(&self, i: usize, bits: u32) -> LinearLayout {
        let mut outs = self.outs.clone();
        outs[i].1 = bits;
        let tmp = LinearLayout {
            ins: vec![],
            outs: outs.clone(),
        };
        let remap = |flat: u64| -> u64 {
            let mut acc = 0;
            for (k, &(_, b)) in self.outs.iter().enumerate() {
                let mut v = (flat >> self.out_shift(k)) & ((1u64 << b) - 1);
                if k == i {
                    v &= (1u64 << bits) - 1;
                }
                acc |= v << tmp.out_shift(k);
            }
            acc
        };
        let ins = self
            .ins
            .iter()
            .map(|(d, b)| (*d, b.iter().map(|&v| remap(v)).collect()))
            .collect();
        LinearLayout { ins, outs }
    }

    /// Removes output dimension `i` entirely (its coordinates are dropped).
    pub(crate) fn drop_out(&self, i: usize) -> LinearLayout {
        let r = self.resize_out(i, 0);
        let mut outs = r.outs.clone();
        outs.remove(i);
        LinearLayout { ins: r.ins, outs }
    }

    /// The layout of a reduction over tile dimension `dim`: the dimension is removed,
    /// register bits that no longer move anything new (zero or dependent on earlier register
    /// bits) are dropped so each thread holds each result once, and lane/warp/block bits that
    /// only moved along `dim` become broadcasts. Later tile dimensions are renumbered.
    pub fn slice(&self, dim: usize) -> Result<LinearLayout, LayoutError> {
        if dim >= self.outs.len() {
            bail!(
                "slice: dimension {dim} out of range for rank {}",
                self.outs.len()
            );
        }
        let mut r = self.drop_out(dim);
        for (k, o) in r.outs.iter_mut().enumerate() {
            if let Dim::Tile(_) = o.0 {
                o.0 = Dim::Tile(k as u32);
            }
        }
        let mut span = Span::new();
        let regs: Vec<u64> = r
            .bases_flat(Dim::Register)
            .iter()
            .copied()
            .filter(|&v| span.insert(v, 0))
            .collect();
        r.ins.retain(|(d, _)| *d != Dim::Register);
        r.ins.push((Dim::Register, regs));
        Self::from_flat(r.ins, r.outs)
    }

    /// Inserts a tile dimension of size 1 at position `axis` (later dimensions renumbered).
    pub fn expand_dims(&self, axis: usize) -> Result<LinearLayout, LayoutError> {
        if axis > self.outs.len() {
            bail!(
                "expand_dims: axis {axis} out of range for rank {}",
                self.outs.len()
            );
        }
        let mut outs = self.outs.clone();
        outs.insert(axis, (Dim::Tile(axis as u32), 0));
        for (k, o) in outs.iter_mut().enumerate() {
            if let Dim::Tile(_) = o.0 {
                o.0 = Dim::Tile(k as u32);
            }
        }
        Self::from_flat(self.ins.clone(), outs)
    }

    /// Broadcasts tile dimension `axis` from size 1 to `n`: every thread holds all `n` copies,
    /// in new high register bits.
    pub fn broadcast(&self, axis: usize, n: u32) -> Result<LinearLayout, LayoutError> {
        if axis >= self.outs.len() || self.outs[axis].1 != 0 {
            bail!("broadcast: dimension {axis} must exist and have size 1");
        }
        let d = self.outs[axis].0;
        self.product(&LinearLayout::identity_1d(n, Dim::Register, d)?)
    }

    /// Spreads the tile over a cluster: `ctas[d]` CTAs along tile dimension `d` (taken in
    /// `order`, fastest first), each holding this layout's tile at its block offset. The
    /// result has `block` input bits and a tile `ctas[d]` times larger along each dimension.
    /// (A CTA count along a dimension can be replicated instead with
    /// `product(&LinearLayout::zeros_1d(n, Dim::Block, dim))`.)
    pub fn with_ctas(&self, ctas: &[u32], order: &[usize]) -> Result<LinearLayout, LayoutError> {
        if ctas.len() != self.rank() || order.len() != self.rank() {
            bail!(
                "with_ctas: expected {} CTA counts and an order of that length",
                self.rank()
            );
        }
        let mut l = self.clone();
        for &d in order {
            let Some(&(dim, _)) = self.outs.get(d) else {
                bail!("with_ctas: dimension {d} out of range");
            };
            l = l.product(&LinearLayout::identity_1d(ctas[d], Dim::Block, dim)?)?;
        }
        Ok(l)
    }

    // ----- code generation helpers -----------------------------------------------------------

    /// Largest number of consecutive elements along tile dimension `dim` that every thread
    /// holds in consecutive registers starting at an aligned register: `2^k` where register
    /// bits `0..k` step `dim` by `1, 2, …, 2^(k-1)` and no other input bit touches those low
    /// coordinate bits (so register `r < 2^k` holds `base + r`). Use it to size vector loads.
    pub fn contiguous_elements_per_thread(&self, dim: usize) -> u32 {
        if dim >= self.outs.len() {
            return 1;
        }
        let sh = self.out_shift(dim);
        let regs = self.bases_flat(Dim::Register);
        let mut k = 0;
        while k < regs.len() && k < self.outs[dim].1 as usize && regs[k] == 1u64 << (sh + k as u32)
        {
            k += 1;
        }
        // No other input bit may touch the low k coordinate bits of `dim`.
        while k > 0 {
            let low = ((1u64 << k) - 1) << sh;
            let clash = self
                .input_bits()
                .any(|(d, i, v)| !(d == Dim::Register && i < k) && v & low != 0);
            if !clash {
                break;
            }
            k -= 1;
        }
        1 << k
    }

    /// OR of the flat basis vectors of input dimension `d`.
    fn support(&self, d: Dim) -> u64 {
        self.bases_flat(d).iter().fold(0, |a, &b| a | b)
    }

    /// Whether the register, lane, warp and block bases touch pairwise disjoint coordinate
    /// bits. Then a register's coordinate is `base + register_coords[r]` (integer addition per
    /// dimension, no carries), with `base` the lane/warp/block contribution, so code generation
    /// may use `add` (foldable into addressing) instead of `xor`.
    pub fn is_disjoint(&self) -> bool {
        let sup: Vec<u64> = self.ins.iter().map(|(d, _)| self.support(*d)).collect();
        (0..sup.len()).all(|i| (i + 1..sup.len()).all(|j| sup[i] & sup[j] == 0))
    }

    /// Whether all non-zero basis vectors, of every input dimension, have pairwise disjoint
    /// bits: then every coordinate is the plain sum of the basis vectors of the set bits.
    pub fn is_fully_disjoint(&self) -> bool {
        let mut seen = 0u64;
        for (_, _, v) in self.input_bits() {
            if v & seen != 0 {
                return false;
            }
            seen |= v;
        }
        true
    }

    /// Everything a code generator needs to materialize coordinates: see [`ThreadCoords`].
    pub fn thread_coords(&self) -> ThreadCoords {
        ThreadCoords {
            register: self.register_coords(),
            lane: self.basis(Dim::Lane),
            warp: self.basis(Dim::Warp),
            block: self.basis(Dim::Block),
            disjoint: self.is_disjoint(),
        }
    }
}

/// Per-thread coordinate recipe of a distributed layout, for code generation.
///
/// At run time compute once `base[d] = ⊕_{i: lane bit i set} lane[i][d] ⊕ (same for warp,
/// block)`; register `r` then holds element `base ⊕ register[r]` (a compile-time constant
/// per register). When `disjoint` is true every `⊕` between the base and the register
/// constants may be an integer `+`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadCoords {
    /// Coordinates held by each register of thread 0 (`register[r]`).
    pub register: Vec<Vec<u32>>,
    /// Coordinates contributed by each lane bit.
    pub lane: Vec<Vec<u32>>,
    /// Coordinates contributed by each warp bit.
    pub warp: Vec<Vec<u32>>,
    /// Coordinates contributed by each block (CTA) bit.
    pub block: Vec<Vec<u32>>,
    /// Whether register, lane, warp and block bases touch disjoint coordinate bits.
    pub disjoint: bool,
}
