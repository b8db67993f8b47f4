use super::*;
use collide_math::{Rng, Vec3};

fn check(tree: &Tree, boxes: &[Option<(u32, Aabb)>]) {
    tree.check(|i, n| {
        let (leaf, b) = boxes[n.body() as usize].ok_or(format!("leaf {i} holds a removed body"))?;
        if leaf != i || n.aabb != b { Err(format!("leaf {i} for body {}", n.body())) } else { Ok(()) }
    })
    .unwrap();
}

/// Insert, move and remove bodies at random, checking the whole tree after every change; queries always find
/// exactly the overlapping leaves.
#[test]
fn random_changes_keep_the_tree_valid() {
    let mut rng = Rng::new(41);
    let mut tree = Tree::default();
    let mut changes = Changes::default();
    let mut bodies: Vec<Option<(u32, Aabb)>> = Vec::new();
    let random_box =
        |rng: &mut Rng| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(30.0)), rng.range_f32(0.1, 2.0));
    for step in 0..3000 {
        match rng.below(4) {
            0 | 1 => {
                let b = random_box(&mut rng);
                let leaf = tree.insert(bodies.len() as u32, b, &mut changes);
                bodies.push(Some((leaf, b)));
            }
            2 if !bodies.is_empty() => {
                let i = rng.below(bodies.len() as u32) as usize;
                if let Some((leaf, _)) = bodies[i] {
                    let b = random_box(&mut rng);
                    tree.reinsert(leaf, b, &mut changes);
                    bodies[i] = Some((leaf, b));
                }
            }
            _ if !bodies.is_empty() => {
                let i = rng.below(bodies.len() as u32) as usize;
                if let Some((leaf, _)) = bodies[i].take() {
                    tree.remove(leaf, &mut changes);
                }
            }
            _ => {}
        }
        if step % 97 == 0 || step > 2950 {
            check(&tree, &bodies);
            let q = random_box(&mut rng);
            let mut got = Vec::new();
            tree.query(&q, &mut Vec::new(), |b| got.push(b));
            got.sort_unstable();
            let want: Vec<u32> =
                (0..bodies.len() as u32).filter(|&i| bodies[i as usize].is_some_and(|(_, b)| b.overlaps(&q))).collect();
            assert_eq!(got, want, "step {step}");
        }
    }
    assert!(changes.rotations > 0);
}

/// Bodies inserted in sorted order along a line make a degenerate tree without rotations (each new leaf
/// pairs with the last); the rotations keep the height logarithmic and the area cost lower.
#[test]
fn rotations_keep_a_sorted_insertion_shallow() {
    let mut tree = Tree::default();
    let mut changes = Changes::default();
    let mut bodies = Vec::new();
    for i in 0..1024 {
        let b = Aabb::from_center_radius(Vec3::new(i as f32, 0.0, 0.0), 0.4);
        bodies.push(Some((tree.insert(i, b, &mut changes), b)));
    }
    check(&tree, &bodies);
    assert!(tree.height() <= 24, "height {} for 1024 leaves", tree.height());
    assert!(changes.rotations > 500, "{changes:?}");
}

/// Identical boxes (all bodies at one point) and huge coordinates: the searches end and the tree stays valid.
#[test]
fn degenerate_boxes_terminate() {
    let mut tree = Tree::default();
    let mut changes = Changes::default();
    let mut bodies = Vec::new();
    let point = Aabb::from_center_radius(Vec3::splat(3.0), 0.0);
    let huge = Aabb::new(Vec3::splat(-1.0e30), Vec3::splat(1.0e30));
    let far = Aabb::from_center_radius(Vec3::splat(3.0e38), 1.0e38);
    for i in 0..300u32 {
        let b = [point, huge, far][i as usize % 3];
        bodies.push(Some((tree.insert(i, b, &mut changes), b)));
    }
    check(&tree, &bodies);
    let mut hits = 0;
    tree.query(&point, &mut Vec::new(), |_| hits += 1);
    assert_eq!(hits, 200);
}
