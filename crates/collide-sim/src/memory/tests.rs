use super::*;
use crate::Plan;

fn setup(text: &str) -> Setup {
    Plan::parse(text, "test.toml", &[]).unwrap().scene().unwrap().clone()
}

#[test]
fn the_estimate_grows_with_bodies_growth_and_frames() {
    let plain = estimate(&setup("bodies = 1000\n"), "octree-dup", 600);
    assert_eq!(plain.bodies, 1000);
    assert_eq!(plain.per_body, SIM_BYTES_PER_BODY + 750);
    assert_eq!(plain.bytes, 1000 * plain.per_body + 600 * size_of::<StepRecord>() as u64);
    let tour = estimate(&setup("scenario = \"tour\"\nbodies = 1000\n"), "octree-dup", 600);
    assert_eq!(tour.bodies, 2000, "the tour doubles");
    let unknown = estimate(&setup("bodies = 1000\n"), "not-measured-yet", 0);
    assert_eq!(unknown.per_body, SIM_BYTES_PER_BODY + 1_500, "an unlisted algorithm is estimated high");
    let small = estimate(&setup("bodies = 10000\n"), "pair-count", 0).per_body;
    let large = estimate(&setup("bodies = 80000\n"), "pair-count", 0).per_body;
    assert!(large > 3 * small, "pair counting grows per body: {small} then {large}");
    let reordered = estimate(&setup("bodies = 1000\nreorder_every = 8\n"), "octree-dup", 600);
    assert_eq!(reordered.per_body, plain.per_body + crate::Reorder::BYTES_PER_BODY, "the reorder's keys");
}

#[test]
fn a_run_that_does_not_fit_says_how_many_bodies_or_frames_would() {
    // Parsing this config would already refuse it on this machine: the count is set after.
    let mut huge = setup("bodies = 1000\n");
    huge.bodies = 2_000_000_000;
    let need = estimate(&huge, "octree-dup", 600);
    let (blame, message) = check(&need, "octree-dup", Some(8_000_000_000)).unwrap_err();
    assert_eq!(blame, TooBig::Bodies);
    assert!(message.contains("needs about 1.6 TB") && message.contains("820 bytes per body"), "{message}");
    assert!(message.contains("this machine has 8.0 GB available; about 9755") && !message.contains('\n'), "{message}");
    assert!(check(&need, "octree-dup", None).is_ok(), "nothing known of the machine: no check");
    let frames = estimate(&setup("bodies = 1000\n"), "octree-dup", 100_000_000_000);
    let (blame, message) = check(&frames, "octree-dup", Some(8_000_000_000)).unwrap_err();
    assert_eq!(blame, TooBig::Frames);
    assert!(message.contains("use at most about"), "{message}");
    assert!(check(&estimate(&setup(""), "auto", 600), "auto", Some(8_000_000_000)).is_ok(), "the default fits");
    assert_eq!((bytes(512), bytes(1_500), bytes(7_600_000_000)), ("512 B".into(), "1.5 KB".into(), "7.6 GB".into()));
}

#[test]
fn this_machine_reports_its_memory() {
    if cfg!(target_os = "linux") {
        let bytes = available().expect("/proc/meminfo");
        assert!(bytes > 64 << 20, "{bytes}");
    }
}
