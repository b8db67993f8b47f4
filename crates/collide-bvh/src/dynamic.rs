//! [`DynamicBvh`] (`bvh-dynamic`): the incremental dynamic AABB tree behind the [`Broadphase`] trait — two pool
//! trees, fat boxes, the move list, the persistent pair cache, and the bulk rebuild for frames where too many
//! bodies move.

use crate::bodies::{Anchor, FatPolicy, Marks, Proxy, Stage, jitter};
use crate::cache::{PairCache, View, WalkView};
use crate::chunks::Chunks;
use crate::classify::{Move, Scan, Target};
use crate::insert::Changes;
use crate::rebuild::{self, Rebuild};
use crate::refit::{self, LeafPairs};
use crate::stream::{self, Stream};
use crate::tree::{NONE, Tree};
use collide_broadphase::{
    Aabb, Broadphase, DebugBox, DebugGeometry, Frame, InvalidBoxes, Pair, PairList, Parallelism, Params, Resize, Stats,
    Tally,
};
use std::sync::atomic::{AtomicU32, Ordering};

/// Tuning of a [`DynamicBvh`]. The registry's parameters map onto the first four fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicConfig {
    /// The calls of predicted motion a fat box covers (each insertion draws its own between ½ and 1½ of this).
    /// Longer: fewer re-insertions, more cached pairs that fail the exact test. Default 120.
    pub horizon: f32,
    /// The fat box's base margin on every side, as a fraction of the body's largest extent. Default 0.05.
    pub margin: f32,
    /// Calls without any change of its box after which a body moves to the static tree. Default 16.
    pub settle: u32,
    /// When more than this share of the bodies must move in one call, they are not re-inserted one by one: the
    /// trees are refitted (or, past `refit_max`, rebuilt; see the crate docs). Default 0.04. (The name is the
    /// registry's, from before the refit path, when everything past it was rebuilt.)
    pub rebuild_share: f32,
    /// When more than this share of the bodies must move in one call, every tree is rebuilt instead of
    /// refitted. Default 0.6.
    pub refit_max: f32,
    /// On the refit path, when more than this share of the bodies moved, the new pairs come from one join of the
    /// changed part of the trees instead of a query per moved body. Default 0.3.
    pub join_share: f32,
    /// An incremental call whose cached pairs plus `MOVE_COST` per moved body pass this many times the box tests
    /// and node visits of the last streaming call (before any, its bodies plus its answer's pairs) is dearer than
    /// a streaming call would be: the next call streams (`stream.rs`). Infinite: only `refit_max` starts
    /// streaming. Default 1 (see the crate docs' measurements).
    pub stream_ratio: f32,
    /// Whether streaming mode is used at all. Off, a call on which more than `refit_max` of the bodies moved takes
    /// the bulk rebuild instead (the behaviour before streaming mode; the tests of the rebuild path use it).
    /// Default on.
    pub streaming: bool,
    /// The most a fat box reaches along the motion on one axis, as a multiple of the body's largest extent.
    /// Default 2.
    pub max_reach: f32,
    /// A body too fast for the horizon's reach: the calls of its displacement its fat box reaches ahead.
    /// Default 2.
    pub multiplier: f32,
    /// A body too fast for the horizon's reach: the calls of its largest displacement component its fat box
    /// reaches on every side. Default 1.
    pub spread: f32,
    /// When the scan, the queries, the walk and the rebuild run on rayon's threads. Default:
    /// [`Parallelism::default`]; tests lower it to run the parallel paths on small scenes.
    pub parallelism: Parallelism,
}

impl Default for DynamicConfig {
    fn default() -> Self {
        Self {
            horizon: 120.0,
            margin: 0.05,
            settle: 16,
            rebuild_share: 0.04,
            refit_max: 0.1,
            join_share: 0.3,
            stream_ratio: 1.0,
            streaming: true,
            max_reach: 2.0,
            multiplier: 1.0,
            spread: 0.5,
            parallelism: Parallelism::default(),
        }
    }
}

impl DynamicConfig {
    fn policy(&self) -> FatPolicy {
        FatPolicy {
            margin: self.margin,
            horizon: self.horizon,
            max_reach: self.max_reach,
            multiplier: self.multiplier,
            spread: self.spread,
        }
    }
}

/// The calls after a build before one costs what later ones do (see [`Broadphase::settling_calls`]). The first
/// builds with tight boxes, the second rebuilds with the reaches it measured, and then nobody leaves a fresh fat
/// box for a call or two: its cache answers for free. Replaying rapier's free fall at 10⁴ bodies from a fresh tree,
/// calls 0–11 cost 6.0, 6.0, 0.29, 2.8, 0.68, 0.68, 0.67, 0.73, 0.70, 0.71, 0.72, 0.81 ms, and ~0.9 later; on a
/// sub-box of 523 of those bodies 0.52, 0.40, 0.028, 0.16, 0.062, 0.055, then 0.083–0.095 from the sixth on.
pub(crate) const SETTLING_CALLS: u32 = 6;

/// Before any streaming call has been measured, a streaming call's work is guessed at this many times the
/// bodies plus the pairs (rapier's Brownian crowd of 10⁴ bodies measured 9: 173 k box tests and node visits for
/// 10⁴ bodies and 9.8 k pairs; a guess on the low side would leave the incremental structures on a hunch).
const FIRST_GUESS: usize = 4;

