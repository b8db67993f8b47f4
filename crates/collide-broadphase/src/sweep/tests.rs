use super::*;
use crate::{PairList, reference_pairs};
use collide_math::Rng;

fn records<const A: usize>(aabbs: &[Aabb]) -> Vec<SweepBox> {
    let mut v: Vec<SweepBox> = aabbs.iter().enumerate().map(|(i, b)| SweepBox::on::<A>(b, i as u32)).collect();
    sort_by_lo(&mut v);
    v
}

fn sorted(mut v: Vec<Pair>) -> Vec<Pair> {
    v.sort_unstable();
    v
}

/// Boxes on a coarse lattice, so that many touch exactly (closed intervals), some at ±0.0.
fn lattice_boxes(rng: &mut Rng, n: usize) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let p = |rng: &mut Rng| Vec3::new(rng.below(5) as f32, rng.below(5) as f32, rng.below(5) as f32) - 2.0;
            let a = p(rng) * 0.5;
            let mut b = a + Vec3::new(rng.below(3) as f32, rng.below(3) as f32, rng.below(3) as f32) * 0.5;
            if rng.chance(0.2) {
                b.x = -0.0;
            }
            Aabb::new(a.min(b), a.max(b))
        })
        .collect()
}

#[test]
fn the_four_lane_test_is_aabb_overlaps() {
    let mut rng = Rng::new(3);
    let boxes = lattice_boxes(&mut rng, 300);
    for a in &boxes {
        for b in &boxes {
            let (ra, rb) = (SweepBox::on::<1>(a, 0), SweepBox::on::<1>(b, 1));
            let q = [-ra.cross[2], -ra.cross[3], -ra.cross[0], -ra.cross[1]];
            let p = rb.cross;
            let cross = (p[0] <= q[0]) & (p[1] <= q[1]) & (p[2] <= q[2]) & (p[3] <= q[3]);
            let on_axis = a.overlaps_on_axis(b, 1);
            assert_eq!(cross && on_axis, a.overlaps(b), "{a:?} {b:?}");
            assert_eq!(ra.overlaps(&rb), a.overlaps(b), "{a:?} {b:?}");
            assert_eq!(ra.min::<1>(), a.min);
            assert_eq!(ra.max::<1>(), a.max);
            assert_eq!((ra.lo(), ra.hi()), (a.min.y, a.max.y));
        }
    }
}

#[test]
fn sweeps_find_the_reference_pairs_on_every_axis() {
    let mut rng = Rng::new(8);
    // Large enough that scans overflow the sink (the slow path), with touching boxes.
    for aabbs in [lattice_boxes(&mut rng, 200), lattice_boxes(&mut rng, 1500)] {
        let mut want = PairList::new();
        reference_pairs(&aabbs, &mut want);
        for axis in 0..3 {
            let recs = match axis {
                0 => records::<0>(&aabbs),
                1 => records::<1>(&aabbs),
                _ => records::<2>(&aabbs),
            };
            let (mut out, mut buffer) = (Vec::new(), SinkBuffer::default());
            let tests = sweep(&recs, &mut PairSink::new(&mut out, &mut buffer));
            assert_eq!(sorted(out), want.as_slice(), "axis {axis}");
            assert!(tests >= want.len() as u64);

            // The same pairs from two halves swept against each other and themselves.
            let (xs, ys): (Vec<SweepBox>, Vec<SweepBox>) = recs.iter().partition(|r| r.id() % 2 == 0);
            let mut out = Vec::new();
            {
                let mut sink = PairSink::new(&mut out, &mut buffer);
                sweep(&xs, &mut sink);
                sweep(&ys, &mut sink);
                sweep_two(&xs, &ys, &mut sink);
            }
            assert_eq!(sorted(out), want.as_slice(), "axis {axis}, halves");

            // And by the sparse sweep, from scanner ranges that cut the list in three.
            let cut = [0, recs.len() / 3, recs.len() / 2, recs.len()];
            let mut out = Vec::new();
            for w in cut.windows(2) {
                sweep_sparse(&recs, w[0]..w[1], |_, _| true, &mut PairSink::new(&mut out, &mut buffer));
            }
            assert_eq!(sorted(out), want.as_slice(), "axis {axis}, sparse");

            // And by the sparse sweeps of the halves and across them; `keep` sees the box of `xs` first.
            let mut out = Vec::new();
            let mut crossing = 0;
            {
                let mut sink = PairSink::new(&mut out, &mut buffer);
                sweep_sparse(&xs, 0..xs.len(), |_, _| true, &mut sink);
                sweep_sparse(&ys, 0..ys.len(), |_, _| true, &mut sink);
                let even_first = |x: &SweepBox, y: &SweepBox| x.id().is_multiple_of(2) && y.id() % 2 == 1;
                crossing += sweep_two_sparse(&xs, &ys, even_first, &mut sink);
            }
            assert_eq!(sorted(out), want.as_slice(), "axis {axis}, sparse halves");
            let mut across = Vec::new();
            assert_eq!(
                sweep_two(&xs, &ys, &mut PairSink::new(&mut across, &mut buffer)),
                crossing,
                "the sparse and the branch-free sweep of two lists make the same tests"
            );
        }
    }
}

