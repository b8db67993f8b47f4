//! The broadphase contract of collide.
//!
//! A broadphase takes this step's axis-aligned boxes and answers with every pair of bodies whose boxes
//! overlap. It is the first filter of collision detection: the narrowphase then runs exact tests on those
//! pairs only. Done naively that is n(n−1)/2 box tests per step — 5·10⁹ at 100 000 bodies — so the algorithms
//! of this workspace (octrees, sweep-and-prune, grids, BVHs, kd trees) trade bookkeeping for tests. They differ
//! hugely in *how fast* they are for a given scene; they must not differ at all in *what* they answer.
//!
//! This crate holds what they share:
//! - [`Broadphase`], the trait, whose doc is the pair contract;
//! - [`Frame`], the per-step context (a struct that grows, never a fixed argument list), and [`Resize`],
//!   the notice that bodies were added or removed;
//! - [`Pair`] and [`PairList`], the output;
//! - [`Stats`], the cheap per-call counters the app, the bench and the meta-broadphase read;
//! - [`ParamSpec`], [`Params`] and [`AlgorithmDescriptor`], the rows of the `ALGORITHMS` registry
//!   (the table itself lives in `collide-algorithms`, which can see every implementation);
//! - [`DebugGeometry`], what an algorithm may show of its insides (cells, nodes, intervals);
//! - [`reference_pairs`], the O(n²) definition of the right answer;
//! - [`invalid`]: the contract for boxes that are not finite or are inverted ([`InvalidBoxes`], [`is_valid_box`]):
//!   they overlap nothing, or panic naming the body in debug builds;
//! - with the `conformance` feature, the `conformance` kit every implementation's tests run.
//!
//! And the kernels the algorithms share, so that each is written once and the octree, the sweep-and-prune
//! family and the grid, BVH and kd crates to come use the same code:
//! - [`radix`]: order-preserving float keys and an LSD radix sort;
//! - [`sweep`]: the box-sweep kernel ([`sweep::SweepBox`] records, [`sweep::sweep`], [`sweep::sweep_two`], and
//!   their sparse forms with a keep filter, [`sweep::sweep_sparse`] and [`sweep::sweep_two_sparse`]; for groups
//!   too small to sort, [`sweep::all_pairs`] and [`sweep::all_pairs_two`]; for sheets of boxes, strips:
//!   [`sweep::Strips`], [`sweep::sweep_strips`], [`sweep::sweep_two_strips`], a sorted list cut across a cross
//!   axis so that a sweep tests only boxes in the same or neighbouring strips) and its branch-free pair buffer
//!   ([`sweep::PairSink`]);
//! - [`region_grid`]: the coarse region grid, planned by one function from an algorithm's [`region_grid::GridPolicy`];
//! - [`ownership`]: the min-corner rule that reports a pair found in several cells once;
//! - [`parallel`]: [`Parallelism`], the one serial-or-parallel threshold, and the one place work is sent to
//!   rayon's threads ([`Parallelism::for_each`], [`parallel::PairChunks`]). With the `profile` feature each
//!   parallel task opens a puffin scope.
//!
//! They sit below the [`Broadphase`] trait's implementations and above nothing but `collide-math`, rayon (and
//! puffin with `profile`): an algorithm crate layers its own data structure, then these kernels and its own,
//! then its build and search variants, then its public type. Inside this crate the kernels import only the
//! contract types (`Aabb`, `Pair`, `Tally`), never each other.
//!
//! # Complexity
//!
//! - [`radix::sort_by_high_bits`]: O(n) per 11-bit digit, three passes for 32-bit keys; below 64 keys a
//!   comparison sort.
//! - [`sweep::sweep`], [`sweep::sweep_two`] and their sparse forms: O(m + t) for m sorted records and t
//!   candidates (boxes that overlap the scanning box on the sweep axis); each candidate is one four-lane
//!   comparison. [`sweep::all_pairs`]: m(m − 1)/2 tests, no order needed. In strips ([`sweep::sweep_strips`]):
//!   O(m + n + t') for n strips, t' the candidates within neighbouring strips.
//! - [`region_grid::RegionGrid::plan`]: O(n); a box's regions O(1), visiting them O(regions touched).
//! - [`parallel::PairChunks::run`]: the work itself plus one copy of the pairs found in parallel (each chunk's
//!   buffer appended in order).
//!
//! # Performance tips
//!
//! - Sweep with [`sweep::sweep`] where an overlap is a coin flip (a dense crowd, boxes cut into strips): it
//!   writes every candidate and advances on an overlap, no branch to mispredict. Sweep with
//!   [`sweep::sweep_sparse`] where candidates rarely overlap (one crowded axis of a 3-D scene): a predictable
//!   branch and no write is fewer instructions.
//! - Build the [`sweep::SweepBox`] records where the boxes are copied anyway (a gather into sort order, a
//!   scatter into strips), not in a pass of their own.
//! - Keep one [`Parallelism`] per algorithm and count work in items; tests lower the threshold to run the
//!   parallel paths on small scenes and raise it to [`Parallelism::SERIAL`] to compare with the serial ones.

