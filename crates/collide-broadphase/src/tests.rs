use super::*;
use collide_math::Vec3;
use std::sync::{Arc, Mutex};

/// Which hooks a test broadphase saw, in order.
type Log = Arc<Mutex<Vec<String>>>;

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// A broadphase that writes only the two required methods and logs every `reset`: the trait's default hooks
/// are what it does for the rest.
struct Minimal {
    log: Log,
}

impl Broadphase for Minimal {
    fn name(&self) -> &'static str {
        "minimal"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        reference_pairs(frame.aabbs, out);
    }
    fn reset(&mut self) {
        self.log.lock().unwrap().push("reset".to_owned());
    }
}

/// A broadphase that overrides every hook with a value no default and no blank answer has (a name other than its
/// active name, 4 settling calls, an error from `validate`), and logs the calls that return nothing.
struct Overriding {
    log: Log,
}

impl Broadphase for Overriding {
    fn name(&self) -> &'static str {
        "overriding"
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        self.log.lock().unwrap().push(format!("find_pairs({})", frame.len()));
        out.clear();
        out.push(7, 3);
    }
    fn stats(&self) -> Stats {
        Stats::new().with_work(3, 5, 7).with("nodes", 11.0)
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        self.log.lock().unwrap().push(format!("on_resize({})", resize.new_len));
    }
    fn reset(&mut self) {
        self.log.lock().unwrap().push("reset".to_owned());
    }
    fn settling_calls(&self) -> u32 {
        4
    }
    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        self.log.lock().unwrap().push(format!("warm_start({}, {})", frame.len(), pairs.len()));
    }
    fn validate(&self) -> Result<(), String> {
        Err("leaf 2 is over-full".to_owned())
    }
    fn debug_geometry(&self, out: &mut DebugGeometry) {
        out.boxes.push(DebugBox { aabb: Aabb::new(Vec3::ZERO, Vec3::ONE), depth: 3 });
    }
    fn active_name(&self) -> &'static str {
        "overriding-active"
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// Two unit boxes that overlap and one far away: the one pair is (0, 1).
fn scene() -> [Aabb; 3] {
    [
        Aabb::new(Vec3::ZERO, Vec3::ONE),
        Aabb::new(Vec3::splat(0.5), Vec3::splat(1.5)),
        Aabb::new(Vec3::splat(10.0), Vec3::splat(11.0)),
    ]
}

/// The default hooks a minimal broadphase inherits: `on_resize` and `warm_start` forget everything (each calls
/// `reset` once), a structure settles after 1 call, the active name is its own name, and `stats`, `validate`,
/// `debug_geometry` and `as_any` report nothing.
#[test]
fn the_default_hooks_reset_on_resize_and_warm_start_and_report_the_own_name() {
    let log = Log::default();
    let mut bp = Minimal { log: Arc::clone(&log) };
    let aabbs = scene();
    let frame = Frame::new(&aabbs);
    let mut out = PairList::new();
    bp.find_pairs(&frame, &mut out);
    assert_eq!(out.as_slice(), [Pair::new(0, 1)]);
    assert!(entries(&log).is_empty());

    bp.on_resize(&Resize { old_to_new: &[1, 0, 2], new_len: 3 });
    assert_eq!(entries(&log), ["reset"], "the default on_resize forgets everything");
    bp.warm_start(&frame, out.as_slice());
    assert_eq!(entries(&log), ["reset", "reset"], "the default warm_start forgets everything");

    assert_eq!(bp.settling_calls(), 1);
    assert_eq!(bp.active_name(), "minimal");
    assert!(bp.stats().is_empty());
    assert_eq!(bp.validate(), Ok(()));
    assert!(bp.as_any().is_none());
    let mut geometry = DebugGeometry::default();
    bp.debug_geometry(&mut geometry);
    assert!(geometry.boxes.is_empty() && geometry.segments.is_empty());
}

/// Runs every hook through the `impl Broadphase for Box<B>`, whatever `B` is, and returns what came back.
fn through<B: Broadphase>(bp: &mut B, frame: &Frame<'_>) -> (PairList, DebugGeometry) {
    let mut out = PairList::new();
    bp.find_pairs(frame, &mut out);
    bp.on_resize(&Resize { old_to_new: &[0, 1, 2], new_len: 5 });
    bp.reset();
    bp.warm_start(frame, &[Pair::new(0, 1), Pair::new(1, 2)]);
    let mut geometry = DebugGeometry::default();
    bp.debug_geometry(&mut geometry);
    (out, geometry)
}

/// The read-only hooks through the `impl Broadphase for Box<B>`: name, active name, settling calls, validate,
/// stats, and whether `as_any` is the content.
fn answers<B: Broadphase>(bp: &B) -> (&'static str, &'static str, u32, Result<(), String>, Stats, bool) {
    let any_is_content = bp.as_any().is_some_and(<dyn std::any::Any>::is::<Overriding>);
    (bp.name(), bp.active_name(), bp.settling_calls(), bp.validate(), bp.stats(), any_is_content)
}

/// A boxed broadphase (what the registry builds) forwards every method to its content, the overridden hooks
/// included: the app and the bench only ever hold `Box<dyn Broadphase>`, so a hook the box swallowed would be
/// a hook no caller reaches.
#[test]
fn a_boxed_broadphase_forwards_every_hook_to_its_content() {
    let log = Log::default();
    let mut boxed: Box<dyn Broadphase> = Box::new(Overriding { log: Arc::clone(&log) });
    let aabbs = scene();
    let (out, geometry) = through(&mut boxed, &Frame::new(&aabbs));
    assert_eq!(out.as_slice(), [Pair { a: 3, b: 7 }]);
    assert_eq!(entries(&log), ["find_pairs(3)", "on_resize(5)", "reset", "warm_start(3, 2)"]);
    assert_eq!(geometry.boxes, [DebugBox { aabb: Aabb::new(Vec3::ZERO, Vec3::ONE), depth: 3 }]);

    let (name, active, settling, validate, stats, any_is_content) = answers(&boxed);
    assert_eq!((name, active, settling), ("overriding", "overriding-active", 4));
    assert_eq!(validate, Err("leaf 2 is over-full".to_owned()));
    assert_eq!((stats.pair_tests, stats.work, stats.bytes_touched, stats.get("nodes")), (3, 5, 7, Some(11.0)));
    assert!(any_is_content, "as_any reaches the boxed broadphase");
}
