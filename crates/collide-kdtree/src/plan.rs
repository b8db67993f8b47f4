//! Kernel: the planner, which chooses split planes for a set of bodies and lays out the nodes of a fresh subtree
//! over them. It runs when the tree is first built, when a leaf holds too many bodies, and when a node's sides
//! fall out of balance (see `edit.rs`); never on a frame where nothing asks for it.
//!
//! A plane goes through the **median of the bodies' centres** on one axis, so that its two sides get the same
//! number of bodies whatever their spread (a cell's midpoint, the octree's choice, leaves one side empty when the
//! bodies crowd into a corner). Each axis is tried and the one whose median plane cuts the fewest bodies wins:
//! a body that straddles the plane stays in the node and is paired with the bodies of the node's subtree near the
//! plane (`search.rs`), which costs more than a body sent down. A cut is refused — the node stays a leaf — when
//! one side would be empty (every centre on one value: the bodies cannot be separated by any plane) or when a
//! small node would keep more than [`MAX_STAY`] of its bodies (a dense crowd of equal bodies, where every plane
//! cuts through half of them; the octree's nodup variant found the same threshold).
//!
//! Above [`SAMPLE_MIN`] bodies the medians and the cut counts come from an evenly strided sample of
//! [`SAMPLE`] bodies: the full partition at every level is O(n) anyway, and choosing on a sample keeps the first
//! build of 10⁵ bodies (17 levels) from paying three selections of all of them per level.

use crate::tree::{Item, NONE, Node, Span, centre, set_sub_ends, spread_axis};
use collide_broadphase::Parallelism;
use collide_math::Vec3;

/// Above this many bodies the planner chooses its cut on a sample.
pub(crate) const SAMPLE_MIN: usize = 4096;
/// The sample's size.
const SAMPLE: usize = 1024;

/// A small node (at most [`REFUSE_LOADS`] leaves' worth of bodies) whose cut would keep more than this share of
/// its bodies stays a leaf: in a crowd of equal bodies as wide as a third of the cell, half of them straddle any
/// plane, and a split only adds a node whose own bodies must be paired with its subtree.
pub(crate) const MAX_STAY: f64 = 0.3;

/// See [`MAX_STAY`]: larger nodes always split when both sides get bodies, since their straddlers may be a sheet
/// along the plane that the subtree's pairing handles far better than one sweep of the whole node would.
pub(crate) const REFUSE_LOADS: usize = 8;

/// How the planner shapes a subtree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlanRules {
    /// A node with more bodies than this is split (unless the cut is refused or it is at `max_depth`).
    pub max_leaf: u32,
    /// No node is deeper than this (the root is 0).
    pub max_depth: u32,
}

/// A chosen cut: the plane and how many bodies go where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cut {
    pub axis: usize,
    pub plane: f32,
    pub left: usize,
    pub stay: usize,
    pub right: usize,
}

/// The planner's scratch, kept across calls.
#[derive(Debug, Default)]
pub(crate) struct Planner {
    /// Centres of the bodies (or the sample) on one axis, for the median.
    centres: Vec<f32>,
    /// The sample of a large node.
    sample: Vec<Item>,
    /// Per node laid out by the last call, in its order, how many of the items are the node's own (all of a
    /// leaf's, the straddlers of an inner node's plane).
    own: Vec<u32>,
    /// Bodies the planner has laid out since [`Planner::reset_count`]: the work of re-planning.
    pub planned: u64,
}

/// How one call lays out what it plans.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Each node's own items sorted on its sweep axis, as the tree stores them.
    sorted: bool,
    /// When a node's two sides are planned on two threads.
    parallelism: Parallelism,
}

impl Planner {
    /// Start counting planned bodies afresh.
    pub fn reset_count(&mut self) {
        self.planned = 0;
    }

