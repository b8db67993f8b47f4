//! Analytic box–box cases: every kind of contact, with the answer worked out by hand.

use super::*;
use crate::test_beams::{angle_at_parallel_cutoff, beams};
use collide_math::Quat;
use std::f32::consts::FRAC_PI_4;

fn cube(center: Vec3, half: f32) -> Obb {
    Obb::new(center, Vec3::splat(half), Quat::IDENTITY)
}

fn close(a: Vec3, b: Vec3, eps: f32) -> bool {
    (a - b).length() < eps
}

/// `m`'s points are `expect` in some order, within `eps`.
fn same_points(m: &Manifold, expect: &[Vec3], eps: f32) -> bool {
    m.points().len() == expect.len()
        && expect.iter().all(|e| m.points().iter().any(|p| close(p.point, *e, eps)))
        && m.points().iter().all(|p| expect.iter().any(|e| close(p.point, *e, eps)))
}

#[test]
fn face_contact_of_stacked_cubes_has_four_corner_points() {
    // b under a, overlapping by 0.2: the normal points up (from b toward a).
    let a = cube(Vec3::new(0.0, 1.8, 0.0), 1.0);
    let b = cube(Vec3::ZERO, 1.0);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, Vec3::Y, 1e-6), "{m:?}");
    assert_eq!(m.len, 4);
    for p in m.points() {
        assert!((p.depth - 0.2).abs() < 1e-5, "{p:?}");
        assert!((p.point.y - 0.9).abs() < 1e-5, "midway through the overlap: {p:?}");
        assert!((p.point.x.abs() - 1.0).abs() < 1e-5 && (p.point.z.abs() - 1.0).abs() < 1e-5);
    }
    assert!((m.depth() - 0.2).abs() < 1e-5);
    // Swapping the bodies flips the normal only.
    let m2 = box_box(&b, &a).unwrap();
    assert!(close(m2.normal, -Vec3::Y, 1e-6));
    let points: Vec<Vec3> = m.points().iter().map(|p| p.point).collect();
    assert!(same_points(&m2, &points, 1e-6));
}

#[test]
fn small_box_on_a_big_one_gets_its_own_four_corners() {
    // The small face lies inside the big face: clipping keeps the incident quad whole.
    let a = Obb::new(Vec3::new(0.3, 1.4, -0.2), Vec3::new(0.5, 0.5, 0.25), Quat::IDENTITY);
    let b = Obb::new(Vec3::ZERO, Vec3::new(3.0, 1.0, 3.0), Quat::IDENTITY);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, Vec3::Y, 1e-6));
    let expect: Vec<Vec3> =
        [(-0.2, -0.45), (-0.2, 0.05), (0.8, -0.45), (0.8, 0.05)].map(|(x, z)| Vec3::new(x, 0.95, z)).to_vec();
    assert!(same_points(&m, &expect, 1e-5), "{m:?}");
}

#[test]
fn offset_faces_clip_to_the_overlap_rectangle() {
    // Equal cubes shifted by 1 in x and z: the faces overlap on the square [0,1]×[0,1].
    let a = cube(Vec3::new(1.0, 1.9, 1.0), 1.0);
    let b = cube(Vec3::ZERO, 1.0);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, Vec3::Y, 1e-6));
    let expect = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)].map(|(x, z)| Vec3::new(x, 0.95, z));
    assert!(same_points(&m, &expect, 1e-5), "{m:?}");
}

#[test]
fn edge_contact_of_crossed_diamonds() {
    // Both cubes rotated 45° (a about x, b about z): a's lowest edge runs along x, b's highest along z; they
    // cross at one point. Each edge sits √2 from its centre; centres 2√2 − 0.1 apart in y overlap by 0.1.
    let s2 = 2f32.sqrt();
    let a = Obb::new(Vec3::new(0.0, 2.0 * s2 - 0.1, 0.0), Vec3::ONE, Quat::from_rotation_x(FRAC_PI_4));
    let b = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::from_rotation_z(FRAC_PI_4));
    let m = box_box(&a, &b).unwrap();
    assert_eq!(m.len, 1, "{m:?}");
    assert!(close(m.normal, Vec3::Y, 1e-5), "{m:?}");
    assert!((m.depth() - 0.1).abs() < 1e-4, "{m:?}");
    assert!(close(m.points[0].point, Vec3::new(0.0, s2 - 0.05, 0.0), 1e-4), "{m:?}");
}

