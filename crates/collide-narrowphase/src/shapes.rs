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
mod tests {
    use super::*;
    use crate::samples;
    use collide_math::Rng;

    #[test]
    fn the_normal_points_from_b_to_a_whichever_shape_comes_first() {
        let sphere = Solid::Sphere(Vec3::new(0.0, 1.4, 0.0), 0.5);
        let cube = Solid::Box(Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY));
        let sb = solid_contact(&sphere, &cube).unwrap();
        assert_eq!((sb.normal, sb.len), (Vec3::Y, 1));
        let bs = solid_contact(&cube, &sphere).unwrap();
        assert_eq!(bs.normal, -Vec3::Y);
        assert_eq!(bs.points(), sb.points());
        let above = Solid::Box(Obb::new(Vec3::new(0.0, 1.9, 0.0), Vec3::ONE, Quat::IDENTITY));
        let bb = solid_contact(&above, &cube).unwrap();
        assert_eq!((bb.normal, bb.len), (Vec3::Y, 4));
        let ss = solid_contact(&sphere, &Solid::Sphere(Vec3::ZERO, 1.0)).unwrap();
        assert_eq!(ss.normal, Vec3::Y);
        assert!((ss.depth() - 0.1).abs() < 1e-6);
        assert!(solid_contact(&sphere, &Solid::Sphere(Vec3::new(5.0, 0.0, 0.0), 1.0)).is_none());
    }

    fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool").install(f)
    }

    /// Every pair tested one by one with the kernels (the answer) against the batch on every path: serial, forced
    /// parallel on 1, 2 and 4 threads, and the shipped threshold — the same lists in the same order.
    #[test]
    fn the_batch_dispatches_each_pair_to_its_test_in_order_on_every_path() {
        let mut rng = Rng::new(9);
        let n = 2000;
        let position: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(12.0))).collect();
        let shape: Vec<Shape> = (0..n).map(|i| if i % 3 == 0 { Shape::Sphere } else { Shape::Box }).collect();
        let half_extents: Vec<Vec3> = (0..n).map(|_| samples::obb(&mut rng, Vec3::ZERO).half_extents).collect();
        let rotation: Vec<Quat> = (0..n).map(|_| samples::rotation(&mut rng)).collect();
        let radius: Vec<f32> = (0..n).map(|i| rng.range_f32(0.2, 0.9).min(half_extents[i].length())).collect();
        let bodies = ShapeColumns {
            position: &position,
            radius: &radius,
            shape: &shape,
            half_extents: &half_extents,
            rotation: &rotation,
        };
        let mut pairs = Vec::new();
        for i in 0..n as u32 {
            for j in i + 1..n as u32 {
                if (position[i as usize] - position[j as usize]).length() < 2.2 {
                    pairs.push(Pair::new(i, j));
                }
            }
        }
        let (mut want_s, mut want_m) = (Vec::new(), Vec::new());
        for &p in &pairs {
            let (a, b) = (p.a as usize, p.b as usize);
            if shape[a] == Shape::Sphere && shape[b] == Shape::Sphere {
                want_s.extend(sphere_sphere(position[a], radius[a], position[b], radius[b]).map(|c| (p, c)));
            } else {
                want_m.extend(solid_contact(&bodies.solid(a), &bodies.solid(b)).map(|m| (p, m)));
            }
        }
        assert!(want_s.len() > 10 && want_m.len() > 100, "{} {}", want_s.len(), want_m.len());
        assert!(want_m.iter().any(|(_, m)| m.len == 4) && want_m.iter().any(|(_, m)| m.len == 1));
        for (threads, parallelism) in [
            (1, Parallelism::with_min_work(0)),
            (2, Parallelism::with_min_work(0)),
            (4, Parallelism::with_min_work(0)),
            (2, Parallelism::SERIAL),
            (2, Parallelism::default()),
        ] {
            let mut batch = ShapeContacts::default();
            let (mut s, mut m) = (vec![want_s[0]], Vec::new());
            in_pool(threads, || batch.find(parallelism, &pairs, &bodies, &mut s, &mut m));
            assert_eq!((&s, &m), (&want_s, &want_m), "{threads} threads, {parallelism:?}");
        }
    }
}
