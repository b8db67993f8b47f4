//! Tests of the kit itself: it must pass the reference and fail loudly on every kind of wrong answer.

use super::*;
use crate::{Frame, InvalidBoxes, Parallelism, Resize, Stats, Tally, is_valid_box};

/// Obey the invalid-box contract the simplest way: one pass over the boxes.
fn reject_invalid_boxes(frame: &Frame<'_>) {
    for (i, _) in frame.aabbs.iter().enumerate().filter(|(_, b)| !is_valid_box(b)) {
        frame.reject_invalid(i);
    }
}

/// The reference behind the trait: the kit must accept it.
struct Reference;

impl Broadphase for Reference {
    fn name(&self) -> &'static str {
        "reference"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        reject_invalid_boxes(frame);
        reference_pairs(frame.aabbs, out);
    }
}

/// A broadphase with one deliberate defect.
#[derive(Clone, Copy)]
enum Defect {
    DropOnePair,
    AddOnePair,
    DuplicateOnePair,
    SwapOrder,
    KeepOldOutput,
    IgnoreResize,
    InvalidState,
    /// Tests pairs with `Aabb::overlaps` alone, so an inverted box pairs with the boxes spanning its corners.
    PairsInvertedBoxes,
    /// Never panics on an invalid box.
    SilentOnInvalid,
    /// Panics on an invalid box without saying which body.
    PanicsWithoutTheBody,
}

struct Broken {
    defect: Defect,
    calls: u32,
    /// The body count of the first frame; the `IgnoreResize` defect never updates it.
    known: Option<usize>,
}

impl Broadphase for Broken {
    fn name(&self) -> &'static str {
        "broken"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.calls += 1;
        match self.defect {
            Defect::SilentOnInvalid => {}
            Defect::PanicsWithoutTheBody => {
                if frame.invalid_boxes == InvalidBoxes::Panic && frame.aabbs.iter().any(|b| !is_valid_box(b)) {
                    panic!("a box is invalid");
                }
            }
            _ => reject_invalid_boxes(frame),
        }
        match self.defect {
            Defect::PairsInvertedBoxes => {
                out.clear();
                for (i, a) in frame.aabbs.iter().enumerate() {
                    for (j, b) in frame.aabbs.iter().enumerate().skip(i + 1) {
                        if a.overlaps(b) && !a.min.is_nan() && !b.min.is_nan() && !a.max.is_nan() && !b.max.is_nan() {
                            out.push(i as u32, j as u32);
                        }
                    }
                }
                return;
            }
            Defect::KeepOldOutput => {
                // Appends instead of replacing: the kit pre-fills the buffer, so this must be caught.
                let mut fresh = PairList::new();
                reference_pairs(frame.aabbs, &mut fresh);
                out.extend_from_slice(fresh.as_slice());
                return;
            }
            Defect::IgnoreResize => {
                // Sized once on the first frame, like an incremental structure that ignores on_resize: bodies
                // added later are never seen.
                let known = *self.known.get_or_insert(frame.aabbs.len());
                reference_pairs(&frame.aabbs[..known.min(frame.aabbs.len())], out);
                return;
            }
            _ => reference_pairs(frame.aabbs, out),
        }
        let v = out.as_mut_vec();
        match self.defect {
            Defect::DropOnePair if v.len() > 3 => {
                v.remove(v.len() / 2);
            }
            Defect::AddOnePair if frame.aabbs.len() > 2 => {
                // Bodies 0 and n-1 are far apart in almost every scene; add them whether or not they overlap.
                let n = frame.aabbs.len() as u32;
                if !frame.aabbs[0].overlaps(&frame.aabbs[n as usize - 1]) {
                    v.push(Pair::new(0, n - 1));
                }
            }
            Defect::DuplicateOnePair if !v.is_empty() => v.push(v[0]),
            Defect::SwapOrder if !v.is_empty() => {
                let p = v[0];
                v[0] = Pair { a: p.b, b: p.a };
            }
            _ => {}
        }
    }
    fn on_resize(&mut self, _resize: &Resize<'_>) {}
    fn validate(&self) -> Result<(), String> {
        match self.defect {
            Defect::InvalidState if self.calls > 1 => Err("node 3 holds a body outside its cell".into()),
            _ => Ok(()),
        }
    }
    fn stats(&self) -> Stats {
        Stats::new().with("calls", f64::from(self.calls))
    }
}

fn failure_of(defect: Defect) -> Box<Failure> {
    let make = move || -> Box<dyn Broadphase> { Box::new(Broken { defect, calls: 0, known: None }) };
    check_all(&make).expect_err("the kit must reject a broken broadphase")
}

#[test]
fn the_reference_conforms() {
    assert_conforms(|| Box::new(Reference));
}

#[test]
fn one_dropped_pair_is_reported_by_name() {
    let f = failure_of(Defect::DropOnePair);
    assert_eq!(f.missing.len(), 1, "{f}");
    assert!(f.extra.is_empty());
    let report = f.to_string();
    assert!(report.contains("1 missing pairs"), "{report}");
    assert!(report.contains(&f.missing[0].to_string()), "{report}");
    assert!(report.contains(&format!("scene `{}`", f.scene)), "{report}");
}

#[test]
fn every_kind_of_wrong_answer_is_caught() {
    assert_eq!(failure_of(Defect::AddOnePair).extra.len(), 1);
    assert_eq!(failure_of(Defect::DuplicateOnePair).duplicated.len(), 1);
    assert_eq!(failure_of(Defect::SwapOrder).misordered.len(), 1);
    assert!(!failure_of(Defect::KeepOldOutput).extra.is_empty());
    let f = failure_of(Defect::IgnoreResize);
    assert_eq!(f.scene, "moving-churn", "{f}");
    let f = failure_of(Defect::InvalidState);
    assert!(f.invalid.as_deref().unwrap().contains("node 3"), "{f}");
}

#[test]
fn every_breach_of_the_invalid_box_contract_is_caught() {
    let f = failure_of(Defect::PairsInvertedBoxes);
    assert!(f.scene.starts_with("invalid-") && !f.extra.is_empty(), "{f}");
    let f = failure_of(Defect::SilentOnInvalid);
    assert!(f.problem.as_deref().unwrap().contains("no panic for body 13"), "{f}");
    let f = failure_of(Defect::PanicsWithoutTheBody);
    assert!(f.problem.as_deref().unwrap().contains("must name body 13"), "{f}");
}

