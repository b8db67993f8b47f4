//! Property-based fuzzing: every registered broadphase against brute force over random sequences of operations.
//!
//! A case is a body count, a scale for the world (from a thousandth of the usual to coordinates near ±1e30) and up
//! to 30 operations, each followed by one frame that every algorithm of the registry answers — a new row joins by
//! being registered. After every frame each algorithm's pairs must be exactly [`reference_pairs`]' (each once,
//! smaller index first) and its `validate()` must hold; any panic is a failure too. The operations:
//! bodies moving a little or teleporting, bodies added and removed through `on_resize` (compacting in order or
//! filling holes from the end, sometimes every body at once), `reset`, frames where nothing changed, boxes that
//! touch exactly, zero-size boxes, everything at one point, a box larger than the world, far bodies near ±1e30,
//! corners at −0.0, and invalid boxes (NaN, infinite, inverted) that must overlap nothing — the frames say
//! [`InvalidBoxes::OverlapNothing`]. Each frame carries an exact, a conservative or no motion hint, and a dt
//! other than 1/60 now and then.
//!
//! CI runs a fixed, seeded budget; `cargo xtask fuzz --minutes N` runs it long with fresh seeds. A failure is
//! shrunk and kept in `tests/fuzz-regressions/broadphases.txt` (see `common/mod.rs`).

mod common;

use collide_broadphase::conformance::compare;
use collide_broadphase::{Aabb, Broadphase, Frame, InvalidBoxes, PairList, Resize, reference_pairs, same_bits};
use collide_math::{Rng, Vec3};
use proptest::prelude::*;

/// Boxes that stress a boundary, set on a share of the bodies by [`Op::Special`].
#[derive(Clone, Copy, Debug)]
enum Special {
    /// Each chosen body moved to touch another exactly, face to face.
    Touching,
    /// Zero-size boxes (points).
    ZeroSize,
    /// Every chosen body at one point.
    OnePoint,
    /// One box larger than the whole world.
    LargerThanWorld,
    /// Small boxes near +1e30 or −1e30 on some axes.
    Far,
    /// Corners written as −0.0 where they are zero, boxes meeting at the origin planes.
    SignedZero,
}

/// One operation before a frame.
#[derive(Clone, Debug)]
enum Op {
    /// `share`% of the bodies move by up to `step` box widths.
    Move { share: u8, step: f32, seed: u32 },
    /// `share`% of the bodies jump anywhere in the world.
    Teleport { share: u8, seed: u32 },
    /// `remove` random bodies go (the rest compacted in order, or each hole filled by the last body when
    /// `swap`), then `add` new ones arrive; announced through `on_resize`.
    Resize { remove: u16, add: u16, swap: bool, seed: u32 },
    /// Every body goes, then `add` arrive (an empty world between the two, in one resize).
    Clear { add: u16, seed: u32 },
    /// The algorithms forget everything (`Broadphase::reset`).
    Reset,
    /// Nothing changes.
    Same,
    /// `share`% of the bodies get a boundary box.
    Special { kind: Special, share: u8, seed: u32 },
    /// `share`% of the bodies get an invalid box.
    Break { share: u8, seed: u32 },
    /// Every invalid box is made valid again.
    Heal { seed: u32 },
}

/// A fuzz case.
#[derive(Clone, Debug)]
struct Case {
    bodies: u16,
    /// Every coordinate and size is multiplied by this.
    scale: f32,
    /// Per operation: the op, the motion hint (0 none, 1 exact, 2 conservative) and the frame's dt.
    ops: Vec<(Op, u8, f32)>,
}

/// The world's side before scaling.
const WORLD: f32 = 100.0;

fn special() -> impl Strategy<Value = Special> {
    prop_oneof![
        Just(Special::Touching),
        Just(Special::ZeroSize),
        Just(Special::OnePoint),
        Just(Special::LargerThanWorld),
        Just(Special::Far),
        Just(Special::SignedZero),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u8..=100, 0.01f32..3.0, any::<u32>()).prop_map(|(share, step, seed)| Op::Move { share, step, seed }),
        1 => (1u8..=100, any::<u32>()).prop_map(|(share, seed)| Op::Teleport { share, seed }),
        2 => (0u16..40, 0u16..40, any::<bool>(), any::<u32>())
            .prop_map(|(remove, add, swap, seed)| Op::Resize { remove, add, swap, seed }),
        1 => (0u16..120, any::<u32>()).prop_map(|(add, seed)| Op::Clear { add, seed }),
        1 => Just(Op::Reset),
        1 => Just(Op::Same),
        2 => (special(), 1u8..=60, any::<u32>()).prop_map(|(kind, share, seed)| Op::Special { kind, share, seed }),
        2 => (1u8..=30, any::<u32>()).prop_map(|(share, seed)| Op::Break { share, seed }),
        1 => any::<u32>().prop_map(|seed| Op::Heal { seed }),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let scale = prop_oneof![Just(1.0f32), Just(1.0e-3), Just(1.0e6), Just(1.0e28)];
    let dt = prop_oneof![4 => Just(1.0f32 / 60.0), 1 => Just(0.0), 1 => 1.0e-4f32..0.5];
    (0u16..250, scale, prop::collection::vec((op(), 0u8..3, dt), 1..30)).prop_map(|(bodies, scale, ops)| Case {
        bodies,
        scale,
        ops,
    })
}

