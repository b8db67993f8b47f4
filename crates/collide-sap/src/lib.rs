//! Sweep-and-prune broadphases: incremental SAP, sort-and-sweep, multi-box pruning and pair counting.
//!
//! # The story
//!
//! Project every box on the three axes; two boxes overlap exactly when their intervals overlap on all three.
//! **Incremental SAP** ([`SweepAndPrune`], `sap`) keeps, per axis, the 2n interval endpoints sorted from one
//! frame to the next. Bodies move a little each frame, so the arrays are *almost* sorted and insertion sort
//! restores them in O(n + swaps). Each swap of a begin and an end is an event: a begin passing an end means the
//! two intervals started to overlap on that axis (a full box test decides whether the pair is added); an end
//! passing a begin means they stopped (the pair is removed). The pair set persists between frames. When bodies
//! move slowly — the thesis's 1/64 speed — a frame is a few swaps per body and SAP is the best algorithm by far:
//! the thesis ran 75 000 bodies at 60 fps where every other algorithm was under 30.
//!
//! **What breaks it** is speed. The number of swaps is the number of endpoint pairs that changed order, which
//! grows with displacement × density: at full speed and 100 000 bodies the thesis program made 71 million swaps
//! per frame (646 ms). Worse, in a real-time loop it feeds itself: a slow frame makes the next `dt` longer, the
//! bodies move further, the arrays are less sorted, insertion sort goes towards Θ(n²), the frame is slower still
//! — the thesis saw one frame sink below 1 fps at 12 800 bodies and SAP diverge from 20 000. Insertion sort is
//! also the wrong tool for the first frame: sorting a random order by insertion is n²/4 swaps.
//!
//! **Why global arrays swap so much** even at slow speed: an endpoint passes every endpoint within its displacement
//! *on its axis*, and in a global array those belong to the whole slab of the world at that coordinate — the
//! density per axis is 2n / W, whatever the other two coordinates. Thesis-slow at 10⁵ bodies makes 1.74 million
//! swaps a frame (~22 ms serial CPU), at 10⁶ 174 million (2.6 s).
//!
//! **What fixes it here**:
//! - **regions** (the shape of PhysX's MBP, kept incremental): a coarse grid fixed at the first frame, each region
//!   with its own persistent, insertion-sorted arrays of its bodies' endpoints and the same crossing events. A
//!   region of width W/R holds n/R³ bodies: density 2n / (W·R²), so **R² times fewer swaps**, in arrays that stay
//!   in L1/L2. With ~256 bodies per region (`regions_per_axis = 0`): thesis-slow at 10⁵ bodies, 384 regions,
//!   38 000 swaps a frame (46× fewer) and ~8 ms serial CPU; at 10⁶, 3 757 regions, 1.0 million swaps (170×
//!   fewer) and ~155 ms serial CPU. Bodies spanning several regions are in each; all regions share one pair set,
//!   and every event is true of this frame's boxes, so repeats are harmless and each pair is output once; bodies
//!   crossing region borders are moved in batches (see `transfers.rs` for the pair rule).
//!   `regions_per_axis = 1` is the thesis's algorithm on three global arrays;
//! - initialisation (first frame, after a reset, or [`Broadphase::warm_start`](collide_broadphase::Broadphase::warm_start) with a known pair set when
//!   the meta-broadphase switches to SAP) sorts the endpoints with an O(n) radix sort (scattered in order to the
//!   regions) and fills the pair set by multi-box pruning (or copies the known set) — never insertion sort of a
//!   random order;
//! - a **swap budget** (`rebuild_swaps_per_body`): when insertion sort would exceed it, the frame is rebuilt by
//!   the O(n) path instead, and the next few frames answer by multi-box pruning directly (with doubling back-off).
//!   That caps a frame's cost near the cost of `mbp` whatever the speed, which breaks the feedback loop: a long
//!   `dt` no longer makes the next frame slower than a rebuild. At the thesis's full speed regions still make ~8
//!   swaps per body and axis (37 ms against 7.5 ms for `mbp` at 10⁵), so the budget (4) sends those frames to the
//!   rebuild path;
//! - bodies added and removed ([`Broadphase::on_resize`](collide_broadphase::Broadphase::on_resize)) are patched in batches (Tracy, Buss & Woods 2009):
//!   removed bodies dropped and the rest relabelled per region in one pass, new bodies entered into their regions
//!   next frame like bodies crossing a border: endpoints sorted and merged, pairs found by one sweep that tests
//!   only pairs involving a new body;
//! - a rebuilt-every-frame family immune to speed: **sort-and-sweep** ([`SortSweep`], `sort-sweep`) on the axis
//!   of greatest spread, and **multi-box pruning** ([`MultiBoxPruning`], `mbp`, PhysX's scheme), a sort-and-sweep
//!   per region of a coarse grid, in parallel, because a single sweep axis gets crowded in 3-D as n grows;
//! - **pair counting** ([`PairCount`], `pair-count`), the variant of the self-adjusting-BSP study, with a
//!   hash table of counts instead of its n×n matrix.
//!
//! # Invalid boxes and far coordinates
//!
//! Each algorithm leaves a body with an invalid box (`collide_broadphase::invalid`) out where it reads every box
//! anyway: `sap` where it computes each body's regions (such a body is in no region, so no array holds its
//! endpoints; its pairs are dropped by the re-test of pairs whose bodies changed regions, and it enters its
//! regions like a new body once its box is valid again), `mbp` where it assigns bodies to regions, `sort-sweep`
//! where it makes the sort keys, `pair-count` where it makes each axis's keys (comparing one axis at a time would
//! pair an inverted box).
//!
//! The grids of `sap` and `mbp` cover the bulk of the bodies (`collide_broadphase::region_grid`'s plan): a few bodies at
//! ±1e30 go to the border regions instead of stretching every region so that all the others share one, which made
//! `mbp` a single sort-and-sweep of everything. `sap` decides whether its grid is outgrown from the same trimmed
//! sample, so far bodies do not re-plan it either. `sort-sweep` and `pair-count` sort far coordinates like any
//! others (the radix keys are exact); a far body costs its own candidates.
//!
//! # Modules
//!
//! Layered so that imports point one way: the data (`endpoints.rs`: packed endpoints; `pairset.rs`: the pair
//! set; `region.rs`: one region whole — its cell, members, its three sorted axes with their events, the frame's
//! local copy of the boxes); the kernel (`insertion.rs`: the insertion sort with pair events, the thesis's
//! procedure, tested directly); bodies moving between regions (`transfers.rs`), the frame pass (`update.rs`) and
//! the invariants' check (`validate.rs`); and on top the public types (`sap.rs`, `mbp.rs`, `sort_sweep.rs`,
//! `pair_count.rs`). The radix sort, the box sweep (`sort-sweep` and `mbp`), the region grid and its planning
//! (`sap` and `mbp`, each with its own [`GridPolicy`](collide_broadphase::region_grid::GridPolicy) explained beside
//! it), the min-corner ownership rule (`mbp`) and the parallel runner are `collide-broadphase`'s, shared with the
//! octrees and the crates to come.
//!
//! # Stats
//!
//! The shared numbers, counted where the work is done:
//! - `pair_tests`: exact box tests. `sap`: the full tests behind begin-passes-end events that pass the 16-bit
//!   filter, the sweeps of entering bodies, the re-tests of pairs whose bodies changed regions, and the
//!   initialisation's (or a cool-down frame's) multi-box pruning; `sort-sweep` and `mbp`: the sweep's candidates;
//!   `pair-count`: the per-axis overlaps listed;
//! - `work`: `sap`: endpoints refreshed, swaps, members gathered and renumbered, endpoints merged for entering
//!   bodies, bodies whose regions were computed, pair-set slots scanned, events applied, and at an initialisation
//!   the endpoints radix-sorted and scattered; `sort-sweep`: boxes read, keys sorted, records made; `mbp`: bodies
//!   assigned, entries counted and grouped, keys sorted and records made per region, pairs found; `pair-count`:
//!   keys sorted on three axes and table probes;
//! - `bytes_touched`: the same steps in bytes: 8 per endpoint, key or pair-set slot, 24 per box, 28 per sweep
//!   record, a cache line per pair-set update.
//!
//! Name-keyed: `sap` reports `swaps` (and per axis), `pairs_added`, `pairs_removed`, `pairs`, `bodies_inserted`,
//! `regions`, `region_transfers`, and two flags: `init` (1 when the frame initialised the structure: first
//! frame, reset, an unpatchable resize, an outgrown grid, the frame after a cool-down) and `rebuild` (1 when the
//! swap budget ran out, or a cool-down frame was answered by multi-box pruning); `mbp` `regions` and
//! `region_entries`; `sort-sweep` `sweep_axis`; `pair-count` `overlaps_x|y|z`.
//!
//! # Complexity
//!
//! | algorithm    | per frame                                        | memory            |
//! |--------------|--------------------------------------------------|-------------------|
//! | `sap`        | O(n·c + swaps + t·m + p); init O(n) radix + mbp  | 3·2n·c endpoints (8 B) + pair set |
//! | `sort-sweep` | O(n) radix + O(n + s_axis) tests                 | O(n)              |
//! | `mbp`        | O(n·copies) + Σ per-region sweeps ≈ O(n) uniform | O(n·copies)       |
//! | `pair-count` | O(n log n) + O(p_x + p_y + p_z)                  | O(Σ p_k)          |
//!
//! `swaps` is the number of endpoint pairs that changed order since the last frame, summed over `sap`'s regions
//! (≈ n · displacement / endpoint spacing per axis inside a region); `c` the mean number of regions per body
//! (1.1 for the thesis workloads), `t` bodies crossing a region border and `m` bodies per region; `p` pairs; `s_axis` and `p_k` pairs overlapping on one axis (O(n²) in a crowded
//! 3-D world). Each type's docs give its details.
//!
//! - **Best case** for `sap`: slow, coherent motion (well under one swap per body in regions), pairs changing
//!   little, bodies smaller than regions — cost ~ n with a small constant (mostly one read of each box), the pair
//!   set never rebuilt. For `mbp`: uniform scenes of many bodies.
//! - **Worst case** for `sap`: fast or teleporting bodies (insertion sort → Θ(n²) without the budget; with it,
//!   `mbp`'s cost per frame), a dense cluster inside one region (it degrades to global SAP on the cluster),
//!   bodies larger than regions (copied into many), and clustering on one axis. For
//!   `sort-sweep`: a crowded sweep axis. For all: everything at one point (n²/2 pairs to report).
//!
//! # Performance tips
//!
//! - Use `sap` when bodies take ~100 s or more to cross the world (the thesis's rule); watch the `swaps` stat:
//!   under one per body is its sweet spot, several per body and axis mean `mbp` is faster.
//! - Leave `regions_per_axis` at 0: about 256 bodies per region measured best (128: more transfers and copies;
//!   512 equal). Use 1 only to reproduce the thesis. A large `region_transfers` stat means regions are small
//!   for the speed.
//! - Keep `rebuild_swaps_per_body` on in real-time loops with variable `dt`: it is what prevents the feedback
//!   loop. Set it to 0 only to reproduce the thesis's pure algorithm.
//! - When switching to SAP with the pairs of the current frame in hand, call [`Broadphase::warm_start`](collide_broadphase::Broadphase::warm_start).
//! - Batch body insertions and removals into one [`Resize`](collide_broadphase::Resize) per frame; batches
//!   larger than a quarter of the bodies rebuild instead.
//! - `mbp` with `regions_per_axis = 0` sizes its grid itself; a finer grid helps clustered scenes.
//! - `sap`, `sort-sweep` and `mbp` run on rayon's threads from
//!   [`Parallelism::DEFAULT_MIN_WORK`](collide_broadphase::Parallelism::DEFAULT_MIN_WORK) bodies; set another
//!   threshold with their `with_parallelism`.
//! - None of them allocates per frame once the buffers have grown to the scene (`tests/warm_allocations.rs`).

