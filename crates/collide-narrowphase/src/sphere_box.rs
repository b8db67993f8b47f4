//! Sphere against oriented box: the closest point of the box, or, with the centre inside, the nearest face.

use crate::Contact;
use crate::frame::BoxFrame;
use collide_math::{Obb, Vec3};

/// The contact of the sphere `(center, radius)` (body `a`) with the box `obb` (body `b`), or `None` when they are
/// apart. Touching counts; the normal points from the box toward the sphere.
///
/// - Centre outside the box: the normal runs from the box's closest point to the centre, and the depth is the
///   radius minus that distance.
/// - Centre inside (on the surface included): the closest point is the centre itself and gives no direction, so
///   the sphere is pushed out through the face it is nearest to — the face of least penetration; the normal is
///   that face's outward normal and the depth the radius plus the distance to it. A tie between faces picks the
///   lowest axis (x, then y, then z) and the positive face, so the answer does not flicker.
///
/// The point is midway through the overlap: between the box's surface and the sphere's deepest point.
/// Invalid input (NaN, a negative radius, an invalid box) gives `None`. Cost: one quaternion-to-matrix
/// conversion, three dot products, a clamp and, on contact, one square root.
#[must_use]
pub fn sphere_box(center: Vec3, radius: f32, obb: &Obb) -> Option<Contact> {
    let frame = BoxFrame::new(obb)?;
    if !(center.is_finite() && radius >= 0.0 && radius.is_finite()) {
        return None;
    }
    let local = frame.local(center);
    let half = Vec3::from_array(frame.half);
    let inside = local.abs().cmple(half).all();
    if inside {
        // The face of least penetration: the smallest gap between |local| and the half extent.
        let gap = half - local.abs();
        let axis = if gap.x <= gap.y && gap.x <= gap.z {
            0
        } else if gap.y <= gap.z {
            1
        } else {
            2
        };
        let sign = if local[axis] >= 0.0 { 1.0 } else { -1.0 };
        let normal = frame.axes[axis] * sign;
        let depth = radius + gap[axis];
        // From the sphere's deepest point (centre − normal·r) to the face (centre + normal·gap), halfway.
        let point = center + normal * ((gap[axis] - radius) * 0.5);
        return Some(Contact { normal, depth, point });
    }
    let closest = local.clamp(-half, half);
    let d = local - closest;
    let dist2 = d.length_squared();
    if dist2 > radius * radius {
        return None;
    }
    // Outside, so `d` is not zero unless the distance underflowed; then any face normal will do.
    let dist = dist2.sqrt();
    let normal = if dist > 0.0 { frame.vector_to_world(d / dist) } else { frame.axes[0] };
    let surface = frame.center + frame.vector_to_world(closest);
    let point = (surface + center - normal * radius) * 0.5;
    Some(Contact { normal, depth: radius - dist, point })
}

#[cfg(test)]
mod tests;
