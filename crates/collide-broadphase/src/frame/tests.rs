use super::*;

#[test]
fn resize_reports_added_and_removed() {
    // 4 bodies; body 1 removed, body 3 moved into its slot, two bodies appended.
    let map = [0, Resize::REMOVED, 2, 1];
    let r = Resize { old_to_new: &map, new_len: 5 };
    assert!(r.check().is_ok());
    assert_eq!(r.added(), vec![3, 4]);
    assert_eq!(r.removed_count(), 1);
    let bad = Resize { old_to_new: &[0, 0], new_len: 2 };
    assert!(bad.check().is_err());
}
