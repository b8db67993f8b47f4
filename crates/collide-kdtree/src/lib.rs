//! The self-adjusting kd tree (`kd`): split planes kept from frame to frame, moved only where a node's sides fall
//! out of balance.
//!
//! (The design essay is written below once the measurements are in.)

mod tree;
// Kernels on the data: where a body belongs, and the planner that lays out a subtree.
mod place;
mod plan;
// The frame: the shape's adjustment, the bodies' update, the pair search.
mod edit;
mod search;
mod update;
// The invariants' check, and the public type.
mod kd;
mod validate;

#[cfg(test)]
mod tests;

pub use kd::{KdConfig, KdTree};
pub use tree::MAX_DEPTH_LIMIT;
pub use update::InvalidBoxes;

use collide_broadphase::ParamSpec;

/// `max_leaf`: bodies a leaf holds before it splits.
pub const MAX_LEAF: ParamSpec =
    ParamSpec::integer("max_leaf", "bodies a leaf holds before it is split by a median plane", 32.0, 1.0, 1024.0);

/// `max_depth`: the deepest level (root = 0).
pub const MAX_DEPTH: ParamSpec = ParamSpec::integer(
    "max_depth",
    "deepest level of the tree, root = 0 (a balanced tree of 10⁶ bodies in leaves of 8 is 17 deep)",
    32.0,
    0.0,
    MAX_DEPTH_LIMIT as f64,
);

/// `period`: simulated seconds between balance checks.
pub const PERIOD: ParamSpec = ParamSpec::number(
    "period",
    "simulated seconds between two checks of every node's balance (the BSP study's 0.2 s)",
    0.2,
    0.001,
    60.0,
);

/// `max_ratio`: the balance bound.
pub const MAX_RATIO: ParamSpec = ParamSpec::number(
    "max_ratio",
    "a plane moves when one side holds more than this many times the other's bodies (the study's 2: [0.5, 2])",
    2.0,
    1.0,
    100.0,
);

/// The parameters of `kd`.
pub const PARAMS: &[ParamSpec] = &[MAX_LEAF, MAX_DEPTH, PERIOD, MAX_RATIO];
