//! Release-mode timing of the octrees on the workloads of the performance targets (a stand-in until the
//! `collide --headless` CLI exists).
//!
//! ```text
//! cargo run --release -p collide-octree --example octree_timing -- WORKLOAD N [VARIANTS] [--frames F] [--check] [--no-split]
//!       [--resting R] [--dense-repeat K] [--load FILE]
//!   WORKLOAD  thesis | uniform | cluster | rest (uniform with a fraction R of the bodies at rest, default 0.9)
//!   VARIANTS  dup,nodup,loose (default dup,nodup)
//!   --dense-repeat K  (cluster) find the dense moment's pairs K more times, untimed by the statistics, for a
//!             profiler; with --no-split, or the repeats see bodies at rest
//!   --load FILE  time the boxes saved in FILE instead (6 little-endian f32 per box, min then max), F times
//! ```
//!
//! It generates the boxes with `collide_math::Rng`, moves them frame by frame (fixed dt 1/60, bouncing off the
//! container walls), and times `find_pairs` only: mean, p95 and max over `F` frames (default 100) after 10
//! warm-up frames. `--check` compares the first and the last frame with the O(n²) `reference_pairs` (small n).
//!
//! Every line gives wall time and CPU time: the calling thread's, and the whole process's (all rayon workers,
//! summed from `/proc/self/task/*/schedstat`). With `RAYON_NUM_THREADS=1` the CPU time is the figure that does
//! not depend on what else the machine runs. rayon runs parallel sections on its pool threads, never on the
//! calling thread, so the main thread's CPU time is the serial part; `idle est.` = main + (all − main) / threads
//! is what the frame would take on an idle machine with that many cores (an upper bound: spinning workers count).
//!
//! `cluster` follows the sim's script (`collide-sim`'s `cluster` scenario): uniform spawn at speed W/10 per s;
//! at step 60 every body is sent toward the centre so that the cloud is 1/4 of its size at step 120 (64× the
//! density); there it is released with random velocities at W/10 per s. The dense moment is step 120.

use collide_broadphase::{Aabb, Broadphase, Frame, PairList, reference_pairs};
use collide_math::{Rng, Vec3};
use collide_octree::{Octree, OctreeConfig, Variant};
use std::time::Instant;

const WARMUP: usize = 10;

/// The cluster's pull starts at this step and lasts this many steps (as in `collide-sim`).
const PULL_AT: usize = 60;
const PULL_STEPS: usize = 60;

struct World {
    center: Vec<Vec3>,
    /// Displacement per step.
    velocity: Vec<Vec3>,
    half: f32,
    lo: Vec3,
    hi: Vec3,
    /// Units per second.
    speed: f32,
    rng: Rng,
    workload: String,
}

impl World {
    fn new(workload: &str, n: usize, resting: f64) -> Self {
        let mut rng = Rng::new(0x0C7_2EE);
        let (lo, hi, half, speed) = match workload {
            "thesis" => (Vec3::new(-2.0, -0.99, -2.0), Vec3::new(2.0, 2.0, 2.0), 0.01, 0.6),
            "uniform" | "cluster" | "rest" => {
                let w = (n as f32 * (4.0 / 3.0) * std::f32::consts::PI * 0.125 / 0.02).cbrt();
                let speed = if workload == "cluster" { w / 10.0 } else { w / 5.0 };
                (Vec3::ZERO, Vec3::splat(w), 0.5, speed)
            }
            other => panic!("unknown workload `{other}`: thesis | uniform | cluster | rest"),
        };
        let center: Vec<Vec3> = (0..n).map(|_| rng.point_in(lo + half, hi - half)).collect();
        let velocity = (0..n)
            .map(|i| {
                // Body i rests when the running count of resting bodies grows past an integer there.
                let rests = ((i + 1) as f64 * resting).floor() > (i as f64 * resting).floor();
                if workload == "rest" && rests { Vec3::ZERO } else { rng.unit_vector() * speed / 60.0 }
            })
            .collect();
        Self { center, velocity, half, lo, hi, speed, rng, workload: workload.to_owned() }
    }

