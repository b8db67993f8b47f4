//! The dynamic tree's bulk rebuild: every body given a fresh fat box, both trees built at once by the linear BVH's
//! parallel builder and converted to pools, and the pair cache filled by the linear BVH's self-join.
//!
//! Re-inserting one body costs a removal, a sibling search and a query, a few microseconds at 10⁵ bodies; the
//! parallel build and join of the whole scene cost about as much as a few thousand of those. So when more than
//! a small share of the bodies must move in a call (the first call, a scene where everything moves fast, a
//! crowd coming to rest at once), rebuilding is cheaper than moving them one by one, and a scene of fast bodies
//! costs about what `lbvh` costs instead of degrading without bound. The rebuild also decides each body's tree:
//! a body whose box has not changed for the settle time goes to the static tree, every other body to the
//! dynamic one.
//!
//! The linear BVH's trees are worse than SAH-built ones (they split at Morton boundaries, not where the boxes
//! are); the re-insertions and rotations that follow improve them as the bodies move.

use crate::bodies::{Anchor, FatPolicy, Proxy, Stage, jitter};
use crate::bounds::is_usable;
use crate::flat::{FlatBvh, LEAF};
use crate::karras::Builder;
use crate::traverse::{self, JoinScratch, Task};
use crate::tree::{NONE, Node, Tree};
use collide_broadphase::parallel::PairChunks;
use collide_broadphase::{InvalidBoxes, Pair, Parallelism, Tally};
use collide_math::Aabb;
use std::sync::atomic::{AtomicU32, Ordering};

/// Leaves per task of the rebuild's self-joins (as `lbvh`'s).
const JOIN_TASK_LEAVES: u32 = 2048;

/// What the rebuild keeps across calls.
#[derive(Debug, Default)]
pub(crate) struct Rebuild {
    builder: Builder,
    /// Per stage: the bodies, their fat boxes, and the linear BVH over them.
    bodies: [Vec<u32>; 2],
    boxes: [Vec<Aabb>; 2],
    flats: [FlatBvh; 2],
    tasks: Vec<Task>,
    pending: Vec<Task>,
    join: PairChunks<JoinScratch>,
    cross: PairChunks<Vec<u32>>,
    /// The conversion's stack.
    stack: Vec<(u32, bool)>,
}

/// What the rebuild reads and writes of the dynamic tree.
pub(crate) struct Target<'a> {
    pub aabbs: &'a [Aabb],
    pub proxies: &'a mut [Proxy],
    pub anchors: &'a mut [Anchor],
    pub still: &'a [AtomicU32],
    pub trees: &'a mut [Tree; 2],
    pub pairs: &'a mut Vec<Pair>,
    pub policy: FatPolicy,
    pub settle: u32,
    /// Whether this call has the motion hint: without it `still` says nothing and no body settles.
    pub hinted: bool,
    /// Whether the static tree and the static bodies stay as they are (see [`Rebuild::run_dynamic`]).
    pub keep_static: bool,
    /// Whether moving bodies get a reach along their motion (else the base margin alone; see `DynamicBvh`).
    pub reach: bool,
    pub now: u32,
    /// What an unusable box makes the rebuild do (the frame's policy).
    pub invalid_boxes: InvalidBoxes,
}

impl Rebuild {
    /// Rebuild both trees and the cache from `t.aabbs`. Returns the work done.
    pub(crate) fn run(&mut self, mut t: Target<'_>, parallelism: Parallelism) -> Tally {
        if t.keep_static {
            return self.run_dynamic(t, parallelism);
        }
        let mut tally = self.sort_bodies(&mut t);
        for s in 0..2 {
            tally += self.builder.build(&mut self.flats[s], &self.boxes[s], parallelism);
        }
        t.pairs.clear();
        for s in 0..2 {
            let bodies = &self.bodies[s];
            traverse::plan(&self.flats[s], JOIN_TASK_LEAVES, &mut self.pending, &mut self.tasks);
            tally += traverse::self_pairs(
                &self.flats[s],
                |k| bodies[k as usize],
                &self.tasks,
                &mut self.join,
                parallelism,
                t.pairs,
            );
        }
        tally += self.cross_pairs(parallelism, t.pairs);
        for s in 0..2 {
            tally += convert(&self.flats[s], &self.bodies[s], &mut t.trees[s], &mut self.stack, t.proxies, stage(s));
        }
        tally
    }

    /// Rebuild the dynamic tree only, keeping the static tree and the cache's pairs of two static bodies: the call
    /// when no body enters or leaves the static tree (`t.keep_static`; `t.pairs` then holds the kept pairs). The
    /// tour's `rest` phase is the case: 90% of the bodies at rest, the other 10% too fast for a reach, so more
    /// than `rebuild_share` of the bodies leave their fat boxes every call and every call rebuilds; rebuilding the
    /// resting 90% with them cost six times the octree. Pairs of a dynamic body with a static one come from a
    /// query of the static pool tree per dynamic body.
    fn run_dynamic(&mut self, mut t: Target<'_>, parallelism: Parallelism) -> Tally {
        let mut tally = self.sort_bodies(&mut t);
        tally += self.builder.build(&mut self.flats[0], &self.boxes[0], parallelism);
        let bodies = &self.bodies[0];
        traverse::plan(&self.flats[0], JOIN_TASK_LEAVES, &mut self.pending, &mut self.tasks);
        tally += traverse::self_pairs(
            &self.flats[0],
            |k| bodies[k as usize],
            &self.tasks,
            &mut self.join,
            parallelism,
            t.pairs,
        );
        let (flat, fixed) = (&self.flats[0], &t.trees[1]);
        if flat.len > 0 && fixed.leaves > 0 {
            tally +=
                self.cross.run(parallelism, "bvh_rebuild_cross", flat.len, flat.len, t.pairs, |range, out, stack| {
                    let mut tally = Tally::default();
                    for k in range {
                        let body = bodies[flat.item(k as u32) as usize];
                        tally += fixed.query(&flat.leaf_boxes[k], stack, |j| out.push(Pair::new(body, j)));
                    }
                    tally
                });
        }
        tally + convert(&self.flats[0], &self.bodies[0], &mut t.trees[0], &mut self.stack, t.proxies, Stage::Dynamic)
    }

