use super::*;
use collide_aabbs::Reader;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-record-rapier-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn args(scenes: &[&str], bodies: &[usize], steps: u64, every: u64, out: &Path, seed: u64) -> Args {
    Args {
        scenes: scenes.iter().map(|s| (*s).to_owned()).collect(),
        bodies: bodies.to_vec(),
        steps: Some(steps),
        every,
        out: Some(out.to_path_buf()),
        seed,
    }
}

#[test]
fn a_tiny_bake_of_every_scene_reads_back_valid_with_its_n_and_frame_count() {
    let dir = scratch("tiny");
    // 7 steps, a frame every 2: the initial boxes and steps 2, 4, 6.
    run(&args(&[], &[64], 7, 2, &dir, 3)).unwrap();
    for scene in Scene::ALL {
        let path = dir.join(format!("rapier-{}-64.aabbs", scene.name()));
        let mut reader = Reader::open(&path).unwrap();
        let header = reader.header().clone();
        assert_eq!((header.n, header.frames), (64, 4), "{}", path.display());
        assert_eq!(header.scene_name, format!("rapier {}", scene.name()));
        assert_eq!(header.objects_type, "Assorted");
        // Every box decodes and passes the reader's checks, and lies inside the header's world box.
        let mut boxes = Vec::new();
        let mut frames = 0;
        while reader.read_frame(&mut boxes).unwrap() {
            assert_eq!(boxes.len(), 64);
            assert!(boxes.iter().all(|b| header.world.contains(b)), "{scene:?} frame {frames}");
            frames += 1;
        }
        assert_eq!(frames, 4);
    }
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e.unwrap().path().to_string_lossy().ends_with(".partial")));
}

#[test]
fn one_seed_gives_identical_bytes_and_another_seed_does_not() {
    let (a, b, c) = (scratch("seed-a"), scratch("seed-b"), scratch("seed-c"));
    for (dir, seed) in [(&a, 7), (&b, 7), (&c, 8)] {
        run(&args(&["brownian", "free-fall"], &[64], 6, 1, dir, seed)).unwrap();
    }
    for name in ["rapier-brownian-64.aabbs", "rapier-free-fall-64.aabbs"] {
        let read = |dir: &PathBuf| std::fs::read(dir.join(name)).unwrap();
        assert!(read(&a) == read(&b), "{name}: two bakes with one seed differ");
        assert!(read(&a) != read(&c), "{name}: the seed changes nothing");
    }
}

#[test]
fn bodies_start_apart_and_inside_the_walls_at_awkward_counts() {
    // Counts just past a cube (65, 1001), tiny ones and a fixture's size: the lattice must fit all of them.
    for n in [1, 2, 9, 65, 300, 1001] {
        for scene in Scene::ALL {
            let world = build(scene, n, &mut Rng::new(5)).unwrap();
            let centres: Vec<Vec3> = world
                .bodies
                .iter()
                .map(|&(b, _)| {
                    let t = world.sim.bodies[b].translation();
                    Vec3::new(t.x, t.y, t.z)
                })
                .collect();
            assert_eq!(centres.len(), n);
            // Any two unit bodies whose centres are more than a cube's diagonal apart cannot touch.
            for (i, a) in centres.iter().enumerate() {
                for (j, b) in centres.iter().enumerate().skip(i + 1) {
                    assert!(a.distance(*b) > 3f32.sqrt(), "{scene:?} n={n}: bodies {i} and {j} start overlapping");
                }
            }
            let inside = world.bounds.expanded(-WORLD_SLACK);
            assert!(centres.iter().all(|c| inside.expanded(-3f32.sqrt() / 2.0).contains_point(*c)), "{scene:?} n={n}");
        }
    }
}

/// The avalanche's block starts on the upper half of the ramp, clear of it, and flows down as a stream: after
/// three seconds its bodies have moved toward the far wall and down, and every one of them is moving.
#[test]
fn the_avalanche_flows_down_the_ramp_toward_the_far_wall() {
    let n = 600;
    let mut world = build(Scene::Avalanche, n, &mut Rng::new(2)).unwrap();
    let side = world.bounds.extents().x - 2.0 * WORLD_SLACK;
    let centres = |world: &World| -> Vec<Vec3> {
        world
            .bodies
            .iter()
            .map(|&(b, _)| {
                let t = world.sim.bodies[b].translation();
                Vec3::new(t.x, t.y, t.z)
            })
            .collect()
    };
    let start = centres(&world);
    // Every body starts above the ramp's surface (by more than its circumscribed sphere) and on its upper half.
    for (i, c) in start.iter().enumerate() {
        assert!(c.y - ramp_height(c.x, side) > 3f32.sqrt() / 2.0, "body {i} at {c:?} starts in the ramp");
        assert!(c.x > 0.0, "body {i} at {c:?} starts on the lower half");
    }
    let mean = |cs: &[Vec3]| cs.iter().fold(Vec3::ZERO, |a, c| a + *c) / cs.len() as f32;
    let mut previous = start.clone();
    for _ in 0..180 {
        previous = centres(&world);
        world.sim.step();
    }
    let end = centres(&world);
    let (from, to) = (mean(&start), mean(&end));
    // Toward the far wall by at least a tenth of the world, and down.
    assert!(to.x < from.x - side / 10.0, "mean x {} -> {}", from.x, to.x);
    assert!(to.y < from.y - side / 10.0, "mean y {} -> {}", from.y, to.y);
    // A stream, not a pile at rest: every body moved on the last step.
    let still = end.iter().zip(&previous).filter(|(a, b)| a == b).count();
    assert_eq!(still, 0, "{still} bodies did not move on the last step");
}

#[test]
fn the_world_is_sized_for_ten_percent_density_once_the_lattice_allows_it() {
    for n in [1000, 10_000, 100_000] {
        let world = build(Scene::Brownian, n, &mut Rng::new(1)).unwrap();
        let side = world.bounds.extents().x - 2.0 * WORLD_SLACK;
        let body_volume = n as f32 * (1.0 + std::f32::consts::PI / 6.0) / 2.0;
        let density = body_volume / side.powi(3);
        assert!((density - DENSITY).abs() < 1e-3, "n={n}: density {density}");
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    let dir = scratch("bad");
    let e = run(&args(&["freefall"], &[64], 4, 1, &dir, 1)).unwrap_err();
    assert_eq!(e, "unknown scene `freefall`; valid scenes: free-fall, brownian, gravity, avalanche");
    let e = run(&args(&["brownian"], &[0], 4, 1, &dir, 1)).unwrap_err();
    assert!(e.starts_with("--bodies 0: a scene needs 1 to"), "{e}");
    let e = run(&args(&["brownian"], &[64], 4, 0, &dir, 1)).unwrap_err();
    assert_eq!(e, "--every 0: write a frame every 1 or more steps");
    let e = run(&args(&["brownian"], &[64], 3, 4, &dir, 1)).unwrap_err();
    assert_eq!(e, "--steps 3 with --every 4: a file needs at least one frame after the first");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing written");
}

/// The bench's `selector` study bakes a missing scene as `cargo xtask record-rapier --scene S --bodies N` would:
/// the subcommand's own defaults for everything else, and its default folder.
#[test]
fn a_default_bake_takes_the_subcommands_defaults() {
    let a = default_args("gravity", 100_000).unwrap();
    assert_eq!((a.scenes, a.bodies), (vec!["gravity".to_owned()], vec![100_000]));
    assert_eq!((a.steps, a.every, a.seed, a.out), (None, 1, 1, None));
    assert!(default_out().ends_with("target/rapier-scenes"));
}
