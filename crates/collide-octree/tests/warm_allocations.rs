//! A warmed-up octree allocates nothing per frame: node pool, items, presort keys, slabs, layers, strips and pair
//! buffers are all kept across frames. Its own test binary, because it counts every allocation of the process
//! with a global allocator.
//!
//! The scene cycles through the same few configurations, a cloud that breathes between its full size and a dense
//! quarter of it and rests for three frames at its full size (so that the static tree is built, walked and
//! dropped), and frames come with and without the motion hint. Frames run in blocks of two cycles
//! until three blocks in a row allocate nothing — within a bounded number of blocks — and the two blocks after
//! them must allocate **nothing**, on a local pool of two threads (the parallel build, join, searches and walk at
//! the shipped threshold) and serially.

use collide_broadphase::conformance::{CountingAllocator, PermutingRun, in_pool};
use collide_broadphase::{Broadphase, Frame, PairList, Parallelism};
use collide_math::{Aabb, Rng, Vec3};
use collide_octree::{Octree, OctreeConfig, Variant};
use std::sync::{Mutex, PoisonError};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Frames per breath of the cloud.
const PERIOD: usize = 6;
/// Frames per block.
const BLOCK: usize = 2 * PERIOD;
/// The most warm-up blocks before the test gives up, and the quiet blocks in a row that end the warm-up.
const MAX_WARMUP_BLOCKS: usize = 12;
const QUIET_BLOCKS: usize = 3;

/// Frame `f`: a cloud that breathes between its full size and a dense quarter of it (so that both the sparse and
/// the crowded trees are met) and holds its full size for three frames (so that every body rests, the static tree
/// is built and walked, and dropped when the cloud moves on), every tenth body always at rest.
fn frame(base: &[Vec3], f: usize, out: &mut Vec<Aabb>) {
    out.clear();
    out.extend((0..base.len()).map(|i| body(base, f, i)));
}

/// Body `i`'s box at frame `f` of that scene.
fn body(base: &[Vec3], f: usize, i: usize) -> Aabb {
    let scale = [1.0, 1.0, 1.0, 0.6, 0.25, 0.6][f % PERIOD];
    let c = base[i];
    let c = if i.is_multiple_of(10) { c } else { Vec3::splat(30.0) + (c - Vec3::splat(30.0)) * scale };
    Aabb::from_center_radius(c, 0.5)
}

/// The bytes allocated by two blocks after the warm-up, for `variant` on `threads` threads.
fn warm_bytes(base: &[Vec3], variant: Variant, threads: usize, parallelism: Parallelism) -> usize {
    let mut bp = Octree::new(variant, OctreeConfig { parallelism, ..OctreeConfig::default() });
    let (mut aabbs, mut previous, mut moved, mut out) = (Vec::new(), Vec::new(), Vec::new(), PairList::new());
    in_pool(threads, || {
        let mut f = 0;
        // The bytes one block allocates, and the static trees it built.
        let mut block = |bp: &mut Octree| {
            let (before, mut rebuilt) = (CountingAllocator::bytes(), 0.0);
            for _ in 0..BLOCK {
                frame(base, f, &mut aabbs);
                // Every other block with the exact motion hint (the first frame has nothing to compare with).
                let frame = Frame::new(&aabbs).with_step(f as u64);
                if (f / BLOCK) % 2 == 1 && previous.len() == aabbs.len() {
                    moved.clear();
                    moved.extend(previous.iter().zip(&aabbs).map(|(p, a)| p != a));
                    bp.find_pairs(&frame.with_moved(&moved), &mut out);
                } else {
                    bp.find_pairs(&frame, &mut out);
                }
                previous.clone_from(&aabbs);
                rebuilt += bp.stats().get("static_rebuilt").unwrap_or(0.0);
                f += 1;
            }
            (CountingAllocator::bytes() - before, rebuilt)
        };
        let mut quiet = 0;
        for _ in 0..MAX_WARMUP_BLOCKS {
            quiet = if block(&mut bp).0 == 0 { quiet + 1 } else { 0 };
            if quiet == QUIET_BLOCKS {
                break;
            }
        }
        assert_eq!(quiet, QUIET_BLOCKS, "{}: still allocating after {MAX_WARMUP_BLOCKS} blocks", variant.name());
        let ((first, a), (second, b)) = (block(&mut bp), block(&mut bp));
        assert!(!out.is_empty());
        assert!(a + b >= 2.0, "{}: the resting frames built static trees", variant.name());
        first + second
    })
}

/// The tests of this binary count the allocations of the whole process: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn a_warm_octree_allocates_nothing_per_frame() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(5);
    // Enough bodies for the parallel build and search paths at the shipped threshold.
    let base: Vec<Vec3> = (0..12_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(45.0))).collect();
    for variant in [Variant::Dup, Variant::Nodup, Variant::Loose] {
        for (threads, parallelism) in [(2, Parallelism::default()), (1, Parallelism::SERIAL)] {
            let bytes = warm_bytes(&base, variant, threads, parallelism);
            assert_eq!(bytes, 0, "{} on {threads} threads: {bytes} bytes allocated by warm frames", variant.name());
        }
    }
}

/// A warm octree follows a permutation (the simulation's spatial reorder, every 5 frames — so at every phase of the
/// breath, the static tree built, walked or stale — a random permutation and a spatial sort in turn) without
/// allocating: blocks run until three in a row allocate nothing, in `on_resize` (the split's boxes and flags moved
/// through kept buffers, the trees, slabs and cached pairs renamed in place) and in the frames, and the two blocks
/// after them allocate **nothing**, with static trees still built in them. With and without the hint, on a pool of
/// two threads and serially.
#[test]
fn a_warm_octree_follows_permutations_without_allocating() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(5);
    let base: Vec<Vec3> = (0..12_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(45.0))).collect();
    let scene = |f: usize, id: u32| body(&base, f, id as usize);
    for variant in [Variant::Dup, Variant::Nodup, Variant::Loose] {
        for (threads, parallelism) in [(2, Parallelism::default()), (1, Parallelism::SERIAL)] {
            for hinted in [false, true] {
                let label = format!("{} on {threads} threads, hinted {hinted}", variant.name());
                let mut bp = Octree::new(variant, OctreeConfig { parallelism, ..OctreeConfig::default() });
                let mut run = PermutingRun::new(base.len(), 5, hinted);
                in_pool(threads, || {
                    let warm = run.run_until_quiet(&mut bp, (BLOCK, QUIET_BLOCKS, MAX_WARMUP_BLOCKS), &scene);
                    warm.unwrap_or_else(|last| panic!("{label}: still allocating: {last:?}"));
                    let (first, second) = (run.run(&mut bp, BLOCK, &scene), run.run(&mut bp, BLOCK, &scene));
                    let bytes = (first.resize + second.resize, first.frames + second.frames);
                    assert_eq!(bytes, (0, 0), "{label}: bytes allocated by on_resize and by the frames");
                    let kept = first.after.iter().chain(&second.after).filter(|s| s.get("static_bodies") > Some(0.0));
                    assert!(kept.count() > 0, "{label}: static trees outlived permutations");
                    assert!(!run.last_pairs().is_empty());
                });
            }
        }
    }
}
