//! Bodies of several shapes: which test a pair needs, and a step's pairs dispatched on their shapes.
//!
//! A step of spheres only goes through [`SphereContacts`](crate::SphereContacts) (two centres and two radii per
//! pair). When some bodies are boxes, [`ShapeContacts`] reads each pair's shapes and runs the matching test:
//! sphere–sphere pairs keep the sphere batch's `(Pair, Contact)` form, and every pair with a box gives a
//! [`Manifold`] — one point for sphere–box, up to four for box–box — so that resolution can apply an impulse at
//! each point.

use crate::{Contact, Manifold, box_box, sphere_box, sphere_sphere};
use collide_broadphase::{Pair, Parallelism};
use collide_math::{Obb, Quat, Vec3};

/// The shape of a body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Shape {
    /// A sphere: its centre and radius.
    #[default]
    Sphere,
    /// An oriented box: its centre, half extents and rotation.
    Box,
}

/// One body as the tests read it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Solid {
    /// A sphere: centre and radius.
    Sphere(Vec3, f32),
    /// An oriented box.
    Box(Obb),
}

impl Solid {
    /// The solid of a body of `shape` at `center`: a sphere of `radius`, or a box of `half_extents` turned by
    /// `rotation`.
    #[inline]
    #[must_use]
    pub fn new(shape: Shape, center: Vec3, radius: f32, half_extents: Vec3, rotation: Quat) -> Self {
        match shape {
            Shape::Sphere => Self::Sphere(center, radius),
            Shape::Box => Self::Box(Obb::new(center, half_extents, rotation)),
        }
    }
}

/// The contact of `a` and `b` as a manifold whose normal points from `b` toward `a` (the crate's convention,
/// whatever the order of the shapes): sphere–sphere and sphere–box give one point, box–box up to four. `None`
/// when apart or on invalid input.
#[must_use]
pub fn solid_contact(a: &Solid, b: &Solid) -> Option<Manifold> {
    match (a, b) {
        (Solid::Sphere(ca, ra), Solid::Sphere(cb, rb)) => sphere_sphere(*ca, *ra, *cb, *rb).map(Manifold::from),
        (Solid::Sphere(c, r), Solid::Box(obb)) => sphere_box(*c, *r, obb).map(Manifold::from),
        // `sphere_box` puts the sphere first: its normal points from the box `a` toward the sphere `b`.
        (Solid::Box(obb), Solid::Sphere(c, r)) => sphere_box(*c, *r, obb).map(|k| {
            let mut m = Manifold::from(k);
            m.normal = -m.normal;
            m
        }),
        (Solid::Box(a), Solid::Box(b)) => box_box(a, b),
    }
}

/// The body columns a step's narrowphase reads: every body's centre and radius, and per body its shape, half
/// extents and rotation (read only for boxes).
#[derive(Clone, Copy, Debug)]
pub struct ShapeColumns<'a> {
    /// Centres.
    pub position: &'a [Vec3],
    /// Sphere radii (a box's bounding radius, unused here).
    pub radius: &'a [f32],
    /// Shapes.
    pub shape: &'a [Shape],
    /// Box half extents (unused for spheres).
    pub half_extents: &'a [Vec3],
    /// Box rotations (unused for spheres).
    pub rotation: &'a [Quat],
}

impl ShapeColumns<'_> {
    /// Body `i` as a solid.
    #[inline]
    #[must_use]
    pub fn solid(&self, i: usize) -> Solid {
        Solid::new(self.shape[i], self.position[i], self.radius[i], self.half_extents[i], self.rotation[i])
    }
}

/// What one chunk of pairs found: its sphere–sphere contacts and its manifolds.
type ChunkOut = (Vec<(Pair, Contact)>, Vec<(Pair, Manifold)>);

/// A step's pairs dispatched on their shapes (see the module docs), in parallel chunks of
/// [`PAIRS_PER_CHUNK`](crate::PAIRS_PER_CHUNK) pairs whose outputs are appended in chunk order: both lists come out
/// in the pairs' order whatever the thread count. The buffers live across steps, so a warm caller allocates
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct ShapeContacts {
    /// One pair of buffers per chunk of pairs (kept across calls).
    chunks: Vec<ChunkOut>,
}

impl ShapeContacts {
    /// Test every pair of `pairs` and replace `spheres` with the touching sphere–sphere pairs and `manifolds` with
    /// the touching pairs that have a box, each in the pairs' order. Parallel when `parallelism` says so for
    /// `pairs.len()` pairs; the answer is the same either way.
    pub fn find(
        &mut self,
        parallelism: Parallelism,
        pairs: &[Pair],
        bodies: &ShapeColumns<'_>,
        spheres: &mut Vec<(Pair, Contact)>,
        manifolds: &mut Vec<(Pair, Manifold)>,
    ) {
        spheres.clear();
        manifolds.clear();
        let test = |chunk: &[Pair], spheres: &mut Vec<(Pair, Contact)>, manifolds: &mut Vec<(Pair, Manifold)>| {
            for &pair in chunk {
                let (a, b) = (pair.a as usize, pair.b as usize);
                if bodies.shape[a] == Shape::Sphere && bodies.shape[b] == Shape::Sphere {
                    let (p, r) = (bodies.position, bodies.radius);
                    if let Some(contact) = sphere_sphere(p[a], r[a], p[b], r[b]) {
                        spheres.push((pair, contact));
                    }
                } else if let Some(m) = solid_contact(&bodies.solid(a), &bodies.solid(b)) {
                    manifolds.push((pair, m));
                }
            }
        };
        let Some((size, count)) = crate::batch::chunk_plan(parallelism, pairs.len()) else {
            test(pairs, spheres, manifolds);
            return;
        };
        if self.chunks.len() < count {
            self.chunks.resize_with(count, ChunkOut::default);
        }
        parallelism.for_each("narrowphase", pairs.len(), &mut self.chunks[..count], |c, (s, m)| {
            s.clear();
            m.clear();
            test(crate::batch::chunk(pairs, size, c), s, m);
        });
        spheres.reserve(self.chunks[..count].iter().map(|(s, _)| s.len()).sum());
        manifolds.reserve(self.chunks[..count].iter().map(|(_, m)| m.len()).sum());
        for (s, m) in &self.chunks[..count] {
            spheres.extend_from_slice(s);
            manifolds.extend_from_slice(m);
        }
    }
}

#[cfg(test)]
mod tests;