    /// One fixed step (`frame` is the step number). `cluster` runs the sim's script first: the pull at
    /// `PULL_AT`, the release `PULL_STEPS` later.
    fn step(&mut self, frame: usize) {
        if self.workload == "cluster" {
            if frame == PULL_AT {
                let mid = (self.lo + self.hi) * 0.5;
                let k = 0.75 / (PULL_STEPS as f32 / 60.0) / 60.0;
                for (c, v) in self.center.iter().zip(&mut self.velocity) {
                    *v = (mid - *c) * k;
                }
            } else if frame == PULL_AT + PULL_STEPS {
                for v in &mut self.velocity {
                    *v = self.rng.unit_vector() * self.speed / 60.0;
                }
            }
        }
        for (c, v) in self.center.iter_mut().zip(&mut self.velocity) {
            *c += *v;
            for a in 0..3 {
                if c[a] < self.lo[a] + self.half || c[a] > self.hi[a] - self.half {
                    c[a] = c[a].clamp(self.lo[a] + self.half, self.hi[a] - self.half);
                    v[a] = -v[a];
                }
            }
        }
    }

    fn aabbs(&self, out: &mut Vec<Aabb>) {
        out.clear();
        out.extend(self.center.iter().map(|&c| Aabb::from_center_radius(c, self.half)));
    }
}

/// This thread's CPU time in ns (Linux), or `None`. With `RAYON_NUM_THREADS=1` all the work runs on this thread,
/// so this figure stays meaningful on a machine shared with other jobs, where wall time does not.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

/// CPU time of every thread of the process in ns (Linux), or `None`: the rayon workers included.
fn process_cpu_ns() -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let path = task.ok()?.path().join("schedstat");
        // A thread may end between the listing and the read; it then counts nothing.
        if let Ok(s) = std::fs::read_to_string(path) {
            total += s.split_whitespace().next()?.parse::<u64>().ok()?;
        }
    }
    Some(total)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

// The timings run on one of rayon's threads, as the simulation's steps do: from a thread outside the pool the
// parallel sections often run serially on a two-core machine (`collide_broadphase::parallel::on_worker`).
fn main() {
    collide_broadphase::parallel::on_worker(timed);
}

