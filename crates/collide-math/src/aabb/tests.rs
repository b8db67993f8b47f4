use super::*;

fn unit_at(x: f32, y: f32, z: f32) -> Aabb {
    Aabb::new(Vec3::new(x, y, z), Vec3::new(x + 1.0, y + 1.0, z + 1.0))
}

#[test]
fn touching_faces_edges_and_corners_overlap() {
    let a = unit_at(0.0, 0.0, 0.0);
    assert!(a.overlaps(&unit_at(1.0, 0.0, 0.0)), "face");
    assert!(a.overlaps(&unit_at(1.0, 1.0, 0.0)), "edge");
    assert!(a.overlaps(&unit_at(1.0, 1.0, 1.0)), "corner");
    assert!(!a.overlaps(&unit_at(1.0 + 1e-6, 0.0, 0.0)), "a hair apart");
}

#[test]
fn overlap_is_symmetric_and_reflexive_even_for_points() {
    let p = Aabb::new(Vec3::ONE, Vec3::ONE);
    assert!(p.overlaps(&p));
    let a = unit_at(0.5, 0.5, 0.5);
    assert_eq!(a.overlaps(&p), p.overlaps(&a));
    assert!(a.overlaps(&p));
    assert!(!unit_at(2.0, 0.0, 0.0).overlaps(&p));
}

#[test]
fn separated_on_one_axis_is_enough() {
    let a = unit_at(0.0, 0.0, 0.0);
    for axis in 0..3 {
        let mut offset = Vec3::ZERO;
        offset[axis] = 2.0;
        let b = Aabb::new(a.min + offset, a.max + offset);
        assert!(!a.overlaps(&b));
        assert!(!a.overlaps_on_axis(&b, axis));
        assert!(a.overlaps_on_axis(&b, (axis + 1) % 3));
    }
}

#[test]
fn validity_checks_name_the_problem() {
    assert!(Aabb::try_new(Vec3::ZERO, Vec3::ONE).is_ok());
    assert!(Aabb::try_new(Vec3::ZERO, Vec3::ZERO).is_ok(), "a point is a valid box");
    let err = Aabb::try_new(Vec3::new(0.0, 2.0, 0.0), Vec3::ONE).unwrap_err();
    assert!(matches!(err, AabbError::Inverted { axis: 1, .. }));
    assert!(err.to_string().contains("on y"));
    let err = Aabb::try_new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE).unwrap_err();
    assert!(matches!(err, AabbError::NotFinite { .. }));
    assert!(!Aabb::EMPTY.is_valid());
}

#[test]
fn union_intersection_and_measures() {
    let a = unit_at(0.0, 0.0, 0.0);
    let b = unit_at(0.5, 0.0, 0.0);
    let u = a.union(&b);
    assert_eq!(u, Aabb::new(Vec3::ZERO, Vec3::new(1.5, 1.0, 1.0)));
    assert_eq!(a.intersection(&b).unwrap().volume(), 0.5);
    assert!(a.intersection(&unit_at(3.0, 0.0, 0.0)).is_none());
    assert_eq!(a.surface_area(), 6.0);
    assert_eq!(u.longest_axis(), 0);
    assert_eq!(Aabb::from_points([Vec3::ONE, Vec3::ZERO, Vec3::splat(0.5)]), a);
    assert!(u.contains(&a) && !a.contains(&u));
    assert!(a.contains_point(Vec3::ONE) && !a.contains_point(Vec3::splat(1.01)));
    assert_eq!(a.expanded(1.0).extents(), Vec3::splat(3.0));
}
