//! Time of impact: the earliest moment in a step at which moving shapes first touch, for continuous collision
//! detection (a fast body is moved to that moment instead of through a thin wall).
//!
//! Every function takes positions at the start of the step and the displacements over it (velocity × dt), and
//! answers a fraction `t ∈ [0, 1]` of the step. Motion is linear within the step (the lecture's assumption: no
//! acceleration within a step); an overlap at `t = 0` answers `Some(0.0)`.

use crate::Solid;
use crate::box_box::{ABS_PAD, PARALLEL_SINE, cosines};
use crate::frame::BoxFrame;
use collide_math::{Obb, Vec3};

/// Earliest `t` in `[0, 1]` at which spheres moving linearly by `da`, `db` during the step first touch; `None` if
/// never. Overlapping at `t = 0` gives `Some(0.0)`.
///
/// The lecture's quadratic (seed 004): with `p = ca − cb`, `v = da − db` and `R = ra + rb`,
/// `|p + v·t|² = R²` is `a·t² + 2b·t + c = 0` with `a = v·v`, `b = p·v`, `c = p·p − R²`. The earlier root is taken
/// as `c / (−b + √(b² − ac))` — the same root, but without the cancellation of `(−b − √…)/a` and without dividing
/// by `a`, so no relative motion (`a = 0`) needs no special case beyond `b ≥ 0`, which rejects it: bodies that
/// are apart and not approaching never touch. Invalid input (NaN, infinite, negative radii) gives `None`.
#[must_use]
pub fn toi_sphere_sphere(ca: Vec3, ra: f32, da: Vec3, cb: Vec3, rb: f32, db: Vec3) -> Option<f32> {
    if !(ca.is_finite() && da.is_finite() && cb.is_finite() && db.is_finite()) {
        return None;
    }
    if !(ra >= 0.0 && rb >= 0.0 && ra.is_finite() && rb.is_finite()) {
        return None;
    }
    toi_point_sphere(ca - cb, da - db, ra + rb)
}

/// The earliest `t ∈ [0, 1]` at which `p + v·t` comes within `r` of the origin (inputs already checked).
#[inline]
fn toi_point_sphere(p: Vec3, v: Vec3, r: f32) -> Option<f32> {
    let c = p.length_squared() - r * r;
    if c <= 0.0 {
        return Some(0.0);
    }
    let b = p.dot(v);
    if b >= 0.0 {
        return None; // apart and not approaching (b = 0 covers no relative motion)
    }
    let a = v.length_squared();
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None; // the closest approach stays further than r
    }
    let t = c / (-b + disc.sqrt());
    (t <= 1.0).then_some(t)
}

/// Earliest `t` in `[0, 1]` at which a sphere moving by `d` touches the plane `n·x = offset` from the side `n`
/// points to; `None` if never.
///
/// The plane bounds a solid half-space (`n·x ≤ offset`, a floor or a wall): a sphere already touching or
/// behind it answers `Some(0.0)`. `n` need not be unit length (it is normalised); a zero `n` or invalid input
/// gives `None`. Cost: two dot products and a division.
#[must_use]
pub fn toi_sphere_plane(c: Vec3, r: f32, d: Vec3, n: Vec3, offset: f32) -> Option<f32> {
    if !(c.is_finite() && d.is_finite() && n.is_finite() && offset.is_finite() && r >= 0.0 && r.is_finite()) {
        return None;
    }
    let len = n.length();
    if len == 0.0 {
        return None;
    }
    // Signed distance of the centre from the plane, and its change over the step.
    let s0 = (n.dot(c) - offset) / len;
    if s0 <= r {
        return Some(0.0);
    }
    let ds = n.dot(d) / len;
    if ds >= 0.0 {
        return None;
    }
    let t = (s0 - r) / -ds;
    (t <= 1.0).then_some(t)
}