#[test]
fn vertex_into_face() {
    // b is a cube standing on a corner (rotated about two axes so its lowest corner is straight below the
    // centre, √3 away); a is a flat slab whose bottom face is 0.1 below that corner... here a is on the bottom:
    // the slab is b, the cube a, and the contact is one vertex point.
    let q = Quat::from_rotation_arc(Vec3::ONE.normalize(), Vec3::Y);
    let s3 = 3f32.sqrt();
    let a = Obb::new(Vec3::new(0.0, s3 - 0.1, 0.0), Vec3::ONE, q);
    let b = Obb::new(Vec3::new(0.0, -1.0, 0.0), Vec3::new(5.0, 1.0, 5.0), Quat::IDENTITY);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, Vec3::Y, 1e-5), "{m:?}");
    assert_eq!(m.len, 1, "only the corner is below the slab's face: {m:?}");
    assert!((m.depth() - 0.1).abs() < 1e-4);
    assert!(close(m.points[0].point, Vec3::new(0.0, -0.05, 0.0), 1e-4), "{m:?}");
}

#[test]
fn box_inside_box_pushes_out_through_the_nearest_face() {
    let a = cube(Vec3::new(0.0, 0.0, 2.0), 0.5); // inside b, nearest b's +z face (3 away at z = 3)
    let b = cube(Vec3::ZERO, 3.0);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, Vec3::Z, 1e-6), "{m:?}");
    // Moving a by 1.5 along +z puts its far face on b's face: that is the penetration on this axis.
    assert!((m.depth() - 1.5).abs() < 1e-5, "{m:?}");
    assert_eq!(m.len, 4);
}

#[test]
fn touching_faces_and_coincident_boxes() {
    // Exactly touching faces: depth 0, still a contact, four points, no NaN.
    let m = box_box(&cube(Vec3::new(2.0, 0.0, 0.0), 1.0), &cube(Vec3::ZERO, 1.0)).unwrap();
    assert_eq!(m.normal, Vec3::X);
    assert_eq!(m.len, 4);
    assert!(m.points().iter().all(|p| p.depth == 0.0 && p.point.is_finite()));
    // Coincident boxes: every axis ties at the full size; the first face of a wins, all finite.
    let m = box_box(&cube(Vec3::ZERO, 1.0), &cube(Vec3::ZERO, 1.0)).unwrap();
    assert!(m.normal.is_finite() && (m.normal.length() - 1.0).abs() < 1e-6);
    assert_eq!(m.normal.x.abs(), 1.0, "a tie keeps the first face of a, along its x: {:?}", m.normal);
    // The same tie between a's y and z faces (x clearly deeper): y, the first of them, wins.
    let m = box_box(&cube(Vec3::ZERO, 1.0), &Obb::new(Vec3::ZERO, Vec3::new(3.0, 1.0, 1.0), Quat::IDENTITY)).unwrap();
    assert_eq!(m.normal.y.abs(), 1.0, "{:?}", m.normal);
    assert!((m.depth() - 2.0).abs() < 1e-6 && m.len == 4);
    // Parallel but rotated together (all nine edge pairs parallel or perpendicular): still a face contact.
    let q = Quat::from_rotation_y(0.3) * Quat::from_rotation_x(0.2);
    let a = Obb::new(q * Vec3::new(0.0, 1.9, 0.0), Vec3::ONE, q);
    let b = Obb::new(Vec3::ZERO, Vec3::ONE, q);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, q * Vec3::Y, 1e-5) && (m.depth() - 0.1).abs() < 1e-4 && m.len == 4, "{m:?}");
}

