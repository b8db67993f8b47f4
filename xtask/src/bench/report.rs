//! `report.md`: the machine and commit, the summary table, every study's section with its plots, the budget
//! stops, the pair-set verdicts, and how each figure was measured.

use super::machine::Machine;
use super::progress::format_duration;
use super::rows::Row;
use super::{Args, Ctx};
use std::fmt::Write as _;
use std::time::Duration;

/// One study's part of the report.
#[derive(Clone, Debug)]
pub struct Section {
    /// The heading.
    pub title: String,
    /// Markdown: text, tables, images.
    pub body: String,
}

/// Write `report.md` into the output folder; returns its file name.
pub fn write(ctx: &Ctx, m: &Machine, studies: &[&str], args: &Args, elapsed: Duration) -> Result<String, String> {
    let mut s = String::new();
    let mode = if ctx.quick { "quick (smoke test: small sizes, timings not for reports)" } else { "full" };
    let _ = writeln!(s, "# collide benchmark report — `{}`\n", m.name);
    let _ = writeln!(
        s,
        "| | |\n|---|---|\n| machine | `{}` |\n| CPU | {} |\n| cores | {} |\n| memory | {:.1} GiB |\n| commit | \
         `{}` |\n| compiler | {} |\n| mode | {mode} |\n| studies | {} |\n| algorithms | {} |\n| load at start | {} (1-min \
         average; the machine is shared, so read single figures as ±30%) |\n| wall time | {} |\n",
        m.name,
        m.cpu,
        m.cores,
        m.memory_gib,
        m.commit,
        m.rustc,
        studies.join(", "),
        collide_algorithms::names().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
        m.load,
        format_duration(elapsed),
    );
    let chosen = if args.studies.is_empty() { String::new() } else { format!(" --study {}", args.studies.join(",")) };
    let _ = writeln!(
        s,
        "Reproduce with `cargo xtask bench{}{}`. Every study has a CSV beside this file (one row per point: \
         algorithm, parameters, n, speed, frames, mean/p50/p95/p99/max ms, pairs, state hash, pair check, status).\n",
        if ctx.quick { " --quick" } else { "" },
        chosen
    );
    if ctx.mismatches.is_empty() {
        s.push_str("**Pair sets:** every checked pair set matched (see the `check` column of each CSV).\n\n");
    } else {
        let _ = writeln!(s, "**PAIR-SET MISMATCHES ({}):**\n", ctx.mismatches.len());
        for line in &ctx.mismatches {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
    }
    if !ctx.failures.is_empty() {
        let _ = writeln!(s, "**RUNS THAT FAILED ({}):**\n", ctx.failures.len());
        for line in &ctx.failures {
            let _ = writeln!(s, "- {line}");
        }
        s.push('\n');
    }
    if !ctx.summary.is_empty() {
        let _ = writeln!(s, "## Summary\n\n{}\n", ctx.summary);
    }
    for section in &ctx.sections {
        let _ = writeln!(s, "## {}\n\n{}\n", section.title, section.body.trim_end());
    }
    s.push_str(METHOD);
    let name = "report.md";
    std::fs::write(ctx.out.join(name), s).map_err(|e| format!("cannot write report.md: {e}"))?;
    Ok(name.into())
}

/// How the numbers were taken, once for all studies.
const METHOD: &str = "## How these numbers were taken

- **Builds and runs.** `cargo xtask bench` is the release profile (opt-level 3, thin LTO), one process, studies one \
after another on the calling thread (an algorithm may use more threads itself). Each point builds a fresh \
simulation from the scenario registry, runs warm-up steps, then measures steps until its time budget, its frame \
limit or its step cap. The `selector` study is the exception: each of its runs is a process of its own, timed from \
frame 0 without warm-up (its section says how).
- **Times.** `step` rows time the whole simulation step (the thesis's measure: move, broadphase, narrowphase, \
response, walls); `broadphase` rows time pair finding alone on boxes recorded from a simulation (peers and side-by-side \
studies) or read from a `.aabbs` file (replay study: ours through `collide_sim::Replay`, its broadphase phase; the peers around their query); \
`dt` rows (feedback loop) are the simulated dt, i.e. the previous frame's wall time. Statistics are over the \
measured steps (nearest-rank percentiles). Relative dt = ms / 16.67.
- **Fixed dt** of 1/60 s everywhere except the SAP feedback study, where dt is the real elapsed time, uncapped.
- **Memory floor.** The time to read the frame's box array once (all six coordinates of every box, summed so the \
reads are kept), the median of five passes, measured in the same run on the same boxes. `floor_multiple` = mean / \
floor.
- **Peak memory.** A counting global allocator in the bench process keeps the live heap bytes and their peak; a \
point's `peak_bytes` is the peak minus the live heap when the point started. For simulation points that includes \
the bodies, records and buffers of the simulation; in the peers study it is the algorithm alone (its structures \
and its output pairs) running over the recorded frames.
- **Pair checks.** Up to the mode's check size, the pair set of the step after warm-up and of the last step is \
compared with `reference_pairs` (brute force, closed intervals). At every size, each point's state hash (all \
positions and velocities) after the same step is compared across algorithms: a different pair set changes the \
response and so the hash. Peers' pair sets, and every side-by-side contender's, are compared with the recorded ones on every frame. In the replay study every \
contender's pairs are compared with `reference_pairs` on every frame up to 2000 boxes, on evenly spread frames above.
- **Budgets.** A series (one algorithm in one study) stops growing n once a step's mean exceeds the frame limit, \
once a linear extrapolation from its last point would, or once it has spent its time budget; such points are rows \
with `status = skipped: …`. A point whose single step exceeds the frame limit ends early (`short: …`).
";

/// A markdown table.
#[must_use]
pub fn table(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut s = format!("| {} |\n|{}\n", header.join(" | "), "---|".repeat(header.len()));
    for r in rows {
        let _ = writeln!(s, "| {} |", r.join(" | "));
    }
    s
}

/// An embedded image.
#[must_use]
pub fn image(file: &str, alt: &str) -> String {
    format!("![{alt}]({file})")
}

/// A figure against its target: `3.33 (met)`, `**1.20** (not met)`, the number alone when it is not judged
/// (`None`), and a dash when it is not a number.
#[must_use]
pub fn judged(v: f64, met: Option<bool>) -> String {
    match met {
        _ if !v.is_finite() => "—".into(),
        Some(true) => format!("{v:.2} (met)"),
        Some(false) => format!("**{v:.2}** (not met)"),
        None => format!("{v:.2}"),
    }
}

/// Milliseconds with three significant digits or so.
#[must_use]
pub fn ms(v: f64) -> String {
    match v {
        v if v >= 100.0 => format!("{v:.0}"),
        v if v >= 10.0 => format!("{v:.1}"),
        v if v >= 0.1 => format!("{v:.2}"),
        v if v >= 0.001 => format!("{v:.4}"),
        v => format!("{v:.2e}"),
    }
}

/// A body count: `500`, `10k`, `1M`.
#[must_use]
pub fn count(n: usize) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1000 && n % 1000 == 0 => format!("{}k", n / 1000),
        n if n >= 1000 => format!("{:.1}k", n as f64 / 1000.0),
        n => n.to_string(),
    }
}

