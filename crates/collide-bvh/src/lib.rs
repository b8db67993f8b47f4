//! Bounding volume hierarchies for the broadphase: an incremental dynamic AABB tree (`bvh-dynamic`) and a linear
//! BVH rebuilt every frame (`lbvh`).
//!
//! A bounding volume hierarchy is a binary tree of boxes: each leaf holds a body's box, each inner node the
//! union of its children's. Two bodies can only overlap if every pair of ancestors that separates them does, so
//! the pairs are found by descending the tree against itself and skipping every pair of subtrees whose boxes are
//! apart. Unlike a grid or an octree, a BVH adapts to any distribution and size of bodies — one huge body among
//! small ones is one leaf, not thousands of cells — which is why the engines in use ship one: Box2D v3's dynamic
//! tree, Bullet's `btDbvt`, parry's BVH (rapier's broad phase), Avian. What separates them is how the tree follows
//! moving bodies, and this crate has the two opposite answers.
//!
//! # `bvh-dynamic`: keep the tree, touch it only where bodies really moved
//!
//! **The naive version** updates every leaf to its body's new box each frame, refits every inner node and
//! traverses the whole tree for pairs — rapier's maintenance, which the bench's peers study times as
//! `parry-bvh-refit`. It costs a pass over every node plus a full self-traversal every frame, however little
//! moved: about 13 ms at 10⁵ slowly drifting bodies on the development VM, where a grid of sweeps (`mbp`) takes 8.
//!
//! **What fixes it** (Box2D v3, Bullet), in [`DynamicBvh`]:
//! - **fat boxes.** Each leaf holds a box larger than its body's; while the body's box stays inside, nothing in
//!   the tree changes. The margin is a small fraction of the body's size on every side plus a *reach* along its
//!   velocity (estimated from its displacement since its last insertion) as far as it goes in a *horizon* of
//!   calls, only on the side it moves towards: a body at constant velocity stays inside for a horizon, and the
//!   box grows along the motion, not around it. Each insertion jitters its horizon between ½ and 1½, so bodies
//!   inserted together do not all leave together. A body too fast for half a horizon within twice its size gets
//!   Box2D's predicted displacement instead: its displacement per call times `multiplier` ahead and `spread`
//!   times it on every side, so that a rigid body moving its own width every few calls (rapier's scenes) stays
//!   in its box for a few calls; only a body too fast even for that gets the base margin alone (`bodies.rs`);
//! - **a move list.** One pass over the bodies (`classify.rs`) lists those whose box left its fat box — with the
//!   frame's motion hint, only the bodies marked moved are even tested — and only those are removed and
//!   re-inserted. Re-insertion chooses the sibling by the surface-area heuristic, starting from the lowest former
//!   ancestor whose box contains the new fat box (Bullet's look-ahead: the body moved a little, so its place is
//!   near), refits upwards only as far as boxes change, and rotates nodes on the way (Box2D v3's rotations, which
//!   keep a tree that is changed one leaf at a time close to a rebuilt one) (`insert.rs`). The scan also sizes the
//!   new fat boxes, in parallel; the re-insertions are serial (each changes the tree the next one descends), so
//!   they run beside the cache's walk, which never reads the trees (`dynamic.rs`, `move_and_walk`);
//! - **a static and a dynamic tree** (Bullet's stages). A body whose box has not changed for `settle` calls moves
//!   to the static tree with a tight fat box; a static body that leaves its box goes back to the dynamic tree.
//!   Resting bodies then neither enlarge the cache with predicted boxes nor slow the insertions of the moving
//!   ones. Which bodies are still comes from the motion hint ([`Frame::with_moved`]); without it nothing
//!   settles, as in Bullet, whose stages are driven by the world updating only the bodies that move;
//! - **a persistent pair cache** (`cache.rs`): every pair of bodies whose *fat* boxes overlap, kept from call
//!   to call. Every box is in its fat box, so filtering the cache by the exact test on this call's boxes gives
//!   exactly the answer. The cache changes only at the moved bodies: the pairs that appear are found by querying
//!   the trees with their new fat boxes, and a pair found is new exactly when the two *old* fat boxes did not
//!   overlap (no hash set: the cache was exact for them), and the queries output those that overlap; the pairs
//!   that vanish are dropped by the walk, which tests the new fat boxes of the pairs of moved bodies on its way.
//!   The cache is kept sorted by its first body, so the walk streams through one box of each pair;
//! - **a refit path** when more than `rebuild_share` (4%) of the bodies leave their boxes in one call: instead of
//!   a re-insertion each, the moved leaves take their new fat boxes where they are, the changed part of the trees
//!   (the moved leaves and their ancestors, marked *dirty*) is refitted bottom-up with a rotation tried at every
//!   node (Kopta et al. 2012), and the new cache pairs come from a query per moved body — or, above `join_share`,
//!   from one self-join of the trees that enters only pairs of nodes with a dirty side. The SAH cost of the tree
//!   is measured after each refit; past 1.3× its value after the last rebuild, the next such call rebuilds
//!   (`refit.rs`);
//! - **a streaming mode** when more than `refit_max` (10%) of the bodies leave their boxes, or when an
//!   incremental call's work (its cached pairs plus 32 per moved body) passes `stream_ratio` times that of the
//!   last streaming call: the trees and the cache are dropped, and each call refits a linear BVH of the *exact*
//!   boxes bottom-up (built once with `lbvh`'s builder, rebuilt when its SAH cost grows 10%) and joins it for the
//!   answer. The incremental structures come back when the motion hint shows at most `rebuild_share` of the boxes
//!   changed, or at a probe every 64 calls (doubling, up to 1024, while probes fail at once) (`stream.rs`);
//! - **a bulk rebuild** for the first calls, a tree degraded by refits, and a crowd coming to rest at once (more
//!   than `rebuild_share` of the bodies settling): both trees are rebuilt by `lbvh`'s parallel builder,
//!   the cache filled by its self-join (`rebuild.rs`). A re-insertion costs a few microseconds at 10⁵ bodies;
//!   the parallel rebuild costs as much as a few thousand of them, so past that the rebuild is cheaper. The first
//!   call knows no speed; the second knows every body's displacement and rebuilds once more with predicted boxes.
//!   Two refinements keep repeated rebuilds cheap. A rebuild within two calls of the previous one gives no
//!   reach, the base margin alone: another rebuild most likely follows soon and re-sizes every box anyway, and a
//!   reach would only fill the cache (the tour's `grow` phase, fast small bodies beside 8× larger ones slow for
//!   their size: the large ones' reaches made the cache 8× the answer; its `cluster` phase, a dense crowd near
//!   the reach threshold rebuilding every other call: 6×). And when no body enters or leaves the static tree, only the dynamic
//!   tree is rebuilt: the static tree and the cache's pairs of two static bodies stay, and the pairs of a dynamic
//!   body with a static one come from a query of the static tree per dynamic body (the tour's `rest` phase, 90%
//!   settled and 10% too fast for a reach: every call rebuilds, now at a tenth of the box tests).
//!
//! So on a slow scene a frame costs a scan of the bodies, a re-insertion and a query for about one body in a
//! hundred, and a walk of the cache, whose size is the answer's times the fat boxes' inflation (about 5 at the
//! default horizon).
//!
//! **What breaks next.** Speed: a body that leaves its box every few calls costs an insertion and a query each
//! time (or its share of a refit), and when most bodies do, every call streams — about `lbvh`'s join, less its
//! build: on rapier's baked scenes that is 1.3–2.4× faster than parry's refitted BVH but still 1.5–2× slower than
//! `kd` (see Measured). Bodies that change direction often (collisions in a dense crowd) leave their predicted
//! boxes early, and bodies that jiggle in place (rapier's Brownian crowd) get long reaches that fill the cache
//! (ten times the answer), which the work comparison then sends to streaming. And the walk is bound by memory
//! latency, not arithmetic: body indices say nothing about position, so one box of each cached pair is a random
//! read.
//!
//! # `lbvh`: rebuild the tree every frame, in linear time and in parallel
//!
//! **The naive version** builds a tree top-down every frame, splitting each node's bodies by the surface-area
//! heuristic: a good tree, but O(n log n) work of poor parallelism at the top (parry's binned build,
//! `parry-bvh-rebuild` in the peers study, is several times slower than any of our broadphases at 10⁵ bodies).
//!
//! **What fixes it** (Karras 2012, "Maximizing parallelism in the construction of BVHs, octrees, and k-d
//! trees"), in [`LinearBvh`]: order the boxes along a Morton (Z-order) curve — 21-bit codes of their centres (30-bit above 2²¹ bodies)
//! over the scene's bounds, sorted by the shared radix sort (`morton.rs`, `karras.rs`). The binary radix tree of
//! the sorted codes is a spatial hierarchy (every subtree a run of consecutive leaves, an octree cell at the
//! depth of its common prefix), and it is defined by the codes alone, so it is built without any search order:
//! Karras finds each inner node independently from the codes; here the tree is built bottom-up in one parallel
//! climb that also computes the boxes (Apetrei 2014), each node made by the second of its children to finish.
//! Equal codes are told apart by the body index in the low half of each key, Karras's tie-break. The pairs come
//! from a simultaneous descent of the tree against itself, cut into tasks run in parallel; subtrees of up to
//! four leaves are tested as the runs of consecutive leaf boxes they are, and no branch depends on an overlap
//! test's outcome (`traverse.rs`).
//!
//! **What breaks next.** The Morton order ignores sizes: a large box is a leaf like any other, and every node
//! above it grows to hold it, so mixed sizes make upper nodes overlap and the descent open more of them. Codes
//! quantise the scene's bounds to 128 steps per axis (fine enough for a few bodies per cell), so a dense cluster in a large, nearly empty world shares a
//! few codes, and a tree over equal codes, ordered by index, is no spatial hierarchy at all: on `far-clusters`
//! (eight clusters at the corners of a world 1000 cluster widths wide) both trees tested nearly every pair of
//! each cluster, 700 ms a frame at 10⁵ bodies. So a run of more than eight equal codes is ordered again by codes
//! over its own bounds, and the tree is built over the composite keys (`refine.rs`); the test
//! `far_clusters_cost_what_near_clusters_cost` holds both trees to the box tests of the same clusters close
//! together. And like every rebuilt structure it pays for the whole scene every frame, however little moved: for
//! slow scenes `bvh-dynamic` is the tool.
//!
//! # Invalid boxes
//!
//! A box that is not finite or has `min > max` on an axis overlaps nothing: `lbvh` gives it a key above every
//! code and leaves it out of the tree; `bvh-dynamic`'s scan tests every box it must test anyway (one comparison
//! that rejects NaN and inverted boxes along with boxes outside their fat boxes) and takes the body out of its
//! tree and the cache. Under the frame's `InvalidBoxes::Panic` (the default in debug builds) both panic instead, naming the body
//! and the box. Huge finite coordinates (±1e30) are fine: Morton bounds are computed in f64 and margins that
//! would overflow fall back to the body's own box.
//!
//! # Modules
//!
//! Layered so that imports point one way: the data (`bounds.rs`: the area and validity of boxes; `flat.rs`: the
//! linear BVH's sorted leaves and 64-byte nodes; `tree.rs`: the dynamic tree's node pool and query; `bodies.rs`:
//! per-body proxies, anchors and marks, and the fat-box policy); kernels (`morton.rs`, `refine.rs` — long runs of
//! equal codes ordered again —, `chunks.rs` — sections in
//! parallel chunks with readable per-chunk results, on the shared `Parallelism` —, `karras.rs`, the parallel
//! build; `traverse.rs`, the self-join and queries; `insert.rs`, the dynamic tree's insertion, removal and
//! rotations); the dynamic tree's passes (`classify.rs`, the scan; `cache.rs`, the pair cache; `rebuild.rs`,
//! the bulk rebuild; `refit.rs`, the refit path; `stream.rs`, streaming mode; `validate.rs`); and on top the public types (`dynamic.rs`, `lbvh.rs`). The radix sort and
//! the parallel runner are `collide-broadphase`'s.
//!
//! # Stats
//!
//! `pair_tests` counts exact box tests: the cache's walk and the leaf tests of the queries (`bvh-dynamic`), the
//! leaf tests of the self-join (`lbvh` and the rebuild). `work` counts bodies scanned, nodes visited by queries,
//! insertions and the join, keys and nodes built; `bytes_touched` the same in bytes. Name-keyed: `lbvh` reports
//! `nodes`, `leaves`, `height` and `invalid_boxes`; `bvh-dynamic` reports `nodes` and `height` (of both trees),
//! `dynamic_bodies`, `static_bodies`, `reinserted` (bodies moved in the trees, by re-insertion or refit),
//! `settled`, `rotations`, `tree_visits` (nodes visited by insertions, removals and refits: 0 when no box left
//! its fat box), `cached_pairs`, `new_pairs`, `stale_pairs`, `rebuilt` (1 on a bulk rebuild, and on a streaming
//! call that built its tree), `refitted` (1 on the refit path), `streamed` (1 in streaming mode) and
//! `stream_cost` (the streaming tree's SAH cost).
//!
//! # Complexity
//!
//! n bodies, k overlapping pairs, c cached pairs (fat boxes overlapping, c ≥ k), m bodies leaving their fat
//! boxes in a call, h the tree's height (≈ log₂ n for a good tree).
//!
//! | | per call | memory |
//! |---|---|---|
//! | `lbvh` build | O(n): keys, two radix passes (three above 2²¹ bodies), one climb, one pack | 64 B per inner node, 32 B keys and leaf box per body |
//! | `lbvh` pairs | O(n + k) for small uniform bodies; O(n²) when every box overlaps every other | task plan and per-chunk stacks |
//! | `bvh-dynamic` | O(n) scan + O(m · h) re-insertions and queries + O(c) walk | two pools of 40 B nodes, 28 B proxy per body, 8 B per cached pair |
//! | `bvh-dynamic` refit path | O(n) scan + O(d) refit of the d dirty nodes (d ≤ m · h) + O(m · h) queries (or the join restricted to dirty node pairs) + O(c) walk | as above, plus a byte per pool node |
//! | `bvh-dynamic` streaming | O(n) scan of the hint + O(n) refit + `lbvh`'s join; `lbvh`'s build when the SAH cost grew 10% | as `lbvh`, plus 4 B per inner node |
//! | `bvh-dynamic` rebuild | `lbvh`'s build and join, plus O(c) to sort the cache | as `lbvh`, per tree |
//!
//! - **Best case** for `bvh-dynamic`: slow, coherent motion — m a small fraction of n, c a few times k; with the
//!   motion hint, bodies at rest cost one flag read (a box bit for bit unchanged is not even compared with its
//!   fat box, and does no tree work: `tree_visits` stays 0). For `lbvh`: many small bodies spread out; its cost
//!   does not depend on speed.
//! - **Worst case** for both: everything overlapping everything (k = n²/2, the output's own size). For
//!   `bvh-dynamic`: every body leaving its box every call (a rebuild each call: `lbvh`'s cost plus the walk).
//!   For `lbvh`: mixed sizes and tight clusters in a large world (see above).
//!
//! # Performance tips
//!
//! - Use `bvh-dynamic` when bodies move little per frame relative to their size (the `slow` scene, resting
//!   crowds), `lbvh` when they move fast or teleport. Watch `reinserted` and `rebuilt`: more than a few percent
//!   of the bodies re-inserted per call, or `rebuilt` = 1 call after call, means `lbvh` (or `mbp`) is faster.
//!   Measured on the tour at 10⁵ bodies (`collide --headless configs/tour.toml --set bodies=100000 --set
//!   algorithm=bvh-dynamic --frames 1800`, frames 30+ of each phase, this version beside the one before the two
//!   rebuild refinements in the same minutes, load 3–5): `cluster` 2.93 M box tests a frame (was 12.7 M), 82 ms
//!   (was 233); `rest` 49 k (was 478 k), 14 ms (was 25); `grow` 3.05 M (was 11.6 M), 92 ms (was 132); `uniform`,
//!   `released` and `slow` unchanged. Where every call rebuilds (`uniform`, `cluster`, `grow`) `lbvh`, `sap` or
//!   `kd` remain faster.
//! - `horizon` trades re-insertions for false pairs: longer horizons re-insert less and cache more pairs that
//!   fail the exact test (`cached_pairs` against the answer's size). On `slow` at 10⁵ bodies (serial, median
//!   frame): 60 calls → 1 574 re-insertions and 29 k cached pairs a frame, 120 → 946 and 53 k, 240 → 518 and
//!   105 k; the frame cost was flat from 120 to 240 (about 2.5 ms serial on the loaded VM), higher at 60.
//! - Give the frame the motion hint ([`Frame::with_moved`]): bodies marked unmoved are not tested, and only
//!   with it do resting bodies settle into the static tree.
//! - `rebuild_share` (4% by default) is where a bulk rebuild becomes cheaper than re-inserting one by one; raise
//!   it on machines with one core (the rebuild is parallel, the re-insertions are not).
//! - Both run on rayon's threads from [`Parallelism::DEFAULT_MIN_WORK`] items (the scan, the queries, the walk,
//!   the build and the join); the re-insertions are serial, beside the walk, so on two threads a frame costs
//!   about the larger of the two plus the scan and the queries. Neither allocates per frame once its buffers
//!   have grown to the scene (`tests/warm_allocations.rs`).
//!
//!
//! # Measured
//!
//! Development VM (2-core AMD EPYC, shared with other builds: load average 5–7 during every figure here, which
//! inflates absolute times about twofold and hurts the parallel passes most). Each contender runs over the same
//! recorded frames of a `collide-sim` simulation, frame by frame in turn, so that load spikes hit all of them;
//! the ratio is of mean frame times (and of the faster half of the frames), with 2 rayon threads (the
//! `bvh-dynamic` rows are from before its re-insertions ran beside the walk; see below for the current figures):
//!
//! | scene | bodies | ours | against | ratio (mean / faster half) |
//! |---|---|---|---|---|
//! | `slow` | 10⁵ | `bvh-dynamic` with the motion hint | `parry-bvh-refit` | 0.39–0.45 / 0.34–0.36 |
//! | `slow` | 10⁵ | `bvh-dynamic` without it | `parry-bvh-refit` | 0.43–0.53 / 0.41–0.44 |
//! | `slow` | 10⁵ | `mbp` | `parry-bvh-refit` | 0.62–0.74 / 0.65–0.66 |
//! | `uniform` | 10⁵ | `lbvh` | `parry-bvh-rebuild` | 0.22 / 0.20 |
//! | `uniform` | 10⁶ | `lbvh` | `parry-bvh-rebuild` | 0.23 / 0.22 |
//! | `uniform` | 10⁶ | `mbp` | `parry-bvh-rebuild` | 0.19 / 0.18 |
//!
//! Issue 14's target for `bvh-dynamic` (≤ ⅕ of `parry-bvh-refit` on `slow` at 10⁵, no motion hint, as the peers
//! study runs it), with xtask's former `tree_peers` example — now the bench's `side-by-side` study, comparison
//! `trees` — (a recording of 200 frames, 120 of them warm-up, both contenders interleaved frame by frame inside
//! `on_worker`, 2 threads), the version with the re-insertions
//! beside the walk against the one before it, in turn, three rounds each, load average 1.5–1.9:
//!
//! | bodies | before: ours / parry-refit, ms | ratio | re-insertions beside the walk | ratio |
//! |---|---|---|---|---|
//! | 10⁴ | 0.14 / 0.56 | 0.25 | 0.14 / 0.57 | 0.24–0.27 (unchanged: below the parallel threshold) |
//! | 10⁵ | 2.23–2.35 / 7.8–8.0 | 0.28–0.29 | 1.69–1.85 / 7.7–8.2 | 0.22 |
//!
//! Where that 10⁵ frame went (mean of 160 frames, phases timed inside, load about 1.2): on 2 threads the scan
//! 0.15 ms, the moves' fat boxes and marks 0.09 (serial), the re-insertions beside the walk 0.94–1.04, the
//! queries 0.47–0.50; on one thread 0.22, 0.09, 1.65 (re-insertions about 0.85, walk 0.8) and 0.90. About 950
//! bodies re-inserted a frame, 54.5 k cached pairs for 9.8 k overlapping. Two changes followed — the scan sizes
//! the new fat boxes (in parallel), and a query reads an unmoved partner's old fat box from its leaf — measured
//! only under a load of 3–5, where every version's ratio is 0.35–0.41 and they cannot be told apart (on one
//! thread, load 5, 2.2 ms a frame against 2.5–2.9 before them: a hint, not a figure). The target is missed by about 10%: the re-insertions (about 0.9 µs each, mostly
//! the descents' cache misses) and the queries are most of what is left, and the two threads now share the work
//! about evenly, so what remains is making each cheaper. Tried and dropped: a query right after each
//! re-insertion, while its path is in the cache (one thread, load 3.3: no faster); horizons of 180 and 240 calls
//! (650 and 500 re-insertions, 78 k and 111 k cached pairs in the steady state after 400 calls; at load 4.4 the
//! ratios, 0.34, 0.34 and 0.37 for 120, 180 and 240, told nothing, and the peers study warms up 120 calls only).
//!
//! **Moves in pool order** (`DynamicBvh::order_moves`, 2026-12-02). A call's moves are sorted by their leaves'
//! node index before they are made, so that consecutive re-insertions and queries share the paths they read
//! (the bulk build lays the leaves out along the Morton curve, and a leaf keeps its index). `slow` at 10⁵, 2
//! threads, headless, phases timed inside (load 1.3): the re-insertions 0.74 → 0.63 ms a call, the queries 0.53 →
//! 0.42, the sort 0.02; broadphase 1.70 → 1.48–1.53 ms a frame, old and new binaries interleaved. The peers study
//! right after (three runs, load 1.4): 1.74, 1.81, 1.73 ms against parry's refit 10.0, 9.4, 9.1, so 0.17–0.19.
//! Parry ran this file at 6.5–8.1 ms in the runs of the day before; ours at 1.71–2.02 there. In the same
//! session, headless with every other process stopped, horizons of 120, 180 and 240 calls gave 1.54, 1.37 and 1.46 ms a frame over
//! frames 400–1000 (880, 640 and 515 re-insertions; 49 k, 77 k and 110 k cached pairs): 180 is faster in the
//! steady state but was not adopted, as the fat boxes of every slow scene would grow by half.
//!
//! Where every body moves fast (`uniform`, `cluster`) every frame was a bulk rebuild, about twice `lbvh`'s time:
//! the rebuild also converts the trees to pools and sorts the cache for frames that do not come. Such frames now
//! stream (see above).
//!
//! Issue 35, rapier's baked scenes (`cargo xtask bench --study replay --only bvh-dynamic,kd,parry-bvh-refit`,
//! 2 threads, mean ms over the file, the three contenders in one run per size; before: the version without the
//! refit path and streaming mode, from the issue). This version, 10⁴ at load 1.1, 10⁵ at load 2.6–3.2:
//!
//! | scene | bodies | before | `bvh-dynamic` | `parry-bvh-refit` | `kd` | refit / ours |
//! |---|---|---|---|---|---|---|
//! | brownian | 10⁴ | 0.93–1.06 | 0.90 | 1.21 | 0.54 | 1.34 |
//! | free-fall | 10⁴ | 0.56 | 0.67 | 1.96 | 0.79 | 2.9 |
//! | gravity | 10⁴ | 2.35 | 1.36 | 2.50 | 0.85 | 1.84 |
//! | brownian | 10⁵ | 19.5 | 16.0 | 19.6 | 10.4 | 1.23 |
//! | free-fall | 10⁵ | 13.7 | 16.5 | 18.8 | 11.1 | 1.14 |
//! | gravity | 10⁵ | 33.0 | 26.3 | 35.2 | 16.5 | 1.34 |
//!
//! A variant with the probe's speed rebuild kept and joins in tasks of 512 leaves measured, at load 1.2 (10⁴)
//! and 1.3–2.6 (10⁵): 1.56, 4.0, 2.1 and 1.72, 1.57, 2.33; it was dropped because its grown caches allocated in
//! the warm reorder tests, and the two could not be told apart from the load in the time there was. Most calls
//! of these scenes stream, and a streaming call is `lbvh`'s join (about two thirds of it) on a refitted tree:
//! `kd` stays about 1.6× faster. `slow` at 10⁵ (peers study, load 1.2–1.3, the variant): 1.52 ms against
//! parry's refit 9.89 (0.15); the slow path is the same code in both.
//!
//! Timed phase by phase on rapier's Brownian crowd at 10⁴ bodies (headless replay, every other process stopped),
//! a streaming call was a serial refit of 120–135 µs and a join of 950 µs on one thread, 600 µs on two. The refit
//! is now parallel (`stream.rs`: the gather, and subtrees of at most 512 leaves, each a slice of the node array):
//! 88 µs on two threads. And the join's chunks, like every section of few coarse tasks, are each a rayon job of
//! their own (`collide_broadphase::parallel`): before, an idle thread found nothing to steal while the other still
//! held a run of chunks. Together, 2 threads: 0.78 ms a frame on that file before (one run), 0.66–0.67 after
//! (three runs). The job split alone, against a build with the parallel refit only, on the uniform scene at 10⁵
//! (60 frames, two runs each): 5.91 and 5.72 → 5.44 and 5.34 ms.
//!
//! [`Frame::with_moved`]: collide_broadphase::Frame::with_moved
//! [`Parallelism::DEFAULT_MIN_WORK`]: collide_broadphase::Parallelism::DEFAULT_MIN_WORK

