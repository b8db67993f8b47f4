//! Octree without duplicates: a body that straddles a split plane stays in the node.
//!
//! Every body is stored once. A body kept in node N lies inside N's half-open cell; a body in N's lower child on
//! an axis has `max < c` there and one in the upper child has `min >= c`, so bodies in disjoint subtrees never
//! overlap. The pairs are therefore: each node's own bodies among themselves, and each node's own bodies
//! against the bodies of its subtree. The pair search carries each node's straddlers down as an active list
//! (see [`self_pairs`]); the moving bodies walk the static tree ([`crate::batch`]) by the same [`child_mask`].

use crate::straddlers::{SLABS_MIN, SWEEP_AXIS, Slabs, slab_pairs, sort_on, split};
use crate::tree::{Item, Node, child_mask};
use collide_broadphase::Pair;
use collide_math::Vec3;

/// The pair search's scratch for one task chunk, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// The runs of the active lists of the nodes on the current path and the slabs of their own bodies, each
    /// node's above its parent's.
    active: Vec<Item>,
    /// The runs of the active lists, each node's above its parent's.
    runs: Vec<Run>,
    /// A node's own bodies that can meet one run.
    near: Vec<Item>,
    /// The children (a mask) each item of the run being scattered touches.
    codes: Vec<u8>,
    slabs: Slabs,
}

/// One run of an active list: `active[s..e]`, the bodies of one slab of one ancestor that touch the cell, sorted
/// by `min` on `axis`; `lo..hi` bounds their boxes (invariant: every box of the run lies inside it).
#[derive(Clone, Copy, Debug)]
struct Run {
    s: u32,
    e: u32,
    axis: u8,
    lo: Vec3,
    hi: Vec3,
}

/// The root's own bodies split into slabs ([`split`]), once per frame before the search: every task needs them.
#[derive(Debug, Default)]
pub(crate) struct RootSlabs {
    items: Vec<Item>,
    bounds: [usize; 4],
}

impl RootSlabs {
    /// Split the root's own bodies of the tree `nodes`, `items` (nothing when the root is a leaf).
    pub(crate) fn prepare(&mut self, nodes: &[Node], items: &[Item]) {
        self.items.clear();
        self.bounds = [0; 4];
        if let Some(root) = nodes.first().filter(|r| !r.is_leaf()) {
            self.bounds = split(&items[root.start as usize..root.end as usize], root.c, &mut self.items);
        }
    }
}

/// The pair search's tasks: the root's own bodies among themselves, then one per root child (its subtree).
pub(crate) fn tasks(nodes: &[Node]) -> usize {
    match nodes.first() {
        None => 0,
        Some(root) if root.is_leaf() => 1,
        Some(_) => 9,
    }
}

/// Pairs of the tasks `range` (see [`tasks`]); `root` holds the root's slabs ([`RootSlabs::prepare`]). Returns
/// the box tests made.
///
/// One depth-first pass per root child instead of a subtree walk per straddler: each node tests its own bodies
/// among themselves and against its **active list**, the bodies of its ancestors whose boxes touch its cell
/// (only those can meet a body inside the cell). The list is kept as runs, one per slab of each ancestor
/// ([`split`]: the ancestor's own bodies by the plane they straddle, each slab sorted along an axis it spreads
/// over). A run of bodies straddling a plane is a thin layer along that plane: only the node's bodies within the
/// run's bounds can meet it, and those are swept against the run along the run's axis. Sweeping every run on x
/// instead tested each ancestor straddler against all the node's bodies overlapping it in x — at the dense
/// cluster 9.7 M of the frame's 12 M tests; now all the runs make 2 M. A child's runs are the parent's runs and
/// the parent's slabs, each keeping the bodies that touch the child's half-open cell ([`child_mask`], the rule of
/// the build and of [`crate::batch`]), scattered to the eight children in one pass ([`scatter`]): the runs shrink as
/// cells do. Runs instead of one merged list because the merge's data-dependent branch was most of the search's
/// time. The runs live on one stack, the children's above their parent's.
pub(crate) fn self_pairs(
    nodes: &[Node],
    items: &[Item],
    root: &RootSlabs,
    range: std::ops::Range<usize>,
    out: &mut Vec<Pair>,
    scratch: &mut Scratch,
) -> u64 {
    let mut tests = 0;
    let Some(node) = nodes.first() else { return 0 };
    let (sl, b) = (&root.items[..], root.bounds);
    for task in range {
        if node.is_leaf() {
            tests += sweep::<0>(&items[node.start as usize..node.end as usize], out);
        } else if task == 0 {
            let own = &items[node.start as usize..node.end as usize];
            tests += own_pairs(node, own, sl, b, &mut scratch.slabs, out);
        } else {
            tests += root_child(nodes, items, node, sl, b, task - 1, scratch, out);
        }
    }
    tests
}

