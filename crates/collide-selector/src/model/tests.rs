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

/// `got` equals `want` to a relative 1e-12 (values worked out by other arithmetic than the model's).
fn close(got: f64, want: f64) -> bool {
    (got / want - 1.0).abs() < 1e-12
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

/// A prior of two constant fits (`a`: 2 ms, build 8; `b`: 3 ms, build 5) and one anchor at `f`'s coordinates.
fn anchored_prior(f: &Features, steady: [f64; 2], build: [f64; 2]) -> Prior {
    let mut prior = constant_prior(&[("a", 2.0, 0.2, 8.0), ("b", 3.0, 0.3, 5.0)]);
    prior.anchors.push(Anchor { x: Anchor::coordinates(f), steady: steady.to_vec(), build: build.to_vec() });
    prior
}

/// An anchor's coordinates are the regressors but the constant and `ln² n`, in order.
#[test]
fn anchor_coordinates_are_the_regressors_without_the_constant_and_the_square() {
    let f = Features { clustering: 2.0, size_spread: 4.0, resting: 0.25, ..features(5_000, 0.3, 2.0) };
    let r = f.regressors();
    assert_eq!(Anchor::coordinates(&f), [r[1], r[3], r[4], r[5], r[6], r[7]]);
}

/// The prior's prediction is the fit times `e^correction`, the correction the anchors' residuals weighted by a
/// Gaussian kernel of their distance and shrunk by [`ANCHOR_SHRINK`]: at the anchor itself, `r / (1 + 0.1)`;
/// one scale away along one coordinate, `r·e^−½ / (e^−½ + 0.1)`; beyond √40 scales, nothing. A NaN residual (a
/// candidate not measured there) corrects nothing. The build is corrected by the build residuals alike.
#[test]
fn the_prior_predicts_each_fit_corrected_by_the_anchors_near_the_query() {
    let f = features(10_000, 0.2, 1.0);
    let prior = anchored_prior(&f, [0.5, f64::NAN], [-0.3, 0.2]);
    let (ms, rmse) = prior.predict("a", &f).unwrap();
    assert!(close(ms, 2.0 * (0.5f64 / 1.1).exp()) && rmse == 0.2, "{ms} {rmse}");
    assert!(close(prior.predict("b", &f).unwrap().0, 3.0), "a NaN residual corrects nothing");
    let (build, build_rmse) = prior.predict_build("a", &f).unwrap();
    assert!(close(build, 8.0 * (-0.3f64 / 1.1).exp()) && build_rmse == 0.1, "{build} {build_rmse}");
    assert!(close(prior.predict_build("b", &f).unwrap().0, 5.0 * (0.2f64 / 1.1).exp()));
    // One scale of ln n away (ln n up by 0.5: n × e^0.5).
    let g = Features { n: (10_000.0 * 0.5f64.exp()).round() as usize, ..f };
    let d = (Anchor::coordinates(&g)[0] - Anchor::coordinates(&f)[0]) / 0.5;
    let w = (-0.5 * d * d).exp();
    assert!(close(prior.predict("a", &g).unwrap().0, 2.0 * (0.5 * w / (w + 0.1)).exp()));
    // Far away: the fit alone.
    let far = features(10_000_000, 0.2, 1.0);
    assert!(close(prior.predict("a", &far).unwrap().0, 2.0) && close(prior.predict_build("a", &far).unwrap().0, 8.0));
    // By name: each fit its own, an unknown name none.
    assert_eq!(prior.fit("b").map(|fit| fit.rmse), Some(0.3));
    assert_eq!(prior.fit("a").map(|fit| fit.name.as_str()), Some("a"));
    assert!(prior.fit("c").is_none() && prior.predict("c", &f).is_none() && prior.predict_build("c", &f).is_none());
    // A model of the candidates reads the same prediction, whether prepared for the features or not.
    let mut model = CostModel::new(prior.clone(), &["b", "a"]);
    let unprepared = model.base(1, &f);
    model.prepare(&f);
    let prepared = model.base(1, &f);
    assert!(close(unprepared.0, ms) && close(prepared.0, ms), "{unprepared:?} {prepared:?}");
    assert!(close(model.build(1, &f, 0.0), build), "{}", model.build(1, &f, 0.0));
}

/// A prior whose fit has a non-finite weight, or a non-finite residual, or whose anchor has the wrong number of
/// steady or build residuals, is refused, naming what is wrong.
#[test]
fn a_prior_with_a_broken_fit_or_anchor_is_refused() {
    let f = features(10_000, 0.2, 1.0);
    let good = anchored_prior(&f, [0.5, 0.1], [0.1, 0.2]);
    assert!(Prior::parse(&good.to_toml()).is_ok());
    let mut nan_weight = good.clone();
    nan_weight.fits[1].weights[3] = f64::NAN;
    let mut nan_rmse = good.clone();
    nan_rmse.fits[0].rmse = f64::INFINITY;
    for broken in [nan_weight, nan_rmse] {
        let e = Prior::parse(&broken.to_toml()).unwrap_err();
        assert!(e.contains("has a non-finite weight or residual"), "{e}");
    }
    let mut short_steady = good.clone();
    short_steady.anchors[0].steady.pop();
    let mut short_build = good;
    short_build.anchors[0].build.pop();
    for broken in [short_steady, short_build] {
        let e = Prior::parse(&broken.to_toml()).unwrap_err();
        assert!(e.contains("residuals for 2 fits"), "{e}");
    }
}

/// The kernel's cut-off keeps an anchor at exactly √40 scales (weight e^−20) and drops one a hair beyond: at
/// the query `n = 1`, no pairs (both coordinates 0), an anchor 3 along `ln n` (6 scales) and 0.5 along the pairs
/// (2 scales) is at a squared distance of exactly 40.
#[test]
fn an_anchor_at_the_kernel_s_cut_off_still_counts_and_one_beyond_does_not() {
    let f = Features { n: 1, pairs_per_body: 0.0, ..features(1, 0.2, 0.0) };
    let prior_at = |x0: f64| {
        let mut prior = anchored_prior(&f, [3.0, 3.0], [0.0, 0.0]);
        prior.anchors[0].x[0] = x0;
        prior.anchors[0].x[1] = 0.5;
        prior
    };
    let w = (-20f64).exp();
    let at_cut = prior_at(3.0).predict("a", &f).unwrap().0;
    assert!((at_cut / (2.0 * (3.0 * w / (w + 0.1)).exp()) - 1.0).abs() < 1e-14, "{at_cut}");
    assert!(at_cut > 2.0);
    assert_eq!(prior_at(3.0 + 1e-9).predict("a", &f).unwrap().0, 2.0);
}

/// Rows with only the constant and `ln(1 + pairs per body)` varying (one body, speed 0.999, nothing resting,
/// no spread, no clustering: the other regressors 0): the ridge fit is the 2 × 2 system `[m, Σx; Σx, Σx² + λ]
/// w = [Σy, Σxy]` with `λ = 0.01·m`, solved here by Cramer's rule; the other weights are 0. Rows whose ms is not
/// a positive finite number are left out, and two rows are enough.
#[test]
fn the_ridge_fit_solves_the_shrunk_normal_equations() {
    let row = |ppb: f64, ms: f64| (Features { n: 1, resting: 0.0, ..features(1, 0.999, ppb) }, ms);
    assert!(row(0.0, 1.0).0.regressors()[4].abs() < 1e-15, "ln(0.999 + 0.001) is 0");
    let rows = [row(1.0, 2.0), row(3.0, 5.0), row(7.0, 4.0)];
    let (x, y): (Vec<f64>, Vec<f64>) = rows.iter().map(|(f, ms)| (f.regressors()[3], ms.ln())).unzip();
    let m = rows.len() as f64;
    let (sx, sxx) = (x.iter().sum::<f64>(), x.iter().map(|x| x * x).sum::<f64>() + 0.01 * m);
    let (sy, sxy) = (y.iter().sum::<f64>(), x.iter().zip(&y).map(|(x, y)| x * y).sum::<f64>());
    let det = m * sxx - sx * sx;
    let (w0, w3) = ((sy * sxx - sx * sxy) / det, (m * sxy - sx * sy) / det);
    let (w, rmse) = fit_rows(&rows).unwrap();
    assert!((w[0] - w0).abs() < 1e-9 && (w[3] - w3).abs() < 1e-9, "{w:?} against {w0}, {w3}");
    assert!(w.iter().enumerate().filter(|&(k, _)| k != 0 && k != 3).all(|(_, w)| w.abs() < 1e-9), "{w:?}");
    let sse: f64 = x.iter().zip(&y).map(|(x, y)| (w0 + w3 * x - y).powi(2)).sum();
    assert!((rmse - (sse / m).sqrt()).abs() < 1e-9, "{rmse}");
    // Unusable rows change nothing.
    let mut noisy = rows.to_vec();
    noisy.extend([row(2.0, 0.0), row(2.0, -1.0), row(2.0, f64::NAN), row(2.0, f64::INFINITY)]);
    assert_eq!(fit_rows(&noisy), fit_rows(&rows));
    assert!(fit_rows(&rows[..2]).is_some(), "two rows are enough");
    assert!(fit_rows(&noisy[3..]).is_none(), "no usable row");
}

/// Gaussian elimination gives the solution of a dense system (built from a known one), and refuses a pivot
/// below 1e-12 while taking one of exactly 1e-12.
#[test]
fn solve_finds_a_known_solution_and_refuses_a_vanishing_pivot() {
    let x: [f64; REGRESSORS] = std::array::from_fn(|i| i as f64 - 2.5);
    let a: [[f64; REGRESSORS]; REGRESSORS] = std::array::from_fn(|i| {
        std::array::from_fn(|j| if i == j { 10.0 } else { ((i * 7 + j * 3) % 5) as f64 - 2.0 })
    });
    let b: [f64; REGRESSORS] = std::array::from_fn(|i| (0..REGRESSORS).map(|j| a[i][j] * x[j]).sum());
    let got = solve(a, b).unwrap();
    assert!(got.iter().zip(x).all(|(g, x)| (g - x).abs() < 1e-12), "{got:?} against {x:?}");
    let diagonal = |d: f64| -> [[f64; REGRESSORS]; REGRESSORS] {
        std::array::from_fn(|i| std::array::from_fn(|j| if i == j { d } else { 0.0 }))
    };
    let ones = [1.0; REGRESSORS];
    assert_eq!(solve(diagonal(1e-12), ones), Some([1e12; REGRESSORS]));
    assert_eq!(solve(diagonal(1e-13), ones), None);
}

/// The regimes' bins: speed below 0.01 slow, below 0.1 moving, else fast; pairs per body below 1 sparse,
/// below 8 crowded, else packed; resting from a half. Each boundary belongs to the bin above it, and each of
/// the 18 regimes has its own label.
#[test]
fn regimes_bin_at_their_documented_boundaries_and_label_every_bin() {
    let label =
        |speed: f64, ppb: f64, resting: f64| Regime::of(&Features { resting, ..features(1000, speed, ppb) }).label();
    assert_eq!(label(0.0099, 0.99, 0.49), "slow/sparse/moving");
    assert_eq!(label(0.01, 1.0, 0.5), "moving/crowded/resting");
    assert_eq!(label(0.0999, 7.99, 0.0), "moving/crowded/moving");
    assert_eq!(label(0.1, 8.0, 1.0), "fast/packed/resting");
    let mut labels = Vec::new();
    for speed in [0.0, 0.05, 1.0] {
        for ppb in [0.0, 2.0, 20.0] {
            for resting in [0.0, 1.0] {
                let r = Regime::of(&Features { resting, ..features(1000, speed, ppb) });
                assert!(usize::from(r.0) < Regime::COUNT);
                labels.push(r.label());
            }
        }
    }
    let speeds = ["slow", "moving", "fast"];
    let crowds = ["sparse", "crowded", "packed"];
    let expected: Vec<String> = speeds
        .iter()
        .flat_map(|s| crowds.iter().flat_map(move |c| ["moving", "resting"].map(|r| format!("{s}/{c}/{r}"))))
        .collect();
    assert_eq!(labels, expected);
}

/// `prepare` computes the prior's predictions once for a frame's features, the same as asked afresh; the
/// anchors' corrections are computed again only when the features moved by a tenth of a kernel scale: a
/// little closer, the last ones are kept (a few percent at most); farther, they are computed anew.
#[test]
fn prepared_predictions_match_fresh_ones_and_keep_their_corrections_within_the_drift() {
    let f = features(10_000, 0.2, 1.0);
    let prior = anchored_prior(&f, [1.0, 0.5], [0.4, 0.0]);
    let exact = |g: &Features| (prior.predict("a", g).unwrap().0, prior.predict_build("a", g).unwrap().0);
    let mut model = CostModel::new(prior.clone(), &["a", "b"]);
    model.prepare(&f);
    assert!((model.base(0, &f).0 / exact(&f).0 - 1.0).abs() < 1e-12);
    assert!((model.build(0, &f, 0.0) / exact(&f).1 - 1.0).abs() < 1e-12);
    // n × e^0.04: 0.08 scales of ln n, within the drift: the fit moves, the correction does not.
    let near = Features { n: (10_000.0 * 0.04f64.exp()).round() as usize, ..f };
    let kept = |g: &Features| {
        let fit = prior.fit("a").unwrap();
        fit.steady_ms(g) * (1.0f64 / 1.1).exp()
    };
    model.prepare(&near);
    assert!(
        (model.base(0, &near).0 / kept(&near) - 1.0).abs() < 1e-12,
        "{} against {}",
        model.base(0, &near).0,
        kept(&near)
    );
    assert!((exact(&near).0 / kept(&near) - 1.0).abs() > 1e-4, "the exact correction differs there");
    // n × e^0.06 from the first: 0.12 scales, beyond the drift: computed anew.
    let far = Features { n: (10_000.0 * 0.06f64.exp()).round() as usize, ..f };
    model.prepare(&far);
    assert!((model.base(0, &far).0 / exact(&far).0 - 1.0).abs() < 1e-12);
    // Exactly a tenth of a scale away (resting 0.015 against 0, at a scale of 0.15): kept; a hair beyond: anew.
    let mut model = CostModel::new(prior.clone(), &["a", "b"]);
    model.prepare(&f);
    let at_drift = Features { resting: 0.015, ..f };
    model.prepare(&at_drift);
    assert!((model.base(0, &at_drift).0 / kept(&at_drift) - 1.0).abs() < 1e-12, "at the drift: kept");
    assert!((exact(&at_drift).0 / kept(&at_drift) - 1.0).abs() > 1e-6);
    let beyond = Features { resting: 0.0151, ..f };
    model.prepare(&beyond);
    assert!((model.base(0, &beyond).0 / exact(&beyond).0 - 1.0).abs() < 1e-12, "beyond the drift: anew");
    // A model never prepared answers exactly everywhere.
    let fresh = CostModel::new(prior.clone(), &["a", "b"]);
    assert!((fresh.base(0, &near).0 / exact(&near).0 - 1.0).abs() < 1e-12);
}

/// Builds are predicted at the common level (how much dearer than the prior the active candidate runs), times
/// what the candidate's measured builds taught: each measurement moves the build's offset half way to what it
/// measured. A measurement that is not a positive finite number, or at an unknown level, teaches nothing. A
/// candidate the prior does not know is predicted at the geometric mean of the known ones, its build at two
/// such frames, prepared or not. The level is the active candidate's own, its learned offset taken out.
#[test]
fn builds_are_predicted_at_the_common_level_and_learned_half_way() {
    let prior = constant_prior(&[("a", 2.0, 0.2, 8.0), ("b", 3.0, 0.3, 5.0)]);
    let f = features(10_000, 0.2, 1.0);
    for prepared in [false, true] {
        let mut model = CostModel::new(prior.clone(), &["a", "b", "u"]);
        if prepared {
            model.prepare(&f);
        }
        let level = model.level(0, 4.0, &f);
        assert!(close(level, 2f64.ln()), "a at twice its prior: {level}");
        assert!(close(model.build(1, &f, level), 10.0));
        model.observe_build(1, &f, level, 40.0);
        assert!(close(model.build(1, &f, level), 20.0), "half way to 4×: {}", model.build(1, &f, level));
        model.observe_build(1, &f, level, 40.0);
        assert!(close(model.build(1, &f, level), 10.0 * 2f64.powf(1.5)));
        for (ms, at) in [(0.0, level), (-1.0, level), (f64::NAN, level), (f64::INFINITY, level), (40.0, f64::NAN)] {
            model.observe_build(1, &f, at, ms);
        }
        assert!(close(model.build(1, &f, level), 10.0 * 2f64.powf(1.5)), "nothing learned from nonsense");
        // The candidate the prior does not know.
        let (ms, sigma) = model.base(2, &f);
        assert!(close(ms, 6f64.sqrt()) && sigma == UNKNOWN_SIGMA, "{ms} {sigma}");
        assert!(close(model.build(2, &f, 0.0), 2.0 * 6f64.sqrt()));
        // b measured at twice the prior's ratio to a: b's offset is ln 2, and the level b measures as the active
        // candidate takes it out.
        model.observe_probe(1, 0, &f, 10, 6.0, 2.0);
        assert!(close(model.predict(1, 0, 2.0, &f, 10).ms, 6.0));
        assert!(model.level(1, 6.0, &f).abs() < 1e-12, "{}", model.level(1, 6.0, &f));
    }
}

/// A candidate's learned offset: the first measurement is taken whole; a later one that agrees with it (within
/// twice their combined uncertainty) is combined by precision, what was known counting with the uncertainty its
/// age gave it; one that disagrees replaces it. Offsets are relative to the active candidate's own. A ratio or
/// an active cost that is not a positive finite number, or a candidate measured against itself, teaches nothing.
#[test]
fn measurements_that_agree_combine_by_precision_and_one_that_disagrees_replaces() {
    let prior = constant_prior(&[("a", 2.0, 0.5, 8.0), ("b", 3.0, 0.5, 5.0), ("c", 1.0, 0.5, 1.0)]);
    let f = features(10_000, 0.2, 1.0);
    let mut model = CostModel::new(prior, &["a", "b", "c"]);
    // b measured at 2× its prior ratio to a (1.5), sure to 0.1.
    model.observe(1, 0, &f, &f, 10, 3.0, 2.0, 0.1);
    let first = model.predict(1, 0, 2.0, &f, 10);
    assert!(close(first.ms, 6.0) && close(first.sigma, 0.1), "{first:?}");
    // Nonsense changes nothing.
    for (ratio, active_ms) in
        [(0.0, 2.0), (-3.0, 2.0), (f64::NAN, 2.0), (f64::INFINITY, 2.0), (3.0, 0.0), (3.0, f64::NAN)]
    {
        model.observe(1, 0, &f, &f, 10, ratio, active_ms, 0.1);
    }
    model.observe(0, 0, &f, &f, 10, 5.0, 2.0, 0.1);
    assert_eq!(model.predict(1, 0, 2.0, &f, 10), first);
    assert!(close(model.predict(0, 0, 2.0, &f, 10).ms, 2.0), "the active one against itself");
    // 2.4× at 0.3, a frame later (age 1/3600): within 2·√(0.1² + 0.3²) of ln 2, combined by precision.
    model.observe(1, 0, &f, &f, 11, 3.6, 2.0, 0.3);
    let known = 0.1f64 + 1.0 / 3600.0;
    let (p_known, p_new) = (known.powi(-2), 0.3f64.powi(-2));
    let rel = (2f64.ln() * p_known + 2.4f64.ln() * p_new) / (p_known + p_new);
    let combined = model.predict(1, 0, 2.0, &f, 11);
    assert!(close(combined.ms, 3.0 * rel.exp()), "{} against {}", combined.ms, 3.0 * rel.exp());
    assert!(close(combined.sigma, (p_known + p_new).powf(-0.5)), "{}", combined.sigma);
    // 20× disagrees: it replaces what was known.
    model.observe(1, 0, &f, &f, 12, 30.0, 2.0, 0.3);
    let replaced = model.predict(1, 0, 2.0, &f, 12);
    assert!(close(replaced.ms, 60.0) && close(replaced.sigma, 0.3), "{replaced:?}");
    // With b active at the 60 ms predicted, a measured at 0.5× b: relative to b's offset (ln 20), a's is
    // ln(0.5 / (2/3)) + ln 20.
    model.observe(0, 1, &f, &f, 13, 0.5, 60.0, 0.1);
    let a = model.predict(0, 1, 60.0, &f, 13);
    assert!(close(a.ms, 30.0), "a at half of b's 60 ms: {}", a.ms);
    assert!(close(model.learned[0][Regime::of(&f).0 as usize].rel, (0.5f64 / (2.0 / 3.0)).ln() + 20f64.ln()));
    // c, never measured, is as unsure as the prior was found wrong here relative to b: a at 0.75 of its ratio.
    let c = model.predict(2, 1, 60.0, &f, 13);
    assert!(close(c.sigma, 0.5f64.hypot(0.75f64.ln())), "{}", c.sigma);
    // The level b was measured at: its cost over its prior (20×), its own offset (ln 20) taken out.
    assert!(model.learned[0][Regime::of(&f).0 as usize].level.abs() < 1e-12);
}

/// What was known counts with the uncertainty the features' drift since gave it, and the test of agreement is
/// twice the combined uncertainty: 0.8 apart at uncertainties of 0.1 and 0.3 (2·√(0.1² + 0.3²) = 0.63)
/// disagrees, and replaces what was known.
#[test]
fn a_measurement_elsewhere_weighs_less_and_one_beyond_twice_the_uncertainty_replaces() {
    let prior = constant_prior(&[("a", 2.0, 0.5, 8.0), ("b", 3.0, 0.5, 5.0)]);
    let f = features(10_000, 0.2, 1.0);
    let rel = |m: &CostModel| m.learned[1][Regime::of(&f).0 as usize].rel;
    let mut model = CostModel::new(prior, &["a", "b"]);
    model.observe(1, 0, &f, &f, 10, 3.0, 2.0, 0.1); // rel ln 2
    // At 1.5 × e^0.2 bodies (a drift of 0.2 in ln n): known at 0.1 + 0.2, the new one at 0.1.
    let g = Features { n: (10_000.0 * 0.2f64.exp()).round() as usize, ..f };
    let drift = (g.regressors()[1] - f.regressors()[1]).abs();
    model.observe(1, 0, &g, &g, 10, 3.3, 2.0, 0.1); // target ln 2.2
    let (p_known, p_new) = ((0.1 + drift).powi(-2), 0.1f64.powi(-2));
    assert!(close(rel(&model), (2f64.ln() * p_known + 2.2f64.ln() * p_new) / (p_known + p_new)), "{}", rel(&model));
    // 0.8 above a fresh measurement at 0.1, measured at 0.3: replaced.
    let mut model = CostModel::new(model.prior().clone(), &["a", "b"]);
    model.observe(1, 0, &f, &f, 10, 3.0, 2.0, 0.1);
    model.observe(1, 0, &f, &f, 10, 3.0 * 0.8f64.exp(), 2.0, 0.3);
    assert!(close(rel(&model), 2f64.ln() + 0.8), "{}", rel(&model));
}
