use super::*;
use crate::tree::Side;
use collide_math::{Aabb, Rng};

fn items(boxes: impl IntoIterator<Item = Aabb>) -> Vec<Item> {
    boxes.into_iter().enumerate().map(|(i, aabb)| Item { aabb, id: i as u32 }).collect()
}

const RULES: PlanRules = PlanRules { max_leaf: 4, max_depth: 20 };

#[test]
fn partition_follows_the_side_rule() {
    let mut rng = Rng::new(3);
    let mut v = items((0..200).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(10.0)), 0.7)));
    let node = Node { plane: 5.0, axis: 2, right: 1, ..Node::root() };
    let (s, l) = partition(&mut v, 2, 5.0);
    assert!(v[..s].iter().all(|it| node.side(&it.aabb) == Side::Stay));
    assert!(v[s..s + l].iter().all(|it| node.side(&it.aabb) == Side::Left));
    assert!(v[s + l..].iter().all(|it| node.side(&it.aabb) == Side::Right));
    let c = count(&v, 2, 5.0);
    assert_eq!((c.left, c.stay), (l, s));
}

/// Bodies spread along x, thin in y and z: the median plane on x cuts fewest, and halves them.
#[test]
fn the_cut_goes_through_the_median_on_the_axis_that_cuts_fewest() {
    let v = items((0..100).map(|i| Aabb::from_center_radius(Vec3::new(i as f32 * 3.0, 0.0, (i % 3) as f32), 1.0)));
    let cut = Planner::default().choose(&v, &RULES).unwrap();
    assert_eq!(cut.axis, 0);
    assert_eq!(cut.plane, 150.0, "the 51st centre");
    assert_eq!((cut.left, cut.stay, cut.right), (50, 1, 49), "the median body straddles its plane");
}

#[test]
fn inseparable_bodies_refuse_the_cut() {
    let mut planner = Planner::default();
    // All at one point: every plane keeps them all, or sends them all one way.
    let point = items(vec![Aabb::from_center_radius(Vec3::splat(2.0), 0.5); 20]);
    assert_eq!(planner.choose(&point, &RULES), None);
    let zero = items(vec![Aabb::from_center_radius(Vec3::splat(2.0), 0.0); 20]);
    assert_eq!(planner.choose(&zero, &RULES), None);
    // A small crowd of wide bodies: most would stay.
    let mut rng = Rng::new(4);
    let crowd = items((0..20).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::ONE), 1.0)));
    assert_eq!(planner.choose(&crowd, &RULES), None);
}

/// A planned subtree: pre-order links, regions cut at the planes, leaves at most `max_leaf` (or refused), and
/// every body on the side of each plane its box is on.
#[test]
fn a_planned_subtree_is_well_formed() {
    let mut rng = Rng::new(9);
    for n in [0, 3, 50, 5000] {
        let mut v = items((0..n).map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(50.0)), 0.3)));
        let mut out = vec![Node::root()];
        let mut planner = Planner::default();
        let root = planner.plan(&mut v, (Vec3::NEG_INFINITY, Vec3::INFINITY), 1, 0, &RULES, &mut out);
        assert_eq!(root, 1);
        assert_eq!(out[1].end as usize, out.len());
        for (i, node) in out.iter().enumerate().skip(1) {
            if !node.is_leaf() {
                let (l, r) = (&out[i + 1], &out[node.right as usize]);
                assert_eq!((l.parent, r.parent), (i as u32, i as u32));
                assert_eq!(l.end, node.right);
                assert_eq!(r.end, node.end);
                assert_eq!((l.lo, l.hi), node.left_region());
                assert_eq!((r.lo, r.hi), node.right_region());
                assert_ne!(node.sweep, node.axis);
            }
        }
        let leaves = out.iter().skip(1).filter(|n| n.is_leaf()).count();
        assert!(n < 5 || leaves >= n / RULES.max_leaf as usize / 2, "{n} bodies, {leaves} leaves");
        assert!(planner.planned >= n as u64);
    }
}

/// A whole tree laid out by the planner is a valid tree as it stands (every body where a descent from the root
/// puts it, each node's own items sorted for its sweep, the spans tiling the items in pre-order), and planning
/// its large nodes' two sides on two threads lays out the same tree as planning them on one.
#[test]
fn a_planned_tree_is_laid_out_as_the_tree_stores_it_on_one_thread_or_two() {
    let mut rng = Rng::new(21);
    let boxes: Vec<Aabb> = (0..6000)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(80.0)), rng.range_f32(0.1, 2.0)))
        .collect();
    let rules = PlanRules { max_leaf: 16, max_depth: 32 };
    let plan = |parallelism: Parallelism| {
        let (mut v, mut nodes, mut spans) = (items(boxes.iter().copied()), Vec::new(), Vec::new());
        let mut planner = Planner::default();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool");
        pool.install(|| planner.plan_tree(&mut v, &rules, parallelism, &mut nodes, &mut spans));
        let view = crate::validate::TreeView {
            nodes: &nodes,
            spans: &spans,
            items: &v,
            bodies: boxes.len(),
            excluded: &[],
            pending: &[],
            max_depth: rules.max_depth,
        };
        crate::validate::validate(&view).unwrap_or_else(|e| panic!("{parallelism:?}: {e}"));
        assert!(nodes.len() > 300, "{} nodes", nodes.len());
        (nodes, spans, v, planner.planned)
    };
    let serial = plan(Parallelism::SERIAL);
    let parallel = plan(Parallelism::with_min_work(500));
    assert!(serial == parallel, "the two threads' tree differs from the one thread's");
}
