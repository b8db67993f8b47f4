use super::*;
use collide_broadphase::reference_pairs;

/// The step's pairs sorted (the step leaves them in the broadphase's order), to compare with the reference's.
fn sorted(s: &Simulation) -> PairList {
    let mut pairs = s.pairs().clone();
    pairs.sort();
    pairs
}

fn sim(text: &str, overrides: &[&str]) -> Simulation {
    let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    Simulation::of(&Plan::parse(text, "test.toml", &overrides).unwrap()).unwrap()
}

#[test]
fn two_equal_balls_head_on_swap_velocities() {
    let mut s = sim("scenario = \"two-balls\"\n", &[]);
    let before = s.bodies().velocity.clone();
    for _ in 0..120 {
        s.step(1.0 / 60.0);
    }
    let after = &s.bodies().velocity;
    assert!((after[0] - before[1]).length() < 1e-5, "{after:?}");
    assert!((after[1] - before[0]).length() < 1e-5, "{after:?}");
    assert!(s.records().iter().any(|r| r.contacts == 1));
}

#[test]
fn oblique_hit_deflects_both_and_conserves_momentum() {
    let mut s = sim("scenario = \"two-balls-oblique\"\n", &[]);
    let p0: Vec3 = s.bodies().velocity.iter().sum();
    for _ in 0..150 {
        s.step(1.0 / 60.0);
    }
    let v = &s.bodies().velocity;
    assert!(v[0].y.abs() > 0.1 && v[1].y.abs() > 0.1, "glancing hit turns both: {v:?}");
    assert!((v.iter().sum::<Vec3>() - p0).length() < 1e-5);
}

/// Every registered broadphase inside the pipeline (the default config's `brute` would compare the reference with
/// itself): the sorted pairs of every step are brute force's.
#[test]
fn the_pipeline_finds_exactly_the_reference_pairs_with_every_algorithm() {
    for d in collide_algorithms::ALGORITHMS {
        let mut s = sim("scenario = \"uniform\"\nbodies = 400\n", &[&format!("algorithm={}", d.name)]);
        assert_eq!(s.broadphase().name(), d.name);
        let mut expected = PairList::new();
        for step in 0..50 {
            s.step(1.0 / 60.0);
            reference_pairs(s.aabbs(), &mut expected);
            assert_eq!(sorted(&s), expected, "{} step {step}", d.name);
        }
        assert!(!expected.is_empty(), "the scene has pairs");
    }
}

#[test]
fn same_seed_same_run_and_the_seed_matters() {
    let run = |seed: &str| {
        let mut s = sim("scenario = \"uniform\"\nbodies = 300\n", &[seed]);
        s.run(60, |_, _| {});
        s.state_hash()
    };
    assert_eq!(run("seed=5"), run("seed=5"));
    assert_ne!(run("seed=5"), run("seed=6"));
}

/// With every registered broadphase: the removal reaches it as an `on_resize` between two frames, and the pairs
/// stay brute force's. SAP patches its structure (no initialisation on the next frame): the incremental
/// `on_resize` path, which `brute` (the default config's) never reached.
#[test]
fn a_non_finite_body_is_removed_and_the_run_goes_on_with_every_algorithm() {
    for d in collide_algorithms::ALGORITHMS {
        let mut s = sim("scenario = \"uniform\"\nbodies = 200\n", &[&format!("algorithm={}", d.name)]);
        let mut expected = PairList::new();
        for _ in 0..3 {
            s.step(1.0 / 60.0);
        }
        s.bodies_mut().velocity[17] = Vec3::new(f32::NAN, 0.0, 0.0);
        s.bodies_mut().position[150].y = f32::INFINITY;
        let record = *s.step(1.0 / 60.0);
        assert_eq!((record.removed, record.n), (2, 198), "{}", d.name);
        assert!(s.aabbs().iter().all(Aabb::is_valid), "no NaN reaches the broadphase");
        reference_pairs(s.aabbs(), &mut expected);
        assert_eq!(sorted(&s), expected, "{}: the step of the removal", d.name);
        if d.name == "sap" {
            assert_eq!(record.stats.get("init"), Some(0.0), "sap patched the removal: {}", record.stats);
        }
        for step in 0..20 {
            s.step(1.0 / 60.0);
            reference_pairs(s.aabbs(), &mut expected);
            assert_eq!(sorted(&s), expected, "{} step {step} after the removal", d.name);
        }
        assert_eq!(s.summary().removed, 2);
    }
}

