//! Strips: sweep records cut across one of their cross axes into strips at least as wide as the widest box, so that
//! a sweep tests only boxes that start in the same or neighbouring strips.
//!
//! A sweep along one axis tests each box against every box that starts within its extent there, however far apart
//! the two are on the other axes. On a **sheet** — boxes spread over two axes and crossing one plane, the own
//! bodies of a kd node or of an octree slab — that is every box of the sheet within one box width on the sweep
//! axis: a row across the whole sheet. Cut across the third axis into strips as wide as the widest box, two
//! overlapping boxes start in the same strip or in neighbours (they start less than one box width apart there), so
//! each strip is swept on its own and against the next one: a row of a strip's width instead of the sheet's.
//!
//! The strips are made by a stable scatter, so lists sorted by [`SweepBox::lo`] stay sorted strip by strip, and
//! every pair is tested exactly once, as the plain sweeps test it.

use super::{PairSink, SweepBox, sweep, sweep_two};
// A list whose starts span more than `OUTLIER_RATIO` times the trimmed sample's range is cut over the sample's
// range: the region grid's rule.
use crate::region_grid::OUTLIER_RATIO;

/// The most strips of a cut: past it the strips are wider than the widest box (a list spread over a range of more
/// than 1024 box widths gains little from finer strips, and the scatter's counts stay small).
const MAX_STRIPS: usize = 1024;

/// At most one strip per this many boxes: each strip costs a sweep call or three, and strips of one or two boxes
/// cost more in calls than they save in tests.
const BOXES_PER_STRIP: usize = 8;

/// How sweep records are cut across one of their cross axes: `n` strips of one width from `lo`, each at least as wide
/// as the widest box (by 1%, which covers the rounding of a strip index).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strips {
    lo: f32,
    width: f32,
    n: usize,
    /// The cross axis: 0 for the axis after the records' sweep axis, 1 for the one after that.
    k: usize,
}

impl Strips {
    /// Strips across cross axis `k` (0: `(A + 1) % 3`, 1: `(A + 2) % 3` for records made by
    /// [`SweepBox::on::<A>`](SweepBox::on)) sized for `boxes` by where they start and their widest extent there, at
    /// most one per 8 boxes. `None` when fewer than three strips would come out (one sweep is as good) or the boxes
    /// have no extent to size strips by.
    #[must_use]
    pub fn across<'a>(boxes: impl IntoIterator<Item = &'a SweepBox>, k: usize) -> Option<Self> {
        assert!(k < 2, "a sweep record has two cross axes");
        let (mut lo, mut hi, mut w, mut count) = (f32::INFINITY, f32::NEG_INFINITY, 0.0f32, 0);
        let mut sample = StartSample::default();
        for b in boxes {
            let (min, max) = (b.cross[k], -b.cross[k + 2]);
            lo = lo.min(min);
            hi = hi.max(min);
            w = w.max(max - min);
            sample.offer(count, min, max - min);
            count += 1;
        }
        // Strips span where the bulk of the starts is, and are as wide as the bulk's widest box: a few boxes at
        // ±1e30, or one box spanning the world, would otherwise make one strip of the whole list. Starts outside
        // land in the end strips (see `of`); boxes wider than a strip are swept against every strip (see `slot`).
        let (lo_bulk, hi_bulk, typical) = sample.bulk(lo, hi);
        (lo, hi) = (lo_bulk, hi_bulk);
        let base = if w <= OUTLIER_RATIO * typical { w } else { typical };
        let most = (count / BOXES_PER_STRIP).clamp(2, MAX_STRIPS);
        let width = (base * 1.01).max((hi - lo) / (most - 1) as f32);
        // Rounding may make one strip too many; folding the last ones together only merges neighbours.
        let n = (((hi - lo) / width) as usize + 1).min(most);
        (width > 0.0 && width.is_finite() && n >= 3).then_some(Self { lo, width, n, k })
    }

    /// The number of strips.
    #[must_use]
    pub fn len(&self) -> usize {
        self.n
    }

    /// Never: a cut has at least three strips.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Where the scatter puts `b`: the strip it starts in, or slot `n` (after the last strip) when it is wider
    /// than a strip less 1% — a wide box, which two strips apart may still overlap, so it is swept against all.
    #[inline(always)]
    fn slot(&self, b: &SweepBox) -> usize {
        let extent = -b.cross[self.k + 2] - b.cross[self.k];
        if extent * 1.01 > self.width { self.n } else { self.of(b) }
    }

    /// The strip `b` starts in. Starts below the first strip land in it (`as` saturates a negative to 0) and
    /// those past the last in the last: two overlapping boxes still start in the same strip or neighbours, since
    /// clamping moves a start only towards the strips the other box's start is within one width of.
    #[inline(always)]
    #[must_use]
    pub fn of(&self, b: &SweepBox) -> usize {
        (((b.cross[self.k] - self.lo) / self.width) as usize).min(self.n - 1)
    }
}

/// Starts and extents read at a fixed stride that doubles whenever the sample is full, so one pass over a list of
/// unknown length keeps at most [`START_SAMPLE`] of them, evenly spread.
#[derive(Clone, Copy, Debug)]
struct StartSample {
    starts: [f32; START_SAMPLE],
    extents: [f32; START_SAMPLE],
    len: usize,
    stride: usize,
}

/// The most starts a [`StartSample`] keeps.
const START_SAMPLE: usize = 64;

impl Default for StartSample {
    fn default() -> Self {
        Self { starts: [0.0; START_SAMPLE], extents: [0.0; START_SAMPLE], len: 0, stride: 1 }
    }
}

