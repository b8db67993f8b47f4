//! Building a slab's buckets by sorting: two counting sorts on cell keys, each copying every record into every
//! cell it covers along one axis — the slab's records into **rows** (cells along y), then each row's records into
//! **columns** (cells along z, and within a column bins of x, so that the buckets come out nearly sorted for
//! their sweeps). All buckets are ranges of one array, none is a vector of its own.
//!
//! Why two sorts of a few dozen keys rather than one of thousands: a slab holds thousands of buckets, and copying
//! each record straight into its bucket wrote to memory at random — the frame waited on those stores (or, with
//! indices copied instead, on gathering the records back). A row pass writes to a few dozen places at once, in
//! streams; a row's records then fit the first-level cache, and its columns are built and searched there. A
//! record's cells are computed once per level; its copy in a row carries its cells along z.
//!
//! Why not sort a slab by `min.x` first, so that every bucket came out sorted: a radix sort of the slab cost 76
//! instructions per entry, and a counting sort by bins of x one more pass over memory; the bins ride along in the
//! columns' sort, in cache, for nothing.

use crate::plan::AxisSpan;
use collide_broadphase::sweep::SweepBox;

/// A record's copy in a row, with the cells it covers along z.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowEntry {
    /// The record.
    pub record: SweepBox,
    /// Its cells along z.
    pub z: AxisSpan,
}

/// The keys of a counting sort along one axis: `keys` of them (a power of two), a cell along the axis `stride` keys
/// from the next, around.
#[derive(Clone, Copy, Debug)]
pub struct Keys {
    /// Keys in all (a power of two).
    pub keys: usize,
    /// From one cell along the axis to the next.
    pub stride: usize,
}

/// Copy `item(j)` for every `j < n` that `place` places (`None`: left out; else its first key and how many cells it
/// covers along the axis) into each of its keys, grouped by key, appended to `dst` in the order of `j` (a stable
/// counting sort). `counts` ends with the start of each key's group relative to where the groups begin, then their
/// end (`keys.keys + 1`). Returns the copies made.
///
/// Two passes, a count and a copy, without a branch for an item at most two cells wide along the axis (the common
/// case): its second key is a trash key past the last when it has none, whose count and cursor never advance, so
/// those copies all land on one spare slot. A branch per cell mispredicted on every other item.
pub fn bucket_along<T: Copy + Default>(
    n: usize,
    place: impl Fn(usize) -> Option<(usize, u32)>,
    item: impl Fn(usize) -> T,
    keys: Keys,
    dst: &mut Vec<T>,
    counts: &mut Vec<u32>,
) -> u64 {
    let (size, stride) = (keys.keys, keys.stride);
    let trash = size;
    let key = |first: usize, t: usize| (first + t * stride) & (size - 1);
    counts.clear();
    counts.resize(size + 2, 0);
    // Plain slices in the loops: through the vectors, every store reloaded their pointers and lengths.
    let c = &mut counts[..];
    for j in 0..n {
        let Some((first, count)) = place(j) else { continue };
        if count <= 2 {
            let second = if count == 2 { key(first, 1) } else { trash };
            c[first + 1] += 1;
            c[second + 1] += u32::from(second != trash);
        } else {
            for t in 0..count as usize {
                c[key(first, t) + 1] += 1;
            }
        }
    }
    for k in 1..c.len() {
        c[k] += c[k - 1];
    }
    let total = c[trash] as usize;
    let base = dst.len();
    // One spare slot, the trash key's.
    dst.resize(base + total + 1, T::default());
    let out = &mut dst[base..];
    for j in 0..n {
        let Some((first, count)) = place(j) else { continue };
        let x = item(j);
        if count <= 2 {
            let second = if count == 2 { key(first, 1) } else { trash };
            let at = c[first];
            out[at as usize] = x;
            c[first] = at + 1;
            let at = c[second];
            out[at as usize] = x;
            c[second] = at + u32::from(second != trash);
        } else {
            for t in 0..count as usize {
                let k = key(first, t);
                out[c[k] as usize] = x;
                c[k] += 1;
            }
        }
    }
    dst.truncate(base + total);
    // Each key's cursor is now the next key's start: move them back by one.
    counts.truncate(size + 1);
    counts.copy_within(0..size, 1);
    counts[0] = 0;
    total as u64
}

/// Bins of x a slab's rows are sorted by as they are filled ([`XBins`]): with cells 4 box widths wide and slabs 4
/// cells, a bin is about a box wide, and a bucket's entries of one bin seldom overlap along x.
pub const X_BINS: usize = 16;

/// The bins of x a slab's records fall in: [`X_BINS`] between the smallest and the largest `min.x`. A slab's rows
/// are filled by one counting sort on (row, bin), and the columns' sort of a row is stable, so that every bucket
/// comes out nearly sorted by `min.x` — its sort an insertion sort that seldom moves a record, its sweep testing
/// only the boxes within reach along x — without a pass of its own.
#[derive(Clone, Copy, Debug)]
pub struct XBins {
    lo: f32,
    scale: f32,
}

impl XBins {
    /// The bins of records whose `min.x` lie in `lo..=hi`.
    #[must_use]
    pub fn new(lo: f32, hi: f32) -> Self {
        let scale = (X_BINS - 1) as f32 / (hi - lo);
        Self { lo, scale: if scale.is_finite() { scale } else { 0.0 } }
    }

