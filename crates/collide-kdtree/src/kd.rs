//! [`KdTree`]: the self-adjusting kd tree behind the [`Broadphase`] trait — the crate's public type, on top of
//! every other module. One frame is: adjust the shape (`edit.rs`), re-place the bodies (`update.rs`), search
//! (`search.rs`).

use crate::edit::{EditCounts, EditRules, Editor, OldTree};
use crate::plan::PlanRules;
use crate::search::{SearchScratch, pairs};
use crate::tree::{Item, MAX_DEPTH_LIMIT, Node, Span, is_valid, set_sub_ends};
use crate::update::{UpdateInput, Updater, check, item_cut};
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::{
    Aabb, Broadphase, DebugBox, DebugGeometry, Frame, PairList, Parallelism, Params, Resize, Stats, Tally,
};

/// Tuning of a [`KdTree`]. The registry's parameters map onto the first four fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KdConfig {
    /// A leaf holding more bodies than this is split (unless no plane separates them). Default 64.
    pub max_leaf: u32,
    /// The root is depth 0; nodes at this depth never split. Default 32; at most [`MAX_DEPTH_LIMIT`].
    pub max_depth: u32,
    /// Simulated seconds between two balance checks (the study's 0.2 s): the frames' `dt` is accumulated, and
    /// when it reaches the period every node's sides are compared.
    pub period: f32,
    /// A node whose sides hold bodies in a ratio outside `[1 / max_ratio, max_ratio]` at a balance check has its
    /// plane moved (the study's [0.5, 2]: 2). At least 1.
    pub max_ratio: f32,
    /// When the update and the search run on rayon's threads. Default: [`Parallelism::default`]; tests lower it
    /// to run the parallel paths on small scenes.
    pub parallelism: Parallelism,
}

impl Default for KdConfig {
    fn default() -> Self {
        Self { max_leaf: 64, max_depth: 32, period: 0.2, max_ratio: 2.0, parallelism: Parallelism::default() }
    }
}

/// The counters of the last call that are not read off the tree itself.
#[derive(Clone, Copy, Debug, Default)]
struct LastStats {
    tally: Tally,
    edits: EditCounts,
    reinserted: u64,
    balance_check: bool,
}

/// The self-adjusting kd tree (registry name `kd`). See the crate docs for how it works and what it costs.
#[derive(Debug)]
pub struct KdTree {
    config: KdConfig,
    rules: EditRules,
    /// The tree, in pre-order (see `tree.rs`); `spans` and `items` as of the last frame.
    nodes: Vec<Node>,
    spans: Vec<Span>,
    items: Vec<Item>,
    /// The next frame's arrays while it is built (kept to reuse their allocations).
    next_nodes: Vec<Node>,
    next_spans: Vec<Span>,
    next_items: Vec<Item>,
    /// The body count the tree knows (invariant: every body is stored, excluded or pending).
    bodies: usize,
    /// No frame since the last reset: the next one plans the whole tree.
    fresh: bool,
    /// Bodies with no item yet (added by a resize); placed from the root by the next frame.
    pending: Vec<u32>,
    /// Bodies whose box was invalid in the last frame: stored nowhere, looked at again every frame.
    excluded: Vec<u32>,
    /// Simulated time since the last balance check, in f64: twelve f32 steps of 1/60 may sum to just under 0.2
    /// in f32, which would push the check to the thirteenth frame.
    elapsed: f64,
    editor: Editor,
    updater: Updater,
    search: PairChunks<SearchScratch>,
    last: LastStats,
}

