//! [`Grid`]: the uniform and the hierarchical grid behind the [`Broadphase`] trait — the crate's public type, on
//! top of every other module.

use crate::bodies::{BodyChunk, Corners};
use crate::cubes::Cubes;
use crate::debug::debug_geometry;
use crate::output::{gather, lay_out};
use crate::part::Part;
use crate::plan::Plan;
use crate::planner::{Cubing, Kind, Planner, Request};
use crate::search::{Scans, Search, search_part};
use collide_broadphase::{Broadphase, DebugGeometry, Frame, Pair, PairList, Parallelism, Params, Resize, Stats, Tally};

/// Partitions per rayon thread when the frame runs in parallel, at least: more tasks than threads, so that work
/// stealing evens out partitions of unequal cost.
pub const PARTS_PER_THREAD: usize = 8;

/// A partition holds about this many entries at most (more partitions than [`PARTS_PER_THREAD`] asks for in a
/// large scene): the chunks' vectors it gathers, its records, extents and offsets then fit the second-level
/// cache while it is built (at 32 K entries a partition's build missed it on every other store at 10⁶ bodies).
pub const PART_ENTRIES: usize = 8 * 1024;

/// Body chunks per rayon thread in the body pass: every body costs about the same there.
const CHUNKS_PER_THREAD: usize = 2;

/// Tuning of a [`Grid`]. The registry's parameters map onto the first two fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridConfig {
    /// Cells are this many times the reference box size: the median box's larger side on y and z for the uniform
    /// grid, the small boxes' (the 10th percentile) for the hierarchical grid's finest level. Default
    /// [`DEFAULT_CELL_FACTOR`](crate::DEFAULT_CELL_FACTOR).
    pub cell_factor: f32,
    /// A fixed cell edge (the finest level's), or 0 to size cells from the boxes every frame. Default 0.
    pub cell_size: f32,
    /// When the body pass, the partitions' builds and their searches run on rayon's threads. Default:
    /// [`Parallelism::default`]; tests lower it.
    pub parallelism: Parallelism,
    /// Which finer levels are cut into cubes for the coarser bodies' scans. Default: [`Cubing::Modelled`].
    pub cubes: Cubing,
}

impl Default for GridConfig {
    fn default() -> Self {
        Self {
            cell_factor: crate::DEFAULT_CELL_FACTOR,
            cell_size: 0.0,
            parallelism: Parallelism::default(),
            cubes: Cubing::Modelled,
        }
    }
}

/// The counters of the last call.
#[derive(Clone, Copy, Debug, Default)]
struct LastStats {
    tally: Tally,
    bodies: u64,
    invalid: u64,
    buckets: u64,
    occupied: u64,
    max_occupancy: u64,
    entries: u64,
    scans: Scans,
    cubed_levels: u64,
    passes: u64,
}

/// A grid broadphase: [`Kind::Uniform`] (`grid`) or [`Kind::Hierarchical`] (`hgrid`). See the crate docs for how
/// it works and what it costs.
#[derive(Clone, Debug)]
pub struct Grid {
    kind: Kind,
    config: GridConfig,
    planner: Planner,
    plan: Plan,
    /// The body pass's chunks; the first `active_chunks` are this frame's.
    chunks: Vec<BodyChunk>,
    active_chunks: usize,
    /// The partitions; the first `plan.parts()` are this frame's (the rest keep their buffers for larger frames).
    parts: Vec<Part>,
    /// Each partition's search.
    searches: Vec<Search>,
    /// Each level's cubes, for the coarser levels' scans (`cubes.rs`).
    cubes: Vec<Cubes>,
    last: LastStats,
}

impl Grid {
    /// A grid of `kind` with `config`; a `cell_factor` below 1/4 is raised to it (cells much smaller than the
    /// boxes put every box on a coarser level anyway).
    #[must_use]
    pub fn new(kind: Kind, config: GridConfig) -> Self {
        let config = GridConfig {
            cell_factor: config.cell_factor.max(0.25),
            cell_size: if config.cell_size.is_finite() { config.cell_size.max(0.0) } else { 0.0 },
            ..config
        };
        Self {
            kind,
            config,
            planner: Planner::default(),
            plan: Plan::default(),
            chunks: Vec::new(),
            active_chunks: 0,
            parts: Vec::new(),
            searches: Vec::new(),
            cubes: Vec::new(),
            last: LastStats::default(),
        }
    }

