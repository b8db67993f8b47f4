//! Release-mode timing of the grids beside `octree-dup` and `mbp`, in one process on the same boxes (ratios measured
//! side by side survive a shared machine; absolute figures do not), and a steady workload for
//! `valgrind --tool=callgrind` (`RAYON_NUM_THREADS=1` for one thread).
//!
//! ```text
//! cargo run --release -p collide-grid --example grid_timing -- SCENE N [ALGORITHMS] [--frames F] [--check]
//!       [--cell-factor C]
//!   SCENE       uniform | mixed | far-clusters | thesis
//!   ALGORITHMS  from grid, hgrid, octree-dup, mbp (default: grid,hgrid,octree-dup)
//! ```
//!
//! The scenes follow `collide-sim`'s: `uniform` is radius 0.5 in a cube sized for a 2% volume fraction, moving at
//! a fifth of the width per second; `mixed` the same with every tenth body 8× the radius; `far-clusters` eight
//! uniform clusters of an eighth of the bodies each, at the corners of a cube 1000 cluster widths across;
//! `thesis` cubes of edge 0.02 at 0.6 units/s in the thesis's 4 × 2.99 × 4 box. Bodies move in straight lines,
//! bouncing off the container (no collision response: the boxes are the same for every algorithm). Each
//! algorithm's `find_pairs` is timed alone over F frames (default 60) after 10 warm-up frames, the algorithms
//! interleaved frame by frame so that they meet the same load; `--check` compares the last frame with brute force.

use collide_broadphase::{Aabb, Broadphase, Frame, PairList, reference_pairs};
use collide_grid::{Grid, GridConfig, Kind};
use collide_math::{Rng, Vec3};
use collide_octree::Octree;
use std::time::Instant;

const WARMUP: usize = 10;

struct World {
    center: Vec<Vec3>,
    velocity: Vec<Vec3>,
    radius: Vec<f32>,
    lo: Vec3,
    hi: Vec3,
}

impl World {
    fn new(scene: &str, n: usize) -> Self {
        let mut rng = Rng::new(0x6A1D);
        let volume = |r: f32| 4.0 / 3.0 * std::f32::consts::PI * r * r * r;
        let cube = |n: usize, mean_volume: f32| (n as f32 * mean_volume / 0.02).cbrt();
        let mut world =
            Self { center: Vec::new(), velocity: Vec::new(), radius: Vec::new(), lo: Vec3::ZERO, hi: Vec3::ZERO };
        let spawn = |w: &mut Self, lo: Vec3, hi: Vec3, r: f32, speed: f32, rng: &mut Rng| {
            w.center.push(rng.point_in(lo + r, hi - r));
            w.velocity.push(rng.unit_vector() * speed / 60.0);
            w.radius.push(r);
        };
        match scene {
            "uniform" | "mixed" => {
                let mean = if scene == "mixed" { volume(0.5) * (0.9 + 0.1 * 512.0) } else { volume(0.5) };
                let width = cube(n, mean);
                (world.lo, world.hi) = (Vec3::splat(-width / 2.0), Vec3::splat(width / 2.0));
                for i in 0..n {
                    let r = if scene == "mixed" && i % 10 == 0 { 4.0 } else { 0.5 };
                    let (lo, hi) = (world.lo, world.hi);
                    spawn(&mut world, lo, hi, r, width / 5.0, &mut rng);
                }
            }
            "far-clusters" => {
                let width = cube(n / 8, volume(0.5));
                let span = 1000.0 * width;
                (world.lo, world.hi) = (Vec3::splat(-span / 2.0), Vec3::splat(span / 2.0));
                for i in 0..n {
                    let k = i % 8;
                    let corner = Vec3::new((k & 1) as f32, (k >> 1 & 1) as f32, (k >> 2) as f32) * (span - width);
                    let lo = world.lo + corner;
                    spawn(&mut world, lo, lo + width, 0.5, width / 5.0, &mut rng);
                }
            }
            "thesis" => {
                (world.lo, world.hi) = (Vec3::new(-2.0, -0.99, -2.0), Vec3::new(2.0, 2.0, 2.0));
                for _ in 0..n {
                    let (lo, hi) = (world.lo, world.hi);
                    spawn(&mut world, lo, hi, 0.01, 0.6, &mut rng);
                }
            }
            other => panic!("unknown scene `{other}`: uniform | mixed | far-clusters | thesis"),
        }
        world
    }

