//! Planning a frame from a sample of its boxes: the cell size, the levels and their tori, the slabs.
//!
//! Every choice here affects only the time taken, never the pairs: cells are hashed onto a torus and slabs
//! reach to infinity, so any plan covers every box. That is why a **sample** is enough — at most
//! [`SAMPLE`] boxes taken at a fixed stride, so a million-body frame plans in microseconds and the same boxes
//! give the same plan. A far outlier the sample misses wraps onto the torus like any other box.

use crate::plan::{Level, MAX_LEVELS, MAX_TORUS_BITS, Plan, is_valid, level_for_ratio};
use collide_broadphase::Aabb;
use collide_broadphase::grid::{bulk_bounds, sampled_bounds};

/// The most boxes the planner reads: enough for stable quantiles (the 10th percentile of 4096 is off by about
/// half a percentile), few enough to stay far below a frame's cost.
pub const SAMPLE: usize = 4096;

/// A level holds bodies up to this many times the size its cells were made for (`cell / cell_factor`), so
/// that a crowd of equal bodies — the reference size itself — is not cut in two by a level boundary: their
/// largest sides, each a float subtraction, differ in the last bits, and half of them would go one level up.
/// The cells of a level are then at least `cell_factor / LEVEL_SLACK` times its bodies.
pub const LEVEL_SLACK: f64 = 1.25;

/// Which grid is planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One level, cells sized from the median box.
    Uniform,
    /// Levels of doubling cells, each body at the level that fits its size.
    Hierarchical,
}

/// What the planner is asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// Uniform or hierarchical.
    pub kind: Kind,
    /// Cells are this many times the reference extent (median box for the uniform grid, small boxes for the
    /// hierarchical one's finest level).
    pub cell_factor: f32,
    /// A fixed cell size (finest level), or 0 to size cells from the boxes.
    pub cell_size: f32,
    /// The slabs wanted for load balance when the frame runs in parallel (1 when serially): a slab is cut once it
    /// holds `1 / slabs` of the sample, so there are about this many or more (the width cut adds slabs), but never
    /// more than `max_slabs`, and fewer where the bodies' starts take fewer distinct values.
    pub slabs: usize,
    /// At most this many slabs.
    pub max_slabs: usize,
    /// A slab is cut after about this many cell widths along x.
    pub slab_cells: f32,
    /// A level's torus has at most this many columns per entry it expects in a slab: all the columns of the
    /// sampled bounds when they are fewer (no two cells of the scene fold onto one), else folded down to this.
    pub columns_per_entry: f32,
}

/// The planner's buffers, kept across frames.
#[derive(Clone, Debug, Default)]
pub struct Planner {
    extents: Vec<f32>,
    starts: Vec<f32>,
}

/// What the sample says about the scene.
#[derive(Clone, Copy, Debug)]
struct SceneSample {
    /// Sampled boxes (valid ones).
    len: usize,
    /// The bounds of the sampled boxes.
    bounds: Aabb,
}

impl Planner {
    /// Plan the frame of `aabbs` into `plan` (its buffers reused). O(min(n, SAMPLE) log SAMPLE).
    pub fn plan(&mut self, aabbs: &[Aabb], request: &Request, plan: &mut Plan) {
        let sample = self.sample(aabbs);
        let reference = match request.kind {
            Kind::Uniform => quantile(&mut self.extents, 0.5),
            Kind::Hierarchical => quantile(&mut self.extents, 0.1),
        };
        let cell = if request.cell_size > 0.0 {
            f64::from(request.cell_size)
        } else {
            auto_cell(reference, request.cell_factor, &sample, aabbs.len())
        };
        // The finest level's bodies are up to LEVEL_SLACK · cell / cell_factor wide (for a fixed cell size, the
        // factor still says how much smaller than a cell a body should be).
        plan.level_extent = match request.kind {
            Kind::Uniform => f32::INFINITY,
            Kind::Hierarchical => (cell / f64::from(request.cell_factor.max(1e-3)) * LEVEL_SLACK) as f32,
        };
        let level_count = if request.kind == Kind::Uniform { 1 } else { MAX_LEVELS };
        let mut per_level = [0usize; MAX_LEVELS];
        for &e in &self.extents {
            per_level[level_for_ratio(e / plan.level_extent).min(level_count - 1)] += 1;
        }
        self.slab_bounds(request, cell, &mut plan.slab_bounds);
        plan.index_slabs();
        let scale = aabbs.len() as f64 / sample.len.max(1) as f64;
        let slabs = plan.slabs() as f64;
        plan.levels.clear();
        let mut finer = 0.0;
        for (l, &sampled) in per_level.iter().enumerate().take(level_count) {
            // Entries per slab: this level's bodies, and when it has any, the finer bodies' queries.
            let members = sampled as f64 * scale;
            let entries = if members > 0.0 { members + finer } else { 0.0 };
            finer += members;
            let level_cell = cell * 2f64.powi(l as i32);
            let most = (entries / slabs * f64::from(request.columns_per_entry)).max(MIN_COLUMNS);
            plan.levels.push(level(level_cell, &sample.bounds, most));
        }
    }

