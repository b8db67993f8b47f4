use super::*;
use crate::Simulation;
use collide_aabbs::Writer;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide-sim-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn plan(text: &str) -> Plan {
    Plan::parse(text, "test.toml", &[]).unwrap()
}

fn bits(boxes: &[Aabb]) -> Vec<[u32; 6]> {
    boxes.iter().map(|b| [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z].map(f32::to_bits)).collect()
}

/// Run `frames` steps of a simulation, writing every step's boxes to `path`; returns each step's boxes and
/// sorted pairs.
/// Per frame: every box's bits, and the sorted pairs.
type Recorded = (Vec<Vec<[u32; 6]>>, Vec<Vec<(u32, u32)>>);

fn sorted(mut pairs: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    pairs.sort_unstable();
    pairs
}

fn record(sim_config: &str, frames: usize, path: &std::path::Path) -> Recorded {
    let mut sim = Simulation::of(&plan(sim_config)).unwrap();
    let container = sim.setup().container;
    let mut writer = Writer::create(path, "collide test", "Spheres", sim.bodies().len(), container).unwrap();
    let (mut boxes, mut pairs) = (Vec::new(), Vec::new());
    for _ in 0..frames {
        sim.step(1.0 / 60.0);
        writer.write_frame(sim.aabbs()).unwrap();
        boxes.push(bits(sim.aabbs()));
        pairs.push(sorted(sim.pairs().iter().map(|p| (p.a, p.b)).collect()));
    }
    writer.finish().unwrap();
    (boxes, pairs)
}

#[test]
fn a_recorded_run_replays_with_the_same_boxes_and_pairs_frame_by_frame() {
    let dir = scratch("round-trip");
    let path = dir.join("run.aabbs");
    let (boxes, pairs) = record("scenario = \"cluster\"\nbodies = 800\nalgorithm = \"sap\"\n", 24, &path);
    // Replayed into another algorithm than the recording's, and into `auto` switching every 3 frames.
    for (algorithm, extra) in [("kd", ""), ("auto", "[params.auto]\nforce_every = 3\n")] {
        let text = format!("replay = \"{}\"\nalgorithm = \"{algorithm}\"\n{extra}", path.display());
        let mut replay = Replay::of(&plan(&text)).unwrap();
        assert_eq!(replay.setup().frames, 24);
        for (f, (expected_boxes, expected_pairs)) in boxes.iter().zip(&pairs).enumerate() {
            let r = *replay.step().unwrap().expect("a frame");
            assert_eq!(r.step, f as u64);
            assert_eq!(&bits(replay.aabbs()), expected_boxes, "{algorithm}: frame {f}: boxes bit for bit");
            // Each algorithm finds the pairs in its own order (the step does not sort them).
            let got = sorted(replay.pairs().iter().map(|p| (p.a, p.b)).collect());
            assert_eq!(&got, expected_pairs, "{algorithm}: frame {f}: the recorded run's pairs");
            assert_eq!(r.pairs, expected_pairs.len() as u64);
        }
        assert!(replay.step().unwrap().is_none(), "the end");
    }
}

#[test]
fn the_motion_hint_marks_exactly_the_boxes_that_changed() {
    let dir = scratch("hint");
    let path = dir.join("hint.aabbs");
    let a = Aabb::new(collide_math::Vec3::ZERO, collide_math::Vec3::ONE);
    let b = Aabb::new(collide_math::Vec3::splat(2.0), collide_math::Vec3::splat(3.0));
    let neg = Aabb::new(collide_math::Vec3::new(-0.0, 0.0, 0.0), collide_math::Vec3::ONE);
    let mut w = Writer::create(&path, "hint", "Cubes", 3, Aabb::new(a.min, b.max)).unwrap();
    for frame in [[a, b, a], [a, a, a], [a, a, neg], [a, a, neg]] {
        w.write_frame(&frame).unwrap();
    }
    w.finish().unwrap();
    let mut replay = Replay::of(&plan(&format!("replay = \"{}\"\n", path.display()))).unwrap();
    let mut hints = Vec::new();
    while replay.step().unwrap().is_some() {
        hints.push(replay.moved().to_vec());
    }
    // -0.0 and 0.0 compare equal but are other bits: the box changed.
    assert_eq!(hints, [vec![true; 3], vec![false, true, false], vec![false, false, true], vec![false; 3]]);
    replay.seek(1).unwrap();
    replay.step().unwrap().unwrap();
    assert_eq!(replay.moved(), [true; 3], "after a seek every box is moved");
    let sap = collide_algorithms::find("sap").unwrap();
    replay.set_algorithm(sap, Params::defaults(sap.params));
    replay.step().unwrap().unwrap();
    assert_eq!(replay.moved(), [true; 3], "a new broadphase has seen nothing");
}