    /// The bins of `records`' starts.
    #[must_use]
    pub fn of(records: &[SweepBox]) -> Self {
        let (lo, hi) =
            records.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), r| (lo.min(r.lo()), hi.max(r.lo())));
        Self::new(lo, hi)
    }

    /// The bin of `x`: monotone (a rounded subtraction and product, a clamp, a rounding), in `0..X_BINS`.
    #[inline(always)]
    #[must_use]
    pub fn bin(&self, x: f32) -> usize {
        // The nearest integer read off the bits of `t + 1.5 · 2²³` (`t` is clamped far below 2²²): a saturating `as`
        // cast checked for NaN and overflow that the clamp has ruled out. Bins only need to be monotone. `max` and
        // `min`, not `clamp`: when the starts span more than `f32::MAX` the scale is 0 and `x - lo` may overflow,
        // and `max` turns the NaN of `inf · 0` into bin 0 where `clamp` would pass it on.
        let t = ((x - self.lo) * self.scale).max(0.0).min((X_BINS - 1) as f32);
        ((t + 12_582_912.0).to_bits() - 12_582_912f32.to_bits()) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts spanning more than `f32::MAX` (the kit's float-limits scene) still give bins in range.
    #[test]
    fn bins_stay_in_range_at_the_float_limits() {
        let bins = XBins::new(-3.0e38, 3.0e38);
        for x in [-3.0e38, -1.0, 0.0, 1.0e30, 3.0e38, f32::MAX, f32::MIN] {
            assert!(bins.bin(x) < X_BINS, "{x}");
        }
        let finite = XBins::new(0.0, 15.0);
        assert_eq!([-1.0, 0.0, 7.2, 15.0, 99.0].map(|x| finite.bin(x)), [0, 0, 7, 15, 15]);
    }
    use crate::plan::Level;
    use collide_broadphase::Aabb;
    use collide_math::{Rng, Vec3};

    /// Rows then columns with bins of x: each record lands once in each cell it covers — boxes one cell wide, two
    /// cells wide, and wider than the torus — in the records' order within a bin, bins ascending in a column, and
    /// records left out nowhere.
    #[test]
    fn records_land_once_in_each_cell_they_cover_in_order() {
        let mut rng = Rng::new(3);
        let level = Level::new(1.0, [0.0; 2], [2, 3]);
        let src: Vec<SweepBox> = (0..600u32)
            .map(|i| {
                let half = [0.2, 0.45, 3.0][i as usize % 3];
                SweepBox::on::<0>(&Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(9.0)), half), i)
            })
            .collect();
        let spans: Vec<[AxisSpan; 2]> = src.iter().map(|r| level.axis_spans(r)).collect();
        let select = |j: usize| !j.is_multiple_of(5);
        let (mut rows, mut row_counts) = (vec![RowEntry::default(); 3], Vec::new());
        rows.clear();
        let item = |j: usize| RowEntry { record: src[j], z: spans[j][1] };
        let bins = XBins::of(&src);
        let place = |j: usize| {
            select(j).then_some((spans[j][0].first as usize * X_BINS + bins.bin(src[j].lo()), spans[j][0].count()))
        };
        let keys = Keys { keys: 4 * X_BINS, stride: X_BINS };
        let copies = bucket_along(src.len(), place, item, keys, &mut rows, &mut row_counts);
        assert_eq!(copies as usize, rows.len());
        assert_eq!(row_counts.len(), 4 * X_BINS + 1);
        let (mut cells, mut counts, mut seen) = (Vec::new(), Vec::new(), vec![0usize; src.len()]);
        let key = |r: &SweepBox| (bins.bin(r.lo()), r.id());
        for j in 0..4 {
            let row = &rows[row_counts[j * X_BINS] as usize..row_counts[(j + 1) * X_BINS] as usize];
            assert!(row.windows(2).all(|w| key(&w[0].record) < key(&w[1].record)), "row {j} out of order");
            let base = cells.len();
            let place = |i: usize| Some((row[i].z.first as usize, row[i].z.count()));
            bucket_along(row.len(), place, |i| row[i].record, Keys { keys: 8, stride: 1 }, &mut cells, &mut counts);
            for k in 0..8 {
                let cell: &[SweepBox] = &cells[base + counts[k] as usize..base + counts[k + 1] as usize];
                assert!(cell.windows(2).all(|w| key(&w[0]) < key(&w[1])), "cell ({j}, {k}) out of order");
                for r in cell {
                    // The record covers this cell.
                    let column = level.column(j as i32, k as i32);
                    let mut covers = false;
                    level.for_each_column(r, |c| covers |= c == column);
                    assert!(covers, "record {} in cell ({j}, {k})", r.id());
                    seen[r.id() as usize] += 1;
                }
            }
        }
        for (j, r) in src.iter().enumerate() {
            let want = if select(j) { level.column_count(r) } else { 0 };
            assert_eq!(seen[j], want, "record {j}");
        }
        let bins = XBins::new(-3.0, 9.5);
        assert_eq!([-5.0, -3.0, 9.49, 9.5, 1e30].map(|x| bins.bin(x)), [0, 0, X_BINS - 1, X_BINS - 1, X_BINS - 1]);
        let xs: Vec<f32> = (0..200).map(|i| -3.0 + i as f32 * 0.07).collect();
        assert!(xs.windows(2).all(|w| bins.bin(w[0]) <= bins.bin(w[1])), "monotone");
        assert_eq!((0..X_BINS).filter(|&b| xs.iter().any(|&x| bins.bin(x) == b)).count(), X_BINS, "every bin used");
        assert_eq!(XBins::new(2.0, 2.0).bin(7.0), 0, "one start: one bin");
    }
}
