use super::broken::{break_and_heal, shown};
use super::reorder::{permute, random_order, spatial_order};
use super::scenes::WORLD;
use super::{Checker, Failure};
use crate::{Aabb, Broadphase, Frame, InvalidBoxes, Resize, same_bits};
use collide_math::{Rng, Vec3};

/// How the bodies of a [`Sequence`] move from frame to frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// Straight lines at `speed` world units per frame, bouncing off the walls of `[0, 100]³`.
    Linear {
        /// Units per frame (bodies are 1–4 units across).
        speed: f32,
    },
    /// Every body jumps to a fresh random place every frame: no temporal coherence at all.
    Teleport,
    /// Every body heads for the centre, arriving together at frame `period / 2`, passes it and disperses;
    /// the cycle repeats (the clustering spikes of the thesis's "jolt").
    Converge {
        /// Frames per cluster-and-disperse cycle.
        period: u32,
    },
}

/// Which motion hint ([`Frame::with_moved`]) a [`Sequence`] gives the broadphase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovedHint {
    /// No hint: the broadphase finds out what moved itself.
    Absent,
    /// `moved[i]` is `true` exactly when body `i`'s box differs (bit for bit) from the previous call's, and for
    /// every body after a resize.
    Exact,
    /// [`MovedHint::Exact`], plus one unchanged body in every 16 marked moved, a different sixteenth each frame:
    /// `true` promises nothing, and a broadphase must stay right when bodies that did not move are marked.
    Conservative,
}

/// A moving scene checked frame by frame.
#[derive(Clone, Debug)]
pub struct Sequence {
    /// A short kebab-case name for reports.
    pub name: &'static str,
    /// The body count at the start.
    pub bodies: usize,
    /// How many frames to run.
    pub frames: u32,
    /// How bodies move.
    pub motion: Motion,
    /// Half edges are drawn from this range; the mixed-size sequence puts every tenth body at 8× the upper end.
    pub half_range: (f32, f32),
    /// Every tenth body 8× larger.
    pub mixed_sizes: bool,
    /// Every `churn` frames some bodies are removed and some added (0 = never). A churning sequence also
    /// resizes once before its first frame and twice in a row (no frame between) at frame 100.
    pub churn: u32,
    /// Every `reorder` frames the bodies are renumbered, as the simulation does when it sorts them in space (0 =
    /// never): a random permutation and a spatial sort (by the Morton key of their centres) in turn, each told to
    /// the broadphase through [`Broadphase::on_resize`] as a permutation ([`Resize::is_permutation`]). A
    /// reordering sequence also permutes once before its first frame and twice in a row (no frame between) at
    /// frame [`DOUBLE_REORDER_FRAME`]. The previous boxes follow their bodies, so an exact hint stays exact: a
    /// body that did not move is marked unmoved under its new index, and a structure that keeps resting bodies
    /// apart must carry them through the permutation.
    pub reorder: u32,
    /// Fraction of bodies at rest under [`Motion::Linear`]; every 10 frames some start moving and some stop,
    /// so structures that keep resting bodies apart (an octree's static tree) must notice both.
    pub resting_fraction: f32,
    /// The motion hint given with each frame.
    pub hint: MovedHint,
    /// The chance per frame that a body's box turns invalid (it turns valid again with a chance of 1/5 per
    /// frame); above 0 the frames say [`InvalidBoxes::OverlapNothing`]. 0 for the valid sequences, whose frames
    /// keep the default policy (so a debug build panics if an algorithm calls a valid box invalid).
    pub invalid: f32,
    /// The seed.
    pub seed: u64,
}

/// The frame before which a reordering sequence permutes twice with no frame between (see
/// [`Sequence::reorder`]).
pub const DOUBLE_REORDER_FRAME: u32 = 150;

