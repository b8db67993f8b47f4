//! The kit's half of the invalid-box contract (`crate::invalid`): scenes and a moving sequence with boxes that
//! are not finite or are inverted, checked under [`InvalidBoxes::OverlapNothing`] against the reference (which skips
//! them), and the panic under [`InvalidBoxes::Panic`], whose message must name the body and its box.
//!
//! An algorithm passes when, for every frame it is given:
//! - under `OverlapNothing`, its pairs are exactly the reference's — no pair with an invalid body, none lost or
//!   added among the valid ones — and its `validate()` holds, while boxes turn invalid, stay invalid unchanged
//!   (marked unmoved by the motion hint), move while invalid, turn valid again, and bodies are added and removed;
//! - under `Panic`, on a fresh structure and on a warm one, it panics with a message containing `body {i}` and the
//!   box's corners as `Vec3` prints them ([`Frame::reject_invalid`] writes exactly that).

use super::broken::{KINDS, corrupt};
use super::scenes::uniform;
use super::sequences::{Motion, MovedHint, Sequence};
use super::{Checker, Failure, Scene};
use crate::{Aabb, Broadphase, Frame, InvalidBoxes, PairList};
use collide_math::{Rng, Vec3};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Scenes holding invalid boxes of every kind among valid ones.
#[must_use]
pub fn invalid_scenes() -> Vec<Scene> {
    let mut rng = Rng::new(0xBAD_B0C5);
    let mut scenes = Vec::new();
    // Every seventh body broken, the kinds in rotation.
    let mut mixed = uniform(&mut rng, 700, (0.5, 3.0));
    for (i, b) in mixed.iter_mut().enumerate().filter(|(i, _)| i % 7 == 3) {
        *b = corrupt(*b, (i / 7) as u8);
    }
    scenes.push(Scene { name: "invalid-mixed", aabbs: mixed });
    // An infinite box first (it once made the octree's root centre NaN) and broken boxes among a crowd at one
    // point that over-fills any leaf (octree-dup then dropped the whole leaf).
    let mut crowd = vec![Aabb::from_center_radius(Vec3::splat(40.0), 1.0); 120];
    crowd.insert(0, corrupt(crowd[0], 4));
    for k in 0..KINDS {
        crowd[5 + 9 * k as usize] = corrupt(crowd[1], k);
    }
    crowd.extend(uniform(&mut rng, 200, (0.5, 2.0)));
    scenes.push(Scene { name: "invalid-in-a-crowd", aabbs: crowd });
    // Nothing valid at all, and a valid pair between two broken boxes at both ends.
    let all = (0..60).map(|i| corrupt(Aabb::from_center_radius(Vec3::splat(i as f32), 2.0), i as u8)).collect();
    scenes.push(Scene { name: "invalid-all", aabbs: all });
    let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
    scenes.push(Scene { name: "invalid-ends", aabbs: vec![corrupt(unit, 5), unit, unit, corrupt(unit, 0)] });
    scenes
}

/// Moving sequences with invalid boxes: bodies break and recover every frame, some of them resting while broken,
/// bodies are added and removed while some are broken, and bodies are permuted while some are broken (a body left
/// out for its box is renamed with the others).
#[must_use]
pub fn invalid_sequences() -> Vec<Sequence> {
    let base = Sequence {
        name: "invalid-moving",
        bodies: 300,
        frames: 120,
        motion: Motion::Linear { speed: 0.6 },
        half_range: (0.5, 2.0),
        mixed_sizes: false,
        churn: 0,
        reorder: 0,
        resting_fraction: 0.0,
        hint: MovedHint::Absent,
        invalid: 0.02,
        seed: 21,
    };
    vec![
        base.clone(),
        Sequence {
            name: "invalid-resting-hinted-churn",
            resting_fraction: 0.7,
            hint: MovedHint::Exact,
            churn: 6,
            motion: Motion::Linear { speed: 0.4 },
            seed: 22,
            ..base.clone()
        },
        Sequence {
            name: "invalid-resting-hinted-reorder",
            resting_fraction: 0.7,
            hint: MovedHint::Exact,
            reorder: 5,
            motion: Motion::Linear { speed: 0.4 },
            seed: 24,
            ..base.clone()
        },
        Sequence { name: "invalid-slow", motion: Motion::Linear { speed: 0.02 }, invalid: 0.005, seed: 23, ..base },
    ]
}

