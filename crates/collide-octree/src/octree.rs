//! [`Octree`]: the three variants behind the [`Broadphase`] trait, with the static/dynamic split — the crate's
//! public type, on top of every other module.

use crate::build::TreeBuilder;
use crate::search::Search;
use crate::split::{Split, SplitPolicy};
use crate::tree::{MAX_DEPTH_LIMIT, Shape, ShapeStats, Tree, Variant};
use crate::walk::Walk;
use collide_broadphase::{
    Aabb, Broadphase, DebugBox, DebugGeometry, Frame, PairList, Parallelism, Params, Resize, Stats, Tally,
};

/// Tuning of an [`Octree`]. The registry's parameters map onto the first four fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OctreeConfig {
    /// A node holding more bodies than this splits into eight (unless at `max_depth`). Default 32, the best
    /// value of the thesis's sweep.
    pub max_leaf: u32,
    /// The root is depth 0; nodes at this depth never split. Default 10 (9–12 is the good range); at most
    /// [`MAX_DEPTH_LIMIT`].
    pub max_depth: u32,
    /// Loose variant: loose cells are this many times the cell's edge (≥ 1; default 2).
    pub looseness: f32,
    /// Keep bodies that did not move in a tree built once (see the crate docs). Default on.
    pub static_split: bool,
    /// The static tree is (re)built only when at least this many non-static bodies were at rest in the frame
    /// (and at least a quarter of them): a rebuild costs a full build of the resting set, so it must pay off.
    pub static_min: usize,
    /// The static tree is built only when at least this share of the bodies did not move in the frame, and
    /// dropped (every body moving again) when the share still live in it falls below this minus 0.1. Each moving
    /// body costs about twice as much in the walk of the static tree as a body of a full rebuild, so the split
    /// loses when fewer than about half (dup) to two thirds (nodup) of the bodies rest. Default 0.7.
    pub static_share: f32,
    /// When the build and the searches run on rayon's threads (and from how many items a tree is built as eight
    /// joined subtrees). Default: [`Parallelism::default`]; tests lower it to exercise those paths on small
    /// scenes.
    pub parallelism: Parallelism,
}

impl Default for OctreeConfig {
    fn default() -> Self {
        Self {
            max_leaf: 32,
            max_depth: 10,
            looseness: 2.0,
            static_split: true,
            static_min: 256,
            static_share: 0.7,
            parallelism: Parallelism::default(),
        }
    }
}

/// The counters of the last call.
#[derive(Clone, Copy, Debug, Default)]
struct LastStats {
    shape: ShapeStats,
    tally: Tally,
    static_bodies: u64,
    dynamic_bodies: u64,
    static_rebuilt: bool,
}

/// An octree broadphase: [`Variant::Dup`], [`Variant::Nodup`] or [`Variant::Loose`]. Registry names
/// `octree-dup`, `octree-nodup`, `octree-loose`. See the crate docs for how each works and what it costs.
#[derive(Debug)]
pub struct Octree {
    shape: Shape,
    config: OctreeConfig,
    /// The bodies at rest and their static tree.
    split: Split,
    static_builder: TreeBuilder,
    /// The moving bodies (`split.moving`), rebuilt every frame.
    dynamic_tree: Tree,
    dynamic_builder: TreeBuilder,
    search: Search,
    last: LastStats,
}

impl Octree {
    /// An octree of `variant` with `config`. `max_leaf` is clamped to ≥ 1, `max_depth` to
    /// [`MAX_DEPTH_LIMIT`], `looseness` to ≥ 1.
    #[must_use]
    pub fn new(variant: Variant, config: OctreeConfig) -> Self {
        let config = OctreeConfig {
            max_leaf: config.max_leaf.max(1),
            max_depth: config.max_depth.min(MAX_DEPTH_LIMIT),
            looseness: if config.looseness >= 1.0 { config.looseness } else { 1.0 },
            ..config
        };
        Self {
            shape: Shape {
                variant,
                max_leaf: config.max_leaf,
                max_depth: config.max_depth,
                looseness: config.looseness,
            },
            config,
            split: Split::default(),
            static_builder: TreeBuilder::default(),
            dynamic_tree: Tree::default(),
            dynamic_builder: TreeBuilder::default(),
            search: Search::default(),
            last: LastStats::default(),
        }
    }

    /// An octree with duplicates and default tuning.
    #[must_use]
    pub fn dup() -> Self {
        Self::new(Variant::Dup, OctreeConfig::default())
    }

    /// An octree without duplicates and default tuning.
    #[must_use]
    pub fn nodup() -> Self {
        Self::new(Variant::Nodup, OctreeConfig::default())
    }

    /// A loose octree and default tuning.
    #[must_use]
    pub fn loose() -> Self {
        Self::new(Variant::Loose, OctreeConfig::default())
    }

    /// Build from registry parameters (`max_leaf`, `max_depth`, `static_split`, and `looseness` when the spec has
    /// it).
    #[must_use]
    pub fn from_params(variant: Variant, params: &Params) -> Self {
        let d = OctreeConfig::default();
        let config = OctreeConfig {
            max_leaf: params.try_get("max_leaf").map_or(d.max_leaf, |v| v as u32),
            max_depth: params.try_get("max_depth").map_or(d.max_depth, |v| v as u32),
            looseness: params.try_get("looseness").map_or(d.looseness, |v| v as f32),
            static_split: params.try_get("static_split").map_or(d.static_split, |v| v != 0.0),
            ..d
        };
        Self::new(variant, config)
    }

