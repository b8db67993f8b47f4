use super::*;
use collide_math::{Rng, Vec3};

/// Collects every pair a restricted join reports, smaller body first.
#[derive(Default)]
struct Collect(Vec<(u32, u32)>);

impl LeafPairs for Collect {
    fn pair(&mut self, a: u32, _: &Aabb, b: u32, _: &Aabb) {
        self.0.push((a.min(b), a.max(b)));
    }
}

fn random_box(rng: &mut Rng) -> Aabb {
    Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(30.0)), rng.range_f32(0.2, 1.5))
}

/// A tree of `n` random boxes; each body's leaf and box.
fn random_tree(rng: &mut Rng, n: u32, first: u32) -> (Tree, Vec<(u32, Aabb)>) {
    let mut tree = Tree::default();
    let mut changes = Changes::default();
    let leaves = (0..n)
        .map(|i| {
            let b = random_box(rng);
            (tree.insert(first + i, b, &mut changes), b)
        })
        .collect();
    (tree, leaves)
}

/// Give a random share of the leaves a box nearby (or far, every tenth), mark and refit; returns the moved bodies.
fn move_some(rng: &mut Rng, tree: &mut Tree, leaves: &mut [(u32, Aabb)], share: f32, first: u32) -> Vec<u32> {
    tree.prepare_dirty();
    let mut moved = Vec::new();
    for (i, (leaf, b)) in leaves.iter_mut().enumerate() {
        if rng.next_f32() >= share {
            continue;
        }
        let shift = if i % 10 == 0 { rng.unit_vector() * 12.0 } else { rng.unit_vector() * 0.7 };
        *b = Aabb::new(b.min + shift, b.max + shift);
        tree.set_leaf_box(*leaf, *b);
        tree.mark_up(*leaf);
        moved.push(first + i as u32);
    }
    moved
}

/// The pairs of overlapping boxes with at least one moved body, by testing every pair.
fn brute(a: &[(u32, Aabb)], fa: u32, b: &[(u32, Aabb)], fb: u32, moved: &[u32], same: bool) -> Vec<(u32, u32)> {
    let mut want = Vec::new();
    for (i, (_, x)) in a.iter().enumerate() {
        let from = if same { i + 1 } else { 0 };
        for (j, (_, y)) in b.iter().enumerate().skip(from) {
            let (p, q) = (fa + i as u32, fb + j as u32);
            if x.overlaps(y) && (moved.contains(&p) || moved.contains(&q)) {
                want.push((p.min(q), p.max(q)));
            }
        }
    }
    want.sort_unstable();
    want
}

fn check(tree: &Tree, leaves: &[(u32, Aabb)], first: u32) {
    tree.check(|i, n| {
        let (leaf, b) = leaves[(n.body() - first) as usize];
        if leaf != i || n.aabb != b { Err(format!("leaf {i} for body {}", n.body())) } else { Ok(()) }
    })
    .unwrap();
}

/// Refits of a tenth to all of the leaves keep the tree valid (exact unions, heights, links) with rotations, and
/// the restricted self-join finds exactly the overlapping pairs with a moved body, as testing every pair does.
#[test]
fn refits_keep_the_tree_valid_and_the_join_finds_the_moved_pairs() {
    let mut rng = Rng::new(77);
    let (mut tree, mut leaves) = random_tree(&mut rng, 700, 0);
    let (mut changes, mut stack, mut pairs) = (Changes::default(), Vec::new(), Vec::new());
    for (round, share) in [0.1, 0.5, 1.0, 0.02, 0.3, 0.0].into_iter().enumerate() {
        let moved = move_some(&mut rng, &mut tree, &mut leaves, share, 0);
        tree.refit_dirty(&mut stack, &mut changes);
        let mut got = Collect::default();
        let _ = dirty_self_pairs(&tree, &mut pairs, &mut got);
        got.0.sort_unstable();
        assert_eq!(got.0, brute(&leaves, 0, &leaves, 0, &moved, true), "round {round}");
        tree.clear_dirty();
        check(&tree, &leaves, 0);
        assert!(tree.sah_cost() > 1.0);
    }
    assert!(changes.rotations > 0, "no rotation in six refits");
}

/// The cross join of two trees finds the overlapping pairs with a moved body on either side.
#[test]
fn the_cross_join_finds_the_moved_pairs_of_two_trees() {
    let mut rng = Rng::new(78);
    let (mut a, mut la) = random_tree(&mut rng, 300, 0);
    let (mut b, mut lb) = random_tree(&mut rng, 200, 300);
    let (mut changes, mut stack, mut pairs) = (Changes::default(), Vec::new(), Vec::new());
    let mut moved = move_some(&mut rng, &mut a, &mut la, 0.2, 0);
    moved.extend(move_some(&mut rng, &mut b, &mut lb, 0.1, 300));
    a.refit_dirty(&mut stack, &mut changes);
    b.refit_dirty(&mut stack, &mut changes);
    let mut got = Collect::default();
    let _ = dirty_cross_pairs(&a, &b, &mut pairs, &mut got);
    got.0.sort_unstable();
    assert_eq!(got.0, brute(&la, 0, &lb, 300, &moved, false));
    for t in [&mut a, &mut b] {
        t.clear_dirty();
    }
    check(&a, &la, 0);
    check(&b, &lb, 300);
}

/// Nothing marked: the refit and the joins touch nothing.
#[test]
fn an_unmarked_tree_costs_nothing() {
    let mut rng = Rng::new(79);
    let (mut tree, _) = random_tree(&mut rng, 100, 0);
    tree.prepare_dirty();
    let mut changes = Changes::default();
    tree.refit_dirty(&mut Vec::new(), &mut changes);
    let mut got = Collect::default();
    let tally = dirty_self_pairs(&tree, &mut Vec::new(), &mut got);
    assert_eq!((changes, tally.work, got.0.len()), (Changes::default(), 0, 0));
}
