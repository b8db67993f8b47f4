use super::*;

#[test]
fn sides_leave_a_gap_at_the_plane() {
    let node = Node { plane: 1.0, axis: 1, right: 5, ..Node::root() };
    let at = |lo: f32, hi: f32| Aabb::new(Vec3::new(0.0, lo, 0.0), Vec3::new(0.0, hi, 0.0));
    assert_eq!(node.side(&at(0.0, 0.5)), Side::Left);
    assert_eq!(node.side(&at(0.0, 1.0)), Side::Stay, "touching the plane from the left");
    assert_eq!(node.side(&at(1.0, 2.0)), Side::Right, "starting on the plane");
    assert_eq!(node.side(&at(1.0, 1.0)), Side::Right, "a point on the plane");
    assert_eq!(node.side(&at(0.5, 1.5)), Side::Stay);
    let (llo, lhi) = node.left_region();
    let (rlo, rhi) = node.right_region();
    assert_eq!((llo.y, lhi.y, rlo.y, rhi.y), (f32::NEG_INFINITY, 1.0, 1.0, f32::INFINITY));
    assert!(Node::root().fits(&Aabb::new(Vec3::splat(-3.0e38), Vec3::splat(3.0e38))));
}

#[test]
fn spread_axis_picks_the_widest_spread_of_centres() {
    let item = |x: f32, y: f32, z: f32| Item { aabb: Aabb::from_center_radius(Vec3::new(x, y, z), 9.0), id: 0 };
    let items = [item(0.0, 0.0, 0.0), item(1.0, 5.0, 3.0), item(2.0, -1.0, 0.0)];
    assert_eq!(spread_axis(&items, None), 1);
    assert_eq!(spread_axis(&items, Some(1)), 2);
    assert_eq!(spread_axis(&[], None), 0);
}
