//! Whether the machine can hold a run, decided before anything is allocated.
//!
//! `bodies = 2000000000` used to end in "memory allocation failed" and a backtrace (exit code 134): the spawn
//! asked for the whole body array at once. Now checking the config ([`Plan::parse`](crate::Plan::parse))
//! estimates what the run needs — the simulation's columns, the broadphase's structures and the per-step records —
//! and compares it with what this machine can give ([`available`]); a run that cannot fit is a config error like
//! any other (one line, exit code 2), naming the key and the largest body count that would fit. What the estimate
//! misses is caught by [`Simulation::of`](crate::Simulation::of), which reserves the body columns with
//! `try_reserve` and turns a refusal into the same kind of error.
//!
//! The figures are peaks measured with a counting allocator (a release build, 40 steps of the `uniform` scene at
//! 200 000 bodies; the `mixed-sizes` and `cluster` scenes and 10⁶ bodies gave the same within 10%). The pairs
//! (8 bytes each, and 40 per contact) come on top: they depend on the scene, not on the body count, and a
//! scene dense enough for them to matter is far from these limits.

use crate::record::StepRecord;
use crate::scenario::Setup;

/// Bytes the simulation keeps per body: position, velocity (12 each), radius, inverse mass, id (4 each), last
/// contact (8), the box (24), the motion flag and the pushed flag (1 each). A scene that reorders its bodies keeps
/// [`crate::Reorder::BYTES_PER_BODY`] more.
pub const SIM_BYTES_PER_BODY: u64 = 70;

/// Bytes a warm broadphase holds per body (measured; see the module docs): an upper figure for every algorithm
/// not listed, so that one added to the registry is estimated on the safe side until it is measured.
fn broadphase_bytes_per_body(algorithm: &str, bodies: usize) -> u64 {
    match algorithm {
        "brute" => 0,
        "sort-sweep" | "mbp" => 160,
        "sap" => 450,
        "octree-dup" | "octree-nodup" | "octree-loose" => 750,
        // Its per-axis lists hold every pair overlapping on one axis: in a scene of constant density that grows
        // as n^(2/3) per body (28 KB per body at 50 000 bodies of the `uniform` scene).
        "pair-count" => (28_000.0 * (bodies as f64 / 50_000.0).powf(2.0 / 3.0)) as u64,
        // `auto` keeps every candidate it has run warm.
        _ => 1_500,
    }
}

/// What a run needs: bytes per body and in all, for its largest moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    /// The most bodies at once (the configured count times the scene's growth).
    pub bodies: usize,
    /// Bytes per body: the simulation's and the broadphase's.
    pub per_body: u64,
    /// Bytes of the per-step records of a headless run of `frames` frames.
    pub records: u64,
    /// The total.
    pub bytes: u64,
}

/// The memory a run of `setup` with `algorithm` over `frames` frames needs at its largest.
#[must_use]
pub fn estimate(setup: &Setup, algorithm: &str, frames: u64) -> Need {
    let bodies = setup.bodies.saturating_mul(setup.scenario.growth);
    let reorder = if setup.reorder_every > 0 { crate::Reorder::BYTES_PER_BODY } else { 0 };
    let per_body = SIM_BYTES_PER_BODY + reorder + broadphase_bytes_per_body(algorithm, bodies);
    let records = frames.saturating_mul(size_of::<StepRecord>() as u64);
    let bytes = (bodies as u64).saturating_mul(per_body).saturating_add(records);
    Need { bodies, per_body, records, bytes }
}

/// The bytes this machine can still give a process: `MemAvailable` plus `SwapFree` from `/proc/meminfo` (Linux),
/// `None` where that cannot be read (the check is then skipped, and `try_reserve` is the only guard).
#[must_use]
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    };
    Some((kib("MemAvailable:")? + kib("SwapFree:").unwrap_or(0)) * 1024)
}

/// Bytes a replay keeps per box: this frame's box and the last one (24 each, for the motion hint) and the motion
/// flag. The file itself is streamed (see `collide_aabbs::Reader`): only one frame is ever held.
pub const REPLAY_BYTES_PER_BOX: u64 = 49;

/// The memory a replay of frames of `n` boxes with `algorithm` over `frames` frames needs: one frame, the
/// broadphase's structures and the records — never the file.
#[must_use]
pub fn estimate_replay(n: usize, algorithm: &str, frames: u64) -> Need {
    let per_body = REPLAY_BYTES_PER_BOX + broadphase_bytes_per_body(algorithm, n);
    let records = frames.saturating_mul(size_of::<StepRecord>() as u64);
    let bytes = (n as u64).saturating_mul(per_body).saturating_add(records);
    Need { bodies: n, per_body, records, bytes }
}

/// Which key to blame when a run does not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TooBig {
    /// The bodies (and their structures) are most of it.
    Bodies,
    /// The per-step records are most of it.
    Frames,
}

/// `Ok` when `need` fits in `available` bytes (or nothing is known of the machine), else the key to blame and a
/// message (one line, without the key's own `key = value` prefix).
pub fn check(need: &Need, algorithm: &str, available: Option<u64>) -> Result<(), (TooBig, String)> {
    let Some(available) = available else { return Ok(()) };
    if need.bytes <= available {
        return Ok(());
    }
    let body_bytes = need.bytes - need.records;
    if need.records > body_bytes {
        let frames = available / (size_of::<StepRecord>() as u64).max(1);
        return Err((
            TooBig::Frames,
            format!(
                "a headless run keeps one {}-byte record per frame: about {} for these frames, and this machine has \
                 {} available; use at most about {frames} frames",
                size_of::<StepRecord>(),
                bytes(need.records),
                bytes(available)
            ),
        ));
    }
    let fit = available.saturating_sub(need.records) / need.per_body.max(1);
    Err((
        TooBig::Bodies,
        format!(
            "a run of {} bodies needs about {} of memory (about {} bytes per body with {algorithm}) and this \
             machine has {} available; about {} bodies fit",
            need.bodies,
            bytes(need.bytes),
            need.per_body,
            bytes(available),
            fit
        ),
    ))
}

/// `n` bytes in the largest unit that keeps a number of at least 1 (`1.3 TB`, `7.6 GB`, `512 B`).
fn bytes(n: u64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{n} B") } else { format!("{value:.1} {}", units[unit]) }
}

#[cfg(test)]
mod tests;