/// What one moved body costs on the incremental path, in cached pairs walked (a re-insertion and a query, about
/// a microsecond, against a few nanoseconds a pair).
const MOVE_COST: usize = 32;

/// Calls within which a second bulk rebuild gives no reach (see [`DynamicBvh::rebuild`]).
const REBUILD_RUN: u32 = 2;

/// What the cache's passes read, borrowed field by field (the cache itself is written meanwhile).
macro_rules! view {
    ($s:expr, $aabbs:expr) => {
        View { aabbs: $aabbs, proxies: &$s.proxies, marks: &$s.marks, moves: &$s.moves, trees: &$s.trees }
    };
}

/// The buffers a permutation moves the per-body arrays through ([`Resize::permute`]), kept so that a warm tree
/// renumbers its bodies without allocating.
#[derive(Debug, Default)]
struct Renumbering {
    proxies: Vec<Proxy>,
    anchors: Vec<Anchor>,
    still: Vec<u32>,
    #[cfg(debug_assertions)]
    boxes: Vec<Aabb>,
}

/// What the last call did.
#[derive(Clone, Copy, Debug, Default)]
struct LastStats {
    tally: Tally,
    reinserted: u64,
    settled: u64,
    changes: Changes,
    new_pairs: u64,
    stale_pairs: u64,
    rebuilt: bool,
    /// The call took the refit path.
    refitted: bool,
    /// The call ran in streaming mode.
    streamed: bool,
}

/// The refit path's kept buffers (no allocation once warm) and its quality watch (see `refit.rs`).
#[derive(Debug, Default)]
struct Refitter {
    /// The refit's post-order stack and the joins' stack of node pairs.
    stack: Vec<(u32, bool)>,
    pairs: Vec<(u32, u32)>,
    /// The joins' new cache pairs, and those of them whose boxes overlap this call.
    found: Vec<Pair>,
    out: Vec<Pair>,
    /// The dynamic tree's SAH cost after the last rebuild (0: not measured since).
    baseline: f32,
    /// The last refit left the dynamic tree past [`refit::DEGRADE`] times `baseline`: the next call rebuilds.
    degraded: bool,
}

/// The refit joins' sink: a pair of leaves (one of them moved) is new when the two old fat boxes did not overlap.
struct NewPairs<'a> {
    aabbs: &'a [Aabb],
    marks: &'a Marks,
    moves: &'a [Move],
    found: &'a mut Vec<Pair>,
    out: &'a mut Vec<Pair>,
}

impl LeafPairs for NewPairs<'_> {
    #[inline]
    fn pair(&mut self, a: u32, fat_a: &Aabb, b: u32, fat_b: &Aabb) {
        let (sa, sb) = (self.marks.slot(a as usize), self.marks.slot(b as usize));
        if sa.is_none() && sb.is_none() {
            return; // two bodies that did not move, under dirty ancestors: cached already if they overlap
        }
        let old = |slot: Option<u32>, leaf: &Aabb| slot.map_or(*leaf, |s| self.moves[s as usize].old_fat);
        if old(sa, fat_a).overlaps(&old(sb, fat_b)) {
            return;
        }
        let pair = Pair::new(a, b);
        self.found.push(pair);
        if self.aabbs[a as usize].overlaps(&self.aabbs[b as usize]) {
            self.out.push(pair);
        }
    }
}

/// An incremental dynamic AABB tree in the style of Box2D v3 and Bullet's `btDbvtBroadphase`. Registry name
/// `bvh-dynamic`. See the crate docs for how it works and what it costs.
#[derive(Debug, Default)]
pub struct DynamicBvh {
    config: DynamicConfig,
    /// The dynamic tree (index 0, [`Stage::Dynamic`]) and the static tree (index 1): every body with a usable box
    /// is in exactly one of them, at the leaf its proxy names.
    trees: [Tree; 2],
    /// Per body: its fat box and leaf. (Crate-visible for the tests that break it on purpose.)
    pub(crate) proxies: Vec<Proxy>,
    /// Per body: its centre and the call at its last insertion.
    anchors: Vec<Anchor>,
    /// Which bodies moved this call, and their moves' slots.
    marks: Marks,
    /// Per body: the call since which its box has not changed.
    still: Vec<AtomicU32>,
    /// Every pair of bodies whose fat boxes overlap.
    pub(crate) cache: PairCache,
    /// This call's moves: in body order from the scan, in pool order once [`DynamicBvh::order_moves`] has run.
    moves: Vec<Move>,
    /// The sort keys of [`DynamicBvh::order_moves`], and the moves' buffer it gathers into.
    move_keys: Vec<u64>,
    ordered: Vec<Move>,
    scan: Chunks<Vec<Move>>,
    rebuild: Rebuild,
    /// Calls so far (the first is 1).
    now: u32,
    /// Whether the structure holds the bodies of a previous call.
    built: bool,
    /// The last build knew no body's speed (it was the first): the next call rebuilds with the speeds it sees.
    speeds_unknown: bool,
    /// The call of the last bulk rebuild (0: none since the last reset): see [`DynamicBvh::rebuild`].
    last_rebuild: u32,
    /// The boxes of the last call, kept in debug builds only, so that `validate` can check the fat-box rule.
    #[cfg(debug_assertions)]
    last_boxes: Vec<Aabb>,
    renumbering: Renumbering,
    refitter: Refitter,
    /// The streaming mode (`stream.rs`); while it is on, the trees, the proxies and the cache are empty.
    stream: Stream,
    /// Calls in streaming mode before the incremental structures are tried again: [`stream::PROBE`], doubled (up
    /// to [`stream::PROBE_MAX`]) each time a try ends back in streaming mode within [`stream::PROBE_FAILED`] calls.
    probe_every: u32,
    /// The call on which streaming mode was last left (0: never).
    stream_left: u32,
    /// The last incremental call cost more than streaming would (see `stream_ratio`): the next one streams.
    prefer_stream: bool,
    /// The box tests and node visits of the last streaming call (0: none since the last reset): what the
    /// incremental calls' work is compared with.
    stream_work: u64,
    last: LastStats,
}

