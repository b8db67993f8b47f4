//! The spin path against the one-by-one answer: every contact in ascending pair order, each resolved at its
//! manifold's points (measured again by `solid_contact` when an earlier contact moved one of its bodies), the
//! sphere–sphere contacts without friction by the spheres' response.

use super::*;
use crate::{BodyState, box_inverse_inertia, resolve_contact, sphere_inverse_inertia};
use collide_math::Rng;
use collide_narrowphase::{samples, sphere_sphere};

/// Bodies that spin — every third a sphere, the others boxes — packed tight enough for several contacts each.
struct Scene {
    position: Vec<Vec3>,
    velocity: Vec<Vec3>,
    inv_mass: Vec<f32>,
    radius: Vec<f32>,
    shape: Vec<Shape>,
    rotation: Vec<Quat>,
    angular_velocity: Vec<Vec3>,
    inv_inertia: Vec<Vec3>,
    half_extents: Vec<Vec3>,
    contacts: Vec<(Pair, Contact)>,
    manifolds: Vec<(Pair, Manifold)>,
}

impl Scene {
    fn new(seed: u64, n: usize, side: f32) -> Self {
        let mut rng = Rng::new(seed);
        let position: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(side))).collect();
        let velocity = (0..n).map(|_| rng.unit_vector() * rng.range_f32(0.0, 3.0)).collect();
        let angular_velocity = (0..n).map(|_| rng.unit_vector() * rng.range_f32(0.0, 4.0)).collect();
        let shape: Vec<Shape> = (0..n).map(|i| if i % 3 == 0 { Shape::Sphere } else { Shape::Box }).collect();
        let half_extents: Vec<Vec3> = (0..n).map(|_| samples::obb(&mut rng, Vec3::ZERO).half_extents * 0.8).collect();
        let rotation: Vec<Quat> = (0..n).map(|_| samples::rotation(&mut rng)).collect();
        let radius: Vec<f32> = (0..n).map(|i| half_extents[i].max_element()).collect();
        let inv_mass: Vec<f32> =
            (0..n).map(|i| 1.0 / (8.0 * half_extents[i].x * half_extents[i].y * half_extents[i].z)).collect();
        let inv_inertia = (0..n)
            .map(|i| match shape[i] {
                Shape::Box => box_inverse_inertia(half_extents[i], inv_mass[i]),
                Shape::Sphere => sphere_inverse_inertia(radius[i], inv_mass[i]),
            })
            .collect();
        let mut s = Self {
            position,
            velocity,
            inv_mass,
            radius,
            shape,
            rotation,
            angular_velocity,
            inv_inertia,
            half_extents,
            contacts: Vec::new(),
            manifolds: Vec::new(),
        };
        let columns = s.columns();
        let (mut contacts, mut manifolds) = (Vec::new(), Vec::new());
        for a in 0..n {
            for b in a + 1..n {
                let pair = Pair::new(a as u32, b as u32);
                if s.shape[a] == Shape::Sphere && s.shape[b] == Shape::Sphere {
                    contacts.extend(
                        sphere_sphere(s.position[a], s.radius[a], s.position[b], s.radius[b]).map(|c| (pair, c)),
                    );
                } else {
                    manifolds.extend(solid_contact(&solid(&columns, a), &solid(&columns, b)).map(|m| (pair, m)));
                }
            }
        }
        // A broadphase's order: anything but sorted.
        for i in (1..contacts.len()).rev() {
            contacts.swap(i, rng.below(i as u32 + 1) as usize);
        }
        for i in (1..manifolds.len()).rev() {
            manifolds.swap(i, rng.below(i as u32 + 1) as usize);
        }
        (s.contacts, s.manifolds) = (contacts, manifolds);
        s
    }

    fn columns(&self) -> SpinColumns<'_> {
        SpinColumns {
            shapes: ShapeColumns {
                position: &self.position,
                radius: &self.radius,
                shape: &self.shape,
                half_extents: &self.half_extents,
                rotation: &self.rotation,
            },
            velocity: &self.velocity,
            inv_mass: &self.inv_mass,
            angular_velocity: &self.angular_velocity,
            inv_inertia: &self.inv_inertia,
        }
    }
}

fn solid(c: &SpinColumns<'_>, i: usize) -> Solid {
    c.shapes.solid(i)
}

type Motion = (Vec<Vec3>, Vec<Vec3>, Vec<Vec3>);

