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
        for b in boxes {
            let (min, max) = (b.cross[k], -b.cross[k + 2]);
            lo = lo.min(min);
            hi = hi.max(min);
            w = w.max(max - min);
            count += 1;
        }
        let most = (count / BOXES_PER_STRIP).clamp(2, MAX_STRIPS);
        let width = (w * 1.01).max((hi - lo) / (most - 1) as f32);
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

    /// The strip `b` starts in.
    #[inline(always)]
    #[must_use]
    pub fn of(&self, b: &SweepBox) -> usize {
        (((b.cross[self.k] - self.lo) / self.width) as usize).min(self.n - 1)
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
/// next. Returns the box tests made. O(m + n + tests) for m boxes in n strips.
pub fn sweep_strips(boxes: &[SweepBox], strips: &Strips, scratch: &mut StripScratch, sink: &mut PairSink<'_>) -> u64 {
    let StripScratch { xs, x_starts, .. } = scratch;
    bucket(boxes, strips, xs, x_starts);
    let strip = |i: usize| &xs[x_starts[i]..x_starts[i + 1]];
    let mut tests = 0;
    for i in 0..strips.n {
        tests += sweep(strip(i), sink);
        if i + 1 < strips.n {
            tests += sweep_two(strip(i), strip(i + 1), sink);
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
    let mut tests = 0;
    for i in 0..strips.n {
        tests += sweep_two(x(i), y(i), sink);
        if i + 1 < strips.n {
            tests += sweep_two(x(i), y(i + 1), sink);
            tests += sweep_two(x(i + 1), y(i), sink);
        }
    }
    tests
}

/// Scatter `boxes` stably into `strips`: strip `i` is `dst[starts[i]..starts[i + 1]]`, in `boxes`' order.
fn bucket(boxes: &[SweepBox], strips: &Strips, dst: &mut Vec<SweepBox>, starts: &mut Vec<usize>) {
    starts.clear();
    starts.resize(strips.n + 1, 0);
    for b in boxes {
        starts[strips.of(b) + 1] += 1;
    }
    for i in 0..strips.n {
        starts[i + 1] += starts[i];
    }
    dst.clear();
    dst.resize(boxes.len(), SweepBox::default());
    // The scatter advances `starts[i]` to the end of strip i; shifting by one restores the starts.
    for b in boxes {
        let i = strips.of(b);
        dst[starts[i]] = *b;
        starts[i] += 1;
    }
    starts.copy_within(0..strips.n, 1);
    starts[0] = 0;
}

#[cfg(test)]
mod tests {
    use super::super::{SinkBuffer, sort_by_lo};
    use super::*;
    use crate::{Aabb, Pair, PairList, reference_pairs};
    use collide_math::{Rng, Vec3};

    /// A sheet across the plane y = 0: boxes spread over x and z, some touching exactly, some at ±0.0.
    fn sheet(rng: &mut Rng, n: usize) -> Vec<Aabb> {
        (0..n)
            .map(|i| {
                let c = Vec3::new(rng.below(80) as f32 * 0.5, 0.0, rng.below(80) as f32 * 0.5);
                let h = Vec3::new(0.5, 0.5 + (i % 3) as f32, 0.5 * (1 + i % 2) as f32);
                let mut b = Aabb::new(c - h, c + h);
                // Some boxes end at x = -0.0 and some start at x = +0.0: they touch.
                if i % 7 == 0 {
                    (b.min.x, b.max.x) = (-1.0, -0.0);
                } else if i % 7 == 1 {
                    (b.min.x, b.max.x) = (0.0, 1.0);
                }
                b
            })
            .collect()
    }

    fn records<const A: usize>(aabbs: &[Aabb], ids: impl Iterator<Item = usize>) -> Vec<SweepBox> {
        let mut v: Vec<SweepBox> = ids.map(|i| SweepBox::on::<A>(&aabbs[i], i as u32)).collect();
        sort_by_lo(&mut v);
        v
    }

    fn sorted(mut v: Vec<Pair>) -> Vec<Pair> {
        v.sort_unstable();
        v
    }

    /// On both cross axes, the strip sweeps of one list and of two halves find exactly the reference pairs, and the
    /// one-list sweep tests fewer boxes than a plain sweep of the sheet.
    #[test]
    fn strip_sweeps_find_the_reference_pairs() {
        let mut rng = Rng::new(21);
        let aabbs = sheet(&mut rng, 1200);
        let mut want = PairList::new();
        reference_pairs(&aabbs, &mut want);
        let (mut buffer, mut scratch) = (SinkBuffer::default(), StripScratch::default());
        for k in 0..2 {
            let all = records::<1>(&aabbs, 0..aabbs.len());
            let strips = Strips::across(&all, k).expect("a sheet 40 wide cuts into strips");
            assert!(strips.len() >= 3);
            let mut out = Vec::new();
            let tests = sweep_strips(&all, &strips, &mut scratch, &mut PairSink::new(&mut out, &mut buffer));
            assert_eq!(sorted(out), want.as_slice(), "cross axis {k}");
            let mut plain = Vec::new();
            let plain_tests = sweep(&all, &mut PairSink::new(&mut plain, &mut buffer));
            assert!(tests < plain_tests / 3, "{tests} tests in strips, {plain_tests} in one sweep");

            let xs = records::<1>(&aabbs, (0..aabbs.len()).filter(|i| i % 3 == 0));
            let ys = records::<1>(&aabbs, (0..aabbs.len()).filter(|i| i % 3 != 0));
            let strips = Strips::across(xs.iter().chain(&ys), k).unwrap();
            let mut out = Vec::new();
            {
                let mut sink = PairSink::new(&mut out, &mut buffer);
                for side in [&xs, &ys] {
                    let own = Strips::across(side.iter(), k).unwrap();
                    sweep_strips(side, &own, &mut scratch, &mut sink);
                }
                sweep_two_strips(&xs, &ys, &strips, &mut scratch, &mut sink);
            }
            assert_eq!(sorted(out), want.as_slice(), "cross axis {k}, two lists");
        }
    }

    #[test]
    fn too_few_strips_or_no_extent_is_no_cut() {
        let narrow: Vec<SweepBox> = (0..10)
            .map(|i| SweepBox::on::<0>(&Aabb::from_center_radius(Vec3::splat(i as f32 * 0.1), 1.0), i))
            .collect();
        assert_eq!(Strips::across(&narrow, 0), None, "a list two boxes wide");
        let point = vec![SweepBox::on::<0>(&Aabb::from_center_radius(Vec3::splat(2.0), 0.0), 0); 10];
        assert_eq!(Strips::across(&point, 1), None, "no extent");
        // Points spread out: strips of a 1023rd of their range, at most 1024 of them; and at most one per 8 boxes.
        let points: Vec<SweepBox> =
            (0..10_000).map(|i| SweepBox::on::<0>(&Aabb::from_center_radius(Vec3::splat(i as f32), 0.0), i)).collect();
        let strips = Strips::across(&points, 1).unwrap();
        assert!(strips.len() <= 1024 && strips.len() >= 1000, "{}", strips.len());
        assert_eq!(strips.of(&points[9999]), strips.len() - 1);
        let strips = Strips::across(&points[..800], 1).unwrap();
        assert!(strips.len() <= 100 && strips.len() >= 95, "{}", strips.len());
        assert_eq!(Strips::across(&[], 0), None);
    }
}