#[test]
fn kinetic_energy_never_grows_with_elastic_or_lossy_response() {
    for e in ["restitution=1.0", "restitution=0.5"] {
        let mut s = sim("scenario = \"uniform\"\nbodies = 500\n", &[e, "speed=8"]);
        let e0 = s.bodies().kinetic_energy();
        for _ in 0..200 {
            s.step(1.0 / 60.0);
            assert!(s.bodies().kinetic_energy() <= e0 * (1.0 + 1e-4), "{e}: energy grew");
        }
        assert!(s.records().iter().map(|r| r.contacts).sum::<u64>() > 0, "bodies did collide");
    }
}

#[test]
fn bodies_stay_inside_the_container() {
    let mut s = sim("scenario = \"rain\"\nbodies = 300\n", &[]);
    s.run(300, |_, _| {});
    let c = s.setup().container;
    for (p, r) in s.bodies().position.iter().zip(&s.bodies().radius) {
        assert!(c.expanded(1e-4).contains(&Aabb::from_center_radius(*p, *r)), "{p} outside {c:?}");
    }
    let mean_y = s.bodies().position.iter().map(|p| p.y).sum::<f32>() / 300.0;
    assert!(mean_y < c.center().y, "rain fell: mean y {mean_y}");
}

#[test]
fn the_cluster_gets_dense_then_disperses() {
    let mut s = sim("scenario = \"cluster\"\nbodies = 2000\n", &["resolution=false"]);
    s.run(240, |_, _| {});
    let pairs: Vec<u64> = s.records().iter().map(|r| r.pairs).collect();
    let (start, peak, end) = (pairs[50], pairs[119], pairs[239]);
    assert!(peak > 20 * start.max(1), "dense at the pull's end: {start} -> {peak}");
    assert!(end * 5 < peak, "disperses after release: {peak} -> {end}");
}

/// Under the variable policy a frame's step is its real duration, and the cap bounds it: a frame of 0.5 s with a
/// cap of 1 ms is one step of 1 ms (0.5 s without the cap). Headless, `run` feeds each frame the previous frame's
/// wall time: the first frame assumes the nominal 1/60 s, which the cap of 1 ms cuts — so every record, the first
/// included, is at most 1 ms, and the first is exactly that.
#[test]
fn variable_dt_follows_the_wall_clock_and_the_cap_bounds_it() {
    let variable = |cap: &str| {
        let mut overrides = vec!["time.policy=variable"];
        if !cap.is_empty() {
            overrides.push(cap);
        }
        sim("scenario = \"uniform\"\nbodies = 50\n", &overrides)
    };
    let (mut capped, mut free) = (variable("time.cap=0.001"), variable(""));
    for (real, want_capped, want_free) in [(0.5, 1.0, 500.0), (0.0004, 0.4, 0.4), (0.002, 1.0, 2.0)] {
        assert_eq!(capped.frame(real), 1);
        assert_eq!(free.frame(real), 1);
        let (c, f) = (capped.records().last().unwrap().dt_ms, free.records().last().unwrap().dt_ms);
        assert!((c - want_capped).abs() < 1e-6 && (f - want_free).abs() < 1e-4, "{real} s: {c} and {f} ms");
    }
    let mut s = variable("time.cap=0.001");
    s.run(20, |_, _| {});
    let dt: Vec<f64> = s.records().iter().map(|r| r.dt_ms).collect();
    assert!((dt[0] - 1.0).abs() < 1e-6, "the first frame's nominal 16.7 ms is capped: {dt:?}");
    assert!(dt.iter().all(|&d| d <= 1.0 + 1e-6), "{dt:?}");
    // Every later frame's step is the wall time of the frame before it, which includes that frame's step.
    let steps: Vec<f64> = s.records().iter().map(|r| r.step_ms).collect();
    assert!(dt[1..].iter().zip(&steps).all(|(&d, &step)| d >= step.min(1.0) * 0.999), "{dt:?} {steps:?}");
    let mut paused = sim("", &["time.scale=0", "bodies=10"]);
    paused.run(5, |_, _| {});
    assert!(paused.records().is_empty(), "scale 0 runs no steps");
}

