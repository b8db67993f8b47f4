use super::*;

#[test]
fn ray_hits_box_and_sphere_at_the_right_distance() {
    let r = Ray::new(Vec3::new(-5.0, 0.5, 0.5), Vec3::X);
    let b = Aabb::new(Vec3::ZERO, Vec3::ONE);
    assert_eq!(r.hit_aabb(&b, 100.0), Some(5.0));
    assert_eq!(r.hit_aabb(&b, 4.0), None);
    assert_eq!(Ray::new(Vec3::splat(0.5), Vec3::Y).hit_aabb(&b, 1.0), Some(0.0));
    let s = Sphere::new(Vec3::new(0.0, 0.5, 0.5), 1.0);
    assert_eq!(r.hit_sphere(&s), Some(4.0));
    assert_eq!(Ray::new(Vec3::new(5.0, 0.5, 0.5), Vec3::X).hit_sphere(&s), None);
    assert_eq!(r.at(2.0), Vec3::new(-3.0, 0.5, 0.5));
}
