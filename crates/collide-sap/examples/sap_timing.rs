//! Release-mode timing harness for the sweep-and-prune family, until `collide --headless` exists.
//!
//! ```text
//! cargo run --release -p collide-sap --example sap_timing -- ALGORITHM WORKLOAD N [FRAMES] [WARMUP]
//!   ALGORITHM  sap | sap-R (R regions per axis; sap-1 = the thesis's global arrays) | sap-pure | sap-pure-R
//!              | sort-sweep | mbp | mbp-R (R regions per axis) | pair-count
//!              (sap-pure = no swap budget; with the default auto regions unless -R is given)
//!   WORKLOAD   thesis | thesis-slow | uniform
//! ```
//!
//! It spawns the workload's boxes with `collide_math::Rng`, moves them with a fixed dt of 1/60 (bouncing off the
//! container walls), and times `find_pairs` alone: mean and p95 over FRAMES frames after WARMUP, as wall time and as
//! CPU time of all threads (the machine is shared; for serial algorithms the CPU time is the honest figure). For n ≤ 3000
//! every frame is checked against `reference_pairs`; for larger n the last frame is checked against another
//! algorithm of the crate (sort-and-sweep, or multi-box pruning when timing sort-and-sweep).
//!
//! Workloads (the thesis's, see the crate docs): `thesis` — container x∈[−2,2], y∈[−0.99,2], z∈[−2,2], cubes of
//! half extent 0.01 spawned uniformly inside, 0.6 units/s in a random direction; `thesis-slow` — the same at
//! 1/64 of the speed; `uniform` — half extent 0.5 in a cube of width W = ∛(n·(4/3)π·0.125/0.02), speed W/5.

use collide_broadphase::{Aabb, Broadphase, Frame, PairList, reference_pairs};
use collide_math::{Rng, Vec3};
use collide_sap::{MultiBoxPruning, PairCount, SortSweep, SweepAndPrune};
use std::time::Instant;

struct World {
    center: Vec<Vec3>,
    velocity: Vec<Vec3>,
    half: f32,
    lo: Vec3,
    hi: Vec3,
}

impl World {
    fn new(workload: &str, n: usize, seed: u64) -> Self {
        let (lo, hi, half, speed) = match workload {
            "thesis" | "thesis-slow" => {
                let speed = if workload == "thesis" { 0.6 } else { 0.6 / 64.0 };
                (Vec3::new(-2.0, -0.99, -2.0), Vec3::new(2.0, 2.0, 2.0), 0.01, speed)
            }
            "uniform" => {
                let w = (n as f32 * (4.0 / 3.0) * std::f32::consts::PI * 0.125 / 0.02).cbrt();
                (Vec3::ZERO, Vec3::splat(w), 0.5, w / 5.0)
            }
            other => panic!("unknown workload `{other}`: thesis | thesis-slow | uniform"),
        };
        let mut rng = Rng::new(seed);
        let center = (0..n).map(|_| rng.point_in(lo + Vec3::splat(half), hi - Vec3::splat(half))).collect();
        let velocity = (0..n).map(|_| rng.unit_vector() * speed).collect();
        Self { center, velocity, half, lo: lo + Vec3::splat(half), hi: hi - Vec3::splat(half) }
    }

    fn step(&mut self, dt: f32) {
        for (c, v) in self.center.iter_mut().zip(&mut self.velocity) {
            *c += *v * dt;
            for k in 0..3 {
                if c[k] < self.lo[k] || c[k] > self.hi[k] {
                    c[k] = c[k].clamp(self.lo[k], self.hi[k]);
                    v[k] = -v[k];
                }
            }
        }
    }

    fn aabbs(&self, out: &mut Vec<Aabb>) {
        out.clear();
        out.extend(self.center.iter().map(|&c| Aabb::from_center_radius(c, self.half)));
    }
}

/// CPU time of the whole process (all threads) in ms, summed from /proc/self/task/*/schedstat. The machine is
/// shared, so wall time includes waiting for a core; CPU time does not (but for parallel runs it is the sum over
/// threads, including rayon's brief spinning, not the wall time an idle machine would show).
fn process_cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return f64::NAN };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .sum::<f64>()
        / 1e6
}

