//! Scenes the replay study's tests write: a folder of its own per test, and a small `.aabbs` file.

use collide_aabbs::Writer;
use collide_math::{Aabb, Rng, Vec3};
use std::path::{Path, PathBuf};

/// A folder of its own for one test.
pub fn folder_for(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide-replay-bench-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `frames` frames of `n` boxes: every other body drifts, the rest keep their box bit for bit (the motion
/// hint's resting case), crowded enough for a few hundred pairs.
pub fn write_scene(dir: &Path, n: usize, frames: usize) -> PathBuf {
    let mut rng = Rng::new(11);
    let mut centers: Vec<Vec3> = (0..n).map(|_| rng.point_in(Vec3::splat(-8.0), Vec3::splat(8.0))).collect();
    let path = dir.join("drift.aabbs");
    let world = Aabb::new(Vec3::splat(-20.0), Vec3::splat(20.0));
    let mut writer = Writer::create(&path, "test drift", "Cubes", n, world).unwrap();
    for _ in 0..frames {
        for c in centers.iter_mut().step_by(2) {
            *c += Vec3::new(0.3, 0.1, -0.2);
        }
        let boxes: Vec<Aabb> = centers.iter().map(|&c| Aabb::from_center_radius(c, 0.7)).collect();
        writer.write_frame(&boxes).unwrap();
    }
    writer.finish().unwrap();
    path
}
