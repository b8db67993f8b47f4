//! Octree without duplicates: a body that straddles a split plane stays in the node.
//!
//! Every body is stored once. A body kept in node N lies inside N's half-open cell; a body in N's lower child on
//! an axis has `max < c` there and one in the upper child has `min >= c`, so bodies in disjoint subtrees never
//! overlap. The pairs are therefore: each node's own bodies among themselves, and each node's own bodies
//! against the bodies of its subtree. The pair search carries each node's straddlers down as an active list
//! (see [`self_pairs`]); a query of one box walks only the children it touches ([`child_mask`]).

use crate::straddlers::{SLABS_MIN, Slabs, own_pairs};
use crate::tree::{Item, NONE, Node, STACK, child_mask, window};
use collide_broadphase::Pair;
use collide_math::Vec3;

/// The pair search's scratch for one task chunk, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// The runs of the active lists of the nodes on the current path, each node's above its parent's.
    active: Vec<Item>,
    /// `active[s..e]` for each run, the runs of a node above its parent's.
    runs: Vec<(u32, u32)>,
    slabs: Slabs,
}

/// The pair search's tasks: the root's own bodies among themselves, then one per root child (its subtree).
pub(crate) fn tasks(nodes: &[Node]) -> usize {
    match nodes.first() {
        None => 0,
        Some(root) if root.is_leaf() => 1,
        Some(_) => 9,
    }
}

/// Pairs of the tasks `range` (see [`tasks`]). Returns the box tests made.
///
/// One depth-first pass per root child instead of a subtree walk per straddler: each node tests its own bodies
/// among themselves and against its **active list**, the bodies of its ancestors whose boxes touch its cell
/// (only those can meet a body inside the cell). The list is kept as one run per ancestor, each sorted by
/// `min.x` like the node's own bodies, so each run is a sweep against them. A child's runs are the parent's
/// runs and the parent's own bodies, each keeping the bodies that touch the child's half-open cell
/// ([`child_mask`], the rule of the build and of [`query`]): the runs shrink as cells do. Runs instead of one
/// merged list because the merge's data-dependent branch was most of the search's time; keeping a run is a copy
/// and a branch-free compaction. The runs live on one stack, a child's above its parent's. The own bodies of an
/// inner node are paired slab by slab ([`own_pairs`]).
pub(crate) fn self_pairs(
    nodes: &[Node],
    items: &[Item],
    range: std::ops::Range<usize>,
    out: &mut Vec<Pair>,
    scratch: &mut Scratch,
) -> u64 {
    let mut tests = 0;
    for task in range {
        let root = &nodes[0];
        if task == 0 {
            tests += node_pairs(root, items, &mut scratch.slabs, out);
        } else {
            scratch.active.clear();
            scratch.runs.clear();
            tests += child(nodes, items, root, 0..0, task - 1, scratch, out);
        }
    }
    tests
}

/// Pairs among `node`'s own bodies.
fn node_pairs(node: &Node, items: &[Item], slabs: &mut Slabs, out: &mut Vec<Pair>) -> u64 {
    let own = &items[node.start as usize..node.end as usize];
    if node.is_leaf() || own.len() < SLABS_MIN { sweep::<0>(own, out) } else { own_pairs(own, node.c, slabs, out) }
}

/// Push child `k` of `node`'s runs (from the parent's runs `runs` and `node`'s own bodies), search the child's
/// subtree, and pop them.
fn child(
    nodes: &[Node],
    items: &[Item],
    node: &Node,
    runs: std::ops::Range<usize>,
    k: usize,
    scratch: &mut Scratch,
    out: &mut Vec<Pair>,
) -> u64 {
    let ci = node.first_child as usize + k;
    let ch = &nodes[ci];
    if ch.is_leaf() && ch.start == ch.end {
        return 0;
    }
    let (c, bit) = (node.c, 1u8 << k);
    let (base, first_run) = (scratch.active.len(), scratch.runs.len());
    for r in runs {
        let (s, e) = scratch.runs[r];
        let from = scratch.active.len();
        scratch.active.extend_from_within(s as usize..e as usize);
        keep_touching(scratch, from, c, bit);
    }
    let from = scratch.active.len();
    scratch.active.extend_from_slice(&items[node.start as usize..node.end as usize]);
    keep_touching(scratch, from, c, bit);
    let last_run = scratch.runs.len();
    let tests = walk(nodes, items, ci, first_run..last_run, scratch, out);
    scratch.active.truncate(base);
    scratch.runs.truncate(first_run);
    tests
}

/// The items `active[from..]`: keep those that touch the child `bit` of a cell split at `c` (compacted in place,
/// without a branch per item), and record them as a run unless none is left.
#[inline]
fn keep_touching(scratch: &mut Scratch, from: usize, c: Vec3, bit: u8) {
    let active = &mut scratch.active;
    let mut n = from;
    for i in from..active.len() {
        let it = active[i];
        active[n] = it;
        n += usize::from(child_mask(it.aabb.min, it.aabb.max, c) & bit != 0);
    }
    active.truncate(n);
    if n > from {
        scratch.runs.push((from as u32, n as u32));
    }
}

