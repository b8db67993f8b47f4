//! The desktop window: winit's event loop, egui on top of the scene, the keys.
//!
//! Everything here is plumbing between winit, egui, the renderer's window surface and the [`App`]; the app's
//! logic is in `app.rs`, its panels in `ui.rs` and what each key does in `keys.rs`. The GPU side is
//! collide-render's [`SurfaceRenderer`]: this file names no wgpu item, it only lends the frame's device, queue and
//! encoder to egui's painter.

use crate::app::{App, Command, Panel, Severity, WindowCommand};
use crate::settings::CameraMode;
use collide_render::{SurfaceOptions, SurfaceRenderer};
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{DeviceEvent, ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{CursorGrabMode, Window, WindowId};

/// Options of the window run.
pub struct WindowOptions {
    /// Exit after this many frames, printing a summary (the start test and measurements).
    pub exit_after_frames: Option<u64>,
    /// The initial inner size in physical pixels.
    pub size: (u32, u32),
}

/// Open the window and run until it closes. Errors are one line for `error: …`.
pub fn run(app: App, options: WindowOptions) -> Result<(), String> {
    let event_loop = EventLoop::new()
        .map_err(|e| format!("cannot open a window: {e} (no display? try --headless or --screenshot)"))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut handler = Handler { app, options, gfx: None, error: None, measure: Measure::default() };
    let ran = event_loop.run_app(&mut handler).map_err(|e| format!("event loop: {e}"));
    // A recording still running when the window closes is kept, however the window closed.
    if let Some(text) = handler.app.finish_recording() {
        eprintln!("collide: {text}");
    }
    ran?;
    match handler.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The window and everything that draws into it, created on `resumed`.
struct Gfx {
    window: Arc<Window>,
    gpu: SurfaceRenderer,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    profiler: puffin_egui::GlobalProfilerUi,
    last_frame: Instant,
    modifiers: winit::keyboard::ModifiersState,
    orbit_drag: Option<winit::dpi::PhysicalPosition<f64>>,
}

impl Gfx {
    /// Run the panels for this frame (they read the app and queue commands).
    fn run_ui(&mut self, app: &mut App) -> egui::FullOutput {
        let raw = self.egui_state.take_egui_input(&self.window);
        let mut output = self.egui_ctx.run(raw, |ctx| crate::ui::draw(ctx, app, &mut self.profiler));
        self.egui_state.handle_platform_output(&self.window, std::mem::take(&mut output.platform_output));
        output
    }

    /// Draw the scene (unless rendering is off), egui's `ui` on top, and present. `Ok(false)` when the surface
    /// had no image this time and the frame was skipped.
    fn draw(&mut self, app: &mut App, ui: egui::FullOutput) -> Result<bool, String> {
        puffin::profile_scope!("render");
        let primitives = self.egui_ctx.tessellate(ui.shapes, ui.pixels_per_point);
        self.gpu.set_vsync(app.settings.vsync);
        let (width, height) = self.gpu.size();
        let Some(mut frame) = self.gpu.begin_frame()? else { return Ok(false) };
        if app.settings.render {
            app.build_scene();
        } else {
            // Rendering off: only the clear, so the frame's cost is the step and the panels.
            app.drawing.scene.clear_geometry();
        }
        frame.draw_scene(&app.drawing.scene);
        let screen =
            egui_wgpu::ScreenDescriptor { size_in_pixels: [width, height], pixels_per_point: ui.pixels_per_point };
        let mut overlay = frame.overlay();
        for (id, delta) in &ui.textures_delta.set {
            self.egui_renderer.update_texture(overlay.device, overlay.queue, *id, delta);
        }
        let uploads =
            self.egui_renderer.update_buffers(overlay.device, overlay.queue, overlay.encoder, &primitives, &screen);
        self.egui_renderer.render(&mut overlay.begin_pass(), &primitives, &screen);
        let window = &self.window;
        frame.present(uploads, || window.pre_present_notify());
        for id in &ui.textures_delta.free {
            self.egui_renderer.free_texture(id);
        }
        Ok(true)
    }
}

/// Sums for the summary printed by `--exit-after-frames`, after a warm-up.
#[derive(Default)]
struct Measure {
    frames: u64,
    frame_ms: f64,
    step_ms: f64,
    steps: u64,
    draw_ms: f64,
}

impl Measure {
    /// Count the frame just drawn, which took `real_ms`, unless it is a warm-up frame.
    fn add(&mut self, app: &App, real_ms: f64) {
        if app.frames <= WARMUP_FRAMES {
            return;
        }
        self.frames += 1;
        self.frame_ms += real_ms;
        if app.steps_last_frame > 0 {
            self.steps += 1;
            self.step_ms += app.last.step_ms;
        }
        self.draw_ms += app.render_ms;
    }
}

/// Frames excluded from the exit summary: shader compilation and buffer growth land in the first ones.
const WARMUP_FRAMES: u64 = 10;

struct Handler {
    app: App,
    options: WindowOptions,
    gfx: Option<Gfx>,
    error: Option<String>,
    measure: Measure,
}

impl Handler {
    fn fail(&mut self, event_loop: &ActiveEventLoop, message: String) {
        self.error = Some(message);
        event_loop.exit();
    }

    fn create_gfx(&mut self, event_loop: &ActiveEventLoop) -> Result<Gfx, String> {
        let (w, h) = self.options.size;
        let attributes = Window::default_attributes()
            .with_title(format!("collide — {}", self.app.config_path))
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h));
        let window =
            Arc::new(event_loop.create_window(attributes).map_err(|e| format!("cannot create the window: {e}"))?);
        let size = window.inner_size();
        let settings = &self.app.settings;
        let options = SurfaceOptions { size: (size.width, size.height), vsync: settings.vsync, msaa: settings.msaa };
        let gpu = SurfaceRenderer::new(window.clone(), &options)?;
        eprintln!("collide: adapter {}", gpu.describe());
        self.app.settings.msaa = gpu.sample_count();
        let egui_ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            window.as_ref(),
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.max_texture_side()),
        );
        let egui_renderer = egui_wgpu::Renderer::new(gpu.device(), gpu.format(), egui_wgpu::RendererOptions::default());
        // The step's scopes (integrate, aabbs, broadphase, …) are recorded from the first frame, so a capture
        // saved with F5 has data even if the profiler window was never opened.
        puffin::set_scopes_on(true);
        Ok(Gfx {
            window,
            gpu,
            egui_ctx,
            egui_state,
            egui_renderer,
            profiler: puffin_egui::GlobalProfilerUi::default(),
            last_frame: Instant::now(),
            modifiers: winit::keyboard::ModifiersState::empty(),
            orbit_drag: None,
        })
    }

    /// One frame: update, UI, draw, present, then the commands.
    fn frame(&mut self, event_loop: &ActiveEventLoop) {
        let Some(gfx) = self.gfx.as_mut() else { return };
        puffin::GlobalProfiler::lock().new_frame();
        let now = Instant::now();
        let real = now.duration_since(gfx.last_frame).as_secs_f32();
        gfx.last_frame = now;
        let (width, height) = gfx.gpu.size();
        self.app.update(real, width as f32 / height.max(1) as f32);
        let ui = gfx.run_ui(&mut self.app);
        let draw_start = Instant::now();
        match gfx.draw(&mut self.app, ui) {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => return self.fail(event_loop, e),
        }
        self.app.render_ms = draw_start.elapsed().as_secs_f64() * 1e3;
        self.measure.add(&self.app, f64::from(real) * 1e3);
        for command in self.app.apply_commands() {
            self.window_command(event_loop, command);
        }
        if self.options.exit_after_frames.is_some_and(|n| self.app.frames >= n) {
            self.print_summary();
            event_loop.exit();
        }
    }

    fn print_summary(&self) {
        let m = &self.measure;
        let per = |sum: f64, n: u64| if n > 0 { sum / n as f64 } else { f64::NAN };
        let frame = per(m.frame_ms, m.frames);
        eprintln!(
            "collide: {} frames ({} measured after {WARMUP_FRAMES} warm-up): {:.1} fps (frame {:.2} ms), step {:.3} ms, \
             draw {:.2} ms, {} bodies, rendering {}",
            self.app.frames,
            m.frames,
            1000.0 / frame,
            frame,
            per(m.step_ms, m.steps),
            per(m.draw_ms, m.frames),
            self.app.world.run().body_count(),
            if self.app.settings.render { "on" } else { "off" }
        );
    }

    /// Carry out what only the window can do; results and failures go to the app's status line.
    fn window_command(&mut self, event_loop: &ActiveEventLoop, command: WindowCommand) {
        let Some(gfx) = self.gfx.as_mut() else { return };
        match command {
            WindowCommand::Quit => event_loop.exit(),
            WindowCommand::CaptureMouse(on) => {
                if on {
                    // X11 can confine but not lock; either keeps the cursor in the window while looking.
                    let grabbed = gfx
                        .window
                        .set_cursor_grab(CursorGrabMode::Locked)
                        .or_else(|_| gfx.window.set_cursor_grab(CursorGrabMode::Confined));
                    if let Err(e) = grabbed {
                        self.app.say(format!("cannot capture the mouse: {e}"), Severity::Error);
                    }
                } else {
                    let _ = gfx.window.set_cursor_grab(CursorGrabMode::None);
                }
                gfx.window.set_cursor_visible(!on);
                self.app.mouse_captured = on;
            }
            WindowCommand::SetMsaa(n) => {
                let samples = gfx.gpu.set_msaa(n);
                self.app.settings.msaa = samples;
                if samples != n {
                    self.app.say(format!("MSAA {n}× is not supported here; using {samples}×"), Severity::Error);
                }
            }
            WindowCommand::SaveProfile => {
                let path = format!(
                    "collide-{}.puffin",
                    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
                );
                let result = std::fs::File::create(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|mut f| gfx.profiler.global_frame_view().lock().write(&mut f).map_err(|e| e.to_string()));
                match result {
                    Ok(()) => {
                        let text = format!("saved the profile to {path} (open it with puffin_viewer)");
                        self.app.say(text, Severity::Info);
                    }
                    Err(e) => self.app.say(format!("{path}: {e}"), Severity::Error),
                }
            }
        }
    }

    /// A key the UI did not take: whatever the key table binds it to.
    fn key(&mut self, code: KeyCode, pressed: bool, ctrl: bool) {
        let app = &mut self.app;
        app.commands.extend(crate::keys::key(code, pressed, ctrl, &mut app.input));
    }
}

