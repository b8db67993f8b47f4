use collide_broadphase::Resize;
use collide_math::{Aabb, Vec3};

/// The bodies, as struct-of-arrays: body `i` is `position[i]`, `velocity[i]`, … .
///
/// Columns rather than a `Vec<Body>` because each phase reads only some of them (the AABB pass reads centres
/// and radii, integration reads positions and velocities), and a column streams through the cache.
#[derive(Clone, Debug, Default)]
pub struct Bodies {
    /// Centres.
    pub position: Vec<Vec3>,
    /// Velocities in units per second.
    pub velocity: Vec<Vec3>,
    /// Sphere radii (the AABB half extent).
    pub radius: Vec<f32>,
    /// 1 / mass; 0 means immovable.
    pub inv_mass: Vec<f32>,
    /// The step of the body's last contact (`u64::MAX`: never), for the renderer's collision flash.
    pub last_contact: Vec<u64>,
}

impl Bodies {
    /// The number of bodies.
    #[must_use]
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// `true` when there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Append a sphere; its mass is its volume (density 1), so larger bodies are heavier.
    pub fn push_sphere(&mut self, position: Vec3, velocity: Vec3, radius: f32) {
        let mass = 4.0 / 3.0 * std::f32::consts::PI * radius * radius * radius;
        self.position.push(position);
        self.velocity.push(velocity);
        self.radius.push(radius);
        self.inv_mass.push(1.0 / mass);
        self.last_contact.push(u64::MAX);
    }

    /// Make room for `additional` more bodies in every column, or say that the allocator refused (instead of
    /// aborting the process, as growing a `Vec` does).
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), std::collections::TryReserveError> {
        self.position.try_reserve_exact(additional)?;
        self.velocity.try_reserve_exact(additional)?;
        self.radius.try_reserve_exact(additional)?;
        self.inv_mass.try_reserve_exact(additional)?;
        self.last_contact.try_reserve_exact(additional)
    }

    /// Give body `i` radius `radius`; its mass follows its volume.
    pub fn set_radius(&mut self, i: usize, radius: f32) {
        self.radius[i] = radius;
        self.inv_mass[i] = 1.0 / (4.0 / 3.0 * std::f32::consts::PI * radius * radius * radius);
    }

    /// Remove everything, keeping the allocations.
    pub fn clear(&mut self) {
        self.position.clear();
        self.velocity.clear();
        self.radius.clear();
        self.inv_mass.clear();
        self.last_contact.clear();
    }

    /// The bounding box of body `i`.
    #[inline]
    #[must_use]
    pub fn aabb(&self, i: usize) -> Aabb {
        Aabb::from_center_radius(self.position[i], self.radius[i])
    }

    /// `true` when every quantity of body `i` is finite.
    #[inline]
    #[must_use]
    pub fn is_finite(&self, i: usize) -> bool {
        self.position[i].is_finite() && self.velocity[i].is_finite() && self.radius[i].is_finite()
    }

    /// Remove the bodies marked in `doomed` (ascending indices), keeping the others in order. Fills
    /// `old_to_new` with the index map a broadphase's [`on_resize`](collide_broadphase::Broadphase::on_resize)
    /// needs. O(n).
    pub fn remove(&mut self, doomed: &[u32], old_to_new: &mut Vec<u32>) {
        let n = self.len();
        old_to_new.clear();
        old_to_new.resize(n, 0);
        let mut next_doomed = doomed.iter().peekable();
        let mut kept = 0;
        for (i, new_index) in old_to_new.iter_mut().enumerate() {
            if next_doomed.peek() == Some(&&(i as u32)) {
                next_doomed.next();
                *new_index = Resize::REMOVED;
                continue;
            }
            *new_index = kept as u32;
            self.position[kept] = self.position[i];
            self.velocity[kept] = self.velocity[i];
            self.radius[kept] = self.radius[i];
            self.inv_mass[kept] = self.inv_mass[i];
            self.last_contact[kept] = self.last_contact[i];
            kept += 1;
        }
        self.position.truncate(kept);
        self.velocity.truncate(kept);
        self.radius.truncate(kept);
        self.inv_mass.truncate(kept);
        self.last_contact.truncate(kept);
    }

    /// Total kinetic energy (for tests and the app's readout).
    #[must_use]
    pub fn kinetic_energy(&self) -> f64 {
        self.velocity
            .iter()
            .zip(&self.inv_mass)
            .filter(|(_, w)| **w > 0.0)
            .map(|(v, w)| 0.5 * f64::from(v.length_squared()) / f64::from(*w))
            .sum()
    }

    /// A hash of every position and velocity, bit for bit (FNV-1a): two runs agree iff this agrees.
    #[must_use]
    pub fn state_hash(&self) -> u64 {
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        let mut eat = |x: u32| {
            for byte in x.to_le_bytes() {
                h ^= u64::from(byte);
                h = h.wrapping_mul(0x0100_0000_01B3);
            }
        };
        eat(self.len() as u32);
        for (p, v) in self.position.iter().zip(&self.velocity) {
            for x in [p.x, p.y, p.z, v.x, v.y, v.z] {
                eat(x.to_bits());
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_compacts_in_order_and_maps_indices() {
        let mut b = Bodies::default();
        for i in 0..5 {
            b.push_sphere(Vec3::splat(i as f32), Vec3::ZERO, 1.0);
        }
        let mut map = Vec::new();
        b.remove(&[1, 3], &mut map);
        assert_eq!(map, [0, Resize::REMOVED, 1, Resize::REMOVED, 2]);
        assert_eq!(b.position, [Vec3::ZERO, Vec3::splat(2.0), Vec3::splat(4.0)]);
        assert_eq!(b.len(), 3);
        assert_eq!(b.radius.len(), 3);
    }

    #[test]
    fn a_reservation_the_allocator_refuses_is_an_error_not_an_abort() {
        let mut b = Bodies::default();
        assert!(b.try_reserve(1000).is_ok() && b.position.capacity() >= 1000);
        assert!(b.try_reserve(usize::MAX / 2).is_err());
        assert!(b.try_reserve(1 << 40).is_err(), "a terabyte of positions");
        assert_eq!(b.len(), 0);
    }

    #[test]
    fn hash_sees_every_bit() {
        let mut b = Bodies::default();
        b.push_sphere(Vec3::ONE, Vec3::X, 0.5);
        let h = b.state_hash();
        b.velocity[0].x = f32::from_bits(1.0f32.to_bits() + 1);
        assert_ne!(h, b.state_hash());
    }
}