    fn step(&mut self) {
        for ((c, v), &r) in self.center.iter_mut().zip(&mut self.velocity).zip(&self.radius) {
            *c += *v;
            for k in 0..3 {
                if (c[k] - r < self.lo[k] && v[k] < 0.0) || (c[k] + r > self.hi[k] && v[k] > 0.0) {
                    v[k] = -v[k];
                }
            }
        }
    }

    fn boxes(&self, out: &mut Vec<Aabb>) {
        out.clear();
        out.extend(self.center.iter().zip(&self.radius).map(|(&c, &r)| Aabb::from_center_radius(c, r)));
    }
}

fn build(name: &str, cell_factor: Option<f32>) -> Box<dyn Broadphase> {
    let config =
        GridConfig { cell_factor: cell_factor.unwrap_or(GridConfig::default().cell_factor), ..GridConfig::default() };
    match name {
        "grid" => Box::new(Grid::new(Kind::Uniform, config)),
        "hgrid" => Box::new(Grid::new(Kind::Hierarchical, config)),
        "octree-dup" => Box::new(Octree::dup()),
        // The registry's defaults, as the app and the bench build it.
        "mbp" => Box::new(collide_sap::MultiBoxPruning::from_params(&collide_broadphase::Params::defaults(
            collide_sap::MBP_PARAMS,
        ))),
        other => panic!("unknown algorithm `{other}`: grid | hgrid | octree-dup | mbp"),
    }
}

// The timings run on one of rayon's threads, as the simulation's steps do: from a thread outside the pool the
// parallel sections often run serially on a two-core machine (`collide_broadphase::parallel::on_worker`).
fn main() {
    collide_broadphase::parallel::on_worker(timed);
}

fn timed() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with("--") && (*i == 0 || !["--frames", "--cell-factor"].contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| a)
        .collect();
    let scene = positional.first().map_or("uniform", |s| s.as_str());
    let n: usize = positional.get(1).map_or(100_000, |s| s.parse().expect("N is a count"));
    let names: Vec<&str> = positional.get(2).map_or("grid,hgrid,octree-dup", |s| s.as_str()).split(',').collect();
    let frames: usize = flag("--frames").map_or(60, |f| f.parse().expect("F is a count"));
    let mut world = World::new(scene, n);
    let cell_factor = flag("--cell-factor").map(|f| f.parse().expect("a number"));
    let mut algorithms: Vec<Box<dyn Broadphase>> = names.iter().map(|n| build(n, cell_factor)).collect();
    let (mut aabbs, mut out) = (Vec::new(), PairList::new());
    let mut times = vec![Vec::new(); names.len()];
    let mut pairs = vec![0; names.len()];
    for frame in 0..WARMUP + frames {
        world.step();
        world.boxes(&mut aabbs);
        for (a, bp) in algorithms.iter_mut().enumerate() {
            let t = Instant::now();
            bp.find_pairs(&Frame::new(&aabbs).with_step(frame as u64), &mut out);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if frame >= WARMUP {
                times[a].push(ms);
            }
            pairs[a] = out.len();
        }
    }
    if args.iter().any(|a| a == "--check") {
        let mut want = PairList::new();
        reference_pairs(&aabbs, &mut want);
        for (a, bp) in algorithms.iter_mut().enumerate() {
            bp.find_pairs(&Frame::new(&aabbs), &mut out);
            out.sort();
            assert!(out == want, "{}: {} pairs, brute force {}", names[a], out.len(), want.len());
        }
        println!("check: every algorithm equals brute force ({} pairs)", want.len());
    }
    let threads = rayon::current_num_threads();
    println!("{scene} · {n} bodies · {frames} frames after {WARMUP} warm-up · {threads} rayon threads");
    let first = times[0].iter().sum::<f64>() / frames as f64;
    for (a, name) in names.iter().enumerate() {
        let mean = times[a].iter().sum::<f64>() / frames as f64;
        let mut sorted = times[a].clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "{name:>11}: mean {mean:8.3} ms  p50 {:8.3}  max {:8.3}  ({:.2}× {})  pairs {}",
            sorted[frames / 2],
            sorted[frames - 1],
            mean / first,
            names[0],
            pairs[a]
        );
        println!("             {}", algorithms[a].stats());
    }
}
