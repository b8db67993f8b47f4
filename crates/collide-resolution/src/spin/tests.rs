use super::*;
use collide_math::{Obb, Rng};
use collide_narrowphase::{Solid, samples, solid_contact};
use glam::DVec3;

/// A body of `solid`'s shape with density 1, moving at `velocity` and turning at `angular_velocity`.
fn body(solid: &Solid, velocity: Vec3, angular_velocity: Vec3) -> SpinState {
    let (position, rotation, inv_mass, inv_inertia) = match *solid {
        Solid::Sphere(c, r) => {
            let w = 1.0 / (4.0 / 3.0 * std::f32::consts::PI * r * r * r);
            (c, Quat::IDENTITY, w, sphere_inverse_inertia(r, w))
        }
        Solid::Box(b) => {
            let h = b.half_extents;
            let w = 1.0 / (8.0 * h.x * h.y * h.z);
            (b.center, b.rotation, w, box_inverse_inertia(h, w))
        }
    };
    SpinState { position, velocity, inv_mass, rotation, angular_velocity, inv_inertia }
}

/// Linear momentum and angular momentum about the origin, in f64: `Σ m v`, `Σ (m x × v + I ω)`.
fn momenta(bodies: &[&SpinState]) -> (DVec3, DVec3) {
    let (mut p, mut l) = (DVec3::ZERO, DVec3::ZERO);
    for b in bodies {
        let m = 1.0 / f64::from(b.inv_mass);
        let (x, v) = (b.position.as_dvec3(), b.velocity.as_dvec3());
        p += v * m;
        let local = b.rotation.inverse() * b.angular_velocity;
        let spin = b.rotation * (local / b.inv_inertia);
        l += x.cross(v) * m + spin.as_dvec3();
    }
    (p, l)
}

fn energy(bodies: &[&SpinState]) -> f64 {
    bodies.iter().map(|b| b.kinetic_energy()).sum()
}

/// Random touching pairs — box–box and sphere–box from the narrowphase's samples — given random velocities and
/// spins toward each other, resolved with and without friction: the impulses conserve linear momentum and
/// angular momentum about the origin (at the positions the push leaves), and kinetic energy (linear plus
/// rotational) does not grow for `e ≤ 1`. The oracle is the conservation law itself, in f64.
#[test]
fn hits_conserve_momentum_and_never_create_energy() {
    let mut rng = Rng::new(42);
    let mut hits = [0; 2];
    for k in 0..4000 {
        let (a, b) = if k % 2 == 0 {
            let (a, b) = samples::box_pair(&mut rng);
            (Solid::Box(a), Solid::Box(b))
        } else {
            let (c, r, b) = samples::sphere_box_pair(&mut rng);
            (Solid::Sphere(c, r), Solid::Box(b))
        };
        let Some(m) = solid_contact(&a, &b) else { continue };
        let material =
            Material { restitution: [1.0, 0.5, 0.0][k % 3], friction: [0.0, 0.6][(k / 2) % 2], rest_speed: 0.0 };
        let speed = |rng: &mut Rng| rng.unit_vector() * rng.range_f32(0.0, 5.0);
        let mut ba = body(&a, speed(&mut rng) - m.normal * 2.0, speed(&mut rng));
        let mut bb = body(&b, speed(&mut rng) + m.normal * 2.0, speed(&mut rng));
        // Where the push leaves the bodies (split by inverse mass): the momenta before are taken there.
        let points: Vec<ContactPoint> = m.points().to_vec();
        let (mut pa, mut pb) = (ba, bb);
        let (depth, w) = (m.depth(), pa.inv_mass + pb.inv_mass);
        pa.position += m.normal * (depth * pa.inv_mass / w);
        pb.position -= m.normal * (depth * pb.inv_mass / w);
        let (p0, l0) = momenta(&[&pa, &pb]);
        let e0 = energy(&[&pa, &pb]);
        let applied = resolve_manifold(&mut ba, &mut bb, m.normal, &points, true, &material);
        assert!(ba.position.distance(pa.position) + bb.position.distance(pb.position) < 1e-5, "pair {k}: the push");
        let (p1, l1) = momenta(&[&ba, &bb]);
        let e1 = energy(&[&ba, &bb]);
        let scale = p0.length().max(1e-3) + e0.sqrt();
        assert!((p1 - p0).length() <= 1e-4 * scale, "pair {k}: linear momentum {p0} → {p1}");
        let lscale = l0.length() + (pa.position.length() + pb.position.length()) as f64 * scale;
        assert!((l1 - l0).length() <= 2e-4 * lscale, "pair {k}: angular momentum {l0} → {l1} ({material:?})");
        assert!(e1 <= e0 * (1.0 + 1e-4) + 1e-9, "pair {k}: energy {e0} → {e1} ({material:?}, {} points)", m.len);
        hits[k % 2] += usize::from(applied);
        // After the contact no point approaches any more, within the iterative solver's reach: 1% of the
        // contact's fastest point speed (20 sweeps of Gauss–Seidel leave that much on skewed four-point manifolds).
        let arms = |p: &ContactPoint, a: &SpinState, b: &SpinState| {
            let (ra, rb) = (p.point - a.position, p.point - b.position);
            (a.velocity + a.angular_velocity.cross(ra)) - (b.velocity + b.angular_velocity.cross(rb))
        };
        let scale = points.iter().map(|p| arms(p, &pa, &pb).length()).fold(1e-3_f32, f32::max);
        for p in &points {
            let vn = arms(p, &ba, &bb).dot(m.normal);
            assert!(vn >= -1e-2 * scale, "pair {k}: still approaching at {vn} ({material:?}, {} points)", m.len);
        }
    }
    assert!(hits[0] > 500 && hits[1] > 500, "{hits:?} hits resolved");
}

