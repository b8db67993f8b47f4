//! Insta snapshots of sorted pair lists for small named scenes of the shared scenarios: a change in spawning,
//! stepping or overlap rules shows up as a readable diff.

use collide_sim::{Plan, Simulation};

fn pairs_after(scenario: &str, bodies: usize, steps: u64) -> String {
    let overrides = [format!("scenario={scenario}"), format!("bodies={bodies}"), "seed=3".into()];
    let mut sim = Simulation::of(&Plan::parse("", "test", &overrides).unwrap()).unwrap();
    sim.run(steps, |_, _| {});
    let mut text = format!("{scenario}, {bodies} bodies, after {steps} steps: {} pairs\n", sim.pairs().len());
    let mut pairs = sim.pairs().clone();
    pairs.sort(); // the step leaves them in the broadphase's order
    for p in &pairs {
        text.push_str(&format!("{} {}\n", p.a, p.b));
    }
    text
}

#[test]
fn thesis_5000_first_step() {
    insta::assert_snapshot!(pairs_after("thesis", 5000, 1));
}

#[test]
fn mixed_sizes_150_first_step() {
    insta::assert_snapshot!(pairs_after("mixed-sizes", 150, 1));
}

#[test]
fn power_law_150_first_step() {
    insta::assert_snapshot!(pairs_after("power-law", 150, 1));
}

#[test]
fn cluster_200_at_its_densest() {
    insta::assert_snapshot!(pairs_after("cluster", 200, 120));
}

#[test]
fn two_balls_meet_once() {
    let mut sim = Simulation::of(&Plan::parse("scenario = \"two-balls\"", "test", &[]).unwrap()).unwrap();
    sim.run(150, |_, _| {});
    let touching: Vec<String> = sim
        .records()
        .iter()
        .filter(|r| r.pairs > 0)
        .map(|r| format!("step {}: {} pair, {} contact", r.step, r.pairs, r.contacts))
        .collect();
    insta::assert_snapshot!(touching.join("\n"));
}
