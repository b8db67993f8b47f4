//! Play a recorded `.aabbs` file through `bvh-dynamic` with the exact motion hint (as the bench's replay study
//! does) and print, per quarter of the file, the mean call time and the mean of each stat: where a frame goes.
//!
//! `cargo run -p collide-bvh --release --example replay_stats -- FILE [THREADS]`

use collide_aabbs::Reader;
use collide_broadphase::{Aabb, Broadphase, Frame, PairList, same_bits};
use collide_bvh::DynamicBvh;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(args.get(1).expect("a .aabbs file"));
    let threads = args.get(2).map_or(2, |t| t.parse().expect("a thread count"));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
    pool.install(|| {
        // `synth:N`: the `slow` scene's regime instead of a file — N unit cubes at 2% volume fraction drifting
        // width/320 a second at 60 calls a second, bouncing off the walls (seeded).
        let synth: Option<usize> = path.to_str().and_then(|p| p.strip_prefix("synth:")).map(|n| n.parse().expect("N"));
        let mut reader = if synth.is_some() { None } else { Some(Reader::open(path).expect("a readable file")) };
        let mut rng = collide_math::Rng::new(1);
        let n = synth.unwrap_or(0);
        let width = (n as f32 * 26.0).cbrt();
        let mut centers: Vec<collide_math::Vec3> =
            (0..n).map(|_| rng.point_in(collide_math::Vec3::ZERO, collide_math::Vec3::splat(width))).collect();
        let mut velocities: Vec<collide_math::Vec3> =
            (0..n).map(|_| rng.unit_vector() * (width / 320.0 / 60.0)).collect();
        let mut frames = 0;
        let hinted = std::env::var("NOHINT").is_err();
        let (mut boxes, mut previous, mut moved): (Vec<Aabb>, Vec<Aabb>, Vec<bool>) = Default::default();
        let env = |k: &str, d: f32| std::env::var(k).ok().map_or(d, |v| v.parse().expect("a number"));
        let d = collide_bvh::DynamicConfig::default();
        let config = collide_bvh::DynamicConfig {
            multiplier: env("MULT", d.multiplier),
            spread: env("SPREAD", d.spread),
            refit_max: env("REFIT_MAX", d.refit_max),
            join_share: env("JOIN", d.join_share),
            stream_ratio: env("RATIO", d.stream_ratio),
            streaming: env("STREAMING", 1.0) != 0.0,
            rebuild_share: env("SHARE", d.rebuild_share),
            horizon: env("HORIZON", d.horizon),
            max_reach: env("MAX_REACH", d.max_reach),
            margin: env("MARGIN", d.margin),
            ..d
        };
        let mut bp = DynamicBvh::with_config(config);
        let mut out = PairList::new();
        let mut rows: Vec<(f64, collide_broadphase::Stats, usize)> = Vec::new();
        loop {
            match &mut reader {
                Some(r) => {
                    if !r.read_frame(&mut boxes).expect("a frame") {
                        break;
                    }
                }
                None => {
                    if frames == 300 {
                        break;
                    }
                    boxes.clear();
                    boxes.extend(centers.iter().map(|&c| Aabb::from_center_radius(c, 0.5)));
                    for (c, v) in centers.iter_mut().zip(velocities.iter_mut()) {
                        *c += *v;
                        for a in 0..3 {
                            if c[a] < 0.0 || c[a] > width {
                                c[a] = c[a].clamp(0.0, width);
                                v[a] = -v[a];
                            }
                        }
                    }
                }
            }
            frames += 1;
            moved.clear();
            moved.extend(boxes.iter().enumerate().map(|(i, b)| previous.get(i).is_none_or(|p| !same_bits(p, b))));
            let t = Instant::now();
            let frame = Frame::new(&boxes);
            bp.find_pairs(&if hinted { frame.with_moved(&moved) } else { frame }, &mut out);
            rows.push((t.elapsed().as_secs_f64() * 1e3, bp.stats(), out.len()));
            std::mem::swap(&mut previous, &mut boxes);
        }
        let q = rows.len() / 4;
        for (k, part) in rows[1..].chunks(q.max(1)).enumerate() {
            let mean = |f: &dyn Fn(&(f64, collide_broadphase::Stats, usize)) -> f64| {
                part.iter().map(f).sum::<f64>() / part.len() as f64
            };
            let stat = |name: &'static str| mean(&|r| r.1.get(name).unwrap_or(0.0));
            println!(
                "part {k}: {:.3} ms, pairs {:.0}, cached {:.0}, reinserted {:.0}, refitted {:.2}, rebuilt {:.2}, \
                 new {:.0}, stale {:.0}, rotations {:.0}, tests {:.0}, height {:.0} streamed {:.2} scost {:.1} work {:.0}",
                mean(&|r| r.0),
                mean(&|r| r.2 as f64),
                stat("cached_pairs"),
                stat("reinserted"),
                stat("refitted"),
                stat("rebuilt"),
                stat("new_pairs"),
                stat("stale_pairs"),
                stat("rotations"),
                stat("pair_tests"),
                stat("height"),stat("streamed"),stat("stream_cost"), mean(&|r| (r.1.pair_tests + r.1.work) as f64),
            );
        }
        if std::env::var("TRACE").is_ok() {
            for (i, r) in rows.iter().enumerate() {
                println!(
                    "{i} {:.2} streamed {} rebuilt {} refitted {} moved {} cached {} scost {:.0} work {}",
                    r.0,
                    r.1.get("streamed").unwrap_or(0.0),
                    r.1.get("rebuilt").unwrap_or(0.0),
                    r.1.get("refitted").unwrap_or(0.0),
                    r.1.get("reinserted").unwrap_or(0.0),
                    r.1.get("cached_pairs").unwrap_or(0.0),
                    r.1.get("stream_cost").unwrap_or(0.0),
                    r.1.pair_tests + r.1.work
                );
            }
        }
        let all = rows[1..].iter().map(|r| r.0).sum::<f64>() / (rows.len() - 1) as f64;
        println!("mean {all:.3} ms over {} calls", rows.len() - 1);
    });
}
