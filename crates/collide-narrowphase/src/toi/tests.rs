//! Analytic time-of-impact cases: each answer worked out by hand.

use super::*;
use crate::test_beams::{angle_at_parallel_cutoff, beams};
use collide_math::Quat;

#[test]
fn head_on_spheres_meet_halfway() {
    // Centres 10 apart, radii 1 each, closing at 8 + 8 per step: touch when the gap of 8 is closed, t = 0.5.
    let t = toi_sphere_sphere(
        Vec3::ZERO,
        1.0,
        Vec3::new(8.0, 0.0, 0.0),
        Vec3::new(10.0, 0.0, 0.0),
        1.0,
        Vec3::new(-8.0, 0.0, 0.0),
    );
    assert_eq!(t, Some(0.5));
}

#[test]
fn glancing_missing_and_parallel_motion() {
    // Moving along x with a y offset of 1.5 < ra + rb = 2: the touch is where the x gap is √(4 − 2.25).
    let t = toi_sphere_sphere(Vec3::ZERO, 1.0, Vec3::new(10.0, 0.0, 0.0), Vec3::new(5.0, 1.5, 0.0), 1.0, Vec3::ZERO)
        .unwrap();
    let expect = (5.0 - (4.0f32 - 2.25).sqrt()) / 10.0;
    assert!((t - expect).abs() < 1e-6, "{t} vs {expect}");
    // Offset 2.01: the path passes by.
    assert!(
        toi_sphere_sphere(Vec3::ZERO, 1.0, Vec3::new(10.0, 0.0, 0.0), Vec3::new(5.0, 2.01, 0.0), 1.0, Vec3::ZERO)
            .is_none()
    );
    // Parallel motion (the same displacement): the gap never changes.
    let d = Vec3::new(3.0, -2.0, 1.0);
    assert!(toi_sphere_sphere(Vec3::ZERO, 1.0, d, Vec3::new(3.0, 0.0, 0.0), 1.0, d).is_none());
    // Moving apart.
    assert!(toi_sphere_sphere(Vec3::ZERO, 1.0, -Vec3::X, Vec3::new(3.0, 0.0, 0.0), 1.0, Vec3::X).is_none());
    // Approaching, but the touch would come after the step.
    assert!(toi_sphere_sphere(Vec3::ZERO, 1.0, Vec3::X, Vec3::new(4.0, 0.0, 0.0), 1.0, Vec3::ZERO).is_none());
}

#[test]
fn overlapping_at_the_start_and_touching_exactly_at_the_end() {
    assert_eq!(toi_sphere_sphere(Vec3::ZERO, 1.0, Vec3::X, Vec3::new(1.5, 0.0, 0.0), 1.0, Vec3::ZERO), Some(0.0));
    // Moving apart but overlapping now still answers 0: the bodies touch at the start of the step.
    assert_eq!(toi_sphere_sphere(Vec3::ZERO, 1.0, -Vec3::X, Vec3::new(2.0, 0.0, 0.0), 1.0, Vec3::ZERO), Some(0.0));
    // Gap 2 closed by a displacement of 2: t is exactly 1 (c = 12, b = −8, disc = 16: 12 / (8 + 4)).
    let t = toi_sphere_sphere(Vec3::ZERO, 1.0, Vec3::new(2.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 0.0), 1.0, Vec3::ZERO);
    assert_eq!(t, Some(1.0));
}

