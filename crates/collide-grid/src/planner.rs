//! Planning a frame from a sample of its boxes: the cell size, the levels bodies live at, each level's torus and
//! its partitions. A plan affects the time taken, never the pairs: every box lands in a cell of the torus whatever
//! the sample saw, and a body of a level the plan did not foresee makes the caller plan again (`grid.rs`).
//!
//! - **Cell size.** `cell_factor` times a reference extent (the larger of a box's sides on y and z): the median
//!   for `grid`, the 10th percentile for `hgrid`'s finest level; or a fixed `cell_size`. When the reference box
//!   has no size (points), the edge of a cube holding one body if they were spread evenly over their bounds.
//! - **Levels.** The sampled boxes' natural levels (`plan.rs`) say which levels have bodies. A cost model
//!   (`Planner::choose_levels`) weighs keeping each level apart — its bodies in cells their size, each scanning the
//!   finer levels' columns or cubes its box covers — against merging it into the next coarser one; the coarsest is
//!   always kept. Each finer level of a plan is read by its columns or cut into cubes (`cubes.rs`), whichever the
//!   model rates cheaper for all its coarser levels' scans and the cubes' build. The levels
//!   the last frame met are kept present, so that a level the sample misses does not make every frame plan
//!   twice; and the levels chosen last frame are kept while the model rates them within [`KEEP_LEVELS`] of the
//!   best, so that the sample's noise does not flip the partitions' layout near a tie.
//! - **Tori.** A level's torus has a column per cell of the scene's bulk bounds (each axis rounded up to a power
//!   of two) when that is at most [`COLUMNS_PER_ENTRY`] per entry the level is expected to hold, else the bounds'
//!   cells folded onto that many columns, in the bounds' proportions. So memory follows the bodies, not the world.
//! - **Bulk bounds against far outliers** ([`bulk_bounds`]). Cells are counted from the bounds' corner and
//!   clamped to ±(2²² − 1), so a sampled body at ±1e30 would put every ordinary body into one cell. On an axis
//!   where the sample's bounds are more than [`OUTLIER_RATIO`] times wider than a trimmed sample's
//!   ([`sampled_bounds`]), the cells' origin and the tori are planned on the trimmed bounds; the far bodies land
//!   in far cells like any other box, or in the clamped border cells.
//! - **Partitions.** The rows of each level's torus are cut into partitions, the tasks of the build and the
//!   search: as many as asked for (one when the frame runs serially), shared among the levels by their entries.
//!
//! [`bulk_bounds`]: collide_broadphase::region_grid::bulk_bounds
//! [`sampled_bounds`]: collide_broadphase::region_grid::sampled_bounds
//! [`OUTLIER_RATIO`]: collide_broadphase::region_grid::OUTLIER_RATIO

use crate::cubes::CUBE_SHIFT;
use crate::plan::{Cells, Level, MAX_LEVELS, MAX_TORUS_BITS, Plan, XBins, is_valid, levels, natural_level};
use collide_broadphase::Aabb;
use collide_broadphase::region_grid::{bulk_bounds, sampled_bounds};

/// The most boxes the planner reads: enough for stable quantiles (the 10th percentile of 1024 is off by about a
/// percentile), few enough to stay far below a frame's cost — the plan runs on one thread, and 4096 boxes (about
/// 190 instructions each: read at a stride, their cells and level, the quantile) took a twelfth of a 10⁵-body
/// frame's two-thread time.
pub const SAMPLE: usize = 1024;

/// A level's torus has at most this many columns per entry the level holds (and at least sixteen):
/// every cell of the scene's bounds when they are fewer, so that cells far apart seldom share a bucket, while the
/// counters of a partition (cleared, summed and read every frame) stay in proportion to its entries in a world
/// far wider than its bodies.
pub const COLUMNS_PER_ENTRY: f64 = 0.5;

/// The fewest columns a level's torus is folded down to.
const MIN_COLUMNS: f64 = 16.0;

