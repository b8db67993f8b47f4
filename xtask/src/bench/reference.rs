//! The seed programs' own figures (`shared/reference/seed-program.csv`), a reference series on our plots.
//!
//! Only rows whose workload our `thesis` scenario matches are used: the thesis program (`kredenac/…`, run
//! headless, not the Xvfb build), scenario `uniform_random`, fixed dt of 1/60 s, mean ms of whole steps.

use std::path::{Path, PathBuf};

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

/// Where the reference file lives: `shared/` beside the repository.
#[must_use]
pub fn default_path() -> PathBuf {
    crate::root().join("..").join("shared").join("reference").join("seed-program.csv")
}

/// The matching figures of the file at `path`; empty (with a note on stderr) when it cannot be read.
#[must_use]
pub fn load(path: &Path) -> Vec<Figure> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text),
        Err(e) => {
            eprintln!("bench: no seed reference series ({}: {e})", path.display());
            Vec::new()
        }
    }
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
mod tests {
    use super::*;

    #[test]
    fn only_the_matching_workload_is_read() {
        let text = "program,algorithm,n,speed_factor,scenario,dt_mode,frames,mean_ms,p95_ms,max_ms,notes\n\
kredenac/collision-detection,sweep_and_prune,1000,1.0,uniform_random,fixed_1/60,300,0.274,0.328,0.396,\n\
kredenac/collision-detection,sweep_and_prune,50000,1.0,uniform_random,real_elapsed,0,,,,\n\
kredenac/collision-detection,brute_force,50000,1.0,uniform_random,fixed_1/60,0,,,,\n\
kredenac/collision-detection,octree_with_duplicates,1000,0.015625,uniform_random,fixed_1/60,300,0.342,1,1,\"a, b\"\n\
kredenac/collision-detection (full GLUT app under Xvfb),brute_force,1000,1.0,uniform_random,fixed_1/60,1,9,9,9,\n\
kredenac/collision-detection,octree_persistent,100,1.0,uniform_random,fixed_1/60,200,2.3,2.4,2.6,\n";
        let figures = parse(text);
        assert_eq!(figures.len(), 2, "{figures:?}");
        assert_eq!(series(&figures, "sap", 1.0), [(1000.0, 0.274)]);
        assert_eq!(series(&figures, "octree-dup", 1.0 / 64.0), [(1000.0, 0.342)]);
    }

    #[test]
    fn the_shared_file_parses_when_present() {
        let figures = load(&default_path());
        if !figures.is_empty() {
            assert!(series(&figures, "octree-dup", 1.0).len() >= 5);
        }
    }
}
