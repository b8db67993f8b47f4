//! The box–box result: up to four contact points sharing one normal.

use crate::Contact;
use collide_math::Vec3;

/// One point of a contact manifold, in world space.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ContactPoint {
    /// Midway through the overlap at this point (between the incident feature and the reference surface).
    pub point: Vec3,
    /// The overlap along the manifold's normal at this point; `>= 0` means touching or overlapping.
    pub depth: f32,
}

/// Up to four points sharing one normal, pointing from body `b` toward body `a` (as [`Contact`]).
///
/// Four points are what a box resting on a face needs to stay flat: the resolution applies an impulse at each,
/// so the torques of the corners balance. A single deepest point (see [`Manifold::to_contact`]) rocks it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Manifold {
    /// The unit normal from `b` toward `a`: push `a` along it, `b` against it.
    pub normal: Vec3,
    /// The points; only the first `len` are meaningful (the rest are zero).
    pub points: [ContactPoint; 4],
    /// How many points, `1..=4`.
    pub len: u8,
}

impl Manifold {
    /// A manifold of one point.
    #[must_use]
    pub(crate) fn single(normal: Vec3, point: Vec3, depth: f32) -> Self {
        let mut points = [ContactPoint::default(); 4];
        points[0] = ContactPoint { point, depth };
        Self { normal, points, len: 1 }
    }

    /// The meaningful points.
    #[must_use]
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..usize::from(self.len)]
    }

    /// The deepest point's depth (0 when the boxes just touch).
    #[must_use]
    pub fn depth(&self) -> f32 {
        self.points().iter().fold(0.0_f32, |d, p| d.max(p.depth))
    }

    /// The deepest point as one [`Contact`], for the one-point resolution.
    #[must_use]
    pub fn to_contact(&self) -> Contact {
        let deepest = self
            .points()
            .iter()
            .copied()
            .reduce(|best, p| if p.depth > best.depth { p } else { best })
            .unwrap_or_default();
        Contact { normal: self.normal, depth: deepest.depth.max(0.0), point: deepest.point }
    }
}

impl From<Contact> for Manifold {
    /// A one-point contact (sphere–sphere, sphere–box) as a manifold of one point.
    fn from(c: Contact) -> Self {
        Self::single(c.normal, c.point, c.depth)
    }
}

#[cfg(test)]
mod tests;
