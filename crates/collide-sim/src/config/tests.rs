use super::*;
use crate::Plan;
use crate::ShapeMix;

fn parse(text: &str, overrides: &[&str]) -> Result<Plan, ConfigError> {
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    Plan::parse(text, "test.toml", &overrides)
}

fn error(text: &str, overrides: &[&str]) -> String {
    parse(text, overrides).expect_err("must be rejected").to_string()
}

#[test]
fn an_empty_config_is_all_defaults() {
    let plan = parse("", &[]).unwrap();
    assert_eq!(*plan.config(), Config::default());
    let setup = plan.scene().unwrap();
    assert_eq!((setup.scenario.name, setup.bodies, setup.radius), ("uniform", 10_000, 0.5));
}

#[test]
fn overrides_set_any_key_including_tables() {
    let plan = parse(
        "scenario = \"thesis\"\n",
        &["bodies=1000", "algorithm=brute", "time.policy=variable", "time.cap=0.1", "resolution=false"],
    )
    .unwrap();
    let c = plan.config();
    assert_eq!(c.bodies, Some(1000));
    assert_eq!(c.time.policy, PolicyName::Variable);
    assert_eq!(c.time.cap, Some(0.1));
    assert!(!c.resolution);
    let setup = plan.scene().unwrap();
    assert_eq!(setup.speed, 0.6);
    assert_eq!(setup.container.min.y, -0.99);
}

#[test]
fn unknown_keys_name_the_line_and_the_valid_keys() {
    let e = error("scenario = \"uniform\"\nbodys = 10\n", &[]);
    assert!(e.starts_with("test.toml:2: unknown field `bodys`, expected one of"), "{e}");
    assert!(e.contains("`bodies`"), "{e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    let e = error("[time]\npolicy = \"fixed\"\nstep = 3\n", &[]);
    assert!(e.starts_with("test.toml:3: unknown field `step`"), "{e}");
}

#[test]
fn malformed_toml_names_the_line() {
    let e = error("bodies = 10\nscenario = \n", &[]);
    assert!(e.starts_with("test.toml:2:"), "{e}");
    let e = error("bodies = \"many\"\n", &[]);
    assert!(e.starts_with("test.toml:1:") && e.contains("invalid type"), "{e}");
}

#[test]
fn unknown_scenario_and_algorithm_answer_with_the_list() {
    let e = error("bodies = 5\nscenario = \"clouds\"\n", &[]);
    assert!(e.starts_with("test.toml:2: unknown scenario `clouds`; valid scenarios: thesis,"), "{e}");
    let e = error("algorithm = \"octtree\"\n", &[]);
    assert!(e.starts_with("test.toml:1: unknown algorithm `octtree`; valid algorithms: brute"), "{e}");
    let e = error("", &["algorithm=nope"]);
    assert!(e.starts_with("--set algorithm=nope: unknown algorithm `nope`; valid algorithms:"), "{e}");
    let e = error("", &["time.policy=sometimes"]);
    assert!(e.starts_with("--set time.policy=sometimes: unknown variant `sometimes`"), "{e}");
    assert!(e.contains("fixed") && e.contains("variable") && e.contains("accumulator"), "{e}");
}

#[test]
fn algorithm_parameters_are_checked_against_the_spec() {
    let e = error("[params.nope]\nx = 1\n", &[]);
    assert!(e.starts_with("test.toml:2: in [params.nope]: unknown algorithm `nope`"), "{e}");
    let e = error("\n[params.brute]\nmax_leaf = 3\n", &[]);
    assert!(e.starts_with("test.toml:3: in [params.brute]: unknown parameter `max_leaf`"), "{e}");
}

#[test]
fn zero_and_negative_sizes_are_rejected_by_key() {
    assert!(error("bodies = 0\n", &[]).starts_with("test.toml:1: bodies = 0: need at least 1"));
    let e = error("bodies = -5\n", &[]);
    assert!(e.starts_with("test.toml:1:") && e.contains("-5"), "{e}");
    assert!(error("\nradius = -0.5\n", &[]).starts_with("test.toml:2: radius = -0.5: must be a positive number"));
    assert!(error("radius = 0\n", &[]).contains("radius = 0: must be a positive number"));
    assert!(error("container_width = 0\n", &[]).starts_with("test.toml:1: container_width = 0"));
    assert!(error("", &["bodies=0"]).starts_with("--set bodies=0: bodies = 0"));
    assert!(error("speed = -1\n", &[]).contains("speed = -1: must be zero or a positive number"));
    assert!(error("[time]\ndt = 0\n", &[]).starts_with("test.toml:2: time.dt = 0"));
    assert!(error("restitution = 1.5\n", &[]).contains("between 0 and 1"));
    assert!(error("frames = 0\n", &[]).contains("frames = 0"));
    assert!(error("", &["radius=nan"]).contains("must be a positive number"));
}

