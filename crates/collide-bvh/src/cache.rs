//! The persistent pair cache of the dynamic tree: every pair of bodies whose **fat** boxes overlap, kept from one
//! call to the next, from which each call's answer is filtered by the exact test.
//!
//! **Why it can be exact cheaply.** The cache holds exactly the pairs whose fat boxes overlap. Every box lies in
//! its fat box, so every overlapping pair is in the cache; filtering the cache by [`Aabb::overlaps`] on this
//! call's boxes gives exactly the answer. The cache changes only where fat boxes change, which is at the bodies
//! that moved in the trees this call (the [`Move`]s):
//! - **pairs that appear** are found by querying the trees with each moved body's new fat box. A pair found this
//!   way was cached before exactly when the two *old* fat boxes overlapped (the cache was exact for them), so it
//!   is added only when they did not — no hash set, no lookup. When both bodies moved, only the query of the
//!   smaller index adds the pair (the other finds it too). The queries run after the walk (which runs beside the
//!   re-insertions, before the trees are ready for them), so they also output the new pairs that overlap;
//! - **pairs that vanish** have a moved body and new fat boxes that no longer overlap. The walk that filters the
//!   cache by the exact test checks them on the way (one more box test, for the pairs of moved bodies only) and
//!   drops them.
//!
//! So a frame where few bodies leave their fat boxes costs the walk over the cache — one exact test per cached
//! pair, on boxes read from this call's array — plus a query per moved body.
//!
//! **Memory.** The walk is bound by memory latency: body indices say nothing about where bodies are, so the two
//! boxes of a pair sit anywhere in the frame's array. The cache is therefore kept sorted by the first body
//! (`a`): then the walk reads the `a` boxes in order, streaming, and only the `b` box is a random read. New pairs
//! go to an unsorted tail that is sorted and merged in once it holds an eighth of the cache; dropped pairs are
//! compacted away by moving the runs between them (a few hundred `memmove`s a call on `slow` at 10⁵, where a
//! `retain` tested every entry on one thread). Whether a body moved this call is one bit per body, all in L1. And
//! the walk asks for the `b` box of the pair [`PREFETCH_AHEAD`] ahead, so that several of those misses are in
//! flight at once.

use crate::bodies::{Marks, Proxy};
use crate::chunks::Chunks;
use crate::classify::{Move, Target};
use crate::tree::Tree;
use collide_broadphase::{Pair, Parallelism, Tally, prefetch};
use collide_math::Aabb;

/// Pairs a walk chunk gathers before moving them to its output.
const BUFFER: usize = 256;

/// How many pairs ahead the walk asks for the `b` box ([`prefetch::read`]): far enough that the line arrives
/// before its pair is tested (a miss to memory costs about as much as a dozen pairs tested from the cache).
const PREFETCH_AHEAD: usize = 12;

/// One chunk of the walk: the pairs it found, the cache entries it found stale, its tests.
#[derive(Clone, Debug, Default)]
struct WalkChunk {
    out: Vec<Pair>,
    stale: Vec<u32>,
    tally: Tally,
}

/// One chunk of the queries: the new pairs it found, those of them whose boxes overlap, and its query stack.
#[derive(Clone, Debug, Default)]
struct QueryChunk {
    found: Vec<Pair>,
    out: Vec<Pair>,
    stack: Vec<u32>,
    tally: Tally,
}

/// The cache and the memory of its two parallel passes.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairCache {
    /// With [`PairCache::fresh`], every pair of bodies whose fat boxes overlap, once each, smaller index first.
    /// Sorted by the first body.
    sorted: Vec<Pair>,
    /// The pairs added since the last merge, in no order.
    fresh: Vec<Pair>,
    /// The merge's output, swapped with `sorted`; and the sort's keys.
    merged: Vec<Pair>,
    keys: Vec<u64>,
    scratch: Vec<u64>,
    walk: Chunks<WalkChunk>,
    queries: Chunks<QueryChunk>,
}

/// What the queries read of the dynamic tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View<'a> {
    pub aabbs: &'a [Aabb],
    pub proxies: &'a [Proxy],
    pub marks: &'a Marks,
    pub moves: &'a [Move],
    pub trees: &'a [Tree; 2],
}

/// What the walk reads: this call's boxes, the fat boxes after this call's moves, and which bodies moved. Not the
/// trees, so that the walk can run while they change.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WalkView<'a> {
    pub aabbs: &'a [Aabb],
    pub proxies: &'a [Proxy],
    pub marks: &'a Marks,
}

impl PairCache {
    /// Forget every pair (keeping the allocations).
    pub(crate) fn clear(&mut self) {
        self.sorted.clear();
        self.fresh.clear();
    }

    /// The number of cached pairs.
    pub(crate) fn len(&self) -> usize {
        self.sorted.len() + self.fresh.len()
    }

    /// Add `pair` as if a query had found it (for the tests that break the cache on purpose).
    #[cfg(test)]
    pub(crate) fn push_unchecked(&mut self, pair: Pair) {
        self.fresh.push(pair);
    }

