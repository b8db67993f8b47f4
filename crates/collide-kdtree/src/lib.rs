//! The self-adjusting kd tree (`kd`): split planes kept from frame to frame, moved only where a node's sides fall
//! out of balance, and bodies that cross a plane kept in its node.
//!
//! A kd tree is a BSP tree whose planes are perpendicular to the axes: each node cuts its region in two, the
//! children cut theirs, and bodies in regions apart are never compared. The thesis (Dimitrijević 2019, ch. 3)
//! describes it and leaves it out, because inserting and removing bodies is harder and slower than in an octree.
//! The BSP study (seed 003, FER Zagreb) makes it *self-adjusting*; this crate follows it.
//!
//! # What the naive version gets wrong
//!
//! A tree built once for the first frame's bodies keeps planes that fit them; as the bodies move the planes go
//! stale, one side of a plane fills while the other empties, and the tree stops separating anything — the study
//! calls this the main drawback of a static BSP tree in a dynamic scene. Rebuilding the whole tree every frame,
//! which is what the octrees of `collide-octree` do, pays O(n · depth) every frame to rediscover planes that
//! barely moved.
//!
//! # What fixes it
//!
//! - **Planes are kept.** Each frame every body is re-placed (`place.rs`) starting from the node it was in: it
//!   climbs while its box has left the node's region, then descends. A body that stayed costs one region test
//!   and one side test. Where a body ends up depends only on the planes and its box — the deepest node whose plane
//!   it straddles, or the leaf whose region holds it — never on history, so `validate` checks every body against a
//!   descent from the root.
//! - **Straddlers stay.** A box that crosses a node's plane is kept in that node; it is never duplicated.
//! - **Planes move where the balance is lost.** Every `period` of simulated time (the frames' `dt` accumulated;
//!   the study's 0.2 s) every inner node's two sides are compared; a node whose ratio left
//!   `[1 / max_ratio, max_ratio]` (the study's [0.5, 2]) gets new planes, for itself and its children, as the
//!   study says: its subtree is re-planned from its bodies (`plan.rs`), each plane through the median of the
//!   bodies' centres on the axis that cuts the fewest of them. Only the highest unbalanced node of a branch is
//!   re-planned (its re-plan balances the nodes below), as a scapegoat tree rebuilds its highest unbalanced
//!   subtree. The rest of the tree is not touched, and no frame ever rebuilds it whole as a routine.
//! - **Leaves split and collapse as their loads change** (`edit.rs`), every frame: a leaf over `max_leaf` bodies
//!   is re-planned into a subtree, a subtree down to `max_leaf / 2` becomes a leaf. The ratio rule alone never
//!   deepens the tree — a cloud contracting evenly keeps every node balanced while its leaves fill up 64-fold (the
//!   `cluster` scene) — and waiting for the period would sweep those crowds whole for up to 12 frames.
//!
//! Each frame is three steps (`kd.rs`): adjust the shape (`edit.rs`: usually nothing), re-place every body
//! (`update.rs`: one pass that reads each box and places it, one that writes the item array grouped by node and
//! sorts each node's items, an insertion sort since staying bodies keep last frame's order), and search
//! (`search.rs`). Bodies in two subtrees that are not nested never overlap (a left body ends before the plane, a
//! right body starts at or after it), so the pairs are each node's own bodies among themselves — one sweep — and
//! an inner node's own bodies, which all straddle its plane, against the bodies of its subtree that meet their
//! hull: the node's **layer**, gathered by one walk of the subtree that skips every region the hull misses. This
//! is octree-nodup's search with one plane per node instead of three. Each pair is found once.
//!
//! The **first frame** (or the first after a reset) has no tree to re-place bodies in: the planner (`plan.rs`)
//! chooses the planes and, as it partitions the bodies, lays them out as the tree stores them — each node's own
//! bodies, then its left subtree's, then its right's, each node's own sorted for its sweep — so the frame goes
//! straight to the search, with no body placed again from the root. The two sides of a node of more bodies than
//! the parallel threshold are planned on two threads. On rapier's brownian gas at 10⁵ bodies (headless, 2 threads)
//! that took the cold first frame from 32–40 ms (the plan, then an update placing every body from the root,
//! grouping and sorting them all) to 15 ms, against 3 ms for a steady frame.
//!
//! # What breaks next
//!
//! - **Straddlers.** A binary tree has many planes, and a body crosses one with a probability about its width over
//!   the cell's: with 32 bodies per leaf a quarter of the thesis scene's bodies stay in inner nodes, and at the
//!   `cluster` scene's densest moment (cells two body widths wide) two thirds. Pairing them through layers is the
//!   bulk of the search. Large sheets (the straddlers of the upper nodes of a dense crowd, thousands of bodies) and
//!   their layers are swept in **strips** across the sheet's second axis (`collide_broadphase::sweep::Strips`),
//!   and large layers are sorted through integer keys: together they took the dense phase's search from 149 M to
//!   111 M instructions a frame. Every layer is now gathered as keys (8 bytes an item read, filtered on the
//!   plane's axis alone) and its records made after the sort: with the cheaper insertion sort of the update
//!   (nothing copied for an item already in order) the kd frame took 17% fewer instructions on the rapier-baked
//!   scenes at 10⁴ bodies and 12–14% fewer on the thesis scene and the cluster at 10⁵.
//!   The gather writes each key's coordinate as raw bits and the sort makes only the kept keys order-preserving
//!   (`float_key`), and the gather is kept out of line: brownian 10⁴, one thread, 100 frames, 598 → 570 M
//!   instructions in `find_pairs`.
//! - **Fast bodies.** When every body crosses a plane every frame (the cluster's pull: 1.7 units a frame through
//!   cells 2 units wide), every body is a mover: placed from an ancestor, grouped by destination, sorted into its
//!   node — the update costs as much as a rebuild would.
//! - **A shift of the whole scene** unbalances the root, and its re-plan lays out every body once: the cost of one
//!   build, once, when the distribution has moved (the off-centre cluster); never again while it stays.
//!
//! # Compared with the study and with Luque et al. 2005
//!
//! The study (seed 003) restricts a BSP tree's planes to the xy, yz and xz planes (a kd tree), adjusts the tree
//! every T = 0.2 s by re-balancing the nodes whose object ratio is below 0.5 or above 2, choosing new split axes
//! for such a node and its children, and during the adjustment stores objects in the inner nodes. This crate keeps
//! its numbers as the defaults (`period`, `max_ratio`) and its rule of what to re-plan; it adds what the page
//! leaves to the thesis behind it: how planes are placed (medians of centres, the axis that cuts fewest), that
//! leaves split and collapse by their load every frame, and how straddlers are paired (layers, strips).
//!
//! Luque, Comba & Freitas, "Broad-phase collision detection using semi-adjusting BSP-trees" (I3D 2005): a
//! scheduler evaluates where the tree becomes unbalanced, uses several strategies to alter cutting planes, and
//! defers updates by their re-structuring cost; they show the tree needs no complete re-structuring even in highly
//! dynamic scenes. This crate has one strategy (re-plan the highest unbalanced subtree through medians) and no
//! deferral beyond the period: a re-plan costs O(s · depth) for its s bodies, the small ones (a subtree whose sides
//! drifted apart by noise) are cheap, and the root is re-planned only when the whole scene has shifted.
//!
//! Serpa & Rodrigues's KD broadphase (Computer Graphics Forum 2019, in the Broadmark framework), the strongest
//! published CPU broadphase, also keeps straddlers in inner nodes and updates the tree in place: objects live in
//! one array in tree order, leave nodes they no longer fit and trickle down through planes, a heuristic translates
//! a node's plane to the mean of its subtree's centres, and each node sweeps its objects against the straddlers of
//! its ancestors carried down the tree. Here the item array is regrouped by a counting scatter each frame instead
//! of moved piece by piece, a plane moves by the study's ratio rule, and straddlers meet their subtree through
//! layers gathered upwards rather than lists carried down, which copied each straddler into every node below it
//! that it touched (octree-nodup measured the same choice).
//!
//! # Complexity
//!
//! n bodies, d of them changing node in a frame, k overlapping pairs, m ≤ `max_leaf` bodies per leaf, h ≈
//! log₂(n / m) the height.
//! - **Update** (every frame): O(n) — one gather, one region test and one side test for a body that stays — plus
//!   O(d · h) for the movers, plus the sorts: O(n) on nearly sorted nodes, O(n log m) when everything moved.
//! - **Edits:** a split or re-plan of s bodies O(s · h_s) (medians chosen on a sample of 1024 above 4096 bodies);
//!   a collapse O(s); a rewrite of the node array O(nodes) on frames with an edit; the balance check O(nodes) once
//!   a period.
//! - **Search:** O(n + tests) for the nodes' own sweeps, plus, per inner node, its layer: the bodies of its subtree
//!   near its plane, gathered by visiting the nodes whose regions meet the straddlers' hull and sorted. A body lies
//!   in the layers of the few ancestors whose planes bound its leaf. + O(k) output.
//! - **Memory:** O(n + nodes): items twice (this frame's and the next, 28 B each), nodes 48 B, spans 12 B; the
//!   update's movers and the layers as scratch.
//! - **Best case:** slow bodies small against the leaves: few movers, no edit, a frame is one pass, the sweeps and
//!   small layers.
//! - **Worst case:** all bodies at one point (no plane separates them: one leaf, n(n−1)/2 tests, the output's own
//!   size); every body straddling one plane (a sheet: strips keep it near linear unless the bodies also pile up
//!   along it); teleporting bodies (every body moves every frame: a rebuild's cost plus the bookkeeping).
//!
//! # Performance tips
//!
//! - `max_leaf` 16–64 cost about the same (instructions per frame at 10⁵ bodies before the keyed layers, thesis /
//!   cluster's dense phase: 16: 71 / 159 M, 32: 65 / 152 M, 64: 62 / 155 M; on rapier's brownian crowd at 10⁴,
//!   one thread, 32 / 64 / 128 / 256 ran 0.80 / 0.74 / 0.74 / 0.71 ms a frame); 64 is the default (the strips
//!   make larger leaves cheap).
//! - `period`: shorter follows a moving crowd sooner at the price of more small re-plans (noise in small subtrees
//!   crosses the ratio: a few percent of the bodies per check in a uniform scene, all cheap); longer for still
//!   scenes. `max_ratio` larger re-plans less.
//! - kd wins where bodies are small against the leaves and move a fraction of a leaf per frame (the thesis scene):
//!   most bodies stay in their node and nothing is rebuilt. It follows a crowd off the centre, where the octrees'
//!   planes stay at the cells' centres. It loses where everything moves through several cells a frame.
//! - The frame's motion hint is not read: a body that did not move costs one region test and one side test, and
//!   its box is read anyway.
//!
//! # Invalid boxes
//!
//! A box that is not finite or has `min > max` on some axis overlaps nothing: the update drops it and lists the
//! body as excluded, and looks at it again every frame until its box is valid. Debug builds panic instead, naming
//! the body and its box (the frame's `InvalidBoxes` says which, `Panic` by default in debug builds). Finite
//! boxes of any size are placed exactly (the root's region is infinite, planes are the bodies' own coordinates,
//! centres are `min / 2 + max / 2`).
//!
//! # Stats
//!
//! The shared `pair_tests` (sweeps of own bodies, layers and strips), `work` (bodies placed, moved, written and
//! sorted; nodes visited and layer items read by the search; bodies laid out by the planner) and
//! `bytes_touched`; the shape (`nodes`, `leaves`, `height`, `max_leaf_load`, `inner_bodies`); what the frame did
//! (`reinserted`: bodies that changed node; `splits`, `rebalanced`, `collapsed`: the edits; `replanned_bodies` and
//! `largest_replan`: the bodies of the re-planned subtrees, and of the largest — the whole count would be a full
//! rebuild; `balance_check`: 1 on a frame that checked); `root_balance` (the root's smaller side over its larger);
//! and `excluded` (bodies with invalid boxes).
//!
//! # Modules
//!
//! Layered so that imports point one way: the data (`tree.rs`: nodes, spans, items, where a box goes) ← kernels
//! on it (`place.rs`: a body's node; `plan.rs`: the planner) ← the frame's steps (`edit.rs`: the adjustment;
//! `update.rs`: the re-placement; `search.rs`: the pairs, on `collide-broadphase`'s sweep, strips, radix sort and
//! parallel runner) ← `validate.rs` ← `kd.rs` (the public type).

