//! The GPU programs the [`Renderer`](crate::Renderer) draws with: the shader module, the bind group and pipeline
//! layouts, and one render pipeline per kind of thing drawn (sphere impostors — instanced, or read from a storage
//! buffer —, instanced boxes, lines). Built once per target format and sample count.

use crate::scene::{BoxInstance, Globals, LineVertex, SphereInstance};
use bytemuck::{Pod, Zeroable};

/// The depth format of every pass.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The vertex of the unit cube mesh the boxes are instanced from.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct CubeVertex {
    position: [f32; 3],
    normal: [f32; 3],
}

/// 36 vertices: two triangles per face, counter-clockwise seen from outside, with flat face normals.
#[must_use]
pub fn cube_vertices() -> Vec<CubeVertex> {
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

/// `true` when vertex shaders on this adapter and device can read storage buffers: then spheres are drawn
/// without instancing (see `sphere_storage.wgsl`), much faster on software rasterizers.
#[must_use]
pub fn vertex_storage(adapter: &wgpu::Adapter, device: &wgpu::Device) -> bool {
    adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
        && device.limits().max_storage_buffers_per_shader_stage > 0
}

/// The bind group layouts and the pipeline layouts built from them.
pub struct Layouts {
    /// Group 0 of every pipeline: the [`Globals`] uniform (camera, lights).
    pub globals: wgpu::BindGroupLayout,
    /// Group 1 of the storage sphere pipeline: the sphere instances as a read-only storage buffer.
    pub spheres: wgpu::BindGroupLayout,
    /// Pipelines that read the globals only.
    pub scene: wgpu::PipelineLayout,
    /// The storage sphere pipeline: globals and spheres.
    pub storage: wgpu::PipelineLayout,
}

impl Layouts {
    /// Every layout the pipelines use.
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        let entry = |visibility, ty| wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility,
            ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        };
        let globals = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[entry(wgpu::ShaderStages::VERTEX_FRAGMENT, wgpu::BufferBindingType::Uniform)],
        });
        let spheres = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("spheres"),
            entries: &[entry(wgpu::ShaderStages::VERTEX, wgpu::BufferBindingType::Storage { read_only: true })],
        });
        let scene = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("collide"),
            bind_group_layouts: &[&globals],
            push_constant_ranges: &[],
        });
        let storage = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("spheres from storage"),
            bind_group_layouts: &[&globals, &spheres],
            push_constant_ranges: &[],
        });
        Self { globals, spheres, scene, storage }
    }

    /// The bind group of the globals uniform `buffer`.
    #[must_use]
    pub fn globals_bind_group(&self, device: &wgpu::Device, buffer: &wgpu::Buffer) -> wgpu::BindGroup {
        bind_group(device, "globals", &self.globals, buffer)
    }

    /// The bind group of the sphere storage `buffer` (rebuilt whenever the buffer grows).
    #[must_use]
    pub fn spheres_bind_group(&self, device: &wgpu::Device, buffer: &wgpu::Buffer) -> wgpu::BindGroup {
        bind_group(device, "spheres", &self.spheres, buffer)
    }
}

fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffer: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
    })
}

/// The size of the [`Globals`] uniform buffer.
#[must_use]
pub fn globals_size() -> u64 {
    size_of::<Globals>() as u64
}

/// What differs between the pipelines; everything else (the shader module, the depth test, the target format
/// and sample count) is shared.
struct PipelineDesc<'a> {
    label: &'a str,
    layout: &'a wgpu::PipelineLayout,
    vertex_entry: &'a str,
    fragment_entry: &'a str,
    buffers: &'a [wgpu::VertexBufferLayout<'a>],
    topology: wgpu::PrimitiveTopology,
    cull_mode: Option<wgpu::Face>,
    depth_write: bool,
    blend: Option<wgpu::BlendState>,
}

/// Builds the pipelines for one target: shared shader module, colour format and sample count.
pub struct Pipelines<'a> {
    device: &'a wgpu::Device,
    shader: wgpu::ShaderModule,
    format: wgpu::TextureFormat,
    sample_count: u32,
}