impl DynamicBvh {
    /// A dynamic tree with default tuning.
    #[must_use]
    pub fn new() -> Self {
        Self::with_config(DynamicConfig::default())
    }

    /// A dynamic tree with `config`. `horizon`, `margin` and `max_reach` are clamped to ≥ 0, `settle` to ≥ 1.
    #[must_use]
    pub fn with_config(config: DynamicConfig) -> Self {
        let config = DynamicConfig {
            horizon: config.horizon.max(0.0),
            margin: config.margin.max(0.0),
            max_reach: config.max_reach.max(0.0),
            settle: config.settle.max(1),
            ..config
        };
        Self { config, ..Self::default() }
    }

    /// Build from registry parameters (`horizon`, `margin`, `settle`, `rebuild_share`).
    #[must_use]
    pub fn from_params(params: &Params) -> Self {
        let d = DynamicConfig::default();
        Self::with_config(DynamicConfig {
            horizon: params.try_get("horizon").map_or(d.horizon, |v| v as f32),
            margin: params.try_get("margin").map_or(d.margin, |v| v as f32),
            settle: params.try_get("settle").map_or(d.settle, |v| v as u32),
            rebuild_share: params.try_get("rebuild_share").map_or(d.rebuild_share, |v| v as f32),
            ..d
        })
    }

    /// The tuning in effect (after clamping).
    #[must_use]
    pub fn config(&self) -> DynamicConfig {
        self.config
    }

    /// Renumber every body by the permutation `resize` (see [`Broadphase::on_resize`]).
    fn permute(&mut self, resize: &Resize<'_>) {
        let r = &mut self.renumbering;
        resize.permute(&mut self.proxies, &mut r.proxies);
        resize.permute(&mut self.anchors, &mut r.anchors);
        // The timers are atomics (the scan writes them from its chunks): their values go through the scratch.
        r.still.clear();
        r.still.resize(self.still.len(), 0);
        for (old, &new) in resize.old_to_new.iter().enumerate() {
            r.still[new as usize] = self.still[old].load(Ordering::Relaxed);
        }
        for (timer, &at) in self.still.iter().zip(&r.still) {
            timer.store(at, Ordering::Relaxed);
        }
        // A leaf names its body: rename it where the body's proxy, already renumbered, says it is.
        for (body, proxy) in self.proxies.iter().enumerate() {
            if let Some((s, leaf)) = proxy.place() {
                self.trees[s as usize].nodes[leaf as usize].child[0] = body as u32;
            }
        }
        self.marks.clear(self.proxies.len());
        let _ = self.cache.remap(resize.old_to_new);
        // The fat-box rule still holds for every body under its new index: its last box moves with it.
        #[cfg(debug_assertions)]
        if self.last_boxes.len() == resize.old_len() {
            resize.permute(&mut self.last_boxes, &mut r.boxes);
        }
    }

    /// Per-body state for `n` bodies, all in no tree.
    fn resize_bodies(&mut self, n: usize) {
        self.proxies.clear();
        self.proxies.resize(n, Proxy::PLACELESS);
        self.anchors.clear();
        self.anchors.resize(n, Anchor::UNKNOWN);
        self.marks.clear(n);
        // Still since now: a timer of 0 would settle every body at once on the next hinted call.
        let now = self.now;
        self.still.clear();
        self.still.resize_with(n, || AtomicU32::new(now));
    }