/// Bytes as `12.3 MB`.
#[must_use]
pub fn bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.2} GB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.0} kB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// One word for a series' pair checks: `MISMATCH` if any, `brute ok` if any were checked against brute force,
/// `hash ok` if only hashes agreed, `-` otherwise.
#[must_use]
pub fn check_summary(checks: &[&str]) -> String {
    if checks.iter().any(|c| c.starts_with("MISMATCH")) {
        "**MISMATCH**".into()
    } else if checks.iter().any(|c| c.starts_with("brute ok")) {
        if checks.iter().any(|c| c.starts_with("hash ok")) { "brute + hash ok".into() } else { "brute ok".into() }
    } else if checks.iter().any(|c| c.starts_with("hash ok") || c.starts_with("ref ok")) {
        "ok".into()
    } else {
        "-".into()
    }
}

/// The budget stops and short points of `rows`, as a markdown list (empty when there are none).
#[must_use]
pub fn stops(rows: &[Row]) -> String {
    let mut s = String::new();
    for r in rows.iter().filter(|r| r.status != "ok") {
        let params = if r.params.is_empty() { String::new() } else { format!(" ({})", r.params) };
        let _ = writeln!(s, "- {} `{}`{params} n={}: {}", r.study, r.series, r.n, r.status);
    }
    if s.is_empty() { s } else { format!("\nStopped by budgets or limits:\n\n{s}") }
}

#[cfg(test)]
mod tests;