mod debug;
mod frame;
pub mod invalid;
mod oracle;
pub mod ownership;
mod pair;
pub mod parallel;
mod params;
pub mod prefetch;
pub mod radix;
pub mod region_grid;
mod stats;
pub mod sweep;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use collide_math::Aabb;
pub use debug::{DebugBox, DebugGeometry};
pub use frame::{Frame, Resize, same_bits};
pub use invalid::{InvalidBoxes, is_valid_box};
pub use oracle::reference_pairs;
pub use pair::{Pair, PairList};
pub use parallel::Parallelism;
pub use params::{
    AlgorithmDescriptor, ParamError, ParamInput, ParamKind, ParamSpec, ParamValue, Params, UnknownAlgorithm,
    find_algorithm,
};
pub use stats::{Counter, Stats, Tally};

/// A broad-phase collision detector.
///
/// # The pair contract
///
/// [`find_pairs`](Broadphase::find_pairs) **replaces** the contents of `out` with exactly the set
/// `{ (i, j) : i < j, frame.aabbs[i].overlaps(&frame.aabbs[j]) }`:
/// - overlap is [`Aabb::overlaps`], closed intervals (touching boxes overlap) — no other test;
/// - each pair appears **once**, with the **smaller index first**;
/// - no pair is missing and no extra pair is present (an algorithm that over-approximates internally, such as
///   a loose octree, filters with the exact test before writing);
/// - the **order is unspecified**: sort (see [`PairList::sort`]) before comparing.
///
/// Switching algorithms therefore changes only the time taken, never the pairs. The `conformance` kit checks
/// this against [`reference_pairs`] on seeded static scenes and moving sequences of hundreds of frames.
///
/// # Frames and state
///
/// Bodies are dense indices `0..frame.aabbs.len()`, and index `i` is the same body from one call to the next
/// unless [`on_resize`](Broadphase::on_resize) said otherwise. Incremental algorithms (sweep-and-prune, dynamic
/// trees) keep state between calls and exploit temporal coherence; rebuild algorithms start afresh each call.
/// Every implementation stays correct, and costs no more than the pairs that really exist, for degenerate input:
/// all boxes at one point, zero-size boxes, boxes that touch exactly, one box larger than all the others
/// together, and huge but finite coordinates (±1e30, a few bodies far from all the others).
///
/// # Invalid boxes
///
/// A box that is not finite, or has `min > max` on some axis ([`is_valid_box`] is false), **overlaps nothing**:
/// its body appears in no pair, and it changes nothing in the answer for the other bodies — the structure never
/// loops, crashes or goes quadratic because of it. Under [`InvalidBoxes::Panic`], the default of debug builds,
/// the implementation panics instead, naming the body and its box ([`Frame::reject_invalid`]);
/// [`InvalidBoxes::OverlapNothing`] is the default of release builds, and [`Frame::with_invalid_boxes`] chooses
/// either. An implementation checks each box it stores once per frame, in a pass that reads the boxes anyway,
/// calls [`Frame::reject_invalid`] for an invalid one and leaves that body out of its structure; the
/// conformance kit checks both policies (see [`invalid`] for the whole contract). The simulation never sends an
/// invalid box: it removes non-finite bodies before building their boxes.
///
/// # Optional hooks
///
/// [`stats`](Broadphase::stats), [`validate`](Broadphase::validate), [`debug_geometry`](Broadphase::debug_geometry),
/// [`reset`](Broadphase::reset) and [`warm_start`](Broadphase::warm_start) have default bodies, so the brute-force
/// oracle stays tiny.
pub trait Broadphase: Send {
    /// The registry name (`"brute"`, `"octree-dup"`, `"sap"`, …): short kebab-case.
    fn name(&self) -> &'static str;

