//! The tunnel count: how many times a step let a body pass through another or through an obstacle unseen.
//!
//! - [`tunnelled_pairs`], after the broadphase, without `ccd`: a pair with a fast body whose shapes met during the
//!   step (a time of impact `t > 0` on the step's motions, [`toi_solids`]) but do not touch at its end went through
//!   each other. Nothing moves: the state is the same as without the count.
//! - [`crossed_obstacles`], at the end of the step: the bodies whose centre changed side of an obstacle's
//!   mid-plane (across its thinnest axis) along a path that met the obstacle — pushed out on the far side or not
//!   touched at all, they went through ([`went_through`]).
//!
//! With `ccd` the pair count is 0 by construction (every meeting is resolved or, measured again, did not happen),
//! and so is the obstacle count: a body's own motion stops at the face, and a body a crowd pushed through is put
//! back on its side before the count (`obstacles::keep_on_start_side`).

use crate::Bodies;
use crate::obstacles::{thin_axis, went_through};
use crate::sweep::Sweep;
use collide_broadphase::Pair;
use collide_math::{Obb, Vec3};
use collide_narrowphase::solid_contact;

/// How many of `pairs` went through each other this step: a fast body in the pair, a time of impact `t > 0` on the
/// step's motions (bodies touching at the start and moving apart do not count), and no contact at the end. O(p) for
/// p pairs with a fast body.
#[must_use]
pub fn tunnelled_pairs(sweep: &Sweep, pairs: &[Pair], bodies: &Bodies) -> u32 {
    if !sweep.any_fast() {
        return 0;
    }
    let end = |i: u32| bodies.solid_at(i as usize, bodies.position[i as usize]);
    let tunnelled = sweep
        .meetings(pairs, bodies)
        .filter(|&(pair, t)| t > 0.0 && solid_contact(&end(pair.a), &end(pair.b)).is_none());
    tunnelled.count() as u32
}

/// How many bodies went through an obstacle between `start` and their positions now ([`went_through`]). O(n·k).
#[must_use]
pub fn crossed_obstacles(start: &[Vec3], bodies: &Bodies, obstacles: &[Obb]) -> u32 {
    let mut crossed = 0;
    for obstacle in obstacles {
        let (thin, _) = thin_axis(obstacle);
        for (i, &p0) in start.iter().enumerate() {
            crossed += u32::from(went_through(bodies, i, p0, obstacle, thin));
        }
    }
    crossed
}

#[cfg(test)]
mod tests;
