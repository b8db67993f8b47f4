use super::*;

#[test]
fn peak_follows_growth_survives_frees_and_resets_to_the_live_level() {
    let c = Counter::new();
    c.grew(1000);
    assert_eq!(c.reset_peak(), 1000, "the baseline is the live level");
    c.grew(1 << 20);
    c.shrank(1 << 20);
    assert_eq!(c.current(), 1000);
    assert_eq!(c.peak() - 1000, 1 << 20, "the freed megabyte stays in the peak");
    c.grew(10);
    assert_eq!(c.peak(), 1000 + (1 << 20), "a smaller rise does not move the peak");
    assert_eq!(c.reset_peak(), 1010);
    assert_eq!(c.peak(), 1010);
}

#[test]
fn the_global_allocator_counts_live_bytes() {
    // Other test threads allocate too, so check only what a held megabyte guarantees about the peak.
    let v = vec![1u8; 1 << 20];
    assert!(peak() >= v.len(), "peak {} below a live megabyte", peak());
    drop(v);
}
