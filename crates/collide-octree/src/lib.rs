//! Octrees for the broadphase: with duplicates, without duplicates, and loose.
//!
//! An octree cuts space into eight octants, recursively, until each cell holds few bodies; bodies in distant
//! cells are never compared. The three variants here differ in *where a body that crosses a split plane is
//! stored*, and that one choice decides their best and worst scenes (Dimitrijević 2019, ch. 3.2 and 5.2, which
//! this crate follows; the thesis found 32 bodies per leaf best and depths 9–12 good).
//!
//! # Octree with duplicates (`octree-dup`)
//!
//! A body goes into **every leaf its box touches**; a leaf splits into eight when it holds more than
//! `max_leaf` bodies, unless it is at `max_depth`. Pairs are found per leaf. The naive version reports a pair
//! once per leaf the two bodies share — the thesis's program reported the same pair up to 64 times in clusters.
//! Here a pair is reported only in the leaf that owns the **min corner of the two boxes' intersection**,
//! `max(a.min, b.min)`: that point lies in both boxes, the leaves' half-open cells partition space (the root's
//! faces are infinite), so exactly one leaf owns it and that leaf stores both bodies. One comparison per
//! overlapping pair; no hash set, no sort.
//!
//! What breaks next: bodies large against the cells are stored many times (a body spanning k leaves per axis is
//! stored k³ times), and a dense cluster makes the tree split to `max_depth` while every leaf still holds the
//! same crowd.
//!
//! # Octree without duplicates (`octree-nodup`)
//!
//! A body that **straddles a node's split planes stays in that node**; only bodies that fit one octant go down.
//! Every body is stored once. Bodies in disjoint subtrees cannot overlap (a lower-child body has `max < c`, an
//! upper-child body `min >= c`), so the pairs are: a node's bodies among themselves, and a node's bodies against
//! its subtree. The naive search walks the subtree once per straddler. Here a node's own bodies are split by
//! the plane they straddle into three **slabs**, each sorted along an axis it spreads over (the bodies
//! straddling the x plane all overlap in x, so a sweep on x would test them all against each other) and cut
//! into strips across its third axis, so that a sweep does not test bodies far apart there. A body of the x
//! slab lies inside the **layer** `c.x ± w` (w the slab's widest x extent): only subtree bodies meeting that
//! layer can overlap it. One walk down the subtree, skipping cells that meet no layer, gathers each slab's
//! layer, and each slab is swept against its layer in the plane. Every pair is found once, at the node of its
//! higher body, in the one slab that body belongs to. A small node (up to 8 × `max_leaf` bodies) whose split
//! would keep more than 30% of its bodies is not split: in a dense crowd of equal bodies that share doubles
//! with every level, and the last splits only add small nodes to pair through slabs and layers.
//!
//! **Worst case:** every body straddles the root's centre (say, a crowd gathered exactly there, or bodies as large
//! as half the world): all of them stay in the root and the search is the brute-force n(n−1)/2. **Best case:**
//! clusters and mixed sizes — large bodies stop high in the tree instead of being copied into hundreds of leaves,
//! and a dense crowd is not split over and over.
//!
//! # Loose octree (`octree-loose`)
//!
//! Each cell's *loose bound* is the cell grown by a factor `looseness` (2 = twice the edge). A body goes into
//! exactly one node: down to the child whose cell holds its **centre**, as long as its box fits that child's loose
//! bound. Stored once, and a body near a plane no longer sticks at the top as in nodup; the price is that loose
//! bounds of neighbours overlap, so each body queries the tree from the root (every node whose loose bound its
//! box touches) and the exact [`Aabb::overlaps`](collide_math::Aabb::overlaps) filters candidates before a pair
//! is written; the body stored first writes it.
//!
//! # The static/dynamic split
//!
//! Which bodies did not move comes from the frame's motion hint when it carries one
//! ([`Frame::with_moved`](collide_broadphase::Frame::with_moved): `moved[i] == false` promises body `i`'s box is
//! bit for bit last call's), read as n flags in the pass that also collects the moving bodies. Without the hint
//! the octree finds out itself: it compares each box **bit for bit** with the one it kept from the last frame
//! (O(n) too, but two boxes read per body instead of a flag; the kept boxes stay current either way, since the
//! moved bodies' boxes are copied in both paths, so frames with and without the hint may alternate). With 90%
//! of 10⁵ bodies at rest the hint saves 6% of a dup frame's instructions (valgrind, 1.6 M of 25 M, serial) and
//! 4.7 of its 17.7 MB of `bytes_touched`. When enough bodies are at rest (at least [`OctreeConfig::static_min`]
//! and a quarter of the moving set) it builds them into a **static tree once** and caches the pairs among them.
//! Each later frame only the moving bodies are built into the dynamic tree, and the cached static pairs are
//! copied. The moving bodies meet the static tree in **one walk** of it, not one root-down query each: every
//! node receives the moving bodies that touch its region, scattered down from its parent as the build scatters
//! items, and tests them against its own bodies while those are in cache. One query per body touched a random
//! leaf each time, and its cache misses made 60–80% of the frame. For nodup, the static inner nodes' straddlers
//! are also split into slabs by plane when the tree is built, so that a moving body far from a plane skips that
//! slab on one box test: the walk's box tests fell from about 57 to 15 per moving body (10⁵ bodies). A
//! static body that starts moving leaves the static set (its stale entry is skipped by the walk) and the static
//! tree is rebuilt when half of it is stale. [`on_resize`](collide_broadphase::Broadphase::on_resize) forgets
//! everything (the trait's default `reset`), and the next frame starts afresh. The registry parameter
//! `static_split` (1 by default, 0 = off) switches it, e.g. `--set params.octree-dup.static_split=0`.
//!
//! The split pays only when most bodies rest: a moving body costs about twice as much in the walk as a body of
//! a full rebuild, so with half the bodies at rest dup breaks even and nodup loses. The static tree is built
//! only when at least [`OctreeConfig::static_share`] (0.7) of the bodies did not move in the frame, and dropped
//! when fewer than 0.6 are still live in it.
//!
//! Measured on the `rest` workload of the former `octree_timing` example (uniform bodies, 90% at rest; the bench's
//! `side-by-side` study, comparison `octrees`, now runs this scene), serial CPU per frame, split on against off
//! (best of several runs, Debian 12, 2 cores, shared machine):
//!
//! | bodies | dup            | nodup          |
//! |--------|----------------|----------------|
//! | 10⁴    | 0.18 / 0.69 ms | 0.26 / 1.02 ms |
//! | 10⁵    | 2.3 / 8.6 ms   | 3.3 / 11.7 ms  |
//! | 10⁶    | 33 / 98 ms     | 42 / 135 ms    |
//!
//! So about a quarter to a third of a full rebuild, not the tenth the moving share suggests: the O(n) compare
//! and the walk's reading of nearly every static leaf (a tenth of the bodies spread uniformly touches most of
//! them) cost memory traffic in proportion to all the bodies. With 10⁵ bodies the walk is about two thirds of
//! the frame, the dynamic tree's build and pairs a quarter, the compare a tenth. At 70% at rest: dup 6.0 / 9.1
//! ms, nodup 10.0 / 12.1. The CLI agrees: `configs/resting.toml` at 10⁵ bodies, 300 frames, serial broadphase
//! mean dup 2.8 / 9.0 ms, nodup 3.6 / 11.4 ms. That config turns collision response off: with it on, the
//! moving tenth knocks 40% of the bodies into motion within a second, the static tree is dropped, and from then
//! on both cost the same.
//!
//! # Invalid boxes and far coordinates
//!
//! A body with an invalid box (not finite, or `min > max`: see `collide_broadphase::invalid`) is left out where
//! the moving bodies are collected for the frame's build — nine comparisons of a box being copied anyway — and is
//! in neither tree (`validate` checks that exactly those bodies are); a body in the static tree has the box it was
//! built with, which was valid. So it costs nothing to the searches and appears in no pair.
//!
//! Far bodies do not stretch the tree. The root covers the bulk of the bodies (their full bounds, unless those are
//! more than 4× wider than a trimmed sample's: `collide_broadphase::region_grid::bulk_bounds`), and the far ones fall in
//! the border cells, whose membership reaches to infinity; a node whose items would all go down one child, or
//! whose split the variant refuses, is re-centred on a cube around its items when they fill at most half its side
//! (the split planes move, the membership cells still partition the parent's). One body at 1e30 among 3 000 in
//! `[0, 100]³` costs its own path and pairs; before, the others went down a chain of nodes into one leaf at
//! `max_depth` and were all tested against each other (the kit's outlier cost check). A box spanning ±1e30 is
//! stored in every leaf (dup) or kept at the root (nodup, loose) and tested against every body once.
//!
//! # Layout
//!
//! Flat arrays with `u32` indices, never `Box` trees: a node pool whose 8 children are consecutive, and one
//! item array holding each stored box *next to its id*, the items of a node contiguous, so that leaf scans read
//! memory in order. The build goes level by level over a contiguous buffer (one streaming pass per level); a
//! tree of at least [`Parallelism::min_work`](collide_broadphase::Parallelism::min_work) bodies (8192 by
//! default) splits its root, builds the eight subtrees independently (on rayon's threads when there are several)
//! and joins them. Pool, items and scratch are kept across frames: a warm octree allocates nothing. The pair
//! search runs on rayon too (chunks of nodes; the moving bodies' walk of the static tree: the root's bodies and
//! the eight subtrees; one reused pair buffer per chunk, appended in chunk order, so the output is
//! deterministic); below the threshold everything is serial. [`OctreeConfig::parallelism`] sets it; the tests
//! lower it to run the joined trees and the parallel paths on small scenes. The input is radix-sorted by `min.x`
//! per subtree before the build, whose scatters are stable, so every node's items come out sorted for the sweeps.
//!
//! # Modules
//!
//! Layered so that imports point one way (as parry's `Bvh` is split): the data structure (`tree.rs`: nodes,
//! items, where a body is stored, the window and layer intervals); kernels on top of `collide-broadphase`'s box
//! sweep (`strips.rs`: sweep records, strips and windows; `slabs.rs`: an inner node's straddlers split into slabs
//! and paired); the build (`build.rs`), each variant's search (`dup.rs`, `nodup.rs`, `loose.rs`), the moving
//! bodies' walk of a static tree (`walk.rs`) and one door to the searches and their parallel chunks
//! (`search.rs`); the static/dynamic split's state (`split.rs`) and the invariants' check (`validate.rs`); and
//! on top the public type (`octree.rs`). The ownership rule, the sweep kernel, the radix sort and the parallel
//! runner are `collide-broadphase`'s, shared with the sweep-and-prune family and the crates to come.
//!
//! # Stats
//!
//! Besides the shape counters (`nodes`, `leaves`, `depth`, leaf loads, `inner_bodies`, `dup_refs`,
//! `static_bodies`, `dynamic_bodies`, `static_rebuilt`), the shared numbers, counted where the work is done (per
//! level, node or batch, never by an extra pass):
//! - `pair_tests`: exact box tests — a leaf's sweep, the slab, strip and layer sweeps, a loose query's window,
//!   the moving bodies against the static tree's bodies;
//! - `work`: items classified, scattered and kept by the build (per level), keys sorted by the presort, items
//!   copied by the join; nodes visited by the searches and the walk, items read into layers, records made for
//!   the sweeps, moving bodies carried down; bodies classified as moving or resting; cached pairs copied;
//! - `bytes_touched`: the same steps in bytes of items (28 B), nodes, sweep records (28 B), keys and boxes, and
//!   for the classification one flag per body with the motion hint against two boxes per body without.
//!
//! # Complexity
//!
//! n bodies, of which d move; k overlapping pairs; h ≤ `max_depth` the depth reached; m ≤ `max_leaf` the leaf load.
//! - **Build** (every frame, the moving bodies): O(d · h) — one pass per level — plus the duplicates (dup).
//!   Uniform small bodies: h ≈ log₈(d / m).
//! - **Pair search:** dup O(Σ leaf m²) ≈ O(d · m); nodup O(d · m + Σ layer sizes), a layer holding the subtree
//!   bodies near one of an inner node's planes, plus sorting the slabs' and layers' strips; loose
//!   O(d · h · m) (a root-down query per body). All + O(k) output, and tests per pair grow with the cell size
//!   against the bodies (a sweep prunes one axis; nodup's slabs and strips prune two): at the dense cluster
//!   dup makes 5.8 tests per pair and nodup 2.6 (956 k pairs, response off).
//! - **Static/dynamic:** O(n) per frame to classify the bodies (n flags with the motion hint, 2n boxes compared
//!   without); a static rebuild O((n − d) · h) when bodies come to rest;
//!   moving-vs-static O(d · h) for the walk (each moving body carried down the cells it touches) plus the static
//!   nodes it visits, O(n) in the worst case, when the moving bodies are spread over the whole world.
//! - **Memory:** O(n + nodes) for nodup and loose; dup O(n · r) where r is the mean number of leaves a body
//!   touches (1–2 for bodies small against the leaves, up to 8^h for one body covering the world).
//! - **Best case:** uniform bodies small against the leaf cells: linear in practice.
//! - **Worst case:** all bodies overlapping each other (one point): every variant stops at `max_depth` or keeps
//!   them at the root and does k = n(n−1)/2 tests, the output's own size. Nodup also degrades to n²/2 when all
//!   bodies merely straddle the root's centre without overlapping; dup when bodies are large (duplicates).
//!
//! # Performance tips
//!
//! - `max_leaf` 16–64 (32 default): larger leaves cost m² tests, smaller ones cost levels and duplicates.
//! - `max_depth` 9–12; deeper only wastes time on clusters that cannot be separated.
//! - Prefer **dup** for many similar small bodies spread out (the thesis's default scene), **nodup** or **loose**
//!   for clusters and mixed sizes, where dup stores a large or crowded body many times.
//! - A dense crowd of *equal* bodies is nodup's hardest good case: at the densest frame of the `cluster` scene
//!   (10⁵ bodies of width 1 pulled to 64× the uniform density, 671 k pairs, saved from a `collide --headless`
//!   run) nodup takes ~17 ms of serial CPU against dup's ~53 (3.2×). Cells of 2–4 body widths are where the
//!   crowd stops splitting, so half the bodies straddle a plane and stay in inner nodes, and our dup does not
//!   have the thesis program's pathology (the same pair up to 64 times). Pairing slabs with layers instead of
//!   carrying runs down, refusing the small splits that keep most bodies, the per-subtree presort, a buffered
//!   branch-free output, box records whose overlap test is one four-lane comparison, and each layer strip swept
//!   once against a window of three slab strips took nodup's frame from 1190 M to 614 M instructions and from
//!   6.9 M to 2.9 M mispredicted branches (valgrind, 4 calls); 3.1 box tests per pair (dup: 6). What is left:
//!   the scans' setup per body and per merge step, the build (a quarter, shared with dup) and the sorts.
//! - `looseness` 2 is the classic choice; 1 makes loose behave like nodup by centre, larger values push bodies
//!   deeper at the cost of more overlapping loose bounds.
//! - Scenes where most bodies rest gain most from the static/dynamic split (at 90% at rest and 10⁵ bodies: 3.5×
//!   serial in the measurement above; 2–2.3× through `collide --headless` with 2 threads); it
//!   costs one O(n) comparison when fewer rest than `static_share` (turn it off with `static_split = 0` if even
//!   that matters). Give the frame the motion hint ([`Frame::with_moved`](collide_broadphase::Frame::with_moved))
//!   when you know it: the classification then reads a flag per body instead of comparing two boxes.
//! - Degenerate input terminates: a cell never splits deeper than `max_depth`, so all bodies at one point cost
//!   O(n · max_depth) to build plus the n²/2 pairs that really exist.

