use super::*;

#[test]
fn phases_accumulate_and_total() {
    let mut t = PhaseTimes::default();
    t.add(Phase::Broadphase, 2.0);
    t.add(Phase::Broadphase, 1.5);
    t.add(Phase::Walls, 0.5);
    assert_eq!(t.get(Phase::Broadphase), 3.5);
    assert_eq!(t.total(), 4.0);
    let mut timer = PhaseTimer::start();
    std::thread::sleep(std::time::Duration::from_millis(2));
    timer.end(Phase::Integrate);
    assert!(timer.times().get(Phase::Integrate) >= 2.0);
    assert_eq!(Phase::ALL.map(Phase::name)[3], "broadphase");
}