    /// The uniform grid with default tuning.
    #[must_use]
    pub fn uniform() -> Self {
        Self::new(Kind::Uniform, GridConfig::default())
    }

    /// The hierarchical grid with default tuning.
    #[must_use]
    pub fn hierarchical() -> Self {
        Self::new(Kind::Hierarchical, GridConfig::default())
    }

    /// Build from registry parameters (`cell_factor`, `cell_size`).
    #[must_use]
    pub fn from_params(kind: Kind, params: &Params) -> Self {
        let d = GridConfig::default();
        let config = GridConfig {
            cell_factor: params.try_get("cell_factor").map_or(d.cell_factor, |v| v as f32),
            cell_size: params.try_get("cell_size").map_or(d.cell_size, |v| v as f32),
            ..d
        };
        Self::new(kind, config)
    }

    /// Uniform or hierarchical.
    #[must_use]
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The tuning in effect (after clamping).
    #[must_use]
    pub fn config(&self) -> GridConfig {
        self.config
    }

    /// The levels' cubes, for the tests of their invariants' check.
    #[cfg(test)]
    pub(crate) fn cubes_mut(&mut self) -> &mut [Cubes] {
        &mut self.cubes
    }

    /// This frame's partitions.
    fn active_parts(&self) -> &[Part] {
        &self.parts[..self.plan.parts().min(self.parts.len())]
    }

    /// What to ask the planner for a frame of `n` bodies, and whether the frame runs in parallel.
    fn request(&self, n: usize) -> (Request, bool) {
        let parallel = self.config.parallelism.is_parallel(n);
        // Serially too, no partition much larger than the second-level cache.
        let threads = if parallel { rayon::current_num_threads() * PARTS_PER_THREAD } else { 1 };
        let parts = threads.max(n / PART_ENTRIES);
        let request = Request {
            kind: self.kind,
            cell_factor: self.config.cell_factor,
            cell_size: self.config.cell_size,
            parts,
            cubes: self.config.cubes,
        };
        (request, parallel)
    }
}

impl Broadphase for Grid {
    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Uniform => "grid",
            Kind::Hierarchical => "hgrid",
        }
    }

    /// O(n) for the body pass, the partitions' counting sorts and the sweeps' merges, plus the sorts of crowded
    /// cells and the sweeps' candidates (see the crate docs).
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        if self.config.parallelism.is_parallel(frame.aabbs.len()) {
            collide_broadphase::parallel::keep_awake(|| self.find(frame, out));
        } else {
            self.find(frame, out);
        }
    }

    fn stats(&self) -> Stats {
        let l = &self.last;
        let mean = if l.occupied == 0 { 0.0 } else { l.entries as f64 / l.occupied as f64 };
        Stats::from(l.tally)
            .with("cells", l.buckets as f64)
            .with("occupied_cells", l.occupied as f64)
            .with("max_occupancy", l.max_occupancy as f64)
            .with("mean_occupancy", mean)
            .with("cell_size", self.plan.cells.edge[0])
            .with("partitions", self.plan.parts() as f64)
            .with("entries", l.entries as f64)
            .with("invalid_boxes", l.invalid as f64)
            .with("levels", f64::from(self.plan.present.count_ones()))
            .with("scanned_rows", l.scans.rows as f64)
            .with("cubed_levels", l.cubed_levels as f64)
            .with("cube_columns", l.scans.cube_columns as f64)
            .with("untested_pairs", l.scans.untested as f64)
            .with("body_passes", l.passes as f64)
    }

    /// A permutation (the simulation's spatial reorder) changes nothing here: the grid is built anew every frame
    /// from that frame's boxes, and what it carries — the plan's cell size and levels, the levels met last frame
    /// and every buffer — says nothing of which body has which index. So a permutation keeps them all, O(1): the
    /// default (`reset`) would drop the planner's and the plan's buffers, which the next frame would allocate
    /// again, and forget the levels met last, which can cost it a second body pass. Any other resize resets.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if !resize.is_permutation() {
            self.reset();
        }
    }

    fn reset(&mut self) {
        // Nothing is carried from frame to frame but the levels met last (a hint); forget the last frame's cells
        // (their buffers stay).
        for part in &mut self.parts {
            part.clear();
        }
        for chunk in &mut self.chunks {
            chunk.parts.iter_mut().for_each(Vec::clear);
        }
        for cubes in &mut self.cubes {
            cubes.built = false;
        }
        self.planner = Planner::default();
        self.plan = Plan::default();
        self.last = LastStats::default();
    }

    fn validate(&self) -> Result<(), String> {
        let (n, invalid) = (self.last.bodies as usize, self.last.invalid as usize);
        crate::validate::validate(&self.plan, self.active_parts(), n, invalid)?;
        // Cubes only of a present level with a coarser one, each holding its level's records.
        let present = self.plan.present;
        for cubes in self.cubes.iter().filter(|c| c.built) {
            let l = cubes.level;
            if present >> l & 1 == 0 || present >> l == 1 {
                return Err(format!("cubes of level {l}, which is absent or the coarsest (levels {present:#b})"));
            }
            cubes.validate(&self.plan, self.active_parts()).map_err(|e| format!("cubes of level {l}: {e}"))?;
        }
        Ok(())
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        debug_geometry(&self.plan, self.active_parts(), out);
    }
}