/// Brute force that counts the box tests a naive grid sized on the bounds of the boxes would make: 16³ cells over
/// the bounds, a box in every cell it covers, every pair of a cell tested.
struct BoundsGrid {
    tests: u64,
}

impl Broadphase for BoundsGrid {
    fn name(&self) -> &'static str {
        "bounds-grid"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        reject_invalid_boxes(frame);
        let valid = || frame.aabbs.iter().filter(|b| is_valid_box(b));
        let bounds = valid().fold(Aabb::EMPTY, |b, a| b.union(a));
        let cell = |x: f32, k: usize| (((x - bounds.min[k]) / (bounds.max[k] - bounds.min[k]) * 16.0) as usize).min(15);
        let mut load = vec![0u64; 16 * 16 * 16];
        for b in valid() {
            for x in cell(b.min.x, 0)..=cell(b.max.x, 0) {
                for y in cell(b.min.y, 1)..=cell(b.max.y, 1) {
                    for z in cell(b.min.z, 2)..=cell(b.max.z, 2) {
                        load[(x * 16 + y) * 16 + z] += 1;
                    }
                }
            }
        }
        self.tests = load.iter().map(|&m| m * m.saturating_sub(1) / 2).sum();
        reference_pairs(frame.aabbs, out);
    }
    fn stats(&self) -> Stats {
        Stats::from(Tally { pair_tests: self.tests, ..Tally::default() })
    }
}

#[test]
fn a_structure_that_far_outliers_collapse_is_caught() {
    let failure = check_all(&|| Box::new(BoundsGrid { tests: 0 })).expect_err("the bounds grid collapses");
    assert_eq!(failure.scene, "far-outliers (cost)", "{failure}");
    assert!(failure.problem.as_deref().unwrap().contains("were piled together"), "{failure}");
}

/// A sort-and-sweep on x with two empty parallel sections of the kernel's runner: one as large as the scene, and
/// one claiming a single item of work, parallel only under the forced threshold.
struct ParallelSweep {
    parallelism: Parallelism,
}

impl Broadphase for ParallelSweep {
    fn name(&self) -> &'static str {
        "parallel-sweep"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        reject_invalid_boxes(frame);
        let mut halves = [0u8; 2];
        self.parallelism.for_each("always", frame.len(), &mut halves, |_, _| {});
        self.parallelism.for_each("small only", 1, &mut halves, |_, _| {});
        let a = frame.aabbs;
        let mut order: Vec<u32> = (0..a.len() as u32).filter(|&i| is_valid_box(&a[i as usize])).collect();
        order.sort_unstable_by(|&i, &j| a[i as usize].min.x.total_cmp(&a[j as usize].min.x));
        out.clear();
        for (k, &i) in order.iter().enumerate() {
            for &j in order[k + 1..].iter().take_while(|&&j| a[j as usize].min.x <= a[i as usize].max.x) {
                if a[i as usize].overlaps(&a[j as usize]) {
                    out.push(i, j);
                }
            }
        }
    }
}

#[test]
fn the_parallel_check_counts_the_sections_that_ran_in_parallel() {
    let make = || -> Box<dyn Broadphase> { Box::new(ParallelSweep { parallelism: Parallelism::default() }) };
    let ran = check_parallel(&make, 2).unwrap();
    assert!(ran.ran_in_both("always"), "{ran:?}");
    assert!(ran.forced.iter().any(|&(s, _)| s == "small only"), "{ran:?}");
    assert!(!ran.ran_in_both("small only"), "{ran:?}");
    assert_parallel_paths(&make, &["always"]);
    // Outside the kit's scope, the default is the shipped one again.
    assert_eq!(Parallelism::default(), Parallelism::with_min_work(Parallelism::DEFAULT_MIN_WORK));
    let forced = with_default_parallelism(Parallelism::SERIAL, Parallelism::default);
    assert_eq!(forced, Parallelism::SERIAL);
}

#[test]
#[should_panic(expected = "section `small only` did not run in parallel")]
fn assert_parallel_paths_names_a_section_that_did_not_run() {
    let make = || -> Box<dyn Broadphase> { Box::new(ParallelSweep { parallelism: Parallelism::default() }) };
    assert_parallel_paths(&make, &["always", "small only"]);
}

#[test]
#[should_panic(expected = "does not conform")]
fn assert_conforms_panics_with_the_report() {
    assert_conforms(|| Box::new(Broken { defect: Defect::DropOnePair, calls: 0, known: None }));
}

#[test]
fn compare_finds_missing_and_extra_by_merge() {
    use collide_math::Vec3;
    let aabbs: Vec<Aabb> = (0..4).map(|i| Aabb::from_center_radius(Vec3::new(i as f32, 0.0, 0.0), 0.6)).collect();
    let mut expected = PairList::new();
    reference_pairs(&aabbs, &mut expected);
    assert_eq!(expected.len(), 3);
    let actual: PairList = [Pair::new(0, 1), Pair::new(0, 3), Pair::new(2, 3), Pair::new(9, 1)].into_iter().collect();
    let mut f = compare(&aabbs, &expected, &actual);
    f.extra.sort_unstable();
    assert_eq!(f.missing, vec![Pair::new(1, 2)]);
    assert_eq!(f.extra, vec![Pair::new(0, 3), Pair::new(1, 9)], "out of range and non-overlapping are both extra");
}

#[test]
fn scenes_have_the_promised_shapes() {
    let scenes = static_scenes();
    let grid = scenes.iter().find(|s| s.name == "grid-3x3x3-touching").unwrap();
    let mut pairs = PairList::new();
    reference_pairs(&grid.aabbs, &mut pairs);
    // In a 3×3×3 grid, pairs within Chebyshev distance 1: (27·27 − 27 − Σ non-neighbours)/2 = 158.
    assert_eq!(pairs.len(), 158);
    let point = scenes.iter().find(|s| s.name == "one-point").unwrap();
    reference_pairs(&point.aabbs, &mut pairs);
    assert_eq!(pairs.len(), 150 * 149 / 2);
    assert!(scenes.iter().all(|s| s.aabbs.iter().all(Aabb::is_valid)), "every scene box is valid");
    let broken = invalid_scenes();
    assert!(broken.iter().all(|s| s.aabbs.iter().any(|b| !b.is_valid())), "every invalid scene has invalid boxes");
    let kinds: Vec<Aabb> = (0..broken::KINDS).map(|k| broken::corrupt(Aabb::default(), k)).collect();
    assert!(kinds.iter().all(|b| !b.is_valid()), "{kinds:?}");
    let far = scenes.iter().find(|s| s.name == "far-outliers").unwrap();
    reference_pairs(&far.aabbs, &mut pairs);
    let everything = far.aabbs.iter().position(|b| b.min.x == -1.0e30).unwrap() as u32;
    let spanning = pairs.iter().filter(|p| p.a == everything || p.b == everything).count();
    assert_eq!(spanning, far.aabbs.len() - 1, "the box spanning ±1e30 overlaps every other body");
    assert!(sequences().iter().all(|s| s.frames >= 300));
}

