//! [`Grid`]: the uniform and the hierarchical grid behind the [`Broadphase`] trait — the crate's public type, on
//! top of every other module.

use crate::debug::debug_geometry;
use crate::pass::slab_pass;
use crate::plan::Plan;
use crate::planner::{Kind, Planner, Request};
use crate::scatter::BodyChunk;
use crate::search::collect;
use crate::slab::Slab;
use collide_broadphase::{Broadphase, DebugGeometry, Frame, PairList, Parallelism, Params, Stats, Tally};

/// A slab is cut after about this many cells of the finest level along x: slabs are the grid's cells along x,
/// and a bucket (one slab's stretch of one column) then holds a few bodies in a uniform scene, while the boxes
/// copied into the next slab because they reach into it (ghosts) stay near one in `2 · SLAB_CELLS` at cells of two
/// box widths.
pub const SLAB_CELLS: f32 = 4.0;

/// Slabs per rayon thread when the frame runs in parallel, at least: more tasks than threads, so that work
/// stealing evens out slabs of unequal cost (a slab is cut when it holds its share of the bodies, so a dense crowd
/// does not make one slab the whole frame).
pub const SLABS_PER_THREAD: usize = 8;

/// The most slabs: past a few thousand, a slab's fixed costs (a vector per body chunk, a layout, a torus of
/// counters) outweigh a narrower slab.
pub const MAX_SLABS: usize = 4096;

/// Body chunks per rayon thread in the body pass: every body costs about the same there.
const CHUNKS_PER_THREAD: usize = 4;

/// A level's torus has at most this many columns per entry a slab holds: every column of the scene's bounds when
/// they are fewer, so that cells far apart seldom share a bucket's sweep, while the counters of a slab (cleared,
/// summed and moved every frame) stay in proportion to its entries in a world far wider than its bodies.
pub const COLUMNS_PER_ENTRY: f32 = 4.0;

/// Tuning of a [`Grid`]. The registry's parameters map onto the first two fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridConfig {
    /// Cells are this many times the reference box size: the median box's largest side for the uniform grid,
    /// the small boxes' (the 10th percentile) for the hierarchical grid's finest level. Default 4.
    pub cell_factor: f32,
    /// A fixed cell edge (the finest level's), or 0 to size cells from the boxes every frame. Default 0.
    pub cell_size: f32,
    /// When the body pass and the slabs run on rayon's threads. Default: [`Parallelism::default`]; tests lower it.
    pub parallelism: Parallelism,
    /// A slab holds at least this many bodies on average (fewer slabs than [`SLAB_CELLS`] asks for in a scene
    /// of few bodies). Default 256; tests lower it to cut small scenes into many slabs.
    pub min_slab_bodies: usize,
}

impl Default for GridConfig {
    fn default() -> Self {
        Self { cell_factor: 4.0, cell_size: 0.0, parallelism: Parallelism::default(), min_slab_bodies: 256 }
    }
}

/// The counters of the last call.
#[derive(Clone, Copy, Debug, Default)]
struct LastStats {
    tally: Tally,
    invalid: u64,
    bodies: u64,
    records: u64,
    buckets: u64,
    occupied: u64,
    max_occupancy: u64,
    entries: u64,
    queries: u64,
    levels: u64,
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
    /// The slabs; the first `plan.slabs()` are this frame's (the rest keep their buffers for larger frames).
    slabs: Vec<Slab>,
    last: LastStats,
}

impl Grid {
    /// A grid of `kind` with `config`; a `cell_factor` below 1/4 is raised to it (cells much smaller than the
    /// boxes copy every box into dozens of columns).
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
            slabs: Vec::new(),
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

    /// This frame's slabs.
    fn active_slabs(&self) -> &[Slab] {
        &self.slabs[..self.plan.slabs().min(self.slabs.len())]
    }

