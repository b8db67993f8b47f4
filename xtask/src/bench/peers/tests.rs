use super::*;

fn run(times: &[f64], check: &str, peak: u64) -> ContenderRun {
    ContenderRun { times: times.to_vec(), mean_pairs: 0.0, check: check.into(), peak_bytes: peak, status: "ok".into() }
}

/// Of a contender's rounds: each frame the median round's time (a stretch one round ran slow is dropped), the
/// largest peak heap, and a round whose pairs did not match is the one reported, whatever its time.
#[test]
fn of_several_rounds_each_frame_is_the_median_round_and_a_mismatch_is_never_hidden() {
    let runs = vec![run(&[1.0, 1.0], "ref ok", 10), run(&[3.0, 9.0], "ref ok", 30), run(&[2.0, 2.0], "ref ok", 20)];
    let median = median_run(runs);
    assert_eq!((median.times.as_slice(), median.peak_bytes), (&[2.0, 2.0][..], 30));
    // Of two, each frame the faster time.
    let median = median_run(vec![run(&[1.0, 4.0], "ref ok", 0), run(&[3.0, 2.0], "ref ok", 0)]);
    assert_eq!(median.times, [1.0, 2.0]);
    // Rounds that timed different frames (a budget cut one short): the median run's own times.
    let runs = vec![run(&[1.0, 1.0], "ref ok", 0), run(&[5.0], "ref ok", 0), run(&[9.0, 9.0], "ref ok", 0)];
    assert_eq!(median_run(runs).times, [5.0]);
    let runs = vec![run(&[1.0], "ref ok", 0), run(&[7.0], "MISMATCH vs octree-dup on 1 frames", 0)];
    assert!(median_run(runs).check.starts_with("MISMATCH"));
}
