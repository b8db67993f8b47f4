use super::*;
use collide_math::Vec3;

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

/// A speed hint is kept only when finite and not negative (0 included): a negative, infinite or NaN hint is
/// ignored, as the doc promises.
#[test]
fn the_speed_hint_keeps_finite_non_negative_values_only() {
    let aabbs = [Aabb::default()];
    let frame = Frame::new(&aabbs);
    assert_eq!(frame.speed, None);
    assert_eq!(frame.with_speed(0.5).speed, Some(0.5));
    assert_eq!(frame.with_speed(0.0).speed, Some(0.0));
    assert_eq!(frame.with_speed(-0.5).speed, None);
    assert_eq!(frame.with_speed(f32::INFINITY).speed, None);
    assert_eq!(frame.with_speed(f32::NAN).speed, None);
}

/// `len` and `is_empty` count the boxes.
#[test]
fn a_frame_counts_its_boxes() {
    let aabbs = [Aabb::default(); 3];
    assert_eq!(Frame::new(&aabbs).len(), 3);
    assert!(!Frame::new(&aabbs).is_empty());
    assert_eq!(Frame::new(&[]).len(), 0);
    assert!(Frame::new(&[]).is_empty());
}

/// `reject_invalid` applies the frame's policy to the named body: it returns under `OverlapNothing`, and under
/// `Panic` panics naming that body.
#[test]
#[should_panic(expected = "body 1: ")]
fn reject_invalid_panics_naming_the_body_under_the_panic_policy() {
    let aabbs = [Aabb::default(), Aabb::EMPTY];
    Frame::new(&aabbs).with_invalid_boxes(InvalidBoxes::OverlapNothing).reject_invalid(1);
    Frame::new(&aabbs).with_invalid_boxes(InvalidBoxes::Panic).reject_invalid(1);
}

/// `same_bits` is true for a box and its copy, false when any one of the six coordinates differs, even only by
/// the sign of a zero (which `==` would call equal).
#[test]
fn same_bits_tells_apart_a_change_of_any_one_coordinate() {
    let b = Aabb::new(Vec3::new(0.0, 1.0, 2.0), Vec3::new(3.0, 4.0, 5.0));
    let copy = b;
    assert!(same_bits(&b, &copy));
    for k in 0..6 {
        let mut moved = b;
        if k < 3 {
            moved.min[k] += 0.25;
        } else {
            moved.max[k - 3] += 0.25;
        }
        assert!(!same_bits(&b, &moved), "coordinate {k} changed");
        assert!(!same_bits(&moved, &b), "coordinate {k} changed");
    }
    let minus_zero = Aabb::new(Vec3::new(-0.0, 1.0, 2.0), b.max);
    assert!(minus_zero == b && !same_bits(&minus_zero, &b));
}
