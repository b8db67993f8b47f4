//! The narrow phase: exact tests on the pairs the broadphase found, producing contacts.
//!
//! A broadphase answers "these boxes overlap"; two spheres whose boxes overlap may still be apart (the
//! corners of the boxes are empty). The narrow phase decides, and says how: a contact normal and a
//! penetration depth, which the resolution stage (`collide-resolution`'s `push_apart`) turns into a push-out
//! without recomputing them — so the response works for any shape pair this crate can describe.
//!
//! Implemented: sphere–sphere. The sphere–box (with the centre inside the box), box–box by separating axes
//! and swept tests against tunneling arrive with their issue; [`Contact`] is already the shape they return.
//!
//! A step's pairs go through [`SphereContacts`]: chunks of pairs on rayon's threads, each writing its own buffer,
//! appended in chunk order, so that the contacts come out in the pairs' order whatever the thread count.
//!
//! # Complexity
//!
//! O(1) per pair: one dot product, and a square root and a division for a pair that touches. A step is O(p) for p
//! candidate pairs, in p / 4096 parallel tasks.
//!
//! # Performance tips
//!
//! The test itself is a few nanoseconds; a step's narrowphase is the time to fetch two bodies' centres and radii
//! per pair. Pairs in the broadphase's (spatial) order reach bodies whose indices are scattered when the bodies
//! were spawned in random order, so at 10⁶ bodies most fetches miss the cache, and the second thread helps by
//! keeping more misses in flight. Sorting the pairs first does not pay: it costs more than the misses it saves.

mod batch;

pub use batch::{PAIRS_PER_CHUNK, SphereContacts};

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