    /// Rebuild everything from this call's boxes (`hinted`: the call has the motion hint).
    ///
    /// A rebuild within [`REBUILD_RUN`] calls of the previous one (the speed-learning one after the first build
    /// aside) gives every body the base margin alone, no reach: calls that rebuild that often will most likely
    /// rebuild again soon, and the next rebuild re-sizes every fat box anyway, so a reach buys few calls without
    /// a re-insertion and fills the cache with pairs that fail the exact test. In a crowd of fast small bodies
    /// and large ones slow for their size (the tour's `grow` phase: every tenth body 8× larger, a rebuild every
    /// call), the large ones' reaches made the cache 8× the answer; in the tour's `cluster` phase (a dense crowd
    /// near the reach threshold, a rebuild every other call) 6×. Bodies slow enough for a reach mostly stay in a
    /// base-margin box for more than two calls, so once the rebuilds thin out, the next re-insertion or rebuild
    /// gives them their reach back.
    ///
    /// When this call's moves all go to the dynamic tree from the dynamic tree or from none, the static tree is
    /// kept as it is and only the dynamic one is rebuilt (see `Rebuild::run_dynamic`).
    fn rebuild(&mut self, aabbs: &[Aabb], hinted: bool, invalid_boxes: InvalidBoxes) -> Tally {
        let reach = self.speeds_unknown || self.now - self.last_rebuild > REBUILD_RUN;
        let keep_static = self.built
            && !self.speeds_unknown
            && self.trees[1].leaves > 0
            && self.moves.iter().all(|m| m.target == Target::Dynamic && !self.proxies[m.body as usize].is_static());
        let c = &self.config;
        let pairs = if keep_static { self.cache.refill_keeping_static(&self.proxies) } else { self.cache.refill() };
        let target = rebuild::Target {
            aabbs,
            proxies: &mut self.proxies,
            anchors: &mut self.anchors,
            still: &self.still,
            trees: &mut self.trees,
            pairs,
            policy: c.policy(),
            settle: c.settle,
            hinted,
            keep_static,
            reach,
            now: self.now,
            invalid_boxes,
        };
        let tally = self.rebuild.run(target, c.parallelism) + self.cache.sort_all();
        // The first build saw no motion: every body got the base margin only, and would leave it within a few
        // calls, all together. The next call knows every body's displacement and rebuilds with predicted boxes.
        // Not after streaming: a second rebuild there sized every box by one call's displacement. In rapier's
        // free-fall pile at 10⁵ bodies those reaches made the cache several times the answer and that call took
        // 280 ms, and the grown cache reached sizes no warm-up had seen (allocations in the warm reorder tests);
        // the re-insertions learn each body's speed over more calls instead.
        self.speeds_unknown = !self.built && self.stream_left != self.now;
        self.last_rebuild = self.now;
        self.built = true;
        self.last.rebuilt = true;
        // The next refit measures the fresh tree's cost as the baseline its own are compared with.
        self.refitter.baseline = 0.0;
        self.refitter.degraded = false;
        tally
    }

    /// Whether a call in streaming mode stays in it (see `stream.rs`): not when, by the motion hint, at most
    /// `rebuild_share` of the boxes changed, nor after [`stream::PROBE`] calls, nor when the count changed.
    fn keep_streaming(&self, frame: &Frame<'_>) -> bool {
        let n = frame.aabbs.len();
        if self.stream.calls >= self.probe_every.max(stream::PROBE) || self.proxies.len() != n {
            return false;
        }
        frame.moved.is_none_or(|moved| {
            let changed = moved.iter().filter(|&&m| m).count();
            changed as f32 > self.config.rebuild_share * n as f32
        })
    }

    /// One call in streaming mode: the exact pairs from the refitted (or rebuilt) linear BVH.
    fn stream_call(&mut self, frame: &Frame<'_>, out: &mut Vec<Pair>) {
        let aabbs = frame.aabbs;
        for (i, b) in aabbs.iter().enumerate().filter(|(_, b)| !crate::bounds::is_usable(b)) {
            frame.invalid_boxes.reject(i, b);
        }
        out.clear();
        let tally = self.stream.run(aabbs, self.config.parallelism, out);
        self.stream_work = tally.pair_tests + tally.work;
        self.last.tally += tally;
        self.last.streamed = true;
        self.last.rebuilt = self.stream.rebuilt;
        #[cfg(debug_assertions)]
        {
            self.last_boxes.clear();
            self.last_boxes.extend_from_slice(aabbs);
        }
    }

    /// Empty the trees, the cache and the per-body state for streaming mode, keeping the allocations and the
    /// body count (the count tells `keep_streaming` whether the next call's bodies are the same).
    fn empty_for_streaming(&mut self) {
        let n = self.proxies.len();
        for t in &mut self.trees {
            t.clear();
        }
        self.cache.clear();
        self.moves.clear();
        self.resize_bodies(n);
        self.built = false;
        self.speeds_unknown = false;
        self.last_rebuild = 0;
    }

    /// Give every body of `self.moves` its new fat box (in its proxy; the scan sized most of them and kept the old
    /// one in the move), mark it moved, and note where it was inserted from. Its place in the trees is not changed
    /// yet (see [`DynamicBvh::move_and_walk`]).
    fn prepare_moves(&mut self, aabbs: &[Aabb]) {
        self.order_moves();
        let (policy, now) = (self.config.policy(), self.now);
        for (slot, m) in self.moves.iter_mut().enumerate() {
            let i = m.body as usize;
            let b = &aabbs[i];
            self.proxies[i].fat = m.fat.unwrap_or_else(|| match m.target {
                Target::Dynamic => policy.dynamic_box(b, self.anchors[i], now, jitter(m.body, now)),
                Target::Static => policy.static_box(b),
                Target::Nowhere | Target::Unplaced => Aabb::EMPTY,
            });
            self.marks.set(i, slot as u32);
            match m.target {
                Target::Dynamic => self.last.reinserted += 1,
                Target::Static => self.last.settled += 1,
                Target::Nowhere | Target::Unplaced => continue,
            }
            self.anchors[i] = Anchor { center: crate::morton::center(b), at: now };
        }
    }

