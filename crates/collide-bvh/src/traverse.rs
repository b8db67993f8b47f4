//! Pairs from a [`FlatBvh`]: its self-join (every overlapping pair of its leaves, once), and queries of it by
//! outside boxes.
//!
//! **The self-join** is a simultaneous descent of the tree against itself (Bullet's `collideTT`, parry's BVTT):
//! the pairs inside a subtree are the pairs inside each child plus the pairs *between* the two children, and the
//! pairs between two subtrees whose boxes overlap are the pairs between their children whose boxes overlap. Each
//! pair is found once, at the node where its two leaves part, with no ownership test and no deduplication, and a
//! test between two nodes high up serves every leaf below them. (One root-to-leaf query per leaf, skipping the
//! leaves before it, took 4× the instructions at 10⁵ bodies: it walks the upper levels once per leaf.)
//!
//! Two things make it fast on a CPU:
//! - **buckets.** A subtree of at most [`BUCKET`] leaves is not opened: its leaves are consecutive in the sorted
//!   order, so it is a run of [`FlatBvh::leaf_boxes`], and two such runs are tested box by box. Below that size
//!   opening nodes costs more (a node is a cache line, often a miss) than the few extra box tests, which read
//!   contiguous memory;
//! - **no branch on a test's outcome.** Whether two boxes of a crowd overlap is a coin flip. Each candidate (a
//!   subtree pair to descend into, a leaf pair to report) is written unconditionally and the count advanced by
//!   the test's outcome; a branch there mispredicted half the time and made the join three times slower.
//!
//! The join is cut into tasks (`plan`): the top of the tree opened depth-first until every task covers at most
//! a few thousand leaves. The tasks run in parallel chunks; their pairs are appended in task order, so the
//! output does not depend on the scheduling. A task over one subtree first reads the subtree's nodes and leaf
//! boxes in address order (`warm`): the descent touches all of them, in an order the hardware prefetcher cannot
//! follow, and at 10⁵ bodies those first touches were most of the join's misses to memory (callgrind with a
//! 1 MB last-level cache: 155 k a frame).

use crate::flat::{FlatBvh, Inner, LEAF};
use crate::refine::MAX_HEIGHT;
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::{Pair, Parallelism, Tally};
use collide_math::Aabb;
use std::ops::Range;

/// The most leaves of a bucket: a subtree this small is tested as its run of leaf boxes, not opened.
pub(crate) const BUCKET: u32 = 4;

/// A subtree as the join names it: an inner node's index, or with [`RUN`] set a run of consecutive leaves
/// (`RUN | (count − 1) << RUN_SHIFT | first`).
type Ref = u32;
const RUN: u32 = 1 << 31;
const RUN_SHIFT: u32 = 27;
/// Positions must fit below the count field: 2²⁷ ≈ 134 million leaves.
pub(crate) const MAX_LEAVES: usize = 1 << RUN_SHIFT;

/// The run of `count` leaves from `first`.
#[inline(always)]
fn run(first: u32, count: u32) -> Ref {
    debug_assert!((1..=BUCKET).contains(&count) && (first as usize) < MAX_LEAVES);
    RUN | ((count - 1) << RUN_SHIFT) | first
}

/// The positions of a run.
#[inline(always)]
fn run_range(r: Ref) -> Range<usize> {
    let first = (r & ((1 << RUN_SHIFT) - 1)) as usize;
    first..first + ((r & !RUN) >> RUN_SHIFT) as usize + 1
}

/// Child `c` of inner node `s`: a run when it covers at most [`BUCKET`] leaves, else the inner node. Without a
/// branch: which one it is varies from child to child, and the branch was a third of the join's mispredictions.
#[inline(always)]
fn child_ref(n: &Inner, s: u32, c: usize) -> Ref {
    let (lo, hi) = if c == 0 { (n.first, s) } else { (s + 1, n.last) };
    let count = (hi - lo + 1).min(BUCKET);
    let as_run = RUN | ((count - 1) << RUN_SHIFT) | lo;
    let mask = 0u32.wrapping_sub(u32::from(hi - lo < BUCKET));
    (as_run & mask) | (n.child[c] & !mask)
}