/// A level's torus folds its cells along an axis onto the power of two below them when they are at most this
/// many times it (the cells beyond wrap onto the first ones), else takes the power of two above.
const FOLD_SLACK: f64 = 1.25;

/// The fewest columns along each axis: four, so that a cell's nine neighbourhood offsets are nine distinct buckets,
/// which the search's exactly-once rule needs (two would fold the cells before and after a cell onto one column).
const MIN_AXIS_BITS: u32 = 2;

/// Which grid is planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Cells sized from the median box; larger bodies on one coarser level.
    Uniform,
    /// Levels of doubling cells from the small boxes, each body at the level that fits its size.
    Hierarchical,
}

/// What the planner is asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    /// Uniform or hierarchical.
    pub kind: Kind,
    /// Cells are this many times the reference extent (the median box for the uniform grid, the small boxes for
    /// the hierarchical one's finest level).
    pub cell_factor: f32,
    /// A fixed cell size (finest level), or 0 to size cells from the boxes.
    pub cell_size: f32,
    /// The partitions wanted (1 when the frame runs serially): shared among the present levels by their entries,
    /// at least one each.
    pub parts: usize,
    /// Which finer levels are cut into cubes.
    pub cubes: Cubing,
}

/// Which finer levels a plan cuts into cubes for the coarser levels' scans (`cubes.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cubing {
    /// Where the cost model rates the cubes cheaper than the columns, their build included.
    #[default]
    Modelled,
    /// Every present level but the coarsest (still none whose cubes would be too many).
    Always,
    /// None: the coarser bodies scan the finer levels' columns.
    Never,
}

/// The planner's buffers and what it keeps from the last frame, across frames.
#[derive(Clone, Debug, Default)]
pub struct Planner {
    /// The sampled valid boxes' corners on y and z: `[min y, min z, max y, max z]`.
    corners: Vec<[f32; 4]>,
    /// Their reference extents (reordered by the quantile).
    extents: Vec<f32>,
    /// Their extents along x, in sample order.
    along_x: Vec<f32>,
    /// The natural levels the last frame met (bit `l`): kept present.
    last_natural: u32,
    /// Each level's partitions last frame, as `part_bits + 1` (0 where the level was absent).
    last_part_bits: [u32; MAX_LEVELS],
    /// The levels chosen last frame (bit `l`; 0 before the first): kept while the model rates them within
    /// [`KEEP_LEVELS`] of the best.
    last_chosen: u32,
    /// This frame's expected bodies per natural level (the sample's, scaled to the body count).
    expected: [f64; MAX_LEVELS],
    /// The sampled bodies' mean extent along x per natural level.
    reach: [f64; MAX_LEVELS],
    /// The sampled bodies' mean reference extent (the larger of y and z) per natural level, in level-0 cells.
    size: [f64; MAX_LEVELS],
    /// The bulk bounds' extent in level-0 cells, on y and z.
    span: [f64; 2],
    /// The bulk bounds' extent along x.
    span_x: f64,
    /// Level 0's cell edge.
    cell: f64,
}

