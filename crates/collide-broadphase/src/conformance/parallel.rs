//! The parallel paths under the kit: every section an algorithm sends to rayon's threads must run here, both at a
//! threshold low enough that the kit's small scenes take it and at the shipped threshold on a scene large enough
//! to cross it — on a local pool of several threads, so that they run on a one-core machine too.
//!
//! - [`with_default_parallelism`] makes every [`Parallelism::default`] built on this thread inside it the given
//!   one: an algorithm that holds a default `Parallelism` (as every algorithm of the workspace does, and as a new
//!   one should) is forced onto its parallel paths without a parameter of its own.
//! - [`check_parallel`] runs the whole kit that way on a pool of `threads` threads, then the [large
//!   sequence](large_sequence_len) (12 000 bodies: moving, resized, mostly resting with the motion hint, sorted in
//!   space by a permutation, partly teleported) at the shipped threshold, and returns the sections that ran in
//!   parallel in each ([`ParallelSections`]), counted by `Parallelism::for_each` itself.
//! - [`assert_parallel_paths`] asserts that each named section ran in both: the proof, per algorithm, that its
//!   parallel paths are exercised.

use super::reorder::{permute, spatial_order};
use super::{Failure, check_all, compare};
use crate::parallel::probe;
use crate::{Aabb, Broadphase, Frame, PairList, Parallelism, Resize, reference_pairs};
use collide_math::{Rng, Vec3};
use std::sync::OnceLock;

/// A broadphase constructor the kit can call from a pool's thread.
pub type MakeSync<'a> = &'a (dyn Fn() -> Box<dyn Broadphase> + Sync);

/// Run `f` with every [`Parallelism::default`] built on this thread inside it equal to `parallelism`.
pub fn with_default_parallelism<R>(parallelism: Parallelism, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Parallelism>);
    impl Drop for Restore {
        fn drop(&mut self) {
            probe::set_default(self.0);
        }
    }
    let _restore = Restore(probe::set_default(Some(parallelism)));
    f()
}

/// Run `f` on a new rayon pool of `threads` threads (its parallel sections use them all, whatever the machine).
pub fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool").install(f)
}

/// The parallel sections (`Parallelism::for_each`'s names) that ran in parallel, with how many times.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParallelSections {
    /// Under the forced threshold (0 items), over the whole kit.
    pub forced: Vec<(&'static str, u64)>,
    /// Under the shipped threshold ([`Parallelism::DEFAULT_MIN_WORK`]), over the large sequence.
    pub shipped: Vec<(&'static str, u64)>,
}

impl ParallelSections {
    /// `true` when `section` ran in parallel in both runs.
    #[must_use]
    pub fn ran_in_both(&self, section: &str) -> bool {
        let ran = |list: &[(&str, u64)]| list.iter().any(|&(name, count)| name == section && count > 0);
        ran(&self.forced) && ran(&self.shipped)
    }
}

/// The kit on a pool of `threads` threads with the threshold forced to 0 (every section with two or more tasks
/// parallel), then the large sequence at the shipped threshold; the first wrong answer is returned, else the
/// sections that ran in parallel in each.
pub fn check_parallel(make: MakeSync<'_>, threads: usize) -> Result<ParallelSections, Box<Failure>> {
    let forced = in_pool(threads, || {
        probe::take();
        with_default_parallelism(Parallelism::with_min_work(0), || check_all(&|| make()))?;
        Ok::<_, Box<Failure>>(probe::take())
    })?;
    let shipped = in_pool(threads, || {
        probe::take();
        run_large_sequence(make().as_mut())?;
        Ok::<_, Box<Failure>>(probe::take())
    })?;
    Ok(ParallelSections { forced, shipped })
}

/// Threads of the pool [`assert_parallel_paths`] runs on: more than the cores of a small machine, and odd, so that
/// chunks are cut unevenly.
pub const ASSERT_THREADS: usize = 3;

/// [`check_parallel`] on [`ASSERT_THREADS`] threads, panicking with the failure report, or when one of `sections`
/// did not run in parallel in both runs: the test of an algorithm crate that proves its parallel paths run.
pub fn assert_parallel_paths(make: MakeSync<'_>, sections: &[&str]) {
    for threads in [ASSERT_THREADS] {
        let name = make().name();
        match check_parallel(make, threads) {
            Err(failure) => panic!("broadphase `{name}` on {threads} threads does not conform:\n{failure}"),
            Ok(ran) => {
                for section in sections {
                    assert!(
                        ran.ran_in_both(section),
                        "broadphase `{name}` on {threads} threads: section `{section}` did not run in parallel under \
                         both thresholds: {ran:?}"
                    );
                }
            }
        }
    }
}

/// The bodies of the large sequence: above [`Parallelism::DEFAULT_MIN_WORK`] even after the resize, and above it
/// as a resting share (the octree's static tree) and as a moving share times the walk's work per body.
pub const fn large_sequence_len() -> usize {
    12_000
}

/// One frame of the large sequence: the resize announced before it, its boxes and hint, and brute force's pairs.
struct LargeFrame {
    resize: Option<(Vec<u32>, usize)>,
    aabbs: Vec<Aabb>,
    moved: Vec<bool>,
    expected: PairList,
}

/// The large sequence, built and solved by brute force once per process (its reference pairs take a few seconds
/// in a debug build; every algorithm of the test binary then compares with them).
fn large_frames() -> &'static [LargeFrame] {
    static FRAMES: OnceLock<Vec<LargeFrame>> = OnceLock::new();
    FRAMES.get_or_init(build_large_frames)
}

