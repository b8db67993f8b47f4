//! Release-mode timing of the octrees on the workloads of the performance targets (a stand-in until the
//! `collide --headless` CLI exists).
//!
//! ```text
//! cargo run --release -p collide-octree --example octree_timing -- WORKLOAD N [VARIANTS] [--frames F] [--check] [--no-split]
//!   WORKLOAD  thesis | uniform | cluster | rest (uniform with 90% of bodies at rest)
//!   VARIANTS  dup,nodup,loose (default dup,nodup)
//! ```
//!
//! It generates the boxes with `collide_math::Rng`, moves them frame by frame (fixed dt 1/60, bouncing off the
//! container walls), and times `find_pairs` only: mean, p95 and max over `F` frames (default 100) after 10
//! warm-up frames. `--check` compares the first and the last frame with the O(n²) `reference_pairs` (small n).

use collide_broadphase::{Aabb, Broadphase, Frame, PairList, reference_pairs};
use collide_math::{Rng, Vec3};
use collide_octree::{Octree, OctreeConfig, Variant};
use std::time::Instant;

const WARMUP: usize = 10;

struct World {
    center: Vec<Vec3>,
    velocity: Vec<Vec3>,
    origin: Vec<Vec3>,
    half: f32,
    lo: Vec3,
    hi: Vec3,
    workload: String,
}

impl World {
    fn new(workload: &str, n: usize) -> Self {
        let mut rng = Rng::new(0x0C7_2EE);
        let (lo, hi, half, speed) = match workload {
            "thesis" => (Vec3::new(-2.0, -0.99, -2.0), Vec3::new(2.0, 2.0, 2.0), 0.01, 0.6),
            "uniform" | "cluster" | "rest" => {
                let w = (n as f32 * (4.0 / 3.0) * std::f32::consts::PI * 0.125 / 0.02).cbrt();
                (Vec3::ZERO, Vec3::splat(w), 0.5, w / 5.0)
            }
            other => panic!("unknown workload `{other}`: thesis | uniform | cluster | rest"),
        };
        let center: Vec<Vec3> = (0..n).map(|_| rng.point_in(lo + half, hi - half)).collect();
        let velocity = (0..n)
            .map(|i| if workload == "rest" && i % 10 != 0 { Vec3::ZERO } else { rng.unit_vector() * speed / 60.0 })
            .collect();
        Self { origin: center.clone(), center, velocity, half, lo, hi, workload: workload.to_owned() }
    }

    /// One fixed step. `cluster` scales the cloud towards the middle: 1 → 1/4 of its size (64× the density) at
    /// `frame == total / 2`, then back out, on top of the bodies' own motion.
    fn step(&mut self, frame: usize, total: usize) {
        for (c, v) in self.center.iter_mut().zip(&mut self.velocity) {
            *c += *v;
            for a in 0..3 {
                if c[a] < self.lo[a] + self.half || c[a] > self.hi[a] - self.half {
                    c[a] = c[a].clamp(self.lo[a] + self.half, self.hi[a] - self.half);
                    v[a] = -v[a];
                }
            }
        }
        if self.workload == "cluster" {
            let t = frame as f32 / total as f32;
            let s = 1.0 - 0.75 * (1.0 - (1.0 - 2.0 * t).abs());
            let mid = (self.lo + self.hi) * 0.5;
            for (c, o) in self.center.iter_mut().zip(&self.origin) {
                *c = mid + (*o - mid) * s;
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

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let flag_value = |name: &str| args.iter().position(|a| a == name).map(|i| args[i + 1].clone());
    let workload = positional.first().map_or("thesis", |s| s.as_str()).to_owned();
    let n: usize = positional.get(1).map_or(100_000, |s| s.parse().expect("N"));
    let variants = positional.get(2).map_or("dup,nodup", |s| s.as_str()).to_owned();
    let frames: usize = flag_value("--frames").map_or(100, |s| s.parse().expect("--frames F"));
    let check = args.iter().any(|a| a == "--check");
    let split = !args.iter().any(|a| a == "--no-split");
    println!(
        "workload={workload} n={n} frames={frames} warmup={WARMUP} static_split={split} threads={}",
        rayon::current_num_threads()
    );

    for v in variants.split(',') {
        let variant = match v {
            "dup" => Variant::Dup,
            "nodup" => Variant::Nodup,
            "loose" => Variant::Loose,
            other => panic!("unknown variant `{other}`"),
        };
        let mut bp = Octree::new(variant, OctreeConfig { static_split: split, ..OctreeConfig::default() });
        let mut world = World::new(&workload, n);
        let (mut aabbs, mut out, mut want) = (Vec::new(), PairList::new(), PairList::new());
        let total = WARMUP + frames;
        let mut times = Vec::with_capacity(frames);
        let mut cpu_ns = 0u64;
        let mut pairs = 0;
        for frame in 0..total {
            if frame > 0 {
                world.step(frame, total);
            }
            world.aabbs(&mut aabbs);
            let cpu0 = thread_cpu_ns();
            let t = Instant::now();
            bp.find_pairs(&Frame::new(&aabbs).with_step(frame as u64), &mut out);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if frame >= WARMUP {
                times.push(ms);
                if let (Some(a), Some(b)) = (cpu0, thread_cpu_ns()) {
                    cpu_ns += b - a;
                }
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
        println!(
            "{:<13} mean {mean:8.3} ms  p95 {:8.3}  median {median:8.3}  max {:8.3} (max/median {:.1})  pairs(last) {pairs}  main-thread cpu mean {:.3} ms",
            bp.name(),
            percentile(&times, 0.95),
            times[times.len() - 1],
            times[times.len() - 1] / median,
            cpu_ns as f64 / 1e6 / frames as f64,
        );
        if workload == "cluster" && frames >= 10 {
            // The dense moment is frame total/2; report the frames around it.
            let mid = total / 2 - WARMUP;
            let dense = &timeline[mid - 2..=mid + 2];
            println!("  dense moment (5 frames around the peak): mean {:.3} ms", dense.iter().sum::<f64>() / 5.0);
        }
        println!("  stats(last): {}", bp.stats());
    }
}
