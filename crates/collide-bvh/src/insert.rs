//! Changing a dynamic [`Tree`]: SAH-guided insertion, removal, and the rotations that keep it good as it changes
//! (after Box2D v3's `dynamic_tree.c`, with the surface area in place of the 2-D perimeter).
//!
//! **Insertion** chooses the leaf's sibling by the surface-area heuristic: the cost of a tree is the sum of its
//! inner nodes' areas, and giving leaf `D` the sibling `S` adds a new parent of area `area(S ∪ D)` and grows every
//! ancestor of `S` to contain `D`. The search descends one greedy path from the root, keeping the best sibling
//! seen and a lower bound for anything below each child (the growth of the ancestors so far, plus the child's
//! own growth, plus at least `area(D)` for the new parent); it stops when neither child can beat the best.
//! Then it walks back up, refitting the boxes and the heights.
//!
//! **Rotations.** Insertion order shapes a dynamic tree: bodies inserted in spatial order, or re-inserted one at
//! a time as they move, leave nodes whose children overlap badly. On the walk up each ancestor `A` with children
//! `B`, `C` tries swapping a child with a grandchild on the other side (B↔F, B↔G, C↔D, C↔E); the swap that most
//! lowers the area of the node it changes is made. It costs a few unions per level and keeps the tree close to
//! a rebuilt one as bodies wander (Box2D v3 replaced AVL balancing, which balanced heights but not areas, by
//! these rotations).
//!
//! **Removal** lifts the leaf's sibling into the place of their parent and refits the boxes above.

use crate::bounds::area;
use crate::tree::{NONE, Node, Tree};
use collide_math::Aabb;

/// What one insertion did, for the stats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Nodes read by the sibling search and the walk up.
    pub visited: u64,
    /// Rotations made on the walk up.
    pub rotations: u64,
}

impl std::ops::AddAssign for Changes {
    fn add_assign(&mut self, o: Self) {
        self.visited += o.visited;
        self.rotations += o.rotations;
    }
}

impl Tree {
    /// Insert body `body` with box `fat` as a new leaf; returns the leaf's index.
    pub(crate) fn insert(&mut self, body: u32, fat: Aabb, changes: &mut Changes) -> u32 {
        let leaf = self.alloc(Node { aabb: fat, parent: NONE, child: [body, NONE], height: 0 });
        self.insert_leaf(leaf, self.root, changes);
        self.leaves += 1;
        leaf
    }

    /// Remove leaf `leaf` and return it to the pool.
    pub(crate) fn remove(&mut self, leaf: u32, changes: &mut Changes) {
        let _ = self.remove_leaf(leaf, changes);
        self.release(leaf);
        self.leaves -= 1;
    }

    /// Give leaf `leaf` the box `fat` and put it where that box belongs (the leaf keeps its index).
    ///
    /// The sibling search starts at the lowest former ancestor whose box contains the new fat box, not at the
    /// root (Bullet's `btDbvt::update` climbs a fixed "lookahead" of levels the same way): a body that left its
    /// fat box has moved a little, so its new place is usually in the same corner of the tree, and no ancestor
    /// above that one can grow. The search then costs the depth of that subtree instead of the whole tree's.
    pub(crate) fn reinsert(&mut self, leaf: u32, fat: Aabb, changes: &mut Changes) {
        let mut top = self.remove_leaf(leaf, changes);
        while top != NONE && !self.nodes[top as usize].aabb.contains(&fat) {
            top = self.nodes[top as usize].parent;
            changes.visited += 1;
        }
        self.nodes[leaf as usize].aabb = fat;
        self.insert_leaf(leaf, if top == NONE { self.root } else { top }, changes);
    }

    /// The best sibling below `top` for a new leaf with box `d`: the node whose pairing with `d` adds the least
    /// area to the tree, searched along one greedy path with a lower bound (see the module docs). The growth of
    /// `top`'s ancestors is left out: the same for every candidate below it (none, when `top` contains `d`).
    fn best_sibling(&self, d: &Aabb, top: u32, changes: &mut Changes) -> u32 {
        let nodes = &self.nodes;
        let area_d = area(d);
        let mut index = top;
        let root = &nodes[index as usize];
        // The area of the node on the path, and of its union with `d` (the cost of making `d` its sibling).
        let mut area_here = area(&root.aabb);
        let mut direct = area(&root.aabb.union(d));
        // How much the ancestors of the node on the path grow to contain `d`.
        let mut inherited = 0.0;
        let (mut best, mut best_cost) = (index, direct);
        while !nodes[index as usize].is_leaf() {
            changes.visited += 1;
            let n = &nodes[index as usize];
            let cost = direct + inherited;
            if cost < best_cost {
                (best, best_cost) = (index, cost);
            }
            inherited += direct - area_here;
            // Per child: the cost of making it the sibling, and a lower bound for any node below it.
            let mut lower = [f32::INFINITY; 2];
            let mut directs = [0.0; 2];
            let mut areas = [0.0; 2];
            for c in 0..2 {
                let child = &nodes[n.child[c] as usize];
                directs[c] = area(&child.aabb.union(d));
                let cost = directs[c] + inherited;
                if cost < best_cost {
                    (best, best_cost) = (n.child[c], cost);
                }
                if !child.is_leaf() {
                    areas[c] = area(&child.aabb);
                    lower[c] = inherited + directs[c] + (area_d - areas[c]).min(0.0);
                }
            }
            // Both children leaves (bounds infinite), or neither can beat the best: stop. Comparisons with NaN
            // (areas of boxes near f32::MAX overflow) are false, so such a search stops here too.
            if !(lower[0] < best_cost || lower[1] < best_cost) {
                break;
            }
            let go = if lower[0] == lower[1] {
                // Both children contain `d`, say: no bound tells them apart, the nearer centre does.
                let c = d.center();
                let dist = |i: usize| (nodes[n.child[i] as usize].aabb.center() - c).length_squared();
                usize::from(dist(1) < dist(0))
            } else {
                usize::from(lower[1] < lower[0])
            };
            index = n.child[go];
            area_here = areas[go];
            direct = directs[go];
        }
        best
    }

