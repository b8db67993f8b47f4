//! The conformance kit: every broadphase's tests run it, and it compares every frame with [`reference_pairs`].
//!
//! ```
//! use collide_broadphase::{Broadphase, Frame, PairList, is_valid_box, reference_pairs};
//!
//! struct MyBroadphase;
//! impl Broadphase for MyBroadphase {
//!     fn name(&self) -> &'static str {
//!         "mine"
//!     }
//!     fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
//!         // The invalid-box contract: say so (a panic naming the body in debug builds), then leave the body out.
//!         for (i, b) in frame.aabbs.iter().enumerate().filter(|(_, b)| !is_valid_box(b)) {
//!             frame.reject_invalid(i);
//!         }
//!         reference_pairs(frame.aabbs, out); // a real one does something cleverer
//!     }
//! }
//!
//! // In a #[test]:
//! collide_broadphase::conformance::assert_conforms(|| Box::new(MyBroadphase));
//! ```
//!
//! It runs
//! - **static scenes** ([`static_scenes`]): uniform, clustered, all bodies at one point, one huge body among
//!   many small, mixed sizes (1:8), bodies touching the container walls, a 3×3×3 grid of exactly touching unit
//!   boxes, zero-size boxes, a flat layer, far-off coordinates, bodies at ±1e30 among ordinary ones, a crowd near
//!   1e30, boxes meeting at signed zeros, an empty scene and a single body;
//! - **moving sequences** ([`sequences`]) of 300+ frames at slow, fast and teleport speeds, one of them adding
//!   and removing bodies every few frames through [`Broadphase::on_resize`], and a partly resting one three
//!   times: without a motion hint, with an exact [`Frame::with_moved`] hint and with a conservative one (bodies
//!   marked moved that did not move), so that a structure that reads the hint is checked on both of its paths;
//! - **reorder sequences** (among [`sequences`]): partly resting bodies renumbered every 7 frames (and twice with
//!   no frame between) by a permutation, a random one and a spatial sort ([`reorder`]) in turn, as the simulation
//!   reorders its bodies in space — the same three hints, the previous boxes carried through the permutation so
//!   that the exact hint stays exact;
//! - the **invalid-box contract** ([`invalid`](self::invalid)): scenes and sequences with non-finite and inverted
//!   boxes under [`InvalidBoxes::OverlapNothing`](crate::InvalidBoxes) (exactly the reference's pairs, which leave
//!   them out), and the panic naming the body under [`InvalidBoxes::Panic`](crate::InvalidBoxes); the boxes are
//!   broken by [`broken::corrupt`], the one list of ways a box is invalid, which the moving sequences use too;
//! - the **cost of far outliers** ([`cost`]): five bodies at ±1e30 may not multiply the box tests of an ordinary
//!   scene (a structure sized on the bounds would pile everything else into one cell).
//!
//! [`check_parallel`] and [`assert_parallel_paths`] run all of it on a local pool with every parallel section
//! forced, and a 12 000-body sequence at the shipped threshold, and say which sections ran in parallel.
//! [`CountingAllocator`] serves the tests that check a warm broadphase allocates nothing per frame, and
//! [`reorder::permutation_frames`] the tests that check an incremental one remaps a permutation instead of
//! rebuilding.
//!
//! A fresh broadphase from `make` serves each scene and each sequence. After every call the kit checks the
//! output (each pair once, smaller index first, the exact overlap set) and the algorithm's own
//! [`validate`](Broadphase::validate), which must also hold right after every `on_resize`. A failure names the
//! scene, the frame, and the missing and extra pairs.
//!
//! # What an algorithm must do to pass
//!
//! - answer exactly the reference's pairs on every frame, whatever happened before (resizes, permutations,
//!   resets, a motion hint that is exact or conservative or absent);
//! - for every box it stores, check [`is_valid_box`](crate::is_valid_box) once per frame (only boxes that can
//!   have changed need it), and for an invalid one call [`Frame::reject_invalid`] — which panics under
//!   `InvalidBoxes::Panic` with the message the kit looks for — and leave the body out of its structure;
//! - hold a [`Parallelism`](crate::Parallelism) built by `Parallelism::default()` (or given by the caller) and
//!   send parallel work through its `for_each` or `parallel::PairChunks`, so that the kit can force and count
//!   its parallel sections;
//! - keep the box tests of a scene with far outliers within [`cost::OUTLIER_TEST_FACTOR`] of the scene without.
//!
//! [`reference_pairs`]: crate::reference_pairs

mod alloc;
pub mod broken;
pub mod cost;
pub mod invalid;
mod parallel;
pub mod reorder;
mod scenes;
mod sequences;

