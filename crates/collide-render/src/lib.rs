//! The collide renderer, on wgpu.
//!
//! It draws a [`Scene`] — plain instance lists the caller fills every frame — and knows nothing of egui, the
//! simulation or the broadphases (the app converts their debug boxes and segments into [`Scene::wire_box`]
//! and [`Scene::segment`] calls).
//!
//! - **Spheres are impostors**: one camera-facing quad per body, sized to cover the sphere's silhouette
//!   cone exactly; the fragment shader intersects the view ray with the sphere and writes the true depth and
//!   normal. A million spheres are one instanced draw of four vertices each, instead of a million meshes of
//!   hundreds of triangles. The cost moves to fill rate: writing depth from the fragment shader turns off
//!   early depth rejection, so heavily overlapping near spheres are the expensive case.
//! - **Boxes** are a unit-cube mesh instanced with centre, half extents and a quaternion.
//! - **Lighting** is Blinn–Phong with one directional light and up to [`MAX_POINT_LIGHTS`] point lights; a
//!   body's `flash` mixes its colour toward the scene's flash colour (the thesis's red collision flash).
//! - **Lines** (the container, debug geometry, light markers) test depth without writing it.
//! - **MSAA** at the sample count the adapter supports ([`supported_sample_count`]). Impostor edges come from
//!   `discard`, which MSAA does not smooth; boxes and lines are smoothed.
//!
//! The [`Renderer`] has wgpu's `Example` shape (`init / resize / render`, the pipelines built in `pipelines.rs`)
//! and records into a caller's encoder. [`SurfaceRenderer`] draws into a window: it owns the surface and the
//! device and lends each frame's encoder to a painter drawing on top ([`Overlay`]: the app's egui), so the app
//! uses no wgpu API — this is the only crate that does. [`Offscreen`] renders into a texture and reads it back
//! as an [`Image`], which the screenshot mode and the golden-image tests ([`check_golden`]) use.
//!
//! **Performance.** Instance buffers are reused and grow to the next power of two; a warm frame allocates
//! nothing on the CPU side and uploads 24 bytes per sphere.

mod image;
mod offscreen;
mod pipelines;
mod renderer;
mod scene;
mod surface;

pub use image::{Image, ImageDiff, Tolerance, check_golden};
pub use offscreen::{Gpu, OFFSCREEN_FORMAT, Offscreen, request_device};
pub use pipelines::DEPTH_FORMAT;
pub use renderer::{Renderer, supported_sample_count};
pub use scene::{BoxInstance, Camera, LineVertex, MAX_POINT_LIGHTS, PointLight, Scene, SphereInstance};
pub use surface::{Overlay, SurfaceFrame, SurfaceOptions, SurfaceRenderer};

/// Re-exported so users name the same versions the renderer was built with.
pub use {glam, wgpu};