#[test]
fn apart_on_a_face_axis_and_on_an_edge_axis_only() {
    assert!(box_box(&cube(Vec3::new(2.01, 0.0, 0.0), 1.0), &cube(Vec3::ZERO, 1.0)).is_none());
    // The crossed diamonds of the edge test, 0.05 further apart than touching. y is no face axis of either box
    // (a's axes are x and the diagonals of y, z; b's are z and the diagonals of x, y), only the edge axis
    // x × z: every face axis still overlaps, so only the edge axes can find the gap.
    let s2 = 2f32.sqrt();
    let a = Obb::new(Vec3::new(0.0, 2.0 * s2 + 0.05, 0.0), Vec3::ONE, Quat::from_rotation_x(FRAC_PI_4));
    let b = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::from_rotation_z(FRAC_PI_4));
    let (fa, fb) = (BoxFrame::new(&a).unwrap(), BoxFrame::new(&b).unwrap());
    for (f, g) in [(&fa, &fb), (&fb, &fa)] {
        for axis in f.axes {
            let radius = |h: &BoxFrame| (0..3).map(|k| h.half[k] * h.axes[k].dot(axis).abs()).sum::<f32>();
            let gap = (fb.center - fa.center).dot(axis).abs() - radius(f) - radius(g);
            assert!(gap < 0.0, "face axis {axis} separates: {gap}");
        }
    }
    assert!(box_box(&a, &b).is_none());
    assert!(box_box(&b, &a).is_none());
}

#[test]
fn rotated_45_about_one_axis_and_about_two() {
    // a: a cube rotated 45° about y resting on b's top face, overlapping by 0.1. The contact is a's bottom face.
    let a = Obb::new(Vec3::new(0.0, 1.9, 0.0), Vec3::ONE, Quat::from_rotation_y(FRAC_PI_4));
    let b = cube(Vec3::ZERO, 1.0);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, Vec3::Y, 1e-5) && (m.depth() - 0.1).abs() < 1e-5, "{m:?}");
    // The rotated square clipped by the unit square is an octagon: reduced to four points, all at depth 0.1.
    assert_eq!(m.len, 4);
    assert!(m.points().iter().all(|p| (p.depth - 0.1).abs() < 1e-5));
    // About two axes: a's corner region against b's face; the answer is b's face normal whatever a's tilt, and
    // the depth is the lowest corner's.
    let q = Quat::from_rotation_x(FRAC_PI_4) * Quat::from_rotation_z(FRAC_PI_4);
    let low = (0..8)
        .map(|c| {
            let s = Vec3::new(
                if c & 1 == 0 { -1.0 } else { 1.0 },
                if c & 2 == 0 { -1.0 } else { 1.0 },
                if c & 4 == 0 { -1.0 } else { 1.0 },
            );
            (q * s).y
        })
        .fold(f32::INFINITY, f32::min);
    let a = Obb::new(Vec3::new(0.0, 1.0 - low - 0.1, 0.0), Vec3::ONE, q);
    let b = Obb::new(Vec3::ZERO, Vec3::new(4.0, 1.0, 4.0), Quat::IDENTITY);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, Vec3::Y, 1e-5) && (m.depth() - 0.1).abs() < 1e-4, "{m:?}");
}

#[test]
fn invalid_boxes_give_none() {
    let ok = cube(Vec3::ZERO, 1.0);
    let nan = Obb::new(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ONE, Quat::IDENTITY);
    let neg = Obb::new(Vec3::ZERO, Vec3::new(1.0, -1.0, 1.0), Quat::IDENTITY);
    let inf = Obb::new(Vec3::ZERO, Vec3::splat(f32::INFINITY), Quat::IDENTITY);
    for bad in [nan, neg, inf] {
        assert!(box_box(&ok, &bad).is_none() && box_box(&bad, &ok).is_none(), "{bad:?}");
    }
}

#[test]
fn closest_points_of_crossing_and_clamped_segments() {
    let (p, q) = closest_on_segments(Vec3::ZERO, Vec3::X, 1.0, Vec3::new(0.5, 1.0, 0.0), Vec3::Z, 1.0);
    assert!(close(p, Vec3::new(0.5, 0.0, 0.0), 1e-6) && close(q, Vec3::new(0.5, 1.0, 0.0), 1e-6));
    // The crossing lies beyond a's end: clamped to it.
    let (p, q) = closest_on_segments(Vec3::ZERO, Vec3::X, 1.0, Vec3::new(3.0, 1.0, 0.0), Vec3::Z, 1.0);
    assert!(close(p, Vec3::X, 1e-6) && close(q, Vec3::new(3.0, 1.0, 0.0), 1e-6));
}