    /// Append to `out`, in pre-order, the nodes of a fresh subtree for `items` (reordered in place) over the
    /// region `[lo, hi)`, its root at `depth` under `parent`. Returns the root's index. O(n · depth), on this
    /// thread: an edit's re-plan, whose bodies the frame's update then places.
    pub fn plan(
        &mut self,
        items: &mut [Item],
        (lo, hi): (Vec3, Vec3),
        depth: u32,
        parent: u32,
        rules: &PlanRules,
        out: &mut Vec<Node>,
    ) -> u32 {
        let root = out.len() as u32;
        self.own.clear();
        let layout = Layout { sorted: false, parallelism: Parallelism::SERIAL };
        self.plan_node(items, (lo, hi), depth, parent, rules, layout, out);
        root
    }

    /// A whole tree for `items`, as the tree stores it: `nodes` becomes its nodes, `items` is reordered into the
    /// tree's item order (each node's own items, then its left subtree's, then its right's, in pre-order; each
    /// node's own sorted on its sweep axis) and `spans` says where each node's are. So the first frame needs no
    /// update: no body is placed from the root after its plane was chosen. The two sides of a node of at least
    /// `parallelism`'s threshold are planned on two threads (at 10⁵ bodies, the top four levels: most of the work).
    /// O(n · depth) work.
    pub fn plan_tree(
        &mut self,
        items: &mut [Item],
        rules: &PlanRules,
        parallelism: Parallelism,
        nodes: &mut Vec<Node>,
        spans: &mut Vec<Span>,
    ) {
        nodes.clear();
        self.own.clear();
        let whole = (Node::root().lo, Node::root().hi);
        self.plan_node(items, whole, 0, NONE, rules, Layout { sorted: true, parallelism }, nodes);
        spans.clear();
        let mut at = 0;
        spans.extend(self.own.iter().map(|&own| {
            let start = at;
            at += own;
            Span { start, own_end: at, sub_end: 0 }
        }));
        set_sub_ends(nodes, spans, at);
    }

    /// One node of a plan and, recursively, its subtree (the depth is bounded by `max_depth`). `items` become
    /// `[own | left subtree | right subtree]`.
    #[allow(clippy::too_many_arguments)]
    fn plan_node(
        &mut self,
        items: &mut [Item],
        (lo, hi): (Vec3, Vec3),
        depth: u32,
        parent: u32,
        rules: &PlanRules,
        layout: Layout,
        out: &mut Vec<Node>,
    ) {
        self.planned += items.len() as u64;
        let i = out.len() as u32;
        let leaf = |items: &mut [Item], refused: usize, own: &mut Vec<u32>| {
            let sweep = spread_axis(items, None);
            if layout.sorted {
                sort_on(items, sweep);
            }
            own.push(items.len() as u32);
            Node { refused: refused as u32, end: i + 1, ..Node::leaf(lo, hi, depth, parent, sweep) }
        };
        if items.len() <= rules.max_leaf as usize || depth >= rules.max_depth {
            out.push(leaf(items, 0, &mut self.own));
            return;
        }
        let Some(cut) = self.choose(items, rules) else {
            out.push(leaf(items, items.len(), &mut self.own));
            return;
        };
        let (stay, left) = partition(items, cut.axis, cut.plane);
        if left == 0 || stay + left == items.len() {
            // The sample promised two sides the whole set does not have: nothing would go down one side.
            out.push(leaf(items, items.len(), &mut self.own));
            return;
        }
        let (stays, rest) = items.split_at_mut(stay);
        let sweep = spread_axis(stays, Some(cut.axis));
        if layout.sorted {
            sort_on(stays, sweep);
        }
        self.own.push(stay as u32);
        let node = Node { plane: cut.plane, axis: cut.axis as u8, sweep, ..Node::leaf(lo, hi, depth, parent, 0) };
        out.push(node);
        let work = rest.len();
        let (lefts, rights) = rest.split_at_mut(left);
        let (left_region, right_region) = (node.left_region(), node.right_region());
        if layout.parallelism.is_parallel(work) {
            // The right side on another thread, into nodes of its own numbered from 0 (its root's parent is this
            // node, already in `out`), appended after the left side with its indices moved. Its planner and node
            // vector are allocated here: only the first frame's plan is parallel, never an edit's.
            let (mut other, mut other_out) = (Planner::default(), Vec::new());
            layout.parallelism.join(
                "kd plan",
                work,
                || self.plan_node(lefts, left_region, depth + 1, i, rules, layout, out),
                || other.plan_node(rights, right_region, depth + 1, i, rules, layout, &mut other_out),
            );
            let offset = out.len() as u32;
            out[i as usize].right = offset;
            out.extend(other_out.into_iter().enumerate().map(|(k, mut n)| {
                if k > 0 {
                    n.parent += offset;
                }
                if n.right != NONE {
                    n.right += offset;
                }
                n.end += offset;
                n
            }));
            self.own.extend_from_slice(&other.own);
            self.planned += other.planned;
        } else {
            self.plan_node(lefts, left_region, depth + 1, i, rules, layout, out);
            out[i as usize].right = out.len() as u32;
            self.plan_node(rights, right_region, depth + 1, i, rules, layout, out);
        }
        out[i as usize].end = out.len() as u32;
    }