    /// Replace `out` with every overlapping pair of `frame.aabbs` (see the pair contract above).
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList);

    /// Counters of the last [`find_pairs`](Broadphase::find_pairs) call: tests made, swaps, nodes, leaf loads…
    fn stats(&self) -> Stats {
        Stats::default()
    }

    /// Bodies were added, removed or renumbered between two calls; `resize` maps old indices to new ones.
    ///
    /// The default forgets all temporal state ([`reset`](Broadphase::reset)), which is always correct; an
    /// incremental algorithm overrides it to patch its structures instead of rebuilding them.
    ///
    /// A permutation ([`Resize::is_permutation`]: the simulation's spatial reorder, every body kept under a new
    /// index) must be remapped in O(n), not rebuilt, with no allocation once warm: the next call then costs what
    /// it would have cost without the reorder. An algorithm that rebuilds every frame may keep the default when
    /// its `reset` keeps its buffers and its next frame does no more than a normal one.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        let _ = resize;
        self.reset();
    }

    /// Forget everything learned from earlier frames; the next call starts as if it were the first.
    fn reset(&mut self) {}

    /// The calls after a build (the first call, or the first after [`reset`](Broadphase::reset)), that one
    /// included, before a call costs what this structure's later calls cost on the same scene. Whoever times it
    /// against another (the meta-broadphase's probes) compares the calls after these.
    ///
    /// 1, the default, for a structure whose second call already costs its steady price: those rebuilt every
    /// frame, and those whose incremental work per call does not depend on how long they have run. More for one
    /// that is cheap while it is young: the dynamic AABB tree's fat boxes are all fresh after a build, so nobody
    /// leaves one for a few calls and its cache answers for free.
    fn settling_calls(&self) -> u32 {
        1
    }

    /// Take over from another algorithm: `pairs` are exactly the overlapping pairs of `frame.aabbs` (any order),
    /// and the next [`find_pairs`](Broadphase::find_pairs) brings boxes indexed like these.
    ///
    /// The meta-broadphase calls this when it switches, so that an incremental algorithm starts from what is
    /// already known — sweep-and-prune from one radix sort plus the known pairs, never from insertion-sorting a
    /// random order — and the switch frame does not spike. Whatever the algorithm learned before is stale; the
    /// default forgets it ([`reset`](Broadphase::reset)) and ignores the hint, which is always correct.
    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        let _ = (frame, pairs);
        self.reset();
    }

    /// Check the structure's invariants (tests call it after every update). The message names the one broken.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }

    /// Append what the algorithm can show of its insides (cells, nodes, sweep intervals) to `out`.
    fn debug_geometry(&self, out: &mut DebugGeometry) {
        let _ = out;
    }

    /// The registry name of the algorithm that answered the last call: its own [`name`](Broadphase::name), or
    /// for the meta-broadphase the candidate it ran. The CSVs' `algorithm` column shows this.
    fn active_name(&self) -> &'static str {
        self.name()
    }

    /// The concrete type, for the few callers that know it (the app's selector panel reads the
    /// meta-broadphase's decision log through this). `None` by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

impl<B: Broadphase + ?Sized> Broadphase for Box<B> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        (**self).find_pairs(frame, out);
    }
    fn stats(&self) -> Stats {
        (**self).stats()
    }
    fn on_resize(&mut self, resize: &Resize<'_>) {
        (**self).on_resize(resize);
    }
    fn reset(&mut self) {
        (**self).reset();
    }
    fn settling_calls(&self) -> u32 {
        (**self).settling_calls()
    }
    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        (**self).warm_start(frame, pairs);
    }
    fn validate(&self) -> Result<(), String> {
        (**self).validate()
    }
    fn debug_geometry(&self, out: &mut DebugGeometry) {
        (**self).debug_geometry(out);
    }
    fn active_name(&self) -> &'static str {
        (**self).active_name()
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        (**self).as_any()
    }
}

#[cfg(test)]
mod tests;