/// Oblique segments, crossing within both or beyond an end: the points found are on the segments and as close as
/// the closest pair of a fine sampling of both (an independent answer), never further than a sampling step.
#[test]
fn closest_points_of_oblique_segments_match_a_sampled_search() {
    let mut rng = collide_math::Rng::new(11);
    let on = |c: Vec3, u: Vec3, h: f32, p: Vec3| ((p - c).dot(u).abs() <= h + 1e-4) && (p - c).cross(u).length() < 1e-4;
    for case in 0..40 {
        let unit = |rng: &mut collide_math::Rng| rng.point_in(Vec3::splat(-1.0), Vec3::ONE).normalize_or(Vec3::X);
        let (ua, ub) = (unit(&mut rng), unit(&mut rng));
        if ua.cross(ub).length() < 0.2 {
            continue;
        }
        let (ha, hb) = (rng.range_f32(0.3, 2.0), rng.range_f32(0.3, 2.0));
        let (pa, pb) = (Vec3::ZERO, rng.point_in(Vec3::splat(-2.0), Vec3::splat(2.0)));
        let (p, q) = closest_on_segments(pa, ua, ha, pb, ub, hb);
        assert!(on(pa, ua, ha, p) && on(pb, ub, hb, q), "case {case}: {p} or {q} off its segment");
        let steps = 400;
        let mut sampled = f32::INFINITY;
        for i in 0..=steps {
            let s = -ha + 2.0 * ha * i as f32 / steps as f32;
            for k in 0..=steps {
                let u = -hb + 2.0 * hb * k as f32 / steps as f32;
                sampled = sampled.min((pa + ua * s - (pb + ub * u)).length());
            }
        }
        let found = (p - q).length();
        let step = 2.0 * ha.max(hb) / steps as f32;
        assert!(found <= sampled + 1e-4, "case {case}: {found} apart, the sampling found {sampled}");
        assert!(found >= sampled - step, "case {case}: {found} apart, closer than any sample {sampled}");
    }
}

/// The crossed-edges contact with boxes of different sizes, so that the edges that touch are not mirrored by the
/// edges opposite them: a's lowest edge (√2 below its centre) on b's highest (b a 1 × 1 × 2 box turned 45° about
/// z: its top edge √2 · 0.5 above its centre). The point is midway through their overlap of 0.1.
#[test]
fn edge_contact_of_unequal_boxes_lies_midway_between_the_touching_edges() {
    let s2 = 2f32.sqrt();
    let top_of_b = 0.5 * s2;
    let a = Obb::new(Vec3::new(0.0, top_of_b + s2 - 0.1, 0.0), Vec3::ONE, Quat::from_rotation_x(FRAC_PI_4));
    let b = Obb::new(Vec3::ZERO, Vec3::new(0.5, 0.5, 1.0), Quat::from_rotation_z(FRAC_PI_4));
    for (m, normal) in [(box_box(&a, &b).unwrap(), Vec3::Y), (box_box(&b, &a).unwrap(), -Vec3::Y)] {
        assert_eq!(m.len, 1, "{m:?}");
        assert!(close(m.normal, normal, 1e-5), "{m:?}");
        assert!((m.depth() - 0.1).abs() < 1e-4, "{m:?}");
        assert!(close(m.points[0].point, Vec3::new(0.0, top_of_b - 0.05, 0.0), 1e-4), "{m:?}");
    }
}

/// The clipping's "below the reference face" test allows a rounding-sized margin scaled by the boxes' size: at a
/// scale of a thousand, an incident face tilted so that one side is 0.2 deep and the other 0.005 above the
/// reference face keeps all four corners (those above at depth 0), as a stack of large boxes settles.
#[test]
fn large_boxes_keep_corners_a_rounding_margin_above_the_reference_face() {
    let half = 1000.0_f32;
    let (deep, above) = (0.2_f32, 0.005_f32);
    let sin = (deep + above) / (2.0 * half);
    let angle = sin.asin();
    let cy = half - deep + half * sin + half * angle.cos();
    let a = cube(Vec3::ZERO, half);
    let b = Obb::new(Vec3::new(0.0, cy, 0.0), Vec3::splat(half), Quat::from_rotation_z(angle));
    let m = box_box(&b, &a).unwrap();
    assert_eq!(m.len, 4, "{m:?}");
    let depths: Vec<f32> = m.points().iter().map(|p| p.depth).collect();
    assert_eq!(depths.iter().filter(|&&d| d == 0.0).count(), 2, "{depths:?}");
    assert!(depths.iter().any(|&d| (d - deep).abs() < 0.01), "{depths:?}");
}

