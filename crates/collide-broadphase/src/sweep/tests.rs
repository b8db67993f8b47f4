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
