use super::*;
use crate::plan::{PlanRules, Planner};
use crate::tree::Item;
use collide_math::{Rng, Vec3};

/// From any start node, [`place`] finds the node the root's descent finds.
#[test]
fn placing_from_anywhere_agrees_with_the_root() {
    let mut rng = Rng::new(12);
    let mut items: Vec<Item> = (0..3000)
        .map(|i| Item {
            aabb: Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(40.0)), rng.range_f32(0.1, 2.0)),
            id: i,
        })
        .collect();
    let mut nodes = Vec::new();
    let rules = PlanRules { max_leaf: 8, max_depth: 30 };
    Planner::default().plan(&mut items, (Vec3::NEG_INFINITY, Vec3::INFINITY), 0, u32::MAX, &rules, &mut nodes);
    assert!(nodes.len() > 300);
    for _ in 0..2000 {
        let b = Aabb::from_center_radius(rng.point_in(Vec3::splat(-5.0), Vec3::splat(45.0)), rng.range_f32(0.0, 3.0));
        let want = descend(&nodes, 0, &b);
        let from = rng.below(nodes.len() as u32);
        assert_eq!(place(&nodes, from, &b), want, "{b:?} from {from}");
        let node = &nodes[want as usize];
        assert!(node.fits(&b));
        assert!(node.is_leaf() || node.side(&b) == Side::Stay);
    }
}
