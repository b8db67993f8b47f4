use super::*;

/// Without `COLLIDE_REQUIRE_GPU` the golden-image and screenshot tests would pass on a machine with no adapter
/// without checking anything.
#[test]
fn the_workspace_tests_run_with_a_required_gpu() {
    assert!(gpu_env("gl").contains(&("COLLIDE_REQUIRE_GPU", "1")));
    assert!(gpu_env("vulkan").contains(&("WGPU_BACKEND", "vulkan")));
}

/// The packaging step finds every library crate of the workspace by its manifest, and leaves out what is not
/// published to crates.io.
#[test]
fn every_library_crate_is_packaged_and_nothing_marked_unpublished() {
    let crates = packaged_crates(&crate::root().join("crates")).unwrap();
    for expected in ["collide-math", "collide-broadphase", "collide-algorithms", "collide-selector", "collide-sim"] {
        assert!(crates.iter().any(|c| c == expected), "{expected} missing from {crates:?}");
    }
    assert!(!crates.iter().any(|c| c == "collide-py"), "the Python module is packaged by maturin, not cargo");
    assert_eq!(package_name("[package]\nname = \"a-b\"\nversion = \"1\"\n"), Some("a-b"));
    assert!(!publishable("[package]\nname = \"x\"\npublish = false\n"));
    assert!(publishable("[package]\nname = \"x\"\n"));
}

/// A second packaging run must not build against the first run's extracted sources: the earlier extractions of the
/// packaged crates are found in every registry's folder, and nothing else is.
#[test]
fn the_packaged_crates_earlier_extractions_are_found_and_nothing_else() {
    let src = std::env::temp_dir().join(format!("collide-stale-extractions-{}", std::process::id()));
    let folders = [
        "local-a/collide-bvh-0.1.0",
        "local-b/collide-bvh-0.2.0",
        "local-a/collide-bvh-extra-0.1.0",
        "index-c/rayon-1.12.0",
        "index-c/collide-math-0.1.0",
        "index-c/collide-bvhx-0.1.0",
    ];
    for folder in folders {
        std::fs::create_dir_all(src.join(folder)).unwrap();
    }
    let names = vec!["collide-bvh".to_owned(), "collide-math".to_owned()];
    let found = stale_extractions(&src, &names);
    let want: Vec<_> = ["index-c/collide-math-0.1.0", "local-a/collide-bvh-0.1.0", "local-b/collide-bvh-0.2.0"]
        .map(|f| src.join(f))
        .into();
    assert_eq!(found, want);
    assert!(stale_extractions(&src.join("missing"), &names).is_empty());
    std::fs::remove_dir_all(&src).unwrap();
}
