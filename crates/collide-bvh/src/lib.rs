//! Bounding volume hierarchies for the broadphase (essay to come).

// The data structures:
mod bounds;
mod flat;
// Kernels: Morton codes, the chunk runner, the parallel build, the traversals.
mod chunks;
mod karras;
mod morton;
mod traverse;
// The public types.
mod lbvh;

pub use lbvh::{LbvhConfig, LinearBvh};

/// The registry name of [`LinearBvh`].
pub const LBVH: &str = "lbvh";

#[cfg(test)]
mod tests;