/// The world of a case: its boxes, and which of them are broken on purpose.
struct World {
    boxes: Vec<Aabb>,
    broken: Vec<bool>,
    scale: f32,
}

impl World {
    fn fresh(&self, rng: &mut Rng) -> Aabb {
        let half = rng.range_f32(0.3, 2.5) * self.scale;
        Aabb::from_center_radius(rng.point_in(Vec3::ZERO, Vec3::splat(WORLD)) * self.scale, half)
    }

    /// `share`% of the body indices, drawn with `rng`.
    fn some(&self, rng: &mut Rng, share: u8) -> Vec<usize> {
        (0..self.boxes.len()).filter(|_| rng.chance(f32::from(share) / 100.0)).collect()
    }

    /// Apply `op`; returns the resize to announce, or `Some(None)` for a reset.
    fn apply(&mut self, op: &Op) -> Announce {
        match *op {
            Op::Move { share, step, seed } => {
                let mut rng = Rng::new(u64::from(seed));
                for i in self.some(&mut rng, share) {
                    let b = self.boxes[i];
                    let d = rng.unit_vector() * step * 2.0 * self.scale;
                    self.boxes[i] = Aabb::new(b.min + d, b.max + d);
                }
            }
            Op::Teleport { share, seed } => {
                let mut rng = Rng::new(u64::from(seed));
                for i in self.some(&mut rng, share) {
                    self.boxes[i] = self.fresh(&mut rng);
                    self.broken[i] = false;
                }
            }
            Op::Resize { remove, add, swap, seed } => return self.resize(remove.into(), add.into(), swap, seed),
            Op::Clear { add, seed } => return self.resize(self.boxes.len(), add.into(), false, seed),
            Op::Reset => return Announce::Reset,
            Op::Same => {}
            Op::Special { kind, share, seed } => self.special(kind, share, seed),
            Op::Break { share, seed } => {
                let mut rng = Rng::new(u64::from(seed));
                for i in self.some(&mut rng, share) {
                    let kind = rng.below(u32::from(collide_broadphase::conformance::broken::KINDS)) as u8;
                    self.boxes[i] = collide_broadphase::conformance::broken::corrupt(self.boxes[i], kind);
                    self.broken[i] = true;
                }
            }
            Op::Heal { seed } => {
                let mut rng = Rng::new(u64::from(seed));
                for i in 0..self.boxes.len() {
                    if std::mem::take(&mut self.broken[i]) {
                        self.boxes[i] = self.fresh(&mut rng);
                    }
                }
            }
        }
        Announce::Nothing
    }

    fn resize(&mut self, remove: usize, add: usize, swap: bool, seed: u32) -> Announce {
        let mut rng = Rng::new(u64::from(seed));
        let n = self.boxes.len();
        let mut doomed = vec![false; n];
        for _ in 0..remove.min(n) {
            doomed[rng.below(n as u32) as usize] = true;
        }
        if remove >= n {
            doomed.fill(true);
        }
        let mut map = vec![Resize::REMOVED; n];
        let (mut boxes, mut broken) = (Vec::new(), Vec::new());
        if swap {
            // The last survivor takes the first place, as a swap-remove moves bodies: indices really change.
            let mut order: Vec<usize> = (0..n).filter(|&i| !doomed[i]).collect();
            if order.len() > 1 {
                let last = order.len() - 1;
                order.swap(0, last);
            }
            for (new, &old) in order.iter().enumerate() {
                map[old] = new as u32;
                boxes.push(self.boxes[old]);
                broken.push(self.broken[old]);
            }
        } else {
            for i in (0..n).filter(|&i| !doomed[i]) {
                map[i] = boxes.len() as u32;
                boxes.push(self.boxes[i]);
                broken.push(self.broken[i]);
            }
        }
        for _ in 0..add {
            boxes.push(self.fresh(&mut rng));
            broken.push(false);
        }
        (self.boxes, self.broken) = (boxes, broken);
        Announce::Resize(map, self.boxes.len())
    }

