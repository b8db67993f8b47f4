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