#[test]
fn a_body_larger_than_the_container_is_rejected() {
    let e = error("radius = 3\ncontainer_width = 5\n", &[]);
    assert!(e.starts_with("test.toml:2: a body 6 across does not fit in the container"), "{e}");
    let e = error("scenario = \"thesis\"\nradius = 2\n", &[]);
    assert!(e.starts_with("test.toml:2: a body 4 across does not fit"), "{e}");
}

#[test]
fn fixed_count_scenarios_refuse_other_counts() {
    let e = error("scenario = \"two-balls\"\nbodies = 3\n", &[]);
    assert!(e.contains("scenario `two-balls` always has 2 bodies"), "{e}");
    assert!(parse("scenario = \"two-balls\"\n", &[]).is_ok());
}

#[test]
fn malformed_overrides_say_what_is_expected() {
    assert!(error("", &["bodies"]).starts_with("--set bodies: expected KEY=VALUE"));
    let e = error("", &["params.cell_factor=2"]);
    assert!(
        e.starts_with("--set params.cell_factor=2: an algorithm's parameter is set as params.ALGORITHM.KEY"),
        "{e}"
    );
    assert!(error("", &["params.grid.x.y=2"]).contains("`params.grid.x.y` has 4 part(s)"));
    assert!(error("", &["bodies..x=1"]).contains("not a valid key"));
    assert!(error("", &["nonsense=1"]).starts_with("--set nonsense=1: unknown field `nonsense`"));
}

#[test]
fn key_lines_follow_tables_and_dotted_keys() {
    let text = "a = 1\n[time]\n# comment\ndt = 2\n[params.octree-dup]\nmax_leaf = 3\n";
    assert_eq!(key_line(text, &["a"]), Some(1));
    assert_eq!(key_line(text, &["time", "dt"]), Some(4));
    assert_eq!(key_line(text, &["params", "octree-dup", "max_leaf"]), Some(6));
    assert_eq!(key_line("time.dt = 1\n", &["time", "dt"]), Some(1));
    assert_eq!(key_line(text, &["missing"]), None);
}

#[test]
fn a_config_survives_a_save_and_load() {
    let c = parse("scenario = \"rain\"\nbodies = 77\n[time]\npolicy = \"accumulator\"\n", &[]).unwrap().into_config();
    assert_eq!(parse(&c.to_toml(), &[]).unwrap().into_config(), c);
}

#[test]
fn a_radius_too_small_or_large_to_size_the_container_says_so() {
    let e = error("radius = 1e-30\n", &[]);
    assert!(e.starts_with("test.toml:1: radius = 1e-30: the scenario sizes its container"), "{e}");
    assert!(e.contains("too small to represent") && e.contains("container_width"), "{e}");
    let e = error("radius = 1e30\n", &[]);
    assert!(e.contains("too large to represent"), "{e}");
    // With a container given, a tiny radius is just a tiny body.
    assert!(parse("radius = 1e-30\ncontainer_width = 10\n", &[]).is_ok());
}

#[test]
fn bad_shapes_name_the_key_and_the_valid_choices() {
    let e = error("bodies = 10\nshape = \"cube\"\n", &[]);
    assert_eq!(e, "test.toml:2: unknown shape `cube`; valid shapes: sphere, box, mixed");
    assert_eq!(error("", &["shape=ball"]), "--set shape=ball: unknown shape `ball`; valid shapes: sphere, box, mixed");
    let e = error("half_extents = [0.5, 0, 0.2]\n", &[]);
    assert!(e.starts_with("test.toml:1: half_extents = [0.5, 0.0, 0.2]: every half extent must be a positive"), "{e}");
    assert!(error("", &["half_extents=[1,nan,1]"]).starts_with("--set half_extents=[1,nan,1]: half_extents"));
    let e = error("half_extents = [1, 2]\n", &[]);
    assert!(e.starts_with("test.toml:1:") && e.contains("3"), "a length other than three: {e}");
    assert!(error("half_extents_spread = 1\n", &[]).starts_with("test.toml:1: half_extents_spread = 1: half extents"));
    assert!(error("half_extents_spread = -0.1\n", &[]).contains("must be between 0 and 1"));
    assert!(error("friction = -0.2\n", &[]).starts_with("test.toml:1: friction = -0.2: must be zero or a positive"));
    assert!(error("", &["friction=inf"]).starts_with("--set friction=inf: friction = inf: must be zero"));
    // A box too large for the container is measured by its bounding radius.
    let e = error("shape = \"box\"\nhalf_extents = [3, 3, 3]\ncontainer_width = 8\n", &[]);
    assert!(e.starts_with("test.toml:3: a body 10.39") && e.contains("does not fit"), "{e}");
    let ok =
        parse("shape = \"mixed\"\nhalf_extents = [0.6, 0.4, 0.3]\nhalf_extents_spread = 0.5\nfriction = 0.7\n", &[]);
    let plan = ok.unwrap();
    let setup = plan.scene().unwrap();
    assert_eq!((setup.shape, setup.friction), (ShapeMix::Mixed, 0.7));
}

