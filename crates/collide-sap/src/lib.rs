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
//! **What fixes it here**:
//! - initialisation (first frame, after a reset, or [`SweepAndPrune::warm_start`] with a known pair set when
//!   the meta-broadphase switches to SAP) sorts the endpoints with an O(n) radix sort and fills the pair set by
//!   a sweep (or copies the known set) — never insertion sort of a random order;
//! - a **swap budget** (`rebuild_swaps_per_body`): when insertion sort would exceed it, the frame is rebuilt by
//!   the O(n) path instead, and the next few frames rebuild directly (with doubling back-off). That caps a
//!   frame's cost near the rebuild cost whatever the speed, which breaks the feedback loop: a long `dt` no longer
//!   makes the next frame slower than a rebuild;
//! - bodies added and removed ([`Broadphase::on_resize`]) are patched in batches (Tracy, Buss & Woods 2009):
//!   removed endpoints dropped and the rest relabelled in one pass, new endpoints sorted and merged, and new pairs
//!   found by one sweep that tests only pairs involving a new body;
//! - a rebuilt-every-frame family immune to speed: **sort-and-sweep** ([`SortSweep`], `sort-sweep`) on the axis
//!   of greatest spread, and **multi-box pruning** ([`MultiBoxPruning`], `mbp`, PhysX's scheme), a sort-and-sweep
//!   per region of a coarse grid, in parallel, because a single sweep axis gets crowded in 3-D as n grows;
//! - **pair counting** ([`PairCount`], `pair-count`), the variant of the self-adjusting-BSP study, with a
//!   hash table of counts instead of its n×n matrix.
//!
//! # Complexity
//!
//! | algorithm    | per frame                                        | memory            |
//! |--------------|--------------------------------------------------|-------------------|
//! | `sap`        | O(n + swaps + p); init O(n) radix + sweep        | 3·2n endpoints (8 B) + pair set |
//! | `sort-sweep` | O(n) radix + O(n + s_axis) tests                 | O(n)              |
//! | `mbp`        | O(n·copies) + Σ per-region sweeps ≈ O(n) uniform | O(n·copies)       |
//! | `pair-count` | O(n log n) + O(p_x + p_y + p_z)                  | O(Σ p_k)          |
//!
//! `swaps` is the number of endpoint pairs that changed order since the last frame (≈ n · displacement /
//! endpoint spacing per axis); `p` pairs; `s_axis` and `p_k` pairs overlapping on one axis (O(n²) in a crowded
//! 3-D world). Each type's docs give its details.
//!
//! - **Best case** for `sap`: slow, coherent motion (a few swaps per body), pairs changing little — cost ~ n
//!   with a tiny constant, the pair set never rebuilt. For `mbp`: uniform scenes of many bodies.
//! - **Worst case** for `sap`: fast or teleporting bodies (insertion sort → Θ(n²) without the budget; with it,
//!   a rebuild per frame), and clustering on one axis (every crossing inside the cluster is an event). For
//!   `sort-sweep`: a crowded sweep axis. For all: everything at one point (n²/2 pairs to report).
//!
//! # Performance tips
//!
//! - Use `sap` when bodies take ~100 s or more to cross the world (the thesis's rule); watch the `swaps` stat:
//!   a few per body is its sweet spot, hundreds mean `mbp` would be faster.
//! - Keep `rebuild_swaps_per_body` on in real-time loops with variable `dt`: it is what prevents the feedback
//!   loop. Set it to 0 only to reproduce the thesis's pure algorithm.
//! - When switching to SAP with the pairs of the current frame in hand, call [`SweepAndPrune::warm_start`].
//! - Batch body insertions and removals into one [`Resize`](collide_broadphase::Resize) per frame; batches
//!   larger than a quarter of the bodies rebuild instead.
//! - `mbp` with `regions_per_axis = 0` sizes its grid itself; a finer grid helps clustered scenes.
//! - None of them allocates per frame once the buffers have grown to the scene.

mod endpoints;
mod incremental;
mod mbp;
mod pair_count;
mod pairset;
mod radix;
mod sort_sweep;
mod update;

#[cfg(test)]
mod tests;

pub use incremental::{SweepAndPrune, UpdateMode};
pub use mbp::{MAX_REGIONS_PER_AXIS, MultiBoxPruning};
pub use pair_count::PairCount;
pub use pairset::PairSet;
pub use radix::{float_key, key_float, sort_by_high_bits};
pub use sort_sweep::{SortSweep, axis_of_greatest_spread};

use collide_broadphase::ParamSpec;

/// The tunables of `sap`.
pub const SAP_PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "rebuild_swaps_per_body",
    description: "swap budget per body and axis per frame before SAP rebuilds instead (0 = never: the thesis's pure algorithm)",
    default: SweepAndPrune::DEFAULT_REBUILD_SWAPS_PER_BODY,
    min: 0.0,
    max: 1.0e6,
    integer: false,
}];

/// The tunables of `mbp`.
pub const MBP_PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "regions_per_axis",
    description: "regions per axis of the multi-box-pruning grid (0 = auto, ~32 bodies per region)",
    default: 0.0,
    min: 0.0,
    max: MAX_REGIONS_PER_AXIS as f64,
    integer: true,
}];

impl SweepAndPrune {
    /// Build from resolved [`SAP_PARAMS`].
    #[must_use]
    pub fn from_params(params: &collide_broadphase::Params) -> Self {
        Self::new(params.get("rebuild_swaps_per_body"))
    }
}

impl MultiBoxPruning {
    /// Build from resolved [`MBP_PARAMS`].
    #[must_use]
    pub fn from_params(params: &collide_broadphase::Params) -> Self {
        Self::new(params.get("regions_per_axis") as usize)
    }
}