// The layers, bottom up; imports point down only. The data structure:
mod tree;
// Kernels: sweep records and strips, slabs (on top of `collide_broadphase::sweep`).
mod slabs;
mod strips;
// The build, each variant's pair search, the moving bodies' walk of a static tree, and one door to the searches:
mod build;
mod dup;
mod loose;
mod nodup;
mod search;
mod walk;
// The static/dynamic split's state, the invariants' check, and the public type.
mod octree;
mod split;
mod validate;

#[cfg(test)]
mod tests;

pub use octree::{Octree, OctreeConfig};
pub use tree::{MAX_DEPTH_LIMIT, Variant};

use collide_broadphase::ParamSpec;

/// `max_leaf`: bodies per leaf before it splits.
pub const MAX_LEAF: ParamSpec = ParamSpec::integer(
    "max_leaf",
    "bodies a leaf holds before it splits into eight (the thesis's sweep found 32 best)",
    32.0,
    1.0,
    1024.0,
);

/// `max_depth`: the deepest level (root = 0).
pub const MAX_DEPTH: ParamSpec = ParamSpec::integer(
    "max_depth",
    "deepest level of the tree, root = 0 (9–12 is the good range)",
    10.0,
    0.0,
    MAX_DEPTH_LIMIT as f64,
);

/// `looseness`: loose cells are this many times the cell's edge.
pub const LOOSENESS: ParamSpec =
    ParamSpec::number("looseness", "loose cells are this many times the cell's edge (2 is classic)", 2.0, 1.0, 4.0);

/// `static_split`: 1 keeps the bodies at rest in a tree built once (see the crate docs), 0 rebuilds everything
/// every frame.
pub const STATIC_SPLIT: ParamSpec = ParamSpec::integer(
    "static_split",
    "1: bodies at rest stay in a tree built once, only moving ones are rebuilt; 0: rebuild all every frame",
    1.0,
    0.0,
    1.0,
);

/// The parameters of `octree-dup` and `octree-nodup`.
pub const PARAMS: &[ParamSpec] = &[MAX_LEAF, MAX_DEPTH, STATIC_SPLIT];

/// The parameters of `octree-loose`.
pub const LOOSE_PARAMS: &[ParamSpec] = &[MAX_LEAF, MAX_DEPTH, LOOSENESS, STATIC_SPLIT];
