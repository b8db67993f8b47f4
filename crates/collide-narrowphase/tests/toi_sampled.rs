//! The time-of-impact functions against a fine sampled search of the same motion (an independent answer: it
//! only evaluates distances, with `Obb::closest_point` for the box).
//!
//! For each random swept pair, with `f(t)` the gap between the shapes at time `t` (negative when overlapping):
//! - if the samples `t = k / N` find a first overlap at `t_s`, ours must answer some `t ≤ t_s`;
//! - if ours answers `t`, the shapes touch there (`|f(t)| ≤ tol`, or `f(0) ≤ tol` for `t = 0`), and no sample
//!   before `t − 1/N` overlaps by more than `tol` — it is the *first* touch, not a later one;
//! - if ours answers `None`, no sample overlaps by more than `tol` (a grazing touch the samples step over is
//!   not a contradiction).

use collide_math::{Obb, Rng, Vec3};
use collide_narrowphase::{samples, toi_sphere_box, toi_sphere_sphere};

/// Samples per step.
const N: usize = 2000;
/// Swept pairs per function.
const PAIRS: usize = 2000;

/// Check one answer against the samples of `gap` (see the module doc); returns whether the pair hits.
fn check(k: usize, ours: Option<f32>, gap: impl Fn(f32) -> f32, tol: f32) -> bool {
    let first = (0..=N).map(|i| i as f32 / N as f32).find(|&t| gap(t) <= 0.0);
    if let Some(ts) = first {
        let t = ours.unwrap_or_else(|| panic!("pair {k}: the samples overlap at {ts}, ours says never"));
        assert!(t <= ts + 1e-6, "pair {k}: ours {t} after the sampled first overlap {ts}");
    }
    match ours {
        Some(t) => {
            assert!((0.0..=1.0).contains(&t), "pair {k}: {t} outside the step");
            let g = gap(t);
            if t == 0.0 {
                assert!(g <= tol, "pair {k}: t = 0 but the gap is {g}");
            } else {
                assert!(g.abs() <= tol, "pair {k}: not touching at {t}: gap {g}");
            }
            let before = (0..=N).map(|i| i as f32 / N as f32).take_while(|&s| s < t - 1.0 / N as f32);
            for s in before {
                assert!(gap(s) > -tol, "pair {k}: overlapping at {s}, before ours {t}");
            }
            true
        }
        None => {
            for i in 0..=N {
                let t = i as f32 / N as f32;
                assert!(gap(t) > -tol, "pair {k}: overlapping at {t}, ours says never");
            }
            false
        }
    }
}

/// A displacement that aims at `target` from `from` half the time (overshooting or falling short), else random.
fn displacement(rng: &mut Rng, from: Vec3, target: Vec3) -> Vec3 {
    if rng.chance(0.5) {
        (target - from) * rng.range_f32(0.0, 2.5) + rng.unit_vector() * rng.range_f32(0.0, 1.0)
    } else {
        rng.unit_vector() * rng.range_f32(0.0, 20.0)
    }
}

#[test]
fn swept_spheres_match_a_sampled_search() {
    let mut rng = Rng::new(0x7013);
    let mut hits = 0;
    for k in 0..PAIRS {
        let (ca, cb) =
            (rng.point_in(Vec3::splat(-8.0), Vec3::splat(8.0)), rng.point_in(Vec3::splat(-8.0), Vec3::splat(8.0)));
        let (ra, rb) = (rng.range_f32(0.05, 2.0), rng.range_f32(0.05, 2.0));
        let da = displacement(&mut rng, ca, cb);
        let db = if rng.chance(0.5) { rng.unit_vector() * rng.range_f32(0.0, 5.0) } else { Vec3::ZERO };
        let ours = toi_sphere_sphere(ca, ra, da, cb, rb, db);
        let gap = |t: f32| ((ca + da * t) - (cb + db * t)).length() - (ra + rb);
        hits += usize::from(check(k, ours, gap, 1e-4 * (1.0 + (da - db).length())));
    }
    assert!(hits > PAIRS / 5 && hits < PAIRS * 4 / 5, "a mix of hits and misses: {hits}");
}

#[test]
fn swept_sphere_against_a_box_matches_a_sampled_search() {
    let mut rng = Rng::new(0x7014);
    let mut hits = 0;
    for k in 0..PAIRS {
        let center = rng.point_in(Vec3::splat(-3.0), Vec3::splat(3.0));
        // Thin walls as well as boxes: one half extent squashed a third of the time.
        let mut obb: Obb = samples::obb(&mut rng, center);
        if rng.chance(0.33) {
            obb.half_extents.x = 0.01;
        }
        let c = rng.point_in(Vec3::splat(-8.0), Vec3::splat(8.0));
        let r = rng.range_f32(0.02, 1.0);
        let d = displacement(&mut rng, c, center);
        let ours = toi_sphere_box(c, r, d, &obb);
        let gap = |t: f32| {
            let p = c + d * t;
            (p - obb.closest_point(p)).length() - r
        };
        hits += usize::from(check(k, ours, gap, 1e-4 * (1.0 + d.length())));
    }
    assert!(hits > PAIRS / 5 && hits < PAIRS * 4 / 5, "a mix of hits and misses: {hits}");
}