    /// Link the detached leaf `leaf` (its box set) into the tree beside its best sibling below `top`, then refit
    /// and rotate on the way up.
    fn insert_leaf(&mut self, leaf: u32, top: u32, changes: &mut Changes) {
        if self.root == NONE {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NONE;
            return;
        }
        let d = self.nodes[leaf as usize].aabb;
        let sibling = self.best_sibling(&d, top, changes);
        let old_parent = self.nodes[sibling as usize].parent;
        let s = self.nodes[sibling as usize];
        let parent = self.alloc(Node {
            aabb: d.union(&s.aabb),
            parent: old_parent,
            child: [sibling, leaf],
            height: s.height + 1,
        });
        self.nodes[sibling as usize].parent = parent;
        self.nodes[leaf as usize].parent = parent;
        if old_parent == NONE {
            self.root = parent;
        } else {
            let op = &mut self.nodes[old_parent as usize];
            let side = usize::from(op.child[1] == sibling);
            op.child[side] = parent;
        }
        self.refit_up(old_parent, true, changes);
    }

    /// Detach leaf `leaf`: its sibling takes the place of their parent, which is freed; the boxes above are
    /// refitted. The leaf's own node is left as it is. Returns the node the leaf hung below (its former
    /// grandparent; the root when that was its parent; [`NONE`] when the tree is now empty).
    fn remove_leaf(&mut self, leaf: u32, changes: &mut Changes) -> u32 {
        if leaf == self.root {
            self.root = NONE;
            return NONE;
        }
        let parent = self.nodes[leaf as usize].parent;
        let p = self.nodes[parent as usize];
        let sibling = p.child[usize::from(p.child[0] == leaf)];
        let grand = p.parent;
        self.nodes[sibling as usize].parent = grand;
        if grand == NONE {
            self.root = sibling;
        } else {
            let g = &mut self.nodes[grand as usize];
            let side = usize::from(g.child[1] == parent);
            g.child[side] = sibling;
        }
        self.release(parent);
        self.refit_up(grand, false, changes);
        if grand == NONE { self.root } else { grand }
    }

    /// From `index` towards the root: each node's box and height recomputed from its children, with `rotate` the
    /// best rotation there made first. It stops at the first node whose box and height come out unchanged: every
    /// node above is a union of unchanged children. A body moving a little re-enters near where it was, inside its
    /// ancestors' boxes, so the walk usually ends a few levels up instead of at the root (Box2D walks to the root
    /// every time; at 10⁵ bodies that was two thirds of an insertion's instructions).
    fn refit_up(&mut self, mut index: u32, rotate: bool, changes: &mut Changes) {
        while index != NONE {
            if rotate && self.rotate(index) {
                changes.rotations += 1;
            }
            changes.visited += 1;
            if !self.fit_to_children(index) {
                break;
            }
            index = self.nodes[index as usize].parent;
        }
    }

    /// At inner node `a` (children `B`, `C`): swap a child with a grandchild on the other side when that lowers the
    /// area of the child that changes (Box2D v3's `b2RotateNodes`). Returns `true` when it swapped.
    pub(crate) fn rotate(&mut self, a: u32) -> bool {
        let na = self.nodes[a as usize];
        if na.height < 2 {
            return false;
        }
        let [b, c] = na.child;
        // Candidates: (child kept, its area now, the grandchild side whose node is swapped with the other child).
        // Swapping child X of A with grandchild Y under the other child Z leaves Z with Y's sibling and X.
        let mut best: Option<(f32, u32, usize)> = None; // (gain, the inner child Z that changes, Y's side in Z)
        for (x, z) in [(b, c), (c, b)] {
            let nz = &self.nodes[z as usize];
            if nz.is_leaf() {
                continue;
            }
            let (nx, base) = (self.nodes[x as usize], area(&nz.aabb));
            for side in 0..2 {
                // Y = nz.child[side] moves up to A; X moves down beside Y's sibling.
                let keep = &self.nodes[nz.child[1 - side] as usize];
                let gain = base - area(&nx.aabb.union(&keep.aabb));
                if gain > 0.0 && best.is_none_or(|(g, ..)| gain > g) {
                    best = Some((gain, z, side));
                }
            }
        }
        let Some((_, z, side)) = best else {
            return false;
        };
        let x = if z == c { b } else { c };
        let y = self.nodes[z as usize].child[side];
        // A: X's slot now holds Y. Z: Y's slot now holds X.
        let x_slot = usize::from(na.child[1] == x);
        self.nodes[a as usize].child[x_slot] = y;
        self.nodes[z as usize].child[side] = x;
        self.nodes[y as usize].parent = a;
        self.nodes[x as usize].parent = z;
        self.fit_to_children(z);
        true
    }
}

#[cfg(test)]
mod tests;
