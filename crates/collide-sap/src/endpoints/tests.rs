use super::*;

#[test]
fn begin_sorts_before_end_on_equal_values() {
    let b = make(1.0, false, 7);
    let e = make(1.0, true, 3);
    assert!(order(b) < order(e));
    assert!(order(make(-0.0, true, 1)) > order(make(0.0, false, 2)), "touching at zero must overlap");
    assert_eq!(body(relabel(e, 99)), 99);
    assert!(is_end(relabel(e, 99)));
}

#[test]
fn merge_keeps_order() {
    let mut a: Vec<u64> = [0.0, 2.0, 4.0].iter().map(|&v| make(v, false, 0)).collect();
    let b: Vec<u64> = [1.0, 2.0, 5.0].iter().map(|&v| make(v, true, 1)).collect();
    merge_into(&mut a, &b);
    assert_eq!(a.len(), 6);
    assert_eq!(first_unsorted(&a), None);
}
