use super::*;

fn features(n: usize, speed: f64, ppb: f64) -> Features {
    Features {
        n,
        pairs_per_body: ppb,
        speed_mean: speed,
        speed_known: true,
        clustering: 1.0,
        size_spread: 1.0,
        resting: 0.0,
    }
}

#[test]
fn the_shipped_prior_parses_and_covers_every_candidate_it_names() {
    let prior = Prior::builtin();
    assert!(!prior.fits.is_empty());
    // Compared as text: the anchors mark a candidate not measured there as NaN, which equals nothing.
    assert_eq!(Prior::parse(&prior.to_toml()).unwrap().to_toml(), prior.to_toml(), "to_toml and parse agree");
    for f in &prior.fits {
        let (ms, _) = prior.predict(&f.name, &features(100_000, 0.2, 1.0)).unwrap();
        assert!(ms > 1e-3 && ms < 1e4, "{}: {ms} ms at 100k is not a plausible cost", f.name);
    }
}

#[test]
fn a_prior_with_other_regressors_is_refused_with_the_way_out() {
    let mut prior = Prior::builtin();
    prior.regressors[1] = "n".into();
    let e = Prior::parse(&prior.to_toml()).unwrap_err();
    assert!(e.contains("refit with `cargo xtask bench --study calibrate`"), "{e}");
    assert!(Prior::parse("machine = 3").unwrap_err().starts_with("prior: "));
}

#[test]
fn ridge_fit_recovers_a_log_linear_cost() {
    // ms = 2e-5 · n · (1 + ppb)^0.5 · speed^0.3, sampled on a grid.
    let mut rows = Vec::new();
    for n in [1_000, 5_000, 20_000, 100_000, 400_000] {
        for speed in [0.002, 0.02, 0.2, 1.0] {
            for ppb in [0.1, 1.0, 10.0] {
                let ms = 2e-5 * n as f64 * (1.0f64 + ppb).powf(0.5) * (speed + 1e-3f64).powf(0.3);
                rows.push((features(n, speed, ppb), ms));
            }
        }
    }
    let (w, rmse) = fit_rows(&rows).unwrap();
    assert!(rmse < 0.05, "rmse {rmse}");
    // ln n and ln² n share the dependence on n, so check it through the predictions: 5× the bodies, 5× the cost.
    let predict = |f: &Features| w.iter().zip(f.regressors()).map(|(w, x)| w * x).sum::<f64>().exp();
    let ratio = predict(&features(100_000, 0.2, 1.0)) / predict(&features(20_000, 0.2, 1.0));
    assert!((ratio / 5.0 - 1.0).abs() < 0.05, "cost ratio for 5× the bodies: {ratio}");
    assert!((w[3] - 0.5).abs() < 0.05, "pairs weight {}", w[3]);
    assert!((w[4] - 0.3).abs() < 0.05, "speed weight {}", w[4]);
    assert!(fit_rows(&rows[..1]).is_none());
}