/// The number of leaves under a subtree.
fn size(bvh: &FlatBvh, r: Ref) -> u32 {
    if r & RUN != 0 { run_range(r).len() as u32 } else { bvh.nodes[r as usize].last - bvh.nodes[r as usize].first + 1 }
}

/// The union of a run's leaf boxes.
#[inline(always)]
fn run_box(bvh: &FlatBvh, r: Ref) -> Aabb {
    bvh.leaf_boxes[run_range(r)].iter().fold(Aabb::EMPTY, |u, b| u.union(b))
}

/// A piece of the self-join: the pairs inside one subtree, or between two disjoint subtrees whose boxes overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Task {
    /// Pairs among the leaves of one subtree.
    Within(Ref),
    /// Pairs between two disjoint subtrees.
    Between(Ref, Ref),
}

/// The self-join's plan: the tree's top cut into tasks of at most `limit` leaves (or that cannot be cut further),
/// in depth-first order, so that parallel chunks of tasks find every pair once, the output order does not depend
/// on the scheduling, and consecutive tasks work on nearby memory (subtrees are contiguous ranges of nodes and
/// leaves: a plan in breadth-first order jumped across the arrays from task to task and doubled the join's time
/// at 10⁵ bodies). `pending` is the expansion's stack. Allocates only when the plan outgrows the vectors.
pub(crate) fn plan(bvh: &FlatBvh, limit: u32, pending: &mut Vec<Task>, tasks: &mut Vec<Task>) {
    tasks.clear();
    pending.clear();
    match bvh.len {
        0 | 1 => return,
        m if m as u32 <= BUCKET => {
            tasks.push(Task::Within(run(0, m as u32)));
            return;
        }
        _ => pending.push(Task::Within(bvh.root)),
    }
    while let Some(task) = pending.pop() {
        match task {
            Task::Within(s) if s & RUN == 0 && size(bvh, s) > limit => {
                let n = &bvh.nodes[s as usize];
                let (c0, c1) = (child_ref(n, s, 0), child_ref(n, s, 1));
                // Pushed in reverse: the left child comes out first.
                if n.boxes[0].overlaps(&n.boxes[1]) {
                    pending.push(Task::Between(c0, c1));
                }
                pending.extend([Task::Within(c1), Task::Within(c0)]);
            }
            Task::Between(a, b) if (a | b) & RUN == 0 && size(bvh, a) + size(bvh, b) > limit => {
                let (na, nb) = (&bvh.nodes[a as usize], &bvh.nodes[b as usize]);
                for x in (0..2).rev() {
                    for y in (0..2).rev() {
                        if na.boxes[x].overlaps(&nb.boxes[y]) {
                            pending.push(Task::Between(child_ref(na, a, x), child_ref(nb, b, y)));
                        }
                    }
                }
            }
            task => tasks.push(task),
        }
    }
}

/// Pairs of subtrees one chunk of the join may hold at once. Each step pops one pair and pushes at most four, and
/// the descent is depth-first, so the stack holds at most three per level of the two subtrees plus four:
/// 3 × 2 × [`MAX_HEIGHT`] + 4, rounded up to a power of two (the index wraps with a mask).
const STACK: usize = (6 * MAX_HEIGHT as usize + 4).next_power_of_two();

/// Pairs a chunk gathers before it names them and moves them to the output: each step adds at most
/// `BUCKET²`, and the buffer is emptied once it holds `FLUSH_AT`.
const FOUND: usize = 128;
const FLUSH_AT: usize = FOUND - (BUCKET * BUCKET) as usize;

/// The memory of one chunk of the self-join, kept across frames.
#[derive(Clone, Debug)]
pub(crate) struct JoinScratch {
    within: Vec<Ref>,
    between: Box<[(Ref, Ref); STACK]>,
    found: Box<[(u32, u32); FOUND]>,
}

