//! The renderer's golden-image test: a small fixed scene drawn off-screen on a software adapter (llvmpipe
//! through GL or lavapipe through Vulkan) and compared with `tests/golden/scene.png` within
//! [`Tolerance::default`] (at most 0.02% of pixels more than 16 levels off, mean difference at most 0.25 level),
//! tight enough that the smallest sphere going missing fails it (checked here too).
//!
//! `COLLIDE_BLESS=1 cargo test -p collide-render --test golden` rewrites the golden image after an intended
//! change; look at it before committing it.
//!
//! Without an adapter the test says so and passes — except under CI (`CI` set) and under `cargo xtask test`
//! (`COLLIDE_REQUIRE_GPU=1`), where a missing adapter is a broken machine, not a reason to skip: the README's test
//! command checks what CI checks.

use collide_render::glam::{Quat, Vec3};
use collide_render::{
    BoxInstance, Camera, Gpu, OFFSCREEN_FORMAT, Offscreen, PointLight, Renderer, Scene, SphereInstance, Tolerance,
    check_golden, supported_sample_count,
};
use std::path::Path;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;

/// Nine spheres on a grid (the centre one flashing), two turned boxes, a wireframe container, a point light.
fn fixed_scene() -> Scene {
    let mut scene = Scene {
        camera: Camera::look_to(Vec3::new(0.0, 6.0, 8.0), Vec3::new(0.0, -6.0, -8.0), 0.9, 4.0 / 3.0, 0.1, 100.0),
        point_lights: vec![PointLight {
            position: Vec3::new(-2.5, 2.0, 2.0),
            color: Vec3::new(0.2, 0.4, 1.0),
            range: 4.0,
        }],
        ..Scene::default()
    };
    let palette: [[u8; 4]; 3] = [[230, 160, 40, 255], [60, 200, 90, 255], [70, 120, 230, 255]];
    for (i, color) in palette.into_iter().enumerate() {
        for j in 0..3 {
            let flash = if (i, j) == (1, 1) { 1.0 } else { 0.0 };
            scene.spheres.push(SphereInstance {
                center: [-2.0 + 2.0 * i as f32, 0.0, -2.0 + 2.0 * j as f32],
                radius: 0.4 + 0.15 * j as f32,
                color,
                flash,
            });
        }
    }
    scene.boxes.push(BoxInstance::new(
        Vec3::new(-3.2, 1.2, 0.0),
        Vec3::new(0.5, 0.3, 0.4),
        Quat::from_rotation_y(0.6) * Quat::from_rotation_x(0.4),
        [200, 200, 210, 255],
    ));
    let mut flashing =
        BoxInstance::new(Vec3::new(3.2, 1.2, 0.0), Vec3::splat(0.4), Quat::from_rotation_z(0.7), [200; 4]);
    flashing.flash = 0.5;
    scene.boxes.push(flashing);
    scene.wire_box(Vec3::splat(-4.0), Vec3::splat(4.0), [180, 180, 180, 255]);
    scene.cross(scene.point_lights[0].position, 0.2, [255, 255, 120, 255]);
    scene
}

#[test]
fn fixed_scene_matches_the_golden_image() {
    let gpu = match Gpu::headless(true) {
        Ok(gpu) => gpu,
        Err(e) if std::env::var_os("CI").is_some() || std::env::var_os("COLLIDE_REQUIRE_GPU").is_some() => {
            panic!("{e}: CI must have a software adapter (mesa's llvmpipe via EGL, or lavapipe)")
        }
        Err(e) => {
            eprintln!("skipping the golden-image test: {e}");
            return;
        }
    };
    eprintln!("adapter: {}", gpu.describe());
    let samples = supported_sample_count(&gpu.adapter, OFFSCREEN_FORMAT, 4);
    let mut renderer = Renderer::init(&gpu.adapter, &gpu.device, OFFSCREEN_FORMAT, samples, WIDTH, HEIGHT);
    let target = Offscreen::new(&gpu.device, WIDTH, HEIGHT);
    let scene = fixed_scene();
    let image = target.render(&gpu, &mut renderer, &scene).expect("render");
    let _ = image.save_png(&std::env::temp_dir().join("collide-golden-last.png"));

    // Independent of the golden file: the flashing sphere's centre is red, a plain one keeps its hue, and
    // the top middle shows the background.
    let project = |p: [f32; 3]| {
        let c = scene.camera.proj * scene.camera.view * Vec3::from(p).extend(1.0);
        let ndc = c.truncate() / c.w;
        (((ndc.x + 1.0) / 2.0 * WIDTH as f32) as u32, ((1.0 - ndc.y) / 2.0 * HEIGHT as f32) as u32)
    };
    let (x, y) = project(scene.spheres[4].center);
    let [r, g, b, _] = image.pixel(x, y);
    assert!(r > 150 && g < 90 && b < 90, "the flashing sphere should be red, got {:?}", [r, g, b]);
    let (x, y) = project(scene.spheres[6].center);
    let [r, g, b, _] = image.pixel(x, y);
    assert!(b > r && b > g, "the blue sphere should be blue, got {:?}", [r, g, b]);
    assert!(image.pixel(WIDTH / 2, 20)[..3].iter().all(|&c| c < 60), "the background should be dark");

    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/scene.png");
    match check_golden(&image, &golden, Tolerance::default()) {
        Ok(diff) => eprintln!("golden image matches: {diff}"),
        Err(e) => panic!("{e}"),
    }

    // The tolerance is tight enough to see the smallest sphere go missing.
    let mut missing = fixed_scene();
    let smallest = (0..missing.spheres.len())
        .min_by(|&a, &b| missing.spheres[a].radius.total_cmp(&missing.spheres[b].radius))
        .unwrap();
    missing.spheres.remove(smallest);
    let without = target.render(&gpu, &mut renderer, &missing).expect("render");
    let tolerance = Tolerance::default();
    let diff = without.diff(&image, tolerance.threshold).unwrap();
    eprintln!("without the smallest sphere: {diff}");
    assert!(!tolerance.accepts(&diff), "the smallest sphere went missing and the tolerance accepted it: {diff}");
}
