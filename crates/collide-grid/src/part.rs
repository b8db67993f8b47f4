//! One partition's buckets: the data a parallel task builds (here) and the searches read, kept across frames.
//!
//! A partition gathers the entries the body chunks wrote for it, in chunk order, and sorts them into its buckets
//! by one counting sort (a count per bucket, then a copy): every bucket is a range of one array, none is a vector
//! of its own, and the partition's entries fit the second-level cache while it is built. Beside each record its
//! extent along x is kept in two plain arrays, what the searches read four at a time. A bucket stays in body
//! order — the searches test a cell's few bodies all against all — unless it is crowded: a bucket of more than
//! [`CROWD`] records is sorted by `min.x`, for the merges that replace all-against-all between crowds.

use crate::plan::{X_BINS, XBins};
use collide_broadphase::Tally;
use collide_broadphase::radix::float_key;
use collide_broadphase::sweep::SweepBox;

/// A body as the body pass writes it for its partition: its sweep record and its bucket there, 32 bytes, read in
/// order by the partition. (Entries of 8 bytes, the body and its bucket, with the partition reading the caller's
/// box to make the record, cost less to write and count, but a partition's bodies are spread over the whole array
/// of boxes: at 10⁶ bodies half of its build waited on those reads.)
#[derive(Clone, Copy, Debug, Default)]
pub struct Entry {
    /// The body's box as the searches read it.
    pub record: SweepBox,
    /// Its bucket in the partition ([`Level::locate`](crate::plan::Level::locate)).
    pub bucket: u32,
}

/// A bucket of more than this many records is a crowd: sorted by `min.x` when built, and merged with other
/// crowds along x. Comparing all pairs of two buckets costs about 22 instructions per record of one against a
/// block of eight of the other, so per record a share of the other bucket's length; a merge about 18 per record
/// and bucket met, whatever their lengths: past a dozen records a side, the merge wins.
pub const CROWD: usize = 20;

/// The searches read extents in blocks of this many records from any record on: the extent arrays have
/// `LANES − 1` more entries at their end.
pub const LANES: usize = 8;

/// One partition: its records in bucket order. Every buffer is kept across frames.
#[derive(Clone, Debug, Default)]
pub struct Part {
    /// The records, bucket by bucket, each bucket in body order (or by bin of `min.x`, then body, when the
    /// partition has crowds), a crowd sorted by `min.x`, then body.
    pub records: Vec<SweepBox>,
    /// `lo[i]` is `records[i].lo()`, what the searches compare four lanes at a time; [`LANES`] − 1 more at the
    /// end, `+∞` (with `neg_hi`'s, an empty extent, overlapping nothing).
    pub lo: Vec<f32>,
    /// `neg_hi[i]` is `−records[i].hi()`: negated, so that both comparisons of a pair read "this bound ≤ that
    /// one" and overwrite the side that changes; [`LANES`] − 1 more at the end, `+∞`.
    pub neg_hi: Vec<f32>,
    /// `keys[i]` is `[lo, hi]` of `records[i]` as order-preserving integers ([`float_key`]) where `records[i]` is
    /// in a crowd, what the crowds' merges compare (integers, so that they compile without a branch on which list
    /// comes first); unspecified elsewhere.
    pub keys: Vec<[u32; 2]>,
    /// Bucket `b` is `records[offsets[b]..offsets[b + 1]]`; the offsets ascend from 0 to `records.len()`.
    pub offsets: Vec<u32>,
    /// The entries ordered by bin of `min.x`, when there are crowds.
    staged: Vec<Entry>,
    /// What the build did.
    pub tally: Tally,
}

impl Part {
    /// The range of bucket `b`'s records.
    #[inline(always)]
    #[must_use]
    pub fn range(&self, b: usize) -> std::ops::Range<usize> {
        self.offsets[b] as usize..self.offsets[b + 1] as usize
    }

    /// The records of bucket `b`.
    #[inline(always)]
    #[must_use]
    pub fn bucket(&self, b: usize) -> &[SweepBox] {
        &self.records[self.range(b)]
    }

