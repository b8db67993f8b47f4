//! What one frame shows: the camera, the lights and the instance lists, on the CPU side.
//!
//! A [`Scene`] is owned by the caller and refilled every frame; its vectors keep their capacity, so once
//! warm a frame allocates nothing here. Colours are linear RGB bytes (the render target is sRGB, so the
//! hardware encodes on write).

use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Mat4, Quat, Vec3};

/// The most point lights a scene can hold; the rest are ignored.
pub const MAX_POINT_LIGHTS: usize = 8;

/// One sphere: drawn as a camera-facing quad whose fragment shader computes the exact sphere.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct SphereInstance {
    /// Centre.
    pub center: [f32; 3],
    /// Radius.
    pub radius: f32,
    /// Base colour, linear RGBA.
    pub color: [u8; 4],
    /// 0: base colour; 1: the scene's flash colour (the collision flash fades this toward 0).
    pub flash: f32,
}

/// One oriented box.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BoxInstance {
    /// Centre.
    pub center: [f32; 3],
    /// As [`SphereInstance::flash`].
    pub flash: f32,
    /// Half the size along each local axis.
    pub half_extents: [f32; 3],
    /// Base colour, linear RGBA.
    pub color: [u8; 4],
    /// Orientation as a unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
}

impl BoxInstance {
    /// A box at `center` with `half_extents`, turned by `rotation`.
    #[must_use]
    pub fn new(center: Vec3, half_extents: Vec3, rotation: Quat, color: [u8; 4]) -> Self {
        Self {
            center: center.into(),
            flash: 0.0,
            half_extents: half_extents.into(),
            color,
            rotation: rotation.normalize().to_array(),
        }
    }
}

/// One end of a line segment.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    /// Position.
    pub position: [f32; 3],
    /// Colour, linear RGBA (alpha blends).
    pub color: [u8; 4],
}

/// Where the eye is and how it projects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// The eye, in world space.
    pub eye: Vec3,
    /// The camera's up vector in world space (the impostors keep it).
    pub up: Vec3,
    /// World → view.
    pub view: Mat4,
    /// View → clip (wgpu's depth range 0..1).
    pub proj: Mat4,
}

impl Camera {
    /// A right-handed, y-up perspective camera at `eye` looking along `forward`; `fov_y` in radians.
    #[must_use]
    pub fn look_to(eye: Vec3, forward: Vec3, fov_y: f32, aspect: f32, near: f32, far: f32) -> Self {
        let forward = forward.try_normalize().unwrap_or(Vec3::NEG_Z);
        // Looking straight up or down, the world's y cannot be "up": fall back to z.
        let world_up = if forward.cross(Vec3::Y).length_squared() < 1e-6 { Vec3::Z } else { Vec3::Y };
        let right = forward.cross(world_up).normalize();
        Self {
            eye,
            up: right.cross(forward),
            view: glam::camera::rh::view::look_to_mat4(eye, forward, world_up),
            proj: glam::camera::rh::proj::directx::perspective(fov_y, aspect.max(1e-3), near, far),
        }
    }
}

impl Default for Camera {
    fn default() -> Self {
        Self::look_to(Vec3::new(0.0, 0.0, 10.0), Vec3::NEG_Z, 1.0, 16.0 / 9.0, 0.1, 1000.0)
    }
}

/// A point light the user places.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointLight {
    /// Position.
    pub position: Vec3,
    /// Colour times intensity, linear.
    pub color: Vec3,
    /// The distance at which its light falls to a quarter.
    pub range: f32,
}

/// Everything one frame draws.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The camera.
    pub camera: Camera,
    /// Toward the directional light (need not be normalised).
    pub sun_direction: Vec3,
    /// The directional light's colour, linear.
    pub sun_color: Vec3,
    /// Ambient light, linear.
    pub ambient: Vec3,
    /// Up to [`MAX_POINT_LIGHTS`] point lights.
    pub point_lights: Vec<PointLight>,
    /// The colour a body flashes when it collides, linear.
    pub flash_color: Vec3,
    /// The clear colour, linear.
    pub background: Vec3,
    /// Spheres.
    pub spheres: Vec<SphereInstance>,
    /// Boxes.
    pub boxes: Vec<BoxInstance>,
    /// Line segments, two vertices each.
    pub lines: Vec<LineVertex>,
}