impl StartSample {
    /// The `i`-th box of the list starts at `x` and is `extent` wide.
    #[inline(always)]
    fn offer(&mut self, i: usize, x: f32, extent: f32) {
        if !i.is_multiple_of(self.stride) {
            return;
        }
        if self.len == START_SAMPLE {
            // Keep every other one: the sample is then the list at twice the stride.
            for j in 0..START_SAMPLE / 2 {
                self.starts[j] = self.starts[2 * j];
                self.extents[j] = self.extents[2 * j];
            }
            self.len = START_SAMPLE / 2;
            self.stride *= 2;
            if !i.is_multiple_of(self.stride) {
                return;
            }
        }
        self.starts[self.len] = x;
        self.extents[self.len] = extent;
        self.len += 1;
    }

    /// `lo..=hi`, or the sample's range with its `len / 32` lowest and highest starts dropped when the full range
    /// is more than [`OUTLIER_RATIO`] times wider; and the sample's widest extent with the `len / 32` widest
    /// dropped (infinity for a sample too small to say).
    fn bulk(mut self, lo: f32, hi: f32) -> (f32, f32, f32) {
        let len = self.len;
        if len < 8 {
            return (lo, hi, f32::INFINITY);
        }
        let trim = len / 32;
        let starts = &mut self.starts[..len];
        let a = *starts.select_nth_unstable_by(trim, f32::total_cmp).1;
        let b = *starts.select_nth_unstable_by(len - 1 - trim, f32::total_cmp).1;
        let typical = *self.extents[..len].select_nth_unstable_by(len - 1 - trim, f32::total_cmp).1;
        let (lo, hi) = if b - a > 0.0 && hi - lo > OUTLIER_RATIO * (b - a) { (a, b) } else { (lo, hi) };
        (lo, hi, typical)
    }
}

/// The buffers of [`sweep_strips`] and [`sweep_two_strips`], kept by the caller across calls.
#[derive(Clone, Debug, Default)]
pub struct StripScratch {
    xs: Vec<SweepBox>,
    ys: Vec<SweepBox>,
    x_starts: Vec<usize>,
    y_starts: Vec<usize>,
}

/// Pairs among `boxes` (sorted by [`SweepBox::lo`]), strip by strip: each strip swept, and each strip against the
/// next; the few boxes wider than a strip swept among themselves and against every strip. Returns the box tests
/// made. O(m + n·(1 + w) + tests) for m boxes in n strips, w of them wide.
pub fn sweep_strips(boxes: &[SweepBox], strips: &Strips, scratch: &mut StripScratch, sink: &mut PairSink<'_>) -> u64 {
    let StripScratch { xs, x_starts, .. } = scratch;
    bucket(boxes, strips, xs, x_starts);
    // Slot n holds the wide boxes.
    let strip = |i: usize| &xs[x_starts[i]..x_starts[i + 1]];
    let wide = strip(strips.n);
    let mut tests = sweep(wide, sink);
    for i in 0..strips.n {
        tests += sweep(strip(i), sink);
        if i + 1 < strips.n {
            tests += sweep_two(strip(i), strip(i + 1), sink);
        }
        if !wide.is_empty() {
            tests += sweep_two(wide, strip(i), sink);
        }
    }
    tests
}

/// Pairs between `xs` and `ys` (each sorted by [`SweepBox::lo`]), strip by strip: each strip of one list against
/// the same strip of the other and both its neighbours. `strips` must be sized for both lists
/// ([`Strips::across`] of both). Returns the box tests made. O(m + n + tests).
pub fn sweep_two_strips(
    xs: &[SweepBox],
    ys: &[SweepBox],
    strips: &Strips,
    scratch: &mut StripScratch,
    sink: &mut PairSink<'_>,
) -> u64 {
    let StripScratch { xs: xb, ys: yb, x_starts, y_starts } = scratch;
    bucket(xs, strips, xb, x_starts);
    bucket(ys, strips, yb, y_starts);
    let x = |i: usize| &xb[x_starts[i]..x_starts[i + 1]];
    let y = |i: usize| &yb[y_starts[i]..y_starts[i + 1]];
    // Slot n of each list holds its wide boxes: against the other list's wide boxes once, and every strip.
    let (x_wide, y_wide) = (x(strips.n), y(strips.n));
    let mut tests = sweep_two(x_wide, y_wide, sink);
    for i in 0..strips.n {
        tests += sweep_two(x(i), y(i), sink);
        if i + 1 < strips.n {
            tests += sweep_two(x(i), y(i + 1), sink);
            tests += sweep_two(x(i + 1), y(i), sink);
        }
        if !x_wide.is_empty() {
            tests += sweep_two(x_wide, y(i), sink);
        }
        if !y_wide.is_empty() {
            tests += sweep_two(x(i), y_wide, sink);
        }
    }
    tests
}

/// Scatter `boxes` stably into `strips`' slots: slot `i` is `dst[starts[i]..starts[i + 1]]`, in `boxes`' order.
fn bucket(boxes: &[SweepBox], strips: &Strips, dst: &mut Vec<SweepBox>, starts: &mut Vec<usize>) {
    // Slots 0..n are the strips, slot n the wide boxes.
    let slots = strips.n + 1;
    starts.clear();
    starts.resize(slots + 1, 0);
    for b in boxes {
        starts[strips.slot(b) + 1] += 1;
    }
    for i in 0..slots {
        starts[i + 1] += starts[i];
    }
    dst.clear();
    dst.resize(boxes.len(), SweepBox::default());
    // The scatter advances `starts[i]` to the end of slot i; shifting by one restores the starts.
    for b in boxes {
        let i = strips.slot(b);
        dst[starts[i]] = *b;
        starts[i] += 1;
    }
    starts.copy_within(0..slots, 1);
    starts[0] = 0;
}

#[cfg(test)]
mod tests;