/// Partitions `first..` of the search with their part of the output (from slot `base`): split in two halves of
/// about equal time (as the partitions' searches took in the last frames, [`Search::nanos`]; of equal counts while
/// none was timed) down to one partition, each half a task of [`Parallelism::for_each`] (two at a time, on the
/// stack: nothing allocated per frame), so that every partition writes its own block of the output, in parallel.
///
/// **Why by time:** a coarse level's partitions scan the finer levels for every body, and cost several times a
/// fine one's. On `power-law` at 10⁴ bodies on two threads (17 partitions; three coarse ones of 120–220 µs
/// among fourteen of 1–80 µs, 1.1 ms of searches in all), halves of equal counts put two of the three coarse
/// ones behind each other on one thread, which ran 0.67 ms while the other stopped at 0.47: the search took
/// 0.74 ms a frame. The partitions' counters (their `work`) were no guide: per unit, a coarse partition's took
/// seven times a fine one's time.
#[derive(Default)]
struct Task<'a> {
    first: usize,
    base: usize,
    searches: &'a mut [Search],
    out: &'a mut [Pair],
}

impl Task<'_> {
    /// Run `search(p, search, block)` for each partition of the task, the halves in parallel when `parallelism`
    /// says so for `n` bodies (and each partition timed then). O(partitions × log₂ partitions) of splitting.
    fn run(self, parallelism: Parallelism, n: usize, search: &(impl Fn(usize, &mut Search, &mut [Pair]) + Sync)) {
        let Task { first, base, searches, out } = self;
        match searches.len() {
            0 => {}
            1 => {
                let s = &mut searches[0];
                let at = s.block.start - base;
                let block = &mut out[at..at + s.block.capacity];
                if parallelism.is_parallel(n) {
                    let start = std::time::Instant::now();
                    search(first, s, block);
                    let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    // Half the last time and half the one before: a frame's preemption moves the split for a few.
                    s.nanos = s.nanos / 2 + nanos / 2;
                } else {
                    search(first, s, block);
                }
            }
            len => {
                let mid = halves_of_time(searches);
                let cut = searches[mid].block.start - base;
                let (s1, s2) = searches.split_at_mut(mid);
                let (o1, o2) = out.split_at_mut(cut);
                let mut halves = [
                    Task { first, base, searches: s1, out: o1 },
                    Task { first: first + mid, base: base + cut, searches: s2, out: o2 },
                ];
                debug_assert!(mid > 0 && mid < len);
                parallelism.for_each("grid search", n, &mut halves, |_, half| {
                    std::mem::take(half).run(parallelism, n, search);
                });
            }
        }
    }
}

