//! What the replay study writes: `replay.csv` (a row per file × contender: the common columns, then the file's
//! frames, the last quarter's mean and both ratios to the file's best), `replay-frames.csv` (every frame of every
//! play), a PNG per file (broadphase ms per frame by contender) and the report's section (a table per file, its
//! winner, and the winner of its last quarter — the "at rest" part of a settling scene), opened by a table of
//! issue 35's targets over every file.

use super::Ctx;
use super::contenders;
use super::plot::{Chart, Series, Style};
use super::replay_play::{EVERY_FRAME_MAX, Play, Scene, last_quarter_start, row};
use super::report::{self, Section};
use super::rows::{self, Row};
use std::fmt::Write as _;

/// The section's title.
const TITLE: &str = "Recorded scenes: every broadphase and the peers on `.aabbs` box streams";

/// One play's figures beside the file's best.
struct Line<'a> {
    play: &'a Play,
    row: Row,
    /// Mean ms over the last quarter of the file's frames, when the play reached them.
    last_quarter: Option<f64>,
    /// Mean over the best mean of the file.
    ratio: f64,
    /// Last-quarter mean over the best last-quarter mean of the file (NaN when not reached).
    last_ratio: f64,
}

/// Mean ms over the last quarter, when the play got to the file's end (a play stopped by a budget is not compared
/// there).
fn last_quarter(scene: &Scene, play: &Play) -> Option<f64> {
    let total = scene.header.frames;
    if play.frames.last() != Some(&(total - 1)) {
        return None;
    }
    let from = last_quarter_start(total);
    let ms: Vec<f64> = play.frames.iter().zip(&play.ms).filter(|(f, _)| **f >= from).map(|(_, ms)| *ms).collect();
    Some(ms.iter().sum::<f64>() / ms.len().max(1) as f64)
}

/// The lines of one file, their ratios filled in.
fn lines<'a>(scene: &Scene, plays: &'a [Play]) -> Vec<Line<'a>> {
    let mut lines: Vec<Line<'a>> = plays
        .iter()
        .map(|play| {
            let row = row(scene, play);
            Line { play, row, last_quarter: last_quarter(scene, play), ratio: f64::NAN, last_ratio: f64::NAN }
        })
        .collect();
    let best = lines.iter().filter(|l| l.row.measured()).map(|l| l.row.time.mean).fold(f64::INFINITY, f64::min);
    let best_last = lines.iter().filter_map(|l| l.last_quarter).fold(f64::INFINITY, f64::min);
    for l in &mut lines {
        l.ratio = if l.row.measured() { l.row.time.mean / best } else { f64::NAN };
        l.last_ratio = l.last_quarter.map_or(f64::NAN, |v| v / best_last);
    }
    lines
}

/// Write every file of the study and its report section.
pub fn write(ctx: &mut Ctx, results: &[(Scene, Vec<Play>)]) -> Result<(), String> {
    let mut csv = format!("{},file_frames,last_quarter_ms,ratio_to_best,last_quarter_ratio\n", rows::HEADER);
    let mut frames = String::from("file,algorithm,frame,broadphase_ms,pairs,active\n");
    let mut all_rows = Vec::new();
    let mut body = intro(ctx);
    let per_file: Vec<Vec<Line<'_>>> = results.iter().map(|(scene, plays)| lines(scene, plays)).collect();
    let means: Vec<(&str, Vec<(&str, f64)>)> = results
        .iter()
        .zip(&per_file)
        .map(|((scene, _), lines)| {
            let means = lines
                .iter()
                .map(|l| (l.play.name.as_str(), if l.row.measured() { l.row.time.mean } else { f64::NAN }))
                .collect();
            (scene.name.as_str(), means)
        })
        .collect();
    body.push_str(&targets(&means));
    for ((scene, plays), lines) in results.iter().zip(&per_file) {
        for l in lines {
            let _ = writeln!(
                csv,
                "{},{},{:.4},{:.4},{:.4}",
                rows::csv_line(&l.row),
                scene.header.frames,
                l.last_quarter.unwrap_or(f64::NAN),
                l.ratio,
                l.last_ratio
            );
            all_rows.push(l.row.clone());
        }
        for p in plays {
            let file = rows::escape(&scene.name);
            for (i, ms) in p.ms.iter().enumerate() {
                let (frame, pairs, active) = (p.frames[i], p.pairs[i], p.active[i]);
                let _ = writeln!(frames, "{file},{},{frame},{ms:.4},{pairs},{active}", p.name);
            }
        }
        let stem = scene.name.strip_suffix(".aabbs").unwrap_or(&scene.name);
        let png = ctx.plot(&format!("replay-{stem}"), &[chart(scene, plays)])?;
        body.push_str(&file_section(scene, lines, &png));
    }
    ctx.note_mismatches(&all_rows);
    ctx.write_text("replay.csv", &csv)?;
    ctx.write_text("replay-frames.csv", &frames)?;
    ctx.sections.push(Section { title: TITLE.into(), body });
    Ok(())
}