    /// The variant.
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.shape.variant
    }

    /// The tuning in effect (after clamping).
    #[must_use]
    pub fn config(&self) -> OctreeConfig {
        self.config
    }

    fn split_policy(&self) -> SplitPolicy {
        SplitPolicy {
            on: self.config.static_split,
            static_min: self.config.static_min,
            static_share: self.config.static_share,
        }
    }

    /// Build the static tree from the bodies that did not move this frame, and cache their pairs; the moving
    /// bodies are then exactly those that moved.
    fn rebuild_static(&mut self, aabbs: &[Aabb]) -> Tally {
        let (split, parallelism) = (&mut self.split, self.config.parallelism);
        split.separate(aabbs, self.static_builder.input());
        let mut tally = self.static_builder.build(&mut split.static_tree, &self.shape, parallelism);
        tally += split.static_slabs.build(self.shape.variant, &split.static_tree.nodes, &split.static_tree.items);
        split.static_shape = ShapeStats::default();
        split.static_tree.shape_stats(&mut split.static_shape);
        split.static_pairs.clear();
        tally + self.search.self_pairs(&self.shape, parallelism, &split.static_tree, &mut split.static_pairs)
    }
}

impl Broadphase for Octree {
    fn name(&self) -> &'static str {
        self.shape.variant.name()
    }

    /// O(n) to find the resting bodies (n flags with the frame's motion hint), O(d · depth) to build the moving
    /// bodies' tree, then the variant's pair search (see the crate docs); the static tree costs a build only when
    /// bodies come to rest.
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        let out = out.as_mut_vec();
        out.clear();
        self.last = LastStats::default();
        let policy = self.split_policy();
        let mut tally = Tally::default();
        if self.split.classify(frame, &policy, &mut tally) {
            tally += self.rebuild_static(aabbs);
            self.last.static_rebuilt = true;
        }
        let (split, parallelism) = (&self.split, self.config.parallelism);

        // The moving bodies (everything not live in the static tree, collected by `classify`) get a tree of
        // their own, rebuilt every frame.
        self.dynamic_builder.input().extend_from_slice(&split.moving);
        tally += self.dynamic_builder.build(&mut self.dynamic_tree, &self.shape, parallelism);

        // Static–static pairs: cached, filtered when some of those bodies have started moving.
        let cached = split.static_pairs.len() as u64;
        if split.static_stale == 0 {
            out.extend_from_slice(&split.static_pairs);
        } else {
            let live = &split.in_static;
            out.extend(split.static_pairs.iter().filter(|p| live[p.a as usize] && live[p.b as usize]));
        }
        tally += Tally::work(cached, cached * 2 * size_of::<collide_broadphase::Pair>() as u64);
        tally += self.search.self_pairs(&self.shape, parallelism, &self.dynamic_tree, out);

        // Moving–static pairs: one walk of the static tree carrying the moving bodies down (see `walk.rs`).
        if split.static_live() > 0 && !split.moving.is_empty() {
            let tree = &split.static_tree;
            let walk = Walk {
                variant: self.shape.variant,
                nodes: &tree.nodes,
                items: &tree.items,
                slabs: &split.static_slabs,
                live: &split.in_static,
            };
            tally += self.search.moving_pairs(parallelism, &walk, &split.moving, out);
        }

        // The static tree's shape is counted once per build: walking its nodes every frame cost more than
        // the cached pairs' copy.
        self.last.shape = if split.static_tree.nodes.is_empty() { ShapeStats::default() } else { split.static_shape };
        self.dynamic_tree.shape_stats(&mut self.last.shape);
        self.last.static_bodies = split.static_live() as u64;
        self.last.dynamic_bodies = split.moving.len() as u64;
        self.last.tally = tally;
    }

    fn stats(&self) -> Stats {
        let l = &self.last;
        let s = &l.shape;
        let mean = if s.leaves == 0 { 0.0 } else { s.leaf_refs as f64 / s.leaves as f64 };
        Stats::from(l.tally)
            .with("nodes", s.nodes as f64)
            .with("leaves", s.leaves as f64)
            .with("depth", f64::from(s.depth))
            .with("max_leaf_load", s.max_leaf_load as f64)
            .with("mean_leaf_load", mean)
            .with("inner_bodies", s.inner_bodies as f64)
            .with("dup_refs", s.dup_refs as f64)
            .with("static_bodies", l.static_bodies as f64)
            .with("dynamic_bodies", l.dynamic_bodies as f64)
            .with("static_rebuilt", if l.static_rebuilt { 1.0 } else { 0.0 })
    }

    /// A permutation (the simulation's spatial reorder) renames the bodies in place: the static tree, its slabs and
    /// cached pairs, the remembered boxes and flags, and the last frame's dynamic tree (rebuilt by the next frame
    /// anyway, renamed so that `validate` holds between calls). The static tree stays, so the next frame costs what
    /// it would have without the reorder — no static rebuild, no frame with every body moving. O(n + items + static
    /// pairs), no allocation once warm. Any other resize resets: the moving bodies' tree is rebuilt every frame
    /// anyway, and the static tree is built again once bodies rest.
    fn on_resize(&mut self, resize: &Resize<'_>) {
        if resize.is_permutation() && self.split.in_static.len() == resize.old_len() {
            self.split.permute(resize);
            self.dynamic_tree.rename(resize.old_to_new);
        } else {
            self.reset();
        }
    }

    fn reset(&mut self) {
        self.split.forget();
        self.split.moving.clear();
        self.split.excluded.clear();
        self.static_builder.clear();
        self.dynamic_tree.clear();
        self.dynamic_builder.clear();
        self.last = LastStats::default();
    }

    fn validate(&self) -> Result<(), String> {
        crate::validate::validate(&self.shape, &self.split, &self.dynamic_tree)
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        for tree in [&self.split.static_tree, &self.dynamic_tree] {
            out.boxes.extend(tree.nodes.iter().map(|n| DebugBox { aabb: Aabb::new(n.lo, n.hi), depth: n.depth }));
        }
    }
}
