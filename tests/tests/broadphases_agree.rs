//! Every registered broadphase, run inside the real simulation, against brute force.
//!
//! The conformance kit checks each algorithm on synthetic scenes; these tests check the same promise where it
//! matters — in the step pipeline, on the shared scenarios, including the cluster's pull and release — and a
//! stronger consequence of it: because the pairs are identical and the sim sorts them, a whole run must end in
//! the **same state hash** whichever algorithm found the pairs.

use collide_broadphase::{PairList, reference_pairs};
use collide_sim::{Plan, Simulation};

fn simulation(scenario: &str, bodies: usize, algorithm: &str, extra: &[&str]) -> Simulation {
    let mut overrides = vec![
        format!("scenario={scenario}"),
        format!("bodies={bodies}"),
        format!("algorithm={algorithm}"),
        "seed=7".into(),
    ];
    overrides.extend(extra.iter().map(|s| (*s).to_owned()));
    Simulation::of(&Plan::parse("", "test", &overrides).expect("valid config")).expect("valid setup")
}

/// Run `steps` steps of every algorithm on `scenario`, checking each step's pairs against the reference and
/// the final hash against brute force's.
fn check_scenario(scenario: &str, bodies: usize, steps: u64) {
    check_scenario_with(scenario, bodies, steps, &[]);
}

/// [`check_scenario`] with extra `--set` overrides.
fn check_scenario_with(scenario: &str, bodies: usize, steps: u64, extra: &[&str]) {
    let mut brute = simulation(scenario, bodies, "brute", extra);
    brute.run(steps, |_, _| {});
    let mut expected = PairList::new();
    for descriptor in collide_algorithms::ALGORITHMS {
        let mut sim = simulation(scenario, bodies, descriptor.name, extra);
        sim.run(steps, |step, sim| {
            reference_pairs(sim.aabbs(), &mut expected);
            assert!(
                sorted(sim.pairs()) == expected,
                "{} on {scenario}: step {step} has {} pairs, brute force {}",
                descriptor.name,
                sim.pairs().len(),
                expected.len()
            );
            if let Err(e) = sim.broadphase().validate() {
                panic!("{} on {scenario}: step {step}: validate() failed: {e}", descriptor.name);
            }
        });
        assert_eq!(
            sim.state_hash(),
            brute.state_hash(),
            "{} on {scenario}: the run diverged from brute force's",
            descriptor.name
        );
    }
}

#[test]
fn thesis_workload() {
    check_scenario("thesis", 3000, 60);
}

#[test]
fn uniform_fast() {
    check_scenario("uniform", 1500, 60);
}

#[test]
fn cluster_pull_and_release() {
    // Steps 60–120 pull the cloud to 1/4 of its size; 120 on it disperses.
    check_scenario("cluster", 1200, 160);
}

#[test]
fn mixed_sizes() {
    check_scenario("mixed-sizes", 1200, 60);
}

/// Sizes with a heavy tail: most bodies small, the largest a fifth of the container's side, overlapping a good
/// share of the others; every level of `hgrid`, and the largest bodies' index, in play.
#[test]
fn power_law() {
    check_scenario("power-law", 1500, 40);
}

#[test]
fn rain_piles_up_on_the_floor() {
    check_scenario("rain", 800, 120);
}

#[test]
fn thesis_slow_with_resting_bodies() {
    // 90% at rest: the octree's static tree and SAP's untouched endpoints are the paths under test.
    check_scenario_with("thesis-slow", 2000, 60, &["resting_fraction=0.9"]);
}

/// The meta-broadphase forced to hand over to the next candidate every third step (warm at once) or every
/// seventh (through a four-step probe), through every scenario: switching must never change a pair, so every
/// step's pairs are brute force's and the run ends in brute force's state hash.
#[test]
fn auto_switching_every_third_or_seventh_step_never_changes_a_pair() {
    let runs = [
        ("thesis", 2000, 40, 3),
        ("uniform", 1200, 40, 3),
        ("cluster", 1000, 150, 3),
        ("cluster", 1000, 150, 7),
        ("mixed-sizes", 1000, 40, 3),
        ("rain", 600, 60, 3),
    ];
    for (scenario, bodies, steps, every) in runs {
        let mut brute = simulation(scenario, bodies, "brute", &[]);
        brute.run(steps, |_, _| {});
        let mut sim = simulation(scenario, bodies, "auto", &[&format!("params.auto.force_every={every}")]);
        let mut expected = PairList::new();
        let mut used = std::collections::BTreeSet::new();
        sim.run(steps, |step, sim| {
            reference_pairs(sim.aabbs(), &mut expected);
            assert!(sorted(sim.pairs()) == expected, "auto on {scenario}: step {step} differs from brute force");
            used.insert(sim.broadphase().active_name());
        });
        assert_eq!(sim.state_hash(), brute.state_hash(), "auto on {scenario}: the run diverged from brute force's");
        let candidates = collide_algorithms::ALGORITHMS.len() - 3; // all but brute, pair-count and auto
        assert_eq!(used.len(), candidates, "auto on {scenario} ran {used:?}");
    }
}

#[test]
fn the_whole_tour_through_its_growth_and_doubling() {
    // 2100 steps: the cluster held at 64× the density, the slow drift, 90% at rest, one body in ten grown 8×,
    // and the count doubled through `on_resize`, response off as in configs/tour.toml.
    check_scenario_with("tour", 300, 7 * collide_sim::TOUR_PHASE_STEPS, &["resolution=false"]);
}

/// `pairs` sorted: the step leaves its pairs in the broadphase's order, the reference writes them sorted.
fn sorted(pairs: &PairList) -> PairList {
    let mut pairs = pairs.clone();
    pairs.sort();
    pairs
}