impl Default for JoinScratch {
    fn default() -> Self {
        Self { within: Vec::new(), between: Box::new([(0, 0); STACK]), found: Box::new([(0, 0); FOUND]) }
    }
}

/// Leaf pairs (sorted positions) found, in a fixed buffer; named by `ids` and moved to `out` when it fills.
struct Found<'a, F> {
    buf: &'a mut [(u32, u32); FOUND],
    n: usize,
    out: &'a mut Vec<Pair>,
    name: &'a F,
}

impl<F: Fn(u32) -> u32> Found<'_, F> {
    /// Keep `(a, b)` when `keep` (written either way, so that no branch depends on the test).
    #[inline(always)]
    fn offer(&mut self, a: usize, b: usize, keep: bool) {
        self.buf[self.n % FOUND] = (a as u32, b as u32);
        self.n += usize::from(keep);
    }

    fn flush(&mut self) {
        let name = self.name;
        self.out.extend(self.buf[..self.n].iter().map(|&(a, b)| Pair::new(name(a), name(b))));
        self.n = 0;
    }
}

/// Every overlapping pair of `bvh`'s leaves, as pairs of `ids(item)` (the caller's names for the items: the
/// identity for bodies), appended to `out`: the `tasks` of [`plan`] in parallel chunks.
pub(crate) fn self_pairs(
    bvh: &FlatBvh,
    ids: impl Fn(u32) -> u32 + Sync + Send,
    tasks: &[Task],
    chunks: &mut PairChunks<JoinScratch>,
    parallelism: Parallelism,
    out: &mut Vec<Pair>,
) -> Tally {
    let name = |k: u32| ids(bvh.item(k));
    chunks.run(parallelism, "lbvh_self_join", bvh.len, tasks.len(), out, |range, out, scratch| {
        let JoinScratch { within: within_stack, between: stack, found } = scratch;
        let mut found = Found { buf: found, n: 0, out, name: &name };
        let mut tally = Tally::default();
        for task in &tasks[range] {
            match *task {
                Task::Within(r) => {
                    warm(bvh, r);
                    tally += within(bvh, r, within_stack, stack, &mut found);
                }
                Task::Between(a, b) => {
                    stack[0] = (a, b);
                    tally += between(bvh, stack, 1, &mut found);
                }
            }
        }
        found.flush();
        tally
    })
}

/// Read the memory of subtree `r` in address order before descending it: its inner nodes and leaf boxes are
/// contiguous (`flat.rs`), and a descent touches every one of them, but in tree order, which the hardware
/// prefetcher cannot follow — each first touch was a miss to memory. One pass in address order streams them in.
fn warm(bvh: &FlatBvh, r: Ref) {
    if r & RUN != 0 {
        return;
    }
    let n = &bvh.nodes[r as usize];
    let (first, last) = (n.first as usize, n.last as usize);
    let mut acc = 0u32;
    for node in &bvh.nodes[first..last] {
        acc ^= node.first;
    }
    for b in bvh.leaf_boxes[first..=last].iter().step_by(2) {
        acc ^= b.min.x.to_bits();
    }
    std::hint::black_box(acc);
}

/// The pairs inside subtree `root`: a run's leaves against each other; a node's two children against each other
/// and each within itself.
fn within<F: Fn(u32) -> u32>(
    bvh: &FlatBvh,
    root: Ref,
    nodes: &mut Vec<Ref>,
    stack: &mut [(Ref, Ref); STACK],
    found: &mut Found<'_, F>,
) -> Tally {
    let mut tally = Tally::default();
    nodes.clear();
    nodes.push(root);
    while let Some(r) = nodes.pop() {
        if r & RUN != 0 {
            let range = run_range(r);
            let boxes = &bvh.leaf_boxes[range.clone()];
            for (i, a) in boxes.iter().enumerate() {
                for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                    found.offer(range.start + i, range.start + j, a.overlaps(b));
                }
            }
            tally.pair_tests += (boxes.len() * (boxes.len() - 1) / 2) as u64;
            if found.n >= FLUSH_AT {
                found.flush();
            }
            continue;
        }
        let n = &bvh.nodes[r as usize];
        tally.work += 1;
        let (c0, c1) = (child_ref(n, r, 0), child_ref(n, r, 1));
        nodes.extend([c0, c1]);
        if n.boxes[0].overlaps(&n.boxes[1]) {
            stack[0] = (c0, c1);
            tally += between(bvh, stack, 1, found);
        }
    }
    tally
}

