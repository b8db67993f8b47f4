//! `kd` beside the octrees, in one process, on the same boxes: the side-by-side figures of the crate docs.
//!
//! ```text
//! cargo run --release -p collide-kdtree --example kd_compare -- WORKLOAD N [--frames F] [--only NAMES] [--params K=V,…]
//!   WORKLOAD  thesis | cluster | cluster-off (the cluster pulled to an off-centre point)
//!   --only    a comma-separated subset of kd, octree-dup, octree-nodup (default: all three)
//!   --params  kd parameters, e.g. max_leaf=16,period=0.2
//! ```
//!
//! The workloads follow `collide-sim`'s scenarios without collision response (the broadphase sees the same
//! kind of boxes; response only reshuffles velocities): `thesis` is the thesis program's container
//! (x, z ∈ [−2, 2], y ∈ [−0.99, 2]) with cubes of edge 0.02 at 0.6 units/s; `cluster` is bodies of radius 0.5 in
//! a cube sized for a 2% volume fraction, at width/10 per s, pulled at step 60 so that the cloud is a quarter
//! of its size at step 120, then released. Every frame each algorithm is timed on the same boxes, in an order
//! that rotates from frame to frame (no algorithm always runs first on a cold cache), and their pair counts are
//! compared: a mismatch aborts. The summary gives each one's mean, p50 and p95 over the frames after 10 of
//! warm-up, and its ratio to the best octree's mean — the figure the issue's targets are stated in.
//!
//! Beside the wall time it gives the calling thread's CPU time (Linux `schedstat`). With `RAYON_NUM_THREADS=1` all
//! the work runs on that thread, so this is the figure that does not depend on what else the machine runs.

use collide_broadphase::{Aabb, Broadphase, Frame, PairList, Params};
use collide_kdtree::KdTree;
use collide_math::{Rng, Vec3};
use collide_octree::Octree;
use std::time::Instant;

const WARMUP: usize = 10;
const PULL_AT: usize = 60;
const PULL_STEPS: usize = 60;
const DT: f32 = 1.0 / 60.0;

struct World {
    center: Vec<Vec3>,
    velocity: Vec<Vec3>,
    half: f32,
    lo: Vec3,
    hi: Vec3,
    speed: f32,
    rng: Rng,
    pull_to: Option<Vec3>,
}

impl World {
    fn new(workload: &str, n: usize) -> Self {
        let mut rng = Rng::new(0x0C7_2EE);
        let (lo, hi, half, speed) = match workload {
            "thesis" => (Vec3::new(-2.0, -0.99, -2.0), Vec3::new(2.0, 2.0, 2.0), 0.01, 0.6),
            "cluster" | "cluster-off" => {
                let w = (n as f32 * (4.0 / 3.0) * std::f32::consts::PI * 0.125 / 0.02).cbrt();
                (Vec3::ZERO, Vec3::splat(w), 0.5, w / 10.0)
            }
            other => panic!("unknown workload `{other}`: thesis | cluster | cluster-off"),
        };
        let pull_to = match workload {
            "cluster" => Some((lo + hi) * 0.5),
            "cluster-off" => Some(lo + (hi - lo) * Vec3::new(0.8, 0.3, 0.75)),
            _ => None,
        };
        let center: Vec<Vec3> = (0..n).map(|_| rng.point_in(lo + half, hi - half)).collect();
        let velocity = (0..n).map(|_| rng.unit_vector() * speed).collect();
        Self { center, velocity, half, lo, hi, speed, rng, pull_to }
    }