/// The unsorted small-group forms find the same pairs, on both sides of [`ALL_PAIRS_MAX`], keeping what `keep`
/// accepts in the argument order promised; and they leave the sink below half full for the sweeps.
#[test]
fn all_pairs_of_unsorted_groups_find_the_reference_pairs() {
    let mut rng = Rng::new(13);
    let aabbs = lattice_boxes(&mut rng, 120);
    // In index order (unsorted on every axis).
    let recs: Vec<SweepBox> = aabbs.iter().enumerate().map(|(i, b)| SweepBox::on::<2>(b, i as u32)).collect();
    let buffer = &mut SinkBuffer::default();
    for size in [0, 1, 2, 7, ALL_PAIRS_MAX, ALL_PAIRS_MAX + 1, 120] {
        let group = &recs[..size];
        let mut want = PairList::new();
        reference_pairs(&aabbs[..size], &mut want);
        let mut out = Vec::new();
        let tests = all_pairs(group, |_, _| true, &mut PairSink::new(&mut out, buffer));
        assert_eq!(tests as usize, size * size.saturating_sub(1) / 2);
        assert_eq!(sorted(out), want.as_slice(), "{size} boxes");

        // Halves and the pairs across them; `keep` sees the box of `xs` first.
        let (xs, ys): (Vec<SweepBox>, Vec<SweepBox>) = group.iter().partition(|r| r.id() % 2 == 0);
        let mut out = Vec::new();
        {
            let mut sink = PairSink::new(&mut out, buffer);
            all_pairs(&xs, |_, _| true, &mut sink);
            all_pairs(&ys, |_, _| true, &mut sink);
            let even_first = |x: &SweepBox, y: &SweepBox| x.id().is_multiple_of(2) && y.id() % 2 == 1;
            assert_eq!(all_pairs_two(&xs, &ys, even_first, &mut sink), (xs.len() * ys.len()) as u64);
            assert!(sink.n < SINK / 2);
        }
        assert_eq!(sorted(out), want.as_slice(), "{size} boxes in halves");

        let mut out = Vec::new();
        let every_third = |a: &SweepBox, b: &SweepBox| a.id().is_multiple_of(3) || b.id().is_multiple_of(3);
        all_pairs(group, every_third, &mut PairSink::new(&mut out, buffer));
        let kept: Vec<Pair> = want.iter().copied().filter(|p| p.a.is_multiple_of(3) || p.b.is_multiple_of(3)).collect();
        assert_eq!(sorted(out), kept, "{size} boxes, every third");
    }

    // Many groups into one sink: the buffer fills and flushes between groups.
    let mut out = Vec::new();
    {
        let mut sink = PairSink::new(&mut out, buffer);
        for _ in 0..40 {
            all_pairs(&recs[..30], |_, _| true, &mut sink);
        }
    }
    let mut want = PairList::new();
    reference_pairs(&aabbs[..30], &mut want);
    assert_eq!(out.len(), 40 * want.len());
}

