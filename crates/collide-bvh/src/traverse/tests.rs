use super::*;
use crate::karras::Builder;
use collide_broadphase::{PairList, reference_pairs};
use collide_math::{Rng, Vec3};

fn boxes(seed: u64, n: usize, spread: f32) -> Vec<Aabb> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(spread)), rng.range_f32(0.2, 1.5)))
        .collect()
}

fn sorted(mut v: Vec<Pair>) -> Vec<Pair> {
    v.sort_unstable();
    v
}

/// Small and large scenes, sparse and crowded (thousands of pairs: the found buffer flushes mid-task), tasks
/// of every size from single nodes to the whole tree, serial and parallel.
#[test]
fn the_self_join_is_the_reference_on_both_paths() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (n, spread) in [(0, 1.0), (1, 1.0), (2, 1.0), (3, 1.0), (5, 1.0), (1500, 30.0), (400, 3.0)] {
        let b = boxes(n as u64, n, spread);
        let mut bvh = FlatBvh::default();
        Builder::default().build(&mut bvh, &b, Parallelism::SERIAL);
        let mut want = PairList::new();
        reference_pairs(&b, &mut want);
        for (limit, p) in
            [(u32::MAX, Parallelism::SERIAL), (1, Parallelism::SERIAL), (16, Parallelism::with_min_work(0))]
        {
            let mut out = vec![Pair::new(0, 99)];
            let mut tasks = Vec::new();
            plan(&bvh, limit, &mut Vec::new(), &mut tasks);
            let tally = pool.install(|| self_pairs(&bvh, |i| i, &tasks, &mut PairChunks::default(), p, &mut out));
            assert_eq!(out.remove(0), Pair::new(0, 99), "appends");
            assert_eq!(sorted(out), want.as_slice(), "n {n}, limit {limit}, {p:?}");
            assert!(tally.pair_tests >= want.len() as u64);
        }
    }
}

#[test]
fn a_query_finds_the_overlapping_leaves() {
    let b = boxes(9, 700, 20.0);
    let mut bvh = FlatBvh::default();
    Builder::default().build(&mut bvh, &b, Parallelism::SERIAL);
    let mut stack = Vec::new();
    for q in boxes(10, 50, 20.0) {
        let mut got = Vec::new();
        query(&bvh, &q, &mut stack, |k| got.push(bvh.item(k)));
        got.sort_unstable();
        let want: Vec<u32> = (0..b.len() as u32).filter(|&i| b[i as usize].overlaps(&q)).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn runs_name_their_leaves() {
    for (first, count) in [(0, 1), (17, 4), (MAX_LEAVES as u32 - 4, 4), (5, BUCKET)] {
        assert_eq!(run_range(run(first, count)), first as usize..(first + count) as usize);
    }
}
