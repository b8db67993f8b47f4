use super::*;
use collide_math::Rng;

/// Against a plain list of flags: the marked bodies are exactly the pairs' bodies, each range gives its own in
/// ascending order with consecutive ranks, and the set is reused from one step to the next, growing and
/// shrinking.
#[test]
fn the_marks_are_exactly_the_pairs_bodies_ranked_in_body_order() {
    let mut set = ContactBodies::default();
    let mut rng = Rng::new(3);
    for n in [1000, 130, 3000, 0] {
        let pairs: Vec<Pair> = (0..n / 3)
            .map(|_| (rng.below(n as u32), rng.below(n as u32)))
            .filter(|(i, j)| i != j)
            .map(|(i, j)| Pair::new(i, j))
            .collect();
        set.mark(n, pairs.iter().copied());
        let mut touched = vec![false; n];
        for p in &pairs {
            (touched[p.a as usize], touched[p.b as usize]) = (true, true);
        }
        let want: Vec<usize> = (0..n).filter(|&i| touched[i]).collect();
        assert_eq!((set.len(), set.is_empty()), (want.len(), want.is_empty()), "{n} bodies");
        assert_eq!(set.in_range(0..n).collect::<Vec<_>>(), want, "{n} bodies");
        for start in (0..n).step_by(128) {
            let range = start..(start + 128).min(n);
            let got: Vec<(usize, u32)> = set.ranked_in(range.clone()).collect();
            let first = want.iter().take_while(|&&i| i < start).count() as u32;
            let expected: Vec<(usize, u32)> = want.iter().copied().filter(|i| range.contains(i)).zip(first..).collect();
            assert_eq!(got, expected, "{n} bodies, range {range:?}");
            assert!(got.iter().all(|&(i, r)| set.rank(i as u32) == r));
        }
    }
}