/// The pairs `keep` refuses are left out, whichever list the scanning box came from.
#[test]
fn the_sparse_sweep_of_two_lists_keeps_what_keep_accepts() {
    let mut rng = Rng::new(12);
    let aabbs = lattice_boxes(&mut rng, 600);
    let recs = records::<0>(&aabbs);
    let (xs, ys): (Vec<SweepBox>, Vec<SweepBox>) = recs.iter().partition(|r| r.id() < 300);
    let keep = |x: &SweepBox, y: &SweepBox| x.id().is_multiple_of(3) || y.id() % 3 == 1;
    let mut want: Vec<Pair> = Vec::new();
    for x in &xs {
        for y in &ys {
            if aabbs[x.id() as usize].overlaps(&aabbs[y.id() as usize]) && keep(x, y) {
                want.push(Pair::new(x.id(), y.id()));
            }
        }
    }
    assert!(want.len() > 100, "a scene with pairs across the lists");
    let (mut out, mut buffer) = (Vec::new(), SinkBuffer::default());
    sweep_two_sparse(&xs, &ys, keep, &mut PairSink::new(&mut out, &mut buffer));
    assert_eq!(sorted(out), sorted(want));
}

/// `n` boxes at `x` that all overlap one another (each starts a little after the last, all end together), pushed
/// to `world`; their records for a sweep along x, named by their places in `world`, sorted.
fn clump(world: &mut Vec<Aabb>, n: usize, x: f32) -> Vec<SweepBox> {
    let first = world.len();
    for j in 0..n {
        world.push(Aabb::new(Vec3::new(x + j as f32 / 1024.0, 0.0, 0.0), Vec3::new(x + 1.0, 1.0, 1.0)));
    }
    (first..world.len()).map(|i| SweepBox::on::<0>(&world[i], i as u32)).collect()
}

/// A long box at `x` and `p` short ones along it, apart from one another: exactly `p` overlapping pairs.
fn fan(world: &mut Vec<Aabb>, p: usize, x: f32) -> Vec<SweepBox> {
    let first = world.len();
    world.push(Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 2.0 * p as f32, 1.0, 1.0)));
    for j in 0..p {
        let at = x + 2.0 * j as f32;
        world.push(Aabb::new(Vec3::new(at, 0.0, 0.0), Vec3::new(at + 1.0, 1.0, 1.0)));
    }
    (first..world.len()).map(|i| SweepBox::on::<0>(&world[i], i as u32)).collect()
}

/// The overlapping pairs among `recs`, each tested here on the boxes of `world` the records name.
fn pairs_among(world: &[Aabb], recs: &[SweepBox]) -> Vec<Pair> {
    let mut v = Vec::new();
    for (i, a) in recs.iter().enumerate() {
        for b in &recs[i + 1..] {
            if world[a.id() as usize].overlaps(&world[b.id() as usize]) {
                v.push(Pair::new(a.id(), b.id()));
            }
        }
    }
    v
}

/// The overlapping pairs of a record of `xs` and one of `ys`, tested on the boxes of `world`.
fn pairs_across(world: &[Aabb], xs: &[SweepBox], ys: &[SweepBox]) -> Vec<Pair> {
    let mut v = Vec::new();
    for a in xs {
        for b in ys {
            if world[a.id() as usize].overlaps(&world[b.id() as usize]) {
                v.push(Pair::new(a.id(), b.id()));
            }
        }
    }
    v
}

/// The box tests a sweep along x makes: one per pair of boxes that overlap along x, whatever the other axes say
/// (the later box of the two starts within the earlier's extent).
fn overlapping_along_x(world: &[Aabb], xs: &[SweepBox], ys: Option<&[SweepBox]>) -> u64 {
    let meet = |a: &SweepBox, b: &SweepBox| world[a.id() as usize].overlaps_on_axis(&world[b.id() as usize], 0);
    let mut n = 0;
    for (i, a) in xs.iter().enumerate() {
        let others = ys.unwrap_or(&xs[i + 1..]);
        n += others.iter().filter(|b| meet(a, b)).count() as u64;
    }
    n
}