/// Pairs of node `ni`'s own bodies among themselves, against its runs, and below.
fn walk(
    nodes: &[Node],
    items: &[Item],
    ni: usize,
    runs: std::ops::Range<usize>,
    scratch: &mut Scratch,
    out: &mut Vec<Pair>,
) -> u64 {
    let node = &nodes[ni];
    let own = &items[node.start as usize..node.end as usize];
    let mut tests = node_pairs(node, items, &mut scratch.slabs, out);
    for &(s, e) in &scratch.runs[runs.clone()] {
        tests += sweep_two::<0>(&scratch.active[s as usize..e as usize], own, out);
    }
    if !node.is_leaf() {
        for k in 0..8 {
            tests += child(nodes, items, node, runs.clone(), k, scratch, out);
        }
    }
    tests
}

/// Pairs among `own`, sorted by `min` on axis `A`: each body against those that start within its extent there.
#[inline]
pub(crate) fn sweep<const A: usize>(own: &[Item], out: &mut Vec<Pair>) -> u64 {
    let mut tests = 0;
    for (i, a) in own.iter().enumerate() {
        for b in &own[i + 1..] {
            if b.aabb.min[A] > a.aabb.max[A] {
                break;
            }
            tests += 1;
            if a.aabb.overlaps(&b.aabb) {
                out.push(Pair::new(a.id, b.id));
            }
        }
    }
    tests
}

/// Pairs between `xs` and `ys`, both sorted by `min` on axis `A`: walk both in that order; each box is tested
/// against the boxes of the other list that start at or after it and within its extent, so every overlapping
/// pair is tested exactly once (ties go to `xs`' box, which then includes the `ys` box of equal `min`).
#[inline]
pub(crate) fn sweep_two<const A: usize>(xs: &[Item], ys: &[Item], out: &mut Vec<Pair>) -> u64 {
    let mut tests = 0;
    let (mut i, mut j) = (0, 0);
    while i < xs.len() && j < ys.len() {
        let (a, rest) = if xs[i].aabb.min[A] <= ys[j].aabb.min[A] {
            i += 1;
            (&xs[i - 1], &ys[j..])
        } else {
            j += 1;
            (&ys[j - 1], &xs[i..])
        };
        for b in rest {
            if b.aabb.min[A] > a.aabb.max[A] {
                break;
            }
            tests += 1;
            if a.aabb.overlaps(&b.aabb) {
                out.push(Pair::new(a.id, b.id));
            }
        }
    }
    tests
}

/// Test `q` against the bodies of `from`'s strict subtree whose cells it touches; `live` filters stored bodies
/// (the static tree's moved ones).
#[inline]
fn descend(nodes: &[Node], items: &[Item], from: &Node, q: &Item, live: Option<&[bool]>, out: &mut Vec<Pair>) -> u64 {
    let mut tests = 0;
    let mut stack = [0u32; STACK];
    let mut sp = 0;
    let push_children = |node: &Node, stack: &mut [u32; STACK], sp: &mut usize| {
        let mut m = child_mask(q.aabb.min, q.aabb.max, node.c);
        while m != 0 {
            stack[*sp] = node.first_child + m.trailing_zeros();
            *sp += 1;
            m &= m - 1;
        }
    };
    push_children(from, &mut stack, &mut sp);
    while sp > 0 {
        sp -= 1;
        let node = &nodes[stack[sp] as usize];
        if node.end > node.start {
            let own = &items[window(node, items, q.aabb.min.x, q.aabb.max.x)];
            tests += own.len() as u64;
            for t in own {
                if q.aabb.overlaps(&t.aabb) && live.is_none_or(|l| l[t.id as usize]) {
                    out.push(Pair::new(q.id, t.id));
                }
            }
        }
        if node.first_child != NONE {
            push_children(node, &mut stack, &mut sp);
        }
    }
    tests
}

/// Pairs of `q` with the live bodies of a nodup tree: the root's bodies, then the walk down the cells `q`
/// touches. O(depth + bodies in the visited nodes).
pub(crate) fn query(nodes: &[Node], items: &[Item], q: &Item, live: &[bool], out: &mut Vec<Pair>) -> u64 {
    let Some(root) = nodes.first() else { return 0 };
    let own = &items[window(root, items, q.aabb.min.x, q.aabb.max.x)];
    let mut tests = own.len() as u64;
    for t in own {
        if q.aabb.overlaps(&t.aabb) && live[t.id as usize] {
            out.push(Pair::new(q.id, t.id));
        }
    }
    if root.first_child != NONE {
        tests += descend(nodes, items, root, q, Some(live), out);
    }
    tests
}