/// The study found no scenes in a full run: the report says why.
pub fn absent(ctx: &mut Ctx, why: &str) {
    let body =
        format!("Not run: {why}. Run `cargo xtask bench --study replay --scenes DIR` on a folder of `.aabbs` files.\n");
    ctx.sections.push(Section { title: TITLE.into(), body });
}

fn intro(ctx: &Ctx) -> String {
    format!(
        "Every `.aabbs` file of the scenes folder, played frame by frame into every registered broadphase through \
         `collide_sim::Replay` (what `collide --headless --replay FILE` runs: no physics, the exact motion hint, the \
         broadphase phase timed alone; brute force up to {} boxes) and into the peers as the peers study drives them \
         (each frame read untimed, the pair query timed), one contender after another in this process. The \
         statistics leave out the first frame (every structure is built cold there); *last quarter* is the mean \
         over the file's last quarter of frames (for a settling scene, the pile at rest), for the plays that got \
         there. Pair sets are compared with brute force (`reference_pairs`) on every frame up to {} boxes, above \
         that on frames spread evenly over the file (first and last included), as many as the check budget \
         affords. Per-frame times are in `replay-frames.csv` (with `auto`'s active candidate).\n",
        ctx.limits.brute_max, EVERY_FRAME_MAX
    )
}

/// Broadphase ms per frame by contender (log); the title says where the last quarter starts.
fn chart(scene: &Scene, plays: &[Play]) -> Chart {
    let h = &scene.header;
    let mut chart = Chart::new(
        format!(
            "Broadphase per frame: {} ({} boxes, `{}`; last quarter: frames {}–{})",
            scene.name,
            report::count(h.n as usize),
            h.scene_name,
            last_quarter_start(h.frames),
            h.frames.saturating_sub(1)
        ),
        "frame",
        "broadphase time, ms (log)",
    )
    .log(false, true);
    // A play stopped after its first frame is a single point that would only stretch the axis: the table has it.
    for p in plays.iter().filter(|p| p.ms.len() > 1) {
        let points = p.frames.iter().zip(&p.ms).filter(|(_, ms)| **ms > 0.0).map(|(f, ms)| (*f as f64, *ms)).collect();
        let style = if contenders::is_peer(&p.name) { Style::Dashed } else { Style::Line };
        chart.series.push(Series { label: p.name.clone(), points, style, color: None });
    }
    chart
}

