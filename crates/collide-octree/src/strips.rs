//! Kernels: items as sweep records, and strips — a list cut across one axis into strips at least as wide as its
//! widest box, so that a sweep along another axis only tests boxes that start in the same or neighbouring strips.
//!
//! The sweep itself is `collide_broadphase::sweep`; this module only feeds it: [`records`] in the order a list
//! already has, and the stable scatters [`bucket`] and [`windows`] that make a sorted list into sorted strips.

use crate::tree::Item;
use collide_broadphase::sweep::SweepBox;

/// The bytes of a sweep record, for the `bytes_touched` estimates.
pub(crate) const RECORD_BYTES: u64 = size_of::<SweepBox>() as u64;

/// `it` as a sweep record on axis `A`.
#[inline(always)]
pub(crate) fn record<const A: usize>(it: &Item) -> SweepBox {
    SweepBox::on::<A>(&it.aabb, it.id)
}

/// `v` as sweep records on axis `A`, into `dst` (in `v`'s order).
pub(crate) fn records<const A: usize>(v: &[Item], dst: &mut Vec<SweepBox>) {
    dst.clear();
    dst.extend(v.iter().map(record::<A>));
}

/// Sort items by their `min` on axis `A`.
pub(crate) fn sort_on<const A: usize>(v: &mut [Item]) {
    v.sort_unstable_by(|a, b| a.aabb.min[A].total_cmp(&b.aabb.min[A]));
}

/// Strips across axis `B`: `n` of them, `s` wide from `lo`, each at least as wide as the widest body there,
/// so that two overlapping boxes start in the same or neighbouring strips. The 1% slack on the width covers the
/// rounding of the strip index (at most 1025 strips, so it is off by less than 10⁻³ of a strip).
pub(crate) struct StripCut {
    lo: f32,
    s: f32,
    pub(crate) n: usize,
}

impl StripCut {
    /// The strips for `v` (by `min` on `B`); `None` when there would be fewer than three (one sweep is as good)
    /// or the bodies have no extent to size them by.
    pub(crate) fn across<'a, const B: usize>(v: impl IntoIterator<Item = &'a Item>) -> Option<Self> {
        let (mut lo, mut hi, mut w) = (f32::INFINITY, f32::NEG_INFINITY, 0.0f32);
        for it in v {
            lo = lo.min(it.aabb.min[B]);
            hi = hi.max(it.aabb.min[B]);
            w = w.max(it.aabb.max[B] - it.aabb.min[B]);
        }
        let s = (w * 1.01).max((hi - lo) / 1024.0);
        let n = ((hi - lo) / s) as usize + 1;
        (s > 0.0 && s.is_finite() && n >= 3).then_some(Self { lo, s, n })
    }

    /// The strip `it` starts in.
    #[inline(always)]
    pub(crate) fn strip<const B: usize>(&self, it: &Item) -> usize {
        (((it.aabb.min[B] - self.lo) / self.s) as usize).min(self.n - 1)
    }
}

/// `starts[i]..starts[i + 1]` (of `n + 1`): where bucket `i` of the bucket numbers `keys` goes, in order.
pub(crate) fn bucket_starts(keys: impl Iterator<Item = usize>, n: usize, starts: &mut Vec<usize>) {
    starts.clear();
    starts.resize(n + 1, 0);
    for k in keys {
        starts[k + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
}

/// Scatter `v` stably into `n` buckets by `key`, as sweep records on axis `A`: bucket `i` is
/// `dst[starts[i]..starts[i + 1]]`.
#[inline]
pub(crate) fn bucket<const A: usize>(
    v: &[Item],
    n: usize,
    key: impl Fn(&Item) -> usize,
    dst: &mut Vec<SweepBox>,
    starts: &mut Vec<usize>,
) {
    bucket_starts(v.iter().map(&key), n, starts);
    dst.clear();
    dst.resize(v.len(), SweepBox::default());
    // The scatter advances `starts[k]` to the end of bucket k; shifting by one restores the starts.
    for it in v {
        let k = key(it);
        dst[starts[k]] = record::<A>(it);
        starts[k] += 1;
    }
    starts.copy_within(0..n, 1);
    starts[0] = 0;
}

/// Scatter `v` (sorted by `min` on axis `A`) stably into `n` **windows** by `key`, as sweep records on axis `A`:
/// window `i` (`dst[starts[i]..starts[i + 1]]`) holds the items of strips `i − 1`, `i` and `i + 1`, still sorted.
/// Each strip of the other side of a pairing is then swept once, against its window, instead of three times
/// against three strips: on the saved dense frame of the cluster that cut the scans of nodup's slab–layer
/// pairing from 3 per body on both sides to 3 per slab body and 1 per layer body (the layers hold about twice
/// the slabs' bodies), and the instructions of the whole nodup frame by 3%; the box tests stay the same.
pub(crate) fn windows<const A: usize>(
    v: &[Item],
    n: usize,
    key: impl Fn(&Item) -> usize,
    dst: &mut Vec<SweepBox>,
    starts: &mut Vec<usize>,
    at: &mut Vec<usize>,
) {
    at.clear();
    at.resize(n, 0);
    for it in v {
        at[key(it)] += 1;
    }
    starts.clear();
    starts.push(0);
    for i in 0..n {
        let w = at[i] + if i > 0 { at[i - 1] } else { 0 } + if i + 1 < n { at[i + 1] } else { 0 };
        starts.push(starts[i] + w);
    }
    dst.clear();
    dst.resize(starts[n], SweepBox::default());
    at.copy_from_slice(&starts[..n]);
    for it in v {
        let k = key(it);
        let r = record::<A>(it);
        for j in k.saturating_sub(1)..(k + 2).min(n) {
            dst[at[j]] = r;
            at[j] += 1;
        }
    }
}
