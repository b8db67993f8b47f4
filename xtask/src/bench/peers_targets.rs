//! Issue 35's targets on the `power-law` scene, judged on the `peers` study's rows: sizes with a heavy tail,
//! where a few huge bodies overlap thousands of small ones and the output is millions of pairs a frame.
//!
//! Per size, collide's best (`auto` aside), parry's rebuilt BVH (the best peer there when the issue was written),
//! their ratio and the best's nanoseconds per output pair. Targets: the best at least [`BEST_OVER_REBUILT`] times
//! faster than the rebuilt BVH at 10⁴ and 10⁵ bodies, and at most [`NS_PER_PAIR`] ns per pair at 10⁵.

use super::contenders;
use super::report;
use super::rows::Row;

/// The scene these targets are about.
pub const SCENE: &str = "power-law";
/// The peer they are judged against.
const REBUILT: &str = "parry-bvh-rebuild";
/// collide's best over the rebuilt BVH, at every judged size.
const BEST_OVER_REBUILT: f64 = 5.0;
/// The best's cost per output pair at 10⁵ bodies, in nanoseconds.
const NS_PER_PAIR: f64 = 10.0;
/// The sizes judged, and the one whose cost per pair is.
const JUDGED: [usize; 2] = [10_000, 100_000];
const PER_PAIR_AT: usize = 100_000;

/// The targets' paragraph and table for the rows of the `peers` study (empty when no row is of [`SCENE`]).
#[must_use]
pub fn section(rows: &[Row]) -> String {
    let scene: Vec<&Row> = rows.iter().filter(|r| r.scenario == SCENE && r.measured()).collect();
    if scene.is_empty() {
        return String::new();
    }
    let mut sizes: Vec<usize> = scene.iter().map(|r| r.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let lines = sizes.iter().map(|&n| {
        let at_n = || scene.iter().filter(move |r| r.n == n);
        let best = at_n()
            .filter(|r| r.algorithm != collide_selector::NAME && !contenders::is_peer(&r.algorithm))
            .min_by(|a, b| a.time.mean.total_cmp(&b.time.mean));
        let rebuilt = at_n().find(|r| r.algorithm == REBUILT).map_or(f64::NAN, |r| r.time.mean);
        let (name, ms, pairs) =
            best.map_or(("—", f64::NAN, f64::NAN), |r| (r.algorithm.as_str(), r.time.mean, r.pairs));
        let ratio = rebuilt / ms;
        let ns = ms * 1e6 / pairs;
        let judged = JUDGED.contains(&n);
        vec![
            report::count(n),
            format!("{pairs:.0}"),
            if ms.is_finite() { format!("`{name}` {}", report::ms(ms)) } else { "—".into() },
            if rebuilt.is_finite() { report::ms(rebuilt) } else { "—".into() },
            report::judged(ratio, judged.then_some(ratio >= BEST_OVER_REBUILT)),
            report::judged(ns, (n == PER_PAIR_AT).then_some(ns <= NS_PER_PAIR)),
        ]
    });
    let header = [
        "bodies",
        "pairs per frame",
        "collide's best (mean ms)",
        "parry rebuilt (mean ms)",
        "rebuilt ÷ best (≥ 5 at 10⁴ and 10⁵)",
        "best's ns per pair (≤ 10 at 10⁵)",
    ];
    format!(
        "\n**Issue 35's targets on `{SCENE}`** (radii with a heavy tail; collide's best leaves `auto` out):\n\n{}\n",
        report::table(&header, lines)
    )
}

#[cfg(test)]
mod tests;