    /// Sample at most [`SAMPLE`] valid boxes at a fixed stride: their largest sides and their starts on x (kept
    /// in `extents` and `starts`) and their bounds.
    fn sample(&mut self, aabbs: &[Aabb]) -> SceneSample {
        self.extents.clear();
        self.starts.clear();
        let stride = aabbs.len().div_ceil(SAMPLE).max(1);
        let mut bounds = Aabb::EMPTY;
        for b in aabbs.iter().step_by(stride).filter(|b| is_valid(b)) {
            self.extents.push(b.extents().max_element());
            self.starts.push(b.min.x);
            bounds = bounds.union(b);
        }
        // Where the bulk of the bodies is: cells are counted from the bounds' corner and clamped to ±CELL_LIMIT,
        // so a few bodies at ±1e30 would otherwise put every ordinary body in one cell. The far ones wrap onto
        // the torus like any other box.
        let bounds = bulk_bounds(bounds, sampled_bounds(aabbs));
        SceneSample { len: self.extents.len(), bounds }
    }

    /// Slab boundaries along the sampled starts: a slab is cut once it is `slab_cells` cells of the finest level
    /// wide (so that a bucket — a slab's stretch of one column — holds a few bodies), or once it holds its share of
    /// the sample for load balance. Boundaries sit on sampled starts, so a gap in the scene (between far clusters)
    /// is crossed by one slab, never cut into empty ones; equal starts (a crowd at one x) are never split.
    fn slab_bounds(&mut self, request: &Request, cell: f64, out: &mut Vec<f32>) {
        out.clear();
        if request.max_slabs <= 1 || self.starts.is_empty() {
            return;
        }
        self.starts.sort_unstable_by(f32::total_cmp);
        let width = f64::from(request.slab_cells) * cell;
        let share = self.starts.len().div_ceil(request.slabs.max(1));
        let (mut first, mut count) = (f64::from(self.starts[0]), 0);
        for &x in &self.starts {
            let wide = f64::from(x) >= first + width;
            if (wide || count >= share) && out.last().is_none_or(|&last| x > last) && out.len() + 1 < request.max_slabs
            {
                out.push(x);
                (first, count) = (f64::from(x), 0);
            }
            count += 1;
        }
    }
}

/// The `q` quantile of `values` (reordered), or 0 for none.
fn quantile(values: &mut [f32], q: f32) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let k = ((values.len() - 1) as f32 * q) as usize;
    *values.select_nth_unstable_by(k, f32::total_cmp).1
}

/// The cell size from the reference extent, or when the boxes have no size (points), from the density: the edge
/// of a cube holding one body if they were spread evenly over the sampled bounds. 1 when even that is 0 (every
/// box at one point: any size does).
fn auto_cell(reference: f32, factor: f32, sample: &SceneSample, n: usize) -> f64 {
    let from_size = f64::from(reference) * f64::from(factor);
    if from_size > 0.0 && from_size.is_finite() {
        return from_size;
    }
    let e = sample.bounds.extents();
    let widest = f64::from(e.max_element());
    let per_body = widest / (n.max(1) as f64).cbrt();
    if per_body > 0.0 && per_body.is_finite() { per_body } else { 1.0 }
}

