//! Bodies that are boxes, in the real step: energy, momentum and rest, each against the law it must obey.
//!
//! - Energy: kinetic energy, linear plus rotational, never grows over a long run of a mixed scene without gravity
//!   (`e ≤ 1`, with and without friction); below 1 it falls.
//! - Momentum: in a free two-body hit (box–box and sphere–box, friction 0 and 0.5) every step's resolution keeps
//!   linear momentum and angular momentum about the origin. The push-out moves the bodies apart without a velocity
//!   change, which shifts `Σ m x × v` by itself; so each step's momenta are compared at the positions the step
//!   ends with, the velocities before resolution rebuilt exactly (the previous step's, the rotation's precession
//!   by the same `advance_rotation` the step runs).
//! - Rest: a box dropped tilted onto the floor under gravity comes to rest flat on a face, and its motion once
//!   there does not grow.

use collide_math::{Quat, Vec3};
use collide_narrowphase::Shape;
use collide_resolution::advance_rotation;
use collide_sim::{Bodies, Plan, Simulation, Spin};
use glam::DVec3;

fn sim(overrides: &[&str]) -> Simulation {
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    Simulation::of(&Plan::parse("", "shapes test", &overrides).unwrap()).unwrap()
}

const DT: f32 = 1.0 / 60.0;

#[test]
fn energy_never_grows_in_a_long_mixed_run_without_gravity() {
    // The last run keeps its bodies in spatial order (a reorder every 7 steps): the physics holds either way.
    for (e, friction, reorder) in [("1", "0", "0"), ("1", "0.5", "0"), ("0.8", "0.3", "0"), ("1", "0.5", "7")] {
        let mut s = sim(&[
            &format!("reorder_every={reorder}"),
            "scenario=uniform",
            "bodies=600",
            "shape=mixed",
            "half_extents_spread=0.4",
            "algorithm=sap",
            &format!("restitution={e}"),
            &format!("friction={friction}"),
        ]);
        assert_eq!(s.bodies().ids_in_order(), reorder == "0");
        let e0 = s.bodies().kinetic_energy();
        let (mut most, mut box_hits) = (e0, 0);
        for _ in 0..2000 {
            s.step(DT);
            most = most.max(s.bodies().kinetic_energy());
            box_hits += s.manifolds().len();
        }
        let end = s.bodies().kinetic_energy();
        let spin: f64 = rotational(s.bodies());
        assert!(box_hits > 2000, "e {e}, μ {friction}: only {box_hits} contacts with a box");
        assert!(spin > 0.01 * end, "e {e}, μ {friction}: the boxes turn ({spin} of {end})");
        assert!(most <= e0 * (1.0 + 1e-4), "e {e}, μ {friction}: energy {e0} rose to {most}");
        if e != "1" || friction != "0" {
            assert!(end < 0.9 * e0, "e {e}, μ {friction}: energy {e0} → {end} should fall");
        }
    }
}

/// The spin columns of a scene with boxes or friction.
fn spin(b: &Bodies) -> &Spin {
    b.spin().expect("the scene has spin columns")
}

/// The rotational part of the bodies' kinetic energy.
fn rotational(b: &Bodies) -> f64 {
    let s = spin(b);
    (0..b.len()).map(|i| collide_resolution::rotational_energy(s.angular_velocity[i], s.inv_inertia[i])).sum()
}

/// Linear momentum and angular momentum about the origin of `positions` moving at `velocities`, spinning at
/// `spins`, with the bodies' masses and rotations.
fn momenta(b: &Bodies, positions: &[Vec3], velocities: &[Vec3], spins: &[Vec3]) -> (DVec3, DVec3) {
    let (mut p, mut l) = (DVec3::ZERO, DVec3::ZERO);
    for i in 0..b.len() {
        let m = 1.0 / f64::from(b.inv_mass[i]);
        let (x, v) = (positions[i].as_dvec3(), velocities[i].as_dvec3());
        // The angular velocity is kept in the body's frame: its momentum there, turned into the world.
        let q = spin(b).rotation[i].as_dquat();
        p += v * m;
        l += x.cross(v) * m + q * (spins[i].as_dvec3() / spin(b).inv_inertia[i].as_dvec3());
    }
    (p, l)
}

