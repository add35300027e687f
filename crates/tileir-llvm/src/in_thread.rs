//! Relayouts that move no data between threads, or only within warps.
//!
//! A shape op (reshape, permute, broadcast) whose every result element is already held by
//! the thread that needs it, at a register index the same in every thread, is a renaming of
//! registers: no shared memory, no barrier. Whether that holds is decided here at compile
//! time by evaluating both blocked layouts for every thread (tiles are at most a few tens of
//! thousands of elements, so the check is cheap), which makes it exact for every pair of
//! layouts, including replicated ones (a replica thread owns no element and needs none).
//!
//! Where the data stays within each warp instead, and each result register comes from one
//! source register whose lane is a GF(2)-affine function of the reading lane (as it is
//! between the power-of-two blocked layouts, see Triton's linear layouts), one
//! `shfl.sync.idx` per register replaces the shared-memory round trip and its barriers.

use std::collections::HashMap;
use tileir_ir::Layout;

use crate::lower_ct::reg_offsets;

/// Where a relayout takes each result element from: source coordinates of result ones.
pub(crate) type SourceOf = Box<dyn Fn(&[i64]) -> Vec<i64>>;

/// Beyond this many (thread, register) pairs the check is skipped and the caller takes the
/// shared-memory path.
const MAX_PAIRS: usize = 1 << 20;

/// One layout evaluated on concrete threads.
struct Evaluated<'a> {
    shape: &'a [i64],
    layout: &'a Layout,
    offsets: Vec<Vec<i64>>,
}

impl<'a> Evaluated<'a> {
    fn new(layout: &'a Layout, shape: &'a [i64]) -> Evaluated<'a> {
        Evaluated { shape, layout, offsets: reg_offsets(layout, shape) }
    }

    fn threads(&self) -> u32 {
        self.layout.num_threads()
    }

    /// This thread's first coordinate per dimension, or `None` for a replica of a blocked
    /// layout (a thread past the tile in some dimension, which owns nothing), as the code
    /// generator computes it. Fragment layouts have no replicas: threads past a short
    /// dimension hold copies at wrapped coordinates.
    fn base(&self, thread: u32) -> Option<Vec<i64>> {
        let Layout::Blocked { size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order } = self.layout else {
            return crate::lower_ct::fragment_base(self.layout, self.shape, thread);
        };
        let (lane, warp) = (thread % 32, thread / 32);
        let rank = self.shape.len();
        let mut base = vec![0i64; rank];
        let (mut lane_div, mut warp_div) = (1u32, 1u32);
        for &d in order {
            let d = d as usize;
            let lane_d = (lane / lane_div) % tpw[d];
            let warp_d = (warp / warp_div) % wpc[d];
            lane_div *= tpw[d];
            warp_div *= wpc[d];
            base[d] = ((warp_d * tpw[d] + lane_d) * spt[d]) as i64;
            if base[d] >= self.shape[d] {
                return None;
            }
        }
        Some(base)
    }

    fn coords(&self, base: &[i64], reg: usize) -> Vec<i64> {
        base.iter().zip(&self.offsets[reg]).map(|(b, o)| b + o).collect()
    }
}

/// Row-major index of `coords` in `shape`.
pub(crate) fn flat_index(coords: &[i64], shape: &[i64]) -> i64 {
    coords.iter().zip(shape).fold(0, |acc, (c, s)| acc * s + c)
}

/// Both layouts of a relayout evaluated, with where each source element lives.
struct Relayout<'a> {
    src: Evaluated<'a>,
    dst: Evaluated<'a>,
    threads: u32,
    /// Flat source index → (thread, register). Valid owners are unique in a blocked layout
    /// (replicas own nothing); in a fragment layout, the last of its holders.
    owner: HashMap<i64, (u32, usize)>,
    /// (thread, flat source index) → register: every holder of a fragment layout's element
    /// (threads there hold copies along the dimensions the layout is longer than the tile).
    held: HashMap<(u32, i64), usize>,
}