/// Checks the kit's motion hints against the promise: every body marked unmoved has last call's box, bit for bit.
#[derive(Default)]
struct HintAuditor {
    previous: Vec<Aabb>,
    hinted_frames: u32,
    unmoved_flags: u64,
    marked_but_unchanged: u64,
    broken_promises: u64,
}

impl Broadphase for HintAuditor {
    fn name(&self) -> &'static str {
        "hint-auditor"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        if let Some(moved) = frame.moved {
            self.hinted_frames += 1;
            for (i, (&m, a)) in moved.iter().zip(frame.aabbs).enumerate() {
                let same = self.previous.get(i).is_some_and(|p| crate::same_bits(p, a));
                self.unmoved_flags += u64::from(!m);
                self.broken_promises += u64::from(!m && !same);
                self.marked_but_unchanged += u64::from(m && same);
            }
        }
        self.previous.clear();
        self.previous.extend_from_slice(frame.aabbs);
        reference_pairs(frame.aabbs, out);
    }
    /// A permutation renames the remembered boxes (so the audit can hold the kit to an exact hint across it); any
    /// other resize forgets them.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if resize.is_permutation() && self.previous.len() == resize.old_len() {
            reorder::permute(resize, &mut self.previous);
        } else {
            self.previous.clear();
        }
    }
}

#[test]
fn the_hinted_sequences_keep_the_promise_and_use_both_flags() {
    let mut checker = Checker::default();
    for sequence in sequences() {
        let mut auditor = HintAuditor::default();
        sequence.run(&mut auditor, &mut checker).unwrap();
        assert_eq!(auditor.broken_promises, 0, "{}", sequence.name);
        match sequence.hint {
            MovedHint::Absent => assert_eq!(auditor.hinted_frames, 0, "{}", sequence.name),
            hint => {
                assert_eq!(auditor.hinted_frames, sequence.frames, "{}", sequence.name);
                if sequence.resting_fraction > 0.0 {
                    // Most bodies rest: most flags say "unmoved".
                    let flags = u64::from(sequence.frames) * sequence.bodies as u64;
                    assert!(auditor.unmoved_flags * 2 > flags, "{}", sequence.name);
                }
                let conservative = auditor.marked_but_unchanged > u64::from(sequence.frames);
                assert_eq!(conservative, hint == MovedHint::Conservative, "{}", sequence.name);
                if sequence.reorder > 0 && hint == MovedHint::Exact {
                    // The previous boxes follow the permutations: not one unmoved body is marked moved.
                    assert_eq!(auditor.marked_but_unchanged, 0, "{}", sequence.name);
                }
            }
        }
    }
    let hinted = sequences().iter().filter(|s| s.resting_fraction > 0.0 && s.hint != MovedHint::Absent).count();
    assert_eq!(hinted, 4, "partly resting sequences, reordered and not, with an exact hint and a conservative one");
    let reordered: Vec<MovedHint> = sequences().iter().filter(|s| s.reorder > 0).map(|s| s.hint).collect();
    assert_eq!(reordered, [MovedHint::Absent, MovedHint::Exact, MovedHint::Conservative]);
}

/// Counts the permutations a sequence announces, and checks them against the bodies' boxes: a body keeps its box
/// across a permutation, so the boxes of the frame before it, renamed, must be the boxes of the frame after it for
/// every body that rests.
#[derive(Default)]
struct PermutationAuditor {
    previous: Vec<Aabb>,
    permutations: u32,
    /// Permutations with no frame between them and the one before.
    back_to_back: u32,
    since_frame: u32,
    /// Frames after a permutation, and those whose bodies were in Morton order (a spatial sort came last).
    frames_after: u32,
    spatial: u32,
    pending_check: bool,
    unmoved_after: u64,
    bodies_after: u64,
}

impl Broadphase for PermutationAuditor {
    fn name(&self) -> &'static str {
        "permutation-auditor"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        if self.since_frame > 0 {
            // Centres rounded to the key's grid may fall a cell over (a box's centre is not exactly the body's): a
            // frame counts as sorted when at most one body in a hundred is out of order.
            let key = |b: &Aabb| reorder::morton_key(b.center(), collide_math::Vec3::ZERO, scenes::WORLD);
            let descents = frame.aabbs.windows(2).filter(|w| key(&w[0]) > key(&w[1])).count();
            self.frames_after += 1;
            self.spatial += u32::from(descents * 100 <= frame.len());
        }
        if std::mem::take(&mut self.pending_check) {
            let same = self.previous.iter().zip(frame.aabbs).filter(|(p, a)| crate::same_bits(p, a)).count();
            self.unmoved_after += same as u64;
            self.bodies_after += frame.len() as u64;
        }
        self.since_frame = 0;
        self.previous.clear();
        self.previous.extend_from_slice(frame.aabbs);
        reference_pairs(frame.aabbs, out);
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        assert!(resize.check().is_ok() && resize.is_permutation(), "the reorder sequences only permute");
        self.permutations += 1;
        self.back_to_back += u32::from(self.since_frame > 0);
        self.since_frame += 1;
        if self.previous.len() == resize.old_len() {
            reorder::permute(resize, &mut self.previous);
            self.pending_check = true;
        }
    }
}

#[test]
fn the_reorder_sequences_permute_randomly_and_in_space_and_bodies_keep_their_boxes() {
    let mut checker = Checker::default();
    for sequence in sequences().into_iter().filter(|s| s.reorder > 0) {
        let mut auditor = PermutationAuditor::default();
        sequence.run(&mut auditor, &mut checker).unwrap();
        // One before the first frame, one every `reorder` frames after it, two at the double reorder.
        let announced = (1..sequence.frames)
            .map(|f| if f == DOUBLE_REORDER_FRAME { 2 } else { u32::from(f % sequence.reorder == 0) })
            .sum::<u32>();
        assert_eq!(auditor.permutations, 1 + announced, "{}", sequence.name);
        assert_eq!(auditor.back_to_back, 1, "{}: one permutation straight after another", sequence.name);
        // The random permutations and the spatial sorts take turns: about half the frames after a permutation see
        // the bodies in Morton order, and a random order never is.
        let (sorted, after) = (auditor.spatial, auditor.frames_after);
        assert!(3 * sorted >= after && 3 * sorted <= 2 * after, "{}: {sorted} of {after} in order", sequence.name);
        // Mostly resting bodies: most keep their box, bit for bit, under their new index.
        let (unmoved, bodies) = (auditor.unmoved_after, auditor.bodies_after);
        assert!(unmoved * 2 > bodies, "{}: {unmoved} of {bodies} unmoved", sequence.name);
    }
}

