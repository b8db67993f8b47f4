//! Drawing into a window: the surface, the device behind it and a [`Renderer`], so that the app — which owns the
//! window and its event loop — uses no wgpu API itself.
//!
//! The window arrives as anything wgpu can make a surface of (any `raw-window-handle` window, a winit window in
//! an `Arc` for instance), so this crate knows no windowing crate either. A frame is [`SurfaceRenderer::begin_frame`]
//! → [`SurfaceFrame::draw_scene`] → whatever the caller paints on top through [`SurfaceFrame::overlay`] (the app's
//! egui, recorded by egui's own wgpu painter into the encoder lent here) → [`SurfaceFrame::present`].

use crate::offscreen::request_device;
use crate::renderer::{Renderer, supported_sample_count};
use crate::scene::Scene;

/// How the window's surface starts.
#[derive(Clone, Copy, Debug)]
pub struct SurfaceOptions {
    /// The window's inner size in physical pixels.
    pub size: (u32, u32),
    /// Wait for the display's refresh.
    pub vsync: bool,
    /// MSAA samples wanted (clamped to what the adapter supports); 0 chooses: 4 on a GPU, 1 on a software
    /// rasterizer, where every sample costs as much as a pixel.
    pub msaa: u32,
}

/// A window's surface, its adapter, device and queue, and the scene [`Renderer`] drawing into it.
pub struct SurfaceRenderer {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
}

impl SurfaceRenderer {
    /// Open the graphics device for `window` and configure its surface. `WGPU_BACKEND` and
    /// `WGPU_POWER_PREF` choose the backend and adapter as usual. Errors are one line.
    pub fn new(window: impl Into<wgpu::SurfaceTarget<'static>>, options: &SurfaceOptions) -> Result<Self, String> {
        let instance = wgpu::Instance::new(&wgpu::InstanceDescriptor::from_env_or_default());
        let surface = instance.create_surface(window).map_err(|e| format!("cannot create a surface: {e}"))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or(wgpu::PowerPreference::HighPerformance),
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
        }))
        .map_err(|e| format!("no graphics adapter for the window: {e}"))?;
        let (device, queue) = request_device(&adapter)?;
        let caps = surface.get_capabilities(&adapter);
        let format = caps.formats.iter().copied().find(wgpu::TextureFormat::is_srgb).unwrap_or(caps.formats[0]);
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: options.size.0.max(1),
            height: options.size.1.max(1),
            present_mode: present_mode(options.vsync),
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![],
        };
        surface.configure(&device, &config);
        let wanted = match options.msaa {
            0 if adapter.get_info().device_type == wgpu::DeviceType::Cpu => 1,
            0 => 4,
            n => n,
        };
        let samples = supported_sample_count(&adapter, format, wanted);
        let renderer = Renderer::init(&adapter, &device, format, samples, config.width, config.height);
        Ok(Self { surface, config, adapter, device, queue, renderer })
    }

    /// One line naming the adapter, backend and device type, for logs.
    #[must_use]
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
    }

    /// The device, for a painter that draws on top (egui's).
    #[must_use]
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The surface's colour format, for a painter that draws on top.
    #[must_use]
    pub fn format(&self) -> wgpu::TextureFormat {
        self.config.format
    }

    /// The largest texture side the device allows.
    #[must_use]
    pub fn max_texture_side(&self) -> usize {
        self.device.limits().max_texture_dimension_2d as usize
    }

    /// The surface's size in pixels.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// MSAA samples per pixel of the scene.
    #[must_use]
    pub fn sample_count(&self) -> u32 {
        self.renderer.sample_count()
    }

    /// The window was resized.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.config.width = width.max(1);
        self.config.height = height.max(1);
        self.surface.configure(&self.device, &self.config);
        self.renderer.resize(&self.device, self.config.width, self.config.height);
    }

    /// Wait for the display's refresh or not (reconfigures the surface only when this changes).
    pub fn set_vsync(&mut self, vsync: bool) {
        let mode = present_mode(vsync);
        if self.config.present_mode != mode {
            self.config.present_mode = mode;
            self.surface.configure(&self.device, &self.config);
        }
    }

    /// Rebuild the scene renderer with `wanted` MSAA samples, clamped to what the adapter supports. Returns the
    /// count in use.
    pub fn set_msaa(&mut self, wanted: u32) -> u32 {
        let samples = supported_sample_count(&self.adapter, self.config.format, wanted);
        let (width, height) = self.size();
        self.renderer = Renderer::init(&self.adapter, &self.device, self.config.format, samples, width, height);
        samples
    }

    /// Acquire the next image of the surface. `Ok(None)` when there is none this time (the surface was outdated
    /// or lost and has been reconfigured, or acquiring timed out): skip the frame.
    pub fn begin_frame(&mut self) -> Result<Option<SurfaceFrame<'_>>, String> {
        let texture = match self.surface.get_current_texture() {
            Ok(texture) => texture,
            Err(wgpu::SurfaceError::Outdated | wgpu::SurfaceError::Lost) => {
                self.surface.configure(&self.device, &self.config);
                return Ok(None);
            }
            Err(wgpu::SurfaceError::Timeout) => return Ok(None),
            Err(e) => return Err(format!("the window's surface failed: {e}")),
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor::default());
        let encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        Ok(Some(SurfaceFrame { gpu: self, texture, view, encoder }))
    }
}

