//! The [`Renderer`]: pipelines, reused GPU buffers, and one render pass per frame.

use crate::pipelines::{DEPTH_FORMAT, Layouts, Pipelines, cube_vertices, globals_size, vertex_storage};
use crate::scene::{Globals, Scene};
use wgpu::util::DeviceExt as _;

/// The largest MSAA sample count the adapter supports for both `format` and the depth buffer, up to `wanted`
/// (1 when there is none). Software rasterizers usually offer 4; every adapter offers 1.
#[must_use]
pub fn supported_sample_count(adapter: &wgpu::Adapter, format: wgpu::TextureFormat, wanted: u32) -> u32 {
    let color = adapter.get_texture_format_features(format).flags;
    let depth = adapter.get_texture_format_features(DEPTH_FORMAT).flags;
    [16, 8, 4, 2]
        .into_iter()
        .find(|&n| n <= wanted && color.sample_count_supported(n) && depth.sample_count_supported(n))
        .unwrap_or(1)
}

/// A vertex buffer that grows (to the next power of two) and is otherwise reused: no allocation per frame
/// once it has reached the scene's size.
struct GrowingBuffer {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: wgpu::Buffer,
    capacity: u64,
}

impl GrowingBuffer {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Self {
        let capacity = 4096;
        Self { label, usage, buffer: Self::create(device, label, usage, capacity), capacity }
    }

    fn create(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages, size: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Make room for `needed` bytes; `true` when the buffer was replaced (bind groups must follow).
    fn reserve(&mut self, device: &wgpu::Device, needed: u64) -> bool {
        if needed <= self.capacity {
            return false;
        }
        self.capacity = needed.next_power_of_two();
        self.buffer = Self::create(device, self.label, self.usage, self.capacity);
        true
    }

    fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) -> bool {
        let grown = self.reserve(device, bytes.len() as u64);
        if !bytes.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytes);
        }
        grown
    }
}

/// The sphere path without instancing: spheres in a storage buffer, read by vertex index, one triangle each
/// (see `sphere_storage.wgsl` for why).
struct StorageSpheres {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
}

/// The size-dependent targets: the depth buffer and, with MSAA, the multisampled colour image.
struct Targets {
    depth: wgpu::TextureView,
    msaa: Option<wgpu::TextureView>,
}

impl Targets {
    fn new(device: &wgpu::Device, format: wgpu::TextureFormat, sample_count: u32, width: u32, height: u32) -> Self {
        let size = wgpu::Extent3d { width: width.max(1), height: height.max(1), depth_or_array_layers: 1 };
        let texture = |label: &str, format: wgpu::TextureFormat| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        Self { depth: texture("depth", DEPTH_FORMAT), msaa: (sample_count > 1).then(|| texture("msaa colour", format)) }
    }
}

/// Draws a [`Scene`] into a colour target: spheres as impostors, boxes as instanced cubes, lines.
///
/// The shape is wgpu's `Example`: [`init`](Renderer::init) builds the pipelines for a target format and
/// sample count, [`resize`](Renderer::resize) (re)creates the size-dependent depth and MSAA textures, and
/// [`render`](Renderer::render) uploads the scene and records one pass. Instance data goes into buffers kept
/// between frames, so a warm frame allocates nothing on the CPU side.
pub struct Renderer {
    format: wgpu::TextureFormat,
    sample_count: u32,
    size: (u32, u32),
    layouts: Layouts,
    globals: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    sphere_pipeline: wgpu::RenderPipeline,
    box_pipeline: wgpu::RenderPipeline,
    line_pipeline: wgpu::RenderPipeline,
    cube: wgpu::Buffer,
    spheres: GrowingBuffer,
    storage: Option<StorageSpheres>,
    boxes: GrowingBuffer,
    lines: GrowingBuffer,
    targets: Targets,
}