#[test]
fn sphere_plane_cases() {
    // Floor y = 0, sphere of radius 1 at height 5 falling 8: touches when the centre is at 1, t = 0.5.
    assert_eq!(toi_sphere_plane(Vec3::new(0.0, 5.0, 0.0), 1.0, Vec3::new(3.0, -8.0, 0.0), Vec3::Y, 0.0), Some(0.5));
    // A non-unit normal describes the same plane.
    assert_eq!(
        toi_sphere_plane(Vec3::new(0.0, 5.0, 0.0), 1.0, Vec3::new(0.0, -8.0, 0.0), Vec3::Y * 4.0, 0.0),
        Some(0.5)
    );
    // Exactly at the end, falling short, moving away, moving along.
    assert_eq!(toi_sphere_plane(Vec3::new(0.0, 5.0, 0.0), 1.0, Vec3::new(0.0, -4.0, 0.0), Vec3::Y, 0.0), Some(1.0));
    assert!(toi_sphere_plane(Vec3::new(0.0, 5.0, 0.0), 1.0, Vec3::new(0.0, -3.9, 0.0), Vec3::Y, 0.0).is_none());
    assert!(toi_sphere_plane(Vec3::new(0.0, 5.0, 0.0), 1.0, Vec3::Y, Vec3::Y, 0.0).is_none());
    assert!(toi_sphere_plane(Vec3::new(0.0, 5.0, 0.0), 1.0, Vec3::X, Vec3::Y, 0.0).is_none());
    // Touching, and behind the plane (inside the solid half-space): 0.
    assert_eq!(toi_sphere_plane(Vec3::new(0.0, 1.0, 0.0), 1.0, Vec3::Y, Vec3::Y, 0.0), Some(0.0));
    assert_eq!(toi_sphere_plane(Vec3::new(0.0, -7.0, 0.0), 1.0, Vec3::Y, Vec3::Y, 0.0), Some(0.0));
    // An offset plane x = 3 facing −x, approached from x = 0.
    assert_eq!(toi_sphere_plane(Vec3::ZERO, 0.5, Vec3::new(5.0, 0.0, 0.0), -Vec3::X, -3.0), Some(0.5));
}

#[test]
fn sphere_through_a_thin_wall_is_caught() {
    // A wall 0.02 thick at x = 5; a sphere of radius 0.1 moving 10 per step would jump over it entirely.
    let wall = Obb::new(Vec3::new(5.0, 0.0, 0.0), Vec3::new(0.01, 2.0, 2.0), Quat::IDENTITY);
    let t = toi_sphere_box(Vec3::ZERO, 0.1, Vec3::new(10.0, 0.0, 0.0), &wall).unwrap();
    assert!((t - 0.489).abs() < 1e-6, "{t}");
    // Past the wall's edge (y = 2 + 0.1 + margin): missed.
    assert!(toi_sphere_box(Vec3::new(0.0, 2.2, 0.0), 0.1, Vec3::new(10.0, 0.0, 0.0), &wall).is_none());
    // Grazing the wall's edge: the sphere meets the edge's cylinder, not the face. Centre at y = 2.05, so it
    // touches the edge (y = 2, x = 4.99) when its centre is √(0.01 − 0.0025) before it in x.
    let t = toi_sphere_box(Vec3::new(0.0, 2.05, 0.0), 0.1, Vec3::new(10.0, 0.0, 0.0), &wall).unwrap();
    let expect = (4.99 - (0.01f32 - 0.0025).sqrt()) / 10.0;
    assert!((t - expect).abs() < 1e-5, "{t} vs {expect}");
    // Towards a corner, along the diagonal: the corner sphere.
    let c = Vec3::new(0.0, 3.0, 3.0);
    let corner = Vec3::new(4.99, 2.0, 2.0);
    let dir = (corner - c).normalize();
    let t = toi_sphere_box(c, 0.1, dir * 10.0, &wall).unwrap();
    let expect = ((corner - c).length() - 0.1) / 10.0;
    assert!((t - expect).abs() < 1e-5, "{t} vs {expect}");
    // Already touching, and a rotated wall approached along its normal.
    let slab = Obb::new(Vec3::new(5.0, 0.0, 0.0), Vec3::new(0.25, 2.0, 2.0), Quat::IDENTITY);
    assert_eq!(toi_sphere_box(Vec3::new(4.5, 0.0, 0.0), 0.25, Vec3::X, &slab), Some(0.0));
    let q = Quat::from_rotation_z(0.5) * Quat::from_rotation_y(0.3);
    let wall = Obb::new(Vec3::ONE, Vec3::new(0.01, 2.0, 2.0), q);
    let n = q * Vec3::X;
    let t = toi_sphere_box(Vec3::ONE - n * 3.0, 0.1, n * 4.0, &wall).unwrap();
    assert!((t - (3.0 - 0.11) / 4.0).abs() < 1e-5, "{t}");
    // No motion and apart: never.
    assert!(toi_sphere_box(Vec3::new(-3.0, 0.0, 0.0), 0.1, Vec3::ZERO, &wall).is_none());
}