impl ApplicationHandler for Handler {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_some() {
            return;
        }
        match self.create_gfx(event_loop) {
            Ok(gfx) => {
                gfx.window.request_redraw();
                self.gfx = Some(gfx);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(gfx) = self.gfx.as_mut() else { return };
        let response = gfx.egui_state.on_window_event(&gfx.window, &event);
        let egui_wants_pointer = gfx.egui_ctx.wants_pointer_input() || gfx.egui_ctx.is_pointer_over_area();
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => gfx.gpu.resize(size.width, size.height),
            WindowEvent::RedrawRequested => self.frame(event_loop),
            WindowEvent::ModifiersChanged(m) => gfx.modifiers = m.state(),
            WindowEvent::KeyboardInput { event, .. } => {
                let pressed = event.state == ElementState::Pressed;
                let ctrl = gfx.modifiers.control_key();
                // Releases always count, so a key pressed before focus moved to a text field never sticks.
                let take = !pressed || !response.consumed || self.app.mouse_captured;
                if let (PhysicalKey::Code(code), true) = (event.physical_key, take)
                    && !(pressed && event.repeat)
                {
                    self.key(code, pressed, ctrl);
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let pressed = state == ElementState::Pressed;
                match button {
                    MouseButton::Left if pressed && !egui_wants_pointer && !self.app.mouse_captured => {
                        if self.app.settings.camera == CameraMode::Orbit {
                            gfx.orbit_drag = Some(winit::dpi::PhysicalPosition::new(f64::NAN, f64::NAN));
                        } else {
                            self.window_command(event_loop, WindowCommand::CaptureMouse(true));
                        }
                    }
                    MouseButton::Left if !pressed => gfx.orbit_drag = None,
                    MouseButton::Right if pressed && !egui_wants_pointer => {
                        self.app.commands.push(Command::TogglePanel(Panel::Controls));
                    }
                    _ => {}
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some(last) = gfx.orbit_drag.as_mut() {
                    if last.x.is_finite() {
                        self.app.input.look +=
                            glam::Vec2::new((position.x - last.x) as f32, (position.y - last.y) as f32);
                    }
                    *last = position;
                }
            }
            WindowEvent::MouseWheel { delta, .. } if !egui_wants_pointer => {
                self.app.input.zoom += match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
            }
            WindowEvent::Focused(false) => {
                // Losing focus loses the key releases: stop walking.
                self.app.input = crate::camera::MoveInput::default();
            }
            _ => {}
        }
    }

    fn device_event(&mut self, _event_loop: &ActiveEventLoop, _id: winit::event::DeviceId, event: DeviceEvent) {
        if let DeviceEvent::MouseMotion { delta } = event
            && self.app.mouse_captured
        {
            self.app.input.look += glam::Vec2::new(delta.0 as f32, delta.1 as f32);
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(gfx) = &self.gfx {
            gfx.window.request_redraw();
        }
    }
}
