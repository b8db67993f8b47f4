use super::*;
use collide_math::Rng;

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool").install(f)
}

/// Every pair of a random cloud, tested one by one (the answer), against the batch on every path: serial,
/// forced parallel on 2 and 4 threads, and the shipped threshold — same contacts, same order.
#[test]
fn the_batch_keeps_exactly_the_touching_pairs_in_order_on_every_path() {
    let mut rng = Rng::new(5);
    let n = 3000;
    let position: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(30.0))).collect();
    let radius: Vec<f32> = (0..n).map(|_| rng.range_f32(0.3, 0.9)).collect();
    let mut pairs = Vec::new();
    for _ in 0..3 * PAIRS_PER_CHUNK + 17 {
        let (i, j) = (rng.below(n as u32), rng.below(n as u32));
        if i != j {
            pairs.push(Pair::new(i, j));
        }
    }
    // Neighbours in a sorted cloud touch often: add pairs that do, so that both outcomes are common.
    pairs.extend((0..2000u32).map(|i| Pair::new(i, i + 1)));
    let want: Vec<(Pair, Contact)> = pairs
        .iter()
        .filter_map(|&p| {
            let (a, b) = (p.a as usize, p.b as usize);
            sphere_sphere(position[a], radius[a], position[b], radius[b]).map(|c| (p, c))
        })
        .collect();
    assert!(!want.is_empty() && want.len() < pairs.len(), "both outcomes occur");
    for (threads, parallelism) in [
        (1, Parallelism::with_min_work(0)),
        (2, Parallelism::with_min_work(0)),
        (4, Parallelism::with_min_work(0)),
        (2, Parallelism::SERIAL),
        (2, Parallelism::default()),
    ] {
        let mut batch = SphereContacts::default();
        let mut out = vec![(Pair::new(1, 2), want[0].1)];
        in_pool(threads, || batch.find(parallelism, &pairs, &position, &radius, &mut out));
        assert_eq!(out, want, "{threads} threads, {parallelism:?}");
    }
}

/// The batch is cut into chunks of [`PAIRS_PER_CHUNK`] pairs (fewer under a lowered threshold) only when the
/// parallelism says so for the whole batch and there are two chunks at least; otherwise it runs serially. The
/// answer is the same either way (above), so this pins the cut itself.
#[test]
fn a_batch_is_cut_into_chunks_only_above_the_threshold_and_from_two_chunks() {
    let big = 3 * PAIRS_PER_CHUNK + 17;
    in_pool(2, || {
        assert_eq!(chunk_plan(Parallelism::with_min_work(PAIRS_PER_CHUNK), big), Some((PAIRS_PER_CHUNK, 4)));
        assert_eq!(chunk_plan(Parallelism::default(), 10_000), Some((PAIRS_PER_CHUNK, 3)));
        // Below the shipped threshold, though two chunks' worth.
        assert_eq!(chunk_plan(Parallelism::default(), Parallelism::DEFAULT_MIN_WORK - 1), None);
        // One chunk's worth, whatever the threshold.
        assert_eq!(chunk_plan(Parallelism::with_min_work(PAIRS_PER_CHUNK), PAIRS_PER_CHUNK), None);
        assert_eq!(chunk_plan(Parallelism::with_min_work(0), 16), None);
        assert_eq!(chunk_plan(Parallelism::SERIAL, big), None);
        // A threshold below a chunk makes chunks that small (at least 16 pairs), so that small scenes split.
        assert_eq!(chunk_plan(Parallelism::with_min_work(20), 50), Some((20, 3)));
        assert_eq!(chunk_plan(Parallelism::with_min_work(0), big), Some((16, big.div_ceil(16))));
        assert_eq!(chunk(&vec![Pair::new(0, 1); 50], 20, 2).len(), 10, "the last chunk is the rest");
    });
    // One thread: never cut.
    in_pool(1, || assert_eq!(chunk_plan(Parallelism::with_min_work(0), big), None));
}