impl Planner {
    /// Plan the frame of `aabbs` into `plan` (its buffers reused). O(min(n, SAMPLE) log SAMPLE).
    pub fn plan(&mut self, aabbs: &[Aabb], request: &Request, plan: &mut Plan) {
        let bounds = self.sample(aabbs);
        let reference = match request.kind {
            Kind::Uniform => quantile(&mut self.extents, 0.5),
            Kind::Hierarchical => quantile(&mut self.extents, 0.1),
        };
        let cell = if request.cell_size > 0.0 {
            f64::from(request.cell_size)
        } else {
            auto_cell(reference, request.cell_factor, &bounds, aabbs.len())
        };
        let origin = if bounds.min.is_finite() { [f64::from(bounds.min.y), f64::from(bounds.min.z)] } else { [0.0; 2] };
        plan.cells = Cells::new([cell; 2], origin);
        plan.x_bins = XBins::new(bounds.min.x, bounds.max.x);
        let extent = |axis: usize| {
            let e = f64::from(bounds.max[axis]) - f64::from(bounds.min[axis]);
            if e.is_finite() && e > 0.0 { e / cell } else { 1.0 }
        };
        self.span = [extent(1), extent(2)];
        self.span_x = extent(0) * cell;
        self.cell = cell;
        // The sampled boxes' natural levels, scaled to the body count, and their reach along x.
        let scale = aabbs.len() as f64 / self.corners.len().max(1) as f64;
        (self.expected, self.reach, self.size) = ([0.0; MAX_LEVELS], [0.0; MAX_LEVELS], [0.0; MAX_LEVELS]);
        let mut sampled = 0u32;
        for (c, &x) in self.corners.iter().zip(&self.along_x) {
            let l = natural_level(plan.cells.of_box([c[0], c[1]], [c[2], c[3]]));
            self.expected[l] += scale;
            self.reach[l] += f64::from(x) * scale;
            self.size[l] += f64::from((c[2] - c[0]).max(c[3] - c[1])) / cell * scale;
            sampled |= 1 << l;
        }
        for l in 0..MAX_LEVELS {
            self.reach[l] /= self.expected[l].max(1e-9);
            self.size[l] /= self.expected[l].max(1e-9);
        }
        let natural = sampled | self.last_natural;
        plan.map = self.choose_levels(natural);
        self.lay_out(natural, request, plan);
    }

    /// After a body pass met the natural levels `natural`: remember them for the next frame, and when one of them
    /// maps to a level the plan does not have, plan again with them (the same cells) and return `true`: the pass
    /// must be repeated.
    pub fn met(&mut self, natural: u32, request: &Request, plan: &mut Plan) -> bool {
        self.last_natural = natural;
        let wanted = levels(natural).fold(0u32, |set, l| set | 1 << plan.map[l]);
        if wanted & !plan.present == 0 {
            return false;
        }
        // The new levels were not sampled: a few bodies each. The levels chosen again over all of them (a new top
        // level must be present; a few bodies below it merge into the next level up).
        for l in levels(natural) {
            if self.expected[l] == 0.0 {
                (self.expected[l], self.reach[l], self.size[l]) = (1.0, 0.0, f64::from(1u32 << l));
            }
        }
        let known = levels(plan.present).fold(natural, |set, l| set | 1 << l);
        plan.map = self.choose_levels(known);
        self.lay_out(known, request, plan);
        true
    }

    /// Sample at most [`SAMPLE`] valid boxes at a fixed stride: their corners and reference extents (kept in
    /// `corners` and `extents`); returns the bulk bounds.
    fn sample(&mut self, aabbs: &[Aabb]) -> Aabb {
        self.corners.clear();
        self.extents.clear();
        self.along_x.clear();
        // An odd stride: scenes built in even periods (every tenth body large, say) would alias with an even one.
        let stride = aabbs.len().div_ceil(SAMPLE).max(1) | 1;
        let mut bounds = Aabb::EMPTY;
        for b in aabbs.iter().step_by(stride).filter(|b| is_valid(b)) {
            self.corners.push([b.min.y, b.min.z, b.max.y, b.max.z]);
            let e = b.extents();
            self.extents.push(e.y.max(e.z));
            self.along_x.push(e.x);
            bounds = bounds.union(b);
        }
        // Where the bulk of the bodies is: cells are counted from the bounds' corner and clamped, so a few bodies
        // at ±1e30 would otherwise put every ordinary body in one cell.
        bulk_bounds(bounds, sampled_bounds(aabbs))
    }

