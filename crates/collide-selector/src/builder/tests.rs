use super::*;
use collide_broadphase::reference_pairs;
use collide_math::Vec3;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Brute force that takes at least `delay` a call and says when it was dropped.
struct Slow {
    delay: std::time::Duration,
    dropped: Arc<AtomicBool>,
}
impl Broadphase for Slow {
    fn name(&self) -> &'static str {
        "slow"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        std::thread::sleep(self.delay);
        reference_pairs(frame.aabbs, out);
    }
}
impl Drop for Slow {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

fn job(delay_ms: u64, dropped: &Arc<AtomicBool>) -> Job {
    Job {
        candidate: 3,
        broadphase: Box::new(Slow { delay: std::time::Duration::from_millis(delay_ms), dropped: dropped.clone() }),
        boxes: Vec::new(),
        pairs: PairList::new(),
        step: 0,
        dt: 0.0,
        invalid_boxes: InvalidBoxes::default(),
        generation: 0,
        ms: 0.0,
    }
}

/// A step on the thread comes back with its candidate and its output, its thread time added to the job's (in
/// milliseconds); waiting with nothing on the thread returns nothing; the snapshot copies the frame whole.
#[test]
fn a_step_beside_comes_back_with_its_output_and_its_time_added() {
    let boxes: Vec<Aabb> = (0..40).map(|i| Aabb::from_center_radius(Vec3::X * (0.6 * i as f32), 0.5)).collect();
    let frame = Frame::new(&boxes).with_step(9).with_dt(0.25).with_invalid_boxes(InvalidBoxes::OverlapNothing);
    let dropped = Arc::new(AtomicBool::new(false));
    let mut b = Builder::default();
    assert_eq!(format!("{b:?}"), "Builder { started: false, busy: false }");
    assert!(b.wait().is_none() && b.poll().is_none(), "nothing on the thread");
    let mut j = job(20, &dropped);
    let mut expected = PairList::new();
    reference_pairs(&boxes, &mut expected);
    snapshot(&mut j, &frame, expected.as_slice());
    assert_eq!((j.boxes.as_slice(), j.pairs.as_slice()), (boxes.as_slice(), expected.as_slice()));
    assert_eq!((j.step, j.dt, j.invalid_boxes), (9, 0.25, InvalidBoxes::OverlapNothing));
    j.pairs.clear();
    j.ms = 1000.0;
    b.send(j, false);
    assert_eq!(format!("{b:?}"), "Builder { started: true, busy: true }");
    let back = b.wait().expect("the step comes back");
    assert!(b.wait().is_none(), "and nothing is left on the thread");
    assert_eq!(back.candidate, 3);
    let mut got = back.pairs.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    // 20 ms of sleep at least, added to the 1000 already spent (and well under a second).
    assert!(back.ms >= 1020.0 && back.ms < 2000.0, "{}", back.ms);
}

/// Dropping the builder waits for its thread: a step still running ends, and its candidate is dropped, before
/// the drop returns.
#[test]
fn dropping_the_builder_waits_for_the_step_on_its_thread() {
    let dropped = Arc::new(AtomicBool::new(false));
    let mut b = Builder::default();
    b.send(job(200, &dropped), false);
    drop(b);
    assert!(dropped.load(Ordering::SeqCst), "the candidate on the thread outlived the builder");
}