fn make(name: &str) -> Box<dyn Broadphase> {
    match name {
        "sap" => Box::new(SweepAndPrune::default()),
        "sap-pure" => Box::new(SweepAndPrune::new(0.0)),
        other if other.starts_with("sap-") => {
            let (budget, r) = match other.strip_prefix("sap-pure-") {
                Some(r) => (0.0, r),
                None => (SweepAndPrune::DEFAULT_REBUILD_SWAPS_PER_BODY, &other[4..]),
            };
            Box::new(SweepAndPrune::with_regions(budget, r.parse().expect("sap-R: R regions per axis")))
        }
        "sort-sweep" => Box::new(SortSweep::new()),
        "mbp" => Box::new(MultiBoxPruning::new(0)),
        "pair-count" => Box::new(PairCount::new()),
        other => match other.strip_prefix("mbp-").and_then(|r| r.parse().ok()) {
            Some(r) => Box::new(MultiBoxPruning::new(r)),
            None => panic!("unknown algorithm `{other}`"),
        },
    }
}

// The timings run on one of rayon's threads, as the simulation's steps do: from a thread outside the pool the
// parallel sections often run serially on a two-core machine (`collide_broadphase::parallel::on_worker`).
fn main() {
    collide_broadphase::parallel::on_worker(timed);
}

fn timed() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: sap_timing ALGORITHM WORKLOAD N [FRAMES=100] [WARMUP=10]");
        std::process::exit(2);
    }
    let (alg, workload) = (args[0].as_str(), args[1].as_str());
    let n: usize = args[2].parse().expect("N");
    let frames: usize = args.get(3).map_or(100, |s| s.parse().expect("FRAMES"));
    let warmup: usize = args.get(4).map_or(10, |s| s.parse().expect("WARMUP"));
    let dt = 1.0 / 60.0;

    let mut world = World::new(workload, n, 0x5A9);
    let mut bp = make(alg);
    let mut aabbs = Vec::new();
    let mut out = PairList::new();
    let mut expected = PairList::new();
    let mut times = Vec::with_capacity(frames);
    let mut cpu_times = Vec::with_capacity(frames);
    let mut stat_sums: Vec<(&'static str, f64)> = Vec::new();
    let check_every_frame = n <= 3000;
    for frame in 0..warmup + frames {
        world.aabbs(&mut aabbs);
        let f = Frame::new(&aabbs).with_step(frame as u64).with_dt(dt);
        let cpu0 = process_cpu_ms();
        let t = Instant::now();
        bp.find_pairs(&f, &mut out);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let cpu = process_cpu_ms() - cpu0;
        if frame >= warmup {
            times.push(ms);
            cpu_times.push(cpu);
            for c in bp.stats().iter() {
                match stat_sums.iter_mut().find(|(name, _)| *name == c.name) {
                    Some(s) => s.1 += c.value,
                    None => stat_sums.push((c.name, c.value)),
                }
            }
        }
        if check_every_frame || frame + 1 == warmup + frames {
            if check_every_frame {
                reference_pairs(&aabbs, &mut expected);
            } else {
                let mut other = make(if alg == "sort-sweep" { "mbp" } else { "sort-sweep" });
                other.find_pairs(&f, &mut expected);
                expected.sort();
            }
            out.sort();
            assert_eq!(out, expected, "{alg} disagrees with the check at frame {frame}");
        }
        world.step(dt);
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let p95 = sorted[((sorted.len() as f64 * 0.95).ceil() as usize).saturating_sub(1)];
    let max = sorted.last().copied().unwrap_or(0.0);
    let cpu_mean = cpu_times.iter().sum::<f64>() / cpu_times.len() as f64;
    cpu_times.sort_by(f64::total_cmp);
    let cpu_p95 = cpu_times[((cpu_times.len() as f64 * 0.95).ceil() as usize).saturating_sub(1)];
    let stats: Vec<String> =
        stat_sums.iter().map(|(name, sum)| format!("{name}={:.0}", sum / times.len() as f64)).collect();
    println!(
        "{alg} {workload} n={n} frames={frames} warmup={warmup} threads={} mean_ms={mean:.3} p95_ms={p95:.3} max_ms={max:.3} cpu_mean_ms={cpu_mean:.3} cpu_p95_ms={cpu_p95:.3} pairs={} | mean {}",
        rayon::current_num_threads(),
        out.len(),
        stats.join(" ")
    );
}