/// The kit's moving sequences: slow, fast, teleport, clustering, mixed sizes, partly resting (without a motion
/// hint, with an exact one and with a conservative one), reordered (partly resting, the bodies permuted every 7
/// frames, without a hint, with an exact one and with a conservative one) and churn (bodies added and removed,
/// once all of them at once). Each runs at least 300 frames.
#[must_use]
pub fn sequences() -> Vec<Sequence> {
    let base = Sequence {
        name: "",
        bodies: 400,
        frames: 300,
        motion: Motion::Linear { speed: 0.05 },
        half_range: (0.5, 2.0),
        mixed_sizes: false,
        churn: 0,
        reorder: 0,
        resting_fraction: 0.0,
        hint: MovedHint::Absent,
        invalid: 0.0,
        seed: 1,
    };
    vec![
        Sequence { name: "moving-slow", frames: 320, ..base.clone() },
        Sequence { name: "moving-fast", motion: Motion::Linear { speed: 3.0 }, seed: 2, ..base.clone() },
        Sequence { name: "moving-teleport", bodies: 300, motion: Motion::Teleport, seed: 3, ..base.clone() },
        Sequence { name: "moving-cluster", motion: Motion::Converge { period: 120 }, seed: 4, ..base.clone() },
        Sequence {
            name: "moving-mixed-sizes",
            motion: Motion::Linear { speed: 0.7 },
            mixed_sizes: true,
            seed: 5,
            ..base.clone()
        },
        Sequence {
            name: "moving-partly-resting",
            motion: Motion::Linear { speed: 0.5 },
            resting_fraction: 0.7,
            seed: 7,
            ..base.clone()
        },
        // The same motion with the hint: structures that keep resting bodies apart read it instead of comparing.
        Sequence {
            name: "moving-partly-resting-hinted",
            motion: Motion::Linear { speed: 0.5 },
            resting_fraction: 0.7,
            hint: MovedHint::Exact,
            seed: 7,
            ..base.clone()
        },
        Sequence {
            name: "moving-partly-resting-conservative-hint",
            motion: Motion::Linear { speed: 0.5 },
            resting_fraction: 0.7,
            hint: MovedHint::Conservative,
            seed: 8,
            ..base.clone()
        },
        // Renumbered every 7 frames, most bodies resting: the static parts of the structures (an octree's static
        // tree, a dynamic tree's static tree and settle timers) must follow the permutation, and with the hint
        // the resting bodies are marked unmoved under their new indices.
        Sequence {
            name: "moving-reorder",
            motion: Motion::Linear { speed: 0.5 },
            resting_fraction: 0.8,
            reorder: 7,
            seed: 9,
            ..base.clone()
        },
        Sequence {
            name: "moving-reorder-hinted",
            motion: Motion::Linear { speed: 0.5 },
            resting_fraction: 0.8,
            reorder: 7,
            hint: MovedHint::Exact,
            seed: 10,
            ..base.clone()
        },
        Sequence {
            name: "moving-reorder-conservative-hint",
            motion: Motion::Linear { speed: 0.5 },
            resting_fraction: 0.8,
            reorder: 7,
            hint: MovedHint::Conservative,
            seed: 11,
            ..base.clone()
        },
        Sequence {
            name: "moving-churn",
            bodies: 250,
            motion: Motion::Linear { speed: 0.4 },
            churn: 4,
            hint: MovedHint::Exact,
            seed: 6,
            ..base
        },
    ]
}

/// The kit's own little world: centres, velocities and half edges of the sequence's bodies.
#[derive(Default)]
struct Bodies {
    center: Vec<Vec3>,
    velocity: Vec<Vec3>,
    half: Vec<f32>,
    origin: Vec<Vec3>,
    /// 0, or one more than the way the body's box is broken (see `broken::shown`).
    broken: Vec<u8>,
}

impl Sequence {
    fn spawn(&self, rng: &mut Rng, bodies: &mut Bodies, count: usize) {
        for _ in 0..count {
            let i = bodies.center.len();
            let mut h = rng.range_f32(self.half_range.0, self.half_range.1);
            if self.mixed_sizes && i.is_multiple_of(10) {
                h = self.half_range.1 * 8.0;
            }
            let c = rng.point_in(Vec3::ZERO, Vec3::splat(WORLD));
            let v = match self.motion {
                Motion::Linear { .. } if rng.chance(self.resting_fraction) => Vec3::ZERO,
                Motion::Linear { speed } => rng.unit_vector() * speed,
                Motion::Teleport | Motion::Converge { .. } => Vec3::ZERO,
            };
            bodies.center.push(c);
            bodies.velocity.push(v);
            bodies.half.push(h);
            bodies.origin.push(c);
            bodies.broken.push(0);
        }
    }