/// An incremental broadphase that trusts the motion hint: the pairs of two bodies marked unmoved are last call's
/// (their boxes are the same), the others are brute force's. Right when `on_resize` renames its cached pairs
/// through a permutation; the `ignore_permutations` defect keeps them as they are, as if indices still named the
/// same bodies — which the kit must catch.
#[derive(Default)]
struct HintCache {
    ignore_permutations: bool,
    /// Last call's pairs, in its numbering.
    pairs: Vec<Pair>,
    /// `false` after a resize that is not a permutation (and before the first call): nothing is cached.
    cached: bool,
    /// The pairs of the last call taken from the cache.
    from_cache: usize,
}

impl Broadphase for HintCache {
    fn name(&self) -> &'static str {
        "hint-cache"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        reject_invalid_boxes(frame);
        let mut fresh = PairList::new();
        reference_pairs(frame.aabbs, &mut fresh);
        out.clear();
        match frame.moved.filter(|_| self.cached) {
            Some(moved) => {
                let still = |p: &Pair| !moved[p.a as usize] && !moved[p.b as usize];
                let out = out.as_mut_vec();
                out.extend(self.pairs.iter().filter(|p| still(p)));
                self.from_cache = out.len();
                out.extend(fresh.iter().filter(|p| !still(p)));
            }
            None => {
                self.from_cache = 0;
                out.extend_from_slice(fresh.as_slice());
            }
        }
        self.pairs.clear();
        self.pairs.extend_from_slice(out.as_slice());
        self.cached = true;
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if !resize.is_permutation() {
            self.reset();
        } else if !self.ignore_permutations {
            let map = resize.old_to_new;
            self.pairs.iter_mut().for_each(|p| *p = Pair::new(map[p.a as usize], map[p.b as usize]));
        }
    }
    fn reset(&mut self) {
        self.pairs.clear();
        self.cached = false;
    }
    fn stats(&self) -> Stats {
        Stats::new().with("from_cache", self.from_cache as f64)
    }
}

#[test]
fn permutation_frames_check_every_call_and_hand_back_the_counters_after_each_permutation() {
    let frames = reorder::permutation_frames(&mut HintCache::default(), 2000, true).unwrap();
    assert_eq!(frames.after.len(), 3, "a random permutation, a spatial sort, both back to back");
    let cached = |s: &Stats| s.get("from_cache").unwrap();
    assert!(cached(&frames.unpermuted) > 0.0, "{:?}", frames.unpermuted);
    assert!(frames.after.iter().all(|s| cached(s) > 0.0), "the cache answered after the permutations: {frames:?}");
    // Without the hint the cache is never read: the stats are of calls that did not use it.
    let unhinted = reorder::permutation_frames(&mut HintCache::default(), 2000, false).unwrap();
    assert!(unhinted.after.iter().all(|s| cached(s) == 0.0));
    let mut defect = HintCache { ignore_permutations: true, ..HintCache::default() };
    let failure = reorder::permutation_frames(&mut defect, 2000, true).expect_err("stale pairs are caught");
    assert!(!failure.missing.is_empty() || !failure.extra.is_empty(), "{failure}");
}

#[test]
fn a_structure_that_follows_permutations_conforms_and_one_that_ignores_them_is_caught() {
    assert_conforms(|| Box::new(HintCache::default()));
    let failure = check_all(&|| Box::new(HintCache { ignore_permutations: true, ..HintCache::default() }))
        .expect_err("a cache that ignores a permutation answers with other bodies' pairs");
    assert!(failure.scene.starts_with("moving-reorder"), "{failure}");
    assert!(!failure.missing.is_empty() || !failure.extra.is_empty(), "{failure}");
}

/// A structure whose `validate()` fails right after a permutation and holds again after a frame: the kit's check
/// between `on_resize` and the next frame must name it.
#[derive(Default)]
struct InvalidAfterPermutation {
    renamed: bool,
}

impl Broadphase for InvalidAfterPermutation {
    fn name(&self) -> &'static str {
        "invalid-after-permutation"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        reject_invalid_boxes(frame);
        reference_pairs(frame.aabbs, out);
        self.renamed = false;
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        self.renamed = resize.is_permutation();
    }
    fn validate(&self) -> Result<(), String> {
        if self.renamed { Err("leaf 7 names a body of the old numbering".into()) } else { Ok(()) }
    }
}

/// The large sequence checks `validate()` between its resize (before frame 3, bodies removed and added) and the
/// next frame, and the failure names that frame, the sequence and its body count.
#[test]
fn the_large_sequence_names_the_frame_of_a_structure_invalid_after_its_resize() {
    let failure = parallel::run_large_sequence(&mut InvalidAfterResize::default()).expect_err("invalid after resize");
    assert_eq!(failure.scene, "large (shipped parallel threshold)", "{failure}");
    assert_eq!(failure.frame, 3, "{failure}");
    assert_eq!(failure.n, large_sequence_len(), "{failure}");
    assert!(failure.invalid.as_deref().unwrap().contains("a removed body is still stored"), "{failure}");
    assert!(failure.problem.as_deref().unwrap().contains("right after an on_resize"), "{failure}");
}

#[test]
fn a_structure_invalid_right_after_a_permutation_is_caught() {
    let failure = check_all(&|| Box::new(InvalidAfterPermutation::default())).expect_err("invalid between calls");
    assert!(failure.scene.starts_with("moving-reorder"), "{failure}");
    assert!(failure.invalid.as_deref().unwrap().contains("leaf 7"), "{failure}");
    assert!(
        failure.problem.as_deref().unwrap().contains("right after the on_resize of a random permutation"),
        "{failure}"
    );
}

