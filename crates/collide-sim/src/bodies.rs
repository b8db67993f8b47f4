use crate::fnv::Fnv;
use collide_broadphase::Resize;
use collide_math::{Aabb, Obb, Quat, Vec3};
use collide_narrowphase::{Shape, ShapeColumns, Solid};
use collide_resolution::{SpinColumns, SpinState, box_inverse_inertia, rotational_energy, sphere_inverse_inertia};

/// The bodies, as struct-of-arrays: body `i` is `position[i]`, `velocity[i]`, … .
///
/// Columns rather than a `Vec<Body>` because each phase reads only some of them (the AABB pass reads centres
/// and radii, integration reads positions and velocities), and a column streams through the cache.
///
/// Bodies that spin — boxes, and spheres in a scene with friction — have five more columns, [`Spin`]. A scene of
/// spheres without friction has none ([`Bodies::spin`] is `None`): its step never reads them.
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
    /// Each body's id: its place in spawn order, dense (`0..n`). A spatial reorder ([`crate::Reorder`]) moves
    /// bodies between indices and their ids with them; what a user sees goes by id (the state hash, recordings,
    /// the app's colours and flashes). Removing bodies renumbers the later ids down, as it shifts a recording's
    /// boxes. Without reordering, `id[i] == i`.
    pub id: Vec<u32>,
    /// The spin columns, one entry per body, once a box or friction needs them ([`Bodies::enable_spin`]); `None`
    /// in a scene of spheres without friction.
    pub(crate) spin: Option<Spin>,
}

/// The columns of bodies that spin: shape, half extents, rotation, angular velocity and inverse inertia, one
/// entry per body (spheres included).
///
/// A box's `radius` (in [`Bodies`]) is its bounding radius `|half_extents|`: what the checks against the
/// container, the tunnelling counter and the fast-body test read. Its box for the broadphase comes from its
/// orientation ([`Obb::aabb`]).
#[derive(Clone, Debug, Default)]
pub struct Spin {
    /// Each body's shape.
    pub shape: Vec<Shape>,
    /// Box half extents, along the box's own axes (a sphere's radius on every axis, unused).
    pub half_extents: Vec<Vec3>,
    /// Orientations (unit quaternions; spheres keep the identity: a sphere's orientation shows nowhere).
    pub rotation: Vec<Quat>,
    /// Angular velocities in radians per second, **in each body's own frame** (its principal axes; the world's
    /// is `rotation[i] * angular_velocity[i]`): the rotation pass then never turns a vector into the world and
    /// back, whose rounding would bias the energy (see `collide_resolution::advance_rotation`).
    pub angular_velocity: Vec<Vec3>,
    /// The inverse principal moments of inertia (solid box or sphere, density 1), in the body's frame.
    pub inv_inertia: Vec<Vec3>,
    /// How many bodies are boxes.
    boxes: usize,
}

impl Spin {
    /// How many bodies are boxes.
    #[must_use]
    pub fn boxes(&self) -> usize {
        self.boxes
    }

    fn push(&mut self, shape: Shape, half_extents: Vec3, rotation: Quat, inv_inertia: Vec3) {
        self.shape.push(shape);
        self.half_extents.push(half_extents);
        self.rotation.push(rotation);
        self.angular_velocity.push(Vec3::ZERO);
        self.inv_inertia.push(inv_inertia);
        self.boxes += usize::from(shape == Shape::Box);
    }

