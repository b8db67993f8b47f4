//! Peers in the same run: parry's BVH (the broad phase rapier uses) and rstar's bulk-loaded R-tree self-join,
//! fed the same boxes as every registered broadphase, timed the same way, their pair sets checked on every frame;
//! the memory floor; peak memory per algorithm.
//!
//! For each size a driver simulation (thesis scene, fixed dt, response on) records a sequence of frames — boxes
//! and its sorted pairs. Then each contender runs alone over that sequence: its first frames warm it up (an
//! incremental structure builds itself), the rest are timed around the pair query alone (`find_pairs`, or the
//! peer's build + query), and every frame's pairs are compared with the recorded ones. Its peak heap above the
//! baseline is its memory (structures and output). Running contenders one after another, not interleaved, keeps
//! their caches and their allocation peaks apart.

use super::measure::{self, SeriesGuard};
use super::plot::{self, Chart, Series, Style};
use super::report::{self, Section};
use super::rows::{DtMode, Metric, Row};
use super::scaling::SCENARIO;
use super::{Ctx, alloc};
use collide_algorithms::{ALGORITHMS, Params};
use collide_broadphase::{Broadphase, Frame, Pair, PairList};
use collide_math::Aabb;
use collide_sim::Summary;
use std::time::Instant;

/// Something that finds the overlapping pairs of a frame's boxes.
pub trait Contender {
    /// The name in the CSV and on the plots.
    fn name(&self) -> String;
    /// Write every overlapping pair of `aabbs` into `out` (any order; the bench normalises and compares).
    fn find(&mut self, aabbs: &[Aabb], step: u64, out: &mut Vec<Pair>);
}

/// One of ours, through the trait.
struct Ours {
    broadphase: Box<dyn Broadphase>,
    pairs: PairList,
}

impl Contender for Ours {
    fn name(&self) -> String {
        self.broadphase.name().to_owned()
    }

    fn find(&mut self, aabbs: &[Aabb], step: u64, out: &mut Vec<Pair>) {
        self.broadphase.find_pairs(&Frame::new(aabbs).with_step(step), &mut self.pairs);
        out.clear();
        out.extend_from_slice(self.pairs.as_slice());
    }
}

fn parry_aabb(b: &Aabb) -> parry3d::bounding_volume::Aabb {
    use parry3d::math::Vector;
    parry3d::bounding_volume::Aabb::new(Vector::new(b.min.x, b.min.y, b.min.z), Vector::new(b.max.x, b.max.y, b.max.z))
}

/// parry's BVH rebuilt every frame (binned SAH build), then its self-traversal (BVTT). Leaf boxes are exact and
/// parry's node test is closed (`mins <= maxs`), like ours, so no filtering follows.
#[derive(Default)]
pub struct ParryRebuild {
    leaves: Vec<parry3d::bounding_volume::Aabb>,
    workspace: parry3d::partitioning::BvhWorkspace,
}

impl Contender for ParryRebuild {
    fn name(&self) -> String {
        "parry-bvh-rebuild".into()
    }

    fn find(&mut self, aabbs: &[Aabb], _: u64, out: &mut Vec<Pair>) {
        self.leaves.clear();
        self.leaves.extend(aabbs.iter().map(parry_aabb));
        let bvh =
            parry3d::partitioning::Bvh::from_leaves(parry3d::partitioning::BvhBuildStrategy::Binned, &self.leaves);
        out.clear();
        bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| out.push(Pair::new(a, b)));
    }
}

/// parry's BVH kept across frames the way rapier's `BroadPhaseBvh` maintains it: update every leaf in place,
/// refit, one round of incremental optimisation; then the full self-traversal. (Rapier itself traverses only
/// the changed leaves and keeps the older pairs; the full traversal gives the whole pair set to compare.)
#[derive(Default)]
pub struct ParryRefit {
    bvh: Option<parry3d::partitioning::Bvh>,
    workspace: parry3d::partitioning::BvhWorkspace,
}

impl Contender for ParryRefit {
    fn name(&self) -> String {
        "parry-bvh-refit".into()
    }