mod tree;
// Kernels on the data: where a body belongs, and the planner that lays out a subtree.
mod place;
mod plan;
// The frame: the shape's adjustment, the bodies' update, the pair search.
mod edit;
mod search;
mod update;
// The invariants' check, and the public type.
mod kd;
mod validate;

#[cfg(test)]
mod tests;

pub use kd::{KdConfig, KdTree};
pub use tree::MAX_DEPTH_LIMIT;

use collide_broadphase::ParamSpec;

/// `max_leaf`: bodies a leaf holds before it splits.
pub const MAX_LEAF: ParamSpec =
    ParamSpec::integer("max_leaf", "bodies a leaf holds before it is split by a median plane", 64.0, 1.0, 1024.0);

/// `max_depth`: the deepest level (root = 0).
pub const MAX_DEPTH: ParamSpec = ParamSpec::integer(
    "max_depth",
    "deepest level of the tree, root = 0 (a balanced tree of 10⁶ bodies in leaves of 8 is 17 deep)",
    32.0,
    0.0,
    MAX_DEPTH_LIMIT as f64,
);

/// `period`: simulated seconds between balance checks.
pub const PERIOD: ParamSpec = ParamSpec::number(
    "period",
    "simulated seconds between two checks of every node's balance (the BSP study's 0.2 s)",
    0.2,
    0.001,
    60.0,
);

/// `max_ratio`: the balance bound.
pub const MAX_RATIO: ParamSpec = ParamSpec::number(
    "max_ratio",
    "a plane moves when one side holds more than this many times the other's bodies (the study's 2: [0.5, 2])",
    2.0,
    1.0,
    100.0,
);

/// The parameters of `kd`.
pub const PARAMS: &[ParamSpec] = &[MAX_LEAF, MAX_DEPTH, PERIOD, MAX_RATIO];
