//! The seed programs' own figures, a reference series on our plots.
//!
//! `xtask/data/seed-program.csv` is a copy of the project's `shared/reference/seed-program.csv` (its README there
//! says how the figures were measured), kept in the repository and compiled in, so that the bench plots them and
//! their test checks them on any clean clone. Only rows whose workload our `thesis` scenario matches are used: the
//! thesis program (`kredenac/…`, run headless, not the Xvfb build), scenario `uniform_random`, fixed dt of 1/60 s,
//! mean ms of whole steps.

/// The program whose workload the `thesis` scenario reproduces.
const PROGRAM: &str = "kredenac/collision-detection";

/// One reference figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Our registry name for the seed's algorithm.
    pub algorithm: &'static str,
    /// Bodies.
    pub n: usize,
    /// Speed as a fraction of the thesis default (1, or 1/64).
    pub speed_factor: f64,
    /// Mean ms per step.
    pub mean_ms: f64,
}

/// Our registry name for a seed program's algorithm column, if we have one.
fn our_name(seed: &str) -> Option<&'static str> {
    match seed {
        "brute_force" => Some("brute"),
        "octree_with_duplicates" => Some("octree-dup"),
        "octree_without_duplicates" => Some("octree-nodup"),
        "sweep_and_prune" => Some("sap"),
        _ => None,
    }
}

/// The seed programs' figures as measured (see the module docs).
const SEED_PROGRAM_CSV: &str = include_str!("../../data/seed-program.csv");

/// The matching figures of the seed programs.
#[must_use]
pub fn load() -> Vec<Figure> {
    parse(SEED_PROGRAM_CSV)
}

/// Parse the CSV text: columns program, algorithm, n, speed_factor, scenario, dt_mode, frames, mean_ms, … . The
/// notes column (last) may hold quoted commas, so only the first ten fields are split off.
#[must_use]
pub fn parse(text: &str) -> Vec<Figure> {
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.splitn(11, ',').collect();
        if f.len() < 8 || f[0] != PROGRAM || f[4] != "uniform_random" || f[5] != "fixed_1/60" {
            continue;
        }
        let (Some(algorithm), Ok(n), Ok(speed_factor), Ok(mean_ms)) =
            (our_name(f[1]), f[2].parse(), f[3].parse(), f[7].parse::<f64>())
        else {
            continue; // aborted sizes have an empty mean
        };
        out.push(Figure { algorithm, n, speed_factor, mean_ms });
    }
    out
}

/// The `(n, mean ms)` series of `algorithm` at `speed_factor`, by n.
#[must_use]
pub fn series(figures: &[Figure], algorithm: &str, speed_factor: f64) -> Vec<(f64, f64)> {
    let mut s: Vec<(f64, f64)> = figures
        .iter()
        .filter(|f| f.algorithm == algorithm && (f.speed_factor - speed_factor).abs() < 1e-9)
        .map(|f| (f.n as f64, f.mean_ms))
        .collect();
    s.sort_by(|a, b| a.0.total_cmp(&b.0));
    s
}

#[cfg(test)]
mod tests;
