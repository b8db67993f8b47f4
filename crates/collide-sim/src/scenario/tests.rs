use super::*;

#[test]
fn uniform_container_has_two_percent_volume_fraction() {
    let c = cube_for_fraction(100_000, mean_sphere_volume(0.5, 0.0));
    let fraction = 100_000.0 * 4.0 / 3.0 * PI * 0.125 / c.volume();
    assert!((fraction - 0.02).abs() < 1e-4, "{fraction}");
    assert!((mean_sphere_volume(1.0, 0.5) - 4.0 / 3.0 * PI * 1.25).abs() < 1e-4);
}

#[test]
fn far_clusters_sit_at_the_corners_of_a_world_a_thousand_times_wider() {
    let plan = crate::Plan::parse("scenario = \"far-clusters\"\nbodies = 8000", "test", &[]).unwrap();
    let setup = plan.scene().unwrap();
    let mut bodies = Bodies::default();
    (setup.scenario.spawn)(setup, &mut Rng::new(1), &mut bodies);
    let cluster = setup.container.extents().x / FAR_SPREAD;
    // 1000 bodies per cluster at 2% volume fraction.
    let fraction = 1000.0 * mean_sphere_volume(0.5, 0.0) / cluster.powi(3);
    assert!((fraction - 0.02).abs() < 1e-4, "{fraction}");
    for (i, p) in bodies.position.iter().enumerate() {
        let k = i % 8;
        let corner = Vec3::new((k & 1) as f32, (k >> 1 & 1) as f32, (k >> 2) as f32);
        let lo = setup.container.min + (setup.container.extents() - cluster) * corner;
        assert!(p.cmpge(lo).all() && p.cmple(lo + cluster).all(), "body {i} at {p} outside its cluster");
    }
}

/// The clusters stay clusters: after 20 simulated seconds (four cluster widths of travel at the scenario's
/// speed) every body is still within a body's reach of its corner cube.
#[test]
fn far_clusters_stay_at_their_corners() {
    let config = "scenario = \"far-clusters\"\nbodies = 800\nalgorithm = \"sap\"";
    let mut sim = crate::Simulation::of(&crate::Plan::parse(config, "test", &[]).unwrap()).unwrap();
    let container = sim.setup().container;
    for _ in 0..1200 {
        sim.step(1.0 / 60.0);
    }
    let b = sim.bodies();
    for (i, p) in b.position.iter().enumerate() {
        let cube = far_cluster_of(&container, *p).expanded(2.0 * b.radius[i]);
        assert!(cube.contains_point(*p), "body {i} at {p} left its cluster {cube:?}");
    }
}

#[test]
fn unknown_scenarios_list_the_valid_ones() {
    let e = find_scenario("clustr").unwrap_err();
    assert!(e.starts_with("unknown scenario `clustr`; valid scenarios: thesis, thesis-slow, uniform"), "{e}");
    assert!(find_scenario("rain").is_ok());
}

/// `power-law`: uniform's container, every radius between the base radius and the cap, most bodies small and a
/// few huge, the shares above 2, 4 and 16 base radii those of the truncated law.
#[test]
fn power_law_radii_have_a_heavy_tail_under_the_cap() {
    let plan = crate::Plan::parse("scenario = \"power-law\"\nbodies = 20000", "test", &[]).unwrap();
    let setup = plan.scene().unwrap();
    let uniform = crate::Plan::parse("scenario = \"uniform\"\nbodies = 20000", "test", &[]).unwrap();
    assert_eq!(setup.container, uniform.scene().unwrap().container);
    let law = setup.power_law.unwrap();
    let mut bodies = Bodies::default();
    (setup.scenario.spawn)(setup, &mut Rng::new(1), &mut bodies);
    assert_eq!(bodies.len(), 20_000);
    for (p, &r) in bodies.position.iter().zip(&bodies.radius) {
        assert!((setup.radius..=law.largest).contains(&r), "radius {r}");
        let inside = setup.container.expanded(-r);
        assert!(inside.contains_point(*p), "a body of radius {r} at {p} sticks out");
    }
    // The truncated law's share above `k` base radii: (x^(1−a) − R^(1−a)) / (r^(1−a) − R^(1−a)).
    let share = |k: f32| bodies.radius.iter().filter(|&&r| r > k * setup.radius).count() as f64 / 20_000.0;
    let tail = |k: f32| {
        let (a, r, big) = (1.0 - f64::from(law.exponent), f64::from(setup.radius), f64::from(law.largest));
        ((k as f64 * r).powf(a) - big.powf(a)) / (r.powf(a) - big.powf(a))
    };
    for k in [2.0, 4.0, 16.0] {
        let (got, want) = (share(k), tail(k));
        // Four binomial standard deviations.
        let sigma = (want * (1.0 - want) / 20_000.0).sqrt();
        assert!((got - want).abs() < 4.0 * sigma + 1e-4, "{got} above {k} r, expected {want}");
    }
    // Most small, a few huge: a third above twice the base radius, about one in a hundred above 16 times it.
    assert!(share(2.0) < 0.4 && share(16.0) > 0.005);
    assert!(bodies.radius.iter().copied().fold(0.0, f32::max) > law.largest / 4.0);
    // The law with exponent 3 and the same draw gives smaller bodies (one draw per body, whatever the exponent).
    let lighter = PowerLaw { exponent: 3.0, ..law };
    let (mut a, mut b) = (Rng::new(7), Rng::new(7));
    for _ in 0..100 {
        assert!(lighter.draw(0.5, &mut a) <= law.draw(0.5, &mut b));
    }
}