/// Each of the [`broken::KINDS`] ways [`broken::corrupt`] breaks a box is the one its docs name, worked out here
/// for the box [1, 2] × [3, 4] × [5, 6]; every one fails [`is_valid_box`], and the kinds repeat modulo `KINDS`.
/// (A kind falling through to another — say the one-float-step inversion turned into all NaN — would leave the
/// invalid-box scenes without the case that is hardest to tell from a valid box.)
#[test]
fn every_kind_of_corrupt_box_is_the_one_documented_and_invalid() {
    use collide_math::Vec3;
    let b = Aabb::new(Vec3::new(1.0, 3.0, 5.0), Vec3::new(2.0, 4.0, 6.0));
    let same = |x: Aabb, y: Aabb| {
        let bits = |a: Aabb| [a.min.x, a.min.y, a.min.z, a.max.x, a.max.y, a.max.z].map(f32::to_bits);
        bits(x) == bits(y)
    };
    let nan = f32::NAN;
    let expected = [
        Aabb::new(Vec3::new(nan, 3.0, 5.0), b.max),
        Aabb::new(b.min, Vec3::new(2.0, 4.0, nan)),
        Aabb::new(b.min, Vec3::new(2.0, f32::INFINITY, 6.0)),
        Aabb::new(Vec3::new(f32::NEG_INFINITY, 3.0, 5.0), b.max),
        Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY),
        Aabb::new(Vec3::new(1.0, 14.0, 5.0), b.max),
        Aabb::new(b.min, Vec3::new(2.0, 4.0, 5.0_f32.next_down())),
        Aabb::new(Vec3::new(3.0, 5.0, 7.0), Vec3::new(0.0, 2.0, 4.0)),
        Aabb::EMPTY,
        Aabb::new(Vec3::splat(nan), Vec3::splat(nan)),
    ];
    assert_eq!(expected.len(), usize::from(broken::KINDS));
    for (kind, want) in expected.into_iter().enumerate() {
        let kind = kind as u8;
        let got = broken::corrupt(b, kind);
        assert!(same(got, want), "kind {kind}: {got:?}, want {want:?}");
        assert!(!is_valid_box(&got), "kind {kind} is invalid");
        assert!(same(broken::corrupt(b, kind + broken::KINDS), want), "kind {kind} + KINDS");
    }
}

/// [`broken::break_and_heal`]: a whole body breaks with the given chance, into a kind 1..=KINDS (0 means whole),
/// and a broken one heals with a chance of one in five a frame, staying broken as it was otherwise.
#[test]
fn bodies_break_with_the_given_chance_and_heal_one_time_in_five() {
    let mut rng = collide_math::Rng::new(5);
    let mut state = vec![0u8; 1000];
    broken::break_and_heal(&mut rng, 1.0, &mut state);
    assert!(state.iter().all(|&k| (1..=broken::KINDS).contains(&k)), "every whole body broke");
    let kinds: std::collections::BTreeSet<u8> = state.iter().copied().collect();
    assert_eq!(kinds.len(), usize::from(broken::KINDS), "into every kind");
    let before = state.clone();
    broken::break_and_heal(&mut rng, 0.0, &mut state);
    let healed = state.iter().filter(|&&k| k == 0).count();
    assert!((150..=250).contains(&healed), "about one in five heals: {healed}");
    assert!(state.iter().zip(&before).all(|(&now, &was)| now == 0 || now == was), "the others stay as they were");
    broken::break_and_heal(&mut rng, 0.0, &mut state);
    assert!(state.iter().zip(&before).all(|(&now, &was)| now == 0 || now == was), "with chance 0 nobody breaks");
}

/// The snapshot scenes are the four named ones, of the sizes their docs and the snapshots in every algorithm's
/// crate expect: the 3×3×3 touching grid (27 bodies, every pair within one step on each axis overlapping: 158 pairs
/// of 351, counted here by the grid coordinates), 60 small uniform bodies, 40 small ones and a large one, and 8
/// bodies at one point (all 28 pairs).
#[test]
fn the_snapshot_scenes_are_the_four_documented() {
    let scenes = snapshot_scenes();
    let names: Vec<&str> = scenes.iter().map(|s| s.name).collect();
    assert_eq!(names, ["grid-3x3x3-touching", "small-uniform", "small-mixed", "one-point-8"]);
    let sizes: Vec<usize> = scenes.iter().map(|s| s.aabbs.len()).collect();
    assert_eq!(sizes, [27, 60, 41, 8]);
    // In a k-grid, cells within one step on every axis: per axis, pairs of coordinates equal (3) or adjacent (2·2)
    // of the 3 × 3 ordered ones; over three axes (3 + 4)³ ordered cell pairs, less the 27 of a cell with itself,
    // halved.
    let count = |aabbs: &[Aabb]| {
        (0..aabbs.len()).map(|i| (i + 1..aabbs.len()).filter(|&j| aabbs[i].overlaps(&aabbs[j])).count()).sum::<usize>()
    };
    assert_eq!(count(&scenes[0].aabbs), (7 * 7 * 7 - 27) / 2);
    assert_eq!(count(&scenes[3].aabbs), 28);
}

/// The moving sequences with invalid boxes are the documented four, every one breaking bodies (`invalid > 0`), one
/// of them slow, and the resting ones hinted, with churn in one and a reorder in the other.
#[test]
fn the_invalid_sequences_break_bodies_while_moving_resting_churning_and_reordering() {
    let sequences = invalid_sequences();
    let names: Vec<&str> = sequences.iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        ["invalid-moving", "invalid-resting-hinted-churn", "invalid-resting-hinted-reorder", "invalid-slow"]
    );
    assert!(sequences.iter().all(|s| s.invalid > 0.0 && s.bodies > 0 && s.frames > 0));
    assert!(sequences[1].churn > 0 && sequences[1].resting_fraction > 0.0);
    assert!(sequences[2].reorder > 0 && sequences[2].resting_fraction > 0.0);
}

/// What the kit shows a broadphase, folded into a digest (FNV-1a over every frame's step, boxes, moved hint and
/// invalid-box policy, and every resize's map), answered as [`Reference`] answers.
#[derive(Default)]
struct Recorder {
    digest: u64,
    frames: u32,
    resizes: u32,
    most_bodies: usize,
}

