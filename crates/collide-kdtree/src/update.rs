//! The frame's update: every stored body re-placed under the planes with its new box, and the item array
//! rewritten grouped by node, each node's items sorted for its sweep.
//!
//! Two passes over the items, each cut into chunks that run on rayon's threads above the parallel threshold:
//! 1. **place** (chunks of old nodes, in the old item order): read each body's new box (one gather from the
//!    frame's array), copy it into the old item in place, find its node by [`place`] from the node it was in
//!    (one region test and one side test when it has not left it), and count it as staying or push it to the
//!    chunk's **movers**. A box that is not finite or is inverted is dropped here: the body joins the excluded
//!    list, overlaps nothing, and is looked at again every frame until its box is valid.
//! 2. **write** (chunks of new nodes, each owning its slice of the new item array): each node takes, in their old
//!    order, the bodies that stayed in it, then the movers that arrived, and sorts its items on its sweep axis.
//!
//! Between them, one serial step places the bodies that have no old item (added by a resize, or excluded until
//! now) from the root, groups the movers by destination, and lays out the new spans.
//!
//! Staying bodies keep last frame's order, in which they were sorted, so each node's sort is an insertion sort
//! over a nearly sorted list: O(m) plus the moves of the few bodies that overtook each other or arrived. It
//! falls back to a full sort past a budget of moves (a re-planned subtree, or a teleporting scene).

use crate::edit::Mapping;
use crate::place::{descend, place};
use crate::tree::{ITEM_BYTES, Item, Node, Span, is_valid, set_sub_ends};
use collide_broadphase::{Aabb, InvalidBoxes, Parallelism, Tally};

/// `dest` of an item that is dropped (its box is invalid).
const DROP: u32 = u32::MAX;

/// The most chunks of a pass (their tasks live in an array on the stack: no allocation per frame).
const MAX_CHUNKS: usize = 32;

/// Chunks per rayon thread: a few, so that a chunk holding a crowded node does not leave a thread idle.
const CHUNKS_PER_THREAD: usize = 4;

/// A body that changed node, with its new box.
#[derive(Clone, Copy, Debug, Default)]
struct Mover {
    dest: u32,
    item: Item,
}

/// One chunk's scratch, kept across frames.
#[derive(Debug, Default)]
struct ChunkScratch {
    movers: Vec<Mover>,
    /// Bodies whose box was invalid.
    invalid: Vec<u32>,
}

/// A place-pass chunk: old nodes `nodes` and their items (from `first_item`), with their `dest` and stay counts.
#[derive(Default)]
struct PlaceTask<'a> {
    nodes: std::ops::Range<usize>,
    first_item: usize,
    items: &'a mut [Item],
    dest: &'a mut [u32],
    stayed: &'a mut [u32],
    scratch: Option<&'a mut ChunkScratch>,
}

/// A write-pass chunk: new nodes `nodes` and their slice of the new item array (from `first_item`).
#[derive(Default)]
struct WriteTask<'a> {
    nodes: std::ops::Range<usize>,
    first_item: usize,
    items: &'a mut [Item],
}

/// What the update reads: the frame's boxes, the new nodes, last frame's spans and how old nodes map to new.
pub(crate) struct UpdateInput<'a> {
    pub aabbs: &'a [Aabb],
    pub nodes: &'a [Node],
    pub old_spans: &'a [Span],
    pub mapping: &'a Mapping,
    pub invalid: InvalidBoxes,
    pub parallelism: Parallelism,
}

/// The update's buffers, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Updater {
    /// Per old item, its new node (or [`DROP`]).
    dest: Vec<u32>,
    /// Per old node, how many of its items stayed in the node they started from.
    stayed: Vec<u32>,
    chunks: Vec<ChunkScratch>,
    /// Movers of the serial step (bodies without an old item).
    loose: Vec<Mover>,
    /// All movers' items grouped by destination: node `n`'s are `arrivals[arrival_at[n]..arrival_at[n + 1]]`.
    arrivals: Vec<Item>,
    arrival_at: Vec<u32>,
    /// Bodies excluded for an invalid box, this frame (swapped with the caller's list).
    excluded: Vec<u32>,
    /// Bodies that changed node in the last update (placed from the root included).
    pub reinserted: u64,
}