impl KdTree {
    /// A kd tree with `config`; `max_leaf` is clamped to ≥ 1, `max_depth` to [`MAX_DEPTH_LIMIT`], `max_ratio` to
    /// ≥ 1, and a period that is not a positive number to the default.
    #[must_use]
    pub fn new(config: KdConfig) -> Self {
        let d = KdConfig::default();
        let config = KdConfig {
            max_leaf: config.max_leaf.max(1),
            max_depth: config.max_depth.min(MAX_DEPTH_LIMIT),
            period: if config.period > 0.0 && config.period.is_finite() { config.period } else { d.period },
            max_ratio: if config.max_ratio >= 1.0 { config.max_ratio } else { 1.0 },
            ..config
        };
        let rules = EditRules {
            plan: PlanRules { max_leaf: config.max_leaf, max_depth: config.max_depth },
            max_ratio: config.max_ratio,
        };
        Self {
            config,
            rules,
            nodes: vec![Node::root()],
            spans: vec![Span::default()],
            items: Vec::new(),
            next_nodes: Vec::new(),
            next_spans: Vec::new(),
            next_items: Vec::new(),
            bodies: 0,
            fresh: true,
            pending: Vec::new(),
            excluded: Vec::new(),
            elapsed: 0.0,
            editor: Editor::default(),
            updater: Updater::default(),
            search: PairChunks::default(),
            last: LastStats::default(),
        }
    }

    /// Build from registry parameters (`max_leaf`, `max_depth`, `period`, `max_ratio`; defaults for the rest).
    #[must_use]
    pub fn from_params(params: &Params) -> Self {
        let d = KdConfig::default();
        Self::new(KdConfig {
            max_leaf: params.try_get("max_leaf").map_or(d.max_leaf, |v| v as u32),
            max_depth: params.try_get("max_depth").map_or(d.max_depth, |v| v as u32),
            period: params.try_get("period").map_or(d.period, |v| v as f32),
            max_ratio: params.try_get("max_ratio").map_or(d.max_ratio, |v| v as f32),
            ..d
        })
    }

    /// The tuning in effect (after clamping).
    #[must_use]
    pub fn config(&self) -> KdConfig {
        self.config
    }

    /// The bodies on the left and the right side of the root's plane (its own bodies, which straddle it, on
    /// neither), as of the last frame; `None` while the root is a leaf.
    #[must_use]
    pub fn root_sides(&self) -> Option<(usize, usize)> {
        let root = &self.nodes[0];
        (!root.is_leaf()).then(|| (self.spans[1].population(), self.spans[root.right as usize].population()))
    }

    /// The first frame (or the first after a reset): plan the tree from every valid box, laid out as the tree
    /// stores it, so that no body is placed again from the root. Returns the work done.
    fn plan_fresh(&mut self, frame: &Frame<'_>) -> Tally {
        self.items.clear();
        self.excluded.clear();
        for (i, b) in frame.aabbs.iter().enumerate() {
            if check(frame.invalid_boxes, i as u32, b) {
                self.items.push(Item { aabb: *b, id: i as u32 });
            } else {
                self.excluded.push(i as u32);
            }
        }
        let parallelism = self.config.parallelism;
        self.editor.fresh(&mut self.items, &self.rules, parallelism, &mut self.nodes, &mut self.spans);
        // The buffers the update fills on later frames, sized as a first update would have left them, so that a
        // frame on which every body moves (a whole-tree re-plan) does not grow them.
        self.updater.reserve(self.items.len());
        self.next_items.reserve(self.items.len());
        self.next_spans.reserve(self.spans.len());
        self.pending.clear();
        self.elapsed = 0.0;
        self.fresh = false;
        self.last.balance_check = false;
        self.last.edits = self.editor.counts;
        self.last.reinserted = self.items.len() as u64;
        let (n, planned) = (frame.aabbs.len() as u64, self.editor.counts.planned);
        // Each box read and copied into its item; the planner's passes read and write each item once a level.
        Tally::work(n + planned, n * (24 + crate::tree::ITEM_BYTES) + planned * 2 * crate::tree::ITEM_BYTES)
    }

