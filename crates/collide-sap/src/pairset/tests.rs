use super::*;
use std::collections::HashSet;

#[test]
fn behaves_like_a_hash_set_under_churn() {
    let mut rng = collide_math::Rng::new(77);
    let mut ours = PairSet::default();
    let mut std_set = HashSet::new();
    for _ in 0..200_000 {
        // Few distinct keys, so runs collide and backward shifts happen often.
        let a = rng.below(60);
        let b = a + 1 + rng.below(40);
        let key = (u64::from(a) << 32) | u64::from(b);
        match rng.below(3) {
            0 | 1 => assert_eq!(ours.insert(key), std_set.insert(key)),
            _ => assert_eq!(ours.remove(key), std_set.remove(&key)),
        }
        assert_eq!(ours.len(), std_set.len());
    }
    let mut got: Vec<u64> = ours.iter().collect();
    got.sort_unstable();
    let mut want: Vec<u64> = std_set.into_iter().collect();
    want.sort_unstable();
    assert_eq!(got, want);
    assert!(want.iter().all(|&k| ours.contains(k)));
    ours.clear();
    assert!(ours.is_empty() && !ours.contains(want[0]));
}
