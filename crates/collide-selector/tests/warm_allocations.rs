//! A warmed-up `auto` allocates nothing per frame: its features, model, policy and decision log work in buffers
//! allocated once, and probes and switches reuse the candidates' own buffers. Its own test binary, because it
//! counts every allocation of the process with a global allocator.
//!
//! The selector runs in its forced-switch mode, which hands over to the next candidate every few frames through
//! a probe (warm start, side-by-side frames, switch): so the warm-up takes every candidate through every density
//! of the scene, and the measured frames contain probes, switches and log entries, not only quiet frames — the
//! same code paths the policy drives, on a schedule that does not depend on the machine's timing. Frames run in
//! blocks of one hand-over cycle until three blocks in a row allocate nothing — within a bounded number of blocks —
//! and the two blocks after them must allocate **nothing**, on a local pool of two threads.

use collide_broadphase::conformance::{CountingAllocator, PermutingRun, in_pool};
use collide_broadphase::{Broadphase, Frame, PairList};
use collide_math::{Aabb, Rng, Vec3};
use collide_octree::{Octree, OctreeConfig, Variant};
use collide_sap::{MultiBoxPruning, SweepAndPrune};
use collide_selector::{Candidate, DecisionKind, PolicyConfig, Prior, Selector};
use std::sync::{Mutex, PoisonError};

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

/// Frames per block: the 18 it takes to hand over to each of the three candidates once, twice.
const BLOCK: usize = 36;
/// The most warm-up blocks before the test gives up, and the quiet blocks in a row that end the warm-up.
const MAX_WARMUP_BLOCKS: usize = 12;
const QUIET_BLOCKS: usize = 3;

/// Frame `f` of a block: a cloud that breathes between its full size and a dense half of it, so that the
/// candidates trade places and every buffer meets its largest demand in the first cycles.
fn frame(base: &[Vec3], f: usize, out: &mut Vec<Aabb>) {
    out.clear();
    out.extend(base.iter().map(|&c| body(c, f)));
}

/// The box at frame `f` of the body based at `c`.
fn body(c: Vec3, f: usize) -> Aabb {
    let phase = (f % BLOCK) as f32 / BLOCK as f32;
    let scale = 0.5 + 0.5 * (0.5 + 0.5 * (phase * std::f32::consts::TAU).cos());
    let centre = Vec3::splat(30.0);
    Aabb::from_center_radius(centre + (c - centre) * scale, 0.5)
}

/// The candidates both tests run: an octree (its static tree), sweep-and-prune (incremental) and multi-box pruning.
fn candidates() -> Vec<Candidate> {
    vec![
        Candidate::new("octree-dup", || Box::new(Octree::new(Variant::Dup, OctreeConfig::default()))),
        Candidate::new("sap", || Box::new(SweepAndPrune::default())),
        Candidate::new("mbp", || Box::new(MultiBoxPruning::new(0))),
    ]
}

/// The tests of this binary count the allocations of the whole process: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn a_warm_selector_allocates_nothing_per_frame_even_while_probing_and_switching() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(11);
    let base: Vec<Vec3> = (0..12_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(50.0))).collect();
    // Every 6 frames: a 4-frame probe, then the switch.
    let mut auto = Selector::new(candidates(), PolicyConfig::default(), Prior::builtin(), 6);
    let (mut aabbs, mut out) = (Vec::new(), PairList::new());
    in_pool(2, || {
        let mut f = 0;
        let mut block = |auto: &mut Selector| {
            let before = CountingAllocator::bytes();
            for _ in 0..BLOCK {
                frame(&base, f, &mut aabbs);
                auto.find_pairs(&Frame::new(&aabbs).with_step(f as u64), &mut out);
                f += 1;
            }
            CountingAllocator::bytes() - before
        };
        let mut quiet = 0;
        for _ in 0..MAX_WARMUP_BLOCKS {
            quiet = if block(&mut auto) == 0 { quiet + 1 } else { 0 };
            if quiet == QUIET_BLOCKS {
                break;
            }
        }
        assert_eq!(quiet, QUIET_BLOCKS, "still allocating after {MAX_WARMUP_BLOCKS} blocks");
        assert!(auto.candidates().all(|c| c.frames > 0 || c.probes > 0), "every candidate has run once");
        let (probes, switches) = (auto.totals().probes, auto.totals().switches);
        let bytes = block(&mut auto) + block(&mut auto);
        assert_eq!(auto.totals().probes - probes, 2 * BLOCK as u64 / 6, "the measured frames probed");
        assert_eq!(auto.totals().switches - switches, 2 * BLOCK as u64 / 6, "and switched");
        assert_eq!(bytes, 0, "{bytes} bytes allocated by warm frames");
    });
}

/// A warm `auto` follows a permutation (the simulation's spatial reorder, every 5 frames — mid-probe, at a switch,
/// on quiet frames — a random permutation and a spatial sort in turn) without allocating: the candidates in sync
/// remap it, the feature sample follows its bodies through a kept buffer, and nothing is abandoned. Blocks of
/// frames run until three in a row allocate nothing, in `on_resize` and in the frames, and the two blocks after
/// them allocate **nothing** while probing and switching on schedule, with no abandon in the decision log.
#[test]
fn a_warm_selector_follows_permutations_without_allocating_or_abandoning() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut rng = Rng::new(11);
    let base: Vec<Vec3> = (0..12_000).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(50.0))).collect();
    let scene = |f: usize, id: u32| body(base[id as usize], f);
    let mut auto = Selector::new(candidates(), PolicyConfig::default(), Prior::builtin(), 6);
    let mut run = PermutingRun::new(base.len(), 5, true);
    in_pool(2, || {
        let warm = run.run_until_quiet(&mut auto, (BLOCK, QUIET_BLOCKS, MAX_WARMUP_BLOCKS), &scene);
        warm.unwrap_or_else(|last| panic!("still allocating: {last:?}"));
        let (probes, switches) = (auto.totals().probes, auto.totals().switches);
        let (first, second) = (run.run(&mut auto, BLOCK, &scene), run.run(&mut auto, BLOCK, &scene));
        assert!(first.permutations + second.permutations >= 2 * BLOCK / 5, "the measured frames were permuted");
        assert_eq!((first.resize + second.resize, first.frames + second.frames), (0, 0), "bytes allocated");
        assert_eq!(auto.totals().probes - probes, 2 * BLOCK as u64 / 6, "the measured frames probed on schedule");
        assert_eq!(auto.totals().switches - switches, 2 * BLOCK as u64 / 6, "and switched");
        let abandoned = auto.decisions().iter().filter(|d| d.kind == DecisionKind::Abandon).count();
        assert_eq!(abandoned, 0, "a permutation abandons nothing");
        assert!(!run.last_pairs().is_empty());
    });
}