impl Updater {
    /// Room for all of `bodies` among the arrivals (every body moving: a re-plan of the whole tree), reserved by
    /// the first frame, which plans the tree and runs no update. Reserved, not written: the pages cost nothing
    /// until used. (`dest` needs none: every update sizes it to the items, the same count each frame.)
    pub fn reserve(&mut self, bodies: usize) {
        self.arrivals.reserve(bodies);
    }

    /// Re-place every body of `old_items` (last frame's items, as `input.old_spans` says) and of `pending` (bodies
    /// with no item: added, or excluded until now, which `excluded` lists and receives anew) into `items` and
    /// `spans`, under `input.nodes`. Returns the work done.
    pub fn run(
        &mut self,
        input: &UpdateInput<'_>,
        old_items: &mut [Item],
        pending: &[u32],
        excluded: &mut Vec<u32>,
        items: &mut Vec<Item>,
        spans: &mut Vec<Span>,
    ) -> Tally {
        let old_nodes = input.old_spans.len();
        let parts = chunk_count(input.parallelism, old_items.len());
        if self.chunks.len() < parts {
            self.chunks.resize_with(parts, ChunkScratch::default);
        }
        self.dest.clear();
        self.dest.resize(old_items.len(), 0);
        self.stayed.clear();
        self.stayed.resize(old_nodes, 0);
        self.place_pass(input, old_items, parts);

        // The serial step: bodies without an item, from the root; then the invalid lists swapped in.
        self.loose.clear();
        self.excluded.clear();
        for &id in pending.iter().chain(excluded.iter()) {
            let b = input.aabbs[id as usize];
            if check(input.invalid, id, &b) {
                self.loose.push(Mover { dest: descend(input.nodes, 0, &b), item: Item { aabb: b, id } });
            } else {
                self.excluded.push(id);
            }
        }
        for c in &self.chunks[..parts] {
            self.excluded.extend_from_slice(&c.invalid);
        }
        std::mem::swap(excluded, &mut self.excluded);
        self.group_arrivals(input.nodes.len(), parts);
        let total = self.lay_out(input, spans);

        items.resize(total, Item::default());
        self.write_pass(input, old_items, items, spans);
        let (placed, moved) = (old_items.len() as u64 + pending.len() as u64, self.reinserted);
        // Place: an item read and written, its box gathered, its destination written; write: an item copied and
        // sorted (about one move each); the movers copied twice.
        Tally::work(
            placed + total as u64 + 2 * moved,
            placed * (2 * ITEM_BYTES + 24 + 4) + (total as u64 + 2 * moved) * 2 * ITEM_BYTES,
        )
    }

