//! The tree's self-adjustment: which nodes change shape this frame, and the node array rewritten with the changes.
//!
//! Three edits, each local to one subtree, decided top-down from last frame's populations (`spans`):
//! - **Split**: a leaf holding more than `max_leaf` bodies is re-planned (`plan.rs`), so it becomes a subtree whose
//!   leaves hold at most `max_leaf` (unless the planner refuses the cut: a crowd that no plane separates stays a
//!   leaf, and is looked at again only when it has grown by a quarter). Checked every frame: a cluster that
//!   gathers inside a leaf would otherwise be swept as one crowd until the next balance check.
//! - **Collapse**: an inner node whose subtree holds at most `max_leaf / 2` bodies becomes a leaf again (half
//!   the split threshold, so that a node does not split and collapse on alternate frames).
//! - **Rebalance**: every `period` of simulated time, an inner node whose sides hold bodies in a ratio outside
//!   `[1 / max_ratio, max_ratio]` (the study's 0.2 s and [0.5, 2]) has its plane moved: its subtree is re-planned
//!   from its bodies, every plane in it through a median. The highest such node is re-planned and the nodes below
//!   it are not examined (its re-plan balances them), as a scapegoat tree rebuilds the highest unbalanced
//!   subtree. Nothing else is touched: a balanced root keeps its plane however the leaves churn.
//!
//! The rewrite copies the old nodes in pre-order into a new array, replacing each edited subtree by its new
//! nodes, and records the [`Mapping`] the update needs: for each old node, the new node its bodies start their
//! placement from (itself, or the edited subtree's root), and for each new node, the old nodes whose bodies may
//! stay in it. A frame with no edit rewrites nothing.

use crate::plan::{PlanRules, Planner};
use crate::tree::{Item, Node, Span, spread_axis};
use collide_broadphase::Parallelism;
use std::ops::Range;

/// The rules of the adjustment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EditRules {
    /// How a re-planned subtree is shaped.
    pub plan: PlanRules,
    /// A node is unbalanced when one side holds more than this many times the other's bodies.
    pub max_ratio: f32,
}

/// What happens to one old node this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Action {
    /// Copied (its subtree examined further).
    #[default]
    Keep,
    /// Its subtree becomes one leaf.
    Collapse,
    /// Its subtree is re-planned from its bodies.
    Replan,
}

/// What the edits of one frame did, for [`Stats`](collide_broadphase::Stats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EditCounts {
    /// Leaves re-planned because they held more than `max_leaf` bodies.
    pub splits: u64,
    /// Inner nodes re-planned because their sides were out of balance.
    pub rebalanced: u64,
    /// Subtrees collapsed into a leaf.
    pub collapsed: u64,
    /// Bodies in the re-planned subtrees (each once).
    pub replanned: u64,
    /// Bodies in the largest re-planned subtree: the whole tree's count would be a full rebuild.
    pub largest: u64,
    /// The planner's work: bodies laid out, once per level of the subtree they were laid out in.
    pub planned: u64,
}

/// How the old nodes' bodies map onto the new nodes.
#[derive(Debug, Default)]
pub(crate) struct Mapping {
    /// No edit: old node `i` is new node `i`.
    identity: bool,
    /// Per old node, the new node its bodies start their placement from.
    start: Vec<u32>,
    /// Per new node, the old nodes whose bodies may stay in it (an empty range for new nodes under a re-plan).
    sources: Vec<[u32; 2]>,
}

impl Mapping {
    /// The new node old node `old`'s bodies start their placement from.
    #[inline]
    pub fn start(&self, old: usize) -> u32 {
        if self.identity { old as u32 } else { self.start[old] }
    }

    /// The old nodes whose bodies may stay in new node `new` (a contiguous pre-order range).
    #[inline]
    pub fn sources(&self, new: usize) -> Range<usize> {
        if self.identity {
            new..new + 1
        } else {
            let [a, b] = self.sources[new];
            a as usize..b as usize
        }
    }
}

/// Last frame's tree, as the edits read it: its nodes, and its items (with last frame's boxes) as `spans` says.
#[derive(Clone, Copy)]
pub(crate) struct OldTree<'a> {
    pub nodes: &'a [Node],
    pub spans: &'a [Span],
    pub items: &'a [Item],
}

impl OldTree<'_> {
    /// The items of old node `o`'s subtree.
    fn subtree_items(&self, o: usize) -> &[Item] {
        let span = self.spans[o];
        &self.items[span.start as usize..span.sub_end as usize]
    }
}

/// The adjustment's state, kept across frames.
#[derive(Debug, Default)]
pub(crate) struct Editor {
    actions: Vec<Action>,
    mapping: Mapping,
    /// A re-planned subtree's bodies, which the planner reorders (the item array stays as it is for the update).
    scratch: Vec<Item>,
    pub planner: Planner,
    /// The edits of the last frame.
    pub counts: EditCounts,
}

impl Editor {
    /// The map of the last [`Editor::adjust`].
    pub fn mapping(&self) -> &Mapping {
        &self.mapping
    }