    /// Every cached pair, in no order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Pair> {
        self.sorted.iter().chain(&self.fresh)
    }

    /// Where a bulk rebuild writes the whole cache, in any order; [`PairCache::sort_all`] must follow.
    pub(crate) fn refill(&mut self) -> &mut Vec<Pair> {
        self.sorted.clear();
        self.fresh.clear();
        &mut self.fresh
    }

    /// Where a rebuild of the dynamic tree alone writes its pairs, after dropping every cached pair with a body
    /// not in the static tree (the pairs of two static bodies stay exact: neither fat box changes);
    /// [`PairCache::sort_all`] must follow.
    pub(crate) fn refill_keeping_static(&mut self, proxies: &[Proxy]) -> &mut Vec<Pair> {
        let fixed = |i: u32| proxies[i as usize].is_static();
        self.sorted.append(&mut self.fresh);
        self.sorted.retain(|p| fixed(p.a) && fixed(p.b));
        &mut self.fresh
    }

    /// Sort every pair by its first body (a radix sort on the first body's bits: three passes) into `sorted`.
    pub(crate) fn sort_all(&mut self) -> Tally {
        self.keys.clear();
        self.keys.extend(self.sorted.iter().chain(&self.fresh).map(|p| p.key()));
        collide_broadphase::radix::sort_by_high_bits(&mut self.keys, &mut self.scratch, 32);
        self.sorted.clear();
        self.sorted.extend(self.keys.iter().map(|&k| Pair::from_key(k)));
        self.fresh.clear();
        let n = self.sorted.len() as u64;
        Tally::work(4 * n, 4 * n * 16)
    }

    /// Add the pairs that appear this call: each moved body's new fat box queried in both trees, a pair kept when
    /// the two old fat boxes did not overlap (see the module docs); those whose boxes overlap in this call's
    /// `aabbs` are appended to `out` (the walk, which ran before, did not see them). Returns the queries' tally;
    /// `new` is how many pairs were added.
    pub(crate) fn add_new(
        &mut self,
        view: &View<'_>,
        parallelism: Parallelism,
        out: &mut Vec<Pair>,
        new: &mut u64,
    ) -> Tally {
        let moves = view.moves;
        self.queries.run(parallelism, "bvh_queries", moves.len() * 16, moves.len(), |range, q| {
            q.found.clear();
            q.out.clear();
            q.tally = Tally::default();
            for m in &moves[range] {
                if matches!(m.target, Target::Nowhere | Target::Unplaced) {
                    continue;
                }
                let i = m.body as usize;
                let fat = view.proxies[i].fat;
                for tree in view.trees {
                    let found = &mut q.found;
                    q.tally += tree.query_leaves(&fat, &mut q.stack, |j, leaf| {
                        let j = j as usize;
                        let slot = view.marks.slot(j);
                        // Both moved: the smaller index's query adds the pair (the larger's finds it too).
                        if j == i || (slot.is_some() && j < i) {
                            return;
                        }
                        // The leaf holds `j`'s fat box after this call's moves: for a body that did not move, also
                        // the one before.
                        let old_j = slot.map_or(*leaf, |s| view.moves[s as usize].old_fat);
                        if !m.old_fat.overlaps(&old_j) {
                            found.push(Pair::new(i as u32, j as u32));
                        }
                    });
                }
            }
            for p in &q.found {
                if view.aabbs[p.a as usize].overlaps(&view.aabbs[p.b as usize]) {
                    q.out.push(*p);
                }
            }
            q.tally.pair_tests += q.found.len() as u64;
        });
        let mut tally = Tally::default();
        for c in self.queries.used() {
            self.fresh.extend_from_slice(&c.state.found);
            out.extend_from_slice(&c.state.out);
            *new += c.state.found.len() as u64;
            tally += c.state.tally;
        }
        tally
    }

    /// Add pairs found new by the refit path's joins (each once, smaller index first, not cached yet).
    pub(crate) fn add_found(&mut self, found: &[Pair]) {
        self.fresh.extend_from_slice(found);
    }

    /// Write every cached pair whose boxes overlap in this call's `aabbs` to `out`, and drop the pairs of moved
    /// bodies whose fat boxes no longer overlap. Returns the tally; `stale` is how many pairs were dropped.
    pub(crate) fn walk(
        &mut self,
        view: &WalkView<'_>,
        parallelism: Parallelism,
        out: &mut Vec<Pair>,
        stale: &mut u64,
    ) -> Tally {
        let (sorted, fresh) = (&self.sorted, &self.fresh);
        let total = sorted.len() + fresh.len();
        self.walk.run(parallelism, "bvh_walk", total, total, |range, w| {
            w.out.clear();
            w.stale.clear();
            let mut buf = [Pair::default(); BUFFER];
            let mut n = 0;
            // The chunk's range of the concatenation `sorted ++ fresh`.
            let (lo, hi, s) = (range.start, range.end, sorted.len());
            let parts = [(&sorted[lo.min(s)..hi.min(s)], lo), (&fresh[lo.max(s) - s..hi.max(s) - s], lo.max(s))];
            for (pairs, first) in parts {
                for (k, p) in pairs.iter().enumerate() {
                    // The `b` box of a pair a few ahead, asked for now: several misses in flight instead of one.
                    if let Some(ahead) = pairs.get(k + PREFETCH_AHEAD) {
                        prefetch::read(&view.aabbs[ahead.b as usize]);
                    }
                    let (a, b) = (p.a as usize, p.b as usize);
                    if (view.marks.moved(a) || view.marks.moved(b))
                        && !view.proxies[a].fat.overlaps(&view.proxies[b].fat)
                    {
                        w.stale.push((first + k) as u32);
                        continue;
                    }
                    // Written either way, kept when the boxes overlap: no branch on a coin flip.
                    buf[n] = *p;
                    n += usize::from(view.aabbs[a].overlaps(&view.aabbs[b]));
                    if n == BUFFER {
                        w.out.extend_from_slice(&buf);
                        n = 0;
                    }
                }
            }
            w.out.extend_from_slice(&buf[..n]);
            let tests = range.len() as u64;
            w.tally = Tally { pair_tests: tests, work: tests, bytes_touched: tests * (8 + 2 * 24) };
        });
        let mut tally = Tally::default();
        for c in self.walk.used() {
            out.extend_from_slice(&c.state.out);
            tally += c.state.tally;
            *stale += c.state.stale.len() as u64;
        }
        tally + self.tidy()
    }

    /// Drop the stale pairs the walk found (compacting both lists in order), and merge the fresh pairs into the
    /// sorted ones once they are an eighth of them.
    fn tidy(&mut self) -> Tally {
        let before = self.len();
        let s = self.sorted.len();
        let dropped = || self.walk.used().iter().flat_map(|c| c.state.stale.iter().map(|&k| k as usize));
        // One numbering over `sorted ++ fresh`, the order the walk numbered them in, ascending.
        let moved = remove_sorted(&mut self.sorted, dropped().take_while(|&k| k < s))
            + remove_sorted(&mut self.fresh, dropped().skip_while(|&k| k < s).map(|k| k - s));
        let mut tally = Tally::work((before - self.len()) as u64, 8 * moved as u64);
        if self.fresh.len() * 8 > self.sorted.len() {
            self.fresh.sort_unstable_by_key(|p| p.a);
            self.merged.clear();
            self.merged.reserve(self.sorted.len() + self.fresh.len());
            let (mut i, mut j) = (0, 0);
            while i < self.sorted.len() && j < self.fresh.len() {
                if self.fresh[j].a < self.sorted[i].a {
                    self.merged.push(self.fresh[j]);
                    j += 1;
                } else {
                    self.merged.push(self.sorted[i]);
                    i += 1;
                }
            }
            self.merged.extend_from_slice(&self.sorted[i..]);
            self.merged.extend_from_slice(&self.fresh[j..]);
            std::mem::swap(&mut self.sorted, &mut self.merged);
            self.fresh.clear();
            tally += Tally::work(self.sorted.len() as u64, 2 * 8 * self.sorted.len() as u64);
        }
        tally
    }

    /// Renumber after bodies were added, removed or permuted: pairs with a removed body are dropped, the others
    /// renamed in place (a renamed pair may have its bodies swapped, to keep the smaller index first), and the
    /// whole cache sorted again by its new first bodies, so that the walk streams through the boxes in order —
    /// after the simulation's spatial reorder, through bodies near each other in memory. O(pairs): a pass over
    /// each list and the radix sort; the sort's keys, its scratch and the sorted list keep their allocations, so a
    /// warm cache allocates nothing.
    pub(crate) fn remap(&mut self, old_to_new: &[u32]) -> Tally {
        let rename = |p: &mut Pair| {
            let (a, b) = (old_to_new[p.a as usize], old_to_new[p.b as usize]);
            if a == collide_broadphase::Resize::REMOVED || b == collide_broadphase::Resize::REMOVED {
                return false;
            }
            *p = Pair::new(a, b);
            true
        };
        self.sorted.retain_mut(rename);
        self.fresh.retain_mut(rename);
        let n = self.len() as u64;
        Tally::work(n, n * 2 * 8) + self.sort_all()
    }
}

/// Remove the entries at `dropped` (ascending indices into `v`) by moving the runs between them down, keeping
/// the order; returns how many entries moved. A few hundred stale pairs in a cache of tens of thousands cost a
/// few hundred `memmove`s, where a `retain` would test every entry on the calling thread.
fn remove_sorted(v: &mut Vec<Pair>, dropped: impl Iterator<Item = usize>) -> usize {
    let (mut write, mut read, mut moved) = (None::<usize>, 0, 0);
    for d in dropped {
        if let Some(w) = write {
            v.copy_within(read..d, w);
            moved += d - read;
            write = Some(w + d - read);
        } else {
            write = Some(d);
        }
        read = d + 1;
    }
    if let Some(w) = write {
        let len = v.len();
        v.copy_within(read..len, w);
        moved += len - read;
        v.truncate(w + len - read);
    }
    moved
}

#[cfg(test)]
mod tests;
