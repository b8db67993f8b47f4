//! A box as the tests read it: centre, three world axes, half extents — the quaternion turned into a matrix
//! once per box and per call, never inside an axis loop.

use collide_math::{Obb, Vec3};

/// An oriented box in the form every test here works in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxFrame {
    /// The centre in world space.
    pub center: Vec3,
    /// The box's unit axes in world space (the columns of its rotation matrix).
    pub axes: [Vec3; 3],
    /// Half the size along each axis, `>= 0`.
    pub half: [f32; 3],
}

impl BoxFrame {
    /// The frame of `obb`, or `None` when it is not a valid box (NaN or infinite parts, a negative half extent,
    /// a rotation that is not a unit quaternion): the crate's "invalid in, `None` out" contract starts here.
    #[inline]
    pub fn new(obb: &Obb) -> Option<Self> {
        if !obb.is_valid() {
            return None;
        }
        let m = obb.axes();
        Some(Self { center: obb.center, axes: [m.x_axis, m.y_axis, m.z_axis], half: obb.half_extents.to_array() })
    }

    /// `p` in the box's own coordinates (relative to the centre, along the axes).
    #[inline]
    pub fn local(&self, p: Vec3) -> Vec3 {
        let d = p - self.center;
        Vec3::new(d.dot(self.axes[0]), d.dot(self.axes[1]), d.dot(self.axes[2]))
    }

    /// A vector given in the box's own coordinates, in world space.
    #[inline]
    pub fn vector_to_world(&self, v: Vec3) -> Vec3 {
        self.axes[0] * v.x + self.axes[1] * v.y + self.axes[2] * v.z
    }

    /// The largest half extent: the length every relative tolerance of a box test is scaled by.
    #[inline]
    pub fn size(&self) -> f32 {
        self.half[0].max(self.half[1]).max(self.half[2])
    }
}