/// The fewest columns a level's torus is folded down to: a few hundred counters cost nothing next to a slab.
const MIN_COLUMNS: f64 = 256.0;

/// A level of cells `cell` wide over the sampled bounds, on a torus of at most `most` columns: every cell of the
/// bounds when they fit (no two cells of the sampled scene share a column), else folded onto a torus with the
/// bounds' proportions. Powers of two per axis, at least one column.
fn level(cell: f64, bounds: &Aabb, most: f64) -> Level {
    let origin = if bounds.min.is_finite() { [f64::from(bounds.min.y), f64::from(bounds.min.z)] } else { [0.0; 2] };
    let cells = |axis: usize| {
        let e = f64::from(bounds.extents()[axis]);
        if e.is_finite() && e > 0.0 { (e / cell).floor() + 1.0 } else { 1.0 }
    };
    let (ty, tz) = (cells(1), cells(2));
    let up = |w: f64| (w.max(1.0).log2().ceil() as u32).min(MAX_TORUS_BITS);
    let down = |w: f64| (w.max(1.0).log2().floor() as u32).min(MAX_TORUS_BITS);
    let bits = if f64::from(1u32 << (up(ty) + up(tz)).min(31)) <= most {
        [up(ty), up(tz)]
    } else {
        // Shrink both axes by the same factor, but no axis below one column, and round down to stay at most.
        let f = (most / (ty * tz)).sqrt();
        let wy = (ty * f).clamp(1.0, ty);
        [down(wy), down((most / f64::from(1u32 << down(wy))).clamp(1.0, tz))]
    };
    Level::new(cell, origin, bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use collide_math::{Rng, Vec3};

    fn request(kind: Kind, slabs: usize) -> Request {
        Request {
            kind,
            cell_factor: 2.0,
            cell_size: 0.0,
            slabs,
            max_slabs: 64,
            slab_cells: 6.0,
            columns_per_entry: 4.0,
        }
    }

    #[test]
    fn uniform_cells_follow_the_median_box_and_slabs_the_quantiles() {
        let mut rng = Rng::new(1);
        // 10 000 boxes of side 1 (a few of side 50) spread over x in [0, 1000], y and z in [0, 100].
        let aabbs: Vec<Aabb> = (0..10_000)
            .map(|i| {
                let c = Vec3::new(rng.range_f32(0.0, 1000.0), rng.range_f32(0.0, 100.0), rng.range_f32(0.0, 100.0));
                Aabb::from_center_radius(c, if i % 100 == 0 { 25.0 } else { 0.5 })
            })
            .collect();
        let (mut planner, mut plan) = (Planner::default(), Plan::default());
        planner.plan(&aabbs, &request(Kind::Uniform, 8), &mut plan);
        assert_eq!(plan.levels.len(), 1);
        assert_eq!(plan.levels[0].cell, 2.0);
        // Slabs about 6 cells (12 units) wide over x in [0, 1000]: about 80, capped at 64.
        assert_eq!(plan.slabs(), 64);
        let widths: Vec<f32> = plan.slab_bounds.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(widths.iter().all(|&w| (12.0..14.0).contains(&w)), "{widths:?}");
        // Fewer slabs when asked for balance only: the share binds before the width.
        let wide = Request { slab_cells: 1000.0, ..request(Kind::Uniform, 8) };
        planner.plan(&aabbs, &wide, &mut plan);
        assert_eq!(plan.slabs(), 8);
        for s in 0..8 {
            let count = aabbs.iter().filter(|b| plan.slab_of(b.min.x) == s).count();
            assert!((1000..1500).contains(&count), "slab {s}: {count}");
        }
        // 10 000 bodies over 8 slabs allow 4 · 1250 columns: the bounds' 51 × 51 cells fit, as 64 × 64.
        assert_eq!(plan.levels[0].torus(), [64, 64]);
        // Over 64 slabs they allow 4 · 156: folded onto 16 × 32.
        planner.plan(&aabbs, &Request { slabs: 64, slab_cells: 1000.0, ..request(Kind::Uniform, 8) }, &mut plan);
        assert!((60..=64).contains(&plan.slabs()), "{}", plan.slabs());
        assert_eq!(plan.levels[0].torus(), [16, 32]);
        assert_eq!(plan.level_of(1e9), 0, "one level: every body at level 0");
    }

    #[test]
    fn hierarchical_levels_start_at_the_small_bodies() {
        let mut rng = Rng::new(2);
        let aabbs: Vec<Aabb> = (0..5000)
            .map(|i| {
                Aabb::from_center_radius(
                    rng.point_in(Vec3::ZERO, Vec3::splat(400.0)),
                    if i % 10 == 0 { 4.0 } else { 0.5 },
                )
            })
            .collect();
        let (mut planner, mut plan) = (Planner::default(), Plan::default());
        planner.plan(&aabbs, &request(Kind::Hierarchical, 1), &mut plan);
        assert_eq!(plan.levels.len(), MAX_LEVELS);
        assert_eq!(plan.levels[0].cell, 2.0);
        assert!(plan.levels.windows(2).all(|w| w[1].cell == 2.0 * w[0].cell));
        // Side 1 at level 0 (up to 1.25), side 8 at level 3 (cells 16: two cell factors of its size).
        assert_eq!(plan.level_extent, 1.25);
        assert_eq!([1.0, 1.25, 1.3, 8.0, 10.0, 10.1].map(|e| plan.level_of(e)), [0, 0, 1, 3, 3, 4]);
        assert_eq!(plan.slabs(), 33, "400 wide, a slab every 6 cells of 2");
        // Every level's torus holds the bounds' cells (here 201 × 201 at level 0, 26 × 26 at level 3) up to 4
        // columns per entry of a slab, and at least 256: level 0 its 4500 bodies over 33 slabs, level 3 its 500 and
        // the 4500 queries.
        let most = 4 * 5000 / plan.slabs();
        for l in [0, 3] {
            let columns = plan.levels[l].columns();
            assert!((256..=most).contains(&columns), "level {l}: {columns} columns, at most {most}");
        }
        assert_eq!(plan.levels[1].columns(), 256, "empty: the fewest");
    }

    #[test]
    fn degenerate_scenes_still_get_a_usable_plan() {
        let (mut planner, mut plan) = (Planner::default(), Plan::default());
        for (name, aabbs) in [
            ("empty", vec![]),
            ("one point", vec![Aabb::from_center_radius(Vec3::splat(3.0), 0.0); 100]),
            ("points", (0..100).map(|i| Aabb::from_center_radius(Vec3::splat(i as f32), 0.0)).collect()),
            ("huge", vec![Aabb::new(Vec3::splat(-1e30), Vec3::splat(1e30)); 3]),
        ] {
            for kind in [Kind::Uniform, Kind::Hierarchical] {
                planner.plan(&aabbs, &request(kind, 4), &mut plan);
                let c = plan.levels[0].cell;
                assert!(c > 0.0 && c.is_finite(), "{name}: cell {c}");
                assert!(plan.slab_bounds.windows(2).all(|w| w[0] < w[1]), "{name}");
            }
        }
        // Points 1 apart on a diagonal of 100: cells from the density, 100 / 100^(1/3).
        planner.plan(
            &(0..100).map(|i| Aabb::from_center_radius(Vec3::splat(i as f32), 0.0)).collect::<Vec<_>>(),
            &request(Kind::Uniform, 1),
            &mut plan,
        );
        assert!((plan.levels[0].cell - 99.0 / 100f64.cbrt()).abs() < 1e-3, "{}", plan.levels[0].cell);
        // A fixed cell size wins.
        let fixed = Request { cell_size: 3.5, ..request(Kind::Uniform, 1) };
        planner.plan(&[Aabb::from_center_radius(Vec3::ZERO, 1.0)], &fixed, &mut plan);
        assert_eq!(plan.levels[0].cell, 3.5);
    }
}