/// Without friction a sphere's spin is untouched (its normal passes through its centre); with friction a
/// glancing hit on a box sets it turning.
#[test]
fn friction_turns_a_sphere_and_frictionless_contact_does_not() {
    let cube = Solid::Box(Obb::new(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY));
    let ball = Solid::Sphere(Vec3::new(0.0, 1.45, 0.0), 0.5);
    let m = solid_contact(&ball, &cube).unwrap();
    for (friction, turns) in [(0.0, false), (0.5, true)] {
        let material = Material { restitution: 1.0, friction, rest_speed: 0.0 };
        let (mut a, mut b) = (body(&ball, Vec3::new(3.0, -1.0, 0.0), Vec3::ZERO), body(&cube, Vec3::ZERO, Vec3::ZERO));
        assert!(resolve_manifold(&mut a, &mut b, m.normal, m.points(), true, &material));
        assert!(a.velocity.y > 0.0, "bounced: {}", a.velocity);
        assert_eq!(a.angular_velocity != Vec3::ZERO, turns, "friction {friction}: {}", a.angular_velocity);
        // Sliding along +x on top of the box, friction spins the ball about −z (it starts to roll).
        if turns {
            assert!(a.angular_velocity.z < 0.0 && a.velocity.x < 3.0, "{} {}", a.angular_velocity, a.velocity);
        }
    }
}

/// A cube falling flat onto the floor: pushed back on top of it, its fall stopped (a resting contact: slower
/// than `rest_speed`) with no spin, all four corners sharing the load; a faster cube bounces with `e`.
#[test]
fn a_flat_box_lands_flat_on_a_wall() {
    let container = Aabb::new(Vec3::splat(-10.0), Vec3::splat(10.0));
    let cube = Solid::Box(Obb::new(Vec3::new(3.0, -9.01, 2.0), Vec3::ONE, Quat::IDENTITY));
    let material = Material { restitution: 0.5, friction: 0.5, rest_speed: 0.4 };
    let mut b = body(&cube, Vec3::new(0.0, -0.3, 0.0), Vec3::ZERO);
    assert!(spin_wall(&mut b, WallShape::Box(Vec3::ONE), &container, &material));
    assert!((b.position.y + 9.0).abs() < 1e-5, "{}", b.position);
    assert!(b.velocity.length() < 1e-4 && b.angular_velocity.length() < 1e-4, "{} {}", b.velocity, b.angular_velocity);
    let mut fast = body(&cube, Vec3::new(0.0, -4.0, 0.0), Vec3::ZERO);
    spin_wall(&mut fast, WallShape::Box(Vec3::ONE), &container, &material);
    assert!((fast.velocity.y - 2.0).abs() < 1e-4 && fast.angular_velocity.length() < 1e-4, "{}", fast.velocity);
    // A tilted box lands on one corner and starts to turn; inside the container nothing happens.
    let tilted =
        Obb::new(Vec3::new(0.0, -8.8, 0.0), Vec3::ONE, Quat::from_rotation_z(0.3) * Quat::from_rotation_x(0.2));
    let mut t = body(&Solid::Box(tilted), Vec3::new(0.0, -4.0, 0.0), Vec3::ZERO);
    assert!(spin_wall(&mut t, WallShape::Box(Vec3::ONE), &container, &material));
    assert!(t.angular_velocity.length() > 0.1 && t.velocity.y > -4.0, "{} {}", t.angular_velocity, t.velocity);
    let mut inside = body(&Solid::Box(tilted), Vec3::X, Vec3::Y);
    inside.position = Vec3::ZERO;
    assert!(!spin_wall(&mut inside, WallShape::Box(Vec3::ONE), &container, &material));
    assert_eq!((inside.velocity, inside.angular_velocity), (Vec3::X, Vec3::Y));
}

