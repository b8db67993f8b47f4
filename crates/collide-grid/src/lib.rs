//! Grid broadphases: a hashed uniform grid (`grid`) and a hierarchical grid (`hgrid`), built every frame by
//! sorting, searched by sweeps, in parallel.
//!
//! A uniform grid cuts space into cells about the size of the bodies, stores each body in every cell its box
//! touches, and tests only the bodies that share a cell: bodies in cells apart are never compared. The
//! hierarchical grid stacks uniform grids of doubling cell sizes and puts each body on the one that fits its size.
//! Nothing is kept from frame to frame: both grids are planned, built and searched anew for every frame, so a frame
//! costs the same whether the bodies crept or teleported.
//!
//! # What the naive version gets wrong
//!
//! The textbook grid keeps a dense array of cells over the world's bounds, or a hash map from a cell's coordinates
//! to a vector of its bodies, fills it body by body, tests every pair of bodies in each cell, and removes the pairs
//! found twice through a hash set. Each step goes wrong somewhere:
//! - a dense array is sized by the world, not by the bodies: clusters far apart pay for the empty space between
//!   them. A hash map avoids that at the price of a lookup and a vector per cell;
//! - copying each body straight into its cells writes to memory at random, and the frame waits on those stores;
//! - a pair of bodies that share several cells is found in each of them, and needs a hash set or a
//!   sort-and-deduplicate pass over the pairs;
//! - testing every pair of a cell is quadratic in its occupancy, and a cell holds a crowd whenever bodies pile up;
//! - one cell size fits one body size: cells sized for the small bodies copy a large one into many cells, cells
//!   sized for the large ones put crowds of small ones into every cell;
//! - it is serial: every body writes into cells that other bodies write into too.
//!
//! # What fixes it
//!
//! A frame is four steps (`grid.rs`): a plan from a sample of the boxes, one pass over the bodies, every slab
//! built and searched on its own (in parallel), and the slabs' pairs concatenated.
//!
//! - **Cells in y and z, hashed onto a torus** (`plan.rs`). A level's cells are squares in y and z, and cell `(j, k)`
//!   goes to column `(j mod 2^a, k mod 2^b)` of a torus of `2^a × 2^b` columns (at most [`MAX_TORUS_BITS`] bits per
//!   axis): two masks and a shift, no hash map, no vector per cell. The torus is sized by the body count, not by the
//!   world: a column per cell of the scene's bounds (each axis rounded up to a power of two) when that is at most the
//!   larger of 256 and [`COLUMNS_PER_ENTRY`] columns per entry a slab is expected to hold, else the bounds' cells
//!   folded onto about that many columns, in the bounds' proportions. So memory follows the bodies, not the world: a
//!   slab holds its entries and an offset per bucket (a column of each level it builds). Cells far apart that fold onto
//!   one column share its bucket; the sweep along x and the four-lane box test on y and z tell them apart.
//! - **Slabs along x** (`planner.rs`, `scatter.rs`). x is cut into slabs at sampled starts: a slab ends after
//!   about [`SLAB_CELLS`] cells of the finest level, or, when the frame runs in parallel, once it holds its share
//!   of the sample ([`SLABS_PER_THREAD`] slabs per rayon thread); at most [`MAX_SLABS`] slabs, and at most one per
//!   `min_slab_bodies` (256) bodies. The outer slabs reach to −∞ and +∞; since boundaries sit on sampled starts,
//!   a gap between far clusters is crossed by one slab, and equal starts are never split. Slabs are at once the
//!   grid's cells along x and its parallel tasks: inside a slab x is not cut again — a *bucket*, one slab's
//!   stretch of one column, is sorted by `min.x` and swept, which prunes x finer than any cell could. A box that
//!   reaches past its slab is copied into every later slab it reaches, a *ghost* there. The body pass reads each
//!   box once (the frame's only pass over the caller's boxes), makes it a 28-byte sweep record and appends it to
//!   its chunk's vector for each slab it reaches (four chunks per rayon thread in parallel), so chunks never share
//!   a buffer; a slab then gathers its vectors in chunk order, and its records are in body order.
//! - **Rows, then columns, by counting sorts** (`build.rs`, `pass.rs`). A slab's buckets are built level by level
//!   by two stable counting sorts, each copying a record into every cell it covers along one axis: the slab's
//!   records into **rows**, keyed by (row along y, bin of x: 16 bins between the slab's smallest and largest
//!   `min.x`), then each row's entries into its **columns** along z. The columns' sort is stable, so every bucket
//!   comes out ordered by bin of x, then by body: nearly sorted by `min.x`, without a sort of the slab. A row's
//!   entries fit the first-level cache, and its columns are built and searched right away, before the next row.
//!   Every bucket is a range of one array. A record's cells are computed once per level (both corners' cells on y
//!   and z in one four-lane vector), and its copy in a row carries its cells along z. A record at most two cells
//!   wide along the axis is counted and copied without a branch per cell.
//! - **A sweep per bucket** (`search.rs`). A bucket of up to three entries tests all its pairs, unsorted; a larger
//!   one is sorted by `min.x` — an insertion sort up to 64 entries, which on a nearly sorted bucket seldom moves a
//!   record, pdqsort above — and swept along x by the shared sparse sweep (`collide_broadphase::sweep`).
//! - **Each pair reported once**, by the workspace's min-corner rule ([`ownership`]): the min corner of two
//!   overlapping boxes' intersection lies in both, and the pair is reported by the slab holding its x and the
//!   column holding its y and z, nowhere else. Its x is the later of the two starts, so a slab reports a pair only
//!   when one of its boxes starts there: two ghosts never meet. Its column is computed by the very function that
//!   placed the boxes, monotone in each coordinate (a rounded subtraction and product, a floor, a clamp), so the
//!   corner's cell lies within both boxes' cell ranges whatever the rounding. The check runs on the pairs that
//!   overlap only: no hash set, no deduplication pass, nothing spent on the tests that fail.
//! - **A level per power of two of body size** (`hgrid`; `plan.rs`, `slab.rs`). Level `l`'s cells are `2^l` times
//!   the finest; a body whose largest side is `e` lives at level `ceil(log2(e / level_extent))`, clamped to the
//!   [`MAX_LEVELS`] levels, with `level_extent = 1.25 · cell / cell_factor` (the slack keeps a crowd of equal
//!   bodies of the reference size on one level, though their sides differ in the last bits). A level's cells are
//!   then at least `cell_factor / 1.25` times its bodies, and above the finest level less than twice that (but for
//!   the top level, which takes every larger body too), so a large body covers a few cells of its own level, not
//!   many of the finest. Each body is a *member* of its level's buckets and, in every slab it reaches, a *query*
//!   in the buckets of each coarser level present in that slab: members are tested against members and against
//!   queries, queries never against queries, so each pair is found at one level only, the coarser of its two
//!   bodies' levels. A slab builds only the levels its records live at.
//! - **Planning from a sample** (`planner.rs`). At most [`SAMPLE`] valid boxes, taken at a fixed stride, give the
//!   cell size — `cell_factor` times the median largest side for `grid`, times the 10th percentile's for `hgrid`'s
//!   finest level, or a fixed `cell_size`; when that box has no size (points), the edge of a cube holding one body
//!   if the bodies were spread evenly over their bounds —, the slab boundaries (among the sampled starts, sorted),
//!   and each level's torus (from the entries the sample predicts there, scaled to the body count). A plan affects
//!   the time taken, never the pairs: the torus covers every box and the outer slabs reach to infinity, so a box
//!   the sample missed lands in its cells like any other.
//! - **Bulk bounds against far outliers** (`planner.rs`, [`bulk_bounds`]). Cells are counted from the bounds' corner
//!   and clamped to ±(2²² − 1), so a sampled body at ±1e30 would put every ordinary body into one cell. The sample's
//!   bounds are compared, axis by axis, with those of a trimmed sample of at most 64 boxes ([`sampled_bounds`]: the
//!   `len / 32` most extreme mins and maxes dropped); on an axis where they are more than [`OUTLIER_RATIO`] times
//!   wider, the levels' origin and tori are planned on the trimmed bounds — where the bulk of the bodies is — and the
//!   far bodies wrap onto the torus like any other box.
//!
//! # What breaks next
//!
//! - **Crowds.** Bodies piled in one cell share one bucket: a sort and a sweep of all of them, n(n − 1)/2 tests
//!   when they all overlap — the output's own size. Bodies that all start at one x share one slab, since equal
//!   starts are never split: one task sweeps them.
//! - **Sizes, in `grid`.** Cells follow the median box: a body much larger is copied into every column it covers
//!   (at most every column of the torus, once each) in every slab it reaches, and swept with each column's bodies.
//!   `hgrid` puts it on a coarse level instead, at a price: a small body is entered again, as a query, at each
//!   coarser level present in its slab, and a slab reads its records once more for each level it builds.
//! - **Folding.** A sparse world with more cells than its torus has columns folds cells far apart onto one column;
//!   their bodies within reach along x are tested against each other in vain.
//! - **Slabs of unequal widths.** A start's slab is looked up through bins between the first and last boundary,
//!   four per slab: O(1) for slabs of similar widths, but clusters far apart along x, or a far outlier among the
//!   sampled starts, put most boundaries into one bin, and the lookup steps over them one by one.
//! - **No memory.** Every frame pays for the whole scene, however little moved: for slow scenes the structures
//!   that persist (`sap`, `bvh-dynamic`, `kd`) redo less.
//!
//! # Complexity
//!
//! n bodies, k overlapping pairs, g ghosts, e bucket entries (the `entries` stat), b buckets (the `cells` stat),
//! t box tests (`pair_tests`), s = min(n, [`SAMPLE`]) sampled boxes, L the levels a slab builds (1 for `grid`).
//! - **Plan:** O(s log s) (the sampled starts sorted, the quantiles selected) plus the slab index, four bins per
//!   slab.
//! - **Body pass:** O(n + g): each box read and checked once, a record written per slab it reaches; a slab's
//!   lookup is O(1) for slabs of similar widths. In parallel, the slabs gather their chunks' records: O(n + g).
//! - **Build:** per slab of m records, O(L · m) for the records' levels and cells and the row sorts' counts, plus
//!   the copies into rows and into buckets, plus a counter per (row, bin) and per bucket: O(L · (n + g) + e + b)
//!   in all. A box no wider than a cell covers at most two cells per axis, so with `cell_factor` ≥ 1 a box of the
//!   reference size makes at most four entries at its level in each slab it reaches.
//! - **Search:** O(e + t): buckets of up to three entries tested pair by pair, larger ones insertion-sorted (about
//!   a comparison per entry when nearly sorted) or pdqsorted above 64 entries, and swept; the ownership check per
//!   overlapping pair found; O(k) to concatenate the slabs' pairs.
//! - **Memory:** O(n + g + e + b), kept across frames: records of 28 B (in the chunks' vectors, and again in the
//!   slabs' when the body pass ran in several chunks), a level (1 B, `hgrid`) and cells along y and z (8 B) per
//!   record, 32 B per row entry, 28 B per bucket entry, 4 B per bucket's offset, and 8 B per pair found, in its
//!   slab and in the output.
//! - **Best case:** bodies of similar sizes spread out, cells a few body widths: a few entries per bucket,
//!   insertion sorts that seldom move a record, and few tests beyond the pairs themselves.
//! - **Worst case:** all bodies at one point (one bucket, n(n − 1)/2 tests: the output's own size, and one task);
//!   in `grid`, sizes spread so widely that large bodies are copied into most columns of every slab they reach; in
//!   `hgrid`, sizes spanning many powers of two, each small body a query at every coarser level present.
//!
//! # Invalid boxes
//!
//! A box with a corner that is not finite, or with `min > max` on an axis, overlaps nothing. The body pass checks
//! every box (nine comparisons) and then follows the frame's [`InvalidBoxes`] policy: under
//! [`InvalidBoxes::Panic`] (the default in debug builds) it panics with the workspace's message naming the body
//! and its box; otherwise the body is left out of every slab and every cell, counted in the `invalid_boxes` stat,
//! and looked at again next frame like any other (nothing is kept). The planner samples valid boxes only. Huge
//! finite coordinates are valid and exact up to ±`f32::MAX`: cells are clamped to ±(2²² − 1) from the bounds'
//! corner and stay monotone, so the ownership rule holds; the levels are planned on the bulk bounds (above); the
//! bins of x stay in range when the starts span more than `f32::MAX`; and slab boundaries are finite sampled
//! starts.
//!
//! # Stats
//!
//! The shared `pair_tests` (box tests of the all-pairs kernels and the sweeps), `work` (boxes read and records
//! written by the body pass, records gathered by the slabs, the slabs' records, copies into rows and buckets,
//! bucket entries searched and sorted, and a counter per bucket) and `bytes_touched` (the same in bytes). Then,
//! name-keyed: `cells` (buckets built this frame over all slabs — a torus's columns per level a slab builds, twice
//! at levels taking queries — empty ones included), `occupied_cells` (buckets holding at least one entry; a
//! column's member and query buckets counted apart), `max_occupancy` (the most entries in one bucket),
//! `mean_occupancy` (entries per occupied bucket), `cell_size` (the finest level's cell edge), `slabs`, `ghosts`
//! (records beyond one per valid body: copies into the later slabs a box reaches), `entries` (bucket entries,
//! members and queries) and `invalid_boxes` (bodies left out). `hgrid` adds `levels` (levels that some slab
//! built) and `queries` (entries in query buckets).
//!
//! # Performance tips
//!
//! - `grid` for bodies of about one size; `hgrid` when sizes spread (a few bodies much larger than the rest). On bodies
//!   of about one size `hgrid` has one level, so it builds what `grid` builds, plus each record's level.
//! - `cell_factor` (default 4; values below 1/4 are raised to it): smaller cells hold fewer bodies but copy each
//!   into more columns (`entries` per body rises), larger cells copy less but hold more bodies per bucket
//!   (`mean_occupancy` and `pair_tests` rise). `cell_size` fixes the finest cell edge instead of sizing it from the
//!   boxes every frame.
//! - Watch `max_occupancy` against `mean_occupancy` (a crowd in one bucket: sorted by pdqsort and swept whole),
//!   `ghosts` against the body count (boxes long along x against the slabs) and `entries` against the body count
//!   (boxes covering many cells: a larger `cell_factor`, or `hgrid`).
//! - The frame runs on rayon's threads from [`Parallelism::DEFAULT_MIN_WORK`] bodies when rayon has more than one
//!   thread: the body pass in four chunks per thread, the slabs cut for balance into [`SLABS_PER_THREAD`] per
//!   thread where the body count allows, so that work stealing evens out slabs of unequal cost. Below that, one
//!   chunk, and slabs cut by width alone.
//! - The frame's motion hint is not read, and nothing is kept between frames but buffers: a warm grid allocates
//!   nothing per frame beyond what rayon's job queue may (`tests/warm_allocations.rs`).
//! - `examples/grid_timing.rs` times `grid`, `hgrid` and `octree-dup` side by side on the same boxes.
//!
//! # Modules
//!
//! Layered so that imports point down, bottom up (all but one: `slab.rs` takes its row entry and its count of bins
//! of x from `build.rs`):
//! - `plan.rs`: the frame's plan — slabs, levels, tori, the cells of a box or a point; pure data.
//! - `slab.rs`: one slab's records, bucket layout, rows, buckets and pairs, kept across frames.
//! - `planner.rs`: a sample of the frame into a plan: the cell size, the levels and their tori, the slabs.
//! - `build.rs`: the stable counting sort that copies records into rows and into columns; the bins of x.
//! - `scatter.rs`: the body pass: each box read, checked and copied to every slab it reaches, chunk by chunk.
//! - `search.rs`: a row's buckets searched, pair by pair or by a sweep, under the ownership rule.
//! - `pass.rs`: one slab's frame: its records' levels, then level by level its rows, each row's columns searched.
//! - `validate.rs`: the invariants, checked from the grid's own records.
//! - `debug.rs`: the debug view: one box per occupied cell, the level as depth.
//! - `grid.rs`: [`Grid`], the public type behind the `Broadphase` trait: plans, runs the passes, counts.
//!
//! [`ownership`]: collide_broadphase::ownership
//! [`bulk_bounds`]: collide_broadphase::grid::bulk_bounds
//! [`sampled_bounds`]: collide_broadphase::grid::sampled_bounds
//! [`OUTLIER_RATIO`]: collide_broadphase::grid::OUTLIER_RATIO
//! [`InvalidBoxes`]: collide_broadphase::InvalidBoxes
//! [`InvalidBoxes::Panic`]: collide_broadphase::InvalidBoxes::Panic
//! [`Parallelism::DEFAULT_MIN_WORK`]: collide_broadphase::Parallelism::DEFAULT_MIN_WORK