/// Restitution below 1 between bodies: two equal balls meeting head on leave with `e` times their closing speed
/// (the walls are far, gravity off), so an impulse that ignored `e` would leave them at the full speed.
#[test]
fn restitution_below_one_takes_energy_out_of_body_body_contacts() {
    for e in [1.0f32, 0.5, 0.0] {
        let mut s = sim("scenario = \"two-balls\"\n", &[&format!("restitution={e}")]);
        let closing = |s: &Simulation| {
            let b = s.bodies();
            let axis = (b.position[1] - b.position[0]).normalize();
            (b.velocity[0] - b.velocity[1]).dot(axis)
        };
        let before = closing(&s);
        assert!(before > 0.0, "they approach");
        let mut touched = false;
        for _ in 0..120 {
            touched |= s.step(1.0 / 60.0).contacts > 0;
            if touched && s.records().last().unwrap().contacts == 0 {
                break;
            }
        }
        assert!(touched, "e = {e}: the balls met");
        let after = closing(&s);
        assert!((after + e * before).abs() < 1e-3 * before, "e = {e}: closing speed {before} became {after}");
    }
}

#[test]
fn resting_bodies_start_at_rest() {
    let s = sim("scenario = \"uniform\"\nbodies = 1000\nresting_fraction = 0.9\n", &[]);
    let resting = s.bodies().velocity.iter().filter(|v| **v == Vec3::ZERO).count();
    assert!((850..=950).contains(&resting), "{resting}");
}

#[test]
fn thesis_run_snapshot() {
    // Pair counts per step and the final state hash of a small thesis run: any change to spawning, the step
    // order or the response shows up here.
    let mut s = sim("scenario = \"thesis\"\nbodies = 3000\n", &[]);
    s.run(30, |_, _| {});
    let pairs: Vec<String> = s.records().iter().map(|r| format!("{}/{}", r.pairs, r.contacts)).collect();
    insta::assert_snapshot!(format!("pairs/contacts per step: {}\nhash: {:016x}", pairs.join(" "), s.state_hash()));
}

#[test]
fn the_tour_runs_its_seven_phases_in_order_growing_and_doubling_its_bodies() {
    let mut s = sim("scenario = \"tour\"\nbodies = 500\nresolution = false\nalgorithm = \"sap\"\n", &[]);
    let steps = s.setup().scenario.scripted_steps().unwrap();
    assert_eq!(steps, 7 * crate::TOUR_PHASE_STEPS);
    let mut expected = PairList::new();
    let mut seen: Vec<&str> = Vec::new();
    for step in 0..steps {
        s.step(1.0 / 60.0);
        let r = *s.records().last().unwrap();
        if seen.last() != Some(&r.phase) {
            seen.push(r.phase);
        }
        // The pairs across the growth and the doubling (an `on_resize` to sweep-and-prune) are brute force's.
        if step % 50 == 0 || step == 1800 || step == 1801 {
            reference_pairs(s.aabbs(), &mut expected);
            assert_eq!(sorted(&s), expected, "step {step} ({})", r.phase);
        }
        let b = s.bodies();
        let n = b.len();
        match r.phase {
            "cluster" if step >= 360 => {
                // Held in a quarter-size box around the centre (64× the density), give or take a step's travel.
                let c = s.setup().container;
                let half = c.half_extents().max_element() * 0.25 * 1.1;
                let far = b.position.iter().filter(|p| (**p - c.center()).abs().max_element() > half).count();
                assert!(far * 50 < n, "step {step}: {far} of {n} bodies left the cluster");
            }
            "slow" => {
                let base = s.setup().speed;
                assert!(b.velocity.iter().all(|v| (v.length() - base / 64.0).abs() < 1e-3 * base), "step {step}");
            }
            "rest" => {
                let resting = b.velocity.iter().filter(|v| **v == Vec3::ZERO).count();
                assert!((resting as f32 / n as f32 - 0.9).abs() < 0.05, "step {step}: {resting} of {n} rest");
            }
            _ => {}
        }
        let grown = b.radius.iter().filter(|&&r| r > 3.9).count();
        match step {
            s if s < 1500 => assert_eq!((n, grown), (500, 0), "step {step}"),
            s if s < 1800 => assert_eq!((n, grown), (500, 50), "step {step}: every tenth body grows 8×"),
            _ => assert_eq!((n, grown), (1000, 50), "step {step}: the count doubles"),
        }
    }
    assert_eq!(seen, ["uniform", "cluster", "released", "slow", "rest", "grow", "double"]);
}

