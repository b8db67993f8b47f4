//! The committed rapier-baked scenes (`tests/fixtures/aabbs/rapier-*.aabbs`, made by `cargo xtask record-rapier`,
//! see the folder's README): boxes from a real rigid-body engine that nobody here wrote.
//!
//! Every fixture replays into every registered broadphase (`auto` included, also switching every few frames), and
//! each frame's pairs must equal brute force's `reference_pairs` on the same boxes — once with the shipped
//! parallelism, once on a pool of two threads with every parallel section forced on. The files must also pass
//! Broadmark's header checks (written out here from its C++, not our reader's) and show the scene they claim: the
//! free fall's pile ends lower and at rest, the brownian bodies move, and the gravity scene's bodies slosh in
//! more than one direction.

use collide_aabbs::{Header, Reader};
use collide_broadphase::conformance::{in_pool, with_default_parallelism};
use collide_broadphase::{PairList, Parallelism, reference_pairs};
use collide_math::{Aabb, Vec3};
use collide_sim::{Plan, Replay};
use std::path::PathBuf;

/// The fixtures, by scene.
const FIXTURES: [&str; 4] = ["rapier-free-fall", "rapier-brownian", "rapier-gravity", "rapier-avalanche"];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/aabbs").join(format!("{name}.aabbs"))
}

/// Every frame of a fixture, read with collide's streaming reader.
fn frames(name: &str) -> (Header, Vec<Vec<Aabb>>) {
    let mut reader = Reader::open(&fixture(name)).expect("a valid fixture");
    let mut out = Vec::new();
    let mut boxes = Vec::new();
    while reader.read_frame(&mut boxes).expect("valid boxes") {
        out.push(boxes.clone());
    }
    (reader.header().clone(), out)
}

fn bits(b: &Aabb) -> [u32; 6] {
    [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z].map(f32::to_bits)
}

/// Replay `name` into `algorithm` (with `extra` config lines) and check every frame: the boxes fed are the file's,
/// bit for bit, and the pairs are brute force's on them. Returns the pairs of every frame, summed.
fn replay_against_brute_force(name: &str, algorithm: &str, extra: &str, expected_frames: &[Vec<Aabb>]) -> usize {
    let text = format!("replay = \"{}\"\nalgorithm = \"{algorithm}\"\n{extra}", fixture(name).display());
    let plan = Plan::parse(&text, "rapier_fixtures.toml", &[]).expect("a valid replay config");
    let mut replay = Replay::of(&plan).expect("the fixture replays");
    let mut expected = PairList::new();
    let mut total = 0;
    for (f, file_boxes) in expected_frames.iter().enumerate() {
        replay.step().expect("no read error").unwrap_or_else(|| panic!("{name}: frame {f} is missing"));
        assert!(replay.aabbs().iter().map(bits).eq(file_boxes.iter().map(bits)), "{name} frame {f}: boxes");
        reference_pairs(replay.aabbs(), &mut expected);
        assert!(
            replay.pairs() == &expected,
            "{algorithm} on {name}: frame {f} has {} pairs, brute force {}",
            replay.pairs().len(),
            expected.len()
        );
        if let Err(e) = replay.broadphase().validate() {
            panic!("{algorithm} on {name}: frame {f}: validate() failed: {e}");
        }
        total += expected.len();
    }
    assert!(replay.step().expect("no read error").is_none(), "{name}: the replay ends with the file");
    total
}

#[test]
fn every_fixture_replays_into_every_algorithm_with_brute_forces_pairs() {
    for name in FIXTURES {
        let (_, expected_frames) = frames(name);
        for descriptor in collide_algorithms::ALGORITHMS {
            let total = replay_against_brute_force(name, descriptor.name, "", &expected_frames);
            // Resting piles and colliding bodies: the comparison is not between two empty sets.
            assert!(total >= expected_frames.len() * 10, "{name}: only {total} pairs in the whole replay");
        }
        // `auto` switching every 3 frames, so that every switch starts a candidate on a moved scene.
        replay_against_brute_force(name, "auto", "[params.auto]\nforce_every = 3\n", &expected_frames);
    }
}

#[test]
fn every_fixture_replays_with_brute_forces_pairs_with_every_parallel_section_on() {
    for name in FIXTURES {
        let (_, expected_frames) = frames(name);
        in_pool(2, || {
            with_default_parallelism(Parallelism::with_min_work(0), || {
                for descriptor in collide_algorithms::ALGORITHMS {
                    replay_against_brute_force(name, descriptor.name, "", &expected_frames);
                }
            });
        });
    }
}

