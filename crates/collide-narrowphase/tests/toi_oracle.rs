//! Our box–box time of impact against parry3d's shape casting (`query::cast_shapes`: conservative advancement on
//! GJK distances, an independent method) on 10 000 seeded random swept pairs of turned boxes.
//!
//! - Hit or miss agrees on every pair, except a grazing one: where only one side sees a touch, parry's distance
//!   between the boxes at the closest of the sampled times must be within `GRAZE` of zero.
//! - Where both hit, the times agree within `LENGTH_TOL` of the pair's size, measured along the relative motion
//!   (a time difference times the relative displacement's length is a distance the boxes travelled).
//! - And at our time the boxes touch: parry's distance there is within `TOUCH_TOL` of zero (for `t > 0`), so the
//!   answer is a touch and not only close to parry's.

use collide_math::{Obb, Quat, Rng, Vec3};
use collide_narrowphase::{samples, toi_box_box};
use parry3d::math::{Pose, Rotation, Vector};
use parry3d::query::{self, ShapeCastOptions};
use parry3d::shape::Cuboid;

/// Swept pairs.
const PAIRS: usize = 10_000;
/// Times agree within this length (relative to the larger box's size) along the relative motion. parry stops its
/// advancement a little short of the touch: the worst difference on these pairs was 3.0 × 10⁻⁴ × size.
const LENGTH_TOL: f32 = 5e-4;
/// At our time of impact the boxes are within this distance (relative to the size) of touching, by parry's
/// distance: at most 8.3 × 10⁻⁵ × size on these pairs, the rounding of f32 coordinates up to 20 for boxes down
/// to 0.1.
const TOUCH_TOL: f32 = 2e-4;
/// A hit only one side sees must be this close to touching (relative to the size).
const GRAZE: f32 = 2e-4;

fn v(p: Vec3) -> Vector {
    Vector::new(p.x, p.y, p.z)
}

fn pose(center: Vec3, q: Quat) -> Pose {
    Pose::from_parts(v(center), Rotation::from_xyzw(q.x, q.y, q.z, q.w))
}

fn cuboid(o: &Obb) -> Cuboid {
    Cuboid::new(v(o.half_extents))
}

/// parry's distance between the boxes moved by `t` of their displacements (0 when overlapping).
fn distance(a: &Obb, da: Vec3, b: &Obb, db: Vec3, t: f32) -> f32 {
    let (pa, pb) = (pose(a.center + da * t, a.rotation), pose(b.center + db * t, b.rotation));
    query::distance(&pa, &cuboid(a), &pb, &cuboid(b)).expect("parry supports cuboids").distance
}

#[test]
fn box_times_of_impact_agree_with_parry_shape_casting() {
    let mut rng = Rng::new(0x7015);
    let (mut hits, mut grazes, mut worst, mut worst_gap) = (0, 0, 0.0_f32, 0.0_f32);
    let options = ShapeCastOptions { max_time_of_impact: 1.0, ..ShapeCastOptions::default() };
    for k in 0..PAIRS {
        let (a, mut b) = samples::box_pair(&mut rng);
        // Move b away so that most pairs start apart, then aim a at it half the time (over- or undershooting).
        let away = rng.unit_vector() * rng.range_f32(0.0, 6.0);
        b.center += away;
        let da = if rng.chance(0.5) {
            (b.center - a.center) * rng.range_f32(0.0, 2.5) + rng.unit_vector() * rng.range_f32(0.0, 1.0)
        } else {
            rng.unit_vector() * rng.range_f32(0.0, 15.0)
        };
        let db = if rng.chance(0.5) { rng.unit_vector() * rng.range_f32(0.0, 5.0) } else { Vec3::ZERO };
        let size = a.half_extents.max_element().max(b.half_extents.max_element());
        let ours = toi_box_box(&a, da, &b, db);
        let theirs = query::cast_shapes(
            &pose(a.center, a.rotation),
            v(da),
            &cuboid(&a),
            &pose(b.center, b.rotation),
            v(db),
            &cuboid(&b),
            options,
        )
        .expect("parry supports cuboids")
        .map(|hit| hit.time_of_impact);
        let travel = (da - db).length().max(1e-6);
        match (ours, theirs) {
            (Some(t), Some(s)) => {
                hits += 1;
                let off = (t - s).abs() * travel;
                worst = worst.max(off / size);
                assert!(off <= LENGTH_TOL * size, "pair {k}: ours {t}, parry {s} ({off} apart along the motion)");
                if t > 0.0 {
                    let gap = distance(&a, da, &b, db, t);
                    worst_gap = worst_gap.max(gap / size);
                    assert!(gap <= TOUCH_TOL * size, "pair {k}: at our {t} the boxes are {gap} apart");
                }
            }
            (None, None) => {}
            (one, other) => {
                // Grazing: the closest approach over the step (sampled finely) is a touch within the band.
                let closest = (0..=2000).map(|i| distance(&a, da, &b, db, i as f32 / 2000.0)).fold(f32::MAX, f32::min);
                let step = travel / 2000.0;
                assert!(
                    closest <= GRAZE * size + step,
                    "pair {k}: ours {one:?}, parry {other:?}, closest approach {closest}"
                );
                grazes += 1;
            }
        }
    }
    eprintln!(
        "{hits} hits, {grazes} grazing disagreements, worst time difference {worst} × size along the motion, \
         worst gap at our time {worst_gap} × size"
    );
    assert!(hits > PAIRS / 5 && hits < PAIRS * 4 / 5, "a mix of hits and misses: {hits}");
    assert!(grazes < PAIRS / 100, "grazing disagreements are rare: {grazes}");
}
