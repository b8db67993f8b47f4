//! Box against box by separating axes (Gottschalk's OBB test), then the contact: reference-face clipping for a
//! face axis, closest points of two edges for an edge axis.
//!
//! Two convex boxes are apart exactly when some axis separates their projections, and for boxes 15 axes are
//! enough: the three face normals of each and the nine cross products of an edge of one with an edge of the
//! other. Everything is computed in `a`'s frame from `R = Aᵀ·B` (the nine cosines between the axes), so one
//! axis costs a few multiplies, and the first separating axis ends the test.

use crate::Manifold;
use crate::clip;
use crate::frame::BoxFrame;
use collide_math::{Obb, Vec3};

/// An edge axis `aᵢ × bⱼ` shorter than this (the sine of the angle between the edges) is skipped: the edges are
/// parallel or nearly so, and the cross product gives no reliable direction (a NaN once normalised when exactly
/// parallel). For exactly parallel edges the face axes cover every separation the edges can have. For nearly
/// parallel ones they do not quite: two long beams whose edges meet at a sine below this, and that only the
/// skipped edge axis would separate, are reported touching up to about `PARALLEL_SINE` × their length apart. The
/// error leans toward overlap (a contact the solver finds at zero depth), never toward a missed one, and the
/// tests pin the cut-off (`test_beams.rs`). The axes are unit vectors, so this is a relative epsilon.
pub(crate) const PARALLEL_SINE: f32 = 1e-4;
/// Added to `|R|` in the edge axes' radii, as Gottschalk does: near-parallel edges round their cross product
/// badly, and the padding makes the test err toward "overlapping" rather than report a false separation.
pub(crate) const ABS_PAD: f32 = 1e-6;
/// An edge axis replaces the best face axis only if its penetration is below this fraction of the face's
/// (less a small length) — 2%, Box2D's relative tolerance: face contacts give four stable points, an edge contact one, and an edge chosen by a
/// rounding-level margin would flicker between the two (Box2D's and Bullet's bias).
const EDGE_REL: f32 = 0.98;
/// Likewise, `b`'s face replaces `a`'s only if clearly better, so that two equally good faces choose the same
/// reference frame after frame.
const FACE_REL: f32 = 0.98;
/// The absolute part of both biases and of the clipping's "below the reference face" test, times the larger
/// box's size.
pub(crate) const LINEAR_REL: f32 = 1e-5;

/// Which axis gave the least penetration.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    /// `a`'s face axis `i`.
    FaceA(usize),
    /// `b`'s face axis `j`.
    FaceB(usize),
    /// `aᵢ × bⱼ`, with its world direction (unit).
    Edge(usize, usize, Vec3),
}

/// The contact of boxes `a` and `b`: `None` when apart, else up to four points sharing the normal that points
/// from `b` toward `a`. Touching (depth 0) counts. Invalid boxes give `None`.
///
/// Cost: two quaternion-to-matrix conversions, 15 axis tests (fewer when one separates), then either clipping a
/// quadrilateral against four planes or the closest points of two segments — no allocation, no loop that
/// depends on the input beyond those fixed bounds.
#[must_use]
pub fn box_box(a: &Obb, b: &Obb) -> Option<Manifold> {
    let fa = BoxFrame::new(a)?;
    let fb = BoxFrame::new(b)?;
    let (axis, depth) = least_penetration(&fa, &fb)?;
    let tol = LINEAR_REL * fa.size().max(fb.size());
    Some(match axis {
        Axis::FaceA(i) => {
            // `a` is the reference; its face toward `b` points from `a` to `b`, against the manifold's normal.
            let to_b = side(fa.axes[i], fb.center - fa.center);
            clip::face_contact(&fa, i, to_b, &fb, tol, -to_b, depth)
        }
        Axis::FaceB(j) => {
            let to_a = side(fb.axes[j], fa.center - fb.center);
            clip::face_contact(&fb, j, to_a, &fa, tol, to_a, depth)
        }
        Axis::Edge(i, j, l) => edge_contact(&fa, i, &fb, j, l, depth),
    })
}

/// `axis` or its opposite, whichever points along `toward` (the positive one on a tie).
#[inline]
fn side(axis: Vec3, toward: Vec3) -> Vec3 {
    if axis.dot(toward) >= 0.0 { axis } else { -axis }
}

/// The nine cosines `r[i][j] = aᵢ·bⱼ` (b's axes in a's frame are the columns) and their absolute values: every
/// axis test of a box pair reads its projections from these.
#[inline]
pub(crate) fn cosines(fa: &BoxFrame, fb: &BoxFrame) -> ([[f32; 3]; 3], [[f32; 3]; 3]) {
    let mut r = [[0.0_f32; 3]; 3];
    let mut abs = [[0.0_f32; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = fa.axes[i].dot(fb.axes[j]);
            abs[i][j] = r[i][j].abs();
        }
    }
    (r, abs)
}