impl Recorder {
    fn fold(&mut self, word: u64) {
        for byte in word.to_le_bytes() {
            self.digest = (self.digest ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}

impl Broadphase for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.frames += 1;
        self.most_bodies = self.most_bodies.max(frame.aabbs.len());
        self.fold(frame.step);
        self.fold(frame.aabbs.len() as u64);
        for b in frame.aabbs {
            for x in [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z] {
                self.fold(u64::from(x.to_bits()));
            }
        }
        for &m in frame.moved.unwrap_or(&[]) {
            self.fold(u64::from(m));
        }
        // The policy where it decides something: a frame holding an invalid box. Elsewhere a frame keeps the
        // build's default (`InvalidBoxes::DEFAULT`: a panic in debug builds, nothing in release), and folding that
        // gave each profile its own digests, so the snapshot failed under `cargo test --release`.
        let has_invalid = frame.aabbs.iter().any(|b| !is_valid_box(b));
        self.fold(u64::from(has_invalid && frame.invalid_boxes == InvalidBoxes::OverlapNothing));
        Reference.find_pairs(frame, out);
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        self.resizes += 1;
        self.fold(resize.new_len as u64);
        for &to in resize.old_to_new {
            self.fold(u64::from(to));
        }
    }
}

/// The kit's scenes and sequences, pinned: each static, snapshot and invalid scene's size, pairs (counted here by
/// brute force over every two boxes), invalid boxes and bounds of its valid ones, and each moving sequence's frames,
/// resizes, largest body count and a digest of every box and hint it shows. A change to any of them (a scene that
/// lost its touching walls, a motion turned round, a resize that no longer empties the world) changes the snapshot,
/// which a reviewer then reads: the kit is what every algorithm is judged by.
#[test]
fn the_kits_scenes_and_sequences_are_pinned() {
    use collide_math::Vec3;
    use std::fmt::Write as _;
    let mut text = String::new();
    let scenes = static_scenes().into_iter().chain(snapshot_scenes()).chain(invalid_scenes());
    for scene in scenes {
        let boxes = &scene.aabbs;
        let pairs: usize =
            (0..boxes.len()).map(|i| (i + 1..boxes.len()).filter(|&j| boxes[i].overlaps(&boxes[j])).count()).sum();
        let valid: Vec<&Aabb> = boxes.iter().filter(|b| is_valid_box(b)).collect();
        let (lo, hi) =
            valid.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), b| (lo.min(b.min), hi.max(b.max)));
        writeln!(
            text,
            "scene {}: {} boxes, {} overlapping pairs, {} invalid, valid within {:?}..{:?}",
            scene.name,
            boxes.len(),
            pairs,
            boxes.len() - valid.len(),
            lo.to_array(),
            hi.to_array()
        )
        .unwrap();
    }
    for sequence in sequences().into_iter().chain(invalid_sequences()) {
        let mut recorder = Recorder { digest: 0xCBF2_9CE4_8422_2325, ..Recorder::default() };
        sequence.run(&mut recorder, &mut Checker::default()).expect("the reference passes");
        writeln!(
            text,
            "sequence {}: {} frames, {} resizes, at most {} bodies, digest {:016x}",
            sequence.name, recorder.frames, recorder.resizes, recorder.most_bodies, recorder.digest
        )
        .unwrap();
    }
    // The large sequence of the parallel check (at the shipped threshold): its resize, rest, permutation,
    // teleport and the slow motion after it.
    let mut recorder = Recorder { digest: 0xCBF2_9CE4_8422_2325, ..Recorder::default() };
    parallel::run_large_sequence(&mut recorder).expect("the reference passes");
    writeln!(
        text,
        "sequence large (parallel check): {} frames, {} resizes, at most {} bodies, digest {:016x}",
        recorder.frames, recorder.resizes, recorder.most_bodies, recorder.digest
    )
    .unwrap();
    insta::assert_snapshot!(text);
}

/// Answers like [`Reference`] and reports a fixed number of box tests for the ordinary 3000-box scene and another
/// for the same scene with the five outliers.
struct FixedCost {
    plain: u64,
    with_far: u64,
    last: u64,
}

impl Broadphase for FixedCost {
    fn name(&self) -> &'static str {
        "fixed-cost"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.last = if frame.aabbs.len() == 3000 { self.plain } else { self.with_far };
        reference_pairs(frame.aabbs, out);
    }
    fn stats(&self) -> Stats {
        Stats::new().with_work(self.last, 0, 0)
    }
}

/// The outlier check allows three times the ordinary scene's box tests plus four per body (3005 bodies: 12 020):
/// with 10 000 ordinary tests, 30 000 with the outliers pass (the bound is 42 020) and 42 021 fail.
#[test]
fn the_outlier_cost_bound_is_three_times_the_ordinary_tests_plus_four_per_body() {
    let run = |with_far| {
        let make = move || -> Box<dyn Broadphase> { Box::new(FixedCost { plain: 10_000, with_far, last: 0 }) };
        cost::check_outlier_cost(&make)
    };
    assert!(run(30_000).is_ok());
    assert!(run(42_020).is_ok());
    let f = run(42_021).expect_err("one test over the bound fails");
    assert_eq!(f.scene, "far-outliers (cost)");
    assert_eq!(f.n, 3005);
    assert!(f.problem.as_deref().unwrap().contains("from 10000 to 42021 (allowed: 42020)"), "{f}");
}

/// Never valid, not even before its first frame.
struct NeverValid;

impl Broadphase for NeverValid {
    fn name(&self) -> &'static str {
        "never-valid"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        Reference.find_pairs(frame, out);
    }
    fn validate(&self) -> Result<(), String> {
        Err("the root is missing".into())
    }
}

#[test]
fn a_structure_invalid_before_its_first_frame_is_reported_as_fresh() {
    let make = || -> Box<dyn Broadphase> { Box::new(NeverValid) };
    let f = check_all(&make).expect_err("an invalid fresh structure fails");
    assert_eq!(f.scene, "fresh, before any frame");
    assert_eq!(f.invalid.as_deref(), Some("the root is missing"));
}

#[test]
fn compare_reports_the_body_count() {
    use collide_math::Vec3;
    let aabbs = vec![Aabb::new(Vec3::ZERO, Vec3::ONE); 5];
    let mut expected = PairList::new();
    expected.push(0, 1);
    let f = compare(&aabbs, &expected, &PairList::new());
    assert_eq!(f.n, 5);
    assert_eq!(f.missing, [Pair::new(0, 1)]);
}

/// Panics on an invalid box under [`InvalidBoxes::Panic`] naming the body but not its box.
struct NamesTheBodyOnly;

impl Broadphase for NamesTheBodyOnly {
    fn name(&self) -> &'static str {
        "names-the-body-only"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        if frame.invalid_boxes == InvalidBoxes::Panic
            && let Some(i) = frame.aabbs.iter().position(|b| !is_valid_box(b))
        {
            panic!("body {i} is invalid");
        }
        Reference.find_pairs(frame, out);
    }
}

