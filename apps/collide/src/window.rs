//! The desktop window: winit's event loop, the wgpu surface, egui on top of the scene, the keys.
//!
//! Everything here is plumbing between winit, wgpu, egui and the [`App`]; the app's logic is in `app.rs` and
//! its panels in `ui.rs`.

use crate::app::{App, Command};
use crate::settings::CameraMode;
use collide_render::{Renderer, request_device, supported_sample_count};
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
    event_loop.run_app(&mut handler).map_err(|e| format!("event loop: {e}"))?;
    match handler.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The window and everything that draws into it, created on `resumed`.
struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    surface_config: wgpu::SurfaceConfiguration,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    profiler: puffin_egui::GlobalProfilerUi,
    last_frame: Instant,
    modifiers: winit::keyboard::ModifiersState,
    orbit_drag: Option<winit::dpi::PhysicalPosition<f64>>,
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
        let instance = wgpu::Instance::new(&wgpu::InstanceDescriptor::from_env_or_default());
        let surface = instance.create_surface(window.clone()).map_err(|e| format!("cannot create a surface: {e}"))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or(wgpu::PowerPreference::HighPerformance),
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
        }))
        .map_err(|e| format!("no graphics adapter for the window: {e}"))?;
        let info = adapter.get_info();
        eprintln!("collide: adapter {} ({:?}, {:?})", info.name, info.backend, info.device_type);
        let (device, queue) = request_device(&adapter)?;
        let size = window.inner_size();
        let caps = surface.get_capabilities(&adapter);
        let format = caps.formats.iter().copied().find(wgpu::TextureFormat::is_srgb).unwrap_or(caps.formats[0]);
        let surface_config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: present_mode(self.app.settings.vsync),
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![],
        };
        surface.configure(&device, &surface_config);
        let wanted = match self.app.settings.msaa {
            0 if info.device_type == wgpu::DeviceType::Cpu => 1,
            0 => 4,
            n => n,
        };
        let samples = supported_sample_count(&adapter, format, wanted);
        self.app.settings.msaa = samples;
        let renderer = Renderer::init(&adapter, &device, format, samples, surface_config.width, surface_config.height);
        let egui_ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            window.as_ref(),
            Some(window.scale_factor() as f32),
            None,
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let egui_renderer = egui_wgpu::Renderer::new(&device, format, egui_wgpu::RendererOptions::default());
        // The step's scopes (integrate, aabbs, broadphase, …) are recorded from the first frame, so a capture
        // saved with F5 has data even if the profiler window was never opened.
        puffin::set_scopes_on(true);
        Ok(Gfx {
            window,
            surface,
            surface_config,
            adapter,
            device,
            queue,
            renderer,
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
        let app = &mut self.app;
        let aspect = gfx.surface_config.width as f32 / gfx.surface_config.height.max(1) as f32;
        app.update(real, aspect);

        let raw = gfx.egui_state.take_egui_input(&gfx.window);
        let output = gfx.egui_ctx.run(raw, |ctx| crate::ui::draw(ctx, app, &mut gfx.profiler));
        gfx.egui_state.handle_platform_output(&gfx.window, output.platform_output);
        let primitives = gfx.egui_ctx.tessellate(output.shapes, output.pixels_per_point);

        let wanted_mode = present_mode(app.settings.vsync);
        if gfx.surface_config.present_mode != wanted_mode {
            gfx.surface_config.present_mode = wanted_mode;
            gfx.surface.configure(&gfx.device, &gfx.surface_config);
        }
        let draw_start = Instant::now();
        {
            puffin::profile_scope!("render");
            let texture = match gfx.surface.get_current_texture() {
                Ok(t) => t,
                Err(wgpu::SurfaceError::Outdated | wgpu::SurfaceError::Lost) => {
                    gfx.surface.configure(&gfx.device, &gfx.surface_config);
                    return;
                }
                Err(wgpu::SurfaceError::Timeout) => return,
                Err(e) => {
                    self.error = Some(format!("the window's surface failed: {e}"));
                    event_loop.exit();
                    return;
                }
            };
            let view = texture.texture.create_view(&wgpu::TextureViewDescriptor::default());
            let mut encoder =
                gfx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
            if app.settings.render {
                app.build_scene();
            } else {
                // Rendering off: only the clear, so the frame's cost is the step and the panels.
                app.scene.clear_geometry();
            }
            gfx.renderer.render(&gfx.device, &gfx.queue, &mut encoder, &view, &app.scene);

            let screen = egui_wgpu::ScreenDescriptor {
                size_in_pixels: [gfx.surface_config.width, gfx.surface_config.height],
                pixels_per_point: output.pixels_per_point,
            };
            for (id, delta) in &output.textures_delta.set {
                gfx.egui_renderer.update_texture(&gfx.device, &gfx.queue, *id, delta);
            }
            let extra = gfx.egui_renderer.update_buffers(&gfx.device, &gfx.queue, &mut encoder, &primitives, &screen);
            {
                let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                });
                gfx.egui_renderer.render(&mut pass.forget_lifetime(), &primitives, &screen);
            }
            gfx.queue.submit(extra.into_iter().chain([encoder.finish()]));
            gfx.window.pre_present_notify();
            texture.present();
            for id in &output.textures_delta.free {
                gfx.egui_renderer.free_texture(id);
            }
        }
        app.render_ms = draw_start.elapsed().as_secs_f64() * 1e3;

        if app.frames > WARMUP_FRAMES {
            let m = &mut self.measure;
            m.frames += 1;
            m.frame_ms += f64::from(real) * 1e3;
            if app.steps_last_frame > 0 {
                m.steps += 1;
                m.step_ms += app.last.step_ms;
            }
            m.draw_ms += app.render_ms;
        }
        for command in app.apply_commands() {
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
            self.app.sim.bodies().len(),
            if self.app.settings.render { "on" } else { "off" }
        );
    }

    fn window_command(&mut self, event_loop: &ActiveEventLoop, command: Command) {
        let Some(gfx) = self.gfx.as_mut() else { return };
        match command {
            Command::Quit => event_loop.exit(),
            Command::CaptureMouse(on) => {
                if on {
                    // X11 can confine but not lock; either keeps the cursor in the window while looking.
                    let grabbed = gfx
                        .window
                        .set_cursor_grab(CursorGrabMode::Locked)
                        .or_else(|_| gfx.window.set_cursor_grab(CursorGrabMode::Confined));
                    if let Err(e) = grabbed {
                        self.app.say(format!("cannot capture the mouse: {e}"), true);
                    }
                } else {
                    let _ = gfx.window.set_cursor_grab(CursorGrabMode::None);
                }
                gfx.window.set_cursor_visible(!on);
                self.app.mouse_captured = on;
            }
            Command::SetMsaa(n) => {
                let samples = supported_sample_count(&gfx.adapter, gfx.surface_config.format, n);
                gfx.renderer = Renderer::init(
                    &gfx.adapter,
                    &gfx.device,
                    gfx.surface_config.format,
                    samples,
                    gfx.surface_config.width,
                    gfx.surface_config.height,
                );
                self.app.settings.msaa = samples;
                if samples != n {
                    self.app.say(format!("MSAA {n}× is not supported here; using {samples}×"), true);
                }
            }
            Command::SaveProfile => {
                let path = format!(
                    "collide-{}.puffin",
                    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
                );
                let result = std::fs::File::create(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|mut f| gfx.profiler.global_frame_view().lock().write(&mut f).map_err(|e| e.to_string()));
                match result {
                    Ok(()) => self.app.say(format!("saved the profile to {path} (open it with puffin_viewer)"), false),
                    Err(e) => self.app.say(format!("{path}: {e}"), true),
                }
            }
            other => self.app.commands.push(other),
        }
    }

    /// A key the UI did not take.
    fn key(&mut self, code: KeyCode, pressed: bool, ctrl: bool) {
        let input = &mut self.app.input;
        match code {
            KeyCode::KeyW => input.forward = pressed,
            KeyCode::KeyS => input.back = pressed,
            KeyCode::KeyA => input.left = pressed,
            KeyCode::KeyD => input.right = pressed,
            KeyCode::Space => input.up = pressed,
            KeyCode::ControlLeft | KeyCode::ControlRight => input.down = pressed,
            KeyCode::ShiftLeft | KeyCode::ShiftRight => input.fast = pressed,
            _ => {}
        }
        if !pressed {
            return;
        }
        let app = &mut self.app;
        let s = &mut app.settings;
        let command = match code {
            KeyCode::KeyQ if ctrl => Some(Command::Quit),
            KeyCode::Escape => Some(Command::CaptureMouse(false)),
            KeyCode::KeyG => Some(Command::PullTowardMe),
            KeyCode::KeyP => Some(Command::SetPaused(!app.sim.clock().paused)),
            KeyCode::KeyN => Some(Command::SingleStep),
            KeyCode::KeyR => Some(Command::Respawn),
            KeyCode::KeyL => Some(Command::AddLight),
            KeyCode::Home => Some(Command::ResetCamera),
            KeyCode::F5 => Some(Command::SaveProfile),
            KeyCode::KeyC => {
                s.camera = match s.camera {
                    CameraMode::FirstPerson => CameraMode::Orbit,
                    CameraMode::Orbit => CameraMode::FirstPerson,
                };
                None
            }
            KeyCode::KeyB => {
                let name = app.sim.algorithm().0.name;
                let on = !s.debug_view(name);
                s.debug_views.insert(name.to_owned(), on);
                None
            }
            KeyCode::KeyV => {
                s.render = !s.render;
                None
            }
            KeyCode::F1 => {
                s.show_help = !s.show_help;
                None
            }
            KeyCode::F2 => {
                s.show_controls = !s.show_controls;
                None
            }
            KeyCode::F3 => {
                s.show_stats = !s.show_stats;
                None
            }
            KeyCode::F4 => {
                s.show_profiler = !s.show_profiler;
                None
            }
            _ => None,
        };
        app.commands.extend(command);
    }
}

fn present_mode(vsync: bool) -> wgpu::PresentMode {
    if vsync { wgpu::PresentMode::AutoVsync } else { wgpu::PresentMode::AutoNoVsync }
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
            WindowEvent::Resized(size) => {
                gfx.surface_config.width = size.width.max(1);
                gfx.surface_config.height = size.height.max(1);
                gfx.surface.configure(&gfx.device, &gfx.surface_config);
                gfx.renderer.resize(&gfx.device, gfx.surface_config.width, gfx.surface_config.height);
            }
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
                            self.app.commands.push(Command::CaptureMouse(true));
                            for command in self.app.apply_commands() {
                                self.window_command(event_loop, command);
                            }
                        }
                    }
                    MouseButton::Left if !pressed => gfx.orbit_drag = None,
                    MouseButton::Right if pressed && !egui_wants_pointer => {
                        self.app.settings.show_controls = !self.app.settings.show_controls;
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