#[test]
fn replay_configs_are_checked_like_any_other() {
    let dir = scratch("config");
    let path = dir.join("ok.aabbs");
    record("bodies = 50\n", 5, &path);
    let error = |text: &str| Plan::parse(text, "test.toml", &[]).unwrap_err().to_string();
    let missing = dir.join("missing.aabbs");
    let e = error(&format!("replay = \"{}\"\n", missing.display()));
    assert!(e.starts_with(&format!("{}: No such file", missing.display())), "{e}");
    let e = error(&format!("replay = \"{}\"\nalgorithm = \"nope\"\n", path.display()));
    assert!(e.starts_with("test.toml:2: unknown algorithm `nope`"), "{e}");
    let e = error(&format!("replay = \"{}\"\n[time]\ndt = 0\n", path.display()));
    assert!(e.starts_with("test.toml:3: time.dt = 0: must be a positive number"), "{e}");
    // "replay" is no scenario: the list of valid ones does not offer it.
    let e = error("scenario = \"replays\"\n");
    let valid = e.split_once("valid scenarios: ").map(|(_, list)| list).unwrap_or_default();
    assert!(valid.starts_with("thesis,") && !valid.contains("replay"), "{e}");
    // The frames to play: the file's, or fewer.
    let text = format!("replay = \"{}\"\n", path.display());
    assert_eq!(plan(&text).frames(), 5);
    assert_eq!(plan(&format!("{text}frames = 3\n")).frames(), 3);
    assert_eq!(plan(&format!("{text}frames = 300\n")).frames(), 5);
    // The scene keys are not read: a replay with a bad body count plays.
    assert_eq!(plan(&format!("{text}bodies = 0\nscenario = \"nope\"\n")).frames(), 5);
    let e = Simulation::of(&plan(&text)).err().expect("a replay spawns no scene").to_string();
    assert!(e.contains("spawns no scene") && !e.contains('\n'), "{e}");
    assert!(plan(&text).scene().is_err(), "a replay has no setup");
    let e = Replay::of(&plan("bodies = 5\n")).err().expect("a scene has no file to play").to_string();
    assert!(e.contains("replay = \"FILE.aabbs\"") && !e.contains('\n'), "{e}");
}

/// Configs written before `replay` chose the mode by itself said `scenario = "replay"` beside the file: they play
/// as before. The scenario alone gets one line saying what to write instead.
#[test]
fn old_replay_configs_play_or_say_what_to_write() {
    let dir = scratch("old");
    let path = dir.join("old.aabbs");
    record("bodies = 20\n", 4, &path);
    let old = format!("scenario = \"replay\"\nreplay = \"{}\"\nalgorithm = \"sap\"\n", path.display());
    let mut replay = Replay::of(&plan(&old)).unwrap();
    let mut frames = 0;
    while replay.step().unwrap().is_some() {
        frames += 1;
    }
    assert_eq!(frames, 4);
    let e = Plan::parse("bodies = 5\nscenario = \"replay\"\n", "old.toml", &[]).unwrap_err().to_string();
    assert_eq!(
        e,
        "old.toml:2: scenario = \"replay\" is not a scenario: a recorded file is played by replay = \"FILE.aabbs\" \
         (or --replay FILE), without a scenario line"
    );
    let e = Plan::parse("", "x", &["scenario=replay".to_owned()]).unwrap_err().to_string();
    assert!(e.starts_with("--set scenario=replay: scenario = \"replay\" is not a scenario") && !e.contains('\n'));
}

/// The pairs hash is over the sorted pairs: every algorithm gives the same, and a seek starts it again.
#[test]
fn every_algorithm_gives_the_same_pairs_hash() {
    let dir = scratch("hash");
    let path = dir.join("hash.aabbs");
    record("scenario = \"cluster\"\nbodies = 400\n", 8, &path);
    let hash = |algorithm: &str| {
        let mut replay =
            Replay::of(&plan(&format!("replay = \"{}\"\nalgorithm = \"{algorithm}\"\n", path.display()))).unwrap();
        replay.run(u64::MAX, |_, _| {}).unwrap();
        assert_eq!(replay.played(), 8);
        replay.pairs_hash()
    };
    let brute = hash("brute");
    assert_eq!(hash("sap"), brute);
    assert_eq!(hash("lbvh"), brute);
    let mut replay = Replay::of(&plan(&format!("replay = \"{}\"\n", path.display()))).unwrap();
    let fresh = replay.pairs_hash();
    replay.step().unwrap();
    assert_ne!(replay.pairs_hash(), fresh);
    replay.seek(0).unwrap();
    assert_eq!(replay.pairs_hash(), fresh);
}