    /// Sort this call's moves by where their leaves sit in the pools ([`Proxy::pool_order`], read before the moves
    /// change any proxy's place; bodies in no tree
    /// last, in body order), so that the re-insertions and the queries after them visit the trees in memory order.
    ///
    /// **Why.** Body indices say nothing about where bodies are, so moves in body order jump across the tree:
    /// every re-insertion and every query starts with cache misses on its own path from the leaf or the root. A
    /// leaf keeps its pool index for its whole life, and the bulk build lays the leaves out along the Morton
    /// curve, so leaves close in the pool are close in space and share most of their ancestors. On `slow` at 10⁵
    /// bodies (2 threads, about 880 moves a call), the re-insertions took 0.74 ms a call in body order and 0.63 in
    /// pool order, the queries 0.53 and 0.42; the sort adds 0.02. (Keys from the Morton code of each body's
    /// centre gave the same within noise, for a random read of each box.) O(m log m) for m moves.
    fn order_moves(&mut self) {
        self.move_keys.clear();
        let proxies = &self.proxies;
        self.move_keys.extend(
            self.moves
                .iter()
                .enumerate()
                .map(|(slot, m)| (u64::from(proxies[m.body as usize].pool_order()) << 32) | slot as u64),
        );
        self.move_keys.sort_unstable();
        self.ordered.clear();
        self.ordered.extend(self.move_keys.iter().map(|&k| self.moves[k as u32 as usize]));
        std::mem::swap(&mut self.moves, &mut self.ordered);
    }

    /// The prepared moves made in the trees while the cache is walked: the two do not depend on each other (the
    /// walk reads this call's boxes, the new fat boxes and the marks, never the trees), and the re-insertions are
    /// serial, so on two threads the walk's chunks run beside them and the second thread joins the walk when the
    /// trees are done. The walk's output is every cached pair that overlaps; the queries that follow add the new
    /// ones. Each body's new place goes to its proxy afterwards (the walk reads the proxies meanwhile).
    ///
    /// `refit`: the refit path — the moved leaves take their new boxes in place and the new pairs come from the
    /// restricted joins (into the refitter's buffers), not from the queries that follow (see `refit.rs`).
    fn move_and_walk(&mut self, aabbs: &[Aabb], out: &mut Vec<Pair>, refit: Option<bool>) -> Tally {
        let parallelism = self.config.parallelism;
        let work = self.cache.len() + 16 * self.moves.len();
        let walk = WalkView { aabbs, proxies: &self.proxies, marks: &self.marks };
        let join = refit.map(|join| Join { aabbs, marks: &self.marks, refitter: &mut self.refitter, join });
        let mut halves = [
            Half::Trees {
                trees: &mut self.trees,
                proxies: &self.proxies,
                moves: &mut self.moves,
                join,
                changes: Changes::default(),
                tally: Tally::default(),
            },
            Half::Walk { cache: &mut self.cache, view: walk, out, stale: 0, tally: Tally::default() },
        ];
        parallelism.for_each("bvh_move_and_walk", work, &mut halves, |_, half| half.run(parallelism));
        let [Half::Trees { changes, tally: trees_tally, .. }, Half::Walk { stale, tally, .. }] = halves else {
            unreachable!("the halves keep their order")
        };
        let tally = tally + trees_tally;
        for m in &self.moves {
            self.proxies[m.body as usize].set_place(m.place);
        }
        self.last.changes = changes;
        self.last.stale_pairs += stale;
        tally + Tally::work(changes.visited + self.moves.len() as u64, changes.visited * 40)
    }
}

/// Which way a call updates the structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// Few bodies moved: each re-inserted, its new pairs found by a query (`insert.rs`, `cache.rs`).
    Reinsert,
    /// Many moved: leaves refitted in place, new pairs from the restricted joins (`refit.rs`).
    Refit,
    /// The tree degraded, or the first calls: everything rebuilt (`rebuild.rs`).
    Rebuild,
    /// More than `refit_max` moved: streaming mode from this call on (`stream.rs`).
    Stream,
}

/// What the refit path's joins read and where they write, beside the trees.
struct Join<'a> {
    /// Whether the restricted joins find the new pairs (else the queries after the trees are done).
    join: bool,
    aabbs: &'a [Aabb],
    marks: &'a Marks,
    refitter: &'a mut Refitter,
}

/// The two independent halves of an incremental call (see [`DynamicBvh::move_and_walk`]), each with what it
/// borrows and what it returns.
enum Half<'a, 'o> {
    Trees {
        trees: &'a mut [Tree; 2],
        proxies: &'a [Proxy],
        moves: &'a mut [Move],
        join: Option<Join<'a>>,
        changes: Changes,
        tally: Tally,
    },
    Walk {
        cache: &'a mut PairCache,
        view: WalkView<'a>,
        out: &'o mut Vec<Pair>,
        stale: u64,
        tally: Tally,
    },
}

