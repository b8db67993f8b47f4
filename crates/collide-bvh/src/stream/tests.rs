use super::*;
use collide_broadphase::reference_pairs;
use collide_math::{Rng, Vec3};

fn sorted(mut v: Vec<Pair>) -> Vec<Pair> {
    v.sort_unstable();
    v
}

fn answer(boxes: &[Aabb]) -> Vec<Pair> {
    let mut want = collide_broadphase::PairList::new();
    reference_pairs(boxes, &mut want);
    sorted(want.as_mut_vec().clone())
}

/// Bodies drifting a little each call: the first call builds, the next ones refit (the tree checked after each),
/// and every call's pairs are brute force's; a body turning unusable and usable again forces a build. Serial and
/// on two threads with the parallel passes forced; with the shipped pieces (500 bodies: one piece) and with
/// pieces of at most 2 and 8 leaves (hundreds of pieces, grouped into the most tasks, and the nodes above them).
#[test]
fn refits_follow_drifting_bodies_exactly() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (cut, parallelism) in [
        (RefitCut::default(), Parallelism::SERIAL),
        (RefitCut::default(), Parallelism::with_min_work(0)),
        (RefitCut(8), Parallelism::SERIAL),
        (RefitCut(8), Parallelism::with_min_work(0)),
        (RefitCut(2), Parallelism::with_min_work(0)),
    ] {
        let mut rng = Rng::new(3);
        let mut centers: Vec<Vec3> = (0..500).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(25.0))).collect();
        let mut stream = Stream { cut, ..Stream::default() };
        let (mut refits, mut out) = (0, Vec::new());
        for call in 0..40 {
            let mut boxes: Vec<Aabb> = centers.iter().map(|&c| Aabb::from_center_radius(c, 0.6)).collect();
            if call == 20 {
                boxes[7] = Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE);
            }
            out.clear();
            let _ = pool.install(|| stream.run(&boxes, parallelism, &mut out));
            stream.check().unwrap();
            let usable: Vec<Aabb> = boxes
                .iter()
                .map(|b| if is_usable(b) { *b } else { Aabb::new(Vec3::splat(1e30), Vec3::splat(-1e30)) })
                .collect();
            assert_eq!(sorted(out.clone()), answer(&usable), "cut {cut:?}, {parallelism:?}, call {call}");
            if matches!(call, 0 | 20 | 21) {
                assert!(stream.rebuilt, "call {call} must build");
            }
            refits += usize::from(!stream.rebuilt);
            for c in &mut centers {
                *c += rng.unit_vector() * 0.15;
            }
        }
        assert!(refits > 30, "{refits} refits");
        let pieces = stream.pieces.len();
        match cut.0 {
            REFIT_CUT => assert_eq!((pieces, stream.top.len()), (1, 0), "500 leaves are one piece"),
            c => assert!(pieces > REFIT_TASKS && !stream.top.is_empty(), "cut {c}: {pieces} pieces"),
        }
    }
}

/// The refit's SAH cost is summed in the same order whatever the threads: the same cost, bit for bit, serial and
/// on two threads (the cost decides when the tree is rebuilt, and so the order of the pairs).
#[test]
fn the_refit_cost_does_not_depend_on_the_threads() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut rng = Rng::new(5);
    let frames: Vec<Vec<Aabb>> = {
        let mut centers: Vec<Vec3> = (0..3000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(60.0))).collect();
        (0..6)
            .map(|_| {
                centers.iter_mut().for_each(|c| *c += rng.unit_vector() * 0.2);
                centers.iter().map(|&c| Aabb::from_center_radius(c, 0.6)).collect()
            })
            .collect()
    };
    let costs = |parallelism: Parallelism| {
        let mut stream = Stream { cut: RefitCut(16), ..Stream::default() };
        let mut out = Vec::new();
        let mut costs = Vec::new();
        for boxes in &frames {
            let _ = pool.install(|| stream.run(boxes, parallelism, &mut out));
            costs.push(stream.cost.to_bits());
        }
        costs
    };
    assert_eq!(costs(Parallelism::SERIAL), costs(Parallelism::with_min_work(0)));
}

/// Bodies that scatter far past their neighbours degrade the refitted tree: it is rebuilt before its cost passes
/// the factor for long.
#[test]
fn a_degraded_tree_is_rebuilt() {
    let mut rng = Rng::new(4);
    let centers: Vec<Vec3> = (0..400).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(20.0))).collect();
    let velocities: Vec<Vec3> = (0..400).map(|_| rng.unit_vector() * 2.0).collect();
    let mut stream = Stream::default();
    let (mut builds, mut out) = (0, Vec::new());
    for call in 0..30 {
        let boxes: Vec<Aabb> = centers
            .iter()
            .zip(&velocities)
            .map(|(&c, &v)| Aabb::from_center_radius(c + v * call as f32, 0.5))
            .collect();
        out.clear();
        let _ = stream.run(&boxes, Parallelism::SERIAL, &mut out);
        assert_eq!(sorted(out.clone()), answer(&boxes), "call {call}");
        builds += usize::from(stream.rebuilt);
    }
    assert!(builds > 1, "never rebuilt");
}
