use super::*;
use collide_math::Vec3;

#[test]
fn fits_needs_an_ordered_box_inside_the_fat_one_and_area_is_half_the_surface() {
    let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
    let fat = Aabb::new(Vec3::splat(-1.0), Vec3::splat(2.0));
    assert!(fits(&unit, &fat) && fits(&fat, &fat));
    assert!(!fits(&Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.5, 1.0, 1.0)), &fat), "inverted inside");
    assert!(!fits(&Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE), &fat));
    assert!(!fits(&unit, &Aabb::EMPTY), "the empty fat box holds nothing");
    assert!(!fits(&Aabb::new(Vec3::ZERO, Vec3::new(1.0, 2.5, 1.0)), &fat));
    assert_eq!(area(&unit), 3.0);
    assert_eq!(area(&Aabb::new(Vec3::ZERO, Vec3::new(2.0, 3.0, 0.0))), 6.0);
}
