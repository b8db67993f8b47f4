use super::*;
use collide_broadphase::conformance::{assert_conforms, pair_snapshot, snapshot_scenes};

#[test]
fn conforms() {
    assert_conforms(|| Box::new(BruteForce::new()));
}

#[test]
fn snapshots_of_small_scenes() {
    for scene in snapshot_scenes() {
        insta::assert_snapshot!(scene.name, pair_snapshot(&mut BruteForce::new(), scene.name));
    }
}

#[test]
fn counts_every_pair_test() {
    let aabbs = vec![collide_broadphase::Aabb::default(); 10];
    let mut out = PairList::new();
    let mut bp = BruteForce::new();
    bp.find_pairs(&Frame::new(&aabbs), &mut out);
    assert_eq!(out.len(), 45);
    assert_eq!(bp.stats().pair_tests, 45);
}
