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
