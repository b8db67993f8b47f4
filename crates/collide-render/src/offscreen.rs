//! Rendering with no window: a device without a surface, a texture target, and the read-back to an [`Image`].

use crate::image::Image;
use crate::renderer::Renderer;
use crate::scene::Scene;

/// The format of off-screen targets: sRGB, like a window surface, so both look the same.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A device and its queue, with the adapter they came from.
pub struct Gpu {
    /// The instance (kept so a surface can be made later).
    pub instance: wgpu::Instance,
    /// The adapter.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
}

impl Gpu {
    /// A device for off-screen work. `WGPU_BACKEND` (`gl`, `vulkan`, …) chooses the backend as usual;
    /// `software` asks for a CPU adapter (llvmpipe, lavapipe), which golden images need to be reproducible.
    pub fn headless(software: bool) -> Result<Self, String> {
        let instance = wgpu::Instance::new(&wgpu::InstanceDescriptor::from_env_or_default());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
            force_fallback_adapter: software,
            compatible_surface: None,
        }))
        .map_err(|e| format!("no graphics adapter{}: {e}", if software { " (software)" } else { "" }))?;
        let (device, queue) = request_device(&adapter)?;
        Ok(Self { instance, adapter, device, queue })
    }

    /// One line naming the adapter and backend, for logs.
    #[must_use]
    pub fn describe(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
    }
}

/// The device with the adapter's own limits: the million-body scenes need large vertex buffers, and the
/// defaults (256 MiB buffers) are not always what the adapter can do.
pub fn request_device(adapter: &wgpu::Adapter) -> Result<(wgpu::Device, wgpu::Queue), String> {
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("collide"),
        required_limits: adapter.limits(),
        ..wgpu::DeviceDescriptor::default()
    }))
    .map_err(|e| format!("cannot open the graphics device: {e}"))
}

/// A texture to render into and a buffer to read it back through.
pub struct Offscreen {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    readback: wgpu::Buffer,
    width: u32,
    height: u32,
    padded_row: u32,
}

impl Offscreen {
    /// A `width × height` target in [`OFFSCREEN_FORMAT`].
    #[must_use]
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Self {
        let (width, height) = (width.max(1), height.max(1));
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        // Buffer rows must be multiples of 256 bytes; the padding is dropped on read-back.
        let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Self {
            view: texture.create_view(&wgpu::TextureViewDescriptor::default()),
            texture,
            readback,
            width,
            height,
            padded_row,
        }
    }

    /// The view to render into.
    #[must_use]
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Render `scene` with `renderer` (built for [`OFFSCREEN_FORMAT`] at this size) and read the pixels back.
    pub fn render(&self, gpu: &Gpu, renderer: &mut Renderer, scene: &Scene) -> Result<Image, String> {
        let mut encoder =
            gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("offscreen") });
        renderer.render(&gpu.device, &gpu.queue, &mut encoder, &self.view, scene);
        gpu.queue.submit([encoder.finish()]);
        self.read(gpu)
    }

    /// Read the target's pixels back (after whatever was last submitted into it).
    pub fn read(&self, gpu: &Gpu) -> Result<Image, String> {
        let mut encoder =
            gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d { width: self.width, height: self.height, depth_or_array_layers: 1 },
        );
        gpu.queue.submit([encoder.finish()]);
        let slice = self.readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| format!("waiting for the GPU: {e}"))?;
        rx.recv().map_err(|e| e.to_string())?.map_err(|e| format!("mapping the read-back buffer: {e}"))?;
        let mut pixels = Vec::with_capacity(self.width as usize * self.height as usize * 4);
        {
            let data = slice.get_mapped_range();
            for row in data.chunks_exact(self.padded_row as usize) {
                pixels.extend_from_slice(&row[..self.width as usize * 4]);
            }
        }
        self.readback.unmap();
        Ok(Image { width: self.width, height: self.height, pixels })
    }
}