/// One image of the window being recorded: draw the scene, paint on top, present.
pub struct SurfaceFrame<'a> {
    gpu: &'a mut SurfaceRenderer,
    texture: wgpu::SurfaceTexture,
    view: wgpu::TextureView,
    encoder: wgpu::CommandEncoder,
}

impl SurfaceFrame<'_> {
    /// Clear the image and draw `scene`.
    pub fn draw_scene(&mut self, scene: &Scene) {
        let gpu = &mut *self.gpu;
        gpu.renderer.render(&gpu.device, &gpu.queue, &mut self.encoder, &self.view, scene);
    }

    /// What a painter drawing on top of the scene needs: the device, the queue, this frame's encoder, and a pass
    /// over the image that keeps what is there.
    pub fn overlay(&mut self) -> Overlay<'_> {
        Overlay { device: &self.gpu.device, queue: &self.gpu.queue, encoder: &mut self.encoder, view: &self.view }
    }

    /// Submit `first` (command buffers a painter prepared, such as egui's buffer uploads) and then this frame's
    /// commands, call `before_present` (the window's pre-present notification), and show the image.
    pub fn present(self, first: impl IntoIterator<Item = wgpu::CommandBuffer>, before_present: impl FnOnce()) {
        self.gpu.queue.submit(first.into_iter().chain([self.encoder.finish()]));
        before_present();
        self.texture.present();
    }
}

/// The device, queue and encoder a frame lends to a painter drawing on top of the scene.
pub struct Overlay<'a> {
    /// The device.
    pub device: &'a wgpu::Device,
    /// Its queue.
    pub queue: &'a wgpu::Queue,
    /// The frame's encoder, after the scene's pass.
    pub encoder: &'a mut wgpu::CommandEncoder,
    view: &'a wgpu::TextureView,
}

impl Overlay<'_> {
    /// A render pass over the frame's image that loads what the scene drew (no depth, no MSAA). It records into
    /// the encoder until dropped (wgpu checks that at run time, hence the `'static`).
    pub fn begin_pass(&mut self) -> wgpu::RenderPass<'static> {
        self.encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("overlay"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: self.view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
            })
            .forget_lifetime()
    }
}

/// The present mode for `vsync`.
fn present_mode(vsync: bool) -> wgpu::PresentMode {
    if vsync { wgpu::PresentMode::AutoVsync } else { wgpu::PresentMode::AutoNoVsync }
}
