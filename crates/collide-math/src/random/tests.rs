use super::*;

#[test]
fn same_seed_same_sequence_and_ranges_hold() {
    let (mut a, mut b) = (Rng::new(7), Rng::new(7));
    for _ in 0..1000 {
        assert_eq!(a.next_u64(), b.next_u64());
    }
    let mut r = Rng::new(1);
    let mut sum = 0.0;
    for _ in 0..10_000 {
        let x = r.next_f32();
        assert!((0.0..1.0).contains(&x));
        sum += x;
        assert!(r.below(10) < 10);
        let u = r.unit_vector();
        assert!((u.length() - 1.0).abs() < 1e-4);
    }
    assert!((sum / 10_000.0 - 0.5).abs() < 0.02, "mean {sum}");
    assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
}
