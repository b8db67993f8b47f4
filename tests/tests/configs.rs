//! Every config shipped in `configs/` loads, checks and runs: a renamed key or scenario breaks this test
//! rather than a user's first run.

use collide_sim::{Plan, Simulation, Source};
use std::path::Path;

#[test]
fn every_shipped_config_loads_and_runs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let plan = Plan::load(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
        let Source::Scene(setup) = plan.source() else { panic!("{}: a shipped config is a scene", path.display()) };
        // The shipped body counts are for real runs; a few hundred bodies prove the config works.
        let small = if setup.scenario.fixed_bodies {
            plan
        } else {
            Plan::new(collide_sim::Config { bodies: Some(300), ..plan.into_config() }).unwrap()
        };
        let mut sim = Simulation::of(&small).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        sim.run(5, |_, _| {});
        assert!(!sim.records().is_empty(), "{}: no steps ran", path.display());
        seen += 1;
    }
    assert!(seen >= 10, "expected the default config and one per scenario, found {seen}");
    assert!(dir.join("default.toml").exists());
}
