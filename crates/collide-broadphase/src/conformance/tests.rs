//! Tests of the kit itself: it must pass the reference and fail loudly on every kind of wrong answer.

use super::*;
use crate::{Frame, Resize, Stats};

/// The reference behind the trait: the kit must accept it.
struct Reference;

impl Broadphase for Reference {
    fn name(&self) -> &'static str {
        "reference"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
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
    fn reset(&mut self) {
        self.previous.clear();
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
            }
        }
    }
    let hinted = sequences().iter().filter(|s| s.resting_fraction > 0.0 && s.hint != MovedHint::Absent).count();
    assert_eq!(hinted, 2, "a partly resting sequence with an exact hint and one with a conservative hint");
}