    /// The best cut of `items`: on each axis the plane through the median centre, the axis whose plane keeps the
    /// fewest bodies winning (ties: the more even split). `None` when no axis sends bodies to both sides, or a
    /// small node would keep more than [`MAX_STAY`] of them.
    pub fn choose(&mut self, items: &[Item], rules: &PlanRules) -> Option<Cut> {
        let Self { centres, sample, .. } = self;
        let sampled = items.len() > SAMPLE_MIN;
        if sampled {
            sample.clear();
            sample.extend(items.iter().step_by(items.len() / SAMPLE));
        }
        let from: &[Item] = if sampled { sample } else { items };
        let mut best: Option<Cut> = None;
        for axis in 0..3 {
            centres.clear();
            centres.extend(from.iter().map(|it| centre(&it.aabb, axis)));
            let mid = centres.len() / 2;
            let (_, &mut plane, _) = centres.select_nth_unstable_by(mid, f32::total_cmp);
            let cut = count(from, axis, plane);
            if cut.left == 0 || cut.right == 0 {
                continue;
            }
            let better = |b: &Cut| (cut.stay, cut.left.abs_diff(cut.right)) < (b.stay, b.left.abs_diff(b.right));
            if best.as_ref().is_none_or(better) {
                best = Some(cut);
            }
        }
        let cut = best?;
        let total = cut.left + cut.stay + cut.right;
        let small = items.len() <= REFUSE_LOADS * rules.max_leaf as usize;
        (!(small && cut.stay as f64 > MAX_STAY * total as f64)).then_some(cut)
    }
}

/// How the plane `x[axis] = plane` divides `items` (the rule of [`Node::side`]).
fn count(items: &[Item], axis: usize, plane: f32) -> Cut {
    let (mut left, mut right) = (0, 0);
    for it in items {
        left += usize::from(it.aabb.max[axis] < plane);
        right += usize::from(it.aabb.min[axis] >= plane);
    }
    Cut { axis, plane, left, stay: items.len() - left - right, right }
}

/// Reorder `items` as `[stay | left | right]` by the plane `x[axis] = plane` (the rule of [`Node::side`]), the
/// order of the tree's item array: a node's own items before its subtree's. Returns the sizes of the first two
/// groups.
fn partition(items: &mut [Item], axis: usize, plane: f32) -> (usize, usize) {
    // Dutch national flag: [0, st) stay, [st, i) left, [i, gt) unseen, [gt, len) right.
    let (mut st, mut i, mut gt) = (0, 0, items.len());
    while i < gt {
        let b = &items[i].aabb;
        if b.max[axis] < plane {
            i += 1;
        } else if b.min[axis] >= plane {
            gt -= 1;
            items.swap(i, gt);
        } else {
            items.swap(st, i);
            st += 1;
            i += 1;
        }
    }
    (st, gt - st)
}

/// Sort `items` by `min` on axis `sweep`, the order a node's own items are stored and swept in.
fn sort_on(items: &mut [Item], sweep: u8) {
    let a = sweep as usize;
    items.sort_unstable_by(|x, y| x.aabb.min[a].total_cmp(&y.aabb.min[a]));
}

#[cfg(test)]
mod tests;