    fn advance(&self, rng: &mut Rng, bodies: &mut Bodies, frame: u32) {
        match self.motion {
            Motion::Linear { speed } => {
                if self.resting_fraction > 0.0 && frame.is_multiple_of(10) {
                    // Some resting bodies start moving, some moving bodies stop.
                    for v in &mut bodies.velocity {
                        if rng.chance(0.1) {
                            *v = if *v == Vec3::ZERO { rng.unit_vector() * speed } else { Vec3::ZERO };
                        }
                    }
                }
                for (c, v) in bodies.center.iter_mut().zip(&mut bodies.velocity) {
                    *c += *v;
                    for axis in 0..3 {
                        if c[axis] < 0.0 || c[axis] > WORLD {
                            c[axis] = c[axis].clamp(0.0, WORLD);
                            v[axis] = -v[axis];
                        }
                    }
                }
            }
            Motion::Teleport => {
                for c in &mut bodies.center {
                    *c = rng.point_in(Vec3::ZERO, Vec3::splat(WORLD));
                }
            }
            Motion::Converge { period } => {
                // s goes 1 → 0 → 1 over a period: the distance to the centre scales by |1 - 2t|, so at mid-period
                // every centre is exactly at the middle of the world (the all-at-one-point case, moving in).
                let t = (frame % period) as f32 / period as f32;
                let s = (1.0 - 2.0 * t).abs();
                let mid = Vec3::splat(WORLD / 2.0);
                for (c, o) in bodies.center.iter_mut().zip(&bodies.origin) {
                    *c = mid + (*o - mid) * s;
                }
            }
        }
    }

    /// Remove some bodies (compacting by moving the last ones into the holes, as the simulation does) and
    /// append some new ones; tell the broadphase. Returns the map for checking.
    fn churn_step(&self, rng: &mut Rng, bodies: &mut Bodies, frame: u32, bp: &mut dyn Broadphase) {
        let n = bodies.center.len();
        // Once, everything goes and a crowd twice the starting size arrives: the empty-world edge of every
        // incremental structure, and growth past any size it saw before.
        let (remove, add) =
            if frame == 152 { (n, 2 * self.bodies) } else { ((rng.below(12) as usize).min(n), rng.below(12) as usize) };
        let mut doomed = vec![false; n];
        let mut marked = 0;
        while marked < remove {
            let i = rng.below(n as u32) as usize;
            if !doomed[i] {
                doomed[i] = true;
                marked += 1;
            }
        }
        let mut old_to_new = vec![Resize::REMOVED; n];
        let mut kept = Bodies::default();
        for i in 0..n {
            if !doomed[i] {
                old_to_new[i] = kept.center.len() as u32;
                kept.center.push(bodies.center[i]);
                kept.velocity.push(bodies.velocity[i]);
                kept.half.push(bodies.half[i]);
                kept.origin.push(bodies.origin[i]);
                kept.broken.push(bodies.broken[i]);
            }
        }
        // Swap the last kept bodies into the lowest slots, as a swap-remove would, so that indices really move.
        let m = kept.center.len();
        if m >= 2 && frame.is_multiple_of(8) {
            kept.center.swap(0, m - 1);
            kept.velocity.swap(0, m - 1);
            kept.half.swap(0, m - 1);
            kept.origin.swap(0, m - 1);
            kept.broken.swap(0, m - 1);
            for slot in &mut old_to_new {
                if *slot == 0 {
                    *slot = (m - 1) as u32;
                } else if *slot == (m - 1) as u32 {
                    *slot = 0;
                }
            }
        }
        *bodies = kept;
        self.spawn(rng, bodies, add);
        let resize = Resize { old_to_new: &old_to_new, new_len: bodies.center.len() };
        debug_assert!(resize.check().is_ok());
        bp.on_resize(&resize);
    }

    /// Renumber the bodies by a permutation before `frame` — the `count`-th of the sequence: random when even, a
    /// spatial sort when odd — carrying `previous` (last call's boxes, when there was a call) along, and tell the
    /// broadphase; its `validate()` must hold right after.
    fn reorder_step(
        &self,
        rng: &mut Rng,
        (bodies, previous): (&mut Bodies, &mut Vec<Aabb>),
        (frame, count): (u32, u32),
        bp: &mut dyn Broadphase,
    ) -> Result<(), Box<Failure>> {
        let old_to_new = if count.is_multiple_of(2) {
            random_order(rng, bodies.center.len())
        } else {
            spatial_order(&bodies.center, Vec3::ZERO, WORLD)
        };
        let resize = Resize { old_to_new: &old_to_new, new_len: old_to_new.len() };
        debug_assert!(resize.check().is_ok() && resize.is_permutation());
        permute(&resize, &mut bodies.center);
        permute(&resize, &mut bodies.velocity);
        permute(&resize, &mut bodies.half);
        permute(&resize, &mut bodies.origin);
        permute(&resize, &mut bodies.broken);
        if previous.len() == old_to_new.len() {
            permute(&resize, previous);
        }
        bp.on_resize(&resize);
        let kind = if count.is_multiple_of(2) { "a random permutation" } else { "a spatial sort" };
        self.validated(bp, frame, old_to_new.len(), kind)
    }

