//! Every function of the crate allocates nothing: a thousand random calls of each, counted by the shared
//! allocation counter. Its own test binary without the test harness (`harness = false`): the counter sees the
//! whole process, and the harness's own threads allocate now and then (a few hundred bytes of output capture),
//! so only a plain `main` makes the exact answer, zero bytes, a fair assertion.

use collide_broadphase::conformance::CountingAllocator;
use collide_math::{Rng, Vec3};
use collide_narrowphase::{
    box_box, samples, sphere_box, sphere_sphere, toi_sphere_box, toi_sphere_plane, toi_sphere_sphere,
};
use std::hint::black_box;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator;

fn main() {
    let mut rng = Rng::new(11);
    let boxes: Vec<_> = (0..1000).map(|_| samples::box_pair(&mut rng)).collect();
    let spheres: Vec<_> = (0..1000).map(|_| samples::sphere_box_pair(&mut rng)).collect();
    let (mut contacts, mut hits) = (0, 0);
    let before = CountingAllocator::bytes();
    for (a, b) in &boxes {
        contacts += usize::from(black_box(box_box(a, b)).is_some());
        let (ca, cb) = (a.center, b.center);
        contacts += usize::from(black_box(sphere_sphere(ca, 1.0, cb, 1.0)).is_some());
        hits += usize::from(black_box(toi_sphere_sphere(ca, 0.5, cb - ca, cb, 0.5, Vec3::ZERO)).is_some());
    }
    for (c, r, b) in &spheres {
        contacts += usize::from(black_box(sphere_box(*c, *r, b)).is_some());
        let d = (b.center - *c) * 2.0;
        hits += usize::from(black_box(toi_sphere_box(*c, *r, d, b)).is_some());
        hits += usize::from(black_box(toi_sphere_plane(*c, *r, d, Vec3::Y, b.center.y)).is_some());
    }
    let bytes = CountingAllocator::bytes() - before;
    assert_eq!(bytes, 0, "bytes allocated by {} calls", 6 * 1000);
    assert!(contacts > 500 && hits > 500, "the calls did work: {contacts} contacts, {hits} hits");
    println!("no_allocation: 6000 calls, 0 bytes allocated ({contacts} contacts, {hits} hits)");
}