impl Renderer {
    /// Build the pipelines for targets of `format` and `width × height` pixels, with `sample_count` samples
    /// per pixel (1 turns MSAA off; see [`supported_sample_count`]). The adapter says whether vertex shaders
    /// can read storage buffers (then spheres are drawn without instancing, much faster on software
    /// rasterizers).
    #[must_use]
    pub fn init(
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        sample_count: u32,
        width: u32,
        height: u32,
    ) -> Self {
        let vertex_storage = vertex_storage(adapter, device);
        let layouts = Layouts::new(device);
        let pipelines = Pipelines::new(device, format, sample_count, vertex_storage);
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: globals_size(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let spheres = GrowingBuffer::new(
            device,
            "sphere instances",
            if vertex_storage { wgpu::BufferUsages::STORAGE } else { wgpu::BufferUsages::VERTEX },
        );
        let storage = vertex_storage.then(|| StorageSpheres {
            pipeline: pipelines.storage_spheres(&layouts),
            bind_group: layouts.spheres_bind_group(device, &spheres.buffer),
        });
        Self {
            format,
            sample_count,
            size: (width.max(1), height.max(1)),
            bind_group: layouts.globals_bind_group(device, &globals),
            globals,
            sphere_pipeline: pipelines.instanced_spheres(&layouts),
            box_pipeline: pipelines.boxes(&layouts),
            line_pipeline: pipelines.lines(&layouts),
            cube: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unit cube"),
                contents: bytemuck::cast_slice(&cube_vertices()),
                usage: wgpu::BufferUsages::VERTEX,
            }),
            spheres,
            storage,
            boxes: GrowingBuffer::new(device, "box instances", wgpu::BufferUsages::VERTEX),
            lines: GrowingBuffer::new(device, "line vertices", wgpu::BufferUsages::VERTEX),
            targets: Targets::new(device, format, sample_count, width, height),
            layouts,
        }
    }

    /// The target size changed: rebuild the depth and MSAA textures (a no-op when the size is the same).
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        let size = (width.max(1), height.max(1));
        if size != self.size {
            self.size = size;
            self.targets = Targets::new(device, self.format, self.sample_count, size.0, size.1);
        }
    }

    /// Samples per pixel.
    #[must_use]
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    /// Upload `scene` and record its pass into `encoder`, clearing and drawing into `target` (a view of the
    /// size last given to [`init`](Self::init) or [`resize`](Self::resize)).
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        scene: &Scene,
    ) {
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&Globals::of(scene)));
        let grown = self.spheres.upload(device, queue, bytemuck::cast_slice(&scene.spheres));
        if let Some(storage) = &mut self.storage
            && grown
        {
            storage.bind_group = self.layouts.spheres_bind_group(device, &self.spheres.buffer);
        }
        self.boxes.upload(device, queue, bytemuck::cast_slice(&scene.boxes));
        self.lines.upload(device, queue, bytemuck::cast_slice(&scene.lines));

        let bg = scene.background;
        let (view, resolve_target) = match &self.targets.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: f64::from(bg.x),
                        g: f64::from(bg.y),
                        b: f64::from(bg.z),
                        a: 1.0,
                    }),
                    // The multisampled image is only needed until it is resolved.
                    store: if self.targets.msaa.is_some() { wgpu::StoreOp::Discard } else { wgpu::StoreOp::Store },
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.targets.depth,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Discard }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
        });
        pass.set_bind_group(0, &self.bind_group, &[]);
        if !scene.spheres.is_empty() {
            let n = scene.spheres.len() as u32;
            if let Some(storage) = &self.storage {
                // All spheres in one draw: one triangle each.
                pass.set_pipeline(&storage.pipeline);
                pass.set_bind_group(1, &storage.bind_group, &[]);
                pass.draw(0..3 * n, 0..1);
            } else {
                // All spheres in one instanced draw: four strip vertices per instance.
                pass.set_pipeline(&self.sphere_pipeline);
                pass.set_vertex_buffer(0, self.spheres.buffer.slice(..));
                pass.draw(0..4, 0..n);
            }
        }
        if !scene.boxes.is_empty() {
            pass.set_pipeline(&self.box_pipeline);
            pass.set_vertex_buffer(0, self.cube.slice(..));
            pass.set_vertex_buffer(1, self.boxes.buffer.slice(..));
            pass.draw(0..36, 0..scene.boxes.len() as u32);
        }
        if !scene.lines.is_empty() {
            pass.set_pipeline(&self.line_pipeline);
            pass.set_vertex_buffer(0, self.lines.buffer.slice(..));
            pass.draw(0..scene.lines.len() as u32, 0..1);
        }
    }
}
