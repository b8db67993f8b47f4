use super::*;

#[test]
fn percentiles_by_nearest_rank() {
    let samples: Vec<f64> = (1..=100).map(f64::from).collect();
    let s = Summary::of(&samples);
    assert_eq!((s.count, s.min, s.p50, s.p95, s.p99, s.max), (100, 1.0, 50.0, 95.0, 99.0, 100.0));
    assert_eq!(s.mean, 50.5);
    assert_eq!(Summary::of(&[]).count, 0);
    assert_eq!(Summary::of(&[7.0]).p99, 7.0);
    assert!((relative_dt(1.0 / 30.0) - 2.0).abs() < 1e-6);
    assert!((relative_dt_ms(1000.0 / 30.0) - 2.0).abs() < 1e-6);
}

#[test]
fn recent_samples_keep_the_latest_in_order() {
    let mut w = RecentSamples::new(3);
    for x in 1..=5 {
        w.push(f64::from(x));
    }
    assert_eq!(w.iter().collect::<Vec<_>>(), [3.0, 4.0, 5.0]);
    assert_eq!(w.summary().max, 5.0);
    let mut partial = RecentSamples::new(4);
    partial.push(1.0);
    partial.push(2.0);
    assert_eq!(partial.iter().collect::<Vec<_>>(), [1.0, 2.0]);
}