#[test]
fn predictions_are_relative_to_the_active_candidate_and_probes_correct_them() {
    let prior = Prior::builtin();
    let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    let (a, b) = (leak(&prior.fits[0].name), leak(&prior.fits[1].name));
    let mut model = CostModel::new(prior, &[a, b, "never-calibrated"]);
    let f = features(50_000, 0.2, 1.0);
    let (base_a, base_b) = (model.base(0, &f).0, model.base(1, &f).0);
    // Never measured: the prior's ratio applied to whatever the active one costs now — on a machine twice
    // as slow, both are predicted twice as dear.
    let cold = model.predict(1, 0, 2.0 * base_a, &f, 0);
    assert!((cold.ms / (2.0 * base_b) - 1.0).abs() < 1e-9, "{} against {}", cold.ms, 2.0 * base_b);
    assert!(cold.sigma >= PRIOR_SIGMA_FLOOR);
    // A probe finds b three times dearer, relative to a, than the prior said.
    model.observe_probe(1, 0, &f, 10, 3.0 * base_b, base_a);
    let warm = model.predict(1, 0, base_a, &f, 10);
    assert!((warm.ms / (3.0 * base_b) - 1.0).abs() < 1e-9, "the first probe is taken as is: {}", warm.ms);
    assert!((warm.sigma - MEASURED_SIGMA).abs() < 1e-9);
    // The active one's cost doubling with the features unchanged: the ratio still stands, less surely.
    let doubled = model.predict(1, 0, 2.0 * base_a, &f, 10);
    assert!((doubled.ms / (6.0 * base_b) - 1.0).abs() < 1e-9);
    assert!((doubled.sigma - MEASURED_SIGMA - 2f64.ln()).abs() < 1e-9, "{}", doubled.sigma);
    // And the other way round: with b active, a is predicted a third as dear relative to b's prior.
    let back = model.predict(0, 1, 3.0 * base_b, &f, 10);
    assert!((back.ms / base_a - 1.0).abs() < 1e-9, "{} against {base_a}", back.ms);
    assert!(back.sigma < 1e-9 + MEASURED_SIGMA, "the anchor was measured on the same frames");
    // Half way from a fresh measurement to the prior's uncertainty, in frames of age.
    let age = ((cold.sigma - MEASURED_SIGMA) / 2.0 * AGE_FRAMES_PER_SIGMA) as u64;
    let half = model.predict(1, 0, base_a, &f, 10 + age);
    let expected = MEASURED_SIGMA + age as f64 / AGE_FRAMES_PER_SIGMA;
    assert!(expected < cold.sigma && (half.sigma - expected).abs() < 1e-9, "{age} frames older: {}", half.sigma);
    let later = model.predict(1, 0, base_a, &f, 10 + 3600);
    assert_eq!(later.sigma, cold.sigma, "a minute later the measurement says no more than the prior");
    // Elsewhere, the active candidate costs what the prior says there (the common level unchanged).
    let at = |g: &Features| model.predict(1, 0, model.base(0, g).0, g, 10);
    let bigger = at(&features(200_000, 0.2, 1.0));
    assert_eq!(bigger.sigma, cold.sigma, "four times the bodies is far from what was measured");
    let near = at(&features(51_000, 0.2, 1.0));
    assert!(near.sigma > warm.sigma && near.sigma < cold.sigma, "2% more bodies: a little less sure");
    // Another regime keeps its own correction.
    let slow = features(50_000, 0.001, 1.0);
    assert_ne!(Regime::of(&slow), Regime::of(&f));
    assert_eq!(at(&slow).sigma, cold.sigma);
    // A candidate the prior does not know is wide open (and wider still where the prior was found three times
    // off on b).
    let unknown = model.predict(2, 0, base_a, &f, 0).sigma;
    assert!((unknown - UNKNOWN_SIGMA.hypot(3f64.ln())).abs() < 1e-9, "{unknown}");
    let fresh = CostModel::new(model.prior().clone(), &[a, b, "never-calibrated"]);
    assert_eq!(fresh.predict(2, 0, base_a, &f, 0).sigma, UNKNOWN_SIGMA);
    assert_eq!(Regime::of(&f).label(), "fast/crowded/moving");
}

#[test]
fn a_prior_found_wrong_on_this_scene_widens_the_candidates_never_measured_here() {
    let prior = Prior::builtin();
    let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    let names: Vec<&'static str> = prior.fits.iter().take(4).map(|f| leak(&f.name)).collect();
    let mut model = CostModel::new(prior, &names);
    let f = features(100_000, 0.2, 1.0);
    let base = |m: &CostModel, c: usize| m.base(c, &f).0;
    let (a_ms, prior_sigma) = (base(&model, 0), model.base(3, &f).1);
    let d = |m: &CostModel| m.predict(3, 0, a_ms, &f, 20);
    assert_eq!(d(&model).sigma, prior_sigma, "nothing measured: the prior's residual");
    // b measured just as the prior said: the prior holds here, d keeps its residual.
    model.observe_probe(1, 0, &f, 10, base(&model, 1), a_ms);
    assert!((d(&model).sigma - prior_sigma).abs() < 1e-12, "{}", d(&model).sigma);
    // c measured at a quarter of what the prior said, b as said: the prior's error here is the root mean square
    // of ln 1 and ln 4 — and d, never measured, is that much less sure; its expected cost does not move.
    let before = d(&model).ms;
    model.observe_probe(2, 0, &f, 12, base(&model, 2) / 4.0, a_ms);
    let surprise = (4f64.ln().powi(2) / 2.0).sqrt();
    assert!((d(&model).sigma - prior_sigma.hypot(surprise)).abs() < 1e-9, "{}", d(&model).sigma);
    assert!((d(&model).ms - before).abs() < 1e-9 * before);
    // What was measured is as sure as its measurement: b's own uncertainty is not widened.
    assert!((model.predict(1, 0, a_ms, &f, 10).sigma - MEASURED_SIGMA).abs() < 1e-9);
    // In another regime nothing was measured: the prior's residual there.
    let slow = features(100_000, 0.001, 1.0);
    assert_ne!(Regime::of(&slow), Regime::of(&f));
    assert_eq!(model.predict(3, 0, model.base(0, &slow).0, &slow, 20).sigma, model.base(3, &slow).1);
}