impl<'a> Pipelines<'a> {
    /// The shader module (with the storage sphere entry points when `vertex_storage`) for targets of `format`
    /// with `sample_count` samples.
    #[must_use]
    pub fn new(device: &'a wgpu::Device, format: wgpu::TextureFormat, sample_count: u32, vertex_storage: bool) -> Self {
        let source = if vertex_storage {
            format!("{}{}", include_str!("shaders.wgsl"), include_str!("sphere_storage.wgsl"))
        } else {
            include_str!("shaders.wgsl").to_owned()
        };
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("collide shaders"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        Self { device, shader, format, sample_count }
    }

    fn build(&self, d: &PipelineDesc<'_>) -> wgpu::RenderPipeline {
        self.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(d.label),
            layout: Some(d.layout),
            vertex: wgpu::VertexState {
                module: &self.shader,
                entry_point: Some(d.vertex_entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: d.buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: d.topology,
                cull_mode: d.cull_mode,
                ..wgpu::PrimitiveState::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: d.depth_write,
                depth_compare: wgpu::CompareFunction::LessEqual,
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample: wgpu::MultisampleState { count: self.sample_count, ..wgpu::MultisampleState::default() },
            fragment: Some(wgpu::FragmentState {
                module: &self.shader,
                entry_point: Some(d.fragment_entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: self.format,
                    blend: d.blend,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview: None,
            cache: None,
        })
    }

    /// Sphere impostors, one instanced camera-facing quad (a four-vertex strip) per sphere.
    #[must_use]
    pub fn instanced_spheres(&self, layouts: &Layouts) -> wgpu::RenderPipeline {
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32, 2 => Unorm8x4, 3 => Float32];
        self.build(&PipelineDesc {
            label: "spheres",
            layout: &layouts.scene,
            vertex_entry: "vs_sphere",
            fragment_entry: "fs_sphere",
            buffers: &[wgpu::VertexBufferLayout {
                array_stride: size_of::<SphereInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &attributes,
            }],
            topology: wgpu::PrimitiveTopology::TriangleStrip,
            cull_mode: None,
            depth_write: true,
            blend: None,
        })
    }

    /// Sphere impostors read from a storage buffer by vertex index, one covering triangle each.
    #[must_use]
    pub fn storage_spheres(&self, layouts: &Layouts) -> wgpu::RenderPipeline {
        self.build(&PipelineDesc {
            label: "spheres from storage",
            layout: &layouts.storage,
            vertex_entry: "vs_sphere_storage",
            fragment_entry: "fs_sphere",
            buffers: &[],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            depth_write: true,
            blend: None,
        })
    }

    /// Oriented boxes: the unit cube mesh instanced with centre, half extents and rotation.
    #[must_use]
    pub fn boxes(&self, layouts: &Layouts) -> wgpu::RenderPipeline {
        let cube = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        let instance =
            wgpu::vertex_attr_array![2 => Float32x3, 3 => Float32, 4 => Float32x3, 5 => Unorm8x4, 6 => Float32x4];
        self.build(&PipelineDesc {
            label: "boxes",
            layout: &layouts.scene,
            vertex_entry: "vs_box",
            fragment_entry: "fs_box",
            buffers: &[
                wgpu::VertexBufferLayout {
                    array_stride: size_of::<CubeVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &cube,
                },
                wgpu::VertexBufferLayout {
                    array_stride: size_of::<BoxInstance>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &instance,
                },
            ],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: Some(wgpu::Face::Back),
            depth_write: true,
            blend: None,
        })
    }

    /// Lines, alpha-blended. They test depth but do not write it, so the debug view never hides bodies behind a
    /// cell edge.
    #[must_use]
    pub fn lines(&self, layouts: &Layouts) -> wgpu::RenderPipeline {
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];
        self.build(&PipelineDesc {
            label: "lines",
            layout: &layouts.scene,
            vertex_entry: "vs_line",
            fragment_entry: "fs_line",
            buffers: &[wgpu::VertexBufferLayout {
                array_stride: size_of::<LineVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            }],
            topology: wgpu::PrimitiveTopology::LineList,
            cull_mode: None,
            depth_write: false,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
        })
    }
}

#[cfg(test)]
mod tests;
