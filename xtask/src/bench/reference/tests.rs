use super::*;

#[test]
fn only_the_matching_workload_is_read() {
    let text = "program,algorithm,n,speed_factor,scenario,dt_mode,frames,mean_ms,p95_ms,max_ms,notes\n\
kredenac/collision-detection,sweep_and_prune,1000,1.0,uniform_random,fixed_1/60,300,0.274,0.328,0.396,\n\
kredenac/collision-detection,sweep_and_prune,50000,1.0,uniform_random,real_elapsed,0,,,,\n\
kredenac/collision-detection,brute_force,50000,1.0,uniform_random,fixed_1/60,0,,,,\n\
kredenac/collision-detection,octree_with_duplicates,1000,0.015625,uniform_random,fixed_1/60,300,0.342,1,1,\"a, b\"\n\
kredenac/collision-detection (full GLUT app under Xvfb),brute_force,1000,1.0,uniform_random,fixed_1/60,1,9,9,9,\n\
kredenac/collision-detection,octree_persistent,100,1.0,uniform_random,fixed_1/60,200,2.3,2.4,2.6,\n";
    let figures = parse(text);
    assert_eq!(figures.len(), 2, "{figures:?}");
    assert_eq!(series(&figures, "sap", 1.0), [(1000.0, 0.274)]);
    assert_eq!(series(&figures, "octree-dup", 1.0 / 64.0), [(1000.0, 0.342)]);
}

/// The committed figures: the thesis program's four algorithms at full speed, SAP and the octree also at 1/64,
/// each over the sizes the README of the reference quotes (octree-dup 8.0 ms at 10k, 352 at 100k; SAP 18.7 and
/// 646; SAP at 1/64 speed 0.65 and 28.5).
#[test]
fn the_committed_figures_are_the_thesis_programs() {
    let figures = load();
    let at = |algorithm, speed, n| {
        let s = series(&figures, algorithm, speed);
        assert!(s.len() >= 5, "{algorithm} at speed {speed}: {s:?}");
        s.iter().find(|p| p.0 == n).map(|p| p.1)
    };
    let near = |got: Option<f64>, want: f64| got.is_some_and(|g| (g - want).abs() < 0.01 * want);
    assert!(near(at("octree-dup", 1.0, 10_000.0), 8.0));
    assert!(near(at("octree-dup", 1.0, 100_000.0), 352.0));
    assert!(near(at("sap", 1.0, 10_000.0), 18.7));
    assert!(near(at("sap", 1.0, 100_000.0), 646.0));
    assert!(near(at("sap", 1.0 / 64.0, 10_000.0), 0.65));
    assert!(near(at("sap", 1.0 / 64.0, 100_000.0), 28.5));
    assert!(at("brute", 1.0, 1000.0).is_some() && at("octree-nodup", 1.0, 10_000.0).is_some());
}
