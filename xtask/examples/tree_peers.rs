//! The tree broadphases beside their peers, interleaved frame by frame on the same recorded frames: the quick loop
//! behind the figures of issue 14 (the peers study runs each contender alone, one after another; this runs them
//! in turn on every frame, so that a load spike hits all of them, and repeats the recording with fresh instances).
//!
//! ```text
//! cargo run --release -p xtask --example tree_peers -- SCENE N [--frames F] [--warm W] [--reps R]
//!       [--only NAMES] [--vs NAME] [--hint] [--cache DIR]
//!   SCENE   a collide-sim scenario (slow, uniform, thesis, cluster, far-clusters, …)
//!   NAMES   registry names and the peers parry-bvh-rebuild, parry-bvh-refit, rstar-join, comma-separated
//!           (default: bvh-dynamic,lbvh,parry-bvh-refit,parry-bvh-rebuild)
//!   --vs    the contender the ratios are taken to (default: the last of --only)
//!   --log   print every frame's time and counters
//!   --hint  give our broadphases the recorded motion hint (`Frame::with_moved`); the peers study does not
//! ```
//!
//! The recording is the peers study's: a simulation of SCENE at N bodies (driver `octree-dup`, fixed dt, response
//! on) warmed up 10 steps (`cluster`: 100), then F frames (default 10) of boxes, motion flags and pair counts. W
//! frames (default 3) warm each contender up; the rest are timed around the pair query alone. Every repetition
//! builds every contender afresh. Each contender's pair count is checked against the recording's on every frame.
//!
//! For instruction counts run one contender under callgrind, collecting inside [`timed_find`] only:
//! `valgrind --tool=callgrind --toggle-collect='*timed_find*' target/release/examples/tree_peers slow 100000
//! --only bvh-dynamic --cache /tmp/rec` (`--cache` keeps the recording on disk, so that the simulation runs once,
//! outside valgrind).

#[allow(dead_code, clippy::all)]
#[path = "../src/bench/contenders.rs"]
mod contenders;

use collide_algorithms::{Params, find};
use collide_broadphase::{Broadphase, Frame, Pair, PairList};
use collide_math::{Aabb, Vec3};
use collide_sim::{Config, Simulation};
use contenders::Contender;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// One of ours with the motion hint.
struct Hinted {
    broadphase: Box<dyn Broadphase>,
    pairs: PairList,
}

/// A recorded sequence of frames.
struct Recording {
    boxes: Vec<Vec<Aabb>>,
    moved: Vec<Vec<bool>>,
    pairs: Vec<usize>,
}

fn record(scene: &str, n: usize, frames: usize) -> Recording {
    let cfg = Config { scenario: scene.into(), bodies: Some(n), algorithm: "octree-dup".into(), ..Config::default() };
    let mut sim = Simulation::new(&cfg).expect("a valid scene");
    let warm = if scene == "cluster" { 100 } else { 10 };
    for _ in 0..warm {
        sim.step(collide_timing::FRAME_60HZ);
    }
    let mut rec = Recording { boxes: Vec::new(), moved: Vec::new(), pairs: Vec::new() };
    for _ in 0..frames {
        sim.step(collide_timing::FRAME_60HZ);
        rec.boxes.push(sim.aabbs().to_vec());
        rec.moved.push(sim.moved().to_vec());
        rec.pairs.push(sim.pairs().len());
    }
    rec
}

/// The recording as raw little-endian words: frames, n, then per frame the pair count, n boxes and n flags.
fn save(rec: &Recording, path: &PathBuf) {
    let mut bytes = Vec::new();
    let mut word = |w: u32| bytes.extend_from_slice(&w.to_le_bytes());
    word(rec.boxes.len() as u32);
    word(rec.boxes[0].len() as u32);
    for f in 0..rec.boxes.len() {
        word(rec.pairs[f] as u32);
        for b in &rec.boxes[f] {
            for v in [b.min, b.max] {
                for a in 0..3 {
                    word(v[a].to_bits());
                }
            }
        }
        for &m in &rec.moved[f] {
            word(u32::from(m));
        }
    }
    std::fs::write(path, bytes).expect("write the recording");
}

fn load(path: &PathBuf) -> Option<Recording> {
    let bytes = std::fs::read(path).ok()?;
    let mut words = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let mut next = || words.next().expect("a whole recording");
    let (frames, n) = (next() as usize, next() as usize);
    let mut rec = Recording { boxes: Vec::new(), moved: Vec::new(), pairs: Vec::new() };
    for _ in 0..frames {
        rec.pairs.push(next() as usize);
        let mut v = || Vec3::new(f32::from_bits(next()), f32::from_bits(next()), f32::from_bits(next()));
        rec.boxes.push((0..n).map(|_| Aabb::new(v(), v())).collect());
        rec.moved.push((0..n).map(|_| next() != 0).collect());
    }
    Some(rec)
}

/// A contender as this harness runs it.
enum Runner {
    Peer(Box<dyn Contender>),
    Ours(Hinted, bool),
}

impl Runner {
    fn new(name: &str, hint: bool) -> Self {
        if let Some(p) = contenders::peers().into_iter().find(|p| p.name() == name) {
            return Self::Peer(p);
        }
        let a = find(name).expect("a registry name or a peer");
        Self::Ours(Hinted { broadphase: (a.build)(&Params::defaults(a.params)), pairs: PairList::new() }, hint)
    }

