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