/// Where to cut `searches` (at least two) in two: the cut from 1 to `len − 1` whose first half's time
/// ([`Search::nanos`]) is nearest half the total, the first such; the middle when none has been timed. O(len).
fn halves_of_time(searches: &[Search]) -> usize {
    let len = searches.len();
    let total: u64 = searches.iter().map(|s| s.nanos).sum();
    if total == 0 {
        return len / 2;
    }
    let (mut best, mut best_gap, mut before) = (1, u64::MAX, 0u64);
    for (mid, s) in searches[..len - 1].iter().enumerate().map(|(i, s)| (i + 1, s)) {
        before += s.nanos;
        let gap = before.abs_diff(total - before);
        if gap < best_gap {
            (best, best_gap) = (mid, gap);
        }
    }
    best
}

impl Grid {
    /// [`Broadphase::find_pairs`], on a thread whose pool is kept awake when parallel.
    ///
    /// **Why awake:** a frame is five parallel sections (plan, body pass, builds, search, gather) with short
    /// serial stretches between them, and a pool worker that found nothing to do falls asleep and takes 15–25 µs
    /// to wake on the development VM. Called from a loop that does serial work between frames (the `peers`
    /// study checks each frame's pairs), every section paid that wake-up: on `power-law` at 10⁴ bodies the body
    /// pass's two chunks started 15–27 µs apart and ran in series, and the frame took 1.17 ms where the
    /// simulation, which keeps its pool awake, took 0.92. Kept awake for the frame, the wake-up is paid once:
    /// the study's `hgrid` went from 1.13–1.14 ms to 1.05–1.06 (load ~1).
    fn find(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        let n = aabbs.len();
        // Not cleared: the blocks reuse last frame's slots (`output.rs`).
        let out = out.as_mut_vec();
        let (request, parallel) = self.request(n);
        let parallelism = self.config.parallelism;
        self.planner.plan(aabbs, &request, &mut self.plan);
        let policy = frame.invalid_boxes;

        // The body pass: entries into each chunk's per-partition vectors; again when it met a level the plan lacked.
        let chunks = if parallel { rayon::current_num_threads() * CHUNKS_PER_THREAD } else { 1 };
        if self.chunks.len() < chunks {
            self.chunks.resize_with(chunks, BodyChunk::default);
        }
        for (c, chunk) in self.chunks[..chunks].iter_mut().enumerate() {
            chunk.bodies = c * n / chunks..(c + 1) * n / chunks;
        }
        self.active_chunks = chunks;
        let mut passes = 0;
        loop {
            let plan = &self.plan;
            parallelism.for_each("grid bodies", n, &mut self.chunks[..chunks], |_, chunk| {
                chunk.scatter(aabbs, plan, policy);
            });
            passes += 1;
            let natural = self.chunks[..chunks].iter().fold(0, |set, c| set | c.natural);
            if !self.planner.met(natural, &request, &mut self.plan) {
                break;
            }
        }

        // The partitions: gather their entries and build their buckets; then search them.
        let (plan, parts) = (&self.plan, self.plan.parts());
        if self.parts.len() < parts {
            self.parts.resize_with(parts, Part::default);
            self.searches.resize_with(parts, Search::default);
        }
        if self.cubes.len() < crate::plan::MAX_LEVELS {
            self.cubes.resize_with(crate::plan::MAX_LEVELS, Cubes::default);
        }
        let body_chunks = &self.chunks[..chunks];
        let build_parts = |parts: &mut [Part]| {
            parallelism.for_each("grid parts", n, parts, |p, part| {
                let buckets = plan.levels[usize::from(plan.part_level[p])].part_buckets();
                part.build(buckets, &plan.x_bins, body_chunks.iter().map(|c| &c.parts[p][..]));
            });
        };
        // The levels the plan cuts into cubes too, for the coarser levels' scans (`cubes.rs`), from the same
        // entries as their partitions, beside their builds.
        let cut = plan.cut;
        let build_cubes = |cubes: &mut [Cubes]| {
            cubes.iter_mut().for_each(|c| c.built = false);
            if cut != 0 {
                let top = 32 - cut.leading_zeros() as usize;
                parallelism.for_each("grid cubes", n, &mut cubes[..top], |l, cubes| {
                    if cut >> l & 1 == 1 {
                        let own = plan.level_parts(l);
                        let n = body_chunks.iter().flat_map(|c| &c.parts[own.clone()]).map(Vec::len).sum();
                        let runs = body_chunks.iter().flat_map(|c| c.parts[own.clone()].iter().map(Vec::as_slice));
                        let corners = body_chunks.iter().fold(Corners::default(), |all, c| all.union(c.corners[l]));
                        cubes.build(plan, l, n, corners, runs);
                    }
                });
            }
        };
        let (parts_now, cubes_now) = (&mut self.parts[..parts], &mut self.cubes[..]);
        if parallelism.is_parallel(n) {
            rayon::join(|| build_parts(parts_now), || build_cubes(cubes_now));
        } else {
            build_parts(parts_now);
            build_cubes(cubes_now);
        }
        let built = &self.parts[..parts];
        let cubes = &self.cubes[..];
        // Each partition's pairs straight into its block of the output (`output.rs`).
        let searches = &mut self.searches[..parts];
        lay_out(searches, out);
        let task = Task { first: 0, base: 0, searches, out: &mut out[..] };
        task.run(parallelism, n, &|p, search, block| search_part(p, plan, built, cubes, search, block));
        gather(&mut self.searches[..parts], out);
        self.last = self.count(n, passes);
    }