fn timed() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let flag_value = |name: &str| args.iter().position(|a| a == name).map(|i| args[i + 1].clone());
    let workload = positional.first().map_or("thesis", |s| s.as_str()).to_owned();
    let n: usize = positional.get(1).map_or(100_000, |s| s.parse().expect("N"));
    let variants = positional.get(2).map_or("dup,nodup", |s| s.as_str()).to_owned();
    let frames: usize = flag_value("--frames").map_or(100, |s| s.parse().expect("--frames F"));
    let check = args.iter().any(|a| a == "--check");
    let split = !args.iter().any(|a| a == "--no-split");
    let resting: f64 = flag_value("--resting").map_or(0.9, |s| s.parse().expect("--resting R"));
    // For profiling the dense moment alone: find its pairs this many extra times (not in the statistics).
    let dense_repeat: usize = flag_value("--dense-repeat").map_or(0, |s| s.parse().expect("--dense-repeat K"));
    println!(
        "workload={workload} n={n} frames={frames} warmup={WARMUP} static_split={split} resting={resting} threads={}",
        rayon::current_num_threads()
    );

    if let Some(path) = flag_value("--load") {
        return time_saved_frame(&path, &variants, frames);
    }
    for v in variants.split(',') {
        let mut bp = Octree::new(variant(v), OctreeConfig { static_split: split, ..OctreeConfig::default() });
        let mut world = World::new(&workload, n, resting);
        let (mut aabbs, mut out, mut want) = (Vec::new(), PairList::new(), PairList::new());
        let total = WARMUP + frames;
        let mut times = Vec::with_capacity(frames);
        let mut cpu_timeline = Vec::with_capacity(frames);
        let (mut cpu_ns, mut proc_ns) = (0u64, 0u64);
        let mut pairs = 0;
        for frame in 0..total {
            if frame > 0 {
                world.step(frame);
            }
            world.aabbs(&mut aabbs);
            let (proc0, cpu0) = (process_cpu_ns(), thread_cpu_ns());
            let t = Instant::now();
            bp.find_pairs(&Frame::new(&aabbs).with_step(frame as u64), &mut out);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if frame >= WARMUP {
                times.push(ms);
                if let (Some(a), Some(b)) = (cpu0, thread_cpu_ns()) {
                    cpu_ns += b - a;
                }
                if let (Some(a), Some(b)) = (proc0, process_cpu_ns()) {
                    proc_ns += b - a;
                    cpu_timeline.push((b - a) as f64 / 1e6);
                }
            }
            if workload == "cluster" && frame == PULL_AT + PULL_STEPS {
                let t = Instant::now();
                for _ in 0..dense_repeat {
                    bp.find_pairs(&Frame::new(&aabbs).with_step(frame as u64), &mut out);
                }
                if dense_repeat > 0 {
                    let each = t.elapsed().as_secs_f64() * 1e3 / dense_repeat as f64;
                    println!("  dense moment repeated {dense_repeat}×: {each:.3} ms each");
                }
                println!("  dense moment (step {frame}): {ms:.3} ms, {} pairs, stats: {}", out.len(), bp.stats());
            }
            pairs = out.len();
            if check && (frame == 0 || frame == total - 1) {
                reference_pairs(&aabbs, &mut want);
                out.sort();
                assert_eq!(out, want, "{v}: frame {frame} differs from the reference");
                println!("  {v}: frame {frame} matches reference_pairs ({} pairs)", want.len());
            }
        }
        let timeline = times.clone();
        times.sort_by(f64::total_cmp);
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        let median = percentile(&times, 0.5);
        let (main, all) = (cpu_ns as f64 / 1e6 / frames as f64, proc_ns as f64 / 1e6 / frames as f64);
        println!(
            "{:<13} wall mean {mean:8.3} ms  p95 {:8.3}  median {median:8.3}  max {:8.3} (max/median {:.1})  \
             cpu mean: main thread {main:.3} ms, all threads {all:.3} ms, idle est. {:.3} ms  pairs(last) {pairs}",
            bp.name(),
            percentile(&times, 0.95),
            times[times.len() - 1],
            times[times.len() - 1] / median,
            main + (all - main) / rayon::current_num_threads() as f64,
        );
        let dense = PULL_AT + PULL_STEPS;
        if workload == "cluster" && (WARMUP + 2..total - 2).contains(&dense) {
            let around = &timeline[dense - 2 - WARMUP..=dense + 2 - WARMUP];
            let cpu =
                cpu_timeline.get(dense - 2 - WARMUP..=dense + 2 - WARMUP).map_or(0.0, |c| c.iter().sum::<f64>() / 5.0);
            println!(
                "  dense moment (steps {}..={}): wall mean {:.3} ms, cpu (all threads) mean {cpu:.3} ms",
                dense - 2,
                dense + 2,
                around.iter().sum::<f64>() / 5.0
            );
        }
        println!("  stats(last): {}", bp.stats());
    }
}

/// `--load FILE`: find the pairs of the boxes stored in `FILE` (6 little-endian `f32` per box: min then max),
/// `frames` times after one warm-up call, with the static/dynamic split off; prints the fastest and the median
/// call. For profiling one frame of a real run (a dense moment, say) under `perf` or `valgrind` without
/// replaying the frames before it.
fn time_saved_frame(path: &str, variants: &str, frames: usize) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("--load {path}: {e}"));
    assert!(
        bytes.len().is_multiple_of(24),
        "--load {path}: {} bytes is not a whole number of boxes (24 bytes each)",
        bytes.len()
    );
    let f: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let aabbs: Vec<Aabb> =
        f.chunks_exact(6).map(|c| Aabb::new(Vec3::new(c[0], c[1], c[2]), Vec3::new(c[3], c[4], c[5]))).collect();
    for v in variants.split(',') {
        let mut bp = Octree::new(variant(v), OctreeConfig { static_split: false, ..OctreeConfig::default() });
        let mut out = PairList::new();
        bp.find_pairs(&Frame::new(&aabbs), &mut out);
        let mut times: Vec<f64> = (0..frames.max(1))
            .map(|_| {
                let t = Instant::now();
                bp.find_pairs(&Frame::new(&aabbs), &mut out);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{:<13} {} boxes: min {:.3} ms  median {:.3} ms  {} pairs  {}",
            bp.name(),
            aabbs.len(),
            times[0],
            percentile(&times, 0.5),
            out.len(),
            bp.stats()
        );
    }
}

fn variant(name: &str) -> Variant {
    match name {
        "dup" => Variant::Dup,
        "nodup" => Variant::Nodup,
        "loose" => Variant::Loose,
        other => panic!("unknown variant `{other}`: dup | nodup | loose"),
    }
}