    /// The broadphase's `validate()` right after an `on_resize` of `what` before `frame` (`n` bodies after it),
    /// as a failure.
    fn validated(&self, bp: &dyn Broadphase, frame: u32, n: usize, what: &str) -> Result<(), Box<Failure>> {
        bp.validate().map_err(|message| {
            Box::new(Failure {
                scene: self.name.to_owned(),
                frame: u64::from(frame),
                n,
                invalid: Some(message),
                problem: Some(format!("validate() failed right after the on_resize of {what}")),
                ..Failure::default()
            })
        })
    }

    /// Run the sequence on `bp`, checking every frame.
    pub fn run(&self, bp: &mut dyn Broadphase, checker: &mut Checker) -> Result<(), Box<Failure>> {
        let mut rng = Rng::new(self.seed);
        let mut bodies = Bodies::default();
        self.spawn(&mut rng, &mut bodies, self.bodies);
        let invalid = if self.invalid > 0.0 { InvalidBoxes::OverlapNothing } else { InvalidBoxes::DEFAULT };
        let (mut aabbs, mut previous, mut moved) = (Vec::new(), Vec::new(), Vec::new());
        // Bodies were renumbered by a resize that removed or added some since the last call: the hint then marks
        // every body. (A permutation carries `previous` along instead.)
        let mut renumbered = false;
        let mut reorders = 0;
        if self.churn > 0 {
            // A resize before the structure has seen any frame.
            self.churn_step(&mut rng, &mut bodies, 1, bp);
            self.validated(bp, 0, bodies.center.len(), "a resize")?;
        }
        if self.reorder > 0 {
            // A permutation before the structure has seen any frame.
            self.reorder_step(&mut rng, (&mut bodies, &mut previous), (0, reorders), bp)?;
            reorders += 1;
        }
        for frame in 0..self.frames {
            if frame == 100 && self.churn > 0 {
                // Two resizes with no frame between: the second map is relative to the first's result.
                self.churn_step(&mut rng, &mut bodies, frame + 1, bp);
                self.validated(bp, frame, bodies.center.len(), "a resize")?;
                renumbered = true;
            }
            if frame > 0 {
                self.advance(&mut rng, &mut bodies, frame);
                if self.invalid > 0.0 {
                    break_and_heal(&mut rng, self.invalid, &mut bodies.broken);
                }
                if self.churn > 0 && frame % self.churn == 0 {
                    self.churn_step(&mut rng, &mut bodies, frame, bp);
                    self.validated(bp, frame, bodies.center.len(), "a resize")?;
                    renumbered = true;
                }
                if self.reorder > 0 && (frame % self.reorder == 0 || frame == DOUBLE_REORDER_FRAME) {
                    // Twice in a row before one frame: the second map is relative to the first's numbering.
                    let times = if frame == DOUBLE_REORDER_FRAME { 2 } else { 1 };
                    for _ in 0..times {
                        self.reorder_step(&mut rng, (&mut bodies, &mut previous), (frame, reorders), bp)?;
                        reorders += 1;
                    }
                }
            }
            aabbs.clear();
            let boxes = bodies.center.iter().zip(&bodies.half).map(|(&c, &h)| Aabb::from_center_radius(c, h));
            aabbs.extend(boxes.zip(&bodies.broken).map(|(b, &broken)| shown(b, broken)));
            let f = Frame::new(&aabbs).with_step(u64::from(frame)).with_invalid_boxes(invalid);
            let f = if self.hint == MovedHint::Absent {
                f
            } else {
                self.hint_moved(frame, &previous, &aabbs, renumbered, &mut moved);
                f.with_moved(&moved)
            };
            checker.check(bp, &f, self.name)?;
            previous.clone_from(&aabbs);
            renumbered = false;
        }
        Ok(())
    }

    /// The motion hint of `frame` into `moved` (see [`MovedHint`]): every body after a renumbering or on the first
    /// frame, else the bodies whose box changed, plus a rotating sixteenth for [`MovedHint::Conservative`].
    fn hint_moved(&self, frame: u32, previous: &[Aabb], aabbs: &[Aabb], renumbered: bool, moved: &mut Vec<bool>) {
        moved.clear();
        if renumbered || previous.len() != aabbs.len() {
            moved.resize(aabbs.len(), true);
            return;
        }
        let extra = |i: usize| self.hint == MovedHint::Conservative && (i + frame as usize).is_multiple_of(16);
        moved.extend(previous.iter().zip(aabbs).enumerate().map(|(i, (p, a))| !same_bits(p, a) || extra(i)));
    }
}
