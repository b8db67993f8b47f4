use super::*;

#[test]
fn a_node_is_one_cache_line() {
    assert_eq!(size_of::<Inner>(), 64);
    assert_eq!(align_of::<Inner>(), 64);
}
