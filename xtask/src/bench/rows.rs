//! The summary row every study writes, and its CSV form.

use collide_timing::Summary;
use std::fmt::Write as _;
use std::path::Path;

/// How a point advances simulated time (the CSV's `dt_mode` column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DtMode {
    /// `fixed`: every frame is one step of 1/60 s.
    #[default]
    Fixed,
    /// `real`: every frame's dt is the previous frame's wall time (the feedback loop).
    Real,
}

impl DtMode {
    /// The CSV value.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fixed => "fixed",
            Self::Real => "real",
        }
    }
}

/// What a row's times measure (the CSV's `metric` column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Metric {
    /// `step`: the whole simulation step.
    #[default]
    Step,
    /// `broadphase`: pair finding alone, on recorded boxes.
    Broadphase,
    /// `no-cd-step`: integrate, boxes and walls — collision detection off.
    NoCdStep,
    /// `dt`: the simulated dt of each frame (the feedback loop, where it is the previous frame's wall time).
    Dt,
}

impl Metric {
    /// The CSV value.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Step => "step",
            Self::Broadphase => "broadphase",
            Self::NoCdStep => "no-cd-step",
            Self::Dt => "dt",
        }
    }
}

/// One measured (or skipped) point: one algorithm with its parameters at one body count and speed.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// The study (`scaling`, `peers`, …).
    pub study: &'static str,
    /// The legend label of the series the point belongs to.
    pub series: String,
    /// The scenario's registry name.
    pub scenario: String,
    /// The algorithm's registry name, or a peer's name.
    pub algorithm: String,
    /// The algorithm's parameters (`max_leaf=4 max_depth=10`).
    pub params: String,
    /// Bodies.
    pub n: usize,
    /// Initial speed, units per second.
    pub speed: f32,
    /// How simulated time advanced.
    pub dt_mode: DtMode,
    /// What the times measure.
    pub metric: Metric,
    /// Frames run before measuring.
    pub warmup: usize,
    /// Frames measured.
    pub frames: usize,
    /// The metric's statistics over the measured steps, ms.
    pub time: Summary,
    /// Mean broadphase phase, ms (for `step` rows; equal to the mean for `broadphase` rows).
    pub broadphase_ms: f64,
    /// The memory floor: streaming this frame's box array once, ms.
    pub floor_ms: f64,
    /// Mean pairs per measured step.
    pub pairs: f64,
    /// Peak heap bytes the point added above its baseline (see `alloc`).
    pub peak_bytes: u64,
    /// The step after which `state_hash` was taken (equal across algorithms of one study and size).
    pub hash_step: usize,
    /// `Simulation::state_hash` after `hash_step` steps; 0 when not reached.
    pub state_hash: u64,
    /// The pair-set check: `brute ok`, `ref ok (k frames)`, `hash ok`, `MISMATCH …`, or `-`.
    pub check: String,
    /// `ok`, `short: …` (stopped early), or `skipped: …`.
    pub status: String,
    /// The algorithm's counters of the last measured step (`swaps=… pair_tests=…`).
    pub stats: String,
}

impl Row {
    /// Relative dt: the mean time over one 60 Hz frame (16.67 ms). 1 is 60 fps, 2 is 30 fps.
    #[must_use]
    pub fn relative_dt(&self) -> f64 {
        collide_timing::relative_dt_ms(self.time.mean)
    }

    /// The mean as a multiple of the memory floor (0 when there is no floor).
    #[must_use]
    pub fn floor_multiple(&self) -> f64 {
        if self.floor_ms > 0.0 { self.time.mean / self.floor_ms } else { 0.0 }
    }

    /// `true` when the point was measured (not skipped).
    #[must_use]
    pub fn measured(&self) -> bool {
        self.frames > 0
    }
}

/// The CSV header, matching [`csv_line`].
pub const HEADER: &str = "study,series,scenario,algorithm,params,n,speed,dt_mode,metric,warmup,frames,mean_ms,p50_ms,\
p95_ms,p99_ms,max_ms,relative_dt,broadphase_mean_ms,floor_ms,floor_multiple,pairs,peak_bytes,hash_step,state_hash,check,\
status,stats";

/// One CSV line (no newline).
#[must_use]
pub fn csv_line(r: &Row) -> String {
    let mut s = String::with_capacity(256);
    for text in [r.study, &r.series, &r.scenario, &r.algorithm, &r.params] {
        s.push_str(&escape(text));
        s.push(',');
    }
    let t = &r.time;
    let _ = write!(
        s,
        "{},{},{},{},{},{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.6},{:.2},{:.1},{},{},{:016x},",
        r.n,
        r.speed,
        r.dt_mode.as_str(),
        r.metric.as_str(),
        r.warmup,
        r.frames,
        t.mean,
        t.p50,
        t.p95,
        t.p99,
        t.max,
        r.relative_dt(),
        r.broadphase_ms,
        r.floor_ms,
        r.floor_multiple(),
        r.pairs,
        r.peak_bytes,
        r.hash_step,
        r.state_hash,
    );
    s.push_str(&escape(&r.check));
    s.push(',');
    s.push_str(&escape(&r.status));
    s.push(',');
    s.push_str(&escape(&r.stats));
    s
}

/// A CSV field: quoted (with doubled quotes) when it holds a comma, a quote or a line break.
#[must_use]
pub fn escape(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// Write `rows` under [`HEADER`] to `path`.
pub fn write_rows(path: &Path, rows: &[Row]) -> Result<(), String> {
    let mut text = String::from(HEADER);
    text.push('\n');
    for r in rows {
        text.push_str(&csv_line(r));
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Mark rows of one group whose state hash differs from the group's first measured hash at the same step: the
/// simulations diverged, so some algorithm answered different pairs. `group` keys rows that ran the same scene.
pub fn cross_check_hashes(rows: &mut [Row], group: impl Fn(&Row) -> String) {
    /// The first hash seen for a group at a step, and who produced it.
    struct FirstHash {
        group: String,
        step: usize,
        hash: u64,
        algorithm: String,
    }
    let mut first: Vec<FirstHash> = Vec::new();
    for r in rows.iter_mut().filter(|r| r.state_hash != 0) {
        let key = group(r);
        match first.iter().find(|f| f.group == key && f.step == r.hash_step) {
            None => first.push(FirstHash {
                group: key,
                step: r.hash_step,
                hash: r.state_hash,
                algorithm: r.algorithm.clone(),
            }),
            Some(f) if f.hash == r.state_hash => {
                if r.check == "-" {
                    r.check = "hash ok".into();
                }
            }
            Some(f) => {
                r.check = format!("MISMATCH: state hash after step {} differs from {}'s", f.step, f.algorithm);
            }
        }
    }
}

#[cfg(test)]
mod tests;
