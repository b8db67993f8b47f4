//! Physics checks from the seed studies.

use super::*;
use collide_math::Rng;

fn body(x: f32, y: f32, z: f32, v: Vec3, mass: f32) -> BodyState {
    BodyState { position: Vec3::new(x, y, z), velocity: v, inv_mass: 1.0 / mass }
}

fn momentum(a: &BodyState, b: &BodyState) -> Vec3 {
    a.velocity / a.inv_mass + b.velocity / b.inv_mass
}

fn energy(a: &BodyState, b: &BodyState) -> f32 {
    0.5 * (a.velocity.length_squared() / a.inv_mass + b.velocity.length_squared() / b.inv_mass)
}

/// The vector formula exactly as the seed studies write it, for comparison.
fn elastic_formula(c1: Vec3, v1: Vec3, m1: f32, c2: Vec3, v2: Vec3, m2: f32) -> Vec3 {
    let d = c1 - c2;
    v1 - d * (2.0 * m2 / (m1 + m2) * (v1 - v2).dot(d) / d.length_squared())
}

#[test]
fn equal_masses_head_on_swap_velocities() {
    let mut a = body(0.0, 0.0, 0.0, Vec3::new(3.0, 0.0, 0.0), 2.0);
    let mut b = body(1.0, 0.0, 0.0, Vec3::new(-1.0, 0.0, 0.0), 2.0);
    assert!(impulse(&mut a, &mut b, 1.0));
    assert!((a.velocity - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-5);
    assert!((b.velocity - Vec3::new(3.0, 0.0, 0.0)).length() < 1e-5);
}

#[test]
fn elastic_impulse_equals_the_seed_formula_for_oblique_hits() {
    let mut rng = Rng::new(3);
    for _ in 0..1000 {
        let (m1, m2) = (rng.range_f32(0.1, 10.0), rng.range_f32(0.1, 10.0));
        let c1 = rng.point_in(Vec3::splat(-1.0), Vec3::ONE);
        let c2 = c1 + rng.unit_vector() * 0.5;
        let (v1, v2) = (rng.unit_vector() * 2.0, rng.unit_vector() * 2.0);
        let mut a = BodyState { position: c1, velocity: v1, inv_mass: 1.0 / m1 };
        let mut b = BodyState { position: c2, velocity: v2, inv_mass: 1.0 / m2 };
        if impulse(&mut a, &mut b, 1.0) {
            assert!((a.velocity - elastic_formula(c1, v1, m1, c2, v2, m2)).length() < 1e-4);
            assert!((b.velocity - elastic_formula(c2, v2, m2, c1, v1, m1)).length() < 1e-4);
        } else {
            assert!((v1 - v2).dot(c1 - c2) >= 0.0, "only separating pairs are skipped");
        }
    }
}

#[test]
fn light_ball_bounces_back_off_a_very_heavy_one() {
    let mut light = body(0.0, 0.0, 0.0, Vec3::new(1.0, 0.0, 0.0), 1.0);
    let mut heavy = body(1.0, 0.0, 0.0, Vec3::ZERO, 1.0e6);
    impulse(&mut light, &mut heavy, 1.0);
    assert!((light.velocity.x + 1.0).abs() < 1e-4, "reverses: {}", light.velocity);
    assert!(heavy.velocity.x.abs() < 1e-5);
}

#[test]
fn heavy_ball_sends_a_light_one_at_rest_at_twice_its_speed() {
    let mut heavy = body(0.0, 0.0, 0.0, Vec3::new(1.0, 0.0, 0.0), 1.0e6);
    let mut light = body(1.0, 0.0, 0.0, Vec3::ZERO, 1.0);
    impulse(&mut heavy, &mut light, 1.0);
    assert!((light.velocity.x - 2.0).abs() < 1e-4, "{}", light.velocity);
    assert!((heavy.velocity.x - 1.0).abs() < 1e-5);
}

#[test]
fn momentum_is_conserved_and_energy_never_grows() {
    let mut rng = Rng::new(11);
    for _ in 0..2000 {
        let e = rng.range_f32(0.0, 1.0);
        let mut a = BodyState {
            position: rng.point_in(Vec3::splat(-1.0), Vec3::ONE),
            velocity: rng.unit_vector() * rng.range_f32(0.0, 5.0),
            inv_mass: 1.0 / rng.range_f32(0.1, 10.0),
        };
        let mut b = BodyState {
            position: a.position + rng.unit_vector() * 0.3,
            velocity: rng.unit_vector() * rng.range_f32(0.0, 5.0),
            inv_mass: 1.0 / rng.range_f32(0.1, 10.0),
        };
        let (p0, e0) = (momentum(&a, &b), energy(&a, &b));
        // Relative to the bodies' momenta, not the total, which may be near zero when they meet head-on.
        let scale = (a.velocity / a.inv_mass).length() + (b.velocity / b.inv_mass).length();
        impulse(&mut a, &mut b, e);
        let p1 = momentum(&a, &b);
        assert!((p1 - p0).length() <= 1e-6 * scale, "momentum {p0} -> {p1} (scale {scale})");
        assert!(energy(&a, &b) <= e0 * (1.0 + 1e-5), "energy grew: {e0} -> {}", energy(&a, &b));
    }
}

#[test]
fn separating_pairs_get_no_impulse() {
    let mut a = body(0.0, 0.0, 0.0, Vec3::new(-1.0, 0.0, 0.0), 1.0);
    let mut b = body(1.0, 0.0, 0.0, Vec3::new(1.0, 0.0, 0.0), 1.0);
    assert!(!impulse(&mut a, &mut b, 1.0));
    assert_eq!(a.velocity.x, -1.0);
}

/// The narrowphase's contact of two spheres, as the simulation hands it to resolution.
fn contact(a: &BodyState, ra: f32, b: &BodyState, rb: f32) -> Option<Contact> {
    collide_narrowphase::sphere_sphere(a.position, ra, b.position, rb)
}

#[test]
fn push_apart_splits_by_inverse_mass_and_respects_immovable_bodies() {
    let mut a = body(0.0, 0.0, 0.0, Vec3::ZERO, 1.0);
    let mut b = body(1.5, 0.0, 0.0, Vec3::ZERO, 3.0);
    let c = contact(&a, 1.0, &b, 1.0).unwrap();
    assert!((c.depth - 0.5).abs() < 1e-6);
    assert!(push_apart(&mut a, &mut b, c.normal, c.depth));
    assert!((a.position.x + 0.375).abs() < 1e-6, "light body takes 3/4: {}", a.position);
    assert!((b.position.x - 1.625).abs() < 1e-6);
    assert!(((b.position - a.position).length() - 2.0).abs() < 1e-5, "exactly touching afterwards");
    let mut wall_body = BodyState { position: Vec3::ZERO, velocity: Vec3::ZERO, inv_mass: 0.0 };
    let mut d = body(0.5, 0.0, 0.0, Vec3::ZERO, 1.0);
    let c = contact(&wall_body, 0.5, &d, 0.5).unwrap();
    assert!(push_apart(&mut wall_body, &mut d, c.normal, c.depth));
    assert_eq!(wall_body.position, Vec3::ZERO);
    assert!((d.position.x - 1.0).abs() < 1e-6);
    // Touching is not overlapping: no push; two immovable bodies never move.
    let (mut e, mut f) = (body(0.0, 0.0, 0.0, Vec3::ZERO, 1.0), body(2.0, 0.0, 0.0, Vec3::ZERO, 1.0));
    let touching = contact(&e, 1.0, &f, 1.0).unwrap();
    assert!(!push_apart(&mut e, &mut f, touching.normal, touching.depth));
    let mut g = BodyState { inv_mass: 0.0, ..wall_body };
    assert!(!push_apart(&mut wall_body, &mut g, Vec3::Y, 1.0));
}

#[test]
fn a_contact_separated_by_an_earlier_one_gets_no_push_but_its_impulse() {
    // `None`: the pair touched when the narrowphase ran, and no longer does; they still approach.
    let mut a = body(0.0, 0.0, 0.0, Vec3::new(1.0, 0.0, 0.0), 1.0);
    let mut b = body(2.5, 0.0, 0.0, Vec3::new(-1.0, 0.0, 0.0), 1.0);
    resolve_contact(&mut a, &mut b, None, 1.0);
    assert_eq!((a.position.x, b.position.x), (0.0, 2.5));
    assert_eq!((a.velocity.x, b.velocity.x), (-1.0, 1.0), "equal masses swap velocities");
}

#[test]
fn balls_stacked_on_a_vertical_line_stay_on_it_for_10000_steps() {
    // Two balls on the y axis, bouncing on each other and on the floor under gravity: the vector formula has
    // only the y component to work with, so x and z must stay exactly zero.
    let container = Aabb::new(Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 10.0, 1.0));
    let mut a = body(0.0, 0.5, 0.0, Vec3::ZERO, 1.0);
    let mut b = body(0.0, 3.0, 0.0, Vec3::new(0.0, -2.0, 0.0), 2.0);
    let (r, dt, g) = (0.5, 1.0 / 60.0, Vec3::new(0.0, -9.81, 0.0));
    let mut bounces = 0;
    for _ in 0..10_000 {
        for s in [&mut a, &mut b] {
            s.velocity += g * dt;
            s.position += s.velocity * dt;
        }
        if let Some(c) = contact(&a, r, &b, r)
            && push_apart(&mut a, &mut b, c.normal, c.depth)
            && impulse(&mut a, &mut b, 1.0)
        {
            bounces += 1;
        }
        for s in [&mut a, &mut b] {
            wall(&mut s.position, &mut s.velocity, Vec3::splat(r), &container, 1.0);
        }
    }
    assert!(bounces > 100, "they kept bouncing on each other: {bounces}");
    for s in [a, b] {
        assert_eq!((s.position.x, s.position.z, s.velocity.x, s.velocity.z), (0.0, 0.0, 0.0, 0.0));
    }
}

#[test]
fn walls_reflect_and_put_bodies_back() {
    let c = Aabb::new(Vec3::ZERO, Vec3::splat(10.0));
    let (mut p, mut v) = (Vec3::new(-0.5, 5.0, 10.2), Vec3::new(-2.0, 1.0, 3.0));
    assert!(wall(&mut p, &mut v, Vec3::splat(0.5), &c, 0.5));
    assert_eq!(p, Vec3::new(0.5, 5.0, 9.5));
    assert_eq!(v, Vec3::new(1.0, 1.0, -1.5));
    let (mut p, mut v) = (Vec3::splat(5.0), Vec3::ONE);
    assert!(!wall(&mut p, &mut v, Vec3::splat(0.5), &c, 1.0));
}