pub use alloc::{CountingAllocator, PermutedBytes, PermutingRun};
pub use invalid::{invalid_scenes, invalid_sequences};
pub use parallel::{
    MakeSync, ParallelSections, assert_parallel_paths, check_parallel, in_pool, large_sequence_len,
    with_default_parallelism,
};
pub use scenes::{snapshot_scenes, static_scenes};
pub use sequences::{DOUBLE_REORDER_FRAME, Motion, MovedHint, Sequence, sequences};

use crate::{Aabb, Broadphase, Frame, Pair, PairList, reference_pairs};
use std::fmt;

/// A named set of boxes.
#[derive(Clone, Debug)]
pub struct Scene {
    /// A short kebab-case name, used in failure reports and snapshot names.
    pub name: &'static str,
    /// The boxes, body `i` at index `i`.
    pub aabbs: Vec<Aabb>,
}

/// What went wrong in one call: where, and which pairs.
#[derive(Clone, Debug, Default)]
pub struct Failure {
    /// The scene or sequence.
    pub scene: String,
    /// The frame of a sequence (0 for static scenes).
    pub frame: u64,
    /// The body count.
    pub n: usize,
    /// Overlapping pairs the broadphase did not report.
    pub missing: Vec<Pair>,
    /// Reported pairs whose boxes do not overlap (or are out of range).
    pub extra: Vec<Pair>,
    /// Pairs reported more than once.
    pub duplicated: Vec<Pair>,
    /// Pairs with the larger index first, or a body paired with itself.
    pub misordered: Vec<Pair>,
    /// The broadphase's own `validate()` message, if it failed.
    pub invalid: Option<String>,
    /// Any other broken promise: a missing or mute panic under `InvalidBoxes::Panic`, a cost out of bounds.
    pub problem: Option<String>,
}

impl Failure {
    pub(crate) fn is_empty(&self) -> bool {
        self.missing.is_empty()
            && self.extra.is_empty()
            && self.duplicated.is_empty()
            && self.misordered.is_empty()
            && self.invalid.is_none()
            && self.problem.is_none()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list(f: &mut fmt::Formatter<'_>, what: &str, pairs: &[Pair]) -> fmt::Result {
            if pairs.is_empty() {
                return Ok(());
            }
            let shown: Vec<String> = pairs.iter().take(20).map(Pair::to_string).collect();
            let more = if pairs.len() > 20 { format!(" … and {} more", pairs.len() - 20) } else { String::new() };
            writeln!(f, "  {} {what}: {}{more}", pairs.len(), shown.join(" "))
        }
        writeln!(f, "scene `{}`, frame {}, {} bodies:", self.scene, self.frame, self.n)?;
        list(f, "missing pairs (boxes overlap, not reported)", &self.missing)?;
        list(f, "extra pairs (reported, boxes do not overlap)", &self.extra)?;
        list(f, "duplicated pairs", &self.duplicated)?;
        list(f, "misordered pairs (need smaller index first)", &self.misordered)?;
        if let Some(msg) = &self.invalid {
            writeln!(f, "  validate() failed: {msg}")?;
        }
        if let Some(msg) = &self.problem {
            writeln!(f, "  {msg}")?;
        }
        Ok(())
    }
}