// The layers, bottom up; imports point down only. The data: the frame's plan (cells, levels, tori, partitions),
// one partition's buckets.
mod part;
mod plan;
// Kernels on the plan: a sample of the frame into a plan; the body pass; a partition's search.
mod bodies;
mod planner;
mod search;
// The invariants' check and the debug view, then the public type.
mod debug;
mod grid;
mod validate;

#[cfg(test)]
mod tests;

pub use grid::{Grid, GridConfig, PART_ENTRIES, PARTS_PER_THREAD};
pub use plan::{MAX_LEVELS, MAX_TORUS_BITS};
pub use planner::{COLUMNS_PER_ENTRY, Kind, SAMPLE};

use collide_broadphase::ParamSpec;

/// The default `cell_factor`.
pub const DEFAULT_CELL_FACTOR: f32 = 1.1;

/// `cell_factor`: cells are this many times the reference box size.
pub const CELL_FACTOR: ParamSpec = ParamSpec::number(
    "cell_factor",
    "cells are this many times the median box (grid) or the small boxes (hgrid's finest level)",
    DEFAULT_CELL_FACTOR as f64,
    0.25,
    64.0,
);

/// `cell_size`: a fixed cell edge, or 0 to size cells from the boxes.
pub const CELL_SIZE: ParamSpec = ParamSpec::number(
    "cell_size",
    "a fixed cell edge (hgrid: the finest level's); 0 sizes cells from the boxes every frame",
    0.0,
    0.0,
    1.0e30,
);

/// The parameters of `grid` and `hgrid`.
pub const PARAMS: &[ParamSpec] = &[CELL_FACTOR, CELL_SIZE];
