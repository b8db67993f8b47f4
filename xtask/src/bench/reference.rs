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

    /// The committed figures: the thesis program's four algorithms at full speed, SAP and the octree also at 1/64,
    /// each over the sizes the README of the reference quotes (octree-dup 8.0 ms at 10k, 352 at 100k; SAP 18.7 and
    /// 646; SAP at 1/64 speed 0.65 and 28.5).
    #[test]
    fn the_committed_figures_are_the_thesis_programs() {
        let figures = load();
        let at = |algorithm, speed, n| {
            let s = series(&figures, algorithm, speed);
            assert!(s.len() >= 5, "{algorithm} at speed {speed}: {s:?}");
            s.iter().find(|p| p.0 == n).map(|p| p.1)
        };
        let near = |got: Option<f64>, want: f64| got.is_some_and(|g| (g - want).abs() < 0.01 * want);
        assert!(near(at("octree-dup", 1.0, 10_000.0), 8.0));
        assert!(near(at("octree-dup", 1.0, 100_000.0), 352.0));
        assert!(near(at("sap", 1.0, 10_000.0), 18.7));
        assert!(near(at("sap", 1.0, 100_000.0), 646.0));
        assert!(near(at("sap", 1.0 / 64.0, 10_000.0), 0.65));
        assert!(near(at("sap", 1.0 / 64.0, 100_000.0), 28.5));
        assert!(at("brute", 1.0, 1000.0).is_some() && at("octree-nodup", 1.0, 10_000.0).is_some());
    }
}