/// Earliest `t` in `[0, 1]` at which a sphere moving by `d` touches the static box `obb` (a thin wall, say);
/// `None` if never. **Exact**, not conservative advancement.
///
/// The centre's path is tested against the box grown by `r` — the Minkowski sum of box and sphere, a rounded
/// box — which is the union of three boxes (the box grown by `r` along one axis each), twelve cylinders of
/// radius `r` around the edges and eight spheres of radius `r` at the corners. The earliest entry into a union
/// is the earliest entry into any part, and each part has a closed form (slab test, the quadratic for a
/// cylinder's side, the sphere quadratic), so the answer is exact up to rounding whatever the speed — no
/// iteration count, no tolerance, no slow convergence at grazing angles as conservative advancement has.
/// A path that misses the box's bounding slab box skips the 20 curved parts. Invalid input gives `None`.
#[must_use]
pub fn toi_sphere_box(c: Vec3, r: f32, d: Vec3, obb: &Obb) -> Option<f32> {
    let f = BoxFrame::new(obb)?;
    if !(c.is_finite() && d.is_finite() && r >= 0.0 && r.is_finite()) {
        return None;
    }
    // In the box's frame the box is [-h, h], so every part is axis-aligned.
    let p = f.local(c);
    let v = Vec3::new(d.dot(f.axes[0]), d.dot(f.axes[1]), d.dot(f.axes[2]));
    let h = Vec3::from_array(f.half);
    let gap = (p.abs() - h).max(Vec3::ZERO);
    if gap.length_squared() <= r * r {
        return Some(0.0);
    }
    // The path must enter the box grown by r on every axis, which contains the whole rounded box.
    slab_entry(p, v, h + Vec3::splat(r))?;
    let mut best: Option<f32> = None;
    let mut consider = |t: Option<f32>| {
        if let Some(t) = t
            && best.is_none_or(|b| t < b)
        {
            best = Some(t);
        }
    };
    for k in 0..3 {
        let mut grown = h;
        grown[k] += r;
        consider(slab_entry(p, v, grown));
    }
    for corner in 0..8 {
        let s = Vec3::new(sign_bit(corner, 0), sign_bit(corner, 1), sign_bit(corner, 2));
        consider(toi_point_sphere(p - s * h, v, r));
    }
    for k in 0..3 {
        // The four edges along axis k: the other two coordinates at ±h.
        let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
        for e in 0..4 {
            let mut start = Vec3::ZERO;
            start[k1] = sign_bit(e, 0) * h[k1];
            start[k2] = sign_bit(e, 1) * h[k2];
            start[k] = -h[k];
            consider(toi_cylinder_side(p - start, v, k, 2.0 * h[k], r));
        }
    }
    best
}

/// Earliest `t` in `[0, 1]` at which boxes `a` and `b`, moving linearly by `da` and `db` without turning, first
/// touch; `None` if never. Overlapping at `t = 0` gives `Some(0.0)`. **Exact** (up to rounding), no iteration.
///
/// Separating axes on the move (Ericson's moving-box test, for oriented boxes): boxes that keep their
/// orientations overlap at `t` exactly when their projections overlap on every one of the 15 axes of
/// [`box_box`](crate::box_box), and those axes do not change while the boxes only translate. On an axis `L` the
/// distance between the projected centres is `s(t) = L·(cb − ca) + t·L·(db − da)` and the projections overlap
/// while `|s(t)| ≤ ra + rb` (the boxes' projected radii): one interval of `t`, solved linearly. The boxes touch on
/// the intersection of the 15 intervals, so the time of impact is the latest entry, if it comes before the
/// earliest exit. Edge axes of parallel edges are skipped and the edge radii padded, as in `box_box` (the face
/// axes cover every separation parallel edges can have; the padding errs toward touching a hair early).
///
/// A box that turns during the step is taken at one orientation for the whole step (the caller's choice: the
/// simulation passes the end-of-step orientation); the discrete test at the step's end sees the turn.
/// Invalid boxes or motions give `None`. Cost: two quaternion-to-matrix conversions, the nine cosines, and 15 axes
/// of a few multiplies and two divisions each, stopping at the first axis whose interval misses the step or the
/// others.
#[must_use]
pub fn toi_box_box(a: &Obb, da: Vec3, b: &Obb, db: Vec3) -> Option<f32> {
    let fa = BoxFrame::new(a)?;
    let fb = BoxFrame::new(b)?;
    if !(da.is_finite() && db.is_finite()) {
        return None;
    }
    // As in `box_box`, everything in a's frame from the nine cosines: the gap between the centres `t` and its
    // change over the step `u`.
    let (ha, hb) = (fa.half, fb.half);
    let (r, abs) = cosines(&fa, &fb);
    let (d, v) = (fb.center - fa.center, db - da);
    let t = [d.dot(fa.axes[0]), d.dot(fa.axes[1]), d.dot(fa.axes[2])];
    let u = [v.dot(fa.axes[0]), v.dot(fa.axes[1]), v.dot(fa.axes[2])];
    let mut window = (0.0_f32, 1.0_f32);
    // a's faces.
    for i in 0..3 {
        let rb = hb[0] * abs[i][0] + hb[1] * abs[i][1] + hb[2] * abs[i][2];
        if !narrow(&mut window, t[i], u[i], ha[i] + rb) {
            return None;
        }
    }
    // b's faces: the projections on bⱼ are the column j of `r` applied to `t` and `u`.
    for j in 0..3 {
        let ra = ha[0] * abs[0][j] + ha[1] * abs[1][j] + ha[2] * abs[2][j];
        let s = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        let ds = u[0] * r[0][j] + u[1] * r[1][j] + u[2] * r[2][j];
        if !narrow(&mut window, s, ds, ra + hb[j]) {
            return None;
        }
    }
    // The edges aᵢ × bⱼ, Gottschalk's projections (see `box_box`), all scaled by the axis's length alike, which
    // leaves the times unchanged; parallel edges skipped, the radii padded.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            if r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j] < PARALLEL_SINE * PARALLEL_SINE {
                continue;
            }
            let ra = ha[i1] * (abs[i2][j] + ABS_PAD) + ha[i2] * (abs[i1][j] + ABS_PAD);
            let rb = hb[j1] * (abs[i][j2] + ABS_PAD) + hb[j2] * (abs[i][j1] + ABS_PAD);
            let s = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            let ds = u[i2] * r[i1][j] - u[i1] * r[i2][j];
            if !narrow(&mut window, s, ds, ra + rb) {
                return None;
            }
        }
    }
    Some(window.0)
}

