//! [`Octree`]: the three variants behind the [`Broadphase`] trait, with the static/dynamic split.

use crate::par::{PAR_MIN_WORK, PairBufs};
use crate::tree::{Item, MAX_DEPTH_LIMIT, Shape, ShapeStats, Tree, Variant};
use crate::{batch, dup, loose, nodup};
use collide_broadphase::{Aabb, Broadphase, DebugBox, DebugGeometry, Frame, Pair, PairList, Params, Stats};

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
}

impl Default for OctreeConfig {
    fn default() -> Self {
        Self { max_leaf: 32, max_depth: 10, looseness: 2.0, static_split: true, static_min: 256, static_share: 0.7 }
    }
}

/// The counters of the last call.
#[derive(Clone, Copy, Debug, Default)]
struct LastStats {
    shape: ShapeStats,
    pair_tests: u64,
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
    /// Last frame's boxes, compared bit for bit to find the bodies that did not move
    /// (invariant: `prev.len() == in_static.len()` when the split is on; empty when it is off).
    prev: Vec<Aabb>,
    /// `in_static[i]`: body `i` is in `static_tree` and its box has not changed since that build.
    in_static: Vec<bool>,
    /// Scratch: `moved[i]` for this frame.
    moved: Vec<bool>,
    /// Bodies at rest, built once (invariant: its live entries' boxes equal `prev`).
    static_tree: Tree,
    /// The pairs among `static_tree`'s bodies at its build, reused while both bodies stay at rest.
    static_pairs: Vec<Pair>,
    /// `static_tree`'s [`ShapeStats`], counted at its build.
    static_shape: ShapeStats,
    /// `static_tree`'s inner nodes split into slabs for the moving bodies' walk (nodup only).
    static_slabs: batch::Slabs,
    /// Entries of `static_tree` whose body has moved since (skipped by queries via `in_static`).
    static_stale: usize,
    /// The moving bodies, rebuilt every frame.
    dynamic_tree: Tree,
    /// The moving bodies (walked against the static tree).
    moving: Vec<Item>,
    bufs: PairBufs,
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
            prev: Vec::new(),
            in_static: Vec::new(),
            moved: Vec::new(),
            static_tree: Tree::default(),
            static_pairs: Vec::new(),
            static_shape: ShapeStats::default(),
            static_slabs: batch::Slabs::default(),
            static_stale: 0,
            dynamic_tree: Tree::default(),
            moving: Vec::new(),
            bufs: PairBufs::default(),
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

    /// Which bodies did not move since the last frame, and whether to rebuild the static tree; collects the
    /// bodies not in the static tree into `moving` on the way (one pass over the boxes). O(n).
    fn classify(&mut self, aabbs: &[Aabb]) -> bool {
        let n = aabbs.len();
        self.moving.clear();
        if !self.config.static_split || self.prev.len() != n {
            // Split off: no memory of earlier frames at all. Otherwise the first frame, after a reset, or a count
            // change the caller did not announce. Either way every body is moving.
            self.forget();
            if self.config.static_split {
                self.prev.extend_from_slice(aabbs);
            }
            self.in_static.resize(n, false);
            self.moving.extend(aabbs.iter().enumerate().map(|(i, a)| Item { aabb: *a, id: i as u32 }));
            return false;
        }
        self.moved.clear();
        let mut resting = 0;
        for (i, (p, a)) in self.prev.iter_mut().zip(aabbs).enumerate() {
            let moved = !same_bits(p, a);
            self.moved.push(moved);
            if moved {
                *p = *a;
                if self.in_static[i] {
                    self.in_static[i] = false;
                    self.static_stale += 1;
                }
            } else if !self.in_static[i] {
                resting += 1;
            }
            if !self.in_static[i] {
                self.moving.push(Item { aabb: *a, id: i as u32 });
            }
        }
        let static_live = self.static_tree.bodies - self.static_stale;
        let dynamic = n - static_live;
        let share = f64::from(self.config.static_share);
        if (static_live + resting) as f64 >= share * n as f64 {
            let enough_resting = resting >= self.config.static_min.max(1) && resting * 4 >= dynamic;
            // Rebuild when half the static tree is stale too: its walk skips more than it finds.
            let too_stale = self.static_stale > 0 && self.static_stale * 2 >= self.static_tree.bodies;
            return enough_resting || too_stale;
        }
        if !self.static_tree.nodes.is_empty() && (static_live as f64) < (share - 0.1) * n as f64 {
            self.dissolve(aabbs);
        }
        false
    }