    fn special(&mut self, kind: Special, share: u8, seed: u32) {
        let mut rng = Rng::new(u64::from(seed));
        let chosen = self.some(&mut rng, share);
        let s = self.scale;
        for (k, &i) in chosen.iter().enumerate() {
            let b = self.boxes[i];
            self.broken[i] = false;
            self.boxes[i] = match kind {
                Special::Touching => {
                    // Face to face with another body on a random axis (the other one may be broken).
                    let other = self.boxes[chosen[(k + 1) % chosen.len()]];
                    let axis = rng.below(3) as usize;
                    let mut offset = Vec3::ZERO;
                    offset[axis] = other.max[axis] - b.min[axis];
                    Aabb::new(b.min + offset, b.max + offset)
                }
                Special::ZeroSize => Aabb::new(b.min, b.min),
                Special::OnePoint => Aabb::from_center_radius(Vec3::splat(WORLD / 2.0) * s, 0.5 * s),
                Special::LargerThanWorld => Aabb::new(Vec3::splat(-WORLD) * s, Vec3::splat(2.0 * WORLD) * s),
                Special::Far => {
                    let far = |r: &mut Rng| if r.chance(0.5) { 1.0e30 } else { -1.0e30 };
                    let c = Vec3::new(far(&mut rng), b.center().y, far(&mut rng));
                    Aabb::from_center_radius(if rng.chance(0.5) { c } else { Vec3::splat(far(&mut rng)) }, 1.0e24)
                }
                Special::SignedZero => {
                    let z = |r: &mut Rng| if r.chance(0.5) { -0.0 } else { 0.0 };
                    let (lo, hi) = (Vec3::new(z(&mut rng), z(&mut rng), z(&mut rng)), Vec3::ONE * s);
                    if rng.chance(0.5) { Aabb::new(lo, hi) } else { Aabb::new(-hi, Vec3::new(z(&mut rng), 0.0, -0.0)) }
                }
            };
        }
    }
}

/// What the broadphases are told before a frame.
enum Announce {
    Nothing,
    Reset,
    Resize(Vec<u32>, usize),
}

/// Every registered broadphase, fresh.
fn all_broadphases() -> Vec<Box<dyn Broadphase>> {
    collide_algorithms::ALGORITHMS.iter().map(collide_broadphase::AlgorithmDescriptor::build_default).collect()
}

/// Run `case` through every registered broadphase; the first wrong frame is the error.
fn run(case: &Case) -> Result<(), String> {
    let mut rng = Rng::new(u64::from(case.bodies));
    let mut world = World { boxes: Vec::new(), broken: Vec::new(), scale: case.scale };
    for _ in 0..case.bodies {
        let b = world.fresh(&mut rng);
        world.boxes.push(b);
        world.broken.push(false);
    }
    let mut broadphases = all_broadphases();
    let (mut expected, mut out, mut moved) = (PairList::new(), PairList::new(), Vec::new());
    let mut previous: Option<Vec<Aabb>> = None;
    // The first frame comes before any operation.
    let first = [(Op::Same, 1u8, 1.0 / 60.0)];
    for (step, (op, hint, dt)) in first.iter().chain(&case.ops).enumerate() {
        let announce = world.apply(op);
        let renumbered = !matches!(announce, Announce::Nothing);
        for bp in &mut broadphases {
            match &announce {
                Announce::Nothing => {}
                Announce::Reset => bp.reset(),
                Announce::Resize(map, new_len) => bp.on_resize(&Resize { old_to_new: map, new_len: *new_len }),
            }
        }
        let aabbs = &world.boxes;
        moved.clear();
        match &previous {
            Some(p) if !renumbered && p.len() == aabbs.len() => {
                let extra = |i: usize| *hint == 2 && (i + step).is_multiple_of(7);
                moved.extend(p.iter().zip(aabbs).enumerate().map(|(i, (p, a))| !same_bits(p, a) || extra(i)));
            }
            _ => moved.resize(aabbs.len(), true),
        }
        let frame =
            Frame::new(aabbs).with_step(step as u64).with_dt(*dt).with_invalid_boxes(InvalidBoxes::OverlapNothing);
        let frame = if *hint == 0 { frame } else { frame.with_moved(&moved) };
        reference_pairs(aabbs, &mut expected);
        for bp in &mut broadphases {
            bp.find_pairs(&frame, &mut out);
            let mut failure = compare(aabbs, &expected, &out);
            failure.scene = format!("step {step} after {op:?} (hint {hint}, dt {dt})");
            failure.invalid = bp.validate().err();
            let ok = failure.missing.is_empty()
                && failure.extra.is_empty()
                && failure.duplicated.is_empty()
                && failure.misordered.is_empty()
                && failure.invalid.is_none();
            if !ok {
                return Err(format!("broadphase `{}`: {failure}", bp.name()));
            }
        }
        previous = Some(aabbs.clone());
    }
    Ok(())
}

#[test]
fn every_registered_broadphase_matches_brute_force_on_random_operation_sequences() {
    common::fuzz(
        "broadphases",
        48,
        concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz-regressions/broadphases.txt"),
        case(),
        |case| run(&case).map_err(TestCaseError::fail),
    );
}