#[test]
fn the_motion_hint_marks_exactly_the_boxes_that_changed() {
    // 90% at rest, response off so they stay so; the hint must never call a changed box resting.
    let mut s = sim("scenario = \"uniform\"\nbodies = 2000\nresting_fraction = 0.9\nresolution = false\n", &[]);
    let mut previous: Vec<Aabb> = Vec::new();
    for step in 0..40 {
        s.step(1.0 / 60.0);
        let (aabbs, moved) = (s.aabbs(), s.moved());
        assert_eq!(moved.len(), aabbs.len());
        if step == 0 {
            assert!(moved.iter().all(|&m| m), "the first step has nothing to compare with");
        } else {
            for (i, (&m, b)) in moved.iter().zip(aabbs).enumerate() {
                assert_eq!(m, *b != previous[i], "step {step}, body {i}");
            }
            let resting = moved.iter().filter(|&&m| !m).count();
            assert!(resting > 1700, "step {step}: only {resting} resting bodies marked");
        }
        previous = aabbs.to_vec();
    }
    // After a removal every index may have moved: everything is marked.
    s.bodies_mut().velocity[3] = Vec3::NAN;
    s.step(1.0 / 60.0);
    assert!(s.moved().iter().all(|&m| m));
}

#[test]
fn the_csv_names_each_steps_phase() {
    let mut s = sim("scenario = \"cluster\"\nbodies = 200\n", &[]);
    s.run(130, |_, _| {});
    let dir = std::env::temp_dir().join(format!("collide-phase-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.csv");
    crate::write_csv(&path, s.records()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("frame,n,algorithm,phase,dt_ms"));
    let phase_of = |line: &str| line.split(',').nth(3).unwrap().to_owned();
    let phases: Vec<String> = lines.map(phase_of).collect();
    assert_eq!(phases[59], "uniform");
    assert_eq!(phases[60], "pull");
    assert_eq!(phases[125], "released");
    let plain = sim("scenario = \"uniform\"\nbodies = 50\n", &[]).step(1.0 / 60.0).phase;
    assert_eq!(plain, "", "scenes without phases leave the column empty");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The broadphase of a step runs on one of rayon's threads even when the step is called from outside the pool
/// (`on_worker`): from outside, its parallel sections would often run serially on a two-core machine.
#[test]
fn a_step_called_from_outside_the_pool_runs_its_broadphase_on_a_pool_thread() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    /// `usize::MAX` for a call from outside the pool, the pool thread's index otherwise.
    static CALLED_ON: AtomicUsize = AtomicUsize::new(0);
    struct WhereAmI;
    impl Broadphase for WhereAmI {
        fn name(&self) -> &'static str {
            "where-am-i"
        }
        fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
            CALLED_ON.store(rayon::current_thread_index().unwrap_or(usize::MAX), Ordering::SeqCst);
            reference_pairs(frame.aabbs, out);
        }
        fn on_resize(&mut self, _: &Resize<'_>) {}
    }
    static WHERE_AM_I: AlgorithmDescriptor =
        AlgorithmDescriptor { name: "where-am-i", summary: "", params: &[], build: |_| Box::new(WhereAmI) };
    let mut s = sim("scenario = \"uniform\"\nbodies = 50\n", &[]);
    s.set_algorithm(&WHERE_AM_I, Params::defaults(&[]));
    assert_eq!(rayon::current_thread_index(), None, "the test's own thread is outside the pool");
    CALLED_ON.store(usize::MAX, Ordering::SeqCst);
    s.step(1.0 / 60.0);
    assert_ne!(CALLED_ON.load(Ordering::SeqCst), usize::MAX, "the step ran its broadphase outside the pool");
}

