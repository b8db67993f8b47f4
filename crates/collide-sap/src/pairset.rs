//! The persistent pair set of incremental sweep-and-prune: an open-addressing hash set of `u64` pair keys.
//!
//! SAP adds and removes a pair whenever two endpoints cross, and at 10⁵ slow bodies it does that ~10⁶ times a
//! frame, mostly for pairs that are *not* in the set (an end passing a begin of a box that never overlapped on
//! the other axes). So the operations that matter are a miss on `remove` and `insert` of a new key. A
//! `std::collections::HashSet<(u32, u32)>` with SipHash spends ~20 ns on each; this table spends a multiply, a
//! shift and usually one cache line: linear probing, keys stored inline, a Fibonacci hash, load factor ≤ ½, and
//! backward-shift deletion so that no tombstones build up in a set that churns every frame.
//!
//! # Complexity
//! Expected O(1) for `insert`, `remove` and `contains`; iteration is O(capacity) = O(2·len) at worst after
//! growth. Memory: 8 bytes × capacity, capacity a power of two ≥ 2·len. The table never shrinks, so a warmed-up
//! simulation allocates nothing.

/// The empty-slot marker. [`Pair::key`](collide_broadphase::Pair::key) never produces it because `a < b`.
const EMPTY: u64 = u64::MAX;

/// An open-addressing set of pair keys (`Pair::key`: smaller index in the high half).
#[derive(Clone, Debug)]
pub struct PairSet {
    /// Keys or [`EMPTY`]; every key sits in the run of full slots that starts at its home slot (linear probing).
    slots: Vec<u64>,
    /// The number of keys.
    len: usize,
    /// `64 − log2(capacity)`: the hash is the top bits of the product.
    shift: u32,
}

impl Default for PairSet {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl PairSet {
    /// A set with room for `n` keys before it grows.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        let cap = (2 * n).next_power_of_two().max(16);
        Self { slots: vec![EMPTY; cap], len: 0, shift: 64 - cap.trailing_zeros() }
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        // Fibonacci hashing: the multiply mixes both halves of the key into the top bits.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The number of keys.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when the set is empty.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of slots.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// `true` when `key` is in the set.
    #[inline]
    #[must_use]
    pub fn contains(&self, key: u64) -> bool {
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s == key {
                return true;
            }
            if s == EMPTY {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Insert `key`; returns `true` when it was not there yet.
    #[inline]
    pub fn insert(&mut self, key: u64) -> bool {
        debug_assert_ne!(key, EMPTY);
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s == key {
                return false;
            }
            if s == EMPTY {
                self.slots[i] = key;
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    /// Remove `key`; returns `true` when it was there.
    #[inline]
    pub fn remove(&mut self, key: u64) -> bool {
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return false;
            }
            if s == key {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: move later keys of the run into the hole when the hole lies between their home
        // and their slot, so that every key stays reachable from its home without tombstones.
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s == EMPTY {
                break;
            }
            let home = self.home(s);
            // Distance from home to j vs. from home to hole, both on the ring.
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = s;
                hole = j;
            }
        }
        self.slots[hole] = EMPTY;
        self.len -= 1;
        true
    }

    /// Remove every key, keeping the table. O(capacity).
    pub fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill(EMPTY);
            self.len = 0;
        }
    }

    /// Every key, in table order (unspecified).
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.slots.iter().copied().filter(|&k| k != EMPTY)
    }

    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; cap]);
        self.shift = 64 - self.slots.len().trailing_zeros();
        self.len = 0;
        for k in old {
            if k != EMPTY {
                self.insert(k);
            }
        }
    }

    /// Make room for `n` keys in total without further growth.
    pub fn reserve_total(&mut self, n: usize) {
        while 2 * n > self.slots.len() {
            self.grow();
        }
    }
}

#[cfg(test)]
mod tests;
