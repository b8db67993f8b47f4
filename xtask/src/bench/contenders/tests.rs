use super::super::measure;
use super::*;
use collide_math::{Rng, Vec3};

/// Boxes with touching faces and shared corners among random ones: the closed-interval cases.
fn scene() -> Vec<Aabb> {
    let mut rng = Rng::new(7);
    let mut boxes: Vec<Aabb> =
        (0..300).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::splat(-5.0), Vec3::splat(5.0)), 0.3)).collect();
    boxes.push(Aabb::new(Vec3::ZERO, Vec3::ONE));
    boxes.push(Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0))); // shares a face
    boxes.push(Aabb::new(Vec3::ONE, Vec3::splat(2.0))); // shares a corner
    boxes.push(Aabb::new(Vec3::splat(0.5), Vec3::splat(0.5))); // a point inside
    boxes
}

#[test]
fn peers_agree_with_brute_force_including_touching_boxes() {
    let boxes = scene();
    let mut truth = PairList::new();
    collide_broadphase::reference_pairs(&boxes, &mut truth);
    assert!(truth.contains(Pair::new(300, 301)) && truth.contains(Pair::new(300, 302)));
    let mut all = peers();
    assert_eq!(all.iter().map(|p| p.name()).collect::<Vec<_>>(), PEERS);
    for peer in &mut all {
        let mut out = Vec::new();
        // Twice: the refit peer takes its update path on the second call.
        for step in 0..2 {
            peer.find(&boxes, step, &mut out);
            let d = measure::diff(truth.as_slice(), &mut out);
            assert_eq!(d.into_result(), Ok(()), "{} step {step}", peer.name());
        }
    }
}
