//! Determinism: every scenario ends in the same state hash whatever the broadphase, however many threads it runs
//! on, and from one run to the next — and that hash is the golden one kept in the snapshot.
//!
//! Each scenario runs with brute force serially once (the reference hash, snapshotted per scenario), then with
//! every registered algorithm on local rayon pools of 1, 2 and 4 threads, each with every parallel section forced
//! on (the kit's `with_default_parallelism(0)`), so that the chunks, joins and parallel sorts run and are cut
//! differently per thread count. The sim sorts the pairs before the response, so identical pair sets must give
//! bit-identical runs; a hash that differs names the algorithm, the thread count and the scenario.
//!
//! Scenes with boxes ([`SHAPED`]: half spheres, half boxes, with and without friction and gravity) run the same
//! way, after the scenarios, and their golden hashes follow in the same snapshot.

use collide_broadphase::Parallelism;
use collide_broadphase::conformance::{in_pool, with_default_parallelism};
use collide_sim::{Plan, SCENARIOS, Simulation};

/// Bodies and steps of a scenario's run: its scripted phases whole (the tour's seven, the cluster's pull and
/// release) and a few steps more.
fn size_of_run(scenario: &collide_sim::ScenarioDescriptor) -> (usize, u64) {
    let steps = scenario.scripted_steps().unwrap_or(0) + 40;
    let bodies = if scenario.fixed_bodies {
        scenario.default_bodies
    } else if scenario.name == "tour" {
        200
    } else {
        700
    };
    (bodies, steps.max(150))
}

/// Scenes with boxes: a name for the snapshot and the config's overrides (700 bodies, 150 steps each).
const SHAPED: &[(&str, &[&str])] = &[
    ("uniform/mixed", &["scenario=uniform", "shape=mixed", "half_extents_spread=0.4"]),
    ("uniform/box μ0.4", &["scenario=uniform", "shape=box", "friction=0.4", "restitution=0.8"]),
    ("rain/mixed μ0.5", &["scenario=rain", "shape=mixed", "friction=0.5", "half_extents=[0.6,0.4,0.3]"]),
];

/// The final state hash of `scenario` with `algorithm`, built and run on a pool of `threads` threads with every
/// `Parallelism::default()` forced to `parallelism`.
fn hash(scenario: &str, bodies: usize, steps: u64, algorithm: &str, threads: usize, parallelism: Parallelism) -> u64 {
    hash_of(&[&format!("scenario={scenario}")], bodies, steps, algorithm, threads, parallelism)
}

/// [`hash`] of the config given by `overrides`.
fn hash_of(
    overrides: &[&str],
    bodies: usize,
    steps: u64,
    algorithm: &str,
    threads: usize,
    parallelism: Parallelism,
) -> u64 {
    let mut overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
    overrides.extend([format!("bodies={bodies}"), format!("algorithm={algorithm}")]);
    let plan = Plan::parse("", "determinism", &overrides).unwrap();
    in_pool(threads, || {
        with_default_parallelism(parallelism, || {
            let mut sim = Simulation::of(&plan).unwrap();
            sim.run(steps, |_, _| {});
            sim.state_hash()
        })
    })
}

#[test]
fn every_scenario_hashes_the_same_across_runs_algorithms_and_thread_counts() {
    let mut golden = String::new();
    for scenario in SCENARIOS {
        let (bodies, steps) = size_of_run(scenario);
        let reference = hash(scenario.name, bodies, steps, "brute", 1, Parallelism::SERIAL);
        assert_eq!(reference, hash(scenario.name, bodies, steps, "brute", 1, Parallelism::SERIAL), "same run twice");
        for d in collide_algorithms::ALGORITHMS {
            for threads in [1, 2, 4] {
                let got = hash(scenario.name, bodies, steps, d.name, threads, Parallelism::with_min_work(0));
                assert_eq!(
                    got, reference,
                    "{} on {} thread(s), scenario {} ({bodies} bodies, {steps} steps): the run diverged from brute \
                     force's",
                    d.name, threads, scenario.name
                );
            }
        }
        golden.push_str(&format!("{:<18} {bodies:>4} bodies {steps:>5} steps  {reference:016x}\n", scenario.name));
    }
    let (bodies, steps) = (700, 150);
    for (name, overrides) in SHAPED {
        let reference = hash_of(overrides, bodies, steps, "brute", 1, Parallelism::SERIAL);
        for d in collide_algorithms::ALGORITHMS {
            for threads in [1, 2, 4] {
                let got = hash_of(overrides, bodies, steps, d.name, threads, Parallelism::with_min_work(0));
                assert_eq!(
                    got, reference,
                    "{} on {threads} thread(s), {name}: the run diverged from brute force's",
                    d.name
                );
            }
        }
        golden.push_str(&format!("{name:<18} {bodies:>4} bodies {steps:>5} steps  {reference:016x}\n"));
    }
    insta::assert_snapshot!(golden);
}

