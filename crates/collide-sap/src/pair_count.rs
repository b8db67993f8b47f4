//! Pair counting: the sweep-and-prune variant of the self-adjusting-BSP study (seed 003).
//!
//! Phase one sorts the boxes on each axis and sweeps, producing one list per axis of the pairs whose
//! projections overlap on that axis. Phase two counts, per pair, on how many axes it overlaps; a pair is real
//! when its count reaches three (two in 2-D), and only the pairs of the **axis with the fewest overlaps** are
//! read, since a real pair is in every list.
//!
//! The original keeps the counts in an n×n matrix (upper triangle) and clears its non-zero cells after each step:
//! 10¹⁰ bytes at 10⁵ bodies. Here the counts live in an open-addressing table keyed by the pair, holding **only
//! the pairs of the shortest list** (inserted with count 1); the other two lists only increment keys already
//! present. Memory drops from O(n²) to O(shortest list), and the answer is the same: a pair absent from the
//! shortest list cannot reach three.
//!
//! # Complexity
//! - Time: O(n log n) for three sorts, plus O(p_x + p_y + p_z) where p_k is the number of pairs overlapping on
//!   axis k — every per-axis overlap is generated, even on the crowded axes. That is why it is dominated by
//!   [`SortSweep`](crate::SortSweep), which generates only the best axis's pairs and tests the other two axes
//!   directly; it is kept to reproduce the study.
//! - Memory: O(p_x + p_y + p_z) for the lists, O(min p_k) for the counts.
//! - Best case: sparse scenes where every axis separates well. Worst case: one crowded axis (a flat layer)
//!   makes its list O(n²) even when the others are short.
//!
//! # Performance tips
//! Use it for comparison with the study, not for speed.

use collide_broadphase::radix::{float_key, sort_by_high_bits};
use collide_broadphase::{Broadphase, Frame, Pair, PairList, Stats, Tally, is_valid_box};

const EMPTY: u64 = u64::MAX;

/// Pair counting with per-axis overlap lists. Registry name: `pair-count`.
#[derive(Clone, Debug, Default)]
pub struct PairCount {
    keys: Vec<u64>,
    scratch: Vec<u64>,
    /// The per-axis overlap lists, as pair keys.
    lists: [Vec<u64>; 3],
    /// Open-addressing table of pair keys (EMPTY = free) and their axis counts.
    table: Vec<u64>,
    counts: Vec<u8>,
    list_lens: [usize; 3],
    /// Table probes of the last call (the other numbers follow from the sizes).
    probes: u64,
    n: usize,
}

impl PairCount {
    /// A pair-counting broadphase.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Phase one on `axis`: sort by min, sweep, and list every pair overlapping on that axis. An invalid box gets
    /// no key: comparing intervals on one axis at a time would count an inverted box as overlapping (the first
    /// axis's pass reports it to the frame).
    fn axis_list(&mut self, frame: &Frame<'_>, axis: usize) {
        let aabbs = frame.aabbs;
        self.keys.clear();
        for (i, b) in aabbs.iter().enumerate() {
            if is_valid_box(b) {
                self.keys.push((u64::from(float_key(b.min[axis])) << 32) | i as u64);
            } else if axis == 0 {
                frame.reject_invalid(i);
            }
        }
        sort_by_high_bits(&mut self.keys, &mut self.scratch, 32);
        let list = &mut self.lists[axis];
        list.clear();
        for (p, &ki) in self.keys.iter().enumerate() {
            let i = ki as u32;
            let end = float_key(aabbs[i as usize].max[axis]);
            for &kj in &self.keys[p + 1..] {
                // Closed intervals: a later box starting exactly at this one's end overlaps it.
                if (kj >> 32) as u32 > end {
                    break;
                }
                list.push(Pair::new(i, kj as u32).key());
            }
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        let mask = self.table.len() - 1;
        let mut s = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask;
        while self.table[s] != EMPTY && self.table[s] != key {
            s = (s + 1) & mask;
        }
        s
    }
}

// `on_resize` keeps the trait's default, `reset`, which is a no-op here: the per-axis lists and the count table are made anew every frame, and
// nothing but buffers is carried from one to the next, so a resize — a permutation included — costs nothing and the
// next frame is an ordinary one.
impl Broadphase for PairCount {
    fn name(&self) -> &'static str {
        "pair-count"
    }

    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        out.clear();
        self.n = frame.aabbs.len();
        for axis in 0..3 {
            self.axis_list(frame, axis);
            self.list_lens[axis] = self.lists[axis].len();
        }
        let shortest = (0..3).min_by_key(|&k| self.lists[k].len()).unwrap_or(0);
        // Phase two: counts for the shortest list's pairs only, in a table at most half full.
        let cap = (2 * self.lists[shortest].len()).next_power_of_two().max(16);
        self.table.clear();
        self.table.resize(cap, EMPTY);
        self.counts.clear();
        self.counts.resize(cap, 0);
        let list = std::mem::take(&mut self.lists[shortest]);
        for &key in &list {
            let s = self.slot(key);
            self.table[s] = key;
            self.counts[s] = 1;
        }
        for axis in (0..3).filter(|&k| k != shortest) {
            let other = std::mem::take(&mut self.lists[axis]);
            for &key in &other {
                let s = self.slot(key);
                if self.table[s] == key {
                    self.counts[s] += 1;
                }
            }
            self.lists[axis] = other;
        }
        for &key in &list {
            if self.counts[self.slot(key)] == 3 {
                out.push_pair(Pair::from_key(key));
            }
        }
        // The shortest list is probed twice (insert, read back), the others once each.
        self.probes = (2 * list.len() + self.list_lens.iter().sum::<usize>() - self.list_lens[shortest]) as u64;
        self.lists[shortest] = list;
    }

    /// `pair_tests`: the per-axis overlaps generated (each a comparison of two intervals); `work`: per axis the n
    /// keys made and radix-sorted, plus every table probe; `bytes_touched`: the keys' passes, the lists written
    /// and read, a table slot (key and count) per probe.
    fn stats(&self) -> Stats {
        let listed = self.list_lens.iter().sum::<usize>() as u64;
        let n = self.n as u64;
        let tally = Tally {
            pair_tests: listed,
            work: 3 * n + self.probes,
            bytes_touched: 3 * n * (24 + 8 * 8) + listed * 2 * 8 + self.probes * 9,
        };
        Stats::from(tally)
            .with("overlaps_x", self.list_lens[0] as f64)
            .with("overlaps_y", self.list_lens[1] as f64)
            .with("overlaps_z", self.list_lens[2] as f64)
    }
}
