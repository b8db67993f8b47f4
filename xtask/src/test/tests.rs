use super::*;

/// Without `COLLIDE_REQUIRE_GPU` the golden-image and screenshot tests would pass on a machine with no adapter
/// without checking anything.
#[test]
fn the_workspace_tests_run_with_a_required_gpu() {
    assert!(gpu_env("gl").contains(&("COLLIDE_REQUIRE_GPU", "1")));
    assert!(gpu_env("vulkan").contains(&("WGPU_BACKEND", "vulkan")));
}