/// A sparse sweep may leave its sink all but full (it flushes only a full buffer): then `all_pairs` and
/// `all_pairs_two` must make room before their branch-free loops, whose candidates would otherwise run past the
/// buffer's end, and their branching forms must flush the buffer the moment it fills. Pinned with the sink left
/// holding 1, 903 and 1023 pairs, before groups whose boxes all overlap (32 boxes: 496 pairs; 32 × 32: 1024; 40 boxes,
/// past [`ALL_PAIRS_MAX`]: 780).
#[test]
fn all_pairs_make_room_in_a_sink_a_sparse_sweep_left_nearly_full() {
    let buffer = &mut SinkBuffer::default();
    for (left, size, two) in [(903, 32, false), (903, 32, true), (1, 32, true), (1023, 40, false), (1023, 40, true)] {
        let mut world = Vec::new();
        let before = fan(&mut world, left, 0.0);
        let group = clump(&mut world, 2 * size, -10.0);
        let (xs, ys): (Vec<SweepBox>, Vec<SweepBox>) = group.iter().partition(|r| r.id() % 2 == 0);
        let mut want = pairs_among(&world, &before);
        want.extend(if two { pairs_across(&world, &xs, &ys) } else { pairs_among(&world, &group[..size]) });
        let mut out = Vec::new();
        {
            let mut sink = PairSink::new(&mut out, buffer);
            sweep_sparse(&before, 0..before.len(), |_, _| true, &mut sink);
            assert_eq!(sink.n, left, "the sparse sweep leaves its pairs in the sink");
            if two {
                assert_eq!(all_pairs_two(&xs, &ys, |_, _| true, &mut sink), (size * size) as u64);
            } else {
                all_pairs(&group[..size], |_, _| true, &mut sink);
            }
        }
        assert_eq!(sorted(out), sorted(want), "{left} pairs left, then {size} boxes, two lists: {two}");
    }
}

/// Whichever loop they take, `all_pairs` and `all_pairs_two` return with the sink below half full, as the
/// branch-free sweeps that may follow on the same sink need: a group of 512 boxes that all overlap, swept next,
/// finds all its 130 816 pairs. Pinned after calls that leave 601 to 885 pairs in the sink before their last check.
#[test]
fn all_pairs_leave_the_sink_below_half_full_for_the_sweeps() {
    let buffer = &mut SinkBuffer::default();
    // (boxes in `xs`, boxes in `ys`, or 0 for one list)
    for (nx, ny) in [(32, 0), (40, 0), (20, 30), (40, 18)] {
        let mut world = Vec::new();
        let before = fan(&mut world, 105, 0.0);
        let group = clump(&mut world, nx + ny, -10.0);
        let (xs, ys) = group.split_at(nx);
        let next = clump(&mut world, 512, -20.0);
        let mut want = pairs_among(&world, &before);
        want.extend(if ny == 0 { pairs_among(&world, xs) } else { pairs_across(&world, xs, ys) });
        want.extend(pairs_among(&world, &next));
        let mut out = Vec::new();
        {
            let mut sink = PairSink::new(&mut out, buffer);
            sweep_sparse(&before, 0..before.len(), |_, _| true, &mut sink);
            if ny == 0 {
                all_pairs(xs, |_, _| true, &mut sink);
            } else {
                all_pairs_two(xs, ys, |_, _| true, &mut sink);
            }
            assert!(sink.n < SINK / 2, "{} pairs left in the sink after {nx} and {ny} boxes", sink.n);
            sweep(&next, &mut sink);
        }
        assert_eq!(sorted(out), sorted(want), "{nx} and {ny} boxes");
    }
}

/// `all_pairs_two` takes its branching loop when either list is longer than [`ALL_PAIRS_MAX`]: 40 boxes against
/// 30, all overlapping, are 1200 pairs, more than the sink's buffer holds.
#[test]
fn all_pairs_two_with_either_list_over_the_limit_finds_every_pair() {
    let buffer = &mut SinkBuffer::default();
    for (nx, ny) in [(40, 30), (30, 40)] {
        let mut world = Vec::new();
        let group = clump(&mut world, nx + ny, 0.0);
        let (xs, ys) = group.split_at(nx);
        let mut out = Vec::new();
        let tests = all_pairs_two(xs, ys, |_, _| true, &mut PairSink::new(&mut out, buffer));
        assert_eq!(tests, (nx * ny) as u64);
        assert_eq!(sorted(out), sorted(pairs_across(&world, xs, ys)), "{nx} boxes against {ny}");
    }
}

