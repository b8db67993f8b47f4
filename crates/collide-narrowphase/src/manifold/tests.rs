use super::*;

#[test]
fn depth_and_contact_come_from_the_deepest_point() {
    let mut m = Manifold::single(Vec3::Y, Vec3::ZERO, 0.1);
    m.points[1] = ContactPoint { point: Vec3::X, depth: 0.3 };
    m.points[2] = ContactPoint { point: Vec3::Z, depth: 0.2 };
    m.points[3] = ContactPoint { point: Vec3::ONE, depth: 9.0 }; // beyond len: ignored
    m.len = 3;
    assert_eq!(m.points().len(), 3);
    assert_eq!(m.depth(), 0.3);
    assert_eq!(m.to_contact(), Contact { normal: Vec3::Y, depth: 0.3, point: Vec3::X });
}

/// Of equally deep points the first is the contact (a face contact's corners are often equally deep: the same
/// corner frame after frame, not whichever the clipping listed last).
#[test]
fn the_first_of_equally_deep_points_is_the_contact() {
    let p = |x: f32, depth: f32| ContactPoint { point: Vec3::new(x, 0.0, 0.0), depth };
    let m = Manifold { normal: Vec3::Y, points: [p(1.0, 0.3), p(2.0, 0.5), p(3.0, 0.5), p(4.0, 0.1)], len: 4 };
    let c = m.to_contact();
    assert_eq!((c.point, c.depth, c.normal), (Vec3::new(2.0, 0.0, 0.0), 0.5, Vec3::Y));
}