thread_local! {
    /// Set while the kit expects a contract panic on this thread: its message is then not printed.
    static EXPECTING_PANIC: Cell<bool> = const { Cell::new(false) };
}

/// Install (once per process) a panic hook that keeps quiet about the contract panics the kit provokes on purpose
/// and prints every other panic as the default hook does.
fn quiet_expected_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !EXPECTING_PANIC.get() {
                default(info);
            }
        }));
    });
}

/// The panic message of `f`, or `None` when it returns.
fn panic_of(f: impl FnOnce()) -> Option<String> {
    quiet_expected_panics();
    EXPECTING_PANIC.set(true);
    let result = catch_unwind(AssertUnwindSafe(f));
    EXPECTING_PANIC.set(false);
    let payload = result.err()?;
    Some(match (payload.downcast_ref::<String>(), payload.downcast_ref::<&str>()) {
        (Some(s), _) => s.clone(),
        (None, Some(s)) => (*s).to_owned(),
        (None, None) => "(a panic without a message)".to_owned(),
    })
}

/// Under [`InvalidBoxes::Panic`], a fresh and a warm broadphase must panic on an invalid box, naming the body and
/// the box; under the same policy a valid frame must not panic.
pub(super) fn check_panics(make: &dyn Fn() -> Box<dyn Broadphase>) -> Result<(), Box<Failure>> {
    let mut rng = Rng::new(77);
    let valid: Vec<Aabb> = uniform(&mut rng, 40, (2.0, 9.0)).into_iter().map(|b| shrink_world(b, 0.3)).collect();
    let body = 13;
    let fail = |scene: String, problem: String| {
        Err(Box::new(Failure { scene, n: valid.len(), problem: Some(problem), ..Failure::default() }))
    };
    let mut out = PairList::new();
    for kind in 0..KINDS {
        let mut broken = valid.clone();
        broken[body] = corrupt(broken[body], kind);
        let mut moved = vec![false; broken.len()];
        moved[body] = true;
        let cases: [(&str, bool); 2] = [("fresh", false), ("warm", true)];
        for (when, warm) in cases {
            let scene = format!("invalid-panic ({when}, kind {kind}: {:?})", broken[body]);
            let mut bp = make();
            if warm && let Some(message) = panic_of(|| bp.find_pairs(&policy(&valid, InvalidBoxes::Panic), &mut out)) {
                return fail(scene, format!("panicked on a frame of valid boxes: {message}"));
            }
            let frame = policy(&broken, InvalidBoxes::Panic).with_step(u64::from(warm));
            let frame = if warm { frame.with_moved(&moved) } else { frame };
            let Some(message) = panic_of(|| bp.find_pairs(&frame, &mut out)) else {
                return fail(scene, format!("no panic for body {body}'s invalid box under InvalidBoxes::Panic"));
            };
            let b = broken[body];
            let named = message.contains(&format!("body {body}"))
                && message.contains(&b.min.to_string())
                && message.contains(&b.max.to_string());
            if !named {
                return fail(scene, format!("the panic must name body {body} and its box {b:?}, said: {message}"));
            }
        }
    }
    Ok(())
}

fn policy(aabbs: &[Aabb], invalid: InvalidBoxes) -> Frame<'_> {
    Frame::new(aabbs).with_invalid_boxes(invalid)
}

/// `b` moved into the first `share` of the world on every axis, so that a small scene still has pairs.
fn shrink_world(b: Aabb, share: f32) -> Aabb {
    Aabb::from_center_half_extents(b.center() * share, b.half_extents())
}

/// Every invalid scene (twice: a second call on the same boxes takes an incremental algorithm's other path) and
/// every invalid sequence under [`InvalidBoxes::OverlapNothing`], then the panics.
pub(super) fn check_invalid_boxes(make: &dyn Fn() -> Box<dyn Broadphase>) -> Result<(), Box<Failure>> {
    let mut checker = Checker::default();
    for scene in invalid_scenes() {
        let mut bp = make();
        for step in 0..2 {
            let frame = policy(&scene.aabbs, InvalidBoxes::OverlapNothing).with_step(step);
            checker.check(bp.as_mut(), &frame, scene.name)?;
        }
    }
    for sequence in invalid_sequences() {
        sequence.run(make().as_mut(), &mut checker)?;
    }
    check_panics(make)
}