impl Half<'_, '_> {
    fn run(&mut self, parallelism: Parallelism) {
        match self {
            Self::Trees { trees, proxies, moves, join: None, changes, .. } => {
                move_in_trees(trees, proxies, moves, changes);
            }
            Self::Trees { trees, proxies, moves, join: Some(join), changes, tally } => {
                *tally = refit_in_trees(trees, proxies, moves, join, changes);
            }
            Self::Walk { cache, view, out, stale, tally } => *tally = cache.walk(view, parallelism, out, stale),
        }
    }
}

impl Broadphase for DynamicBvh {
    fn name(&self) -> &'static str {
        crate::BVH_DYNAMIC
    }

    /// O(n) scan (a flag per body with the motion hint; a box test against the fat box without), a removal,
    /// insertion and query per moved body (O(log n) each in a good tree), then one exact test per cached pair.
    /// More than `rebuild_share` of the bodies moving: a bulk rebuild (see the crate docs).
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        let out = out.as_mut_vec();
        out.clear();
        self.last = LastStats::default();
        self.now += 1;
        if self.stream.active {
            if self.keep_streaming(frame) {
                self.stream_call(frame, out);
                return;
            }
            // Back to the incremental structures, from scratch (they were emptied when streaming began).
            self.stream.stop();
            self.stream_left = self.now;
        }
        if self.proxies.len() != aabbs.len() {
            // A count the structure was not told about: start afresh (always correct).
            self.reset();
            self.resize_bodies(aabbs.len());
        }
        let (c, now) = (self.config, self.now);
        self.marks.clear(aabbs.len());
        let moved = frame.moved.filter(|_| self.built);
        let scan = Scan {
            aabbs,
            moved,
            proxies: &self.proxies,
            still: &self.still,
            now,
            settle: c.settle,
            invalid_boxes: frame.invalid_boxes,
            anchors: &self.anchors,
            policy: c.policy(),
            share: c.refit_max,
        };
        scan.run(&mut self.scan, c.parallelism, &mut self.moves);
        let n = aabbs.len();
        let mut tally = Tally::work(n as u64, (n * (size_of::<Aabb>() + size_of::<Proxy>() + 8)) as u64);
        // Bodies settling into the static tree do not count: their fat boxes shrink, nothing else changes. Many of
        // them at once (a crowd coming to rest) take the bulk rebuild, which settles them together.
        let settling = self.moves.iter().filter(|m| m.target == Target::Static).count();
        let share = (self.moves.len() - settling) as f32 / n.max(1) as f32;
        let path = if !self.built || self.speeds_unknown {
            Path::Rebuild
        } else if share > c.refit_max || self.prefer_stream {
            if c.streaming { Path::Stream } else { Path::Rebuild }
        } else if settling as f32 > c.rebuild_share * n as f32 || (share > c.rebuild_share && self.refitter.degraded) {
            Path::Rebuild
        } else if share > c.rebuild_share {
            Path::Refit
        } else {
            Path::Reinsert
        };
        match path {
            Path::Stream => {
                // A try of the incremental structures that failed at once: try less often.
                let failed = self.stream_left > 0 && self.now - self.stream_left <= stream::PROBE_FAILED;
                self.probe_every = if failed { (2 * self.probe_every).min(stream::PROBE_MAX) } else { stream::PROBE };
                // Unusable boxes were reported by the scan; the incremental structures are emptied.
                self.prefer_stream = false;
                self.empty_for_streaming();
                self.stream_call(frame, out);
                return;
            }
            Path::Rebuild => {
                tally += self.rebuild(aabbs, moved.is_some(), frame.invalid_boxes);
                self.moves.clear();
                let view = WalkView { aabbs, proxies: &self.proxies, marks: &self.marks };
                tally += self.cache.walk(&view, c.parallelism, out, &mut self.last.stale_pairs);
            }
            Path::Refit => {
                self.prepare_moves(aabbs);
                let join = share > c.join_share;
                tally += self.move_and_walk(aabbs, out, Some(join));
                let r = &mut self.refitter;
                if join {
                    out.extend_from_slice(&r.out);
                    self.last.new_pairs += r.found.len() as u64;
                    self.cache.add_found(&r.found);
                } else {
                    let view = view!(self, aabbs);
                    tally += self.cache.add_new(&view, c.parallelism, out, &mut self.last.new_pairs);
                }
                let r = &mut self.refitter;
                let cost = self.trees[0].sah_cost();
                if r.baseline == 0.0 {
                    r.baseline = cost;
                }
                r.degraded = cost > refit::DEGRADE * r.baseline;
                self.last.refitted = true;
            }
            Path::Reinsert => {
                self.prepare_moves(aabbs);
                tally += self.move_and_walk(aabbs, out, None);
                let view = view!(self, aabbs);
                tally += self.cache.add_new(&view, c.parallelism, out, &mut self.last.new_pairs);
            }
        }
        if path != Path::Rebuild && c.streaming {
            // The incremental call's work in the units of the join's: a cached pair walked is one box test.
            let cost = (self.cache.len() + MOVE_COST * self.moves.len()) as f32;
            let streaming = match self.stream_work {
                0 => (FIRST_GUESS * (n + out.len())) as f32,
                w => w as f32,
            };
            self.prefer_stream = cost > c.stream_ratio * streaming;
        }
        self.last.tally += tally;
        #[cfg(debug_assertions)]
        {
            self.last_boxes.clear();
            self.last_boxes.extend_from_slice(aabbs);
        }
    }

    fn stats(&self) -> Stats {
        let l = &self.last;
        let [d, s] = &self.trees;
        Stats::from(l.tally)
            .with("nodes", f64::from(d.node_count() + s.node_count()))
            .with("height", f64::from(d.height().max(s.height())))
            .with("dynamic_bodies", f64::from(d.leaves))
            .with("static_bodies", f64::from(s.leaves))
            .with("reinserted", l.reinserted as f64)
            .with("settled", l.settled as f64)
            .with("rotations", l.changes.rotations as f64)
            .with("tree_visits", l.changes.visited as f64)
            .with("cached_pairs", self.cache.len() as f64)
            .with("new_pairs", l.new_pairs as f64)
            .with("stale_pairs", l.stale_pairs as f64)
            .with("rebuilt", if l.rebuilt { 1.0 } else { 0.0 })
            .with("refitted", if l.refitted { 1.0 } else { 0.0 })
            .with("streamed", if l.streamed { 1.0 } else { 0.0 })
            .with("stream_cost", f64::from(self.stream.cost))
    }

    /// A permutation (the simulation's spatial reorder): every per-body array moved to the new numbering through
    /// kept buffers, each leaf renamed in place and the pair cache renamed and sorted again — O(n + cached pairs),
    /// no allocation once warm. The trees, the fat boxes, the settle timers and the cache stay as they are, so the
    /// next call re-inserts only the bodies that left their fat boxes, as it would have without the reorder.
    ///
    /// Bodies removed and added: removed leaves leave their trees, the arrays are rebuilt in the new numbering and
    /// the cache renamed, O(n + cached pairs); a change of more than a quarter of the bodies resets instead, the
    /// next call's bulk rebuild being cheaper than the patch.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if self.stream.active {
            if resize.is_permutation() && resize.old_len() == self.proxies.len() {
                // The simulation's spatial reorder: the streaming tree's leaves renamed, nothing rebuilt.
                self.stream.permute(resize.old_to_new);
                #[cfg(debug_assertions)]
                if self.last_boxes.len() == resize.old_len() {
                    resize.permute(&mut self.last_boxes, &mut self.renumbering.boxes);
                }
            } else {
                self.reset();
            }
            return;
        }
        if self.built && resize.is_permutation() && resize.old_len() == self.proxies.len() {
            self.permute(resize);
            return;
        }
        let removed = resize.removed_count();
        let added = resize.new_len - (resize.old_len() - removed);
        if !self.built || resize.old_len() != self.proxies.len() || 4 * (removed + added) > resize.new_len.max(1) {
            // Nothing built yet, or a change so large that the next call's rebuild is cheaper than patching.
            self.reset();
            return;
        }
        let mut changes = Changes::default();
        let n = resize.new_len;
        let mut proxies = vec![Proxy::PLACELESS; n];
        let mut anchors = vec![Anchor::UNKNOWN; n];
        // Added bodies: no tree, no speed; their boxes, with the next call, make them moves.
        let mut still: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(self.now)).collect();
        for (old, &new) in resize.old_to_new.iter().enumerate() {
            let place = self.proxies[old].place();
            if new == Resize::REMOVED {
                if let Some((s, leaf)) = place {
                    self.trees[s as usize].remove(leaf, &mut changes);
                }
                continue;
            }
            let new = new as usize;
            proxies[new] = self.proxies[old];
            anchors[new] = self.anchors[old];
            still[new] = AtomicU32::new(self.still[old].load(Ordering::Relaxed));
            if let Some((s, leaf)) = place {
                self.trees[s as usize].nodes[leaf as usize].child[0] = new as u32;
            }
        }
        self.proxies = proxies;
        self.anchors = anchors;
        self.still = still;
        self.marks.clear(n);
        let _ = self.cache.remap(resize.old_to_new);
        #[cfg(debug_assertions)]
        self.last_boxes.clear();
    }

    fn reset(&mut self) {
        self.stream.stop();
        for t in &mut self.trees {
            t.clear();
        }
        self.cache.clear();
        self.moves.clear();
        self.resize_bodies(0);
        self.built = false;
        self.speeds_unknown = false;
        self.last_rebuild = 0;
        self.prefer_stream = false;
        self.stream_work = 0;
        self.probe_every = 0;
        self.stream_left = 0;
        #[cfg(debug_assertions)]
        self.last_boxes.clear();
        self.last = LastStats::default();
    }

    /// Its calls are cheapest while its fat boxes are fresh: 6 (the first builds with tight boxes, the second
    /// rebuilds with the reaches it measured, then nobody leaves a fresh fat box for a call or two).
    fn settling_calls(&self) -> u32 {
        SETTLING_CALLS
    }

    /// Build from `frame` now: the cache is of fat boxes, so the pairs given do not fill it, but the next call then
    /// starts from a built structure (it rebuilds once more with the speeds it sees).
    fn warm_start(&mut self, frame: &Frame<'_>, pairs: &[Pair]) {
        let _ = pairs;
        self.reset();
        let mut out = PairList::new();
        // Without the motion hint (the structure is new), with the frame's policy for invalid boxes.
        let fresh = Frame::new(frame.aabbs).with_step(frame.step).with_dt(frame.dt);
        self.find_pairs(&fresh.with_invalid_boxes(frame.invalid_boxes), &mut out);
    }

    fn validate(&self) -> Result<(), String> {
        if self.stream.active {
            if self.trees.iter().any(|t| t.leaves > 0) || self.cache.len() > 0 {
                return Err("streaming, but the trees or the cache hold bodies".into());
            }
            return self.stream.check();
        }
        crate::validate::validate(&crate::validate::Parts {
            trees: &self.trees,
            proxies: &self.proxies,
            pairs: &self.cache,
            #[cfg(debug_assertions)]
            last_boxes: &self.last_boxes,
        })
    }

    /// Every node of both trees, leaves (fat boxes) included, each tree's root at depth 0; in streaming mode the
    /// streaming tree's inner nodes.
    /// Allocates nothing (the app draws it every frame): nodes in pool order, each one's depth counted up its
    /// parent links, O(nodes · height).
    fn debug_geometry(&self, out: &mut DebugGeometry) {
        self.stream.debug_geometry(out);
        for tree in &self.trees {
            for n in tree.nodes.iter().filter(|n| !n.is_free()) {
                let (mut depth, mut up) = (0, n.parent);
                while up != NONE {
                    depth += 1;
                    up = tree.nodes[up as usize].parent;
                }
                out.boxes.push(DebugBox { aabb: n.aabb, depth });
            }
        }
    }
}