    fn find(&mut self, rec: &Recording, f: usize, out: &mut Vec<Pair>) -> usize {
        match self {
            Self::Peer(p) => {
                p.find(&rec.boxes[f], f as u64, out);
                out.len()
            }
            Self::Ours(o, hint) => {
                let frame = Frame::new(&rec.boxes[f]).with_step(f as u64);
                let frame = if *hint { frame.with_moved(&rec.moved[f]) } else { frame };
                o.broadphase.find_pairs(&frame, &mut o.pairs);
                o.pairs.len()
            }
        }
    }

    fn stats(&self) -> String {
        match self {
            Self::Peer(_) => String::new(),
            Self::Ours(o, _) => o.broadphase.stats().to_string(),
        }
    }
}

/// The pair query of one measured frame: the only code callgrind collects with `--toggle-collect='*timed_find*'`.
#[inline(never)]
fn timed_find(r: &mut Runner, rec: &Recording, f: usize, out: &mut Vec<Pair>) -> usize {
    black_box(r.find(rec, f, out))
}

/// A warm-up frame's query, kept apart from [`timed_find`] so that callgrind leaves it out.
#[inline(never)]
fn warm_find(r: &mut Runner, rec: &Recording, f: usize, out: &mut Vec<Pair>) -> usize {
    // `f` through `black_box`: otherwise the two functions are the same code, and the linker folds them into one.
    black_box(r.find(rec, black_box(f), out))
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() { f64::NAN } else { s[s.len() / 2] }
}

// The timings run on one of rayon's threads, as the simulation's steps do: from a thread outside the pool the
// parallel sections often run serially on a two-core machine (`collide_broadphase::parallel::on_worker`).
fn main() {
    collide_broadphase::parallel::on_worker(timed);
}

fn timed() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene = args.first().map_or("slow", String::as_str).to_owned();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let frames: usize = flag("--frames").and_then(|s| s.parse().ok()).unwrap_or(10);
    let warm: usize = flag("--warm").and_then(|s| s.parse().ok()).unwrap_or(3);
    let reps: usize = flag("--reps").and_then(|s| s.parse().ok()).unwrap_or(3);
    let only = flag("--only").unwrap_or_else(|| "bvh-dynamic,lbvh,parry-bvh-refit,parry-bvh-rebuild".into());
    let names: Vec<&str> = only.split(',').collect();
    let vs = flag("--vs").unwrap_or_else(|| names.last().expect("a contender").to_string());
    let hint = args.iter().any(|a| a == "--hint");
    let log = args.iter().any(|a| a == "--log");

    let rec = match flag("--cache") {
        Some(dir) => {
            let path = PathBuf::from(dir).join(format!("{scene}-{n}-{frames}.rec"));
            load(&path).unwrap_or_else(|| {
                let rec = record(&scene, n, frames);
                save(&rec, &path);
                rec
            })
        }
        None => record(&scene, n, frames),
    };
    let threads = rayon::current_num_threads();
    println!(
        "{scene} · {n} bodies · {frames} frames ({warm} warm-up) × {reps} repetitions · {threads} threads · hint {hint} \
         · mean pairs {:.0}",
        mean(&rec.pairs.iter().map(|&p| p as f64).collect::<Vec<_>>())
    );
    let mut ms: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut stats = vec![String::new(); names.len()];
    let mut out = Vec::new();
    for rep in 0..reps {
        let mut runners: Vec<Runner> = names.iter().map(|name| Runner::new(name, hint)).collect();
        for f in 0..frames {
            let k = runners.len();
            for j in 0..k {
                // The order rotates with the frame and the repetition: nobody always runs first on a cold cache.
                let c = (f + rep + j) % k;
                let t = Instant::now();
                let got = if f >= warm {
                    timed_find(&mut runners[c], &rec, f, &mut out)
                } else {
                    warm_find(&mut runners[c], &rec, f, &mut out)
                };
                let elapsed = t.elapsed().as_secs_f64() * 1e3;
                assert_eq!(
                    got, rec.pairs[f],
                    "{} frame {f}: {got} pairs, the recording has {}",
                    names[c], rec.pairs[f]
                );
                if f >= warm {
                    ms[c].push(elapsed);
                }
                if log {
                    println!("frame {f:4} {:<18} {elapsed:8.3} ms  {}", names[c], runners[c].stats());
                }
            }
        }
        for (c, r) in runners.iter().enumerate() {
            stats[c] = r.stats();
        }
    }
    let base = names.iter().position(|&x| x == vs).map(|c| (mean(&ms[c]), median(&ms[c])));
    for (c, name) in names.iter().enumerate() {
        let (m, p50) = (mean(&ms[c]), median(&ms[c]));
        let min = ms[c].iter().copied().fold(f64::INFINITY, f64::min);
        let ratio =
            base.map_or(String::new(), |(bm, bp)| format!("  ×{:.3} mean, ×{:.3} p50 of {vs}", m / bm, p50 / bp));
        println!("{name:<18} mean {m:8.3} ms  p50 {p50:8.3}  min {min:8.3}{ratio}");
        if !stats[c].is_empty() {
            println!("                   {}", stats[c]);
        }
    }
}