/// Both scouts of a sampled probe are fresh; the active candidate's instance on the scene may be old, when it is
/// a structure kept from frame to frame (a dynamic tree in a fast stream: on rapier's free fall at 10⁵ bodies it ran 5× dearer a body than its scout on the
/// sub-box). Its factor is taken out of the sample's ratio, so the sampled candidate is carried to the scene by
/// its own scout; and when the aged candidate is later the one sampled, its fresh scout is charged the factor.
#[test]
fn a_sample_beside_an_aged_active_candidate_carries_the_sampled_one_by_its_own_scout() {
    let prior = Prior::builtin();
    let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    let names = [leak(&prior.fits[0].name), leak(&prior.fits[1].name)];
    let f = features(100_000, 0.2, 1.0);
    let at = Features { n: 4_000, ..f };
    let model = CostModel::new(prior, &names);
    let (a_scene, a_scout, b_scout) = (model.base(0, &f).0, model.base(0, &at).0, model.base(1, &at).0);
    // `a` active at `aged` times what its scout says, b's scout at 0.8 of a's.
    let sampled = |aged: f64, settles: bool| {
        let mut m = model.clone();
        m.observe_sample(1, 0, &f, at.n, 10, (0.8 * b_scout, a_scout), aged * a_scene, settles);
        (m.predict(1, 0, aged * a_scene, &f, 10).ms, m)
    };
    let (young, _) = sampled(1.0, true);
    assert_eq!(model.aged(0, &f, &at, a_scout, a_scene), 1.0);
    // Just below the threshold the active's frame carries the ratio, as before: b predicted that much dearer.
    let (near, _) = sampled(0.99 * AGED_FROM, true);
    assert!((near / young - 0.99 * AGED_FROM).abs() < 1e-9, "{near} against {young}");
    // Five times: b is what its scout says, whatever the old active costs.
    let (old, mut m) = sampled(5.0, true);
    assert!((model.aged(0, &f, &at, a_scout, 5.0 * a_scene) - 5.0).abs() < 1e-9);
    assert!((old / young - 1.0).abs() < 1e-9, "{old} against {young}");
    // An active candidate rebuilt every frame is never judged aged: its frame carries the ratio.
    let (rebuilt, r) = sampled(5.0, false);
    assert!((rebuilt / young - 5.0).abs() < 1e-9, "{rebuilt} against {young}");
    assert_eq!(r.aged[0], [1.0; Regime::COUNT]);
    // b active now, at what was predicted; a sampled beside it, its scout as young as before. Its factor stays:
    // it is predicted dearer by it than a model that never saw it aged predicts.
    let again = |m: &mut CostModel| {
        m.observe_sample(0, 1, &f, at.n, 80, (a_scout, 0.8 * b_scout), young, false);
        m.predict(0, 1, young, &f, 80).ms
    };
    let r = Regime::of(&f).0 as usize;
    assert!((m.aged[0][r] - 5.0).abs() < 1e-9, "the factor is kept: {}", m.aged[0][r]);
    let mut remembered = model.clone();
    remembered.aged[0] = m.aged[0];
    let (charged, fresh) = (again(&mut remembered), again(&mut model.clone()));
    assert!((charged / fresh - 5.0).abs() < 1e-6, "{charged} against {fresh}");
    // In another regime (the bodies come to rest) the old tree is as cheap as its scout: nothing is charged.
    let resting = Features { speed_mean: 0.001, resting: 0.9, ..f };
    assert_ne!(Regime::of(&resting), Regime::of(&f));
    let at_rest = |m: &mut CostModel| {
        m.observe_sample(0, 1, &resting, at.n, 80, (a_scout, 0.8 * b_scout), young, false);
        m.predict(0, 1, young, &resting, 80).ms
    };
    let (charged, fresh) = (at_rest(&mut remembered), at_rest(&mut model.clone()));
    assert!((charged / fresh - 1.0).abs() < 1e-9, "{charged} against {fresh}");
    // Forgetting the scene forgets the factor.
    m.forget();
    assert_eq!(m.aged[0], [1.0; Regime::COUNT]);
}