#[test]
fn invalid_input_gives_none() {
    let n = f32::NAN;
    assert!(toi_sphere_sphere(Vec3::new(n, 0.0, 0.0), 1.0, Vec3::X, Vec3::ZERO, 1.0, Vec3::ZERO).is_none());
    assert!(toi_sphere_sphere(Vec3::ZERO, 1.0, Vec3::X, Vec3::X, n, Vec3::ZERO).is_none());
    assert!(toi_sphere_sphere(Vec3::ZERO, -1.0, Vec3::X, Vec3::X, 1.0, Vec3::ZERO).is_none());
    assert!(toi_sphere_plane(Vec3::ZERO, 1.0, Vec3::new(n, 0.0, 0.0), Vec3::Y, 0.0).is_none());
    assert!(toi_sphere_plane(Vec3::new(0.0, 5.0, 0.0), 1.0, -Vec3::Y, Vec3::ZERO, 0.0).is_none());
    let wall = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    assert!(toi_sphere_box(Vec3::new(5.0, 0.0, 0.0), 1.0, Vec3::new(n, 0.0, 0.0), &wall).is_none());
    let bad = Obb::new(Vec3::ZERO, Vec3::new(1.0, n, 1.0), Quat::IDENTITY);
    assert!(toi_sphere_box(Vec3::new(5.0, 0.0, 0.0), 1.0, -Vec3::X * 10.0, &bad).is_none());
}

/// A unit cube (half extent 1) at `center`, turned by `rotation`.
fn cube(center: Vec3, rotation: Quat) -> Obb {
    Obb::new(center, Vec3::ONE, rotation)
}

#[test]
fn boxes_head_on_meet_halfway() {
    // Centres 10 apart, half extents 1: a gap of 8, closed at 8 + 8 per step at t = 0.5.
    let (a, b) = (cube(Vec3::ZERO, Quat::IDENTITY), cube(Vec3::new(10.0, 0.0, 0.0), Quat::IDENTITY));
    assert_eq!(toi_box_box(&a, Vec3::new(8.0, 0.0, 0.0), &b, Vec3::new(-8.0, 0.0, 0.0)), Some(0.5));
    // Only b moving, and the arguments swapped: the same meeting.
    assert_eq!(toi_box_box(&b, Vec3::new(-16.0, 0.0, 0.0), &a, Vec3::ZERO), Some(0.5));
}