/// `b`'s faces, like `a`'s, break an exact tie toward the lower axis. `a` is a unit cube turned 45° about x, `b`
/// an axis-aligned 5 × 2 × 2 box around the same centre: on `b`'s y and z faces the overlap is the same,
/// √2 + 2 ≈ 3.41 (a's radius along either is cos 45° + sin 45°), clearly below a's best, 1 + 2√2 ≈ 3.83, so a face
/// of `b` is the reference; of the two, y, the lower, is chosen (the normal is +y, not +z).
#[test]
fn a_tie_between_two_faces_of_b_goes_to_the_lower_axis() {
    let a = Obb::new(Vec3::ZERO, Vec3::ONE, Quat::from_rotation_x(FRAC_PI_4));
    let b = Obb::new(Vec3::ZERO, Vec3::new(5.0, 2.0, 2.0), Quat::IDENTITY);
    let m = box_box(&a, &b).unwrap();
    assert_eq!(m.normal, Vec3::Y, "{m:?}");
    assert!((m.depth() - (2f32.sqrt() + 2.0)).abs() < 1e-5, "{m:?}");
}

/// The face bias has an absolute part, 10⁻⁵ × the larger box's size, besides the 2%: at a scale of a thousand
/// it is 0.02, and a face of `b` that beats `a`'s best by 2% less only half of that (0.01) does not replace it.
/// `a`: a cube of half size 1000 turned 45° about x; `b`: axis-aligned, half extents (2000, H, H), same centre.
/// Overlaps: `a`'s y (and z) faces 1000 + √2·H, `b`'s y (and z) faces 1000·√2 + H; H is solved (in f64) so that
/// b's is 98% of a's less 0.01. The reference stays `a`'s y face: the normal is `−a_y`, not `b`'s `+y`.
#[test]
fn b_face_must_beat_a_face_by_the_size_scaled_margin_as_well_as_two_percent() {
    let (l, s2) = (1000.0_f64, 2f64.sqrt());
    let tol = 1e-5 * 2000.0;
    let h = (0.98 * l - s2 * l - tol / 2.0) / (1.0 - 0.98 * s2);
    let (pen_a, pen_b) = (l + s2 * h, s2 * l + h);
    assert!((pen_b - (0.98 * pen_a - tol / 2.0)).abs() < 1e-9 && pen_a < l + 2000.0, "{pen_a} {pen_b}");
    let q = Quat::from_rotation_x(FRAC_PI_4);
    let a = Obb::new(Vec3::ZERO, Vec3::splat(l as f32), q);
    let b = Obb::new(Vec3::ZERO, Vec3::new(2000.0, h as f32, h as f32), Quat::IDENTITY);
    let m = box_box(&a, &b).unwrap();
    assert!(close(m.normal, -(q * Vec3::Y), 1e-5), "a's face stays the reference: {m:?}");
    assert!((m.depth() as f64 - pen_a).abs() < 0.01, "{m:?}, expected depth {pen_a}");
}

/// With boxes of size 0 (two points at the same place) the biases' absolute part is 0 and every axis overlaps by
/// exactly 0: a face or edge of `b` only replaces `a`'s first face when strictly better, so the tie keeps `a`'s
/// x face: the normal is −x, and every point lies at the shared centre with depth 0.
#[test]
fn coincident_point_boxes_keep_a_first_face_on_the_exact_tie() {
    let point = Obb::new(Vec3::new(1.0, 2.0, 3.0), Vec3::ZERO, Quat::IDENTITY);
    let m = box_box(&point, &point).unwrap();
    assert_eq!(m.normal, -Vec3::X, "{m:?}");
    assert!(m.points().iter().all(|p| p.depth == 0.0 && p.point == point.center), "{m:?}");
}

/// Two crossed rods (boxes of zero thickness) meeting at a point touch: on the edge axis of their two directions
/// the overlap is exactly 0, which counts as touching, not as a separation.
#[test]
fn crossed_rods_that_meet_at_a_point_touch() {
    let a = Obb::new(Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY);
    let b = Obb::new(Vec3::ZERO, Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY);
    let m = box_box(&a, &b).expect("the rods touch at the origin");
    assert!(m.points().iter().all(|p| p.depth == 0.0 && p.point.length() < 1e-6), "{m:?}");
    // Apart by 0.01 in y, they do not.
    let b = Obb::new(Vec3::new(0.0, 0.01, 0.0), Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY);
    assert!(box_box(&a, &b).is_none());
}