/// One file's part of the section: what it is, its plot, its table, its winners.
fn file_section(scene: &Scene, lines: &[Line<'_>], png: &str) -> String {
    let h = &scene.header;
    let header = [
        "algorithm",
        "mean ms",
        "median",
        "p95",
        "last quarter ms",
        "pairs",
        "× best",
        "× best (last ¼)",
        "check",
        "status",
    ];
    let table = report::table(
        &header,
        lines.iter().map(|l| {
            let r = &l.row;
            let measured = |v: f64| if r.measured() { report::ms(v) } else { "—".into() };
            vec![
                format!("`{}`", l.play.name),
                measured(r.time.mean),
                measured(r.time.p50),
                measured(r.time.p95),
                l.last_quarter.map_or("—".into(), report::ms),
                format!("{:.0}", r.pairs),
                ratio(l.ratio),
                ratio(l.last_ratio),
                report::check_summary(&[r.check.as_str()]),
                r.status.clone(),
            ]
        }),
    );
    let mut s = format!(
        "\n### `{}`\n\n`{}` (scene `{}`, objects `{}`): {} boxes, {} frames; brute force checked {} of them; memory floor {} ms a \
         frame.\n\n{}\n\n{table}\n",
        scene.name,
        scene.path.display(),
        h.scene_name,
        h.objects_type,
        report::count(h.n as usize),
        h.frames,
        scene.truth.len(),
        report::ms(scene.floor_ms),
        report::image(png, &scene.name),
    );
    s.push_str(&winners(scene, lines));
    let rows: Vec<Row> = lines.iter().map(|l| l.row.clone()).collect();
    s.push_str(&report::stops(&rows));
    s
}

/// The peer every recorded scene is judged against: rapier's own broadphase, parry's BVH refitted every frame.
const REFIT: &str = "parry-bvh-refit";
/// Issue 35's targets on every recorded scene: collide's best at least this many times faster than [`REFIT`],
/// `bvh-dynamic` at least this many, and `auto` within this multiple of collide's best.
const BEST_OVER_REFIT: f64 = 3.0;
const TREE_OVER_REFIT: f64 = 1.5;
const AUTO_OVER_BEST: f64 = 1.15;

/// The targets' table: per file (name, every contender's mean ms, NaN when it did not play), collide's best
/// (`auto` aside), the refitted BVH, and the three ratios marked met or not. A file without the refitted BVH or
/// any of ours has dashes.
fn targets(files: &[(&str, Vec<(&str, f64)>)]) -> String {
    let rows = files.iter().map(|(file, means)| {
        let of = |name: &str| means.iter().find(|(n, _)| *n == name).map_or(f64::NAN, |(_, ms)| *ms);
        let ours = means
            .iter()
            .filter(|(n, ms)| ms.is_finite() && *n != collide_selector::NAME && !contenders::is_peer(n))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let (best_name, best) = ours.map_or(("—", f64::NAN), |&(n, ms)| (n, ms));
        let refit = of(REFIT);
        let (speedup, tree, auto) = (refit / best, refit / of("bvh-dynamic"), of(collide_selector::NAME) / best);
        vec![
            format!("`{file}`"),
            if best.is_finite() { format!("`{best_name}` {}", report::ms(best)) } else { "—".into() },
            if refit.is_finite() { report::ms(refit) } else { "—".into() },
            report::judged(speedup, Some(speedup >= BEST_OVER_REFIT)),
            report::judged(tree, Some(tree >= TREE_OVER_REFIT)),
            report::judged(auto, Some(auto <= AUTO_OVER_BEST)),
        ]
    });
    let header = [
        "file",
        "collide's best (mean ms)",
        "parry refit (mean ms)",
        "refit ÷ best (≥ 3)",
        "refit ÷ `bvh-dynamic` (≥ 1.5)",
        "`auto` ÷ best (≤ 1.15)",
    ];
    format!(
        "
**Issue 35's targets** (means over every frame but the first; collide's best leaves `auto` out):

{}
",
        report::table(&header, rows)
    )
}

fn ratio(v: f64) -> String {
    if v.is_finite() { format!("{v:.2}") } else { "—".into() }
}

/// The winner over the whole file and over its last quarter, and what `auto` ran there.
fn winners(scene: &Scene, lines: &[Line<'_>]) -> String {
    let best = |key: &dyn Fn(&Line<'_>) -> Option<f64>| {
        lines.iter().filter_map(|l| key(l).map(|v| (l, v))).min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let mut s = String::new();
    if let Some((l, v)) = best(&|l| l.row.measured().then_some(l.row.time.mean)) {
        let _ = write!(s, "Winner over the whole file: `{}` ({} ms a frame). ", l.play.name, report::ms(v));
    }
    let from = last_quarter_start(scene.header.frames);
    match best(&|l| l.last_quarter) {
        Some((l, v)) => {
            let _ = write!(
                s,
                "Last quarter (frames {from}–{}): `{}` ({} ms a frame).",
                scene.header.frames - 1,
                l.play.name,
                report::ms(v)
            );
        }
        None => s.push_str("No contender reached the last quarter."),
    }
    let auto = lines.iter().find(|l| l.play.name == collide_selector::NAME && l.last_quarter.is_some());
    if let Some(auto) = auto {
        let there: Vec<&'static str> =
            auto.play.frames.iter().zip(&auto.play.active).filter(|(f, _)| **f >= from).map(|(_, a)| *a).collect();
        let _ = write!(s, " `auto` ran {} there.", active_share(&there));
    }
    s.push('\n');
    s
}

/// `sap (80%), grid (20%)`: the candidates of `active`, most frequent first.
fn active_share(active: &[&'static str]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for a in active {
        match counts.iter_mut().find(|(n, _)| n == a) {
            Some((_, c)) => *c += 1,
            None => counts.push((a, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let total = active.len().max(1) as f64;
    counts.iter().map(|(n, c)| format!("`{n}` ({:.0}%)", *c as f64 * 100.0 / total)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
