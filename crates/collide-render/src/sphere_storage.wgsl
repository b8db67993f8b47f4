
// ---------------------------------------------------------------------------------------------------------
// Spheres without instancing (appended to shaders.wgsl when the adapter can read storage buffers in vertex
// shaders). Software rasterizers run their vertex pipeline once per *instance*, which costs microseconds
// each. Here one plain draw of three vertices per sphere reads the sphere from a storage buffer by vertex
// index, so the per-instance overhead disappears.

// `SphereInstance` as it is in memory: 24 bytes, no vector members (a vec4 would align the array to 32).
struct Sphere {
    x: f32,
    y: f32,
    z: f32,
    radius: f32,
    color: u32,
    flash: f32,
};

@group(1) @binding(0) var<storage, read> spheres: array<Sphere>;

@vertex
fn vs_sphere_storage(@builtin(vertex_index) vi: u32) -> SphereOut {
    // Vertex 3k + c is corner c of sphere k's covering triangle.
    let k = vi / 3u;
    let s = spheres[k];
    return sphere_corner(4u + vi - 3u * k, vec3<f32>(s.x, s.y, s.z), s.radius, unpack4x8unorm(s.color), s.flash);
}