    /// Each body's tree, fat box and anchor; the bodies of each stage listed with their fat boxes.
    fn sort_bodies(&mut self, t: &mut Target<'_>) -> Tally {
        let n = t.aabbs.len();
        for s in 0..2 {
            self.bodies[s].clear();
            self.boxes[s].clear();
        }
        for i in 0..n {
            let b = &t.aabbs[i];
            let p = &mut t.proxies[i];
            if t.keep_static && p.is_static() {
                continue;
            }
            if !is_usable(b) {
                t.invalid_boxes.reject(i, b);
                *p = Proxy::PLACELESS;
                continue;
            }
            let settled = !t.keep_static
                && t.hinted
                && p.place().is_some()
                && t.now - t.still[i].load(Ordering::Relaxed) >= t.settle;
            let (s, fat) = if settled {
                (Stage::Static, t.policy.static_box(b))
            } else {
                let anchor = if t.reach { t.anchors[i] } else { Anchor::UNKNOWN };
                (Stage::Dynamic, t.policy.dynamic_box(b, anchor, t.now, jitter(i as u32, t.now)))
            };
            p.fat = fat;
            t.anchors[i] = Anchor { center: crate::morton::center(b), at: t.now };
            self.bodies[s as usize].push(i as u32);
            self.boxes[s as usize].push(fat);
        }
        Tally::work(n as u64, (n * (2 * size_of::<Aabb>() + size_of::<Proxy>() + 16)) as u64)
    }

    /// The pairs between the dynamic tree's bodies and the static tree's: each leaf of the smaller queries the
    /// larger.
    fn cross_pairs(&mut self, parallelism: Parallelism, out: &mut Vec<Pair>) -> Tally {
        let (small, large) = if self.flats[0].len <= self.flats[1].len { (0, 1) } else { (1, 0) };
        let (a, b) = (&self.flats[small], &self.flats[large]);
        let (a_bodies, b_bodies) = (&self.bodies[small], &self.bodies[large]);
        if a.len == 0 || b.len == 0 {
            return Tally::default();
        }
        self.cross.run(parallelism, "bvh_rebuild_cross", a.len, a.len, out, |range, out, stack| {
            let mut tally = Tally::default();
            for k in range {
                let body = a_bodies[a.item(k as u32) as usize];
                tally += traverse::query(b, &a.leaf_boxes[k], stack, |j| {
                    out.push(Pair::new(body, b_bodies[b.item(j) as usize]))
                });
            }
            tally
        })
    }
}

fn stage(s: usize) -> Stage {
    if s == 0 { Stage::Dynamic } else { Stage::Static }
}

/// Make `tree` the pool form of `flat` (whose items are `bodies`): inner node `s` becomes pool node `s`, leaf `k`
/// pool node `len − 1 + k`; heights are computed by one depth-first pass. Records each body's leaf.
fn convert(
    flat: &FlatBvh,
    bodies: &[u32],
    tree: &mut Tree,
    stack: &mut Vec<(u32, bool)>,
    proxies: &mut [Proxy],
    stage: Stage,
) -> Tally {
    tree.clear();
    let m = flat.len;
    // Every node starts with no parent; `clear` emptied the pool, so `resize` writes them all.
    if m == 0 {
        return Tally::default();
    }
    let inner = m as u32 - 1;
    let leaf_node = |k: u32| inner + k;
    tree.nodes.resize(2 * m - 1, Node { aabb: Aabb::EMPTY, parent: NONE, child: [NONE; 2], height: 0 });
    for k in 0..m as u32 {
        let body = bodies[flat.item(k) as usize];
        tree.nodes[leaf_node(k) as usize] =
            Node { aabb: flat.leaf_boxes[k as usize], parent: NONE, child: [body, NONE], height: 0 };
        proxies[body as usize].set_place(Some((stage, leaf_node(k))));
    }
    let pool = |c: u32| if c & LEAF != 0 { leaf_node(c & !LEAF) } else { c };
    for (s, n) in flat.nodes.iter().enumerate() {
        let child = [pool(n.child[0]), pool(n.child[1])];
        // The parent link was written by the parent if it came first (the `resize` above set the others to NONE).
        let parent = tree.nodes[s].parent;
        tree.nodes[s] = Node { aabb: n.boxes[0].union(&n.boxes[1]), parent, child, height: 0 };
        for c in child {
            tree.nodes[c as usize].parent = s as u32;
        }
    }
    tree.root = if m == 1 { leaf_node(0) } else { flat.root };
    tree.leaves = m as u32;
    // Heights, children before parents: a node is pushed twice, and computed when popped the second time.
    if m > 1 {
        stack.clear();
        stack.push((tree.root, false));
        while let Some((i, done)) = stack.pop() {
            let n = tree.nodes[i as usize];
            if n.child[1] == NONE {
                continue;
            }
            if done {
                let h = 1 + tree.nodes[n.child[0] as usize].height.max(tree.nodes[n.child[1] as usize].height);
                tree.nodes[i as usize].height = h;
            } else {
                stack.extend([(i, true), (n.child[0], false), (n.child[1], false)]);
            }
        }
    }
    Tally::work(2 * m as u64, (2 * m * size_of::<Node>()) as u64)
}