/// Drain `stack[..top]` of pairs of disjoint subtrees whose boxes overlap: two runs are tested box by box;
/// otherwise the children of the inner side(s) are paired and those that overlap pushed.
fn between<F: Fn(u32) -> u32>(
    bvh: &FlatBvh,
    stack: &mut [(Ref, Ref); STACK],
    mut top: usize,
    found: &mut Found<'_, F>,
) -> Tally {
    let mut tally = Tally::default();
    while top > 0 {
        top -= 1;
        let (a, b) = stack[top];
        match (a & RUN != 0, b & RUN != 0) {
            (true, true) => {
                let (ra, rb) = (run_range(a), run_range(b));
                for (i, x) in bvh.leaf_boxes[ra.clone()].iter().enumerate() {
                    for (j, y) in bvh.leaf_boxes[rb.clone()].iter().enumerate() {
                        found.offer(ra.start + i, rb.start + j, x.overlaps(y));
                    }
                }
                tally.pair_tests += (ra.len() * rb.len()) as u64;
                if found.n >= FLUSH_AT {
                    found.flush();
                }
            }
            (true, false) | (false, true) => {
                let (r, inner) = if a & RUN != 0 { (a, b) } else { (b, a) };
                let q = run_box(bvh, r);
                let n = &bvh.nodes[inner as usize];
                tally.work += 1;
                for c in 0..2 {
                    stack[top % STACK] = (r, child_ref(n, inner, c));
                    top += usize::from(n.boxes[c].overlaps(&q));
                }
            }
            (false, false) => {
                let (na, nb) = (&bvh.nodes[a as usize], &bvh.nodes[b as usize]);
                tally.work += 2;
                for x in 0..2 {
                    for y in 0..2 {
                        stack[top % STACK] = (child_ref(na, a, x), child_ref(nb, b, y));
                        top += usize::from(na.boxes[x].overlaps(&nb.boxes[y]));
                    }
                }
            }
        }
        debug_assert!(top + 4 <= STACK, "the self-join's stack bound");
    }
    tally.bytes_touched = tally.work * size_of::<Inner>() as u64 + tally.pair_tests * size_of::<Aabb>() as u64;
    tally
}

/// Leaves of `bvh` whose boxes overlap `q`, each passed to `hit` as a sorted position. Returns the tally: leaf
/// box tests as `pair_tests`, nodes opened as `work`. `stack` is the caller's, reused across queries.
pub(crate) fn query(bvh: &FlatBvh, q: &Aabb, stack: &mut Vec<u32>, mut hit: impl FnMut(u32)) -> Tally {
    let mut tally = Tally::default();
    if bvh.len < 2 {
        // One leaf at most, and no node to hold its box.
        if bvh.len == 1 {
            tally.pair_tests += 1;
            if bvh.leaf_boxes[0].overlaps(q) {
                hit(0);
            }
        }
        return tally;
    }
    stack.clear();
    stack.push(bvh.root);
    while let Some(i) = stack.pop() {
        let node = &bvh.nodes[i as usize];
        tally.work += 1;
        for c in 0..2 {
            let child = node.child[c];
            if child & LEAF != 0 {
                tally.pair_tests += 1;
                if node.boxes[c].overlaps(q) {
                    hit(child & !LEAF);
                }
            } else if node.boxes[c].overlaps(q) {
                stack.push(child);
            }
        }
    }
    tally.bytes_touched = tally.work * size_of::<Inner>() as u64;
    tally
}

#[cfg(test)]
mod tests;