    /// Pass 1 over `old_items` in `parts` chunks of old nodes.
    fn place_pass(&mut self, input: &UpdateInput<'_>, old_items: &mut [Item], parts: usize) {
        let old = input.old_spans;
        let mut bounds = [0usize; MAX_CHUNKS + 1];
        cut_by_items(old, old_items.len(), parts, &mut bounds);
        let mut tasks: [PlaceTask<'_>; MAX_CHUNKS] = Default::default();
        let (mut items, mut dest, mut stayed) = (old_items, &mut self.dest[..], &mut self.stayed[..]);
        let mut scratch = self.chunks.iter_mut();
        let mut at = 0;
        for (c, task) in tasks[..parts].iter_mut().enumerate() {
            let (a, b) = (bounds[c], bounds[c + 1]);
            let to = if b < old.len() { old[b].start as usize } else { at + items.len() };
            let (hi, ti) = std::mem::take(&mut items).split_at_mut(to - at);
            let (hd, td) = std::mem::take(&mut dest).split_at_mut(to - at);
            let (hs, ts) = std::mem::take(&mut stayed).split_at_mut(b - a);
            (items, dest, stayed) = (ti, td, ts);
            let s = scratch.next().expect("a scratch per chunk");
            s.movers.clear();
            s.invalid.clear();
            *task = PlaceTask { nodes: a..b, first_item: at, items: hi, dest: hd, stayed: hs, scratch: Some(s) };
            at = to;
        }
        let work = tasks[..parts].iter().map(|t| t.items.len()).sum();
        input.parallelism.for_each_owned("kd place", work, &mut tasks[..parts], |_, t| place_chunk(t, input));
    }

    /// Group every mover's item by destination into `arrivals`, counting them in `reinserted`.
    fn group_arrivals(&mut self, new_nodes: usize, parts: usize) {
        let Self { chunks, loose, arrivals, arrival_at, .. } = self;
        let movers = || chunks[..parts].iter().flat_map(|c| &c.movers).chain(loose.iter());
        arrival_at.clear();
        arrival_at.resize(new_nodes + 1, 0);
        for m in movers() {
            arrival_at[m.dest as usize + 1] += 1;
        }
        for n in 0..new_nodes {
            arrival_at[n + 1] += arrival_at[n];
        }
        let moved = arrival_at[new_nodes] as usize;
        arrivals.resize(moved, Item::default());
        // Each node's write cursor; the starts are restored afterwards by shifting.
        for m in movers() {
            let at = &mut arrival_at[m.dest as usize];
            arrivals[*at as usize] = m.item;
            *at += 1;
        }
        arrival_at.copy_within(0..new_nodes, 1);
        arrival_at[0] = 0;
        self.reinserted = moved as u64;
    }

    /// The new spans: each new node's staying bodies plus its arrivals, laid out in pre-order. Returns the total.
    fn lay_out(&self, input: &UpdateInput<'_>, spans: &mut Vec<Span>) -> usize {
        let nodes = input.nodes;
        spans.clear();
        spans.resize(nodes.len(), Span::default());
        let mut at = 0u32;
        for (n, span) in spans.iter_mut().enumerate() {
            let stayed: u32 = input.mapping.sources(n).map(|o| self.stayed[o]).sum();
            let arrived = self.arrival_at[n + 1] - self.arrival_at[n];
            span.start = at;
            at += stayed + arrived;
            span.own_end = at;
        }
        set_sub_ends(nodes, spans, at);
        at as usize
    }

    /// Pass 2: each new node's items written and sorted, in chunks of new nodes.
    fn write_pass(&self, input: &UpdateInput<'_>, old_items: &[Item], items: &mut [Item], spans: &[Span]) {
        let parts = chunk_count(input.parallelism, items.len());
        let mut bounds = [0usize; MAX_CHUNKS + 1];
        cut_by_items(spans, items.len(), parts, &mut bounds);
        let mut tasks: [WriteTask<'_>; MAX_CHUNKS] = Default::default();
        let mut rest = items;
        let mut at = 0;
        for (c, task) in tasks[..parts].iter_mut().enumerate() {
            let (a, b) = (bounds[c], bounds[c + 1]);
            let to = if b < spans.len() { spans[b].start as usize } else { at + rest.len() };
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(to - at);
            *task = WriteTask { nodes: a..b, first_item: at, items: head };
            rest = tail;
            at = to;
        }
        let work = at;
        input.parallelism.for_each_owned("kd write", work, &mut tasks[..parts], |_, t| {
            write_chunk(t, input, old_items, &self.dest, &self.arrivals, &self.arrival_at, spans);
        });
    }
}

/// How many chunks a pass over `items` items is cut into: one when serial.
fn chunk_count(parallelism: Parallelism, items: usize) -> usize {
    if parallelism.is_parallel(items) {
        (CHUNKS_PER_THREAD * rayon::current_num_threads()).clamp(1, MAX_CHUNKS)
    } else {
        1
    }
}

/// Cut the nodes of `spans` (pre-order, their own items tiling `0..total`) into `parts` runs of about equal
/// items: `bounds[c]..bounds[c + 1]` is run `c`.
fn cut_by_items(spans: &[Span], total: usize, parts: usize, bounds: &mut [usize; MAX_CHUNKS + 1]) {
    for (c, bound) in bounds[..=parts].iter_mut().enumerate() {
        *bound = item_cut(spans, total, c, parts);
    }
}

/// The first node of run `c` of `parts` runs of about equal items (`spans` pre-order, their own items tiling
/// `0..total`): the first node whose items start at or past `c · total / parts`; `spans.len()` for `c == parts`.
/// Rises with `c`, from 0. The update's passes and the pair search cut their chunks here, so that a thread's
/// share of one pass holds the items of its share of the others.
pub(crate) fn item_cut(spans: &[Span], total: usize, c: usize, parts: usize) -> usize {
    if c == parts {
        return spans.len();
    }
    let target = (c * total / parts) as u32;
    spans.partition_point(|s| s.start < target)
}

/// Pass 1 for one chunk (see the module docs).
fn place_chunk(t: &mut PlaceTask<'_>, input: &UpdateInput<'_>) {
    let scratch = t.scratch.as_deref_mut().expect("every task has its scratch");
    // The gather first, in a loop of its own: each box is a cache miss in the frame's array, and without the
    // placement's branches between them the misses overlap (they were 60% of the pass when interleaved).
    for it in t.items.iter_mut() {
        it.aabb = input.aabbs[it.id as usize];
    }
    for o in t.nodes.clone() {
        let from = input.mapping.start(o);
        let span = input.old_spans[o];
        let mut stayed = 0;
        for k in span.start as usize - t.first_item..span.own_end as usize - t.first_item {
            let it = &t.items[k];
            if !check(input.invalid, it.id, &it.aabb) {
                t.dest[k] = DROP;
                scratch.invalid.push(it.id);
                continue;
            }
            let d = place(input.nodes, from, &it.aabb);
            t.dest[k] = d;
            if d == from {
                stayed += 1;
            } else {
                scratch.movers.push(Mover { dest: d, item: *it });
            }
        }
        t.stayed[o - t.nodes.start] = stayed;
    }
}

/// Pass 2 for one chunk (see the module docs).
fn write_chunk(
    t: &mut WriteTask<'_>,
    input: &UpdateInput<'_>,
    old_items: &[Item],
    dest: &[u32],
    arrivals: &[Item],
    arrival_at: &[u32],
    spans: &[Span],
) {
    for n in t.nodes.clone() {
        let span = spans[n];
        let own = &mut t.items[span.start as usize - t.first_item..span.own_end as usize - t.first_item];
        let mut w = 0;
        for o in input.mapping.sources(n) {
            let from = input.old_spans[o];
            for k in from.own() {
                if dest[k] == n as u32 {
                    own[w] = old_items[k];
                    w += 1;
                }
            }
        }
        let arrived = &arrivals[arrival_at[n] as usize..arrival_at[n + 1] as usize];
        own[w..].copy_from_slice(arrived);
        match input.nodes[n].sweep {
            0 => sort_on::<0>(own),
            1 => sort_on::<1>(own),
            _ => sort_on::<2>(own),
        }
    }
}

/// `true` when `b` may be stored; otherwise, by `policy`, panic naming body `id` and its box, or `false`.
#[inline]
pub(crate) fn check(policy: InvalidBoxes, id: u32, b: &Aabb) -> bool {
    if is_valid(b) {
        return true;
    }
    policy.reject(id as usize, b);
    false
}

/// Sort `v` by `min` on axis `A`: an insertion sort, since the list is nearly sorted (see the module docs), that
/// hands over to a full sort once it has moved more than a few items per item. An item already in order (most
/// are) is compared once and not copied: copying each item out and back cost 19 of the update's instructions
/// per item on the rapier brownian scene.
fn sort_on<const A: usize>(v: &mut [Item]) {
    let mut budget = 8 * v.len() + 32;
    for i in 1..v.len() {
        let key = v[i].aabb.min[A];
        if v[i - 1].aabb.min[A] <= key {
            // In order already, as most are: nothing is copied.
            continue;
        }
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].aabb.min[A] > key {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
        budget = match budget.checked_sub(i - j) {
            Some(left) => left,
            None => {
                v.sort_unstable_by(|a, b| a.aabb.min[A].total_cmp(&b.aabb.min[A]));
                return;
            }
        };
    }
}

#[cfg(test)]
mod tests;
