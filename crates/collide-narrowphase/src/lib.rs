//! The narrow phase: exact tests on the pairs the broadphase found, producing contacts.
//!
//! A broadphase answers "these boxes overlap"; two spheres whose boxes overlap may still be apart (the
//! corners of the boxes are empty). The narrow phase decides, and says how: a contact normal and a
//! penetration depth, which the resolution stage (`collide-resolution`'s `push_apart`) turns into a push-out
//! without recomputing them — so the response works for any shape pair this crate can describe.
//!
//! Implemented: sphere–sphere. The sphere–box (with the centre inside the box), box–box by separating axes
//! and swept tests against tunneling arrive with their issue; [`Contact`] is already the shape they return.

mod box_box;
mod clip;
mod frame;
mod manifold;
pub mod samples;
mod sphere_box;
mod toi;

pub use box_box::box_box;
pub use manifold::{ContactPoint, Manifold};
pub use sphere_box::sphere_box;
pub use toi::{toi_sphere_box, toi_sphere_plane, toi_sphere_sphere};

use collide_math::Vec3;

/// How two bodies touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// The unit normal pointing from body `b` toward body `a` (push `a` along it, `b` against it).
    pub normal: Vec3,
    /// How far the bodies interpenetrate along the normal, `>= 0` (0 when exactly touching).
    pub depth: f32,
    /// A point of contact in world space: midway through the overlap.
    pub point: Vec3,
}

/// The contact of spheres `(ca, ra)` and `(cb, rb)`, or `None` when they are apart. Touching counts.
///
/// Coincident centres have no defined normal; +Y is returned, so that stacked bodies separate vertically.
/// Cost: one dot product and, on contact, one square root.
#[must_use]
pub fn sphere_sphere(ca: Vec3, ra: f32, cb: Vec3, rb: f32) -> Option<Contact> {
    let d = ca - cb;
    let dist2 = d.length_squared();
    let r = ra + rb;
    if dist2 > r * r {
        return None;
    }
    let dist = dist2.sqrt();
    let normal = if dist > 0.0 { d / dist } else { Vec3::Y };
    let depth = r - dist;
    // The overlap runs from b's surface (cb + normal*rb) back to a's surface (ca - normal*ra).
    let point = (cb + normal * rb + ca - normal * ra) * 0.5;
    Some(Contact { normal, depth, point })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apart_touching_and_overlapping_spheres() {
        assert!(sphere_sphere(Vec3::ZERO, 1.0, Vec3::new(2.1, 0.0, 0.0), 1.0).is_none());
        let touch = sphere_sphere(Vec3::ZERO, 1.0, Vec3::new(2.0, 0.0, 0.0), 1.0).unwrap();
        assert_eq!(touch.depth, 0.0);
        assert_eq!(touch.normal, -Vec3::X, "from b toward a");
        assert_eq!(touch.point, Vec3::new(1.0, 0.0, 0.0));
        let c = sphere_sphere(Vec3::new(0.0, 1.5, 0.0), 1.0, Vec3::ZERO, 1.0).unwrap();
        assert_eq!(c.normal, Vec3::Y);
        assert!((c.depth - 0.5).abs() < 1e-6);
        let same = sphere_sphere(Vec3::ONE, 1.0, Vec3::ONE, 0.5).unwrap();
        assert_eq!((same.normal, same.depth), (Vec3::Y, 1.5));
    }

    #[test]
    fn boxes_overlap_but_spheres_do_not_in_the_corner() {
        // Diagonal neighbours: the cubes around them overlap, the balls do not.
        let d = Vec3::splat(1.9);
        assert!(
            collide_math::Aabb::from_center_radius(Vec3::ZERO, 1.0)
                .overlaps(&collide_math::Aabb::from_center_radius(d, 1.0))
        );
        assert!(sphere_sphere(Vec3::ZERO, 1.0, d, 1.0).is_none());
    }
}