#[test]
fn a_panic_that_names_the_body_but_not_its_box_is_caught() {
    let make = || -> Box<dyn Broadphase> { Box::new(NamesTheBodyOnly) };
    let f = invalid::check_panics(&make).expect_err("the box must be named too");
    assert!(f.problem.as_deref().unwrap().contains("must name body 13 and its box"), "{f}");
}

/// `invalid-mixed` breaks every seventh body (indices 3, 10, 17, …) with the kinds in rotation, so NaN, infinite and
/// finite inverted boxes all occur; `invalid-in-a-crowd` puts an infinite box first and one broken box of each kind
/// every nine bodies from body 5 of the crowd at one point.
#[test]
fn the_invalid_scenes_spread_every_kind_of_broken_box() {
    let scenes = invalid_scenes();
    let mixed = &scenes.iter().find(|s| s.name == "invalid-mixed").unwrap().aabbs;
    let broken: Vec<usize> = (0..mixed.len()).filter(|&i| !is_valid_box(&mixed[i])).collect();
    assert_eq!(broken, (0..100).map(|k| 7 * k + 3).collect::<Vec<_>>());
    let corners = |b: &Aabb| [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z];
    let nan = broken.iter().filter(|&&i| corners(&mixed[i]).iter().any(|c| c.is_nan())).count();
    let infinite = broken.iter().filter(|&&i| corners(&mixed[i]).iter().any(|c| c.is_infinite())).count();
    let inverted_finite = broken
        .iter()
        .filter(|&&i| {
            corners(&mixed[i]).iter().all(|c| c.is_finite()) && {
                let b = mixed[i];
                b.min.x > b.max.x || b.min.y > b.max.y || b.min.z > b.max.z
            }
        })
        .count();
    assert!(nan >= 20 && infinite >= 20 && inverted_finite >= 20, "{nan} {infinite} {inverted_finite}");
    let crowd = &scenes.iter().find(|s| s.name == "invalid-in-a-crowd").unwrap().aabbs;
    let broken: Vec<usize> = (0..crowd.len()).filter(|&i| !is_valid_box(&crowd[i])).collect();
    assert_eq!(broken, [0, 5, 14, 23, 32, 41, 50, 59, 68, 77, 86]);
}

/// Morton keys worked out by hand in the cube `[10, 1034]³` (one step per unit): x is the highest of each three bits,
/// z the lowest, and points outside the cube clamp to its faces.
#[test]
fn morton_keys_interleave_x_y_z_from_the_cube_corner() {
    use collide_math::Vec3;
    let lo = Vec3::splat(10.0);
    let key = |x: f32, y: f32, z: f32| reorder::morton_key(lo + Vec3::new(x, y, z), lo, 1024.0);
    assert_eq!(key(0.0, 0.0, 0.0), 0);
    assert_eq!(key(1.0, 0.0, 0.0), 0b100);
    assert_eq!(key(0.0, 1.0, 0.0), 0b010);
    assert_eq!(key(0.0, 0.0, 1.0), 0b001);
    assert_eq!(key(3.0, 0.0, 2.0), 0b101_100);
    assert_eq!(key(1023.5, 1023.5, 1023.5), (1 << 30) - 1);
    // y clamped to 1023 (every bit set), x and z to 0: 0b010 in each of the ten octal digits.
    assert_eq!(key(-5.0, 2000.0, 0.0), 2 * 0o1_111_111_111);
}

#[test]
fn a_structure_invalid_after_a_permutation_is_reported_with_the_body_count() {
    let mut bp = InvalidAfterPermutation::default();
    let f = reorder::permutation_frames(&mut bp, 300, true).expect_err("invalid after the permutation");
    assert_eq!(f.scene, "permutation-frames");
    assert_eq!(f.n, 300);
}

/// Valid until a resize that adds or removes bodies, invalid from then on.
#[derive(Default)]
struct InvalidAfterResize {
    resized: bool,
}

impl Broadphase for InvalidAfterResize {
    fn name(&self) -> &'static str {
        "invalid-after-resize"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        Reference.find_pairs(frame, out);
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        self.resized |= !resize.is_permutation();
    }
    fn validate(&self) -> Result<(), String> {
        if self.resized { Err("a removed body is still stored".into()) } else { Ok(()) }
    }
}

#[test]
fn a_structure_invalid_after_a_churn_resize_is_reported_with_the_body_count() {
    let churn = sequences().into_iter().find(|s| s.churn > 0).expect("a churning sequence");
    let f = churn.run(&mut InvalidAfterResize::default(), &mut Checker::default()).expect_err("invalid after resize");
    assert_eq!(f.scene, churn.name);
    assert_eq!(f.frame, 0);
    assert!(f.n > 0, "{f}");
    assert!(f.problem.as_deref().unwrap().contains("after the on_resize of a resize"), "{f}");
}

/// Counts its calls and answers like [`Reference`]; its stats report the calls so far.
#[derive(Default)]
struct CallCounter {
    calls: u32,
    resizes: Vec<usize>,
}

impl Broadphase for CallCounter {
    fn name(&self) -> &'static str {
        "call-counter"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.calls += 1;
        Reference.find_pairs(frame, out);
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        assert!(resize.is_permutation());
        self.resizes.push(self.calls as usize);
    }
    fn stats(&self) -> Stats {
        Stats::new().with("calls", f64::from(self.calls))
    }
}

/// A run permuting every 3 calls announces a permutation before calls 3, 6 and 9 of ten (never before the first),
/// and the next run goes on counting from there (before calls 12 and 15 of the next six); the stats it hands
/// back are those of the call right after each permutation.
#[test]
fn a_permuting_run_permutes_every_few_calls_from_the_first_and_keeps_counting() {
    use collide_math::Vec3;
    let scene = |f: usize, id: u32| Aabb::from_center_radius(Vec3::new(id as f32 * 1.5, f as f32 * 0.1, 0.0), 1.0);
    let mut run = PermutingRun::new(20, 3, true);
    let mut bp = CallCounter::default();
    let seen = run.run(&mut bp, 10, &scene);
    assert_eq!(seen.permutations, 3);
    assert_eq!(bp.calls, 10);
    assert_eq!(bp.resizes, [3, 6, 9]);
    let after: Vec<Option<f64>> = seen.after.iter().map(|s| s.get("calls")).collect();
    assert_eq!(after, [Some(4.0), Some(7.0), Some(10.0)]);
    let seen = run.run(&mut bp, 6, &scene);
    assert_eq!(seen.permutations, 2);
    assert_eq!(bp.resizes, [3, 6, 9, 12, 15]);
    assert!(!run.last_pairs().is_empty());
}