/// Broadmark's `Scene` constructor and `ValidateHeader` and `ValidateFrame`, on the raw bytes: the size, the
/// names (1 to 127 printable characters, then only NULs), the counts, the padding, the world box and every box
/// (`min <= max`, `w = 0`). Returns `n` and the frame count (the header's `frames` plus the first).
fn broadmark_check(bytes: &[u8]) -> Result<(usize, usize), String> {
    let int = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    if bytes.len() <= 304 {
        return Err("too small".into());
    }
    let (n, frames) = (int(256), int(260));
    if n <= 0 || frames <= 0 {
        return Err(format!("n = {n}, frames = {frames}"));
    }
    if bytes.len() as i64 != 304 + 32 * i64::from(n) * (1 + i64::from(frames)) {
        return Err("the size does not match the header".into());
    }
    for name in [&bytes[..128], &bytes[128..256]] {
        let len = name.iter().position(|&c| c == 0).ok_or("a name without NUL")?;
        if len == 0 || name[..len].iter().any(|c| !(0x20..=0x7e).contains(c)) || name[len..].iter().any(|&c| c != 0) {
            return Err(format!("a bad name {:?}", String::from_utf8_lossy(name)));
        }
    }
    if int(264) != 0 || int(268) != 0 {
        return Err("padding".into());
    }
    for b in std::iter::once(&bytes[272..304]).chain(bytes[304..].chunks_exact(32)) {
        let f = |i: usize| f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        if !(f(0) <= f(4) && f(1) <= f(5) && f(2) <= f(6) && f(3) == 0.0 && f(7) == 0.0) {
            return Err("an invalid box".into());
        }
    }
    Ok((n as usize, frames as usize + 1))
}

#[test]
fn the_fixtures_pass_broadmarks_checks_and_are_small() {
    for name in FIXTURES {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let (n, frames) = broadmark_check(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!((100..=1000).contains(&n), "{name}: {n} bodies, a few hundred wanted");
        assert!((20..=60).contains(&frames), "{name}: {frames} frames, a few dozen wanted");
        assert!(bytes.len() <= 200 * 1024, "{name}: {} bytes", bytes.len());
        // Our reader agrees, and names the scene after the file.
        let (header, boxes) = self::frames(name);
        assert_eq!((header.n as usize, boxes.len()), (n, frames));
        assert_eq!(format!("rapier-{}", header.scene_name.trim_start_matches("rapier ")), name);
        assert!(boxes.iter().flatten().all(|b| header.world.contains(b)), "{name}: a box outside the world");
    }
}

/// The mean of the boxes' centres.
fn mean_centre(boxes: &[Aabb]) -> Vec3 {
    boxes.iter().map(Aabb::center).sum::<Vec3>() / boxes.len() as f32
}

/// Share of the bodies whose box is bit for bit the same in `a` and `b`.
fn unmoved(a: &[Aabb], b: &[Aabb]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| bits(x) == bits(y)).count() as f64 / a.len() as f64
}

/// The free fall's claim: the pile ends lower, and at rest.
fn free_fall_claim(header: &Header, frames: &[Vec<Aabb>]) -> Result<(), String> {
    let side = header.world.extents().y;
    let (first, last) = (&frames[0], &frames[frames.len() - 1]);
    let drop = mean_centre(first).y - mean_centre(last).y;
    if drop <= side / 4.0 {
        return Err(format!("the mean fell by {drop} in a world {side} high"));
    }
    // Most bodies end in the lower half of the world: the pile.
    let low = last.iter().filter(|b| b.center().y < header.world.center().y).count();
    if low as f64 <= 0.9 * last.len() as f64 {
        return Err(format!("{low} of {} bodies end in the lower half", last.len()));
    }
    // At rest: the last frames are bit for bit the same for most bodies (rapier's sleeping islands).
    let still = unmoved(&frames[frames.len() - 2], last);
    if still < 0.9 {
        return Err(format!("only {:.0}% of the boxes unchanged between the last two frames", 100.0 * still));
    }
    // And the first frames are not: the bodies fall.
    if unmoved(&frames[0], &frames[1]) >= 0.1 {
        return Err("the bodies do not fall at the start".into());
    }
    Ok(())
}