    /// Whether the balance check is due, accumulating `dt` (a non-finite or negative step counts as none). The
    /// check runs once the accumulated time reaches the period (to a relative 10⁻⁶, the rounding of the steps);
    /// the remainder carries over, less than a period of it (a step longer than the period checks once).
    fn balance_due(&mut self, dt: f32) -> bool {
        if dt.is_finite() && dt > 0.0 {
            self.elapsed += f64::from(dt);
        }
        let period = f64::from(self.config.period);
        if self.elapsed >= period * (1.0 - 1e-6) {
            self.elapsed = (self.elapsed - period).max(0.0) % period;
            true
        } else {
            false
        }
    }

    /// Adjust the shape, then re-place every body into `next_*`, and swap them in (on the first frame, plan the
    /// tree instead).
    fn update(&mut self, frame: &Frame<'_>) -> Tally {
        if self.fresh {
            return self.plan_fresh(frame);
        }
        let rebalance = self.balance_due(frame.dt);
        let old = OldTree { nodes: &self.nodes, spans: &self.spans, items: &self.items };
        let edited = self.editor.adjust(&old, &self.rules, rebalance, &mut self.next_nodes);
        if edited {
            std::mem::swap(&mut self.nodes, &mut self.next_nodes);
        }
        self.last.balance_check = rebalance;
        self.last.edits = self.editor.counts;
        let input = UpdateInput {
            aabbs: frame.aabbs,
            nodes: &self.nodes,
            old_spans: &self.spans,
            mapping: self.editor.mapping(),
            invalid: frame.invalid_boxes,
            parallelism: self.config.parallelism,
        };
        let mut tally = self.updater.run(
            &input,
            &mut self.items,
            &self.pending,
            &mut self.excluded,
            &mut self.next_items,
            &mut self.next_spans,
        );
        self.pending.clear();
        std::mem::swap(&mut self.items, &mut self.next_items);
        std::mem::swap(&mut self.spans, &mut self.next_spans);
        self.last.reinserted = self.updater.reinserted;
        let planned = self.last.edits.planned;
        tally += Tally::work(planned, planned * 2 * crate::tree::ITEM_BYTES);
        tally
    }

    /// Shape numbers read off the tree: nodes, leaves, height, the largest leaf, the bodies in inner nodes.
    fn shape(&self) -> [u64; 5] {
        let (mut leaves, mut height, mut max_leaf, mut inner) = (0, 0, 0, 0);
        for (node, span) in self.nodes.iter().zip(&self.spans) {
            height = height.max(u64::from(node.depth));
            if node.is_leaf() {
                leaves += 1;
                max_leaf = max_leaf.max(span.own_len() as u64);
            } else {
                inner += span.own_len() as u64;
            }
        }
        [self.nodes.len() as u64, leaves, height, max_leaf, inner]
    }
}

impl Default for KdTree {
    fn default() -> Self {
        Self::new(KdConfig::default())
    }
}

