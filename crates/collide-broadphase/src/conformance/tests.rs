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
        self.fold(u64::from(frame.invalid_boxes == InvalidBoxes::OverlapNothing));
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
    insta::assert_snapshot!(text);
}