    fn find(&mut self, aabbs: &[Aabb], _: u64, out: &mut Vec<Pair>) {
        match &mut self.bvh {
            Some(bvh) if bvh.leaf_count() as usize == aabbs.len() => {
                for (i, b) in aabbs.iter().enumerate() {
                    bvh.insert_or_update_partially(parry_aabb(b), i as u32, 0.0);
                }
                bvh.refit(&mut self.workspace);
                bvh.optimize_incremental(&mut self.workspace);
            }
            _ => {
                let leaves: Vec<_> = aabbs.iter().map(parry_aabb).collect();
                self.bvh = Some(parry3d::partitioning::Bvh::from_leaves(
                    parry3d::partitioning::BvhBuildStrategy::Binned,
                    &leaves,
                ));
            }
        }
        out.clear();
        let bvh = self.bvh.as_ref().expect("built above");
        bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| out.push(Pair::new(a, b)));
    }
}

/// A box with its body index, as rstar stores it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    envelope: rstar::AABB<[f32; 3]>,
    index: u32,
}

impl rstar::RTreeObject for Entry {
    type Envelope = rstar::AABB<[f32; 3]>;
    fn envelope(&self) -> Self::Envelope {
        self.envelope
    }
}

/// rstar's R-tree bulk-loaded (OMT packing) every frame, then joined with itself
/// (`intersection_candidates_with_other_tree`), which yields each pair in both orders and every box with itself;
/// `a < b` keeps each pair once. rstar's envelope test is closed (`lower <= upper`), like ours.
#[derive(Default)]
pub struct RstarJoin {
    entries: Vec<Entry>,
}

impl Contender for RstarJoin {
    fn name(&self) -> String {
        "rstar-join".into()
    }

    fn find(&mut self, aabbs: &[Aabb], _: u64, out: &mut Vec<Pair>) {
        self.entries.clear();
        self.entries.extend(aabbs.iter().enumerate().map(|(i, b)| Entry {
            envelope: rstar::AABB::from_corners(b.min.to_array(), b.max.to_array()),
            index: i as u32,
        }));
        let tree = rstar::RTree::bulk_load(std::mem::take(&mut self.entries));
        out.clear();
        for (a, b) in tree.intersection_candidates_with_other_tree(&tree) {
            if a.index < b.index {
                out.push(Pair { a: a.index, b: b.index });
            }
        }
        // Keep the entry buffer's allocation for the next frame.
        self.entries = tree.iter().copied().collect();
    }
}

/// Every contender at body count `n`: ours from the registry (brute force only up to the limit), then the peers.
fn contenders(ctx: &Ctx, n: usize) -> Vec<Box<dyn Contender>> {
    let mut out: Vec<Box<dyn Contender>> = Vec::new();
    for a in ALGORITHMS {
        if a.name == "brute" && n > ctx.limits.brute_max {
            continue;
        }
        out.push(Box::new(Ours { broadphase: (a.build)(&Params::defaults(a.params)), pairs: PairList::new() }));
    }
    out.push(Box::<ParryRebuild>::default());
    out.push(Box::<ParryRefit>::default());
    out.push(Box::<RstarJoin>::default());
    out
}

/// The names [`contenders`] gives, for planning.
fn contender_names() -> Vec<String> {
    let mut v: Vec<String> = ALGORITHMS.iter().map(|a| a.name.to_owned()).collect();
    v.extend(["parry-bvh-rebuild", "parry-bvh-refit", "rstar-join"].map(String::from));
    v
}

/// A recorded sequence of frames.
struct Recording {
    boxes: Vec<Vec<Aabb>>,
    pairs: Vec<Vec<Pair>>,
    floor_ms: f64,
    driver: String,
    check: String,
}

