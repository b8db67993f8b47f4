//! The narrow phase: exact tests on the pairs the broadphase found, producing contacts — and, for fast bodies,
//! the time of impact within a step.
//!
//! A broadphase answers "these boxes overlap"; two shapes whose boxes overlap may still be apart (the corners of
//! the boxes are empty). The narrow phase decides, and says how: a contact normal and a penetration depth, which
//! the resolution stage (`collide-resolution`) turns into a push-out and impulses without recomputing them — so
//! the response works for any shape pair this crate can describe.
//!
//! # Conventions
//!
//! - **The normal points from body `b` toward body `a`**: push `a` along it, `b` against it. In [`sphere_box`]
//!   the sphere is `a` and the box `b`; in [`box_box`] the arguments' order.
//! - **Depth `>= 0` means touching or overlapping**; exactly touching shapes (depth 0) are in contact, as
//!   boxes that touch overlap in the broadphase (`collide_math`'s closed boxes).
//! - **A contact point is midway through the overlap** along the normal (between the two surfaces), for every
//!   pair type.
//! - **Invalid input gives `None`, never a panic**: NaN or infinite coordinates, negative radii or half extents,
//!   rotations that are not unit quaternions ([`collide_math::Obb::is_valid`]).
//! - Nothing allocates: manifolds and clipping polygons are fixed arrays. Every function is `#[must_use]`.
//!
//! # The tests
//!
//! - [`sphere_sphere`]: the distance of the centres against the sum of the radii.
//! - [`sphere_box`]: the box's closest point to the centre, in the box's frame (a clamp). With the centre inside
//!   the box the closest point is the centre itself and has no direction, so the sphere is pushed out through the
//!   face of least penetration (the seed study's case of a centre inside the box).
//! - [`box_box`]: the separating-axis theorem — two convex boxes are apart exactly when their projections on
//!   one of 15 axes are (3 face normals of each, 9 cross products of an edge of each). The test runs in `a`'s
//!   frame on the nine cosines `R = Aᵀ·B` (Gottschalk's OBB test), and stops at the first separating axis, so
//!   apart pairs are cheap. The axis of least penetration gives the normal and depth; then:
//!   - **a face axis**: the box owning it is the *reference*, the other box's face most anti-parallel to it the
//!     *incident* face; the incident quadrilateral is clipped by the reference face's four side planes
//!     (Sutherland–Hodgman), the points below the reference face are kept (each with its own depth), and at most
//!     four remain: the deepest, the furthest from it, the one spanning the largest triangle with those two, and
//!     the furthest on the other side — the area a resting box stands on. [`Manifold::depth`] is the deepest
//!     kept point, which is the axis's overlap unless the incident box's deepest corner lies beyond the
//!     reference face's rim (then clipping replaces it by a shallower point of the rim).
//!   - **an edge axis**: the two edges that realise it (each box's edge along the axis's factor, furthest toward
//!     the other box) and the midpoint of their closest points; one point.
//! - [`toi_sphere_sphere`], [`toi_sphere_plane`], [`toi_sphere_box`]: the earliest fraction of a step at which
//!   shapes moving linearly first touch — the lecture's continuous detection (seed 004), which stops a fast body
//!   from tunnelling through a thin one between two discrete steps. Sphere–sphere solves the lecture's quadratic
//!   `|p + v·t|² = (ra + rb)²` in the form `t = c / (−b + √(b² − ac))`, which has no cancellation and no division
//!   by `a`, so no relative motion needs no special case. Sphere–box is **exact**: the centre's path against the
//!   box grown by the radius (a rounded box: three slabs, twelve edge cylinders, eight corner spheres, each with
//!   a closed form), not conservative advancement, so it has no iteration limit and no slow convergence at
//!   grazing angles.
//! - [`toi_box_box`]: separating axes on the move. Boxes that only translate keep their 15 axes, and on each the
//!   projections overlap during one interval of `t` (a linear equation); the boxes touch on the intersection of
//!   the intervals, so the time of impact is the latest entry if it precedes the earliest exit — exact, no
//!   iteration. A box is taken at one orientation for the whole step. [`toi_solids`] picks the test for any two
//!   bodies (sphere–box on the relative motion, the box standing still).
//!
//! # Robustness
//!
//! - **Parallel edges**: an edge axis whose cross product is shorter than 10⁻⁴ (the sine of the angle between
//!   two unit edges: a relative epsilon) is skipped — it has no direction (normalised, a NaN), and the face axes
//!   already cover every separation such edges can have. The edge radii add 10⁻⁶ to each `|R|` entry
//!   (Gottschalk's padding), so near-parallel edges err toward "overlapping" rather than a false separation.
//! - **Face bias**: an edge axis replaces the best face axis only if its penetration is 2% smaller (less a
//!   length of 10⁻⁵ × the larger box's size), and `b`'s face replaces `a`'s only if 2% smaller, as Box2D and
//!   Bullet do: a resting box keeps its four-point face contact instead of flickering to a one-point edge
//!   contact on a rounding-level margin. The price is a depth up to 2% above the least overlap on near-ties
//!   (the oracle test measures how often: about one overlapping random pair in eight, deeply overlapping ones).
//! - **Touching faces** (depth 0) and **coincident boxes** give finite four-point manifolds: clipping keeps points
//!   within 10⁻⁵ × size above the reference face (at depth 0), ties between axes go to the lowest index, and
//!   if rounding ever clipped every point away, the incident box's support vertex is returned with the axis's
//!   depth, so a contact the axis test found is never lost.
//!
//! # Testing
//!
//! Analytic cases for every pair type (face, edge, vertex, inside, touching, apart, rotated 45° about one axis and
//! about two), in each module's tests; `tests/oracle.rs` checks 10 000 seeded random pairs per type against
//! parry3d's `query::contact` (separation state on every pair, normal and depth on overlapping ones, with the
//! stated tolerances and the face bias's exception checked against an f64 separating-axis arbiter);
//! `tests/toi_sampled.rs` checks the spheres' times of impact against a fine sampled search of the same motion, and
//! `tests/toi_oracle.rs` the boxes' against parry3d's shape casting (`query::cast_shapes`) on 10 000 swept pairs.
//! [`samples`] draws the random pairs, for the tests and the bench alike.
//!
//! # A step's pairs
//!
//! A step's sphere pairs go through [`SphereContacts`]: chunks of pairs on rayon's threads, each writing its own
//! buffer, appended in chunk order, so that the contacts come out in the pairs' order whatever the thread count.
//! When some bodies are boxes, [`ShapeContacts`] does the same with a test chosen per pair by the bodies'
//! [`Shape`]s: sphere–sphere pairs give the same `(Pair, Contact)` list, every pair with a box a [`Manifold`]
//! (one point for sphere–box, up to four for box–box, the normal always from `b` toward `a` —
//! [`solid_contact`] flips `sphere_box`'s when the box is `a`). A scene of spheres only never reads the shape
//! columns: the simulation calls the sphere batch there.
//!
//! # Complexity
//!
//! Every test is O(1) with small, fixed bounds; none allocates. A step is O(p) for p candidate pairs, in p / 4096
//! parallel tasks.
//! - `sphere_sphere`: one dot product, a square root on contact.
//! - `sphere_box`: a quaternion-to-matrix conversion, three dot products and a clamp; a square root on contact.
//! - `box_box`: two conversions, the 3×3 cosine table, at most 15 axis tests (six of them a few multiplies, the
//!   nine edge axes a square root each), stopping at the first separating axis; on contact, clipping a
//!   quadrilateral by four planes (at most 8 vertices) or the closest points of two segments.
//! - `toi_sphere_sphere`, `toi_sphere_plane`: a handful of dot products and one square root.
//! - `toi_sphere_box`: a slab test rejects most misses; a hit runs 3 slab tests, 8 sphere and 12 cylinder
//!   quadratics (about 25 square roots at worst).
//! - `toi_box_box`: two conversions and at most 15 axes of a few dot products and two divisions each, stopping
//!   at the first axis that rules the step out; no square root beyond the nine edge axes' lengths.
//!
//! Measured (`cargo xtask bench --study narrowphase`: 100 000 random pairs, about half overlapping, release, one
//! thread, a loaded 2-core VM): box–box about 200 ns per pair, 2.6× faster than parry's clipping manifold for two
//! cuboids and 10× faster than its `query::contact` (GJK/EPA for boxes); sphere–box about 35 ns, 2.7× faster than
//! parry. In instructions (callgrind, the quick study's pairs): `box_box` about 1650 per call, parry's `contact`
//! about 18 700; `sphere_box` about 250.
//!
//! # Performance tips
//!
//! - A step's sphere–sphere tests are a few nanoseconds each; what a step's narrowphase costs is fetching two
//!   bodies' centres and radii per pair. Pairs in the broadphase's (spatial) order reach bodies whose indices are
//!   scattered when the bodies were spawned in random order, so at 10⁶ bodies most fetches miss the cache, and
//!   the second thread helps by keeping more misses in flight. Sorting the pairs first does not pay: it costs more
//!   than the misses it saves.
//! - Filter by the broadphase first: on apart pairs `box_box` usually stops after a face axis, but a pair the
//!   broadphase rejected costs nothing.
//! - Spheres are 5–6× cheaper than boxes: approximate by spheres where the shape does not matter.
//! - Call the time-of-impact functions only for bodies that move further than their size in a step (the ones
//!   that can tunnel); everyone else is caught by the discrete test.
//! - A manifold of four points is what keeps boxes resting flat; [`Manifold::to_contact`] (the deepest point)
//!   suffices for a one-point response.

mod batch;
mod box_box;
mod clip;
mod frame;
mod manifold;
pub mod samples;
mod shapes;
mod sphere_box;
mod toi;

pub use batch::{PAIRS_PER_CHUNK, SphereContacts};
pub use box_box::box_box;
pub use manifold::{ContactPoint, Manifold};
pub use shapes::{Shape, ShapeColumns, ShapeContacts, Solid, solid_contact};
pub use sphere_box::sphere_box;
pub use toi::{toi_box_box, toi_solids, toi_sphere_box, toi_sphere_plane, toi_sphere_sphere};

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
/// NaN in gives `None`.
/// Cost: one dot product and, on contact, one square root.
#[must_use]
pub fn sphere_sphere(ca: Vec3, ra: f32, cb: Vec3, rb: f32) -> Option<Contact> {
    let d = ca - cb;
    let dist2 = d.length_squared();
    let r = ra + rb;
    // NaN anywhere makes `dist2` or `r` NaN: no contact, rather than a NaN normal.
    if dist2.is_nan() || r.is_nan() || dist2 > r * r {
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
mod test_beams;
#[cfg(test)]
mod tests;
