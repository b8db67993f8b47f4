//! How fast the renderer draws N spheres off-screen: `cargo run -p collide-render --example draw_rate -- 100000`.
//!
//! Spheres of radius 0.5 fill a cube at 2% volume fraction (the `uniform` scenario's density); the camera looks
//! at the cube from outside. Prints the adapter, the path (storage or instanced) and the mean frame time.

use collide_render::glam::Vec3;
use collide_render::{
    Camera, Gpu, OFFSCREEN_FORMAT, Offscreen, Renderer, Scene, SphereInstance, supported_sample_count,
};
use std::time::Instant;

fn main() -> Result<(), String> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let samples: u32 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let (w, h) = (1280, 720);
    let gpu = Gpu::headless(false)?;
    let samples = supported_sample_count(&gpu.adapter, OFFSCREEN_FORMAT, samples);
    let mut renderer = Renderer::init(&gpu.adapter, &gpu.device, OFFSCREEN_FORMAT, samples, w, h);
    let target = Offscreen::new(&gpu.device, w, h);
    let width = (n as f32 * 4.0 / 3.0 * std::f32::consts::PI * 0.125 / 0.02).cbrt();
    let mut scene = Scene {
        camera: Camera::look_to(
            Vec3::new(0.6, 0.5, 1.0) * width * 1.1,
            -Vec3::new(0.6, 0.5, 1.0),
            1.0,
            16.0 / 9.0,
            0.1,
            width * 4.0,
        ),
        ..Scene::default()
    };
    // A fixed low-discrepancy fill: reproducible without a random number generator.
    let frac = |x: f32| x - x.floor();
    scene.spheres.extend((0..n).map(|i| {
        let i = i as f32;
        let p = Vec3::new(frac(i * 0.754_877_7), frac(i * 0.569_840_3), frac(i * 0.362_130_6)) - 0.5;
        SphereInstance { center: (p * width).into(), radius: 0.5, color: [120, 160, 210, 255], flash: 0.0 }
    }));
    scene.wire_box(Vec3::splat(-width / 2.0), Vec3::splat(width / 2.0), [200; 4]);
    target.render(&gpu, &mut renderer, &scene)?;
    let frames = 10;
    let start = Instant::now();
    for _ in 0..frames {
        target.render(&gpu, &mut renderer, &scene)?;
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(frames);
    println!(
        "{} · {n} spheres · {w}×{h} · MSAA {samples}× · {ms:.1} ms per frame ({:.1} fps, incl. read-back)",
        gpu.describe(),
        1000.0 / ms
    );
    if let Some(out) = std::env::args().nth(3) {
        target.render(&gpu, &mut renderer, &scene)?.save_png(std::path::Path::new(&out))?;
    }
    Ok(())
}