/// Pairs among the own bodies `own` of the inner node `node`, also given as the slabs `sl[b[0]..b[3]]`
/// ([`split`]); a few are swept on x as the node holds them.
fn own_pairs(node: &Node, own: &[Item], sl: &[Item], b: [usize; 4], slabs: &mut Slabs, out: &mut Vec<Pair>) -> u64 {
    if own.len() < SLABS_MIN {
        return sweep::<0>(own, out);
    }
    slab_pairs(&sl[b[0]..b[1]], &sl[b[1]..b[2]], &sl[b[2]..b[3]], node.c, slabs, out)
}

/// Search the subtree of the root's child `k`, whose runs are the root's slabs `sl[b[0]..b[3]]`, each keeping
/// the bodies that touch the child's cell.
#[allow(clippy::too_many_arguments, reason = "the walk's state; a struct would only rename it")]
fn root_child(
    nodes: &[Node],
    items: &[Item],
    root: &Node,
    sl: &[Item],
    b: [usize; 4],
    k: usize,
    scratch: &mut Scratch,
    out: &mut Vec<Pair>,
) -> u64 {
    let ci = root.first_child as usize + k;
    if is_empty_leaf(&nodes[ci]) {
        return 0;
    }
    scratch.active.clear();
    scratch.runs.clear();
    let bit = 1u8 << k;
    for (slab, &axis) in SWEEP_AXIS.iter().enumerate() {
        let from = scratch.active.len();
        for it in &sl[b[slab]..b[slab + 1]] {
            if child_mask(it.aabb.min, it.aabb.max, root.c) & bit != 0 {
                scratch.active.push(*it);
            }
        }
        push_run(scratch, from, scratch.active.len(), axis);
    }
    let runs = 0..scratch.runs.len();
    walk(nodes, items, ci, runs, scratch, out)
}

fn is_empty_leaf(n: &Node) -> bool {
    n.is_leaf() && n.start == n.end
}

/// Record `active[s..e]` as a run swept on `axis`, with its bounds.
#[inline]
fn push_run(scratch: &mut Scratch, s: usize, e: usize, axis: u8) {
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for it in &scratch.active[s..e] {
        lo = lo.min(it.aabb.min);
        hi = hi.max(it.aabb.max);
    }
    scratch.runs.push(Run { s: s as u32, e: e as u32, axis, lo, hi });
}

/// Scatter `active[s..e]` (one run of a node split at `c`, or one of its slabs) to the children in `live`: the
/// items touching child `k`'s half-open cell ([`child_mask`], the rule of the build and of [`crate::batch`]) are copied,
/// in order, to a new run that becomes `runs[first + k · stride + j]`. One pass computes every item's mask, the
/// second writes each item to all 8 children without a branch, a child it does not touch getting a write that
/// the next item overwrites (each child's region has one spare slot for the last such write). Filtering the
/// parent's runs once per child instead made 8 copies and 8 masks per item: a fifth of the dense frame.
#[allow(clippy::too_many_arguments, reason = "one run's place in the children's run tables")]
fn scatter(
    scratch: &mut Scratch,
    s: usize,
    e: usize,
    axis: u8,
    c: Vec3,
    live: u8,
    first: usize,
    stride: usize,
    j: usize,
) {
    let Scratch { active, runs, codes, .. } = scratch;
    codes.clear();
    let mut counts = [0usize; 8];
    for it in &active[s..e] {
        let m = child_mask(it.aabb.min, it.aabb.max, c) & live;
        codes.push(m);
        for (k, n) in counts.iter_mut().enumerate() {
            *n += usize::from(m >> k & 1);
        }
    }
    let base = active.len();
    let mut at = [0usize; 8];
    let mut end = base;
    for k in 0..8 {
        at[k] = end;
        end += counts[k] + 1;
    }
    active.resize(end, Item::default());
    for (i, &m) in (s..e).zip(codes.iter()) {
        let it = active[i];
        for (k, a) in at.iter_mut().enumerate() {
            active[*a] = it;
            *a += usize::from(m >> k & 1);
        }
    }
    let mut from = base;
    for k in 0..8 {
        let to = from + counts[k];
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for it in &active[from..to] {
            lo = lo.min(it.aabb.min);
            hi = hi.max(it.aabb.max);
        }
        runs[first + k * stride + j] = Run { s: from as u32, e: to as u32, axis, lo, hi };
        from = to + 1;
    }
}

