//! The broadphase's speed hint ([`Frame::with_speed`](collide_broadphase::Frame::with_speed)): how far the bodies
//! move per step, over their box's size.
//!
//! The simulation knows every velocity, so it can tell the broadphase on the very first step what one frame of
//! boxes cannot: whether the scene drifts slowly (a dynamic tree pays off) or moves fast (a structure rebuilt
//! every frame does). The meta-broadphase `auto` then builds the right structure at once instead of a cheap one
//! to be replaced; every other algorithm ignores the hint.

use collide_math::{Aabb, Vec3};

/// Bodies read for the hint, so the cost is bounded whatever the body count.
const SAMPLED: usize = 256;

/// The golden ratio's fractional part: the step of the Weyl sequence that picks the bodies read.
const WEYL_STEP: f64 = 0.618_033_988_749_894_9;

/// The mean of `|v|·dt / size` over every body, or over `SAMPLED` (256) of them spread through the columns when
/// there are more, `size` being the longest side of the body's box. 0 for no bodies. O(256).
///
/// The bodies read are `⌊frac(k·φ)·n⌋` for k = 0, 1, …: spread over the whole range, and aligned with no
/// period of the body order. A plain stride would be: in `mixed-sizes` every tenth body is 8 times the radius,
/// and a stride of 40 through 10⁴ bodies read only those, so the hint came out 8 times too slow (0.10 where the
/// boxes moved 0.73 of their size a step) and `auto`'s first pick was a dynamic tree that ran 1.7× the grid.
#[must_use]
pub fn speed_hint(velocity: &[Vec3], aabbs: &[Aabb], dt: f32) -> f32 {
    let n = velocity.len().min(aabbs.len());
    if n == 0 {
        return 0.0;
    }
    let (mut sum, mut count) = (0.0f32, 0u32);
    let mut add = |i: usize| {
        let size = aabbs[i].extents().max_element();
        if size > 0.0 && size.is_finite() {
            let v = velocity[i].length() * dt / size;
            if v.is_finite() {
                sum += v;
                count += 1;
            }
        }
    };
    if n <= SAMPLED {
        (0..n).for_each(&mut add);
    } else {
        let mut at = 0.0f64;
        for _ in 0..SAMPLED {
            // `at` is in [0, 1), so the index is below n (the `min` guards the rounding of n·at near 1).
            add(((at * n as f64) as usize).min(n - 1));
            at = (at + WEYL_STEP).fract();
        }
    }
    if count == 0 { 0.0 } else { sum / count as f32 }
}

#[cfg(test)]
mod tests;