#[test]
fn free_two_body_hits_conserve_linear_and_angular_momentum() {
    for shape in ["box", "mixed"] {
        for friction in ["0", "0.5"] {
            let mut s = sim(&[
                "scenario=two-balls",
                &format!("shape={shape}"),
                "half_extents=[0.6,0.4,0.3]",
                &format!("friction={friction}"),
                "restitution=0.9",
            ]);
            let b = s.bodies_mut();
            assert_eq!(b.shape(1), Shape::Box);
            assert_eq!(b.shape(0), if shape == "box" { Shape::Box } else { Shape::Sphere });
            // Off-centre and turning: the hit makes torques, and rubbing points for friction.
            b.position[1].y += 0.35;
            b.velocity[1].z = 0.4;
            b.spin_mut().expect("the scene has spin columns").angular_velocity[1] = Vec3::new(1.5, -2.0, 3.0);
            if shape == "box" {
                b.spin_mut().expect("the scene has spin columns").angular_velocity[0] = Vec3::new(-2.5, 0.5, 1.0);
            }
            let (mut hits, mut turned) = (0, 0.0_f32);
            for step in 0..150 {
                let b = s.bodies();
                let (v0, w0, q0) = (b.velocity.clone(), spin(b).angular_velocity.clone(), spin(b).rotation.clone());
                let record = *s.step(DT);
                let b = s.bodies();
                // The angular velocities resolution started from: the precession of the rotation pass.
                let spun: Vec<Vec3> = (0..b.len())
                    .map(|i| match b.shape(i) {
                        Shape::Box => advance_rotation(q0[i], w0[i], spin(b).inv_inertia[i], DT).1,
                        Shape::Sphere => w0[i],
                    })
                    .collect();
                let (p_before, l_before) = momenta(b, &b.position, &v0, &spun);
                let (p_after, l_after) = momenta(b, &b.position, &b.velocity, &spin(b).angular_velocity);
                let scale = p_before.length() + 1.0;
                let lscale = l_before.length() + 10.0 * scale;
                let what = format!("{shape}, μ {friction}, step {step}");
                assert!((p_after - p_before).length() < 1e-5 * scale, "{what}: momentum {p_before} → {p_after}");
                assert!(
                    (l_after - l_before).length() < 1e-5 * lscale,
                    "{what}: angular momentum {l_before} → {l_after}"
                );
                hits += usize::from(record.contacts > 0);
                turned = turned.max((spin(b).angular_velocity[1] - w0[1]).length());
                // No wall: the container is 10 units wide and the bodies stay near its middle.
                assert!(b.position.iter().all(|p| p.abs().max_element() < 4.0), "{what}: {:?}", b.position);
            }
            assert!(hits > 0, "{shape}, μ {friction}: the bodies met");
            assert!(turned > 0.1, "{shape}, μ {friction}: the hit changed the box's spin ({turned})");
        }
    }
}

#[test]
fn a_box_dropped_tilted_on_the_floor_comes_to_rest_flat() {
    let mut s = sim(&[
        "scenario=uniform",
        "bodies=1",
        "shape=box",
        "half_extents=[0.5,0.3,0.2]",
        "container_width=4",
        "gravity=9.81",
        "restitution=0.3",
        "friction=0.5",
    ]);
    let floor = s.setup().container.min.y;
    let b = s.bodies_mut();
    b.position[0] = Vec3::new(0.3, 0.5, -0.2);
    b.velocity[0] = Vec3::new(0.8, 0.0, 0.3);
    b.spin_mut().expect("the scene has spin columns").rotation[0] =
        Quat::from_rotation_z(0.5) * Quat::from_rotation_x(0.3);
    b.spin_mut().expect("the scene has spin columns").angular_velocity[0] = Vec3::new(0.0, 1.0, 2.0);
    // Motion per stretch of 2 s: the most speed (linear and at the box's rim) seen in it.
    let mut stretches = Vec::new();
    for _ in 0..6 {
        let mut most = 0.0_f32;
        for _ in 0..120 {
            s.step(DT);
            let b = s.bodies();
            let rim = spin(b).angular_velocity[0].length() * b.radius[0];
            most = most.max(b.velocity[0].length() + rim);
        }
        stretches.push(most);
    }
    let b = s.bodies();
    let (q, h) = (spin(b).rotation[0], spin(b).half_extents[0]);
    // Flat: one of the box's axes is vertical, and the centre is that half extent above the floor.
    let axes = [q * Vec3::X, q * Vec3::Y, q * Vec3::Z];
    let up = (0..3).max_by(|&i, &j| axes[i].y.abs().total_cmp(&axes[j].y.abs())).unwrap();
    assert!(axes[up].y.abs() > 0.9999, "tilted: axis {up} is {}", axes[up]);
    let height = b.position[0].y - floor;
    assert!((height - h[up]).abs() < 0.01, "centre {height} above the floor, half extent {}", h[up]);
    // At rest — after a fall of over 2 units at up to 7 units/s, the last stretches move by less than a
    // millimetre per second — and the motion left does not grow from one stretch to the next. Resting on the
    // floor, the speed read after a step is the step's residue of gravity against the contact (about 1.7e-4 here,
    // the same in every stretch to four digits, drifting in the fifth by rounding); energy pumped in by the
    // contact would grow it by whole multiples, so a growth past 1% per stretch fails.
    assert!(stretches[0] > 1.0, "it fell: {stretches:?}");
    assert!(stretches[5] < 1e-3, "still moving: {stretches:?}");
    for w in stretches[2..].windows(2) {
        assert!(w[1] <= w[0].max(1e-6) * 1.01, "the motion grows: {stretches:?}");
    }
}