    /// The levels, tori and partitions of a plan whose bodies have the natural levels `natural` (and those of
    /// `self.expected`), mapped by `plan.map`. Each present level gets a share of the partitions as large as the
    /// model's share of the work there (its search and its bodies' scans of the finer levels), at least one.
    fn lay_out(&mut self, natural: u32, request: &Request, plan: &mut Plan) {
        let chosen = levels(natural).fold(0u32, |set, l| set | 1 << plan.map[l]);
        let mut work = [0.0f64; MAX_LEVELS];
        let (_, modelled) = self.cost(natural, chosen, &mut work);
        let top = 1u32 << 31 >> chosen.leading_zeros().min(31);
        plan.cut = match request.cubes {
            Cubing::Modelled => modelled,
            Cubing::Always => chosen & !top,
            Cubing::Never => 0,
        };
        let total: f64 = work.iter().sum();
        plan.present = chosen;
        self.last_chosen = chosen;
        plan.part_level.clear();
        for l in levels(!chosen & crate::plan::low_mask(MAX_LEVELS - 1)) {
            self.last_part_bits[l] = 0;
        }
        for l in levels(chosen) {
            let members = levels(natural).filter(|&n| usize::from(plan.map[n]) == l).map(|n| self.expected[n]).sum();
            let scale = f64::from(1u32 << l);
            let bits = torus_bits(self.span.map(|s| s / scale), members);
            let share = request.parts as f64 * work[l] / total.max(1.0);
            // Kept from last frame unless the share moved by more than a factor of four: with cheap scans the
            // shares of a breathing scene's levels swing with its density, and a level's partitions flipped
            // between 6 and 16 from frame to frame; every new layout sizes the partitions' blocks of the output and
            // their spills from counts another layout found (`output.rs`), so rare layouts kept growing them (a
            // 30 MB output after 147 warm frames, `tests/warm_allocations.rs`). Work stealing evens out partitions
            // up to a few times off their share.
            let wanted = share.max(1.0).log2();
            let part_bits = match self.last_part_bits[l].checked_sub(1) {
                Some(last) if (wanted - f64::from(last)).abs() < 2.0 => last,
                _ => wanted.round() as u32,
            }
            .min(bits[0]);
            self.last_part_bits[l] = part_bits + 1;
            let first = plan.part_level.len() as u32;
            plan.levels[l] = Level::new(bits, part_bits, first);
            plan.part_level.extend(std::iter::repeat_n(l as u8, 1 << part_bits));
        }
    }
}

impl Planner {
    /// The levels bodies live at: for the natural levels `natural`, the set of levels — the coarsest always, and
    /// any finer ones — that the cost model below rates cheapest, each natural level mapped to the first chosen
    /// level at or above it. At most [`CHOICE_LEVELS`] natural levels are weighed (the finest ones merge upward
    /// beyond that).
    ///
    /// A level of its own gives a body cells its size, but each of its bodies scans the finer levels' columns
    /// that its box covers; merged into a coarser level, it is one more body of larger cells, whose columns are
    /// longer. The model counts rough instructions, measured on the uniform and mixed-sizes scenes: per body the
    /// body pass and the build (about 105), its search (all against all in blocks of eight, about 100 plus 12 per
    /// record of its column, or a merge of crowds, about 200, past a dozen), 10 per candidate along x in the
    /// columns around (a column's records over the bulk of the scene along x, those within reach); per row of a
    /// finer level a coarser body scans, per column of its cubes [`CUBE_COLUMN`] and per record within reach
    /// [`CUBE_RECORD`]; per body of a level with a coarser one, [`CUBE_BUILD`].
    fn choose_levels(&self, natural: u32) -> [u8; MAX_LEVELS] {
        let identity: [u8; MAX_LEVELS] = std::array::from_fn(|l| l as u8);
        let Some(top) = levels(natural).last() else { return identity };
        // The finer natural levels weighed, the coarsest `CHOICE_LEVELS − 1` below the top (no allocation).
        let mut weighed = [0usize; MAX_LEVELS];
        let count = levels(natural).zip(&mut weighed).map(|(l, w)| *w = l).count();
        let finer = &weighed[count.saturating_sub(CHOICE_LEVELS)..count - 1];
        let (mut best, mut best_cost) = (0u32, f64::INFINITY);
        let mut last_cost = f64::INFINITY;
        let mut work = [0.0; MAX_LEVELS];
        for subset in 0..1u32 << finer.len() {
            let chosen = finer
                .iter()
                .enumerate()
                .filter(|&(k, _)| subset >> k & 1 == 1)
                .fold(1u32 << top, |set, (_, &l)| set | 1 << l);
            let (cost, _) = self.cost(natural, chosen, &mut work);
            if cost < best_cost {
                (best, best_cost) = (chosen, cost);
            }
            if chosen == self.last_chosen {
                last_cost = cost;
            }
        }
        // Last frame's levels, unless clearly beaten: the sample's few bodies of the rare coarse levels move the
        // model's costs from frame to frame, and near a tie the levels flipped every few frames (`power-law`, 10⁵
        // bodies), each flip a new layout of partitions whose output blocks and buffers were sized for another.
        if last_cost <= best_cost * (1.0 + KEEP_LEVELS) {
            best = self.last_chosen;
        }
        std::array::from_fn(|l| levels(best).find(|&c| c >= l).unwrap_or(l) as u8)
    }