/// Run the driver simulation at `n` and record `frames` frames after warm-up.
fn record(ctx: &Ctx, n: usize, frames: usize) -> Result<Recording, String> {
    let driver = ALGORITHMS.iter().find(|a| a.name != "brute").unwrap_or(&ALGORITHMS[0]);
    let cfg = measure::config(SCENARIO, n, None, driver, &Params::defaults(driver.params), false);
    let mut sim = measure::simulation(&cfg)?;
    for _ in 0..ctx.warmup() {
        sim.step(collide_timing::FRAME_60HZ);
    }
    let (mut boxes, mut pairs, mut floor) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..frames {
        sim.step(collide_timing::FRAME_60HZ);
        boxes.push(sim.aabbs().to_vec());
        pairs.push(sim.pairs().as_slice().to_vec());
        floor.push(measure::floor_ms(sim.aabbs()));
    }
    let check = if n <= ctx.limits.check_max {
        measure::verdict(&[measure::check_against_brute(sim.aabbs(), sim.pairs())])
    } else {
        "-".into()
    };
    Ok(Recording { boxes, pairs, floor_ms: Summary::of(&floor).p50, driver: driver.name.into(), check })
}

/// The peers study.
pub fn peers(ctx: &mut Ctx) -> Result<(), String> {
    let sizes = ctx.sizes();
    let (frames, warm) = if ctx.quick { (12, 3) } else { (36, 6) };
    let names = contender_names();
    ctx.progress.plan(sizes.len() * names.len());
    let mut guards: Vec<SeriesGuard> = names.iter().map(|_| SeriesGuard::new(&ctx.limits)).collect();
    let mut rows = Vec::new();
    for &n in &sizes {
        ctx.progress.start(&format!("peers: recording {frames} frames at n={n}"));
        let rec = record(ctx, n, frames)?;
        if rec.check.starts_with("MISMATCH") {
            ctx.mismatches.push(format!("peers driver {} n={n}: {}", rec.driver, rec.check));
        }
        let mut present: Vec<String> = Vec::new();
        for mut contender in contenders(ctx, n) {
            let name = contender.name();
            present.push(name.clone());
            let slot = names.iter().position(|x| *x == name).unwrap_or(0);
            let mut row = Row {
                study: "peers",
                series: name.clone(),
                scenario: SCENARIO.into(),
                algorithm: name.clone(),
                n,
                speed: 0.6,
                dt_mode: DtMode::Fixed,
                metric: Metric::Broadphase,
                warmup: warm,
                floor_ms: rec.floor_ms,
                check: "-".into(),
                status: "ok".into(),
                ..Row::default()
            };
            if let Some(why) = guards[slot].skip(n) {
                row.status = format!("skipped: {why}");
                rows.push(row);
                ctx.progress.finish_one();
                continue;
            }
            ctx.progress.start(&format!("peers: {name} n={n}"));
            let run = run_contender(ctx, contender.as_mut(), &rec, warm);
            drop(contender);
            guards[slot].record(n, Summary::of(&run.times).mean);
            row.frames = run.times.len();
            row.time = Summary::of(&run.times);
            row.broadphase_ms = row.time.mean;
            row.pairs = run.mean_pairs;
            row.peak_bytes = run.peak_bytes;
            row.check = run.check;
            row.status = run.status;
            rows.push(row);
            ctx.progress.finish_one();
        }
        for name in names.iter().filter(|x| !present.contains(x)) {
            rows.push(Row {
                study: "peers",
                series: name.clone(),
                algorithm: name.clone(),
                scenario: SCENARIO.into(),
                n,
                metric: Metric::Broadphase,
                check: "-".into(),
                status: format!("skipped: brute force runs only up to {} bodies", ctx.limits.brute_max),
                ..Row::default()
            });
            ctx.progress.finish_one();
        }
    }
    ctx.note_mismatches(&rows);
    ctx.write_rows("peers", &rows)?;
    charts(ctx, &rows, &names, &sizes)
}

/// What one contender did over a recording.
struct ContenderRun {
    /// ms of each measured frame.
    times: Vec<f64>,
    /// Mean pairs per measured frame.
    mean_pairs: f64,
    /// The pair-set verdict over every frame it ran.
    check: String,
    /// The peak heap it added above the baseline.
    peak_bytes: u64,
    /// `ok` or `short: …`.
    status: String,
}