    /// Body `i`'s half extents when it is a box.
    fn box_half_extents(&self, i: usize) -> Option<Vec3> {
        (self.shape[i] == Shape::Box).then(|| self.half_extents[i])
    }
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
        self.id.push(self.position.len() as u32);
        self.position.push(position);
        self.velocity.push(velocity);
        self.radius.push(radius);
        self.inv_mass.push(1.0 / mass);
        self.last_contact.push(u64::MAX);
        if let Some(spin) = &mut self.spin {
            let inertia = sphere_inverse_inertia(radius, 1.0 / mass);
            spin.push(Shape::Sphere, Vec3::splat(radius), Quat::IDENTITY, inertia);
        }
    }

    /// The spin columns, when the bodies have them (boxes, or friction, in the scene).
    #[must_use]
    pub fn spin(&self) -> Option<&Spin> {
        self.spin.as_ref()
    }

    /// The spin columns, to change (tests and scripted experiments).
    pub fn spin_mut(&mut self) -> Option<&mut Spin> {
        self.spin.as_mut()
    }

    /// Give every body (and every body pushed from now on) an entry in the spin columns; the bodies so far are
    /// spheres that do not spin. Idempotent.
    pub fn enable_spin(&mut self) -> &mut Spin {
        let (radius, inv_mass) = (&self.radius, &self.inv_mass);
        self.spin.get_or_insert_with(|| {
            let mut spin = Spin::default();
            for (&r, &m) in radius.iter().zip(inv_mass) {
                spin.push(Shape::Sphere, Vec3::splat(r), Quat::IDENTITY, sphere_inverse_inertia(r, m));
            }
            spin
        })
    }

    /// Make body `i` a box of `half_extents` turned by `rotation`, not spinning, its velocity kept: its mass is its
    /// volume (density 1), its inertia a solid box's, its radius its bounding radius. Enables the spin columns.
    pub fn make_box(&mut self, i: usize, half_extents: Vec3, rotation: Quat) {
        let inv_mass = 1.0 / (8.0 * half_extents.x * half_extents.y * half_extents.z);
        let s = self.enable_spin();
        s.boxes += usize::from(s.shape[i] != Shape::Box);
        s.shape[i] = Shape::Box;
        s.half_extents[i] = half_extents;
        s.rotation[i] = rotation;
        s.angular_velocity[i] = Vec3::ZERO;
        s.inv_inertia[i] = box_inverse_inertia(half_extents, inv_mass);
        self.radius[i] = half_extents.length();
        self.inv_mass[i] = inv_mass;
    }

    /// Body `i`'s shape.
    #[must_use]
    pub fn shape(&self, i: usize) -> Shape {
        self.spin.as_ref().map_or(Shape::Sphere, |s| s.shape[i])
    }

    /// Body `i`'s half extents, when it is a box.
    #[must_use]
    pub fn box_half_extents(&self, i: usize) -> Option<Vec3> {
        self.spin.as_ref().and_then(|s| s.box_half_extents(i))
    }

    /// Body `i` as an oriented box, when it is one.
    #[must_use]
    pub fn obb(&self, i: usize) -> Option<Obb> {
        let s = self.spin.as_ref()?;
        s.box_half_extents(i).map(|h| Obb::new(self.position[i], h, s.rotation[i]))
    }

    /// Body `i` as a solid centred at `center`: its shape and size, and a box's orientation now.
    #[must_use]
    pub fn solid_at(&self, i: usize, center: Vec3) -> Solid {
        match &self.spin {
            Some(s) if s.shape[i] == Shape::Box => {
                Solid::new(Shape::Box, center, self.radius[i], s.half_extents[i], s.rotation[i])
            }
            _ => Solid::Sphere(center, self.radius[i]),
        }
    }

    /// Body `i` at `position` as the spin response sees it. The bodies have spin columns: it is a box, or the
    /// partner of one, or the scene has friction.
    #[must_use]
    pub fn spin_state(&self, i: usize, position: Vec3) -> SpinState {
        let s = self.spin.as_ref().expect("a body in the spin response has spin columns");
        let (v, m) = (self.velocity[i], self.inv_mass[i]);
        SpinState::from_body_frame(position, v, m, s.rotation[i], s.angular_velocity[i], s.inv_inertia[i])
    }

    /// Write a spin response's position, velocity and angular velocity back to body `i`.
    pub fn set_spin_state(&mut self, i: usize, state: &SpinState) {
        (self.position[i], self.velocity[i]) = (state.position, state.velocity);
        let s = self.spin.as_mut().expect("a body in the spin response has spin columns");
        s.angular_velocity[i] = state.body_angular_velocity();
    }

    /// The columns the narrowphase reads to dispatch on shapes, when the bodies have spin columns.
    #[must_use]
    pub fn shape_columns(&self) -> Option<ShapeColumns<'_>> {
        let s = self.spin.as_ref()?;
        Some(ShapeColumns {
            position: &self.position,
            radius: &self.radius,
            shape: &s.shape,
            half_extents: &s.half_extents,
            rotation: &s.rotation,
        })
    }

    /// The columns the spin response reads, when the bodies have spin columns.
    #[must_use]
    pub fn spin_columns(&self) -> Option<SpinColumns<'_>> {
        let s = self.spin.as_ref()?;
        Some(SpinColumns {
            shapes: self.shape_columns()?,
            velocity: &self.velocity,
            inv_mass: &self.inv_mass,
            angular_velocity: &s.angular_velocity,
            inv_inertia: &s.inv_inertia,
        })
    }

    /// Make room for `additional` more bodies in every column, or say that the allocator refused (instead of
    /// aborting the process, as growing a `Vec` does).
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), std::collections::TryReserveError> {
        self.position.try_reserve_exact(additional)?;
        self.velocity.try_reserve_exact(additional)?;
        self.radius.try_reserve_exact(additional)?;
        self.inv_mass.try_reserve_exact(additional)?;
        self.last_contact.try_reserve_exact(additional)?;
        self.id.try_reserve_exact(additional)?;
        if let Some(s) = &mut self.spin {
            s.shape.try_reserve_exact(additional)?;
            s.half_extents.try_reserve_exact(additional)?;
            s.rotation.try_reserve_exact(additional)?;
            s.angular_velocity.try_reserve_exact(additional)?;
            s.inv_inertia.try_reserve_exact(additional)?;
        }
        Ok(())
    }

    /// Give body `i` radius `radius`; its mass follows its volume. A box is scaled instead, so that its bounding
    /// radius becomes `radius`.
    pub fn set_radius(&mut self, i: usize, radius: f32) {
        if let Some(b) = self.obb(i) {
            let scale = radius / self.radius[i];
            self.make_box(i, b.half_extents * scale, b.rotation);
            return;
        }
        self.radius[i] = radius;
        self.inv_mass[i] = 1.0 / (4.0 / 3.0 * std::f32::consts::PI * radius * radius * radius);
        if let Some(s) = &mut self.spin {
            s.half_extents[i] = Vec3::splat(radius);
            s.inv_inertia[i] = sphere_inverse_inertia(radius, self.inv_mass[i]);
        }
    }

    /// Remove everything, keeping the allocations of the columns every body has; the spin columns go.
    pub fn clear(&mut self) {
        self.position.clear();
        self.velocity.clear();
        self.radius.clear();
        self.inv_mass.clear();
        self.last_contact.clear();
        self.id.clear();
        self.spin = None;
    }

    /// The bounding box of body `i`: a sphere's, or a box's from its orientation.
    #[inline]
    #[must_use]
    pub fn aabb(&self, i: usize) -> Aabb {
        match self.obb(i) {
            Some(b) => b.aabb(),
            None => Aabb::from_center_radius(self.position[i], self.radius[i]),
        }
    }

    /// `true` when every quantity of body `i` is finite.
    #[inline]
    #[must_use]
    pub fn is_finite(&self, i: usize) -> bool {
        let spin = self.spin.as_ref().is_none_or(|s| {
            s.rotation[i].is_finite() && s.angular_velocity[i].is_finite() && s.half_extents[i].is_finite()
        });
        self.position[i].is_finite() && self.velocity[i].is_finite() && self.radius[i].is_finite() && spin
    }

    /// Remove the bodies marked in `doomed` (ascending indices), keeping the others in order. Fills
    /// `old_to_new` with the index map a broadphase's [`on_resize`](collide_broadphase::Broadphase::on_resize)
    /// needs. O(n).
    pub fn remove(&mut self, doomed: &[u32], old_to_new: &mut Vec<u32>) {
        let n = self.len();
        // The ids that go, ascending: each kept id moves down by the number of them below it, so the ids stay
        // dense and in their order.
        let mut gone: Vec<u32> = doomed.iter().map(|&i| self.id[i as usize]).collect();
        gone.sort_unstable();
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
            self.id[kept] = self.id[i] - gone.partition_point(|&g| g < self.id[i]) as u32;
            if let Some(s) = &mut self.spin {
                s.shape[kept] = s.shape[i];
                s.half_extents[kept] = s.half_extents[i];
                s.rotation[kept] = s.rotation[i];
                s.angular_velocity[kept] = s.angular_velocity[i];
                s.inv_inertia[kept] = s.inv_inertia[i];
            }
            kept += 1;
        }
        self.position.truncate(kept);
        self.velocity.truncate(kept);
        self.radius.truncate(kept);
        self.inv_mass.truncate(kept);
        self.last_contact.truncate(kept);
        self.id.truncate(kept);
        if let Some(s) = &mut self.spin {
            s.shape.truncate(kept);
            s.half_extents.truncate(kept);
            s.rotation.truncate(kept);
            s.angular_velocity.truncate(kept);
            s.inv_inertia.truncate(kept);
            s.boxes = s.shape.iter().filter(|&&k| k == Shape::Box).count();
        }
    }

    /// Put body `order[j]` at index `j`, for every column (a permutation: `order` holds each index once).
    /// Allocates new columns: the spawn's first sort is done so (the step's reorders gather through the step's box
    /// buffer instead and allocate nothing, see [`crate::Reorder`]).
    pub fn gather(&mut self, order: &[u32]) {
        fn gathered<T: Copy>(column: &mut Vec<T>, order: &[u32]) {
            *column = order.iter().map(|&o| column[o as usize]).collect();
        }
        debug_assert_eq!(order.len(), self.len());
        gathered(&mut self.position, order);
        gathered(&mut self.velocity, order);
        gathered(&mut self.radius, order);
        gathered(&mut self.inv_mass, order);
        gathered(&mut self.last_contact, order);
        gathered(&mut self.id, order);
        if let Some(s) = &mut self.spin {
            gathered(&mut s.shape, order);
            gathered(&mut s.half_extents, order);
            gathered(&mut s.rotation, order);
            gathered(&mut s.angular_velocity, order);
            gathered(&mut s.inv_inertia, order);
        }
    }

    /// `true` when every body's id is its index (no reorder has moved them).
    #[must_use]
    pub fn ids_in_order(&self) -> bool {
        self.id.iter().enumerate().all(|(i, &id)| id as usize == i)
    }

    /// The index of every body, by id: `index_of[id]`. O(n); allocates (for the rare reader that goes by id:
    /// the state hash, a recording's frame order is a scatter instead).
    #[must_use]
    pub fn index_by_id(&self) -> Vec<u32> {
        let mut index = vec![0; self.len()];
        for (i, &id) in self.id.iter().enumerate() {
            index[id as usize] = i as u32;
        }
        index
    }

    /// Check the ids: a bijection of `0..n`, and the columns all `n` long.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.len();
        let lens =
            [self.velocity.len(), self.radius.len(), self.inv_mass.len(), self.last_contact.len(), self.id.len()];
        if lens.iter().any(|&l| l != n) {
            return Err(format!("columns of different lengths: {n} positions, others {lens:?}"));
        }
        if let Some(s) = &self.spin {
            let spin =
                [s.shape.len(), s.half_extents.len(), s.rotation.len(), s.angular_velocity.len(), s.inv_inertia.len()];
            if spin.iter().any(|&l| l != n) {
                return Err(format!("spin columns of different lengths: {n} bodies, spin {spin:?}"));
            }
        }
        let mut seen = vec![false; n];
        for (i, &id) in self.id.iter().enumerate() {
            match seen.get_mut(id as usize) {
                Some(s) if !*s => *s = true,
                Some(_) => return Err(format!("body {i} has id {id}, which another body has too")),
                None => return Err(format!("body {i} has id {id}, outside 0..{n}")),
            }
        }
        Ok(())
    }

    /// Total kinetic energy, linear plus rotational (for tests and the app's readout).
    #[must_use]
    pub fn kinetic_energy(&self) -> f64 {
        let linear: f64 = self
            .velocity
            .iter()
            .zip(&self.inv_mass)
            .filter(|(_, w)| **w > 0.0)
            .map(|(v, w)| 0.5 * f64::from(v.length_squared()) / f64::from(*w))
            .sum();
        let rotational: f64 = self.spin.as_ref().map_or(0.0, |s| {
            s.angular_velocity.iter().zip(&s.inv_inertia).map(|(&w, &h)| rotational_energy(w, h)).sum()
        });
        linear + rotational
    }

    /// A hash of every position and velocity, bit for bit (FNV-1a): two runs agree iff this agrees. Bodies that
    /// spin add their rotations and angular velocities (a scene without them hashes as before they existed).
    #[must_use]
    ///
    /// Bodies are hashed in id order, so that a reordered run hashes its bodies as they were spawned; without
    /// reordering that is index order, and the hash is the one it always was.
    pub fn state_hash(&self) -> u64 {
        let by_id: Vec<u32> = if self.ids_in_order() { Vec::new() } else { self.index_by_id() };
        let index = |k: usize| if by_id.is_empty() { k } else { by_id[k] as usize };
        let mut h = Fnv::default();
        h.add_u32(self.len() as u32);
        for k in 0..self.len() {
            let (p, v) = (self.position[index(k)], self.velocity[index(k)]);
            for x in [p.x, p.y, p.z, v.x, v.y, v.z] {
                h.add_u32(x.to_bits());
            }
        }
        if let Some(s) = &self.spin {
            for k in 0..self.len() {
                let (q, w) = (s.rotation[index(k)], s.angular_velocity[index(k)]);
                for x in [q.x, q.y, q.z, q.w, w.x, w.y, w.z] {
                    h.add_u32(x.to_bits());
                }
            }
        }
        h.value()
    }
}

#[cfg(test)]
mod tests;
