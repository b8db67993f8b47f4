use super::*;

#[test]
fn fixed_ignores_the_wall_clock_but_honours_scale_and_pause() {
    let mut c = Clock::new(DtPolicy::Fixed { dt: 0.01 });
    assert_eq!(c.advance(5.0), Steps { count: 1, dt: 0.01 });
    c.scale = 0.5;
    assert_eq!(c.advance(0.0), Steps { count: 1, dt: 0.005 });
    c.paused = true;
    assert_eq!(c.advance(1.0).count, 0);
    c.single_step();
    assert_eq!(c.advance(1.0), Steps { count: 1, dt: 0.01 });
    assert_eq!(c.advance(1.0).count, 0);
    c.paused = false;
    c.scale = 0.0;
    assert_eq!(c.advance(1.0).count, 0, "scale 0 pauses");
}

#[test]
fn variable_follows_real_time_up_to_the_cap() {
    let mut c = Clock::new(DtPolicy::Variable).with_cap(Some(0.05));
    assert_eq!(c.advance(0.02).dt, 0.02);
    assert_eq!(c.advance(3.0).dt, 0.05, "a 3 s hitch becomes slow motion, not a 3 s jump");
    let mut uncapped = Clock::new(DtPolicy::Variable).with_scale(2.0);
    assert_eq!(uncapped.advance(3.0).dt, 6.0);
}

#[test]
fn accumulator_runs_whole_steps_and_carries_the_rest() {
    let mut c = Clock::new(DtPolicy::Accumulator { dt: 0.01, max_steps: 5 });
    assert_eq!(c.advance(0.025).count, 2);
    assert!((c.alpha() - 0.5).abs() < 1e-3);
    assert_eq!(c.advance(0.006).count, 1, "0.005 carried + 0.006");
    assert_eq!(c.advance(1.0).count, 5, "capped at max_steps");
    assert_eq!(c.alpha(), 0.0, "the backlog is dropped");
}