/// Narrow the window `[enter, exit]` of a step to the times at which projections `s + ds·t` apart by their centres
/// overlap with radii summing to `r` (`|s + ds·t| ≤ r`); `false` when nothing is left.
#[inline]
fn narrow(window: &mut (f32, f32), s: f32, ds: f32, r: f32) -> bool {
    if ds == 0.0 {
        return s.abs() <= r;
    }
    let (t0, t1) = ((-r - s) / ds, (r - s) / ds);
    let (near, far) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
    window.0 = window.0.max(near);
    window.1 = window.1.min(far);
    window.0 <= window.1
}

/// Earliest `t` in `[0, 1]` at which solids `a` and `b` moving linearly by `da` and `db` first touch, whatever
/// their shapes ([`toi_sphere_sphere`], [`toi_sphere_box`] on the relative motion with the box standing still,
/// [`toi_box_box`]); `None` if never. Boxes keep their orientation through the step.
#[must_use]
pub fn toi_solids(a: &Solid, da: Vec3, b: &Solid, db: Vec3) -> Option<f32> {
    match (a, b) {
        (Solid::Sphere(ca, ra), Solid::Sphere(cb, rb)) => toi_sphere_sphere(*ca, *ra, da, *cb, *rb, db),
        (Solid::Sphere(c, r), Solid::Box(obb)) => toi_sphere_box(*c, *r, da - db, obb),
        (Solid::Box(obb), Solid::Sphere(c, r)) => toi_sphere_box(*c, *r, db - da, obb),
        (Solid::Box(a), Solid::Box(b)) => toi_box_box(a, da, b, db),
    }
}

/// `+1` or `-1` from bit `bit` of `index`: the corners and edges enumerated by sign patterns.
#[inline]
fn sign_bit(index: u32, bit: u32) -> f32 {
    if index >> bit & 1 == 1 { 1.0 } else { -1.0 }
}

/// When the path `p + v·t` enters the box `[-e, e]` for `t ∈ [0, 1]` (the slab test); `None` if it does not.
/// A start inside answers 0 (the callers have ruled that out for the parts that matter).
fn slab_entry(p: Vec3, v: Vec3, e: Vec3) -> Option<f32> {
    let (mut enter, mut exit) = (0.0_f32, 1.0_f32);
    for k in 0..3 {
        if v[k] == 0.0 {
            if p[k].abs() > e[k] {
                return None;
            }
            continue;
        }
        let (t0, t1) = ((-e[k] - p[k]) / v[k], (e[k] - p[k]) / v[k]);
        let (near, far) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
        enter = enter.max(near);
        exit = exit.min(far);
        if enter > exit {
            return None;
        }
    }
    Some(enter)
}

/// When the path `w + v·t` (relative to an edge's start) enters the side of the cylinder of radius `r` around
/// the edge along axis `k` of length `len`; `None` if it does not within `[0, 1]`. Entering through an end is
/// the corner sphere's business, and a start already within the infinite cylinder cannot enter its side.
fn toi_cylinder_side(w: Vec3, v: Vec3, k: usize, len: f32, r: f32) -> Option<f32> {
    // Only the components across the edge count for the distance to it.
    let (mut m, mut n) = (w, v);
    m[k] = 0.0;
    n[k] = 0.0;
    let c = m.length_squared() - r * r;
    if c <= 0.0 {
        return None;
    }
    let t = toi_point_sphere(m, n, r)?;
    let along = w[k] + v[k] * t;
    (0.0..=len).contains(&along).then_some(t)
}

#[cfg(test)]
mod tests;