/// Run one contender over the recording.
fn run_contender(ctx: &Ctx, c: &mut dyn Contender, rec: &Recording, warm: usize) -> ContenderRun {
    let baseline = alloc::reset_peak();
    let mut out = Vec::new();
    let (mut times, mut pairs, mut bad, mut first_bad) = (Vec::new(), 0.0, 0, None);
    let mut status = String::from("ok");
    let start = Instant::now();
    for (i, boxes) in rec.boxes.iter().enumerate() {
        let t = Instant::now();
        c.find(boxes, i as u64, &mut out);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = measure::diff(&rec.pairs[i], &mut out).into_result() {
            bad += 1;
            first_bad.get_or_insert(format!("frame {i}: {e}"));
        }
        if i >= warm {
            times.push(ms);
            pairs += out.len() as f64;
        }
        if ms > ctx.limits.frame_ms {
            status = format!("short: frame {i} took {ms:.0} ms > {:.0} ms limit", ctx.limits.frame_ms);
            break;
        }
        if i >= warm + 3 && start.elapsed() > ctx.limits.point * 2 {
            break;
        }
    }
    let peak = alloc::peak_above(baseline);
    let checked = times.len() + warm.min(rec.boxes.len());
    let verdict = match first_bad {
        Some(e) => format!("MISMATCH vs {} on {bad} frames, first {e}", rec.driver),
        None => format!("ref ok ({checked} frames vs {}; {})", rec.driver, rec.check),
    };
    let mean_pairs = pairs / times.len().max(1) as f64;
    ContenderRun { times, mean_pairs, check: verdict, peak_bytes: peak, status }
}

