use super::*;

#[test]
fn pairs_are_ordered_and_sort_canonically() {
    assert_eq!(Pair::new(5, 2), Pair { a: 2, b: 5 });
    let mut list = PairList::new();
    list.push(9, 1);
    list.push(3, 4);
    list.push(1, 2);
    list.push(4, 3);
    assert_eq!(list.sort_dedup(), 1);
    let got: Vec<_> = list.iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(got, [(1, 2), (1, 9), (3, 4)]);
    assert_eq!(Pair::from_key(Pair::new(7, 70).key()), Pair::new(7, 70));
    assert!(list.contains(Pair::new(2, 1)));
}
