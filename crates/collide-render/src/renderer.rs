//! The [`Renderer`]: pipelines, reused GPU buffers, and one render pass per frame.

use crate::scene::{BoxInstance, Globals, LineVertex, Scene, SphereInstance};
use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt as _;

/// The depth format of every pass.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

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
    layout: wgpu::BindGroupLayout,
    bind_group: wgpu::BindGroup,
}

/// The vertex of the unit cube mesh the boxes are instanced from.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct CubeVertex {
    position: [f32; 3],
    normal: [f32; 3],
}

/// 36 vertices: two triangles per face, counter-clockwise seen from outside, with flat face normals.
fn cube_vertices() -> Vec<CubeVertex> {
    let mut out = Vec::with_capacity(36);
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let corner = |a: f32, b: f32| {
                let mut p = [0.0; 3];
                p[axis] = sign;
                p[u] = a;
                p[v] = b;
                CubeVertex { position: p, normal: n }
            };
            let quad = [corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)];
            // u × v points along +axis, so the order above is counter-clockwise from +axis; flip for the
            // negative face.
            let order: [usize; 6] = if sign > 0.0 { [0, 1, 2, 0, 2, 3] } else { [0, 2, 1, 0, 3, 2] };
            out.extend(order.iter().map(|&i| quad[i]));
        }
    }
    out
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
    depth: wgpu::TextureView,
    msaa: Option<wgpu::TextureView>,
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
        let vertex_storage = adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
            && device.limits().max_storage_buffers_per_shader_stage > 0;
        let source = if vertex_storage {
            format!("{}{}", include_str!("shaders.wgsl"), include_str!("sphere_storage.wgsl"))
        } else {
            include_str!("shaders.wgsl").to_owned()
        };
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("collide shaders"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &bind_group_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: globals.as_entire_binding() }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("collide"),
            bind_group_layouts: &[&bind_group_layout],
            push_constant_ranges: &[],
        });
        let storage_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("spheres"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let storage_pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("spheres from storage"),
            bind_group_layouts: &[&bind_group_layout, &storage_layout],
            push_constant_ranges: &[],
        });

        let sphere_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32, 2 => Unorm8x4, 3 => Float32];
        let cube_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        let box_attributes =
            wgpu::vertex_attr_array![2 => Float32x3, 3 => Float32, 4 => Float32x3, 5 => Unorm8x4, 6 => Float32x4];
        let line_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];

        let pipeline = |layout: &wgpu::PipelineLayout,
                        label: &str,
                        vs: &str,
                        fs: &str,
                        buffers: &[wgpu::VertexBufferLayout<'_>],
                        topology: wgpu::PrimitiveTopology,
                        cull_mode: Option<wgpu::Face>,
                        depth_write: bool,
                        blend: Option<wgpu::BlendState>| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState { topology, cull_mode, ..wgpu::PrimitiveState::default() },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: depth_write,
                    depth_compare: wgpu::CompareFunction::LessEqual,
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState { count: sample_count, ..wgpu::MultisampleState::default() },
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some(fs),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState { format, blend, write_mask: wgpu::ColorWrites::ALL })],
                }),
                multiview: None,
                cache: None,
            })
        };

        let sphere_pipeline = pipeline(
            &layout,
            "spheres",
            "vs_sphere",
            "fs_sphere",
            &[wgpu::VertexBufferLayout {
                array_stride: size_of::<SphereInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &sphere_attributes,
            }],
            wgpu::PrimitiveTopology::TriangleStrip,
            None,
            true,
            None,
        );
        let box_pipeline = pipeline(
            &layout,
            "boxes",
            "vs_box",
            "fs_box",
            &[
                wgpu::VertexBufferLayout {
                    array_stride: size_of::<CubeVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &cube_attributes,
                },
                wgpu::VertexBufferLayout {
                    array_stride: size_of::<BoxInstance>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &box_attributes,
                },
            ],
            wgpu::PrimitiveTopology::TriangleList,
            Some(wgpu::Face::Back),
            true,
            None,
        );
        // Lines test depth but do not write it, so the debug view never hides bodies behind a cell edge.
        let line_pipeline = pipeline(
            &layout,
            "lines",
            "vs_line",
            "fs_line",
            &[wgpu::VertexBufferLayout {
                array_stride: size_of::<LineVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &line_attributes,
            }],
            wgpu::PrimitiveTopology::LineList,
            None,
            false,
            Some(wgpu::BlendState::ALPHA_BLENDING),
        );
        let spheres = GrowingBuffer::new(
            device,
            "sphere instances",
            if vertex_storage { wgpu::BufferUsages::STORAGE } else { wgpu::BufferUsages::VERTEX },
        );
        let storage = vertex_storage.then(|| {
            let pipeline = pipeline(
                &storage_pipeline_layout,
                "spheres from storage",
                "vs_sphere_storage",
                "fs_sphere",
                &[],
                wgpu::PrimitiveTopology::TriangleList,
                None,
                true,
                None,
            );
            StorageSpheres {
                pipeline,
                bind_group: storage_bind_group(device, &storage_layout, &spheres.buffer),
                layout: storage_layout,
            }
        });
        let cube = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("unit cube"),
            contents: bytemuck::cast_slice(&cube_vertices()),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let (depth, msaa) = Self::targets(device, format, sample_count, width, height);
        Self {
            format,
            sample_count,
            size: (width.max(1), height.max(1)),
            globals,
            bind_group,
            sphere_pipeline,
            box_pipeline,
            line_pipeline,
            cube,
            spheres,
            storage,
            boxes: GrowingBuffer::new(device, "box instances", wgpu::BufferUsages::VERTEX),
            lines: GrowingBuffer::new(device, "line vertices", wgpu::BufferUsages::VERTEX),
            depth,
            msaa,
        }
    }

    fn targets(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        sample_count: u32,
        width: u32,
        height: u32,
    ) -> (wgpu::TextureView, Option<wgpu::TextureView>) {
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
        let depth = texture("depth", DEPTH_FORMAT);
        let msaa = (sample_count > 1).then(|| texture("msaa colour", format));
        (depth, msaa)
    }

    /// The target size changed: rebuild the depth and MSAA textures (a no-op when the size is the same).
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        let size = (width.max(1), height.max(1));
        if size != self.size {
            self.size = size;
            (self.depth, self.msaa) = Self::targets(device, self.format, self.sample_count, size.0, size.1);
        }
    }

    /// The colour format the pipelines were built for.
    #[must_use]
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
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
            storage.bind_group = storage_bind_group(device, &storage.layout, &self.spheres.buffer);
        }
        self.boxes.upload(device, queue, bytemuck::cast_slice(&scene.boxes));
        self.lines.upload(device, queue, bytemuck::cast_slice(&scene.lines));

        let bg = scene.background;
        let (view, resolve_target) = match &self.msaa {
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
                    store: if self.msaa.is_some() { wgpu::StoreOp::Discard } else { wgpu::StoreOp::Store },
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth,
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

fn storage_bind_group(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, buffer: &wgpu::Buffer) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("spheres"),
        layout,
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_faces_wind_counter_clockwise_from_outside() {
        let v = cube_vertices();
        assert_eq!(v.len(), 36);
        for t in v.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|x| glam::Vec3::from(x.position));
            let n = glam::Vec3::from(t[0].normal);
            assert!((b - a).cross(c - a).dot(n) > 0.0, "triangle {t:?} winds clockwise", t = [a, b, c]);
        }
    }
}
