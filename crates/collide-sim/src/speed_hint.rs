//! The broadphase's speed hint ([`Frame::with_speed`](collide_broadphase::Frame::with_speed)): how far the bodies
//! move per step, over their box's size.
//!
//! The simulation knows every velocity, so it can tell the broadphase on the very first step what one frame of
//! boxes cannot: whether the scene drifts slowly (a dynamic tree pays off) or moves fast (a structure rebuilt
//! every frame does). The meta-broadphase `auto` then builds the right structure at once instead of a cheap one
//! to be replaced; every other algorithm ignores the hint.

use collide_math::{Aabb, Vec3};

/// Bodies read for the hint: a stride through the columns, so the cost is bounded whatever the body count.
const SAMPLED: usize = 256;

/// The mean of `|v|·dt / size` over up to [`SAMPLED`] bodies spread through the columns, `size` being the
/// longest side of the body's box. 0 for no bodies. O(256).
#[must_use]
pub fn speed_hint(velocity: &[Vec3], aabbs: &[Aabb], dt: f32) -> f32 {
    let n = velocity.len().min(aabbs.len());
    if n == 0 {
        return 0.0;
    }
    let stride = n.div_ceil(SAMPLED);
    let (mut sum, mut count) = (0.0f32, 0u32);
    for i in (0..n).step_by(stride) {
        let size = aabbs[i].extents().max_element();
        if size > 0.0 && size.is_finite() {
            let v = velocity[i].length() * dt / size;
            if v.is_finite() {
                sum += v;
                count += 1;
            }
        }
    }
    if count == 0 { 0.0 } else { sum / count as f32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_is_the_mean_displacement_per_step_over_the_box_size() {
        // Boxes of size 1 (radius 0.5); the first half of the bodies at 6 units/s, the second at rest: 0.05 of a box
        // per 1/60 s step on average.
        let aabbs: Vec<Aabb> = (0..10_000).map(|i| Aabb::from_center_radius(Vec3::X * i as f32, 0.5)).collect();
        let velocity: Vec<Vec3> = (0..10_000).map(|i| if i < 5_000 { Vec3::Y * 6.0 } else { Vec3::ZERO }).collect();
        let hint = speed_hint(&velocity, &aabbs, 1.0 / 60.0);
        assert!((hint - 0.05).abs() < 0.005, "{hint}");
        assert_eq!(speed_hint(&[], &[], 1.0 / 60.0), 0.0);
        // A degenerate box or a NaN velocity is left out, not propagated.
        let flat = [Aabb::from_center_radius(Vec3::ZERO, 0.0), Aabb::from_center_radius(Vec3::ZERO, 0.5)];
        let v = [Vec3::X, Vec3::splat(f32::NAN)];
        assert_eq!(speed_hint(&v, &flat, 1.0), 0.0);
    }
}