/// A tie between two edge axes goes to the first (a's lower axis). `a` is a unit cube whose x and y axes are
/// mirror images across the plane x = 0, (±1/√2, ½, ½), z = (0, −1/√2, 1/√2); `b`, a 0.4 × 0.4 × 2 rod along z, lies
/// below it with both centres in that plane. The scene is symmetric, so the edge axes `a_x × z` and `a_y × z`
/// (mirror images) overlap by exactly the same amount, and one of them is the least: `a_x × z` is reported.
#[test]
fn a_tie_between_mirror_image_edge_axes_goes_to_the_first() {
    let p = std::f32::consts::FRAC_1_SQRT_2;
    let axes = [Vec3::new(p, 0.5, 0.5), Vec3::new(-p, 0.5, 0.5), Vec3::new(0.0, -p, p)];
    let fa = BoxFrame { center: Vec3::ZERO, axes, half: [1.0; 3] };
    let fb = BoxFrame { center: Vec3::new(0.0, -1.2, 0.0), axes: [Vec3::X, Vec3::Y, Vec3::Z], half: [0.2, 0.2, 1.0] };
    let (axis, _) = least_penetration(&fa, &fb).unwrap();
    let Axis::Edge(i, j, l) = axis else { panic!("an edge axis is the least here: {axis:?}") };
    assert_eq!((i, j), (0, 2), "{axis:?}");
    let expect = axes[0].cross(Vec3::Z).normalize();
    assert!(close(l, expect, 1e-6), "{l} vs {expect}, oriented from a toward b");
}

/// Gottschalk's padding: each of the four `|R|` entries in an edge axis's radii gets 10⁻⁶ (times a half extent
/// of 1 here), so on an axis of length sin = 10⁻³ the test reaches 4·10⁻⁶ / 10⁻³ = 0.004 further than the boxes.
/// Beams 0.003 apart along that axis (and overlapping on every other) are reported touching — the padding errs
/// toward "overlapping" by exactly its allowance — and 0.005 apart they are apart.
#[test]
fn edge_padding_reports_nearly_parallel_beams_within_its_allowance_as_touching() {
    let angle = 1e-3_f32;
    let (a, b, _) = beams(100.0, angle, 0.003);
    assert!(box_box(&a, &b).is_some(), "within the padding's 0.004");
    assert!(box_box(&b, &a).is_some());
    let (a, b, _) = beams(100.0, angle, 0.005);
    assert!(box_box(&a, &b).is_none(), "beyond it");
}

/// The parallel-edge cut-off skips an edge axis only when its squared length is below 10⁻⁸: at exactly 10⁻⁸
/// (an angle found by stepping through f32 values until `a_x × b_x`'s computed squared length is
/// `PARALLEL_SINE²`) the axis is tested, and separates beams 0.1 apart along it (beyond its padding, 0.04).
#[test]
fn an_edge_axis_exactly_at_the_parallel_cutoff_is_tested() {
    let angle = angle_at_parallel_cutoff();
    let (a, b, _) = beams(1e4, angle, 0.1);
    assert!(box_box(&a, &b).is_none() && box_box(&b, &a).is_none());
}

/// Below the cut-off the edge axis of nearly parallel edges is skipped and never gives the contact: beams at an
/// angle of 5·10⁻⁵ overlapping by 0.05 along `a_x × b_x` get a face of one of them as the contact normal, not that
/// axis (whose direction such short cross products round badly).
#[test]
fn nearly_parallel_edges_below_the_cutoff_never_give_the_contact() {
    let (a, b, w) = beams(1e4, 5e-5, -0.05);
    let m = box_box(&a, &b).unwrap();
    let faces = [a.axes(), b.axes()].map(|m| [m.x_axis, m.y_axis, m.z_axis]);
    let along_a_face = faces.iter().flatten().any(|f| f.dot(m.normal).abs() > 1.0 - 1e-6);
    assert!(along_a_face && m.normal.dot(w).abs() < 0.9, "{m:?}");
}
