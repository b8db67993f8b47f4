//! Bounding volume hierarchies for the broadphase (essay to come).

// The data structures:
mod bodies;
mod bounds;
mod flat;
mod tree;
// Kernels: Morton codes, the chunk runner, the parallel build, the traversals.
mod chunks;
mod insert;
mod karras;
mod morton;
mod traverse;
// The dynamic tree's per-frame passes, its pair cache, its bulk rebuild and its invariants:
mod cache;
mod classify;
mod rebuild;
mod validate;
// The public types.
mod dynamic;
mod lbvh;

pub use dynamic::{DynamicBvh, DynamicConfig};
pub use lbvh::{LbvhConfig, LinearBvh};

/// The registry name of [`LinearBvh`].
pub const LBVH: &str = "lbvh";

/// The registry name of [`DynamicBvh`].
pub const BVH_DYNAMIC: &str = "bvh-dynamic";

#[cfg(test)]
mod tests;

use collide_broadphase::ParamSpec;

/// The tunables of `bvh-dynamic` (see [`DynamicConfig`]).
pub const DYNAMIC_PARAMS: &[ParamSpec] = &[
    ParamSpec::number(
        "horizon",
        "calls of predicted motion a fat box covers: longer re-inserts less often and caches more false pairs",
        120.0,
        0.0,
        10_000.0,
    ),
    ParamSpec::number("margin", "fat box margin on every side, as a fraction of the body's size", 0.05, 0.0, 10.0),
    ParamSpec::integer("settle", "calls without motion before a body moves to the static tree", 16.0, 1.0, 1.0e6),
    ParamSpec::number(
        "rebuild_share",
        "share of the bodies moving in one call above which everything is rebuilt instead of re-inserted",
        0.04,
        0.0,
        1.0,
    ),
];
