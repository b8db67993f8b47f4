use super::*;
use collide_math::Vec3;

#[test]
fn invalid_boxes_overlap_nothing() {
    let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
    // Inverted on x: `overlaps` alone says yes to a box spanning both its corners.
    let inverted = Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 1.0));
    assert!(inverted.overlaps(&unit));
    let everything = Aabb::new(Vec3::splat(f32::NEG_INFINITY), Vec3::splat(f32::INFINITY));
    let nan = Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE);
    let huge = Aabb::new(Vec3::splat(-1e30), Vec3::splat(1e30));
    let mut out = PairList::new();
    reference_pairs(&[unit, inverted, everything, nan, unit, huge], &mut out);
    let pairs: Vec<(u32, u32)> = out.iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(pairs, [(0, 4), (0, 5), (4, 5)], "only the valid boxes, the huge finite one included");
}