    /// Drop the static tree: too few bodies rest for the split to pay (see [`OctreeConfig::static_share`]).
    fn dissolve(&mut self, aabbs: &[Aabb]) {
        self.static_tree.clear();
        self.static_pairs.clear();
        self.static_slabs.clear();
        self.static_stale = 0;
        self.in_static.fill(false);
        self.moving.clear();
        self.moving.extend(aabbs.iter().enumerate().map(|(i, a)| Item { aabb: *a, id: i as u32 }));
    }

    fn forget(&mut self) {
        self.prev.clear();
        self.in_static.clear();
        self.static_tree.clear();
        self.static_pairs.clear();
        self.static_slabs.clear();
        self.static_stale = 0;
    }

    /// Build the static tree from the bodies that did not move this frame, and cache their pairs; the moving
    /// bodies are then exactly those that moved.
    fn rebuild_static(&mut self, aabbs: &[Aabb]) {
        let input = self.static_tree.input();
        self.moving.clear();
        for (i, (a, &moved)) in aabbs.iter().zip(&self.moved).enumerate() {
            let item = Item { aabb: *a, id: i as u32 };
            if moved {
                self.moving.push(item);
            } else {
                input.push(item);
            }
        }
        for (s, &moved) in self.in_static.iter_mut().zip(&self.moved) {
            *s = !moved;
        }
        self.static_stale = 0;
        self.static_tree.build(&self.shape);
        self.static_slabs.build(self.shape.variant, &self.static_tree.nodes, &self.static_tree.items);
        self.static_shape = ShapeStats::default();
        self.static_tree.shape_stats(&mut self.static_shape);
        self.static_pairs.clear();
        let tests = self_pairs(&self.shape, &mut self.static_tree, &mut self.bufs, &mut self.static_pairs);
        self.last.pair_tests += tests;
    }
}

/// Bit-for-bit box equality: a body whose box is unchanged did not move (and `-0.0 != 0.0` here only makes us
/// treat a body as moving, which is always safe).
#[inline]
fn same_bits(a: &Aabb, b: &Aabb) -> bool {
    a.min.x.to_bits() == b.min.x.to_bits()
        && a.min.y.to_bits() == b.min.y.to_bits()
        && a.min.z.to_bits() == b.min.z.to_bits()
        && a.max.x.to_bits() == b.max.x.to_bits()
        && a.max.y.to_bits() == b.max.y.to_bits()
        && a.max.z.to_bits() == b.max.z.to_bits()
}

/// All pairs among a tree's bodies, appended to `out`; returns the tests made.
fn self_pairs(shape: &Shape, tree: &mut Tree, bufs: &mut PairBufs, out: &mut Vec<Pair>) -> u64 {
    let (nodes, items) = (&tree.nodes[..], &tree.items[..]);
    let parallel = items.len() >= PAR_MIN_WORK;
    match shape.variant {
        Variant::Dup => bufs.run(nodes.len(), parallel, out, |r, o| dup::self_pairs(nodes, items, r, o)),
        Variant::Nodup => bufs.run_with(nodup::tasks(nodes), parallel, out, |r, o, s| {
            nodup::self_pairs(nodes, items, r, o, &mut s.nodup)
        }),
        Variant::Loose => bufs.run(nodes.len(), parallel, out, |r, o| loose::self_pairs(nodes, items, r, o)),
    }
}

