use super::*;

#[test]
fn every_candidate_a_selector_can_take_has_a_colour_of_its_own() {
    for a in 0..MAX_CANDIDATES {
        for b in 0..a {
            assert_ne!(color(a), color(b), "candidates {a} and {b} share a colour");
        }
    }
    assert!(collide_algorithms::ALGORITHMS.len() <= MAX_CANDIDATES, "every registered algorithm fits");
}
