use super::*;

#[test]
fn names_are_unique_kebab_case_and_build_what_they_say() {
    let mut seen = std::collections::HashSet::new();
    for d in ALGORITHMS {
        assert!(seen.insert(d.name), "duplicate name {}", d.name);
        assert!(d.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", d.name);
        assert_eq!(d.build_default().name(), d.name, "descriptor and implementation disagree");
        for p in d.params {
            if let ParamKind::Number { default, min, max, .. } = p.kind {
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
    let given = [("candidates", ParamInput::List(&list))];
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

/// `build` is the registry's one door from a name and user values to a broadphase: what it builds answers like
/// brute force, and what it refuses is named in one line.
#[test]
fn build_checks_names_and_parameters_and_says_what_is_wrong() {
    let boxes: Vec<Aabb> = (0..200)
        .map(|i| {
            Aabb::from_center_half_extents(
                Vec3::new((i % 17) as f32 * 0.7, (i / 17) as f32 * 0.9, 0.0),
                Vec3::splat(0.4),
            )
        })
        .collect();
    let mut expected = PairList::new();
    collide_broadphase::reference_pairs(&boxes, &mut expected);
    expected.sort();
    assert!(expected.len() > 100, "the scene must have pairs for the comparison to mean something");
    let mut bp = build("octree-dup", [("max_leaf", ParamInput::Number(4.0))]).unwrap();
    let mut pairs = PairList::new();
    bp.find_pairs(&Frame::new(&boxes), &mut pairs);
    pairs.sort();
    assert_eq!(pairs, expected);
    let error =
        |name: &str, given: &[(&str, ParamInput<'_>)]| build(name, given.iter().copied()).err().unwrap().to_string();
    assert!(error("octtree", &[]).starts_with("unknown algorithm `octtree`; valid algorithms: brute, "));
    assert_eq!(
        error("octree-dup", &[("max_leaf", ParamInput::Number(0.5))]),
        "octree-dup: `max_leaf` = 0.5 is out of range: expected a whole number in 1..=1024"
    );
    assert!(error("sap", &[("leaf", ParamInput::Number(1.0))]).starts_with("sap: unknown parameter `leaf`; valid"));
    assert!(error("auto", &[("candidates", ParamInput::Text("sap,nope"))]).contains("`nope` is not a candidate"));
}
