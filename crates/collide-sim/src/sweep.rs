//! The motion of a step between its two ends, as continuous detection sees it: where every body started, which
//! bodies are *fast* — moved further than their [`reach`] — and their swept boxes.
//!
//! A fast body can pass through a thin obstacle or another body between two discrete tests. Its box becomes the
//! union of its boxes before and after the step, so that the broadphase finds the pairs that met during the step
//! (with or without `ccd`: the tunnel count needs those pairs, and the discrete narrowphase drops those that do not
//! touch at the end, so the physics without `ccd` is unchanged). Motion within a step is linear; a box keeps its
//! end-of-step orientation along it (the lecture's assumption): a fast box is fast by its translation.

use crate::Bodies;
use collide_broadphase::Pair;
use collide_math::{Aabb, Vec3};
use collide_narrowphase::{Solid, solid_contact, toi_solids};

/// The step's start positions and fast bodies, kept between steps so that nothing allocates once warm.
#[derive(Default)]
pub struct Sweep {
    /// Every body's centre at the start of the step.
    start: Vec<Vec3>,
    /// Per body: its displacement this step exceeds its [`reach`].
    fast: Vec<bool>,
    /// No fast body this step (nothing to test).
    none_fast: bool,
}

/// How far body `i` may move in a step before it counts as fast: a sphere's radius, a box's smallest half extent
/// (the half of its thinnest side — moving further, it can pass a thin thing between two discrete tests).
fn reach(bodies: &Bodies, i: usize) -> f32 {
    bodies.box_half_extents(i).map_or(bodies.radius[i], Vec3::min_element)
}

impl Sweep {
    /// Keep the start positions. O(n).
    pub fn begin(&mut self, position: &[Vec3]) {
        self.start.clear();
        self.start.extend_from_slice(position);
    }

    /// Forget the start positions (a step that renumbered bodies): no body is fast, no crossing is counted.
    pub fn forget(&mut self, position: &[Vec3]) {
        self.begin(position);
    }

    /// Mark the fast bodies — those whose displacement this step exceeds their [`reach`] — and sweep their boxes
    /// (the union of the boxes before and after the step); their motion flag is set. A box's box before the step
    /// is its box after, moved back by the displacement: continuous detection takes a box at its end-of-step
    /// orientation along the whole step. O(n).
    pub fn sweep(&mut self, bodies: &Bodies, aabbs: &mut [Aabb], moved: &mut [bool]) {
        let n = bodies.len();
        self.fast.clear();
        self.fast.resize(n, false);
        self.none_fast = true;
        for i in 0..n {
            let (p0, p1, r) = (self.start[i], bodies.position[i], reach(bodies, i));
            let d = p1 - p0;
            if d.length_squared() > r * r {
                self.fast[i] = true;
                self.none_fast = false;
                let before = match bodies.box_half_extents(i) {
                    None => Aabb::from_center_radius(p0, bodies.radius[i]),
                    Some(_) => Aabb::new(aabbs[i].min - d, aabbs[i].max - d),
                };
                aabbs[i] = Aabb::new(aabbs[i].min.min(before.min), aabbs[i].max.max(before.max));
                moved[i] = true;
            }
        }
    }

    /// Every body's centre at the start of the step.
    #[must_use]
    pub fn start(&self) -> &[Vec3] {
        &self.start
    }

    /// Per body: fast this step.
    #[must_use]
    pub fn fast(&self) -> &[bool] {
        &self.fast
    }

    /// `true` when some body is fast this step.
    #[must_use]
    pub fn any_fast(&self) -> bool {
        !self.none_fast
    }

    /// Body `i` as a solid at its start, and its displacement over the step.
    #[must_use]
    pub fn motion(&self, bodies: &Bodies, i: usize) -> (Solid, Vec3) {
        (bodies.solid_at(i, self.start[i]), bodies.position[i] - self.start[i])
    }

    /// The pairs of `pairs` with a fast body whose shapes meet during the step, each with its time of impact `t`
    /// on the step's motions (`toi_solids`: sphere–sphere, sphere–box, box–box) — all but the pairs touching at the
    /// start and moving apart (just bounced: no impact). What continuous detection resolves (`ccd.rs`) and the tunnel
    /// count counts (`tunnelling.rs`). O(p) for p pairs with a fast body.
    pub fn meetings<'a>(&'a self, pairs: &'a [Pair], bodies: &'a Bodies) -> impl Iterator<Item = (Pair, f32)> + 'a {
        pairs.iter().filter_map(move |&pair| {
            let (a, b) = (pair.a as usize, pair.b as usize);
            if !(self.fast[a] || self.fast[b]) {
                return None;
            }
            let ((sa, da), (sb, db)) = (self.motion(bodies, a), self.motion(bodies, b));
            let t = toi_solids(&sa, da, &sb, db)?;
            (t != 0.0 || approaching(&sa, da, &sb, db)).then_some((pair, t))
        })
    }
}

/// `true` when `a` and `b`, overlapping at the start of the step, move into each other: their relative motion runs
/// against the contact normal (spheres: against the line of centres, as before boxes existed).
pub fn approaching(a: &Solid, da: Vec3, b: &Solid, db: Vec3) -> bool {
    match (a, b) {
        (Solid::Sphere(ca, _), Solid::Sphere(cb, _)) => (*ca - *cb).dot(da - db) < 0.0,
        _ => solid_contact(a, b).is_some_and(|m| (da - db).dot(m.normal) < 0.0),
    }
}
