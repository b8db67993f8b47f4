//! Continuous collision detection against tunnelling, checked on the state itself: which side of the wall each
//! body is on, and the velocities and momentum of a head-on pair — independent of the `tunnelled` counter, which
//! is checked against them.

use collide_sim::{Plan, Simulation, Spin};

fn sim(overrides: &[&str]) -> Simulation {
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    Simulation::of(&Plan::parse("", "tunnel test", &overrides).unwrap()).unwrap()
}

/// The tunnel's wall is the plane x = 0; every body starts on its −x side.
const STEPS: usize = 120;

/// The tunnel's bodies are spheres, boxes (cubes of the spheres' radius, turned at random), or half and half.
const SHAPES: [&str; 3] = ["shape=sphere", "shape=box", "shape=mixed"];

#[test]
fn without_ccd_bodies_tunnel_through_the_wall_and_the_counter_sees_them() {
    for shape in SHAPES {
        let mut s = sim(&["scenario=tunnel", "algorithm=sap", "ccd=false", shape]);
        assert!(s.bodies().position.iter().all(|p| p.x < 0.0), "{shape}: every body starts on the wall's −x side");
        let mut beyond = 0;
        for _ in 0..STEPS {
            s.step(1.0 / 60.0);
            beyond = beyond.max(s.bodies().position.iter().filter(|p| p.x > 0.0).count());
        }
        assert!(beyond > 0, "{shape}: discrete detection lets some bodies through the thin wall");
        let summary = s.summary();
        assert!(summary.tunnelled > 0, "{shape}: tunnelled {} with {beyond} beyond the wall", summary.tunnelled);
    }
}

#[test]
fn with_ccd_no_body_crosses_the_wall_and_nothing_is_counted() {
    for shape in SHAPES {
        with_ccd_no_body_crosses_the_wall(shape);
    }
}

fn with_ccd_no_body_crosses_the_wall(shape: &str) {
    let mut s = sim(&["scenario=tunnel", "algorithm=sap", "ccd=true", shape]);
    assert_eq!(s.bodies().spin().map_or(0, Spin::boxes) > 0, shape != "shape=sphere", "{shape}");
    let mut hits = 0;
    // Per body: steps in a row it has not moved. A body stopped at an impact stays for the rest of that step
    // only; one that never moves on again was stopped by an impact that did not happen.
    let mut still = vec![0; s.bodies().len()];
    for step in 0..STEPS {
        let before = s.bodies().position.clone();
        let record = *s.step(1.0 / 60.0);
        assert_eq!(record.tunnelled, 0, "{shape}, step {step}");
        for (i, (p, q)) in before.iter().zip(&s.bodies().position).enumerate() {
            still[i] = if p == q { still[i] + 1 } else { 0 };
            let v = s.bodies().velocity[i];
            assert!(still[i] < 3, "{shape}, step {step}: body {i} stuck at {p} with velocity {v}");
        }
        let crossed: Vec<_> = s.bodies().position.iter().enumerate().filter(|(_, p)| p.x >= 0.0).collect();
        assert!(crossed.is_empty(), "{shape}, step {step}: bodies past the wall's mid-plane: {crossed:?}");
        // Bodies that bounced off the wall move along −x (the scene shoots them along +x).
        hits += s.bodies().velocity.iter().filter(|v| v.x < 0.0).count();
    }
    assert!(hits > 0, "{shape}: the wall was hit");
    // Sparse: every body's own time of impact stopped it at the wall; no crowd pushed one through.
    assert_eq!(s.held_at_obstacles(), 0, "{shape}");
    assert_eq!(s.summary().tunnelled, 0);
}

/// With the bodies reordered every 5 steps (each one moving between indices), continuous detection still stops
/// every body at the wall: nothing crosses, nothing is counted.
#[test]
fn with_ccd_and_reordering_no_body_crosses_the_wall() {
    for shape in SHAPES {
        let mut s = sim(&["scenario=tunnel", "algorithm=sap", "ccd=true", "reorder_every=5", shape]);
        assert!(!s.bodies().ids_in_order(), "{shape}: the spawn was sorted");
        let mut hits = 0;
        for step in 0..STEPS {
            assert_eq!(s.step(1.0 / 60.0).tunnelled, 0, "{shape}, step {step}");
            assert!(s.bodies().position.iter().all(|p| p.x < 0.0), "{shape}, step {step}: a body past the wall");
            hits += s.bodies().velocity.iter().filter(|v| v.x < 0.0).count();
        }
        assert!(hits > 0, "{shape}: the wall was hit");
    }
}

