//! The `ALGORITHMS` registry: every broadphase of collide by name.
//!
//! A const table of [`AlgorithmDescriptor`]s (wgpu's examples list): the app's dropdown, config validation,
//! `--help`, the bench's matrix and the meta-broadphase's candidates all read this one table, so adding an
//! algorithm is adding a row here (above `auto`, the meta-broadphase, which chooses among the rows). It lives in its own crate because it must see every implementation crate,
//! while `collide-broadphase` (where the descriptor type lives) is below them all.

pub use collide_broadphase::{AlgorithmDescriptor, ParamSpec, Params, UnknownAlgorithm};
use collide_broadphase::{Broadphase, find_algorithm};

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

/// The registered names, in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALGORITHMS.iter().map(|d| d.name)
}

#[cfg(test)]
mod tests;