    /// The number of buckets.
    #[must_use]
    pub fn buckets(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Forget the last frame (keeping the buffers).
    pub fn clear(&mut self) {
        self.records.clear();
        self.lo.clear();
        self.neg_hi.clear();
        self.keys.clear();
        self.offsets.clear();
        self.tally = Tally::default();
    }

    /// Build the partition's `buckets` buckets from the entries of `sources` (each chunk's vector for this
    /// partition, in chunk order): counted, copied into place with their extents, and each crowd — a bucket of
    /// more than [`CROWD`] records — sorted by `min.x` (then body), its keys beside it. When most entries are in
    /// crowds, they are first ordered by `bins` of `min.x` (a counting sort), so that every bucket comes out
    /// nearly sorted and a crowd's insertion sort moves few records.
    pub fn build<'a>(&mut self, buckets: usize, bins: &XBins, sources: impl Iterator<Item = &'a [Entry]> + Clone) {
        let offsets = &mut self.offsets;
        offsets.clear();
        offsets.resize(buckets + 1, 0);
        // Counts at `b + 1`, summed into starts at `b`; the copy then advances each start to its bucket's end,
        // which is the next bucket's start: moved back by one at the end.
        for source in sources.clone() {
            for e in source {
                offsets[e.bucket as usize + 1] += 1;
            }
        }
        // Mostly crowds: order by bins of x first. A few crowds among small buckets are sorted as they are.
        let in_crowds: usize = offsets[1..].iter().map(|&c| c as usize).filter(|&c| c > CROWD).sum();
        for b in 1..=buckets {
            offsets[b] += offsets[b - 1];
        }
        let total = offsets[buckets] as usize;
        let crowded = 2 * in_crowds > total;
        // Every slot is written below: growing fills the new ones once, shrinking is free.
        self.records.resize(total, SweepBox::default());
        self.lo.resize(total + LANES - 1, f32::INFINITY);
        self.neg_hi.resize(total + LANES - 1, f32::INFINITY);
        let mut copies = total;
        {
            let (records, lo, neg_hi) = (&mut self.records[..], &mut self.lo[..total], &mut self.neg_hi[..total]);
            let mut place = |e: &Entry| {
                let at = &mut offsets[e.bucket as usize];
                let i = *at as usize;
                (records[i], lo[i], neg_hi[i]) = (e.record, e.record.lo(), -e.record.hi());
                *at += 1;
            };
            if crowded {
                // By bin of `min.x` first, into `staged`; the copy into buckets keeps that order.
                let mut starts = [0u32; X_BINS + 1];
                for e in sources.clone().flatten() {
                    starts[bins.bin(e.record.lo()) + 1] += 1;
                }
                for k in 1..=X_BINS {
                    starts[k] += starts[k - 1];
                }
                self.staged.resize(total, Entry::default());
                for e in sources.flatten() {
                    let at = &mut starts[bins.bin(e.record.lo())];
                    self.staged[*at as usize] = *e;
                    *at += 1;
                }
                self.staged.iter().for_each(&mut place);
                copies += total;
            } else {
                sources.flatten().for_each(place);
            }
        }
        offsets.copy_within(0..buckets, 1);
        offsets[0] = 0;
        self.lo[total..].fill(f32::INFINITY);
        self.neg_hi[total..].fill(f32::INFINITY);
        self.keys.resize(total, [0; 2]);
        let mut sorted = 0;
        for b in 0..buckets {
            let range = offsets[b] as usize..offsets[b + 1] as usize;
            if range.len() > CROWD {
                sort_by_start(&mut self.records[range.clone()], crowded);
                for i in range.clone() {
                    let r = &self.records[i];
                    (self.lo[i], self.neg_hi[i]) = (r.lo(), -r.hi());
                    self.keys[i] = [float_key(r.lo()), float_key(r.hi())];
                }
                sorted += range.len();
            }
        }
        // Per entry: read twice (count, copy: 32 B each), its record written with its extent (36 B), read and
        // written once more by bins when there are crowds; crowds sorted (read and written, keys written); per bucket
        // a counter, summed and moved.
        let (e, c, s, b) = (total as u64, copies as u64, sorted as u64, buckets as u64);
        self.tally = Tally::work(e + c + s + b, e * 32 + c * 68 + s * 80 + b * 12);
    }
}

/// Sort a crowd by start (−0 equal to +0, as the sweeps compare them), then by body: one order whatever the order
/// the entries came in. By insertion when the bins of `min.x` left it nearly sorted or it is short, else pdqsort.
fn sort_by_start(v: &mut [SweepBox], nearly_sorted: bool) {
    let key = |r: &SweepBox| (r.lo() + 0.0, r.id());
    if !nearly_sorted && v.len() > 2 * CROWD {
        v.sort_unstable_by(|a, b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal));
        return;
    }
    for i in 1..v.len() {
        let r = v[i];
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > key(&r) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = r;
    }
}

#[cfg(test)]
mod tests;