    fn step(&mut self, frame: usize) {
        if let Some(to) = self.pull_to {
            if frame == PULL_AT {
                let k = 0.75 / (PULL_STEPS as f32 * DT);
                for (c, v) in self.center.iter().zip(&mut self.velocity) {
                    *v = (to - *c) * k;
                }
            } else if frame == PULL_AT + PULL_STEPS {
                for v in &mut self.velocity {
                    *v = self.rng.unit_vector() * self.speed;
                }
            }
        }
        for (c, v) in self.center.iter_mut().zip(&mut self.velocity) {
            *c += *v * DT;
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

struct Contender {
    name: &'static str,
    broadphase: Box<dyn Broadphase>,
    out: PairList,
    ms: Vec<f64>,
    cpu_ms: Vec<f64>,
}

/// This thread's CPU time in ns (Linux), or `None`.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

fn kd_params(text: &str) -> Params {
    let given: Vec<(&str, f64)> = text
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("--params takes K=V pairs");
            (k, v.parse().expect("a number"))
        })
        .collect();
    Params::from_numbers(collide_kdtree::PARAMS, given).expect("valid kd parameters")
}

/// Mean, p50, p95 and the fastest of `ms`: on a busy machine the fastest frames are the ones nothing preempted.
fn summary(ms: &[f64]) -> (f64, f64, f64, f64) {
    let mut s = ms.to_vec();
    s.sort_by(f64::total_cmp);
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    (mean, s[s.len() / 2], s[(s.len() * 95 / 100).min(s.len() - 1)], s[0])
}

// The timings run on one of rayon's threads, as the simulation's steps do: from a thread outside the pool the
// parallel sections often run serially on a two-core machine (`collide_broadphase::parallel::on_worker`).
fn main() {
    collide_broadphase::parallel::on_worker(timed);
}

fn timed() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let workload = args.first().map_or("thesis", String::as_str).to_owned();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let frames: usize = flag("--frames").and_then(|s| s.parse().ok()).unwrap_or(300);
    let only = flag("--only").unwrap_or_else(|| "kd,octree-dup,octree-nodup".into());
    let params = kd_params(&flag("--params").unwrap_or_default());

    let mut contenders: Vec<Contender> = only
        .split(',')
        .map(|name| {
            let (name, broadphase): (&'static str, Box<dyn Broadphase>) = match name {
                "kd" => ("kd", Box::new(KdTree::from_params(&params))),
                "octree-dup" => ("octree-dup", Box::new(Octree::dup())),
                "octree-nodup" => ("octree-nodup", Box::new(Octree::nodup())),
                other => panic!("unknown contender `{other}`"),
            };
            Contender { name, broadphase, out: PairList::new(), ms: Vec::new(), cpu_ms: Vec::new() }
        })
        .collect();
    let mut world = World::new(&workload, n);
    let mut aabbs = Vec::new();
    let mut pairs = 0.0;
    for f in 0..frames {
        world.step(f);
        world.aabbs(&mut aabbs);
        let frame = Frame::new(&aabbs).with_step(f as u64).with_dt(DT);
        let k = contenders.len();
        for j in 0..k {
            let c = &mut contenders[(f + j) % k];
            let (t, cpu) = (Instant::now(), thread_cpu_ns());
            c.broadphase.find_pairs(&frame, &mut c.out);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if f >= WARMUP {
                c.ms.push(ms);
                if let (Some(a), Some(b)) = (cpu, thread_cpu_ns()) {
                    c.cpu_ms.push((b - a) as f64 * 1e-6);
                }
            }
        }
        let count = contenders[0].out.len();
        if let Some(c) = contenders.iter().find(|c| c.out.len() != count) {
            panic!("frame {f}: {} found {} pairs, {} found {count}", c.name, c.out.len(), contenders[0].name);
        }
        if f >= WARMUP {
            pairs += count as f64;
        }
    }
    let threads = rayon::current_num_threads();
    let measured = frames.saturating_sub(WARMUP).max(1);
    println!(
        "{workload} · {n} bodies · {measured} frames after {WARMUP} warm-up · {threads} threads · mean pairs {:.0}",
        pairs / measured as f64
    );
    let best = |of: fn(&Contender) -> &Vec<f64>| {
        contenders
            .iter()
            .filter(|c| c.name.starts_with("octree") && !of(c).is_empty())
            .map(|c| summary(of(c)).0)
            .fold(f64::INFINITY, f64::min)
    };
    let (best_octree, best_cpu) = (best(|c| &c.ms), best(|c| &c.cpu_ms));
    for c in &contenders {
        let (mean, p50, p95, min) = summary(&c.ms);
        let ratio = if best_octree.is_finite() {
            format!("  ×{:.2} of the best octree", mean / best_octree)
        } else {
            String::new()
        };
        println!("{:<13} mean {mean:7.3} ms  p50 {p50:7.3}  p95 {p95:7.3}  min {min:7.3}{ratio}", c.name);
        if !c.cpu_ms.is_empty() {
            let (cpu, ..) = summary(&c.cpu_ms);
            let ratio = if best_cpu.is_finite() { format!("  ×{:.2}", cpu / best_cpu) } else { String::new() };
            println!("              this thread's CPU: mean {cpu:7.3} ms{ratio}");
        }
        println!("              {}", c.broadphase.stats());
    }
}
