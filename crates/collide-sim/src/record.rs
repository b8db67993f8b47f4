use collide_broadphase::Stats;
use collide_timing::{Phase, PhaseTimes, Summary};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// What one step did and how long each phase took.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepRecord {
    /// The step number, from 0 (the CSV keeps the column name `frame`, which scripts and tests read).
    pub step: u64,
    /// Bodies in the step.
    pub n: u32,
    /// The registry name of the broadphase that answered (for `auto`, the candidate it ran).
    pub algorithm: &'static str,
    /// The scene's phase at this step (`cluster`, `rest`, … for scripted scenes), empty for scenes without
    /// phases.
    pub phase: &'static str,
    /// The simulated time step, ms.
    pub dt_ms: f64,
    /// The whole step's wall time, ms.
    pub step_ms: f64,
    /// Each phase's wall time, ms.
    pub phases: PhaseTimes,
    /// Pairs the broadphase reported.
    pub pairs: u64,
    /// Pairs the narrowphase confirmed touching.
    pub contacts: u64,
    /// Bodies removed this step because their state became non-finite.
    pub removed: u32,
    /// Bodies that passed through an obstacle and pairs of spheres that passed through each other during this
    /// step (counted only in scenes with obstacles or with `ccd`; see the crate docs).
    pub tunnelled: u32,
    /// The broadphase's counters for this step.
    pub stats: Stats,
}

/// The CSV header, matching [`write_csv`]'s columns.
pub const CSV_HEADER: &str = "frame,n,algorithm,phase,dt_ms,step_ms,reorder_ms,integrate_ms,aabbs_ms,broadphase_ms,narrowphase_ms,\
resolution_ms,walls_ms,pairs,contacts,removed,tunnelled,relative_dt,stats";

/// Write `records` as CSV to `path`: a header row, then one row per step. Written to a temporary file beside
/// `path` and renamed, so that an interrupted write never leaves a half file under the real name.
pub fn write_csv(path: &Path, records: &[StepRecord]) -> std::io::Result<()> {
    let mut text = String::with_capacity(64 + records.len() * 160);
    text.push_str(CSV_HEADER);
    text.push('\n');
    for r in records {
        let _ = write!(text, "{},{},{},{},{:.4},{:.4}", r.step, r.n, r.algorithm, r.phase, r.dt_ms, r.step_ms);
        for phase in Phase::ALL {
            let _ = write!(text, ",{:.4}", r.phases.get(phase));
        }
        let relative = collide_timing::relative_dt_ms(r.dt_ms);
        let _ = writeln!(text, ",{},{},{},{},{relative:.4},{}", r.pairs, r.contacts, r.removed, r.tunnelled, r.stats);
    }
    let tmp = path.with_extension("csv.partial");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// The numbers a headless run prints at its end.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Steps run.
    pub frames: usize,
    /// Steps skipped as warm-up before the statistics.
    pub warmup: usize,
    /// Step wall time, ms, after warm-up.
    pub step: Summary,
    /// Broadphase wall time, ms, after warm-up.
    pub broadphase: Summary,
    /// Mean ms of each phase after warm-up, in [`Phase::ALL`] order.
    pub phase_means: [f64; Phase::ALL.len()],
    /// Mean pairs per step after warm-up.
    pub mean_pairs: f64,
    /// Mean contacts per step after warm-up.
    pub mean_contacts: f64,
    /// Bodies removed for non-finite state over the run.
    pub removed: u64,
    /// Tunnelled bodies and pairs over the run ([`StepRecord::tunnelled`]), warm-up included.
    pub tunnelled: u64,
}

impl RunSummary {
    /// Summarise `records`, skipping the first `min(10, frames / 10)` as warm-up.
    #[must_use]
    pub fn of(records: &[StepRecord]) -> Self {
        let warmup = (records.len() / 10).min(10);
        let measured = &records[warmup..];
        let of = |f: &dyn Fn(&StepRecord) -> f64| Summary::of(&measured.iter().map(f).collect::<Vec<_>>());
        let mut phase_means = [0.0; Phase::ALL.len()];
        for (slot, phase) in phase_means.iter_mut().zip(Phase::ALL) {
            *slot = of(&|r| r.phases.get(phase)).mean;
        }
        Self {
            frames: records.len(),
            warmup,
            step: of(&|r| r.step_ms),
            broadphase: of(&|r| r.phases.get(Phase::Broadphase)),
            phase_means,
            mean_pairs: of(&|r| r.pairs as f64).mean,
            mean_contacts: of(&|r| r.contacts as f64).mean,
            removed: records.iter().map(|r| u64::from(r.removed)).sum(),
            tunnelled: records.iter().map(|r| u64::from(r.tunnelled)).sum(),
        }
    }
}