    /// What to ask the planner for a frame of `n` bodies, and whether the frame runs in parallel.
    fn request(&self, n: usize) -> (Request, bool) {
        let parallelism = self.config.parallelism;
        let parallel = parallelism.is_parallel(n);
        let slabs = if parallel { rayon::current_num_threads() * SLABS_PER_THREAD } else { 1 };
        let request = Request {
            kind: self.kind,
            cell_factor: self.config.cell_factor,
            cell_size: self.config.cell_size,
            slabs,
            max_slabs: (n / self.config.min_slab_bodies.max(1)).clamp(1, MAX_SLABS),
            slab_cells: SLAB_CELLS,
            columns_per_entry: COLUMNS_PER_ENTRY,
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

    /// O(n) for the body pass and the slabs' sorts and counting sorts, plus the sweeps' candidates (see the crate
    /// docs).
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        let n = aabbs.len();
        let out = out.as_mut_vec();
        out.clear();
        let (request, parallel) = self.request(n);
        let parallelism = self.config.parallelism;
        self.planner.plan(aabbs, &request, &mut self.plan);
        let (plan, policy) = (&self.plan, frame.invalid_boxes);
        let slabs = plan.slabs();

        // The body pass: records into each chunk's per-slab vectors.
        let chunks = if parallel { rayon::current_num_threads() * CHUNKS_PER_THREAD } else { 1 };
        if self.chunks.len() < chunks {
            self.chunks.resize_with(chunks, BodyChunk::default);
        }
        for (c, chunk) in self.chunks[..chunks].iter_mut().enumerate() {
            chunk.bodies = c * n / chunks..(c + 1) * n / chunks;
        }
        self.active_chunks = chunks;
        parallelism.for_each("grid bodies", n, &mut self.chunks[..chunks], |_, chunk| {
            chunk.scatter(aabbs, plan, policy);
        });

        // The slabs: gather their entries, build their buckets, search them.
        if self.slabs.len() < slabs {
            self.slabs.resize_with(slabs, Slab::default);
        }
        let single = chunks == 1;
        if single {
            // One chunk: its vectors become the slabs' entries (a swap; both keep their allocations).
            for (slab, part) in self.slabs.iter_mut().zip(&mut self.chunks[0].parts) {
                slab.clear();
                std::mem::swap(&mut slab.records, part);
            }
        }
        let body_chunks = &self.chunks[..chunks];
        parallelism.for_each("grid slabs", n, &mut self.slabs[..slabs], |s, slab| {
            if !single {
                slab.clear();
                for chunk in body_chunks {
                    slab.records.extend_from_slice(&chunk.parts[s]);
                }
            }
            let copied = if single { 0 } else { slab.records.len() as u64 };
            slab.tally = Tally::work(copied, copied * 2 * 28) + slab_pass(slab, s, plan);
        });
        collect(&self.slabs[..slabs], out);
        self.last = self.count(n);
    }

    fn stats(&self) -> Stats {
        let l = &self.last;
        let mean = if l.occupied == 0 { 0.0 } else { l.entries as f64 / l.occupied as f64 };
        let mut stats = Stats::from(l.tally)
            .with("cells", l.buckets as f64)
            .with("occupied_cells", l.occupied as f64)
            .with("max_occupancy", l.max_occupancy as f64)
            .with("mean_occupancy", mean)
            .with("cell_size", self.plan.levels.first().map_or(0.0, |lv| lv.cell))
            .with("slabs", self.plan.slabs() as f64)
            .with("ghosts", l.records.saturating_sub(l.bodies.saturating_sub(l.invalid)) as f64)
            .with("entries", l.entries as f64)
            .with("invalid_boxes", l.invalid as f64);
        if self.kind == Kind::Hierarchical {
            stats.set("levels", l.levels as f64);
            stats.set("queries", l.queries as f64);
        }
        stats
    }

    fn reset(&mut self) {
        // Nothing is carried from frame to frame; forget the last frame's cells (their buffers stay).
        for slab in &mut self.slabs {
            slab.clear();
        }
        for chunk in &mut self.chunks {
            chunk.parts.iter_mut().for_each(Vec::clear);
        }
        self.plan = Plan::default();
        self.last = LastStats::default();
    }

    fn validate(&self) -> Result<(), String> {
        crate::validate::validate(&self.plan, self.active_slabs())
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        debug_geometry(&self.plan, self.active_slabs(), out);
    }
}

impl Grid {
    /// The counters of the frame just searched: the tallies and the buckets' shape.
    fn count(&self, n: usize) -> LastStats {
        let mut last = LastStats { bodies: n as u64, ..LastStats::default() };
        for chunk in &self.chunks[..self.active_chunks] {
            last.tally += chunk.tally;
            last.invalid += chunk.invalid;
        }
        let mut present = 0u64;
        for slab in self.active_slabs() {
            last.tally += slab.tally;
            last.records += slab.records.len() as u64;
            last.buckets += u64::from(slab.layout.buckets);
            last.entries += slab.cells.len() as u64;
            last.occupied += slab.occupied;
            last.max_occupancy = last.max_occupancy.max(slab.max_occupancy);
            last.queries += slab.queries;
            present |= slab.layout.present;
        }
        last.levels = u64::from(present.count_ones());
        last
    }
}
