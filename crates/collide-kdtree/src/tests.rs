use crate::{InvalidBoxes, KdConfig, KdTree};
use collide_broadphase::conformance::{assert_conforms, pair_snapshot, snapshot_scenes};
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, Parallelism, reference_pairs};
use collide_math::{Rng, Vec3};

/// A threshold low enough that the kit's small scenes take the parallel paths (the shipped
/// [`Parallelism::default`] is tested by the tests that use `KdConfig::default()`).
const FORCED: Parallelism = Parallelism::with_min_work(64);

/// Run `f` on a rayon pool of two threads, so that the parallel paths run even on a one-core machine.
fn on_two_threads<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool").install(f)
}

fn config(max_leaf: u32, max_depth: u32) -> KdConfig {
    KdConfig { max_leaf, max_depth, parallelism: FORCED, ..KdConfig::default() }
}

/// Find `aabbs`' pairs with `bp`, check its invariants, and assert the pairs equal the brute-force reference.
fn assert_matches_reference(bp: &mut dyn Broadphase, frame: &Frame<'_>, label: &str) -> PairList {
    let (mut out, mut want) = (PairList::new(), PairList::new());
    bp.find_pairs(frame, &mut out);
    if let Err(e) = bp.validate() {
        panic!("{label}: {e}");
    }
    reference_pairs(frame.aabbs, &mut want);
    out.sort();
    assert_eq!(out, want, "{label}");
    out
}

#[test]
fn conforms_with_default_parameters() {
    assert_conforms(|| Box::new(KdTree::default()));
}

#[test]
fn conforms_with_small_leaves_shallow_depths_and_forced_parallelism() {
    on_two_threads(|| {
        for (leaf, depth) in [(1, 32), (2, 4), (8, 0), (3, 1), (32, 12), (1, 48)] {
            assert_conforms(|| Box::new(KdTree::new(config(leaf, depth))));
        }
    });
}

/// A period of one frame and the tightest ratio: the balance check runs every frame and moves planes whenever the
/// sides differ at all, so re-planned subtrees meet every sequence of the kit.
#[test]
fn conforms_when_planes_move_every_frame() {
    on_two_threads(|| {
        let every_frame = KdConfig { period: 1.0 / 120.0, max_ratio: 1.0, ..config(4, 32) };
        assert_conforms(|| Box::new(KdTree::new(every_frame)));
    });
}

#[test]
fn snapshots_of_small_scenes() {
    for scene in snapshot_scenes() {
        let name = format!("kd-{}", scene.name);
        insta::assert_snapshot!(name, pair_snapshot(&mut KdTree::default(), scene.name));
    }
}

#[test]
fn all_bodies_at_one_point_terminate_with_every_pair() {
    for half in [0.0, 0.5] {
        let aabbs = vec![Aabb::from_center_radius(Vec3::splat(3.0), half); 300];
        let mut bp = KdTree::new(config(1, 48));
        for step in 0..3 {
            let out = assert_matches_reference(&mut bp, &Frame::new(&aabbs).with_step(step), "one point");
            assert_eq!(out.len(), 300 * 299 / 2);
        }
        assert_eq!(bp.stats().get("nodes"), Some(1.0), "no plane separates them: {}", bp.stats());
    }
}

/// Invalid boxes in release builds: they overlap nothing, the others' pairs are exact, and a body whose box
/// becomes valid again is back in the answer.
#[test]
fn invalid_boxes_overlap_nothing_and_come_back() {
    let mut rng = Rng::new(41);
    let mut aabbs: Vec<Aabb> = (0..2000)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(30.0)), rng.range_f32(0.2, 1.5)))
        .collect();
    let good = aabbs.clone();
    let nan = Aabb::new(Vec3::new(f32::NAN, 1.0, 1.0), Vec3::splat(2.0));
    let inf = Aabb::new(Vec3::splat(f32::NEG_INFINITY), Vec3::splat(f32::INFINITY));
    let inverted = Aabb::new(Vec3::splat(5.0), Vec3::new(6.0, 4.0, 6.0));
    let bad = [(3, nan), (500, inf), (1999, inverted), (1000, Aabb::new(Vec3::splat(1.0), Vec3::splat(f32::NAN)))];
    on_two_threads(|| {
        let mut bp = KdTree::new(KdConfig { invalid: InvalidBoxes::Skip, ..config(4, 32) });
        for step in 0..6u64 {
            // Frames 1..4 carry the invalid boxes; frame 0 and 5 do not.
            aabbs.clone_from(&good);
            if (1..5).contains(&step) {
                for &(i, b) in &bad {
                    aabbs[i] = b;
                }
            }
            let (mut out, mut want) = (PairList::new(), PairList::new());
            bp.find_pairs(&Frame::new(&aabbs).with_step(step), &mut out);
            bp.validate().unwrap();
            // The reference without the invalid bodies: theirs are the pairs nobody may report.
            let mut masked = aabbs.clone();
            for &(i, _) in bad.iter().filter(|_| (1..5).contains(&step)) {
                masked[i] = Aabb::new(Vec3::splat(1.0e9 + i as f32 * 10.0), Vec3::splat(1.0e9 + i as f32 * 10.0));
            }
            reference_pairs(&masked, &mut want);
            out.sort();
            assert_eq!(out, want, "step {step}");
            let excluded = bp.stats().get("excluded").unwrap();
            assert_eq!(excluded, if (1..5).contains(&step) { 4.0 } else { 0.0 }, "step {step}");
        }
    });
}

#[test]
#[should_panic(expected = "body 7 has an invalid box")]
fn invalid_boxes_panic_naming_the_body_when_asked_to() {
    let mut aabbs = vec![Aabb::from_center_radius(Vec3::ONE, 1.0); 10];
    aabbs[7] = Aabb::new(Vec3::splat(2.0), Vec3::splat(1.0));
    let mut bp = KdTree::new(KdConfig { invalid: InvalidBoxes::Panic, ..KdConfig::default() });
    bp.find_pairs(&Frame::new(&aabbs), &mut PairList::new());
}

#[test]
fn the_default_for_invalid_boxes_follows_the_build() {
    let want = if cfg!(debug_assertions) { InvalidBoxes::Panic } else { InvalidBoxes::Skip };
    assert_eq!(KdConfig::default().invalid, want);
}

/// Coordinates near ±10³⁰ and one body larger than the rest of the world: exact pairs, a valid tree.
#[test]
fn huge_coordinates_and_a_huge_body() {
    let mut rng = Rng::new(5);
    for scale in [1.0e30f32, -1.0e30, 1.0e4] {
        let shift = Vec3::new(scale, -scale, scale * 0.5);
        let mut aabbs: Vec<Aabb> = (0..800)
            .map(|_| {
                let c = shift + rng.point_in(Vec3::ZERO, Vec3::splat(scale.abs() * 1.0e-3));
                Aabb::from_center_radius(c, scale.abs() * rng.range_f32(1.0e-6, 4.0e-5))
            })
            .collect();
        aabbs.insert(400, Aabb::new(shift - Vec3::splat(scale.abs()), shift + Vec3::splat(scale.abs())));
        let mut bp = KdTree::new(config(4, 32));
        let out = assert_matches_reference(&mut bp, &Frame::new(&aabbs), &format!("scale {scale}"));
        assert_eq!(out.iter().filter(|p| p.a == 400 || p.b == 400).count(), 800, "the huge body meets all");
    }
}