impl Broadphase for KdTree {
    fn name(&self) -> &'static str {
        "kd"
    }

    /// O(n) to re-place the bodies (one region test each for those that stay in their node), the edits the shape
    /// needs (usually none), then the search (see the crate docs).
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let out = out.as_mut_vec();
        out.clear();
        if frame.aabbs.len() != self.bodies {
            // A body count nobody announced: start afresh rather than trust any index.
            self.reset();
            self.bodies = frame.aabbs.len();
        }
        let mut tally = self.update(frame);
        let (nodes, spans, items) = (&self.nodes[..], &self.spans[..], &self.items[..]);
        // Chunks of about equal items, cut as the update's write pass cut its own (fewer) chunks: each thread's
        // share of the search holds the nodes whose items it has just written.
        let cut = |c: usize, count: usize| item_cut(spans, items.len(), c, count);
        tally +=
            self.search.run_cut(self.config.parallelism, "kd pairs", items.len(), nodes.len(), cut, out, |r, o, s| {
                pairs(nodes, spans, items, r, o, s)
            });
        self.last.tally = tally;
    }

    fn stats(&self) -> Stats {
        let [nodes, leaves, height, max_leaf, inner] = self.shape();
        let l = &self.last;
        let balance =
            self.root_sides().map_or(1.0, |(a, b)| if a.max(b) == 0 { 1.0 } else { a.min(b) as f64 / a.max(b) as f64 });
        Stats::from(l.tally)
            .with("nodes", nodes as f64)
            .with("leaves", leaves as f64)
            .with("height", height as f64)
            .with("max_leaf_load", max_leaf as f64)
            .with("inner_bodies", inner as f64)
            .with("reinserted", l.reinserted as f64)
            .with("splits", l.edits.splits as f64)
            .with("rebalanced", l.edits.rebalanced as f64)
            .with("collapsed", l.edits.collapsed as f64)
            .with("replanned_bodies", l.edits.replanned as f64)
            .with("largest_replan", l.edits.largest as f64)
            .with("balance_check", if l.balance_check { 1.0 } else { 0.0 })
            .with("root_balance", balance)
            .with("excluded", self.excluded.len() as f64)
    }

    /// Bodies were added, removed or permuted: the items are renumbered in place (removed ones dropped, so that
    /// the tree stays valid between calls), added bodies wait in `pending` for the next frame, which places them
    /// from the root. O(n); the planes, the nodes' item order and the balance clock stay. A permutation (the
    /// simulation's spatial reorder) only renames the items and the pending and excluded bodies, in place: no
    /// allocation, and the next frame re-places only the bodies that moved, as it would have without it.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        let permutation = resize.is_permutation();
        // The injectivity check allocates a flag per body: a permutation skips it (allocation-free, as promised),
        // and `validate` finds a body renamed twice as "stored twice".
        debug_assert!(permutation || resize.check().is_ok(), "{:?}", resize.check());
        let map = |id: u32| resize.old_to_new.get(id as usize).copied().unwrap_or(Resize::REMOVED);
        if self.fresh {
            self.bodies = resize.new_len;
            return;
        }
        // Keep each node's surviving items, in order; the spans follow.
        let mut w = 0;
        for n in 0..self.nodes.len() {
            let span = self.spans[n];
            self.spans[n].start = w as u32;
            for k in span.own() {
                let new = map(self.items[k].id);
                if new != Resize::REMOVED {
                    self.items[w] = Item { id: new, ..self.items[k] };
                    w += 1;
                }
            }
            self.spans[n].own_end = w as u32;
        }
        self.items.truncate(w);
        set_sub_ends(&self.nodes, &mut self.spans, w as u32);
        for list in [&mut self.pending, &mut self.excluded] {
            list.retain_mut(|id| {
                *id = map(*id);
                *id != Resize::REMOVED
            });
        }
        if !permutation {
            self.pending.extend(resize.added());
        }
        self.bodies = resize.new_len;
    }

    fn reset(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::root());
        self.spans.clear();
        self.spans.push(Span::default());
        self.items.clear();
        self.pending.clear();
        self.excluded.clear();
        self.bodies = 0;
        self.fresh = true;
        self.elapsed = 0.0;
        self.last = LastStats::default();
    }

    fn validate(&self) -> Result<(), String> {
        crate::validate::validate(&crate::validate::TreeView {
            nodes: &self.nodes,
            spans: &self.spans,
            items: &self.items,
            bodies: if self.fresh { self.items.len() } else { self.bodies },
            excluded: &self.excluded,
            pending: &self.pending,
            max_depth: self.config.max_depth,
        })
    }

    /// Every node's region, clipped to the bodies' hull (the regions at the edges are infinite), by depth.
    fn debug_geometry(&self, out: &mut DebugGeometry) {
        let hull = self.items.iter().fold(Aabb::EMPTY, |h, it| h.union(&it.aabb));
        if !is_valid(&hull) {
            return;
        }
        out.boxes.extend(
            self.nodes.iter().map(|n| DebugBox {
                aabb: Aabb::new(n.lo.max(hull.min), n.hi.min(hull.max)),
                depth: u32::from(n.depth),
            }),
        );
    }
}
