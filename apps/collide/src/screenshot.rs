//! `collide --screenshot OUT.png CONFIG [--frames N]`: simulate N steps, draw the scene off-screen from the
//! app's starting camera, write a PNG. Needs no display.

use crate::app::App;
use crate::settings::Settings;
use collide_render::{Gpu, OFFSCREEN_FORMAT, Offscreen, Renderer, supported_sample_count};
use collide_sim::Plan;
use std::path::Path;

/// Render `plan` after its frames into `out`. Errors are one line for `error: …`.
pub fn run(plan: Plan, config_path: &Path, settings: Settings, out: &Path, size: (u32, u32)) -> Result<(), String> {
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!("--screenshot {}: folder {} does not exist", out.display(), dir.display()));
    }
    let frames = plan.frames();
    let mut app = App::new(plan, config_path.display().to_string(), settings)?;
    let dt = app.world.run().clock().nominal_dt();
    for _ in 0..frames {
        app.update(dt, size.0 as f32 / size.1 as f32);
    }
    let gpu = Gpu::headless(false)?;
    eprintln!("collide: adapter {}", gpu.describe());
    let samples = supported_sample_count(
        &gpu.adapter,
        OFFSCREEN_FORMAT,
        if app.settings.msaa == 0 { 4 } else { app.settings.msaa },
    );
    let mut renderer = Renderer::init(&gpu.adapter, &gpu.device, OFFSCREEN_FORMAT, samples, size.0, size.1);
    let target = Offscreen::new(&gpu.device, size.0, size.1);
    app.build_scene();
    let image = target.render(&gpu, &mut renderer, &app.drawing.scene)?;
    image.save_png(out)?;
    let bodies = app.world.run().body_count();
    println!("wrote {} ({}×{}, {bodies} bodies after {frames} steps)", out.display(), size.0, size.1);
    Ok(())
}
