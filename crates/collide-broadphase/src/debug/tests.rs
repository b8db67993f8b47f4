use super::*;

/// `clear` empties both lists and keeps their allocations, so that drawing every frame allocates nothing once
/// warm.
#[test]
fn clear_empties_the_boxes_and_segments_and_keeps_their_room() {
    let mut geometry = DebugGeometry::default();
    geometry.boxes.push(DebugBox { aabb: Aabb::new(Vec3::ZERO, Vec3::ONE), depth: 1 });
    geometry.segments.push([Vec3::ZERO, Vec3::X]);
    geometry.segments.push([Vec3::Y, Vec3::Z]);
    let room = (geometry.boxes.capacity(), geometry.segments.capacity());
    geometry.clear();
    assert!(geometry.boxes.is_empty() && geometry.segments.is_empty());
    assert_eq!((geometry.boxes.capacity(), geometry.segments.capacity()), room);
}
