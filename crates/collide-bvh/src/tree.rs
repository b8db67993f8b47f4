//! The dynamic tree's data: nodes in a pool addressed by `u32` index (Box2D's `b2DynamicTree`, Bullet's
//! `btDbvt`), a free list threaded through the unused ones, and the box query.
//!
//! A leaf holds one body's fat box; an inner node the union of its two children's boxes. Nodes are never moved,
//! so a body's leaf keeps its index while the tree is rearranged around it, and the pool is kept across frames
//! (a warm tree allocates nothing: a re-insertion frees one inner node and takes one back).

use collide_broadphase::Tally;
use collide_math::Aabb;

/// No node: the root's parent, a leaf's second child, the end of the free list.
pub(crate) const NONE: u32 = u32::MAX;

/// The `height` of a node on the free list.
const FREE: u32 = u32::MAX;

/// One node of the pool, 40 bytes. (Aligning it to a cache line changed nothing measurable: what misses is which
/// nodes a query or an insertion visits, not how they straddle lines.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Node {
    /// A leaf: its body's fat box. An inner node: exactly the union of its children's boxes.
    pub aabb: Aabb,
    /// The inner node whose child this is ([`NONE`] for the root). On the free list: the next free node.
    pub parent: u32,
    /// An inner node: its two children, each naming this node as parent. A leaf: `[body, NONE]`.
    pub child: [u32; 2],
    /// 0 for a leaf, 1 + the larger of its children's for an inner node; [`FREE`] on the free list.
    pub height: u32,
}

impl Node {
    const UNUSED: Self = Self { aabb: Aabb::EMPTY, parent: NONE, child: [NONE, NONE], height: FREE };

    /// `true` for a leaf.
    #[inline(always)]
    #[must_use]
    pub(crate) fn is_leaf(&self) -> bool {
        self.height == 0
    }

    /// `true` for a node on the free list.
    #[inline(always)]
    #[must_use]
    pub(crate) fn is_free(&self) -> bool {
        self.height == FREE
    }

    /// The body of a leaf.
    #[inline(always)]
    #[must_use]
    pub(crate) fn body(&self) -> u32 {
        self.child[0]
    }
}

/// A pool of nodes forming one tree.
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    /// Every node ever allocated: the tree's, and the free ones.
    pub nodes: Vec<Node>,
    /// The root ([`NONE`] for an empty tree); it names no parent.
    pub root: u32,
    /// The first free node ([`NONE`] when every node is in use); each free node names the next.
    free: u32,
    /// The number of leaves.
    pub leaves: u32,
    /// Per pool node, during a refit call only (`refit.rs`): a moved leaf, or an ancestor of one. Every flag is
    /// clear between calls; empty until the first refit.
    pub dirty: Vec<bool>,
}

impl Default for Tree {
    fn default() -> Self {
        Self { nodes: Vec::new(), root: NONE, free: NONE, leaves: 0, dirty: Vec::new() }
    }
}

impl Tree {
    /// Empty the tree, keeping the pool's allocation.
    pub(crate) fn clear(&mut self) {
        self.nodes.clear();
        self.root = NONE;
        self.free = NONE;
        self.leaves = 0;
        self.dirty.clear();
    }

    /// A node from the free list, or a new one at the end of the pool.
    pub(crate) fn alloc(&mut self, node: Node) -> u32 {
        if self.free == NONE {
            self.nodes.push(node);
            return self.nodes.len() as u32 - 1;
        }
        let i = self.free;
        self.free = self.nodes[i as usize].parent;
        self.nodes[i as usize] = node;
        i
    }

    /// Put node `i` on the free list.
    pub(crate) fn release(&mut self, i: u32) {
        self.nodes[i as usize] = Node { parent: self.free, ..Node::UNUSED };
        self.free = i;
    }

    /// Inner node `i`'s box and height set from its two children's; `true` when either changed. O(1).
    pub(crate) fn fit_to_children(&mut self, i: u32) -> bool {
        let n = self.nodes[i as usize];
        let (a, b) = (&self.nodes[n.child[0] as usize], &self.nodes[n.child[1] as usize]);
        let (aabb, height) = (a.aabb.union(&b.aabb), 1 + a.height.max(b.height));
        let node = &mut self.nodes[i as usize];
        let changed = aabb != node.aabb || height != node.height;
        node.aabb = aabb;
        node.height = height;
        changed
    }

    /// The number of nodes in use.
    #[must_use]
    pub(crate) fn node_count(&self) -> u32 {
        if self.leaves == 0 { 0 } else { 2 * self.leaves - 1 }
    }