impl Default for Scene {
    fn default() -> Self {
        Self {
            camera: Camera::default(),
            sun_direction: Vec3::new(0.4, 1.0, 0.6),
            sun_color: Vec3::splat(0.9),
            ambient: Vec3::splat(0.12),
            point_lights: Vec::new(),
            flash_color: Vec3::new(1.0, 0.05, 0.02),
            background: Vec3::new(0.015, 0.018, 0.025),
            spheres: Vec::new(),
            boxes: Vec::new(),
            lines: Vec::new(),
        }
    }
}

impl Scene {
    /// Empty the instance and line lists, keeping their allocations.
    pub fn clear_geometry(&mut self) {
        self.spheres.clear();
        self.boxes.clear();
        self.lines.clear();
    }

    /// A line segment from `a` to `b`.
    pub fn segment(&mut self, a: Vec3, b: Vec3, color: [u8; 4]) {
        self.lines.push(LineVertex { position: a.into(), color });
        self.lines.push(LineVertex { position: b.into(), color });
    }

    /// The twelve edges of the axis-aligned box `min..max`.
    pub fn wire_box(&mut self, min: Vec3, max: Vec3, color: [u8; 4]) {
        self.box_edges(color, |i| {
            Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        });
    }

    /// The twelve edges of the box at `center` with `half_extents` along the columns of `axes` (a turned box).
    pub fn wire_oriented_box(&mut self, center: Vec3, axes: Mat3, half_extents: Vec3, color: [u8; 4]) {
        self.box_edges(color, |i| {
            let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            center + axes * (half_extents * Vec3::new(sign(1), sign(2), sign(4)))
        });
    }

    /// The twelve edges between the eight corners `corner(i)`, bit k of `i` choosing the side along axis k.
    fn box_edges(&mut self, color: [u8; 4], corner: impl Fn(usize) -> Vec3) {
        for i in 0..8 {
            // Each edge once: from every corner to the neighbours with one more bit set.
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    self.segment(corner(i), corner(i | bit), color);
                }
            }
        }
    }

    /// A small three-axis cross at `p` (light markers).
    pub fn cross(&mut self, p: Vec3, size: f32, color: [u8; 4]) {
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            self.segment(p - axis * size, p + axis * size, color);
        }
    }
}

/// The uniform block of `shaders.wgsl`'s `Globals`, laid out for std140.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct Globals {
    pub view_proj: [[f32; 4]; 4],
    pub eye: [f32; 4],
    pub cam_up: [f32; 4],
    pub sun_dir: [f32; 4],
    pub sun_color: [f32; 4],
    pub ambient: [f32; 4],
    pub flash_color: [f32; 4],
    pub counts: [u32; 4],
    pub point_pos: [[f32; 4]; MAX_POINT_LIGHTS],
    pub point_color: [[f32; 4]; MAX_POINT_LIGHTS],
}

impl Globals {
    pub(crate) fn of(scene: &Scene) -> Self {
        let c = &scene.camera;
        let v4 = |v: Vec3, w: f32| [v.x, v.y, v.z, w];
        let mut g = Self {
            view_proj: (c.proj * c.view).to_cols_array_2d(),
            eye: v4(c.eye, 1.0),
            cam_up: v4(c.up, 0.0),
            sun_dir: v4(scene.sun_direction, 0.0),
            sun_color: v4(scene.sun_color, 0.0),
            ambient: v4(scene.ambient, 0.0),
            flash_color: v4(scene.flash_color, 0.0),
            counts: [0; 4],
            point_pos: [[0.0; 4]; MAX_POINT_LIGHTS],
            point_color: [[0.0; 4]; MAX_POINT_LIGHTS],
        };
        for (i, l) in scene.point_lights.iter().take(MAX_POINT_LIGHTS).enumerate() {
            g.point_pos[i] = v4(l.position, l.range);
            g.point_color[i] = v4(l.color, 0.0);
            g.counts[0] = i as u32 + 1;
        }
        g
    }
}
