//! The face contact of two boxes: the incident face clipped to the reference face (Sutherland–Hodgman), the
//! points below the reference face kept, at most four of them chosen.

use crate::frame::BoxFrame;
use crate::{ContactPoint, Manifold};
use collide_math::Vec3;

/// A polygon of at most eight vertices: a quadrilateral clipped by four planes gains at most one vertex per
/// plane. A fixed array, so a contact never allocates.
#[derive(Clone, Copy)]
struct Polygon {
    v: [Vec3; 8],
    len: usize,
}

impl Polygon {
    fn push(&mut self, p: Vec3) {
        // Cannot overflow (see the type's doc); the guard keeps a logic error from panicking in release.
        if self.len < self.v.len() {
            self.v[self.len] = p;
            self.len += 1;
        }
    }
}

/// The contact of the reference box's face `axis` (outward normal `n_ref`, pointing toward the incident box)
/// with the incident box: the manifold gets `normal` (from `b` toward `a`) and the clipped points.
///
/// `sat_depth` is the separating-axis penetration; if rounding clips every point away (possible only for boxes
/// that barely touch), one point at the incident box's support vertex is returned with it, so a contact the
/// axis test found is never lost.
pub(crate) fn face_contact(
    reference: &BoxFrame,
    axis: usize,
    n_ref: Vec3,
    incident: &BoxFrame,
    tol: f32,
    normal: Vec3,
    sat_depth: f32,
) -> Manifold {
    let quad = incident_face(incident, n_ref);
    let clipped = clip_to_side_planes(reference, axis, quad);
    // The reference face's plane: n_ref·x = plane. A point's depth is how far below it lies.
    let plane = n_ref.dot(reference.center) + reference.half[axis];
    let mut kept = [ContactPoint::default(); 8];
    let mut count = 0;
    for &p in &clipped.v[..clipped.len] {
        let depth = plane - n_ref.dot(p);
        if depth >= -tol {
            let depth = depth.max(0.0);
            // Midway between the incident point and its projection on the reference face.
            kept[count] = ContactPoint { point: p + n_ref * (depth * 0.5), depth };
            count += 1;
        }
    }
    if count == 0 {
        let v = support_vertex(incident, -n_ref);
        let depth = sat_depth.max(0.0);
        return Manifold::single(normal, v + n_ref * (depth * 0.5), depth);
    }
    let mut m = Manifold { normal, points: [ContactPoint::default(); 4], len: 0 };
    reduce(&kept[..count], n_ref, &mut m);
    m
}

/// The incident box's face most anti-parallel to `n_ref`, as a quadrilateral in winding order.
fn incident_face(f: &BoxFrame, n_ref: Vec3) -> Polygon {
    let dots = [f.axes[0].dot(n_ref), f.axes[1].dot(n_ref), f.axes[2].dot(n_ref)];
    let k = if dots[0].abs() >= dots[1].abs() && dots[0].abs() >= dots[2].abs() {
        0
    } else if dots[1].abs() >= dots[2].abs() {
        1
    } else {
        2
    };
    // The face whose outward normal points against n_ref.
    let n = if dots[k] > 0.0 { -f.axes[k] } else { f.axes[k] };
    let c = f.center + n * f.half[k];
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let (u, v) = (f.axes[k1] * f.half[k1], f.axes[k2] * f.half[k2]);
    let mut poly = Polygon { v: [Vec3::ZERO; 8], len: 0 };
    for p in [c + u + v, c - u + v, c - u - v, c + u - v] {
        poly.push(p);
    }
    poly
}

/// Sutherland–Hodgman: clip `poly` by the four side planes of the reference face (`±` the other two axes at
/// their half extents).
fn clip_to_side_planes(reference: &BoxFrame, axis: usize, mut poly: Polygon) -> Polygon {
    for k in [(axis + 1) % 3, (axis + 2) % 3] {
        let n = reference.axes[k];
        let c = n.dot(reference.center);
        for (sign, offset) in [(1.0, c + reference.half[k]), (-1.0, -c + reference.half[k])] {
            poly = clip_plane(&poly, n * sign, offset);
            if poly.len == 0 {
                return poly;
            }
        }
    }
    poly
}

/// The part of `poly` where `n·x <= offset`.
fn clip_plane(poly: &Polygon, n: Vec3, offset: f32) -> Polygon {
    let mut out = Polygon { v: [Vec3::ZERO; 8], len: 0 };
    for i in 0..poly.len {
        let (p, q) = (poly.v[i], poly.v[(i + 1) % poly.len]);
        let (dp, dq) = (n.dot(p) - offset, n.dot(q) - offset);
        if dp <= 0.0 {
            out.push(p);
        }
        // An edge that crosses the plane contributes the crossing (strictly opposite signs, so no division by 0).
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
    out
}

/// The vertex of `f` furthest along `dir`.
fn support_vertex(f: &BoxFrame, dir: Vec3) -> Vec3 {
    let mut p = f.center;
    for k in 0..3 {
        let s = if f.axes[k].dot(dir) >= 0.0 { 1.0 } else { -1.0 };
        p += f.axes[k] * (s * f.half[k]);
    }
    p
}

/// Keep at most four of `points`: the deepest, the one furthest from it, the one spanning the largest triangle
/// with those two, and the one furthest on the other side of their line — the area a box rests on, so the
/// resolution's torques balance, with the deepest point always in.
fn reduce(points: &[ContactPoint], n: Vec3, m: &mut Manifold) {
    if points.len() <= 4 {
        m.points[..points.len()].copy_from_slice(points);
        m.len = points.len() as u8;
        return;
    }
    let argmax = |score: &dyn Fn(&ContactPoint) -> f32| {
        let mut best = (0, f32::NEG_INFINITY);
        for (i, p) in points.iter().enumerate() {
            let s = score(p);
            if s > best.1 {
                best = (i, s);
            }
        }
        best.0
    };
    let i0 = argmax(&|p| p.depth);
    let p0 = points[i0].point;
    let i1 = argmax(&|p| (p.point - p0).length_squared());
    let p1 = points[i1].point;
    // Signed area (times 2) of (p0, p1, p) seen along the normal.
    let area = |p: Vec3| (p1 - p0).cross(p - p0).dot(n);
    let i2 = argmax(&|p| area(p.point).abs());
    let side = area(points[i2].point).signum();
    let i3 = argmax(&|p| -side * area(p.point));
    let picked = [i0, i1, i2, i3];
    let mut len = 0;
    for (k, &i) in picked.iter().enumerate() {
        // Degenerate sets (all points on a line) can pick one index twice; keep each once.
        if !picked[..k].contains(&i) {
            m.points[len] = points[i];
            len += 1;
        }
    }
    m.len = len as u8;
}

#[cfg(test)]
mod tests;