/// `None` when the thread counts differ or the tiles are too large to check.
fn evaluate<'a>(source: (&'a Layout, &'a [i64]), result: (&'a Layout, &'a [i64])) -> Option<Relayout<'a>> {
    let (src, dst) = (Evaluated::new(source.0, source.1), Evaluated::new(result.0, result.1));
    let threads = src.threads();
    if threads != dst.threads() || (threads as usize) * (src.offsets.len() + dst.offsets.len()) > MAX_PAIRS {
        return None;
    }
    let mut owner = HashMap::new();
    let mut held = HashMap::new();
    for t in 0..threads {
        if let Some(base) = src.base(t) {
            for k in 0..src.offsets.len() {
                let flat = flat_index(&src.coords(&base, k), src.shape);
                owner.insert(flat, (t, k));
                held.insert((t, flat), k);
            }
        }
    }
    Some(Relayout { src, dst, threads, owner, held })
}

/// The coordinates in `shape` of row-major index `flat` (the inverse of [`flat_index`]).
pub(crate) fn unflatten(mut flat: i64, shape: &[i64]) -> Vec<i64> {
    let mut coords = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        coords[d] = flat % shape[d];
        flat /= shape[d];
    }
    coords
}

/// For a relayout whose result element at coordinates `c` is the source element at
/// `source_of(c)`: the source register each result register takes, when every thread
/// already holds what it needs at the same register index; `None` otherwise.
pub(crate) fn in_thread_sources(
    source: (&Layout, &[i64]),
    result: (&Layout, &[i64]),
    source_of: &dyn Fn(&[i64]) -> Vec<i64>,
) -> Option<Vec<usize>> {
    let Relayout { src, dst, threads, owner, held } = evaluate(source, result)?;
    let blocked_source = src.layout.is_blocked();
    let mut chosen: Vec<Option<usize>> = vec![None; dst.offsets.len()];
    for t in 0..threads {
        let Some(base) = dst.base(t) else { continue };
        for (r, pick) in chosen.iter_mut().enumerate() {
            let needed = flat_index(&source_of(&dst.coords(&base, r)), src.shape);
            // Held by this thread, at the same register in every thread: the renaming is
            // one list for all.
            let k = if blocked_source {
                match owner.get(&needed)? {
                    &(from, k) if from == t => k,
                    _ => return None,
                }
            } else {
                *held.get(&(t, needed))?
            };
            if pick.is_some_and(|p| p != k) {
                return None;
            }
            *pick = Some(k);
        }
    }
    Some(chosen.into_iter().map(|k| k.unwrap_or(0)).collect())
}

/// Where one result register comes from in a warp shuffle: every lane sends source register
/// `reg`, and lane `l` reads lane `offset ^ (xor of columns[j] for each bit j set in l)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ShuffleSource {
    pub(crate) reg: usize,
    pub(crate) columns: [u32; 5],
    pub(crate) offset: u32,
}

