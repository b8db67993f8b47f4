//! The selector against brute force: the conformance kit in the normal and the forced-switch modes, warm
//! switches between every pair of candidates, and one decision on a scene built to make it, with real timing
//! (the policy's decisions on synthetic costs are tested deterministically through `replay`).

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

/// A candidate that answers like brute force and then spins until its frame has cost `cost(frame)` ms of wall
/// time: a stand-in whose cost the test controls.
struct Timed {
    name: &'static str,
    oracle: BruteForce,
    frame: u64,
    cost: fn(&'static str, u64) -> f64,
}

impl Broadphase for Timed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let start = std::time::Instant::now();
        self.oracle.find_pairs(frame, out);
        let budget = std::time::Duration::from_secs_f64((self.cost)(self.name, frame.step) / 1e3);
        while start.elapsed() < budget {
            std::hint::spin_loop();
        }
        self.frame += 1;
    }
}

fn timed(cost: fn(&'static str, u64) -> f64) -> Selector {
    let candidates = ["a", "b"]
        .into_iter()
        .map(|name| Candidate { name, broadphase: Box::new(Timed { name, oracle: BruteForce::new(), frame: 0, cost }) })
        .collect();
    Selector::new(candidates, PolicyConfig::default(), Prior::builtin(), 0)
}

/// Run `frames` frames of 30 boxes in a row, spaced `spacing(step)` apart (1 box wide, so 0.7 makes neighbours
/// overlap, about one pair per body, and 0.05 packs them, about 15 pairs per body).
fn drive_scene(s: &mut Selector, frames: u64, spacing: impl Fn(u64) -> f32) -> Vec<&'static str> {
    let mut out = PairList::new();
    (0..frames)
        .map(|step| {
            let d = spacing(step);
            let aabbs: Vec<Aabb> =
                (0..30).map(|i| Aabb::from_center_radius(collide_math::Vec3::splat(i as f32 * d), 0.5)).collect();
            s.find_pairs(&Frame::new(&aabbs).with_step(step), &mut out);
            s.active_name()
        })
        .collect()
}

#[test]
fn a_scene_change_is_followed() {
    // At step 150 the row of boxes closes up into a crowd, and `b` becomes three times cheaper than `a`: the
    // features move to another regime, where the selector knows nothing yet, so it probes `b` and switches.
    fn cost(name: &'static str, step: u64) -> f64 {
        match (name, step < 150) {
            ("a", true) | ("b", false) => 0.5,
            _ => 1.5,
        }
    }
    let mut s = timed(cost);
    let active = drive_scene(&mut s, 400, |step| if step < 150 { 0.7 } else { 0.05 });
    let log: Vec<String> =
        s.decisions().iter().map(|d| format!("{} {}: {}", d.frame, d.kind.name(), d.reason)).collect();
    let first_b =
        active.iter().skip(150).position(|&a| a == "b").unwrap_or_else(|| panic!("never switched to b: {log:#?}"))
            + 150;
    assert!(first_b < 150 + 60, "followed after {} steps: {log:#?}", first_b - 150);
    assert!(active[first_b..].iter().all(|&a| a == "b"), "and stayed");
}