    /// The counters of the frame just searched: the tallies and the buckets' shape.
    fn count(&self, n: usize, passes: u64) -> LastStats {
        let cubed_levels = self.cubes.iter().filter(|c| c.built).count() as u64;
        let mut last = LastStats { bodies: n as u64, passes, cubed_levels, ..LastStats::default() };
        for chunk in &self.chunks[..self.active_chunks] {
            last.tally += chunk.tally;
            last.invalid += chunk.invalid;
        }
        let parts = self.plan.parts();
        for (part, search) in self.parts[..parts].iter().zip(&self.searches[..parts]) {
            last.tally += part.tally + search.tally;
            last.buckets += part.buckets() as u64;
            last.entries += part.records.len() as u64;
            last.occupied += search.occupied;
            last.scans += search.scans;
            last.max_occupancy = last.max_occupancy.max(search.max_occupancy);
        }
        last
    }
}

#[cfg(test)]
mod split_tests {
    use super::halves_of_time;
    use crate::search::Search;

    fn timed(nanos: &[u64]) -> Vec<Search> {
        nanos.iter().map(|&nanos| Search { nanos, ..Search::default() }).collect()
    }

    /// The cut puts about half the measured time on each side, however the slow partitions lie; untimed
    /// partitions are cut in the middle; a cut never leaves a side empty.
    #[test]
    fn the_search_splits_where_the_measured_times_halve() {
        // Two slow partitions at the ends: by count the cut is at 3 either way, by time too (220 | 220).
        assert_eq!(halves_of_time(&timed(&[200, 10, 10, 10, 200, 10])), 3);
        // Both slow ones first: by count 2 of 4 would put 400 of 430 on one side; by time 200 | 230.
        assert_eq!(halves_of_time(&timed(&[200, 200, 10, 10, 10])), 1);
        // Most of the time in the last partition: it goes alone.
        assert_eq!(halves_of_time(&timed(&[5, 5, 5, 5, 900])), 4);
        // One partition holds all the time: the cut stays inside (at 1 or len − 1), and of equal gaps the first.
        assert_eq!(halves_of_time(&timed(&[1000, 0, 0])), 1);
        assert_eq!(halves_of_time(&timed(&[0, 0, 1000])), 1);
        assert_eq!(halves_of_time(&timed(&[0, 5, 1000])), 2);
        // Nothing timed yet (serial frames, or the first parallel one): the middle.
        assert_eq!(halves_of_time(&timed(&[0; 7])), 3);
        assert_eq!(halves_of_time(&timed(&[0, 0])), 1);
    }
}
