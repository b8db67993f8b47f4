//! One region of regional incremental SAP, whole: its cell, its members, its three sorted endpoint arrays with
//! their events, this frame's local copy of the members' boxes, and its transfers. Data only; `insertion.rs`
//! sorts an axis, `transfers.rs` moves bodies in and out, `update.rs` runs a frame over all regions.
//!
//! # Why region-local arrays
//! The frame is bound by memory latency, not by the swaps themselves: endpoints are in sorted order while boxes
//! are in body order, so every value refresh and every overlap test is a random access. Endpoints therefore name
//! a body by its *local* index in its region, and each region gathers its members' boxes once per frame (one
//! random read of a box per member) into local per-axis arrays of 8 bytes per body (exact keys, for the refresh)
//! and 4 bytes per body (16-bit quantised intervals, rounded outwards, for a conservative overlap filter). For a
//! region of a few hundred bodies these are a few KB: the refresh and the filter, which rejects ~99% of
//! begin-passes-end events, run from L1; only survivors are tested exactly on the original boxes. With global
//! arrays (one region) the refresh was ~half of a thesis-slow frame.

use collide_broadphase::{Aabb, Tally};

/// One axis of one region: its sorted endpoints and this frame's events and counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegionAxis {
    /// Two endpoints per member of the region, named by local index, sorted by `endpoints::order` (value, then
    /// begin before end).
    pub endpoints: Vec<u64>,
    /// Keys of pairs to add (the full test passed) and to remove (in the set, separated on this axis).
    pub adds: Vec<u64>,
    pub removes: Vec<u64>,
    /// This frame's swaps and exact box tests.
    pub swaps: u64,
    pub tests: u64,
    /// `false` when the swap budget ran out.
    pub finished: bool,
}

/// One region: its cell, its members and their three sorted axes, the frame's local data and transfers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    /// The region's cell in the grid.
    pub coords: [u16; 3],
    /// Local index → body: the endpoints of the region name bodies by their index here.
    pub members: Vec<u32>,
    /// Axis k's sorted endpoints and events.
    pub axes: [RegionAxis; 3],
    /// Per axis and member, this frame's `float_key(min) << 32 | float_key(max)` (see `transfers::gather`).
    pub keys: [Vec<u64>; 3],
    /// Per axis and member, the quantised interval of the overlap filter.
    pub quant: [Vec<u32>; 3],
    /// This frame's boxes of the members (the gather buffer).
    pub boxes: Vec<Aabb>,
    /// Bodies to insert this frame (they entered the region, or are new).
    pub entering: Vec<u32>,
    /// Bodies leaving this frame (only counted: the range of each body says whether it stays).
    pub leaving: u32,
    /// Pairs found by this frame's `transfers::enter`, and its exact tests.
    pub adds: Vec<u64>,
    pub tests: u64,
    /// Scratch of the transfers: the entering bodies' endpoints, a renumbering, the sweep's open intervals.
    pub new_endpoints: Vec<u64>,
    pub remap: Vec<u32>,
    pub open_old: Vec<u32>,
    pub open_new: Vec<u32>,
    /// This frame's work in the region (the `Stats` numbers; see the crate docs).
    pub tally: Tally,
}

/// The 16-bit quantisation of the overlap filter, fixed with the grid: bodies outside its bounds clamp to the
/// border values, which keeps the filter conservative.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Quantizer {
    origin: [f32; 3],
    scale: [f32; 3],
}

impl Quantizer {
    pub fn new(b: &Aabb) -> Self {
        let mut q = Self::default();
        for k in 0..3 {
            let extent = b.max[k] - b.min[k];
            q.origin[k] = if extent.is_finite() { b.min[k] } else { 0.0 };
            q.scale[k] = if extent.is_finite() && extent > 0.0 { 65535.0 / extent } else { 0.0 };
        }
        q
    }

    /// `lo << 16 | hi` of a box on `axis`, rounded outwards: real overlap implies quantised overlap.
    #[inline(always)]
    pub fn quantize(&self, lo: f32, hi: f32, axis: usize) -> u32 {
        let l = ((lo - self.origin[axis]) * self.scale[axis]).clamp(0.0, 65535.0);
        let h = ((hi - self.origin[axis]) * self.scale[axis]).clamp(0.0, 65535.0);
        // Non-negative: truncation is the floor, and the ceiling adds one where truncation lost something (no
        // libm call: `floor`/`ceil` are not inlined without SSE4.1).
        let (ql, th) = (l as u32, h as u32);
        let qh = th + u32::from((th as f32) < h);
        (ql << 16) | qh
    }
}

/// `true` when two quantised intervals overlap.
#[inline(always)]
pub(crate) fn overlap16(qa: u32, qb: u32) -> bool {
    (qa >> 16) <= (qb & 0xFFFF) && (qb >> 16) <= (qa & 0xFFFF)
}
