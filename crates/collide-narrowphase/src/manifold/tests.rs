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
