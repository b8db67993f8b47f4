//! The `ALGORITHMS` registry: every broadphase of collide by name.
//!
//! A const table of [`AlgorithmDescriptor`]s (wgpu's examples list): the app's dropdown, config validation,
//! `--help`, the bench's matrix and the meta-broadphase's candidates all read this one table, so adding an
//! algorithm is adding a row here (above `auto`, the meta-broadphase, which chooses among the rows). It lives in
//! its own crate because it must see every implementation crate, while `collide-broadphase` (where the descriptor
//! type lives) is below them all.
//!
//! It is also where a library user starts: it re-exports what a caller of a broadphase needs ([`Broadphase`],
//! [`Frame`], [`Resize`], [`PairList`], [`Aabb`], [`Vec3`], [`on_worker`]), so this one dependency is enough.
//!
//! # Quick start
//!
//! Build `auto` (or any registered name: [`names`] lists them) with [`build`], then once per frame hand it every
//! body's box and read the pairs. Bodies are dense indices `0..n`: index `i` is the same body from one call to
//! the next. The [`PairList`] is yours and lives across frames, so nothing allocates once it has grown.
//!
//! ```
//! use collide_algorithms::{Aabb, Frame, PairList, ParamInput, Vec3, build, on_worker};
//!
//! // A row of unit boxes 0.9 apart: neighbours overlap, and nothing else does.
//! let boxes_at = |shift: f32| -> Vec<Aabb> {
//!     (0..100).map(|i| Aabb::from_center_half_extents(Vec3::new(i as f32 * 0.9 + shift, 0.0, 0.0), Vec3::splat(0.5))).collect()
//! };
//! // Any name and its parameters, checked against the registry (a wrong one is an error naming it).
//! let mut broadphase = build("auto", [("margin", ParamInput::Number(0.15))])?;
//! let mut pairs = PairList::default();
//! for frame in 0..10 {
//!     let boxes = boxes_at(frame as f32 * 0.01);
//!     // From one of rayon's threads, the algorithms' parallel sections use every core.
//!     on_worker(|| broadphase.find_pairs(&Frame::new(&boxes).with_step(frame), &mut pairs));
//!     assert_eq!(pairs.len(), 99);
//!     for pair in pairs.iter() {
//!         assert!(pair.a < pair.b && boxes[pair.a as usize].overlaps(&boxes[pair.b as usize]));
//!     }
//! }
//! assert!(build("octree-dup", [("max_leaf", ParamInput::Number(0.5))]).is_err());
//! # Ok::<(), collide_algorithms::BuildError>(())
//! ```
//!
//! Pairs come smaller index first, each once, in no particular order ([`PairList::sort`] to compare). For bodies
//! with handles of their own that come and go, and the motion hint, see `examples/engine_loop.rs`
//! (`cargo run --release -p collide-algorithms --example engine_loop`): between two frames,
//! [`Broadphase::on_resize`] with a [`Resize`] maps old indices to new ones, and [`Frame::with_moved`] says
//! which boxes changed.

pub use collide_broadphase::parallel::{keep_awake, on_worker};
pub use collide_broadphase::{
    Aabb, AlgorithmDescriptor, Broadphase, Frame, InvalidBoxes, Pair, PairList, ParamError, ParamInput, ParamKind,
    ParamSpec, Params, Resize, Stats, UnknownAlgorithm, is_valid_box, same_bits,
};
pub use collide_math::Vec3;

use collide_broadphase::find_algorithm;
use std::fmt;