/// `float-limits` holds 224 boxes: 200 ordinary ones, 24 on the faces of the f32 range, six of those (every fourth)
/// also reaching `f32::MAX` on the next axis — an edge of the range — and one box spanning the whole range.
#[test]
fn the_float_limits_scene_reaches_the_edges_of_the_f32_range() {
    let scenes = static_scenes();
    let limits = &scenes.iter().find(|s| s.name == "float-limits").unwrap().aabbs;
    assert_eq!(limits.len(), 200 + 24 + 1);
    let at_max = |b: &Aabb| [b.max.x, b.max.y, b.max.z].iter().filter(|&&c| c == f32::MAX).count();
    let at_min = |b: &Aabb| [b.min.x, b.min.y, b.min.z].iter().filter(|&&c| c == f32::MIN).count();
    let edges: Vec<usize> = (0..limits.len()).filter(|&i| at_max(&limits[i]) == 2 && at_min(&limits[i]) == 0).collect();
    assert_eq!(edges, [200, 204, 208, 212, 216, 220]);
    let whole = limits.iter().filter(|b| at_max(b) == 3 && at_min(b) == 3).count();
    assert_eq!(whole, 1);
}

/// `signed-zeros` writes body `i`'s zeros with the sign of bits 0–5 of `i` (−0.0 for a one): body 0 is the flat
/// box x = +0 between −1 and 1 on y and z, body 1 the box from (−0, +0, +0) to (1, 1, 1), both checked bit for bit.
#[test]
fn the_signed_zero_scene_writes_zeros_of_both_signs() {
    use collide_math::Vec3;
    let scenes = static_scenes();
    let zeros = &scenes.iter().find(|s| s.name == "signed-zeros").unwrap().aabbs;
    assert_eq!(zeros.len(), 64);
    let bits = |b: &Aabb| [b.min, b.max].map(|v| v.to_array().map(f32::to_bits));
    let expect = |min: Vec3, max: Vec3| bits(&Aabb::new(min, max));
    assert_eq!(bits(&zeros[0]), expect(Vec3::new(0.0, -1.0, -1.0), Vec3::new(0.0, 1.0, 1.0)));
    assert_eq!(bits(&zeros[1]), expect(Vec3::new(-0.0, 0.0, 0.0), Vec3::ONE));
}

/// `far-outliers` puts two small bodies out at x = −1e30 (the cube at −1e30 on every axis and the one at
/// (−1e30, 50, 1e30)) and two at y = +1e30 (the cube at +1e30 on every axis and the one at (50, 1e30, 50)).
#[test]
fn the_far_outliers_lie_on_both_sides_of_the_world() {
    let scenes = static_scenes();
    let far = &scenes.iter().find(|s| s.name == "far-outliers").unwrap().aabbs;
    assert_eq!(far.len(), 805);
    let beyond_negative_x = far.iter().filter(|b| b.max.x < -1.0e29).count();
    let beyond_positive_y = far.iter().filter(|b| b.min.y > 1.0e29).count();
    assert_eq!((beyond_negative_x, beyond_positive_y), (2, 2));
    assert!(far.iter().any(|b| b.max.x < -1.0e29 && b.min.y > 49.0 && b.max.y < 51.0 && b.min.z > 1.0e29));
}

/// Keeps the boxes of the last call and the largest coordinate seen.
#[derive(Default)]
struct LastBoxes {
    last: Vec<Aabb>,
    highest: f32,
}

impl Broadphase for LastBoxes {
    fn name(&self) -> &'static str {
        "last-boxes"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.last = frame.aabbs.to_vec();
        self.highest = frame.aabbs.iter().fold(self.highest, |h, b| h.max(b.max.x).max(b.max.y).max(b.max.z));
        Reference.find_pairs(frame, out);
    }
    fn on_resize(&mut self, _resize: &Resize<'_>) {}
}

/// The permutation frames place 1000 unit boxes in a cube of 50 volume units per body (side ∛50 000 ≈ 36.8), and a
/// body reaching a wall bounces off it: in the last call only a few sit exactly on the wall at 0 (box min −0.5).
#[test]
fn the_permutation_frames_fill_a_cube_of_fifty_units_per_body_and_bounce_off_its_walls() {
    let mut bp = LastBoxes::default();
    reorder::permutation_frames(&mut bp, 1000, true).expect("the reference conforms");
    assert!(bp.highest > 35.0 && bp.highest <= 36.85 + 0.5, "{}", bp.highest);
    let on_the_wall = bp.last.iter().filter(|b| b.min.x == -0.5 || b.min.y == -0.5 || b.min.z == -0.5).count();
    assert!(on_the_wall < 15, "{on_the_wall} bodies stuck on the wall at 0");
}

/// Keeps the boxes of every frame it is shown, answering as [`Reference`] does.
#[derive(Default)]
struct Shown(Vec<Vec<Aabb>>);

impl Broadphase for Shown {
    fn name(&self) -> &'static str {
        "shown"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.0.push(frame.aabbs.to_vec());
        Reference.find_pairs(frame, out);
    }
}

/// A [`PermutingRun`]'s permutations alternate a random order and a spatial sort: after the sort, bodies next to
/// each other in the order lie close in space (a space-filling curve through the scene), after a random order as
/// far apart as any two. Measured as the mean distance between consecutive centres, against a random order's.
#[test]
fn a_permuting_run_alternates_random_orders_and_spatial_sorts() {
    use collide_math::Vec3;
    // Body `id` at a fixed place in a 100-wide cube, scattered by a multiplicative hash of its id.
    let scene = |_call: usize, id: u32| {
        let h = u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let coord = |shift: u32| ((h >> shift) & 0xFFFF) as f32 / 65_535.0 * 100.0;
        Aabb::from_center_radius(Vec3::new(coord(0), coord(16), coord(32)), 0.5)
    };
    let mut run = PermutingRun::new(512, 2, false);
    let mut shown = Shown::default();
    let seen = run.run(&mut shown, 6, &scene);
    assert_eq!(seen.permutations, 2, "calls 2 and 4");
    let spread = |boxes: &[Aabb]| {
        boxes.windows(2).map(|w| w[0].center().distance(w[1].center())).sum::<f32>() / (boxes.len() - 1) as f32
    };
    let (random, sorted) = (spread(&shown.0[2]), spread(&shown.0[4]));
    assert!(random > 40.0, "random order: {random}");
    assert!(sorted < 0.25 * random, "spatial sort: {sorted} against {random}");
}