#[test]
fn a_turned_box_touches_corner_first() {
    // Turned 45° about z, `a` reaches √2 along x with its edge: it meets b's face x = 9 when √2 + 10t = 9.
    let a = cube(Vec3::ZERO, Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
    let b = cube(Vec3::new(10.0, 0.0, 0.0), Quat::IDENTITY);
    let t = toi_box_box(&a, Vec3::new(10.0, 0.0, 0.0), &b, Vec3::ZERO).unwrap();
    let expect = (9.0 - std::f32::consts::SQRT_2) / 10.0;
    assert!((t - expect).abs() < 1e-6, "{t} vs {expect}");
}

#[test]
fn crossed_edges_touch_when_the_edges_meet() {
    // `a` turned 45° about z leads with an edge along z at x = √2; `b` turned 45° about y leads with an edge along
    // y at x = 10 − √2. The edges cross on the x axis, so they touch when the gap 10 − 2√2 is closed — an edge
    // axis (z × y) is the last to overlap.
    let a = cube(Vec3::ZERO, Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
    let b = cube(Vec3::new(10.0, 0.0, 0.0), Quat::from_rotation_y(std::f32::consts::FRAC_PI_4));
    let t = toi_box_box(&a, Vec3::new(10.0, 0.0, 0.0), &b, Vec3::ZERO).unwrap();
    let expect = (10.0 - 2.0 * std::f32::consts::SQRT_2) / 10.0;
    assert!((t - expect).abs() < 1e-6, "{t} vs {expect}");
    // The face axes alone would answer earlier: b's faces at 45° reach x = 10 − √2 only on its edge.
    assert!(t > (8.0 - std::f32::consts::SQRT_2) / 10.0);
}

#[test]
fn boxes_that_miss_part_or_start_overlapping() {
    let a = cube(Vec3::ZERO, Quat::IDENTITY);
    let d = Vec3::new(20.0, 0.0, 0.0);
    // An offset of 2.01 across the motion: the faces pass by.
    assert!(toi_box_box(&a, d, &cube(Vec3::new(10.0, 2.01, 0.0), Quat::IDENTITY), Vec3::ZERO).is_none());
    // An offset of exactly 2: the faces slide along each other, touching (touching counts).
    assert_eq!(toi_box_box(&a, d, &cube(Vec3::new(10.0, 2.0, 0.0), Quat::IDENTITY), Vec3::ZERO), Some(0.4));
    // The same displacement: the gap never changes.
    assert!(toi_box_box(&a, d, &cube(Vec3::new(3.0, 0.0, 0.0), Quat::IDENTITY), d).is_none());
    // Moving apart, and approaching too slowly to meet within the step.
    let b = cube(Vec3::new(3.0, 0.0, 0.0), Quat::IDENTITY);
    assert!(toi_box_box(&a, -Vec3::X, &b, Vec3::X).is_none());
    assert!(toi_box_box(&a, Vec3::new(0.5, 0.0, 0.0), &b, Vec3::ZERO).is_none());
    // Overlapping at the start, whatever the motion.
    let inside = cube(Vec3::new(1.5, 0.5, 0.0), Quat::from_rotation_x(0.3));
    assert_eq!(toi_box_box(&a, -d, &inside, Vec3::ZERO), Some(0.0));
}

#[test]
fn invalid_boxes_or_motions_have_no_time_of_impact() {
    let a = cube(Vec3::ZERO, Quat::IDENTITY);
    let b = cube(Vec3::new(3.0, 0.0, 0.0), Quat::IDENTITY);
    assert!(toi_box_box(&a, Vec3::new(f32::NAN, 0.0, 0.0), &b, Vec3::ZERO).is_none());
    assert!(toi_box_box(&a, Vec3::X * 5.0, &b, Vec3::splat(f32::INFINITY)).is_none());
    let bad = Obb::new(Vec3::ZERO, Vec3::new(-1.0, 1.0, 1.0), Quat::IDENTITY);
    assert!(toi_box_box(&bad, Vec3::X * 5.0, &b, Vec3::ZERO).is_none());
}

#[test]
fn solids_dispatch_on_their_shapes() {
    let (c, r) = (Vec3::ZERO, 0.5);
    let obb = cube(Vec3::new(10.0, 0.0, 0.0), Quat::IDENTITY);
    let (ds, db) = (Vec3::new(6.0, 0.0, 0.0), Vec3::new(-6.0, 0.0, 0.0));
    // The sphere's surface at 0.5 meets the face at 9: a gap of 8.5 closed at 12 per step.
    let expect = 8.5 / 12.0;
    let t = toi_solids(&Solid::Sphere(c, r), ds, &Solid::Box(obb), db).unwrap();
    assert!((t - expect).abs() < 1e-6, "{t}");
    let t = toi_solids(&Solid::Box(obb), db, &Solid::Sphere(c, r), ds).unwrap();
    assert!((t - expect).abs() < 1e-6, "the box first: {t}");
    let (sa, sb) = (Solid::Sphere(c, r), Solid::Sphere(Vec3::new(10.0, 0.0, 0.0), r));
    assert_eq!(toi_solids(&sa, ds, &sb, db), Some(0.75));
    assert_eq!(toi_solids(&Solid::Box(cube(c, Quat::IDENTITY)), ds, &Solid::Box(obb), db), Some(8.0 / 12.0));
}

/// Spheres already overlapping are still invalid input when a displacement is not finite: `None`, not the
/// "touching from the start" 0 that finite ones would get. Each of the four vectors in turn.
#[test]
fn overlapping_spheres_with_a_displacement_not_finite_have_no_time_of_impact() {
    let (z, inf, nan) = (Vec3::ZERO, Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::new(f32::NAN, 0.0, 0.0));
    assert_eq!(toi_sphere_sphere(z, 1.0, z, z, 1.0, z), Some(0.0), "the finite case, for contrast");
    for bad in [inf, nan] {
        assert!(toi_sphere_sphere(z, 1.0, bad, z, 1.0, z).is_none());
        assert!(toi_sphere_sphere(z, 1.0, z, z, 1.0, bad).is_none());
    }
    assert!(toi_sphere_sphere(inf, 1.0, z, inf, 1.0, z).is_none());
}

/// A path whose closest approach is exactly the sum of the radii grazes: it touches then, once (the quadratic's
/// discriminant is 0), at the time of closest approach.
#[test]
fn a_grazing_path_touches_at_its_closest_approach() {
    // Centre from (-3, 1, 0) moving 4 along x past a sphere at the origin, radii 0.5 + 0.5: at t = 0.75 it is at
    // (0, 1, 0), exactly 1 away.
    let t = toi_sphere_sphere(Vec3::new(-3.0, 1.0, 0.0), 0.5, Vec3::new(4.0, 0.0, 0.0), Vec3::ZERO, 0.5, Vec3::ZERO);
    assert_eq!(t, Some(0.75));
}

/// A sphere already overlapping a box, inside it or touching a face from outside, has time of impact 0.
#[test]
fn a_sphere_overlapping_a_box_at_the_start_touches_at_once() {
    let unit = Obb::new(Vec3::new(10.0, 0.0, 0.0), Vec3::new(1.0, 2.0, 3.0), Quat::IDENTITY);
    let away = Vec3::new(0.0, 50.0, 0.0);
    assert_eq!(toi_sphere_box(Vec3::new(10.5, 1.0, -2.0), 0.1, away, &unit), Some(0.0), "inside");
    assert_eq!(toi_sphere_box(Vec3::new(11.2, 0.0, 0.0), 0.25, away, &unit), Some(0.0), "through the +x face");
    assert_eq!(toi_sphere_box(Vec3::new(10.0, 0.0, -3.5), 0.5, away, &unit), Some(0.0), "touching the -z face");
    assert!(toi_sphere_box(Vec3::new(10.0, 0.0, -3.6), 0.5, away, &unit).is_none(), "apart and leaving");
}

/// A sphere that starts overlapping only a box's edge region — outside every face slab, nearer no corner than its
/// radius — touches at once, even moving away: no face or corner part of the swept test would see it.
#[test]
fn a_sphere_overlapping_only_an_edge_at_the_start_touches_at_once() {
    let unit = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    // 0.1 beyond the faces x = 1 and y = 1: 0.141 from the edge along z, radius 0.2; the corners are 1 away.
    assert_eq!(toi_sphere_box(Vec3::new(1.1, 1.1, 0.0), 0.2, Vec3::new(5.0, 5.0, 0.0), &unit), Some(0.0));
    assert!(toi_sphere_box(Vec3::new(1.2, 1.2, 0.0), 0.2, Vec3::new(5.0, 5.0, 0.0), &unit).is_none());
}

/// A sphere sliding along a box's face at exactly its radius touches it (touching counts): from (−5, 1.5, 0),
/// radius 0.5, moving 10 along x over the unit box, it first touches the top edge when its centre is above it,
/// at x = −1: t = 4/10. The path never moves across the face's slab, so that slab only bounds it.
#[test]
fn a_sphere_sliding_along_a_face_at_its_radius_touches_it() {
    let unit = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    let t = toi_sphere_box(Vec3::new(-5.0, 1.5, 0.0), 0.5, Vec3::new(10.0, 0.0, 0.0), &unit).unwrap();
    assert!((t - 0.4).abs() < 1e-6, "{t}");
}

/// Reaching a box exactly at the end of the step is a touch at t = 1: the sphere's surface starts 1 from the face
/// x = −1 and moves 1.
#[test]
fn a_sphere_reaching_a_box_exactly_at_the_end_of_the_step_touches_at_one() {
    let unit = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    assert_eq!(toi_sphere_box(Vec3::new(-3.0, 0.0, 0.0), 1.0, Vec3::X, &unit), Some(1.0));
}

/// A sphere starting near an edge (0.28 from it, radius 0.1) and moving straight at it hits the edge's cylinder:
/// from (1.2, 1.2, 0) along (−0.5, −0.5, 0) it closes 0.2√2 − 0.1 at √0.5 per step. (The slabs alone would answer
/// 0.4, when y reaches 1.)
#[test]
fn a_sphere_starting_near_an_edge_hits_its_cylinder() {
    let unit = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    let t = toi_sphere_box(Vec3::new(1.2, 1.2, 0.0), 0.1, Vec3::new(-0.5, -0.5, 0.0), &unit).unwrap();
    let expect = (0.2 * 2f32.sqrt() - 0.1) / 0.5f32.sqrt();
    assert!((t - expect).abs() < 1e-5, "{t} vs {expect}");
}

/// A tiny sphere (radius 2⁻²⁴) a hair beyond the unit box's corner, along its z edge: its centre at
/// (1 − 2⁻²⁴, 1, 1 + 2⁻²³) is 2⁻²³ from the box, so it is not touching at the start, and moving down at speed 1 it
/// touches after 2⁻²³ − 2⁻²⁴ = 2⁻²⁴. Its offset across the edge (2⁻²⁴) equals the radius, and 1 + 2⁻²³ + 1 rounds
/// to the edge's length 2: the edge's cylinder, which it starts on, must not answer 0.
#[test]
fn a_tiny_sphere_a_hair_beyond_a_corner_is_not_touching_at_the_start() {
    let unit = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY);
    let (e24, e23) = (2f32.powi(-24), 2f32.powi(-23));
    let t = toi_sphere_box(Vec3::new(1.0 - e24, 1.0, 1.0 + e23), e24, -Vec3::Z, &unit).unwrap();
    assert!(t > 0.0 && t <= e23, "{t}");
}

/// The edge radii's padding (10⁻⁶ on each of four `|R|` entries, half extents 1) reaches 4·10⁻⁶ / sin further on an
/// edge axis: 0.004 at a sine of 10⁻³. Still beams 0.003 apart along it touch from the start, 0.005 apart never.
#[test]
fn edge_padding_makes_still_beams_within_its_allowance_touch() {
    let (a, b, _) = beams(100.0, 1e-3, 0.003);
    assert_eq!(toi_box_box(&a, Vec3::ZERO, &b, Vec3::ZERO), Some(0.0));
    assert_eq!(toi_box_box(&b, Vec3::ZERO, &a, Vec3::ZERO), Some(0.0));
    let (a, b, _) = beams(100.0, 1e-3, 0.005);
    assert_eq!(toi_box_box(&a, Vec3::ZERO, &b, Vec3::ZERO), None);
}

/// The parallel-edge cut-off, as in `box_box`: an edge axis whose squared length is exactly `PARALLEL_SINE²` (the
/// angle found by stepping through f32 values) is tested and keeps beams 0.1 apart along it apart for the whole
/// step; at a sine of 5·10⁻⁵, below the cut-off, it is skipped, and the same beams count as touching from the start
/// (the cost of the cut-off: the face axes see them overlap, by about len·sin/√2 = 0.35).
#[test]
fn an_edge_axis_is_tested_down_to_the_parallel_cutoff_and_skipped_below() {
    let slide = Vec3::new(50.0, 0.0, 0.0);
    let angle = angle_at_parallel_cutoff();
    let (a, b, _) = beams(1e4, angle, 0.1);
    assert_eq!(toi_box_box(&a, slide, &b, Vec3::ZERO), None);
    let (a, b, _) = beams(1e4, 5e-5, 0.1);
    assert_eq!(toi_box_box(&a, slide, &b, Vec3::ZERO), Some(0.0));
}