/// Every registered broadphase, the oracle first.
pub static ALGORITHMS: &[AlgorithmDescriptor] = &[
    AlgorithmDescriptor {
        name: "brute",
        summary: "test every pair: O(n²), the oracle; only for a few hundred bodies",
        params: &[],
        build: |_| Box::new(collide_brute::BruteForce::new()),
    },
    AlgorithmDescriptor {
        name: "octree-dup",
        summary: "octree, a body in every leaf it touches, each pair once; best for many small spread-out bodies",
        params: collide_octree::PARAMS,
        build: |p| Box::new(collide_octree::Octree::from_params(collide_octree::Variant::Dup, p)),
    },
    AlgorithmDescriptor {
        name: "octree-nodup",
        summary: "octree, straddlers kept in inner nodes; best for clusters, mixed sizes; O(n²) if all straddle",
        params: collide_octree::PARAMS,
        build: |p| Box::new(collide_octree::Octree::from_params(collide_octree::Variant::Nodup, p)),
    },
    AlgorithmDescriptor {
        name: "octree-loose",
        summary: "loose octree, each body in one enlarged cell by centre and size; robust for mixed sizes",
        params: collide_octree::LOOSE_PARAMS,
        build: |p| Box::new(collide_octree::Octree::from_params(collide_octree::Variant::Loose, p)),
    },
    AlgorithmDescriptor {
        name: "sap",
        summary: "incremental sweep-and-prune, insertion sort + persistent pairs; best by far for slow bodies",
        params: collide_sap::SAP_PARAMS,
        build: |p| Box::new(collide_sap::SweepAndPrune::from_params(p)),
    },
    AlgorithmDescriptor {
        name: "sort-sweep",
        summary: "sort-and-sweep rebuilt every frame on the axis of greatest spread; immune to speed",
        params: &[],
        build: |_| Box::new(collide_sap::SortSweep::new()),
    },
    AlgorithmDescriptor {
        name: "mbp",
        summary: "multi-box pruning: sort-and-sweep per region of a coarse grid, parallel; fast at any speed",
        params: collide_sap::MBP_PARAMS,
        build: |p| Box::new(collide_sap::MultiBoxPruning::from_params(p)),
    },
    AlgorithmDescriptor {
        name: "pair-count",
        summary: "per-axis overlap lists, a pair counted on three axes is real (the BSP study's variant)",
        params: &[],
        build: |_| Box::new(collide_sap::PairCount::new()),
    },
    AlgorithmDescriptor {
        name: collide_bvh::BVH_DYNAMIC,
        summary: "dynamic AABB tree (Box2D, Bullet): fat boxes, re-insert only what left them, persistent pair cache",
        params: collide_bvh::DYNAMIC_PARAMS,
        build: |p| Box::new(collide_bvh::DynamicBvh::from_params(p)),
    },
    AlgorithmDescriptor {
        name: collide_bvh::LBVH,
        summary: "linear BVH rebuilt every frame: Morton sort, parallel build (Karras 2012), parallel self-join",
        params: &[],
        build: |_| Box::new(collide_bvh::LinearBvh::new()),
    },
    AlgorithmDescriptor {
        name: "grid",
        summary: "uniform grid hashed onto a torus, built by sorting, each cell against its neighbours in SIMD blocks; memory follows the bodies",
        params: collide_grid::PARAMS,
        build: |p| Box::new(collide_grid::Grid::from_params(collide_grid::Kind::Uniform, p)),
    },
    AlgorithmDescriptor {
        name: "hgrid",
        summary: "hierarchical grid: a level per power of two of body size, larger bodies scanning the smaller ones' cells",
        params: collide_grid::PARAMS,
        build: |p| Box::new(collide_grid::Grid::from_params(collide_grid::Kind::Hierarchical, p)),
    },
    AlgorithmDescriptor {
        name: "kd",
        summary: "self-adjusting kd tree: planes kept between frames, moved where a node's sides fall out of balance",
        params: collide_kdtree::PARAMS,
        build: |p| Box::new(collide_kdtree::KdTree::from_params(p)),
    },
    AlgorithmDescriptor {
        name: collide_selector::NAME,
        summary: "meta-broadphase: measures the others, predicts their cost from the scene, switches at run time",
        params: collide_selector::PARAMS,
        // The selector is handed this very table: it builds its candidates from the rows, so it needs no
        // dependency on this crate (no cycle), and algorithms added below join its candidates by their row.
        build: |p| Box::new(collide_selector::Selector::from_params(ALGORITHMS, p)),
    },
];

/// The descriptor named `name`, or an error listing the valid names.
pub fn find(name: &str) -> Result<&'static AlgorithmDescriptor, UnknownAlgorithm> {
    find_algorithm(ALGORITHMS, name)
}

/// Build `name` with every parameter at its default.
pub fn build_default(name: &str) -> Result<Box<dyn Broadphase>, UnknownAlgorithm> {
    find(name).map(AlgorithmDescriptor::build_default)
}

/// Build `name` with the parameters `given` (checked against its spec as a config's are, every other one at its
/// default): the one door from a name and user-given values to a running broadphase.
///
/// An unknown name answers with the registered ones; an unknown parameter, a value out of range or a list name
/// that is not a candidate answers with the rule ([`BuildError`]'s message names the algorithm and the key).
pub fn build<'s>(
    name: &str,
    given: impl IntoIterator<Item = (&'s str, ParamInput<'s>)>,
) -> Result<Box<dyn Broadphase>, BuildError> {
    let descriptor = find(name).map_err(BuildError::Unknown)?;
    let params = Params::from_input(descriptor.params, given, ALGORITHMS)
        .map_err(|error| BuildError::Param { algorithm: descriptor.name, error: Box::new(error) })?;
    Ok((descriptor.build)(&params))
}

/// Why [`build`] refused: its message is one line naming the problem and the valid choices.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// The name is not registered.
    Unknown(UnknownAlgorithm),
    /// A parameter does not fit the algorithm's spec.
    Param {
        /// The algorithm.
        algorithm: &'static str,
        /// What is wrong with the parameter (boxed: it is large beside the `Ok` value).
        error: Box<ParamError>,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown(e) => e.fmt(f),
            Self::Param { algorithm, error } => write!(f, "{algorithm}: {error}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// The registered names, in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALGORITHMS.iter().map(|d| d.name)
}

#[cfg(test)]
mod tests;
