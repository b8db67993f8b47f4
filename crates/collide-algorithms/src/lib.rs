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
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_build_what_they_say() {
        let mut seen = std::collections::HashSet::new();
        for d in ALGORITHMS {
            assert!(seen.insert(d.name), "duplicate name {}", d.name);
            assert!(d.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", d.name);
            assert_eq!(d.build_default().name(), d.name, "descriptor and implementation disagree");
            for p in d.params {
                if let collide_broadphase::ParamKind::Number { default, min, max, .. } = p.kind {
                    assert!(min <= default && default <= max, "{}.{} default out of range", d.name, p.name);
                }
            }
        }
    }

    #[test]
    fn every_registered_algorithm_conforms_with_default_parameters() {
        for d in ALGORITHMS {
            collide_broadphase::conformance::assert_conforms(|| d.build_default());
        }
    }

    /// Every row on a pool of two threads, with every `Parallelism::default()` its constructor builds forced to 0
    /// over the whole kit, then at the shipped threshold over the kit's 12 000-body sequence: the parallel paths of
    /// every registered algorithm answer right (an algorithm's own tests assert which of its sections ran).
    #[test]
    fn every_registered_algorithm_conforms_on_its_parallel_paths() {
        for d in ALGORITHMS {
            let make = || d.build_default();
            if let Err(failure) = collide_broadphase::conformance::check_parallel(&make, 2) {
                panic!("broadphase `{}` on its parallel paths:\n{failure}", d.name);
            }
        }
    }

    /// `auto` switching candidate every frame, and every seventh, warm-started from the previous candidate's
    /// pairs each time: every candidate's `warm_start` and every hand-over is checked against brute force.
    #[test]
    fn auto_conforms_when_forced_to_switch_every_frame_and_every_seventh() {
        let auto = find(collide_selector::NAME).unwrap();
        for k in [1.0, 7.0] {
            let params = Params::from_numbers(auto.params, [("force_every", k)]).unwrap();
            collide_broadphase::conformance::assert_conforms(|| (auto.build)(&params));
        }
    }

    #[test]
    fn auto_takes_every_candidate_but_the_oracle_pair_counting_and_itself() {
        let auto = find(collide_selector::NAME).unwrap();
        let params = Params::defaults(auto.params);
        let selector = collide_selector::Selector::from_params(ALGORITHMS, &params);
        let expected: Vec<_> = names().filter(|n| !["brute", "pair-count", "auto"].contains(n)).collect();
        assert_eq!(selector.candidate_names(), expected);
        let list = ["sap".to_owned(), "mbp".to_owned()];
        let given = [("candidates", collide_broadphase::ParamInput::List(&list))];
        let params = Params::from_input(auto.params, given, ALGORITHMS).unwrap();
        assert_eq!(collide_selector::Selector::from_params(ALGORITHMS, &params).candidate_names(), ["sap", "mbp"]);
    }

    /// The prior `auto` starts from describes today's candidates: every registered candidate has a fit, made with
    /// the parameters the registry builds it with. A candidate added, or one whose defaults changed, fails here
    /// until `cargo xtask bench --study calibrate --install` refits the prior.
    #[test]
    fn the_prior_fits_every_candidate_with_the_registry_defaults() {
        let prior = collide_selector::Prior::builtin();
        for d in ALGORITHMS.iter().filter(|d| !collide_selector::EXCLUDED.contains(&d.name)) {
            let fit = prior.fit(d.name).unwrap_or_else(|| {
                panic!("`{}` has no fit in the prior: run `cargo xtask bench --study calibrate --install`", d.name)
            });
            let defaults = Params::defaults(d.params).to_string();
            assert_eq!(
                fit.params, defaults,
                "`{}` was fitted with other parameters than the registry's defaults: refit the prior with `cargo xtask \
                 bench --study calibrate --install`",
                d.name
            );
        }
    }

    #[test]
    fn unknown_names_answer_with_the_list() {
        let e = find("octtree").unwrap_err();
        assert!(e.to_string().starts_with("unknown algorithm `octtree`; valid algorithms: brute"), "{e}");
    }
}