/// Make each move in the trees, in order, with the fat box its proxy now holds; record its new place in the move.
/// The proxies still name the old places.
fn move_in_trees(trees: &mut [Tree; 2], proxies: &[Proxy], moves: &mut [Move], changes: &mut Changes) {
    for m in moves {
        let p = &proxies[m.body as usize];
        m.place = match (p.place(), m.target) {
            (Some((Stage::Dynamic, leaf)), Target::Dynamic) => {
                trees[0].reinsert(leaf, p.fat, changes);
                Some((Stage::Dynamic, leaf))
            }
            (old, target) => change_tree(trees, m.body, p.fat, old, target, changes),
        };
    }
}

/// A body leaving its tree (`old`), for `target`'s tree or none: removed, and inserted with box `fat`. Its new
/// place.
fn change_tree(
    trees: &mut [Tree; 2],
    body: u32,
    fat: Aabb,
    old: Option<(Stage, u32)>,
    target: Target,
    changes: &mut Changes,
) -> Option<(Stage, u32)> {
    if let Some((s, leaf)) = old {
        trees[s as usize].remove(leaf, changes);
    }
    let stage = match target {
        Target::Dynamic => Stage::Dynamic,
        Target::Static => Stage::Static,
        Target::Nowhere | Target::Unplaced => return None,
    };
    Some((stage, trees[stage as usize].insert(body, fat, changes)))
}