/// A free box turning about a non-principal axis precesses: over 20 000 steps its kinetic energy and its world
/// angular momentum stay what they were (the implicit midpoint and Cayley step keep both), while its angular
/// velocity changes direction; at a radian per step — a spin the step does not resolve — the energy is still
/// kept, the momentum within the sweeps' reach. A cube keeps its angular velocity exactly and turns by the Cayley
/// angle.
#[test]
fn a_free_box_keeps_its_energy_and_angular_momentum_while_it_precesses() {
    let h = Vec3::new(1.0, 0.5, 0.2);
    let w = 1.0 / (8.0 * h.x * h.y * h.z);
    let inv_inertia = box_inverse_inertia(h, w);
    for (spin, momentum_error) in [(Vec3::new(3.0, 7.0, -2.0), 1e-3), (Vec3::new(30.0, -20.0, 45.0), 0.05)] {
        // The angular velocity in the body's frame, as the simulation keeps it.
        let (mut q, mut omega) = (Quat::from_rotation_y(0.4), spin);
        let momentum = |q: Quat, omega: Vec3| (q * (omega / inv_inertia)).as_dvec3();
        let (e0, l0) = (rotational_energy(omega, inv_inertia), momentum(q, omega));
        let world = q * omega;
        let mut turned = 0.0_f32;
        for _ in 0..20_000 {
            (q, omega) = advance_rotation(q, omega, inv_inertia, 1.0 / 60.0);
            turned = turned.max((q * omega).angle_between(world));
        }
        let (e1, l1) = (rotational_energy(omega, inv_inertia), momentum(q, omega));
        assert!(((e1 - e0) / e0).abs() < 1e-4, "{spin}: energy {e0} → {e1}");
        let drift = (l1 - l0).length() / l0.length();
        assert!(drift < momentum_error, "{spin}: angular momentum {l0} → {l1}");
        assert!(turned > 0.3, "{spin}: the angular velocity precesses ({turned} rad)");
        assert!(q.is_normalized());
    }
    let cube = box_inverse_inertia(Vec3::ONE, 0.125);
    let (q2, w2) = advance_rotation(Quat::IDENTITY, Vec3::new(0.0, 0.0, 6.0), cube, 0.1);
    assert_eq!(w2, Vec3::new(0.0, 0.0, 6.0));
    assert!((q2.to_axis_angle().1 - 2.0 * (0.3_f32).atan()).abs() < 1e-5, "the Cayley angle of 0.6 rad");
}

/// A thin box spinning several radians per step — after a fast corner hit, say: the implicit sweeps diverge there,
/// and the rotation must stay a unit quaternion and the energy must not grow. The inputs are a body the `tunnel`
/// scene at 20 units/s with boxes of spread 0.8 produced, whose rotation came out NaN before the guard.
#[test]
fn a_box_spinning_several_radians_per_step_stays_finite() {
    let inv_inertia = Vec3::new(3_102_278_000.0, 776_132_860.0, 919_507_140.0);
    let omega = Vec3::new(-338.885_53, 112.558_83, 174.355_74);
    let q = Quat::from_xyzw(-0.284_909_96, 0.921_420_6, -0.193_652_33, 0.179_747_45).normalize();
    let e0 = rotational_energy(omega, inv_inertia);
    let (mut q1, mut w1) = (q, omega);
    for _ in 0..600 {
        (q1, w1) = advance_rotation(q1, w1, inv_inertia, 1.0 / 60.0);
        assert!(q1.is_finite() && q1.is_normalized() && w1.is_finite(), "{q1} {w1}");
    }
    let e1 = rotational_energy(w1, inv_inertia);
    assert!(e1 <= e0 * (1.0 + 1e-5), "energy {e0} → {e1}");
}

#[test]
fn inertia_of_a_solid_box_and_sphere() {
    // A 2×4×6 box of mass 48: I_x = 48 (16 + 36) / 12 = 208.
    let i = box_inverse_inertia(Vec3::new(1.0, 2.0, 3.0), 1.0 / 48.0).recip();
    assert!((i - Vec3::new(208.0, 160.0, 80.0)).abs().max_element() < 1e-3, "{i}");
    assert!((sphere_inverse_inertia(2.0, 0.5).x.recip() - 3.2).abs() < 1e-5);
}