/// For a relayout as in [`in_thread_sources`] that keeps every element within its warp:
/// each result register's [`ShuffleSource`], or `None` when some element crosses warps, a
/// register's source register differs between lanes, or a lane map is not affine.
pub(crate) fn warp_shuffle_sources(
    source: (&Layout, &[i64]),
    result: (&Layout, &[i64]),
    source_of: &dyn Fn(&[i64]) -> Vec<i64>,
) -> Option<Vec<ShuffleSource>> {
    let Relayout { src, dst, threads, owner, .. } = evaluate(source, result)?;
    let mut out = Vec::with_capacity(dst.offsets.len());
    let bases: Vec<Option<Vec<i64>>> = (0..threads).map(|t| dst.base(t)).collect();
    for r in 0..dst.offsets.len() {
        let mut reg: Option<usize> = None;
        let mut lane_map: [Option<u32>; 32] = [None; 32];
        for t in 0..threads {
            let Some(base) = &bases[t as usize] else { continue };
            let needed = source_of(&dst.coords(base, r));
            let &(from, k) = owner.get(&flat_index(&needed, src.shape))?;
            if from / 32 != t / 32 || reg.is_some_and(|x| x != k) {
                return None;
            }
            reg = Some(k);
            let slot = &mut lane_map[(t % 32) as usize];
            if slot.is_some_and(|x| x != from % 32) {
                return None;
            }
            *slot = Some(from % 32);
        }
        // lane ↦ offset ^ A·lane, fitted on lane 0 and the unit lanes, then checked on all.
        let offset = lane_map[0].unwrap_or(0);
        let mut columns = [0u32; 5];
        for (j, col) in columns.iter_mut().enumerate() {
            *col = lane_map[1 << j].map(|l| l ^ offset).unwrap_or(0);
        }
        let fits = (0..32u32).all(|l| {
            lane_map[l as usize].is_none_or(|want| {
                (0..5).filter(|j| l & (1 << j) != 0).fold(offset, |acc, j| acc ^ columns[j]) == want
            })
        });
        if !fits {
            return None;
        }
        out.push(ShuffleSource { reg: reg.unwrap_or(0), columns, offset });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(spt: &[u32], tpw: &[u32], wpc: &[u32]) -> Layout {
        let rank = spt.len() as u32;
        Layout::Blocked {
            size_per_thread: spt.to_vec(),
            threads_per_warp: tpw.to_vec(),
            warps_per_cta: wpc.to_vec(),
            order: (0..rank).rev().collect(),
        }
    }

    fn reshape_map(from: Vec<i64>, to: Vec<i64>) -> impl Fn(&[i64]) -> Vec<i64> {
        move |c: &[i64]| unflatten(flat_index(c, &to), &from)
    }

    #[test]
    fn adding_a_unit_dimension_renames_registers() {
        let src = blocked(&[4], &[32], &[4]);
        let dst = blocked(&[1, 4], &[1, 32], &[1, 4]);
        let map = reshape_map(vec![512], vec![1, 512]);
        let perm = in_thread_sources((&src, &[512]), (&dst, &[1, 512]), &map).expect("in thread");
        assert_eq!(perm, (0..4).collect::<Vec<_>>());
    }

    #[test]
    fn a_transpose_across_threads_is_not_in_thread() {
        let l = blocked(&[1, 4], &[8, 4], &[4, 1]);
        let perm = |c: &[i64]| vec![c[1], c[0]];
        assert!(in_thread_sources((&l, &[16, 16]), (&l, &[16, 16]), &perm).is_none());
    }

    #[test]
    fn a_transpose_of_a_tile_held_by_one_thread_per_block_permutes_registers() {
        // Each thread holds a 2x2 block at (2i, 2j); the transposed layout hands it the
        // block at (2j, 2i): only when i == j is that in thread, so not in general.
        let l = blocked(&[2, 2], &[4, 8], &[1, 1]);
        let perm = |c: &[i64]| vec![c[1], c[0]];
        assert!(in_thread_sources((&l, &[8, 16]), (&blocked(&[2, 2], &[8, 4], &[1, 1]), &[16, 8]), &perm).is_none());
        // A 1x1 "transpose" of a tile one thread holds entirely is a register permutation.
        let one = blocked(&[2, 2], &[1, 32], &[1, 1]);
        let got = in_thread_sources((&one, &[2, 2]), (&one, &[2, 2]), &perm).expect("in thread");
        assert_eq!(got, vec![0, 2, 1, 3]);
    }

    #[test]
    fn replicas_need_nothing() {
        // 16 elements over 128 threads: threads 4.. own nothing in either layout.
        let src = blocked(&[4], &[32], &[4]);
        let dst = blocked(&[1, 4], &[1, 32], &[1, 4]);
        let map = reshape_map(vec![16], vec![1, 16]);
        let perm = in_thread_sources((&src, &[16]), (&dst, &[1, 16]), &map).expect("in thread");
        assert_eq!(perm, vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_transpose_within_a_warp_is_a_shuffle() {
        // 8x4 over one warp, one element per lane: lane 4·row + col. The transposed 4x8
        // tile puts result element (row, col) on lane 8·row + col: the lane bits rotate.
        let src = blocked(&[1, 1], &[8, 4], &[1, 1]);
        let dst = blocked(&[1, 1], &[4, 8], &[1, 1]);
        let perm = |c: &[i64]| vec![c[1], c[0]];
        assert!(in_thread_sources((&src, &[8, 4]), (&dst, &[4, 8]), &perm).is_none());
        let plan = warp_shuffle_sources((&src, &[8, 4]), (&dst, &[4, 8]), &perm).expect("within the warp");
        assert_eq!(plan.len(), 1);
        let s = &plan[0];
        for lane in 0..32u32 {
            let (row, col) = (lane / 8, lane % 8); // result element (row, col) = source (col, row)
            let want = 4 * col + row;
            let got = (0..5).filter(|j| lane & (1 << j) != 0).fold(s.offset, |acc, j| acc ^ s.columns[j]);
            assert_eq!(got, want, "lane {lane}");
        }
    }

    #[test]
    fn data_crossing_warps_is_no_shuffle() {
        let l = blocked(&[1, 4], &[8, 4], &[4, 1]);
        let perm = |c: &[i64]| vec![c[1], c[0]];
        assert!(warp_shuffle_sources((&l, &[32, 16]), (&l, &[16, 32]), &perm).is_none());
    }

    #[test]
    fn gathering_onto_one_thread_is_not_in_thread() {
        // The result puts all 16 elements on thread 0 (the others are replicas along the
        // unit dimension); the source spreads them over four threads.
        let src = blocked(&[4], &[32], &[4]);
        let dst = blocked(&[1, 4], &[32, 1], &[4, 1]);
        let map = reshape_map(vec![16], vec![1, 16]);
        assert!(in_thread_sources((&src, &[16]), (&dst, &[1, 16]), &map).is_none());
    }

    fn mma(warps: u32) -> Layout {
        Layout::Mma { version: 3, warps_per_cta: vec![warps, 1] }
    }

    #[test]
    fn fragment_registers_follow_the_wgmma_d_fragment() {
        // 128 x 64 over two warpgroups: thread 37 (warp 1, lane 5) holds rows 16 + 1 (+ 8),
        // columns 2 (+ 1) of each 8-column group, registers (group, row half, column).
        let l = mma(8);
        let offsets = crate::lower_ct::reg_offsets(&l, &[128, 64]);
        assert_eq!(offsets.len(), 32);
        assert_eq!(&offsets[..6], &[vec![0, 0], vec![0, 1], vec![8, 0], vec![8, 1], vec![0, 8], vec![0, 9]]);
        assert_eq!(crate::lower_ct::fragment_base(&l, &[128, 64], 37), Some(vec![17, 2]));
        // Thread 133 is warp 4: the second warpgroup's rows start at 64.
        assert_eq!(crate::lower_ct::fragment_base(&l, &[128, 64], 133), Some(vec![65, 2]));
        // A row slice: one register per row half, the columns' lanes hold copies.
        let slice = Layout::Slice { dim: 1, parent: Box::new(l.clone()) };
        assert_eq!(crate::lower_ct::reg_offsets(&slice, &[128]), vec![vec![0], vec![8]]);
        assert_eq!(crate::lower_ct::fragment_base(&slice, &[128], 39), Some(vec![17]));
    }

    #[test]
    fn broadcasting_a_fragment_row_vector_renames_registers() {
        // [M, 1] -> [M, N] in the fragment layout: every lane of a quad holds its rows'
        // values (copies), so the broadcast moves no data.
        let l = mma(4);
        let map = |c: &[i64]| vec![c[0], 0];
        let plan = in_thread_sources((&l, &[64, 1]), (&l, &[64, 64]), &map).expect("in thread");
        assert_eq!(plan.len(), 32);
        assert_eq!(&plan[..4], &[0, 0, 1, 1]);
        // And the row slice to its keepdims form.
        let slice = Layout::Slice { dim: 1, parent: Box::new(l.clone()) };
        let keep = reshape_map(vec![64], vec![64, 1]);
        assert_eq!(in_thread_sources((&slice, &[64]), (&l, &[64, 1]), &keep), Some(vec![0, 1]));
    }
}