// The data structures:
mod bodies;
mod bounds;
mod flat;
mod tree;
// Kernels: Morton codes, the chunk runner, the parallel build, the traversals.
mod chunks;
mod insert;
mod karras;
mod morton;
mod refine;
mod traverse;
// The dynamic tree's per-frame passes, its pair cache, its bulk rebuild and its invariants:
mod cache;
mod classify;
mod rebuild;
mod refit;
mod stream;
mod validate;
// The public types.
mod dynamic;
mod lbvh;

pub use dynamic::{DynamicBvh, DynamicConfig};
pub use lbvh::{LbvhConfig, LinearBvh};

/// The registry name of [`LinearBvh`].
pub const LBVH: &str = "lbvh";

/// The registry name of [`DynamicBvh`].
pub const BVH_DYNAMIC: &str = "bvh-dynamic";

#[cfg(test)]
mod tests;

use collide_broadphase::ParamSpec;

/// The tunables of `bvh-dynamic` (see [`DynamicConfig`]).
pub const DYNAMIC_PARAMS: &[ParamSpec] = &[
    ParamSpec::number(
        "horizon",
        "calls of predicted motion a fat box covers: longer re-inserts less often and caches more false pairs",
        120.0,
        0.0,
        10_000.0,
    ),
    ParamSpec::number("margin", "fat box margin on every side, as a fraction of the body's size", 0.05, 0.0, 10.0),
    ParamSpec::integer("settle", "calls without motion before a body moves to the static tree", 16.0, 1.0, 1.0e6),
    ParamSpec::number(
        "rebuild_share",
        "share of the bodies leaving their fat boxes in one call above which the trees are refitted (or streamed) instead of re-inserted",
        0.04,
        0.0,
        1.0,
    ),
];