/// The one-by-one answer: positions, velocities and angular velocities (in the bodies' frames, as the columns keep
/// them; in the world's while resolving, each contact's bodies turned out of their frame once and back once).
fn one_by_one(s: &Scene, m: &Material) -> Motion {
    let (mut p, mut v) = (s.position.clone(), s.velocity.clone());
    let mut w: Vec<Vec3> = s.angular_velocity.iter().zip(&s.rotation).map(|(&w, &q)| q * w).collect();
    let mut all: Vec<(Pair, Option<Contact>, Option<Manifold>)> =
        s.contacts.iter().map(|&(pair, c)| (pair, Some(c), None)).collect();
    all.extend(s.manifolds.iter().map(|&(pair, m)| (pair, None, Some(m))));
    all.sort_by_key(|(pair, _, _)| pair.key());
    let mut moved = vec![false; p.len()];
    for (pair, contact, manifold) in all {
        let (i, j) = (pair.a as usize, pair.b as usize);
        let fresh = !(moved[i] || moved[j]);
        if let (Some(c), 0.0) = (contact, m.friction) {
            let mut s1 = BodyState { position: p[i], velocity: v[i], inv_mass: s.inv_mass[i] };
            let mut s2 = BodyState { position: p[j], velocity: v[j], inv_mass: s.inv_mass[j] };
            let c = if fresh { Some(c) } else { sphere_sphere(p[i], s.radius[i], p[j], s.radius[j]) };
            resolve_contact(&mut s1, &mut s2, c.as_ref(), m.restitution);
            (p[i], v[i], p[j], v[j]) = (s1.position, s1.velocity, s2.position, s2.velocity);
        } else {
            let state = |k: usize, p: &[Vec3], v: &[Vec3], w: &[Vec3]| SpinState {
                position: p[k],
                velocity: v[k],
                inv_mass: s.inv_mass[k],
                rotation: s.rotation[k],
                angular_velocity: w[k],
                inv_inertia: s.inv_inertia[k],
            };
            let (mut a, mut b) = (state(i, &p, &v, &w), state(j, &p, &v, &w));
            let found = manifold.unwrap_or_else(|| {
                let c = contact.unwrap();
                let point = (b.position + c.normal * s.radius[j] + a.position - c.normal * s.radius[i]) * 0.5;
                Manifold::from(Contact { point, ..c })
            });
            let now = |k: usize, at: &SpinState| {
                Solid::new(s.shape[k], at.position, s.radius[k], s.half_extents[k], at.rotation)
            };
            let (use_it, push) = if fresh {
                (found, true)
            } else {
                solid_contact(&now(i, &a), &now(j, &b)).map_or((found, false), |m| (m, true))
            };
            resolve_manifold(&mut a, &mut b, use_it.normal, use_it.points(), push, m);
            (p[i], v[i], w[i], p[j], v[j], w[j]) =
                (a.position, a.velocity, a.angular_velocity, b.position, b.velocity, b.angular_velocity);
        }
        (moved[i], moved[j]) = (true, true);
    }
    for (k, w) in w.iter_mut().enumerate() {
        *w = if moved[k] { s.rotation[k].inverse() * *w } else { s.angular_velocity[k] };
    }
    (p, v, w)
}

fn solved(s: &Scene, m: &Material, threads: usize, parallelism: Parallelism) -> Motion {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool").install(|| {
        let (mut solver, mut bodies) = (Solver::default(), ContactBodies::default());
        let (mut p, mut v, mut w) = (s.position.clone(), s.velocity.clone(), s.angular_velocity.clone());
        bodies.mark(p.len(), s.contacts.iter().map(|(pair, _)| *pair).chain(s.manifolds.iter().map(|(pair, _)| *pair)));
        solver.solve_spin(parallelism, &s.contacts, &s.manifolds, &bodies, &s.columns(), m);
        solver.write_back(parallelism, &bodies, &mut p, &mut v);
        solver.write_back_spin(parallelism, &bodies, &mut w);
        (p, v, w)
    })
}

/// Bit for bit the one-by-one answer, with and without friction, on 1, 2 and 4 threads, forced parallel, serial and
/// at the shipped threshold.
#[test]
fn the_spin_path_gives_the_one_by_one_answer_bit_for_bit_on_any_thread_count() {
    let s = Scene::new(7, 2400, 15.0);
    assert!(
        s.manifolds.len() > 1000 && s.contacts.len() > 50,
        "{} manifolds, {} contacts",
        s.manifolds.len(),
        s.contacts.len()
    );
    assert!(s.manifolds.iter().any(|(_, m)| m.len == 4), "face contacts among them");
    for friction in [0.0, 0.5] {
        let m = Material { restitution: 0.7, friction, rest_speed: 0.0 };
        let want = one_by_one(&s, &m);
        assert_ne!(want.2, s.angular_velocity, "the contacts turned bodies");
        for (threads, parallelism) in [
            (1, Parallelism::with_min_work(0)),
            (2, Parallelism::with_min_work(0)),
            (4, Parallelism::with_min_work(0)),
            (4, Parallelism::SERIAL),
            (2, Parallelism::default()),
        ] {
            let got = solved(&s, &m, threads, parallelism);
            assert!(
                got == want,
                "friction {friction}, {threads} threads, {parallelism:?}: differs from the one-by-one answer"
            );
        }
    }
}
