//! Churn through the simulation: every frame a tenth of the bodies go and as many new ones arrive
//! (`Simulation::churn`, one `on_resize` each time), for 1000 frames, on the `cluster` scene (its pull and release
//! included) and the `mixed-sizes` scene, with every registered algorithm — its pairs checked against brute force
//! and its `validate()` run every frame. The bodies that go are drawn anywhere in the index range, so that kept
//! bodies move to new indices every frame; the new ones arrive at the end.

use collide_broadphase::{PairList, reference_pairs};
use collide_math::Rng;
use collide_sim::{Plan, Simulation};

/// Frames per run.
const FRAMES: u64 = 1000;
/// Bodies per run.
const BODIES: usize = 500;

fn churn_run(scenario: &str, algorithm: &str) {
    let overrides = [format!("scenario={scenario}"), format!("bodies={BODIES}"), format!("algorithm={algorithm}")];
    let mut sim = Simulation::of(&Plan::parse("", "churn", &overrides).unwrap()).unwrap();
    let mut rng = Rng::new(0xC4_0123);
    let (mut expected, mut doomed) = (PairList::new(), Vec::new());
    let mut pairs_seen = 0;
    for frame in 0..FRAMES {
        if frame > 0 {
            // A tenth of the bodies, distinct, ascending.
            let n = sim.bodies().len();
            doomed.clear();
            doomed.extend((0..n as u32).filter(|_| rng.chance(0.1)));
            sim.churn(&doomed);
            assert_eq!(sim.bodies().len(), n, "as many arrive as go");
        }
        sim.step(1.0 / 60.0);
        reference_pairs(sim.aabbs(), &mut expected);
        assert!(
            sorted(sim.pairs()) == expected,
            "{algorithm} on {scenario}: frame {frame} has {} pairs, brute force {}",
            sim.pairs().len(),
            expected.len()
        );
        if let Err(e) = sim.broadphase().validate() {
            panic!("{algorithm} on {scenario}: frame {frame}: validate() failed: {e}");
        }
        pairs_seen += expected.len();
    }
    assert!(pairs_seen > FRAMES as usize, "{scenario}: the scene has pairs");
}

#[test]
fn a_tenth_of_the_bodies_replaced_every_frame_on_the_cluster_scene() {
    for d in collide_algorithms::ALGORITHMS {
        churn_run("cluster", d.name);
    }
}

#[test]
fn a_tenth_of_the_bodies_replaced_every_frame_on_the_mixed_sizes_scene() {
    for d in collide_algorithms::ALGORITHMS {
        churn_run("mixed-sizes", d.name);
    }
}

/// `pairs` sorted: the step leaves its pairs in the broadphase's order, the reference writes them sorted.
fn sorted(pairs: &PairList) -> PairList {
    let mut pairs = pairs.clone();
    pairs.sort();
    pairs
}
