//! The solver against the one-by-one answer: the contacts sorted by pair and resolved in that order, each
//! measured again when an earlier one moved one of its bodies (the simulation's loop before the solver).

use super::*;
use collide_math::Rng;

/// A cloud of bodies and the touching pairs among candidate pairs, in a shuffled order (as a broadphase would
/// give them).
struct Scene {
    position: Vec<Vec3>,
    velocity: Vec<Vec3>,
    inv_mass: Vec<f32>,
    radius: Vec<f32>,
    contacts: Vec<(Pair, Contact)>,
}

/// `n` bodies in a box of side `side` (smaller: more contacts per body), plus a chain of bodies `0, 1, 2, …` along
/// x, each touching the next: pairs that ascend along the chain, one level per contact.
fn scene(seed: u64, n: usize, side: f32, chain: usize) -> Scene {
    let mut rng = Rng::new(seed);
    let mut position: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::ZERO, Vec3::splat(side))).collect();
    for (i, p) in position.iter_mut().take(chain).enumerate() {
        *p = Vec3::new(-100.0 - 0.9 * i as f32, 0.0, 0.0);
    }
    let velocity = (0..n).map(|_| rng.unit_vector() * rng.range_f32(0.0, 3.0)).collect();
    let radius: Vec<f32> = (0..n).map(|i| if i < chain { 0.5 } else { rng.range_f32(0.3, 0.7) }).collect();
    let inv_mass = radius.iter().map(|r| 1.0 / (r * r * r)).collect();
    let mut contacts = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if let Some(c) = sphere_sphere(position[a], radius[a], position[b], radius[b]) {
                contacts.push((Pair::new(a as u32, b as u32), c));
            }
        }
    }
    // A broadphase's order: anything but sorted.
    for i in (1..contacts.len()).rev() {
        contacts.swap(i, rng.below(i as u32 + 1) as usize);
    }
    Scene { position, velocity, inv_mass, radius, contacts }
}

impl Scene {
    /// The solver's view of the scene's bodies, at positions `position` and velocities `velocity`.
    fn columns<'a>(&'a self, position: &'a [Vec3], velocity: &'a [Vec3]) -> SphereColumns<'a> {
        SphereColumns { position, velocity, inv_mass: &self.inv_mass, radius: &self.radius }
    }
}

/// The one-by-one answer: the final positions and velocities.
fn one_by_one(s: &Scene, e: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    let (mut p, mut v) = (s.position.clone(), s.velocity.clone());
    let mut contacts = s.contacts.clone();
    contacts.sort_by_key(|(pair, _)| pair.key());
    let mut moved = vec![false; p.len()];
    for (pair, contact) in contacts {
        let (i, j) = (pair.a as usize, pair.b as usize);
        let mut s1 = BodyState { position: p[i], velocity: v[i], inv_mass: s.inv_mass[i] };
        let mut s2 = BodyState { position: p[j], velocity: v[j], inv_mass: s.inv_mass[j] };
        let contact = if moved[i] || moved[j] {
            sphere_sphere(s1.position, s.radius[i], s2.position, s.radius[j])
        } else {
            Some(contact)
        };
        resolve_contact(&mut s1, &mut s2, contact.as_ref(), e);
        (p[i], v[i], p[j], v[j]) = (s1.position, s1.velocity, s2.position, s2.velocity);
        (moved[i], moved[j]) = (true, true);
    }
    (p, v)
}

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool").install(f)
}

/// The solver's answer on `threads` threads under `parallelism`, and its levels.
fn solved(s: &Scene, e: f32, threads: usize, parallelism: Parallelism) -> (Vec<Vec3>, Vec<Vec3>, u32) {
    in_pool(threads, || {
        let (mut solver, mut bodies) = (Solver::default(), ContactBodies::default());
        let (mut p, mut v) = (s.position.clone(), s.velocity.clone());
        bodies.mark(p.len(), s.contacts.iter().map(|(pair, _)| *pair));
        solver.solve(parallelism, &s.contacts, &bodies, &s.columns(&p, &v), e);
        solver.write_back(parallelism, &bodies, &mut p, &mut v);
        (p, v, solver.levels())
    })
}