    /// The model's cost of a frame whose bodies of the natural levels `natural` live at the levels `chosen` (see
    /// [`Planner::choose_levels`]), with in `work` each level's share, and the levels to cut into cubes: each
    /// finer level is read by its columns or by its cubes, whichever the model rates cheaper for all the coarser
    /// levels' scans of it together with the cubes' build.
    fn cost(&self, natural: u32, chosen: u32, work: &mut [f64; MAX_LEVELS]) -> (f64, u32) {
        *work = [0.0; MAX_LEVELS];
        // Per chosen level: its bodies, their mean reach along x, its bodies per column.
        let mut members = [0.0f64; MAX_LEVELS];
        let mut reach = [0.0f64; MAX_LEVELS];
        let mut size = [0.0f64; MAX_LEVELS];
        let mut per_column = [0.0f64; MAX_LEVELS];
        for l in levels(natural) {
            let at = levels(chosen).find(|&c| c >= l).unwrap_or(l);
            members[at] += self.expected[l];
            reach[at] += self.expected[l] * self.reach[l];
            size[at] += self.expected[l] * self.size[l];
        }
        for l in levels(chosen) {
            reach[l] /= members[l].max(1e-9);
            size[l] /= members[l].max(1e-9);
        }
        let world = |level: usize| self.span.map(|s| (s / f64::from(1u32 << level)).max(1.0));
        for level in levels(chosen) {
            let [wy, wz] = world(level);
            let columns = (wy * wz).min((0.5 * members[level]).max(MIN_COLUMNS));
            per_column[level] = members[level] / columns;
            let m = per_column[level];
            let along = 9.0 * m * reach[level] / self.span_x.max(1e-30);
            work[level] += members[level] * (105.0 + (100.0 + 12.0 * m).min(200.0) + 10.0 * along);
        }
        // A body of `level` scanning `finer`: by the finer level's columns — each row its box covers and one more,
        // every record of those columns — or by its cubes — each column of cubes it covers and one more, the
        // records within its reach along x (`cubes.rs`).
        let cube = f64::from(1u32 << CUBE_SHIFT);
        let scan = |level: usize, finer: usize| -> (f64, f64) {
            let [ty, tz] = world(finer);
            let across = size[level] / f64::from(1u32 << finer) + 2.0;
            let (rows, span) = (across.min(ty), across.min(tz));
            let by_columns = rows * (SCAN_ROW + 10.0 * span * per_column[finer]);
            let edge = self.cell * f64::from(1u32 << finer);
            let along = ((reach[level] + reach[finer] + (cube + 1.0) * edge) / self.span_x.max(1e-30)).min(1.0);
            let columns = (rows / cube + 1.0) * (span / cube + 1.0);
            let by_cubes = CUBE_COLUMN * columns + CUBE_RECORD * rows * span * per_column[finer] * along;
            (members[level] * by_columns, members[level] * by_cubes)
        };
        let mut cut = 0;
        for finer in levels(chosen) {
            let coarser = chosen & !crate::plan::low_mask(finer);
            let (columns, cubes) =
                levels(coarser).map(|l| scan(l, finer)).fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
            let by_cubes = columns > cubes + members[finer] * CUBE_BUILD;
            if by_cubes {
                cut |= 1 << finer;
                work[finer] += members[finer] * CUBE_BUILD;
            }
            for l in levels(coarser) {
                let (c, k) = scan(l, finer);
                work[l] += if by_cubes { k } else { c };
            }
        }
        (work.iter().sum(), cut)
    }
}

