use glam::Vec3;
use serde::{Deserialize, Serialize};
use std::fmt;

/// An axis-aligned bounding box: the closed set `min ..= max` on every axis.
///
/// A valid box has finite corners and `min <= max` on every axis (a zero-size box, `min == max`, is valid: a
/// point). [`Aabb::new`] does not check, because the hot path builds millions of boxes from bodies that the
/// simulation has already checked; [`Aabb::try_new`] and [`Aabb::is_valid`] are for input from outside.
///
/// `repr(C)` and [`bytemuck::Pod`]: six `f32`s, so that a buffer of boxes can lend its memory as plain words
/// (the simulation's spatial reorder gathers its body columns through the step's box buffer).
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Aabb {
    /// The corner with the smallest coordinate on every axis.
    pub min: Vec3,
    /// The corner with the largest coordinate on every axis.
    pub max: Vec3,
}

/// Why a box was rejected by [`Aabb::try_new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AabbError {
    /// A corner has a NaN or infinite coordinate.
    NotFinite {
        /// The rejected lower corner.
        min: Vec3,
        /// The rejected upper corner.
        max: Vec3,
    },
    /// `min > max` on the given axis (0 = x, 1 = y, 2 = z).
    Inverted {
        /// The first axis on which `min > max`.
        axis: usize,
        /// The rejected lower corner.
        min: Vec3,
        /// The rejected upper corner.
        max: Vec3,
    },
}

impl fmt::Display for AabbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFinite { min, max } => {
                write!(f, "box corners must be finite, got min {min} max {max}")
            }
            Self::Inverted { axis, min, max } => {
                let name = ["x", "y", "z"][*axis];
                write!(f, "box has min > max on {name}: min {min} max {max}")
            }
        }
    }
}

impl std::error::Error for AabbError {}

impl Aabb {
    /// The empty box's identity for [`Aabb::union`]: `min = +inf`, `max = -inf`. It is not [`valid`](Self::is_valid).
    pub const EMPTY: Self = Self { min: Vec3::INFINITY, max: Vec3::NEG_INFINITY };

    /// A box from its corners, unchecked (see the type's docs).
    #[inline]
    #[must_use]
    pub const fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// A box from its corners, checked for finiteness and `min <= max`.
    pub fn try_new(min: Vec3, max: Vec3) -> Result<Self, AabbError> {
        let aabb = Self { min, max };
        aabb.check()?;
        Ok(aabb)
    }

    /// The box around `center` reaching `half_extents` along each axis.
    #[inline]
    #[must_use]
    pub fn from_center_half_extents(center: Vec3, half_extents: Vec3) -> Self {
        Self { min: center - half_extents, max: center + half_extents }
    }

    /// The cube around `center` with half edge `r` (a sphere's box).
    #[inline]
    #[must_use]
    pub fn from_center_radius(center: Vec3, r: f32) -> Self {
        Self::from_center_half_extents(center, Vec3::splat(r))
    }

    /// The smallest box containing all `points`; [`Aabb::EMPTY`] for none.
    #[must_use]
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| Self { min: b.min.min(p), max: b.max.max(p) })
    }

    /// Closed-interval overlap: `true` when the boxes share at least one point, touching included.
    ///
    /// This is **the** overlap test of the workspace: every broadphase, the brute-force oracle and the
    /// conformance kit call it, so that they all agree on the boundary cases.
    #[inline(always)]
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        // Six comparisons combined with `&` rather than `&&`: no branches, so the compiler can vectorise it,
        // and the outcome is the same (comparisons have no side effects).
        (self.min.x <= other.max.x)
            & (other.min.x <= self.max.x)
            & (self.min.y <= other.max.y)
            & (other.min.y <= self.max.y)
            & (self.min.z <= other.max.z)
            & (other.min.z <= self.max.z)
    }

    /// Closed-interval overlap of the projections on one axis (0 = x, 1 = y, 2 = z).
    #[inline]
    #[must_use]
    pub fn overlaps_on_axis(&self, other: &Self, axis: usize) -> bool {
        self.min[axis] <= other.max[axis] && other.min[axis] <= self.max[axis]
    }

    /// `true` when `point` lies in the closed box.
    #[inline]
    #[must_use]
    pub fn contains_point(&self, point: Vec3) -> bool {
        point.cmpge(self.min).all() && point.cmple(self.max).all()
    }

    /// `true` when `other` lies entirely inside this closed box.
    #[inline]
    #[must_use]
    pub fn contains(&self, other: &Self) -> bool {
        other.min.cmpge(self.min).all() && other.max.cmple(self.max).all()
    }

    /// The smallest box containing both.
    #[inline]
    #[must_use]
    pub fn union(&self, other: &Self) -> Self {
        Self { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The overlap of both boxes, or `None` when they do not overlap.
    #[inline]
    #[must_use]
    pub fn intersection(&self, other: &Self) -> Option<Self> {
        self.overlaps(other).then(|| Self { min: self.min.max(other.min), max: self.max.min(other.max) })
    }

    /// The box grown by `margin` on every side (shrunk for a negative margin; may then be inverted).
    #[inline]
    #[must_use]
    pub fn expanded(&self, margin: f32) -> Self {
        Self { min: self.min - Vec3::splat(margin), max: self.max + Vec3::splat(margin) }
    }

    /// The centre point.
    #[inline]
    #[must_use]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Half the size along each axis.
    #[inline]
    #[must_use]
    pub fn half_extents(&self) -> Vec3 {
        (self.max - self.min) * 0.5
    }

    /// The size along each axis.
    #[inline]
    #[must_use]
    pub fn extents(&self) -> Vec3 {
        self.max - self.min
    }

    /// The volume (zero for a flat or point box).
    #[inline]
    #[must_use]
    pub fn volume(&self) -> f32 {
        let e = self.extents();
        e.x * e.y * e.z
    }

    /// The surface area, the cost measure of BVH builders.
    #[inline]
    #[must_use]
    pub fn surface_area(&self) -> f32 {
        let e = self.extents();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// The axis (0 = x, 1 = y, 2 = z) along which the box is longest.
    #[inline]
    #[must_use]
    pub fn longest_axis(&self) -> usize {
        let e = self.extents();
        if e.x >= e.y && e.x >= e.z {
            0
        } else if e.y >= e.z {
            1
        } else {
            2
        }
    }

    /// `true` when the corners are finite and `min <= max` on every axis.
    #[inline]
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.check().is_ok()
    }

    /// Like [`Aabb::is_valid`], but says what is wrong.
    pub fn check(&self) -> Result<(), AabbError> {
        let (min, max) = (self.min, self.max);
        if !(min.is_finite() && max.is_finite()) {
            return Err(AabbError::NotFinite { min, max });
        }
        match (0..3).find(|&axis| min[axis] > max[axis]) {
            Some(axis) => Err(AabbError::Inverted { axis, min, max }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