/// The 15 axes: `None` at the first that separates, else the axis to resolve along and its penetration.
///
/// The three families are tested in turn (a's faces, b's faces, the edges) so that the common case — apart
/// boxes — usually stops after a face axis. One function, because the 15 tests share the rotation tables.
/// (Comparing the edge axes by squared penetration, to save eight of their nine square roots, was tried: the
/// instruction count stayed the same, 1650 per call on the bench's pairs, and the time within noise.)
fn least_penetration(fa: &BoxFrame, fb: &BoxFrame) -> Option<(Axis, f32)> {
    let (ha, hb) = (fa.half, fb.half);
    let (r, abs) = cosines(fa, fb);
    let d = fb.center - fa.center;
    let t = [d.dot(fa.axes[0]), d.dot(fa.axes[1]), d.dot(fa.axes[2])];

    // a's faces.
    let mut best_a = (0, f32::INFINITY);
    for i in 0..3 {
        let rb = hb[0] * abs[i][0] + hb[1] * abs[i][1] + hb[2] * abs[i][2];
        let pen = ha[i] + rb - t[i].abs();
        if pen < 0.0 {
            return None;
        }
        if pen < best_a.1 {
            best_a = (i, pen);
        }
    }
    // b's faces.
    let mut best_b = (0, f32::INFINITY);
    for j in 0..3 {
        let ra = ha[0] * abs[0][j] + ha[1] * abs[1][j] + ha[2] * abs[2][j];
        let dist = t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j];
        let pen = ra + hb[j] - dist.abs();
        if pen < 0.0 {
            return None;
        }
        if pen < best_b.1 {
            best_b = (j, pen);
        }
    }
    let tol = LINEAR_REL * fa.size().max(fb.size());
    let (mut axis, mut depth) = if best_b.1 < FACE_REL * best_a.1 - tol {
        (Axis::FaceB(best_b.0), best_b.1)
    } else {
        (Axis::FaceA(best_a.0), best_a.1)
    };
    // The edges: L = aᵢ × bⱼ in a's frame is eᵢ × (column j of r). With (i1, i2) and (j1, j2) the other two
    // indices, the projections are Gottschalk's: |t·L| = |t[i2]·r[i1][j] − t[i1]·r[i2][j]|, and the radii
    // ha[i1]·|r[i2][j]| + ha[i2]·|r[i1][j]| and hb[j1]·|r[i][j2]| + hb[j2]·|r[i][j1]|, all scaled by |L|.
    let mut best_edge: Option<(usize, usize, f32)> = None;
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let len2 = r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j];
            if len2 < PARALLEL_SINE * PARALLEL_SINE {
                continue;
            }
            let ra = ha[i1] * (abs[i2][j] + ABS_PAD) + ha[i2] * (abs[i1][j] + ABS_PAD);
            let rb = hb[j1] * (abs[i][j2] + ABS_PAD) + hb[j2] * (abs[i][j1] + ABS_PAD);
            let dist = (t[i2] * r[i1][j] - t[i1] * r[i2][j]).abs();
            let pen = (ra + rb - dist) / len2.sqrt();
            if pen < 0.0 {
                return None;
            }
            if best_edge.is_none_or(|(_, _, p)| pen < p) {
                best_edge = Some((i, j, pen));
            }
        }
    }
    if let Some((i, j, pen)) = best_edge
        && pen < EDGE_REL * depth - tol
    {
        let l = fa.axes[i].cross(fb.axes[j]).normalize();
        // Oriented from a toward b, so that the edge contact can find each box's supporting edge.
        axis = Axis::Edge(i, j, side(l, d));
        depth = pen;
    }
    Some((axis, depth))
}

/// The edge–edge contact: the edge of `a` along axis `i` that lies furthest toward `b` along `l` (the axis,
/// pointing from `a` to `b`), the edge of `b` along `j` furthest toward `a`, and the midpoint of their closest
/// points. One point: two crossing edges touch at one point.
fn edge_contact(fa: &BoxFrame, i: usize, fb: &BoxFrame, j: usize, l: Vec3, depth: f32) -> Manifold {
    let support = |f: &BoxFrame, skip: usize, dir: Vec3| {
        let mut p = f.center;
        for k in (0..3).filter(|&k| k != skip) {
            p += side(f.axes[k], dir) * f.half[k];
        }
        p
    };
    let pa = support(fa, i, l);
    let pb = support(fb, j, -l);
    let (qa, qb) = closest_on_segments(pa, fa.axes[i], fa.half[i], pb, fb.axes[j], fb.half[j]);
    Manifold::single(-l, (qa + qb) * 0.5, depth)
}

/// The closest points of the segments `pa ± ua·ha` and `pb ± ub·hb` (`ua`, `ub` unit). The lines are not
/// parallel here (parallel edges never make an edge axis), but the clamp keeps a near-parallel pair finite.
fn closest_on_segments(pa: Vec3, ua: Vec3, ha: f32, pb: Vec3, ub: Vec3, hb: f32) -> (Vec3, Vec3) {
    let w = pa - pb;
    let b = ua.dot(ub);
    let (d, e) = (ua.dot(w), ub.dot(w));
    let denom = 1.0 - b * b;
    let s = if denom > 1e-12 { ((b * e - d) / denom).clamp(-ha, ha) } else { 0.0 };
    // The best point on b for that s, then the best on a for that point (one refinement handles the clamps).
    let u = (e + b * s).clamp(-hb, hb);
    let s = (b * u - d).clamp(-ha, ha);
    (pa + ua * s, pb + ub * u)
}

#[cfg(test)]
mod tests;
