use super::*;
use collide_math::Vec3;

#[test]
fn the_fast_test_is_aabb_is_valid() {
    let v = [0.0, -0.0, 1.0, -1.0, 1e30, -1e30, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];
    // Every corner pair built from the interesting values on one axis, the other axes fine.
    for &lo in &v {
        for &hi in &v {
            for axis in 0..3 {
                let (mut min, mut max) = (Vec3::ZERO, Vec3::ONE);
                min[axis] = lo;
                max[axis] = hi;
                let b = Aabb::new(min, max);
                assert_eq!(is_valid_box(&b), b.is_valid(), "{b:?}");
            }
        }
    }
    assert!(!is_valid_box(&Aabb::EMPTY));
    assert_eq!(first_invalid(&[Aabb::default(), Aabb::EMPTY, Aabb::EMPTY]), Some(1));
    assert_eq!(first_invalid(&[Aabb::default()]), None);
}

#[test]
fn the_message_names_the_body_and_the_box() {
    let b = Aabb::new(Vec3::new(0.0, 2.0, 0.0), Vec3::ONE);
    let m = invalid_message(17, &b);
    assert!(m.contains("body 17") && m.contains("min > max on y") && m.contains(&b.min.to_string()), "{m}");
    let m = invalid_message(3, &Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE));
    assert!(m.contains("body 3") && m.contains("finite") && m.contains("NaN"), "{m}");
}

#[test]
fn debug_builds_panic_by_default() {
    assert_eq!(
        InvalidBoxes::default(),
        if cfg!(debug_assertions) { InvalidBoxes::Panic } else { InvalidBoxes::OverlapNothing }
    );
}

#[test]
#[should_panic(expected = "body 7: ")]
fn rejecting_returns_under_overlap_nothing_and_panics_naming_the_body_under_panic() {
    InvalidBoxes::OverlapNothing.reject(7, &Aabb::EMPTY);
    InvalidBoxes::Panic.reject(7, &Aabb::EMPTY);
}

/// Under `OverlapNothing`, rejecting a box returns (the body then overlaps nothing); the panic test above would
/// also pass if it panicked there, so this one checks that it does not.
#[test]
fn rejecting_under_overlap_nothing_returns() {
    InvalidBoxes::OverlapNothing.reject(7, &Aabb::EMPTY);
    InvalidBoxes::OverlapNothing.reject(0, &Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE));
}
