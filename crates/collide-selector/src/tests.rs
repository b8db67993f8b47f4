//! The selector against brute force: the conformance kit in the normal and the forced-switch modes, warm
//! switches between every pair of candidates, and the decisions on scenes built to make them.

use crate::policy::PolicyConfig;
use crate::{Candidate, Prior, Selector};
use collide_broadphase::conformance::assert_conforms;
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, reference_pairs};
use collide_brute::BruteForce;

/// A stand-in candidate that answers like brute force but under another name, so the selector's mechanics are
/// tested without the algorithm crates (the workspace tests run it over the real registry).
struct Named(&'static str, BruteForce);

impl Broadphase for Named {
    fn name(&self) -> &'static str {
        self.0
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.1.find_pairs(frame, out);
    }
}

fn selector(names: &[&'static str], force_every: u64) -> Selector {
    let candidates =
        names.iter().map(|&name| Candidate { name, broadphase: Box::new(Named(name, BruteForce::new())) }).collect();
    Selector::new(candidates, PolicyConfig::default(), Prior::builtin(), force_every)
}

#[test]
fn conforms_with_one_candidate_and_with_several() {
    assert_conforms(|| Box::new(selector(&["sap"], 0)));
    assert_conforms(|| Box::new(selector(&["sap", "mbp", "octree-dup"], 0)));
}

#[test]
fn conforms_when_forced_to_switch_every_frame_and_every_seventh() {
    for k in [1, 7] {
        assert_conforms(|| Box::new(selector(&["sap", "mbp", "octree-dup"], k)));
    }
}

#[test]
fn forced_mode_cycles_through_every_candidate_and_logs_each_switch() {
    let mut s = selector(&["a", "b", "c"], 2);
    let aabbs: Vec<Aabb> =
        (0..50).map(|i| Aabb::from_center_radius(collide_math::Vec3::splat(i as f32 * 0.5), 0.4)).collect();
    let mut out = PairList::new();
    let mut expected = PairList::new();
    reference_pairs(&aabbs, &mut expected);
    expected.sort();
    let mut seen = Vec::new();
    for step in 0..12 {
        s.find_pairs(&Frame::new(&aabbs).with_step(step), &mut out);
        out.sort();
        assert_eq!(out, expected, "step {step}");
        seen.push(s.active_name());
    }
    assert_eq!(seen, ["a", "a", "b", "b", "c", "c", "a", "a", "b", "b", "c", "c"]);
    assert_eq!(s.totals().switches, 6);
    let forced = s.decisions().iter().filter(|d| d.kind == crate::DecisionKind::Forced).count();
    assert_eq!(forced, 6);
}

#[test]
fn forced_mode_with_room_for_a_probe_probes_then_switches() {
    let mut s = selector(&["a", "b"], 6);
    let aabbs: Vec<Aabb> =
        (0..40).map(|i| Aabb::from_center_radius(collide_math::Vec3::splat(i as f32 * 0.5), 0.4)).collect();
    let mut out = PairList::new();
    for step in 0..24 {
        s.find_pairs(&Frame::new(&aabbs).with_step(step), &mut out);
        s.validate().unwrap();
    }
    // Frame 5 starts a probe of b (warm start), frames 6–9 run it beside a, frame 9 hands over; six frames after
    // the first probe, frame 11 probes a; and so on.
    let log: Vec<(u64, crate::DecisionKind, &str)> = s.decisions().iter().map(|d| (d.frame, d.kind, d.to)).collect();
    use crate::DecisionKind::{Forced, Initial, Probe};
    let expected = [
        (0, Initial, "a"),
        (5, Probe, "b"),
        (9, Forced, "b"),
        (11, Probe, "a"),
        (15, Forced, "a"),
        (17, Probe, "b"),
        (21, Forced, "b"),
        (23, Probe, "a"),
    ];
    assert_eq!(log, expected);
    assert_eq!((s.totals().probes, s.totals().switches), (4, 3));
}
