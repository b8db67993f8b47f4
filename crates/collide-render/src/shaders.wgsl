// collide's shaders: sphere impostors, instanced boxes and lines, all lit by the same Blinn–Phong model.
//
// One uniform block serves every pipeline, so a frame uploads the camera and the lights once.

const MAX_POINT_LIGHTS: u32 = 8u;

struct Globals {
    view_proj: mat4x4<f32>,
    // The camera's world-space eye (xyz) and its up vector (xyz of `cam_up`): the impostor quads face the eye
    // and keep the camera's roll, so they never spin as the camera turns.
    eye: vec4<f32>,
    cam_up: vec4<f32>,
    // Toward the directional light (xyz), and its colour (xyz).
    sun_dir: vec4<f32>,
    sun_color: vec4<f32>,
    ambient: vec4<f32>,
    // The collision flash's colour (xyz).
    flash_color: vec4<f32>,
    // x: the number of point lights in use.
    counts: vec4<u32>,
    // xyz: position; w: range (the distance at which the light falls to a quarter).
    point_pos: array<vec4<f32>, MAX_POINT_LIGHTS>,
    point_color: array<vec4<f32>, MAX_POINT_LIGHTS>,
};

@group(0) @binding(0) var<uniform> g: Globals;

// Blinn–Phong: ambient, a directional light and up to eight point lights; `p` is the lit point, `n` its unit
// normal.
fn shade(base: vec3<f32>, p: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let v = normalize(g.eye.xyz - p);
    var c = g.ambient.xyz * base;
    let l = normalize(g.sun_dir.xyz);
    let h = normalize(l + v);
    c += g.sun_color.xyz * (base * max(dot(n, l), 0.0) + 0.25 * pow(max(dot(n, h), 0.0), 48.0));
    for (var i = 0u; i < min(g.counts.x, MAX_POINT_LIGHTS); i += 1u) {
        let to_light = g.point_pos[i].xyz - p;
        let d = length(to_light);
        let lp = to_light / max(d, 1e-6);
        let hp = normalize(lp + v);
        let range = max(g.point_pos[i].w, 1e-6);
        let falloff = 1.0 / (1.0 + 3.0 * (d / range) * (d / range));
        c += g.point_color[i].xyz * falloff * (base * max(dot(n, lp), 0.0) + 0.25 * pow(max(dot(n, hp), 0.0), 48.0));
    }
    return c;
}

fn body_color(color: vec4<f32>, flash: f32) -> vec3<f32> {
    return mix(color.rgb, g.flash_color.xyz, clamp(flash, 0.0, 1.0));
}

// ---------------------------------------------------------------------------------------------------------
// Spheres: one camera-facing quad per body; the fragment shader intersects the view ray with the exact sphere
// and writes its depth and normal, so a sphere costs four vertices however finely it is drawn.

struct SphereOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) center_radius: vec4<f32>,
    @location(2) @interpolate(flat) color: vec3<f32>,
};

@vertex
fn vs_sphere(
    @builtin(vertex_index) vi: u32,
    @location(0) center: vec3<f32>,
    @location(1) radius: f32,
    @location(2) color: vec4<f32>,
    @location(3) flash: f32,
) -> SphereOut {
    return sphere_corner(vi, center, radius, color, flash);
}

// Corner `vi` of the polygon covering one sphere: 0..4 the quad's (strip order), 4..7 a triangle's.
fn sphere_corner(vi: u32, center: vec3<f32>, radius: f32, color: vec4<f32>, flash: f32) -> SphereOut {
    var out: SphereOut;
    let to_c = center - g.eye.xyz;
    let d = length(to_c);
    // Inside (or on) the sphere there is no silhouette to cover: collapse the quad.
    if (d <= radius * 1.001) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let fwd = to_c / d;
    var right = cross(fwd, g.cam_up.xyz);
    if (dot(right, right) < 1e-8) {
        right = cross(fwd, vec3<f32>(1.0, 0.0, 0.0));
    }
    right = normalize(right);
    let up = cross(right, fwd);
    // The silhouette is a cone of half-angle asin(r/d) from the eye; at distance d, on the plane through the
    // centre facing the eye, it is a circle of radius r·d/√(d²−r²). A square of that half-size covers it.
    let s = radius * d / sqrt(d * d - radius * radius);
    var corner: vec2<f32>;
    if (vi < 4u) {
        corner = vec2<f32>(f32(vi & 1u) * 2.0 - 1.0, f32((vi >> 1u) & 1u) * 2.0 - 1.0);
    } else {
        // One triangle around the circle (inradius 1, corners at distance 2): half the primitives of a quad.
        // Most spheres far away cover a few pixels, and software rasterizers pay per triangle and per 4×4
        // block touched, so one larger triangle beats two smaller ones there.
        let a = 1.5707964 + 2.0943952 * f32(vi - 4u);
        corner = 2.0 * vec2<f32>(cos(a), sin(a));
    }
    let world = center + (right * corner.x + up * corner.y) * s;
    out.clip = g.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.center_radius = vec4<f32>(center, radius);
    out.color = body_color(color, flash);
    return out;
}

struct SphereFrag {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
};

@fragment
fn fs_sphere(in: SphereOut) -> SphereFrag {
    let c = in.center_radius.xyz;
    let r = in.center_radius.w;
    let eye = g.eye.xyz;
    let dir = normalize(in.world - eye);
    let oc = eye - c;
    let b = dot(oc, dir);
    // r² − |perpendicular distance|², rather than b² − (|oc|² − r²): the difference of two large, nearly
    // equal numbers loses the edge of far spheres to rounding.
    let q = oc - b * dir;
    let h = r * r - dot(q, q);
    if (h < 0.0) {
        discard;
    }
    let t = -b - sqrt(h);
    let hit = eye + dir * t;
    let n = (hit - c) / r;
    let clip = g.view_proj * vec4<f32>(hit, 1.0);
    var out: SphereFrag;
    out.depth = clip.z / clip.w;
    out.color = vec4<f32>(shade(in.color, hit, n), 1.0);
    return out;
}

// ---------------------------------------------------------------------------------------------------------
// Oriented boxes: a unit cube mesh, instanced with centre, half extents and a rotation quaternion.

struct BoxOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) @interpolate(flat) color: vec3<f32>,
};

fn rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

@vertex
fn vs_box(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) center: vec3<f32>,
    @location(3) flash: f32,
    @location(4) half_extents: vec3<f32>,
    @location(5) color: vec4<f32>,
    @location(6) rotation: vec4<f32>,
) -> BoxOut {
    var out: BoxOut;
    let world = center + rotate(rotation, position * half_extents);
    out.clip = g.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = rotate(rotation, normal);
    out.color = body_color(color, flash);
    return out;
}

@fragment
fn fs_box(in: BoxOut) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(in.color, in.world, normalize(in.normal)), 1.0);
}

// ---------------------------------------------------------------------------------------------------------
// Lines: the container, debug geometry, light markers. Unlit.

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) color: vec4<f32>) -> LineOut {
    var out: LineOut;
    out.clip = g.view_proj * vec4<f32>(position, 1.0);
    out.color = color;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}