/// Compare a broadphase's output with the reference for `aabbs`. `expected` must be sorted (as
/// [`reference_pairs`] writes it).
pub fn compare(aabbs: &[Aabb], expected: &PairList, actual: &PairList) -> Failure {
    let n = aabbs.len();
    let mut failure = Failure { n, ..Failure::default() };
    let mut got: Vec<Pair> = Vec::with_capacity(actual.len());
    for &p in actual {
        if p.a >= p.b {
            failure.misordered.push(p);
            if p.a == p.b {
                continue;
            }
        }
        let p = Pair::new(p.a, p.b);
        if p.b as usize >= n {
            failure.extra.push(p);
        } else {
            got.push(p);
        }
    }
    got.sort_unstable();
    for w in got.windows(2) {
        if w[0] == w[1] && failure.duplicated.last() != Some(&w[0]) {
            failure.duplicated.push(w[0]);
        }
    }
    got.dedup();
    // Merge the two sorted lists: what only `expected` has is missing, what only `got` has is extra.
    let (mut i, mut j) = (0, 0);
    let want = expected.as_slice();
    while i < want.len() || j < got.len() {
        match (want.get(i), got.get(j)) {
            (Some(w), Some(g)) if w == g => {
                i += 1;
                j += 1;
            }
            (Some(w), Some(g)) if w < g => {
                failure.missing.push(*w);
                i += 1;
            }
            (Some(_), Some(g)) | (None, Some(g)) => {
                failure.extra.push(*g);
                j += 1;
            }
            (Some(w), None) => {
                failure.missing.push(*w);
                i += 1;
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
    failure
}

/// A reusable checker: keeps the reference and output buffers between frames.
#[derive(Default)]
pub struct Checker {
    expected: PairList,
    actual: PairList,
}

impl Checker {
    /// Run `broadphase` on `frame`, compare with the reference, and run its `validate()`.
    pub fn check(
        &mut self,
        broadphase: &mut dyn Broadphase,
        frame: &Frame<'_>,
        scene: &str,
    ) -> Result<(), Box<Failure>> {
        reference_pairs(frame.aabbs, &mut self.expected);
        // Garbage in the output buffer: the contract says find_pairs replaces it.
        self.actual.clear();
        self.actual.push(0, u32::MAX);
        broadphase.find_pairs(frame, &mut self.actual);
        let mut failure = compare(frame.aabbs, &self.expected, &self.actual);
        failure.scene = scene.to_owned();
        failure.frame = frame.step;
        failure.invalid = broadphase.validate().err();
        if failure.is_empty() { Ok(()) } else { Err(Box::new(failure)) }
    }

    /// The pairs the broadphase reported in the last [`Checker::check`].
    #[must_use]
    pub fn last_output(&self) -> &PairList {
        &self.actual
    }
}

/// Which of the kit's checks to run beside the pairs of the static scenes and the moving sequences, which always
/// run: [`Checks::ALL`] for an algorithm as it ships.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checks {
    /// The invalid-box contract ([`invalid`](self::invalid)).
    pub invalid_boxes: bool,
    /// The cost of far outliers ([`cost`]). A configuration that caps a structure below what a scene needs (an
    /// octree of depth 0, a single region) cannot spend a level on far bodies; its tests may leave this out.
    pub outlier_cost: bool,
}

impl Checks {
    /// Every check.
    pub const ALL: Self = Self { invalid_boxes: true, outlier_cost: true };
}

/// Run a fresh broadphase from `make` on every static scene and every moving sequence, then the invalid-box
/// contract and the cost of far outliers; the first failure is returned (its report names the scene, frame and
/// pairs).
pub fn check_all(make: &dyn Fn() -> Box<dyn Broadphase>) -> Result<(), Box<Failure>> {
    check_with(make, Checks::ALL)
}

/// [`check_all`] with the chosen [`Checks`].
pub fn check_with(make: &dyn Fn() -> Box<dyn Broadphase>, checks: Checks) -> Result<(), Box<Failure>> {
    let mut checker = Checker::default();
    // A structure that has seen no frame yet is valid too: a meta-broadphase validates candidates it has not run.
    if let Err(message) = make().validate() {
        return Err(Box::new(Failure {
            scene: "fresh, before any frame".into(),
            invalid: Some(message),
            ..Failure::default()
        }));
    }
    for scene in static_scenes() {
        let mut bp = make();
        checker.check(bp.as_mut(), &Frame::new(&scene.aabbs), scene.name)?;
        // A second call on the same boxes must give the same answer (incremental algorithms take another path).
        checker.check(bp.as_mut(), &Frame::new(&scene.aabbs).with_step(1), scene.name)?;
    }
    for sequence in sequences() {
        let mut bp = make();
        sequence.run(bp.as_mut(), &mut checker)?;
    }
    if checks.invalid_boxes {
        invalid::check_invalid_boxes(make)?;
    }
    if checks.outlier_cost {
        cost::check_outlier_cost(make)?;
    }
    Ok(())
}

/// [`check_all`], panicking with the failure report: the one-line test body of every broadphase crate.
pub fn assert_conforms(make: impl Fn() -> Box<dyn Broadphase>) {
    assert_conforms_with(make, Checks::ALL);
}

/// [`check_with`], panicking with the failure report.
pub fn assert_conforms_with(make: impl Fn() -> Box<dyn Broadphase>, checks: Checks) {
    if let Err(failure) = check_with(&make, checks) {
        let name = make().name();
        panic!("broadphase `{name}` does not conform:\n{failure}");
    }
}

/// The sorted pair list of a broadphase on the small named scene `scene_name`, as text for an insta snapshot:
/// a count line, then one `a b` line per pair. The scenes are [`snapshot_scenes`]; every algorithm's snapshot
/// of a scene must read the same, and the kit has already checked it equals the reference.
pub fn pair_snapshot(broadphase: &mut dyn Broadphase, scene_name: &str) -> String {
    let scene = snapshot_scenes()
        .into_iter()
        .find(|s| s.name == scene_name)
        .unwrap_or_else(|| panic!("no snapshot scene `{scene_name}`"));
    let mut out = PairList::new();
    broadphase.find_pairs(&Frame::new(&scene.aabbs), &mut out);
    out.sort();
    let mut text = format!("{} bodies, {} pairs\n", scene.aabbs.len(), out.len());
    for p in &out {
        text.push_str(&format!("{} {}\n", p.a, p.b));
    }
    text
}

#[cfg(test)]
mod tests;