/// Elastic response (restitution 1), no gravity, 10 000 steps: the kinetic energy never rises above its start
/// (float rounding aside: a tolerance of 1e-4 of it), however many contacts a body takes in one step. The run is
/// on a pool of two threads with every parallel section of the step forced on, so that the parallel resolution
/// is the one checked.
#[test]
fn ten_thousand_elastic_steps_without_gravity_gain_no_energy() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a rayon pool");
    let mut s = sim("scenario = \"uniform\"\nbodies = 400\n", &["restitution=1.0", "gravity=0", "speed=10"]);
    s.parallelism = Parallelism::with_min_work(0);
    let e0 = s.bodies().kinetic_energy();
    let (mut contacts, mut highest) = (0, e0);
    pool.install(|| {
        for _ in 0..10_000 {
            contacts += s.step(1.0 / 60.0).contacts;
            highest = highest.max(s.bodies().kinetic_energy());
        }
    });
    assert!(contacts > 10_000, "bodies collided: {contacts} contacts");
    assert!(highest <= e0 * (1.0 + 1e-4), "energy grew: {e0} -> at most {highest}");
    let end = s.bodies().kinetic_energy();
    assert!(end > e0 * 0.99, "an elastic run keeps its energy: {e0} -> {end}");
}

/// Without contact response the bodies move independently of each other, so a run that reorders its bodies must
/// end in exactly the state of one that does not, body by body: every column followed its body, the hash goes by
/// id, and the boxes a recording writes (`boxes_by_id`) are the unreordered run's, bit for bit, at every step.
/// Boxes and spheres, with walls and gravity, and a broadphase that keeps state (`sap`) told each permutation.
#[test]
fn a_reordered_run_keeps_every_body_s_identity() {
    let text = "scenario = \"rain\"\nbodies = 600\nresolution = false\nshape = \"mixed\"\nalgorithm = \"sap\"\n";
    let mut plain = sim(text, &["reorder_every=0"]);
    let mut reordered = sim(text, &["reorder_every=3"]);
    assert!(!reordered.bodies().ids_in_order(), "the spawn was sorted");
    let mut scratch = Vec::new();
    for step in 0..40 {
        plain.step(1.0 / 60.0);
        reordered.step(1.0 / 60.0);
        reordered.bodies().validate().unwrap();
        let by_id = crate::boxes_by_id(reordered.aabbs(), Some(&reordered.bodies().id), &mut scratch);
        assert!(
            by_id.iter().zip(plain.aabbs()).all(|(a, b)| collide_broadphase::same_bits(a, b)),
            "step {step}: a reordered body's box differs from the same body's box unreordered"
        );
        // The pairs are the same set, by id.
        let ids = &reordered.bodies().id;
        let mut pairs: Vec<Pair> =
            reordered.pairs().iter().map(|p| Pair::new(ids[p.a as usize], ids[p.b as usize])).collect();
        pairs.sort_unstable();
        assert_eq!(pairs, sorted(&plain).as_slice(), "step {step}");
    }
    assert!(reordered.records().iter().any(|r| r.phases.get(Phase::Reorder) > 0.0), "reorders ran");
    assert_eq!(reordered.state_hash(), plain.state_hash());
}

/// A reorder also between a script's additions (the tour doubles its bodies at its last phase): the new bodies
/// get the next ids, and every body is still whole.
#[test]
fn bodies_a_script_adds_get_the_next_ids_and_survive_reordering() {
    let mut s = sim("scenario = \"tour\"\nbodies = 300\n", &["reorder_every=7"]);
    let steps = crate::TOUR_PHASE_STEPS * 6 + 20;
    for _ in 0..steps {
        s.step(1.0 / 60.0);
    }
    assert_eq!(s.bodies().len(), 600, "the tour doubled");
    s.bodies().validate().unwrap();
    assert!(!s.bodies().ids_in_order());
}
