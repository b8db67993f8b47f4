//! The `ALGORITHMS` registry: every broadphase of collide by name.
//!
//! A const table of [`AlgorithmDescriptor`]s (wgpu's examples list): the app's dropdown, config validation,
//! `--help`, the bench's matrix and the meta-broadphase's candidates all read this one table, so adding an
//! algorithm is adding a row here. It lives in its own crate because it must see every implementation crate,
//! while `collide-broadphase` (where the descriptor type lives) is below them all.

pub use collide_broadphase::{AlgorithmDescriptor, ParamSpec, Params, UnknownAlgorithm};
use collide_broadphase::{Broadphase, find_algorithm};

/// Every registered broadphase, the oracle first.
pub static ALGORITHMS: &[AlgorithmDescriptor] = &[AlgorithmDescriptor {
    name: "brute",
    summary: "test every pair: O(n²), the oracle; only for a few hundred bodies",
    params: &[],
    build: |_| Box::new(collide_brute::BruteForce::new()),
}];

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
                assert!(p.min <= p.default && p.default <= p.max, "{}.{} default out of range", d.name, p.name);
            }
        }
    }

    #[test]
    fn every_registered_algorithm_conforms_with_default_parameters() {
        for d in ALGORITHMS {
            collide_broadphase::conformance::assert_conforms(|| d.build_default());
        }
    }

    #[test]
    fn unknown_names_answer_with_the_list() {
        let e = find("octtree").unwrap_err();
        assert!(e.to_string().starts_with("unknown algorithm `octtree`; valid algorithms: brute"), "{e}");
    }
}