/// Bit for bit the one-by-one answer, on 1, 2 and 4 threads, forced parallel, serial and at the shipped
/// threshold; on sparse contacts, dense ones (several per body) and a chain of contacts whose pairs ascend along
/// it (one level per contact).
#[test]
fn the_levels_give_the_one_by_one_answer_bit_for_bit_on_any_thread_count() {
    for (seed, n, side, chain) in [(1, 3000, 28.0, 0), (2, 1500, 14.0, 0), (3, 1200, 16.0, 300)] {
        let s = scene(seed, n, side, chain);
        let per_body = 2.0 * s.contacts.len() as f32 / n as f32;
        assert!(s.contacts.len() > 200, "scene {seed}: {} contacts", s.contacts.len());
        for e in [1.0, 0.4] {
            let want = one_by_one(&s, e);
            assert_ne!(want.0, s.position, "the contacts moved bodies");
            for (threads, parallelism) in [
                (1, Parallelism::with_min_work(0)),
                (2, Parallelism::with_min_work(0)),
                (4, Parallelism::with_min_work(0)),
                (4, Parallelism::SERIAL),
                (2, Parallelism::default()),
            ] {
                let (p, v, levels) = solved(&s, e, threads, parallelism);
                let what = format!(
                    "scene {seed} ({per_body:.1} contacts per body), e = {e}, {threads} threads, {parallelism:?}"
                );
                assert!(p == want.0 && v == want.1, "{what}: differs from the one-by-one answer");
                // Every contact of a chain waits for the one before it; scattered contacts need a few levels.
                if chain > 0 {
                    assert!(levels as usize >= chain - 1, "{what}: {levels} levels for a chain of {chain}");
                } else {
                    assert!((1..=30).contains(&levels), "{what}: {levels} levels");
                }
            }
        }
    }
}

/// Bodies in no contact are not touched, and a step without contacts is a no-op; the solver reuses its buffers
/// from one step to the next, growing and shrinking.
#[test]
fn bodies_outside_contacts_keep_their_bits_and_the_solver_is_reusable() {
    let (mut solver, mut bodies) = (Solver::default(), ContactBodies::default());
    for (seed, n) in [(4, 2000), (5, 500), (6, 2500)] {
        let s = scene(seed, n, 40.0, 0);
        let (mut p, mut v) = (s.position.clone(), s.velocity.clone());
        let parallelism = Parallelism::with_min_work(0);
        in_pool(2, || {
            bodies.mark(n, s.contacts.iter().map(|(pair, _)| *pair));
            solver.solve(parallelism, &s.contacts, &bodies, &s.columns(&p, &v), 1.0);
            solver.write_back(parallelism, &bodies, &mut p, &mut v);
        });
        let mut touched = vec![false; n];
        for (pair, _) in &s.contacts {
            (touched[pair.a as usize], touched[pair.b as usize]) = (true, true);
        }
        assert_eq!(bodies.len(), touched.iter().filter(|&&t| t).count());
        assert_eq!(bodies.in_range(0..n).collect::<Vec<_>>(), (0..n).filter(|&i| touched[i]).collect::<Vec<_>>());
        for i in (0..n).filter(|&i| !touched[i]) {
            assert!(p[i] == s.position[i] && v[i] == s.velocity[i], "body {i} is in no contact");
        }
        assert_eq!((p, v), one_by_one(&s, 1.0));
    }
    bodies.mark(10, []);
    let (p, v) = (vec![Vec3::ONE; 10], vec![Vec3::X; 10]);
    let columns = SphereColumns { position: &p, velocity: &v, inv_mass: &[1.0; 10], radius: &[0.5; 10] };
    solver.solve(Parallelism::default(), &[], &bodies, &columns, 1.0);
    assert_eq!((bodies.len(), solver.levels()), (0, 0));
}