/// The brownian claim: the bodies keep moving, without drift.
fn brownian_claim(header: &Header, frames: &[Vec<Aabb>]) -> Result<(), String> {
    // From frame to frame most bodies move, and over the recording every body does.
    for (f, pair) in frames.windows(2).enumerate() {
        let still = unmoved(&pair[0], &pair[1]);
        if still >= 0.5 {
            return Err(format!("frame {f}: {:.0}% of the boxes did not move", 100.0 * still));
        }
    }
    let (first, last) = (&frames[0], &frames[frames.len() - 1]);
    if let Some(i) = first.iter().zip(last).position(|(a, b)| bits(a) == bits(b)) {
        return Err(format!("body {i} ends where it started"));
    }
    // No gravity: the bodies stay spread, their mean near where it started.
    let shift = (mean_centre(last) - mean_centre(first)).length();
    if shift >= header.world.extents().x / 10.0 {
        return Err(format!("the mean moved {shift}: brownian motion has no drift"));
    }
    Ok(())
}

/// The gravity scene's claim: the mean position sweeps more than one axis, and turns.
fn gravity_claim(header: &Header, frames: &[Vec<Aabb>]) -> Result<(), String> {
    let side = header.world.extents().x;
    let means: Vec<Vec3> = frames.iter().map(|f| mean_centre(f)).collect();
    let lo = means.iter().copied().reduce(Vec3::min).expect("frames");
    let hi = means.iter().copied().reduce(Vec3::max).expect("frames");
    let swept = (hi - lo).to_array();
    if swept.iter().filter(|&&d| d > side / 10.0).count() < 2 {
        return Err(format!("the mean position swept {swept:?} in a world {side} wide"));
    }
    // The motion of the first half and that of the second point different ways (more than 45° apart).
    let mid = means.len() / 2;
    let (a, b) = (means[mid] - means[0], means[means.len() - 1] - means[mid]);
    if a.normalize().dot(b.normalize()) >= std::f32::consts::FRAC_1_SQRT_2 {
        return Err(format!("the mean moved {a} then {b}: one direction"));
    }
    Ok(())
}

/// The avalanche's claim: one stream flowing down the ramp toward the far (`-x`) wall — the mean goes down and
/// toward `-x` by a fifth of the world each, further on every later frame, and nearly every body moves on every
/// frame.
fn avalanche_claim(header: &Header, frames: &[Vec<Aabb>]) -> Result<(), String> {
    let side = header.world.extents().x;
    let means: Vec<Vec3> = frames.iter().map(|f| mean_centre(f)).collect();
    let (first, last) = (means[0], means[means.len() - 1]);
    if first.x - last.x <= side / 5.0 || first.y - last.y <= side / 5.0 {
        return Err(format!("the mean went from {first} to {last} in a world {side} wide: not down toward -x"));
    }
    // Once flowing (the second half) the stream does not turn back.
    let half = means.len() / 2;
    if let Some(f) = (half..means.len() - 1).find(|&f| means[f + 1].x >= means[f].x) {
        return Err(format!("frame {f}: the mean turned back toward +x"));
    }
    for (f, pair) in frames.windows(2).enumerate() {
        let still = unmoved(&pair[0], &pair[1]);
        if still >= 0.1 {
            return Err(format!("frame {f}: {:.0}% of the boxes did not move", 100.0 * still));
        }
    }
    Ok(())
}

type Claim = fn(&Header, &[Vec<Aabb>]) -> Result<(), String>;

/// Each fixture with its scene's claim.
const CLAIMS: [(&str, Claim); 4] = [
    ("rapier-free-fall", free_fall_claim),
    ("rapier-brownian", brownian_claim),
    ("rapier-gravity", gravity_claim),
    ("rapier-avalanche", avalanche_claim),
];

#[test]
fn every_fixture_shows_the_scene_it_claims() {
    for (name, claim) in CLAIMS {
        let (header, frames) = frames(name);
        if let Err(e) = claim(&header, &frames) {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn the_claims_tell_the_scenes_apart() {
    // Each claim rejects the two other scenes: a check that passes everything would say nothing.
    for (name, _) in CLAIMS {
        let (header, frames) = frames(name);
        for (other, claim) in CLAIMS.into_iter().filter(|&(other, _)| other != name) {
            assert!(claim(&header, &frames).is_err(), "{other}'s claim accepts {name}");
        }
    }
}
