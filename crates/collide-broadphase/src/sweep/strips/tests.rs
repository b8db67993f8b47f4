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

/// A sheet with a few boxes far out on both cross axes (±1e30), two poking out of its corners, one box
/// spanning the world and one several strips wide: still cut into strips over the sheet, exact (one list and
/// two), and far cheaper than one sweep.
#[test]
fn far_boxes_neither_spoil_the_cut_nor_lose_pairs() {
    let mut rng = Rng::new(8);
    let mut aabbs = sheet(&mut rng, 1200);
    for (i, x) in [-1.0e30f32, 1.0e30, -3.0e29, 2.0e30].into_iter().enumerate() {
        let c = Vec3::new(x, 0.0, -x);
        aabbs.push(Aabb::new(c - Vec3::splat(1.0), c + Vec3::splat(1.0 + i as f32)));
    }
    // Wide boxes: one spanning the world, one three strips wide across the sheet.
    aabbs.push(Aabb::new(Vec3::splat(-1.0e30), Vec3::splat(1.0e30)));
    aabbs.push(Aabb::new(Vec3::new(10.0, -1.0, 10.0), Vec3::new(22.0, 1.0, 22.0)));
    // Two boxes of ordinary size poking out of the sheet's corners, overlapping sheet boxes.
    aabbs.push(Aabb::new(Vec3::new(-3.0, -1.0, -3.0), Vec3::new(0.5, 1.0, 0.5)));
    aabbs.push(Aabb::new(Vec3::new(39.0, -1.0, 39.0), Vec3::new(43.0, 1.0, 43.0)));
    let mut want = PairList::new();
    reference_pairs(&aabbs, &mut want);
    let (mut buffer, mut scratch) = (SinkBuffer::default(), StripScratch::default());
    for k in 0..2 {
        let all = records::<1>(&aabbs, 0..aabbs.len());
        let strips = Strips::across(&all, k).expect("the sheet still cuts into strips");
        let mut out = Vec::new();
        let tests = sweep_strips(&all, &strips, &mut scratch, &mut PairSink::new(&mut out, &mut buffer));
        assert_eq!(sorted(out), want.as_slice(), "cross axis {k}");
        let plain_tests = sweep(&all, &mut PairSink::new(&mut Vec::new(), &mut buffer));
        assert!(tests < plain_tests / 3, "{tests} tests in strips, {plain_tests} in one sweep");

        let xs = records::<1>(&aabbs, (0..aabbs.len()).filter(|i| i % 2 == 0));
        let ys = records::<1>(&aabbs, (0..aabbs.len()).filter(|i| i % 2 == 1));
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
    let narrow: Vec<SweepBox> =
        (0..10).map(|i| SweepBox::on::<0>(&Aabb::from_center_radius(Vec3::splat(i as f32 * 0.1), 1.0), i)).collect();
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

/// Records for a sweep along x of boxes given by where they start on cross axis `k` of those records and their
/// extent there (on the third axis all span 0..1, along x all 0..1), named by their places in the list.
fn on_cross(k: usize, spans: &[(f32, f32)]) -> (Vec<Aabb>, Vec<SweepBox>) {
    let aabbs: Vec<Aabb> = spans
        .iter()
        .map(|&(s, e)| {
            let (mut lo, mut hi) = (Vec3::ZERO, Vec3::ONE);
            (lo[1 + k], hi[1 + k]) = (s, s + e);
            Aabb::new(lo, hi)
        })
        .collect();
    let recs = records::<0>(&aabbs, 0..aabbs.len());
    (aabbs, recs)
}

/// How a cut is sized, on lists of 64 boxes (all of them in the start sample; at most eight strips) with no start
/// far out: over all the starts, each strip 1% wider than the widest box (or than the bulk's widest, when the widest
/// is more than four times that) unless a seventh of the range is wider; as many strips as the range has whole
/// widths, plus one. Starts below zero, so that a box's end plus or over its start is nothing like its extent; and
/// a range not starting at zero.
#[test]
fn a_cut_is_as_wide_as_the_widest_box_over_all_the_starts() {
    let steps = |from: f32, step: f32, extent: f32| (0..64).map(move |i| (from + i as f32 * step, extent));
    for k in 0..2 {
        // Boxes 3 wide starting from −20 to −4.25: 5.2 widths of 3.03, so six strips.
        let (_, recs) = on_cross(k, &steps(-20.0, 0.25, 3.0).collect::<Vec<_>>());
        let strips = Strips::across(&recs, k).unwrap();
        assert_eq!(strips, Strips { lo: -20.0, width: 3.0 * 1.01, n: 6, k });
        assert!(!strips.is_empty());
        assert_eq!(strips.len(), 6);

        // Starts from −64 to −1 and one box 10 wide, within four times the bulk's widest (3): strips of 10.1.
        let mut spans: Vec<(f32, f32)> = steps(-64.0, 1.0, 3.0).collect();
        spans[32].1 = 10.0;
        let (_, recs) = on_cross(k, &spans);
        assert_eq!(Strips::across(&recs, k), Some(Strips { lo: -64.0, width: 10.0 * 1.01, n: 7, k }));
        // One box 20 wide, past four times the bulk's widest, is left out: a seventh of the range, 9, is wider.
        spans[32].1 = 20.0;
        let (_, recs) = on_cross(k, &spans);
        assert_eq!(Strips::across(&recs, k), Some(Strips { lo: -64.0, width: 9.0, n: 8, k }));

        // Boxes 1 wide starting from 10 to 80: seven strips of the range, 10 wide, are wider than a box.
        let mut spans: Vec<(f32, f32)> = steps(10.0, 1.0, 1.0).collect();
        spans[63].0 = 80.0;
        let (_, recs) = on_cross(k, &spans);
        assert_eq!(Strips::across(&recs, k), Some(Strips { lo: 10.0, width: 10.0, n: 8, k }));
    }
}

/// The range is cut to the sample's with its two lowest and two highest starts dropped only when the full range
/// is more than four times wider; not when it is exactly four times wider, and not when the trimmed range is
/// empty (the bulk at one point). 64 boxes 3 wide, at most eight strips.
#[test]
fn far_starts_are_trimmed_only_past_four_times_the_bulk() {
    for k in 0..2 {
        let spans = |far: [f32; 4], bulk: &dyn Fn(usize) -> f32| -> Vec<(f32, f32)> {
            far.into_iter().chain((0..60).map(bulk)).map(|s| (s, 3.0)).collect()
        };
        // A bulk from −70 to −7 (so that the sum of its ends is below zero) and starts at ±10⁶: cut over the bulk,
        // a seventh of 63 wide.
        let (_, recs) =
            on_cross(k, &spans([-1.0e6, -1.0e6, 1.0e6, 1.0e6], &|i| if i < 59 { -70.0 + i as f32 } else { -7.0 }));
        assert_eq!(Strips::across(&recs, k), Some(Strips { lo: -70.0, width: 9.0, n: 8, k }));

        // A bulk from 0 to 14 and starts at −21 and 35: the range, 56, is four times the bulk's, kept whole.
        let (_, recs) = on_cross(k, &spans([-21.0, -21.0, 35.0, 35.0], &|i| (i % 15) as f32));
        assert_eq!(Strips::across(&recs, k), Some(Strips { lo: -21.0, width: 8.0, n: 8, k }));

        // A bulk all at 0 and starts at ±105: nothing to trim to, kept whole.
        let (_, recs) = on_cross(k, &spans([-105.0, -105.0, 105.0, 105.0], &|_| 0.0));
        assert_eq!(Strips::across(&recs, k), Some(Strips { lo: -105.0, width: 30.0, n: 8, k }));
    }
}

/// A start below the first strip lands in it and one past the last in the last (never in slot `n`, the wide
/// boxes'); the others by their distance from the cut's start.
#[test]
fn a_start_past_either_end_lands_in_the_end_strip() {
    for k in 0..2 {
        let strips = Strips { lo: 10.0, width: 8.0, n: 8, k };
        let (_, recs) = on_cross(k, &[(-1.0e6, 1.0), (10.0, 1.0), (27.0, 1.0), (73.9, 1.0), (74.0, 1.0), (1.0e6, 1.0)]);
        let of: Vec<usize> = recs.iter().map(|b| strips.of(b)).collect();
        assert_eq!(of, [0, 0, 2, 7, 7, 7]);
    }
}

/// A box wider than a strip less 1% may overlap a box two strips on, so it is swept against every strip: here one
/// 1.005 strips wide starting at the end of strip 0 overlaps one starting at the start of strip 2.
#[test]
fn a_box_just_wider_than_a_strip_meets_boxes_two_strips_on() {
    let (mut buffer, mut scratch) = (SinkBuffer::default(), StripScratch::default());
    for k in 0..2 {
        let strips = Strips { lo: 0.0, width: 1.0, n: 10, k };
        let (aabbs, recs) = on_cross(k, &[(0.999, 1.005), (2.0, 0.1), (5.0, 0.5)]);
        let mut want = PairList::new();
        reference_pairs(&aabbs, &mut want);
        assert_eq!(want.as_slice(), [Pair::new(0, 1)]);
        let mut out = Vec::new();
        sweep_strips(&recs, &strips, &mut scratch, &mut PairSink::new(&mut out, &mut buffer));
        assert_eq!(out, want.as_slice(), "one list, cross axis {k}");
        for (xs, ys) in [(&recs[..1], &recs[1..]), (&recs[1..], &recs[..1])] {
            let mut out = Vec::new();
            sweep_two_strips(xs, ys, &strips, &mut scratch, &mut PairSink::new(&mut out, &mut buffer));
            assert_eq!(out, want.as_slice(), "two lists, cross axis {k}");
        }
    }
}

/// The tests counted: each pair of boxes in the same or neighbouring strips, or one of them wide, once (all the
/// boxes here overlap along the sweep axis, so a sweep tests every such pair). Three strips of two boxes and a
/// wide box: 21 pairs less the 4 of strips 0 and 2; two such lists: 49 less 2 · 4.
#[test]
fn strip_sweeps_test_each_pair_of_neighbouring_strips_once() {
    let (mut buffer, mut scratch) = (SinkBuffer::default(), StripScratch::default());
    let list = [(0.1, 0.5), (0.6, 0.3), (1.1, 0.5), (1.6, 0.3), (2.1, 0.5), (2.6, 0.3), (0.0, 3.0)];
    for k in 0..2 {
        let strips = Strips { lo: 0.0, width: 1.0, n: 3, k };
        let (aabbs, recs) = on_cross(k, &[list, list].concat());
        let mut want = PairList::new();
        reference_pairs(&aabbs, &mut want);
        let (xs, ys) = recs.iter().partition::<Vec<SweepBox>, _>(|b| b.id() < 7);

        let mut out = Vec::new();
        let tests = sweep_strips(&xs, &strips, &mut scratch, &mut PairSink::new(&mut out, &mut buffer));
        assert_eq!(tests, 21 - 4, "one list, cross axis {k}");
        let within: Vec<Pair> = want.iter().copied().filter(|p| p.b < 7).collect();
        assert_eq!(sorted(out), within, "one list, cross axis {k}");

        let mut out = Vec::new();
        let tests = sweep_two_strips(&xs, &ys, &strips, &mut scratch, &mut PairSink::new(&mut out, &mut buffer));
        assert_eq!(tests, 49 - 2 * 4, "two lists, cross axis {k}");
        let across: Vec<Pair> = want.iter().copied().filter(|p| p.a < 7 && p.b >= 7).collect();
        assert_eq!(sorted(out), across, "two lists, cross axis {k}");
    }
}

/// The start sample of a list of `n` keeps every `s`-th box from the first, `s` the least power of two that
/// leaves at most 64 of them: the list at that stride, starts and extents together.
#[test]
fn the_start_sample_is_the_list_at_a_doubling_stride() {
    for n in [10, 64, 65, 100, 128, 129, 300, 1000] {
        let mut sample = StartSample::default();
        for i in 0..n {
            sample.offer(i, i as f32, 2.0 * i as f32 + 1.0);
        }
        let stride = (0..).map(|p| 1usize << p).find(|s| n.div_ceil(*s) <= START_SAMPLE).unwrap();
        let starts: Vec<f32> = (0..n).step_by(stride).map(|i| i as f32).collect();
        let extents: Vec<f32> = starts.iter().map(|x| 2.0 * x + 1.0).collect();
        assert_eq!(&sample.starts[..sample.len], starts, "{n} boxes");
        assert_eq!(&sample.extents[..sample.len], extents, "{n} boxes");
    }
}
