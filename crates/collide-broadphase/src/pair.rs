use std::fmt;

/// Two bodies whose boxes overlap, smaller index first (`a < b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(C)]
pub struct Pair {
    /// The smaller body index.
    pub a: u32,
    /// The larger body index.
    pub b: u32,
}

impl Pair {
    /// The pair of `i` and `j` in either order. `i != j` is the caller's duty (checked in debug builds).
    #[inline]
    #[must_use]
    pub fn new(i: u32, j: u32) -> Self {
        debug_assert_ne!(i, j, "a body does not pair with itself");
        Self { a: i.min(j), b: i.max(j) }
    }

    /// A key that orders pairs as `(a, b)` does, for sorting and hashing: `a` in the high half.
    #[inline]
    #[must_use]
    pub fn key(self) -> u64 {
        (u64::from(self.a) << 32) | u64::from(self.b)
    }

    /// The inverse of [`Pair::key`].
    #[inline]
    #[must_use]
    pub fn from_key(key: u64) -> Self {
        Self { a: (key >> 32) as u32, b: key as u32 }
    }
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.a, self.b)
    }
}

/// The caller-owned output buffer of [`Broadphase::find_pairs`](crate::Broadphase::find_pairs).
///
/// It is a `Vec<Pair>` underneath; keeping one alive across frames means the broadphase allocates nothing
/// once the buffer has grown to the scene's pair count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairList {
    pairs: Vec<Pair>,
}

impl PairList {
    /// An empty list.
    #[must_use]
    pub const fn new() -> Self {
        Self { pairs: Vec::new() }
    }

    /// An empty list with room for `capacity` pairs.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Self { pairs: Vec::with_capacity(capacity) }
    }

    /// Append the pair of `i` and `j` in either order.
    #[inline]
    pub fn push(&mut self, i: u32, j: u32) {
        self.pairs.push(Pair::new(i, j));
    }

    /// Append a pair that is already ordered.
    #[inline]
    pub fn push_pair(&mut self, pair: Pair) {
        debug_assert!(pair.a < pair.b, "pair {pair} is not ordered");
        self.pairs.push(pair);
    }

    /// Append many ordered pairs (a thread's local buffer, say).
    pub fn extend_from_slice(&mut self, pairs: &[Pair]) {
        self.pairs.extend_from_slice(pairs);
    }

    /// Remove every pair, keeping the allocation.
    #[inline]
    pub fn clear(&mut self) {
        self.pairs.clear();
    }

    /// Reserve room for `additional` more pairs.
    pub fn reserve(&mut self, additional: usize) {
        self.pairs.reserve(additional);
    }

    /// The number of pairs.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// `true` when there are no pairs.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pairs, in the order they were written.
    #[inline]
    #[must_use]
    pub fn as_slice(&self) -> &[Pair] {
        &self.pairs
    }

    /// The underlying vector, for algorithms that fill it in bulk (parallel merges, retain).
    #[inline]
    pub fn as_mut_vec(&mut self) -> &mut Vec<Pair> {
        &mut self.pairs
    }

    /// The pairs, in the order they were written.
    pub fn iter(&self) -> std::slice::Iter<'_, Pair> {
        self.pairs.iter()
    }

    /// Sort by `(a, b)`, the canonical order for comparisons and snapshots. O(p log p).
    pub fn sort(&mut self) {
        self.pairs.sort_unstable_by_key(|p| p.key());
    }

    /// Sort and drop repeated pairs; returns how many were dropped.
    pub fn sort_dedup(&mut self) -> usize {
        self.sort();
        let before = self.pairs.len();
        self.pairs.dedup();
        before - self.pairs.len()
    }

    /// `true` when the list holds `pair`. O(p): for tests and rare look-ups.
    #[must_use]
    pub fn contains(&self, pair: Pair) -> bool {
        self.pairs.contains(&pair)
    }
}

impl<'a> IntoIterator for &'a PairList {
    type Item = &'a Pair;
    type IntoIter = std::slice::Iter<'a, Pair>;
    fn into_iter(self) -> Self::IntoIter {
        self.pairs.iter()
    }
}

impl FromIterator<Pair> for PairList {
    fn from_iter<T: IntoIterator<Item = Pair>>(iter: T) -> Self {
        Self { pairs: iter.into_iter().collect() }
    }
}

#[cfg(test)]
mod tests;