fn charts(ctx: &mut Ctx, rows: &[Row], names: &[String], sizes: &[usize]) -> Result<(), String> {
    let mut time = Chart::new(
        "Pair finding alone, same boxes for everyone: ours and peers, thesis scene, fixed dt",
        "bodies (log)",
        "broadphase time per frame, ms (log)",
    )
    .log(true, true);
    let mut floor = Chart::new(
        "The same as a multiple of the memory floor (reading the box array once)",
        "bodies (log)",
        "broadphase time / floor time (log)",
    )
    .log(true, true);
    let mut memory =
        Chart::new("Peak heap per algorithm (structures + output pairs)", "bodies (log)", "peak heap, bytes (log)")
            .log(true, true);
    for name in names {
        let mine: Vec<&Row> = rows.iter().filter(|r| &r.algorithm == name && r.measured()).collect();
        let style =
            if name.contains('-') && !ALGORITHMS.iter().any(|a| a.name == name) { Style::Dashed } else { Style::Line };
        let add = |chart: &mut Chart, f: &dyn Fn(&Row) -> f64| {
            let pts = mine.iter().map(|r| (r.n as f64, f(r))).collect();
            chart.series.push(Series { label: name.clone(), points: pts, style, color: None });
        };
        add(&mut time, &|r| r.time.mean);
        add(&mut floor, &|r| r.floor_multiple());
        add(&mut memory, &|r| r.peak_bytes as f64);
    }
    let floor_pts: Vec<(f64, f64)> = sizes
        .iter()
        .filter_map(|&n| rows.iter().find(|r| r.n == n && r.floor_ms > 0.0).map(|r| (n as f64, r.floor_ms)))
        .collect();
    time.series.push(Series::styled("memory floor", floor_pts, Style::Reference, plot::REFERENCE));
    let png = ctx.plot("peers", &[time, floor])?;
    let mem_png = ctx.plot("memory", &[memory])?;

    let mut header = vec!["algorithm".to_owned()];
    header.extend(sizes.iter().map(|&n| report::count(n)));
    header.push("pairs".into());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let cell = |name: &str, n: usize, f: &dyn Fn(&Row) -> String| {
        rows.iter().find(|r| r.algorithm == name && r.n == n && r.measured()).map_or("—".into(), f)
    };
    let time_rows = names.iter().map(|name| {
        let mut line = vec![format!("`{name}`")];
        line.extend(
            sizes
                .iter()
                .map(|&n| cell(name, n, &|r| format!("{} (×{:.0})", report::ms(r.time.mean), r.floor_multiple()))),
        );
        let checks: Vec<&str> = rows.iter().filter(|r| &r.algorithm == name).map(|r| r.check.as_str()).collect();
        line.push(report::check_summary(&checks));
        line
    });
    let time_table = report::table(&header, time_rows);
    let floor_line: Vec<String> = sizes
        .iter()
        .map(|&n| rows.iter().find(|r| r.n == n && r.floor_ms > 0.0).map_or("—".into(), |r| report::ms(r.floor_ms)))
        .collect();
    let mut mem_header = vec!["algorithm".to_owned()];
    mem_header.extend(sizes.iter().map(|&n| report::count(n)));
    let mem_header: Vec<&str> = mem_header.iter().map(String::as_str).collect();
    let mem_rows = names.iter().map(|name| {
        let mut line = vec![format!("`{name}`")];
        line.extend(sizes.iter().map(|&n| cell(name, n, &|r| report::bytes(r.peak_bytes))));
        line
    });
    let mem_table = report::table(&mem_header, mem_rows);
    let driver = ALGORITHMS.iter().find(|a| a.name != "brute").map_or("brute", |a| a.name);
    ctx.sections.push(Section {
        title: "Peers, the memory floor and peak memory".into(),
        body: format!(
            "Every contender runs alone over the same recorded frames (thesis scene, fixed dt, frames recorded \
             from a `{driver}` simulation after warm-up); mean ms per frame of the pair query, and in brackets its \
             multiple of the memory floor. Peers: `parry-bvh-rebuild` (parry 0.31 `Bvh::from_leaves`, binned, + \
             `traverse_bvtt_single_tree`), `parry-bvh-refit` (rapier's maintenance: update leaves, `refit`, \
             `optimize_incremental`, full traversal), `rstar-join` (rstar 0.13 `bulk_load` + \
             `intersection_candidates_with_other_tree`). Each frame's pairs are compared with the recorded pairs \
             (the driver's, itself checked against brute force up to {} bodies).\n\n{}\n\n{time_table}\nMemory \
             floor (ms per frame): {}.\n\n### Peak memory\n\n{}\n\n{mem_table}{}",
            ctx.limits.check_max,
            report::image(&png, "peers"),
            floor_line.join(", "),
            report::image(&mem_png, "memory"),
            report::stops(rows)
        ),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use collide_math::{Rng, Vec3};

    /// Boxes with touching faces and shared corners among random ones: the closed-interval cases.
    fn scene() -> Vec<Aabb> {
        let mut rng = Rng::new(7);
        let mut boxes: Vec<Aabb> = (0..300)
            .map(|_| Aabb::from_center_radius(rng.point_in(Vec3::splat(-5.0), Vec3::splat(5.0)), 0.3))
            .collect();
        boxes.push(Aabb::new(Vec3::ZERO, Vec3::ONE));
        boxes.push(Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0))); // shares a face
        boxes.push(Aabb::new(Vec3::ONE, Vec3::splat(2.0))); // shares a corner
        boxes.push(Aabb::new(Vec3::splat(0.5), Vec3::splat(0.5))); // a point inside
        boxes
    }

    #[test]
    fn peers_agree_with_brute_force_including_touching_boxes() {
        let boxes = scene();
        let mut truth = PairList::new();
        collide_broadphase::reference_pairs(&boxes, &mut truth);
        assert!(truth.contains(Pair::new(300, 301)) && truth.contains(Pair::new(300, 302)));
        let mut peers: Vec<Box<dyn Contender>> =
            vec![Box::<ParryRebuild>::default(), Box::<ParryRefit>::default(), Box::<RstarJoin>::default()];
        for peer in &mut peers {
            let mut out = Vec::new();
            // Twice: the refit peer takes its update path on the second call.
            for step in 0..2 {
                peer.find(&boxes, step, &mut out);
                let d = measure::diff(truth.as_slice(), &mut out);
                assert_eq!(d.into_result(), Ok(()), "{} step {step}", peer.name());
            }
        }
    }
}
