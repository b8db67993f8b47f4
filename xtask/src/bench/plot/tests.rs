use super::*;

#[test]
fn tick_labels_are_short() {
    assert_eq!(number(100_000.0), "100k");
    assert_eq!(number(2_500_000.0), "2.5M");
    assert_eq!(number(1000.0), "1000");
    assert_eq!(number(12.0), "12");
    assert_eq!(number(0.05), "0.05");
    assert_eq!(number(0.00002), "2.0e-5");
    assert_eq!(number(0.0), "0");
}

#[test]
fn ranges_skip_unusable_points_and_pad() {
    let mut c = Chart::new("t", "x", "y").log(true, true);
    c.series.push(Series::line("a", vec![(0.0, 1.0), (10.0, 0.0), (100.0, 5.0), (1000.0, 50.0)]));
    assert_eq!(data_ranges(&c), Some(((100.0, 1000.0), (5.0, 50.0))));
    assert_eq!(pad(0.5, 10.0, false, 1.0).0, 0.0);
    let (lo, hi) = pad(1.0, 1.0, true, 1.0);
    assert!(lo < 1.0 && hi > 1.0);
}

#[test]
fn a_bar_chart_draws_to_a_png() {
    register_font().unwrap();
    let mut c = Chart::new("bars", "ratio", "scene");
    c.series.push(Series {
        label: "r".into(),
        points: vec![(1.2, 0.0), (f64::NAN, 1.0), (0.9, 2.0)],
        style: Style::Bars,
        color: None,
    });
    c.bar_names = vec!["uniform 1.20".into(), "rain".into(), "slow 0.90".into()];
    c.series.push(Series::styled("target", vec![(1.15, -0.5), (1.15, 2.5)], Style::Dashed, FPS30));
    assert_eq!(data_ranges(&c), Some(((0.9, 1.2), (-0.5, 2.5))), "the NaN bar is left out");
    let path = std::env::temp_dir().join(format!("collide-bench-bars-{}.png", std::process::id()));
    draw(&path, &[c]).unwrap();
    assert_eq!(&std::fs::read(&path).unwrap()[1..4], b"PNG");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_chart_draws_to_a_png() {
    register_font().unwrap();
    let mut c = Chart::new("test chart", "bodies", "relative dt (dt / 16.67 ms)").log(true, true);
    c.series.push(Series::line("alg", vec![(1000.0, 0.1), (10_000.0, 1.5)]));
    c.add_fps_lines((1000.0, 10_000.0), Some((1000.0, 0.1)));
    let empty = Chart::new("empty", "x", "y");
    let path = std::env::temp_dir().join(format!("collide-bench-plot-{}.png", std::process::id()));
    draw(&path, &[c, empty]).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    let _ = std::fs::remove_file(&path);
}