/// A scene with boxes sizes its container for the mix's mean volume, as the spheres' does for theirs (2% of the
/// container inside bodies).
#[test]
fn boxes_fill_the_container_to_the_same_fraction_as_spheres() {
    let fraction = |shape: &str| {
        let config = parse(&format!("bodies = 1000\nshape = \"{shape}\"\nhalf_extents = [0.5, 0.3, 0.2]\n"), &[]);
        let plan = config.unwrap();
        let setup = plan.scene().unwrap();
        let mut bodies = crate::Bodies::default();
        (setup.scenario.spawn)(setup, &mut collide_math::Rng::new(setup.seed), &mut bodies);
        setup.assign_shapes(&mut bodies, 0);
        let volume: f32 = (0..bodies.len())
            .map(|i| match bodies.obb(i) {
                Some(b) => 8.0 * b.half_extents.x * b.half_extents.y * b.half_extents.z,
                None => 4.0 / 3.0 * std::f32::consts::PI * bodies.radius[i].powi(3),
            })
            .sum();
        (volume / setup.container.volume(), bodies.spin().map_or(0, crate::Spin::boxes))
    };
    for (shape, boxes) in [("sphere", 0), ("box", 1000), ("mixed", 500)] {
        let (f, b) = fraction(shape);
        assert!((f - 0.02).abs() < 1e-4, "{shape}: {f}");
        assert_eq!(b, boxes, "{shape}");
    }
}

#[test]
fn power_law_keys_are_checked_and_belong_to_their_scenario() {
    let setup = parse("scenario = \"power-law\"\nbodies = 1000\n", &[]).unwrap().scene().unwrap().clone();
    let law = setup.power_law.expect("power-law draws from a power law");
    let side = setup.container.extents().min_element();
    assert_eq!(law.exponent, crate::PowerLaw::DEFAULT_EXPONENT);
    assert!((law.largest - crate::POWER_LAW_DEFAULT_CAP * side).abs() < 1e-4, "{law:?}");
    assert_eq!(setup.max_radius(), law.largest);
    let set = parse("scenario = \"power-law\"\n", &["power_law_exponent=3", "power_law_cap=0.1"]).unwrap();
    let law = set.scene().unwrap().power_law.unwrap();
    assert_eq!(law.exponent, 3.0);
    assert!((law.largest - 0.1 * set.scene().unwrap().container.extents().x).abs() < 1e-4);

    let e = error("scenario = \"power-law\"\npower_law_exponent = 1\n", &[]);
    assert!(e.starts_with("test.toml:2: power_law_exponent = 1: must be above 1 and at most 8"), "{e}");
    assert!(error("scenario = \"power-law\"", &["power_law_exponent=nan"]).starts_with("--set power_law_exponent=nan"));
    assert!(error("scenario = \"power-law\"", &["power_law_exponent=9"]).contains("at most 8"));
    let e = error("scenario = \"power-law\"\npower_law_cap = 0.6\n", &[]);
    assert!(e.starts_with("test.toml:2: power_law_cap = 0.6: must be above 0 and at most 0.5"), "{e}");
    assert!(error("scenario = \"power-law\"", &["power_law_cap=0"]).contains("must be above 0"));
    // A cap below the smallest radius: 1% of a 10-unit container is 0.1, below radius 0.5.
    let e = error("scenario = \"power-law\"\ncontainer_width = 10\npower_law_cap = 0.01\n", &[]);
    assert!(e.starts_with("test.toml:3: power_law_cap = 0.01: the largest radius") && e.contains("raise"), "{e}");
    let e = error("scenario = \"power-law\"\nradius_spread = 0.2\n", &[]);
    assert!(e.starts_with("test.toml:2: radius_spread = 0.2: scenario `power-law` draws its radii"), "{e}");
    // Elsewhere the keys would change nothing: refused, naming the key.
    let e = error("scenario = \"uniform\"\npower_law_cap = 0.1\n", &[]);
    assert_eq!(
        e,
        "test.toml:2: power_law_cap applies to scenario `power-law` only, not `uniform`: its radii follow no power law"
    );
    assert!(error("", &["power_law_exponent=3"]).starts_with("--set power_law_exponent=3: power_law_exponent applies"));
}