impl Broadphase for Octree {
    fn name(&self) -> &'static str {
        self.shape.variant.name()
    }

    /// O(n) to find the resting bodies, O(d · depth) to build the moving bodies' tree, then the variant's pair
    /// search (see the crate docs); the static tree costs a build only when bodies come to rest.
    fn find_pairs(&mut self, frame: &Frame<'_>, out: &mut PairList) {
        let aabbs = frame.aabbs;
        let out = out.as_mut_vec();
        out.clear();
        self.last = LastStats::default();
        if self.classify(aabbs) {
            self.rebuild_static(aabbs);
            self.last.static_rebuilt = true;
        }

        // The moving bodies (everything not live in the static tree, collected by `classify`) get a tree of
        // their own, rebuilt every frame.
        self.dynamic_tree.input().extend_from_slice(&self.moving);
        self.dynamic_tree.build(&self.shape);

        // Static–static pairs: cached, filtered when some of those bodies have started moving.
        if self.static_stale == 0 {
            out.extend_from_slice(&self.static_pairs);
        } else {
            let live = &self.in_static;
            out.extend(self.static_pairs.iter().filter(|p| live[p.a as usize] && live[p.b as usize]));
        }
        self.last.pair_tests += self_pairs(&self.shape, &mut self.dynamic_tree, &mut self.bufs, out);

        // Moving–static pairs: one walk of the static tree carrying the moving bodies down (see `batch`).
        if self.static_tree.bodies > self.static_stale && !self.moving.is_empty() {
            let (nodes, items) = (&self.static_tree.nodes[..], &self.static_tree.items[..]);
            let (moving, live, variant) = (&self.moving[..], &self.in_static[..], self.shape.variant);
            let slabs = &self.static_slabs;
            let parallel = moving.len() * 8 >= PAR_MIN_WORK;
            self.last.pair_tests += self.bufs.run_with(batch::tasks(nodes), parallel, out, |r, o, s| {
                batch::pairs(variant, nodes, items, slabs, moving, live, r, &mut s.batch, o)
            });
        }

        // The static tree's shape is counted once per build: walking its nodes every frame cost more than
        // the cached pairs' copy.
        self.last.shape = if self.static_tree.nodes.is_empty() { ShapeStats::default() } else { self.static_shape };
        self.dynamic_tree.shape_stats(&mut self.last.shape);
        self.last.static_bodies = (self.static_tree.bodies - self.static_stale) as u64;
        self.last.dynamic_bodies = self.moving.len() as u64;
    }

    fn stats(&self) -> Stats {
        let l = &self.last;
        let s = &l.shape;
        let mean = if s.leaves == 0 { 0.0 } else { s.leaf_refs as f64 / s.leaves as f64 };
        let mut stats = Stats::new();
        stats.pair_tests = l.pair_tests;
        stats
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

    fn reset(&mut self) {
        self.forget();
        self.dynamic_tree.clear();
        self.moving.clear();
        self.last = LastStats::default();
    }

    fn validate(&self) -> Result<(), String> {
        crate::validate::validate(self)
    }

    fn debug_geometry(&self, out: &mut DebugGeometry) {
        for tree in [&self.static_tree, &self.dynamic_tree] {
            out.boxes.extend(tree.nodes.iter().map(|n| DebugBox { aabb: Aabb::new(n.lo, n.hi), depth: n.depth }));
        }
    }
}

/// Read access for `validate.rs` and the tests.
impl Octree {
    pub(crate) fn parts(&self) -> Parts<'_> {
        Parts {
            shape: &self.shape,
            prev: &self.prev,
            in_static: &self.in_static,
            static_tree: &self.static_tree,
            static_stale: self.static_stale,
            dynamic_tree: &self.dynamic_tree,
        }
    }
}

/// What [`validate`](crate::validate::validate) checks.
pub(crate) struct Parts<'a> {
    pub shape: &'a Shape,
    pub prev: &'a [Aabb],
    pub in_static: &'a [bool],
    pub static_tree: &'a Tree,
    pub static_stale: usize,
    pub dynamic_tree: &'a Tree,
}
