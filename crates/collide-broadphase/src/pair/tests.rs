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

/// A pair prints as `(a, b)`, the form the logs and the conformance kit's messages use.
#[test]
fn a_pair_prints_as_a_tuple() {
    assert_eq!(Pair::new(12, 3).to_string(), "(3, 12)");
}

/// The list's building methods: `with_capacity` reserves, `push_pair` and `extend_from_slice` append in order,
/// `reserve` makes room, `clear` empties and keeps the room, and `is_empty` follows.
#[test]
fn a_pair_list_appends_reserves_and_clears() {
    let mut list = PairList::with_capacity(10);
    assert!(list.as_mut_vec().capacity() >= 10);
    assert!(list.is_empty());
    list.push_pair(Pair { a: 1, b: 4 });
    list.extend_from_slice(&[Pair { a: 0, b: 2 }, Pair { a: 5, b: 6 }]);
    assert_eq!(list.as_slice(), [Pair { a: 1, b: 4 }, Pair { a: 0, b: 2 }, Pair { a: 5, b: 6 }]);
    assert!(!list.is_empty());
    list.reserve(100);
    assert!(list.as_mut_vec().capacity() >= 103);
    let room = list.as_mut_vec().capacity();
    list.clear();
    assert!(list.is_empty());
    assert_eq!(list.len(), 0);
    assert_eq!(list.as_mut_vec().capacity(), room);
}

/// `as_mut_vec` is the list's own vector: what is written through it is in the list.
#[test]
fn as_mut_vec_writes_into_the_list() {
    let mut list = PairList::new();
    list.push(2, 1);
    list.as_mut_vec().push(Pair { a: 3, b: 8 });
    list.as_mut_vec().retain(|p| p.a != 1);
    assert_eq!(list.as_slice(), [Pair { a: 3, b: 8 }]);
}

/// Iterating `&PairList`, collecting into one, and `contains` on a pair that is not there.
#[test]
fn a_pair_list_iterates_collects_and_finds_only_what_it_holds() {
    let list: PairList = [Pair::new(0, 1), Pair::new(4, 2)].into_iter().collect();
    assert_eq!(list.len(), 2);
    let mut seen = Vec::new();
    for p in &list {
        seen.push((p.a, p.b));
    }
    assert_eq!(seen, [(0, 1), (2, 4)]);
    assert!(list.contains(Pair::new(2, 4)));
    assert!(!list.contains(Pair::new(0, 2)));
    assert!(!PairList::new().contains(Pair::new(0, 1)));
}