/// The cost model's price of a row of a finer level's columns a coarser body scans, against 10 per record
/// compared there: its columns found, its spans cut and the first loads of each waited for. Measured on 10⁵
/// `power-law` bodies (commit `fb1d029`, one thread): the walk over the 404 000 rows a frame without a comparison
/// took 5–6 ms, about 14 ns a row, and the comparisons about 1.9 ns a record (40 ms for 20.8 million) — seven
/// times less. (At 15, the price this model first had, the planner kept the finest levels apart there where
/// merging them ran faster.)
const SCAN_ROW: f64 = 70.0;

/// Last frame's levels are kept while the model rates them at most this share dearer than the best choice.
pub const KEEP_LEVELS: f64 = 0.05;

/// The cost model's prices of a coarse body's reads of a finer level's cubes (`cubes.rs`), against 10 per record
/// compared in a level's own search (about 1.9 ns): per column of cubes, its runs found and their first loads
/// waited for; per record within reach, a test four lanes at a time and a slot written; per record of a level cut
/// into cubes, its three passes. Fitted on 10⁵ `power-law` bodies (one thread): 12 ns a column, 1.2 ns a
/// record tested, the cubes of 93 000 records built in 1.5 ms.
const CUBE_COLUMN: f64 = 63.0;
const CUBE_RECORD: f64 = 6.0;
const CUBE_BUILD: f64 = 80.0;

/// The most natural levels the cost model weighs against each other (2¹¹ choices at most).
const CHOICE_LEVELS: usize = 12;

/// The torus of a level whose bulk bounds are `cells` wide (y, z) and that holds `entries`: a column per cell,
/// each axis rounded up to a power of two, when that is at most [`COLUMNS_PER_ENTRY`] per entry (and at least
/// [`MIN_COLUMNS`]); else the cells folded onto about that many columns: the axis with fewer cells keeps them
/// when it can (a flat world stays flat), up to half the bits, and the other takes the rest.
fn torus_bits(cells: [f64; 2], entries: f64) -> [u32; 2] {
    let most = (entries * COLUMNS_PER_ENTRY).max(MIN_COLUMNS);
    let budget = (most.log2().floor() as u32).min(2 * MAX_TORUS_BITS);
    // A power of two at or above the cells, or the one below when it folds at most a quarter of them: a torus
    // of 512 for 270 cells would leave nearly half its columns empty, and empty columns cost a bucket each.
    let up = |c: f64| {
        if !(c.is_finite() && c > 1.0) {
            return 0;
        }
        let below = c.log2().floor();
        let bits = if c <= FOLD_SLACK * below.exp2() { below } else { below + 1.0 };
        (bits as u32).min(MAX_TORUS_BITS)
    };
    let want = cells.map(|c| up(c).max(MIN_AXIS_BITS));
    if want[0] + want[1] <= budget {
        return want;
    }
    let small = usize::from(cells[1] < cells[0]);
    let mut bits = [0; 2];
    bits[small] = want[small].min(budget / 2);
    bits[1 - small] = want[1 - small].min(budget - bits[small]);
    bits[small] = want[small].min(budget - bits[1 - small]);
    bits.map(|b| b.max(MIN_AXIS_BITS))
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
/// of a cube holding one body if they were spread evenly over the bounds. 1 when even that is 0 (every box at one
/// point: any size does).
fn auto_cell(reference: f32, factor: f32, bounds: &Aabb, n: usize) -> f64 {
    let from_size = f64::from(reference) * f64::from(factor);
    if from_size > 0.0 && from_size.is_finite() {
        return from_size;
    }
    let widest = f64::from(bounds.extents().max_element());
    let per_body = widest / (n.max(1) as f64).cbrt();
    if per_body > 0.0 && per_body.is_finite() { per_body } else { 1.0 }
}

#[cfg(test)]
mod tests;