/// A sweep whose scans overflow the sink's buffer: box 0 reaches along x over boxes 1..=500 and overlaps them
/// (500 pairs stay in the buffer), then box 1 overlaps all 1098 boxes after it, more than the 524 places left.
/// Each such scan fills what room is left, flushes, and goes on past it; every pair is found, every test counted
/// (one per pair of boxes that overlap along x), and the sink is left below half full for the next sweep. The same
/// of the two first boxes swept against the rest as two lists, and of the sparse sweep's count.
#[test]
fn scans_past_a_full_buffer_find_every_pair_and_count_every_test() {
    let n = 1100;
    let mut world: Vec<Aabb> = (0..n)
        .map(|i| {
            let (x, y) = (i as f32, if i <= 500 { 0.0 } else { 5.0 });
            match i {
                0 => Aabb::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(500.0, 1.0, 1.0)),
                _ => Aabb::new(Vec3::new(x, y, 0.0), Vec3::new(2000.0, 10.0, 1.0)),
            }
        })
        .collect();
    let all = records::<0>(&world);
    let next = clump(&mut world, 512, -10.0);
    let buffer = &mut SinkBuffer::default();

    let mut want = pairs_among(&world, &all);
    assert_eq!(want.len(), 500 + 1099 * 1098 / 2);
    let tests_want = overlapping_along_x(&world, &all, None);
    want.extend(pairs_among(&world, &next));
    let mut out = Vec::new();
    {
        let mut sink = PairSink::new(&mut out, buffer);
        assert_eq!(sweep(&all, &mut sink), tests_want);
        assert!(sink.n < SINK / 2, "{} pairs left in the sink", sink.n);
        sweep(&next, &mut sink);
    }
    assert_eq!(sorted(out), sorted(want), "one list");

    let (xs, ys) = all.split_at(2);
    let mut out = Vec::new();
    let tests = sweep_two(xs, ys, &mut PairSink::new(&mut out, buffer));
    assert_eq!(tests, overlapping_along_x(&world, xs, Some(ys)));
    assert_eq!(sorted(out), sorted(pairs_across(&world, xs, ys)), "two lists");

    let mut out = Vec::new();
    let tests = sweep_sparse(&all, 0..n, |_, _| true, &mut PairSink::new(&mut out, buffer));
    assert_eq!(tests, tests_want, "the sparse sweep");
    assert_eq!(out.len(), 500 + 1099 * 1098 / 2);
}

/// A sweep starting on a sink that small groups left holding pairs (300 here, below half full) flushes it after
/// the scan that takes it past half full: the next scan, which checks no room in a list of at most `SINK / 2`
/// boxes, would otherwise run past the buffer's end. 512 boxes that all overlap: 130 816 pairs.
#[test]
fn a_sweep_flushes_the_sink_once_half_full() {
    let mut world = Vec::new();
    let group = clump(&mut world, 25, 0.0);
    let crowd = clump(&mut world, 512, -10.0);
    let mut want = pairs_among(&world, &group);
    assert_eq!(want.len(), 300);
    want.extend(pairs_among(&world, &crowd));
    let (mut out, buffer) = (Vec::new(), &mut SinkBuffer::default());
    {
        let mut sink = PairSink::new(&mut out, buffer);
        all_pairs(&group, |_, _| true, &mut sink);
        assert_eq!(sweep(&crowd, &mut sink), 512 * 511 / 2);
    }
    assert_eq!(sorted(out), sorted(want));
}

/// A sparse sweep may leave its sink all but full (1023 pairs here); `sweep` and `sweep_two` on the same sink then
/// make room before their branch-free scans, which assume a sink below half full: a group of 512 boxes that all
/// overlap (130 816 pairs), or two lists of 256 (65 536), swept next, finds every pair instead of writing past the
/// buffer's end.
#[test]
fn sweeps_after_a_sparse_sweep_that_left_the_sink_nearly_full_find_every_pair() {
    let buffer = &mut SinkBuffer::default();
    for two in [false, true] {
        let mut world = Vec::new();
        let before = fan(&mut world, 1023, 0.0);
        let mut group = clump(&mut world, 512, -10.0);
        sort_by_lo(&mut group);
        let (xs, ys): (Vec<SweepBox>, Vec<SweepBox>) = group.iter().partition(|r| r.id() % 2 == 0);
        let mut want = pairs_among(&world, &before);
        want.extend(if two { pairs_across(&world, &xs, &ys) } else { pairs_among(&world, &group) });
        let mut out = Vec::new();
        {
            let mut sink = PairSink::new(&mut out, buffer);
            sweep_sparse(&before, 0..before.len(), |_, _| true, &mut sink);
            assert_eq!(sink.n, 1023, "the sparse sweep leaves its pairs in the sink");
            if two {
                sweep_two(&xs, &ys, &mut sink);
            } else {
                sweep(&group, &mut sink);
            }
        }
        assert_eq!(sorted(out), sorted(want), "two lists: {two}");
    }
}