    /// Plan a whole tree for `items` (the first frame, or after a reset), laid out as the tree stores it (see
    /// [`Planner::plan_tree`]): `nodes` and `spans` become the tree's.
    pub fn fresh(
        &mut self,
        items: &mut [Item],
        rules: &EditRules,
        parallelism: Parallelism,
        nodes: &mut Vec<Node>,
        spans: &mut Vec<Span>,
    ) {
        self.counts = EditCounts::default();
        self.planner.reset_count();
        self.planner.plan_tree(items, &rules.plan, parallelism, nodes, spans);
        self.counts.planned = self.planner.planned;
        // Room for the largest re-plan (the whole tree's), so that the later frames' re-plans do not grow it.
        self.scratch.reserve(items.len());
    }

    /// Decide this frame's edits of `old` and, when there are any, write the edited tree into `out` and return
    /// `true`. `rebalance`: the period has come, check every node's balance. Without an edit `out` is untouched
    /// and the mapping is the identity.
    pub fn adjust(&mut self, old: &OldTree<'_>, rules: &EditRules, rebalance: bool, out: &mut Vec<Node>) -> bool {
        self.counts = EditCounts::default();
        self.planner.reset_count();
        if !self.decide(old.nodes, old.spans, rules, rebalance) {
            self.mapping.identity = true;
            return false;
        }
        self.mapping.identity = false;
        self.mapping.start.clear();
        self.mapping.start.resize(old.nodes.len(), 0);
        self.mapping.sources.clear();
        out.clear();
        self.emit(old, rules, 0, crate::tree::NONE, out);
        debug_assert_eq!(self.mapping.sources.len(), out.len());
        self.counts.planned = self.planner.planned;
        true
    }

    /// Set each old node's action, top-down; returns whether any is not [`Action::Keep`].
    fn decide(&mut self, old: &[Node], spans: &[Span], rules: &EditRules, rebalance: bool) -> bool {
        self.actions.clear();
        self.actions.resize(old.len(), Action::Keep);
        let max_leaf = rules.plan.max_leaf as usize;
        let mut any = false;
        let mut o = 0;
        while o < old.len() {
            let (node, span) = (&old[o], &spans[o]);
            let action = if node.is_leaf() {
                let count = span.own_len();
                // A leaf the planner refused is looked at again once it has grown by a quarter.
                let grown = count as u64 * 4 > u64::from(node.refused) * 5;
                if count > max_leaf && u32::from(node.depth) < rules.plan.max_depth && grown {
                    self.counts.splits += 1;
                    Action::Replan
                } else {
                    Action::Keep
                }
            } else if span.population() <= max_leaf / 2 {
                self.counts.collapsed += 1;
                Action::Collapse
            } else if rebalance
                && unbalanced(spans[o + 1].population(), spans[node.right as usize].population(), rules.max_ratio)
            {
                self.counts.rebalanced += 1;
                Action::Replan
            } else {
                Action::Keep
            };
            self.actions[o] = action;
            any |= action != Action::Keep;
            // An edited subtree is replaced whole: its nodes need no decision.
            o = if action == Action::Keep { o + 1 } else { node.end as usize };
        }
        any
    }

    /// Emit old node `o` (and its subtree) into `out` under the new node `parent`, by its action.
    fn emit(&mut self, old: &OldTree<'_>, rules: &EditRules, o: usize, parent: u32, out: &mut Vec<Node>) {
        let node = old.nodes[o];
        let i = out.len() as u32;
        let subtree = o..node.end as usize;
        match self.actions[o] {
            Action::Keep => {
                out.push(Node { parent, ..node });
                self.mapping.start[o] = i;
                self.mapping.sources.push([o as u32, o as u32 + 1]);
                if !node.is_leaf() {
                    self.emit(old, rules, o + 1, i, out);
                    out[i as usize].right = out.len() as u32;
                    self.emit(old, rules, node.right as usize, i, out);
                }
                out[i as usize].end = out.len() as u32;
            }
            Action::Collapse => {
                let sweep = spread_axis(old.subtree_items(o), None);
                out.push(Node { end: i + 1, ..Node::leaf(node.lo, node.hi, u32::from(node.depth), parent, sweep) });
                self.mapping.start[subtree].fill(i);
                self.mapping.sources.push([o as u32, node.end]);
            }
            Action::Replan => {
                let bodies = old.subtree_items(o).len() as u64;
                self.counts.replanned += bodies;
                self.counts.largest = self.counts.largest.max(bodies);
                self.scratch.clear();
                self.scratch.extend_from_slice(old.subtree_items(o));
                let region = (node.lo, node.hi);
                self.planner.plan(&mut self.scratch, region, u32::from(node.depth), parent, &rules.plan, out);
                self.mapping.start[subtree].fill(i);
                // The bodies start at the new subtree's root; those that straddle its plane stay there, the others
                // arrive in the nodes below, which have no old node of their own.
                self.mapping.sources.push([o as u32, node.end]);
                self.mapping.sources.resize(out.len(), [0, 0]);
            }
        }
    }
}

/// `true` when bodies on the two sides of a plane, `left` and `right` of them, are in a ratio outside
/// `[1 / max_ratio, max_ratio]` (one side empty and the other not is out of any ratio).
pub(crate) fn unbalanced(left: usize, right: usize, max_ratio: f32) -> bool {
    let (l, r) = (left as f64, right as f64);
    let k = f64::from(max_ratio);
    l * k < r || r * k < l
}

#[cfg(test)]
mod tests;
