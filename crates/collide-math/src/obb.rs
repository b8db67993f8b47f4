use crate::Aabb;
use glam::{Mat3, Quat, Vec3};

/// An oriented box: a box of `half_extents` in its own frame, rotated by `rotation` and moved to `center`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb {
    /// The centre in world space.
    pub center: Vec3,
    /// Half the size along the box's own axes, each `>= 0`.
    pub half_extents: Vec3,
    /// The box's orientation (unit quaternion).
    pub rotation: Quat,
}

impl Obb {
    /// A box from centre, half extents and orientation.
    #[inline]
    #[must_use]
    pub const fn new(center: Vec3, half_extents: Vec3, rotation: Quat) -> Self {
        Self { center, half_extents, rotation }
    }

    /// The box's axes in world space, as the columns of a rotation matrix.
    #[inline]
    #[must_use]
    pub fn axes(&self) -> Mat3 {
        Mat3::from_quat(self.rotation)
    }

    /// The tightest axis-aligned box around the rotated box: each world axis gets `Σ |R_ij| h_j`.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        let m = self.axes();
        let abs = Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
        Aabb::from_center_half_extents(self.center, abs * self.half_extents)
    }

    /// The point of the box closest to `point` (the point itself when it is inside).
    #[must_use]
    pub fn closest_point(&self, point: Vec3) -> Vec3 {
        let local = self.rotation.inverse() * (point - self.center);
        self.center + self.rotation * local.clamp(-self.half_extents, self.half_extents)
    }

    /// `true` when the parts are finite, the half extents non-negative and the rotation normalised.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.center.is_finite()
            && self.half_extents.is_finite()
            && self.half_extents.cmpge(Vec3::ZERO).all()
            && self.rotation.is_finite()
            && self.rotation.is_normalized()
    }
}

#[cfg(test)]
mod tests;
