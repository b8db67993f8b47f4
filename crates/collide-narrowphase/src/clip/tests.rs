use super::*;
use collide_math::Obb;
use collide_math::Quat;

/// When clipping leaves no point of the incident face — here it lies wholly beside the reference face — the
/// contact the axis test found is kept as one point: the incident box's vertex deepest toward the reference box
/// (ties toward each axis's positive side), moved half the axis depth back along the reference normal.
#[test]
fn a_face_contact_that_clips_every_point_away_keeps_the_incident_box_deepest_vertex() {
    let reference = BoxFrame::new(&Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY)).unwrap();
    let incident = BoxFrame::new(&Obb::new(Vec3::new(2.5, 1.9, 0.0), Vec3::ONE, Quat::IDENTITY)).unwrap();
    let m = face_contact(&reference, 1, Vec3::Y, &incident, 1e-4, -Vec3::Y, 0.1);
    assert_eq!(m.len, 1, "{m:?}");
    assert_eq!(m.normal, -Vec3::Y);
    assert!((m.points[0].depth - 0.1).abs() < 1e-6, "{m:?}");
    // The incident box's lowest face is at y = 0.9, x in 1.5..3.5, z in -1..1: its vertex toward -y, ties to +.
    assert!((m.points[0].point - Vec3::new(3.5, 0.95, 1.0)).length() < 1e-5, "{m:?}");
    // A negative axis depth (rounding) gives depth 0 at the vertex itself.
    let m = face_contact(&reference, 1, Vec3::Y, &incident, 1e-4, -Vec3::Y, -0.01);
    assert_eq!((m.len, m.points[0].depth), (1, 0.0));
    assert!((m.points[0].point - Vec3::new(3.5, 0.9, 1.0)).length() < 1e-5, "{m:?}");
}

/// The fallback vertex with an incident box of unequal half extents (2, 0.5, 1.5), not a unit cube: each axis is
/// stepped by its own half extent toward `-n_ref`. The box at (4, 1.2, 0) lies wholly beside the reference
/// face, so its lowest face clips away; the vertex is (4 + 2, 1.2 − 0.5, 0 + 1.5), moved 0.05 up.
#[test]
fn the_fallback_vertex_steps_each_axis_by_its_own_half_extent() {
    let reference = BoxFrame::new(&Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY)).unwrap();
    let incident =
        BoxFrame::new(&Obb::new(Vec3::new(4.0, 1.2, 0.0), Vec3::new(2.0, 0.5, 1.5), Quat::IDENTITY)).unwrap();
    let m = face_contact(&reference, 1, Vec3::Y, &incident, 1e-4, -Vec3::Y, 0.1);
    assert_eq!(m.len, 1, "{m:?}");
    assert!((m.points[0].point - Vec3::new(6.0, 0.75, 1.5)).length() < 1e-5, "{m:?}");
}

/// A vertex exactly on the clipping plane is kept once, and an edge from it to the other side adds no crossing
/// (the crossing would be that vertex again). A square with corners on the axes, (±1, 0, 0) and (0, 0, ±1), cut
/// by the plane x = 0 through two of them, is the triangle (0, 0, 1), (−1, 0, 0), (0, 0, −1): three vertices, no
/// duplicate — whichever corner the walk starts from.
#[test]
fn clipping_through_two_vertices_keeps_each_once() {
    let corners = [Vec3::X, Vec3::Z, -Vec3::X, -Vec3::Z];
    let expect = [Vec3::Z, -Vec3::X, -Vec3::Z];
    for start in 0..4 {
        let mut poly = Polygon { v: [Vec3::ZERO; 8], len: 0 };
        for k in 0..4 {
            poly.push(corners[(start + k) % 4]);
        }
        let out = clip_plane(&poly, Vec3::X, 0.0);
        let got = &out.v[..out.len];
        assert_eq!(got.len(), 3, "start {start}: {got:?}");
        assert!(expect.iter().all(|e| got.contains(e)), "start {start}: {got:?}");
    }
}

fn points(list: &[((f32, f32), f32)]) -> Vec<ContactPoint> {
    list.iter().map(|&((x, z), depth)| ContactPoint { point: Vec3::new(x, 1.0, z), depth }).collect()
}

/// Six points on the plane y = 1 (normal +y), at (x, z) = (7, 3), (4, 1), (2, 7), (7, 1), (4, 7), (1, 2), the
/// first `first_depth` deep and the others 0.1, 0.6, 0.4, 0.2 and 0.3; and the manifold `reduce` makes of them.
fn reduce_six(first_depth: f32) -> (Vec<ContactPoint>, Manifold) {
    let pts = points(&[
        ((7.0, 3.0), first_depth),
        ((4.0, 1.0), 0.1),
        ((2.0, 7.0), 0.6),
        ((7.0, 1.0), 0.4),
        ((4.0, 7.0), 0.2),
        ((1.0, 2.0), 0.3),
    ]);
    let mut m = Manifold { normal: Vec3::Y, points: [ContactPoint::default(); 4], len: 0 };
    reduce(&pts, Vec3::Y, &mut m);
    (pts, m)
}

/// Six points on the plane y = 1 (normal +y), reduced to four in the documented order. Worked by hand in (x, z):
/// the deepest is (2, 7); the furthest from it is (7, 1), 61 away squared (next: (7, 3), 41); the signed
/// area with that line, −6·dx − 5·dz from (2, 7), is 31 for (1, 2), the largest in size, and on the other side
/// the most negative is −12 for (4, 7) (then −10 for (7, 3)). So (2, 7), (7, 1), (1, 2), (4, 7).
#[test]
fn reduce_keeps_the_deepest_the_furthest_the_largest_triangle_and_the_other_side_in_that_order() {
    let (pts, m) = reduce_six(0.5);
    assert_eq!(m.points(), &[pts[2], pts[3], pts[5], pts[4]], "{m:?}");
}

/// Equal scores go to the earlier point (the clipping's order), so that a flat contact, whose points are all
/// equally deep, keeps the same points frame after frame. The set above with (7, 3) as deep as (2, 7): (7, 3),
/// the first, is the deepest; then (2, 7) is furthest from it (41), the area 4·dx + 5·dz from (7, 3) is −29 for
/// (1, 2) (largest in size), and the furthest on the other side is (4, 7) at +8.
#[test]
fn reduce_breaks_ties_toward_the_earlier_point() {
    let (pts, m) = reduce_six(0.6);
    assert_eq!(m.points(), &[pts[0], pts[2], pts[5], pts[4]], "{m:?}");
}
