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

#[test]
fn a_permutation_is_a_resize_that_removes_and_adds_nothing() {
    let map = [2, 0, 3, 1];
    let r = Resize { old_to_new: &map, new_len: 4 };
    assert!(r.check().is_ok() && r.is_permutation());
    assert!(r.added().is_empty() && r.removed_count() == 0);
    // Removing one body and adding one keeps the count, but is not a permutation.
    assert!(!Resize { old_to_new: &[2, Resize::REMOVED, 0, 1], new_len: 4 }.is_permutation());
    // Growing or shrinking is not either.
    assert!(!Resize { old_to_new: &[0, 1, 2, 3], new_len: 5 }.is_permutation());
    assert!(!Resize { old_to_new: &[0, 1, 2], new_len: 2 }.is_permutation());
}

#[test]
fn permute_moves_each_value_to_its_new_index_through_the_kept_scratch() {
    let map = [2, 0, 3, 1];
    let r = Resize { old_to_new: &map, new_len: 4 };
    let (mut values, mut scratch) = (vec!['a', 'b', 'c', 'd'], Vec::with_capacity(4));
    r.permute(&mut values, &mut scratch);
    // Old body 0 ('a') is new body 2, old 1 ('b') new 0, old 2 ('c') new 3, old 3 ('d') new 1.
    assert_eq!(values, ['b', 'd', 'a', 'c']);
    // Again, with both buffers warm: no growth.
    let capacity = (values.capacity(), scratch.capacity());
    r.permute(&mut values, &mut scratch);
    assert_eq!(values, ['d', 'c', 'b', 'a']);
    assert_eq!((values.capacity(), scratch.capacity()), capacity);
}

#[test]
#[should_panic(expected = "permute needs a permutation")]
fn permute_refuses_a_resize_that_is_not_a_permutation() {
    let r = Resize { old_to_new: &[0, Resize::REMOVED], new_len: 2 };
    r.permute(&mut vec![1, 2], &mut Vec::new());
}
