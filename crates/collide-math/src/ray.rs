use crate::{Aabb, Sphere};
use glam::Vec3;

/// A half line `origin + t * dir` for `t >= 0`; `dir` need not be normalised (then `t` is in units of `|dir|`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec3,
    /// The direction (and the unit of `t`).
    pub dir: Vec3,
}

impl Ray {
    /// A ray from origin and direction.
    #[inline]
    #[must_use]
    pub const fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`.
    #[inline]
    #[must_use]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }

    /// The first `t` in `[0, max_t]` at which the ray is inside the box (slab test); `0` when it starts inside.
    #[must_use]
    pub fn hit_aabb(&self, aabb: &Aabb, max_t: f32) -> Option<f32> {
        // Division by a zero component gives ±inf, which the min/max below handle: a ray parallel to a slab
        // either lies between its planes (inf, -inf ordering keeps it) or misses.
        let inv = self.dir.recip();
        let t1 = (aabb.min - self.origin) * inv;
        let t2 = (aabb.max - self.origin) * inv;
        let t_near = t1.min(t2).max_element().max(0.0);
        let t_far = t1.max(t2).min_element().min(max_t);
        (t_near <= t_far).then_some(t_near)
    }

    /// The first `t >= 0` at which the ray touches the sphere; `0` when it starts inside.
    #[must_use]
    pub fn hit_sphere(&self, sphere: &Sphere) -> Option<f32> {
        let m = self.origin - sphere.center;
        let c = m.length_squared() - sphere.radius * sphere.radius;
        if c <= 0.0 {
            return Some(0.0);
        }
        let a = self.dir.length_squared();
        let b = m.dot(self.dir);
        if b > 0.0 || a == 0.0 {
            return None; // outside and pointing away (or no direction at all)
        }
        let disc = b * b - a * c;
        (disc >= 0.0).then(|| (-b - disc.sqrt()) / a)
    }
}

#[cfg(test)]
mod tests;
