//! The invalid-box contract: what every broadphase does with a box that is not finite or is inverted.
//!
//! The simulation never hands a broadphase such a box (it removes non-finite bodies before building their boxes),
//! but a library user can, and a silent failure there is the worst kind: one NaN corner made the octree's root
//! centre NaN and octree-dup then dropped every body of an over-full leaf; an inverted box (`min > max` on an
//! axis) lost pairs in octree-dup and added pairs in pair counting. So the contract, obeyed by every algorithm and
//! checked by the conformance kit:
//!
//! - a box is **valid** when its corners are finite and `min <= max` on every axis ([`is_valid_box`], the same
//!   test as [`Aabb::is_valid`]); a zero-size box is valid, and so are huge but finite coordinates (±1e30);
//! - an invalid box **overlaps nothing**: its body is in no pair, and it changes nothing in the answer for the
//!   other bodies. The structure never loops, crashes or goes quadratic because of it;
//! - under [`InvalidBoxes::Panic`] — the default in debug builds — the algorithm panics instead, naming the body
//!   and its box ([`Frame::reject_invalid`](crate::Frame::reject_invalid)), because in a debug build an invalid box
//!   is almost always a bug upstream. [`InvalidBoxes::OverlapNothing`] is the default in release builds; a frame
//!   can ask for either with [`Frame::with_invalid_boxes`](crate::Frame::with_invalid_boxes) (the kit checks both
//!   policies in one build that way).
//!
//! Where an algorithm checks: once per frame, in a pass that reads every box anyway (copying it into the
//! structure, computing its cells or sort keys), and only for boxes that can have changed since the last check;
//! an invalid box is then left out of the structure, so the searches never see it and pay nothing for it.
//! [`reference_pairs`](crate::reference_pairs) defines the answer the same way: it skips invalid boxes.

use crate::Aabb;
use glam::Vec3A;

/// What a broadphase does with an invalid box (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InvalidBoxes {
    /// Panic, naming the body and its box: the default in debug builds.
    Panic,
    /// Treat the box as overlapping nothing: the default in release builds.
    OverlapNothing,
}

impl InvalidBoxes {
    /// [`Panic`](Self::Panic) in debug builds, [`OverlapNothing`](Self::OverlapNothing) in release builds.
    pub const DEFAULT: Self = if cfg!(debug_assertions) { Self::Panic } else { Self::OverlapNothing };

    /// Body `body`'s box `aabb` is invalid: under [`Panic`](Self::Panic) panic naming the body and its box
    /// ([`invalid_message`]), otherwise return (the body overlaps nothing). [`Frame::reject_invalid`] is this with
    /// the frame's policy; workers that carry the policy but not the frame call it directly. Out of line, so hot
    /// loops pay only for the branch that leads here.
    ///
    /// [`Frame::reject_invalid`]: crate::Frame::reject_invalid
    #[cold]
    #[inline(never)]
    #[track_caller]
    pub fn reject(self, body: usize, aabb: &Aabb) {
        if self == Self::Panic {
            panic!("{}", invalid_message(body, aabb));
        }
    }
}

impl Default for InvalidBoxes {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// `true` when `b` has finite corners and `min <= max` on every axis ([`Aabb::is_valid`], written for the hot
/// paths). `f32::MIN <= min <= max <= f32::MAX` on each axis is all it takes, since a NaN fails every comparison;
/// on four-lane vectors that is three comparisons, two ands and a mask, no branch (as nine scalar comparisons it
/// cost twice the instructions: a tenth of octree-dup's classification pass).
#[inline(always)]
#[must_use]
pub fn is_valid_box(b: &Aabb) -> bool {
    let (min, max) = (Vec3A::from(b.min), Vec3A::from(b.max));
    (min.cmpge(Vec3A::splat(f32::MIN)) & min.cmple(max) & max.cmple(Vec3A::splat(f32::MAX))).all()
}

/// The first body whose box is invalid, if any. O(n); for algorithms with no pass over the boxes of their own
/// (brute force), and for tests.
#[must_use]
pub fn first_invalid(aabbs: &[Aabb]) -> Option<usize> {
    aabbs.iter().position(|b| !is_valid_box(b))
}

/// The panic message of [`Frame::reject_invalid`](crate::Frame::reject_invalid) for body `body` with box `aabb`.
#[must_use]
pub fn invalid_message(body: usize, aabb: &Aabb) -> String {
    let what = match aabb.check() {
        Err(e) => e.to_string(),
        Ok(()) => format!("box min {} max {} is valid", aabb.min, aabb.max),
    };
    format!(
        "broadphase input: body {body}: {what}. A box must be finite with min <= max on every axis (the \
         invalid-box contract of `Broadphase`); build the frame with `with_invalid_boxes(InvalidBoxes::\
         OverlapNothing)` to have such boxes overlap nothing instead"
    )
}

#[cfg(test)]
mod tests;