/// Scenes whose bodies are sorted into spatial order every few steps (`reorder_every`): the sort's keys depend on
/// the positions alone, so the order, and the state, are the same for every broadphase and thread count. The
/// reorder changes the order in which contacts are solved, so a reordered run has its own golden hash: the rows
/// here, beside the same scene without reordering.
const REORDERED: &[(&str, &[&str])] = &[
    ("uniform", &["scenario=uniform"]),
    ("cluster", &["scenario=cluster"]),
    ("rain/mixed μ0.5", &["scenario=rain", "shape=mixed", "friction=0.5", "half_extents=[0.6,0.4,0.3]"]),
];

#[test]
fn reordered_scenes_hash_the_same_across_algorithms_and_thread_counts() {
    let mut golden = String::new();
    let (bodies, steps) = (700, 150);
    for (name, overrides) in REORDERED {
        let off: Vec<&str> = overrides.iter().copied().chain(["reorder_every=0"]).collect();
        let on: Vec<&str> = overrides.iter().copied().chain(["reorder_every=5"]).collect();
        let unordered = hash_of(&off, bodies, steps, "brute", 1, Parallelism::SERIAL);
        let reference = hash_of(&on, bodies, steps, "brute", 1, Parallelism::SERIAL);
        for d in collide_algorithms::ALGORITHMS {
            for threads in [1, 2, 4] {
                let got = hash_of(&on, bodies, steps, d.name, threads, Parallelism::with_min_work(0));
                assert_eq!(got, reference, "{} on {threads} thread(s), {name} reordered every 5 steps", d.name);
            }
        }
        golden.push_str(&format!(
            "{name:<18} {bodies:>4} bodies {steps:>5} steps  reordered {reference:016x}  not {unordered:016x}\n"
        ));
    }
    insta::assert_snapshot!(golden);
}

/// At the shipped threshold: scenes large enough that the step's own passes (bodies, narrowphase, resolution's
/// rounds) go parallel unforced end in the same hash on 1, 2 and 4 threads — `cluster` through its pull (tens
/// of thousands of contacts per step at its densest) and `rain` (bodies piling up on the floor). `grid` finds the
/// pairs (brute force would take minutes here); the other algorithms' pairs are the same set.
#[test]
fn large_scenes_hash_the_same_on_any_thread_count_at_the_shipped_threshold() {
    for (scenario, bodies, steps) in [("cluster", 30_000, 130), ("rain", 20_000, 90)] {
        let one = hash(scenario, bodies, steps, "grid", 1, Parallelism::default());
        for threads in [2, 4] {
            let got = hash(scenario, bodies, steps, "grid", threads, Parallelism::default());
            assert_eq!(got, one, "{scenario} ({bodies} bodies, {steps} steps) on {threads} threads");
        }
    }
    // Half of them boxes, with friction: the shape-dispatching narrowphase, the solver's spin path and the
    // rotation and wall passes past the threshold.
    let mixed = ["scenario=rain", "shape=mixed", "friction=0.5"];
    let one = hash_of(&mixed, 20_000, 90, "grid", 1, Parallelism::default());
    for threads in [2, 4] {
        assert_eq!(hash_of(&mixed, 20_000, 90, "grid", threads, Parallelism::default()), one, "{mixed:?} on {threads}");
    }
    // Reordered every 4 steps: the keys, the sort and the column gathers in parallel at the shipped threshold.
    let reordered = ["scenario=uniform", "shape=mixed", "reorder_every=4"];
    let one = hash_of(&reordered, 20_000, 40, "grid", 1, Parallelism::default());
    for threads in [2, 4] {
        let got = hash_of(&reordered, 20_000, 40, "grid", threads, Parallelism::default());
        assert_eq!(got, one, "{reordered:?} on {threads}");
    }
}

/// `tunnel` with continuous detection: the time-of-impact events are processed serially in `(t, pair)` order,
/// so every broadphase on 1, 2 and 4 threads ends in brute force's hash — with every parallel section forced and
/// at the shipped threshold. Spheres, and half of them boxes (box–box and sphere–box times of impact, the
/// spin response at the impacts).
#[test]
fn tunnel_with_ccd_hashes_the_same_across_algorithms_and_thread_counts() {
    for shape in ["shape=sphere", "shape=mixed"] {
        let hash_ccd = |algorithm: &str, threads: usize, parallelism: Parallelism| {
            let overrides = [
                "scenario=tunnel".to_owned(),
                "ccd=true".to_owned(),
                shape.to_owned(),
                format!("algorithm={algorithm}"),
            ];
            let plan = Plan::parse("", "determinism", &overrides).unwrap();
            in_pool(threads, || {
                with_default_parallelism(parallelism, || {
                    let mut sim = Simulation::of(&plan).unwrap();
                    sim.run(200, |_, _| {});
                    assert_eq!(sim.summary().tunnelled, 0, "{shape}: {algorithm} on {threads} thread(s)");
                    sim.state_hash()
                })
            })
        };
        let reference = hash_ccd("brute", 1, Parallelism::SERIAL);
        for d in collide_algorithms::ALGORITHMS {
            for threads in [1, 2, 4] {
                for parallelism in [Parallelism::with_min_work(0), Parallelism::default()] {
                    let got = hash_ccd(d.name, threads, parallelism);
                    assert_eq!(got, reference, "{shape}: {} on {threads} thread(s), {parallelism:?}", d.name);
                }
            }
        }
    }
}
