//! Grid broadphases: a hashed uniform grid (`grid`) and a hierarchical grid (`hgrid`), built every frame by a
//! counting sort, searched cell by cell four lanes at a time, in parallel.
//!
//! A uniform grid cuts space into cells about the size of the bodies and tests only bodies in neighbouring cells:
//! bodies far apart are never compared. A hierarchical grid stacks grids of doubling cell sizes and puts each body
//! on the one that fits it. Nothing is kept from frame to frame but buffers (and, as planning hints, the levels
//! the last frame met and chose, and its partitions' counts): both grids are planned, built and searched anew every frame, so a frame costs the same
//! whether the bodies crept or teleported.
//!
//! # What the naive version gets wrong
//!
//! The textbook grid keeps a dense array of cells over the world, or a hash map from a cell to a vector of its
//! bodies, stores each body in every cell its box touches, tests every pair of a cell, and removes the pairs found
//! twice with a hash set. A dense array is sized by the world, not by the bodies; a hash map costs a lookup and a
//! vector per cell; copying a body into every cell it touches multiplies the work (two to eight copies of a box
//! the size of a cell) and needs the deduplication; one cell size fits one body size; and writing bodies into
//! shared cells is serial. The first version of this crate fixed most of that — a torus of columns, slabs along
//! x, each box copied into each slab and column it reached, two counting sorts per slab, an ownership rule instead
//! of deduplication — and spent about 120 ns a body on one thread at 10⁵ bodies, a third of it on its counting
//! sorts and another on sweeps: every box was entered one to three times, and each entry sorted and swept.
//!
//! # What this one does
//!
//! A frame is a plan from a sample, one pass over the bodies, and per partition a build and a search (`grid.rs`).
//!
//! - **Each body stored once, in the cell of its min corner** (`plan.rs`). Space is cut on y and z only; x is
//!   left to the search. A box is *small* at a level when its corners' cells there differ by at most one on each
//!   axis, and it lives at the first level where it is small. Two small boxes that overlap have min corners whose
//!   cells differ by at most one on each axis (on y, if `a.min.y <= b.min.y` then `b.min.y <= a.max.y`, so
//!   `cell(a.min.y) <= cell(b.min.y) <= cell(a.max.y) <= cell(a.min.y) + 1`, from monotonicity alone, whatever
//!   the rounding). So a body need not be copied anywhere: its cell's neighbours hold every body it can overlap.
//! - **Levels that nest exactly.** Level 0's cells are `cell_factor` times a reference box (the median's larger side
//!   on y and z for `grid`, the 10th percentile's for `hgrid`), computed once per box as integers (a monotone
//!   floor, clamped to ±(2²² − 1)); level `l`'s cell is level 0's shifted right by `l`. A box small at a level is
//!   small at every coarser one, and every box is small at level 22 ([`MAX_LEVELS`]): no box is too large for the
//!   hierarchy.
//! - **A torus of columns sized by the bodies** (`planner.rs`). A level's cells `(j, k)` go to column
//!   `(j mod 2^a, k mod 2^b)`: a column per cell of the bulk of the scene when they are few, rounded to a power of
//!   two per axis (down when that folds at most a quarter of them), else folded onto about [`COLUMNS_PER_ENTRY`]
//!   per body, and never fewer than 4 × 4. Memory follows the bodies, not the world: a scene in a world a thousand
//!   times wider than its clusters folds onto as many columns as a dense one of as many bodies.
//! - **Exactly once, with no check per pair** (`search.rs`). Each bucket (a column) is searched within itself and
//!   against its four forward neighbours `(0, +1)`, `(+1, −1)`, `(+1, 0)`, `(+1, +1)`. With at least four columns
//!   a side, a cell's nine neighbourhood offsets are nine distinct buckets, so two overlapping boxes — whose real
//!   offset `d` is within one cell — meet only from the body whose forward neighbour the other's bucket is, at
//!   offset `d`, or within one bucket when `d = 0`. Bodies of cells folded together share buckets and are compared
//!   in vain, never reported twice. No ownership test, no deduplication.
//! - **Built by one counting sort per partition** (`bodies.rs`, `part.rs`). The torus rows are cut into
//!   partitions, the parallel tasks. The body pass reads each box once, checks it, computes its cells and level and
//!   writes its sweep record and bucket (32 bytes) to its chunk's vector for the partition; a partition counts its
//!   entries per bucket, then copies each record into its bucket, with its extent along x in two plain arrays
//!   (`lo`, `−hi`), reading its entries in order (entries of 8 bytes with the partition reading the caller's boxes
//!   cost less to write, but a partition's bodies lie all over the array of boxes: at 10⁶ bodies half its build
//!   waited on them). Buckets are ranges of one array, never
//!   vectors of their own; a partition of about [`PART_ENTRIES`] entries fits the second-level cache while it is
//!   built.
//! - **All against all, four lanes at a time.** A cell holds a few bodies (six at 10⁵ uniform bodies), and a sweep
//!   would cost a merge step per body in each of the nine buckets it meets; comparing all pairs costs about a
//!   quarter of that: eight records of a bucket held in two four-lane vectors (glam's SSE2 `Vec4`), each record
//!   of the buckets it meets compared against all eight along x in one pass (two comparisons, an `and`, a mask),
//!   the few that overlap along x tested whole out of line, in batches: each comparison writes its candidate to
//!   the next slot and takes the slot only when it met something, without a branch on whether it did (that
//!   branch mispredicted on most comparisons that met: `uniform` at 10⁵ bodies, one thread, 4.6 ms a frame with
//!   it, 3.9 without). Buckets of up to four records are transposed: each of
//!   their records against the others four at a time, so that no lane waits on a record the bucket does not have.
//!   A bucket of more than [`CROWD`] records is a crowd: sorted by `min.x` (after a counting
//!   sort by bins of x when most of a partition is crowds), given integer keys, and merged with other crowds
//!   branch-free along x.
//! - **Pairs written once, in parallel, where they stay** (`output.rs`). Each partition's search writes into its
//!   own block of the caller's output, sized from what it found last frame plus an eighth; what overflows goes to
//!   the partition's spill, and at the end the few holes below the total are filled from the pairs past it and
//!   the spills. Gathering each partition's pairs and copying them into the output wrote every pair twice and
//!   copied them on one thread (18 MB a frame at `power-law`'s 2.3 million pairs). A candidate that fails its
//!   test on y or z is written to the next slot anyway and the slot not taken, without a branch: half of
//!   `power-law`'s candidates fail, a mispredicted branch each (about a tenth of its frame's time).
//! - **Across levels, the coarse body scans** (`search.rs`). A body of a coarser level scans, at each finer
//!   present level, the columns that could hold the min corner of a box overlapping it — one cell before its own
//!   min corner's to its max corner's, each torus column at most once — four records at a time. A finer body
//!   lives in one column, so each such pair is met once; finer bodies never scan.
//! - **Finer levels cut on x too: cubes** (`cubes.rs`). A level's columns run the whole world along x, so those
//!   scans compared about ten records per pair found. Where the cost model says so, a finer level is indexed a
//!   second time, beside its partitions' build and from the same entries: in cubes two of its cells wide on all
//!   three axes, laid out densely with x fastest. A coarse body then reads, per column of cubes it covers, the
//!   one run of records within its reach along x, tests them four at a time (along x alone where the column
//!   lies inside its box on y and z), and writes the pairs of the cubes strictly inside its box without a test. A level whose cubes would be more than four per body (a
//!   sparse world) is scanned by its columns.
//! - **Levels chosen by a cost model** (`planner.rs`). The sample's natural levels say which levels have bodies;
//!   the planner weighs each level standing alone (its bodies in cells their size, each scanning the finer levels'
//!   columns or cubes it covers) against merging it into the next coarser one (its bodies in larger cells, whose columns are
//!   longer), with per-entry costs measured here, and keeps the cheapest; the coarsest level always stands. A body
//!   of a level the plan did not foresee makes the frame plan again and repeat the body pass (`body_passes`); the
//!   levels met are kept as a hint for the next frame, and the levels chosen are kept while the model rates them
//!   within 5% of the best ([`KEEP_LEVELS`]): near a tie the sample's few coarse bodies
//!   flipped the choice every few frames, and each flip laid the partitions and their output blocks out anew.
//! - **Bulk bounds against far outliers.** The cells' origin and the tori are planned on the sample's bounds, or,
//!   on an axis where those are more than [`OUTLIER_RATIO`] times wider than a trimmed sample's
//!   ([`sampled_bounds`], [`bulk_bounds`]), on the trimmed bounds: a few bodies at ±1e30 land in far cells (or the
//!   clamped border ones) like any other, and the ordinary bodies keep cells their size.
//!
//! # What breaks next
//!
//! - **Crowds.** Bodies piled in one cell share one bucket: sorted and swept within it, n(n − 1)/2 tests when they
//!   all overlap — the output's own size — and one task.
//! - **Long columns.** The search compares all the records of neighbouring columns, whatever their distance along
//!   x: at 10⁶ uniform bodies a column holds 15 (the world is 300 cells long), and the comparisons per body grow
//!   with the world's length. Cutting x into cells too would shorten the columns at the price of a 27-cell
//!   neighbourhood.
//! - **Size ratios.** Bodies of very different sizes either share cells sized for the large ones (long columns for
//!   the small) or stand on levels of their own, each large body scanning the small ones' columns it covers: at 1:8
//!   with a tenth of the bodies large (`mixed-sizes`) both cost about half again a uniform scene's frame. Sizes
//!   of a heavy tail (`power-law`: radii from 0.5 to a fifth of the world, five levels) spend two thirds of the
//!   frame in the coarse bodies' scans, whose columns run the whole world along x: about ten records compared
//!   per pair found. (An index of the coarse bodies cut on all three axes, queried by the small ones, was tried
//!   and measured no faster: cells sized for the smallest indexed bodies held a hundred registrations each, and
//!   finer cells registered the largest bodies thousands of times. Two more were tried at 10⁵ `power-law` bodies
//!   and taken back: the finer levels' buckets sorted along x, each column narrowed by two binary searches to the
//!   stretch that can reach the scanning box — a quarter fewer blocks compared, and 51–56 ms a frame where the
//!   unchanged code measured 29–32 before and 34.5–38.1 after (not side by side; load 0.8–1.7), as a column holds
//!   six records and the searches cost more than they skip; and the finer levels' cross bounds and bodies in
//!   arrays of their own, so that the scan tests whole boxes four at a time and loads no record — the same time,
//!   34.6–40.0 ms against 34.5–38.1 side by side. So neither the records compared nor their loads are the
//!   cost; the visits to the columns (404 000 rows a frame there, `scanned_rows`) are what is left to cut.)
//!   Measured again on 10⁵ `power-law` bodies (commit `fb1d029`, replayed, one thread, load 1.3–1.9): about 58 ms
//!   a frame, of which 14 are everything but the scans, 5 the scans' walk over rows and columns without a
//!   comparison, and about 40 `one_pairs` itself: 5.2 million blocks of four compared along x, 2.6 million
//!   candidates tested whole, 2.0 million pairs. Levels 1–2 scanning level 0 cost about 20 ms for 0.3 million
//!   pairs, levels 3 and up about 27 ms for 1.7 million. Three more changes were tried and taken back, each giving
//!   the same pairs: the candidates gathered without a branch (valgrind's simulated mispredictions down from 2.6
//!   to 0.6 million a frame) ran in the same time; whole boxes tested from arrays of their own, the pairs written
//!   without a branch, ran 22% slower (four slots written per block), and with a branch on the block's mask in
//!   the same time; crowds narrowed by two binary searches (sorted by `min.x`, within the partition's longest
//!   extent) ran slower at these cells and 9% faster at cells four times larger. So the comparisons wait on their
//!   loads more than on branches or tests. The plan matters more: level-0 cells twice or four times the chosen
//!   ones (`cell_size` 2.37, 4.74: the finest levels merged into crowded columns, 124 000 and 30 000 rows
//!   scanned) ran 26.7–29.9 and 25.5–25.8 ms at two threads against 31.9–33.6 for the chosen plan, side by side.
//!   The cost model rated plans merging the finest levels 6–11% dearer than its choice (each weighed plan's cost
//!   printed for one frame), as it priced a scanned row at 15 against 10
//!   per record compared, where the rows measured seven times a record: at that measured price (`SCAN_ROW`
//!   in `planner.rs`) it now merges level 0 into level 1 there, 25.4–27.0 ms against 28.9–30.9 side by side.
//!   (Scaling the whole scan term instead led it to other, slower merges.) That is still 1.5 times the 18 ms
//!   that five times parry's rebuilt BVH asks for. The cubes (`cubes.rs`) then cut the scans themselves: 30 ms
//!   a frame on one thread where the columns took 47, 16.2–17.4 ms at two threads against 25.3–26.8 side by
//!   side; four records tested per pair became under two, and about a fifth of the pairs are written untested.
//!   Counted at 10⁵ bodies (one thread, 30 recorded frames), the scans then ran 322 000 runs and 4.3 million
//!   records tested a frame, nine in ten of them in columns on the boundary of the scanning box on y or z, where a
//!   quarter of the records tested overlap it; a block of four cost about 85 instructions, the seven arrays'
//!   pointers reloaded from the stack and the output's count stored on every block. Records kept four to a block
//!   (`Quad`), the run's output slots taken at once, and the columns inside the box on y and z tested along x
//!   alone: 9.09 → 8.65 G instructions in all over those frames (−4.9%), 1.30 → 1.22 G at 10⁴ (−5.7%), the same
//!   pairs. Then each candidate's pair written as (scanning body, record) and the pairs kept ordered once at the
//!   end of the body's scan (`Sink::order_from`), and `SweepBox::overlaps` asking its four cross-axis lanes at
//!   once (the crowds' tests): 8.38 G (−7.9% in all) and 1.17 G (−9.6%).
//! - **Folding.** A sparse world with more cells than its torus has columns folds cells far apart onto one column;
//!   their bodies are compared in vain.
//! - **No memory.** Every frame pays for the whole scene, however little moved: for slow scenes the structures
//!   that persist (`sap`, `bvh-dynamic`, `kd`) redo less.
//!
//! # Complexity
//!
//! n bodies, k overlapping pairs, m the bodies of a column (the `mean_occupancy` stat), c the columns (`cells`),
//! s = min(n, [`SAMPLE`]) sampled boxes, L the levels present.
//! - **Plan:** O(s log s) (the quantile) plus O(2^L) level choices (L is 1 or 2 in practice; at most 12 weighed).
//! - **Body pass:** O(n): each box read and checked once, its cells and level computed, 32 bytes written.
//! - **Build:** O(n + c) per frame: per partition a count and a copy of its entries, a counter per bucket; crowds
//!   sorted (nearly sorted after the bins of x).
//! - **Search:** O(n · m + k) comparisons along x — each body against the records of the columns around it, in
//!   blocks of eight — plus O(c) for the columns; crowds merged in O(m) per pair of crowds plus their candidates;
//!   across levels, O(covered columns · their bodies) per coarse body, or with cubes O(covered columns of cubes +
//!   the records within reach) — about the pairs found.
//! - **Cubes:** O(n_l + cubes) per level cut, its entries read three times.
//! - **Memory:** O(n + c), kept across frames: 32 B per body in the chunks' vectors, 28 B of record, 8 B of
//!   extents, and for crowds 8 B of keys per body in the partitions, 4 B per column, 8 B per pair found (in the
//!   output, its blocks an eighth larger than last frame's counts; in the spills only past them); per body of a
//!   level cut into cubes 28 B of bounds and body, 4 B of cube, and 4 B per cube (at most four per body). c is at most
//!   [`COLUMNS_PER_ENTRY`] per body (and 16 per level), so a huge, empty world costs what a dense one of as many
//!   bodies does.
//! - **Best case:** bodies of about one size spread out, cells about the body size: a few bodies per column, and
//!   about 4 · m comparisons per body (the bucket and its four forward neighbours, half of it).
//! - **Worst case:** everything in one cell: one crowd, sorted and swept whole, n(n − 1)/2 tests (the output's own
//!   size), on one task. Sizes spanning many powers of two cost a level each, the coarse bodies scanning every finer
//!   level.
//!
//! # Invalid boxes
//!
//! A box with a corner that is not finite, or with `min > max` on an axis, overlaps nothing. The body pass checks
//! every box ([`is_valid_box`], four-lane) and follows the frame's [`InvalidBoxes`] policy: under
//! [`InvalidBoxes::Panic`] (the default in debug builds) it panics with the workspace's message naming the body and
//! its box; otherwise the body is left out of every cell, counted in `invalid_boxes`, and looked at again next frame.
//! The planner samples valid boxes only. Huge finite coordinates are valid and exact up to ±`f32::MAX`: cells are
//! clamped to ±(2²² − 1) and stay monotone (an infinite `v − origin` clamps too), so the rule above holds; the bins
//! of x saturate; no index can leave its array.
//!
//! # Stats
//!
//! The shared `pair_tests` (boxes tested whole: the comparisons along x play the part of a sweep's order),
//! `work` (boxes read, entries written and copied, blocks compared along x, crowds' merge steps, buckets) and
//! `bytes_touched` (the same in bytes). Then, name-keyed: `cells` (the present levels' columns, empty ones
//! included), `occupied_cells` (columns holding a body), `max_occupancy` (the most bodies in one column),
//! `mean_occupancy` (bodies per occupied column), `cell_size` (level 0's cell edge), `partitions`, `entries`
//! (bodies stored: one each), `invalid_boxes`, `levels` (levels present), `scanned_rows` (rows of finer levels the
//! coarser bodies scanned by their columns), `cubed_levels` (levels cut into cubes), `cube_columns` (columns of
//! cubes the coarser bodies read), `untested_pairs` (pairs of cubes inside the scanning box, written without a
//! test) and `body_passes` (2 when a level the plan did not foresee made it plan again).
//!
//! # Performance tips
//!
//! - `grid` sizes its cells from the median body, `hgrid` from the small ones; both put bodies too large for
//!   their cells on coarser levels and let the cost model merge levels. On bodies of one size they build the same
//!   grid.
//! - `cell_factor` (default [`DEFAULT_CELL_FACTOR`]; at least 1/4): the cell edge over the reference box. Below 1
//!   most bodies span two cells and move up a level (the same grid, coarser); above it the columns lengthen and
//!   the comparisons per body grow with their square. `cell_size` fixes level 0's edge instead.
//! - Watch `mean_occupancy` (a dozen or more: long columns, the world is long along x or the cells too large),
//!   `max_occupancy` against it (a crowd), `levels`, `scanned_rows` and `cube_columns` (sizes spread: each coarse
//!   body's scans),
//!   `body_passes` (a level the sample misses now and then: the frame planned twice).
//! - The frame runs on rayon's threads from [`Parallelism::DEFAULT_MIN_WORK`] bodies when rayon has more than one
//!   thread: the body pass in two chunks per thread, the build and the search in [`PARTS_PER_THREAD`] partitions
//!   per thread (more when the bodies need them, about [`PART_ENTRIES`] each), shared among the levels by their
//!   modelled work, so that work stealing evens them out.
//! - The frame's motion hint is not read, and a warm grid allocates nothing per frame beyond what rayon's job
//!   queue may (`tests/warm_allocations.rs`).
//! - `cargo xtask bench --study side-by-side` (comparison `grids`) times `grid`, `hgrid`, `octree-dup` and `mbp`
//!   interleaved on the same recorded boxes, and is a steady workload for `valgrind --tool=callgrind`.
//!
//! # Measured
//!
//! The bench's peers study (`cargo xtask bench --study peers`, commit `aa7c408`, 2 threads, load 1.4 at the
//! start with nothing else running; mean ms per frame of the pair query over the same recorded frames; single
//! figures on this shared 2-core machine move by ±30% between runs):
//!
//! | scene | n | `grid` | `hgrid` | `octree-dup` | `mbp` | `kd` |
//! |---|---|---|---|---|---|---|
//! | `uniform` | 10⁵ | 5.10 | 5.11 | 11.8 | 9.76 | 8.12 |
//! | `uniform` | 10⁶ | 79.9 | 82.9 | 164 | 121 | 101 |
//! | `thesis` | 10⁵ | 3.93 | 3.90 | 10.1 | 7.49 | 6.40 |
//! | `cluster` | 10⁵ | 15.4 | 15.6 | 19.7 | 18.4 | 14.8 |
//! | `mixed-sizes` | 10⁵ | 7.99 | 10.8 | 12.1 | 7.89 | 9.30 |
//!
//! In the whole step (`collide --headless`, `uniform`, median of three interleaved runs) the broadphase takes
//! 3.4 ms at 10⁵ bodies (octree-dup 9.8) and 74 ms at 10⁶ (octree-dup 147). At 10⁶ the frame is bound by memory:
//! the bodies arrive in no spatial order, so the body pass scatters 32 MB of entries to the partitions and each
//! partition gathers them back (`perf`: body pass, build and search about a third each). `mixed-sizes` is where
//! `hgrid` falls short of its purpose: the large bodies' scans of the finer levels and the crowded columns cost
//! more than `mbp`'s sweeps. Peak heap on 8 far-apart clusters in a container 1000 cluster widths wide: 1.41× that
//! of `uniform` at as many bodies (16.9 against 12.0 MB at 10⁵).
//!
//! `power-law` (radii with a heavy tail, 2.3 million pairs a frame at 10⁵ bodies, 93 thousand at 10⁴), two peers
//! runs of commit `c0a9cf7` (`--only hgrid,grid,kd,parry-bvh-rebuild`, load 2.1–4.0), mean ms per frame:
//! `hgrid` 57.4 and 54.9 at 10⁵ (23–25 ns a pair), `grid` 76.8 and 52.0, `kd` 67.9 and 56.2, parry's rebuilt BVH
//! 101 and 94: 1.8 times parry's time; at 10⁴ `hgrid` 1.8 and 3.7 against parry's 5.9 and 6.7. Before the
//! blocks (`output.rs`), three runs gave `hgrid` 62–94 ms at 10⁵ against parry's 95–144. Two thirds of the frame
//! were the coarse bodies' scans (see *What breaks next*). After the cubes (`cubes.rs`, commit `fad62e8`, five
//! runs, load 1.2–2.0): `hgrid` 16.4–22.3 ms at 10⁵ (collide's best 4.6–5.6 times parry's rebuilt BVH, 7.0–8.3 ns
//! a pair) and 1.22–1.68 ms at 10⁴ (3.4–4.7 times), `grid` 18.5–20.5 ms at 10⁵. After the branch-free
//! candidates and the planner's kept levels (commits `79a9d54`, `05d0756`; the levels had flipped every few
//! frames near a tie of the model, each flip a new layout of partitions and output blocks; four runs, load
//! 1.2–1.4): `hgrid` 14.8–16.6 ms at 10⁵ (5.4–6.0 times parry's rebuilt BVH, 6.3–7.1 ns a pair) and 1.04–1.08
//! ms at 10⁴ (5.3–5.6 times).
//!
//! # Modules
//!
//! Layered so that imports point down, bottom up:
//! - `plan.rs`: the frame's plan — level 0's cells, the levels' tori and partitions, the natural level of a box;
//!   pure data.
//! - `part.rs`: one partition's buckets (records, extents, keys, offsets) and their build.
//! - `cubes.rs`: a finer level cut on all three axes, for the coarser bodies' scans: its build and windows.
//! - `planner.rs`: a sample of the frame into a plan: the cell size, the levels (cost model), tori, partitions.
//! - `bodies.rs`: the body pass: each box read, checked and entered for its partition, chunk by chunk.
//! - `output.rs`: the partitions' blocks of the output, their spills, and the gather that closes the holes.
//! - `search.rs`: a partition's search: the forward stencil, all against all in blocks, crowds' merges, and the
//!   coarse bodies' scans of finer levels.
//! - `validate.rs`: the invariants, checked from the grid's own records.
//! - `debug.rs`: the debug view: one box per occupied cell, the level as depth.
//! - `grid.rs`: [`Grid`], the public type behind the `Broadphase` trait: plans, runs the passes, counts.
//!
//! [`bulk_bounds`]: collide_broadphase::region_grid::bulk_bounds
//! [`sampled_bounds`]: collide_broadphase::region_grid::sampled_bounds
//! [`OUTLIER_RATIO`]: collide_broadphase::region_grid::OUTLIER_RATIO
//! [`InvalidBoxes`]: collide_broadphase::InvalidBoxes
//! [`InvalidBoxes::Panic`]: collide_broadphase::InvalidBoxes::Panic
//! [`is_valid_box`]: collide_broadphase::is_valid_box
//! [`Parallelism::DEFAULT_MIN_WORK`]: collide_broadphase::Parallelism::DEFAULT_MIN_WORK

// The layers, bottom up; imports point down only. The data: the frame's plan (cells, levels, tori, partitions),
// one partition's buckets and their build, a finer level's cubes.
mod cubes;
mod part;
mod plan;
// Kernels on the plan: a sample of the frame into a plan; the body pass; a partition's search.
mod bodies;
mod planner;
mod search;
// The pairs' way into the caller's output.
mod output;
// The invariants' check and the debug view, then the public type.
mod debug;
mod grid;
mod validate;

#[cfg(test)]
mod tests;

pub use grid::{Grid, GridConfig, PART_ENTRIES, PARTS_PER_THREAD};
pub use part::CROWD;
pub use plan::{MAX_LEVELS, MAX_TORUS_BITS};
pub use planner::{COLUMNS_PER_ENTRY, Cubing, KEEP_LEVELS, Kind, SAMPLE};

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