// The layers, bottom up; imports point down only. The data: packed endpoints, the pair set, one region whole.
mod endpoints;
mod pairset;
mod region;
// The kernel: insertion sort with pair events (the box sweep, radix sort and region grid are collide-broadphase's).
mod insertion;
// Bodies moving between regions, the frame pass, the invariants' check.
mod transfers;
mod update;
mod validate;
// The public types.
mod mbp;
mod pair_count;
mod sap;
mod sort_sweep;

#[cfg(test)]
mod tests;

pub use mbp::{MAX_REGIONS_PER_AXIS, MultiBoxPruning};
pub use pair_count::PairCount;
pub use pairset::PairSet;
pub use sap::{MAX_SAP_REGIONS_PER_AXIS, SweepAndPrune, UpdateMode};
pub use sort_sweep::{SortSweep, axis_of_greatest_spread};

use collide_broadphase::ParamSpec;

/// The tunables of `sap`.
pub const SAP_PARAMS: &[ParamSpec] = &[
    ParamSpec::number(
        "rebuild_swaps_per_body",
        "swap budget per body and axis per frame before SAP rebuilds instead (0 = never: the thesis's pure algorithm)",
        SweepAndPrune::DEFAULT_REBUILD_SWAPS_PER_BODY,
        0.0,
        1.0e6,
    ),
    ParamSpec::integer(
        "regions_per_axis",
        "regions per axis, each with its own sorted endpoint arrays (0 = auto, a few hundred bodies per region; 1 = the thesis's global arrays)",
        0.0,
        0.0,
        MAX_SAP_REGIONS_PER_AXIS as f64,
    ),
];

/// The tunables of `mbp`.
pub const MBP_PARAMS: &[ParamSpec] = &[ParamSpec::integer(
    "regions_per_axis",
    "regions per axis of the multi-box-pruning grid (0 = auto, ~32 bodies per region)",
    0.0,
    0.0,
    MAX_REGIONS_PER_AXIS as f64,
)];

impl SweepAndPrune {
    /// Build from checked [`SAP_PARAMS`].
    #[must_use]
    pub fn from_params(params: &collide_broadphase::Params) -> Self {
        Self::with_regions(params.get("rebuild_swaps_per_body"), params.get("regions_per_axis") as usize)
    }
}

impl MultiBoxPruning {
    /// Build from checked [`MBP_PARAMS`].
    #[must_use]
    pub fn from_params(params: &collide_broadphase::Params) -> Self {
        Self::new(params.get("regions_per_axis") as usize)
    }
}