    /// The tree's height: 0 for one leaf (and for an empty tree).
    #[must_use]
    pub(crate) fn height(&self) -> u32 {
        if self.root == NONE { 0 } else { self.nodes[self.root as usize].height }
    }

    /// Every leaf whose box overlaps `q`, passed to `hit` as its body. `stack` is the caller's, reused. Returns
    /// the tally: leaf box tests as `pair_tests`, inner nodes opened as `work`.
    #[inline]
    pub(crate) fn query(&self, q: &Aabb, stack: &mut Vec<u32>, mut hit: impl FnMut(u32)) -> Tally {
        self.query_leaves(q, stack, |body, _| hit(body))
    }

    /// [`Tree::query`], with each leaf's box passed beside its body: the caller that needs the body's fat box
    /// finds it here, in the node just read, instead of in a per-body array (one cache miss less per hit).
    #[inline]
    pub(crate) fn query_leaves(&self, q: &Aabb, stack: &mut Vec<u32>, mut hit: impl FnMut(u32, &Aabb)) -> Tally {
        let mut tally = Tally::default();
        if self.root == NONE {
            return tally;
        }
        stack.clear();
        if self.nodes[self.root as usize].aabb.overlaps(q) {
            stack.push(self.root);
        }
        // Children are tested before they are pushed: a node is read only when its box overlaps `q`.
        while let Some(i) = stack.pop() {
            let n = &self.nodes[i as usize];
            if n.is_leaf() {
                tally.pair_tests += 1;
                hit(n.body(), &n.aabb);
                continue;
            }
            tally.work += 1;
            for c in n.child {
                if self.nodes[c as usize].aabb.overlaps(q) {
                    stack.push(c);
                }
            }
        }
        tally.bytes_touched = (tally.work + tally.pair_tests) * size_of::<Node>() as u64;
        tally
    }

    /// Check the tree: links both ways, heights, every inner box the exact union of its children's, the leaf
    /// count, and every pool node either reachable from the root or on the free list (no cycle, no leak).
    /// `leaf_ok(i, node)` checks what the caller knows about leaf `i` (its body, its box).
    pub(crate) fn check(&self, mut leaf_ok: impl FnMut(u32, &Node) -> Result<(), String>) -> Result<(), String> {
        let mut seen = vec![false; self.nodes.len()];
        let mut leaves = 0;
        if self.root != NONE {
            if self.nodes.get(self.root as usize).is_none_or(|r| r.parent != NONE) {
                return Err(format!("root {} is missing or names a parent", self.root));
            }
            let mut stack = vec![self.root];
            while let Some(i) = stack.pop() {
                let n = &self.nodes[i as usize];
                if std::mem::replace(&mut seen[i as usize], true) {
                    return Err(format!("node {i} is reached twice"));
                }
                if n.height == FREE {
                    return Err(format!("node {i} is free but in the tree"));
                }
                if n.is_leaf() {
                    leaves += 1;
                    leaf_ok(i, n)?;
                    continue;
                }
                let [a, b] = n.child;
                for c in [a, b] {
                    let child = self.nodes.get(c as usize).ok_or(format!("node {i} has child {c} outside the pool"))?;
                    if child.parent != i {
                        return Err(format!("node {c} names parent {}, but is a child of {i}", child.parent));
                    }
                }
                let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
                if n.height != 1 + na.height.max(nb.height) {
                    return Err(format!("node {i} has height {}, children {} and {}", n.height, na.height, nb.height));
                }
                if n.aabb != na.aabb.union(&nb.aabb) {
                    return Err(format!("node {i}'s box {:?} is not its children's union", n.aabb));
                }
                stack.extend([a, b]);
            }
        }
        if leaves != self.leaves {
            return Err(format!("{leaves} leaves reachable, {} counted", self.leaves));
        }
        let mut f = self.free;
        while f != NONE {
            let n = self.nodes.get(f as usize).ok_or(format!("free list names {f}"))?;
            if n.height != FREE || std::mem::replace(&mut seen[f as usize], true) {
                return Err(format!("free node {f} is in use or listed twice"));
            }
            f = n.parent;
        }
        if let Some(i) = self.dirty.iter().position(|&d| d) {
            return Err(format!("node {i} is still marked dirty after the call"));
        }
        match seen.iter().position(|&s| !s) {
            Some(i) => Err(format!("node {i} is neither in the tree nor free")),
            None => Ok(()),
        }
    }
}
