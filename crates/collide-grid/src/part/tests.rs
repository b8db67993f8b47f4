use super::*;
use collide_math::Vec3;

/// Body `id`, whose box starts at `x`, in `bucket`.
fn entry(id: u32, x: f32, bucket: u32) -> Entry {
    let aabb = collide_broadphase::Aabb::new(Vec3::new(x, 0.0, 0.0), Vec3::new(x + 1.0, 1.0, 1.0));
    Entry { record: SweepBox::on::<0>(&aabb, id), bucket }
}

#[test]
fn entries_are_counted_into_buckets_and_sorted_by_start() {
    let a = [entry(0, 5.0, 2), entry(1, 1.0, 0), entry(2, 3.0, 2)];
    let b = [entry(3, 4.0, 2), entry(4, 3.0, 2), entry(5, 0.0, 3)];
    let mut part = Part::default();
    let bins = XBins::new(0.0, 10.0);
    part.build(4, &bins, [&a[..], &b[..]].into_iter());
    assert_eq!(part.offsets, [0, 1, 1, 5, 6]);
    let ids = |part: &Part, b: usize| part.bucket(b).iter().map(SweepBox::id).collect::<Vec<_>>();
    // In body order (chunk by chunk), with their extents beside them.
    assert_eq!(
        (ids(&part, 0), ids(&part, 1), ids(&part, 2), ids(&part, 3)),
        (vec![1], vec![], vec![0, 2, 3, 4], vec![5])
    );
    assert_eq!(&part.lo[..7], [1.0, 5.0, 3.0, 4.0, 3.0, 0.0, f32::INFINITY]);
    assert_eq!((part.lo.len(), part.neg_hi.len()), (6 + LANES - 1, 6 + LANES - 1));
    assert_eq!(part.neg_hi[..7], [-2.0, -6.0, -4.0, -5.0, -4.0, -1.0, f32::INFINITY]);
    // A crowd is sorted by start, equal starts in body order, its extents with it.
    let crowd: Vec<Entry> = (0..100).map(|i| entry(i, ((i * 37) % 50) as f32, 0)).collect();
    part.build(1, &bins, [&crowd[..]].into_iter());
    let records = part.bucket(0);
    assert!(records.windows(2).all(|w| (w[0].lo(), w[0].id()) < (w[1].lo(), w[1].id())));
    assert!(records.iter().zip(&part.lo).all(|(r, &lo)| r.lo() == lo));
    assert!(records.iter().zip(&part.keys).all(|(r, k)| [float_key(r.lo()), float_key(r.hi())] == *k));
    assert_eq!(([-1.0, 0.0, 0.04, 5.0, 9.99, 10.0, 1e30].map(|x| bins.bin(x))), [0, 0, 1, 128, 255, 255, 255]);
    part.build(2, &bins, [&[][..]].into_iter());
    assert_eq!((part.offsets.as_slice(), part.records.len(), part.lo.len()), (&[0, 0, 0][..], 0, LANES - 1));
}