/// A crowd: 4000 boxes, their sides drawn from 0.2 to 1.8 times the radius (thin plates and rods), shot at the wall
/// and at each other. Corner hits spin them up to tens of radians per step, and the contact solver's push-outs
/// between overlapping neighbours can carry a body standing against the wall across it — which the time of impact,
/// covering a body's own motion only, does not see. With `ccd` the wall still wins: such bodies are put back on
/// their side, so no centre is ever past the wall and nothing is counted; and the crowd does push some through
/// (`held_at_obstacles`), so that path runs here.
#[test]
fn with_ccd_a_crowd_of_thin_boxes_never_pushes_one_through_the_wall() {
    let mut s =
        sim(&["scenario=tunnel", "algorithm=sap", "ccd=true", "shape=box", "bodies=4000", "half_extents_spread=0.8"]);
    for step in 0..STEPS {
        let record = *s.step(1.0 / 60.0);
        assert_eq!(record.tunnelled, 0, "step {step}");
        assert_eq!(record.removed, 0, "step {step}: every state stays finite");
        let crossed = s.bodies().position.iter().filter(|p| p.x >= 0.0).count();
        assert_eq!(crossed, 0, "step {step}: bodies past the wall's mid-plane");
    }
    assert!(s.held_at_obstacles() > 0, "the crowd pushed some body at the wall");
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
    let err = Plan::parse("seed = 3\nccd = \"yes\"\n", "bad.toml", &[]).unwrap_err().to_string();
    assert!(err.starts_with("bad.toml:2") && err.contains("boolean"), "{err}");
    let err = Plan::parse("", "x", &["ccd=2".to_owned()]).unwrap_err().to_string();
    assert!(err.contains("ccd") && err.contains("boolean"), "{err}");
    assert!(!Plan::parse("", "x", &[]).unwrap().config().ccd, "off by default");
}

/// Two boxes (turned at random by the scene's seed) at 240 units/s head-on, 3 units apart: the step takes each
/// past the other.
fn head_on_boxes(ccd: bool) -> Simulation {
    let ccd = format!("ccd={ccd}");
    sim(&["scenario=two-balls", "shape=box", "radius=0.5", "speed=240", "restitution=1", &ccd])
}

#[test]
fn head_on_without_ccd_the_boxes_pass_through_each_other() {
    let mut s = head_on_boxes(false);
    assert_eq!(s.bodies().spin().map_or(0, Spin::boxes), 2);
    let record = *s.step(1.0 / 60.0);
    let b = s.bodies();
    assert!(b.position[0].x > b.position[1].x, "they swapped sides: {:?}", b.position);
    assert_eq!(record.tunnelled, 1, "the pair is counted");
}

#[test]
fn head_on_with_ccd_the_boxes_bounce_at_their_time_of_impact() {
    let mut s = head_on_boxes(true);
    let energy = |s: &Simulation| -> f64 {
        let b = s.bodies();
        (0..2)
            .map(|i| {
                let m = 1.0 / f64::from(b.inv_mass[i]);
                let spin = b.spin().expect("boxes spin");
                let (w, h) = (spin.angular_velocity[i], spin.inv_inertia[i]);
                let spin: f64 = (0..3).map(|k| 0.5 * f64::from(w[k] * w[k] / h[k])).sum();
                0.5 * m * f64::from(b.velocity[i].length_squared()) + spin
            })
            .sum()
    };
    let momentum = |s: &Simulation| {
        let b = s.bodies();
        b.velocity[0] / b.inv_mass[0] + b.velocity[1] / b.inv_mass[1]
    };
    let (e0, p0) = (energy(&s), momentum(&s));
    let record = *s.step(1.0 / 60.0);
    let b = s.bodies();
    assert_eq!(record.tunnelled, 0);
    assert!(b.position[0].x < b.position[1].x, "they did not pass: {:?}", b.position);
    assert!(b.velocity[0].x < 0.0 && b.velocity[1].x > 0.0, "they bounced: {:?}", b.velocity);
    let scale = 240.0 / b.inv_mass[0];
    assert!((momentum(&s) - p0).length() < 1e-3 * scale, "momentum {p0} → {}", momentum(&s));
    let e1 = energy(&s);
    assert!(e1 <= e0 * (1.0 + 1e-4), "energy does not grow: {e0} → {e1}");
    assert!(e1 >= 0.5 * e0, "an elastic hit keeps most of it: {e0} → {e1}");
}

/// `configs/mixed.toml`'s scene at the speed it has at 10⁵ bodies (about 30 units/s) — boxes whose thinnest half
/// extent a step's motion exceeds, no `ccd`, no obstacle — does not run the tunnelling count: it would cost a time
/// of impact per pair with a fast body every step (10 ms at 10⁵ bodies) for a count nobody asked for. So nothing is
/// counted.
#[test]
fn a_scene_of_fast_thin_boxes_without_ccd_or_obstacles_pays_for_no_count() {
    let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/mixed.toml")).unwrap();
    let plan = Plan::parse(&toml, "mixed.toml", &["bodies=3000".to_owned(), "speed=30".to_owned()]).unwrap();
    assert!(!plan.config().ccd);
    let mut s = Simulation::of(&plan).unwrap();
    let setup = s.setup();
    let thinnest = setup.half_extents.min_element() * (1.0 - setup.half_extents_spread);
    assert!(setup.speed / 60.0 > 2.0 * thinnest, "its boxes can pass through each other in a step");
    assert!(setup.obstacles.is_empty());
    s.run(60, |_, _| {});
    assert_eq!(s.summary().tunnelled, 0);
}
