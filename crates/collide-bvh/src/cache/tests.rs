use super::*;

/// Removing ascending indices by moving runs keeps the same entries, in the same order, as a `retain` that
/// tests every index: none dropped, the first, the last, adjacent ones, all of them.
#[test]
fn removing_sorted_indices_is_a_retain() {
    let all: Vec<Pair> = (0..20u32).map(|i| Pair::new(i, i + 100)).collect();
    for dropped in [vec![], vec![0], vec![19], vec![3, 4, 5, 11], vec![0, 2, 19], (0..20).collect()] {
        let mut v = all.clone();
        let moved = remove_sorted(&mut v, dropped.iter().copied());
        let want: Vec<Pair> = all.iter().enumerate().filter(|(k, _)| !dropped.contains(k)).map(|(_, p)| *p).collect();
        assert_eq!(v, want, "{dropped:?}");
        let first = dropped.first().copied().unwrap_or(all.len());
        assert_eq!(moved, all.len() - first - dropped.len().min(all.len() - first), "{dropped:?}");
    }
}
