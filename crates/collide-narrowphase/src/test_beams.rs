//! Nearly parallel beams, shared by `box_box`'s and `toi`'s tests of the edge axes' padding and parallel cut-off.

use crate::box_box::PARALLEL_SINE;
use collide_math::{Obb, Quat, Vec3};

/// `a` of half extents (len, 1, 1) along x, `b` the same turned by `angle` about the diagonal
/// `w = (0, −1, 1)/√2` — so `a_x × b_x` is along `w`, with length sin(angle) — and moved along `w` so that their
/// projections on `w` (√2 each) are `gap` apart. Only the edge axis `a_x × b_x` can see that gap: on every other
/// axis `b`'s tilt adds about len·sin(angle)/√2 to its reach. Returns `a`, `b` and `w`.
pub(crate) fn beams(len: f32, angle: f32, gap: f32) -> (Obb, Obb, Vec3) {
    let w = Vec3::new(0.0, -1.0, 1.0).normalize();
    let a = Obb::new(Vec3::ZERO, Vec3::new(len, 1.0, 1.0), Quat::IDENTITY);
    let b = Obb::new(w * (2.0 * 2f32.sqrt() + gap), Vec3::new(len, 1.0, 1.0), Quat::from_axis_angle(w, angle));
    (a, b, w)
}

/// The angle near 10⁻⁴ at which `a_x × b_x`'s computed squared length is exactly `PARALLEL_SINE²`, found by
/// stepping through f32 values: the edge axis right at the cut-off.
pub(crate) fn angle_at_parallel_cutoff() -> f32 {
    let mut angle = 1e-4_f32 * 0.999;
    while angle <= 1e-4 * 1.001 {
        let (_, b, _) = beams(1e4, angle, 0.1);
        let bx = b.axes().x_axis;
        if bx.y * bx.y + bx.z * bx.z == PARALLEL_SINE * PARALLEL_SINE {
            return angle;
        }
        angle = f32::from_bits(angle.to_bits() + 1);
    }
    panic!("no angle whose sine squared is exactly the cut-off")
}
