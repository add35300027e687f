//! Lower bounds on the initiation interval: ResMII (resource pressure) and RecMII
//! (recurrences).

use crate::model::{LoopBody, Machine};
use std::collections::VecDeque;

/// Resource-constrained minimum II: the maximum over resources of
/// `ceil(total busy cycles of one iteration / units)`, and at least 1.
///
/// Uses of out-of-range resources and resources with zero units are ignored (validation
/// reports them); the result saturates at `u32::MAX`.
pub fn res_mii(body: &LoopBody, machine: &Machine) -> u32 {
    let mut busy = vec![0u64; machine.resources.len()];
    for op in &body.ops {
        for u in &op.uses {
            if let Some(b) = busy.get_mut(u.resource) {
                *b += u64::from(u.cycles);
            }
        }
    }
    let mut mii = 1u64;
    for (b, r) in busy.iter().zip(&machine.resources) {
        if r.units > 0 {
            mii = mii.max(b.div_ceil(u64::from(r.units)));
        }
    }
    u32::try_from(mii).unwrap_or(u32::MAX)
}

/// Recurrence-constrained minimum II: the maximum over dependence cycles of
/// `ceil(sum of latencies / sum of distances)`; 0 when no cycle has a positive latency.
///
/// Rather than enumerating cycles (exponentially many), this binary-searches the smallest
/// integer II for which no cycle has a positive total weight `latency - II * distance`,
/// separately for every strongly connected component (only they contain cycles), testing each
/// candidate with a label-correcting longest-path search. A component is skipped outright when
/// the best II found so far already satisfies it, which is the common case after the first big
/// component.
///
/// On bodies that [`crate::validate`] rejects (out-of-range deps are ignored; a zero-distance
/// cycle of positive latency can be satisfied by no II) the result is a finite but meaningless
/// bound; it never panics. The result saturates at `u32::MAX`.
pub fn rec_mii(body: &LoopBody) -> u32 {
    let n = body.ops.len();
    let edges: Vec<(usize, usize, i128, i128)> = body
        .deps
        .iter()
        .filter(|d| d.from < n && d.to < n)
        .map(|d| (d.from, d.to, i128::from(d.latency), i128::from(d.distance)))
        .collect();
    let comp = scc(n, &edges);
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    // Per component: its nodes (globally indexed) and its internal edges.
    let mut nodes: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (v, &c) in comp.iter().enumerate() {
        nodes[c].push(v);
    }
    let mut internal: Vec<Vec<(usize, usize, i128, i128)>> = vec![Vec::new(); ncomp];
    for &(a, b, l, d) in &edges {
        if comp[a] == comp[b] {
            internal[comp[a]].push((a, b, l, d));
        }
    }
    let mut local = vec![0usize; n];
    let mut best: i128 = 0;
    for c in 0..ncomp {
        if internal[c].is_empty() {
            continue;
        }
        for (i, &v) in nodes[c].iter().enumerate() {
            local[v] = i;
        }
        let mut adj: Vec<Vec<(usize, i128, i128)>> = vec![Vec::new(); nodes[c].len()];
        let mut hi: i128 = 1;
        for &(a, b, l, d) in &internal[c] {
            adj[local[a]].push((local[b], l, d));
            hi += l;
        }
        // No cycle of the component can need more than the sum of all its latencies (every
        // real recurrence has distance >= 1); capping at u32::MAX keeps the result in range.
        let hi = hi.min(i128::from(u32::MAX));
        if !has_positive_cycle(&adj, best) || best >= hi {
            continue;
        }
        // Invariant: `lo` is infeasible, `hi` feasible (or the cap).
        let (mut lo, mut hi) = (best, hi);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if has_positive_cycle(&adj, mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        best = hi;
    }
    u32::try_from(best).unwrap_or(u32::MAX)
}

/// Whether some cycle has a positive total weight `latency - ii * distance`.
///
/// Longest paths from a virtual source connected to every node, computed by a FIFO
/// label-correcting search (SPFA). Two stopping rules detect a positive cycle: a node being
/// re-queued `n` times (the classic Bellman-Ford bound, which guarantees termination) and, much
/// sooner in practice, a cycle in the predecessor graph, checked every `n` improvements (a
/// predecessor cycle formed by strict improvements always has positive weight).
pub(crate) fn has_positive_cycle(adj: &[Vec<(usize, i128, i128)>], ii: i128) -> bool {
    let n = adj.len();
    if n == 0 {
        return false;
    }
    let mut dist = vec![0i128; n];
    let mut parent = vec![usize::MAX; n];
    let mut count = vec![0usize; n];
    let mut in_queue = vec![true; n];
    let mut queue: VecDeque<usize> = (0..n).collect();
    let mut improvements = 0usize;
    while let Some(u) = queue.pop_front() {
        in_queue[u] = false;
        for &(v, lat, d) in &adj[u] {
            let cand = dist[u] + lat - ii * d;
            if cand > dist[v] {
                dist[v] = cand;
                parent[v] = u;
                if v == u {
                    return true;
                }
                improvements += 1;
                if improvements % n == 0 && parent_cycle(&parent) {
                    return true;
                }
                if !in_queue[v] {
                    // Without a positive cycle FIFO order re-queues a node at most n - 1
                    // times (once per extra edge on its longest path), so n re-queues prove
                    // one. Improvements are not counted: parallel edges can improve a node
                    // several times in one scan.
                    count[v] += 1;
                    if count[v] >= n {
                        return true;
                    }
                    in_queue[v] = true;
                    queue.push_back(v);
                }
            }
        }
    }
    false
}

/// Whether the predecessor pointers contain a cycle (iterative colouring walk, O(n)).
fn parent_cycle(parent: &[usize]) -> bool {
    // 0 = unvisited, 1 = on the current walk, 2 = known to reach the root.
    let mut state = vec![0u8; parent.len()];
    let mut walk = Vec::new();
    for s in 0..parent.len() {
        let mut u = s;
        while u != usize::MAX && state[u] == 0 {
            state[u] = 1;
            walk.push(u);
            u = parent[u];
        }
        if u != usize::MAX && state[u] == 1 {
            return true;
        }
        for &w in &walk {
            state[w] = 2;
        }
        walk.clear();
    }
    false
}

/// Strongly connected components (iterative Tarjan); returns each node's component id.
pub(crate) fn scc(n: usize, edges: &[(usize, usize, i128, i128)]) -> Vec<usize> {
    let mut start = vec![0usize; n + 1];
    for &(a, _, _, _) in edges {
        start[a + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut targets = vec![0usize; edges.len()];
    for &(a, b, _, _) in edges {
        targets[fill[a]] = b;
        fill[a] += 1;
    }
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut stack = Vec::new();
    let mut next_index = 0;
    let mut ncomp = 0;
    // Explicit DFS stack of (node, next edge position) so deep graphs cannot overflow.
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        call.push((root, start[root]));
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if *pos < start[v + 1] {
                let w = targets[*pos];
                *pos += 1;
                if index[w] == UNSEEN {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, start[w]));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dep, OpNode, Resource, ResourceUse};

    fn op(name: &str, uses: Vec<ResourceUse>) -> OpNode {
        OpNode::new(name, 1, uses)
    }

    fn dep(from: usize, to: usize, latency: u32, distance: u32) -> Dep {
        Dep::new(from, to, latency, distance)
    }

    #[test]
    fn rec_mii_latency_5_distance_2_is_3() {
        // a -> b (lat 2, dist 0), b -> a (lat 3, dist 2): cycle latency 5, distance 2.
        let body = LoopBody {
            ops: vec![op("a", vec![]), op("b", vec![])],
            deps: vec![dep(0, 1, 2, 0), dep(1, 0, 3, 2)],
        };
        assert_eq!(rec_mii(&body), 3);
    }

    #[test]
    fn rec_mii_takes_the_worst_cycle_and_ignores_acyclic_parts() {
        // Self loop 7/2 -> 4; two-op cycle 9/1 -> 9; a long acyclic chain must not matter.
        let mut body = LoopBody {
            ops: (0..6).map(|i| op(&format!("o{i}"), vec![])).collect(),
            deps: vec![
                dep(0, 0, 7, 2),
                dep(1, 2, 4, 0),
                dep(2, 1, 5, 1),
                dep(3, 4, 1000, 0),
                dep(4, 5, 1000, 0),
            ],
        };
        assert_eq!(rec_mii(&body), 9);
        body.deps.truncate(1);
        assert_eq!(rec_mii(&body), 4);
        body.deps.clear();
        assert_eq!(rec_mii(&body), 0);
    }

    #[test]
    fn res_mii_two_units_five_users_is_3() {
        let m = Machine::new(
            90,
            vec![Resource {
                name: "alu".into(),
                units: 2,
            }],
        );
        let use1 = ResourceUse {
            resource: 0,
            start: 0,
            cycles: 1,
        };
        let body = LoopBody {
            ops: (0..5)
                .map(|i| op(&format!("o{i}"), vec![use1.clone()]))
                .collect(),
            deps: vec![],
        };
        assert_eq!(res_mii(&body, &m), 3);
        assert_eq!(res_mii(&LoopBody::default(), &m), 1);
    }

    #[test]
    fn scc_finds_components() {
        let e = |a, b| (a, b, 0i128, 0i128);
        let comp = scc(5, &[e(0, 1), e(1, 0), e(1, 2), e(3, 4), e(4, 3)]);
        assert_eq!(comp[0], comp[1]);
        assert_ne!(comp[0], comp[2]);
        assert_eq!(comp[3], comp[4]);
        assert_ne!(comp[2], comp[3]);
    }

    #[test]
    fn positive_cycle_check_matches_definition() {
        // Cycle latency 10, distance 3: positive for II <= 3, not for II >= 4.
        let adj = vec![vec![(1, 4i128, 1i128)], vec![(0, 6, 2)]];
        assert!(has_positive_cycle(&adj, 3));
        assert!(!has_positive_cycle(&adj, 4));
    }
}
