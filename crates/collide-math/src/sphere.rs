use crate::Aabb;
use glam::Vec3;

/// A ball: every point within `radius` of `center`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// The centre.
    pub center: Vec3,
    /// The radius, `>= 0`.
    pub radius: f32,
}

impl Sphere {
    /// A sphere from centre and radius.
    #[inline]
    #[must_use]
    pub const fn new(center: Vec3, radius: f32) -> Self {
        Self { center, radius }
    }

    /// The tightest axis-aligned box: a cube of half edge `radius`.
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        Aabb::from_center_radius(self.center, self.radius)
    }

    /// `true` when the balls share a point (touching counts).
    #[inline]
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        let r = self.radius + other.radius;
        self.center.distance_squared(other.center) <= r * r
    }

    /// `true` when the centre is finite and the radius finite and non-negative.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.center.is_finite() && self.radius.is_finite() && self.radius >= 0.0
    }
}

#[cfg(test)]
mod tests;
