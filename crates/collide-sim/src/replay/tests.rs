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

fn config(text: &str) -> Config {
    Config::parse(text, "test.toml", &[]).unwrap()
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
    let mut sim = Simulation::new(&config(sim_config)).unwrap();
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
        let text =
            format!("scenario = \"replay\"\nreplay = \"{}\"\nalgorithm = \"{algorithm}\"\n{extra}", path.display());
        let mut replay = Replay::new(&config(&text)).unwrap();
        assert_eq!(replay.setup().frames, 24);
        for (f, (expected_boxes, expected_pairs)) in boxes.iter().zip(&pairs).enumerate() {
            let r = *replay.step().unwrap().expect("a frame");
            assert_eq!(r.frame, f as u64);
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
    let mut replay =
        Replay::new(&config(&format!("scenario = \"replay\"\nreplay = \"{}\"\n", path.display()))).unwrap();
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
    let error = |text: &str| Config::parse(text, "test.toml", &[]).unwrap_err().to_string();
    assert_eq!(
        error("scenario = \"replay\"\n"),
        "test.toml:1: scenario = \"replay\" needs the file: replay = \"FILE.aabbs\" (or --replay FILE)"
    );
    assert_eq!(error("replay = \"x.aabbs\"\n"), "test.toml:1: `replay` is read only with scenario = \"replay\"");
    let missing = dir.join("missing.aabbs");
    let e = error(&format!("scenario = \"replay\"\nreplay = \"{}\"\n", missing.display()));
    assert!(e.starts_with(&format!("{}: No such file", missing.display())), "{e}");
    let e = error(&format!("scenario = \"replay\"\nreplay = \"{}\"\nalgorithm = \"nope\"\n", path.display()));
    assert!(e.starts_with("test.toml:3: unknown algorithm `nope`"), "{e}");
    let e = error("scenario = \"replays\"\n");
    assert!(e.contains("valid scenarios: thesis,") && e.ends_with(", replay"), "{e}");
    // The frames to play: the file's, or fewer.
    let text = format!("scenario = \"replay\"\nreplay = \"{}\"\n", path.display());
    assert_eq!(config(&text).resolve_replay().unwrap().frames, 5);
    assert_eq!(config(&format!("{text}frames = 3\n")).resolve_replay().unwrap().frames, 3);
    assert_eq!(config(&format!("{text}frames = 300\n")).resolve_replay().unwrap().frames, 5);
    assert!(config(&text).resolve().is_err(), "a replay spawns no scene");
    assert!(Simulation::new(&config(&text)).is_err());
}
