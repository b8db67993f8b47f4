//! The engine-loop example (`examples/engine_loop.rs`) run for every registered algorithm: bodies with handles of
//! their own, swap-removed and born every tenth frame (`on_resize`; every other time as many born as removed, so
//! that only the map tells), three quarters at rest (the motion hint, which the octrees' static tree trusts), and
//! every frame's pairs checked by the example against a double loop over the engine's bodies.

#[path = "../examples/engine_loop.rs"]
#[expect(dead_code, reason = "the example's `main` and report fields are for its command line")]
mod engine_loop;

#[test]
fn the_engine_loop_example_finds_the_brute_force_pairs_with_every_algorithm() {
    for name in collide_algorithms::names() {
        let mut engine = engine_loop::Engine::new(name, 600, 11).unwrap();
        let report = engine.run(45).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.resizes, 4, "{name}");
        assert!(report.pairs > 0, "{name}: the scene must have pairs for the check to mean something");
    }
}
