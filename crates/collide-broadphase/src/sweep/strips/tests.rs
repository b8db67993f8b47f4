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
