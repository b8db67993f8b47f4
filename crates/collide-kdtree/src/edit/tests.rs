use super::*;

#[test]
fn balance_is_the_ratio_of_the_sides() {
    assert!(!unbalanced(10, 20, 2.0));
    assert!(!unbalanced(20, 10, 2.0));
    assert!(unbalanced(10, 21, 2.0));
    assert!(unbalanced(0, 1, 2.0));
    assert!(!unbalanced(0, 0, 2.0), "nothing on either side is no imbalance");
    assert!(!unbalanced(10, 29, 3.0));
}
