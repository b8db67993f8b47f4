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

/// The mean of `|v|·dt / size` over up to `SAMPLED` (256) bodies spread through the columns, `size` being the
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
mod tests;
