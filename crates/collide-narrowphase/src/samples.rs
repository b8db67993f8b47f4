//! Seeded random shape pairs: the oracle tests and the bench's narrowphase study draw the same kinds of pairs.
//!
//! A pair is placed by a random direction and a centre distance drawn uniformly from zero to a little beyond the
//! sum of the shapes' bounding radii, so that about half the pairs overlap, some are deep inside each other and
//! many are near touching — with random sizes (aspect ratios up to 10:1) and uniformly random orientations.

use collide_math::{Obb, Quat, Rng, Vec3};

/// The centre distance is drawn from `[0, SPREAD · (bounding radius of a + of b)]`; 1.2 makes about half the box
/// pairs overlap (the bench's narrowphase study reports the count).
const SPREAD: f32 = 1.2;
/// The same for a sphere and a box: a sphere fills its bounding radius, so it needs more room to miss.
const SPREAD_SPHERE: f32 = 1.45;

/// A uniformly random rotation (a normalised 4-D Gaussian is uniform on the unit quaternions).
#[must_use]
pub fn rotation(rng: &mut Rng) -> Quat {
    loop {
        let q = Quat::from_xyzw(rng.normal(), rng.normal(), rng.normal(), rng.normal());
        let len = q.length();
        if len > 1e-3 {
            return q / len;
        }
    }
}

/// A random box at `center`: half extents in `[0.1, 1)` each, random orientation.
#[must_use]
pub fn obb(rng: &mut Rng, center: Vec3) -> Obb {
    let half = Vec3::new(rng.range_f32(0.1, 1.0), rng.range_f32(0.1, 1.0), rng.range_f32(0.1, 1.0));
    Obb::new(center, half, rotation(rng))
}

/// A random pair of boxes (see the module doc for the mix).
#[must_use]
pub fn box_pair(rng: &mut Rng) -> (Obb, Obb) {
    let center = rng.point_in(Vec3::splat(-10.0), Vec3::splat(10.0));
    let a = obb(rng, center);
    let mut b = obb(rng, Vec3::ZERO);
    let reach = a.half_extents.length() + b.half_extents.length();
    b.center = a.center + rng.unit_vector() * (rng.next_f32() * SPREAD * reach);
    (a, b)
}

/// A random sphere `(centre, radius)` and box (see the module doc for the mix); radius in `[0.05, 1)`.
#[must_use]
pub fn sphere_box_pair(rng: &mut Rng) -> (Vec3, f32, Obb) {
    let center = rng.point_in(Vec3::splat(-10.0), Vec3::splat(10.0));
    let b = obb(rng, center);
    let r = rng.range_f32(0.05, 1.0);
    let reach = b.half_extents.length() + r;
    let c = b.center + rng.unit_vector() * (rng.next_f32() * SPREAD_SPHERE * reach);
    (c, r, b)
}

#[cfg(test)]
mod tests;