/// Eleven frames of 12 000 cubes (half edge 0.5–1) in a cube of side 68: slow motion (incremental SAP), a resize
/// removing and adding 1% before frame 3, 85% of the bodies at rest from frame 6 (with the exact motion hint, so
/// that the octree builds its static tree and walks it), the bodies sorted in space before frame 8 (a permutation,
/// as the simulation's reorder: the structures remap at scale, the hint carried through), 40% teleported at
/// frame 9 (SAP's rebuild path), then everything moving slowly again.
fn build_large_frames() -> Vec<LargeFrame> {
    let mut rng = Rng::new(0x1A_26E);
    let side = 68.0;
    let spawn = |rng: &mut Rng| (rng.point_in(Vec3::ZERO, Vec3::splat(side)), rng.unit_vector() * 0.05);
    let mut bodies: Vec<(Vec3, Vec3, f32)> = (0..large_sequence_len())
        .map(|_| {
            let (c, v) = spawn(&mut rng);
            (c, v, rng.range_f32(0.5, 1.0))
        })
        .collect();
    let mut frames: Vec<LargeFrame> = Vec::new();
    let mut previous: Vec<Aabb> = Vec::new();
    for f in 0..11 {
        let mut resize = None;
        if f == 3 {
            // Remove every hundredth body (the rest keep their order), append as many new ones.
            let n = bodies.len();
            let mut map = vec![Resize::REMOVED; n];
            let mut kept = Vec::with_capacity(n);
            for (i, b) in bodies.iter().enumerate() {
                if i % 100 != 7 {
                    map[i] = kept.len() as u32;
                    kept.push(*b);
                }
            }
            while kept.len() < n {
                let (c, v) = spawn(&mut rng);
                kept.push((c, v, 0.75));
            }
            bodies = kept;
            resize = Some((map, n));
            previous.clear();
        }
        if f == 6 {
            for b in bodies.iter_mut().filter(|_| rng.chance(0.85)) {
                b.1 = Vec3::ZERO;
            }
        }
        if f == 8 {
            let centres: Vec<Vec3> = bodies.iter().map(|b| b.0).collect();
            let map = spatial_order(&centres, Vec3::ZERO, side);
            let permutation = Resize { old_to_new: &map, new_len: map.len() };
            permute(&permutation, &mut bodies);
            // The previous boxes follow their bodies: the resting ones are marked unmoved under their new index.
            permute(&permutation, &mut previous);
            resize = Some((map, bodies.len()));
        }
        if f == 9 {
            for b in &mut bodies {
                if rng.chance(0.4) {
                    b.0 = rng.point_in(Vec3::ZERO, Vec3::splat(side));
                }
            }
        }
        if f == 10 {
            for b in &mut bodies {
                b.1 = rng.unit_vector() * 0.05;
            }
        }
        if f > 0 {
            for b in &mut bodies {
                b.0 = (b.0 + b.1).clamp(Vec3::ZERO, Vec3::splat(side));
            }
        }
        let aabbs: Vec<Aabb> = bodies.iter().map(|&(c, _, h)| Aabb::from_center_radius(c, h)).collect();
        let moved = if previous.len() == aabbs.len() {
            previous.iter().zip(&aabbs).map(|(p, a)| !crate::same_bits(p, a)).collect()
        } else {
            vec![true; aabbs.len()]
        };
        let mut expected = PairList::new();
        reference_pairs(&aabbs, &mut expected);
        previous.clone_from(&aabbs);
        frames.push(LargeFrame { resize, aabbs, moved, expected });
    }
    frames
}

/// Run the large sequence on `bp`, comparing every frame with the cached reference and validating.
pub(super) fn run_large_sequence(bp: &mut dyn Broadphase) -> Result<(), Box<Failure>> {
    let mut out = PairList::new();
    for (f, frame) in large_frames().iter().enumerate() {
        if let Some((map, _)) = &frame.resize {
            bp.on_resize(&Resize { old_to_new: map, new_len: frame.aabbs.len() });
            if let Err(message) = bp.validate() {
                return Err(Box::new(Failure {
                    scene: "large (shipped parallel threshold)".into(),
                    frame: f as u64,
                    n: frame.aabbs.len(),
                    invalid: Some(message),
                    problem: Some("validate() failed right after an on_resize".into()),
                    ..Failure::default()
                }));
            }
        }
        let input = Frame::new(&frame.aabbs).with_step(f as u64).with_moved(&frame.moved);
        bp.find_pairs(&input, &mut out);
        let mut failure = compare(&frame.aabbs, &frame.expected, &out);
        failure.scene = "large (shipped parallel threshold)".into();
        failure.frame = f as u64;
        failure.invalid = bp.validate().err();
        if !failure.is_empty() {
            return Err(Box::new(failure));
        }
    }
    Ok(())
}