/// The refit path's half of [`DynamicBvh::move_and_walk`] (see `refit.rs`): the bodies changing trees moved as on
/// the other path (few: settling, waking, vanishing), then every body staying in the dynamic tree gets its new
/// box in its leaf, the changed part of both trees is marked and refitted with rotations, and the restricted
/// joins write this call's new cache pairs to the refitter. Returns the joins' tally.
fn refit_in_trees(
    trees: &mut [Tree; 2],
    proxies: &[Proxy],
    moves: &mut [Move],
    join: &mut Join<'_>,
    changes: &mut Changes,
) -> Tally {
    for m in moves.iter_mut() {
        let p = &proxies[m.body as usize];
        m.place = match (p.place(), m.target) {
            (Some((Stage::Dynamic, leaf)), Target::Dynamic) => Some((Stage::Dynamic, leaf)),
            (old, target) => change_tree(trees, m.body, p.fat, old, target, changes),
        };
    }
    // Marked only now that no insertion or removal follows: those rotate nodes without keeping the flags.
    for t in trees.iter_mut() {
        t.prepare_dirty();
    }
    for m in moves.iter() {
        if let Some((s, leaf)) = m.place {
            let t = &mut trees[s as usize];
            t.set_leaf_box(leaf, proxies[m.body as usize].fat);
            t.mark_up(leaf);
        }
    }
    let r = &mut *join.refitter;
    for t in trees.iter_mut() {
        t.refit_dirty(&mut r.stack, changes);
    }
    if !join.join {
        for t in trees.iter_mut() {
            t.clear_dirty();
        }
        return Tally::default();
    }
    r.found.clear();
    r.out.clear();
    let mut sink = NewPairs { aabbs: join.aabbs, marks: join.marks, moves, found: &mut r.found, out: &mut r.out };
    let mut tally = Tally::default();
    for t in trees.iter() {
        tally += refit::dirty_self_pairs(t, &mut r.pairs, &mut sink);
    }
    tally += refit::dirty_cross_pairs(&trees[0], &trees[1], &mut r.pairs, &mut sink);
    for t in trees.iter_mut() {
        t.clear_dirty();
    }
    tally.bytes_touched = (tally.work + tally.pair_tests) * 2 * size_of::<crate::tree::Node>() as u64;
    tally
}
