//! Continuous collision detection against tunnelling, checked on the state itself: which side of the wall each
//! body is on, and the velocities and momentum of a head-on pair — independent of the `tunnelled` counter, which
//! is checked against them.

use collide_sim::{Config, Simulation};

fn sim(overrides: &[&str]) -> Simulation {
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    Simulation::new(&Config::parse("", "tunnel test", &overrides).unwrap()).unwrap()
}

/// The tunnel's wall is the plane x = 0; every body starts on its −x side.
const STEPS: usize = 120;

#[test]
fn without_ccd_bodies_tunnel_through_the_wall_and_the_counter_sees_them() {
    let mut s = sim(&["scenario=tunnel", "algorithm=sap", "ccd=false"]);
    assert!(s.bodies().position.iter().all(|p| p.x < 0.0), "every body starts on the wall's −x side");
    let mut beyond = 0;
    for _ in 0..STEPS {
        s.step(1.0 / 60.0);
        beyond = beyond.max(s.bodies().position.iter().filter(|p| p.x > 0.0).count());
    }
    assert!(beyond > 0, "discrete detection lets some bodies through the thin wall");
    let summary = s.summary();
    assert!(summary.tunnelled > 0, "tunnelled {} with {beyond} bodies beyond the wall", summary.tunnelled);
}

#[test]
fn with_ccd_no_body_crosses_the_wall_and_nothing_is_counted() {
    let mut s = sim(&["scenario=tunnel", "algorithm=sap", "ccd=true"]);
    let mut hits = 0;
    // Per body: steps in a row it has not moved. A body stopped at an impact stays for the rest of that step
    // only; one that never moves on again was stopped by an impact that did not happen.
    let mut still = vec![0; s.bodies().len()];
    for step in 0..STEPS {
        let before = s.bodies().position.clone();
        let record = *s.step(1.0 / 60.0);
        assert_eq!(record.tunnelled, 0, "step {step}");
        for (i, (p, q)) in before.iter().zip(&s.bodies().position).enumerate() {
            still[i] = if p == q { still[i] + 1 } else { 0 };
            assert!(still[i] < 3, "step {step}: body {i} stuck at {p} with velocity {}", s.bodies().velocity[i]);
        }
        let crossed: Vec<_> = s.bodies().position.iter().enumerate().filter(|(_, p)| p.x >= 0.0).collect();
        assert!(crossed.is_empty(), "step {step}: bodies past the wall's mid-plane: {crossed:?}");
        // Bodies that bounced off the wall move along −x (the scene shoots them along +x).
        hits += s.bodies().velocity.iter().filter(|v| v.x < 0.0).count();
    }
    assert!(hits > 0, "the wall was hit");
    assert_eq!(s.summary().tunnelled, 0);
}

/// Two equal spheres of radius 0.5 at 240 units/s (4 diameters per 1/60 s step) starting 3 units apart: the step
/// takes each past the other's centre, so the discrete test at the step's end sees them apart.
fn head_on(ccd: bool) -> Simulation {
    let ccd = format!("ccd={ccd}");
    sim(&["scenario=two-balls", "radius=0.5", "speed=240", "restitution=1", &ccd])
}

#[test]
fn head_on_without_ccd_the_spheres_pass_through_each_other() {
    let mut s = head_on(false);
    let before = s.bodies().velocity.clone();
    let record = *s.step(1.0 / 60.0);
    let b = s.bodies();
    assert!(b.position[0].x > b.position[1].x, "they swapped sides: {:?}", b.position);
    assert_eq!(b.velocity, before, "no contact, no change of velocity");
    assert_eq!(record.tunnelled, 1, "the pair is counted");
}

#[test]
fn head_on_with_ccd_the_spheres_bounce_at_the_time_of_impact() {
    let mut s = head_on(true);
    let (v0, m) = (s.bodies().velocity.clone(), 1.0 / s.bodies().inv_mass[0]);
    assert_eq!(s.bodies().inv_mass[0], s.bodies().inv_mass[1], "equal masses");
    let record = *s.step(1.0 / 60.0);
    let b = s.bodies();
    assert_eq!(record.tunnelled, 0);
    assert!(b.position[0].x < b.position[1].x, "they did not pass: {:?}", b.position);
    // At the impact the centres are one diameter apart (the motion after it is dropped), within rounding.
    let gap = b.position[1].x - b.position[0].x;
    assert!((gap - 1.0).abs() < 1e-4, "stopped at contact: centres {gap} apart");
    // e = 1, equal masses: the velocities are reversed, and momentum is conserved.
    for (i, (v, v0)) in b.velocity.iter().zip(&v0).enumerate() {
        assert!((*v + *v0).length() < 1e-3, "body {i}: {v} after {v0}");
    }
    let (p0, p1) = ((v0[0] + v0[1]) * m, (b.velocity[0] + b.velocity[1]) * m);
    assert!((p1 - p0).length() < 1e-3 * m, "momentum {p0} → {p1}");
    assert!(b.velocity[0].x < 0.0 && b.velocity[1].x > 0.0);
}

#[test]
fn ccd_is_a_checked_boolean_key() {
    // The config's usual error for a wrong type: the file, the line, what was expected.
    let err = Config::parse("seed = 3\nccd = \"yes\"\n", "bad.toml", &[]).unwrap_err().to_string();
    assert!(err.starts_with("bad.toml:2") && err.contains("boolean"), "{err}");
    let err = Config::parse("", "x", &["ccd=2".to_owned()]).unwrap_err().to_string();
    assert!(err.contains("ccd") && err.contains("boolean"), "{err}");
    assert!(!Config::parse("", "x", &[]).unwrap().ccd, "off by default");
}