/// Pairs of node `ni`'s own bodies against its runs, among themselves, and below.
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
    let mut tests = 0;
    if !own.is_empty() {
        for r in runs.clone() {
            tests += run_pairs(&scratch.active, scratch.runs[r], own, &mut scratch.near, out);
        }
    }
    if node.is_leaf() {
        return tests + sweep::<0>(own, out);
    }
    let base = scratch.active.len();
    let b = split(own, node.c, &mut scratch.active);
    tests += own_pairs(node, own, &scratch.active, b, &mut scratch.slabs, out);

    // The children's runs: the node's runs and slabs scattered, child k's at `first + k · stride ..`.
    let first_child = node.first_child as usize;
    let live = (0..8).fold(0u8, |m, k| m | u8::from(!is_empty_leaf(&nodes[first_child + k])) << k);
    let (first, stride) = (scratch.runs.len(), runs.len() + 3);
    let empty = Run { s: 0, e: 0, axis: 0, lo: Vec3::ZERO, hi: Vec3::ZERO };
    scratch.runs.resize(first + 8 * stride, empty);
    for (j, r) in runs.clone().enumerate() {
        let Run { s, e, axis, .. } = scratch.runs[r];
        scatter(scratch, s as usize, e as usize, axis, node.c, live, first, stride, j);
    }
    for (slab, &axis) in SWEEP_AXIS.iter().enumerate() {
        scatter(scratch, b[slab], b[slab + 1], axis, node.c, live, first, stride, runs.len() + slab);
    }
    for k in 0..8 {
        if live >> k & 1 != 0 {
            let from = first + k * stride;
            tests += walk(nodes, items, first_child + k, from..from + stride, scratch, out);
        }
    }
    scratch.active.truncate(base);
    scratch.runs.truncate(first);
    tests
}

/// Pairs between the run `run` (its items in `active`) and `own` (sorted by `min.x`): the bodies of `own` inside
/// the run's bounds, sorted on the run's axis, swept against it.
#[inline]
fn run_pairs(active: &[Item], run: Run, own: &[Item], near: &mut Vec<Item>, out: &mut Vec<Pair>) -> u64 {
    if run.e == run.s {
        return 0;
    }
    near.clear();
    near.extend(own.iter().filter(|it| it.aabb.min.cmple(run.hi).all() & it.aabb.max.cmpge(run.lo).all()));
    if near.is_empty() {
        return 0;
    }
    let xs = &active[run.s as usize..run.e as usize];
    match run.axis {
        0 => sweep_two::<0>(xs, near, out),
        1 => {
            sort_on::<1>(near);
            sweep_two::<1>(xs, near, out)
        }
        _ => {
            sort_on::<2>(near);
            sweep_two::<2>(xs, near, out)
        }
    }
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
            emit(a, b, out);
        }
    }
    tests
}

/// Append the pair of `a` and `b` when their boxes overlap, without a branch: whether two boxes of a dense crowd
/// overlap is a coin flip, and the mispredicted branch around the push was the hottest line of the search.
/// Pushing always and dropping the pair again (a length update) costs one store.
#[inline(always)]
fn emit(a: &Item, b: &Item, out: &mut Vec<Pair>) {
    out.push(Pair::new(a.id, b.id));
    let keep = out.len() - usize::from(!a.aabb.overlaps(&b.aabb));
    out.truncate(keep);
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
            emit(a, b, out);
        }
    }
    tests
}
